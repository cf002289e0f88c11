//! Text, CSV and JSON renderings of an [`Analysis`]. Times are written in time units
//! (1000 ticks), exactly as `cpss --stats` writes them, so the two can be compared.
//!
//! Depends on [`super`] (the analysis) and [`crate::trace`] (the tick unit).
use super::graph::{group_weights, CriticalPath, EdgeKind, Segment};
use super::table::{number, rounded, JSON_SCHEMA_VERSION};
use super::Analysis;
use crate::time::Ticks;
use crate::time::{format_time, format_total, Total};
use serde::Serialize;
use serde_json::Value;
use std::fmt::Write;

/// How many segments and groups the text report lists.
pub const TOP: usize = 10;

fn who(a: &Analysis, pid: u32) -> String {
    match a.functions.get(&pid) {
        Some(f) => format!("process {pid} ({f})"),
        None => format!("process {pid}"),
    }
}

/// What a segment is: kind and processes; a compute segment during which its process
/// also waited (remote reads, a lock, `delay`, its processor) says how much of it was busy.
fn segment_label(a: &Analysis, s: &Segment) -> String {
    match s.to_pid {
        Some(to) => format!("{} {} -> {}", s.kind.name(), who(a, s.pid), who(a, to)),
        None if s.kind == EdgeKind::Compute && s.busy < s.to - s.from => format!(
            "{} {}: busy {}, waiting {}",
            s.kind.name(),
            who(a, s.pid),
            format_time(s.busy),
            format_time(s.to - s.from - s.busy)
        ),
        None => format!("{} {}", s.kind.name(), who(a, s.pid)),
    }
}

fn share(w: f64, total: f64) -> f64 {
    if total > 0.0 {
        100.0 * w / total
    } else {
        0.0
    }
}

/// The text report with every line of the per-line profile.
pub fn text(a: &Analysis) -> String {
    text_with(a, None)
}

/// The text report: summary, critical path, weighted critical path, phases, the
/// distributions, imbalance, links, what-if answers, unmatched communication and the
/// `top_lines` most expensive source lines (all when `None`).
/// The short form (`cpperf --summary`): the headline figures, then the five heaviest
/// segments of the weighted critical path.
pub fn summary_text(a: &Analysis) -> String {
    let s = &a.summary;
    let mut o = String::new();
    let _ = writeln!(o, "Program: {}", a.program);
    let _ = writeln!(
        o,
        "Parallel time {} (sequential {}), speedup {:.4}, efficiency {:.4} on {} processors",
        format_time(s.par_ticks),
        format_time(s.seq_ticks),
        s.speedup(),
        s.efficiency(),
        s.pprocs_used
    );
    let util = s.utilization();
    let mean = if util.is_empty() { 0.0 } else { util.iter().map(|u| u.1).sum::<f64>() / util.len() as f64 };
    let _ = writeln!(
        o,
        "Messages {} ({} bytes), average latency {}, mean utilization {mean:.2} %",
        s.messages,
        s.bytes,
        format_time(s.avg_latency_ticks())
    );
    match s.granularity() {
        Some(g) => {
            let _ = writeln!(o, "Granularity {g:.4}, critical path {}", format_time(a.critical.length));
        }
        None => {
            let _ = writeln!(o, "Granularity - (no communication), critical path {}", format_time(a.critical.length));
        }
    }
    let c = &a.weighted;
    let _ = writeln!(
        o,
        "Weighted critical path: total weight {}, heaviest segments:",
        crate::time::format_fixed(c.total_weight)
    );
    heaviest(a, c, SUMMARY_SEGMENTS, "  ", &mut o);
    o
}

/// The `n` heaviest segments of the weighted path `c` (ties: the earlier first), one line
/// each after `indent`: share, interval, parallelism, what ran.
fn heaviest(a: &Analysis, c: &CriticalPath, n: usize, indent: &str, o: &mut String) {
    let mut heavy: Vec<&Segment> = c.segments.iter().collect();
    heavy.sort_by(|x, y| y.weight.total_cmp(&x.weight).then(x.from.cmp(&y.from)));
    for seg in heavy.iter().take(n) {
        let _ = writeln!(
            o,
            "{indent}{:6.2} %  {:>10} .. {:<10} P = {:.3}  {}",
            share(seg.weight, c.total_weight),
            format_time(seg.from),
            format_time(seg.to),
            seg.parallelism,
            segment_label(a, seg)
        );
    }
}

