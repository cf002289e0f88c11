//! The scheduler: quanta, round-robin turns per physical processor, the processors due
//! in a quantum, the jump over idle quanta to the next event, and the handover of the
//! network to its own thread ([`super::net_worker`]) around a quantum.
use super::*;

/// The quantum scheduler's state: the quantum under way, and which processors are due
/// when. It keeps every processor with a process that can run before the end of a
/// quantum findable from `due_now`, `due_next` or `due_later` (stale entries are allowed
/// and cost one look); [`Simulator::lower_pmin`] is the one way a wake time moves
/// earlier.
pub(super) struct Schedule {
    pub(super) qstart: Ticks,
    /// Per physical processor, a lower bound of its processes' wake times: a processor
    /// whose bound is past the quantum is skipped without looking at its queue.
    pub(super) pmin: Vec<Ticks>,
    /// Processors to visit in this quantum, in id order.
    pub(super) due_now: procset::ProcSet,
    /// `(pmin, processor)` of processors with something to do in a later quantum (stale
    /// entries only cost a look at the processor), except those that go in `due_next`.
    pub(super) due_later: TimeQueue<u32>,
    /// Processors due before `due_next_bound`, which is never after the end of the next
    /// quantum: the next quantum visits them all, as it would take them out of
    /// `due_later`. A busy processor is due again in the next quantum at almost every
    /// turn, so this spares the heap a push and a pop per turn.
    pub(super) due_next: procset::ProcSet,
    /// The least time an entry of `due_next` was put there with (NEVER: none).
    pub(super) due_next_min: Ticks,
    pub(super) due_next_bound: Ticks,
    /// The `due_later` entries [`Simulator::next_event`] took out to look at (kept to reuse).
    pub(super) due_taken: Vec<(Ticks, u32)>,
    /// The processor being run and the end of the quantum, during a quantum.
    pub(super) cur: Option<(usize, Ticks)>,
    /// Set by [`Simulator::lower_pmin`], through which every change of a process's wake time
    /// goes except those of the running process by its own turn, and with it every change
    /// of a queue (a process created, or ended: its parent is told). The scheduler clears
    /// it before a turn: still clear after it, the other processes are as they were.
    pub(super) woken: bool,
}

impl Schedule {
    /// Nothing due, for `npp` physical processors.
    pub(super) fn new(npp: usize) -> Schedule {
        Schedule {
            qstart: 0,
            pmin: vec![NEVER; npp],
            due_now: procset::ProcSet::new(npp),
            due_later: TimeQueue::new(),
            due_next: procset::ProcSet::new(npp),
            due_next_min: NEVER,
            due_next_bound: 0,
            due_taken: Vec::new(),
            cur: None,
            woken: false,
        }
    }
}

impl<'m> Simulator<'m> {
    /// Leaves the processes' memory to the operating system instead of freeing it
    /// (for a caller whose process ends after the run: [`crate::sim::run::simulate_to_exit`]).
    pub fn leave_processes(&mut self) {
        std::mem::forget(std::mem::take(&mut self.pt.procs));
    }

    /// Runs the program to its end (or an alarm) and returns the statistics.
    pub fn run(&mut self) -> Result<Stats, SimError> {
        let t0 = Instant::now();
        // The network runs ahead on a second thread when asked, as long as nothing looks
        // at it while the processors run: no debugger (it may change the network), no
        // route records (they go to the observer between arrivals) and no link loads
        // (an error's statistics would see the network part-way through the quantum).
        if self.cfg.net_thread != NetThread::Off
            && self.debug.is_none()
            && !self.cfg.trace_routes
            && !self.cfg.link_stats
            && self.net.lookahead().is_some()
        {
            let always = self.cfg.net_thread == NetThread::Always;
            self.bridge.ahead = NetWorker::start(self.net.params().clone(), always).map(Box::new);
        }
        let r = self.run_inner();
        self.bridge.ahead = None;
        self.flush_line_costs();
        let _ = self.io.stdout.flush();
        for f in self.files.iter_mut().flatten() {
            if let FileSlot::Write(w) = f {
                let _ = w.flush();
            }
        }
        let host = t0.elapsed();
        match r {
            Ok(mut s) => {
                s.host_time = host;
                Ok(s)
            }
            Err(SimError::Deadlock { waiters, mut stats }) => {
                stats.host_time = host;
                Err(SimError::Deadlock { waiters, stats })
            }
            Err(SimError::LimitExceeded { limit, mut stats }) => {
                stats.host_time = host;
                Err(SimError::LimitExceeded { limit, stats })
            }
            Err(SimError::NetworkDeadlock { cycle, mut stats }) => {
                stats.host_time = host;
                Err(SimError::NetworkDeadlock { cycle, stats })
            }
            Err(e) => Err(e),
        }
    }

