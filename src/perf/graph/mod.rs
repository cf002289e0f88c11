//! The execution graph of seed 003 §3.2, its critical path and the weighted critical
//! path analysis (WCPA, seed 003 §3.4).
//!
//! Nodes are the events of each process in time order: `proc_init` (where the process
//! began running, when the record says so), a fork in the parent, `msg_send`,
//! `recv_call`, the completion of a receive, a suspension's beginning and end (a remote
//! read, a lock, `delay`), the resumption after waiting for children, `proc_exit`.
//! Vertical edges join consecutive events of one process and carry its computation;
//! a suspension is no computation: the process's vertical edge stops where it was
//! suspended ("no edge exists between a recv_call event and the following msg_arr event
//! because the process is suspended") and the event that released it is reached by its
//! own edge — the message (diagonal, from its send), the child's end (join), or the
//! suspension's own edge for a remote read's round trip, a lock or a delay (the record
//! names no releasing event for those). Spawn edges join a fork to the child's
//! `proc_init` and carry the creation's cost.
//!
//! Two paths are found. The **critical path** is the longest by elapsed time: the path
//! ending at the program's last event, choosing at each receive (and resumption) the
//! message (the child's end) when the receiver waited for it, its own previous event
//! otherwise; its length is the run's. The **weighted critical path** is the longest
//! path by WCPA weight (seed 003 §3.4: "the longest weighted path in the execution
//! graph"), over every edge of the graph: an edge of Δt weighs
//! w = Δt + (1 − P)(n − 1)Δt, P the average fraction of the n processors busy during it,
//! n the machine's processors; Δt of a vertical edge is the process's CPU time (the
//! seed's relabelling when processes share a processor, Fig. 3.2 B). Time spent while
//! most processors idle is what parallelism lost, so the weighted path can be a short
//! sequential stretch rather than the long, well-parallelised one.
//!
//! This module builds the graph one event at a time ([`GraphBuilder`]) and resolves its
//! message edges as their receives complete (a record lists a message's send and
//! arrival before; the messages of a foreign trace that does not are resolved at the
//! end, as are the join edges); its submodule `paths` finds the two paths in it and
//! weighs them.
//!
//! Depends only on [`crate::trace`]. Linear in the events apart from sorting.
mod paths;

pub use super::busy::{sort_ticks, BusyProfile, CpuTime};
use crate::dense::DenseMap;
use crate::trace::{Event, ProcState, Reason, Ticks};
pub use paths::{group_weights, PathEdges, WeakOrder};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// What kind of event a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// The process was created.
    Init,
    /// The process created a child.
    Fork,
    /// The process sent a message.
    Send,
    /// The process called a channel read.
    RecvCall,
    /// A channel read completed.
    RecvDone,
    /// The process ended.
    Exit,
    /// The process resumed after waiting for its children (`join`, `forall`, the end).
    Wake,
    /// The process suspended itself: a remote read, a lock, a `delay`.
    Block,
    /// The process resumed after the suspension its vertical edge names.
    Resume(EdgeKind),
}

impl NodeKind {
    /// The kind of the edge from a node's other predecessor, for the kinds that have
    /// one: a process's creation is reached from its fork, a receive's completion from
    /// the message's send, a resumption after waiting for children from a child's end.
    pub fn other_edge(self) -> Option<EdgeKind> {
        match self {
            NodeKind::Init => Some(EdgeKind::Spawn),
            NodeKind::RecvDone => Some(EdgeKind::Message),
            NodeKind::Wake => Some(EdgeKind::Join),
            _ => None,
        }
    }
}

/// One node of the execution graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    /// The process the event belongs to.
    pub pid: u32,
    /// When it happened.
    pub time: Ticks,
    /// What it was.
    pub kind: NodeKind,
}

/// The kind of an edge on the critical path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum EdgeKind {
    /// Vertical: time within one process.
    Compute,
    /// Diagonal: a message from send to receive completion.
    Message,
    /// A fork to the child's creation.
    Spawn,
    /// A child's end to its parent's resumption from a wait for children.
    Join,
    /// A suspension for a remote read's round trip (request and reply).
    RemoteRead,
    /// A suspension for a spinlock held by another process.
    Lock,
    /// A suspension in `delay`.
    Delay,
}

impl EdgeKind {
    /// The name the reports use.
    pub fn name(self) -> &'static str {
        match self {
            EdgeKind::Compute => "compute",
            EdgeKind::Message => "message",
            EdgeKind::Spawn => "spawn",
            EdgeKind::Join => "join",
            EdgeKind::RemoteRead => "remote read",
            EdgeKind::Lock => "lock",
            EdgeKind::Delay => "delay",
        }
    }

    /// Whether the edge is a suspension of one process (no computation along it).
    pub fn is_wait(self) -> bool {
        matches!(self, EdgeKind::RemoteRead | EdgeKind::Lock | EdgeKind::Delay)
    }
}

/// A stretch of the critical path: consecutive compute edges of one process merged,
/// or one message or spawn edge.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// Compute, message or spawn.
    pub kind: EdgeKind,
    /// The process: the computing one, a message's sender, the forking parent or the
    /// ending child.
    pub pid: u32,
    /// For messages, spawns and joins, the receiving, created or resumed process.
    pub to_pid: Option<u32>,
    /// Start time.
    pub from: Ticks,
    /// End time.
    pub to: Ticks,
    /// Average fraction of processors busy during the segment, P ∈ [0, 1].
    pub parallelism: f64,
    /// WCPA weight, the sum of its edges' weights.
    pub weight: f64,
    /// For a compute segment, the process's own busy time inside it; the rest of its
    /// length the process waited (for a remote read, a lock, `delay`, its processor).
    /// 0 for the other kinds. Filled by [`PathEdges::weigh`] from the graph's CPU times.
    pub busy: Ticks,
}

