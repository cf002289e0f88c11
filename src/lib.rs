//! # cppe — the Concordia Parallel Programming Environment as a Unix toolchain
//!
//! (crate documentation: see the module map below)
pub mod lang;
pub mod net;
pub mod sim;
pub mod vcode;
