//! `cpperf compare`: two runs' statistics metric by metric, for regression checks in CI
//! (SPEC §6, seed 002 §5 "version compare").
//!
//! A run's metrics come from CSV written by `cpperf --format csv` or `cpss --stats csv`
//! (the last line starting with `seq_time,` is the header, the next line the values: cpss
//! prints the program's output first), or from an [`Analysis`] of a run record or trace.
//! Each metric has a direction: time-like metrics (times, latency, critical path, WCPA
//! weight, critical-path imbalance, counts of messages and bytes) regress when they grow; speedup, efficiency,
//! utilization and granularity regress when they shrink; the rest (processors, processes)
//! are shown but never regress. A metric is worse when it moves the wrong way by more
//! than its tolerance, in percent of the base value. Only the gating metrics fail a
//! comparison: parallel time, speedup and efficiency by default ([`GATING`]), every
//! metric named with `--metrics` when it is given; a diagnostic metric that got worse is
//! marked but does not fail (its noise, such as a latency that moves with the order of
//! messages, says nothing about the result a CI job guards).
//!
//! JSON statistics and summaries of repeated runs (`cpss --runs`) are read too
//! ([`Metrics::from_text`]); with repeated runs on both sides a change counts only when
//! Welch's t-test finds it significant at 95 % ([`crate::stat::welch`]).
//!
//! Depends on [`super::Analysis`], [`super::table`] and [`crate::stat`].
use super::table::{number, rounded};
use super::Analysis;
use crate::time::format_time;
use std::fmt::Write;

/// Why two runs could not be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// The text has no CSV header line starting with `seq_time,`.
    #[error("no statistics CSV (no header line starting with `seq_time,`; write it with cpperf --format csv or cpss --stats csv)")]
    NoHeader,
    /// The header is not followed by exactly one row.
    #[error("the statistics CSV has {rows} data rows after its header at line {line}; compare takes one run per file")]
    Rows {
        /// Line of the header (1-based).
        line: usize,
        /// Rows found.
        rows: usize,
    },
    /// A row with another number of fields than its header.
    #[error("line {line}: {found} fields, the header has {expected}")]
    Width {
        /// Line of the row (1-based).
        line: usize,
        /// Fields in the row.
        found: usize,
        /// Fields in the header.
        expected: usize,
    },
    /// A gating metric one run has and the other lacks.
    #[error("{name} gates the comparison but the {which} run does not have it")]
    Missing {
        /// The metric.
        name: String,
        /// `base` or `new`.
        which: &'static str,
    },
    /// A value that is not a finite number at or above 0 (no statistic is negative).
    #[error("line {line}: the value {value:?} of {metric} is not a finite number at or above 0")]
    Value {
        /// Line of the row (1-based).
        line: usize,
        /// The column.
        metric: String,
        /// The text found.
        value: String,
    },
    /// `--metrics` names a metric neither run has.
    #[error("metric {name:?} is not in both runs (they share: {shared})")]
    UnknownMetric {
        /// The name asked for.
        name: String,
        /// The metrics both runs have.
        shared: String,
    },
    /// A tolerance that is not a non-negative percentage.
    #[error("bad tolerance {0:?}: expected a percentage such as 2% or 0.5")]
    Tolerance(String),
    /// A statistics JSON document that does not parse or is not one run's.
    #[error("line {line}: {message}")]
    Json {
        /// Line of the error (1-based).
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// Which way a metric is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    /// Time-like: growing is a regression.
    Lower,
    /// Speedup-like: shrinking is a regression.
    Higher,
    /// Informational: never a regression.
    Neither,
}

/// The direction of metric `name` (see the module documentation).
pub fn better(name: &str) -> Better {
    match name {
        "seq_time" | "par_time" | "avg_latency" | "avg_remote_latency" | "critical_path" | "wcpa_weight"
        | "messages" | "bytes" | "instructions" | "remote_reads" | "remote_writes" | "host_seconds"
        | "unmatched_sends" | "cp_imbalance" => Better::Lower,
        "speedup" | "efficiency" | "utilization" | "granularity" | "parallelism" => Better::Higher,
        _ => Better::Neither,
    }
}

/// The metrics that fail a comparison by default.
pub const GATING: &[&str] = &["par_time", "speedup", "efficiency"];

/// Metrics compared unless `--metrics` asks for them: host time differs from run to run.
const NOT_BY_DEFAULT: &[&str] = &["host_seconds"];

/// The text columns of `cpss --stats csv` that state the configuration, not a metric.
const CONFIGURATION_COLUMNS: &[&str] = &["program", "topology", "virtual", "mapping", "network", "links"];

/// One run's metrics, in the order of their source.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metrics {
    /// `(name, value)`; times in time units. For repeated runs, the mean.
    pub values: Vec<(String, f64)>,
    /// For repeated runs (`cpss --runs`): `(name, sample sd, runs)` of each value.
    pub spread: Vec<(String, f64, u32)>,
    /// The program the statistics are of, when they say (`cpss --stats csv`'s
    /// `program`).
    pub program: Option<String>,
}

