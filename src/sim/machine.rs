//! The simulator proper: process table, scheduler (quanta, round-robin per physical
//! processor, idle skipping), and the vCode interpreter. The module docs of [`super`]
//! describe the model; this file implements it.
//!
//! The hot loop ([`interp`]) runs the instructions that touch only the running process
//! and the memory pool (loads, stores, arithmetic, jumps, calls and returns that fit in
//! the current frame segment) without allocating; every other instruction leaves the
//! loop and is executed by [`Simulator::exec_complex`] with access to the whole machine.
use super::format::{self, ScanValue};
use super::least_loaded::LeastLoaded;
use super::memory::Memory;
use super::observe::{BlockReason, Observer, ProcState, ProcessStatus, RemoteKind, SimEvent};
use super::rng::Rng;
use super::{Io, Limit, NetThread, RuntimeError, SimConfig, SimError, Stats, TickCosts, Waiter};
use crate::net::{Network, Ticks, TICKS_PER_UNIT};
use crate::vcode::{Class, Instr, MathFn, Module, Op, Scalar, Word};
use ahead::Ahead;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap, VecDeque};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::time::Instant;

mod ahead;
mod interp;
mod procset;
use interp::{fused_costs, interp, tick_tables, Ctr, Env, Step, Tables};
mod view;
pub use view::{ChannelView, DebugHook, Quit, Stop};

use crate::net::NEVER;

/// `stdin`, `stdout` and `stderr` of `<stdio.h>`: handles no `fopen` returns (those are
/// 1, 2, …; 0 is failure).
const STDIN_HANDLE: i64 = -1;
const STDOUT_HANDLE: i64 = -2;
const STDERR_HANDLE: i64 = -3;
/// The cost table while timing is off.
static ZERO_TABLE: [Ticks; 256] = [0; 256];
const NONE: u32 = u32::MAX;
/// Most words on one process's working stack.
const MAX_WORKING_STACK: usize = 1 << 22;
/// The most distinct per-processor cost tables that get superinstruction charges.
const MAX_FUSED_TABLES: usize = 64;

/// What a process waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    None,
    Recv(u32),
    Join,
    Forall,
    RemoteRead(u32),
    Delay,
    Lock(u32),
    Children,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Main,
    Forall,
    Fork,
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    base: u32,
    words: u32,
    depth: u8,
    saved: u32,
    ret_pc: u32,
    stack_base: u32,
}

#[derive(Clone, Copy, Debug)]
struct Seg {
    base: u32,
    len: u32,
    top: u32,
}

/// Process control block (seed 000 Figure 13).
struct Proc {
    pid: u32,
    parent: u32,
    kind: Kind,
    vproc: u32,
    pproc: u32,
    /// The bottom function.
    func: u32,
    ended: bool,
    /// Returned from its bottom frame (or halted): waiting for forked children to end.
    ending: bool,
    wait: Wait,
    clock: Ticks,
    pc: u32,
    stack: Vec<Word>,
    display: Vec<u32>,
    frames: Vec<Frame>,
    /// The frame segments, in the order they were taken. A segment emptied by a return
    /// is kept for the next call (a loop of calls would otherwise take and return one
    /// each time) until the process ends.
    segs: Vec<Seg>,
    /// The segment holding the top frame.
    cur_seg: u32,
    frame_words: u32,
    time_on: bool,
    forall_pending: u32,
    forall_end: Ticks,
    forked_live: u32,
    /// End times of ended, not yet joined forked children, earliest on top: a join takes
    /// the earliest in logarithmic time (a scan made fork-then-join loops quadratic).
    ended_children: BinaryHeap<Reverse<Ticks>>,
    children_end: Ticks,
    /// Remaining forall indices of this child's group: `group_next..=group_hi`.
    group_next: i64,
    group_hi: i64,
}

#[derive(Clone, Copy)]
struct FnLite {
    entry: u32,
    depth: u8,
    params: u32,
    frame: u32,
}

struct Msg {
    arrival: Ticks,
    seq: u64,
    data: Payload,
}

/// The words of a message: up to [`Payload::INLINE`] in place (a scalar send, the common
/// case, costs no allocation), more on the heap.
enum Payload {
    Inline(u8, [Word; Payload::INLINE]),
    Heap(Vec<Word>),
}

impl Payload {
    const INLINE: usize = 2;

    /// A copy of `words`.
    fn new(words: &[Word]) -> Payload {
        match words.len() {
            n if n <= Payload::INLINE => {
                let mut a = [Word::Int(0); Payload::INLINE];
                a[..n].copy_from_slice(words);
                Payload::Inline(n as u8, a)
            }
            _ => Payload::Heap(words.to_vec()),
        }
    }
}

impl Default for Payload {
    fn default() -> Payload {
        Payload::Inline(0, [Word::Int(0); Payload::INLINE])
    }
}

impl std::ops::Deref for Payload {
    type Target = [Word];
    fn deref(&self) -> &[Word] {
        match self {
            Payload::Inline(n, a) => &a[..*n as usize],
            Payload::Heap(v) => v,
        }
    }
}
impl PartialEq for Msg {
    fn eq(&self, o: &Self) -> bool {
        (self.arrival, self.seq) == (o.arrival, o.seq)
    }
}
impl Eq for Msg {}
impl PartialOrd for Msg {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Msg {
    /// Reversed so the `BinaryHeap` pops the earliest (arrival, sequence) first.
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (o.arrival, o.seq).cmp(&(self.arrival, self.seq))
    }
}

struct Chan {
    owner: u32,
    info: u32,
    elem: u32,
    /// The element's address (what a blocked receiver waits on).
    addr: u32,
    queue: BinaryHeap<Msg>,
    /// Per sender, the latest arrival of its messages and those still in the network:
    /// messages from one sender never overtake each other on one channel element.
    from: Vec<FromSender>,
}

/// One sender's messages on one channel element.
struct FromSender {
    pid: u32,
    /// Latest arrival delivered so far.
    last: Ticks,
    /// Messages not yet in the queue, in send order. A message is delivered when it
    /// and all before it have arrived.
    pending: VecDeque<Sent>,
}

/// A message on its way to a channel element.
struct Sent {
    id: u64,
    /// Arrival time (NEVER while in a contention network).
    arrival: Ticks,
    sent: Ticks,
    data: Payload,
    /// Its arrival time was not known at the send: the observer hears of it.
    deferred: bool,
}

/// What a message still in a contention network is for.
enum InFlight {
    /// A channel message: the channel index and the sender (its data waits in
    /// [`FromSender::pending`]).
    Chan { chan: u32, sender: u32 },
    /// The traffic of a posted remote write: nothing happens when it arrives.
    Load,
    /// The request of a remote read by `pid` (on `reader`) of `words` words owned by
    /// `owner`: the reply leaves when it arrives.
    ReadRequest { pid: u32, addr: u32, reader: u32, owner: u32, words: u32 },
    /// The reply of a remote read: `pid` wakes when it arrives.
    ReadReply { pid: u32 },
    /// The first frame of the new process `pid`: it starts when the block arrives.
    Frame { pid: u32 },
}

/// The ids of the remote-read requests in `in_flight` (`pending` of them: none to look
/// for when 0).
fn read_requests(
    in_flight: &HashMap<u64, InFlight, std::hash::BuildHasherDefault<crate::net::TickHash>>,
    pending: u32,
) -> impl Iterator<Item = u64> + '_ {
    in_flight
        .iter()
        .take(if pending > 0 { usize::MAX } else { 0 })
        .filter(|(_, f)| matches!(f, InFlight::ReadRequest { .. }))
        .map(|(&id, _)| id)
}

enum FileSlot {
    Read(BufReader<std::fs::File>),
    Write(BufWriter<std::fs::File>),
}

/// Remote accesses made by one instruction: `(owner pproc, words, address)`.
#[derive(Default, Clone, Copy)]
struct Acc {
    any: bool,
    read: Option<(u32, u32, u32)>,
    write: Option<(u32, u32, u32)>,
}

impl Acc {
    #[inline]
    fn read(&mut self, owner: u32, addr: usize) {
        self.any = true;
        match &mut self.read {
            Some((o, w, _)) if *o == owner => *w += 1,
            Some(_) => {}
            None => self.read = Some((owner, 1, addr as u32)),
        }
    }
    #[inline]
    fn write(&mut self, owner: u32, addr: usize) {
        self.any = true;
        match &mut self.write {
            Some((o, w, _)) if *o == owner => *w += 1,
            Some(_) => {}
            None => self.write = Some((owner, 1, addr as u32)),
        }
    }
}

enum Exit {
    Quantum,
    Steps,
    /// The instruction at the pc needs the whole machine ([`Simulator::exec_complex`]).
    Complex,
    Remote(Acc),
    /// A debugger stop before the instruction at the pc.
    Stop,
    /// The last instruction referenced a traced address.
    Traced,
}

enum Flow {
    Continue,
    Stop,
}

/// A simulation of one program run.
pub struct Simulator<'m> {
    module: &'m Module,
    cfg: SimConfig,
    funcs: Vec<FnLite>,
    /// The module's code with each instruction's opcode.
    prog: Vec<Step>,
    /// Per distinct pair of processor speed and cost table (processor type), the speed
    /// and the tick and sequential-time tables for the interpreter and [`Self::charge`];
    /// `table_of[pp]` is processor `pp`'s entry.
    tables: Vec<(Ticks, Box<Tables>)>,
    table_of: Vec<usize>,
    net: Box<dyn Network>,
    io: Io,
    mem: Memory,
    procs: Vec<Proc>,
    /// Per process, the earliest time it can run (`NEVER`: waiting for an event with no
    /// known time); apart from [`Proc`] so the scheduler's look at a processor's
    /// queue reads one table.
    wake: Vec<Ticks>,
    queues: Vec<VecDeque<u32>>,
    /// Live processes per physical processor, for the default allocation.
    live: LeastLoaded,
    busy: Vec<Ticks>,
    used: Vec<bool>,
    pclock: Vec<Ticks>,
    chans: Vec<Chan>,
    chan_at: Vec<u32>,
    lock_waiters: BTreeMap<u32, Vec<u32>>,
    rng: Rng,
    files: Vec<Option<FileSlot>>,
    /// Blocks made by MALLOC/REALLOC and not yet freed: base → words.
    heap: BTreeMap<u32, u32>,
    stats: Stats,
    msg_seq: u64,
    /// Messages sent on channels and not yet received (bounded by `cfg.max_messages`).
    unreceived: u64,
    /// Messages in a contention network, by id.
    in_flight: HashMap<u64, InFlight, std::hash::BuildHasherDefault<crate::net::TickHash>>,
    hop_buf: Vec<crate::net::Hop>,
    /// Deadlocks the network resolved, between [`Self::flush_hops`] calls.
    resolved: Vec<crate::net::Resolution>,
    max_depth: usize,
    program_end: Option<Ticks>,
    steps_left: u64,
    live_procs: u32,
    qstart: Ticks,
    profile: Vec<Vec<Ticks>>,
    profile_prev: Vec<Ticks>,
    observer: Option<Box<dyn Observer>>,
    /// Busy ticks charged to each instruction since the last report to the observer
    /// (empty without an observer: the interpreter then keeps no account).
    pc_ticks: Vec<Ticks>,
    /// Per physical processor, a lower bound of its processes' wake times: a processor
    /// whose bound is past the quantum is skipped without looking at its queue.
    pmin: Vec<Ticks>,
    /// Processors to visit in this quantum, in id order.
    due_now: procset::ProcSet,
    /// `(pmin, processor)` of processors with something to do in a later quantum (stale
    /// entries only cost a look at the processor), except those that go in `due_next`.
    due_later: BinaryHeap<Reverse<(Ticks, u32)>>,
    /// Processors due before `due_next_bound`, which is never after the end of the next
    /// quantum: the next quantum visits them all, as it would take them out of
    /// `due_later`. A busy processor is due again in the next quantum at almost every
    /// turn, so this spares the heap a push and a pop per turn.
    due_next: procset::ProcSet,
    /// The least time an entry of `due_next` was put there with (NEVER: none).
    due_next_min: Ticks,
    due_next_bound: Ticks,
    /// The `due_later` entries [`Self::next_event`] took out to look at (kept to reuse).
    due_taken: Vec<(Ticks, u32)>,
    /// The processor being run and the end of the quantum, during a quantum.
    cur: Option<(usize, Ticks)>,
    /// Set by [`Self::lower_pmin`], through which every change of a process's wake time
    /// goes except those of the running process by its own turn, and with it every change
    /// of a queue (a process created, or ended: its parent is told). The scheduler clears
    /// it before a turn: still clear after it, the other processes are as they were.
    woken: bool,
    /// The debugger's stop conditions and hook ([`view`]).
    debug: Option<Box<view::DebugCtl>>,
    /// The network's thread, when it runs ahead of the processors ([`ahead`]).
    ahead: Option<Box<Ahead>>,
    /// Remote-read requests in a contention network.
    reads_pending: u32,
    /// Quanta in which the network ran ahead.
    quanta_ahead: u64,
}

