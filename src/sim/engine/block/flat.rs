//! The flat form of the translated operations, for a processor whose pool is all its own
//! and without line costs (a program run alone: the common case). Each operation again,
//! in a small record whose kind names its operands' kinds too (a variable of the running
//! function, a global, a constant, the working stack), so that running it is one
//! dispatch and a few loads, where [`super::run`] matches the operation, then each
//! operand's kind, then the instruction: on the 200x200 matrix product in its four
//! spellings this takes 0.76x to 0.88x of the time. The frequent shapes have a flat
//! kind; at one of the others ([`Flat::Op`]) the stretches' own loop takes over for the
//! rest of the stretch ([`HANDOFF`]). A flat operation computes exactly what its
//! [`super::Op`] computes and fails exactly when it does (having changed nothing), and
//! the stretches around it (their fit, charges and quantum crossings) are those of
//! [`super::run_stretches`], which runs the flat form in its instance with `FLAT`.
//!
//! At a jump, the flat form charges the stretch it ends ([`super::Clock`]) and goes on at
//! its target when the stretch there fits as the stretches' loop checks it and starts
//! with a flat kind; a loop whose body is one stretch runs its iterations back to back
//! as that loop runs them, charged together ([`Round`]). So a loop nest of flat kinds
//! runs in one call, not one per stretch: on the sieve 0.74x of the time, on fannkuch
//! 0.85x.
//!
//! Calls and returns run in the flat form too, as the stretches' loop runs them, and the
//! run goes on in the callee or the caller: a recursive function runs in one call of it
//! (recursive Fibonacci: 0.88x of the time). Variables of depth 1 (the running
//! function's frame) and 0 (the globals) are read from the display entries taken at the
//! start and after each call and return, the only instructions that change them.
//!
//! That instance is the one the interpreter uses for a program with a stretch in the
//! flat form ([`FlatStep::worth`]); the others keep the instance without it, whose code
//! is left as it was.
use super::{
    binary, index, int_of, put_word, truthy, unary_out_of_line, Clock, Cond, IntOp, Ix, Limits, Op, Proc, Src, Step,
};
use crate::sim::memory::Memory;
use crate::vcode::{Instr, Scalar, Word};

/// A flat operation: see the module docs. `l*` fields are offsets in the running
/// function's frame (depth 1), `g*` offsets among the globals (depth 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Flat {
    /// Run by the stretches' own loop ([`HANDOFF`]).
    Op,
    /// Ends the flat form's run here: `Stop`.
    End,
    /// [`Op::Call`]: run as the stretches' own loop runs it ([`super::call`]), the
    /// stretch after it at the callee's entry.
    Call { func: u32 },
    /// [`Op::Ret`]: run as the stretches' own loop runs it ([`super::ret`]), but from the
    /// process's first function.
    Ret { n: u32 },
    /// [`Op::BranchI`] of a local and a constant: jumps to `t` when `c` holds of them.
    BrLK { c: Cond, l: u32, k: i32, t: u32 },
    /// [`Op::BranchI`] of two locals.
    BrLL { c: Cond, l: u32, m: u32, t: u32 },
    /// [`Op::BranchI`] of the word on top of the stack and a constant.
    BrSK { c: Cond, k: i32, t: u32 },
    /// [`Op::BranchI`] of the word on top of the stack and a local.
    BrSL { c: Cond, l: u32, t: u32 },
    /// [`Op::BranchI`] of the two words on top of the stack.
    BrSS { c: Cond, t: u32 },
    /// [`Op::IncVar`] of a local, `wide` or not: in the flat form the address `LDVal`
    /// reads and the one `STORE` writes are the same ([`run_flat`]).
    IncL { l: u32, d: i32 },
    /// [`Op::IncJump`] of a local.
    IncLJ { l: u32, d: i32, t: u32 },
    /// [`Op::Jump`].
    Jmp { t: u32 },
    /// [`Op::Push`] of a local.
    PushL { l: u32 },
    /// [`Op::Push`] of a global (not the one at offset 0, which may be the null address).
    PushG { g: u32 },
    /// [`Op::Push`] of a constant.
    PushK { k: i32 },
    /// [`Op::Addr`] of a local.
    AddrL { l: u32 },
    /// [`Op::BinI`] of the two words on top of the stack, the operation an [`IntOp`].
    BinSS { op: IntOp },
    /// [`Op::BinI`] of the word on top of the stack and a local.
    BinSL { op: IntOp, l: u32 },
    /// [`Op::BinI`] of the word on top of the stack and a constant.
    BinSK { op: IntOp, k: i32 },
    /// [`Op::BinI`] of a local and a constant, pushed.
    BinLK { op: IntOp, l: u32, k: i32 },
    /// [`Op::BinI`] of two locals, pushed.
    BinLL { op: IntOp, l: u32, m: u32 },
    /// [`Op::BinBinI`] of two [`IntOp`]s: `x then (y first z)` of the top three words.
    BinBinSS { first: IntOp, then: IntOp },
    /// [`Op::Elem`] of a global array by a local: its address, or its element with `load`.
    ElemGL { g: u32, l: u32, size: u32, len: u32, load: bool },
    /// [`Op::Elem`] by a constant of an array of depth `d`: among the globals (0) or in
    /// the running function's frame (1), at offset `a`.
    ElemAK { d: u8, a: u32, k: i32, size: u32, len: u32, load: bool },
    /// [`Op::Elem`] of a local array by a local.
    ElemLL { a: u32, l: u32, size: u32, len: u32, load: bool },
    /// [`Op::Elem2`] of an array of depth `d` (as [`Flat::ElemAK`]) by two locals.
    Elem2ALL { d: u8, a: u32, l: u32, size: u32, len: u32, m: u32, size2: u32, len2: u32, load: bool },
    /// [`Op::ElemSet`] of an array of depth `d` by a local, given a constant.
    SetElemALK { d: u8, a: u32, l: u32, size: u32, len: u32, k: i32, ty: Scalar },
    /// [`Op::ElemSet`] of an array of depth `d` by a local, given a local.
    SetElemALL { d: u8, a: u32, l: u32, size: u32, len: u32, m: u32, ty: Scalar },
    /// [`Op::Set`] of an `int` local to a constant.
    SetLK { l: u32, k: i32 },
    /// [`Op::Set`] of an `int` local to a local.
    SetLL { l: u32, m: u32 },
    /// [`Op::UpdI`] of a local by a local (`wide` or not, as [`Flat::IncL`]).
    UpdLL { l: u32, op: IntOp, m: u32 },
    /// [`Op::UpdI`] of a local by a constant.
    UpdLK { l: u32, op: IntOp, k: i32 },
    /// [`Op::ElemX`] of an array of depth `d` by `l first k` (a local and a constant).
    ElemXALK { d: u8, a: u32, first: IntOp, l: u32, k: i32, size: u32, len: u32, load: bool },
    /// [`Op::ElemX`] of an array of depth `d` by `(l first k) then m` (`m` a local).
    ElemXALKL { d: u8, a: u32, first: IntOp, l: u32, k: i32, then: IntOp, m: u32, size: u32, len: u32, load: bool },
    /// [`Op::AddrDeref`] of a local.
    AddrDerefL { l: u32 },
    /// [`Op::PopTo`] a local.
    PopToL { l: u32, ty: Scalar },
    /// [`Op::Bin2I`] of two [`IntOp`]s and three locals or constants, pushed.
    Bin2 { first: IntOp, a: Arg, b: Arg, then: IntOp, c: Arg },
    /// [`Op::Bin`] of the two words on top of the stack.
    BinW { ins: Instr },
    /// [`Op::Bin`] of the word on top of the stack and a local.
    BinWSL { ins: Instr, l: u32 },
    /// [`Op::Bin`] of two locals, pushed.
    BinWLL { ins: Instr, l: u32, m: u32 },
    /// [`Op::Const`].
    PushW { w: Word },
    /// [`Op::Un`].
    Un { ins: Instr },
    /// [`Op::JumpIf`].
    JumpIf { when: bool, t: u32 },
    /// [`Op::Deref`].
    Deref,
    /// [`Op::IncDec`] of an `int` at the address on top of the stack.
    IncDecS { d: i32, pre: bool },
    /// [`Op::Pop`].
    Pop { n: u32 },
    /// [`Op::BinBin`] of two `double` arithmetic instructions.
    BinBinD { first: DOp, then: DOp },
    /// [`Op::AccI`] of locals and constants: the word on top of the stack, then each
    /// operation with its operand in turn (of two, the third is `+ 0`, which changes
    /// nothing and never fails).
    AccI { ops: [IntOp; 3], args: [Arg; 3] },
    /// [`Op::PElem`] of a local pointer by a local.
    PElemLL { p: u32, l: u32, size: u32, len: u32, load: bool },
    /// [`Op::Index`] of the base and the index on top of the stack.
    IndexS { size: u32, len: u32, load: bool },
}

