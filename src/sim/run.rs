//! Running configurations: one run to its statistics ([`simulate`], [`run_config`]),
//! repeated runs with derived seeds summarised by mean, standard deviation and a 95 %
//! Student-t confidence interval ([`repeat`], [`summarize`]), and parameter sweeps over
//! the cartesian product of values run in parallel ([`sweep_configs`], [`sweep`],
//! [`sweep_csv`]). SPEC §8–9.
//!
//! Each configuration builds its own [`Simulator`] and network, so runs share nothing
//! but the program and the parsed machine description, and a configuration gives the
//! same statistics in a sweep as alone. Rayon spreads independent runs over the cores;
//! the event loop itself is never parallel. Results come back in configuration order.
//!
//! Run `i` of `--runs N` uses seed `seed + i` (wrapping), so run 0 is the single run
//! with the same seed. The program's output is discarded in repeated runs and sweeps;
//! each run reads the same standard input bytes.
use super::setup::{configuration, setup, RunOptions, Setup, SetupError};
use super::{Io, Observer, RunConfig, SimError, SimEvent, Simulator, Stats};
use crate::net::{self, NetError};
use crate::time::Ticks;
use crate::time::TICKS_PER_UNIT;
use crate::vcode::Module;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// Why a configuration could not start.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error(transparent)]
    Net(#[from] NetError),
    #[error("{0}")]
    Start(SimError),
}

/// How a run ended: its statistics, or the error that ended it (deadlocks and limits
/// carry statistics so far).
pub type Outcome = Result<Stats, SimError>;

/// The statistics a run produced, if any (complete, or up to a deadlock or limit).
pub fn outcome_stats(o: &Outcome) -> Option<&Stats> {
    match o {
        Ok(s) => Some(s),
        Err(SimError::Deadlock { stats, .. })
        | Err(SimError::LimitExceeded { stats, .. })
        | Err(SimError::NetworkDeadlock { stats, .. }) => Some(stats),
        Err(SimError::Runtime { .. }) => None,
    }
}

/// The statistics of a run, if any, to amend (see [`outcome_stats`]).
pub fn outcome_stats_mut(o: &mut Outcome) -> Option<&mut Stats> {
    match o {
        Ok(s) => Some(s),
        Err(SimError::Deadlock { stats, .. })
        | Err(SimError::LimitExceeded { stats, .. })
        | Err(SimError::NetworkDeadlock { stats, .. }) => Some(stats),
        Err(SimError::Runtime { .. }) => None,
    }
}

/// Runs `module` under the ready configuration `s`.
pub fn simulate(module: &Module, s: &Setup, io: Io, observer: Option<Box<dyn Observer>>) -> Result<Outcome, RunError> {
    simulate_then(module, s, io, observer, false)
}

/// [`simulate`] for a caller whose process ends right after the run (the `cpss` tool):
/// the processes' memory (a few small blocks each, millions in a big run) is left to the
/// operating system instead of being handed back block by block, which took 7 % of a
/// run of 262 144 processes. The program's output and the observer are closed as
/// always.
pub fn simulate_to_exit(
    module: &Module,
    s: &Setup,
    io: Io,
    observer: Option<Box<dyn Observer>>,
) -> Result<Outcome, RunError> {
    simulate_then(module, s, io, observer, true)
}

fn simulate_then(
    module: &Module,
    s: &Setup,
    io: Io,
    observer: Option<Box<dyn Observer>>,
    exiting: bool,
) -> Result<Outcome, RunError> {
    let network = net::build(&s.net, &s.physical, &s.links)?;
    let mut sim = Simulator::new(module, s.config.clone(), network, io).map_err(RunError::Start)?;
    if let Some(o) = observer {
        sim.set_observer(o);
    }
    let outcome = sim.run();
    if exiting {
        sim.leave_processes();
    }
    Ok(outcome)
}

/// Sets up and runs one configuration with `stdin` as the program's input and its
/// output discarded.
pub fn run_config(module: &Module, opts: &RunOptions, stdin: &[u8]) -> Result<Outcome, RunError> {
    run_config_to(module, opts, stdin, Box::new(std::io::sink()))
}

