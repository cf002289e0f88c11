//! Virtual-to-physical mappings: the table `virPhyMapTab` of seed 000 §4.2.4 (index =
//! virtual processor id, value = physical processor id) and the five built-in mappings
//! of that section's Figures 15–20, re-expressed here. User-defined mapping strings are
//! evaluated elsewhere (the expression engine) and produce a [`Mapping`] too.
//!
//! Fall-back rules: when a built-in mapping is not available for the given pair of
//! architectures it falls back to the default mapping and says so in
//! [`Mapping::warnings`] — identity and random when there are more virtual than physical
//! processors (seed 000 §4.2.4 and App. A 2.4.2), ring-to-line when the processor counts
//! differ, torus-to-mesh when the two grids differ in shape.
use super::{TopoKind, Topology};
use crate::rng::Rng;

/// A virtual-to-physical mapping table plus the warnings produced while building it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// `table[vproc]` is the physical processor that runs virtual processor `vproc`.
    pub table: Vec<u32>,
    /// Human-readable notes (fall-backs, mismatched kinds), in the order they arose.
    pub warnings: Vec<String>,
}

/// Errors of mappings and map files.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    /// Not one of the built-in mapping names.
    #[error("unknown mapping `{name}` (expected default, identity, random, ring2line or torus2mesh){}",
        crate::textio::did_you_mean(name, ["default", "identity", "random", "ring2line", "torus2mesh"]))]
    UnknownMapping { name: String },
    /// The table does not have one entry per virtual processor.
    #[error("mapping has {found} entries but the virtual architecture has {expected} processors")]
    WrongLength { expected: u32, found: usize },
    /// A table entry names a physical processor that does not exist.
    #[error("virtual processor {vproc} is mapped to physical processor {pproc}, but there are only {count}")]
    PprocOutOfRange { vproc: u32, pproc: u32, count: u32 },
    /// A map-file line that is neither a header, an entry, a comment nor blank.
    #[error("map file line {line}: {message}: `{text}`")]
    Syntax { line: usize, message: String, text: String },
    /// A number in a map file that does not parse.
    #[error("map file line {line}: `{text}` is not a processor number")]
    BadNumber { line: usize, text: String },
    /// A map-file topology that does not parse.
    #[error("map file line {line}: {source}")]
    BadTopology { line: usize, source: super::TopoError },
    /// A header missing before the first entry.
    #[error("map file: the `{keyword}` header line must come before the first entry")]
    MissingHeader { keyword: &'static str },
    /// A header given twice.
    #[error("map file line {line}: second `{keyword}` header")]
    DuplicateHeader { line: usize, keyword: &'static str },
    /// A virtual processor listed twice.
    #[error("map file line {line}: virtual processor {vproc} already mapped on line {first_line}")]
    DuplicateVproc { line: usize, vproc: u32, first_line: usize },
    /// A virtual processor id beyond the virtual architecture.
    #[error("map file line {line}: virtual processor {vproc} out of range (the virtual architecture has {count})")]
    VprocOutOfRange { line: usize, vproc: u32, count: u32 },
    /// A physical processor id beyond the physical architecture.
    #[error("map file line {line}: physical processor {pproc} out of range (the physical architecture has {count})")]
    PprocOutOfRangeAt { line: usize, pproc: u32, count: u32 },
    /// A virtual processor with no entry.
    #[error("map file: virtual processor {vproc} is not mapped")]
    MissingVproc { vproc: u32 },
    /// A mapping string that does not parse or does not fit the topologies (the message is
    /// rendered with the column and a caret).
    #[error("{rendered}")]
    Expr { rendered: String },
    /// A mapping string that fails while evaluating one virtual processor.
    #[error("virtual processor {vproc} {coords}: {rendered}")]
    Eval { vproc: u32, coords: String, rendered: String },
    /// A mapping string whose result is outside the physical architecture.
    #[error("virtual processor {vproc} {coords} is mapped to {result}, outside the physical architecture {phys}")]
    OutsidePhysical { vproc: u32, coords: String, result: String, phys: String },
}

impl Mapping {
    /// A mapping with no warnings.
    pub fn new(table: Vec<u32>) -> Mapping {
        Mapping { table, warnings: Vec::new() }
    }

    /// The physical processor of `vproc`, or `None` beyond the table.
    pub fn pproc(&self, vproc: u32) -> Option<u32> {
        self.table.get(vproc as usize).copied()
    }

    /// Checks that the table has one entry per processor of `virt` and that every entry
    /// is a processor of `phys`.
    pub fn validate(&self, virt: &Topology, phys: &Topology) -> Result<(), MapError> {
        if self.table.len() != virt.nodes() as usize {
            return Err(MapError::WrongLength { expected: virt.nodes(), found: self.table.len() });
        }
        let count = phys.nodes();
        match self.table.iter().enumerate().find(|(_, &p)| p >= count) {
            Some((v, &pproc)) => Err(MapError::PprocOutOfRange { vproc: v as u32, pproc, count }),
            None => Ok(()),
        }
    }

    /// True when no two virtual processors share a physical one.
    pub fn is_one_to_one(&self) -> bool {
        let mut seen = self.table.clone();
        seen.sort_unstable();
        seen.windows(2).all(|w| w[0] != w[1])
    }
}

/// The built-in mappings of seed 000 §4.2.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BuiltinMapping {
    /// Blocks of consecutive virtual processors per physical processor (Figure 17).
    Default,
    /// Virtual processor i on physical processor i (Figure 15).
    Identity,
    /// A seeded random permutation (Figure 16).
    Random,
    /// A ring folded onto a line (Figure 18, Table 3).
    Ring2Line,
    /// Each dimension of a torus folded onto a mesh (Figure 20).
    Torus2Mesh,
}

