//! Name resolution, type checking and vCode generation in one walk over the AST.
//!
//! The walk keeps a stack of scopes (global, function, block, forall body). Each function
//! (and each `forall` body, compiled as a nested function of one more static depth) gets
//! its own code buffer with jump targets relative to its start; `Gen::finish` lays the
//! buffers end to end and relocates the targets. Frames hold parameters first, then
//! locals; sibling blocks reuse frame words.
//!
//! Errors are collected, not thrown: an ill-typed expression yields the `Error` pseudo type
//! and no further diagnostics are reported about it, so one mistake gives one message.
mod expr;
mod library;
mod mpi_library;
mod stmt;
mod types;
mod vla;

use super::ast::{self, Loc};
use super::diag::Diagnostic;
use crate::lang::token::FastMap as HashMap;
use crate::vcode::{
    ArchDecl, BlockInfo, ChannelInfo, FunctionInfo, IdentInfo, IdentKind, Instr, Module, TopoKind, Type, TypeId, Word,
};
pub(crate) use types::{Types, ERROR, FLOAT, INT, VOID};

/// What a name resolves to.
#[derive(Clone, Copy, Debug)]
enum Symbol {
    /// A variable: frame `(depth, off)`, type, and how it is stored.
    Var { ty: TypeId, depth: u8, off: u32, kind: IdentKind },
    /// A user function (index into `Gen::funcs`).
    Func(u32),
    /// A typedef name.
    Type(TypeId),
    /// An enumeration constant.
    Const(i32),
}

struct Scope {
    /// Keyed by the AST's shared names, so declaring allocates no key string.
    names: HashMap<ast::Name, (Symbol, Loc)>,
    /// The variables of this scope declared `const` (assigning to one is an error).
    consts: Vec<ast::Name>,
    block: u32,
    /// Frame offsets of the variable-length arrays declared in this scope: their blocks
    /// are freed when the scope ends.
    vlas: Vec<u32>,
    /// The struct and union tags declared in this scope (C's tag name space): each
    /// names an index of the struct table, so `struct T` in an inner block or in two
    /// functions can be two different types.
    tags: HashMap<String, u32>,
}

/// A user function's signature, known before its body is compiled.
#[derive(Clone, Debug)]
struct Signature {
    name: String,
    ret: TypeId,
    /// Parameter types and whether each is a reference parameter.
    params: Vec<(TypeId, bool)>,
    /// Declared at file scope (only those can be pointed to: a nested function needs
    /// its enclosing frames).
    top: bool,
    /// `...` after the parameters: a hidden last parameter holds the address of the
    /// extra arguments, one after another, in the caller's frame.
    variadic: bool,
    loc: Loc,
    defined: bool,
}

/// A laid-out function: its table entry and where its code and source lines (jump targets
/// relative to the function) sit in `Gen::done_code` / `Gen::done_lines`.
type FinishedFn = (FunctionInfo, std::ops::Range<usize>, std::ops::Range<usize>);

/// The function being generated.
struct FnCtx {
    index: u32,
    depth: u8,
    code: Vec<Instr>,
    lines: Vec<u32>,
    /// Next free frame word and the high-water mark.
    next: u32,
    high: u32,
    ret: TypeId,
    is_main: bool,
    is_forall_body: bool,
    /// Pending `break` / `continue` patch lists for enclosing loops/switches.
    breaks: Vec<Vec<usize>>,
    continues: Vec<Option<Vec<usize>>>,
    /// The frame word of a variadic function's hidden parameter (see `Signature`).
    va_off: Option<u32>,
    /// Labels defined so far (code position and place) and `goto`s to patch at the end.
    labels: HashMap<ast::Name, (usize, Loc)>,
    gotos: Vec<(ast::Name, usize, Loc)>,
    /// Frame words kept for the variable-length arrays of the body (see `vla`): from
    /// `vla_base`, two words per array (the block's address, its element count), never
    /// shared with other variables; `vla_used` of the `vla_count` are taken so far.
    vla_base: u32,
    vla_count: u32,
    vla_used: u32,
}

impl FnCtx {
    /// Keeps the frame words below `end` from later temporaries (the frame grows to hold
    /// them).
    fn reserve_to(&mut self, end: u32) {
        self.next = self.next.max(end);
        self.high = self.high.max(self.next);
    }
}

