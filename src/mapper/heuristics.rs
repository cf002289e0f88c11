//! The load-aware mapping heuristics of seed 001 §8, driven by the computation cost of
//! every task as well as its communication ([`super::tasks`]). Each minimises the time of
//! the most loaded processor; ties go to the better balanced mapping, then lower ids.
//!
//! Where a move leaves the most loaded processor as it was, the sum of the squares of
//! all processors' global loads decides (the better balanced mapping wins), so the
//! iterative methods are not stuck on the plateaus a maximum has.
//!
//! * **LPTF** (largest processing time first) — load balancing only: tasks in decreasing
//!   order of computation cost, each on the processor with the least computation so far.
//! * **LGCF** (largest global cost first) — tasks in decreasing order of global cost
//!   (computation plus the time of all their communication over one hop), each on the
//!   processor whose global load (computation plus communication with tasks placed on
//!   other processors, hop-weighted) would be lowest with it.
//! * **Boillat** — iterative, moves only to a direct neighbour: each iteration draws
//!   whether it optimises communication (with a probability falling from 1/2 to 0 over
//!   the iterations) or load; then for every processor and every neighbour it makes the
//!   best load-balancing move (the task whose move most lowers the larger of the two
//!   processors' global loads) or the most communicating move (the task exchanging the
//!   most bytes with the neighbour's tasks, when that lowers the total communication
//!   time). The best mapping seen wins. Starts from the starting mapping.
//! * **HME** (heuristic move-exchange) — from a random assignment: the best improving
//!   single move while one exists, then the best improving exchange of two tasks, again
//!   until neither improves; the cost is appended to a queue of [`HME_QUEUE`] values; while
//!   the queue descends strictly, [`hme_random_moves`] random moves perturb the mapping and
//!   the search goes on; when it does not descend, a full queue ends the search and a
//!   shorter one is cut to its last value before the random moves. The seed's figure has
//!   no other bound; here [`HME_ROUNDS`] rounds and the step budget bound it.
//!
//! Boillat and HME draw from [`Rng`] seeded by `--seed`: the same seed, the same mapping.
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::comm::Adjacency;
use super::search::{Distances, Steps};
use super::tasks::{Loads, TaskCosts};
use crate::rng::Rng;
use crate::time::Ticks;
use crate::topo::Topology;

/// Iterations of the Boillat method.
pub const BOILLAT_ITERATIONS: u32 = 200;
/// Length of HME's queue of cost values (the seed's L).
pub const HME_QUEUE: usize = 5;
/// Most rounds (local search, then perturbation) of HME.
pub const HME_ROUNDS: u32 = 200;

/// Random moves per HME perturbation (the seed's R): a tenth of the tasks, at least one.
pub fn hme_random_moves(tasks: usize) -> usize {
    tasks.div_ceil(10).max(1)
}

/// The cost a heuristic minimises: the most loaded processor's time, then the sum of
/// the squares of all processors' times.
type Cost = (Ticks, u128);

fn cost_of(l: &Loads) -> Cost {
    (l.max_time(), l.squares)
}

/// LPTF: tasks by decreasing computation cost (ties: lower id), each on the processor
/// with the least computation so far (ties: lower id).
pub fn lptf(costs: &TaskCosts, processors: u32) -> Vec<u32> {
    let mut order: Vec<u32> = (0..costs.work.len() as u32).collect();
    order.sort_by_key(|&t| (Reverse(costs.work[t as usize]), t));
    let mut heap: BinaryHeap<Reverse<(Ticks, u32)>> = (0..processors.max(1)).map(|p| Reverse((0, p))).collect();
    let mut table = vec![0; costs.work.len()];
    for t in order {
        if let Some(Reverse((load, p))) = heap.pop() {
            table[t as usize] = p;
            heap.push(Reverse((load.saturating_add(costs.work[t as usize]), p)));
        }
    }
    table
}

