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
//! (concurrency, message sizes, Late Sender wait, critical-path profile), [`phases`]
//! (the weighted critical path between probes), [`lines`] (cost per source line),
//! [`links`] (link traffic from traced routes), [`imbalance`] (critical-path imbalance
//! per function), [`whatif`] (critical-path zeroing, only when [`Options::what_if`]
//! asks), [`svg`] (the charts of `--svg`), [`compare`] (`cpperf compare`), [`busy`]
//! (busy processors and each process's CPU time over any interval, for the weights) and
//! the readable trace formats of [`crate::trace::format`] (PICL and SDDF traces as
//! events, so a trace is analysed like a record; [`analyze_any`] tells them apart by
//! content). Each processor's time by state comes
//! from [`crate::trace::states`], the machine the Paraver writer uses too.
//!
//! Throughput: a run record is read and checked on the calling thread, which also feeds
//! the summary, the unmatched messages and the processor states, while a second one
//! feeds the other builders, batches of events passing through a bounded channel in
//! record order ([`analyze_with`]); each event goes only to the builders that use its
//! kind; the execution graph follows each node's CPU time as the busy intervals come.
//! At the end the steps that do not need each other's results run side by side as rayon
//! joins: the busy profile beside the critical path and the order of the messages, the
//! busy area at every node in two halves beside that of the messages the receiver did
//! not wait for, the weighted critical path's one pass beside the weighing of the
//! critical path and every other report. Every step computes what it would alone, so the
//! analysis does not depend on the threads' timing.
//!
//! Depends only on [`crate::trace`]; it never looks at the `.cod` file or the simulator.
mod analyzer;
pub mod busy;
pub mod compare;
pub mod functions;
pub mod graph;
pub mod html;
pub mod imbalance;
pub mod lines;
pub mod links;
pub mod phases;
pub mod processes;
pub mod profile;
pub mod render;
pub mod summary;
pub mod svg;
pub mod sweep;
pub mod table;
pub mod unmatched;
pub mod whatif;
pub mod window;

use crate::time::{format_time, Ticks};
use crate::trace::format::{import, Format};
use crate::trace::states::{PState, ProcessorStates};
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
    /// A `--what-if` target names nothing in the run.
    #[error(transparent)]
    WhatIf(#[from] whatif::UnknownTarget),
    /// The execution graph would exceed [`graph::MAX_NODES`] nodes.
    #[error(
        "the run's execution graph ({events} events) exceeds {limit} nodes, the most cpperf analyses; cpperf --comm reads a record of any size"
    )]
    TooLarge {
        /// The limit of nodes.
        limit: usize,
        /// The run's events.
        events: u64,
    },
}

/// What an analysis computes beyond the always-on reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Critical-path zeroing targets (`--what-if`), answered in order.
    pub what_if: Vec<whatif::Target>,
    /// Analyse only this window (`--from`, `--to`; see [`window`]).
    pub window: Option<window::Window>,
    /// Build the procedure profile (`--functions`; see [`functions`]).
    pub functions: bool,
    /// Keep what the charts draw (`--svg`, `--html`): [`Analysis::timeline`]'s busy
    /// intervals and messages. Without it they are empty, and the analysis of a large
    /// record takes about a quarter less memory (425 MB instead of 550 for the 11 M
    /// events of `scripts/bench-perf.sh`).
    pub charts: bool,
}

/// What an input holds, told from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A binary run record (`cpss -t`).
    Record,
    /// A trace of a format `cpperf` reads back ([`Format::info`]`.readable`: PICL 2.0,
    /// old PICL, ASCII SDDF).
    Trace(Format),
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
    if let Some(f) = Format::detect(first) {
        return Some(InputKind::Trace(f));
    }
    if text.contains("seq_time,") {
        return Some(InputKind::Csv);
    }
    None
}

/// Reads a trace of the readable format `f` whole, as the window it was cut to (see
/// [`own_window`]).
fn read_trace(f: Format, mut input: impl BufRead) -> Result<import::Imported, PerfError> {
    match f.read(&mut input) {
        Some(t) => Ok(own_window(t?)),
        None => Err(PerfError::Unknown),
    }
}

/// Reads and analyses a whole input of any kind [`detect`] knows that holds events.
pub fn analyze_bytes(bytes: &[u8]) -> Result<Analysis, PerfError> {
    analyze_any(bytes)
}

