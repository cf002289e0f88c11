//! The interpreter's fast path: the program translated when it is loaded into a form with
//! fewer dispatches, and run a straight stretch at a time.
//!
//! **The translation** ([`Op`], [`Step::all`]): at every pc, the run of consecutive
//! instructions that starts there and forms one operation of the program: a variable or
//! a constant folded into the instruction that uses it (`LDVal i; PUSHI 1; ADDI` is one
//! addition of two operands), an array element's address and load in one (`a[i]`,
//! `a[i][j]`, `a[i * n + k]`: an index of one or two `int` operations; whatever the
//! element type), an element given a variable or a constant (`a[i] = v`), an assignment
//! of a variable or constant to a variable, `x++` and `x = x + c`, an `int` variable
//! updated with a variable or constant in either spelling (`x = x * y` and `x *= y`), a
//! comparison with the branch that uses it, two arithmetic instructions in a row
//! (`(i + j) % 7`, `s + x * y`, `i * n + k`), the value of a `switch` kept in a variable,
//! and the `STORE` after any operation that pushes one value ([`Step::put`]: run with it,
//! its destination checked first). Pointer arithmetic (`ADDRADD`) is `int` arithmetic
//! there (`p += k` is `i += k`), and an index converted to `int` before `INDEX` (an
//! `unsigned` one) is an index; arrays among the globals and in the running function's
//! frame have the same shapes.
//! The rules are on the shapes of vCode, not on any source statement: every spelling of
//! a loop, a sum or an index that compiles to the same shapes gets the same dispatches.
//! Every pc has its own decoding, so a jump may land anywhere.
//!
//! **The charges** ([`Charges`]): per processor type, the prefix sums of the ticks and of
//! the sequential ticks over the code, so that the instructions `s..e` (a stretch run
//! straight) are charged `cum[e] - cum[s]`: exactly what charging them one by one gives.
//!
//! **The rule that keeps every result the same** ([`super::interp`]): a stretch from `s`
//! runs translated only when every instruction of it up to its end ([`Step::end`], the
//! first instruction that is not translated, or the end of an unconditional jump) would
//! start before the quantum's end, within the step limit and the working stack's bound;
//! a taken branch ends the stretch and starts another (checked again). Where processors
//! share the pool (many short turns), a stretch that does not fit runs its operations
//! whose instructions all do, up to the one that straddles the quantum's end. An
//! operation that would fail changes nothing and returns `None`: the interpreter then
//! runs its first instruction alone, which fails or not exactly as it always does. Used
//! only without remote-access bookkeeping and without the debugger.
//!
//! **The flat form** ([`flat`]): where the pool is all the running processor's and no line
//! costs are kept, the operations again with their operands' kinds in their own kind,
//! run by a small loop of their own.
//! Depends on the process type of [`super`], the word arithmetic ([`super::arith`]) and the
//! memory pool.
use super::arith::{
    binary_or_none, inc_dec, int_op, is_binary, is_comparison, is_int_kind, is_unary, unary, Cond, IntOp,
};
use super::interp::LEAVE;
use super::{as_double, as_int, convert, push_frame_on, truthy, FnLite, Frame, Proc};
use crate::sim::memory::Memory;
use crate::time::Ticks;
use crate::vcode::{Instr, Scalar, Word};

mod flat;
pub(super) use flat::FlatStep;

/// One instruction of the code with its cost slot (its opcode, or a global variable
/// access's own slot: [`crate::vcode::cost::cost_slot`]), the translated operation that
/// starts at it and how many instructions that stands for, and where a straight stretch
/// run from it ends.
#[derive(Clone, Copy)]
pub(super) struct Step {
    pub(super) ins: Instr,
    pub(super) op: u8,
    /// The operation starting here ([`Op::Stop`]: this instruction is run alone).
    pub(super) x: Op,
    /// Its number of instructions (1 for `Stop`), the `STORE` of [`Step::put`] included.
    pub(super) len: u8,
    /// The operation pushes one value, having popped [`Step::pops`] words, and the
    /// `STORE ty 0` after it stores that value at the address below those words: the
    /// store is run with it, its destination checked before the operation runs (so that
    /// either both run or nothing changes). `None`: no store follows.
    pub(super) put: Option<Scalar>,
    pub(super) pops: u8,
    /// The stretch from here: the pc after its last instruction. The operations from
    /// here, one after the other, end exactly there (at a `Stop`, the code's end, or
    /// after a `Jump`); equal to the pc itself when this is a `Stop`.
    pub(super) end: u32,
}

impl Step {
    /// The steps of `code`, in order.
    pub(super) fn all(code: &[Instr]) -> Vec<Step> {
        let mut steps: Vec<Step> = (0..code.len())
            .map(|pc| {
                let (x, mut len) = Op::at(code, pc);
                let (mut put, mut pops) = (None, 0);
                if let (Some(k), Some(&Instr::Store { ty, keep: false })) = (x.pops(), code.get(pc + len)) {
                    (put, pops) = (Some(ty), k);
                    len += 1;
                }
                let op = crate::vcode::cost::cost_slot(&code[pc]);
                Step { ins: code[pc], op, x, len: len as u8, put, pops, end: pc as u32 }
            })
            .collect();
        // Backwards: a stretch goes on through the one after its first operation.
        for pc in (0..steps.len()).rev() {
            let s = steps[pc];
            let next = pc + s.len as usize;
            steps[pc].end = match s.x {
                Op::Stop => pc as u32,
                Op::Jump(_) | Op::IncJump { .. } | Op::Call(_) | Op::Ret(_) => next as u32,
                _ => steps.get(next).map_or(next as u32, |n| n.end),
            };
        }
        steps
    }

    /// The same steps with nothing translated: every instruction run alone (the reference
    /// the tests compare the translated runs with).
    #[cfg(test)]
    pub(super) fn untranslated(steps: &mut [Step]) {
        for (pc, s) in steps.iter_mut().enumerate() {
            (s.x, s.len, s.end, s.put) = (Op::Stop, 1, pc as u32, None);
        }
    }
}

/// Where an operand comes from: the working stack (popped), a variable (`LDVal depth
/// off`, its address from the display) or an `int` constant (`PUSHI v`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Src {
    Stack,
    Var(u8, u32),
    Int(i32),
}

impl Src {
    /// The operand that `ins` pushes, when it is a variable or an `int` constant.
    fn of(ins: Instr) -> Option<Src> {
        match ins {
            Instr::LdVal { depth, off } => Some(Src::Var(depth, off)),
            Instr::PushI { v } => Some(Src::Int(v)),
            _ => None,
        }
    }
}

/// An index of `INDEX size len`, from `i`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Ix {
    pub(super) i: Src,
    pub(super) size: u32,
    pub(super) len: u32,
}

/// The index of [`Op::ElemX`]: `a first b`, then `<op> c` of `then` when it is there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct IxExpr {
    pub(super) first: IntOp,
    pub(super) a: Src,
    pub(super) b: Src,
    pub(super) then: Option<(IntOp, Src)>,
}

/// A translated operation: the instructions it stands for are in its doc. Each computes
/// what they compute, in their order, and on the same words (addresses pass through `int`
/// words as `LDADDR` pushes them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Op {
    /// Not translated: run alone by the interpreter (calls, returns, channels, I/O, ...).
    Stop,
    /// `LDVal` or `PUSHI` (1).
    Push(Src),
    /// `PUSHF`, `PUSHC`, `PUSHD`, `PUSHL` (1).
    Const(Word),
    /// `LDADDR depth off` (1).
    Addr(u8, u32),
    /// A [`binary`] instruction `ins` with its operands: `a` and `b` from the stack (1),
    /// `b` pushed just before (2), or both (3).
    Bin {
        ins: Instr,
        a: Src,
        b: Src,
    },
    /// [`Op::Bin`] of an `int` instruction ([`is_int_kind`]): the operands read as `int`s.
    BinI {
        ins: Instr,
        a: Src,
        b: Src,
    },
    /// Two [`binary`] instructions in a row, both on the stack (2): `x then (y first z)`.
    BinBin {
        first: Instr,
        then: Instr,
    },
    /// [`Op::BinBin`] of two `int` instructions.
    BinBinI {
        first: Instr,
        then: Instr,
    },
    /// `(a first b) then c` of three pushed operands (5): `a; b; first; c; then`.
    Bin2 {
        first: Instr,
        a: Src,
        b: Src,
        then: Instr,
        c: Src,
    },
    /// [`Op::Bin2`] of two `int` instructions.
    Bin2I {
        first: Instr,
        a: Src,
        b: Src,
        then: Instr,
        c: Src,
    },
    /// A [`unary`] instruction (1).
    Un(Instr),
    /// `INDEX size len` of the base on the stack, by `i`, and `Dereference` when `load`
    /// (1 to 3).
    Index {
        ix: Ix,
        load: bool,
    },
    /// `LDADDR depth off; <i>; INDEX` and `Dereference` when `load` (3 or 4), or with
    /// `CONV int` before the `INDEX` (4 or 5): `a[i]`.
    Elem {
        depth: u8,
        off: u32,
        i: Ix,
        load: bool,
    },
    /// `LDADDR depth off; <i>; INDEX; <j>; INDEX` and `Dereference` when `load` (5 or 6),
    /// with `CONV int` before either `INDEX` (one more each): `a[i][j]`.
    Elem2 {
        depth: u8,
        off: u32,
        i: Ix,
        j: Ix,
        load: bool,
    },
    /// `LDADDR depth off; <a>; <b>; first; INDEX; [Dereference]` (5 or 6), or with `<c>; op`
    /// after `first` when `then` is `(op, c)` (7 or 8), and one more with `CONV int` before
    /// the `INDEX`: `a[i * n + k]`, `a[i + 1]`, an element whose index is one or two `int`
    /// operations of variables and constants.
    ElemX {
        depth: u8,
        off: u32,
        e: IxExpr,
        size: u32,
        len: u32,
        load: bool,
    },
    /// `LDADDR depth off; Dereference; <i>; INDEX` and `Dereference` when `load` (4 or 5),
    /// or with `CONV int` before the `INDEX` (5 or 6): `p[i]` of a pointer variable `p`.
    PElem {
        depth: u8,
        off: u32,
        i: Ix,
        load: bool,
    },
    /// `<b1>; op1; <b2>; op2` and `<b3>; op3` when `n` is 3 (4 or 6): `int` operations
    /// applied in turn to the value on the stack, each with a pushed operand
    /// (`x / 2 + i + 1`).
    AccI {
        n: u8,
        k: [(IntOp, Src); 3],
    },
    /// `Dereference` (1).
    Deref,
    /// `STORE ty keep` (1).
    Store {
        ty: Scalar,
        keep: bool,
    },
    /// `LDADDR depth off; <v>; STORE ty 0` (3): `x = v;`.
    Set {
        depth: u8,
        off: u32,
        ty: Scalar,
        v: Src,
    },
    /// `LDADDR depth off; INCDEC int delta _; POP 1` (3): `x++;`, or `LDADDR depth off;
    /// LDVal depth off; PUSHI c; ADDI | SUBI; STORE int 0` (5, `wide` set: the value is
    /// read at the untruncated address, as `LDVal` reads it): `x = x + c;`.
    IncVar {
        depth: u8,
        off: u32,
        delta: i32,
        wide: bool,
    },
    /// An element given a variable or a constant: `LDADDR depth off; <i>; [CONV int;] INDEX
    /// size len; <v>; [CONV ty;] STORE ty 0` (5 to 7; a conversion to the stored type
    /// changes nothing the store's own does not): `a[i] = v;`.
    ElemSet {
        depth: u8,
        off: u32,
        i: Ix,
        v: Src,
        ty: Scalar,
    },
    /// An `int` variable updated by an `int` operation with an operand: `LDADDR depth off;
    /// LDVal depth off; <b>; <op>; STORE int 0` (5, `wide` set as for [`Op::IncVar`]):
    /// `x = x + b;`, or `LDADDR depth off; DUP; DEREF; <b>; <op>; STORE int 0` (6): `x +=
    /// b;`. Either spelling, any of [`IntOp`]'s operations.
    UpdI {
        depth: u8,
        off: u32,
        op: IntOp,
        b: Src,
        wide: bool,
    },
    /// [`Op::IncVar`] and the `JMP target` after it (4 or 6): the end of a loop's body.
    IncJump {
        depth: u8,
        off: u32,
        delta: i32,
        wide: bool,
        target: u32,
    },
    /// `INCDEC ty delta pre` (1).
    IncDec {
        ty: Scalar,
        delta: i32,
        pre: bool,
    },
    /// `LDADDR depth off; DUP; Dereference` (3): the start of `x += ...`.
    AddrDeref(u8, u32),
    /// `LDADDR depth off; SWAP; STORE ty 0` (3): the word on top of the stack popped into
    /// a variable (a `switch` keeps its value so).
    PopTo {
        depth: u8,
        off: u32,
        ty: Scalar,
    },
    /// `POP n`, `DUP`, `SWAP` (1).
    Pop(u32),
    Dup,
    Swap,
    /// `JMP target` (1).
    Jump(u32),
    /// A comparison `cmp` of `a` and `b` (as [`Op::Bin`]) and the `JPF` (`when` false) or
    /// `JPT` (`when` true) after it: jumps to `target` when the result's truth is `when`
    /// (2 to 4).
    Branch {
        cmp: Instr,
        a: Src,
        b: Src,
        when: bool,
        target: u32,
    },
    /// [`Op::Branch`] of an `int` comparison.
    BranchI {
        cmp: Instr,
        a: Src,
        b: Src,
        when: bool,
        target: u32,
    },
    /// `CALL func` (1): run by [`run_stretches`] itself when the frame fits the current
    /// segment (it ends the stretch and starts one at the callee's entry).
    Call(u32),
    /// `RET n` (1), from any function but the process's first (as [`Op::Call`]).
    Ret(u32),
    /// `JPF` / `JPT` of the value on the stack (1).
    JumpIf {
        when: bool,
        target: u32,
    },
}

