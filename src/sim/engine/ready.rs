//! The run queue of a processor with many processes, indexed so that choosing the next
//! process costs a few tree operations instead of a look at every process of the
//! processor (with 2^20 processes on 256 processors, a scan per turn made a run take
//! time in the square of the processes per processor).
//!
//! The scheduler's rule ([`super::Simulator::run_pproc`]) is unchanged: from the floor
//! `f` (the processor's clock, not before the quantum's start) a process with wake time
//! `w` can start at `max(w, f)`; the earliest start wins, ties to the process nearest
//! the front of the round-robin queue, and the chosen process goes to the back. Here
//! the queue order is a rank (a counter stamped when a process joins the back), and the
//! processes with a known wake time are in one of two sets, binary heaps per processor
//! (entries left stale by a change are dropped when they reach the top, and a heap with
//! more stale entries than live ones is compacted):
//!
//! * ready, `w <= absorbed`: all start at the floor, so the least rank wins;
//! * pending, `w > absorbed`: the least `(w, rank)` wins.
//!
//! `absorbed` follows the floor (entries move between the sets when it changes), so a
//! ready process always beats a pending one, as in the scan. A process with no wake time
//! (blocked with nothing to wait for yet) is in neither set. Only an indexed processor
//! has heaps; the others cost four bytes of slot.
use crate::time::Ticks;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Where a process of an indexed processor is.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
enum Place {
    /// In neither set (no wake time, or not indexed).
    #[default]
    Out,
    Ready,
    Pending,
}

/// The sets of one indexed processor, as binary heaps whose entries carry their
/// process's stamp at entry: an entry whose stamp is no longer its process's (the process
/// left the set, or entered it again) is stale and is dropped when it reaches the top.
/// Every heap's top is kept valid, so that reading the best costs a look at the tops.
#[derive(Default)]
struct Sets {
    /// `(rank, stamp, pid)` of the ready processes, least rank on top.
    ready: BinaryHeap<Reverse<(u64, u32, u32)>>,
    /// `(wake, stamp, pid)` of the ready processes, least wake on top.
    ready_least: BinaryHeap<Reverse<(Ticks, u32, u32)>>,
    /// `(wake, stamp, pid)` of the ready processes, greatest wake on top.
    ready_most: BinaryHeap<(Ticks, u32, u32)>,
    /// `(wake, rank, stamp, pid)` of the pending processes, least on top.
    pending: BinaryHeap<Reverse<(Ticks, u64, u32, u32)>>,
    /// The processes in each set (the heaps hold stale entries too).
    ready_len: usize,
    pending_len: usize,
}

/// Processes of each processor whose queue is indexed (see the module docs).
#[derive(Default)]
pub(super) struct ReadyIndex {
    /// Per processor: the slot of its sets in `sets` (`u32::MAX`: not indexed), its
    /// queue's length, and the floor the ready set was last brought to.
    slot: Vec<u32>,
    /// Some processor is indexed (until then a wake change costs one test).
    any: bool,
    len: Vec<u32>,
    absorbed: Vec<Ticks>,
    sets: Vec<Sets>,
    /// Per process of an indexed processor: its place in the round-robin order, the
    /// set it is in, and the stamp of its entries there.
    rank: Vec<u64>,
    place: Vec<Place>,
    stamp: Vec<u32>,
    next_rank: u64,
}

impl ReadyIndex {
    /// No processor indexed yet, `npp` processors.
    pub(super) fn new(npp: usize) -> ReadyIndex {
        ReadyIndex { slot: vec![u32::MAX; npp], len: vec![0; npp], absorbed: vec![0; npp], ..Default::default() }
    }

    /// Whether processor `pp`'s queue is indexed.
    #[inline]
    pub(super) fn is_indexed(&self, pp: usize) -> bool {
        self.any && self.slot[pp] != u32::MAX
    }

    /// Whether any processor's queue is indexed.
    #[inline]
    pub(super) fn any(&self) -> bool {
        self.any
    }

    /// The number of processes in `pp`'s queue (indexed processors only).
    #[inline]
    pub(super) fn len(&self, pp: usize) -> usize {
        self.len[pp] as usize
    }

    /// Indexes `pp`'s queue: `procs` are its processes, front first, with their wakes.
    pub(super) fn index(&mut self, pp: usize, procs: impl Iterator<Item = (u32, Ticks)>) {
        if self.slot[pp] == u32::MAX {
            self.slot[pp] = self.sets.len() as u32;
            self.sets.push(Sets::default());
        }
        self.any = true;
        self.absorbed[pp] = 0;
        for (pid, wake) in procs {
            self.push_back(pp, pid, wake);
        }
    }

