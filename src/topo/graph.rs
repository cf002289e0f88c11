//! Irregular topologies given as a list of links (machine description files, SPEC §8):
//! adjacency, hop distances and a precomputed deterministic routing table.
//!
//! # Routing rule
//!
//! A message always takes a shortest route (fewest hops). Among the shortest routes the
//! choice is made hop by hop, from the destination backwards, by three keys in order:
//!
//! 1. the fewest links crossed **against their listed direction** over the whole rest of
//!    the route (an edge `a-b` is listed from `a` to `b`; `connect = 2 a b` in a machine
//!    file);
//! 2. then the hop joining the **closest ids** (smallest `|from - to|`);
//! 3. then the **lower id**.
//!
//! For a row-major mesh or torus whose links are listed from their lower-coordinate end
//! (wrap-around links from the last coordinate to the first) this is exactly the
//! built-in dimension-order routing of [`super::route`]: every shortest route of a mesh
//! crosses the same number of links backwards, so key 2 picks the fastest-varying
//! dimension first (its hops join ids `1` or `n-1` apart, those of the next dimension `n`
//! or more); on a torus, key 1 turns a half-way tie toward the `+` direction, as the
//! built-in rule does. Both equalities are tested.
//!
//! # Link numbering
//!
//! Directed links are numbered in `(from, to)` order like the built-in kinds: node `x`'s
//! links start at the sum of the degrees of nodes `0..x`, and among them `x → y` has the
//! rank of `y` in `x`'s sorted neighbour list. The same link list as a built-in mesh
//! therefore has the same link numbers.
//!
//! # Lane classes (deadlock freedom)
//!
//! Shortest routes on a graph with cycles can wait on each other in a circle. The
//! nodes are ranked by hop distance from processor 0, then by id; a link toward a
//! lower rank is *up*, the others *down*. A route that never takes an up link after a
//! down link (up*/down* routing) cannot be part of a cycle of waiting packets, because
//! along such routes ranks first fall, then rise. Routes here stay shortest; instead a
//! route's hop belongs to *class* c when c down-then-up turns come before it
//! ([`Graph::turn_class`]). Within a class every stretch of route is up*/down*, and a
//! packet only moves to higher classes, so with a lane class per turn count
//! ([`Graph::classes`] of them) no cycle of waiting lanes exists. When the routes'
//! channel dependencies (link `x` then link `y` on some route) have no cycle at all, as
//! for a mesh given as a link list, one class serves every packet, as on a built-in
//! mesh.
//!
//! Memory is quadratic in the node count (a next-hop and a distance table of `u16`), so
//! graphs are limited to [`MAX_GRAPH_NODES`] processors.
use std::collections::VecDeque;

/// Largest number of processors of a graph topology (its routing table has n² entries).
pub const MAX_GRAPH_NODES: u32 = 2048;

/// Why a link list is not a usable network.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    #[error("a network needs at least one processor")]
    Empty,
    #[error("{nodes} processors exceed the limit of {max} for a network given as a link list", max = MAX_GRAPH_NODES)]
    TooLarge { nodes: u32 },
    #[error("link {from}-{to} names processor {bad}, but there are only {nodes} (0 to {last})", last = nodes - 1)]
    NodeOutOfRange { from: u32, to: u32, bad: u32, nodes: u32 },
    #[error("link {node}-{node} joins processor {node} to itself")]
    SelfLoop { node: u32 },
    #[error("processors {a} and {b} are joined by two links")]
    Duplicate { a: u32, b: u32 },
    #[error("processor {node} cannot be reached from processor 0: the network is not connected")]
    Disconnected { node: u32 },
}

/// A connected undirected graph with oriented edges and its routing table.
#[derive(Clone, Debug)]
pub struct Graph {
    nodes: u32,
    /// The edges as given (`(a, b)` listed from `a` to `b`), sorted by `(min, max)`.
    edges: Vec<(u32, u32)>,
    /// Sorted neighbours of each node.
    adj: Vec<Vec<u32>>,
    /// `first[x]`: index of node `x`'s first directed link; `first[n]` = link count.
    first: Vec<usize>,
    /// `next[a * n + b]`: the next node from `a` toward `b` (`a` itself when `a == b`).
    next: Vec<u16>,
    /// `dist[a * n + b]`: hops from `a` to `b`.
    dist: Vec<u16>,
    /// Each node's rank by (hops from node 0, id): links toward a lower rank are up.
    rank: Vec<u32>,
    /// One more than the most down-then-up turns on any route.
    classes: u32,
}