#[inline]
fn as_int(w: Word) -> i32 {
    match w {
        Word::Int(i) => i,
        Word::Char(c) => c as i32,
        Word::Float(f) => f as i32,
        Word::Double(d) => d as i32,
        Word::Long(l) => l as i32,
    }
}

/// The bytes a word takes in a message: 4, or 8 for a double or a long (man cpss,
/// MEMORY).
fn word_bytes(w: Word) -> u32 {
    if matches!(w, Word::Double(_) | Word::Long(_)) {
        8
    } else {
        4
    }
}

#[inline]
fn as_long(w: Word) -> i64 {
    match w {
        Word::Long(l) => l,
        Word::Int(i) => i64::from(i),
        Word::Char(c) => i64::from(c),
        Word::Float(f) => f as i64,
        Word::Double(d) => d as i64,
    }
}

#[inline]
fn as_double(w: Word) -> f64 {
    match w {
        Word::Double(d) => d,
        Word::Float(f) => f as f64,
        Word::Int(i) => i as f64,
        Word::Char(c) => c as f64,
        Word::Long(l) => l as f64,
    }
}

#[inline]
fn as_float(w: Word) -> f32 {
    match w {
        Word::Float(f) => f,
        Word::Int(i) => i as f32,
        Word::Char(c) => c as f32,
        Word::Double(d) => d as f32,
        Word::Long(l) => l as f32,
    }
}

#[inline]
fn truthy(w: Word) -> bool {
    match w {
        Word::Int(i) => i != 0,
        Word::Float(f) => f != 0.0,
        Word::Char(c) => c != 0,
        Word::Double(d) => d != 0.0,
        Word::Long(l) => l != 0,
    }
}

#[inline]
fn convert(w: Word, to: Scalar) -> Word {
    match to {
        Scalar::Int => Word::Int(as_int(w)),
        Scalar::Float => Word::Float(as_float(w)),
        Scalar::Char => Word::Char(as_int(w) as u8),
        Scalar::Double => Word::Double(as_double(w)),
        Scalar::Long => Word::Long(as_long(w)),
    }
}

fn math_d(f: MathFn, a: f64, b: f64) -> f64 {
    match f {
        MathFn::Sqrt => a.sqrt(),
        MathFn::Sin => a.sin(),
        MathFn::Cos => a.cos(),
        MathFn::Tan => a.tan(),
        MathFn::Exp => a.exp(),
        MathFn::Log => a.ln(),
        MathFn::Pow => a.powf(b),
        MathFn::Fabs => a.abs(),
        MathFn::Floor => a.floor(),
        MathFn::Ceil => a.ceil(),
    }
}

fn math(f: MathFn, a: f32, b: f32) -> f32 {
    match f {
        MathFn::Sqrt => a.sqrt(),
        MathFn::Sin => a.sin(),
        MathFn::Cos => a.cos(),
        MathFn::Tan => a.tan(),
        MathFn::Exp => a.exp(),
        MathFn::Log => a.ln(),
        MathFn::Pow => a.powf(b),
        MathFn::Fabs => a.abs(),
        MathFn::Floor => a.floor(),
        MathFn::Ceil => a.ceil(),
    }
}

/// Places a new frame of `f` at `base` (already reserved in the top segment), moving the
/// argument words from the working stack.
#[inline]
fn push_frame(p: &mut Proc, mem: &mut Memory, f: FnLite, base: u32, ret_pc: u32) -> Result<(), RuntimeError> {
    let b = base as usize;
    let n = f.frame.max(f.params) as usize;
    let words = mem.words.get_mut(b..b + n).ok_or(RuntimeError::BadAddress { addr: base as i64 })?;
    words.fill(Word::Int(0));
    let np = f.params as usize;
    let sl = p.stack.len();
    if sl < np {
        return Err(RuntimeError::BadCode { message: "call with too few arguments on the stack".into() });
    }
    words[..np].copy_from_slice(&p.stack[sl - np..]);
    p.stack.truncate(sl - np);
    let d = f.depth as usize;
    let slot = p.display.get_mut(d).ok_or(RuntimeError::BadCode { message: "function depth".into() })?;
    let saved = *slot;
    *slot = base;
    p.frames.push(Frame { base, words: n as u32, depth: f.depth, saved, ret_pc, stack_base: p.stack.len() as u32 });
    p.frame_words += n as u32;
    p.pc = f.entry;
    Ok(())
}

/// The interpreter's tables for the `npp` processors of `cfg`: one per distinct (speed,
/// cost table), so a homogeneous machine builds one whatever its size (the keys are
/// compared by value; a machine has few types), and each processor's entry.
fn cost_tables(cfg: &SimConfig, npp: usize, prog: &[Step]) -> (Vec<(Ticks, Box<Tables>)>, Vec<usize>) {
    let base = TickCosts::from(&cfg.costs);
    let mut work = [false; 256];
    for &op in Op::ALL {
        work[op.opcode() as usize] = op.class() == Class::Work;
    }
    let mut tables: Vec<(Ticks, Box<Tables>)> = Vec::new();
    let mut keys: Vec<(Ticks, &TickCosts)> = Vec::new();
    let mut table_of = Vec::with_capacity(npp);
    for pp in 0..npp {
        let sp = cfg.speeds.get(pp).copied().unwrap_or(TICKS_PER_UNIT);
        let costs: &TickCosts = cfg.proc_costs.get(pp).map(|c| &**c).unwrap_or(&base);
        let k = match keys.iter().position(|&(s, c)| s == sp && c == costs) {
            Some(k) => k,
            None => {
                tables.push((sp, Box::new(tick_tables(costs.by_opcode(), &work, sp))));
                keys.push((sp, costs));
                tables.len() - 1
            }
        };
        table_of.push(k);
    }
    // The superinstructions' charges take about 180 bytes per instruction and table: with
    // a speed per processor (--vary-speed) on a big machine they would outweigh the rest
    // of the run. Without them the interpreter runs every instruction alone, with the
    // same results.
    if tables.len() <= MAX_FUSED_TABLES {
        for (_, t) in tables.iter_mut() {
            t.fused = fused_costs(t, prog);
        }
    }
    (tables, table_of)
}

impl<'m> Simulator<'m> {
    /// Prepares a run of `module`: loads the globals and creates process 0 (`main`).
    pub fn new(module: &'m Module, cfg: SimConfig, net: Box<dyn Network>, io: Io) -> Result<Self, SimError> {
        let mut net = net;
        net.record_hops(cfg.trace_routes);
        net.count_links(cfg.link_stats);
        let funcs: Vec<FnLite> = module
            .functions
            .iter()
            .map(|f| FnLite { entry: f.entry, depth: f.depth, params: f.param_words, frame: f.frame_words })
            .collect();
        let max_depth = module.functions.iter().map(|f| f.depth as usize).max().unwrap_or(1);
        let npp = cfg.pprocs.max(1) as usize;
        let prog = Step::all(&module.code);
        let (tables, table_of) = cost_tables(&cfg, npp, &prog);
        let mut mem = Memory::new(cfg.max_memory);
        mem.null_reserved = module.null_reserved;
        let p0 = cfg.mapping.first().copied().unwrap_or(0).min(npp as u32 - 1);
        let steps_left = cfg.max_steps.unwrap_or(u64::MAX);
        let mut sim = Simulator {
            module,
            funcs,
            prog,
            tables,
            table_of,
            net,
            io,
            procs: Vec::new(),
            wake: Vec::new(),
            queues: vec![VecDeque::new(); npp],
            live: LeastLoaded::new(npp),
            busy: vec![0; npp],
            used: vec![false; npp],
            pclock: vec![0; npp],
            chans: Vec::new(),
            chan_at: vec![NONE; module.globals_words as usize],
            lock_waiters: BTreeMap::new(),
            rng: Rng::new(cfg.seed),
            files: Vec::new(),
            heap: BTreeMap::new(),
            stats: Stats::default(),
            msg_seq: 0,
            unreceived: 0,
            in_flight: HashMap::default(),
            hop_buf: Vec::new(),
            resolved: Vec::new(),
            max_depth,
            program_end: None,
            steps_left,
            live_procs: 0,
            qstart: 0,
            profile: Vec::new(),
            profile_prev: vec![0; npp],
            observer: None,
            pc_ticks: Vec::new(),
            pmin: vec![NEVER; npp],
            due_now: procset::ProcSet::new(npp),
            due_later: BinaryHeap::new(),
            due_next: procset::ProcSet::new(npp),
            due_next_min: NEVER,
            due_next_bound: 0,
            due_taken: Vec::new(),
            cur: None,
            woken: false,
            debug: None,
            ahead: None,
            reads_pending: 0,
            quanta_ahead: 0,
            mem: Memory::new(0),
            cfg,
        };
        if module.globals_words > 0 && mem.alloc(module.globals_words, p0).is_none() {
            return Err(sim.limit(Limit::Memory));
        }
        for &(a, w) in &module.global_init {
            if let Some(slot) = mem.words.get_mut(a as usize) {
                *slot = w;
            }
        }
        sim.mem = mem;
        for (ci, c) in module.channels.iter().enumerate() {
            let count: u32 = c.dims.iter().product::<u32>().max(1);
            for e in 0..count {
                let a = c.base + e;
                if let Some(slot) = sim.chan_at.get_mut(a as usize) {
                    *slot = sim.chans.len() as u32;
                    sim.chans.push(Chan {
                        owner: 0,
                        info: ci as u32,
                        elem: e,
                        addr: a,
                        queue: BinaryHeap::new(),
                        from: Vec::new(),
                    });
                }
            }
        }
        let display = vec![0u32; sim.max_depth + 1];
        sim.spawn(NONE, Kind::Main, module.main, 0, p0, &[], &display, 0, (0, -1))?;
        Ok(sim)
    }

    /// The quanta in which the network ran ahead on its own thread ([`SimConfig::net_thread`]).
    pub fn quanta_ahead(&self) -> u64 {
        self.quanta_ahead
    }

    /// Sends every later event to `observer`; the processes that exist already (process
    /// 0) are reported as created first.
    pub fn set_observer(&mut self, mut observer: Box<dyn Observer>) {
        for p in &self.procs {
            let function = self.module.functions.get(p.func as usize).map_or("?", |f| f.name.as_str());
            let parent = if p.parent == NONE { None } else { Some(p.parent) };
            let (pid, vproc, pproc, time) = (p.pid, p.vproc, p.pproc, p.clock);
            observer.event(&SimEvent::ProcessCreate { time, parent, pid, vproc, pproc, function, line: 0 });
        }
        self.observer = Some(observer);
        self.pc_ticks = vec![0; self.prog.len()];
    }

    /// The global clock: the start of the next quantum to run.
    pub fn global_clock(&self) -> Ticks {
        self.qstart
    }

    /// Every process created so far, by pid.
    pub fn processes(&self) -> Vec<ProcessStatus> {
        self.procs
            .iter()
            .map(|p| {
                let state = if p.ended {
                    ProcState::Ended
                } else {
                    match p.wait {
                        Wait::None => ProcState::Ready,
                        Wait::Delay => ProcState::Delayed,
                        Wait::Lock(_) => ProcState::Spinning,
                        Wait::Recv(addr) => ProcState::Blocked(BlockReason::Receive { addr }),
                        Wait::Join => ProcState::Blocked(BlockReason::Join),
                        Wait::Forall => ProcState::Blocked(BlockReason::Forall),
                        Wait::RemoteRead(addr) => ProcState::Blocked(BlockReason::RemoteRead { addr }),
                        Wait::Children => ProcState::Blocked(BlockReason::Children),
                    }
                };
                ProcessStatus {
                    pid: p.pid,
                    parent: if p.parent == NONE { None } else { Some(p.parent) },
                    vproc: p.vproc,
                    pproc: p.pproc,
                    function: self.function_name(p.pc),
                    line: self.module.line_of(p.pc),
                    clock: p.clock,
                    state,
                }
            })
            .collect()
    }

