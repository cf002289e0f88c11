//! The simulator proper. The module docs of [`super`] describe the model; this folder
//! implements it, one concern a file:
//!
//! | file | what lives there |
//! |---|---|
//! | `engine.rs` | the process, channel and message types, the [`Simulator`] state, its creation, statistics and the word helpers |
//! | [`scheduler`] | quanta, round-robin turns per physical processor, the processors due in a quantum ([`procset`]), the jump to the next event |
//! | [`process`] | creation (`FORK`, `FORALL`, the default allocation), blocking and waking, ending, joins, the waiters of a deadlock |
//! | [`channels`] | channel messages in order per sender, remote reads and writes, the network's arrivals |
//! | [`complex`] | every instruction the hot loop leaves to the whole machine, with `printf`/`scanf` and the program's files |
//! | [`interp`](mod@interp) | the hot loop |
//! | [`net_worker`] | the network's own thread, running ahead of the processors |
//! | [`view`] | what the debugger sees and may change |
//!
//! The hot loop runs the instructions that touch only the running process and the memory
//! pool (loads, stores, arithmetic, jumps, calls and returns that fit in the current
//! frame segment) without allocating; every other instruction leaves the loop and is
//! executed by [`Simulator::exec_complex`] with access to the whole machine.
use super::format::{self, ScanValue};
use super::least_loaded::LeastLoaded;
use super::memory::{AllocError, Memory};
use super::observe::{Observer, ProcState, ProcessStatus, Reason, RemoteKind, SimEvent};
use super::rng::Rng;
use super::stream::{Indicators, Reading};
use super::{Io, Limit, NetThread, RuntimeError, SimConfig, SimError, Stats, TickCosts, Waiter};
use crate::net::Network;
use crate::time::{Ticks, TimeQueue, MAX_TIME, NEVER, TICKS_PER_UNIT};
use crate::vcode::{Class, Instr, MathFn, Module, Op, Scalar, Word};
use net_worker::NetWorker;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap, VecDeque};
use std::io::{BufReader, BufWriter, Write};
use std::time::Instant;

mod arith;
mod block;
mod bridge;
mod channels;
mod complex;
mod interp;
mod mpi;
mod net_worker;
mod process;
mod procset;
mod ready;
mod runq;
mod scheduler;
use block::Step;
use interp::{interp, tick_tables, Ctr, Env, Tables, LEAVE};
mod view;
pub use view::{CallFrame, ChannelView, DebugHook, Quit, Stop};

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
/// The most distinct per-processor cost tables that get the charges of straight
/// stretches ([`block::Charges`]).
const MAX_CHARGED_TABLES: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Main,
    Forall,
    Fork,
}

/// A call's frame: 24 bytes (its function's display depth is the function's, looked up
/// when it returns). A process lists the frames of its calls ([`Proc::frames`]); its
/// bottom frame, its function's, is made from the process when asked for
/// ([`Proc::bottom_frame`]), so that an idle process at its bottom holds no list.
#[derive(Clone, Copy, Debug)]
struct Frame {
    /// The function's index in `Module::functions`.
    func: u32,
    base: u32,
    words: u32,
    /// The display entry of the function's depth before the call.
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
///
/// Three cache lines (192 bytes): a million idle processes hold little more than their
/// blocks, so what few processes use (remote writes, a spinlock granted, a `forall`'s
/// children to wait for, `--fork-args child`'s accounting, a grouped `forall` child's
/// indices, a third pending child end: [`Rare`]) lives on the heap, made when first
/// needed. Laid out by hand, one cache line at a time: a busy quantum visits every
/// processor, so a process's block has left the first-level cache by its next turn, and
/// a turn (the scheduler's bookkeeping, the interpreter's entry and exit, a channel
/// instruction) reads and writes only the fields of the first line, the interpreter's
/// variable accesses the display in the second (Cannon's benchmark on 256 processors:
/// about 2 cache misses fewer per turn).
#[repr(C, align(64))]
struct Proc {
    // First line: what every turn touches (64 bytes).
    stack: Vec<Word>,
    clock: Ticks,
    /// Why it waits ([`Reason::None`]: it does not).
    wait: Reason,
    pc: u32,
    pproc: u32,
    ended: bool,
    /// Returned from its bottom frame (or halted): waiting for forked children to end.
    ending: bool,
    time_on: bool,
    kind: Kind,
    /// Busy time its first turns begin with: the evaluation of its arguments, with
    /// `--fork-args child` (0 otherwise, and once paid; beyond a u32, the rest waits in
    /// [`Rare::args_cost`]).
    start_cost: u32,
    // Second line: the display and the frames (variable accesses, calls and returns).
    display: Display,
    /// The frames of its calls, above its bottom frame ([`Proc::bottom_frame`]): none
    /// and no allocation for a process in its own function.
    frames: Vec<Frame>,
    /// The segment holding the top frame.
    cur_seg: u32,
    frame_words: u32,
    pid: u32,
    parent: u32,
    vproc: u32,
    /// The bottom function.
    func: u32,
    // Third line: process creation, joins and the end.
    /// The frame segments, in the order they were taken. A segment emptied by a return
    /// is kept for the next call (a loop of calls would otherwise take and return one
    /// each time) until the process ends.
    segs: Vec<Seg>,
    /// End times of ended, not yet joined forked children: a join takes the earliest.
    ended_children: EndTimes,
    children_end: Ticks,
    forked_live: u32,
    /// What few processes use, made at the first need (and kept).
    rare: Option<Box<Rare>>,
}

/// A process's display: the frame base of each static depth (depth 0: the global area).
/// Its length, the program's deepest function nesting plus one, is fixed when the process
/// is made, and is at least two: a verified module's `main` is at depth 1. The entries
/// of depths 0 and 1 (all of a C program's: the globals and the running function's
/// frame) are kept in the process's block, so that reading them tests nothing but the
/// depth; deeper ones on the heap. A million idle processes hold no allocation for it.
#[derive(Clone)]
struct Display {
    /// The entries of depths 0 and 1.
    near: [u32; 2],
    /// The entries of depths 2 and more, if the length is more than two (a thin
    /// pointer: 8 bytes of the block).
    #[allow(clippy::box_collection)]
    far: Option<Box<Vec<u32>>>,
}

impl Display {
    /// A display of the entries `e` (padded with zeros to two).
    fn new(e: &[u32]) -> Display {
        let near = [e.first().copied().unwrap_or(0), e.get(1).copied().unwrap_or(0)];
        let far = e.get(2..).filter(|r| !r.is_empty()).map(|r| Box::new(r.to_vec()));
        Display { near, far }
    }

