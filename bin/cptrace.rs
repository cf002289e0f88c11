//! `cptrace` — convert a run record to a trace format.
use clap::Parser;
use cppe::tools::{cptrace, finish};

fn main() {
    cppe::cli::interrupt::prepare();
    let args = cptrace::Args::parse();
    std::process::exit(finish("cptrace", cptrace::main(args)));
}
