//! What-if critical-path zeroing (`cpperf --what-if`, Paradyn's critical-path zeroing,
//! FORMATS.md): how much shorter would the run be if one activity took no time?
//!
//! The execution graph of [`super::graph`] is rebuilt with every constraint a node
//! obeys, not only the one that was critical, and replayed: each node's new time is the
//! latest of its predecessors' new times plus the edges' weights. The edges and weights:
//!
//! * **vertical** (the process's own time between two consecutive events): the elapsed
//!   time, except that at a receive completion it starts at the message's arrival when
//!   the process waited for it, and at a resumption from `join`/`forall` at the latest
//!   child end, so that waiting is never counted as the process's own time;
//! * **message** (send → receive completion): latency (arrival − send) plus the
//!   receiver's own time to complete the receive;
//! * **spawn** (fork → child creation) and **join** (every child end → the parent's next
//!   resumption, plus the parent's own time to resume).
//!
//! With the weights unchanged the replay gives back every node's time, so the new length
//! is the critical path's. A target sets some vertical weights to zero:
//!
//! * `function=NAME` — every vertical edge of the processes created running `NAME`
//!   (`main` is process 0): their computation, and also any time they spent blocked on
//!   remote memory, a lock, `delay()` or their processor, takes no time;
//! * `phase=LABEL` — the part of every process's vertical edges inside the phase
//!   `LABEL` (see [`super::phases`], all its occurrences) takes no time.
//!
//! Messages, spawns and joins keep their time, so zeroing may move the critical path to
//! other processes. Only built when asked for: memory grows with the graph's nodes.
//! Linear in the events apart from map look-ups by message id. Depends on [`crate::trace`].
use super::table::{table_csv, table_json, Cell};
use crate::time::format_time;
use crate::time::Ticks;
use crate::trace::{Event, ProcState, Reason, RunHeader};
use std::collections::BTreeMap;
use std::fmt::Write;

/// What `--what-if` zeroes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The vertical edges of the processes running this function.
    Function(String),
    /// The vertical edges inside the phase with this probe label.
    Phase(String),
}

impl Target {
    /// Parses `function=NAME` or `phase=LABEL`.
    pub fn parse(s: &str) -> Result<Target, String> {
        match s.split_once('=') {
            Some(("function", n)) if !n.is_empty() => Ok(Target::Function(n.to_string())),
            Some(("phase", l)) if !l.is_empty() => Ok(Target::Phase(l.to_string())),
            _ => Err(format!("bad --what-if {s:?}: expected function=NAME or phase=LABEL")),
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Function(n) => write!(f, "function={n}"),
            Target::Phase(l) => write!(f, "phase={l}"),
        }
    }
}

/// The answer for one target.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// What was zeroed.
    pub target: Target,
    /// The critical path's length, ticks.
    pub length: Ticks,
    /// The length with the target's time zeroed, ticks.
    pub new_length: Ticks,
}

impl Outcome {
    /// length − new length.
    pub fn saving(&self) -> Ticks {
        self.length.saturating_sub(self.new_length)
    }

    /// The saving in percent of the length.
    pub fn saving_percent(&self) -> f64 {
        if self.length == 0 {
            0.0
        } else {
            100.0 * self.saving() as f64 / self.length as f64
        }
    }
}

/// A target that names nothing in the run.
#[derive(Debug, thiserror::Error)]
#[error("--what-if {target}: no such {what} in the run (it has: {known})")]
pub struct UnknownTarget {
    /// The target asked for.
    pub target: Target,
    /// `function` or `phase`.
    pub what: &'static str,
    /// The names the run has.
    pub known: String,
}

const NONE: usize = usize::MAX;

/// The execution graph with all constraints, built one event at a time.
#[derive(Debug, Default)]
pub struct WhatIfBuilder {
    /// `(pid, time)` of each node.
    nodes: Vec<(u32, Ticks)>,
    /// The previous node of the same process (`NONE` for none).
    vertical: Vec<usize>,
    /// `(creation node, fork node)`.
    spawns: Vec<(usize, usize)>,
    /// `(completion node, message)`.
    receives: Vec<(usize, u64)>,
    /// `(resumption node, parent pid)`.
    wakes: Vec<(usize, u32)>,
    last_of: BTreeMap<u32, usize>,
    send_of: BTreeMap<u64, usize>,
    arrival: BTreeMap<u64, Ticks>,
    parent_of: BTreeMap<u32, u32>,
    /// End nodes of each parent's children, in record order.
    child_ends: BTreeMap<u32, Vec<usize>>,
    waiting: BTreeMap<u32, Ticks>,
    /// pid → function index.
    function_of: BTreeMap<u32, u32>,
}