impl Op {
    /// How many words the operation pops when it pushes exactly one and does nothing else
    /// (no jump, no store): the value a following `STORE` may take ([`Step::put`]).
    fn pops(&self) -> Option<u8> {
        let on_stack = |s: &Src| u8::from(*s == Src::Stack);
        Some(match self {
            Op::Push(s) => on_stack(s),
            Op::Const(_) | Op::Addr(..) | Op::Bin2 { .. } | Op::Bin2I { .. } => 0,
            Op::Elem { .. } | Op::ElemX { .. } | Op::Elem2 { .. } => 0,
            Op::Bin { a, b, .. } | Op::BinI { a, b, .. } => on_stack(a) + on_stack(b),
            Op::BinBin { .. } | Op::BinBinI { .. } => 3,
            Op::Un(_) | Op::Deref | Op::AccI { .. } => 1,
            Op::PElem { .. } => 0,
            Op::Index { ix, .. } => 1 + on_stack(&ix.i),
            _ => return None,
        })
    }

    /// The operation starting at `code[pc]` and its number of instructions, its
    /// arithmetic on `int`s when all of it is.
    fn at(code: &[Instr], pc: usize) -> (Op, usize) {
        let (op, n) = Op::shape(code, pc);
        let op = match op {
            Op::Bin { ins, a, b } if is_int_kind(ins) => Op::BinI { ins, a, b },
            Op::BinBin { first, then } if is_int_kind(first) && is_int_kind(then) => Op::BinBinI { first, then },
            Op::Bin2 { first, a, b, then, c } if is_int_kind(first) && is_int_kind(then) => {
                Op::Bin2I { first, a, b, then, c }
            }
            Op::Branch { cmp, a, b, when, target } if is_int_kind(cmp) => Op::BranchI { cmp, a, b, when, target },
            op => op,
        };
        match (op, code.get(pc + n)) {
            (Op::IncVar { depth, off, delta, wide }, Some(Instr::Jump { target })) => {
                (Op::IncJump { depth, off, delta, wide, target: *target }, n + 1)
            }
            _ => (op, n),
        }
    }

    /// The operation starting at `code[pc]` and its number of instructions.
    fn shape(code: &[Instr], pc: usize) -> (Op, usize) {
        use Instr as I;
        let c = code.get(pc..).unwrap_or(&[]);
        let src = |k: usize| c.get(k).copied().and_then(Src::of);
        let ins = |k: usize| c.get(k).copied();
        let bin = |k: usize| ins(k).filter(|&i| is_binary(i));
        let jump = |k: usize| match ins(k) {
            Some(I::JumpIfFalse { target }) => Some((false, target)),
            Some(I::JumpIfTrue { target }) => Some((true, target)),
            _ => None,
        };
        let index = |k: usize| match ins(k) {
            Some(I::Index { size, len }) => Some((size, len)),
            _ => None,
        };
        // `INDEX` at `k`, or at `k + 1` after `CONV int` (which changes nothing there:
        // `INDEX` takes its index as an `int` itself): its size, bound and instructions.
        let conv_index = |k: usize| match (ins(k), index(k + 1)) {
            (Some(I::Convert { to: Scalar::Int }), Some((size, len))) => Some((size, len, 2)),
            _ => index(k).map(|(size, len)| (size, len, 1)),
        };
        let deref = |k: usize| matches!(ins(k), Some(I::Dereference {}));
        // A binary operation of `a` and `b` at `k` (the comparison with its branch).
        let binop = |k: usize, a: Src, b: Src, n: usize| -> Option<(Op, usize)> {
            let op = bin(k)?;
            Some(match jump(k + 1) {
                Some((when, target)) if is_comparison(op) => (Op::Branch { cmp: op, a, b, when, target }, n + 2),
                _ => (Op::Bin { ins: op, a, b }, n + 1),
            })
        };
        let Some(first) = ins(0) else { return (Op::Stop, 1) };
        if let Some(a) = src(0) {
            if let Some(b) = src(1) {
                if let (Some(f), Some(x), Some(t)) = (bin(2), src(3), bin(4)) {
                    if jump(5).is_none() || !is_comparison(t) {
                        return (Op::Bin2 { first: f, a, b, then: t, c: x }, 5);
                    }
                }
                if let Some(r) = binop(2, a, b, 2) {
                    return r;
                }
            }
            // Two or three `int` operations in a row on the value on the stack.
            let acc = |k: usize| Some((bin(k + 1).and_then(IntOp::of)?, src(k)?));
            if let (Some(x), Some(y)) = (acc(0), acc(2)) {
                return match acc(4) {
                    Some(z) => (Op::AccI { n: 3, k: [x, y, z] }, 6),
                    None => (Op::AccI { n: 2, k: [x, y, (IntOp::Add, Src::Int(0))] }, 4),
                };
            }
            if let Some(r) = binop(1, Src::Stack, a, 1) {
                return r;
            }
            if let Some((size, len)) = index(1) {
                let load = deref(2);
                return (Op::Index { ix: Ix { i: a, size, len }, load }, 2 + load as usize);
            }
            // A constant converted (`PUSHI 1; CONV char`) is the converted constant.
            if let (Src::Int(v), Some(I::Convert { to })) = (a, ins(1)) {
                return (Op::Const(convert(Word::Int(v), to)), 2);
            }
            return (Op::Push(a), 1);
        }
        match first {
            I::LdAddr { depth, off } => {
                match (ins(1), ins(2), ins(3), ins(4)) {
                    (Some(I::IncDec { ty: Scalar::Int, delta, .. }), Some(I::Pop { n: 1 }), _, _) => {
                        return (Op::IncVar { depth, off, delta, wide: false }, 3);
                    }
                    (
                        Some(I::LdVal { depth: d, off: o }),
                        Some(I::PushI { v }),
                        Some(add @ (I::AddI {} | I::SubI {})),
                        Some(I::Store { ty: Scalar::Int, keep: false }),
                    ) if (d, o) == (depth, off) => {
                        let delta = if add == (I::AddI {}) { v } else { v.wrapping_neg() };
                        return (Op::IncVar { depth, off, delta, wide: true }, 5);
                    }
                    _ => {}
                }
                if let (Some(I::Swap {}), Some(I::Store { ty, keep: false })) = (ins(1), ins(2)) {
                    return (Op::PopTo { depth, off, ty }, 3);
                }
                // `x = x <op> b;` and `x <op>= b;` on an `int` variable.
                let upd = |k: usize| match (src(k), ins(k + 1).and_then(IntOp::of), ins(k + 2)) {
                    (Some(b), Some(op), Some(I::Store { ty: Scalar::Int, keep: false })) if b != Src::Stack => {
                        Some((op, b))
                    }
                    _ => None,
                };
                match (ins(1), ins(2)) {
                    (Some(I::LdVal { depth: d, off: o }), _) if (d, o) == (depth, off) => {
                        if let Some((op, b)) = upd(2) {
                            return (Op::UpdI { depth, off, op, b, wide: true }, 5);
                        }
                    }
                    (Some(I::Dup {}), Some(I::Dereference {})) => {
                        if let Some((op, b)) = upd(3) {
                            return (Op::UpdI { depth, off, op, b, wide: false }, 6);
                        }
                        return (Op::AddrDeref(depth, off), 3);
                    }
                    _ => {}
                }
                // An element of the array a pointer variable points to.
                if let (Some(I::Dereference {}), Some(i), Some((size, len, n))) = (ins(1), src(2), conv_index(3)) {
                    let load = deref(3 + n);
                    return (Op::PElem { depth, off, i: Ix { i, size, len }, load }, 3 + n + load as usize);
                }
                // An index computed by one or two `int` operations (and converted to `int`
                // again, as an `unsigned` one is).
                let iop = |k: usize| bin(k).and_then(IntOp::of);
                if let (Some(a), Some(b), Some(first)) = (src(1), src(2), iop(3)) {
                    let e = IxExpr { first, a, b, then: None };
                    if let Some((size, len, n)) = conv_index(4) {
                        let load = deref(4 + n);
                        return (Op::ElemX { depth, off, e, size, len, load }, 4 + n + load as usize);
                    }
                    if let (Some(c), Some(then), Some((size, len, n))) = (src(4), iop(5), conv_index(6)) {
                        let load = deref(6 + n);
                        let e = IxExpr { then: Some((then, c)), ..e };
                        return (Op::ElemX { depth, off, e, size, len, load }, 6 + n + load as usize);
                    }
                }
                // `k`: the instruction after the first `INDEX`.
                if let (Some(i), Some((size, len, n))) = (src(1), conv_index(2)) {
                    let (i, k) = (Ix { i, size, len }, 2 + n);
                    if let Some(v) = src(k).filter(|&v| v != Src::Stack) {
                        match (ins(k + 1), ins(k + 2)) {
                            (Some(I::Store { ty, keep: false }), _) => {
                                return (Op::ElemSet { depth, off, i, v, ty }, k + 2);
                            }
                            (Some(I::Convert { to }), Some(I::Store { ty, keep: false })) if to == ty => {
                                return (Op::ElemSet { depth, off, i, v, ty }, k + 3);
                            }
                            _ => {}
                        }
                    }
                    if let (Some(j), Some((size, len, n))) = (src(k), conv_index(k + 1)) {
                        let load = deref(k + 1 + n);
                        let j = Ix { i: j, size, len };
                        return (Op::Elem2 { depth, off, i, j, load }, k + 1 + n + load as usize);
                    }
                    let load = deref(k);
                    return (Op::Elem { depth, off, i, load }, k + load as usize);
                }
                if let (Some(v), Some(I::Store { ty, keep: false })) = (src(1), ins(2)) {
                    return (Op::Set { depth, off, ty, v }, 3);
                }
                (Op::Addr(depth, off), 1)
            }
            _ if is_binary(first) => match bin(1) {
                Some(then) if jump(2).is_none() || !is_comparison(then) => (Op::BinBin { first, then }, 2),
                _ => binop(0, Src::Stack, Src::Stack, 0).unwrap_or((Op::Stop, 1)),
            },
            _ if is_unary(first) => (Op::Un(first), 1),
            I::Index { size, len } => {
                let load = deref(1);
                (Op::Index { ix: Ix { i: Src::Stack, size, len }, load }, 1 + load as usize)
            }
            I::Dereference {} => (Op::Deref, 1),
            I::Store { ty, keep } => (Op::Store { ty, keep }, 1),
            I::IncDec { ty, delta, pre } => (Op::IncDec { ty, delta, pre }, 1),
            I::PushF { v } => (Op::Const(Word::Float(v)), 1),
            I::PushC { v } => (Op::Const(Word::Char(v)), 1),
            I::PushD { v } => (Op::Const(Word::Double(v)), 1),
            I::PushL { v } => (Op::Const(Word::Long(v)), 1),
            I::Pop { n } => (Op::Pop(n), 1),
            I::Dup {} => (Op::Dup, 1),
            I::Swap {} => (Op::Swap, 1),
            I::Nop {} => (Op::Pop(0), 1),
            I::Jump { target } => (Op::Jump(target), 1),
            I::Call { func } => (Op::Call(func), 1),
            I::Ret { n } => (Op::Ret(n), 1),
            I::JumpIfFalse { target } => (Op::JumpIf { when: false, target }, 1),
            I::JumpIfTrue { target } => (Op::JumpIf { when: true, target }, 1),
            _ => (Op::Stop, 1),
        }
    }
}

