//! Text, CSV and JSON renderings of an [`Analysis`]. Times are written in time units
//! (1000 ticks), exactly as `cpss --stats` writes them, so the two can be compared.
//!
//! Depends on [`super`] (the analysis) and [`crate::trace`] (the tick unit).
use super::graph::{group_weights, CriticalPath, EdgeKind, Segment};
use super::Analysis;
use crate::trace::{Ticks, TICKS_PER_UNIT};
use std::fmt::Write;

/// How many segments and groups the text report lists.
pub const TOP: usize = 10;

/// Renders ticks as time units: `1234`, or `12.5` when there is a fraction.
pub fn units(t: Ticks) -> String {
    let (whole, frac) = (t / TICKS_PER_UNIT, t % TICKS_PER_UNIT);
    if frac == 0 {
        whole.to_string()
    } else {
        format!("{whole}.{}", format!("{frac:03}").trim_end_matches('0'))
    }
}

fn weight_units(w: f64) -> String {
    format!("{:.3}", w / TICKS_PER_UNIT as f64)
}

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
            units(s.busy),
            units(s.to - s.from - s.busy)
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
        units(s.par_ticks),
        units(s.seq_ticks),
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
        units(s.avg_latency_ticks())
    );
    match s.granularity() {
        Some(g) => {
            let _ = writeln!(o, "Granularity {g:.4}, critical path {}", units(a.critical.length));
        }
        None => {
            let _ = writeln!(o, "Granularity - (no communication), critical path {}", units(a.critical.length));
        }
    }
    let c = &a.weighted;
    let _ = writeln!(o, "Weighted critical path: total weight {}, heaviest segments:", weight_units(c.total_weight));
    let mut heavy: Vec<&Segment> = c.segments.iter().collect();
    heavy.sort_by(|x, y| y.weight.total_cmp(&x.weight).then(x.from.cmp(&y.from)));
    for seg in heavy.iter().take(SUMMARY_SEGMENTS) {
        let _ = writeln!(
            o,
            "  {:6.2} %  {:>10} .. {:<10} P = {:.3}  {}",
            share(seg.weight, c.total_weight),
            units(seg.from),
            units(seg.to),
            seg.parallelism,
            segment_label(a, seg)
        );
    }
    o
}

/// WCPA segments in the short form.
pub const SUMMARY_SEGMENTS: usize = 5;

