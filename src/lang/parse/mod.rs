//! The CPC parser: preprocessed tokens to the [`ast`](super::ast).
//!
//! Recursive descent for declarations and statements, Pratt (precedence climbing) for
//! expressions with C's precedence and associativity. Errors never stop the parse: each
//! is recorded as a [`Diagnostic`], the statement (or top-level declaration) in error is
//! skipped up to a synchronisation point (`;`, the closing `}`, or the start of the next
//! statement on a later line), and parsing carries on, so one run reports every error.
//! A missing `;` is reported right after the previous token and, when the next token is
//! on a later line or is `}`, treated as present so nothing is skipped. Nesting is
//! limited to [`MAX_DEPTH`] levels so no input can overflow the stack, and every
//! recovery consumes input, so the parse is linear and total.
//!
//! Struct definitions met inside a declaration (`struct S {…} v;`) are hoisted into
//! their own [`Item::Struct`] / [`StmtKind::Struct`] placed just before it.
//!
//! This file holds the entry point, the parser's state, its token helpers and error
//! recovery, and the top-level items; `decl` parses declarations and types, `stmt`
//! statements and blocks, `expr` expressions.
//! Depends on `token`, `ast` and `diag`.
mod decl;
mod expr;
mod stmt;

use super::ast::*;
use super::diag::Diagnostic;
use super::token::{words, Interner, Keyword, Punct, Sym, Token, TokenKind};

/// Maximum nesting of statements, blocks, parentheses and prefix operators.
pub const MAX_DEPTH: u32 = 256;

/// Most binary operators in the chains open at once (`1 + 2 + … + (3 + …)`): with the
/// nesting limit, this bounds the depth of an expression tree.
pub const MAX_CHAIN: u32 = 1024;

/// Parses a preprocessed token stream (as from [`super::preprocess::preprocess`]; a
/// missing final `Eof` is tolerated). Diagnostics are appended to `diags`.
pub fn parse_tokens(toks: &[Token], names: &Interner, diags: &mut Vec<Diagnostic>) -> Program {
    let eof = Token { kind: TokenKind::Eof, loc: toks.last().map(|t| t.loc).unwrap_or_default() };
    let mut p = Parser {
        toks,
        eof,
        pos: 0,
        names,
        diags,
        depth: 0,
        spine: 0,
        hoisted: Vec::new(),
        typedefs: Vec::new(),
        is_typedef: Vec::new(),
        last_decl_sym: None,
        poisoned: Vec::new(),
        anon: 0,
        last_err: None,
        gave_up: false,
        shared: Vec::new(),
        scratch: Vec::new(),
        mentioned: Vec::new(),
    };
    let program = p.program();
    let mut poisoned = p.poisoned;
    poisoned.sort_unstable();
    poisoned.dedup();
    let mentioned = p
        .mentioned
        .iter()
        .enumerate()
        .filter(|(_, &m)| m)
        .map(|(i, _)| Name::from(names.name(Sym(i as u32))))
        .collect();
    Program { poisoned: poisoned.into_iter().map(|s| Name::from(names.name(s))).collect(), mentioned, ..program }
}

/// The parse failed at a point already reported; the caller resynchronises.
struct Fail;
type PResult<T> = Result<T, Fail>;

