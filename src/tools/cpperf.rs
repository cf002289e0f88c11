//! `cpperf` — analyse run records: speedup, efficiency, utilization, granularity, the
//! communication matrix, the critical path and the weighted critical path.
use super::{bail, usage, Context, Result};
use crate::cli::{self, exit};
use crate::perf::summary::{self, Summary};
use crate::perf::{analyze_any, analyze_any_with, detect, render, whatif, Analysis, InputKind, Options};
use clap::{Args as ClapArgs, Parser, Subcommand, ValueEnum};
use rayon::prelude::*;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Analyse run records written by cpss -t.
///
/// Reports parallel and sequential time, speedup, efficiency, processor utilization,
/// messages, granularity (computation : communication), the critical path of the
/// execution graph and the weighted critical path with each segment's share, phases
/// between probes, critical-path imbalance, link traffic, what-if answers and the cost
/// of each source line.
#[derive(Parser, Debug)]
#[command(name = "cpperf", version, about = "analyse run records: speedup, utilization, granularity, critical path and weighted critical path", long_about = None, args_conflicts_with_subcommands = true)]
pub struct Args {
    /// Print a completion script for SHELL and exit.
    #[arg(long, value_name = "SHELL")]
    completions: Option<clap_complete::Shell>,
    #[command(subcommand)]
    command: Option<Command>,
    /// Run records; `-` or none reads standard input.
    runs: Vec<PathBuf>,
    /// Output format (default text). With --html or --svg the report goes to standard
    /// output only when this (or --table, --summary, --what-if, --comm) is given.
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// Print only the communication matrix between virtual processors as CSV
    /// `src,dst,bytes` (the format cpmap --comm reads).
    #[arg(long)]
    comm: bool,
    /// Write gantt.svg (with the critical path), spacetime.svg and utilization.svg into
    /// DIR (with several runs, into one subfolder per run named after its file).
    #[arg(long, value_name = "DIR")]
    svg: Option<PathBuf>,
    /// Write the visual report: one self-contained HTML file (data, script and styles
    /// inside; no network) with the timeline, utilization, communication matrix,
    /// topology, WCPA, phases, statistics and source views. One run only.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// How much shorter the critical path gets when TARGET takes no time:
    /// function=NAME (the processes running NAME) or phase=LABEL (the phase opened by the
    /// probe LABEL); may be repeated. Prints only the answers (text or CSV; the JSON
    /// report holds them in `what_if`).
    #[arg(long = "what-if", value_name = "TARGET", value_parser = parse_target)]
    what_if: Vec<whatif::Target>,
    /// Show only the N most expensive source lines (text, JSON and --table lines).
    #[arg(long, value_name = "N")]
    top_lines: Option<usize>,
    /// Print only one table as CSV: lines, phases, links, imbalance, processes, functions
    /// or what-if.
    #[arg(long, value_enum, value_name = "TABLE", conflicts_with = "comm")]
    table: Option<Table>,
    /// Print the short form: the headline figures and the five heaviest segments of the
    /// weighted critical path (text).
    #[arg(long, conflicts_with_all = ["comm", "table", "what_if"])]
    summary: bool,
    /// Analyse only the window from time T (time units): every figure is the window's,
    /// its times counted from T.
    #[arg(long, value_name = "T", conflicts_with = "comm")]
    from: Option<String>,
    /// Analyse only the window up to time T (time units; default the run's end).
    #[arg(long, value_name = "T", conflicts_with = "comm")]
    to: Option<String>,
    /// Add the procedure profile: per function its calls, inclusive and exclusive busy
    /// time, mean and sd per call, critical-path share and concurrency-weighted time.
    #[arg(long, conflicts_with = "comm")]
    functions: bool,
}