    /// A process joins the back of `pp`'s queue with wake time `wake`.
    pub(super) fn push_back(&mut self, pp: usize, pid: u32, wake: Ticks) {
        if self.rank.len() <= pid as usize {
            let n = pid as usize + 1;
            self.rank.resize(n, 0);
            self.place.resize(n, Place::Out);
            self.stamp.resize(n, 0);
        }
        self.rank[pid as usize] = self.next_rank;
        self.next_rank += 1;
        self.len[pp] += 1;
        self.enter(pp, pid, wake);
    }

    /// A process leaves `pp`'s queue (it ended).
    pub(super) fn remove(&mut self, pp: usize, pid: u32) {
        self.leave(pp, pid);
        self.len[pp] -= 1;
    }

    /// A process's wake time changes to `new`.
    #[inline]
    pub(super) fn rewake(&mut self, pp: usize, pid: u32, new: Ticks) {
        self.leave(pp, pid);
        self.enter(pp, pid, new);
    }

    /// The chosen process goes to the back of the queue.
    pub(super) fn send_to_back(&mut self, pp: usize, pid: u32, wake: Ticks) {
        self.leave(pp, pid);
        self.rank[pid as usize] = self.next_rank;
        self.next_rank += 1;
        self.enter(pp, pid, wake);
    }

    /// Brings the ready set of `pp` to the floor `floor`.
    pub(super) fn absorb(&mut self, pp: usize, floor: Ticks) {
        let old = self.absorbed[pp];
        self.absorbed[pp] = floor;
        let s = &mut self.sets[self.slot[pp] as usize];
        if floor > old {
            while let Some(&Reverse((w, r, _, pid))) = s.pending.peek() {
                if w > floor {
                    break;
                }
                s.pending.pop();
                s.pending_len -= 1;
                let st = &mut self.stamp[pid as usize];
                *st = st.wrapping_add(1);
                self.place[pid as usize] = Place::Ready;
                s.ready_len += 1;
                s.ready.push(Reverse((r, *st, pid)));
                s.ready_least.push(Reverse((w, *st, pid)));
                s.ready_most.push((w, *st, pid));
                Self::clean(s, &self.place, &self.stamp);
            }
        } else if floor < old {
            while let Some(&(w, _, pid)) = s.ready_most.peek() {
                if w <= floor {
                    break;
                }
                s.ready_most.pop();
                s.ready_len -= 1;
                let st = &mut self.stamp[pid as usize];
                *st = st.wrapping_add(1);
                self.place[pid as usize] = Place::Pending;
                s.pending_len += 1;
                s.pending.push(Reverse((w, self.rank[pid as usize], *st, pid)));
                Self::clean(s, &self.place, &self.stamp);
            }
        }
    }

    /// The process of `pp` that starts first from the floor the ready set was brought to
    /// ([`Self::absorb`]), with its start time.
    pub(super) fn best(&self, pp: usize) -> Option<(u32, Ticks)> {
        let s = &self.sets[self.slot[pp] as usize];
        if let Some(&Reverse((_, _, pid))) = s.ready.peek() {
            return Some((pid, self.absorbed[pp]));
        }
        s.pending.peek().map(|&Reverse((w, _, _, pid))| (pid, w))
    }