/// WCPA segments in the short form.
pub const SUMMARY_SEGMENTS: usize = 5;

pub fn text_with(a: &Analysis, top_lines: Option<usize>) -> String {
    let s = &a.summary;
    let mut o = String::new();
    let _ = writeln!(o, "Program: {}", a.program);
    let _ = writeln!(o, "Sequential Execution Time = {}", format_time(s.seq_ticks));
    let _ = writeln!(o, "Parallel Execution Time = {}", format_time(s.par_ticks));
    let _ = writeln!(o, "Speedup = {:.4}", s.speedup());
    let _ = writeln!(o, "Efficiency = {:.4}", s.efficiency());
    let _ = writeln!(o, "Processors Used = {}", s.pprocs_used);
    let _ = writeln!(o, "Messages = {}", s.messages);
    let _ = writeln!(o, "Bytes = {}", s.bytes);
    let _ = writeln!(o, "Average Message Latency = {}", format_time(s.avg_latency_ticks()));
    if s.remote_messages > 0 {
        let _ = writeln!(
            o,
            "Remote Memory Messages = {}, average latency {}",
            s.remote_messages,
            format_time(s.avg_remote_latency_ticks())
        );
    }
    match s.granularity() {
        Some(g) if s.remote_messages > 0 => {
            let _ = writeln!(
                o,
                "Granularity (computation : communication) = {} : ({} messages + {} remote memory) = {g:.4}",
                format_total(s.total_busy_ticks()),
                format_total(s.total_latency_ticks),
                format_total(s.remote_latency_ticks)
            );
        }
        Some(g) => {
            let _ = writeln!(
                o,
                "Granularity (computation : communication) = {} : {} = {g:.4}",
                format_total(s.total_busy_ticks()),
                format_total(s.total_latency_ticks)
            );
        }
        None => {
            let _ =
                writeln!(o, "Granularity (computation : communication) = {} : 0", format_total(s.total_busy_ticks()));
        }
    }
    let n = a.critical.processors;
    if let (Some(f), Some(bound)) = (a.profile.serial_fraction(), a.profile.amdahl_bound(n)) {
        let _ = writeln!(
            o,
            "Amdahl bound on {n} processors = 1 / (f + (1 - f) / n) = {bound:.4}, with the serial fraction f = {:.2} % (work done while one processor alone was busy)",
            100.0 * f
        );
    }
    let _ = writeln!(o, "Parallelism P = sum of processor utilizations / n = {:.4} (n = {n})", s.parallelism(n));
    if let (Some(l), Some(m)) = (a.links.network_load(), a.links.network_links) {
        let _ = writeln!(o, "Network Load L = sum of link utilizations / m = {l:.4} (m = {m} directed links)");
    }
    let _ = writeln!(o, "Processor Utilization:");
    for (p, u) in s.utilization() {
        let _ = writeln!(o, "  {p:>4}  {u:6.2} %");
    }
    let c = &a.critical;
    let _ = writeln!(o, "\nCritical path");
    let _ = writeln!(o, "  Length = {}", format_time(c.length));
    let _ = writeln!(o, "  Edges = {}, segments = {}", c.edges, c.segments.len());
    let mut longest: Vec<&Segment> = c.segments.iter().collect();
    longest.sort_by(|x, y| (y.to - y.from).cmp(&(x.to - x.from)).then(x.from.cmp(&y.from)));
    let _ = writeln!(o, "  Longest segments:");
    for seg in longest.iter().take(TOP) {
        let _ = writeln!(
            o,
            "    {:>10} .. {:<10} {:>10}  {}",
            format_time(seg.from),
            format_time(seg.to),
            format_time(seg.to - seg.from),
            segment_label(a, seg)
        );
    }
    let c = &a.weighted;
    let _ = writeln!(o, "\nWeighted critical path (the longest path by WCPA weight, n = {})", c.processors);
    let _ = writeln!(o, "  Total weight = {}", crate::time::format_fixed(c.total_weight));
    if same_path(&a.critical, c) {
        let _ = writeln!(o, "  The same path as the elapsed-time critical path.");
    } else {
        let _ = writeln!(
            o,
            "  Not the elapsed-time critical path (which weighs {}): {} .. {}, {} segments",
            crate::time::format_fixed(a.critical.total_weight),
            format_time(c.segments.first().map_or(0, |s| s.from)),
            format_time(c.segments.last().map_or(0, |s| s.to)),
            c.segments.len()
        );
    }
    let _ = writeln!(o, "  By process:");
    for (kind, pid, w) in group_weights(c).iter().take(TOP) {
        let _ = writeln!(o, "    {:6.2} %  {} {}", share(*w, c.total_weight), kind.name(), who(a, *pid));
    }
    let _ = writeln!(o, "  Heaviest segments:");
    heaviest(a, c, TOP, "    ", &mut o);
    o.push_str(&super::phases::text(&a.phases));
    o.push_str(&states_text(a));
    o.push_str(&profile_text(a));
    o.push_str(&super::imbalance::text(&a.imbalance));
    o.push_str(&super::processes::text(&a.processes));
    if let Some(p) = &a.procedures {
        o.push_str(&super::functions::text(p));
    }
    o.push_str(&super::links::text(&a.links, TOP));
    o.push_str(&super::whatif::text(&a.what_if));
    o.push_str(&unmatched_text(a));
    o.push_str(&super::lines::text(&a.lines, top_lines));
    o
}

