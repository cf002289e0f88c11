//! The instructions the interpreter's loop leaves to the whole machine: calls that need
//! a new frame segment, process creation and joins, channels, locks, delays, remote
//! accesses, math, `printf`/`scanf` and the program's files.
use super::*;
use crate::vcode::{IdentInfo, IdentKind};

impl<'m> Simulator<'m> {
    /// `mapping("SPEC")`: the processes created from now on are placed by SPEC, a mapping
    /// of the run's virtual architecture onto its physical one.
    fn set_mapping(&mut self, pid: u32, spec: &str) -> Result<(), SimError> {
        let bad = |message: String| RuntimeError::Mapping { spec: spec.to_string(), message };
        let Some(t) = self.cfg.topologies.clone() else {
            return Err(self.rt(pid, bad("the run has no virtual architecture to map".into())));
        };
        let (virt, phys) = (&t.0, &t.1);
        match crate::topo::resolve_mapping(spec, virt, phys, self.cfg.seed)
            .and_then(|m| m.validate(virt, phys).map(|()| m))
        {
            Ok(m) => {
                self.cfg.mapping = m.table;
                Ok(())
            }
            Err(e) => Err(self.rt(pid, bad(e.to_string()))),
        }
    }

    pub(super) fn string_at(&self, pid: u32, addr: i64) -> Result<Vec<u8>, SimError> {
        let mut s = Vec::new();
        self.string_into(pid, addr, &mut s)?;
        Ok(s)
    }

    /// [`Self::string_at`] into `out` (cleared first).
    fn string_into(&self, pid: u32, addr: i64, out: &mut Vec<u8>) -> Result<(), SimError> {
        self.mem
            .read_c_string_into(addr, usize::MAX, out)
            .ok_or_else(|| self.rt(pid, RuntimeError::BadAddress { addr }))
    }

    /// Notes that the running complex instruction referenced pool words `lo..lo + len`
    /// (seed 000 Table 1: LOCK, UNLOCK, SCANF, FSCANF, PRINTF, FPRINTF reference
    /// variables): if the debugger traces one of them, the process suspends after it.
    pub(super) fn note_ref(&self, lo: usize, len: usize) {
        if let Some(d) = self.debug.as_deref() {
            if d.traced.iter().any(|&(a, b)| (a as usize) < lo + len && lo < b as usize) {
                self.complex_traced.set(true);
            }
        }
    }

    /// Executes an instruction that needs more than the running process and the pool.
    /// The busiest, SEND and RECV, have functions of their own, called from here without
    /// entering the large function that runs all the others ([`Self::exec_other`]).
    #[inline(always)]
    pub(super) fn exec_complex(&mut self, pid: u32, ins: Instr) -> Result<Flow, SimError> {
        match ins {
            Instr::Send { n } => self.exec_send(pid, n),
            Instr::Recv { .. } => self.exec_recv(pid),
            _ => self.exec_other(pid, ins),
        }
    }

    /// SEND of `n` words.
    fn exec_send(&mut self, pid: u32, n: u32) -> Result<Flow, SimError> {
        let op = Op::Send;
        // The send's own pc: `charge` moves past it.
        let pc = self.pt.procs[pid as usize].pc;
        let data = self.pop_payload(pid, n as usize)?;
        let a = as_int(self.pop(pid)?) as i64;
        let c = self.chan_index(pid, a)?;
        let bytes: u32 = data.iter().copied().map(word_bytes).sum();
        self.charge(pid, op)?;
        self.post_message(pid, pc, c, data, bytes)?;
        Ok(Flow::Continue)
    }

    /// Sends message `data` (`bytes` on the wire) from `pid`, whose SEND or MPI send is
    /// at `pc` and charged, to channel element `c`: eager, or parked for the handshake
    /// above the eager limit; delivered in order per sender.
    pub(super) fn post_message(
        &mut self,
        pid: u32,
        pc: u32,
        c: usize,
        data: Payload,
        bytes: u32,
    ) -> Result<(), SimError> {
        self.overhead(pid, self.net_params().send_overhead);
        // Each unreceived message holds host memory: bounded in count and in words.
        let words = data.len() as u64;
        if self.ch.unreceived >= self.cfg.max_messages || self.ch.unreceived_words + words > self.cfg.max_message_words
        {
            return Err(self.limit(Limit::Messages));
        }
        self.ch.unreceived += 1;
        self.ch.unreceived_words += words;
        let owner = self.ch.chans[c].owner;
        let src = self.pt.procs[pid as usize].pproc;
        let now = self.pt.procs[pid as usize].clock;
        let dst = self.pt.procs.get(owner as usize).map_or(src, |p| p.pproc);
        self.bridge.msg_seq += 1;
        let id = self.bridge.msg_seq;
        // Above the eager limit the data waits for the handshake ([`Self::post_recv`]).
        let rendezvous = src != dst && self.net_params().eager_limit.is_some_and(|l| bytes > l);
        let arrival = if rendezvous { None } else { self.net_send(id, src, dst, bytes, now) };
        self.stats.messages += 1;
        self.stats.bytes = self.stats.bytes.saturating_add(u64::from(bytes));
        let t = self.ch.record(c);
        let k = match self.ch.traffic[t].from.iter().position(|f| f.pid == pid) {
            Some(k) => k,
            None => {
                let pending = self.ch.pending_queue();
                let from = &mut self.ch.traffic[t].from;
                // Room for one sender: most channel elements see one.
                from.reserve_exact(1);
                from.push(FromSender { pid, last: 0, pending });
                from.len() - 1
            }
        };
        let rdv = if rendezvous { Rdv::Parked { rts: NEVER, posted: NEVER } } else { Rdv::Eager };
        self.ch.parked += u64::from(rendezvous);
        let arrival_at = arrival.map_or(NEVER, |t| t.max(now));
        let sent = Sent { id, arrival: arrival_at, sent: now, data, bytes, deferred: rendezvous, rdv };
        self.ch.traffic[t].from[k].pending.push_back(sent);
        if self.observer.is_some() {
            // The arrival after the non-overtaking rule (the last delivery).
            let known = arrival.map(|t| t.max(now).max(self.ch.traffic(c).from[k].last));
            let (channel, elem) = self.ch.decl_of(c);
            // An MPI send is at the program's line that called MPI.
            let line = if c >= self.ranks.mailbox { self.mpi_line(pid, pc) } else { self.module.line_of(pc) };
            if let Some(o) = self.observer.as_mut() {
                o.event(&SimEvent::Send {
                    time: now,
                    msg: id,
                    src_pid: pid,
                    dst_pid: owner,
                    src_pproc: src,
                    dst_pproc: dst,
                    channel,
                    elem,
                    bytes,
                    arrival: known,
                    line,
                });
            }
        }
        self.flush_hops();
        match arrival {
            Some(_) => self.deliver_ready(c, k),
            None if rendezvous => {
                self.handshake(c, pid, id, true, src, dst, now);
                let reason = self.ch.reason(c);
                if let Some(o) = self.pt.procs.get(owner as usize).filter(|o| o.wait == reason) {
                    let waiting_from = o.clock;
                    self.post_recv(c, waiting_from);
                }
            }
            None => {
                if let Some(e) = self.ch.traffic_mut(c).from[k].pending.back_mut() {
                    e.deferred = true;
                }
                self.bridge.in_flight.insert(id, InFlight::Chan { chan: c as u32, sender: pid });
            }
        }
        Ok(())
    }

