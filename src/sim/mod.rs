//! `cpss`'s core: the vCode interpreter, processes, memory, channels, the quantum time
//! model and the statistics (seed 000 §3.2.2, §4.1.4–4.1.5, §4.2.1, §4.2.5).
//!
//! Depends on `vcode` (the program) and `net` (message latency); nothing in the crate
//! upstream of the simulator (`lang`) may depend on it.
//!
//! # Time
//!
//! Simulated time is an integer count of ticks, 1000 per time unit. Each physical
//! processor has a speed in ticks per time unit (1000 by default), so an instruction of
//! cost `c` units advances its process's local clock by `c * speed` ticks (when time is
//! on). The run proceeds in quanta of `q` units: in each quantum every physical
//! processor, in id order, runs its runnable processes round-robin (a process goes to
//! the back of its processor's queue after each turn). A turn starts at
//! `max(processor clock, process wake time)` and lasts until the local clock reaches the
//! quantum's end, the process blocks, or it ends; an instruction may overrun the end and
//! the overrun is carried into the processor's next quantum. Then the global clock
//! advances by `q`. A blocked process has a wake time when the event it waits for is
//! known (message arrival, end of a delay, reply of a remote read, end of a child) and
//! runs again in the first quantum whose end is past that time; blocking instructions
//! (`RECV`, `JOIN`, `LOCK`) are re-executed when the process wakes and are charged
//! only when they complete. After a quantum in which nothing ran, the global clock jumps
//! to the quantum containing the earliest wake time: the skipped quanta would have run
//! nothing, so results are identical to stepping (tested), and idle time costs O(1)
//! host time. Parallel Execution Time is the global clock at the end of the quantum in
//! which process 0 ends.
//!
//! # Memory
//!
//! One flat pool of [`Word`](crate::vcode::Word)s with a parallel owner array (the
//! physical processor owning each word, seed 000 Figure 6). Globals are at
//! `0..globals_words`, owned by process 0's processor. Each process's frames live in
//! segments of the pool owned by its processor: the first holds just its bottom frame
//! (an idle process costs no more pool than that), each later one at least
//! `segment_words`. A segment is taken from the returned ones (the shortest that fits)
//! or the top of the pool, and returned when its frames are popped or the process ends;
//! a frame never straddles segments so frame addresses are stable pool addresses. The
//! working stack is a per-process `Vec`. The pool may not exceed `max_memory` words.
//!
//! A read by a process of a word owned by another physical processor is a remote read:
//! the value is taken when the instruction executes and the process blocks (state
//! Blocked, reason remote read) until a request of 4 bytes and a reply of `4 * words`
//! bytes have crossed the network. A remote write is posted: it takes effect at once and
//! sends one message of `4 + 4 * words` bytes without blocking. `printf`/`scanf` strings
//! and spinlock words are accessed without remote charges.
//!
//! # Processes
//!
//! Process 0 runs `main` on the physical processor of virtual processor 0. `FORALL`
//! creates one child per index (or per group of `g` consecutive indices, run in order by
//! one child), placed by the default allocation (fewest live processes, ties to the
//! lowest id), and blocks the parent until all have ended. `FORK` places its child on
//! `mapping[V]` or by the default allocation; the channel elements listed become the
//! child's. A child starts with a copy of its creator's display for the depths below its
//! function's. `JOIN` waits for one ended, unjoined forked child (an error when there is
//! none alive or ended). A process returning from its bottom frame (or `main` at `HALT`)
//! first waits for its unjoined forked children. The program ends when process 0 ends;
//! processes still alive then are abandoned.
//!
//! Blocks made by `CopyToNewBlock` (struct results) are never returned to the pool.
//!
//! # Instructions beyond the ISA comments
//!
//! `PRINTF`/`FPRINTF` push the number of bytes written (the compiler types `printf` as
//! `int` and pops the result of an expression statement), `FOPEN` pushes a handle
//! (1-based index in the run's file table, 0 on failure) and `FCLOSE` 0 (-1 for a bad
//! handle). `srand(n)` reseeds the generator with `n` as an unsigned 32-bit number. While
//! time is off a process's clock does not advance, so a loop with time off runs until
//! `max_steps` stops it.
//!
//! # Scheduling cost
//!
//! Each processor keeps a lower bound of its processes' wake times; a heap of those
//! bounds decides which processors a quantum visits (and a bit set with summaries holds
//! those of the current quantum), so a quantum costs in proportion to the processors
//! that have something to do, not to the machine size. Within a processor, a short run
//! queue is scanned at each turn; once it holds more than `queue_index_at` processes
//! (32) it is indexed by wake time and round-robin order, so a turn costs a few tree
//! operations whatever the number of processes (same choices: tested on every fixture).
//! Creating a process costs logarithmic time in the processors (the default allocation
//! keeps a tree of live counts) and in the returned memory segments.
//!
//! # Observing a run
//!
//! [`Simulator::set_observer`] receives every process creation and end, run interval,
//! block, message send and receive, probe and timeOn/timeOff ([`SimEvent`]); without an
//! observer no event is built. [`Simulator::processes`] is the process table.
//!
//! # Channels
//!
//! Each channel element word has an owner (process 0 unless a `FORK` listed it) and a
//! queue of messages ordered by (arrival time, send sequence). `SEND` is non-blocking;
//! it hands `4 * msg_words` bytes from the sender's to the owner's processor to the
//! network at `t`, the sender's clock after the `SEND`. A closed-form network answers
//! with the arrival time at once; a contention network (`net`) keeps the message and
//! hands it back, with its arrival time, when it processes the quantum in which it
//! arrives (at the quantum's end), so the owner can receive it from the next quantum on.
//! Messages from one sender on one element are delivered in send order, none before the
//! one sent before it. `RECV` by the owner takes the first message whose arrival time
//! has passed, or blocks until it has. Remote reads and writes cross the network the
//! same way (a read's reply leaves when its request arrives). When nothing can run,
//! the global clock jumps to the earlier of the next wake-up and the network's next
//! event; messages stuck in the network with nothing moving end the run as a network
//! deadlock.
pub mod calibrate;
pub mod debug;
mod engine;
pub mod format;
pub mod groups;
mod least_loaded;
mod memory;
pub mod observe;
pub mod params;
pub mod recorder;
pub mod rng;
pub mod run;
pub mod setup;
mod stats;
mod stream;

