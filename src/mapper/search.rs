//! Mapping search (seed 001 §8, static mapping): propose a mapping that lowers the
//! traffic-weighted hop cost Σ bytes × hops of a communication matrix while keeping every
//! physical processor's load at most a cap — `ceil(V/P)`, or the starting mapping's
//! largest load if that is higher — so that communication is never bought with imbalance.
//!
//! * **greedy** — a list algorithm: virtual processors are placed one at a time, next the
//!   one exchanging the most bytes with those already placed (ties: larger total volume,
//!   then lower id), on the processor with room that minimises its cost to its placed
//!   partners (ties: more free room next to it, then lower id); tried with the first one
//!   on each of several start processors, each result improved by a swap descent.
//! * **anneal** — simulated annealing from the starting mapping. Each physical processor
//!   has `cap` slots; a move swaps the contents of two slots on different processors
//!   (a swap of two virtual processors, or a move into a free slot), so loads never exceed
//!   the cap. The change in cost is computed from the moved processors' partners only
//!   (O(degree) per move, on a precomputed sparse adjacency and distance table). Uphill
//!   moves are accepted with probability `exp(-Δ/T)`; `T` starts at twice the mean
//!   |Δ| of a sample of moves and falls geometrically by [`COOLING`] after
//!   [`MOVES_PER_VPROC`] × V moves, down to 1/1000 of its start, and a swap descent
//!   polishes the best state seen. Several independent
//!   restarts (seeds derived from `--seed`) run in parallel; the cheapest wins, ties to
//!   the lowest restart. Everything is deterministic for a seed.
use rayon::prelude::*;

use super::comm::{Adjacency, CommMatrix};
use super::eval::weighted_cost;
use super::heuristics;
use super::tasks::{Loads, TaskCosts};
use super::MapperError;
use crate::rng::Rng;
use crate::time::Ticks;
use crate::topo::{load, Mapping, Topology};

/// Geometric cooling factor of [`anneal`] per temperature step.
pub const COOLING: f64 = 0.95;
/// Moves per temperature step, per virtual processor.
pub const MOVES_PER_VPROC: u64 = 20;
/// Independent annealing runs.
pub const RESTARTS: u64 = 4;

/// Bounds on a search's work (`cpmap --max-steps`, `--max-seconds`). A step is one
/// candidate move weighed (a swap or a move into a free slot, in the annealer or in a
/// descent); each greedy start and each annealing restart has its own `max_steps`, so a
/// step-bounded search is as deterministic as an unbounded one. The deadline bounds the
/// whole search in wall time (then the result depends on the host's speed). A run that
/// hits either keeps the best mapping it has. So does a search asked to stop (`^C`:
/// `stop`, looked at with the clock).
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub max_steps: u64,
    pub deadline: Option<std::time::Instant>,
    /// Set (by `cpmap`'s `^C`) to end the search early, keeping the best so far.
    pub stop: Option<&'static std::sync::atomic::AtomicBool>,
}

impl Budget {
    /// The default step bound: enough for every descent and annealing schedule up to a
    /// few hundred virtual processors to finish untouched, and for a search on 4096 to
    /// end within a minute on one core.
    pub const DEFAULT_STEPS: u64 = 20_000_000;
}

/// Equal bounds: the same steps, deadline and stop flag (the same flag, not its value).
impl PartialEq for Budget {
    fn eq(&self, o: &Budget) -> bool {
        let same_flag = match (self.stop, o.stop) {
            (Some(a), Some(b)) => std::ptr::eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        self.max_steps == o.max_steps && self.deadline == o.deadline && same_flag
    }
}

impl Eq for Budget {}

impl Default for Budget {
    fn default() -> Budget {
        Budget { max_steps: Budget::DEFAULT_STEPS, deadline: None, stop: None }
    }
}

/// One run's use of a [`Budget`].
pub(super) struct Steps {
    budget: Budget,
    used: u64,
    pub(super) out: bool,
}

impl Steps {
    pub(super) fn new(budget: Budget) -> Steps {
        Steps { budget, used: 0, out: false }
    }

