//! Fitting run parameters to observed values (`cpperf calibrate`): which parameters may
//! vary ([`Knob`]), the runs that predict each observation ([`Row`]), and the search
//! ([`fit`]): Nelder–Mead on the logarithms of the parameters, restarted from its best
//! point until a restart no longer improves it.
//!
//! The search minimises the mean of the squared relative errors
//! `((predicted - observed) / observed)^2` over the rows. It works on `ln(value)`, so
//! every parameter stays positive and steps are relative (a time of 0.1 and one of 1000
//! move alike); a value is rounded to what its row can hold (ticks, whole numbers)
//! before a run. There is no randomness: the same rows and start give the same fit.
use super::run::{run_config_to, values};
use super::setup::RunOptions;
use crate::params::{Kind, Value};
use crate::time::{Ticks, MAX_QUANTITY, TICKS_PER_UNIT};
use crate::vcode::Module;
use rayon::prelude::*;

/// A parameter the search may change.
#[derive(Clone, Debug, PartialEq)]
pub enum Knob {
    /// A numeric row of the parameter tables (a time, whole number or factor).
    Param { name: &'static str, kind: Kind },
    /// The factor of an instruction group, as `--scale-group GROUP=F` gives it.
    Group(String),
}

/// What cannot be fitted.
#[derive(Debug, thiserror::Error)]
pub enum CalibrateError {
    #[error("--vary {0}: not a parameter (see cpss --list-params) nor group:GROUP")]
    UnknownKnob(String),
    #[error("--vary {0}: not a number parameter (a choice or a limit cannot be fitted)")]
    NotNumeric(String),
    #[error("--vary: name at least one parameter")]
    NoKnob,
    #[error("no observations to fit")]
    NoRows,
    #[error("{0}")]
    Setup(String),
}

impl Knob {
    /// `NAME` (a row of the parameter tables) or `group:GROUP` (an instruction group of
    /// `--scale-group`, e.g. `group:op:ADDI` or `group:function:main`).
    pub fn parse(text: &str) -> Result<Knob, CalibrateError> {
        let text = text.trim();
        if let Some(g) = text.strip_prefix("group:") {
            super::groups::parse(&format!("{g}=1")).map_err(|_| CalibrateError::UnknownKnob(text.to_string()))?;
            return Ok(Knob::Group(g.to_string()));
        }
        let info = super::params::info(text).ok_or_else(|| CalibrateError::UnknownKnob(text.to_string()))?;
        match info.kind {
            Kind::Time { .. } | Kind::Whole { .. } | Kind::Real { .. } => {
                Ok(Knob::Param { name: info.name, kind: info.kind })
            }
            _ => Err(CalibrateError::NotNumeric(text.to_string())),
        }
    }

    /// The key a configuration file gives it under.
    pub fn name(&self) -> String {
        match self {
            Knob::Param { name, .. } => name.to_string(),
            Knob::Group(g) => format!("group:{g}"),
        }
    }

    /// Its value in `opts`, as a number (times in units; a group's factor 1 unless the
    /// options scale it).
    pub fn value(&self, opts: &RunOptions) -> f64 {
        match self {
            Knob::Param { name, .. } => match read(opts, name) {
                Some(Value::Time(t)) => t as f64 / TICKS_PER_UNIT as f64,
                Some(Value::Whole(n)) => n as f64,
                Some(Value::Real(x)) => x,
                _ => 0.0,
            },
            Knob::Group(g) => opts
                .scale_groups
                .iter()
                .rev()
                .find(|s| s.text.rsplit_once('=').is_some_and(|(n, _)| n.trim() == g))
                .map_or(1.0, |s| s.factor),
        }
    }

    /// `v` rounded to what the parameter holds and clamped to its range, as text.
    pub fn text(&self, v: f64) -> String {
        match self {
            Knob::Param { kind: Kind::Time { positive }, .. } => {
                let least = if *positive { 1 } else { 0 };
                let t = ((v * TICKS_PER_UNIT as f64).round().max(0.0) as Ticks).clamp(least, MAX_QUANTITY);
                crate::time::format_time(t)
            }
            Knob::Param { kind: Kind::Whole { min, max, .. }, .. } => {
                (v.round().max(0.0) as u64).clamp(*min, *max).to_string()
            }
            Knob::Param { kind: Kind::Real { min, max }, .. } => format!("{}", round_sig(v.clamp(*min, *max))),
            Knob::Param { .. } => String::new(),
            Knob::Group(_) => format!("{}", round_sig(v.clamp(1e-6, 1e6))),
        }
    }

