//! Building the execution graph one event at a time: [`GraphBuilder::event`] adds each
//! event's nodes, follows each node's CPU time and each process's waits.
use super::{CpuTime, EdgeKind, GraphBuilder, Link, Node, NodeKind, Tail, MAX_REACH};
use crate::time::Ticks;
use crate::trace::{Event, ProcState, Reason};

impl GraphBuilder {
    fn push(&mut self, pid: u32, time: Ticks, kind: NodeKind) -> usize {
        // The record has no wake-up event: a process waiting for its children resumed by
        // its next event at the latest.
        if !matches!(kind, NodeKind::Init | NodeKind::Wake | NodeKind::Block | NodeKind::Resume(_))
            && self.tail.get(u64::from(pid)).is_some_and(Tail::waits)
        {
            self.start(pid, time);
            self.wake(pid, time);
            self.resume(pid, time);
        }
        let i = self.nodes.len();
        self.nodes.push(Node { pid, time, kind });
        let tail = self.tail.get_or_insert_with(u64::from(pid), Tail::default);
        let before = std::mem::replace(&mut tail.last, Link(i as u32));
        let backward = before.get().is_some_and(|b| self.nodes[b].time > time);
        self.backward |= backward;
        // Every interval of the process seen so far ended by now, when the record is in
        // order: the process's CPU time before the node is their lengths, and later
        // intervals that started before the node add to it (see `busy`).
        self.cpu_disorder |= tail.end > time || backward;
        self.cpu.push(tail.busy);
        self.vertical.push(before);
        self.other.push(Link::NONE);
        i
    }

    /// The time of `pid`'s latest node (0 for none).
    fn last_time(&self, pid: u32) -> Ticks {
        self.tail.get(u64::from(pid)).and_then(|t| t.last.get()).map_or(0, |l| self.nodes[l].time)
    }

    /// Takes `pid`'s busy interval `[start, end)` into its nodes' CPU times: it adds to
    /// every node after its start, the nodes inside it (recorded before it) the part
    /// before them. Sets `cpu_disorder` when the interval overlaps or precedes the
    /// process's previous one, or reaches back over more than [`MAX_REACH`] nodes.
    fn busy(&mut self, pid: u32, start: Ticks, end: Ticks) {
        self.any_busy = true;
        let tail = self.tail.get_or_insert_with(u64::from(pid), Tail::default);
        let overlaps = start < tail.end;
        tail.busy += end - start;
        tail.end = end;
        let mut at = tail.last;
        if overlaps {
            // Computed again from all the intervals.
            self.cpu_disorder = true;
            return;
        }
        for _ in 0..MAX_REACH {
            let Some(k) = at.get() else { return };
            let t = self.nodes[k].time;
            if t <= start {
                return;
            }
            self.cpu[k] += t.min(end) - start;
            at = self.vertical[k];
        }
        self.cpu_disorder |= at.get().is_some_and(|k| self.nodes[k].time > start);
    }

    /// Whether the CPU times must be computed from all the busy intervals
    /// ([`Self::rebuild_cpu`]) before the paths are weighed.
    pub fn needs_cpu_rebuild(&self) -> bool {
        self.cpu_disorder && !self.full
    }

    /// Computes every node's CPU time from the run's busy intervals `(pid, start, end)`,
    /// in any order.
    pub fn rebuild_cpu(&mut self, busy: &[(u32, Ticks, Ticks)]) {
        let cpu = CpuTime::new(busy);
        self.any_busy = !cpu.is_empty();
        self.cpu =
            cpu.cumulative(self.nodes.iter().map(|x| (x.pid, x.time))).unwrap_or_else(|| vec![0; self.nodes.len()]);
        self.cpu_disorder = false;
    }

    /// Whether compute edges weigh their process's CPU time (else their elapsed time).
    pub(super) fn uses_cpu(&self) -> bool {
        #[cfg(test)]
        if self.elapsed_only {
            return false;
        }
        self.any_busy
    }

    /// The CPU time of node `p`'s process from `p` to node `i` when the edge between them
    /// is a computation (its elapsed time when the run has no busy intervals); 0 for
    /// other edges.
    pub(super) fn edge_cpu(&self, p: usize, i: usize, kind: EdgeKind) -> Ticks {
        match kind {
            EdgeKind::Compute if self.uses_cpu() => self.cpu[i].saturating_sub(self.cpu[p]),
            EdgeKind::Compute => self.nodes[i].time.saturating_sub(self.nodes[p].time),
            _ => 0,
        }
    }

    /// Whether the graph reached its limit of nodes ([`MAX_NODES`](super::MAX_NODES))
    /// and left events out: its critical path is then not the run's.
    pub fn is_full(&self) -> bool {
        self.full
    }

    /// The most nodes this graph takes.
    pub fn limit(&self) -> usize {
        self.limit
    }

    #[cfg(test)]
    pub(crate) fn with_limit(limit: usize) -> GraphBuilder {
        GraphBuilder { limit, ..GraphBuilder::default() }
    }

    /// Ends `pid`'s wait for its children, if it was waiting, with a `Wake` node at `time`.
    fn wake(&mut self, pid: u32, time: Ticks) {
        if self.tail.get_mut(u64::from(pid)).and_then(|t| t.waiting.take()).is_some() {
            // Not before the process's previous event (its wait began there).
            let last = self.last_time(pid);
            let i = self.push(pid, time.max(last), NodeKind::Wake);
            self.joins.push((i as u32, pid));
        }
    }