/// Analyses a run record, PICL or SDDF trace, told apart by its first bytes; a record is
/// read as a stream, a text trace whole.
pub fn analyze_any<R: BufRead>(input: R) -> Result<Analysis, PerfError> {
    analyze_any_with(input, &Options::default())
}

/// [`analyze_any`] with [`Options`].
pub fn analyze_any_with<R: BufRead>(mut input: R, opts: &Options) -> Result<Analysis, PerfError> {
    if let Some(w) = opts.window {
        return analyze_imported_with(&windowed(read_events(input)?, w), opts);
    }
    let head = input.fill_buf().map_err(RecordError::Io)?;
    // A record's magic is 8 bytes; a text trace's first line fits in a buffer.
    match detect(head) {
        Some(InputKind::Record) => analyze_with(input, opts),
        Some(InputKind::Trace(f)) => analyze_imported_with(&read_trace(f, input)?, opts),
        Some(InputKind::Csv) | None => Err(PerfError::Unknown),
    }
}

/// A trace cut by `cptrace --from T` analysed as the window from T to its end, as
/// `--from T` would analyse the whole run: its times count from T (without it, the
/// parallel time would be the window's end, not its length). Without `--from` (or with
/// the user's own window, which reads the trace's times as they are) nothing changes.
fn own_window(t: import::Imported) -> import::Imported {
    match t.window_from {
        Some(from) => windowed(t, window::Window { from, to: Ticks::MAX }),
        None => t,
    }
}

/// A run record or trace, whole in memory: its header, events and statistics.
pub fn read_events<R: BufRead>(mut input: R) -> Result<import::Imported, PerfError> {
    let head = input.fill_buf().map_err(RecordError::Io)?;
    match detect(head) {
        Some(InputKind::Record) => {
            let (mut r, header) = crate::trace::RunRecordReader::open(input)?;
            let mut events = Vec::new();
            while let Some(e) = r.next_event()? {
                events.push(e);
            }
            let stats = r.footer()?.stats;
            Ok(import::Imported { header, events, stats, missing: Vec::new(), window_from: None })
        }
        Some(InputKind::Trace(f)) => match f.read(&mut input) {
            Some(t) => Ok(t?),
            None => Err(PerfError::Unknown),
        },
        Some(InputKind::Csv) | None => Err(PerfError::Unknown),
    }
}

/// `t` cut to the window `w` ([`window::cut`]), with a note that says so.
pub fn windowed(t: import::Imported, w: window::Window) -> import::Imported {
    let import::Imported { header, events, stats, mut missing, .. } = t;
    let (events, stats) = window::cut(events, w, &stats, header.pprocs);
    missing.push(format!(
        "the window {} to {}: times count from {}, messages are those sent inside it",
        format_time(w.from),
        format_time(w.from + stats.par_ticks),
        format_time(w.from)
    ));
    import::Imported { header, events, stats, missing, window_from: None }
}

/// Analyses a trace read by a [`Format`]'s reader.
pub fn analyze_imported(t: &import::Imported) -> Analysis {
    analyze_events(&t.header, &t.events, &t.stats)
}

/// [`analyze_imported`] with [`Options`].
pub fn analyze_imported_with(t: &import::Imported, opts: &Options) -> Result<Analysis, PerfError> {
    let mut a = Analyzer::new(&t.header, opts);
    for e in &t.events {
        a.event(e);
    }
    let mut a = a.finish(&t.stats)?;
    a.notes.clone_from(&t.missing);
    Ok(a)
}

/// The metrics of an input for `cpperf compare`: a statistics CSV, or the analysis of a
/// run record or trace.
pub fn metrics_of_bytes(bytes: &[u8]) -> Result<compare::Metrics, PerfError> {
    if detect(bytes) == Some(InputKind::Record) {
        return Ok(compare::Metrics::of(&analyze_bytes(bytes)?));
    }
    match compare::Metrics::from_text(&String::from_utf8_lossy(bytes)) {
        Some(m) => Ok(m?),
        None => Ok(compare::Metrics::of(&analyze_bytes(bytes)?)),
    }
}

