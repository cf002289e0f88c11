//! Resolving the execution graph's edges once built: messages, joins, and the
//! topological order of the nodes.
#[cfg(test)]
use super::{BusyProfile, CriticalPath};
use super::{EdgeKind, GraphBuilder, Link, NodeKind, PathEdges};
use crate::time::Ticks;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

impl GraphBuilder {
    /// The edge of the message from send node `s` to receive completion `i`, which
    /// `arrived` then (unknown: at the completion): the completion's other edge when
    /// the receiver waited for it, else a weak edge.
    pub(super) fn message(&mut self, i: usize, s: usize, arrived: Option<Ticks>) {
        // A message edge must go forward in time; a malformed record may say otherwise.
        if self.nodes[s].time > self.nodes[i].time || s == i {
            return;
        }
        let arrived = arrived.unwrap_or(self.nodes[i].time);
        let before = self.vertical[i].get().map(|v| self.nodes[v].time);
        // The receiver waited for the message when it arrived after the receiver's
        // previous event: then the message, not the receiver, set the completion time.
        // Then the receiver was suspended from its receive call on: no vertical edge
        // (seed 003 §3.2: "No edge exists between a recv_call event and the following
        // msg_arr event because the process is suspended"). A message the receiver
        // did not wait for is still an edge of the graph, but not the completion's
        // critical predecessor.
        let waited = before.is_none_or(|b| arrived > b);
        if waited {
            self.other[i] = Link(s as u32);
            if self.vertical[i].get().is_some_and(|v| self.nodes[v].kind == NodeKind::RecvCall) {
                self.cuts.push(i as u32);
            }
        } else {
            self.weak.push((i as u32, s as u32, arrived));
        }
    }

    /// Resolves the message edges and finds the critical path ending at the last event
    /// (ties: the lowest node index, i.e. the first recorded), weighted for `processors`
    /// busy as `profile` says, compute edges by their elapsed time (no CPU times: the
    /// tests' shortcut; the analysis weighs with [`PathEdges::weigh`]).
    #[cfg(test)]
    pub(crate) fn finish(mut self, processors: u32, profile: &BusyProfile) -> CriticalPath {
        self.elapsed_only = true;
        self.path().weigh(processors, profile)
    }

    /// Resolves the message edges and finds the critical path ending at the last event
    /// (ties: the lowest node index, i.e. the first recorded), unweighed: the part of
    /// `finish` (in tests) that needs no busy profile, so the two can be computed
    /// at the same time.
    pub fn path(&mut self) -> PathEdges {
        self.resolve();
        self.critical()
    }

    /// Resolves the message and join edges: the first part of [`path`](Self::path), after
    /// which the graph is only read.
    pub fn resolve(&mut self) {
        for (i, msg) in std::mem::take(&mut self.pending) {
            if let Some(&s) = self.send_of.get(msg) {
                let arrived = self.arrival.get(msg).copied();
                self.message(i as usize, s as usize, arrived);
            }
        }
        for i in std::mem::take(&mut self.cuts) {
            self.vertical[i as usize] = Link::NONE;
        }
        for &(i, parent) in &self.joins {
            let i = i as usize;
            let t = self.nodes[i].time;
            let ends = self.child_ends.get(&parent).map(Vec::as_slice).unwrap_or_default();
            // The latest child end not after the resumption (ties: the first recorded).
            let Some(c) = ends
                .iter()
                .map(|&c| c as usize)
                .filter(|&c| self.nodes[c].time <= t)
                .max_by_key(|&c| (self.nodes[c].time, Reverse(c)))
            else {
                continue;
            };
            let (end, before) = (self.nodes[c].time, self.vertical[i].get().map(|v| self.nodes[v].time));
            // As for messages: the child's end is critical when the parent waited for it.
            if end <= self.nodes[i].time && before.is_none_or(|b| end > b) {
                self.other[i] = Link(c as u32);
                // The parent was suspended from the start of its wait.
                self.vertical[i] = Link::NONE;
            }
        }
        // A malformed record may put a process's events out of time order: such vertical
        // edges would run backwards in time and are dropped rather than trusted (the
        // builder saw whether there are any). The other edges go forward by construction:
        // a process starts no earlier than its fork, and message and join edges (weak
        // ones too) are kept above only when they do.
        if self.backward {
            for i in 0..self.nodes.len() {
                if self.vertical[i].get().is_some_and(|v| self.nodes[v].time > self.nodes[i].time) {
                    self.vertical[i] = Link::NONE;
                }
            }
        }
        debug_assert!((0..self.nodes.len())
            .all(|i| self.other(i).is_none_or(|(o, _)| self.nodes[o as usize].time <= self.nodes[i].time)));
        self.weak.sort_unstable();
    }
}

