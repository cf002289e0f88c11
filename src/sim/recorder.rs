//! Writes the run record of a simulation: turns the simulator's [`SimEvent`]s into
//! [`trace::Event`]s, gives every message an id (receives are matched to messages per
//! channel element in the simulator's delivery order: arrival time, then send order),
//! numbers probe labels, and releases events in time order through a window.
//!
//! The window: inside one quantum the simulator runs the processors one after the other,
//! so events of different processors come out of time order by at most one quantum plus
//! the longest instruction; message arrivals are announced ahead of their time. Events
//! older than the newest seen minus [`Recorder`]'s window are final and are written.
use super::observe::{Observer, RemoteKind, SimEvent};
use super::setup::Setup;
use super::Stats;
use crate::time::Ticks;
use crate::trace::{
    self, BusyClass, ChannelDecl, Event, ExitStatus, MsgPurpose, ProcState, Reason, RunHeader, RunRecordWriter,
    RunStats, TimeOrder,
};
use crate::vcode::{Module, Op};

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};
use std::rc::Rc;

/// Builds the header of a run record from the module and the configuration.
pub fn run_header(module: &Module, setup: &Setup, options: Vec<(String, String)>) -> RunHeader {
    let p = &setup.net;
    let mut channels: Vec<ChannelDecl> =
        module.channels.iter().map(|c| ChannelDecl { name: c.name.clone(), dims: c.dims.clone() }).collect();
    // The ranks' mailboxes: element r of the channel `MPI` is rank r's.
    if module.uses_mpi() || setup.config.ranks > 1 {
        channels.push(ChannelDecl { name: "MPI".into(), dims: vec![setup.config.ranks.max(1)] });
    }
    RunHeader {
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        program: module.source_name.clone(),
        source_name: module.source_name.clone(),
        source: module.source.clone(),
        topology: setup.physical.to_string(),
        virtual_topology: setup.virtual_topology.to_string(),
        mapping: setup.mapping.table.clone(),
        pprocs: setup.physical.nodes(),
        network: p.model.name().into(),
        network_params: network_params(setup),
        costs: Op::ALL.iter().map(|&op| (op.mnemonic().to_string(), setup.config.costs.get(op))).collect(),
        seed: setup.config.seed,
        quantum_ticks: setup.config.quantum,
        ticks_per_unit: crate::time::TICKS_PER_UNIT,
        options,
        functions: module.functions.iter().map(|f| f.name.clone()).collect(),
        channels,
        labels: Vec::new(),
    }
}

/// The network's parameters as the header keeps them: every flag but `network` (the
/// model has its own field) and those at `none` (as the statistics list them), then `links`, the physical network's number of directed
/// links (parallel links of a machine file counted each): the m of the network load
/// L = Σ U_link / m (seed 003 §3.3) that `cpperf` reports.
fn network_params(setup: &Setup) -> Vec<(String, String)> {
    let mut v = setup.net.stated_pairs();
    let m = setup.links.len().max(setup.physical.link_count());
    v.push((trace::LINKS_PARAM.into(), m.to_string()));
    v
}

/// The final statistics in run-record form.
pub fn run_stats(stats: &Stats, pprocs: u32, exit: ExitStatus, message: String) -> RunStats {
    let mut busy = vec![0; pprocs as usize];
    for &(p, t) in &stats.busy {
        if let Some(slot) = busy.get_mut(p as usize) {
            *slot = t;
        }
    }
    RunStats {
        seq_ticks: stats.seq_ticks,
        par_ticks: stats.par_ticks,
        pprocs_used: stats.busy.len() as u32,
        busy_ticks: busy,
        processes: stats.processes,
        messages: stats.messages,
        bytes: stats.bytes,
        total_latency_ticks: stats.latency_ticks,
        latency_messages: None,
        instructions: stats.instructions,
        exit,
        message,
    }
}

struct Pending {
    msg: u64,
    /// The simulator's id of the message.
    sim: u64,
    src_pid: u32,
    bytes: u32,
}

