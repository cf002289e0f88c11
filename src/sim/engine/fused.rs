//! The interpreter's superinstructions: the common instruction sequences of compiled CPC
//! (loop tests, `i++`, `a[i][j]`, `s = s + x * y`, …) decoded when the program is loaded
//! ([`Step`], [`Fused`]) and run in one dispatch each ([`run_fused`]), with their charges per
//! processor ([`FusedCost`]); and the inner loop of a matrix product run whole
//! ([`dot_loop`], [`LoopTiming`]). [`super::interp`] decides when they may run; they only
//! replace its dispatch, so every result is the one of the instructions run one by one.
//! Depends on the process type of [`super`] and on the memory pool.
use super::interp::Tables;
use super::{as_double, as_float, as_int, Proc};
use crate::sim::memory::Memory;
use crate::time::Ticks;
use crate::vcode::{Instr, Scalar, Word};

/// One instruction of the code with its cost slot (its opcode, or a global variable
/// access's own slot: [`crate::vcode::cost::cost_slot`]), so charging it needs no decoding, and
/// the superinstruction that starts at it ([`Fused`]), decoded when the program is loaded.
#[derive(Clone, Copy)]
pub(super) struct Step {
    pub(super) ins: Instr,
    pub(super) op: u8,
    pub(super) fused: Fused,
    /// The step is the body of a dot-product loop ([`dot_loop`]): its superinstruction is
    /// a [`Fused::DotStep`] and the one after it an [`Fused::IncTest`] whose test jumps
    /// back to it.
    pub(super) dot_loop: bool,
}

impl Step {
    /// The steps of `code`, in order.
    pub(super) fn all(code: &[Instr]) -> Vec<Step> {
        let mut steps: Vec<Step> = (0..code.len())
            .map(|pc| Step {
                ins: code[pc],
                op: crate::vcode::cost::cost_slot(&code[pc]),
                fused: Fused::at(code, pc),
                dot_loop: false,
            })
            .collect();
        for pc in 0..steps.len() {
            let body = steps[pc].fused;
            steps[pc].dot_loop = matches!(body, Fused::DotStep { .. })
                && matches!(steps.get(pc + body.len()), Some(Step { fused: Fused::IncTest { back, .. }, .. })
                    if *back as usize + 4 == pc);
        }
        steps
    }
}

/// An `*I` comparison, as the comparison instructions compute it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    fn of(ins: Instr) -> Option<Cmp> {
        Some(match ins {
            Instr::EqI {} => Cmp::Eq,
            Instr::NeI {} => Cmp::Ne,
            Instr::LtI {} => Cmp::Lt,
            Instr::LeI {} => Cmp::Le,
            Instr::GtI {} => Cmp::Gt,
            Instr::GeI {} => Cmp::Ge,
            _ => return None,
        })
    }

    #[inline(always)]
    fn test(self, a: i32, b: i32) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }
}

/// The right operand of a fused comparison: `PUSHI v`, or `LDVal depth off`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Rhs {
    Const(i32),
    Var(u8, u32),
}

/// `LDVal depth off; INDEX size len`: an index taken from a variable.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Ix {
    depth: u8,
    off: u32,
    size: u32,
    len: u32,
}

/// A superinstruction: a run of consecutive instructions that the compiler emits often,
/// executed in one dispatch. It only replaces the dispatch: [`interp`] runs it only when
/// the unfused instructions would all run in this call (no quantum end, step limit or
/// working stack limit between them, which it checks conservatively beforehand) and, in
/// [`run_fused`], only when none of them fails; otherwise it runs the first instruction
/// alone, as always. It is charged the sum of its instructions' costs ([`Tables::fused`]),
/// so clocks, statistics and run records are the same with or without it. It is used
/// only without remote-access bookkeeping and without the debugger (`CHECK`, `DEBUG`
/// false), where no instruction can leave the loop early. Jumps may land on any of its
/// instructions: each pc has its own [`Step`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Fused {
    None,
    /// `LDVal depth off; PUSHI c | LDVal; <cmp>I; JPF target` (4 instructions): a loop test.
    CmpJump {
        depth: u8,
        off: u32,
        rhs: Rhs,
        cmp: Cmp,
        target: u32,
    },
    /// `LDADDR depth off; INCDEC int delta _; POP 1` (3), and `JMP target` (4) when
    /// `jump` is set: `i++;` (closing a loop).
    IncVar {
        depth: u8,
        off: u32,
        delta: i32,
        jump: Option<u32>,
    },
    /// `LDADDR depth off; LDVal; INDEX; LDVal; INDEX; Dereference` (6): `a[i][j]` of a
    /// variable array.
    Elem2 {
        depth: u8,
        off: u32,
        i: Ix,
        j: Ix,
    },
    /// `LDADDR depth off; LDVal; INDEX; Dereference` (4): `a[i]`.
    Elem1 {
        depth: u8,
        off: u32,
        i: Ix,
    },
    /// `LDADDR depth off; LDVal depth1 off1` (2): the start of `x = x ...`.
    AddrVal {
        depth: u8,
        off: u32,
        depth1: u8,
        off1: u32,
    },
    /// `MULI; ADDI` (2): `s + x * y` (or `MULF; ADDF`, `MULD; ADDD`: [`Arith`]).
    MulAdd {
        ty: Arith,
    },
    /// `MULI; ADDI; STORE int 0` (3): `v = s + x * y;` (or of `float`s, `double`s).
    MulAddStore {
        ty: Arith,
    },
    /// `IncVar` with its `JMP back` (4) and the `CmpJump` at `back` (4): the end of a
    /// `for` loop's body, its `i++` and its test (8 instructions).
    IncTest {
        depth: u8,
        off: u32,
        delta: i32,
        back: u32,
        test: Test,
    },
    /// `AddrElem2` and the `Elem2MulAddStore` after it (17): `s = s + a[i][k] * b[k][j];`;
    /// or `AddrDeref` and the same (18): `s += a[i][k] * b[k][j];` (of ints, floats or
    /// doubles).
    DotStep {
        depth: u8,
        off: u32,
        sum: Sum,
        a: Elem,
        b: Elem,
        ty: Arith,
    },
    /// `LDADDR depth off; DUP; Dereference` (3): the start of `x += ...`.
    AddrDeref {
        depth: u8,
        off: u32,
    },
    /// `Elem2` and the `MulAddStore` after it (9): `... + x * a[i][j];`.
    Elem2MulAddStore {
        elem: Elem,
        ty: Arith,
    },
    /// `AddrVal` and the `Elem2` after it (8): `s = s + a[i][j] ...`.
    AddrElem2 {
        depth: u8,
        off: u32,
        depth1: u8,
        off1: u32,
        elem: Elem,
    },
}