    fn limit(&mut self, limit: Limit) -> SimError {
        SimError::LimitExceeded { limit, stats: Box::new(self.snapshot(self.qstart)) }
    }

    fn snapshot(&mut self, par: Ticks) -> Stats {
        let mut s = self.stats.clone();
        s.par_ticks = par;
        s.undelivered = self.chans.iter().map(|c| c.queue.len() as u64).sum();
        if let Some(step) = self.cfg.profile_step {
            s.profile_step = step.max(1);
            s.profile = self.profile.clone();
        }
        s.busy = (0..self.busy.len()).filter(|&i| self.used[i]).map(|i| (i as u32, self.busy[i])).collect();
        s.links = self.net.link_busy();
        s
    }

    /// Counts the deadlocks the network resolved and tells the observer of them and of
    /// the link crossings the network recorded.
    fn flush_hops(&mut self) {
        self.net.take_resolutions(&mut self.resolved);
        self.stats.deadlocks_resolved += self.resolved.len() as u64;
        if let Some(o) = self.observer.as_mut() {
            for r in &self.resolved {
                o.event(&SimEvent::Deadlock { time: r.time, msg: r.msg, packet: r.packet, at: r.at });
            }
        }
        self.resolved.clear();
        let Some(o) = self.observer.as_mut() else { return };
        self.net.take_hops(&mut self.hop_buf);
        for h in self.hop_buf.drain(..) {
            o.event(&SimEvent::Hop {
                msg: h.msg,
                packet: h.packet,
                from: h.from,
                to: h.to,
                enter: h.enter,
                leave: h.leave,
            });
        }
    }

    fn rt(&self, pid: u32, kind: RuntimeError) -> SimError {
        let pc = self.procs.get(pid as usize).map_or(0, |p| p.pc);
        SimError::Runtime { pid, function: self.function_name(pc), line: self.module.line_of(pc), kind }
    }

    fn function_name(&self, pc: u32) -> String {
        self.module
            .function_at(pc)
            .and_then(|f| self.module.functions.get(f as usize))
            .map_or_else(|| "?".to_string(), |f| f.name.clone())
    }

    /// The physical processor with the fewest live processes (ties: lowest id).
    fn default_pproc(&self) -> u32 {
        self.live.least()
    }

    /// Creates a process running `func` with `args` as its first frame words.
    #[allow(clippy::too_many_arguments)]
    fn spawn(
        &mut self,
        parent: u32,
        kind: Kind,
        func: u32,
        vproc: u32,
        pproc: u32,
        args: &[Word],
        display: &[u32],
        start: Ticks,
        group: (i64, i64),
    ) -> Result<u32, SimError> {
        if self.live_procs >= self.cfg.max_procs {
            return Err(self.limit(Limit::Procs));
        }
        let f = *self
            .funcs
            .get(func as usize)
            .ok_or_else(|| self.rt(parent, RuntimeError::BadCode { message: format!("function {func}") }))?;
        let n = f.frame.max(f.params);
        // The bottom frame only: a process that calls gets a segment of at least
        // `segment_words` then, so an idle process holds just its frame.
        let len = n.max(1);
        let Some(base) = self.mem.alloc(len, pproc) else { return Err(self.limit(Limit::Memory)) };
        let pid = self.procs.len() as u32;
        let mut disp = vec![0u32; self.max_depth + 1];
        let d = (f.depth as usize).min(display.len());
        disp[..d].copy_from_slice(&display[..d]);
        let mut p = Proc {
            pid,
            parent,
            kind,
            vproc,
            pproc,
            func,
            ended: false,
            ending: false,
            wait: Wait::None,
            clock: start,
            pc: f.entry,
            stack: args.to_vec(),
            display: disp,
            frames: Vec::with_capacity(1),
            segs: vec![Seg { base, len, top: n }],
            cur_seg: 0,
            frame_words: 0,
            time_on: true,
            forall_pending: 0,
            forall_end: 0,
            forked_live: 0,
            ended_children: BinaryHeap::new(),
            children_end: 0,
            group_next: group.0,
            group_hi: group.1,
        };
        let fl = FnLite { params: args.len() as u32, ..f };
        push_frame(&mut p, &mut self.mem, fl, base, NONE).map_err(|k| self.rt(parent, k))?;
        self.procs.push(p);
        self.wake.push(start);
        self.queues[pproc as usize].push_back(pid);
        self.lower_pmin(pproc as usize, start);
        self.live.add(pproc as usize, 1);
        self.used[pproc as usize] = true;
        self.live_procs += 1;
        self.stats.processes += 1;
        if let Some(o) = self.observer.as_mut() {
            let function = self.module.functions.get(func as usize).map_or("?", |f| f.name.as_str());
            // The line of the parent's fork (its pc is at the creating instruction).
            let line = self.procs.get(parent as usize).map_or(0, |p| self.module.line_of(p.pc));
            let parent = if parent == NONE { None } else { Some(parent) };
            o.event(&SimEvent::ProcessCreate { time: start, parent, pid, vproc, pproc, function, line });
        }
        Ok(pid)
    }

    /// The network (its parameters, for a debugger's `params`).
    pub fn network(&self) -> &dyn Network {
        &*self.net
    }

    /// The network, to change its parameters between steps of a suspended run
    /// ([`Network::set_params`]: later messages use the new values).
    pub fn network_mut(&mut self) -> &mut dyn Network {
        &mut *self.net
    }

    /// Runs the program to its end (or an alarm) and returns the statistics.
    pub fn run(&mut self) -> Result<Stats, SimError> {
        let t0 = Instant::now();
        // The network runs ahead on a second thread when asked, as long as nothing looks
        // at it while the processors run: no debugger (it may change the network), no
        // route records (they go to the observer between arrivals) and no link loads
        // (an error's statistics would see the network part-way through the quantum).
        if self.cfg.net_thread != NetThread::Off
            && self.debug.is_none()
            && !self.cfg.trace_routes
            && !self.cfg.link_stats
            && self.net.lookahead().is_some()
        {
            let always = self.cfg.net_thread == NetThread::Always;
            self.ahead = Ahead::start(self.net.params().clone(), always).map(Box::new);
        }
        let r = self.run_inner();
        self.ahead = None;
        self.flush_line_costs();
        let _ = self.io.stdout.flush();
        for f in self.files.iter_mut().flatten() {
            if let FileSlot::Write(w) = f {
                let _ = w.flush();
            }
        }
        let host = t0.elapsed();
        match r {
            Ok(mut s) => {
                s.host_time = host;
                Ok(s)
            }
            Err(SimError::Deadlock { waiters, mut stats }) => {
                stats.host_time = host;
                Err(SimError::Deadlock { waiters, stats })
            }
            Err(SimError::LimitExceeded { limit, mut stats }) => {
                stats.host_time = host;
                Err(SimError::LimitExceeded { limit, stats })
            }
            Err(SimError::NetworkDeadlock { cycle, mut stats }) => {
                stats.host_time = host;
                Err(SimError::NetworkDeadlock { cycle, stats })
            }
            Err(e) => Err(e),
        }
    }

    /// Tells the observer the busy time per source line since the last report (work and
    /// overhead by the class of each instruction), in line order, and starts a new account.
    fn flush_line_costs(&mut self) {
        let Some(o) = self.observer.as_mut() else { return };
        let mut by_line: BTreeMap<u32, (Ticks, Ticks)> = BTreeMap::new();
        for (pc, t) in self.pc_ticks.iter_mut().enumerate() {
            if *t == 0 {
                continue;
            }
            let slot = by_line.entry(self.module.line_of(pc as u32)).or_insert((0, 0));
            match Op::from_opcode(self.prog[pc].op).map(Op::class) {
                Some(Class::Work) => slot.0 += *t,
                _ => slot.1 += *t,
            }
            *t = 0;
        }
        let lines: Vec<(u32, Ticks, Ticks)> = by_line.into_iter().map(|(l, (w, v))| (l, w, v)).collect();
        if !lines.is_empty() {
            o.event(&SimEvent::LineCosts { lines: &lines });
        }
    }

    fn run_inner(&mut self) -> Result<Stats, SimError> {
        let q = self.cfg.quantum.max(1);
        loop {
            let qend = self.qstart + q;
            let mut active = false;
            self.due_now.absorb(&mut self.due_next);
            self.due_next_min = NEVER;
            while let Some(&Reverse((t, pp))) = self.due_later.peek() {
                if t >= qend {
                    break;
                }
                self.due_later.pop();
                self.due_now.insert(pp);
            }
            // Every later quantum ends at `qend + q` or after.
            self.due_next_bound = qend + q;
            // A solo run may carry the quantum forward (see `solo_cross`): its end is
            // kept in `self.cur` while the processors run.
            let mut qend = qend;
            self.cur = Some((0, qend));
            let ahead = self.ahead_begin(qend);
            let r = self.run_processors(&mut qend, &mut active);
            self.cur = None;
            if ahead {
                self.ahead_end(r.is_ok(), qend);
            }
            r?;
            self.advance_network(qend);
            self.record_profile();
            if let Some(t) = self.program_end {
                let par = qend.max(t.div_ceil(q) * q);
                return Ok(self.snapshot(par));
            }
            self.qstart = qend;
            if self.debug.is_some() && self.cfg.alarm.is_some_and(|a| self.qstart >= a) {
                // With a debugger the alarm suspends the run, once.
                self.cfg.alarm = None;
                self.debug_stop(Stop::Alarm)?;
            }
            if let Some(a) = self.cfg.alarm {
                if self.qstart >= a {
                    let mut s = self.snapshot(self.qstart);
                    s.stopped_by_alarm = true;
                    return Ok(s);
                }
            }
            if let Some(m) = self.cfg.max_time {
                if self.qstart > m {
                    return Err(self.limit(Limit::Time));
                }
            }
            if !active {
                let next = self.next_event().min(self.net.next_event());
                if next == NEVER && self.net.in_flight() > 0 {
                    let cycle = self.net.blocked();
                    return Err(SimError::NetworkDeadlock { cycle, stats: Box::new(self.snapshot(self.qstart)) });
                }
                if next == NEVER {
                    let waiters = self.waiters();
                    return Err(SimError::Deadlock { waiters, stats: Box::new(self.snapshot(self.qstart)) });
                }
                if self.cfg.skip_idle && next >= self.qstart + q {
                    let mut target = next / q * q;
                    // Stop where stepping would have stopped.
                    if let Some(a) = self.cfg.alarm {
                        target = target.min(a.div_ceil(q) * q);
                    }
                    if let Some(m) = self.cfg.max_time {
                        target = target.min((m / q + 1) * q);
                    }
                    self.qstart = target.max(self.qstart);
                }
            }
        }
    }

    /// Runs the due processors in id order for the quantum ending at `qend` (a solo run
    /// may move it on); `active` becomes true if anything ran.
    fn run_processors(&mut self, qend: &mut Ticks, active: &mut bool) -> Result<(), SimError> {
        while let Some(pp) = self.due_now.pop_first() {
            let pp = pp as usize;
            self.cur = Some((pp, *qend));
            *active |= self.run_pproc(pp)?;
            *qend = self.cur.map_or(*qend, |(_, e)| e);
            if self.program_end.is_some() {
                break;
            }
        }
        Ok(())
    }

    /// Hands the network to its thread to process, while the processors run the quantum
    /// ending at `qend`, the events that no send of the quantum can change: those before
    /// `qstart + lookahead` (and before `qend`). Returns whether it did (there are such
    /// events); [`Self::ahead_end`] takes it back.
    fn ahead_begin(&mut self, qend: Ticks) -> bool {
        let Some(a) = self.ahead.as_mut() else { return false };
        if !a.wanted() {
            return false;
        }
        let Some(l) = self.net.lookahead() else { return false };
        let until = self.qstart.saturating_add(l).min(qend);
        let next0 = self.net.next_event();
        if next0 >= until {
            return false;
        }
        let Some(spare) = a.spare.take() else { return false };
        self.net.ahead(crate::net::Ahead::Begin(until));
        let net = std::mem::replace(&mut self.net, spare);
        a.give(net, until, next0, read_requests(&self.in_flight, self.reads_pending));
        self.quanta_ahead += 1;
        true
    }

