//! `cptrace` — convert a run record to a trace format.
use anyhow::Context;
use clap::{Parser, ValueEnum};
use cppe::cli::{self, exit, parse_units, AtomicFile};
use cppe::trace::convert::{convert, ConvertError, Format, Report};
use cppe::trace::filter::{ProcSet, Selection};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Convert a run record (from cpss -t) to PICL, SDDF, Chrome Trace Event JSON, Paraver or
/// OTF2.
///
/// One simulated time unit is written as one microsecond. The conversion streams: memory
/// does not grow with the length of the trace.
#[derive(Parser, Debug)]
#[command(name = "cptrace", version, about = "convert a run record to PICL, SDDF, Chrome Trace Event JSON, Paraver or OTF2", long_about = None)]
struct Args {
    /// Print a completion script for SHELL and exit.
    #[arg(long, value_name = "SHELL")]
    completions: Option<clap_complete::Shell>,
    /// The run record; `-` or none reads standard input.
    run: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, required_unless_present = "completions")]
    format: Option<FormatArg>,
    /// Output file (for paraver, the .prv; the .pcf and .row go beside it; for otf2, the
    /// anchor NAME.otf2; NAME.def and NAME/ go beside it). Default: standard output.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    /// Keep only these physical processors, e.g. 0-3,7.
    #[arg(long, value_name = "RANGE")]
    procs: Option<String>,
    /// Keep events from time T on (time units).
    #[arg(long, value_name = "T")]
    from: Option<String>,
    /// Keep events up to time T (time units).
    #[arg(long, value_name = "T")]
    to: Option<String>,
    /// Keep only these event kinds (comma list: proc_init, proc_exit, state, msg_send,
    /// msg_arr, recv_call, recv_done, hop, probe, label, time_off, time_on, busy, line_cost).
    #[arg(long, value_name = "KINDS")]
    events: Option<String>,
    /// Append the run's final statistics (picl and sddf), so that cpperf on the trace
    /// reports the simulator's sequential time and speedup. The default for a whole
    /// run; a trace cut by --procs, --from, --to or --events gets them only when asked,
    /// as they are the whole run's.
    #[arg(long, conflicts_with = "no_stats")]
    stats: bool,
    /// Leave the statistics out, even for a whole run.
    #[arg(long)]
    no_stats: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    /// PICL 2.0 new format (ParaGraph).
    Picl,
    /// Old compact PICL format.
    Picl1,
    /// ASCII Pablo SDDF.
    Sddf,
    /// Chrome Trace Event JSON (Perfetto).
    Chrome,
    /// Paraver .prv/.pcf/.row (needs -o).
    Paraver,
    /// OTF2 archive: NAME.otf2, NAME.def and NAME/ (needs -o NAME.otf2).
    Otf2,
}

fn main() {
    cli::interrupt::prepare();
    let args = Args::parse();
    std::process::exit(cli::finish("cptrace", run(&args).map(|()| exit::OK), |_| exit::USAGE));
}

fn selection(args: &Args) -> anyhow::Result<Selection> {
    let units = |flag: &str, v: &Option<String>| {
        v.as_deref().map(|v| parse_units(v).map_err(|e| anyhow::anyhow!("--{flag}: {e}"))).transpose()
    };
    let sel = Selection {
        procs: args.procs.as_deref().map(ProcSet::parse).transpose()?,
        from: units("from", &args.from)?,
        to: units("to", &args.to)?,
        kinds: args.events.as_deref().map(Selection::parse_kinds).transpose()?,
    };
    sel.check()?;
    Ok(sel)
}

fn open_input(path: Option<&Path>) -> anyhow::Result<(String, Box<dyn Read>)> {
    match path {
        Some(p) if p.as_os_str() != "-" => {
            let f = cli::open_input(p)?;
            Ok((p.display().to_string(), Box::new(f)))
        }
        _ => Ok(("<stdin>".into(), Box::new(std::io::stdin().lock()))),
    }
}

fn warn(report: &Report) {
    if report.late > 0 {
        eprintln!(
            "cptrace: warning: {} records were written later than their time to keep the output sorted",
            report.late
        );
    }
}

