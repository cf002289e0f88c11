//! `cpcc` — compile a CPC program to vCode.
use clap::Parser;
use cppe::tools::{cpcc, finish};

/// A refused allocation ends the tool with exit 3 and a line naming the limit.
#[global_allocator]
static ALLOC: cppe::hostmem::HostAlloc =
    cppe::hostmem::HostAlloc::new("cpcc", cppe::cli::exit::LIMIT, cppe::cli::interrupt::remove_temporaries);

fn main() {
    cppe::cli::interrupt::prepare();
    let args = cpcc::Args::parse();
    std::process::exit(finish("cpcc", cpcc::main(args)));
}