impl PartialEq for Graph {
    fn eq(&self, other: &Graph) -> bool {
        self.nodes == other.nodes && self.edges == other.edges
    }
}

impl Eq for Graph {}

impl std::hash::Hash for Graph {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.nodes.hash(state);
        self.edges.hash(state);
    }
}

impl Graph {
    /// The graph of `nodes` processors joined by `edges` (each listed `from`, `to`),
    /// checked: ids in range, no loops, no pair joined twice, connected.
    pub fn new(nodes: u32, edges: &[(u32, u32)]) -> Result<Graph, GraphError> {
        if nodes == 0 {
            return Err(GraphError::Empty);
        }
        if nodes > MAX_GRAPH_NODES {
            return Err(GraphError::TooLarge { nodes });
        }
        let n = nodes as usize;
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut sorted: Vec<(u32, u32)> = Vec::with_capacity(edges.len());
        for &(a, b) in edges {
            for x in [a, b] {
                if x >= nodes {
                    return Err(GraphError::NodeOutOfRange { from: a, to: b, bad: x, nodes });
                }
            }
            if a == b {
                return Err(GraphError::SelfLoop { node: a });
            }
            adj[a as usize].push(b);
            adj[b as usize].push(a);
            sorted.push((a, b));
        }
        sorted.sort_by_key(|&(a, b)| (a.min(b), a.max(b)));
        for w in sorted.windows(2) {
            let key = |(a, b): (u32, u32)| (a.min(b), a.max(b));
            if key(w[0]) == key(w[1]) {
                let (a, b) = key(w[0]);
                return Err(GraphError::Duplicate { a, b });
            }
        }
        for l in &mut adj {
            l.sort_unstable();
        }
        let mut first = Vec::with_capacity(n + 1);
        let mut total = 0usize;
        for l in &adj {
            first.push(total);
            total += l.len();
        }
        first.push(total);
        let mut g = Graph {
            nodes,
            edges: sorted,
            adj,
            first,
            next: vec![0; n * n],
            dist: vec![0; n * n],
            rank: Vec::new(),
            classes: 1,
        };
        g.route_all()?;
        g.rank_and_classes();
        Ok(g)
    }

    /// Whether the edge between `a` and `b` is listed from `a` to `b`.
    fn forward(&self, a: u32, b: u32) -> bool {
        let key = (a.min(b), a.max(b));
        match self.edges.binary_search_by_key(&key, |&(x, y)| (x.min(y), x.max(y))) {
            Ok(i) => self.edges[i].0 == a,
            Err(_) => false,
        }
    }

    /// Fills `next` and `dist`: one breadth-first search per destination, then each node
    /// in order of distance picks its next hop by the module's three keys.
    fn route_all(&mut self) -> Result<(), GraphError> {
        let n = self.nodes as usize;
        let mut dist = vec![u32::MAX; n];
        let mut back = vec![0u32; n];
        let mut order = Vec::with_capacity(n);
        let mut queue = VecDeque::with_capacity(n);
        for b in 0..n {
            dist.fill(u32::MAX);
            order.clear();
            dist[b] = 0;
            back[b] = 0;
            queue.push_back(b as u32);
            while let Some(v) = queue.pop_front() {
                order.push(v);
                for &u in &self.adj[v as usize] {
                    if dist[u as usize] == u32::MAX {
                        dist[u as usize] = dist[v as usize] + 1;
                        queue.push_back(u);
                    }
                }
            }
            if let Some(node) = dist.iter().position(|&d| d == u32::MAX) {
                return Err(GraphError::Disconnected { node: node as u32 });
            }
            // `order` is by non-decreasing distance, so each node's candidates (one hop
            // closer) already have their count of backward links.
            for &v in &order {
                let vi = v as usize;
                self.dist[vi * n + b] = dist[vi] as u16;
                if vi == b {
                    self.next[vi * n + b] = v as u16;
                    continue;
                }
                let mut best: Option<(u32, u32, u32)> = None;
                for &u in &self.adj[vi] {
                    if dist[u as usize] + 1 != dist[vi] {
                        continue;
                    }
                    let key = (back[u as usize] + u32::from(!self.forward(v, u)), v.abs_diff(u), u);
                    if best.is_none_or(|k| key < k) {
                        best = Some(key);
                    }
                }
                let (count, _, u) = best.unwrap_or((0, 0, v));
                back[vi] = count;
                self.next[vi * n + b] = u as u16;
            }
        }
        Ok(())
    }

