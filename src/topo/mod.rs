//! Topologies of virtual and physical architectures: their `KIND:SIZES` names, processor
//! coordinates, neighbours, hop distances and routes ([`route`]), the built-in
//! virtual-to-physical mappings ([`mapping`]), the quality metrics `cpmap` reports
//! ([`metrics`]) and the map file `cpmap` writes and `cpss --map-file` reads
//! ([`mapfile`]). Seed 000 §4.2.2 (network topology), §4.2.4 (mapping), App. A 2.4.
//!
//! Depends only on [`crate::vcode`] (for [`TopoKind`] and [`ArchDecl`]) and [`crate::rng`];
//! the simulator and `cpmap` depend on it, never the other way round.
//!
//! Processor ids are absolute ("absolute IDs" in the seed): `0..nodes()`. Coordinates are
//! row-major, as C arrays and the seed's `cart_ID`/`abs_ID`: on `mesh:R×C` node
//! `(r, c)` has id `r*C + c`, so the **last** coordinate varies fastest.
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub use crate::vcode::{ArchDecl, TopoKind};

pub mod graph;
pub mod mapfile;
pub mod mapping;
pub mod metrics;
pub mod route;
pub use route::{Step, Walk};
pub mod userdef;

pub use graph::{Graph, GraphError, MAX_GRAPH_NODES};
pub use mapfile::MapFile;
pub use mapping::{builtin_mapping, BuiltinMapping, MapError, Mapping};
pub use metrics::{dilation, link_congestion, link_loads, load};
pub use userdef::{mapping_from_expr, resolve_mapping};

/// Largest number of processors a topology may have. Far beyond any simulated machine,
/// small enough that every id and link count fits comfortably in `u32`/`usize`
/// arithmetic.
pub const MAX_NODES: u64 = 1 << 24;

/// Most processors of a `fullconnect` (its N(N-1) directed links: about 16.8 million at
/// 4096, each with its own state in a contention network).
pub const MAX_FULLCONNECT: u64 = 1 << 12;

/// What is wrong with a topology name or declaration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TopoError {
    /// No `:` between kind and sizes.
    #[error("topology `{input}`: expected KIND:SIZES such as mesh:8x8, torus:4x4x4, ring:16 or hypercube:6")]
    MissingColon { input: String },
    /// The kind is not one of the seven known ones.
    #[error("topology `{input}`: unknown kind `{kind}` (expected line, ring, mesh, torus, hypercube, fullconnect or shared){}",
        crate::textio::did_you_mean(kind, ["line", "ring", "mesh", "torus", "hypercube", "fullconnect", "shared"]))]
    UnknownKind { input: String, kind: String },
    /// A size is not a number.
    #[error("topology `{input}`: size `{text}` is not a non-negative integer")]
    BadSize { input: String, text: String },
    /// A size is zero where a processor count is needed.
    #[error("topology `{input}`: every size must be at least 1")]
    ZeroSize { input: String },
    /// Wrong number of sizes for the kind.
    #[error("topology `{input}`: {kind} takes {expected}, found {found} size(s)")]
    DimCount { input: String, kind: &'static str, expected: &'static str, found: usize },
    /// More processors than [`MAX_NODES`].
    #[error("topology `{input}`: more than {max} processors", max = MAX_NODES)]
    TooLarge { input: String },
    /// A fullconnect of more than [`MAX_FULLCONNECT`] processors.
    #[error("topology `{input}`: a fullconnect of more than {max} processors (it has a link for every pair; use shared for a bus)", max = MAX_FULLCONNECT)]
    TooDense { input: String },
    /// A `graph:N:EDGES` name whose edges do not make a usable network.
    #[error("topology `{input}`: {reason}")]
    Graph { input: String, reason: String },
}

