//! The CPC front end: preprocess → lex → parse → check and generate vCode.
//!
//! Invariant: `lang` depends only on `vcode`; it knows nothing of the simulator.
pub mod ast;
pub mod codegen;
pub mod diag;

pub use diag::{Diagnostic, Severity, SourceFile, SourceMap};

use crate::vcode::Module;
use std::fmt;

/// A successful compilation: the program, its warnings and the files read.
#[derive(Debug)]
pub struct Compiled {
    pub module: Module,
    pub warnings: Vec<Diagnostic>,
    pub sources: SourceMap,
}

/// A failed compilation: every diagnostic (errors and warnings) in source order, and the
/// files they point into. `Display` renders them with source lines and carets.
#[derive(Debug)]
pub struct CompileError {
    pub diagnostics: Vec<Diagnostic>,
    pub sources: SourceMap,
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.sources.render_all(&self.diagnostics))?;
        let n = self.diagnostics.iter().filter(|d| d.is_error()).count();
        writeln!(f, "{n} error{} in {}", if n == 1 { "" } else { "s" }, self.sources.files.first().map_or("<input>", |s| s.name.as_str()))
    }
}

impl std::error::Error for CompileError {}

/// Compiles CPC source text: preprocess, parse, check and generate vCode. Semantic
/// checking runs only when the program parsed without errors, so one mistake does not
/// cascade into many.
pub fn compile(name: &str, text: &str, opts: &FrontOptions) -> Result<Compiled, CompileError> {
    let mut sources = SourceMap::default();
    let (program, mut diags) = parse_source(name, text, opts, &mut sources);
    let mut module = None;
    if !diags.iter().any(|d| d.is_error()) {
        let (m, more) = codegen::generate(&program, name, text);
        module = m;
        diags.extend(more);
    }
    diags.sort_by_key(|d| (d.loc.file, d.loc.line, d.loc.col));
    match module {
        Some(module) if !diags.iter().any(|d| d.is_error()) => Ok(Compiled { module, warnings: diags, sources }),
        _ => Err(CompileError { diagnostics: diags, sources }),
    }
}
