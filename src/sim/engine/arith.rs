//! The arithmetic of vCode on words: every instruction that pops two words and pushes one
//! ([`binary`]) or pops one and pushes one ([`unary`]), as pure functions shared by the
//! interpreter's one-instruction path and its translated form ([`super::block`]), so the
//! two cannot compute differently. Depends only on the word conversions of [`super`].
use super::{as_double, as_float, as_int, as_long, convert, math, math_d, truthy};
use crate::sim::RuntimeError;
use crate::vcode::{Instr, Scalar, Word};

/// Whether `ins` is a [`binary`] instruction.
pub(super) fn is_binary(ins: Instr) -> bool {
    use Instr as I;
    is_int_kind(ins)
        || matches!(
            ins,
            I::AddL {}
                | I::SubL {}
                | I::MulL {}
                | I::DivL {}
                | I::ModL {}
                | I::AndL {}
                | I::OrL {}
                | I::XorL {}
                | I::ShlL {}
                | I::ShrL {}
                | I::DivUL {}
                | I::ModUL {}
                | I::ShrUL {}
                | I::AddD {}
                | I::SubD {}
                | I::MulD {}
                | I::DivD {}
                | I::AddF {}
                | I::SubF {}
                | I::MulF {}
                | I::DivF {}
        )
        || is_comparison(ins)
}

/// Whether `ins` is a [`binary`] instruction on `int`s (signed or unsigned): its result
/// is [`int_op`] of its operands converted to `int`. `ADDRADD size` (pointer arithmetic:
/// the address below plus `size` times the index on top, as `int`s) is one.
pub(super) fn is_int_kind(ins: Instr) -> bool {
    use Instr as I;
    matches!(
        ins,
        I::AddI {}
            | I::SubI {}
            | I::MulI {}
            | I::DivI {}
            | I::ModI {}
            | I::BitAnd {}
            | I::BitOr {}
            | I::BitXor {}
            | I::Shl {}
            | I::Shr {}
            | I::EqI {}
            | I::NeI {}
            | I::LtI {}
            | I::LeI {}
            | I::GtI {}
            | I::GeI {}
            | I::DivU {}
            | I::ModU {}
            | I::ShrU {}
            | I::LtU {}
            | I::LeU {}
            | I::GtU {}
            | I::GeU {}
            | I::AddrAdd { .. }
    )
}

/// `x <ins> y` of an `int` instruction ([`is_int_kind`]): wrapping arithmetic, shift
/// counts modulo 32, the unsigned ones on the bits as `u32`; `None` on a division by zero
/// (and for any other instruction).
#[inline(always)]
pub(super) fn int_op(ins: Instr, x: i32, y: i32) -> Option<i32> {
    use Instr as I;
    Some(match ins {
        I::AddI {} => x.wrapping_add(y),
        I::SubI {} => x.wrapping_sub(y),
        I::MulI {} => x.wrapping_mul(y),
        I::LtI {} => (x < y) as i32,
        I::LeI {} => (x <= y) as i32,
        I::GtI {} => (x > y) as i32,
        I::GeI {} => (x >= y) as i32,
        I::EqI {} => (x == y) as i32,
        I::NeI {} => (x != y) as i32,
        I::DivI {} | I::ModI {} | I::DivU {} | I::ModU {} if y == 0 => return None,
        I::DivI {} => x.wrapping_div(y),
        I::ModI {} => x.wrapping_rem(y),
        I::BitAnd {} => x & y,
        I::BitOr {} => x | y,
        I::BitXor {} => x ^ y,
        I::Shl {} => x.wrapping_shl(y as u32),
        I::Shr {} => x.wrapping_shr(y as u32),
        I::DivU {} => (x as u32 / y as u32) as i32,
        I::ModU {} => (x as u32 % y as u32) as i32,
        I::ShrU {} => (x as u32).wrapping_shr(y as u32) as i32,
        I::LtU {} => ((x as u32) < y as u32) as i32,
        I::LeU {} => (x as u32 <= y as u32) as i32,
        I::GtU {} => (x as u32 > y as u32) as i32,
        I::GeU {} => (x as u32 >= y as u32) as i32,
        I::AddrAdd { size } => x.wrapping_add(y.wrapping_mul(size as i32)),
        _ => return None,
    })
}

/// An `int` comparison and the truth a conditional jump after it takes, in one byte: the
/// condition under which the jump is taken (the flat form's compare-and-branch, see
/// [`super::block`]). It holds exactly when [`int_op`] of its comparison gives non-zero
/// for `when` true, or zero for `when` false (checked by a test).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Cond {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    LtU,
    LeU,
    GtU,
    GeU,
}