use crate::time::{Ticks, TICKS_PER_UNIT};
pub use crate::vcode::cost::{parse_override, CostError, CostTable, TickCosts};
pub use engine::{CallFrame, ChannelView, DebugHook, Quit, Simulator, Stop};
pub use observe::{Observer, ProcState, ProcessStatus, RemoteKind, SimEvent};
pub use stats::{RunConfig, Stats, STATS_SCHEMA_VERSION};
use std::io::{BufRead, Write};

/// Configuration of a run.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// Quantum in ticks (default 10 units).
    pub quantum: Ticks,
    /// Instruction costs.
    pub costs: CostTable,
    /// Per physical processor (by id), its own instruction costs in ticks: the timings of
    /// its processor type in a machine description, sampled for this run, and scaled by
    /// `--scale-costs`. Missing entries (all of them when empty) use `costs`.
    pub proc_costs: Vec<std::sync::Arc<TickCosts>>,
    /// Virtual processor → physical processor. Empty: virtual processor `v` runs on
    /// physical processor `v mod pprocs`.
    pub mapping: Vec<u32>,
    /// Number of physical processors.
    pub pprocs: u32,
    /// Speed of each physical processor in ticks per time unit (missing entries: 1000).
    pub speeds: Vec<Ticks>,
    /// Seed of `rand()`.
    pub seed: u64,
    /// The work of evaluating a fork's function arguments is the child's: the parent's
    /// clock does not advance for it, the child starts that much later (`--fork-args
    /// child`; the default, false, is `--fork-args parent`).
    pub fork_args_child: bool,
    /// The program's command line (`argv`, its name first) when `main` takes
    /// `(int argc, char **argv)`; empty: the program's source name alone.
    pub program_args: Vec<String>,
    /// The program's environment (`getenv`), in the order given; a later value of a
    /// name wins. Empty by default: a run never sees the host's environment.
    pub program_env: Vec<(String, String)>,
    /// MPI ranks (`cpss --ranks`): processes 0..ranks-1 each run `main` from time 0 with
    /// their own globals; 0 or 1: `main` alone, as process 0.
    pub ranks: u32,
    /// Stop with a limit error when the global clock passes this (ticks).
    pub max_time: Option<Ticks>,
    /// Stop with a limit error after this many instructions.
    pub max_steps: Option<u64>,
    /// Most processes alive at once.
    pub max_procs: u32,
    /// Most words in the memory pool.
    pub max_memory: u32,
    /// Most messages sent and not yet received at once (each holds host memory; beyond:
    /// [`Limit::Messages`]).
    pub max_messages: u64,
    /// Most words in those messages at once (a flood of large structs exhausts host
    /// memory long before the count limit).
    pub max_message_words: u64,
    /// Most bytes the program may write (standard output, standard error and its files
    /// together); the write that would pass it is cut there and the run stops with
    /// [`Limit::ProgramOutput`].
    pub max_output: u64,
    /// Most frame words of one process (beyond: stack overflow).
    pub max_stack_words: u32,
    /// Smallest frame segment allocated for a process, in words.
    pub segment_words: u32,
    /// Stop at this simulated time (ticks) and report the statistics so far.
    pub alarm: Option<Ticks>,
    /// Jump over idle quanta (false only to test that skipping changes nothing).
    pub skip_idle: bool,
    /// A processor whose run queue grows past this many processes keeps it indexed from
    /// then on (choosing the next process in logarithmic time instead of a look at each;
    /// the same choices either way). Tests set 0 to index every queue.
    pub queue_index_at: usize,
    /// Record a utilization profile with rows of this many ticks (`--profile STEP`).
    pub profile_step: Option<Ticks>,
    /// Have the network record every link crossing for the observer (`--trace-routes`).
    pub trace_routes: bool,
    /// Have the network count each link's busy time for the statistics (`--link-stats`).
    pub link_stats: bool,
    /// Whether to run a contention network ahead of the processors on a second thread
    /// (`--threads`); the results are the same either way.
    pub net_thread: NetThread,
    /// Watched from outside while the run goes on: progress for a display, and a flag
    /// that ends the run at the next quantum boundary ([`Limit::Interrupted`]).
    pub watch: Option<std::sync::Arc<Watch>>,
    /// The sandbox folder, resolved (`cpss`: the working folder, or `--sandbox DIR`): the
    /// program's `fopen` reaches only files inside it (others are a runtime error);
    /// `None` (`cpss --trust`, the library's default): any file the user may open.
    pub sandbox: Option<std::path::PathBuf>,
    /// `cpss --phase-mapping`: when a probe with this label (or the `#N`-th probe of the
    /// run) runs, later processes are placed by this mapping table.
    pub phase_mappings: Vec<(String, Vec<u32>)>,
    /// The run's virtual and physical architectures, for CPC's `mapping("SPEC")`.
    pub topologies: Option<std::sync::Arc<(crate::topo::Topology, crate::topo::Topology)>>,
    /// Time before the main process starts (a machine file's topology creation time):
    /// the main process begins delayed until then, which adds it to the parallel time.
    pub start_delay: Ticks,
}