pub(crate) struct Gen<'a> {
    pub(crate) types: Types,
    pub(crate) diags: Vec<Diagnostic>,
    scopes: Vec<Scope>,
    sigs: Vec<Signature>,
    /// Finished functions: info + code, indexed like `sigs`.
    bodies: Vec<Option<FinishedFn>>,
    /// Code and lines of every finished function, one after another in finishing order.
    done_code: Vec<Instr>,
    done_lines: Vec<u32>,
    /// Emptied code/lines buffers of finished functions, reused by the next ones so a
    /// program of many functions does not grow a fresh pair of vectors for each.
    spare: Vec<(Vec<Instr>, Vec<u32>)>,
    fns: Vec<FnCtx>,
    idents: Vec<IdentInfo>,
    blocks: Vec<BlockInfo>,
    channels: Vec<ChannelInfo>,
    globals_words: u32,
    /// Initial global words, and whether each is the address of a global.
    global_init: Vec<(u32, Word, bool)>,
    strings: HashMap<Vec<u8>, u32>,
    arch: Option<(ArchDecl, Loc)>,
    phy_arch: Option<(ArchDecl, Loc)>,
    source_name: &'a str,
    /// The main file's text, then each included file's after a marker line
    /// ([`crate::vcode::INCLUDE_MARK`]): the module's source.
    source: String,
    /// Per file of the compilation, the number its line 1 gets minus 1 in the module's
    /// line numbers (0 for the main file; `None` for the built-in headers, whose code is
    /// given the line before it).
    line_offset: Vec<Option<u32>>,
    /// Names the parser skipped over after a syntax error (never reported undeclared).
    poisoned: std::collections::HashSet<ast::Name>,
    /// Macro names left unexpanded inside their own expansion.
    self_referenced: Vec<ast::Name>,
    /// The names the program uses in an expression (a prototype of any other name is
    /// dropped, as a linker asks only for the symbols a program uses).
    mentioned: std::collections::HashSet<ast::Name>,
    /// Global objects declared `extern` or without an initialiser (tentative): a later
    /// declaration of the same name and type is the same object (C99 6.9.2).
    tentative: HashMap<ast::Name, bool>,
    /// `extern T a[];` at file scope before any definition of `a`: its (open) type and
    /// where it was declared. The definition gives the size; a name still here after
    /// the file-scope declarations is an error if the program uses it.
    open_externs: HashMap<ast::Name, (TypeId, Loc)>,
    /// Library functions declared and waiting for their bodies (see `library`).
    pending_library: Vec<(u32, ast::FuncDef)>,
    /// Above 0 while a library function is compiled: its code has no source line.
    in_library: u32,
    /// The switches being compiled, innermost last (see `stmt::SwitchCtx`).
    switches: Vec<stmt::SwitchCtx>,
    /// Bit-fields by (struct index, field name): width and signedness.
    bitfields: HashMap<(u32, String), (u8, bool)>,
    /// Set by the last member access when it was a bit-field (see `narrow_bitfield`).
    bitfield: Option<(u8, bool)>,
    /// Set by the last member access when its container was a union.
    union_member: bool,
    /// Suggestions are looked for while fewer errors than this were found (see
    /// [`generate`]).
    suggest_below: usize,
}

/// Compiles a parsed program. Returns the module when there are no errors; the
/// diagnostics (errors and warnings) either way. "Did you mean" suggestions, which cost
/// a scan of every name in scope, are looked for only while fewer than `suggest_below`
/// errors were found (`None`: always).
pub fn generate(
    program: &ast::Program,
    source_name: &str,
    source: &str,
    files: &crate::lang::diag::SourceMap,
    suggest_below: Option<usize>,
) -> (Option<Module>, Vec<Diagnostic>) {
    // Included files (not the built-in headers) follow the main text, each after a
    // marker line, numbered on from its last line: per-line costs can then name them.
    let mut text = source.to_string();
    let mut line_offset = vec![Some(0)];
    for f in files.files.iter().skip(1) {
        if f.name.starts_with('<') {
            line_offset.push(None);
            continue;
        }
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!("{}{}\n", crate::vcode::INCLUDE_MARK, f.name));
        line_offset.push(Some(text.lines().count() as u32));
        text.push_str(&f.text);
    }
    let mut g = Gen {
        suggest_below: suggest_below.unwrap_or(usize::MAX),
        types: Types::new(),
        diags: Vec::new(),
        scopes: Vec::new(),
        sigs: Vec::new(),
        bodies: Vec::new(),
        done_code: Vec::new(),
        done_lines: Vec::new(),
        spare: Vec::new(),
        fns: Vec::new(),
        idents: Vec::new(),
        blocks: Vec::new(),
        channels: Vec::new(),
        // Word 0 is no object's: address 0 is the null pointer.
        globals_words: 1,
        global_init: Vec::new(),
        strings: HashMap::default(),
        arch: None,
        phy_arch: None,
        source_name,
        source: text,
        line_offset,
        poisoned: program.poisoned.iter().cloned().collect(),
        self_referenced: program.self_referenced.clone(),
        mentioned: program.mentioned.clone(),
        tentative: HashMap::default(),
        open_externs: HashMap::default(),
        pending_library: Vec::new(),
        in_library: 0,
        switches: Vec::new(),
        bitfields: HashMap::default(),
        bitfield: None,
        union_member: false,
    };
    g.program(program);
    let module = g.finish();
    (module, g.diags)
}