struct Parser<'a> {
    toks: &'a [Token],
    eof: Token,
    pos: usize,
    names: &'a Interner,
    diags: &'a mut Vec<Diagnostic>,
    depth: u32,
    /// Binary operators in the chains being parsed, over all open levels.
    spine: u32,
    /// Struct and enum definitions waiting to be placed before the declaration that
    /// made them.
    hoisted: Vec<Hoisted>,
    /// Typedef names in scope, innermost last (a block truncates it on exit).
    typedefs: Vec<Sym>,
    /// By symbol number: how many entries of `typedefs` name it (so a lookup is O(1)).
    is_typedef: Vec<u32>,
    /// The symbol of the name read by the last [`Parser::declarator`].
    last_decl_sym: Option<Sym>,
    /// Identifiers inside constructs skipped after a syntax error: the checker does not
    /// report them as undeclared (the declaration may be what was skipped).
    poisoned: Vec<Sym>,
    anon: u32,
    /// Token index of the last error, so one bad token is reported once.
    last_err: Option<usize>,
    /// Parsing was abandoned (nesting too deep): the rest is skipped silently.
    gave_up: bool,
    /// The shared [`Name`] of each symbol met so far, by symbol number.
    shared: Vec<Option<Name>>,
    /// Emptied statement buffers for [`Parser::block`] to reuse: a block's statements are
    /// gathered in one and copied out once at the exact size, instead of growing a new
    /// vector (and one per item) for every block.
    scratch: Vec<Vec<Stmt>>,
    /// Symbols used in an expression (by symbol number).
    mentioned: Vec<bool>,
}

/// Keywords of GNU C's extensions (attributes, inline assembly, statement-level
/// `typeof`): a syntax error next to one names it.
const GNU_EXTENSIONS: &[&str] =
    &["__attribute__", "__attribute", "asm", "__asm__", "__asm", "typeof", "__typeof__", "__extension__", "__label__"];

/// A definition met inside a declaration and placed before it.
enum Hoisted {
    Struct(StructDef),
    Enum(EnumDef),
}

/// What a declaration turned out to be.
enum Decl {
    Var(VarDecl),
    Func(FuncDef),
    Typedef(VarDecl),
    /// `struct S {…};`: only the (hoisted) struct.
    Nothing,
}

/// A keyword that can begin a declaration: a type, a storage class, a qualifier, or a
/// type keyword that is reported as not supported.
fn is_type_start(k: TokenKind) -> bool {
    use Keyword::*;
    matches!(
        k,
        TokenKind::Kw(
            Int | Float
                | Char
                | Void
                | Struct
                | Spinlock
                | Typedef
                | Enum
                | Union
                | Const
                | Volatile
                | Restrict
                | Register
                | Auto
                | Static
                | Extern
                | Inline
                | Signed
                | Unsigned
                | Short
                | Long
                | Double
                | Bool
                | Complex
                | Atomic
                | Alignas
                | ThreadLocal
                | Noreturn
        )
    )
}

/// For a C keyword this compiler leaves out: the reason given in its error.
fn unsupported_keyword(k: Keyword) -> Option<&'static str> {
    use Keyword::*;
    Some(match k {
        Complex => ": complex arithmetic is outside CPC",
        Atomic | ThreadLocal => {
            ": CPC processes share no memory implicitly; use channels, spinlocks or remote references"
        }
        Alignas | Alignof => ": memory is made of words here, every object is word-aligned",
        Generic => ": selecting an expression by its type is left out (man cpcc, C SCOPE)",
        _ => return None,
    })
}

fn is_stmt_start(k: TokenKind) -> bool {
    use Keyword::*;
    is_type_start(k)
        || matches!(
            k,
            TokenKind::Kw(
                If | While
                    | Do
                    | For
                    | Switch
                    | Return
                    | Break
                    | Continue
                    | Forall
                    | Fork
                    | Join
                    | Case
                    | Default
                    | Goto
            )
        )
}

fn is_item_start(k: TokenKind) -> bool {
    is_type_start(k) || matches!(k, TokenKind::Kw(Keyword::Arch | Keyword::PhyArch | Keyword::Channel))
}

