//! The CPC front end: preprocess → lex → parse → check and generate vCode.
//!
//! [`parse_source`] runs the first three stages and returns the AST with every
//! diagnostic found; [`parse_text`] does the same without touching the file system
//! (for the fuzzer and tests).
//!
//! Invariant: `lang` depends only on `vcode`; it knows nothing of the simulator.
pub mod ast;
pub mod codegen;
pub mod diag;
pub mod headers;
pub mod lex;
pub mod parse;
pub mod preprocess;
pub mod token;

pub use diag::{Diagnostic, Severity, SourceFile, SourceMap};

/// Options of the front end that come from the command line and the environment.
#[derive(Clone, Debug, Default)]
pub struct FrontOptions {
    /// `-I` folders, searched after the including file's folder.
    pub include_dirs: Vec<std::path::PathBuf>,
    /// The folders of the `CPPE` environment variable, searched last (the caller splits
    /// the variable at `:`; the library never reads the environment itself).
    pub env_dirs: Vec<std::path::PathBuf>,
    /// Leave the syntax tree unfreed after [`compile`]: for a process that exits once
    /// the module is written (`cpcc`), freeing the tree's many small allocations would
    /// cost about a tenth of the compilation for nothing. A caller that compiles
    /// repeatedly leaves this false.
    pub leak_syntax_tree: bool,
    /// Include files are read only from inside these folders (resolved, symbolic links
    /// followed); others are refused with an error. `cpcc` gives the source's folder,
    /// the `-I` and `$CPPE` folders unless `--trust` (or only `--sandbox DIR`); `None`
    /// reads any file.
    pub sandbox: Option<Vec<std::path::PathBuf>>,
    /// `cpcc --error-limit N`: a failed compilation shows its first N errors (and the
    /// warnings among them), and "did you mean" suggestions are looked for only while
    /// fewer than N errors were found, so reporting stays linear in the number of
    /// errors. `None` shows every error.
    pub error_limit: Option<usize>,
}

/// Orders diagnostics by file, line and column, with the `#error`s first: an `#error`
/// (a header that is not provided says why in one) explains the errors that follow it.
fn sort_diagnostics(diags: &mut [Diagnostic]) {
    diags.sort_by_key(|d| (!d.message.starts_with("#error"), d.loc.file, d.loc.line, d.loc.col));
}

/// Preprocesses and parses the main file `text`, reading includes from disk. The main
/// file is added to `sources` under `name` (file 0 when `sources` starts empty), then
/// each include file as it is read. Diagnostics are sorted by file, line and column
/// (`#error`s first).
pub fn parse_source(
    name: &str,
    text: &str,
    opts: &FrontOptions,
    sources: &mut SourceMap,
) -> (ast::Program, Vec<Diagnostic>) {
    parse_with_loader(name, text, opts, sources, &mut preprocess::FsLoader::new(opts.sandbox.as_deref()))
}

/// [`parse_source`] with include files read through `loader`.
pub fn parse_with_loader(
    name: &str,
    text: &str,
    opts: &FrontOptions,
    sources: &mut SourceMap,
    loader: &mut dyn preprocess::IncludeLoader,
) -> (ast::Program, Vec<Diagnostic>) {
    let (program, diags, _) = front(name, text, opts, sources, loader);
    (program, diags)
}

/// Preprocess and parse; also says whether the preprocessor or lexer found an error
/// (then the token stream itself is uncertain and nothing more is checked).
fn front(
    name: &str,
    text: &str,
    opts: &FrontOptions,
    sources: &mut SourceMap,
    loader: &mut dyn preprocess::IncludeLoader,
) -> (ast::Program, Vec<Diagnostic>, bool) {
    let mut diags = Vec::new();
    let (toks, names, left) = preprocess::preprocess(name, text, opts, sources, loader, &mut diags);
    let pre_errors = diags.iter().any(Diagnostic::is_error);
    let mut program = parse::parse_tokens(&toks, &names, &mut diags);
    program.self_referenced = left.into_iter().map(|s| ast::Name::from(names.name(s))).collect();
    sort_diagnostics(&mut diags);
    (program, diags, pre_errors)
}