impl BuiltinMapping {
    /// All built-ins, in the seed's order of presentation after the default.
    pub const ALL: [BuiltinMapping; 5] = [
        BuiltinMapping::Default,
        BuiltinMapping::Identity,
        BuiltinMapping::Random,
        BuiltinMapping::Ring2Line,
        BuiltinMapping::Torus2Mesh,
    ];

    /// The name used on command lines (`--mapping NAME`).
    pub fn name(self) -> &'static str {
        match self {
            BuiltinMapping::Default => "default",
            BuiltinMapping::Identity => "identity",
            BuiltinMapping::Random => "random",
            BuiltinMapping::Ring2Line => "ring2line",
            BuiltinMapping::Torus2Mesh => "torus2mesh",
        }
    }

    /// The built-in called `name`, if any.
    pub fn from_name(name: &str) -> Option<BuiltinMapping> {
        BuiltinMapping::ALL.iter().copied().find(|m| m.name() == name)
    }

    /// Builds this mapping of `virt` onto `phys`; `seed` is used by `random` only.
    pub fn build(self, virt: &Topology, phys: &Topology, seed: u64) -> Mapping {
        let (nv, np) = (virt.nodes(), phys.nodes());
        match self {
            BuiltinMapping::Default => default_mapping(nv, np),
            BuiltinMapping::Identity | BuiltinMapping::Random if nv > np => {
                fall_back(self, format!("{nv} virtual processors exceed {np} physical ones"), nv, np)
            }
            BuiltinMapping::Identity => Mapping::new((0..nv).collect()),
            BuiltinMapping::Random => random_mapping(nv, seed),
            BuiltinMapping::Ring2Line => {
                if nv != np {
                    return fall_back(
                        self,
                        format!("it needs as many physical processors ({np}) as virtual ones ({nv})"),
                        nv,
                        np,
                    );
                }
                let mut m = Mapping::new((0..nv).map(|v| jump(v, np)).collect());
                let line = |t: &Topology| t.kind() == TopoKind::Line && t.graph().is_none();
                if !(matches!(virt.kind(), TopoKind::Ring | TopoKind::Line) && line(phys)) {
                    m.warnings.push(format!("ring2line is designed for a ring on a line, not {virt} on {phys}"));
                }
                m
            }
            BuiltinMapping::Torus2Mesh => {
                if virt.shape() != phys.shape() {
                    return fall_back(self, format!("the grids {virt} and {phys} differ in shape"), nv, np);
                }
                let table = (0..nv)
                    .map(|v| {
                        let folded: Vec<u32> =
                            virt.coords(v).iter().zip(phys.shape()).map(|(&x, &n)| jump(x, n)).collect();
                        // jump is a permutation of 0..n, so the coordinates are in range.
                        phys.id_of(&folded).unwrap_or(v)
                    })
                    .collect();
                let mut m = Mapping::new(table);
                if !(matches!(virt.kind(), TopoKind::Torus | TopoKind::Ring)
                    && matches!(phys.kind(), TopoKind::Mesh | TopoKind::Line)
                    && phys.graph().is_none())
                {
                    m.warnings.push(format!("torus2mesh is designed for a torus on a mesh, not {virt} on {phys}"));
                }
                m
            }
        }
    }
}

