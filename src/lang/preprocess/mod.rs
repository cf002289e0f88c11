//! The CPC preprocessor, working on tokens from [`super::lex`].
//!
//! Supports `#include "file"` / `<file>` (the standard headers built in, see
//! [`super::headers`]), object- and function-like `#define` with `#`, `##` and `...`,
//! `#undef`, `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`/`#endif`, `#error`, `#warning`,
//! `#pragma` (`once` honoured, others ignored), `#line` (for `__LINE__` and
//! `__FILE__`; diagnostics keep real positions) and the
//! predefined `__LINE__`, `__FILE__`, `__STDC__`, `__STDC_VERSION__`, `__COUNTER__` and
//! gcc's type macros (`__SIZE_TYPE__`, ...). Macro expansion
//! uses a stack of replacement segments: a macro is *active* while its replacement is
//! being read, and an active macro's name met again is left alone (C's rule); the names
//! so left are reported with the output, so that the compiler can explain an
//! "undeclared" one as a recursive macro expansion. Arguments are
//! fully expanded before substitution, as in C. Expanded tokens carry the location of
//! the macro use; argument tokens keep their own. A token budget and depth limits keep
//! hostile input (exponential macros, include cycles, deep nesting) bounded.
//!
//! Files are read through an [`IncludeLoader`], so tests and the fuzzer need no disk.
//! Depends on `lex`, `token`, `diag`, `ast::Loc` and [`super::FrontOptions`].
//!
//! This module holds the loaders, the entry point [`preprocess`], the shared types and the
//! reading of the files' tokens; `expand` the macro expansion, `directive` the
//! directives, `cond` the evaluation of `#if` conditions, `tests` the tests.
use super::ast::Loc;
use super::diag::{Diagnostic, SourceMap};
use super::lex::{lex, Lexed};
use super::token::{words, Interner, Keyword, Punct, Sym, Token, TokenKind};
use super::FrontOptions;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Where `#include` gets file contents from.
pub trait IncludeLoader {
    /// The text of the regular file at `path`, or `None` if there is no such readable file.
    fn read(&mut self, path: &Path) -> Option<String>;

    /// Why `path` may not be read at all (outside a sandbox), if it may not.
    fn refused(&self, _path: &Path) -> Option<String> {
        None
    }
}

/// Reads include files from disk (regular files only, at most [`FsLoader::MAX_BYTES`]),
/// from inside its sandbox folders only when it has them.
#[derive(Clone, Debug, Default)]
pub struct FsLoader {
    /// The sandbox folders, resolved (`None`: any readable file).
    roots: Option<Vec<PathBuf>>,
}

impl FsLoader {
    /// Larger files are treated as missing rather than read into memory.
    pub const MAX_BYTES: u64 = 64 << 20;

    /// A loader confined to the folders of `sandbox` when given (a folder that cannot be
    /// resolved admits nothing; an empty list refuses every include file).
    pub fn new(sandbox: Option<&[PathBuf]>) -> FsLoader {
        FsLoader { roots: sandbox.map(|dirs| dirs.iter().filter_map(|d| std::fs::canonicalize(d).ok()).collect()) }
    }
}

impl IncludeLoader for FsLoader {
    fn refused(&self, path: &Path) -> Option<String> {
        let roots = self.roots.as_ref()?;
        // Only an existing file is resolved; a missing one is simply not found.
        let real = std::fs::canonicalize(path).ok()?;
        (!roots.iter().any(|r| real.starts_with(r))).then(|| {
            let folders: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
            format!(
                "`{}` is outside the sandbox (the folders {}; give -I DIR for another folder, or --trust)",
                path.display(),
                folders.join(", ")
            )
        })
    }