/// [`run_config`], the program's standard output going to `stdout`.
pub fn run_config_to(
    module: &Module,
    opts: &RunOptions,
    stdin: &[u8],
    stdout: Box<dyn std::io::Write>,
) -> Result<Outcome, RunError> {
    let s = setup(module, opts)?;
    let io = Io { stdin: Box::new(std::io::Cursor::new(stdin.to_vec())), stdout, stderr: Box::new(std::io::sink()) };
    let totals: std::rc::Rc<std::cell::RefCell<BTreeMap<u32, Ticks>>> = Default::default();
    let observer: Option<Box<dyn Observer>> =
        if opts.lines { Some(Box::new(LineTotals(std::rc::Rc::clone(&totals)))) } else { None };
    let mut o = simulate(module, &s, io, observer)?;
    if let Some(st) = outcome_stats_mut(&mut o) {
        st.config = Some(configuration(module, &s, opts, Vec::new()));
        st.report_host_time = opts.host_time;
        st.lines = totals.borrow().iter().map(|(&l, &t)| (l, t)).collect();
    }
    Ok(o)
}

/// An observer that adds up the busy time of every source line ([`SimEvent::LineCosts`]).
struct LineTotals(std::rc::Rc<std::cell::RefCell<BTreeMap<u32, Ticks>>>);

impl Observer for LineTotals {
    fn event(&mut self, e: &SimEvent<'_>) {
        if let SimEvent::LineCosts { lines } = e {
            let mut t = self.0.borrow_mut();
            for &(line, work, overhead) in lines.iter() {
                *t.entry(line).or_default() += work + overhead;
            }
        }
    }
}

/// The seed of run `i` of a repetition from `seed`.
pub fn run_seed(seed: u64, i: u32) -> u64 {
    seed.wrapping_add(u64::from(i))
}

/// `runs` runs of `opts`, run `i` with seed [`run_seed`]`(opts.seed, i)`, in parallel;
/// results in run order. Once `stop` is set (`^C`) no further run starts: those are
/// `None`.
pub fn repeat(
    module: &Module,
    opts: &RunOptions,
    stdin: &[u8],
    runs: u32,
    stop: &AtomicBool,
) -> Vec<Option<Result<Outcome, RunError>>> {
    (0..runs)
        .into_par_iter()
        .map(|i| {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let mut o = opts.clone();
            o.seed = run_seed(opts.seed, i);
            // Each run draws its own processor speeds too: a repetition study of a
            // heterogeneous machine varies the machine, not only rand().
            o.vary_speed = opts.vary_speed.map(|v| run_seed(v, i));
            Some(run_config(module, &o, stdin))
        })
        .collect()
}

/// One statistic over repeated runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The statistic's CSV name (`par_time`, `util_3`, …).
    pub name: String,
    pub mean: f64,
    /// Sample standard deviation (n − 1 in the denominator; 0 for one run).
    pub sd: f64,
    /// Half-width of the 95 % confidence interval of the mean: `t(0.975, n−1) · sd / √n`
    /// (0 for one run).
    pub half_width: f64,
    /// The smallest and largest value over the runs.
    pub min: f64,
    pub max: f64,
    /// The number of runs.
    pub n: u32,
}

pub use crate::stat::t_975;

/// The numeric statistics of a run, in `--stats csv` order, utilization as `util_P`
/// per processor of `procs`.
pub(crate) fn values(s: &Stats, procs: &[u32]) -> Vec<(String, f64)> {
    let units = |t: u64| t as f64 / TICKS_PER_UNIT as f64;
    let mut v = vec![
        ("seq_time".to_string(), units(s.seq_ticks)),
        ("par_time".into(), units(s.par_ticks)),
        ("speedup".into(), s.speedup()),
        ("pprocs_used".into(), s.pprocs_used() as f64),
        ("processes".into(), s.processes as f64),
        ("instructions".into(), s.instructions as f64),
        ("messages".into(), s.messages as f64),
        ("bytes".into(), s.bytes as f64),
        ("avg_latency".into(), units(s.avg_latency_ticks())),
        ("remote_reads".into(), s.remote_reads as f64),
        ("remote_writes".into(), s.remote_writes as f64),
    ];
    let util = s.utilization();
    for &p in procs {
        let u = util.iter().find(|(q, _)| *q == p).map(|(_, u)| *u).unwrap_or(0.0);
        v.push((format!("util_{p}"), u));
    }
    if s.report_host_time {
        v.push(("host_seconds".into(), s.host_time.as_secs_f64()));
    }
    v
}