impl<'a> Gen<'a> {
    pub(crate) fn error(&mut self, loc: Loc, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(loc, msg));
    }

    // ---------------------------------------------------------------- scopes

    fn push_scope(&mut self, loc: Loc) -> u32 {
        let parent = self.scopes.last().map(|s| s.block);
        let func = self.fns.last().map(|f| f.index);
        let id = self.blocks.len() as u32;
        self.blocks.push(BlockInfo { parent, func, first_line: loc.line, last_line: loc.line });
        self.scopes.push(Scope {
            names: HashMap::default(),
            consts: Vec::new(),
            block: id,
            vlas: Vec::new(),
            tags: HashMap::default(),
        });
        id
    }

    fn pop_scope(&mut self, end: Loc) {
        if let Some(s) = self.scopes.pop() {
            if let Some(b) = self.blocks.get_mut(s.block as usize) {
                b.last_line = end.line.max(b.first_line);
            }
        }
    }

    fn lookup(&self, name: &str) -> Option<Symbol> {
        self.scopes.iter().rev().find_map(|s| s.names.get(name).map(|(sym, _)| *sym))
    }

    /// Whether the variable `name` resolves to was declared `const`.
    fn is_const(&self, name: &str) -> bool {
        self.scopes
            .iter()
            .rev()
            .find(|s| s.names.contains_key(name))
            .is_some_and(|s| s.consts.iter().any(|c| &**c == name))
    }

    /// Notes that `d`, declared with `spec` in the innermost scope, is a const object:
    /// `const T x`, `T *const p` (not `const T *p`, whose pointee is const).
    fn note_const(&mut self, spec: &ast::TypeSpec, d: &ast::Declarator) {
        let konst = if d.pointers == 0 { spec.konst } else { d.const_pointer };
        if let (true, Some(scope)) = (konst, self.scopes.last_mut()) {
            scope.consts.push(d.name.clone());
        }
    }

    /// Declares `name` in the innermost scope; reports a duplicate definition.
    fn declare(&mut self, name: &ast::Name, sym: Symbol, loc: Loc) -> bool {
        let Some(scope) = self.scopes.last_mut() else { return false };
        if let Some((_, prev)) = scope.names.get(name) {
            let prev = *prev;
            self.diags.push(
                Diagnostic::error(loc, format!("duplicate definition of `{name}`"))
                    .with_note(format!("previous definition at line {}:{}", prev.line, prev.col)),
            );
            return false;
        }
        scope.names.insert(name.clone(), (sym, loc));
        true
    }

    fn record_ident(&mut self, name: &str, kind: IdentKind, ty: TypeId, depth: u8, off: u32, loc: Loc) {
        let block = self.scopes.last().map_or(0, |s| s.block);
        self.idents.push(IdentInfo { name: name.to_string(), kind, ty, depth, off, block, line: loc.line });
    }

    /// Allocates `words` in the current frame (or the global area) and declares a variable.
    fn declare_var(&mut self, name: &ast::Name, ty: TypeId, kind: IdentKind, loc: Loc) -> Option<(u8, u32)> {
        let words = if kind == IdentKind::RefParam { 1 } else { self.types.words(ty) };
        let (depth, off) = match self.fns.last_mut() {
            Some(f) => {
                let off = f.next;
                f.reserve_to(off + words);
                (f.depth, off)
            }
            None => {
                let off = self.globals_words;
                self.globals_words += words;
                (0, off)
            }
        };
        if self.declare(name, Symbol::Var { ty, depth, off, kind }, loc) {
            self.record_ident(name, kind, ty, depth, off, loc);
            Some((depth, off))
        } else {
            None
        }
    }

    // ---------------------------------------------------------------- code emission

    pub(crate) fn emit(&mut self, i: Instr, loc: Loc) -> usize {
        let line = match self.line_offset.get(loc.file as usize) {
            Some(&Some(o)) if self.in_library == 0 => o + loc.line,
            _ => 0,
        };
        match self.fns.last_mut() {
            Some(f) => {
                f.code.push(i);
                // Code of a built-in header or a library body has no line of its own:
                // it keeps the line before it.
                let l = if line == 0 { f.lines.last().copied().unwrap_or(0) } else { line };
                f.lines.push(l);
                f.code.len() - 1
            }
            None => 0,
        }
    }

    pub(crate) fn here(&self) -> usize {
        self.fns.last().map_or(0, |f| f.code.len())
    }

    /// Points the jump at `at` to `target` (both relative to the current function).
    pub(crate) fn patch(&mut self, at: usize, target: usize) {
        if let Some(f) = self.fns.last_mut() {
            if let Some(i) = f.code.get_mut(at) {
                let t = target as u32;
                match i {
                    Instr::Jump { target } | Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } => {
                        *target = t
                    }
                    _ => {}
                }
            }
        }
    }

    /// Allocates a hidden frame word (switch values, temporaries).
    pub(crate) fn temp(&mut self) -> (u8, u32) {
        match self.fns.last_mut() {
            Some(f) => {
                let off = f.next;
                f.reserve_to(off + 1);
                (f.depth, off)
            }
            None => (0, 0),
        }
    }

    /// Points every `goto` of the current function at its label; reports the missing.
    fn resolve_gotos(&mut self) {
        let Some(f) = self.fns.last_mut() else { return };
        let gotos = std::mem::take(&mut f.gotos);
        for (name, at, loc) in gotos {
            let target = self.fns.last().and_then(|f| f.labels.get(&name)).map(|l| l.0);
            match target {
                Some(t) => self.patch(at, t),
                None => self.error(loc, format!("label `{name}` is not defined in this function")),
            }
        }
    }

    /// "undeclared …" for `name`, with the closest declared name when one is near, and
    /// nothing when the parser skipped over `name` after a syntax error.
    pub(crate) fn undeclared(&mut self, loc: Loc, what: &str, name: &str) {
        if self.poisoned.contains(name) {
            return;
        }
        if self.self_referenced.iter().any(|n| &**n == name) {
            self.error(
                loc,
                format!(
                    "undeclared {what} `{name}`: the recursive macro expansion of `{name}` stops at `{name}` \
                     (C does not expand a macro inside itself)"
                ),
            );
            return;
        }
        if name.starts_with("MPI_") && name.len() > 4 {
            self.error(
                loc,
                format!("`{name}` is not supported: cpcc's <mpi.h> has the subset `man cpcc` lists under MPI"),
            );
            return;
        }
        let mut d = Diagnostic::error(loc, format!("undeclared {what} `{name}`"));
        // Diagnostics (warnings included) as a cheap upper bound on the errors so far.
        if self.diags.len() >= self.suggest_below {
            self.diags.push(d);
            return;
        }
        if let Some(best) = self.closest_name(name) {
            d = d.with_note(format!("did you mean `{best}`?"));
        }
        self.diags.push(d);
    }

    /// The declared or built-in name closest to `name` by edit distance (at most one
    /// edit per three characters; none for names shorter than three), ties to the
    /// alphabetically first.
    fn closest_name(&self, name: &str) -> Option<String> {
        let len = name.chars().count();
        if len < 3 {
            // One- and two-letter names are too short for a suggestion to mean anything.
            return None;
        }
        let limit = len / 3;
        let mut best: Option<(usize, String)> = None;
        let mut consider = |c: &str| {
            if c == name || c.starts_with('<') {
                return;
            }
            let d = crate::lang::diag::edit_distance(name, c);
            if d <= limit && best.as_ref().is_none_or(|(b, n)| (d, c) < (*b, n.as_str())) {
                best = Some((d, c.to_string()));
            }
        };
        for s in self.scopes.iter().rev() {
            for k in s.names.keys() {
                consider(k);
            }
        }
        for c in expr::builtin_names().iter().copied().chain(library::names()) {
            consider(c);
        }
        best.map(|(_, c)| c.to_string())
    }

    fn cur_depth(&self) -> u8 {
        self.fns.last().map_or(0, |f| f.depth)
    }

    // ---------------------------------------------------------------- program

    fn program(&mut self, p: &ast::Program) {
        self.push_scope(Loc { file: 0, line: 1, col: 1, len: 0 });
        // Pass 1: structs, channels, arch, globals and function signatures in order, so
        // functions may be called before they are defined.
        for item in &p.items {
            match item {
                ast::Item::Struct(s) => self.struct_def(s),
                ast::Item::Enum(e) => self.enum_def(e),
                ast::Item::Typedef(v) => self.typedef(v),
                ast::Item::StaticAssert(a) => self.static_assert(a),
                ast::Item::Arch(a) => self.arch_decl(a, false),
                ast::Item::PhyArch(a) => self.arch_decl(a, true),
                ast::Item::Channel(c) => self.channel_decl(c),
                ast::Item::Var(v) => self.global_var(v),
                // A prototype the program neither defines nor names anywhere is
                // dropped, as a C linker asks only for the symbols a program uses; one
                // of a built-in (`extern int printf(const char *, ...);`) names the
                // built-in itself.
                ast::Item::Func(f)
                    if f.body.is_none()
                        && !defines(p, &f.name)
                        && (expr::is_builtin(&f.name) || !p.mentioned.contains(f.name.as_str())) => {}
                ast::Item::Func(f) => {
                    self.declare_signature(f);
                }
            }
        }
        let mut open: Vec<_> = self.open_externs.drain().filter(|(n, _)| p.mentioned.contains(&**n)).collect();
        open.sort_by_key(|(_, (_, loc))| (loc.file, loc.line, loc.col));
        for (name, (_, loc)) in open {
            self.error(
                loc,
                format!("`{name}` is declared `extern` with no size and never defined: define it in this file"),
            );
            self.poisoned.insert(name);
        }
        // Pass 2: bodies.
        for item in &p.items {
            if let ast::Item::Func(f) = item {
                if f.body.is_some() {
                    if let Some(Symbol::Func(idx)) = self.lookup(&f.name) {
                        if self.bodies.get(idx as usize).is_some_and(|b| b.is_none()) {
                            self.function_body(idx, f);
                        }
                    }
                }
            }
        }
        self.link_pending();
        for (i, s) in self.sigs.clone().iter().enumerate() {
            if !s.defined
                && self.bodies.get(i).is_some_and(|b| b.is_none())
                && !self.poisoned.contains(s.name.as_str())
                && !self.link_declared(&s.name)
            {
                self.error(s.loc, format!("function `{}` is declared but never defined", s.name));
            }
        }
        match self.lookup("main") {
            Some(Symbol::Func(_)) => {}
            _ if self.poisoned.contains("main") => {}
            _ => self.error(Loc { file: 0, line: 1, col: 1, len: 0 }, "the program has no `main` function"),
        }
        self.pop_scope(Loc::default());
    }

    fn arch_decl(&mut self, a: &ast::ArchDecl, physical: bool) {
        let what = if physical { "phyArch" } else { "arch" };
        let Some(kind) = TopoKind::from_name(&a.topo) else {
            let names: Vec<&str> = TopoKind::ALL.iter().map(|k| k.name()).collect();
            self.diags.push(
                Diagnostic::error(a.topo_loc, format!("unknown topology `{}`", a.topo))
                    .with_note(format!("expected one of: {}", names.join(", "))),
            );
            return;
        };
        let mut dims = Vec::new();
        for d in &a.dims {
            match self.const_int(d) {
                Some(v) if v > 0 && v <= 1 << 20 => dims.push(v as u32),
                Some(v) => self.error(d.loc, format!("{what} size must be positive (and at most 2^20), found {v}")),
                None => self.error(d.loc, format!("{what} size must be a constant integer")),
            }
        }
        if dims.len() != a.dims.len() {
            return;
        }
        let want = match kind {
            TopoKind::Mesh | TopoKind::Torus => 1..=3,
            _ => 1..=1,
        };
        if !want.contains(&dims.len()) {
            self.error(
                a.loc,
                format!("a {} takes {} dimension(s), found {}", kind.name(), describe(&want), dims.len()),
            );
            return;
        }
        if kind == TopoKind::Hypercube && dims[0] > 16 {
            self.error(a.loc, "hypercube dimension must be at most 16 (65536 nodes)");
            return;
        }
        let decl = ArchDecl { kind, name: a.name.clone(), dims };
        let slot = if physical { &mut self.phy_arch } else { &mut self.arch };
        if let Some((_, prev)) = slot {
            let prev = *prev;
            self.diags.push(
                Diagnostic::error(a.loc, format!("a program declares at most one `{what}`"))
                    .with_note(format!("first `{what}` at line {}", prev.line)),
            );
        } else {
            *slot = Some((decl, a.loc));
        }
    }

    fn channel_decl(&mut self, c: &ast::ChannelDecl) {
        let elem = self.base_type(&c.ty);
        if elem == ERROR {
            return;
        }
        if elem == VOID || self.types.is_spinlock(elem) {
            self.error(c.ty.loc, "a channel carries values: its element type cannot be void or spinlock");
            return;
        }
        let msg_words = self.types.words(elem);
        for d in &c.decls {
            if d.pointers > 0 || d.is_ref || d.init.is_some() {
                self.error(d.loc, "a channel declaration takes a name and dimensions only");
                continue;
            }
            let chan_ty = self.types.intern(Type::Channel(elem));
            let Some((ty, dims)) = self.array_dims(chan_ty, &d.dims, false, d.loc) else { continue };
            if let Some((_, off)) = self.declare_var(&d.name, ty, IdentKind::Channel, d.loc) {
                self.channels.push(ChannelInfo {
                    name: d.name.to_string(),
                    elem,
                    msg_words,
                    dims,
                    base: off,
                    line: d.loc.line,
                });
            }
        }
    }

    /// `static T x = init;` inside a function: one object in the global area, initialised
    /// once before the program starts, visible by name only in its block.
    fn static_local(&mut self, d: &ast::Declarator, ty: TypeId) {
        let off = self.globals_words;
        self.globals_words = self.globals_words.saturating_add(self.types.words(ty));
        if !self.declare(&d.name, Symbol::Var { ty, depth: 0, off, kind: IdentKind::Var }, d.loc) {
            return;
        }
        self.record_ident(&d.name, IdentKind::Var, ty, 0, off, d.loc);
        if let Some(init) = &d.init {
            self.global_init_value(ty, off, init);
        }
    }

    /// `extern T x;` inside a function: the file-scope object `x` (declared here first if
    /// the file has not declared it yet).
    fn extern_local(&mut self, d: &ast::Declarator, ty: TypeId) {
        if d.init.is_some() {
            self.error(d.loc, format!("`extern` variable `{}` cannot be initialised inside a function", d.name));
            return;
        }
        let global = self.scopes.first().and_then(|s| s.names.get(&d.name)).map(|(s, _)| *s);
        let sym = match global {
            Some(Symbol::Var { ty: gty, depth: 0, off, kind }) if gty == ty => Symbol::Var { ty, depth: 0, off, kind },
            Some(Symbol::Var { ty: gty, .. }) => {
                let (a, b) = (self.types.name(ty), self.types.name(gty));
                self.error(d.loc, format!("`{}` declared {a} here but {b} at file scope", d.name));
                return;
            }
            Some(_) => {
                self.error(d.loc, format!("`{}` is not a variable at file scope", d.name));
                return;
            }
            None => {
                let off = self.globals_words;
                self.globals_words = self.globals_words.saturating_add(self.types.words(ty));
                let sym = Symbol::Var { ty, depth: 0, off, kind: IdentKind::Var };
                if let Some(s) = self.scopes.first_mut() {
                    s.names.insert(d.name.clone(), (sym, d.loc));
                }
                self.tentative.insert(d.name.clone(), false);
                sym
            }
        };
        self.declare(&d.name, sym, d.loc);
    }

    /// A file-scope declaration of a name already declared there: `extern int x;` then
    /// `int x = 1;`, or `int x; int x;` (C99 6.9.2: one object). Returns whether it was
    /// handled here.
    fn redeclare_global(&mut self, d: &ast::Declarator, ty: TypeId, open_first: bool) -> bool {
        if self.fns.last().is_some() || self.scopes.len() != 1 {
            return false;
        }
        let Some(&had_init) = self.tentative.get(&d.name) else { return false };
        let Some((Symbol::Var { ty: gty, off, .. }, prev)) =
            self.scopes.first().and_then(|s| s.names.get(&d.name)).copied()
        else {
            return false;
        };
        // `extern int a[10];` then `int a[] = {1, 2};`: one array of 10 (C11 6.2.7p3:
        // the composite type), the list initialising its first elements.
        let composite = match (self.types.array_elem(gty), self.types.array_elem(ty)) {
            (Some((ge, glen)), Some((e, len))) => ge == e && len <= glen && open_first,
            _ => false,
        };
        let ty = if composite { gty } else { ty };
        if gty != ty {
            self.diags.push(
                Diagnostic::error(d.loc, format!("duplicate definition of `{}`", d.name))
                    .with_note(format!("previous definition at line {}:{}", prev.line, prev.col)),
            );
            return true;
        }
        if let Some(init) = &d.init {
            if had_init {
                self.diags.push(
                    Diagnostic::error(d.loc, format!("`{}` is initialised twice", d.name))
                        .with_note(format!("previous declaration at line {}", prev.line)),
                );
                return true;
            }
            self.global_init_value(ty, off, init);
            self.tentative.insert(d.name.clone(), true);
        }
        true
    }

    fn global_var(&mut self, v: &ast::VarDecl) {
        let base = self.base_type(&v.ty);
        if base == ERROR {
            return;
        }
        for d in &v.decls {
            // Sized by its initialiser (`int a[] = {…}`)?
            let open_first = matches!(d.dims.first(), Some(None));
            if open_first && d.init.is_none() && v.ty.storage == ast::Storage::Extern {
                self.open_extern(base, d);
                continue;
            }
            let Some((d, ty)) = self.variable(base, d) else { continue };
            let d = &*d;
            if self.redeclare_global(d, ty, open_first) {
                continue;
            }
            if let Some((open, loc)) = self.open_externs.remove(&d.name) {
                if self.types.array_elem(open).map(|e| e.0) != self.types.array_elem(ty).map(|e| e.0) {
                    let (a, b) = (self.types.name(ty), self.types.name(open));
                    self.diags.push(
                        Diagnostic::error(d.loc, format!("`{}` is defined as {a} but declared {b}", d.name))
                            .with_note(format!("previous declaration at line {}", loc.line)),
                    );
                    self.poisoned.insert(d.name.clone());
                    continue;
                }
            }
            let Some((_, off)) = self.declare_var(&d.name, ty, IdentKind::Var, d.loc) else { continue };
            self.note_const(&v.ty, d);
            self.tentative.insert(d.name.clone(), d.init.is_some());
            if let Some(init) = &d.init {
                self.global_init_value(ty, off, init);
            }
        }
    }

    /// `extern T a[];` at file scope: after a definition of `a`, a declaration of it
    /// (the element types must agree); before one, remembered until the definition
    /// gives the size.
    fn open_extern(&mut self, base: TypeId, d: &ast::Declarator) {
        let Some(ty) = self.declarator_type(base, d, true) else { return };
        let Some((elem, _)) = self.types.array_elem(ty) else { return };
        match self.scopes.first().and_then(|s| s.names.get(&d.name)).copied() {
            Some((Symbol::Var { ty: gty, .. }, _)) if self.types.array_elem(gty).is_some_and(|g| g.0 == elem) => {}
            Some((_, prev)) => self.diags.push(
                Diagnostic::error(d.loc, format!("`{}` is declared again with a different type", d.name))
                    .with_note(format!("previous declaration at line {}:{}", prev.line, prev.col)),
            ),
            None => {
                self.open_externs.entry(d.name.clone()).or_insert((ty, d.loc));
            }
        }
    }

    fn declare_signature(&mut self, f: &ast::FuncDef) -> Option<u32> {
        let ret = self.return_type(f);
        let mut params = Vec::new();
        for p in &f.params {
            let base = self.base_type(&p.ty);
            if base == ERROR {
                params.push((ERROR, false));
                continue;
            }
            let ty = self.param_type(base, &p.decl).unwrap_or(ERROR);
            params.push((ty, p.decl.is_ref));
        }
        if let Some(Symbol::Func(idx)) = self.scopes.last().and_then(|s| s.names.get(f.name.as_str())).map(|(s, _)| *s)
        {
            {
                let prev = self.sigs.get(idx as usize).cloned()?;
                if prev.ret != ret || prev.params != params || prev.variadic != f.variadic {
                    self.diags.push(
                        Diagnostic::error(f.loc, format!("conflicting declarations of `{}`", f.name))
                            .with_note(format!("previous declaration at line {}", prev.loc.line)),
                    );
                    return None;
                }
                if f.body.is_some() {
                    if prev.defined {
                        self.diags.push(
                            Diagnostic::error(f.loc, format!("duplicate definition of `{}`", f.name))
                                .with_note(format!("previous definition at line {}:{}", prev.loc.line, prev.loc.col)),
                        );
                        return None;
                    }
                    if let Some(s) = self.sigs.get_mut(idx as usize) {
                        s.defined = true;
                        s.loc = f.loc;
                    }
                }
                return Some(idx);
            }
        }
        let idx = self.sigs.len() as u32;
        if !self.declare(&ast::Name::from(f.name.as_str()), Symbol::Func(idx), f.loc) {
            return None;
        }
        let top = self.fns.is_empty();
        self.sigs.push(Signature {
            name: f.name.clone(),
            top,
            ret,
            params,
            variadic: f.variadic,
            loc: f.loc,
            defined: f.body.is_some(),
        });
        self.bodies.push(None);
        let depth = self.cur_depth();
        self.record_ident(&f.name, IdentKind::Function, ret, depth, idx, f.loc);
        if f.name == "main" && depth == 0 && !f.params.is_empty() {
            // `main(void)` or `main(int argc, char **argv)` (`char *argv[]`), as C has it.
            let char_p = self.types.intern(Type::Pointer(types::CHAR));
            let char_pp = self.types.intern(Type::Pointer(char_p));
            let params = self.sigs.get(idx as usize).map(|s| s.params.clone()).unwrap_or_default();
            let ok = matches!(params.as_slice(), [(INT, false), (t, false)] if *t == char_pp);
            if !ok {
                self.error(f.loc, "`main` takes no parameters, or `(int argc, char **argv)`");
            }
        }
        Some(idx)
    }

    fn return_type(&mut self, f: &ast::FuncDef) -> TypeId {
        let base = self.base_type(&f.ret);
        if base == ERROR {
            return ERROR;
        }
        let mut t = base;
        for _ in 0..f.ret_pointers {
            t = self.types.intern(Type::Pointer(t));
        }
        t
    }

    /// Compiles the body of function `idx` (a top-level or nested function).
    fn function_body(&mut self, idx: u32, f: &ast::FuncDef) {
        let Some(body) = &f.body else { return };
        let Some(sig) = self.sigs.get(idx as usize).cloned() else { return };
        let depth = self.cur_depth() + 1;
        if depth > 200 {
            self.error(f.loc, "functions nested too deeply");
            return;
        }
        let is_main = f.name == "main" && depth == 1;
        let (code, lines) = self.spare.pop().unwrap_or_default();
        self.fns.push(FnCtx {
            index: idx,
            depth,
            code,
            lines,
            next: 0,
            high: 0,
            ret: sig.ret,
            is_main,
            is_forall_body: false,
            breaks: Vec::new(),
            continues: Vec::new(),
            va_off: None,
            labels: HashMap::default(),
            gotos: Vec::new(),
            vla_base: 0,
            vla_count: 0,
            vla_used: 0,
        });
        let block = self.push_scope(body.loc);
        for (p, (ty, is_ref)) in f.params.iter().zip(sig.params.iter()) {
            let kind = if *is_ref { IdentKind::RefParam } else { IdentKind::Param };
            if *ty == ERROR {
                // Keep frame offsets right even for a bad parameter.
                self.temp();
                continue;
            }
            self.declare_var(&p.decl.name, *ty, kind, p.decl.loc);
            self.note_const(&p.ty, &p.decl);
        }
        if sig.variadic {
            let (_, off) = self.temp();
            if let Some(f) = self.fns.last_mut() {
                f.va_off = Some(off);
            }
        }
        let param_words = self.fns.last().map_or(0, |f| f.next);
        self.reserve_vlas(&body.stmts);
        self.block_items(body);
        // Fall off the end: `main` halts, others return (zero for a non-void result).
        let end = body.end;
        if is_main {
            self.emit(Instr::Halt {}, end);
        } else {
            self.free_vlas(end);
            let n = self.types.words(sig.ret);
            for _ in 0..n {
                self.emit(Instr::PushI { v: 0 }, end);
            }
            self.emit(Instr::Ret { n }, end);
        }
        self.pop_scope(end);
        self.finish_function(idx, &f.name, block, param_words, sig.ret, f.loc, false);
    }

    #[allow(clippy::too_many_arguments)]
    fn finish_function(
        &mut self,
        idx: u32,
        name: &str,
        block: u32,
        param_words: u32,
        ret: TypeId,
        loc: Loc,
        is_forall_body: bool,
    ) {
        self.resolve_gotos();
        let Some(mut ctx) = self.fns.pop() else { return };
        remove_nops(&mut ctx.code, &mut ctx.lines);
        let parent = self.fns.last().map(|f| f.index);
        let info = FunctionInfo {
            name: name.to_string(),
            entry: 0,
            end: 0,
            depth: ctx.depth,
            param_words,
            frame_words: ctx.high.max(param_words),
            ret_words: self.types.words(ret),
            ret_ty: ret,
            parent,
            block,
            line: if self.in_library > 0 { 0 } else { loc.line },
            is_forall_body,
        };
        let (code_at, lines_at) = (self.done_code.len(), self.done_lines.len());
        self.done_code.extend_from_slice(&ctx.code);
        self.done_lines.extend_from_slice(&ctx.lines);
        ctx.code.clear();
        ctx.lines.clear();
        self.spare.push((ctx.code, ctx.lines));
        if let Some(slot) = self.bodies.get_mut(idx as usize) {
            *slot = Some((info, code_at..self.done_code.len(), lines_at..self.done_lines.len()));
        }
    }

    /// Registers a new anonymous function (forall body) and returns its index.
    fn new_forall_body(&mut self, loc: Loc) -> u32 {
        let idx = self.sigs.len() as u32;
        let name = format!("forall@{}", loc.line);
        self.sigs.push(Signature {
            name,
            top: false,
            ret: VOID,
            params: vec![(INT, false)],
            variadic: false,
            loc,
            defined: true,
        });
        self.bodies.push(None);
        idx
    }

    /// Lays out all functions, relocates jumps, and builds the module.
    fn finish(&mut self) -> Option<Module> {
        if self.diags.iter().any(|d| d.is_error()) {
            return None;
        }
        let main = self.lookup_global_main()?;
        let (code, lines, functions) = match self.layout_in_place() {
            Some(laid_out) => laid_out,
            None => self.layout_by_copy()?,
        };
        // src2cod: the first instruction of each line, by line (a table indexed by line).
        let max_line = lines.iter().copied().max().unwrap_or(0) as usize;
        let mut first = vec![u32::MAX; max_line + 1];
        for (pc, &l) in lines.iter().enumerate() {
            let slot = &mut first[l as usize];
            if l > 0 && *slot == u32::MAX {
                *slot = pc as u32;
            }
        }
        let src2cod: Vec<(u32, u32)> =
            first.iter().enumerate().filter(|(_, &pc)| pc != u32::MAX).map(|(l, &pc)| (l as u32, pc)).collect();
        // A later initialiser of the same word wins (`{[1] = 9, [1] = 3}`); zero words
        // need no entry (the pool starts zeroed).
        self.global_init.sort_by_key(|(a, _, _)| *a);
        let mut image: Vec<(u32, Word, bool)> = Vec::with_capacity(self.global_init.len());
        for (a, w, r) in self.global_init.drain(..) {
            match image.last_mut() {
                Some(last) if last.0 == a => (last.1, last.2) = (w, r),
                _ => image.push((a, w, r)),
            }
        }
        image.retain(|(_, w, _)| *w != Word::Int(0));
        let global_relocs = image.iter().filter(|e| e.2).map(|e| e.0).collect();
        let global_init = image.into_iter().map(|(a, w, _)| (a, w)).collect();
        let (types, structs) = self.types.export();
        Some(Module {
            source_name: self.source_name.to_string(),
            source: std::mem::take(&mut self.source),
            code,
            lines,
            src2cod,
            types,
            structs,
            idents: std::mem::take(&mut self.idents),
            blocks: std::mem::take(&mut self.blocks),
            functions,
            channels: std::mem::take(&mut self.channels),
            globals_words: self.globals_words,
            null_reserved: true,
            global_init,
            global_relocs,
            main,
            arch: self.arch.take().map(|(a, _)| a),
            phy_arch: self.phy_arch.take().map(|(a, _)| a),
        })
    }

    /// The common case of [`Gen::layout_by_copy`]: when the functions were finished in
    /// index order (no nested function or `forall` body finishing before its parent),
    /// the finished code already has the final layout, so it is relocated in place and
    /// moved into the module instead of copied. `None` (nothing changed) when the order
    /// differs or a body is missing.
    fn layout_in_place(&mut self) -> Option<(Vec<Instr>, Vec<u32>, Vec<FunctionInfo>)> {
        let (mut code_at, mut lines_at) = (0, 0);
        for slot in &self.bodies {
            let (_, c, l) = slot.as_ref()?;
            if c.start != code_at || l.start != lines_at {
                return None;
            }
            (code_at, lines_at) = (c.end, l.end);
        }
        if code_at != self.done_code.len() || lines_at != self.done_lines.len() {
            return None;
        }
        let mut code = std::mem::take(&mut self.done_code);
        let lines = std::mem::take(&mut self.done_lines);
        let mut functions = Vec::with_capacity(self.bodies.len());
        for slot in self.bodies.iter_mut() {
            let (mut info, range, _) = slot.take()?;
            let base = range.start as u32;
            info.entry = base;
            info.end = range.end as u32;
            for i in code.get_mut(range)? {
                if let Instr::Jump { target } | Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } = i {
                    *target += base;
                }
            }
            functions.push(info);
        }
        Some((code, lines, functions))
    }

    /// Lays out the functions in index order, copying each one's code (jump targets
    /// relocated) and lines.
    fn layout_by_copy(&mut self) -> Option<(Vec<Instr>, Vec<u32>, Vec<FunctionInfo>)> {
        let mut code = Vec::with_capacity(self.done_code.len());
        let mut lines = Vec::with_capacity(self.done_lines.len());
        let mut functions = Vec::with_capacity(self.bodies.len());
        for slot in self.bodies.iter_mut() {
            let (mut info, code_range, lines_range) = slot.take()?;
            let base = code.len() as u32;
            info.entry = base;
            let (fcode, flines) = (self.done_code.get(code_range)?, self.done_lines.get(lines_range)?);
            for mut i in fcode.iter().copied() {
                match &mut i {
                    Instr::Jump { target } | Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } => {
                        *target += base
                    }
                    _ => {}
                }
                code.push(i);
            }
            lines.extend_from_slice(flines);
            info.end = code.len() as u32;
            functions.push(info);
        }
        Some((code, lines, functions))
    }

    fn lookup_global_main(&self) -> Option<u32> {
        self.sigs.iter().position(|s| s.name == "main").map(|i| i as u32)
    }

    /// Allocates a string literal (with its NUL) in the global area once; returns its address.
    /// A wide string's code points and a zero as a global `int` array: its address.
    pub(crate) fn wide_string_literal(&mut self, points: &[u32]) -> u32 {
        let addr = self.globals_words;
        self.globals_words += points.len() as u32 + 1;
        for (k, &c) in points.iter().enumerate() {
            self.global_init.push((addr + k as u32, Word::Int(c as i32), false));
        }
        addr
    }

    pub(crate) fn string_literal(&mut self, bytes: &[u8]) -> u32 {
        if let Some(&a) = self.strings.get(bytes) {
            return a;
        }
        let addr = self.globals_words;
        self.globals_words += bytes.len() as u32 + 1;
        for (k, &b) in bytes.iter().enumerate() {
            self.global_init.push((addr + k as u32, Word::Char(b), false));
        }
        self.global_init.push((addr + bytes.len() as u32, Word::Char(0), false));
        self.strings.insert(bytes.to_vec(), addr);
        addr
    }
}