    /// Tells the observer the busy time per source line since the last report (work and
    /// overhead by the class of each instruction), in line order, and starts a new account.
    pub(super) fn flush_line_costs(&mut self) {
        let Some(o) = self.observer.as_mut() else { return };
        let mut by_line: BTreeMap<u32, (Ticks, Ticks)> = BTreeMap::new();
        for (pc, t) in self.pc_ticks.iter_mut().enumerate() {
            if *t == 0 {
                continue;
            }
            let slot = by_line.entry(self.module.line_of(pc as u32)).or_insert((0, 0));
            match crate::vcode::cost::slot_op(self.prog[pc].op).map(Op::class) {
                Some(Class::Work) => slot.0 += *t,
                _ => slot.1 += *t,
            }
            *t = 0;
        }
        let lines: Vec<(u32, Ticks, Ticks)> = by_line.into_iter().map(|(l, (w, v))| (l, w, v)).collect();
        if !lines.is_empty() {
            o.event(&SimEvent::LineCosts { lines: &lines });
        }
    }

    pub(super) fn run_inner(&mut self) -> Result<Stats, SimError> {
        let q = self.cfg.quantum.max(1);
        loop {
            self.land_writes(self.sched.qstart);
            let qend = self.sched.qstart + q;
            let mut active = false;
            self.sched.due_now.absorb(&mut self.sched.due_next);
            self.sched.due_next_min = NEVER;
            while let Some((t, &pp)) = self.sched.due_later.peek() {
                if t >= qend {
                    break;
                }
                self.sched.due_later.pop();
                self.sched.due_now.insert(pp);
            }
            // Every later quantum ends at `qend + q` or after.
            self.sched.due_next_bound = qend + q;
            // A solo run may carry the quantum forward (see `solo_cross`): its end is
            // kept in `self.sched.cur` while the processors run.
            let mut qend = qend;
            self.sched.cur = Some((0, qend));
            let ahead = self.ahead_begin(qend);
            let r = self.run_processors(&mut qend, &mut active);
            self.sched.cur = None;
            if ahead {
                self.ahead_end(r.is_ok(), qend);
            }
            r?;
            self.advance_network(qend);
            self.record_profile();
            if self.watched(qend) && self.program_end.is_none() {
                self.sched.qstart = qend;
                return Err(self.limit(Limit::Interrupted));
            }
            if self.observer.as_ref().is_some_and(|o| o.failed()) {
                self.sched.qstart = qend;
                return Err(self.limit(Limit::Output));
            }
            // The run ends when main has ended and no remote write is in the network.
            if let (Some(t), 0) = (self.program_end, self.bridge.loads_pending) {
                let end = t.max(self.pt.procs[0].writes_last());
                self.land_writes(NEVER);
                // A processor may have run one instruction past the quantum's end before
                // the program ended (C's exit() by another process): the run lasts until
                // that instruction ends, so that no processor is busy longer than the run.
                let ran = self.pclock.iter().copied().max().unwrap_or(0);
                let par = qend.max(end.div_ceil(q) * q).max(ran);
                return Ok(self.snapshot(par));
            }
            self.sched.qstart = qend;
            if self.debug.is_some() && self.cfg.alarm.is_some_and(|a| self.sched.qstart >= a) {
                // With a debugger the alarm suspends the run, once.
                self.cfg.alarm = None;
                self.debug_stop(Stop::Alarm)?;
            }
            if let Some(a) = self.cfg.alarm {
                if self.sched.qstart >= a {
                    let mut s = self.snapshot(self.sched.qstart);
                    s.stopped_by_alarm = true;
                    return Ok(s);
                }
            }
            if let Some(m) = self.cfg.max_time {
                if self.sched.qstart > m {
                    return Err(self.limit(Limit::Time));
                }
            }
            if self.sched.qstart >= MAX_TIME {
                return Err(self.limit(Limit::Clock));
            }
            if !active {
                let next = self.next_event().min(self.net.next_event());
                if next == NEVER && self.net.in_flight() > 0 {
                    let cycle = self.net.blocked();
                    return Err(SimError::NetworkDeadlock { cycle, stats: Box::new(self.snapshot(self.sched.qstart)) });
                }
                if next == NEVER {
                    let waiters = self.waiters();
                    return Err(SimError::Deadlock { waiters, stats: Box::new(self.snapshot(self.sched.qstart)) });
                }
                if self.cfg.skip_idle && next >= self.sched.qstart + q {
                    let mut target = next / q * q;
                    // Stop where stepping would have stopped.
                    if let Some(a) = self.cfg.alarm {
                        target = target.min(a.div_ceil(q) * q);
                    }
                    if let Some(m) = self.cfg.max_time {
                        target = target.min((m / q + 1) * q);
                    }
                    self.sched.qstart = target.max(self.sched.qstart);
                }
            }
        }
    }

