//! The CPC front end: preprocess → lex → parse → check and generate vCode.
//!
//! Invariant: `lang` depends only on `vcode`; it knows nothing of the simulator.
pub mod ast;
pub mod codegen;
pub mod diag;

pub use diag::{Diagnostic, Severity, SourceFile, SourceMap};
