//! The CPC preprocessor, working on tokens from [`super::lex`].
//!
//! Supports `#include "file"` / `<file>` (the standard headers built in, see
//! [`super::headers`]), object- and function-like `#define` with `#`, `##` and `...`,
//! `#undef`, `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`/`#endif`, `#error`, `#warning`,
//! `#pragma` (`once` honoured, others ignored), `#line` (for `__LINE__` and
//! `__FILE__`; diagnostics keep real positions) and the
//! predefined `__LINE__`, `__FILE__`, `__STDC__`, `__STDC_VERSION__`. Macro expansion
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
/// from inside its sandbox folder only when it has one.
#[derive(Clone, Debug, Default)]
pub struct FsLoader {
    /// The sandbox, resolved (`None`: any readable file).
    root: Option<PathBuf>,
}

impl FsLoader {
    /// Larger files are treated as missing rather than read into memory.
    pub const MAX_BYTES: u64 = 64 << 20;

    /// A loader confined to `sandbox` when given (a folder that cannot be resolved
    /// confines to nothing: every include file is refused).
    pub fn new(sandbox: Option<PathBuf>) -> FsLoader {
        FsLoader {
            root: sandbox.map(|d| std::fs::canonicalize(&d).unwrap_or_else(|_| PathBuf::from("/nonexistent\0"))),
        }
    }
}

impl IncludeLoader for FsLoader {
    fn refused(&self, path: &Path) -> Option<String> {
        let root = self.root.as_ref()?;
        // Only an existing file is resolved; a missing one is simply not found.
        let real = std::fs::canonicalize(path).ok()?;
        (!real.starts_with(root))
            .then(|| format!("`{}` is outside the sandbox {} (cpcc --sandbox)", path.display(), root.display()))
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

/// An `#if` expression being evaluated: precedence climbing over macro-expanded tokens.
struct CondExpr<'t> {
    toks: &'t [Token],
    pos: usize,
    /// Where to point when the expression ends early (the directive).
    end: Loc,
    /// Nesting of parentheses, prefix operators and `?:` so far (at most
    /// [`super::parse::MAX_DEPTH`], as in the parser: no input can overflow the stack).
    depth: u32,
}

type CondResult = Result<i64, (Loc, String)>;

impl CondExpr<'_> {
    fn peek(&self) -> Option<TokenKind> {
        self.toks.get(self.pos).map(|t| t.kind)
    }

    fn eat(&mut self, p: Punct) -> bool {
        let yes = self.peek().is_some_and(|k| punct(k, p));
        self.pos += usize::from(yes);
        yes
    }

    fn here(&self) -> Loc {
        self.toks.get(self.pos).map_or(self.end, |t| t.loc)
    }

    fn ternary(&mut self) -> CondResult {
        let c = self.binary(0)?;
        if !self.eat(Punct::Question) {
            return Ok(c);
        }
        if self.depth >= super::parse::MAX_DEPTH {
            let n = super::parse::MAX_DEPTH;
            return Err((self.here(), format!("`#if` expression nested too deep (more than {n} levels)")));
        }
        self.depth += 1;
        let ab = self.branches();
        self.depth -= 1;
        let (a, b) = ab?;
        Ok(if c != 0 { a } else { b })
    }

    /// The two branches of `?:` after the `?`.
    fn branches(&mut self) -> Result<(i64, i64), (Loc, String)> {
        let a = self.ternary()?;
        if !self.eat(Punct::Colon) {
            return Err((self.here(), "expected `:` in the `#if` expression".into()));
        }
        Ok((a, self.ternary()?))
    }

    /// Binary operators of precedence `min` and above (C's table, `||` lowest).
    fn binary(&mut self, min: u8) -> CondResult {
        let mut lhs = self.unary()?;
        loop {
            let Some(TokenKind::Punct(p)) = self.peek() else { return Ok(lhs) };
            let prec = match p {
                Punct::PipePipe => 1,
                Punct::AmpAmp => 2,
                Punct::Pipe => 3,
                Punct::Caret => 4,
                Punct::Amp => 5,
                Punct::EqEq | Punct::Ne => 6,
                Punct::Lt | Punct::Gt | Punct::Le | Punct::Ge => 7,
                Punct::Shl | Punct::Shr => 8,
                Punct::Plus | Punct::Minus => 9,
                Punct::Star | Punct::Slash | Punct::Percent => 10,
                _ => return Ok(lhs),
            };
            if prec < min.max(1) {
                return Ok(lhs);
            }
            let at = self.here();
            self.pos += 1;
            let rhs = self.binary(prec + 1)?;
            lhs = match p {
                Punct::PipePipe => i64::from(lhs != 0 || rhs != 0),
                Punct::AmpAmp => i64::from(lhs != 0 && rhs != 0),
                Punct::Pipe => lhs | rhs,
                Punct::Caret => lhs ^ rhs,
                Punct::Amp => lhs & rhs,
                Punct::EqEq => i64::from(lhs == rhs),
                Punct::Ne => i64::from(lhs != rhs),
                Punct::Lt => i64::from(lhs < rhs),
                Punct::Gt => i64::from(lhs > rhs),
                Punct::Le => i64::from(lhs <= rhs),
                Punct::Ge => i64::from(lhs >= rhs),
                Punct::Shl => lhs.wrapping_shl(rhs as u32),
                Punct::Shr => lhs.wrapping_shr(rhs as u32),
                Punct::Plus => lhs.wrapping_add(rhs),
                Punct::Minus => lhs.wrapping_sub(rhs),
                Punct::Star => lhs.wrapping_mul(rhs),
                Punct::Slash | Punct::Percent if rhs == 0 => {
                    return Err((at, "division by zero in the `#if` expression".into()));
                }
                Punct::Slash => lhs.wrapping_div(rhs),
                _ => lhs.wrapping_rem(rhs),
            };
        }
    }

    fn unary(&mut self) -> CondResult {
        let at = self.here();
        if self.depth >= super::parse::MAX_DEPTH {
            return Err((
                at,
                format!("`#if` expression nested too deep (more than {} levels)", super::parse::MAX_DEPTH),
            ));
        }
        self.depth += 1;
        let v = self.unary_inner(at);
        self.depth -= 1;
        v
    }

