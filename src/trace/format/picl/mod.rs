//! PICL trace writers: the PICL 2.0 "new" ASCII format that ParaGraph reads
//! (`--format picl`) and the old compact format of seed 001 Table 8-1 (`--format picl1`).
//!
//! Depends on [`crate::trace::convert`] (the driver, the sorting buffer, busy/idle transitions).
//!
//! Time scale: one simulated time unit is one microsecond, so a run of 2720 units lasts
//! 0.002720 s in ParaGraph. The new format writes seconds with nine decimals (exact to
//! the tick); the old format writes whole seconds and microseconds (fractions of a unit
//! are dropped). Processors are PICL nodes; the `process` field of the new format is the
//! simulator's process id (0 for per-processor records). A message's type is the flat
//! channel element number ([`Context::channel_element`]); remote-memory traffic has no
//! receive and is not written. Both formats are sorted by time.
//!
//! Records of the new format (`record event time node process n [2 data…]`):
//! `-3/-4 -901` trace begin/end per node; `-3/-4 -601` idle block (the node runs no
//! process); `-2 -503` process spawn (data: parent or -1, function index); `-3/-4 -21`
//! send (entry data: bytes, type, destination node, 0); `-3 -52` blocking receive entry
//! (data: type, -1, 0) and `-4 -52` exit (data: bytes, type, source node, 0); `-3/-4 -51`
//! a receive whose message was there (entry data: type, source, 0; exit as `-52`); `-2
//! -911` probe (data: probe id, label index); `-3/-4 F+1` a procedure's entry and exit
//! (a user block whose event type is the function's index + 1; data: the index); `-2
//! -999` every run-record event verbatim ([`EVENT_EVENT`]), so that nothing the record
//! holds is lost.
//!
//! Records of the old format (`key sec usec node …`): `1` trace start (event level 4,
//! compstats level 1, commstats level 0), `4` send (to, type, length), `6` receive
//! without waiting (from, type, length), `7` blocking receive (type), `8` receive wake-up
//! (from, type, length), `15` trace mark (probe id), `11` compstats (cumulative idle
//! seconds and microseconds, written when an idle period ends and at the end), `19` trace
//! exit (space 0), `20`/`21` block begin and end for a procedure's entry and exit
//! (block type: the function's index + 1; location: the process; parameter 0).
pub mod read;
pub mod read_old;

use crate::dense::DenseMap;
use crate::time::Ticks;
use crate::trace::convert::{seconds, Activity, Context, Reorder, TraceWriter};
use crate::trace::event::{Event, MsgPurpose, RunStats};
use std::collections::BTreeMap;
use std::io::{self, Write};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Rec {
    Begin(u32),
    End(u32),
    Idle(u32, bool),
    Spawn {
        p: u32,
        pid: u32,
        parent: i64,
        function: u32,
    },
    Send {
        p: u32,
        pid: u32,
        dst: u32,
        ty: u32,
        bytes: u32,
    },
    RecvWait {
        p: u32,
        pid: u32,
        ty: u32,
    },
    RecvWake {
        p: u32,
        pid: u32,
        src: i64,
        ty: i64,
        bytes: u32,
    },
    RecvNow {
        p: u32,
        pid: u32,
        src: i64,
        ty: i64,
        bytes: u32,
    },
    Mark {
        p: u32,
        pid: u32,
        id: i32,
        label: u32,
    },
    /// A procedure's entry (`enter`) or exit: seed 001's block records.
    Block {
        p: u32,
        pid: u32,
        function: u32,
        enter: bool,
    },
    /// A run-record event carried verbatim ([`EVENT_EVENT`]): the record's count, format
    /// and data fields, from its payload's bytes ([`byte_data`]).
    Event {
        p: u32,
        data: String,
    },
}

/// Per-node state of the old format's compstats records.
#[derive(Debug, Clone, Default)]
struct Idle {
    since: BTreeMap<u32, Ticks>,
    total: BTreeMap<u32, Ticks>,
}