/// Mean, sd and 95 % confidence interval of every statistic over `runs` (utilization of
/// each processor used by any run, 0 in runs that did not use it), and with line costs
/// ([`Stats::lines`]) the busy time of each line any run had (`line_N`, in units; 0 in
/// runs that did not run it).
pub fn summarize(runs: &[&Stats]) -> Vec<Summary> {
    let mut procs: Vec<u32> = runs.iter().flat_map(|s| s.busy.iter().map(|&(p, _)| p)).collect();
    procs.sort_unstable();
    procs.dedup();
    let mut lines: Vec<u32> = runs.iter().flat_map(|s| s.lines.iter().map(|&(l, _)| l)).collect();
    lines.sort_unstable();
    lines.dedup();
    let table: Vec<Vec<(String, f64)>> = runs
        .iter()
        .map(|s| {
            let mut v = values(s, &procs);
            for &l in &lines {
                let t = s.lines.iter().find(|x| x.0 == l).map_or(0, |x| x.1);
                v.push((format!("line_{l}"), t as f64 / TICKS_PER_UNIT as f64));
            }
            v
        })
        .collect();
    let Some(first) = table.first() else { return Vec::new() };
    let n = table.len() as f64;
    (0..first.len())
        .map(|k| {
            let xs: Vec<f64> = table.iter().map(|row| row[k].1).collect();
            let mean = xs.iter().sum::<f64>() / n;
            let (sd, half_width) = if table.len() < 2 {
                (0.0, 0.0)
            } else {
                let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
                let sd = var.sqrt();
                (sd, t_975(table.len() as u32 - 1) * sd / n.sqrt())
            };
            let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
            let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            Summary { name: first[k].0.clone(), mean, sd, half_width, min, max, n: table.len() as u32 }
        })
        .collect()
}

/// The summary as a text table (`statistic mean sd [low, high]`).
/// With the configuration, its lines come first and the seeds of the runs, which are
/// `config.seed` and the following ones.
pub fn summary_text(rows: &[Summary], runs: usize, config: Option<&RunConfig>) -> String {
    let mut s = String::new();
    if let Some(c) = config {
        s.push_str(&c.text_lines());
        s.push_str(&format!("Seeds = {} to {}\n", c.seed, run_seed(c.seed, runs.saturating_sub(1) as u32)));
    }
    s.push_str(&format!("Statistics over {runs} runs (mean, sd, 95% confidence interval of the mean, min, max):\n"));
    for r in rows {
        s.push_str(&format!(
            "  {:<14} {:>14.4} {:>12.4}  [{:.4}, {:.4}]  {:.4} {:.4}\n",
            r.name,
            r.mean,
            r.sd,
            r.mean - r.half_width,
            r.mean + r.half_width,
            r.min,
            r.max
        ));
    }
    s
}

/// The summary as CSV: `statistic,mean,sd,ci95_low,ci95_high,min,max,n` (`n`: the
/// runs, which `cpperf compare` needs for its test of two such summaries).
pub fn summary_csv(rows: &[Summary]) -> String {
    let mut s = String::from("statistic,mean,sd,ci95_low,ci95_high,min,max,n\n");
    for r in rows {
        s.push_str(&format!(
            "{},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{}\n",
            r.name,
            r.mean,
            r.sd,
            r.mean - r.half_width,
            r.mean + r.half_width,
            r.min,
            r.max,
            r.n
        ));
    }
    s
}

/// One swept parameter: a [`RunOptions::set`] name and its values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepAxis {
    pub name: String,
    pub values: Vec<String>,
}

impl SweepAxis {
    /// Reads `PARAM=v1,v2,…`.
    pub fn parse(spec: &str) -> Result<SweepAxis, SetupError> {
        let bad = |message: &str| SetupError::BadValue { param: "--sweep".into(), message: message.to_string() };
        let (name, values) = spec.split_once('=').ok_or_else(|| bad(&format!("`{spec}` is not PARAM=v1,v2,…")))?;
        let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
        if values.iter().any(String::is_empty) {
            return Err(bad(&format!("`{spec}` has an empty value")));
        }
        Ok(SweepAxis { name: name.trim().to_string(), values })
    }
}