/// Processor time by state, summed over the processors (JSON has each processor's).
fn states_text(a: &Analysis) -> String {
    use crate::trace::states::PState;
    let mut o = String::new();
    // Summed over processors: wider than one processor's time.
    let mut total = [0 as Total; 7];
    for (_, t) in &a.states {
        for (k, x) in t.iter().enumerate() {
            total[k] += Total::from(*x);
        }
    }
    let all: Total = total.iter().sum();
    if all == 0 {
        return o;
    }
    let _ = writeln!(
        o,
        "\nProcessor time by state (all {} processors; idle: what their processes wait for)",
        a.states.len()
    );
    for (k, st) in PState::ALL.iter().enumerate() {
        if total[k] > 0 {
            let _ = writeln!(
                o,
                "  {:<26} {:6.2} %  {}",
                st.name(),
                share(total[k] as f64, all as f64),
                format_total(total[k])
            );
        }
    }
    o
}

/// Each processor's time by state as a JSON array of `{"pproc", STATE: time…}`.
fn states_json(a: &Analysis) -> Value {
    use crate::trace::states::PState;
    let rows = a.states.iter().map(|(p, t)| {
        let mut row = serde_json::Map::new();
        row.insert("pproc".into(), Value::from(*p));
        for (st, x) in PState::ALL.iter().zip(t) {
            row.insert(st.key().into(), number(&format_time(*x)));
        }
        Value::Object(row)
    });
    Value::Array(rows.collect())
}

/// The distributions: concurrency, message sizes, Late Sender wait, critical-path profile.
pub fn profile_text(a: &Analysis) -> String {
    let p = &a.profile;
    let mut o = String::new();
    let total: Ticks = p.concurrency.iter().sum();
    let _ = writeln!(o, "\nConcurrency (share of time with exactly k processors busy)");
    for (k, &t) in p.concurrency.iter().enumerate() {
        if t > 0 {
            let _ = writeln!(o, "  {k:>4}  {:6.2} %  {}", share(t as f64, total as f64), format_time(t));
        }
    }
    if !p.sizes.is_empty() {
        let _ = writeln!(o, "\nMessage sizes (bytes up to, messages)");
        for (b, n) in &p.sizes {
            let _ = writeln!(o, "  {b:>8}  {n}");
        }
    }
    if !p.late_sender.is_empty() {
        let _ = writeln!(o, "\nLate Sender wait (arrival - receive call)");
        for &(pid, w, n) in &p.late_sender {
            let _ = writeln!(o, "  {:>10}  {n} receives  {}", format_time(w), who(a, pid));
        }
        let _ = writeln!(o, "\nLate Sender wait by call site (the receive's source line; an MPI call's line)");
        for &(line, w, n) in &p.late_sender_lines {
            let _ = writeln!(o, "  {:>10}  {n} receives  line {line}", format_time(w));
        }
    }
    if !p.late_receiver.is_empty() {
        let _ = writeln!(o, "\nLate Receiver wait (receive call - MPI_Ssend)");
        for &(pid, w, n) in &p.late_receiver {
            let _ = writeln!(o, "  {:>10}  {n} sends  {}", format_time(w), who(a, pid));
        }
        let _ = writeln!(o, "\nLate Receiver wait by call site (the MPI_Ssend's source line)");
        for &(line, w, n) in &p.late_receiver_lines {
            let _ = writeln!(o, "  {:>10}  {n} sends  line {line}", format_time(w));
        }
    }
    let len = a.critical.length as f64;
    let _ = writeln!(o, "\nCritical path by processor");
    for &(pp, t) in &p.path_by_pproc {
        let _ = writeln!(o, "  {pp:>4}  {:6.2} %  {}", share(t as f64, len), format_time(t));
    }
    let _ = writeln!(o, "Critical path by activity");
    for &(k, t) in &p.path_by_kind {
        let _ = writeln!(o, "  {k:<11}  {:6.2} %  {}", share(t as f64, len), format_time(t));
    }
    o
}

