//! The hot loop of the vCode interpreter: runs the instructions that touch only the
//! running process and the memory pool (loads, stores, arithmetic, jumps, calls and
//! returns that fit in the current frame segment) without allocating, and leaves for
//! everything else ([`super::Simulator::exec_complex`]). Depends on the process and
//! frame types of [`super`] and on the memory pool.
//!
//! Speed matters here more than anywhere (a sequential program spends nearly all its
//! host time in this loop), so the running process's pc, clock and working stack live
//! in locals and are written back once, when the loop ends; the cost of every
//! instruction kind is looked up in ticks already multiplied by the processor's speed;
//! and when every word of the pool belongs to the running process's processor (always
//! so on one processor) the remote-access bookkeeping is compiled out (`CHECK`). Without
//! the debugger, the program runs in the form translated at load time
//! ([`super::block`]): straight stretches of operations that each stand for a run of
//! instructions (an operand folded into the instruction that uses it, an array element in
//! one, a comparison with its branch), charged by prefix sums, with the quantum and the
//! step limit checked once per stretch, and a loop whose body is one stretch run back to
//! back; the rules are on vCode's shapes, so every spelling of a loop or a sum compiling
//! to the same shapes is as fast. The charges, quantum ends, failures and busy time per
//! instruction are exactly those of the instructions run one by one; the `.cod` code
//! itself is unchanged. Everything else runs here one instruction at a time, and so does
//! an operation that would touch another processor's word (a remote access).
use super::arith;
use super::block::{self, Step};
use super::{
    as_double, as_float, as_int, convert, math, math_d, push_frame_on, truthy, Acc, Exit, FnLite, Proc,
    MAX_WORKING_STACK,
};
use crate::sim::memory::Memory;
use crate::sim::RuntimeError;
use crate::time::Ticks;
use crate::vcode::{Instr, Scalar, Word};

/// What one call of [`interp`] needs besides the process and the pool.
pub(super) struct Env<'a> {
    pub(super) code: &'a [Step],
    /// The flat form of the code ([`block::FlatStep`]).
    pub(super) flat: &'a [block::FlatStep],
    /// Some stretch of the code is run in the flat form.
    pub(super) flat_any: bool,
    pub(super) funcs: &'a [FnLite],
    /// Ticks an instruction of each opcode advances the clock (0 while timing is off).
    pub(super) ticks: &'a [Ticks; 256],
    /// Ticks of sequential time per opcode (0 for overhead, or while timing is off).
    pub(super) seq: &'a [Ticks; 256],
    /// The prefix sums of the ticks and of the sequential ticks over the code
    /// ([`block::Charges`]); empty: every instruction runs alone (while timing is off).
    pub(super) cum: &'a [Ticks],
    pub(super) cum_seq: &'a [Ticks],
    /// [`block::Charges::seq_same`], with timing on.
    pub(super) seq_same: bool,
    /// [`block::Charges::tmax`].
    pub(super) tmax: Ticks,
    pub(super) max_stack: u32,
    /// The quantum length.
    pub(super) q: Ticks,
    /// The process may go on into the next quantum at a quantum end `e <= cross_max`
    /// (when its clock is before the next quantum's end): see
    /// [`super::Simulator::solo_cross`], which works out this bound. 0: never.
    pub(super) cross_max: Ticks,
    /// Debugger stops (read only by `interp::<_, true>`): bit `pc` set means "suspend
    /// before executing `pc`".
    pub(super) stops: &'a [u64],
    /// Do not stop before the first instruction (the one a suspension was at).
    pub(super) skip_first: bool,
    /// Traced address ranges `lo..hi`: an instruction referencing one suspends after it.
    pub(super) traced: &'a [(u32, u32)],
    /// With `LINES`: per pc, whether it is library code, whose time goes to the line of
    /// the program's call into the library (`Proc::line_site`).
    pub(super) lib: &'a [bool],
}

