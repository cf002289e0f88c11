//! Charts of a parameter sweep (`cpss --sweep … --stats csv`, with or without `--runs`):
//! `cpperf SWEEP.csv --svg DIR` or `--html FILE` draws speedup, efficiency and parallel
//! time against the swept parameter — against the number of processors when it varies —
//! with the 95 % confidence interval of the mean as a bar at each point when the sweep
//! repeated its runs (seed 002's scaling study and its repetitions as a picture).
//!
//! The CSV's columns: the parameters (those before `runs` or the first statistic), then
//! per statistic either `NAME` (one run a configuration) or `NAME_mean`, `NAME_sd`,
//! `NAME_ci95_low`, `NAME_ci95_high`. The x of a row is `pprocs_used` when it differs
//! between rows, else its first parameter (numeric when every value is a number, else
//! the rows' order); the other parameters name the series, one line each.
//! Depends on [`super::svg`] only for escaping; colours from
//! [`crate::trace::states::palette`] (Okabe and Ito's).
use super::svg::escape;
use crate::trace::states::palette;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A statistic at one configuration: the mean and its 95 % interval (all three equal
/// without repetitions).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub x: f64,
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

/// A sweep read from its CSV.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    /// The parameters' names.
    pub params: Vec<String>,
    /// What x is: `processors used` or the first parameter's name.
    pub x_name: String,
    /// The x labels when x is the rows' order (a parameter that is not a number).
    pub categories: Option<Vec<String>>,
    /// Whether the runs were repeated (intervals exist).
    pub repeated: bool,
    /// Per statistic (speedup, efficiency, par_time), per series name, its points in
    /// the rows' order.
    pub charts: Vec<(&'static str, BTreeMap<String, Vec<Point>>)>,
}

/// Why a CSV is not a sweep.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    #[error("line {line}: {msg}")]
    Bad { line: u64, msg: String },
    #[error("not the CSV of a sweep: no parameter column before the statistics (cpss --sweep PARAM=... --stats csv)")]
    NoParams,
    #[error("the sweep has no row with statistics")]
    Empty,
}

/// The statistics drawn, with their axis titles.
const DRAWN: [(&str, &str); 3] =
    [("speedup", "speedup"), ("efficiency", "efficiency"), ("par_time", "parallel time (time units)")];

/// Whether `text` looks like a sweep's CSV: a statistic column after a parameter one.
pub fn is_sweep(text: &str) -> bool {
    let head = text.lines().next().unwrap_or("");
    let cols: Vec<&str> = head.split(',').collect();
    cols.first().is_some_and(|c| *c != "seq_time" && *c != "seq_time_mean" && *c != "statistic")
        && cols.iter().any(|c| *c == "seq_time" || *c == "seq_time_mean")
}