    /// A display of `len` entries (at least two), each 0.
    fn zeros(len: usize) -> Display {
        Display { near: [0; 2], far: (len > 2).then(|| Box::new(vec![0; len - 2])) }
    }

    fn len(&self) -> usize {
        2 + self.far.as_ref().map_or(0, |v| v.len())
    }

    /// The entry of depth `d`, if the display has one.
    #[inline(always)]
    fn get(&self, d: usize) -> Option<u32> {
        if d < 2 {
            Some(self.near[d])
        } else {
            self.far.as_ref()?.get(d - 2).copied()
        }
    }

    #[inline(always)]
    fn get_mut(&mut self, d: usize) -> Option<&mut u32> {
        if d < 2 {
            Some(&mut self.near[d])
        } else {
            self.far.as_mut()?.get_mut(d - 2)
        }
    }

    /// The entries of depths 0 and 1 (the globals and a function of depth 1).
    #[inline(always)]
    fn first_two(&self) -> (u32, u32) {
        (self.near[0], self.near[1])
    }

    fn to_vec(&self) -> Vec<u32> {
        let mut v = self.near.to_vec();
        if let Some(far) = &self.far {
            v.extend_from_slice(far);
        }
        v
    }
}

/// End times of a process's ended, not yet joined forked children ([`Proc::ended_children`]),
/// taken earliest first: the two earliest in the block itself, the rest in a heap in its
/// [`Rare`] record, made when a third is pending (a join takes the earliest in
/// logarithmic time; a scan made fork-then-join loops quadratic). A process of a binary
/// tree of forks never makes the heap, so a million of them hold no allocation for it.
/// (Which of two equal times a join takes changes nothing: a time alone.)
struct EndTimes {
    /// The earliest and the next (`NEVER`: none; a child ends at a finite time), each
    /// at most every time in the heap.
    near: [Ticks; 2],
}

impl EndTimes {
    const NONE: EndTimes = EndTimes { near: [NEVER; 2] };

    /// The earliest pending end time.
    #[inline]
    fn peek(&self) -> Option<Ticks> {
        (self.near[0] != NEVER).then_some(self.near[0])
    }

    /// Adds `t`; `rest` gives the heap of the times past the two nearest.
    fn push<'a>(&mut self, t: Ticks, rest: impl FnOnce() -> &'a mut BinaryHeap<Reverse<Ticks>>) {
        let [a, b] = self.near;
        if t >= b {
            // Both near places hold times (`t` is finite, so `b` is not `NEVER`), each
            // at most `t`: it goes behind them.
            rest().push(Reverse(t));
            return;
        }
        if b != NEVER {
            rest().push(Reverse(b));
        }
        self.near = if t < a { [t, a] } else { [a, t] };
    }

    /// Takes the earliest; `rest` is the heap of the times past the two nearest, if
    /// one was made.
    fn pop(&mut self, rest: Option<&mut BinaryHeap<Reverse<Ticks>>>) -> Option<Ticks> {
        let t = self.peek()?;
        let next = rest.and_then(|r| r.pop()).map_or(NEVER, |r| r.0);
        self.near = [self.near[1], next];
        Some(t)
    }
}

/// What few processes use, out of their block ([`Proc::rare`]).
struct Rare {
    /// Its remote writes that have not landed: word index → the value it wrote there
    /// last and how many of its writes to that word are still travelling. Its own
    /// reads of those words see them (a process sees its own writes in program order).
    unlanded: HashMap<u32, (Word, u32), std::hash::BuildHasherDefault<crate::net::TickHash>>,
    /// Its remote writes whose arrival a contention network has not told yet.
    writes_out: u32,
    /// The spinlock word granted to it while it waited, plus one (0: none).
    granted: u32,
    /// The latest known arrival of its remote writes (0: none).
    writes_last: Ticks,
    /// When the notice of its end reached its parent's processor while its remote writes
    /// were still travelling (NEVER: not yet; a parent learns of the end when both are in).
    notice: Ticks,
    /// Children of its `forall` not yet ended, and the latest end among those that did.
    forall_pending: u32,
    forall_end: Ticks,
    /// With `--fork-args child`: how many fork statements' arguments it is evaluating
    /// (ARGS seen, FORK not yet; its time is off meanwhile), and the sequential cost of
    /// that evaluation so far (in a child not started yet: the part of its start cost
    /// beyond [`Proc::start_cost`]).
    args_depth: u32,
    args_cost: Ticks,
    /// Remaining `forall` indices of this child's group: `group_next..=group_hi`.
    group_next: i64,
    group_hi: i64,
    /// The pc of the program's call into the library it is in (see
    /// [`Simulator::lib_pc`]): its time there is charged to that call's line.
    line_site: u32,
    /// Pending child end times past the two nearest ([`EndTimes`]).
    ends: BinaryHeap<Reverse<Ticks>>,
}

impl Default for Rare {
    fn default() -> Rare {
        Rare {
            unlanded: HashMap::default(),
            writes_out: 0,
            granted: 0,
            writes_last: 0,
            notice: NEVER,
            forall_pending: 0,
            forall_end: 0,
            args_depth: 0,
            args_cost: 0,
            group_next: 0,
            group_hi: -1,
            line_site: 0,
            ends: BinaryHeap::new(),
        }
    }
}

