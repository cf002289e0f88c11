//! Expressions: lvalues (push an address), rvalues (push a value; arrays decay to a
//! pointer, structs push their words, channel elements receive), assignments (a store, or
//! a send when the target is a channel element), calls of user functions and built-ins.
//!
//! Where an operand needs a conversion that is only known after the other operand was
//! typed, a `NOP` placeholder is emitted and later replaced by `CONV` or removed when the
//! function is laid out.
use super::types::{narrow_of, BOOL, CHAR, DOUBLE, LONG, SPINLOCK, UINT, ULONG};
use super::{Gen, Symbol, ERROR, FLOAT, INT, VOID};
use crate::lang::ast::{BinOp, Expr, ExprKind, Loc, UnOp};
use crate::vcode::{IdentKind, Instr, Scalar, Type, TypeId};

/// Names the compiler provides (calls to them compile to dedicated instructions).
const BUILTINS: &[&str] = &[
    "printf",
    "fprintf",
    "scanf",
    "fscanf",
    "fopen",
    "fclose",
    "sqrt",
    "sin",
    "cos",
    "tan",
    "exp",
    "log",
    "pow",
    "fabs",
    "floor",
    "ceil",
    "abs",
    "rand",
    "srand",
    "timeOn",
    "timeOff",
    "delay",
    "probe",
    "mapping",
    "vproc",
    "pid",
    "lock",
    "unlock",
    "sprintf",
    "snprintf",
    "malloc",
    "calloc",
    "realloc",
    "free",
    "memcpy",
    "memmove",
    "memset",
    "exit",
    "__builtin_va_start",
    "vprintf",
    "vfprintf",
    "vsprintf",
    "vsnprintf",
];

/// Every built-in name (for "did you mean" suggestions).
pub(super) fn builtin_names() -> &'static [&'static str] {
    BUILTINS
}

pub(super) fn is_builtin(name: &str) -> bool {
    BUILTINS.contains(&name)
}

fn scalar_of(t: TypeId) -> Scalar {
    match t {
        FLOAT => Scalar::Float,
        DOUBLE => Scalar::Double,
        LONG | ULONG => Scalar::Long,
        CHAR => Scalar::Char,
        _ => Scalar::Int,
    }
}

/// The instruction of arithmetic or comparison `op` in common type `t`, and its result
/// type.
fn arith_op(op: BinOp, t: TypeId) -> (Instr, TypeId) {
    use BinOp::*;
    match t {
        DOUBLE => match op {
            Add => (Instr::AddD {}, DOUBLE),
            Sub => (Instr::SubD {}, DOUBLE),
            Mul => (Instr::MulD {}, DOUBLE),
            Div => (Instr::DivD {}, DOUBLE),
            Eq => (Instr::EqD {}, INT),
            Ne => (Instr::NeD {}, INT),
            Lt => (Instr::LtD {}, INT),
            Le => (Instr::LeD {}, INT),
            Gt => (Instr::GtD {}, INT),
            _ => (Instr::GeD {}, INT),
        },
        FLOAT => match op {
            Add => (Instr::AddF {}, FLOAT),
            Sub => (Instr::SubF {}, FLOAT),
            Mul => (Instr::MulF {}, FLOAT),
            Div => (Instr::DivF {}, FLOAT),
            Eq => (Instr::EqF {}, INT),
            Ne => (Instr::NeF {}, INT),
            Lt => (Instr::LtF {}, INT),
            Le => (Instr::LeF {}, INT),
            Gt => (Instr::GtF {}, INT),
            _ => (Instr::GeF {}, INT),
        },
        LONG => match op {
            Add => (Instr::AddL {}, LONG),
            Sub => (Instr::SubL {}, LONG),
            Mul => (Instr::MulL {}, LONG),
            Div => (Instr::DivL {}, LONG),
            Eq => (Instr::EqL {}, INT),
            Ne => (Instr::NeL {}, INT),
            Lt => (Instr::LtL {}, INT),
            Le => (Instr::LeL {}, INT),
            Gt => (Instr::GtL {}, INT),
            _ => (Instr::GeL {}, INT),
        },
        ULONG => match op {
            Add => (Instr::AddL {}, ULONG),
            Sub => (Instr::SubL {}, ULONG),
            Mul => (Instr::MulL {}, ULONG),
            Div => (Instr::DivUL {}, ULONG),
            Eq => (Instr::EqL {}, INT),
            Ne => (Instr::NeL {}, INT),
            Lt => (Instr::LtUL {}, INT),
            Le => (Instr::LeUL {}, INT),
            Gt => (Instr::GtUL {}, INT),
            _ => (Instr::GeUL {}, INT),
        },
        UINT => match op {
            Add => (Instr::AddI {}, UINT),
            Sub => (Instr::SubI {}, UINT),
            Mul => (Instr::MulI {}, UINT),
            Div => (Instr::DivU {}, UINT),
            Lt => (Instr::LtU {}, INT),
            Le => (Instr::LeU {}, INT),
            Gt => (Instr::GtU {}, INT),
            Ge => (Instr::GeU {}, INT),
            _ => (int_cmp(op), INT),
        },
        _ => match op {
            Add => (Instr::AddI {}, INT),
            Sub => (Instr::SubI {}, INT),
            Mul => (Instr::MulI {}, INT),
            Div => (Instr::DivI {}, INT),
            _ => (int_cmp(op), INT),
        },
    }
}

