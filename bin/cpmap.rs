//! `cpmap` — evaluate, compare and search virtual-to-physical processor mappings.
use clap::Parser;
use cppe::tools::{cpmap, finish};

/// A refused allocation ends the tool with exit 3 and a line naming the limit.
#[global_allocator]
static ALLOC: cppe::hostmem::HostAlloc =
    cppe::hostmem::HostAlloc::new("cpmap", cppe::cli::exit::LIMIT, cppe::cli::interrupt::remove_temporaries);

fn main() {
    cppe::cli::interrupt::prepare();
    let args = cpmap::Args::parse();
    std::process::exit(finish("cpmap", cpmap::main(args)));
}
