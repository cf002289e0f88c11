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
use crate::dense::DenseMap;
use crate::time::Ticks;
use crate::trace::states::{palette, PState, ProcessorStates};
use crate::trace::{Event, MsgPurpose, RunHeader};
use serde_json::{json, Value};
use std::collections::BTreeMap;
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

/// A stretch of one processor's time: `(pproc, start, end, state code, pid, line)`; pid
/// `u32::MAX` and line 0 for waiting stretches; the line a busy interval's turn ended on.
type Stretch = (u32, Ticks, Ticks, u8, u32, u32);

/// The timeline as the pass collects it: stretch by stretch while there are at most
/// [`MAX_STRETCHES`], then pre-aggregated into bins (see the module documentation), so
/// its memory is bounded whatever the run's length.
#[derive(Debug)]
enum Rows {
    Stretches(Vec<Stretch>),
    /// `per` bins a processor; `rows[p][state * per + k]`: ticks of the state in bin k.
    Bins {
        per: usize,
        rows: Vec<Vec<u64>>,
    },
}

impl Default for Rows {
    fn default() -> Self {
        Rows::Stretches(Vec::new())
    }
}

impl Rows {
    /// Adds stretch `x` of a machine of `n` processors and a run ending at `end`, turning
    /// to bins past `max` stretches.
    fn push(&mut self, x: Stretch, n: u32, end: Ticks, max: usize) {
        match self {
            Rows::Stretches(v) => {
                v.push(x);
                if v.len() > max {
                    let per = (MAX_BIN_VALUES / (STATES.len() * n.max(1) as usize)).clamp(1, MAX_BINS);
                    let mut rows = vec![vec![0; per * STATES.len()]; n as usize];
                    for &x in v.iter() {
                        bin(&mut rows, per, x, end);
                    }
                    *self = Rows::Bins { per, rows };
                }
            }
            Rows::Bins { per, rows } => bin(rows, *per, x, end),
        }
    }
}

/// Adds stretch `(p, s, t, st, ..)` to the bins `rows` (`per` a processor) of a run
/// ending at `end`. Bin k covers [k·end/per, (k+1)·end/per): exact integer edges.
fn bin(rows: &mut [Vec<u64>], per: usize, (p, s, t, st, _, _): Stretch, end: Ticks) {
    let Some(r) = rows.get_mut(p as usize) else { return };
    let bins = per as u64;
    let end = end.max(1);
    let lo = |k: u64| super::svg::mul_div(k, end, bins);
    let (s, t) = (s.min(end), t.min(end));
    let mut k = super::svg::mul_div(s, bins, end);
    // Each edge computed once: a bin's end is the next one's start.
    let mut a = lo(k);
    while k < bins && a < t {
        let b = lo(k + 1);
        let (x, y) = (a.max(s), b.min(t));
        if y > x {
            r[st as usize * per + k as usize] += y - x;
        }
        (a, k) = (b, k + 1);
    }
}