/// Parses `text` as file `<input>` with no include files available (only the built-in
/// headers): total on every input, for fuzzing.
pub fn parse_text(text: &str) -> (ast::Program, Vec<Diagnostic>) {
    let mut sources = SourceMap::default();
    parse_with_loader("<input>", text, &FrontOptions::default(), &mut sources, &mut preprocess::MemLoader::default())
}

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
    /// Errors shown at most ([`FrontOptions::error_limit`]); `None` shows all.
    pub error_limit: Option<usize>,
}

impl CompileError {
    /// The diagnostics shown: all of them, or those up to and including the
    /// `error_limit`-th error.
    pub fn shown(&self) -> &[Diagnostic] {
        let Some(limit) = self.error_limit else { return &self.diagnostics };
        let mut errors = 0;
        let end = self
            .diagnostics
            .iter()
            .position(|d| {
                errors += usize::from(d.is_error());
                errors > limit
            })
            .unwrap_or(self.diagnostics.len());
        &self.diagnostics[..end]
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = self.shown();
        f.write_str(&self.sources.render_all(shown))?;
        let n = self.diagnostics.iter().filter(|d| d.is_error()).count();
        let file = self.sources.files.first().map_or("<input>", |s| s.name.as_str());
        let plural = if n == 1 { "" } else { "s" };
        let m = shown.iter().filter(|d| d.is_error()).count();
        if m < n {
            writeln!(f, "{n} error{plural} in {file}; the first {m} shown (--error-limit {m}; 0 shows all)")
        } else {
            writeln!(f, "{n} error{plural} in {file}")
        }
    }
}

impl std::error::Error for CompileError {}

/// Compiles CPC source text: preprocess, parse, check and generate vCode. Semantic
/// checking runs on what parsed even when something did not (the parser skips a bad
/// statement or declaration whole), so a syntax error does not hide the type errors of
/// the rest of the file; names inside the skipped text are never reported undeclared, so
/// one mistake does not cascade into many. After a preprocessor or lexical error the
/// tokens themselves are in doubt, and only those errors and the syntax errors are given.
pub fn compile(name: &str, text: &str, opts: &FrontOptions) -> Result<Compiled, CompileError> {
    let mut sources = SourceMap::default();
    let mut loader = preprocess::FsLoader::new(opts.sandbox.as_deref());
    let (program, mut diags, pre_errors) = front(name, text, opts, &mut sources, &mut loader);
    let mut module = None;
    if !pre_errors {
        let errors_so_far = diags.iter().filter(|d| d.is_error()).count();
        let suggest_below = opts.error_limit.map(|l| l.saturating_sub(errors_so_far));
        let (m, more) = codegen::generate(&program, name, text, &sources, suggest_below);
        module = m;
        diags.extend(more);
    }
    if opts.leak_syntax_tree {
        std::mem::forget(program);
    }
    if diags.iter().any(|d| d.is_error()) {
        module = None;
    }
    // What cpcc writes, cpss must load: the module passes the same checks as a `.cod`
    // read from disk. The checks the code generator makes (type nesting, sizes) say
    // where; this catches what no check of its own covers, at the top of the file.
    if let Some(m) = &module {
        if let Err(e) = crate::vcode::cod::verify(m) {
            let at = ast::Loc { file: 0, line: 1, col: 1, len: 0 };
            diags.push(Diagnostic::error(at, format!("the program exceeds a limit of the vCode format: {e}")));
            module = None;
        }
    }
    sort_diagnostics(&mut diags);
    match module {
        Some(module) if !diags.iter().any(|d| d.is_error()) => Ok(Compiled { module, warnings: diags, sources }),
        _ => Err(CompileError { diagnostics: diags, sources, error_limit: opts.error_limit }),
    }
}