/// LGCF: tasks by decreasing global cost (computation plus all their communication over
/// one hop; ties: lower id), each on the processor whose global load would be lowest
/// with it (ties: lower load before, then lower id).
pub(super) fn lgcf(adj: &Adjacency, dist: &Distances, costs: &TaskCosts) -> Vec<u32> {
    let n = costs.work.len();
    let np = dist.nodes() as u32;
    let global_cost = |t: u32| costs.work[t as usize].saturating_add(adj.volume(t).saturating_mul(costs.byte_time));
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by_key(|&t| (Reverse(global_cost(t)), t));
    let mut placed: Vec<Option<u32>> = vec![None; n];
    let mut load: Vec<Ticks> = vec![0; np as usize];
    let price = |b: u64, p: u32, q: u32| b.saturating_mul(dist.get(p, q)).saturating_mul(costs.byte_time);
    for t in order {
        let w = costs.work[t as usize];
        let partners = adj.partners(t);
        let best = (0..np).min_by_key(|&q| {
            let comm = partners
                .iter()
                .filter_map(|&(u, b)| placed[u as usize].map(|p| price(b, q, p)))
                .fold(0u64, u64::saturating_add);
            (load[q as usize].saturating_add(w).saturating_add(comm), load[q as usize], q)
        });
        let Some(q) = best else { break };
        load[q as usize] = load[q as usize].saturating_add(w);
        for &(u, b) in partners {
            if let Some(p) = placed[u as usize] {
                let c = price(b, q, p);
                load[q as usize] = load[q as usize].saturating_add(c);
                load[p as usize] = load[p as usize].saturating_add(c);
            }
        }
        placed[t as usize] = Some(q);
    }
    placed.into_iter().map(|p| p.unwrap_or(0)).collect()
}

/// Which tasks each processor holds, kept with a [`Loads`].
struct Residents(Vec<Vec<u32>>);

impl Residents {
    fn new(table: &[u32], processors: usize) -> Residents {
        let mut on = vec![Vec::new(); processors];
        for (t, &p) in table.iter().enumerate() {
            on[p as usize].push(t as u32);
        }
        Residents(on)
    }

    fn moved(&mut self, t: u32, from: u32, to: u32) {
        if let Some(i) = self.0[from as usize].iter().position(|&x| x == t) {
            self.0[from as usize].remove(i);
        }
        self.0[to as usize].push(t);
    }
}

/// The Boillat method from `start` (see the module documentation).
pub(super) fn boillat(
    start: &[u32],
    adj: &Adjacency,
    dist: &Distances,
    phys: &Topology,
    costs: &TaskCosts,
    seed: u64,
    steps: &mut Steps,
) -> Vec<u32> {
    let np = dist.nodes();
    let mut rng = Rng::new(seed);
    let nbrs: Vec<Vec<u32>> = (0..np as u32).map(|p| phys.neighbours(p)).collect();
    let mut l = Loads::new(start.to_vec(), adj, dist, costs);
    let mut on = Residents::new(start, np);
    let mut best = (cost_of(&l), l.table.clone());
    'outer: for it in 0..BOILLAT_ITERATIONS {
        let p_comm = 0.5 * (1.0 - f64::from(it) / f64::from(BOILLAT_ITERATIONS));
        let communicate = rng.next_f64() < p_comm;
        for i in 0..np as u32 {
            for &j in &nbrs[i as usize] {
                let mut chosen = None;
                if communicate {
                    // The task of i exchanging the most bytes with j's tasks (ties: lower id).
                    let mut most = (0u64, u32::MAX);
                    for &k in &on.0[i as usize] {
                        if !steps.take() {
                            break 'outer;
                        }
                        let bytes = adj
                            .partners(k)
                            .iter()
                            .filter(|&&(u, _)| l.table[u as usize] == j)
                            .fold(0u64, |a, &(_, b)| a.saturating_add(b));
                        if bytes > most.0 || (bytes == most.0 && bytes > 0 && k < most.1) {
                            most = (bytes, k);
                        }
                    }
                    if most.0 > 0 {
                        let before = l.comm;
                        l.apply(most.1, j);
                        if l.comm < before {
                            chosen = Some(most.1);
                        }
                        l.apply(most.1, i);
                    }
                } else {
                    // The move that most lowers the larger of the two global loads.
                    let now = l.global[i as usize].max(l.global[j as usize]);
                    let mut best_move: Option<(Ticks, u32)> = None;
                    for idx in 0..on.0[i as usize].len() {
                        if !steps.take() {
                            break 'outer;
                        }
                        let k = on.0[i as usize][idx];
                        l.apply(k, j);
                        let after = l.global[i as usize].max(l.global[j as usize]);
                        l.apply(k, i);
                        if after < now && best_move.is_none_or(|(b, _)| after < b) {
                            best_move = Some((after, k));
                        }
                    }
                    chosen = best_move.map(|(_, k)| k);
                }
                if let Some(k) = chosen {
                    l.apply(k, j);
                    on.moved(k, i, j);
                }
            }
        }
        let c = cost_of(&l);
        if c < best.0 {
            best = (c, l.table.clone());
        }
    }
    let c = cost_of(&l);
    if c < best.0 {
        best = (c, l.table.clone());
    }
    best.1
}

