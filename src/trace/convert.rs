//! The conversion driver shared by the trace writers of `cptrace` (one folder each under
//! [`super::format`]): it streams a run record through
//! a [`Filter`] into one writer, and supplies what the time-sorted formats need to stay
//! sorted without holding the trace in memory.
//!
//! Depends on [`super::record`] (the streaming reader), [`super::filter`] and the writers.
//!
//! # Sorting in bounded memory
//!
//! The run record is ordered by event time, but a busy interval is recorded at its *end*,
//! so a writer that needs a record at its *start* (PICL's idle blocks, Paraver's state
//! records) must place it among events already read. Writers push such records into a
//! [`Reorder`] buffer and release them up to a [`Horizon`]: a time before which no
//! future record can fall. A future busy interval on processor `p` starts no earlier than
//! the last interval that ended on `p`, and no earlier than the moment its process became
//! runnable; a process blocked in a receive or a join cannot run until the event that
//! wakes it (its message's arrival, a child's end) has been read. The horizon is the
//! minimum of those bounds over the live, runnable processes, so the buffer holds only the
//! records of the last few scheduling slices, whatever the length of the trace. If a
//! record ever falls before what was already written (a case the bound does not foresee),
//! it is written at the earliest time still possible and counted in [`Report::late`].
use super::event::{Event, MsgPurpose, ProcState, Reason, RunHeader, RunStats};
use super::filter::{Filter, Selection};
use super::record::{RecordError, RunRecordReader};
use crate::dense::DenseMap;
use crate::time::Ticks;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::io::{self, Read, Write};

/// Why a conversion failed.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    /// The run record is unreadable, truncated or corrupt.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// Writing the output failed.
    #[error("writing the output")]
    Io(#[from] io::Error),
    /// The format writes files of its own, not one stream (`format::Format::writer`).
    #[error("--format {0} writes several files, not one stream")]
    NotAStream(&'static str),
}

/// What a conversion did besides writing its main output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Events read from the run record.
    pub events_read: u64,
    /// Events that passed the filter.
    pub events_kept: u64,
    /// Records written at a later time than their own to keep the output sorted (0 for
    /// records this version writes; see the module documentation).
    pub late: u64,
    /// Companion files as (extension, contents): `pcf` and `row` for Paraver.
    pub extra: Vec<(&'static str, String)>,
    /// The run's final statistics from the record's footer (for `cptrace --stats`).
    pub stats: RunStats,
    /// The record's ticks per time unit.
    pub ticks_per_unit: Ticks,
}

/// What a writer sees besides the event: the header, the probe labels defined so far,
/// the selection and the sorting horizon.
pub struct Context<'a> {
    /// The run record's header.
    pub header: &'a RunHeader,
    /// The probe label table so far.
    pub labels: &'a [String],
    /// The selection applied.
    pub selection: &'a Selection,
    /// No record pushed from now on will have a time below this.
    pub horizon: Ticks,
}

impl Context<'_> {
    /// The selected physical processors, ascending.
    pub fn procs(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.header.pprocs).filter(|&p| self.selection.proc(p))
    }

    /// The flat number of element `index` of channel `channel`: the elements of every
    /// channel numbered in declaration order, each channel row-major. Used as the message
    /// "type" (tag) of the formats that have one.
    pub fn channel_element(&self, channel: u32, index: u32) -> u32 {
        let before: u32 = self
            .header
            .channels
            .iter()
            .take(channel as usize)
            .map(|c| c.dims.iter().product::<u32>().max(1))
            .fold(0u32, |a, n| a.saturating_add(n));
        before.saturating_add(index)
    }
}