fn run(args: &Args) -> anyhow::Result<()> {
    if let Some(shell) = args.completions {
        cli::print_completions(shell, &mut <Args as clap::CommandFactory>::command(), "cptrace")?;
        return Ok(());
    }
    let Some(format_arg) = args.format else { anyhow::bail!("--format is required") };
    let sel = selection(args)?;
    let output = args.output.as_deref().filter(|p| p.as_os_str() != "-");
    if format_arg == FormatArg::Otf2 {
        let Some(anchor) = output else {
            anyhow::bail!("--format otf2 writes an archive of several files: name its anchor with -o NAME.otf2");
        };
        if args.stats {
            anyhow::bail!("--stats needs --format picl or sddf");
        }
        return run_otf2(args, sel, anchor);
    }
    let format = match format_arg {
        FormatArg::Picl => Format::Picl,
        FormatArg::Picl1 => Format::Picl1,
        FormatArg::Sddf => Format::Sddf,
        FormatArg::Chrome => Format::Chrome,
        FormatArg::Paraver => Format::Paraver,
        FormatArg::Otf2 => unreachable!("handled above"),
    };
    if format == Format::Paraver {
        let Some(prv) = output else {
            anyhow::bail!("--format paraver writes three files: name the .prv with -o");
        };
        return run_paraver(args, sel, prv);
    }
    if args.stats && !matches!(format, Format::Picl | Format::Sddf) {
        anyhow::bail!("--stats needs --format picl or sddf");
    }
    let whole = sel.procs.is_none() && sel.from.is_none() && sel.to.is_none() && sel.kinds.is_none();
    let with_stats = args.stats || (whole && !args.no_stats);
    let (name, input) = open_input(args.run.as_deref())?;
    let _progress = cli::Progress::spinner("converting");
    match output {
        Some(path) => {
            let mut file = AtomicFile::create(path)?;
            let report = convert(input, format, sel, &mut file).map_err(|e| match e {
                ConvertError::Io(io) => anyhow::Error::new(io).context(format!("writing {}", path.display())),
                e => anyhow::Error::new(e).context(name.clone()),
            })?;
            file.write_all(trailer(with_stats, format, &report).as_bytes())
                .with_context(|| format!("writing {}", path.display()))?;
            file.commit()?;
            warn(&report);
        }
        None => {
            cli::require_stdout()?;
            let mut out = BufWriter::new(std::io::stdout().lock());
            let report = convert(input, format, sel, &mut out).with_context(|| name.clone())?;
            out.write_all(trailer(with_stats, format, &report).as_bytes())?;
            out.flush()?;
            warn(&report);
        }
    }
    Ok(())
}

/// The statistics records appended to a PICL or SDDF trace (empty without them).
fn trailer(with_stats: bool, format: Format, report: &Report) -> String {
    match format {
        _ if !with_stats => String::new(),
        Format::Picl => cppe::trace::picl::stats_record(&report.stats, report.ticks_per_unit),
        Format::Sddf => cppe::trace::sddf::stats_records(&report.stats, report.ticks_per_unit),
        _ => String::new(),
    }
}

/// Paraver's header holds the final time, known at the end: the records go to a scratch
/// file first, then header and records into the .prv.
fn run_paraver(args: &Args, sel: Selection, prv: &Path) -> anyhow::Result<()> {
    let (name, input) = open_input(args.run.as_deref())?;
    let dir = match prv.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let stem = prv.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let scratch = dir.join(format!(".{stem}.body{}", std::process::id()));
    let result = (|| -> anyhow::Result<()> {
        let mut body = BufWriter::new(std::fs::File::create(&scratch).with_context(|| prv.display().to_string())?);
        let report = convert(input, Format::Paraver, sel, &mut body).with_context(|| name.clone())?;
        body.flush()?;
        drop(body);
        let extra = |ext: &str| report.extra.iter().find(|(e, _)| *e == ext).map(|(_, s)| s.as_str()).unwrap_or("");
        let mut file = AtomicFile::create(prv)?;
        writeln!(file, "{}", extra("prv-header"))?;
        let mut records = std::fs::File::open(&scratch)?;
        std::io::copy(&mut records, &mut file)?;
        cli::write_atomic(&prv.with_extension("pcf"), extra("pcf").as_bytes())?;
        cli::write_atomic(&prv.with_extension("row"), extra("row").as_bytes())?;
        file.commit()?;
        warn(&report);
        Ok(())
    })();
    let _ = std::fs::remove_file(&scratch);
    result
}

/// OTF2 is a directory of files: they are written into a scratch directory beside the
/// anchor, then moved into place (an existing archive of the same name is replaced),
/// so a failed conversion leaves no half-written archive.
fn run_otf2(args: &Args, sel: Selection, anchor: &Path) -> anyhow::Result<()> {
    use cppe::trace::otf2::Otf2Writer;
    let (name, input) = open_input(args.run.as_deref())?;
    let dir = match anchor.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let stem = match (anchor.file_stem(), anchor.extension()) {
        (Some(s), Some(e)) if e == "otf2" => s.to_string_lossy().into_owned(),
        _ => anyhow::bail!("{}: the OTF2 anchor file must be named NAME.otf2", anchor.display()),
    };
    let scratch = dir.join(format!(".{stem}.otf2-partial{}", std::process::id()));
    let result = (|| -> anyhow::Result<()> {
        std::fs::create_dir_all(&scratch).with_context(|| scratch.display().to_string())?;
        let mut writer = Otf2Writer::new(&scratch, &stem);
        let report = cppe::trace::convert::convert_with(input, &mut writer, sel, &mut std::io::sink())
            .with_context(|| name.clone())?;
        for part in Otf2Writer::parts(&stem) {
            let target = dir.join(&part);
            if target.is_dir() {
                std::fs::remove_dir_all(&target).with_context(|| target.display().to_string())?;
            }
            std::fs::rename(scratch.join(&part), &target).with_context(|| target.display().to_string())?;
        }
        warn(&report);
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    result
}
