//! What a debugger sees of and may change in a suspended run (seed 000 §4.1, §4.2.1–4.2.2):
//! the hook the simulator calls when a stop condition is met, the stop conditions it
//! checks (pcs, a step process, traced addresses, the alarm), and read access to
//! processes, memory and channels.
//!
//! The simulator calls [`DebugHook::suspend`] synchronously from inside the run, with
//! every process paused: nothing advances while the hook runs, so a suspension cannot
//! change simulated times. Stops are checked only by the debug variant of the
//! interpreter, chosen when a hook is installed; runs without a debugger never look at
//! them. Depends on the private process, memory and channel types of [`super`].
use super::{Simulator, NONE};
use crate::sim::{CostTable, Limit, SimError, Stats};
use crate::time::Ticks;
use crate::vcode::{Module, Op, Word};

/// Why the run is suspended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Process `pid` is about to execute instruction `pc`, one of the stop pcs (a
    /// breakpoint, or a line start of the step process).
    Pc { pid: u32, pc: u32 },
    /// Process `pid` executed an instruction that referenced a traced address; its pc is
    /// the next instruction.
    Traced { pid: u32 },
    /// The step process ended.
    Ended { pid: u32 },
    /// The global clock reached the alarm time (at a quantum start).
    Alarm,
}

/// The debugger's side of a suspension.
pub trait DebugHook {
    /// Runs while the whole simulation is suspended. `Ok` resumes the run; an error ends
    /// it (the simulator returns [`SimError::LimitExceeded`] with [`Limit::Debugger`]).
    fn suspend(&mut self, sim: &mut Simulator<'_>, stop: Stop) -> Result<(), Quit>;
}

/// The debugger ended the run (`quit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quit;

/// The stop conditions and the hook.
pub(super) struct DebugCtl {
    /// `None` only while it is being called.
    hook: Option<Box<dyn DebugHook>>,
    /// Bit per pc: stop any process before it.
    pub(super) stops: Vec<u64>,
    /// Bit per pc: stop the step process before it.
    pub(super) step_stops: Vec<u64>,
    pub(super) step_pid: u32,
    pub(super) traced: Vec<(u32, u32)>,
}

/// One call of a process's stack ([`Simulator::call_stack`]).
#[derive(Clone, Debug, PartialEq)]
pub struct CallFrame {
    pub function: String,
    /// The line it is at: the current line for the innermost call, the calling line for
    /// the others.
    pub line: u32,
    /// Its arguments' words, in order.
    pub args: Vec<Word>,
}

/// A channel element's messages, for `show`.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelView {
    /// The process that may read it.
    pub owner: u32,
    /// Delivered messages in the order `RECV` takes them: `(arrival time, words)`. An
    /// arrival after the reader's clock means the message is still on its way.
    pub queued: Vec<(Ticks, Vec<Word>)>,
    /// Messages a contention network still holds: `(send time, words)`, per sender in
    /// send order.
    pub in_network: Vec<(Ticks, Vec<Word>)>,
}

/// Turns a list of pcs into the bitset the interpreter reads.
fn bitset(pcs: &[u32], len: usize) -> Vec<u64> {
    let mut b = vec![0u64; len.div_ceil(64)];
    for &pc in pcs {
        if let Some(w) = b.get_mut(pc as usize / 64) {
            *w |= 1 << (pc % 64);
        }
    }
    b
}

impl<'m> Simulator<'m> {
    /// Installs a debugger: from now on the run checks stop conditions (none until
    /// [`Simulator::set_stops`] / [`Simulator::set_traced`] / [`Simulator::set_alarm`]),
    /// and an alarm suspends the run instead of ending it.
    pub fn set_debugger(&mut self, hook: Box<dyn DebugHook>) {
        self.debug = Some(Box::new(DebugCtl {
            hook: Some(hook),
            stops: Vec::new(),
            step_stops: Vec::new(),
            step_pid: NONE,
            traced: Vec::new(),
        }));
    }