    /// Finishes a quantum that ran ahead: unless it failed (`ok` false: the run ends),
    /// the network's thread makes the held-back sends and processes the events up to
    /// the quantum's end `qend` while the arrivals of its first step are delivered here
    /// (they touch no network state: the first step stops at a remote-read request,
    /// whose reply is a send), then the network comes back with the later arrivals,
    /// which are delivered too. Everything happens as if the network had stayed here.
    fn ahead_end(&mut self, ok: bool, qend: Ticks) {
        let Some(a) = self.ahead.as_mut() else { return };
        if !ok {
            let (net, arrivals) = a.take();
            a.spare = Some(std::mem::replace(&mut self.net, net));
            a.reuse(arrivals);
            return;
        }
        let (first, stopped) = a.first();
        let second = if stopped {
            // The reply of the request is made here, after the held-back sends.
            let (net, none) = a.take();
            a.reuse(none);
            a.spare = Some(std::mem::replace(&mut self.net, net));
            ahead::enter(&mut *self.net, &a.held);
            false
        } else {
            a.second(qend, read_requests(&self.in_flight, self.reads_pending));
            true
        };
        for &(id, t) in &first {
            self.arrive(id, t);
        }
        let Some(a) = self.ahead.as_mut() else { return };
        a.reuse(first);
        if second {
            let (net, arrivals) = a.take();
            a.spare = Some(std::mem::replace(&mut self.net, net));
            for &(id, t) in &arrivals {
                self.arrive(id, t);
            }
            if let Some(a) = self.ahead.as_mut() {
                a.reuse(arrivals);
            }
        }
    }

    /// Sends a message into the network (held back while the network runs ahead: see
    /// [`Self::ahead_begin`]).
    fn net_send(&mut self, id: u64, src: u32, dst: u32, bytes: u32, now: Ticks) -> Option<Ticks> {
        match self.ahead.as_mut() {
            Some(a) if a.active => {
                // A model that runs ahead delivers a message to the sender's own
                // processor at once, without the network ([`Network::lookahead`]).
                if src == dst {
                    return Some(now + a.params.local_cost);
                }
                a.min_ready = a.min_ready.min(a.params.ready(bytes, now));
                a.held.push((id, src, dst, bytes, now));
                None
            }
            _ => self.net.send(id, src, dst, bytes, now),
        }
    }

    /// The network's next event, as it would be with the held-back sends made.
    fn net_next_event(&self) -> Ticks {
        match self.ahead.as_deref() {
            Some(a) if a.active => a.next0.min(a.min_ready),
            _ => self.net.next_event(),
        }
    }

    /// Adds the busy time of the quantum that just ran to its profile row.
    fn record_profile(&mut self) {
        let Some(step) = self.cfg.profile_step else { return };
        let row = (self.qstart / step.max(1)) as usize;
        if self.profile.len() <= row {
            self.profile.resize(row + 1, vec![0; self.busy.len()]);
        }
        for (pp, &b) in self.busy.iter().enumerate() {
            self.profile[row][pp] += b - self.profile_prev[pp];
            self.profile_prev[pp] = b;
        }
    }

    /// Earliest time any live process can run, after a quantum in which none ran: the
    /// least over the processors of their processes' least wake time (not before the
    /// processor's clock). A processor with a process to wake is due (in `due_next` or
    /// `due_later`) no later than that wake (see [`Self::lower_pmin`]), so the processors
    /// of `due_later` are looked at in the order of their due times and the search stops
    /// at the first due time not before the best found: a look at a few processors
    /// instead of every process of the machine. The entries looked at are put back.
    fn next_event(&mut self) -> Ticks {
        let mut best = NEVER;
        if self.due_next_min != NEVER {
            for pp in self.due_next.iter() {
                best = best.min(self.proc_next(pp as usize));
            }
        }
        let mut taken = std::mem::take(&mut self.due_taken);
        while let Some(&Reverse((t, pp))) = self.due_later.peek() {
            if t >= best {
                break;
            }
            self.due_later.pop();
            taken.push((t, pp));
            best = best.min(self.proc_next(pp as usize));
        }
        for e in taken.drain(..) {
            self.due_later.push(Reverse(e));
        }
        self.due_taken = taken;
        debug_assert_eq!(best, self.scan_next_event());
        best
    }

    /// When processor `pp` can next run one of its processes (NEVER: none is to wake).
    fn proc_next(&self, pp: usize) -> Ticks {
        match self.scan_min_wake(pp) {
            NEVER => NEVER,
            w => w.max(self.pclock[pp]),
        }
    }

    /// [`Self::next_event`] by a look at every process (what the tests check it against).
    fn scan_next_event(&self) -> Ticks {
        let mut next = NEVER;
        for (pp, q) in self.queues.iter().enumerate() {
            for &pid in q {
                let w = self.wake[pid as usize];
                if w != NEVER {
                    next = next.min(w.max(self.pclock[pp]));
                }
            }
        }
        next
    }

    fn waiters(&self) -> Vec<Waiter> {
        let mut v = Vec::new();
        for p in self.procs.iter().filter(|p| !p.ended) {
            let waits_for = match p.wait {
                Wait::Recv(a) => format!("a message on channel {}", self.channel_name(a)),
                Wait::Join => "join (a forked child to end)".to_string(),
                Wait::Forall => format!("{} forall children to end", p.forall_pending),
                Wait::RemoteRead(a) => format!("a remote read of address {a}"),
                Wait::Delay => "the end of a delay".to_string(),
                Wait::Lock(a) => format!("the spinlock at address {a}"),
                Wait::Children => format!("{} forked children to end before it ends", p.forked_live),
                Wait::None => "nothing (ready)".to_string(),
            };
            v.push(Waiter {
                pid: p.pid,
                vproc: p.vproc,
                pproc: p.pproc,
                function: self.function_name(p.pc),
                line: self.module.line_of(p.pc),
                waits_for,
            });
        }
        v
    }

    /// `name[i][j]` of the channel element at address `a`.
    fn channel_name(&self, a: u32) -> String {
        let Some(ch) = self.chan_at.get(a as usize).and_then(|&c| self.chans.get(c as usize)) else {
            return format!("at address {a}");
        };
        let Some(info) = self.module.channels.get(ch.info as usize) else { return format!("at address {a}") };
        let mut idx = Vec::new();
        let mut e = ch.elem;
        for &d in info.dims.iter().rev() {
            let d = d.max(1);
            idx.push(e % d);
            e /= d;
        }
        let mut s = info.name.clone();
        for i in idx.iter().rev() {
            s.push_str(&format!("[{i}]"));
        }
        s
    }

    /// Runs the processes of physical processor `pp` for the current quantum (its end is
    /// in `self.cur`; a solo run may move it on). Returns whether anything ran.
    fn run_pproc(&mut self, pp: usize) -> Result<bool, SimError> {
        let mut active = false;
        loop {
            let qend = self.cur.map_or(NEVER, |(_, e)| e);
            let floor = self.pclock[pp].max(self.qstart);
            let mut best: Option<(usize, Ticks)> = None;
            let mut min_wake = NEVER;
            // The least wake time (and the queue index of its first holder) and the least
            // of the others: the least of all but the chosen process is one of them.
            let (mut min_at, mut min2) = (usize::MAX, NEVER);
            for (k, &pid) in self.queues[pp].iter().enumerate() {
                let w = self.wake[pid as usize];
                if w == NEVER {
                    continue;
                }
                if w < min_wake {
                    min2 = min_wake;
                    min_wake = w;
                    min_at = k;
                } else if w < min2 {
                    min2 = w;
                }
                let s = w.max(floor);
                if best.is_none_or(|(_, b)| s < b) {
                    best = Some((k, s));
                }
            }
            let start = match best {
                Some((_, start)) if start < qend => start,
                _ => {
                    // Exact again: every process of this processor was just looked at.
                    self.pmin[pp] = min_wake;
                    if min_wake != NEVER {
                        self.due_at(min_wake, pp as u32);
                    }
                    break;
                }
            };
            let Some((k, _)) = best else { break };
            // The chosen process goes to the back of the queue (nothing to move when
            // it is the last one; a rotation when it is the first).
            let queue = &mut self.queues[pp];
            let pid = if k + 1 == queue.len() {
                queue[k]
            } else if k == 0 {
                queue.rotate_left(1);
                queue[queue.len() - 1]
            } else {
                let Some(pid) = queue.remove(k) else { break };
                queue.push_back(pid);
                pid
            };
            active = true;
            let others_min = if k == min_at { min2 } else { min_wake };
            self.woken = false;
            self.turn(pid, start, qend)?;
            let c = self.procs[pid as usize].clock;
            self.pclock[pp] = self.pclock[pp].max(c);
            if self.program_end.is_some() {
                break;
            }
            if !self.woken && self.debug.is_none() {
                // Nothing but the turn's own process changed a wake time or the queue
                // (see `woken`): the others' wakes are those of the scan above, so when
                // no process can start before the quantum's end, the scan the loop would
                // do next finds just that, and its outcome is computed here.
                let min_wake = others_min.min(self.wake[pid as usize]);
                let qend = self.cur.map_or(NEVER, |(_, e)| e);
                let floor = self.pclock[pp].max(self.qstart);
                if min_wake == NEVER || min_wake.max(floor) >= qend {
                    debug_assert_eq!(self.scan_min_wake(pp), min_wake);
                    self.pmin[pp] = min_wake;
                    if min_wake != NEVER {
                        self.due_at(min_wake, pp as u32);
                    }
                    break;
                }
            }
        }
        Ok(active)
    }

    /// The least wake time of processor `pp`'s processes (NEVER: none), by a look at each.
    fn scan_min_wake(&self, pp: usize) -> Ticks {
        self.queues[pp].iter().map(|&pid| self.wake[pid as usize]).min().unwrap_or(NEVER)
    }

    /// One turn of process `pid` starting at `start`, reported to the observer.
    fn turn(&mut self, pid: u32, start: Ticks, qend: Ticks) -> Result<(), SimError> {
        if self.observer.is_none() {
            return self.turn_inner(pid, start, qend);
        }
        let pp = self.procs[pid as usize].pproc;
        let busy0 = self.busy[pp as usize];
        if let Some(o) = self.observer.as_mut() {
            o.event(&SimEvent::Start { time: start, pid });
        }
        let r = self.turn_inner(pid, start, qend);
        let end = self.procs[pid as usize].clock;
        let busy = self.busy[pp as usize] - busy0;
        if let Some(o) = self.observer.as_mut() {
            // The line the turn ended on (the last instruction's, for a process that ended).
            let pc = self.procs[pid as usize].pc;
            // (Code the compiler added, as a function's closing return, has no line: the
            // nearest line before it, within a few instructions.)
            let line = (0..8).map(|k| self.module.line_of(pc.saturating_sub(k))).find(|&l| l > 0).unwrap_or(0);
            o.event(&SimEvent::Run { pid, pproc: pp, start, end, busy, line });
        }
        r
    }