/// A configuration's row: its parameters' values, and per statistic drawn its mean and
/// 95 % bounds.
type Row = (Vec<String>, BTreeMap<&'static str, (f64, f64, f64)>);

/// Reads a sweep's CSV.
pub fn read(text: &str) -> Result<Sweep, SweepError> {
    let mut r = csv::ReaderBuilder::new().has_headers(true).from_reader(text.as_bytes());
    let bad = |line: u64, msg: String| SweepError::Bad { line, msg };
    let header: Vec<String> = r.headers().map_err(|e| bad(1, e.to_string()))?.iter().map(str::to_string).collect();
    let first_stat = header
        .iter()
        .position(|c| c == "runs" || c == "seq_time" || c == "seq_time_mean")
        .ok_or(SweepError::NoParams)?;
    if first_stat == 0 {
        return Err(SweepError::NoParams);
    }
    let params: Vec<String> = header[..first_stat].to_vec();
    let repeated = header.iter().any(|c| c == "speedup_mean");
    let col = |name: &str| header.iter().position(|c| c == name);
    // (params, stat → (mean, low, high)), rows with statistics only.
    let mut rows: Vec<Row> = Vec::new();
    for (i, rec) in r.records().enumerate() {
        let line = i as u64 + 2;
        let rec = rec.map_err(|e| bad(line, e.to_string()))?;
        let num = |c: Option<usize>| -> Result<Option<f64>, SweepError> {
            match c.and_then(|c| rec.get(c)).map(str::trim) {
                None | Some("") => Ok(None),
                Some(v) => match v.parse::<f64>() {
                    Ok(x) if x.is_finite() => Ok(Some(x)),
                    _ => Err(bad(line, format!("`{v}` is not a number"))),
                },
            }
        };
        let mut stats = BTreeMap::new();
        for name in ["speedup", "efficiency", "par_time", "pprocs_used"] {
            let v = if repeated {
                let (m, lo, hi) = (
                    num(col(&format!("{name}_mean")))?,
                    num(col(&format!("{name}_ci95_low")))?,
                    num(col(&format!("{name}_ci95_high")))?,
                );
                m.map(|m| (m, lo.unwrap_or(m), hi.unwrap_or(m)))
            } else {
                num(col(name))?.map(|m| (m, m, m))
            };
            if let Some(v) = v {
                stats.insert(name, v);
            }
        }
        // Without an efficiency column: speedup over the processors used (constant
        // within a configuration, so the interval scales with it).
        if !stats.contains_key("efficiency") {
            if let (Some(&(m, lo, hi)), Some(&(n, _, _))) = (stats.get("speedup"), stats.get("pprocs_used")) {
                if n > 0.0 {
                    stats.insert("efficiency", (m / n, lo / n, hi / n));
                }
            }
        }
        if stats.contains_key("par_time") {
            rows.push(((0..first_stat).map(|c| rec.get(c).unwrap_or("").to_string()).collect(), stats));
        }
    }
    if rows.is_empty() {
        return Err(SweepError::Empty);
    }
    let procs: Vec<Option<f64>> = rows.iter().map(|r| r.1.get("pprocs_used").map(|v| v.0)).collect();
    let by_procs = procs.iter().all(Option::is_some) && procs.windows(2).any(|w| w[0] != w[1]);
    let numeric = rows.iter().all(|r| r.0[0].trim().parse::<f64>().is_ok_and(f64::is_finite));
    let (x_name, categories) = if by_procs {
        ("processors used".to_string(), None)
    } else if numeric {
        (params[0].clone(), None)
    } else {
        let mut seen: Vec<String> = Vec::new();
        for r in &rows {
            if !seen.contains(&r.0[0]) {
                seen.push(r.0[0].clone());
            }
        }
        (params[0].clone(), Some(seen))
    };
    let x_of = |r: &Row| -> f64 {
        if by_procs {
            r.1["pprocs_used"].0
        } else if let Some(c) = &categories {
            c.iter().position(|v| *v == r.0[0]).unwrap_or(0) as f64
        } else {
            r.0[0].trim().parse().unwrap_or(0.0)
        }
    };
    // Series: the parameters other than the one that gives x (with x = processors, the
    // first parameter is taken as what sets them).
    let series_of = |r: &Row| -> String {
        params.iter().zip(&r.0).skip(1).map(|(p, v)| format!("{p}={v}")).collect::<Vec<_>>().join(", ")
    };
    let mut charts = Vec::new();
    for (stat, _) in DRAWN {
        let mut series: BTreeMap<String, Vec<Point>> = BTreeMap::new();
        for r in &rows {
            if let Some(&(mean, low, high)) = r.1.get(stat) {
                series.entry(series_of(r)).or_default().push(Point { x: x_of(r), mean, low, high });
            }
        }
        charts.push((stat, series));
    }
    Ok(Sweep { params, x_name, categories, repeated, charts })
}

/// The series' colours, in order (Okabe and Ito's palette).
const SERIES: [&str; 7] = [
    palette::BLUE,
    palette::CRITICAL_PATH,
    palette::BLUISH_GREEN,
    palette::ORANGE,
    palette::WEIGHTED_PATH,
    palette::SKY_BLUE,
    palette::MESSAGE,
];

/// The chart of statistic `stat` (one of speedup, efficiency, par_time) as SVG: a line
/// and a dot per point per series, the 95 % interval as a vertical bar with caps (each
/// bar a `<line class="ci">` with its values as data attributes), the ideal speedup
/// (y = x) or efficiency (1) dashed when x is the processors, axes and a legend.
pub fn chart(s: &Sweep, stat: &str, title: &str) -> String {
    const W: f64 = 640.0;
    const H: f64 = 400.0;
    const L: f64 = 70.0;
    const R: f64 = 20.0;
    const T: f64 = 40.0;
    const B: f64 = 60.0;
    let axis = DRAWN.iter().find(|d| d.0 == stat).map_or(stat, |d| d.1);
    let empty = BTreeMap::new();
    let series = s.charts.iter().find(|c| c.0 == stat).map_or(&empty, |c| &c.1);
    let points = series.values().flatten();
    let (mut x0, mut x1, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
    for p in points {
        x0 = x0.min(p.x);
        x1 = x1.max(p.x);
        y1 = y1.max(p.high).max(p.mean);
    }
    let by_procs = s.x_name == "processors used";
    if by_procs && stat == "speedup" {
        // Room for some of the ideal line above the points.
        y1 = y1.max(x1.min(y1 * 1.5));
    }
    if by_procs && stat == "efficiency" {
        y1 = y1.max(1.0);
    }
    if !x0.is_finite() {
        (x0, x1) = (0.0, 1.0);
    }
    // The y axis: round ticks (1, 2 or 5 times a power of ten) up past the highest
    // value.
    let step = nice_step(if y1 > 0.0 { y1 } else { 1.0 } / 4.0);
    let ticks = (y1 / step).ceil().max(1.0) as u32;
    let top = step * f64::from(ticks);
    let y1 = top * 1.04;
    // Processors spanning 8× or more: a base-2 logarithmic x axis.
    let log = by_procs && x0 > 0.0 && x1 / x0 >= 8.0;
    let f = |x: f64| if log { x.log2() } else { x };
    let (a, b) = if f(x1) > f(x0) { (f(x0), f(x1)) } else { (f(x0) - 0.5, f(x0) + 0.5) };
    let pad = (b - a) * 0.05;
    let (a, b) = (a - pad, b + pad);
    let px = |x: f64| L + (W - L - R) * (f(x) - a) / (b - a);
    let py = |y: f64| T + (H - T - B) * (1.0 - y / y1);
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" font-family=\"sans-serif\" font-size=\"11\" id=\"chart-{stat}\">"
    );
    let _ = writeln!(o, "<title>{}</title>", escape(&format!("{title}: {axis}")));
    let _ = writeln!(o, "<rect x=\"0\" y=\"0\" width=\"{W}\" height=\"{H}\" fill=\"white\"/>");
    let _ = writeln!(o, "<text x=\"{L}\" y=\"20\" font-size=\"13\">{}</text>", escape(&format!("{title}: {axis}")));
    // Axes, ticks and grid.
    let _ = writeln!(o, "<path d=\"M{L},{T} V{} H{}\" stroke=\"black\" fill=\"none\"/>", H - B, W - R);
    for k in 0..=ticks {
        let y = step * f64::from(k);
        let _ = writeln!(
            o,
            "<line x1=\"{L}\" y1=\"{0:.2}\" x2=\"{1}\" y2=\"{0:.2}\" stroke=\"#e4e4e4\"/><text x=\"{2}\" y=\"{3:.2}\" text-anchor=\"end\">{4}</text>",
            py(y),
            W - R,
            L - 6.0,
            py(y) + 4.0,
            round(y)
        );
    }
    let xs: Vec<f64> = {
        let mut v: Vec<f64> = series.values().flatten().map(|p| p.x).collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        v
    };
    for &x in &xs {
        let label = match &s.categories {
            Some(c) => c.get(x as usize).cloned().unwrap_or_default(),
            None => round(x),
        };
        let _ = writeln!(
            o,
            "<line x1=\"{0:.2}\" y1=\"{1}\" x2=\"{0:.2}\" y2=\"{2}\" stroke=\"black\"/><text x=\"{0:.2}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>",
            px(x),
            H - B,
            H - B + 4.0,
            H - B + 16.0,
            escape(&label)
        );
    }
    let _ = writeln!(
        o,
        "<text x=\"{:.2}\" y=\"{}\" text-anchor=\"middle\">{}{}</text>",
        (L + W - R) / 2.0,
        H - B + 34.0,
        escape(&s.x_name),
        if log { " (log scale)" } else { "" }
    );
    let mid = (T + H - B) / 2.0;
    let _ = writeln!(
        o,
        "<text x=\"16\" y=\"{mid:.2}\" transform=\"rotate(-90 16 {mid:.2})\" text-anchor=\"middle\">{}</text>",
        escape(axis)
    );
    // The ideal.
    if by_procs && stat == "speedup" {
        // y = x up to the top of the chart: a curve on a logarithmic axis, so drawn
        // through 32 points.
        let (lo, hi) = (x0, x1.min(top));
        let pts: Vec<String> = (0..=32)
            .map(|k| {
                let x =
                    if log { lo * (hi / lo).powf(f64::from(k) / 32.0) } else { lo + (hi - lo) * f64::from(k) / 32.0 };
                format!("{:.2},{:.2}", px(x), py(x))
            })
            .collect();
        let _ = writeln!(
            o,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"#999\" stroke-dasharray=\"5,4\"><title>ideal: speedup = processors</title></polyline>",
            pts.join(" ")
        );
    }
    if by_procs && stat == "efficiency" {
        let _ = writeln!(
            o,
            "<line x1=\"{L}\" y1=\"{0:.2}\" x2=\"{1}\" y2=\"{0:.2}\" stroke=\"#999\" stroke-dasharray=\"5,4\"><title>ideal: efficiency 1</title></line>",
            py(1.0),
            W - R
        );
    }
    for (i, (name, pts)) in series.iter().enumerate() {
        let colour = SERIES[i % SERIES.len()];
        let mut sorted = pts.clone();
        sorted.sort_by(|p, q| p.x.total_cmp(&q.x));
        let path: Vec<String> = sorted.iter().map(|p| format!("{:.2},{:.2}", px(p.x), py(p.mean))).collect();
        let _ = writeln!(
            o,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"/>",
            path.join(" ")
        );
        for p in &sorted {
            let (x, y) = (px(p.x), py(p.mean));
            if s.repeated {
                let _ = writeln!(
                    o,
                    "<line class=\"ci\" data-x=\"{}\" data-mean=\"{}\" data-low=\"{}\" data-high=\"{}\" x1=\"{x:.2}\" y1=\"{:.2}\" x2=\"{x:.2}\" y2=\"{:.2}\" stroke=\"{colour}\"/><path d=\"M{:.2},{:.2} h8 M{:.2},{:.2} h8\" stroke=\"{colour}\"/>",
                    p.x,
                    p.mean,
                    p.low,
                    p.high,
                    py(p.low.max(0.0)),
                    py(p.high),
                    x - 4.0,
                    py(p.low.max(0.0)),
                    x - 4.0,
                    py(p.high)
                );
            }
            let ci = if s.repeated {
                format!(", 95 % interval {} .. {}", round(p.low), round(p.high))
            } else {
                String::new()
            };
            let _ = writeln!(
                o,
                "<circle class=\"point\" cx=\"{x:.2}\" cy=\"{y:.2}\" r=\"3.5\" fill=\"{colour}\"><title>{}</title></circle>",
                escape(&format!(
                    "{}{}: {} = {}{ci}",
                    if name.is_empty() { String::new() } else { format!("{name}, ") },
                    match &s.categories {
                        Some(c) => c.get(p.x as usize).cloned().unwrap_or_default(),
                        None => format!("{} {}", s.x_name, round(p.x)),
                    },
                    stat,
                    round(p.mean)
                ))
            );
        }
        if !name.is_empty() {
            let ly = T + 14.0 * i as f64;
            let _ = writeln!(
                o,
                "<rect x=\"{:.2}\" y=\"{:.2}\" width=\"12\" height=\"3\" fill=\"{colour}\"/><text x=\"{:.2}\" y=\"{:.2}\">{}</text>",
                W - R - 200.0,
                ly - 4.0,
                W - R - 184.0,
                ly,
                escape(name)
            );
        }
    }
    if s.repeated {
        let _ = writeln!(
            o,
            "<text x=\"{L}\" y=\"{}\" fill=\"#555\">bars: 95 % confidence interval of the mean (Student's t)</text>",
            H - 8.0
        );
    }
    o.push_str("</svg>\n");
    o
}

/// The round step (1, 2 or 5 times a power of ten) at least `raw`.
fn nice_step(raw: f64) -> f64 {
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|&s| s >= raw * (1.0 - 1e-12)).unwrap_or(10.0 * mag)
}

