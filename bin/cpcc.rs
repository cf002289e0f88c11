//! `cpcc` — compile a CPC program to vCode.
use clap::Parser;
use cppe::tools::{cpcc, finish};

fn main() {
    cppe::cli::interrupt::prepare();
    let args = cpcc::Args::parse();
    std::process::exit(finish("cpcc", cpcc::main(args)));
}
