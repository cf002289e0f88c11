//! The compiled form of an expression and its evaluator: a flat list of stack-machine
//! [`Op`]s (postfix order, forward jumps only, so evaluation always terminates) run over
//! a fixed-size array on the Rust stack, so evaluating allocates nothing.
//!
//! One evaluator serves both number domains through the [`Value`] trait: `i64` for
//! mappings (checked arithmetic, C division and remainder) and `f64` for scalar
//! expressions of machine description files.
use super::{EvalError, Span};

/// Binary operators, named after C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
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
    /// `**`, not C but in the Parasol expression grammar (seed 004 §2.8).
    Pow,
}

/// Unary prefix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
}

/// Where a loaded value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Leaf {
    /// The i-th mapping parameter (virtual coordinate), 0-based.
    Coord(u16),
    /// `#i`, 0-based.
    VirtDim(u16),
    /// `$i`, 0-based.
    PhysDim(u16),
    /// The i-th distinct reference name of a scalar expression.
    Var(u32),
}

/// One stack-machine instruction. Every instruction that can fail carries the span of
/// the operator, function name or reference it came from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Op<T> {
    Const(T),
    Load(Leaf, Span),
    Unary(UnOp, Span),
    Binary(BinOp, Span),
    /// Calls `FUNCS[index]` on the top `arity` values.
    Call(u8, Span),
    /// Replaces the top value by 0 or 1 (the result of `&&` and `||`).
    Truth,
    Jump(u32),
    /// Pops the condition; jumps when it is zero.
    JumpIfFalse(u32),
    /// `&&`: when the top is zero, replaces it by 0 and jumps, else pops it.
    AndJump(u32),
    /// `||`: when the top is non-zero, replaces it by 1 and jumps, else pops it.
    OrJump(u32),
}

/// The most evaluation-stack slots an expression may need; the parser rejects more.
pub(crate) const STACK_LIMIT: usize = 256;
/// The small stack used when an expression needs at most this many slots (nearly all).
const SMALL_STACK: usize = 16;

/// A compiled expression: its ops and the stack depth they need.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Program<T> {
    pub ops: Vec<Op<T>>,
    pub max_stack: usize,
}

/// The integer version of a function; `None` from it means overflow.
pub(crate) type IntFn = fn(&[i64]) -> Option<i64>;

/// How one argument list is evaluated in each domain; `None` means "not available".
pub(crate) struct Func {
    pub name: &'static str,
    pub arity: usize,
    /// Integer version; `None` from the function itself means overflow.
    pub int: Option<IntFn>,
    pub real: fn(&[f64]) -> f64,
}

fn arg<T: Copy + Default>(a: &[T], i: usize) -> T {
    a.get(i).copied().unwrap_or_default()
}

/// The function table; a new function is one more line here.
pub(crate) const FUNCS: &[Func] = &[
    Func { name: "abs", arity: 1, int: Some(|a| arg(a, 0).checked_abs()), real: |a| arg(a, 0).abs() },
    Func { name: "min", arity: 2, int: Some(|a| Some(arg(a, 0).min(arg(a, 1)))), real: |a| arg(a, 0).min(arg(a, 1)) },
    Func { name: "max", arity: 2, int: Some(|a| Some(arg(a, 0).max(arg(a, 1)))), real: |a| arg(a, 0).max(arg(a, 1)) },
    Func { name: "sgn", arity: 1, int: Some(|a| Some(arg(a, 0).signum())), real: |a| sgn(arg(a, 0)) },
    Func { name: "acos", arity: 1, int: None, real: |a| arg(a, 0).acos() },
    Func { name: "asin", arity: 1, int: None, real: |a| arg(a, 0).asin() },
    Func { name: "atan", arity: 1, int: None, real: |a| arg(a, 0).atan() },
    Func { name: "cos", arity: 1, int: None, real: |a| arg(a, 0).cos() },
    Func { name: "cosh", arity: 1, int: None, real: |a| arg(a, 0).cosh() },
    Func { name: "double", arity: 1, int: None, real: |a| arg(a, 0) },
    Func { name: "exp", arity: 1, int: None, real: |a| arg(a, 0).exp() },
    Func { name: "floor", arity: 1, int: None, real: |a| arg(a, 0).floor() },
    Func { name: "int", arity: 1, int: None, real: |a| arg(a, 0).trunc() },
    Func { name: "log", arity: 1, int: None, real: |a| arg(a, 0).ln() },
    Func { name: "log10", arity: 1, int: None, real: |a| arg(a, 0).log10() },
    Func { name: "round", arity: 1, int: None, real: |a| arg(a, 0).round() },
    Func { name: "sin", arity: 1, int: None, real: |a| arg(a, 0).sin() },
    Func { name: "sinh", arity: 1, int: None, real: |a| arg(a, 0).sinh() },
    Func { name: "sqrt", arity: 1, int: None, real: |a| arg(a, 0).sqrt() },
    Func { name: "tan", arity: 1, int: None, real: |a| arg(a, 0).tan() },
    Func { name: "tanh", arity: 1, int: None, real: |a| arg(a, 0).tanh() },
];

