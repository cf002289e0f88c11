//! The CPC abstract syntax tree produced by the parser and consumed by the checker and
//! code generator. Every node carries the [`Loc`] of the token that starts it, pointing
//! into the original file (macro-expanded tokens carry the location of the macro use).

/// An identifier's spelling, shared: the parser makes one per distinct name and every
/// use clones the pointer, so the tree holds no per-use string allocations.
pub type Name = std::rc::Rc<str>;

/// A source location: file (index into the compiler's file list), 1-based line and
/// column, and length in bytes of the token or construct for the caret.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Loc {
    pub file: u32,
    pub line: u32,
    pub col: u32,
    pub len: u32,
}

/// A whole translation unit after preprocessing.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Program {
    pub items: Vec<Item>,
    /// Identifiers inside the constructs the parser skipped after a syntax error: the
    /// checker does not report them as undeclared, since their declaration may be what
    /// was skipped.
    pub poisoned: Vec<Name>,
    /// Macro names the preprocessor left unexpanded inside their own expansion (C's
    /// rule): an "undeclared" one is explained as a recursive macro expansion.
    pub self_referenced: Vec<Name>,
    /// Every identifier used in an expression (a call's name among them).
    pub mentioned: std::collections::HashSet<Name>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `arch TOPO Name[d1]...;`
    Arch(ArchDecl),
    /// `phyArch TOPO Name[d1]...;`
    PhyArch(ArchDecl),
    /// `channel T Name[d1]..., Other[...];`
    Channel(ChannelDecl),
    /// A global variable declaration (including `spinlock s;`).
    Var(VarDecl),
    /// A function definition, or a prototype when `body` is `None`.
    Func(FuncDef),
    /// `struct Name { fields };` (also hoisted out of `struct Name {…} var;`).
    Struct(StructDef),
    /// `enum Name { A, B = 2 };` (also hoisted out of `enum {…} var;`).
    Enum(EnumDef),
    /// `typedef T Name…;`: each declarator names a type.
    Typedef(VarDecl),
    /// `_Static_assert(constant, "message");`
    StaticAssert(StaticAssert),
}