/// One output format: called with the header, then with every kept event in order, then
/// with the final time. Writers write as they go.
pub trait TraceWriter {
    /// Writes the preamble.
    fn begin(&mut self, cx: &Context<'_>, out: &mut dyn Write) -> io::Result<()>;
    /// Handles one kept event.
    fn event(&mut self, e: &Event, cx: &Context<'_>, out: &mut dyn Write) -> io::Result<()>;
    /// Writes the rest once the last event is read; `end` is the run's final time
    /// (clipped to `--to`). Returns the companion files, if the format has any.
    fn finish(&mut self, cx: &Context<'_>, end: Ticks, out: &mut dyn Write) -> io::Result<Vec<(&'static str, String)>>;
    /// Records placed later than their time (see [`Reorder::late`]).
    fn late(&self) -> u64 {
        0
    }
    /// Whether the writer takes every event of the record and applies the selection
    /// itself (a writer that must know what happened before the window, such as the
    /// calls open when it begins).
    fn whole_record(&self) -> bool {
        false
    }
}

/// Converts the run record read from `input` with `writer` (a writer whose output is
/// not one stream, such as [`super::format::otf2::Otf2Writer`], writes its own files and
/// ignores `out`).
pub fn convert_with<R: Read>(
    input: R,
    writer: &mut dyn TraceWriter,
    selection: Selection,
    out: &mut dyn Write,
) -> Result<Report, ConvertError> {
    let (mut reader, header) = RunRecordReader::open(input)?;
    let mut filter = Filter::new(selection.clone());
    let mut horizon = Horizon::new(header.pprocs);
    let mut report = Report::default();
    let mut last = 0;
    {
        let cx = Context { header: &header, labels: reader.labels(), selection: &selection, horizon: 0 };
        writer.begin(&cx, out)?;
    }
    // Events come in batches, which the reader decodes and checks faster than one at a
    // time; the labels a batch defines are known for all of it, which changes no label
    // an event names (an event names only labels defined before it).
    let mut batch = Vec::with_capacity(BATCH);
    let whole = writer.whole_record();
    loop {
        batch.clear();
        let done = reader.read_batch(&mut batch, BATCH)?;
        for e in &batch {
            report.events_read += 1;
            last = last.max(e.time());
            horizon.observe(e);
            let kept = filter.apply(e);
            if kept.is_some() {
                report.events_kept += 1;
            }
            let event = if whole { Some(e) } else { kept.as_ref() };
            if let Some(event) = event {
                let cx =
                    Context { header: &header, labels: reader.labels(), selection: &selection, horizon: horizon.get() };
                writer.event(event, &cx, out)?;
            }
        }
        if done {
            break;
        }
    }
    let footer = reader.footer()?;
    let mut end = last.max(footer.stats.par_ticks);
    if let Some(to) = selection.to {
        end = end.min(to);
    }
    if let Some(from) = selection.from {
        end = end.max(from);
    }
    let cx = Context { header: &header, labels: reader.labels(), selection: &selection, horizon: Ticks::MAX };
    report.extra = writer.finish(&cx, end, out)?;
    report.late = writer.late();
    report.stats = footer.stats;
    report.ticks_per_unit = header.ticks_per_unit;
    out.flush()?;
    Ok(report)
}

/// Events read at a time.
const BATCH: usize = 1024;

/// A buffer that releases records in time order (ties in push order). Memory is the
/// records between the horizon and the present.
///
/// The records are kept by their push number (a dense map: records come roughly in time
/// order and leave in it, so the map's window is about the records held) and their keys
/// `(time, push number)` in order: those pushed in time order in a queue, the others in
/// a heap, and released from whichever holds the smaller; a record taken back leaves
/// its key behind, dropped when it comes up.
#[derive(Debug, Clone)]
pub struct Reorder<R> {
    /// Keys in increasing order: each pushed at or after the time of the one before.
    run: VecDeque<(Ticks, u64)>,
    /// The keys of records pushed before the last key of `run`.
    keys: BinaryHeap<Reverse<(Ticks, u64)>>,
    items: DenseMap<R>,
    /// Records held.
    held: usize,
    seq: u64,
    released: Ticks,
    late: u64,
}

impl<R> Default for Reorder<R> {
    fn default() -> Self {
        Reorder {
            run: VecDeque::new(),
            keys: BinaryHeap::new(),
            items: DenseMap::sliding(),
            held: 0,
            seq: 0,
            released: 0,
            late: 0,
        }
    }
}

impl<R> Reorder<R> {
    /// Adds a record at time `t` and returns its key (for [`Reorder::get_mut`] and
    /// [`Reorder::remove`]). A record before the last one released is moved up to it.
    pub fn push(&mut self, t: Ticks, r: R) -> (Ticks, u64) {
        let t = if t < self.released {
            self.late += 1;
            self.released
        } else {
            t
        };
        let key = (t, self.seq);
        self.seq += 1;
        self.items.insert(key.1, r);
        if self.run.back().is_none_or(|&(b, _)| b <= t) {
            self.run.push_back(key);
        } else {
            self.keys.push(Reverse(key));
        }
        self.held += 1;
        key
    }

    /// The record at `key` if it has not been released.
    pub fn get_mut(&mut self, key: (Ticks, u64)) -> Option<&mut R> {
        self.items.get_mut(key.1)
    }

    /// Takes back a record not yet released.
    pub fn remove(&mut self, key: (Ticks, u64)) -> Option<R> {
        let r = self.items.remove(key.1);
        self.held -= usize::from(r.is_some());
        r
    }

    /// Releases, in order, every record with a time below `horizon`.
    pub fn release(&mut self, horizon: Ticks, mut f: impl FnMut(Ticks, R) -> io::Result<()>) -> io::Result<()> {
        loop {
            let (t, seq) = match (self.run.front(), self.keys.peek()) {
                (Some(&a), Some(&Reverse(b))) if b < a => b,
                (Some(&a), _) => a,
                (None, Some(&Reverse(b))) => b,
                (None, None) => break,
            };
            if t >= horizon {
                break;
            }
            if self.run.front() == Some(&(t, seq)) {
                self.run.pop_front();
            } else {
                self.keys.pop();
            }
            // A record taken back left its key.
            let Some(r) = self.items.remove(seq) else { continue };
            self.held -= 1;
            self.released = t;
            f(t, r)?;
        }
        Ok(())
    }

    /// Records that were moved to a later time.
    pub fn late(&self) -> u64 {
        self.late
    }

    /// Records held.
    pub fn len(&self) -> usize {
        self.held
    }

    /// Whether no record is held.
    pub fn is_empty(&self) -> bool {
        self.held == 0
    }
}

#[derive(Debug, Clone)]
struct Proc {
    pproc: u32,
    parent: Option<u32>,
    /// Blocked since this time, waiting for this.
    /// (The reason is one of those that end with an event: a channel, a join, children.)
    blocked: Option<(Ticks, Reason)>,
    /// When it last became runnable.
    wake: Ticks,
    /// Ended at this time.
    ended: Option<Ticks>,
    children: u32,
    /// Which creation of this pid it is (entries of an earlier one are stale).
    gen: u64,
    /// The wake time its live entry in its processor's [`Cpu::wakes`] was pushed with
    /// (None: no entry).
    entry: Option<Ticks>,
}

/// What [`Horizon`] keeps of one processor.
#[derive(Debug, Clone, Default)]
struct Cpu {
    /// `(wake, pid, gen)` of its processes; an entry counts while it is its process's
    /// `entry`.
    wakes: BinaryHeap<Reverse<(Ticks, u32, u64)>>,
    /// Its live processes.
    live: usize,
    /// The bound its live entry in [`Horizon::bounds`] was pushed with (None: no entry).
    key: Option<Ticks>,
}

/// The earliest time a future busy interval can start, from the events read so far (see
/// the module documentation).
///
/// The horizon is `min(now, min over the live processes not blocked before now of
/// max(end of the last interval on its processor, its wake time))`, that is the least over
/// the processors of `max(end of its last interval, least wake time of its processes that
/// count)`. Both terms only grow while the processes run, so each processor keeps its
/// processes' wake times in a heap, and the processors' bounds are kept in a heap, both of
/// entries that may be lower than what they stand for: [`Horizon::get`] raises a stale
/// top entry to the present value and drops the entries of blocked and removed processes
/// (and of processors with none left), and an event that lowers a value or makes a
/// process runnable again pushes a new entry. An interval's end moves only its
/// processor's entry, however many processes share the processor, so each event costs a
/// few heap steps instead of a look at every live process.
#[derive(Debug, Clone)]
pub struct Horizon {
    now: Ticks,
    last_end: Vec<Ticks>,
    procs: DenseMap<Proc>,
    /// The receiver and channel element of each channel message sent and not arrived.
    inflight: DenseMap<(u32, u32, u32)>,
    /// `(end, pid, gen)` of ended processes, removed once `now` has passed their end.
    ends: BinaryHeap<Reverse<(Ticks, u32, u64)>>,
    /// Per processor: its processes' wake times and its bound's entry.
    cpus: DenseMap<Cpu>,
    /// `(bound, pproc)`; an entry counts while it is its processor's `key`.
    bounds: BinaryHeap<Reverse<(Ticks, u32)>>,
    /// The processors with a `key`.
    keyed: usize,
    gens: u64,
}

impl Horizon {
    /// A horizon for `pprocs` processors.
    pub fn new(pprocs: u32) -> Horizon {
        Horizon {
            now: 0,
            last_end: vec![0; pprocs as usize],
            procs: DenseMap::default(),
            // Messages are numbered in sending order and mostly arrive in it.
            inflight: DenseMap::sliding(),
            ends: BinaryHeap::new(),
            cpus: DenseMap::default(),
            bounds: BinaryHeap::new(),
            keyed: 0,
            gens: 0,
        }
    }

    /// Follows one event of the unfiltered stream.
    pub fn observe(&mut self, e: &Event) {
        self.now = self.now.max(e.time());
        let now = self.now;
        // A process that ended or blocked strictly before now has had its last interval
        // read: intervals are recorded at their end, so one ending at that time precedes
        // every event after it.
        while let Some(&Reverse((t, pid, gen))) = self.ends.peek() {
            if t >= now {
                break;
            }
            self.ends.pop();
            if self.procs.get(u64::from(pid)).is_some_and(|p| p.gen == gen && p.ended == Some(t)) {
                self.remove(pid);
            }
        }
        match *e {
            Event::ProcCreate { time, parent, pid, pproc, .. } => {
                if let Some(pp) = parent.and_then(|p| self.procs.get_mut(u64::from(p))) {
                    pp.children += 1;
                }
                self.gens += 1;
                let p = Proc {
                    pproc,
                    parent,
                    blocked: None,
                    wake: time,
                    ended: None,
                    children: 0,
                    gen: self.gens,
                    entry: None,
                };
                self.remove(pid);
                self.procs.insert(u64::from(pid), p);
                self.cpus.get_or_insert_with(u64::from(pproc), Cpu::default).live += 1;
                self.queue(pid);
            }
            Event::ProcEnd { time, pid } => {
                let parent = self.procs.get_mut(u64::from(pid)).and_then(|p| {
                    p.ended = Some(time);
                    self.ends.push(Reverse((time, pid, p.gen)));
                    p.parent
                });
                if let Some(ppid) = parent {
                    if let Some(pp) = self.procs.get_mut(u64::from(ppid)) {
                        pp.children = pp.children.saturating_sub(1);
                        let wakes = match pp.blocked {
                            Some((_, Reason::Join)) => true,
                            Some((_, Reason::Forall | Reason::Children)) => pp.children == 0,
                            _ => false,
                        };
                        if wakes {
                            pp.blocked = None;
                            pp.wake = time;
                        }
                    }
                    self.queue(ppid);
                }
            }
            Event::State { time, pid, state, reason } => {
                if let Some(p) = self.procs.get_mut(u64::from(pid)) {
                    let wait = match (state, reason) {
                        (
                            ProcState::Blocked,
                            r @ (Reason::Channel { .. } | Reason::Join | Reason::Forall | Reason::Children),
                        ) => Some(r),
                        // Delays, remote reads and spinning end without an event of
                        // their own: the process is treated as runnable.
                        _ => None,
                    };
                    // The wake time is left alone: a state change at `time` may end an
                    // interval that is recorded after it.
                    p.blocked = wait.map(|w| (time, w));
                    self.queue(pid);
                }
            }
            Event::MsgSend { msg, dst_pid: Some(dst), purpose: MsgPurpose::Channel { channel, index }, .. } => {
                self.inflight.insert(msg, (dst, channel, index));
            }
            Event::MsgArrive { time, msg, .. } => {
                if let Some((dst, channel, index)) = self.inflight.remove(msg) {
                    if let Some(p) = self.procs.get_mut(u64::from(dst)) {
                        if p.blocked.is_some_and(|(_, w)| w == Reason::Channel { channel, index }) {
                            p.blocked = None;
                            p.wake = time;
                        }
                        self.queue(dst);
                    }
                }
            }
            Event::RecvDone { pid, .. } => {
                // A receive completes once its process runs again, possibly at the end of
                // an interval not yet read: the wake time stays that of the arrival.
                if let Some(p) = self.procs.get_mut(u64::from(pid)) {
                    p.blocked = None;
                    self.queue(pid);
                }
            }
            Event::Busy { pproc, pid, start, end, .. } => {
                if let Some(l) = self.last_end.get_mut(pproc as usize) {
                    *l = (*l).max(end);
                }
                if let Some(p) = self.procs.get_mut(u64::from(pid)) {
                    // It ran after it blocked, so something woke it.
                    if p.blocked.is_some_and(|(b, _)| start >= b && end > b) {
                        p.blocked = None;
                    }
                    self.queue(pid);
                }
            }
            _ => {}
        }
    }

    /// Process `p`'s bound: no interval of it read later starts before this.
    fn bound(last_end: &[Ticks], p: &Proc) -> Ticks {
        Self::end_on(last_end, p.pproc).max(p.wake)
    }

    /// The end of the last interval on processor `pproc` (0 for none).
    fn end_on(last_end: &[Ticks], pproc: u32) -> Ticks {
        last_end.get(pproc as usize).copied().unwrap_or(0)
    }

    /// Forgets process `pid`, if it is live.
    fn remove(&mut self, pid: u32) {
        if let Some(p) = self.procs.remove(u64::from(pid)) {
            if let Some(cpu) = self.cpus.get_mut(u64::from(p.pproc)) {
                cpu.live -= 1;
            }
        }
    }

    /// Gives `pid` an entry at its wake time if it counts for the horizon (not blocked
    /// before now) and has none at or below that time, and its processor an entry at the
    /// process's bound if that is below the processor's entry.
    fn queue(&mut self, pid: u32) {
        let Some(p) = self.procs.get_mut(u64::from(pid)) else { return };
        if p.blocked.is_some_and(|(b, _)| b < self.now) {
            return;
        }
        let (pproc, wake, gen) = (p.pproc, p.wake, p.gen);
        let push = p.entry.is_none_or(|e| wake < e);
        if push {
            p.entry = Some(wake);
        }
        let bound = Self::bound(&self.last_end, p);
        let cpu = self.cpus.get_or_insert_with(u64::from(pproc), Cpu::default);
        if push {
            cpu.wakes.push(Reverse((wake, pid, gen)));
            // Stale entries pile up behind the live ones: drop them now and then.
            if cpu.wakes.len() > 2 * cpu.live + 64 {
                let procs = &self.procs;
                cpu.wakes.retain(|&Reverse((w, pid, gen))| {
                    procs.get(u64::from(pid)).is_some_and(|p| p.gen == gen && p.entry == Some(w))
                });
            }
        }
        if cpu.key.is_none_or(|k| bound < k) {
            self.keyed += usize::from(cpu.key.is_none());
            cpu.key = Some(bound);
            self.bounds.push(Reverse((bound, pproc)));
            if self.bounds.len() > 2 * self.keyed + 64 {
                let cpus = &self.cpus;
                self.bounds.retain(|&Reverse((k, pproc))| cpus.get(u64::from(pproc)).is_some_and(|c| c.key == Some(k)));
            }
        }
    }

    /// The horizon: no busy interval read later starts before it.
    pub fn get(&mut self) -> Ticks {
        let now = self.now;
        while let Some(&Reverse((k, pproc))) = self.bounds.peek() {
            let Some(cpu) = self.cpus.get_mut(u64::from(pproc)).filter(|c| c.key == Some(k)) else {
                self.bounds.pop();
                continue;
            };
            // The least wake time of the processor's processes that count.
            let least = loop {
                let Some(&Reverse((w, pid, gen))) = cpu.wakes.peek() else { break None };
                let Some(p) = self.procs.get_mut(u64::from(pid)).filter(|p| p.gen == gen && p.entry == Some(w)) else {
                    cpu.wakes.pop();
                    continue;
                };
                // Blocked strictly before now: its interval up to the block has been read.
                if p.blocked.is_some_and(|(t, _)| t < now) {
                    p.entry = None;
                    cpu.wakes.pop();
                    continue;
                }
                if p.wake != w {
                    p.entry = Some(p.wake);
                    cpu.wakes.pop();
                    cpu.wakes.push(Reverse((p.wake, pid, gen)));
                    continue;
                }
                break Some(w);
            };
            let Some(w) = least else {
                cpu.key = None;
                self.keyed -= 1;
                self.bounds.pop();
                continue;
            };
            let cur = Self::end_on(&self.last_end, pproc).max(w);
            if cur != k {
                cpu.key = Some(cur);
                self.bounds.pop();
                self.bounds.push(Reverse((cur, pproc)));
                continue;
            }
            return now.min(k);
        }
        now
    }

    /// The horizon by its definition, a look at every live process (for tests).
    #[cfg(test)]
    fn get_by_scan(&self) -> Ticks {
        let mut h = self.now;
        for (_, p) in self.procs.iter() {
            if p.blocked.is_some_and(|(b, _)| b < self.now) {
                continue;
            }
            h = h.min(Self::bound(&self.last_end, p));
        }
        h
    }
}

/// A time as a decimal number with a fixed number of decimals, written by its `Display`
/// straight into the output (no string is built): [`seconds`], [`units`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decimal {
    /// The value in units of the last decimal.
    scaled: u128,
    /// Decimals: 3 or 9.
    decimals: u32,
}

impl std::fmt::Display for Decimal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let one = 10u128.pow(self.decimals);
        write!(f, "{}.{:0w$}", self.scaled / one, self.scaled % one, w = self.decimals as usize)
    }
}