fn line_text(line: u32) -> String {
    if line == 0 {
        "line unknown".into()
    } else {
        format!("line {line}")
    }
}

/// The unmatched sends and receives, or nothing when every message was received.
pub fn unmatched_text(a: &Analysis) -> String {
    let u = &a.unmatched;
    let mut o = String::new();
    if u.sends.is_empty() && u.receives.is_empty() {
        return o;
    }
    let _ = writeln!(o, "\nUnmatched communication");
    for s in &u.sends {
        let _ = writeln!(
            o,
            "  send never received: {} sent {} bytes on channel {} (channel {}, element {}) at {}, time {}",
            who(a, s.pid),
            s.bytes,
            s.element,
            s.channel,
            s.index,
            line_text(s.line),
            format_time(s.time)
        );
    }
    for r in &u.receives {
        let _ = writeln!(
            o,
            "  receive never completed: {} waits on channel {} (channel {}, element {}) at {} since time {}",
            who(a, r.pid),
            r.element,
            r.channel,
            r.index,
            line_text(r.line),
            format_time(r.time)
        );
    }
    o
}

/// The CSV header of [`csv_row`].
pub const CSV_HEADER: &str = "seq_time,par_time,speedup,efficiency,pprocs_used,messages,bytes,avg_latency,granularity,critical_path,critical_segments,wcpa_weight,unmatched_sends,cp_imbalance,max_link_utilization,parallelism,network_load";

/// One CSV row of the main metrics (speedup to 4 decimals as `cpss --stats csv`).
pub fn csv_row(a: &Analysis) -> String {
    let s = &a.summary;
    format!(
        "{},{},{:.4},{:.4},{},{},{},{},{},{},{},{},{},{},{},{:.4},{}\n",
        format_time(s.seq_ticks),
        format_time(s.par_ticks),
        s.speedup(),
        s.efficiency(),
        s.pprocs_used,
        s.messages,
        s.bytes,
        format_time(s.avg_latency_ticks()),
        s.granularity().map(|g| format!("{g:.4}")).unwrap_or_default(),
        format_time(a.critical.length),
        a.critical.segments.len(),
        crate::time::format_fixed(a.weighted.total_weight),
        a.unmatched.sends.len(),
        format_time(a.imbalance.total.round().max(0.0) as Ticks),
        a.links
            .links
            .iter()
            .map(|l| l.utilization)
            .max_by(f64::total_cmp)
            .map(|u| format!("{u:.4}"))
            .unwrap_or_default(),
        s.parallelism(a.critical.processors),
        a.links.network_load().map(|l| format!("{l:.4}")).unwrap_or_default()
    )
}

/// One segment of a path in the JSON report.
#[derive(Serialize)]
struct SegmentDoc {
    kind: &'static str,
    pid: u32,
    to_pid: Option<u32>,
    from: Value,
    to: Value,
    /// Busy time of a computation edge; `null` for a message.
    busy: Value,
    parallelism: f64,
    weight: Value,
    share: f64,
}

/// A path in the JSON report: length, edges, n, total weight and the segments.
#[derive(Serialize)]
struct PathDoc {
    length: Value,
    edges: usize,
    processors: u32,
    wcpa_weight: Value,
    segments: Vec<SegmentDoc>,
}