    /// Runs the due processors in id order for the quantum ending at `qend` (a solo run
    /// may move it on); `active` becomes true if anything ran.
    pub(super) fn run_processors(&mut self, qend: &mut Ticks, active: &mut bool) -> Result<(), SimError> {
        while let Some(pp) = self.sched.due_now.pop_first() {
            let pp = pp as usize;
            self.sched.cur = Some((pp, *qend));
            *active |= self.run_pproc(pp)?;
            *qend = self.sched.cur.map_or(*qend, |(_, e)| e);
            if self.program_end.is_some() {
                break;
            }
        }
        Ok(())
    }

    /// Hands the network to its thread to process, while the processors run the quantum
    /// ending at `qend`, the events that no send of the quantum can change: those before
    /// `qstart + lookahead` (and before `qend`). Returns whether it did (there are such
    /// events); [`Self::ahead_end`] takes it back.
    pub(super) fn ahead_begin(&mut self, qend: Ticks) -> bool {
        let Some(a) = self.bridge.ahead.as_mut() else { return false };
        if !a.wanted() {
            return false;
        }
        let Some(l) = self.net.lookahead() else { return false };
        let until = self.sched.qstart.saturating_add(l).min(qend);
        let next0 = self.net.next_event();
        if next0 >= until {
            return false;
        }
        let Some(spare) = a.spare.take() else { return false };
        self.net.ahead(crate::net::AheadStep::Begin(until));
        let net = std::mem::replace(&mut self.net, spare);
        a.give(net, until, next0, read_requests(&self.bridge.in_flight, self.bridge.reads_pending));
        self.bridge.quanta_ahead += 1;
        true
    }

    /// Finishes a quantum that ran ahead: unless it failed (`ok` false: the run ends),
    /// the network's thread makes the held-back sends and processes the events up to
    /// the quantum's end `qend` while the arrivals of its first step are delivered here
    /// (they touch no network state: the first step stops at a remote-read request,
    /// whose reply is a send), then the network comes back with the later arrivals,
    /// which are delivered too. Everything happens as if the network had stayed here.
    pub(super) fn ahead_end(&mut self, ok: bool, qend: Ticks) {
        let Some(a) = self.bridge.ahead.as_mut() else { return };
        if !ok {
            let (net, arrivals) = a.take();
            a.spare = Some(std::mem::replace(&mut self.net, net));
            a.reuse(arrivals);
            return;
        }
        let (first, stopped) = a.first();
        let second = if stopped {
            // The reply of the request is made here, after the held-back sends.
            let (net, none) = a.take();
            a.reuse(none);
            a.spare = Some(std::mem::replace(&mut self.net, net));
            net_worker::enter(&mut *self.net, &a.held);
            false
        } else {
            a.second(qend, read_requests(&self.bridge.in_flight, self.bridge.reads_pending));
            true
        };
        for &(id, t) in &first {
            self.arrive(id, t);
        }
        let Some(a) = self.bridge.ahead.as_mut() else { return };
        a.reuse(first);
        if second {
            let (net, arrivals) = a.take();
            a.spare = Some(std::mem::replace(&mut self.net, net));
            for &(id, t) in &arrivals {
                self.arrive(id, t);
            }
            if let Some(a) = self.bridge.ahead.as_mut() {
                a.reuse(arrivals);
            }
        }
    }

    /// Sends a message into the network (held back while the network runs ahead: see
    /// [`Self::ahead_begin`]).
    pub(super) fn net_send(&mut self, id: u64, src: u32, dst: u32, bytes: u32, now: Ticks) -> Option<Ticks> {
        match self.bridge.ahead.as_mut() {
            Some(a) if a.active => {
                // A model that runs ahead delivers a message to the sender's own
                // processor at once, without the network ([`Network::lookahead`]).
                if src == dst {
                    return Some(now + a.params.local_cost);
                }
                a.min_ready = a.min_ready.min(a.params.ready(bytes, now));
                a.held.push((id, src, dst, bytes, now));
                None
            }
            _ => self.net.send(id, src, dst, bytes, now),
        }
    }

    /// The network's parameters, wherever the network runs.
    pub(super) fn net_params(&self) -> &crate::net::NetParams {
        match self.bridge.ahead.as_deref() {
            Some(a) if a.active => &a.params,
            _ => self.net.params(),
        }
    }

    /// The network's next event, as it would be with the held-back sends made.
    pub(super) fn net_next_event(&self) -> Ticks {
        match self.bridge.ahead.as_deref() {
            Some(a) if a.active => a.next0.min(a.min_ready),
            _ => self.net.next_event(),
        }
    }

    /// Adds the busy time of the quantum that just ran to its profile row.
    pub(super) fn record_profile(&mut self) {
        let Some(step) = self.cfg.profile_step else { return };
        let row = (self.sched.qstart / step.max(1)) as usize;
        if self.profile.len() <= row {
            self.profile.resize(row + 1, vec![0; self.busy.len()]);
        }
        for (pp, &b) in self.busy.iter().enumerate() {
            self.profile[row][pp] += b - self.profile_prev[pp];
            self.profile_prev[pp] = b;
        }
    }