    /// Ranks the nodes (from the routing table's distances to node 0) and counts the
    /// lane classes the routes need (module docs): per destination, each node's route
    /// turns as often as its next node's, plus one when it goes down into an up link.
    fn rank_and_classes(&mut self) {
        let n = self.nodes as usize;
        let acyclic = self.dependencies_acyclic();
        let mut order: Vec<u32> = (0..self.nodes).collect();
        order.sort_by_key(|&v| (self.dist[v as usize * n], v));
        self.rank = vec![0; n];
        for (r, &v) in order.iter().enumerate() {
            self.rank[v as usize] = r as u32;
        }
        let mut most = 0u32;
        let mut turns = vec![0u32; n];
        let mut by_dist: Vec<u32> = Vec::with_capacity(n);
        for b in 0..n {
            by_dist.clear();
            by_dist.extend(0..self.nodes);
            by_dist.sort_by_key(|&v| self.dist[v as usize * n + b]);
            for &v in &by_dist {
                let vi = v as usize;
                if vi == b {
                    turns[vi] = 0;
                    continue;
                }
                let u = self.next[vi * n + b] as usize;
                let down = self.rank[u] > self.rank[vi];
                let then_up = u != b && self.rank[self.next[u * n + b] as usize] < self.rank[u];
                turns[vi] = turns[u] + u32::from(down && then_up);
                most = most.max(turns[vi]);
            }
        }
        self.classes = if acyclic { 1 } else { most + 1 };
    }

    /// Whether no cycle runs through the routes' channel dependencies: link `a → u`
    /// followed by `u → next(u, b)` on the route from `a` to `b` (Kahn's algorithm over
    /// the directed links).
    fn dependencies_acyclic(&self) -> bool {
        let n = self.nodes as usize;
        let links = self.first[n];
        let mut deps: Vec<(u32, u32)> = Vec::new();
        for a in 0..n {
            for b in 0..n {
                let u = self.next[a * n + b] as usize;
                if a == b || u == b {
                    continue;
                }
                let w = self.next[u * n + b] as u32;
                if let (Some(x), Some(y)) = (self.link_index(a as u32, u as u32), self.link_index(u as u32, w)) {
                    deps.push((x as u32, y as u32));
                }
            }
        }
        deps.sort_unstable();
        deps.dedup();
        let mut indegree = vec![0u32; links];
        let mut start = vec![0usize; links + 1];
        for &(x, y) in &deps {
            indegree[y as usize] += 1;
            start[x as usize + 1] += 1;
        }
        for i in 0..links {
            start[i + 1] += start[i];
        }
        let mut ready: Vec<usize> = (0..links).filter(|&l| indegree[l] == 0).collect();
        let mut seen = 0;
        while let Some(x) = ready.pop() {
            seen += 1;
            for &(_, y) in &deps[start[x]..start[x + 1]] {
                indegree[y as usize] -= 1;
                if indegree[y as usize] == 0 {
                    ready.push(y as usize);
                }
            }
        }
        seen == links
    }

    /// The lane classes this graph's routes need to be free of deadlock (module docs).
    pub fn classes(&self) -> u32 {
        self.classes
    }

    /// The class of a hop over `from → to` that follows a hop over `prev → from` of
    /// class `class` (`prev == from`: the route's first hop, class 0).
    pub fn turn_class(&self, prev: u32, from: u32, to: u32, class: u32) -> u32 {
        let r = |x: u32| self.rank.get(x as usize).copied().unwrap_or(0);
        let down_before = prev != from && r(from) > r(prev);
        class + u32::from(down_before && r(to) < r(from))
    }