/// Counters of one call of [`interp`].
pub(super) struct Ctr {
    /// Sequential time charged, in ticks.
    pub(super) seq: Ticks,
    /// Instructions the run may still execute (the step limit); decremented per step.
    pub(super) steps_left: u64,
    /// The current quantum's end; moved on by each quantum end crossed.
    pub(super) qend: Ticks,
    /// Quantum ends crossed, and the process's clock at the last one.
    pub(super) crossed: u64,
    pub(super) cross_clock: Ticks,
    /// The last instruction referenced a traced address (debug variant only).
    pub(super) trace_hit: bool,
    /// With `LINES`: the calls and returns of the turn, `(time, function)`, a return's
    /// function with [`LEAVE`] set; the caller reports them and clears the list (its
    /// capacity is kept from turn to turn, so the loop does not allocate).
    pub(super) calls: Vec<(Ticks, u32)>,
}

/// Marks a return in [`Ctr::calls`].
pub(super) const LEAVE: u32 = 1 << 31;

/// A turn that cannot go past the quantum's end (the process shares the machine with
/// others that are due) enters the stretches ([`super::block`]) only when the
/// instructions from its start up to this many fit before that end: entering them costs
/// about what interpreting a few instructions one at a time does, and a turn of the
/// default quantum (10) holds five to ten instructions. Measured on Cannon's algorithm,
/// an MPI program and a parallel sieve: 10 and 16 give the same, 6 keeps half the cost.
const MIN_ROOM: usize = 10;

