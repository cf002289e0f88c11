//! SVG charts of a run (`cpperf --svg DIR`, SPEC §6): a Gantt chart (a row per
//! processor, a slice per busy interval coloured by process) with the critical path drawn
//! on it, a space-time diagram (a line per processor, a line per message from its send
//! to its arrival) and the utilization profile (busy processors over time).
//!
//! Plain SVG 1.1 written by hand, deterministic: coordinates are printed with two
//! decimals, colours follow the process id. The [`Timeline`] the charts need (busy
//! intervals, messages, where each process ran) is collected during the analysis; its busy
//! intervals and messages only when the charts are asked for ([`TimelineBuilder::new`]).
//! Depends on [`super::graph`] (the critical path) and [`crate::trace`].
use super::busy::Bounds;
use super::graph::{CriticalPath, EdgeKind};
use crate::dense::DenseMap;
use crate::time::{format_time, Ticks};
use crate::trace::states::palette;
use crate::trace::{Event, MsgPurpose};
use std::collections::BTreeMap;
use std::fmt::Write;

/// What the charts draw, in time order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Timeline {
    /// Busy intervals `(pproc, pid, start, end)`; touching intervals of one process on one
    /// processor merged.
    pub busy: Vec<(u32, u32, Ticks, Ticks)>,
    /// Messages that arrived, in send order.
    pub messages: Vec<Message>,
    /// The processor of each process.
    pub pproc_of: BTreeMap<u32, u32>,
    /// The last time of any event.
    pub end: Ticks,
}

/// One message of the space-time diagram. Fields in sort order: send time, source,
/// destination, arrival, size, kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Message {
    pub send: Ticks,
    pub src: u32,
    pub dst: u32,
    pub arrival: Ticks,
    pub bytes: u32,
    pub kind: MsgKind,
}

/// What a message carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MsgKind {
    /// A channel message.
    Channel,
    /// A remote read's request or reply.
    RemoteRead,
    /// A remote write.
    RemoteWrite,
}

impl MsgKind {
    pub(crate) fn of(p: MsgPurpose) -> MsgKind {
        match p {
            MsgPurpose::Channel { .. } => MsgKind::Channel,
            MsgPurpose::RemoteRead { .. } | MsgPurpose::RemoteReply { .. } => MsgKind::RemoteRead,
            MsgPurpose::RemoteWrite { .. } => MsgKind::RemoteWrite,
        }
    }
}

/// The busy intervals `(pproc, pid, start, end)` of a run in the order they were recorded,
/// in a compact log: each a few bytes (LEB128 varints of the processor, the process, the
/// start's distance from the previous start, zigzagged, and the length) instead of 24. The
/// charts' analysis keeps every interval in it and reads them back at the end. Any values
/// read back exactly (the distances wrap).
#[derive(Debug, Default)]
struct BusyLog {
    bytes: Vec<u8>,
    last: Ticks,
}

impl BusyLog {
    #[inline]
    fn put(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.bytes.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.bytes.push(v as u8);
    }

    /// Appends an interval.
    #[inline]
    fn push(&mut self, pproc: u32, pid: u32, start: Ticks, end: Ticks) {
        let d = start.wrapping_sub(self.last) as i64;
        self.put(u64::from(pproc));
        self.put(u64::from(pid));
        self.put(((d << 1) ^ (d >> 63)) as u64);
        self.put(end.wrapping_sub(start));
        self.last = start;
    }

    /// The intervals, in the order they were pushed.
    fn iter(&self) -> impl Iterator<Item = (u32, u32, Ticks, Ticks)> + '_ {
        let (bytes, mut at, mut last): (&[u8], usize, Ticks) = (&self.bytes, 0, 0);
        std::iter::from_fn(move || {
            if at >= bytes.len() {
                return None;
            }
            let mut get = || {
                let (mut v, mut shift) = (0u64, 0);
                while let Some(&b) = bytes.get(at) {
                    at += 1;
                    v |= u64::from(b & 0x7F) << shift;
                    if b < 0x80 {
                        break;
                    }
                    shift += 7;
                }
                v
            };
            let (pproc, pid, z) = (get() as u32, get() as u32, get());
            let start: Ticks = last.wrapping_add(((z >> 1) as i64 ^ -((z & 1) as i64)) as u64);
            let end = start.wrapping_add(get());
            last = start;
            Some((pproc, pid, start, end))
        })
    }
}

/// Collects a [`Timeline`] one event at a time.
#[derive(Debug)]
pub struct TimelineBuilder {
    t: Timeline,
    /// Whether the timeline is for the charts: with its busy intervals and messages.
    charts: bool,
    /// Each message's latest send (arrival unknown yet) and its place in `send_order`.
    sends: DenseMap<(Message, u64)>,
    /// Message ids in the order of their send events.
    send_order: Vec<u64>,
    arrivals: DenseMap<Ticks>,
    /// The starts and the ends of the nonempty busy intervals as recorded, before
    /// merging (see [`Self::take_bounds`]).
    bounds: Bounds,
    /// For the charts: every busy interval as recorded.
    log: BusyLog,
    /// Without the charts: the process of each nonempty interval, beside `bounds`
    /// (for [`Self::cpu_intervals`]), 4 bytes an interval instead of the log's 7
    /// or so, and no encoding.
    pids: Vec<u32>,
}

impl Default for TimelineBuilder {
    fn default() -> Self {
        TimelineBuilder::new(true)
    }
}

impl TimelineBuilder {
    /// A builder of the whole timeline for the charts, or (`charts` false) of where each
    /// process ran and the end only: of the busy intervals only their processes are then
    /// kept beside their bounds (for [`Self::cpu_intervals`]), and the messages not at
    /// all, which saves about a quarter of the memory of the analysis of a large record.
    pub fn new(charts: bool) -> Self {
        TimelineBuilder {
            t: Timeline::default(),
            charts,
            sends: DenseMap::default(),
            send_order: Vec::new(),
            arrivals: DenseMap::default(),
            bounds: Bounds::default(),
            log: BusyLog::default(),
            pids: Vec::new(),
        }
    }

