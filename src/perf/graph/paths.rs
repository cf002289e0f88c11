//! The two paths of the execution graph once its edges are resolved: the critical path
//! by elapsed time ([`GraphBuilder::critical`]), and the weighted critical path
//! ([`GraphBuilder::weighted`]), which sweeps the busy areas its weights need beside its
//! pass, and the order of the arrivals it sweeps ([`GraphBuilder::weak_order`]); then the
//! weighing of a path's edges into segments
//! ([`PathEdges::weigh`]). See the parent module for the graph and the weights.
use super::{wcpa_weight, BusyProfile, CriticalPath, EdgeKind, GraphBuilder, Node, Segment};
use crate::perf::busy::edge_busy_fraction;
use crate::time::Ticks;
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
        // The last edge of the longest path into each node visited ([`Last`]; one byte a
        // node, where the edge itself would take eight), 0 for a node not visited yet.
        let mut choice: Vec<u8> = vec![0; n];
        // The path's end: the latest node visited (ties: the first recorded).
        let mut end: Option<usize> = None;
        for i in self.topological() {
            let mut last = Last::NONE;
            // Preference at equal start: the message or spawn edge, when one was kept.
            if let Some(v) = self.vertical[i].get() {
                if choice[v] != 0 && start[v] <= start[i] {
                    start[i] = start[v];
                    last = Last::VERTICAL;
                }
            }
            if let Some((o, _)) = self.other(i) {
                let o = o as usize;
                if choice[o] != 0 && start[o] <= start[i] {
                    start[i] = start[o];
                    last = Last::OTHER;
                }
            }
            choice[i] = last;
            if end.is_none_or(|e| (self.nodes[i].time, Reverse(i)) > (self.nodes[e].time, Reverse(e))) {
                end = Some(i);
            }
        }
        let Some(end) = end else {
            return PathEdges::default();
        };
        let mut edges: Vec<(Node, Node, EdgeKind, Ticks)> = Vec::new();
        let mut cur = end;
        loop {
            let (p, k) = match (choice[cur], self.other(cur)) {
                (Last::VERTICAL, _) => (self.vertical[cur].0 as usize, self.vertical_kind(cur)),
                (Last::OTHER, Some((o, k))) => (o as usize, k),
                _ => break,
            };
            edges.push((self.nodes[p], self.nodes[cur], k, self.edge_cpu(p, cur, k)));
            cur = p;
        }
        edges.reverse();
        PathEdges { length: self.nodes[end].time - start[end], edges, found: true }
    }

    /// The messages the receiver did not wait for, in the order of the ends of their
    /// transfers (`Self::transfer_end`): what [`weighted`](Self::weighted) needs of
    /// them beside the graph, apart so that it may be computed beside other work. Call
    /// after [`resolve`](Self::resolve).
    pub fn weak_order(&self) -> WeakOrder {
        use rayon::prelude::*;
        // The steps over every weak message are parallel iterators: this runs beside
        // other work, and a thread that finishes that joins in.
        let ends: Vec<Ticks> = self.weak.par_iter().map(|w| self.transfer_end(w)).collect();
        let mut rank = vec![0u32; ends.len()];
        // Sorted by (end, index): as one 64-bit key each (end above the index's bits)
        // when every end leaves room for the index, which sorts in half the memory; as
        // pairs otherwise.
        let shift = u64::BITS - (ends.len() as u64).leading_zeros();
        let times = if shift < u64::BITS && ends.par_iter().all(|&t| t >> (u64::BITS - shift) == 0) {
            let mut keys: Vec<u64> = ends.par_iter().enumerate().map(|(k, &t)| t << shift | k as u64).collect();
            // The weak edges are listed by receiver, so their ends come nearly in order.
            super::sort_ticks(&mut keys);
            let low = (1u64 << shift) - 1;
            for (r, &key) in (0u32..).zip(&keys) {
                rank[(key & low) as usize] = r;
            }
            keys.par_iter().map(|key| key >> shift).collect()
        } else {
            let mut order: Vec<(Ticks, u32)> = ends.into_iter().zip(0u32..).collect();
            order.sort_unstable();
            for (r, &(_, k)) in (0u32..).zip(&order) {
                rank[k as usize] = r;
            }
            order.into_iter().map(|(t, _)| t).collect()
        };
        WeakOrder { times, rank }
    }

    /// The weighted critical path (seed 003 §3.4): the longest path by WCPA weight in the
    /// execution graph, `processors` = n, busy as `profile` says, the messages the
    /// receiver did not wait for in `weak`'s order ([`Self::weak_order`]). Call after
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
    /// sent early to a process created late the heaviest activity of a run).
    ///
    /// One pass in topological order, each edge weighed in constant time from the busy
    /// area before each of its ends ([`BusyProfile::area_sweep`], the nodes' and the
    /// arrivals' times swept together: `sweep_areas`). The areas are kept in 64 bits
    /// when the run's whole busy area fits (any run short of 2^64 processor-ticks), in
    /// 128 otherwise. When the topological order is the node order (any record cpss
    /// writes), the areas of the next 2^`PIPELINE_BITS` nodes are swept while the pass
    /// weighs the edges into the current ones, side by side when a second thread is
    /// free (the pass needs only the areas of nodes before the ones it weighs, and of
    /// the arrivals before them); the same weights either way.
    pub fn weighted(&self, processors: u32, profile: &BusyProfile, weak: &WeakOrder) -> CriticalPath {
        if u64::try_from(profile.busy_area(0, Ticks::MAX)).is_ok() {
            self.weighted_with::<u64>(processors, profile, weak, PIPELINE_BITS)
        } else {
            self.weighted_with::<[u64; 2]>(processors, profile, weak, PIPELINE_BITS)
        }
    }

    /// [`Self::weighted`] with the nodes' areas kept as `A`, swept in stretches of
    /// 2^`bits` nodes.
    fn weighted_with<A: AreaWord>(
        &self,
        processors: u32,
        profile: &BusyProfile,
        weak: &WeakOrder,
        bits: u32,
    ) -> CriticalPath {
        let n = self.nodes.len();
        let len = 1usize << bits;
        let mut pass = Pass::new(self, processors, bits);
        // The busy area before each node, in stretches of `len`, and before each weak
        // message's arrival, in `weak`'s order, each filled in node order as far as
        // swept.
        let mut areas: Vec<Vec<A>> = Vec::with_capacity(n.div_ceil(len));
        let mut arrivals: Vec<u128> = Vec::with_capacity(weak.times.len());
        let mut area = profile.area_sweep();
        let mut next_weak = 0;
        let time = |i: usize| self.nodes[i].time;
        let stretch = |j: usize| j * len..((j + 1) * len).min(n);
        let stretches = n.div_ceil(len);
        let mut sweep = |j: usize, arrived: &mut Vec<u128>| {
            let mut at = Vec::with_capacity(len.min(n));
            sweep_areas(&mut area, time, stretch(j), n, &weak.times, &mut next_weak, &mut at, arrived);
            at
        };
        match self.topological_order() {
            None => {
                let mut arrived = Vec::new();
                if stretches > 0 {
                    areas.push(sweep(0, &mut arrived));
                }
                for j in 0..stretches {
                    let mut next_arrived = Vec::new();
                    let (next, ()) = rayon::join(
                        || (j + 1 < stretches).then(|| sweep(j + 1, &mut next_arrived)),
                        || {
                            arrivals.extend_from_slice(&arrived);
                            for i in stretch(j) {
                                pass.visit(i, &areas, &arrivals, &weak.rank);
                            }
                        },
                    );
                    areas.extend(next);
                    arrived = next_arrived;
                }
            }
            Some(order) => {
                for j in 0..stretches {
                    areas.push(sweep(j, &mut arrivals));
                }
                for i in order {
                    pass.visit(i, &areas, &arrivals, &weak.rank);
                }
            }
        }
        drop(areas);
        pass.finish(profile)
    }
}

