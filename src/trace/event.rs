//! The contents of a run record: the header that names everything ([`RunHeader`]), the
//! events of a run ([`Event`]) and the final statistics ([`RunStats`], [`Footer`]).
//!
//! Depends on serde only. These types are the whole vocabulary shared by the simulator
//! (which produces them) and the analysers (which consume them); they carry indices into
//! the header's tables instead of names, so an event is a few bytes on disk, and the
//! header's tables turn every index back into a name without the `.cod` file.
//!
//! # Time
//!
//! Every time is an integer number of ticks ([`Ticks`]); one simulated time unit (the
//! unit of instruction costs and of `--quantum`) is [`TICKS_PER_UNIT`] = 1000 ticks, fine
//! enough for fractional costs such as those of `--vary-speed`. The header repeats the
//! factor ([`RunHeader::ticks_per_unit`]) so readers never hard-code it.
//!
//! # Order
//!
//! Events appear in non-decreasing order of [`Event::time`]; events with equal times keep
//! the order in which the simulator produced them. An interval ([`Event::Busy`],
//! [`Event::Hop`]) is keyed by its *end*: it is only known to be complete when it ends,
//! so keying it by its start would force the producer to hold back every later event.
//!
//! # Compatibility
//!
//! postcard encodes an enum variant as its position, so variants (of [`Event`],
//! [`ProcState`], [`Reason`], [`MsgPurpose`], [`BusyClass`], [`ExitStatus`]) are
//! append-only: a new kind goes at the end, with a minor version bump, and an existing
//! variant's fields never change.
use serde::{Deserialize, Serialize};

use crate::time::{Ticks, TICKS_PER_UNIT};

/// A channel declared by the program: its name and array dimensions (empty for a scalar
/// channel). Element `index` of an event is the row-major flattening of the subscripts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelDecl {
    /// The channel's identifier in the source.
    pub name: String,
    /// Sizes of its dimensions, outermost first.
    pub dims: Vec<u32>,
}

/// Everything that shaped the run, written before the first event. With it a reader can
/// name every processor, process function, channel and probe label, and re-run the same
/// configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunHeader {
    /// Name and version of the tool that wrote the record, e.g. `cpss 0.1.0`.
    pub tool_version: String,
    /// The program's name (the `.cod` file stem, or `-` for stdin).
    pub program: String,
    /// The main source file's name as the compiler saw it.
    pub source_name: String,
    /// The main source text, so that per-line reports can quote lines (may be empty).
    pub source: String,
    /// The physical topology as a `TOPO:SIZES` string (`mesh:8x8`) or `machine:FILE`.
    pub topology: String,
    /// The virtual topology as a `TOPO:SIZES` string (empty when the program has none).
    pub virtual_topology: String,
    /// The mapping table: entry `v` is the physical processor of virtual processor `v`.
    pub mapping: Vec<u32>,
    /// Number of physical processors; every `pproc` in an event is below it.
    pub pprocs: u32,
    /// The network model's name (`wormhole`, `packet`, `shortest-path`).
    pub network: String,
    /// Network parameters as `(flag name, value with unit)`, in the order cpss lists them,
    /// then (records of cpss 0.1 from minor version 3 on) `(`[`LINKS_PARAM`]`, m)`: the
    /// number of directed links of the physical network, parallel links counted each
    /// ([`RunHeader::network_links`]).
    pub network_params: Vec<(String, String)>,
    /// The cost table in effect: `(mnemonic, cost in time units)`.
    pub costs: Vec<(String, u32)>,
    /// The run's seed (`--seed`).
    pub seed: u64,
    /// The quantum in ticks.
    pub quantum_ticks: Ticks,
    /// Ticks per time unit ([`TICKS_PER_UNIT`] for records written by this version).
    pub ticks_per_unit: Ticks,
    /// Other options that shaped the run (`--vary-speed`, limits, …) as `(name, value)`.
    pub options: Vec<(String, String)>,
    /// Function names; [`Event::ProcCreate::function`] indexes this table.
    pub functions: Vec<String>,
    /// Channels; `channel` fields index this table.
    pub channels: Vec<ChannelDecl>,
    /// Probe labels known before the run; [`Event::Label`] appends more.
    pub labels: Vec<String>,
}