impl Proc {
    /// Its bottom frame, its function's, which [`Proc::frames`] does not list: at the start
    /// of its first segment, with the words its frames hold that its calls' do not. It
    /// returns to no call, and restores nothing (no process ends through [`block::ret`]):
    /// the display entry it replaced was 0, as a new process's display is past its
    /// parent's entries, and the working stack held only its arguments, which the frame
    /// took.
    fn bottom_frame(&self) -> Frame {
        let calls: u32 = self.frames.iter().map(|f| f.words).sum();
        Frame {
            func: self.func,
            base: self.segs.first().map_or(0, |s| s.base),
            words: self.frame_words - calls,
            saved: 0,
            ret_pc: NONE,
            stack_base: 0,
        }
    }

    /// Its frames, the bottom one first (for the debugger's views: a list is made).
    fn all_frames(&self) -> Vec<Frame> {
        let mut v = Vec::with_capacity(self.frames.len() + 1);
        v.push(self.bottom_frame());
        v.extend_from_slice(&self.frames);
        v
    }

    /// Its [`Rare`] record, made if it has none.
    fn rare_mut(&mut self) -> &mut Rare {
        self.rare.get_or_insert_with(Default::default)
    }

    /// The latest known arrival of its remote writes (0: none).
    fn writes_last(&self) -> Ticks {
        self.rare.as_ref().map_or(0, |r| r.writes_last)
    }

    /// Its remote writes whose arrival a contention network has not told yet.
    fn writes_out(&self) -> u32 {
        self.rare.as_ref().map_or(0, |r| r.writes_out)
    }

    /// The spinlock word granted to it while it waited, plus one (0: none).
    fn granted(&self) -> u32 {
        self.rare.as_ref().map_or(0, |r| r.granted)
    }

    /// Fork statements whose arguments it is evaluating for the child (0: none).
    fn args_depth(&self) -> u32 {
        self.rare.as_ref().map_or(0, |r| r.args_depth)
    }

    /// Children of its `forall` not yet ended.
    fn forall_pending(&self) -> u32 {
        self.rare.as_ref().map_or(0, |r| r.forall_pending)
    }

    /// The pc of the program's call into the library it is in.
    fn line_site(&self) -> u32 {
        self.rare.as_ref().map_or(0, |r| r.line_site)
    }

    /// A forked child of it ended at `t` (its parent learnt of it then).
    fn child_ended(&mut self, t: Ticks) {
        let Proc { ended_children, rare, .. } = self;
        ended_children.push(t, || &mut rare.get_or_insert_with(Default::default).ends);
    }

    /// Takes the earliest end time of its ended, not yet joined forked children.
    fn take_child_end(&mut self) -> Option<Ticks> {
        self.ended_children.pop(self.rare.as_mut().map(|r| &mut r.ends))
    }

    /// Where a frame of `n` words goes without a new segment: on top of the current
    /// segment when it has room, else at the bottom of the next segment the process kept
    /// (a return that empties a segment keeps it for the next call, and `exec_other`
    /// takes it so): that segment, its top with the frame, and the frame's base. `None`:
    /// neither holds it (a new segment is `exec_other`'s to take).
    fn frame_place(&self, n: u32) -> Option<(usize, u32, u32)> {
        let cur = self.cur_seg as usize;
        let seg = self.segs.get(cur)?;
        match seg.top.checked_add(n).filter(|&t| t <= seg.len) {
            Some(top) => Some((cur, top, seg.base + seg.top)),
            None => self.segs.get(cur + 1).filter(|s| s.len >= n).map(|s| (cur + 1, n, s.base)),
        }
    }

    /// Takes a place [`Proc::frame_place`] gave: the frame's segment becomes the current
    /// one, with the frame on top.
    fn take_place(&mut self, (seg, top, _): (usize, u32, u32)) {
        self.segs[seg].top = top;
        self.cur_seg = seg as u32;
    }
}

#[derive(Clone, Copy)]
struct FnLite {
    /// The function's index in `Module::functions`.
    index: u32,
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
            // (One word, the commonest message, without the copy's library call.)
            1 => Payload::Inline(1, [words[0], Word::Int(0)]),
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

/// A channel element. Its messages are in a [`Traffic`] record of
/// [`Channels::traffic`](channels::Channels) only while it has any: a million elements
/// that each carry one message hold a record each only while their message is queued or
/// on its way ([`Channels::settle`](channels::Channels::settle)).
/// 24 bytes: its declaration and its index in it are found from its number
/// ([`Channels::decl_of`](channels::Channels::decl_of)).
struct Chan {
    owner: u32,
    /// Its record (`NONE`: no message queued or on its way, and at most one sender so far).
    traffic: u32,
    /// Without a record: the one sender it has had (`NONE`: none yet) and the latest
    /// arrival delivered from it, all that the non-overtaking rule needs of the past.
    sender: u32,
    last: Ticks,
}

/// A channel element's messages while it has a record ([`Chan::traffic`]).
#[derive(Default)]
struct Traffic {
    queue: BinaryHeap<Msg>,
    /// Per sender, the latest arrival of its messages and those still in the network:
    /// messages from one sender never overtake each other on one channel element.
    from: Vec<FromSender>,
    /// Its element is on the list of those to give back ([`channels::Channels::settle`]).
    noted: bool,
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
    /// Bytes on the wire (an MPI message's envelope words are not data).
    bytes: u32,
    /// Its arrival time was not known at the send: the observer hears of it.
    deferred: bool,
    /// Where a rendezvous message is in its handshake (`--eager-limit`).
    rdv: Rdv,
}

/// A channel message's delivery (`--eager-limit`, [`Simulator::post_recv`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rdv {
    /// Sent at once (at most the eager limit, or to the sender's own processor).
    Eager,
    /// Its data waits at the sender: its request to send reaches the receiver at `rts`
    /// and a receive waits for it from `posted` (each `NEVER` until known); the clear
    /// to send leaves at the later of the two.
    Parked { rts: Ticks, posted: Ticks },
    /// The clear to send is on its way back, or the data on its way.
    Cleared,
}