fn path_json(c: &CriticalPath) -> PathDoc {
    let segments = c
        .segments
        .iter()
        .map(|g| SegmentDoc {
            kind: g.kind.name(),
            pid: g.pid,
            to_pid: g.to_pid,
            from: number(&format_time(g.from)),
            to: number(&format_time(g.to)),
            busy: if g.kind == EdgeKind::Compute { number(&format_time(g.busy)) } else { Value::Null },
            parallelism: rounded(g.parallelism, 6),
            weight: number(&crate::time::format_fixed(g.weight)),
            share: rounded(share(g.weight, c.total_weight), 4),
        })
        .collect();
    PathDoc {
        length: number(&format_time(c.length)),
        edges: c.edges,
        processors: c.processors,
        wcpa_weight: number(&crate::time::format_fixed(c.total_weight)),
        segments,
    }
}

/// Whether two paths are the same sequence of segments.
pub fn same_path(x: &CriticalPath, y: &CriticalPath) -> bool {
    x.segments.len() == y.segments.len()
        && x.segments
            .iter()
            .zip(&y.segments)
            .all(|(p, q)| (p.kind, p.pid, p.to_pid, p.from, p.to) == (q.kind, q.pid, q.to_pid, q.from, q.to))
}

/// The whole analysis as one JSON object on one line, every source line included.
pub fn json(a: &Analysis) -> String {
    json_with(a, None)
}

/// The JSON report (`cpperf --format json`). Times are in time units, shares in percent,
/// utilizations in percent; a table's rows are objects keyed by its CSV columns.
#[derive(Serialize)]
struct ReportDoc<'a> {
    schema_version: u32,
    program: &'a str,
    seq_time: Value,
    par_time: Value,
    speedup: f64,
    efficiency: f64,
    pprocs_used: u32,
    messages: u64,
    bytes: u64,
    avg_latency: Value,
    remote_messages: u64,
    avg_remote_latency: Value,
    /// Computation over communication time; `null` without communication.
    granularity: Option<f64>,
    /// Work done while one processor alone was busy, over all work (Amdahl's f).
    serial_fraction: Option<f64>,
    /// Amdahl's bound on the speedup on the machine's processors with that f.
    amdahl_bound: Option<f64>,
    /// Σ processor utilization / n, as a fraction (seed 003 §3.3).
    parallelism: f64,
    /// Σ link utilization / m, as a fraction; `null` without traced routes.
    network_load: Option<f64>,
    utilization: Vec<UtilDoc>,
    comm: Vec<CommDoc>,
    critical_path: PathDoc,
    weighted_path: PathDoc,
    same_path: bool,
    states: Value,
    unmatched_sends: Vec<UnmatchedDoc<'a>>,
    pending_receives: Vec<PendingDoc<'a>>,
    concurrency: Vec<Value>,
    message_sizes: Vec<SizeDoc>,
    late_sender: Vec<LateDoc>,
    late_sender_lines: Vec<LateLineDoc>,
    late_receiver: Vec<LateSendDoc>,
    late_receiver_lines: Vec<LateSendLineDoc>,
    critical_path_by_pproc: Vec<ByPprocDoc>,
    critical_path_by_kind: Vec<ByKindDoc>,
    phase_process: Option<u32>,
    phases: Value,
    imbalance: Value,
    processes: Value,
    /// The procedure profile (`--functions`), else null.
    functions: Value,
    links: Value,
    what_if: Value,
    lines: Value,
}

#[derive(Serialize)]
struct UtilDoc {
    pproc: u32,
    percent: f64,
}

#[derive(Serialize)]
struct CommDoc {
    src: u32,
    dst: u32,
    bytes: u64,
}

#[derive(Serialize)]
struct UnmatchedDoc<'a> {
    msg: u64,
    time: Value,
    pid: u32,
    channel: u32,
    index: u32,
    element: &'a str,
    line: u32,
    bytes: u32,
}

#[derive(Serialize)]
struct PendingDoc<'a> {
    time: Value,
    pid: u32,
    channel: u32,
    index: u32,
    element: &'a str,
    line: u32,
}

#[derive(Serialize)]
struct SizeDoc {
    up_to: u64,
    messages: u64,
}

#[derive(Serialize)]
struct LateDoc {
    pid: u32,
    wait: Value,
    receives: u64,
}

#[derive(Serialize)]
struct LateLineDoc {
    line: u32,
    wait: Value,
    receives: u64,
}

#[derive(Serialize)]
struct LateSendDoc {
    pid: u32,
    wait: Value,
    sends: u64,
}

#[derive(Serialize)]
struct LateSendLineDoc {
    line: u32,
    wait: Value,
    sends: u64,
}

#[derive(Serialize)]
struct ByPprocDoc {
    pproc: u32,
    time: Value,
}