/// Writes PICL, new (`old == false`) or old compact format.
#[derive(Debug)]
pub struct PiclWriter {
    old: bool,
    tpu: Ticks,
    buf: Reorder<Rec>,
    activity: Activity,
    idle: Idle,
    /// Message id → (sender's node, type), until received.
    inflight: DenseMap<(u32, u32)>,
    /// Processes blocked in a receive → the type they wait for.
    waiting: DenseMap<u32>,
    /// Live process → its processor.
    pproc_of: DenseMap<u32>,
    /// Event marks written ([`COUNT_EVENT`]).
    marks: u64,
}

impl PiclWriter {
    /// A writer of the new format (`old == false`, ParaGraph) or the old one.
    pub fn new(old: bool) -> PiclWriter {
        PiclWriter {
            old,
            tpu: 1000,
            buf: Reorder::default(),
            activity: Activity::default(),
            idle: Idle::default(),
            // Messages are numbered in sending order and mostly received in it.
            inflight: DenseMap::sliding(),
            waiting: DenseMap::default(),
            pproc_of: DenseMap::default(),
            marks: 0,
        }
    }

    fn release(&mut self, horizon: Ticks, out: &mut dyn Write) -> io::Result<()> {
        let (old, tpu, idle) = (self.old, self.tpu, &mut self.idle);
        self.buf
            .release(horizon, |t, r| if old { write_old(out, t, tpu, &r, idle) } else { write_new(out, t, tpu, &r) })
    }
}

fn write_new(out: &mut dyn Write, t: Ticks, tpu: Ticks, r: &Rec) -> io::Result<()> {
    let s = seconds(t, tpu);
    match *r {
        Rec::Begin(p) => writeln!(out, "-3 -901 {s} {p} 0 0"),
        Rec::End(p) => writeln!(out, "-4 -901 {s} {p} 0 0"),
        Rec::Idle(p, true) => writeln!(out, "-3 -601 {s} {p} 0 0"),
        Rec::Idle(p, false) => writeln!(out, "-4 -601 {s} {p} 0 0"),
        Rec::Spawn { p, pid, parent, function } => writeln!(out, "-2 -503 {s} {p} {pid} 2 2 {parent} {function}"),
        Rec::Send { p, pid, dst, ty, bytes } => {
            writeln!(out, "-3 -21 {s} {p} {pid} 4 2 {bytes} {ty} {dst} 0")?;
            writeln!(out, "-4 -21 {s} {p} {pid} 0")
        }
        Rec::RecvWait { p, pid, ty } => writeln!(out, "-3 -52 {s} {p} {pid} 3 2 {ty} -1 0"),
        Rec::RecvWake { p, pid, src, ty, bytes } => writeln!(out, "-4 -52 {s} {p} {pid} 4 2 {bytes} {ty} {src} 0"),
        Rec::RecvNow { p, pid, src, ty, bytes } => {
            writeln!(out, "-3 -51 {s} {p} {pid} 3 2 {ty} {src} 0")?;
            writeln!(out, "-4 -51 {s} {p} {pid} 4 2 {bytes} {ty} {src} 0")
        }
        Rec::Mark { p, pid, id, label } => writeln!(out, "-2 -911 {s} {p} {pid} 2 2 {id} {label}"),
        Rec::Block { p, pid, function, enter } => {
            let rec = if enter { -3 } else { -4 };
            writeln!(out, "{rec} {} {s} {p} {pid} 1 2 {function}", u64::from(function) + 1)
        }
        Rec::Event { p, ref data } => writeln!(out, "-2 {EVENT_EVENT} {s} {p} 0 {data}"),
    }
}