/// The run-record observer. Share it with [`Recorder::handle`], run, then [`Recorder::finish`].
pub struct Recorder<W: Write> {
    out: TimeOrder<RunRecordWriter<W>>,
    window: Ticks,
    newest: Ticks,
    next_msg: u64,
    /// Messages in a contention network, by the simulator's id: channel, element,
    /// the message and its destination processor.
    in_network: HashMap<u64, (u32, u32, Pending, u32)>,
    /// Remote-memory messages in a contention network, by the simulator's id: the
    /// record's id and the destination processor.
    remote_in_network: HashMap<u64, (u64, u32)>,
    /// `(arrival, simulator id, record id)` of the messages that arrived within the
    /// ordering window, oldest first ([`Self::arrived_id`]).
    recent: std::collections::VecDeque<(Ticks, u64, u64)>,
    /// The simulator's and the record's id of the latest message sent (its hops follow
    /// its send when the network knows them at once).
    last_send: (u64, u64),
    /// Undelivered messages per (channel, element), in delivery order.
    queues: HashMap<(u32, u32), BTreeMap<(Ticks, u64), Pending>>,
    /// Processes blocked in a receive whose call was already recorded.
    waiting_receive: HashMap<u32, ()>,
    /// Processes created or blocked since their last turn: their next turn start is
    /// recorded as a `Running` state change (when they resumed).
    stopped: HashMap<u32, ()>,
    labels: HashMap<String, u32>,
    functions: HashMap<String, u32>,
    pproc_of: HashMap<u32, u32>,
    /// What each function is to the call record ([`Library`]).
    library: Vec<Library>,
    /// Per process inside a library call: the frames open from the outermost library
    /// frame in, and whether that frame is recorded (an `MPI_` call) or not.
    in_library: HashMap<u32, (u32, bool)>,
}

/// A function's place in the call record. The libraries cpcc links (the C library's
/// helpers, `<mpi.h>`'s MPI library) are recorded as a profiling interface records them:
/// an MPI call is one region, entered and left at the call and the return, and nothing
/// it calls inside is recorded (its time is the call's); a helper called from the
/// program (`__cppe_…`) is not recorded, its time is its caller's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Library {
    /// The program's own function (or a library function called by name, as `printf`).
    No,
    /// An MPI call (`MPI_…`, in a program that calls `MPI_Init`).
    Call,
    /// A library helper (`__cppe_…`).
    Helper,
}

/// A shared handle given to the simulator as its observer.
pub struct RecorderHandle<W: Write>(Rc<RefCell<Recorder<W>>>);

impl<W: Write> Observer for RecorderHandle<W> {
    fn event(&mut self, e: &SimEvent<'_>) {
        self.0.borrow_mut().event(e);
    }

    fn failed(&self) -> bool {
        self.0.borrow().out.get_ref().failed()
    }
}

impl<W: Write> Recorder<W> {
    /// Starts a run record on `w` (writes the header).
    ///
    /// `slowest` is the largest number of ticks per time unit of any processor (its speed
    /// factor): a process can overrun its quantum by one instruction at that speed, and
    /// by `overhead` more (the send or receive overhead charged with the instruction).
    pub fn new(w: W, header: &RunHeader, slowest: Ticks, overhead: Ticks) -> io::Result<Rc<RefCell<Recorder<W>>>> {
        let writer = RunRecordWriter::new(w, header)?;
        let max_cost = header.costs.iter().map(|c| c.1 as Ticks).max().unwrap_or(0);
        let window = header
            .quantum_ticks
            .saturating_mul(2)
            .saturating_add((max_cost + 1).saturating_mul(slowest.max(1)))
            .saturating_add(overhead);
        Ok(Rc::new(RefCell::new(Recorder {
            out: TimeOrder::new(writer),
            window,
            newest: 0,
            next_msg: 0,
            queues: HashMap::new(),
            in_network: HashMap::new(),
            remote_in_network: HashMap::new(),
            recent: std::collections::VecDeque::new(),
            last_send: (u64::MAX, 0),
            waiting_receive: HashMap::new(),
            stopped: HashMap::new(),
            labels: HashMap::new(),
            functions: header.functions.iter().enumerate().map(|(i, f)| (f.clone(), i as u32)).collect(),
            pproc_of: HashMap::new(),
            library: {
                let mpi = header.functions.iter().any(|f| f == "MPI_Init");
                header
                    .functions
                    .iter()
                    .map(|f| {
                        if f.starts_with("__cppe_") {
                            Library::Helper
                        } else if mpi && f.starts_with("MPI_") {
                            Library::Call
                        } else {
                            Library::No
                        }
                    })
                    .collect()
            },
            in_library: HashMap::new(),
        })))
    }

    /// The observer to give the simulator.
    pub fn handle(rc: &Rc<RefCell<Recorder<W>>>) -> Box<dyn Observer>
    where
        W: 'static,
    {
        Box::new(RecorderHandle(Rc::clone(rc)))
    }

    /// Flushes every event, writes the footer and returns the output.
    pub fn finish(rc: Rc<RefCell<Recorder<W>>>, stats: &RunStats) -> io::Result<W> {
        let rec = Rc::try_unwrap(rc)
            .map_err(|_| io::Error::other("run record still shared with the simulator"))?
            .into_inner();
        rec.out.into_inner().finish(stats)
    }

    /// A message is in its channel's queue from `arrival` on.
    fn arrived(&mut self, channel: u32, elem: u32, arrival: Ticks, p: Pending, dst_pproc: u32) {
        let msg = p.msg;
        self.queues.entry((channel, elem)).or_default().insert((arrival, msg), p);
        self.push(Event::MsgArrive { time: arrival, msg, dst_pproc });
    }