/// The critical path and its WCPA weights.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CriticalPath {
    /// Length in ticks: end time of the last event minus the start of the path.
    pub length: Ticks,
    /// Number of edges on the path.
    pub edges: usize,
    /// The path's segments in time order (zero-length edges left out).
    pub segments: Vec<Segment>,
    /// Sum of the segments' WCPA weights.
    pub total_weight: f64,
    /// Processors n of the weight formula.
    pub processors: u32,
}

/// The WCPA weight w = Δt + (1 − P)(n − 1)Δt of an edge of `dt` ticks during which an
/// average fraction `p` of `n` processors was busy (seed 003 §3.4).
pub fn wcpa_weight(dt: f64, p: f64, n: u32) -> f64 {
    dt + (1.0 - p) * f64::from(n.saturating_sub(1)) * dt
}

/// The execution graph, built one event at a time.
#[derive(Debug)]
pub struct GraphBuilder {
    nodes: Vec<Node>,
    /// Previous node of the same process.
    vertical: Vec<Link>,
    /// Other predecessor, of the edge kind the node's kind implies
    /// ([`NodeKind::other_edge`]): 4 bytes a node where the kind beside it would take 8.
    other: Vec<Link>,
    /// Receive completions whose send was not seen before them (never in a record cpss
    /// writes), resolved at the end: (node, message id).
    pending: Vec<(u32, u64)>,
    /// Receive completions that waited for their message right after their receive call:
    /// that vertical edge is cut by [`Self::resolve`] (not at once, as the CPU times
    /// still follow it back).
    cuts: Vec<u32>,
    /// Resumptions after a wait for children: (node, the waiting parent).
    joins: Vec<(u32, u32)>,
    parent_of: BTreeMap<u32, u32>,
    /// The end nodes of each parent's children.
    child_ends: BTreeMap<u32, Vec<u32>>,
    /// Whether the record says when processes start running (a `Running` state change,
    /// which cpss records at every start and resumption). Without them (older records,
    /// PICL and SDDF traces) a process begins where it was created.
    running_states: bool,
    /// Message edges the receiver did not wait for, `(receive completion, send, arrival)`, in
    /// the order of their completions; filled by [`GraphBuilder::path`].
    weak: Vec<(u32, u32, Ticks)>,
    /// Per process: its latest node, its busy time so far and what it waits for (one
    /// look-up per node and per busy interval finds all of it).
    tail: DenseMap<Tail>,
    /// Each node's process's CPU time before it: the busy intervals of the process
    /// before the node's time ([`CpuTime`]'s answer, followed one event at a time).
    cpu: Vec<Ticks>,
    /// Whether the record's busy intervals or nodes came in an order the one-event-at-a-
    /// time CPU times cannot follow (never in a record cpss writes): then [`Self::cpu`] is
    /// computed again from all the intervals ([`Self::rebuild_cpu`]).
    cpu_disorder: bool,
    /// Whether a node came after a later one of its process (a malformed record): its
    /// vertical edge would run backwards ([`Self::resolve`] drops such edges).
    backward: bool,
    /// Whether any busy interval was seen: without one (a trace that records no busy
    /// time), a compute edge weighs its elapsed time.
    any_busy: bool,
    /// Compute edges weigh their elapsed time even when busy intervals were seen (the
    /// tests' shortcut).
    #[cfg(test)]
    elapsed_only: bool,
    /// The send node of each message sent and not yet received, and its arrival once
    /// recorded: a message leaves both when its receive completes, so they hold the
    /// messages in flight.
    send_of: DenseMap<u32>,
    arrival: DenseMap<Ticks>,
    /// The most nodes the graph takes ([`MAX_NODES`]; smaller in tests).
    limit: usize,
    /// Whether an event was left out because the graph was full.
    full: bool,
}

/// The most nodes an execution graph holds: node indices are stored in 32 bits (4 bytes
/// instead of 8 for each of a node's links, a third of the graph's memory), `u32::MAX`
/// meaning none. An event adds at most 6 nodes, so hundreds of millions of events fit; a
/// larger record is refused ([`GraphBuilder::is_full`]).
pub const MAX_NODES: usize = u32::MAX as usize;

/// What the graph keeps of each process while it is built.
#[derive(Debug, Clone, Copy)]
struct Tail {
    /// Its latest node.
    last: Link,
    /// The lengths of its busy intervals seen so far.
    busy: Ticks,
    /// The end of the latest of them.
    end: Ticks,
    /// Created and not run yet: the fork node that created it. Its `Init` node is where
    /// it began (seed 003's `proc_init`, which the process itself records): the spawn
    /// edge spans the creation's cost (the frame's transfer).
    unstarted: Link,
    /// Waiting for its children: since when.
    waiting: Option<Ticks>,
    /// Suspended in a remote read, a lock or `delay`: since when, and which.
    suspended: Option<(Ticks, EdgeKind)>,
}

impl Tail {
    /// Whether the process waits for anything its next event ends.
    #[inline]
    fn waits(&self) -> bool {
        self.unstarted != Link::NONE || self.waiting.is_some() || self.suspended.is_some()
    }
}

impl Default for Tail {
    fn default() -> Self {
        Tail { last: Link::NONE, busy: 0, end: 0, unstarted: Link::NONE, waiting: None, suspended: None }
    }
}

/// The most nodes of one process a busy interval may reach back over (nodes inside
/// it, recorded before it) before the CPU times are left to
/// [`GraphBuilder::rebuild_cpu`]. A run record lists events in time order and an
/// interval at its end, so an interval reaches back only over the nodes of its
/// process inside it, each node once (the intervals of a process do not overlap): the
/// walk is linear in the nodes. The bound keeps a trace in another order linear too.
const MAX_REACH: usize = 4096;

/// A node's vertical predecessor in 4 bytes: its index, or `u32::MAX` for none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Link(u32);