pub fn text_with(a: &Analysis, top_lines: Option<usize>) -> String {
    let s = &a.summary;
    let mut o = String::new();
    let _ = writeln!(o, "Program: {}", a.program);
    let _ = writeln!(o, "Sequential Execution Time = {}", units(s.seq_ticks));
    let _ = writeln!(o, "Parallel Execution Time = {}", units(s.par_ticks));
    let _ = writeln!(o, "Speedup = {:.4}", s.speedup());
    let _ = writeln!(o, "Efficiency = {:.4}", s.efficiency());
    let _ = writeln!(o, "Processors Used = {}", s.pprocs_used);
    let _ = writeln!(o, "Messages = {}", s.messages);
    let _ = writeln!(o, "Bytes = {}", s.bytes);
    let _ = writeln!(o, "Average Message Latency = {}", units(s.avg_latency_ticks()));
    match s.granularity() {
        Some(g) => {
            let _ = writeln!(
                o,
                "Granularity (computation : communication) = {} : {} = {g:.4}",
                units(s.total_busy_ticks()),
                units(s.total_latency_ticks)
            );
        }
        None => {
            let _ = writeln!(o, "Granularity (computation : communication) = {} : 0", units(s.total_busy_ticks()));
        }
    }
    let _ = writeln!(o, "Processor Utilization:");
    for (p, u) in s.utilization() {
        let _ = writeln!(o, "  {p:>4}  {u:6.2} %");
    }
    let c = &a.critical;
    let _ = writeln!(o, "\nCritical path");
    let _ = writeln!(o, "  Length = {}", units(c.length));
    let _ = writeln!(o, "  Edges = {}, segments = {}", c.edges, c.segments.len());
    let mut longest: Vec<&Segment> = c.segments.iter().collect();
    longest.sort_by(|x, y| (y.to - y.from).cmp(&(x.to - x.from)).then(x.from.cmp(&y.from)));
    let _ = writeln!(o, "  Longest segments:");
    for seg in longest.iter().take(TOP) {
        let _ = writeln!(
            o,
            "    {:>10} .. {:<10} {:>10}  {}",
            units(seg.from),
            units(seg.to),
            units(seg.to - seg.from),
            segment_label(a, seg)
        );
    }
    let c = &a.weighted;
    let _ = writeln!(o, "\nWeighted critical path (the longest path by WCPA weight, n = {})", c.processors);
    let _ = writeln!(o, "  Total weight = {}", weight_units(c.total_weight));
    if same_path(&a.critical, c) {
        let _ = writeln!(o, "  The same path as the elapsed-time critical path.");
    } else {
        let _ = writeln!(
            o,
            "  Not the elapsed-time critical path (which weighs {}): {} .. {}, {} segments",
            weight_units(a.critical.total_weight),
            units(c.segments.first().map_or(0, |s| s.from)),
            units(c.segments.last().map_or(0, |s| s.to)),
            c.segments.len()
        );
    }
    let _ = writeln!(o, "  By process:");
    for (kind, pid, w) in group_weights(c).iter().take(TOP) {
        let _ = writeln!(o, "    {:6.2} %  {} {}", share(*w, c.total_weight), kind.name(), who(a, *pid));
    }
    let mut heavy: Vec<&Segment> = c.segments.iter().collect();
    heavy.sort_by(|x, y| y.weight.total_cmp(&x.weight).then(x.from.cmp(&y.from)));
    let _ = writeln!(o, "  Heaviest segments:");
    for seg in heavy.iter().take(TOP) {
        let _ = writeln!(
            o,
            "    {:6.2} %  {:>10} .. {:<10} P = {:.3}  {}",
            share(seg.weight, c.total_weight),
            units(seg.from),
            units(seg.to),
            seg.parallelism,
            segment_label(a, seg)
        );
    }
    o.push_str(&super::phases::text(&a.phases));
    o.push_str(&states_text(a));
    o.push_str(&profile_text(a));
    o.push_str(&super::imbalance::text(&a.imbalance));
    o.push_str(&super::links::text(&a.links, TOP));
    o.push_str(&super::whatif::text(&a.what_if));
    o.push_str(&unmatched_text(a));
    o.push_str(&super::lines::text(&a.lines, top_lines, units));
    o
}

/// Processor time by state, summed over the processors (JSON has each processor's).
fn states_text(a: &Analysis) -> String {
    use crate::trace::states::PState;
    let mut o = String::new();
    let mut total = [0 as Ticks; 7];
    for (_, t) in &a.states {
        for (k, x) in t.iter().enumerate() {
            total[k] += x;
        }
    }
    let all: Ticks = total.iter().sum();
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
            let _ =
                writeln!(o, "  {:<26} {:6.2} %  {}", st.name(), share(total[k] as f64, all as f64), units(total[k]));
        }
    }
    o
}

/// Each processor's time by state as a JSON array.
fn states_json(a: &Analysis) -> String {
    use crate::trace::states::PState;
    let rows: Vec<String> = a
        .states
        .iter()
        .map(|(p, t)| {
            let fields: Vec<String> =
                PState::ALL.iter().zip(t).map(|(st, x)| format!("\"{}\":{}", st.key(), units(*x))).collect();
            format!("{{\"pproc\":{p},{}}}", fields.join(","))
        })
        .collect();
    format!("[{}]", rows.join(","))
}

/// The distributions: concurrency, message sizes, Late Sender wait, critical-path profile.
pub fn profile_text(a: &Analysis) -> String {
    let p = &a.profile;
    let mut o = String::new();
    let total: Ticks = p.concurrency.iter().sum();
    let _ = writeln!(o, "\nConcurrency (share of time with exactly k processors busy)");
    for (k, &t) in p.concurrency.iter().enumerate() {
        if t > 0 {
            let _ = writeln!(o, "  {k:>4}  {:6.2} %  {}", share(t as f64, total as f64), units(t));
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
            let _ = writeln!(o, "  {:>10}  {n} receives  {}", units(w), who(a, pid));
        }
    }
    let len = a.critical.length as f64;
    let _ = writeln!(o, "\nCritical path by processor");
    for &(pp, t) in &p.path_by_pproc {
        let _ = writeln!(o, "  {pp:>4}  {:6.2} %  {}", share(t as f64, len), units(t));
    }
    let _ = writeln!(o, "Critical path by activity");
    for &(k, t) in &p.path_by_kind {
        let _ = writeln!(o, "  {k:<11}  {:6.2} %  {}", share(t as f64, len), units(t));
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
            units(s.time)
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
            units(r.time)
        );
    }
    o
}