/// The most configurations a `--sweep` may have (as `--runs` has at most 100 000 runs):
/// each holds its options and, once run, its statistics in memory.
pub const MAX_SWEEP: usize = 1_000_000;

/// Every configuration of the cartesian product of `axes` applied to `base`, the last
/// axis varying fastest, each with its values in axis order. Every value is checked by
/// [`RunOptions::set`] before anything runs; more than [`MAX_SWEEP`] configurations is
/// an error that says how many there would be.
pub fn sweep_configs(base: &RunOptions, axes: &[SweepAxis]) -> Result<Vec<(Vec<String>, RunOptions)>, SetupError> {
    let count = axes.iter().try_fold(1usize, |n, a| n.checked_mul(a.values.len()).filter(|&n| n <= MAX_SWEEP));
    if count.is_none() {
        let total = axes.iter().map(|a| a.values.len() as f64).product::<f64>();
        return Err(SetupError::BadValue {
            param: "--sweep".into(),
            message: format!("{total:.0} configurations, more than the {MAX_SWEEP} a sweep may have"),
        });
    }
    let mut out = vec![(Vec::new(), base.clone())];
    for axis in axes {
        let mut next = Vec::with_capacity(out.len() * axis.values.len());
        for (vals, opts) in &out {
            for v in &axis.values {
                let mut o = opts.clone();
                o.set(&axis.name, v)?;
                let mut vs = vals.clone();
                vs.push(v.clone());
                next.push((vs, o));
            }
        }
        out = next;
    }
    Ok(out)
}

/// Runs every configuration in parallel; `done` is called as each one finishes (for a
/// progress bar). Results in configuration order; once `stop` is set (`^C`) no further
/// configuration starts: those are `None`.
pub fn sweep(
    module: &Module,
    configs: &[(Vec<String>, RunOptions)],
    stdin: &[u8],
    done: &(dyn Fn() + Sync),
    stop: &AtomicBool,
) -> Vec<Option<Result<Outcome, RunError>>> {
    configs
        .par_iter()
        .map(|(_, opts)| {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let r = run_config(module, opts, stdin);
            done();
            Some(r)
        })
        .collect()
}

/// `--sweep` with `--runs N`: every configuration run `runs` times as [`repeat`] runs one
/// (run `i` with seed [`run_seed`]`(seed, i)`, and its own processor speeds under
/// `--vary-speed`), all runs in parallel; `done` is called as each run finishes. The
/// results per configuration, in configuration and run order.
pub fn sweep_repeated(
    module: &Module,
    configs: &[(Vec<String>, RunOptions)],
    stdin: &[u8],
    runs: u32,
    done: &(dyn Fn() + Sync),
    stop: &AtomicBool,
) -> Vec<Vec<Option<Result<Outcome, RunError>>>> {
    let runs = runs.max(1) as usize;
    let flat: Vec<Option<Result<Outcome, RunError>>> = (0..configs.len() * runs)
        .into_par_iter()
        .map(|k| {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let (c, i) = (k / runs, (k % runs) as u32);
            let opts = &configs[c].1;
            let mut o = opts.clone();
            o.seed = run_seed(opts.seed, i);
            o.vary_speed = opts.vary_speed.map(|v| run_seed(v, i));
            let r = run_config(module, &o, stdin);
            done();
            Some(r)
        })
        .collect();
    let mut out: Vec<Vec<Option<Result<Outcome, RunError>>>> = Vec::with_capacity(configs.len());
    let mut it = flat.into_iter();
    for _ in configs {
        out.push(it.by_ref().take(runs).collect());
    }
    out
}

/// The summaries of each configuration's runs ([`summarize`] over the runs that ended
/// with statistics), and how many did.
fn sweep_summaries(results: &[Vec<Result<Outcome, RunError>>]) -> Vec<(Vec<Summary>, usize)> {
    results
        .iter()
        .map(|runs| {
            let stats: Vec<&Stats> = runs.iter().filter_map(|r| r.as_ref().ok().and_then(outcome_stats)).collect();
            (summarize(&stats), stats.len())
        })
        .collect()
}