/// The built-in mapping called `name` of `virt` onto `phys` (see [`BuiltinMapping`]);
/// `seed` seeds `random`.
pub fn builtin_mapping(name: &str, virt: &Topology, phys: &Topology, seed: u64) -> Result<Mapping, MapError> {
    match BuiltinMapping::from_name(name) {
        Some(m) => Ok(m.build(virt, phys, seed)),
        None => Err(MapError::UnknownMapping { name: name.to_string() }),
    }
}

fn fall_back(which: BuiltinMapping, why: String, nv: u32, np: u32) -> Mapping {
    let mut m = default_mapping(nv, np);
    m.warnings.insert(0, format!("{} mapping not available ({why}); using the default mapping", which.name()));
    m
}

/// Default mapping (seed 000 Figure 17): with no more virtual than physical processors,
/// the identity; otherwise consecutive blocks of virtual processors, one block per
/// physical processor in order, the first `nv % np` blocks one processor larger.
fn default_mapping(nv: u32, np: u32) -> Mapping {
    if nv <= np {
        return Mapping::new((0..nv).collect());
    }
    let (block, remains) = (nv / np, nv % np);
    let mut table = Vec::with_capacity(nv as usize);
    for p in 0..np {
        let size = block + u32::from(p < remains);
        table.extend(std::iter::repeat_n(p, size as usize));
    }
    Mapping::new(table)
}

/// Random mapping (seed 000 Figure 16): start from the identity and shuffle. As in the
/// figure, whose swapping loop never touches entry 0, virtual processor 0 stays on
/// physical processor 0; the other entries are shuffled uniformly (Fisher–Yates) with
/// [`Rng`] seeded by `seed`, so a seed always gives the same table.
fn random_mapping(nv: u32, seed: u64) -> Mapping {
    let mut table: Vec<u32> = (0..nv).collect();
    let mut rng = Rng::new(seed);
    for i in (2..nv as usize).rev() {
        // j uniform in 1..=i.
        let j = 1 + rng.below(i as u64) as usize;
        table.swap(i, j);
    }
    Mapping::new(table)
}