impl Metrics {
    /// The value of `name`, if present.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.values.iter().find(|(k, _)| k == name).map(|&(_, v)| v)
    }

    /// The spread `(sd, runs)` of `name` over repeated runs, if known.
    pub fn spread_of(&self, name: &str) -> Option<(f64, u32)> {
        self.spread.iter().find(|(k, _, _)| k == name).map(|&(_, s, n)| (s, n))
    }

    /// Reads any statistics text `cpperf compare` takes: the JSON document of `cpss
    /// --stats json` or `cpperf --format json`, the summary of repeated runs (`cpss --runs
    /// N --stats csv`: `statistic,mean,sd,…,n`), or a statistics CSV ([`Self::from_csv`]).
    /// `None`: the text is none of these (a run record or trace, to analyse).
    pub fn from_text(text: &str) -> Option<Result<Metrics, CompareError>> {
        let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
        if first.starts_with('{') && text.contains("\"seq_time\"") && !text.contains("\"traceEvents\"") {
            return Some(Metrics::from_json(text));
        }
        if text.lines().any(|l| l.starts_with("statistic,mean,sd,")) {
            return Some(Metrics::from_runs_csv(text));
        }
        if text.contains("seq_time,") {
            return Some(Metrics::from_csv(text));
        }
        None
    }

    /// The statistics JSON of `cpss --stats json` or `cpperf --format json`: every number
    /// at the top level is a metric, `utilization` (a list of `{pproc, percent}`) its
    /// mean, `program` the program; other fields are left out. A `cpss --runs` JSON
    /// document is refused with the advice to use its CSV.
    pub fn from_json(text: &str) -> Result<Metrics, CompareError> {
        let v: serde_json::Value = serde_json::from_str(text.trim())
            .map_err(|e| CompareError::Json { line: e.line(), message: e.to_string() })?;
        let Some(obj) = v.as_object() else {
            return Err(CompareError::Json { line: 1, message: "not a JSON object".into() });
        };
        if obj.contains_key("runs") && !obj.contains_key("seq_time") {
            return Err(CompareError::Json {
                line: 1,
                message: "a summary of repeated runs: compare their CSV (cpss --runs N --stats csv)".into(),
            });
        }
        let mut m = Metrics::default();
        for (k, x) in obj {
            match x {
                serde_json::Value::Number(n) if k != "schema_version" => match n.as_f64().filter(|f| f.is_finite()) {
                    Some(f) if f >= 0.0 => m.values.push((k.clone(), f)),
                    Some(_) => return Err(CompareError::Value { line: 1, metric: k.clone(), value: n.to_string() }),
                    None => {}
                },
                serde_json::Value::Array(a) if k == "utilization" => {
                    let pct: Vec<f64> = a.iter().filter_map(|u| u["percent"].as_f64()).collect();
                    if !pct.is_empty() {
                        m.values.push((k.clone(), pct.iter().sum::<f64>() / pct.len() as f64));
                    }
                }
                serde_json::Value::String(s) if k == "program" => m.program = Some(s.clone()),
                _ => {}
            }
        }
        Ok(m)
    }

    /// The summary CSV of repeated runs (`cpss --runs N --stats csv`): each statistic's
    /// mean is its value, with its sd and the number of runs (`n`) for the test of the
    /// difference; `util_P` rows become `utilization`, their mean (its spread unknown).
    pub fn from_runs_csv(text: &str) -> Result<Metrics, CompareError> {
        let lines: Vec<&str> = text.lines().collect();
        let h = lines.iter().rposition(|l| l.starts_with("statistic,mean,sd,")).ok_or(CompareError::NoHeader)?;
        let body: String = lines[h..].iter().take_while(|l| !l.trim().is_empty()).map(|l| format!("{l}\n")).collect();
        let mut reader = csv::ReaderBuilder::new().from_reader(body.as_bytes());
        let keys: Vec<String> =
            reader.headers().map_err(|_| CompareError::NoHeader)?.iter().map(str::to_string).collect();
        let col = |name: &str| keys.iter().position(|k| k == name);
        let (Some(mean), Some(sd)) = (col("mean"), col("sd")) else { return Err(CompareError::NoHeader) };
        let runs = col("n");
        let mut m = Metrics::default();
        let mut util = Vec::new();
        for (i, row) in reader.records().enumerate() {
            let line = h + 2 + i;
            let row = row.map_err(|_| CompareError::Width { line, found: 0, expected: keys.len() })?;
            let name = row.get(0).unwrap_or("").to_string();
            let num = |k: usize| -> Result<f64, CompareError> {
                let v = row.get(k).unwrap_or("").trim();
                v.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0).ok_or_else(|| CompareError::Value {
                    line,
                    metric: name.clone(),
                    value: v.into(),
                })
            };
            let (x, s) = (num(mean)?, num(sd)?);
            if name.starts_with("util_") {
                util.push(x);
                continue;
            }
            if let Some(k) = runs {
                let n = num(k)?;
                m.spread.push((name.clone(), s, n as u32));
            }
            m.values.push((name, x));
        }
        if !util.is_empty() {
            m.values.push(("utilization".into(), util.iter().sum::<f64>() / util.len() as f64));
        }
        Ok(m)
    }

    /// Parses the statistics CSV of `cpperf --format csv` or `cpss --stats csv` (any text
    /// before the header, such as the program's output, is skipped; the `csv` crate reads
    /// the rest). Empty cells, `true`/`false` (`alarm`) and the configuration's text
    /// columns are left out (granularity without messages);
    /// `utilization` in cpss's `p:percent;…` form becomes its mean.
    pub fn from_csv(text: &str) -> Result<Metrics, CompareError> {
        let lines: Vec<&str> = text.lines().collect();
        let h = lines.iter().rposition(|l| l.starts_with("seq_time,")).ok_or(CompareError::NoHeader)?;
        // The statistics end at a blank line (a profile table may follow).
        let body: String = lines[h..].iter().take_while(|l| !l.trim().is_empty()).map(|l| format!("{l}\n")).collect();
        let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(body.as_bytes());
        let keys: Vec<String> =
            reader.headers().map_err(|_| CompareError::NoHeader)?.iter().map(str::to_string).collect();
        let rows: Vec<csv::StringRecord> =
            reader.records().collect::<Result<_, _>>().map_err(|e| CompareError::Width {
                line: h + 2 + e.position().map_or(0, |p| p.line() as usize - 1),
                found: 0,
                expected: keys.len(),
            })?;
        let [row] = &rows[..] else {
            return Err(CompareError::Rows { line: h + 1, rows: rows.len() });
        };
        let line = h + 2;
        if keys.len() != row.len() {
            return Err(CompareError::Width { line, found: row.len(), expected: keys.len() });
        }
        let mut m = Metrics::default();
        for (k, v) in keys.iter().map(String::as_str).zip(row.iter()) {
            let v = v.trim();
            if k == "utilization" {
                let mut sum = 0.0;
                let mut n = 0;
                for pair in v.split(';').filter(|p| !p.is_empty()) {
                    let pct = pair.split_once(':').map_or(pair, |(_, u)| u);
                    sum += pct.parse::<f64>().map_err(|_| CompareError::Value {
                        line,
                        metric: k.into(),
                        value: pair.into(),
                    })?;
                    n += 1;
                }
                if n > 0 {
                    m.values.push((k.into(), sum / f64::from(n)));
                }
                continue;
            }
            if k == "program" && !v.is_empty() {
                m.program = Some(v.to_string());
            }
            if v.is_empty() || v == "true" || v == "false" || CONFIGURATION_COLUMNS.contains(&k) {
                continue;
            }
            match v.parse::<f64>() {
                Ok(x) if x.is_finite() && x >= 0.0 => m.values.push((k.into(), x)),
                _ => return Err(CompareError::Value { line, metric: k.into(), value: v.into() }),
            }
        }
        Ok(m)
    }

    /// The metrics of an analysis: the columns of `cpperf --format csv`, plus the mean
    /// utilization, at full precision.
    pub fn of(a: &Analysis) -> Metrics {
        let s = &a.summary;
        let t = |x: crate::time::Ticks| format_time(x).parse::<f64>().unwrap_or(0.0);
        let mut v: Vec<(String, f64)> = vec![
            ("seq_time".into(), t(s.seq_ticks)),
            ("par_time".into(), t(s.par_ticks)),
            ("speedup".into(), s.speedup()),
            ("efficiency".into(), s.efficiency()),
            ("pprocs_used".into(), f64::from(s.pprocs_used)),
            ("messages".into(), s.messages as f64),
            ("bytes".into(), s.bytes as f64),
            ("avg_latency".into(), t(s.avg_latency_ticks())),
            ("avg_remote_latency".into(), t(s.avg_remote_latency_ticks())),
        ];
        if let Some(g) = s.granularity() {
            v.push(("granularity".into(), g));
        }
        v.push(("critical_path".into(), t(a.critical.length)));
        v.push(("critical_segments".into(), a.critical.segments.len() as f64));
        v.push(("wcpa_weight".into(), a.weighted.total_weight / crate::time::TICKS_PER_UNIT as f64));
        v.push(("unmatched_sends".into(), a.unmatched.sends.len() as f64));
        v.push(("cp_imbalance".into(), a.imbalance.total / crate::time::TICKS_PER_UNIT as f64));
        v.push(("parallelism".into(), s.parallelism(a.critical.processors)));
        if let Some(l) = a.links.network_load() {
            v.push(("network_load".into(), l));
        }
        let util = s.utilization();
        if !util.is_empty() {
            v.push(("utilization".into(), util.iter().map(|u| u.1).sum::<f64>() / util.len() as f64));
        }
        let program = (!a.program.is_empty()).then(|| a.program.clone());
        Metrics { values: v, spread: Vec::new(), program }
    }
}

