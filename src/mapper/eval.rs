//! The quality of one mapping: validity, load per physical processor, dilation and link
//! congestion over the virtual architecture's edges ([`crate::topo::metrics`]), and with a
//! communication matrix the traffic-weighted hop cost and the most loaded link; and the
//! ranking of several mappings.
use super::comm::CommMatrix;
use super::search::ProcessorTimes;
use super::MapperError;
use crate::topo::{dilation, link_congestion, load, Link, Mapping, Topology};

/// Traffic-weighted figures of a mapping under a communication matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct Traffic {
    /// Σ over virtual processor pairs of bytes × physical hops.
    pub cost: u64,
    /// The directed link carrying the most bytes under the physical routing and its
    /// bytes (`None` when no byte crosses a link); ties go to the lowest link index.
    pub hottest: Option<(Link, u64)>,
}

/// Everything `cpmap` reports about one mapping.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// What the user called it (the mapping string, built-in name or `@file`).
    pub name: String,
    /// The table.
    pub mapping: Mapping,
    /// True when no two virtual processors share a physical one.
    pub one_to_one: bool,
    /// Virtual processors on each physical processor.
    pub loads: Vec<u32>,
    /// Largest dilation over virtual neighbour pairs, in hops.
    pub dilation_max: u32,
    /// Mean dilation over virtual neighbour pairs, in hops.
    pub dilation_mean: f64,
    /// Largest number of directed virtual edges routed over one directed physical link.
    pub congestion: u32,
    /// Traffic figures, when a communication matrix was given.
    pub traffic: Option<Traffic>,
    /// Processor times, when task costs were given ([`super::build_report`] fills them).
    pub times: Option<ProcessorTimes>,
}

impl Evaluation {
    /// The largest load.
    pub fn max_load(&self) -> u32 {
        self.loads.iter().copied().max().unwrap_or(0)
    }

    /// The smallest load.
    pub fn min_load(&self) -> u32 {
        self.loads.iter().copied().min().unwrap_or(0)
    }

    /// Load imbalance: the largest load over the mean load V/P (1 is perfect balance).
    pub fn imbalance(&self) -> f64 {
        let v: u64 = self.loads.iter().map(|&l| u64::from(l)).sum();
        if v == 0 {
            return 0.0;
        }
        f64::from(self.max_load()) * self.loads.len() as f64 / v as f64
    }
}

/// Evaluates `mapping` of `virt` onto `phys`, after checking that it fits both
/// architectures (and that `comm` names only virtual processors of `virt`).
pub fn evaluate(
    name: &str,
    mapping: Mapping,
    virt: &Topology,
    phys: &Topology,
    comm: Option<&CommMatrix>,
) -> Result<Evaluation, MapperError> {
    mapping.validate(virt, phys).map_err(|error| MapperError::Mapping { name: name.to_string(), error })?;
    let traffic = match comm {
        Some(c) => {
            c.check_range(virt.nodes())?;
            Some(traffic(&mapping, phys, c))
        }
        None => None,
    };
    let (dilation_max, dilation_mean) = dilation(&mapping, virt, phys);
    Ok(Evaluation {
        name: name.to_string(),
        one_to_one: mapping.is_one_to_one(),
        loads: load(&mapping, phys),
        dilation_max,
        dilation_mean,
        congestion: link_congestion(&mapping, virt, phys),
        traffic,
        times: None,
        mapping,
    })
}

/// The traffic-weighted hop cost Σ bytes × hops of a validated mapping.
pub fn weighted_cost(mapping: &Mapping, phys: &Topology, comm: &CommMatrix) -> u64 {
    let mut cost = 0u64;
    for (s, d, b) in comm.entries() {
        if let (Some(ps), Some(pd)) = (mapping.pproc(s), mapping.pproc(d)) {
            if ps < phys.nodes() && pd < phys.nodes() {
                cost = cost.saturating_add(b.saturating_mul(u64::from(phys.distance(ps, pd))));
            }
        }
    }
    cost
}

/// Bytes routed over each directed link (indexed by [`Topology::link_index`]).
pub fn link_traffic(mapping: &Mapping, phys: &Topology, comm: &CommMatrix) -> Vec<u64> {
    let mut loads = vec![0u64; phys.link_count()];
    let mut route = Vec::new();
    for (s, d, b) in comm.entries() {
        let (Some(ps), Some(pd)) = (mapping.pproc(s), mapping.pproc(d)) else { continue };
        if ps >= phys.nodes() || pd >= phys.nodes() || ps == pd {
            continue;
        }
        route.clear();
        phys.route_into(ps, pd, &mut route);
        for link in &route {
            if let Some(slot) = phys.link_index(*link).and_then(|i| loads.get_mut(i)) {
                *slot = slot.saturating_add(b);
            }
        }
    }
    loads
}