    fn turn_inner(&mut self, pid: u32, start: Ticks, mut qend: Ticks) -> Result<(), SimError> {
        let pp = {
            self.wake[pid as usize] = NEVER;
            let p = &mut self.procs[pid as usize];
            p.clock = start;
            p.wait = Wait::None;
            if p.ending {
                if p.forked_live == 0 {
                    let t = p.clock;
                    self.finish(pid, t);
                } else {
                    p.wait = Wait::Children;
                }
                return Ok(());
            }
            p.pproc as usize
        };
        let q = self.cfg.quantum.max(1);
        // After a debugger stop before the pc, that instruction runs without stopping again.
        let mut skip_first = false;
        loop {
            let cross_max = self.cross_max(pp, q);
            let p = &mut self.procs[pid as usize];
            let (time_on, clock0) = (p.time_on, p.clock);
            if clock0 >= qend && !(qend <= cross_max && clock0 < qend + q) {
                // The interpreter's first check would end the turn before any instruction
                // (after a complex instruction that reached the quantum's end): its exit,
                // without the call.
                skip_first = false;
                match self.quantum_over(pid, pp, qend) {
                    Some(e) => {
                        qend = e;
                        continue;
                    }
                    None => return Ok(()),
                }
            }
            let Tables { ticks, seq, fused } = &*self.tables[self.table_of[pp]].1;
            let (stops, traced): (&[u64], &[(u32, u32)]) = match self.debug.as_deref() {
                Some(d) if d.step_pid == pid => (&d.step_stops, &d.traced),
                Some(d) => (&d.stops, &d.traced),
                None => (&[], &[]),
            };
            let env = Env {
                code: &self.prog,
                funcs: &self.funcs,
                ticks: if time_on { ticks } else { &ZERO_TABLE },
                seq: if time_on { seq } else { &ZERO_TABLE },
                fused: if time_on { fused } else { &[] },
                max_stack: self.cfg.max_stack_words,
                q,
                cross_max,
                stops,
                skip_first,
                traced,
            };
            let mut ctr =
                Ctr { seq: 0, steps_left: self.steps_left, qend, crossed: 0, cross_clock: 0, trace_hit: false };
            let (mem, pc_ticks) = (&mut self.mem, &mut self.pc_ticks[..]);
            let r = match (self.debug.is_some(), mem.sole_owner() == Some(p.pproc), !pc_ticks.is_empty()) {
                (false, true, false) => interp::<false, false, false>(&env, p, mem, &mut ctr, pc_ticks),
                (false, false, false) => interp::<true, false, false>(&env, p, mem, &mut ctr, pc_ticks),
                (false, true, true) => interp::<false, false, true>(&env, p, mem, &mut ctr, pc_ticks),
                (false, false, true) => interp::<true, false, true>(&env, p, mem, &mut ctr, pc_ticks),
                (true, true, _) => interp::<false, true, true>(&env, p, mem, &mut ctr, pc_ticks),
                (true, false, _) => interp::<true, true, true>(&env, p, mem, &mut ctr, pc_ticks),
            };
            skip_first = false;
            let clock = p.clock;
            self.stats.seq_ticks += ctr.seq;
            self.busy[pp] += clock - clock0;
            self.stats.instructions += self.steps_left - ctr.steps_left;
            self.steps_left = ctr.steps_left;
            if ctr.crossed > 0 {
                // The quantum ends the interpreter went past, as `solo_cross` does them.
                qend = ctr.qend;
                self.pclock[pp] = self.pclock[pp].max(ctr.cross_clock);
                self.pmin[pp] = ctr.cross_clock;
                self.qstart = qend - q;
                self.cur = Some((pp, qend));
            }
            if ctr.trace_hit && r.is_ok() {
                self.debug_stop(Stop::Traced { pid })?;
            }
            match r {
                Err(k) => return Err(self.rt(pid, k)),
                Ok(Exit::Stop) => {
                    let pc = self.procs[pid as usize].pc;
                    self.debug_stop(Stop::Pc { pid, pc })?;
                    skip_first = true;
                }
                Ok(Exit::Traced) => {}
                Ok(Exit::Quantum) => match self.quantum_over(pid, pp, qend) {
                    Some(e) => {
                        qend = e;
                        continue;
                    }
                    None => return Ok(()),
                },
                Ok(Exit::Steps) => return Err(self.limit(Limit::Steps)),
                Ok(Exit::Remote(acc)) => {
                    let p = &self.procs[pid as usize];
                    let (me, now) = (p.pproc, p.clock);
                    if let Some((o, w, a)) = acc.write {
                        self.msg_seq += 1;
                        let bytes = 4 + self.wire_bytes(a, w);
                        if self.remote_send(RemoteKind::Write, pid, a, me, o, bytes, now).is_none() {
                            self.in_flight.insert(self.msg_seq, InFlight::Load);
                        }
                        self.stats.remote_writes += 1;
                    }
                    if let Some((o, w, a)) = acc.read {
                        self.msg_seq += 1;
                        let wake = match self.remote_send(RemoteKind::Read, pid, a, me, o, 4, now) {
                            Some(t1) => self.read_reply(pid, a, me, o, w, t1),
                            None => {
                                let req = InFlight::ReadRequest { pid, addr: a, reader: me, owner: o, words: w };
                                self.in_flight.insert(self.msg_seq, req);
                                self.reads_pending += 1;
                                NEVER
                            }
                        };
                        self.stats.remote_reads += 1;
                        self.block(pid, Wait::RemoteRead(a), wake);
                        return Ok(());
                    }
                }
                Ok(Exit::Complex) => {
                    let pc = self.procs[pid as usize].pc;
                    let Some(ins) = self.prog.get(pc as usize).map(|s| s.ins) else {
                        let message = format!("pc {pc} outside the code");
                        return Err(self.rt(pid, RuntimeError::BadCode { message }));
                    };
                    match self.exec_complex(pid, ins)? {
                        // The interpreter's first step ends the turn if the quantum is over.
                        Flow::Continue => {}
                        Flow::Stop => return self.debug_after_stop(pid),
                    }
                }
            }
        }
    }

    /// `pid`'s turn reached the end `qend` of the quantum: the next quantum's end when the
    /// turn goes on ([`Self::solo_cross`]), else `None` and the process waits for the
    /// scheduler from its clock.
    #[inline(always)]
    fn quantum_over(&mut self, pid: u32, pp: usize, qend: Ticks) -> Option<Ticks> {
        // A process not alone on its processor never goes on (the common case, tested
        // here without a call).
        let e = if self.queues[pp].len() == 1 { self.solo_cross(pid, pp, qend) } else { None };
        if e.is_none() {
            self.wake[pid as usize] = self.procs[pid as usize].clock;
        }
        e
    }

    /// Called when `pid` (running on `pp`) reaches the end `qend` of the current quantum:
    /// when the scheduler would do nothing in between but run `pid` again from its clock
    /// in the next quantum, does the quantum change's bookkeeping and returns the next
    /// quantum's end, so the turn goes on without a trip through the scheduler.
    ///
    /// That is the case when no observer sees the turns, `pid` is alone in its
    /// processor's queue, no other processor is due in the rest of this quantum or in
    /// the next one, `pid` can start in the next quantum (its clock is before that
    /// quantum's end), and neither the alarm nor the time limit stops the run at this
    /// quantum's end. The scheduler's own steps at such a change are then: the
    /// processor's clock and wake bound become `pid`'s clock, the profile row gets the
    /// quantum's busy time, the global clock moves to `qend`; nothing else changes.
    /// The bound [`Env::cross_max`] for a process running on `pp`: the latest quantum
    /// end at which [`Simulator::solo_cross`] would let it go on, as far as that depends
    /// on the machine and not on the process's clock (0: none). It holds until the
    /// interpreter leaves, as only the instructions it leaves for change the machine.
    /// With a profile, every quantum's busy time needs its row: left to `solo_cross`.
    fn cross_max(&self, pp: usize, q: Ticks) -> Ticks {
        let alone = self.observer.is_none()
            && self.cfg.profile_step.is_none()
            && self.program_end.is_none()
            && self.queues[pp].len() == 1
            && self.due_now.is_empty();
        if !alone {
            return 0;
        }
        // Quantum end `e` may be crossed when no processor is due before `e + q`, the
        // alarm is after `e` and the time limit not before it.
        let due = self.due_min().saturating_sub(q);
        let alarm = self.cfg.alarm.map_or(NEVER, |a| a.saturating_sub(1));
        // The network is advanced at every quantum end it has an event before.
        due.min(alarm).min(self.cfg.max_time.unwrap_or(NEVER)).min(self.net_next_event())
    }

    fn solo_cross(&mut self, pid: u32, pp: usize, qend: Ticks) -> Option<Ticks> {
        let q = self.cfg.quantum.max(1);
        let next = qend + q;
        let clock = self.procs[pid as usize].clock;
        let alone = self.observer.is_none()
            && self.program_end.is_none()
            && self.queues[pp].len() == 1
            && self.due_now.is_empty()
            && self.due_min() >= next
            && self.net_next_event() >= qend;
        let stops = self.cfg.alarm.is_some_and(|a| qend >= a) || self.cfg.max_time.is_some_and(|m| qend > m);
        if !alone || stops || clock >= next {
            return None;
        }
        self.pclock[pp] = self.pclock[pp].max(clock);
        self.pmin[pp] = clock;
        self.record_profile();
        self.qstart = qend;
        self.cur = Some((pp, next));
        Some(next)
    }

    /// Notes that a process of processor `pp` may run from `t`: the processor is visited
    /// in this quantum if it comes later in the id order and `t` is before the quantum's
    /// end, else in the quantum containing `t` (or later).
    fn lower_pmin(&mut self, pp: usize, t: Ticks) {
        self.woken = true;
        if t >= self.pmin[pp] {
            return;
        }
        self.pmin[pp] = t;
        match self.cur {
            Some((cur, qend)) if pp > cur && t < qend => {
                self.due_now.insert(pp as u32);
            }
            _ => self.due_at(t, pp as u32),
        }
    }

    /// Notes that processor `pp` is due in the quantum containing `t` (or later).
    #[inline]
    fn due_at(&mut self, t: Ticks, pp: u32) {
        if t < self.due_next_bound {
            self.due_next.insert(pp);
            self.due_next_min = self.due_next_min.min(t);
        } else {
            self.due_later.push(Reverse((t, pp)));
        }
    }

    /// The least time a processor is due at after this quantum (as far as noted).
    #[inline]
    fn due_min(&self) -> Ticks {
        self.due_later.peek().map_or(NEVER, |Reverse((t, _))| *t).min(self.due_next_min)
    }

    /// The bytes `words` words of memory from `addr` take on the wire ([`word_bytes`]);
    /// a word outside memory counts 4 (the access itself reports the bad address).
    fn wire_bytes(&self, addr: u32, words: u32) -> u32 {
        (0..words)
            .map(|k| self.mem.index(i64::from(addr) + i64::from(k)).map_or(4, |i| word_bytes(self.mem.words[i])))
            .sum()
    }

    /// Sends the reply of a remote read whose request reached `owner` at `t`; returns
    /// when the reply reaches the reader (NEVER while it is in a contention network).
    fn read_reply(&mut self, pid: u32, addr: u32, reader: u32, owner: u32, words: u32, t: Ticks) -> Ticks {
        self.msg_seq += 1;
        let bytes = self.wire_bytes(addr, words);
        match self.remote_send(RemoteKind::Reply, pid, addr, owner, reader, bytes, t) {
            Some(t2) => t2.max(t),
            None => {
                self.in_flight.insert(self.msg_seq, InFlight::ReadReply { pid });
                NEVER
            }
        }
    }

    /// Sends remote-memory traffic (message `self.msg_seq`) of `kind` on behalf of
    /// process `pid` about address `addr`, and tells the observer; returns the arrival
    /// time when the network knows it now.
    #[allow(clippy::too_many_arguments)]
    fn remote_send(
        &mut self,
        kind: RemoteKind,
        pid: u32,
        addr: u32,
        src: u32,
        dst: u32,
        bytes: u32,
        now: Ticks,
    ) -> Option<Ticks> {
        let id = self.msg_seq;
        let arrival = self.net_send(id, src, dst, bytes, now);
        if let Some(o) = self.observer.as_mut() {
            let arrival = arrival.map(|a| a.max(now));
            let line = self.module.line_of(self.procs[pid as usize].pc);
            let (src_pproc, dst_pproc) = (src, dst);
            o.event(&SimEvent::Remote {
                time: now,
                msg: id,
                kind,
                pid,
                addr,
                src_pproc,
                dst_pproc,
                bytes,
                arrival,
                line,
            });
        }
        arrival
    }

    /// Remote-memory message `id`, sent with an unknown arrival, arrived at `t`.
    fn remote_arrived(&mut self, id: u64, t: Ticks) {
        if let Some(o) = self.observer.as_mut() {
            o.event(&SimEvent::Arrive { time: t, msg: id });
        }
    }

