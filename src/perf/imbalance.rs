//! Critical-path imbalance per process function (Scalasca's critical-path imbalance
//! indicator, FORMATS.md "What the best analysers report", with the process function as
//! the activity).
//!
//! For each function f that processes ran (`main` for process 0, the function of each
//! `fork`/`forall` child):
//!
//! * **path time** — the critical path's compute time in processes running f, and
//!   **path busy**, the part of it their processors were busy running them (the rest is
//!   time they waited for their processor, remote memory, a lock or `delay()`: wait
//!   time, which Scalasca subtracts);
//! * **mean busy** and **max busy** — the busy time (processor time, from the `Busy`
//!   intervals) of the processes running f: their mean and maximum;
//! * **imbalance** = max(0, path busy − mean busy): how much more of f's computation the
//!   critical path holds than an average process of f computes — the part of the path
//!   that balancing f's work evenly over its processes could remove;
//! * **max/mean** — max busy / mean busy, the classic load-imbalance ratio (1 = balanced).
//!
//! The total imbalance is the sum over functions, also given as a share of the path's
//! length. Computed from the per-process summary ([`super::processes`], which follows
//! each process's function and busy time while the events are read) and the path's
//! segments. Depends on [`super::graph`], [`super::processes`] and [`crate::trace`].
use super::graph::{CriticalPath, EdgeKind};
use super::processes::ProcessRow;
use super::table::{number, rounded, table_csv, table_json, Cell};
use crate::time::format_time;
use crate::time::Ticks;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The imbalance of one function.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionImbalance {
    /// The function's name.
    pub function: String,
    /// Processes that ran it.
    pub processes: u64,
    /// Critical-path compute ticks in those processes.
    pub path_time: Ticks,
    /// The part of `path_time` during which they were busy.
    pub path_busy: Ticks,
    /// Mean busy ticks of those processes.
    pub mean_busy: f64,
    /// Largest busy ticks of one of them.
    pub max_busy: Ticks,
    /// max(0, path busy − mean busy).
    pub imbalance: f64,
}

impl FunctionImbalance {
    /// max busy / mean busy (1 when nothing was busy).
    pub fn max_over_mean(&self) -> f64 {
        if self.mean_busy > 0.0 {
            self.max_busy as f64 / self.mean_busy
        } else {
            1.0
        }
    }
}

/// The imbalance of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Imbalance {
    /// Per function, largest imbalance first (ties by name).
    pub functions: Vec<FunctionImbalance>,
    /// Sum of the functions' imbalance, ticks.
    pub total: f64,
    /// Total / critical-path length, in percent.
    pub share: f64,
}

/// The imbalance along `path` (whose compute segments carry their busy times, see
/// [`super::graph::PathEdges::weigh`]) of the processes of the per-process summary
/// ([`super::processes`]), which holds each one's function and busy time: those whose
/// creation the trace shows (a process seen busy but never created, in a trace cut
/// short, has no function).
pub fn of(processes: &[ProcessRow], path: &CriticalPath) -> Imbalance {
    // Each process's time and busy time in its compute segments on the path.
    let mut on_path: BTreeMap<u32, (Ticks, Ticks)> = BTreeMap::new();
    for s in path.segments.iter().filter(|s| s.kind == EdgeKind::Compute) {
        let r = on_path.entry(s.pid).or_insert((0, 0));
        r.0 += s.to - s.from;
        r.1 += s.busy;
    }
    // function name → (processes, path time, path busy, busy sum, max busy)
    let mut by: BTreeMap<&str, (u64, Ticks, Ticks, Ticks, Ticks)> = BTreeMap::new();
    for p in processes.iter().filter(|p| p.created()) {
        let r = by.entry(&p.function).or_insert((0, 0, 0, 0, 0));
        let (t, b) = on_path.get(&p.pid).copied().unwrap_or((0, 0));
        r.0 += 1;
        r.1 += t;
        r.2 += b;
        r.3 = r.3.saturating_add(p.busy);
        r.4 = r.4.max(p.busy);
    }
    let mut functions: Vec<FunctionImbalance> = by
        .into_iter()
        .map(|(function, (n, path_time, path_busy, sum, max_busy))| {
            let mean_busy = sum as f64 / n as f64;
            let imbalance = (path_busy as f64 - mean_busy).max(0.0);
            FunctionImbalance {
                function: function.to_string(),
                processes: n,
                path_time,
                path_busy,
                mean_busy,
                max_busy,
                imbalance,
            }
        })
        .collect();
    functions.sort_by(|a, b| b.imbalance.total_cmp(&a.imbalance).then(a.function.cmp(&b.function)));
    let total: f64 = functions.iter().map(|f| f.imbalance).sum();
    let share = if path.length > 0 { 100.0 * total / path.length as f64 } else { 0.0 };
    Imbalance { functions, total, share }
}

fn ticks(x: f64) -> String {
    format_time(x.round().max(0.0) as Ticks)
}