impl WhatIfBuilder {
    fn push(&mut self, pid: u32, time: Ticks, wake: bool) -> usize {
        if !wake {
            self.wake(pid, time);
        }
        let i = self.nodes.len();
        self.nodes.push((pid, time));
        self.vertical.push(self.last_of.insert(pid, i).unwrap_or(NONE));
        i
    }

    /// As [`super::graph::GraphBuilder`]: a process waiting for its children resumes at
    /// its next event at the latest.
    fn wake(&mut self, pid: u32, time: Ticks) {
        if self.waiting.remove(&pid).is_some() {
            let last = self.last_of.get(&pid).map_or(0, |&l| self.nodes[l].1);
            let i = self.push(pid, time.max(last), true);
            self.wakes.push((i, pid));
        }
    }

    /// Takes one event into account (the node rules of [`super::graph`]).
    pub fn event(&mut self, e: &Event) {
        match *e {
            Event::ProcCreate { time, parent, pid, function, .. } => {
                self.function_of.insert(pid, function);
                let fork = parent.map(|p| self.push(p, time, false));
                let init = self.push(pid, time, false);
                if let (Some(f), Some(p)) = (fork, parent) {
                    self.spawns.push((init, f));
                    self.parent_of.insert(pid, p);
                }
            }
            Event::ProcEnd { time, pid } => {
                let i = self.push(pid, time, false);
                if let Some(&p) = self.parent_of.get(&pid) {
                    self.child_ends.entry(p).or_default().push(i);
                }
            }
            Event::State { time, pid, state, reason } => {
                if state == ProcState::Blocked && matches!(reason, Reason::Join | Reason::Forall | Reason::Children) {
                    self.waiting.insert(pid, time);
                } else {
                    self.wake(pid, time);
                }
            }
            // Remote-memory traffic is not an edge: the wait it causes is (a remote
            // read's suspension, ended when the reader resumes).
            Event::MsgSend { time, msg, src_pid, purpose: crate::trace::MsgPurpose::Channel { .. }, .. } => {
                let i = self.push(src_pid, time, false);
                self.send_of.insert(msg, i);
            }
            Event::MsgArrive { time, msg, .. } => {
                self.arrival.insert(msg, time);
            }
            Event::RecvCall { time, pid, .. } => {
                self.push(pid, time, false);
            }
            Event::RecvDone { time, pid, msg, .. } => {
                let i = self.push(pid, time, false);
                self.receives.push((i, msg));
            }
            Event::Busy { pid, start, end, .. }
                if self.waiting.get(&pid).is_some_and(|&since| start >= since && end > since) =>
            {
                self.wake(pid, start);
            }
            _ => {}
        }
    }

    /// The outcome of each target, in order: `header` names the functions, `phases`
    /// gives each phase label's spans (sorted, disjoint), `length` is the critical path's.
    pub fn finish(
        self,
        targets: &[Target],
        header: &RunHeader,
        phases: &[(String, Vec<(Ticks, Ticks)>)],
        length: Ticks,
    ) -> Result<Vec<Outcome>, UnknownTarget> {
        let g = self.resolve();
        let mut out = Vec::new();
        for t in targets {
            let zero: Box<dyn Fn(u32, Ticks, Ticks) -> Ticks> = match t {
                Target::Function(name) => {
                    let f = (0..header.functions.len() as u32).find(|&k| header.function_name(k) == Some(name));
                    let ran = f.filter(|f| g.function_of.values().any(|x| x == f));
                    let Some(f) = ran else {
                        let mut known: Vec<&str> =
                            g.function_of.values().filter_map(|&k| header.function_name(k)).collect();
                        known.sort_unstable();
                        known.dedup();
                        return Err(UnknownTarget { target: t.clone(), what: "function", known: known.join(", ") });
                    };
                    let of = &g.function_of;
                    Box::new(move |pid, a, b| if of.get(&pid) == Some(&f) { b - a } else { 0 })
                }
                Target::Phase(label) => {
                    let Some((_, spans)) = phases.iter().find(|(l, _)| l == label) else {
                        let known: Vec<&str> = phases.iter().map(|(l, _)| l.as_str()).collect();
                        let known = if known.is_empty() { "no probes".to_string() } else { known.join(", ") };
                        return Err(UnknownTarget { target: t.clone(), what: "phase", known });
                    };
                    let spans = spans.clone();
                    Box::new(move |_, a, b| overlap(&spans, a, b))
                }
            };
            out.push(Outcome { target: t.clone(), length, new_length: g.replay(&*zero, length) });
        }
        Ok(out)
    }