/// Tolerances in percent: one for every metric, and others for named metrics.
#[derive(Debug, Clone, PartialEq)]
pub struct Tolerances {
    pub default: f64,
    pub per_metric: Vec<(String, f64)>,
}

impl Tolerances {
    /// The same tolerance for every metric.
    pub fn all(p: f64) -> Tolerances {
        Tolerances { default: p, per_metric: Vec::new() }
    }

    /// The tolerance of metric `name`.
    pub fn of(&self, name: &str) -> f64 {
        self.per_metric.iter().rev().find(|(n, _)| n == name).map_or(self.default, |&(_, p)| p)
    }
}

/// Parses `--tolerance`: a comma list of `P%` (every metric) and `METRIC=P%` items, e.g.
/// `1%,avg_latency=10%`; a list without a bare item keeps the default of 2 %.
pub fn parse_tolerances(s: &str) -> Result<Tolerances, CompareError> {
    let mut t = Tolerances::all(2.0);
    for item in s.split(',') {
        match item.split_once('=') {
            Some((name, p)) => t.per_metric.push((name.trim().to_string(), parse_tolerance(p)?)),
            None => t.default = parse_tolerance(item)?,
        }
    }
    Ok(t)
}

/// Parses a tolerance: `2%`, `2` or `0.5%` (percent of the base value).
pub fn parse_tolerance(s: &str) -> Result<f64, CompareError> {
    let t = s.trim();
    let t = t.strip_suffix('%').unwrap_or(t).trim();
    match t.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(CompareError::Tolerance(s.into())),
    }
}

