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
//! Besides: [`unmatched`] (sends never received, receives never completed), [`profile`]
//! (concurrency, message sizes, Late Sender wait, critical-path profile), [`svg`] (the
//! charts of `--svg`), [`compare`] (`cpperf compare`) and [`import`] (PICL and SDDF
//! traces as events, so a trace is analysed like a record; [`analyze_any`] tells them
//! apart by content).
//!
//! Depends only on [`crate::trace`]; it never looks at the `.cod` file or the simulator.
pub mod compare;
mod dense;
pub mod graph;
pub mod import;
pub mod profile;
pub mod render;
pub mod summary;
pub mod svg;
pub mod unmatched;

use crate::trace::{Event, RecordError, RunHeader, RunRecordReader, RunStats};
use graph::{CriticalPath, GraphBuilder};
use std::collections::BTreeMap;
use std::io::{BufRead, Read};
use summary::{Summary, SummaryBuilder};
use unmatched::{Unmatched, UnmatchedBuilder};

/// Why a run could not be analysed.
#[derive(Debug, thiserror::Error)]
pub enum PerfError {
    /// The run record could not be read.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// Two runs could not be compared.
    #[error(transparent)]
    Compare(#[from] compare::CompareError),
    /// A PICL or SDDF trace could not be read.
    #[error(transparent)]
    Import(#[from] import::ImportError),
    /// The input is neither a run record nor a text format cpperf reads.
    #[error("not a run record, PICL or SDDF trace, or statistics CSV")]
    Unknown,
}

/// What an input holds, told from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A binary run record (`cpss -t`).
    Record,
    /// A PICL 2.0 trace (`cptrace --format picl`).
    Picl,
    /// An ASCII SDDF trace (`cptrace --format sddf`).
    Sddf,
    /// Statistics CSV (`cpperf --format csv`, `cpss --stats csv`).
    Csv,
}

/// Tells what `head` (the first bytes of an input) starts.
pub fn detect(head: &[u8]) -> Option<InputKind> {
    if head.starts_with(&crate::trace::record::MAGIC[..head.len().min(8)]) && !head.is_empty() {
        return Some(InputKind::Record);
    }
    let text = String::from_utf8_lossy(head);
    let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    if first == "SDDFA" {
        return Some(InputKind::Sddf);
    }
    if import::picl::looks_like_picl(first) {
        return Some(InputKind::Picl);
    }
    if text.contains("seq_time,") {
        return Some(InputKind::Csv);
    }
    None
}

/// Reads and analyses a whole input of any kind [`detect`] knows that holds events.
pub fn analyze_bytes(bytes: &[u8]) -> Result<Analysis, PerfError> {
    analyze_any(bytes)
}

/// Analyses a run record, PICL or SDDF trace, told apart by its first bytes; a record is
/// read as a stream, a text trace whole.
pub fn analyze_any<R: BufRead>(mut input: R) -> Result<Analysis, PerfError> {
    let head = input.fill_buf().map_err(RecordError::Io)?;
    // A record's magic is 8 bytes; a text trace's first line fits in a buffer.
    match detect(head) {
        Some(InputKind::Record) => analyze(input),
        Some(InputKind::Picl) => Ok(analyze_imported(&import::picl::read(input)?)),
        Some(InputKind::Sddf) => Ok(analyze_imported(&import::sddf::read(input)?)),
        Some(InputKind::Csv) | None => Err(PerfError::Unknown),
    }
}

/// Analyses a trace read by [`import`].
pub fn analyze_imported(t: &import::Imported) -> Analysis {
    analyze_events(&t.header, &t.events, &t.stats)
}

/// The metrics of an input for `cpperf compare`: a statistics CSV, or the analysis of a
/// run record or trace.
pub fn metrics_of_bytes(bytes: &[u8]) -> Result<compare::Metrics, PerfError> {
    match detect(bytes) {
        Some(InputKind::Csv) => Ok(compare::Metrics::from_csv(&String::from_utf8_lossy(bytes))?),
        _ => Ok(compare::Metrics::of(&analyze_bytes(bytes)?)),
    }
}

/// The three charts of `--svg` as `(file name, SVG text)`.
pub fn charts(a: &Analysis, pprocs: u32) -> Vec<(&'static str, String)> {
    let title = if a.program.is_empty() { "run" } else { a.program.as_str() };
    vec![
        ("gantt.svg", svg::gantt(&a.timeline, &a.critical, pprocs, title)),
        ("spacetime.svg", svg::space_time(&a.timeline, pprocs, title)),
        ("utilization.svg", svg::utilization(&a.timeline, a.summary.pprocs_used.max(1), title)),
    ]
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
    /// Messages never received and receives never completed.
    pub unmatched: Unmatched,
    /// Busy intervals and messages, for the charts.
    pub timeline: svg::Timeline,
    /// Concurrency and message size histograms, Late Sender wait, critical-path profile.
    pub profile: profile::Profile,
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
    unmatched: UnmatchedBuilder,
    timeline: svg::TimelineBuilder,
    profile: profile::ProfileBuilder,
    functions: BTreeMap<u32, String>,
    events: u64,
}

impl<'h> Analyzer<'h> {
    fn new(header: &'h RunHeader) -> Self {
        Analyzer {
            header,
            summary: SummaryBuilder::default(),
            graph: GraphBuilder::default(),
            unmatched: UnmatchedBuilder::default(),
            timeline: svg::TimelineBuilder::default(),
            profile: profile::ProfileBuilder::default(),
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
        self.unmatched.event(e);
        self.timeline.event(e);
        self.profile.event(e);
    }

    fn finish(self, stats: &RunStats) -> Analysis {
        let summary = self.summary.finish(stats);
        let critical = self.graph.finish(summary.pprocs_used);
        let timeline = self.timeline.finish();
        let profile = self.profile.finish(&timeline, &critical, summary.par_ticks.max(timeline.end));
        Analysis {
            program: self.header.program.clone(),
            summary,
            critical,
            unmatched: self.unmatched.finish(self.header),
            timeline,
            profile,
            functions: self.functions,
            events: self.events,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::graph::EdgeKind;
    use crate::trace::MsgPurpose;

    fn send(time: u64, msg: u64, src: u32, dst: u32, bytes: u32) -> Event {
        Event::MsgSend {
            time,
            msg,
            src_pid: src,
            src_pproc: src,
            dst_pid: Some(dst),
            dst_pproc: dst,
            purpose: MsgPurpose::Channel { channel: 0, index: 0 },
            bytes,
            line: 1,
        }
    }

    fn busy(pproc: u32, start: u64, end: u64) -> Event {
        Event::Busy { pproc, pid: pproc, start, end, line: 1, class: crate::trace::BusyClass::Work }
    }

    /// Process 0 (main, pproc 0) computes 0..100, forks workers 1 and 2 (pprocs 1, 2) at
    /// 100, computes to 150 and receives twice. Worker 2 computes 100..200 and sends
    /// (arrives 250); worker 1 computes 100..400 and sends (arrives 450). Main finishes
    /// receiving at 250 and 450, computes 450..500 and ends.
    fn three_processes() -> (RunHeader, Vec<Event>, RunStats) {
        let header = RunHeader { pprocs: 3, functions: vec!["main".into(), "worker".into()], ..RunHeader::default() };
        let events = vec![
            Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 },
            busy(0, 0, 100),
            Event::ProcCreate { time: 100, parent: Some(0), pid: 1, vproc: Some(0), pproc: 1, function: 1, line: 9 },
            Event::ProcCreate { time: 100, parent: Some(0), pid: 2, vproc: Some(1), pproc: 2, function: 1, line: 9 },
            busy(0, 100, 150),
            Event::RecvCall { time: 150, pid: 0, pproc: 0, channel: 0, index: 0, line: 10 },
            busy(2, 100, 200),
            send(200, 2, 2, 0, 4),
            Event::ProcEnd { time: 200, pid: 2 },
            Event::MsgArrive { time: 250, msg: 2, dst_pproc: 0 },
            Event::RecvDone { time: 250, pid: 0, pproc: 0, msg: 2, src_pid: 2, bytes: 4 },
            Event::RecvCall { time: 250, pid: 0, pproc: 0, channel: 0, index: 0, line: 11 },
            busy(1, 100, 400),
            send(400, 1, 1, 0, 8),
            Event::ProcEnd { time: 400, pid: 1 },
            Event::MsgArrive { time: 450, msg: 1, dst_pproc: 0 },
            Event::RecvDone { time: 450, pid: 0, pproc: 0, msg: 1, src_pid: 1, bytes: 8 },
            busy(0, 450, 500),
            Event::ProcEnd { time: 500, pid: 0 },
        ];
        // Sequential time = all busy work: 100 + 50 + 100 + 300 + 50 = 600; latency
        // (250 − 200) + (450 − 400) = 100.
        let stats = RunStats {
            seq_ticks: 600,
            par_ticks: 500,
            pprocs_used: 3,
            busy_ticks: vec![200, 300, 100],
            processes: 3,
            messages: 2,
            bytes: 12,
            total_latency_ticks: 100,
            ..RunStats::default()
        };
        (header, events, stats)
    }

    #[test]
    fn three_process_summary() {
        let (h, e, s) = three_processes();
        let a = analyze_events(&h, &e, &s);
        let m = &a.summary;
        // Speedup 600 / 500 = 1.2; efficiency 1.2 / 3 = 0.4.
        assert!((m.speedup() - 1.2).abs() < 1e-12);
        assert!((m.efficiency() - 0.4).abs() < 1e-12);
        // Busy from the events: p0 100+50+50 = 200 (40 %), p1 300 (60 %), p2 100 (20 %).
        assert_eq!(m.busy, vec![(0, 200), (1, 300), (2, 100)]);
        assert_eq!(m.utilization(), vec![(0, 40.0), (1, 60.0), (2, 20.0)]);
        // Granularity Σ Cᵢ : M = 600 : 100 = 6.
        assert_eq!(m.granularity(), Some(6.0));
        assert_eq!(m.avg_latency_ticks(), 50);
        // Main has no virtual processor, so both messages (to main) are left out.
        assert!(m.comm.is_empty());
        assert_eq!(m.comm_csv(), "src,dst,bytes\n");
    }

    #[test]
    fn three_process_critical_path_and_weights() {
        let (h, e, s) = three_processes();
        let c = analyze_events(&h, &e, &s).critical;
        // Main waited longest for worker 1's message, so the path is
        // init0 →(100) fork0 →spawn(0) init1 →(300) send1 →msg(50) recv_done0 →(50) exit0:
        // 5 edges, 500 ticks = the parallel time.
        assert_eq!(c.length, 500);
        assert_eq!(c.edges, 5);
        let shape: Vec<(EdgeKind, u32, u64, u64)> = c.segments.iter().map(|g| (g.kind, g.pid, g.from, g.to)).collect();
        assert_eq!(
            shape,
            vec![
                (EdgeKind::Compute, 0, 0, 100),
                (EdgeKind::Compute, 1, 100, 400),
                (EdgeKind::Message, 1, 400, 450),
                (EdgeKind::Compute, 0, 450, 500),
            ]
        );
        // Busy processors: [0,100) 1, [100,150) 3, [150,200) 2, [200,400) 1, [400,450) 0,
        // [450,500) 1; n = 3, w = Δt + (1 − P)·2·Δt.
        //   0..100:   P = 100/300 = 1/3, w = 100 + (2/3)·2·100 = 233.33…
        //   100..400: P = (150+100+200)/900 = 1/2, w = 300 + (1/2)·2·300 = 600
        //   400..450: P = 0, w = 50 + 2·50 = 150
        //   450..500: P = 50/150 = 1/3, w = 50 + (2/3)·2·50 = 116.66…
        // Total 1100.
        let w: Vec<f64> = c.segments.iter().map(|g| g.weight).collect();
        let want = [100.0 + 400.0 / 3.0, 600.0, 150.0, 50.0 + 200.0 / 3.0];
        for (got, want) in w.iter().zip(want) {
            assert!((got - want).abs() < 1e-9, "{got} vs {want}");
        }
        assert!((c.total_weight - 1100.0).abs() < 1e-9);
        // Grouped: main's compute 350 (31.8 %) < worker 1's 600 (54.5 %): worker 1 first.
        let g = graph::group_weights(&c);
        assert_eq!((g[0].0, g[0].1), (EdgeKind::Compute, 1));
        assert!((g[0].2 - 600.0).abs() < 1e-9);
        assert!((g[1].2 - 350.0).abs() < 1e-9);
    }

    #[test]
    fn comm_matrix_counts_only_processes_with_virtual_processors() {
        // Two workers on vprocs 0 and 1 exchange 8 and 4 bytes; a send to main is dropped.
        let h = RunHeader { functions: vec!["main".into()], ..RunHeader::default() };
        let e = vec![
            Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 },
            Event::ProcCreate { time: 0, parent: Some(0), pid: 1, vproc: Some(0), pproc: 0, function: 0, line: 0 },
            Event::ProcCreate { time: 0, parent: Some(0), pid: 2, vproc: Some(1), pproc: 1, function: 0, line: 0 },
            send(1, 1, 1, 2, 8),
            send(2, 2, 2, 1, 4),
            send(3, 3, 1, 2, 8),
            send(4, 4, 2, 0, 99),
        ];
        let a = analyze_events(&h, &e, &RunStats::default());
        assert_eq!(a.summary.comm_csv(), "src,dst,bytes\n0,1,16\n1,0,4\n");
    }

    #[test]
    fn a_damaged_record_is_an_error_not_a_panic() {
        assert!(analyze(&b"CPPE\0RUN\x01"[..]).is_err());
        assert!(analyze(&b"not a record"[..]).is_err());
    }
}