/// A run's progress, published at every quantum boundary for another thread to read
/// (the tools' progress line), and a stop request read there (`^C`). Relaxed atomics:
/// the figures are for display and the request takes effect within a quantum.
#[derive(Debug)]
pub struct Watch {
    /// Set (by a signal handler, say) to end the run.
    pub stop: &'static std::sync::atomic::AtomicBool,
    /// The global clock, ticks.
    pub time: std::sync::atomic::AtomicU64,
    /// Instructions executed.
    pub instructions: std::sync::atomic::AtomicU64,
    /// Processes alive.
    pub alive: std::sync::atomic::AtomicU64,
}

impl Watch {
    /// A watch whose stop request is `stop`.
    pub fn new(stop: &'static std::sync::atomic::AtomicBool) -> Watch {
        Watch { stop, time: 0.into(), instructions: 0.into(), alive: 0.into() }
    }
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            quantum: 10 * TICKS_PER_UNIT,
            costs: CostTable::default(),
            proc_costs: Vec::new(),
            mapping: Vec::new(),
            pprocs: 16,
            speeds: Vec::new(),
            fork_args_child: false,
            program_args: Vec::new(),
            program_env: Vec::new(),
            ranks: 1,
            seed: 0,
            max_time: None,
            max_steps: None,
            // A process costs about 12 KB of host memory: 65536 of them stay near 1 GB.
            max_procs: 1 << 16,
            max_memory: 1 << 28,
            // About 100 bytes of host memory each: 4 Mi messages stay near 400 MB.
            max_messages: 1 << 22,
            // 16 bytes each: 2^25 words stay near 512 MB.
            max_message_words: 1 << 25,
            max_output: u64::MAX,
            max_stack_words: 1 << 22,
            segment_words: 1024,
            queue_index_at: 32,
            alarm: None,
            skip_idle: true,
            profile_step: None,
            trace_routes: false,
            link_stats: false,
            net_thread: NetThread::Off,
            watch: None,
            sandbox: None,
            start_delay: 0,
            phase_mappings: Vec::new(),
            topologies: None,
        }
    }
}