    /// Takes one step; false once the budget is spent (the clock is read every 4096
    /// steps, so the check costs nothing measurable in the move loops).
    pub(super) fn take(&mut self) -> bool {
        if self.out {
            return false;
        }
        self.used += 1;
        let late = self.used % 4096 == 0 && self.past_deadline();
        self.out = self.used > self.budget.max_steps || late;
        !self.out
    }

    fn past_deadline(&self) -> bool {
        self.budget.deadline.is_some_and(|d| std::time::Instant::now() >= d)
            || self.budget.stop.is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
    }
}

/// Which search to run (the values of `cpmap --search`; each doc line is its help).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum SearchMethod {
    /// List placement, heaviest communicators first, then swap descent.
    Greedy,
    /// Simulated annealing with swap moves and geometric cooling.
    Anneal,
    /// Largest processing time first: load balance only (needs --work).
    Lptf,
    /// Largest global cost first: computation and communication (needs --work).
    Lgcf,
    /// The Boillat method: moves to neighbours, load or communication (needs --work).
    Boillat,
    /// Heuristic move-exchange: best moves, best exchanges, random restarts (needs --work).
    Hme,
}

impl SearchMethod {
    /// Every method, in the order `cpmap --search` lists them.
    pub const ALL: [SearchMethod; 6] = [
        SearchMethod::Greedy,
        SearchMethod::Anneal,
        SearchMethod::Lptf,
        SearchMethod::Lgcf,
        SearchMethod::Boillat,
        SearchMethod::Hme,
    ];

    /// The name users write.
    pub fn name(self) -> &'static str {
        match self {
            SearchMethod::Greedy => "greedy",
            SearchMethod::Anneal => "anneal",
            SearchMethod::Lptf => "lptf",
            SearchMethod::Lgcf => "lgcf",
            SearchMethod::Boillat => "boillat",
            SearchMethod::Hme => "hme",
        }
    }

    /// Whether the method minimises the most loaded processor's time from task costs
    /// (else the traffic-weighted hop cost under a load cap).
    pub fn uses_costs(self) -> bool {
        !matches!(self, SearchMethod::Greedy | SearchMethod::Anneal)
    }

    /// Whether the result depends on `--seed`.
    pub fn seeded(self) -> bool {
        matches!(self, SearchMethod::Anneal | SearchMethod::Boillat | SearchMethod::Hme)
    }
}

/// Hop distances between physical processors: a table when small enough, else computed.
pub(super) struct Distances<'a> {
    phys: &'a Topology,
    table: Vec<u32>,
    n: usize,
}

/// Largest processor count for which the P×P distance table is built (4 MiB of u32).
const TABLE_LIMIT: u32 = 1024;

impl<'a> Distances<'a> {
    pub(super) fn new(phys: &'a Topology) -> Distances<'a> {
        let n = phys.nodes();
        let table = if n <= TABLE_LIMIT {
            (0..n).flat_map(|a| (0..n).map(move |b| (a, b))).map(|(a, b)| phys.distance(a, b)).collect()
        } else {
            Vec::new()
        };
        Distances { phys, table, n: n as usize }
    }

    /// The number of physical processors.
    pub(super) fn nodes(&self) -> usize {
        self.n
    }

    pub(super) fn get(&self, a: u32, b: u32) -> u64 {
        let d = self.table.get(a as usize * self.n + b as usize).copied();
        u64::from(d.unwrap_or_else(|| self.phys.distance(a, b)))
    }
}

/// The load cap: `ceil(V/P)` or the start's largest load, whichever is larger.
pub fn load_cap(start: &Mapping, phys: &Topology) -> u32 {
    let v = start.table.len() as u32;
    let p = phys.nodes().max(1);
    let fair = v.div_ceil(p);
    fair.max(load(start, phys).into_iter().max().unwrap_or(0))
}

/// What [`search`] found, and whether a [`Budget`] cut any of its runs short.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub mapping: Mapping,
    pub stopped: bool,
}

