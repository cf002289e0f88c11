//! The two paths of the execution graph once its edges are resolved: the critical path
//! by elapsed time ([`GraphBuilder::critical`]), and the weighted critical path
//! ([`GraphBuilder::weighted`]) with the busy areas its weights need
//! ([`GraphBuilder::node_areas`]); then the weighing of a path's edges into segments
//! ([`PathEdges::weigh`]). See the parent module for the graph and the weights.
use super::{wcpa_weight, BusyProfile, CriticalPath, EdgeKind, GraphBuilder, Node, Segment};
use crate::perf::busy::busy_fraction;
use crate::trace::Ticks;
use std::cmp::Reverse;
use std::collections::BTreeMap;

impl GraphBuilder {
    /// The critical path of a graph whose edges [`resolve`](Self::resolve) resolved: the
    /// second part of [`path`](Self::path).
    pub fn critical(&self) -> PathEdges {
        let n = self.nodes.len();
        // Path start time of the longest path into each node (longest = earliest start),
        // computed in a topological order.
        let mut start: Vec<Ticks> = self.nodes.iter().map(|x| x.time).collect();
        // The last edge of the longest path into each node: 1 vertical, 2 the other edge,
        // 0 none (one byte a node, where the edge itself would take eight).
        let mut choice: Vec<u8> = vec![0; n];
        let mut done = vec![false; n];
        for i in self.topological() {
            // Preference at equal start: the message or spawn edge, when one was kept.
            if let Some(v) = self.vertical[i].get() {
                if done[v] && start[v] <= start[i] {
                    start[i] = start[v];
                    choice[i] = 1;
                }
            }
            if let Some((o, _)) = self.other[i] {
                let o = o as usize;
                if done[o] && start[o] <= start[i] {
                    start[i] = start[o];
                    choice[i] = 2;
                }
            }
            done[i] = true;
        }
        let Some(end) = (0..n).filter(|&i| done[i]).max_by_key(|&i| (self.nodes[i].time, Reverse(i))) else {
            return PathEdges::default();
        };
        let mut edges: Vec<(Node, Node, EdgeKind, Ticks)> = Vec::new();
        let mut cur = end;
        loop {
            let (p, k) = match (choice[cur], self.other[cur]) {
                (1, _) => (self.vertical[cur].0 as usize, self.vertical_kind(cur)),
                (2, Some((o, k))) => (o as usize, k),
                _ => break,
            };
            edges.push((self.nodes[p], self.nodes[cur], k, self.edge_cpu(p, cur, k)));
            cur = p;
        }
        edges.reverse();
        PathEdges { length: self.nodes[end].time - start[end], edges, found: true }
    }

    /// What [`weighted`](Self::weighted) needs of each node beside its time and CPU time,
    /// in node order: the busy area ([`BusyProfile::areas_at`]) before it, in one sweep
    /// (the nodes come in record order, hence nearly in time order).
    /// Apart from `weighted` so that it may be computed beside other work.
    /// Call after [`resolve`](Self::resolve). The nodes and the messages the receiver
    /// did not wait for are swept side by side, each in two halves ([`swept_halves`]).
    /// The areas are kept in 64 bits when the run's whole busy area fits (any run short
    /// of 2^64 processor-ticks), in 128 otherwise.
    pub fn node_areas(&self, profile: &BusyProfile) -> NodeAreas {
        let (at, weak) = rayon::join(
            || {
                let time = |i: usize| self.nodes[i].time;
                let n = self.nodes.len();
                if u64::try_from(profile.busy_area(0, Ticks::MAX)).is_ok() {
                    NodeRecords::Narrow(swept_halves(n, profile, time, |_, a| At::new(a)))
                } else {
                    NodeRecords::Wide(swept_halves(n, profile, time, |_, a| At::new(a)))
                }
            },
            || {
                // A message the receiver did not wait for weighs its transfer, from its
                // send to its arrival (clamped between its two nodes): the busy area up
                // to each arrival. Arrivals are in receiver order, not time order: swept
                // sorted.
                let mut order: Vec<(Ticks, u32)> = self.weak.iter().map(|w| self.transfer_end(w)).zip(0u32..).collect();
                order.sort_unstable();
                let areas = swept_halves(order.len(), profile, |k| order[k].0, |_, a| a);
                let mut weak = vec![0; order.len()];
                for (&(_, k), a) in order.iter().zip(areas) {
                    weak[k as usize] = a;
                }
                weak
            },
        );
        NodeAreas { at, weak }
    }