/// The type of a multiply-add superinstruction's arithmetic: `MULI; ADDI` (wrapping), `MULF;
/// ADDF` or `MULD; ADDD`; its store (if any) is of the same type, so it converts nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Arith {
    Int,
    Float,
    Double,
}

impl Arith {
    fn of(mul: Instr, add: Instr) -> Option<Arith> {
        match (mul, add) {
            (Instr::MulI {}, Instr::AddI {}) => Some(Arith::Int),
            (Instr::MulF {}, Instr::AddF {}) => Some(Arith::Float),
            (Instr::MulD {}, Instr::AddD {}) => Some(Arith::Double),
            _ => None,
        }
    }

    fn scalar(self) -> Scalar {
        match self {
            Arith::Int => Scalar::Int,
            Arith::Float => Scalar::Float,
            Arith::Double => Scalar::Double,
        }
    }

    /// `s + x * y` as the two instructions compute it: the product of the operands
    /// converted to the type, then the sum (rounded after each, as two instructions).
    #[inline(always)]
    fn mul_add(self, s: Word, x: Word, y: Word) -> Word {
        match self {
            Arith::Int => Word::Int(as_int(s).wrapping_add(as_int(x).wrapping_mul(as_int(y)))),
            Arith::Float => Word::Float(as_float(s) + as_float(x) * as_float(y)),
            Arith::Double => Word::Double(as_double(s) + as_double(x) * as_double(y)),
        }
    }
}

/// Where a [`Fused::DotStep`] reads the sum it adds to: `LDVal depth off` (`s = s + ...`),
/// or `DUP; Dereference` of the address it stores to (`s += ...`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Sum {
    Var(u8, u32),
    Stored,
}

/// The operands of a `CmpJump` in a bigger superinstruction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Test {
    depth: u8,
    off: u32,
    rhs: Rhs,
    cmp: Cmp,
    target: u32,
}

/// The operands of an `Elem2` in a bigger superinstruction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Elem {
    depth: u8,
    off: u32,
    i: Ix,
    j: Ix,
}

/// The most instructions a [`Fused`] stands for, and more than the most words it grows
/// the working stack by on the way (`AddrElem2`: 5).
pub(super) const FUSED_MAX: usize = 18;

impl Fused {
    /// The superinstruction starting at `code[pc]`, if any.
    fn at(code: &[Instr], pc: usize) -> Fused {
        match Fused::simple(code.get(pc..).unwrap_or(&[])) {
            Fused::IncVar { depth, off, delta, jump: Some(back) } => {
                match Fused::simple(code.get(back as usize..).unwrap_or(&[])) {
                    Fused::CmpJump { depth: d, off: o, rhs, cmp, target } => {
                        let test = Test { depth: d, off: o, rhs, cmp, target };
                        Fused::IncTest { depth, off, delta, back, test }
                    }
                    _ => Fused::IncVar { depth, off, delta, jump: Some(back) },
                }
            }
            Fused::AddrVal { depth, off, depth1, off1 } => match Fused::simple(code.get(pc + 2..).unwrap_or(&[])) {
                Fused::Elem2 { depth: d, off: o, i, j } => {
                    let a = Elem { depth: d, off: o, i, j };
                    match Fused::at(code, pc + 8) {
                        Fused::Elem2MulAddStore { elem: b, ty } => {
                            Fused::DotStep { depth, off, sum: Sum::Var(depth1, off1), a, b, ty }
                        }
                        _ => Fused::AddrElem2 { depth, off, depth1, off1, elem: a },
                    }
                }
                _ => Fused::AddrVal { depth, off, depth1, off1 },
            },
            Fused::AddrDeref { depth, off } => match Fused::simple(code.get(pc + 3..).unwrap_or(&[])) {
                Fused::Elem2 { depth: d, off: o, i, j } => match Fused::at(code, pc + 9) {
                    Fused::Elem2MulAddStore { elem: b, ty } => {
                        Fused::DotStep { depth, off, sum: Sum::Stored, a: Elem { depth: d, off: o, i, j }, b, ty }
                    }
                    _ => Fused::AddrDeref { depth, off },
                },
                _ => Fused::AddrDeref { depth, off },
            },
            Fused::Elem2 { depth, off, i, j } => match Fused::simple(code.get(pc + 6..).unwrap_or(&[])) {
                Fused::MulAddStore { ty } => Fused::Elem2MulAddStore { elem: Elem { depth, off, i, j }, ty },
                _ => Fused::Elem2 { depth, off, i, j },
            },
            f => f,
        }
    }