impl Default for RunHeader {
    /// An empty configuration with the current tick resolution and the default quantum
    /// of 10 time units, for producers to fill in.
    fn default() -> Self {
        RunHeader {
            tool_version: String::new(),
            program: String::new(),
            source_name: String::new(),
            source: String::new(),
            topology: String::new(),
            virtual_topology: String::new(),
            mapping: Vec::new(),
            pprocs: 0,
            network: String::new(),
            network_params: Vec::new(),
            costs: Vec::new(),
            seed: 0,
            quantum_ticks: 10 * TICKS_PER_UNIT,
            ticks_per_unit: TICKS_PER_UNIT,
            options: Vec::new(),
            functions: Vec::new(),
            channels: Vec::new(),
            labels: Vec::new(),
        }
    }
}

/// The [`RunHeader::network_params`] entry that holds the network's directed link count.
pub const LINKS_PARAM: &str = "links";

impl RunHeader {
    /// The network's number of directed links, when the header states it (the m of the
    /// network load, seed 003 §3.3).
    pub fn network_links(&self) -> Option<u64> {
        self.network_params.iter().find(|(k, _)| k == LINKS_PARAM).and_then(|(_, v)| v.parse().ok())
    }

    /// Why this header cannot head a run record, if it cannot: analysers divide by the
    /// tick resolution and index processors by the mapping table.
    pub fn check(&self) -> Result<(), String> {
        if self.ticks_per_unit == 0 {
            return Err("ticks per time unit is 0".into());
        }
        if let Some((v, p)) = self.mapping.iter().enumerate().find(|&(_, &p)| p >= self.pprocs) {
            return Err(format!(
                "the mapping puts virtual processor {v} on physical processor {p}, but there are {} physical processors",
                self.pprocs
            ));
        }
        Ok(())
    }

    /// The name of function `index`, if the table has it.
    pub fn function_name(&self, index: u32) -> Option<&str> {
        self.functions.get(index as usize).map(String::as_str)
    }

    /// The declaration of channel `index`, if the table has it.
    pub fn channel(&self, index: u32) -> Option<&ChannelDecl> {
        self.channels.get(index as usize)
    }
}

/// A process's scheduling state (SPEC §4 "Process states").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProcState {
    /// Runnable, waiting for its processor.
    Ready,
    /// Executing instructions.
    Running,
    /// Waiting for a message, a child or a remote read.
    Blocked,
    /// Sleeping in `delay(t)`.
    Delayed,
    /// Busy-waiting for a spinlock.
    Spinning,
    /// Finished.
    Ended,
}

impl ProcState {
    /// Every state in declaration order. A state's place here is its number both in the
    /// run record (postcard writes a variant's index) and in SDDF's `state` field.
    pub const ALL: [ProcState; 6] = [
        ProcState::Ready,
        ProcState::Running,
        ProcState::Blocked,
        ProcState::Delayed,
        ProcState::Spinning,
        ProcState::Ended,
    ];

    /// Its number: its place in [`Self::ALL`].
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The state numbered `code`, if any.
    pub fn from_code(code: u64) -> Option<ProcState> {
        usize::try_from(code).ok().and_then(|i| Self::ALL.get(i)).copied()
    }
}

/// Why a process entered its state: the one type for why a process waits, used by the
/// simulator for its own processes (`sim::engine`), in its events to observers and the
/// debugger, in the run record, and by the importers of other traces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reason {
    /// No particular reason (started running, was woken).
    None,
    /// Waiting to receive from element `index` of channel `channel`.
    Channel {
        /// Index into [`RunHeader::channels`].
        channel: u32,
        /// Row-major element index.
        index: u32,
    },
    /// Waiting in `join` for a forked child.
    Join,
    /// Waiting for the children of a `forall`.
    Forall,
    /// Waiting for the spinlock at word address `lock`.
    Lock {
        /// Address of the lock variable.
        lock: u32,
    },
    /// Waiting for the round trip of a read of a word owned by processor `owner`.
    RemoteRead {
        /// Physical processor that owns the word.
        owner: u32,
    },
    /// Sleeping in `delay` until tick `until`.
    Delay {
        /// Wake-up time.
        until: Ticks,
    },
    /// Its quantum ended: moved from Running back to Ready.
    Quantum,
    /// Waiting for its unjoined forked children before it ends.
    Children,
}