    /// Earliest time any live process can run, after a quantum in which none ran: the
    /// least over the processors of their processes' least wake time (not before the
    /// processor's clock). A processor with a process to wake is due (in `due_next` or
    /// `due_later`) no later than that wake (see [`Self::lower_pmin`]), so the processors
    /// of `due_later` are looked at in the order of their due times and the search stops
    /// at the first due time not before the best found: a look at a few processors
    /// instead of every process of the machine. The entries looked at are put back.
    pub(super) fn next_event(&mut self) -> Ticks {
        let mut best = NEVER;
        if self.sched.due_next_min != NEVER {
            for pp in self.sched.due_next.iter() {
                best = best.min(self.proc_next(pp as usize));
            }
        }
        let mut taken = std::mem::take(&mut self.sched.due_taken);
        while let Some((t, &pp)) = self.sched.due_later.peek() {
            if t >= best {
                break;
            }
            self.sched.due_later.pop();
            taken.push((t, pp));
            best = best.min(self.proc_next(pp as usize));
        }
        for e in taken.drain(..) {
            self.sched.due_later.push(e.0, e.1);
        }
        self.sched.due_taken = taken;
        debug_assert_eq!(best, self.scan_next_event());
        best
    }

    /// When processor `pp` can next run one of its processes (NEVER: none is to wake).
    pub(super) fn proc_next(&self, pp: usize) -> Ticks {
        match self.scan_min_wake(pp) {
            NEVER => NEVER,
            w => w.max(self.pclock[pp]),
        }
    }

    /// [`Self::next_event`] by a look at every process (what the tests check it against).
    pub(super) fn scan_next_event(&self) -> Ticks {
        let mut next = NEVER;
        // The processes in the queues are those created and not ended.
        for p in self.pt.procs.iter().filter(|p| !p.ended) {
            let w = self.pt.wake[p.pid as usize];
            if w != NEVER {
                next = next.min(w.max(self.pclock[p.pproc as usize]));
            }
        }
        next
    }

    /// Runs the processes of physical processor `pp` for the current quantum (its end is
    /// in `self.sched.cur`; a solo run may move it on). Returns whether anything ran.
    pub(super) fn run_pproc(&mut self, pp: usize) -> Result<bool, SimError> {
        if self.pt.ready.is_indexed(pp) {
            return self.run_pproc_indexed(pp);
        }
        let mut active = false;
        loop {
            let qend = self.sched.cur.map_or(NEVER, |(_, e)| e);
            let floor = self.pclock[pp].max(self.sched.qstart);
            let mut best: Option<(usize, Ticks)> = None;
            let mut min_wake = NEVER;
            // The least wake time (and the queue index of its first holder) and the least
            // of the others: the least of all but the chosen process is one of them.
            let (mut min_at, mut min2) = (usize::MAX, NEVER);
            for (k, &pid) in self.pt.queues[pp].as_slice().iter().enumerate() {
                let w = self.pt.wake[pid as usize];
                if w == NEVER {
                    continue;
                }
                if w < min_wake {
                    min2 = min_wake;
                    min_wake = w;
                    min_at = k;
                } else if w < min2 {
                    min2 = w;
                }
                let s = w.max(floor);
                if best.is_none_or(|(_, b)| s < b) {
                    best = Some((k, s));
                }
            }
            let start = match best {
                Some((_, start)) if start < qend => start,
                _ => {
                    // Exact again: every process of this processor was just looked at.
                    self.settle(pp, min_wake);
                    break;
                }
            };
            let Some((k, _)) = best else { break };
            // The chosen process goes to the back of the queue.
            let queue = &mut self.pt.queues[pp];
            queue.move_to_back(k);
            let Some(&pid) = queue.as_slice().last() else { break };
            active = true;
            let others_min = if k == min_at { min2 } else { min_wake };
            if self.turn_on(pp, pid, start, qend)? {
                break;
            }
            if self.pt.ready.is_indexed(pp) {
                // The turn created the process that made the queue long: it is indexed
                // from now on, so the quantum goes on there.
                self.run_pproc_indexed(pp)?;
                break;
            }
            if !self.sched.woken && self.debug.is_none() {
                // Nothing but the turn's own process changed a wake time or the queue
                // (see `woken`): the others' wakes are those of the scan above, so when
                // no process can start before the quantum's end, the scan the loop would
                // do next finds just that, and its outcome is computed here.
                let min_wake = others_min.min(self.pt.wake[pid as usize]);
                let qend = self.sched.cur.map_or(NEVER, |(_, e)| e);
                let floor = self.pclock[pp].max(self.sched.qstart);
                if min_wake == NEVER || min_wake.max(floor) >= qend {
                    debug_assert_eq!(self.scan_min_wake(pp), min_wake);
                    self.settle(pp, min_wake);
                    break;
                }
            }
        }
        Ok(active)
    }