/// The event type of the marks, written first, that carry the record header's names
/// (functions, channels, probe labels, the source file's name and text) as one byte per
/// datum ([`crate::trace::record::encode_names`]), 255 bytes a mark at most: their
/// data, concatenated, are the encoding.
pub const NAMES_EVENT: i32 = -998;

/// The event type of the mark, written last, that counts the event marks
/// ([`EVENT_EVENT`]) before it (`-2 -992 T 0 0 1 2 COUNT`): a reader that finds another
/// number of marks knows that some were deleted or repeated, as a run record's footer
/// tells its reader.
pub const COUNT_EVENT: i32 = -992;

/// The event type of the marks that carry the run record's events verbatim
/// (`-2 -999 T NODE 0 N 2 BYTES…`: the event's record payload, one byte per datum), in
/// the record's order. PICL has no records for a process's waits (delays, remote reads,
/// locks, joins), remote memory traffic, message arrivals, the process a busy interval
/// belongs to, source lines or virtual processors; with these marks `cpperf` reads the
/// trace as the record itself and every figure is the record's. Readers that do not
/// know the event type (ParaGraph) skip the marks.
pub const EVENT_EVENT: i32 = -999;

/// The `n 2 b1 b2 …` fields of a mark whose data are `bytes`, one datum a byte, made
/// without the formatting machinery (a conversion writes one such mark per event).
fn byte_data(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(4 + 4 * bytes.len());
    s.push_str(&bytes.len().to_string());
    s.push_str(" 2");
    for &b in bytes {
        s.push(' ');
        if b >= 100 {
            s.push(char::from(b'0' + b / 100));
        }
        if b >= 10 {
            s.push(char::from(b'0' + b / 10 % 10));
        }
        s.push(char::from(b'0' + b % 10));
    }
    s
}

/// The event type of the mark that names the program (`-2 -991 0 0 0 N 2 BYTES…`),
/// written first.
pub const PROGRAM_EVENT: i32 = -991;

/// The event type of the mark that starts a trace cut by `cptrace --from T`
/// (`-2 -989 T 0 0 0`, no data): its time is the window's start, from which `cpperf` counts
/// the trace's times.
pub const WINDOW_EVENT: i32 = -989;

/// The event type of the mark (`-2 -988 T 0 0 0`, no data) that starts a trace of some
/// processors or some kinds of event only (`cptrace --procs`, `--kinds`): a reader does
/// not expect every send of a receive, nor every creation, to be in it.
pub const PART_EVENT: i32 = -988;

/// The event type of the run-statistics mark that `cptrace --stats` appends.
pub const STATS_EVENT: i32 = -990;

/// The run's final statistics as one PICL 2.0 mark record at the parallel time, for
/// `cptrace --stats`: `-2 -990 T 0 0 7 2 SEQ PAR USED MESSAGES BYTES LATENCY TPU`, times
/// in ticks (`TPU` ticks per time unit), so that `cpperf` on the trace reports the
/// sequential time and speedup the simulator measured.
pub fn stats_record(stats: &RunStats, tpu: Ticks) -> String {
    format!(
        "-2 {STATS_EVENT} {} 0 0 7 2 {} {} {} {} {} {} {tpu}\n",
        seconds(stats.par_ticks, tpu),
        stats.seq_ticks,
        stats.par_ticks,
        stats.pprocs_used,
        stats.messages,
        stats.bytes,
        stats.total_latency_ticks
    )
}

/// Whole seconds and microseconds of `ticks` (one time unit = 1 µs).
fn sec_usec(ticks: Ticks, tpu: Ticks) -> (u64, u64) {
    let us = ticks / tpu.max(1);
    (us / 1_000_000, us % 1_000_000)
}