/// A `double` arithmetic instruction ([`Flat::BinBinD`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum DOp {
    Add,
    Sub,
    Mul,
    Div,
}

impl DOp {
    fn of(ins: Instr) -> Option<DOp> {
        Some(match ins {
            Instr::AddD {} => DOp::Add,
            Instr::SubD {} => DOp::Sub,
            Instr::MulD {} => DOp::Mul,
            Instr::DivD {} => DOp::Div,
            _ => return None,
        })
    }

    /// The instruction, for operands that are not both `double`s ([`binary`]).
    fn ins(self) -> Instr {
        match self {
            DOp::Add => Instr::AddD {},
            DOp::Sub => Instr::SubD {},
            DOp::Mul => Instr::MulD {},
            DOp::Div => Instr::DivD {},
        }
    }

    /// `x <self> y` of two `double`s, as [`binary`] computes it.
    #[inline(always)]
    fn apply(self, x: f64, y: f64) -> f64 {
        match self {
            DOp::Add => x + y,
            DOp::Sub => x - y,
            DOp::Mul => x * y,
            DOp::Div => x / y,
        }
    }
}

/// An operand that is a local or an `int` constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Arg {
    L(u32),
    K(i32),
}

impl Arg {
    fn of(s: Src) -> Option<Arg> {
        match s {
            Src::Var(1, l) => Some(Arg::L(l)),
            Src::Int(k) => Some(Arg::K(k)),
            _ => None,
        }
    }
}

/// A flat operation with what the loop needs of its step: its number of instructions,
/// and the store that goes with it ([`Step::put`], [`Step::pops`]).
#[derive(Clone, Copy, Debug)]
pub(in crate::sim::engine) struct FlatStep {
    f: Flat,
    len: u8,
    pops: u8,
    put: Option<Scalar>,
    /// The stretch from here is run in the flat form: its first operation has a flat
    /// kind and it has at least [`FlatStep::MIN_OPS`] operations (a shorter one costs
    /// less in the stretches' own loop than the flat form's entry; one of three, as
    /// quicksort's `while (a[j] > x) j--;`, already costs more).
    pub(in crate::sim::engine) go: bool,
    /// The end of the stretch from here ([`Step::end`]).
    end: u32,
}

impl FlatStep {
    const MIN_OPS: usize = 3;

    /// Whether a program with these steps is worth running in the flat instance of the
    /// stretches' loop: it has a stretch in the flat form.
    pub(in crate::sim::engine) fn worth(flat: &[FlatStep]) -> bool {
        flat.iter().any(|f| f.go)
    }

    /// The flat form of every step of `code`.
    pub(in crate::sim::engine) fn all(code: &[Step]) -> Vec<FlatStep> {
        // The operations of the stretch from each pc, up to `MIN_OPS`, backwards: the one
        // after an operation is in its stretch when it starts before the stretch's end.
        let mut ops = vec![0usize; code.len()];
        for pc in (0..code.len()).rev() {
            let (next, end) = (pc + code[pc].len as usize, code[pc].end as usize);
            ops[pc] = if end <= pc {
                0
            } else if next < end {
                (1 + ops[next]).min(FlatStep::MIN_OPS)
            } else {
                1
            };
        }
        code.iter()
            .enumerate()
            .map(|(pc, s)| {
                let f = Flat::of(&s.x);
                let go = !matches!(f, Flat::Op | Flat::End) && ops[pc] >= FlatStep::MIN_OPS;
                FlatStep { f, len: s.len, pops: s.pops, put: s.put, go, end: s.end }
            })
            .collect()
    }
}

