//! The visual performance debugger (`cpperf RUN --html report.html`, SPEC §6): one
//! self-contained HTML file holding the run's data, the page's script and its styles, that
//! opens from disk with no network.
//!
//! Depends on [`super::Analysis`] (every figure the page shows is the analysis's, the same
//! as `cpperf --format json`, which the page embeds verbatim) and on
//! [`crate::trace::states`] (the timeline's stretches come from a second pass over the
//! events, through the same processor state machine as the Paraver states and `cpperf`'s
//! time by state, so the three always agree). The page's code lives in `html/report.js`
//! and `html/report.css`, embedded at build time.
//!
//! # Bounded size
//!
//! The timeline carries every stretch of every processor (busy with its process, or idle
//! in a waiting state) while there are at most [`MAX_STRETCHES`] of them. A longer run is
//! pre-aggregated: each processor's time is cut into equal bins (as many as fit in
//! [`MAX_BIN_VALUES`] numbers over all processors and states, at most [`MAX_BINS`] and at
//! least one each),
//! and a bin holds the ticks spent in each state, so the page still draws every pixel by
//! coverage (a bin's shade is its busy share), only no finer than a bin. Messages: at most
//! [`MAX_MESSAGES`], the first ones in send order (the page says how many it left out).
//! The timeline and messages are then at most about 20 MB whatever the run's length (on
//! machines of up to 428 571 processors, where one bin each fits); the process tables
//! (processor and function of each process) add a few tens of bytes a process.
use super::render::json;
use super::svg::escape;
use super::Analysis;
use crate::time::Ticks;
use crate::trace::states::{palette, PState, ProcessorStates};
use crate::trace::{Event, RunHeader};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The most stretches the timeline carries one by one.
pub const MAX_STRETCHES: usize = 250_000;
/// The most numbers in the aggregated timeline (bins × states × processors).
pub const MAX_BIN_VALUES: usize = 3_000_000;
/// The most bins per processor.
pub const MAX_BINS: usize = 4096;
/// The most message lines carried.
pub const MAX_MESSAGES: usize = 100_000;

const SCRIPT: &str = include_str!("html/report.js");
const STYLE: &str = include_str!("html/report.css");

/// The state codes of the page: its index in this list.
const STATES: [PState; 7] =
    [PState::Running, PState::Message, PState::RemoteRead, PState::Lock, PState::Children, PState::Delay, PState::Idle];

fn code(st: PState) -> u8 {
    STATES.iter().position(|&s| s == st).unwrap_or(6) as u8
}

/// What the second pass over the events collects.
#[derive(Debug, Default)]
struct Pass {
    /// `(pproc, start, end, state code, pid, line)`; pid `u32::MAX` and line 0 for
    /// waiting stretches; the line a busy interval's turn ended on.
    stretches: Vec<(u32, Ticks, Ticks, u8, u32, u32)>,
}

/// The report for `a`, whose events `events` yields again (in record order).
pub fn report(a: &Analysis, header: &RunHeader, events: impl Iterator<Item = Event>) -> String {
    let n = header.pprocs.max(a.summary.pprocs_used).max(1);
    let end = a.summary.par_ticks.max(a.timeline.end).max(1);
    let mut pass = Pass::default();
    let mut states = ProcessorStates::default();
    for p in 0..n {
        states.begin(p, 0);
    }
    for e in events {
        let (pid_of, line_of) = match e {
            Event::Busy { pid, line, .. } => (pid, line),
            _ => (u32::MAX, 0),
        };
        states.each(&e, |p, s, t, st| {
            if st != PState::Idle && t > s {
                let (pid, line) = if st == PState::Running { (pid_of, line_of) } else { (u32::MAX, 0) };
                pass.stretches.push((p, s, t, code(st), pid, line));
            }
        });
    }
    states.finish(end, 0..n, |p, s, t, st| {
        if st != PState::Idle && t > s {
            pass.stretches.push((p, s, t, code(st), u32::MAX, 0));
        }
    });
    let data = data(a, header, n, end, pass);
    let mut page = String::with_capacity(data.len() + SCRIPT.len() + STYLE.len() + 4096);
    let title = escape(if a.program.is_empty() { "run" } else { &a.program });
    page.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    page.push_str(&format!("<title>{title}: cpperf report</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n"));
    page.push_str(&format!("<header><h1>{title}</h1><p id=\"figures\"></p></header>\n<main id=\"app\"></main>\n"));
    // JSON inside a script element: "</" would end the element, so it is escaped.
    page.push_str("<script id=\"data\" type=\"application/json\">");
    page.push_str(&data.replace("</", "<\\/"));
    page.push_str("</script>\n<script>\n");
    page.push_str(SCRIPT);
    page.push_str("</script>\n</body>\n</html>\n");
    page
}

