//! The PICL 2.0 reader: the records `cptrace --format picl` writes (see
//! [`super`]) turned back into run-record events.
//!
//! A line is `record event time node process n [format data…]`. What PICL does not hold
//! is rebuilt: a processor is busy from its trace begin (`-3 -901`) except inside idle
//! blocks (`-3/-4 -601`), which gives `Busy` intervals (attributed to the last process
//! seen on the processor); a receive completion is matched to the oldest unmatched send
//! from its source node to its node with its type (channel element), which is the
//! simulator's order for one sender; a process ends (PICL has no such record) where its
//! processor last fell idle after its last event and before another process's next event
//! there, or at its last event. A trace that carries the run record's events in `-2
//! -999` marks ([`super::EVENT_EVENT`], written by `cptrace`) is read as
//! those events instead, so that its analysis is the record's. Records of other kinds
//! are skipped. Depends on
//! [`super`], [`crate::trace`] and nom.
use crate::time::{Ticks, TICKS_PER_UNIT};
use crate::trace::format::import::{derive_stats, parse_seconds, sort, Consistency, ImportError, Imported, MAX_PPROC};
use crate::trace::{BusyClass, Event, MsgPurpose, RunHeader, RunStats};
use nom::bytes::complete::take_while1;
use nom::character::complete::space1;
use nom::multi::separated_list1;
use nom::IResult;
use std::collections::{BTreeMap, VecDeque};
use std::io::BufRead;

fn tokens(line: &str) -> IResult<&str, Vec<&str>> {
    separated_list1(space1, take_while1(|c: char| c == '-' || c == '.' || c.is_ascii_digit()))(line)
}

/// Whether `line` looks like a PICL 2.0 record (a negative record type, an event type and
/// a time in seconds).
pub fn looks_like_picl(line: &str) -> bool {
    let t: Vec<&str> = line.split_whitespace().collect();
    t.len() >= 6
        && t[0].starts_with('-')
        && t[0].parse::<i32>().is_ok()
        && t[1].parse::<i32>().is_ok()
        && parse_seconds(t[2]).is_some()
}

/// A node's place between its trace and idle blocks' begin and end records.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Phase {
    #[default]
    Before,
    Busy,
    Idle,
    Ended,
}

#[derive(Default)]
struct Node {
    /// Where the node is in its trace: the trace and idle blocks must nest.
    phase: Phase,
    busy_since: Option<Ticks>,
    /// Idle starts, in time order.
    idle_starts: Vec<Ticks>,
    /// Process events on this node: (time, pid), in time order.
    activity: Vec<(Ticks, u32)>,
    current: u32,
}

