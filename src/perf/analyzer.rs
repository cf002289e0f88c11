//! The analysis of one run: the builders fed event by event ([`Analyzer`], and on the
//! reading thread [`Front`]), the two threads of [`analyze_with`], and the end, whose
//! independent steps run side by side.
use super::*;

/// Events per batch handed from the reading thread to the analysing one.
pub(super) const BATCH: usize = 4096;
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

pub(super) struct Analyzer<'h> {
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
            Event::MsgArrive { .. } => {
                self.summary.event(e);
                self.unmatched.event(e);
            }
            Event::RecvCall { .. } | Event::RecvDone { .. } => self.unmatched.event(e),
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
            let (time, last) = (&mut self.time, self.last);
            self.states.each(e, |p, a, b, st| add_state(time, last, p, a, b, st));
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
    pub(super) fn new(header: &'h RunHeader, opts: &'h Options) -> Self {
        Analyzer {
            header,
            opts,
            graph: GraphBuilder::default(),
            timeline: svg::TimelineBuilder::new(opts.charts),
            profile: profile::ProfileBuilder::new(&header.functions),
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
    pub(super) fn event(&mut self, e: &Event) {
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
                self.lines.event(e);
            }
            Event::RecvDone { .. } => {
                self.graph.event(e);
                self.timeline.event(e);
                self.profile.event(e);
                self.processes.event(e);
                self.lines.event(e);
            }
            Event::MsgArrive { .. } | Event::RecvCall { .. } => {
                self.graph.event(e);
                self.timeline.event(e);
                self.profile.event(e);
                self.lines.event(e);
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
                self.lines.event(e);
            }
            Event::State { .. } => {
                self.graph.event(e);
                self.timeline.event(e);
                self.lines.event(e);
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
            Event::Enter { .. } | Event::Leave { .. } => {
                if self.profile.wants_calls() {
                    self.profile.event(e);
                }
            }
        }
        if let Some(w) = &mut self.what_if {
            w.event(e);
        }
        if let Some(p) = &mut self.procedures {
            p.event(e);
        }
    }

    /// The analysis, answering the `--what-if` targets (an error when one names nothing).
    pub(super) fn finish(mut self, stats: &RunStats) -> Result<Analysis, PerfError> {
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
        let mut bounds = timeline.take_bounds();
        let (busy, (path, (messages, weak))) = rayon::join(
            || {
                bounds.sort();
                graph::BusyProfile::from_sorted(bounds)
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
    use crate::perf::tests::three_processes;
    use crate::trace::Reason;

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
            let (time, last) = (&mut b.front.time, b.front.last);
            b.front.states.each(x, |p, s0, s1, st| add_state(time, last, p, s0, s1, st));
        }
        let (a, b) = (a.finish_reports(&s), b.finish_reports(&s));
        assert!(a.links.traced && a.phases.pid == Some(0) && a.lines.lines[0].overhead == 7);
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
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
}