    /// Takes one event into account.
    #[inline]
    pub fn event(&mut self, e: &Event) {
        self.t.end = self.t.end.max(e.time());
        match *e {
            Event::ProcCreate { pid, pproc, .. } => {
                self.t.pproc_of.insert(pid, pproc);
            }
            Event::Busy { pproc, pid, start, end, .. } => {
                if end > start {
                    self.bounds.push(start, end);
                    if !self.charts {
                        self.pids.push(pid);
                    }
                }
                if self.charts {
                    self.log.push(pproc, pid, start, end);
                }
            }
            Event::MsgSend { .. } | Event::MsgArrive { .. } | Event::RecvDone { .. } if !self.charts => {}
            Event::MsgSend { time, msg, src_pproc, dst_pproc, bytes, purpose, .. } => {
                let m = Message {
                    send: time,
                    src: src_pproc,
                    dst: dst_pproc,
                    arrival: 0,
                    bytes,
                    kind: MsgKind::of(purpose),
                };
                self.sends.insert(msg, (m, self.send_order.len() as u64));
                self.send_order.push(msg);
            }
            Event::MsgArrive { time, msg, .. } => {
                self.arrivals.insert(msg, time);
            }
            Event::RecvDone { time, msg, .. } => {
                // Traces without arrivals (PICL): the receive's completion stands for it.
                self.arrivals.get_or_insert_with(msg, || time);
            }
            _ => {}
        }
    }

    /// The timeline, messages in send order (ties by message id).
    pub fn finish(self) -> Timeline {
        let messages = self.messages();
        self.finish_with(messages)
    }

    /// The starts and the ends of the nonempty busy intervals as recorded (not merged;
    /// merging touching intervals changes no one's busy area or count of open intervals
    /// over time), taken out. A record lists intervals by their end, so the ends come
    /// sorted and the starts nearly so, which merging would spoil.
    pub fn take_bounds(&mut self) -> Bounds {
        std::mem::take(&mut self.bounds)
    }

    /// The last time of any event so far.
    pub fn end(&self) -> Ticks {
        self.t.end
    }

    /// The processor of each process created so far.
    pub fn pproc_of(&self) -> &BTreeMap<u32, u32> {
        &self.t.pproc_of
    }

    /// The busy intervals `(pid, start, end)` collected so far, in record order, for
    /// [`super::graph::GraphBuilder::rebuild_cpu`] (the rare record whose CPU times cannot
    /// be followed one event at a time); without the charts the empty ones are left out
    /// (they hold no CPU time). Call before [`Self::take_bounds`].
    pub fn cpu_intervals(&self) -> Vec<(u32, Ticks, Ticks)> {
        if self.charts {
            return self.log.iter().map(|(_, pid, s, e)| (pid, s, e)).collect();
        }
        self.pids.iter().zip(self.bounds.iter()).map(|(&pid, (s, e))| (pid, s, e)).collect()
    }

    /// The busy intervals collected so far for the charts (none without them), in record
    /// order, a processor's latest interval (if among the last 8) extended by one of the
    /// same process that starts where it ends.
    fn busy(&self) -> Vec<(u32, u32, Ticks, Ticks)> {
        let mut busy: Vec<(u32, u32, Ticks, Ticks)> = Vec::new();
        // The index in `busy` of each processor's latest interval.
        let mut latest: DenseMap<usize> = DenseMap::default();
        for (pproc, pid, start, end) in self.log.iter() {
            let n = busy.len();
            if let Some(&i) = latest.get(u64::from(pproc)) {
                if let Some(last) = busy.get_mut(i).filter(|_| n - i <= 8) {
                    if last.1 == pid && last.3 == start {
                        last.3 = end;
                        continue;
                    }
                }
            }
            latest.insert(u64::from(pproc), n);
            busy.push((pproc, pid, start, end));
        }
        busy
    }

    /// The messages that arrived, in send order: the part of [`finish`](Self::finish)
    /// that may run beside other work on the busy intervals.
    pub fn messages(&self) -> Vec<Message> {
        let mut messages = Vec::with_capacity(self.send_order.len());
        // Each message once, at its latest send, in the order of the send events.
        for (place, &msg) in self.send_order.iter().enumerate() {
            let Some(&(m, p)) = self.sends.get(msg) else { continue };
            if p != place as u64 {
                continue;
            }
            if let Some(&a) = self.arrivals.get(msg) {
                messages.push(Message { arrival: a.max(m.send), ..m });
            }
        }
        // Sorted by the whole message, so equal keys are equal messages and the order is
        // the same however it is reached. A record's sends come in time order: then only
        // the sends of one tick are put in order among themselves.
        if messages.is_sorted_by_key(|m| m.send) {
            for group in messages.chunk_by_mut(|a, b| a.send == b.send) {
                group.sort_unstable();
            }
        } else {
            messages.sort_unstable();
        }
        messages
    }

    /// The timeline with `messages` from [`messages`](Self::messages) (and, for the
    /// charts, the busy intervals).
    pub fn finish_with(mut self, messages: Vec<Message>) -> Timeline {
        if self.charts {
            self.t.busy = self.busy();
        }
        self.t.messages = messages;
        self.t
    }
}

const LEFT: f64 = 60.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 30.0;
const WIDTH: f64 = 1000.0;
const ROW: f64 = 18.0;