    /// The superinstruction of consecutive instructions starting at `code[0]`, if any.
    fn simple(code: &[Instr]) -> Fused {
        use Instr as I;
        let ix = |v: &Instr, x: &Instr| match (*v, *x) {
            (I::LdVal { depth, off }, I::Index { size, len }) => Some(Ix { depth, off, size, len }),
            _ => None,
        };
        match code {
            [I::LdAddr { depth, off }, v1, x1, v2, x2, I::Dereference {}, ..]
                if ix(v1, x1).is_some() && ix(v2, x2).is_some() =>
            {
                match (ix(v1, x1), ix(v2, x2)) {
                    (Some(i), Some(j)) => Fused::Elem2 { depth: *depth, off: *off, i, j },
                    _ => Fused::None,
                }
            }
            [I::LdAddr { depth, off }, v1, x1, I::Dereference {}, ..] if ix(v1, x1).is_some() => match ix(v1, x1) {
                Some(i) => Fused::Elem1 { depth: *depth, off: *off, i },
                None => Fused::None,
            },
            [I::LdVal { depth, off }, r, c, I::JumpIfFalse { target }, ..] if Cmp::of(*c).is_some() => {
                let rhs = match *r {
                    I::PushI { v } => Rhs::Const(v),
                    I::LdVal { depth, off } => Rhs::Var(depth, off),
                    _ => return Fused::None,
                };
                match Cmp::of(*c) {
                    Some(cmp) => Fused::CmpJump { depth: *depth, off: *off, rhs, cmp, target: *target },
                    None => Fused::None,
                }
            }
            [I::LdAddr { depth, off }, I::IncDec { ty: Scalar::Int, delta, .. }, I::Pop { n: 1 }, rest @ ..] => {
                let jump = match rest.first() {
                    Some(I::Jump { target }) => Some(*target),
                    _ => None,
                };
                Fused::IncVar { depth: *depth, off: *off, delta: *delta, jump }
            }
            [I::LdAddr { depth, off }, I::Dup {}, I::Dereference {}, ..] => {
                Fused::AddrDeref { depth: *depth, off: *off }
            }
            [I::LdAddr { depth, off }, I::LdVal { depth: depth1, off: off1 }, ..] => {
                Fused::AddrVal { depth: *depth, off: *off, depth1: *depth1, off1: *off1 }
            }
            [m, a, rest @ ..] => match (Arith::of(*m, *a), rest.first()) {
                (Some(ty), Some(I::Store { ty: st, keep: false })) if *st == ty.scalar() => Fused::MulAddStore { ty },
                (Some(ty), _) => Fused::MulAdd { ty },
                (None, _) => Fused::None,
            },
            _ => Fused::None,
        }
    }

    /// The number of instructions it stands for (1 for `None`).
    pub(super) fn len(self) -> usize {
        match self {
            Fused::None => 1,
            Fused::CmpJump { .. } => 4,
            Fused::IncVar { jump, .. } => 3 + jump.is_some() as usize,
            Fused::Elem2 { .. } => 6,
            Fused::Elem1 { .. } => 4,
            Fused::MulAddStore { .. } => 3,
            Fused::AddrVal { .. } | Fused::MulAdd { .. } => 2,
            Fused::IncTest { .. } | Fused::AddrElem2 { .. } => 8,
            Fused::Elem2MulAddStore { .. } => 9,
            Fused::AddrDeref { .. } => 3,
            Fused::DotStep { sum: Sum::Var(..), .. } => 17,
            Fused::DotStep { sum: Sum::Stored, .. } => 18,
        }
    }

    /// The pcs of the instructions it stands for, starting at `pc`, in execution order.
    fn pcs(self, pc: usize) -> impl Iterator<Item = usize> {
        let (first, back) = match self {
            Fused::IncTest { back, .. } => (4, back as usize),
            f => (f.len(), pc),
        };
        (pc..pc + first).chain(back..back + (self.len() - first))
    }
}

/// The address of variable `(depth, off)`, as `LDVal` computes it.
#[inline(always)]
fn var(p: &Proc, depth: u8, off: u32) -> Option<i64> {
    p.display.get(depth as usize).map(|&b| b as i64 + off as i64)
}

