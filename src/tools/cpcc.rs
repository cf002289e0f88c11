//! `cpcc` — compile a CPC program to vCode.
use super::{bail, usage, Context, Result};
use crate::cli::{self, exit, Sink};
use crate::lang::{self, FrontOptions};
use crate::vcode::{cod, listing};
use clap::{Parser, ValueEnum};
use std::path::PathBuf;

/// Compile a CPC (Concordia Parallel C) program to vCode.
///
/// Writes FILE's `.cod` beside it (`prog.c` gives `prog.cod`), as `gcc -c` and `gzip`
/// name their outputs, whatever standard output is; to standard output only when asked
/// (`-o -`) or when the source came from standard input (`cpcc < prog.c | cpss`, `cpcc
/// -`). Diagnostics go to standard error.
#[derive(Parser, Debug)]
#[command(name = "cpcc", version, about = "compile a CPC (Concordia Parallel C) program to vCode", long_about = None)]
pub struct Args {
    /// Print a completion script for SHELL and exit.
    #[arg(long, value_name = "SHELL")]
    completions: Option<clap_complete::Shell>,
    /// CPC source file; `-` or none reads standard input.
    file: Option<PathBuf>,
    /// Write the output here (`-` for standard output).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    /// Print the vCode listing (source line, vCode index, mnemonic, operands) instead of a .cod.
    #[arg(short = 'S')]
    listing: bool,
    /// What to produce: a .cod file or the listing (`-S` is `--emit listing`).
    #[arg(long, value_enum, value_name = "KIND")]
    emit: Option<Emit>,
    /// Read include files only from inside DIR (paths resolved, links followed), not
    /// from the default folders (the source's, -I and $CPPE folders); others are refused.
    #[arg(long, value_name = "DIR", conflicts_with = "trust")]
    sandbox: Option<PathBuf>,
    /// Lift the sandbox: an #include may read any file the user can read.
    #[arg(long)]
    trust: bool,
    /// Show at most N errors (0: all); "did you mean" notes are looked for only
    /// within them.
    #[arg(long, value_name = "N", default_value_t = 20)]
    error_limit: usize,
    /// Add DIR to the `#include` search path (after the source's folder; before $CPPE).
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Emit {
    Cod,
    Listing,
}

/// `cpcc`: compiles on a thread with a large stack (the checker and code generator walk
/// the syntax tree recursively; the parser bounds its depth, and the large stack leaves a
/// wide margin under that bound).
pub fn main(args: Args) -> Result<i32> {
    let worker = std::thread::Builder::new().stack_size(256 << 20).spawn(move || run(&args));
    match worker {
        Ok(handle) => handle.join().unwrap_or_else(|_| Err(usage!("the compiler failed"))),
        Err(e) => Err(e).context("starting the compiler's thread"),
    }
}

fn run(args: &Args) -> Result<i32> {
    if let Some(shell) = args.completions {
        cli::print_completions(shell, &mut <Args as clap::CommandFactory>::command(), "cpcc")?;
        return Ok(exit::OK);
    }
    let input = cli::read_input_within(args.file.as_deref(), cli::MAX_TEXT, None)?;
    if input.bytes.starts_with(&cod::MAGIC) {
        bail!("{}: this is a compiled .cod file, not C source: run it with cpss {}", input.name, input.name);
    }
    let text = String::from_utf8(input.bytes).map_err(|e| {
        let ok = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = ok.iter().filter(|&&b| b == b'\n').count() + 1;
        usage!("{}:{line}: the source is not UTF-8 text", input.name)
    })?;
    let env_dirs = std::env::var("CPPE").map(|v| cli::split_search_path(&v)).unwrap_or_default();
    // The sandbox: the folders an include may come from (the search path itself, unless
    // `--sandbox` names one or `--trust` lifts it). A source on standard input sits in
    // the working folder.
    let sandbox = match (&args.sandbox, args.trust) {
        (_, true) => None,
        (Some(d), false) => Some(vec![d.clone()]),
        (None, false) => {
            let here = input.path.as_deref().and_then(std::path::Path::parent).filter(|d| !d.as_os_str().is_empty());
            let mut dirs = vec![here.map_or_else(|| PathBuf::from("."), std::path::Path::to_path_buf)];
            dirs.extend(args.include.iter().cloned());
            dirs.extend(env_dirs.iter().cloned());
            Some(dirs)
        }
    };
    let opts = FrontOptions {
        include_dirs: args.include.clone(),
        env_dirs,
        // cpcc exits once the module is written.
        leak_syntax_tree: true,
        sandbox,
        error_limit: (args.error_limit > 0).then_some(args.error_limit),
    };
    let compiled = match lang::compile(&input.name, &text, &opts) {
        Ok(c) => c,
        Err(failure) => {
            eprint!("{failure}");
            return Ok(exit::USAGE);
        }
    };
    if !compiled.warnings.is_empty() {
        eprint!("{}", compiled.sources.render_all(&compiled.warnings));
    }
    // The files the program includes are inputs too: no output may replace one
    // (`cpcc i.c -o inc/h.h`). Built-in headers (`<stdio.h>`) are not on disk.
    for f in compiled.sources.files.iter().skip(1).filter(|f| !f.name.starts_with('<')) {
        cli::note_input(std::path::Path::new(&f.name));
    }
    let emit = if args.listing { Emit::Listing } else { args.emit.unwrap_or(Emit::Cod) };
    if emit == Emit::Listing {
        Sink::from_arg(args.output.as_deref()).write(listing::listing(&compiled.module).as_bytes())?;
        return Ok(exit::OK);
    }
    let bytes = cod::try_encode(&compiled.module)?;
    let sink = match (&args.output, &input.path) {
        (Some(p), _) => Sink::from_arg(Some(p)),
        (None, Some(src)) => Sink::File(src.with_extension("cod")),
        (None, None) => Sink::Stdout,
    };
    if sink == Sink::Stdout && cli::stdout_is_terminal() {
        bail!("refusing to write a binary .cod to the terminal: give -o FILE or redirect");
    }
    sink.write(&bytes).context("writing the .cod")?;
    Ok(exit::OK)
}