impl Link {
    const NONE: Link = Link(u32::MAX);

    fn get(self) -> Option<usize> {
        (self != Link::NONE).then_some(self.0 as usize)
    }
}

impl Default for GraphBuilder {
    fn default() -> Self {
        GraphBuilder {
            nodes: Vec::new(),
            vertical: Vec::new(),
            other: Vec::new(),
            pending: Vec::new(),
            cuts: Vec::new(),
            joins: Vec::new(),
            parent_of: BTreeMap::new(),
            child_ends: BTreeMap::new(),
            running_states: false,
            weak: Vec::new(),
            tail: DenseMap::default(),
            cpu: Vec::new(),
            cpu_disorder: false,
            backward: false,
            any_busy: false,
            #[cfg(test)]
            elapsed_only: false,
            send_of: DenseMap::sliding(),
            arrival: DenseMap::sliding(),
            limit: MAX_NODES,
            full: false,
        }
    }
}

impl GraphBuilder {
    fn push(&mut self, pid: u32, time: Ticks, kind: NodeKind) -> usize {
        // The record has no wake-up event: a process waiting for its children resumed by
        // its next event at the latest.
        if !matches!(kind, NodeKind::Init | NodeKind::Wake | NodeKind::Block | NodeKind::Resume(_))
            && self.tail.get(u64::from(pid)).is_some_and(Tail::waits)
        {
            self.start(pid, time);
            self.wake(pid, time);
            self.resume(pid, time);
        }
        let i = self.nodes.len();
        self.nodes.push(Node { pid, time, kind });
        let tail = self.tail.get_or_insert_with(u64::from(pid), Tail::default);
        let before = std::mem::replace(&mut tail.last, Link(i as u32));
        let backward = before.get().is_some_and(|b| self.nodes[b].time > time);
        self.backward |= backward;
        // Every interval of the process seen so far ended by now, when the record is in
        // order: the process's CPU time before the node is their lengths, and later
        // intervals that started before the node add to it (see `busy`).
        self.cpu_disorder |= tail.end > time || backward;
        self.cpu.push(tail.busy);
        self.vertical.push(before);
        self.other.push(Link::NONE);
        i
    }

    /// The time of `pid`'s latest node (0 for none).
    fn last_time(&self, pid: u32) -> Ticks {
        self.tail.get(u64::from(pid)).and_then(|t| t.last.get()).map_or(0, |l| self.nodes[l].time)
    }

    /// Takes `pid`'s busy interval `[start, end)` into its nodes' CPU times: it adds to
    /// every node after its start, the nodes inside it (recorded before it) the part
    /// before them. Sets `cpu_disorder` when the interval overlaps or precedes the
    /// process's previous one, or reaches back over more than [`MAX_REACH`] nodes.
    fn busy(&mut self, pid: u32, start: Ticks, end: Ticks) {
        self.any_busy = true;
        let tail = self.tail.get_or_insert_with(u64::from(pid), Tail::default);
        let overlaps = start < tail.end;
        tail.busy += end - start;
        tail.end = end;
        let mut at = tail.last;
        if overlaps {
            // Computed again from all the intervals.
            self.cpu_disorder = true;
            return;
        }
        for _ in 0..MAX_REACH {
            let Some(k) = at.get() else { return };
            let t = self.nodes[k].time;
            if t <= start {
                return;
            }
            self.cpu[k] += t.min(end) - start;
            at = self.vertical[k];
        }
        self.cpu_disorder |= at.get().is_some_and(|k| self.nodes[k].time > start);
    }

    /// Whether the CPU times must be computed from all the busy intervals
    /// ([`Self::rebuild_cpu`]) before the paths are weighed.
    pub fn needs_cpu_rebuild(&self) -> bool {
        self.cpu_disorder && !self.full
    }

    /// Computes every node's CPU time from the run's busy intervals `(pid, start, end)`,
    /// in any order.
    pub fn rebuild_cpu(&mut self, busy: &[(u32, Ticks, Ticks)]) {
        let cpu = CpuTime::new(busy);
        self.any_busy = !cpu.is_empty();
        self.cpu =
            cpu.cumulative(self.nodes.iter().map(|x| (x.pid, x.time))).unwrap_or_else(|| vec![0; self.nodes.len()]);
        self.cpu_disorder = false;
    }

    /// Whether compute edges weigh their process's CPU time (else their elapsed time).
    fn uses_cpu(&self) -> bool {
        #[cfg(test)]
        if self.elapsed_only {
            return false;
        }
        self.any_busy
    }

    /// The CPU time of node `p`'s process from `p` to node `i` when the edge between them
    /// is a computation (its elapsed time when the run has no busy intervals); 0 for
    /// other edges.
    fn edge_cpu(&self, p: usize, i: usize, kind: EdgeKind) -> Ticks {
        match kind {
            EdgeKind::Compute if self.uses_cpu() => self.cpu[i].saturating_sub(self.cpu[p]),
            EdgeKind::Compute => self.nodes[i].time.saturating_sub(self.nodes[p].time),
            _ => 0,
        }
    }

    /// Whether the graph reached its limit of nodes ([`MAX_NODES`]) and left events
    /// out: its critical path is then not the run's.
    pub fn is_full(&self) -> bool {
        self.full
    }

    /// The most nodes this graph takes.
    pub fn limit(&self) -> usize {
        self.limit
    }

    #[cfg(test)]
    pub(crate) fn with_limit(limit: usize) -> GraphBuilder {
        GraphBuilder { limit, ..GraphBuilder::default() }
    }

    /// Ends `pid`'s wait for its children, if it was waiting, with a `Wake` node at `time`.
    fn wake(&mut self, pid: u32, time: Ticks) {
        if self.tail.get_mut(u64::from(pid)).and_then(|t| t.waiting.take()).is_some() {
            // Not before the process's previous event (its wait began there).
            let last = self.last_time(pid);
            let i = self.push(pid, time.max(last), NodeKind::Wake);
            self.joins.push((i as u32, pid));
        }
    }

