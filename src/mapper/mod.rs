//! `cpmap`'s library: evaluate virtual-to-physical mappings and search for better ones
//! (SPEC §7; seed 000 §4.2.4, seed 001 §8 on static mapping).
//!
//! * [`comm`] — the communication matrix (bytes per pair of virtual processors), from its
//!   CSV form or from a run record.
//! * [`eval`] — the quality of one mapping (load, dilation, link congestion, weighted
//!   hop cost, most loaded link) and the ranking of several.
//! * [`mod@search`] — greedy and simulated-annealing search under a load cap.
//! * [`tasks`] — task computation costs (from a run record or CSV) and the load model
//!   the cost-driven heuristics minimise: the time of the most loaded processor.
//! * [`heuristics`] — LPTF, LGCF, the Boillat method and HME (seed 001 §8).
//! * [`report`] — the ranked report as text, CSV or JSON.
//!
//! Depends on [`crate::topo`] (topologies, mappings, map files, metrics), [`crate::trace`]
//! (the run record reader, for `--comm run.cpt`) and [`crate::rng`]. Nothing depends on
//! it but the `cpmap` binary.
pub mod comm;
pub mod eval;
pub mod heuristics;
pub mod report;
pub mod search;
pub mod tasks;

pub use comm::{Adjacency, CommMatrix};
pub use eval::{evaluate, link_traffic, rank, weighted_cost, Evaluation, Traffic};
pub use report::{build_report, Report, SearchRequest, SearchSummary};
pub use search::{processor_times, search, Budget, Found, ProcessorTimes, SearchMethod};
pub use tasks::{byte_time_of, TaskCosts};

use crate::topo::{MapError, MapFile, Mapping, Topology};

/// What can go wrong in `cpmap`; every variant is bad input (exit code 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MapperError {
    /// A mapping that does not parse, evaluate or fit the architectures.
    #[error("mapping `{name}`: {error}")]
    Mapping { name: String, error: MapError },
    /// A line of a CSV communication matrix that is not `src,dst,bytes`.
    #[error("communication matrix line {line}: {message}")]
    CommSyntax { line: usize, message: String },
    /// A communication matrix naming a virtual processor the architecture lacks.
    #[error("communication matrix: pair {src} -> {dst} names a virtual processor beyond the {vprocs} of the virtual architecture")]
    CommOutOfRange { src: u32, dst: u32, vprocs: u32 },
    /// A run record that cannot be read.
    #[error("run record: {0}")]
    Record(String),
    /// A map file written for other architectures.
    #[error("map file {file}: it is for the {which} architecture {found}, not {expected}")]
    MapFileMismatch { file: String, which: &'static str, found: String, expected: String },
    /// `--search` without a communication matrix.
    #[error("--search needs a communication matrix (--comm FILE)")]
    SearchNeedsComm,
    /// A cost-driven search without task costs.
    #[error("--search {0} needs the computation cost of every task (--work FILE: a run record or CSV `vproc,cost`)")]
    SearchNeedsWork(&'static str),
    /// A line of a CSV task-cost file that is not `vproc,cost`.
    #[error("task cost line {line}: {message}")]
    WorkSyntax { line: usize, message: String },
    /// Task costs naming a virtual processor the architecture lacks.
    #[error("task costs name virtual processor {vproc}, beyond the {vprocs} of the virtual architecture")]
    WorkOutOfRange { vproc: u32, vprocs: u32 },
}

/// Resolves one MAPPING argument: a built-in name, a mapping string, or the text of a map
/// file (`@file`, already read by the caller: `(file name, text)`), for `virt` onto `phys`;
/// `seed` seeds `random`. Map files must be for the same two architectures.
pub fn resolve(
    spec: &str,
    file: Option<(&str, &str)>,
    virt: &Topology,
    phys: &Topology,
    seed: u64,
) -> Result<Mapping, MapperError> {
    let err = |error| MapperError::Mapping { name: spec.to_string(), error };
    let Some((file, text)) = file else {
        return crate::topo::resolve_mapping(spec, virt, phys, seed).map_err(err);
    };
    let mf = MapFile::parse(text).map_err(err)?;
    for (which, found, expected) in [("virtual", &mf.virt, virt), ("physical", &mf.phys, phys)] {
        if found != expected {
            return Err(MapperError::MapFileMismatch {
                file: file.to_string(),
                which,
                found: found.to_string(),
                expected: expected.to_string(),
            });
        }
    }
    Ok(mf.mapping)
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
    fn resolves_names_strings_and_map_files() {
        let (v, p) = (t("ring:8"), t("line:8"));
        let r2l = resolve("ring2line", None, &v, &p, 0).map(|m| m.table);
        // Seed 000 Table 3.
        assert_eq!(r2l, Ok(vec![0, 2, 4, 6, 7, 5, 3, 1]));
        let s = resolve("f(x) = [7 - x].", None, &v, &p, 0).map(|m| m.table);
        assert_eq!(s, Ok(vec![7, 6, 5, 4, 3, 2, 1, 0]));
        let text =
            MapFile { virt: v.clone(), phys: p.clone(), mapping: Mapping::new(vec![1, 0, 2, 3, 4, 5, 6, 7]) }.to_text();
        assert_eq!(resolve("@m", Some(("m", &text)), &v, &p, 0).map(|m| m.table[0]), Ok(1));
        let e = resolve("@m", Some(("m", &text)), &t("ring:8"), &t("ring:8"), 0);
        assert!(matches!(e, Err(MapperError::MapFileMismatch { which: "physical", .. })));
        let e = resolve("snake", None, &v, &p, 0).map(|_| ()).map_err(|e| e.to_string());
        assert!(e.is_err_and(|m| m.starts_with("mapping `snake`: unknown mapping")));
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any mapping string, well-formed or not, on small topologies resolves to a table or
        /// an error, never a panic; and a table it returns fits the physical architecture.
        #[test]
        fn resolve_mapping_never_panics(
            body in "[xyz#$0-9+*/%?:<>=!&|(), -]{0,24}",
            raw in "[a-z(),\\[\\]. #$0-9+*/-]{0,30}",
            v in 0usize..4,
            p in 0usize..4,
        ) {
            let topos = ["ring:5", "mesh:2x3", "torus:3x3", "hypercube:2"];
            let (virt, phys) = match (Topology::parse(topos[v]), Topology::parse(topos[p])) {
                (Ok(a), Ok(b)) => (a, b),
                _ => return Err(TestCaseError::fail("bad test topology")),
            };
            for text in [format!("f(x, y) = [{body}, {body}]."), format!("g(x) = [{body}]."), raw.clone()] {
                if let Ok(m) = crate::topo::resolve_mapping(&text, &virt, &phys, 1) {
                    prop_assert!(m.validate(&virt, &phys).is_ok(), "{text}");
                }
            }
        }
    }
}