/// The word at `a`, if `a` is inside the pool.
#[inline(always)]
fn load(mem: &Memory, a: i64) -> Option<Word> {
    mem.index(a).map(|i| mem.words[i])
}

/// `a[i][j]` as `Elem2` computes it.
#[inline(always)]
fn elem2(p: &Proc, mem: &Memory, depth: u8, off: u32, i: Ix, j: Ix) -> Option<Word> {
    let base = var(p, depth, off)? as i32;
    let a = index_by(p, mem, index_by(p, mem, base, i)?, j)?;
    load(mem, a as i64)
}

/// `base + i * size` after the checks of `INDEX`, `i` read from its variable.
#[inline(always)]
fn index_by(p: &Proc, mem: &Memory, base: i32, x: Ix) -> Option<i32> {
    index(base, as_int(load(mem, var(p, x.depth, x.off)?)?), x.size, x.len)
}

/// `base + i * size` as `INDEX size len` computes it: `None` when `i` is outside
/// `0..len` (no bound when `len` is 0).
#[inline(always)]
fn index(base: i32, i: i32, size: u32, len: u32) -> Option<i32> {
    (len == 0 || (i >= 0 && (i as u32) < len)).then(|| base.wrapping_add(i.wrapping_mul(size as i32)))
}

/// Runs superinstruction `f` at `pc` (see [`Fused`]) and returns the next pc; `None`,
/// having changed nothing, when one of its instructions would fail (the caller then runs
/// the first one alone, which reports the failure as usual). The values are computed as
/// the unfused instructions compute them, step by step (addresses pass through `int`
/// words, so `LDADDR` truncates to 32 bits).
#[inline(always)]
pub(super) fn run_fused(f: Fused, p: &Proc, mem: &mut Memory, stack: &mut Vec<Word>, pc: usize) -> Option<usize> {
    match f {
        Fused::None => None,
        Fused::CmpJump { depth, off, rhs, cmp, target } => {
            let a = as_int(load(mem, var(p, depth, off)?)?);
            let b = match rhs {
                Rhs::Const(v) => v,
                Rhs::Var(d, o) => as_int(load(mem, var(p, d, o)?)?),
            };
            Some(if cmp.test(a, b) { pc + 4 } else { target as usize })
        }
        Fused::IncVar { depth, off, delta, jump } => {
            let a = var(p, depth, off)? as i32 as i64;
            let i = mem.index(a)?;
            mem.words[i] = Word::Int(as_int(mem.words[i]).wrapping_add(delta));
            Some(match jump {
                Some(t) => t as usize,
                None => pc + 3,
            })
        }
        Fused::Elem2 { depth, off, i, j } => {
            stack.push(elem2(p, mem, depth, off, i, j)?);
            Some(pc + 6)
        }
        Fused::DotStep { .. } => {
            DotSlots::resolve(f, p, mem)?.step(mem)?;
            Some(pc + f.len())
        }
        Fused::Elem2MulAddStore { elem: e, ty } => {
            let y = elem2(p, mem, e.depth, e.off, e.i, e.j)?;
            let l = stack.len();
            if l < 3 {
                return None;
            }
            // STORE pops the value, then the address (an int word, widened).
            let a = as_int(stack[l - 3]) as i64;
            let i = mem.index(a)?;
            mem.words[i] = ty.mul_add(stack[l - 2], stack[l - 1], y);
            stack.truncate(l - 3);
            Some(pc + 9)
        }
        Fused::AddrElem2 { depth, off, depth1, off1, elem: e } => {
            let a = var(p, depth, off)? as i32;
            let w = load(mem, var(p, depth1, off1)?)?;
            let x = elem2(p, mem, e.depth, e.off, e.i, e.j)?;
            stack.extend_from_slice(&[Word::Int(a), w, x]);
            Some(pc + 8)
        }
        Fused::IncTest { back, test, .. } => {
            let again = IncSlots::resolve(f, p, mem)?.step(mem);
            Some(if again { back as usize + 4 } else { test.target as usize })
        }
        Fused::Elem1 { depth, off, i } => {
            let base = var(p, depth, off)? as i32;
            let a = index_by(p, mem, base, i)?;
            stack.push(load(mem, a as i64)?);
            Some(pc + 4)
        }
        Fused::AddrDeref { depth, off } => {
            let a = var(p, depth, off)? as i32;
            let w = load(mem, a as i64)?;
            stack.push(Word::Int(a));
            stack.push(w);
            Some(pc + 3)
        }
        Fused::AddrVal { depth, off, depth1, off1 } => {
            let a = var(p, depth, off)? as i32;
            let w = load(mem, var(p, depth1, off1)?)?;
            stack.push(Word::Int(a));
            stack.push(w);
            Some(pc + 2)
        }
        Fused::MulAdd { ty } => {
            let l = stack.len();
            if l < 3 {
                return None;
            }
            let v = ty.mul_add(stack[l - 3], stack[l - 2], stack[l - 1]);
            stack.truncate(l - 2);
            stack[l - 3] = v;
            Some(pc + 2)
        }
        Fused::MulAddStore { ty } => {
            let l = stack.len();
            if l < 4 {
                return None;
            }
            // STORE pops the value, then the address (an int word, widened).
            let a = as_int(stack[l - 4]) as i64;
            let i = mem.index(a)?;
            mem.words[i] = ty.mul_add(stack[l - 3], stack[l - 2], stack[l - 1]);
            stack.truncate(l - 4);
            Some(pc + 3)
        }
    }
}