impl Gen<'_> {
    // ------------------------------------------------------------ entry points

    /// An expression statement: evaluated for its effects, value discarded.
    pub(super) fn expr_stmt(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Assign(op, lr) => {
                self.assign(*op, &lr.0, &lr.1, false, e.loc);
            }
            ExprKind::IncDec { pre, inc, expr } => {
                if self.incdec(*pre, *inc, expr, e.loc) != ERROR {
                    self.emit(Instr::Pop { n: 1 }, e.loc);
                }
            }
            ExprKind::Comma(ab) => {
                self.expr_stmt(&ab.0);
                self.expr_stmt(&ab.1);
            }
            _ => {
                let t = self.rvalue(e);
                let n = if t == ERROR { 0 } else { self.types.words(t) };
                if n > 0 {
                    self.emit(Instr::Pop { n }, e.loc);
                }
            }
        }
    }

    /// A condition: pushes a scalar whose zero-ness decides.
    pub(super) fn condition(&mut self, e: &Expr) {
        let t = self.rvalue(e);
        if t != ERROR && !self.types.is_scalar(t) {
            self.error(e.loc, format!("a condition must be a number or pointer, found {}", self.types.name(t)));
        }
    }

    /// Pushes the value of `e` converted to int.
    pub(super) fn int_value(&mut self, e: &Expr) -> TypeId {
        let t = self.rvalue(e);
        if t == ERROR {
            return ERROR;
        }
        if !self.types.is_arith(t) {
            self.error(e.loc, format!("type mismatch: expected int, found {}", self.types.name(t)));
            return ERROR;
        }
        if t != INT {
            self.emit(Instr::Convert { to: Scalar::Int }, e.loc);
        }
        INT
    }

    /// The element type if `e` reads a channel element (`C`, `C[i][j]`).
    fn channel_of(&self, e: &Expr) -> Option<(String, TypeId)> {
        let mut cur = e;
        while let ExprKind::Index(ai) = &cur.kind {
            cur = &ai.0;
        }
        if let ExprKind::Ident(name) = &cur.kind {
            if let Some(Symbol::Var { ty, kind: IdentKind::Channel, .. }) = self.lookup(name) {
                let mut t = ty;
                while let Some((elem, _)) = self.types.array_elem(t) {
                    t = elem;
                }
                return self.types.channel_elem(t).map(|el| (name.to_string(), el));
            }
        }
        None
    }

    /// Pushes the value of `e` converted to `ty` (the words of a struct), checking that the
    /// conversion is allowed.
    pub(super) fn value_of_type(&mut self, ty: TypeId, e: &Expr) -> TypeId {
        if ty == ERROR {
            self.rvalue(e);
            return ERROR;
        }
        if let Some((chan, elem)) = self.channel_of(e) {
            if elem != ty && self.types.array_elem(ty).is_none() {
                // A read of the whole channel array is not a read; let rvalue report it.
                let (en, tn) = (self.types.name(elem), self.types.name(ty));
                self.error(e.loc, format!("reading channel `{chan}` of element type {en} into {tn}"));
                return ERROR;
            }
        }
        let t = self.rvalue(e);
        if t == ERROR {
            return ERROR;
        }
        if self.convert_to(t, ty, e) {
            ty
        } else {
            ERROR
        }
    }

    /// Emits the conversion of a value of type `from` (on the stack) to `to`, or reports a
    /// type mismatch.
    fn convert_to(&mut self, from: TypeId, to: TypeId, e: &Expr) -> bool {
        if from == to {
            return true;
        }
        let ok = if to == BOOL && (self.types.is_arith(from) || self.types.is_pointer(from)) {
            self.emit_to_bool(from, e.loc);
            true
        } else if let (ExprKind::DoubleLit(v), true) = (&e.kind, self.types.is_arith(to)) {
            // A double constant converted at compile time, as C compilers do.
            let at = self.here().saturating_sub(1);
            let folded = match to {
                FLOAT => Some(Instr::PushF { v: *v as f32 }),
                INT => Some(Instr::PushI { v: *v as i32 }),
                _ => None,
            };
            match folded {
                Some(i) if self.last_instr() == Some(Instr::PushD { v: *v }) => self.replace(at, i),
                _ => self.convert_scalar(from, to, e.loc),
            }
            true
        } else if self.types.is_arith(from) && self.types.is_arith(to) {
            self.convert_scalar(from, to, e.loc);
            true
        } else if self.types.is_pointer(to) {
            match (self.types.pointee(to), self.types.pointee(from)) {
                (Some(a), Some(b)) => a == b || a == VOID || b == VOID || self.same_array_elem(a, b),
                // 0 is the null pointer.
                (Some(_), None) => matches!(e.kind, ExprKind::IntLit(0)),
                (None, _) => false,
            }
        } else {
            // `fopen` gives a `FILE *`; CPC programs may keep the handle in an `int`.
            self.types.is_integral(to)
                && matches!(&e.kind, ExprKind::Call { name, .. } if &**name == "fopen" && self.lookup(name).is_none())
        };
        if !ok {
            let (f, t) = (self.types.name(from), self.types.name(to));
            self.error(e.loc, format!("type mismatch: expected {t}, found {f}"));
        }
        ok
    }

    /// C's usual arithmetic conversions: the common type of two arithmetic types
    /// (`long` holds every `unsigned int`, so the two make a `long`).
    fn common_arith(a: TypeId, b: TypeId) -> TypeId {
        for t in [DOUBLE, FLOAT, ULONG, LONG, UINT] {
            if a == t || b == t {
                return t;
            }
        }
        INT
    }

    /// The conversion of an operand of type `from` for an operation in type `to`: none
    /// into `int` or `unsigned int` (every integer word reads as one), else the value
    /// conversion (an `unsigned int` by its own instruction).
    fn operand_conversion(from: TypeId, to: TypeId) -> Option<Instr> {
        if to == INT || to == UINT {
            return None;
        }
        Self::conversion(from, to)
    }

    /// The one instruction converting a value of arithmetic type `from` to `to`, if any
    /// is needed (unsigned int has its own conversions to and from floating point and
    /// long; narrowing to `short` and the like is [`Gen::emit_narrow`]'s).
    fn conversion(from: TypeId, to: TypeId) -> Option<Instr> {
        match (from, to) {
            (UINT, FLOAT) => Some(Instr::CvtUF {}),
            (UINT, DOUBLE) => Some(Instr::CvtUD {}),
            (UINT, LONG | ULONG) => Some(Instr::CvtUL {}),
            (ULONG, FLOAT) => Some(Instr::CvtULF {}),
            (ULONG, DOUBLE) => Some(Instr::CvtULD {}),
            (FLOAT, ULONG) => Some(Instr::CvtFUL {}),
            (DOUBLE, ULONG) => Some(Instr::CvtDUL {}),
            (FLOAT, UINT) => Some(Instr::CvtFU {}),
            (DOUBLE, UINT) => Some(Instr::CvtDU {}),
            _ if scalar_of(from) != scalar_of(to) => Some(Instr::Convert { to: scalar_of(to) }),
            _ => None,
        }
    }

    /// The last instruction emitted in the current function.
    fn last_instr(&self) -> Option<Instr> {
        self.fns.last().and_then(|f| f.code.last().copied())
    }

    /// Converts the arithmetic value on top from `from` to `to` (unsigned int has its own
    /// conversions to and from floating point).
    fn convert_scalar(&mut self, from: TypeId, to: TypeId, loc: Loc) {
        if let Some(i) = Self::conversion(from, to) {
            self.emit(i, loc);
        }
        self.emit_narrow(to, loc);
    }

    /// Wraps the int on top into the range of `to` when it is a narrow integer type.
    fn emit_narrow(&mut self, to: TypeId, loc: Loc) {
        if let Some((bits, signed)) = narrow_of(to) {
            self.emit(Instr::Narrow { bits, signed }, loc);
        }
    }

    /// Converts the value on top (of type `from`) to `_Bool`: 1 unless it compares equal
    /// to zero (C11 6.3.1.2).
    fn emit_to_bool(&mut self, from: TypeId, loc: Loc) {
        if from == BOOL {
            return;
        }
        if from == FLOAT {
            self.emit(Instr::PushF { v: 0.0 }, loc);
            self.emit(Instr::NeF {}, loc);
        } else {
            self.emit(Instr::PushI { v: 0 }, loc);
            self.emit(Instr::NeI {}, loc);
        }
    }

    /// `T[0]` (open array) and `T[n]` are compatible through pointers.
    fn same_array_elem(&self, a: TypeId, b: TypeId) -> bool {
        match (self.types.array_elem(a), self.types.array_elem(b)) {
            (Some((x, la)), Some((y, lb))) => x == y && (la == 0 || lb == 0 || la == lb),
            _ => false,
        }
    }

    fn is_lvalue_expr(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Ident(n) => matches!(self.lookup(n), Some(Symbol::Var { .. })),
            ExprKind::Index(..) | ExprKind::Member { .. } | ExprKind::Unary(UnOp::Deref, _) | ExprKind::Compound(_) => {
                true
            }
            _ => false,
        }
    }

    /// The `const` variable whose own storage `e` designates, if any: `x`, an element
    /// of an array variable `x`, a member of a struct `x` (not what a pointer points to,
    /// nor an element of an array member: the type of an indexed member is not looked
    /// at, so `s.p[i]` through a pointer member stays allowed).
    fn const_root<'e>(&self, e: &'e Expr) -> Option<&'e str> {
        match &e.kind {
            ExprKind::Ident(n) => self.is_const(n).then_some(&**n),
            ExprKind::Index(ai) => {
                // Through the array variable (not a pointer) the indices apply to.
                let mut base = &ai.0;
                while let ExprKind::Index(inner) = &base.kind {
                    base = &inner.0;
                }
                let ExprKind::Ident(n) = &base.kind else { return None };
                match self.lookup(n) {
                    Some(Symbol::Var { ty, .. }) if self.types.array_elem(ty).is_some() => self.const_root(base),
                    _ => None,
                }
            }
            ExprKind::Member { expr, arrow: false, .. } => self.const_root(expr),
            _ => None,
        }
    }

    /// Reports an assignment (`what`: "assignment", "increment", …) to a const object.
    fn check_not_const(&mut self, target: &Expr, what: &str) -> bool {
        match self.const_root(target) {
            Some(name) => {
                self.error(target.loc, format!("{what} of read-only variable `{name}`: it is declared const"));
                false
            }
            None => true,
        }
    }

    // ------------------------------------------------------------ lvalues

    /// Pushes the address of the object `e` designates; returns its type.
    pub(super) fn lvalue(&mut self, e: &Expr) -> TypeId {
        match &e.kind {
            ExprKind::Ident(name) => match self.lookup(name) {
                Some(Symbol::Var { ty, depth, off, kind }) => {
                    if kind == IdentKind::RefParam {
                        self.emit(Instr::LdVal { depth, off }, e.loc);
                    } else {
                        self.emit(Instr::LdAddr { depth, off }, e.loc);
                    }
                    ty
                }
                Some(Symbol::Func(_)) => {
                    self.error(e.loc, format!("`{name}` is a function, not a variable"));
                    ERROR
                }
                Some(Symbol::Type(_)) => {
                    self.error(e.loc, format!("`{name}` is a type name, not a variable"));
                    ERROR
                }
                Some(Symbol::Const(_)) => {
                    self.error(e.loc, format!("`{name}` is an enumeration constant, not a variable"));
                    ERROR
                }
                None => {
                    self.undeclared(e.loc, "name", name);
                    ERROR
                }
            },
            ExprKind::Index(ai) => self.index(&ai.0, &ai.1, e.loc),
            ExprKind::Member { expr, field, field_loc, arrow } => self.member(expr, field, *field_loc, *arrow),
            ExprKind::Compound(ti) => self.compound_literal(&ti.0, &ti.1, e.loc),
            ExprKind::Unary(UnOp::Deref, p) => {
                let t = self.rvalue(p);
                if t == ERROR {
                    return ERROR;
                }
                match self.types.pointee(t) {
                    Some(VOID) => {
                        self.error(e.loc, "cannot dereference a void pointer");
                        ERROR
                    }
                    Some(pt) => pt,
                    None => {
                        self.error(p.loc, format!("cannot dereference a non-pointer ({})", self.types.name(t)));
                        ERROR
                    }
                }
            }
            _ => {
                self.error(e.loc, "expression is not an lvalue (it does not designate an object)");
                ERROR
            }
        }
    }

    fn index(&mut self, a: &Expr, i: &Expr, loc: Loc) -> TypeId {
        let base = if self.is_lvalue_expr(a) {
            let t = self.lvalue(a);
            if t == ERROR {
                self.rvalue_discard(i);
                return ERROR;
            }
            if let Some((elem, len)) = self.types.array_elem(t) {
                self.int_value(i);
                let size = self.types.words(elem);
                self.emit(Instr::Index { size, len }, loc);
                return elem;
            }
            // A pointer variable: load it.
            self.load(t, a.loc)
        } else {
            self.rvalue(a)
        };
        if base == ERROR {
            self.rvalue_discard(i);
            return ERROR;
        }
        match self.types.pointee(base) {
            Some(elem) if elem != VOID => {
                self.int_value(i);
                let size = self.types.words(elem);
                self.emit(Instr::Index { size, len: 0 }, loc);
                elem
            }
            _ => {
                self.error(a.loc, format!("cannot index a value of type {}", self.types.name(base)));
                self.rvalue_discard(i);
                ERROR
            }
        }
    }

    /// Type-checks `e` (reporting its errors) without leaving code behind.
    fn rvalue_discard(&mut self, e: &Expr) {
        let at = self.here();
        self.rvalue(e);
        self.truncate_code(at);
    }

    fn truncate_code(&mut self, at: usize) {
        if let Some(f) = self.fns.last_mut() {
            f.code.truncate(at);
            f.lines.truncate(at);
        }
    }

    fn member(&mut self, e: &Expr, field: &str, field_loc: Loc, arrow: bool) -> TypeId {
        let st = if arrow {
            let t = self.rvalue(e);
            if t == ERROR {
                return ERROR;
            }
            match self.types.pointee(t) {
                Some(s) if self.types.is_struct(s) => s,
                _ => {
                    self.error(e.loc, format!("`->` needs a pointer to a struct, found {}", self.types.name(t)));
                    return ERROR;
                }
            }
        } else {
            if !self.is_lvalue_expr(e) {
                self.error(e.loc, "`.` needs a struct variable, array element or dereference");
                return ERROR;
            }
            let t = self.lvalue(e);
            if t == ERROR {
                return ERROR;
            }
            if !self.types.is_struct(t) {
                self.error(e.loc, format!("`.` needs a struct, found {}", self.types.name(t)));
                return ERROR;
            }
            t
        };
        self.union_member = self.types.is_union(st);
        let Some(info) = self.types.struct_info(st) else { return ERROR };
        match info.fields.iter().find(|f| f.name == field) {
            Some(f) => {
                let (off, ty) = (f.off, f.ty);
                if off != 0 {
                    self.emit(Instr::PushI { v: off as i32 }, field_loc);
                    self.emit(Instr::AddI {}, field_loc);
                }
                ty
            }
            None => {
                let name = info.name.clone();
                self.error(field_loc, format!("struct `{name}` has no field `{field}`"));
                ERROR
            }
        }
    }

    /// Turns the address on the stack (of an object of type `t`) into its value.
    fn load(&mut self, t: TypeId, loc: Loc) -> TypeId {
        if t == ERROR {
            return ERROR;
        }
        match self.types.get(t).clone() {
            _ if self.types.is_scalar(t) => {
                self.emit(Instr::Dereference {}, loc);
                t
            }
            Type::Array { elem, .. } => self.types.intern(Type::Pointer(elem)),
            Type::Struct(_) => {
                let n = self.types.words(t);
                self.emit(Instr::LoadBlock { n }, loc);
                t
            }
            Type::Channel(elem) => {
                let n = self.types.words(elem);
                self.emit(Instr::Recv { n }, loc);
                elem
            }
            Type::Spinlock => {
                self.error(loc, "a spinlock has no value: use lock(s) and unlock(s)");
                ERROR
            }
            // `*fp`: a function designator, which is its pointer again (C11 6.3.2.1p4).
            Type::Function { .. } => self.types.intern(Type::Pointer(t)),
            // Void (every other type is a scalar, taken above).
            _ => {
                self.error(loc, "a void value cannot be used");
                ERROR
            }
        }
    }

    // ------------------------------------------------------------ rvalues

    /// Pushes the value of `e`; returns its type (`ERROR` after a diagnostic).
    pub(super) fn rvalue(&mut self, e: &Expr) -> TypeId {
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
            ExprKind::Ident(name) => match self.lookup(name) {
                Some(Symbol::Var { ty, depth, off, kind }) if self.types.is_scalar(ty) => {
                    if kind == IdentKind::RefParam {
                        self.emit(Instr::LdIndirect { depth, off }, loc);
                    } else {
                        self.emit(Instr::LdVal { depth, off }, loc);
                    }
                    ty
                }
                Some(Symbol::Func(idx)) => self.function_pointer(idx, name, loc),
                None if super::library::names().any(|n| n == &**name) => match self.link_library(name) {
                    Some(idx) => self.function_pointer(idx, name, loc),
                    None => ERROR,
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
            ExprKind::Member { .. } => {
                self.union_member = false;
                let t = self.lvalue(e);
                let union = std::mem::take(&mut self.union_member);
                let v = self.load(t, loc);
                if union && self.types.is_scalar(v) && v == t {
                    self.emit(Instr::CheckWord { ty: scalar_of(v) }, loc);
                }
                v
            }
            ExprKind::Index(..) | ExprKind::Unary(UnOp::Deref, _) | ExprKind::Compound(_) => {
                let t = self.lvalue(e);
                self.load(t, loc)
            }
            ExprKind::Unary(UnOp::Addr, a) if matches!(&a.kind, ExprKind::Ident(n) if matches!(self.lookup(n), Some(Symbol::Func(_)))) => {
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
                let Some(ft) = self.types.pointee(t).filter(|p| matches!(self.types.get(*p), Type::Function { .. }))
                else {
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
                let base = self.base_type(&tn.base);
                let t = self.rvalue(a);
                if base == ERROR || t == ERROR {
                    return ERROR;
                }
                let mut to = base;
                for _ in 0..tn.pointers {
                    to = self.types.intern(Type::Pointer(to));
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
                if to == INT && self.types.is_pointer(t) {
                    return INT;
                }
                let (f, tt) = (self.types.name(t), self.types.name(to));
                self.error(loc, format!("cannot cast {f} to {tt}"));
                ERROR
            }
            ExprKind::SizeofType(_) => match self.const_int(e) {
                Some(v) => {
                    self.emit(Instr::PushI { v: v as i32 }, loc);
                    INT
                }
                None => ERROR,
            },
            ExprKind::SizeofExpr(a) => {
                let at = self.here();
                let t = if self.is_lvalue_expr(a) { self.lvalue(a) } else { self.rvalue(a) };
                self.truncate_code(at);
                if t == ERROR {
                    return ERROR;
                }
                let n = self.types.words(t);
                self.emit(Instr::PushI { v: n as i32 }, loc);
                INT
            }
            ExprKind::Comma(ab) => {
                self.expr_stmt(&ab.0);
                self.rvalue(&ab.1)
            }
        }
    }

    fn replace(&mut self, at: usize, i: Instr) {
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
    fn binary_typed(
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

    // ------------------------------------------------------------ assignment

    /// `l = r` / `l op= r`. With `want`, leaves the assigned value on the stack.
    fn assign(&mut self, op: Option<BinOp>, l: &Expr, r: &Expr, want: bool, loc: Loc) -> TypeId {
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
                self.emit(Instr::Store { ty: scalar_of(t), keep: want }, loc);
                t
            }
        }
    }

    /// With the destination address on the stack, evaluates `e` as a `ty` and stores it.
    pub(super) fn assign_into(&mut self, ty: TypeId, e: &Expr, keep: bool) -> TypeId {
        if self.types.is_struct(ty) {
            if keep {
                self.error(e.loc, "a struct assignment cannot be used as a value");
                return ERROR;
            }
            let n = self.types.words(ty);
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

    fn incdec(&mut self, pre: bool, inc: bool, e: &Expr, loc: Loc) -> TypeId {
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
        if narrow_of(t).is_some() {
            // Load, add, wrap into the type's range, store (keeping the old value after).
            if !pre {
                self.emit(Instr::Dup {}, loc);
                self.emit(Instr::Dereference {}, loc);
                self.emit(Instr::Swap {}, loc);
            }
            self.emit(Instr::Dup {}, loc);
            self.emit(Instr::Dereference {}, loc);
            self.emit(Instr::PushI { v: delta }, loc);
            self.emit(Instr::AddI {}, loc);
            self.emit_narrow(t, loc);
            self.emit(Instr::Store { ty: Scalar::Int, keep: pre }, loc);
            return t;
        }
        self.emit(Instr::IncDec { ty: scalar_of(t), delta, pre }, loc);
        t
    }

    // ------------------------------------------------------------ calls

    /// Pushes the arguments of a call of user function `func`; reports mismatches.
    pub(super) fn call_args(&mut self, func: u32, name: &str, name_loc: Loc, args: &[Expr]) -> bool {
        let Some(sig) = self.sigs.get(func as usize).cloned() else { return false };
        let (named, extra) = if sig.variadic && args.len() >= sig.params.len() {
            args.split_at(sig.params.len())
        } else {
            (args, &[][..])
        };
        if sig.params.len() != named.len() {
            self.push_diag(
                crate::lang::diag::Diagnostic::error(
                    name_loc,
                    format!(
                        "wrong number of arguments: `{name}` takes {}{} argument{}, {} given",
                        if sig.variadic { "at least " } else { "" },
                        sig.params.len(),
                        if sig.params.len() == 1 { "" } else { "s" },
                        args.len()
                    ),
                )
                .with_note(format!("`{name}` is declared at line {}", sig.loc.line)),
            );
            return false;
        }
        let mut ok = true;
        for (k, (arg, (pty, is_ref))) in named.iter().zip(sig.params.iter()).enumerate() {
            if *pty == ERROR {
                ok = false;
                continue;
            }
            if *is_ref {
                if !self.is_lvalue_expr(arg) {
                    self.error(
                        arg.loc,
                        format!(
                            "argument {} of `{name}` is a reference parameter: it needs a variable, element or field",
                            k + 1
                        ),
                    );
                    ok = false;
                    continue;
                }
                let t = self.lvalue(arg);
                if t == ERROR {
                    ok = false;
                    continue;
                }
                if t != *pty && !self.same_array_elem(t, *pty) {
                    let (f, tt) = (self.types.name(t), self.types.name(*pty));
                    self.error(
                        arg.loc,
                        format!("type mismatch: argument {} of `{name}` is a reference to {tt}, found {f}", k + 1),
                    );
                    ok = false;
                }
            } else if self.value_of_type(*pty, arg) == ERROR {
                ok = false;
            }
        }
        if sig.variadic {
            ok &= self.variadic_args(name, extra, name_loc);
        }
        ok
    }

    /// `f` used as a value: a pointer to the function (its index + 1).
    fn function_pointer(&mut self, idx: u32, name: &str, loc: Loc) -> TypeId {
        let Some(sig) = self.sigs.get(idx as usize).cloned() else { return ERROR };
        if !sig.top {
            self.error(loc, format!("`{name}` is a nested function: only a file-scope function can be pointed to"));
            return ERROR;
        }
        if sig.variadic || sig.params.iter().any(|(_, r)| *r) {
            self.error(
                loc,
                format!("`{name}` takes `...` or reference parameters: it cannot be called through a pointer"),
            );
            return ERROR;
        }
        let params = sig.params.iter().map(|(t, _)| *t).collect();
        let ft = self.types.intern(Type::Function { ret: sig.ret, params });
        self.emit(Instr::PushI { v: idx as i32 + 1 }, loc);
        self.types.intern(Type::Pointer(ft))
    }

    /// The result type of function type `ft`.
    fn function_result(&self, ft: TypeId) -> TypeId {
        match self.types.get(ft) {
            Type::Function { ret, .. } => *ret,
            _ => ERROR,
        }
    }

    /// Pushes the arguments of a call through a pointer to function type `ft`.
    fn pointer_call_args(&mut self, ft: TypeId, args: &[Expr], loc: Loc) -> bool {
        let params = match self.types.get(ft) {
            Type::Function { params, .. } => params.clone(),
            _ => return false,
        };
        if params.len() != args.len() {
            self.error(
                loc,
                format!(
                    "wrong number of arguments: the function pointed to takes {}, {} given",
                    params.len(),
                    args.len()
                ),
            );
            return false;
        }
        let mut ok = true;
        for (a, p) in args.iter().zip(params) {
            ok &= self.value_of_type(p, a) != ERROR;
        }
        ok
    }

    /// The arguments after a variadic function's named ones: each scalar, promoted as
    /// C does (`char` and `_Bool` to `int`), is stored in one word of hidden frame words
    /// of the caller, whose address is pushed as the callee's hidden last parameter
    /// (`va_start` reads it, `va_arg` walks it).
    fn variadic_args(&mut self, name: &str, extra: &[Expr], loc: Loc) -> bool {
        let n = extra.len() as u32;
        let Some(f) = self.fns.last_mut() else {
            self.error(loc, format!("`{name}` cannot be called here"));
            return false;
        };
        let (depth, base) = (f.depth, f.next);
        f.next += n.max(1);
        f.high = f.high.max(f.next);
        let mut ok = true;
        for (k, a) in extra.iter().enumerate() {
            self.emit(Instr::LdAddr { depth, off: base + k as u32 }, a.loc);
            let t = self.rvalue(a);
            if t == ERROR {
                ok = false;
                self.emit(Instr::Pop { n: 1 }, a.loc);
                continue;
            }
            if !self.types.is_scalar(t) {
                self.error(
                    a.loc,
                    format!("a {} cannot be passed through `...` here (scalars only)", self.types.name(t)),
                );
                ok = false;
                continue;
            }
            let st = if t == CHAR || t == BOOL {
                self.emit(Instr::Convert { to: Scalar::Int }, a.loc);
                Scalar::Int
            } else {
                scalar_of(t)
            };
            self.emit(Instr::Store { ty: st, keep: false }, a.loc);
        }
        self.emit(Instr::LdAddr { depth, off: base }, loc);
        ok
    }

    fn call(&mut self, name: &str, name_loc: Loc, args: &[Expr], loc: Loc) -> TypeId {
        match self.lookup(name) {
            Some(Symbol::Func(func)) => {
                let ret = self.sigs.get(func as usize).map_or(ERROR, |s| s.ret);
                if self.call_args(func, name, name_loc, args) {
                    self.emit(Instr::Call { func }, loc);
                    ret
                } else {
                    ERROR
                }
            }
            Some(Symbol::Var { ty, .. })
                if self.types.pointee(ty).is_some_and(|p| matches!(self.types.get(p), Type::Function { .. })) =>
            {
                let ft = self.types.pointee(ty).unwrap_or(ERROR);
                if !self.pointer_call_args(ft, args, loc) {
                    return ERROR;
                }
                let callee = Expr { kind: ExprKind::Ident(crate::lang::ast::Name::from(name)), loc: name_loc };
                self.rvalue(&callee);
                self.emit(Instr::CallInd {}, loc);
                self.function_result(ft)
            }
            Some(Symbol::Var { .. } | Symbol::Type(_) | Symbol::Const(_)) => {
                self.error(name_loc, format!("`{name}` is not a function"));
                ERROR
            }
            None if is_builtin(name) => self.builtin(name, name_loc, args, loc),
            None => match self.link_library(name) {
                Some(func) => {
                    let ret = self.sigs.get(func as usize).map_or(ERROR, |s| s.ret);
                    if self.call_args(func, name, name_loc, args) {
                        self.emit(Instr::Call { func }, loc);
                        ret
                    } else {
                        ERROR
                    }
                }
                None => {
                    self.undeclared(name_loc, "function", name);
                    ERROR
                }
            },
        }
    }

    fn arity(&mut self, name: &str, name_loc: Loc, args: &[Expr], n: usize) -> bool {
        if args.len() != n {
            self.error(
                name_loc,
                format!(
                    "wrong number of arguments: `{name}` takes {n} argument{}, {} given",
                    if n == 1 { "" } else { "s" },
                    args.len()
                ),
            );
            return false;
        }
        true
    }

    fn pointer_arg(&mut self, e: &Expr, what: &str) -> bool {
        self.pointer_arg_type(e, what).is_some()
    }

    /// Pushes a pointer argument; returns its type (`None` after an error).
    fn pointer_arg_type(&mut self, e: &Expr, what: &str) -> Option<TypeId> {
        let t = self.rvalue(e);
        if t == ERROR {
            return None;
        }
        if !self.types.is_pointer(t) {
            self.error(e.loc, format!("type mismatch: {what} must be a pointer, found {}", self.types.name(t)));
            return None;
        }
        Some(t)
    }

    /// `vprintf(fmt, ap)`, `vfprintf(f, fmt, ap)`, `vsprintf(buf, fmt, ap)`,
    /// `vsnprintf(buf, n, fmt, ap)`: the arguments come from a `va_list`.
    fn vformat(&mut self, name: &str, name_loc: Loc, args: &[Expr], loc: Loc) -> TypeId {
        let want = match name {
            "vprintf" => 2,
            "vsnprintf" => 4,
            _ => 3,
        };
        if !self.arity(name, name_loc, args, want) {
            return ERROR;
        }
        let (lead, rest) = args.split_at(want - 2);
        match name {
            "vfprintf" if !self.file_arg(&lead[0]) => return ERROR,
            "vsprintf" | "vsnprintf" => {
                if !self.pointer_arg(&lead[0], "the destination") {
                    return ERROR;
                }
                if name == "vsprintf" {
                    self.emit(Instr::PushI { v: -1 }, loc);
                } else if self.int_value(&lead[1]) == ERROR {
                    return ERROR;
                }
            }
            _ => {}
        }
        if !self.pointer_arg(&rest[0], "the format") || !self.pointer_arg(&rest[1], "the `va_list`") {
            return ERROR;
        }
        self.emit(
            match name {
                "vprintf" => Instr::Vprintf {},
                "vfprintf" => Instr::Vfprintf {},
                _ => Instr::Vsnprintf {},
            },
            loc,
        );
        INT
    }

    /// The C library's memory routines and `sprintf`, `snprintf`, `exit`. Sizes are in
    /// words, as `sizeof` counts them.
    fn library(&mut self, name: &str, name_loc: Loc, args: &[Expr], loc: Loc) -> TypeId {
        let void_ptr = self.types.intern(Type::Pointer(VOID));
        match name {
            "sprintf" | "snprintf" => {
                let fixed = if name == "sprintf" { 2 } else { 3 };
                if args.len() < fixed {
                    self.error(name_loc, format!("wrong number of arguments: `{name}` needs at least {fixed}"));
                    return ERROR;
                }
                if !self.pointer_arg(&args[0], "the destination") {
                    return ERROR;
                }
                if name == "sprintf" {
                    self.emit(Instr::PushI { v: -1 }, loc);
                } else if self.int_value(&args[1]) == ERROR {
                    return ERROR;
                }
                let fmt = &args[fixed - 1];
                if !self.pointer_arg(fmt, "the format") {
                    return ERROR;
                }
                self.check_format(fmt, args.len() - fixed, name);
                for a in &args[fixed..] {
                    let t = self.rvalue(a);
                    if t == ERROR {
                        return ERROR;
                    }
                    if !self.types.is_scalar(t) {
                        self.error(a.loc, format!("cannot print a value of type {}", self.types.name(t)));
                        return ERROR;
                    }
                }
                self.emit(Instr::Sprintf { argc: (args.len() - fixed) as u32 }, loc);
                INT
            }
            "malloc" => {
                if !self.arity(name, name_loc, args, 1) || self.int_value(&args[0]) == ERROR {
                    return ERROR;
                }
                self.emit(Instr::Malloc {}, loc);
                void_ptr
            }
            "calloc" => {
                if !self.arity(name, name_loc, args, 2)
                    || self.int_value(&args[0]) == ERROR
                    || self.int_value(&args[1]) == ERROR
                {
                    return ERROR;
                }
                // MALLOC's words are zeroed already.
                self.emit(Instr::MulI {}, loc);
                self.emit(Instr::Malloc {}, loc);
                void_ptr
            }
            "realloc" => {
                if !self.arity(name, name_loc, args, 2)
                    || !self.pointer_arg(&args[0], "the block")
                    || self.int_value(&args[1]) == ERROR
                {
                    return ERROR;
                }
                self.emit(Instr::Realloc {}, loc);
                void_ptr
            }
            "free" => {
                if !self.arity(name, name_loc, args, 1) || !self.pointer_arg(&args[0], "the block") {
                    return ERROR;
                }
                self.emit(Instr::Free {}, loc);
                VOID
            }
            "memcpy" | "memmove" => {
                if !self.arity(name, name_loc, args, 3)
                    || !self.pointer_arg(&args[0], "the destination")
                    || !self.pointer_arg(&args[1], "the source")
                    || self.int_value(&args[2]) == ERROR
                {
                    return ERROR;
                }
                self.emit(Instr::MemCopy {}, loc);
                void_ptr
            }
            "memset" => {
                if !self.arity(name, name_loc, args, 3) {
                    return ERROR;
                }
                let Some(t) = self.pointer_arg_type(&args[0], "the destination") else { return ERROR };
                let zero = matches!(args[1].kind, ExprKind::IntLit(0) | ExprKind::CharLit(0));
                let pointee = self.types.pointee(t).unwrap_or(VOID);
                if !zero && pointee != CHAR {
                    self.error(
                        args[1].loc,
                        format!(
                            "`memset` with a value other than 0 is exact only on char memory here, and the \
                             destination is {}: memory holds one value per word, not bytes (assign in a loop)",
                            self.types.name(t)
                        ),
                    );
                    return ERROR;
                }
                if self.int_value(&args[1]) == ERROR || self.int_value(&args[2]) == ERROR {
                    return ERROR;
                }
                self.emit(Instr::MemSet {}, loc);
                void_ptr
            }
            _ => {
                if !self.arity(name, name_loc, args, 1) || self.int_value(&args[0]) == ERROR {
                    return ERROR;
                }
                self.emit(Instr::Exit {}, loc);
                VOID
            }
        }
    }

    /// `(T){…}`: initialises hidden frame words of the current function (a new object
    /// each time the expression runs, as an automatic object of the block) and pushes
    /// their address.
    fn compound_literal(&mut self, tn: &crate::lang::ast::TypeName, init: &crate::lang::ast::Init, loc: Loc) -> TypeId {
        let mut ty = self.base_type(&tn.base);
        if ty == ERROR {
            return ERROR;
        }
        for _ in 0..tn.pointers {
            ty = self.types.intern(Type::Pointer(ty));
        }
        if ty == VOID {
            self.error(loc, "a compound literal cannot have type void");
            return ERROR;
        }
        let words = self.types.words(ty);
        let Some(f) = self.fns.last_mut() else {
            self.error(loc, "compound literals at file scope are not supported: declare a named object");
            return ERROR;
        };
        let (depth, off) = (f.depth, f.next);
        f.next += words;
        f.high = f.high.max(f.next);
        self.local_init(ty, depth, off, init);
        self.emit(Instr::LdAddr { depth, off }, loc);
        ty
    }

    /// A file handle argument: an `int` from `fopen`, or a `FILE *` holding one.
    fn file_arg(&mut self, e: &Expr) -> bool {
        let t = self.rvalue(e);
        if t == ERROR {
            return false;
        }
        if !self.types.is_integral(t) && !self.types.is_pointer(t) {
            self.error(
                e.loc,
                format!("type mismatch: a file handle is an int or FILE *, found {}", self.types.name(t)),
            );
            return false;
        }
        true
    }

    /// Counts the conversions of a literal format string (`%%` excluded).
    fn format_conversions(fmt: &[u8]) -> usize {
        let mut n = 0;
        let mut i = 0;
        while i < fmt.len() {
            if fmt[i] == b'%' {
                if fmt.get(i + 1) == Some(&b'%') {
                    i += 2;
                    continue;
                }
                n += 1;
                if fmt[i + 1..].iter().take_while(|c| !c.is_ascii_alphabetic()).any(|&c| c == b'*') {
                    n += 1;
                }
            }
            i += 1;
        }
        n
    }

    fn check_format(&mut self, fmt: &Expr, given: usize, name: &str) {
        if let ExprKind::StrLit(bytes) = &fmt.kind {
            let want = Self::format_conversions(bytes);
            if want != given {
                self.error(
                    fmt.loc,
                    format!("wrong number of arguments: the `{name}` format has {want} conversion(s), {given} argument(s) given"),
                );
            }
        }
    }

    /// `printf`/`fprintf`/`scanf`/`fscanf`: an optional file handle, a format, then
    /// values to print (scalars) or destinations to read into (pointers).
    fn formatted_io(&mut self, name: &str, name_loc: Loc, args: &[Expr], loc: Loc) -> TypeId {
        let file = name.starts_with('f');
        let reads = name.ends_with("scanf");
        let fixed = if file { 2 } else { 1 };
        if args.len() < fixed {
            self.error(name_loc, format!("wrong number of arguments: `{name}` needs at least {fixed}"));
            return ERROR;
        }
        if file && !self.file_arg(&args[0]) {
            return ERROR;
        }
        let fmt = &args[fixed - 1];
        if !self.pointer_arg(fmt, "the format") {
            return ERROR;
        }
        self.check_format(fmt, args.len() - fixed, name);
        for a in &args[fixed..] {
            if reads {
                if !self.pointer_arg(a, &format!("a `{name}` destination (use `&x`)")) {
                    return ERROR;
                }
                continue;
            }
            let t = self.rvalue(a);
            if t == ERROR {
                return ERROR;
            }
            if !self.types.is_scalar(t) {
                self.error(a.loc, format!("cannot print a value of type {}", self.types.name(t)));
                return ERROR;
            }
        }
        let argc = (args.len() - fixed) as u32;
        let instr = match (file, reads) {
            (false, false) => Instr::Printf { argc },
            (true, false) => Instr::Fprintf { argc },
            (false, true) => Instr::Scanf { argc },
            (true, true) => Instr::Fscanf { argc },
        };
        self.emit(instr, loc);
        INT
    }

    fn builtin(&mut self, name: &str, name_loc: Loc, args: &[Expr], loc: Loc) -> TypeId {
        let math = crate::vcode::MathFn::ALL.iter().copied().find(|m| m.name() == name);
        if let Some(f) = math {
            if !self.arity(name, name_loc, args, f.arity()) {
                return ERROR;
            }
            // C's math functions take and give double.
            for a in args {
                if self.value_of_type(DOUBLE, a) == ERROR {
                    return ERROR;
                }
            }
            self.emit(Instr::MathD { f }, loc);
            return DOUBLE;
        }
        match name {
            "printf" | "fprintf" | "scanf" | "fscanf" => self.formatted_io(name, name_loc, args, loc),
            "fopen" => {
                if !self.arity(name, name_loc, args, 2) {
                    return ERROR;
                }
                if !self.pointer_arg(&args[0], "the file name") || !self.pointer_arg(&args[1], "the mode") {
                    return ERROR;
                }
                self.emit(Instr::Fopen {}, loc);
                // A `FILE *` (the handle is the pointer's value; see `convert_to` for `int`).
                self.types.intern(Type::Pointer(VOID))
            }
            "fclose" => {
                if !self.arity(name, name_loc, args, 1) || !self.file_arg(&args[0]) {
                    return ERROR;
                }
                self.emit(Instr::Fclose {}, loc);
                INT
            }
            "sprintf" | "snprintf" | "malloc" | "calloc" | "realloc" | "free" | "memcpy" | "memmove" | "memset"
            | "exit" => self.library(name, name_loc, args, loc),
            "vprintf" | "vfprintf" | "vsprintf" | "vsnprintf" => self.vformat(name, name_loc, args, loc),
            "__builtin_va_start" => {
                if !self.arity(name, name_loc, args, 0) {
                    return ERROR;
                }
                let Some((depth, Some(off))) = self.fns.last().map(|f| (f.depth, f.va_off)) else {
                    self.error(name_loc, "`va_start` is used in a function without `...`");
                    return ERROR;
                };
                self.emit(Instr::LdVal { depth, off }, loc);
                self.types.intern(Type::Pointer(CHAR))
            }
            "abs" => {
                if !self.arity(name, name_loc, args, 1) || self.int_value(&args[0]) == ERROR {
                    return ERROR;
                }
                self.emit(Instr::AbsI {}, loc);
                INT
            }
            "rand" | "vproc" | "pid" | "timeOn" | "timeOff" => {
                if !self.arity(name, name_loc, args, 0) {
                    return ERROR;
                }
                let (i, t) = match name {
                    "rand" => (Instr::Rand {}, FLOAT),
                    "vproc" => (Instr::Vproc {}, INT),
                    "pid" => (Instr::Pid {}, INT),
                    "timeOn" => (Instr::TimeOn {}, VOID),
                    _ => (Instr::TimeOff {}, VOID),
                };
                self.emit(i, loc);
                t
            }
            "srand" => {
                if !self.arity(name, name_loc, args, 1) || self.int_value(&args[0]) == ERROR {
                    return ERROR;
                }
                self.emit(Instr::Srand {}, loc);
                VOID
            }
            "delay" => {
                if !self.arity(name, name_loc, args, 1) {
                    return ERROR;
                }
                let t = self.rvalue(&args[0]);
                if t == ERROR {
                    return ERROR;
                }
                if !self.types.is_arith(t) {
                    self.error(
                        args[0].loc,
                        format!("type mismatch: `delay` takes a time, found {}", self.types.name(t)),
                    );
                    return ERROR;
                }
                self.emit(Instr::Delay {}, loc);
                VOID
            }
            "probe" => {
                if !self.arity(name, name_loc, args, 2) || self.int_value(&args[0]) == ERROR {
                    return ERROR;
                }
                if !self.pointer_arg(&args[1], "the probe label") {
                    return ERROR;
                }
                self.emit(Instr::Probe {}, loc);
                VOID
            }
            "mapping" => {
                // mapping("SPEC"): a probe that sets the mapping of later processes.
                if !self.arity(name, name_loc, args, 1) {
                    return ERROR;
                }
                let ExprKind::StrLit(spec) = &args[0].kind else {
                    self.error(args[0].loc, "`mapping` takes a string literal: a mapping name or string".to_string());
                    return ERROR;
                };
                let mut label = crate::vcode::MAPPING_PREFIX.as_bytes().to_vec();
                label.extend_from_slice(spec.strip_suffix(&[0]).unwrap_or(spec));
                self.emit(Instr::PushI { v: crate::vcode::MAPPING_PROBE_ID }, loc);
                let addr = self.string_literal(&label);
                self.emit(Instr::LdAddr { depth: 0, off: addr }, loc);
                self.emit(Instr::Probe {}, loc);
                VOID
            }
            "lock" | "unlock" => {
                if !self.arity(name, name_loc, args, 1) {
                    return ERROR;
                }
                let a = &args[0];
                let t = if self.is_lvalue_expr(a) { self.lvalue(a) } else { self.rvalue(a) };
                if t == ERROR {
                    return ERROR;
                }
                let ok = t == SPINLOCK || self.types.pointee(t) == Some(SPINLOCK);
                if !ok {
                    self.error(
                        a.loc,
                        format!("type mismatch: `{name}` takes a spinlock, found {}", self.types.name(t)),
                    );
                    return ERROR;
                }
                if t != SPINLOCK {
                    // A pointer to a spinlock: the address is the pointer's value.
                    self.emit(Instr::Dereference {}, loc);
                }
                self.emit(if name == "lock" { Instr::Lock {} } else { Instr::Unlock {} }, loc);
                VOID
            }
            _ => {
                self.error(name_loc, format!("undeclared function `{name}`"));
                ERROR
            }
        }
    }
}

fn int_cmp(op: BinOp) -> Instr {
    match op {
        BinOp::Eq => Instr::EqI {},
        BinOp::Ne => Instr::NeI {},
        BinOp::Lt => Instr::LtI {},
        BinOp::Le => Instr::LeI {},
        BinOp::Gt => Instr::GtI {},
        _ => Instr::GeI {},
    }
}

fn op_text(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Mod => "%",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::BitAnd => "&",
        BinOp::BitXor => "^",
        BinOp::BitOr => "|",
        BinOp::And => "&&",
        BinOp::Or => "||",
    }
}