fn parse_target(s: &str) -> Result<whatif::Target, String> {
    whatif::Target::parse(s)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Table {
    /// Cost per source line.
    Lines,
    /// Phases between probes.
    Phases,
    /// Link traffic from traced routes.
    Links,
    /// Critical-path imbalance per function.
    Imbalance,
    /// Every process: function, processor, start, end, busy time, messages.
    Processes,
    /// The procedure profile (as --functions).
    Functions,
    /// The --what-if answers.
    WhatIf,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compare two runs metric by metric; exit 1 when one regresses beyond the tolerance.
    Compare(CompareArgs),
    /// Fit simulator parameters to observed values and write them as a cpss configuration.
    Calibrate(CalibrateArgs),
}

/// Fit cpss's parameters to measured values: run each observation's program with its
/// flags, search the parameters named by --vary to minimise the relative error
/// (Nelder–Mead on their logarithms, with restarts; deterministic), print each
/// observation's observed and predicted value, and write the fit as a configuration
/// file that cpss --config reads.
#[derive(ClapArgs, Debug)]
struct CalibrateArgs {
    /// CSV with the header `program,flags,observed` and an optional `metric` column (a
    /// statistic of cpss --stats csv, default par_time): a program (.cod or .c, relative
    /// to the CSV's folder), its cpss flags as one shell-quoted string, the value
    /// observed.
    observed: PathBuf,
    /// The parameters to fit (comma list): rows of cpss --list-params that are numbers,
    /// or group:GROUP for an instruction group's factor (as --scale-group GROUP=F).
    #[arg(long, value_name = "LIST", value_delimiter = ',', required = true)]
    vary: Vec<String>,
    /// Write the fitted parameters here, as TOML (cpss --config FILE).
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Output format of the table of observations.
    #[arg(long, value_enum, default_value = "text")]
    format: FormatArg,
}

/// Compare two runs' statistics (CSV or JSON from cpperf --format csv|json or cpss
/// --stats csv|json, the summary of repeated runs from cpss --runs N --stats csv, run
/// records, PICL or SDDF traces). Times, latency, critical path, messages and bytes
/// regress when they grow; speedup, efficiency, utilization and granularity when they
/// shrink. With repeated runs on both sides a change must also be significant by
/// Welch's t-test at 95 %. A warning when the runs are of different programs.
#[derive(ClapArgs, Debug)]
struct CompareArgs {
    /// The reference run.
    base: PathBuf,
    /// The run to check.
    new: PathBuf,
    /// Largest change in the bad direction that is not a regression, in percent of the
    /// base value: P% for every metric, METRIC=P% for one (comma list).
    #[arg(long, value_name = "P%", default_value = "2%")]
    tolerance: String,
    /// Compare only these metrics, each of which then gates (comma list); default: every
    /// metric both runs have but host_seconds, with par_time, speedup and efficiency gating.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    metrics: Option<Vec<String>>,
    /// Compare the cost of each source line instead (run records or traces of two
    /// versions): both runs side by side on one scale, with the change per line. Does
    /// not gate (exit 0).
    #[arg(long, conflicts_with_all = ["metrics"])]
    lines: bool,
    /// The runs are of two versions of a program (files of different names): compare
    /// them. Without it runs of programs of different names are refused (exit 2), as a
    /// CI gate against the wrong baseline must not pass.
    #[arg(long)]
    versions: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: CompareFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum CompareFormat {
    /// A table: each metric's base and new values, its change, and the verdict.
    Text,
    /// One row per metric: values, change, tolerance, whether it gates, got worse,
    /// regressed, and Welch's t and degrees of freedom.
    Csv,
    /// One JSON object: the verdict and one object per metric.
    Json,
    /// JUnit XML for CI test reports: one test case per gating metric.
    Junit,
    /// A Markdown table for a CI job's summary.
    Markdown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    /// Human-readable report.
    Text,
    /// One header line and one row per run.
    Csv,
    /// One JSON object per run, one per line.
    Json,
}

/// `cpperf`: the report of the runs given, or `cpperf compare`'s verdict.
pub fn main(args: Args) -> Result<i32> {
    match &args.command {
        Some(Command::Compare(c)) => compare(c),
        Some(Command::Calibrate(c)) => calibrate(c),
        None => run(&args).map(|()| exit::OK),
    }
}

fn open_input(path: &Path) -> Result<(String, Box<dyn BufRead>)> {
    if path.as_os_str() == "-" {
        return Ok(("<stdin>".into(), Box::new(BufReader::new(std::io::stdin().lock()))));
    }
    let f = cli::open_input(path)?;
    Ok((path.display().to_string(), Box::new(BufReader::new(f))))
}

/// `--html`/`--svg` of a sweep's CSV (`cpss --sweep … --stats csv`, [`crate::perf::sweep`]):
/// its charts written; false (nothing done) when the input is not a sweep.
fn sweep_charts(args: &Args, path: &Path) -> Result<bool> {
    let (name, text) = if path.as_os_str() == "-" {
        let (name, bytes) = read_all(path)?;
        (name, bytes)
    } else {
        // A run record can be large: only its head is read to tell.
        let (name, mut input) = open_input(path)?;
        let head = input.fill_buf().with_context(|| name.clone())?;
        if !crate::perf::sweep::is_sweep(&String::from_utf8_lossy(head)) {
            return Ok(false);
        }
        let mut bytes = Vec::new();
        input.read_to_end(&mut bytes).with_context(|| name.clone())?;
        (name, bytes)
    };
    let text = String::from_utf8_lossy(&text);
    if !crate::perf::sweep::is_sweep(&text) {
        if path.as_os_str() == "-" {
            bail!("{name}: --html and --svg of standard input take a sweep's CSV; give a run record as a file");
        }
        return Ok(false);
    }
    if args.format.is_some() || args.table.is_some() || args.summary || !args.what_if.is_empty() {
        bail!("{name}: a sweep's CSV is drawn (--html, --svg), not analysed: drop --format, --table, --summary, --what-if");
    }
    let s = crate::perf::sweep::read(&text).with_context(|| name.clone())?;
    let title = Path::new(&name).file_stem().map_or_else(|| "sweep".to_string(), |s| s.to_string_lossy().into_owned());
    if let Some(dir) = &args.svg {
        let mut set = cli::OutputSet::new();
        set.create_dir(dir)?;
        for (file, svg) in crate::perf::sweep::charts(&s, &title) {
            set.add(&dir.join(file), svg.as_bytes())?;
        }
        for p in set.commit()? {
            eprintln!("cpperf: wrote {}", p.display());
        }
    }
    if let Some(html) = &args.html {
        cli::write_atomic(html, crate::perf::sweep::page(&s, &title).as_bytes())?;
        eprintln!("cpperf: wrote {}", html.display());
    }
    Ok(true)
}

fn read_all(path: &Path) -> Result<(String, Vec<u8>)> {
    let (name, mut input) = open_input(path)?;
    let mut bytes = Vec::new();
    input.read_to_end(&mut bytes).with_context(|| name.clone())?;
    Ok((name, bytes))
}

/// A program of an observation: a `.cod` file, or CPC source (`.c`) compiled here (on a
/// thread with a large stack, as cpcc does).
fn load_program(path: &Path) -> Result<crate::vcode::Module> {
    let input = cli::read_input_within(Some(path), cli::MAX_INPUT, None)?;
    if path.extension().is_some_and(|e| e == "c") {
        let text =
            String::from_utf8(input.bytes).map_err(|_| usage!("{}: the source is not UTF-8 text", input.name))?;
        let name = input.name.clone();
        let worker = std::thread::Builder::new().stack_size(256 << 20).spawn(move || {
            crate::lang::compile(&name, &text, &crate::lang::FrontOptions::default())
                .map(|c| c.module)
                .map_err(|e| e.to_string())
        });
        let compiled = worker.context("starting the compiler's thread")?.join();
        return match compiled {
            Ok(Ok(m)) => Ok(m),
            Ok(Err(e)) => bail!("{e}"),
            Err(_) => bail!("{}: the compiler failed", input.name),
        };
    }
    if !input.bytes.starts_with(&crate::vcode::cod::MAGIC) {
        bail!("{}: not a .cod file (bad magic) nor CPC source (.c)", input.name);
    }
    crate::vcode::cod::decode(&input.bytes).map_err(|e| usage!("{}: {e}", input.name))
}

/// The observations of `path`, each with its program loaded and its run's options.
fn read_observations(path: &Path) -> Result<Vec<crate::sim::calibrate::Row>> {
    use crate::sim::calibrate::{Row, METRICS};
    let (name, bytes) = read_all(path)?;
    let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut reader = csv::ReaderBuilder::new().trim(csv::Trim::All).from_reader(&bytes[..]);
    let header = reader.headers().with_context(|| name.clone())?.clone();
    let col = |want: &str| header.iter().position(|h| h == want);
    let (Some(program), Some(flags), Some(observed)) = (col("program"), col("flags"), col("observed")) else {
        bail!(
            "{name}:1: the header must name program, flags and observed (and may name metric); found {}",
            header.iter().collect::<Vec<_>>().join(",")
        );
    };
    let metric = col("metric");
    let mut rows = Vec::new();
    let mut programs: Vec<(PathBuf, crate::vcode::Module)> = Vec::new();
    for record in reader.records() {
        let record = record.with_context(|| name.clone())?;
        let line = record.position().map_or(0, |p| p.line());
        let at = |what: String| usage!("{name}:{line}: {what}");
        let field = |i: usize| record.get(i).unwrap_or("").to_string();
        let prog = field(program);
        if prog.is_empty() {
            return Err(at("no program".into()));
        }
        let observed: f64 = field(observed)
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v > 0.0)
            .ok_or_else(|| at(format!("observed `{}` is not a positive number", field(observed))))?;
        let metric = metric.map(field).filter(|m| !m.is_empty()).unwrap_or_else(|| "par_time".into());
        if !METRICS.contains(&metric.as_str()) {
            return Err(at(format!("metric `{metric}` is not a statistic (known: {})", METRICS.join(", "))));
        }
        let flags_text = field(flags);
        let words = cli::shell_words(&flags_text).map_err(at)?;
        let program_path = folder.join(&prog);
        let module = match programs.iter().find(|(p, _)| *p == program_path) {
            Some((_, m)) => m.clone(),
            None => {
                let m = load_program(&program_path).map_err(|e| at(format!("{e:#}")))?;
                programs.push((program_path.clone(), m.clone()));
                m
            }
        };
        let (opts, stdin) = super::cpss::row_options(&program_path, &words).map_err(|e| at(format!("{e:#}")))?;
        rows.push(Row { program: prog, flags: flags_text, metric, observed, module, opts, stdin });
    }
    if rows.is_empty() {
        bail!("{name}: no observations");
    }
    Ok(rows)
}

/// `cpperf calibrate`.
fn calibrate(c: &CalibrateArgs) -> Result<i32> {
    use crate::sim::calibrate::{fit, Knob};
    let knobs: Vec<Knob> = c.vary.iter().map(|v| Knob::parse(v)).collect::<Result<_, _>>()?;
    let rows = read_observations(&c.observed)?;
    let bar = if cli::stderr_is_terminal() {
        let bar = indicatif::ProgressBar::new_spinner();
        if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {pos} evaluations {elapsed}") {
            bar.set_style(style);
        }
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let result = fit(&rows, &knobs, &|| bar.inc(1));
    bar.finish_and_clear();
    let fitted = result?;
    let errors: Vec<f64> = rows.iter().zip(&fitted.predicted).map(|(r, p)| (p - r.observed) / r.observed).collect();
    let mut out = String::new();
    match c.format {
        FormatArg::Csv | FormatArg::Json => {
            let mut w = csv::Writer::from_writer(Vec::new());
            w.write_record(["program", "flags", "metric", "observed", "predicted", "error"])?;
            for ((r, p), e) in rows.iter().zip(&fitted.predicted).zip(&errors) {
                w.write_record([
                    &r.program,
                    &r.flags,
                    &r.metric,
                    &r.observed.to_string(),
                    &p.to_string(),
                    &format!("{e:.6}"),
                ])?;
            }
            out = String::from_utf8_lossy(&w.into_inner().map_err(|e| usage!("{e}"))?).into_owned();
        }
        FormatArg::Text => {
            use std::fmt::Write;
            let names: Vec<String> = knobs.iter().map(Knob::name).collect();
            let _ = writeln!(
                out,
                "Calibration of {} on {} observations ({} evaluations)",
                names.join(", "),
                rows.len(),
                fitted.evaluations
            );
            let pw = rows.iter().map(|r| r.program.len()).max().unwrap_or(0).max(7);
            let fw = rows.iter().map(|r| r.flags.len()).max().unwrap_or(0).max(5);
            let _ = writeln!(
                out,
                "  {:pw$}  {:fw$}  {:12}  {:>12}  {:>12}  {:>8}",
                "program", "flags", "metric", "observed", "predicted", "error"
            );
            for ((r, p), e) in rows.iter().zip(&fitted.predicted).zip(&errors) {
                let _ = writeln!(
                    out,
                    "  {:pw$}  {:fw$}  {:12}  {:>12}  {:>12}  {:>+7.2}%",
                    r.program,
                    r.flags,
                    r.metric,
                    fmt_value(r.observed),
                    fmt_value(*p),
                    e * 100.0
                );
            }
            let fitted_list: Vec<String> =
                names.iter().zip(&fitted.values).map(|(n, v)| format!("{n} = {v}")).collect();
            let _ = writeln!(out, "Fitted: {}", fitted_list.join(", "));
            let rms = (errors.iter().map(|e| e * e).sum::<f64>() / errors.len().max(1) as f64).sqrt();
            let worst = errors.iter().fold(0.0f64, |m, e| m.max(e.abs()));
            let _ = writeln!(out, "Relative error: RMS {:.2}%, largest {:.2}%", rms * 100.0, worst * 100.0);
        }
    }
    if let Some(path) = &c.output {
        let mut table = toml::Table::new();
        for (name, v) in crate::sim::calibrate::shared_params(&rows, &knobs) {
            table.insert(name.to_string(), toml::Value::String(v));
        }
        let mut groups = Vec::new();
        for (k, v) in knobs.iter().zip(&fitted.values) {
            match k {
                Knob::Param { name, .. } => {
                    table.insert(name.to_string(), toml::Value::String(v.clone()));
                }
                Knob::Group(g) => groups.push(toml::Value::String(format!("{g}={v}"))),
            }
        }
        if !groups.is_empty() {
            table.insert("scale-group".into(), toml::Value::Array(groups));
        }
        let body = toml::to_string(&table).map_err(|e| usage!("{e}"))?;
        let text = format!(
            "# cpss configuration fitted by cpperf calibrate to {} ({} observations): the parameters\n# every observation ran with, and the fitted ones.\n{body}",
            c.observed.display(),
            rows.len()
        );
        cli::write_atomic(path, text.as_bytes()).with_context(|| path.display().to_string())?;
    }
    cli::write_stdout(out.as_bytes())?;
    Ok(exit::OK)
}

/// A statistic as the table prints it: whole numbers plain, others to 4 decimals.
fn fmt_value(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.4}")
    }
}