    /// [`Self::run_pproc`] for a processor whose queue is indexed ([`super::ready`]): the
    /// same choices, each found in logarithmic time.
    fn run_pproc_indexed(&mut self, pp: usize) -> Result<bool, SimError> {
        let mut active = false;
        loop {
            let qend = self.sched.cur.map_or(NEVER, |(_, e)| e);
            let floor = self.pclock[pp].max(self.sched.qstart);
            self.pt.ready.absorb(pp, floor);
            let start = match self.pt.ready.best(pp) {
                Some((pid, start)) if start < qend => (pid, start),
                _ => {
                    let min_wake = self.pt.ready.min_wake(pp).unwrap_or(NEVER);
                    self.settle(pp, min_wake);
                    break;
                }
            };
            let (pid, start) = start;
            self.pt.ready.send_to_back(pp, pid, self.pt.wake[pid as usize]);
            active = true;
            if self.turn_on(pp, pid, start, qend)? {
                break;
            }
        }
        Ok(active)
    }

    /// Runs `pid`'s turn on `pp` from `start` and moves the processor's clock on; true
    /// when the program ended in it.
    #[inline(always)]
    fn turn_on(&mut self, pp: usize, pid: u32, start: Ticks, qend: Ticks) -> Result<bool, SimError> {
        self.sched.woken = false;
        let mut r = self.turn(pid, start, qend);
        let c = self.pt.procs[pid as usize].clock;
        self.pclock[pp] = self.pclock[pp].max(c);
        if let Err(SimError::LimitExceeded { stats, .. }) = &mut r {
            // A limit hit inside the quantum: the run lasted until the last instruction
            // any processor ran in it ended, so that none was busy longer than the run.
            stats.par_ticks = stats.par_ticks.max(self.pclock.iter().copied().max().unwrap_or(c));
        }
        r?;
        Ok(self.program_end.is_some())
    }

    /// Processor `pp` has nothing more to run in this quantum: its least wake time, exact
    /// again, is where it is due next.
    #[inline(always)]
    fn settle(&mut self, pp: usize, min_wake: Ticks) {
        self.sched.pmin[pp] = min_wake;
        if min_wake != NEVER {
            self.due_at(min_wake, pp as u32);
        }
    }

    /// The least wake time of processor `pp`'s processes (NEVER: none), by a look at each.
    pub(super) fn scan_min_wake(&self, pp: usize) -> Ticks {
        if self.pt.ready.is_indexed(pp) {
            return self.pt.ready.min_wake(pp).unwrap_or(NEVER);
        }
        self.pt.queues[pp].as_slice().iter().map(|&pid| self.pt.wake[pid as usize]).min().unwrap_or(NEVER)
    }

    /// One turn of process `pid` starting at `start`, reported to the observer.
    pub(super) fn turn(&mut self, pid: u32, start: Ticks, qend: Ticks) -> Result<(), SimError> {
        if self.observer.is_none() {
            return self.turn_inner(pid, start, qend);
        }
        let pp = self.pt.procs[pid as usize].pproc;
        let busy0 = self.busy[pp as usize];
        if let Some(o) = self.observer.as_mut() {
            o.event(&SimEvent::Start { time: start, pid });
        }
        let r = self.turn_inner(pid, start, qend);
        let end = self.pt.procs[pid as usize].clock;
        let busy = self.busy[pp as usize] - busy0;
        if let Some(o) = self.observer.as_mut() {
            // The line the turn ended on (the last instruction's, for a process that ended).
            // (In a library function: the program's call into the library.)
            let p = &self.pt.procs[pid as usize];
            let pc = Self::line_pc(&self.lib_pc, p, p.pc) as u32;
            // (Code the compiler added, as a function's closing return, has no line: the
            // nearest line before it, within a few instructions.)
            let line = (0..8).map(|k| self.module.line_of(pc.saturating_sub(k))).find(|&l| l > 0).unwrap_or(0);
            o.event(&SimEvent::Run { pid, pproc: pp, start, end, busy, line });
        }
        r
    }

