//! The analysis of a time window (`cpperf --from T1 --to T2`; seed 003 §3.3: the
//! parallelism and network load of any interval Δt).
//!
//! The run's events are cut to `[T1, T2]` and shifted so that the window starts at 0,
//! then analysed as a run of its own: the parallel time is the window's length (up to
//! the run's end), utilization is the busy time inside the window over that length,
//! and the critical paths, phases, profiles and link loads are those of the window.
//!
//! * Busy intervals and link crossings are clipped to the window; an event at a time is
//!   kept when the time lies in it.
//! * A process alive at T1 (created before, not yet ended) gets a creation at the
//!   window's start, so its work inside the window belongs to it; one alive at T2 gets
//!   an end there, so the critical path spans the window (but not at the end of a window
//!   that is the whole run: a process the program's exit() cut short has no end in it).
//! * A message belongs to the window when it is sent inside it; its arrival and receive
//!   completion are kept only then (a message sent before T1 has no send in the window,
//!   so its completion is dropped, and the receive waits from the window's start).
//! * The statistics are the window's: sequential time is the run's in the proportion of
//!   the work-class busy time inside the window to the run's (the record does not say
//!   how much of a busy interval was sequential work), messages and bytes count the
//!   channel sends inside it, the average latency runs from such a send to its arrival
//!   (or completion, in a trace without arrivals) over the messages whose arrival lies
//!   inside too, and link loads count every crossing inside it. The window `[0, T]`, T
//!   the run's end, gives the run's figures.
//! * Per-line totals written at the end of a run cover the whole run, so they are left
//!   out (but for a window that is the whole run); the line profile then comes from the
//!   busy intervals, each attributed to the line its turn ended on.
//!
//! The window's events are held in memory (a run record is otherwise streamed).
//! Depends on [`crate::trace`].
use crate::time::Ticks;
use crate::trace::{BusyClass, Event, MsgPurpose, RunStats};
use std::collections::{BTreeMap, BTreeSet};

/// A time window `[from, to]` in ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub from: Ticks,
    pub to: Ticks,
}