impl Reason {
    /// One reason of each kind, in declaration order (its place is its [`Reason::code`]).
    pub const EACH: [Reason; 9] = [
        Reason::None,
        Reason::Channel { channel: 0, index: 0 },
        Reason::Join,
        Reason::Forall,
        Reason::Lock { lock: 0 },
        Reason::RemoteRead { owner: 0 },
        Reason::Delay { until: 0 },
        Reason::Quantum,
        Reason::Children,
    ];

    /// Its number: its place in the declaration, which is its number in the run record
    /// (postcard writes a variant's index) and in SDDF's `reason` field.
    pub const fn code(self) -> u8 {
        match self {
            Reason::None => 0,
            Reason::Channel { .. } => 1,
            Reason::Join => 2,
            Reason::Forall => 3,
            Reason::Lock { .. } => 4,
            Reason::RemoteRead { .. } => 5,
            Reason::Delay { .. } => 6,
            Reason::Quantum => 7,
            Reason::Children => 8,
        }
    }

    /// Its one detail word, as SDDF's `detail` field has it: the channel element (the
    /// caller numbers elements across channels), the lock's address, the owner of the
    /// word read, the wake time; 0 for the others.
    pub fn detail(self, element: impl FnOnce(u32, u32) -> u64) -> u64 {
        match self {
            Reason::Channel { channel, index } => element(channel, index),
            Reason::Lock { lock } => u64::from(lock),
            Reason::RemoteRead { owner } => u64::from(owner),
            Reason::Delay { until } => until,
            Reason::None | Reason::Join | Reason::Forall | Reason::Quantum | Reason::Children => 0,
        }
    }

    /// The reason numbered `code` with its detail word (a channel element becomes element
    /// `detail` of channel 0: one detail word cannot tell more), if `code` is one.
    pub fn from_code(code: u64, detail: u64) -> Option<Reason> {
        let d32 = u32::try_from(detail).unwrap_or(u32::MAX);
        Some(match code {
            0 => Reason::None,
            1 => Reason::Channel { channel: 0, index: d32 },
            2 => Reason::Join,
            3 => Reason::Forall,
            4 => Reason::Lock { lock: d32 },
            5 => Reason::RemoteRead { owner: d32 },
            6 => Reason::Delay { until: detail },
            7 => Reason::Quantum,
            8 => Reason::Children,
            _ => return None,
        })
    }
}

/// What a message carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MsgPurpose {
    /// A value written to element `index` of channel `channel`.
    Channel {
        /// Index into [`RunHeader::channels`].
        channel: u32,
        /// Row-major element index.
        index: u32,
    },
    /// The request of a remote read of word `addr`.
    RemoteRead {
        /// Word address.
        addr: u32,
    },
    /// The reply carrying the word read.
    RemoteReply {
        /// Word address.
        addr: u32,
    },
    /// A remote write of word `addr`.
    RemoteWrite {
        /// Word address.
        addr: u32,
    },
}

/// Whether busy time was sequential work or parallel overhead (the instruction classes
/// of [`crate::vcode::isa`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum BusyClass {
    /// Sequential work: counts towards Sequential Execution Time.
    Work,
    /// Parallel overhead: fork, forall, join, send, receive, lock.
    Overhead,
}

