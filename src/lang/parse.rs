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
//! Depends on `token`, `ast` and `diag`.
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
    };
    let program = p.program();
    let mut poisoned = p.poisoned;
    poisoned.sort_unstable();
    poisoned.dedup();
    Program { poisoned: poisoned.into_iter().map(|s| Name::from(names.name(s))).collect(), ..program }
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
}

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

const PREC_COMMA: u8 = 1;
const PREC_ASSIGN: u8 = 2;
const PREC_COND: u8 = 3;

enum Infix {
    Comma,
    Assign(Option<BinOp>),
    Cond,
    Bin(BinOp),
}

fn infix(k: TokenKind) -> Option<(u8, Infix)> {
    use Punct::*;
    let TokenKind::Punct(p) = k else { return None };
    Some(match p {
        Comma => (PREC_COMMA, Infix::Comma),
        Assign => (PREC_ASSIGN, Infix::Assign(None)),
        StarAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::Mul))),
        SlashAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::Div))),
        PercentAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::Mod))),
        PlusAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::Add))),
        MinusAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::Sub))),
        ShlAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::Shl))),
        ShrAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::Shr))),
        AmpAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::BitAnd))),
        CaretAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::BitXor))),
        PipeAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::BitOr))),
        Question => (PREC_COND, Infix::Cond),
        PipePipe => (4, Infix::Bin(BinOp::Or)),
        AmpAmp => (5, Infix::Bin(BinOp::And)),
        Pipe => (6, Infix::Bin(BinOp::BitOr)),
        Caret => (7, Infix::Bin(BinOp::BitXor)),
        Amp => (8, Infix::Bin(BinOp::BitAnd)),
        EqEq => (9, Infix::Bin(BinOp::Eq)),
        Ne => (9, Infix::Bin(BinOp::Ne)),
        Lt => (10, Infix::Bin(BinOp::Lt)),
        Le => (10, Infix::Bin(BinOp::Le)),
        Gt => (10, Infix::Bin(BinOp::Gt)),
        Ge => (10, Infix::Bin(BinOp::Ge)),
        Shl => (11, Infix::Bin(BinOp::Shl)),
        Shr => (11, Infix::Bin(BinOp::Shr)),
        Plus => (12, Infix::Bin(BinOp::Add)),
        Minus => (12, Infix::Bin(BinOp::Sub)),
        Star => (13, Infix::Bin(BinOp::Mul)),
        Slash => (13, Infix::Bin(BinOp::Div)),
        Percent => (13, Infix::Bin(BinOp::Mod)),
        _ => return None,
    })
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
            self.diags.push(Diagnostic::error(loc, msg));
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
        Program { items, poisoned: Vec::new(), self_referenced: Vec::new() }
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
                let msg = format!("unknown type name `{}`", self.names_of(t));
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

    // ----- declarations -------------------------------------------------------------

    /// Whether `t` begins a declaration: a declaration keyword or a typedef name.
    fn starts_type(&self, t: Token) -> bool {
        match t.kind {
            TokenKind::Ident(s) => self.is_typedef.get(s.0 as usize).is_some_and(|&n| n > 0),
            k => is_type_start(k),
        }
    }

    /// Declares `s` a typedef name in the current block.
    fn add_typedef(&mut self, s: Sym) {
        let i = s.0 as usize;
        if i >= self.is_typedef.len() {
            self.is_typedef.resize(i + 1, 0);
        }
        self.is_typedef[i] += 1;
        self.typedefs.push(s);
    }

    /// Forgets the typedef names declared since the scope mark `mark`.
    fn drop_typedefs(&mut self, mark: usize) {
        while self.typedefs.len() > mark {
            if let Some(s) = self.typedefs.pop() {
                if let Some(n) = self.is_typedef.get_mut(s.0 as usize) {
                    *n = n.saturating_sub(1);
                }
            }
        }
    }

    /// "`X` is not supported" for a C keyword this compiler does not implement yet.
    fn unsupported(&mut self, t: Token, k: Keyword) -> Fail {
        let why = unsupported_keyword(k).unwrap_or("");
        self.error(t.loc, format!("`{}` is not supported{why}", k.as_str()))
    }

    /// The declaration specifiers: storage class, qualifiers and one type, in any order
    /// (`static const int`, `int const`, `signed`).
    fn type_spec(&mut self) -> PResult<TypeSpec> {
        let mut storage = Storage::None;
        let mut konst = false;
        let mut base: Option<(BaseType, Loc)> = None;
        let mut signed = None;
        let mut short: Option<Token> = None;
        let mut longs: Vec<Token> = Vec::new();
        loop {
            let t = self.peek();
            let class = match t.kind {
                TokenKind::Kw(Keyword::Typedef) => Some(Storage::Typedef),
                TokenKind::Kw(Keyword::Extern) => Some(Storage::Extern),
                TokenKind::Kw(Keyword::Static) => Some(Storage::Static),
                TokenKind::Kw(Keyword::Auto) => Some(Storage::Auto),
                TokenKind::Kw(Keyword::Register) => Some(Storage::Register),
                _ => None,
            };
            if let Some(c) = class {
                if storage != Storage::None {
                    return Err(self.error(t.loc, "a declaration has at most one storage class"));
                }
                storage = c;
                self.bump();
                continue;
            }
            let b = match t.kind {
                TokenKind::Kw(
                    k @ (Keyword::Const | Keyword::Volatile | Keyword::Restrict | Keyword::Inline | Keyword::Noreturn),
                ) => {
                    konst |= k == Keyword::Const;
                    self.bump();
                    continue;
                }
                TokenKind::Kw(Keyword::Long) => {
                    self.bump();
                    if longs.len() == 2 {
                        return Err(self.error(t.loc, "`long long long` is too long"));
                    }
                    longs.push(t);
                    continue;
                }
                TokenKind::Kw(Keyword::Short) => {
                    self.bump();
                    if short.is_some() {
                        return Err(self.error(t.loc, "`short` given twice"));
                    }
                    short = Some(t);
                    continue;
                }
                TokenKind::Kw(k @ (Keyword::Signed | Keyword::Unsigned)) => {
                    self.bump();
                    if signed.is_some() {
                        return Err(self.error(t.loc, "`signed` or `unsigned` given twice"));
                    }
                    signed = Some((k == Keyword::Unsigned, t));
                    continue;
                }
                TokenKind::Kw(k) if unsupported_keyword(k).is_some() => return Err(self.unsupported(t, k)),
                _ if base.is_some() => break,
                TokenKind::Kw(Keyword::Int) => BaseType::Int,
                TokenKind::Kw(Keyword::Float) => BaseType::Float,
                TokenKind::Kw(Keyword::Char) => BaseType::Char,
                TokenKind::Kw(Keyword::Void) => BaseType::Void,
                TokenKind::Kw(Keyword::Spinlock) => BaseType::Spinlock,
                TokenKind::Kw(Keyword::Bool) => BaseType::Bool,
                TokenKind::Kw(Keyword::Double) => BaseType::Double,
                TokenKind::Kw(k @ (Keyword::Struct | Keyword::Union)) => {
                    self.bump();
                    let ts = self.struct_spec(t.loc, k == Keyword::Union)?;
                    base = Some((ts.base, t.loc));
                    continue;
                }
                TokenKind::Kw(Keyword::Enum) => {
                    self.bump();
                    self.enum_spec(t.loc)?;
                    base = Some((BaseType::Enum, t.loc));
                    continue;
                }
                TokenKind::Ident(s) if self.starts_type(t) => BaseType::Typedef(self.name_of(s)),
                _ => break,
            };
            self.bump();
            base = Some((b, t.loc));
        }
        let (base, loc) = match (base, signed) {
            (Some((BaseType::Double, loc)), _) if !longs.is_empty() => {
                return Err(
                    self.error(loc, "`long double` is not supported: `double` is the widest floating type here")
                );
            }
            (None | Some((BaseType::Int, _)), Some((true, _))) if !longs.is_empty() => (BaseType::ULong, longs[0].loc),
            (None | Some((BaseType::Int, _)), _) if !longs.is_empty() => (BaseType::Long, longs[0].loc),
            (Some((_, loc)), _) if !longs.is_empty() => {
                return Err(self.error(loc, "`long` applies only to `int` and `double`"));
            }
            (None | Some((BaseType::Int, _)), _) if short.is_some() => {
                let loc = short.map_or(Loc::default(), |t| t.loc);
                match signed {
                    Some((true, _)) => (BaseType::UShort, loc),
                    _ => (BaseType::Short, loc),
                }
            }
            (Some((_, loc)), _) if short.is_some() => {
                return Err(self.error(loc, "`short` applies only to `int`"));
            }
            (Some((BaseType::Int, loc)), None | Some((false, _))) => (BaseType::Int, loc),
            (Some((BaseType::Int, loc)), Some((true, _))) => (BaseType::UInt, loc),
            (None, Some((unsigned, t))) => (if unsigned { BaseType::UInt } else { BaseType::Int }, t.loc),
            // `char` holds 0..255 here: it is `unsigned char`.
            (Some((BaseType::Char, loc)), Some((true, _))) => (BaseType::Char, loc),
            (Some((BaseType::Char, loc)), Some((false, _))) => (BaseType::SChar, loc),
            (Some((_, loc)), Some(_)) => {
                return Err(self.error(loc, "`signed` and `unsigned` apply only to integer types"));
            }
            (Some(b), None) => b,
            (None, None) => return Err(self.expected("a type")),
        };
        Ok(TypeSpec { base, loc, storage, konst })
    }

    /// After `enum`: a name, a body, or both. A body is hoisted as an [`EnumDef`].
    fn enum_spec(&mut self, loc: Loc) -> PResult<()> {
        let named = matches!(self.peek().kind, TokenKind::Ident(_));
        if named {
            self.bump();
        }
        if !self.at(Punct::LBrace) {
            return if named { Ok(()) } else { Err(self.expected("an enum name or `{`")) };
        }
        self.bump();
        let mut items = Vec::new();
        loop {
            if self.eat(Punct::RBrace) {
                break;
            }
            let TokenKind::Ident(s) = self.peek().kind else {
                return Err(self.expected("an enumerator name"));
            };
            let t = self.bump();
            let name = self.name_of(s);
            let value = if self.eat(Punct::Assign) { Some(self.cond_expr()?) } else { None };
            items.push((name, t.loc, value));
            if !self.eat(Punct::Comma) {
                self.expect_punct(Punct::RBrace, "to close the enum")?;
                break;
            }
        }
        if items.is_empty() {
            return Err(self.error(loc, "an enum needs at least one enumerator"));
        }
        self.hoisted.push(Hoisted::Enum(EnumDef { items, loc }));
        Ok(())
    }

    /// After `struct` (or `union`): a name, a body, or both. Structs and unions share
    /// one name space (C's tags).
    fn struct_spec(&mut self, loc: Loc, union: bool) -> PResult<TypeSpec> {
        let name = match self.peek().kind {
            TokenKind::Ident(s) => {
                self.bump();
                Some(self.names.name(s).to_string())
            }
            _ => None,
        };
        if !self.at(Punct::LBrace) {
            return match name {
                Some(n) => Ok(TypeSpec::new(BaseType::Struct(n), loc)),
                None => Err(self.expected("a struct name or `{`")),
            };
        }
        let name = name.unwrap_or_else(|| {
            self.anon += 1;
            format!("<anon {}>", self.anon)
        });
        self.enter()?;
        let fields = self.struct_fields();
        self.leave();
        self.hoisted.push(Hoisted::Struct(StructDef { name: name.clone(), fields: fields?, loc, union }));
        Ok(TypeSpec::new(BaseType::Struct(name), loc))
    }

    fn struct_fields(&mut self) -> PResult<Vec<VarDecl>> {
        let open = self.bump();
        let mut fields = Vec::new();
        loop {
            match self.peek().kind {
                TokenKind::Punct(Punct::RBrace) => {
                    self.bump();
                    return Ok(fields);
                }
                TokenKind::Eof => {
                    let msg = format!("expected `}}` to close the struct opened at line {}", open.loc.line);
                    return Err(self.expected_msg(msg));
                }
                _ => {}
            }
            let start = self.pos;
            match self.field() {
                Ok(Some(f)) => fields.push(f),
                Ok(None) => {}
                Err(Fail) => self.sync_stmt(start),
            }
            if self.pos == start {
                self.bump();
            }
        }
    }

    fn expected_msg(&mut self, what: String) -> Fail {
        let t = self.peek();
        let msg = format!("{what}, found {}", self.describe(t));
        self.error(t.loc, msg)
    }

    fn field(&mut self) -> PResult<Option<VarDecl>> {
        let ty = self.type_spec()?;
        if self.eat(Punct::Semi) {
            return Ok(None);
        }
        let mut decls = Vec::new();
        loop {
            let d = self.declarator(false)?;
            if self.at(Punct::Colon) {
                return Err(self.error(self.peek().loc, "bit-fields are not supported: give the field its own `int`"));
            }
            if self.at(Punct::Assign) || self.at(Punct::LParen) {
                return Err(self.expected("`,` or `;` in a struct field"));
            }
            decls.push(d);
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect_semi("struct field")?;
        Ok(Some(VarDecl { loc: ty.loc, ty, decls }))
    }

    /// `*…` `&`? name `[d]…` (no initialiser). `unnamed` allows leaving out the name
    /// (parameters of a prototype).
    fn declarator(&mut self, unnamed: bool) -> PResult<Declarator> {
        let mut pointers = 0;
        let mut const_pointer = false;
        while self.eat(Punct::Star) {
            pointers += 1;
            const_pointer = self.skip_qualifiers();
        }
        let is_ref = self.eat(Punct::Amp);
        if self.at(Punct::LParen) && self.peek_at(1).kind == TokenKind::Punct(Punct::Star) {
            return self.func_ptr_declarator(pointers, unnamed);
        }
        let (name, loc) = match self.peek().kind {
            TokenKind::Ident(s) => {
                let t = self.bump();
                self.last_decl_sym = Some(s);
                (self.name_of(s), t.loc)
            }
            _ if unnamed
                && matches!(self.peek().kind, TokenKind::Punct(Punct::Comma | Punct::RParen | Punct::LBracket)) =>
            {
                (Name::from(""), self.peek().loc)
            }
            _ => return Err(self.expected("a name")),
        };
        let mut dims = Vec::new();
        while self.eat(Punct::LBracket) {
            if self.eat(Punct::RBracket) {
                dims.push(None);
                continue;
            }
            dims.push(Some(self.cond_expr()?));
            self.expect_punct(Punct::RBracket, "to close the array dimension")?;
        }
        Ok(Declarator { name, loc, pointers, const_pointer, is_ref, dims, init: None, func: None })
    }

    /// `( * name [dims] ) ( params )` after the result type's `*`s.
    fn func_ptr_declarator(&mut self, pointers: u32, unnamed: bool) -> PResult<Declarator> {
        self.bump();
        let mut inner = 0;
        while self.eat(Punct::Star) {
            inner += 1;
            self.skip_qualifiers();
        }
        let mut d = self.declarator(unnamed)?;
        if d.func.is_some() || d.pointers > 0 || d.is_ref {
            return Err(self.error(d.loc, "only `(*name)(params)` function pointers are supported"));
        }
        self.expect_punct(Punct::RParen, "to close `(*name`")?;
        self.expect_punct(Punct::LParen, "to open the parameters of the function pointer")?;
        let (params, variadic) = self.params()?;
        d.pointers = pointers;
        d.func = Some(Box::new(FuncPtr { pointers: inner, params, variadic }));
        Ok(d)
    }

    /// Skips `const`, `volatile` and `restrict` (after a `*`): they do not change the
    /// generated code. Whether one was `const`.
    fn skip_qualifiers(&mut self) -> bool {
        let mut konst = false;
        while let TokenKind::Kw(k @ (Keyword::Const | Keyword::Volatile | Keyword::Restrict)) = self.peek().kind {
            konst |= k == Keyword::Const;
            self.bump();
        }
        konst
    }

    /// The declarators after a type: variables, or one function (definition or
    /// prototype). Consumes the final `;` (or the function body).
    fn decl_rest(&mut self, ty: TypeSpec) -> PResult<Decl> {
        if matches!(ty.base, BaseType::Struct(_) | BaseType::Enum) && self.eat(Punct::Semi) {
            return Ok(Decl::Nothing);
        }
        if ty.storage == Storage::Typedef {
            let mut decls = Vec::new();
            loop {
                self.last_decl_sym = None;
                let d = self.declarator(false)?;
                if d.is_ref || self.at(Punct::Assign) || self.at(Punct::LParen) {
                    return Err(self.error(d.loc, "a typedef names a type: no `&`, initialiser or parameters"));
                }
                if let Some(s) = self.last_decl_sym {
                    self.add_typedef(s);
                }
                decls.push(d);
                if !self.eat(Punct::Comma) {
                    break;
                }
            }
            self.expect_semi("typedef")?;
            return Ok(Decl::Typedef(VarDecl { loc: ty.loc, ty, decls }));
        }
        let first = self.declarator(false)?;
        if self.at(Punct::LParen) {
            return self.function(ty, first).map(Decl::Func);
        }
        let mut decls = Vec::new();
        let mut d = first;
        loop {
            if self.eat(Punct::Assign) {
                d.init = Some(self.init()?);
            }
            decls.push(d);
            if !self.eat(Punct::Comma) {
                break;
            }
            d = self.declarator(false)?;
            if self.at(Punct::LParen) {
                return Err(
                    self.error(self.peek().loc, "a function must be declared on its own, not after other names")
                );
            }
        }
        self.expect_semi("declaration")?;
        Ok(Decl::Var(VarDecl { loc: ty.loc, ty, decls }))
    }

    fn init(&mut self) -> PResult<Init> {
        if !self.at(Punct::LBrace) {
            return Ok(Init::Expr(self.assign_expr()?));
        }
        self.enter()?;
        let open = self.bump();
        let r = self.init_list(open.loc);
        self.leave();
        r
    }

    fn init_list(&mut self, loc: Loc) -> PResult<Init> {
        let mut items = Vec::new();
        loop {
            if self.eat(Punct::RBrace) {
                return Ok(Init::List(items, loc));
            }
            if self.at(Punct::Dot) || self.at(Punct::LBracket) {
                let mut path = Vec::new();
                loop {
                    if self.eat(Punct::Dot) {
                        let TokenKind::Ident(s) = self.peek().kind else {
                            return Err(self.expected("a field name after `.` in a designator"));
                        };
                        let t = self.bump();
                        path.push(Designator::Field(self.name_of(s), t.loc));
                    } else if self.eat(Punct::LBracket) {
                        path.push(Designator::Index(self.cond_expr()?));
                        self.expect_punct(Punct::RBracket, "to close the designator")?;
                    } else {
                        break;
                    }
                }
                self.expect_punct(Punct::Assign, "after the designator")?;
                items.push(Init::Designated(path, Box::new(self.init()?)));
            } else {
                items.push(self.init()?);
            }
            if !self.eat(Punct::Comma) {
                self.expect_punct(Punct::RBrace, "to close the initialiser list")?;
                return Ok(Init::List(items, loc));
            }
        }
    }

    fn function(&mut self, ret: TypeSpec, d: Declarator) -> PResult<FuncDef> {
        if d.is_ref || !d.dims.is_empty() {
            return Err(self.error(d.loc, format!("`{}` cannot be a function returning an array or reference", d.name)));
        }
        self.bump();
        let (params, variadic) = self.params()?;
        let body = if self.at(Punct::LBrace) {
            Some(self.block()?)
        } else {
            self.expect_semi("function prototype")?;
            None
        };
        Ok(FuncDef { ret, ret_pointers: d.pointers, name: d.name.to_string(), loc: d.loc, params, variadic, body })
    }

    /// Parameters after `(`, through `)`, and whether `...` ends them.
    fn params(&mut self) -> PResult<(Vec<Param>, bool)> {
        let mut params = Vec::new();
        if self.eat(Punct::RParen) {
            return Ok((params, false));
        }
        if self.at_kw(Keyword::Void) && self.peek_at(1).kind == TokenKind::Punct(Punct::RParen) {
            self.bump();
            self.bump();
            return Ok((params, false));
        }
        loop {
            if self.at(Punct::Dot) {
                let t = self.peek();
                let dots = (0..3).all(|k| self.peek_at(k).kind == TokenKind::Punct(Punct::Dot));
                if !dots {
                    return Err(self.expected("a parameter type"));
                }
                if params.is_empty() {
                    return Err(self.error(t.loc, "`...` needs a named parameter before it (C99)"));
                }
                self.bump();
                self.bump();
                self.bump();
                self.expect_punct(Punct::RParen, "after `...`")?;
                return Ok((params, true));
            }
            if !self.starts_type(self.peek()) {
                return Err(self.expected("a parameter type"));
            }
            let ty = self.type_spec()?;
            let decl = self.declarator(true)?;
            if self.at(Punct::Assign) {
                return Err(self.expected("`,` or `)` (parameters have no default value)"));
            }
            params.push(Param { ty, decl });
            if !self.eat(Punct::Comma) {
                self.expect_punct(Punct::RParen, "to close the parameter list")?;
                return Ok((params, false));
            }
        }
    }

    // ----- statements ---------------------------------------------------------------

    fn block(&mut self) -> PResult<Block> {
        // Enter before taking the `{` so that, when too deep, the enclosing block skips
        // this one whole (braces balanced).
        self.enter()?;
        let open = match self.expect_punct(Punct::LBrace, "to open a block") {
            Ok(t) => t,
            Err(f) => {
                self.leave();
                return Err(f);
            }
        };
        let typedef_mark = self.typedefs.len();
        let mut stmts = self.scratch.pop().unwrap_or_default();
        let mut out = self.scratch.pop().unwrap_or_default();
        let end = loop {
            let t = self.peek();
            match t.kind {
                TokenKind::Punct(Punct::RBrace) => break self.bump().loc,
                TokenKind::Eof => {
                    let msg = format!("expected `}}` to close the block opened at line {}", open.loc.line);
                    self.expected_msg(msg);
                    break t.loc;
                }
                _ => {}
            }
            let start = self.pos;
            let mark = self.hoisted.len();
            let r = self.block_item(&mut out);
            stmts.extend(self.hoisted.drain(mark..).map(|h| match h {
                Hoisted::Struct(s) => Stmt { loc: s.loc, kind: StmtKind::Struct(s) },
                Hoisted::Enum(e) => Stmt { loc: e.loc, kind: StmtKind::Enum(e) },
            }));
            stmts.append(&mut out);
            if r.is_err() {
                self.sync_stmt(start);
                self.poison(start);
            }
            if self.pos == start {
                self.bump();
            }
        };
        self.leave();
        self.drop_typedefs(typedef_mark);
        let mut exact = Vec::with_capacity(stmts.len());
        exact.append(&mut stmts);
        self.scratch.push(stmts);
        self.scratch.push(out);
        Ok(Block { stmts: exact, loc: open.loc, end })
    }

    /// A declaration or a statement inside a block.
    fn block_item(&mut self, out: &mut Vec<Stmt>) -> PResult<()> {
        let t = self.peek();
        match t.kind {
            TokenKind::Ident(_) if self.peek_at(1).kind == TokenKind::Punct(Punct::Colon) => {
                out.push(self.stmt()?);
                Ok(())
            }
            _ if self.starts_type(t) => {
                let ty = self.type_spec()?;
                match self.decl_rest(ty)? {
                    Decl::Var(v) => out.push(Stmt { loc: t.loc, kind: StmtKind::Decl(v) }),
                    Decl::Func(f) => out.push(Stmt { loc: t.loc, kind: StmtKind::Func(Box::new(f)) }),
                    Decl::Typedef(v) => out.push(Stmt { loc: t.loc, kind: StmtKind::Typedef(v) }),
                    Decl::Nothing => {}
                }
                Ok(())
            }
            TokenKind::Kw(Keyword::StaticAssert) => {
                let a = self.static_assert()?;
                out.push(Stmt { loc: a.loc, kind: StmtKind::StaticAssert(a) });
                Ok(())
            }
            TokenKind::Kw(k @ (Keyword::Channel | Keyword::Arch | Keyword::PhyArch)) => {
                Err(self.error(t.loc, format!("`{}` declarations must be at file level", k.as_str())))
            }
            TokenKind::Ident(_) if matches!(self.peek_at(1).kind, TokenKind::Ident(_)) => {
                let msg = format!("unknown type name `{}`", self.names_of(t));
                Err(self.error(t.loc, msg))
            }
            _ => {
                out.push(self.stmt()?);
                Ok(())
            }
        }
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        if self.at(Punct::LBrace) {
            let b = self.block()?;
            return Ok(Stmt { loc: b.loc, kind: StmtKind::Block(b) });
        }
        self.enter()?;
        let r = self.stmt_inner();
        self.leave();
        r
    }

    /// `( expr )` after a keyword; `after` is the message context ("after `if`").
    fn paren_expr(&mut self, after: &str) -> PResult<Expr> {
        self.expect_punct(Punct::LParen, after)?;
        let e = self.expr()?;
        self.expect_punct(Punct::RParen, "to close the condition")?;
        Ok(e)
    }

    // Each statement kind has its own function: in unoptimised builds one big match
    // would give every nesting level a frame as large as all arms together.
    fn stmt_inner(&mut self) -> PResult<Stmt> {
        let t = self.peek();
        let loc = t.loc;
        // One call through a function pointer keeps a single result temporary in this
        // frame, which matters for the stack depth of unoptimised builds.
        let f: fn(&mut Self) -> PResult<StmtKind> = match t.kind {
            TokenKind::Punct(Punct::Semi) => Self::empty_stmt,
            TokenKind::Kw(Keyword::If) => Self::if_stmt,
            TokenKind::Kw(Keyword::While) => Self::while_stmt,
            TokenKind::Kw(Keyword::Do) => Self::do_stmt,
            TokenKind::Kw(Keyword::For) => Self::for_stmt,
            TokenKind::Kw(Keyword::Switch) => Self::switch_stmt,
            TokenKind::Kw(Keyword::Case) => Self::case_label,
            TokenKind::Kw(Keyword::Default) => Self::default_label,
            TokenKind::Kw(Keyword::Break | Keyword::Continue | Keyword::Join) => Self::jump_stmt,
            TokenKind::Kw(Keyword::Return) => Self::return_stmt,
            TokenKind::Kw(Keyword::Forall) => Self::forall,
            TokenKind::Kw(Keyword::Fork) => Self::fork,
            TokenKind::Kw(Keyword::Goto) => Self::goto_stmt,
            TokenKind::Ident(_) if self.peek_at(1).kind == TokenKind::Punct(Punct::Colon) => Self::label,
            _ if self.starts_type(t) => return self.decl_stmt(loc),
            _ => Self::expr_stmt,
        };
        let kind = f(self)?;
        Ok(Stmt { kind, loc })
    }

    /// `_Static_assert ( constant [, "message"] ) ;`
    fn static_assert(&mut self) -> PResult<StaticAssert> {
        let kw = self.bump();
        self.expect_punct(Punct::LParen, "after `_Static_assert`")?;
        let cond = self.cond_expr()?;
        let mut message = Vec::new();
        if self.eat(Punct::Comma) {
            let TokenKind::Str(_) = self.peek().kind else {
                return Err(self.expected("a string literal as the message of `_Static_assert`"));
            };
            while let TokenKind::Str(id) = self.peek().kind {
                message.extend_from_slice(self.names.str_bytes(id));
                self.bump();
            }
        }
        self.expect_punct(Punct::RParen, "to close `_Static_assert`")?;
        self.expect_semi("`_Static_assert`")?;
        Ok(StaticAssert { cond, message, loc: kw.loc })
    }

    /// `goto name;`
    fn goto_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let TokenKind::Ident(s) = self.peek().kind else {
            return Err(self.expected("a label name after `goto`"));
        };
        self.bump();
        let name = self.name_of(s);
        self.expect_semi("`goto`")?;
        Ok(StmtKind::Goto(name))
    }

    /// `name:`
    fn label(&mut self) -> PResult<StmtKind> {
        let TokenKind::Ident(s) = self.bump().kind else {
            return Err(self.expected("a label"));
        };
        self.bump();
        Ok(StmtKind::Label(self.name_of(s)))
    }

    fn empty_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        Ok(StmtKind::Empty)
    }

    fn default_label(&mut self) -> PResult<StmtKind> {
        self.bump();
        self.expect_punct(Punct::Colon, "after `default`")?;
        Ok(StmtKind::Default)
    }

    /// `break;`, `continue;`, `join;`
    fn jump_stmt(&mut self) -> PResult<StmtKind> {
        let t = self.bump();
        let (kind, what) = match t.kind {
            TokenKind::Kw(Keyword::Break) => (StmtKind::Break, "`break`"),
            TokenKind::Kw(Keyword::Continue) => (StmtKind::Continue, "`continue`"),
            _ => (StmtKind::Join, "`join`"),
        };
        self.expect_semi(what)?;
        Ok(kind)
    }

    fn if_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let cond = self.paren_expr("after `if`")?;
        let then = Box::new(self.stmt()?);
        let els = if self.at_kw(Keyword::Else) {
            self.bump();
            Some(Box::new(self.stmt()?))
        } else {
            None
        };
        Ok(StmtKind::If { cond, then, els })
    }

    fn while_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let cond = self.paren_expr("after `while`")?;
        Ok(StmtKind::While { cond, body: Box::new(self.stmt()?) })
    }

    fn do_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let body = Box::new(self.stmt()?);
        if !self.at_kw(Keyword::While) {
            return Err(self.expected("`while` after the body of `do`"));
        }
        self.bump();
        let cond = self.paren_expr("after `while`")?;
        self.expect_semi("`do`-`while` statement")?;
        Ok(StmtKind::DoWhile { body, cond })
    }

    fn switch_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let expr = self.paren_expr("after `switch`")?;
        if !self.at(Punct::LBrace) {
            return Err(self.expected("`{` after `switch (…)`"));
        }
        Ok(StmtKind::Switch { expr: Box::new(expr), body: self.block()? })
    }

    fn case_label(&mut self) -> PResult<StmtKind> {
        self.bump();
        let e = self.cond_expr()?;
        self.expect_punct(Punct::Colon, "after the `case` value")?;
        Ok(StmtKind::Case(e))
    }

    fn return_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let e = if self.at(Punct::Semi) { None } else { Some(self.expr()?) };
        self.expect_semi("`return` statement")?;
        Ok(StmtKind::Return(e))
    }

    fn expr_stmt(&mut self) -> PResult<StmtKind> {
        let e = self.expr()?;
        let before = self.diags.len();
        let r = self.expect_semi("expression");
        // `retrun 0;`: a lone name where a keyword was meant.
        if let (ExprKind::Ident(n), Some(d)) = (&e.kind, self.diags.get_mut(before)) {
            let close =
                [Keyword::Return, Keyword::Goto, Keyword::Break, Keyword::Continue, Keyword::Struct, Keyword::Typedef]
                    .into_iter()
                    .chain([
                        Keyword::Int,
                        Keyword::Float,
                        Keyword::Char,
                        Keyword::Void,
                        Keyword::Static,
                        Keyword::Const,
                    ])
                    .find(|k| super::diag::edit_distance(n, k.as_str()) == 1);
            if let Some(k) = close {
                d.notes.push(format!("did you mean `{}`?", k.as_str()));
            }
        }
        r?;
        Ok(StmtKind::Expr(e))
    }

    /// A declaration as the body of `if`/`while`/…: alone, or in its own block when a
    /// struct definition came with it.
    fn decl_stmt(&mut self, loc: Loc) -> PResult<Stmt> {
        let mut out = Vec::new();
        self.block_item(&mut out)?;
        if out.len() == 1 {
            if let Some(s) = out.pop() {
                return Ok(s);
            }
        }
        let end = self.prev().map_or(loc, |p| p.loc);
        Ok(Stmt { kind: StmtKind::Block(Block { stmts: out, loc, end }), loc })
    }

    fn for_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        self.expect_punct(Punct::LParen, "after `for`")?;
        let t = self.peek();
        let init = if self.eat(Punct::Semi) {
            None
        } else if self.starts_type(t) {
            let ty = self.type_spec()?;
            match self.decl_rest(ty)? {
                Decl::Var(v) => Some(Box::new(Stmt { loc: t.loc, kind: StmtKind::Decl(v) })),
                Decl::Typedef(_) => return Err(self.error(t.loc, "a typedef cannot be declared in a `for` header")),
                Decl::Func(f) => return Err(self.error(f.loc, "a function cannot be declared in a `for` header")),
                Decl::Nothing => None,
            }
        } else {
            let e = self.expr()?;
            self.expect_punct(Punct::Semi, "after the `for` initialiser")?;
            Some(Box::new(Stmt { loc: t.loc, kind: StmtKind::Expr(e) }))
        };
        let cond = if self.at(Punct::Semi) { None } else { Some(self.expr()?) };
        self.expect_punct(Punct::Semi, "after the `for` condition")?;
        let step = if self.at(Punct::RParen) { None } else { Some(self.expr()?) };
        self.expect_punct(Punct::RParen, "to close the `for` header")?;
        let body = Box::new(self.stmt()?);
        Ok(StmtKind::For { init, cond: cond.map(Box::new), step: step.map(Box::new), body })
    }

    fn expect_word(&mut self, w: super::token::Sym, text: &str) -> PResult<()> {
        if self.peek().kind == TokenKind::Ident(w) {
            self.bump();
            return Ok(());
        }
        Err(self.expected(&format!("`{text}` in the `forall` header")))
    }

    fn forall(&mut self) -> PResult<StmtKind> {
        self.bump();
        self.expect_punct(Punct::LParen, "after `forall`")?;
        let (var, var_loc) = self.expect_ident("the index variable of `forall`")?;
        self.expect_word(words::FROM, "from")?;
        let lo = self.assign_expr()?;
        self.expect_word(words::TO, "to")?;
        let hi = self.assign_expr()?;
        let grouping = if self.peek().kind == TokenKind::Ident(words::GROUPING) {
            self.bump();
            Some(self.assign_expr()?)
        } else {
            None
        };
        self.expect_punct(Punct::RParen, "to close the `forall` header")?;
        let body = Box::new(self.stmt()?);
        Ok(StmtKind::Forall {
            var,
            var_loc,
            lo: Box::new(lo),
            hi: Box::new(hi),
            grouping: grouping.map(Box::new),
            body,
        })
    }

    fn fork(&mut self) -> PResult<StmtKind> {
        self.bump();
        let mut vproc = None;
        let mut chans = Vec::new();
        if self.eat(Punct::LBracket) {
            vproc = Some(self.assign_expr()?);
            if self.eat(Punct::Semi) && !self.at(Punct::RBracket) {
                loop {
                    chans.push(self.assign_expr()?);
                    if !self.eat(Punct::Comma) {
                        break;
                    }
                }
            }
            self.expect_punct(Punct::RBracket, "to close `fork [`")?;
        }
        let call = self.expr()?;
        self.expect_semi("`fork` statement")?;
        Ok(StmtKind::Fork { vproc: vproc.map(Box::new), chans, call: Box::new(call) })
    }

    // ----- expressions --------------------------------------------------------------

    fn expr(&mut self) -> PResult<Expr> {
        self.expr_bp(PREC_COMMA)
    }

    fn assign_expr(&mut self) -> PResult<Expr> {
        self.expr_bp(PREC_ASSIGN)
    }

    fn cond_expr(&mut self) -> PResult<Expr> {
        self.expr_bp(PREC_COND)
    }

    fn expr_bp(&mut self, min: u8) -> PResult<Expr> {
        self.enter()?;
        let spine = self.spine;
        let r = self.expr_bp_inner(min);
        self.spine = spine;
        self.leave();
        r
    }

    fn expr_bp_inner(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        // A chain `a + b + c …` builds a tree as deep as it is long, which the checker
        // and the code generator walk recursively: the chains open at once (`spine`) are
        // bounded, as nesting is.
        while let Some((prec, op)) = infix(self.peek().kind) {
            if prec < min {
                break;
            }
            self.spine += 1;
            if self.spine > MAX_CHAIN {
                let loc = self.peek().loc;
                let fail = self.error(loc, format!("expression too long (more than {MAX_CHAIN} operators in a row)"));
                self.gave_up = true;
                self.pos = self.toks.len();
                return Err(fail);
            }
            self.bump();
            let loc = lhs.loc;
            let kind = match op {
                Infix::Comma => ExprKind::Comma(Box::new((lhs, self.expr_bp(prec + 1)?))),
                Infix::Assign(op) => ExprKind::Assign(op, Box::new((lhs, self.expr_bp(prec)?))),
                Infix::Cond => {
                    let mid = self.expr()?;
                    self.expect_punct(Punct::Colon, "in the conditional expression")?;
                    let els = self.expr_bp(PREC_COND)?;
                    ExprKind::Cond(Box::new(lhs), Box::new(mid), Box::new(els))
                }
                Infix::Bin(op) => ExprKind::Binary(op, Box::new((lhs, self.expr_bp(prec + 1)?))),
            };
            lhs = Expr { kind, loc };
        }
        Ok(lhs)
    }

    fn type_name(&mut self) -> PResult<TypeName> {
        let base = self.type_spec()?;
        if base.storage != Storage::None {
            return Err(self.error(base.loc, "a storage class cannot appear in a type name"));
        }
        let mut pointers = 0;
        while self.eat(Punct::Star) {
            pointers += 1;
            self.skip_qualifiers();
        }
        if self.at(Punct::LParen) || self.at(Punct::LBracket) {
            return Err(self.error(
                self.peek().loc,
                "only `T` and `T *…` are supported as type names (no array or function type names)",
            ));
        }
        Ok(TypeName { base, pointers })
    }

    fn unary(&mut self) -> PResult<Expr> {
        let t = self.peek();
        let op = match t.kind {
            TokenKind::Punct(Punct::Minus) => Some(UnOp::Neg),
            TokenKind::Punct(Punct::Plus) => Some(UnOp::Plus),
            TokenKind::Punct(Punct::Bang) => Some(UnOp::Not),
            TokenKind::Punct(Punct::Tilde) => Some(UnOp::BitNot),
            TokenKind::Punct(Punct::Star) => Some(UnOp::Deref),
            TokenKind::Punct(Punct::Amp) => Some(UnOp::Addr),
            _ => None,
        };
        let prefix = op.is_some()
            || matches!(t.kind, TokenKind::Punct(Punct::PlusPlus | Punct::MinusMinus) | TokenKind::Kw(Keyword::Sizeof))
            || (t.kind == TokenKind::Punct(Punct::LParen) && self.starts_type(self.peek_at(1)));
        if !prefix {
            return self.postfix();
        }
        self.enter()?;
        let r = self.prefix(t, op);
        self.leave();
        r
    }

    fn prefix(&mut self, t: Token, op: Option<UnOp>) -> PResult<Expr> {
        self.bump();
        let kind = match t.kind {
            _ if op.is_some() => ExprKind::Unary(op.unwrap_or(UnOp::Plus), Box::new(self.unary()?)),
            TokenKind::Punct(p @ (Punct::PlusPlus | Punct::MinusMinus)) => {
                ExprKind::IncDec { pre: true, inc: p == Punct::PlusPlus, expr: Box::new(self.unary()?) }
            }
            TokenKind::Kw(Keyword::Sizeof) => {
                if self.at(Punct::LParen) && self.starts_type(self.peek_at(1)) {
                    self.bump();
                    let tn = self.type_name()?;
                    self.expect_punct(Punct::RParen, "after the type in `sizeof`")?;
                    ExprKind::SizeofType(tn)
                } else {
                    ExprKind::SizeofExpr(Box::new(self.unary()?))
                }
            }
            _ => {
                // `(type) operand`
                let tn = self.type_name()?;
                self.expect_punct(Punct::RParen, "after the type in a cast")?;
                if self.at(Punct::LBrace) {
                    let init = self.init()?;
                    let e = Expr { kind: ExprKind::Compound(Box::new((tn, init))), loc: t.loc };
                    return self.postfix_of(e);
                }
                ExprKind::Cast(tn, Box::new(self.unary()?))
            }
        };
        Ok(Expr { kind, loc: t.loc })
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let e = self.primary()?;
        self.postfix_of(e)
    }

    /// The postfix operators (`[i]`, `(args)`, `.f`, `->f`, `++`, `--`) after `e`.
    fn postfix_of(&mut self, mut e: Expr) -> PResult<Expr> {
        let mut chain = 0u32;
        loop {
            let t = self.peek();
            let loc = e.loc;
            chain += 1;
            if chain > MAX_CHAIN {
                let fail = self
                    .error(t.loc, format!("expression too long (more than {MAX_CHAIN} postfix operators in a row)"));
                self.gave_up = true;
                self.pos = self.toks.len();
                return Err(fail);
            }
            let kind = match t.kind {
                TokenKind::Punct(Punct::LBracket) => {
                    self.bump();
                    let i = self.expr()?;
                    self.expect_punct(Punct::RBracket, "to close the index")?;
                    ExprKind::Index(Box::new((e, i)))
                }
                TokenKind::Punct(Punct::LParen) => {
                    self.bump();
                    let args = self.args()?;
                    match e.kind {
                        ExprKind::Ident(name) => ExprKind::Call { name, name_loc: e.loc, args },
                        _ => ExprKind::CallPtr(Box::new(e), args),
                    }
                }
                TokenKind::Punct(p @ (Punct::Dot | Punct::Arrow)) => {
                    self.bump();
                    let TokenKind::Ident(s) = self.peek().kind else {
                        return Err(self.expected(&format!("a field name after `{}`", p.as_str())));
                    };
                    let field_loc = self.bump().loc;
                    let field = self.name_of(s);
                    ExprKind::Member { expr: Box::new(e), field, field_loc, arrow: p == Punct::Arrow }
                }
                TokenKind::Punct(p @ (Punct::PlusPlus | Punct::MinusMinus)) => {
                    self.bump();
                    ExprKind::IncDec { pre: false, inc: p == Punct::PlusPlus, expr: Box::new(e) }
                }
                _ => return Ok(e),
            };
            e = Expr { kind, loc };
        }
    }

    /// Call arguments after `(`, through `)`.
    fn args(&mut self) -> PResult<Vec<Expr>> {
        let mut args = Vec::new();
        if self.eat(Punct::RParen) {
            return Ok(args);
        }
        loop {
            args.push(self.assign_expr()?);
            if !self.eat(Punct::Comma) {
                self.expect_punct(Punct::RParen, "to close the argument list")?;
                return Ok(args);
            }
        }
    }

    fn primary(&mut self) -> PResult<Expr> {
        let t = self.peek();
        let kind = match t.kind {
            TokenKind::Ident(s) => ExprKind::Ident(self.name_of(s)),
            TokenKind::Int(v) => ExprKind::IntLit(v),
            TokenKind::UInt(v) => ExprKind::UIntLit(v),
            TokenKind::Long(v) => ExprKind::LongLit(v),
            TokenKind::ULong(v) => ExprKind::ULongLit(v),
            TokenKind::Float(v) => ExprKind::FloatLit(v),
            TokenKind::Double(v) => ExprKind::DoubleLit(v),
            TokenKind::Char(c) => ExprKind::CharLit(c),
            TokenKind::Str(_) => {
                // Adjacent literals concatenate: "ab" "cd" is "abcd".
                let mut bytes = Vec::new();
                while let TokenKind::Str(id) = self.peek().kind {
                    bytes.extend_from_slice(self.names.str_bytes(id));
                    self.bump();
                }
                return Ok(Expr { kind: ExprKind::StrLit(bytes), loc: t.loc });
            }
            TokenKind::Punct(Punct::LParen) => {
                self.bump();
                let e = self.expr()?;
                self.expect_punct(Punct::RParen, "to close the parenthesis")?;
                return Ok(e);
            }
            TokenKind::Kw(k) if unsupported_keyword(k).is_some() => return Err(self.unsupported(t, k)),
            _ => return Err(self.expected("an expression")),
        };
        self.bump();
        Ok(Expr { kind, loc: t.loc })
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
