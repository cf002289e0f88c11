//! Phases between `probe` events on the weighted critical path (SPEC §6, seed 003 §6.2,
//! Table 6.1 "Phase in WCPA / Relative weight").
//!
//! The seed places one probe before each phase of the main program and measures a phase
//! "by the elapsed time between [its probe] and the [next probe] on the weighted critical
//! path and the percentage of the total weight between them". So:
//!
//! * The **delimiting process** is the lowest-numbered process that ran any `probe`
//!   (process 0 when `main` probes, as in the seed); probes of other processes do not
//!   delimit phases.
//! * Each of its probes opens a phase that lasts until its next probe; the last lasts to
//!   the end of the critical path. Time on the path before the first probe is the phase
//!   `(before first probe)`.
//! * A phase is named by its probe's label and id; the occurrences of one `(id, label)`
//!   (a probe in a loop) are summed into one row, rows in order of first occurrence.
//! * A phase's **weight** is the WCPA weight of the part of the critical path inside its
//!   time span: whole segments count with their weight, a segment cut by a probe is
//!   weighed piecewise with each piece's own P (the weight Δt + (1 − P)(n − 1)Δt =
//!   nΔt − (n − 1)·busy area / n is additive in time, so the phases' weights sum to the
//!   path's total). Its **share** is the weight over the path's total weight; its
//!   **time** the critical-path time inside it.
//!
//! Linear in the events and the path's segments (a merge of two time-ordered lists); cut
//! segments are weighed with the run's busy profile, shared with the critical path. Depends on
//! [`super::graph`] and [`crate::trace`].
use super::graph::{wcpa_weight, BusyProfile, CriticalPath, EdgeKind};
use super::table::{table_csv, table_json, Cell};
use crate::time::format_time;
use crate::time::{Ticks, TICKS_PER_UNIT};
use crate::trace::{Event, RunHeader};
use std::fmt::Write;

/// The name of the phase before the first probe.
pub const BEFORE: &str = "(before first probe)";

/// One phase (all occurrences of one probe id and label).
#[derive(Debug, Clone, PartialEq)]
pub struct Phase {
    /// The probe's id (`None` for the time before the first probe).
    pub id: Option<i32>,
    /// The probe's label ([`BEFORE`] for the time before the first probe).
    pub label: String,
    /// How many times the probe opened the phase.
    pub occurrences: u64,
    /// Critical-path ticks inside the phase.
    pub time: Ticks,
    /// WCPA weight of the critical path inside the phase.
    pub weight: f64,
    /// Weight / the path's total weight, in percent.
    pub share: f64,
    /// The phase's time spans `[from, to)` (clipped to the critical path), in time order.
    pub spans: Vec<(Ticks, Ticks)>,
    /// The mapping that placed the processes created in the phase, when the phase began
    /// with one: CPC's `mapping("SPEC")` (a probe labelled `mapping: SPEC`) or the
    /// run's `cpss --phase-mapping LABEL=SPEC` for the phase's label.
    pub mapping: Option<String>,
}

/// The phases of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Phases {
    /// The process whose probes delimit the phases (`None`: no probes, no phases).
    pub pid: Option<u32>,
    /// The phases, in order of first occurrence (the time before the first probe first).
    pub phases: Vec<Phase>,
}

/// Collects the probes and label definitions.
#[derive(Debug, Default)]
pub struct PhaseBuilder {
    /// `(time, pid, id, label index)` in record order.
    probes: Vec<(Ticks, u32, i32, u32)>,
    /// Labels defined by `Label` events, `(index, text)`.
    labels: Vec<(u32, String)>,
}

impl PhaseBuilder {
    /// Takes one event into account.
    #[inline]
    pub fn event(&mut self, e: &Event) {
        match e {
            Event::Probe { time, pid, id, label, .. } => self.probes.push((*time, *pid, *id, *label)),
            Event::Label { index, text, .. } => self.labels.push((*index, text.clone())),
            _ => {}
        }
    }

