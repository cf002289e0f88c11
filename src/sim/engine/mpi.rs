//! MPI ranks (`cpss --ranks N`): each rank is a process running `main` from time 0 on
//! the physical processor the mapping gives virtual processor `rank mod V`, with its own
//! copy of the globals in that processor's memory, and a mailbox — a channel element
//! that only it reads, element `rank` of the pseudo-channel `MPI` the run record
//! declares. The MPI instruction ([`crate::vcode::mpi_op`]) is what `<mpi.h>`'s library
//! (C, compiled with the program) is built on: a send is a channel message whose first
//! [`mpi_op::HEADER`] words are the envelope (source, tag, context, flags); a receive
//! matches the earliest arrived message of its mailbox against its patterns, so the
//! messages of one sender are matched in the order they were sent (the channels'
//! non-overtaking delivery), as MPI requires.
use super::*;
use crate::vcode::mpi_op;

/// The ranks of a run and their mailboxes.
#[derive(Default)]
pub(super) struct Ranks {
    /// Number of ranks; 1 for a program run as one process.
    pub(super) count: u32,
    /// Channel element index of rank 0's mailbox; rank r's is `mailbox + r`.
    pub(super) mailbox: usize,
    /// Per rank, the message MATCH found last, `(arrival, sequence)`.
    pub(super) matched: Vec<Option<(Ticks, u64)>>,
    /// Per rank, the patterns of the MATCH it blocks in (for a deadlock's report).
    pub(super) waiting: Vec<Vec<Pattern>>,
    /// Per rank, whether the MATCH it blocks in is a probe (it waits for an envelope,
    /// not for data).
    pub(super) probing: Vec<bool>,
    /// The next context number `mpi_op::CONTEXT` gives (0 and 1 are `MPI_COMM_WORLD`'s
    /// and `MPI_COMM_SELF`'s).
    pub(super) next_context: i32,
    /// Ranks still running.
    pub(super) live: u32,
    /// The latest end of a rank so far.
    pub(super) last_end: Ticks,
    /// The program calls MPI ([`Module::uses_mpi`], looked up once).
    pub(super) uses_mpi: bool,
}

/// A receive pattern: source rank, tag and context; -1 matches any source or tag.
#[derive(Clone, Copy)]
pub(super) struct Pattern {
    source: i32,
    tag: i32,
    context: i32,
}

impl Pattern {
    fn matches(&self, env: &[Word]) -> bool {
        let [s, t, c, ..] = *env else { return false };
        let (s, t, c) = (as_int(s), as_int(t), as_int(c));
        (self.source == -1 || self.source == s) && (self.tag == -1 || self.tag == t) && self.context == c
    }
}

impl<'m> Simulator<'m> {
    /// The world rank of process `pid`: its own for a rank, its creator's rank for a
    /// process a rank created.
    fn rank_of(&self, pid: u32) -> u32 {
        let mut p = pid;
        while p >= self.ranks.count {
            match self.pt.procs.get(p as usize) {
                Some(q) if q.parent != NONE => p = q.parent,
                _ => return 0,
            }
        }
        p
    }

    /// A copy of the initial globals for a rank on processor `pp`: its base address
    /// (the addresses of globals among the initial words moved by it).
    pub(super) fn copy_globals(&mut self, pp: u32) -> Result<u32, SimError> {
        let n = self.module.globals_words;
        if n == 0 {
            return Ok(0);
        }
        let base = self.mem.alloc(n, pp).map_err(|e| self.alloc_error(e))?;
        let relocs = &self.module.global_relocs;
        for &(a, w) in &self.module.global_init {
            let w = match w {
                Word::Int(v) if relocs.binary_search(&a).is_ok() => Word::Int(v.wrapping_add(base as i32)),
                w => w,
            };
            if let Some(slot) = self.mem.words.get_mut(base as usize + a as usize) {
                *slot = w;
            }
        }
        Ok(base)
    }

