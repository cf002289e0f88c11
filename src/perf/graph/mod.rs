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
//! This module holds the graph's types; its submodules work on them: `build` builds the
//! graph one event at a time ([`GraphBuilder::event`]), resolving each message edge as
//! its receive completes (a record lists a message's send and arrival before);
//! `resolve` resolves at the end the join edges and the messages of a foreign trace
//! that lists a completion first, and orders the nodes; `paths` finds the two paths
//! and weighs them.
//!
//! Depends only on [`crate::trace`]. Linear in the events apart from sorting.
mod build;
mod paths;
mod resolve;

pub use super::busy::{sort_ticks, BusyProfile, CpuTime};
use crate::dense::DenseMap;
use crate::time::Ticks;
pub use paths::{group_weights, PathEdges, WeakOrder};
use std::collections::BTreeMap;

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
    /// The send node of each channel message sent and not yet received, and the arrival
    /// of each message once recorded: a channel message leaves both when its receive
    /// completes, so they hold the messages in flight. Remote-memory traffic has no
    /// receive: its arrivals stay (the record does not say which arrivals are of it),
    /// and the arrival map then holds every message from the first such arrival on.
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

#[cfg(test)]
mod tests;