/// What a message still in a contention network is for.
enum InFlight {
    /// A channel message: the channel index and the sender (its data waits in
    /// [`FromSender::pending`]).
    Chan { chan: u32, sender: u32 },
    /// A posted remote write by `pid`: its words land in the owner's memory when it
    /// arrives.
    Load { pid: u32, vals: Vec<(u32, Word)> },
    /// The notice of the end of process `pid`, to its parent's processor.
    EndNotice { pid: u32 },
    /// `pid`'s request for the spinlock at word `lock`, to the lock's processor.
    LockRequest { pid: u32, lock: u32 },
    /// `pid`'s release of the spinlock at word `lock`, to the lock's processor.
    LockRelease { pid: u32, lock: u32 },
    /// The request of a remote read by `pid` (on `reader`) of `words` words owned by
    /// `owner`: the reply leaves when it arrives.
    ReadRequest { pid: u32, addr: u32, reader: u32, owner: u32, words: u32 },
    /// The reply of a remote read: `pid` wakes when it arrives.
    ReadReply { pid: u32 },
    /// The first frame of the new process `pid`: it starts when the block arrives.
    Frame { pid: u32 },
    /// The request to send (`rts`) or the clear to send of rendezvous message `msg` on
    /// channel element `chan` from `sender`.
    Handshake { chan: u32, sender: u32, msg: u64, rts: bool },
}

/// The ids of the messages in `in_flight` whose arrival makes a send: remote-read
/// requests, spinlock requests and releases, rendezvous handshakes (`pending` of them: none to look for when 0).
fn read_requests(
    in_flight: &HashMap<u64, InFlight, std::hash::BuildHasherDefault<crate::net::TickHash>>,
    pending: u32,
) -> impl Iterator<Item = u64> + '_ {
    in_flight
        .iter()
        .take(if pending > 0 { usize::MAX } else { 0 })
        .filter(|(_, f)| {
            matches!(
                f,
                InFlight::ReadRequest { .. }
                    | InFlight::LockRequest { .. }
                    | InFlight::LockRelease { .. }
                    | InFlight::Handshake { .. }
            )
        })
        .map(|(&id, _)| id)
}

enum FileSlot {
    /// Opened for reading, with C's indicators and pushed-back character.
    Read(BufReader<std::fs::File>, Indicators),
    Write(BufWriter<std::fs::File>),
}

/// Remote accesses made by one instruction: `(owner pproc, words, address)`.
#[derive(Default)]
struct Acc {
    any: bool,
    read: Option<(u32, u32, u32)>,
    write: Option<(u32, u32, u32)>,
    /// The words the instruction wrote into other processors' memory, `(index, value)`:
    /// they land when their message arrives ([`Simulator::land_writes`]).
    vals: Vec<(u32, Word)>,
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
    /// The flat form of `prog` ([`block::FlatStep`]).
    flat: Vec<block::FlatStep>,
    /// Some step of `flat` starts a stretch run in the flat form.
    flat_any: bool,
    /// The global variables' words `(first, end)`, relative to a process's globals
    /// (`display[0]`), in address order: [`Self::object_end`]'s search.
    global_objects: Vec<(u32, u32)>,
    /// Per function, the indexes in the module's identifiers of the variables and
    /// parameters its frame holds: [`Self::object_end`]'s search in a frame.
    frame_objects: Vec<Vec<u32>>,
    /// Per distinct pair of processor speed and cost table (processor type), the speed
    /// and the tick and sequential-time tables for the interpreter and [`Self::charge`];
    /// `table_of[pp]` is processor `pp`'s entry.
    tables: Vec<(Ticks, Box<Tables>)>,
    table_of: Vec<usize>,
    net: Box<dyn Network>,
    io: Io,
    mem: Memory,
    /// The processes and the processors' run queues ([`process::ProcessTable`]).
    pt: process::ProcessTable,
    busy: Vec<Ticks>,
    /// The busy time summed over processors (work and overhead): it bounds every sum of
    /// busy time (a line's cost over all processes, the analysis's totals), and past
    /// [`crate::time::MAX_TIME`] the run stops with [`Limit::Work`].
    busy_sum: Ticks,
    used: Vec<bool>,
    pclock: Vec<Ticks>,
    /// The channel elements, spinlock queues and messages not yet received
    /// ([`channels::Channels`]).
    ch: channels::Channels,
    /// The MPI ranks (`SimConfig::ranks`) and their mailboxes.
    ranks: mpi::Ranks,
    rng: Rng,
    files: Vec<Option<FileSlot>>,
    /// Bytes the program has written (standard output, standard error and its files),
    /// bounded by [`SimConfig::max_output`].
    output_bytes: u64,
    /// `stdin`'s end-of-file and error indicators and pushed-back character.
    stdin_ind: Indicators,
    /// The address of each environment variable's string `getenv` has returned.
    env_strings: HashMap<String, u32>,
    /// Blocks made by MALLOC/REALLOC and not yet freed: base → words.
    heap: BTreeMap<u32, u32>,
    stats: Stats,
    max_depth: usize,
    program_end: Option<Ticks>,
    steps_left: u64,
    profile: Vec<Vec<Ticks>>,
    profile_prev: Vec<Ticks>,
    observer: Option<Box<dyn Observer>>,
    /// Busy ticks charged to each instruction since the last report to the observer
    /// (empty without an observer: the interpreter then keeps no account).
    pc_ticks: Vec<Ticks>,
    /// With `pc_ticks`: per pc, whether it is in a library function (one with no source
    /// line at all: the C and MPI libraries cpcc links), whose time per line is its
    /// caller's: the line of the program's call into the library.
    lib_pc: Vec<bool>,
    /// Probes run so far (`#N` keys of [`SimConfig::phase_mappings`]).
    probes_run: u64,
    /// The calls and returns list each turn lends to the interpreter ([`interp::Ctr::calls`]).
    call_marks: Vec<(Ticks, u32)>,
    /// The debugger's stop conditions and hook ([`view`]).
    debug: Option<Box<view::DebugCtl>>,
    /// A complex instruction referenced a traced address ([`Self::note_ref`]).
    complex_traced: std::cell::Cell<bool>,
    /// The quantum scheduler's state ([`scheduler::Schedule`]).
    sched: scheduler::Schedule,
    /// The argument words, the format and the text of `printf` and `sprintf`, kept from
    /// one call to the next so that a call allocates nothing once they are long enough.
    text_args: Vec<Word>,
    text_fmt: Vec<u8>,
    text_out: Vec<u8>,
    /// Messages between the processors and the network ([`bridge::Bridge`]).
    bridge: bridge::Bridge,
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

// One table of C's math functions for both widths: f32 and f64 have the same methods,
// each calling the libm routine of its own width (`sinf` for float, as C does).
macro_rules! math_fns {
    ($($name:ident: $t:ident),*) => {$(
        fn $name(f: MathFn, a: $t, b: $t) -> $t {
            type L = libm::Libm<$t>;
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
                MathFn::Atan => a.atan(),
                MathFn::Atan2 => a.atan2(b),
                MathFn::Asin => a.asin(),
                MathFn::Acos => a.acos(),
                MathFn::Sinh => a.sinh(),
                MathFn::Cosh => a.cosh(),
                MathFn::Tanh => a.tanh(),
                MathFn::Fmod => a % b,
                MathFn::Log10 => a.log10(),
                MathFn::Log2 => a.log2(),
                MathFn::Exp2 => a.exp2(),
                MathFn::Round => a.round(),
                MathFn::Trunc => a.trunc(),
                MathFn::Hypot => a.hypot(b),
                MathFn::Fmin => a.min(b),
                MathFn::Fmax => a.max(b),
                MathFn::Cbrt => a.cbrt(),
                MathFn::Expm1 => L::expm1(a),
                MathFn::Log1p => L::log1p(a),
                MathFn::Asinh => L::asinh(a),
                MathFn::Acosh => L::acosh(a),
                MathFn::Atanh => L::atanh(a),
                MathFn::Erf => L::erf(a),
                MathFn::Erfc => L::erfc(a),
                MathFn::Tgamma => L::tgamma(a),
                MathFn::Lgamma => L::lgamma(a),
                MathFn::Rint => a.round_ties_even(),
                // C's logb: the exponent as a float; -inf at 0, inf at ±inf, NaN at NaN.
                MathFn::Logb => match a {
                    _ if a.is_nan() => a,
                    _ if a.is_infinite() => <$t>::INFINITY,
                    _ if a == 0.0 => <$t>::NEG_INFINITY,
                    _ => L::ilogb(a) as $t,
                },
                MathFn::Copysign => a.copysign(b),
                MathFn::Fdim => L::fdim(a, b),
                MathFn::Remainder => L::remainder(a, b),
                MathFn::Nextafter => L::nextafter(a, b),
            }
        }
    )*};
}
math_fns!(math_d: f64, math: f32);