/// What the operations read of the running process: its display, and the processor it
/// runs on when some words of the pool belong to others (`u32::MAX` when none do).
#[derive(Clone, Copy)]
struct Ctx<'a> {
    display: &'a super::Display,
    me: u32,
}

/// The address of variable `(depth, off)`, as `LDVal` computes it from the display.
#[inline(always)]
fn var(p: Ctx<'_>, depth: u8, off: u32) -> Option<i64> {
    p.display.get(depth as usize).map(|b| b as i64 + off as i64)
}

/// The pool index of address `a` when the word is inside the pool and the running
/// processor's own: an access to another processor's word is left to the interpreter,
/// which makes it a remote access.
#[inline(always)]
fn slot(p: Ctx<'_>, mem: &Memory, a: i64) -> Option<usize> {
    let i = mem.index(a)?;
    (p.me == u32::MAX || mem.owner.get(i) == Some(&p.me)).then_some(i)
}

/// The word at `a`, if `a` is inside the pool.
#[inline(always)]
fn load(p: Ctx<'_>, mem: &Memory, a: i64) -> Option<Word> {
    slot(p, mem, a).map(|i| mem.words[i])
}

/// The value of a pushed operand (`Stack` is the caller's).
#[inline(always)]
fn get(p: Ctx<'_>, mem: &Memory, s: Src) -> Option<Word> {
    match s {
        Src::Int(v) => Some(Word::Int(v)),
        Src::Var(d, o) => load(p, mem, var(p, d, o)?),
        Src::Stack => None,
    }
}

/// [`as_int`] with the common cases (an `int` word, a `char` read from a string) first and
/// inline: the other cases out of line, so that reading an operand is a test and a load,
/// not a jump through a table.
#[inline(always)]
fn int_of(w: &Word) -> i32 {
    match w {
        Word::Int(i) => *i,
        Word::Char(c) => i32::from(*c),
        _ => int_of_other(w),
    }
}

#[inline(never)]
fn int_of_other(w: &Word) -> i32 {
    as_int(*w)
}

/// The value of a pushed operand as an `int` (`Stack` is the caller's): read in place, as
/// the `int` instructions convert it.
#[inline(always)]
fn int(p: Ctx<'_>, mem: &Memory, s: Src) -> Option<i32> {
    match s {
        Src::Int(v) => Some(v),
        Src::Var(d, o) => {
            let i = slot(p, mem, var(p, d, o)?)?;
            Some(int_of(&mem.words[i]))
        }
        Src::Stack => None,
    }
}

/// The pool indexes a variable updated in place is written at and read from: the
/// address `LDADDR` pushes as `STORE` reads it (an `int`), and with `wide` the address
/// as `LDVal` reads it (which may differ past `i32`'s range), else the same.
#[inline(always)]
fn updated(p: Ctx<'_>, mem: &Memory, depth: u8, off: u32, wide: bool) -> Option<(usize, usize)> {
    let a = var(p, depth, off)?;
    let w = slot(p, mem, a as i32 as i64)?;
    let r = if wide { slot(p, mem, a)? } else { w };
    Some((w, r))
}

/// `base + i * size` as `INDEX size len` computes it: `None` when `i` is outside
/// `0..len` (no bound when `len` is 0).
#[inline(always)]
fn index(base: i32, i: i32, size: u32, len: u32) -> Option<i32> {
    (len == 0 || (i >= 0 && (i as u32) < len)).then(|| base.wrapping_add(i.wrapping_mul(size as i32)))
}

/// Writes `a <ins> b` of a binary instruction that is not on `int`s ([`binary_or_none`];
/// those are [`int_op`]) into `dst`; `None`, with `dst` unchanged, on a division by zero.
/// The `double` arithmetic and comparisons are inline, written straight into `dst` (a
/// word assembled elsewhere and copied whole would be read back before its parts are
/// stored), the rest out of line, so that the operations stay small.
#[inline(always)]
fn binary(ins: Instr, a: Word, b: Word, dst: &mut Word) -> Option<()> {
    use Instr as I;
    match (a, b) {
        (Word::Double(x), Word::Double(y)) => match ins {
            I::AddD {} => *dst = Word::Double(x + y),
            I::SubD {} => *dst = Word::Double(x - y),
            I::MulD {} => *dst = Word::Double(x * y),
            I::DivD {} => *dst = Word::Double(x / y),
            I::LtD {} => *dst = Word::Int((x < y) as i32),
            I::GtD {} => *dst = Word::Int((x > y) as i32),
            _ => return binary_out_of_line(ins, a, b, dst),
        },
        _ => return binary_out_of_line(ins, a, b, dst),
    }
    Some(())
}

#[inline(never)]
fn binary_out_of_line(ins: Instr, a: Word, b: Word, dst: &mut Word) -> Option<()> {
    *dst = binary_or_none(ins, a, b)?;
    Some(())
}

/// Whether `a <cmp> b` of a comparison that is not on `int`s is true (comparisons do not
/// fail: `Some` always, kept for the shape of [`binary`]); out of line, as they are rare.
#[inline(never)]
fn compare(cmp: Instr, a: Word, b: Word) -> Option<bool> {
    binary_or_none(cmp, a, b).map(truthy)
}

#[inline(never)]
fn unary_out_of_line(ins: Instr, a: Word) -> Word {
    unary(ins, a)
}

/// Writes into `dst` the word `STORE ty` writes for the value `v`. Read in place, field by
/// field, and written in each case straight into `dst`: the operation has just stored
/// `v` in parts, and a word read or assembled whole would wait for those stores to reach
/// the cache instead of taking them from the store buffer.
#[inline(always)]
fn put_word(ty: Scalar, v: &Word, dst: &mut Word) {
    match (ty, v) {
        (Scalar::Int, v) => *dst = Word::Int(int_of(v)),
        (Scalar::Double, Word::Double(d)) => *dst = Word::Double(*d),
        (Scalar::Char, v) => *dst = Word::Char(int_of(v) as u8),
        (ty, v) => *dst = convert_out_of_line(*v, ty),
    }
}

#[inline(never)]
fn convert_out_of_line(v: Word, ty: Scalar) -> Word {
    convert(v, ty)
}

/// Pushes the word at address `a` when `load` (`INDEX` and `Dereference`), else the address
/// (`INDEX` alone); `None`, having pushed nothing, when the word is not the running
/// processor's own or not in the pool.
#[inline(always)]
fn push_elem(p: Ctx<'_>, mem: &Memory, stack: &mut Vec<Word>, a: i32, load: bool) -> Option<()> {
    if load {
        let i = slot(p, mem, a as i64)?;
        stack.push(mem.words[i]);
    } else {
        stack.push(Word::Int(a));
    }
    Some(())
}

