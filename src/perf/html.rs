//! The visual performance debugger (`cpperf RUN --html report.html`, SPEC §6): one
//! self-contained HTML file holding the run's data, the page's script and its styles, that
//! opens from disk with no network.
//!
//! Depends on [`super::Analysis`] (every figure the page shows is the analysis's, the same
//! as `cpperf --format json`, which the page embeds verbatim) and on
//! [`crate::trace::states`] (the timeline's stretches come from a second pass over the
//! events, through the same processor state machine as the Paraver states and `cpperf`'s
//! time by state, so the three always agree; the same pass collects the message lines
//! with their processes, send line and channel element). The page's code lives in
//! `html/report.js` and `html/report.css`, embedded at build time.
//!
//! # Safe to share
//!
//! The data is one JSON document, gzip-compressed, in base64 ([`page_data`] reads it
//! back): nothing from the run (source, names, probe labels) can end its element or
//! start markup, and the script inserts every text as text. A Content-Security-Policy
//! forbids the network and every script but the page's own, admitted by its SHA-256.
//!
//! # Bounded size
//!
//! The timeline carries every stretch of every processor (busy with its process, or idle
//! in a waiting state) while there are at most [`MAX_STRETCHES`] of them, as gaps and
//! lengths (small numbers that compress well). A longer run is
//! pre-aggregated: each processor's time is cut into equal bins (as many as fit in
//! [`MAX_BIN_VALUES`] numbers over all processors and states, at most [`MAX_BINS`] and at
//! least one each),
//! and a bin holds the ticks spent in each state, so the page still draws every pixel by
//! coverage (a bin's shade is its busy share), only no finer than a bin. Messages: the
//! first [`MAX_MESSAGES`] sent (the page says how many it left out). Compressed, the
//! report of the 64 × 64 matrix multiplication (594 000 stretches, 100 000 message lines,
//! 4096 processes) is about 2.5 MB.
use super::render::json;
use super::svg::{escape, MsgKind};
use super::Analysis;
use crate::time::Ticks;
use crate::trace::states::{palette, PState, ProcessorStates};
use crate::trace::{Event, MsgPurpose, RunHeader};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::io::Write;

/// The most stretches the timeline carries one by one.
pub const MAX_STRETCHES: usize = 1_000_000;
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

/// One message line of the page, with what clicking it shows.
#[derive(Debug, Clone, Copy)]
struct Line {
    send: Ticks,
    src: u32,
    dst: u32,
    /// `None` until it arrives (in flight at the end: not drawn).
    arrival: Option<Ticks>,
    bytes: u32,
    kind: MsgKind,
    src_pid: u32,
    dst_pid: Option<u32>,
    /// The send's source line.
    line: u32,
    /// The channel and element, for channel messages.
    channel: Option<(u32, u32)>,
}

/// What the second pass over the events collects.
#[derive(Debug, Default)]
struct Pass {
    /// `(pproc, start, end, state code, pid, line)`; pid `u32::MAX` and line 0 for
    /// waiting stretches; the line a busy interval's turn ended on.
    stretches: Vec<(u32, Ticks, Ticks, u8, u32, u32)>,
    /// The first [`MAX_MESSAGES`] messages in record (send) order.
    lines: Vec<Line>,
    /// Their places in `lines`, by message id.
    line_of: HashMap<u64, usize>,
    /// Every message sent.
    sent: u64,
}