impl Cond {
    /// The condition under which a jump taken when `cmp`'s truth is `when` is taken, if
    /// `cmp` is an `int` comparison.
    pub(super) fn of(cmp: Instr, when: bool) -> Option<Cond> {
        use Instr as I;
        let (c, negated) = match cmp {
            I::LtI {} => (Cond::Lt, Cond::Ge),
            I::LeI {} => (Cond::Le, Cond::Gt),
            I::GtI {} => (Cond::Gt, Cond::Le),
            I::GeI {} => (Cond::Ge, Cond::Lt),
            I::EqI {} => (Cond::Eq, Cond::Ne),
            I::NeI {} => (Cond::Ne, Cond::Eq),
            I::LtU {} => (Cond::LtU, Cond::GeU),
            I::LeU {} => (Cond::LeU, Cond::GtU),
            I::GtU {} => (Cond::GtU, Cond::LeU),
            I::GeU {} => (Cond::GeU, Cond::LtU),
            _ => return None,
        };
        Some(if when { c } else { negated })
    }

    /// Whether it holds of `x` and `y`.
    #[inline(always)]
    pub(super) fn holds(self, x: i32, y: i32) -> bool {
        let (u, v) = (x as u32, y as u32);
        match self {
            Cond::Lt => x < y,
            Cond::Le => x <= y,
            Cond::Gt => x > y,
            Cond::Ge => x >= y,
            Cond::Eq => x == y,
            Cond::Ne => x != y,
            Cond::LtU => u < v,
            Cond::LeU => u <= v,
            Cond::GtU => u > v,
            Cond::GeU => u >= v,
        }
    }
}

/// The `int` arithmetic an array index is computed with, in one byte, for the translated
/// operations that carry several ([`super::block::Op::ElemX`], [`super::block::Op::AccI`]):
/// each computes exactly what [`int_op`] computes for its instruction (checked by a test).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum IntOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Shl,
    Shr,
    And,
    Or,
    Xor,
}

impl IntOp {
    /// The operation of `ins`, if it is one of these.
    pub(super) fn of(ins: Instr) -> Option<IntOp> {
        use Instr as I;
        Some(match ins {
            // A pointer moved by elements of one word (every scalar's): an addition.
            I::AddI {} | I::AddrAdd { size: 1 } => IntOp::Add,
            I::SubI {} => IntOp::Sub,
            I::MulI {} => IntOp::Mul,
            I::DivI {} => IntOp::Div,
            I::ModI {} => IntOp::Mod,
            I::Shl {} => IntOp::Shl,
            I::Shr {} => IntOp::Shr,
            I::BitAnd {} => IntOp::And,
            I::BitOr {} => IntOp::Or,
            I::BitXor {} => IntOp::Xor,
            _ => return None,
        })
    }

    /// `x <op> y` as [`int_op`] computes it; `None` on a division by zero.
    #[inline(always)]
    pub(super) fn apply(self, x: i32, y: i32) -> Option<i32> {
        Some(match self {
            IntOp::Add => x.wrapping_add(y),
            IntOp::Sub => x.wrapping_sub(y),
            IntOp::Mul => x.wrapping_mul(y),
            IntOp::Div | IntOp::Mod if y == 0 => return None,
            IntOp::Div => x.wrapping_div(y),
            IntOp::Mod => x.wrapping_rem(y),
            IntOp::Shl => x.wrapping_shl(y as u32),
            IntOp::Shr => x.wrapping_shr(y as u32),
            IntOp::And => x & y,
            IntOp::Or => x | y,
            IntOp::Xor => x ^ y,
        })
    }
}

/// Whether `ins` is a comparison among the [`binary`] instructions (it pushes 0 or 1).
pub(super) fn is_comparison(ins: Instr) -> bool {
    use Instr as I;
    matches!(
        ins,
        I::EqI {}
            | I::NeI {}
            | I::LtI {}
            | I::LeI {}
            | I::GtI {}
            | I::GeI {}
            | I::LtU {}
            | I::LeU {}
            | I::GtU {}
            | I::GeU {}
            | I::EqL {}
            | I::NeL {}
            | I::LtL {}
            | I::LeL {}
            | I::GtL {}
            | I::GeL {}
            | I::LtUL {}
            | I::LeUL {}
            | I::GtUL {}
            | I::GeUL {}
            | I::EqD {}
            | I::NeD {}
            | I::LtD {}
            | I::LeD {}
            | I::GtD {}
            | I::GeD {}
            | I::EqF {}
            | I::NeF {}
            | I::LtF {}
            | I::LeF {}
            | I::GtF {}
            | I::GeF {}
    )
}