/// The top `n` words of the stack, if it has them.
#[inline(always)]
fn top<const N: usize>(stack: &[Word]) -> Option<&[Word; N]> {
    stack.get(stack.len().checked_sub(N)?..)?.try_into().ok()
}

/// What running one operation did.
enum Ran {
    /// Go on with the operation at this pc.
    Next(usize),
    /// A jump to this pc was taken: the stretch ends.
    Jumped(usize),
    /// A call or a return, for [`run_stretches`] to run: the stretch ends.
    Transfer,
}

/// The interpreter's state while it runs stretches: its pc, its clock, quantum end and
/// step budget with what the stretches added ([`Clock`]: the interpreter gives it with
/// nothing added), the clock at the last quantum end crossed, and the pc whose first
/// instruction must run alone.
pub(super) struct State {
    pub(super) pc: usize,
    pub(super) c: Clock,
    pub(super) cross_clock: Ticks,
    pub(super) bail: usize,
    /// With `LINES`: the program's call into the library, whose time library code's is.
    pub(super) site: usize,
}

/// The clock, quantum end and step budget of a run of stretches, and what it added: the
/// sequential ticks (left at 0 by the charges when they are the clock's advance,
/// [`Limits::seq_same`], and set at the end of the run), the quantum ends crossed and the
/// last crossing: its stretch when a stretch charged alone crossed last (its first pc, its
/// end and its clock; the end it crossed is the one before `qend`, and the clock at that
/// crossing is worked out once, at the end), or the clock at that crossing when a loop
/// run whole did.
#[derive(Clone, Copy, Default)]
pub(super) struct Clock {
    pub(super) clock: Ticks,
    pub(super) qend: Ticks,
    pub(super) steps: u64,
    pub(super) seq: Ticks,
    pub(super) crossed: u64,
    pub(super) last_cross: Option<(u32, u32, Ticks)>,
    pub(super) cross_at: Option<Ticks>,
}

impl Clock {
    /// Charges the instructions `s..e`, run from the current clock, and the quantum ends
    /// crossed: every end up to the last start (the instructions of earlier stretches all
    /// started before `qend`).
    #[inline(always)]
    fn charge(&mut self, lim: &Limits<'_>, s: usize, e: usize) {
        let (cum, q) = (lim.cum, lim.q);
        let last = self.clock + (cum[e - 1] - cum[s]);
        if last >= self.qend {
            let mut m = 1;
            while self.qend + m * q <= last {
                m += 1;
                if m > 8 {
                    m = (last - self.qend) / q + 1;
                    break;
                }
            }
            self.last_cross = Some((s as u32, e as u32, self.clock));
            self.crossed += m;
            self.qend += m * q;
        }
        self.clock += cum[e] - cum[s];
        if !lim.seq_same {
            self.seq += lim.cum_seq[e] - lim.cum_seq[s];
        }
        self.steps -= (e - s) as u64;
    }

    /// How many iterations of the loop whose body is the whole stretch `s..end` (its
    /// last instruction jumps back to `s`) may run back to back from here, each charged
    /// the same: those whose last instruction starts before the quantum's end, or at
    /// most at the last end that may be crossed, within the steps left.
    #[inline(always)]
    fn loop_fit(&self, lim: &Limits<'_>, s: usize, end: usize) -> u64 {
        let cum = lim.cum;
        let (period, inner) = (cum[end] - cum[s], cum[end - 1] - cum[s]);
        let limit = match (lim.crossable, self.qend.checked_sub(1)) {
            (true, q1) => Some(lim.cross_max.max(q1.unwrap_or(0))),
            (false, q1) => q1,
        };
        let fit = match limit {
            Some(l) if self.clock.checked_add(inner).is_some_and(|t| t <= l) => {
                (l - self.clock - inner).checked_div(period).map_or(u64::MAX, |k| k.saturating_add(1))
            }
            _ => 0,
        };
        fit.min(self.steps / (end - s) as u64)
    }

    /// Charges `done` iterations of the loop `s..end` run back to back from the current
    /// clock (at most [`Clock::loop_fit`]), and the quantum ends they crossed, worked out
    /// once for them all.
    fn charge_loop(&mut self, lim: &Limits<'_>, s: usize, end: usize, done: u64) {
        let (cum, q) = (lim.cum, lim.q);
        let (period, inner) = (cum[end] - cum[s], cum[end - 1] - cum[s]);
        let clock0 = self.clock;
        let last = clock0 + (done - 1) * period + inner;
        if last >= self.qend {
            let m = (last - self.qend) / q + 1;
            let l = self.qend + (m - 1) * q;
            // The first start at or after `l`: in iteration `rel / period`.
            let rel = l.saturating_sub(clock0);
            let (j, r) = (rel / period, rel % period);
            let k = s + cum[s..end].partition_point(|&t| t - cum[s] < r);
            self.cross_at =
                Some(if k == end { clock0 + (j + 1) * period } else { clock0 + j * period + (cum[k] - cum[s]) });
            self.last_cross = None;
            self.crossed += m;
            self.qend += m * q;
        }
        self.clock += done * period;
        if !lim.seq_same {
            self.seq += done * (lim.cum_seq[end] - lim.cum_seq[s]);
        }
        self.steps -= done * (end - s) as u64;
    }

    /// Whether the stretch `s..end` may start translated with `depth` words on the working
    /// stack: it has an instruction, the steps left cover it, and its operations (at
    /// most two words pushed each) stay within the working stack's bound.
    #[inline(always)]
    fn may_start(&self, depth: usize, s: usize, end: usize) -> bool {
        let n = end.saturating_sub(s);
        n > 0 && self.steps >= n as u64 && depth + 2 * n <= super::MAX_WORKING_STACK
    }

    /// Whether the stretch `s..end` may run translated alone on the machine: its last
    /// instruction starts before the quantum's end, or at most at the last end that may
    /// be crossed.
    #[inline(always)]
    fn fits(&self, lim: &Limits<'_>, s: usize, end: usize) -> bool {
        let last = self.clock.saturating_add(lim.cum[end - 1] - lim.cum[s]);
        last < self.qend || (lim.crossable && last <= lim.cross_max)
    }
}

/// What bounds a run of stretches: the charges ([`Charges`]), the quantum, and the last
/// quantum end the process may go past (see [`super::interp::Env::cross_max`]).
pub(super) struct Limits<'a> {
    pub(super) cum: &'a [Ticks],
    pub(super) cum_seq: &'a [Ticks],
    /// `cum_seq` is `cum` ([`Charges::seq_same`]): the charges leave the sequential ticks
    /// alone and [`run_stretches`] adds the clock's advance to them at the end.
    pub(super) seq_same: bool,
    pub(super) q: Ticks,
    pub(super) cross_max: Ticks,
    /// No translated instruction is longer than a quantum ([`Charges::tmax`]).
    pub(super) crossable: bool,
    /// The running processor when some words of the pool belong to other processors
    /// (an operation touching one of those is left to the interpreter); `u32::MAX` when
    /// every word is its own.
    pub(super) me: u32,
    /// The program's functions and the frame words a process may take, for calls.
    pub(super) funcs: &'a [FnLite],
    pub(super) max_stack: u32,
    /// The flat form of the code ([`flat`]), run where every word is the processor's own
    /// and no line costs are kept.
    pub(super) flat: &'a [FlatStep],
}

/// What [`run_stretches`] reports with `LINES`: the ticks per pc (library code's to the
/// call site), and the calls and returns (see [`super::interp::Ctr::calls`]).
pub(super) struct Lines<'a> {
    pub(super) pc_ticks: &'a mut [Ticks],
    pub(super) lib: &'a [bool],
    pub(super) ticks: &'a [Ticks; 256],
    pub(super) calls: &'a mut Vec<(Ticks, u32)>,
}