    pub(super) fn turn_inner(&mut self, pid: u32, start: Ticks, mut qend: Ticks) -> Result<(), SimError> {
        let pp = {
            self.set_wake(pid, NEVER);
            let p = &mut self.pt.procs[pid as usize];
            p.clock = start;
            p.wait = Reason::None;
            if p.ending {
                if p.forked_live == 0 {
                    let t = p.clock;
                    self.finish(pid, t);
                } else {
                    p.wait = Reason::Children;
                }
                return Ok(());
            }
            p.pproc as usize
        };
        let q = self.cfg.quantum.max(1);
        // After a debugger stop before the pc, that instruction runs without stopping again.
        let mut skip_first = false;
        loop {
            let mut cross_max = self.cross_max(pp, q);
            if let Some(w) = &self.cfg.watch {
                // A watched run leaves the interpreter every 2^16 quanta at least, so its
                // progress is published and a stop request seen (`solo_cross` then lets
                // the process go on as the interpreter would have).
                let stop = w.stop.load(std::sync::atomic::Ordering::Relaxed);
                cross_max = if stop { 0 } else { cross_max.min(qend.saturating_add(q << 16)) };
            }
            let p = &mut self.pt.procs[pid as usize];
            if p.start_cost > 0 {
                // Its arguments, evaluated for it (`--fork-args child`): busy time at the
                // start, on the line it starts at, a quantum at a time (as instructions
                // are, so that no event comes out of time order).
                let t = Ticks::from(p.start_cost).min(qend.saturating_sub(p.clock));
                p.start_cost -= t as u32;
                let rest = p.rare.as_deref_mut().filter(|r| r.args_cost > 0);
                if let (0, Some(r)) = (p.start_cost, rest) {
                    // The rest of an evaluation longer than a u32 of ticks.
                    p.start_cost = u32::try_from(r.args_cost).unwrap_or(u32::MAX);
                    r.args_cost -= Ticks::from(p.start_cost);
                }
                p.clock += t;
                self.busy[pp] += t;
                self.busy_sum = self.busy_sum.saturating_add(t);
                if let Some(x) = self.pc_ticks.get_mut(Self::line_pc(&self.lib_pc, p, p.pc)) {
                    *x += t;
                }
                if p.start_cost > 0 {
                    match self.quantum_over(pid, pp, qend) {
                        Some(e) => {
                            qend = e;
                            continue;
                        }
                        None => return Ok(()),
                    }
                }
            }
            let p = &mut self.pt.procs[pid as usize];
            let (time_on, clock0) = (p.time_on, p.clock);
            // Evaluating a fork's arguments for the child: no time, but sequential work.
            let args = !time_on && p.args_depth() > 0;
            if clock0 >= qend && !(qend <= cross_max && clock0 < qend + q) {
                // The interpreter's first check would end the turn before any instruction
                // (after a complex instruction that reached the quantum's end): its exit,
                // without the call.
                skip_first = false;
                match self.quantum_over(pid, pp, qend) {
                    Some(e) => {
                        qend = e;
                        continue;
                    }
                    None => return Ok(()),
                }
            }
            let Tables { ticks, seq, charges } = &*self.tables[self.table_of[pp]].1;
            let (stops, traced): (&[u64], &[(u32, u32)]) = match self.debug.as_deref() {
                Some(d) if d.step_pid == pid => (&d.step_stops, &d.traced),
                Some(d) => (&d.stops, &d.traced),
                None => (&[], &[]),
            };
            let env = Env {
                code: &self.prog,
                flat: &self.flat,
                flat_any: self.flat_any,
                funcs: &self.funcs,
                ticks: if time_on { ticks } else { &ZERO_TABLE },
                seq: if time_on || args { seq } else { &ZERO_TABLE },
                cum: if time_on { &charges.cum } else { &[] },
                cum_seq: if time_on { &charges.seq } else { &[] },
                seq_same: time_on && charges.seq_same,
                tmax: charges.tmax,
                max_stack: self.cfg.max_stack_words,
                q,
                cross_max,
                stops,
                skip_first,
                traced,
                lib: &self.lib_pc,
            };
            let mut ctr = Ctr {
                seq: 0,
                steps_left: self.steps_left,
                qend,
                crossed: 0,
                cross_clock: 0,
                trace_hit: false,
                calls: std::mem::take(&mut self.call_marks),
            };
            let (mem, pc_ticks) = (&mut self.mem, &mut self.pc_ticks[..]);
            let r = match (self.debug.is_some(), mem.sole_owner() == Some(p.pproc), !pc_ticks.is_empty()) {
                (false, true, false) => interp::<false, false, false>(&env, p, mem, &mut ctr, pc_ticks),
                (false, false, false) => interp::<true, false, false>(&env, p, mem, &mut ctr, pc_ticks),
                (false, true, true) => interp::<false, false, true>(&env, p, mem, &mut ctr, pc_ticks),
                (false, false, true) => interp::<true, false, true>(&env, p, mem, &mut ctr, pc_ticks),
                (true, true, _) => interp::<false, true, true>(&env, p, mem, &mut ctr, pc_ticks),
                (true, false, _) => interp::<true, true, true>(&env, p, mem, &mut ctr, pc_ticks),
            };
            skip_first = false;
            let clock = p.clock;
            if !ctr.calls.is_empty() {
                if let Some(o) = self.observer.as_mut() {
                    for &(time, f) in &ctr.calls {
                        let function = f & !LEAVE;
                        o.event(&if f & LEAVE == 0 {
                            SimEvent::Enter { time, pid, function }
                        } else {
                            SimEvent::Leave { time, pid, function }
                        });
                    }
                }
                ctr.calls.clear();
            }
            self.call_marks = std::mem::take(&mut ctr.calls);
            // The work (and the busy time) summed over processors grows faster than any
            // clock: past the clock's range it is a limit, never a wrapped (wrong)
            // speedup or line cost.
            self.stats.seq_ticks = self.stats.seq_ticks.saturating_add(ctr.seq);
            self.busy_sum = self.busy_sum.saturating_add(clock - clock0);
            if self.stats.seq_ticks > crate::time::MAX_TIME || self.busy_sum > crate::time::MAX_TIME {
                return Err(self.limit(Limit::Work));
            }
            if args {
                let p = &mut self.pt.procs[pid as usize];
                let r = p.rare_mut();
                r.args_cost = r.args_cost.saturating_add(ctr.seq);
            }
            self.busy[pp] += clock - clock0;
            self.stats.instructions += self.steps_left - ctr.steps_left;
            self.steps_left = ctr.steps_left;
            if ctr.crossed > 0 {
                // The quantum ends the interpreter went past, as `solo_cross` does them.
                qend = ctr.qend;
                self.pclock[pp] = self.pclock[pp].max(ctr.cross_clock);
                self.sched.pmin[pp] = ctr.cross_clock;
                self.sched.qstart = qend - q;
                self.sched.cur = Some((pp, qend));
            }
            if ctr.trace_hit && r.is_ok() {
                self.debug_stop(Stop::Traced { pid })?;
            }
            match r {
                Err(k) => return Err(self.rt(pid, k)),
                Ok(Exit::Stop) => {
                    let pc = self.pt.procs[pid as usize].pc;
                    self.debug_stop(Stop::Pc { pid, pc })?;
                    skip_first = true;
                }
                Ok(Exit::Traced) => {}
                Ok(Exit::Quantum) => match self.quantum_over(pid, pp, qend) {
                    Some(e) => {
                        qend = e;
                        continue;
                    }
                    None => return Ok(()),
                },
                Ok(Exit::Steps) => return Err(self.limit(Limit::Steps)),
                Ok(Exit::Remote(mut acc)) => {
                    let p = &self.pt.procs[pid as usize];
                    let (me, now) = (p.pproc, p.clock);
                    if let Some((o, _, a)) = acc.write {
                        self.post_write(pid, me, o, a, std::mem::take(&mut acc.vals), now);
                    }
                    if let Some((o, w, a)) = acc.read {
                        self.bridge.msg_seq += 1;
                        let wake = match self.remote_send(RemoteKind::Read, pid, a, me, o, 4, now) {
                            Some(t1) => self.read_reply(pid, a, me, o, w, t1),
                            None => {
                                let req = InFlight::ReadRequest { pid, addr: a, reader: me, owner: o, words: w };
                                self.bridge.in_flight.insert(self.bridge.msg_seq, req);
                                self.bridge.reads_pending += 1;
                                NEVER
                            }
                        };
                        self.stats.remote_reads += 1;
                        self.block(pid, Reason::RemoteRead { owner: o }, wake);
                        return Ok(());
                    }
                }
                Ok(Exit::Complex) => {
                    let pc = self.pt.procs[pid as usize].pc;
                    let Some(ins) = self.prog.get(pc as usize).map(|s| s.ins) else {
                        let message = format!("pc {pc} outside the code");
                        return Err(self.rt(pid, RuntimeError::BadCode { message }));
                    };
                    let flow = self.exec_complex(pid, ins)?;
                    if self.complex_traced.replace(false) && matches!(flow, Flow::Continue) {
                        self.debug_stop(Stop::Traced { pid })?;
                    }
                    match flow {
                        // The interpreter's first step ends the turn if the quantum is over.
                        Flow::Continue => {}
                        Flow::Stop => return self.debug_after_stop(pid),
                    }
                }
            }
        }
    }

