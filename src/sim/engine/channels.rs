//! Messages: channel sends and their arrival in order per sender, remote reads and
//! writes as network messages, and the arrivals the network hands back.
use super::*;

/// The program's channels and locks: one element per channel cell, which global word
/// holds which, the processes queued for each spinlock, and the messages sent and not
/// yet received (bounded by [`SimConfig::max_messages`] and `max_message_words`).
pub(super) struct Channels {
    /// The channel elements, in the order of the module's channel declarations.
    pub(super) chans: Vec<Chan>,
    /// The number of each declaration's first element, in order, then the first MPI
    /// mailbox's ([`Channels::decl_of`]).
    starts: Vec<u32>,
    /// The elements' message records ([`Chan::traffic`]), those in use and the spare ones
    /// (empty, their allocations kept for the next element that needs one).
    pub(super) traffic: Vec<Traffic>,
    spare: Vec<u32>,
    /// Empty per-sender queues, kept for the next sender of an element.
    deques: Vec<VecDeque<Sent>>,
    /// Elements whose record emptied since the last records were given back, each once
    /// ([`Traffic::noted`]).
    emptied: Vec<u32>,
    /// How many emptied records are given back together ([`RETIRE_BATCH`]; tests: fewer).
    pub(super) batch: usize,
    /// Tests: records are never given back (the reference a run giving them back must match).
    #[cfg(test)]
    pub(super) keep: bool,
    /// Per global word, the index in `chans` of the element it holds (`NONE`: none).
    pub(super) chan_at: Vec<u32>,
    /// Per spinlock word, the processes waiting for it and when their request reached
    /// the lock's processor, first come first.
    pub(super) lock_waiters: BTreeMap<u32, VecDeque<(u32, Ticks)>>,
    /// Messages sent on channels and not yet received.
    pub(super) unreceived: u64,
    /// Words in those messages.
    pub(super) unreceived_words: u64,
    /// Rendezvous messages whose clear to send has not left ([`Rdv::Parked`]): while
    /// there are none, a waiting receive has nothing to ask for.
    pub(super) parked: u64,
}

impl Channels {
    /// Every channel element `module` declares, owned by process 0 and empty, then the
    /// mailbox of each of the `ranks` MPI ranks (element r of the pseudo-channel after
    /// the module's, owned by rank r: process r).
    pub(super) fn new(module: &Module, ranks: u32) -> Channels {
        let mut ch = Channels {
            chans: Vec::new(),
            starts: Vec::with_capacity(module.channels.len() + 1),
            traffic: Vec::new(),
            spare: Vec::new(),
            deques: Vec::new(),
            emptied: Vec::new(),
            batch: RETIRE_BATCH,
            #[cfg(test)]
            keep: false,
            chan_at: vec![NONE; module.globals_words as usize],
            lock_waiters: BTreeMap::new(),
            unreceived: 0,
            unreceived_words: 0,
            parked: 0,
        };
        let count = |c: &crate::vcode::ChannelInfo| c.dims.iter().product::<u32>().max(1);
        // Every element at once: a reservation per declaration would move the table at
        // each of a program's many small declarations.
        ch.chans.reserve_exact(module.channels.iter().map(|c| count(c) as usize).sum::<usize>() + ranks as usize);
        for c in &module.channels {
            ch.starts.push(ch.chans.len() as u32);
            for e in 0..count(c) {
                // (An element past the globals, which no verified module declares, has
                // no address: it is kept, so that its declaration's are numbered on.)
                if let Some(slot) = ch.chan_at.get_mut((c.base + e) as usize) {
                    *slot = ch.chans.len() as u32;
                }
                ch.chans.push(Chan::new(0));
            }
        }
        ch.starts.push(ch.chans.len() as u32);
        for r in 0..ranks {
            ch.chans.push(Chan::new(r));
        }
        ch
    }

