//! Assignments (a store, or a send when the target is a channel element), compound
//! assignments and increments.
use super::*;

impl Gen<'_> {
    /// `l = r` / `l op= r`. With `want`, leaves the assigned value on the stack.
    pub(super) fn assign(&mut self, op: Option<BinOp>, l: &Expr, r: &Expr, want: bool, loc: Loc) -> TypeId {
        if !self.is_lvalue_expr(l) {
            if let ExprKind::Ident(n) = &l.kind {
                if self.lookup(n).is_none() {
                    self.undeclared(l.loc, "name", n);
                    self.rvalue_discard(r);
                    return ERROR;
                }
            }
            self.error(l.loc, "cannot assign to this expression: it is not an lvalue");
            self.rvalue_discard(r);
            return ERROR;
        }
        if !self.check_not_const(l, "assignment") {
            self.rvalue_discard(r);
            return ERROR;
        }
        let t = self.lvalue(l);
        if t == ERROR {
            self.rvalue_discard(r);
            return ERROR;
        }
        let bitfield = self.bitfield_target(l);
        if let Some(elem) = self.types.channel_elem(t) {
            if op.is_some() {
                self.error(loc, "a channel element cannot take a compound assignment (a read and a send)");
                return ERROR;
            }
            let vt = self.value_of_type(elem, r);
            if vt == ERROR {
                return ERROR;
            }
            let n = self.types.words(elem);
            self.emit(Instr::Send { n }, loc);
            if want {
                self.error(loc, "a channel send has no value");
                return ERROR;
            }
            return VOID;
        }
        if self.types.array_elem(t).is_some() {
            self.error(l.loc, format!("cannot assign to an array ({})", self.types.name(t)));
            return ERROR;
        }
        if self.types.is_spinlock(t) {
            self.error(l.loc, "cannot assign to a spinlock");
            return ERROR;
        }
        match op {
            None if bitfield.is_some() => {
                if self.value_of_type(t, r) == ERROR {
                    return ERROR;
                }
                if let Some(bf) = bitfield {
                    self.narrow_bitfield(bf, t, loc);
                }
                self.emit(Instr::Store { ty: scalar_of(t), keep: want }, loc);
                t
            }
            None => self.assign_into(t, r, want),
            Some(op) => {
                if !self.types.is_scalar(t) {
                    self.error(
                        l.loc,
                        format!("compound assignment needs a number or pointer, found {}", self.types.name(t)),
                    );
                    return ERROR;
                }
                self.emit(Instr::Dup {}, loc);
                self.emit(Instr::Dereference {}, loc);
                let fix = self.emit(Instr::Nop {}, loc);
                let tr = self.rvalue(r);
                if tr == ERROR {
                    return ERROR;
                }
                let res = self.binary_typed(op, t, tr, fix, l, r, loc);
                if res == ERROR {
                    return ERROR;
                }
                if self.types.is_pointer(t) && !self.types.is_pointer(res) {
                    self.error(loc, "type mismatch in compound assignment to a pointer");
                    return ERROR;
                }
                if t == BOOL {
                    self.emit_to_bool(res, loc);
                } else if narrow_of(t).is_some() {
                    if res == FLOAT {
                        self.emit(Instr::Convert { to: Scalar::Int }, loc);
                    }
                    self.emit_narrow(t, loc);
                }
                if let Some(bf) = bitfield {
                    self.narrow_bitfield(bf, t, loc);
                }
                self.emit(Instr::Store { ty: scalar_of(t), keep: want }, loc);
                t
            }
        }
    }

    /// With the destination address on the stack, evaluates `e` as a `ty` and stores it.
    pub(in crate::lang::codegen) fn assign_into(&mut self, ty: TypeId, e: &Expr, keep: bool) -> TypeId {
        if self.types.is_struct(ty) {
            if keep {
                self.error(e.loc, "a struct assignment cannot be used as a value");
                return ERROR;
            }
            let n = self.types.words(ty);
            // `r = q = p;`: the inner assignment first, then a copy of what it stored,
            // read again from its target (which reading twice cannot change).
            if let ExprKind::Assign(None, lr) = &e.kind {
                if Self::plain_lvalue(&lr.0) && self.channel_of(&lr.0).is_none() {
                    if self.assign(None, &lr.0, &lr.1, false, e.loc) == ERROR {
                        return ERROR;
                    }
                    return self.assign_into(ty, &lr.0, false);
                }
            }
            if self.is_lvalue_expr(e) && self.channel_of(e).is_none() {
                let t = self.lvalue(e);
                if t == ERROR {
                    return ERROR;
                }
                if t != ty {
                    let (f, tt) = (self.types.name(t), self.types.name(ty));
                    self.error(e.loc, format!("type mismatch: expected {tt}, found {f}"));
                    return ERROR;
                }
                self.emit(Instr::CopyBlock { n }, e.loc);
            } else {
                if self.value_of_type(ty, e) == ERROR {
                    return ERROR;
                }
                self.emit(Instr::StoreBlock { n }, e.loc);
            }
            return ty;
        }
        if self.value_of_type(ty, e) == ERROR {
            return ERROR;
        }
        self.emit(Instr::Store { ty: scalar_of(ty), keep }, e.loc);
        ty
    }

    /// An lvalue that names the same object however often it is evaluated, with no side
    /// effect: a variable, its members and elements at constant or variable indices, or
    /// what a pointer variable points to.
    fn plain_lvalue(e: &Expr) -> bool {
        let plain_index = |i: &Expr| matches!(i.kind, ExprKind::IntLit(_) | ExprKind::Ident(_));
        match &e.kind {
            ExprKind::Ident(_) => true,
            ExprKind::Member { expr, .. } => Self::plain_lvalue(expr),
            ExprKind::Index(ai) => Self::plain_lvalue(&ai.0) && plain_index(&ai.1),
            ExprKind::Unary(UnOp::Deref, p) => matches!(p.kind, ExprKind::Ident(_)),
            _ => false,
        }
    }

    pub(super) fn incdec(&mut self, pre: bool, inc: bool, e: &Expr, loc: Loc) -> TypeId {
        if !self.is_lvalue_expr(e) {
            self.error(e.loc, format!("`{}` needs an lvalue", if inc { "++" } else { "--" }));
            return ERROR;
        }
        if !self.check_not_const(e, if inc { "increment" } else { "decrement" }) {
            return ERROR;
        }
        let t = self.lvalue(e);
        if t == ERROR {
            return ERROR;
        }
        let bitfield = self.bitfield_target(e);
        let step = if let Some(p) = self.types.pointee(t) {
            self.types.words(p).max(1) as i32
        } else if self.types.is_arith(t) {
            1
        } else {
            self.error(
                e.loc,
                format!("`{}` needs a number or pointer, found {}", if inc { "++" } else { "--" }, self.types.name(t)),
            );
            return ERROR;
        };
        if t == BOOL {
            // C: `b++` stores 1 and `b--` stores !b (b ± 1 compared with zero).
            if !pre {
                self.emit(Instr::Dup {}, loc);
                self.emit(Instr::Dereference {}, loc);
                self.emit(Instr::Swap {}, loc);
            }
            if inc {
                self.emit(Instr::PushI { v: 1 }, loc);
            } else {
                self.emit(Instr::Dup {}, loc);
                self.emit(Instr::Dereference {}, loc);
                self.emit(Instr::PushI { v: 0 }, loc);
                self.emit(Instr::EqI {}, loc);
            }
            self.emit(Instr::Store { ty: Scalar::Int, keep: pre }, loc);
            return BOOL;
        }
        let delta = if inc { step } else { -step };
        if bitfield.is_some() || narrow_of(t).is_some() {
            // Load, add, wrap into the field's bits or the type's range, store (keeping
            // the old value after).
            if !pre {
                self.emit(Instr::Dup {}, loc);
                self.emit(Instr::Dereference {}, loc);
                self.emit(Instr::Swap {}, loc);
            }
            self.emit(Instr::Dup {}, loc);
            self.emit(Instr::Dereference {}, loc);
            if scalar_of(t) == Scalar::Long {
                self.emit(Instr::PushL { v: i64::from(delta) }, loc);
                self.emit(Instr::AddL {}, loc);
            } else {
                self.emit(Instr::PushI { v: delta }, loc);
                self.emit(Instr::AddI {}, loc);
            }
            match bitfield {
                Some(bf) => self.narrow_bitfield(bf, t, loc),
                None => self.emit_narrow(t, loc),
            }
            self.emit(Instr::Store { ty: scalar_of(t), keep: pre }, loc);
            return t;
        }
        self.emit(Instr::IncDec { ty: scalar_of(t), delta, pre }, loc);
        t
    }
}