/// The state of HME: the loads, processors sorted by global load, and scratch marks for
/// the processors a candidate touches.
struct Hme<'a> {
    l: Loads<'a>,
    order: Vec<u32>,
    mark: Vec<u32>,
    stamp: u32,
}

impl<'a> Hme<'a> {
    fn sort(&mut self) {
        let g = &self.l.global;
        self.order.sort_by_key(|&p| (Reverse(g[p as usize]), p));
    }

    fn touch(&mut self, p: u32) {
        self.mark[p as usize] = self.stamp;
    }

    /// The cost after moving the tasks of `moves` (applied, then undone): the largest
    /// global load among the touched processors or the largest untouched one.
    fn try_moves(&mut self, moves: &[(u32, u32)]) -> Cost {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.fill(0);
            self.stamp = 1;
        }
        let mut undo = [(0u32, 0u32); 2];
        for (i, &(t, to)) in moves.iter().enumerate() {
            let from = self.l.table[t as usize];
            undo[i] = (t, from);
            self.touch(from);
            self.touch(to);
            let adj = self.l.adj;
            for &(u, _) in adj.partners(t) {
                let q = self.l.table[u as usize];
                self.touch(q);
            }
            self.l.apply(t, to);
        }
        let mut z = 0;
        for &p in &self.order {
            if self.mark[p as usize] != self.stamp {
                z = self.l.global[p as usize];
                break;
            }
        }
        // Touched processors: those of the moved tasks, their partners' and the targets.
        for &(t, to) in moves {
            z = z.max(self.l.global[to as usize]);
            for &(u, _) in self.l.adj.partners(t) {
                z = z.max(self.l.global[self.l.table[u as usize] as usize]);
            }
        }
        for &(_, from) in undo.iter().take(moves.len()) {
            z = z.max(self.l.global[from as usize]);
        }
        let c = (z, self.l.squares);
        for &(t, from) in undo.iter().take(moves.len()).rev() {
            self.l.apply(t, from);
        }
        c
    }

    /// The best improving single move, applied; false when none improves.
    fn best_move(&mut self, steps: &mut Steps) -> Option<bool> {
        let now = cost_of(&self.l);
        let np = self.l.global.len() as u32;
        let mut best: Option<(Cost, u32, u32)> = None;
        for t in 0..self.l.table.len() as u32 {
            let from = self.l.table[t as usize];
            for q in (0..np).filter(|&q| q != from) {
                if !steps.take() {
                    return None;
                }
                let c = self.try_moves(&[(t, q)]);
                if c < now && best.is_none_or(|(b, _, _)| c < b) {
                    best = Some((c, t, q));
                }
            }
        }
        Some(match best {
            Some((_, t, q)) => {
                self.l.apply(t, q);
                self.sort();
                true
            }
            None => false,
        })
    }

    /// The best improving exchange of two tasks on different processors, applied.
    fn best_exchange(&mut self, steps: &mut Steps) -> Option<bool> {
        let now = cost_of(&self.l);
        let n = self.l.table.len() as u32;
        let mut best: Option<(Cost, u32, u32)> = None;
        for t in 0..n {
            for u in t + 1..n {
                let (pt, pu) = (self.l.table[t as usize], self.l.table[u as usize]);
                if pt == pu {
                    continue;
                }
                if !steps.take() {
                    return None;
                }
                let c = self.try_moves(&[(t, pu), (u, pt)]);
                if c < now && best.is_none_or(|(b, _, _)| c < b) {
                    best = Some((c, t, u));
                }
            }
        }
        Some(match best {
            Some((_, t, u)) => {
                let (pt, pu) = (self.l.table[t as usize], self.l.table[u as usize]);
                self.l.apply(t, pu);
                self.l.apply(u, pt);
                self.sort();
                true
            }
            None => false,
        })
    }
}