/// Runs simple instructions of `p` until the quantum ends (and cannot be crossed), the
/// step limit is reached, an instruction needs the whole machine, or (with `CHECK`) an
/// instruction accessed a word of another processor. Every executed instruction is
/// charged here. `CHECK` false is only allowed when every word of `mem` is owned by
/// `p.pproc`. `DEBUG` adds the debugger's stops ([`Env::stops`], [`Env::traced`]); without
/// it they compile away.
/// With `LINES`, the ticks of every instruction run are added to `pc_ticks[pc]` (library
/// code's to the program's call into the library), so that the ticks per instruction sum
/// to the busy time the turn adds; only run records ask for it.
pub(super) fn interp<const CHECK: bool, const DEBUG: bool, const LINES: bool>(
    env: &Env<'_>,
    p: &mut Proc,
    mem: &mut Memory,
    ctr: &mut Ctr,
    pc_ticks: &mut [Ticks],
) -> Result<Exit, RuntimeError> {
    let me = p.pproc;
    let (ticks, seqt, code) = (env.ticks, env.seq, env.code);
    let mut pc = p.pc as usize;
    let mut clock = p.clock;
    let mut qend = ctr.qend;
    let mut steps = ctr.steps_left;
    let mut seq: Ticks = 0;
    // Taken out of `p` so that it can live in registers; put back below.
    let mut stack = std::mem::take(&mut p.stack);
    let mut acc = Acc::default();
    let mut skip = DEBUG && env.skip_first;
    let mut traced_hit = false;
    // An operation of `super::block` found that it would fail here: its first instruction
    // runs alone.
    let mut bail = usize::MAX;
    // The step whose clock advance is not charged to its instruction yet.
    let (mut line_pc, mut line_clock) = (pc, clock);
    // The program's call into the library (with `LINES`): library code's time goes there.
    let mut site = p.line_site() as usize;
    if LINES && env.lib.get(pc) == Some(&true) {
        line_pc = site;
    }

    // Whether this turn enters the stretches at all (see [`MIN_ROOM`]); near the code's
    // end, the instructions left count (a loop there is not left to run alone).
    let stretches = env.cross_max >= qend
        || match (env.cum.get(pc), env.cum.get(pc + MIN_ROOM).or(env.cum.last())) {
            (Some(&a), Some(&b)) => clock.saturating_add(b - a) < qend,
            _ => false,
        };
    let r: Result<Exit, RuntimeError> = 'run: loop {
        // Defined inside the loop so that they can leave it by its label.
        macro_rules! fail {
            ($e:expr) => {
                break 'run Err($e)
            };
        }
        macro_rules! bad {
            ($m:expr) => {
                fail!(RuntimeError::BadCode { message: $m.into() })
            };
        }
        macro_rules! pop {
            () => {
                match stack.pop() {
                    Some(w) => w,
                    None => bad!("working stack underflow"),
                }
            };
        }
        macro_rules! index {
            ($a:expr) => {{
                let a: i64 = $a;
                match mem.index(a) {
                    Some(i) => i,
                    None if a == 0 && mem.null_reserved => fail!(RuntimeError::NullPointer),
                    None => fail!(RuntimeError::BadAddress { addr: a }),
                }
            }};
        }
        macro_rules! rd {
            ($a:expr) => {{
                let i = index!($a);
                if DEBUG && env.traced.iter().any(|&(lo, hi)| (lo as usize..hi as usize).contains(&i)) {
                    traced_hit = true;
                }
                if CHECK && mem.owner[i] != me {
                    acc.read(mem.owner[i], i);
                    // Its own writes that have not landed yet (program order).
                    match p.rare.as_ref().and_then(|r| r.unlanded.get(&(i as u32))) {
                        Some(&(w, _)) => w,
                        None => mem.words[i],
                    }
                } else {
                    mem.words[i]
                }
            }};
        }
        macro_rules! wr {
            ($a:expr, $w:expr) => {{
                let i = index!($a);
                if DEBUG && env.traced.iter().any(|&(lo, hi)| (lo as usize..hi as usize).contains(&i)) {
                    traced_hit = true;
                }
                let w: Word = $w;
                if CHECK && mem.owner[i] != me {
                    // Lands in the owner's memory when its message arrives.
                    acc.write(mem.owner[i], i);
                    acc.vals.push((i as u32, w));
                } else {
                    mem.words[i] = w;
                }
            }};
        }
        macro_rules! var_addr {
            ($depth:expr, $off:expr) => {
                match p.display.get($depth as usize) {
                    Some(b) => b as i64 + $off as i64,
                    None => fail!(RuntimeError::BadCode { message: format!("variable depth {}", $depth) }),
                }
            };
        }

        if LINES {
            if let Some(t) = pc_ticks.get_mut(line_pc) {
                *t += clock - line_clock;
            }
            line_pc = if env.lib.get(pc) == Some(&true) { site } else { pc };
            line_clock = clock;
        }
        if clock >= qend {
            // Cheap: reached once per quantum.
            if qend <= env.cross_max && clock < qend + env.q {
                ctr.crossed += 1;
                ctr.cross_clock = clock;
                qend += env.q;
            } else {
                break 'run Ok(Exit::Quantum);
            }
        }
        if steps == 0 {
            break 'run Ok(Exit::Steps);
        }
        if DEBUG {
            if !skip && env.stops.get(pc / 64).is_some_and(|&b| b >> (pc % 64) & 1 == 1) {
                break 'run Ok(Exit::Stop);
            }
            skip = false;
        }
        let Some(step) = code.get(pc) else {
            fail!(RuntimeError::BadCode { message: format!("pc {pc} outside the code") });
        };
        if !DEBUG && stretches && pc != bail && !env.cum.is_empty() && step.end as usize >= pc + 3 && {
            // Entered only when it runs something: with `CHECK` (which runs the operations
            // of a stretch that fit) its first operation fits before the quantum's end,
            // without it the whole stretch does (the stretches' loop runs no part of one
            // that does not fit); or the whole stretch may cross it.
            let at = |k: usize| clock.saturating_add(env.cum[k] - env.cum[pc]);
            at(if CHECK { pc + step.len as usize } else { step.end as usize } - 1) < qend
                || (env.q > 0 && env.tmax <= env.q && at(step.end as usize - 1) <= env.cross_max)
        } {
            // Straight stretches of translated operations (see `super::block`); one or two
            // instructions before a call or a return run alone, for less than entering
            // the stretches costs (recursive Fibonacci: 20 % less time).
            let mut b = block::State {
                pc,
                c: block::Clock { clock, qend, steps, ..block::Clock::default() },
                cross_clock: 0,
                bail: usize::MAX,
                site,
            };
            let limits = block::Limits {
                cum: env.cum,
                cum_seq: env.cum_seq,
                seq_same: env.seq_same,
                q: env.q,
                cross_max: env.cross_max,
                crossable: env.q > 0 && env.tmax <= env.q,
                me: if CHECK { me } else { u32::MAX },
                funcs: env.funcs,
                max_stack: env.max_stack,
                flat: env.flat,
            };
            let lines = block::Lines { pc_ticks: &mut *pc_ticks, lib: env.lib, ticks, calls: &mut ctr.calls };
            // Where processors share the pool, a stretch longer than the quantum's rest
            // runs the operations that fit (`PREFIX`); alone, the quantum ends are crossed.
            // Where the pool is all this processor's and no line costs are kept, a program
            // with stretches in the flat form runs them so (`FLAT`, see `block::flat`).
            if !CHECK && !LINES && env.flat_any {
                block::run_stretches::<false, false, true>(code, &limits, p, mem, &mut stack, &mut b, lines);
            } else {
                block::run_stretches::<LINES, CHECK, false>(code, &limits, p, mem, &mut stack, &mut b, lines);
            }
            if b.c.steps != steps {
                (pc, clock, qend, steps, bail, site) = (b.pc, b.c.clock, b.c.qend, b.c.steps, b.bail, b.site);
                seq += b.c.seq;
                if b.c.crossed > 0 {
                    ctr.crossed += b.c.crossed;
                    ctr.cross_clock = b.cross_clock;
                }
                if LINES {
                    line_clock = clock;
                }
                continue;
            }
        }
        let (ins, op) = (step.ins, step.op);
        let mut next = pc + 1;
        match ins {
            Instr::Nop {} => {}
            Instr::PushI { v } => stack.push(Word::Int(v)),
            Instr::PushF { v } => stack.push(Word::Float(v)),
            Instr::PushC { v } => stack.push(Word::Char(v)),
            Instr::Pop { n } => {
                let l = stack.len().saturating_sub(n as usize);
                stack.truncate(l);
            }
            Instr::Dup {} => match stack.last() {
                Some(&w) => stack.push(w),
                None => bad!("DUP on empty stack"),
            },
            Instr::Swap {} => {
                let l = stack.len();
                if l < 2 {
                    bad!("SWAP on short stack");
                }
                stack.swap(l - 1, l - 2);
            }
            Instr::LdAddr { depth, off } => {
                let a = var_addr!(depth, off);
                stack.push(Word::Int(a as i32));
            }
            Instr::LdVal { depth, off } => {
                let w = rd!(var_addr!(depth, off));
                stack.push(w);
            }
            Instr::LdIndirect { depth, off } => {
                let ptr = as_int(rd!(var_addr!(depth, off)));
                let w = rd!(ptr as i64);
                stack.push(w);
            }
            Instr::Dereference {} => {
                let a = as_int(pop!());
                let w = rd!(a as i64);
                stack.push(w);
            }
            Instr::LoadBlock { n } => {
                let a = as_int(pop!()) as i64;
                for k in 0..n as i64 {
                    let w = rd!(a + k);
                    stack.push(w);
                }
            }
            Instr::Store { ty, keep } => {
                let v = convert(pop!(), ty);
                let a = as_int(pop!()) as i64;
                wr!(a, v);
                if keep {
                    stack.push(v);
                }
            }
            Instr::CopyBlock { n } => {
                let src = as_int(pop!()) as i64;
                let dst = as_int(pop!()) as i64;
                for k in 0..n as i64 {
                    let w = rd!(src + k);
                    wr!(dst + k, w);
                }
            }
            Instr::StoreBlock { n } => {
                let l = stack.len();
                let n = n as usize;
                if l < n + 1 {
                    bad!("StoreBlock on short stack");
                }
                let a = as_int(stack[l - n - 1]) as i64;
                for k in 0..n {
                    let w = stack[l - n + k];
                    wr!(a + k as i64, w);
                }
                stack.truncate(l - n - 1);
            }
            Instr::Index { size, len } => {
                let i = as_int(pop!());
                let base = as_int(pop!());
                if len > 0 && (i < 0 || i as u32 >= len) {
                    fail!(RuntimeError::IndexOutOfBounds { index: i, len });
                }
                stack.push(Word::Int(base.wrapping_add(i.wrapping_mul(size as i32))));
            }
            Instr::AddrAdd { size } => {
                let i = as_int(pop!());
                let a = as_int(pop!());
                stack.push(Word::Int(a.wrapping_add(i.wrapping_mul(size as i32))));
            }
            Instr::IncDec { ty, delta, pre } => {
                let a = as_int(pop!()) as i64;
                let old = rd!(a);
                let new = arith::inc_dec(old, ty, delta);
                wr!(a, new);
                stack.push(if pre { new } else { convert(old, ty) });
            }
            Instr::CheckWord { ty } => {
                let Some(&w) = stack.last() else { bad!("CHECKWORD on an empty stack") };
                let found = match w {
                    Word::Int(0) => None,
                    Word::Int(_) if ty == Scalar::Int => None,
                    Word::Float(_) if ty == Scalar::Float => None,
                    Word::Char(_) if ty == Scalar::Char => None,
                    Word::Double(_) if ty == Scalar::Double => None,
                    Word::Long(_) if ty == Scalar::Long => None,
                    Word::Long(_) => Some("long"),
                    Word::Int(_) => Some("int"),
                    Word::Float(_) => Some("float"),
                    Word::Char(_) => Some("char"),
                    Word::Double(_) => Some("double"),
                };
                if let Some(found) = found {
                    let wanted = ty.name();
                    fail!(RuntimeError::UnionPun { wanted, found });
                }
            }
            Instr::PushD { v } => stack.push(Word::Double(v)),
            Instr::PushL { v } => stack.push(Word::Long(v)),
            Instr::Jump { target } => next = target as usize,
            Instr::JumpIfFalse { target } => {
                if !truthy(pop!()) {
                    next = target as usize;
                }
            }
            Instr::JumpIfTrue { target } => {
                if truthy(pop!()) {
                    next = target as usize;
                }
            }
            Instr::Call { .. } | Instr::CallInd {} => {
                let func = match ins {
                    Instr::Call { func } => func,
                    // Through a pointer (on top): a bad one is left to the general path,
                    // which reports it.
                    _ => match stack.last().map(|w| as_int(*w)) {
                        Some(v) if v > 0 && ((v - 1) as usize) < env.funcs.len() => (v - 1) as u32,
                        _ => break 'run Ok(Exit::Complex),
                    },
                };
                let Some(&f) = env.funcs.get(func as usize) else {
                    fail!(RuntimeError::BadCode { message: format!("call of function {func}") });
                };
                let n = f.frame.max(f.params);
                if p.frame_words.saturating_add(n) > env.max_stack {
                    fail!(RuntimeError::StackOverflow { limit: env.max_stack });
                }
                // A new segment is left to the general path.
                let Some(place) = p.frame_place(n) else { break 'run Ok(Exit::Complex) };
                p.take_place(place);
                let base = place.2;
                if matches!(ins, Instr::CallInd {}) {
                    stack.pop();
                }
                p.pc = pc as u32;
                if let Err(e) = push_frame_on::<false>(p, &mut stack, mem, f, base, pc as u32 + 1) {
                    fail!(e);
                }
                if LINES {
                    ctr.calls.push((clock + ticks[op as usize], func));
                    if env.lib.get(pc) != Some(&true) {
                        site = pc;
                    }
                }
                // As the pc is the callee's entry from here on (also for an error below).
                pc = p.pc as usize;
                next = pc;
            }
            Instr::Ret { n } => {
                if p.frames.is_empty() {
                    break 'run Ok(Exit::Complex);
                }
                let Some(fr) = block::ret(p, &mut stack, n, env.funcs) else { bad!("RET with a short stack") };
                if LINES {
                    ctr.calls.push((clock + ticks[op as usize], fr.func | LEAVE));
                }
                next = fr.ret_pc as usize;
            }
            Instr::Vproc {} => stack.push(Word::Int(p.vproc as i32)),
            Instr::Pid {} => stack.push(Word::Int(p.pid as i32)),
            Instr::SimTime {} => stack.push(Word::Double(clock as f64 / crate::time::TICKS_PER_UNIT as f64)),
            _ if arith::is_binary(ins) => {
                let b = pop!();
                let a = pop!();
                match arith::binary(ins, a, b) {
                    Ok(w) => stack.push(w),
                    Err(e) => fail!(e),
                }
            }
            Instr::Math { f } | Instr::MathD { f } if f.arity() == 2 => {
                let b = pop!();
                let a = pop!();
                stack.push(match ins {
                    Instr::Math { .. } => Word::Float(math(f, as_float(a), as_float(b))),
                    _ => Word::Double(math_d(f, as_double(a), as_double(b))),
                });
            }
            _ if arith::is_unary(ins) => {
                let a = pop!();
                stack.push(arith::unary(ins, a));
            }
            _ => break 'run Ok(Exit::Complex),
        }
        if stack.len() > MAX_WORKING_STACK {
            fail!(RuntimeError::StackOverflow { limit: env.max_stack });
        }
        pc = next;
        bail = usize::MAX;
        clock += ticks[op as usize];
        seq += seqt[op as usize];
        steps -= 1;
        if CHECK && acc.any {
            break 'run Ok(Exit::Remote(acc));
        }
        if DEBUG && traced_hit {
            break 'run Ok(Exit::Traced);
        }
    };
    if LINES {
        if let Some(t) = pc_ticks.get_mut(line_pc) {
            *t += clock - line_clock;
        }
        if site as u32 != p.line_site() {
            p.rare_mut().line_site = site as u32;
        }
    }
    p.stack = stack;
    p.pc = pc as u32;
    p.clock = clock;
    ctr.qend = qend;
    ctr.steps_left = steps;
    ctr.seq += seq;
    if DEBUG {
        ctr.trace_hit = traced_hit;
    }
    r
}