/// The network's own thread ([`SimConfig::net_thread`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NetThread {
    /// Everything on one thread.
    #[default]
    Off,
    /// When the host has two processors or more, in the quanta where it is measured to
    /// be faster.
    Auto,
    /// In every quantum where the network has work ahead (to test that it changes nothing).
    Always,
}

/// The program's standard input and output.
pub struct Io {
    pub stdin: Box<dyn BufRead>,
    pub stdout: Box<dyn Write>,
    /// What the program writes to `stderr`.
    pub stderr: Box<dyn Write>,
}

impl Io {
    /// The host's standard input, output and error.
    pub fn std() -> Io {
        Io {
            stdin: Box::new(std::io::BufReader::new(std::io::stdin())),
            stdout: Box::new(std::io::stdout()),
            stderr: Box::new(std::io::stderr()),
        }
    }
}

/// Why a runtime error happened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuntimeError {
    #[error("division by zero")]
    DivisionByZero,
    #[error("index {index} out of bounds (array of {len})")]
    IndexOutOfBounds { index: i32, len: u32 },
    #[error("bad address {addr}")]
    BadAddress { addr: i64 },
    #[error("null pointer dereference")]
    NullPointer,
    #[error("call through a null function pointer")]
    NullFunction,
    #[error("mapping `{spec}`: {message}")]
    Mapping { spec: String, message: String },
    #[error("a union member read as {wanted} holds a {found}: members do not reinterpret each other's bytes here")]
    UnionPun { wanted: &'static str, found: &'static str },
    #[error("stack overflow (more than {limit} frame words)")]
    StackOverflow { limit: u32 },
    #[error("process {reader} reads channel {channel} owned by process {owner}")]
    NotOwner { reader: u32, owner: u32, channel: String },
    #[error("address {addr} is not a channel element")]
    NotAChannel { addr: i64 },
    #[error("join with no forked child to wait for")]
    NothingToJoin,
    #[error("virtual processor {vproc} does not exist (the mapping has {count})")]
    BadVproc { vproc: i64, count: u32 },
    #[error("bad file handle {handle}")]
    BadFile { handle: i64 },
    #[error("{function} writes {words} words at address {addr}, past the end of its object ({room} words from there)")]
    Overflow { function: &'static str, addr: i64, words: u64, room: u64 },
    #[error(
        "fopen of `{path}`, which is outside the sandbox {root} (the working folder unless --sandbox DIR; --trust lifts it)"
    )]
    Sandbox { path: String, root: String },
    #[error("output error: {message}")]
    Output { kind: std::io::ErrorKind, message: String },
    #[error("{message}")]
    Format { message: String },
    #[error("malformed code: {message}")]
    BadCode { message: String },
    #[error("free or realloc of address {addr}, which malloc did not return (or was freed already)")]
    BadFree { addr: i64 },
}

/// What a blocked process waits for (for deadlock reports).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiter {
    pub pid: u32,
    pub vproc: u32,
    pub pproc: u32,
    pub function: String,
    /// The program's source file.
    pub file: String,
    pub line: u32,
    /// E.g. `receive on channel c[3]`, `join`, `forall children`, `lock at 12`.
    pub waits_for: String,
    /// Its MPI rank, in a run of several (`cpss --ranks`).
    pub rank: Option<u32>,
}