    /// Starts `pid`, if it was created and has not run yet: its `Init` node at `time`,
    /// reached from its creator's fork by a spawn edge.
    fn start(&mut self, pid: u32, time: Ticks) {
        let fork = self.tail.get_mut(u64::from(pid)).map(|t| std::mem::replace(&mut t.unstarted, Link::NONE));
        if let Some(fork) = fork.and_then(Link::get) {
            let time = time.max(self.nodes[fork].time);
            let init = self.push(pid, time, NodeKind::Init);
            self.other[init] = Link(fork as u32);
        }
    }

    /// Ends `pid`'s suspension, if it was suspended, with a `Block` node where it began
    /// and a `Resume` node at `time`, joined by the suspension's own edge.
    fn resume(&mut self, pid: u32, time: Ticks) {
        if let Some((since, kind)) = self.tail.get_mut(u64::from(pid)).and_then(|t| t.suspended.take()) {
            let since = since.max(self.last_time(pid));
            self.push(pid, since, NodeKind::Block);
            self.push(pid, time.max(since), NodeKind::Resume(kind));
        }
    }

    /// Takes one event into account.
    #[inline]
    pub fn event(&mut self, e: &Event) {
        // An event adds at most 6 nodes (its own after a start, a wake-up and the two of
        // a resumption).
        if self.full || self.nodes.len() + 6 > self.limit {
            self.full = true;
            return;
        }
        match *e {
            Event::ProcCreate { time, parent, pid, .. } => match parent {
                Some(p) => {
                    let fork = self.push(p, time, NodeKind::Fork);
                    self.tail.get_or_insert_with(u64::from(pid), Tail::default).unstarted = Link(fork as u32);
                    self.parent_of.insert(pid, p);
                    if !self.running_states {
                        self.start(pid, time);
                    }
                }
                None => {
                    self.push(pid, time, NodeKind::Init);
                }
            },
            Event::ProcEnd { time, pid } => {
                let i = self.push(pid, time, NodeKind::Exit);
                if let Some(&p) = self.parent_of.get(&pid) {
                    self.child_ends.entry(p).or_default().push(i as u32);
                }
            }
            Event::State { time, pid, state, reason } => {
                self.running_states |= state == ProcState::Running;
                self.start(pid, time);
                let waits = matches!(reason, Reason::Join | Reason::Forall | Reason::Children);
                let suspension = match (state, reason) {
                    (ProcState::Blocked, Reason::RemoteRead { .. }) => Some(EdgeKind::RemoteRead),
                    (ProcState::Spinning | ProcState::Blocked, Reason::Lock { .. }) => Some(EdgeKind::Lock),
                    (ProcState::Delayed, _) => Some(EdgeKind::Delay),
                    _ => None,
                };
                if state == ProcState::Blocked && waits {
                    self.tail.get_or_insert_with(u64::from(pid), Tail::default).waiting = Some(time);
                } else if let Some(kind) = suspension {
                    self.wake(pid, time);
                    self.resume(pid, time);
                    self.tail.get_or_insert_with(u64::from(pid), Tail::default).suspended = Some((time, kind));
                } else {
                    self.wake(pid, time);
                    self.resume(pid, time);
                }
            }
            // Remote-memory traffic is not an edge: the wait it causes is (a remote
            // read's suspension, ended when the reader resumes).
            Event::MsgSend { time, msg, src_pid, purpose: crate::trace::MsgPurpose::Channel { .. }, .. } => {
                let i = self.push(src_pid, time, NodeKind::Send);
                self.send_of.insert(msg, i as u32);
            }
            Event::MsgArrive { time, msg, .. } => {
                self.arrival.insert(msg, time);
            }
            Event::RecvCall { time, pid, .. } => {
                self.push(pid, time, NodeKind::RecvCall);
            }
            // A record lists a message's send and arrival before its receive's completion:
            // its edge is resolved at once, and the message forgotten.
            Event::RecvDone { time, pid, msg, .. } => {
                let i = self.push(pid, time, NodeKind::RecvDone);
                match self.send_of.remove(msg) {
                    Some(s) => {
                        let arrived = self.arrival.remove(msg);
                        self.message(i, s as usize, arrived);
                    }
                    None => self.pending.push((i as u32, msg)),
                }
            }
            // A busy interval is recorded at its end, so the one that led up to the wait
            // may come after it; one that starts at or after the wait's beginning is the
            // process running again, and its start is when it resumed.
            Event::Busy { pid, start, end, .. } => {
                if let Some(&t) = self.tail.get(u64::from(pid)).filter(|t| t.waits()) {
                    if t.unstarted != Link::NONE {
                        self.start(pid, start);
                    }
                    // Starting (an `Init` node) and waking (a `Wake` node) change no other
                    // wait: the copy taken before them still tells.
                    if t.waiting.is_some_and(|since| start >= since && end > since) {
                        self.wake(pid, start);
                    }
                    if t.suspended.is_some_and(|(since, _)| start >= since && end > since) {
                        self.resume(pid, start);
                    }
                }
                if end > start {
                    self.busy(pid, start, end);
                }
            }
            _ => {}
        }
    }