/// `_Static_assert(constant, "message")`: a compile-time check.
#[derive(Clone, Debug, PartialEq)]
pub struct StaticAssert {
    pub cond: Expr,
    /// The message (C23 allows leaving it out).
    pub message: Vec<u8>,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ArchDecl {
    /// The topology keyword as written (`torus`); the checker validates it.
    pub topo: String,
    pub topo_loc: Loc,
    pub name: String,
    pub dims: Vec<Expr>,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ChannelDecl {
    pub ty: TypeSpec,
    /// Each declarator: name and dimensions (no pointers, references or initialisers).
    pub decls: Vec<Declarator>,
    pub loc: Loc,
}

/// The base type of a declaration.
#[derive(Clone, Debug, PartialEq)]
pub enum BaseType {
    Int,
    Float,
    Char,
    Void,
    Spinlock,
    /// `struct Name` (the parser gives anonymous structs a generated name `<anon N>`).
    Struct(String),
    /// `enum Name`: an `int` (C: an integer type able to hold every enumerator).
    Enum,
    /// `_Bool`
    Bool,
    /// `unsigned` / `unsigned int`
    UInt,
    /// `double`
    Double,
    /// `long`, `long long`
    Long,
    /// `unsigned long`, `unsigned long long`
    ULong,
    /// `short`, `unsigned short`, `signed char`
    Short,
    UShort,
    SChar,
    /// A name declared by `typedef`.
    Typedef(Name),
}

/// The storage class of a declaration (C99 6.7.1). Qualifiers (`const`, `volatile`,
/// `restrict`) and `inline` are accepted and have no effect on the generated code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Storage {
    #[default]
    None,
    Typedef,
    Extern,
    Static,
    Auto,
    Register,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TypeSpec {
    pub base: BaseType,
    pub loc: Loc,
    pub storage: Storage,
    /// `const` among the specifiers: the declared objects are const, or, for a
    /// declarator with `*`, what they point to.
    pub konst: bool,
}

impl TypeSpec {
    /// A type with no storage class.
    pub fn new(base: BaseType, loc: Loc) -> Self {
        TypeSpec { base, loc, storage: Storage::None, konst: false }
    }
}

/// An enumeration: its constants in order, each with its optional value.
#[derive(Clone, Debug, PartialEq)]
pub struct EnumDef {
    pub items: Vec<(Name, Loc, Option<Expr>)>,
    pub loc: Loc,
}

/// One declared name with its pointer/reference/array modifiers and initialiser:
/// `*p`, `&a[N][M]`, `x = 3`, `v[4] = {1, 2, 3, 4}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    pub name: Name,
    pub loc: Loc,
    /// Number of `*`.
    pub pointers: u32,
    /// `const` after the last `*` (`int *const p`): the pointer itself is const.
    pub const_pointer: bool,
    /// `&name` (reference parameter).
    pub is_ref: bool,
    /// Array dimensions in order; `None` for `[]`.
    pub dims: Vec<Option<Expr>>,
    pub init: Option<Init>,
    /// `(*name)(params)`: the name is a pointer to a function whose result type is the
    /// base type with `pointers` applied.
    pub func: Option<Box<FuncPtr>>,
    /// `name : width` (a struct field that is a bit-field).
    pub bits: Option<Box<Expr>>,
    /// `(*name)[N]`: the number of `*` applied after the dimensions (a pointer to an
    /// array); 0 otherwise.
    pub array_pointers: u32,
}

/// The function part of a function-pointer declarator `(*…name[dims])(params)`.
#[derive(Clone, Debug, PartialEq)]
pub struct FuncPtr {
    /// Number of `*` inside the parentheses (1 for a pointer to a function).
    pub pointers: u32,
    pub params: Vec<Param>,
    pub variadic: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    Expr(Expr),
    /// `{ a, b, { c } }`
    List(Vec<Init>, Loc),
    /// An item of a list with designators: `.field = v`, `[2] = v`, `.a[1].b = v`.
    Designated(Vec<Designator>, Box<Init>),
}

/// One step of a designation.
#[derive(Clone, Debug, PartialEq)]
pub enum Designator {
    /// `.name`
    Field(Name, Loc),
    /// `[constant]`
    Index(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    pub ty: TypeSpec,
    pub decls: Vec<Declarator>,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StructDef {
    pub name: String,
    pub fields: Vec<VarDecl>,
    pub loc: Loc,
    /// `union`: every field at offset 0.
    pub union: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub ty: TypeSpec,
    pub decl: Declarator,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FuncDef {
    pub ret: TypeSpec,
    /// Number of `*` on the return type.
    pub ret_pointers: u32,
    pub name: String,
    /// Location of the name.
    pub loc: Loc,
    pub params: Vec<Param>,
    /// `...` ends the parameter list.
    pub variadic: bool,
    /// `None` for a prototype `int f(int);`.
    pub body: Option<Block>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    /// Location of `{`.
    pub loc: Loc,
    /// Location of `}`.
    pub end: Loc,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub loc: Loc,
}

/// The rarer statements keep their expressions boxed so that a `Stmt` (and every
/// `Vec<Stmt>` slot) stays the size of the common ones (`if`, `while`, expression).
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `;`
    Empty,
    Expr(Expr),
    Decl(VarDecl),
    /// A nested function definition.
    Func(Box<FuncDef>),
    /// A struct definition inside a function.
    Struct(StructDef),
    /// An enumeration inside a function.
    Enum(EnumDef),
    /// `typedef` inside a function.
    Typedef(VarDecl),
    /// `name:` (the labelled statement follows as its own statement).
    Label(Name),
    /// `goto name;`
    Goto(Name),
    /// `_Static_assert(constant, "message");` inside a function.
    StaticAssert(StaticAssert),
    Block(Block),
    If {
        cond: Expr,
        then: Box<Stmt>,
        els: Option<Box<Stmt>>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
        /// Structs and enums defined in the condition: they come into scope after the
        /// body, before the condition (the statement is a block of its own).
        cond_defs: Vec<Stmt>,
    },
    For {
        /// An expression statement or a declaration.
        init: Option<Box<Stmt>>,
        cond: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
        body: Box<Stmt>,
    },
    /// `switch (e) { … }`: the body's statements contain `Case`/`Default` labels.
    Switch {
        expr: Box<Expr>,
        body: Block,
    },
    /// `case E:` label (the labelled statement follows as its own statement).
    Case(Expr),
    /// `default:` label.
    Default,
    Break,
    Continue,
    Return(Option<Expr>),
    /// `forall (var from lo to hi [grouping g]) body`
    Forall {
        var: String,
        var_loc: Loc,
        lo: Box<Expr>,
        hi: Box<Expr>,
        grouping: Option<Box<Expr>>,
        body: Box<Stmt>,
    },
    /// `fork [vproc; chans…] call;` — `call` is what follows (the checker requires a call).
    Fork {
        vproc: Option<Box<Expr>>,
        chans: Vec<Expr>,
        call: Box<Expr>,
    },
    /// `join;`
    Join,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub loc: Loc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-e`
    Neg,
    /// `+e`
    Plus,
    /// `!e`
    Not,
    /// `~e`
    BitNot,
    /// `*e`
    Deref,
    /// `&e`
    Addr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    /// `&&`
    And,
    /// `||`
    Or,
}

/// A type written in a cast or `sizeof`: base type and pointer depth.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeName {
    pub base: TypeSpec,
    pub pointers: u32,
    /// `T (*)(params)`: a function pointer type whose result is `base` with `pointers`.
    pub func: Option<Box<FuncPtr>>,
}

impl TypeName {
    /// Whether the type is a pointer (to data or to a function).
    pub fn is_pointer(&self) -> bool {
        self.pointers > 0 || self.func.is_some()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    IntLit(i64),
    /// An `unsigned int` constant.
    UIntLit(u32),
    /// A `long` constant.
    LongLit(i64),
    /// An `unsigned long` constant.
    ULongLit(u64),
    /// A `float` constant (`1.5f`).
    FloatLit(f64),
    /// A `double` constant (`1.5`).
    DoubleLit(f64),
    CharLit(u8),
    /// Bytes of the string (escapes resolved), without the terminating NUL.
    StrLit(Vec<u8>),
    /// A wide string (`L"…"`): its code points, without the terminating zero; an array
    /// of `wchar_t` (`int`).
    WStrLit(Vec<u32>),
    Ident(Name),
    Unary(UnOp, Box<Expr>),
    /// `a op b`; both operands in one allocation (as for `Assign`, `Index`, `Comma`).
    Binary(BinOp, Box<(Expr, Expr)>),
    /// `a = b` (op `None`) or compound `a op= b`.
    Assign(Option<BinOp>, Box<(Expr, Expr)>),
    /// `++e`, `e++`, `--e`, `e--`.
    IncDec {
        pre: bool,
        inc: bool,
        expr: Box<Expr>,
    },
    /// `c ? a : b`
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `name(args)`: functions are called by name (built-ins included), or through a
    /// function pointer variable of that name.
    Call {
        name: Name,
        name_loc: Loc,
        args: Vec<Expr>,
    },
    /// `e(args)` for any other `e`: a call through a function pointer.
    CallPtr(Box<Expr>, Vec<Expr>),
    /// `a[i]`
    Index(Box<(Expr, Expr)>),
    /// `e.field` or `e->field` (`arrow`).
    Member {
        expr: Box<Expr>,
        field: Name,
        field_loc: Loc,
        arrow: bool,
    },
    Cast(TypeName, Box<Expr>),
    SizeofType(TypeName),
    SizeofExpr(Box<Expr>),
    /// `(T){ … }`: an unnamed object of type T in the enclosing block.
    Compound(Box<(TypeName, Init)>),
    /// `a, b`
    Comma(Box<(Expr, Expr)>),
}