    fn unary_inner(&mut self, at: Loc) -> CondResult {
        let Some(k) = self.peek() else {
            return Err((at, "expected an expression in `#if`".into()));
        };
        self.pos += 1;
        match k {
            TokenKind::Int(v) => Ok(v),
            TokenKind::UInt(v) => Ok(i64::from(v)),
            TokenKind::Long(v) => Ok(v),
            // `#if` arithmetic is in 64 bits: an unsigned long above LONG_MAX wraps.
            TokenKind::ULong(v) => Ok(v as i64),
            TokenKind::Char(c) => Ok(i64::from(c as i8)),
            // An identifier left after expansion (keywords too) is 0 (C11 6.10.1p4).
            TokenKind::Ident(_) | TokenKind::Kw(_) => {
                if self.peek().is_some_and(|k| punct(k, Punct::LParen)) {
                    return Err((at, "function-like macro call or function in `#if`: not a constant".into()));
                }
                Ok(0)
            }
            TokenKind::Punct(Punct::Minus) => Ok(self.unary()?.wrapping_neg()),
            TokenKind::Punct(Punct::Plus) => self.unary(),
            TokenKind::Punct(Punct::Tilde) => Ok(!self.unary()?),
            TokenKind::Punct(Punct::Bang) => Ok(i64::from(self.unary()? == 0)),
            TokenKind::Punct(Punct::LParen) => {
                let v = self.ternary()?;
                if !self.eat(Punct::RParen) {
                    return Err((self.here(), "expected `)` in the `#if` expression".into()));
                }
                Ok(v)
            }
            TokenKind::Float(_) | TokenKind::Double(_) => {
                Err((at, "`#if` needs an integer constant expression, not a floating one".into()))
            }
            TokenKind::Str(_) => Err((at, "a string cannot appear in an `#if` expression".into())),
            _ => Err((at, "expected an expression in `#if`".into())),
        }
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
    }

    /// The source text a token was read from, when `loc` points at text of its length.
    fn source_text(&self, loc: Loc) -> Option<&str> {
        let line = self.sources.line_text(loc.file, loc.line)?;
        let start = (loc.col as usize).checked_sub(1)?;
        line.get(start..start + loc.len as usize)
    }

    /// How a token is written: identifiers, keywords and punctuators by their text,
    /// literals as in the source when the location still shows them (so `0x10` stays
    /// `0x10`), else rebuilt from the value.
    fn spell(&mut self, t: Token) -> String {
        match t.kind {
            TokenKind::Ident(s) => self.names.name(s).to_string(),
            TokenKind::Kw(k) => k.as_str().to_string(),
            TokenKind::Punct(p) => p.as_str().to_string(),
            TokenKind::Eof => String::new(),
            kind => {
                if let Some(text) = self.source_text(t.loc).map(str::to_string) {
                    let mut sink = Vec::new();
                    let (toks, _) = lex(&text, t.loc.file, &mut self.names, &mut sink);
                    if sink.is_empty() && toks.len() == 1 && toks[0].tok.kind == kind {
                        return text;
                    }
                }
                match kind {
                    TokenKind::Int(v) => v.to_string(),
                    TokenKind::UInt(v) => format!("{v}u"),
                    TokenKind::Long(v) => format!("{v}L"),
                    TokenKind::ULong(v) => format!("{v}UL"),
                    TokenKind::Float(v) => format!("{v:?}f"),
                    TokenKind::Double(v) => format!("{v:?}"),
                    TokenKind::Char(c) => format!("'{}'", escape_c(&[c], b'\'')),
                    TokenKind::Str(id) | TokenKind::HeaderName(id) => {
                        format!("\"{}\"", escape_c(self.names.str_bytes(id), b'"'))
                    }
                    _ => String::new(),
                }
            }
        }
    }

    /// `#x`: the argument's spelling as one string literal, one space where the source
    /// had white space between tokens (C11 6.10.3.2).
    fn stringize(&mut self, arg: &[PTok], loc: Loc) -> PTok {
        let mut text = String::new();
        let mut prev: Option<Loc> = None;
        for t in arg {
            let l = t.tok.loc;
            if let Some(p) = prev {
                let adjacent = p.file == l.file && p.line == l.line && p.col + p.len == l.col;
                if !adjacent {
                    text.push(' ');
                }
            }
            text.push_str(&self.spell(t.tok));
            prev = Some(l);
        }
        let id = self.names.add_str(text.into_bytes());
        PTok { tok: Token { kind: TokenKind::Str(id), loc }, noexpand: false }
    }