/// `ticks` as seconds with nine decimals, one time unit being one microsecond.
pub fn seconds(ticks: Ticks, ticks_per_unit: Ticks) -> Decimal {
    let ns = u128::from(ticks) * 1000 / u128::from(ticks_per_unit.max(1));
    Decimal { scaled: ns, decimals: 9 }
}

/// `ticks` as time units (microseconds) with three decimals.
pub fn units(ticks: Ticks, ticks_per_unit: Ticks) -> Decimal {
    let milli = u128::from(ticks) * 1000 / u128::from(ticks_per_unit.max(1));
    Decimal { scaled: milli, decimals: 3 }
}

/// `ticks` as whole nanoseconds (one time unit = 1 µs).
pub fn nanos(ticks: Ticks, ticks_per_unit: Ticks) -> u64 {
    let ns = u128::from(ticks) * 1000 / u128::from(ticks_per_unit.max(1));
    u64::try_from(ns).unwrap_or(u64::MAX)
}

/// Per-processor busy/idle transitions derived from busy intervals, pushed into a
/// [`Reorder`] buffer: `Idle(p, true)` where processor `p` falls idle, `Idle(p, false)`
/// where it resumes. An idle start is pushed tentatively at each interval's end and taken
/// back when the next interval on the processor starts at that same time.
#[derive(Debug, Clone, Default)]
pub struct Activity {
    /// Per processor: the end of its last interval and the idle start pushed there.
    last_end: DenseMap<(Ticks, Option<(Ticks, u64)>)>,
}