/// Reads a PICL 2.0 trace.
pub fn read<R: BufRead>(input: R) -> Result<Imported, ImportError> {
    let mut events: Vec<Event> = Vec::new();
    let mut nodes: BTreeMap<u32, Node> = BTreeMap::new();
    let mut queues: BTreeMap<(u32, u32, i64), VecDeque<(u64, u32)>> = BTreeMap::new();
    let mut last_of: BTreeMap<u32, (Ticks, u32)> = BTreeMap::new();
    let mut stats: Option<RunStats> = None;
    let mut program = String::new();
    let mut window_from: Option<Ticks> = None;
    // The run record's events, when the trace carries them (`-2 -999` marks).
    let mut embedded: Vec<Event> = Vec::new();
    // The header's names, when the trace carries them (`-2 -998`, concatenated).
    let mut names_bytes: Vec<u8> = Vec::new();
    let (mut next_msg, mut end, mut max_node) = (0u64, 0 as Ticks, 0u32);
    // The records as the trace has them, and the run record's events it carries.
    let (mut check, mut check_embedded) = (Consistency::default(), Consistency::default());
    let mut rebuilt_error: Option<ImportError> = None;
    // Per process: the call (-21 send, -51 or -52 receive) begun and not ended.
    let mut open_call: BTreeMap<u32, i64> = BTreeMap::new();
    // Whether the event marks were counted ([`super::COUNT_EVENT`]).
    let mut counted = false;
    // A window or selection (-989, -988 marks) of the run.
    let mut part = false;
    for (i, line) in crate::textio::lines(input, crate::textio::MAX_LINE).enumerate() {
        let n = i + 1;
        let err = |reason: String| ImportError { line: n, reason };
        let line = line.map_err(|e| err(format!("cannot read: {e}")))?;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let toks = match tokens(line) {
            Ok(("", t)) => t,
            _ => return Err(err(format!("not a PICL record: {line:?}"))),
        };
        if toks.len() < 6 {
            return Err(err(format!("a PICL record has at least 6 fields, this one {}", toks.len())));
        }
        let int = |k: usize| -> Result<i64, ImportError> {
            let s = toks.get(k).ok_or_else(|| err(format!("field {} missing", k + 1)))?;
            s.parse::<i64>().map_err(|_| err(format!("field {} ({s:?}) is not an integer", k + 1)))
        };
        let uint = |k: usize| -> Result<u32, ImportError> {
            let v = int(k)?;
            u32::try_from(v).map_err(|_| err(format!("field {} ({v}) is out of range", k + 1)))
        };
        let (rec, ev) = (int(0)?, int(1)?);
        let time = parse_seconds(toks[2]).ok_or_else(|| err(format!("bad time {:?}", toks[2])))?;
        let node = uint(3)?;
        let pid = uint(4)?;
        let ndata = uint(5)? as usize;
        // Data start after the format field when there are any.
        let d = |k: usize| int(7 + k);
        // The data as bytes (the marks that carry encoded payloads, one byte a datum).
        let data_bytes = || -> Result<Vec<u8>, ImportError> {
            (0..ndata)
                .map(|k| d(k).and_then(|x| u8::try_from(x).map_err(|_| err(format!("byte {x} out of range")))))
                .collect()
        };
        if ndata > 0 && toks.len() != 7 + ndata {
            return Err(err(format!("{ndata} data values announced, {} present", toks.len().saturating_sub(7))));
        }
        if node > MAX_PPROC {
            return Err(err(format!("node {node} is beyond the {MAX_PPROC} processors a trace may have")));
        }
        max_node = max_node.max(node);
        end = end.max(time);
        if matches!((rec, ev), (-2, -988 | -989)) {
            // A window or a selection: not every send, creation or call begin is here.
            check.windowed();
            check_embedded.windowed();
            part = true;
        }
        if (rec, ev) != (-2, -999) {
            // An event mark's time is its event's, checked with the event.
            check.time(time).map_err(err)?;
        }
        let before = events.len();
        let nd = nodes.entry(node).or_default();
        let process_level = !matches!(ev, -901 | -601 | -988 | -989 | -990 | -991 | -992 | -998 | -999);
        if process_level {
            nd.current = pid;
            nd.activity.push((time, pid));
            last_of.insert(pid, (time, node));
        }
        // The trace block (-901) holds the idle blocks (-601), one at a time: a record
        // repeated or lost there would make busy time out of nothing.
        let next = match (rec, ev, nd.phase) {
            (-3, -901, Phase::Before) | (-4, -601, Phase::Idle) => Some(Phase::Busy),
            (-3, -601, Phase::Busy) => Some(Phase::Idle),
            (-4, -901, Phase::Busy | Phase::Idle) => Some(Phase::Ended),
            (-3 | -4, -901 | -601, phase) => {
                let what = match (rec, ev) {
                    (-3, -901) => "begins its trace",
                    (-4, -901) => "ends its trace",
                    (-3, _) => "begins an idle block",
                    _ => "ends an idle block",
                };
                let state = match phase {
                    Phase::Before => "before its trace began",
                    Phase::Busy => "while not idle",
                    Phase::Idle => "while idle",
                    Phase::Ended => "after its trace ended",
                };
                return Err(err(format!("node {node} {what} {state} (a record repeated or missing?)")));
            }
            _ => None,
        };
        if let Some(p) = next {
            nd.phase = p;
        }
        // A send or receive is a begin and an end record of its process, in a row.
        if matches!(ev, -21 | -51 | -52) && matches!(rec, -3 | -4) {
            let open = open_call.get(&pid).copied();
            let name = |e: i64| match e {
                -21 => "send",
                -51 => "receive",
                _ => "blocking receive",
            };
            match (rec, open) {
                (-3, None) => {
                    open_call.insert(pid, ev);
                }
                (-4, Some(o)) if o == ev => {
                    open_call.remove(&pid);
                }
                // A process woken without a message (a probe, a wait for any of several)
                // blocks again in the same receive.
                (-3, Some(-52)) if ev == -52 => {}
                (-3, Some(o)) => {
                    return Err(err(format!(
                        "process {pid} begins a {} inside its {} (a record repeated or missing?)",
                        name(ev),
                        name(o)
                    )))
                }
                (_, Some(o)) => return Err(err(format!("process {pid} ends a {} inside its {}", name(ev), name(o)))),
                // In a window the call may have begun before it.
                (_, None) if part => {}
                (_, None) => {
                    return Err(err(format!(
                        "process {pid} ends a {} it did not begin (a record repeated or missing?)",
                        name(ev)
                    )))
                }
            }
        }
        match (rec, ev) {
            (-3, -901) | (-4, -601) => nd.busy_since = Some(time),
            (-3, -601) | (-4, -901) => {
                let was_busy = nd.busy_since.take();
                if let Some(s) = was_busy {
                    if time > s {
                        let class = BusyClass::Work;
                        events.push(Event::Busy { pproc: node, pid: nd.current, start: s, end: time, line: 0, class });
                    }
                }
                // The trace's end ends a process too when its processor was busy up to it
                // (not when it only closes an idle block there).
                if rec == -3 || was_busy.is_some_and(|s| s < time) {
                    nd.idle_starts.push(time);
                }
            }
            (-2, -503) => {
                let parent = d(0)?;
                let function = u32::try_from(d(1)?).map_err(|_| err("bad function index".into()))?;
                let parent = u32::try_from(parent).ok();
                events.push(Event::ProcCreate { time, parent, pid, vproc: None, pproc: node, function, line: 0 });
            }
            (-3, -21) => {
                let (bytes, ty, dst) = (d(0)?, d(1)?, d(2)?);
                let bytes = u32::try_from(bytes).map_err(|_| err(format!("bad byte count {bytes}")))?;
                let dst = u32::try_from(dst)
                    .ok()
                    .filter(|&d| d <= MAX_PPROC)
                    .ok_or_else(|| err(format!("bad destination node {dst}")))?;
                let index = u32::try_from(ty).unwrap_or(0);
                let msg = next_msg;
                next_msg += 1;
                queues.entry((node, dst, ty)).or_default().push_back((msg, pid));
                events.push(Event::MsgSend {
                    time,
                    msg,
                    src_pid: pid,
                    src_pproc: node,
                    dst_pid: None,
                    dst_pproc: dst,
                    purpose: MsgPurpose::Channel { channel: 0, index },
                    bytes,
                    line: 0,
                });
            }
            (-3, -52) | (-3, -51) => {
                let index = u32::try_from(d(0)?).unwrap_or(0);
                events.push(Event::RecvCall { time, pid, pproc: node, channel: 0, index, line: 0 });
            }
            (-4, -52) | (-4, -51) => {
                let (bytes, ty, src) = (d(0)?, d(1)?, d(2)?);
                let bytes = u32::try_from(bytes).map_err(|_| err(format!("bad byte count {bytes}")))?;
                let matched = u32::try_from(src).ok().and_then(|s| queues.get_mut(&(s, node, ty))?.pop_front());
                let (msg, src_pid) = match matched {
                    Some(m) => m,
                    None => {
                        // A receive of a message whose send is not in the trace.
                        next_msg += 1;
                        (next_msg - 1, u32::MAX)
                    }
                };
                events.push(Event::RecvDone { time, pid, pproc: node, msg, src_pid, bytes });
            }
            (-3, f) | (-4, f) if f > 0 => {
                // A user block: a procedure's entry or exit (event type = function + 1).
                let function = u32::try_from(f - 1).map_err(|_| err(format!("bad block type {f}")))?;
                events.push(if rec == -3 {
                    Event::Enter { time, pid, function }
                } else {
                    Event::Leave { time, pid, function }
                });
            }
            (-2, -911) => {
                let id = i32::try_from(d(0)?).map_err(|_| err("bad probe id".into()))?;
                let label = u32::try_from(d(1)?).unwrap_or(0);
                events.push(Event::Probe { time, pid, pproc: node, id, label });
            }
            (-2, -998) => {
                if names_bytes.len() > MAX_NAMES {
                    return Err(err(format!("the name marks hold more than {MAX_NAMES} bytes")));
                }
                names_bytes.extend(data_bytes()?);
            }
            (-2, -999) => {
                // A run-record event carried verbatim: its payload, one byte per datum.
                let bytes = data_bytes()?;
                let e = crate::trace::record::decode_event_bytes(&bytes)
                    .map_err(|r| err(format!("bad event mark: {r}")))?;
                for p in e.processors().into_iter().flatten() {
                    if p > MAX_PPROC {
                        return Err(err(format!(
                            "processor {p} is beyond the {MAX_PPROC} processors a trace may have"
                        )));
                    }
                    max_node = max_node.max(p);
                }
                check_embedded.event(&e).map_err(|r| err(format!("event mark: {r}")))?;
                embedded.push(e);
            }
            (-2, -989) => window_from = Some(time),
            (-2, -992) => {
                let count = u64::try_from(d(0)?).map_err(|_| err("bad event mark count".into()))?;
                if count != embedded.len() as u64 {
                    return Err(err(format!(
                        "the trace holds {} event marks (-2 -999) where its count mark says {count}: marks were deleted or repeated",
                        embedded.len()
                    )));
                }
                counted = true;
            }
            (-2, -991) => {
                // The program's name, one byte per datum.
                let bytes: Vec<u8> =
                    (0..ndata).map(|k| d(k).map(|x| x.clamp(0, 255) as u8)).collect::<Result<_, _>>()?;
                program = String::from_utf8_lossy(&bytes).into_owned();
            }
            (-2, -990) => {
                let v: Vec<u64> = (0..7)
                    .map(|k| d(k).and_then(|x| u64::try_from(x).map_err(|_| err(format!("negative statistic {x}")))))
                    .collect::<Result<_, _>>()?;
                let tpu = v[6].max(1);
                let t = |x: u64| x.saturating_mul(TICKS_PER_UNIT) / tpu;
                stats = Some(RunStats {
                    seq_ticks: t(v[0]),
                    par_ticks: t(v[1]),
                    pprocs_used: u32::try_from(v[2]).unwrap_or(u32::MAX),
                    messages: v[3],
                    bytes: v[4],
                    total_latency_ticks: crate::time::Total::from(t(v[5])),
                    ..RunStats::default()
                });
            }
            _ => {}
        }
        // The events rebuilt from this record: they count only when the trace carries no
        // run-record events, so the first inconsistency is kept until that is known.
        if rebuilt_error.is_none() {
            for e in &events[before..] {
                if let Err(r) = check.event(e) {
                    rebuilt_error = Some(err(r));
                    break;
                }
            }
        }
    }
    // Process ends, from the idle blocks (see the module documentation). Each process's
    // question is two binary searches in its node's lists, sorted by time (they already
    // are in a time-ordered trace), so the whole is O(E log E) however many processes a
    // node had.
    for nd in nodes.values_mut() {
        nd.activity.sort_by_key(|&(t, _)| t);
        nd.idle_starts.sort_unstable();
    }
    let mut ends: Vec<(Ticks, u32)> = Vec::new();
    for (&pid, &(last, node)) in &last_of {
        let Some(nd) = nodes.get(&node) else { continue };
        let after = nd.activity.partition_point(|&(t, _)| t <= last);
        let next_other = nd.activity[after..].iter().find(|&&(_, p)| p != pid).map_or(Ticks::MAX, |&(t, _)| t);
        let upto = nd.idle_starts.partition_point(|&t| t <= next_other);
        let idle = upto.checked_sub(1).map(|k| nd.idle_starts[k]).filter(|&t| t >= last);
        ends.push((idle.unwrap_or(last), pid));
    }
    for (time, pid) in ends {
        events.push(Event::ProcEnd { time, pid });
    }
    let rebuilt = embedded.is_empty();
    let uncounted = !rebuilt && !counted;
    if let Some(e) = rebuilt_error.filter(|_| rebuilt) {
        return Err(e);
    }
    if rebuilt {
        sort(&mut events);
    } else {
        // The record's own events: what the other records rebuild is less.
        events = embedded;
    }
    let mut names = RunHeader::default();
    if !names_bytes.is_empty() {
        crate::trace::record::decode_names(&names_bytes, &mut names)
            .map_err(|r| ImportError { line: 1, reason: format!("bad names marks (-2 -998): {r}") })?;
    }
    let header = RunHeader { pprocs: max_node + 1, program, ..names };
    let mut derived = derive_stats(&events, end, header.pprocs);
    let mut missing = crate::trace::format::import::missing(stats.is_some(), !header.program.is_empty());
    if rebuilt {
        missing.push(crate::trace::format::import::REBUILT.to_string());
    }
    if uncounted {
        missing.push(
            "no count mark (-2 -992) ends the event marks: the trace may be cut short or be from an older cptrace, and a deleted mark would go unseen".to_string(),
        );
    }
    if let Some(s) = stats {
        derived = RunStats { busy_ticks: derived.busy_ticks, processes: derived.processes, ..s };
    }
    Ok(Imported { header, events, stats: derived, missing, window_from })
}