/// The text section (nothing when no process was created).
pub fn text(m: &Imbalance) -> String {
    let mut o = String::new();
    if m.functions.is_empty() {
        return o;
    }
    let _ = writeln!(
        o,
        "\nCritical-path imbalance (busy time on the path - mean busy time, per function) = {} ({:.2} % of the path)",
        ticks(m.total),
        m.share
    );
    let _ = writeln!(
        o,
        "  {:>10}  {:>10}  {:>10}  {:>10}  {:>10}  {:>8}  {:>9}  function",
        "imbalance", "path time", "path busy", "mean busy", "max busy", "max/mean", "processes"
    );
    for f in &m.functions {
        let _ = writeln!(
            o,
            "  {:>10}  {:>10}  {:>10}  {:>10}  {:>10}  {:>8.3}  {:>9}  {}",
            ticks(f.imbalance),
            format_time(f.path_time),
            format_time(f.path_busy),
            ticks(f.mean_busy),
            format_time(f.max_busy),
            f.max_over_mean(),
            f.processes,
            f.function
        );
    }
    o
}

/// The columns of the per-function table, in CSV and JSON alike.
const COLUMNS: [&str; 8] =
    ["function", "processes", "path_time", "path_busy", "mean_busy", "max_busy", "max_over_mean", "imbalance"];

fn cells(f: &FunctionImbalance) -> [Cell; 8] {
    [
        Cell::Text(f.function.clone()),
        Cell::Num(f.processes.to_string()),
        Cell::Num(format_time(f.path_time)),
        Cell::Num(format_time(f.path_busy)),
        Cell::Num(ticks(f.mean_busy)),
        Cell::Num(format_time(f.max_busy)),
        Cell::Num(format!("{:.4}", f.max_over_mean())),
        Cell::Num(ticks(f.imbalance)),
    ]
}

/// The JSON object `{total, share, functions: [...]}`.
pub fn json(m: &Imbalance) -> serde_json::Value {
    serde_json::json!({
        "total": number(&ticks(m.total)),
        "share": rounded(m.share, 4),
        "functions": table_json(&COLUMNS, m.functions.iter().map(cells)),
    })
}

/// The CSV table `function,processes,path_time,path_busy,mean_busy,max_busy,max_over_mean,imbalance`.
pub fn csv(m: &Imbalance) -> String {
    table_csv(&COLUMNS, m.functions.iter().map(cells))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    use crate::perf::graph::Segment;
    use crate::perf::processes::ProcessBuilder;
    use crate::trace::{BusyClass, Event, RunHeader};

    /// Each function's row: name, processes, path time, path busy, mean and max busy,
    /// imbalance (the imbalance tests here and in the analysis's own).
    pub(in crate::perf) fn function_rows(m: &Imbalance) -> Vec<(&str, u64, Ticks, Ticks, f64, Ticks, f64)> {
        m.functions
            .iter()
            .map(|f| (f.function.as_str(), f.processes, f.path_time, f.path_busy, f.mean_busy, f.max_busy, f.imbalance))
            .collect()
    }

    #[test]
    fn imbalance_weighs_the_path_against_the_processes_of_each_function() {
        let header = RunHeader { functions: vec!["main".into(), "worker".into()], ..RunHeader::default() };
        let create = crate::perf::tests::created_at_0;
        let busy = |pid, end| Event::Busy { pproc: pid, pid, start: 0, end, line: 0, class: BusyClass::Work };
        let mut b = ProcessBuilder::default();
        // main busy 200, workers 1 and 2 busy 300 and 100; process 3 was seen busy but
        // never created (a trace cut short): no function, left out.
        for e in [create(0, 0), create(1, 1), create(2, 1), busy(0, 200), busy(1, 300), busy(2, 100), busy(3, 999)] {
            b.event(&e);
        }
        let rows = b.finish(&header);
        // The path: worker 1 computes 0..300, busy throughout, of a 400-tick path.
        let segment = Segment {
            kind: EdgeKind::Compute,
            pid: 1,
            to_pid: None,
            from: 0,
            to: 300,
            parallelism: 1.0,
            weight: 300.0,
            busy: 300,
        };
        let path = CriticalPath { length: 400, edges: 1, segments: vec![segment], total_weight: 300.0, processors: 4 };
        let m = of(&rows, &path);
        // worker: 2 processes, mean busy (300 + 100)/2 = 200, path busy 300: imbalance
        // 100, max/mean 1.5. main: path busy 0 < 200: imbalance 0. Total 100 = 25 % of
        // the path.
        let got = function_rows(&m);
        assert_eq!(got, vec![("worker", 2, 300, 300, 200.0, 300, 100.0), ("main", 1, 0, 0, 200.0, 200, 0.0)]);
        assert_eq!(m.functions[0].max_over_mean(), 1.5);
        assert_eq!((m.total, m.share), (100.0, 25.0));
    }
}