/// The loop `for (...; k < n; k++) s = s + a[i][k] * b[k][j];` as a whole: its body (the
/// [`Fused::DotStep`] `body` at `pc`), then the [`Fused::IncTest`] `inc` after it, whose
/// test jumps back to `pc`, run at most `max` times with no dispatch and no quantum check
/// between iterations (the caller works out `max` so that none would stop them: see
/// [`LoopTiming`]). Returns the iterations run and, when the last one's test failed, the
/// pc it jumps to. An iteration whose body would fail is not run (the caller then runs it
/// alone, which reports the failure). The increment's and the test's variables are
/// resolved once, before the first iteration, since their addresses depend on the display
/// only; when one is outside the pool no iteration runs. Each iteration reads and writes
/// the pool exactly as the two superinstructions do, in the same order.
#[inline(always)]
pub(super) fn dot_loop(body: Fused, inc: Fused, p: &Proc, mem: &mut Memory, max: u64) -> (u64, Option<usize>) {
    if max == 0 {
        // Nothing to run (the quantum or the step limit is near): resolve nothing either.
        return (0, None);
    }
    let (Some(dot), Some(inc)) = (DotSlots::resolve(body, p, mem), IncSlots::resolve(inc, p, mem)) else {
        return (0, None);
    };
    let mut n = 0;
    while n < max {
        if dot.step(mem).is_none() {
            break;
        }
        n += 1;
        if !inc.step(mem) {
            return (n, Some(inc.target as usize));
        }
    }
    (n, None)
}

/// A [`Fused::IncTest`] with its variables resolved to pool indices (their addresses
/// depend on the display only).
struct IncSlots {
    /// The variable incremented, by `delta`.
    var: usize,
    delta: i32,
    /// The test's left variable, and its right one (unused for a constant).
    lhs: usize,
    rhs_var: usize,
    rhs: Rhs,
    cmp: Cmp,
    /// Where the test jumps when it fails.
    target: u32,
}

impl IncSlots {
    fn resolve(inc: Fused, p: &Proc, mem: &Memory) -> Option<Self> {
        let Fused::IncTest { depth, off, delta, test: t, .. } = inc else { return None };
        Some(IncSlots {
            var: mem.index(var(p, depth, off)? as i32 as i64)?,
            delta,
            lhs: mem.index(var(p, t.depth, t.off)?)?,
            rhs_var: match t.rhs {
                Rhs::Const(_) => 0,
                Rhs::Var(d, o) => mem.index(var(p, d, o)?)?,
            },
            rhs: t.rhs,
            cmp: t.cmp,
            target: t.target,
        })
    }

    /// `i++` and the loop's test, as the `IncTest` runs them (every address was checked
    /// when resolved, so nothing can fail; the test reads the values after the
    /// increment): whether the loop goes on.
    #[inline(always)]
    fn step(&self, mem: &mut Memory) -> bool {
        mem.words[self.var] = Word::Int(as_int(mem.words[self.var]).wrapping_add(self.delta));
        let x = as_int(mem.words[self.lhs]);
        let y = match self.rhs {
            Rhs::Const(v) => v,
            Rhs::Var(..) => as_int(mem.words[self.rhs_var]),
        };
        self.cmp.test(x, y)
    }
}

/// An `a[i][j]` of a [`Fused::DotStep`] with its variables resolved: the array's address
/// (an `int` word, as `LDADDR` pushes it) and the pool indices of its two index variables.
#[derive(Clone, Copy)]
struct ElemSlots {
    base: i32,
    i: usize,
    i_size: u32,
    i_len: u32,
    j: usize,
    j_size: u32,
    j_len: u32,
}

impl ElemSlots {
    fn resolve(e: Elem, p: &Proc, mem: &Memory) -> Option<Self> {
        Some(ElemSlots {
            base: var(p, e.depth, e.off)? as i32,
            i: mem.index(var(p, e.i.depth, e.i.off)?)?,
            i_size: e.i.size,
            i_len: e.i.len,
            j: mem.index(var(p, e.j.depth, e.j.off)?)?,
            j_size: e.j.size,
            j_len: e.j.len,
        })
    }

    /// The element, as [`elem2`] reads it.
    #[inline(always)]
    fn get(&self, mem: &Memory) -> Option<Word> {
        let row = index(self.base, as_int(mem.words[self.i]), self.i_size, self.i_len)?;
        load(mem, index(row, as_int(mem.words[self.j]), self.j_size, self.j_len)? as i64)
    }
}

/// A [`Fused::DotStep`] with its variables resolved to pool indices (their addresses
/// depend on the display only, so they hold for a whole [`dot_loop`]).
struct DotSlots {
    /// Where the sum is stored, and where it is read.
    store: usize,
    sum: usize,
    a: ElemSlots,
    b: ElemSlots,
    ty: Arith,
}