/// The most bytes the name marks may hold together (the writer leaves the source out
/// past 256 KiB; the names of a program's functions, channels and labels are far less).
const MAX_NAMES: usize = 16 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    /// Node 0 runs process 0 from 0 to 10 µs, spawns process 1 on node 1 at 2 µs, which
    /// sends 4 bytes of type 3 at 6 µs; process 0 blocks at 5 µs (idle 5..7) and receives
    /// at 7 µs, then runs to 10 µs.
    const TRACE: &str = "\
-3 -901 0.000000000 0 0 0
-3 -901 0.000000000 1 0 0
-3 -601 0.000000000 1 0 0
-2 -503 0.000000000 0 0 2 2 -1 0
-2 -503 0.000002000 1 1 2 2 0 1
-4 -601 0.000002000 1 0 0
-3 -52 0.000005000 0 0 3 2 3 -1 0
-3 -601 0.000005000 0 0 0
-3 -21 0.000006000 1 1 4 2 4 3 0 0
-4 -21 0.000006000 1 1 0
-3 -601 0.000006000 1 0 0
-4 -601 0.000007000 0 0 0
-4 -52 0.000007000 0 0 4 2 4 3 1 0
-3 -601 0.000010000 0 0 0
-4 -901 0.000010000 0 0 0
-4 -901 0.000010000 1 0 0
";

    #[test]
    fn a_small_trace_becomes_events() {
        let t = read(TRACE.as_bytes()).unwrap();
        assert_eq!(t.header.pprocs, 2);
        let busy: Vec<(u32, Ticks, Ticks)> = t
            .events
            .iter()
            .filter_map(|e| match *e {
                Event::Busy { pproc, start, end, .. } => Some((pproc, start, end)),
                _ => None,
            })
            .collect();
        // Node 0 busy 0..5 and 7..10 µs, node 1 busy 2..6 µs (1 µs = 1000 ticks).
        assert_eq!(busy, vec![(0, 0, 5000), (1, 2000, 6000), (0, 7000, 10000)]);
        // The receive completion is matched to the send from node 1 with type 3.
        let done = t.events.iter().find_map(|e| match *e {
            Event::RecvDone { msg, src_pid, .. } => Some((msg, src_pid)),
            _ => None,
        });
        assert_eq!(done, Some((0, 1)));
        // Process 1's last event is its send at 6 µs, its node falls idle then: it ends at
        // 6 µs; process 0 ends where node 0 last fell idle, 10 µs.
        let ends: Vec<(u32, Ticks)> = t
            .events
            .iter()
            .filter_map(|e| match *e {
                Event::ProcEnd { pid, time } => Some((pid, time)),
                _ => None,
            })
            .collect();
        assert_eq!(ends, vec![(1, 6000), (0, 10000)]);
        // Without a statistics record: par = 10 µs, seq = busy 5 + 3 + 4 = 12 µs.
        assert_eq!((t.stats.par_ticks, t.stats.seq_ticks, t.stats.pprocs_used), (10_000, 12_000, 2));
        // Latency: arrival is not in PICL, the completion at 7 stands for it: 7 − 6 = 1 µs.
        assert_eq!(t.stats.total_latency_ticks, 1000);
    }

    /// Many processes on one node, each with events at 10k and 10k+1 µs, the node idle
    /// from 10k+3 to 10k+10: process k ends where the node fell idle after its last event
    /// and before the next process's first, 10k+3 µs; the last one at the trace's end.
    /// (The ends take two binary searches each, so 320 000 such processes import in
    /// well under a second: `scripts/bench-import.sh`.)
    #[test]
    fn every_process_on_a_crowded_node_ends_at_its_own_idle_start() {
        let n = 1000u64;
        let mut text = String::from("-3 -901 0.000000000 0 0 0\n");
        for k in 0..n {
            let t = 10 * k;
            text += &format!("-2 -503 0.{:09} 0 {k} 2 2 -1 0\n", t * 1000);
            text += &format!("-3 -52 0.{:09} 0 {k} 3 2 0 -1 0\n", (t + 1) * 1000);
            text += &format!("-3 -601 0.{:09} 0 0 0\n", (t + 3) * 1000);
            text += &format!("-4 -601 0.{:09} 0 0 0\n", (t + 10) * 1000);
        }
        let t = read(text.as_bytes()).unwrap();
        let ends: BTreeMap<u32, Ticks> = t
            .events
            .iter()
            .filter_map(|e| match *e {
                Event::ProcEnd { pid, time } => Some((pid, time)),
                _ => None,
            })
            .collect();
        assert_eq!(ends.len(), n as usize);
        for (&pid, &time) in &ends {
            assert_eq!(time, (10 * u64::from(pid) + 3) * 1000, "process {pid}");
        }
    }

    #[test]
    fn the_statistics_record_wins() {
        let text = format!("{TRACE}-2 -990 0.000010000 0 0 7 2 9000 10000 2 1 4 1000 1000\n");
        let t = read(text.as_bytes()).unwrap();
        assert_eq!((t.stats.seq_ticks, t.stats.par_ticks, t.stats.messages), (9000, 10_000, 1));
    }

    #[test]
    fn errors_name_the_line() {
        let e = read("-3 -901 0.0 0 0 0\n-3 -21 x 0 0 0\n".as_bytes()).unwrap_err();
        assert_eq!(e.line, 2);
        let e = read("-3 -21 0.1 0 0 4 2 1\n".as_bytes()).unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.to_string().contains("4 data values announced, 1 present"), "{e}");
        assert!(looks_like_picl("-3 -901 0.000000000 0 0 0"));
        assert!(!looks_like_picl("seq_time,par_time"));
    }
}
