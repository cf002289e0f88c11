//! Rvalues: the value of every kind of expression, unary and binary operators with
//! their conversions.
use super::*;

impl Gen<'_> {
    /// Pushes the value of `e`; returns its type (`ERROR` after a diagnostic).
    pub(in crate::lang::codegen) fn rvalue(&mut self, e: &Expr) -> TypeId {
        let loc = e.loc;
        match &e.kind {
            ExprKind::IntLit(v) => {
                // 2^31 is allowed so that `-2147483648` is INT_MIN, as on a machine where
                // it would be a long negated back into int range.
                if *v > 1 << 31 || *v < i32::MIN as i64 {
                    self.error(loc, format!("integer constant {v} does not fit in an int"));
                    return ERROR;
                }
                self.emit(Instr::PushI { v: *v as i32 }, loc);
                INT
            }
            ExprKind::UIntLit(v) => {
                self.emit(Instr::PushI { v: *v as i32 }, loc);
                UINT
            }
            ExprKind::LongLit(v) => {
                self.emit(Instr::PushL { v: *v }, loc);
                LONG
            }
            ExprKind::ULongLit(v) => {
                self.emit(Instr::PushL { v: *v as i64 }, loc);
                ULONG
            }
            ExprKind::FloatLit(f) => {
                self.emit(Instr::PushF { v: *f as f32 }, loc);
                FLOAT
            }
            ExprKind::DoubleLit(f) => {
                self.emit(Instr::PushD { v: *f }, loc);
                DOUBLE
            }
            ExprKind::CharLit(c) => {
                self.emit(Instr::PushC { v: *c }, loc);
                CHAR
            }
            ExprKind::StrLit(bytes) => {
                let addr = self.string_literal(bytes);
                self.emit(Instr::LdAddr { depth: 0, off: addr }, loc);
                self.types.intern(Type::Pointer(CHAR))
            }
            ExprKind::WStrLit(points) => {
                let addr = self.wide_string_literal(points);
                self.emit(Instr::LdAddr { depth: 0, off: addr }, loc);
                self.types.intern(Type::Pointer(INT))
            }
            ExprKind::Ident(name) => match self.lookup(name) {
                Some(Symbol::Var { ty, depth, off, kind }) if self.types.is_scalar(ty) => {
                    if kind == IdentKind::RefParam {
                        self.emit(Instr::LdIndirect { depth, off }, loc);
                    } else {
                        self.emit(Instr::LdVal { depth, off }, loc);
                    }
                    ty
                }
                Some(Symbol::Func(_)) | None => match self.named_function(name) {
                    Some(idx) => self.function_pointer(idx, name, loc),
                    None => {
                        let t = self.lvalue(e);
                        self.load(t, loc)
                    }
                },
                Some(Symbol::Const(v)) => {
                    self.emit(Instr::PushI { v }, loc);
                    INT
                }
                _ => {
                    let t = self.lvalue(e);
                    self.load(t, loc)
                }
            },
            ExprKind::Member { .. } | ExprKind::Index(..) => {
                self.union_member = false;
                let t = self.lvalue(e);
                let union = std::mem::take(&mut self.union_member);
                let v = self.load(t, loc);
                if union && self.types.is_scalar(v) && v == t {
                    self.emit(Instr::CheckWord { ty: scalar_of(v) }, loc);
                }
                v
            }
            ExprKind::Unary(UnOp::Deref, _) | ExprKind::Compound(_) => {
                let t = self.lvalue(e);
                self.load(t, loc)
            }
            ExprKind::Unary(UnOp::Addr, a) if matches!(&a.kind, ExprKind::Ident(n) if matches!(self.lookup(n), Some(Symbol::Func(_)) | None)) => {
                self.rvalue(a)
            }
            ExprKind::Unary(UnOp::Addr, a) => {
                if !self.is_lvalue_expr(a) {
                    self.error(a.loc, "`&` needs an lvalue (a variable, element or field)");
                    return ERROR;
                }
                let t = self.lvalue(a);
                if t == ERROR {
                    return ERROR;
                }
                self.types.intern(Type::Pointer(t))
            }
            ExprKind::Unary(op, a) => self.unary(*op, a, loc),
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), ab) => {
                let (a, b) = (&ab.0, &ab.1);
                let is_and = *op == BinOp::And;
                self.condition(a);
                let j1 = self
                    .emit(if is_and { Instr::JumpIfFalse { target: 0 } } else { Instr::JumpIfTrue { target: 0 } }, loc);
                self.condition(b);
                let j2 = self
                    .emit(if is_and { Instr::JumpIfFalse { target: 0 } } else { Instr::JumpIfTrue { target: 0 } }, loc);
                self.emit(Instr::PushI { v: is_and as i32 }, loc);
                let j3 = self.emit(Instr::Jump { target: 0 }, loc);
                let short = self.here();
                self.emit(Instr::PushI { v: !is_and as i32 }, loc);
                let end = self.here();
                self.patch(j1, short);
                self.patch(j2, short);
                self.patch(j3, end);
                INT
            }
            ExprKind::Binary(op, ab) => self.binary(*op, &ab.0, &ab.1, loc),
            ExprKind::Assign(op, lr) => self.assign(*op, &lr.0, &lr.1, true, loc),
            ExprKind::IncDec { pre, inc, expr } => self.incdec(*pre, *inc, expr, loc),
            ExprKind::Cond(c, a, b) => {
                self.condition(c);
                let jf = self.emit(Instr::JumpIfFalse { target: 0 }, loc);
                let ta = self.rvalue(a);
                let fix_a = self.emit(Instr::Nop {}, loc);
                let j = self.emit(Instr::Jump { target: 0 }, loc);
                let else_at = self.here();
                self.patch(jf, else_at);
                let tb = self.rvalue(b);
                // The else branch's conversion comes before the join point, so the then
                // branch's value (converted at `fix_a`) skips it.
                let t = if ta == ERROR || tb == ERROR || ta == tb {
                    None
                } else if self.types.is_arith(ta) && self.types.is_arith(tb) {
                    let t = Self::common_arith(ta, tb);
                    if let Some(i) = Self::conversion(ta, t) {
                        self.replace(fix_a, i);
                    }
                    if let Some(i) = Self::conversion(tb, t) {
                        self.emit(i, loc);
                    }
                    Some(t)
                } else {
                    None
                };
                let end = self.here();
                self.patch(j, end);
                if ta == ERROR || tb == ERROR {
                    return ERROR;
                }
                if ta == tb {
                    return ta;
                }
                if let Some(t) = t {
                    return t;
                }
                if self.types.is_pointer(ta) && self.types.is_pointer(tb) {
                    return ta;
                }
                // A pointer and a null pointer constant (C11 6.5.15p6): the pointer's type.
                if self.types.is_pointer(ta) && self.is_null_constant(b) {
                    return ta;
                }
                if self.types.is_pointer(tb) && self.is_null_constant(a) {
                    return tb;
                }
                let (na, nb) = (self.types.name(ta), self.types.name(tb));
                self.error(loc, format!("type mismatch: the branches of `?:` are {na} and {nb}"));
                ERROR
            }
            ExprKind::Call { name, name_loc, args } => self.call(name, *name_loc, args, loc),
            ExprKind::CallPtr(callee, args) => {
                // The pointer is computed first, kept in a frame word while the arguments
                // are pushed, then called.
                let t = self.rvalue(callee);
                if t == ERROR {
                    return ERROR;
                }
                let Some(ft) = self.types.pointee(t).filter(|p| self.types.get(*p).function_parts().is_some()) else {
                    self.error(callee.loc, format!("called object is not a function (it is {})", self.types.name(t)));
                    return ERROR;
                };
                let (depth, off) = self.temp();
                self.emit(Instr::LdAddr { depth, off }, loc);
                self.emit(Instr::Swap {}, loc);
                self.emit(Instr::Store { ty: Scalar::Int, keep: false }, loc);
                if !self.pointer_call_args(ft, args, loc) {
                    return ERROR;
                }
                self.emit(Instr::LdVal { depth, off }, loc);
                self.emit(Instr::CallInd {}, loc);
                self.function_result(ft)
            }
            ExprKind::Cast(tn, a) => {
                let to = self.type_name_type(tn).unwrap_or(ERROR);
                let t = self.rvalue(a);
                if to == ERROR || t == ERROR {
                    return ERROR;
                }
                if to == VOID {
                    let n = self.types.words(t);
                    if n > 0 {
                        self.emit(Instr::Pop { n }, loc);
                    }
                    return VOID;
                }
                if to == BOOL && (self.types.is_arith(t) || self.types.is_pointer(t)) {
                    self.emit_to_bool(t, loc);
                    return BOOL;
                }
                if self.types.is_arith(to) && self.types.is_arith(t) {
                    if t != to {
                        self.convert_scalar(t, to, loc);
                    }
                    return to;
                }
                if self.types.is_pointer(to) && (self.types.is_pointer(t) || self.types.is_integral(t)) {
                    return to;
                }
                // A pointer is an int word (its address): to another integer type, as
                // that int converts.
                if self.types.is_integral(to) && self.types.is_pointer(t) {
                    self.convert_scalar(INT, to, loc);
                    return to;
                }
                let (f, tt) = (self.types.name(t), self.types.name(to));
                self.error(loc, format!("cannot cast {f} to {tt}"));
                ERROR
            }
            ExprKind::SizeofType(_) => match self.const_int(e) {
                Some(v) => {
                    self.emit(Instr::PushI { v: v as i32 }, loc);
                    UINT
                }
                None => ERROR,
            },
            ExprKind::SizeofExpr(a) => {
                if let Some((elem, depth, off)) = self.vla_of(a) {
                    return self.vla_sizeof(elem, depth, off, loc);
                }
                let at = self.here();
                let t = if self.is_lvalue_expr(a) { self.lvalue(a) } else { self.rvalue(a) };
                self.truncate_code(at);
                if t == ERROR {
                    return ERROR;
                }
                // `size_t` is unsigned (C11 6.5.3.4): `-1 < sizeof x` is false.
                let n = self.types.words(t);
                self.emit(Instr::PushI { v: n as i32 }, loc);
                UINT
            }
            ExprKind::Comma(ab) => {
                self.expr_stmt(&ab.0);
                self.rvalue(&ab.1)
            }
        }
    }

    pub(super) fn replace(&mut self, at: usize, i: Instr) {
        if let Some(f) = self.fns.last_mut() {
            if let Some(slot) = f.code.get_mut(at) {
                *slot = i;
            }
        }
    }

    fn unary(&mut self, op: UnOp, a: &Expr, loc: Loc) -> TypeId {
        let t = self.rvalue(a);
        if t == ERROR {
            return ERROR;
        }
        match op {
            UnOp::Neg | UnOp::Plus => {
                if !self.types.is_arith(t) {
                    self.error(a.loc, format!("type mismatch: expected a number, found {}", self.types.name(t)));
                    return ERROR;
                }
                if op == UnOp::Plus {
                    return if t == CHAR { INT } else { t };
                }
                if t == FLOAT {
                    self.emit(Instr::NegF {}, loc);
                    FLOAT
                } else if t == DOUBLE {
                    self.emit(Instr::NegD {}, loc);
                    DOUBLE
                } else if t == LONG || t == ULONG {
                    self.emit(Instr::NegL {}, loc);
                    t
                } else {
                    self.emit(Instr::NegI {}, loc);
                    if t == UINT {
                        UINT
                    } else {
                        INT
                    }
                }
            }
            UnOp::Not => {
                if !self.types.is_scalar(t) {
                    self.error(
                        a.loc,
                        format!("type mismatch: `!` needs a number or pointer, found {}", self.types.name(t)),
                    );
                    return ERROR;
                }
                self.emit(Instr::LogNot {}, loc);
                INT
            }
            UnOp::BitNot => {
                if !self.types.is_integral(t) {
                    self.error(a.loc, format!("type mismatch: `~` needs an integer, found {}", self.types.name(t)));
                    return ERROR;
                }
                if t == LONG || t == ULONG {
                    self.emit(Instr::PushL { v: -1 }, loc);
                    self.emit(Instr::XorL {}, loc);
                    return t;
                }
                self.emit(Instr::BitNot {}, loc);
                if t == UINT {
                    UINT
                } else {
                    INT
                }
            }
            UnOp::Deref | UnOp::Addr => ERROR, // handled in rvalue
        }
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, loc: Loc) -> TypeId {
        let ta = self.rvalue(a);
        let fix_a = self.emit(Instr::Nop {}, loc);
        let tb = self.rvalue(b);
        if ta == ERROR || tb == ERROR {
            return ERROR;
        }
        self.binary_typed(op, ta, tb, fix_a, a, b, loc)
    }

    /// Emits the operator for operands of types `ta` (converted at `fix_a`) and `tb` (on top).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn binary_typed(
        &mut self,
        op: BinOp,
        ta: TypeId,
        tb: TypeId,
        fix_a: usize,
        a: &Expr,
        b: &Expr,
        loc: Loc,
    ) -> TypeId {
        let pa = self.types.pointee(ta);
        let pb = self.types.pointee(tb);
        // Pointer arithmetic.
        match (op, pa, pb) {
            (BinOp::Add, Some(e), None) | (BinOp::Sub, Some(e), None) if self.types.is_integral(tb) => {
                if op == BinOp::Sub {
                    self.emit(Instr::NegI {}, loc);
                }
                let size = self.types.words(e).max(1);
                self.emit(Instr::AddrAdd { size }, loc);
                return ta;
            }
            (BinOp::Add, None, Some(e)) if self.types.is_integral(ta) => {
                self.emit(Instr::Swap {}, loc);
                let size = self.types.words(e).max(1);
                self.emit(Instr::AddrAdd { size }, loc);
                return tb;
            }
            (BinOp::Sub, Some(x), Some(y)) if x == y => {
                self.emit(Instr::SubI {}, loc);
                let size = self.types.words(x).max(1);
                if size > 1 {
                    self.emit(Instr::PushI { v: size as i32 }, loc);
                    self.emit(Instr::DivI {}, loc);
                }
                return INT;
            }
            (BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, Some(_), Some(_)) => {
                self.emit(int_cmp(op), loc);
                return INT;
            }
            (BinOp::Eq | BinOp::Ne, Some(_), None) if matches!(b.kind, ExprKind::IntLit(0)) => {
                self.emit(int_cmp(op), loc);
                return INT;
            }
            (BinOp::Eq | BinOp::Ne, None, Some(_)) if matches!(a.kind, ExprKind::IntLit(0)) => {
                self.emit(int_cmp(op), loc);
                return INT;
            }
            _ => {}
        }
        if !self.types.is_arith(ta) || !self.types.is_arith(tb) {
            let (na, nb) = (self.types.name(ta), self.types.name(tb));
            self.error(loc, format!("type mismatch: operator `{}` cannot take {na} and {nb}", op_text(op)));
            return ERROR;
        }
        let integral_only =
            matches!(op, BinOp::Mod | BinOp::Shl | BinOp::Shr | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor);
        if integral_only {
            if !self.types.is_integral(ta) || !self.types.is_integral(tb) {
                let (na, nb) = (self.types.name(ta), self.types.name(tb));
                self.error(
                    loc,
                    format!("type mismatch: operator `{}` needs integers, found {na} and {nb}", op_text(op)),
                );
                return ERROR;
            }
            let wide = |t| t == LONG || t == ULONG;
            if wide(ta) || wide(tb) {
                let shift = matches!(op, BinOp::Shl | BinOp::Shr);
                if shift && !wide(ta) {
                    // `int << long`: an int shift by the count made an int.
                    self.emit(Instr::Convert { to: Scalar::Int }, loc);
                } else {
                    // A shift has the type of its left operand, the others the common type.
                    let to = if shift { ta } else { Self::common_arith(ta, tb) };
                    if let Some(c) = Self::conversion(ta, to) {
                        self.replace(fix_a, c);
                    }
                    if let (Some(c), false) = (Self::conversion(tb, to), shift) {
                        self.emit(c, loc);
                    }
                    let unsigned = to == ULONG;
                    self.emit(
                        match op {
                            BinOp::Mod if unsigned => Instr::ModUL {},
                            BinOp::Mod => Instr::ModL {},
                            BinOp::Shl => Instr::ShlL {},
                            BinOp::Shr if unsigned => Instr::ShrUL {},
                            BinOp::Shr => Instr::ShrL {},
                            BinOp::BitAnd => Instr::AndL {},
                            BinOp::BitOr => Instr::OrL {},
                            _ => Instr::XorL {},
                        },
                        loc,
                    );
                    return to;
                }
            }
            // C: a shift has the (promoted) type of its left operand; the others the
            // common type, unsigned int if either operand is.
            let unsigned = if matches!(op, BinOp::Shl | BinOp::Shr) { ta == UINT } else { ta == UINT || tb == UINT };
            self.emit(
                match op {
                    BinOp::Mod if unsigned => Instr::ModU {},
                    BinOp::Mod => Instr::ModI {},
                    BinOp::Shl => Instr::Shl {},
                    BinOp::Shr if unsigned => Instr::ShrU {},
                    BinOp::Shr => Instr::Shr {},
                    BinOp::BitAnd => Instr::BitAnd {},
                    BinOp::BitOr => Instr::BitOr {},
                    _ => Instr::BitXor {},
                },
                loc,
            );
            return if unsigned { UINT } else { INT };
        }
        // The usual arithmetic conversions, then the operation in the common type.
        let t = Self::common_arith(ta, tb);
        if let Some(i) = Self::operand_conversion(ta, t) {
            self.replace(fix_a, i);
        }
        if let Some(i) = Self::operand_conversion(tb, t) {
            self.emit(i, loc);
        }
        let (i, result) = arith_op(op, t);
        self.emit(i, loc);
        result
    }
}
