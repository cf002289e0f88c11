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
//! length. Linear in the events (one counter per process, then one pass over the busy
//! intervals against the path's segments). Depends on [`super::graph`]
//! and [`crate::trace`].
use super::graph::{CriticalPath, EdgeKind};
use super::render::{number, rounded, table_csv, table_json, units, Cell};
use crate::trace::{Event, RunHeader, Ticks};
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

/// Process ids below this are counted in a vector (the simulator numbers processes from
/// 0); larger ones (a damaged trace) in a map.
const DENSE: u32 = 1 << 20;

/// Collects each process's function and busy time.
#[derive(Debug, Default)]
pub struct ImbalanceBuilder {
    /// By pid: (function index, busy ticks).
    dense: Vec<(Option<u32>, Ticks)>,
    sparse: BTreeMap<u32, (Option<u32>, Ticks)>,
}

impl ImbalanceBuilder {
    fn slot(&mut self, pid: u32) -> &mut (Option<u32>, Ticks) {
        if pid < DENSE {
            let i = pid as usize;
            if self.dense.len() <= i {
                self.dense.resize(i + 1, (None, 0));
            }
            &mut self.dense[i]
        } else {
            self.sparse.entry(pid).or_insert((None, 0))
        }
    }

    /// Takes one event into account.
    #[inline]
    pub fn event(&mut self, e: &Event) {
        match *e {
            Event::ProcCreate { pid, function, .. } => self.slot(pid).0 = Some(function),
            Event::Busy { pid, start, end, .. } => self.slot(pid).1 += end.saturating_sub(start),
            _ => {}
        }
    }

    /// The imbalance along `path` (whose compute segments carry their busy times, see
    /// [`super::graph::PathEdges::weigh`]), functions named by `header`.
    pub fn finish(self, header: &RunHeader, path: &CriticalPath) -> Imbalance {
        let procs = (0u32..).zip(self.dense).chain(self.sparse);
        // Each process's time and busy time in its compute segments on the path.
        let mut on_path: BTreeMap<u32, (Ticks, Ticks)> = BTreeMap::new();
        for s in path.segments.iter().filter(|s| s.kind == EdgeKind::Compute) {
            let r = on_path.entry(s.pid).or_insert((0, 0));
            r.0 += s.to - s.from;
            r.1 += s.busy;
        }
        // function name → (processes, path time, path busy, busy sum, max busy)
        let mut by: BTreeMap<String, (u64, Ticks, Ticks, Ticks, Ticks)> = BTreeMap::new();
        for (pid, (f, busy)) in procs {
            // Processes seen busy but never created (a trace cut short) have no function;
            // slots of the vector below the largest pid may hold no process at all.
            let Some(f) = f else { continue };
            let name = header.function_name(f).map_or_else(|| format!("#{f}"), str::to_string);
            let r = by.entry(name).or_insert((0, 0, 0, 0, 0));
            let (t, b) = on_path.get(&pid).copied().unwrap_or((0, 0));
            r.0 += 1;
            r.1 += t;
            r.2 += b;
            r.3 += busy;
            r.4 = r.4.max(busy);
        }
        let mut functions: Vec<FunctionImbalance> = by
            .into_iter()
            .map(|(function, (n, path_time, path_busy, sum, max_busy))| {
                let mean_busy = sum as f64 / n as f64;
                let imbalance = (path_busy as f64 - mean_busy).max(0.0);
                FunctionImbalance { function, processes: n, path_time, path_busy, mean_busy, max_busy, imbalance }
            })
            .collect();
        functions.sort_by(|a, b| b.imbalance.total_cmp(&a.imbalance).then(a.function.cmp(&b.function)));
        let total: f64 = functions.iter().map(|f| f.imbalance).sum();
        let share = if path.length > 0 { 100.0 * total / path.length as f64 } else { 0.0 };
        Imbalance { functions, total, share }
    }
}

fn ticks(x: f64) -> String {
    units(x.round().max(0.0) as Ticks)
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
            units(f.path_time),
            units(f.path_busy),
            ticks(f.mean_busy),
            units(f.max_busy),
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
        Cell::Num(units(f.path_time)),
        Cell::Num(units(f.path_busy)),
        Cell::Num(ticks(f.mean_busy)),
        Cell::Num(units(f.max_busy)),
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