    fn read(&mut self, path: &Path) -> Option<String> {
        if self.refused(path).is_some() {
            return None;
        }
        // Only regular files: a FIFO or /dev/zero named in an #include must not hang us.
        let meta = std::fs::metadata(path).ok()?;
        if !meta.is_file() || meta.len() > Self::MAX_BYTES {
            return None;
        }
        let bytes = std::fs::read(path).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// An in-memory file system for tests and fuzzing (an empty one finds nothing).
#[derive(Clone, Debug, Default)]
pub struct MemLoader {
    /// File contents by path, as the preprocessor forms paths (`dir.join(name)`).
    pub files: BTreeMap<PathBuf, String>,
}

impl IncludeLoader for MemLoader {
    fn read(&mut self, path: &Path) -> Option<String> {
        self.files.get(path).cloned()
    }
}

/// The folder name under which built-in headers are keyed (never a real path: it is not
/// a valid file name on the systems we run on, and nothing is read from it).
const BUILTIN_DIR: &str = "<built-in>";
/// Nested `#include` limit.
const MAX_INCLUDE_DEPTH: usize = 64;
/// Limit on nested macro calls inside macro arguments.
const MAX_MACRO_DEPTH: u32 = 128;
/// Tokens macro expansion may produce: this many per token of the main file, plus
/// [`MIN_EXPANDED_TOKENS`]; generous for real programs, a wall for exponential macros.
const EXPANDED_TOKENS_PER_TOKEN: usize = 32;
/// See [`EXPANDED_TOKENS_PER_TOKEN`].
const MIN_EXPANDED_TOKENS: usize = 1 << 20;

/// Runs the preprocessor over the main file `text` (added to `sources` as `name`).
/// Returns the token stream, ending with one [`TokenKind::Eof`], the interner that
/// names its identifiers and strings, and the macro names left unexpanded inside their
/// own expansion. Problems are appended to `diags`.
pub fn preprocess(
    name: &str,
    text: &str,
    opts: &FrontOptions,
    sources: &mut SourceMap,
    loader: &mut dyn IncludeLoader,
    diags: &mut Vec<Diagnostic>,
) -> (Vec<Token>, Interner, Vec<Sym>) {
    let mut names = Interner::new();
    let file = sources.add(name, text);
    let (toks, end) = lex(text, file, &mut names, diags);
    let dir = Path::new(name).parent().map(Path::to_path_buf).unwrap_or_default();
    let toks_len = toks.len();
    let mut pp = Pre {
        names,
        sources,
        loader,
        opts,
        diags,
        files: vec![Frame { toks: Rc::new(toks), pos: 0, dir, key: None, conds: Vec::new() }],
        cache: BTreeMap::new(),
        macros: Vec::new(),
        budget: MIN_EXPANDED_TOKENS.saturating_add(toks_len.saturating_mul(EXPANDED_TOKENS_PER_TOKEN)),
        budget_reported: false,
        once: Vec::new(),
        line_marks: Vec::new(),
        self_referenced: Vec::new(),
        pushed_macros: BTreeMap::new(),
        counter: 0,
    };
    pp.predefine();
    let mut out = Vec::with_capacity(pp.files[0].toks.len() + 1);
    let mut ctx = Ctx { segs: Vec::new(), list: None, inherited: Vec::new(), depth: 0 };
    loop {
        if ctx.segs.is_empty() {
            pp.copy_plain_tokens(&mut out);
        }
        match pp.next_expanded(&mut ctx) {
            Some(t) => out.push(t.tok),
            None => break,
        }
    }
    out.push(Token { kind: TokenKind::Eof, loc: end });
    let left = std::mem::take(&mut pp.self_referenced);
    (out, pp.names, left)
}

/// A token inside the preprocessor.
#[derive(Clone, Copy, Debug)]
struct PTok {
    tok: Token,
    /// Already found to name an active macro: never expand (and never re-report) it.
    noexpand: bool,
}

/// One file being read.
struct Frame {
    toks: Rc<Vec<Lexed>>,
    pos: usize,
    /// Folder searched first for `#include "…"` in this file.
    dir: PathBuf,
    /// The path it was found at (for include-cycle detection); `None` for the main file.
    key: Option<PathBuf>,
    conds: Vec<Cond>,
}

/// An open `#ifdef`/`#ifndef`.
struct Cond {
    loc: Loc,
    directive: &'static str,
    parent_active: bool,
    active: bool,
    taken: bool,
    in_else: bool,
}

#[derive(Clone)]
enum BodyTok {
    Tok(TokenKind),
    Param(usize),
    /// `#param`: the argument's spelling as a string literal.
    Stringize(usize),
    /// `##`: the tokens on either side become one.
    Paste,
}

/// Macros whose replacement depends on where they are used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dynamic {
    Line,
    File,
    /// `__COUNTER__`: 0, 1, 2, ... at each expansion (a GNU extension that headers and
    /// test suites use for unique names).
    Counter,
}

struct Macro {
    /// `Some` for a function-like macro.
    params: Option<Vec<Sym>>,
    /// A variadic macro (`...` last): its last parameter is `__VA_ARGS__`, the
    /// arguments from there on with their commas.
    variadic: bool,
    body: Vec<BodyTok>,
    /// `__LINE__` and `__FILE__`.
    dynamic: Option<Dynamic>,
}

impl Macro {
    fn same_as(&self, other: &Macro) -> bool {
        self.params == other.params
            && self.variadic == other.variadic
            && self.body.len() == other.body.len()
            && self.body.iter().zip(&other.body).all(|(a, b)| match (a, b) {
                (BodyTok::Tok(x), BodyTok::Tok(y)) => x == y,
                (BodyTok::Param(x), BodyTok::Param(y)) | (BodyTok::Stringize(x), BodyTok::Stringize(y)) => x == y,
                (BodyTok::Paste, BodyTok::Paste) => true,
                _ => false,
            })
    }
}

/// The replacement of one macro use, being read.
struct Seg {
    toks: Vec<PTok>,
    pos: usize,
    name: Sym,
}

/// An expansion context: the main stream (reading files) or one macro argument.
struct Ctx {
    segs: Vec<Seg>,
    /// `Some((tokens, next))` when expanding an argument list instead of the files.
    list: Option<(Vec<PTok>, usize)>,
    /// Macros active around this argument's expansion.
    inherited: Vec<Sym>,
    depth: u32,
}

impl Ctx {
    fn is_active(&self, s: Sym) -> bool {
        self.inherited.contains(&s) || self.segs.iter().any(|g| g.name == s)
    }
}

struct Pre<'a> {
    names: Interner,
    sources: &'a mut SourceMap,
    loader: &'a mut dyn IncludeLoader,
    opts: &'a FrontOptions,
    diags: &'a mut Vec<Diagnostic>,
    files: Vec<Frame>,
    /// Files already read: path → lexed tokens, so a header included twice is lexed once.
    cache: BTreeMap<PathBuf, Rc<Vec<Lexed>>>,
    /// Macro definitions indexed by symbol number.
    macros: Vec<Option<Rc<Macro>>>,
    budget: usize,
    budget_reported: bool,
    /// Files that said `#pragma once`.
    once: Vec<PathBuf>,
    /// `#line` directives read: `(file, the directive's line, what the next line is
    /// numbered, the file name in force after it: its own or the file's previous one)`,
    /// in reading order (per file, in line order).
    line_marks: Vec<(u32, u32, i64, Option<String>)>,
    /// Macro names left unexpanded inside their own expansion.
    self_referenced: Vec<Sym>,
    /// The next value of `__COUNTER__`.
    counter: u32,
    /// `#pragma push_macro` stacks, by symbol number.
    pushed_macros: BTreeMap<u32, Vec<Option<Rc<Macro>>>>,
}

