//! The selection of `cptrace`: which physical processors (`--procs 0-3,7`), which time
//! window (`--from T --to T`, in ticks) and which event kinds (`--events send,busy`) a
//! conversion keeps.
//!
//! Depends on [`super::event`] only. The filter is stateful because some events name only
//! a process (`proc_exit`, `state`, `time_on`, `time_off`): it follows `proc_init` events
//! to know each live process's processor, whatever the kinds selected.
use super::event::Event;
use crate::time::Ticks;
use std::collections::{BTreeMap, BTreeSet};

/// The event kind names of [`Event::kind_name`], in the order of the [`Event`] variants.
pub const KINDS: [&str; 17] = [
    "proc_init",
    "proc_exit",
    "state",
    "msg_send",
    "msg_arr",
    "recv_call",
    "recv_done",
    "hop",
    "probe",
    "label",
    "time_off",
    "time_on",
    "busy",
    "line_cost",
    "deadlock",
    "proc_enter",
    "proc_leave",
];

/// Why a filter argument was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    /// A `--procs` item that is neither `N` nor `A-B` with `A <= B`.
    #[error("--procs: `{item}` is not a processor number or a range A-B with A <= B")]
    BadRange {
        /// The offending item.
        item: String,
    },
    /// An `--events` name that is not an event kind.
    #[error("--events: unknown event kind `{name}` (known kinds: {})", KINDS.join(", "))]
    UnknownKind {
        /// The offending name.
        name: String,
    },
    /// `--from` after `--to`.
    #[error("--from ({from} ticks) is after --to ({to} ticks)")]
    EmptyWindow {
        /// Start of the window.
        from: Ticks,
        /// End of the window.
        to: Ticks,
    },
}

/// A set of processor numbers as inclusive ranges, sorted and merged.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProcSet {
    ranges: Vec<(u32, u32)>,
}

impl ProcSet {
    /// Parses `0-3,7` or `0:3,7` (items separated by commas, spaces allowed around
    /// them; [`crate::span`]).
    pub fn parse(s: &str) -> Result<ProcSet, FilterError> {
        let mut ranges = Vec::new();
        for item in s.split(',') {
            let t = item.trim();
            let (a, b) = crate::span::parse_span(t).map_err(|_| FilterError::BadRange { item: t.to_string() })?;
            ranges.push((a, b));
        }
        ranges.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::new();
        for (a, b) in ranges {
            match merged.last_mut() {
                Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        Ok(ProcSet { ranges: merged })
    }

    /// Whether processor `p` is in the set.
    pub fn contains(&self, p: u32) -> bool {
        self.ranges.iter().any(|&(a, b)| a <= p && p <= b)
    }
}

/// What a conversion keeps. `None` fields keep everything.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Selection {
    /// Physical processors to keep.
    pub procs: Option<ProcSet>,
    /// Start of the time window in ticks (inclusive).
    pub from: Option<Ticks>,
    /// End of the time window in ticks (inclusive).
    pub to: Option<Ticks>,
    /// Event kind names to keep.
    pub kinds: Option<BTreeSet<&'static str>>,
}

impl Selection {
    /// Parses an `--events` list (comma-separated kind names).
    pub fn parse_kinds(s: &str) -> Result<BTreeSet<&'static str>, FilterError> {
        let mut out = BTreeSet::new();
        for name in s.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let k = KINDS.iter().find(|&&k| k == name).ok_or_else(|| FilterError::UnknownKind { name: name.into() })?;
            out.insert(*k);
        }
        Ok(out)
    }

    /// Checks that the window is not empty.
    pub fn check(&self) -> Result<(), FilterError> {
        match (self.from, self.to) {
            (Some(from), Some(to)) if from > to => Err(FilterError::EmptyWindow { from, to }),
            _ => Ok(()),
        }
    }

    /// Whether processor `p` is selected.
    pub fn proc(&self, p: u32) -> bool {
        self.procs.as_ref().is_none_or(|s| s.contains(p))
    }

    fn time(&self, t: Ticks) -> bool {
        self.from.is_none_or(|f| t >= f) && self.to.is_none_or(|e| t <= e)
    }
}

/// A [`Selection`] applied to a stream of events.
#[derive(Debug, Clone)]
pub struct Filter {
    sel: Selection,
    pproc_of: BTreeMap<u32, u32>,
}

impl Filter {
    /// A filter for `sel`.
    pub fn new(sel: Selection) -> Filter {
        Filter { sel, pproc_of: BTreeMap::new() }
    }

    /// The selection.
    pub fn selection(&self) -> &Selection {
        &self.sel
    }