/// Runs `method` from `start` (a validated mapping of `virt` onto `phys`) within
/// `budget`; `seed` drives the annealer, Boillat and HME; `costs` are the task costs the
/// load-aware methods need. The result never costs more than `start` by the method's
/// own measure (the weighted cost, or the most loaded processor's time then the total
/// communication time).
#[allow(clippy::too_many_arguments)]
pub fn search(
    method: SearchMethod,
    start: &Mapping,
    virt: &Topology,
    phys: &Topology,
    comm: &CommMatrix,
    costs: Option<&TaskCosts>,
    seed: u64,
    budget: Budget,
) -> Result<Found, MapperError> {
    start.validate(virt, phys).map_err(|error| MapperError::Mapping { name: "start".into(), error })?;
    comm.check_range(virt.nodes())?;
    let adj = comm.adjacency(virt.nodes());
    let (found, stopped) = match (method, costs) {
        (SearchMethod::Greedy, _) => greedy(&adj, phys, load_cap(start, phys), budget),
        (SearchMethod::Anneal, _) => anneal(start, &adj, phys, seed, budget),
        (m, None) => return Err(MapperError::SearchNeedsWork(m.name())),
        (m, Some(costs)) => {
            if costs.work.len() != virt.nodes() as usize {
                return Err(MapperError::WorkOutOfRange { vproc: costs.work.len() as u32, vprocs: virt.nodes() });
            }
            let dist = Distances::new(phys);
            let mut steps = Steps::new(budget);
            let table = match m {
                SearchMethod::Lptf => heuristics::lptf(costs, phys.nodes()),
                SearchMethod::Lgcf => heuristics::lgcf(&adj, &dist, costs),
                SearchMethod::Boillat => heuristics::boillat(&start.table, &adj, &dist, phys, costs, seed, &mut steps),
                _ => heuristics::hme(&adj, &dist, costs, seed, &mut steps),
            };
            let better = {
                let found = Loads::new(table.clone(), &adj, &dist, costs);
                let from = Loads::new(start.table.clone(), &adj, &dist, costs);
                (found.max_time(), found.squares) <= (from.max_time(), from.squares)
            };
            let mapping = if better { Mapping::new(table) } else { Mapping::new(start.table.clone()) };
            return Ok(Found { mapping, stopped: steps.out });
        }
    };
    // A heuristic may lose to its start (greedy ignores it); never propose something worse.
    let mapping = if weighted_cost(&found, phys, comm) <= weighted_cost(start, phys, comm) {
        found
    } else {
        Mapping::new(start.table.clone())
    };
    Ok(Found { mapping, stopped })
}

/// The most loaded processor's time (computation plus communication with tasks
/// elsewhere, [`super::tasks`]) and the total communication time of a validated mapping.
pub fn processor_times(mapping: &Mapping, phys: &Topology, comm: &CommMatrix, costs: &TaskCosts) -> ProcessorTimes {
    let adj = comm.adjacency(costs.work.len() as u32);
    let dist = Distances::new(phys);
    let l = Loads::new(mapping.table.clone(), &adj, &dist, costs);
    ProcessorTimes { max_time: l.max_time(), comm: l.comm, global: l.global, work: l.work }
}

/// Per-processor times of a mapping under task costs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessorTimes {
    /// The cost function: the largest global load.
    pub max_time: Ticks,
    /// Total communication time between tasks on different processors.
    pub comm: Ticks,
    /// Computation plus external communication per processor.
    pub global: Vec<Ticks>,
    /// Computation per processor.
    pub work: Vec<Ticks>,
}

impl ProcessorTimes {
    /// Largest computation over the mean computation (1 is perfect balance; 0 when no
    /// task costs anything).
    pub fn work_imbalance(&self) -> f64 {
        let total: u128 = self.work.iter().map(|&w| u128::from(w)).sum();
        let max = self.work.iter().copied().max().unwrap_or(0);
        if total == 0 {
            return 0.0;
        }
        max as f64 * self.work.len() as f64 / total as f64
    }
}