/// One thing that happened during the run. Process ids, processor ids and message ids
/// are the simulator's; indices refer to the tables of [`RunHeader`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// A process was created (seed 003's `proc_init`).
    ProcCreate {
        /// Creation time.
        time: Ticks,
        /// The creating process; `None` for process 0.
        parent: Option<u32>,
        /// The new process.
        pid: u32,
        /// Its virtual processor, when it was placed on one.
        vproc: Option<u32>,
        /// Its physical processor.
        pproc: u32,
        /// The function it runs: index into [`RunHeader::functions`].
        function: u32,
        /// Source line of the `fork`/`forall` (0 for process 0).
        line: u32,
    },
    /// A process ended (`proc_exit`).
    ProcEnd {
        /// End time.
        time: Ticks,
        /// The process.
        pid: u32,
    },
    /// A process changed state.
    State {
        /// Time of the change.
        time: Ticks,
        /// The process.
        pid: u32,
        /// The new state.
        state: ProcState,
        /// Why.
        reason: Reason,
    },
    /// A message left its sender (`msg_send`).
    MsgSend {
        /// Send time.
        time: Ticks,
        /// Message id, unique in the run.
        msg: u64,
        /// Sending process.
        src_pid: u32,
        /// Sender's physical processor.
        src_pproc: u32,
        /// Receiving process (the channel's owner); `None` for remote memory traffic,
        /// which goes to a processor rather than a process.
        dst_pid: Option<u32>,
        /// Destination physical processor.
        dst_pproc: u32,
        /// What it carries.
        purpose: MsgPurpose,
        /// Payload size in bytes.
        bytes: u32,
        /// Source line of the send.
        line: u32,
    },
    /// A message reached its destination processor (`msg_arr`).
    MsgArrive {
        /// Arrival time.
        time: Ticks,
        /// Message id.
        msg: u64,
        /// Destination processor (repeated so that converters need no send table).
        dst_pproc: u32,
    },
    /// A process evaluated a channel read (`recv_call`).
    RecvCall {
        /// Time of the call.
        time: Ticks,
        /// Receiving process.
        pid: u32,
        /// Its physical processor.
        pproc: u32,
        /// Index into [`RunHeader::channels`].
        channel: u32,
        /// Row-major element index.
        index: u32,
        /// Source line of the read.
        line: u32,
    },
    /// A channel read completed with message `msg`.
    RecvDone {
        /// Completion time.
        time: Ticks,
        /// Receiving process.
        pid: u32,
        /// Its physical processor.
        pproc: u32,
        /// The message consumed.
        msg: u64,
        /// The message's sender (repeated from its send, for converters).
        src_pid: u32,
        /// The message's size in bytes.
        bytes: u32,
    },
    /// A message (or one of its packets) crossed one link (`--trace-routes`).
    Hop {
        /// Message id.
        msg: u64,
        /// Packet number within the message (0 for wormhole and single-packet messages).
        packet: u32,
        /// Physical processor the link leaves.
        from: u32,
        /// Physical processor the link enters.
        to: u32,
        /// When the head entered the link.
        enter: Ticks,
        /// When the tail left it; the event's time.
        leave: Ticks,
    },
    /// A `probe(id, "label")` statement ran.
    Probe {
        /// Time.
        time: Ticks,
        /// Process.
        pid: u32,
        /// Its physical processor.
        pproc: u32,
        /// The user's probe id.
        id: i32,
        /// The label: index into the label table ([`RunHeader::labels`], then the
        /// [`Event::Label`] definitions in order).
        label: u32,
    },
    /// Defines probe label `index`, which must be the next free index of the label table.
    Label {
        /// Time of the definition (the first probe that used it).
        time: Ticks,
        /// The new index.
        index: u32,
        /// The label's text.
        text: String,
    },
    /// `timeOff()`: the process's instructions cost nothing until `timeOn()`.
    TimeOff {
        /// Time.
        time: Ticks,
        /// Process.
        pid: u32,
    },
    /// `timeOn()`.
    TimeOn {
        /// Time.
        time: Ticks,
        /// Process.
        pid: u32,
    },
    /// Processor `pproc` executed process `pid`'s instructions of source line `line`
    /// from `start` to `end`. Intervals of one processor never overlap; their lengths
    /// sum to its busy time, and grouped by `(pid, line)` they attribute it to lines.
    Busy {
        /// Physical processor.
        pproc: u32,
        /// Process.
        pid: u32,
        /// Start of the interval.
        start: Ticks,
        /// End of the interval; the event's time.
        end: Ticks,
        /// Source line (of the main source file; 0 in an included file) of the
        /// instruction the turn ended on ([`Event::LineCost`] has exact per-line times).
        line: u32,
        /// Sequential work or parallel overhead.
        class: BusyClass,
    },
    /// The busy time of one source line over the whole run (every process, every
    /// processor), written once per line with busy time at the end of the run, in line
    /// order (record minor version 1). Per-line totals are exact where [`Event::Busy`]
    /// intervals, one per turn of a process, cannot say which lines a turn ran.
    LineCost {
        /// The end of the run.
        time: Ticks,
        /// Source line (1-based) of the main source file.
        line: u32,
        /// Busy ticks of the line's sequential-work instructions.
        work: Ticks,
        /// Busy ticks of the line's parallel-overhead instructions.
        overhead: Ticks,
    },
    /// The network resolved a cycle of blocked packets (record minor version 2): packet
    /// `packet` of message `msg`, whose head waited at processor `pproc`, left the lanes
    /// for the recovery channel (`cpss --deadlock resolve`, man page).
    Deadlock {
        /// When the cycle was found.
        time: Ticks,
        /// The message (its [`Event::MsgSend`] id; `u64::MAX` for memory or process-creation traffic).
        msg: u64,
        /// The packet's number within the message.
        packet: u32,
        /// Where its head waited.
        pproc: u32,
    },
    /// Process `pid` entered function `function` by a call (record minor version 3; seed
    /// 001's procedure entry). A process's own function (that of its
    /// [`Event::ProcCreate`]) is entered at its creation without an event.
    Enter {
        /// When the callee's first instruction starts (after the call instruction).
        time: Ticks,
        /// The process.
        pid: u32,
        /// The function: index into [`RunHeader::functions`].
        function: u32,
    },
    /// Process `pid` returned from function `function` (record minor version 3; seed
    /// 001's procedure exit), entered by the matching [`Event::Enter`]. A process's own
    /// function is left at its [`Event::ProcEnd`], as is every call still open then.
    Leave {
        /// When the return instruction ends.
        time: Ticks,
        /// The process.
        pid: u32,
        /// The function left: index into [`RunHeader::functions`].
        function: u32,
    },
}