impl DotSlots {
    fn resolve(body: Fused, p: &Proc, mem: &Memory) -> Option<Self> {
        let Fused::DotStep { depth, off, sum, a, b, ty } = body else { return None };
        let store = mem.index(var(p, depth, off)? as i32 as i64)?;
        Some(DotSlots {
            store,
            sum: match sum {
                Sum::Var(d, o) => mem.index(var(p, d, o)?)?,
                Sum::Stored => store,
            },
            a: ElemSlots::resolve(a, p, mem)?,
            b: ElemSlots::resolve(b, p, mem)?,
            ty,
        })
    }

    /// `s = s + a[i][k] * b[k][j];`, the `DotStep`'s instructions at once (the address of
    /// the sum passes through an `int` word, which `STORE` and `Dereference` widen back):
    /// `None`, having changed nothing, when an index is out of its bounds or an element
    /// outside the pool.
    #[inline(always)]
    fn step(&self, mem: &mut Memory) -> Option<()> {
        let s = mem.words[self.sum];
        let x = self.a.get(mem)?;
        let y = self.b.get(mem)?;
        mem.words[self.store] = self.ty.mul_add(s, x, y);
        Some(())
    }
}

/// The charges of one iteration of a [`dot_loop`], from those of its body and of its
/// increment-and-test, and the quantum ends a run of iterations crosses: what the loop top
/// of [`interp`] would do before each of their instructions, worked out once per run.
pub(super) struct LoopTiming<'a> {
    body: &'a FusedCost,
    inc: &'a FusedCost,
    /// Ticks of one iteration.
    pub(super) period: Ticks,
    /// Ticks from an iteration's start to the start of its last instruction.
    last: Ticks,
}

impl<'a> LoopTiming<'a> {
    pub(super) fn new(body: &'a FusedCost, inc: &'a FusedCost) -> Self {
        LoopTiming {
            body,
            inc,
            period: body.total.saturating_add(inc.total),
            last: body.total.saturating_add(inc.inner),
        }
    }

    /// The most iterations that may run from `clock` (before the quantum end `qend`)
    /// without the loop top stopping before one of their instructions: each instruction
    /// must start before `qend`, or every quantum end up to the last start must be one the
    /// loop top crosses (ends up to `cross_max`, no instruction longer than a quantum `q`,
    /// as in the crossing of a single superinstruction).
    pub(super) fn budget(&self, clock: Ticks, qend: Ticks, q: Ticks, cross_max: Ticks) -> u64 {
        let (b, i) = (self.body, self.inc);
        let longest = b.tmax.max(b.total - b.inner).max(i.tmax).max(i.total - i.inner);
        let limit = if q > 0 && qend <= cross_max && longest <= q { cross_max.saturating_add(1) } else { qend };
        let first_last = clock.saturating_add(self.last);
        if first_last >= limit {
            0
        } else {
            // Iterations that take no time all start before the limit.
            ((limit - 1 - first_last).checked_div(self.period)).map_or(u64::MAX, |n| n + 1)
        }
    }

    /// The quantum ends crossed by `n >= 1` iterations from `clock`, from the current end
    /// `qend` on (quantum `q`), and the clock at the last crossing: the start of the first
    /// instruction at or after that end. `None` when none is crossed.
    pub(super) fn crossings(&self, clock: Ticks, n: u64, qend: Ticks, q: Ticks) -> Option<(u64, Ticks)> {
        let last_start = clock + (n - 1) * self.period + self.last;
        if last_start < qend || q == 0 || self.period == 0 {
            return None;
        }
        let m = (last_start - qend) / q + 1;
        let rel = qend + (m - 1) * q - clock;
        let (k, r) = (rel / self.period, rel % self.period);
        // The starts in an iteration: 0, the body's prefix sums (its last is the body's
        // total, where the increment starts), then the increment's but its last.
        let (b, i) = (self.body, self.inc);
        let within = if r == 0 {
            0
        } else {
            b.pre[..b.len]
                .iter()
                .copied()
                .chain(i.pre[..i.len - 1].iter().map(|&t| b.total + t))
                .find(|&t| t >= r)
                .unwrap_or(self.period)
        };
        Some((m, clock + k * self.period + within))
    }
}

/// The charges of a superinstruction ([`Fused`]) on one processor.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct FusedCost {
    /// Its number of instructions ([`Fused::len`]).
    pub(super) len: usize,
    /// The ticks of all its instructions but the last, and of all.
    pub(super) inner: Ticks,
    pub(super) total: Ticks,
    /// Its sequential ticks.
    pub(super) seq: Ticks,
    /// `pre[j]`: the ticks of its first `j + 1` instructions (0 past its length).
    pub(super) pre: [Ticks; FUSED_MAX],
    /// The most ticks of one of its instructions but the last.
    pub(super) tmax: Ticks,
}