/// The most message lines the space-time diagram draws: with more, messages between the
/// same rows whose sends and arrivals fall in the same columns of 2, 4, 8… pixels are one
/// line (its tooltip counts them).
pub const MAX_LINES: usize = 12_000;
/// The most partial-pixel rectangles of a Gantt chart that carry a tooltip (about 80
/// bytes each); past it, they carry none, so the chart stays a few MB.
pub const MAX_TIPS: usize = 20_000;

/// The most rows a chart draws: with more processors, a row is a block of consecutive
/// processors, drawn as their total (a block column is inked by its busy share).
pub const MAX_ROWS: usize = 128;

/// The rows of a chart: the processors that appear in the run, one a row; or, when they
/// are more than [`MAX_ROWS`], blocks of `block` consecutive processors (`rows` holds
/// each block's first), drawn as the block's total.
struct Frame {
    end: Ticks,
    rows: Vec<u32>,
    /// Processors a row (1: one row per processor that appears).
    block: u32,
    /// One past the highest processor drawn.
    top: u32,
}

impl Frame {
    fn x(&self, t: Ticks) -> f64 {
        LEFT + (WIDTH - LEFT - RIGHT) * (t as f64 / self.end.max(1) as f64)
    }

    /// The row of processor `pproc`.
    fn index(&self, pproc: u32) -> Option<usize> {
        if self.block == 1 {
            self.rows.binary_search(&pproc).ok()
        } else {
            let i = (pproc / self.block) as usize;
            (i < self.rows.len()).then_some(i)
        }
    }

    fn row(&self, pproc: u32) -> Option<f64> {
        self.index(pproc).map(|i| TOP + ROW * i as f64)
    }

    /// How many processors row `i` stands for.
    fn members(&self, i: usize) -> u64 {
        u64::from(self.block.min(self.top.saturating_sub(self.rows[i])).max(1))
    }

    /// The label of row `i`: `P3`, or `P32-63` for a block.
    fn label(&self, i: usize) -> String {
        let p = self.rows[i];
        if self.block == 1 {
            format!("P{p}")
        } else {
            format!("P{p}-{}", p + self.members(i) as u32 - 1)
        }
    }

    fn height(&self) -> f64 {
        TOP + ROW * self.rows.len() as f64 + 30.0
    }
}

/// A deterministic colour per process: hues spread by the golden angle.
fn colour(pid: u32) -> String {
    let hue = (u64::from(pid) * 137_508 / 1000) % 360;
    format!("hsl({hue},60%,60%)")
}

