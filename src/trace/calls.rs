//! Procedure calls inside busy intervals, for the trace writers that draw a processor's
//! time (Chrome, Paraver, OTF2): each busy interval of a process becomes the calls open
//! in it, properly nested, clipped to the interval.
//!
//! The record has [`Event::Enter`] and [`Event::Leave`] at their times and a
//! [`Event::Busy`] interval at its end (so a turn's calls come before its interval). A
//! [`CallSplitter`] keeps each process's call stack and the calls not yet placed; for a
//! busy interval it returns the enters and leaves of the functions called (not the
//! process's own function, which the interval itself shows): the frames open at its
//! start are entered at its start (outermost first), the calls and returns inside it at
//! their times, and the frames still open at its end are left at its end (innermost
//! first). A call entered and left at one instant is left out, so a reader that orders
//! a leave before an enter at equal times never sees a leave before its enter.
use super::event::Event;
use crate::time::Ticks;
use std::collections::BTreeMap;

/// One enter or leave of a called function inside a busy interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallMark {
    pub time: Ticks,
    /// True for an enter.
    pub enter: bool,
    /// Index into the header's function table.
    pub function: u32,
    /// Depth below the process's own function (1: called by it).
    pub depth: u32,
}

#[derive(Debug, Default)]
struct Proc {
    /// Functions called and not returned, outermost first.
    stack: Vec<u32>,
    /// Calls and returns not yet placed in an interval: (time, enter, function).
    pending: Vec<(Ticks, bool, u32)>,
}

/// Follows every process's calls (see the module documentation).
#[derive(Debug, Default)]
pub struct CallSplitter {
    procs: BTreeMap<u32, Proc>,
    /// Whether any call was seen (writers may skip the work otherwise).
    any: bool,
}

impl CallSplitter {
    /// Takes an event: calls and returns are kept (a process's state stays until the end,
    /// as its last interval may follow its end in the record).
    pub fn event(&mut self, e: &Event) {
        match *e {
            Event::Enter { time, pid, function } | Event::Leave { time, pid, function } => {
                self.any = true;
                let enter = matches!(e, Event::Enter { .. });
                self.procs.entry(pid).or_default().pending.push((time, enter, function));
            }
            _ => {}
        }
    }

    /// Whether the trace has calls at all.
    pub fn any(&self) -> bool {
        self.any
    }

    /// The calls of process `pid` in its busy interval `[start, end]`, in order, into
    /// `out` (cleared first).
    pub fn interval(&mut self, pid: u32, start: Ticks, end: Ticks, out: &mut Vec<CallMark>) {
        out.clear();
        let Some(p) = self.procs.get_mut(&pid) else { return };
        // Calls placed before this interval's start only change the stack.
        let before = p.pending.partition_point(|m| m.0 <= start);
        let inside = p.pending.partition_point(|m| m.0 < end);
        let apply = |stack: &mut Vec<u32>, enter: bool, f: u32| {
            if enter {
                stack.push(f);
            } else if let Some(k) = stack.iter().rposition(|&g| g == f) {
                stack.truncate(k);
            }
        };
        for &(_, enter, f) in &p.pending[..before] {
            apply(&mut p.stack, enter, f);
        }
        for (d, &f) in p.stack.iter().enumerate() {
            out.push(CallMark { time: start, enter: true, function: f, depth: d as u32 + 1 });
        }
        for &(t, enter, f) in &p.pending[before..inside.max(before)] {
            if enter {
                p.stack.push(f);
                out.push(CallMark { time: t, enter: true, function: f, depth: p.stack.len() as u32 });
            } else if let Some(k) = p.stack.iter().rposition(|&g| g == f) {
                while p.stack.len() > k {
                    let depth = p.stack.len() as u32;
                    if let Some(g) = p.stack.pop() {
                        out.push(CallMark { time: t, enter: false, function: g, depth });
                    }
                }
            }
        }
        for d in (0..p.stack.len()).rev() {
            out.push(CallMark { time: end, enter: false, function: p.stack[d], depth: d as u32 + 1 });
        }
        p.pending.drain(..inside.max(before));
        // Calls entered and left at one instant are left out (compacted in place: the
        // kept marks are a stack, and a leave cancels an enter of the same instant).
        let mut kept = 0;
        for r in 0..out.len() {
            let m = out[r];
            let cancels = kept > 0 && {
                let l = out[kept - 1];
                !m.enter && l.enter && l.function == m.function && l.time == m.time
            };
            if cancels {
                kept -= 1;
            } else {
                out[kept] = m;
                kept += 1;
            }
        }
        out.truncate(kept);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Process 1 calls f at 5 (in its first interval 0..10), f calls g at 12 (between
    /// intervals), g returns at 25 and f at 25 (inside the second interval 20..30): the
    /// first interval shows f from 5 to 10; the second enters f and g at 20, leaves both
    /// at 25.
    #[test]
    fn calls_split_by_intervals() {
        let mut s = CallSplitter::default();
        let ev = |time, enter, function| {
            if enter {
                Event::Enter { time, pid: 1, function }
            } else {
                Event::Leave { time, pid: 1, function }
            }
        };
        s.event(&ev(5, true, 3));
        let mut out = Vec::new();
        s.interval(1, 0, 10, &mut out);
        let m = |time, enter, function, depth| CallMark { time, enter, function, depth };
        assert_eq!(out, vec![m(5, true, 3, 1), m(10, false, 3, 1)]);
        for e in [ev(12, true, 4), ev(25, false, 4), ev(25, false, 3)] {
            s.event(&e);
        }
        s.interval(1, 20, 30, &mut out);
        assert_eq!(out, vec![m(20, true, 3, 1), m(20, true, 4, 2), m(25, false, 4, 2), m(25, false, 3, 1)]);
        // A call and its return at one instant leave nothing.
        s.event(&ev(33, true, 5));
        s.event(&ev(33, false, 5));
        s.interval(1, 30, 40, &mut out);
        assert!(out.is_empty(), "{out:?}");
    }
}