/// The page's data as one JSON document.
fn data(a: &Analysis, header: &RunHeader, n: u32, end: Ticks, mut pass: Pass) -> String {
    let analysis: Value = serde_json::from_str(&json(a)).unwrap_or(Value::Null);
    // Processor of each process, function of each process.
    let pproc_of: BTreeMap<String, u32> = a.timeline.pproc_of.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let functions: BTreeMap<String, &str> = a.functions.iter().map(|(k, v)| (k.to_string(), v.as_str())).collect();
    let timeline = timeline(&mut pass.stretches, n, end, MAX_STRETCHES);
    let mut messages: Vec<[u64; 6]> = Vec::new();
    for m in a.timeline.messages.iter().take(MAX_MESSAGES) {
        let kind = match m.kind {
            super::svg::MsgKind::Channel => 0,
            super::svg::MsgKind::RemoteRead => 1,
            super::svg::MsgKind::RemoteWrite => 2,
        };
        messages.push([m.send, u64::from(m.src), m.arrival, u64::from(m.dst), u64::from(m.bytes), kind]);
    }
    let path = |c: &super::graph::CriticalPath| -> Vec<Value> {
        c.segments
            .iter()
            .map(|s| {
                json!([
                    s.kind.name(),
                    s.pid,
                    s.to_pid,
                    s.from,
                    s.to,
                    s.weight,
                    a.timeline.pproc_of.get(&s.pid),
                    s.to_pid.and_then(|p| a.timeline.pproc_of.get(&p))
                ])
            })
            .collect()
    };
    let waits: Vec<[u64; 2]> =
        a.lines.waits.iter().filter(|(_, w)| w.0 > 0).map(|(&l, &(w, _))| [u64::from(l), w]).collect();
    let doc = json!({
        "version": 1,
        "tpu": header.ticks_per_unit.max(1),
        "end": end,
        "processors": n,
        "topology": header.topology,
        "virtual_topology": header.virtual_topology,
        "network": header.network,
        "source_name": header.source_name,
        "source": header.source,
        "pproc_of": pproc_of,
        "functions": functions,
        "states": STATES.iter().map(|s| s.name()).collect::<Vec<_>>(),
        "colours": STATES.iter().map(|s| s.colour()).collect::<Vec<_>>(),
        "line_colours": palette::LINES,
        "timeline": timeline,
        "messages": messages,
        "messages_total": a.timeline.messages.len(),
        "critical": path(&a.critical),
        "weighted": path(&a.weighted),
        "profile": super::svg::busy_per_column(&a.timeline.busy, end, 1000).iter().map(|&x| x as f64 / (end as f64 / 1000.0) / f64::from(n)).collect::<Vec<_>>(),
        "waits": waits,
        "analysis": analysis,
    });
    doc.to_string()
}

/// The timeline's data: every stretch while there are at most `max` of them, else the
/// time in each state per bin (see the module documentation).
fn timeline(stretches: &mut [(u32, Ticks, Ticks, u8, u32, u32)], n: u32, end: Ticks, max: usize) -> Value {
    if stretches.len() <= max {
        // By processor, then start: the page finds a window's stretches by binary search.
        stretches.sort_unstable();
        let mut rows: Vec<Vec<u64>> = vec![Vec::new(); n as usize];
        for &(p, s, t, st, pid, line) in stretches.iter() {
            if let Some(r) = rows.get_mut(p as usize) {
                r.extend_from_slice(&[s, t, u64::from(st), u64::from(pid), u64::from(line)]);
            }
        }
        json!({ "mode": "stretches", "rows": rows })
    } else {
        let per = (MAX_BIN_VALUES / (STATES.len() * n.max(1) as usize)).clamp(1, MAX_BINS);
        let bins = per as u64;
        let mut rows: Vec<Vec<u64>> = vec![vec![0; per * STATES.len()]; n as usize];
        // Bin k covers [k·end/bins, (k+1)·end/bins): exact integer edges.
        let lo = |k: u64| (u128::from(k) * u128::from(end) / u128::from(bins)) as Ticks;
        for &(p, s, t, st, _, _) in stretches.iter() {
            let Some(r) = rows.get_mut(p as usize) else { continue };
            let (s, t) = (s.min(end), t.min(end));
            let mut k = (u128::from(s) * u128::from(bins) / u128::from(end)) as u64;
            while k < bins && lo(k) < t {
                let (x, y) = (lo(k).max(s), lo(k + 1).min(t));
                if y > x {
                    r[st as usize * per + k as usize] += y - x;
                }
                k += 1;
            }
        }
        json!({ "mode": "bins", "bins": per, "rows": rows })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stretches_are_kept_by_processor_and_start() {
        // Two stretches of P1 given out of order, one of P0: rows hold
        // [start, end, state, pid, line] sorted by start.
        let mut v = vec![(1, 50, 60, 1, u32::MAX, 0), (0, 0, 10, 0, 3, 7), (1, 10, 20, 0, 4, 9)];
        let t = timeline(&mut v, 2, 100, 10);
        assert_eq!(t["mode"], "stretches");
        assert_eq!(t["rows"][0], json!([0, 10, 0, 3, 7]));
        assert_eq!(t["rows"][1], json!([10, 20, 0, 4, 9, 50, 60, 1, u32::MAX, 0]));
    }

    #[test]
    fn aggregated_bins_hold_each_state_s_ticks_exactly() {
        // Forced into bins (max 0): 1 processor, end 100, so MAX_BIN_VALUES / 7 bins are
        // capped at MAX_BINS = 4096 bins of 100/4096 ticks. A running stretch [10, 35)
        // and a message wait [35, 100): the bins' running ticks sum to 25 and the
        // waiting ticks to 65, every tick counted once.
        let mut v = vec![(0, 10, 35, 0, 1, 0), (0, 35, 100, 1, u32::MAX, 0)];
        let t = timeline(&mut v, 1, 100, 0);
        assert_eq!(t["mode"], "bins");
        let bins = t["bins"].as_u64().unwrap() as usize;
        assert_eq!(bins, MAX_BINS);
        let row: Vec<u64> = t["rows"][0].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
        assert_eq!(row[..bins].iter().sum::<u64>(), 25);
        assert_eq!(row[bins..2 * bins].iter().sum::<u64>(), 65);
        assert_eq!(row[2 * bins..].iter().sum::<u64>(), 0);
    }
}