/// What the second pass over the events collects.
#[derive(Debug, Default)]
struct Pass {
    /// The timeline.
    rows: Rows,
    /// Busy processor-ticks per thousandth of the run (the utilization profile).
    profile: Vec<u128>,
    /// The first [`MAX_MESSAGES`] messages in record (send) order.
    lines: Vec<Line>,
    /// Their places in `lines`, by message id.
    line_of: DenseMap<usize>,
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
                if let Some(&i) = self.line_of.get(msg) {
                    self.lines[i].arrival = Some(time);
                }
            }
            // Traces without arrivals (PICL): the receive's completion stands for it.
            Event::RecvDone { time, msg, .. } => {
                if let Some(&i) = self.line_of.get(msg) {
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
    let mut pass = Pass { profile: vec![0; 1000], ..Pass::default() };
    // Every processor's stretch opens at 0, idle (the states' default).
    let mut states = ProcessorStates::default();
    for e in events {
        let (pid_of, line_of) = match e {
            Event::Busy { pid, line, .. } => (pid, line),
            _ => (u32::MAX, 0),
        };
        pass.message(&e);
        let (rows, profile) = (&mut pass.rows, &mut pass.profile);
        states.each(&e, |p, s, t, st| {
            if st != PState::Idle && t > s {
                let (pid, line) = if st == PState::Running { (pid_of, line_of) } else { (u32::MAX, 0) };
                if st == PState::Running {
                    super::svg::add_busy(profile, s, t, end);
                }
                rows.push((p, s, t, code(st), pid, line), n, end, MAX_STRETCHES);
            }
        });
    }
    let rows = &mut pass.rows;
    states.finish(end, 0..n, |p, s, t, st| {
        if st != PState::Idle && t > s {
            rows.push((p, s, t, code(st), u32::MAX, 0), n, end, MAX_STRETCHES);
        }
    });
    let data = data(a, header, n, end, pass);
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

/// What `write` writes, gzip-compressed, in base64.
fn encode(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> String {
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    {
        // Many small writes: buffered, so the compressor sees large blocks. Writing into
        // a vector cannot fail.
        let mut b = std::io::BufWriter::with_capacity(1 << 16, &mut z);
        let _ = write(&mut b).and_then(|()| b.flush());
    }
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
pub fn unbase64(text: &str) -> Option<Vec<u8>> {
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

/// The page's data: one JSON document, gzip-compressed, in base64. Written straight into
/// the compressor, field by field, so that no document tree or text of the whole is held.
fn data(a: &Analysis, header: &RunHeader, n: u32, end: Ticks, pass: Pass) -> String {
    // Processor of each process, function of each process.
    let pproc_of: BTreeMap<String, u32> = a.timeline.pproc_of.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let functions: BTreeMap<String, &str> = a.functions.iter().map(|(k, v)| (k.to_string(), v.as_str())).collect();
    let profile: Vec<f64> = pass.profile.iter().map(|&x| x as f64 / (end as f64 / 1000.0) / f64::from(n)).collect();
    let arrived = pass.lines.iter().filter(|m| m.arrival.is_some()).count();
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
    let waits: Vec<[u128; 2]> =
        a.lines.waits.iter().filter(|(_, w)| w.0 > 0).map(|(&l, &(w, _))| [u128::from(l), w]).collect();
    let small = json!({
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
        // Sent in the run, and of the first MAX_MESSAGES sent, those that arrived (drawn).
        "messages_total": pass.sent,
        "messages_arrived": arrived,
        "critical": path(&a.critical),
        "weighted": path(&a.weighted),
        "profile": profile,
        "waits": waits,
    });
    let analysis = json(a);
    encode(|w| {
        // The small fields, then the timeline, the messages and the analysis (already
        // JSON text), each written as it is made.
        let head = small.to_string();
        w.write_all(&head.as_bytes()[..head.len() - 1])?;
        w.write_all(b",\"timeline\":")?;
        write_timeline(w, pass.rows, n)?;
        w.write_all(b",\"messages\":[")?;
        // `[send, src, arrival, dst, bytes, kind, src pid, dst pid, line, channel,
        // index]`, -1 for what a message has not.
        let opt = |x: Option<u32>| x.map_or(-1, i64::from);
        let mut first = true;
        for m in &pass.lines {
            let Some(arrival) = m.arrival else { continue };
            let kind = match m.kind {
                MsgKind::Channel => 0,
                MsgKind::RemoteRead => 1,
                MsgKind::RemoteWrite => 2,
            };
            let (ch, idx) = (opt(m.channel.map(|c| c.0)), opt(m.channel.map(|c| c.1)));
            write!(
                w,
                "{}[{},{},{},{},{},{},{},{},{},{},{}]",
                if first { "" } else { "," },
                m.send,
                m.src,
                arrival,
                m.dst,
                m.bytes,
                kind,
                m.src_pid,
                opt(m.dst_pid),
                m.line,
                ch,
                idx
            )?;
            first = false;
        }
        w.write_all(b"],\"analysis\":")?;
        w.write_all(analysis.as_bytes())?;
        w.write_all(b"}")
    })
}

/// Writes the timeline's data: every stretch (`mode` "stretches") or the time in each
/// state per bin ("bins"; see the module documentation).
fn write_timeline(w: &mut dyn Write, rows: Rows, n: u32) -> std::io::Result<()> {
    match rows {
        Rows::Stretches(mut stretches) => {
            // By processor, then start: the page finds a window's stretches by binary
            // search. `[gap, length, state, pid, line]`: the gap since the row's previous
            // stretch ended (from 0), pid -1 for a wait; small numbers that compress well.
            stretches.sort_unstable();
            w.write_all(b"{\"mode\":\"stretches\",\"rows\":[")?;
            let mut i = 0;
            for p in 0..n {
                w.write_all(if p == 0 { b"[" } else { b",[" })?;
                let mut last = 0;
                let mut first = true;
                while i < stretches.len() && stretches[i].0 == p {
                    let (_, s, t, st, pid, line) = stretches[i];
                    let pid = if pid == u32::MAX { -1 } else { i64::from(pid) };
                    write!(w, "{}{},{},{},{},{}", if first { "" } else { "," }, s - last, t - s, st, pid, line)?;
                    last = t;
                    first = false;
                    i += 1;
                }
                w.write_all(b"]")?;
            }
            w.write_all(b"]}")
        }
        Rows::Bins { per, rows } => {
            write!(w, "{{\"mode\":\"bins\",\"bins\":{per},\"rows\":")?;
            serde_json::to_writer(&mut *w, &rows).map_err(std::io::Error::other)?;
            w.write_all(b"}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The timeline's JSON as written.
    fn written(rows: Rows, n: u32) -> Value {
        let mut out = Vec::new();
        write_timeline(&mut out, rows, n).unwrap();
        serde_json::from_slice(&out).unwrap()
    }

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
            encode(|w: &mut dyn Write| w.write_all(text.as_bytes()))
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
        let mut rows = Rows::default();
        for x in [(1, 50, 60, 1, u32::MAX, 0), (0, 0, 10, 0, 3, 7), (1, 10, 20, 0, 4, 9)] {
            rows.push(x, 2, 100, 10);
        }
        let t = written(rows, 2);
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
        let mut rows = Rows::default();
        for x in [(0, 10, 35, 0, 1, 0), (0, 35, 100, 1, u32::MAX, 0)] {
            rows.push(x, 1, 100, 0);
        }
        let t = written(rows, 1);
        assert_eq!(t["mode"], "bins");
        let bins = t["bins"].as_u64().unwrap() as usize;
        assert_eq!(bins, MAX_BINS);
        let row: Vec<u64> = t["rows"][0].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
        assert_eq!(row[..bins].iter().sum::<u64>(), 25);
        assert_eq!(row[bins..2 * bins].iter().sum::<u64>(), 65);
        assert_eq!(row[2 * bins..].iter().sum::<u64>(), 0);
    }
}