fn sgn(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// Finds a function by name.
pub(crate) fn lookup_func(name: &str) -> Option<(u8, &'static Func)> {
    FUNCS.iter().enumerate().find(|(_, f)| f.name == name).map(|(i, f)| (i as u8, f))
}

/// A number domain the evaluator can run in.
pub(crate) trait Value: Copy + Default + std::fmt::Debug {
    /// Whether `FUNCS[i]` exists in this domain.
    fn has_func(f: &Func) -> bool;
    fn truthy(self) -> bool;
    fn from_bool(b: bool) -> Self;
    fn unary(op: UnOp, a: Self, span: Span) -> Result<Self, EvalError>;
    fn binary(op: BinOp, a: Self, b: Self, span: Span) -> Result<Self, EvalError>;
    fn call(f: &Func, args: &[Self], span: Span) -> Result<Self, EvalError>;
}

impl Value for i64 {
    fn has_func(f: &Func) -> bool {
        f.int.is_some()
    }

    fn truthy(self) -> bool {
        self != 0
    }

    fn from_bool(b: bool) -> Self {
        i64::from(b)
    }

    fn unary(op: UnOp, a: i64, span: Span) -> Result<i64, EvalError> {
        match op {
            UnOp::Neg => a.checked_neg().ok_or(EvalError::Overflow { op: "-", span }),
            UnOp::Plus => Ok(a),
            UnOp::Not => Ok(i64::from(a == 0)),
            UnOp::BitNot => Ok(!a),
        }
    }

    fn binary(op: BinOp, a: i64, b: i64, span: Span) -> Result<i64, EvalError> {
        let overflow = |op: &'static str| EvalError::Overflow { op, span };
        // Rust's `/` and `%` truncate toward zero and give the remainder the dividend's
        // sign, exactly C99's rules; only the divisor 0 and MIN / -1 need catching.
        match op {
            BinOp::Add => a.checked_add(b).ok_or(overflow("+")),
            BinOp::Sub => a.checked_sub(b).ok_or(overflow("-")),
            BinOp::Mul => a.checked_mul(b).ok_or(overflow("*")),
            BinOp::Div if b == 0 => Err(EvalError::DivisionByZero { span }),
            BinOp::Div => a.checked_div(b).ok_or(overflow("/")),
            BinOp::Rem if b == 0 => Err(EvalError::DivisionByZero { span }),
            BinOp::Rem => a.checked_rem(b).ok_or(overflow("%")),
            BinOp::Shl | BinOp::Shr if !(0..64).contains(&b) => Err(EvalError::ShiftOutOfRange { amount: b, span }),
            BinOp::Shl => {
                // A shift that loses bits (or flips the sign) is an overflow, as `a * 2^b` would be.
                let r = a.wrapping_shl(b as u32);
                if r >> b == a {
                    Ok(r)
                } else {
                    Err(overflow("<<"))
                }
            }
            BinOp::Shr => Ok(a >> b),
            BinOp::Lt => Ok(i64::from(a < b)),
            BinOp::Le => Ok(i64::from(a <= b)),
            BinOp::Gt => Ok(i64::from(a > b)),
            BinOp::Ge => Ok(i64::from(a >= b)),
            BinOp::Eq => Ok(i64::from(a == b)),
            BinOp::Ne => Ok(i64::from(a != b)),
            BinOp::BitAnd => Ok(a & b),
            BinOp::BitXor => Ok(a ^ b),
            BinOp::BitOr => Ok(a | b),
            BinOp::Pow if b < 0 => Err(EvalError::NegativeExponent { exponent: b, span }),
            BinOp::Pow => match (a, u32::try_from(b)) {
                (_, Ok(e)) => a.checked_pow(e).ok_or(overflow("**")),
                // Huge exponents only fit for bases 0, 1 and -1.
                (0 | 1, Err(_)) => Ok(a),
                (-1, Err(_)) => Ok(if b % 2 == 0 { 1 } else { -1 }),
                (_, Err(_)) => Err(overflow("**")),
            },
        }
    }

    fn call(f: &Func, args: &[i64], span: Span) -> Result<i64, EvalError> {
        match f.int {
            Some(func) => func(args).ok_or(EvalError::Overflow { op: f.name, span }),
            None => Err(EvalError::Domain { func: f.name, span }),
        }
    }
}

/// Converts a real operand of a bitwise operator to an integer, or says why it can't be.
fn as_integer(x: f64, span: Span) -> Result<i64, EvalError> {
    // 2^63 is exact in f64; every integral value strictly inside ±2^63 fits i64.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if x.fract() == 0.0 && x.abs() < LIMIT {
        Ok(x as i64)
    } else {
        Err(EvalError::NotAnInteger { value: x, span })
    }
}