    /// The phases on `path`; `busy` are the run's busy intervals `(start, end)` (for the P
    /// of a segment a probe cuts).
    pub fn finish(self, header: &RunHeader, path: &CriticalPath, profile: &BusyProfile) -> Phases {
        let Some(pid) = self.probes.iter().map(|p| p.1).min() else { return Phases::default() };
        let label = |i: u32| -> String {
            header
                .labels
                .get(i as usize)
                .cloned()
                .or_else(|| self.labels.iter().find(|(k, _)| *k == i).map(|(_, t)| t.clone()))
                .unwrap_or_else(|| format!("#{i}"))
        };
        let (start, end) = match (path.segments.first(), path.segments.last()) {
            (Some(f), Some(l)) => (f.from, l.to),
            _ => (0, 0),
        };
        // The delimiting probes in time order (the record is in time order already).
        let mut marks: Vec<(Ticks, i32, u32)> =
            self.probes.iter().filter(|p| p.1 == pid).map(|&(t, _, id, l)| (t, id, l)).collect();
        marks.sort_by_key(|m| m.0);
        let mut phases: Vec<Phase> = Vec::new();
        let mut add = |id: Option<i32>, name: String, from: Ticks, to: Ticks, opened: bool| {
            let k = match phases.iter().position(|p| p.id == id && p.label == name) {
                Some(k) => k,
                None => {
                    let mapping = mapping_of(header, &name);
                    phases.push(Phase {
                        id,
                        label: name,
                        occurrences: 0,
                        time: 0,
                        weight: 0.0,
                        share: 0.0,
                        spans: Vec::new(),
                        mapping,
                    });
                    phases.len() - 1
                }
            };
            let p = &mut phases[k];
            p.occurrences += u64::from(opened);
            let (a, b) = (from.max(start), to.min(end));
            if b > a {
                p.spans.push((a, b));
                p.time += b - a;
            }
        };
        if let Some(&(first, _, _)) = marks.first() {
            if first > start {
                add(None, BEFORE.to_string(), start, first, false);
            }
        }
        for (k, &(t, id, l)) in marks.iter().enumerate() {
            let next = marks.get(k + 1).map_or(end.max(t), |m| m.0);
            add(Some(id), label(l), t, next, true);
        }
        // Weigh each phase's spans against the path's segments: spans are disjoint and
        // together ordered by time, so one merge over (span, segment) pairs suffices.
        let mut spans: Vec<(Ticks, Ticks, usize)> =
            phases.iter().enumerate().flat_map(|(k, p)| p.spans.iter().map(move |&(a, b)| (a, b, k))).collect();
        spans.sort_unstable();
        let n = path.processors.max(1);
        let mut weights = vec![0.0; phases.len()];
        // Each segment's weight is shared among the spans it overlaps: a whole segment
        // gives its weight; a cut one gives each piece its share of the segment's weight
        // in proportion to the piece's own WCPA weight (its CPU time for a compute
        // segment taken in proportion, P over the piece), so the phases add up to the
        // path's total weight.
        let mut j = 0;
        let mut pieces: Vec<(usize, f64)> = Vec::new();
        for s in &path.segments {
            while j < spans.len() && spans[j].1 <= s.from {
                j += 1;
            }
            pieces.clear();
            let mut i = j;
            while i < spans.len() && spans[i].0 < s.to {
                let (a, b, k) = spans[i];
                let (x, y) = (s.from.max(a), s.to.min(b));
                if y > x {
                    let dt = if s.kind == EdgeKind::Compute {
                        (y - x) as f64 * s.busy as f64 / (s.to - s.from) as f64
                    } else {
                        (y - x) as f64
                    };
                    let own = (s.kind == EdgeKind::Compute).then_some(dt);
                    pieces.push((k, wcpa_weight(dt, profile.edge_parallelism(x, y, n, own), n)));
                }
                i += 1;
            }
            let raw: f64 = pieces.iter().map(|p| p.1).sum();
            match pieces.as_slice() {
                [(k, _)] => weights[*k] += s.weight,
                _ if raw > 0.0 => {
                    for &(k, w) in &pieces {
                        weights[k] += s.weight * w / raw;
                    }
                }
                _ => {}
            }
        }
        for (p, w) in phases.iter_mut().zip(weights) {
            p.weight = w;
            p.share = if path.total_weight > 0.0 { 100.0 * w / path.total_weight } else { 0.0 };
        }
        Phases { pid: Some(pid), phases }
    }
}

/// The mapping a phase labelled `label` began with (see [`Phase::mapping`]).
fn mapping_of(header: &RunHeader, label: &str) -> Option<String> {
    if let Some(spec) = label.strip_prefix(crate::trace::MAPPING_PREFIX) {
        return Some(spec.to_string());
    }
    header
        .options
        .iter()
        .filter(|(k, _)| k == "phase-mapping")
        .filter_map(|(_, v)| v.split_once('='))
        .find(|(key, _)| *key == label)
        .map(|(_, spec)| spec.to_string())
}

/// The text section (nothing when there are no probes).
pub fn text(p: &Phases) -> String {
    let mut o = String::new();
    let Some(pid) = p.pid else { return o };
    let _ = writeln!(o, "\nPhases in the weighted critical path (between probes of process {pid})");
    let _ = writeln!(o, "  {:>7}  {:>12}  {:>5}  phase", "weight", "path time", "times");
    for ph in &p.phases {
        let builtin = ph.label.starts_with(crate::trace::MAPPING_PREFIX);
        let name = match ph.id {
            // CPC's mapping("SPEC") opened it: the label says it all.
            Some(_) if builtin => ph.label.clone(),
            Some(id) => format!("{} (probe {id})", ph.label),
            None => ph.label.clone(),
        };
        let mapped = match &ph.mapping {
            Some(m) if !builtin => format!("  [mapping {m}]"),
            _ => String::new(),
        };
        let _ =
            writeln!(o, "  {:6.2} %  {:>12}  {:>5}  {name}{mapped}", ph.share, format_time(ph.time), ph.occurrences);
    }
    o
}

/// The columns of the phase table, in CSV and JSON alike (`id` is empty or `null` for
/// the stretch before the first probe).
const COLUMNS: [&str; 7] = ["id", "label", "occurrences", "time", "weight", "share", "mapping"];