/// One metric of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The metric.
    pub name: String,
    /// Its value in the base run.
    pub base: f64,
    /// Its value in the new run.
    pub new: f64,
    /// (new − base) / base in percent; `None` when the base is 0 and the new value not.
    pub change: Option<f64>,
    /// Its direction.
    pub better: Better,
    /// Its tolerance in percent.
    pub tolerance: f64,
    /// Whether it fails the comparison when worse ([`GATING`], or named by `--metrics`).
    pub gates: bool,
    /// Whether it moved the wrong way by more than its tolerance.
    pub worse: bool,
    /// Worse and gating: the comparison fails.
    pub regressed: bool,
    /// With repeated runs on both sides: Welch's `(t, df)` of the difference of the
    /// means; the change counts as worse only when it is also significant at 95 %.
    pub welch: Option<(f64, f64)>,
}

/// A comparison of two runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// One row per metric compared.
    pub rows: Vec<Row>,
    /// The tolerances.
    pub tolerance: Tolerances,
    /// The programs of the two runs when they differ (`base`, `new`): the comparison is
    /// likely meaningless, and `cpperf compare` says so.
    pub programs_differ: Option<(String, String)>,
}

/// Compares `new` against `base`: the metrics listed (all that both have when `None`,
/// host time left out), each regressing when it moves the wrong way by more than
/// `tolerance` percent of its base value (any amount when the base is 0).
pub fn compare(
    base: &Metrics,
    new: &Metrics,
    tolerance: &Tolerances,
    metrics: Option<&[String]>,
) -> Result<Comparison, CompareError> {
    let shared: Vec<&str> = base.values.iter().map(|(k, _)| k.as_str()).filter(|k| new.get(k).is_some()).collect();
    // A gating metric in one run only would be left out in silence: an error instead.
    if metrics.is_none() {
        for &g in GATING {
            match (base.get(g).is_some(), new.get(g).is_some()) {
                (true, false) => return Err(CompareError::Missing { name: g.to_string(), which: "new" }),
                (false, true) => return Err(CompareError::Missing { name: g.to_string(), which: "base" }),
                _ => {}
            }
        }
    }
    for (n, _) in &tolerance.per_metric {
        if !shared.contains(&n.as_str()) {
            return Err(CompareError::UnknownMetric { name: n.clone(), shared: shared.join(",") });
        }
    }
    let names: Vec<String> = match metrics {
        Some(list) => {
            for n in list {
                if !shared.contains(&n.as_str()) {
                    return Err(CompareError::UnknownMetric { name: n.clone(), shared: shared.join(",") });
                }
            }
            list.to_vec()
        }
        None => shared.iter().filter(|k| !NOT_BY_DEFAULT.contains(k)).map(|k| k.to_string()).collect(),
    };
    let mut rows = Vec::new();
    for name in names {
        let (Some(b), Some(n)) = (base.get(&name), new.get(&name)) else { continue };
        let change = if b != 0.0 {
            Some(100.0 * (n - b) / b.abs())
        } else if n == 0.0 {
            Some(0.0)
        } else {
            None
        };
        let better = better(&name);
        // A change beyond the tolerance in the bad direction; a new value where the base
        // had none (base 0) is beyond any tolerance.
        let worse = match better {
            Better::Lower => n > b,
            Better::Higher => n < b,
            Better::Neither => false,
        };
        let tol = tolerance.of(&name);
        // Repeated runs on both sides: a change within their noise is not a regression.
        let welch = match (base.spread_of(&name), new.spread_of(&name)) {
            (Some((s1, n1)), Some((s2, n2))) => crate::stat::welch(b, s1, n1, n, s2, n2),
            _ => None,
        };
        let noise = welch.is_some_and(|(t, df)| !crate::stat::significant(t, df));
        let worse = worse && change.is_none_or(|c| c.abs() > tol) && !noise;
        let gates = metrics.is_some() || GATING.contains(&name.as_str());
        let regressed = worse && gates;
        rows.push(Row { name, base: b, new: n, change, better, tolerance: tol, gates, worse, regressed, welch });
    }
    // Different programs: compared by file name, as the same program is often compared
    // from two checkouts.
    let stem = |p: &str| std::path::Path::new(p).file_stem().map(|s| s.to_string_lossy().into_owned());
    let programs_differ = match (&base.program, &new.program) {
        (Some(a), Some(b)) if stem(a) != stem(b) => Some((a.clone(), b.clone())),
        _ => None,
    };
    Ok(Comparison { rows, tolerance: tolerance.clone(), programs_differ })
}

fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        let s = format!("{x:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn change_text(c: Option<f64>) -> String {
    match c {
        Some(c) => format!("{c:+.2}%"),
        None => "new".into(),
    }
}

impl Comparison {
    /// Whether any metric regressed (the exit status 1 of `cpperf compare`).
    pub fn regressed(&self) -> bool {
        self.rows.iter().any(|r| r.regressed)
    }

    /// A table: metric, base, new, change, and `REGRESSION` where one is (with repeated
    /// runs, Welch's t and whether the difference is significant).
    pub fn text(&self) -> String {
        let mut o = String::new();
        if let Some((a, b)) = &self.programs_differ {
            let _ = writeln!(o, "WARNING: the runs are of different programs: {a} and {b}");
        }
        let _ = writeln!(o, "{:<18} {:>14} {:>14} {:>10}", "metric", "base", "new", "change");
        for r in &self.rows {
            let flag = match (r.regressed, r.worse) {
                (true, _) => "  REGRESSION",
                (false, true) => "  worse (not gating)",
                _ => "",
            };
            let test = r.welch.filter(|_| r.base != r.new).map_or(String::new(), |(t, df)| {
                let verdict = if crate::stat::significant(t, df) { "significant" } else { "within the noise" };
                format!("  (Welch t {} df {:.1}: {verdict})", num(t), df)
            });
            let _ = writeln!(
                o,
                "{:<18} {:>14} {:>14} {:>10}{flag}{test}",
                r.name,
                num(r.base),
                num(r.new),
                change_text(r.change)
            );
        }
        let n = self.rows.iter().filter(|r| r.regressed).count();
        let gating: Vec<&str> = self.rows.iter().filter(|r| r.gates).map(|r| r.name.as_str()).collect();
        let _ = writeln!(
            o,
            "{n} regression(s) beyond {}% in the gating metrics ({})",
            num(self.tolerance.default),
            gating.join(", ")
        );
        o
    }

    /// CSV `metric,base,new,change_percent,tolerance_percent,gates,worse,regressed,
    /// welch_t,welch_df` (the last two empty without repeated runs on both sides).
    pub fn csv(&self) -> String {
        let mut o =
            String::from("metric,base,new,change_percent,tolerance_percent,gates,worse,regressed,welch_t,welch_df\n");
        for r in &self.rows {
            let c = r.change.map(|c| format!("{c:.4}")).unwrap_or_default();
            let (t, df) = r.welch.map_or((String::new(), String::new()), |(t, df)| (num(t), format!("{df:.4}")));
            let _ = writeln!(
                o,
                "{},{},{},{c},{},{},{},{},{t},{df}",
                r.name,
                num(r.base),
                num(r.new),
                num(r.tolerance),
                r.gates,
                r.worse,
                r.regressed
            );
        }
        o
    }