/// Rejects NaN and infinite results so they never reach a timing.
fn finite(x: f64, op: &'static str, span: Span) -> Result<f64, EvalError> {
    if x.is_nan() {
        Err(EvalError::Domain { func: op, span })
    } else if x.is_infinite() {
        Err(EvalError::Overflow { op, span })
    } else {
        Ok(x)
    }
}

impl Value for f64 {
    fn has_func(_: &Func) -> bool {
        true
    }

    fn truthy(self) -> bool {
        self != 0.0
    }

    fn from_bool(b: bool) -> Self {
        if b {
            1.0
        } else {
            0.0
        }
    }

    fn unary(op: UnOp, a: f64, span: Span) -> Result<f64, EvalError> {
        match op {
            UnOp::Neg => Ok(-a),
            UnOp::Plus => Ok(a),
            UnOp::Not => Ok(f64::from_bool(a == 0.0)),
            UnOp::BitNot => Ok(!as_integer(a, span)? as f64),
        }
    }

    fn binary(op: BinOp, a: f64, b: f64, span: Span) -> Result<f64, EvalError> {
        let int_op = |a: f64, b: f64| -> Result<f64, EvalError> {
            let r = i64::binary(op, as_integer(a, span)?, as_integer(b, span)?, span)?;
            Ok(r as f64)
        };
        match op {
            BinOp::Add => finite(a + b, "+", span),
            BinOp::Sub => finite(a - b, "-", span),
            BinOp::Mul => finite(a * b, "*", span),
            BinOp::Div | BinOp::Rem if b == 0.0 => Err(EvalError::DivisionByZero { span }),
            BinOp::Div => finite(a / b, "/", span),
            // Rust's `%` on floats is C's fmod: the result has the dividend's sign.
            BinOp::Rem => finite(a % b, "%", span),
            BinOp::Pow => finite(a.powf(b), "**", span),
            BinOp::Lt => Ok(f64::from_bool(a < b)),
            BinOp::Le => Ok(f64::from_bool(a <= b)),
            BinOp::Gt => Ok(f64::from_bool(a > b)),
            BinOp::Ge => Ok(f64::from_bool(a >= b)),
            BinOp::Eq => Ok(f64::from_bool(a == b)),
            BinOp::Ne => Ok(f64::from_bool(a != b)),
            BinOp::Shl | BinOp::Shr | BinOp::BitAnd | BinOp::BitXor | BinOp::BitOr => int_op(a, b),
        }
    }

    fn call(f: &Func, args: &[f64], span: Span) -> Result<f64, EvalError> {
        finite((f.real)(args), f.name, span)
    }
}

/// Runs `prog`, fetching leaves through `load`.
pub(crate) fn run<T: Value>(
    prog: &Program<T>,
    load: &mut dyn FnMut(Leaf, Span) -> Result<T, EvalError>,
) -> Result<T, EvalError> {
    if prog.max_stack <= SMALL_STACK {
        run_on(&prog.ops, &mut [T::default(); SMALL_STACK], load)
    } else {
        run_on(&prog.ops, &mut [T::default(); STACK_LIMIT], load)
    }
}

