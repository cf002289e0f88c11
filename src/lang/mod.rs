//! The CPC front end: preprocess → lex → parse → check and generate vCode.
//!
//! [`parse_source`] runs the first three stages and returns the AST with every
//! diagnostic found; [`parse_text`] does the same without touching the file system
//! (for the fuzzer and tests).
//!
//! Invariant: `lang` depends only on `vcode`; it knows nothing of the simulator.
pub mod ast;
pub mod diag;
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
}

/// Preprocesses and parses the main file `text`, reading includes from disk. The main
/// file is added to `sources` under `name` (file 0 when `sources` starts empty), then
/// each include file as it is read. Diagnostics are sorted by file, line and column.
pub fn parse_source(
    name: &str,
    text: &str,
    opts: &FrontOptions,
    sources: &mut SourceMap,
) -> (ast::Program, Vec<Diagnostic>) {
    parse_with_loader(name, text, opts, sources, &mut preprocess::FsLoader)
}

/// [`parse_source`] with include files read through `loader`.
pub fn parse_with_loader(
    name: &str,
    text: &str,
    opts: &FrontOptions,
    sources: &mut SourceMap,
    loader: &mut dyn preprocess::IncludeLoader,
) -> (ast::Program, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let (toks, names) = preprocess::preprocess(name, text, opts, sources, loader, &mut diags);
    let program = parse::parse_tokens(&toks, &names, &mut diags);
    diags.sort_by_key(|d| (d.loc.file, d.loc.line, d.loc.col));
    (program, diags)
}

/// Parses `text` as file `<input>` with no include files available (only the built-in
/// headers): total on every input, for fuzzing.
pub fn parse_text(text: &str) -> (ast::Program, Vec<Diagnostic>) {
    let mut sources = SourceMap::default();
    parse_with_loader("<input>", text, &FrontOptions::default(), &mut sources, &mut preprocess::MemLoader::default())
}