/// A directed link between two adjacent processors, crossed from `from` to `to`.
///
/// On a `shared` topology every pair is joined by the one bus; a route there is the
/// single link `a → b`, and all such links have index 0. [`Link::BUS`] stands for the
/// bus itself in [`Topology::links`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Link {
    /// The processor the message leaves.
    pub from: u32,
    /// The processor the message enters.
    pub to: u32,
}

impl Link {
    /// The shared bus as listed by [`Topology::links`] on a `shared` topology.
    pub const BUS: Link = Link { from: u32::MAX, to: u32::MAX };
}

impl fmt::Display for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Link::BUS {
            f.write_str("bus")
        } else {
            write!(f, "{}->{}", self.from, self.to)
        }
    }
}

/// A validated topology: kind and sizes, with the derived node count and row-major
/// strides cached so that [`Topology::distance`] allocates nothing.
///
/// `dims` holds the sizes as written: one per dimension for `mesh`/`torus`, the node
/// count for `line`/`ring`/`fullconnect`/`shared`, and the dimension `k` (2^k nodes) for
/// `hypercube`. Serialized as its `KIND:SIZES` string.
///
/// A **graph** topology ([`Topology::from_graph`], machine description files) is any
/// connected network given as a link list ([`Graph`], whose documentation states the
/// routing rule). It has one coordinate axis (a processor's coordinate is its id), so
/// mappings and `$1` work on it; [`Topology::kind`] then reports `line` for the sake of
/// that one axis only: test [`Topology::graph`] before relying on the kind. Its name is
/// `graph:N:EDGES` with the edges as `a-b` separated by commas (`graph:3:0-1,1-2`), which
/// [`Topology::parse`] reads back.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Topology {
    kind: TopoKind,
    dims: Vec<u32>,
    /// The coordinate axes: `dims` for grids and 1-D kinds, `[2; k]` for a hypercube.
    shape: Vec<u32>,
    /// `strides[d]` = product of `shape[d+1..]`.
    strides: Vec<u32>,
    nodes: u32,
    /// The link list of a graph topology.
    graph: Option<std::sync::Arc<Graph>>,
}

impl Default for Topology {
    /// The seed's default physical architecture: a 4×4 mesh (seed 000 App. A 2.4.1).
    fn default() -> Topology {
        Topology::from_validated(TopoKind::Mesh, vec![4, 4], 16)
    }
}

impl Topology {
    /// A topology of `kind` with sizes `dims` (see the type's documentation), checked.
    pub fn new(kind: TopoKind, dims: Vec<u32>) -> Result<Topology, TopoError> {
        let input = || display_name(kind, &dims);
        let found = dims.len();
        match kind {
            TopoKind::Mesh | TopoKind::Torus => {
                if found == 0 {
                    return Err(TopoError::DimCount {
                        input: input(),
                        kind: kind.name(),
                        expected: "one or more sizes",
                        found,
                    });
                }
            }
            _ => {
                if found != 1 {
                    let expected = if kind == TopoKind::Hypercube { "one dimension k" } else { "one processor count" };
                    return Err(TopoError::DimCount { input: input(), kind: kind.name(), expected, found });
                }
            }
        }
        let nodes: u64 = if kind == TopoKind::Hypercube {
            let k = dims[0];
            if u64::from(k) >= 63 || (1u64 << k) > MAX_NODES {
                return Err(TopoError::TooLarge { input: input() });
            }
            1u64 << k
        } else {
            if dims.contains(&0) {
                return Err(TopoError::ZeroSize { input: input() });
            }
            let mut n: u64 = 1;
            for &d in &dims {
                n = n.saturating_mul(u64::from(d));
                if n > MAX_NODES {
                    return Err(TopoError::TooLarge { input: input() });
                }
            }
            n
        };
        // Every processor of a fullconnect is linked to every other: the network holds
        // N(N-1) directed links, so N is bounded by MAX_FULLCONNECT, not MAX_NODES.
        if kind == TopoKind::FullConnect && nodes > MAX_FULLCONNECT {
            return Err(TopoError::TooDense { input: input() });
        }
        Ok(Topology::from_validated(kind, dims, nodes as u32))
    }

