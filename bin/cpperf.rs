//! `cpperf` — analyse run records: speedup, efficiency, utilization, granularity, the
use clap::Parser;
use cppe::tools::{cpperf, finish};

fn main() {
    cppe::cli::interrupt::prepare();
    let args = cpperf::Args::parse();
    std::process::exit(finish("cpperf", cpperf::main(args)));
}