    /// RECV.
    fn exec_recv(&mut self, pid: u32) -> Result<Flow, SimError> {
        let op = Op::Recv;
        let a = as_int(self.peek(pid)?) as i64;
        let c = self.chan_index(pid, a)?;
        let owner = self.ch.chans[c].owner;
        if owner != pid {
            let channel = self.channel_name(a as u32);
            return Err(self.rt(pid, RuntimeError::NotOwner { reader: pid, owner, channel }));
        }
        let clock = self.pt.procs[pid as usize].clock;
        match self.ch.traffic(c).queue.peek().map(|m| m.arrival) {
            Some(t) if t <= clock => {
                let (m, seq) = self.ch.traffic_mut(c).queue.pop().map(|m| (m.data, m.seq)).unwrap_or_default();
                self.ch.settle(c);
                self.ch.unreceived = self.ch.unreceived.saturating_sub(1);
                self.ch.unreceived_words = self.ch.unreceived_words.saturating_sub(m.len() as u64);
                let p = &mut self.pt.procs[pid as usize];
                p.stack.pop();
                match &*m {
                    [w] => p.stack.push(*w),
                    words => p.stack.extend_from_slice(words),
                }
                self.charge(pid, op)?;
                self.overhead(pid, self.net_params().recv_overhead);
                if self.observer.is_some() {
                    let (time, line) =
                        (self.pt.procs[pid as usize].clock, self.module.line_of(self.pt.procs[pid as usize].pc));
                    let (channel, elem) = self.ch.decl_of(c);
                    if let Some(o) = self.observer.as_mut() {
                        o.event(&SimEvent::Receive { time, pid, channel, elem, arrival: t, line, msg: seq });
                    }
                }
                Ok(Flow::Continue)
            }
            other => {
                let reason = self.ch.reason(c);
                self.block(pid, reason, other.unwrap_or(NEVER));
                // (Blocked first: a message the handshake delivers at once wakes it.)
                self.post_recv(c, clock);
                Ok(Flow::Stop)
            }
        }
    }