/// The HTML report (`--html`, [`html`]) of the run record or trace `bytes`, analysed with
/// `opts`: the events are read twice, once for the analysis and once for the timeline.
pub fn html_report(bytes: &[u8], opts: &Options) -> Result<(Analysis, String), PerfError> {
    html_report_with(&|| Ok(Box::new(bytes) as Box<dyn BufRead + '_>), opts)
}

/// [`html_report`] of the input that `open` opens (twice: a file is read again rather
/// than held in memory).
pub fn html_report_with<'a>(
    open: &dyn Fn() -> Result<Box<dyn BufRead + 'a>, PerfError>,
    opts: &Options,
) -> Result<(Analysis, String), PerfError> {
    if let Some(w) = opts.window {
        let t = windowed(read_events(open()?)?, w);
        let a = analyze_imported_with(&t, opts)?;
        let page = html::report(&a, &t.header, t.events.into_iter());
        return Ok((a, page));
    }
    let a = analyze_any_with(open()?, opts)?;
    let mut input = open()?;
    let kind = detect(input.fill_buf().map_err(RecordError::Io)?);
    let page = match kind {
        Some(InputKind::Record) => {
            let (mut r, header) = crate::trace::RunRecordReader::open(input)?;
            let mut failed = None;
            // Read a batch at a time (as the analysis reads), not an event per call.
            let (mut batch, mut last) = (Vec::new().into_iter(), false);
            let iter = std::iter::from_fn(|| loop {
                if let Some(e) = batch.next() {
                    return Some(e);
                }
                if last {
                    return None;
                }
                let mut v = Vec::with_capacity(analyzer::BATCH);
                match r.read_batch(&mut v, analyzer::BATCH) {
                    Ok(end) => (batch, last) = (v.into_iter(), end),
                    Err(e) => {
                        failed = Some(e);
                        return None;
                    }
                }
            });
            let page = html::report(&a, &header, iter);
            if let Some(e) = failed {
                return Err(e.into());
            }
            page
        }
        Some(InputKind::Trace(f)) => {
            let t = read_trace(f, input)?;
            html::report(&a, &t.header, t.events.into_iter())
        }
        Some(InputKind::Csv) | None => return Err(PerfError::Unknown),
    };
    Ok((a, page))
}

/// The three charts of `--svg` as `(file name, SVG text)`.
pub fn charts(a: &Analysis, pprocs: u32) -> Vec<(&'static str, String)> {
    let title = if a.program.is_empty() { "run" } else { a.program.as_str() };
    vec![
        ("gantt.svg", {
            let other = (!render::same_path(&a.critical, &a.weighted)).then_some(&a.weighted);
            svg::gantt(&a.timeline, &a.critical, other, pprocs, title)
        }),
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
    /// The elapsed-time critical path (its length is the run's), with WCPA weights.
    pub critical: CriticalPath,
    /// The weighted critical path: the longest path by WCPA weight (seed 003 §3.4).
    pub weighted: CriticalPath,
    /// What the input did not hold and how it was made up (traces without a statistics
    /// record or a program name); empty for a run record.
    pub notes: Vec<String>,
    /// Each processor's time in each state of [`PState::ALL`] ([`crate::trace::states`]:
    /// running, and while idle what its processes wait for), from 0 to the end.
    pub states: Vec<(u32, [Ticks; 7])>,
    /// The function each process runs, by pid.
    pub functions: BTreeMap<u32, String>,
    /// Messages never received and receives never completed.
    pub unmatched: Unmatched,
    /// Busy intervals and messages, for the charts (empty unless [`Options::charts`]).
    pub timeline: svg::Timeline,
    /// Concurrency and message size histograms, Late Sender wait, critical-path profile.
    pub profile: profile::Profile,
    /// The weighted critical path between probes.
    pub phases: phases::Phases,
    /// Busy time per source line.
    pub lines: lines::LineProfile,
    /// Link loads from traced routes.
    pub links: links::Links,
    /// Critical-path imbalance per function.
    pub imbalance: imbalance::Imbalance,
    /// Every process's summary, in process order.
    pub processes: Vec<processes::ProcessRow>,
    /// Answers to the `--what-if` targets, in the order asked.
    pub what_if: Vec<whatif::Outcome>,
    /// The procedure profile, when [`Options::functions`] asked for it.
    pub procedures: Option<functions::FunctionProfile>,
    /// Number of events read.
    pub events: u64,
}

/// Reads a whole run record and analyses it; memory grows with the number of graph
/// nodes and busy intervals.
pub fn analyze<R: Read>(input: R) -> Result<Analysis, PerfError> {
    analyze_with(input, &Options::default())
}

use analyzer::Analyzer;
pub use analyzer::{analyze_events, analyze_with};

#[cfg(test)]
mod tests;