/// 2^this nodes are the stretch whose areas [`GraphBuilder::weighted`] sweeps while it
/// weighs the edges into the nodes before them: enough that the hand-over between the two
/// costs nothing (3 million nodes are 48 hand-overs), few enough that a stretch's areas
/// stay in cache (512 kB).
const PIPELINE_BITS: u32 = 16;

/// The weak messages of a graph sorted by the ends of their transfers:
/// [`GraphBuilder::weak_order`].
#[derive(Debug, Default, Clone)]
pub struct WeakOrder {
    /// The ends of the transfers, increasing.
    times: Vec<Ticks>,
    /// Per weak message (in [`GraphBuilder::weak`]'s order): its place in `times`.
    rank: Vec<u32>,
}

/// Appends to `at` the busy area before each node of `nodes` (`area(time(i))`),
/// and to `arrivals` the area of each of `weak`'s times from `*next` on that is due before
/// them: every one not after a node's time before that node (so a weak message's arrival,
/// never after its receiver's node, is swept by the time its receiver is), and the rest
/// after the last of the graph's `n` nodes. One sweep through the profile answers both,
/// each time exactly as the direct query would, in whatever order.
#[allow(clippy::too_many_arguments)]
fn sweep_areas<A: AreaWord>(
    area: &mut impl FnMut(Ticks) -> u128,
    time: impl Fn(usize) -> Ticks,
    nodes: std::ops::Range<usize>,
    n: usize,
    weak: &[Ticks],
    next: &mut usize,
    at: &mut Vec<A>,
    arrivals: &mut Vec<u128>,
) {
    let end = nodes.end;
    for i in nodes {
        let t = time(i);
        while let Some(&w) = weak.get(*next).filter(|&&w| w <= t) {
            arrivals.push(area(w));
            *next += 1;
        }
        at.push(A::pack(area(t)));
    }
    if end == n {
        for &w in &weak[*next..] {
            arrivals.push(area(w));
        }
        *next = weak.len();
    }
}