fn run_on<T: Value>(
    ops: &[Op<T>],
    stack: &mut [T],
    load: &mut dyn FnMut(Leaf, Span) -> Result<T, EvalError>,
) -> Result<T, EvalError> {
    // The parser proves the stack never under- or overflows; the checked accesses below
    // turn a broken proof into an error instead of a panic.
    let mut sp = 0usize;
    let mut pc = 0usize;
    macro_rules! push {
        ($v:expr) => {{
            let v = $v;
            *stack.get_mut(sp).ok_or(EvalError::Internal)? = v;
            sp += 1;
        }};
    }
    macro_rules! top {
        () => {
            stack.get_mut(sp.wrapping_sub(1)).ok_or(EvalError::Internal)?
        };
    }
    while let Some(op) = ops.get(pc) {
        pc += 1;
        match *op {
            Op::Const(v) => push!(v),
            Op::Load(leaf, span) => push!(load(leaf, span)?),
            Op::Unary(u, span) => {
                let t = top!();
                *t = T::unary(u, *t, span)?;
            }
            Op::Binary(b, span) => {
                let rhs = *top!();
                sp -= 1;
                let t = top!();
                *t = T::binary(b, *t, rhs, span)?;
            }
            Op::Call(index, span) => {
                let f = FUNCS.get(usize::from(index)).ok_or(EvalError::Internal)?;
                let base = sp.checked_sub(f.arity).ok_or(EvalError::Internal)?;
                let r = T::call(f, stack.get(base..sp).ok_or(EvalError::Internal)?, span)?;
                sp = base;
                push!(r);
            }
            Op::Truth => {
                let t = top!();
                *t = T::from_bool(t.truthy());
            }
            Op::Jump(target) => pc = target as usize,
            Op::JumpIfFalse(target) => {
                let c = *top!();
                sp -= 1;
                if !c.truthy() {
                    pc = target as usize;
                }
            }
            Op::AndJump(target) => {
                let t = top!();
                if t.truthy() {
                    sp -= 1;
                } else {
                    *t = T::from_bool(false);
                    pc = target as usize;
                }
            }
            Op::OrJump(target) => {
                let t = top!();
                if t.truthy() {
                    *t = T::from_bool(true);
                    pc = target as usize;
                } else {
                    sp -= 1;
                }
            }
        }
    }
    if sp == 1 {
        stack.first().copied().ok_or(EvalError::Internal)
    } else {
        Err(EvalError::Internal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Span = Span { offset: 0, len: 1, line: 1, col: 1 };

    #[test]
    fn integer_division_follows_c99() {
        // C99 6.5.5: quotient truncated toward zero, (a/b)*b + a%b == a.
        assert_eq!(i64::binary(BinOp::Div, -7, 2, S), Ok(-3));
        assert_eq!(i64::binary(BinOp::Rem, -7, 2, S), Ok(-1));
        assert_eq!(i64::binary(BinOp::Rem, 7, -2, S), Ok(1));
        assert_eq!(i64::binary(BinOp::Div, i64::MIN, -1, S), Err(EvalError::Overflow { op: "/", span: S }));
        assert_eq!(i64::binary(BinOp::Rem, 1, 0, S), Err(EvalError::DivisionByZero { span: S }));
    }

    #[test]
    fn shifts_and_powers_are_checked() {
        assert_eq!(i64::binary(BinOp::Shl, 1, 62, S), Ok(1 << 62));
        // 1 << 63 is i64::MIN: the sign flipped, so it is an overflow.
        assert!(matches!(i64::binary(BinOp::Shl, 1, 63, S), Err(EvalError::Overflow { .. })));
        assert_eq!(i64::binary(BinOp::Shl, -3, 2, S), Ok(-12));
        assert_eq!(i64::binary(BinOp::Shr, -8, 1, S), Ok(-4));
        assert!(matches!(i64::binary(BinOp::Shl, 1, 64, S), Err(EvalError::ShiftOutOfRange { amount: 64, .. })));
        assert_eq!(i64::binary(BinOp::Pow, 3, 4, S), Ok(81));
        assert_eq!(i64::binary(BinOp::Pow, -1, 1 << 40, S), Ok(1));
        assert!(matches!(i64::binary(BinOp::Pow, 2, 63, S), Err(EvalError::Overflow { .. })));
        assert!(matches!(i64::binary(BinOp::Pow, 2, -1, S), Err(EvalError::NegativeExponent { .. })));
    }

    #[test]
    fn reals_reject_nan_infinity_and_fractional_bit_operands() {
        assert_eq!(f64::binary(BinOp::Rem, -7.5, 2.0, S), Ok(-1.5));
        assert!(matches!(f64::binary(BinOp::Div, 1.0, 0.0, S), Err(EvalError::DivisionByZero { .. })));
        assert!(matches!(f64::binary(BinOp::Mul, 1e300, 1e300, S), Err(EvalError::Overflow { .. })));
        assert_eq!(f64::binary(BinOp::BitOr, 4.0, 1.0, S), Ok(5.0));
        assert!(matches!(f64::binary(BinOp::BitOr, 0.5, 1.0, S), Err(EvalError::NotAnInteger { .. })));
        let sqrt = lookup_func("sqrt").map(|(_, f)| f);
        assert!(matches!(sqrt.map(|f| f64::call(f, &[-1.0], S)), Some(Err(EvalError::Domain { func: "sqrt", .. }))));
    }

    #[test]
    fn short_circuit_skips_the_right_operand() {
        // 0 && (1/0): AndJump must jump over the division, leaving 0.
        let prog = Program {
            ops: vec![
                Op::Const(0i64),
                Op::AndJump(6),
                Op::Const(1),
                Op::Const(0),
                Op::Binary(BinOp::Div, S),
                Op::Truth,
            ],
            max_stack: 2,
        };
        // Target 6 is the end: the stack holds the kept 0.
        assert_eq!(run(&prog, &mut |_, _| Ok(0)), Ok(0));
    }
}