impl Pass {
    fn message(&mut self, e: &Event) {
        match *e {
            Event::MsgSend { time, msg, src_pid, src_pproc, dst_pid, dst_pproc, purpose, bytes, line } => {
                self.sent += 1;
                if self.lines.len() < MAX_MESSAGES {
                    let channel = match purpose {
                        MsgPurpose::Channel { channel, index } => Some((channel, index)),
                        _ => None,
                    };
                    self.line_of.insert(msg, self.lines.len());
                    self.lines.push(Line {
                        send: time,
                        src: src_pproc,
                        dst: dst_pproc,
                        arrival: None,
                        bytes,
                        kind: MsgKind::of(purpose),
                        src_pid,
                        dst_pid,
                        line,
                        channel,
                    });
                }
            }
            Event::MsgArrive { time, msg, .. } => {
                if let Some(&i) = self.line_of.get(&msg) {
                    self.lines[i].arrival = Some(time);
                }
            }
            // Traces without arrivals (PICL): the receive's completion stands for it.
            Event::RecvDone { time, msg, .. } => {
                if let Some(&i) = self.line_of.get(&msg) {
                    self.lines[i].arrival.get_or_insert(time);
                }
            }
            _ => {}
        }
    }
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
        pass.message(&e);
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
    let data = encode(&data(a, header, n, end, pass));
    let mut page = String::with_capacity(data.len() + SCRIPT.len() + STYLE.len() + 4096);
    let title = escape(if a.program.is_empty() { "run" } else { &a.program });
    page.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    // No network, no script but the page's own (by its hash), no plugin, no form, no
    // base: a report of someone else's program runs nothing of theirs.
    page.push_str(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src '{}'; \
         style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">\n",
        script_hash()
    ));
    page.push_str(&format!("<title>{title}: cpperf report</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n"));
    page.push_str(&format!("<header><h1>{title}</h1><p id=\"figures\"></p></header>\n<main id=\"app\"></main>\n"));
    // The data: JSON, gzip-compressed, in base64 (no character of which can end the
    // element or start markup); the page inflates it with the browser's own
    // DecompressionStream.
    page.push_str("<script id=\"data\" type=\"application/octet-stream\" data-encoding=\"gzip+base64\">");
    page.push_str(&data);
    page.push_str("</script>\n<script>");
    page.push_str(SCRIPT);
    page.push_str("</script>\n</body>\n</html>\n");
    page
}

/// `'sha256-…'`: the Content-Security-Policy source of the page's script.
fn script_hash() -> String {
    use sha2::Digest;
    format!("sha256-{}", base64(&sha2::Sha256::digest(SCRIPT.as_bytes())))
}

/// `text` gzip-compressed, in base64.
fn encode(text: &str) -> String {
    let mut z = flate2::write::GzEncoder::new(Vec::with_capacity(text.len() / 6), flate2::Compression::new(6));
    // Writing into a vector cannot fail.
    let _ = z.write_all(text.as_bytes());
    base64(&z.finish().unwrap_or_default())
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 (RFC 4648 §4) with padding.
fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let v =
            (u32::from(c[0]) << 16) | (u32::from(*c.get(1).unwrap_or(&0)) << 8) | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            out.push(if k <= c.len() { B64[(v >> (18 - 6 * k)) as usize & 63] as char } else { '=' });
        }
    }
    out
}

/// The bytes of standard base64 text (whitespace skipped); `None` if it is not base64.
fn unbase64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes().filter(|c| !c.is_ascii_whitespace()) {
        if c == b'=' {
            break;
        }
        acc = (acc << 6) | B64.iter().position(|&b| b == c)? as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// The data of a report page `page` (what [`report`] embedded), for tests and tools that
/// read reports; `None` if the page holds none.
pub fn page_data(page: &str) -> Option<Value> {
    let start = page.find("data-encoding=\"gzip+base64\">")? + "data-encoding=\"gzip+base64\">".len();
    let text = &page[start..start + page[start..].find("</script>")?];
    let mut json = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&unbase64(text)?[..]), &mut json).ok()?;
    serde_json::from_str(&json).ok()
}