impl Gen<'_> {
    /// The bit-field an assignment's target `l` (its lvalue just computed) is, if any:
    /// the last member access made it known, and it was `l`'s own only when `l` is a
    /// member access.
    fn bitfield_target(&mut self, l: &Expr) -> Option<(u8, bool)> {
        let bf = self.bitfield.take();
        if matches!(l.kind, ExprKind::Member { .. }) {
            bf
        } else {
            None
        }
    }

    /// Wraps the value on top (of the field's type `t`) into bit-field `bf`'s bits.
    pub(in crate::lang::codegen) fn narrow_bitfield(&mut self, bf: (u8, bool), t: TypeId, loc: Loc) {
        let (bits, signed) = bf;
        if scalar_of(t) == Scalar::Long {
            if bits >= 64 {
                return;
            }
            let shift = i32::from(64 - bits);
            self.emit(Instr::PushI { v: shift }, loc);
            self.emit(Instr::ShlL {}, loc);
            self.emit(Instr::PushI { v: shift }, loc);
            if signed {
                self.emit(Instr::ShrL {}, loc);
            } else {
                // A logical shift: the arithmetic one, then the sign's copies masked off.
                self.emit(Instr::ShrL {}, loc);
                self.emit(Instr::PushL { v: ((1u64 << bits) - 1) as i64 }, loc);
                self.emit(Instr::AndL {}, loc);
            }
        } else if t != BOOL && bits < 32 {
            self.emit(Instr::Narrow { bits, signed }, loc);
        }
    }
}
