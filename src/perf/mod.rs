//! `cpperf`: analysis of a run record (SPEC §6, seed 003 ch. 3).
//!
//! One pass over the record's events feeds two builders: [`summary`] (speedup,
//! efficiency, utilization, messages, granularity, the communication matrix) and
//! [`graph`] (the execution graph, its critical path and the weighted critical path).
//! [`render`] turns the resulting [`Analysis`] into text, CSV or JSON.
//!
//! ```text
//!  run record ──RunRecordReader──▶ events ──▶ SummaryBuilder ─┐
//!                                        └──▶ GraphBuilder ───┴──▶ Analysis ──▶ text/csv/json
//! ```
//!
//! Depends only on [`crate::trace`]; it never looks at the `.cod` file or the simulator.
pub mod graph;
pub mod render;
pub mod summary;

use crate::trace::{Event, RecordError, RunHeader, RunRecordReader, RunStats};
use graph::{CriticalPath, GraphBuilder};
use std::collections::BTreeMap;
use std::io::Read;
use summary::{Summary, SummaryBuilder};

/// Why a run could not be analysed.
#[derive(Debug, thiserror::Error)]
pub enum PerfError {
    /// The run record could not be read.
    #[error(transparent)]
    Record(#[from] RecordError),
}

/// Everything `cpperf` reports about one run.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The program name from the header.
    pub program: String,
    /// Program-level metrics.
    pub summary: Summary,
    /// The critical path with its WCPA weights.
    pub critical: CriticalPath,
    /// The function each process runs, by pid.
    pub functions: BTreeMap<u32, String>,
    /// Number of events read.
    pub events: u64,
}

/// Reads a whole run record and analyses it; memory grows with the number of graph
/// nodes and busy intervals.
pub fn analyze<R: Read>(input: R) -> Result<Analysis, PerfError> {
    let (mut reader, header) = RunRecordReader::open(input)?;
    let mut a = Analyzer::new(&header);
    while let Some(e) = reader.next_event()? {
        a.event(&e);
    }
    let footer = reader.footer()?;
    Ok(a.finish(&footer.stats))
}

/// Analyses events already in memory (used by tests and converters).
pub fn analyze_events(header: &RunHeader, events: &[Event], stats: &RunStats) -> Analysis {
    let mut a = Analyzer::new(header);
    for e in events {
        a.event(e);
    }
    a.finish(stats)
}

struct Analyzer<'h> {
    header: &'h RunHeader,
    summary: SummaryBuilder,
    graph: GraphBuilder,
    functions: BTreeMap<u32, String>,
    events: u64,
}

impl<'h> Analyzer<'h> {
    fn new(header: &'h RunHeader) -> Self {
        Analyzer {
            header,
            summary: SummaryBuilder::default(),
            graph: GraphBuilder::default(),
            functions: BTreeMap::new(),
            events: 0,
        }
    }

    fn event(&mut self, e: &Event) {
        self.events += 1;
        if let Event::ProcCreate { pid, function, .. } = *e {
            let name = self.header.function_name(function).unwrap_or("?").to_string();
            self.functions.insert(pid, name);
        }
        self.summary.event(e);
        self.graph.event(e);
    }

    fn finish(self, stats: &RunStats) -> Analysis {
        let summary = self.summary.finish(stats);
        let critical = self.graph.finish(summary.pprocs_used);
        Analysis {
            program: self.header.program.clone(),
            summary,
            critical,
            functions: self.functions,
            events: self.events,
        }
    }
}
