//! The procedure profile (`cpperf --functions`; seed 001's procedure entry and exit,
//! the procedure level of IPS and Quartz in seed 003 ch. 2): for every function, its
//! calls, inclusive and exclusive busy time, the mean and sd of one call's inclusive
//! busy time, its share of the critical path, and its concurrency-weighted time.
//!
//! From the run record's [`Event::Enter`] and [`Event::Leave`] events and the busy
//! intervals. A process is in its own function (that of its creation) from its creation
//! to its end: that counts as one call, so a process's function's inclusive time is the
//! process's busy time. Each busy interval of a process is split at its calls and
//! returns; each piece is *exclusive* time of the function on top of the process's call
//! stack. A call's *inclusive* time is the process's busy time between its entry and
//! its return (its own and its callees'); a function's inclusive total sums, over the
//! processes, each process's outermost activations of it, so recursion does not count
//! time twice and a function run by many processes sums their times as its exclusive
//! time does (inclusive is never less than exclusive). A trace without call
//! events (an older record, PICL, SDDF without them) gives each process's function only.
//!
//! * **Critical path**: the exclusive time of the function inside the critical path's
//!   compute segments of the same process, over the path's length.
//! * **Concurrency-weighted time** (Quartz's normalised processor time): each piece of
//!   exclusive time `dt` counts `dt / c`, `c` being the number of processors busy then;
//!   a function that runs while the others idle weighs more, one that runs alongside
//!   them less. Over all functions it sums to the time at least one processor was busy.
//!
//! Memory grows with the busy intervals and calls, so the profile is built only when
//! asked ([`super::Options::functions`]).
use super::graph::{CriticalPath, EdgeKind};
use super::table::{table_csv, table_json, Cell};
use crate::time::format_time;
use crate::time::Ticks;
use crate::trace::{Event, RunHeader};
use std::collections::BTreeMap;
use std::fmt::Write;

/// One function's figures.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FunctionRow {
    /// Its name from the header (`#k` when the header has none).
    pub function: String,
    /// Activations: calls, plus one per process that runs it.
    pub calls: u64,
    /// Busy time of its outermost activations (callees included).
    pub inclusive: Ticks,
    /// Busy time of its own instructions.
    pub exclusive: Ticks,
    /// Mean and standard deviation of one activation's inclusive time, ticks.
    pub mean: f64,
    pub sd: f64,
    /// Its exclusive time on the critical path.
    pub critical: Ticks,
    /// Concurrency-weighted exclusive time, ticks.
    pub weighted: f64,
}

/// The profile: one row per function that ran, by exclusive time (most first).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FunctionProfile {
    pub rows: Vec<FunctionRow>,
    /// The critical path's length the shares are of.
    pub critical_length: Ticks,
    /// Total busy time (the sum of the exclusive times).
    pub busy: Ticks,
}

/// A call mark of one process not yet applied: a call or a return at a time.
#[derive(Debug, Clone, Copy)]
struct Mark {
    time: Ticks,
    function: u32,
    enter: bool,
}

/// One open activation.
#[derive(Debug, Clone, Copy)]
struct Frame {
    function: u32,
    /// The process's busy total at its entry.
    busy_at_entry: Ticks,
}

/// One process's state.
#[derive(Debug, Default)]
struct Process {
    stack: Vec<Frame>,
    /// Per function, its activations open on `stack` (for recursion: only the
    /// outermost counts toward the inclusive total).
    open: BTreeMap<u32, u32>,
    /// Marks after the last busy interval, in time order.
    marks: std::collections::VecDeque<Mark>,
    busy: Ticks,
    /// Exclusive pieces `(start, end, function)` in time order.
    pieces: Vec<(Ticks, Ticks, u32)>,
}

/// Per function accumulators.
#[derive(Debug, Default, Clone)]
struct Acc {
    calls: u64,
    inclusive: Ticks,
    exclusive: Ticks,
    sum: f64,
    sum_sq: f64,
}

