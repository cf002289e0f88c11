//! `cptrace` — convert a run record to a trace format.
use super::{bail, usage, Result};
use crate::cli::{self, exit};
use crate::time::parse_time;
use crate::trace::convert::Report;
use crate::trace::filter::{ProcSet, Selection};
use crate::trace::format::{self, Format, Request};
use clap::Parser;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Convert a run record (from cpss -t) to PICL, SDDF, Chrome Trace Event JSON, Paraver or
/// OTF2.
///
/// One simulated time unit is written as one microsecond. The conversion streams: memory
/// does not grow with the length of the trace.
#[derive(Parser, Debug)]
#[command(name = "cptrace", version, about = "convert a run record to PICL, SDDF, Chrome Trace Event JSON, Paraver or OTF2", long_about = None)]
pub struct Args {
    /// Print a completion script for SHELL and exit.
    #[arg(long, value_name = "SHELL")]
    completions: Option<clap_complete::Shell>,
    /// The run record; `-` or none reads standard input.
    run: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, required_unless_present = "completions")]
    format: Option<Format>,
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

fn selection(args: &Args) -> Result<Selection> {
    let units = |flag: &str, v: &Option<String>| {
        v.as_deref().map(|v| parse_time(v).map_err(|e| usage!("--{flag}: {e}"))).transpose()
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

fn open_input(path: Option<&Path>) -> Result<(String, Box<dyn Read>)> {
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

/// `cptrace`: the run record converted to the format asked for, through the formats'
/// registry ([`format::write`]).
pub fn main(args: Args) -> Result<i32> {
    if let Some(shell) = args.completions {
        cli::print_completions(shell, &mut <Args as clap::CommandFactory>::command(), "cptrace")?;
        return Ok(exit::OK);
    }
    let Some(format) = args.format else { bail!("--format is required") };
    let sel = selection(&args)?;
    let whole = sel.procs.is_none() && sel.from.is_none() && sel.to.is_none() && sel.kinds.is_none();
    let output = args.output.as_deref().filter(|p| p.as_os_str() != "-");
    let stats = args.stats || (whole && !args.no_stats && format.info().stats);
    let request = Request { format, output, stats };
    let (name, input) = open_input(args.run.as_deref())?;
    let _progress = cli::Progress::spinner("converting");
    let report = format::write(input, &name, sel, &request)?;
    warn(&report);
    Ok(exit::OK)
}
