//! `cpmap` — evaluate, compare and search virtual-to-physical processor mappings.
use clap::Parser;
use cppe::tools::{cpmap, finish};

fn main() {
    cppe::cli::interrupt::prepare();
    let args = cpmap::Args::parse();
    std::process::exit(finish("cpmap", cpmap::main(args)));
}