/// The last edge of the longest or heaviest path into a visited node, as
/// [`GraphBuilder::critical`] and [`Pass`] keep it (0, the zeroed array's value, is a
/// node not visited yet).
struct Last;

impl Last {
    /// None: the node begins its path.
    const NONE: u8 = 1;
    /// Its vertical edge.
    const VERTICAL: u8 = 2;
    /// Its other edge.
    const OTHER: u8 = 3;
    /// A weak message edge, whose send is in `weak_best` (the weighted path only).
    const WEAK: u8 = 4;
}

/// The weighted pass of [`GraphBuilder::weighted`] between nodes.
struct Pass<'g> {
    g: &'g GraphBuilder,
    processors: u32,
    /// Whether compute edges weigh their elapsed time (no CPU times).
    elapsed_cpu: bool,
    /// The last edge of the heaviest path into each node visited ([`Last`]); 0 for a
    /// node not visited yet.
    choice: Vec<u8>,
    /// `(receiver, send, arrival)` of the weak message edges chosen.
    weak_best: Vec<(u32, u32, Ticks)>,
    /// The weight of the heaviest path into each node visited.
    total: Vec<f64>,
    /// The heaviest node visited so far (ties: the latest, then the first recorded).
    heaviest: Option<usize>,
    /// A cursor in the graph's weak edges (sorted by receiver).
    wk: usize,
    /// The nodes' areas come in stretches of 2^`bits`.
    bits: u32,
}

impl<'g> Pass<'g> {
    fn new(g: &'g GraphBuilder, processors: u32, bits: u32) -> Self {
        let n = g.nodes.len();
        Pass {
            g,
            processors: processors.max(1),
            elapsed_cpu: !g.uses_cpu(),
            choice: vec![0; n],
            weak_best: Vec::new(),
            total: vec![0.0; n],
            heaviest: None,
            wk: 0,
            bits,
        }
    }

    /// What an edge's weight needs of node `i`: its time, the CPU time of its process
    /// and the busy area before it.
    #[inline]
    fn point<A: AreaWord>(&self, areas: &[Vec<A>], i: usize) -> Point {
        let area = areas[i >> self.bits][i & ((1 << self.bits) - 1)].unpack();
        Point { time: self.g.nodes[i].time, cpu: self.g.cpu[i], area }
    }

