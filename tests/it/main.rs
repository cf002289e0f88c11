//! Integration tests: run the real binaries on `fixtures/` and compare with expected
//! files. `UPDATE_EXPECT=1 cargo test` rewrites the expected files; review the diff.
mod architecture;
mod browser;
mod calibrate;
mod conformance;
mod cpcc;
mod cpmap;
mod cpperf;
mod cpss;
mod cptrace;
mod debug;
mod docs;
mod figures;
mod fuzz;
mod fuzz_readers;
mod generated;
mod harden;
mod harness;
mod machine;
mod mpi;
mod network;
mod params;
mod truth;
mod tutorial;