    /// The weighted critical path (seed 003 §3.4): the longest path by WCPA weight in the
    /// execution graph, `processors` = n, busy as `profile` says. Call after
    /// [`path`](Self::path), which resolves the message and join edges. An edge weighs
    /// w = Δt + (1 − P)(n − 1)Δt with P the busy fraction of the n processors during the
    /// edge; Δt is the process's CPU time for a vertical edge of computation (seed 003's
    /// relabelling, Fig. 3.2 B: time spent waiting for its processor is not its
    /// computation) and the elapsed time for every other edge: spawns, joins,
    /// suspensions, and messages from send to the receive's completion. The messages the
    /// receiver did not wait for are edges of the graph too ("there is always an edge
    /// from a msg_send event to a corresponding msg_arr event"), weighed by their
    /// transfer, from send to arrival: the time such a message then waited in the
    /// receiver's queue is no activity (weighed as elapsed time it would make a message
    /// sent early to a process created late the heaviest activity of a run). One pass in
    /// topological order, each edge weighed in constant time but those messages (two
    /// binary searches).
    pub fn weighted(&self, processors: u32, profile: &BusyProfile, areas: NodeAreas) -> CriticalPath {
        match areas.at {
            NodeRecords::Narrow(at) => self.weighted_with(processors, profile, at, &areas.weak),
            NodeRecords::Wide(at) => self.weighted_with(processors, profile, at, &areas.weak),
        }
    }