    fn from_validated(kind: TopoKind, dims: Vec<u32>, nodes: u32) -> Topology {
        let shape = if kind == TopoKind::Hypercube { vec![2; dims[0] as usize] } else { dims.clone() };
        let mut strides = vec![1u32; shape.len()];
        for d in (0..shape.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * shape[d + 1];
        }
        Topology { kind, dims, shape, strides, nodes, graph: None }
    }

    /// The topology of an irregular network (see the type's documentation).
    pub fn from_graph(graph: Graph) -> Topology {
        let nodes = graph.nodes();
        let mut t = Topology::from_validated(TopoKind::Line, vec![nodes], nodes);
        t.graph = Some(std::sync::Arc::new(graph));
        t
    }

    /// The link list, for a graph topology.
    pub fn graph(&self) -> Option<&Graph> {
        self.graph.as_deref()
    }

    /// Parses the edge part `a-b,c-d` of a `graph:N:EDGES` name.
    fn parse_graph(input: &str, rest: &str) -> Result<Topology, TopoError> {
        let bad = |reason: String| TopoError::Graph { input: input.to_string(), reason };
        let (count, edges_text) = rest.split_once(':').unwrap_or((rest, ""));
        let nodes: u32 =
            count.trim().parse().map_err(|_| bad(format!("`{}` is not a processor count", count.trim())))?;
        let mut edges = Vec::new();
        for part in edges_text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let pair = part.split_once('-').and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)));
            edges.push(pair.ok_or_else(|| bad(format!("`{part}` is not an edge `a-b`")))?);
        }
        let graph = Graph::new(nodes, &edges).map_err(|e| bad(e.to_string()))?;
        Ok(Topology::from_graph(graph))
    }

    /// Parses `KIND:SIZES`: `mesh:8x8`, `torus:4x4x4`, `ring:256`, `line:16`,
    /// `hypercube:6` (2^6 nodes), `fullconnect:32`, `shared:8`. The kind is
    /// case-insensitive; sizes are separated by `x`.
    pub fn parse(s: &str) -> Result<Topology, TopoError> {
        let input = s.trim();
        let Some((kind_text, sizes)) = input.split_once(':') else {
            return Err(TopoError::MissingColon { input: input.to_string() });
        };
        let kind_text = kind_text.trim().to_ascii_lowercase();
        if kind_text == "graph" {
            return Topology::parse_graph(input, sizes);
        }
        let Some(kind) = TopoKind::from_name(&kind_text) else {
            return Err(TopoError::UnknownKind { input: input.to_string(), kind: kind_text });
        };
        let mut dims = Vec::new();
        for part in sizes.split(['x', 'X']) {
            let part = part.trim();
            match part.parse::<u32>() {
                Ok(v) => dims.push(v),
                Err(_) => return Err(TopoError::BadSize { input: input.to_string(), text: part.to_string() }),
            }
        }
        Topology::new(kind, dims).map_err(|e| with_input(e, input))
    }

    /// The topology of a CPC `arch`/`phyArch` declaration.
    pub fn from_arch(arch: &ArchDecl) -> Result<Topology, TopoError> {
        Topology::new(arch.kind, arch.dims.clone())
    }

    /// The kind.
    pub fn kind(&self) -> TopoKind {
        self.kind
    }

    /// The sizes as written in the name (for a hypercube, `[k]`).
    pub fn dims(&self) -> &[u32] {
        &self.dims
    }

    /// The size of each coordinate axis: `dims()` except for a hypercube, whose `k`
    /// axes have size 2 (a node's coordinates are its id's bits, most significant first).
    pub fn shape(&self) -> &[u32] {
        &self.shape
    }

    /// The number of processors.
    pub fn nodes(&self) -> u32 {
        self.nodes
    }

    /// True for kinds whose coordinates wrap around (`ring`, `torus`).
    fn wraps(&self) -> bool {
        self.graph.is_none() && matches!(self.kind, TopoKind::Ring | TopoKind::Torus)
    }

    /// Coordinate `d` of node `id` (row-major).
    fn coord(&self, id: u32, d: usize) -> u32 {
        (id / self.strides[d]) % self.shape[d]
    }

    /// The coordinates of processor `id` (row-major, one per [`Topology::shape`] axis).
    /// `id` must be below [`Topology::nodes`].
    pub fn coords(&self, id: u32) -> Vec<u32> {
        debug_assert!(id < self.nodes);
        (0..self.shape.len()).map(|d| self.coord(id, d)).collect()
    }

    /// The id of the processor at `coords`, or `None` when the number of coordinates is
    /// wrong or one is out of range (coordinates may come from a user's mapping string).
    pub fn id_of(&self, coords: &[u32]) -> Option<u32> {
        if coords.len() != self.shape.len() {
            return None;
        }
        let mut id = 0u32;
        for (&c, &n) in coords.iter().zip(&self.shape) {
            if c >= n {
                return None;
            }
            id = id * n + c;
        }
        Some(id)
    }

    /// The processors one hop from `id`, sorted by id, without duplicates (on a ring of 2
    /// both directions reach the same node). On `fullconnect` and `shared` every other
    /// processor is a neighbour.
    pub fn neighbours(&self, id: u32) -> Vec<u32> {
        if let Some(g) = &self.graph {
            return g.neighbours(id).to_vec();
        }
        let mut out = Vec::new();
        match self.kind {
            TopoKind::FullConnect | TopoKind::Shared => out.extend((0..self.nodes).filter(|&v| v != id)),
            TopoKind::Hypercube => {
                out.extend((0..self.shape.len()).map(|b| id ^ (1 << b)));
                out.sort_unstable();
            }
            _ => {
                self.grid_neighbours(id, |v| out.push(v));
                out.sort_unstable();
            }
        }
        out
    }

    /// Calls `f` once for each distinct grid neighbour of `id`, dimension by dimension.
    fn grid_neighbours(&self, id: u32, mut f: impl FnMut(u32)) {
        let wraps = self.wraps();
        for d in 0..self.shape.len() {
            let (n, s, c) = (self.shape[d], self.strides[d], self.coord(id, d));
            if n == 1 {
                continue;
            }
            if c > 0 {
                f(id - s);
            } else if wraps && n > 2 {
                f(id + (n - 1) * s);
            }
            if c + 1 < n {
                f(id + s);
            } else if wraps && n > 2 {
                f(id - (n - 1) * s);
            }
        }
    }

    /// The number of neighbours of `id`.
    pub fn degree(&self, id: u32) -> u32 {
        if let Some(g) = &self.graph {
            return g.neighbours(id).len() as u32;
        }
        match self.kind {
            TopoKind::FullConnect | TopoKind::Shared => self.nodes - 1,
            TopoKind::Hypercube => self.shape.len() as u32,
            _ => {
                let mut k = 0;
                self.grid_neighbours(id, |_| k += 1);
                k
            }
        }
    }

    /// Every pair of neighbours `(u, v)` with `u < v`, sorted: the edges of the topology
    /// seen as an undirected graph (a virtual architecture's communication pattern).
    pub fn edges(&self) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for u in 0..self.nodes {
            out.extend(self.neighbours(u).into_iter().filter(|&v| v > u).map(|v| (u, v)));
        }
        out
    }
}