    /// Element `c`'s declaration (its index in the module's channels; the MPI
    /// mailboxes': one past the module's) and its index in it.
    #[inline]
    pub(super) fn decl_of(&self, c: usize) -> (u32, u32) {
        let d = self.starts.partition_point(|&s| s as usize <= c).saturating_sub(1);
        (d as u32, c as u32 - self.starts.get(d).copied().unwrap_or(0))
    }

    /// What a process receiving on element `c` waits for.
    #[inline]
    pub(super) fn reason(&self, c: usize) -> Reason {
        let (channel, index) = self.decl_of(c);
        Reason::Channel { channel, index }
    }

    /// Element `c`'s messages (none queued and none on their way when it has no record).
    pub(super) fn traffic(&self, c: usize) -> &Traffic {
        static NO_TRAFFIC: Traffic = Traffic { queue: BinaryHeap::new(), from: Vec::new(), noted: false };
        match self.chans[c].traffic {
            NONE => &NO_TRAFFIC,
            t => &self.traffic[t as usize],
        }
    }

    /// Element `c`'s record, made if it has none.
    #[inline]
    pub(super) fn traffic_mut(&mut self, c: usize) -> &mut Traffic {
        let t = self.record(c);
        &mut self.traffic[t]
    }

    /// The index of element `c`'s record in [`Self::traffic`], made if it has none.
    #[inline]
    pub(super) fn record(&mut self, c: usize) -> usize {
        match self.chans[c].traffic {
            NONE => self.make_traffic(c),
            t => t as usize,
        }
    }

    /// A record for element `c` (its index), a spare one if there is one, holding what
    /// the element kept without one: its sender and that sender's latest arrival, first
    /// among the senders as it was (the record keeps the senders in the order they first
    /// sent).
    #[cold]
    fn make_traffic(&mut self, c: usize) -> usize {
        let t = self.spare.pop().unwrap_or_else(|| {
            self.traffic.push(Traffic::default());
            (self.traffic.len() - 1) as u32
        });
        let ch = &mut self.chans[c];
        ch.traffic = t;
        let (pid, last) = (ch.sender, ch.last);
        if pid != NONE {
            let pending = self.pending_queue();
            self.traffic[t as usize].from.push(FromSender { pid, last, pending });
        }
        t as usize
    }

    /// An empty per-sender queue, with room for one message: most channel elements (one
    /// per process in a large machine) see one sender and few messages.
    pub(super) fn pending_queue(&mut self) -> VecDeque<Sent> {
        self.deques.pop().unwrap_or_else(|| VecDeque::with_capacity(1))
    }

    /// Notes element `c`'s record for giving back once nothing in it needs one: no
    /// message queued, none on its way and one sender at most (whose latest arrival the
    /// element keeps). Called where a message leaves the queue, the only way a record
    /// empties. The noted records are given back [`RETIRE_BATCH`] at a time, those still
    /// empty then: an element that carries message after message keeps its record.
    pub(super) fn settle(&mut self, c: usize) {
        let t = self.chans[c].traffic;
        #[cfg(test)]
        if self.keep {
            return;
        }
        if t == NONE {
            return;
        }
        let tr = &mut self.traffic[t as usize];
        if tr.noted || !tr.needless() {
            return;
        }
        tr.noted = true;
        self.emptied.push(c as u32);
        if self.emptied.len() >= self.batch {
            self.give_back();
        }
    }

    /// Gives back the noted records that are still empty.
    #[cold]
    fn give_back(&mut self) {
        for &c in &self.emptied {
            // Still its record: only this gives records back.
            let ch = &mut self.chans[c as usize];
            let t = ch.traffic;
            let tr = &mut self.traffic[t as usize];
            tr.noted = false;
            if !tr.needless() {
                continue;
            }
            (ch.sender, ch.last) = tr.from.first().map_or((NONE, 0), |f| (f.pid, f.last));
            ch.traffic = NONE;
            self.deques.extend(tr.from.drain(..).map(|f| f.pending));
            self.spare.push(t);
        }
        self.emptied.clear();
    }
}

/// Emptied channel records given back together ([`Channels::settle`]).
const RETIRE_BATCH: usize = 4096;