/// Follows the events the profile needs.
#[derive(Debug, Default)]
pub struct FunctionBuilder {
    procs: BTreeMap<u32, Process>,
    acc: BTreeMap<u32, Acc>,
    /// Every busy interval's bounds, for the concurrency.
    changes: Vec<(Ticks, i32)>,
}

impl FunctionBuilder {
    fn open(&mut self, pid: u32, function: u32) {
        let p = self.procs.entry(pid).or_default();
        p.stack.push(Frame { function, busy_at_entry: p.busy });
        *p.open.entry(function).or_default() += 1;
        self.acc.entry(function).or_default().calls += 1;
    }

    fn close(&mut self, pid: u32) {
        let Some(p) = self.procs.get_mut(&pid) else { return };
        let Some(f) = p.stack.pop() else { return };
        let incl = p.busy.saturating_sub(f.busy_at_entry);
        // The outermost activation of the function in this process: no other one of
        // it is open below (each process's time is added once, as exclusive time is).
        let outermost = match p.open.get_mut(&f.function) {
            Some(n) if *n > 1 => {
                *n -= 1;
                false
            }
            _ => {
                p.open.remove(&f.function);
                true
            }
        };
        let a = self.acc.entry(f.function).or_default();
        if outermost {
            a.inclusive = a.inclusive.saturating_add(incl);
        }
        let x = incl as f64;
        a.sum += x;
        a.sum_sq += x * x;
    }

    /// Applies `pid`'s pending marks up to `t` (all of them with `None`).
    fn apply_marks(&mut self, pid: u32, upto: Option<Ticks>) {
        let due = |m: &Mark| upto.is_none_or(|t| m.time <= t);
        while let Some(m) = self.procs.get_mut(&pid).and_then(|p| p.marks.front().copied().filter(due)) {
            if let Some(p) = self.procs.get_mut(&pid) {
                p.marks.pop_front();
            }
            if m.enter {
                self.open(pid, m.function);
                continue;
            }
            // A return leaves the function it names, unwinding any frame above it that
            // the trace left open (never the process's own function, at the bottom).
            let depth =
                self.procs.get(&pid).and_then(|p| p.stack.iter().skip(1).rposition(|f| f.function == m.function));
            if let Some(k) = depth {
                while self.procs.get(&pid).is_some_and(|p| p.stack.len() > k + 1) {
                    self.close(pid);
                }
            }
        }
    }

    /// Takes one event into account.
    pub fn event(&mut self, e: &Event) {
        match *e {
            Event::ProcCreate { pid, function, .. } => {
                self.procs.entry(pid).or_default();
                self.open(pid, function);
            }
            Event::Enter { time, pid, function } | Event::Leave { time, pid, function } => {
                let enter = matches!(e, Event::Enter { .. });
                self.procs.entry(pid).or_default().marks.push_back(Mark { time, function, enter });
            }
            Event::Busy { pid, start, end, .. } => {
                self.changes.push((start, 1));
                self.changes.push((end, -1));
                let mut at = start;
                self.apply_marks(pid, Some(start));
                loop {
                    let next = self.procs.get(&pid).and_then(|p| p.marks.front()).map(|m| m.time).filter(|&t| t < end);
                    let until = next.unwrap_or(end).max(at);
                    self.piece(pid, at, until);
                    at = until;
                    match next {
                        Some(t) => self.apply_marks(pid, Some(t)),
                        None => break,
                    }
                }
            }
            // A process's last busy interval may follow its end in the record (both end at
            // the same tick): its activations are closed at the end of the analysis.
            _ => {}
        }
    }

    /// Busy time `[a, b)` of `pid`, exclusive time of its top function.
    fn piece(&mut self, pid: u32, a: Ticks, b: Ticks) {
        if b <= a {
            return;
        }
        let p = self.procs.entry(pid).or_default();
        p.busy = p.busy.saturating_add(b - a);
        let Some(top) = p.stack.last().map(|f| f.function) else { return };
        match p.pieces.last_mut() {
            Some(last) if last.1 == a && last.2 == top => last.1 = b,
            _ => p.pieces.push((a, b, top)),
        }
        let acc = self.acc.entry(top).or_default();
        acc.exclusive = acc.exclusive.saturating_add(b - a);
    }