fn display_name(kind: TopoKind, dims: &[u32]) -> String {
    let sizes: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    format!("{}:{}", kind.name(), sizes.join("x"))
}

/// Replaces the rebuilt name in an error from [`Topology::new`] by what the user typed.
fn with_input(e: TopoError, typed: &str) -> TopoError {
    let input = typed.to_string();
    match e {
        TopoError::MissingColon { .. } => TopoError::MissingColon { input },
        TopoError::UnknownKind { kind, .. } => TopoError::UnknownKind { input, kind },
        TopoError::BadSize { text, .. } => TopoError::BadSize { input, text },
        TopoError::ZeroSize { .. } => TopoError::ZeroSize { input },
        TopoError::DimCount { kind, expected, found, .. } => TopoError::DimCount { input, kind, expected, found },
        TopoError::TooLarge { .. } => TopoError::TooLarge { input },
        TopoError::TooDense { .. } => TopoError::TooDense { input },
        TopoError::Graph { reason, .. } => TopoError::Graph { input, reason },
    }
}

impl fmt::Display for Topology {
    /// The `KIND:SIZES` form that [`Topology::parse`] reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(g) = &self.graph {
            let edges: Vec<String> = g.edges().iter().map(|(a, b)| format!("{a}-{b}")).collect();
            return write!(f, "graph:{}:{}", g.nodes(), edges.join(","));
        }
        f.write_str(&display_name(self.kind, &self.dims))
    }
}