    /// MPI `op` ([`mpi_op`]) for `pid`.
    pub(super) fn exec_mpi(&mut self, pid: u32, op: u8) -> Result<Flow, SimError> {
        let ins_op = Op::Mpi;
        match op {
            mpi_op::RANK | mpi_op::SIZE => {
                let v = if op == mpi_op::RANK { self.rank_of(pid) } else { self.ranks.count };
                self.pt.procs[pid as usize].stack.push(Word::Int(v as i32));
            }
            mpi_op::WTIME | mpi_op::WTICK => {
                let t = if op == mpi_op::WTIME { self.pt.procs[pid as usize].clock } else { 1 };
                let s = t as f64 / TICKS_PER_UNIT as f64 * mpi_op::SECONDS_PER_UNIT;
                self.pt.procs[pid as usize].stack.push(Word::Double(s));
            }
            mpi_op::CONTEXT => {
                let n = as_int(self.pop(pid)?);
                let first = self.ranks.next_context;
                match u32::try_from(n).ok().and_then(|n| first.checked_add_unsigned(n)) {
                    Some(next) if next < i32::MAX / 4 => self.ranks.next_context = next,
                    _ => return Err(self.mpi_error(pid, format!("MPI: no context numbers left for {n} communicators"))),
                }
                self.pt.procs[pid as usize].stack.push(Word::Int(first));
            }
            mpi_op::SEND => return self.mpi_send(pid),
            mpi_op::MATCH => return self.mpi_match(pid),
            mpi_op::TAKE => return self.mpi_take(pid),
            _ => return Err(self.rt(pid, RuntimeError::BadCode { message: format!("MPI operation {op}") })),
        }
        self.charge(pid, ins_op)?;
        Ok(Flow::Continue)
    }

    /// The rank owning mailbox `c` posts receives for `pats` at `t` (a receive MATCH
    /// that found no arrived message): each pattern with no matching message already on
    /// its way to the rank is given the rendezvous message (`--eager-limit`) whose
    /// request to send came first among those it matches (each sender's first matching
    /// one: the non-overtaking order), and that message's clear to send leaves once its
    /// request is there. One message per posted receive, as an MPI receive matches one
    /// envelope; a probe posts nothing.
    pub(super) fn mpi_post_recv(&mut self, c: usize, t: Ticks, pats: &[Pattern]) {
        if self.ch.parked == 0 {
            return;
        }
        let mut chosen: Vec<(usize, u64)> = Vec::new();
        let chan = self.ch.traffic(c);
        for p in pats {
            let on_way = chan.queue.iter().any(|m| m.arrival > t && p.matches(&m.data))
                || chan.from.iter().any(|f| f.pending.iter().any(|m| m.rdv == Rdv::Cleared && p.matches(&m.data)));
            if on_way {
                continue;
            }
            let mut pick: Option<(Ticks, u64, usize)> = None;
            for (k, f) in chan.from.iter().enumerate() {
                let first = f.pending.iter().find(|m| m.rdv != Rdv::Eager && p.matches(&m.data));
                let Some(m) = first else { continue };
                let Rdv::Parked { rts, posted: NEVER } = m.rdv else { continue };
                if rts != NEVER && !chosen.contains(&(k, m.id)) && pick.is_none_or(|(r, id, _)| (rts, m.id) < (r, id)) {
                    pick = Some((rts, m.id, k));
                }
            }
            if let Some((_, id, k)) = pick {
                chosen.push((k, id));
            }
        }
        for (k, id) in chosen {
            if let Some(m) = self.ch.traffic_mut(c).from[k].pending.iter_mut().find(|m| m.id == id) {
                if let Rdv::Parked { posted, .. } = &mut m.rdv {
                    *posted = t;
                }
            }
            self.clear_to_send(c, k, id);
        }
    }