/// The per-opcode charges of a processor, in ticks: see [`Env::ticks`] and [`Env::seq`].
pub(super) struct Tables {
    pub(super) ticks: [Ticks; 256],
    pub(super) seq: [Ticks; 256],
    /// The prefix sums of the charges over the program, for its straight stretches
    /// ([`block::Charges`]); empty on machines with many processor types, where they would
    /// take too much memory (every instruction then runs alone, with the same results).
    pub(super) charges: block::Charges,
}

/// The charges of a processor of `speed` ticks per time unit under the cost table
/// `cost` (ticks per opcode at the reference speed of [`crate::time::TICKS_PER_UNIT`]):
/// `cost * speed / TICKS_PER_UNIT`, rounded to the nearest tick (exact for whole-unit
/// costs). Sequential time counts the cost at the reference speed. [`Tables::charges`]
/// is left empty: see [`block::Charges::new`].
pub(super) fn tick_tables(cost: &[u64; 256], work: &[bool; 256], speed: Ticks) -> Tables {
    const U: Ticks = crate::time::TICKS_PER_UNIT;
    let mut t = Tables { ticks: [0; 256], seq: [0; 256], charges: block::Charges::default() };
    for o in 0..256 {
        // In 128 bits: a cost near MAX_QUANTITY on a slow processor passes 64; the
        // clock's range then ends the run with a limit error.
        let ticks = (u128::from(cost[o]) * u128::from(speed) + u128::from(U / 2)) / u128::from(U);
        t.ticks[o] = ticks.min(u128::from(crate::time::MAX_TIME)) as Ticks;
        if work[o] {
            t.seq[o] = cost[o];
        }
    }
    t
}