impl FromStr for Topology {
    type Err = TopoError;
    fn from_str(s: &str) -> Result<Topology, TopoError> {
        Topology::parse(s)
    }
}

impl TryFrom<String> for Topology {
    type Error = TopoError;
    fn try_from(s: String) -> Result<Topology, TopoError> {
        Topology::parse(&s)
    }
}

impl From<Topology> for String {
    fn from(t: Topology) -> String {
        t.to_string()
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

    #[test]
    fn parse_and_display_round_trip() {
        for s in [
            "mesh:8x8",
            "torus:16x16",
            "ring:256",
            "line:16",
            "hypercube:6",
            "fullconnect:32",
            "shared:8",
            "mesh:4x4x4",
        ] {
            assert_eq!(t(s).to_string(), s);
        }
        assert_eq!(t(" Mesh:2X3 ").to_string(), "mesh:2x3");
    }

    #[test]
    fn node_counts() {
        // Products of the sizes; a hypercube of dimension 6 has 2^6 = 64 nodes.
        assert_eq!(t("mesh:8x8").nodes(), 64);
        assert_eq!(t("mesh:4x4x4").nodes(), 64);
        assert_eq!(t("hypercube:6").nodes(), 64);
        assert_eq!(t("hypercube:0").nodes(), 1);
        assert_eq!(t("ring:256").nodes(), 256);
        assert_eq!(Topology::default().to_string(), "mesh:4x4");
    }

    #[test]
    fn parse_errors_name_the_problem() {
        assert!(matches!(Topology::parse("mesh8x8"), Err(TopoError::MissingColon { .. })));
        assert!(matches!(Topology::parse("grid:8x8"), Err(TopoError::UnknownKind { kind, .. }) if kind == "grid"));
        assert!(matches!(Topology::parse("mesh:8xa"), Err(TopoError::BadSize { text, .. }) if text == "a"));
        assert!(matches!(Topology::parse("mesh:8x"), Err(TopoError::BadSize { text, .. }) if text.is_empty()));
        assert!(matches!(Topology::parse("mesh:8x0"), Err(TopoError::ZeroSize { .. })));
        assert!(matches!(Topology::parse("ring:4x4"), Err(TopoError::DimCount { found: 2, .. })));
        assert!(matches!(Topology::parse("hypercube:25"), Err(TopoError::TooLarge { .. })));
        assert!(matches!(Topology::parse("mesh:65536x65536"), Err(TopoError::TooLarge { .. })));
        let e = Topology::parse("ring:4x4").map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("ring:4x4") && e.contains("one processor count"), "{e}");
    }

    #[test]
    fn from_arch_declaration() {
        let arch = ArchDecl { kind: TopoKind::Torus, name: "T".into(), dims: vec![8, 8] };
        assert_eq!(Topology::from_arch(&arch), Ok(t("torus:8x8")));
    }