impl Traffic {
    /// Nothing in it that an element without a record does not keep.
    fn needless(&self) -> bool {
        self.queue.is_empty() && self.from.len() <= 1 && self.from.iter().all(|f| f.pending.is_empty())
    }
}

impl Simulator<'_> {
    /// Tests: never give a channel element's record back.
    #[cfg(test)]
    pub(crate) fn keep_channel_records(&mut self) {
        self.ch.keep = true;
    }

    /// Tests: give the emptied channel records back `n` at a time (1: as soon as each can be).
    #[cfg(test)]
    pub(crate) fn give_channel_records_back_by(&mut self, n: usize) {
        self.ch.batch = n;
    }

    /// Tests: the channel elements' records made, and how many of them are spare.
    #[cfg(test)]
    pub(crate) fn channel_records(&self) -> (usize, usize) {
        (self.ch.traffic.len(), self.ch.spare.len())
    }
}

impl Chan {
    /// An element owned by `owner` with nothing sent to it.
    fn new(owner: u32) -> Chan {
        Chan { owner, traffic: NONE, sender: NONE, last: 0 }
    }
}

impl<'m> Simulator<'m> {
    /// `name[i][j]` of the channel element at address `a`.
    pub(super) fn channel_name(&self, a: u32) -> String {
        match self.ch.chan_at.get(a as usize).filter(|&&c| (c as usize) < self.ch.chans.len()) {
            Some(&c) => {
                let (decl, elem) = self.ch.decl_of(c as usize);
                self.channel_elem_name(decl, elem)
            }
            None => format!("at address {a}"),
        }
    }

    /// `name[i][j]` of element `elem` of the program's channel `info`.
    pub(super) fn channel_elem_name(&self, info: u32, elem: u32) -> String {
        let Some(c) = self.module.channels.get(info as usize) else { return format!("{info} element {elem}") };
        let mut idx = Vec::new();
        let mut e = elem;
        for &d in c.dims.iter().rev() {
            let d = d.max(1);
            idx.push(e % d);
            e /= d;
        }
        let mut s = c.name.clone();
        for i in idx.iter().rev() {
            s.push_str(&format!("[{i}]"));
        }
        s
    }

    /// The bytes `words` words of memory from `addr` take on the wire ([`word_bytes`]);
    /// a word outside memory counts 4 (the access itself reports the bad address).
    pub(super) fn wire_bytes(&self, addr: u32, words: u32) -> u32 {
        (0..words)
            .map(|k| self.mem.index(i64::from(addr) + i64::from(k)).map_or(4, |i| word_bytes(self.mem.words[i])))
            .sum()
    }

    /// Posts the remote write of `vals` (`(index, value)`, the first at `addr`) by `pid`
    /// from processor `me` into processor `owner`'s memory at `now`: one message of a
    /// 4-byte address and the words owned by `owner`. The words land when it arrives
    /// ([`Self::land_writes`]); until then the owner's memory keeps its old values and
    /// only `pid` sees its new ones.
    pub(super) fn post_write(&mut self, pid: u32, me: u32, owner: u32, addr: u32, vals: Vec<(u32, Word)>, now: Ticks) {
        self.bridge.msg_seq += 1;
        let data: u32 = vals
            .iter()
            .filter(|&&(i, _)| self.mem.owner.get(i as usize) == Some(&owner))
            .map(|&(_, w)| word_bytes(w))
            .sum();
        let arrival = self.remote_send(RemoteKind::Write, pid, addr, me, owner, 4 + data, now);
        self.stats.remote_writes += 1;
        let p = &mut self.pt.procs[pid as usize];
        let r = p.rare_mut();
        for &(i, w) in &vals {
            let e = r.unlanded.entry(i).or_insert((w, 0));
            *e = (w, e.1 + 1);
        }
        match arrival {
            Some(t) => {
                let t = t.max(now);
                r.writes_last = r.writes_last.max(t);
                for (index, word) in vals {
                    let owner = self.mem.owner.get(index as usize).copied().unwrap_or(owner);
                    self.bridge.landing.push(t, super::bridge::Landing { index, word, pid, owner });
                }
            }
            None => {
                r.writes_out += 1;
                self.bridge.loads_pending += 1;
                self.bridge.in_flight.insert(self.bridge.msg_seq, InFlight::Load { pid, vals });
            }
        }
    }

