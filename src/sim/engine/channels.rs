//! Messages: channel sends and their arrival in order per sender, remote reads and
//! writes as network messages, and the arrivals the network hands back.
use super::*;

impl<'m> Simulator<'m> {
    /// `name[i][j]` of the channel element at address `a`.
    pub(super) fn channel_name(&self, a: u32) -> String {
        match self.chan_at.get(a as usize).and_then(|&c| self.chans.get(c as usize)) {
            Some(ch) => self.channel_elem_name(ch.info, ch.elem),
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

    /// Sends the reply of a remote read whose request reached `owner` at `t`; returns
    /// when the reply reaches the reader (NEVER while it is in a contention network).
    pub(super) fn read_reply(&mut self, pid: u32, addr: u32, reader: u32, owner: u32, words: u32, t: Ticks) -> Ticks {
        self.msg_seq += 1;
        let bytes = self.wire_bytes(addr, words);
        match self.remote_send(RemoteKind::Reply, pid, addr, owner, reader, bytes, t) {
            Some(t2) => t2.max(t),
            None => {
                self.in_flight.insert(self.msg_seq, InFlight::ReadReply { pid });
                NEVER
            }
        }
    }

    /// Sends remote-memory traffic (message `self.msg_seq`) of `kind` on behalf of
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
        let id = self.msg_seq;
        let arrival = self.net_send(id, src, dst, bytes, now);
        if let Some(o) = self.observer.as_mut() {
            let arrival = arrival.map(|a| a.max(now));
            let line = self.module.line_of(self.procs[pid as usize].pc);
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
            let chan = &mut self.chans[c];
            let f = &mut chan.from[k];
            match f.pending.front() {
                Some(m) if m.arrival != NEVER => {}
                _ => return,
            }
            let Some(Sent { id, arrival, sent, data, deferred }) = f.pending.pop_front() else { return };
            let arrival = arrival.max(f.last);
            f.last = arrival;
            if chan.queue.capacity() == 0 {
                chan.queue.reserve_exact(1);
            }
            chan.queue.push(Msg { arrival, seq: id, data });
            let (reason, owner) = (Reason::Channel { channel: chan.info, index: chan.elem }, chan.owner);
            self.stats.latency_ticks += arrival - sent;
            if deferred {
                if let Some(o) = self.observer.as_mut() {
                    o.event(&SimEvent::Arrive { time: arrival, msg: id });
                }
            }
            if let Some(o) = self.procs.get(owner as usize) {
                if o.wait == reason {
                    let opp = o.pproc as usize;
                    let w = self.wake[owner as usize].min(arrival);
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
        match self.in_flight.remove(&id) {
            Some(InFlight::Chan { chan, sender }) => {
                let c = chan as usize;
                let Some(k) = self.chans[c].from.iter().position(|f| f.pid == sender) else { return };
                if let Some(e) = self.chans[c].from[k].pending.iter_mut().find(|e| e.id == id) {
                    e.arrival = t;
                }
                self.deliver_ready(c, k);
            }
            Some(InFlight::ReadRequest { pid, addr, reader, owner, words }) => {
                self.remote_arrived(id, t);
                self.reads_pending -= 1;
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
            Some(InFlight::Load) => self.remote_arrived(id, t),
            None => {}
        }
    }

    pub(super) fn chan_index(&self, pid: u32, addr: i64) -> Result<usize, SimError> {
        usize::try_from(addr)
            .ok()
            .and_then(|a| self.chan_at.get(a).copied())
            .filter(|&c| c != NONE)
            .map(|c| c as usize)
            .ok_or_else(|| self.rt(pid, RuntimeError::NotAChannel { addr }))
    }
}