/// The CSV header of [`csv_row`].
pub const CSV_HEADER: &str = "seq_time,par_time,speedup,efficiency,pprocs_used,messages,bytes,avg_latency,granularity,critical_path,critical_segments,wcpa_weight,unmatched_sends,cp_imbalance,max_link_utilization";

/// One CSV row of the main metrics (speedup to 4 decimals as `cpss --stats csv`).
pub fn csv_row(a: &Analysis) -> String {
    let s = &a.summary;
    format!(
        "{},{},{:.4},{:.4},{},{},{},{},{},{},{},{},{},{},{}\n",
        units(s.seq_ticks),
        units(s.par_ticks),
        s.speedup(),
        s.efficiency(),
        s.pprocs_used,
        s.messages,
        s.bytes,
        units(s.avg_latency_ticks()),
        s.granularity().map(|g| format!("{g:.4}")).unwrap_or_default(),
        units(a.critical.length),
        a.critical.segments.len(),
        weight_units(a.weighted.total_weight),
        a.unmatched.sends.len(),
        units(a.imbalance.total.round().max(0.0) as Ticks),
        a.links
            .links
            .iter()
            .map(|l| l.utilization)
            .max_by(f64::total_cmp)
            .map(|u| format!("{u:.4}"))
            .unwrap_or_default()
    )
}

/// One cell of a report table: a number (written alike in CSV and JSON), a text (quoted
/// each format's way) or nothing (empty in CSV, `null` in JSON).
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// A number, already formatted.
    Num(String),
    /// A text.
    Text(String),
    /// No value.
    Null,
}

/// A report table as CSV: the header, then one line per row. `columns` and each row's
/// cells come from one list per table, so CSV and JSON ([`table_json`]) cannot drift.
pub fn table_csv<const N: usize>(columns: &[&str; N], rows: impl IntoIterator<Item = [Cell; N]>) -> String {
    let mut o = columns.join(",");
    o.push('\n');
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .map(|c| match c {
                Cell::Num(v) => v.clone(),
                Cell::Text(t) => csv_str(t),
                Cell::Null => String::new(),
            })
            .collect();
        o.push_str(&cells.join(","));
        o.push('\n');
    }
    o
}

/// A report table as a JSON array of objects, one per row, keyed by `columns`.
pub fn table_json<const N: usize>(columns: &[&str; N], rows: impl IntoIterator<Item = [Cell; N]>) -> String {
    let objects: Vec<String> = rows
        .into_iter()
        .map(|row| {
            let fields: Vec<String> = columns
                .iter()
                .zip(row.iter())
                .map(|(k, c)| {
                    let v = match c {
                        Cell::Num(v) => v.clone(),
                        Cell::Text(t) => json_str(t),
                        Cell::Null => "null".to_string(),
                    };
                    format!("\"{k}\":{v}")
                })
                .collect();
            format!("{{{}}}", fields.join(","))
        })
        .collect();
    format!("[{}]", objects.join(","))
}

pub use crate::textio::{csv_cell as csv_str, json_string as json_str};

