//! The old PICL reader: the compact PICL 1.x records of seed 001 Table 8-1 that
//! `cptrace --format picl1` writes (see [`super`]) turned back into
//! run-record events.
//!
//! A line is `key sec usec node fields…`, time in whole seconds and microseconds (one
//! microsecond is one time unit). The format names nodes, not processes: each node is
//! read as one process whose id is the node's number, created at its trace start (`1`)
//! and ended at its trace exit (`19`). A node is busy from its trace start except in its
//! idle periods, which the compstats records (`11`) give as cumulative idle time: each
//! one ends an idle period that lasted the growth of the total since the previous one.
//! Sends (`4`: to, type, length) are matched to receives (`6` at once, `8` after a
//! blocking `7`: from, type, length) oldest first per (source, destination, type), the
//! simulator's order for one sender; trace marks (`15`) are probes. The other keys of
//! the format (open, close, sync, commstats, blocks, clock sync…) carry nothing the
//! analysis uses and are skipped. Depends on [`super`] and [`crate::trace`].
use crate::time::{Ticks, TICKS_PER_UNIT};
use crate::trace::format::import::{derive_stats, sort, ImportError, Imported, MAX_PPROC};
use crate::trace::{Event, MsgPurpose, RunHeader};
use std::collections::{BTreeMap, VecDeque};
use std::io::BufRead;

/// The record keys of the old format (FORMATS.md, PICL old ASCII format).
const KEYS: [u32; 16] = [1, 2, 4, 5, 6, 7, 8, 10, 11, 12, 13, 15, 19, 20, 21, 23];

/// Whether `line` looks like an old PICL record: a known key, then seconds,
/// microseconds below a million and a node, all unsigned integers.
pub fn looks_like_picl1(line: &str) -> bool {
    let t: Vec<&str> = line.split_whitespace().collect();
    t.len() >= 4
        && t.iter().all(|s| s.parse::<u64>().is_ok())
        && t[0].parse::<u32>().is_ok_and(|k| KEYS.contains(&k))
        && t[2].parse::<u64>().is_ok_and(|us| us < 1_000_000)
}

/// Per-node reading state.
#[derive(Default)]
struct Node {
    /// Start of the busy period under way (from the trace start or the last idle end).
    busy_since: Option<Ticks>,
    /// The cumulative idle time of the last compstats record.
    idle_total: Ticks,
    started: bool,
}

/// Node `node` busy from `since` (when it is) to `end`, when that is a real interval.
fn busy(events: &mut Vec<Event>, node: u32, since: Option<Ticks>, end: Ticks) {
    if let Some(start) = since.filter(|&s| s < end) {
        let class = crate::trace::BusyClass::Work;
        events.push(Event::Busy { pproc: node, pid: node, start, end, line: 0, class });
    }
}