    /// Lands word `index` := `word` written by `pid` (into `owner`'s memory).
    fn land(&mut self, pid: u32, index: u32, word: Word, owner: u32) {
        let i = index as usize;
        if self.mem.owner.get(i) == Some(&owner) {
            self.mem.words[i] = word;
        }
        if let Some(p) = self.pt.procs.get_mut(pid as usize) {
            if let Some(r) = p.rare.as_deref_mut() {
                if let Some(e) = r.unlanded.get_mut(&index) {
                    e.1 -= 1;
                    if e.1 == 0 {
                        r.unlanded.remove(&index);
                    }
                }
            }
        }
    }

    /// Lands the remote writes whose known arrival is at or before `t`: called at each
    /// quantum boundary `t`, so a write changes its owner's memory at the first quantum
    /// boundary at or after its arrival, never before it.
    pub(super) fn land_writes(&mut self, t: Ticks) {
        while self.bridge.landing.peek_time().is_some_and(|a| a <= t) {
            let Some((_, l)) = self.bridge.landing.pop() else { break };
            self.land(l.pid, l.index, l.word, l.owner);
        }
    }

    /// The earliest arrival of a remote write that has not landed (NEVER: none).
    pub(super) fn next_landing(&self) -> Ticks {
        self.bridge.landing.peek_time().unwrap_or(NEVER)
    }

    /// When the writes that arrive by `t` have landed: the first quantum boundary at
    /// or after `t` ([`Self::land_writes`]).
    pub(super) fn landed(&self, t: Ticks) -> Ticks {
        let q = self.cfg.quantum.max(1);
        t.div_ceil(q).saturating_mul(q)
    }

    /// The lock request of `pid` reached the lock word `lock`'s processor at `t`: the
    /// lock is granted at once when it is free and nobody waits, else when the requests
    /// before it have had it (first come, first served).
    pub(super) fn lock_request(&mut self, pid: u32, lock: u32, t: Ticks) {
        let free = as_int(self.mem.words[lock as usize]) == 0;
        let queue = self.ch.lock_waiters.entry(lock).or_default();
        if free && queue.is_empty() {
            self.ch.lock_waiters.remove(&lock);
            self.mem.words[lock as usize] = Word::Int(pid as i32 + 1);
            self.lock_grant(pid, lock, t);
        } else {
            queue.push_back((pid, t));
        }
    }

    /// The lock word `lock` is released at `t` (in its processor's memory): handed to the
    /// longest waiter, if any.
    pub(super) fn lock_release(&mut self, lock: u32, t: Ticks) {
        // The earliest request to arrive (a request's arrival may be known before an
        // earlier one's is); ties in the order they were made.
        let next = self.ch.lock_waiters.get_mut(&lock).and_then(|q| {
            let k = (0..q.len()).min_by_key(|&k| q[k].1)?;
            q.remove(k)
        });
        if self.ch.lock_waiters.get(&lock).is_some_and(|q| q.is_empty()) {
            self.ch.lock_waiters.remove(&lock);
        }
        match next {
            Some((w, asked)) => {
                self.mem.words[lock as usize] = Word::Int(w as i32 + 1);
                self.lock_grant(w, lock, t.max(asked));
            }
            None => self.mem.words[lock as usize] = Word::Int(0),
        }
    }

    /// Grants `lock` to `pid` at `t` on the lock's processor: `pid` takes it when the
    /// grant reaches it (a 4-byte reply when it runs elsewhere).
    fn lock_grant(&mut self, pid: u32, lock: u32, t: Ticks) {
        let owner = self.mem.owner[lock as usize];
        let me = self.pt.procs[pid as usize].pproc;
        self.pt.procs[pid as usize].rare_mut().granted = lock + 1;
        let wake = if owner == me {
            t
        } else {
            self.bridge.msg_seq += 1;
            match self.remote_send(RemoteKind::Reply, pid, lock, owner, me, 4, t) {
                Some(a) => a.max(t),
                None => {
                    self.bridge.in_flight.insert(self.bridge.msg_seq, InFlight::ReadReply { pid });
                    return;
                }
            }
        };
        self.wake_reader(pid, wake);
    }