/// HME from a random assignment drawn with `seed` (see the module documentation).
pub(super) fn hme(adj: &Adjacency, dist: &Distances, costs: &TaskCosts, seed: u64, steps: &mut Steps) -> Vec<u32> {
    let n = costs.work.len();
    let np = dist.nodes() as u64;
    let mut rng = Rng::new(seed);
    let table: Vec<u32> = (0..n).map(|_| rng.below(np) as u32).collect();
    let l = Loads::new(table, adj, dist, costs);
    let mut h = Hme { l, order: (0..np as u32).collect(), mark: vec![0; np as usize], stamp: 0 };
    h.sort();
    let mut best = (cost_of(&h.l), h.l.table.clone());
    let mut queue: VecDeque<Cost> = VecDeque::with_capacity(HME_QUEUE + 1);
    'rounds: for _ in 0..HME_ROUNDS {
        loop {
            loop {
                match h.best_move(steps) {
                    Some(true) => {}
                    Some(false) => break,
                    None => break 'rounds,
                }
            }
            match h.best_exchange(steps) {
                Some(true) => {}
                Some(false) => break,
                None => break 'rounds,
            }
        }
        let c = cost_of(&h.l);
        queue.push_back(c);
        if queue.len() > HME_QUEUE {
            queue.pop_front();
        }
        if c < best.0 {
            best = (c, h.l.table.clone());
        }
        let descending = queue.iter().zip(queue.iter().skip(1)).all(|(a, b)| b < a);
        if !descending {
            if queue.len() == HME_QUEUE {
                break;
            }
            while queue.len() > 1 {
                queue.pop_front();
            }
        }
        for _ in 0..hme_random_moves(n) {
            if n == 0 {
                break;
            }
            let t = rng.below(n as u64) as u32;
            let q = rng.below(np) as u32;
            h.l.apply(t, q);
        }
        h.sort();
    }
    let c = cost_of(&h.l);
    if c < best.0 {
        best = (c, h.l.table.clone());
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapper::CommMatrix;

    fn topo(s: &str) -> Topology {
        Topology::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    /// The cost [`Hme::try_moves`] predicts for every single move and every exchange
    /// equals the cost of the loads rebuilt from scratch after making it.
    #[test]
    fn hme_predictions_match_a_recount() {
        let phys = topo("mesh:2x3");
        let dist = Distances::new(&phys);
        let comm = CommMatrix::from_triples([(0, 1, 7), (1, 2, 3), (2, 5, 11), (4, 0, 2), (3, 5, 5), (6, 1, 1)]);
        let adj = comm.adjacency(7);
        let costs = TaskCosts { work: vec![9, 4, 0, 13, 2, 6, 8], byte_time: 2 };
        let table = vec![0, 0, 3, 5, 1, 3, 2];
        let l = Loads::new(table.clone(), &adj, &dist, &costs);
        let mut h = Hme { l, order: (0..6).collect(), mark: vec![0; 6], stamp: 0 };
        h.sort();
        let recount = |t: &[u32]| cost_of(&Loads::new(t.to_vec(), &adj, &dist, &costs));
        for t in 0..7u32 {
            for q in 0..6u32 {
                let mut moved = table.clone();
                moved[t as usize] = q;
                assert_eq!(h.try_moves(&[(t, q)]), recount(&moved), "move {t} to {q}");
            }
            for u in 0..7u32 {
                let (pt, pu) = (table[t as usize], table[u as usize]);
                if t == u || pt == pu {
                    continue;
                }
                let mut swapped = table.clone();
                swapped.swap(t as usize, u as usize);
                assert_eq!(h.try_moves(&[(t, pu), (u, pt)]), recount(&swapped), "exchange {t} and {u}");
            }
        }
        assert_eq!(h.l.table, table, "every try is undone");
    }
}