/// The events of `events` inside `w`, shifted to start at 0, and the window's
/// statistics; `run_end` is the run's parallel time (the window ends there at the
/// latest), `pprocs` the machine's processor count.
pub fn cut(events: impl IntoIterator<Item = Event>, w: Window, run: &RunStats, pprocs: u32) -> (Vec<Event>, RunStats) {
    let run_end = run.par_ticks;
    let to = w.to.min(run_end.max(w.from));
    let inside = |t: Ticks| t >= w.from && t <= to;
    let whole = w.from == 0 && to >= run_end;
    let shift = |t: Ticks| t.saturating_sub(w.from);
    let mut alive: BTreeMap<u32, Event> = BTreeMap::new();
    let mut started = false;
    let mut out: Vec<Event> = Vec::new();
    let mut sent: BTreeMap<u64, (Ticks, bool)> = BTreeMap::new();
    let mut arrived: BTreeSet<u64> = BTreeSet::new();
    let mut stats = RunStats { par_ticks: to - w.from, ..RunStats::default() };
    let mut busy = vec![0 as Ticks; pprocs as usize];
    // Work-class busy ticks of the whole run and of the window, for the window's share of
    // the run's sequential time.
    let (mut work_run, mut work_window) = (0u128, 0u128);
    let mut latency_messages = 0u64;
    let mut lead: Vec<Event> = Vec::new();
    // Processes created and not ended so far (at the loop's end: alive at T2).
    let mut live: BTreeSet<u32> = BTreeSet::new();
    for e in events {
        match e {
            Event::ProcCreate { time, pid, .. } if time <= to => {
                live.insert(pid);
            }
            Event::ProcEnd { time, pid } if time <= to => {
                live.remove(&pid);
            }
            _ => {}
        }
        if !started && e.time() >= w.from {
            // The processes alive at the window's start, created at it.
            started = true;
            lead.extend(std::mem::take(&mut alive).into_values());
        }
        match e {
            Event::ProcCreate { time, pid, vproc, pproc, function, line, .. } if time < w.from => {
                // No parent: the spawn happened before the window.
                let at_start = Event::ProcCreate { time: 0, parent: None, pid, vproc, pproc, function, line };
                if started {
                    lead.push(at_start);
                } else {
                    alive.insert(pid, at_start);
                }
            }
            Event::ProcEnd { time, pid } if time < w.from => {
                alive.remove(&pid);
                lead.retain(|c| !matches!(*c, Event::ProcCreate { pid: p, .. } if p == pid));
            }
            Event::Busy { pproc, pid, start, end, line, class } => {
                if class == BusyClass::Work {
                    work_run += u128::from(end.saturating_sub(start));
                }
                let (a, b) = (start.max(w.from), end.min(to));
                if a < b {
                    if let Some(x) = busy.get_mut(pproc as usize) {
                        *x = x.saturating_add(b - a);
                    }
                    if class == BusyClass::Work {
                        work_window += u128::from(b - a);
                    }
                    out.push(Event::Busy { pproc, pid, start: shift(a), end: shift(b), line, class });
                }
            }
            Event::Hop { msg, packet, from, to: next, enter, leave } => {
                // A link's use inside the window counts whatever sent the traffic (a
                // message sent before it, remote memory traffic, a process's creation).
                let (a, b) = (enter.max(w.from), leave.min(to));
                if a < b {
                    out.push(Event::Hop { msg, packet, from, to: next, enter: shift(a), leave: shift(b) });
                }
            }
            Event::MsgSend { time, msg, bytes, purpose, .. } if inside(time) => {
                let channel = matches!(purpose, MsgPurpose::Channel { .. });
                sent.insert(msg, (time, channel));
                // Messages, bytes and latency count channel messages, as the run's
                // statistics do (remote memory traffic is counted apart).
                if channel {
                    stats.messages += 1;
                    stats.bytes = stats.bytes.saturating_add(u64::from(bytes));
                }
                out.push(shifted(e, shift(time)));
            }
            // (In the whole run, a message arriving after the program ended, as one sent
            // just before an exit(), counts as in the run's statistics.)
            Event::MsgArrive { time, msg, .. } if inside(time) || whole => {
                if let Some(&(s, channel)) = sent.get(&msg) {
                    arrived.insert(msg);
                    if channel {
                        stats.total_latency_ticks += crate::time::Total::from(time.saturating_sub(s));
                        latency_messages += 1;
                    }
                    if inside(time) {
                        out.push(shifted(e, shift(time)));
                    }
                }
            }
            Event::RecvDone { time, msg, .. } if inside(time) => {
                if let Some(&(s, _)) = sent.get(&msg) {
                    if !arrived.contains(&msg) {
                        // A trace without arrivals: the completion stands for it.
                        stats.total_latency_ticks += crate::time::Total::from(time.saturating_sub(s));
                        latency_messages += 1;
                    }
                    out.push(shifted(e, shift(time)));
                }
            }
            Event::Label { .. } => out.push(shifted(e.clone(), shift(e.time()).min(to - w.from))),
            // The run's per-line totals belong to a window only when it is the run.
            Event::LineCost { .. } if whole => out.push(shifted(e, to - w.from)),
            Event::LineCost { .. } => {}
            _ => {
                let t = e.time();
                if inside(t) {
                    out.push(shifted(e, shift(t)));
                }
            }
        }
    }
    if !started {
        lead.extend(alive.into_values());
    }
    stats.processes = lead.len() as u64 + out.iter().filter(|e| matches!(e, Event::ProcCreate { .. })).count() as u64;
    // A process alive at the end of the whole run (the program ended by exit() while it
    // waited) has no end in the run either: the window [0, T] stays the run.
    if !whole {
        out.extend(live.into_iter().map(|pid| Event::ProcEnd { time: to - w.from, pid }));
    }
    // The record gives each busy interval's length, not how much of it was sequential
    // work: the window's sequential time is the run's in the proportion of the window's
    // work-class busy time to the run's (the whole run's for [0, T]).
    stats.seq_ticks = match work_run {
        0 => 0,
        total => u64::try_from(work_window * u128::from(run.seq_ticks) / total).unwrap_or(Ticks::MAX),
    };
    stats.latency_messages = Some(latency_messages);
    stats.pprocs_used = busy.iter().filter(|&&b| b > 0).count() as u32;
    stats.busy_ticks = busy;
    lead.extend(out);
    (lead, stats)
}