/// Runs straight stretches from `st.pc`, one after the other as taken jumps lead, while
/// each fits: all its instructions would start before the quantum's end (or past ends
/// the process may cross, when `crossable`: each is then crossed at the first instruction
/// starting at or after it, as the interpreter's loop top crosses it), within the step
/// limit and the working stack's bound. Stops at a stretch that does not fit, at a `Stop`
/// and at an operation that would fail (`st.bail`: its first instruction must run alone).
/// With `PREFIX`, a stretch that does not fit the quantum first runs its operations
/// whose instructions all start before the quantum's end, and stops at the one that
/// straddles it (`st.bail`): the interpreter uses it when the processors share the pool,
/// where many processors take short turns (the quantum shorter than the stretches);
/// alone on the machine, stretches cross quantum ends and this is not needed.
/// Runs a call (when the callee's frame fits the current segment) or a return (but the
/// process's first function's) itself, and goes on at the callee's entry or the return
/// pc. Charges what ran to `st`; with `LINES`, the ticks of each instruction to its pc in
/// `lines` (library code's to the call site `st.site`), and the calls and returns, as
/// [`super::interp`] does.
#[inline(never)]
pub(super) fn run_stretches<const LINES: bool, const PREFIX: bool, const FLAT: bool>(
    code: &[Step],
    lim: &Limits<'_>,
    p: &mut Proc,
    mem: &mut Memory,
    stack: &mut Vec<Word>,
    st: &mut State,
    lines: Lines<'_>,
) {
    let cum = lim.cum;
    // The state in locals (registers), written back at the end.
    let mut c = st.c;
    let clock0 = c.clock;
    debug_assert_eq!(c.seq, 0, "a run of stretches starts its sequential ticks at 0");
    // The flat form charged every stretch it ran (see `ops`).
    let mut charged: bool;
    // Runs the operations of the stretch from `$s` to `$end`: the pc reached and the
    // target of the jump taken, if one was. With `$more`, the flat form goes on through
    // the stretches after it that may start and fit, charging them; `$s` and `$end` are
    // then those of the last one, not charged yet, or `charged` is set.
    macro_rules! ops {
        ($s:ident, $end:ident, $room:expr, $more:expr) => {{
            let (mut at, mut jumped) = ($s, None);
            charged = false;
            // Where the pool is all this processor's and no line costs are kept, the flat
            // form runs the stretch, or its start up to an operation without a flat kind.
            let mut rest = !FLAT || !lim.flat.get($s).is_some_and(|f| f.go);
            if !rest {
                let go = if $more { Some((lim, &mut c)) } else { None };
                let (s1, a, t) = flat::run_flat(lim.flat, p, mem, stack, $s, $end, go);
                charged = t == flat::CHARGED;
                if s1 != $s && !charged {
                    $s = s1;
                    $end = code[s1].end as usize;
                }
                at = a;
                rest = t == flat::HANDOFF;
                jumped = (t < flat::HANDOFF - 1).then_some(t);
            }
            let ctx = Ctx { display: &p.display, me: lim.me };
            while rest && at < $end {
                let x = &code[at];
                if PREFIX && cum[at + x.len as usize - 1] - cum[$s] >= $room {
                    // Its last instruction would start at or after the quantum's end.
                    break;
                }
                // The destination of the store that goes with the operation, if one does.
                let mut dst = usize::MAX;
                if x.put.is_some() {
                    let below = stack.len().checked_sub(x.pops as usize + 1);
                    match below.and_then(|b| slot(ctx, mem, int_of(&stack[b]) as i64)) {
                        Some(i) => dst = i,
                        None => break,
                    }
                }
                match run(&x.x, x.len as usize, ctx, mem, stack, at) {
                    Some(Ran::Next(k)) => {
                        if let Some(ty) = x.put {
                            // The operation left its value above the address checked.
                            let l = stack.len();
                            put_word(ty, &stack[l - 1], &mut mem.words[dst]);
                            stack.truncate(l - 2);
                        }
                        at = k
                    }
                    Some(Ran::Jumped(t)) => {
                        jumped = Some(t);
                        break;
                    }
                    Some(Ran::Transfer) | None => break,
                }
            }
            // The instructions run: those before `at`, and the jump's own.
            let e = match jumped {
                Some(_) => at + code[at].len as usize,
                None => at,
            };
            (at, jumped, e)
        }};
    }
    // Charges the instructions `$s..$e`, run from the current clock.
    macro_rules! charge {
        ($s:expr, $e:expr) => {{
            let (s, e) = ($s, $e);
            c.charge(lim, s, e);
            if LINES {
                let (pc_ticks, lib, ticks, site) = (&mut *lines.pc_ticks, lines.lib, lines.ticks, st.site);
                for k in s..e {
                    let to = if lib.get(k) == Some(&true) { site } else { k };
                    if let Some(t) = pc_ticks.get_mut(to) {
                        *t += ticks[code[k].op as usize];
                    }
                }
            }
        }};
    }
    let mut s = st.pc;
    while let Some(first) = code.get(s) {
        let mut end = first.end as usize;
        if !c.may_start(stack.len(), s, end) {
            break;
        }
        // The ticks from the stretch's start within which an operation's instructions
        // must all start: any, or, when the stretch does not fit (with `PREFIX`), those
        // left in the quantum; a short quantum then runs the operations that fit
        // translated too, and the one that straddles its end an instruction at a time,
        // as the interpreter would.
        let mut room = Ticks::MAX;
        if !c.fits(lim, s, end) {
            if !PREFIX {
                break;
            }
            room = c.qend.saturating_sub(c.clock);
        }
        let (mut at, mut jumped, mut e) = ops!(s, end, room, true);
        if charged {
            (st.pc, s) = (at, at);
            continue;
        }
        if e > s {
            charge!(s, e);
        }
        if jumped == Some(s) && e == end {
            // A loop whose body is this whole stretch: further iterations run back to
            // back while they fit (their last instruction starting before the quantum's
            // end, or at most at the last end that may be crossed), each charged the
            // same, and the crossings worked out once for them all.
            // (`s` and `end` those of the last stretch the flat form ran.)
            let max = c.loop_fit(lim, s, end);
            let h = stack.len();
            let mut done = 0u64;
            while done < max {
                let r = ops!(s, end, Ticks::MAX, false);
                if r.1 == Some(s) && r.2 == end && stack.len() == h && !charged {
                    done += 1;
                } else {
                    // An iteration that did not go round: charged as a stretch below.
                    (at, jumped, e) = r;
                    break;
                }
            }
            if done > 0 {
                c.charge_loop(lim, s, end, done);
                if LINES {
                    let (pc_ticks, lib, ticks, site) = (&mut *lines.pc_ticks, lines.lib, lines.ticks, st.site);
                    for k in s..end {
                        let to = if lib.get(k) == Some(&true) { site } else { k };
                        if let Some(t) = pc_ticks.get_mut(to) {
                            *t += done * ticks[code[k].op as usize];
                        }
                    }
                }
            }
            if done < max && e > s {
                charge!(s, e);
            }
        }
        if jumped.is_none() && at < end && (!PREFIX || cum[at] - cum[s] < room) {
            // A call or a return ends the stretch: run here when it can be, as the
            // interpreter runs it (with `LINES`, reported at the clock after it, and a call
            // from the program's own code moves the call site library time goes to).
            let to = match code[at].x {
                Op::Call(func) => call(p, mem, stack, lim, func, at).map(|t| (t, func)),
                Op::Ret(n) if !p.frames.is_empty() => {
                    ret(p, stack, n, lim.funcs).map(|fr| (fr.ret_pc as usize, fr.func | LEAVE))
                }
                _ => None,
            };
            if let Some((t, mark)) = to {
                charge!(at, at + 1);
                if LINES {
                    lines.calls.push((c.clock, mark));
                    if mark & LEAVE == 0 && lines.lib.get(at) != Some(&true) {
                        st.site = at;
                    }
                }
                (st.pc, s) = (t, t);
                continue;
            }
        }
        match jumped {
            Some(t) => (st.pc, s) = (t, t),
            None => {
                st.pc = at;
                if at < end {
                    st.bail = at;
                }
                break;
            }
        }
    }
    if let Some(at) = c.cross_at {
        st.cross_clock = at;
    }
    if let Some((s, e, from)) = c.last_cross {
        // The start of the first instruction at or after the last end crossed, the one
        // before the quantum's end now (the stretch crossed it, and none crossed another
        // after it).
        let (s, e, end) = (s as usize, e as usize, c.qend - lim.q);
        let k = s + cum[s..e].partition_point(|&t| from + (t - cum[s]) < end);
        st.cross_clock = from + (cum[k] - cum[s]);
    }
    if lim.seq_same {
        c.seq = c.clock - clock0;
    }
    st.c = c;
}

/// `CALL func` at `pc`, as the interpreter runs it when the callee's frame fits the current
/// frame segment or, that one full, the next segment the process kept (a loop of calls
/// from a process's bottom frame takes that one at every call): the callee's entry;
/// `None`, having changed nothing, when neither holds it or it would fail (the
/// interpreter then runs it, takes a new segment or reports the error).
fn call(
    p: &mut Proc,
    mem: &mut Memory,
    stack: &mut Vec<Word>,
    lim: &Limits<'_>,
    func: u32,
    pc: usize,
) -> Option<usize> {
    let f = *lim.funcs.get(func as usize)?;
    let n = f.frame.max(f.params);
    let place = p.frame_place(n)?;
    if p.frame_words.saturating_add(n) > lim.max_stack {
        return None;
    }
    // Fails having changed nothing (then the interpreter runs the call and reports it).
    push_frame_on::<false>(p, stack, mem, f, place.2, pc as u32 + 1).ok()?;
    p.take_place(place);
    Some(f.entry as usize)
}

/// `RET n` from a function other than the process's first (the caller checks): leaves its
/// frame, the `n` results in place of what the call's frame took, restores the display
/// entry of its function's depth (from `funcs`), and returns it; `None`, having changed
/// nothing, when the stack is shorter than the frame's base and the results.
pub(super) fn ret(p: &mut Proc, stack: &mut Vec<Word>, n: u32, funcs: &[FnLite]) -> Option<Frame> {
    let fr = *p.frames.last()?;
    let (l, n, sb) = (stack.len(), n as usize, fr.stack_base as usize);
    if l < n || sb > l - n {
        return None;
    }
    p.frames.pop();
    // Word by word: the results are few (a call through `memmove` costs more), most
    // often one.
    if n == 1 {
        stack[sb] = stack[l - 1];
    } else {
        for k in 0..n {
            stack[sb + k] = stack[l - n + k];
        }
    }
    stack.truncate(sb + n);
    let depth = funcs.get(fr.func as usize).map_or(usize::MAX, |f| f.depth as usize);
    if let Some(s) = p.display.get_mut(depth) {
        *s = fr.saved;
    }
    p.frame_words -= fr.words;
    if let Some(seg) = p.segs.get_mut(p.cur_seg as usize) {
        seg.top -= fr.words;
        // An emptied segment is kept for the next call.
        if seg.top == 0 && p.cur_seg > 0 {
            p.cur_seg -= 1;
        }
    }
    Some(fr)
}