    /// JUnit XML, as CI services read test reports: one test case per gating metric,
    /// failed when it regressed (the message gives the change and the tolerance).
    pub fn junit(&self) -> String {
        let esc = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
        let gating: Vec<&Row> = self.rows.iter().filter(|r| r.gates).collect();
        let failures = gating.iter().filter(|r| r.regressed).count();
        let mut o = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(o, "<testsuites name=\"cpperf compare\" tests=\"{}\" failures=\"{failures}\">", gating.len());
        let _ = writeln!(o, "  <testsuite name=\"cpperf compare\" tests=\"{}\" failures=\"{failures}\">", gating.len());
        for r in gating {
            let _ = write!(o, "    <testcase classname=\"cpperf.compare\" name=\"{}\"", esc(&r.name));
            if r.regressed {
                let msg = format!(
                    "{}: {} -> {} ({}, tolerance {}%)",
                    r.name,
                    num(r.base),
                    num(r.new),
                    change_text(r.change),
                    num(r.tolerance)
                );
                let _ =
                    writeln!(o, ">\n      <failure message=\"{}\" type=\"regression\"/>\n    </testcase>", esc(&msg));
            } else {
                o.push_str("/>\n");
            }
        }
        o.push_str("  </testsuite>\n</testsuites>\n");
        o
    }