/// A number as a chart shows it: up to three decimals, no trailing zeros.
fn round(x: f64) -> String {
    let s = format!("{:.3}", (x * 1000.0).round() / 1000.0);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// The charts of `--svg`: `(file name, SVG)`.
pub fn charts(s: &Sweep, title: &str) -> Vec<(String, String)> {
    DRAWN.iter().map(|(stat, _)| (format!("{stat}.svg"), chart(s, stat, title))).collect()
}

/// The `--html` page: the three charts inline and a table of the points; no script, and
/// a Content-Security-Policy that allows none and no network.
pub fn page(s: &Sweep, title: &str) -> String {
    let mut o = String::new();
    let t = escape(title);
    let _ = writeln!(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">");
    let _ = writeln!(
        o,
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\">"
    );
    let _ = writeln!(
        o,
        "<title>{t}: sweep</title>\n<style>body{{font-family:sans-serif;font-size:13px;margin:16px;color:#222}} section{{display:inline-block;vertical-align:top;margin:0 12px 12px 0}} table{{border-collapse:collapse;font-size:12px}} td,th{{padding:2px 6px;border-bottom:1px solid #eee;text-align:right}} th{{background:#f0f0f0}}</style>\n</head>\n<body>"
    );
    let _ = writeln!(
        o,
        "<h1 style=\"font-size:16px\">{t}: sweep of {}</h1>\n<p>{}</p>",
        escape(&s.params.join(", ")),
        if s.repeated {
            "Each point the mean of the configuration's runs; bars: the 95 % confidence interval of the mean."
        } else {
            "One run a configuration (cpss --sweep ... --runs N gives intervals)."
        }
    );
    for (stat, _) in DRAWN {
        let _ = writeln!(o, "<section>{}</section>", chart(s, stat, title));
    }
    let _ = writeln!(o, "<table id=\"points\"><tr><th>series</th><th>{}</th>", escape(&s.x_name));
    for (stat, _) in DRAWN {
        let _ = write!(o, "<th>{stat}</th>");
        if s.repeated {
            let _ = write!(o, "<th>95 % interval</th>");
        }
    }
    let _ = writeln!(o, "</tr>");
    if let Some((_, first)) = s.charts.first() {
        for (name, pts) in first {
            for (k, p) in pts.iter().enumerate() {
                let x = match &s.categories {
                    Some(c) => c.get(p.x as usize).cloned().unwrap_or_default(),
                    None => round(p.x),
                };
                let _ = write!(o, "<tr><td>{}</td><td>{}</td>", escape(name), escape(&x));
                for (_, series) in &s.charts {
                    match series.get(name).and_then(|v| v.get(k)) {
                        Some(q) => {
                            let _ = write!(o, "<td>{}</td>", round(q.mean));
                            if s.repeated {
                                let _ = write!(o, "<td>{} .. {}</td>", round(q.low), round(q.high));
                            }
                        }
                        None => {
                            let _ = write!(o, "<td></td>{}", if s.repeated { "<td></td>" } else { "" });
                        }
                    }
                }
                let _ = writeln!(o, "</tr>");
            }
        }
    }
    let _ = writeln!(o, "</table>\n</body>\n</html>");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_with_runs_gives_points_with_intervals_by_processors() {
        // Two machine sizes, 2 and 4 processors used: x is the processors; the speedup
        // point at 4 has mean 3 and interval 2.5 .. 3.5, as the CSV says.
        let csv = "topology,runs,seq_time_mean,speedup_mean,speedup_sd,speedup_ci95_low,speedup_ci95_high,efficiency_mean,efficiency_ci95_low,efficiency_ci95_high,par_time_mean,par_time_ci95_low,par_time_ci95_high,pprocs_used_mean,pprocs_used_ci95_low,pprocs_used_ci95_high\n\
                   mesh:1x2,3,100,1.8,0.1,1.6,2.0,0.9,0.8,1.0,55,50,60,2,2,2\n\
                   mesh:2x2,3,100,3,0.2,2.5,3.5,0.75,0.6,0.9,33,30,36,4,4,4\n";
        assert!(is_sweep(csv));
        let s = read(csv).unwrap();
        assert_eq!(s.x_name, "processors used");
        assert!(s.repeated);
        let speedup = &s.charts[0].1[""];
        assert_eq!(speedup[1], Point { x: 4.0, mean: 3.0, low: 2.5, high: 3.5 });
        let svg = chart(&s, "speedup", "m");
        assert_eq!(svg.matches("class=\"ci\"").count(), 2);
        assert!(svg.contains("data-x=\"4\" data-mean=\"3\" data-low=\"2.5\" data-high=\"3.5\""));
    }

    #[test]
    fn a_plain_sweep_over_a_numeric_parameter_has_one_series_per_other_parameter() {
        // pprocs_used does not vary: x is `quantum`; the second parameter names the
        // series; no intervals.
        let csv = "quantum,network,seq_time,par_time,speedup,efficiency,pprocs_used\n\
                   1,flow,100,50,2,0.5,4\n2,flow,100,40,2.5,0.625,4\n1,wormhole,100,60,1.667,0.417,4\n";
        let s = read(csv).unwrap();
        assert_eq!(s.x_name, "quantum");
        assert!(!s.repeated);
        let sp = &s.charts[0].1;
        assert_eq!(sp.keys().collect::<Vec<_>>(), ["network=flow", "network=wormhole"]);
        assert_eq!(sp["network=flow"][1], Point { x: 2.0, mean: 2.5, low: 2.5, high: 2.5 });
        assert!(!is_sweep("seq_time,par_time\n1,2\n"));
        assert!(matches!(read("seq_time,par_time\n1,2\n"), Err(SweepError::NoParams)));
        assert!(matches!(read("q,seq_time,par_time\n1,1,x\n"), Err(SweepError::Bad { line: 2, .. })));
    }
}