    /// `pid`'s turn reached the end `qend` of the quantum: the next quantum's end when the
    /// turn goes on ([`Self::solo_cross`]), else `None` and the process waits for the
    /// scheduler from its clock.
    #[inline(always)]
    pub(super) fn quantum_over(&mut self, pid: u32, pp: usize, qend: Ticks) -> Option<Ticks> {
        // A process not alone on its processor, or with processors still to visit in
        // this quantum, never goes on (the common cases, tested here without a call).
        let e = if self.sched.due_now.is_empty() && self.queue_len(pp) == 1 {
            self.solo_cross(pid, pp, qend)
        } else {
            None
        };
        if e.is_none() {
            let c = self.pt.procs[pid as usize].clock;
            self.set_wake(pid, c);
        }
        e
    }

    /// Called when `pid` (running on `pp`) reaches the end `qend` of the current quantum:
    /// when the scheduler would do nothing in between but run `pid` again from its clock
    /// in the next quantum, does the quantum change's bookkeeping and returns the next
    /// quantum's end, so the turn goes on without a trip through the scheduler.
    ///
    /// That is the case when no observer sees the turns, `pid` is alone in its
    /// processor's queue, no other processor is due in the rest of this quantum or in
    /// the next one, `pid` can start in the next quantum (its clock is before that
    /// quantum's end), and neither the alarm nor the time limit stops the run at this
    /// quantum's end. The scheduler's own steps at such a change are then: the
    /// processor's clock and wake bound become `pid`'s clock, the profile row gets the
    /// quantum's busy time, the global clock moves to `qend`; nothing else changes.
    /// The bound [`Env::cross_max`] for a process running on `pp`: the latest quantum
    /// end at which [`Simulator::solo_cross`] would let it go on, as far as that depends
    /// on the machine and not on the process's clock (0: none). It holds until the
    /// interpreter leaves, as only the instructions it leaves for change the machine.
    /// With a profile, every quantum's busy time needs its row: left to `solo_cross`.
    pub(super) fn cross_max(&self, pp: usize, q: Ticks) -> Ticks {
        // Processors still to visit in this quantum (the common case) first.
        let alone = self.sched.due_now.is_empty()
            && self.observer.is_none()
            && self.cfg.profile_step.is_none()
            && self.program_end.is_none()
            && self.queue_len(pp) == 1;
        if !alone {
            return 0;
        }
        // Quantum end `e` may be crossed when no processor is due before `e + q`, the
        // alarm is after `e` and the time limit not before it.
        let due = self.due_min().saturating_sub(q);
        let alarm = self.cfg.alarm.map_or(NEVER, |a| a.saturating_sub(1));
        // The network is advanced at every quantum end it has an event before.
        // A remote write lands at the first quantum end at or after its arrival.
        let landing = self.next_landing().saturating_sub(1);
        due.min(alarm).min(self.cfg.max_time.unwrap_or(NEVER)).min(self.net_next_event()).min(landing)
    }