    /// The replay with nothing zeroed: every node keeps its time, so this is the critical
    /// path's `length` again on any well-formed record (a check of the graph's rules).
    pub fn baseline(self, length: Ticks) -> Ticks {
        self.resolve().replay(&|_, _, _| 0, length)
    }

    fn resolve(self) -> Graph {
        let n = self.nodes.len();
        // The start of each vertical edge's own time: the arrival or the latest child end
        // when the process waited for it.
        let mut own_from: Vec<Ticks> = (0..n)
            .map(|i| if self.vertical[i] == NONE { self.nodes[i].1 } else { self.nodes[self.vertical[i]].1 })
            .collect();
        let mut other: Vec<(usize, usize, Ticks)> = Vec::new();
        for &(i, f) in &self.spawns {
            other.push((i, f, self.nodes[i].1.saturating_sub(self.nodes[f].1)));
        }
        for &(i, msg) in &self.receives {
            let Some(&s) = self.send_of.get(&msg) else { continue };
            let t = self.nodes[i].1;
            if s >= i || self.nodes[s].1 > t {
                continue;
            }
            let arrived = self.arrival.get(&msg).copied().unwrap_or(t).clamp(self.nodes[s].1, t);
            own_from[i] = own_from[i].max(arrived);
            other.push((i, s, arrived - self.nodes[s].1));
        }
        // Each resumption waits for the children that ended since the parent's previous
        // resumption (and before this one).
        let mut taken: BTreeMap<u32, usize> = BTreeMap::new();
        for &(i, parent) in &self.wakes {
            let t = self.nodes[i].1;
            let ends = self.child_ends.get(&parent).map(Vec::as_slice).unwrap_or_default();
            let k = taken.entry(parent).or_insert(0);
            while *k < ends.len() && ends[*k] < i {
                let c = ends[*k];
                if self.nodes[c].1 <= t {
                    own_from[i] = own_from[i].max(self.nodes[c].1);
                    other.push((i, c, 0));
                }
                *k += 1;
            }
        }
        other.sort_unstable();
        Graph { nodes: self.nodes, vertical: self.vertical, own_from, other, function_of: self.function_of }
    }
}

/// Ticks of `[a, b)` inside the sorted disjoint `spans`.
fn overlap(spans: &[(Ticks, Ticks)], a: Ticks, b: Ticks) -> Ticks {
    let k = spans.partition_point(|s| s.1 <= a);
    spans[k..].iter().take_while(|s| s.0 < b).map(|s| s.1.min(b).saturating_sub(s.0.max(a))).sum()
}

struct Graph {
    nodes: Vec<(u32, Ticks)>,
    vertical: Vec<usize>,
    /// Start of the own part of the vertical edge into each node.
    own_from: Vec<Ticks>,
    /// `(node, other predecessor, latency)`, sorted by node: a message's arrival − send,
    /// a spawn's creation − fork, 0 for a join.
    other: Vec<(usize, usize, Ticks)>,
    function_of: BTreeMap<u32, u32>,
}

impl Graph {
    /// The new length when `zero(pid, a, b)` ticks of the own time `[a, b)` of `pid`
    /// take no time; `length` is the original critical path's.
    fn replay(&self, zero: &dyn Fn(u32, Ticks, Ticks) -> Ticks, length: Ticks) -> Ticks {
        let n = self.nodes.len();
        let mut new = vec![0 as Ticks; n];
        let mut j = 0;
        let mut end = 0 as Ticks;
        for i in 0..n {
            let (pid, t) = self.nodes[i];
            let from = self.own_from[i].min(t);
            let own = (t - from) - zero(pid, from, t).min(t - from);
            let v = self.vertical[i];
            let mut best: Option<Ticks> = None;
            if v != NONE && self.nodes[v].1 <= t {
                best = Some(new[v] + own);
            }
            while j < self.other.len() && self.other[j].0 < i {
                j += 1;
            }
            while j < self.other.len() && self.other[j].0 == i {
                let (_, p, latency) = self.other[j];
                // The edge's latency, then the receiving node's own time.
                let w = latency + own;
                best = Some(best.map_or(new[p] + w, |b| b.max(new[p] + w)));
                j += 1;
            }
            // A node without predecessors keeps its time.
            new[i] = best.unwrap_or(t);
            end = end.max(new[i]);
        }
        let last = self.nodes.iter().map(|x| x.1).max().unwrap_or(0);
        end.saturating_sub(last.saturating_sub(length))
    }
}

/// The text section (nothing without targets).
pub fn text(out: &[Outcome]) -> String {
    let mut o = String::new();
    if out.is_empty() {
        return o;
    }
    let _ = writeln!(o, "\nWhat if (critical-path zeroing)");
    for w in out {
        let _ = writeln!(
            o,
            "  {}: critical path {} -> {}, {} shorter ({:.2} %)",
            w.target,
            format_time(w.length),
            format_time(w.new_length),
            format_time(w.saving()),
            w.saving_percent()
        );
    }
    o
}

