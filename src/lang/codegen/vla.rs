//! Variable-length arrays (C99 6.7.6.2): `T a[n]` inside a function, where `n` is not a
//! constant, whose first dimension alone may vary (`double m[n][4]` is fine,
//! `double m[n][k]` is refused).
//!
//! A frame's size is fixed when its function is compiled, so the array lives on the
//! heap: the name is bound to two hidden frame words, the block's address and its element
//! count, and behaves as a `const` pointer to the element type (indexing, `*a`, passing
//! `a` to a function). The declaration frees the block the previous execution of it left
//! (a loop's next iteration, a `goto` back over it), evaluates `n`, and allocates
//! `n × sizeof(T)` words with MALLOC, charged as a call of `malloc` is; the block is
//! freed when its scope ends normally and when the function returns. `sizeof a` is
//! `n × sizeof(T)`, computed when it runs. The two words are reserved when the function's
//! body starts (one pair per declaration that may be variable), never shared with another
//! variable, and zero in a new frame, so freeing them is always safe.
use super::{Gen, Symbol, ERROR, VOID};
use crate::lang::ast::{self, Loc, StmtKind};
use crate::vcode::{IdentKind, Instr, Scalar, Type, TypeId};

impl Gen<'_> {
    /// The size expression of `d` if it declares a variable-length array: a local object
    /// whose first dimension is present and not a constant.
    pub(super) fn vla_size<'e>(&mut self, storage: ast::Storage, d: &'e ast::Declarator) -> Option<&'e ast::Expr> {
        if self.fns.is_empty()
            || matches!(storage, ast::Storage::Static | ast::Storage::Extern)
            || d.func.is_some()
            || d.array_pointers > 0
        {
            return None;
        }
        // The first dimension must be there; an inner one that varies is reported by
        // `vla_decl`. Quietly: an error in a size is reported when the declaration is
        // compiled.
        let first = d.dims.first()?.as_ref()?;
        let varies = d.dims.iter().flatten().any(|e| self.quiet_const_int(e).is_none());
        varies.then_some(first)
    }

    /// Keeps frame words for the variable-length arrays that `stmts` (a function's or a
    /// forall body's) may declare, nested blocks included, nested functions not.
    pub(super) fn reserve_vlas(&mut self, stmts: &[ast::Stmt]) {
        let mut n = 0u32;
        let mut todo: Vec<&ast::Stmt> = stmts.iter().collect();
        while let Some(s) = todo.pop() {
            match &s.kind {
                StmtKind::Decl(v) => {
                    for d in &v.decls {
                        if self.vla_size(v.ty.storage, d).is_some() {
                            n += 1;
                        }
                    }
                }
                StmtKind::Block(b) | StmtKind::Switch { body: b, .. } => todo.extend(b.stmts.iter()),
                StmtKind::If { then, els, .. } => {
                    todo.push(then);
                    if let Some(e) = els {
                        todo.push(e);
                    }
                }
                StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => todo.push(body),
                StmtKind::For { init, body, .. } => {
                    if let Some(i) = init {
                        todo.push(i);
                    }
                    todo.push(body);
                }
                _ => {}
            }
        }
        if let Some(f) = self.fns.last_mut() {
            f.vla_base = f.next;
            f.vla_count = n;
            f.vla_used = 0;
            f.reserve_to(f.next + 2 * n);
        }
    }

    /// Declares the variable-length array `d` of element base type `base` and emits its
    /// allocation.
    pub(super) fn vla_decl(&mut self, base: TypeId, d: &ast::Declarator, size: &ast::Expr) {
        if d.init.is_some() {
            self.error(d.loc, format!("variable-length array `{}` cannot have an initialiser", d.name));
            self.poisoned.insert(d.name.clone());
            return;
        }
        if let Some(e) = d.dims[1..].iter().flatten().find(|e| self.quiet_const_int(e).is_none()) {
            self.error(
                e.loc,
                "only the first dimension of a variable-length array may vary (the others must be constants)",
            );
            self.poisoned.insert(d.name.clone());
            return;
        }
        let inner = ast::Declarator { dims: d.dims[1..].to_vec(), init: None, ..d.clone() };
        let Some(elem) = self.declarator_type(base, &inner, false) else {
            self.poisoned.insert(d.name.clone());
            return;
        };
        if elem == VOID || elem == ERROR {
            if elem == VOID {
                self.error(d.loc, format!("array `{}` cannot have elements of type void", d.name));
            }
            self.poisoned.insert(d.name.clone());
            return;
        }
        let Some(f) = self.fns.last_mut() else { return };
        if f.vla_used >= f.vla_count {
            // reserve_vlas counts every declaration vla_size accepts; this is a bug guard.
            self.error(d.loc, "internal error: no frame words kept for this variable-length array");
            return;
        }
        let (depth, off) = (f.depth, f.vla_base + 2 * f.vla_used);
        f.vla_used += 1;
        let loc = size.loc;
        // The element count, evaluated before the name is in scope.
        self.emit(Instr::LdAddr { depth, off: off + 1 }, loc);
        if self.int_value(size) == ERROR {
            self.poisoned.insert(d.name.clone());
            return;
        }
        self.emit(Instr::Store { ty: Scalar::Int, keep: false }, loc);
        // The block of the previous execution of this declaration, if any.
        self.emit(Instr::LdVal { depth, off }, d.loc);
        self.emit(Instr::Free {}, d.loc);
        self.emit(Instr::LdAddr { depth, off }, d.loc);
        self.emit(Instr::LdVal { depth, off: off + 1 }, d.loc);
        self.emit(Instr::PushI { v: self.types.words(elem).max(1) as i32 }, d.loc);
        self.emit(Instr::MulI {}, d.loc);
        self.emit(Instr::Malloc {}, d.loc);
        self.emit(Instr::Store { ty: Scalar::Int, keep: false }, d.loc);
        let ty = self.types.intern(Type::Pointer(elem));
        if self.declare(&d.name, Symbol::Var { ty, depth, off, kind: IdentKind::Var }, d.loc) {
            self.record_ident(&d.name, IdentKind::Var, ty, depth, off, d.loc);
            if let Some(scope) = self.scopes.last_mut() {
                // The array itself cannot be assigned, as an array cannot.
                scope.consts.push(d.name.clone());
                scope.vlas.push(off);
            }
        }
    }

    /// The element type and frame place of `e` if it names a variable-length array.
    pub(super) fn vla_of(&self, e: &ast::Expr) -> Option<(TypeId, u8, u32)> {
        let ast::ExprKind::Ident(name) = &e.kind else { return None };
        let Some(Symbol::Var { ty, depth, off, kind: IdentKind::Var }) = self.lookup(name) else { return None };
        let f = self.fns.iter().rev().find(|f| f.depth == depth)?;
        let is_vla = off >= f.vla_base && off < f.vla_base + 2 * f.vla_used && (off - f.vla_base) % 2 == 0;
        if !is_vla {
            return None;
        }
        let elem = self.types.pointee(ty)?;
        Some((elem, depth, off))
    }

    /// `sizeof a` of a variable-length array: its element count times the element's words.
    pub(super) fn vla_sizeof(&mut self, elem: TypeId, depth: u8, off: u32, loc: Loc) -> TypeId {
        self.emit(Instr::LdVal { depth, off: off + 1 }, loc);
        self.emit(Instr::PushI { v: self.types.words(elem).max(1) as i32 }, loc);
        self.emit(Instr::MulI {}, loc);
        super::types::UINT
    }

    /// Frees the blocks of the variable-length arrays declared in the innermost scope.
    pub(super) fn free_scope_vlas(&mut self, loc: Loc) {
        let Some(vlas) = self.scopes.last().map(|s| s.vlas.clone()) else { return };
        let depth = self.cur_depth();
        for off in vlas {
            self.free_vla(depth, off, loc);
        }
    }

    /// Frees the block of every variable-length array of the current function (before a
    /// return; a word of an array not allocated, or freed already, is zero).
    pub(super) fn free_vlas(&mut self, loc: Loc) {
        let Some(f) = self.fns.last() else { return };
        let (depth, base, n) = (f.depth, f.vla_base, f.vla_count);
        for k in 0..n {
            self.free_vla(depth, base + 2 * k, loc);
        }
    }

    fn free_vla(&mut self, depth: u8, off: u32, loc: Loc) {
        self.emit(Instr::LdVal { depth, off }, loc);
        self.emit(Instr::Free {}, loc);
        self.emit(Instr::LdAddr { depth, off }, loc);
        self.emit(Instr::PushI { v: 0 }, loc);
        self.emit(Instr::Store { ty: Scalar::Int, keep: false }, loc);
    }
}
