//! Routing on a [`Topology`]: hop distance, the ordered links a message crosses, and a
//! dense numbering of the directed links for per-link statistics. The network models
//! (`net`) and `cpmap`'s congestion metric both walk these routes, so they are the one
//! definition of "which way a message goes" (SPEC §4 "Physical architecture").
//!
//! Routing rules, all deterministic:
//! - **mesh, line**: dimension order, **last coordinate first** (the fastest-varying,
//!   "X" of an `[row][col]` mesh: a message first travels along its row to the
//!   destination column, then along that column), one step at a time toward the target.
//! - **torus, ring**: the same order, each dimension the shorter way round; when both ways
//!   are equally long (half-way round an even size) the **+ direction** (increasing
//!   coordinate, wrapping from n-1 to 0) is taken.
//! - **hypercube**: e-cube, the **lowest differing bit first**. That is again the
//!   last (fastest-varying) coordinate first, since a hypercube's coordinates are its
//!   id's bits, most significant first.
//! - **fullconnect**: the direct link, one hop.
//! - **shared**: one bus shared by all processors: every pair is one hop apart over the
//!   link `a → b`, and every such link has index 0 (so per-link statistics collect the
//!   whole bus in one counter).
//!
//! - **graph** (link lists of machine files): shortest routes with the tie-break
//!   documented in [`super::graph`], which equals the rules above on a mesh or torus
//!   listed in the natural way.
//!
//! A route from a node to itself is empty (distance 0).
use super::{Link, TopoKind, Topology};

/// Where a route followed hop by hop ([`Topology::walk_step`]) is: 20 bytes, for a
/// packet to carry instead of its route.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Walk {
    /// The processor the next hop leaves, and the destination.
    pub cur: u32,
    dst: u32,
    /// The dimension being travelled (routes take the last first); the number of
    /// dimensions before the first hop.
    dim: u32,
    /// `cur`'s coordinate in `dim`, the hops left in `dim`, and their direction.
    coord: u32,
    left: u32,
    plus: bool,
    /// A wraparound link of `dim` has been crossed.
    pub crossed: bool,
}

/// One hop of a walked route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub link: Link,
    /// The hop's port, unique per directed link: its processor times
    /// [`Topology::ports`] plus the way out of it (on a grid the axis and the direction
    /// along it, on a hypercube the axis). Half-way round a torus axis of size 2 both
    /// directions lead to the same neighbour; routes take the + one only, so each link
    /// has one port routes use.
    pub port: usize,
    /// A wraparound link (as [`Topology::wrap_hop`]).
    pub wrap: bool,
}