/// Most start processors tried by [`greedy`].
const GREEDY_STARTS: u32 = 16;

/// The greedy list algorithm followed by a swap descent (see the module documentation),
/// tried with the first virtual processor on each of up to 16 evenly
/// spread physical processors (all of them on small machines); the cheapest result wins,
/// ties to the lowest start.
pub fn greedy(adj: &Adjacency, phys: &Topology, cap: u32, budget: Budget) -> (Mapping, bool) {
    let np = phys.nodes();
    let dist = Distances::new(phys);
    // Neighbour lists for the "room around" tie-break; on fullconnect and shared every
    // processor is everyone's neighbour, so the tie-break says nothing and is skipped.
    let nbrs: Vec<Vec<u32>> = match phys.kind() {
        crate::topo::TopoKind::FullConnect | crate::topo::TopoKind::Shared => vec![Vec::new(); np as usize],
        _ => (0..np).map(|p| phys.neighbours(p)).collect(),
    };
    let starts: Vec<u32> = if np <= 64 {
        (0..np).collect()
    } else {
        (0..GREEDY_STARTS).map(|i| (u64::from(i) * u64::from(np) / u64::from(GREEDY_STARTS)) as u32).collect()
    };
    let runs: Vec<(u64, Vec<u32>, bool)> = starts
        .par_iter()
        .map(|&first| {
            let mut steps = Steps::new(budget);
            let placed = list_placement(adj, &dist, &nbrs, cap, first, &mut steps);
            let table = descend(placed, adj, &dist, cap, &mut steps);
            (adj_cost(&table, adj, &dist), table, steps.out)
        })
        .collect();
    let stopped = runs.iter().any(|r| r.2);
    let best = runs.into_iter().min_by_key(|(cost, _, _)| *cost);
    (Mapping::new(best.map_or_else(Vec::new, |(_, t, _)| t)), stopped)
}

/// One list placement with the first virtual processor on `first`: next the unplaced one
/// exchanging the most bytes with placed ones (ties: larger volume, lower id), on the
/// processor with room minimising the cost to its placed partners (ties: more room on
/// the neighbouring processors, so that chains do not paint themselves into a corner;
/// then lower id). A processor with no placed partner starts near `first`.
///
/// A deadline or `^C` met meanwhile (looked at every 64 placements, each of which weighs
/// every processor) places the rest in id order on the first processors with room, so
/// that the mapping is whole and the search ends at once.
fn list_placement(
    adj: &Adjacency,
    dist: &Distances,
    nbrs: &[Vec<u32>],
    cap: u32,
    first: u32,
    steps: &mut Steps,
) -> Vec<u32> {
    let nv = adj.vprocs();
    let np = dist.n as u32;
    let mut placed: Vec<Option<u32>> = vec![None; nv as usize];
    let mut room: Vec<u32> = vec![cap.max(1); np as usize];
    // Bytes each unplaced vproc exchanges with placed ones.
    let mut attraction = vec![0u64; nv as usize];
    let volume: Vec<u64> = (0..nv).map(|v| adj.volume(v)).collect();
    for k in 0..nv {
        if k % 64 == 63 && steps.past_deadline() {
            steps.out = true;
            let mut p = 0usize;
            for slot in placed.iter_mut().filter(|s| s.is_none()) {
                while p + 1 < room.len() && room[p] == 0 {
                    p += 1;
                }
                *slot = Some(p as u32);
                room[p] = room[p].saturating_sub(1);
            }
            break;
        }
        let Some(v) = (0..nv)
            .filter(|&v| placed[v as usize].is_none())
            .max_by_key(|&v| (attraction[v as usize], volume[v as usize], std::cmp::Reverse(v)))
        else {
            break;
        };
        let partners = adj.partners(v);
        let any_placed = partners.iter().any(|&(n, _)| placed[n as usize].is_some());
        let best = (0..np).filter(|&p| room[p as usize] > 0).min_by_key(|&p| {
            let cost: u64 = partners
                .iter()
                .filter_map(|&(n, w)| placed[n as usize].map(|q| w.saturating_mul(dist.get(p, q))))
                .fold(0u64, u64::saturating_add);
            let near = if any_placed { 0 } else { dist.get(p, first) };
            let around: u32 = nbrs.get(p as usize).map_or(0, |ns| ns.iter().map(|&q| room[q as usize]).sum());
            (cost, near, std::cmp::Reverse(around), p)
        });
        let Some(p) = best else { break };
        placed[v as usize] = Some(p);
        room[p as usize] -= 1;
        for &(n, w) in partners {
            attraction[n as usize] = attraction[n as usize].saturating_add(w);
        }
    }
    placed.into_iter().map(|p| p.unwrap_or(0)).collect()
}