/// `cpperf compare`: exit 1 on a regression, 0 otherwise.
fn compare(c: &CompareArgs) -> Result<i32> {
    if c.lines {
        let analyse = |path: &Path| -> Result<Analysis> {
            let (name, bytes) = read_all(path)?;
            crate::perf::analyze_bytes(&bytes).with_context(|| format!("{name} (--lines needs a run record or trace)"))
        };
        let (base, new) = (analyse(&c.base)?, analyse(&c.new)?);
        let out = match c.format {
            CompareFormat::Text => crate::perf::lines::changes_text(&base.lines, &new.lines),
            CompareFormat::Csv => crate::perf::lines::changes_csv(&base.lines, &new.lines),
            CompareFormat::Json => crate::perf::lines::changes_json(&base.lines, &new.lines),
            CompareFormat::Junit | CompareFormat::Markdown => {
                bail!("--lines does not gate: its formats are text, csv and json")
            }
        };
        cli::write_stdout(out.as_bytes())?;
        return Ok(exit::OK);
    }
    let tolerance = crate::perf::compare::parse_tolerances(&c.tolerance).context("--tolerance")?;
    let (bn, base) = read_all(&c.base)?;
    let base = crate::perf::metrics_of_bytes(&base).with_context(|| bn.clone())?;
    let (nn, new) = read_all(&c.new)?;
    let new = crate::perf::metrics_of_bytes(&new).with_context(|| nn.clone())?;
    let cmp = crate::perf::compare::compare(&base, &new, &tolerance, c.metrics.as_deref())?;
    if let Some((a, b)) = &cmp.programs_differ {
        if !c.versions {
            return Err(usage!(
                "the two runs are of different programs ({a} and {b}): compare two runs of one program, or give --versions if they are two versions of one"
            ));
        }
        eprintln!("cpperf compare: note: two versions of a program compared ({a} and {b})");
    }
    let out = match c.format {
        CompareFormat::Text => cmp.text(),
        CompareFormat::Csv => cmp.csv(),
        CompareFormat::Json => cmp.json(),
        CompareFormat::Junit => cmp.junit(),
        CompareFormat::Markdown => cmp.markdown(),
    };
    cli::write_stdout(out.as_bytes())?;
    Ok(if cmp.regressed() { exit::RUNTIME } else { exit::OK })
}