/// `--sweep … --runs N` as CSV (the `csv` crate): the axes' names, `runs` (how many runs
/// of the configuration ended with statistics), then for every statistic of
/// [`summarize`] its `NAME_mean`, `NAME_sd`, `NAME_ci95_low`, `NAME_ci95_high`; one row
/// per configuration, a statistic a configuration has not empty.
pub fn sweep_repeated_csv(
    axes: &[SweepAxis],
    configs: &[(Vec<String>, RunOptions)],
    results: &[Vec<Result<Outcome, RunError>>],
) -> String {
    let summaries = sweep_summaries(results);
    let names: Vec<String> = summaries
        .iter()
        .find(|(s, _)| !s.is_empty())
        .map(|(s, _)| s.iter().map(|r| r.name.clone()).collect())
        .unwrap_or_default();
    let mut header: Vec<String> = axes.iter().map(|a| a.name.clone()).collect();
    header.push("runs".into());
    for n in &names {
        for part in ["mean", "sd", "ci95_low", "ci95_high"] {
            header.push(format!("{n}_{part}"));
        }
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut rows = vec![header];
    for ((vals, _), (summary, ok)) in configs.iter().zip(&summaries) {
        let mut row: Vec<String> = vals.clone();
        row.push(ok.to_string());
        for n in &names {
            match summary.iter().find(|r| &r.name == n) {
                Some(r) => {
                    row.extend([r.mean, r.sd, r.mean - r.half_width, r.mean + r.half_width].map(|x| format!("{x:.6}")))
                }
                None => row.extend(std::iter::repeat_n(String::new(), 4)),
            }
        }
        rows.push(row);
    }
    for row in rows {
        let written = w.write_record(&row);
        debug_assert!(written.is_ok(), "writing CSV to memory cannot fail");
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// `--sweep … --runs N --stats json`: `{"schema_version", "parameters", "runs",
/// "configurations": [{"values", "runs", "statistics": [{"name", "mean", "sd",
/// "ci95_low", "ci95_high", "min", "max"}…]}…]}`, `runs` of a configuration counting
/// those that ended with statistics.
pub fn sweep_repeated_json(
    axes: &[SweepAxis],
    configs: &[(Vec<String>, RunOptions)],
    results: &[Vec<Result<Outcome, RunError>>],
    runs: u32,
) -> String {
    let summaries = sweep_summaries(results);
    let configurations: Vec<serde_json::Value> = configs
        .iter()
        .zip(&summaries)
        .map(|((vals, _), (summary, ok))| {
            let statistics: Vec<serde_json::Value> = summary
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "name": r.name, "mean": r.mean, "sd": r.sd,
                        "ci95_low": r.mean - r.half_width, "ci95_high": r.mean + r.half_width,
                        "min": r.min, "max": r.max,
                    })
                })
                .collect();
            serde_json::json!({ "values": vals, "runs": ok, "statistics": statistics })
        })
        .collect();
    let doc = serde_json::json!({
        "schema_version": JSON_SCHEMA_VERSION,
        "parameters": axes.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(),
        "runs": runs,
        "configurations": configurations,
    });
    doc.to_string() + "\n"
}

