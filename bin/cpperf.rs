//! `cpperf` — analyse run records: speedup, efficiency, utilization, granularity, the
use clap::Parser;
use cppe::tools::{cpperf, finish};

/// A refused allocation ends the tool with exit 3 and a line naming the limit.
#[global_allocator]
static ALLOC: cppe::hostmem::HostAlloc =
    cppe::hostmem::HostAlloc::new("cpperf", cppe::cli::exit::LIMIT, cppe::cli::interrupt::remove_temporaries);

fn main() {
    cppe::cli::interrupt::prepare();
    let args = cpperf::Args::parse();
    std::process::exit(finish("cpperf", cpperf::main(args)));
}