    /// The event as kept, or `None` when it is dropped. A busy interval that overlaps the
    /// window is clipped to it; a label definition is kept whatever the processors and
    /// times, so later probes can be named; a line's cost only when neither processors
    /// nor times are selected.
    pub fn apply(&mut self, e: &Event) -> Option<Event> {
        let pproc = match *e {
            Event::ProcCreate { pid, pproc, .. } => {
                self.pproc_of.insert(pid, pproc);
                Some(pproc)
            }
            Event::ProcEnd { pid, .. } => self.pproc_of.remove(&pid),
            Event::State { pid, .. }
            | Event::TimeOff { pid, .. }
            | Event::TimeOn { pid, .. }
            | Event::Enter { pid, .. }
            | Event::Leave { pid, .. } => self.pproc_of.get(&pid).copied(),
            Event::MsgSend { src_pproc, .. } => Some(src_pproc),
            Event::MsgArrive { dst_pproc, .. } => Some(dst_pproc),
            Event::RecvCall { pproc, .. } | Event::RecvDone { pproc, .. } | Event::Probe { pproc, .. } => Some(pproc),
            Event::Busy { pproc, .. } => Some(pproc),
            Event::Hop { from, to, .. } => Some(if self.sel.proc(from) { from } else { to }),
            Event::Deadlock { pproc, .. } => Some(pproc),
            Event::Label { .. } | Event::LineCost { .. } => None,
        };
        if self.sel.kinds.as_ref().is_some_and(|k| !k.contains(e.kind_name())) {
            return None;
        }
        if let Event::Label { .. } = e {
            return Some(e.clone());
        }
        // A line's cost is a total over every processor and the whole run: it cannot be
        // cut to a processor range or a time window, so it is kept only without them.
        if let Event::LineCost { .. } = e {
            let whole = self.sel.from.is_none() && self.sel.to.is_none() && self.sel.procs.is_none();
            return whole.then(|| e.clone());
        }
        if !pproc.is_some_and(|p| self.sel.proc(p)) {
            return None;
        }
        match *e {
            Event::Busy { pproc, pid, start, end, line, class } => {
                let s = self.sel.from.map_or(start, |f| start.max(f));
                let t = self.sel.to.map_or(end, |e| end.min(e));
                // Keep intervals that overlap the window by a positive length, or that are
                // instants inside it.
                if s > t || (s == t && start != end) {
                    return None;
                }
                Some(Event::Busy { pproc, pid, start: s, end: t, line, class })
            }
            Event::Hop { msg, packet, from, to, enter, leave } => {
                // Clipped to the window as busy intervals are: the trace ends at `to`.
                let a = self.sel.from.map_or(enter, |f| enter.max(f));
                let b = self.sel.to.map_or(leave, |t| leave.min(t));
                if a > b || (a == b && enter != leave) {
                    return None;
                }
                Some(Event::Hop { msg, packet, from, to, enter: a, leave: b })
            }
            _ => self.sel.time(e.time()).then(|| e.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::BusyClass;

    #[test]
    fn proc_ranges_merge_and_reject_bad_items() {
        let s = ProcSet::parse("7, 0-3,2-4").unwrap();
        // 0-3 and 2-4 overlap into 0-4; 7 stays alone.
        assert_eq!(s.ranges, vec![(0, 4), (7, 7)]);
        assert!(s.contains(4) && s.contains(7) && !s.contains(5));
        assert!(matches!(ProcSet::parse("3-1"), Err(FilterError::BadRange { .. })));
        assert!(matches!(ProcSet::parse("a"), Err(FilterError::BadRange { .. })));
        assert!(matches!(ProcSet::parse(""), Err(FilterError::BadRange { .. })));
    }

    #[test]
    fn kinds_are_checked() {
        let k = Selection::parse_kinds("busy, msg_send").unwrap();
        assert_eq!(k.into_iter().collect::<Vec<_>>(), vec!["busy", "msg_send"]);
        let e = Selection::parse_kinds("busy,sends").unwrap_err();
        assert!(e.to_string().contains("`sends`") && e.to_string().contains("msg_arr"), "{e}");
    }

    #[test]
    fn busy_is_clipped_to_the_window_and_pid_events_follow_their_process() {
        let sel = Selection { procs: Some(ProcSet::parse("1").unwrap()), from: Some(100), to: Some(200), kinds: None };
        let mut f = Filter::new(sel);
        let busy = |pproc, start, end| Event::Busy { pproc, pid: 1, start, end, line: 0, class: BusyClass::Work };
        assert!(f
            .apply(&Event::ProcCreate { time: 50, parent: None, pid: 1, vproc: None, pproc: 1, function: 0, line: 0 })
            .is_none());
        // [50, 150] overlaps [100, 200] on [100, 150].
        assert_eq!(f.apply(&busy(1, 50, 150)), Some(busy(1, 100, 150)));
        // Processor 0 is not selected; [10, 100] touches the window only at an instant.
        assert_eq!(f.apply(&busy(0, 120, 150)), None);
        assert_eq!(f.apply(&busy(1, 10, 100)), None);
        // pid 1 lives on processor 1, so its end at 150 is kept.
        assert!(f.apply(&Event::ProcEnd { time: 150, pid: 1 }).is_some());
        // Labels pass whatever the window.
        assert!(f.apply(&Event::Label { time: 999, index: 0, text: "x".into() }).is_some());
        // A link crossing is clipped like a busy interval: [190, 230] to [190, 200], so
        // the trace ends at the window's end; [80, 100] only touches it.
        let hop = |enter, leave| Event::Hop { msg: u64::MAX, packet: 0, from: 1, to: 2, enter, leave };
        assert_eq!(f.apply(&hop(190, 230)), Some(hop(190, 200)));
        assert_eq!(f.apply(&hop(80, 120)), Some(hop(100, 120)));
        assert_eq!(f.apply(&hop(80, 100)), None);
    }
}