    /// The stop pcs: every process stops before an instruction of `all`; process
    /// `step.0` also before one of `step.1`.
    pub fn set_stops(&mut self, all: &[u32], step: Option<(u32, &[u32])>) {
        let n = self.module.code.len();
        if let Some(d) = self.debug.as_mut() {
            d.stops = bitset(all, n);
            match step {
                Some((pid, pcs)) => {
                    let mut both = all.to_vec();
                    both.extend_from_slice(pcs);
                    d.step_stops = bitset(&both, n);
                    d.step_pid = pid;
                }
                None => {
                    d.step_stops = Vec::new();
                    d.step_pid = NONE;
                }
            }
        }
    }

    /// The traced address ranges `lo..hi`.
    pub fn set_traced(&mut self, ranges: Vec<(u32, u32)>) {
        if let Some(d) = self.debug.as_mut() {
            d.traced = ranges;
        }
    }

    /// Suspends the run at the first quantum start at or after `t` (with a debugger;
    /// without one the alarm ends the run).
    pub fn set_alarm(&mut self, t: Option<Ticks>) {
        self.cfg.alarm = t;
    }

    /// The alarm time.
    pub fn alarm(&self) -> Option<Ticks> {
        self.cfg.alarm
    }

    /// Calls the hook (`pid` is the process whose stop it is, or `NONE`).
    pub(super) fn debug_stop(&mut self, stop: Stop) -> Result<(), SimError> {
        let Some(mut hook) = self.debug.as_mut().and_then(|d| d.hook.take()) else { return Ok(()) };
        let r = hook.suspend(self, stop);
        if let Some(d) = self.debug.as_mut() {
            d.hook = Some(hook);
        }
        r.map_err(|Quit| self.limit(Limit::Debugger))
    }

    /// Called after `pid` stopped in a complex instruction: suspends when it is the step
    /// process and it ended.
    pub(super) fn debug_after_stop(&mut self, pid: u32) -> Result<(), SimError> {
        let stepping = self.debug.as_ref().is_some_and(|d| d.step_pid == pid);
        if stepping && self.pt.procs.get(pid as usize).is_some_and(|p| p.ended) {
            return self.debug_stop(Stop::Ended { pid });
        }
        Ok(())
    }