impl Flat {
    /// The flat kind of `x`, [`Flat::Op`] when it has none.
    fn of(x: &Op) -> Flat {
        let int_op = |ins| IntOp::of(ins);
        match *x {
            Op::Stop => Flat::End,
            Op::Call(func) => Flat::Call { func },
            Op::Ret(n) => Flat::Ret { n },
            Op::BranchI { cmp, a, b, when, target: t } => match (Cond::of(cmp, when), a, b) {
                (Some(c), Src::Var(1, l), Src::Int(k)) => Flat::BrLK { c, l, k, t },
                (Some(c), Src::Var(1, l), Src::Var(1, m)) => Flat::BrLL { c, l, m, t },
                (Some(c), Src::Stack, Src::Int(k)) => Flat::BrSK { c, k, t },
                (Some(c), Src::Stack, Src::Var(1, l)) => Flat::BrSL { c, l, t },
                (Some(c), Src::Stack, Src::Stack) => Flat::BrSS { c, t },
                _ => Flat::Op,
            },
            Op::IncVar { depth: 1, off: l, delta: d, wide: _ } => Flat::IncL { l, d },
            Op::IncJump { depth: 1, off: l, delta: d, wide: _, target: t } => Flat::IncLJ { l, d, t },
            Op::Jump(t) => Flat::Jmp { t },
            Op::Push(Src::Var(1, l)) => Flat::PushL { l },
            Op::Push(Src::Var(0, g)) if g > 0 => Flat::PushG { g },
            Op::Push(Src::Int(k)) => Flat::PushK { k },
            Op::Addr(1, l) => Flat::AddrL { l },
            Op::BinI { ins, a, b } => match (int_op(ins), a, b) {
                (Some(op), Src::Stack, Src::Stack) => Flat::BinSS { op },
                (Some(op), Src::Stack, Src::Var(1, l)) => Flat::BinSL { op, l },
                (Some(op), Src::Stack, Src::Int(k)) => Flat::BinSK { op, k },
                (Some(op), Src::Var(1, l), Src::Int(k)) => Flat::BinLK { op, l, k },
                (Some(op), Src::Var(1, l), Src::Var(1, m)) => Flat::BinLL { op, l, m },
                _ => Flat::Op,
            },
            Op::BinBinI { first, then } => match (int_op(first), int_op(then)) {
                (Some(first), Some(then)) => Flat::BinBinSS { first, then },
                _ => Flat::Op,
            },
            Op::Elem { depth: 0, off: g, i: Ix { i: Src::Var(1, l), size, len }, load } => {
                Flat::ElemGL { g, l, size, len, load }
            }
            Op::Elem { depth: 1, off: a, i: Ix { i: Src::Var(1, l), size, len }, load } => {
                Flat::ElemLL { a, l, size, len, load }
            }
            Op::Elem { depth: d @ (0 | 1), off: a, i: Ix { i: Src::Int(k), size, len }, load } => {
                Flat::ElemAK { d, a, k, size, len, load }
            }
            Op::Elem2 { depth: d @ (0 | 1), off: a, i, j, load } => match (i.i, j.i) {
                (Src::Var(1, l), Src::Var(1, m)) => {
                    Flat::Elem2ALL { d, a, l, size: i.size, len: i.len, m, size2: j.size, len2: j.len, load }
                }
                _ => Flat::Op,
            },
            Op::ElemSet { depth: d @ (0 | 1), off: a, i, v, ty } => match (i.i, v) {
                (Src::Var(1, l), Src::Int(k)) => Flat::SetElemALK { d, a, l, size: i.size, len: i.len, k, ty },
                (Src::Var(1, l), Src::Var(1, m)) => Flat::SetElemALL { d, a, l, size: i.size, len: i.len, m, ty },
                _ => Flat::Op,
            },
            Op::Set { depth: 1, off: l, ty: Scalar::Int, v } => match v {
                Src::Int(k) => Flat::SetLK { l, k },
                Src::Var(1, m) => Flat::SetLL { l, m },
                _ => Flat::Op,
            },
            Op::UpdI { depth: 1, off: l, op, b, wide: _ } => match b {
                Src::Var(1, m) => Flat::UpdLL { l, op, m },
                Src::Int(k) => Flat::UpdLK { l, op, k },
                _ => Flat::Op,
            },
            Op::ElemX { depth: d @ (0 | 1), off: a, e, size, len, load } => match (e.a, e.b, e.then) {
                (Src::Var(1, l), Src::Int(k), None) => Flat::ElemXALK { d, a, first: e.first, l, k, size, len, load },
                (Src::Var(1, l), Src::Int(k), Some((then, Src::Var(1, m)))) => {
                    Flat::ElemXALKL { d, a, first: e.first, l, k, then, m, size, len, load }
                }
                _ => Flat::Op,
            },
            Op::AddrDeref(1, l) => Flat::AddrDerefL { l },
            Op::PopTo { depth: 1, off: l, ty } => Flat::PopToL { l, ty },
            Op::Bin2I { first, a, b, then, c } => {
                match (int_op(first), Arg::of(a), Arg::of(b), int_op(then), Arg::of(c)) {
                    (Some(first), Some(a), Some(b), Some(then), Some(c)) => Flat::Bin2 { first, a, b, then, c },
                    _ => Flat::Op,
                }
            }
            Op::Bin { ins, a: Src::Stack, b: Src::Stack } => Flat::BinW { ins },
            Op::Bin { ins, a: Src::Stack, b: Src::Var(1, l) } => Flat::BinWSL { ins, l },
            Op::Bin { ins, a: Src::Var(1, l), b: Src::Var(1, m) } => Flat::BinWLL { ins, l, m },
            Op::Const(w) => Flat::PushW { w },
            Op::Un(ins) => Flat::Un { ins },
            Op::JumpIf { when, target: t } => Flat::JumpIf { when, t },
            Op::Deref => Flat::Deref,
            Op::IncDec { ty: Scalar::Int, delta: d, pre } => Flat::IncDecS { d, pre },
            Op::Pop(n) => Flat::Pop { n },
            Op::BinBin { first, then } => match (DOp::of(first), DOp::of(then)) {
                (Some(first), Some(then)) => Flat::BinBinD { first, then },
                _ => Flat::Op,
            },
            Op::AccI { n, k: [(o1, a1), (o2, a2), (o3, a3)] }
                if n == 3 || (n == 2 && (o3, a3) == (IntOp::Add, Src::Int(0))) =>
            {
                match (Arg::of(a1), Arg::of(a2), Arg::of(a3)) {
                    (Some(a1), Some(a2), Some(a3)) => Flat::AccI { ops: [o1, o2, o3], args: [a1, a2, a3] },
                    _ => Flat::Op,
                }
            }
            Op::PElem { depth: 1, off: p, i: Ix { i: Src::Var(1, l), size, len }, load } => {
                Flat::PElemLL { p, l, size, len, load }
            }
            Op::Index { ix: Ix { i: Src::Stack, size, len }, load } => Flat::IndexS { size, len, load },
            _ => Flat::Op,
        }
    }
}

