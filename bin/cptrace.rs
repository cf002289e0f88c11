//! `cptrace` — convert a run record to a trace format.
use clap::Parser;
use cppe::tools::{cptrace, finish};

/// A refused allocation ends the tool with exit 3 and a line naming the limit.
#[global_allocator]
static ALLOC: cppe::hostmem::HostAlloc =
    cppe::hostmem::HostAlloc::new("cptrace", cppe::cli::exit::LIMIT, cppe::cli::interrupt::remove_temporaries);

fn main() {
    cppe::cli::interrupt::prepare();
    let args = cptrace::Args::parse();
    std::process::exit(finish("cptrace", cptrace::main(args)));
}