fn describe(r: &std::ops::RangeInclusive<usize>) -> String {
    if r.start() == r.end() {
        r.start().to_string()
    } else {
        format!("{} to {}", r.start(), r.end())
    }
}

/// Removes the `NOP` placeholders left by expression typing and relocates the function's
/// (relative) jump targets.
fn remove_nops(code: &mut Vec<Instr>, lines: &mut Vec<u32>) {
    if !code.iter().any(|i| matches!(i, Instr::Nop {})) {
        return;
    }
    // new_index[k] = position of old instruction k after removal (for k == len: the end).
    let mut new_index = Vec::with_capacity(code.len() + 1);
    let mut n = 0u32;
    for i in code.iter() {
        new_index.push(n);
        if !matches!(i, Instr::Nop {}) {
            n += 1;
        }
    }
    new_index.push(n);
    // Compact in place (the write position never passes the read position), so the
    // buffers keep their capacity for the next function.
    let len = code.len().min(lines.len());
    let mut w = 0;
    for r in 0..len {
        let mut i = code[r];
        if matches!(i, Instr::Nop {}) {
            continue;
        }
        if let Instr::Jump { target } | Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } = &mut i {
            *target = new_index.get(*target as usize).copied().unwrap_or(n);
        }
        code[w] = i;
        lines[w] = lines[r];
        w += 1;
    }
    code.truncate(w);
    lines.truncate(w);
}

/// Whether the program has a file-scope definition (with a body) of function `name`.
fn defines(p: &ast::Program, name: &str) -> bool {
    p.items.iter().any(|i| matches!(i, ast::Item::Func(f) if f.body.is_some() && *f.name == *name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nops_are_removed_in_place_and_jumps_retargeted() {
        // Old positions 0..5: PushI, Nop, Jump->3, Nop, Ret. Without the two Nops, old
        // position 3 (a Nop) maps to the next kept instruction, Ret, now at 2; each line
        // stays with its instruction.
        let mut code =
            vec![Instr::PushI { v: 1 }, Instr::Nop {}, Instr::Jump { target: 3 }, Instr::Nop {}, Instr::Ret { n: 0 }];
        let mut lines = vec![1, 2, 3, 4, 5];
        let cap = code.capacity();
        remove_nops(&mut code, &mut lines);
        assert_eq!(code, vec![Instr::PushI { v: 1 }, Instr::Jump { target: 2 }, Instr::Ret { n: 0 }]);
        assert_eq!(lines, vec![1, 3, 5]);
        assert_eq!(code.capacity(), cap, "the buffer is kept for reuse");
    }
}
