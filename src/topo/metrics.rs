//! Quality metrics of a mapping, as `cpmap` reports them (SPEC §7): load per physical
//! processor, dilation over the virtual architecture's neighbour pairs, and link
//! congestion under the physical topology's routing ([`super::route`]). The virtual
//! architecture's edges stand for the program's communication when no measured
//! communication matrix is given.
//!
//! The functions expect a mapping that passed [`Mapping::validate`] for the same pair of
//! topologies; entries beyond either architecture are skipped rather than trusted.
use super::{Mapping, Topology};

/// The physical processors of virtual neighbours `a` and `b`, if both are valid.
fn images(mapping: &Mapping, phys: &Topology, a: u32, b: u32) -> Option<(u32, u32)> {
    let (pa, pb) = (mapping.pproc(a)?, mapping.pproc(b)?);
    (pa < phys.nodes() && pb < phys.nodes()).then_some((pa, pb))
}

/// The number of virtual processors on each physical processor of `phys`.
pub fn load(mapping: &Mapping, phys: &Topology) -> Vec<u32> {
    let mut out = vec![0u32; phys.nodes() as usize];
    for &p in &mapping.table {
        if let Some(slot) = out.get_mut(p as usize) {
            *slot += 1;
        }
    }
    out
}

/// Dilation: the physical distance between the images of each pair of virtual
/// neighbours ([`Topology::edges`] of `virt`); returns `(max, mean)`, `(0, 0.0)` when
/// `virt` has no edges. Neighbours on the same physical processor count as distance 0.
pub fn dilation(mapping: &Mapping, virt: &Topology, phys: &Topology) -> (u32, f64) {
    let (mut max, mut sum, mut count) = (0u32, 0u64, 0u64);
    for (a, b) in virt.edges() {
        let Some((pa, pb)) = images(mapping, phys, a, b) else { continue };
        let d = phys.distance(pa, pb);
        max = max.max(d);
        sum += u64::from(d);
        count += 1;
    }
    let mean = if count == 0 { 0.0 } else { sum as f64 / count as f64 };
    (max, mean)
}

/// How many directed virtual edges are routed over each directed physical link, indexed
/// by [`Topology::link_index`]. Each virtual edge counts once per direction (`a → b` and
/// `b → a`), since dimension-order routes there and back need not use the same links.
pub fn link_loads(mapping: &Mapping, virt: &Topology, phys: &Topology) -> Vec<u32> {
    let mut loads = vec![0u32; phys.link_count()];
    let mut route = Vec::new();
    for (a, b) in virt.edges() {
        let Some((pa, pb)) = images(mapping, phys, a, b) else { continue };
        for (from, to) in [(pa, pb), (pb, pa)] {
            route.clear();
            phys.route_into(from, to, &mut route);
            for link in &route {
                if let Some(slot) = phys.link_index(*link).and_then(|i| loads.get_mut(i)) {
                    *slot += 1;
                }
            }
        }
    }
    loads
}

/// Link congestion: the largest [`link_loads`] entry (0 when no link is used).
pub fn link_congestion(mapping: &Mapping, virt: &Topology, phys: &Topology) -> u32 {
    link_loads(mapping, virt, phys).into_iter().max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::super::builtin_mapping;
    use super::*;

    fn t(s: &str) -> Topology {
        match Topology::parse(s) {
            Ok(t) => t,
            Err(e) => panic!("{s}: {e}"),
        }
    }

    fn build(name: &str, v: &Topology, p: &Topology) -> Mapping {
        match builtin_mapping(name, v, p, 1) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn dilation_of_torus_on_mesh() {
        let (v, p) = (t("torus:8x8"), t("mesh:8x8"));
        // Identity: the wrap-around edge (r,0)–(r,7) spans 7 hops on the mesh. 128 edges:
        // 112 grid edges at 1 hop and 16 wrap edges at 7 → mean (112 + 112)/128 = 1.75.
        let (max, mean) = dilation(&build("identity", &v, &p), &v, &p);
        assert_eq!(max, 7);
        assert_eq!(mean, 1.75);
        // Folded: every torus neighbour lands at most 2 hops away, and some at exactly 2.
        let (max, _) = dilation(&build("torus2mesh", &v, &p), &v, &p);
        assert_eq!(max, 2);
    }

    #[test]
    fn load_of_default_blocks() {
        let (v, p) = (t("mesh:16x16"), t("mesh:4x4"));
        assert_eq!(load(&build("default", &v, &p), &p), vec![16; 16]);
        // 10 on 4 → 3 3 2 2 (Figure 17's remainder rule).
        let (v, p) = (t("ring:10"), t("ring:4"));
        assert_eq!(load(&build("default", &v, &p), &p), vec![3, 3, 2, 2]);
    }

    #[test]
    fn congestion_by_hand() {
        // ring 4 on line 4 by identity: edges 0-1, 1-2, 2-3 use their own link once per
        // direction; the wrap edge 3-0 travels the whole line both ways, adding 1 to every
        // link: each directed link carries 2.
        let (v, p) = (t("ring:4"), t("line:4"));
        let m = build("identity", &v, &p);
        assert_eq!(link_loads(&m, &v, &p), vec![2; 6]);
        assert_eq!(link_congestion(&m, &v, &p), 2);
        // ring2line: 0 2 3 1 on the line; edges map to pairs (0,2) (2,3) (3,1) (1,0):
        // link 1→2 (and 2→1) is used by (0,2) and (3,1) → 2; still 2.
        assert_eq!(link_congestion(&build("ring2line", &v, &p), &v, &p), 2);
        // Shared bus: all 4 ring edges × 2 directions go over the one bus.
        let s = t("shared:4");
        assert_eq!(link_loads(&build("identity", &v, &s), &v, &s), vec![8]);
        // Everything on one processor: no link used.
        let one = t("line:1");
        assert_eq!(link_congestion(&build("default", &v, &one), &v, &one), 0);
    }
}
