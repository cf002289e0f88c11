//! Processes: creation (`FORK`, `FORALL`'s children, the default allocation), blocking
//! and waking, ending and what a parent learns of it, and the list of waiters a
//! deadlock report gives.
use super::*;

/// The processes and where they wait to run: every process made so far (a finished one
/// keeps its entry), each one's earliest wake time, the run queue of each physical
/// processor (indexed once it grows long) and the live count per processor.
pub(super) struct ProcessTable {
    /// By pid.
    pub(super) procs: Vec<Proc>,
    /// Per process, the earliest time it can run (`NEVER`: waiting for an event with no
    /// known time); apart from [`Proc`] so the scheduler's look at a processor's
    /// queue reads one table.
    pub(super) wake: Vec<Ticks>,
    /// Per physical processor, its runnable and waiting processes in turn order.
    pub(super) queues: Vec<runq::RunQueue>,
    /// The queues of processors with many processes, indexed ([`ready`]); their
    /// entry in `queues` stays empty.
    pub(super) ready: ready::ReadyIndex,
    /// Live processes per physical processor, for the default allocation.
    pub(super) live: LeastLoaded,
    /// Live processes in all (bounded by [`SimConfig::max_procs`]).
    pub(super) live_procs: u32,
}

impl ProcessTable {
    /// No process yet, on `npp` physical processors.
    pub(super) fn new(npp: usize) -> ProcessTable {
        ProcessTable {
            procs: Vec::new(),
            wake: Vec::new(),
            queues: vec![runq::RunQueue::default(); npp],
            ready: ready::ReadyIndex::new(npp),
            live: LeastLoaded::new(npp),
            live_procs: 0,
        }
    }
}

impl<'m> Simulator<'m> {
    /// The physical processor with the fewest live processes (ties: lowest id).
    pub(super) fn default_pproc(&mut self) -> u32 {
        self.pt.live.least()
    }