impl Topology {
    /// Hops from `a` to `b` along the route [`Topology::route`] takes; allocates nothing.
    /// Ids must be below [`Topology::nodes`].
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        debug_assert!(a < self.nodes() && b < self.nodes());
        if a == b {
            return 0;
        }
        if let Some(g) = self.graph() {
            return g.distance(a, b);
        }
        match self.kind() {
            TopoKind::FullConnect | TopoKind::Shared => 1,
            TopoKind::Hypercube => (a ^ b).count_ones(),
            _ => {
                let wraps = self.wraps();
                let mut hops = 0;
                for d in 0..self.shape.len() {
                    let (ca, cb, n) = (self.coord(a, d), self.coord(b, d), self.shape[d]);
                    let delta = ca.abs_diff(cb);
                    hops += if wraps { delta.min(n - delta) } else { delta };
                }
                hops
            }
        }
    }

    /// The ordered directed links a message from `a` to `b` crosses (see the module
    /// documentation for the routing rules).
    pub fn route(&self, a: u32, b: u32) -> Vec<Link> {
        let mut out = Vec::with_capacity(self.distance(a, b) as usize);
        self.route_into(a, b, &mut out);
        out
    }

    /// [`Topology::route`] appended to `out`, so a caller routing many messages can reuse
    /// one buffer.
    pub fn route_into(&self, a: u32, b: u32, out: &mut Vec<Link>) {
        debug_assert!(a < self.nodes() && b < self.nodes());
        if a == b {
            return;
        }
        if let Some(g) = self.graph() {
            let mut cur = a;
            // At most n-1 hops: a bound that also stops a corrupt table from looping.
            for _ in 0..g.nodes() {
                if cur == b {
                    break;
                }
                let next = g.next_hop(cur, b);
                out.push(Link { from: cur, to: next });
                cur = next;
            }
            return;
        }
        match self.kind() {
            TopoKind::FullConnect | TopoKind::Shared => out.push(Link { from: a, to: b }),
            TopoKind::Hypercube => {
                let mut cur = a;
                let mut diff = a ^ b;
                while diff != 0 {
                    let bit = diff & diff.wrapping_neg();
                    out.push(Link { from: cur, to: cur ^ bit });
                    cur ^= bit;
                    diff ^= bit;
                }
            }
            _ => {
                let wraps = self.wraps();
                let mut cur = a;
                for d in (0..self.shape.len()).rev() {
                    let (n, s) = (self.shape[d], self.strides[d]);
                    let (mut c, t) = (self.coord(cur, d), self.coord(b, d));
                    if c == t {
                        continue;
                    }
                    let forward = (t + n - c) % n;
                    let plus = if wraps { forward <= n - forward } else { t > c };
                    while c != t {
                        let next_c = if plus { (c + 1) % n } else { (c + n - 1) % n };
                        let next = cur - c * s + next_c * s;
                        out.push(Link { from: cur, to: next });
                        cur = next;
                        c = next_c;
                    }
                }
            }
        }
    }

    /// Whether [`Topology::walk_step`] can follow this topology's routes: the grids
    /// (mesh, torus, line, ring) and the hypercube, not a link list, a bus or a fully
    /// connected machine.
    pub fn walkable(&self) -> bool {
        self.graph().is_none() && !matches!(self.kind(), TopoKind::FullConnect | TopoKind::Shared)
    }

    /// The start of the route from `a` to `b` for [`Topology::walk_step`]
    /// ([`Topology::walkable`] topologies only).
    pub fn walk(&self, a: u32, b: u32) -> Walk {
        Walk { cur: a, dst: b, dim: self.shape.len() as u32, coord: 0, left: 0, plus: false, crossed: false }
    }

    /// The next hop of `w`'s route, the same as [`Topology::route`]'s, worked out from
    /// where the walk is: `None` at the end. Constant work per hop, and a division per
    /// dimension when the route turns into it, so a long route costs no memory and no
    /// search. Also gives the hop's port (see [`Step`]) and whether it is a
    /// wraparound link; [`Walk::crossed`] then tells whether the route crossed one since
    /// it entered this dimension (the dateline class of [`Topology::wrap_hop`]).
    #[inline]
    pub fn walk_step(&self, w: &mut Walk) -> Option<Step> {
        let wraps = self.wraps();
        while w.left == 0 {
            if w.dim == 0 {
                return None;
            }
            w.dim -= 1;
            let d = w.dim as usize;
            let n = self.shape[d];
            let (c, t) = (self.coord(w.cur, d), self.coord(w.dst, d));
            if c == t {
                continue;
            }
            let forward = (t + n - c) % n;
            w.plus = if wraps { forward <= n - forward } else { t > c };
            w.left = if !wraps {
                c.abs_diff(t)
            } else if w.plus {
                forward
            } else {
                n - forward
            };
            w.coord = c;
            w.crossed = false;
        }
        let d = w.dim as usize;
        let (n, s, c) = (self.shape[d], self.strides[d], w.coord);
        let next_c = if w.plus {
            if c + 1 == n {
                0
            } else {
                c + 1
            }
        } else if c == 0 {
            n - 1
        } else {
            c - 1
        };
        let from = w.cur;
        let to = from - c * s + next_c * s;
        let wrap = wraps && n > 2 && c.abs_diff(next_c) == n - 1;
        w.crossed |= wrap;
        w.cur = to;
        w.coord = next_c;
        w.left -= 1;
        // A hypercube's axes have size 2, one link each way out of a node: its port is
        // the axis. On the grids it is the axis and the direction.
        let port = if self.kind() == TopoKind::Hypercube { w.dim } else { 2 * w.dim + u32::from(w.plus) };
        Some(Step { link: Link { from, to }, port: from as usize * self.ports() + port as usize, wrap })
    }

    /// Ports per processor in [`Step::port`]'s numbering.
    pub fn ports(&self) -> usize {
        if self.kind() == TopoKind::Hypercube {
            self.shape.len()
        } else {
            2 * self.shape.len()
        }
    }

    /// On a ring or torus, the dimension a link between neighbours runs along and
    /// whether it is a wraparound link (between coordinates `n - 1` and `0`, `n > 2`);
    /// `None` on other kinds or for processors that are not neighbours. Networks use
    /// it to switch virtual-channel classes at the wraparound ("dateline").
    pub fn wrap_hop(&self, link: Link) -> Option<(usize, bool)> {
        if !self.wraps() || link.from >= self.nodes() || link.to >= self.nodes() {
            return None;
        }
        let mut found = None;
        for d in 0..self.shape.len() {
            let (a, b) = (self.coord(link.from, d), self.coord(link.to, d));
            if a != b {
                if found.is_some() {
                    return None;
                }
                let n = self.shape[d];
                let step = a.abs_diff(b);
                if step != 1 && step != n - 1 {
                    return None;
                }
                found = Some((d, n > 2 && step == n - 1));
            }
        }
        found
    }

    /// Number of directed links (the length of [`Topology::links`]); 1 on `shared` (the
    /// bus).
    pub fn link_count(&self) -> usize {
        self.links_before(self.nodes())
    }

    /// Every directed link, in order of index: sorted by `(from, to)`, except on `shared`
    /// where the single entry is [`Link::BUS`].
    pub fn links(&self) -> Vec<Link> {
        if self.kind() == TopoKind::Shared && self.graph().is_none() {
            return vec![Link::BUS];
        }
        let mut out = Vec::with_capacity(self.link_count());
        for from in 0..self.nodes() {
            out.extend(self.neighbours(from).into_iter().map(|to| Link { from, to }));
        }
        out
    }

    /// The dense index (`0..link_count()`) of a directed link, or `None` if the two
    /// processors are not adjacent or out of range. Constant work per call apart from a
    /// loop over the dimensions; allocates nothing.
    pub fn link_index(&self, link: Link) -> Option<usize> {
        let n = self.nodes();
        if let Some(g) = self.graph() {
            return g.link_index(link.from, link.to);
        }
        if self.kind() == TopoKind::Shared {
            let pair = link.from < n && link.to < n && link.from != link.to;
            return (pair || link == Link::BUS).then_some(0);
        }
        let Link { from, to } = link;
        if from >= n || to >= n || from == to {
            return None;
        }
        let rank = match self.kind() {
            TopoKind::FullConnect => (to - u32::from(to > from)) as usize,
            TopoKind::Hypercube => {
                let diff = from ^ to;
                if !diff.is_power_of_two() {
                    return None;
                }
                let b = diff.trailing_zeros();
                // Sorted neighbours: first the set bits cleared, highest bit first (the
                // smallest ids), then the clear bits set, lowest bit first.
                let below_b = diff - 1;
                if from & diff != 0 {
                    (from & !below_b & !diff).count_ones() as usize
                } else {
                    (from.count_ones() + b - (from & below_b).count_ones()) as usize
                }
            }
            _ => {
                let mut found = false;
                let mut rank = 0;
                self.grid_neighbours(from, |v| {
                    found |= v == to;
                    rank += usize::from(v < to);
                });
                if !found {
                    return None;
                }
                rank
            }
        };
        Some(self.links_before(from) + rank)
    }

    /// The directed link of dense index `index`: [`Topology::link_index`]'s inverse.
    /// `None` past the last link, and on `shared`, whose one index every pair shares. A
    /// search over the processors (each step a loop over the dimensions) and a sort of
    /// one processor's neighbours: for the rare question, not a route's every hop.
    pub fn link_at(&self, index: usize) -> Option<Link> {
        if self.kind() == TopoKind::Shared || index >= self.link_count() {
            return None;
        }
        // The last processor whose first link is at or before `index`.
        let (mut lo, mut hi) = (0u32, self.nodes());
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.links_before(mid) <= index {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let rank = index - self.links_before(lo);
        let to = match self.kind() {
            TopoKind::FullConnect if self.graph().is_none() => rank as u32 + u32::from(rank as u32 >= lo),
            _ => *self.neighbours(lo).get(rank)?,
        };
        Some(Link { from: lo, to })
    }

    /// Calls `each` with every directed link whose index `used` accepts, with its index,
    /// in order of index (sorted by `(from, to)`): one pass over the processors, a
    /// processor's neighbours listed only when one of its links is used.
    pub fn each_link_used(&self, used: impl Fn(usize) -> bool, mut each: impl FnMut(usize, Link)) {
        if self.kind() == TopoKind::Shared {
            return;
        }
        let mut first = 0;
        for from in 0..self.nodes() {
            let next = self.links_before(from + 1);
            if (first..next).any(&used) {
                for (rank, to) in self.neighbours(from).into_iter().enumerate() {
                    if used(first + rank) {
                        each(first + rank, Link { from, to });
                    }
                }
            }
            first = next;
        }
    }

    /// Sum of the degrees of the nodes `0..x`: the index of node `x`'s first link.
    fn links_before(&self, x: u32) -> usize {
        if let Some(g) = self.graph() {
            return g.links_before(x);
        }
        let x = u64::from(x);
        let total = match self.kind() {
            TopoKind::Shared => return 1,
            TopoKind::FullConnect => x * u64::from(self.nodes() - 1),
            TopoKind::Hypercube => x * self.shape.len() as u64,
            _ => {
                let wraps = self.wraps();
                let mut sum = 0u64;
                for d in 0..self.shape.len() {
                    let (n, s) = (u64::from(self.shape[d]), u64::from(self.strides[d]));
                    // How many ids below x have coordinate k in dimension d: whole periods
                    // of s*n ids contribute s each, the partial period what it reaches.
                    let count = |k: u64| (x / (s * n)) * s + (x % (s * n)).saturating_sub(k * s).min(s);
                    sum += match n {
                        1 => 0,
                        2 => x,
                        _ if wraps => 2 * x,
                        _ => 2 * x - count(0) - count(n - 1),
                    };
                }
                sum
            }
        };
        total as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Topology {
        match Topology::parse(s) {
            Ok(t) => t,
            Err(e) => panic!("{s}: {e}"),
        }
    }

    fn l(from: u32, to: u32) -> Link {
        Link { from, to }
    }

    #[test]
    fn wraparound_links() {
        // torus 4x4, row-major: 3 -> 0 moves along dimension 1 (columns) and wraps;
        // 0 -> 4 moves along dimension 0 and does not; 12 -> 0 wraps along dimension 0.
        let tor = t("torus:4x4");
        assert_eq!(tor.wrap_hop(l(3, 0)), Some((1, true)));
        assert_eq!(tor.wrap_hop(l(0, 4)), Some((0, false)));
        assert_eq!(tor.wrap_hop(l(12, 0)), Some((0, true)));
        assert_eq!(tor.wrap_hop(l(0, 5)), None);
        // A ring of 2 has no wraparound distinct from the direct link.
        assert_eq!(t("ring:2").wrap_hop(l(1, 0)), Some((0, false)));
        assert_eq!(t("mesh:4x4").wrap_hop(l(0, 1)), None);
    }

    #[test]
    fn distances_from_the_brief() {
        // mesh 8x8 corner to corner: 7 rows + 7 columns = 14.
        assert_eq!(t("mesh:8x8").distance(0, 63), 14);
        // torus 8x8 (0,0)→(7,7): one wrap-around hop in each dimension = 2.
        assert_eq!(t("torus:8x8").distance(0, 63), 2);
        // ring 8: 0→5 forward 5, backward 3 → 3.
        assert_eq!(t("ring:8").distance(0, 5), 3);
        // line 8: 0→5 = 5, no way round.
        assert_eq!(t("line:8").distance(0, 5), 5);
        // hypercube 3: 000→111 differs in 3 bits.
        assert_eq!(t("hypercube:3").distance(0, 7), 3);
        assert_eq!(t("fullconnect:8").distance(2, 6), 1);
        assert_eq!(t("shared:8").distance(2, 6), 1);
        assert_eq!(t("mesh:8x8").distance(9, 9), 0);
    }

    #[test]
    fn distance_equals_route_length_everywhere() {
        for name in
            ["mesh:3x4", "torus:4x5", "torus:2x3", "ring:6", "line:5", "hypercube:3", "mesh:2x3x2", "torus:3x3x4"]
        {
            let topo = t(name);
            for a in 0..topo.nodes() {
                for b in 0..topo.nodes() {
                    let r = topo.route(a, b);
                    assert_eq!(r.len() as u32, topo.distance(a, b), "{name} {a}->{b}");
                    // Consecutive, starting at a, ending at b, every hop a real link.
                    let mut cur = a;
                    for link in &r {
                        assert_eq!(link.from, cur);
                        assert!(topo.link_index(*link).is_some(), "{name} {link}");
                        cur = link.to;
                    }
                    assert_eq!(cur, b);
                }
            }
        }
    }

    #[test]
    fn mesh_routes_last_coordinate_first() {
        // mesh 3x3, ids r*3+c. 0=(0,0) → 8=(2,2): along row 0 to column 2 (0→1→2), then
        // down column 2 (2→5→8).
        assert_eq!(t("mesh:3x3").route(0, 8), vec![l(0, 1), l(1, 2), l(2, 5), l(5, 8)]);
        // Back again: column first 8→7→6, then row 6→3→0.
        assert_eq!(t("mesh:3x3").route(8, 0), vec![l(8, 7), l(7, 6), l(6, 3), l(3, 0)]);
    }

    #[test]
    fn torus_and_ring_take_the_short_way_and_break_ties_forward() {
        // torus 4x4, 0=(0,0) → 15=(3,3): column 0→3 is one step backwards (wrap 0→3),
        // then row 0→3 likewise (3→15).
        assert_eq!(t("torus:4x4").route(0, 15), vec![l(0, 3), l(3, 15)]);
        // ring 8: 0→5 goes backwards 0→7→6→5.
        assert_eq!(t("ring:8").route(0, 5), vec![l(0, 7), l(7, 6), l(6, 5)]);
        // ring 8: 0→4 is a tie (4 either way): + direction 0→1→2→3→4.
        assert_eq!(t("ring:8").route(0, 4), vec![l(0, 1), l(1, 2), l(2, 3), l(3, 4)]);
        // ...and 4→0 is also a tie: + direction wraps 4→5→6→7→0.
        assert_eq!(t("ring:8").route(4, 0), vec![l(4, 5), l(5, 6), l(6, 7), l(7, 0)]);
        // line 8 never wraps.
        assert_eq!(t("line:4").route(3, 0), vec![l(3, 2), l(2, 1), l(1, 0)]);
    }

    #[test]
    fn hypercube_ecube_and_direct_kinds() {
        // 0 → 7 = 111: fix bit 0, then 1, then 2.
        assert_eq!(t("hypercube:3").route(0, 7), vec![l(0, 1), l(1, 3), l(3, 7)]);
        // 6=110 → 3=011: bits 0 and 2 differ: 6→7→3.
        assert_eq!(t("hypercube:3").route(6, 3), vec![l(6, 7), l(7, 3)]);
        assert_eq!(t("fullconnect:8").route(2, 6), vec![l(2, 6)]);
        let shared = t("shared:8");
        assert_eq!(shared.route(2, 6), vec![l(2, 6)]);
        assert_eq!(shared.link_index(l(2, 6)), Some(0));
        assert_eq!(shared.link_index(l(6, 2)), Some(0));
        assert_eq!(shared.links(), vec![Link::BUS]);
        assert_eq!(shared.link_count(), 1);
        assert!(t("mesh:3x3").route(4, 4).is_empty());
    }

    /// Grids and hypercubes with axes of size 1 and 2 (where neighbours coincide), odd
    /// and even rings, and three axes.
    const SHAPES: [&str; 12] = [
        "mesh:3x4",
        "mesh:1x5",
        "mesh:2x2x3",
        "torus:4x5",
        "torus:2x3",
        "torus:1x4",
        "ring:2",
        "ring:7",
        "line:1",
        "line:6",
        "hypercube:0",
        "hypercube:4",
    ];

    /// A walked route is the stored one hop by hop, with each hop's wraparound flag,
    /// and a port names one directed link: every pair of every walkable shape, with a
    /// torus of three axes and an even ring besides.
    #[test]
    fn a_walked_route_is_the_route_and_each_port_one_link() {
        for name in SHAPES.into_iter().chain(["torus:3x3x2", "ring:8"]) {
            let topo = t(name);
            assert!(topo.walkable(), "{name}");
            let mut port_link = std::collections::HashMap::new();
            let mut link_port = std::collections::HashMap::new();
            for a in 0..topo.nodes() {
                for b in 0..topo.nodes() {
                    let mut w = topo.walk(a, b);
                    let mut walked = Vec::new();
                    while let Some(step) = topo.walk_step(&mut w) {
                        let (_, wrap) = topo.wrap_hop(step.link).unwrap_or((0, false));
                        assert_eq!(step.wrap, wrap, "{name} {a}->{b} {}", step.link);
                        assert!(step.port / topo.ports() == step.link.from as usize, "{name}");
                        assert_eq!(*port_link.entry(step.port).or_insert(step.link), step.link, "{name}");
                        assert_eq!(*link_port.entry(step.link).or_insert(step.port), step.port, "{name}");
                        walked.push(step.link);
                        assert_eq!(w.cur, step.link.to);
                    }
                    assert_eq!(walked, topo.route(a, b), "{name} {a}->{b}");
                    assert_eq!(walked.len() as u32, topo.distance(a, b), "{name}");
                }
            }
        }
        for name in ["fullconnect:5", "shared:4", "graph:3:0-1,1-2"] {
            assert!(!t(name).walkable(), "{name}");
        }
    }

    /// On a torus axis of 5 the route from 4 to 1 goes + over the wraparound (4->0,
    /// then 0->1): the walk says so on the first hop and keeps `crossed` on the second.
    #[test]
    fn a_walk_remembers_the_wraparound_of_its_axis() {
        let topo = t("ring:5");
        let mut w = topo.walk(4, 1);
        let first = topo.walk_step(&mut w).unwrap();
        assert_eq!((first.link, first.wrap, w.crossed), (Link { from: 4, to: 0 }, true, true));
        let second = topo.walk_step(&mut w).unwrap();
        assert_eq!((second.link, second.wrap, w.crossed), (Link { from: 0, to: 1 }, false, true));
        assert_eq!(topo.walk_step(&mut w), None);
    }

    #[test]
    fn link_numbering_is_dense_and_matches_links() {
        for name in SHAPES.into_iter().chain(["fullconnect:5", "graph:5:0-1,1-2,3-2,0-4,4-3"]) {
            let topo = Topology::parse(name).unwrap();
            let links = topo.links();
            assert_eq!(links.len(), topo.link_count(), "{name}");
            for (i, link) in links.iter().enumerate() {
                assert_eq!(topo.link_index(*link), Some(i), "{name} {link}");
                // The inverse gives each index's link back.
                assert_eq!(topo.link_at(i), Some(*link), "{name} {i}");
            }
            assert_eq!(topo.link_at(links.len()), None, "{name}");
            // Every link, or every third, listed in index order with its index.
            for step in [1, 3] {
                let mut seen = Vec::new();
                topo.each_link_used(|i| i % step == 0, |i, link| seen.push((i, link)));
                let want: Vec<_> = links.iter().copied().enumerate().filter(|(i, _)| i % step == 0).collect();
                assert_eq!(seen, want, "{name} every {step}");
            }
        }
        // `shared`'s one index is every pair's: no link of its own.
        assert_eq!(t("shared:3").link_at(0), None);
        // Hand counts: mesh 3x4 has 17 undirected edges → 34 directed links; ring 2 has
        // one edge → 2 links; hypercube 4: 16 nodes × 4 = 64.
        assert_eq!(t("mesh:3x4").link_count(), 34);
        assert_eq!(t("ring:2").link_count(), 2);
        assert_eq!(t("hypercube:4").link_count(), 64);
    }

    #[test]
    fn link_index_rejects_non_links() {
        let m = t("mesh:3x3");
        assert_eq!(m.link_index(l(0, 2)), None);
        assert_eq!(m.link_index(l(2, 3)), None); // consecutive ids but different rows
        assert_eq!(m.link_index(l(0, 9)), None);
        assert_eq!(m.link_index(l(4, 4)), None);
        assert_eq!(t("hypercube:3").link_index(l(0, 3)), None);
        assert_eq!(t("fullconnect:3").link_index(l(1, 1)), None);
        assert_eq!(t("shared:3").link_index(l(1, 3)), None);
    }
}

#[cfg(test)]
mod graph_tests {
    use super::*;
    use crate::topo::Graph;

    /// The link list of a built-in topology, each link listed from its lower-coordinate
    /// end: `a → b` where b is a's `+` neighbour in some dimension (so wrap-around links
    /// go from the last coordinate to the first).
    fn natural_links(t: &Topology) -> Vec<(u32, u32)> {
        let shape = t.shape().to_vec();
        let mut out = Vec::new();
        for a in 0..t.nodes() {
            let c = t.coords(a);
            for d in 0..shape.len() {
                let n = shape[d];
                let wraps = matches!(t.kind(), TopoKind::Torus | TopoKind::Ring);
                if c[d] + 1 < n || (wraps && n > 2) {
                    let mut c2 = c.clone();
                    c2[d] = (c[d] + 1) % n;
                    if let Some(b) = t.id_of(&c2) {
                        out.push((a, b));
                    }
                }
            }
        }
        out
    }

    fn same_routes(name: &str) {
        let builtin = Topology::parse(name).unwrap();
        let g = Topology::from_graph(Graph::new(builtin.nodes(), &natural_links(&builtin)).unwrap());
        assert_eq!(g.link_count(), builtin.link_count(), "{name}");
        assert_eq!(g.links(), builtin.links(), "{name}: same link numbering");
        for a in 0..builtin.nodes() {
            for b in 0..builtin.nodes() {
                assert_eq!(g.route(a, b), builtin.route(a, b), "{name}: {a}->{b}");
                assert_eq!(g.distance(a, b), builtin.distance(a, b));
            }
        }
    }

    #[test]
    fn graph_of_a_mesh_routes_like_the_mesh() {
        same_routes("mesh:8x8");
        same_routes("mesh:3x4x2");
    }

    #[test]
    fn graph_of_a_torus_routes_like_the_torus() {
        // 4x4 has half-way ties in both dimensions (taken in the + direction).
        same_routes("torus:4x4");
        same_routes("torus:3x6");
        same_routes("ring:8");
    }

    #[test]
    fn graph_name_round_trips() {
        let t = Topology::parse("graph:4:0-1,1-2,3-2").unwrap();
        assert_eq!(t.to_string(), "graph:4:0-1,1-2,3-2");
        assert_eq!(Topology::parse(&t.to_string()).unwrap(), t);
        assert_eq!(t.route(0, 3), vec![Link { from: 0, to: 1 }, Link { from: 1, to: 2 }, Link { from: 2, to: 3 }]);
        assert_eq!(t.neighbours(2), vec![1, 3]);
        assert_eq!(t.coords(3), vec![3]);
        let e = Topology::parse("graph:3:0-1").unwrap_err().to_string();
        assert!(e.contains("not connected"), "{e}");
        assert!(Topology::parse("graph:3:0-x").is_err());
    }
}