/// Most sweeps of [`descend`].
const DESCENT_SWEEPS: usize = 50;

/// Iterative improvement after the list placement (seed 001: iterative algorithms start
/// from a greedy solution): sweeps over every virtual processor and every slot of another
/// processor, applying each swap or move that lowers the cost, until a sweep changes
/// nothing (a local minimum) or [`DESCENT_SWEEPS`] sweeps have run. Deterministic.
fn descend(table: Vec<u32>, adj: &Adjacency, dist: &Distances, cap: u32, steps: &mut Steps) -> Vec<u32> {
    let mut st = SlotState::new(table, dist.n, cap);
    for _ in 0..DESCENT_SWEEPS {
        let mut improved = false;
        for v in 0..st.table.len() {
            for s2 in 0..st.slots.len() {
                let s1 = st.slot_of[v];
                if s2 / st.cap == s1 / st.cap {
                    continue;
                }
                if !steps.take() {
                    return st.table;
                }
                if st.delta(adj, dist, s1, s2) < 0 {
                    st.apply(s1, s2);
                    improved = true;
                }
            }
        }
        if !improved {
            break;
        }
    }
    st.table
}

/// Simulated annealing from `start` (see the module documentation).
pub fn anneal(start: &Mapping, adj: &Adjacency, phys: &Topology, seed: u64, budget: Budget) -> (Mapping, bool) {
    let cap = load_cap(start, phys);
    let dist = Distances::new(phys);
    let runs: Vec<(u64, Vec<u32>, bool)> = (0..RESTARTS)
        .into_par_iter()
        .map(|i| {
            let mut rng = Rng::new(seed.wrapping_add(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
            let mut steps = Steps::new(budget);
            let (_, table) = anneal_once(start, adj, &dist, cap, &mut rng, &mut steps);
            // The last temperatures are nearly greedy; a descent finishes the job.
            let table = descend(table, adj, &dist, cap, &mut steps);
            (adj_cost(&table, adj, &dist), table, steps.out)
        })
        .collect();
    let stopped = runs.iter().any(|r| r.2);
    // Cheapest, ties to the lowest restart: min_by_key keeps the first minimum.
    let best = runs.into_iter().min_by_key(|(cost, _, _)| *cost);
    (Mapping::new(best.map_or_else(|| start.table.clone(), |(_, t, _)| t)), stopped)
}

/// An empty slot.
const EMPTY: u32 = u32::MAX;

/// The cost of `table` on the adjacency (each pair counted once).
fn adj_cost(table: &[u32], adj: &Adjacency, dist: &Distances) -> u64 {
    let mut c = 0u64;
    for (v, &p) in table.iter().enumerate() {
        for &(n, w) in adj.partners(v as u32) {
            if (n as usize) > v {
                c = c.saturating_add(w.saturating_mul(dist.get(p, table[n as usize])));
            }
        }
    }
    c
}

/// The change in cost when `a` moves from `pa` to `pb` and `b` (if any) from `pb` to `pa`.
fn delta(table: &[u32], adj: &Adjacency, dist: &Distances, a: u32, b: u32, pa: u32, pb: u32) -> i64 {
    let mut d = 0i64;
    for (who, from, to, other) in [(a, pa, pb, b), (b, pb, pa, a)] {
        if who == EMPTY {
            continue;
        }
        for &(n, w) in adj.partners(who) {
            // The pair a–b keeps its distance when the two swap (distances are symmetric).
            if n == other {
                continue;
            }
            let q = table[n as usize];
            d += w as i64 * (dist.get(to, q) as i64 - dist.get(from, q) as i64);
        }
    }
    d
}

/// A mapping held as `cap` slots per physical processor, so that swapping two slots'
/// contents is both the swap of two virtual processors and the move into a free slot.
struct SlotState {
    table: Vec<u32>,
    /// `slots[p * cap + k]` holds a vproc or [`EMPTY`].
    slots: Vec<u32>,
    /// `slot_of[v]` is the slot of vproc `v`.
    slot_of: Vec<usize>,
    cap: usize,
}

impl SlotState {
    /// `table` must respect the cap (checked by [`load_cap`]'s definition: the cap is at
    /// least every load of the start); an overfull processor's extra vprocs would have no
    /// slot, so the cap is raised to fit rather than trusting the caller.
    fn new(table: Vec<u32>, np: usize, cap: u32) -> SlotState {
        let mut fill = vec![0usize; np];
        for &p in &table {
            if let Some(f) = fill.get_mut(p as usize) {
                *f += 1;
            }
        }
        let cap = (cap as usize).max(fill.iter().copied().max().unwrap_or(0)).max(1);
        let mut slots = vec![EMPTY; np * cap];
        let mut slot_of = vec![0usize; table.len()];
        fill.iter_mut().for_each(|f| *f = 0);
        for (v, &p) in table.iter().enumerate() {
            let s = p as usize * cap + fill[p as usize];
            fill[p as usize] += 1;
            slots[s] = v as u32;
            slot_of[v] = s;
        }
        SlotState { table, slots, slot_of, cap }
    }

    /// The change in cost of swapping the contents of slots `s1` and `s2`.
    fn delta(&self, adj: &Adjacency, dist: &Distances, s1: usize, s2: usize) -> i64 {
        let (a, b) = (self.slots[s1], self.slots[s2]);
        delta(&self.table, adj, dist, a, b, (s1 / self.cap) as u32, (s2 / self.cap) as u32)
    }

    fn apply(&mut self, s1: usize, s2: usize) {
        let (a, b) = (self.slots[s1], self.slots[s2]);
        self.slots.swap(s1, s2);
        if a != EMPTY {
            self.table[a as usize] = (s2 / self.cap) as u32;
            self.slot_of[a as usize] = s2;
        }
        if b != EMPTY {
            self.table[b as usize] = (s1 / self.cap) as u32;
            self.slot_of[b as usize] = s1;
        }
    }

    /// A random move: a random vproc's slot and a random slot on another processor.
    fn propose(&self, rng: &mut Rng) -> (usize, usize) {
        let n = self.slots.len();
        let s1 = self.slot_of[rng.below(self.table.len() as u64) as usize];
        let mut s2 = rng.below(n as u64) as usize;
        if s2 / self.cap == s1 / self.cap {
            s2 = (s2 + self.cap) % n;
        }
        (s1, s2)
    }
}

fn anneal_once(
    start: &Mapping,
    adj: &Adjacency,
    dist: &Distances,
    cap: u32,
    rng: &mut Rng,
    steps: &mut Steps,
) -> (u64, Vec<u32>) {
    let mut st = SlotState::new(start.table.clone(), dist.n, cap);
    let mut cost = adj_cost(&st.table, adj, dist);
    let mut best = (cost, st.table.clone());
    if st.table.len() < 2 || dist.n < 2 {
        return best;
    }
    // Starting temperature from a sample of moves.
    let (mut sum, mut count) = (0u64, 0u64);
    for _ in 0..200 {
        let (s1, s2) = st.propose(rng);
        let d = st.delta(adj, dist, s1, s2);
        if d != 0 {
            sum += d.unsigned_abs();
            count += 1;
        }
    }
    if count == 0 {
        return best;
    }
    let t0 = 2.0 * sum as f64 / count as f64;
    let mut temp = t0;
    let moves = MOVES_PER_VPROC * st.table.len() as u64;
    while temp > t0 / 1000.0 && !steps.out {
        for _ in 0..moves {
            if !steps.take() {
                break;
            }
            let (s1, s2) = st.propose(rng);
            let d = st.delta(adj, dist, s1, s2);
            if d <= 0 || rng.next_f64() < (-(d as f64) / temp).exp() {
                st.apply(s1, s2);
                cost = cost.saturating_add_signed(d);
            }
        }
        if cost < best.0 {
            best = (cost, st.table.clone());
        }
        temp *= COOLING;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topo::builtin_mapping;

    fn t(s: &str) -> Topology {
        match Topology::parse(s) {
            Ok(t) => t,
            Err(e) => panic!("{s}: {e}"),
        }
    }

    /// The traffic of a virtual torus: each processor sends 100 bytes to each neighbour.
    fn torus_traffic(v: &Topology) -> CommMatrix {
        CommMatrix::from_triples(v.edges().into_iter().flat_map(|(a, b)| [(a, b, 100), (b, a, 100)]))
    }

    #[test]
    fn delta_matches_full_recomputation() {
        let (v, p) = (t("torus:4x4"), t("mesh:4x8"));
        let comm = torus_traffic(&v);
        let adj = comm.adjacency(v.nodes());
        let dist = Distances::new(&p);
        let mut rng = Rng::new(3);
        let mut table: Vec<u32> = (0..16).map(|i| i * 2).collect();
        for _ in 0..200 {
            let a = rng.below(16) as u32;
            let target = rng.below(32) as u32;
            let b = table.iter().position(|&q| q == target).map_or(EMPTY, |i| i as u32);
            if b == a {
                continue;
            }
            let pa = table[a as usize];
            let before = adj_cost(&table, &adj, &dist) as i64;
            let d = delta(&table, &adj, &dist, a, b, pa, target);
            table[a as usize] = target;
            if b != EMPTY {
                table[b as usize] = pa;
            }
            // The O(degree) delta equals the difference of two full evaluations.
            assert_eq!(before + d, adj_cost(&table, &adj, &dist) as i64);
        }
        // adj_cost counts each pair once with both directions' bytes: Σ bytes × hops.
        assert_eq!(adj_cost(&table, &adj, &dist), weighted_cost(&Mapping::new(table.clone()), &p, &comm));
    }

    #[test]
    fn anneal_beats_random_and_keeps_the_load_cap() {
        let (v, p) = (t("torus:8x8"), t("mesh:8x8"));
        let comm = torus_traffic(&v);
        let random = builtin_mapping("random", &v, &p, 1).unwrap_or_else(|e| panic!("{e}"));
        let run = || search(SearchMethod::Anneal, &random, &v, &p, &comm, None, 1, Budget::default());
        let result = run().unwrap_or_else(|e| panic!("{e}"));
        assert!(!result.stopped, "64 vprocs finish within the default budget");
        let found = result.mapping.clone();
        assert!(found.is_one_to_one());
        let (before, after) = (weighted_cost(&random, &p, &comm), weighted_cost(&found, &p, &comm));
        // 256 directed torus edges of 100 bytes: the fold torus2mesh reaches 1.75 hops
        // mean dilation... any good mapping is far below random's ~5.3 hops per edge.
        assert!(after * 2 < before, "{after} vs {before}");
        // Deterministic for a seed.
        assert_eq!(run(), Ok(result));
    }

    #[test]
    fn greedy_puts_a_hub_in_the_centre() {
        let p = t("mesh:3x3");
        // vproc 0 exchanges 100 bytes each way with 1..=4: heaviest, so it goes to the
        // centre (4) and its four partners to the centre's four neighbours at 1 hop:
        // 8 entries × 100 bytes × 1 hop = 800.
        let comm = CommMatrix::from_triples((1..5).flat_map(|i| [(0, i, 100), (i, 0, 100)]));
        let (m, _) = greedy(&comm.adjacency(5), &p, 1, Budget::default());
        assert_eq!(m.table[0], 4);
        assert_eq!(weighted_cost(&m, &p, &comm), 800);
    }

    #[test]
    fn greedy_with_descent_lays_a_chain_along_a_line() {
        let p = t("line:8");
        // A chain 0-1-…-7: the optimum is 7 pairs × 2 directions × 100 bytes × 1 hop.
        let comm = CommMatrix::from_triples((0..7).flat_map(|i| [(i, i + 1, 100), (i + 1, i, 100)]));
        let (m, _) = greedy(&comm.adjacency(8), &p, 1, Budget::default());
        assert!(m.is_one_to_one());
        assert_eq!(weighted_cost(&m, &p, &comm), 1400);
    }

    #[test]
    fn many_to_one_respects_the_cap() {
        let (v, p) = (t("torus:8x8"), t("mesh:2x2"));
        let comm = torus_traffic(&v);
        let start = builtin_mapping("default", &v, &p, 0).unwrap_or_else(|e| panic!("{e}"));
        // 64 on 4: cap 16.
        assert_eq!(load_cap(&start, &p), 16);
        for method in [SearchMethod::Greedy, SearchMethod::Anneal] {
            let m = search(method, &start, &v, &p, &comm, None, 7, Budget::default())
                .unwrap_or_else(|e| panic!("{e}"))
                .mapping;
            assert!(load(&m, &p).iter().all(|&l| l <= 16), "{method:?}");
            assert!(weighted_cost(&m, &p, &comm) <= weighted_cost(&start, &p, &comm));
        }
    }

    /// A step bound cuts each run short and says so; the result is still a valid
    /// mapping no worse than the start, and the same for the same seed and bound.
    #[test]
    fn a_step_bound_stops_each_run_and_is_reported() {
        let (v, p) = (t("torus:8x8"), t("mesh:8x8"));
        let comm = torus_traffic(&v);
        let random = builtin_mapping("random", &v, &p, 1).unwrap_or_else(|e| panic!("{e}"));
        let budget = Budget { max_steps: 500, deadline: None, stop: None };
        for method in [SearchMethod::Greedy, SearchMethod::Anneal] {
            let run = || search(method, &random, &v, &p, &comm, None, 1, budget).unwrap_or_else(|e| panic!("{e}"));
            let found = run();
            assert!(found.stopped, "{method:?}");
            assert!(found.mapping.is_one_to_one(), "{method:?}");
            assert!(weighted_cost(&found.mapping, &p, &comm) <= weighted_cost(&random, &p, &comm), "{method:?}");
            assert_eq!(run(), found, "{method:?}");
        }
        // A deadline already past stops the annealer at its first clock reading.
        let past = Budget { max_steps: u64::MAX, deadline: Some(std::time::Instant::now()), stop: None };
        let found =
            search(SearchMethod::Anneal, &random, &v, &p, &comm, None, 1, past).unwrap_or_else(|e| panic!("{e}"));
        assert!(found.stopped);
    }
}

#[cfg(test)]
mod value_tests {
    use super::SearchMethod;
    use clap::ValueEnum;

    #[test]
    fn every_method_is_named_on_the_command_line_as_in_reports() {
        // `cpmap --search NAME` and the reports name a method the same way.
        for m in SearchMethod::ALL {
            assert_eq!(m.to_possible_value().unwrap().get_name(), m.name(), "{m:?}");
        }
        assert_eq!(SearchMethod::value_variants().len(), SearchMethod::ALL.len());
    }
}