/// Runs operation `x` (of `len` instructions) at `pc`. `None`, having changed nothing,
/// when one of its instructions would fail (the caller then runs the first one alone,
/// which reports the failure as usual), or for a `Stop`. The operations of inner loops
/// are here; the rest out of line ([`run_cold`]), so that this stays small.
#[inline(always)]
fn run(x: &Op, len: usize, p: Ctx<'_>, mem: &mut Memory, stack: &mut Vec<Word>, pc: usize) -> Option<Ran> {
    let next = pc + len;
    match *x {
        Op::Store { ty: Scalar::Int, keep: false } => {
            let &[a, v] = top::<2>(stack)?;
            let i = slot(p, mem, int_of(&a) as i64)?;
            mem.words[i] = Word::Int(int_of(&v));
            stack.truncate(stack.len() - 2);
        }
        Op::Store { ty: Scalar::Double, keep: false } => {
            let &[a, v] = top::<2>(stack)?;
            let i = slot(p, mem, int_of(&a) as i64)?;
            mem.words[i] = Word::Double(as_double(v));
            stack.truncate(stack.len() - 2);
        }
        Op::Const(w) => stack.push(w),
        Op::Un(ins) => {
            // Matched in place and written in each case: the word was just stored in parts.
            let x = stack.last_mut()?;
            match (ins, &*x) {
                (Instr::Convert { to: Scalar::Double }, &Word::Int(i)) => *x = Word::Double(f64::from(i)),
                (Instr::Convert { to: Scalar::Char }, &Word::Int(i)) => *x = Word::Char(i as u8),
                _ => *x = unary_out_of_line(ins, *x),
            }
        }
        Op::Set { depth, off, ty: Scalar::Int, v } => {
            let a = var(p, depth, off)? as i32;
            let w = int(p, mem, v)?;
            let i = slot(p, mem, a as i64)?;
            mem.words[i] = Word::Int(w);
        }
        Op::Push(Src::Int(v)) => stack.push(Word::Int(v)),
        Op::Push(Src::Var(d, o)) => {
            // Copied whole from its slot: a word taken apart (by an `Option`) is put
            // together again with stores that the next read cannot forward.
            let i = slot(p, mem, var(p, d, o)?)?;
            stack.push(mem.words[i]);
        }
        Op::Addr(d, o) => stack.push(Word::Int(var(p, d, o)? as i32)),
        Op::BinI { ins, a, b } => match (a, b) {
            (Src::Stack, Src::Stack) => {
                let &[x, y] = top::<2>(stack)?;
                let r = int_op(ins, int_of(&x), int_of(&y))?;
                stack.pop();
                *stack.last_mut()? = Word::Int(r);
            }
            (Src::Stack, b) => {
                let y = int(p, mem, b)?;
                let x = stack.last_mut()?;
                *x = Word::Int(int_op(ins, int_of(x), y)?);
            }
            (a, b) => {
                let r = int_op(ins, int(p, mem, a)?, int(p, mem, b)?)?;
                stack.push(Word::Int(r));
            }
        },
        Op::BinBinI { first, then } => {
            let &[x, y, z] = top::<3>(stack)?;
            let r = int_op(then, int_of(&x), int_op(first, int_of(&y), int_of(&z))?)?;
            let l = stack.len();
            stack[l - 3] = Word::Int(r);
            stack.truncate(l - 2);
        }
        Op::Bin2I { first, a, b, then, c } => {
            let r = int_op(first, int(p, mem, a)?, int(p, mem, b)?)?;
            let r = int_op(then, r, int(p, mem, c)?)?;
            stack.push(Word::Int(r));
        }
        Op::BranchI { cmp, a, b, when, target } => {
            let r = match (a, b) {
                (Src::Stack, Src::Stack) => {
                    let &[x, y] = top::<2>(stack)?;
                    let r = int_op(cmp, int_of(&x), int_of(&y))?;
                    stack.truncate(stack.len() - 2);
                    r
                }
                (Src::Stack, b) => {
                    let y = int(p, mem, b)?;
                    let r = int_op(cmp, int_of(stack.last()?), y)?;
                    stack.pop();
                    r
                }
                (a, b) => int_op(cmp, int(p, mem, a)?, int(p, mem, b)?)?,
            };
            if (r != 0) == when {
                return Some(Ran::Jumped(target as usize));
            }
        }
        Op::Bin { ins, a, b } => match (a, b) {
            (Src::Stack, Src::Stack) => {
                let l = stack.len();
                if l < 2 {
                    return None;
                }
                let y = stack[l - 1];
                let (x, dst) = (stack[l - 2], &mut stack[l - 2]);
                binary(ins, x, y, dst)?;
                stack.pop();
            }
            (Src::Stack, b) => {
                let y = get(p, mem, b)?;
                let dst = stack.last_mut()?;
                binary(ins, *dst, y, dst)?;
            }
            (a, b) => {
                let x = get(p, mem, a)?;
                let y = get(p, mem, b)?;
                stack.push(Word::Int(0));
                if binary(ins, x, y, stack.last_mut()?).is_none() {
                    stack.pop();
                    return None;
                }
            }
        },
        Op::BinBin { first, then } => {
            let &[x, y, z] = top::<3>(stack)?;
            let mut r = Word::Int(0);
            binary(first, y, z, &mut r)?;
            let l = stack.len();
            binary(then, x, r, &mut stack[l - 3])?;
            stack.truncate(l - 2);
        }
        Op::Bin2 { first, a, b, then, c } => {
            let x = get(p, mem, a)?;
            let y = get(p, mem, b)?;
            let mut r = Word::Int(0);
            binary(first, x, y, &mut r)?;
            let z = get(p, mem, c)?;
            stack.push(Word::Int(0));
            if binary(then, r, z, stack.last_mut()?).is_none() {
                stack.pop();
                return None;
            }
        }
        Op::Index { ix, load: ld } => {
            let (a, l) = match ix.i {
                Src::Stack => {
                    let &[b, i] = top::<2>(stack)?;
                    (index(int_of(&b), int_of(&i), ix.size, ix.len)?, stack.len() - 1)
                }
                s => {
                    let i = int(p, mem, s)?;
                    (index(int_of(stack.last()?), i, ix.size, ix.len)?, stack.len())
                }
            };
            if ld {
                let k = slot(p, mem, a as i64)?;
                stack[l - 1] = mem.words[k];
            } else {
                stack[l - 1] = Word::Int(a);
            }
            stack.truncate(l);
        }
        Op::Elem { depth, off, i, load: ld } => {
            let base = var(p, depth, off)? as i32;
            let a = index(base, int(p, mem, i.i)?, i.size, i.len)?;
            push_elem(p, mem, stack, a, ld)?;
        }
        Op::Elem2 { depth, off, i, j, load: ld } => {
            let base = var(p, depth, off)? as i32;
            let a = index(base, int(p, mem, i.i)?, i.size, i.len)?;
            let a = index(a, int(p, mem, j.i)?, j.size, j.len)?;
            push_elem(p, mem, stack, a, ld)?;
        }
        Op::ElemX { depth, off, e, size, len, load: ld } => {
            let base = var(p, depth, off)? as i32;
            let mut i = e.first.apply(int(p, mem, e.a)?, int(p, mem, e.b)?)?;
            if let Some((then, c)) = e.then {
                i = then.apply(i, int(p, mem, c)?)?;
            }
            let a = index(base, i, size, len)?;
            push_elem(p, mem, stack, a, ld)?;
        }
        Op::PElem { depth, off, i, load: ld } => {
            let p_at = slot(p, mem, i64::from(var(p, depth, off)? as i32))?;
            let base = int_of(&mem.words[p_at]);
            let a = index(base, int(p, mem, i.i)?, i.size, i.len)?;
            push_elem(p, mem, stack, a, ld)?;
        }
        Op::AccI { n, k } => {
            let top = stack.last_mut()?;
            let mut x = int_of(top);
            for &(op, b) in &k[..n as usize] {
                x = op.apply(x, int(p, mem, b)?)?;
            }
            *top = Word::Int(x);
        }
        Op::Deref => {
            let w = stack.last_mut()?;
            let i = slot(p, mem, int_of(w) as i64)?;
            *w = mem.words[i];
        }
        Op::IncJump { depth, off, delta, wide, target } => {
            let (w, r) = updated(p, mem, depth, off, wide)?;
            mem.words[w] = Word::Int(int_of(&mem.words[r]).wrapping_add(delta));
            return Some(Ran::Jumped(target as usize));
        }
        Op::IncVar { depth, off, delta, wide } => {
            let (w, r) = updated(p, mem, depth, off, wide)?;
            mem.words[w] = Word::Int(int_of(&mem.words[r]).wrapping_add(delta));
        }
        Op::AddrDeref(d, o) => {
            let a = var(p, d, o)? as i32;
            let i = slot(p, mem, a as i64)?;
            stack.push(Word::Int(a));
            stack.push(mem.words[i]);
        }
        Op::Pop(n) => {
            let l = stack.len().saturating_sub(n as usize);
            stack.truncate(l);
        }
        Op::Dup => stack.push(*stack.last()?),
        Op::Jump(t) => return Some(Ran::Jumped(t as usize)),
        Op::Call(_) | Op::Ret(_) => return Some(Ran::Transfer),
        Op::Branch { cmp, a, b, when, target } => {
            let r = match (a, b) {
                (Src::Stack, Src::Stack) => {
                    let &[x, y] = top::<2>(stack)?;
                    let r = compare(cmp, x, y)?;
                    stack.truncate(stack.len() - 2);
                    r
                }
                (Src::Stack, b) => {
                    let y = get(p, mem, b)?;
                    let r = compare(cmp, *stack.last()?, y)?;
                    stack.pop();
                    r
                }
                (a, b) => compare(cmp, get(p, mem, a)?, get(p, mem, b)?)?,
            };
            if r == when {
                return Some(Ran::Jumped(target as usize));
            }
        }
        Op::JumpIf { when, target } => {
            let w = stack.pop()?;
            if truthy(w) == when {
                return Some(Ran::Jumped(target as usize));
            }
        }

        _ => return run_cold(x, len, p, mem, stack, pc),
    }
    Some(Ran::Next(next))
}

/// [`run`] of the other operations.
#[inline(never)]
fn run_cold(x: &Op, len: usize, p: Ctx<'_>, mem: &mut Memory, stack: &mut Vec<Word>, pc: usize) -> Option<Ran> {
    match *x {
        Op::Stop => return None,
        Op::Push(s) => stack.push(get(p, mem, s)?),
        Op::UpdI { depth, off, op, b, wide } => {
            let (w, r) = updated(p, mem, depth, off, wide)?;
            let v = op.apply(int_of(&mem.words[r]), int(p, mem, b)?)?;
            mem.words[w] = Word::Int(v);
        }
        Op::ElemSet { depth, off, i, v, ty } => {
            let base = var(p, depth, off)? as i32;
            let a = index(base, int(p, mem, i.i)?, i.size, i.len)?;
            let w = get(p, mem, v)?;
            let k = slot(p, mem, a as i64)?;
            put_word(ty, &w, &mut mem.words[k]);
        }
        Op::Store { ty, keep } => {
            let &[a, v] = top::<2>(stack)?;
            let v = convert(v, ty);
            let i = slot(p, mem, as_int(a) as i64)?;
            mem.words[i] = v;
            stack.truncate(stack.len() - 2);
            if keep {
                stack.push(v);
            }
        }
        Op::Set { depth, off, ty, v } => {
            let a = var(p, depth, off)? as i32;
            let w = convert(get(p, mem, v)?, ty);
            let i = slot(p, mem, a as i64)?;
            mem.words[i] = w;
        }
        Op::IncDec { ty, delta, pre } => {
            let a = as_int(*stack.last()?) as i64;
            let i = slot(p, mem, a)?;
            let old = mem.words[i];
            let new = inc_dec(old, ty, delta);
            mem.words[i] = new;
            *stack.last_mut()? = if pre { new } else { convert(old, ty) };
        }
        Op::Swap => {
            let l = stack.len();
            if l < 2 {
                return None;
            }
            stack.swap(l - 1, l - 2);
        }
        Op::PopTo { depth, off, ty } => {
            // As `STORE` takes the address `LDADDR` pushed: an `int`.
            let a = var(p, depth, off)? as i32;
            let v = *stack.last()?;
            let i = slot(p, mem, a as i64)?;
            mem.words[i] = convert(v, ty);
            stack.pop();
        }
        _ => return run(x, len, p, mem, stack, pc),
    }
    Some(Ran::Next(pc + len))
}