fn write_old(out: &mut dyn Write, t: Ticks, tpu: Ticks, r: &Rec, idle: &mut Idle) -> io::Result<()> {
    let (sec, usec) = sec_usec(t, tpu);
    match *r {
        Rec::Begin(p) => writeln!(out, "1 {sec} {usec} {p} 4 1 0"),
        Rec::End(p) => {
            if let Some(since) = idle.since.remove(&p) {
                *idle.total.entry(p).or_default() += t.saturating_sub(since);
            }
            let (is, iu) = sec_usec(idle.total.get(&p).copied().unwrap_or(0), tpu);
            writeln!(out, "11 {sec} {usec} {p} {is} {iu}")?;
            writeln!(out, "19 {sec} {usec} {p} 0")
        }
        Rec::Idle(p, true) => {
            idle.since.insert(p, t);
            Ok(())
        }
        Rec::Idle(p, false) => {
            let since = idle.since.remove(&p).unwrap_or(t);
            let total = idle.total.entry(p).or_default();
            *total += t.saturating_sub(since);
            let (is, iu) = sec_usec(*total, tpu);
            writeln!(out, "11 {sec} {usec} {p} {is} {iu}")
        }
        Rec::Spawn { .. } => Ok(()),
        Rec::Send { p, dst, ty, bytes, .. } => writeln!(out, "4 {sec} {usec} {p} {dst} {ty} {bytes}"),
        Rec::RecvWait { p, ty, .. } => writeln!(out, "7 {sec} {usec} {p} {ty}"),
        Rec::RecvWake { p, src, ty, bytes, .. } => writeln!(out, "8 {sec} {usec} {p} {src} {ty} {bytes}"),
        Rec::RecvNow { p, src, ty, bytes, .. } => writeln!(out, "6 {sec} {usec} {p} {src} {ty} {bytes}"),
        Rec::Mark { p, id, .. } => writeln!(out, "15 {sec} {usec} {p} {id}"),
        Rec::Block { p, pid, function, enter } => {
            let key = if enter { 20 } else { 21 };
            writeln!(out, "{key} {sec} {usec} {p} {} {pid} 0", u64::from(function) + 1)
        }
        // The old format has no user records; its writer never queues these.
        Rec::Event { .. } => Ok(()),
    }
}

impl TraceWriter for PiclWriter {
    fn begin(&mut self, cx: &Context<'_>, out: &mut dyn Write) -> io::Result<()> {
        self.tpu = cx.header.ticks_per_unit;
        // The program's name first, as a mark whose integer data are its bytes (PICL
        // data are integers), up to 255 of them.
        let start = cx.selection.from.unwrap_or(0);
        let name: Vec<String> = cx.header.program.bytes().take(255).map(|b| b.to_string()).collect();
        if !self.old && !name.is_empty() {
            writeln!(out, "-2 {PROGRAM_EVENT} {} 0 0 {} 2 {}", seconds(start, self.tpu), name.len(), name.join(" "))?;
        }
        if !self.old {
            // The header's names (functions, channels, labels, the source), so that the
            // reports name what the record names; the source is left out past 256 KiB.
            // In marks of at most 255 data, as the program's name.
            let names = crate::trace::record::encode_names(cx.header, 256 << 10);
            for chunk in names.chunks(255) {
                writeln!(out, "-2 {NAMES_EVENT} {} 0 0 {}", seconds(start, self.tpu), byte_data(chunk))?;
            }
        }
        if !self.old && (cx.selection.procs.is_some() || cx.selection.kinds.is_some()) {
            writeln!(out, "-2 {PART_EVENT} {} 0 0 0", seconds(start, self.tpu))?;
        }
        if let (false, Some(from)) = (self.old, cx.selection.from) {
            writeln!(out, "-2 {WINDOW_EVENT} {} 0 0 0", seconds(from, self.tpu))?;
        }
        for p in cx.procs() {
            self.buf.push(start, Rec::Begin(p));
        }
        self.activity.begin(cx.procs(), start, &mut self.buf, Rec::Idle);
        Ok(())
    }