    /// Starts `pid`, if it was created and has not run yet: its `Init` node at `time`,
    /// reached from its creator's fork by a spawn edge.
    fn start(&mut self, pid: u32, time: Ticks) {
        let fork = self.tail.get_mut(u64::from(pid)).map(|t| std::mem::replace(&mut t.unstarted, Link::NONE));
        if let Some(fork) = fork.and_then(Link::get) {
            let time = time.max(self.nodes[fork].time);
            let init = self.push(pid, time, NodeKind::Init);
            self.other[init] = Link(fork as u32);
        }
    }

    /// Ends `pid`'s suspension, if it was suspended, with a `Block` node where it began
    /// and a `Resume` node at `time`, joined by the suspension's own edge.
    fn resume(&mut self, pid: u32, time: Ticks) {
        if let Some((since, kind)) = self.tail.get_mut(u64::from(pid)).and_then(|t| t.suspended.take()) {
            let since = since.max(self.last_time(pid));
            self.push(pid, since, NodeKind::Block);
            self.push(pid, time.max(since), NodeKind::Resume(kind));
        }
    }

    /// Takes one event into account.
    #[inline]
    pub fn event(&mut self, e: &Event) {
        // An event adds at most 6 nodes (its own after a start, a wake-up and the two of
        // a resumption).
        if self.full || self.nodes.len() + 6 > self.limit {
            self.full = true;
            return;
        }
        match *e {
            Event::ProcCreate { time, parent, pid, .. } => match parent {
                Some(p) => {
                    let fork = self.push(p, time, NodeKind::Fork);
                    self.tail.get_or_insert_with(u64::from(pid), Tail::default).unstarted = Link(fork as u32);
                    self.parent_of.insert(pid, p);
                    if !self.running_states {
                        self.start(pid, time);
                    }
                }
                None => {
                    self.push(pid, time, NodeKind::Init);
                }
            },
            Event::ProcEnd { time, pid } => {
                let i = self.push(pid, time, NodeKind::Exit);
                if let Some(&p) = self.parent_of.get(&pid) {
                    self.child_ends.entry(p).or_default().push(i as u32);
                }
            }
            Event::State { time, pid, state, reason } => {
                self.running_states |= state == ProcState::Running;
                self.start(pid, time);
                let waits = matches!(reason, Reason::Join | Reason::Forall | Reason::Children);
                let suspension = match (state, reason) {
                    (ProcState::Blocked, Reason::RemoteRead { .. }) => Some(EdgeKind::RemoteRead),
                    (ProcState::Spinning | ProcState::Blocked, Reason::Lock { .. }) => Some(EdgeKind::Lock),
                    (ProcState::Delayed, _) => Some(EdgeKind::Delay),
                    _ => None,
                };
                if state == ProcState::Blocked && waits {
                    self.tail.get_or_insert_with(u64::from(pid), Tail::default).waiting = Some(time);
                } else if let Some(kind) = suspension {
                    self.wake(pid, time);
                    self.resume(pid, time);
                    self.tail.get_or_insert_with(u64::from(pid), Tail::default).suspended = Some((time, kind));
                } else {
                    self.wake(pid, time);
                    self.resume(pid, time);
                }
            }
            // Remote-memory traffic is not an edge: the wait it causes is (a remote
            // read's suspension, ended when the reader resumes).
            Event::MsgSend { time, msg, src_pid, purpose: crate::trace::MsgPurpose::Channel { .. }, .. } => {
                let i = self.push(src_pid, time, NodeKind::Send);
                self.send_of.insert(msg, i as u32);
            }
            Event::MsgArrive { time, msg, .. } => {
                self.arrival.insert(msg, time);
            }
            Event::RecvCall { time, pid, .. } => {
                self.push(pid, time, NodeKind::RecvCall);
            }
            // A record lists a message's send and arrival before its receive's completion:
            // its edge is resolved at once, and the message forgotten.
            Event::RecvDone { time, pid, msg, .. } => {
                let i = self.push(pid, time, NodeKind::RecvDone);
                match self.send_of.remove(msg) {
                    Some(s) => {
                        let arrived = self.arrival.remove(msg);
                        self.message(i, s as usize, arrived);
                    }
                    None => self.pending.push((i as u32, msg)),
                }
            }
            // A busy interval is recorded at its end, so the one that led up to the wait
            // may come after it; one that starts at or after the wait's beginning is the
            // process running again, and its start is when it resumed.
            Event::Busy { pid, start, end, .. } => {
                if let Some(&t) = self.tail.get(u64::from(pid)).filter(|t| t.waits()) {
                    if t.unstarted != Link::NONE {
                        self.start(pid, start);
                    }
                    // Starting (an `Init` node) and waking (a `Wake` node) change no other
                    // wait: the copy taken before them still tells.
                    if t.waiting.is_some_and(|since| start >= since && end > since) {
                        self.wake(pid, start);
                    }
                    if t.suspended.is_some_and(|(since, _)| start >= since && end > since) {
                        self.resume(pid, start);
                    }
                }
                if end > start {
                    self.busy(pid, start, end);
                }
            }
            _ => {}
        }
    }
}