/// `--comm` without `--svg`: only the summary is needed, so run records are read in one
/// streaming pass whose memory does not grow with the number of events.
fn comm_only(paths: &[PathBuf]) -> Result<()> {
    let summaries: Vec<(String, Summary)> = paths
        .par_iter()
        .map(|p| {
            let (name, mut input) = open_input(p)?;
            let head = input.fill_buf().with_context(|| name.clone())?;
            let s = if detect(head) == Some(InputKind::Record) {
                summary::summarize(input).with_context(|| name.clone())?
            } else {
                analyze_any(input).with_context(|| name.clone())?.summary
            };
            Ok((name, s))
        })
        .collect::<Result<_>>()?;
    let mut out = String::new();
    for (name, s) in &summaries {
        if summaries.len() > 1 {
            out.push_str(&format!("# {name}\n"));
        }
        out.push_str(&s.comm_csv());
    }
    cli::write_stdout(out.as_bytes())?;
    Ok(())
}

fn run(args: &Args) -> Result<()> {
    if let Some(shell) = args.completions {
        cli::print_completions(shell, &mut <Args as clap::CommandFactory>::command(), "cpperf")?;
        return Ok(());
    }
    let paths: Vec<PathBuf> = if args.runs.is_empty() { vec![PathBuf::from("-")] } else { args.runs.clone() };
    // --html and --svg write their files; a report on standard output only when asked.
    let files_only = (args.html.is_some() || args.svg.is_some())
        && args.format.is_none()
        && args.table.is_none()
        && !args.summary
        && args.what_if.is_empty()
        && !args.comm;
    let format = args.format.unwrap_or(FormatArg::Text);
    if args.summary && format != FormatArg::Text {
        bail!("--summary is the short text form; --format csv already gives one row per run");
    }
    let time = |flag: &str, v: &Option<String>| -> Result<Option<u64>> {
        v.as_deref().map(|v| crate::time::parse_time(v).map_err(|e| usage!("--{flag}: {e}"))).transpose()
    };
    let window = match (time("from", &args.from)?, time("to", &args.to)?) {
        (None, None) => None,
        (from, to) => {
            let (from, to) = (from.unwrap_or(0), to.unwrap_or(u64::MAX));
            if from >= to {
                bail!("--from must be before --to");
            }
            Some(crate::perf::window::Window { from, to })
        }
    };
    let functions = args.functions || args.table == Some(Table::Functions);
    let opts = Options { what_if: args.what_if.clone(), window, functions, charts: args.svg.is_some() };
    if args.comm && args.svg.is_none() {
        return comm_only(&paths);
    }
    if (args.html.is_some() || args.svg.is_some()) && paths.len() == 1 && sweep_charts(args, &paths[0])? {
        return Ok(());
    }
    // A sweep's CSV is drawn, not analysed: say how, rather than "not a run record".
    for p in paths.iter().filter(|p| p.as_os_str() != "-") {
        let (name, mut input) = open_input(p)?;
        if crate::perf::sweep::is_sweep(&String::from_utf8_lossy(input.fill_buf().with_context(|| name.clone())?)) {
            bail!("{name}: the CSV of a sweep: cpperf draws it with --html FILE or --svg DIR");
        }
    }
    let mut page = None;
    if let Some(html) = &args.html {
        if paths.len() != 1 {
            bail!("--html writes the report of one run: give one");
        }
        // A file is read twice (analysis, then timeline) rather than held in memory;
        // standard input is read once and kept.
        let (name, a, text) = if paths[0].as_os_str() == "-" {
            let (name, bytes) = read_all(&paths[0])?;
            let (a, text) = crate::perf::html_report(&bytes, &opts).with_context(|| name.clone())?;
            (name, a, text)
        } else {
            let name = paths[0].display().to_string();
            let open = || -> Result<Box<dyn BufRead>, crate::perf::PerfError> {
                let f = cli::open_input(&paths[0]).map_err(crate::trace::RecordError::Io)?;
                Ok(Box::new(BufReader::new(f)))
            };
            let (a, text) = crate::perf::html_report_with(&open, &opts).with_context(|| name.clone())?;
            (name, a, text)
        };
        for note in &a.notes {
            eprintln!("cpperf: {name}: note: {note}");
        }
        page = Some((name, a, text, html.clone()));
    }
    if let Some((_, _, text, path)) = &page {
        cli::write_atomic(path, text.as_bytes())?;
        eprintln!("cpperf: wrote {}", path.display());
    }
    // Runs are independent: analysed in parallel, reported in the order given.
    let progress = cli::Progress::spinner("analysing");
    let analyses: Vec<(String, Analysis)> = if let Some((name, a, _, _)) = page {
        vec![(name, a)]
    } else {
        paths
            .par_iter()
            .map(|p| {
                let (name, input) = open_input(p)?;
                let a = analyze_any_with(input, &opts).with_context(|| name.clone())?;
                for note in &a.notes {
                    eprintln!("cpperf: {name}: note: {note}");
                }
                Ok((name, a))
            })
            .collect::<Result<_>>()?
    };
    progress.finish();
    let many = analyses.len() > 1;
    if let Some(dir) = &args.svg {
        // With several runs, one folder each, named after the run (two runs of the same
        // name get -2, -3, …), so no run's charts replace another's.
        // Every chart of every run is one set: all are written, or none replaces an older one.
        let mut used: Vec<String> = Vec::new();
        let mut set = cli::OutputSet::new();
        for (name, a) in &analyses {
            let stem = Path::new(name).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let mut folder = if stem.is_empty() || stem == "<stdin>" { "stdin".to_string() } else { stem };
            let base = folder.clone();
            let mut k = 1;
            while used.contains(&folder) {
                k += 1;
                folder = format!("{base}-{k}");
            }
            used.push(folder.clone());
            let out_dir = if many { dir.join(&folder) } else { dir.clone() };
            set.create_dir(&out_dir)?;
            for (file, text) in crate::perf::charts(a, a.summary.pprocs_used) {
                set.add(&out_dir.join(file), text.as_bytes())?;
            }
        }
        for path in set.commit()? {
            eprintln!("cpperf: wrote {}", path.display());
        }
    }
    if files_only {
        return Ok(());
    }
    let mut out = String::new();
    if args.comm {
        for (name, a) in &analyses {
            if many {
                out.push_str(&format!("# {name}\n"));
            }
            out.push_str(&a.summary.comm_csv());
        }
    } else if let Some(t) = args.table {
        for (name, a) in &analyses {
            if many {
                out.push_str(&format!("# {name}\n"));
            }
            out.push_str(&match t {
                Table::Lines => crate::perf::lines::csv(&a.lines, args.top_lines),
                Table::Phases => crate::perf::phases::csv(&a.phases),
                Table::Links => crate::perf::links::csv(&a.links),
                Table::Imbalance => crate::perf::imbalance::csv(&a.imbalance),
                Table::Processes => crate::perf::processes::csv(&a.processes),
                Table::Functions => a.procedures.as_ref().map_or_else(String::new, crate::perf::functions::csv),
                Table::WhatIf => crate::perf::whatif::csv(&a.what_if),
            });
        }
    } else if !args.what_if.is_empty() && format != FormatArg::Json {
        // --what-if answers its question: the comparison only (the JSON document keeps
        // its one layout, whose `what_if` holds the answers).
        for (i, (name, a)) in analyses.iter().enumerate() {
            if many {
                out.push_str(&format!("{}# {name}\n", if i > 0 { "\n" } else { "" }));
            }
            out.push_str(&match format {
                FormatArg::Csv => whatif::csv(&a.what_if),
                _ => format!("Program: {}{}", a.program, whatif::text(&a.what_if)),
            });
        }
    } else if args.summary {
        for (i, (name, a)) in analyses.iter().enumerate() {
            if many {
                out.push_str(&format!("{}== {name} ==\n", if i > 0 { "\n" } else { "" }));
            }
            out.push_str(&render::summary_text(a));
        }
    } else {
        match format {
            FormatArg::Text => {
                for (i, (name, a)) in analyses.iter().enumerate() {
                    if many {
                        out.push_str(&format!("{}== {name} ==\n", if i > 0 { "\n" } else { "" }));
                    }
                    out.push_str(&render::text_with(a, args.top_lines));
                }
            }
            FormatArg::Csv => {
                out.push_str(render::CSV_HEADER);
                out.push('\n');
                for (_, a) in &analyses {
                    out.push_str(&render::csv_row(a));
                }
            }
            FormatArg::Json => {
                for (_, a) in &analyses {
                    out.push_str(&render::json_with(a, args.top_lines));
                }
            }
        }
    }
    cli::write_stdout(out.as_bytes())?;
    Ok(())
}