    /// `a ## b`: one token spelt as both together, or an error when that is not a token.
    fn paste(&mut self, a: PTok, b: PTok, loc: Loc) -> Option<PTok> {
        let text = format!("{}{}", self.spell(a.tok), self.spell(b.tok));
        let mut sink = Vec::new();
        let (toks, _) = lex(&text, loc.file, &mut self.names, &mut sink);
        match toks.as_slice() {
            [one] if sink.is_empty() => Some(PTok { tok: Token { kind: one.tok.kind, loc }, noexpand: false }),
            _ => {
                self.error(loc, format!("pasting gives `{text}`, which is not one token"));
                None
            }
        }
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

    /// Next unexpanded token of a context.
    fn raw_next(&mut self, ctx: &mut Ctx) -> Option<PTok> {
        loop {
            if let Some(seg) = ctx.segs.last_mut() {
                if let Some(&t) = seg.toks.get(seg.pos) {
                    seg.pos += 1;
                    return Some(t);
                }
                ctx.segs.pop();
                continue;
            }
            return match &mut ctx.list {
                Some((toks, pos)) => {
                    let t = toks.get(*pos).copied();
                    *pos += 1;
                    t
                }
                None => self.next_file_token(),
            };
        }
    }

    /// Whether the next token is `(` (for a function-like macro name), without consuming
    /// it. Does not look past a directive or the end of the current file.
    fn next_is_lparen(&mut self, ctx: &mut Ctx) -> bool {
        while let Some(seg) = ctx.segs.last() {
            if let Some(t) = seg.toks.get(seg.pos) {
                return punct(t.tok.kind, Punct::LParen);
            }
            ctx.segs.pop();
        }
        match &ctx.list {
            Some((toks, pos)) => toks.get(*pos).is_some_and(|t| punct(t.tok.kind, Punct::LParen)),
            // A `(` cannot start a directive, so the next raw token is the one the
            // parser would see (a directive in between shows up as `#` here).
            None => {
                self.files.last().and_then(|f| f.toks.get(f.pos)).is_some_and(|lx| punct(lx.tok.kind, Punct::LParen))
            }
        }
    }

    /// The next fully macro-expanded token of a context.
    fn next_expanded(&mut self, ctx: &mut Ctx) -> Option<PTok> {
        loop {
            let mut t = self.raw_next(ctx)?;
            if t.noexpand {
                return Some(t);
            }
            let Some(sym) = Self::word_sym(t.tok.kind) else { return Some(t) };
            let Some(m) = self.macro_of(sym) else { return Some(t) };
            if ctx.is_active(sym) {
                // C11 6.10.3.4p2: not replaced, now or later.
                if !self.self_referenced.contains(&sym) {
                    self.self_referenced.push(sym);
                }
                t.noexpand = true;
                return Some(t);
            }
            if self.budget == 0 {
                return Some(t);
            }
            let use_loc = t.tok.loc;
            if let Some(d) = m.dynamic {
                let kind = match d {
                    Dynamic::Line => {
                        let line = match self.line_mark(use_loc) {
                            Some((at, n, _)) => n + i64::from(use_loc.line) - i64::from(at) - 1,
                            None => i64::from(use_loc.line),
                        };
                        TokenKind::Int(line)
                    }
                    Dynamic::File => {
                        let named = self.line_mark(use_loc).and_then(|(_, _, name)| name.clone());
                        let name = match named {
                            Some(n) => n,
                            None => self
                                .sources
                                .files
                                .get(use_loc.file as usize)
                                .map_or("", |f| f.name.as_str())
                                .to_string(),
                        };
                        TokenKind::Str(self.names.add_str(name.into_bytes()))
                    }
                };
                return Some(PTok { tok: Token { kind, loc: use_loc }, noexpand: true });
            }
            // Fast path for the common `#define N 8`: a one-token body that cannot expand
            // further needs no replacement segment.
            if let (None, [BodyTok::Tok(kind)]) = (&m.params, m.body.as_slice()) {
                if Self::word_sym(*kind).is_none() {
                    return Some(PTok { tok: Token { kind: *kind, loc: use_loc }, noexpand: false });
                }
            }
            let toks = match &m.params {
                None => m
                    .body
                    .iter()
                    .filter_map(|b| if let BodyTok::Tok(k) = b { Some(*k) } else { None })
                    .map(|kind| PTok { tok: Token { kind, loc: use_loc }, noexpand: false })
                    .collect(),
                Some(params) => {
                    if !self.next_is_lparen(ctx) {
                        return Some(t);
                    }
                    self.raw_next(ctx);
                    let mut args = self.collect_args(ctx, sym, use_loc)?;
                    if m.variadic {
                        // The arguments from the last parameter on, with their commas,
                        // are `__VA_ARGS__` (empty when there are none).
                        let named = params.len() - 1;
                        if args.len() > named {
                            let rest = args.split_off(named);
                            let comma = PTok {
                                tok: Token { kind: TokenKind::Punct(Punct::Comma), loc: use_loc },
                                noexpand: false,
                            };
                            let mut joined = Vec::new();
                            for (k, a) in rest.into_iter().enumerate() {
                                if k > 0 {
                                    joined.push(comma);
                                }
                                joined.extend(a);
                            }
                            args.push(joined);
                        } else if args.len() == named {
                            args.push(Vec::new());
                        }
                    }
                    let n_args =
                        if params.is_empty() && args.len() == 1 && args[0].is_empty() { 0 } else { args.len() };
                    if n_args != params.len() {
                        let msg = format!(
                            "macro `{}` takes {} argument{}, but {} {} given",
                            self.names.name(sym),
                            params.len(),
                            if params.len() == 1 { "" } else { "s" },
                            n_args,
                            if n_args == 1 { "was" } else { "were" }
                        );
                        self.error(use_loc, msg);
                        continue;
                    }
                    if ctx.depth >= MAX_MACRO_DEPTH {
                        self.error(use_loc, "macro calls nested too deeply");
                        self.budget = 0;
                        continue;
                    }
                    let mut inherited = ctx.inherited.clone();
                    inherited.extend(ctx.segs.iter().map(|g| g.name));
                    let mut expanded = Vec::with_capacity(args.len());
                    for a in args.iter().cloned() {
                        let mut sub = Ctx {
                            segs: Vec::new(),
                            list: Some((a, 0)),
                            inherited: inherited.clone(),
                            depth: ctx.depth + 1,
                        };
                        let mut v = Vec::new();
                        while let Some(x) = self.next_expanded(&mut sub) {
                            v.push(x);
                            if self.budget == 0 {
                                break;
                            }
                        }
                        expanded.push(v);
                    }
                    let mut out: Vec<PTok> = Vec::new();
                    // Where the right operand of a pending `##` starts in `out`.
                    let mut paste_at: Option<usize> = None;
                    for (k, b) in m.body.iter().enumerate() {
                        let start = out.len();
                        match b {
                            BodyTok::Tok(kind) => {
                                out.push(PTok { tok: Token { kind: *kind, loc: use_loc }, noexpand: false })
                            }
                            BodyTok::Param(i) => {
                                // An operand of `##` is the argument as written, unexpanded.
                                let pasted = paste_at.is_some() || matches!(m.body.get(k + 1), Some(BodyTok::Paste));
                                let src = if pasted { args.get(*i) } else { expanded.get(*i) };
                                out.extend(src.into_iter().flatten().copied());
                            }
                            BodyTok::Stringize(i) => {
                                let arg = args.get(*i).cloned().unwrap_or_default();
                                let st = self.stringize(&arg, use_loc);
                                out.push(st);
                            }
                            BodyTok::Paste => {
                                paste_at = Some(start);
                                continue;
                            }
                        }
                        if let Some(at) = paste_at.take() {
                            // An empty operand leaves the other one alone (C11 6.10.3.3).
                            if at > 0 && at < out.len() {
                                let (a, b) = (out[at - 1], out[at]);
                                match self.paste(a, b, use_loc) {
                                    Some(t) => {
                                        out[at - 1] = t;
                                        out.remove(at);
                                    }
                                    None => out.truncate(at - 1),
                                }
                            }
                        }
                    }
                    out
                }
            };
            if toks.len() >= self.budget {
                self.budget = 0;
                if !self.budget_reported {
                    self.budget_reported = true;
                    self.error(use_loc, "macro expansion produces too many tokens");
                }
                continue;
            }
            self.budget -= toks.len().max(1);
            ctx.segs.push(Seg { toks, pos: 0, name: sym });
        }
    }

    /// Reads a macro call's arguments after its `(`, split at top-level commas.
    /// `None` (after an error) when the input ends first.
    fn collect_args(&mut self, ctx: &mut Ctx, name: Sym, use_loc: Loc) -> Option<Vec<Vec<PTok>>> {
        let mut args = vec![Vec::new()];
        let mut depth = 0u32;
        loop {
            let Some(t) = self.raw_next(ctx) else {
                let msg = format!("unterminated argument list of macro `{}`", self.names.name(name));
                self.error(use_loc, msg);
                return None;
            };
            match t.tok.kind {
                TokenKind::Punct(Punct::LParen) => depth += 1,
                TokenKind::Punct(Punct::RParen) if depth == 0 => return Some(args),
                TokenKind::Punct(Punct::RParen) => depth -= 1,
                TokenKind::Punct(Punct::Comma) if depth == 0 => {
                    args.push(Vec::new());
                    continue;
                }
                _ => {}
            }
            if let Some(a) = args.last_mut() {
                a.push(t);
            }
        }
    }

    /// Handles one directive; the `#` has been consumed.
    fn directive(&mut self, hash: Token) {
        let Some(frame) = self.files.last_mut() else { return };
        let start = frame.pos;
        let mut end = start;
        while frame.toks.get(end).is_some_and(|lx| !lx.line_start) {
            end += 1;
        }
        frame.pos = end;
        let toks: Vec<Token> = frame.toks[start..end].iter().map(|lx| lx.tok).collect();
        let spaces: Vec<bool> = frame.toks[start..end].iter().map(|lx| lx.space_before).collect();
        let active = frame.conds.last().is_none_or(|c| c.active);
        let Some(&head) = toks.first() else { return };
        let rest = &toks[1..];
        let name = match head.kind {
            TokenKind::Kw(Keyword::If) => "if",
            TokenKind::Kw(Keyword::Else) => "else",
            TokenKind::Ident(s) if s == words::IFDEF => "ifdef",
            TokenKind::Ident(s) if s == words::IFNDEF => "ifndef",
            TokenKind::Ident(s) if s == words::ENDIF => "endif",
            TokenKind::Ident(s) if s == words::ELIF => "elif",
            TokenKind::Ident(s) if s == words::DEFINE => "define",
            TokenKind::Ident(s) if s == words::UNDEF => "undef",
            TokenKind::Ident(s) if s == words::INCLUDE => "include",
            TokenKind::Ident(s) => match self.names.name(s) {
                "error" => "error",
                "warning" => "warning",
                "pragma" => "pragma",
                "line" => "line",
                _ => "",
            },
            _ => "",
        };
        match name {
            "ifdef" | "ifndef" => {
                let defined = match rest.first().and_then(|t| Self::word_sym(t.kind)) {
                    Some(s) => self.macro_of(s).is_some(),
                    None => {
                        if active {
                            self.error(head.loc, format!("expected a macro name after `#{name}`"));
                        }
                        false
                    }
                };
                if active {
                    self.extra_tokens(rest.get(1..).unwrap_or(&[]), name);
                }
                let taken = active && (defined == (name == "ifdef"));
                self.push_cond(head.loc, if name == "ifdef" { "ifdef" } else { "ifndef" }, active, taken);
            }
            "if" => {
                let taken = active && self.condition(head.loc, rest);
                self.push_cond(head.loc, "if", active, taken);
            }
            "else" | "elif" => {
                let Some(c) = self.files.last_mut().and_then(|f| f.conds.last_mut()) else {
                    self.error(head.loc, format!("`#{name}` without `#if`, `#ifdef` or `#ifndef`"));
                    return;
                };
                if c.in_else {
                    let loc = head.loc;
                    self.error(loc, format!("`#{name}` after `#else`"));
                    return;
                }
                if name == "elif" {
                    // Evaluated only when no branch before was taken (C11 6.10.1p6).
                    let evaluate = c.parent_active && !c.taken;
                    let v = evaluate && self.condition(head.loc, rest);
                    if let Some(c) = self.files.last_mut().and_then(|f| f.conds.last_mut()) {
                        c.active = v;
                        c.taken |= v;
                    }
                    return;
                }
                c.in_else = true;
                c.active = c.parent_active && !c.taken;
                c.taken = true;
                if c.parent_active {
                    self.extra_tokens(rest, "else");
                }
            }
            "endif" => match self.files.last_mut().and_then(|f| f.conds.pop()) {
                Some(c) if c.parent_active => self.extra_tokens(rest, "endif"),
                Some(_) => {}
                None => self.error(head.loc, "`#endif` without `#if`, `#ifdef` or `#ifndef`"),
            },
            _ if !active => {}
            "define" => self.define(head, rest, spaces.get(1..).unwrap_or(&[])),
            "undef" => match rest.first().and_then(|t| Self::word_sym(t.kind)) {
                Some(s) => {
                    if let Some(m) = self.macros.get_mut(s.0 as usize) {
                        *m = None;
                    }
                    self.extra_tokens(&rest[1..], "undef");
                }
                None => self.error(head.loc, "expected a macro name after `#undef`"),
            },
            "include" => self.include(head, rest),
            "error" | "warning" => {
                // The message as written (from the first token to the end of the line).
                let text = match rest.first() {
                    Some(t) => self
                        .sources
                        .line_text(t.loc.file, t.loc.line)
                        .and_then(|l| l.get((t.loc.col as usize).saturating_sub(1)..))
                        .map_or_else(String::new, |l| l.trim_end().to_string()),
                    None => String::new(),
                };
                let msg = format!("#{name} {text}");
                if name == "error" {
                    self.error(head.loc, msg);
                } else {
                    self.diags.push(Diagnostic::warning(head.loc, msg));
                }
            }
            // `#pragma once` is honoured; other pragmas (e.g. OpenMP's) are ignored, as C
            // allows for pragmas an implementation does not recognise.
            "pragma" => {
                let once =
                    rest.first().is_some_and(|t| matches!(t.kind, TokenKind::Ident(s) if self.names.name(s) == "once"));
                if once {
                    if let Some(key) = self.files.last().and_then(|f| f.key.clone()) {
                        self.once.push(key);
                    }
                }
            }
            // `#line N "file"`: the next line is numbered N (in file "file") for
            // `__LINE__` and `__FILE__`; diagnostics keep the real file's positions.
            "line" => match (rest.first().map(|t| t.kind), rest.get(1).map(|t| t.kind)) {
                (Some(TokenKind::Int(n)), name @ (None | Some(TokenKind::Str(_)))) if rest.len() <= 2 => {
                    let name = match name {
                        Some(TokenKind::Str(id)) => {
                            Some(String::from_utf8_lossy(self.names.str_bytes(id)).into_owned())
                        }
                        _ => self.line_marks.iter().rev().find(|m| m.0 == head.loc.file).and_then(|m| m.3.clone()),
                    };
                    self.line_marks.push((head.loc.file, head.loc.line, n, name));
                }
                _ => self.error(head.loc, "expected `#line` NUMBER or `#line` NUMBER \"FILE\""),
            },
            _ => {
                let msg = match head.kind {
                    TokenKind::Ident(s) => format!("unknown preprocessor directive `#{}`", self.names.name(s)),
                    TokenKind::Kw(k) => format!("unknown preprocessor directive `#{}`", k.as_str()),
                    _ => "expected a preprocessor directive name after `#`".to_string(),
                };
                let loc = if matches!(head.kind, TokenKind::Ident(_) | TokenKind::Kw(_)) { head.loc } else { hash.loc };
                self.error(loc, msg);
            }
        }
    }

    /// The latest `#line` before `loc` in its file: its line, the number it gives the
    /// line after it, and the file name in force.
    fn line_mark(&self, loc: Loc) -> Option<(u32, i64, &Option<String>)> {
        let mark = self.line_marks.iter().rev().find(|m| m.0 == loc.file && m.1 < loc.line)?;
        Some((mark.1, mark.2, &mark.3))
    }

    /// The value of the condition of an `#if` or `#elif` at `loc`: `defined NAME` and
    /// `defined(NAME)` become 1 or 0, the rest is macro-expanded, identifiers left over
    /// are 0, and the integer constant expression is evaluated in 64-bit signed
    /// arithmetic (C11 6.10.1). A malformed expression is an error and counts as false.
    fn condition(&mut self, loc: Loc, rest: &[Token]) -> bool {
        let mut toks: Vec<PTok> = Vec::with_capacity(rest.len());
        let mut i = 0;
        while i < rest.len() {
            let t = rest[i];
            if Self::word_sym(t.kind) == Some(words::DEFINED) {
                let paren = rest.get(i + 1).is_some_and(|x| punct(x.kind, Punct::LParen));
                let at = if paren { i + 2 } else { i + 1 };
                let Some(name) = rest.get(at).and_then(|x| Self::word_sym(x.kind)) else {
                    self.error(t.loc, "expected a macro name after `defined`");
                    return false;
                };
                if paren && !rest.get(at + 1).is_some_and(|x| punct(x.kind, Punct::RParen)) {
                    self.error(t.loc, "expected `)` after `defined(NAME`");
                    return false;
                }
                let is = self.macros.get(name.0 as usize).is_some_and(Option::is_some);
                toks.push(PTok { tok: Token { kind: TokenKind::Int(i64::from(is)), loc: t.loc }, noexpand: true });
                i = at + 1 + usize::from(paren);
                continue;
            }
            toks.push(PTok { tok: t, noexpand: false });
            i += 1;
        }
        let mut ctx = Ctx { segs: Vec::new(), list: Some((toks, 0)), inherited: Vec::new(), depth: 0 };
        let mut expanded = Vec::new();
        while let Some(t) = self.next_expanded(&mut ctx) {
            expanded.push(t.tok);
        }
        let mut e = CondExpr { toks: &expanded, pos: 0, end: loc, depth: 0 };
        match e.ternary().and_then(|v| match e.toks.get(e.pos) {
            None => Ok(v),
            Some(t) => Err((t.loc, "unexpected token after the `#if` expression".to_string())),
        }) {
            Ok(v) => v != 0,
            Err((at, msg)) => {
                self.error(at, msg);
                false
            }
        }
    }

    fn push_cond(&mut self, loc: Loc, directive: &'static str, parent_active: bool, taken: bool) {
        if let Some(f) = self.files.last_mut() {
            f.conds.push(Cond { loc, directive, parent_active, active: taken, taken, in_else: false });
        }
    }

    fn extra_tokens(&mut self, rest: &[Token], name: &str) {
        if let Some(t) = rest.first() {
            self.diags.push(Diagnostic::warning(t.loc, format!("extra tokens after `#{name}` are ignored")));
        }
    }

    fn define(&mut self, head: Token, rest: &[Token], spaces: &[bool]) {
        let Some(name_tok) = rest.first() else {
            self.error(head.loc, "expected a macro name after `#define`");
            return;
        };
        let Some(name) = Self::word_sym(name_tok.kind) else {
            let msg = format!("macro name must be an identifier, found {}", name_tok.kind.describe(&self.names));
            self.error(name_tok.loc, msg);
            return;
        };
        let mut i = 1;
        let function_like =
            rest.get(1).is_some_and(|t| punct(t.kind, Punct::LParen)) && !spaces.get(1).copied().unwrap_or(true);
        let mut params = None;
        let mut variadic = false;
        if function_like {
            i = 2;
            let mut ps: Vec<Sym> = Vec::new();
            let mut expect_name = true;
            loop {
                let Some(t) = rest.get(i) else {
                    self.error(name_tok.loc, "unterminated parameter list in `#define`");
                    return;
                };
                i += 1;
                let ellipsis = (i..i + 2).all(|k| rest.get(k).is_some_and(|x| punct(x.kind, Punct::Dot)));
                match t.kind {
                    // `...` (three dots): the variable arguments, last.
                    TokenKind::Punct(Punct::Dot) if expect_name && !variadic && ellipsis => {
                        i += 2;
                        ps.push(self.names.intern("__VA_ARGS__"));
                        variadic = true;
                        expect_name = false;
                        if !rest.get(i).is_some_and(|x| punct(x.kind, Punct::RParen)) {
                            self.error(t.loc, "`...` must be the last parameter of a macro");
                            return;
                        }
                    }
                    TokenKind::Punct(Punct::RParen) if !expect_name || ps.is_empty() => break,
                    TokenKind::Punct(Punct::Comma) if !expect_name => expect_name = true,
                    TokenKind::Ident(s) if expect_name => {
                        if ps.contains(&s) {
                            let msg = format!("duplicate macro parameter `{}`", self.names.name(s));
                            self.error(t.loc, msg);
                            return;
                        }
                        ps.push(s);
                        expect_name = false;
                    }
                    _ => {
                        let msg =
                            format!("expected a parameter name in `#define`, found {}", t.kind.describe(&self.names));
                        self.error(t.loc, msg);
                        return;
                    }
                }
            }
            params = Some(ps);
        }
        let mut body = Vec::with_capacity(rest.len().saturating_sub(i));
        let toks = rest.get(i..).unwrap_or(&[]);
        let param_of = |t: Option<&Token>| match (t.map(|t| t.kind), &params) {
            (Some(TokenKind::Ident(s)), Some(ps)) => ps.iter().position(|p| *p == s),
            _ => None,
        };
        let mut k = 0;
        while let Some(t) = toks.get(k) {
            k += 1;
            if punct(t.kind, Punct::HashHash) {
                if body.is_empty() || k == toks.len() {
                    self.error(t.loc, "`##` cannot be at either end of a macro's replacement");
                    return;
                }
                body.push(BodyTok::Paste);
                continue;
            }
            if punct(t.kind, Punct::Hash) && params.is_some() {
                match param_of(toks.get(k)) {
                    Some(p) => {
                        body.push(BodyTok::Stringize(p));
                        k += 1;
                    }
                    None => {
                        self.error(t.loc, "`#` in a function-like macro must be followed by a parameter name");
                        return;
                    }
                }
                continue;
            }
            body.push(match param_of(Some(t)) {
                Some(p) => BodyTok::Param(p),
                None => BodyTok::Tok(t.kind),
            });
        }
        let m = Macro { params, variadic, body, dynamic: None };
        let idx = name.0 as usize;
        if self.macros.len() <= idx {
            self.macros.resize(idx + 1, None);
        }
        if let Some(Some(old)) = self.macros.get(idx) {
            if !old.same_as(&m) {
                let msg = format!("macro `{}` redefined", self.names.name(name));
                self.diags.push(Diagnostic::warning(name_tok.loc, msg));
            }
        }
        if let Some(slot) = self.macros.get_mut(idx) {
            *slot = Some(Rc::new(m));
        }
    }

    fn include(&mut self, head: Token, rest: &[Token]) {
        let Some(&name_tok) = rest.first() else {
            self.error(head.loc, "expected \"file\" or <file> after `#include`");
            return;
        };
        let (id, angle) = match name_tok.kind {
            TokenKind::Str(id) => (id, false),
            TokenKind::HeaderName(id) => (id, true),
            k => {
                let msg = format!("expected \"file\" or <file> after `#include`, found {}", k.describe(&self.names));
                self.error(name_tok.loc, msg);
                return;
            }
        };
        self.extra_tokens(&rest[1..], "include");
        let file_name = String::from_utf8_lossy(self.names.str_bytes(id)).into_owned();
        let builtin = super::headers::builtin(&file_name);
        let mut dirs: Vec<PathBuf> = Vec::new();
        if !angle {
            dirs.extend(self.files.last().map(|f| f.dir.clone()));
        }
        dirs.extend(self.opts.include_dirs.iter().cloned());
        dirs.extend(self.opts.env_dirs.iter().cloned());
        let mut found = None;
        // `<stdio.h>` and the other standard headers are always the built-in ones; a
        // `"name"` include finds a file on the search path first.
        if let (true, Some(text)) = (angle, builtin) {
            found = Some(self.builtin_header(&file_name, text));
        }
        for d in dirs.iter().filter(|_| found.is_none()) {
            let path = d.join(&file_name);
            if let Some(why) = self.loader.refused(&path) {
                self.error(name_tok.loc, format!("cannot include `{file_name}`: {why}"));
                return;
            }
            if let Some(toks) = self.cache.get(&path) {
                found = Some((path, Ok(Rc::clone(toks))));
                break;
            }
            if let Some(text) = self.loader.read(&path) {
                found = Some((path, Err(text)));
                break;
            }
        }
        if let (None, Some(text)) = (&found, builtin) {
            found = Some(self.builtin_header(&file_name, text));
        }
        let Some((path, content)) = found else {
            self.error(name_tok.loc, format!("cannot find include file `{file_name}`"));
            return;
        };
        if self.once.contains(&path) {
            return;
        }
        if self.files.iter().any(|f| f.key.as_deref() == Some(path.as_path())) {
            self.error(name_tok.loc, format!("`#include` cycle: `{}` is already being included", path.display()));
            return;
        }
        if self.files.len() >= MAX_INCLUDE_DEPTH {
            self.error(name_tok.loc, format!("`#include` nested too deeply (limit {MAX_INCLUDE_DEPTH})"));
            return;
        }
        let toks = match content {
            Ok(toks) => toks,
            Err(text) => {
                let shown = if path.starts_with(BUILTIN_DIR) {
                    format!("<{}>", path.strip_prefix(BUILTIN_DIR).unwrap_or(&path).display())
                } else {
                    path.display().to_string()
                };
                let file = self.sources.add(shown, text);
                let text = self.sources.files.last().map(|f| f.text.as_str()).unwrap_or("");
                let (t, _) = lex(text, file, &mut self.names, self.diags);
                let t = Rc::new(t);
                self.cache.insert(path.clone(), Rc::clone(&t));
                t
            }
        };
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        self.files.push(Frame { toks, pos: 0, dir, key: Some(path), conds: Vec::new() });
    }
}

impl Pre<'_> {
    /// A built-in header (see [`super::headers`]): its key, and its tokens when lexed
    /// already, else its text.
    fn builtin_header(&self, name: &str, text: &str) -> (PathBuf, Result<Rc<Vec<Lexed>>, String>) {
        let path = Path::new(BUILTIN_DIR).join(name);
        match self.cache.get(&path) {
            Some(t) => (path, Ok(Rc::clone(t))),
            None => (path, Err(text.to_string())),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn run_with(text: &str, loader: &mut MemLoader, opts: &FrontOptions) -> (String, Vec<Diagnostic>, SourceMap) {
        let mut sm = SourceMap::default();
        let mut d = Vec::new();
        let (toks, names, _) = preprocess("dir/main.c", text, opts, &mut sm, loader, &mut d);
        let s: Vec<String> = toks
            .iter()
            .map(|t| match t.kind {
                TokenKind::Ident(s) => names.name(s).to_string(),
                TokenKind::Kw(k) => k.as_str().to_string(),
                TokenKind::Int(v) => v.to_string(),
                TokenKind::Punct(p) => p.as_str().to_string(),
                TokenKind::Eof => "EOF".to_string(),
                other => format!("{other:?}"),
            })
            .collect();
        (s.join(" "), d, sm)
    }

    fn run(text: &str) -> (String, Vec<Diagnostic>) {
        let (s, d, _) = run_with(text, &mut MemLoader::default(), &FrontOptions::default());
        (s, d)
    }

    fn msgs(d: &[Diagnostic]) -> Vec<(u32, u32, &str)> {
        d.iter().map(|d| (d.loc.line, d.loc.col, d.message.as_str())).collect()
    }

    #[test]
    fn object_and_function_macros() {
        let (s, d) = run("#define n 8\n#define SQ(x) ((x)*(x))\nint a[n] = SQ(n+1);\n");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(s, "int a [ 8 ] = ( ( 8 + 1 ) * ( 8 + 1 ) ) ; EOF");
    }

    #[test]
    fn macro_used_inside_its_own_argument_is_not_recursion() {
        let (s, d) = run("#define max(a,b) ((a)>(b)?(a):(b))\nmax(max(x,y),z)\n");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(s.matches('?').count(), 3, "inner call expanded in both copies plus outer: {s}");
    }

    #[test]
    fn object_macro_naming_a_function_macro_takes_args_from_the_file() {
        let (s, d) = run("#define sq(x) x*x\n#define SQ sq\nSQ(3)\n");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(s, "3 * 3 EOF");
    }

    #[test]
    fn function_macro_without_parens_and_space_before_paren() {
        let (s, d) = run("#define f(x) x+1\n#define g (y)\nf; g\n");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(s, "f ; ( y ) EOF");
    }

    #[test]
    fn expanded_tokens_carry_the_use_location() {
        let mut sm = SourceMap::default();
        let mut d = Vec::new();
        let (toks, _, _) = preprocess(
            "m.c",
            "#define N 1 + 2\n  x = N;",
            &FrontOptions::default(),
            &mut sm,
            &mut MemLoader::default(),
            &mut d,
        );
        // `N` is at line 2, column 7, one byte long; both `1` and `+` carry that.
        assert_eq!((toks[2].loc.line, toks[2].loc.col, toks[2].loc.len), (2, 7, 1));
        assert_eq!(toks[3].loc, toks[2].loc);
    }

    #[test]
    fn self_reference_is_left_alone_as_in_c() {
        // C11 6.10.3.4p2: a macro's name inside its own expansion is not replaced.
        let (s, d) = run("#define A B\n#define B A\nint x = A;\n");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(s, "int x = A ; EOF");
        let (s, d) = run("#define f(x) f(x)+1\nf(2);\n");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(s, "f ( 2 ) + 1 ; EOF");
    }

    #[test]
    fn exponential_macros_are_cut_off() {
        let mut src = String::from("#define A0 x x\n");
        for i in 1..40 {
            src.push_str(&format!("#define A{i} A{} A{}\n", i - 1, i - 1));
        }
        src.push_str("A39\n");
        let (_, d) = run(&src);
        assert_eq!(msgs(&d), vec![(41, 1, "macro expansion produces too many tokens")]);
    }

    #[test]
    fn conditionals_nest() {
        let src =
            "#define X\n#ifdef X\na\n#ifndef X\nb\n#else\nc\n#endif\n#else\nd\n#ifdef Y\n#bogus\n#endif\n#endif\ne\n";
        let (s, d) = run(src);
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(s, "a c e EOF");
        let (s, _) = run("#define X\n#undef X\n#ifdef X\na\n#endif\n");
        assert_eq!(s, "EOF");
    }

    #[test]
    fn if_and_elif_evaluate_integer_constant_expressions() {
        // Each line's expected branch worked by hand with C's rules: `defined` with and
        // without parentheses, macros expanded (N = 4, so N*N-1 = 15), leftover names
        // are 0, precedence (1 + 2 * 3 == 7; 1 << 2 + 1 == 8), unary !, ~, -, the
        // conditional operator, character constants, and #elif tried only while no
        // branch before was taken.
        let src = "#define N 4\n#define SQ(x) ((x) * (x))\n\
            #if defined N && defined(SQ)\na\n#endif\n\
            #if N*N-1 == 15 && SQ(N) == 16\nb\n#else\nx\n#endif\n\
            #if UNDEFINED_NAME\nx\n#elif 1 + 2 * 3 == 7 && (1 << 2 + 1) == 8\nc\n#elif 1\nx\n#else\nx\n#endif\n\
            #if !0 && ~0 == -1 && -N < 0 && (N > 3 ? 5 : 6) == 5 && 'A' == 65\nd\n#endif\n\
            #if 0\n#if 1/0\n#endif\nx\n#elif 0\nx\n#else\ne\n#endif\n";
        let (s, d) = run(src);
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(s, "a b c d e EOF");
        // Errors name what is wrong and where; the branch counts as not taken.
        let (s, d) = run(
            "#if 1 /\nx\n#endif\n#if 2 / 0\ny\n#endif\n#if defined\nz\n#endif\n#if (1\nw\n#endif\n#if 1.5\nv\n#endif\n",
        );
        assert_eq!(s, "EOF");
        assert_eq!(
            msgs(&d),
            vec![
                (1, 2, "expected an expression in `#if`"),
                (4, 7, "division by zero in the `#if` expression"),
                (7, 5, "expected a macro name after `defined`"),
                (10, 2, "expected `)` in the `#if` expression"),
                (13, 5, "`#if` needs an integer constant expression, not a floating one"),
            ]
        );
    }

    #[test]
    fn variadic_macros_take_the_remaining_arguments() {
        // F(a, ...) → the rest with its commas; none → empty; `...` must be last.
        let (s, d) = run(
            "#define F(a, ...) a [ __VA_ARGS__ ]\n#define G(...) < __VA_ARGS__ >\nF(1, 2, 3) F(4) G() G(x, (y, z))\n",
        );
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(s, "1 [ 2 , 3 ] 4 [ ] < > < x , ( y , z ) > EOF");
        let (_, d) = run("#define H(..., b) b\n");
        assert_eq!(msgs(&d), vec![(1, 11, "`...` must be the last parameter of a macro")]);
    }

    #[test]
    fn unbalanced_conditionals() {
        let (_, d) = run("a\n#endif\n#else\n#ifdef Z\n#else\n#else\n");
        assert_eq!(
            msgs(&d),
            vec![
                (2, 2, "`#endif` without `#if`, `#ifdef` or `#ifndef`"),
                (3, 2, "`#else` without `#if`, `#ifdef` or `#ifndef`"),
                (6, 2, "`#else` after `#else`"),
                (4, 2, "unterminated `#ifdef`"),
            ]
        );
    }

    #[test]
    fn unknown_directive() {
        let (s, d) = run("int a;\n  #  pragmas once\nint b;\n#pragma omp parallel for\n");
        assert_eq!(msgs(&d), vec![(2, 6, "unknown preprocessor directive `#pragmas`")]);
        assert_eq!(s, "int a ; int b ; EOF");
    }

    #[test]
    fn includes_search_order_and_builtins() {
        let mut fs = MemLoader::default();
        fs.files.insert(PathBuf::from("dir/a.h"), "from_dir".into());
        fs.files.insert(PathBuf::from("inc/a.h"), "from_inc".into());
        fs.files.insert(PathBuf::from("inc/b.h"), "from_inc_b".into());
        fs.files.insert(PathBuf::from("env/b.h"), "from_env_b".into());
        fs.files.insert(PathBuf::from("env/c.h"), "#include \"d.h\"\nfrom_env_c".into());
        fs.files.insert(PathBuf::from("env/d.h"), "d_beside_c".into());
        let opts = FrontOptions {
            include_dirs: vec!["inc".into()],
            env_dirs: vec!["env".into()],
            leak_syntax_tree: false,
            sandbox: None,
            error_limit: None,
        };
        let src = "#include \"a.h\"\n#include \"b.h\"\n#include \"c.h\"\n#include <ctype.h>\n#include \"cpc.h\"\n#include <a.h>\n";
        let (s, d, sm) = run_with(src, &mut fs, &opts);
        assert!(d.is_empty(), "{d:?}");
        // `<a.h>` skips the including file's folder, so it finds inc/a.h.
        assert_eq!(s, "from_dir from_inc_b d_beside_c from_env_c from_inc EOF");
        assert_eq!(sm.files[1].name, "dir/a.h");
        assert_eq!(sm.files[3].name, "env/c.h");
        assert_eq!(sm.files[5].name, "<ctype.h>");
        // The standard headers are built in and never read from disk.
        let (s, d, _) = run_with("#include <stdio.h>\nEOF\n", &mut MemLoader::default(), &opts);
        assert!(d.is_empty(), "{d:?}");
        assert!(s.starts_with("typedef int size_t ;"), "{s}");
        assert!(s.contains("typedef struct __cppe_file FILE ;"), "{s}");
        let (_, d, _) = run_with("#include <time.h>\n", &mut MemLoader::default(), &opts);
        assert!(d[0].message.starts_with("#error <time.h> is not provided"), "{d:?}");
    }

    #[test]
    fn missing_include_points_at_the_file_name() {
        let (_, d) = run("int x;\n#include \"nothere.h\"\n");
        assert_eq!(msgs(&d), vec![(2, 10, "cannot find include file `nothere.h`")]);
        let (_, d) = run("#include <sys/x.h>\n");
        assert_eq!(msgs(&d), vec![(1, 10, "cannot find include file `sys/x.h`")]);
    }

    #[test]
    fn include_cycle_is_an_error() {
        let mut fs = MemLoader::default();
        fs.files.insert(PathBuf::from("dir/a.h"), "a\n#include \"b.h\"\n".into());
        fs.files.insert(PathBuf::from("dir/b.h"), "b\n#include \"a.h\"\n".into());
        let (s, d, _) = run_with("#include \"a.h\"\nend\n", &mut fs, &FrontOptions::default());
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].message, "`#include` cycle: `dir/a.h` is already being included");
        assert_eq!(d[0].loc.file, 2, "reported inside b.h");
        assert_eq!(s, "a b end EOF");
    }