    /// The request to send of a rendezvous message to mailbox `c` is there at `t`: a
    /// rank blocked in a probe wakes to see it; one blocked in a receive posts it.
    pub(super) fn mpi_envelope(&mut self, c: usize, t: Ticks) {
        let (reason, owner) = (self.ch.reason(c), self.ch.chans[c].owner);
        let Some(o) = self.pt.procs.get(owner as usize).filter(|o| o.wait == reason) else { return };
        let (opp, since) = (o.pproc as usize, o.clock);
        let rank = c - self.ranks.mailbox;
        if self.ranks.probing.get(rank).copied().unwrap_or(false) {
            let w = self.pt.wake[owner as usize].min(t);
            self.set_wake(owner, w);
            self.lower_pmin(opp, t);
        } else if let Some(pats) = self.ranks.waiting.get(rank).cloned() {
            self.mpi_post_recv(c, since, &pats);
        }
    }

    /// What rank `rank`, blocked in MATCH, waits for (a deadlock's report).
    pub(super) fn mpi_waits_for(&self, rank: u32) -> String {
        let pats = self.ranks.waiting.get(rank as usize).map_or(&[][..], |v| &v[..]);
        let one = |p: &Pattern| {
            let from = if p.source < 0 { "any rank".to_string() } else { format!("rank {}", p.source) };
            let tag = if p.tag < 0 { "any tag".to_string() } else { format!("tag {}", p.tag) };
            let kind = match p.context % 4 {
                1 => ", of a collective",
                2 => ", the acknowledgement of an MPI_Ssend",
                _ => "",
            };
            format!("a message from {from} with {tag}{kind}")
        };
        match pats {
            [] => format!("a message in the MPI mailbox of rank {rank}"),
            [p] => one(p),
            ps => ps.iter().map(one).collect::<Vec<_>>().join(" or "),
        }
    }

    /// The outermost `MPI_` function in `pid`'s call stack and the program's line that
    /// called it.
    pub(super) fn mpi_call(&self, pid: u32) -> Option<(String, u32)> {
        if self.ranks.count <= 1 && !self.ranks.uses_mpi {
            return None;
        }
        let stack = self.call_stack(pid)?;
        let k = stack.iter().rposition(|f| f.function.starts_with("MPI_"))?;
        Some((stack[k].function.clone(), stack.get(k + 1).map_or(0, |c| c.line)))
    }

    /// The source line an MPI event of `pid` at `pc` is reported at: the program's line
    /// that called the MPI function (the library's own code has no line of the program).
    pub(super) fn mpi_line(&self, pid: u32, pc: u32) -> u32 {
        self.mpi_call(pid).map_or_else(|| self.module.line_of(pc), |(_, l)| l)
    }

    /// A runtime error of the MPI library.
    fn mpi_error(&self, pid: u32, message: String) -> SimError {
        self.rt(pid, RuntimeError::Format { message })
    }

    fn mpi_send(&mut self, pid: u32) -> Result<Flow, SimError> {
        let pc = self.pt.procs[pid as usize].pc;
        let flags = as_int(self.pop(pid)?);
        let context = as_int(self.pop(pid)?);
        let tag = as_int(self.pop(pid)?);
        let dest = as_int(self.pop(pid)?);
        let words = as_int(self.pop(pid)?);
        let buf = as_int(self.pop(pid)?) as i64;
        let count = self.ranks.count;
        let Some(dest) = u32::try_from(dest).ok().filter(|&d| d < count) else {
            return Err(
                self.mpi_error(pid, format!("MPI: a send to rank {dest}, which does not exist ({count} ranks)"))
            );
        };
        let words = u32::try_from(words)
            .map_err(|_| self.mpi_error(pid, format!("MPI: a send of a negative count ({words})")))?;
        // The buffer is checked before its copy is made: a count past the buffer (a
        // program's slip) is a bad address, not a request for gigabytes.
        let body = match words {
            0 => 0..0,
            _ => self.word_index(pid, buf)?..self.word_index(pid, buf + i64::from(words) - 1)? + 1,
        };
        let mut data = Vec::with_capacity(mpi_op::HEADER + body.len());
        let me = self.rank_of(pid);
        data.extend_from_slice(&[Word::Int(me as i32), Word::Int(tag), Word::Int(context), Word::Int(flags)]);
        data.extend_from_slice(&self.mem.words[body]);
        let bytes: u32 = data[mpi_op::HEADER..].iter().copied().map(word_bytes).sum();
        let c = self.ranks.mailbox + dest as usize;
        self.charge(pid, Op::Mpi)?;
        self.post_message(pid, pc, c, Payload::Heap(data), bytes)?;
        self.pt.procs[pid as usize].stack.push(Word::Int(0));
        Ok(Flow::Continue)
    }