/// One CSV (written by the `csv` crate): the axes' names then the `--stats csv` columns
/// (with the configuration's), and one row per configuration; a run that ended without
/// statistics has its statistics cells empty.
pub fn sweep_csv(
    axes: &[SweepAxis],
    configs: &[(Vec<String>, RunOptions)],
    results: &[Result<Outcome, RunError>],
) -> String {
    let stats = |r: &Result<Outcome, RunError>| r.as_ref().ok().and_then(outcome_stats).map(Stats::csv_fields);
    let columns: Vec<&str> = results
        .iter()
        .find_map(stats)
        .unwrap_or_else(|| Stats { config: Some(Default::default()), ..Stats::default() }.csv_fields())
        .iter()
        .map(|(k, _)| *k)
        .collect();
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut rows = vec![axes.iter().map(|a| a.name.clone()).chain(columns.iter().map(|c| c.to_string())).collect()];
    for ((vals, _), r) in configs.iter().zip(results) {
        let cells: Vec<String> = match stats(r) {
            Some(f) => f.into_iter().map(|(_, v)| v).collect(),
            None => vec![String::new(); columns.len()],
        };
        rows.push(vals.iter().cloned().chain(cells).collect::<Vec<String>>());
    }
    for row in rows {
        let written = w.write_record(&row);
        debug_assert!(written.is_ok(), "writing CSV to memory cannot fail");
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// The version of the JSON documents of `--runs` and `--sweep` (raised when a field
/// changes meaning or goes away; new fields may appear without it).
pub const JSON_SCHEMA_VERSION: u32 = 1;

/// `--runs N --stats json`: one document, every statistic's summary.
#[derive(serde::Serialize)]
struct SummaryDoc<'a> {
    schema_version: u32,
    runs: usize,
    statistics: Vec<SummaryEntry<'a>>,
    /// The configuration, with the first run's seed (run `i` has seed + i).
    #[serde(skip_serializing_if = "Option::is_none")]
    configuration: Option<&'a RunConfig>,
}

#[derive(serde::Serialize)]
struct SummaryEntry<'a> {
    name: &'a str,
    mean: f64,
    sd: f64,
    ci95_low: f64,
    ci95_high: f64,
    min: f64,
    max: f64,
}

/// The summary of [`summarize`] as JSON: `{"schema_version":1,"runs":N,"statistics":[{"name",
/// "mean","sd","ci95_low","ci95_high"}...]}` (a value that is not a number is `null`).
pub fn summary_json(rows: &[Summary], runs: usize, config: Option<&RunConfig>) -> String {
    let statistics = rows
        .iter()
        .map(|r| SummaryEntry {
            name: &r.name,
            mean: r.mean,
            sd: r.sd,
            ci95_low: r.mean - r.half_width,
            ci95_high: r.mean + r.half_width,
            min: r.min,
            max: r.max,
        })
        .collect();
    let doc = SummaryDoc { schema_version: JSON_SCHEMA_VERSION, runs, statistics, configuration: config };
    // cannot fail: the document holds strings and numbers only.
    serde_json::to_string(&doc).unwrap() + "\n"
}

/// `--sweep … --stats json`: one document, a configuration an entry.
#[derive(serde::Serialize)]
struct SweepDoc<'a> {
    schema_version: u32,
    parameters: Vec<&'a str>,
    configurations: Vec<SweepEntry<'a>>,
}

#[derive(serde::Serialize)]
struct SweepEntry<'a> {
    /// The parameters' values, in the order of `parameters`.
    values: Vec<&'a str>,
    /// The run's statistics as `--stats json` gives them (also after a deadlock or a
    /// limit), or `null` when the run could not start.
    stats: Option<serde_json::Value>,
    /// Why the run failed, if it did.
    error: Option<String>,
}

/// The sweep as JSON: `{"schema_version":1,"parameters":[...],"configurations":[{"values":
/// [...],"stats":{...}|null,"error":"..."|null}...]}`.
pub fn sweep_json(
    axes: &[SweepAxis],
    configs: &[(Vec<String>, RunOptions)],
    results: &[Result<Outcome, RunError>],
) -> String {
    let configurations = configs
        .iter()
        .zip(results)
        .map(|((vals, _), r)| SweepEntry {
            values: vals.iter().map(String::as_str).collect(),
            stats: r.as_ref().ok().and_then(outcome_stats).and_then(|s| serde_json::from_str(&s.to_json()).ok()),
            error: match r {
                Err(e) => Some(e.to_string()),
                Ok(Err(e)) => Some(e.to_string()),
                Ok(Ok(_)) => None,
            },
        })
        .collect();
    let doc = SweepDoc {
        schema_version: JSON_SCHEMA_VERSION,
        parameters: axes.iter().map(|a| a.name.as_str()).collect(),
        configurations,
    };
    // cannot fail: the document holds strings, numbers and parsed JSON values only.
    serde_json::to_string(&doc).unwrap() + "\n"
}

#[cfg(test)]
mod tests;