    /// The edge of the message from send node `s` to receive completion `i`, which
    /// `arrived` then (unknown: at the completion): the completion's other edge when
    /// the receiver waited for it, else a weak edge.
    fn message(&mut self, i: usize, s: usize, arrived: Option<Ticks>) {
        // A message edge must go forward in time; a malformed record may say otherwise.
        if self.nodes[s].time > self.nodes[i].time || s == i {
            return;
        }
        let arrived = arrived.unwrap_or(self.nodes[i].time);
        let before = self.vertical[i].get().map(|v| self.nodes[v].time);
        // The receiver waited for the message when it arrived after the receiver's
        // previous event: then the message, not the receiver, set the completion time.
        // Then the receiver was suspended from its receive call on: no vertical edge
        // (seed 003 §3.2: "No edge exists between a recv_call event and the following
        // msg_arr event because the process is suspended"). A message the receiver
        // did not wait for is still an edge of the graph, but not the completion's
        // critical predecessor.
        let waited = before.is_none_or(|b| arrived > b);
        if waited {
            self.other[i] = Link(s as u32);
            if self.vertical[i].get().is_some_and(|v| self.nodes[v].kind == NodeKind::RecvCall) {
                self.cuts.push(i as u32);
            }
        } else {
            self.weak.push((i as u32, s as u32, arrived));
        }
    }

    /// Resolves the message edges and finds the critical path ending at the last event
    /// (ties: the lowest node index, i.e. the first recorded), weighted for `processors`
    /// busy as `profile` says, compute edges by their elapsed time (no CPU times: the
    /// tests' shortcut; the analysis weighs with [`PathEdges::weigh`]).
    #[cfg(test)]
    pub(crate) fn finish(mut self, processors: u32, profile: &BusyProfile) -> CriticalPath {
        self.elapsed_only = true;
        self.path().weigh(processors, profile)
    }

    /// Resolves the message edges and finds the critical path ending at the last event
    /// (ties: the lowest node index, i.e. the first recorded), unweighed: the part of
    /// `finish` (in tests) that needs no busy profile, so the two can be computed
    /// at the same time.
    pub fn path(&mut self) -> PathEdges {
        self.resolve();
        self.critical()
    }

    /// Resolves the message and join edges: the first part of [`path`](Self::path), after
    /// which the graph is only read.
    pub fn resolve(&mut self) {
        for (i, msg) in std::mem::take(&mut self.pending) {
            if let Some(&s) = self.send_of.get(msg) {
                let arrived = self.arrival.get(msg).copied();
                self.message(i as usize, s as usize, arrived);
            }
        }
        for i in std::mem::take(&mut self.cuts) {
            self.vertical[i as usize] = Link::NONE;
        }
        for &(i, parent) in &self.joins {
            let i = i as usize;
            let t = self.nodes[i].time;
            let ends = self.child_ends.get(&parent).map(Vec::as_slice).unwrap_or_default();
            // The latest child end not after the resumption (ties: the first recorded).
            let Some(c) = ends
                .iter()
                .map(|&c| c as usize)
                .filter(|&c| self.nodes[c].time <= t)
                .max_by_key(|&c| (self.nodes[c].time, Reverse(c)))
            else {
                continue;
            };
            let (end, before) = (self.nodes[c].time, self.vertical[i].get().map(|v| self.nodes[v].time));
            // As for messages: the child's end is critical when the parent waited for it.
            if end <= self.nodes[i].time && before.is_none_or(|b| end > b) {
                self.other[i] = Link(c as u32);
                // The parent was suspended from the start of its wait.
                self.vertical[i] = Link::NONE;
            }
        }
        // A malformed record may put a process's events out of time order: such vertical
        // edges would run backwards in time and are dropped rather than trusted (the
        // builder saw whether there are any). The other edges go forward by construction:
        // a process starts no earlier than its fork, and message and join edges (weak
        // ones too) are kept above only when they do.
        if self.backward {
            for i in 0..self.nodes.len() {
                if self.vertical[i].get().is_some_and(|v| self.nodes[v].time > self.nodes[i].time) {
                    self.vertical[i] = Link::NONE;
                }
            }
        }
        debug_assert!((0..self.nodes.len())
            .all(|i| self.other(i).is_none_or(|(o, _)| self.nodes[o as usize].time <= self.nodes[i].time)));
        self.weak.sort_unstable();
    }
}

impl GraphBuilder {
    /// Node `i`'s other predecessor and the kind of the edge from it.
    #[inline]
    fn other(&self, i: usize) -> Option<(u32, EdgeKind)> {
        let o = self.other[i];
        if o == Link::NONE {
            return None;
        }
        Some((o.0, self.nodes[i].kind.other_edge()?))
    }

    /// The kind of node `i`'s vertical edge: computation, or the suspension it ends.
    fn vertical_kind(&self, i: usize) -> EdgeKind {
        match self.nodes[i].kind {
            NodeKind::Resume(k) => k,
            _ => EdgeKind::Compute,
        }
    }

    /// The end of the transfer of a message the receiver did not wait for, `(receive
    /// completion, send, arrival)` of [`Self::weak`]: its arrival, clamped between its
    /// two nodes.
    fn transfer_end(&self, &(i, s, arrived): &(u32, u32, Ticks)) -> Ticks {
        arrived.clamp(self.nodes[s as usize].time, self.nodes[i as usize].time)
    }

    /// The sends of the messages the receive completion `i` did not wait for.
    fn weak_of(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let k = self.weak.partition_point(|w| (w.0 as usize) < i);
        self.weak[k..].iter().take_while(move |w| w.0 as usize == i).map(|w| w.1 as usize)
    }

    /// The nodes in a topological order of every edge (vertical, the kept other edge, the
    /// weak message edges). Vertical edges always come from an earlier node; when every
    /// other edge does too (as in any record cpss writes), that is the node order. Otherwise
    /// Kahn's algorithm, ready nodes by (time, index); nodes on a cycle (possible only in a
    /// malformed record) are left out.
    fn topological(&self) -> Box<dyn Iterator<Item = usize>> {
        match self.topological_order() {
            None => Box::new(0..self.nodes.len()),
            Some(order) => Box::new(order.into_iter()),
        }
    }