    /// Delivers to channel `c` the messages of its sender `k` that have arrived and
    /// have no earlier message of the same sender still in the network; a message
    /// never arrives before the one sent before it.
    fn deliver_ready(&mut self, c: usize, k: usize) {
        loop {
            let chan = &mut self.chans[c];
            let f = &mut chan.from[k];
            match f.pending.front() {
                Some(m) if m.arrival != NEVER => {}
                _ => return,
            }
            let Some(Sent { id, arrival, sent, data, deferred }) = f.pending.pop_front() else { return };
            let arrival = arrival.max(f.last);
            f.last = arrival;
            if chan.queue.capacity() == 0 {
                chan.queue.reserve_exact(1);
            }
            chan.queue.push(Msg { arrival, seq: id, data });
            let (addr, owner) = (chan.addr, chan.owner);
            self.stats.latency_ticks += arrival - sent;
            if deferred {
                if let Some(o) = self.observer.as_mut() {
                    o.event(&SimEvent::Arrive { time: arrival, msg: id });
                }
            }
            if let Some(o) = self.procs.get_mut(owner as usize) {
                if o.wait == Wait::Recv(addr) {
                    let w = &mut self.wake[owner as usize];
                    *w = (*w).min(arrival);
                    let opp = o.pproc as usize;
                    self.lower_pmin(opp, arrival);
                }
            }
        }
    }

    /// Hands the simulation every message the network delivers before `until`.
    fn advance_network(&mut self, until: Ticks) {
        while let Some((id, t)) = self.net.next_arrival(until) {
            self.arrive(id, t);
        }
        self.flush_hops();
    }

    /// Message `id` arrived at `t`.
    fn arrive(&mut self, id: u64, t: Ticks) {
        self.flush_hops();
        match self.in_flight.remove(&id) {
            Some(InFlight::Chan { chan, sender }) => {
                let c = chan as usize;
                let Some(k) = self.chans[c].from.iter().position(|f| f.pid == sender) else { return };
                if let Some(e) = self.chans[c].from[k].pending.iter_mut().find(|e| e.id == id) {
                    e.arrival = t;
                }
                self.deliver_ready(c, k);
            }
            Some(InFlight::ReadRequest { pid, addr, reader, owner, words }) => {
                self.remote_arrived(id, t);
                self.reads_pending -= 1;
                let wake = self.read_reply(pid, addr, reader, owner, words, t);
                if wake != NEVER {
                    self.wake_reader(pid, wake);
                }
            }
            Some(InFlight::ReadReply { pid }) => {
                self.remote_arrived(id, t);
                self.wake_reader(pid, t);
            }
            Some(InFlight::Frame { pid }) => self.wake_reader(pid, t),
            Some(InFlight::Load) => self.remote_arrived(id, t),
            None => {}
        }
    }

    /// The reply of `pid`'s remote read arrives at `t`.
    fn wake_reader(&mut self, pid: u32, t: Ticks) {
        if let Some(p) = self.procs.get(pid as usize) {
            self.wake[pid as usize] = t;
            let pp = p.pproc as usize;
            self.lower_pmin(pp, t);
        }
    }

    /// Puts `pid` to wait for `wait` until `wake` and tells the observer.
    fn block(&mut self, pid: u32, wait: Wait, wake: Ticks) {
        self.wake[pid as usize] = wake;
        let p = &mut self.procs[pid as usize];
        p.wait = wait;
        let time = p.clock;
        let pp = p.pproc as usize;
        let line = self.module.line_of(p.pc);
        self.lower_pmin(pp, wake);
        if let Some(o) = self.observer.as_mut() {
            let reason = match wait {
                Wait::Recv(addr) => BlockReason::Receive { addr },
                Wait::Join => BlockReason::Join,
                Wait::Forall => BlockReason::Forall,
                Wait::RemoteRead(addr) => BlockReason::RemoteRead { addr },
                Wait::Delay => BlockReason::Delay { until: wake },
                Wait::Lock(addr) => BlockReason::Lock { addr },
                Wait::Children | Wait::None => BlockReason::Children,
            };
            o.event(&SimEvent::Block { time, pid, reason, line });
        }
    }

    /// Charges the current instruction of `pid` and advances its pc.
    fn charge(&mut self, pid: u32, op: Op) -> Result<(), SimError> {
        self.charge_n(pid, op, 1)
    }

    /// Charges `op` `n` times over as one step (the library's per-word routines).
    fn charge_n(&mut self, pid: u32, op: Op, n: u64) -> Result<(), SimError> {
        if self.steps_left == 0 {
            return Err(self.limit(Limit::Steps));
        }
        self.steps_left -= 1;
        let p = &mut self.procs[pid as usize];
        let o = op.opcode() as usize;
        if p.time_on {
            let pp = p.pproc as usize;
            let Tables { ticks, seq, .. } = &*self.tables[self.table_of[pp]].1;
            let (dt, ds) = (ticks[o].saturating_mul(n), seq[o].saturating_mul(n));
            p.clock += dt;
            self.busy[pp] += dt;
            self.stats.seq_ticks += ds;
            if let Some(t) = self.pc_ticks.get_mut(p.pc as usize) {
                *t += dt;
            }
        }
        self.stats.instructions += 1;
        p.pc += 1;
        Ok(())
    }

    fn pop(&mut self, pid: u32) -> Result<Word, SimError> {
        match self.procs[pid as usize].stack.pop() {
            Some(w) => Ok(w),
            None => Err(self.rt(pid, RuntimeError::BadCode { message: "working stack underflow".into() })),
        }
    }

    /// Where the top `n` words of `pid`'s working stack start (a runtime error when it
    /// holds fewer).
    fn stack_top(&self, pid: u32, n: usize) -> Result<usize, SimError> {
        match self.procs[pid as usize].stack.len().checked_sub(n) {
            Some(at) => Ok(at),
            None => Err(self.rt(pid, RuntimeError::BadCode { message: "working stack underflow".into() })),
        }
    }

    fn pop_n(&mut self, pid: u32, n: usize) -> Result<Vec<Word>, SimError> {
        let at = self.stack_top(pid, n)?;
        Ok(self.procs[pid as usize].stack.split_off(at))
    }

    /// The top `n` words of `pid`'s working stack, taken off it, as a message's words.
    fn pop_payload(&mut self, pid: u32, n: usize) -> Result<Payload, SimError> {
        let at = self.stack_top(pid, n)?;
        let st = &mut self.procs[pid as usize].stack;
        let data = Payload::new(&st[at..]);
        st.truncate(at);
        Ok(data)
    }

    fn peek(&self, pid: u32) -> Result<Word, SimError> {
        match self.procs[pid as usize].stack.last() {
            Some(&w) => Ok(w),
            None => Err(self.rt(pid, RuntimeError::BadCode { message: "working stack underflow".into() })),
        }
    }

    fn chan_index(&self, pid: u32, addr: i64) -> Result<usize, SimError> {
        usize::try_from(addr)
            .ok()
            .and_then(|a| self.chan_at.get(a).copied())
            .filter(|&c| c != NONE)
            .map(|c| c as usize)
            .ok_or_else(|| self.rt(pid, RuntimeError::NotAChannel { addr }))
    }

    fn string_at(&self, pid: u32, addr: i64) -> Result<Vec<u8>, SimError> {
        self.mem.read_c_string(addr).ok_or_else(|| self.rt(pid, RuntimeError::BadAddress { addr }))
    }

    /// Begins the end of `pid`: it ends once its forked children have ended.
    fn begin_end(&mut self, pid: u32) {
        let p = &mut self.procs[pid as usize];
        p.ending = true;
        if p.forked_live == 0 {
            let t = p.clock;
            self.finish(pid, t);
        } else {
            self.block(pid, Wait::Children, NEVER);
        }
    }

    /// Ends `pid` at time `t`: frees its memory and tells its parent.
    fn finish(&mut self, pid: u32, t: Ticks) {
        let (parent, kind, pp, segs) = {
            let p = &mut self.procs[pid as usize];
            p.ended = true;
            self.wake[pid as usize] = NEVER;
            p.wait = Wait::None;
            (p.parent, p.kind, p.pproc as usize, std::mem::take(&mut p.segs))
        };
        for s in segs {
            self.mem.free(s.base, s.len);
        }
        if let Some(k) = self.queues[pp].iter().position(|&x| x == pid) {
            self.queues[pp].remove(k);
        }
        self.live.add(pp, -1);
        self.live_procs -= 1;
        if let Some(o) = self.observer.as_mut() {
            o.event(&SimEvent::ProcessEnd { time: t, pid });
        }
        if pid == 0 {
            self.program_end = Some(t);
            return;
        }
        let Some(par) = self.procs.get_mut(parent as usize) else { return };
        let ppar = par.pproc as usize;
        match kind {
            Kind::Forall => {
                par.forall_pending = par.forall_pending.saturating_sub(1);
                par.forall_end = par.forall_end.max(t);
                if par.forall_pending == 0 && par.wait == Wait::Forall {
                    self.wake[parent as usize] = par.forall_end;
                }
            }
            Kind::Fork => {
                par.forked_live = par.forked_live.saturating_sub(1);
                par.ended_children.push(Reverse(t));
                par.children_end = par.children_end.max(t);
                match par.wait {
                    Wait::Join => self.wake[parent as usize] = self.wake[parent as usize].min(t),
                    Wait::Children if par.forked_live == 0 => self.wake[parent as usize] = par.children_end,
                    _ => {}
                }
            }
            Kind::Main => {}
        }
        let w = self.wake[parent as usize];
        self.lower_pmin(ppar, w);
    }

    /// FORK and FORALLFORK: pops the arguments, the channels and the virtual processor,
    /// charges the instruction and creates the child as `kind`. The arguments were
    /// evaluated here, on the parent's processor (seed 000 Fig. 13, `altPhyProcessor`);
    /// the child's first frame is one block of its argument words (`CopyToNewBlock`)
    /// sent to the child's processor, and the child starts when it arrives: after
    /// `local_cost` on the parent's own processor, after the network's latency for a
    /// message of `4 * max(1, words)` bytes elsewhere.
    fn fork(&mut self, pid: u32, op: Op, func: u32, chans: u32, vproc: bool, kind: Kind) -> Result<u32, SimError> {
        let nparams = self.funcs.get(func as usize).map_or(0, |f| f.params) as usize;
        let args = self.pop_n(pid, nparams)?;
        let chan_addrs = self.pop_n(pid, chans as usize)?;
        let (v, pp) = if vproc {
            let v = as_int(self.pop(pid)?) as i64;
            let npp = self.queues.len() as u32;
            let count = if self.cfg.mapping.is_empty() { u32::MAX } else { self.cfg.mapping.len() as u32 };
            let pp = match u32::try_from(v) {
                Ok(v) if self.cfg.mapping.is_empty() => Some(v % npp),
                Ok(v) => self.cfg.mapping.get(v as usize).copied().filter(|&p| p < npp),
                Err(_) => None,
            };
            let Some(pp) = pp else {
                return Err(self.rt(pid, RuntimeError::BadVproc { vproc: v, count }));
            };
            (v as u32, pp)
        } else {
            let pp = self.default_pproc();
            (pp, pp)
        };
        let mut cidx = Vec::with_capacity(chan_addrs.len());
        for w in &chan_addrs {
            cidx.push(self.chan_index(pid, as_int(*w) as i64)?);
        }
        self.charge(pid, op)?;
        let (start, display, src) = {
            let p = &self.procs[pid as usize];
            (p.clock, p.display.clone(), p.pproc)
        };
        let child = self.spawn(pid, kind, func, v, pp, &args, &display, start, (0, -1))?;
        for c in cidx {
            self.chans[c].owner = child;
        }
        self.msg_seq += 1;
        let id = self.msg_seq;
        let words = args.len().max(1) as u32;
        self.wake[child as usize] = match self.net_send(id, src, pp, 4 * words, start) {
            Some(t) => t.max(start),
            None => {
                self.in_flight.insert(id, InFlight::Frame { pid: child });
                NEVER
            }
        };
        Ok(child)
    }