    /// The `k`th word from the top of `pid`'s stack (0: the top), as an int.
    fn peek_int(&self, pid: u32, k: usize) -> Result<i32, SimError> {
        let s = &self.pt.procs[pid as usize].stack;
        match s.len().checked_sub(k + 1).and_then(|i| s.get(i)) {
            Some(&w) => Ok(as_int(w)),
            None => Err(self.rt(pid, RuntimeError::BadCode { message: "MPI on a short stack".into() })),
        }
    }

    fn mpi_match(&mut self, pid: u32) -> Result<Flow, SimError> {
        // Operands stay on the stack until the match succeeds: a blocked MATCH runs again.
        let info = self.peek_int(pid, 0)? as i64;
        // Bit 0: wait for a match; bit 1: a probe (an envelope matches, its data stays).
        let mode = self.peek_int(pid, 1)?;
        let (block, probe) = (mode & 1 != 0, mode & 2 != 0);
        let n = self.peek_int(pid, 2)?.max(0) as i64;
        let pats = self.peek_int(pid, 3)? as i64;
        // Grown as the patterns are read (each checked), not sized by the count first:
        // a count past the patterns (a program's slip) is a bad address, not a request
        // for gigabytes.
        let mut patterns = Vec::new();
        for k in 0..n {
            let w = |j: i64| self.word_index(pid, pats + 3 * k + j).map(|i| as_int(self.mem.words[i]));
            patterns.push(Pattern { source: w(0)?, tag: w(1)?, context: w(2)? });
        }
        let me = self.rank_of(pid);
        let c = self.ranks.mailbox + me as usize;
        let clock = self.pt.procs[pid as usize].clock;
        // The earliest arrived message that a pattern matches, and the earliest arrival
        // of one still on its way. A probe also sees the envelope of a rendezvous message
        // whose request to send is there (`parked`: the data is still at the sender).
        let mut best: Option<(Ticks, u64, usize)> = None;
        let mut parked = false;
        let mut next = NEVER;
        for m in self.ch.traffic(c).queue.iter() {
            let Some(k) = patterns.iter().position(|p| p.matches(&m.data)) else { continue };
            if m.arrival > clock {
                next = next.min(m.arrival);
            } else if best.is_none_or(|(a, s, _)| (m.arrival, m.seq) < (a, s)) {
                best = Some((m.arrival, m.seq, k));
            }
        }
        if probe && self.ch.parked > 0 {
            for f in &self.ch.traffic(c).from {
                for m in &f.pending {
                    let Rdv::Parked { rts, .. } = m.rdv else { continue };
                    let Some(k) = patterns.iter().position(|p| p.matches(&m.data)) else { continue };
                    if rts > clock {
                        next = next.min(rts);
                    } else if best.is_none_or(|(a, s, _)| (rts, m.id) < (a, s)) {
                        (best, parked) = (Some((rts, m.id, k)), true);
                    }
                }
            }
        }
        match best {
            Some((arrival, seq, k)) => {
                let chan = self.ch.traffic(c);
                let m = match parked {
                    false => chan.queue.iter().find(|m| (m.arrival, m.seq) == (arrival, seq)).map(|m| &m.data),
                    true => chan.from.iter().flat_map(|f| f.pending.iter()).find(|m| m.id == seq).map(|m| &m.data),
                };
                let Some(&[source, tag, context, flags, ref data @ ..]) = m.map(|m| &m[..]) else {
                    return Err(self.mpi_error(pid, "MPI: a message without its envelope".into()));
                };
                let block = [source, tag, Word::Int(data.len() as i32), flags, context];
                let i = self.word_index(pid, info)?;
                self.word_index(pid, info + 4)?;
                self.mem.words[i..i + 5].copy_from_slice(&block);
                self.ranks.matched[me as usize] = if probe { None } else { Some((arrival, seq)) };
                let s = &mut self.pt.procs[pid as usize].stack;
                s.truncate(s.len() - 4);
                s.push(Word::Int(k as i32));
            }
            None if !block => {
                if !probe {
                    self.mpi_post_recv(c, clock, &patterns);
                }
                let s = &mut self.pt.procs[pid as usize].stack;
                s.truncate(s.len() - 4);
                s.push(Word::Int(-1));
            }
            None => {
                let reason = self.ch.reason(c);
                self.block(pid, reason, next);
                if !probe {
                    self.mpi_post_recv(c, clock, &patterns);
                }
                self.ranks.waiting[me as usize] = patterns;
                self.ranks.probing[me as usize] = probe;
                return Ok(Flow::Stop);
            }
        }
        self.charge(pid, Op::Mpi)?;
        Ok(Flow::Continue)
    }

