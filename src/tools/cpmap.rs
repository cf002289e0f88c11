//! `cpmap` — evaluate, compare and search virtual-to-physical processor mappings.
use super::{bail, usage, Context, Result};
use crate::cli::{self, exit, Sink};
use crate::mapper::{build_report, byte_time_of, resolve, CommMatrix, SearchMethod, SearchRequest, TaskCosts};
use crate::topo::{MapFile, Mapping, Topology};
use clap::{Parser, ValueEnum};
use std::io::Write;
use std::path::PathBuf;

/// Evaluate mappings of a virtual architecture onto a physical one: the mapping table,
/// load, dilation, link congestion and, with a communication matrix, the traffic-weighted
/// hop cost; rank several mappings; search for a better one; write a map file for cpss.
#[derive(Parser, Debug)]
#[command(name = "cpmap", version, about = "evaluate, compare and search virtual-to-physical processor mappings", long_about = None)]
pub struct Args {
    /// Print a completion script for SHELL and exit.
    #[arg(long, value_name = "SHELL")]
    completions: Option<clap_complete::Shell>,
    /// Mappings: a built-in name (default, identity, random, ring2line, torus2mesh), a
    /// mapping string 'name(x,y) = [y1, y2].', or @FILE (a map file).
    mappings: Vec<String>,
    /// Virtual architecture, e.g. torus:8x8 (default: the run record's, with --comm).
    #[arg(long = "virtual", value_name = "TOPO:SIZES")]
    virtual_topology: Option<String>,
    /// Physical architecture, e.g. mesh:8x8 (default: the run record's, with --comm).
    #[arg(long, value_name = "TOPO:SIZES")]
    physical: Option<String>,
    /// Communication matrix: CSV `src,dst,bytes` or a run record (.cpt).
    #[arg(long, value_name = "FILE")]
    comm: Option<PathBuf>,
    /// Propose mappings, starting from the first MAPPING: greedy and anneal lower the
    /// weighted cost; lptf, lgcf, boillat and hme the most loaded processor's time (they
    /// need --work). Several methods (comma-separated or repeated) are ranked together.
    #[arg(long, value_enum, value_name = "METHOD", value_delimiter = ',')]
    search: Vec<SearchMethod>,
    /// Computation cost of every task (virtual processor): a run record (the busy time
    /// of the processes on each) or CSV `vproc,cost` in time units. Ranks mappings by the
    /// time of the most loaded processor.
    #[arg(long, value_name = "FILE")]
    work: Option<PathBuf>,
    /// Time of one byte over one link, time units, for the processor times (default: the
    /// --work record's link delay / flit size, else 1).
    #[arg(long, value_name = "T")]
    byte_time: Option<String>,
    /// Most candidate moves each greedy start or annealing restart weighs; a run that
    /// reaches it keeps the best mapping it has (deterministic, unlike --max-seconds).
    #[arg(long, value_name = "N", default_value_t = crate::mapper::Budget::DEFAULT_STEPS)]
    max_steps: u64,
    /// Stop the search after this many seconds of wall time, keeping the best mapping
    /// found so far.
    #[arg(long, value_name = "S")]
    max_seconds: Option<f64>,
    /// Seed of the random mapping and of the annealer.
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// Output format of the report.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Write a map file (for `cpss --map-file`) instead of, or with -o besides, the report.
    #[arg(long, value_enum, value_name = "WHAT")]
    emit: Option<Emit>,
    /// Where --emit writes (default: standard output, replacing the report).
    #[arg(short = 'o', long = "output", value_name = "FILE", requires = "emit")]
    output: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Csv,
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Emit {
    /// A map file: the search result, or else the best-ranked mapping.
    Map,
}

/// `cpmap`: a mapping evaluated, compared or searched.
pub fn main(args: Args) -> Result<i32> {
    run(&args)
}

fn topology(flag: &str, given: Option<&str>, from_record: Option<&str>) -> Result<Topology> {
    let text = given
        .or(from_record.filter(|s| !s.is_empty()))
        .with_context(|| format!("--{flag} TOPO:SIZES is required (or a run record with --comm that names it)"))?;
    Topology::parse(text).with_context(|| format!("--{flag}"))
}

/// An input of `--comm` or `--work`: its name for messages, and either a run record
/// (a stream, whatever its size) or CSV text (read whole, within the text limit).
enum RecordOrCsv {
    Record(Box<dyn std::io::BufRead>),
    Csv(String),
}

fn read_record_or_csv(path: &std::path::Path) -> Result<(String, RecordOrCsv)> {
    let name = if cli::is_stdin(path) { "<stdin>".to_string() } else { path.display().to_string() };
    let mut input: Box<dyn std::io::BufRead> = if cli::is_stdin(path) {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::io::BufReader::new(cli::open_input(path)?))
    };
    let head = input.fill_buf().with_context(|| name.clone())?;
    if CommMatrix::is_run_record(head) {
        return Ok((name, RecordOrCsv::Record(input)));
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(input, cli::MAX_TEXT + 1), &mut bytes)
        .with_context(|| name.clone())?;
    if bytes.len() as u64 > cli::MAX_TEXT {
        bail!("{name}: CSV text larger than {} MiB", cli::MAX_TEXT >> 20);
    }
    let text = String::from_utf8(bytes).map_err(|_| usage!("{name}: neither a run record nor CSV text"))?;
    Ok((name, RecordOrCsv::Csv(text)))
}

