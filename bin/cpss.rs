//! `cpss` — simulate a vCode program on a configurable multicomputer.
use cppe::tools::{cpss, finish};

/// A refused allocation ends the tool with exit 3 and a line naming the limit.
#[global_allocator]
static ALLOC: cppe::hostmem::HostAlloc =
    cppe::hostmem::HostAlloc::new("cpss", cppe::cli::exit::LIMIT, cppe::cli::interrupt::remove_temporaries);

fn main() {
    cppe::cli::interrupt::prepare();
    cppe::hostmem::tune_for_many_blocks();
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    std::process::exit(finish("cpss", cpss::main(&argv)));
}
