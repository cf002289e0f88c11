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
//! [`import`] (PICL and SDDF traces as events, so a trace is analysed like a record;
//! [`analyze_any`] tells them apart by content). Each processor's time by state comes
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
pub mod busy;
pub mod compare;
pub mod functions;
pub mod graph;
pub mod html;
pub mod imbalance;
pub mod import;
pub mod lines;
pub mod links;
pub mod phases;
pub mod processes;
pub mod profile;
pub mod render;
pub mod summary;
pub mod svg;
pub mod unmatched;
pub mod whatif;
pub mod window;

use crate::trace::states::{PState, ProcessorStates};
use crate::trace::{Event, RecordError, RunHeader, RunRecordReader, RunStats, Ticks};
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
    /// A PICL 2.0 trace (`cptrace --format picl`).
    Picl,
    /// An old-format PICL 1.x trace (`cptrace --format picl1`).
    Picl1,
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
    if import::picl1::looks_like_picl1(first) {
        return Some(InputKind::Picl1);
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
        Some(InputKind::Picl) => analyze_imported_with(&own_window(import::picl::read(input)?), opts),
        Some(InputKind::Picl1) => analyze_imported_with(&import::picl1::read(input)?, opts),
        Some(InputKind::Sddf) => analyze_imported_with(&own_window(import::sddf::read(input)?), opts),
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
        Some(InputKind::Picl) => Ok(import::picl::read(input)?),
        Some(InputKind::Picl1) => Ok(import::picl1::read(input)?),
        Some(InputKind::Sddf) => Ok(import::sddf::read(input)?),
        Some(InputKind::Csv) | None => Err(PerfError::Unknown),
    }
}

/// `t` cut to the window `w` ([`window::cut`]), with a note that says so.
pub fn windowed(t: import::Imported, w: window::Window) -> import::Imported {
    let import::Imported { header, events, stats, mut missing, .. } = t;
    let (events, stats) = window::cut(events, w, stats.par_ticks, header.pprocs);
    missing.push(format!(
        "the window {} to {}: times count from {}, messages are those sent inside it",
        render::units(w.from),
        render::units(w.from + stats.par_ticks),
        render::units(w.from)
    ));
    import::Imported { header, events, stats, missing, window_from: None }
}

/// Analyses a trace read by [`import`].
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
    match detect(bytes) {
        Some(InputKind::Csv) => Ok(compare::Metrics::from_csv(&String::from_utf8_lossy(bytes))?),
        _ => Ok(compare::Metrics::of(&analyze_bytes(bytes)?)),
    }
}