    /// The record's id of the simulator's message `id` while it is in the network.
    fn record_id(&self, id: u64) -> u64 {
        match self.in_network.get(&id) {
            Some(e) => e.2.msg,
            None => match self.remote_in_network.get(&id) {
                Some(e) => e.0,
                None => self.recent.iter().find(|r| r.1 == id).map_or(u64::MAX, |r| r.2),
            },
        }
    }

    /// Message `sim` (record id `rec`) arrived at `time`: its id stays known while an
    /// event about it can still come (a deadlock resolution that the network's own
    /// thread reports after the arrival, not before as without it), that is while its
    /// arrival is within the ordering window of the newest event.
    fn arrived_id(&mut self, time: Ticks, sim: u64, rec: u64) {
        let oldest = self.newest.saturating_sub(self.window);
        while self.recent.front().is_some_and(|r| r.0 < oldest) {
            self.recent.pop_front();
        }
        self.recent.push_back((time, sim, rec));
    }

    fn push(&mut self, e: Event) {
        use trace::Tracer;
        let t = e.time();
        // An arrival (or a crossing) is announced at its send, ahead of its time: it does
        // not say the simulation has reached it.
        let present = !matches!(e, Event::MsgArrive { .. } | Event::Hop { .. });
        self.out.event(&e);
        if present && t > self.newest {
            self.newest = t;
            self.out.release_before(self.newest.saturating_sub(self.window));
        }
    }