impl std::fmt::Display for Waiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(r) = self.rank {
            write!(f, "rank {r} (process {}, ", self.pid)?;
        } else {
            write!(f, "process {} (", self.pid)?;
        }
        write!(
            f,
            "vproc {}, pproc {}) in {} at {}:{}: waiting for {}",
            self.vproc, self.pproc, self.function, self.file, self.line, self.waits_for
        )
    }
}

/// Which limit was hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    Time,
    Steps,
    Procs,
    Memory,
    /// Too many messages sent and not received.
    Messages,
    /// The debugger's `quit` ended the run.
    Debugger,
    /// Stopped from outside ([`Watch::stop`]: `^C`).
    Interrupted,
    /// The clock would pass [`crate::time::MAX_TIME`].
    Clock,
    /// The sequential time (every processor's work summed), or the busy time summed over
    /// processors (work and overhead), would pass [`crate::time::MAX_TIME`]: the speedup
    /// or a line's cost could not be computed.
    Work,
    /// The host refused the memory pool's growth (a `ulimit -v` below what the pool
    /// needs); `--max-memory` bounds the pool.
    HostMemory,
    /// The program wrote more than [`SimConfig::max_output`] bytes.
    ProgramOutput,
    /// The observer's output failed ([`Observer::failed`]): the run record could not be
    /// written.
    Output,
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Limit::Time => "simulated time passed --max-time",
            Limit::Steps => "instruction count passed --max-steps",
            Limit::Procs => "too many processes alive at once (--max-procs; unbounded forking?)",
            Limit::Memory => "memory pool exhausted (--max-memory; unbounded allocation?)",
            Limit::Messages => "too many messages (or message words) sent and not yet received (unbounded sending?)",
            Limit::Debugger => "the debugger's quit",
            Limit::Interrupted => "interrupted",
            Limit::Clock => "simulated time exceeds 4611686018427387 units, the clock's range",
            Limit::Work => {
                "the sequential time (every processor's work summed), or the busy time summed over processors (work and overhead), exceeds 4611686018427387 units, the clock's range"
            }
            Limit::HostMemory => {
                "the host refused memory for the memory pool (a limit such as `ulimit -v`, or the machine's memory is used up): give a smaller --max-memory or raise the limit"
            }
            Limit::Output => "the run record could not be written",
            Limit::ProgramOutput => {
                "the program's output (standard output, standard error and its files) passed --max-output bytes (unbounded printing? --max-output none or --trust lifts the cap)"
            }
        })
    }
}

/// Error ending a run. Exit codes: 1 for `Runtime` and `Deadlock`, 3 for `Limit` and a
/// stack overflow, 130 for [`Limit::Interrupted`].
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("runtime error in process {pid} ({function}, {file}:{line}): {kind}")]
    Runtime { pid: u32, function: String, file: String, line: u32, kind: RuntimeError },
    #[error("deadlock: {}", .waiters.iter().map(|w| w.to_string()).collect::<Vec<_>>().join("; "))]
    Deadlock { waiters: Vec<Waiter>, stats: Box<Stats> },
    #[error("limit exceeded: {limit}")]
    LimitExceeded { limit: Limit, stats: Box<Stats> },
    /// Messages are stuck in the network: a cycle of packets each waiting for a lane
    /// another one holds (wormhole routing without deadlock-free lanes).
    #[error("network deadlock: {}", .cycle.join("; "))]
    NetworkDeadlock { cycle: Vec<String>, stats: Box<Stats> },
}

impl SimError {
    /// The documented exit code.
    pub fn exit_code(&self) -> i32 {
        match self {
            // Unbounded recursion is a limit hit, like unbounded forking or allocation.
            SimError::Runtime { kind: RuntimeError::StackOverflow { .. }, .. } => 3,
            SimError::Runtime { .. } | SimError::Deadlock { .. } | SimError::NetworkDeadlock { .. } => 1,
            // 128 + SIGINT, as a shell reports a process ended by `^C`.
            SimError::LimitExceeded { limit: Limit::Interrupted, .. } => 130,
            SimError::LimitExceeded { .. } => 3,
        }
    }
}
#[cfg(test)]
mod cpc_tests;