    /// The weight of an edge of `kind` from `p` to `i`.
    #[inline]
    fn weight(&self, p: Point, i: Point, kind: EdgeKind) -> f64 {
        let (a, b) = (p.time, i.time);
        if b <= a {
            return 0.0;
        }
        let cpu = if self.elapsed_cpu { b - a } else { i.cpu.saturating_sub(p.cpu) };
        let (dt, own) = if kind == EdgeKind::Compute { (cpu, Some(cpu as f64)) } else { (b - a, None) };
        let par = edge_busy_fraction(i.area.saturating_sub(p.area), own, self.processors, b - a);
        wcpa_weight(dt as f64, par, self.processors)
    }

    /// Weighs the edges into node `i`, whose predecessors were visited: `areas` holds
    /// the busy areas before the nodes up to `i` at least (in stretches of 2^`bits`),
    /// `arrivals` those before the weak messages' arrivals in their
    /// sorted order up to those into `i` at least, `rank` each weak message's place in
    /// that order.
    #[inline]
    fn visit<A: AreaWord>(&mut self, i: usize, areas: &[Vec<A>], arrivals: &[u128], rank: &[u32]) {
        let g = self.g;
        let me = self.point(areas, i);
        let mut best: Option<f64> = None;
        let mut last = Last::NONE;
        if let Some(v) = g.vertical[i].get().filter(|&v| self.done(v)) {
            best = Some(self.total[v] + self.weight(self.point(areas, v), me, g.vertical_kind(i)));
            last = Last::VERTICAL;
        }
        if let Some((o, k)) = g.other(i).filter(|&(o, _)| self.done(o as usize)) {
            let o = o as usize;
            let x = self.total[o] + self.weight(self.point(areas, o), me, k);
            if best.is_none_or(|b| x > b) {
                best = Some(x);
                last = Last::OTHER;
            }
        }
        // The weak edges into i: a cursor that walks while the order is the node order,
        // a binary search otherwise.
        if self.wk.checked_sub(1).is_some_and(|k| g.weak[k].0 as usize >= i) {
            self.wk = g.weak.partition_point(|x| (x.0 as usize) < i);
        }
        while self.wk < g.weak.len() && (g.weak[self.wk].0 as usize) < i {
            self.wk += 1;
        }
        let mut weak = None;
        for (k, x) in g.weak.iter().enumerate().skip(self.wk).take_while(|(_, x)| x.0 as usize == i) {
            let s = x.1 as usize;
            if self.done(s) {
                // The message's transfer, from its send to its arrival: the time it
                // then waited in the receiver's queue is no activity.
                let until = g.transfer_end(x);
                let arrival = Point { time: until, cpu: 0, area: arrivals[rank[k] as usize] };
                let x = self.total[s] + self.weight(self.point(areas, s), arrival, EdgeKind::Message);
                if best.is_none_or(|b| x > b) {
                    best = Some(x);
                    last = Last::WEAK;
                    weak = Some((s as u32, until));
                }
            }
        }
        if let Some((s, until)) = weak.filter(|_| last == Last::WEAK) {
            self.weak_best.push((i as u32, s, until));
        }
        self.total[i] = best.unwrap_or(0.0);
        self.choice[i] = last;
        if self.heaviest.is_none_or(|h| self.heavier(i, h)) {
            self.heaviest = Some(i);
        }
    }

    /// Whether node `i` was visited.
    #[inline]
    fn done(&self, i: usize) -> bool {
        self.choice[i] != 0
    }

    /// Whether visited node `x` ends a heavier path than `y`: a larger total; ties, the
    /// later node, then the first recorded.
    #[inline]
    fn heavier(&self, x: usize, y: usize) -> bool {
        let nodes = &self.g.nodes;
        let order = self.total[x].total_cmp(&self.total[y]).then(nodes[x].time.cmp(&nodes[y].time)).then(y.cmp(&x));
        order == std::cmp::Ordering::Greater
    }