fn punct(k: TokenKind, p: Punct) -> bool {
    k == TokenKind::Punct(p)
}

impl Pre<'_> {
    /// The predefined macros: `__LINE__`, `__FILE__`, `__STDC__` (1),
    /// `__STDC_VERSION__` (199901, C99), `__STDC_HOSTED__` (1) and `__CPPE__` (1).
    fn predefine(&mut self) {
        let set = |pp: &mut Self, name: &str, body: Vec<BodyTok>, dynamic: Option<Dynamic>| {
            let s = pp.names.intern(name);
            let i = s.0 as usize;
            if pp.macros.len() <= i {
                pp.macros.resize(i + 1, None);
            }
            pp.macros[i] = Some(Rc::new(Macro { params: None, variadic: false, body, dynamic }));
        };
        set(self, "__LINE__", Vec::new(), Some(Dynamic::Line));
        set(self, "__FILE__", Vec::new(), Some(Dynamic::File));
        set(self, "__STDC__", vec![BodyTok::Tok(TokenKind::Int(1))], None);
        set(self, "__STDC_VERSION__", vec![BodyTok::Tok(TokenKind::Int(199_901))], None);
        set(self, "__STDC_HOSTED__", vec![BodyTok::Tok(TokenKind::Int(1))], None);
        set(self, "__CPPE__", vec![BodyTok::Tok(TokenKind::Int(1))], None);
        set(self, "__COUNTER__", Vec::new(), Some(Dynamic::Counter));
        // The type names gcc predefines for the headers: size_t is unsigned int here.
        let (u, i) = (BodyTok::Tok(TokenKind::Kw(Keyword::Unsigned)), BodyTok::Tok(TokenKind::Kw(Keyword::Int)));
        set(self, "__SIZE_TYPE__", vec![u.clone(), i.clone()], None);
        set(self, "__PTRDIFF_TYPE__", vec![i.clone()], None);
        set(self, "__WCHAR_TYPE__", vec![i.clone()], None);
        set(self, "__INTPTR_TYPE__", vec![i], None);
        set(self, "__CHAR_BIT__", vec![BodyTok::Tok(TokenKind::Int(8))], None);
        set(self, "__INT_MAX__", vec![BodyTok::Tok(TokenKind::Int(i64::from(i32::MAX)))], None);
        set(self, "__LONG_MAX__", vec![BodyTok::Tok(TokenKind::Long(i64::MAX))], None);
    }

    /// The source text a token was read from, when `loc` points at text of its length.
    fn source_text(&self, loc: Loc) -> Option<&str> {
        let line = self.sources.line_text(loc.file, loc.line)?;
        let start = (loc.col as usize).checked_sub(1)?;
        line.get(start..start + loc.len as usize)
    }

    fn error(&mut self, loc: Loc, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(loc, msg));
    }

    fn macro_of(&self, s: Sym) -> Option<Rc<Macro>> {
        self.macros.get(s.0 as usize).and_then(|m| m.clone())
    }

    fn word_sym(k: TokenKind) -> Option<Sym> {
        match k {
            TokenKind::Ident(s) => Some(s),
            TokenKind::Kw(k) => Some(k.sym()),
            _ => None,
        }
    }

    /// The next token of the files after directives and conditional skipping.
    fn next_file_token(&mut self) -> Option<PTok> {
        loop {
            let frame = self.files.last_mut()?;
            let Some(&lx) = frame.toks.get(frame.pos) else {
                let frame = self.files.pop()?;
                for c in frame.conds.iter().rev() {
                    self.diags.push(Diagnostic::error(c.loc, format!("unterminated `#{}`", c.directive)));
                }
                if self.files.is_empty() {
                    return None;
                }
                continue;
            };
            frame.pos += 1;
            if lx.line_start && punct(lx.tok.kind, Punct::Hash) {
                self.directive(lx.tok);
                continue;
            }
            if frame.conds.last().is_some_and(|c| !c.active) {
                continue;
            }
            return Some(PTok { tok: lx.tok, noexpand: false });
        }
    }

    /// Copies the current file's tokens to `out` up to the first one that needs the
    /// general path: a directive's `#`, the name of a defined macro, or the end of the
    /// file. Only for the main stream with no replacement being read; inside an
    /// inactive `#if` branch it copies nothing. The tokens copied are exactly those
    /// [`Pre::next_expanded`] would return one by one (a plain token is returned as is),
    /// without its per-token calls.
    fn copy_plain_tokens(&mut self, out: &mut Vec<Token>) {
        let Some(frame) = self.files.last_mut() else { return };
        if frame.conds.last().is_some_and(|c| !c.active) {
            return;
        }
        let macros = &self.macros;
        let rest = frame.toks.get(frame.pos..).unwrap_or(&[]);
        let n = rest
            .iter()
            .position(|lx| {
                (lx.line_start && punct(lx.tok.kind, Punct::Hash))
                    || Self::word_sym(lx.tok.kind)
                        .is_some_and(|s| macros.get(s.0 as usize).is_some_and(Option::is_some))
            })
            .unwrap_or(rest.len());
        out.extend(rest[..n].iter().map(|lx| lx.tok));
        frame.pos += n;
    }
}

/// C escapes for the bytes of a literal delimited by `quote`.
fn escape_c(bytes: &[u8], quote: u8) -> String {
    let mut out = String::new();
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            0 => out.push_str("\\0"),
            _ if b == quote => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out
}

mod cond;
mod directive;
mod expand;

#[cfg(test)]
mod tests;