impl Parser<'_> {
    // ----- token access -------------------------------------------------------------

    fn peek(&self) -> Token {
        self.toks.get(self.pos).copied().unwrap_or(self.eof)
    }

    fn peek_at(&self, n: usize) -> Token {
        self.toks.get(self.pos + n).copied().unwrap_or(self.eof)
    }

    fn prev(&self) -> Option<Token> {
        self.pos.checked_sub(1).and_then(|i| self.toks.get(i)).copied()
    }

    fn bump(&mut self) -> Token {
        let t = self.peek();
        if t.kind != TokenKind::Eof {
            self.pos += 1;
        }
        t
    }

    fn at(&self, p: Punct) -> bool {
        self.peek().kind == TokenKind::Punct(p)
    }

    fn at_kw(&self, k: Keyword) -> bool {
        self.peek().kind == TokenKind::Kw(k)
    }

    fn eat(&mut self, p: Punct) -> bool {
        let yes = self.at(p);
        if yes {
            self.pos += 1;
        }
        yes
    }

    fn describe(&self, t: Token) -> String {
        t.kind.describe(self.names)
    }

    // ----- errors -------------------------------------------------------------------

    fn error(&mut self, loc: Loc, msg: impl Into<String>) -> Fail {
        if self.last_err != Some(self.pos) && !self.gave_up {
            self.last_err = Some(self.pos);
            // A syntax error at or just after a GNU extension's keyword is that
            // extension: name it rather than the token the grammar expected.
            let near = self.toks.get(self.pos.saturating_sub(2)..(self.pos + 1).min(self.toks.len())).unwrap_or(&[]);
            let gnu = near.iter().rev().find_map(|t| match t.kind {
                TokenKind::Ident(s) if GNU_EXTENSIONS.contains(&self.names.name(s)) => {
                    Some((t.loc, self.names.name(s)))
                }
                _ => None,
            });
            let d = match gnu {
                Some((at, name)) => Diagnostic::error(
                    at,
                    format!("`{name}` is a GNU extension cpcc does not support (man cpcc, C SCOPE)"),
                ),
                None => Diagnostic::error(loc, msg),
            };
            self.diags.push(d);
        }
        Fail
    }

    /// "expected X, found Y" at the current token.
    fn expected(&mut self, what: &str) -> Fail {
        let t = self.peek();
        let msg = format!("expected {what}, found {}", self.describe(t));
        self.error(t.loc, msg)
    }

    fn expect_punct(&mut self, p: Punct, context: &str) -> PResult<Token> {
        if self.at(p) {
            return Ok(self.bump());
        }
        Err(self.expected(&format!("`{}` {context}", p.as_str())))
    }

    fn expect_ident(&mut self, what: &str) -> PResult<(String, Loc)> {
        match self.peek().kind {
            TokenKind::Ident(s) => {
                let t = self.bump();
                Ok((self.names.name(s).to_string(), t.loc))
            }
            _ => Err(self.expected(what)),
        }
    }

    /// The shared spelling of symbol `s` (made on first use, then cloned).
    fn name_of(&mut self, s: Sym) -> Name {
        let i = s.0 as usize;
        if i >= self.shared.len() {
            self.shared.resize(i + 1, None);
        }
        let slot = &mut self.shared[i];
        slot.get_or_insert_with(|| Name::from(self.names.name(s))).clone()
    }

    /// The place just after the previous token, where a forgotten `;` belongs.
    fn after_prev(&self) -> Loc {
        match self.prev() {
            Some(t) => Loc { col: t.loc.col + t.loc.len, len: 1, ..t.loc },
            None => self.peek().loc,
        }
    }

    /// Expects the `;` ending `what`. When it is missing but the next token is `}`, the
    /// end of file, or on a later line, the `;` is taken as forgotten: reported, and
    /// parsing continues without skipping anything.
    fn expect_semi(&mut self, what: &str) -> PResult<()> {
        if self.eat(Punct::Semi) {
            return Ok(());
        }
        let t = self.peek();
        let msg = format!("expected `;` after {what}, found {}", self.describe(t));
        let loc = self.after_prev();
        self.error(loc, msg);
        let later_line = self.prev().is_some_and(|p| p.loc.file != t.loc.file || t.loc.line > p.loc.line);
        if later_line || matches!(t.kind, TokenKind::Eof | TokenKind::Punct(Punct::RBrace)) {
            Ok(())
        } else {
            Err(Fail)
        }
    }

    fn enter(&mut self) -> PResult<()> {
        if self.depth >= MAX_DEPTH {
            // Too deep to be a real program: report once and stop parsing, rather than
            // recover into a cascade of errors from the half-nested text.
            let loc = self.peek().loc;
            let fail = self.error(loc, format!("nesting too deep (more than {MAX_DEPTH} levels)"));
            self.gave_up = true;
            self.pos = self.toks.len();
            return Err(fail);
        }
        self.depth += 1;
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Skips the rest of a bad statement: up to and including `;`, up to (not
    /// including) the `}` closing the current block, past a balanced `{…}`, or up to a
    /// statement keyword starting a later line.
    fn sync_stmt(&mut self, start: usize) {
        let mut depth = self.open_braces_since(start);
        loop {
            let t = self.peek();
            match t.kind {
                TokenKind::Eof => return,
                TokenKind::Punct(Punct::RBrace) if depth == 0 => return,
                TokenKind::Punct(Punct::Semi) if depth == 0 => {
                    self.bump();
                    return;
                }
                TokenKind::Punct(Punct::LBrace) => depth += 1,
                TokenKind::Punct(Punct::RBrace) => {
                    depth -= 1;
                    self.bump();
                    if depth == 0 {
                        return;
                    }
                    continue;
                }
                k if depth == 0 && self.pos > start && is_stmt_start(k) && self.starts_line() => return,
                _ => {}
            }
            self.bump();
        }
    }

    /// Skips the rest of a bad top-level declaration (braces balanced).
    fn sync_item(&mut self, start: usize) {
        let mut depth = self.open_braces_since(start);
        loop {
            let t = self.peek();
            match t.kind {
                TokenKind::Eof => return,
                TokenKind::Punct(Punct::Semi) if depth == 0 => {
                    self.bump();
                    return;
                }
                TokenKind::Punct(Punct::LBrace) => depth += 1,
                TokenKind::Punct(Punct::RBrace) => {
                    self.bump();
                    if depth <= 1 {
                        return;
                    }
                    depth -= 1;
                    continue;
                }
                k if depth == 0 && self.pos > start && is_item_start(k) && self.starts_line() => return,
                _ => {}
            }
            self.bump();
        }
    }

    /// Records the identifiers of the tokens skipped since `start` (see `poisoned`).
    fn poison(&mut self, start: usize) {
        for t in self.toks.get(start..self.pos).unwrap_or(&[]) {
            if let TokenKind::Ident(s) = t.kind {
                self.poisoned.push(s);
            }
        }
    }

    /// Braces opened and not yet closed by the bad construct that began at `start`
    /// (an initialiser list abandoned half-way), so recovery skips to their end.
    fn open_braces_since(&self, start: usize) -> u32 {
        let mut depth = 0u32;
        for t in self.toks.get(start..self.pos).unwrap_or(&[]) {
            match t.kind {
                TokenKind::Punct(Punct::LBrace) => depth += 1,
                TokenKind::Punct(Punct::RBrace) => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        depth
    }

    fn starts_line(&self) -> bool {
        let t = self.peek();
        self.prev().is_none_or(|p| p.loc.file != t.loc.file || p.loc.line < t.loc.line)
    }

    // ----- top level ----------------------------------------------------------------

    fn program(&mut self) -> Program {
        let mut items = Vec::new();
        while self.peek().kind != TokenKind::Eof {
            let start = self.pos;
            let mark = self.hoisted.len();
            let item = self.item();
            items.extend(self.hoisted.drain(mark..).map(|h| match h {
                Hoisted::Struct(s) => Item::Struct(s),
                Hoisted::Enum(e) => Item::Enum(e),
            }));
            match item {
                Ok(Some(i)) => items.push(i),
                Ok(None) => {}
                Err(Fail) => {
                    self.sync_item(start);
                    self.poison(start);
                }
            }
            if self.pos == start {
                self.bump();
            }
        }
        Program { items, poisoned: Vec::new(), self_referenced: Vec::new(), mentioned: Default::default() }
    }

    fn item(&mut self) -> PResult<Option<Item>> {
        let t = self.peek();
        match t.kind {
            TokenKind::Kw(Keyword::Arch) => Ok(Some(Item::Arch(self.arch_decl()?))),
            TokenKind::Kw(Keyword::PhyArch) => Ok(Some(Item::PhyArch(self.arch_decl()?))),
            TokenKind::Kw(Keyword::Channel) => Ok(Some(Item::Channel(self.channel_decl()?))),
            TokenKind::Punct(Punct::Semi) => {
                self.bump();
                Ok(None)
            }
            _ if self.starts_type(t) => {
                let ty = self.type_spec()?;
                Ok(match self.decl_rest(ty)? {
                    Decl::Var(v) => Some(Item::Var(v)),
                    Decl::Func(f) => Some(Item::Func(f)),
                    Decl::Typedef(v) => Some(Item::Typedef(v)),
                    Decl::Nothing => None,
                })
            }
            TokenKind::Kw(Keyword::StaticAssert) => Ok(Some(Item::StaticAssert(self.static_assert()?))),
            TokenKind::Kw(k) if unsupported_keyword(k).is_some() => Err(self.unsupported(t, k)),
            // Old-style `main() {…}`: the return type defaults to int.
            TokenKind::Ident(_) if self.peek_at(1).kind == TokenKind::Punct(Punct::LParen) => {
                let ty = TypeSpec::new(BaseType::Int, t.loc);
                Ok(match self.decl_rest(ty)? {
                    Decl::Func(f) => Some(Item::Func(f)),
                    Decl::Var(v) => Some(Item::Var(v)),
                    Decl::Typedef(v) => Some(Item::Typedef(v)),
                    Decl::Nothing => None,
                })
            }
            TokenKind::Ident(_) if matches!(self.peek_at(1).kind, TokenKind::Ident(_)) => {
                let msg = unknown_type(self.names_of(t));
                Err(self.error(t.loc, msg))
            }
            _ => Err(self.expected("a declaration")),
        }
    }

    fn names_of(&self, t: Token) -> &str {
        match t.kind {
            TokenKind::Ident(s) => self.names.name(s),
            _ => "",
        }
    }

    fn arch_decl(&mut self) -> PResult<ArchDecl> {
        let kw = self.bump();
        let (topo, topo_loc) = self.expect_ident("a topology name (such as `mesh` or `torus`)")?;
        let (name, _) = self.expect_ident("an architecture name")?;
        let mut dims = Vec::new();
        while self.eat(Punct::LBracket) {
            dims.push(self.cond_expr()?);
            self.expect_punct(Punct::RBracket, "to close the dimension")?;
        }
        self.expect_semi("architecture declaration")?;
        Ok(ArchDecl { topo, topo_loc, name, dims, loc: kw.loc })
    }

    fn channel_decl(&mut self) -> PResult<ChannelDecl> {
        let kw = self.bump();
        let ty = self.type_spec()?;
        let mut decls = Vec::new();
        loop {
            let d = self.declarator(false)?;
            if d.pointers > 0 || d.is_ref || d.dims.iter().any(Option::is_none) {
                return Err(self.error(d.loc, "a channel is declared as `Name` or `Name[size]…` only"));
            }
            if self.at(Punct::Assign) {
                return Err(self.expected("`,` or `;` (channels have no initialiser)"));
            }
            decls.push(d);
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect_semi("channel declaration")?;
        Ok(ChannelDecl { ty, decls, loc: kw.loc })
    }
}

#[cfg(test)]
mod tests;

/// The message for a declaration that starts with `name`, which names no type: an MPI
/// type that `<mpi.h>` does not provide says so.
fn unknown_type(name: &str) -> String {
    if name.starts_with("MPI_") && name.len() > 4 {
        format!("`{name}` is not supported: cpcc's <mpi.h> has the subset `man cpcc` lists under MPI")
    } else {
        format!("unknown type name `{name}`")
    }
}