    #[test]
    fn serde_uses_the_name() {
        let topo = t("torus:4x2");
        let bytes = postcard::to_allocvec(&topo).map_err(|e| e.to_string());
        let back: Result<Topology, String> =
            bytes.and_then(|b| postcard::from_bytes(&b).map_err(|e: postcard::Error| e.to_string()));
        assert_eq!(back, Ok(topo));
    }

    #[test]
    fn coords_round_trip_row_major() {
        let m = t("mesh:3x4x5");
        // id = (c0*4 + c1)*5 + c2, as in C arrays: (1,2,3) → (1*4+2)*5+3 = 33.
        assert_eq!(m.coords(33), vec![1, 2, 3]);
        assert_eq!(m.id_of(&[1, 2, 3]), Some(33));
        for id in 0..m.nodes() {
            assert_eq!(m.id_of(&m.coords(id)), Some(id));
        }
        assert_eq!(m.id_of(&[3, 0, 0]), None);
        assert_eq!(m.id_of(&[0, 0]), None);
        // Hypercube coordinates are the id's bits, most significant first: 6 = 110.
        let h = t("hypercube:3");
        assert_eq!(h.shape(), &[2, 2, 2]);
        assert_eq!(h.coords(6), vec![1, 1, 0]);
        assert_eq!(h.id_of(&[1, 1, 0]), Some(6));
    }

    #[test]
    fn neighbours_by_hand() {
        // mesh 3x3, centre 4 has 1, 3, 5, 7; corner 0 has 1 and 3.
        let m = t("mesh:3x3");
        assert_eq!(m.neighbours(4), vec![1, 3, 5, 7]);
        assert_eq!(m.neighbours(0), vec![1, 3]);
        // torus 3x3: corner 0 also wraps to 2 (row end) and 6 (column end).
        assert_eq!(t("torus:3x3").neighbours(0), vec![1, 2, 3, 6]);
        // ring 2: both directions reach node 1, listed once.
        assert_eq!(t("ring:2").neighbours(0), vec![1]);
        assert_eq!(t("ring:8").neighbours(0), vec![1, 7]);
        assert_eq!(t("line:8").neighbours(7), vec![6]);
        // hypercube 3: 5 = 101 flips to 100, 111, 001.
        assert_eq!(t("hypercube:3").neighbours(5), vec![1, 4, 7]);
        assert_eq!(t("fullconnect:4").neighbours(2), vec![0, 1, 3]);
        assert_eq!(t("shared:3").neighbours(0), vec![1, 2]);
        for topo in ["mesh:3x4", "torus:2x3", "hypercube:4", "ring:5"] {
            let topo = t(topo);
            for id in 0..topo.nodes() {
                assert_eq!(topo.degree(id) as usize, topo.neighbours(id).len());
            }
        }
    }

    #[test]
    fn edges_count() {
        // mesh R×C has R(C-1) + C(R-1) edges: 3*3 + 4*2 = 17 for 3×4.
        assert_eq!(t("mesh:3x4").edges().len(), 17);
        // torus 4x4: every node has degree 4, 16*4/2 = 32.
        assert_eq!(t("torus:4x4").edges().len(), 32);
        assert_eq!(t("ring:8").edges().len(), 8);
        // hypercube k: k 2^(k-1) = 3*4 = 12.
        assert_eq!(t("hypercube:3").edges().len(), 12);
        assert_eq!(t("fullconnect:5").edges().len(), 10);
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The parser never panics and whatever it accepts prints back to a name that
        /// parses to the same topology.
        #[test]
        fn parse_never_panics(text in "(mesh|torus|ring|line|hypercube|fullconnect|shared|[a-zA-Z]{0,6}):?[0-9xX ]{0,10}") {
            if let Ok(t) = Topology::parse(&text) {
                prop_assert_eq!(Topology::parse(&t.to_string()), Ok(t));
            }
        }
    }
}
