//! What the trace readers share. They turn text traces into run-record events, so that
//! `cpperf` analyses a PICL or SDDF trace as it does a run record (SPEC §1 `cpperf
//! run.trf`): [`super::picl::read`] reads the PICL 2.0 records, [`super::picl::read_old`]
//! the old compact ones and [`super::sddf::read`] the ASCII SDDF records that `cptrace`
//! writes.
//!
//! Both give an [`Imported`] trace: a header (processors, program name when the trace
//! says), the events in time order and the statistics. A trace written with `cptrace
//! --stats` carries the simulator's final statistics; without them the parallel time is
//! the trace's end, the sequential time is the busy time of all processors (so speedup is
//! the average number of busy processors) and the message totals are counted from the
//! trace. Times are read exactly: one time unit is one microsecond, so a decimal number of
//! seconds with up to nine decimals is a whole number of ticks.
//!
//! Depends on [`crate::trace`] (the event types) and nom. Errors name the line.
use crate::time::{Ticks, TICKS_PER_UNIT};
use crate::trace::{Event, MsgPurpose, RunHeader, RunStats};

/// The largest processor number a trace may use: per-processor tables are allocated
/// up to it, so a corrupt number must not ask for gigabytes.
pub const MAX_PPROC: u32 = 1 << 20;

/// Why a text trace could not be read.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct ImportError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

/// A trace turned into run-record terms.
#[derive(Debug, Clone, Default)]
pub struct Imported {
    /// What the trace says about the run.
    pub header: RunHeader,
    /// The events, sorted by [`Event::time`] (stable).
    pub events: Vec<Event>,
    /// The final statistics, from the trace's statistics record or derived (see the
    /// module documentation).
    pub stats: RunStats,
    /// What the trace did not hold and how it was made up, one sentence each (no
    /// statistics record, no program name): `cpperf` prints them as notes.
    pub missing: Vec<String>,
    /// Where a trace cut by `cptrace --from T` starts (its window mark or attribute):
    /// `cpperf` then analyses the window from there, as `--from T` would.
    pub window_from: Option<Ticks>,
}

/// The notes of a trace without a statistics record and without a program name.
pub fn missing(stats: bool, program: bool) -> Vec<String> {
    let mut v = Vec::new();
    if !stats {
        v.push(
            "no statistics record: the sequential time is the busy time in the trace, the parallel time its end, \
             the latency runs to each receive's completion (cptrace writes the record unless told --no-stats)"
                .to_string(),
        );
    }
    if !program {
        v.push("no program name in the trace".to_string());
    }
    v
}

/// The note of a PICL trace that does not carry the run record's events (the old format,
/// or a trace written elsewhere): which figures are rebuilt from less, and why.
pub const REBUILT: &str =
    "the trace does not carry the run record's events (cptrace's PICL 2.0 writes them as -2 -999 \
     marks): PICL has no waits (delays, remote reads, locks, joins), remote memory traffic, message arrivals, \
     process per busy interval, source lines or virtual processors, so the processor states, the critical paths \
     and their weights, per-process busy time, imbalance, per-line costs and the communication matrix are rebuilt \
     from sends, receives and idle blocks and can differ from the run's";

/// Parses seconds written with up to nine decimals (`0.000413000`) as ticks, one time unit
/// being one microsecond: the number of nanoseconds times [`TICKS_PER_UNIT`] / 1000.
pub fn parse_seconds(s: &str) -> Option<Ticks> {
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if whole.is_empty() && frac.is_empty() {
        return None;
    }
    if !whole.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) || frac.len() > 9 {
        return None;
    }
    let w: u64 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
    let f: u64 = if frac.is_empty() { 0 } else { format!("{frac:0<9}").parse().ok()? };
    let ns = w.checked_mul(1_000_000_000)?.checked_add(f)?;
    Some(ns.checked_mul(TICKS_PER_UNIT)? / 1000)
}

/// Completes `stats` from the events when the trace had no statistics record: parallel
/// time = `end`, sequential time = the per-line sequential work when the trace has the
/// record's line totals (`line_cost`), else the total busy time, processors used = those
/// with busy time, messages and bytes = the channel sends, latency from sends to
/// arrivals (or to receive completions when arrivals are not in the trace).
pub fn derive_stats(events: &[Event], end: Ticks, pprocs: u32) -> RunStats {
    use std::collections::BTreeMap;
    let mut busy = vec![0; pprocs as usize];
    let mut sent: BTreeMap<u64, Ticks> = BTreeMap::new();
    let mut s = RunStats { par_ticks: end, ..RunStats::default() };
    let mut latency_to: BTreeMap<u64, Ticks> = BTreeMap::new();
    let mut line_work: Option<Ticks> = None;
    for e in events {
        match *e {
            Event::Busy { pproc, start, end, .. } => {
                if let Some(b) = busy.get_mut(pproc as usize) {
                    *b += end.saturating_sub(start);
                }
            }
            // Messages, bytes and latency count channel messages, as the simulator's
            // statistics do (remote memory traffic is counted apart).
            Event::MsgSend { time, msg, bytes, purpose: MsgPurpose::Channel { .. }, .. } => {
                s.messages += 1;
                s.bytes += u64::from(bytes);
                sent.insert(msg, time);
            }
            Event::LineCost { work, .. } => {
                line_work = Some(line_work.unwrap_or(0u64).saturating_add(work));
            }
            Event::MsgArrive { time, msg, .. } => {
                latency_to.insert(msg, time);
            }
            Event::RecvDone { time, msg, .. } => {
                latency_to.entry(msg).or_insert(time);
            }
            Event::ProcCreate { .. } => s.processes += 1,
            _ => {}
        }
    }
    for (msg, t) in latency_to {
        if let Some(&st) = sent.get(&msg) {
            s.total_latency_ticks += crate::time::Total::from(t.saturating_sub(st));
        }
    }
    // The sequential work of every line when the trace has the record's per-line
    // totals (the sequential time itself), else the busy time.
    s.seq_ticks = line_work.unwrap_or_else(|| busy.iter().sum());
    s.pprocs_used = busy.iter().filter(|&&b| b > 0).count() as u32;
    s.busy_ticks = busy;
    s
}