    /// [`Self::weighted`] with the nodes' records `at` ([`Self::node_areas`]: the busy
    /// area up to each node, beside which the pass keeps the heaviest path's weight into
    /// it) and the weak messages' areas.
    fn weighted_with<A: AreaWord>(
        &self,
        processors: u32,
        profile: &BusyProfile,
        mut at: Vec<At<A>>,
        weak_area: &[u128],
    ) -> CriticalPath {
        let processors = processors.max(1);
        let n = self.nodes.len();
        let elapsed_cpu = !self.uses_cpu();
        // What an edge's weight needs of its ends: the time, the CPU time of the node's
        // process and the busy area before it.
        let point = |at: &[At<A>], i: usize| Point { time: self.nodes[i].time, cpu: self.cpu[i], area: at[i].area() };
        let w = |p: Point, i: Point, kind: EdgeKind| -> f64 {
            let (a, b) = (p.time, i.time);
            if b <= a {
                return 0.0;
            }
            let dt = if kind == EdgeKind::Compute && !elapsed_cpu { i.cpu.saturating_sub(p.cpu) } else { b - a };
            let par = busy_fraction(i.area.saturating_sub(p.area), processors, b - a);
            wcpa_weight(dt as f64, par, processors)
        };
        // The last edge of the heaviest path into each node: 1 vertical, 2 the other
        // edge, 3 a weak message edge (whose send is in `weak_best`), 0 none.
        let mut choice: Vec<u8> = vec![0; n];
        let mut weak_best: Vec<(u32, u32, Ticks)> = Vec::new();
        let mut done = vec![false; n];
        let mut wk: usize = 0;
        for i in self.topological() {
            let me = point(&at, i);
            let mut best: Option<f64> = None;
            if let Some(v) = self.vertical[i].get().filter(|&v| done[v]) {
                best = Some(at[v].total + w(point(&at, v), me, self.vertical_kind(i)));
                choice[i] = 1;
            }
            if let Some((o, k)) = self.other[i].filter(|&(o, _)| done[o as usize]) {
                let o = o as usize;
                let x = at[o].total + w(point(&at, o), me, k);
                if best.is_none_or(|b| x > b) {
                    best = Some(x);
                    choice[i] = 2;
                }
            }
            // The weak edges into i: a cursor that walks while the order is the node
            // order, a binary search otherwise.
            if wk.checked_sub(1).is_some_and(|k| self.weak[k].0 as usize >= i) {
                wk = self.weak.partition_point(|x| (x.0 as usize) < i);
            }
            while wk < self.weak.len() && (self.weak[wk].0 as usize) < i {
                wk += 1;
            }
            let mut weak = None;
            for (k, x) in self.weak.iter().enumerate().skip(wk).take_while(|(_, x)| x.0 as usize == i) {
                let s = x.1 as usize;
                if done[s] {
                    // The message's transfer, from its send to its arrival: the time it
                    // then waited in the receiver's queue is no activity.
                    let until = self.transfer_end(x);
                    let arrival = Point { time: until, cpu: 0, area: weak_area[k] };
                    let x = at[s].total + w(point(&at, s), arrival, EdgeKind::Message);
                    if best.is_none_or(|b| x > b) {
                        best = Some(x);
                        choice[i] = 3;
                        weak = Some((s as u32, until));
                    }
                }
            }
            if let Some((s, until)) = weak.filter(|_| choice[i] == 3) {
                weak_best.push((i as u32, s, until));
            }
            at[i].total = best.unwrap_or(0.0);
            done[i] = true;
        }
        weak_best.sort_unstable();
        // The heaviest node; ties: the latest, then the first recorded.
        let Some(end) = (0..n).filter(|&i| done[i]).max_by(|&x, &y| {
            at[x].total.total_cmp(&at[y].total).then(self.nodes[x].time.cmp(&self.nodes[y].time)).then(y.cmp(&x))
        }) else {
            return PathEdges::default().weigh(processors, profile);
        };
        drop(at);
        let mut edges: Vec<(Node, Node, EdgeKind, Ticks)> = Vec::new();
        let mut cur = end;
        loop {
            let node = self.nodes[cur];
            let (p, kind, until) = match choice[cur] {
                1 => (self.vertical[cur].0 as usize, self.vertical_kind(cur), node.time),
                2 => match self.other[cur] {
                    Some((o, k)) => (o as usize, k, node.time),
                    None => break,
                },
                // A weak message's segment ends at its arrival.
                3 => match weak_best.get(weak_best.partition_point(|x| x.0 < cur as u32)) {
                    Some(&(_, s, until)) => (s as usize, EdgeKind::Message, until),
                    None => break,
                },
                _ => break,
            };
            edges.push((self.nodes[p], Node { time: until, ..node }, kind, self.edge_cpu(p, cur, kind)));
            cur = p;
        }
        edges.reverse();
        let length = self.nodes[end].time - self.nodes[cur].time;
        PathEdges { length, edges, found: true }.weigh(processors, profile)
    }
}

/// `f(i, area)` for every `i` in `0..n`, in order, `area` the busy area before `time(i)`
/// ([`BusyProfile::area_to`]), swept ([`BusyProfile::area_sweep`]) in two halves side by
/// side when a second thread is free: the second sweep starts with a search for its first
/// time, and each answers exactly what one sweep would.
fn swept_halves<R: Send>(
    n: usize,
    profile: &BusyProfile,
    time: impl Fn(usize) -> Ticks + Sync + Send,
    f: impl Fn(usize, u128) -> R + Sync + Send,
) -> Vec<R> {
    use rayon::prelude::*;
    let mut out = Vec::new();
    (0..n)
        .into_par_iter()
        .with_min_len((n / 2).max(1))
        .map_init(|| profile.area_sweep(), |area, i| f(i, area(time(i))))
        .collect_into_vec(&mut out);
    out
}

/// What the weighted critical path needs of every node and of every message the
/// receiver did not wait for: [`GraphBuilder::node_areas`].
#[derive(Debug, Default)]
pub struct NodeAreas {
    at: NodeRecords,
    /// Per weak message edge (in [`GraphBuilder::weak`]'s order): the busy area before
    /// the end of its transfer ([`GraphBuilder::transfer_end`]).
    weak: Vec<u128>,
}

/// The nodes' records of [`NodeAreas`], their areas in 64 bits when the run's whole busy
/// area fits (16 bytes a node), in 128 otherwise (24 bytes).
#[derive(Debug)]
enum NodeRecords {
    Narrow(Vec<At<u64>>),
    Wide(Vec<At<[u64; 2]>>),
}

impl Default for NodeRecords {
    fn default() -> Self {
        NodeRecords::Narrow(Vec::new())
    }
}