    /// The least wake time of `pp`'s processes (`NEVER`-free: `None` when none has one).
    pub(super) fn min_wake(&self, pp: usize) -> Option<Ticks> {
        let s = &self.sets[self.slot[pp] as usize];
        let r = s.ready_least.peek().map(|e| e.0 .0);
        let q = s.pending.peek().map(|e| e.0 .0);
        match (r, q) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn enter(&mut self, pp: usize, pid: u32, wake: Ticks) {
        if wake == super::NEVER {
            return;
        }
        let i = pid as usize;
        let st = self.stamp[i].wrapping_add(1);
        self.stamp[i] = st;
        let s = &mut self.sets[self.slot[pp] as usize];
        if wake <= self.absorbed[pp] {
            self.place[i] = Place::Ready;
            s.ready_len += 1;
            s.ready.push(Reverse((self.rank[i], st, pid)));
            s.ready_least.push(Reverse((wake, st, pid)));
            s.ready_most.push((wake, st, pid));
        } else {
            self.place[i] = Place::Pending;
            s.pending_len += 1;
            s.pending.push(Reverse((wake, self.rank[i], st, pid)));
        }
    }

    /// Takes `pid` out of its set, if it is in one (its wake time is not needed: the
    /// process knows its set).
    fn leave(&mut self, pp: usize, pid: u32) {
        let i = pid as usize;
        let s = &mut self.sets[self.slot[pp] as usize];
        match self.place[i] {
            Place::Ready => s.ready_len -= 1,
            Place::Pending => s.pending_len -= 1,
            Place::Out => return,
        }
        // Its entries are stale from now on.
        self.place[i] = Place::Out;
        self.stamp[i] = self.stamp[i].wrapping_add(1);
        Self::clean(s, &self.place, &self.stamp);
    }

    /// Drops the stale entries from the heaps' tops, and compacts a heap that holds more
    /// than twice as many entries as its set has processes (so stale entries deep in a
    /// heap cost amortized constant time, and bounded memory).
    fn clean(s: &mut Sets, place: &[Place], stamp: &[u32]) {
        let valid = |want: Place| move |st: u32, pid: u32| place[pid as usize] == want && stamp[pid as usize] == st;
        let (ready, pending) = (valid(Place::Ready), valid(Place::Pending));
        prune(&mut s.ready, s.ready_len, |&Reverse((_, st, pid))| ready(st, pid));
        prune(&mut s.ready_least, s.ready_len, |&Reverse((_, st, pid))| ready(st, pid));
        prune(&mut s.ready_most, s.ready_len, |&(_, st, pid)| ready(st, pid));
        prune(&mut s.pending, s.pending_len, |&Reverse((_, _, st, pid))| pending(st, pid));
    }
}

/// Pops the stale entries off `heap`'s top, then drops every stale one when the heap
/// holds more than twice its `live` entries (and some slack).
fn prune<T: Ord>(heap: &mut BinaryHeap<T>, live: usize, valid: impl Fn(&T) -> bool) {
    while heap.peek().is_some_and(|e| !valid(e)) {
        heap.pop();
    }
    if heap.len() > 2 * live + 32 {
        heap.retain(|e| valid(e));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NEVER;

    /// The scheduler's rule by a scan over the queue (front first): the least
    /// `max(wake, floor)`, ties to the front.
    fn scan(queue: &[u32], wake: &[Ticks], floor: Ticks) -> Option<(u32, Ticks)> {
        let mut best: Option<(u32, Ticks)> = None;
        for &pid in queue {
            let w = wake[pid as usize];
            if w == NEVER {
                continue;
            }
            let s = w.max(floor);
            if best.is_none_or(|(_, b)| s < b) {
                best = Some((pid, s));
            }
        }
        best
    }

    #[test]
    fn chooses_as_the_scan_over_the_queue_does() {
        // Two processors sharing the trees; random wakes, floors that mostly rise and
        // sometimes fall, turns that send the chosen process to the back, ends.
        let mut ix = ReadyIndex::new(2);
        let mut queues: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
        let mut wake: Vec<Ticks> = Vec::new();
        let mut x = 99u64;
        let mut rnd = |n: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % n
        };
        let mut floor = [0 as Ticks; 2];
        for pp in 0..2 {
            ix.index(pp, std::iter::empty());
        }
        for step in 0..20_000 {
            let pp = rnd(2) as usize;
            match rnd(10) {
                0..=2 => {
                    let pid = wake.len() as u32;
                    let w = if rnd(5) == 0 { NEVER } else { floor[pp] + rnd(50) };
                    wake.push(w);
                    queues[pp].push(pid);
                    ix.push_back(pp, pid, w);
                }
                3..=4 if !queues[pp].is_empty() => {
                    let pid = queues[pp][rnd(queues[pp].len() as u64) as usize];
                    let new = if rnd(4) == 0 { NEVER } else { floor[pp] + rnd(60) };
                    ix.rewake(pp, pid, new);
                    wake[pid as usize] = new;
                }
                5 if !queues[pp].is_empty() => {
                    let k = rnd(queues[pp].len() as u64) as usize;
                    let pid = queues[pp].remove(k);
                    ix.remove(pp, pid);
                }
                _ => {
                    floor[pp] = if rnd(8) == 0 { floor[pp].saturating_sub(rnd(20)) } else { floor[pp] + rnd(10) };
                    ix.absorb(pp, floor[pp]);
                    let want = scan(&queues[pp], &wake, floor[pp]);
                    assert_eq!(ix.best(pp), want, "step {step}");
                    let least = queues[pp].iter().map(|&p| wake[p as usize]).filter(|&w| w != NEVER).min();
                    assert_eq!(ix.min_wake(pp), least, "step {step}");
                    if let Some((pid, _)) = want {
                        let k = queues[pp].iter().position(|&p| p == pid).unwrap();
                        queues[pp].remove(k);
                        queues[pp].push(pid);
                        ix.send_to_back(pp, pid, wake[pid as usize]);
                    }
                }
            }
            assert_eq!(ix.len(pp), queues[pp].len());
        }
    }
}