#[derive(Serialize)]
struct ByKindDoc {
    kind: &'static str,
    time: Value,
}

/// The whole analysis as one JSON object on one line, with the `top_lines` most
/// expensive source lines (all when `None`).
pub fn json_with(a: &Analysis, top_lines: Option<usize>) -> String {
    let s = &a.summary;
    let p = &a.profile;
    let doc = ReportDoc {
        schema_version: JSON_SCHEMA_VERSION,
        program: &a.program,
        seq_time: number(&format_time(s.seq_ticks)),
        par_time: number(&format_time(s.par_ticks)),
        speedup: rounded(s.speedup(), 6),
        efficiency: rounded(s.efficiency(), 6),
        pprocs_used: s.pprocs_used,
        messages: s.messages,
        bytes: s.bytes,
        avg_latency: number(&format_time(s.avg_latency_ticks())),
        remote_messages: s.remote_messages,
        avg_remote_latency: number(&format_time(s.avg_remote_latency_ticks())),
        granularity: s.granularity().map(|g| rounded(g, 6)),
        serial_fraction: p.serial_fraction().map(|f| rounded(f, 6)),
        amdahl_bound: p.amdahl_bound(a.critical.processors).map(|b| rounded(b, 6)),
        parallelism: rounded(s.parallelism(a.critical.processors), 6),
        network_load: a.links.network_load().map(|l| rounded(l, 6)),
        utilization: s
            .utilization()
            .iter()
            .map(|&(pproc, percent)| UtilDoc { pproc, percent: rounded(percent, 4) })
            .collect(),
        comm: s.comm.iter().map(|(&(src, dst), &bytes)| CommDoc { src, dst, bytes }).collect(),
        critical_path: path_json(&a.critical),
        weighted_path: path_json(&a.weighted),
        same_path: same_path(&a.critical, &a.weighted),
        states: states_json(a),
        unmatched_sends: a
            .unmatched
            .sends
            .iter()
            .map(|u| UnmatchedDoc {
                msg: u.msg,
                time: number(&format_time(u.time)),
                pid: u.pid,
                channel: u.channel,
                index: u.index,
                element: &u.element,
                line: u.line,
                bytes: u.bytes,
            })
            .collect(),
        pending_receives: a
            .unmatched
            .receives
            .iter()
            .map(|r| PendingDoc {
                time: number(&format_time(r.time)),
                pid: r.pid,
                channel: r.channel,
                index: r.index,
                element: &r.element,
                line: r.line,
            })
            .collect(),
        concurrency: p.concurrency.iter().map(|&t| number(&format_time(t))).collect(),
        message_sizes: p.sizes.iter().map(|&(up_to, messages)| SizeDoc { up_to, messages }).collect(),
        late_sender: p
            .late_sender
            .iter()
            .map(|&(pid, w, receives)| LateDoc { pid, wait: number(&format_time(w)), receives })
            .collect(),
        late_sender_lines: p
            .late_sender_lines
            .iter()
            .map(|&(line, w, receives)| LateLineDoc { line, wait: number(&format_time(w)), receives })
            .collect(),
        late_receiver: p
            .late_receiver
            .iter()
            .map(|&(pid, w, sends)| LateSendDoc { pid, wait: number(&format_time(w)), sends })
            .collect(),
        late_receiver_lines: p
            .late_receiver_lines
            .iter()
            .map(|&(line, w, sends)| LateSendLineDoc { line, wait: number(&format_time(w)), sends })
            .collect(),
        critical_path_by_pproc: p
            .path_by_pproc
            .iter()
            .map(|&(pproc, t)| ByPprocDoc { pproc, time: number(&format_time(t)) })
            .collect(),
        critical_path_by_kind: p
            .path_by_kind
            .iter()
            .map(|&(kind, t)| ByKindDoc { kind, time: number(&format_time(t)) })
            .collect(),
        phase_process: a.phases.pid,
        phases: super::phases::json(&a.phases),
        imbalance: super::imbalance::json(&a.imbalance),
        processes: super::processes::json(&a.processes),
        functions: a.procedures.as_ref().map_or(Value::Null, super::functions::json),
        links: super::links::json(&a.links),
        what_if: super::whatif::json(&a.what_if),
        lines: super::lines::json(&a.lines, top_lines),
    };
    let mut out = serde_json::to_string(&doc).unwrap_or_default();
    out.push('\n');
    out
}
