//! `cpss` — simulate a vCode program on a configurable multicomputer.
use cppe::tools::{cpss, finish};

fn main() {
    cppe::cli::interrupt::prepare();
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    std::process::exit(finish("cpss", cpss::main(&argv)));
}
