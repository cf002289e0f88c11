//! Expressions: lvalues (push an address), rvalues (push a value; arrays decay to a
//! pointer, structs push their words, channel elements receive), assignments (a store, or
//! a send when the target is a channel element), calls of user functions and built-ins.
//!
//! Where an operand needs a conversion that is only known after the other operand was
//! typed, a `NOP` placeholder is emitted and later replaced by `CONV` or removed when the
//! function is laid out.
//!
//! This file holds the entry points, the conversions and the helpers the others share;
//! `lvalue` pushes addresses, `rvalue` values, `assign` assignments and increments,
//! `call` calls of user functions, the library and the built-ins.
mod assign;
mod call;
mod lvalue;
mod rvalue;

use super::types::{narrow_of, BOOL, CHAR, DOUBLE, LONG, SCHAR, SPINLOCK, UINT, ULONG};
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
    "atan",
    "atan2",
    "asin",
    "acos",
    "sinh",
    "cosh",
    "tanh",
    "fmod",
    "log10",
    "log2",
    "exp2",
    "round",
    "trunc",
    "hypot",
    "fmin",
    "fmax",
    "cbrt",
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
    "simTime",
    "lock",
    "unlock",
    "sprintf",
    "sscanf",
    "feof",
    "ferror",
    "clearerr",
    "ftell",
    "fseek",
    "rewind",
    "ungetc",
    "getenv",
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
    "__cppe_mpi_rank",
    "__cppe_mpi_size",
    "__cppe_mpi_wtime",
    "__cppe_mpi_wtick",
    "__cppe_mpi_send",
    "__cppe_mpi_match",
    "__cppe_mpi_take",
    "__cppe_mpi_context",
];

/// Every built-in name (for "did you mean" suggestions).
pub(super) fn builtin_names() -> &'static [&'static str] {
    BUILTINS
}

pub(super) fn is_builtin(name: &str) -> bool {
    BUILTINS.contains(&name) || crate::vcode::MathFn::of_c_name(name).is_some()
}

pub(in crate::lang::codegen) fn scalar_of(t: TypeId) -> Scalar {
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
                // `int *` and `unsigned *` (and the longs) point at the same words, read
                // one way or the other: accepted with a warning, as C compilers do.
                (Some(a), Some(b))
                    if matches!(
                        (a, b),
                        (INT, UINT) | (UINT, INT) | (LONG, ULONG) | (ULONG, LONG) | (CHAR, SCHAR) | (SCHAR, CHAR)
                    ) =>
                {
                    let (f, t) = (self.types.name(from), self.types.name(to));
                    self.diags.push(crate::lang::diag::Diagnostic::warning(
                        e.loc,
                        format!("pointer targets differ in signedness: {f} converted to {t}"),
                    ));
                    true
                }
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
        } else if from == DOUBLE {
            self.emit(Instr::PushD { v: 0.0 }, loc);
            self.emit(Instr::NeD {}, loc);
        } else if scalar_of(from) == Scalar::Long {
            self.emit(Instr::PushL { v: 0 }, loc);
            self.emit(Instr::NeL {}, loc);
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

    pub(in crate::lang::codegen) fn is_lvalue_expr(&self, e: &Expr) -> bool {
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