impl Event {
    /// The time that orders the record: the event's instant, or an interval's end.
    pub fn time(&self) -> Ticks {
        match *self {
            Event::ProcCreate { time, .. }
            | Event::ProcEnd { time, .. }
            | Event::State { time, .. }
            | Event::MsgSend { time, .. }
            | Event::MsgArrive { time, .. }
            | Event::RecvCall { time, .. }
            | Event::RecvDone { time, .. }
            | Event::Probe { time, .. }
            | Event::Label { time, .. }
            | Event::TimeOff { time, .. }
            | Event::TimeOn { time, .. }
            | Event::LineCost { time, .. }
            | Event::Deadlock { time, .. }
            | Event::Enter { time, .. }
            | Event::Leave { time, .. } => time,
            Event::Hop { leave, .. } => leave,
            Event::Busy { end, .. } => end,
        }
    }

    /// The physical processors the event names: where it happened first (a message's
    /// sender, a link crossing's start), then its other end, if any.
    pub fn processors(&self) -> [Option<u32>; 2] {
        match *self {
            Event::ProcCreate { pproc, .. }
            | Event::RecvCall { pproc, .. }
            | Event::RecvDone { pproc, .. }
            | Event::Probe { pproc, .. }
            | Event::Busy { pproc, .. }
            | Event::Deadlock { pproc, .. } => [Some(pproc), None],
            Event::MsgSend { src_pproc, dst_pproc, .. } => [Some(src_pproc), Some(dst_pproc)],
            Event::MsgArrive { dst_pproc, .. } => [Some(dst_pproc), None],
            Event::Hop { from, to, .. } => [Some(from), Some(to)],
            _ => [None, None],
        }
    }