/// [`Tables::fused`] of the tables `t` for the program `prog`.
pub(super) fn fused_costs(t: &Tables, prog: &[Step]) -> Vec<FusedCost> {
    let mut out = Vec::with_capacity(prog.len());
    for pc in 0..prog.len() {
        let mut c = FusedCost::default();
        let mut sum = 0;
        let run = prog[pc].fused.pcs(pc).map_while(|k| prog.get(k));
        // The ticks of the instruction before the current one (all but the last count).
        let mut before = 0;
        for (j, s) in run.enumerate() {
            c.inner = sum;
            c.tmax = c.tmax.max(before);
            before = t.ticks[s.op as usize];
            sum += before;
            c.pre[j] = sum;
            c.seq += t.seq[s.op as usize];
        }
        c.len = prog[pc].fused.len();
        c.total = sum;
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Arith, Cmp, Elem, Fused, FusedCost, Ix, LoopTiming, Rhs, Sum, Test};
    use crate::time::Ticks;
    use crate::vcode::{Instr::*, Scalar};

    /// The charges of a superinstruction of instructions costing `costs` ticks, as
    /// [`super::fused_costs`] works them out.
    fn charges(costs: &[Ticks]) -> FusedCost {
        let mut c = FusedCost { len: costs.len(), ..FusedCost::default() };
        for (j, &t) in costs.iter().enumerate() {
            c.inner = c.total;
            if j + 1 < costs.len() {
                c.tmax = c.tmax.max(t);
            }
            c.total += t;
            c.pre[j] = c.total;
        }
        c
    }

    #[test]
    fn a_dot_loop_run_crosses_the_quantum_ends_the_loop_top_would() {
        // Against the loop top of `interp` run before every instruction of the loop's
        // iterations: it crosses a quantum end `e` at the first start at or after it when
        // `e <= cross_max` and the start is before `e + q`, and stops the run otherwise.
        // The budget may be smaller than what the loop top allows (it stops at the last
        // start up to `cross_max`, not at the next quantum end, and crosses nothing when
        // an instruction is longer than a quantum), never larger; it is the same when
        // `cross_max + 1` is a quantum end (or 0) and no instruction is longer. After every allowed number of
        // iterations, the crossings and the clock at the last one are the loop top's.
        let mut seed = 12345u64;
        let mut rnd = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for case in 0..400 {
            let costs: Vec<Ticks> = (0..25).map(|_| if rnd(5) == 0 { 0 } else { 1 + rnd(40) }).collect();
            let (body, inc) = (charges(&costs[..17]), charges(&costs[17..]));
            let timing = LoopTiming::new(&body, &inc);
            let q = 1 + rnd(if case % 2 == 0 { 40 } else { 2000 });
            let clock = rnd(5000);
            let qend = clock + 1 + rnd(q);
            let k = rnd(60);
            let cross_max = match case % 4 {
                0 => 0,
                1 => qend + k * q - 1,
                _ => qend.saturating_sub(q) + rnd(60 * q),
            };
            const CAP: u64 = 80;
            let budget = timing.budget(clock, qend, q, cross_max);
            // The loop top, iteration by iteration: the crossings after each.
            let (mut c, mut qe, mut crossed, mut cc) = (clock, qend, 0u64, 0);
            let mut after = Vec::new();
            'iters: while (after.len() as u64) < CAP {
                for &t in &costs {
                    if c >= qe {
                        if qe <= cross_max && c < qe + q {
                            crossed += 1;
                            cc = c;
                            qe += q;
                        } else {
                            break 'iters;
                        }
                    }
                    c += t;
                }
                after.push((crossed, cc));
            }
            let allowed = after.len() as u64;
            let what = format!("case {case}: costs {costs:?} q {q} clock {clock} qend {qend} cross_max {cross_max}");
            assert!(budget.min(CAP) <= allowed, "{what}: budget {budget} > {allowed}");
            if case % 4 < 2 && costs.iter().all(|&t| t <= q) {
                assert_eq!(budget.min(CAP), allowed, "{what}");
            }
            for n in 1..=budget.min(CAP) {
                let (m, at) = after[n as usize - 1];
                let want = (m > 0).then_some((m, at));
                assert_eq!(timing.crossings(clock, n, qend, q), want, "{what}: {n} iterations");
            }
        }
    }

    #[test]
    fn the_compiler_sequences_decode_to_superinstructions() {
        // The inner loop of scripts/bench/matmul_seq.c as cpcc emits it (pcs 64..=88):
        // `for (k = 0; k < N; k++) s = s + a[i][k] * b[k][j];`.
        let code = [
            LdVal { depth: 1, off: 2 },
            PushI { v: 200 },
            LtI {},
            JumpIfFalse { target: 89 },
            LdAddr { depth: 1, off: 3 },
            LdVal { depth: 1, off: 3 },
            LdAddr { depth: 0, off: 0 },
            LdVal { depth: 1, off: 0 },
            Index { size: 200, len: 200 },
            LdVal { depth: 1, off: 2 },
            Index { size: 1, len: 200 },
            Dereference {},
            LdAddr { depth: 0, off: 40000 },
            LdVal { depth: 1, off: 2 },
            Index { size: 200, len: 200 },
            LdVal { depth: 1, off: 1 },
            Index { size: 1, len: 200 },
            Dereference {},
            MulI {},
            AddI {},
            Store { ty: Scalar::Int, keep: false },
            LdAddr { depth: 1, off: 2 },
            IncDec { ty: Scalar::Int, delta: 1, pre: false },
            Pop { n: 1 },
            Jump { target: 0 },
        ];
        let at = |pc: usize| Fused::simple(&code[pc..]);
        assert_eq!(at(0), Fused::CmpJump { depth: 1, off: 2, rhs: Rhs::Const(200), cmp: Cmp::Lt, target: 89 });
        assert_eq!(at(4), Fused::AddrVal { depth: 1, off: 3, depth1: 1, off1: 3 });
        let i = Ix { depth: 1, off: 0, size: 200, len: 200 };
        let j = Ix { depth: 1, off: 2, size: 1, len: 200 };
        assert_eq!(at(6), Fused::Elem2 { depth: 0, off: 0, i, j });
        let i = Ix { depth: 1, off: 2, size: 200, len: 200 };
        let j = Ix { depth: 1, off: 1, size: 1, len: 200 };
        assert_eq!(at(12), Fused::Elem2 { depth: 0, off: 40000, i, j });
        assert_eq!(at(18), Fused::MulAddStore { ty: Arith::Int });
        assert_eq!(at(19), Fused::None, "ADDI; STORE is not a superinstruction");
        assert_eq!(at(21), Fused::IncVar { depth: 1, off: 2, delta: 1, jump: Some(0) });
        // Cut short, the same instructions give the shorter forms or none.
        assert_eq!(Fused::simple(&code[21..24]), Fused::IncVar { depth: 1, off: 2, delta: 1, jump: None });
        assert_eq!(Fused::simple(&code[18..20]), Fused::MulAdd { ty: Arith::Int });
        assert_eq!(Fused::simple(&code[0..3]), Fused::None);
        // With the jump back to the test (at pc 0 here), and with the array loads next to
        // `LDADDR; LDVal` and to `MULI; ADDI; STORE`, the bigger forms.
        let test = Test { depth: 1, off: 2, rhs: Rhs::Const(200), cmp: Cmp::Lt, target: 89 };
        assert_eq!(Fused::at(&code, 21), Fused::IncTest { depth: 1, off: 2, delta: 1, back: 0, test });
        let elem = Elem {
            depth: 0,
            off: 0,
            i: Ix { depth: 1, off: 0, size: 200, len: 200 },
            j: Ix { depth: 1, off: 2, size: 1, len: 200 },
        };
        assert_eq!(Fused::at(&code[..12], 4), Fused::AddrElem2 { depth: 1, off: 3, depth1: 1, off1: 3, elem });
        assert_eq!(Fused::at(&code, 21).pcs(21).collect::<Vec<_>>(), vec![21, 22, 23, 24, 0, 1, 2, 3]);
        let elem = Elem { depth: 0, off: 40000, i, j };
        assert_eq!(Fused::at(&code, 12), Fused::Elem2MulAddStore { elem, ty: Arith::Int });
        // The whole statement `s = s + a[i][k] * b[k][j];` is one step; an iteration after
        // the first is 2 dispatches: IncTest and DotStep.
        let a = Elem {
            depth: 0,
            off: 0,
            i: Ix { depth: 1, off: 0, size: 200, len: 200 },
            j: Ix { depth: 1, off: 2, size: 1, len: 200 },
        };
        let b = Elem { depth: 0, off: 40000, i, j };
        assert_eq!(Fused::at(&code, 4), Fused::DotStep { depth: 1, off: 3, sum: Sum::Var(1, 3), a, b, ty: Arith::Int });
        let lens: usize = [4, 21].iter().map(|&pc| Fused::at(&code, pc).len()).sum();
        // An iteration after the first: the test at 0..4 runs inside IncTest.
        assert_eq!(lens, code.len());
        // 25 instructions in 6 dispatches: 4 + 2 + 6 + 6 + 3 + 4.
        let lens: usize = [0, 4, 6, 12, 18, 21].iter().map(|&pc| at(pc).len()).sum();
        assert_eq!(lens, code.len());
        // And the loop is a dot-product loop, run whole.
        let steps = super::Step::all(&code);
        assert_eq!(steps.iter().map(|s| s.dot_loop).collect::<Vec<_>>(), (0..25).map(|pc| pc == 4).collect::<Vec<_>>());
        // `s += a[i][k] * b[k][j];` reads the sum through the address it stores to (`DUP;
        // Dereference` for `LDVal`): one instruction more, the same step.
        let mut plus = code[..4].to_vec();
        plus.extend_from_slice(&[LdAddr { depth: 1, off: 3 }, Dup {}, Dereference {}]);
        plus.extend_from_slice(&code[6..21]);
        plus.extend_from_slice(&code[21..]);
        assert_eq!(Fused::simple(&plus[4..]), Fused::AddrDeref { depth: 1, off: 3 });
        assert_eq!(Fused::at(&plus, 4), Fused::DotStep { depth: 1, off: 3, sum: Sum::Stored, a, b, ty: Arith::Int });
        assert_eq!(Fused::at(&plus, 4).len(), 18);
        assert!(super::Step::all(&plus)[4].dot_loop, "the jump back to 0 still closes the loop");
    }
}