    /// Sends the reply of a remote read whose request reached `owner` at `t`; returns
    /// when the reply reaches the reader (NEVER while it is in a contention network).
    pub(super) fn read_reply(&mut self, pid: u32, addr: u32, reader: u32, owner: u32, words: u32, t: Ticks) -> Ticks {
        self.bridge.msg_seq += 1;
        let bytes = self.wire_bytes(addr, words);
        match self.remote_send(RemoteKind::Reply, pid, addr, owner, reader, bytes, t) {
            Some(t2) => t2.max(t),
            None => {
                self.bridge.in_flight.insert(self.bridge.msg_seq, InFlight::ReadReply { pid });
                NEVER
            }
        }
    }

    /// Sends remote-memory traffic (message `self.bridge.msg_seq`) of `kind` on behalf of
    /// process `pid` about address `addr`, and tells the observer; returns the arrival
    /// time when the network knows it now.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn remote_send(
        &mut self,
        kind: RemoteKind,
        pid: u32,
        addr: u32,
        src: u32,
        dst: u32,
        bytes: u32,
        now: Ticks,
    ) -> Option<Ticks> {
        let id = self.bridge.msg_seq;
        let arrival = self.net_send(id, src, dst, bytes, now);
        if let Some(o) = self.observer.as_mut() {
            let arrival = arrival.map(|a| a.max(now));
            let line = self.module.line_of(self.pt.procs[pid as usize].pc);
            let (src_pproc, dst_pproc) = (src, dst);
            o.event(&SimEvent::Remote {
                time: now,
                msg: id,
                kind,
                pid,
                addr,
                src_pproc,
                dst_pproc,
                bytes,
                arrival,
                line,
            });
        }
        arrival
    }

    /// Remote-memory message `id`, sent with an unknown arrival, arrived at `t`.
    pub(super) fn remote_arrived(&mut self, id: u64, t: Ticks) {
        if let Some(o) = self.observer.as_mut() {
            o.event(&SimEvent::Arrive { time: t, msg: id });
        }
    }

    /// Delivers to channel `c` the messages of its sender `k` that have arrived and
    /// have no earlier message of the same sender still in the network; a message
    /// never arrives before the one sent before it.
    pub(super) fn deliver_ready(&mut self, c: usize, k: usize) {
        loop {
            let tr = self.ch.traffic_mut(c);
            let f = &mut tr.from[k];
            match f.pending.front() {
                Some(m) if m.arrival != NEVER => {}
                _ => return,
            }
            let Some(Sent { id, arrival, sent, data, deferred, .. }) = f.pending.pop_front() else { return };
            let arrival = arrival.max(f.last);
            f.last = arrival;
            if tr.queue.capacity() == 0 {
                tr.queue.reserve_exact(1);
            }
            tr.queue.push(Msg { arrival, seq: id, data });
            let (reason, owner) = (self.ch.reason(c), self.ch.chans[c].owner);
            self.stats.latency_ticks += crate::time::Total::from(arrival - sent);
            self.stats.latency_messages += 1;
            if deferred {
                if let Some(o) = self.observer.as_mut() {
                    o.event(&SimEvent::Arrive { time: arrival, msg: id });
                }
            }
            if let Some(o) = self.pt.procs.get(owner as usize) {
                if o.wait == reason {
                    let opp = o.pproc as usize;
                    let w = self.pt.wake[owner as usize].min(arrival);
                    self.set_wake(owner, w);
                    self.lower_pmin(opp, arrival);
                }
            }
        }
    }

    /// Hands the simulation every message the network delivers before `until`.
    pub(super) fn advance_network(&mut self, until: Ticks) {
        while let Some((id, t)) = self.net.next_arrival(until) {
            self.arrive(id, t);
        }
        self.flush_hops();
    }

    /// Message `id` arrived at `t`.
    pub(super) fn arrive(&mut self, id: u64, t: Ticks) {
        self.flush_hops();
        match self.bridge.in_flight.remove(&id) {
            Some(InFlight::Chan { chan, sender }) => {
                let c = chan as usize;
                let tr = self.ch.traffic_mut(c);
                let Some(k) = tr.from.iter().position(|f| f.pid == sender) else { return };
                if let Some(e) = tr.from[k].pending.iter_mut().find(|e| e.id == id) {
                    e.arrival = t;
                }
                self.deliver_ready(c, k);
            }
            Some(InFlight::ReadRequest { pid, addr, reader, owner, words }) => {
                self.remote_arrived(id, t);
                self.bridge.reads_pending -= 1;
                let wake = self.read_reply(pid, addr, reader, owner, words, t);
                if wake != NEVER {
                    self.wake_reader(pid, wake);
                }
            }
            Some(InFlight::ReadReply { pid }) => {
                self.remote_arrived(id, t);
                self.wake_reader(pid, t);
            }
            Some(InFlight::Frame { pid }) => self.wake_reader(pid, t),
            Some(InFlight::Load { pid, vals }) => {
                self.remote_arrived(id, t);
                self.bridge.loads_pending -= 1;
                for (index, word) in vals {
                    let owner = self.mem.owner.get(index as usize).copied().unwrap_or(NONE);
                    self.land(pid, index, word, owner);
                }
                let r = self.pt.procs[pid as usize].rare_mut();
                let notice = r.notice;
                r.writes_out -= 1;
                r.writes_last = r.writes_last.max(t);
                let (out, last) = (r.writes_out, r.writes_last);
                if out == 0 && notice != NEVER {
                    let at = notice.max(self.landed(last));
                    self.tell_parent(pid, at);
                }
            }
            Some(InFlight::LockRequest { pid, lock }) => {
                self.remote_arrived(id, t);
                self.bridge.reads_pending -= 1;
                self.lock_request(pid, lock, t);
            }
            Some(InFlight::LockRelease { pid, lock }) => {
                self.remote_arrived(id, t);
                self.bridge.reads_pending -= 1;
                let at = t.max(self.landed(self.pt.procs[pid as usize].writes_last()));
                self.lock_release(lock, at);
            }
            Some(InFlight::EndNotice { pid }) => self.notice_arrived(pid, t),
            Some(InFlight::Handshake { chan, sender, msg, rts }) => {
                self.bridge.reads_pending -= 1;
                self.handshake_arrived(chan as usize, sender, msg, rts, t);
            }
            None => {}
        }
    }

    /// A receive waits on channel element `c` from `t`: when nothing else is coming to
    /// it (no message queued, none eager on its way, no rendezvous under way), the
    /// oldest rendezvous message waiting at a sender's (the one with the least id among
    /// each sender's first) is asked for, as an MPI receive matches one message.
    pub(super) fn post_recv(&mut self, c: usize, t: Ticks) {
        if c >= self.ranks.mailbox {
            // An MPI mailbox posts its receives itself ([`Self::mpi_envelope`]).
            return;
        }
        let tr = self.ch.traffic(c);
        if self.ch.parked == 0 || !tr.queue.is_empty() {
            return;
        }
        let mut pick: Option<(u64, usize)> = None;
        for (k, f) in tr.from.iter().enumerate() {
            for (i, m) in f.pending.iter().enumerate() {
                match m.rdv {
                    Rdv::Parked { posted: NEVER, .. } if i == 0 => {
                        if pick.is_none_or(|(id, _)| m.id < id) {
                            pick = Some((m.id, k));
                        }
                    }
                    Rdv::Parked { posted: NEVER, .. } => {}
                    _ => return,
                }
            }
        }
        let Some((_, k)) = pick else { return };
        let Some(m) = self.ch.traffic_mut(c).from[k].pending.front_mut() else { return };
        if let Rdv::Parked { posted, .. } = &mut m.rdv {
            *posted = t;
        }
        let id = m.id;
        self.clear_to_send(c, k, id);
    }

    /// Sends the clear to send of sender `k`'s message `id` on channel element `c` when
    /// its request has arrived and a receive waits for it.
    pub(super) fn clear_to_send(&mut self, c: usize, k: usize, id: u64) {
        let f = &mut self.ch.traffic_mut(c).from[k];
        let Some(m) = f.pending.iter_mut().find(|m| m.id == id) else { return };
        let Rdv::Parked { rts, posted } = m.rdv else { return };
        if rts == NEVER || posted == NEVER {
            return;
        }
        m.rdv = Rdv::Cleared;
        let (msg, sender) = (m.id, f.pid);
        self.ch.parked -= 1;
        let owner = self.ch.chans[c].owner;
        let (src, dst) = (self.pproc_of(owner), self.pproc_of(sender));
        self.handshake(c, sender, msg, false, src, dst, rts.max(posted));
    }

    /// Sends a handshake message (no payload: its envelope) of rendezvous message `msg`.
    /// With `--handshake free` it crosses nothing: it is there at once.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn handshake(&mut self, c: usize, sender: u32, msg: u64, rts: bool, src: u32, dst: u32, t: Ticks) {
        if self.net_params().free_handshake {
            return self.handshake_arrived(c, sender, msg, rts, t);
        }
        self.bridge.msg_seq += 1;
        let id = self.bridge.msg_seq;
        match self.net_send(id, src, dst, 0, t) {
            Some(at) => self.handshake_arrived(c, sender, msg, rts, at.max(t)),
            None => {
                self.bridge.reads_pending += 1;
                let h = InFlight::Handshake { chan: c as u32, sender, msg, rts };
                self.bridge.in_flight.insert(id, h);
            }
        }
    }

    /// The request to send (`rts`) or the clear to send of message `msg` arrived at `t`.
    fn handshake_arrived(&mut self, c: usize, sender: u32, msg: u64, rts: bool, t: Ticks) {
        let Some(k) = self.ch.traffic(c).from.iter().position(|f| f.pid == sender) else { return };
        if rts {
            if let Some(m) = self.ch.traffic_mut(c).from[k].pending.iter_mut().find(|m| m.id == msg) {
                if let Rdv::Parked { rts, .. } = &mut m.rdv {
                    *rts = t;
                }
            }
            self.clear_to_send(c, k, msg);
            if c >= self.ranks.mailbox {
                self.mpi_envelope(c, t);
            }
            return;
        }
        // The clear to send is back: the data leaves.
        let Some(m) = self.ch.traffic(c).from[k].pending.iter().find(|m| m.id == msg) else { return };
        let bytes = m.bytes;
        let (src, dst) = (self.pproc_of(sender), self.pproc_of(self.ch.chans[c].owner));
        match self.net_send(msg, src, dst, bytes, t) {
            Some(at) => {
                if let Some(m) = self.ch.traffic_mut(c).from[k].pending.iter_mut().find(|m| m.id == msg) {
                    m.arrival = at.max(t);
                }
                self.deliver_ready(c, k);
            }
            None => {
                self.bridge.in_flight.insert(msg, InFlight::Chan { chan: c as u32, sender });
            }
        }
    }

    /// The physical processor of process `pid` (0 when there is none).
    fn pproc_of(&self, pid: u32) -> u32 {
        self.pt.procs.get(pid as usize).map_or(0, |p| p.pproc)
    }

    pub(super) fn chan_index(&self, pid: u32, addr: i64) -> Result<usize, SimError> {
        usize::try_from(addr)
            .ok()
            .and_then(|a| self.ch.chan_at.get(a).copied())
            .filter(|&c| c != NONE)
            .map(|c| c as usize)
            .ok_or_else(|| self.rt(pid, RuntimeError::NotAChannel { addr }))
    }
}