    /// The profile, functions named by `header`, shares of `critical`.
    pub fn finish(mut self, header: &RunHeader, critical: &CriticalPath) -> FunctionProfile {
        let pids: Vec<u32> = self.procs.keys().copied().collect();
        for pid in pids {
            self.apply_marks(pid, None);
            while self.procs.get(&pid).is_some_and(|p| !p.stack.is_empty()) {
                self.close(pid);
            }
        }
        // Concurrency: change points and the integral of 1/c up to each.
        self.changes.sort_unstable();
        let mut pts: Vec<Ticks> = Vec::with_capacity(self.changes.len());
        let mut inv: Vec<f64> = Vec::with_capacity(self.changes.len());
        let mut count: Vec<i64> = Vec::with_capacity(self.changes.len());
        let (mut c, mut acc_inv, mut last) = (0i64, 0.0f64, 0 as Ticks);
        for &(t, d) in &self.changes {
            if c > 0 {
                acc_inv += t.saturating_sub(last) as f64 / c as f64;
            }
            if pts.last() == Some(&t) {
                if let Some(k) = count.last_mut() {
                    *k += i64::from(d);
                }
            } else {
                pts.push(t);
                inv.push(acc_inv);
                count.push(c + i64::from(d));
            }
            c += i64::from(d);
            last = t;
        }
        let integral = |t: Ticks| -> f64 {
            let k = pts.partition_point(|&p| p <= t);
            if k == 0 {
                return 0.0;
            }
            let c = count[k - 1];
            inv[k - 1] + if c > 0 { (t - pts[k - 1]) as f64 / c as f64 } else { 0.0 }
        };
        let mut weighted: BTreeMap<u32, f64> = BTreeMap::new();
        let mut on_path: BTreeMap<u32, Ticks> = BTreeMap::new();
        for p in self.procs.values() {
            for &(a, b, f) in &p.pieces {
                *weighted.entry(f).or_default() += integral(b) - integral(a);
            }
        }
        for s in critical.segments.iter().filter(|s| s.kind == EdgeKind::Compute) {
            let Some(p) = self.procs.get(&s.pid) else { continue };
            let first = p.pieces.partition_point(|x| x.1 <= s.from);
            for &(a, b, f) in p.pieces[first..].iter().take_while(|x| x.0 < s.to) {
                let overlap = b.min(s.to).saturating_sub(a.max(s.from));
                *on_path.entry(f).or_default() += overlap;
            }
        }
        let mut rows: Vec<FunctionRow> = self
            .acc
            .iter()
            .filter(|(_, a)| a.calls > 0)
            .map(|(&f, a)| {
                let n = a.calls as f64;
                let mean = a.sum / n;
                let var = if a.calls > 1 { ((a.sum_sq - n * mean * mean) / (n - 1.0)).max(0.0) } else { 0.0 };
                FunctionRow {
                    function: header.function_name(f).map_or_else(|| format!("#{f}"), str::to_string),
                    calls: a.calls,
                    inclusive: a.inclusive,
                    exclusive: a.exclusive,
                    mean,
                    sd: var.sqrt(),
                    critical: on_path.get(&f).copied().unwrap_or(0),
                    weighted: weighted.get(&f).copied().unwrap_or(0.0),
                }
            })
            .collect();
        rows.sort_by(|a, b| b.exclusive.cmp(&a.exclusive).then_with(|| a.function.cmp(&b.function)));
        let busy = rows.iter().map(|r| r.exclusive).sum();
        FunctionProfile { rows, critical_length: critical.length, busy }
    }
}

fn pct(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        part * 100.0 / whole
    } else {
        0.0
    }
}