    fn event(&mut self, e: &SimEvent<'_>) {
        match *e {
            SimEvent::ProcessCreate { time, parent, pid, vproc, pproc, function, line } => {
                self.pproc_of.insert(pid, pproc);
                self.stopped.insert(pid, ());
                let function = self.functions.get(function).copied().unwrap_or(0);
                self.push(Event::ProcCreate { time, parent, pid, vproc: Some(vproc), pproc, function, line });
            }
            SimEvent::ProcessEnd { time, pid } => {
                self.stopped.remove(&pid);
                self.in_library.remove(&pid);
                self.push(Event::ProcEnd { time, pid })
            }
            SimEvent::LineCosts { lines } => {
                // Stamped with the latest event so far: after everything already written
                // and never past the run's last real event.
                let time = self.newest;
                for &(line, work, overhead) in lines {
                    self.push(Event::LineCost { time, line, work, overhead });
                }
            }
            SimEvent::Run { pid, pproc, start, busy, line, .. } => {
                if busy > 0 {
                    self.push(Event::Busy { pproc, pid, start, end: start + busy, line, class: BusyClass::Work });
                }
            }
            SimEvent::Start { time, pid } => {
                if self.stopped.remove(&pid).is_some() {
                    self.push(Event::State { time, pid, state: ProcState::Running, reason: Reason::None });
                }
            }
            SimEvent::Block { time, pid, reason, line } => {
                self.stopped.insert(pid, ());
                let state = match reason {
                    Reason::Channel { channel, index } => {
                        let pproc = self.pproc_of.get(&pid).copied().unwrap_or(0);
                        self.waiting_receive.insert(pid, ());
                        self.push(Event::RecvCall { time, pid, pproc, channel, index, line });
                        ProcState::Blocked
                    }
                    Reason::Delay { .. } => ProcState::Delayed,
                    Reason::Lock { .. } => ProcState::Spinning,
                    _ => ProcState::Blocked,
                };
                self.push(Event::State { time, pid, state, reason });
            }
            SimEvent::Send {
                time,
                msg: id,
                src_pid,
                dst_pid,
                src_pproc,
                dst_pproc,
                channel,
                elem,
                bytes,
                arrival,
                line,
            } => {
                let msg = self.next_msg;
                self.next_msg += 1;
                self.last_send = (id, msg);
                self.push(Event::MsgSend {
                    time,
                    msg,
                    src_pid,
                    src_pproc,
                    dst_pid: Some(dst_pid),
                    dst_pproc,
                    purpose: MsgPurpose::Channel { channel, index: elem },
                    bytes,
                    line,
                });
                let pending = Pending { msg, sim: id, src_pid, bytes };
                match arrival {
                    Some(arrival) => self.arrived(channel, elem, arrival, pending, dst_pproc),
                    None => {
                        self.in_network.insert(id, (channel, elem, pending, dst_pproc));
                    }
                }
            }
            SimEvent::Hop { msg, packet, from, to, enter, leave } => {
                let msg = match self.last_send {
                    (sim, rec) if sim == msg => rec,
                    _ => self.record_id(msg),
                };
                self.push(Event::Hop { msg, packet, from, to, enter, leave });
            }
            SimEvent::Arrive { time, msg: sim } => {
                if let Some((channel, elem, pending, dst_pproc)) = self.in_network.remove(&sim) {
                    self.arrived_id(time, sim, pending.msg);
                    self.arrived(channel, elem, time, pending, dst_pproc);
                } else if let Some((msg, dst_pproc)) = self.remote_in_network.remove(&sim) {
                    self.arrived_id(time, sim, msg);
                    self.push(Event::MsgArrive { time, msg, dst_pproc });
                }
            }
            SimEvent::Remote { time, msg: id, kind, pid, addr, src_pproc, dst_pproc, bytes, arrival, line } => {
                let msg = self.next_msg;
                self.next_msg += 1;
                self.last_send = (id, msg);
                let purpose = match kind {
                    RemoteKind::Read => MsgPurpose::RemoteRead { addr },
                    RemoteKind::Reply => MsgPurpose::RemoteReply { addr },
                    RemoteKind::Write => MsgPurpose::RemoteWrite { addr },
                };
                // Sent on behalf of the reader or writer; no process receives it.
                self.push(Event::MsgSend {
                    time,
                    msg,
                    src_pid: pid,
                    src_pproc,
                    dst_pid: None,
                    dst_pproc,
                    purpose,
                    bytes,
                    line,
                });
                match arrival {
                    Some(time) => self.push(Event::MsgArrive { time, msg, dst_pproc }),
                    None => {
                        self.remote_in_network.insert(id, (msg, dst_pproc));
                    }
                }
            }
            SimEvent::Receive { time, pid, channel, elem, line, msg: id, .. } => {
                let pproc = self.pproc_of.get(&pid).copied().unwrap_or(0);
                if self.waiting_receive.remove(&pid).is_none() {
                    self.push(Event::RecvCall { time, pid, pproc, channel, index: elem, line });
                }
                // A channel read takes the first message; an MPI receive the one it
                // matched, wherever it is in the queue.
                let first = self.queues.get_mut(&(channel, elem)).and_then(|q| match q.first_key_value() {
                    Some((_, p)) if p.sim == id => q.pop_first(),
                    _ => {
                        let key = q.iter().find(|(_, p)| p.sim == id).map(|(k, _)| *k)?;
                        q.remove_entry(&key)
                    }
                });
                if let Some((_, p)) = first {
                    self.push(Event::RecvDone { time, pid, pproc, msg: p.msg, src_pid: p.src_pid, bytes: p.bytes });
                }
            }
            SimEvent::Probe { time, pid, id, label } => {
                let pproc = self.pproc_of.get(&pid).copied().unwrap_or(0);
                let index = match self.labels.get(label) {
                    Some(&i) => i,
                    None => {
                        let i = self.labels.len() as u32;
                        self.labels.insert(label.to_string(), i);
                        self.push(Event::Label { time, index: i, text: label.to_string() });
                        i
                    }
                };
                self.push(Event::Probe { time, pid, pproc, id, label: index });
            }
            SimEvent::Deadlock { time, msg, packet, at } => {
                let msg = match self.last_send {
                    (sim, rec) if sim == msg => rec,
                    _ => self.record_id(msg),
                };
                self.push(Event::Deadlock { time, msg, packet, pproc: at });
            }
            SimEvent::Enter { time, pid, function } => {
                if let Some(d) = self.in_library.get_mut(&pid) {
                    d.0 += 1;
                    return;
                }
                match self.library.get(function as usize).copied().unwrap_or(Library::No) {
                    Library::No => {}
                    Library::Call => {
                        self.in_library.insert(pid, (1, true));
                    }
                    Library::Helper => {
                        self.in_library.insert(pid, (1, false));
                        return;
                    }
                }
                self.push(Event::Enter { time, pid, function });
            }
            SimEvent::Leave { time, pid, function } => {
                if let Some(d) = self.in_library.get_mut(&pid) {
                    d.0 -= 1;
                    if d.0 > 0 {
                        return;
                    }
                    let recorded = d.1;
                    self.in_library.remove(&pid);
                    if !recorded {
                        return;
                    }
                }
                self.push(Event::Leave { time, pid, function });
            }
            SimEvent::Timing { time, pid, on } => {
                self.push(if on { Event::TimeOn { time, pid } } else { Event::TimeOff { time, pid } })
            }
        }
    }
}

/// The run-record exit status of a simulation result.
pub fn exit_status(r: &Result<Stats, super::SimError>) -> ExitStatus {
    match r {
        Ok(_) => ExitStatus::Ok,
        Err(super::SimError::Runtime { kind: super::RuntimeError::StackOverflow { .. }, .. }) => ExitStatus::Limit,
        Err(super::SimError::Runtime { .. }) => ExitStatus::RuntimeError,
        Err(super::SimError::Deadlock { .. } | super::SimError::NetworkDeadlock { .. }) => ExitStatus::Deadlock,
        Err(super::SimError::LimitExceeded { .. }) => ExitStatus::Limit,
    }
}