/// A path as JSON: length, edges, n, total weight and the segments.
fn path_json(c: &CriticalPath) -> String {
    let segs: Vec<String> = c
        .segments
        .iter()
        .map(|g| {
            format!(
                "{{\"kind\":\"{}\",\"pid\":{},\"to_pid\":{},\"from\":{},\"to\":{},\"busy\":{},\"parallelism\":{:.6},\"weight\":{},\"share\":{:.4}}}",
                g.kind.name(),
                g.pid,
                g.to_pid.map(|p| p.to_string()).unwrap_or_else(|| "null".into()),
                units(g.from),
                units(g.to),
                if g.kind == EdgeKind::Compute { units(g.busy) } else { "null".into() },
                g.parallelism,
                weight_units(g.weight),
                share(g.weight, c.total_weight)
            )
        })
        .collect();
    format!(
        "{{\"length\":{},\"edges\":{},\"processors\":{},\"wcpa_weight\":{},\"segments\":[{}]}}",
        units(c.length),
        c.edges,
        c.processors,
        weight_units(c.total_weight),
        segs.join(",")
    )
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

/// The whole analysis as one JSON object on one line, with the `top_lines` most
/// expensive source lines (all when `None`).
pub fn json_with(a: &Analysis, top_lines: Option<usize>) -> String {
    let s = &a.summary;
    let util: Vec<String> =
        s.utilization().iter().map(|(p, u)| format!("{{\"pproc\":{p},\"percent\":{u:.4}}}")).collect();
    let comm: Vec<String> =
        s.comm.iter().map(|(&(x, y), &b)| format!("{{\"src\":{x},\"dst\":{y},\"bytes\":{b}}}")).collect();
    let unmatched: Vec<String> = a
        .unmatched
        .sends
        .iter()
        .map(|u| {
            format!(
                "{{\"msg\":{},\"time\":{},\"pid\":{},\"channel\":{},\"index\":{},\"element\":{},\"line\":{},\"bytes\":{}}}",
                u.msg,
                units(u.time),
                u.pid,
                u.channel,
                u.index,
                json_str(&u.element),
                u.line,
                u.bytes
            )
        })
        .collect();
    let pending: Vec<String> = a
        .unmatched
        .receives
        .iter()
        .map(|r| {
            format!(
                "{{\"time\":{},\"pid\":{},\"channel\":{},\"index\":{},\"element\":{},\"line\":{}}}",
                units(r.time),
                r.pid,
                r.channel,
                r.index,
                json_str(&r.element),
                r.line
            )
        })
        .collect();
    let p = &a.profile;
    let conc: Vec<String> = p.concurrency.iter().map(|&t| units(t)).collect();
    let sizes: Vec<String> = p.sizes.iter().map(|(b, n)| format!("{{\"up_to\":{b},\"messages\":{n}}}")).collect();
    let late: Vec<String> = p
        .late_sender
        .iter()
        .map(|&(pid, w, n)| format!("{{\"pid\":{pid},\"wait\":{},\"receives\":{n}}}", units(w)))
        .collect();
    let by_pproc: Vec<String> =
        p.path_by_pproc.iter().map(|&(pp, t)| format!("{{\"pproc\":{pp},\"time\":{}}}", units(t))).collect();
    let by_kind: Vec<String> =
        p.path_by_kind.iter().map(|&(k, t)| format!("{{\"kind\":\"{k}\",\"time\":{}}}", units(t))).collect();
    format!(
        "{{\"program\":{},\"seq_time\":{},\"par_time\":{},\"speedup\":{:.6},\"efficiency\":{:.6},\"pprocs_used\":{},\"messages\":{},\"bytes\":{},\"avg_latency\":{},\"granularity\":{},\"utilization\":[{}],\"comm\":[{}],\"critical_path\":{},\"weighted_path\":{},\"same_path\":{},\"states\":{},\"unmatched_sends\":[{}],\"pending_receives\":[{}],\"concurrency\":[{}],\"message_sizes\":[{}],\"late_sender\":[{}],\"critical_path_by_pproc\":[{}],\"critical_path_by_kind\":[{}],\"phase_process\":{},\"phases\":{},\"imbalance\":{},\"links\":{},\"what_if\":{},\"lines\":{}}}\n",
        json_str(&a.program),
        units(s.seq_ticks),
        units(s.par_ticks),
        s.speedup(),
        s.efficiency(),
        s.pprocs_used,
        s.messages,
        s.bytes,
        units(s.avg_latency_ticks()),
        s.granularity().map(|g| format!("{g:.6}")).unwrap_or_else(|| "null".into()),
        util.join(","),
        comm.join(","),
        path_json(&a.critical),
        path_json(&a.weighted),
        same_path(&a.critical, &a.weighted),
        states_json(a),
        unmatched.join(","),
        pending.join(","),
        conc.join(","),
        sizes.join(","),
        late.join(","),
        by_pproc.join(","),
        by_kind.join(","),
        a.phases.pid.map_or_else(|| "null".to_string(), |p| p.to_string()),
        super::phases::json(&a.phases),
        super::imbalance::json(&a.imbalance),
        super::links::json(&a.links),
        super::whatif::json(&a.what_if),
        super::lines::json(&a.lines, top_lines)
    )
}