fn open(o: &mut String, title: &str, height: f64) {
    let _ = writeln!(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{WIDTH:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {WIDTH:.0} {height:.0}\" font-family=\"sans-serif\" font-size=\"11\">"
    );
    let _ = writeln!(o, "<title>{}</title>", escape(title));
    let _ = writeln!(o, "<rect x=\"0\" y=\"0\" width=\"{WIDTH:.0}\" height=\"{height:.0}\" fill=\"white\"/>");
    let _ = writeln!(o, "<text x=\"{LEFT:.0}\" y=\"18\" font-size=\"13\">{}</text>", escape(title));
}

/// `s` with the characters markup gives a meaning to escaped (SVG and HTML text).
pub(super) fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Tick times of an axis from 0 to `end`: multiples of a round step (1, 2 or 5 times a
/// power of ten ticks, so round in time units too) giving three to six ticks, then `end`
/// itself unless it would crowd the last one (closer than a third of a step).
fn axis_ticks(end: Ticks) -> Vec<Ticks> {
    if end == 0 {
        return vec![0];
    }
    let raw = (end / 5).max(1);
    let mut mag: Ticks = 1;
    while mag <= raw / 10 {
        mag *= 10;
    }
    let step = [1, 2, 5, 10].iter().map(|m| m * mag).find(|&s| s >= raw).unwrap_or(10 * mag);
    let mut ticks: Vec<Ticks> = (0..=end / step).map(|k| k * step).collect();
    let last = ticks.last().copied().unwrap_or(0);
    if end > last && 3 * (end - last) >= step {
        ticks.push(end);
    }
    ticks
}

/// The titles of the time axis (below the ticks) and of the processor rows (rotated, on
/// the left); the chart leaves 14 pixels below its frame for the first.
fn axis_titles(o: &mut String, f: &Frame) {
    let base = TOP + ROW * f.rows.len() as f64;
    let mid = TOP + ROW * f.rows.len() as f64 / 2.0;
    let _ = writeln!(
        o,
        "<text x=\"{:.2}\" y=\"{:.2}\" text-anchor=\"middle\">time (time units)</text>",
        (LEFT + WIDTH - RIGHT) / 2.0,
        base + 34.0
    );
    if f.block > 1 {
        // Block labels fill the margin: the rows' title goes above them, on the right.
        let _ = writeln!(
            o,
            "<text x=\"{:.2}\" y=\"18\" text-anchor=\"end\">rows: {} physical processors each</text>",
            WIDTH - RIGHT,
            f.block
        );
        return;
    }
    let _ = writeln!(
        o,
        "<text x=\"12\" y=\"{mid:.2}\" transform=\"rotate(-90 12 {mid:.2})\" text-anchor=\"middle\">physical processor</text>"
    );
}

/// Processor labels on the left and a time axis with round ticks below the rows.
fn axes(o: &mut String, f: &Frame) {
    for i in 0..f.rows.len() {
        let y = TOP + ROW * i as f64;
        let size = if f.block > 1 { " font-size=\"9\"" } else { "" };
        let _ = writeln!(
            o,
            "<text x=\"{:.2}\" y=\"{:.2}\" text-anchor=\"end\"{size}>{}</text>",
            LEFT - 6.0,
            y + ROW - 5.0,
            f.label(i)
        );
    }
    let y = TOP + ROW * f.rows.len() as f64 + 4.0;
    let _ = writeln!(
        o,
        "<line x1=\"{LEFT:.2}\" y1=\"{y:.2}\" x2=\"{:.2}\" y2=\"{y:.2}\" stroke=\"black\"/>",
        WIDTH - RIGHT
    );
    for t in axis_ticks(f.end) {
        let x = f.x(t);
        let _ = writeln!(o, "<line x1=\"{x:.2}\" y1=\"{y:.2}\" x2=\"{x:.2}\" y2=\"{:.2}\" stroke=\"black\"/>", y + 4.0);
        let _ =
            writeln!(o, "<text x=\"{x:.2}\" y=\"{:.2}\" text-anchor=\"middle\">{}</text>", y + 16.0, format_time(t));
    }
}

fn frame(t: &Timeline, pprocs: u32) -> Frame {
    let mut rows: Vec<u32> = t.busy.iter().map(|b| b.0).chain(t.pproc_of.values().copied()).collect();
    rows.extend(t.messages.iter().flat_map(|m| [m.src, m.dst]));
    if rows.is_empty() {
        rows.extend(0..pprocs.min(1));
    }
    rows.sort_unstable();
    rows.dedup();
    let top = rows.last().map_or(1, |&p| p + 1);
    if rows.len() > MAX_ROWS {
        let block = top.div_ceil(MAX_ROWS as u32);
        let rows = (0..top.div_ceil(block)).map(|i| i * block).collect();
        return Frame { end: t.end.max(1), rows, block, top };
    }
    Frame { end: t.end.max(1), rows, block: 1, top }
}

/// Busy coverage of one pixel column of a processor's row: busy ticks in it, and the
/// process that ran most of them.
#[derive(Debug, Clone, Copy, Default)]
struct Pixel {
    busy: Ticks,
    pid: u32,
    most: Ticks,
}

/// The Gantt chart: a row per processor, one pixel column per 1/920 of the run. A column
/// its processor was busy throughout is drawn in the colour of the process that ran
/// there, runs of them by one process as one slice with a tooltip; a column it was busy
/// in part is shaded in proportion (opacity = the busy share of the column, colour of
/// the process that ran most of it): busy intervals are aggregated by coverage, never
/// widened, so the ink of a row is its processor's utilization. On top, the critical
/// path in red (compute segments along their process's row, other edges as dashed lines
/// between rows) and, when it is another path, the weighted critical path in purple.
/// Axis titles and a legend below.
pub fn gantt(t: &Timeline, path: &CriticalPath, weighted: Option<&CriticalPath>, pprocs: u32, title: &str) -> String {
    let f = frame(t, pprocs);
    let cols = (WIDTH - LEFT - RIGHT) as u64;
    let end = f.end;
    // Column k covers [lo(k), lo(k + 1)), exact integers.
    let lo = |k: u64| (u128::from(k) * u128::from(end) / u128::from(cols)) as Ticks;
    let mut rows: Vec<Vec<Pixel>> = vec![vec![Pixel::default(); cols as usize]; f.rows.len()];
    for &(p, pid, s, e) in &t.busy {
        let Some(r) = f.index(p) else { continue };
        let (s, e) = (s.min(end), e.min(end));
        let mut k = (u128::from(s) * u128::from(cols) / u128::from(end)) as u64;
        while k < cols && lo(k) < e {
            let (a, b) = (lo(k).max(s), lo(k + 1).min(e));
            if b > a {
                let px = &mut rows[r][k as usize];
                px.busy += b - a;
                if b - a > px.most {
                    px.most = b - a;
                    px.pid = pid;
                }
            }
            k += 1;
        }
    }
    // Partial columns (drawn one by one): with too many, no tooltips on them.
    let partial = rows
        .iter()
        .enumerate()
        .map(|(r, row)| {
            let m = f.members(r);
            row.iter()
                .enumerate()
                .filter(|(k, px)| px.busy > 0 && px.busy < (lo(*k as u64 + 1) - lo(*k as u64)) * m)
                .count()
        })
        .sum::<usize>();
    let tips = partial <= MAX_TIPS;
    let mut o = String::new();
    let height = f.height() + 40.0;
    open(&mut o, &format!("{title}: Gantt chart and critical path"), height);
    let _ =
        writeln!(o, "<desc>time 0 .. {}, {cols} columns of {} each</desc>", format_time(end), format_time(end / cols));
    for (r, row) in rows.iter().enumerate() {
        let p = f.label(r);
        let m = f.members(r);
        let y = TOP + ROW * r as f64 + 2.0;
        let _ = writeln!(o, "<g id=\"{p}\">");
        let mut k = 0usize;
        while k < row.len() {
            let px = row[k];
            // A block's column holds `m` processors' time.
            let width = (lo(k as u64 + 1) - lo(k as u64)) * m;
            if px.busy == 0 || width == 0 {
                k += 1;
                continue;
            }
            if px.busy >= width {
                // A run of full columns of one process.
                let mut j = k + 1;
                while j < row.len()
                    && row[j].pid == px.pid
                    && row[j].busy >= (lo(j as u64 + 1) - lo(j as u64)) * m
                    && row[j].busy > 0
                {
                    j += 1;
                }
                let _ = writeln!(
                    o,
                    "<rect x=\"{:.0}\" y=\"{y:.2}\" width=\"{}\" height=\"{:.2}\" fill=\"{}\"><title>{p}, process {}: busy {} .. {}</title></rect>",
                    LEFT + k as f64,
                    j - k,
                    ROW - 4.0,
                    colour(px.pid),
                    px.pid,
                    format_time(lo(k as u64)),
                    format_time(lo(j as u64))
                );
                k = j;
            } else {
                let share = px.busy as f64 / width as f64;
                if tips {
                    let _ = writeln!(
                        o,
                        "<rect x=\"{:.0}\" y=\"{y:.2}\" width=\"1\" height=\"{:.2}\" fill=\"{}\" fill-opacity=\"{share:.4}\"><title>{p}: busy {:.1} % of {} .. {} (mostly process {})</title></rect>",
                        LEFT + k as f64,
                        ROW - 4.0,
                        colour(px.pid),
                        100.0 * share,
                        format_time(lo(k as u64)),
                        format_time(lo(k as u64 + 1)),
                        px.pid
                    );
                } else {
                    let _ = writeln!(
                        o,
                        "<rect x=\"{:.0}\" y=\"{y:.2}\" width=\"1\" height=\"{:.2}\" fill=\"{}\" fill-opacity=\"{share:.4}\"/>",
                        LEFT + k as f64,
                        ROW - 4.0,
                        colour(px.pid)
                    );
                }
                k += 1;
            }
        }
        let _ = writeln!(o, "</g>");
    }
    let mid = |pid: u32| t.pproc_of.get(&pid).and_then(|&p| f.row(p)).map(|y| y + ROW / 2.0);
    let mut draw = |c: &CriticalPath, stroke: &str, width: f64, name: &str| {
        for s in &c.segments {
            let Some(y0) = mid(s.pid) else { continue };
            let y1 = s.to_pid.and_then(mid).unwrap_or(y0);
            let dash = if s.kind == EdgeKind::Compute { "" } else { " stroke-dasharray=\"4 2\"" };
            let _ = writeln!(
                o,
                "<line x1=\"{:.2}\" y1=\"{y0:.2}\" x2=\"{:.2}\" y2=\"{y1:.2}\" stroke=\"{stroke}\" stroke-width=\"{width}\"{dash}><title>{name}: {} {} .. {}</title></line>",
                f.x(s.from),
                f.x(s.to),
                s.kind.name(),
                format_time(s.from),
                format_time(s.to)
            );
        }
    };
    draw(path, palette::CRITICAL_PATH, 3.0, "critical path");
    if let Some(w) = weighted {
        draw(w, palette::WEIGHTED_PATH, 2.0, "weighted critical path");
    }
    axes(&mut o, &f);
    axis_titles(&mut o, &f);
    // The legend.
    let base = TOP + ROW * f.rows.len() as f64;
    let ly = base + 52.0;
    let _ = writeln!(
        o,
        "<g id=\"legend\"><rect x=\"{LEFT:.0}\" y=\"{:.2}\" width=\"14\" height=\"10\" fill=\"{}\"/><text x=\"{:.0}\" y=\"{ly:.2}\">busy (colour: process; paler: busy part of the pixel)</text><rect x=\"{:.0}\" y=\"{:.2}\" width=\"14\" height=\"10\" fill=\"white\" stroke=\"#999\"/><text x=\"{:.0}\" y=\"{ly:.2}\">idle</text><line x1=\"{:.0}\" y1=\"{:.2}\" x2=\"{:.0}\" y2=\"{:.2}\" stroke=\"{}\" stroke-width=\"3\"/><text x=\"{:.0}\" y=\"{ly:.2}\">critical path (dashed: message, spawn, join, wait)</text>{}</g>",
        ly - 9.0,
        colour(1),
        LEFT + 18.0,
        LEFT + 330.0,
        ly - 9.0,
        LEFT + 348.0,
        LEFT + 390.0,
        ly - 4.0,
        LEFT + 410.0,
        ly - 4.0,
        palette::CRITICAL_PATH,
        LEFT + 414.0,
        if weighted.is_some() {
            format!(
                "<line x1=\"{:.0}\" y1=\"{:.2}\" x2=\"{:.0}\" y2=\"{:.2}\" stroke=\"{}\" stroke-width=\"2\"/><text x=\"{:.0}\" y=\"{ly:.2}\">weighted critical path</text>",
                LEFT + 700.0,
                ly - 4.0,
                LEFT + 720.0,
                ly - 4.0,
                palette::WEIGHTED_PATH,
                LEFT + 724.0
            )
        } else {
            String::new()
        }
    );
    o.push_str("</svg>\n");
    o
}

/// The size classes of channel messages in the space-time diagram: upper bounds in
/// bytes (the last one open) and colours, light to dark.
const SIZE_CLASSES: [(u32, &str); 4] = [(8, "#6baed6"), (64, "#2171b5"), (512, "#08306b"), (u32::MAX, "#000000")];
/// The colours of remote reads (request and reply) and remote writes.
const REMOTE_READ: &str = palette::REMOTE_READ;
const REMOTE_WRITE: &str = palette::REMOTE_WRITE;

/// A message's colour and dash in the space-time diagram.
fn message_style(m: &Message) -> (&'static str, bool) {
    match m.kind {
        MsgKind::Channel => (SIZE_CLASSES.iter().find(|c| m.bytes <= c.0).map_or("#000000", |c| c.1), false),
        MsgKind::RemoteRead => (REMOTE_READ, true),
        MsgKind::RemoteWrite => (REMOTE_WRITE, true),
    }
}

/// The space-time diagram: a line per processor (rows shaded in alternation), a line per
/// message from its send on the sender's row to its arrival on the receiver's, coloured
/// by kind and size: channel messages blue, darker when larger (classes up to 8, 64, 512
/// bytes and above), remote reads (request and reply) dashed orange, remote writes
/// dashed purple; a legend below counts each class. Messages drawn at the same pixels
/// (same rows, send and arrival in the same pixel columns, same style) are drawn once,
/// their tooltip giving their number and time span, so the file stays small and the
/// chart readable however many messages a run sends.
pub fn space_time(t: &Timeline, pprocs: u32, title: &str) -> String {
    let f = frame(t, pprocs);
    let mut o = String::new();
    open(&mut o, &format!("{title}: space-time diagram"), f.height() + 34.0);
    for (i, &p) in f.rows.iter().enumerate() {
        if let Some(y) = f.row(p) {
            if i % 2 == 1 {
                let _ = writeln!(
                    o,
                    "<rect x=\"{LEFT:.2}\" y=\"{y:.2}\" width=\"{:.2}\" height=\"{ROW:.2}\" fill=\"#f3f3f3\"/>",
                    WIDTH - LEFT - RIGHT
                );
            }
            let y = y + ROW / 2.0;
            let _ = writeln!(
                o,
                "<line x1=\"{LEFT:.2}\" y1=\"{y:.2}\" x2=\"{:.2}\" y2=\"{y:.2}\" stroke=\"#999\"/>",
                WIDTH - RIGHT
            );
        }
    }
    // (send pixel, source row, arrival pixel, destination row, style) → (count, first
    // send, last arrival, smallest and largest size).
    // Columns `q` pixels wide: 1, or doubled until at most MAX_LINES lines remain.
    type Key = (i64, usize, i64, usize, &'static str, bool);
    let mut q = 1.0;
    let (lines, classes) = loop {
        let mut lines: BTreeMap<Key, (u64, Ticks, Ticks, u32, u32)> = BTreeMap::new();
        let mut classes: BTreeMap<(&'static str, bool), u64> = BTreeMap::new();
        for m in &t.messages {
            let (Some(r0), Some(r1)) = (f.index(m.src), f.index(m.dst)) else { continue };
            let (colour, dashed) = message_style(m);
            *classes.entry((colour, dashed)).or_insert(0) += 1;
            let key = ((f.x(m.send) / q).floor() as i64, r0, (f.x(m.arrival) / q).floor() as i64, r1, colour, dashed);
            let e = lines.entry(key).or_insert((0, m.send, m.arrival, m.bytes, m.bytes));
            e.0 += 1;
            e.1 = e.1.min(m.send);
            e.2 = e.2.max(m.arrival);
            e.3 = e.3.min(m.bytes);
            e.4 = e.4.max(m.bytes);
        }
        if lines.len() <= MAX_LINES || q >= WIDTH {
            break (lines, classes);
        }
        q *= 2.0;
    };
    if q > 1.0 {
        let _ = writeln!(o, "<desc>messages whose sends and arrivals fall in the same {q:.0}-pixel columns between the same rows drawn as one line</desc>");
    }
    let mut ordered: Vec<_> = lines.into_iter().collect();
    // Remote traffic above channel messages, larger classes above smaller ones.
    ordered.sort_by_key(|((x0, r0, x1, r1, colour, dashed), _)| {
        (*dashed, SIZE_CLASSES.iter().position(|c| c.1 == *colour), *x0, *r0, *x1, *r1)
    });
    for ((_, r0, _, r1, colour, dashed), (n, first, last, small, large)) in ordered {
        let (p0, p1) = (f.label(r0), f.label(r1));
        let (y0, y1) = (TOP + ROW * r0 as f64, TOP + ROW * r1 as f64);
        let dash = if dashed { " stroke-dasharray=\"3,2\"" } else { "" };
        let what = if n == 1 { "1 message".to_string() } else { format!("{n} messages") };
        let size = if small == large { format!("{small} B") } else { format!("{small}..{large} B") };
        let _ = writeln!(
            o,
            "<line x1=\"{:.2}\" y1=\"{:.2}\" x2=\"{:.2}\" y2=\"{:.2}\" stroke=\"{colour}\" stroke-opacity=\"0.8\"{dash}><title>{what} {p0} to {p1}, {size}: sent {} .. arrived {}</title></line>",
            f.x(first),
            y0 + ROW / 2.0,
            f.x(last),
            y1 + ROW / 2.0,
            format_time(first),
            format_time(last)
        );
    }
    axes(&mut o, &f);
    axis_titles(&mut o, &f);
    // The legend: every class present, with its count.
    let ly = TOP + ROW * f.rows.len() as f64 + 62.0;
    let mut x = LEFT;
    let mut legend = String::new();
    let mut bound = 0u32;
    let mut entries: Vec<(&str, bool, String)> = Vec::new();
    for (max, colour) in SIZE_CLASSES {
        let label = if max == u32::MAX {
            format!("channel, > {bound} B")
        } else {
            format!("channel, {}..{max} B", bound + u32::from(bound > 0))
        };
        bound = max;
        entries.push((colour, false, label));
    }
    entries.push((REMOTE_READ, true, "remote read (request, reply)".to_string()));
    entries.push((REMOTE_WRITE, true, "remote write".to_string()));
    for (colour, dashed, label) in entries {
        let Some(&n) = classes.get(&(colour, dashed)) else { continue };
        let dash = if dashed { " stroke-dasharray=\"3,2\"" } else { "" };
        let text = format!("{label}: {n}");
        let _ = write!(
            legend,
            "<line x1=\"{x:.0}\" y1=\"{:.2}\" x2=\"{:.0}\" y2=\"{:.2}\" stroke=\"{colour}\" stroke-width=\"2\"{dash}/><text x=\"{:.0}\" y=\"{ly:.2}\">{}</text>",
            ly - 4.0,
            x + 16.0,
            ly - 4.0,
            x + 20.0,
            escape(&text)
        );
        x += 28.0 + 6.2 * text.len() as f64;
    }
    if !legend.is_empty() {
        let _ = writeln!(o, "<g id=\"legend\">{legend}</g>");
    }
    o.push_str("</svg>\n");
    o
}

/// Busy processor-ticks of each of `columns` equal time slices of `[0, end)`.
pub fn busy_per_column(busy: &[(u32, u32, Ticks, Ticks)], end: Ticks, columns: u64) -> Vec<u128> {
    let end = end.max(1);
    let columns = columns.max(1);
    let mut area = vec![0u128; columns as usize];
    for &(_, _, s, e) in busy {
        add_busy(&mut area, s, e, end);
    }
    area
}

/// Adds the busy interval `[s, e)` to `area`, the busy processor-ticks of each of its
/// equal time slices of `[0, end)` (as [`busy_per_column`]).
pub fn add_busy(area: &mut [u128], s: Ticks, e: Ticks, end: Ticks) {
    let end = end.max(1);
    let columns = area.len().max(1) as u64;
    // Column k covers [k·end/columns, (k+1)·end/columns), in exact integer arithmetic.
    let lo = |k: u64| mul_div(k, end, columns);
    let (s, e) = (s.min(end), e.min(end));
    if e <= s || area.is_empty() {
        return;
    }
    let first = mul_div(s, columns, end);
    let mut k = first.min(columns - 1);
    // Each edge computed once: a column's end is the next one's start.
    let mut from = lo(k);
    while k < columns && from < e {
        let to = lo(k + 1);
        let (a, b) = (from.max(s), to.min(e));
        if b > a {
            area[k as usize] += u128::from(b - a);
        }
        (from, k) = (to, k + 1);
    }
}

/// `a · b / c` rounded down, exactly (`c > 0`, the quotient within 64 bits): in 64
/// bits when the product fits (the columns and bins of every run shorter than 2^52
/// ticks), which spares a 128-bit division per column.
#[inline]
pub(super) fn mul_div(a: u64, b: u64, c: u64) -> u64 {
    match a.checked_mul(b) {
        Some(x) => x / c,
        None => (u128::from(a) * u128::from(b) / u128::from(c)) as u64,
    }
}

/// The utilization profile: a bar per time slice, its height the share of the `n`
/// processors busy in it.
pub fn utilization(t: &Timeline, n: u32, title: &str) -> String {
    const COLS: u64 = 200;
    const H: f64 = 200.0;
    let end = t.end.max(1);
    let area = busy_per_column(&t.busy, end, COLS);
    let height = TOP + H + 44.0;
    let mut o = String::new();
    open(&mut o, &format!("{title}: utilization profile ({n} processors)"), height);
    let f = Frame { end, rows: Vec::new(), block: 1, top: 0 };
    for (k, &a) in area.iter().enumerate() {
        let k = k as u64;
        let lo = (u128::from(k) * u128::from(end) / u128::from(COLS)) as Ticks;
        let hi = (u128::from(k + 1) * u128::from(end) / u128::from(COLS)) as Ticks;
        let cap = u128::from(hi - lo) * u128::from(n.max(1));
        let share = if cap == 0 { 0.0 } else { (a as f64 / cap as f64).min(1.0) };
        if share <= 0.0 {
            continue;
        }
        let h = H * share;
        let _ = writeln!(
            o,
            "<rect x=\"{:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{h:.2}\" fill=\"steelblue\"><title>{} .. {}: {:.1} %</title></rect>",
            f.x(lo),
            TOP + H - h,
            (f.x(hi) - f.x(lo)).max(0.5),
            format_time(lo),
            format_time(hi),
            100.0 * share
        );
    }
    for (pct, y) in [(100, TOP), (50, TOP + H / 2.0), (0, TOP + H)] {
        let _ = writeln!(o, "<text x=\"{:.2}\" y=\"{:.2}\" text-anchor=\"end\">{pct} %</text>", LEFT - 6.0, y + 4.0);
        let _ = writeln!(
            o,
            "<line x1=\"{LEFT:.2}\" y1=\"{y:.2}\" x2=\"{:.2}\" y2=\"{y:.2}\" stroke=\"#ccc\"/>",
            WIDTH - RIGHT
        );
    }
    let y = TOP + H + 4.0;
    for tk in axis_ticks(end) {
        let _ = writeln!(
            o,
            "<text x=\"{:.2}\" y=\"{:.2}\" text-anchor=\"middle\">{}</text>",
            f.x(tk),
            y + 12.0,
            format_time(tk)
        );
    }
    let _ = writeln!(
        o,
        "<text x=\"{:.2}\" y=\"{:.2}\" text-anchor=\"middle\">time (time units)</text>",
        (LEFT + WIDTH - RIGHT) / 2.0,
        TOP + H + 34.0
    );
    let mid = TOP + H / 2.0;
    let _ = writeln!(
        o,
        "<text x=\"12\" y=\"{mid:.2}\" transform=\"rotate(-90 12 {mid:.2})\" text-anchor=\"middle\">processors busy</text>"
    );
    o.push_str("</svg>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mul_div_is_exact_with_and_without_a_64_bit_product() {
        // Small: 7 · 10 / 3 = 23.33 → 23. A product past 2^64 takes the 128-bit way:
        // (2^63 + 1) · 6 / 4 = 1.5 · 2^63 + 1.5 → 3 · 2^62 + 1, which fits 64 bits.
        assert_eq!(mul_div(7, 10, 3), 23);
        assert_eq!(mul_div((1 << 63) + 1, 6, 4), 3 * (1u64 << 62) + 1);
        // The column edges of add_busy cover the run exactly: 1000 columns of a run of
        // 2^60 ticks (products past 2^64) split one stretch over all of them in full.
        let mut area = vec![0u128; 1000];
        add_busy(&mut area, 0, 1 << 60, 1 << 60);
        assert_eq!(area.iter().sum::<u128>(), 1 << 60);
        assert_eq!(area[0], u128::from(mul_div(1, 1 << 60, 1000)));
    }

    /// A 4-byte channel message (see [`crate::perf::tests::send`]).
    fn send(time: Ticks, msg: u64, src: u32, dst: u32) -> Event {
        crate::perf::tests::send(time, msg, src, dst, 4)
    }

    #[test]
    fn messages_come_sorted_by_send_time_then_processors() {
        // By hand: message 1 (3 → 0 at 10) arrives at 15; 2 (1 → 2 at 10) at 12; 3 (0 →
        // 1 at 10) at 30; 4 (2 → 3 at 20) never arrives; 5 is sent at 20 (0 → 3) and
        // again at 25 (1 → 2; the later send counts, as for any id seen twice) and only
        // completes at 40 (no arrival event: the completion stands for it). Sorted by
        // (send time, source, destination, arrival): 3, 2, 1 at 10, then 5 at 25.
        let want = vec![(10, 0, 30, 1), (10, 1, 12, 2), (10, 3, 15, 0), (25, 1, 40, 2)];
        let events = [
            send(10, 1, 3, 0),
            send(10, 2, 1, 2),
            send(10, 3, 0, 1),
            Event::MsgArrive { time: 12, msg: 2, dst_pproc: 2 },
            Event::MsgArrive { time: 15, msg: 1, dst_pproc: 0 },
            send(20, 4, 2, 3),
            send(20, 5, 0, 3),
            send(25, 5, 1, 2),
            Event::MsgArrive { time: 30, msg: 3, dst_pproc: 1 },
            Event::RecvDone { time: 40, pid: 2, pproc: 2, msg: 5, src_pid: 1, bytes: 4 },
        ];
        let tuples = |b: &TimelineBuilder| -> Vec<(Ticks, u32, Ticks, u32)> {
            b.messages().iter().map(|m| (m.send, m.src, m.arrival, m.dst)).collect()
        };
        let mut b = TimelineBuilder::default();
        for e in &events {
            b.event(e);
        }
        assert_eq!(tuples(&b), want);
        // Sends out of time order (a trace not sorted by time) give the same list.
        let mut b = TimelineBuilder::default();
        for e in events.iter().rev() {
            b.event(e);
        }
        // Reversed, message 5's later send is the one at 20 (0 → 3).
        let want_rev = vec![(10, 0, 30, 1), (10, 1, 12, 2), (10, 3, 15, 0), (20, 0, 40, 3)];
        assert_eq!(tuples(&b), want_rev);
    }

    #[test]
    fn axis_ticks_are_round() {
        // 2321 units = 2 321 000 ticks: a fifth is 464 200, the round step above it is
        // 500 000 (500 units); 2321 is 321 units past 2000, more than a third of a step.
        assert_eq!(axis_ticks(2_321_000), vec![0, 500_000, 1_000_000, 1_500_000, 2_000_000, 2_321_000]);
        // 1000 units: step 200 units, and the end is a tick itself.
        assert_eq!(axis_ticks(1_000_000), vec![0, 200_000, 400_000, 600_000, 800_000, 1_000_000]);
        // 2050: step 500, 50 past the last tick is too close to label.
        assert_eq!(axis_ticks(2_050_000), vec![0, 500_000, 1_000_000, 1_500_000, 2_000_000]);
        assert_eq!(axis_ticks(0), vec![0]);
        assert_eq!(axis_ticks(3), vec![0, 1, 2, 3]);
    }

    #[test]
    fn busy_area_is_split_exactly_between_columns() {
        // End 100, 4 columns of 25: an interval 10..60 gives 15, 25, 10, 0.
        assert_eq!(busy_per_column(&[(0, 0, 10, 60)], 100, 4), vec![15, 25, 10, 0]);
        // Uneven columns (end 10, 3 columns: [0,3) [3,6) [6,10)): 0..10 gives 3, 3, 4.
        assert_eq!(busy_per_column(&[(0, 0, 0, 10)], 10, 3), vec![3, 3, 4]);
    }

    #[test]
    fn the_busy_log_reads_back_what_it_was_given() {
        // Any values, starts going back, ends before starts, the extremes: exactly.
        let v = vec![
            (0, 0, 0, 0),
            (3, 7, 100, 250),
            (3, 7, 90, 95),
            (u32::MAX, u32::MAX, u64::MAX, u64::MAX),
            (1, 2, u64::MAX, 0),
            (0, 1, 5, 3),
            (5, 5, 1 << 40, (1 << 40) + 1),
        ];
        let mut log = BusyLog::default();
        for &(p, q, a, b) in &v {
            log.push(p, q, a, b);
        }
        assert_eq!(log.iter().collect::<Vec<_>>(), v);
        // A run's intervals (1024 processors, starts a few ticks apart, lengths below
        // 2^14 ticks) take 7 bytes each (of the 24 of a tuple): processor 2, process 2,
        // the start's distance 1, the length 2; the first start, 10^6 from 0, 2 more.
        let mut log = BusyLog::default();
        for k in 0..10_000u64 {
            let start = 1_000_000 + k * 3 + k % 5;
            log.push((k % 1024) as u32, (k % 1024) as u32 + 1, start, start + 10 + k % 9000);
        }
        assert!(log.bytes.len() <= 7 * 10_000 + 2, "{} bytes", log.bytes.len());
        assert_eq!(log.iter().count(), 10_000);
    }

    #[test]
    fn touching_intervals_of_one_process_merge() {
        let mut b = TimelineBuilder::default();
        let busy =
            |pid, start, end| Event::Busy { pproc: 0, pid, start, end, line: 0, class: crate::trace::BusyClass::Work };
        for e in [busy(1, 0, 10), busy(1, 10, 20), busy(2, 20, 30), busy(1, 35, 40)] {
            b.event(&e);
        }
        assert_eq!(b.finish().busy, vec![(0, 1, 0, 20), (0, 2, 20, 30), (0, 1, 35, 40)]);
    }

    #[test]
    fn colours_differ_between_neighbouring_processes() {
        assert_ne!(colour(0), colour(1));
        assert_eq!(colour(0), "hsl(0,60%,60%)");
        // 137.508° apart: process 1 is at hue 137.
        assert_eq!(colour(1), "hsl(137,60%,60%)");
    }
}