fn cells(ph: &Phase) -> [Cell; 7] {
    [
        ph.id.map_or(Cell::Null, |i| Cell::Num(i.to_string())),
        Cell::Text(ph.label.clone()),
        Cell::Num(ph.occurrences.to_string()),
        Cell::Num(format_time(ph.time)),
        Cell::Num(format!("{:.3}", ph.weight / TICKS_PER_UNIT as f64)),
        Cell::Num(format!("{:.4}", ph.share)),
        ph.mapping.clone().map_or(Cell::Null, Cell::Text),
    ]
}

/// The JSON array of the phases.
pub fn json(p: &Phases) -> serde_json::Value {
    table_json(&COLUMNS, p.phases.iter().map(cells))
}

/// The CSV table `id,label,occurrences,time,weight,share,mapping`.
pub fn csv(p: &Phases) -> String {
    table_csv(&COLUMNS, p.phases.iter().map(cells))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::graph::{EdgeKind, Segment};

    fn seg(from: Ticks, to: Ticks, weight: f64) -> Segment {
        Segment { kind: EdgeKind::Compute, pid: 0, to_pid: None, from, to, parallelism: 0.0, weight, busy: to - from }
    }

    #[test]
    fn phases_split_the_path_weight_at_the_probes_of_the_lowest_process() {
        // Two processors; busy: [0,100) one, [100,200) two, [200,300) one. A path of three
        // segments 0..100, 100..200, 200..300 with n = 2: w = 2Δt − busy area / 2:
        //   0..100:   200 − 100/2 = 150;  100..200: 200 − 200/2 = 100;  200..300: 150.
        let path = CriticalPath {
            length: 300,
            edges: 3,
            segments: vec![seg(0, 100, 150.0), seg(100, 200, 100.0), seg(200, 300, 150.0)],
            total_weight: 400.0,
            processors: 2,
        };
        let header = RunHeader { labels: vec!["read".into()], ..RunHeader::default() };
        let mut b = PhaseBuilder::default();
        for e in [
            // Process 0 opens "read" at 50 and "compute" at 150; process 1's probe at 120 is
            // not a boundary (process 0 is the lowest that probes).
            Event::Probe { time: 50, pid: 0, pproc: 0, id: 1, label: 0 },
            Event::Probe { time: 120, pid: 1, pproc: 1, id: 9, label: 0 },
            Event::Label { time: 150, index: 1, text: "compute".into() },
            Event::Probe { time: 150, pid: 0, pproc: 0, id: 2, label: 1 },
        ] {
            b.event(&e);
        }
        let busy = BusyProfile::new(&[(0, 300), (100, 200)]);
        let ph = b.finish(&header, &path, &busy);
        assert_eq!(ph.pid, Some(0));
        let rows: Vec<(Option<i32>, &str, Ticks)> =
            ph.phases.iter().map(|p| (p.id, p.label.as_str(), p.time)).collect();
        assert_eq!(rows, vec![(None, BEFORE, 50), (Some(1), "read", 100), (Some(2), "compute", 150)]);
        // Before: 0..50, one busy: 2·50 − 50/2 = 75.
        // read: 50..100 (75 as above) + 100..150 (both busy: 2·50 − 100/2 = 50) = 125.
        // compute: 150..200 (50) + 200..300 (the whole segment, 150) = 200.
        let w: Vec<f64> = ph.phases.iter().map(|p| p.weight).collect();
        assert_eq!(w, vec![75.0, 125.0, 200.0]);
        // Shares of 400: 18.75 %, 31.25 %, 50 %; they add up to 100 %.
        let s: Vec<f64> = ph.phases.iter().map(|p| p.share).collect();
        assert_eq!(s, vec![18.75, 31.25, 50.0]);
    }

    #[test]
    fn repeated_probes_sum_into_one_row_and_no_probes_give_no_phases() {
        let path =
            CriticalPath { length: 40, edges: 1, segments: vec![seg(0, 40, 40.0)], total_weight: 40.0, processors: 1 };
        let header = RunHeader { labels: vec!["step".into(), "tail".into()], ..RunHeader::default() };
        let mut b = PhaseBuilder::default();
        // "step" at 0 and 20, "tail" at 30: step = 0..20 + 20..30 = 30 (two occurrences),
        // tail = 30..40; with n = 1 the weight is the time.
        for (t, id, l) in [(0, 1, 0), (20, 1, 0), (30, 2, 1)] {
            b.event(&Event::Probe { time: t, pid: 0, pproc: 0, id, label: l });
        }
        let ph = b.finish(&header, &path, &BusyProfile::new(&[(0, 40)]));
        let rows: Vec<(&str, u64, Ticks, f64)> =
            ph.phases.iter().map(|p| (p.label.as_str(), p.occurrences, p.time, p.weight)).collect();
        assert_eq!(rows, vec![("step", 2, 30, 30.0), ("tail", 1, 10, 10.0)]);
        assert_eq!(PhaseBuilder::default().finish(&header, &path, &BusyProfile::default()), Phases::default());
    }
}