    /// Creates a process running `func` with `args` as its first frame words.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn spawn(
        &mut self,
        parent: u32,
        kind: Kind,
        func: u32,
        vproc: u32,
        pproc: u32,
        args: &[Word],
        display: &Display,
        start: Ticks,
        group: (i64, i64),
    ) -> Result<u32, SimError> {
        if self.pt.live_procs >= self.cfg.max_procs {
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
        let base = self.mem.alloc(len, pproc).map_err(|e| self.alloc_error(e))?;
        let pid = self.pt.procs.len() as u32;
        // The parent's entries up to the function's depth, the rest 0.
        let mut disp = Display::zeros(self.max_depth + 1);
        for d in 0..(f.depth as usize).min(display.len()) {
            if let (Some(to), Some(from)) = (disp.get_mut(d), display.get(d)) {
                *to = from;
            }
        }
        let mut p = Proc {
            pid,
            parent,
            kind,
            vproc,
            pproc,
            func,
            ended: false,
            ending: false,
            wait: Reason::None,
            clock: start,
            pc: f.entry,
            stack: args.to_vec(),
            display: disp,
            frames: Vec::new(),
            segs: vec![Seg { base, len, top: n }],
            cur_seg: 0,
            frame_words: 0,
            time_on: true,
            start_cost: 0,
            forked_live: 0,
            ended_children: EndTimes::NONE,
            children_end: 0,
            rare: None,
        };
        if group.0 <= group.1 {
            // A grouped `forall` child's further indices.
            let r = p.rare_mut();
            (r.group_next, r.group_hi) = group;
        }
        let fl = FnLite { params: args.len() as u32, ..f };
        place_bottom_frame(&mut p, &mut self.mem, fl, base).map_err(|k| self.rt(parent, k))?;
        self.pt.procs.push(p);
        self.pt.wake.push(start);
        self.enqueue(pproc as usize, pid);
        self.lower_pmin(pproc as usize, start);
        self.pt.live.add(pproc as usize, 1);
        self.used[pproc as usize] = true;
        self.pt.live_procs += 1;
        self.stats.processes += 1;
        if let Some(o) = self.observer.as_mut() {
            let function = self.module.functions.get(func as usize).map_or("?", |f| f.name.as_str());
            // The line of the parent's fork (its pc is at the creating instruction).
            let line = self.pt.procs.get(parent as usize).map_or(0, |p| self.module.line_of(p.pc));
            let parent = if parent == NONE { None } else { Some(parent) };
            o.event(&SimEvent::ProcessCreate { time: start, parent, pid, vproc, pproc, function, line });
        }
        Ok(pid)
    }

    pub(super) fn waiters(&self) -> Vec<Waiter> {
        let mut v = Vec::new();
        for p in self.pt.procs.iter().filter(|p| !p.ended) {
            let waits_for = match p.wait {
                Reason::Channel { channel, index } if channel as usize == self.module.channels.len() => {
                    self.mpi_waits_for(index)
                }
                Reason::Channel { channel, index } => {
                    format!("a message on channel {}", self.channel_elem_name(channel, index))
                }
                Reason::Join => "join (a forked child to end)".to_string(),
                Reason::Forall => format!("{} forall children to end", p.forall_pending()),
                Reason::RemoteRead { owner } => format!("a remote read of a word of processor {owner}"),
                Reason::Delay { .. } => "the end of a delay".to_string(),
                Reason::Lock { lock } => format!("the spinlock at address {lock}"),
                Reason::Children => format!("{} forked children to end before it ends", p.forked_live),
                Reason::None | Reason::Quantum => "nothing (ready)".to_string(),
            };
            let (file, mut line) = self.place(p.pc);
            let mut function = self.function_name(p.pc);
            // In an MPI call: the call and the program's line that made it.
            if let Some((f, l)) = self.mpi_call(p.pid) {
                (function, line) = (f, l);
            }
            let rank = (self.ranks.count > 1 && p.pid < self.ranks.count).then_some(p.pid);
            v.push(Waiter { pid: p.pid, vproc: p.vproc, pproc: p.pproc, function, file, line, waits_for, rank });
        }
        v
    }

    /// Sets `pid`'s wake time, keeping its processor's queue index in step.
    #[inline]
    pub(super) fn set_wake(&mut self, pid: u32, t: Ticks) {
        let old = std::mem::replace(&mut self.pt.wake[pid as usize], t);
        if old != t && self.pt.ready.any() {
            // (Until a queue is indexed, this is all a wake change costs.)
            let pp = self.pt.procs[pid as usize].pproc as usize;
            if self.pt.ready.is_indexed(pp) {
                self.pt.ready.rewake(pp, pid, t);
            }
        }
    }

    /// Puts the new process `pid` at the back of `pp`'s queue, which becomes indexed when
    /// it grows past [`SimConfig::queue_index_at`].
    fn enqueue(&mut self, pp: usize, pid: u32) {
        if self.pt.ready.is_indexed(pp) {
            self.pt.ready.push_back(pp, pid, self.pt.wake[pid as usize]);
            return;
        }
        self.pt.queues[pp].push_back(pid);
        if self.pt.queues[pp].len() > self.cfg.queue_index_at {
            let q = std::mem::take(&mut self.pt.queues[pp]);
            let wake = &self.pt.wake;
            self.pt.ready.index(pp, q.as_slice().iter().map(|&p| (p, wake[p as usize])));
        }
    }

    /// The number of processes in `pp`'s queue.
    #[inline]
    pub(super) fn queue_len(&self, pp: usize) -> usize {
        if self.pt.ready.is_indexed(pp) {
            self.pt.ready.len(pp)
        } else {
            self.pt.queues[pp].len()
        }
    }

    /// The reply of `pid`'s remote read arrives at `t`.
    pub(super) fn wake_reader(&mut self, pid: u32, t: Ticks) {
        if let Some(p) = self.pt.procs.get(pid as usize) {
            let pp = p.pproc as usize;
            self.set_wake(pid, t);
            self.lower_pmin(pp, t);
        }
    }

    /// Puts `pid` to wait for `wait` until `wake` and tells the observer.
    pub(super) fn block(&mut self, pid: u32, wait: Reason, wake: Ticks) {
        self.set_wake(pid, wake);
        let p = &mut self.pt.procs[pid as usize];
        p.wait = wait;
        let time = p.clock;
        let pp = p.pproc as usize;
        let (pc, mut line) = (p.pc, self.module.line_of(p.pc));
        self.lower_pmin(pp, wake);
        if self.observer.is_some() {
            // A wait in MPI is at the program's line that called it.
            if matches!(wait, Reason::Channel { channel, .. } if channel as usize == self.module.channels.len()) {
                line = self.mpi_line(pid, pc);
            }
        }
        if let Some(o) = self.observer.as_mut() {
            o.event(&SimEvent::Block { time, pid, reason: wait, line });
        }
    }

    /// Begins the end of `pid`: it ends once its forked children have ended.
    pub(super) fn begin_end(&mut self, pid: u32) {
        let p = &mut self.pt.procs[pid as usize];
        p.ending = true;
        if p.forked_live == 0 {
            let t = p.clock;
            self.finish(pid, t);
        } else {
            self.block(pid, Reason::Children, NEVER);
        }
    }

    /// Ends `pid` at time `t`: frees its memory and sends its parent the notice of its
    /// end ([`Self::tell_parent`] when it arrives).
    pub(super) fn finish(&mut self, pid: u32, t: Ticks) {
        self.set_wake(pid, NEVER);
        let (parent, pp, segs) = {
            let p = &mut self.pt.procs[pid as usize];
            p.ended = true;
            p.wait = Reason::None;
            (p.parent, p.pproc as usize, std::mem::take(&mut p.segs))
        };
        for s in segs {
            self.mem.free(s.base, s.len);
        }
        if self.pt.ready.is_indexed(pp) {
            self.pt.ready.remove(pp, pid);
        } else if let Some(k) = self.pt.queues[pp].as_slice().iter().position(|&x| x == pid) {
            self.pt.queues[pp].remove(k);
        }
        self.pt.live.add(pp, -1);
        self.pt.live_procs -= 1;
        if let Some(o) = self.observer.as_mut() {
            o.event(&SimEvent::ProcessEnd { time: t, pid });
        }
        if pid < self.ranks.count {
            // The run ends when main has ended (every rank's, `--ranks`) and its own
            // writes have landed (its children's have: each child's end reached it
            // after them).
            let p = &self.pt.procs[pid as usize];
            self.ranks.last_end = self.ranks.last_end.max(t.max(p.writes_last()));
            self.ranks.live -= 1;
            if self.ranks.live == 0 {
                self.program_end = Some(self.ranks.last_end);
            }
            return;
        }
        let Some(ppar) = self.pt.procs.get(parent as usize).map(|p| p.pproc) else { return };
        // The end travels to the parent's processor as a one-word message, and reaches
        // the parent after the child's remote writes have landed (as a channel message
        // never arrives before one sent before it): the parent then sees the results.
        let notice = if ppar as usize == pp {
            Some(t)
        } else {
            self.bridge.msg_seq += 1;
            let id = self.bridge.msg_seq;
            let a = self.net_send(id, pp as u32, ppar, 4, t);
            if a.is_none() {
                self.bridge.in_flight.insert(id, InFlight::EndNotice { pid });
            }
            a.map(|a| a.max(t))
        };
        if let Some(n) = notice {
            self.notice_arrived(pid, n);
        }
    }

    /// The notice of `pid`'s end reached its parent's processor at `t`: the parent
    /// learns of the end when the child's remote writes have landed too.
    pub(super) fn notice_arrived(&mut self, pid: u32, t: Ticks) {
        let p = &mut self.pt.procs[pid as usize];
        let (out, last) = (p.writes_out(), p.writes_last());
        if out == 0 {
            let at = t.max(self.landed(last));
            self.tell_parent(pid, at);
        } else {
            // Told when the last of them lands.
            p.rare_mut().notice = t;
        }
    }

    /// The parent of the ended process `pid` learns of its end at `t`.
    pub(super) fn tell_parent(&mut self, pid: u32, t: Ticks) {
        let (parent, kind) = {
            let p = &self.pt.procs[pid as usize];
            (p.parent, p.kind)
        };
        let Some(par) = self.pt.procs.get_mut(parent as usize) else { return };
        let ppar = par.pproc as usize;
        let old = self.pt.wake[parent as usize];
        let new = match kind {
            Kind::Forall => {
                let wait = par.wait;
                let r = par.rare_mut();
                r.forall_pending = r.forall_pending.saturating_sub(1);
                r.forall_end = r.forall_end.max(t);
                if r.forall_pending == 0 && wait == Reason::Forall {
                    r.forall_end
                } else {
                    old
                }
            }
            Kind::Fork => {
                par.forked_live = par.forked_live.saturating_sub(1);
                par.child_ended(t);
                par.children_end = par.children_end.max(t);
                match par.wait {
                    Reason::Join => old.min(t),
                    Reason::Children if par.forked_live == 0 => par.children_end,
                    _ => old,
                }
            }
            Kind::Main => old,
        };
        self.set_wake(parent, new);
        let w = new;
        self.lower_pmin(ppar, w);
    }

    /// FORK and FORALLFORK: pops the arguments, the channels and the virtual processor,
    /// charges the instruction and creates the child as `kind`. The arguments were
    /// evaluated here, on the parent's processor (seed 000 Fig. 13, `altPhyProcessor`);
    /// the child's first frame is one block of its argument words (`CopyToNewBlock`)
    /// sent to the child's processor, and the child starts when it arrives: after
    /// `local_cost` on the parent's own processor, after the network's latency for a
    /// message of `4 * max(1, words)` bytes elsewhere.
    pub(super) fn fork(
        &mut self,
        pid: u32,
        op: Op,
        func: u32,
        chans: u32,
        vproc: bool,
        kind: Kind,
    ) -> Result<u32, SimError> {
        let nparams = self.funcs.get(func as usize).map_or(0, |f| f.params) as usize;
        let args = self.pop_n(pid, nparams)?;
        let chan_addrs = self.pop_n(pid, chans as usize)?;
        let (v, pp) = if vproc {
            let v = as_int(self.pop(pid)?) as i64;
            let npp = self.pt.queues.len() as u32;
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
        // `--fork-args child`: the arguments' evaluation ends here; its cost goes to the
        // child, at the speed of the child's processor.
        let mut start_cost: Ticks = 0;
        {
            let p = &mut self.pt.procs[pid as usize];
            let depth = p.args_depth();
            if depth == 1 {
                p.time_on = true;
                let r = p.rare_mut();
                r.args_depth = 0;
                let speed = self.cfg.speeds.get(pp as usize).copied().unwrap_or(TICKS_PER_UNIT);
                let t = u128::from(r.args_cost) * u128::from(speed) / u128::from(TICKS_PER_UNIT);
                start_cost = Ticks::try_from(t).unwrap_or(Ticks::MAX);
            } else if depth > 1 {
                p.rare_mut().args_depth -= 1;
            }
        }
        self.charge(pid, op)?;
        let (start, display, src) = {
            let p = &self.pt.procs[pid as usize];
            (p.clock, p.display.clone(), p.pproc)
        };
        let child = self.spawn(pid, kind, func, v, pp, &args, &display, start, (0, -1))?;
        // The first u32's worth in the first cache line, the rest (a huge evaluation)
        // where the child keeps its own argument cost, refilled from there.
        let c = &mut self.pt.procs[child as usize];
        c.start_cost = u32::try_from(start_cost).unwrap_or(u32::MAX);
        let beyond = start_cost - Ticks::from(c.start_cost);
        if beyond > 0 {
            c.rare_mut().args_cost = beyond;
        }
        for c in cidx {
            self.ch.chans[c].owner = child;
        }
        self.bridge.msg_seq += 1;
        let id = self.bridge.msg_seq;
        let words = args.len().max(1) as u32;
        let wake = match self.net_send(id, src, pp, 4 * words, start) {
            Some(t) => t.max(start),
            None => {
                self.bridge.in_flight.insert(id, InFlight::Frame { pid: child });
                NEVER
            }
        };
        self.set_wake(child, wake);
        Ok(child)
    }
}