    /// Every complex instruction but SEND and RECV ([`Self::exec_complex`]).
    fn exec_other(&mut self, pid: u32, ins: Instr) -> Result<Flow, SimError> {
        let op = ins.op();
        match ins {
            Instr::Call { .. } | Instr::CallInd {} => {
                let func = match ins {
                    Instr::Call { func } => func,
                    _ => {
                        let v = as_int(self.pop(pid)?);
                        if v == 0 {
                            return Err(self.rt(pid, RuntimeError::NullFunction));
                        }
                        match u32::try_from(v - 1).ok().filter(|&f| (f as usize) < self.funcs.len()) {
                            Some(f) => f,
                            None => {
                                let message = format!("call through a function pointer holding {v}");
                                return Err(self.rt(pid, RuntimeError::BadCode { message }));
                            }
                        }
                    }
                };
                let f = self.funcs[func as usize];
                let n = f.frame.max(f.params);
                let pp = self.pt.procs[pid as usize].pproc;
                // The top frame's segment is full: the next kept segment if it holds the
                // frame, else a new one in place of the kept ones (sizes grow 16, 64,
                // 256 words... up to `segment_words`, so a process that calls a small
                // function holds little).
                let p = &mut self.pt.procs[pid as usize];
                let next = p.cur_seg as usize + 1;
                let base = match p.segs.get_mut(next) {
                    Some(s) if s.len >= n => {
                        s.top = n;
                        s.base
                    }
                    _ => {
                        for s in p.segs.drain(next..) {
                            self.mem.free(s.base, s.len);
                        }
                        let shift = (2 * next - 2).min(30) as u32;
                        let len = n.max((16u32 << shift).min(self.cfg.segment_words));
                        let base = self.mem.alloc(len, pp).map_err(|e| self.alloc_error(e))?;
                        self.pt.procs[pid as usize].segs.push(Seg { base, len, top: n });
                        base
                    }
                };
                self.pt.procs[pid as usize].cur_seg = next as u32;
                let ret = self.pt.procs[pid as usize].pc + 1;
                if self.lib_pc.get(ret as usize - 1) == Some(&false) {
                    // The program calls (into the library, perhaps): its line for the
                    // library's time.
                    self.pt.procs[pid as usize].rare_mut().line_site = ret - 1;
                }
                self.charge(pid, op)?;
                let p = &mut self.pt.procs[pid as usize];
                push_frame(p, &mut self.mem, f, base, ret).map_err(|k| self.rt(pid, k))?;
                if let Some(o) = self.observer.as_mut() {
                    let time = self.pt.procs[pid as usize].clock;
                    o.event(&SimEvent::Enter { time, pid, function: func });
                }
                Ok(Flow::Continue)
            }
            Instr::Ret { .. } => {
                // Return from the bottom frame.
                let p = &mut self.pt.procs[pid as usize];
                let next = p.rare.as_deref_mut().filter(|r| r.group_next <= r.group_hi).map(|r| {
                    r.group_next += 1;
                    r.group_next - 1
                });
                if let Some(idx) = next {
                    // Next index of this forall child's group: same frame, fresh words.
                    let fr = p.bottom_frame();
                    let r = fr.base as usize..(fr.base + fr.words) as usize;
                    if let Some(w) = self.mem.words.get_mut(r) {
                        w.fill(Word::Int(0));
                        w[0] = Word::Int(idx as i32);
                    }
                    p.stack.clear();
                    let entry = self.funcs[p.func as usize].entry;
                    self.charge(pid, op)?;
                    self.pt.procs[pid as usize].pc = entry;
                    return Ok(Flow::Continue);
                }
                self.charge(pid, op)?;
                self.begin_end(pid);
                Ok(Flow::Stop)
            }
            Instr::Halt {} => {
                self.charge(pid, op)?;
                self.begin_end(pid);
                Ok(Flow::Stop)
            }
            Instr::CopyToNewBlock { n } => {
                let a = as_int(self.pop(pid)?) as i64;
                let pp = self.pt.procs[pid as usize].pproc;
                let base = self.mem.alloc(n, pp).map_err(|e| self.alloc_error(e))?;
                for k in 0..n as i64 {
                    let i =
                        self.mem.index(a + k).ok_or_else(|| self.rt(pid, RuntimeError::BadAddress { addr: a + k }))?;
                    self.mem.words[base as usize + k as usize] = self.mem.words[i];
                }
                self.pt.procs[pid as usize].stack.push(Word::Int(base as i32));
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Status {} => {
                self.stats.exit_status = as_int(self.pop(pid)?);
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Args {} => {
                // A marker: no cost, not counted.
                let child = self.cfg.fork_args_child;
                let p = &mut self.pt.procs[pid as usize];
                if p.args_depth() > 0 {
                    p.rare_mut().args_depth += 1;
                } else if child && p.time_on {
                    p.time_on = false;
                    let r = p.rare_mut();
                    (r.args_depth, r.args_cost) = (1, 0);
                }
                p.pc += 1;
                Ok(Flow::Continue)
            }
            Instr::Fork { func, chans, vproc } => {
                self.fork(pid, op, func, chans, vproc, Kind::Fork)?;
                self.pt.procs[pid as usize].forked_live += 1;
                Ok(Flow::Continue)
            }
            Instr::ForallFork { func, chans, vproc } => {
                self.fork(pid, op, func, chans, vproc, Kind::Forall)?;
                self.pt.procs[pid as usize].rare_mut().forall_pending += 1;
                Ok(Flow::Continue)
            }
            Instr::ForallWait {} => {
                let p = &mut self.pt.procs[pid as usize];
                let clock = p.clock;
                if let Some(r) = p.rare.as_deref_mut() {
                    if r.forall_pending > 0 {
                        self.block(pid, Reason::Forall, NEVER);
                        return Ok(Flow::Stop);
                    }
                    if r.forall_end > clock {
                        let t = r.forall_end;
                        self.block(pid, Reason::Forall, t);
                        return Ok(Flow::Stop);
                    }
                    r.forall_end = 0;
                }
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Forall { func, grouping } => {
                let hi = as_int(self.pop(pid)?) as i64;
                let lo = as_int(self.pop(pid)?) as i64;
                let g = if grouping { (as_int(self.pop(pid)?) as i64).max(1) } else { 1 };
                self.charge(pid, op)?;
                let (start, display) = {
                    let p = &self.pt.procs[pid as usize];
                    (p.clock, p.display.clone())
                };
                let mut n = 0;
                let mut a = lo;
                while a <= hi {
                    let b = (a + g - 1).min(hi);
                    let pp = self.default_pproc();
                    self.spawn(pid, Kind::Forall, func, pp, pp, &[Word::Int(a as i32)], &display, start, (a + 1, b))?;
                    n += 1;
                    a = b + 1;
                }
                if n == 0 {
                    return Ok(Flow::Continue);
                }
                let r = self.pt.procs[pid as usize].rare_mut();
                r.forall_pending = n;
                r.forall_end = 0;
                self.block(pid, Reason::Forall, NEVER);
                Ok(Flow::Stop)
            }
            Instr::Join {} => {
                let p = &mut self.pt.procs[pid as usize];
                match p.ended_children.peek() {
                    Some(t) if t <= p.clock => {
                        p.take_child_end();
                        self.charge(pid, op)?;
                        Ok(Flow::Continue)
                    }
                    Some(t) => {
                        self.block(pid, Reason::Join, t);
                        Ok(Flow::Stop)
                    }
                    None if p.forked_live > 0 => {
                        self.block(pid, Reason::Join, NEVER);
                        Ok(Flow::Stop)
                    }
                    None => Err(self.rt(pid, RuntimeError::NothingToJoin)),
                }
            }
            Instr::Lock {} => {
                let a = as_int(self.peek(pid)?) as i64;
                let i = self.mem.index(a).ok_or_else(|| self.rt(pid, RuntimeError::BadAddress { addr: a }))? as u32;
                let p = &mut self.pt.procs[pid as usize];
                let granted = p.granted() == i + 1;
                let (me, now) = (p.pproc, p.clock);
                let owner = self.mem.owner[i as usize];
                if granted || (owner == me && as_int(self.mem.words[i as usize]) == 0) {
                    // Taken: free in its own processor's memory, or granted.
                    if let Some(r) = self.pt.procs[pid as usize].rare.as_deref_mut() {
                        r.granted = 0;
                    }
                    self.note_ref(i as usize, 1);
                    self.mem.words[i as usize] = Word::Int(pid as i32 + 1);
                    self.pt.procs[pid as usize].stack.pop();
                    self.charge(pid, op)?;
                    Ok(Flow::Continue)
                } else if owner == me {
                    self.ch.lock_waiters.entry(i).or_default().push_back((pid, now));
                    self.block(pid, Reason::Lock { lock: i }, NEVER);
                    Ok(Flow::Stop)
                } else {
                    // A request to the lock's processor, which grants it with a reply.
                    self.bridge.msg_seq += 1;
                    match self.remote_send(RemoteKind::Read, pid, i, me, owner, 4, now) {
                        Some(t) => self.lock_request(pid, i, t.max(now)),
                        None => {
                            self.bridge.in_flight.insert(self.bridge.msg_seq, InFlight::LockRequest { pid, lock: i });
                            self.bridge.reads_pending += 1;
                        }
                    }
                    let wake = self.pt.wake[pid as usize];
                    self.block(pid, Reason::Lock { lock: i }, wake);
                    Ok(Flow::Stop)
                }
            }
            Instr::Unlock {} => {
                let a = as_int(self.pop(pid)?) as i64;
                let i = self.mem.index(a).ok_or_else(|| self.rt(pid, RuntimeError::BadAddress { addr: a }))? as u32;
                self.note_ref(i as usize, 1);
                self.charge(pid, op)?;
                let p = &self.pt.procs[pid as usize];
                let (me, now) = (p.pproc, p.clock);
                let owner = self.mem.owner[i as usize];
                if owner == me {
                    let at = now.max(self.landed(p.writes_last()));
                    self.lock_release(i, at);
                } else {
                    // Posted: the release travels to the lock's processor.
                    self.bridge.msg_seq += 1;
                    match self.remote_send(RemoteKind::Write, pid, i, me, owner, 8, now) {
                        Some(t) => {
                            let at = t.max(now).max(self.landed(self.pt.procs[pid as usize].writes_last()));
                            self.lock_release(i, at);
                        }
                        None => {
                            self.bridge.in_flight.insert(self.bridge.msg_seq, InFlight::LockRelease { pid, lock: i });
                            self.bridge.reads_pending += 1;
                        }
                    }
                }
                Ok(Flow::Continue)
            }
            Instr::Delay {} => {
                let d = match self.pop(pid)? {
                    // NaN and negative delays are 0; a huge one passes the clock's range.
                    Word::Float(f) => (f as f64 * TICKS_PER_UNIT as f64).round().clamp(0.0, MAX_TIME as f64) as Ticks,
                    Word::Double(f) => (f * TICKS_PER_UNIT as f64).round().clamp(0.0, MAX_TIME as f64) as Ticks,
                    Word::Long(l) => (l.max(0) as u64).saturating_mul(TICKS_PER_UNIT),
                    w => (as_int(w).max(0) as Ticks) * TICKS_PER_UNIT,
                };
                self.charge(pid, op)?;
                let until = self.pt.procs[pid as usize].clock.saturating_add(d);
                if until >= MAX_TIME {
                    return Err(self.limit(Limit::Clock));
                }
                self.block(pid, Reason::Delay { until }, until);
                Ok(Flow::Stop)
            }
            Instr::Probe {} => {
                let label = as_int(self.pop(pid)?) as i64;
                let id = as_int(self.pop(pid)?);
                self.charge(pid, op)?;
                self.probes_run += 1;
                let is_mapping = id == crate::vcode::MAPPING_PROBE_ID;
                if self.observer.is_some() || is_mapping || !self.cfg.phase_mappings.is_empty() {
                    let label = self.string_at(pid, label)?;
                    let label = String::from_utf8_lossy(&label).into_owned();
                    let time = self.pt.procs[pid as usize].clock;
                    if let Some(o) = self.observer.as_mut() {
                        o.event(&SimEvent::Probe { time, pid, id, label: &label });
                    }
                    if is_mapping {
                        let spec = label.strip_prefix(crate::vcode::MAPPING_PREFIX).unwrap_or(&label);
                        self.set_mapping(pid, spec)?;
                    } else if !self.cfg.phase_mappings.is_empty() {
                        let n = format!("#{}", self.probes_run);
                        if let Some((_, table)) = self.cfg.phase_mappings.iter().find(|(k, _)| *k == label || *k == n) {
                            self.cfg.mapping = table.clone();
                        }
                    }
                }
                Ok(Flow::Continue)
            }
            Instr::TimeOn {} | Instr::TimeOff {} => {
                let on = matches!(ins, Instr::TimeOn {});
                self.pt.procs[pid as usize].time_on = on;
                self.charge(pid, op)?;
                if let Some(o) = self.observer.as_mut() {
                    let time = self.pt.procs[pid as usize].clock;
                    o.event(&SimEvent::Timing { time, pid, on });
                }
                Ok(Flow::Continue)
            }
            Instr::Rand {} => {
                let x = crate::sim::rng::next_f32(&mut self.rng);
                self.pt.procs[pid as usize].stack.push(Word::Float(x));
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Srand {} => {
                let s = as_int(self.pop(pid)?);
                self.rng = Rng::new(s as u32 as u64);
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Printf { .. } | Instr::Fprintf { .. } | Instr::Vprintf {} | Instr::Vfprintf {} => {
                // The argument words, the format and the text in the buffers kept for them.
                let mut args = std::mem::take(&mut self.text_args);
                let va = match ins {
                    Instr::Printf { argc } | Instr::Fprintf { argc } => {
                        self.pop_n_into(pid, argc as usize, &mut args)?;
                        None
                    }
                    _ => Some(as_int(self.pop(pid)?) as i64),
                };
                let fmt_addr = as_int(self.pop(pid)?) as i64;
                let file = if matches!(ins, Instr::Fprintf { .. } | Instr::Vfprintf {}) {
                    Some(as_int(self.pop(pid)?) as i64)
                } else {
                    None
                };
                let (args, fmt, mut out) = self.printf_text(pid, fmt_addr, va, args)?;
                // The output cap: the write that would pass it is cut there, and the run
                // stops once that much is written.
                let room = self.cfg.max_output.saturating_sub(self.output_bytes);
                let over = out.len() as u64 > room;
                if over {
                    out.truncate(room as usize);
                }
                self.output_bytes += out.len() as u64;
                let res = match file {
                    None | Some(STDOUT_HANDLE) => self.io.stdout.write_all(&out),
                    Some(STDERR_HANDLE) => self.io.stderr.write_all(&out),
                    Some(h) => match self.file(h) {
                        Some(FileSlot::Write(w)) => w.write_all(&out),
                        _ => return Err(self.rt(pid, RuntimeError::BadFile { handle: h })),
                    },
                };
                res.map_err(|e| self.rt(pid, RuntimeError::Output { kind: e.kind(), message: e.to_string() }))?;
                if over {
                    return Err(self.limit(Limit::ProgramOutput));
                }
                self.pt.procs[pid as usize].stack.push(Word::Int(out.len() as i32));
                (self.text_args, self.text_fmt, self.text_out) = (args, fmt, out);
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Scanf { argc } | Instr::Fscanf { argc } | Instr::Sscanf { argc } => {
                let dests = self.pop_n(pid, argc as usize)?;
                let fmt_addr = as_int(self.pop(pid)?) as i64;
                let source =
                    if matches!(ins, Instr::Scanf { .. }) { None } else { Some(as_int(self.pop(pid)?) as i64) };
                let fmt = self.string_at(pid, fmt_addr)?;
                let scan = match (ins, source) {
                    (Instr::Sscanf { .. }, Some(a)) => {
                        let text = self.string_at(pid, a)?;
                        format::scanf(&fmt, &mut std::io::Cursor::new(text))
                    }
                    (_, None | Some(STDIN_HANDLE)) => {
                        format::scanf(&fmt, &mut Reading { inner: &mut *self.io.stdin, ind: &mut self.stdin_ind })
                    }
                    (_, Some(h)) => match self.file(h) {
                        Some(FileSlot::Read(r, ind)) => format::scanf(&fmt, &mut Reading { inner: r, ind }),
                        _ => return Err(self.rt(pid, RuntimeError::BadFile { handle: h })),
                    },
                };
                let function = match ins {
                    Instr::Fscanf { .. } => "fscanf",
                    Instr::Sscanf { .. } => "sscanf",
                    _ => "scanf",
                };
                for (v, d) in scan.values.iter().zip(dests.iter()) {
                    let a = as_int(*d) as i64;
                    let words: Vec<Word> = match v {
                        ScanValue::Int(i) => vec![Word::Int(*i)],
                        ScanValue::Byte { v, signed } => {
                            let plain = self.mem.index(a).is_some_and(|i| matches!(self.mem.words[i], Word::Char(_)));
                            vec![if *signed && !plain { Word::Int(i32::from(*v as i8)) } else { Word::Char(*v) }]
                        }
                        ScanValue::Float(f) => vec![Word::Float(*f)],
                        ScanValue::Double(d) => vec![Word::Double(*d)],
                        ScanValue::Long(l) => vec![Word::Long(*l)],
                        ScanValue::Chars(c) => c.iter().map(|&b| Word::Char(b)).collect(),
                        ScanValue::Str(c) => c.iter().map(|&b| Word::Char(b)).chain([Word::Char(0)]).collect(),
                    };
                    // A string must fit its destination object (a scalar destination is
                    // one word, checked by the address itself).
                    if words.len() > 1 {
                        self.check_fits(pid, function, a, words.len() as u64)?;
                    }
                    for (k, w) in words.into_iter().enumerate() {
                        let i = self
                            .mem
                            .index(a + k as i64)
                            .ok_or_else(|| self.rt(pid, RuntimeError::BadAddress { addr: a + k as i64 }))?;
                        self.note_ref(i, 1);
                        self.mem.words[i] = w;
                    }
                }
                self.pt.procs[pid as usize].stack.push(Word::Int(scan.ret));
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Fopen {} => {
                let mode = as_int(self.pop(pid)?) as i64;
                let name = as_int(self.pop(pid)?) as i64;
                let mode = self.string_at(pid, mode)?;
                let name = self.string_at(pid, name)?;
                let name = String::from_utf8_lossy(&name).into_owned();
                if let Some(root) = &self.cfg.sandbox {
                    if !inside(root, std::path::Path::new(&name)) {
                        let kind = RuntimeError::Sandbox { path: name, root: root.display().to_string() };
                        return Err(self.rt(pid, kind));
                    }
                }
                let slot = if mode.contains(&b'w') {
                    std::fs::File::create(&name).ok().map(|f| FileSlot::Write(BufWriter::new(f)))
                } else if mode.contains(&b'a') {
                    std::fs::OpenOptions::new()
                        .append(true)
                        .create(true)
                        .open(&name)
                        .ok()
                        .map(|f| FileSlot::Write(BufWriter::new(f)))
                } else {
                    std::fs::File::open(&name).ok().map(|f| FileSlot::Read(BufReader::new(f), Indicators::default()))
                };
                let h = match slot {
                    Some(s) => {
                        self.files.push(Some(s));
                        self.files.len() as i32
                    }
                    None => 0,
                };
                self.pt.procs[pid as usize].stack.push(Word::Int(h));
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Fclose {} => {
                let h = as_int(self.pop(pid)?) as i64;
                let standard = matches!(h, STDIN_HANDLE | STDOUT_HANDLE | STDERR_HANDLE);
                let r = match usize::try_from(h - 1).ok().and_then(|k| self.files.get_mut(k)).and_then(|s| s.take()) {
                    _ if standard => 0,
                    Some(FileSlot::Write(mut w)) => w.flush().map_or(-1, |_| 0),
                    Some(FileSlot::Read(..)) => 0,
                    None => -1,
                };
                self.pt.procs[pid as usize].stack.push(Word::Int(r));
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Mpi { op: m } => self.exec_mpi(pid, m),
            Instr::Getenv {} => {
                let name = as_int(self.pop(pid)?) as i64;
                let name = self.string_at(pid, name)?;
                let value = self.cfg.program_env.iter().rev().find(|(n, _)| n.as_bytes() == name.as_slice());
                let addr = match value.map(|(n, v)| (n.clone(), v.clone())) {
                    // One copy per name, made at its first call (C allows a later call
                    // to return the same string).
                    Some((key, _)) if self.env_strings.contains_key(&key) => {
                        self.env_strings.get(&key).map_or(0, |&b| b as i32)
                    }
                    Some((key, v)) => {
                        let pp = self.pt.procs[pid as usize].pproc;
                        let n = u32::try_from(v.len() + 1).map_err(|_| self.limit(Limit::Memory))?;
                        let b = self.mem.alloc(n, pp).map_err(|e| self.alloc_error(e))?;
                        for (k, &c) in v.as_bytes().iter().chain([0u8].iter()).enumerate() {
                            self.mem.words[b as usize + k] = Word::Char(c);
                        }
                        self.env_strings.insert(key, b);
                        b as i32
                    }
                    None => 0,
                };
                self.pt.procs[pid as usize].stack.push(Word::Int(addr));
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::FileOp { op: fop } => {
                let r = self.file_op(pid, fop)?;
                self.pt.procs[pid as usize].stack.push(r);
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Sprintf { .. } | Instr::Vsnprintf {} => {
                // The argument words, the format and the text in the buffers kept for them.
                let mut args = std::mem::take(&mut self.text_args);
                let va = match ins {
                    Instr::Sprintf { argc } => {
                        self.pop_n_into(pid, argc as usize, &mut args)?;
                        None
                    }
                    _ => Some(as_int(self.pop(pid)?) as i64),
                };
                let fmt_addr = as_int(self.pop(pid)?) as i64;
                let size = as_int(self.pop(pid)?) as i64;
                let dest = as_int(self.pop(pid)?) as i64;
                let (args, fmt, out) = self.printf_text(pid, fmt_addr, va, args)?;
                let keep = if size < 0 { out.len() } else { out.len().min(size.saturating_sub(1) as usize) };
                if size != 0 {
                    let function = if matches!(ins, Instr::Sprintf { .. }) { "sprintf" } else { "vsnprintf" };
                    self.check_fits(pid, function, dest, keep as u64 + 1)?;
                    let bytes = out[..keep].iter().copied().chain([0u8]);
                    match (self.mem.index(dest), self.mem.index(dest + keep as i64)) {
                        // The whole text inside the pool: its words in a row.
                        (Some(lo), Some(_)) => {
                            for (w, b) in self.mem.words[lo..=lo + keep].iter_mut().zip(bytes) {
                                *w = Word::Char(b);
                            }
                        }
                        // Else up to the first address that fails, which is reported.
                        _ => {
                            for (k, b) in bytes.enumerate() {
                                let i = self.word_index(pid, dest + k as i64)?;
                                self.mem.words[i] = Word::Char(b);
                            }
                        }
                    }
                }
                self.pt.procs[pid as usize].stack.push(Word::Int(i32::try_from(out.len()).unwrap_or(i32::MAX)));
                (self.text_args, self.text_fmt, self.text_out) = (args, fmt, out);
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Malloc {} => {
                let n = as_int(self.pop(pid)?);
                let pp = self.pt.procs[pid as usize].pproc;
                let base = match u32::try_from(n) {
                    Ok(n) if n > 0 => match self.mem.alloc(n, pp) {
                        Ok(b) => {
                            self.heap.insert(b, n);
                            b
                        }
                        // A full pool is C's NULL; a host that refuses memory ends the run.
                        Err(AllocError::Pool) => 0,
                        Err(e) => return Err(self.alloc_error(e)),
                    },
                    _ => 0,
                };
                self.pt.procs[pid as usize].stack.push(Word::Int(base as i32));
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Free {} => {
                let a = as_int(self.pop(pid)?);
                if a != 0 {
                    let len = u32::try_from(a).ok().and_then(|b| self.heap.remove(&b));
                    let Some(len) = len else { return Err(self.rt(pid, RuntimeError::BadFree { addr: a as i64 })) };
                    self.mem.free(a as u32, len);
                }
                self.charge(pid, op)?;
                Ok(Flow::Continue)
            }
            Instr::Realloc {} => {
                let n = as_int(self.pop(pid)?);
                let a = as_int(self.pop(pid)?);
                let old = if a == 0 {
                    0
                } else {
                    match u32::try_from(a).ok().and_then(|b| self.heap.get(&b).copied()) {
                        Some(len) => len,
                        None => return Err(self.rt(pid, RuntimeError::BadFree { addr: a as i64 })),
                    }
                };
                let pp = self.pt.procs[pid as usize].pproc;
                let new = match u32::try_from(n) {
                    Ok(n) if n > 0 => match self.mem.alloc(n, pp) {
                        Ok(b) => Some((b, n)),
                        Err(AllocError::Pool) => None,
                        Err(e) => return Err(self.alloc_error(e)),
                    },
                    _ => None,
                };
                let moved = match new {
                    Some((b, n)) => {
                        let keep = old.min(n);
                        for k in 0..keep {
                            self.mem.words[(b + k) as usize] = self.mem.words[(a as u32 + k) as usize];
                        }
                        self.heap.insert(b, n);
                        if a != 0 {
                            self.heap.remove(&(a as u32));
                            self.mem.free(a as u32, old);
                        }
                        self.pt.procs[pid as usize].stack.push(Word::Int(b as i32));
                        keep
                    }
                    // C: a failed realloc leaves the block alone and returns NULL.
                    None => {
                        self.pt.procs[pid as usize].stack.push(Word::Int(0));
                        0
                    }
                };
                self.charge_n(pid, op, u64::from(moved).max(1))?;
                Ok(Flow::Continue)
            }
            Instr::MemCopy {} => {
                let n = as_int(self.pop(pid)?).max(0) as i64;
                let src = as_int(self.pop(pid)?) as i64;
                let dst = as_int(self.pop(pid)?) as i64;
                if n > 0 {
                    let s0 = self.word_index(pid, src)?;
                    let s1 = self.word_index(pid, src + n - 1)?;
                    let d0 = self.word_index(pid, dst)?;
                    self.word_index(pid, dst + n - 1)?;
                    self.check_fits(pid, "memcpy", dst, n as u64)?;
                    self.mem.words.copy_within(s0..=s1, d0);
                }
                self.pt.procs[pid as usize].stack.push(Word::Int(dst as i32));
                self.charge_n(pid, op, n.max(1) as u64)?;
                Ok(Flow::Continue)
            }
            Instr::MemSet {} => {
                let n = as_int(self.pop(pid)?).max(0) as i64;
                let v = as_int(self.pop(pid)?) as u8;
                let dst = as_int(self.pop(pid)?) as i64;
                if n > 0 {
                    let d0 = self.word_index(pid, dst)?;
                    let d1 = self.word_index(pid, dst + n - 1)?;
                    self.check_fits(pid, "memset", dst, n as u64)?;
                    let w = if v == 0 { Word::Int(0) } else { Word::Char(v) };
                    self.mem.words[d0..=d1].fill(w);
                }
                self.pt.procs[pid as usize].stack.push(Word::Int(dst as i32));
                self.charge_n(pid, op, n.max(1) as u64)?;
                Ok(Flow::Continue)
            }
            Instr::Exit {} => {
                // C's exit(N): the program ends at once with status N.
                self.stats.exit_status = as_int(self.pop(pid)?);
                self.charge(pid, op)?;
                let t = self.pt.procs[pid as usize].clock;
                if pid != 0 {
                    self.finish(pid, t);
                }
                self.program_end = Some(t);
                Ok(Flow::Stop)
            }
            other => Err(self.rt(pid, RuntimeError::BadCode { message: format!("unexpected instruction {other}") })),
        }
    }

    /// The text `printf` makes of format `fmt` and argument words `args` (`%s` strings
    /// read from the pool), into `out` (cleared first).
    pub(super) fn format_into(&self, pid: u32, fmt: &[u8], args: &[Word], out: &mut Vec<u8>) -> Result<(), SimError> {
        out.clear();
        // Room for the format and a few conversions, so that a short text is not grown
        // two or three times on the way.
        out.reserve(fmt.len() + 32);
        let mem = &self.mem;
        format::printf(
            fmt,
            args,
            &mut |a, max| {
                let s = mem.read_c_string_max(a as i64, max).ok_or(format::FormatError::BadString { addr: a })?;
                if let Some(i) = mem.index(a as i64) {
                    self.note_ref(i, (s.len() + 1).min(max));
                }
                Ok(s)
            },
            out,
        )
        .map_err(|e| self.rt(pid, RuntimeError::Format { message: e.to_string() }))
    }

    /// The text of a `printf`-like call: its format read from `fmt_addr`, written with
    /// `args` (or, with `va`, the words of the `va_list` there). The arguments, the
    /// format and the text come in the buffers the simulator keeps for them, for the
    /// caller to give back.
    fn printf_text(
        &mut self,
        pid: u32,
        fmt_addr: i64,
        va: Option<i64>,
        mut args: Vec<Word>,
    ) -> Result<PrintfText, SimError> {
        let mut fmt = std::mem::take(&mut self.text_fmt);
        self.string_into(pid, fmt_addr, &mut fmt)?;
        if let Some(a) = va {
            args = self.va_words(pid, a, format::arguments_needed(&fmt))?;
        }
        let mut out = std::mem::take(&mut self.text_out);
        self.format_into(pid, &fmt, &args, &mut out)?;
        Ok((args, fmt, out))
    }

    /// The `n` argument words a `va_list` at `addr` points at (see `stdarg.h`).
    pub(super) fn va_words(&self, pid: u32, addr: i64, n: usize) -> Result<Vec<Word>, SimError> {
        (0..n as i64).map(|k| self.word_index(pid, addr + k).map(|i| self.mem.words[i])).collect()
    }

    /// The pool index of `addr` for a library routine: a null pointer or an address
    /// outside the pool is a runtime error.
    pub(super) fn word_index(&self, pid: u32, addr: i64) -> Result<usize, SimError> {
        if addr == 0 && self.mem.null_reserved {
            return Err(self.rt(pid, RuntimeError::NullPointer));
        }
        self.mem.index(addr).ok_or_else(|| self.rt(pid, RuntimeError::BadAddress { addr }))
    }

    /// FILEOP `op` on the stream whose handle (and operands) are on the stack: C's
    /// result. `ftell`/`fseek` on a standard stream fail (-1), as on a pipe.
    fn file_op(&mut self, pid: u32, op: u8) -> Result<Word, SimError> {
        use crate::vcode::file_op::*;
        use std::io::{Seek, SeekFrom};
        let h = as_int(self.pop(pid)?) as i64;
        let (whence, offset, c) = match op {
            FSEEK => {
                let w = as_int(self.pop(pid)?);
                let o = match self.pop(pid)? {
                    Word::Long(l) => l,
                    w => i64::from(as_int(w)),
                };
                (w, o, 0)
            }
            UNGETC => (0, 0, as_int(self.pop(pid)?)),
            FEOF | FERROR | CLEARERR | FTELL | REWIND => (0, 0, 0),
            _ => return Err(self.rt(pid, RuntimeError::BadCode { message: format!("FILEOP {op}") })),
        };
        let mut none = Indicators::default();
        let (ind, seek): (&mut Indicators, Option<&mut dyn Seek>) = match h {
            STDIN_HANDLE => (&mut self.stdin_ind, None),
            STDOUT_HANDLE | STDERR_HANDLE => (&mut none, None),
            _ => match usize::try_from(h - 1).ok().and_then(|k| self.files.get_mut(k)).and_then(|s| s.as_mut()) {
                Some(FileSlot::Read(r, ind)) => (ind, Some(r)),
                Some(FileSlot::Write(w)) => (&mut none, Some(w)),
                None => return Err(self.rt(pid, RuntimeError::BadFile { handle: h })),
            },
        };
        let back = u64::from(ind.back.is_some());
        Ok(match op {
            FEOF => Word::Int(i32::from(ind.eof)),
            FERROR => Word::Int(i32::from(ind.error)),
            CLEARERR => {
                (ind.eof, ind.error) = (false, false);
                Word::Int(0)
            }
            FTELL => {
                Word::Long(seek.and_then(|s| s.stream_position().ok()).map_or(-1, |p| p.saturating_sub(back) as i64))
            }
            FSEEK | REWIND => {
                let to = match (op, whence) {
                    (REWIND, _) | (_, 0) => {
                        u64::try_from(if op == REWIND { 0 } else { offset }).ok().map(SeekFrom::Start)
                    }
                    (_, 1) => Some(SeekFrom::Current(offset.saturating_sub(back as i64))),
                    (_, 2) => Some(SeekFrom::End(offset)),
                    _ => None,
                };
                let ok = match (seek, to) {
                    (Some(s), Some(to)) => s.seek(to).is_ok(),
                    _ => false,
                };
                if ok {
                    (ind.eof, ind.back) = (false, None);
                    if op == REWIND {
                        ind.error = false;
                    }
                }
                Word::Int(if ok { 0 } else { -1 })
            }
            // UNGETC: one character back (C guarantees one); EOF pushes nothing.
            _ => {
                if c == -1 || ind.back.is_some() {
                    Word::Int(-1)
                } else {
                    (ind.back, ind.eof) = (Some(c as u8), false);
                    Word::Int(i32::from(c as u8))
                }
            }
        })
    }

    pub(super) fn file(&mut self, h: i64) -> Option<&mut FileSlot> {
        // The standard streams are no file-table slot.
        usize::try_from(h - 1).ok().and_then(|k| self.files.get_mut(k)).and_then(|s| s.as_mut())
    }
}

/// Whether `path` (relative to the working directory) resolves inside the folder `root`
/// (itself resolved): an existing file through its links, a new one through its folder's.
/// A path whose folder does not exist is let through: the open fails and `fopen`
/// returns NULL, as C's does, rather than a sandbox error for a file that cannot be.
fn inside(root: &std::path::Path, path: &std::path::Path) -> bool {
    // A dangling link would be followed by the open: refused.
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) && std::fs::canonicalize(path).is_err()
    {
        return false;
    }
    if let Ok(real) = std::fs::canonicalize(path) {
        return real.starts_with(root);
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    match (std::fs::canonicalize(dir), path.file_name()) {
        (Ok(d), Some(name)) => d.join(name).starts_with(root),
        // No such folder: nothing can be opened there.
        (Err(_), _) => std::fs::symlink_metadata(dir).is_err(),
        // `..` or `/` at the end: resolved above when it exists.
        (Ok(_), None) => false,
    }
}

/// A `printf`-like call's argument words, format and text ([`Simulator::printf_text`]).
type PrintfText = (Vec<Word>, Vec<u8>, Vec<u8>);

impl Simulator<'_> {
    /// A runtime error unless `words` words from `addr` stay inside the object holding
    /// `addr` (as far as [`Self::object_end`] knows it): what a built-in writing through
    /// a pointer checks before writing, so that it never overwrites a neighbour.
    pub(super) fn check_fits(&self, pid: u32, function: &'static str, addr: i64, words: u64) -> Result<(), SimError> {
        let Some(i) = self.mem.index(addr) else { return Ok(()) };
        let Some(end) = self.object_end(pid, i) else { return Ok(()) };
        let room = (end - i) as u64;
        if words > room {
            return Err(self.rt(pid, RuntimeError::Overflow { function, addr, words, room }));
        }
        Ok(())
    }

    /// The end (exclusive pool index) of the object holding pool word `i`, when known: a
    /// global variable, a variable or by-value parameter in one of process `pid`'s
    /// frames, or a block from `malloc`. `None` for anything else (another process's
    /// frame, reached through a reference parameter, is not searched: that would cost a
    /// look at every process; the words of a frame that no variable covers).
    pub(super) fn object_end(&self, pid: u32, i: usize) -> Option<usize> {
        let m = self.module;
        let words = |ty| m.type_words(ty).max(1) as usize;
        // A global of the process's own copy (a rank's globals start at its display[0]).
        let globals = self.pt.procs.get(pid as usize).and_then(|p| p.display.get(0)).unwrap_or(0) as usize;
        if let Some(j) = i.checked_sub(globals) {
            let k = self.global_objects.partition_point(|&(lo, _)| lo as usize <= j);
            if let Some(&(_, end)) = k.checked_sub(1).and_then(|k| self.global_objects.get(k)) {
                if j < end as usize {
                    return Some(globals + end as usize);
                }
            }
        }
        if let Some((&b, &n)) = self.heap.range(..=i as u32).next_back() {
            if i < (b + n) as usize {
                return Some((b + n) as usize);
            }
        }
        if let Some(p) = self.pt.procs.get(pid as usize) {
            let frames = p.all_frames();
            for (k, fr) in frames.iter().enumerate() {
                let base = fr.base as usize;
                if !(base..base + fr.words as usize).contains(&i) {
                    continue;
                }
                let pc = match frames.get(k + 1) {
                    Some(callee) => callee.ret_pc.saturating_sub(1),
                    None => p.pc,
                };
                let f = m.function_at(pc)?;
                // Variables of blocks that have ended share frame words with later ones:
                // of the variables over word `i`, those whose block holds the current
                // line and whose declaration has been passed are the live ones (of two
                // blocks on one line, both: the largest object is taken), so that a
                // correct program is never stopped. Words no live variable covers (a
                // compound literal's, which has no name) are not checked, but for code
                // without a line, where any variable over the word is taken.
                let at = m.line_of(pc);
                let live = |id: &IdentInfo| {
                    let declared = id.line <= at || id.kind == IdentKind::Param;
                    declared && m.blocks.get(id.block as usize).is_some_and(|b| b.first_line <= at && at <= b.last_line)
                };
                // The variables and parameters of `f`'s frame over word `i`.
                let objects = self.frame_objects.get(f as usize).map_or(&[][..], |v| &v[..]);
                let over = || {
                    objects
                        .iter()
                        .filter_map(|&k| m.idents.get(k as usize))
                        .filter(|id| (base + id.off as usize..base + id.off as usize + words(id.ty)).contains(&i))
                };
                let end = |id: &IdentInfo| base + id.off as usize + words(id.ty);
                let in_scope = over().filter(|id| live(id)).map(&end).max();
                return if at == 0 { in_scope.or_else(|| over().map(end).max()) } else { in_scope };
            }
        }
        None
    }
}