/// Places a new frame of `f` at `base` (already reserved in the top segment), moving the
/// argument words from the process's working stack.
#[inline]
fn push_frame(p: &mut Proc, mem: &mut Memory, f: FnLite, base: u32, ret_pc: u32) -> Result<(), RuntimeError> {
    let mut stack = std::mem::take(&mut p.stack);
    let r = push_frame_on::<false>(p, &mut stack, mem, f, base, ret_pc);
    p.stack = stack;
    r
}

/// Places a new process's bottom frame, of its function `f`, at `base` (the start of its
/// first segment), as [`push_frame`] places a call's, but listing no frame: the process
/// makes it when asked ([`Proc::bottom_frame`]).
fn place_bottom_frame(p: &mut Proc, mem: &mut Memory, f: FnLite, base: u32) -> Result<(), RuntimeError> {
    let mut stack = std::mem::take(&mut p.stack);
    let r = push_frame_on::<true>(p, &mut stack, mem, f, base, NONE);
    p.stack = stack;
    r
}

/// [`push_frame`] with the working stack held apart from the process (the interpreter keeps
/// it in a local while it runs); `BOTTOM`: [`place_bottom_frame`]. Everything is checked
/// before anything changes, so an error leaves the process and the pool as they were.
#[inline(always)]
fn push_frame_on<const BOTTOM: bool>(
    p: &mut Proc,
    stack: &mut Vec<Word>,
    mem: &mut Memory,
    f: FnLite,
    base: u32,
    ret_pc: u32,
) -> Result<(), RuntimeError> {
    let b = base as usize;
    let n = f.frame.max(f.params) as usize;
    // (A `match`, so that no error is made and dropped on the way of every call.)
    let words = match mem.words.get_mut(b..b + n) {
        Some(w) => w,
        None => return Err(RuntimeError::BadAddress { addr: base as i64 }),
    };
    let (np, sl) = (f.params as usize, stack.len());
    if sl < np {
        return Err(RuntimeError::BadCode { message: "call with too few arguments on the stack".into() });
    }
    let slot = p
        .display
        .get_mut(f.depth as usize)
        .ok_or_else(|| RuntimeError::BadCode { message: "function depth".into() })?;
    // The frame zeroed but for the arguments; moved word by word (they are few, and a call
    // through `memcpy` costs more), one argument (the most frequent case after none)
    // without a loop's set-up.
    match np {
        0 => {}
        1 => words[0] = stack[sl - 1],
        _ => {
            for (w, a) in words[..np].iter_mut().zip(&stack[sl - np..]) {
                *w = *a;
            }
        }
    }
    if n > np {
        words[np..].fill(Word::Int(0));
    }
    stack.truncate(sl - np);
    let saved = std::mem::replace(slot, base);
    if !BOTTOM {
        p.frames.push(Frame { func: f.index, base, words: n as u32, saved, ret_pc, stack_base: stack.len() as u32 });
    }
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
    for (slot, w) in (0u8..=255).zip(work.iter_mut()) {
        *w = crate::vcode::cost::slot_op(slot).is_some_and(|op| op.class() == Class::Work);
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
                tables.push((sp, Box::new(tick_tables(&costs.by_slot(), &work, sp))));
                keys.push((sp, costs));
                tables.len() - 1
            }
        };
        table_of.push(k);
    }
    // The stretches' charges take 16 bytes per instruction and table: with a speed per
    // processor (--vary-speed) on a big machine they would outweigh the rest of the run.
    // Without them the interpreter runs every instruction alone, with the same results.
    if tables.len() <= MAX_CHARGED_TABLES {
        for (_, t) in tables.iter_mut() {
            t.charges = block::Charges::new(&t.ticks, &t.seq, prog);
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
            .zip(0u32..)
            .map(|(f, index)| FnLite {
                index,
                entry: f.entry,
                depth: f.depth,
                params: f.param_words,
                frame: f.frame_words,
            })
            .collect();
        let max_depth = module.functions.iter().map(|f| f.depth as usize).max().unwrap_or(1);
        let npp = cfg.pprocs.max(1) as usize;
        let prog = Step::all(&module.code);
        let (tables, table_of) = cost_tables(&cfg, npp, &prog);
        let mut mem = Memory::new(cfg.max_memory);
        mem.null_reserved = module.null_reserved;
        let p0 = cfg.mapping.first().copied().unwrap_or(0).min(npp as u32 - 1);
        let steps_left = cfg.max_steps.unwrap_or(u64::MAX);
        let is_object = |k: crate::vcode::IdentKind| {
            matches!(
                k,
                crate::vcode::IdentKind::Var | crate::vcode::IdentKind::Param | crate::vcode::IdentKind::ForallIndex
            )
        };
        let global_objects = {
            let mut v: Vec<(u32, u32)> = module
                .idents
                .iter()
                .filter(|id| id.depth == 0 && is_object(id.kind))
                .map(|id| (id.off, id.off.saturating_add(module.type_words(id.ty).max(1))))
                .collect();
            v.sort_unstable();
            v
        };
        let mut frame_objects = vec![Vec::new(); module.functions.len()];
        for (k, id) in module.idents.iter().enumerate() {
            let func = module.blocks.get(id.block as usize).and_then(|b| b.func);
            if let (true, Some(v)) =
                (id.depth > 0 && is_object(id.kind), func.and_then(|f| frame_objects.get_mut(f as usize)))
            {
                v.push(k as u32);
            }
        }
        let flat = block::FlatStep::all(&prog);
        let mut sim = Simulator {
            module,
            funcs,
            flat_any: block::FlatStep::worth(&flat),
            flat,
            prog,
            global_objects,
            frame_objects,
            tables,
            table_of,
            net,
            io,
            pt: process::ProcessTable::new(npp),
            busy: vec![0; npp],
            busy_sum: 0,
            used: vec![false; npp],
            pclock: vec![0; npp],
            ch: channels::Channels::new(module, cfg.ranks.max(1)),
            ranks: mpi::Ranks::default(),
            rng: Rng::new(cfg.seed),
            files: Vec::new(),
            output_bytes: 0,
            stdin_ind: Indicators::default(),
            env_strings: HashMap::new(),
            heap: BTreeMap::new(),
            stats: Stats::default(),
            max_depth,
            program_end: None,
            steps_left,
            profile: Vec::new(),
            profile_prev: vec![0; npp],
            observer: None,
            pc_ticks: Vec::new(),
            lib_pc: Vec::new(),
            call_marks: Vec::new(),
            probes_run: 0,
            debug: None,
            complex_traced: std::cell::Cell::new(false),
            sched: scheduler::Schedule::new(npp),
            text_args: Vec::new(),
            text_fmt: Vec::new(),
            text_out: Vec::new(),
            bridge: bridge::Bridge::new(),
            mem: Memory::new(0),
            cfg,
        };
        if module.globals_words > 0 {
            if let Err(e) = mem.alloc(module.globals_words, p0) {
                return Err(sim.alloc_error(e));
            }
        }
        for &(a, w) in &module.global_init {
            if let Some(slot) = mem.words.get_mut(a as usize) {
                *slot = w;
            }
        }
        sim.mem = mem;
        let mut display = vec![0u32; sim.max_depth + 1];
        // Rank r (pid r) runs `main` on virtual processor r mod V, with its own globals
        // (rank 0 the ones loaded above).
        let ranks = sim.cfg.ranks.max(1);
        sim.ranks = mpi::Ranks {
            count: ranks,
            mailbox: sim.ch.chans.len() - ranks as usize,
            matched: vec![None; ranks as usize],
            waiting: vec![Vec::new(); ranks as usize],
            probing: vec![false; ranks as usize],
            next_context: 2,
            live: ranks,
            last_end: 0,
            uses_mpi: module.uses_mpi(),
        };
        for r in 0..ranks {
            let (v, pp) = match sim.cfg.mapping.len() {
                0 => (r % npp as u32, r % npp as u32),
                n => (r % n as u32, sim.cfg.mapping[(r as usize) % n].min(npp as u32 - 1)),
            };
            if r > 0 {
                display[0] = sim.copy_globals(pp)?;
            }
            let args = sim.main_args(pp)?;
            sim.spawn(NONE, Kind::Main, module.main, v, pp, &args, &Display::new(&display), 0, (0, -1))?;
        }
        let d = sim.cfg.start_delay;
        if d > 0 {
            // The topology's creation: main waits for it as for a delay.
            sim.block(0, Reason::Delay { until: d }, d);
        }
        Ok(sim)
    }

    /// `main`'s argument words: none for `main(void)`; for `main(int argc, char **argv)`
    /// the count and the address of `argv`, a null-terminated array of the arguments'
    /// strings, all placed in the memory of `main`'s processor `p0` before the run.
    fn main_args(&mut self, p0: u32) -> Result<Vec<Word>, SimError> {
        let params = self.module.functions.get(self.module.main as usize).map_or(0, |f| f.param_words);
        if params != 2 {
            return Ok(Vec::new());
        }
        let mut args = self.cfg.program_args.clone();
        match args.first_mut() {
            Some(a) if !a.is_empty() => {}
            Some(a) => *a = self.module.source_name.clone(),
            None => args.push(self.module.source_name.clone()),
        }
        let chars: usize = args.iter().map(|a| a.len() + 1).sum();
        let words = u32::try_from(chars + args.len() + 1).map_err(|_| self.limit(Limit::Memory))?;
        let base = self.mem.alloc(words, p0).map_err(|e| self.alloc_error(e))?;
        let (argv, mut at) = (base as usize, base as usize + args.len() + 1);
        for (k, a) in args.iter().enumerate() {
            self.mem.words[argv + k] = Word::Int(at as i32);
            for &b in a.as_bytes() {
                self.mem.words[at] = Word::Char(b);
                at += 1;
            }
            self.mem.words[at] = Word::Char(0);
            at += 1;
        }
        self.mem.words[argv + args.len()] = Word::Int(0);
        Ok(vec![Word::Int(args.len() as i32), Word::Int(argv as i32)])
    }

    /// The quanta in which the network ran ahead on its own thread ([`SimConfig::net_thread`]).
    pub fn quanta_ahead(&self) -> u64 {
        self.bridge.quanta_ahead
    }

    /// Sends every later event to `observer`; the processes that exist already (process
    /// 0) are reported as created first.
    pub fn set_observer(&mut self, mut observer: Box<dyn Observer>) {
        for p in &self.pt.procs {
            let function = self.module.functions.get(p.func as usize).map_or("?", |f| f.name.as_str());
            let parent = if p.parent == NONE { None } else { Some(p.parent) };
            let (pid, vproc, pproc, time) = (p.pid, p.vproc, p.pproc, p.clock);
            observer.event(&SimEvent::ProcessCreate { time, parent, pid, vproc, pproc, function, line: 0 });
            if let Reason::Delay { .. } = p.wait {
                // Main waiting for the topology's creation ([`SimConfig::start_delay`]).
                observer.event(&SimEvent::Block { time, pid, reason: p.wait, line: self.module.line_of(p.pc) });
            }
        }
        self.observer = Some(observer);
        self.pc_ticks = vec![0; self.prog.len()];
        self.lib_pc = vec![false; self.prog.len()];
        for f in &self.module.functions {
            let code = f.entry as usize..(f.end as usize).min(self.prog.len());
            if code.clone().all(|pc| self.module.line_of(pc as u32) == 0) {
                self.lib_pc[code].fill(true);
            }
        }
    }

    /// The pc whose line the time of process `p` at `pc` is charged to: the program's
    /// call into the library for a pc in a library function, else `pc`.
    fn line_pc(lib_pc: &[bool], p: &Proc, pc: u32) -> usize {
        if lib_pc.get(pc as usize) == Some(&true) {
            p.line_site() as usize
        } else {
            pc as usize
        }
    }

    /// The global clock: the start of the next quantum to run.
    pub fn global_clock(&self) -> Ticks {
        self.sched.qstart
    }

    /// Every process created so far, by pid.
    pub fn processes(&self) -> Vec<ProcessStatus> {
        self.pt
            .procs
            .iter()
            .map(|p| {
                let state = if p.ended {
                    ProcState::Ended
                } else {
                    match p.wait {
                        Reason::None | Reason::Quantum => ProcState::Ready,
                        Reason::Delay { .. } => ProcState::Delayed,
                        Reason::Lock { .. } => ProcState::Spinning,
                        r => ProcState::Blocked(r),
                    }
                };
                let (function, line) = self.program_position(p.pid, p.pc);
                ProcessStatus {
                    pid: p.pid,
                    parent: if p.parent == NONE { None } else { Some(p.parent) },
                    vproc: p.vproc,
                    pproc: p.pproc,
                    function,
                    line,
                    clock: p.clock,
                    state,
                }
            })
            .collect()
    }

    /// Where process `pid` at `pc` is in the program's terms: its function and line, or,
    /// inside library code that has no source line (an MPI call's insides, `printf`'s),
    /// the library function the program called and the line of that call.
    fn program_position(&self, pid: u32, pc: u32) -> (String, u32) {
        let line = self.module.line_of(pc);
        if line == 0 {
            if let Some(frames) = self.call_stack(pid) {
                if let Some(k) = frames.iter().position(|f| f.line > 0).filter(|&k| k > 0) {
                    return (frames[k - 1].function.clone(), frames[k].line);
                }
            }
        }
        (self.function_name(pc), line)
    }

    fn limit(&mut self, limit: Limit) -> SimError {
        SimError::LimitExceeded { limit, stats: Box::new(self.snapshot(self.sched.qstart)) }
    }

    /// The limit error of a pool allocation that failed: the pool's size, or the host's.
    fn alloc_error(&mut self, e: AllocError) -> SimError {
        match e {
            AllocError::Pool => self.limit(Limit::Memory),
            AllocError::Host { .. } => self.limit(Limit::HostMemory),
        }
    }

    fn snapshot(&mut self, par: Ticks) -> Stats {
        let mut s = self.stats.clone();
        s.par_ticks = par;
        s.undelivered = self.ch.traffic.iter().map(|t| t.queue.len() as u64).sum();
        if let Some(step) = self.cfg.profile_step {
            s.profile_step = step.max(1);
            s.profile = self.profile.clone();
        }
        s.busy = (0..self.busy.len()).filter(|&i| self.used[i]).map(|i| (i as u32, self.busy[i])).collect();
        s.links = self.net.link_busy();
        s.flit_hops = self.net.flit_hops();
        s
    }

    /// Counts the deadlocks the network resolved and tells the observer of them and of
    /// the link crossings the network recorded.
    fn flush_hops(&mut self) {
        self.net.take_resolutions(&mut self.bridge.resolved);
        self.stats.deadlocks_resolved += self.bridge.resolved.len() as u64;
        if let Some(o) = self.observer.as_mut() {
            for r in &self.bridge.resolved {
                o.event(&SimEvent::Deadlock { time: r.time, msg: r.msg, packet: r.packet, at: r.at });
            }
        }
        self.bridge.resolved.clear();
        let Some(o) = self.observer.as_mut() else { return };
        self.net.take_hops(&mut self.bridge.hop_buf);
        for h in self.bridge.hop_buf.drain(..) {
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
        let pc = self.pt.procs.get(pid as usize).map_or(0, |p| p.pc);
        let (file, line) = self.place(pc);
        // Inside an MPI call: the call, at the program's line that made it.
        if let Some((function, line)) = self.mpi_call(pid) {
            return SimError::Runtime { pid, function, file, line, kind };
        }
        SimError::Runtime { pid, function: self.function_name(pc), file, line, kind }
    }

    /// The source file and line of instruction `pc`: the main file's, or an included
    /// file's ([`crate::vcode::included_line`]).
    fn place(&self, pc: u32) -> (String, u32) {
        let line = self.module.line_of(pc);
        match crate::vcode::included_line(&self.module.source, line) {
            Some((name, l)) => (name.to_string(), l),
            None => (self.module.source_name.clone(), line),
        }
    }

    fn function_name(&self, pc: u32) -> String {
        self.module
            .function_at(pc)
            .and_then(|f| self.module.functions.get(f as usize))
            .map_or_else(|| "?".to_string(), |f| f.name.clone())
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

    /// Charges the current instruction of `pid` and advances its pc.
    fn charge(&mut self, pid: u32, op: Op) -> Result<(), SimError> {
        self.charge_n(pid, op, 1)
    }

    /// Busy time a message costs process `pid`'s processor beyond the instruction just
    /// charged (`--send-overhead`, `--recv-overhead`): its clock and its processor's busy
    /// time advance, and the instruction's line is charged; the sequential time is not
    /// (a sequential program sends no message). Nothing while the process's time is off.
    fn overhead(&mut self, pid: u32, t: Ticks) {
        let p = &mut self.pt.procs[pid as usize];
        if t == 0 || !p.time_on {
            return;
        }
        p.clock += t;
        self.busy[p.pproc as usize] += t;
        self.busy_sum = self.busy_sum.saturating_add(t);
        if let Some(x) = self.pc_ticks.get_mut(Self::line_pc(&self.lib_pc, p, p.pc.wrapping_sub(1))) {
            *x += t;
        }
    }

    /// Charges `op` `n` times over as one step (the library's per-word routines).
    #[inline(always)]
    fn charge_n(&mut self, pid: u32, op: Op, n: u64) -> Result<(), SimError> {
        if self.steps_left == 0 {
            return Err(self.limit(Limit::Steps));
        }
        self.steps_left -= 1;
        let p = &mut self.pt.procs[pid as usize];
        let o = op.opcode() as usize;
        if p.time_on {
            let pp = p.pproc as usize;
            let Tables { ticks, seq, .. } = &*self.tables[self.table_of[pp]].1;
            let (dt, ds) = (ticks[o].saturating_mul(n), seq[o].saturating_mul(n));
            p.clock += dt;
            self.busy[pp] += dt;
            self.busy_sum = self.busy_sum.saturating_add(dt);
            self.stats.seq_ticks = self.stats.seq_ticks.saturating_add(ds);
            if let Some(t) = self.pc_ticks.get_mut(Self::line_pc(&self.lib_pc, p, p.pc)) {
                *t += dt;
            }
        } else if let Some(r) = p.rare.as_deref_mut().filter(|r| r.args_depth > 0) {
            // A fork's arguments for the child (`--fork-args child`): work done, on the
            // child's time.
            let Tables { seq, .. } = &*self.tables[self.table_of[p.pproc as usize]].1;
            let ds = seq[o].saturating_mul(n);
            self.stats.seq_ticks = self.stats.seq_ticks.saturating_add(ds);
            r.args_cost = r.args_cost.saturating_add(ds);
        }
        self.stats.instructions += 1;
        p.pc += 1;
        Ok(())
    }

    fn pop(&mut self, pid: u32) -> Result<Word, SimError> {
        match self.pt.procs[pid as usize].stack.pop() {
            Some(w) => Ok(w),
            None => Err(self.rt(pid, RuntimeError::BadCode { message: "working stack underflow".into() })),
        }
    }

    /// Where the top `n` words of `pid`'s working stack start (a runtime error when it
    /// holds fewer).
    fn stack_top(&self, pid: u32, n: usize) -> Result<usize, SimError> {
        match self.pt.procs[pid as usize].stack.len().checked_sub(n) {
            Some(at) => Ok(at),
            None => Err(self.rt(pid, RuntimeError::BadCode { message: "working stack underflow".into() })),
        }
    }

    fn pop_n(&mut self, pid: u32, n: usize) -> Result<Vec<Word>, SimError> {
        let at = self.stack_top(pid, n)?;
        Ok(self.pt.procs[pid as usize].stack.split_off(at))
    }

    /// [`Self::pop_n`] into `out` (cleared first).
    fn pop_n_into(&mut self, pid: u32, n: usize, out: &mut Vec<Word>) -> Result<(), SimError> {
        let at = self.stack_top(pid, n)?;
        let st = &mut self.pt.procs[pid as usize].stack;
        out.clear();
        out.extend_from_slice(&st[at..]);
        st.truncate(at);
        Ok(())
    }

    /// The top `n` words of `pid`'s working stack, taken off it, as a message's words.
    fn pop_payload(&mut self, pid: u32, n: usize) -> Result<Payload, SimError> {
        let at = self.stack_top(pid, n)?;
        let st = &mut self.pt.procs[pid as usize].stack;
        let data = Payload::new(&st[at..]);
        st.truncate(at);
        Ok(data)
    }

    fn peek(&self, pid: u32) -> Result<Word, SimError> {
        match self.pt.procs[pid as usize].stack.last() {
            Some(&w) => Ok(w),
            None => Err(self.rt(pid, RuntimeError::BadCode { message: "working stack underflow".into() })),
        }
    }
}

#[cfg(test)]
mod tests;