    pub(super) fn solo_cross(&mut self, pid: u32, pp: usize, qend: Ticks) -> Option<Ticks> {
        let q = self.cfg.quantum.max(1);
        let next = qend + q;
        let clock = self.pt.procs[pid as usize].clock;
        let alone = self.sched.due_now.is_empty()
            && self.observer.is_none()
            && self.program_end.is_none()
            && self.queue_len(pp) == 1
            && self.due_min() >= next
            && self.net_next_event() >= qend;
        if !alone || clock >= next {
            return None;
        }
        let stops = self.cfg.alarm.is_some_and(|a| qend >= a)
            || self.cfg.max_time.is_some_and(|m| qend > m)
            || self.watched(qend);
        if stops {
            return None;
        }
        self.pclock[pp] = self.pclock[pp].max(clock);
        self.sched.pmin[pp] = clock;
        self.record_profile();
        self.land_writes(qend);
        self.sched.qstart = qend;
        self.sched.cur = Some((pp, next));
        Some(next)
    }

    /// Publishes the progress at the quantum end `qend` to the watch, if any; whether it
    /// asks the run to stop.
    pub(super) fn watched(&self, qend: Ticks) -> bool {
        let Some(w) = &self.cfg.watch else { return false };
        use std::sync::atomic::Ordering::Relaxed;
        w.time.store(qend, Relaxed);
        w.instructions.store(self.stats.instructions, Relaxed);
        w.alive.store(u64::from(self.pt.live_procs), Relaxed);
        w.stop.load(Relaxed)
    }

    /// Notes that a process of processor `pp` may run from `t`: the processor is visited
    /// in this quantum if it comes later in the id order and `t` is before the quantum's
    /// end, else in the quantum containing `t` (or later).
    pub(super) fn lower_pmin(&mut self, pp: usize, t: Ticks) {
        self.sched.woken = true;
        if t >= self.sched.pmin[pp] {
            return;
        }
        self.sched.pmin[pp] = t;
        match self.sched.cur {
            Some((cur, qend)) if pp > cur && t < qend => {
                self.sched.due_now.insert(pp as u32);
            }
            _ => self.due_at(t, pp as u32),
        }
    }

    /// Notes that processor `pp` is due in the quantum containing `t` (or later).
    #[inline]
    pub(super) fn due_at(&mut self, t: Ticks, pp: u32) {
        if t < self.sched.due_next_bound {
            self.sched.due_next.insert(pp);
            self.sched.due_next_min = self.sched.due_next_min.min(t);
        } else {
            self.sched.due_later.push(t, pp);
        }
    }

    /// The least time a processor is due at after this quantum (as far as noted).
    #[inline]
    pub(super) fn due_min(&self) -> Ticks {
        self.sched.due_later.peek_time().unwrap_or(NEVER).min(self.sched.due_next_min)
    }
}