fn traffic(mapping: &Mapping, phys: &Topology, comm: &CommMatrix) -> Traffic {
    let loads = link_traffic(mapping, phys, comm);
    let mut hottest: Option<(usize, u64)> = None;
    for (i, &b) in loads.iter().enumerate() {
        if b > 0 && hottest.is_none_or(|(_, best)| b > best) {
            hottest = Some((i, b));
        }
    }
    let links = if hottest.is_some() { phys.links() } else { Vec::new() };
    Traffic {
        cost: weighted_cost(mapping, phys, comm),
        hottest: hottest.and_then(|(i, b)| links.get(i).map(|&l| (l, b))),
    }
}

/// Sorts evaluations best first. With processor times (task costs), first by the most
/// loaded processor's time. Then with traffic figures: by weighted cost, then largest
/// load, link congestion and largest dilation; without: by largest load, mean dilation,
/// largest dilation, link congestion. Ties keep the given order (a stable sort).
pub fn rank(evals: &mut [Evaluation]) {
    evals.sort_by(|a, b| {
        let key = |e: &Evaluation| {
            (
                e.times.as_ref().map_or(0, |t| t.max_time),
                e.traffic.as_ref().map_or(0, |t| t.cost),
                e.max_load(),
                // All evaluations share the virtual edge count, so the means compare as
                // their sums of hops do.
                OrderedMean(e.dilation_mean),
                e.dilation_max,
                e.congestion,
            )
        };
        key(a).cmp(&key(b))
    });
}

/// A mean dilation ordered by [`f64::total_cmp`].
#[derive(PartialEq)]
struct OrderedMean(f64);
impl Eq for OrderedMean {}
impl PartialOrd for OrderedMean {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for OrderedMean {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
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

    fn eval(name: &str, v: &Topology, p: &Topology, comm: Option<&CommMatrix>) -> Evaluation {
        let m = match builtin_mapping(name, v, p, 1) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        match evaluate(name, m, v, p, comm) {
            Ok(e) => e,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn ring_on_line_by_hand() {
        let (v, p) = (t("ring:4"), t("line:4"));
        // Ring traffic: each vproc sends 10 bytes to its successor.
        let comm = CommMatrix::from_triples((0..4).map(|i| (i, (i + 1) % 4, 10)));
        let id = eval("identity", &v, &p, Some(&comm));
        // Identity: three 1-hop pairs and the 3→0 pair at 3 hops: 10 × (1+1+1+3) = 60.
        let tr = id.traffic.clone();
        assert_eq!(tr.as_ref().map(|t| t.cost), Some(60));
        // Link 0→1 carries 0→1 only (10); link 1→0 carries 3→0's route through it (10)...
        // links 3→2, 2→1, 1→0 each carry 10 and 0→1, 1→2, 2→3 also 10; the first
        // (lowest index) maximum is link 0→1.
        assert_eq!(tr.and_then(|t| t.hottest), Some((Link { from: 0, to: 1 }, 10)));
        assert_eq!((id.dilation_max, id.congestion, id.max_load(), id.one_to_one), (3, 2, 1, true));
        // ring2line (0 2 3 1): pairs 0→1 at 2, 1→2 at 1, 2→3 at 2, 3→0 at 1: 10 × 6 = 60.
        let r2l = eval("ring2line", &v, &p, Some(&comm));
        assert_eq!(r2l.traffic.map(|t| t.cost), Some(60));
        assert_eq!(r2l.dilation_max, 2);
    }

    #[test]
    fn many_to_one_loads_and_imbalance() {
        let (v, p) = (t("ring:10"), t("line:4"));
        let e = eval("default", &v, &p, None);
        // 10 on 4: 3 3 2 2; imbalance = 3 / (10/4) = 1.2.
        assert_eq!(e.loads, vec![3, 3, 2, 2]);
        assert_eq!((e.max_load(), e.min_load(), e.one_to_one), (3, 2, false));
        assert!((e.imbalance() - 1.2).abs() < 1e-12);
    }

    #[test]
    fn validation_and_range_errors() {
        let (v, p) = (t("ring:4"), t("line:4"));
        let bad = Mapping::new(vec![0, 1, 2, 4]);
        let e = evaluate("x", bad, &v, &p, None).map(|_| ()).map_err(|e| e.to_string());
        assert!(e.is_err_and(|m| m.contains("virtual processor 3")));
        let comm = CommMatrix::from_triples([(0, 7, 1)]);
        let e = evaluate("identity", Mapping::new(vec![0, 1, 2, 3]), &v, &p, Some(&comm));
        assert_eq!(e.map(|_| ()), Err(MapperError::CommOutOfRange { src: 0, dst: 7, vprocs: 4 }));
    }

    #[test]
    fn ranking_prefers_lower_cost_then_input_order() {
        let (v, p) = (t("torus:8x8"), t("mesh:8x8"));
        let mut evals = vec![eval("identity", &v, &p, None), eval("torus2mesh", &v, &p, None)];
        rank(&mut evals);
        // Same load (1); torus2mesh has the lower mean dilation (identity's is 1.75).
        assert_eq!(evals[0].name, "torus2mesh");
        let mut same = vec![eval("identity", &v, &p, None), eval("default", &v, &p, None)];
        rank(&mut same);
        // default = identity when V = P: a tie, input order kept.
        assert_eq!(same[0].name, "identity");
    }
}