/// `a <ins> b` for a [`binary`] instruction `ins` (`a` the deeper word): integer
/// arithmetic wraps, shifts take their count modulo the width, division by zero is the
/// only failure. Not called with other instructions (they give `a` back).
#[inline(always)]
pub(super) fn binary(ins: Instr, a: Word, b: Word) -> Result<Word, RuntimeError> {
    binary_or_none(ins, a, b).ok_or(RuntimeError::DivisionByZero)
}

/// [`binary`], with `None` for a division by zero: small enough to stay in registers.
#[inline(always)]
pub(super) fn binary_or_none(ins: Instr, a: Word, b: Word) -> Option<Word> {
    use Instr as I;
    Some(match ins {
        _ if is_int_kind(ins) => Word::Int(int_op(ins, as_int(a), as_int(b))?),
        I::DivL {} | I::ModL {} | I::DivUL {} | I::ModUL {} if as_long(b) == 0 => return None,
        I::AddL {} => Word::Long(as_long(a).wrapping_add(as_long(b))),
        I::SubL {} => Word::Long(as_long(a).wrapping_sub(as_long(b))),
        I::MulL {} => Word::Long(as_long(a).wrapping_mul(as_long(b))),
        I::DivL {} => Word::Long(as_long(a).wrapping_div(as_long(b))),
        I::ModL {} => Word::Long(as_long(a).wrapping_rem(as_long(b))),
        I::AndL {} => Word::Long(as_long(a) & as_long(b)),
        I::OrL {} => Word::Long(as_long(a) | as_long(b)),
        I::XorL {} => Word::Long(as_long(a) ^ as_long(b)),
        I::ShlL {} => Word::Long(as_long(a).wrapping_shl(as_long(b) as u32)),
        I::ShrL {} => Word::Long(as_long(a).wrapping_shr(as_long(b) as u32)),
        I::EqL {} => Word::Int((as_long(a) == as_long(b)) as i32),
        I::NeL {} => Word::Int((as_long(a) != as_long(b)) as i32),
        I::LtL {} => Word::Int((as_long(a) < as_long(b)) as i32),
        I::LeL {} => Word::Int((as_long(a) <= as_long(b)) as i32),
        I::GtL {} => Word::Int((as_long(a) > as_long(b)) as i32),
        I::GeL {} => Word::Int((as_long(a) >= as_long(b)) as i32),
        I::DivUL {} => Word::Long((as_long(a) as u64 / as_long(b) as u64) as i64),
        I::ModUL {} => Word::Long((as_long(a) as u64 % as_long(b) as u64) as i64),
        I::ShrUL {} => Word::Long((as_long(a) as u64).wrapping_shr(as_long(b) as u32) as i64),
        I::LtUL {} => Word::Int(((as_long(a) as u64) < as_long(b) as u64) as i32),
        I::LeUL {} => Word::Int((as_long(a) as u64 <= as_long(b) as u64) as i32),
        I::GtUL {} => Word::Int((as_long(a) as u64 > as_long(b) as u64) as i32),
        I::GeUL {} => Word::Int((as_long(a) as u64 >= as_long(b) as u64) as i32),
        I::AddD {} => Word::Double(as_double(a) + as_double(b)),
        I::SubD {} => Word::Double(as_double(a) - as_double(b)),
        I::MulD {} => Word::Double(as_double(a) * as_double(b)),
        I::DivD {} => Word::Double(as_double(a) / as_double(b)),
        I::EqD {} => Word::Int((as_double(a) == as_double(b)) as i32),
        I::NeD {} => Word::Int((as_double(a) != as_double(b)) as i32),
        I::LtD {} => Word::Int((as_double(a) < as_double(b)) as i32),
        I::LeD {} => Word::Int((as_double(a) <= as_double(b)) as i32),
        I::GtD {} => Word::Int((as_double(a) > as_double(b)) as i32),
        I::GeD {} => Word::Int((as_double(a) >= as_double(b)) as i32),
        I::AddF {} => Word::Float(as_float(a) + as_float(b)),
        I::SubF {} => Word::Float(as_float(a) - as_float(b)),
        I::MulF {} => Word::Float(as_float(a) * as_float(b)),
        I::DivF {} => Word::Float(as_float(a) / as_float(b)),
        I::EqF {} => Word::Int((as_float(a) == as_float(b)) as i32),
        I::NeF {} => Word::Int((as_float(a) != as_float(b)) as i32),
        I::LtF {} => Word::Int((as_float(a) < as_float(b)) as i32),
        I::LeF {} => Word::Int((as_float(a) <= as_float(b)) as i32),
        I::GtF {} => Word::Int((as_float(a) > as_float(b)) as i32),
        I::GeF {} => Word::Int((as_float(a) >= as_float(b)) as i32),
        _ => a,
    })
}