/// The HTML report (`--html`, [`html`]) of the run record or trace `bytes`, analysed with
/// `opts`: the events are read twice, once for the analysis and once for the timeline.
pub fn html_report(bytes: &[u8], opts: &Options) -> Result<(Analysis, String), PerfError> {
    let opts = &Options { charts: true, ..opts.clone() };
    if let Some(w) = opts.window {
        let t = windowed(read_events(bytes)?, w);
        let a = analyze_imported_with(&t, opts)?;
        let page = html::report(&a, &t.header, t.events.into_iter());
        return Ok((a, page));
    }
    let a = analyze_any_with(bytes, opts)?;
    let page = match detect(bytes) {
        Some(InputKind::Record) => {
            let (mut r, header) = crate::trace::RunRecordReader::open(bytes)?;
            let mut failed = None;
            let iter = std::iter::from_fn(|| match r.next_event() {
                Ok(e) => e,
                Err(e) => {
                    failed = Some(e);
                    None
                }
            });
            let page = html::report(&a, &header, iter);
            if let Some(e) = failed {
                return Err(e.into());
            }
            page
        }
        Some(InputKind::Picl) => {
            let t = own_window(import::picl::read(bytes)?);
            html::report(&a, &t.header, t.events.into_iter())
        }
        Some(InputKind::Picl1) => {
            let t = import::picl1::read(bytes)?;
            html::report(&a, &t.header, t.events.into_iter())
        }
        Some(InputKind::Sddf) => {
            let t = own_window(import::sddf::read(bytes)?);
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

/// Events per batch handed from the reading thread to the analysing one.
const BATCH: usize = 4096;
/// Batches in flight between the two threads (bounds the memory of the hand-over).
const BATCHES: usize = 4;

/// [`analyze`] with [`Options`].
///
/// Two threads share the work: this one reads and checks the record (framing, checksum,
/// decoding, the header's invariants) and feeds the `Front` builders, a second one
/// feeds the other builders, the two joined by a bounded channel of event batches that
/// are handed back empty for reuse. The
/// builders see the events in record order whatever the timing, so the analysis is the
/// same as on one thread.
pub fn analyze_with<R: Read>(input: R, opts: &Options) -> Result<Analysis, PerfError> {
    if let Some(w) = opts.window {
        // A window needs the events in memory (see [`window`]).
        return analyze_imported_with(&windowed(read_events(std::io::BufReader::new(input))?, w), opts);
    }
    let (mut reader, header) = RunRecordReader::open(input)?;
    let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<Vec<Event>>(BATCHES);
    let (empty_tx, empty_rx) = std::sync::mpsc::channel::<Vec<Event>>();
    let mut front = Front::new(&header);
    let (mut analyzer, read) = std::thread::scope(|s| {
        let header = &header;
        let worker = s.spawn(move || {
            let mut a = Analyzer::new(header, opts);
            for mut batch in full_rx {
                for e in &batch {
                    a.others(e);
                }
                batch.clear();
                // The reader may have stopped; an unused batch is simply dropped.
                let _ = empty_tx.send(batch);
            }
            a
        });
        let read = (|| -> Result<(), RecordError> {
            loop {
                let mut batch = empty_rx.try_recv().unwrap_or_else(|_| Vec::with_capacity(BATCH));
                let last = reader.read_batch(&mut batch, BATCH)?;
                for e in &batch {
                    front.event(e);
                }
                if !batch.is_empty() && full_tx.send(batch).is_err() {
                    // Only a worker that panicked hangs up; its join below says so.
                    return Ok(());
                }
                if last {
                    return Ok(());
                }
            }
        })();
        drop(full_tx);
        let analyzer = worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (analyzer, read)
    });
    read?;
    analyzer.front = front;
    let footer = reader.footer()?;
    analyzer.finish(&footer.stats)
}

/// Analyses events already in memory (used by tests and converters).
pub fn analyze_events(header: &RunHeader, events: &[Event], stats: &RunStats) -> Analysis {
    let opts = Options::default();
    let mut a = Analyzer::new(header, &opts);
    for e in events {
        a.event(e);
    }
    a.finish_reports(stats)
}

/// Adds the stretch `[a, b)` of processor `p` in state `st` to `time`, unless `p` is
/// beyond `last`, the last processor followed ([`Front::new`]).
fn add_state(time: &mut Vec<(u32, [Ticks; 7])>, last: u32, p: u32, a: Ticks, b: Ticks, st: PState) {
    let k = st.report_index();
    if p as usize >= time.len() {
        if p > last {
            return;
        }
        // Rows carry their processor, as the analysis hands them on: no copy at the end
        // (on a machine of 2^24 processors a copy would be another gigabyte).
        let from = time.len() as u32;
        time.extend((from..=p).map(|q| (q, [0; 7])));
    }
    time[p as usize].1[k] += b.saturating_sub(a);
}

struct Analyzer<'h> {
    header: &'h RunHeader,
    opts: &'h Options,
    graph: GraphBuilder,
    timeline: svg::TimelineBuilder,
    profile: profile::ProfileBuilder,
    phases: phases::PhaseBuilder,
    lines: lines::LineBuilder,
    links: links::LinkBuilder,
    processes: processes::ProcessBuilder,
    what_if: Option<whatif::WhatIfBuilder>,
    procedures: Option<functions::FunctionBuilder>,
    functions: BTreeMap<u32, String>,
    events: u64,
    front: Front,
}

/// The builders the reading thread of [`analyze_with`] feeds itself: the summary, the
/// unmatched messages and the time each processor spent in each of [`PState::ALL`].
struct Front {
    summary: SummaryBuilder,
    unmatched: UnmatchedBuilder,
    states: ProcessorStates,
    /// Time per processor in each of [`PState::ALL`]: row p is processor p's.
    time: Vec<(u32, [Ticks; 7])>,
    /// The last processor whose time is followed.
    last: u32,
}

impl Front {
    /// The builders for a run on `header`'s machine: every processor of a record (whose
    /// reader checks that each is below the header's count; a machine may have up to
    /// 2^24), and of a trace those up to [`import::MAX_PPROC`], the most its importers
    /// accept (a trace's header may not say).
    fn new(header: &RunHeader) -> Self {
        Front {
            summary: SummaryBuilder::default(),
            unmatched: UnmatchedBuilder::default(),
            states: ProcessorStates::default(),
            time: Vec::new(),
            last: header.pprocs.saturating_sub(1).max(import::MAX_PPROC),
        }
    }

    #[inline]
    fn event(&mut self, e: &Event) {
        match e {
            Event::Busy { .. } | Event::ProcCreate { .. } => self.summary.event(e),
            Event::MsgSend { .. } => {
                self.summary.event(e);
                self.unmatched.event(e);
            }
            Event::MsgArrive { .. } | Event::RecvCall { .. } | Event::RecvDone { .. } => self.unmatched.event(e),
            _ => {}
        }
        if matches!(
            e,
            Event::Busy { .. }
                | Event::ProcCreate { .. }
                | Event::ProcEnd { .. }
                | Event::State { .. }
                | Event::RecvDone { .. }
        ) {
            for (p, a, b, st) in self.states.event(e) {
                add_state(&mut self.time, self.last, p, a, b, st);
            }
        }
    }

    /// The time per processor, the processors `procs` followed to `end`.
    fn state_time(
        mut states: ProcessorStates,
        mut time: Vec<(u32, [Ticks; 7])>,
        last: u32,
        end: Ticks,
        procs: std::ops::Range<u32>,
    ) -> Vec<(u32, [Ticks; 7])> {
        states.finish(end, procs, |p, a, b, st| add_state(&mut time, last, p, a, b, st));
        time
    }
}

impl<'h> Analyzer<'h> {
    fn new(header: &'h RunHeader, opts: &'h Options) -> Self {
        Analyzer {
            header,
            opts,
            graph: GraphBuilder::default(),
            timeline: svg::TimelineBuilder::new(opts.charts),
            profile: profile::ProfileBuilder::default(),
            phases: phases::PhaseBuilder::default(),
            lines: lines::LineBuilder::default(),
            links: links::LinkBuilder::default(),
            processes: processes::ProcessBuilder::default(),
            what_if: (!opts.what_if.is_empty()).then(whatif::WhatIfBuilder::default),
            procedures: opts.functions.then(functions::FunctionBuilder::default),
            functions: BTreeMap::new(),
            events: 0,
            front: Front::new(header),
        }
    }

    /// Hands `e` to the builders that use its kind, and only to them: one dispatch on the
    /// kind here instead of one in each of ten builders (the builders' `event` methods
    /// are inlined, so their own match on the kind folds away). The timeline takes every
    /// event (it tracks the last time).
    fn event(&mut self, e: &Event) {
        self.front.event(e);
        self.others(e);
    }

    /// [`Self::event`] for every builder but the [`Front`] ones, which the reading thread
    /// of [`analyze_with`] feeds.
    #[inline]
    fn others(&mut self, e: &Event) {
        self.events += 1;
        match *e {
            Event::Busy { .. } => {
                self.graph.event(e);
                self.timeline.event(e);
                self.lines.event(e);
                self.processes.event(e);
            }
            Event::MsgSend { .. } => {
                self.graph.event(e);
                self.timeline.event(e);
                self.profile.event(e);
                self.links.event(e);
                self.processes.event(e);
            }
            Event::RecvDone { .. } => {
                self.graph.event(e);
                self.timeline.event(e);
                self.profile.event(e);
                self.processes.event(e);
            }
            Event::MsgArrive { .. } | Event::RecvCall { .. } => {
                self.graph.event(e);
                self.timeline.event(e);
                self.profile.event(e);
            }
            Event::ProcCreate { pid, function, .. } => {
                let name = self.header.function_name(function).unwrap_or("?").to_string();
                self.functions.insert(pid, name);
                self.graph.event(e);
                self.timeline.event(e);
                self.processes.event(e);
            }
            Event::ProcEnd { .. } => {
                self.graph.event(e);
                self.timeline.event(e);
                self.processes.event(e);
            }
            Event::State { .. } => {
                self.graph.event(e);
                self.timeline.event(e);
            }
            Event::Hop { .. } => {
                self.timeline.event(e);
                self.links.event(e);
            }
            Event::Probe { .. } | Event::Label { .. } => {
                self.timeline.event(e);
                self.phases.event(e);
            }
            Event::LineCost { .. } => {
                self.timeline.event(e);
                self.lines.event(e);
            }
            Event::TimeOff { .. } | Event::TimeOn { .. } | Event::Deadlock { .. } => self.timeline.event(e),
            Event::Enter { .. } | Event::Leave { .. } => {}
        }
        if let Some(w) = &mut self.what_if {
            w.event(e);
        }
        if let Some(p) = &mut self.procedures {
            p.event(e);
        }
    }

    /// The analysis, answering the `--what-if` targets (an error when one names nothing).
    fn finish(mut self, stats: &RunStats) -> Result<Analysis, PerfError> {
        if self.graph.is_full() {
            return Err(PerfError::TooLarge { limit: self.graph.limit(), events: self.events });
        }
        let (header, opts, what_if) = (self.header, self.opts, self.what_if.take());
        let mut a = self.finish_reports(stats);
        if let Some(w) = what_if {
            // Each label's spans (probes with different ids may share a label).
            let mut by_label: BTreeMap<&str, Vec<(Ticks, Ticks)>> = BTreeMap::new();
            for p in a.phases.phases.iter().filter(|p| p.id.is_some()) {
                by_label.entry(&p.label).or_default().extend_from_slice(&p.spans);
            }
            let spans: Vec<(String, Vec<(Ticks, Ticks)>)> = by_label
                .into_iter()
                .map(|(l, mut v)| {
                    v.sort_unstable();
                    (l.to_string(), v)
                })
                .collect();
            a.what_if = w.finish(&opts.what_if, header, &spans, a.critical.length)?;
        }
        Ok(a)
    }

    /// Every report but the what-if answers.
    fn finish_reports(self, stats: &RunStats) -> Analysis {
        let Front { summary, unmatched, states, time, last } = self.front;
        let summary = summary.finish(stats);
        // One profile of the busy intervals serves the weights, the phases and the
        // concurrency histogram. The steps below that do not need each other's results run
        // side by side (rayon joins, so on one core they simply run in turn), each with
        // the same result as alone: sorting the profile's change points beside resolving
        // the graph's edges and finding the critical path (and ordering the messages and
        // the arrivals of those the receiver did not wait for); then the weighted
        // critical path (its busy areas swept beside its pass) beside weighing the
        // critical path and finishing the other reports; then the phases beside freeing
        // the graph. The nodes' CPU times were followed while reading,
        // unless the record's order did not allow it.
        let (mut timeline, mut graph) = (self.timeline, self.graph);
        if graph.needs_cpu_rebuild() {
            graph.rebuild_cpu(&timeline.cpu_intervals());
        }
        let (mut starts, mut ends) = timeline.take_bounds();
        let (busy, (path, (messages, weak))) = rayon::join(
            || {
                rayon::join(|| graph::sort_ticks(&mut starts), || graph::sort_ticks(&mut ends));
                graph::BusyProfile::from_sorted(starts, ends)
            },
            || {
                graph.resolve();
                rayon::join(|| graph.critical(), || rayon::join(|| timeline.messages(), || graph.weak_order()))
            },
        );
        // n of the weights: the machine's processors (SPEC §6), or those the trace shows
        // in use when it does not say (PICL and SDDF).
        let n = self.header.pprocs.max(summary.pprocs_used);
        let end = summary.par_ticks.max(timeline.end());
        let procs = 0..self.header.pprocs.max(summary.pprocs_used);
        let header = self.header;
        let (weighted, (critical, profile, rest)) = rayon::join(
            || graph.weighted(n, &busy, &weak),
            || {
                let critical = path.weigh(n, &busy);
                let profile = self.profile.finish(timeline.pproc_of(), &busy, &critical, end);
                let rest = (
                    Front::state_time(states, time, last, end, procs),
                    unmatched.finish(header),
                    self.lines.finish(&header.source),
                    self.links.finish(end, header.network_links()),
                    self.processes.finish(header),
                    self.procedures.map(|b| b.finish(header, &critical)),
                );
                (critical, profile, rest)
            },
        );
        let (state_time, unmatched, lines, links, processes, procedures) = rest;
        let imbalance = imbalance::of(&processes, &critical);
        let ((), phases) = rayon::join(move || drop(graph), || self.phases.finish(header, &weighted, &busy));
        drop(busy);
        // Last, when the graph and the busy profile are gone: the charts' busy intervals,
        // read back from their log, are then no new peak of memory.
        let timeline = timeline.finish_with(messages);
        Analysis {
            program: self.header.program.clone(),
            summary,
            critical,
            weighted,
            notes: Vec::new(),
            states: state_time,
            unmatched,
            timeline,
            profile,
            phases,
            lines,
            links,
            imbalance,
            processes,
            what_if: Vec::new(),
            procedures,
            functions: self.functions,
            events: self.events,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::graph::EdgeKind;
    use crate::trace::{MsgPurpose, Reason};

    /// A channel message `msg` of `bytes` from process `src` to `dst`, each on the
    /// processor of its number, sent at `time` (the builders' tests).
    pub(super) fn send(time: u64, msg: u64, src: u32, dst: u32, bytes: u32) -> Event {
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

    /// Process `pid`'s creation at time 0 on processor `pid`, running `function` (the
    /// builders' tests).
    pub(super) fn created_at_0(pid: u32, function: u32) -> Event {
        Event::ProcCreate { time: 0, parent: None, pid, vproc: None, pproc: pid, function, line: 0 }
    }

    /// Process 0 (main, pproc 0) computes 0..100, forks workers 1 and 2 (pprocs 1, 2) at
    /// 100, computes to 150 and receives twice. Worker 2 computes 100..200 and sends
    /// (arrives 250); worker 1 computes 100..400 and sends (arrives 450). Main finishes
    /// receiving at 250 and 450, computes 450..500 and ends.
    pub(super) fn three_processes() -> (RunHeader, Vec<Event>, RunStats) {
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

    /// Without the charts the timeline keeps neither busy intervals nor messages, and
    /// nothing else changes, even when the CPU times must be computed again from the
    /// intervals (their processes kept beside their bounds for that).
    #[test]
    fn the_charts_option_changes_only_the_timeline() {
        let (h, e, s) = three_processes();
        let run = |events: &[Event], charts: bool| {
            let opts = Options { charts, ..Options::default() };
            let mut a = Analyzer::new(&h, &opts);
            for x in events {
                a.event(x);
            }
            a.finish(&s).unwrap()
        };
        let (with, without) = (run(&e, true), run(&e, false));
        // Main's touching 0..100 and 100..150 merge; then the workers', and main's last.
        assert_eq!(with.timeline.busy, vec![(0, 0, 0, 150), (2, 2, 100, 200), (1, 1, 100, 400), (0, 0, 450, 500)]);
        assert_eq!(with.timeline.messages.len(), 2);
        assert!(without.timeline.busy.is_empty() && without.timeline.messages.is_empty());
        let rest = |a: &Analysis| {
            let mut a = a.clone();
            a.timeline.busy.clear();
            a.timeline.messages.clear();
            format!("{a:?}")
        };
        assert_eq!(rest(&with), rest(&without));
        // Main's 100..150 recorded after its 450..500: its CPU times cannot be followed
        // event by event and are computed from all its intervals, to the same weights.
        let mut late = e.clone();
        let k = late.iter().position(|x| *x == busy(0, 100, 150)).unwrap();
        let moved = late.remove(k);
        late.insert(late.len() - 1, moved);
        let path = |a: &Analysis| format!("{:?}", (&a.critical, &a.weighted));
        for charts in [false, true] {
            assert_eq!(path(&run(&late, charts)), path(&with), "charts {charts}");
        }
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

    /// The seed's relabelling (seed 003 Fig. 3.2 B) on a hand-built run, n = 2
    /// processors. Main (pid 0, pproc 0) forks B (pid 1) and A (pid 2), both on its own
    /// processor, at 0, and waits for its children. Processor 0 runs B 0..10, then A
    /// 10..110 (A ends), then B 110..160; at 110 B forks pid 3 onto processor 1, which
    /// runs 110..160. Busy processors: [0,110) 1 (P = 1/2), [110,160) 2 (P = 1).
    ///
    /// The elapsed-time critical path ends at the last event (B's end at 160): B's
    /// computation 0..160, 160 long; B computed only 10 + 50 of it (it waited 100 for its
    /// processor), so it weighs w(10, P ½) + w(50, P 1) = (10 + ½·1·10) + 50 = 65.
    /// The heaviest path ends at A's end instead: the spawn 0..10 (A waited for its
    /// processor before it first ran), w = 10 + ½·10 = 15, then A's computation 10..110,
    /// 100 of CPU at P = ½, w = 100 + ½·100 = 150: 165 in all. Every other path weighs
    /// 65 (through pid 3: 15 + 50) or less. (The record says when each process starts
    /// running, as cpss's do: a process begins there, not where it was created.)
    #[test]
    fn the_weighted_critical_path_is_the_heaviest_not_the_longest() {
        let header =
            RunHeader { pprocs: 2, functions: vec!["main".into(), "b".into(), "a".into()], ..RunHeader::default() };
        let create = |time, parent, pid, pproc, function| Event::ProcCreate {
            time,
            parent,
            pid,
            vproc: None,
            pproc,
            function,
            line: 0,
        };
        let run = |time, pid| Event::State { time, pid, state: crate::trace::ProcState::Running, reason: Reason::None };
        let busy = |pproc, pid, start, end| Event::Busy {
            pproc,
            pid,
            start,
            end,
            line: 1,
            class: crate::trace::BusyClass::Work,
        };
        let events = vec![
            create(0, None, 0, 0, 0),
            run(0, 0),
            create(0, Some(0), 1, 0, 1),
            create(0, Some(0), 2, 0, 2),
            Event::State { time: 0, pid: 0, state: crate::trace::ProcState::Blocked, reason: Reason::Children },
            run(0, 1),
            busy(0, 1, 0, 10),
            run(10, 2),
            busy(0, 2, 10, 110),
            Event::ProcEnd { time: 110, pid: 2 },
            create(110, Some(1), 3, 1, 1),
            run(110, 3),
            busy(0, 1, 110, 160),
            Event::ProcEnd { time: 160, pid: 1 },
            busy(1, 3, 110, 160),
            Event::ProcEnd { time: 160, pid: 3 },
            Event::ProcEnd { time: 160, pid: 0 },
        ];
        let stats = RunStats { seq_ticks: 210, par_ticks: 160, pprocs_used: 2, processes: 4, ..RunStats::default() };
        let a = analyze_events(&header, &events, &stats);
        let shape = |c: &CriticalPath| -> Vec<(EdgeKind, u32, u64, u64, u64)> {
            c.segments.iter().map(|g| (g.kind, g.pid, g.from, g.to, g.busy)).collect()
        };
        assert_eq!(a.critical.length, 160);
        assert_eq!(shape(&a.critical), vec![(EdgeKind::Compute, 1, 0, 160, 60)]);
        assert!((a.critical.total_weight - 65.0).abs() < 1e-9, "{}", a.critical.total_weight);
        assert_eq!(a.weighted.processors, 2);
        assert_eq!(shape(&a.weighted), vec![(EdgeKind::Spawn, 0, 0, 10, 0), (EdgeKind::Compute, 2, 10, 110, 100)]);
        let w: Vec<f64> = a.weighted.segments.iter().map(|g| g.weight).collect();
        assert_eq!(w, vec![15.0, 150.0]);
        assert_eq!(a.weighted.total_weight, 165.0);
        // The report says they differ.
        assert!(
            render::text(&a).contains("Not the elapsed-time critical path (which weighs 0.065)"),
            "{}",
            render::text(&a)
        );
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
    fn three_process_imbalance() {
        let (h, e, s) = three_processes();
        let m = analyze_events(&h, &e, &s).imbalance;
        // worker: processes 1 and 2, busy 300 and 100 (mean 200, max 300); the path holds
        // worker 1's compute 100..400 = 300, all of it busy: imbalance 300 − 200 = 100,
        // max/mean 1.5. main: busy 200; on the path 0..100 and 450..500 = 150, busy
        // throughout, < 200: imbalance 0.
        let rows = imbalance::tests::function_rows(&m);
        assert_eq!(rows, vec![("worker", 2, 300, 300, 200.0, 300, 100.0), ("main", 1, 150, 150, 200.0, 200, 0.0)]);
        // Had worker 1 waited 100..200 for its processor (busy 200..400 only), the path
        // would hold 200 of its computation: 200 − mean (200 + 100)/2 = 50. (The record
        // has no `Running` states, so the worker began where it was created, at 100.)
        let (h, mut e, s) = three_processes();
        e[12] = Event::Busy { pproc: 1, pid: 1, start: 200, end: 400, line: 1, class: crate::trace::BusyClass::Work };
        let f = &analyze_events(&h, &e, &s).imbalance.functions[0];
        assert_eq!((f.function.as_str(), f.path_time, f.path_busy, f.imbalance), ("worker", 300, 200, 50.0));
        assert_eq!(m.functions[0].max_over_mean(), 1.5);
        // Total 100 of a 500-tick path: 20 %.
        assert_eq!((m.total, m.share), (100.0, 20.0));
    }

    fn what_if(targets: &[&str]) -> Result<Vec<(String, Ticks)>, PerfError> {
        let (h, e, s) = three_processes();
        let opts = Options {
            what_if: targets.iter().map(|t| whatif::Target::parse(t).unwrap()).collect(),
            ..Options::default()
        };
        let mut a = Analyzer::new(&h, &opts);
        for x in &e {
            a.event(x);
        }
        Ok(a.finish(&s)?.what_if.iter().map(|o| (o.target.to_string(), o.new_length)).collect())
    }

    #[test]
    fn three_process_what_if() {
        // function=worker: the workers' 300 and 100 of computation vanish; each message
        // still takes 50 from its send (at the fork, 100) and arrives at 150, when main
        // calls its first receive anyway. Main's own time is left: 100 + 50 + 50 = 200.
        // function=main: main's 100 + 50 + 50 vanish, the workers start at 0; worker 1
        // computes 300 and its message takes 50: 350.
        let got = what_if(&["function=worker", "function=main"]).unwrap();
        assert_eq!(got, vec![("function=worker".into(), 200), ("function=main".into(), 350)]);
        // No probes, so no phases to zero; an unknown function names the known ones.
        let e = what_if(&["phase=x"]).unwrap_err();
        assert_eq!(e.to_string(), "--what-if phase=x: no such phase in the run (it has: no probes)");
        let e = what_if(&["function=nope"]).unwrap_err();
        assert!(e.to_string().contains("(it has: main, worker)"), "{e}");
    }

    #[test]
    fn three_process_phases_between_probes_of_main() {
        // Probes of main at 100 ("work") and 450 ("finish"), a probe of worker 2 at 150
        // that is ignored. With the weights of `three_process_critical_path_and_weights`:
        // before 0..100 = 233.33 (21.21 %), work 100..450 = 600 + 150 = 750 (68.18 %),
        // finish 450..500 = 116.67 (10.61 %).
        let (mut h, mut e, s) = three_processes();
        h.labels = vec!["work".into(), "finish".into()];
        e.insert(4, Event::Probe { time: 100, pid: 0, pproc: 0, id: 1, label: 0 });
        e.insert(6, Event::Probe { time: 150, pid: 2, pproc: 2, id: 7, label: 1 });
        e.insert(17, Event::Probe { time: 450, pid: 0, pproc: 0, id: 2, label: 1 });
        let p = analyze_events(&h, &e, &s).phases;
        let rows: Vec<(&str, Ticks)> = p.phases.iter().map(|x| (x.label.as_str(), x.time)).collect();
        assert_eq!(rows, vec![(phases::BEFORE, 100), ("work", 350), ("finish", 50)]);
        let want = [100.0 + 400.0 / 3.0, 750.0, 50.0 + 200.0 / 3.0];
        for (x, w) in p.phases.iter().zip(want) {
            assert!((x.weight - w).abs() < 1e-9, "{} vs {w}", x.weight);
            assert!((x.share - 100.0 * w / 1100.0).abs() < 1e-9);
        }
        // A probe inside worker 1's compute (at 250) cuts it: 100..250 has busy area
        // 150 + 100 + 50 = 300 of 450, P = 2/3, w = 150 + (1/3)·2·150 = 250; 250..450 =
        // 250..400 (P = 1/3, w = 150 + (2/3)·2·150 = 350) + the message 150 = 500.
        e[17] = Event::Probe { time: 250, pid: 0, pproc: 0, id: 2, label: 1 };
        e.sort_by_key(Event::time);
        let p = analyze_events(&h, &e, &s).phases;
        let w: Vec<f64> = p.phases.iter().map(|x| x.weight).collect();
        let want = [100.0 + 400.0 / 3.0, 250.0, 350.0 + 150.0 + 50.0 + 200.0 / 3.0];
        for (x, w) in w.iter().zip(want) {
            assert!((x - w).abs() < 1e-9, "{x} vs {w}");
        }
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
    fn the_dispatch_on_kind_feeds_each_builder_what_it_uses() {
        // The reference: every builder sees every event (each ignores the kinds it does
        // not use), as before the dispatch. Events of every kind, so a builder left out
        // of a kind's arm changes some report and the Debug text of the analyses differs.
        let (mut h, mut e, s) = three_processes();
        h.labels = vec!["work".into()];
        e.insert(4, Event::Probe { time: 100, pid: 0, pproc: 0, id: 1, label: 0 });
        e.insert(5, Event::Label { time: 100, index: 1, text: "more".into() });
        e.insert(6, Event::Probe { time: 100, pid: 0, pproc: 0, id: 2, label: 1 });
        e.insert(7, Event::State { time: 100, pid: 0, state: crate::trace::ProcState::Running, reason: Reason::None });
        e.insert(8, Event::TimeOff { time: 100, pid: 0 });
        e.insert(9, Event::TimeOn { time: 100, pid: 0 });
        e.insert(10, Event::Hop { msg: 2, packet: 0, from: 2, to: 0, enter: 100, leave: 120 });
        e.push(Event::LineCost { time: 500, line: 1, work: 600, overhead: 7 });
        let opts = Options::default();
        let mut a = Analyzer::new(&h, &opts);
        let mut b = Analyzer::new(&h, &opts);
        for x in &e {
            a.event(x);
            b.events += 1;
            if let Event::ProcCreate { pid, function, .. } = *x {
                b.functions.insert(pid, h.function_name(function).unwrap_or("?").to_string());
            }
            b.front.summary.event(x);
            b.graph.event(x);
            b.front.unmatched.event(x);
            b.timeline.event(x);
            b.profile.event(x);
            b.phases.event(x);
            b.lines.event(x);
            b.links.event(x);
            b.processes.event(x);
            for (p, s0, s1, st) in b.front.states.event(x) {
                add_state(&mut b.front.time, b.front.last, p, s0, s1, st);
            }
        }
        let (a, b) = (a.finish_reports(&s), b.finish_reports(&s));
        assert!(a.links.traced && a.phases.pid == Some(0) && a.lines.lines[0].overhead == 7);
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
    }

    #[test]
    fn the_two_thread_reading_gives_the_one_thread_analysis() {
        // More events than fit in a few batches: the record read by two threads
        // (analyze) and the same events fed on one (analyze_events) give the same
        // analysis; a record cut in the middle is an error (the reader stops, the
        // analysing thread drains what it got, nothing hangs).
        let (mut h, mut e, s) = three_processes();
        h.channels = vec![crate::trace::ChannelDecl { name: "c".into(), dims: vec![] }];
        e.pop();
        let mut t = 500;
        for k in 0..3 * BATCH as u64 {
            e.push(Event::Busy {
                pproc: (k % 3) as u32,
                pid: 0,
                start: t,
                end: t + 7,
                line: 1,
                class: crate::trace::BusyClass::Work,
            });
            t += 7;
        }
        e.push(Event::ProcEnd { time: t, pid: 0 });
        let mut w = crate::trace::RunRecordWriter::new(Vec::new(), &h).unwrap();
        for x in &e {
            w.event(x);
        }
        let bytes = w.finish(&s).unwrap();
        let a = analyze(&bytes[..]).unwrap();
        assert_eq!(a.events, e.len() as u64);
        assert_eq!(format!("{a:?}"), format!("{:?}", analyze_events(&h, &e, &s)));
        let err = analyze(&bytes[..bytes.len() / 2]).unwrap_err().to_string();
        assert!(err.contains("ends without a footer"), "{err}");
    }

    /// `analyze_with` on a run record honours a window as `analyze_any_with` does: the
    /// three-process run (parallel time 500) cut to 100..400 lasts 300, and worker 1,
    /// busy 100..400, is busy all of it.
    #[test]
    fn analyze_with_honours_a_window() {
        let (mut h, e, s) = three_processes();
        h.channels = vec![crate::trace::ChannelDecl { name: "c".into(), dims: vec![] }];
        let mut w = crate::trace::RunRecordWriter::new(Vec::new(), &h).unwrap();
        for x in &e {
            w.event(x);
        }
        let bytes = w.finish(&s).unwrap();
        let opts = Options { window: Some(window::Window { from: 100, to: 400 }), ..Options::default() };
        let a = analyze_with(&bytes[..], &opts).unwrap();
        assert_eq!(a.summary.par_ticks, 300);
        assert_eq!(a.summary.utilization().iter().find(|(p, _)| *p == 1).map(|&(_, u)| u), Some(100.0));
    }

    #[test]
    fn a_graph_beyond_its_node_limit_is_an_error() {
        // The three-process run makes 14 nodes: 3 inits, 2 forks, 2 receive calls, 2
        // sends, 2 completions, 3 exits. An event is taken only while 6 more nodes (the
        // most one adds) fit: the last event comes with 13 nodes, so a limit of 19 takes
        // every event and 18 does not; then the analysis is an error, not a wrong path.
        let (h, e, s) = three_processes();
        let opts = Options::default();
        for (limit, full) in [(14, true), (18, true), (19, false)] {
            let mut a = Analyzer::new(&h, &opts);
            a.graph = GraphBuilder::with_limit(limit);
            for x in &e {
                a.event(x);
            }
            match a.finish(&s) {
                Err(PerfError::TooLarge { limit: l, events: 19 }) => assert!(full && l == limit),
                Ok(a) => assert!(!full && a.critical.length == 500),
                Err(e) => panic!("{e}"),
            }
        }
    }

    /// A machine may have up to 2^24 processors (more than the 2^20 a trace may name):
    /// a process busy 0..10 on processor 2^20 + 5 of a machine of 2^20 + 6 shows in the
    /// state table running for 10 ticks, after a row for each processor before it (idle
    /// throughout: 10 ticks), as in the summary's busy time.
    #[test]
    fn processors_beyond_a_trace_s_limit_have_their_states() {
        let p = import::MAX_PPROC + 5;
        let header = RunHeader { pprocs: p + 1, functions: vec!["main".into()], ..RunHeader::default() };
        let events = vec![
            Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: p, function: 0, line: 0 },
            Event::Busy { pproc: p, pid: 0, start: 0, end: 10, line: 1, class: crate::trace::BusyClass::Work },
            Event::ProcEnd { time: 10, pid: 0 },
        ];
        let stats = RunStats { seq_ticks: 10, par_ticks: 10, pprocs_used: 1, ..RunStats::default() };
        let a = analyze_events(&header, &events, &stats);
        assert_eq!(a.summary.busy, vec![(p, 10)]);
        assert_eq!(a.states.len(), p as usize + 1);
        let (running, idle) = (PState::Running.report_index(), PState::Idle.report_index());
        assert_eq!((a.states[p as usize].0, a.states[p as usize].1[running]), (p, 10));
        assert_eq!(a.states[0].1[idle], 10);
    }

    #[test]
    fn a_damaged_record_is_an_error_not_a_panic() {
        assert!(analyze(&b"CPPE\0RUN\x01"[..]).is_err());
        assert!(analyze(&b"not a record"[..]).is_err());
    }
}