/// The text section.
pub fn text(p: &FunctionProfile) -> String {
    let mut o = String::new();
    if p.rows.is_empty() {
        return o;
    }
    let _ = writeln!(
        o,
        "\nFunctions (busy time; inclusive counts callees, outermost calls only; critical path of {})",
        format_time(p.critical_length)
    );
    let _ = writeln!(
        o,
        "  {:>8}  {:>10}  {:>10}  {:>6}  {:>10}  {:>10}  {:>6}  {:>10}  function",
        "calls", "inclusive", "exclusive", "excl%", "mean/call", "sd/call", "path%", "weighted"
    );
    for r in &p.rows {
        let _ = writeln!(
            o,
            "  {:>8}  {:>10}  {:>10}  {:>6.2}  {:>10}  {:>10}  {:>6.2}  {:>10}  {}",
            r.calls,
            format_time(r.inclusive),
            format_time(r.exclusive),
            pct(r.exclusive as f64, p.busy as f64),
            crate::time::format_mean(r.mean),
            crate::time::format_mean(r.sd),
            pct(r.critical as f64, p.critical_length as f64),
            crate::time::format_mean(r.weighted),
            r.function
        );
    }
    o
}

/// The columns, in CSV and JSON alike.
const COLUMNS: [&str; 9] = [
    "function",
    "calls",
    "inclusive",
    "exclusive",
    "mean_per_call",
    "sd_per_call",
    "critical_path",
    "critical_path_share",
    "concurrency_weighted",
];

fn cells(r: &FunctionRow, length: Ticks) -> [Cell; 9] {
    [
        Cell::Text(r.function.clone()),
        Cell::Num(r.calls.to_string()),
        Cell::Num(format_time(r.inclusive)),
        Cell::Num(format_time(r.exclusive)),
        Cell::Num(crate::time::format_mean(r.mean)),
        Cell::Num(crate::time::format_mean(r.sd)),
        Cell::Num(format_time(r.critical)),
        Cell::Num(format!("{:.4}", pct(r.critical as f64, length as f64) / 100.0)),
        Cell::Num(crate::time::format_mean(r.weighted)),
    ]
}

/// The JSON array of every function.
pub fn json(p: &FunctionProfile) -> serde_json::Value {
    table_json(&COLUMNS, p.rows.iter().map(|r| cells(r, p.critical_length)))
}