    /// Executes an instruction that needs more than the running process and the pool.
    fn exec_complex(&mut self, pid: u32, ins: Instr) -> Result<Flow, SimError> {
        let op = ins.op();
        match ins {
            Instr::Call { .. } | Instr::CallInd {} => {
                let func = match ins {
                    Instr::Call { func } => func,
                    _ => {
                        let v = as_int(self.pop(pid)?);
                        if v == 0 {
                            return Err(self.rt(pid, RuntimeError::NullFunction));
                        }
                        match u32::try_from(v - 1).ok().filter(|&f| (f as usize) < self.funcs.len()) {
                            Some(f) => f,
                            None => {
                                let message = format!("call through a function pointer holding {v}");
                                return Err(self.rt(pid, RuntimeError::BadCode { message }));
                            }
                        }
                    }
                };
                let f = self.funcs[func as usize];
                let n = f.frame.max(f.params);
                let pp = self.procs[pid as usize].pproc;
                // The top frame's segment is full: the next kept segment if it holds the
                // frame, else a new one in place of the kept ones (sizes grow 16, 64,
                // 256 words... up to `segment_words`, so a process that calls a small
                // function holds little).
                let p = &mut self.procs[pid as usize];
                let next = p.cur_seg as usize + 1;
                let base = match p.segs.get_mut(next) {
                    Some(s) if s.len >= n => {
                        s.top = n;
                        s.base
                    }
                    _ => {
                        for s in p.segs.drain(next..) {
                            self.mem.free(s.base, s.len);
                        }
                        let shift = (2 * next - 2).min(30) as u32;
                        let len = n.max((16u32 << shift).min(self.cfg.segment_words));
                        let Some(base) = self.mem.alloc(len, pp) else { return Err(self.limit(Limit::Memory)) };
                        self.procs[pid as usize].segs.push(Seg { base, len, top: n });
                        base
                    }
                };
                self.procs[pid as usize].cur_seg = next as u32;
                let ret = self.procs[pid as usize].pc + 1;
                self.charge(pid, op)?;
                let p = &mut self.procs[pid as usize];
                push_frame(p, &mut self.mem, f, base, ret).map_err(|k| self.rt(pid, k))?;
                Ok(Flow::Continue)
            }
            Instr::Ret { .. } => {
                // Return from the bottom frame.
                let p = &mut self.procs[pid as usize];
                if p.group_next <= p.group_hi {
                    // Next index of this forall child's group: same frame, fresh words.
                    let idx = p.group_next;
                    p.group_next += 1;
                    let fr = p.frames[0];
                    let r = fr.base as usize..(fr.base + fr.words) as usize;
                    if let Some(w) = self.mem.words.get_mut(r) {
                        w.fill(Word::Int(0));
                        w[0] = Word::Int(idx as i32);
                    }
                    p.stack.clear();
                    let entry = self.funcs[p.func as usize].entry;
                    self.charge(pid, op)?;
                    self.procs[pid as usize].pc = entry;
                    return Ok(Flow::Continue);
                }
                self.charge(pid, op)?;
                self.begin_end(pid);
                Ok(Flow::Stop)
            }
            Instr::Halt {} => {
                self.charge(pid, op)?;
                self.begin_end(pid);
                Ok(Flow::Stop)
            }
            Instr::CopyToNewBlock { n } => {
                let a = as_int(self.pop(pid)?) as i64;
                let pp = self.procs[pid as usize].pproc;
                let Some(base) = self.mem.alloc(n, pp) else { return Err(self.limit(Limit::Memory)) };
                for k in 0..n as i64 {
                    let i =
                        self.mem.index(a + k).ok_or_else(|| self.rt(pid, RuntimeError::BadAddress { addr: a + k }))?;
                    self.mem.words[base as usize + k as usize] = self.mem.words[i];
                }
                self.procs[pid as usize].stack.push(Word::Int(base as i32));
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Fork { func, chans, vproc } => {
                self.fork(pid, op, func, chans, vproc, Kind::Fork)?;
                self.procs[pid as usize].forked_live += 1;
                Ok(Flow::Continue)
            }
            Instr::ForallFork { func, chans, vproc } => {
                self.fork(pid, op, func, chans, vproc, Kind::Forall)?;
                self.procs[pid as usize].forall_pending += 1;
                Ok(Flow::Continue)
            }
            Instr::ForallWait {} => {
                let p = &mut self.procs[pid as usize];
                if p.forall_pending > 0 {
                    self.block(pid, Wait::Forall, NEVER);
                    return Ok(Flow::Stop);
                }
                if p.forall_end > p.clock {
                    let t = p.forall_end;
                    self.block(pid, Wait::Forall, t);
                    return Ok(Flow::Stop);
                }
                p.forall_end = 0;
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Forall { func, grouping } => {
                let hi = as_int(self.pop(pid)?) as i64;
                let lo = as_int(self.pop(pid)?) as i64;
                let g = if grouping { (as_int(self.pop(pid)?) as i64).max(1) } else { 1 };
                self.charge(pid, op)?;
                let (start, display) = {
                    let p = &self.procs[pid as usize];
                    (p.clock, p.display.clone())
                };
                let mut n = 0;
                let mut a = lo;
                while a <= hi {
                    let b = (a + g - 1).min(hi);
                    let pp = self.default_pproc();
                    self.spawn(pid, Kind::Forall, func, pp, pp, &[Word::Int(a as i32)], &display, start, (a + 1, b))?;
                    n += 1;
                    a = b + 1;
                }
                if n == 0 {
                    return Ok(Flow::Continue);
                }
                let p = &mut self.procs[pid as usize];
                p.forall_pending = n;
                p.forall_end = 0;
                self.block(pid, Wait::Forall, NEVER);
                Ok(Flow::Stop)
            }
            Instr::Join {} => {
                let p = &mut self.procs[pid as usize];
                match p.ended_children.peek().map(|r| r.0) {
                    Some(t) if t <= p.clock => {
                        p.ended_children.pop();
                        self.charge(pid, op)?;
                        Ok(Flow::Continue)
                    }
                    Some(t) => {
                        self.block(pid, Wait::Join, t);
                        Ok(Flow::Stop)
                    }
                    None if p.forked_live > 0 => {
                        self.block(pid, Wait::Join, NEVER);
                        Ok(Flow::Stop)
                    }
                    None => Err(self.rt(pid, RuntimeError::NothingToJoin)),
                }
            }
            Instr::Send { n } => {
                // The send's own pc: `charge` moves past it.
                let pc = self.procs[pid as usize].pc;
                let data = self.pop_payload(pid, n as usize)?;
                let a = as_int(self.pop(pid)?) as i64;
                let c = self.chan_index(pid, a)?;
                self.charge(pid, op)?;
                if self.unreceived >= self.cfg.max_messages {
                    return Err(self.limit(Limit::Messages));
                }
                self.unreceived += 1;
                let owner = self.chans[c].owner;
                let src = self.procs[pid as usize].pproc;
                let now = self.procs[pid as usize].clock;
                let dst = self.procs.get(owner as usize).map_or(src, |p| p.pproc);
                let bytes: u32 = data.iter().copied().map(word_bytes).sum();
                self.msg_seq += 1;
                let id = self.msg_seq;
                let arrival = self.net_send(id, src, dst, bytes, now);
                self.stats.messages += 1;
                self.stats.bytes += bytes as u64;
                let chan = &mut self.chans[c];
                let k = match chan.from.iter().position(|f| f.pid == pid) {
                    Some(k) => k,
                    None => {
                        // Room for one sender and one message: most channel elements (one per
                        // process in a large machine) see one sender and few messages.
                        chan.from.reserve_exact(1);
                        chan.from.push(FromSender { pid, last: 0, pending: VecDeque::with_capacity(1) });
                        chan.from.len() - 1
                    }
                };
                let sent =
                    Sent { id, arrival: arrival.map_or(NEVER, |t| t.max(now)), sent: now, data, deferred: false };
                chan.from[k].pending.push_back(sent);
                if self.observer.is_some() {
                    // The arrival after the non-overtaking rule (the last delivery).
                    let known = arrival.map(|t| t.max(now).max(self.chans[c].from[k].last));
                    let (channel, elem) = (self.chans[c].info, self.chans[c].elem);
                    let line = self.module.line_of(pc);
                    if let Some(o) = self.observer.as_mut() {
                        o.event(&SimEvent::Send {
                            time: now,
                            msg: id,
                            src_pid: pid,
                            dst_pid: owner,
                            src_pproc: src,
                            dst_pproc: dst,
                            channel,
                            elem,
                            bytes,
                            arrival: known,
                            line,
                        });
                    }
                }
                self.flush_hops();
                match arrival {
                    Some(_) => self.deliver_ready(c, k),
                    None => {
                        if let Some(e) = self.chans[c].from[k].pending.back_mut() {
                            e.deferred = true;
                        }
                        self.in_flight.insert(id, InFlight::Chan { chan: c as u32, sender: pid });
                    }
                }
                Ok(Flow::Continue)
            }
            Instr::Recv { .. } => {
                let a = as_int(self.peek(pid)?) as i64;
                let c = self.chan_index(pid, a)?;
                let owner = self.chans[c].owner;
                if owner != pid {
                    let channel = self.channel_name(a as u32);
                    return Err(self.rt(pid, RuntimeError::NotOwner { reader: pid, owner, channel }));
                }
                let clock = self.procs[pid as usize].clock;
                match self.chans[c].queue.peek().map(|m| m.arrival) {
                    Some(t) if t <= clock => {
                        let m = self.chans[c].queue.pop().map(|m| m.data).unwrap_or_default();
                        self.unreceived = self.unreceived.saturating_sub(1);
                        let p = &mut self.procs[pid as usize];
                        p.stack.pop();
                        p.stack.extend_from_slice(&m);
                        self.charge(pid, op)?;
                        if self.observer.is_some() {
                            let (time, line) =
                                (self.procs[pid as usize].clock, self.module.line_of(self.procs[pid as usize].pc));
                            let (channel, elem) = (self.chans[c].info, self.chans[c].elem);
                            if let Some(o) = self.observer.as_mut() {
                                o.event(&SimEvent::Receive { time, pid, channel, elem, arrival: t, line });
                            }
                        }
                        Ok(Flow::Continue)
                    }
                    other => {
                        self.block(pid, Wait::Recv(a as u32), other.unwrap_or(NEVER));
                        Ok(Flow::Stop)
                    }
                }
            }
            Instr::Lock {} => {
                let a = as_int(self.peek(pid)?) as i64;
                let i = self.mem.index(a).ok_or_else(|| self.rt(pid, RuntimeError::BadAddress { addr: a }))?;
                if as_int(self.mem.words[i]) == 0 {
                    self.mem.words[i] = Word::Int(pid as i32 + 1);
                    self.procs[pid as usize].stack.pop();
                    self.charge(pid, op)?;
                    Ok(Flow::Continue)
                } else {
                    self.lock_waiters.entry(i as u32).or_default().push(pid);
                    self.block(pid, Wait::Lock(i as u32), NEVER);
                    Ok(Flow::Stop)
                }
            }
            Instr::Unlock {} => {
                let a = as_int(self.pop(pid)?) as i64;
                let i = self.mem.index(a).ok_or_else(|| self.rt(pid, RuntimeError::BadAddress { addr: a }))?;
                self.mem.words[i] = Word::Int(0);
                self.charge(pid, op)?;
                let now = self.procs[pid as usize].clock;
                if let Some(ws) = self.lock_waiters.remove(&(i as u32)) {
                    for w in ws {
                        if let Some(p) = self.procs.get(w as usize) {
                            self.wake[w as usize] = self.wake[w as usize].min(now);
                            let wpp = p.pproc as usize;
                            self.lower_pmin(wpp, now);
                        }
                    }
                }
                Ok(Flow::Continue)
            }
            Instr::Delay {} => {
                let d = match self.pop(pid)? {
                    Word::Float(f) => (f as f64 * TICKS_PER_UNIT as f64).round().max(0.0) as Ticks,
                    w => (as_int(w).max(0) as Ticks) * TICKS_PER_UNIT,
                };
                self.charge(pid, op)?;
                let until = self.procs[pid as usize].clock + d;
                self.block(pid, Wait::Delay, until);
                Ok(Flow::Stop)
            }
            Instr::Probe {} => {
                let label = as_int(self.pop(pid)?) as i64;
                let id = as_int(self.pop(pid)?);
                self.charge(pid, op)?;
                if self.observer.is_some() {
                    let label = self.string_at(pid, label)?;
                    let label = String::from_utf8_lossy(&label);
                    let time = self.procs[pid as usize].clock;
                    if let Some(o) = self.observer.as_mut() {
                        o.event(&SimEvent::Probe { time, pid, id, label: &label });
                    }
                }
                Ok(Flow::Continue)
            }
            Instr::TimeOn {} | Instr::TimeOff {} => {
                let on = matches!(ins, Instr::TimeOn {});
                self.procs[pid as usize].time_on = on;
                self.charge(pid, op)?;
                if let Some(o) = self.observer.as_mut() {
                    let time = self.procs[pid as usize].clock;
                    o.event(&SimEvent::Timing { time, pid, on });
                }
                Ok(Flow::Continue)
            }
            Instr::Rand {} => {
                let x = super::rng::next_f32(&mut self.rng);
                self.procs[pid as usize].stack.push(Word::Float(x));
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Srand {} => {
                let s = as_int(self.pop(pid)?);
                self.rng = Rng::new(s as u32 as u64);
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Printf { .. } | Instr::Fprintf { .. } | Instr::Vprintf {} | Instr::Vfprintf {} => {
                let (args, va) = match ins {
                    Instr::Printf { argc } | Instr::Fprintf { argc } => (self.pop_n(pid, argc as usize)?, None),
                    _ => (Vec::new(), Some(as_int(self.pop(pid)?) as i64)),
                };
                let fmt_addr = as_int(self.pop(pid)?) as i64;
                let file = if matches!(ins, Instr::Fprintf { .. } | Instr::Vfprintf {}) {
                    Some(as_int(self.pop(pid)?) as i64)
                } else {
                    None
                };
                let fmt = self.string_at(pid, fmt_addr)?;
                let args = match va {
                    Some(a) => self.va_words(pid, a, format::arguments_needed(&fmt))?,
                    None => args,
                };
                let out = self.format_text(pid, &fmt, &args)?;
                let res = match file {
                    None | Some(STDOUT_HANDLE) => self.io.stdout.write_all(&out),
                    Some(STDERR_HANDLE) => self.io.stderr.write_all(&out),
                    Some(h) => match self.file(h) {
                        Some(FileSlot::Write(w)) => w.write_all(&out),
                        _ => return Err(self.rt(pid, RuntimeError::BadFile { handle: h })),
                    },
                };
                res.map_err(|e| self.rt(pid, RuntimeError::Output { message: e.to_string() }))?;
                self.procs[pid as usize].stack.push(Word::Int(out.len() as i32));
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Scanf { argc } | Instr::Fscanf { argc } => {
                let dests = self.pop_n(pid, argc as usize)?;
                let fmt_addr = as_int(self.pop(pid)?) as i64;
                let file = if matches!(ins, Instr::Fscanf { .. }) { Some(as_int(self.pop(pid)?) as i64) } else { None };
                let fmt = self.string_at(pid, fmt_addr)?;
                let scan = match file {
                    None | Some(STDIN_HANDLE) => format::scanf(&fmt, &mut *self.io.stdin),
                    Some(h) => match self.file(h) {
                        Some(FileSlot::Read(r)) => format::scanf(&fmt, r as &mut dyn BufRead),
                        _ => return Err(self.rt(pid, RuntimeError::BadFile { handle: h })),
                    },
                };
                for (v, d) in scan.values.iter().zip(dests.iter()) {
                    let a = as_int(*d) as i64;
                    let words: Vec<Word> = match v {
                        ScanValue::Int(i) => vec![Word::Int(*i)],
                        ScanValue::Float(f) => vec![Word::Float(*f)],
                        ScanValue::Double(d) => vec![Word::Double(*d)],
                        ScanValue::Long(l) => vec![Word::Long(*l)],
                        ScanValue::Chars(c) => c.iter().map(|&b| Word::Char(b)).collect(),
                        ScanValue::Str(c) => c.iter().map(|&b| Word::Char(b)).chain([Word::Char(0)]).collect(),
                    };
                    for (k, w) in words.into_iter().enumerate() {
                        let i = self
                            .mem
                            .index(a + k as i64)
                            .ok_or_else(|| self.rt(pid, RuntimeError::BadAddress { addr: a + k as i64 }))?;
                        self.mem.words[i] = w;
                    }
                }
                self.procs[pid as usize].stack.push(Word::Int(scan.ret));
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Fopen {} => {
                let mode = as_int(self.pop(pid)?) as i64;
                let name = as_int(self.pop(pid)?) as i64;
                let mode = self.string_at(pid, mode)?;
                let name = self.string_at(pid, name)?;
                let name = String::from_utf8_lossy(&name).into_owned();
                let slot = if mode.contains(&b'w') {
                    std::fs::File::create(&name).ok().map(|f| FileSlot::Write(BufWriter::new(f)))
                } else if mode.contains(&b'a') {
                    std::fs::OpenOptions::new()
                        .append(true)
                        .create(true)
                        .open(&name)
                        .ok()
                        .map(|f| FileSlot::Write(BufWriter::new(f)))
                } else {
                    std::fs::File::open(&name).ok().map(|f| FileSlot::Read(BufReader::new(f)))
                };
                let h = match slot {
                    Some(s) => {
                        self.files.push(Some(s));
                        self.files.len() as i32
                    }
                    None => 0,
                };
                self.procs[pid as usize].stack.push(Word::Int(h));
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Fclose {} => {
                let h = as_int(self.pop(pid)?) as i64;
                let standard = matches!(h, STDIN_HANDLE | STDOUT_HANDLE | STDERR_HANDLE);
                let r = match usize::try_from(h - 1).ok().and_then(|k| self.files.get_mut(k)).and_then(|s| s.take()) {
                    _ if standard => 0,
                    Some(FileSlot::Write(mut w)) => w.flush().map_or(-1, |_| 0),
                    Some(FileSlot::Read(_)) => 0,
                    None => -1,
                };
                self.procs[pid as usize].stack.push(Word::Int(r));
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Sprintf { .. } | Instr::Vsnprintf {} => {
                let (args, va) = match ins {
                    Instr::Sprintf { argc } => (self.pop_n(pid, argc as usize)?, None),
                    _ => (Vec::new(), Some(as_int(self.pop(pid)?) as i64)),
                };
                let fmt_addr = as_int(self.pop(pid)?) as i64;
                let size = as_int(self.pop(pid)?) as i64;
                let dest = as_int(self.pop(pid)?) as i64;
                let fmt = self.string_at(pid, fmt_addr)?;
                let args = match va {
                    Some(a) => self.va_words(pid, a, format::arguments_needed(&fmt))?,
                    None => args,
                };
                let out = self.format_text(pid, &fmt, &args)?;
                let keep = if size < 0 { out.len() } else { out.len().min(size.saturating_sub(1) as usize) };
                if size != 0 {
                    let bytes = out[..keep].iter().copied().chain([0u8]);
                    for (k, b) in bytes.enumerate() {
                        let i = self.word_index(pid, dest + k as i64)?;
                        self.mem.words[i] = Word::Char(b);
                    }
                }
                self.procs[pid as usize].stack.push(Word::Int(i32::try_from(out.len()).unwrap_or(i32::MAX)));
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Malloc {} => {
                let n = as_int(self.pop(pid)?);
                let pp = self.procs[pid as usize].pproc;
                let base = match u32::try_from(n) {
                    Ok(n) if n > 0 => match self.mem.alloc(n, pp) {
                        Some(b) => {
                            self.heap.insert(b, n);
                            b
                        }
                        None => 0,
                    },
                    _ => 0,
                };
                self.procs[pid as usize].stack.push(Word::Int(base as i32));
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Free {} => {
                let a = as_int(self.pop(pid)?);
                if a != 0 {
                    let len = u32::try_from(a).ok().and_then(|b| self.heap.remove(&b));
                    let Some(len) = len else { return Err(self.rt(pid, RuntimeError::BadFree { addr: a as i64 })) };
                    self.mem.free(a as u32, len);
                }
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Realloc {} => {
                let n = as_int(self.pop(pid)?);
                let a = as_int(self.pop(pid)?);
                let old = if a == 0 {
                    0
                } else {
                    match u32::try_from(a).ok().and_then(|b| self.heap.get(&b).copied()) {
                        Some(len) => len,
                        None => return Err(self.rt(pid, RuntimeError::BadFree { addr: a as i64 })),
                    }
                };
                let pp = self.procs[pid as usize].pproc;
                let new = match u32::try_from(n) {
                    Ok(n) if n > 0 => self.mem.alloc(n, pp).map(|b| (b, n)),
                    _ => None,
                };
                let moved = match new {
                    Some((b, n)) => {
                        let keep = old.min(n);
                        for k in 0..keep {
                            self.mem.words[(b + k) as usize] = self.mem.words[(a as u32 + k) as usize];
                        }
                        self.heap.insert(b, n);
                        if a != 0 {
                            self.heap.remove(&(a as u32));
                            self.mem.free(a as u32, old);
                        }
                        self.procs[pid as usize].stack.push(Word::Int(b as i32));
                        keep
                    }
                    // C: a failed realloc leaves the block alone and returns NULL.
                    None => {
                        self.procs[pid as usize].stack.push(Word::Int(0));
                        0
                    }
                };
                self.charge_n(pid, op, u64::from(moved).max(1))?;
                Ok(Flow::Continue)
            }
            Instr::MemCopy {} => {
                let n = as_int(self.pop(pid)?).max(0) as i64;
                let src = as_int(self.pop(pid)?) as i64;
                let dst = as_int(self.pop(pid)?) as i64;
                if n > 0 {
                    let s0 = self.word_index(pid, src)?;
                    let s1 = self.word_index(pid, src + n - 1)?;
                    let d0 = self.word_index(pid, dst)?;
                    self.word_index(pid, dst + n - 1)?;
                    self.mem.words.copy_within(s0..=s1, d0);
                }
                self.procs[pid as usize].stack.push(Word::Int(dst as i32));
                self.charge_n(pid, op, n.max(1) as u64)?;
                Ok(Flow::Continue)
            }
            Instr::MemSet {} => {
                let n = as_int(self.pop(pid)?).max(0) as i64;
                let v = as_int(self.pop(pid)?) as u8;
                let dst = as_int(self.pop(pid)?) as i64;
                if n > 0 {
                    let d0 = self.word_index(pid, dst)?;
                    let d1 = self.word_index(pid, dst + n - 1)?;
                    let w = if v == 0 { Word::Int(0) } else { Word::Char(v) };
                    self.mem.words[d0..=d1].fill(w);
                }
                self.procs[pid as usize].stack.push(Word::Int(dst as i32));
                self.charge_n(pid, op, n.max(1) as u64)?;
                Ok(Flow::Continue)
            }
            Instr::Exit {} => {
                let status = as_int(self.pop(pid)?);
                if status != 0 {
                    return Err(self.rt(pid, RuntimeError::Exit { status }));
                }
                self.charge(pid, op)?;
                let t = self.procs[pid as usize].clock;
                if pid != 0 {
                    self.finish(pid, t);
                }
                self.program_end = Some(t);
                Ok(Flow::Stop)
            }
            other => Err(self.rt(pid, RuntimeError::BadCode { message: format!("unexpected instruction {other}") })),
        }
    }

    /// The text `printf` makes of format `fmt` and argument words `args` (`%s` strings
    /// read from the pool).
    fn format_text(&self, pid: u32, fmt: &[u8], args: &[Word]) -> Result<Vec<u8>, SimError> {
        let mut out = Vec::new();
        let mem = &self.mem;
        format::printf(
            fmt,
            args,
            &mut |a| mem.read_c_string(a as i64).ok_or(format::FormatError::BadString { addr: a }),
            &mut out,
        )
        .map_err(|e| self.rt(pid, RuntimeError::Format { message: e.to_string() }))?;
        Ok(out)
    }

    /// The `n` argument words a `va_list` at `addr` points at (see `stdarg.h`).
    fn va_words(&self, pid: u32, addr: i64, n: usize) -> Result<Vec<Word>, SimError> {
        (0..n as i64).map(|k| self.word_index(pid, addr + k).map(|i| self.mem.words[i])).collect()
    }

    /// The pool index of `addr` for a library routine: a null pointer or an address
    /// outside the pool is a runtime error.
    fn word_index(&self, pid: u32, addr: i64) -> Result<usize, SimError> {
        if addr == 0 && self.mem.null_reserved {
            return Err(self.rt(pid, RuntimeError::NullPointer));
        }
        self.mem.index(addr).ok_or_else(|| self.rt(pid, RuntimeError::BadAddress { addr }))
    }

    fn file(&mut self, h: i64) -> Option<&mut FileSlot> {
        // The standard streams are no file-table slot.
        usize::try_from(h - 1).ok().and_then(|k| self.files.get_mut(k)).and_then(|s| s.as_mut())
    }
}

#[cfg(test)]
mod tests;