    /// A Markdown table for a CI job's summary: metric, base, new, change, verdict.
    pub fn markdown(&self) -> String {
        let mut o = String::new();
        if let Some((a, b)) = &self.programs_differ {
            let _ = writeln!(o, "**Warning: the runs are of different programs: `{a}` and `{b}`.**\n");
        }
        o.push_str("| metric | base | new | change | verdict |\n|---|---:|---:|---:|---|\n");
        for r in &self.rows {
            let verdict = match (r.regressed, r.worse, r.welch) {
                (true, _, _) => "**regression**".to_string(),
                (false, true, _) => "worse (not gating)".to_string(),
                (false, false, Some((t, df))) if !crate::stat::significant(t, df) => "within the noise".to_string(),
                _ if r.gates => "ok".to_string(),
                _ => String::new(),
            };
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {verdict} |",
                r.name,
                num(r.base),
                num(r.new),
                change_text(r.change)
            );
        }
        let n = self.rows.iter().filter(|r| r.regressed).count();
        let _ = writeln!(o, "\n{n} regression(s) beyond {}% in the gating metrics.", num(self.tolerance.default));
        o
    }

    /// One JSON object: `schema_version`, the default tolerance, whether anything
    /// regressed, and one object per metric.
    pub fn json(&self) -> String {
        #[derive(serde::Serialize)]
        struct MetricDoc<'a> {
            metric: &'a str,
            base: serde_json::Value,
            new: serde_json::Value,
            change_percent: Option<f64>,
            tolerance_percent: serde_json::Value,
            gates: bool,
            worse: bool,
            regressed: bool,
            welch_t: Option<f64>,
            welch_df: Option<f64>,
        }
        #[derive(serde::Serialize)]
        struct CompareDoc<'a> {
            schema_version: u32,
            tolerance_percent: serde_json::Value,
            regressed: bool,
            programs_differ: Option<[&'a str; 2]>,
            metrics: Vec<MetricDoc<'a>>,
        }
        let metrics = self
            .rows
            .iter()
            .map(|r| MetricDoc {
                metric: &r.name,
                base: number(&num(r.base)),
                new: number(&num(r.new)),
                change_percent: r.change.map(|c| rounded(c, 4)),
                tolerance_percent: number(&num(r.tolerance)),
                gates: r.gates,
                worse: r.worse,
                regressed: r.regressed,
                // (An infinite t, deterministic runs that differ, is JSON's null.)
                welch_t: r.welch.map(|w| w.0).filter(|t| t.is_finite()).map(|t| rounded(t, 4)),
                welch_df: r.welch.map(|w| rounded(w.1, 4)),
            })
            .collect();
        let doc = CompareDoc {
            schema_version: super::table::JSON_SCHEMA_VERSION,
            tolerance_percent: number(&num(self.tolerance.default)),
            regressed: self.regressed(),
            programs_differ: self.programs_differ.as_ref().map(|(a, b)| [a.as_str(), b.as_str()]),
            metrics,
        };
        let mut out = serde_json::to_string(&doc).unwrap_or_default();
        out.push('\n');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CPSS: &str = "lap 1 token 36\nseq_time,par_time,speedup,pprocs_used,processes,instructions,messages,bytes,avg_latency,remote_reads,remote_writes,utilization,host_seconds,alarm\n1000,500,2.0000,2,3,100,4,16,2.5,0,0,0:50.00;1:70.00,0.001000,false\n";

    #[test]
    fn cpss_csv_after_program_output() {
        let m = Metrics::from_csv(CPSS).unwrap();
        assert_eq!(m.get("par_time"), Some(500.0));
        assert_eq!(m.get("avg_latency"), Some(2.5));
        // Mean of 50 and 70.
        assert_eq!(m.get("utilization"), Some(60.0));
        assert_eq!(m.get("alarm"), None);
    }

    #[test]
    fn direction_decides_what_regresses() {
        let base = Metrics::from_csv(CPSS).unwrap();
        let new = Metrics::from_csv(&CPSS.replace("1000,500,2.0000", "1000,525,1.9048")).unwrap();
        let c = compare(&base, &new, &Tolerances::all(2.0), None).unwrap();
        // par_time +5 % > 2 %: regression; speedup 2 → 1.9048 is −4.76 %: regression;
        // seq_time unchanged.
        let flagged: Vec<&str> = c.rows.iter().filter(|r| r.regressed).map(|r| r.name.as_str()).collect();
        assert_eq!(flagged, ["par_time", "speedup"]);
        assert!(c.regressed());
        // Within 10 % nothing regresses.
        assert!(!compare(&base, &new, &Tolerances::all(10.0), None).unwrap().regressed());
        // Faster is never a regression, however large the change.
        assert!(!compare(&new, &base, &Tolerances::all(0.0), None).unwrap().regressed());
        // Host time is not compared unless asked for.
        assert!(c.rows.iter().all(|r| r.name != "host_seconds"));
    }

    #[test]
    fn chosen_metrics_and_errors() {
        let base = Metrics::from_csv(CPSS).unwrap();
        let c = compare(&base, &base, &Tolerances::all(0.0), Some(&["bytes".to_string()])).unwrap();
        assert_eq!(c.rows.len(), 1);
        assert_eq!(c.rows[0].change, Some(0.0));
        assert!(matches!(
            compare(&base, &base, &Tolerances::all(0.0), Some(&["nope".into()])),
            Err(CompareError::UnknownMetric { .. })
        ));
        assert!(matches!(Metrics::from_csv("a,b\n1,2\n"), Err(CompareError::NoHeader)));
        assert!(matches!(Metrics::from_csv("seq_time,par_time\n1\n"), Err(CompareError::Width { line: 2, .. })));
        // No statistic is negative: a negative time is refused, not compared.
        let e = Metrics::from_csv("seq_time,par_time\n1,-5\n").unwrap_err();
        assert_eq!(e.to_string(), "line 2: the value \"-5\" of par_time is not a finite number at or above 0");
        let e = Metrics::from_text(r#"{"seq_time":1,"par_time":-5}"#).expect("JSON").unwrap_err();
        assert!(e.to_string().contains("of par_time is not a finite number at or above 0"), "{e}");
        assert!(matches!(Metrics::from_csv("seq_time,x\n1,2\n3,4\n"), Err(CompareError::Rows { rows: 2, .. })));
        assert!(matches!(Metrics::from_csv("seq_time,x\ny,1\n"), Err(CompareError::Value { .. })));
    }

    #[test]
    fn tolerance_forms() {
        assert_eq!(parse_tolerance("2%").unwrap(), 2.0);
        assert_eq!(parse_tolerance("0.5").unwrap(), 0.5);
        assert!(parse_tolerance("-1%").is_err());
        assert!(parse_tolerance("two").is_err());
    }

    #[test]
    fn from_zero_any_growth_regresses() {
        // Messages from 0 to 1: worse beyond any tolerance; a regression once named.
        let base = Metrics { values: vec![("messages".into(), 0.0)], ..Metrics::default() };
        let new = Metrics { values: vec![("messages".into(), 1.0)], ..Metrics::default() };
        let c = compare(&base, &new, &Tolerances::all(50.0), Some(&["messages".into()])).unwrap();
        assert_eq!(c.rows[0].change, None);
        assert!(c.rows[0].worse && c.regressed());
    }

    /// A 5 % latency change with the parallel time unchanged: shown as worse, but it
    /// fails only when avg_latency is named with --metrics; a per-metric tolerance of
    /// 10 % lets it pass even then.
    #[test]
    fn diagnostic_metrics_gate_only_when_named() {
        let base = Metrics::from_csv(CPSS).unwrap();
        let new = Metrics::from_csv(&CPSS.replace(",2.5,", ",2.625,")).unwrap();
        let c = compare(&base, &new, &Tolerances::all(2.0), None).unwrap();
        let lat = c.rows.iter().find(|r| r.name == "avg_latency").unwrap();
        assert_eq!(lat.change, Some(5.0));
        assert!(lat.worse && !lat.gates && !lat.regressed);
        assert!(!c.regressed(), "equal parallel time: no regression by default");
        assert!(c.text().contains("worse (not gating)"));
        let named = compare(&base, &new, &Tolerances::all(2.0), Some(&["avg_latency".into()])).unwrap();
        assert!(named.regressed());
        let loose = parse_tolerances("2%,avg_latency=10%").unwrap();
        assert_eq!((loose.default, loose.of("avg_latency"), loose.of("par_time")), (2.0, 10.0, 2.0));
        assert!(!compare(&base, &new, &loose, Some(&["avg_latency".into()])).unwrap().regressed());
        assert!(parse_tolerances("avg_latency=x").is_err());
        assert!(matches!(
            compare(&base, &new, &parse_tolerances("nope=1%").unwrap(), None),
            Err(CompareError::UnknownMetric { .. })
        ));
    }

    /// A summary of repeated runs: `par_time` and `speedup` with their sd over `n` runs.
    fn runs(par: f64, sd: f64, n: u32) -> String {
        format!(
            "statistic,mean,sd,ci95_low,ci95_high,min,max,n\npar_time,{par},{sd},0,0,0,0,{n}\nspeedup,2,0,2,2,2,2,{n}\nutil_0,50,1,0,0,0,0,{n}\n"
        )
    }

    #[test]
    fn repeated_runs_are_judged_against_their_spread() {
        // par_time 100 (sd 10) against 104 (sd 10): +4 % is beyond the 2 % tolerance.
        // Over 5 runs each, Welch's t = 4 / sqrt(100/5 + 100/5) = 0.632 with 8 degrees
        // of freedom, below t_975(8) = 2.306: within the noise, no regression. Over 200
        // runs each, t = 4 / sqrt(0.5 + 0.5) = 4, df = 398: significant, a regression.
        let t = Tolerances::all(2.0);
        let (a, b) = (
            Metrics::from_runs_csv(&runs(100.0, 10.0, 5)).unwrap(),
            Metrics::from_runs_csv(&runs(104.0, 10.0, 5)).unwrap(),
        );
        assert_eq!(a.get("utilization"), Some(50.0));
        let c = compare(&a, &b, &t, None).unwrap();
        let row = c.rows.iter().find(|r| r.name == "par_time").unwrap();
        let (tv, df) = row.welch.unwrap();
        assert!((tv - 4.0 / 40f64.sqrt()).abs() < 1e-9 && (df - 8.0).abs() < 1e-9, "{tv} {df}");
        assert!(!row.worse && !c.regressed());
        assert!(c.text().contains("within the noise"), "{}", c.text());
        let (a, b) = (
            Metrics::from_runs_csv(&runs(100.0, 10.0, 200)).unwrap(),
            Metrics::from_runs_csv(&runs(104.0, 10.0, 200)).unwrap(),
        );
        let c = compare(&a, &b, &t, None).unwrap();
        let row = c.rows.iter().find(|r| r.name == "par_time").unwrap();
        assert!((row.welch.unwrap().0 - 4.0).abs() < 1e-9 && row.regressed, "{row:?}");
        assert!(c.csv().lines().nth(1).unwrap().ends_with(",true,true,true,4,398.0000"), "{}", c.csv());
    }

    #[test]
    fn json_statistics_junit_markdown_and_different_programs() {
        // cpss --stats json (the program named in a CSV of the other side): par_time
        // 100 -> 110 regresses (+10 %), speedup 2 -> 1.8 (-10 %).
        let a = Metrics::from_text(r#"{"schema_version":1,"seq_time":200,"par_time":100,"speedup":2,"utilization":[{"pproc":0,"percent":40},{"pproc":1,"percent":60}],"program":"a/matmul.c"}"#)
            .unwrap()
            .unwrap();
        assert_eq!(
            (a.get("utilization"), a.get("schema_version"), a.program.as_deref()),
            (Some(50.0), None, Some("a/matmul.c"))
        );
        let b = Metrics::from_text("seq_time,par_time,speedup,program\n198,110,1.8,b/ring_token.c\n").unwrap().unwrap();
        let c = compare(&a, &b, &Tolerances::all(2.0), None).unwrap();
        assert_eq!(c.programs_differ, Some(("a/matmul.c".into(), "b/ring_token.c".into())));
        assert!(c.text().starts_with("WARNING: the runs are of different programs"), "{}", c.text());
        let j = c.junit();
        assert!(j.contains(r#"<testsuite name="cpperf compare" tests="2" failures="2">"#), "{j}");
        assert!(
            j.contains(r#"<failure message="par_time: 100 -&gt; 110 (+10.00%, tolerance 2%)" type="regression"/>"#),
            "{j}"
        );
        let m = c.markdown();
        assert!(m.contains("| par_time | 100 | 110 | +10.00% | **regression** |"), "{m}");
        // The same program from two checkouts is the same program.
        let b = Metrics::from_text("seq_time,par_time,speedup,program\n198,100,2,other/matmul.c\n").unwrap().unwrap();
        let c = compare(&a, &b, &Tolerances::all(2.0), None).unwrap();
        assert_eq!(c.programs_differ, None);
        assert!(c.junit().contains(r#"<testcase classname="cpperf.compare" name="par_time"/>"#));
        // A --runs JSON document (its shape as cpss writes it) is refused with the advice.
        let runs = r#"{"schema_version":1,"runs":2,"statistics":[{"name":"seq_time","mean":96930.0,"sd":0.0}]}"#;
        let e = Metrics::from_text(runs).expect("taken for statistics").unwrap_err();
        assert!(e.to_string().contains("compare their CSV (cpss --runs N --stats csv)"), "{e}");
    }
}