/// Whether `ins` is a [`unary`] instruction.
pub(super) fn is_unary(ins: Instr) -> bool {
    use Instr as I;
    matches!(
        ins,
        I::NegI {}
            | I::BitNot {}
            | I::AbsI {}
            | I::LogNot {}
            | I::NegF {}
            | I::NegD {}
            | I::NegL {}
            | I::Convert { .. }
            | I::Narrow { .. }
            | I::Math { f: _ }
            | I::MathD { f: _ }
            | I::CvtUF {}
            | I::CvtFU {}
            | I::CvtUD {}
            | I::CvtDU {}
            | I::CvtUL {}
            | I::CvtULD {}
            | I::CvtDUL {}
            | I::CvtULF {}
            | I::CvtFUL {}
    ) && !matches!(ins, I::Math { f } | I::MathD { f } if f.arity() == 2)
}

/// `<ins> a` for a [`unary`] instruction `ins` (one-argument math functions included).
/// Not called with other instructions (they give `a` back).
#[inline(always)]
pub(super) fn unary(ins: Instr, a: Word) -> Word {
    use Instr as I;
    match ins {
        I::NegI {} => Word::Int(as_int(a).wrapping_neg()),
        I::BitNot {} => Word::Int(!as_int(a)),
        I::AbsI {} => Word::Int(as_int(a).wrapping_abs()),
        I::LogNot {} => Word::Int(!truthy(a) as i32),
        I::NegF {} => Word::Float(-as_float(a)),
        I::NegD {} => Word::Double(-as_double(a)),
        I::NegL {} => Word::Long(as_long(a).wrapping_neg()),
        I::Convert { to } => convert(a, to),
        I::Narrow { bits, signed } => Word::Int(narrow(as_int(a), bits, signed)),
        I::Math { f } => Word::Float(math(f, as_float(a), 0.0)),
        I::MathD { f } => Word::Double(math_d(f, as_double(a), 0.0)),
        I::CvtUF {} => Word::Float(as_int(a) as u32 as f32),
        I::CvtFU {} => Word::Int(as_float(a) as u32 as i32),
        I::CvtUD {} => Word::Double(f64::from(as_int(a) as u32)),
        I::CvtDU {} => Word::Int(as_double(a) as u32 as i32),
        I::CvtUL {} => Word::Long(i64::from(as_int(a) as u32)),
        I::CvtULD {} => Word::Double(as_long(a) as u64 as f64),
        I::CvtDUL {} => Word::Long(as_double(a) as u64 as i64),
        I::CvtULF {} => Word::Float(as_long(a) as u64 as f32),
        I::CvtFUL {} => Word::Long(as_double(a) as u64 as i64),
        _ => a,
    }
}

/// The word `INCDEC ty delta` stores over `old`.
#[inline(always)]
pub(super) fn inc_dec(old: Word, ty: Scalar, delta: i32) -> Word {
    match ty {
        Scalar::Int => Word::Int(as_int(old).wrapping_add(delta)),
        Scalar::Float => Word::Float(as_float(old) + delta as f32),
        Scalar::Char => Word::Char(as_int(old).wrapping_add(delta) as u8),
        Scalar::Double => Word::Double(as_double(old) + f64::from(delta)),
        Scalar::Long => Word::Long(as_long(old).wrapping_add(i64::from(delta))),
    }
}

/// `v` wrapped into `bits` bits (1..=32), as a conversion to a narrower integer type.
pub(super) fn narrow(v: i32, bits: u8, signed: bool) -> i32 {
    let bits = u32::from(bits.clamp(1, 32));
    let shift = 32 - bits;
    if signed {
        v.wrapping_shl(shift).wrapping_shr(shift)
    } else {
        ((v as u32).wrapping_shl(shift) >> shift) as i32
    }
}