/// The page's data as one JSON document.
fn data(a: &Analysis, header: &RunHeader, n: u32, end: Ticks, mut pass: Pass) -> String {
    let analysis: Value = serde_json::from_str(&json(a)).unwrap_or(Value::Null);
    // Processor of each process, function of each process.
    let pproc_of: BTreeMap<String, u32> = a.timeline.pproc_of.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let functions: BTreeMap<String, &str> = a.functions.iter().map(|(k, v)| (k.to_string(), v.as_str())).collect();
    // The utilization profile: busy ticks per thousandth of the run.
    let busy: Vec<(u32, u32, Ticks, Ticks)> =
        pass.stretches.iter().filter(|s| s.3 == 0).map(|&(p, s, t, _, pid, _)| (p, pid, s, t)).collect();
    let profile: Vec<f64> = super::svg::busy_per_column(&busy, end, 1000)
        .iter()
        .map(|&x| x as f64 / (end as f64 / 1000.0) / f64::from(n))
        .collect();
    drop(busy);
    let timeline = timeline(&mut pass.stretches, n, end, MAX_STRETCHES);
    // `[send, src, arrival, dst, bytes, kind, src pid, dst pid, line, channel, index]`,
    // -1 for what a message has not.
    let opt = |x: Option<u32>| x.map_or(-1, i64::from);
    let arrived = pass.lines.iter().filter(|m| m.arrival.is_some()).count();
    let messages: Vec<[i64; 11]> = pass
        .lines
        .iter()
        .filter_map(|m| {
            let kind = match m.kind {
                MsgKind::Channel => 0,
                MsgKind::RemoteRead => 1,
                MsgKind::RemoteWrite => 2,
            };
            Some([
                m.send as i64,
                i64::from(m.src),
                m.arrival? as i64,
                i64::from(m.dst),
                i64::from(m.bytes),
                kind,
                i64::from(m.src_pid),
                opt(m.dst_pid),
                i64::from(m.line),
                opt(m.channel.map(|c| c.0)),
                opt(m.channel.map(|c| c.1)),
            ])
        })
        .collect();
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
                    s.to_pid.and_then(|p| a.timeline.pproc_of.get(&p)),
                    s.parallelism
                ])
            })
            .collect()
    };
    let waits: Vec<[u64; 2]> =
        a.lines.waits.iter().filter(|(_, w)| w.0 > 0).map(|(&l, &(w, _))| [u64::from(l), w]).collect();
    let doc = json!({
        "version": 2,
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
        "channels": header.channels.iter().map(|c| json!([c.name, c.dims])).collect::<Vec<_>>(),
        "states": STATES.iter().map(|s| s.name()).collect::<Vec<_>>(),
        "colours": STATES.iter().map(|s| s.colour()).collect::<Vec<_>>(),
        "line_colours": palette::LINES,
        "timeline": timeline,
        "messages": messages,
        // Sent in the run, and of the first MAX_MESSAGES sent, those that arrived (drawn).
        "messages_total": pass.sent,
        "messages_arrived": arrived,
        "critical": path(&a.critical),
        "weighted": path(&a.weighted),
        "profile": profile,
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
        // `[gap, length, state, pid, line]`: the gap since the row's previous stretch
        // ended (from 0), pid -1 for a wait; small numbers that compress well.
        let mut rows: Vec<Vec<i64>> = vec![Vec::new(); n as usize];
        let mut last: Vec<Ticks> = vec![0; n as usize];
        for &(p, s, t, st, pid, line) in stretches.iter() {
            if let Some(r) = rows.get_mut(p as usize) {
                let pid = if pid == u32::MAX { -1 } else { i64::from(pid) };
                r.extend_from_slice(&[
                    (s - last[p as usize]) as i64,
                    (t - s) as i64,
                    i64::from(st),
                    pid,
                    i64::from(line),
                ]);
                last[p as usize] = t;
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
    fn base64_is_rfc_4648_s_and_reads_back() {
        // RFC 4648 §10's test vectors.
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), coded);
            assert_eq!(unbase64(coded).as_deref(), Some(plain.as_bytes()));
        }
        assert_eq!(unbase64("Zm9v<"), None);
    }

    #[test]
    fn the_page_s_data_reads_back_and_holds_no_markup() {
        // The data is gzip in base64: whatever the source holds ("</script>", "<!--"),
        // the page's text between the data element's tags has no '<', and the document
        // reads back equal.
        let text = json!({"source": "/* </script><!--<script> */ main(){}", "x": [1, 2]}).to_string();
        let page = format!(
            "<script id=\"data\" type=\"application/octet-stream\" data-encoding=\"gzip+base64\">{}</script>",
            encode(&text)
        );
        let inner = &page[page.find('>').unwrap() + 1..page.rfind("</script>").unwrap()];
        assert!(!inner.contains('<') && !inner.contains('>') && !inner.contains('&'));
        assert_eq!(page_data(&page).unwrap().to_string(), text);
    }

    #[test]
    fn stretches_are_kept_by_processor_and_start() {
        // Two stretches of P1 given out of order, one of P0: rows hold
        // [gap, length, state, pid, line] sorted by start; P1's wait [50, 60) starts 30
        // after its run [10, 20) ends, and has no process (-1).
        let mut v = vec![(1, 50, 60, 1, u32::MAX, 0), (0, 0, 10, 0, 3, 7), (1, 10, 20, 0, 4, 9)];
        let t = timeline(&mut v, 2, 100, 10);
        assert_eq!(t["mode"], "stretches");
        assert_eq!(t["rows"][0], json!([0, 10, 0, 3, 7]));
        assert_eq!(t["rows"][1], json!([10, 10, 0, 4, 9, 30, 10, 1, -1, 0]));
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
