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
//! processes with a known wake time are in one of two sets:
//!
//! * ready, `w <= absorbed`: all start at the floor, so the least rank wins;
//! * pending, `w > absorbed`: the least `(w, rank)` wins.
//!
//! `absorbed` follows the floor (entries move between the sets when it changes), so a
//! ready process always beats a pending one, as in the scan. A process with no wake time
//! (blocked with nothing to wait for yet) is in neither set. The sets of all indexed
//! processors share three trees keyed by processor first, so an indexed processor with
//! one process costs a few tree entries, not a tree of its own.
use crate::time::Ticks;
use std::collections::BTreeSet;

/// Processes of each processor whose queue is indexed (see the module docs).
#[derive(Default)]
pub(super) struct ReadyIndex {
    /// Per processor: whether its queue is indexed, its length, and the floor the ready
    /// set was last brought to.
    indexed: Vec<bool>,
    /// Some processor is indexed (until then a wake change costs one test).
    any: bool,
    len: Vec<u32>,
    absorbed: Vec<Ticks>,
    /// Per process of an indexed processor: its place in the round-robin order.
    rank: Vec<u64>,
    next_rank: u64,
    /// `(processor, rank, pid)` of the ready processes.
    ready: BTreeSet<(u32, u64, u32)>,
    /// `(processor, wake, pid)` of the ready processes (their least wake time).
    ready_wake: BTreeSet<(u32, Ticks, u32)>,
    /// `(processor, wake, rank, pid)` of the pending processes.
    pending: BTreeSet<(u32, Ticks, u64, u32)>,
}

impl ReadyIndex {
    /// No processor indexed yet, `npp` processors.
    pub(super) fn new(npp: usize) -> ReadyIndex {
        ReadyIndex { indexed: vec![false; npp], len: vec![0; npp], absorbed: vec![0; npp], ..Default::default() }
    }

    /// Whether processor `pp`'s queue is indexed.
    #[inline]
    pub(super) fn is_indexed(&self, pp: usize) -> bool {
        self.any && self.indexed[pp]
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
        self.indexed[pp] = true;
        self.any = true;
        self.absorbed[pp] = 0;
        for (pid, wake) in procs {
            self.push_back(pp, pid, wake);
        }
    }

    /// A process joins the back of `pp`'s queue with wake time `wake`.
    pub(super) fn push_back(&mut self, pp: usize, pid: u32, wake: Ticks) {
        if self.rank.len() <= pid as usize {
            self.rank.resize(pid as usize + 1, 0);
        }
        self.rank[pid as usize] = self.next_rank;
        self.next_rank += 1;
        self.len[pp] += 1;
        self.enter(pp, pid, wake);
    }

    /// A process leaves `pp`'s queue (it ended); `wake` is its wake time.
    pub(super) fn remove(&mut self, pp: usize, pid: u32, wake: Ticks) {
        self.leave(pp, pid, wake);
        self.len[pp] -= 1;
    }

    /// A process's wake time changes from `old` to `new`.
    #[inline]
    pub(super) fn rewake(&mut self, pp: usize, pid: u32, old: Ticks, new: Ticks) {
        self.leave(pp, pid, old);
        self.enter(pp, pid, new);
    }

    /// The chosen process goes to the back of the queue.
    pub(super) fn send_to_back(&mut self, pp: usize, pid: u32, wake: Ticks) {
        self.leave(pp, pid, wake);
        self.rank[pid as usize] = self.next_rank;
        self.next_rank += 1;
        self.enter(pp, pid, wake);
    }

    /// Brings the ready set of `pp` to the floor `floor`.
    pub(super) fn absorb(&mut self, pp: usize, floor: Ticks) {
        let p = pp as u32;
        let old = self.absorbed[pp];
        if floor > old {
            while let Some(&(q, w, r, pid)) = self.pending.range((p, 0, 0, 0)..).next() {
                if q != p || w > floor {
                    break;
                }
                self.pending.remove(&(q, w, r, pid));
                self.ready.insert((p, r, pid));
                self.ready_wake.insert((p, w, pid));
            }
        } else if floor < old {
            while let Some(&(q, w, pid)) = self.ready_wake.range(..(p + 1, 0, 0)).next_back() {
                if q != p || w <= floor {
                    break;
                }
                let r = self.rank[pid as usize];
                self.ready_wake.remove(&(q, w, pid));
                self.ready.remove(&(p, r, pid));
                self.pending.insert((p, w, r, pid));
            }
        }
        self.absorbed[pp] = floor;
    }

    /// The process of `pp` that starts first from the floor the ready set was brought to
    /// ([`Self::absorb`]), with its start time.
    pub(super) fn best(&self, pp: usize) -> Option<(u32, Ticks)> {
        let p = pp as u32;
        if let Some(&(q, _, pid)) = self.ready.range((p, 0, 0)..).next() {
            if q == p {
                return Some((pid, self.absorbed[pp]));
            }
        }
        match self.pending.range((p, 0, 0, 0)..).next() {
            Some(&(q, w, _, pid)) if q == p => Some((pid, w)),
            _ => None,
        }
    }

    /// The least wake time of `pp`'s processes (`NEVER`-free: `None` when none has one).
    pub(super) fn min_wake(&self, pp: usize) -> Option<Ticks> {
        let p = pp as u32;
        let r = self.ready_wake.range((p, 0, 0)..).next().filter(|e| e.0 == p).map(|e| e.1);
        let q = self.pending.range((p, 0, 0, 0)..).next().filter(|e| e.0 == p).map(|e| e.1);
        match (r, q) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn enter(&mut self, pp: usize, pid: u32, wake: Ticks) {
        if wake == super::NEVER {
            return;
        }
        let (p, r) = (pp as u32, self.rank[pid as usize]);
        if wake <= self.absorbed[pp] {
            self.ready.insert((p, r, pid));
            self.ready_wake.insert((p, wake, pid));
        } else {
            self.pending.insert((p, wake, r, pid));
        }
    }

    fn leave(&mut self, pp: usize, pid: u32, wake: Ticks) {
        if wake == super::NEVER {
            return;
        }
        let (p, r) = (pp as u32, self.rank[pid as usize]);
        if wake <= self.absorbed[pp] {
            self.ready.remove(&(p, r, pid));
            self.ready_wake.remove(&(p, wake, pid));
        } else {
            self.pending.remove(&(p, wake, r, pid));
        }
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
                    ix.rewake(pp, pid, wake[pid as usize], new);
                    wake[pid as usize] = new;
                }
                5 if !queues[pp].is_empty() => {
                    let k = rnd(queues[pp].len() as u64) as usize;
                    let pid = queues[pp].remove(k);
                    ix.remove(pp, pid, wake[pid as usize]);
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