    /// [`Self::topological`]: `None` for the node order, else the order Kahn's algorithm
    /// finds.
    fn topological_order(&self) -> Option<Vec<usize>> {
        let n = self.nodes.len();
        let forward = self.other.iter().enumerate().all(|(i, o)| o.get().is_none_or(|p| p < i))
            && self.weak.iter().all(|w| w.1 < w.0);
        if forward {
            return None;
        }
        let mut indeg = vec![0usize; n];
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, d) in indeg.iter_mut().enumerate() {
            let weak = self.weak_of(i);
            for p in self.vertical[i].get().into_iter().chain(self.other[i].get()).chain(weak) {
                *d += 1;
                succ[p].push(i);
            }
        }
        let mut heap: BinaryHeap<Reverse<(Ticks, usize)>> =
            (0..n).filter(|&i| indeg[i] == 0).map(|i| Reverse((self.nodes[i].time, i))).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(Reverse((_, i))) = heap.pop() {
            order.push(i);
            for &s in &succ[i] {
                indeg[s] -= 1;
                if indeg[s] == 0 {
                    heap.push(Reverse((self.nodes[s].time, s)));
                }
            }
        }
        Some(order)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn wcpa_weight_matches_the_seed_worked_checks() {
        // Seed 003 §3.4 (Figure 3.3; copied into SPEC §6): an edge of 100 with P = 0 on 100
        // processors "weighs 10100", an edge of 500 with P = 1 weighs 500.
        //
        // 1. P = 1: the second term vanishes whatever n is, w = Δt = 500.
        assert_eq!(wcpa_weight(500.0, 1.0, 100), 500.0);
        // 2. P = 0, n = 100: w = 100 + (1 − 0)·(100 − 1)·100 = 100 + 9900 = 10000, which
        //    is the seed's own statement that the weight "is maximized at nΔt" = 100·100.
        assert_eq!(wcpa_weight(100.0, 0.0, 100), 10000.0);
        assert_eq!(wcpa_weight(100.0, 0.0, 100), 100.0 * 100.0);
        // 3. The seed's figure 10100 is what the same formula gives with n = 101:
        //    100 + 1·(101 − 1)·100 = 100 + 10000 = 10100. The seed's arithmetic wrote
        //    (n − 1) with n − 1 = 100, i.e. it counted 101 processors (equivalently it used
        //    (1 − P)·n·Δt with n = 100). The formula is kept as specified; only the
        //    processor count differs.
        assert_eq!(wcpa_weight(100.0, 0.0, 101), 10100.0);
        assert_ne!(wcpa_weight(100.0, 0.0, 100), 10100.0);
        // One processor: no parallelism to lose, w = Δt whatever P is.
        assert_eq!(wcpa_weight(70.0, 0.0, 1), 70.0);
    }

    /// A 4-byte channel message `msg` from process 0 (processor 0) to process 1
    /// (processor 1), sent at `time` from line 1.
    fn send_0_to_1(time: Ticks, msg: u64) -> Event {
        Event::MsgSend {
            time,
            msg,
            src_pid: 0,
            src_pproc: 0,
            dst_pid: Some(1),
            dst_pproc: 1,
            purpose: crate::trace::MsgPurpose::Channel { channel: 0, index: 0 },
            bytes: 4,
            line: 1,
        }
    }

    /// Process 0 runs 0..10 and 20..40 (busy intervals recorded at their ends) and sends
    /// at 30, inside the second interval: its CPU time before the send is 10 + (30 − 20)
    /// = 20, before its end at 40 is 30; process 1 was never busy (0). These are
    /// [`CpuTime`]'s answers, followed one event at a time.
    #[test]
    fn cpu_times_are_followed_event_by_event() {
        let send = send_0_to_1;
        let busy = |pid, start, end| Event::Busy {
            pproc: pid,
            pid,
            start,
            end,
            line: 1,
            class: crate::trace::BusyClass::Work,
        };
        let evs = vec![
            Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 },
            Event::ProcCreate { time: 0, parent: None, pid: 1, vproc: None, pproc: 1, function: 0, line: 0 },
            busy(0, 0, 10),
            send(30, 1),
            busy(0, 20, 40),
            Event::ProcEnd { time: 40, pid: 0 },
            Event::ProcEnd { time: 40, pid: 1 },
        ];
        let mut g = GraphBuilder::default();
        for e in &evs {
            g.event(e);
        }
        assert!(!g.needs_cpu_rebuild());
        let got: Vec<(u32, Ticks, Ticks)> = g.nodes.iter().zip(&g.cpu).map(|(n, &c)| (n.pid, n.time, c)).collect();
        assert_eq!(got, vec![(0, 0, 0), (1, 0, 0), (0, 30, 20), (0, 40, 30), (1, 40, 0)]);
        let exact = CpuTime::new(&[(0, 0, 10), (0, 20, 40)]);
        assert_eq!(exact.cumulative(g.nodes.iter().map(|n| (n.pid, n.time))), Some(g.cpu.clone()));