    #[test]
    fn wrong_argument_count_and_unterminated_call() {
        let (_, d) = run("#define f(a,b) a\nf(1)\nf(2\n");
        assert_eq!(
            msgs(&d),
            vec![
                (2, 1, "macro `f` takes 2 arguments, but 1 was given"),
                (3, 1, "unterminated argument list of macro `f`")
            ]
        );
    }

    #[test]
    fn fs_loader_reads_beside_the_main_file_and_refuses_non_files() {
        let dir = std::env::temp_dir().join(format!("cppe-pp-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join("h.h"), "#define K 7\n");
        let main = dir.join("m.c");
        let mut sm = SourceMap::default();
        let (p, d) = super::super::parse_source(
            &main.display().to_string(),
            "#include \"h.h\"\nint x = K;\n",
            &FrontOptions::default(),
            &mut sm,
        );
        let _ = std::fs::remove_dir_all(&dir);
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(sm.files.len(), 2);
        assert_eq!(sm.files[1].name, dir.join("h.h").display().to_string());
        assert_eq!(p.items.len(), 1);
        // A directory is not a file: reading it must fail rather than block or error out.
        assert_eq!(FsLoader::default().read(&std::env::temp_dir()), None);
    }

    /// An `#if` nested deeper than the parser allows is an error, not a stack overflow
    /// (the compiler's own threads may be small: a test thread has 2 MiB). 256 levels
    /// are fine, 1000 are not.
    #[test]
    fn deeply_nested_if_expressions_are_an_error() {
        let nested = |n: usize| format!("#if {}1{}\nint x;\n#endif\n", "(".repeat(n), ")".repeat(n));
        let (out, d) = run(&nested(200));
        assert!(d.is_empty(), "{d:?}");
        assert!(out.contains("int x"));
        let (_, d) = run(&nested(1000));
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].message.contains("nested too deep"), "{d:?}");
        let (_, d) = run(&format!("#if {}1\n#endif\n", "!".repeat(1000)));
        assert!(d[0].message.contains("nested too deep"), "{d:?}");
    }

    #[test]
    fn continuation_lines_in_directives() {
        let (s, d) = run("#define LONG 1 + \\\n  2\nLONG\n");
        assert!(d.is_empty());
        assert_eq!(s, "1 + 2 EOF");
    }

    #[test]
    fn stringizing_and_pasting() {
        // C11 6.10.3.2-3: `#x` spells the argument as written (white space runs become
        // one space), `a##b` makes one token, and a pasted operand is not expanded first.
        let (s, d) = run("#define S(x) #x\n#define C(a,b) a##b\n#define N 4\nS( p  +  q ) C(x, y) C(1,2) C(N,N)\n");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(s, "Str(StrId(0)) xy 12 NN EOF");
        let (_, d) = run("#define C(a,b) a##b\nC(+,-)\n");
        assert_eq!(msgs(&d), vec![(2, 1, "pasting gives `+-`, which is not one token")]);
        let (_, d) = run("#define B(a) ##a\n#define H(a) #b\n");
        assert_eq!(d.len(), 2, "{d:?}");
    }

    #[test]
    fn line_and_file_macros() {
        let (s, d) = run("int a = __LINE__;\n\nint b = __LINE__ + __STDC__;\n");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(s, "int a = 1 ; int b = 3 + 1 ; EOF");
    }
}