    /// Sets it to `text` in `opts`.
    pub fn apply(&self, opts: &mut RunOptions, text: &str) -> Result<(), String> {
        match self {
            Knob::Param { name, .. } => opts.set(name, text).map_err(|e| e.to_string()),
            Knob::Group(g) => opts.set("scale-group", &format!("{g}={text}")).map_err(|e| e.to_string()),
        }
    }
}

/// Nine significant digits: what a fitted factor means, without binary noise.
fn round_sig(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let digits = 9 - 1 - x.abs().log10().floor() as i32;
    let scale = 10f64.powi(digits);
    (x * scale).round() / scale
}

fn read(opts: &RunOptions, name: &str) -> Option<Value> {
    if let Some(p) = crate::params::find(crate::net::params::PARAMS, name) {
        return Some((p.read)(&opts.net));
    }
    crate::params::find(super::params::PARAMS, name).map(|p| (p.read)(opts))
}

/// One observation and the run that predicts it.
pub struct Row {
    /// The program as the observations name it, and its flags as written.
    pub program: String,
    pub flags: String,
    /// The statistic compared (`par_time`, `avg_latency`, … as `cpss --stats csv`
    /// names them).
    pub metric: String,
    pub observed: f64,
    pub module: Module,
    pub opts: RunOptions,
    pub stdin: Vec<u8>,
}

/// The parameters (of the tables, [`super::params::all`]) that every row runs with at
/// one value other than the default and that no knob varies, with that value: what a
/// fitted configuration must hold besides the knobs to stand for the observations.
pub fn shared_params(rows: &[Row], knobs: &[Knob]) -> Vec<(&'static str, String)> {
    let default = RunOptions::default();
    let varied = |name: &str| knobs.iter().any(|k| matches!(k, Knob::Param { name: n, .. } if *n == name));
    super::params::all()
        .filter(|i| !varied(i.name))
        .filter_map(|i| {
            let first = rows.first()?.opts.get(i.name)?;
            let same = rows.iter().all(|r| r.opts.get(i.name).as_ref() == Some(&first));
            (same && default.get(i.name).as_ref() != Some(&first)).then_some((i.name, first))
        })
        .collect()
}

/// The statistic names a row may compare.
pub const METRICS: &[&str] = &[
    "seq_time",
    "par_time",
    "speedup",
    "pprocs_used",
    "processes",
    "instructions",
    "messages",
    "bytes",
    "avg_latency",
    "remote_reads",
    "remote_writes",
    "output",
];

/// The metric that is not a statistic: the last number the program wrote to its
/// standard output (a program that times itself with `simTime()` prints its time).
pub const OUTPUT: &str = "output";

/// A shared buffer that takes a program's standard output.
#[derive(Clone, Default)]
struct Captured(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The last number in `text`: a run of characters that parses as a finite f64 (so
/// `time 12.5 us` gives 12.5).
pub fn last_number(text: &str) -> Option<f64> {
    text.split(|c: char| c.is_whitespace() || c == ',' || c == ';' || c == '=')
        .rev()
        .filter_map(|w| w.parse::<f64>().ok())
        .find(|v| v.is_finite())
}

/// Each row's prediction with the knobs at `texts` (one per knob, as [`Knob::text`]
/// gives them), in parallel; a run that fails gives its message.
pub fn predict(rows: &[Row], knobs: &[Knob], texts: &[String]) -> Vec<Result<f64, String>> {
    rows.par_iter()
        .map(|r| {
            let mut opts = r.opts.clone();
            for (k, t) in knobs.iter().zip(texts) {
                k.apply(&mut opts, t)?;
            }
            let out = Captured::default();
            let sink: Box<dyn std::io::Write> =
                if r.metric == OUTPUT { Box::new(out.clone()) } else { Box::new(std::io::sink()) };
            let outcome = run_config_to(&r.module, &opts, &r.stdin, sink).map_err(|e| e.to_string())?;
            let stats = outcome.as_ref().map_err(|e| e.to_string())?;
            if r.metric == OUTPUT {
                let text = String::from_utf8_lossy(&out.0.borrow()).into_owned();
                return last_number(&text).ok_or_else(|| "the program printed no number".to_string());
            }
            values(stats, &[])
                .into_iter()
                .find(|(n, _)| *n == r.metric)
                .map(|(_, v)| v)
                .ok_or_else(|| format!("no statistic `{}` (known: {})", r.metric, METRICS.join(", ")))
        })
        .collect()
}

/// The result of [`fit`].
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// Each knob's fitted value, as text.
    pub values: Vec<String>,
    /// Each row's prediction with them.
    pub predicted: Vec<f64>,
    /// The objective: the mean squared relative error.
    pub objective: f64,
    /// Simulations of all the rows made by the search.
    pub evaluations: u32,
}

/// The objective of one set of predictions: the mean squared relative error; a failed
/// run counts as an error of 1000 (so the search leaves the region where runs fail).
fn objective(rows: &[Row], predicted: &[Result<f64, String>]) -> f64 {
    let n = rows.len().max(1) as f64;
    rows.iter()
        .zip(predicted)
        .map(|(r, p)| match p {
            Ok(v) if r.observed != 0.0 => ((v - r.observed) / r.observed).powi(2),
            Ok(v) => v * v,
            Err(_) => 1e6,
        })
        .sum::<f64>()
        / n
}

/// Fits `knobs` to `rows`, starting from their values in the first row's options (a
/// value of 0 starts at 1). `progress` is called after each evaluation.
pub fn fit(rows: &[Row], knobs: &[Knob], progress: &(dyn Fn() + Sync)) -> Result<Fit, CalibrateError> {
    let first = rows.first().ok_or(CalibrateError::NoRows)?;
    if knobs.is_empty() {
        return Err(CalibrateError::NoKnob);
    }
    let x0: Vec<f64> = knobs.iter().map(|k| k.value(&first.opts)).map(|v| if v > 0.0 { v.ln() } else { 0.0 }).collect();
    let texts = |y: &[f64]| -> Vec<String> { knobs.iter().zip(y).map(|(k, &y)| k.text(y.exp())).collect() };
    // Every row must run at the start: a bad flag is the user's to fix, not the search's.
    // (The start's evaluation is the search's first.)
    let start = texts(&x0);
    let at_start = predict(rows, knobs, &start);
    for (r, p) in rows.iter().zip(&at_start) {
        if let Err(e) = p {
            return Err(CalibrateError::Setup(format!("{} {}: {e}", r.program, r.flags)));
        }
    }
    let evaluations = std::sync::atomic::AtomicU32::new(1);
    let mut cache: Vec<(Vec<String>, f64)> = vec![(start, objective(rows, &at_start))];
    let mut f = |y: &[f64]| -> f64 {
        let t = texts(y);
        if let Some((_, v)) = cache.iter().find(|(c, _)| *c == t) {
            return *v;
        }
        let v = objective(rows, &predict(rows, knobs, &t));
        evaluations.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        progress();
        cache.push((t, v));
        v
    };
    let (best, _) = nelder_mead(&mut f, &x0, 200 * (knobs.len() as u32 + 1), 4);
    let values = texts(&best);
    let predicted_all = predict(rows, knobs, &values);
    let objective = objective(rows, &predicted_all);
    let predicted = predicted_all.into_iter().map(|p| p.unwrap_or(f64::NAN)).collect();
    Ok(Fit { values, predicted, objective, evaluations: evaluations.into_inner() })
}

/// Minimises `f` from `x0` with the Nelder–Mead simplex (reflection 1, expansion 2,
/// contraction 1/2, shrink 1/2; first simplex: `x0` and `x0` plus ln 2 along each axis),
/// at most `max_evals` evaluations per start, restarted from the best point up to
/// `restarts` times while a restart improves it. Returns the best point and its value.
pub fn nelder_mead(f: &mut dyn FnMut(&[f64]) -> f64, x0: &[f64], max_evals: u32, restarts: u32) -> (Vec<f64>, f64) {
    let n = x0.len();
    let mut best = (x0.to_vec(), f(x0));
    let mut step = std::f64::consts::LN_2;
    for _ in 0..=restarts {
        let mut simplex: Vec<(Vec<f64>, f64)> = vec![best.clone()];
        for i in 0..n {
            let mut x = best.0.clone();
            x[i] += step;
            let v = f(&x);
            simplex.push((x, v));
        }
        let mut evals = n as u32;
        while evals < max_evals {
            simplex.sort_by(|a, b| a.1.total_cmp(&b.1));
            let (lo, hi) = (simplex[0].1, simplex[n].1);
            let size = (1..=n)
                .map(|i| simplex[i].0.iter().zip(&simplex[0].0).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max))
                .fold(0.0, f64::max);
            if (hi - lo).abs() <= 1e-14 * (1.0 + lo.abs()) && size < 1e-7 || size < 1e-9 {
                break;
            }
            let centroid: Vec<f64> =
                (0..n).map(|j| simplex[..n].iter().map(|(x, _)| x[j]).sum::<f64>() / n as f64).collect();
            let along =
                |t: f64| -> Vec<f64> { (0..n).map(|j| centroid[j] + t * (simplex[n].0[j] - centroid[j])).collect() };
            let xr = along(-1.0);
            let fr = f(&xr);
            evals += 1;
            if fr < simplex[0].1 {
                let xe = along(-2.0);
                let fe = f(&xe);
                evals += 1;
                simplex[n] = if fe < fr { (xe, fe) } else { (xr, fr) };
            } else if fr < simplex[n - 1].1 {
                simplex[n] = (xr, fr);
            } else {
                let (xc, fc) = if fr < simplex[n].1 {
                    let x = along(-0.5);
                    let v = f(&x);
                    (x, v)
                } else {
                    let x = along(0.5);
                    let v = f(&x);
                    (x, v)
                };
                evals += 1;
                if fc < simplex[n].1.min(fr) {
                    simplex[n] = (xc, fc);
                } else {
                    let x0 = simplex[0].0.clone();
                    for s in simplex.iter_mut().skip(1) {
                        for (v, &lo) in s.0.iter_mut().zip(&x0) {
                            *v = lo + 0.5 * (*v - lo);
                        }
                        s.1 = f(&s.0);
                    }
                    evals += n as u32;
                }
            }
        }
        simplex.sort_by(|a, b| a.1.total_cmp(&b.1));
        let improved = simplex[0].1 < best.1;
        if improved {
            best = simplex[0].clone();
        }
        if !improved && step < std::f64::consts::LN_2 {
            break;
        }
        step /= 2.0;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nelder_mead_finds_a_quadratic_minimum() {
        // f = (x - 1)^2 + 10 (y + 2)^2: the minimum is at (1, -2), value 0.
        let mut f = |x: &[f64]| (x[0] - 1.0).powi(2) + 10.0 * (x[1] + 2.0).powi(2);
        let (x, v) = nelder_mead(&mut f, &[5.0, 5.0], 2000, 3);
        assert!((x[0] - 1.0).abs() < 1e-4 && (x[1] + 2.0).abs() < 1e-4 && v < 1e-8, "{x:?} {v}");
    }

    #[test]
    fn knobs_parse_and_round_to_their_rows() {
        assert!(matches!(Knob::parse("link-delay"), Ok(Knob::Param { name: "link-delay", .. })));
        assert_eq!(Knob::parse("group:op:ADDI").ok(), Some(Knob::Group("op:ADDI".into())));
        assert!(matches!(Knob::parse("network"), Err(CalibrateError::NotNumeric(_))));
        assert!(matches!(Knob::parse("eager-limit"), Err(CalibrateError::NotNumeric(_))));
        assert!(matches!(Knob::parse("speed-of-light"), Err(CalibrateError::UnknownKnob(_))));
        // A time keeps the tick (0.001 unit); a byte count is whole; a factor keeps 9
        // digits.
        let k = Knob::parse("hop-latency").unwrap();
        assert_eq!(k.text(2.99999), "3");
        assert_eq!(k.text(0.0004), "0");
        assert_eq!(Knob::parse("envelope").unwrap().text(27.6), "28");
        assert_eq!(Knob::parse("scale-costs").unwrap().text(1.0000000001), "1");
        let opts = RunOptions::default();
        assert_eq!(Knob::parse("msg-init").unwrap().value(&opts), 5.0);
        assert_eq!(Knob::parse("group:op:ADDI").unwrap().value(&opts), 1.0);
    }

    #[test]
    fn the_output_metric_is_the_last_number_printed() {
        assert_eq!(last_number("ring 1024 36.65\n"), Some(36.65));
        assert_eq!(last_number("t=12.5; done\n"), Some(12.5));
        assert_eq!(last_number("1e3,2e3\n"), Some(2000.0));
        // Not a number, nor one that is not finite.
        assert_eq!(last_number("7 us, inf\n"), Some(7.0));
        assert_eq!(last_number("nothing here\n"), None);
    }

    #[test]
    fn shared_params_are_those_every_row_sets_alike_and_no_knob_varies() {
        let opts = crate::lang::FrontOptions::default();
        let module = crate::lang::compile("t.c", "void main() { }", &opts).unwrap().module;
        let row = |sets: &[(&str, &str)]| {
            let mut opts = RunOptions::default();
            for (k, v) in sets {
                opts.set(k, v).unwrap();
            }
            Row {
                program: "t.c".into(),
                flags: String::new(),
                metric: "par_time".into(),
                observed: 1.0,
                module: module.clone(),
                opts,
                stdin: Vec::new(),
            }
        };
        let rows = [
            row(&[("network", "flow"), ("quantum", "0.5"), ("msg-init", "2"), ("envelope", "8")]),
            row(&[("network", "flow"), ("quantum", "0.5"), ("msg-init", "2"), ("envelope", "16")]),
            // The default written out is the default: not shared.
            row(&[("network", "flow"), ("quantum", "0.5"), ("msg-init", "2"), ("hop-latency", "0")]),
        ];
        let knobs = [Knob::parse("msg-init").unwrap()];
        // network and quantum: every row alike; msg-init is varied; envelope differs;
        // hop-latency is at its default everywhere.
        assert_eq!(shared_params(&rows, &knobs), vec![("network", "flow".to_string()), ("quantum", "0.5".to_string())]);
    }
}