    fn mpi_take(&mut self, pid: u32) -> Result<Flow, SimError> {
        let count = as_int(self.pop(pid)?);
        let buf = as_int(self.pop(pid)?) as i64;
        let me = self.rank_of(pid);
        let c = self.ranks.mailbox + me as usize;
        let Some(key) = self.ranks.matched[me as usize].take() else {
            return Err(self.mpi_error(pid, "MPI: a receive with no matched message".into()));
        };
        let queue = &mut self.ch.traffic_mut(c).queue;
        let mut v = std::mem::take(queue).into_vec();
        let Some(k) = v.iter().position(|m| (m.arrival, m.seq) == key) else {
            *queue = BinaryHeap::from(v);
            return Err(self.mpi_error(pid, "MPI: the matched message is gone".into()));
        };
        let m = v.swap_remove(k);
        *queue = BinaryHeap::from(v);
        self.ch.settle(c);
        self.ch.unreceived = self.ch.unreceived.saturating_sub(1);
        self.ch.unreceived_words = self.ch.unreceived_words.saturating_sub(m.data.len() as u64);
        let data = &m.data[mpi_op::HEADER..];
        if data.len() as i64 > i64::from(count) {
            let (src, tag) = (as_int(m.data[0]), as_int(m.data[1]));
            return Err(self.mpi_error(
                pid,
                format!(
                    "MPI: message truncated: {} elements from rank {src} (tag {tag}) into a receive of {count}",
                    data.len()
                ),
            ));
        }
        if !data.is_empty() {
            let a = self.word_index(pid, buf)?;
            self.word_index(pid, buf + data.len() as i64 - 1)?;
            self.check_fits(pid, "MPI_Recv", buf, data.len() as u64)?;
            self.mem.words[a..a + data.len()].copy_from_slice(data);
        }
        self.pt.procs[pid as usize].stack.push(Word::Int(data.len() as i32));
        self.charge(pid, Op::Mpi)?;
        self.overhead(pid, self.net_params().recv_overhead);
        if self.observer.is_some() {
            let p = &self.pt.procs[pid as usize];
            let (time, line) = (p.clock, self.mpi_line(pid, p.pc));
            let (channel, elem) = self.ch.decl_of(c);
            if let Some(o) = self.observer.as_mut() {
                o.event(&SimEvent::Receive { time, pid, channel, elem, arrival: m.arrival, line, msg: m.seq });
            }
        }
        Ok(Flow::Continue)
    }
}