/// Reads `--work`: a run record (busy time per virtual processor, and the byte time its
/// network implies) or CSV `vproc,cost`.
fn read_work(path: &std::path::Path, byte_time: Option<&str>, vprocs: u32) -> Result<TaskCosts> {
    let (name, input) = read_record_or_csv(path)?;
    let (given, implied) = match input {
        RecordOrCsv::Record(r) => {
            let (work, header) = TaskCosts::read_run_record(r).with_context(|| name.clone())?;
            (work, byte_time_of(&header))
        }
        RecordOrCsv::Csv(text) => (TaskCosts::parse_csv(&text).with_context(|| name.clone())?, None),
    };
    let byte_time = match byte_time {
        Some(t) => crate::time::parse_time(t).map_err(|m| usage!("--byte-time: {m}"))?,
        None => implied.unwrap_or(crate::mapper::tasks::DEFAULT_BYTE_TIME),
    };
    TaskCosts::new(&given, vprocs, byte_time).with_context(|| name.clone())
}

fn run(args: &Args) -> Result<i32> {
    if let Some(shell) = args.completions {
        cli::print_completions(shell, &mut <Args as clap::CommandFactory>::command(), "cpmap")?;
        return Ok(exit::OK);
    }
    if let (Some(c), Some(w)) = (&args.comm, &args.work) {
        if cli::is_stdin(c) && cli::is_stdin(w) {
            bail!("standard input can feed only one of --comm - and --work -");
        }
    }
    let mut comm = None;
    let mut record = None;
    if let Some(path) = &args.comm {
        match read_record_or_csv(path)? {
            (name, RecordOrCsv::Record(r)) => {
                let (m, header) = CommMatrix::read_run_record(r).with_context(|| name.clone())?;
                comm = Some(m);
                record = Some(header);
            }
            (name, RecordOrCsv::Csv(text)) => comm = Some(CommMatrix::parse_csv(&text).with_context(|| name.clone())?),
        }
    }
    let virt =
        topology("virtual", args.virtual_topology.as_deref(), record.as_ref().map(|h| h.virtual_topology.as_str()))?;
    let phys = topology("physical", args.physical.as_deref(), record.as_ref().map(|h| h.topology.as_str()))?;
    let mut candidates: Vec<(String, Mapping)> = Vec::new();
    for spec in &args.mappings {
        let mapping = match spec.strip_prefix('@') {
            Some(file) => {
                cli::note_input(std::path::Path::new(file));
                let text = std::fs::read_to_string(file).with_context(|| file.to_string())?;
                resolve(spec, Some((file, &text)), &virt, &phys, args.seed)?
            }
            None => resolve(spec, None, &virt, &phys, args.seed)?,
        };
        candidates.push((spec.clone(), mapping));
    }
    if candidates.is_empty() {
        // The run record's own mapping when it fits, else the default mapping.
        match record.as_ref().filter(|h| h.mapping.len() == virt.nodes() as usize) {
            Some(h) => candidates.push(("record".into(), Mapping::new(h.mapping.clone()))),
            None => candidates.push(("default".into(), resolve("default", None, &virt, &phys, args.seed)?)),
        }
    }
    let methods: Vec<SearchMethod> = args.search.clone();
    let costs = match &args.work {
        Some(path) => Some(read_work(path, args.byte_time.as_deref(), virt.nodes())?),
        None => {
            if args.byte_time.is_some() {
                bail!("--byte-time needs --work FILE");
            }
            None
        }
    };
    let deadline = match args.max_seconds {
        Some(s) if s.is_finite() && s > 0.0 && s <= 1e9 => {
            Some(std::time::Instant::now() + std::time::Duration::from_secs_f64(s))
        }
        Some(s) => bail!("--max-seconds {s}: give a number of seconds above 0 and at most 10^9"),
        None => None,
    };
    // The map file's output is opened (its temporary created) before the search, so that
    // an output that cannot be written (a missing folder, a directory, an input) is told
    // at once, not after minutes of searching.
    let mut map_out = match Sink::from_arg(args.output.as_deref()) {
        Sink::File(p) => Some(cli::AtomicFile::create(&p)?),
        Sink::Stdout => None,
    };
    // ^C during a search ends it with the best mapping found so far (reported, exit
    // 130); a second ^C ends cpmap at once.
    let stop = (!methods.is_empty()).then(cli::interrupt::catch_sigint);
    let budget = crate::mapper::Budget { max_steps: args.max_steps, deadline, stop };
    let request = SearchRequest { methods, seed: args.seed, budget };
    let progress = cli::Progress::spinner(if request.methods.is_empty() { "evaluating" } else { "searching" });
    let report = build_report(&virt, &phys, candidates, comm.as_ref(), costs.as_ref(), Some(&request));
    progress.finish();
    let report = report?;
    for e in &report.evals {
        for w in &e.mapping.warnings {
            eprintln!("cpmap: warning: {}: {w}", e.name);
        }
    }
    let text = match args.format {
        Format::Text => report.to_text(),
        Format::Csv => report.to_csv(),
        Format::Json => report.to_json(),
    };
    if args.emit == Some(Emit::Map) {
        let chosen = report.chosen().context("no mapping to emit")?;
        let file = MapFile { virt: virt.clone(), phys: phys.clone(), mapping: chosen.mapping.clone() };
        match map_out.take() {
            Some(mut f) => {
                let name = args.output.as_deref().unwrap_or(std::path::Path::new("-")).display().to_string();
                // The commit's errors name the file already; a write's do not.
                f.write_all(file.to_text().as_bytes()).with_context(|| name)?;
                f.commit()?;
            }
            None => {
                cli::write_stdout(file.to_text().as_bytes())?;
                return Ok(interrupted(stop));
            }
        }
    }
    cli::write_stdout(text.as_bytes())?;
    Ok(interrupted(stop))
}

/// Exit 130, saying so, when `^C` cut the search short (its best mapping so far was
/// reported); 0 otherwise.
fn interrupted(stop: Option<&std::sync::atomic::AtomicBool>) -> i32 {
    if stop.is_some_and(|s| s.load(std::sync::atomic::Ordering::SeqCst)) {
        eprintln!("cpmap: interrupted: the search stopped early; the best mapping it had found is reported");
        exit::INTERRUPTED
    } else {
        exit::OK
    }
}