/// A busy area as a node's record keeps it: `u64` when every area of the run fits,
/// else the low and high 64 bits (8-byte aligned, where a `u128` would pad the record).
trait AreaWord: Copy + Send + Sync {
    /// `a`, which fits.
    fn pack(a: u128) -> Self;
    fn unpack(self) -> u128;
}

impl AreaWord for u64 {
    fn pack(a: u128) -> Self {
        a as u64
    }
    fn unpack(self) -> u128 {
        u128::from(self)
    }
}

impl AreaWord for [u64; 2] {
    fn pack(a: u128) -> Self {
        [a as u64, (a >> 64) as u64]
    }
    fn unpack(self) -> u128 {
        u128::from(self[0]) | (u128::from(self[1]) << 64)
    }
}

/// What the weighted critical path keeps of a node beside its time and CPU time, in one
/// record (the node's time and CPU time are read from the graph's arrays, which saves
/// copying them: 16 bytes a node, 50 MB and their page faults at 3 million nodes).
#[derive(Debug, Clone, Copy)]
struct At<A> {
    /// The busy area before it ([`BusyProfile::area_to`]).
    area: A,
    /// The weight of the heaviest path into it.
    total: f64,
}

impl<A: AreaWord> At<A> {
    fn new(area: u128) -> Self {
        At { area: A::pack(area), total: 0.0 }
    }

    fn area(&self) -> u128 {
        self.area.unpack()
    }
}

/// One end of an edge as [`GraphBuilder::weighted`] weighs it.
#[derive(Debug, Clone, Copy)]
struct Point {
    time: Ticks,
    /// The CPU time of the node's process before it (0 for a message's arrival).
    cpu: Ticks,
    /// The busy area before it.
    area: u128,
}

/// The WCPA weight of one edge of the execution graph from `a` to `b` whose computation
/// took `cpu` ticks (see [`GraphBuilder::weighted`]).
fn edge_weight(kind: EdgeKind, cpu: Ticks, a: Ticks, b: Ticks, n: u32, profile: &BusyProfile) -> f64 {
    if b <= a {
        return 0.0;
    }
    let dt = if kind == EdgeKind::Compute { cpu } else { b - a };
    wcpa_weight(dt as f64, profile.parallelism(a, b, n), n)
}

/// The critical path's edges in time order, before weighing: what
/// [`GraphBuilder::path`] finds.
#[derive(Debug, Clone, Default)]
pub struct PathEdges {
    /// Length in ticks.
    pub(super) length: Ticks,
    /// `(from, to, kind, CPU time)` for every edge, zero-length ones included; the CPU
    /// time is that of a compute edge's process between its two nodes, 0 for other kinds.
    pub(super) edges: Vec<(Node, Node, EdgeKind, Ticks)>,
    /// Whether the graph had a node to end at.
    found: bool,
}

impl PathEdges {
    /// The path with the WCPA weights of `processors` busy as `profile` says, compute
    /// edges weighed by their process's CPU time, as [`GraphBuilder::weighted`] weighs
    /// every edge.
    pub fn weigh(&self, processors: u32, profile: &BusyProfile) -> CriticalPath {
        let processors = processors.max(1);
        if !self.found {
            return CriticalPath { length: 0, edges: 0, segments: Vec::new(), total_weight: 0.0, processors };
        }
        let mut segments: Vec<Segment> = Vec::new();
        for &(na, nb, kind, busy) in &self.edges {
            if nb.time <= na.time {
                continue;
            }
            let w = edge_weight(kind, busy, na.time, nb.time, processors, profile);
            let to_pid = (!(kind == EdgeKind::Compute || kind.is_wait())).then_some(nb.pid);
            if let Some(last) = segments.last_mut() {
                if kind == last.kind
                    && (kind == EdgeKind::Compute || kind.is_wait())
                    && last.pid == na.pid
                    && last.to == na.time
                {
                    last.weight += w;
                    last.busy += busy;
                    last.to = nb.time;
                    last.parallelism = profile.parallelism(last.from, last.to, processors);
                    continue;
                }
            }
            segments.push(Segment {
                kind,
                pid: na.pid,
                to_pid,
                from: na.time,
                to: nb.time,
                parallelism: profile.parallelism(na.time, nb.time, processors),
                weight: w,
                busy,
            });
        }
        let total_weight = segments.iter().map(|s| s.weight).sum();
        CriticalPath { length: self.length, edges: self.edges.len(), segments, total_weight, processors }
    }
}