impl GraphBuilder {
    /// Node `i`'s other predecessor and the kind of the edge from it.
    #[inline]
    pub(super) fn other(&self, i: usize) -> Option<(u32, EdgeKind)> {
        let o = self.other[i];
        if o == Link::NONE {
            return None;
        }
        Some((o.0, self.nodes[i].kind.other_edge()?))
    }

    /// The kind of node `i`'s vertical edge: computation, or the suspension it ends.
    pub(super) fn vertical_kind(&self, i: usize) -> EdgeKind {
        match self.nodes[i].kind {
            NodeKind::Resume(k) => k,
            _ => EdgeKind::Compute,
        }
    }

    /// The end of the transfer of a message the receiver did not wait for, `(receive
    /// completion, send, arrival)` of [`Self::weak`]: its arrival, clamped between its
    /// two nodes.
    pub(super) fn transfer_end(&self, &(i, s, arrived): &(u32, u32, Ticks)) -> Ticks {
        arrived.clamp(self.nodes[s as usize].time, self.nodes[i as usize].time)
    }

    /// The sends of the messages the receive completion `i` did not wait for.
    pub(super) fn weak_of(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let k = self.weak.partition_point(|w| (w.0 as usize) < i);
        self.weak[k..].iter().take_while(move |w| w.0 as usize == i).map(|w| w.1 as usize)
    }

    /// The nodes in a topological order of every edge (vertical, the kept other edge, the
    /// weak message edges). Vertical edges always come from an earlier node; when every
    /// other edge does too (as in any record cpss writes), that is the node order. Otherwise
    /// Kahn's algorithm, ready nodes by (time, index); nodes on a cycle (possible only in a
    /// malformed record) are left out.
    pub(super) fn topological(&self) -> Box<dyn Iterator<Item = usize>> {
        match self.topological_order() {
            None => Box::new(0..self.nodes.len()),
            Some(order) => Box::new(order.into_iter()),
        }
    }

    /// [`Self::topological`]: `None` for the node order, else the order Kahn's algorithm
    /// finds.
    pub(super) fn topological_order(&self) -> Option<Vec<usize>> {
        let n = self.nodes.len();
        let forward = self.other.iter().enumerate().all(|(i, o)| o.get().is_none_or(|p| p < i))
            && self.weak.iter().all(|w| w.1 < w.0);
        if forward {
            return None;
        }
        let mut indeg = vec![0usize; n];
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, d) in indeg.iter_mut().enumerate() {
            let weak = self.weak_of(i);
            for p in self.vertical[i].get().into_iter().chain(self.other[i].get()).chain(weak) {
                *d += 1;
                succ[p].push(i);
            }
        }
        let mut heap: BinaryHeap<Reverse<(Ticks, usize)>> =
            (0..n).filter(|&i| indeg[i] == 0).map(|i| Reverse((self.nodes[i].time, i))).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(Reverse((_, i))) = heap.pop() {
            order.push(i);
            for &s in &succ[i] {
                indeg[s] -= 1;
                if indeg[s] == 0 {
                    heap.push(Reverse((self.nodes[s].time, s)));
                }
            }
        }
        Some(order)
    }
}