    /// The heaviest path into any visited node, weighed.
    fn finish(mut self, profile: &BusyProfile) -> CriticalPath {
        let (g, processors) = (self.g, self.processors);
        self.weak_best.sort_unstable();
        // The heaviest node, as the visits kept it (ties: the latest, then the first
        // recorded).
        let Some(end) = self.heaviest else {
            return PathEdges::default().weigh(processors, profile);
        };
        let mut edges: Vec<(Node, Node, EdgeKind, Ticks)> = Vec::new();
        let mut cur = end;
        loop {
            let node = g.nodes[cur];
            let (p, kind, until) = match self.choice[cur] {
                Last::VERTICAL => (g.vertical[cur].0 as usize, g.vertical_kind(cur), node.time),
                Last::OTHER => match g.other(cur) {
                    Some((o, k)) => (o as usize, k, node.time),
                    None => break,
                },
                // A weak message's segment ends at its arrival.
                Last::WEAK => match self.weak_best.get(self.weak_best.partition_point(|x| x.0 < cur as u32)) {
                    Some(&(_, s, until)) => (s as usize, EdgeKind::Message, until),
                    None => break,
                },
                _ => break,
            };
            edges.push((g.nodes[p], Node { time: until, ..node }, kind, g.edge_cpu(p, cur, kind)));
            cur = p;
        }
        edges.reverse();
        let length = g.nodes[end].time - g.nodes[cur].time;
        PathEdges { length, edges, found: true }.weigh(processors, profile)
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
    wcpa_weight(dt as f64, profile.edge_parallelism(a, b, n, own_time(kind, cpu)), n)
}

/// The busy time an edge of `kind` occupies its processor with, for its P: a
/// computation's CPU time `cpu`; none for the other kinds.
pub(crate) fn own_time(kind: EdgeKind, cpu: Ticks) -> Option<f64> {
    (kind == EdgeKind::Compute).then_some(cpu as f64)
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
                    last.parallelism =
                        profile.edge_parallelism(last.from, last.to, processors, own_time(kind, last.busy));
                    continue;
                }
            }
            segments.push(Segment {
                kind,
                pid: na.pid,
                to_pid,
                from: na.time,
                to: nb.time,
                parallelism: profile.edge_parallelism(na.time, nb.time, processors, own_time(kind, busy)),
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
        graph_of(&crate::perf::tests::three_processes().1)
    }

    /// The resolved graph of `events` and the profile of their busy intervals.
    fn graph_of(events: &[Event]) -> (GraphBuilder, BusyProfile) {
        let mut g = GraphBuilder::default();
        for e in events {
            g.event(e);
        }
        g.resolve();
        let busy = events.iter().filter_map(|e| match *e {
            Event::Busy { start, end, .. } => Some((start, end)),
            _ => None,
        });
        (g, BusyProfile::from_intervals(busy))
    }

    /// Main (pid 0, processor 0) computes 0..100, creates a worker, computes 225..260 and
    /// nothing else until 400; the worker computes 100..200 and sends, the message
    /// arrives at 250, before main asks for it at 400 (an edge of the graph the receiver
    /// did not wait for); main then computes 400..500.
    fn one_weak_message() -> (GraphBuilder, BusyProfile) {
        use crate::trace::BusyClass;
        let busy = |p: u32, start, end| Event::Busy { pproc: p, pid: p, start, end, line: 1, class: BusyClass::Work };
        let events = vec![
            Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 },
            busy(0, 0, 100),
            Event::ProcCreate { time: 100, parent: Some(0), pid: 1, vproc: Some(0), pproc: 1, function: 1, line: 2 },
            busy(1, 100, 200),
            crate::perf::tests::send(200, 1, 1, 0, 4),
            Event::ProcEnd { time: 200, pid: 1 },
            Event::MsgArrive { time: 250, msg: 1, dst_pproc: 0 },
            busy(0, 225, 260),
            Event::RecvCall { time: 400, pid: 0, pproc: 0, channel: 0, index: 0, line: 4 },
            Event::RecvDone { time: 400, pid: 0, pproc: 0, msg: 1, src_pid: 1, bytes: 4 },
            busy(0, 400, 500),
            Event::ProcEnd { time: 500, pid: 0 },
        ];
        graph_of(&events)
    }

    /// Two processes on processors of their own compute 0..10 and end at 10: their paths
    /// weigh the same (10 ticks with both processors busy, P = 1: 10) and end at the same
    /// time, so the heaviest and the longest are the one whose end was recorded first,
    /// whichever process that is.
    #[test]
    fn equal_paths_end_at_the_first_recorded() {
        use crate::trace::BusyClass;
        for first in [0u32, 1] {
            let create =
                |pid| Event::ProcCreate { time: 0, parent: None, pid, vproc: None, pproc: pid, function: 0, line: 0 };
            let busy = |p| Event::Busy { pproc: p, pid: p, start: 0, end: 10, line: 1, class: BusyClass::Work };
            let end = |pid| Event::ProcEnd { time: 10, pid };
            let events = [create(0), create(1), busy(0), busy(1), end(first), end(1 - first)];
            let (g, profile) = graph_of(&events);
            let path = g.weighted(2, &profile, &g.weak_order());
            assert_eq!(path.total_weight, 10.0);
            assert!(path.segments.iter().all(|s| s.pid == first), "{:?}", path.segments);
            assert_eq!(path.segments.len(), 1, "first {first}");
            // The critical path by elapsed time ends there too (the latest node; ties:
            // the first recorded): one compute edge of 10 ticks.
            let critical = g.critical();
            assert_eq!((critical.length, critical.edges.len()), (10, 1));
            assert!(critical.edges.iter().all(|(a, b, ..)| a.pid == first && b.pid == first), "first {first}");
        }
    }

    /// The weighted pass weighs the same path whether the nodes' areas are swept in one
    /// stretch before it (the reference: every area known before any edge is weighed) or
    /// in stretches of 1, 2, 4 or 8 nodes handed over while it weighs the ones before,
    /// and whether they are kept in 64 bits (these runs' whole busy area, 600 and 335
    /// processor-ticks, fits) or in 128: on a graph without and one with a message the
    /// receiver did not wait for, on the path.
    #[test]
    fn stretches_and_area_widths_weigh_the_same() {
        for (g, profile) in [three_processes(), one_weak_message()] {
            let weak = g.weak_order();
            let one = g.weighted_with::<u64>(2, &profile, &weak, 20);
            for bits in 0..4 {
                assert_eq!(g.weighted_with::<u64>(2, &profile, &weak, bits), one, "2^{bits} nodes a stretch");
                assert_eq!(g.weighted_with::<[u64; 2]>(2, &profile, &weak, bits), one, "2^{bits}, 128 bits");
            }
            // Both runs go from main's start (0) to main's end (500).
            assert_eq!(one.length, 500);
        }
        // By hand, w = Δt + (1 − P)(2 − 1)Δt, a computation's P the busy share of the
        // other processor: main 0..100 alone busy, P = 0, 200; the worker 100..200 alone
        // busy, 200; the message's transfer 200..250 while main was busy 225..250, P =
        // 25 / (2 x 50) = 0.25 (all n: a message occupies no processor), 87.5 (the busy
        // area before the arrival counts); main 400..500, 200: 687.5. Main's own way
        // weighs 200 + 58.33 (35 of CPU time from 100 to 400, the other processor busy
        // 135 − 35 = 100 of 300: P = 1/3, 35 + (2/3)·35) + 200 = 458.33.
        let (g, profile) = one_weak_message();
        assert_eq!(g.weak.len(), 1);
        let path = g.weighted(2, &profile, &g.weak_order());
        let got: Vec<(EdgeKind, u32, Ticks, Ticks, f64)> =
            path.segments.iter().map(|s| (s.kind, s.pid, s.from, s.to, s.weight)).collect();
        let want = vec![
            (EdgeKind::Compute, 0, 0, 100, 200.0),
            (EdgeKind::Compute, 1, 100, 200, 200.0),
            (EdgeKind::Message, 1, 200, 250, 87.5),
            (EdgeKind::Compute, 0, 400, 500, 200.0),
        ];
        assert_eq!((got, path.total_weight), (want, 687.5));
    }

    /// The weak messages sorted by the ends of their transfers, ties by their place, as
    /// one 64-bit key each or (when a time leaves no room for the index) as pairs: each
    /// message's rank is its place in the sorted times.
    #[test]
    fn weak_order_sorts_the_arrivals_and_ranks_each_message() {
        let (mut g, _) = three_processes();
        let n = g.nodes.len() as u32;
        assert!(n >= 4);
        // Receiver n - 1 from every earlier node, arrivals in no order, two equal.
        let arrivals = [300, 120, 450, 120, 0, 260];
        g.weak = (0..n - 1).zip(arrivals.iter().cycle()).map(|(s, &a)| (n - 1, s, a)).collect();
        for huge in [false, true] {
            if huge {
                // Times that leave no room for the index beside them in 64 bits.
                for x in &mut g.nodes {
                    x.time += 1 << 62;
                }
                for w in &mut g.weak {
                    w.2 += 1 << 62;
                }
            }
            let ends: Vec<Ticks> = g.weak.iter().map(|w| g.transfer_end(w)).collect();
            let order = g.weak_order();
            let mut want: Vec<(Ticks, usize)> = ends.iter().copied().zip(0..).collect();
            want.sort();
            assert_eq!(order.times, want.iter().map(|x| x.0).collect::<Vec<_>>(), "huge: {huge}");
            for (r, &(_, k)) in want.iter().enumerate() {
                assert_eq!(order.rank[k] as usize, r, "huge: {huge}");
            }
        }
    }

    #[test]
    fn sweep_areas_answers_as_the_direct_queries() {
        // The reference is the direct query (the busy area from 0, two binary searches)
        // at each time; the node times nearly in order with steps back and a few far
        // jumps; the sorted times spread over the whole run, before, among and after the
        // node times, some equal to one. Swept in stretches of 1 to 1001 nodes with one
        // cursor: each answer in its own list and place, and after each stretch every
        // sorted time not after one of its nodes' times answered.
        let iv: Vec<(Ticks, Ticks)> = (0..4000u64).map(|k| (k * 7 % 9001, k * 7 % 9001 + k % 13)).collect();
        let p = BusyProfile::new(&iv);
        let times: Vec<Ticks> = (0..1001u64).map(|i| if i % 97 == 0 { 9000 - i } else { i * 9 - i % 5 }).collect();
        let weak: Vec<Ticks> = (0..300u64).map(|k| k * 31).collect();
        let n = times.len();
        for len in [1, 7, 500, n] {
            let mut area = p.area_sweep();
            let (mut at, mut arrivals, mut next): (Vec<u64>, Vec<u128>, usize) = (Vec::new(), Vec::new(), 0);
            for lo in (0..n).step_by(len) {
                let hi = (lo + len).min(n);
                sweep_areas(&mut area, |i| times[i], lo..hi, n, &weak, &mut next, &mut at, &mut arrivals);
                let latest = times[..hi].iter().max().copied().unwrap_or(0);
                let due = if hi == n { weak.len() } else { weak.partition_point(|&w| w <= latest) };
                assert!(arrivals.len() >= due, "stretch of {len} to {hi}");
            }
            let want: Vec<u64> = times.iter().map(|&t| p.busy_area(0, t) as u64).collect();
            assert_eq!(at, want, "stretches of {len}");
            let want: Vec<u128> = weak.iter().map(|&t| p.busy_area(0, t)).collect();
            assert_eq!(arrivals, want, "stretches of {len}");
        }
        // A run whose busy area passes 2^64 (two processors busy for 2^64 - 1 ticks)
        // keeps its areas in 128 bits, exactly.
        let huge = BusyProfile::new(&[(0, u64::MAX), (0, u64::MAX)]);
        let (mut area, mut at, mut arrivals, mut next) = (huge.area_sweep(), Vec::<[u64; 2]>::new(), Vec::new(), 0);
        sweep_areas(&mut area, |i| times[i], 0..n, n, &weak, &mut next, &mut at, &mut arrivals);
        let got: Vec<u128> = at.into_iter().map(AreaWord::unpack).collect();
        assert_eq!(got, times.iter().map(|&t| 2 * u128::from(t)).collect::<Vec<_>>());
    }
}