/// `e` with its time set to `t` (for an event with one time: an instant).
fn shifted(mut e: Event, t: Ticks) -> Event {
    *e.time_mut() = t;
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy(pproc: u32, start: Ticks, end: Ticks) -> Event {
        Event::Busy { pproc, pid: pproc, start, end, line: 1, class: BusyClass::Work }
    }

    /// Two processors: 0 busy 0..4000, 1 busy 500..1500 and 2500..3500; a message from
    /// 1 to 0 sent at 1500 arriving at 1600, one sent at 500 arriving at 700. The
    /// window 1000..3000: busy 2000 on 0 and 500 + 500 on 1, so seq 3000 and par 2000;
    /// one message (the one sent inside) with latency 100; both processes alive at
    /// 1000 are created at the window's start.
    #[test]
    fn a_window_clips_busy_time_and_keeps_its_messages() {
        let create =
            |pid: u32| Event::ProcCreate { time: 0, parent: None, pid, vproc: None, pproc: pid, function: 0, line: 0 };
        let send = |time, msg| crate::perf::tests::send(time, msg, 1, 0, 4);
        let events = vec![
            create(0),
            create(1),
            send(500, 7),
            Event::MsgArrive { time: 700, msg: 7, dst_pproc: 0 },
            busy(1, 500, 1500),
            send(1500, 8),
            Event::MsgArrive { time: 1600, msg: 8, dst_pproc: 0 },
            busy(1, 2500, 3500),
            busy(0, 0, 4000),
            Event::ProcEnd { time: 4000, pid: 0 },
        ];
        // The run's sequential time is 3000 of its 6000 busy ticks (say the rest was
        // sends and receives): the window, busy 3000, has 3000 · 3000/6000 = 1500.
        let run = RunStats { par_ticks: 4000, seq_ticks: 3000, ..RunStats::default() };
        let (cut, stats) = cut(events, Window { from: 1000, to: 3000 }, &run, 2);
        assert_eq!((stats.par_ticks, stats.seq_ticks), (2000, 1500));
        assert_eq!(stats.latency_messages, Some(1));
        assert_eq!(stats.busy_ticks, vec![2000, 1000]);
        assert_eq!((stats.messages, stats.bytes, stats.total_latency_ticks), (1, 4, 100));
        assert_eq!(stats.processes, 2);
        assert!(matches!(cut[0], Event::ProcCreate { time: 0, pid: 0, .. }));
        assert!(matches!(cut[1], Event::ProcCreate { time: 0, pid: 1, .. }));
        let busy: Vec<(u32, Ticks, Ticks)> = cut
            .iter()
            .filter_map(|e| match *e {
                Event::Busy { pproc, start, end, .. } => Some((pproc, start, end)),
                _ => None,
            })
            .collect();
        assert_eq!(busy, vec![(1, 0, 500), (1, 1500, 2000), (0, 0, 2000)]);
        // The message sent before the window leaves no arrival in it.
        assert!(!cut.iter().any(|e| matches!(*e, Event::MsgArrive { msg: 7, .. })));
        // Both processes are alive at the window's end (0 ends at 4000): they end at 2000.
        let ends: Vec<&Event> = cut.iter().filter(|e| matches!(e, Event::ProcEnd { .. })).collect();
        assert_eq!(ends, [&Event::ProcEnd { time: 2000, pid: 0 }, &Event::ProcEnd { time: 2000, pid: 1 }]);
    }

    /// A window past the run's end is cut at the end: the window 3000..9000 of a run of
    /// 4000 lasts 1000.
    #[test]
    fn a_window_ends_with_the_run() {
        let run = RunStats { par_ticks: 4000, seq_ticks: 4000, ..RunStats::default() };
        let (_, stats) = cut(vec![busy(0, 0, 4000)], Window { from: 3000, to: 9000 }, &run, 1);
        assert_eq!((stats.par_ticks, stats.seq_ticks), (1000, 1000));
    }

    /// The latency average of a window divides by the messages that arrive inside it:
    /// two messages sent at 100 and 900 inside 0..1000, arriving at 150 (latency 50) and
    /// at 1200 (after the window): 2 messages, latency 50 over 1 message. Remote memory
    /// traffic sent inside (a write at 200) counts in neither, as in the run's statistics.
    #[test]
    fn a_window_s_latency_covers_the_messages_that_arrive_inside() {
        let send = |time, msg| crate::perf::tests::send(time, msg, 0, 1, 4);
        let write = Event::MsgSend {
            time: 200,
            msg: 3,
            src_pid: 0,
            src_pproc: 0,
            dst_pid: None,
            dst_pproc: 1,
            purpose: MsgPurpose::RemoteWrite { addr: 8 },
            bytes: 8,
            line: 1,
        };
        let events = vec![
            send(100, 1),
            Event::MsgArrive { time: 150, msg: 1, dst_pproc: 1 },
            write,
            Event::MsgArrive { time: 260, msg: 3, dst_pproc: 1 },
            send(900, 2),
            Event::MsgArrive { time: 1200, msg: 2, dst_pproc: 1 },
        ];
        let run = RunStats { par_ticks: 2000, ..RunStats::default() };
        let (_, s) = cut(events, Window { from: 0, to: 1000 }, &run, 2);
        assert_eq!((s.messages, s.bytes, s.total_latency_ticks, s.latency_messages), (2, 8, 50, Some(1)));
    }
}
