//! Events the simulator reports to an [`Observer`] (the run record writer, a debugger),
//! in simulation order. Without an observer nothing is built, so a run that records
//! nothing pays one branch per event site and nothing in the interpreter loop.
//!
//! Simulation order is not time order across processors (processors run one after the
//! other inside a quantum), but the times within one process are non-decreasing.
//! Depends on `time` and the run record's [`Reason`], the one type that says why a
//! process waits, shared by the simulator, the run record and the trace importers.
use crate::time::Ticks;
pub use crate::trace::Reason;

/// The kinds of remote-memory traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemoteKind {
    /// A remote read's request.
    Read,
    /// A remote read's reply.
    Reply,
    /// A remote write.
    Write,
}

/// One simulator event.
#[derive(Clone, Debug, PartialEq)]
pub enum SimEvent<'a> {
    /// A process was created (process 0 has no parent).
    ProcessCreate { time: Ticks, parent: Option<u32>, pid: u32, vproc: u32, pproc: u32, function: &'a str, line: u32 },
    /// A process ended.
    ProcessEnd { time: Ticks, pid: u32 },
    /// A process ran on its processor from `start` to `end` (its busy time in that turn
    /// is `busy`, less than `end - start` only while time was off or it waited).
    Run { pid: u32, pproc: u32, start: Ticks, end: Ticks, busy: Ticks, line: u32 },
    /// A process blocked.
    Block { time: Ticks, pid: u32, reason: Reason, line: u32 },
    /// A process begins a turn on its processor (before the turn's other events).
    Start { time: Ticks, pid: u32 },
    /// A message was sent on a channel element; it arrives at `arrival`, or, when the
    /// network has contention (`None`), at the time of a later [`SimEvent::Arrive`].
    Send {
        time: Ticks,
        /// The simulator's message id (unique in the run).
        msg: u64,
        src_pid: u32,
        dst_pid: u32,
        src_pproc: u32,
        dst_pproc: u32,
        /// Index into `Module::channels` and element number (row-major).
        channel: u32,
        elem: u32,
        bytes: u32,
        arrival: Option<Ticks>,
        /// Source line of the send.
        line: u32,
    },
    /// Remote-memory traffic: a remote read's request (reader to owner) or reply (owner
    /// to reader), or a remote write (writer to owner), on behalf of process `pid`
    /// (the reader or writer) about address `addr`. It arrives at `arrival`, or at the
    /// time of a later [`SimEvent::Arrive`] when the network has contention (`None`).
    Remote {
        time: Ticks,
        /// The simulator's message id (unique in the run).
        msg: u64,
        kind: RemoteKind,
        pid: u32,
        addr: u32,
        src_pproc: u32,
        dst_pproc: u32,
        bytes: u32,
        arrival: Option<Ticks>,
        /// Source line of the access.
        line: u32,
    },
    /// A message sent with an unknown arrival time arrived.
    Arrive { time: Ticks, msg: u64 },
    /// A packet of message `msg` crossed the link `from -> to` (`--trace-routes`).
    Hop { msg: u64, packet: u32, from: u32, to: u32, enter: Ticks, leave: Ticks },
    /// A message was received (the `RECV` completed at `time`).
    Receive { time: Ticks, pid: u32, channel: u32, elem: u32, arrival: Ticks, line: u32, msg: u64 },
    /// `probe(id, label)`.
    Probe { time: Ticks, pid: u32, id: i32, label: &'a str },
    /// `timeOn()` (`on`) or `timeOff()`.
    Timing { time: Ticks, pid: u32, on: bool },
    /// Busy ticks per source line since the previous report, `(line, work, overhead)` in
    /// line order; reported when a run stops, to observers that asked for events.
    LineCosts { lines: &'a [(u32, Ticks, Ticks)] },
    /// The network resolved a cycle of blocked packets at `time` by taking packet
    /// `packet` of message `msg` (waiting at processor `at`) to the recovery channel.
    Deadlock { time: Ticks, msg: u64, packet: u32, at: u32 },
    /// Process `pid` called function `function` (index into `Module::functions`): its
    /// first instruction starts at `time`. Reported to observers that record a run.
    Enter { time: Ticks, pid: u32, function: u32 },
    /// Process `pid` returned from function `function` at `time` (the return's end).
    Leave { time: Ticks, pid: u32, function: u32 },
}

/// Receives the simulator's events.
pub trait Observer {
    /// Called once per event, in simulation order.
    fn event(&mut self, event: &SimEvent<'_>);

    /// Whether the observer can no longer do its work (its output failed: a full disk, a
    /// closed pipe). The run then stops at the next quantum end with
    /// [`super::Limit::Output`] rather than simulate on for nothing.
    fn failed(&self) -> bool {
        false
    }
}

/// A process's state (SPEC §4 "Process states"); Running is only seen from inside an
/// observer, so a snapshot between quanta shows Ready for a preempted process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcState {
    Ready,
    /// Waiting for what the reason says (never [`Reason::Delay`], [`Reason::Lock`],
    /// [`Reason::None`] or [`Reason::Quantum`]: those are the other states).
    Blocked(Reason),
    Delayed,
    Spinning,
    Ended,
}

/// One row of the process table, for `status` in the debugger.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessStatus {
    pub pid: u32,
    pub parent: Option<u32>,
    pub vproc: u32,
    pub pproc: u32,
    /// Function and source line of the next instruction.
    pub function: String,
    pub line: u32,
    /// Local clock.
    pub clock: Ticks,
    pub state: ProcState,
}