/// The columns of the what-if table, in CSV and JSON alike.
const COLUMNS: [&str; 5] = ["target", "length", "new_length", "saving", "saving_percent"];

fn cells(w: &Outcome) -> [Cell; 5] {
    [
        Cell::Text(w.target.to_string()),
        Cell::Num(format_time(w.length)),
        Cell::Num(format_time(w.new_length)),
        Cell::Num(format_time(w.saving())),
        Cell::Num(format!("{:.4}", w.saving_percent())),
    ]
}

/// The JSON array of the outcomes.
pub fn json(out: &[Outcome]) -> serde_json::Value {
    table_json(&COLUMNS, out.iter().map(cells))
}

/// The CSV table `target,length,new_length,saving,saving_percent`.
pub fn csv(out: &[Outcome]) -> String {
    table_csv(&COLUMNS, out.iter().map(cells))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::BusyClass;

    #[test]
    fn the_replay_without_zeroing_gives_back_the_critical_path() {
        // `perf::tests::three_processes`: a 500-tick path with two receives that waited.
        let (_, evs, _) = crate::perf::tests::three_processes();
        let mut b = WhatIfBuilder::default();
        for e in &evs {
            b.event(e);
        }
        assert_eq!(b.baseline(500), 500);
    }

    #[test]
    fn targets_parse_and_overlap_counts_inside_spans() {
        assert_eq!(Target::parse("function=worker"), Ok(Target::Function("worker".into())));
        assert_eq!(Target::parse("phase=reading image"), Ok(Target::Phase("reading image".into())));
        assert!(Target::parse("worker").is_err());
        assert!(Target::parse("function=").is_err());
        assert!(Target::parse("line=3").is_err());
        // Spans [10,20) and [30,40): [15,35) overlaps 5 + 5.
        assert_eq!(overlap(&[(10, 20), (30, 40)], 15, 35), 10);
        assert_eq!(overlap(&[(10, 20), (30, 40)], 20, 30), 0);
        assert_eq!(overlap(&[], 0, 9), 0);
    }

    /// A parent forks children on their own processors and waits in `join`: child 1
    /// computes 10..70, child 2 10..40; the parent computes 0..10 and 70..80.
    #[test]
    fn zeroing_the_longer_child_leaves_the_shorter_one_critical() {
        let header =
            RunHeader { functions: vec!["main".into(), "long".into(), "short".into()], ..RunHeader::default() };
        let busy = |pid: u32, start, end| Event::Busy { pproc: pid, pid, start, end, line: 0, class: BusyClass::Work };
        let evs = vec![
            Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 },
            Event::ProcCreate { time: 10, parent: Some(0), pid: 1, vproc: None, pproc: 1, function: 1, line: 3 },
            Event::ProcCreate { time: 10, parent: Some(0), pid: 2, vproc: None, pproc: 2, function: 2, line: 4 },
            Event::State { time: 10, pid: 0, state: ProcState::Blocked, reason: Reason::Join },
            busy(0, 0, 10),
            busy(2, 10, 40),
            Event::ProcEnd { time: 40, pid: 2 },
            busy(1, 10, 70),
            Event::ProcEnd { time: 70, pid: 1 },
            busy(0, 70, 80),
            Event::ProcEnd { time: 80, pid: 0 },
        ];
        let mut b = WhatIfBuilder::default();
        for e in &evs {
            b.event(e);
        }
        let targets: Vec<Target> =
            ["function=long", "function=short", "function=main"].iter().map(|s| Target::parse(s).unwrap()).collect();
        let out = b.finish(&targets, &header, &[], 80).unwrap();
        let lengths: Vec<Ticks> = out.iter().map(|o| o.new_length).collect();
        // long = 0: the parent waits for short instead: 10 + 30 + 10 = 50 (saving 30,
        // 37.5 %). short = 0: long still takes 60: 80, no saving. main = 0: the parent's
        // 10 + 10 vanish, the children start at 0: 60.
        assert_eq!(lengths, vec![50, 80, 60]);
        assert_eq!((out[0].saving(), out[0].saving_percent()), (30, 37.5));
        // A function no process ran is an error naming those that ran.
        let mut b = WhatIfBuilder::default();
        for e in &evs {
            b.event(e);
        }
        let e = b.finish(&[Target::Function("nope".into())], &header, &[], 80).unwrap_err();
        assert_eq!(e.to_string(), "--what-if function=nope: no such function in the run (it has: long, main, short)");
    }
}