/// The seed's `jump` (Figure 18): folds position `x` of a ring of `n` onto a line so that
/// ring neighbours land at most 2 apart — the first half goes to the even positions
/// outwards, the second half comes back on the odd ones:
/// `x <= (n-1)/2 ? 2x : 2(n-x)-1`. A permutation of `0..n`; `x` must be below `n`
/// (larger values give 0 rather than overflowing).
pub fn jump(x: u32, n: u32) -> u32 {
    if x <= n.saturating_sub(1) / 2 {
        2 * x
    } else {
        (2 * n.saturating_sub(x)).saturating_sub(1)
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

    fn build(name: &str, v: &str, p: &str, seed: u64) -> Mapping {
        match builtin_mapping(name, &t(v), &t(p), seed) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn ring2line_is_table_3() {
        // Seed 000 Table 3: virtual processor 0..7 → physical 0 2 4 6 7 5 3 1.
        let m = build("ring2line", "ring:8", "line:8", 0);
        assert_eq!(m.table, vec![0, 2, 4, 6, 7, 5, 3, 1]);
        assert!(m.warnings.is_empty());
        // Ring neighbours (including the wrap 7–0) are at most 2 apart on the line.
        let line = t("line:8");
        for (a, b) in t("ring:8").edges() {
            assert!(line.distance(m.table[a as usize], m.table[b as usize]) <= 2);
        }
        // Odd sizes too: ring 5 → 0 2 4 3 1, a bijection.
        assert_eq!(build("ring2line", "ring:5", "line:5", 0).table, vec![0, 2, 4, 3, 1]);
    }

    #[test]
    fn torus2mesh_folds_each_dimension() {
        let (v, p) = (t("torus:8x8"), t("mesh:8x8"));
        let m = build("torus2mesh", "torus:8x8", "mesh:8x8", 0);
        assert!(m.warnings.is_empty());
        assert!(m.is_one_to_one());
        assert_eq!(m.table.len(), 64);
        // (1, 7) → (jump(1)=2, jump(7)=1) → 2*8+1 = 17.
        assert_eq!(m.table[8 + 7], 17);
        for (a, b) in v.edges() {
            assert!(p.distance(m.table[a as usize], m.table[b as usize]) <= 2);
        }
        // Shapes differ: default mapping with a warning.
        let f = build("torus2mesh", "torus:4x8", "mesh:8x4", 0);
        assert_eq!(f.table, (0..32).collect::<Vec<_>>());
        assert!(f.warnings[0].contains("torus2mesh") && f.warnings[0].contains("default"));
    }

    #[test]
    fn identity_and_its_fall_back() {
        let m = build("identity", "torus:4x4", "mesh:8x8", 0);
        assert_eq!(m.table, (0..16).collect::<Vec<_>>());
        assert!(m.warnings.is_empty());
        // 32 virtual on 16 physical: default blocks of 2, with a warning.
        let f = build("identity", "ring:32", "mesh:4x4", 0);
        assert_eq!(f.table, (0..32).map(|v| v / 2).collect::<Vec<_>>());
        assert_eq!(f.warnings.len(), 1);
        assert!(f.warnings[0].contains("32 virtual processors exceed 16"), "{:?}", f.warnings);
        let r = build("random", "ring:32", "mesh:4x4", 9);
        assert_eq!(r.table, f.table);
        assert!(r.warnings[0].starts_with("random mapping not available"));
    }

    #[test]
    fn default_mapping_blocks() {
        // Equal counts: identity (seed Table 4 relies on it).
        assert_eq!(build("default", "mesh:4x4", "mesh:4x4", 0).table, (0..16).collect::<Vec<_>>());
        // 16x16 = 256 virtual on 4x4 = 16 physical: 256/16 = 16 consecutive each.
        let m = build("default", "mesh:16x16", "mesh:4x4", 0);
        assert_eq!(m.table, (0..256).map(|v| v / 16).collect::<Vec<_>>());
        // 10 on 4: 10 = 2*4 + 2, so physical 0 and 1 get 3, 2 and 3 get 2.
        assert_eq!(build("default", "ring:10", "ring:4", 0).table, vec![0, 0, 0, 1, 1, 1, 2, 2, 3, 3]);
    }

    #[test]
    fn random_is_a_seeded_permutation() {
        let a = build("random", "torus:8x8", "mesh:8x8", 1);
        let b = build("random", "torus:8x8", "mesh:8x8", 1);
        let c = build("random", "torus:8x8", "mesh:8x8", 2);
        assert_eq!(a, b);
        assert_ne!(a.table, c.table);
        assert!(a.is_one_to_one());
        let mut sorted = a.table.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..64).collect::<Vec<_>>());
        assert_eq!(a.table[0], 0);
        assert_ne!(a.table, (0..64).collect::<Vec<_>>());
        // Fewer virtual than physical: a permutation of the first 4 physical processors.
        let small = build("random", "ring:4", "mesh:4x4", 5);
        let mut s = small.table.clone();
        s.sort_unstable();
        assert_eq!(s, vec![0, 1, 2, 3]);
    }

    #[test]
    fn unknown_name_and_validation() {
        assert_eq!(
            builtin_mapping("snake", &t("ring:4"), &t("ring:4"), 0),
            Err(MapError::UnknownMapping { name: "snake".into() })
        );
        let m = Mapping::new(vec![0, 1, 4]);
        assert_eq!(
            m.validate(&t("ring:3"), &t("ring:4")),
            Err(MapError::PprocOutOfRange { vproc: 2, pproc: 4, count: 4 })
        );
        assert_eq!(m.validate(&t("ring:4"), &t("ring:8")), Err(MapError::WrongLength { expected: 4, found: 3 }));
        assert_eq!(m.validate(&t("ring:3"), &t("ring:5")), Ok(()));
    }
}
