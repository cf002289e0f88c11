//! `cpss` — simulate a vCode program on a configurable multicomputer.
use super::{bail, usage, Context, Result};
use crate::cli::{self, exit, AtomicFile};
use crate::net;
use crate::sim::debug::{run_session, SessionFault, SessionIo, SharedOut};
use crate::sim::params::ParamFlags;
use crate::sim::recorder::{exit_status, run_header, run_stats, Recorder};
use crate::sim::run::{self as runs, SweepAxis};
use crate::sim::setup::{configuration, setup, RunOptions};
use crate::sim::{Io, Limit, NetThread, Observer, SimError, Simulator, Stats, Watch};
use crate::vcode::cod;
use clap::{CommandFactory, Parser, ValueEnum};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// Simulate a CPC program (a .cod from cpcc) on a simulated multicomputer and report its
/// performance.
///
/// The program's output and the final statistics go to standard output. When the program
/// itself comes from standard input and standard output is not a terminal (`cpcc p.c |
/// cpss | cpperf`), the run record goes to standard output instead, and the program's
/// output and statistics to standard error.
#[derive(Parser, Debug)]
#[command(name = "cpss", version, about = "simulate a CPC program on a configurable multicomputer", long_about = None)]
pub struct Args {
    /// The .cod file; `-` or none reads standard input.
    file: Option<PathBuf>,
    /// Write the run record to FILE (`-`: standard output; the program's output and the statistics then go to standard error).
    #[arg(short = 't', long = "trace", value_name = "FILE")]
    trace: Option<PathBuf>,
    /// The program's standard input (default: cpss's own, unless the program came from it).
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,
    /// Physical architecture, e.g. mesh:8x8, torus:16x16, ring:256, hypercube:6 (default: the
    /// program's phyArch, else mesh:4x4).
    #[arg(long, value_name = "TOPO:SIZES")]
    topology: Option<String>,
    /// Simulate the machine of a description file: processor types with per-instruction
    /// timings, a link list with latencies and speeds (man page, MACHINE FILES).
    #[arg(long, value_name = "FILE", conflicts_with = "topology")]
    machine: Option<PathBuf>,
    /// From the probe with this label (or the N-th probe of the run, `#N`) on, place
    /// new processes by MAPPING: a mapping per parallel phase; may be repeated.
    #[arg(long, value_name = "KEY=MAPPING")]
    phase_mapping: Vec<String>,
    /// Simulate the machine file's topology with this id instead of its `hardware = 1`
    /// one.
    #[arg(long, value_name = "N", requires = "machine")]
    topology_id: Option<i64>,
    /// Multiply the costs of one group of machine parameters by F (repeatable; groups
    /// overlap and multiply): op:MNEMONIC, function:NAME, type:NAME, local, global,
    /// proc-type:N, link-speed:N, latency:N, spmd, spmd:MNEMONIC.
    #[arg(long, value_name = "GROUP=F")]
    scale_group: Vec<String>,
    /// Repeat the run N times (at most 100000) with seeds SEED, SEED+1, ... and report the
    /// mean, sd and 95% confidence interval of every statistic.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    runs: u32,
    /// With --runs: also the busy time of every source line over the runs (mean, sd,
    /// interval, min, max), as statistics line_N.
    #[arg(long)]
    lines: bool,
    /// Exit with the program's exit status (main's return value or exit's argument,
    /// modulo 256) when the run completes; cpss's own failures keep their codes.
    #[arg(long)]
    exit_status: bool,
    /// Also state the host's time of the run (host_seconds) in --stats csv/json and in
    /// --runs and --sweep output, and with it in the statistics the network's simulated
    /// work (flit_hops). Off by default, so that identical runs give identical bytes;
    /// the text report always states it.
    #[arg(long)]
    host_time: bool,
    /// NAME=VALUE: an environment variable the program's getenv("NAME") finds
    /// (repeatable; the host's environment is never visible to the program).
    #[arg(long, value_name = "NAME=VALUE", value_parser = parse_env)]
    env: Vec<(String, String)>,
    /// Run N MPI ranks: N processes each running main with its own globals, rank r on
    /// virtual processor r mod V [default: for a program that calls MPI_Init, one per
    /// virtual processor; otherwise 1]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_048_576))]
    ranks: Option<u32>,
    /// Run every combination of parameter values in parallel, one CSV row each:
    /// PARAM=v1,v2,... (PARAM is a flag name without --; repeat for a cartesian product).
    #[arg(long, value_name = "PARAM=VALUES")]
    sweep: Vec<String>,
    /// Print a completion script for SHELL and exit.
    #[arg(long, value_name = "SHELL")]
    completions: Option<clap_complete::Shell>,
    /// Virtual architecture (default: the program's arch, else the physical one).
    #[arg(long = "virtual", value_name = "TOPO:SIZES")]
    virtual_topology: Option<String>,
    /// default, identity, random, ring2line, torus2mesh, or a mapping string
    /// 'name(x,y) = [y1, y2].'
    #[arg(long, value_name = "MAPPING")]
    mapping: Option<String>,
    /// A map file written by `cpmap --emit map`.
    #[arg(long, value_name = "FILE", conflicts_with = "mapping")]
    map_file: Option<PathBuf>,
    /// Record every link crossing of every packet in the run record.
    #[arg(long)]
    trace_routes: bool,
    /// Report each link's busy time and utilization with the statistics.
    #[arg(long)]
    link_stats: bool,
    /// Override one instruction's cost: OP=T (mnemonic from `cpcc -S`, any case).
    #[arg(long, value_name = "OP=T")]
    cost: Vec<String>,
    /// Read cost overrides, one OP=T per line (# comments).
    #[arg(long, value_name = "FILE")]
    cost_file: Option<PathBuf>,
    /// Format of the final statistics.
    #[arg(long, value_enum, default_value_t = StatsFormat::Text)]
    stats: StatsFormat,
    /// Print the utilization profile, one row per STEP time units.
    #[arg(long, value_name = "STEP", num_args = 0..=1, default_missing_value = "10")]
    profile: Option<String>,
    /// Host threads for a single run: 1 (the default) runs everything on one; 2 runs the
    /// wormhole network on a second thread, ahead of the processors (same results).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    threads: u32,
    /// Debug the run: read debugger commands from standard input (`help` lists them).
    #[arg(long)]
    debug: bool,
    /// Debug the run with the commands in FILE and print the session's transcript.
    #[arg(long, value_name = "FILE")]
    commands: Option<PathBuf>,
    /// The debugger's transcript: text as typed, or json (one object per command:
    /// command, output, program_output).
    #[arg(long, value_enum, default_value_t = TranscriptFormat::Text)]
    transcript: TranscriptFormat,
    /// Let the program's fopen reach only files inside DIR (paths resolved, links
    /// followed) instead of the working folder; others are a runtime error.
    #[arg(long, value_name = "DIR", conflicts_with = "trust")]
    sandbox: Option<PathBuf>,
    /// Lift the sandbox: the program's fopen reaches any file the user may open, and
    /// --max-output is none unless given.
    #[arg(long)]
    trust: bool,
    /// Read long options from a TOML file (`link-delay = 5`; man page, CONFIGURATION);
    /// the command line overrides it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Do not read ./cppe.toml.
    #[arg(long)]
    no_config: bool,
    /// Do not say on stderr that ./cppe.toml was read (it is said otherwise, as it
    /// changes results without being named on the command line).
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Rerun with the options recorded in a run record (-t); the command line overrides
    /// them.
    #[arg(long, value_name = "RUN.cpt")]
    config_from: Option<PathBuf>,
    /// List every parameter (unit, default, range, models, whether the debugger may set
    /// it) and exit.
    #[arg(long)]
    list_params: bool,
    /// The format of --list-params.
    #[arg(long, value_enum, default_value_t = ListFormat::Text, requires = "list_params")]
    format: ListFormat,
    #[command(flatten)]
    params: ParamFlags,
    /// After `--`: the program's arguments, `argv[1]` on (`argv[0]` is the .cod file as
    /// given, or the source name when the program comes from standard input).
    #[arg(last = true, value_name = "ARGS")]
    program_args: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ListFormat {
    Text,
    Json,
}

/// Options a configuration may not hold.
/// A configuration cannot lift or move the sandbox: `./cppe.toml` may come with the
/// program.
const NOT_CONFIGURABLE: &[&str] =
    &["completions", "config", "no-config", "config-from", "list-params", "format", "trust", "sandbox"];
/// Options left out of the run record's configuration: where output goes and how the
/// host works, not what is simulated.
const NOT_RECORDED: &[&str] = &[
    "completions",
    "list-params",
    "format",
    "config",
    "no-config",
    "quiet",
    "config-from",
    "trace",
    "stats",
    "debug",
    "commands",
    "threads",
    "runs",
    "sweep",
    "exit-status",
    "trust",
    "sandbox",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum TranscriptFormat {
    /// Prompts, commands and answers as on a terminal.
    Text,
    /// JSON Lines, one object per command.
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum StatsFormat {
    Text,
    Csv,
    Json,
    /// Print no statistics (only the program's output).
    None,
}

/// `cpss`: the run, runs or sweep the command line `argv` (with the configuration files'
/// options under it) asks for.
pub fn main(argv: &[std::ffi::OsString]) -> Result<i32> {
    let (args, recorded) = configured(argv)?;
    if !args.quiet && !args.no_config && args.completions.is_none() && Path::new("cppe.toml").is_file() {
        eprintln!("cpss: note: options read from ./cppe.toml (the command line overrides them; --no-config ignores the file, --quiet silences this note)");
    }
    run(&args, recorded)
}

/// The arguments with the configuration files' options merged under the command line's
/// (`./cppe.toml`, `--config`, `--config-from`), and the options to record.
fn configured(argv: &[std::ffi::OsString]) -> Result<(Args, Vec<(String, String)>)> {
    use crate::cli::config::{merged_args, recorded, Layer};
    use clap::FromArgMatches;
    let first = Args::try_parse_from(argv)?;
    let mut layers = Vec::new();
    let project = Path::new("cppe.toml");
    if !first.no_config && first.completions.is_none() && project.is_file() {
        let (name, text) = read_text(project)?;
        layers.push(Layer::from_toml(&name, "cpss", &text)?);
    }
    if let Some(p) = &first.config {
        let (name, text) = read_text(p)?;
        layers.push(Layer::from_toml(&name, "cpss", &text)?);
    }
    if let Some(p) = &first.config_from {
        let f = cli::open_input(p)?;
        let (_, header) = crate::trace::record::RunRecordReader::open(f).with_context(|| p.display().to_string())?;
        if header.options.is_empty() {
            bail!("{}: the record holds no options (written by an older cpss)", p.display());
        }
        layers.push(Layer::from_pairs(&p.display().to_string(), &header.options));
    }
    let merged = merged_args(&Args::command(), argv, &layers, NOT_CONFIGURABLE)?;
    let matches = Args::command().try_get_matches_from(merged)?;
    let args = Args::from_arg_matches(&matches)?;
    let options = recorded(&Args::command(), &matches, NOT_RECORDED);
    Ok((args, options))
}

/// The options and the program's input of one run of `program` with `flags` as cpss's
/// command line gives them (configuration files included): a row of `cpperf calibrate`.
/// Flags that make more or other than one run are refused.
pub(crate) fn row_options(program: &Path, flags: &[String]) -> Result<(RunOptions, Vec<u8>)> {
    let mut argv: Vec<std::ffi::OsString> = vec!["cpss".into()];
    argv.extend(flags.iter().map(std::ffi::OsString::from));
    argv.push(program.into());
    let (args, _) = configured(&argv)?;
    for (given, flag) in [
        (args.runs > 1, "--runs"),
        (!args.sweep.is_empty(), "--sweep"),
        (args.trace.is_some(), "-t"),
        (args.debug, "--debug"),
        (args.commands.is_some(), "--commands"),
        (args.profile.is_some(), "--profile"),
        (args.lines, "--lines"),
        (args.input.as_deref().is_some_and(cli::is_stdin), "--input -"),
    ] {
        if given {
            bail!("{flag}: an observation is compared with one run");
        }
    }
    let opts = run_options(&args)?;
    let stdin = match &args.input {
        Some(p) => std::fs::read(p).with_context(|| format!("--input {}", p.display()))?,
        None => Vec::new(),
    };
    Ok((opts, stdin))
}

/// The run options the flags give (parameters, mapping, machine, cost files, groups).
fn run_options(args: &Args) -> Result<RunOptions> {
    let opts = RunOptions {
        topology: args.topology.clone(),
        virtual_topology: args.virtual_topology.clone(),
        mapping: args.mapping.clone(),
        map_file: args.map_file.as_deref().map(read_text).transpose()?,
        cost_overrides: args.cost.clone(),
        cost_file: args.cost_file.as_deref().map(read_text).transpose()?,
        profile_step: match args.profile.as_deref().map(|v| units("profile", v)).transpose()? {
            Some(0) => bail!("--profile: the step must be more than 0"),
            step => step,
        },
        ..RunOptions::default()
    };
    let mut opts = opts;
    let name = match &args.file {
        Some(f) if f.as_os_str() != "-" => f.display().to_string(),
        _ => String::new(),
    };
    opts.program_args = std::iter::once(name).chain(args.program_args.iter().cloned()).collect();
    opts.program_env = args.env.clone();
    opts.ranks = args.ranks;
    opts.host_time = args.host_time;
    // Every parameter of the tables, given or default.
    let values: Vec<(&str, &str)> = args.params.values.iter().map(|(n, v)| (*n, v.as_str())).collect();
    opts.set_many(&values)?;
    if args.lines && args.runs < 2 {
        bail!(
            "--lines sums line costs over --runs N (N at least 2); one run's are in its record (cpss -t, then cpperf)"
        );
    }
    opts.lines = args.lines;
    for pm in &args.phase_mapping {
        let Some((key, spec)) = pm.split_once('=').filter(|(k, s)| !k.is_empty() && !s.is_empty()) else {
            bail!("--phase-mapping {pm}: give KEY=MAPPING (a probe label or #N, then a mapping)");
        };
        opts.phase_mappings.push((key.to_string(), spec.to_string()));
    }
    if let Some(p) = &args.machine {
        let (name, text) = read_text(p)?;
        opts.machine = Some(std::sync::Arc::new(crate::machine::Machine::parse(&name, &text)?));
        opts.topology_id = args.topology_id;
    }
    for g in &args.scale_group {
        opts.set("scale-group", g)?;
    }
    // The sandbox: the working folder unless `--sandbox DIR` moves it or `--trust` lifts
    // it (with the output cap, unless `--max-output` is given).
    opts.sandbox = match (&args.sandbox, args.trust) {
        (_, true) => None,
        (Some(d), false) => Some(std::fs::canonicalize(d).with_context(|| format!("--sandbox {}", d.display()))?),
        (None, false) => Some(
            std::env::current_dir()
                .and_then(std::fs::canonicalize)
                .context("the working folder (the default sandbox)")?,
        ),
    };
    if args.trust && opts.max_output.is_none() {
        opts.max_output = Some(u64::MAX);
    }
    opts.net.validate()?;
    Ok(opts)
}

fn units(flag: &str, v: &str) -> Result<u64> {
    crate::time::parse_time(v).map_err(|e| usage!("--{flag}: {e}"))
}

/// A text file given by an option, or standard input for `-`; its name for messages.
fn read_text(path: &Path) -> Result<(String, String)> {
    let input = cli::read_input_within(Some(path), cli::MAX_TEXT, None)?;
    let text = String::from_utf8(input.bytes).map_err(|_| usage!("{}: not UTF-8 text", input.name))?;
    Ok((input.name, text))
}

fn run(args: &Args, recorded: Vec<(String, String)>) -> Result<i32> {
    if let Some(shell) = args.completions {
        let mut out = Vec::new();
        clap_complete::generate(shell, &mut Args::command(), "cpss", &mut out);
        cli::write_stdout(&out)?;
        return Ok(exit::OK);
    }
    if args.list_params {
        let text = match args.format {
            ListFormat::Text => crate::sim::params::listing_text(),
            ListFormat::Json => crate::sim::params::listing_json(),
        };
        cli::write_stdout(text.as_bytes())?;
        return Ok(exit::OK);
    }
    cli::require_stdout()?;
    if !args.debug && args.commands.is_none() {
        // Every run but a debugging session stops cleanly at `^C`; caught from the start,
        // a `^C` during the setup (a large sweep's configurations) stops it before any
        // run begins, rather than killing cpss with nothing written.
        cli::interrupt::catch_sigint();
    }
    let from_stdin = args.file.as_ref().is_none_or(|f| f.as_os_str() == "-");
    // Standard input feeds one thing at most.
    let stdin_users: Vec<&str> = [
        ("the program", from_stdin),
        ("--map-file -", args.map_file.as_deref().is_some_and(cli::is_stdin)),
        ("--cost-file -", args.cost_file.as_deref().is_some_and(cli::is_stdin)),
        ("--input -", args.input.as_deref().is_some_and(cli::is_stdin)),
        ("--commands -", args.commands.as_deref().is_some_and(cli::is_stdin)),
        ("--config -", args.config.as_deref().is_some_and(cli::is_stdin)),
    ]
    .into_iter()
    .filter_map(|(what, uses)| uses.then_some(what))
    .collect();
    if stdin_users.len() > 1 {
        bail!("standard input can feed only one of {}", stdin_users.join(" and "));
    }
    let repeated = if args.runs > 1 {
        Some("--runs")
    } else if !args.sweep.is_empty() {
        Some("--sweep")
    } else {
        None
    };
    if let Some(flag) = repeated {
        for (given, other) in [
            (args.trace.is_some(), "-t"),
            (args.commands.is_some(), "--commands"),
            (args.debug, "--debug"),
            (args.profile.is_some(), "--profile"),
            (args.exit_status, "--exit-status"),
        ] {
            if given {
                bail!("{flag} runs many simulations and summarizes them: {other} needs a single run");
            }
        }
    }
    // An explicit `--input -` is the default: the program reads standard input.
    let program_input = args.input.as_ref().filter(|p| !cli::is_stdin(p));
    if args.debug && from_stdin {
        bail!("--debug reads commands from standard input: give the program as a file");
    }
    // `-t -`: the run record on standard output, as `-` means for the other tools.
    let trace_to_stdout = args.trace.as_ref().is_some_and(|p| p.as_os_str() == "-");
    if trace_to_stdout && cli::stdout_is_terminal() {
        bail!("refusing to write a binary run record to the terminal: give -t FILE or redirect");
    }
    if trace_to_stdout && (args.debug || args.commands.is_some()) {
        bail!("-t -: the run record and the debugger's transcript cannot both go to standard output");
    }
    // One step off: C source given where its compiled form belongs.
    if let Some(src) = args.file.as_deref().filter(|f| f.extension().is_some_and(|e| e == "c" || e == "cpc")) {
        let cod = src.with_extension("cod");
        bail!(
            "{}: this is C source, not a .cod file: compile it with cpcc first (cpcc {} && cpss {})",
            src.display(),
            src.display(),
            cod.display()
        );
    }
    let input =
        cli::read_input_within(args.file.as_deref(), cli::MAX_INPUT, Some((&cod::MAGIC, "a .cod file (bad magic)")))?;
    if input.bytes.is_empty() && input.path.is_none() {
        bail!("no program on standard input: give a .cod file (cpss prog.cod), or pipe one in (cpcc < prog.c | cpss)");
    }
    let module = cod::decode(&input.bytes).map_err(|e| usage!("{}: {e}", input.name))?;
    let opts = run_options(args)?;
    if !args.sweep.is_empty() || args.runs > 1 {
        // What the machine file says that drives nothing, once for all the runs (a single
        // run says it with its setup's warnings below).
        if let Some(m) = &opts.machine {
            let m = match opts.topology_id {
                Some(id) => std::borrow::Cow::Owned(m.select_topology(id)?),
                None => std::borrow::Cow::Borrowed(&**m),
            };
            for w in m.warnings() {
                eprintln!("cpss: warning: {w}");
            }
        }
        let stdin = match program_input {
            Some(p) => {
                let mut b = Vec::new();
                std::io::Read::read_to_end(&mut cli::open_input(p).context("--input")?, &mut b)
                    .with_context(|| format!("--input {}", p.display()))?;
                b
            }
            None if from_stdin => Vec::new(),
            None => {
                let mut b = Vec::new();
                std::io::Read::read_to_end(&mut std::io::stdin(), &mut b).context("reading standard input")?;
                b
            }
        };
        return if args.sweep.is_empty() {
            repeat(args, &module, &opts, &stdin)
        } else {
            sweep(args, &module, &opts, &stdin)
        };
    }
    let mut s = setup(&module, &opts)?;
    s.config.trace_routes = args.trace_routes;
    s.config.link_stats = args.link_stats;
    s.config.net_thread = match (args.threads, std::env::var("CPSS_NET_THREAD").as_deref()) {
        (1, _) => NetThread::Off,
        (_, Ok("always")) => NetThread::Always,
        _ => NetThread::Auto,
    };
    for w in &s.warnings {
        eprintln!("cpss: warning: {w}");
    }
    // Where things go (SPEC §1).
    let record_to_stdout = trace_to_stdout || (args.trace.is_none() && from_stdin && !cli::stdout_is_terminal());
    let text_to_stderr = record_to_stdout;
    // With machine-readable statistics on standard output, it carries only them: the
    // program's output goes to standard error (`cpss p.cod --stats json | jq .`).
    let machine_stats = matches!(args.stats, StatsFormat::Csv | StatsFormat::Json);
    // A debugging session's transcript and the program's output share standard output.
    let debugging = args.debug || args.commands.is_some();
    let session_out = debugging.then(|| SharedOut::new(Box::new(std::io::BufWriter::new(std::io::stdout()))));
    for p in [program_input, args.commands.as_ref(), args.machine.as_ref()].into_iter().flatten() {
        cli::note_input(p);
    }
    // Every named input is noted by now: the program's output, the transcript or the
    // statistics must not go onto one of them (`cpss p.cod --input in.txt >> in.txt`).
    cli::stdout_is_an_input()?;
    let program_stdin: Box<dyn BufRead> = match program_input {
        Some(p) => Box::new(std::io::BufReader::new(cli::open_input(p).context("--input")?)),
        None if from_stdin || args.debug => Box::new(std::io::empty()),
        None => Box::new(std::io::BufReader::new(std::io::stdin())),
    };
    let captured = (debugging && args.transcript == TranscriptFormat::Json).then(crate::sim::debug::Captured::default);
    let program_stdout: Box<dyn Write> = if let Some(c) = &captured {
        Box::new(c.clone())
    } else if let Some(o) = &session_out {
        Box::new(o.clone())
    } else if text_to_stderr || machine_stats {
        Box::new(std::io::LineWriter::new(std::io::stderr()))
    } else {
        Box::new(std::io::BufWriter::new(std::io::stdout()))
    };
    let slowest = s.config.speeds.iter().copied().max().unwrap_or(crate::time::TICKS_PER_UNIT);
    let overhead = s.net.send_overhead.max(s.net.recv_overhead);
    let config = configuration(&module, &s, &opts, recorded.clone());
    let header = run_header(&module, &s, recorded);
    enum Sink {
        File(AtomicFile),
        Stdout(std::io::BufWriter<std::io::Stdout>),
    }
    impl Write for Sink {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            match self {
                Sink::File(f) => f.write(b),
                Sink::Stdout(s) => s.write(b),
            }
        }
        fn flush(&mut self) -> std::io::Result<()> {
            match self {
                Sink::File(f) => f.flush(),
                Sink::Stdout(s) => s.flush(),
            }
        }
    }
    let recorder = match (&args.trace, record_to_stdout) {
        (_, true) => {
            Some(Recorder::new(Sink::Stdout(std::io::BufWriter::new(std::io::stdout())), &header, slowest, overhead)?)
        }
        (Some(p), false) => Some(Recorder::new(Sink::File(AtomicFile::create(p)?), &header, slowest, overhead)?),
        (None, false) => None,
    };
    let observer: Option<Box<dyn Observer>> = recorder.as_ref().map(Recorder::handle);
    let io = Io { stdin: program_stdin, stdout: program_stdout, stderr: Box::new(std::io::stderr()) };
    let mut result = if let Some(out) = session_out {
        let network = net::build(&s.net, &s.physical, &s.links)?;
        let mut sim = Simulator::new(&module, s.config.clone(), network, io)?;
        if let Some(o) = observer {
            sim.set_observer(o);
        }
        let commands: Box<dyn BufRead> = match args.commands.as_ref().filter(|p| !cli::is_stdin(p)) {
            Some(p) => Box::new(std::io::BufReader::new(cli::open_input(p).context("--commands")?)),
            None => Box::new(std::io::BufReader::new(std::io::stdin())),
        };
        let echo = args.commands.is_some();
        match run_session(&mut sim, SessionIo { commands, out, echo, json: captured }) {
            Ok(None | Some(Err(SimError::LimitExceeded { limit: Limit::Debugger, .. }))) => return Ok(exit::OK),
            Ok(Some(r)) => r,
            Err(SessionFault::Output(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(exit::BROKEN_PIPE),
            Err(SessionFault::Output(e)) => return Err(e).context("writing the debugger's transcript"),
            Err(fault @ SessionFault::LineTooLong { .. }) => {
                let from = args.commands.as_ref().filter(|p| !cli::is_stdin(p));
                let from = from.map_or("standard input".to_string(), |p| p.display().to_string());
                eprintln!("cpss: {from}: {fault}: the session ended without finishing the run");
                return Ok(exit::USAGE);
            }
        }
    } else {
        // `^C` ends the run at the next quantum with the statistics so far.
        let watch = std::sync::Arc::new(Watch::new(cli::interrupt::catch_sigint()));
        s.config.watch = Some(std::sync::Arc::clone(&watch));
        let start = std::time::Instant::now();
        let progress = cli::Progress::start(move || progress_line(&watch, start));
        let result = runs::simulate_to_exit(&module, &s, io, observer);
        progress.finish();
        result?
    };
    let pprocs = s.physical.nodes();
    let (stats, code, message): (Option<&Stats>, i32, String) = match &result {
        Ok(st) => (Some(st), exit::OK, String::new()),
        Err(SimError::Runtime { kind: crate::sim::RuntimeError::Output { kind, .. }, .. })
            if *kind == std::io::ErrorKind::BrokenPipe =>
        {
            return Ok(exit::BROKEN_PIPE);
        }
        Err(e @ SimError::Runtime { .. }) => (None, e.exit_code(), e.to_string()),
        Err(e @ SimError::Deadlock { stats, .. }) => (Some(stats), e.exit_code(), e.to_string()),
        Err(e @ SimError::LimitExceeded { stats, .. }) => (Some(stats), e.exit_code(), e.to_string()),
        Err(e @ SimError::NetworkDeadlock { stats, .. }) => (Some(stats), e.exit_code(), e.to_string()),
    };
    let interrupted = matches!(result, Err(SimError::LimitExceeded { limit: Limit::Interrupted, .. }));
    if interrupted {
        // The run record is dropped unfinished: its temporary file goes with it.
        let when = stats.map_or(String::new(), |st| format!(" at time {}", crate::time::format_time(st.par_ticks)));
        eprintln!("cpss: interrupted{when}: the statistics so far follow; no run record written");
        let stats = for_report(&mut result, args, &config);
        let mut err = std::io::BufWriter::new(std::io::stderr().lock());
        write_report(args, stats, &mut err).and_then(|()| err.flush()).context("writing the statistics")?;
        return Ok(exit::INTERRUPTED);
    }
    if let Some(r) = recorder {
        let rs = stats.map(|st| run_stats(st, pprocs, exit_status(&result), message.clone())).unwrap_or_default();
        let mut out = Recorder::finish(r, &rs).context("writing the run record")?;
        out.flush().context("writing the run record")?;
        if let Sink::File(f) = out {
            f.commit()?;
        }
    }
    let mut text = String::new();
    match &result {
        Err(SimError::Deadlock { waiters, .. }) => {
            text.push_str("cpss: deadlock: no process can run and no message is in flight\n");
            for w in waiters {
                text.push_str(&format!("  {w}\n"));
            }
        }
        Err(SimError::NetworkDeadlock { cycle, .. }) => {
            text.push_str("cpss: network deadlock: messages are in flight and none can move; the cycle:\n");
            for c in cycle {
                text.push_str(&format!("  {c}\n"));
            }
        }
        Err(e) => text.push_str(&format!("cpss: {e}\n")),
        Ok(_) => {}
    }
    if code != exit::OK {
        eprint!("{text}");
    }
    let stats = for_report(&mut result, args, &config);
    if text_to_stderr || code != exit::OK {
        let mut err = std::io::BufWriter::new(std::io::stderr().lock());
        write_report(args, stats, &mut err).and_then(|()| err.flush()).context("writing the statistics")?;
    } else {
        cli::require_stdout()?;
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        write_report(args, stats, &mut out).and_then(|()| out.flush())?;
    }
    match &result {
        // The program's own status, as a shell gives a process's: modulo 256.
        Ok(st) if args.exit_status => Ok(st.exit_status & 0xff),
        _ => Ok(code),
    }
}

/// The statistics of `result`, if it has any, with what the report adds: the run's
/// configuration, and whether it shows the host time. (Set in place: the statistics of
/// a million processors are not copied for it.)
fn for_report<'a>(
    result: &'a mut Result<Stats, SimError>,
    args: &Args,
    config: &crate::sim::RunConfig,
) -> Option<&'a Stats> {
    let st: &mut Stats = match result {
        Ok(st) => st,
        Err(SimError::Deadlock { stats, .. })
        | Err(SimError::LimitExceeded { stats, .. })
        | Err(SimError::NetworkDeadlock { stats, .. }) => stats,
        Err(_) => return None,
    };
    st.config = Some(config.clone());
    st.report_host_time = args.host_time;
    Some(st)
}

/// The statistics in the format asked for, with the profile when asked, onto `out`.
/// The text is written as it is made (a line per processor: a million of them are not
/// held whole).
fn write_report(args: &Args, stats: Option<&Stats>, out: &mut dyn Write) -> std::io::Result<()> {
    let Some(st) = stats else { return Ok(()) };
    // The profile takes the statistics' format: a chart after the text, a second CSV
    // table after a blank line, a `profile` field of the JSON document.
    let text = match args.stats {
        StatsFormat::Text => {
            let mut w = cli::FmtIo::new(&mut *out);
            let written = st.write_text(&mut w);
            w.finish()?;
            written.map_err(|_| std::io::Error::other("formatting the statistics"))?;
            st.to_profile()
        }
        StatsFormat::Csv if args.profile.is_some() => format!("{}\n{}", st.to_csv(), st.profile_csv()),
        StatsFormat::Csv => st.to_csv(),
        StatsFormat::Json => st.to_json(),
        StatsFormat::None => st.to_profile(),
    };
    out.write_all(text.as_bytes())
}

/// The progress line of a single run: simulated time, instructions per host second since
/// `start`, processes alive.
fn progress_line(w: &Watch, start: std::time::Instant) -> String {
    use std::sync::atomic::Ordering::Relaxed;
    let rate = w.instructions.load(Relaxed) as f64 / start.elapsed().as_secs_f64().max(1e-3);
    format!(
        "simulated time {} · {:.1} M instructions/s · {} processes alive",
        crate::time::format_time(w.time.load(Relaxed)),
        rate / 1e6,
        w.alive.load(Relaxed)
    )
}

/// `--runs N`: the summary of every statistic over the runs.
fn repeat(args: &Args, module: &crate::vcode::Module, opts: &RunOptions, stdin: &[u8]) -> Result<i32> {
    let progress = cli::Progress::spinner("simulating");
    let stop = cli::interrupt::catch_sigint();
    let results = runs::repeat(module, opts, stdin, args.runs, stop);
    progress.finish();
    let mut code = exit::OK;
    let mut stats = Vec::new();
    let missing = results.iter().filter(|r| r.is_none()).count();
    for (i, r) in results.iter().enumerate() {
        let seed = runs::run_seed(opts.seed, i as u32);
        let Some(r) = r else { continue };
        match r {
            Err(e) => bail!("run {} (seed {seed}): {e}", i + 1),
            Ok(o) => {
                if let Err(e) = o {
                    eprintln!("cpss: run {} (seed {seed}): {e}", i + 1);
                    code = code.max(e.exit_code());
                }
                stats.extend(runs::outcome_stats(o));
            }
        }
    }
    let rows = runs::summarize(&stats);
    let config = stats.first().and_then(|s| s.config.as_ref());
    let report = match args.stats {
        StatsFormat::Csv => runs::summary_csv(&rows),
        StatsFormat::None => String::new(),
        StatsFormat::Json => runs::summary_json(&rows, stats.len(), config),
        StatsFormat::Text => runs::summary_text(&rows, stats.len(), config),
    };
    cli::write_stdout(report.as_bytes())?;
    if missing > 0 || stop.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!(
            "cpss: interrupted: {missing} of {} runs not run; the summary is of the {} that ended",
            args.runs,
            stats.len()
        );
        return Ok(exit::INTERRUPTED);
    }
    Ok(code)
}

/// Says on stderr why a run of a sweep's configuration `vals` (`what`: which run, or
/// nothing) failed, if it did; returns its exit code (OK when it did not fail).
fn sweep_failure(
    axes: &[SweepAxis],
    vals: &[String],
    what: &str,
    r: &Result<crate::sim::run::Outcome, runs::RunError>,
) -> i32 {
    let (message, code) = match r {
        Err(e) => (e.to_string(), exit::USAGE),
        Ok(Err(e)) => (e.to_string(), e.exit_code()),
        Ok(Ok(_)) => return exit::OK,
    };
    let at: Vec<String> = axes.iter().zip(vals).map(|(a, v)| format!("{}={v}", a.name)).collect();
    eprintln!("cpss: {}{what}: {message}", at.join(" "));
    code
}

/// `--sweep`: one CSV row per configuration of the cartesian product.
fn sweep(args: &Args, module: &crate::vcode::Module, opts: &RunOptions, stdin: &[u8]) -> Result<i32> {
    let axes: Vec<SweepAxis> = args.sweep.iter().map(|s| SweepAxis::parse(s)).collect::<Result<_, _>>()?;
    let configs = runs::sweep_configs(opts, &axes)?;
    let repeated = args.runs > 1;
    let bar = if cli::stderr_is_terminal() {
        let total = configs.len() as u64 * u64::from(args.runs.max(1));
        let bar = indicatif::ProgressBar::new(total);
        let what = if repeated { "runs" } else { "configurations" };
        if let Ok(style) =
            indicatif::ProgressStyle::with_template(&format!("{{bar:40}} {{pos}}/{{len}} {what} {{elapsed}}"))
        {
            bar.set_style(style);
        }
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    // ^C: no further configuration (or run) starts; the finished ones are written.
    let stop = cli::interrupt::catch_sigint();
    if repeated {
        // Each configuration repeated: its statistics' mean, sd and 95 % interval.
        let all = runs::sweep_repeated(module, &configs, stdin, args.runs, &|| bar.inc(1), stop);
        bar.finish_and_clear();
        // A configuration is written when all its runs ended.
        let (mut done, mut results) = (Vec::new(), Vec::new());
        for (c, rs) in configs.iter().zip(all) {
            if rs.iter().all(|r| r.is_some()) {
                done.push(c.clone());
                results.push(rs.into_iter().flatten().collect::<Vec<_>>());
            }
        }
        let mut code = exit::OK;
        for ((vals, _), rs) in done.iter().zip(&results) {
            for (i, r) in rs.iter().enumerate() {
                code = code.max(sweep_failure(&axes, vals, &format!(" run {i}"), r));
            }
        }
        let report = match args.stats {
            StatsFormat::Json => runs::sweep_repeated_json(&axes, &done, &results, args.runs),
            StatsFormat::None => String::new(),
            StatsFormat::Csv | StatsFormat::Text => runs::sweep_repeated_csv(&axes, &done, &results),
        };
        cli::write_stdout(report.as_bytes())?;
        return Ok(interrupted_sweep(stop, configs.len(), done.len()).unwrap_or(code));
    }
    let all = runs::sweep(module, &configs, stdin, &|| bar.inc(1), stop);
    bar.finish_and_clear();
    let (mut done, mut results) = (Vec::new(), Vec::new());
    for (c, r) in configs.iter().zip(all) {
        if let Some(r) = r {
            done.push(c.clone());
            results.push(r);
        }
    }
    let mut code = exit::OK;
    for ((vals, _), r) in done.iter().zip(&results) {
        code = code.max(sweep_failure(&axes, vals, "", r));
    }
    let report = match args.stats {
        StatsFormat::Json => runs::sweep_json(&axes, &done, &results),
        StatsFormat::None => String::new(),
        StatsFormat::Csv | StatsFormat::Text => runs::sweep_csv(&axes, &done, &results),
    };
    cli::write_stdout(report.as_bytes())?;
    Ok(interrupted_sweep(stop, configs.len(), done.len()).unwrap_or(code))
}

/// After a sweep: when `^C` stopped it, says how many configurations are missing from
/// the rows written and gives the exit code (130).
fn interrupted_sweep(stop: &std::sync::atomic::AtomicBool, all: usize, done: usize) -> Option<i32> {
    if !stop.load(std::sync::atomic::Ordering::Relaxed) && done == all {
        return None;
    }
    eprintln!("cpss: interrupted: {} of {all} configurations missing; the {done} finished are written", all - done);
    Some(exit::INTERRUPTED)
}

/// `--env NAME=VALUE`: the name is non-empty and holds no `=`.
fn parse_env(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((n, v)) if !n.is_empty() => Ok((n.to_string(), v.to_string())),
        _ => Err(format!("`{s}` is not NAME=VALUE")),
    }
}