/// The WCPA weight of the critical path grouped by process and edge kind: `(kind, pid,
/// weight)`, heaviest first, ties by kind then pid.
pub fn group_weights(path: &CriticalPath) -> Vec<(EdgeKind, u32, f64)> {
    let mut g: BTreeMap<(EdgeKind, u32), f64> = BTreeMap::new();
    for s in &path.segments {
        *g.entry((s.kind, s.pid)).or_insert(0.0) += s.weight;
    }
    let mut v: Vec<(EdgeKind, u32, f64)> = g.into_iter().map(|((k, p), w)| (k, p, w)).collect();
    v.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1)));
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Event;

    /// The graph of the three-process run of the analysis's tests (main forks two
    /// workers and receives from each), resolved, and the profile of its busy intervals.
    fn three_processes() -> (GraphBuilder, BusyProfile) {
        let (_, events, _) = crate::perf::tests::three_processes();
        let mut g = GraphBuilder::default();
        for e in &events {
            g.event(e);
        }
        g.resolve();
        let busy = events.iter().filter_map(|e| match *e {
            Event::Busy { start, end, .. } => Some((start, end)),
            _ => None,
        });
        (g, BusyProfile::from_intervals(busy))
    }

    /// The nodes' records keep their areas in 64 bits when the run's whole busy area fits
    /// (600 processor-ticks here), and the weighted pass over them answers exactly what it
    /// answers over the same areas kept in 128 bits. A run whose busy area passes 2^64
    /// (two processors busy for 2^64 - 1 ticks) keeps them in 128, exactly.
    #[test]
    fn areas_in_64_or_128_bits_weigh_the_same() {
        let (g, profile) = three_processes();
        let NodeAreas { at, weak } = g.node_areas(&profile);
        let NodeRecords::Narrow(narrow) = at else { panic!("600 processor-ticks are kept in 64 bits") };
        let areas: Vec<u128> = narrow.iter().map(At::area).collect();
        let want: Vec<u128> = g.nodes.iter().map(|x| profile.busy_area(0, x.time)).collect();
        assert_eq!(areas, want);
        let wide: Vec<At<[u64; 2]>> = areas.iter().map(|&a| At::new(a)).collect();
        let (x, y) = (g.weighted_with(3, &profile, narrow, &weak), g.weighted_with(3, &profile, wide, &weak));
        assert_eq!(x, y);
        // It runs from main's start (0) to main's end (500).
        assert_eq!(x.length, 500);

        let huge = BusyProfile::new(&[(0, u64::MAX), (0, u64::MAX)]);
        let NodeRecords::Wide(wide) = g.node_areas(&huge).at else { panic!("2^65 - 2 needs 128 bits") };
        let areas: Vec<u128> = wide.iter().map(At::area).collect();
        assert_eq!(areas, g.nodes.iter().map(|x| 2 * u128::from(x.time)).collect::<Vec<_>>());
    }

    #[test]
    fn swept_halves_answer_as_the_direct_queries() {
        // The reference is the direct query (the busy area from 0, two binary searches)
        // at each time; the times nearly in order with steps back and a few far jumps, so
        // that the second half's sweep starts far from the first's, and each index is
        // passed to `f` with its own time's answer, in order.
        let iv: Vec<(Ticks, Ticks)> = (0..4000u64).map(|k| (k * 7 % 9001, k * 7 % 9001 + k % 13)).collect();
        let p = BusyProfile::new(&iv);
        let times: Vec<Ticks> = (0..1001u64).map(|i| if i % 97 == 0 { 9000 - i } else { i * 9 - i % 5 }).collect();
        for n in [0, 1, 2, times.len()] {
            let got = swept_halves(n, &p, |i| times[i], |i, a| (i, a));
            let want: Vec<(usize, u128)> = (0..n).map(|i| (i, p.busy_area(0, times[i]))).collect();
            assert_eq!(got, want, "n = {n}");
        }
    }
}