/// The charges of the code on one processor type: `cum[k]`, the ticks of the
/// instructions before pc `k` (and of the sequential time, `seq[k]`), so that running
/// `s..e` straight costs `cum[e] - cum[s]`. Empty when a sum would pass `u64` (absurd
/// costs): the interpreter then runs every instruction alone.
#[derive(Default)]
pub(super) struct Charges {
    pub(super) cum: Vec<Ticks>,
    pub(super) seq: Vec<Ticks>,
    /// The most ticks of one translated instruction: a stretch may cross quantum ends
    /// only when no instruction of it is longer than a quantum (so it crosses each end
    /// at the first instruction starting after it, as the interpreter's loop top does).
    pub(super) tmax: Ticks,
    /// The sequential ticks are the ticks (a processor of the reference speed and costs
    /// with timing on): a stretch's sequential time is then its clock's advance, added
    /// once at the end of a run of stretches instead of at each ([`Limits::seq_same`]).
    pub(super) seq_same: bool,
}

impl Charges {
    /// The charges of `prog` under the per-slot tables `ticks` and `seq`.
    pub(super) fn new(ticks: &[Ticks; 256], seq: &[Ticks; 256], prog: &[Step]) -> Charges {
        let mut c = Charges {
            cum: Vec::with_capacity(prog.len() + 1),
            seq: Vec::with_capacity(prog.len() + 1),
            tmax: 0,
            seq_same: false,
        };
        let (mut t, mut s) = (0 as Ticks, 0 as Ticks);
        c.cum.push(0);
        c.seq.push(0);
        for st in prog {
            match (t.checked_add(ticks[st.op as usize]), s.checked_add(seq[st.op as usize])) {
                (Some(a), Some(b)) => (t, s) = (a, b),
                _ => return Charges::default(),
            }
            c.cum.push(t);
            c.seq.push(s);
            if st.x != Op::Stop {
                c.tmax = c.tmax.max(ticks[st.op as usize]);
            }
        }
        c.seq_same = c.seq == c.cum;
        c
    }
}

#[cfg(test)]
mod tests {
    use super::{Clock, Ix, IxExpr, Limits, Op, Src, Step};
    use crate::sim::engine::arith::{int_op, IntOp};
    use crate::vcode::{Instr::*, Scalar, Word};

    /// The interpreter crosses a quantum end at the first instruction that starts at or
    /// after it (`clock >= qend` at its loop top), so a stretch charged whole must too:
    /// instructions of 4, 6 and 3 ticks from clock 0 start at 0, 4 and 10, and with the
    /// quantum ending at 10 the third starts on the end. Charging the first two crosses
    /// nothing; charging all three crosses it once, at the third instruction (clock 10),
    /// and the next end is 20.
    #[test]
    fn a_stretch_whose_last_instruction_starts_on_the_quantum_end_crosses_it() {
        let cum = [0, 4, 10, 13];
        let lim = Limits {
            cum: &cum,
            cum_seq: &cum,
            seq_same: false,
            q: 10,
            cross_max: u64::MAX,
            crossable: true,
            me: u32::MAX,
            funcs: &[],
            max_stack: 0,
            flat: &[],
        };
        let start = Clock { clock: 0, qend: 10, steps: 100, ..Clock::default() };
        let mut c = start;
        c.charge(&lim, 0, 2);
        assert_eq!((c.clock, c.qend, c.crossed, c.last_cross), (10, 10, 0, None));
        let mut c = start;
        c.charge(&lim, 0, 3);
        assert_eq!((c.clock, c.qend, c.crossed, c.steps, c.seq), (13, 20, 1, 97, 13));
        // Its stretch and the clock at the stretch's start (the end crossed is the one
        // before the quantum's end now: 10).
        assert_eq!(c.last_cross, Some((0, 3, 0)));
        // With the end a tick earlier the third instruction starts past it: crossed once
        // too; a tick later it starts before it: nothing is crossed.
        for (qend, after, crossed) in [(9, 19, 1), (11, 11, 0)] {
            let mut c = Clock { qend, ..start };
            c.charge(&lim, 0, 3);
            assert_eq!((c.qend, c.crossed), (after, crossed), "quantum ending at {qend}");
        }
    }

    #[test]
    fn an_index_is_in_bounds_exactly_when_it_is_in_0_to_len() {
        // `INDEX size len` of base 100, size 3: `100 + 3 i` when `0 <= i < len` (any `i`
        // when `len` is 0, unchecked), else a bound error. Edges of both signs, and
        // bounds past 2^31, where a negative index read as unsigned would fall below them.
        let cases: [(i32, u32, Option<i32>); 12] = [
            (0, 1, Some(100)),
            (5, 6, Some(115)),
            (6, 6, None),
            (-1, 6, None),
            (-1, 0, Some(97)),
            (i32::MIN, 0, Some(100i32.wrapping_add(i32::MIN.wrapping_mul(3)))),
            (-1, u32::MAX, None),
            (i32::MIN, (1 << 31) + 1, None),
            (i32::MAX, 1 << 31, Some(100i32.wrapping_add(i32::MAX.wrapping_mul(3)))),
            (i32::MAX, (1 << 31) - 1, None),
            (1 << 30, u32::MAX, Some(100i32.wrapping_add((1i32 << 30).wrapping_mul(3)))),
            (-2, 1 << 31, None),
        ];
        for (i, len, want) in cases {
            assert_eq!(super::index(100, i, 3, len), want, "i {i} len {len}");
        }
    }

    #[test]
    fn an_index_operation_computes_what_its_instruction_computes() {
        use crate::vcode::Instr as I;
        let ops = [
            I::AddI {},
            I::AddrAdd { size: 1 },
            I::SubI {},
            I::MulI {},
            I::DivI {},
            I::ModI {},
            I::Shl {},
            I::Shr {},
            I::BitAnd {},
            I::BitOr {},
            I::BitXor {},
        ];
        let vals = [0, 1, -1, 2, -7, 31, 32, 33, 200, i32::MAX, i32::MIN, -2_000_000_000];
        for ins in ops {
            let op = IntOp::of(ins).expect("an index operation");
            for x in vals {
                for y in vals {
                    assert_eq!(op.apply(x, y), int_op(ins, x, y), "{ins:?} {x} {y}");
                }
            }
        }
        // Comparisons and the unsigned operations are not index operations.
        assert_eq!(IntOp::of(I::LtI {}), None);
        assert_eq!(IntOp::of(I::DivU {}), None);
    }

    #[test]
    fn a_folded_condition_holds_when_its_branch_jumps() {
        // A compare-and-branch jumps when the comparison's truth (`int_op`'s result not 0)
        // is `when`: the condition folded from both holds exactly then, signed and
        // unsigned, at the ends of the range.
        use crate::sim::engine::arith::Cond;
        use crate::vcode::Instr as I;
        let cmps = [
            I::LtI {},
            I::LeI {},
            I::GtI {},
            I::GeI {},
            I::EqI {},
            I::NeI {},
            I::LtU {},
            I::LeU {},
            I::GtU {},
            I::GeU {},
        ];
        let vals = [0, 1, -1, 2, -7, 200, i32::MAX, i32::MIN, i32::MIN + 1];
        for cmp in cmps {
            for when in [false, true] {
                let c = Cond::of(cmp, when).expect("an int comparison");
                for x in vals {
                    for y in vals {
                        let jumps = (int_op(cmp, x, y).expect("a comparison") != 0) == when;
                        assert_eq!(c.holds(x, y), jumps, "{cmp:?} {when} {x} {y}");
                    }
                }
            }
        }
        // Arithmetic is not a condition.
        assert_eq!(Cond::of(I::AddI {}, true), None);
    }

    #[test]
    fn both_spellings_of_a_variable_s_update_are_one_operation() {
        // `x = x - y;` (5 instructions: the value read by LDVal) and `x -= y;` (6: read
        // through the address, DUP and DEREF), with y a variable or a constant, for
        // every `int` operation: one operation each.
        use crate::vcode::Instr as I;
        let ops: [(I, IntOp); 10] = [
            (I::AddI {}, IntOp::Add),
            (I::SubI {}, IntOp::Sub),
            (I::MulI {}, IntOp::Mul),
            (I::DivI {}, IntOp::Div),
            (I::ModI {}, IntOp::Mod),
            (I::Shl {}, IntOp::Shl),
            (I::Shr {}, IntOp::Shr),
            (I::BitAnd {}, IntOp::And),
            (I::BitOr {}, IntOp::Or),
            (I::BitXor {}, IntOp::Xor),
        ];
        let store = I::Store { ty: Scalar::Int, keep: false };
        for (ins, op) in ops {
            for (y, b) in [(I::LdVal { depth: 1, off: 4 }, Src::Var(1, 4)), (I::PushI { v: 9 }, Src::Int(9))] {
                let set = [I::LdAddr { depth: 1, off: 2 }, I::LdVal { depth: 1, off: 2 }, y, ins, store];
                let upd = [I::LdAddr { depth: 1, off: 2 }, I::Dup {}, I::Dereference {}, y, ins, store];
                // (`x = x + 9;` and `x = x - 9;` are the increment of a constant.)
                let want = match (op, b) {
                    (IntOp::Add, Src::Int(c)) => Op::IncVar { depth: 1, off: 2, delta: c, wide: true },
                    (IntOp::Sub, Src::Int(c)) => Op::IncVar { depth: 1, off: 2, delta: -c, wide: true },
                    _ => Op::UpdI { depth: 1, off: 2, op, b, wide: true },
                };
                assert_eq!(Op::at(&set, 0), (want, 5), "{ins:?}");
                assert_eq!(Op::at(&upd, 0), (Op::UpdI { depth: 1, off: 2, op, b, wide: false }, 6), "{ins:?}");
            }
        }
        // Not an update: another variable read (`x = z - y;`), a `char` store, an
        // unsigned division, a comparison.
        let other =
            [I::LdAddr { depth: 1, off: 2 }, I::LdVal { depth: 1, off: 3 }, I::PushI { v: 1 }, I::SubI {}, store];
        assert_eq!(Op::at(&other, 0), (Op::Addr(1, 2), 1));
        let char_store = Store { ty: Scalar::Char, keep: false };
        let ch =
            [I::LdAddr { depth: 1, off: 2 }, I::Dup {}, I::Dereference {}, I::PushI { v: 1 }, I::AddI {}, char_store];
        assert_eq!(Op::at(&ch, 0), (Op::AddrDeref(1, 2), 3));
        for ins in [I::DivU {}, I::LtI {}] {
            let u = [I::LdAddr { depth: 1, off: 2 }, I::Dup {}, I::Dereference {}, I::PushI { v: 1 }, ins, store];
            assert_eq!(Op::at(&u, 0), (Op::AddrDeref(1, 2), 3));
        }
    }