        // The same intervals out of order (20..40 before 0..10) cannot be followed: the
        // graph says so, and computing the times from all the intervals gives the same.
        let mut g = GraphBuilder::default();
        for e in [&evs[0], &evs[1], &evs[3], &evs[4], &evs[2], &evs[5], &evs[6]] {
            g.event(e);
        }
        assert!(g.needs_cpu_rebuild());
        g.rebuild_cpu(&[(0, 20, 40), (0, 0, 10)]);
        assert!(!g.needs_cpu_rebuild());
        let got: Vec<Ticks> = g.cpu.clone();
        assert_eq!(got, vec![0, 0, 20, 30, 0]);
    }

    #[test]
    fn a_remote_read_is_its_own_edge_not_computation() {
        // Process 0 computes 0..10, blocks in a remote read at 10, runs again at 40 and
        // ends at 50: its path is compute 0..10, the read's round trip 10..40 (no CPU
        // time), compute 40..50. With n = 1 every edge weighs its Δt: CPU 10 + elapsed
        // 30 + CPU 10 = 50.
        let evs = vec![
            Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 },
            Event::State { time: 0, pid: 0, state: ProcState::Running, reason: Reason::None },
            Event::State { time: 10, pid: 0, state: ProcState::Blocked, reason: Reason::RemoteRead { owner: 1 } },
            Event::Busy { pproc: 0, pid: 0, start: 0, end: 10, line: 1, class: crate::trace::BusyClass::Work },
            Event::State { time: 40, pid: 0, state: ProcState::Running, reason: Reason::None },
            Event::Busy { pproc: 0, pid: 0, start: 40, end: 50, line: 1, class: crate::trace::BusyClass::Work },
            Event::ProcEnd { time: 50, pid: 0 },
        ];
        let mut g = GraphBuilder::default();
        for e in &evs {
            g.event(e);
        }
        let profile = BusyProfile::new(&[(0, 10), (40, 50)]);
        let edges = g.path();
        let critical = edges.weigh(1, &profile);
        let weighted = g.weighted(1, &profile, &g.weak_order());
        for c in [critical, weighted] {
            let shape: Vec<(EdgeKind, Ticks, Ticks, Ticks)> =
                c.segments.iter().map(|s| (s.kind, s.from, s.to, s.busy)).collect();
            assert_eq!(
                shape,
                vec![
                    (EdgeKind::Compute, 0, 10, 10),
                    (EdgeKind::RemoteRead, 10, 40, 0),
                    (EdgeKind::Compute, 40, 50, 10)
                ]
            );
            assert_eq!(c.total_weight, 50.0);
        }
    }

    #[test]
    fn a_message_that_waited_in_the_queue_weighs_its_transfer_only() {
        // n = 2. Process 0 computes 0..20 and sends (arrives 30); process 1 begins at 90
        // (a source of its own), computes 90..100 and reads the message at 100, which
        // had been there since 30: a weak edge. Busy: [0,20) 1, [20,90) 0, [90,100) 1.
        // Process 1's own chain weighs w(10, ½) = 15; through the message: 0's computation
        // w(20, ½) = 30, plus the transfer 20..30 at P = 0: 10 + 10 = 20, total 50. (Weighed
        // to the read at 100, the message would weigh 80 + (15/16)·80 = 155.)
        let evs = vec![
            Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 },
            Event::State { time: 0, pid: 0, state: ProcState::Running, reason: Reason::None },
            send_0_to_1(20, 1),
            Event::Busy { pproc: 0, pid: 0, start: 0, end: 20, line: 1, class: crate::trace::BusyClass::Work },
            Event::ProcEnd { time: 20, pid: 0 },
            Event::MsgArrive { time: 30, msg: 1, dst_pproc: 1 },
            Event::ProcCreate { time: 90, parent: None, pid: 1, vproc: None, pproc: 1, function: 0, line: 0 },
            Event::State { time: 90, pid: 1, state: ProcState::Running, reason: Reason::None },
            Event::RecvCall { time: 100, pid: 1, pproc: 1, channel: 0, index: 0, line: 2 },
            Event::RecvDone { time: 100, pid: 1, pproc: 1, msg: 1, src_pid: 0, bytes: 4 },
            Event::Busy { pproc: 1, pid: 1, start: 90, end: 100, line: 2, class: crate::trace::BusyClass::Work },
            Event::ProcEnd { time: 100, pid: 1 },
        ];
        let mut g = GraphBuilder::default();
        for e in &evs {
            g.event(e);
        }
        let profile = BusyProfile::new(&[(0, 20), (90, 100)]);
        let _ = g.path();
        let w = g.weighted(2, &profile, &g.weak_order());
        let shape: Vec<(EdgeKind, Ticks, Ticks, f64)> =
            w.segments.iter().map(|s| (s.kind, s.from, s.to, s.weight)).collect();
        assert_eq!(shape, vec![(EdgeKind::Compute, 0, 20, 30.0), (EdgeKind::Message, 20, 30, 20.0)]);
        assert_eq!(w.total_weight, 50.0);
    }

    /// Process 1 calls receive at 10 and waits; process 0 sends at 20, the message
    /// arrives at 30 and completes the receive; 1 ends at 40. The critical path is 0's
    /// computation 0..20, the message 20..30, 1's computation 30..40: length 40, three
    /// edges, and the receiver's edge from its call to the completion is cut (it was
    /// suspended). In record order the message is resolved at its completion and
    /// forgotten (nothing stays in flight); a foreign trace that lists the completion
    /// before the send gets the same path, the edge resolved at the end.
    #[test]
    fn a_message_is_resolved_at_its_completion_or_at_the_end() {
        let create =
            |pid| Event::ProcCreate { time: 0, parent: None, pid, vproc: None, pproc: pid, function: 0, line: 0 };
        let (send, arrive) = (send_0_to_1(20, 5), Event::MsgArrive { time: 30, msg: 5, dst_pproc: 1 });
        let done = Event::RecvDone { time: 30, pid: 1, pproc: 1, msg: 5, src_pid: 0, bytes: 4 };
        let call = Event::RecvCall { time: 10, pid: 1, pproc: 1, channel: 0, index: 0, line: 2 };
        let ends = [Event::ProcEnd { time: 20, pid: 0 }, Event::ProcEnd { time: 40, pid: 1 }];
        let in_order = [create(0), create(1), call.clone(), send.clone(), arrive.clone(), done.clone()];
        let done_first = [create(0), create(1), call, done, send, arrive];
        for (order, evs) in [("in order", &in_order), ("completion first", &done_first)] {
            let mut g = GraphBuilder::default();
            for e in evs.iter().chain(&ends) {
                g.event(e);
            }
            if order == "in order" {
                assert!(g.pending.is_empty() && g.send_of.get(5).is_none() && g.arrival.get(5).is_none(), "{order}");
            } else {
                assert_eq!(g.pending.len(), 1, "{order}");
            }
            g.elapsed_only = true;
            let path = g.path().weigh(2, &BusyProfile::default());
            let shape: Vec<(EdgeKind, u32, Ticks, Ticks)> =
                path.segments.iter().map(|s| (s.kind, s.pid, s.from, s.to)).collect();
            assert_eq!(
                shape,
                vec![(EdgeKind::Compute, 0, 0, 20), (EdgeKind::Message, 0, 20, 30), (EdgeKind::Compute, 1, 30, 40)],
                "{order}"
            );
            assert_eq!((path.length, path.edges), (40, 3), "{order}");
            let recv_done = g.nodes.iter().position(|n| n.kind == NodeKind::RecvDone).unwrap();
            assert_eq!(g.vertical[recv_done], Link::NONE, "{order}");
        }
    }

    #[test]
    fn a_receive_that_did_not_wait_keeps_the_receiver_on_the_path() {
        // Process 0 forks 1 at 10; 1 sends at 20 (arrives 25) and ends; 0 computes until 60,
        // calls receive at 60 and completes at 61: the message was already there, so the
        // path runs along process 0 only: init → fork → recv_call → recv_done → exit.
        let evs = vec![
            Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 },
            Event::ProcCreate { time: 10, parent: Some(0), pid: 1, vproc: None, pproc: 1, function: 0, line: 3 },
            Event::MsgSend {
                time: 20,
                msg: 7,
                src_pid: 1,
                src_pproc: 1,
                dst_pid: Some(0),
                dst_pproc: 0,
                purpose: crate::trace::MsgPurpose::Channel { channel: 0, index: 0 },
                bytes: 4,
                line: 4,
            },
            Event::ProcEnd { time: 20, pid: 1 },
            Event::MsgArrive { time: 25, msg: 7, dst_pproc: 0 },
            Event::RecvCall { time: 60, pid: 0, pproc: 0, channel: 0, index: 0, line: 5 },
            Event::RecvDone { time: 61, pid: 0, pproc: 0, msg: 7, src_pid: 1, bytes: 4 },
            Event::ProcEnd { time: 70, pid: 0 },
        ];
        let mut g = GraphBuilder::default();
        for e in &evs {
            g.event(e);
        }
        let path = g.finish(2, &BusyProfile::default());
        assert_eq!(path.length, 70);
        assert_eq!(path.edges, 4);
        assert!(path.segments.iter().all(|s| s.kind == EdgeKind::Compute && s.pid == 0));
        // Consecutive compute edges of one process merge into one segment 0..70.
        assert_eq!(path.segments.len(), 1);
        assert_eq!((path.segments[0].from, path.segments[0].to), (0, 70));
    }

    /// A trace whose process lists an event before an earlier one (a receive call at 100,
    /// then one at 50) would give a vertical edge backwards in time: it is dropped, so
    /// the call at 50 starts a path of its own, and the exit (120), which follows it,
    /// ends the critical path: 70 over one edge. Without the disorder every vertical
    /// edge stays and the path runs from the init: 120 over three edges.
    #[test]
    fn a_vertical_edge_backwards_in_time_is_dropped() {
        let call = |time| Event::RecvCall { time, pid: 0, pproc: 0, channel: 0, index: 0, line: 5 };
        let init = Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 };
        let exit = Event::ProcEnd { time: 120, pid: 0 };
        for (calls, backward, links, length, edges) in [
            ([100, 50], true, [None, Some(0), None, Some(2)], 70, 1),
            ([50, 100], false, [None, Some(0), Some(1), Some(2)], 120, 3),
        ] {
            let mut g = GraphBuilder::default();
            for e in [init.clone(), call(calls[0]), call(calls[1]), exit.clone()] {
                g.event(&e);
            }
            assert_eq!(g.backward, backward);
            g.resolve();
            assert_eq!(g.vertical.iter().map(|l| l.get()).collect::<Vec<_>>(), links);
            let path = g.critical();
            assert_eq!((path.length, path.edges.len()), (length, edges), "{calls:?}");
        }
    }

    #[test]
    fn a_parent_waiting_in_join_continues_the_path_from_its_child() {
        // Process 0 runs 0..10, forks 1 at 10 and blocks in join; the busy interval 0..10
        // is recorded after the block (intervals are recorded at their end) and must not
        // count as the resumption. Child 1 runs 10..50 and ends; the parent runs 50..60.
        // Path: init0 →10 fork0 →spawn init1 →40 exit1 →join wake0(50) →10 exit0(60):
        // five edges, the zero-length spawn and join left out of the segments.
        let busy = |pid: u32, start, end| Event::Busy {
            pproc: pid,
            pid,
            start,
            end,
            line: 0,
            class: crate::trace::BusyClass::Work,
        };
        let evs = vec![
            Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 },
            Event::ProcCreate { time: 10, parent: Some(0), pid: 1, vproc: None, pproc: 1, function: 0, line: 3 },
            Event::State { time: 10, pid: 0, state: ProcState::Blocked, reason: Reason::Join },
            busy(0, 0, 10),
            busy(1, 10, 50),
            Event::ProcEnd { time: 50, pid: 1 },
            busy(0, 50, 60),
            Event::ProcEnd { time: 60, pid: 0 },
        ];
        let mut g = GraphBuilder::default();
        for e in &evs {
            g.event(e);
        }
        let path = g.finish(2, &BusyProfile::default());
        assert_eq!(path.length, 60);
        assert_eq!(path.edges, 5);
        let shape: Vec<(EdgeKind, u32, Ticks, Ticks)> =
            path.segments.iter().map(|s| (s.kind, s.pid, s.from, s.to)).collect();
        assert_eq!(
            shape,
            vec![(EdgeKind::Compute, 0, 0, 10), (EdgeKind::Compute, 1, 10, 50), (EdgeKind::Compute, 0, 50, 60)]
        );
    }
}