/// Sorts by time, keeping the order of equal times.
pub fn sort(events: &mut [Event]) {
    events.sort_by_key(Event::time);
}

/// Checks, record by record in the trace's order, that a text trace holds together, as a
/// run record's reader does, so that an edited or damaged trace is refused (exit 2, the
/// line named) instead of analysed into wrong figures: times never go back, no record
/// repeats the one before it, no process is created or ended twice or acts before its
/// creation or after its end, no message is sent twice or received before it was sent,
/// and a procedure left is the one last entered. A trace cut by a window (`cptrace
/// --from T`) starts in the middle of the run: only the order and repetition checks
/// apply to it ([`Consistency::windowed`]).
#[derive(Debug, Default)]
pub struct Consistency {
    last_time: Ticks,
    last: Option<Event>,
    windowed: bool,
    created: std::collections::HashSet<u32>,
    ended: std::collections::HashSet<u32>,
    sent: std::collections::HashSet<u64>,
    received: std::collections::HashSet<u64>,
    /// Per process: the procedures entered and not yet left.
    stacks: std::collections::HashMap<u32, Vec<u32>>,
    /// Per process: the function it was created to run.
    root: std::collections::HashMap<u32, u32>,
}

impl Consistency {
    /// The trace starts at a window's beginning: what came before is not in it.
    pub fn windowed(&mut self) {
        self.windowed = true;
    }

    /// Checks the next time in the trace's order (the records that carry no event).
    pub fn time(&mut self, t: Ticks) -> Result<(), String> {
        if t < self.last_time {
            return Err(format!(
                "time {} comes after time {}: a trace is in time order (a record moved or edited?)",
                crate::time::format_time(t),
                crate::time::format_time(self.last_time)
            ));
        }
        self.last_time = t;
        Ok(())
    }

    /// Checks the next event in the trace's order.
    pub fn event(&mut self, e: &Event) -> Result<(), String> {
        // A hop's time is when it leaves its link and an arrival's when it arrives, both
        // announced with the message's send; a window carries the labels defined before it.
        if !matches!(e, Event::Hop { .. } | Event::MsgArrive { .. } | Event::Label { .. }) {
            self.time(e.time())?;
        }
        if self.last.as_ref() == Some(e) {
            return Err(format!("this {} record repeats the one before it (a duplicated record?)", e.kind_name()));
        }
        self.last = Some(e.clone());
        let full = !self.windowed;
        let alive = |c: &Consistency, pid: u32| -> Result<(), String> {
            if full && !c.created.contains(&pid) {
                return Err(format!("process {pid} acts before any record creates it (a record missing?)"));
            }
            if c.ended.contains(&pid) {
                return Err(format!("process {pid} acts after its end"));
            }
            Ok(())
        };
        match *e {
            Event::ProcCreate { pid, function, .. } => {
                if !self.created.insert(pid) {
                    return Err(format!("process {pid} is created twice (a duplicated record?)"));
                }
                self.root.insert(pid, function);
            }
            Event::ProcEnd { pid, .. } => {
                alive(self, pid)?;
                self.ended.insert(pid);
            }
            Event::MsgSend { msg, src_pid, .. } => {
                if src_pid != u32::MAX {
                    alive(self, src_pid)?;
                }
                if !self.sent.insert(msg) {
                    return Err(format!("message {msg} is sent twice (a duplicated record?)"));
                }
            }
            Event::RecvDone { pid, msg, .. } => {
                alive(self, pid)?;
                if full && !self.sent.contains(&msg) {
                    return Err(format!(
                        "process {pid} receives message {msg} before any record sends it (a send missing or moved?)"
                    ));
                }
                if !self.received.insert(msg) {
                    return Err(format!("message {msg} is received twice (a duplicated record?)"));
                }
            }
            Event::Enter { pid, function, .. } => {
                alive(self, pid)?;
                self.stacks.entry(pid).or_default().push(function);
            }
            Event::Leave { pid, function, .. } => {
                alive(self, pid)?;
                let stack = self.stacks.entry(pid).or_default();
                match stack.last() {
                    Some(&top) if top == function => {
                        stack.pop();
                    }
                    Some(&top) if full => {
                        return Err(format!(
                            "process {pid} leaves function {function} while inside function {top} (a record missing?)"
                        ))
                    }
                    None if full && self.root.get(&pid) != Some(&function) => {
                        return Err(format!(
                            "process {pid} leaves function {function}, which it never entered (a record missing?)"
                        ))
                    }
                    // Its own function, or (in a window) one entered before the window.
                    _ => {}
                }
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_read_exactly() {
        // 0.000413 s = 413 µs = 413 time units = 413 000 ticks.
        assert_eq!(parse_seconds("0.000413000"), Some(413_000));
        assert_eq!(parse_seconds("2.500000001"), Some(2_500_000_001));
        assert_eq!(parse_seconds("3"), Some(3_000_000_000));
        assert_eq!(parse_seconds(".5"), Some(500_000_000));
        assert_eq!(parse_seconds("1.0000000001"), None, "ten decimals are finer than a tick");
        assert_eq!(parse_seconds("-1"), None);
        assert_eq!(parse_seconds("1e3"), None);
        assert_eq!(parse_seconds("."), None);
    }
}