    /// The time [`Event::time`] reads, to change it (a window shifts events with it).
    pub fn time_mut(&mut self) -> &mut Ticks {
        match self {
            Event::ProcCreate { time, .. }
            | Event::ProcEnd { time, .. }
            | Event::State { time, .. }
            | Event::MsgSend { time, .. }
            | Event::MsgArrive { time, .. }
            | Event::RecvCall { time, .. }
            | Event::RecvDone { time, .. }
            | Event::Probe { time, .. }
            | Event::Label { time, .. }
            | Event::TimeOff { time, .. }
            | Event::TimeOn { time, .. }
            | Event::LineCost { time, .. }
            | Event::Deadlock { time, .. }
            | Event::Enter { time, .. }
            | Event::Leave { time, .. } => time,
            Event::Hop { leave, .. } => leave,
            Event::Busy { end, .. } => end,
        }
    }

    /// The event kind's name as `--events` filters and error messages spell it.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Event::ProcCreate { .. } => "proc_init",
            Event::ProcEnd { .. } => "proc_exit",
            Event::State { .. } => "state",
            Event::MsgSend { .. } => "msg_send",
            Event::MsgArrive { .. } => "msg_arr",
            Event::RecvCall { .. } => "recv_call",
            Event::RecvDone { .. } => "recv_done",
            Event::Hop { .. } => "hop",
            Event::Probe { .. } => "probe",
            Event::Label { .. } => "label",
            Event::TimeOff { .. } => "time_off",
            Event::TimeOn { .. } => "time_on",
            Event::Busy { .. } => "busy",
            Event::LineCost { .. } => "line_cost",
            Event::Deadlock { .. } => "deadlock",
            Event::Enter { .. } => "proc_enter",
            Event::Leave { .. } => "proc_leave",
        }
    }
}

/// How the run ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ExitStatus {
    /// Process 0 returned from `main`.
    #[default]
    Ok,
    /// A runtime error stopped the run.
    RuntimeError,
    /// Nothing could run and nothing was in flight, or packets in the network blocked
    /// each other in a cycle.
    Deadlock,
    /// A limit (`--max-time`, `--max-steps`, `--alarm`, memory) stopped the run.
    Limit,
}

/// The final statistics (SPEC §4 "Statistics"). Host time is deliberately absent: it
/// differs between runs, and a record must be byte-identical for identical inputs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunStats {
    /// Sequential Execution Time: ticks of sequential-work instructions while time was on.
    pub seq_ticks: Ticks,
    /// Parallel Execution Time: the global clock at the end.
    pub par_ticks: Ticks,
    /// Physical processors that ran at least one instruction.
    pub pprocs_used: u32,
    /// Busy ticks of each physical processor, indexed by `pproc`.
    pub busy_ticks: Vec<Ticks>,
    /// Processes created, process 0 included.
    pub processes: u64,
    /// Messages sent.
    pub messages: u64,
    /// Payload bytes sent.
    pub bytes: u64,
    /// Sum over messages of arrival time − send time; average = this / `messages`, or /
    /// `latency_messages` when set.
    /// Wider than one latency (postcard writes it as the same varint as a `u64` below
    /// 2^64, so records stay readable both ways).
    pub total_latency_ticks: crate::time::Total,
    /// How many messages `total_latency_ticks` covers when that is not `messages`: a
    /// time window's messages sent inside it of which only those that also arrive inside
    /// it have a latency there. Not part of the run record (a whole run's latency covers
    /// every message).
    #[serde(skip)]
    pub latency_messages: Option<u64>,
    /// vCode instructions executed.
    pub instructions: u64,
    /// How the run ended.
    pub exit: ExitStatus,
    /// The runtime error, deadlock report or limit message (empty when `exit` is Ok).
    pub message: String,
}

/// The last record: final statistics, the number of events before it and the checksum
/// of every byte before the checksum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Footer {
    /// The final statistics.
    pub stats: RunStats,
    /// Number of [`Event`] records in the file.
    pub event_count: u64,
    /// CRC-32 (IEEE) of every byte of the file before this field.
    pub crc: u32,
}