    #[test]
    fn an_element_given_a_variable_or_constant_is_one_operation() {
        // `a[i] = y;` (5 instructions), `c[i] = 1;` on a char array (6: the constant
        // converted to the stored type first); not with a conversion to another type, nor
        // with a value computed on the stack.
        use crate::vcode::Instr as I;
        let ix = Ix { i: Src::Var(1, 0), size: 1, len: 9 };
        let head = [I::LdAddr { depth: 0, off: 4 }, I::LdVal { depth: 1, off: 0 }, I::Index { size: 1, len: 9 }];
        let st = |ty| I::Store { ty, keep: false };
        let mut set = head.to_vec();
        set.extend([I::LdVal { depth: 1, off: 3 }, st(Scalar::Int)]);
        let want = Op::ElemSet { depth: 0, off: 4, i: ix, v: Src::Var(1, 3), ty: Scalar::Int };
        assert_eq!(Op::at(&set, 0), (want, 5));
        let mut ch = head.to_vec();
        ch.extend([I::PushI { v: 1 }, I::Convert { to: Scalar::Char }, st(Scalar::Char)]);
        let want = Op::ElemSet { depth: 0, off: 4, i: ix, v: Src::Int(1), ty: Scalar::Char };
        assert_eq!(Op::at(&ch, 0), (want, 6));
        let mut other = head.to_vec();
        other.extend([I::PushI { v: 1 }, I::Convert { to: Scalar::Float }, st(Scalar::Double)]);
        assert_eq!(Op::at(&other, 0), (Op::Elem { depth: 0, off: 4, i: ix, load: false }, 3));
        let mut sum = head.to_vec();
        sum.extend([I::LdVal { depth: 1, off: 3 }, I::PushI { v: 1 }, I::AddI {}, st(Scalar::Int)]);
        assert_eq!(Op::at(&sum, 0), (Op::Elem { depth: 0, off: 4, i: ix, load: false }, 3));
    }

    #[test]
    fn the_spellings_of_a_dot_product_translate_to_the_same_few_operations() {
        // `s = s + a[i][k] * b[k][j];` as cpcc emits it (a at 0, b at 40000, i j k s at
        // 1 0..=3), then `s = a[i][k] * b[k][j] + s;`: 17 instructions in 5 operations
        // each, whichever side the sum is on, the last with the `STORE` after it.
        let a = Op::Elem2 {
            depth: 0,
            off: 0,
            i: Ix { i: Src::Var(1, 0), size: 200, len: 200 },
            j: Ix { i: Src::Var(1, 2), size: 1, len: 200 },
            load: true,
        };
        let b = Op::Elem2 {
            depth: 0,
            off: 40000,
            i: Ix { i: Src::Var(1, 2), size: 200, len: 200 },
            j: Ix { i: Src::Var(1, 1), size: 1, len: 200 },
            load: true,
        };
        let elem = |off: u32, i: u32, j: u32, n: u32| {
            vec![
                LdAddr { depth: 0, off },
                LdVal { depth: 1, off: i },
                Index { size: n, len: n },
                LdVal { depth: 1, off: j },
                Index { size: 1, len: n },
                Dereference {},
            ]
        };
        let mut left = vec![LdAddr { depth: 1, off: 3 }, LdVal { depth: 1, off: 3 }];
        left.extend(elem(0, 0, 2, 200));
        left.extend(elem(40000, 2, 1, 200));
        left.extend([MulI {}, AddI {}, Store { ty: Scalar::Int, keep: false }]);
        // The operations, and for each the type of the store run with it and the words
        // its operation pops.
        let with_puts = |code: &[crate::vcode::Instr]| {
            let steps = Step::all(code);
            let mut pc = 0;
            let mut out = Vec::new();
            while pc < code.len() {
                out.push((steps[pc].x, steps[pc].put.map(|ty| (ty, steps[pc].pops))));
                pc += steps[pc].len as usize;
            }
            out
        };
        let ops = |code: &[crate::vcode::Instr]| with_puts(code).into_iter().map(|(x, _)| x).collect::<Vec<_>>();
        let mul_add = Op::BinBinI { first: MulI {}, then: AddI {} };
        assert_eq!(ops(&left), vec![Op::Addr(1, 3), Op::Push(Src::Var(1, 3)), a, b, mul_add]);
        // The sum pops the address's three words above it (s, and the two elements).
        assert_eq!(with_puts(&left)[4].1, Some((Scalar::Int, 3)));
        let mut right = vec![LdAddr { depth: 1, off: 3 }];
        right.extend(elem(0, 0, 2, 200));
        right.extend(elem(40000, 2, 1, 200));
        right.extend([MulI {}, LdVal { depth: 1, off: 3 }, AddI {}, Store { ty: Scalar::Int, keep: false }]);
        let mul = Op::BinI { ins: MulI {}, a: Src::Stack, b: Src::Stack };
        let add = Op::BinI { ins: AddI {}, a: Src::Stack, b: Src::Var(1, 3) };
        assert_eq!(ops(&right), vec![Op::Addr(1, 3), a, b, mul, add]);
        assert_eq!(with_puts(&right)[4].1, Some((Scalar::Int, 1)));
        // A loop's test, `k < 200` (4 instructions), `k++;` (3) and `k = k + 1;` (5), and
        // a 1-D index `i * 200 + k` (5): one operation each.
        let test = [LdVal { depth: 1, off: 2 }, PushI { v: 200 }, LtI {}, JumpIfFalse { target: 9 }];
        assert_eq!(
            ops(&test),
            vec![Op::BranchI { cmp: LtI {}, a: Src::Var(1, 2), b: Src::Int(200), when: false, target: 9 }]
        );
        let inc = [LdAddr { depth: 1, off: 2 }, IncDec { ty: Scalar::Int, delta: 1, pre: false }, Pop { n: 1 }];
        assert_eq!(ops(&inc), vec![Op::IncVar { depth: 1, off: 2, delta: 1, wide: false }]);
        // With the jump back to the loop's test: one operation that ends the stretch.
        let mut back = inc.to_vec();
        back.push(Jump { target: 0 });
        assert_eq!(ops(&back), vec![Op::IncJump { depth: 1, off: 2, delta: 1, wide: false, target: 0 }]);
        let add1 = [
            LdAddr { depth: 1, off: 2 },
            LdVal { depth: 1, off: 2 },
            PushI { v: 1 },
            AddI {},
            Store { ty: Scalar::Int, keep: false },
        ];
        assert_eq!(ops(&add1), vec![Op::IncVar { depth: 1, off: 2, delta: 1, wide: true }]);
        // A 1-D element `a[i * 200 + k]` (8 instructions), and `a[i + 1]` (6): one each.
        let flat_elem = [
            LdAddr { depth: 0, off: 1 },
            LdVal { depth: 1, off: 0 },
            PushI { v: 200 },
            MulI {},
            LdVal { depth: 1, off: 2 },
            AddI {},
            Index { size: 1, len: 40000 },
            Dereference {},
        ];
        let e =
            IxExpr { first: IntOp::Mul, a: Src::Var(1, 0), b: Src::Int(200), then: Some((IntOp::Add, Src::Var(1, 2))) };
        assert_eq!(ops(&flat_elem), vec![Op::ElemX { depth: 0, off: 1, e, size: 1, len: 40000, load: true }]);
        let next = [
            LdAddr { depth: 0, off: 1 },
            LdVal { depth: 1, off: 0 },
            PushI { v: 1 },
            AddI {},
            Index { size: 2, len: 9 },
        ];
        let e = IxExpr { first: IntOp::Add, a: Src::Var(1, 0), b: Src::Int(1), then: None };
        assert_eq!(ops(&next), vec![Op::ElemX { depth: 0, off: 1, e, size: 2, len: 9, load: false }]);
        // `p[i]` of a pointer variable (5), and `... / 2 + i + 1` on the value on the stack
        // (6): one each.
        let pelem = [
            LdAddr { depth: 1, off: 0 },
            Dereference {},
            LdVal { depth: 1, off: 2 },
            Index { size: 1, len: 0 },
            Dereference {},
        ];
        let ix = Ix { i: Src::Var(1, 2), size: 1, len: 0 };
        assert_eq!(ops(&pelem), vec![Op::PElem { depth: 1, off: 0, i: ix, load: true }]);
        // The same with the index converted to `int` first (the library's `strlen`,
        // `s[n]`): `CONV int` changes nothing before `INDEX`, which converts its index
        // itself, so the six instructions are one operation too.
        let mut conv = pelem.to_vec();
        conv.insert(3, Convert { to: Scalar::Int });
        assert_eq!(ops(&conv), vec![Op::PElem { depth: 1, off: 0, i: ix, load: true }]);
        let chain = [PushI { v: 2 }, DivI {}, LdVal { depth: 1, off: 2 }, AddI {}, PushI { v: 1 }, AddI {}];
        let k = [(IntOp::Div, Src::Int(2)), (IntOp::Add, Src::Var(1, 2)), (IntOp::Add, Src::Int(1))];
        assert_eq!(ops(&chain), vec![Op::AccI { n: 3, k }]);
        // A constant converted is a constant (`c = 1;` of a `char c`).
        assert_eq!(ops(&[PushI { v: 65 }, Convert { to: Scalar::Char }]), vec![Op::Const(Word::Char(65))]);
        let flat = [LdVal { depth: 1, off: 0 }, PushI { v: 200 }, MulI {}, LdVal { depth: 1, off: 2 }, AddI {}];
        assert_eq!(
            ops(&flat),
            vec![Op::Bin2I { first: MulI {}, a: Src::Var(1, 0), b: Src::Int(200), then: AddI {}, c: Src::Var(1, 2) }]
        );
        // A stretch ends at the first instruction run alone, or after a jump; every pc
        // has its own.
        let code = [
            LdVal { depth: 1, off: 0 },
            PushI { v: 1 },
            AddI {},
            Pop { n: 1 },
            Jump { target: 0 },
            PushI { v: 2 },
            SimTime {},
            Call { func: 0 },
            PushI { v: 3 },
        ];
        let steps = Step::all(&code);
        // `SIMTIME` is run alone; a call ends the stretch it is in (after it).
        assert_eq!(steps.iter().map(|s| s.end).collect::<Vec<_>>(), vec![5, 5, 5, 5, 5, 6, 6, 8, 9]);
        assert_eq!(steps[7].x, Op::Call(0));
        assert_eq!(steps[1].x, Op::BinI { ins: AddI {}, a: Src::Stack, b: Src::Int(1) }, "from pc 1: `PUSHI 1; ADDI`");
        assert_eq!(steps[6].x, Op::Stop);
    }
}