    /// The program.
    pub fn module(&self) -> &'m Module {
        self.module
    }

    /// The quantum in ticks.
    pub fn quantum(&self) -> Ticks {
        self.cfg.quantum.max(1)
    }

    /// Process `pid`'s next instruction and display (the frame base of each static
    /// depth; depth 0 is the global area at 0). `None` for an unknown or ended process.
    pub fn process_frame(&self, pid: u32) -> Option<(u32, Vec<u32>)> {
        let p = self.pt.procs.get(pid as usize).filter(|p| !p.ended)?;
        Some((p.pc, p.display.to_vec()))
    }

    /// What MPI rank `pid` waits for when it is blocked in an MPI receive (a deadlock's
    /// report says the same); `None` for any other process or state.
    pub fn mpi_wait(&self, pid: u32) -> Option<String> {
        let p = self.pt.procs.get(pid as usize).filter(|p| !p.ended && pid < self.ranks.count)?;
        let mailbox = self.ranks.mailbox + pid as usize;
        let reason = (mailbox < self.ch.chans.len()).then(|| self.ch.reason(mailbox))?;
        (p.wait == reason).then(|| self.mpi_waits_for(pid))
    }

    /// Process `pid`'s call stack, innermost call first: each frame's function, the line
    /// it is at (for a caller, the line of its call) and its arguments (the first words of
    /// the frame). `None` for an unknown or ended process.
    pub fn call_stack(&self, pid: u32) -> Option<Vec<CallFrame>> {
        let p = self.pt.procs.get(pid as usize).filter(|p| !p.ended)?;
        let frames = p.all_frames();
        let mut out = Vec::with_capacity(frames.len());
        for (k, fr) in frames.iter().enumerate().rev() {
            // Where this frame is: the running pc for the innermost, the call for the others.
            let pc = match frames.get(k + 1) {
                Some(callee) => callee.ret_pc.saturating_sub(1),
                None => p.pc,
            };
            let f = self.module.function_at(pc).and_then(|f| self.module.functions.get(f as usize));
            let params = f.map_or(0, |f| f.param_words) as usize;
            let b = fr.base as usize;
            let args = self.mem.words.get(b..b + params.min(fr.words as usize)).map_or_else(Vec::new, |w| w.to_vec());
            out.push(CallFrame {
                function: f.map_or_else(|| "?".to_string(), |f| f.name.clone()),
                line: self.module.line_of(pc),
                args,
            });
        }
        Some(out)
    }

    /// The word at `addr` and the physical processor owning it.
    pub fn word(&self, addr: u32) -> Option<(Word, u32)> {
        let a = addr as usize;
        Some((*self.mem.words.get(a)?, *self.mem.owner.get(a)?))
    }

    /// Words in the memory pool.
    pub fn memory_words(&self) -> u32 {
        self.mem.words.len() as u32
    }

    /// The messages of the channel element at `addr` (`None`: not a channel element).
    pub fn channel(&self, addr: u32) -> Option<ChannelView> {
        let c = *self.ch.chan_at.get(addr as usize).filter(|&&c| c != NONE)?;
        let ch = self.ch.chans.get(c as usize)?;
        let tr = self.ch.traffic(c as usize);
        let mut queued: Vec<(Ticks, u64, Vec<Word>)> =
            tr.queue.iter().map(|m| (m.arrival, m.seq, m.data.to_vec())).collect();
        queued.sort_by_key(|&(t, s, _)| (t, s));
        let in_network = tr.from.iter().flat_map(|f| f.pending.iter().map(|m| (m.sent, m.data.to_vec()))).collect();
        Some(ChannelView { owner: ch.owner, queued: queued.into_iter().map(|(t, _, d)| (t, d)).collect(), in_network })
    }

    /// The time a suspension is at: the end of the quantum being run (the seed's global
    /// clock during a quantum), else the global clock.
    pub fn now(&self) -> Ticks {
        self.sched.cur.map_or(self.sched.qstart, |(_, e)| e)
    }

    /// The statistics so far, the parallel time being [`Simulator::now`].
    pub fn stats_so_far(&mut self) -> Stats {
        let now = self.now();
        let mut s = self.snapshot(now);
        // A turn that ran past `now` (an instruction overrunning the quantum's end, or a
        // process alone crossing quantum ends) was busy all the way: only its part up to
        // `now` is busy time so far, so no utilization passes 100 %.
        for (p, b) in s.busy.iter_mut() {
            let past = self.pclock[*p as usize].saturating_sub(now);
            *b = b.saturating_sub(past).min(now);
        }
        // Nor is there more sequential work than busy time.
        s.seq_ticks = s.seq_ticks.min(s.busy.iter().map(|&(_, b)| b).sum());
        s
    }

    /// The instruction costs in force.
    pub fn costs(&self) -> &CostTable {
        &self.cfg.costs
    }

    /// Replaces the instruction costs; instructions executed from now on use them. An
    /// instruction whose cost changes gets the new cost on every processor, also on those
    /// a machine file gave timings of their own.
    pub fn set_costs(&mut self, costs: CostTable) {
        let changed: Vec<Op> = Op::ALL.iter().copied().filter(|&op| costs.get(op) != self.cfg.costs.get(op)).collect();
        for pc in self.cfg.proc_costs.iter_mut() {
            let pc = std::sync::Arc::make_mut(pc);
            for &op in &changed {
                pc.set(op, Ticks::from(costs.get(op)) * crate::time::TICKS_PER_UNIT);
            }
        }
        self.cfg.costs = costs;
        let (tables, table_of) = super::cost_tables(&self.cfg, self.table_of.len(), &self.prog);
        self.tables = tables;
        self.table_of = table_of;
    }
}

#[cfg(test)]
mod tests {
    use super::bitset;

    #[test]
    fn bitset_sets_the_listed_bits_only() {
        // pcs 0, 63, 64 and 129 in 130 instructions: words 0 (bits 0, 63), 1 (bit 0), 2 (bit 1).
        let b = bitset(&[0, 63, 64, 129, 500], 130);
        assert_eq!(b, vec![1 | 1 << 63, 1, 2], "pc 500 is outside the code and ignored");
    }
}