/// Reads an old-format PICL trace.
pub fn read<R: BufRead>(input: R) -> Result<Imported, ImportError> {
    let mut events: Vec<Event> = Vec::new();
    let mut nodes: BTreeMap<u32, Node> = BTreeMap::new();
    let mut queues: BTreeMap<(u32, u32, u64), VecDeque<u64>> = BTreeMap::new();
    let (mut next_msg, mut end, mut max_node) = (0u64, 0 as Ticks, 0u32);
    // The records' times never go back.
    let mut order = crate::trace::format::import::Consistency::default();
    for (i, line) in crate::textio::lines(input, crate::textio::MAX_LINE).enumerate() {
        let n = i + 1;
        let err = |reason: String| ImportError { line: n, reason };
        let line = line.map_err(|e| err(format!("cannot read: {e}")))?;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let fields: Vec<u64> = line
            .split_whitespace()
            .enumerate()
            .map(|(k, s)| s.parse::<u64>().map_err(|_| err(format!("field {} ({s:?}) is not a whole number", k + 1))))
            .collect::<Result<_, _>>()?;
        if fields.len() < 4 {
            return Err(err(format!("an old PICL record has at least 4 fields, this one {}", fields.len())));
        }
        let (key, sec, usec) = (fields[0], fields[1], fields[2]);
        if usec >= 1_000_000 {
            return Err(err(format!("{usec} microseconds: the field holds less than a second")));
        }
        let time = sec
            .checked_mul(1_000_000)
            .and_then(|us| us.checked_add(usec))
            .and_then(|us| us.checked_mul(TICKS_PER_UNIT))
            .ok_or_else(|| err(format!("time {sec} s is out of range")))?;
        let node = u32::try_from(fields[3])
            .ok()
            .filter(|&p| p <= MAX_PPROC)
            .ok_or_else(|| err(format!("node {} is beyond the {MAX_PPROC} processors a trace may have", fields[3])))?;
        let want = |k: usize| -> Result<(), ImportError> {
            if fields.len() < 4 + k {
                return Err(err(format!(
                    "a record of key {key} has {k} fields after the node, this one {}",
                    fields.len() - 4
                )));
            }
            Ok(())
        };
        let small = |v: u64, what: &str| u32::try_from(v).map_err(|_| err(format!("{what} {v} is out of range")));
        max_node = max_node.max(node);
        end = end.max(time);
        order.time(time).map_err(err)?;
        let nd = nodes.entry(node).or_default();
        match key {
            1 => {
                if !nd.started {
                    nd.started = true;
                    nd.busy_since = Some(time);
                    let function = 0;
                    events.push(Event::ProcCreate {
                        time,
                        parent: None,
                        pid: node,
                        vproc: None,
                        pproc: node,
                        function,
                        line: 0,
                    });
                }
            }
            11 => {
                want(2)?;
                let total = fields[4]
                    .checked_mul(1_000_000)
                    .and_then(|us| us.checked_add(fields[5]))
                    .and_then(|us| us.checked_mul(TICKS_PER_UNIT))
                    .ok_or_else(|| err("idle time out of range".into()))?;
                let grown = total.checked_sub(nd.idle_total).ok_or_else(|| {
                    err(format!(
                        "the cumulative idle time falls from {} to {} µs",
                        nd.idle_total / TICKS_PER_UNIT,
                        total / TICKS_PER_UNIT
                    ))
                })?;
                nd.idle_total = total;
                let idle_start = time.saturating_sub(grown);
                busy(&mut events, node, nd.busy_since, idle_start);
                nd.busy_since = Some(time);
            }
            19 => {
                busy(&mut events, node, nd.busy_since.take(), time);
                if nd.started {
                    events.push(Event::ProcEnd { time, pid: node });
                }
            }
            4 => {
                want(3)?;
                let dst = u32::try_from(fields[4])
                    .ok()
                    .filter(|&d| d <= MAX_PPROC)
                    .ok_or_else(|| err(format!("bad destination node {}", fields[4])))?;
                let (ty, bytes) = (fields[5], small(fields[6], "length")?);
                let msg = next_msg;
                next_msg += 1;
                queues.entry((node, dst, ty)).or_default().push_back(msg);
                events.push(Event::MsgSend {
                    time,
                    msg,
                    src_pid: node,
                    src_pproc: node,
                    dst_pid: None,
                    dst_pproc: dst,
                    purpose: MsgPurpose::Channel { channel: 0, index: small(ty, "type")? },
                    bytes,
                    line: 0,
                });
            }
            7 => {
                want(1)?;
                let index = small(fields[4], "type")?;
                events.push(Event::RecvCall { time, pid: node, pproc: node, channel: 0, index, line: 0 });
            }
            6 | 8 => {
                want(3)?;
                let (src, ty, bytes) = (fields[4], fields[5], small(fields[6], "length")?);
                if key == 6 {
                    let index = small(ty, "type")?;
                    events.push(Event::RecvCall { time, pid: node, pproc: node, channel: 0, index, line: 0 });
                }
                let matched = u32::try_from(src).ok().and_then(|s| queues.get_mut(&(s, node, ty))?.pop_front());
                let (msg, src_pid) = match matched {
                    Some(m) => (m, src as u32),
                    None => {
                        // A receive of a message whose send is not in the trace.
                        next_msg += 1;
                        (next_msg - 1, u32::MAX)
                    }
                };
                events.push(Event::RecvDone { time, pid: node, pproc: node, msg, src_pid, bytes });
            }
            15 => {
                want(1)?;
                let id =
                    i32::try_from(fields[4]).map_err(|_| err(format!("mark type {} is out of range", fields[4])))?;
                events.push(Event::Probe { time, pid: node, pproc: node, id, label: 0 });
            }
            20 | 21 => {
                // Block begin and end: a procedure's entry and exit (block type =
                // function + 1); the old format's process is its node.
                want(1)?;
                let function = fields[4]
                    .checked_sub(1)
                    .and_then(|f| u32::try_from(f).ok())
                    .ok_or_else(|| err(format!("block type {} is out of range", fields[4])))?;
                events.push(if key == 20 {
                    Event::Enter { time, pid: node, function }
                } else {
                    Event::Leave { time, pid: node, function }
                });
            }
            k if KEYS.contains(&(k as u32)) => {}
            k => return Err(err(format!("{k} is not a record key of the old PICL format"))),
        }
    }
    sort(&mut events);
    let header = RunHeader { pprocs: max_node + 1, ..RunHeader::default() };
    let stats = derive_stats(&events, end, header.pprocs);
    let mut missing = crate::trace::format::import::missing(false, false);
    missing.push(crate::trace::format::import::REBUILT.to_string());
    Ok(Imported { header, events, stats, missing, window_from: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Node 0 idle from 0 to 2 µs (compstats at 2: 2 µs idle), busy 2..5, sends 12 bytes
    /// of type 3 to node 1 at 4 µs; node 1 starts idle, blocks at 1 µs waiting for type
    /// 3, wakes at 6 µs with the message (idle 0..6: compstats at 6 says 6 µs), busy
    /// 6..9; both exit at 9 (node 0 idle 5..9: 2 + 4 = 6 µs in its last compstats).
    const TRACE: &str = "\
1 0 0 0 4 1 0
1 0 0 1 4 1 0
7 0 1 1 3
11 0 2 0 0 2
4 0 4 0 1 3 12
11 0 6 1 0 6
8 0 6 1 0 3 12
15 0 7 1 42
11 0 9 0 0 6
19 0 9 0 0
11 0 9 1 0 6
19 0 9 1 0
";

    #[test]
    fn a_small_old_trace_becomes_events() {
        let t = read(TRACE.as_bytes()).unwrap();
        assert_eq!(t.header.pprocs, 2);
        let us = TICKS_PER_UNIT;
        let busy: Vec<(u32, Ticks, Ticks)> = t
            .events
            .iter()
            .filter_map(|e| match *e {
                Event::Busy { pproc, start, end, .. } => Some((pproc, start / us, end / us)),
                _ => None,
            })
            .collect();
        assert_eq!(busy, vec![(0, 2, 5), (1, 6, 9)]);
        // The wake-up is matched to node 0's send: latency 6 − 4 = 2 µs.
        assert_eq!(t.stats.messages, 1);
        assert_eq!(t.stats.total_latency_ticks, u128::from(2 * us));
        // par = 9 µs, seq = busy 3 + 3 = 6 µs, both nodes used, two processes.
        assert_eq!((t.stats.par_ticks, t.stats.seq_ticks), (9 * us, 6 * us));
        assert_eq!((t.stats.pprocs_used, t.stats.processes), (2, 2));
        assert!(t.events.iter().any(|e| matches!(*e, Event::Probe { id: 42, pproc: 1, .. })));
    }

    #[test]
    fn errors_name_the_line() {
        let e = read("1 0 0 0 4 1 0\n4 0 5 0 1\n".as_bytes()).unwrap_err();
        assert_eq!(e.line, 2);
        let e = read("1 0 1000000 0 4 1 0\n".as_bytes()).unwrap_err();
        assert!(e.reason.contains("less than a second"), "{e}");
        let e = read("1 0 0 0 4 1 0\n11 0 5 0 0 4\n11 0 6 0 0 3\n".as_bytes()).unwrap_err();
        assert_eq!(e.line, 3);
        let e = read("99 0 0 0\n".as_bytes()).unwrap_err();
        assert!(e.reason.contains("not a record key"), "{e}");
    }

    #[test]
    fn detection() {
        assert!(looks_like_picl1("1 0 0 0 4 1 0"));
        assert!(looks_like_picl1("4 0 3186 2 3 2 12"));
        assert!(!looks_like_picl1("-3 -901 0.000000000 0 0 0"));
        assert!(!looks_like_picl1("99 0 0 0"));
        assert!(!looks_like_picl1("1 0 0"));
    }
}