impl Activity {
    /// Every selected processor starts idle at `start`.
    pub fn begin<R>(
        &mut self,
        procs: impl Iterator<Item = u32>,
        start: Ticks,
        buf: &mut Reorder<R>,
        idle: impl Fn(u32, bool) -> R,
    ) {
        for p in procs {
            let key = buf.push(start, idle(p, true));
            self.last_end.insert(u64::from(p), (start, Some(key)));
        }
    }

    /// Follows a busy interval of processor `p`.
    pub fn busy<R>(&mut self, p: u32, start: Ticks, end: Ticks, buf: &mut Reorder<R>, idle: impl Fn(u32, bool) -> R) {
        let (last, pending) = self.last_end.get(u64::from(p)).copied().unwrap_or((start, None));
        let cancelled = start == last && pending.is_some_and(|k| buf.remove(k).is_some());
        if !cancelled && (pending.is_some() || start != last) {
            buf.push(start, idle(p, false));
        }
        let key = buf.push(end, idle(p, true));
        self.last_end.insert(u64::from(p), (end, Some(key)));
    }

    /// Ends every open idle period at `end` (the trace's end).
    pub fn close<R>(&mut self, end: Ticks, buf: &mut Reorder<R>, idle: impl Fn(u32, bool) -> R) {
        for (p, &(last, pending)) in self.last_end.iter() {
            let p = p as u32;
            if let Some(k) = pending {
                // An idle start at the very end is no idle period at all.
                if !(last >= end && buf.remove(k).is_some()) {
                    buf.push(end.max(last), idle(p, false));
                }
            }
        }
        self.last_end.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::BusyClass;
    use std::collections::BTreeMap;

    #[test]
    fn reorder_releases_in_time_order_and_moves_late_records_up() {
        let mut r = Reorder::default();
        r.push(30, "c");
        r.push(10, "a");
        let k = r.push(20, "b");
        r.push(20, "b2");
        assert_eq!(r.remove(k), Some("b"));
        let mut got = Vec::new();
        r.release(25, |t, x| {
            got.push((t, x));
            Ok(())
        })
        .unwrap();
        // Below 25: a at 10, then b2 at 20 (b was taken back); c stays.
        assert_eq!(got, vec![(10, "a"), (20, "b2")]);
        assert_eq!(r.len(), 1);
        // 15 is before the 20 already released: it is written at 20 and counted.
        r.push(15, "late");
        assert_eq!(r.late(), 1);
        got.clear();
        r.release(Ticks::MAX, |t, x| {
            got.push((t, x));
            Ok(())
        })
        .unwrap();
        assert_eq!(got, vec![(20, "late"), (30, "c")]);
    }

    /// The buffer releases what an ordered map of `(time, push number)` releases, under
    /// random pushes (mostly in time order, some behind, some before what was released),
    /// take-backs (of held and of released records) and releases: the same records at the
    /// same times in the same order, the same count held and late.
    #[test]
    fn reorder_releases_as_an_ordered_map() {
        let mut rng = crate::rng::Rng::new(21);
        for round in 0..50 {
            let mut r = Reorder::default();
            let mut model: BTreeMap<(Ticks, u64), u32> = BTreeMap::new();
            let (mut released, mut late, mut now) = (0 as Ticks, 0u64, 0 as Ticks);
            let mut keys = Vec::new();
            let (mut got, mut want) = (Vec::new(), Vec::new());
            for i in 0..2000u32 {
                match rng.below(10) {
                    0..=5 => {
                        now += rng.below(5);
                        let t = if rng.below(4) == 0 { now.saturating_sub(rng.below(40)) } else { now };
                        let key = r.push(t, i);
                        let t = if t < released {
                            late += 1;
                            released
                        } else {
                            t
                        };
                        assert_eq!(key, (t, keys.len() as u64), "round {round}: the key of push {i}");
                        model.insert(key, i);
                        keys.push(key);
                    }
                    6 => {
                        if !keys.is_empty() {
                            let key = keys[rng.below(keys.len() as u64) as usize];
                            assert_eq!(r.remove(key), model.remove(&key), "round {round}: take back {key:?}");
                        }
                    }
                    _ => {
                        let horizon = now.saturating_sub(rng.below(20));
                        r.release(horizon, |t, x| {
                            got.push((t, x));
                            Ok(())
                        })
                        .unwrap();
                        while let Some(e) = model.first_entry() {
                            if e.key().0 >= horizon {
                                break;
                            }
                            let ((t, _), x) = e.remove_entry();
                            released = t;
                            want.push((t, x));
                        }
                    }
                }
                assert_eq!(r.len(), model.len(), "round {round}: held");
            }
            r.release(Ticks::MAX, |t, x| {
                got.push((t, x));
                Ok(())
            })
            .unwrap();
            want.extend(model.into_iter().map(|((t, _), x)| (t, x)));
            assert_eq!(got, want, "round {round}");
            assert_eq!(r.late(), late, "round {round}");
            assert!(r.is_empty());
        }
    }

    /// The incremental horizon equals the definition (the minimum over a look at every
    /// live process, [`Horizon::get_by_scan`]) after every event of random streams, and
    /// the live processes are exactly those created and not ended before now (kept
    /// here beside it): processes created under parents, blocking on channels, joins and
    /// children, woken by arrivals, ends and runs, on few processors (so that many
    /// processes share one), with times that mostly grow and sometimes step back.
    #[test]
    fn incremental_horizon_equals_the_definition() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m.max(1)
        };
        for round in 0..40u64 {
            let pprocs = 1 + (round % 4) as u32;
            let mut h = Horizon::new(pprocs);
            let mut live: BTreeMap<u32, Option<Ticks>> = BTreeMap::new();
            let (mut now, mut pids, mut msg) = (0 as Ticks, 0u32, 0u64);
            for step in 0..3000 {
                if next(10) < 7 {
                    now += next(30);
                }
                let time = now.saturating_sub(if next(5) == 0 { next(50) } else { 0 });
                let pid = next(u64::from(pids.max(1))) as u32;
                let pproc = next(u64::from(pprocs) + 1) as u32;
                let e = match next(9) {
                    0 => {
                        pids += 1;
                        let parent = (pids > 1).then(|| next(u64::from(pids - 1)) as u32);
                        Event::ProcCreate { time, parent, pid: pids - 1, vproc: None, pproc, function: 0, line: 0 }
                    }
                    1 => Event::ProcEnd { time, pid },
                    2 | 3 => {
                        let reason = match next(6) {
                            0 => Reason::Channel { channel: next(2) as u32, index: 0 },
                            1 => Reason::Join,
                            2 => Reason::Forall,
                            3 => Reason::Children,
                            4 => Reason::Delay { until: time + 5 },
                            _ => Reason::None,
                        };
                        let state = if next(3) == 0 { ProcState::Running } else { ProcState::Blocked };
                        Event::State { time, pid, state, reason }
                    }
                    4 => {
                        msg += 1;
                        Event::MsgSend {
                            time,
                            msg,
                            src_pid: 0,
                            src_pproc: 0,
                            dst_pid: Some(pid),
                            dst_pproc: pproc,
                            purpose: MsgPurpose::Channel { channel: next(2) as u32, index: 0 },
                            bytes: 4,
                            line: 0,
                        }
                    }
                    5 => Event::MsgArrive { time, msg: next(msg + 1), dst_pproc: pproc },
                    6 => Event::RecvDone { time, pid, pproc, msg: next(msg + 1), src_pid: 0, bytes: 4 },
                    _ => {
                        let start = time.saturating_sub(next(40));
                        Event::Busy { pproc, pid, start, end: time, line: 0, class: BusyClass::Work }
                    }
                };
                h.observe(&e);
                let now = h.now;
                live.retain(|_, end| end.is_none_or(|t| t >= now));
                match e {
                    Event::ProcCreate { pid, .. } => {
                        live.insert(pid, None);
                    }
                    Event::ProcEnd { time, pid } => {
                        if let Some(end) = live.get_mut(&pid) {
                            *end = Some(time);
                        }
                    }
                    _ => {}
                }
                assert!(
                    h.procs.iter().map(|(pid, _)| pid as u32).eq(live.keys().copied()),
                    "round {round} step {step}: live processes"
                );
                // Each processor counts its live processes (they bound its heap's stale entries).
                let counted: usize = h.cpus.iter().map(|(_, c)| c.live).sum();
                assert_eq!(counted, live.len(), "round {round} step {step}: the count of live processes");
                let want = h.get_by_scan();
                assert_eq!(h.get(), want, "round {round} step {step}: {e:?}");
            }
        }
    }

    #[test]
    fn horizon_waits_for_a_running_process_but_not_for_a_blocked_one() {
        let mut h = Horizon::new(2);
        let create =
            |pid, pproc, time| Event::ProcCreate { time, parent: None, pid, vproc: None, pproc, function: 0, line: 0 };
        h.observe(&create(0, 0, 0));
        h.observe(&create(1, 1, 0));
        h.observe(&Event::Busy { pproc: 0, pid: 0, start: 0, end: 50, line: 0, class: BusyClass::Work });
        // pid 1 on processor 1 may be running since 0: nothing from 0 on is safe.
        assert_eq!(h.get(), 0);
        h.observe(&Event::State {
            time: 60,
            pid: 1,
            state: ProcState::Blocked,
            reason: Reason::Channel { channel: 0, index: 0 },
        });
        // The block at 60 is not yet final (its interval ending at 60 may follow).
        assert_eq!(h.get(), 0);
        h.observe(&Event::Busy { pproc: 0, pid: 0, start: 50, end: 70, line: 0, class: BusyClass::Work });
        // Now at 70: pid 1 blocked since 60, pid 0's next interval starts at 70 or later.
        assert_eq!(h.get(), 70);
    }

    #[test]
    fn activity_cancels_idle_between_adjacent_intervals() {
        let mut buf = Reorder::default();
        let mut a = Activity::default();
        a.begin([0u32].into_iter(), 0, &mut buf, |p, i| (p, i));
        a.busy(0, 0, 10, &mut buf, |p, i| (p, i));
        a.busy(0, 10, 20, &mut buf, |p, i| (p, i));
        a.busy(0, 25, 30, &mut buf, |p, i| (p, i));
        let mut got = Vec::new();
        buf.release(Ticks::MAX, |t, x| {
            got.push((t, x.1));
            Ok(())
        })
        .unwrap();
        // Idle only from 20 to 25 and after 30: the idle starts at 0 and 10 were taken back.
        assert_eq!(got, vec![(20, true), (25, false), (30, true)]);
    }

    #[test]
    fn time_formats() {
        assert_eq!(seconds(413_000, 1000).to_string(), "0.000413000");
        assert_eq!(seconds(2_500_000_001, 1000).to_string(), "2.500000001");
        assert_eq!(units(2_500, 1000).to_string(), "2.500");
        // The largest time, 2^64 - 1 ticks of a microsecond each, is (2^64 - 1) * 1000 ns:
        // beyond u64, every digit kept.
        assert_eq!(seconds(u64::MAX, 1).to_string(), "18446744073709.551615000");
        assert_eq!(units(0, 1000).to_string(), "0.000");
        assert_eq!(nanos(2_720_000, 1000), 2_720_000);
    }
}