    /// The number of processors.
    pub fn nodes(&self) -> u32 {
        self.nodes
    }

    /// The edges as listed (`(from, to)`), sorted by their lower then higher end.
    pub fn edges(&self) -> &[(u32, u32)] {
        &self.edges
    }

    /// The sorted neighbours of `id` (empty beyond the node count).
    pub fn neighbours(&self, id: u32) -> &[u32] {
        self.adj.get(id as usize).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Hops from `a` to `b` (0 for ids out of range).
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        let n = self.nodes as usize;
        if a >= self.nodes || b >= self.nodes {
            return 0;
        }
        u32::from(self.dist[a as usize * n + b as usize])
    }

    /// The node after `a` on the route to `b`.
    pub fn next_hop(&self, a: u32, b: u32) -> u32 {
        let n = self.nodes as usize;
        if a >= self.nodes || b >= self.nodes {
            return b;
        }
        u32::from(self.next[a as usize * n + b as usize])
    }

    /// The dense index of the directed link `from → to`, if they are adjacent.
    pub fn link_index(&self, from: u32, to: u32) -> Option<usize> {
        let l = self.adj.get(from as usize)?;
        let rank = l.binary_search(&to).ok()?;
        Some(self.first[from as usize] + rank)
    }

    /// Index of node `x`'s first directed link (the link count for `x == nodes`).
    pub fn links_before(&self, x: u32) -> usize {
        self.first.get(x as usize).copied().unwrap_or(self.first[self.nodes as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_lists() {
        assert_eq!(Graph::new(0, &[]).unwrap_err(), GraphError::Empty);
        assert!(matches!(Graph::new(3, &[(0, 3)]), Err(GraphError::NodeOutOfRange { bad: 3, .. })));
        assert_eq!(Graph::new(2, &[(1, 1)]).unwrap_err(), GraphError::SelfLoop { node: 1 });
        assert_eq!(Graph::new(2, &[(0, 1), (1, 0)]).unwrap_err(), GraphError::Duplicate { a: 0, b: 1 });
        assert_eq!(Graph::new(3, &[(0, 1)]).unwrap_err(), GraphError::Disconnected { node: 2 });
        assert!(matches!(Graph::new(MAX_GRAPH_NODES + 1, &[]), Err(GraphError::TooLarge { .. })));
        assert!(Graph::new(1, &[]).is_ok());
    }

    #[test]
    fn listed_direction_breaks_ties() {
        // A square 0-1-2-3-0: from 0 to 2 both ways are two hops. Listed 0→1, 1→2, 2→3,
        // 3→0: going 0→1→2 crosses no link backwards, 0→3→2 crosses two: via 1.
        let g = Graph::new(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]).unwrap();
        assert_eq!(g.next_hop(0, 2), 1);
        // From 2 to 0: 2→3→0 follows the listing, 2→1→0 goes against it twice: via 3.
        assert_eq!(g.next_hop(2, 0), 3);
        // Listed the other way round the choices flip.
        let g = Graph::new(4, &[(1, 0), (2, 1), (3, 2), (0, 3)]).unwrap();
        assert_eq!((g.next_hop(0, 2), g.next_hop(2, 0)), (3, 1));
    }

    #[test]
    fn closest_id_then_lowest_id() {
        // Star-free diamond 0-{1,5}-6, all listed low→high: both routes 0→6 cross no
        // link backwards; 0→1 (difference 1) beats 0→5 (5).
        let g = Graph::new(7, &[(0, 1), (0, 5), (1, 6), (5, 6), (1, 2), (2, 3), (3, 4)]).unwrap();
        assert_eq!(g.next_hop(0, 6), 1);
        assert_eq!(g.distance(0, 4), 4);
        // Numbering: node 0 has links to 1 and 5 (indices 0, 1), node 1 starts at 2.
        assert_eq!(g.link_index(0, 5), Some(1));
        assert_eq!(g.link_index(1, 0), Some(2));
        assert_eq!(g.link_index(0, 6), None);
        assert_eq!(g.links_before(7), 14, "7 edges, 14 directed links");
    }
}