/// What [`run_flat`] returns for the target when it stopped at an operation without a
/// flat kind, which the stretches' own loop then runs, with the rest of the stretch.
pub(super) const HANDOFF: usize = usize::MAX - 1;

/// What [`run_flat`] returns for the target when it charged every stretch it ran and
/// stopped at the start of the next one (the pc it returns), which the stretches' own
/// loop then checks and runs.
pub(super) const CHARGED: usize = usize::MAX - 2;

/// Runs the operations of the stretch `s..end` for a process `p` whose pool words are all
/// its processor's and whose display has entries of depth 0 and 1. With `go` (the code's
/// limits and the stretches' clock), a jump, a call or a return that ends a stretch
/// charges it as [`super::run_stretches`] does, and the stretch at its target runs next
/// when it fits as that loop checks it and starts with an operation of a flat kind.
/// Returns the start of the last stretch run, which is not charged, the pc reached in it
/// and the target of the jump taken (`usize::MAX`: none), as the stretches' own loop
/// gives them; or [`HANDOFF`] at an operation without a flat kind (and at the start, for
/// a pool of more than 2^31 words); or, every stretch run charged, the target and
/// [`CHARGED`]. An operation that would fail stops the stretch before it, so that the
/// interpreter runs it and reports the failure.
#[inline(never)]
pub(in crate::sim::engine) fn run_flat(
    flat: &[FlatStep],
    p: &mut Proc,
    mem: &mut Memory,
    stack: &mut Vec<Word>,
    s: usize,
    end: usize,
    go: Option<(&Limits<'_>, &mut Clock)>,
) -> (usize, usize, usize) {
    // The clock in a local of the loop's own, so that it stays in registers.
    let (more, mut clock) = match &go {
        Some((lim, c)) => (Some(*lim), **c),
        None => (None, Clock::default()),
    };
    let mut round = Round::default();
    let r = flat_loop(flat, p, mem, stack, s, end, more, &mut clock, &mut round);
    if let Some((lim, c)) = go {
        // An operation that would fail may have stopped an iteration of a loop run back
        // to back (its stretch `r.0`): the iterations before it are charged first, then
        // the stretches' loop charges the one stopped, as it would have.
        round.stop(&mut clock, lim, r.0, flat[r.0].end as usize);
        *c = clock;
    }
    r
}

/// A loop whose body is a whole stretch, run in the flat form as the stretches' own loop
/// runs it: after an iteration charged alone, up to [`Clock::loop_fit`] more back to back
/// (`left` of them still to start), each going round with the working stack as high as
/// before (`h`), charged together ([`Clock::charge_loop`]) when they stop (`done`
/// of them).
#[derive(Default)]
struct Round {
    on: bool,
    left: u64,
    done: u64,
    h: usize,
}

impl Round {
    /// Ends the iterations run back to back of the loop `s..end`, if any: those that
    /// went round charged together.
    #[inline(always)]
    fn stop(&mut self, c: &mut Clock, lim: &Limits<'_>, s: usize, end: usize) {
        self.on = false;
        if self.done > 0 {
            c.charge_loop(lim, s, end, self.done);
            self.done = 0;
        }
    }
}

/// [`run_flat`]'s loop, with the stretches' clock `c` when `go` is there.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn flat_loop(
    flat: &[FlatStep],
    p: &mut Proc,
    mem: &mut Memory,
    stack: &mut Vec<Word>,
    s: usize,
    end: usize,
    go: Option<&Limits<'_>>,
    c: &mut Clock,
    r: &mut Round,
) -> (usize, usize, usize) {
    let (mut s, mut end) = (s, end);
    let (g0, l0) = p.display.first_two();
    let (mut gb, mut lb) = (i64::from(g0), i64::from(l0));
    // The pool as a slice, and the addresses inside it ([`Memory::index`]): from `lo` (1
    // when the null address is reserved) to `end_at`.
    let lo = i64::from(mem.null_reserved);
    let mut words = &mut mem.words[..];
    let end_at = words.len() as i64;
    if end_at > 1 << 31 || lb < lo {
        // A pool this large, or a frame at the null address, is left to the stretches'
        // own loop.
        return (s, s, HANDOFF);
    }
    // So an address inside the pool fits an `int`: the slot `LDVal` reads and the one a
    // store to it writes (its address as the `int` `LDADDR` pushes) are the same. A local
    // is at or above `lo`, and so is a global (the translation gives no flat kind to a read
    // of the one at offset 0): either is inside the pool when it is below its end.
    let mut k = s;
    macro_rules! some {
        ($e:expr) => {
            match $e {
                Some(v) => v,
                None => return (s, k, usize::MAX),
            }
        };
    }
    // The pool index of an address at or above `lo` (a local's, a global's), and of any
    // address ([`Memory::index`]).
    macro_rules! below_end {
        ($a:expr) => {
            match $a {
                a if a < end_at => a as usize,
                _ => return (s, k, usize::MAX),
            }
        };
    }
    macro_rules! at {
        ($a:expr) => {{
            let a: i64 = $a;
            if a < lo {
                return (s, k, usize::MAX);
            }
            below_end!(a)
        }};
    }
    macro_rules! loc {
        ($l:expr) => {
            below_end!(lb + $l as i64)
        };
    }
    macro_rules! glo {
        ($g:expr) => {
            below_end!(gb + $g as i64)
        };
    }
    // The address of the variable at offset `$o` of depth `$d` (0 or 1), as `LDADDR`
    // pushes it.
    macro_rules! base {
        ($d:expr, $o:expr) => {
            ((if $d == 0 { gb } else { lb }) + $o as i64) as i32
        };
    }
    // Pushes the element at address `a` (`INDEX` and `Dereference`), or with `load`
    // false the address (`INDEX` alone), as `push_elem` does.
    macro_rules! elem {
        ($a:expr, $load:expr) => {
            if $load {
                let e = at!($a as i64);
                stack.push(words[e]);
            } else {
                stack.push(Word::Int($a));
            }
        };
    }
    // The value of an operand that is a local or a constant.
    macro_rules! arg {
        ($a:expr) => {
            match $a {
                Arg::L(l) => int_of(&words[loc!(l)]),
                Arg::K(v) => v,
            }
        };
    }
    // Every stretch run charged: goes on at `$t` when the stretch there fits as the
    // stretches' own loop checks it and starts with a flat kind.
    macro_rules! next {
        ($lim:expr, $t:expr) => {{
            let t: usize = $t;
            let Some(ft) = flat.get(t) else { return (t, t, CHARGED) };
            let te = ft.end as usize;
            if !matches!(ft.f, Flat::Op | Flat::End) && c.may_start(stack.len(), t, te) && c.fits($lim, t, te) {
                (s, k, end) = (t, t, te);
                continue;
            }
            return (t, t, CHARGED);
        }};
    }
    // A call or a return at `k`, which `$run` runs (`None`: it would not, having changed
    // nothing): the stretch up to it and itself charged as the stretches' own loop
    // charges them, and the run goes on at the pc `$run` gives, in the frame it makes
    // the running function's.
    macro_rules! transfer {
        ($lim:expr, $run:expr) => {{
            let lim = $lim;
            // Not an iteration that goes round: those before it are charged first.
            r.stop(c, lim, s, end);
            let Some(t) = $run else {
                if k > s {
                    c.charge(lim, s, k);
                }
                return (k, k, CHARGED);
            };
            // In one charge: the same clock, crossings and last crossing as the stretch's
            // then the call's (a quantum end crossed by the second falls after the start
            // of the stretch's last instruction, so it is found at the call's start).
            c.charge(lim, s, k + 1);
            let (g0, l0) = p.display.first_two();
            (gb, lb) = (i64::from(g0), i64::from(l0));
            if lb < lo {
                return (t, t, CHARGED);
            }
            words = &mut mem.words[..];
            next!(lim, t);
        }};
    }
    // The jump at `k` to `$t` is taken: the stretch ends with it.
    macro_rules! jump {
        ($t:expr) => {{
            let t = $t as usize;
            if let Some(lim) = go {
                let e = k + flat[k].len as usize;
                let round = t == s && e == end && (!r.on || stack.len() == r.h);
                if r.on {
                    if round {
                        r.done += 1;
                        if r.left > 0 {
                            r.left -= 1;
                            k = s;
                            continue;
                        }
                    }
                    r.stop(c, lim, s, end);
                    if !round {
                        // An iteration that did not go round: charged alone.
                        c.charge(lim, s, e);
                    }
                } else {
                    c.charge(lim, s, e);
                    if round {
                        r.left = c.loop_fit(lim, s, end);
                        if r.left > 0 {
                            (r.on, r.left, r.h) = (true, r.left - 1, stack.len());
                            k = s;
                            continue;
                        }
                    }
                }
                next!(lim, t);
            }
            return (s, k, t);
        }};
    }
    while k < end {
        let x = &flat[k];
        let next = k + x.len as usize;
        // The destination of the store that goes with the operation, if one does.
        let mut dst = usize::MAX;
        if x.put.is_some() {
            let below = stack.len().checked_sub(x.pops as usize + 1);
            dst = at!(int_of(&stack[some!(below)]) as i64);
        }
        match x.f {
            Flat::Op => return (s, k, HANDOFF),
            Flat::End => return (s, k, usize::MAX),
            Flat::Call { func } => {
                let Some(lim) = go else { return (s, k, usize::MAX) };
                transfer!(lim, super::call(p, mem, stack, lim, func, k));
            }
            Flat::Ret { n } => {
                let Some(lim) = go else { return (s, k, usize::MAX) };
                if p.frames.is_empty() {
                    return (s, k, usize::MAX);
                }
                transfer!(lim, super::ret(p, stack, n, lim.funcs).map(|fr| fr.ret_pc as usize));
            }
            Flat::BrLK { c, l, k: v, t } => {
                let i = loc!(l);
                if c.holds(int_of(&words[i]), v) {
                    jump!(t);
                }
            }
            Flat::BrLL { c, l, m, t } => {
                let (i, j) = (loc!(l), loc!(m));
                if c.holds(int_of(&words[i]), int_of(&words[j])) {
                    jump!(t);
                }
            }
            Flat::BrSK { c, k: v, t } => {
                let x = int_of(some!(stack.last()));
                stack.pop();
                if c.holds(x, v) {
                    jump!(t);
                }
            }
            Flat::BrSL { c, l, t } => {
                let y = int_of(&words[loc!(l)]);
                let x = int_of(some!(stack.last()));
                stack.pop();
                if c.holds(x, y) {
                    jump!(t);
                }
            }
            Flat::BrSS { c, t } => {
                let n = stack.len();
                if n < 2 {
                    break;
                }
                let (x, y) = (int_of(&stack[n - 2]), int_of(&stack[n - 1]));
                stack.truncate(n - 2);
                if c.holds(x, y) {
                    jump!(t);
                }
            }
            Flat::IncL { l, d } => {
                let i = loc!(l);
                words[i] = Word::Int(int_of(&words[i]).wrapping_add(d));
            }
            Flat::IncLJ { l, d, t } => {
                let i = loc!(l);
                words[i] = Word::Int(int_of(&words[i]).wrapping_add(d));
                jump!(t);
            }
            Flat::Jmp { t } => jump!(t),
            Flat::PushL { l } => {
                let i = loc!(l);
                stack.push(words[i]);
            }
            Flat::PushG { g } => {
                let i = glo!(g);
                stack.push(words[i]);
            }
            Flat::PushK { k: v } => stack.push(Word::Int(v)),
            Flat::AddrL { l } => stack.push(Word::Int((lb + l as i64) as i32)),
            Flat::BinSS { op } => {
                let n = stack.len();
                if n < 2 {
                    break;
                }
                let r = some!(op.apply(int_of(&stack[n - 2]), int_of(&stack[n - 1])));
                stack.truncate(n - 1);
                stack[n - 2] = Word::Int(r);
            }
            Flat::BinSL { op, l } => {
                let i = loc!(l);
                let y = int_of(&words[i]);
                let top = some!(stack.last_mut());
                *top = Word::Int(some!(op.apply(int_of(top), y)));
            }
            Flat::BinSK { op, k: v } => {
                let top = some!(stack.last_mut());
                *top = Word::Int(some!(op.apply(int_of(top), v)));
            }
            Flat::BinLK { op, l, k: v } => {
                let i = loc!(l);
                stack.push(Word::Int(some!(op.apply(int_of(&words[i]), v))));
            }
            Flat::BinLL { op, l, m } => {
                let (i, j) = (loc!(l), loc!(m));
                stack.push(Word::Int(some!(op.apply(int_of(&words[i]), int_of(&words[j])))));
            }
            Flat::BinBinSS { first, then } => {
                let n = stack.len();
                if n < 3 {
                    break;
                }
                let yz = some!(first.apply(int_of(&stack[n - 2]), int_of(&stack[n - 1])));
                let r = some!(then.apply(int_of(&stack[n - 3]), yz));
                stack.truncate(n - 2);
                stack[n - 3] = Word::Int(r);
            }
            Flat::ElemGL { g, l, size, len, load } => {
                let i = loc!(l);
                let a = some!(index((gb + g as i64) as i32, int_of(&words[i]), size, len));
                elem!(a, load);
            }
            Flat::ElemAK { d, a: b, k: v, size, len, load } => {
                let a = some!(index(base!(d, b), v, size, len));
                elem!(a, load);
            }
            Flat::ElemLL { a: b, l, size, len, load } => {
                let i = loc!(l);
                let a = some!(index((lb + b as i64) as i32, int_of(&words[i]), size, len));
                elem!(a, load);
            }
            Flat::Elem2ALL { d, a: b, l, size, len, m, size2, len2, load } => {
                let (i, j) = (loc!(l), loc!(m));
                let a = some!(index(base!(d, b), int_of(&words[i]), size, len));
                let a = some!(index(a, int_of(&words[j]), size2, len2));
                elem!(a, load);
            }
            Flat::SetElemALK { d, a: b, l, size, len, k: v, ty } => {
                let i = loc!(l);
                let a = some!(index(base!(d, b), int_of(&words[i]), size, len));
                let e = at!(a as i64);
                put_word(ty, &Word::Int(v), &mut words[e]);
            }
            Flat::SetElemALL { d, a: b, l, size, len, m, ty } => {
                let i = loc!(l);
                let a = some!(index(base!(d, b), int_of(&words[i]), size, len));
                let w = words[loc!(m)];
                let e = at!(a as i64);
                put_word(ty, &w, &mut words[e]);
            }
            Flat::SetLK { l, k: v } => {
                let i = loc!(l);
                words[i] = Word::Int(v);
            }
            Flat::SetLL { l, m } => {
                let w = int_of(&words[loc!(m)]);
                let i = loc!(l);
                words[i] = Word::Int(w);
            }
            Flat::UpdLL { l, op, m } => {
                let i = loc!(l);
                let y = int_of(&words[loc!(m)]);
                words[i] = Word::Int(some!(op.apply(int_of(&words[i]), y)));
            }
            Flat::UpdLK { l, op, k: v } => {
                let i = loc!(l);
                words[i] = Word::Int(some!(op.apply(int_of(&words[i]), v)));
            }
            Flat::ElemXALK { d, a: b, first, l, k: v, size, len, load } => {
                let i = some!(first.apply(int_of(&words[loc!(l)]), v));
                let a = some!(index(base!(d, b), i, size, len));
                elem!(a, load);
            }
            Flat::ElemXALKL { d, a: b, first, l, k: v, then, m, size, len, load } => {
                let i = some!(first.apply(int_of(&words[loc!(l)]), v));
                let i = some!(then.apply(i, int_of(&words[loc!(m)])));
                let a = some!(index(base!(d, b), i, size, len));
                elem!(a, load);
            }
            Flat::AddrDerefL { l } => {
                let a = (lb + l as i64) as i32;
                let i = at!(a as i64);
                stack.push(Word::Int(a));
                stack.push(words[i]);
            }
            Flat::PopToL { l, ty } => {
                let i = loc!(l);
                let v = *some!(stack.last());
                put_word(ty, &v, &mut words[i]);
                stack.pop();
            }
            Flat::Bin2 { first, a, b, then, c } => {
                let r = some!(first.apply(arg!(a), arg!(b)));
                let r = some!(then.apply(r, arg!(c)));
                stack.push(Word::Int(r));
            }
            Flat::BinW { ins } => {
                let n = stack.len();
                if n < 2 {
                    break;
                }
                let y = stack[n - 1];
                let (x, dst) = (stack[n - 2], &mut stack[n - 2]);
                some!(binary(ins, x, y, dst));
                stack.pop();
            }
            Flat::BinWSL { ins, l } => {
                let y = words[loc!(l)];
                let dst = some!(stack.last_mut());
                some!(binary(ins, *dst, y, dst));
            }
            Flat::BinWLL { ins, l, m } => {
                let (x, y) = (words[loc!(l)], words[loc!(m)]);
                stack.push(Word::Int(0));
                if binary(ins, x, y, some!(stack.last_mut())).is_none() {
                    stack.pop();
                    break;
                }
            }
            Flat::PushW { w } => stack.push(w),
            Flat::Un { ins } => {
                // Matched in place and written in each case, as `run` does (and `!x`).
                let x = some!(stack.last_mut());
                match (ins, &*x) {
                    (Instr::Convert { to: Scalar::Double }, &Word::Int(i)) => *x = Word::Double(f64::from(i)),
                    (Instr::Convert { to: Scalar::Char }, &Word::Int(i)) => *x = Word::Char(i as u8),
                    (Instr::LogNot {}, &w) => *x = Word::Int(i32::from(!truthy(w))),
                    _ => *x = unary_out_of_line(ins, *x),
                }
            }
            Flat::JumpIf { when, t } => {
                let w = some!(stack.pop());
                if truthy(w) == when {
                    jump!(t);
                }
            }
            Flat::Deref => {
                let w = some!(stack.last_mut());
                let i = at!(int_of(w) as i64);
                *w = words[i];
            }
            Flat::IncDecS { d, pre } => {
                let top = some!(stack.last_mut());
                let i = at!(int_of(top) as i64);
                let old = int_of(&words[i]);
                let new = old.wrapping_add(d);
                words[i] = Word::Int(new);
                *top = Word::Int(if pre { new } else { old });
            }
            Flat::Pop { n } => {
                let l = stack.len().saturating_sub(n as usize);
                stack.truncate(l);
            }
            Flat::BinBinD { first, then } => {
                let n = stack.len();
                if n < 3 {
                    break;
                }
                match (stack[n - 3], stack[n - 2], stack[n - 1]) {
                    (Word::Double(x), Word::Double(y), Word::Double(z)) => {
                        stack[n - 3] = Word::Double(then.apply(x, first.apply(y, z)));
                    }
                    (x, y, z) => {
                        let mut r = Word::Int(0);
                        some!(binary(first.ins(), y, z, &mut r));
                        some!(binary(then.ins(), x, r, &mut stack[n - 3]));
                    }
                }
                stack.truncate(n - 2);
            }
            Flat::AccI { ops, args } => {
                let [a, b, c] = args;
                let top = some!(stack.last_mut());
                let x = some!(ops[0].apply(int_of(top), arg!(a)));
                let x = some!(ops[1].apply(x, arg!(b)));
                *top = Word::Int(some!(ops[2].apply(x, arg!(c))));
            }
            Flat::PElemLL { p, l, size, len, load } => {
                let base = int_of(&words[loc!(p)]);
                let i = int_of(&words[loc!(l)]);
                let a = some!(index(base, i, size, len));
                elem!(a, load);
            }
            Flat::IndexS { size, len, load } => {
                let n = stack.len();
                if n < 2 {
                    break;
                }
                let a = some!(index(int_of(&stack[n - 2]), int_of(&stack[n - 1]), size, len));
                stack[n - 2] = if load { words[at!(a as i64)] } else { Word::Int(a) };
                stack.truncate(n - 1);
            }
        }
        if let Some(ty) = x.put {
            // The operation left its value above the address checked.
            let l = stack.len();
            put_word(ty, &stack[l - 1], &mut words[dst]);
            stack.truncate(l - 2);
        }
        k = next;
    }
    (s, k, usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The steps of the CPC program `src` and their flat form.
    fn flat_of(src: &str) -> (Vec<Step>, Vec<FlatStep>) {
        let m = crate::lang::compile("t.c", src, &crate::lang::FrontOptions::default()).unwrap().module;
        let steps = Step::all(&m.code);
        let flat = FlatStep::all(&steps);
        (steps, flat)
    }

    /// The name of a flat kind (its `Debug` form up to its fields).
    fn name(f: &Flat) -> String {
        format!("{f:?}").split([' ', '{', '(']).next().unwrap_or("").to_string()
    }

    #[test]
    fn every_flat_kind_is_made_from_its_shape() {
        // The program of `flat_kinds_change_no_result` has each shape where the flat
        // form runs it: in a stretch run in the flat form, before any operation without
        // a flat kind. So that test runs every kind.
        let (steps, flat) = flat_of(crate::sim::engine::tests::FLAT_SRC);
        let mut kinds = std::collections::BTreeSet::new();
        for s in (0..flat.len()).filter(|&pc| flat[pc].go) {
            let mut pc = s;
            while pc < steps[s].end as usize && flat[pc].f != Flat::Op {
                kinds.insert(name(&flat[pc].f));
                pc += steps[pc].len as usize;
            }
        }
        let all = [
            "BrLK",
            "BrLL",
            "BrSK",
            "BrSL",
            "BrSS",
            "IncL",
            "IncLJ",
            "Jmp",
            "PushL",
            "PushG",
            "PushK",
            "AddrL",
            "BinSS",
            "BinSL",
            "BinSK",
            "BinLK",
            "BinLL",
            "BinBinSS",
            "ElemGL",
            "ElemAK",
            "ElemLL",
            "Elem2ALL",
            "SetElemALK",
            "SetElemALL",
            "SetLK",
            "SetLL",
            "UpdLL",
            "UpdLK",
            "ElemXALK",
            "ElemXALKL",
            "AddrDerefL",
            "Bin2",
            "BinW",
            "BinWSL",
            "BinWLL",
            "PushW",
            "Un",
            "JumpIf",
            "Deref",
            "IncDecS",
            "Pop",
            "BinBinD",
            "AccI",
            "PElemLL",
            "IndexS",
            "Call",
            "Ret",
        ];
        let missing: Vec<&str> = all.iter().copied().filter(|k| !kinds.contains(*k)).collect();
        assert!(missing.is_empty(), "no {missing:?} in {kinds:?}");
    }

    #[test]
    fn a_flat_step_is_forty_bytes() {
        // A kind with its operands in 32 bytes (the largest: `Elem2ALL`'s seven 32-bit
        // fields, its depth and its flag, and `PushW`'s 16-byte word, 8-aligned), and its step's
        // lengths, store, flag and stretch end in the 8 bytes after it.
        assert_eq!(std::mem::size_of::<Flat>(), 32);
        assert_eq!(std::mem::size_of::<FlatStep>(), 40);
    }

    #[test]
    fn a_stretch_runs_flat_when_it_starts_flat_and_has_three_operations() {
        // `go` from its definition: the operations from the pc to its stretch's end,
        // counted one by one (the translation counts them backwards, once).
        let (steps, flat) = flat_of(crate::sim::engine::tests::FLAT_SRC);
        let mut some = 0;
        for pc in 0..steps.len() {
            let (mut k, mut n) = (pc, 0);
            while k < steps[pc].end as usize {
                k += steps[k].len as usize;
                n += 1;
            }
            let starts_flat = !matches!(flat[pc].f, Flat::Op | Flat::End);
            assert_eq!(flat[pc].go, starts_flat && n >= FlatStep::MIN_OPS, "pc {pc}");
            some += usize::from(flat[pc].go);
        }
        assert!(some > 10, "{some}");
    }

    #[test]
    fn a_program_takes_the_flat_instance_when_a_stretch_runs_in_the_flat_form() {
        // A recursive fib's stretch from its start, `n < 2` then `return n`, is three
        // operations of flat kinds: the run goes on through its calls and returns in the
        // flat form. A program of one call to printf has no stretch of three operations.
        let fib = "int fib(int n) {
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}
void main() { printf(\"%d\\n\", fib(20)); }";
        let worth = |src: &str| FlatStep::worth(&flat_of(src).1);
        assert!(worth(fib));
        assert!(worth(crate::sim::engine::tests::FLAT_SRC));
        assert!(!worth("void main() { printf(\"%d\\n\", 1); }"));
    }

    #[test]
    fn a_matrix_product_s_inner_loop_is_all_flat() {
        // `for (k = 0; k < n; k++) s = s + a[i][k] * b[k][j];`: the loop test, the address
        // of `s` and its value, both elements, the multiply-add with its store and the
        // increment with its jump back, each one flat operation; the stretch from the
        // test is run in the flat form.
        let src = "int a[4][4], b[4][4];
void main() {
    int i, j, k, s;
    for (k = 0; k < 4; k++)
        s = s + a[i][k] * b[k][j];
}";
        let (steps, flat) = flat_of(src);
        let start = (0..flat.len()).find(|&pc| matches!(flat[pc].f, Flat::BrLK { .. })).expect("the loop test");
        assert!(flat[start].go);
        let mut kinds = Vec::new();
        let mut pc = start;
        while pc < steps[start].end as usize {
            kinds.push(name(&flat[pc].f));
            pc += steps[pc].len as usize;
        }
        assert_eq!(kinds, ["BrLK", "AddrL", "PushL", "Elem2ALL", "Elem2ALL", "BinBinSS", "IncLJ"]);
    }

    /// The kinds of the operations of the loop whose test is the first `BrLL` of `src`,
    /// from the test to the jump back.
    fn loop_kinds(src: &str) -> Vec<String> {
        let (steps, flat) = flat_of(src);
        let start = (0..flat.len()).find(|&pc| matches!(flat[pc].f, Flat::BrLL { .. })).expect("the loop test");
        let mut kinds = Vec::new();
        let mut pc = start;
        while pc < steps[start].end as usize {
            kinds.push(name(&flat[pc].f));
            pc += steps[pc].len as usize;
        }
        kinds
    }

    #[test]
    fn a_pointer_walk_and_local_arrays_are_flat() {
        // `p += step` (`ADDRADD 1`, an addition) is an update of a local, as `i += step`:
        // the loop `p < end; *p = 1; p += step` has no operation left to the stretches'
        // loop.
        let walk = "char buf[8];
void main() {
    char *p, *end;
    int step;
    for (p = buf; p < end; p += step)
        *p = 1;
}";
        assert_eq!(loop_kinds(walk), ["BrLL", "PushL", "PushW", "UpdLL", "Jmp"]);
        // fannkuch's reversal on arrays of main's frame: an element by a local given a
        // local (`SetElemALL`) and read by a local, as on global arrays.
        let local = "void main() {
    int perm[9], i, j, t;
    while (i < j) {
        t = perm[i]; perm[i] = perm[j]; perm[j] = t;
        i++;
        j--;
    }
}";
        let kinds = loop_kinds(local);
        assert_eq!(kinds, ["BrLL", "AddrL", "ElemLL", "ElemLL", "ElemLL", "SetElemALL", "IncL", "IncLJ"]);
        // An element of a local array by a constant, of a local 2-D array by two locals, by
        // `i - 1` and by `i + 1 - j`.
        let (_, flat) = flat_of(
            "void main() {
    int a[6], m[3][4], i, j, t;
    t = a[0] + m[i][j] + a[i - 1] + a[i + 1 - j];
}",
        );
        let of_frame = |f: &Flat| {
            matches!(
                f,
                Flat::ElemAK { d: 1, .. }
                    | Flat::Elem2ALL { d: 1, .. }
                    | Flat::ElemXALK { d: 1, .. }
                    | Flat::ElemXALKL { d: 1, .. }
            )
        };
        let kinds: Vec<String> = flat.iter().filter(|f| of_frame(&f.f)).map(|f| name(&f.f)).collect();
        for k in ["ElemAK", "Elem2ALL", "ElemXALK", "ElemXALKL"] {
            assert!(kinds.iter().any(|x| x == k), "no {k} in {kinds:?}");
        }
        // A `switch` keeps its value in a local (`LDADDR; SWAP; STORE`): one operation,
        // and an unsigned index (converted to `int` before `INDEX`) is an element too.
        let (_, flat) = flat_of(
            "int g[8];
void main() {
    int i, s;
    unsigned int u;
    switch (i & 3) {
    case 0: s = g[u & 7]; break;
    default: s = 2;
    }
}",
        );
        assert!(flat.iter().any(|f| matches!(f.f, Flat::PopToL { ty: Scalar::Int, .. })));
        assert!(flat.iter().any(|f| matches!(f.f, Flat::ElemXALK { d: 0, first: IntOp::And, k: 7, load: true, .. })));
    }
}