    fn event(&mut self, e: &Event, cx: &Context<'_>, out: &mut dyn Write) -> io::Result<()> {
        if !self.old {
            // Queued first: the event's own mark precedes the records made of it at the
            // same time, so the marks keep the record's order.
            let data = byte_data(&crate::trace::record::encode_event(e));
            self.buf.push(e.time(), Rec::Event { p: e.processors()[0].unwrap_or(0), data });
            self.marks += 1;
        }
        match *e {
            Event::Busy { pproc, start, end, .. } => self.activity.busy(pproc, start, end, &mut self.buf, Rec::Idle),
            Event::ProcCreate { time, parent, pid, pproc, function, .. } => {
                self.pproc_of.insert(u64::from(pid), pproc);
                let parent = parent.map_or(-1, i64::from);
                self.buf.push(time, Rec::Spawn { p: pproc, pid, parent, function });
            }
            Event::MsgSend {
                time,
                msg,
                src_pid,
                src_pproc,
                dst_pproc,
                purpose: MsgPurpose::Channel { channel, index },
                bytes,
                ..
            } => {
                let ty = cx.channel_element(channel, index);
                self.inflight.insert(msg, (src_pproc, ty));
                self.buf.push(time, Rec::Send { p: src_pproc, pid: src_pid, dst: dst_pproc, ty, bytes });
            }
            Event::State { time, pid, reason: crate::trace::event::Reason::Channel { channel, index }, .. } => {
                // A state change with a channel reason is a process blocking in a receive.
                let ty = cx.channel_element(channel, index);
                self.waiting.insert(u64::from(pid), ty);
                if let Some(&p) = self.pproc_of.get(u64::from(pid)) {
                    self.buf.push(time, Rec::RecvWait { p, pid, ty });
                }
            }
            Event::RecvCall { pid, pproc, .. } => {
                // Also learnt here, for selections without `proc_init`.
                self.pproc_of.insert(u64::from(pid), pproc);
            }
            Event::ProcEnd { pid, .. } => {
                self.pproc_of.remove(u64::from(pid));
            }
            Event::RecvDone { time, pid, pproc, msg, bytes, .. } => {
                // -1 when the send was not selected (another processor, before --from).
                let (src, ty) = self.inflight.remove(msg).map_or((-1, -1), |(s, t)| (i64::from(s), i64::from(t)));
                let rec = if self.waiting.remove(u64::from(pid)).is_some() {
                    Rec::RecvWake { p: pproc, pid, src, ty, bytes }
                } else {
                    Rec::RecvNow { p: pproc, pid, src, ty, bytes }
                };
                self.buf.push(time, rec);
            }
            Event::Probe { time, pid, pproc, id, label } => {
                self.buf.push(time, Rec::Mark { p: pproc, pid, id, label });
            }
            Event::Enter { time, pid, function } | Event::Leave { time, pid, function } => {
                if let Some(&p) = self.pproc_of.get(u64::from(pid)) {
                    let enter = matches!(e, Event::Enter { .. });
                    self.buf.push(time, Rec::Block { p, pid, function, enter });
                }
            }
            _ => {}
        }
        self.release(cx.horizon, out)
    }

    fn finish(&mut self, cx: &Context<'_>, end: Ticks, out: &mut dyn Write) -> io::Result<Vec<(&'static str, String)>> {
        self.activity.close(end, &mut self.buf, Rec::Idle);
        for p in cx.procs() {
            self.buf.push(end, Rec::End(p));
        }
        self.release(Ticks::MAX, out)?;
        if !self.old && self.marks > 0 {
            writeln!(out, "-2 {COUNT_EVENT} {} 0 0 1 2 {}", seconds(end, self.tpu), self.marks)?;
        }
        Ok(Vec::new())
    }

    fn late(&self) -> u64 {
        self.buf.late()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_data_writes_each_byte_in_decimal() {
        assert_eq!(byte_data(&[0, 9, 10, 99, 100, 255]), "6 2 0 9 10 99 100 255");
    }
}