/// The CSV table.
pub fn csv(p: &FunctionProfile) -> String {
    table_csv(&COLUMNS, p.rows.iter().map(|r| cells(r, p.critical_length)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> RunHeader {
        RunHeader { functions: vec!["main".into(), "f".into(), "g".into()], ..RunHeader::default() }
    }

    fn busy(pid: u32, start: Ticks, end: Ticks) -> Event {
        Event::Busy { pproc: 0, pid, start, end, line: 0, class: crate::trace::BusyClass::Work }
    }

    /// main runs 0..100 busy; it calls f at 10, f calls f (recursion) at 20, the inner f
    /// returns at 30, f calls g at 40, g returns at 60, f returns at 70. Exclusive: main
    /// 0..10 and 70..100 = 40; f 10..20, 20..30 (the inner call), 30..40 and 60..70 = 40;
    /// g 40..60 = 20.
    #[test]
    fn split_at_calls_by_hand() {
        let ev = |t, f, enter| {
            if enter {
                Event::Enter { time: t, pid: 0, function: f }
            } else {
                Event::Leave { time: t, pid: 0, function: f }
            }
        };
        let events = vec![
            Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 },
            ev(10, 1, true),
            ev(20, 1, true),
            ev(30, 1, false),
            ev(40, 2, true),
            ev(60, 2, false),
            ev(70, 1, false),
            busy(0, 0, 100),
            Event::ProcEnd { time: 100, pid: 0 },
        ];
        let mut b = FunctionBuilder::default();
        for e in &events {
            b.event(e);
        }
        let p = b.finish(&header(), &CriticalPath::default());
        let row = |name: &str| p.rows.iter().find(|r| r.function == name).cloned().unwrap_or_default();
        // main: 0..10 and 70..100 = 40 exclusive; inclusive = its busy time, 100.
        assert_eq!((row("main").calls, row("main").exclusive, row("main").inclusive), (1, 40, 100));
        // f: 10..20, 20..30 (inner), 30..40, 60..70 = 40 exclusive; two calls; inclusive
        // of the outermost 10..70 = 60 (the inner call's 10 not counted again); per call
        // 60 and 10: mean 35, sd sqrt(((60-35)^2 + (10-35)^2)/1) = 35.36.
        let f = row("f");
        assert_eq!((f.calls, f.exclusive, f.inclusive), (2, 40, 60));
        assert!((f.mean - 35.0).abs() < 1e-9 && (f.sd - 1250f64.sqrt()).abs() < 1e-9, "{f:?}");
        assert_eq!((row("g").calls, row("g").exclusive, row("g").inclusive), (1, 20, 20));
        // One processor busy throughout: the weighted time equals the exclusive time.
        assert!((f.weighted - 40.0).abs() < 1e-9);
        assert_eq!(p.busy, 100);
    }

    /// Two processes call f at overlapping times: process 0 from 10 to 50, process 1
    /// from 20 to 40, each busy throughout. Exclusive f = 40 + 20 = 60; inclusive sums
    /// the same two activations, 40 + 20 = 60 (one process's open call must not hide
    /// the other's: inclusive is never less than exclusive).
    #[test]
    fn inclusive_sums_every_process_like_exclusive() {
        let mut events = Vec::new();
        for pid in [0, 1] {
            events.push(Event::ProcCreate {
                time: 0,
                parent: None,
                pid,
                vproc: None,
                pproc: pid,
                function: 0,
                line: 0,
            });
        }
        events.push(Event::Enter { time: 10, pid: 0, function: 1 });
        events.push(Event::Enter { time: 20, pid: 1, function: 1 });
        events.push(Event::Leave { time: 40, pid: 1, function: 1 });
        events.push(busy(1, 20, 40));
        events.push(Event::Leave { time: 50, pid: 0, function: 1 });
        events.push(busy(0, 10, 50));
        let mut b = FunctionBuilder::default();
        for e in &events {
            b.event(e);
        }
        let p = b.finish(&header(), &CriticalPath::default());
        let f = p.rows.iter().find(|r| r.function == "f").cloned().unwrap_or_default();
        assert_eq!((f.calls, f.exclusive, f.inclusive), (2, 60, 60));
    }

    /// Quartz weighting by hand: process 0 (main) busy 0..100 on processor 0, process 1
    /// (its own function f) busy 50..100 on processor 1. From 0 to 50 one processor is
    /// busy, from 50 to 100 two: main weighs 50/1 + 50/2 = 75, f 50/2 = 25; together the
    /// 100 units during which at least one processor was busy. A critical path that is
    /// process 0's compute from 0 to 100 is main's alone.
    #[test]
    fn concurrency_weights_and_critical_share_by_hand() {
        let create = crate::perf::tests::created_at_0;
        let mut b = FunctionBuilder::default();
        for e in [create(0, 0), create(1, 1), busy(1, 50, 100), busy(0, 0, 100)] {
            b.event(&e);
        }
        let seg = crate::perf::graph::Segment {
            kind: EdgeKind::Compute,
            pid: 0,
            to_pid: None,
            from: 0,
            to: 100,
            parallelism: 0.75,
            weight: 100.0,
            busy: 100,
        };
        let path = CriticalPath { length: 100, edges: 1, segments: vec![seg], total_weight: 100.0, processors: 2 };
        let p = b.finish(&header(), &path);
        let row = |name: &str| p.rows.iter().find(|r| r.function == name).cloned().unwrap_or_default();
        assert!((row("main").weighted - 75.0).abs() < 1e-9 && (row("f").weighted - 25.0).abs() < 1e-9, "{p:?}");
        assert_eq!((row("main").critical, row("f").critical), (100, 0));
    }
}
