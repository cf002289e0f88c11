//! The run record file: [`RunRecordWriter`] (called by the simulator through the
//! [`Tracer`] trait) and the streaming [`RunRecordReader`] (used by `cptrace` and
//! `cpperf`).
//!
//! Depends on [`super::event`] (what is stored), [`crate::crc`] (the checksum) and
//! postcard (the encoding of each record's payload). Nothing else in the crate.
//!
//! # Byte layout (format 1.0)
//!
//! Integers outside postcard payloads are little-endian. Offsets are from the start.
//!
//! | offset | size | content |
//! |---|---|---|
//! | 0 | 8 | magic `43 50 50 45 00 52 55 4E` = `b"CPPE\0RUN"` ([`MAGIC`]) |
//! | 8 | 2 | format major version, u16 ([`VERSION_MAJOR`] = 1) |
//! | 10 | 2 | format minor version, u16 ([`VERSION_MINOR`] = 3) |
//! | 12 | … | records, each: kind u8, payload length L (unsigned LEB128, at most 5 bytes, no redundant trailing zero byte), L payload bytes |
//!
//! Record kinds ([`kind`]) are append-only numbers:
//!
//! | kind | record | payload | where |
//! |---|---|---|---|
//! | 1 | header | postcard [`RunHeader`] | exactly once, first |
//! | 2 | event | postcard [`Event`] | any number, in non-decreasing [`Event::time`] |
//! | 3 | footer | postcard `(RunStats, event_count: u64)`, then the CRC-32 u32 | exactly once, last |
//! | 0x80–0xFF | optional | anything | skipped by readers that do not know the kind |
//!
//! The CRC-32 (IEEE, as zlib; [`crate::crc::Crc32`]) in the footer covers every byte of
//! the file before it: magic, version, all records, and the footer's own kind, length and
//! statistics. Nothing may follow the footer. No event or optional payload may exceed
//! [`MAX_RECORD_LEN`], no header or footer payload [`MAX_TABLE_RECORD_LEN`].
//!
//! # Compatibility
//!
//! A reader accepts any minor version of its own major version. A minor version may add
//! [`Event`] variants at the end of the enum (older readers then fail with a clear
//! [`RecordError::Corrupt`] naming the record, rather than misreading it) and optional
//! record kinds (older readers skip them). Anything else needs a new major version.
//! Minor version 1 added [`Event::LineCost`], 2 [`Event::Deadlock`], 3 [`Event::Enter`] and
//! [`Event::Leave`].
//!
//! # Streaming and trust
//!
//! The reader holds one record at a time (a reused buffer as large as the largest record
//! seen), so memory does not grow with the number of events. The price is that events
//! are handed out before the checksum at the end has been verified: a consumer must treat
//! an error from [`RunRecordReader::next_event`] or [`RunRecordReader::footer`] as
//! invalidating everything it produced from the record (the tools write their outputs
//! atomically, so a failed conversion leaves no file behind).
//!
//! Both ends check the same invariants ([`Event::time`] order, processor, function,
//! channel and label indices within the header's tables): the writer refuses to produce
//! a record the reader would refuse to read, and reports the first violation from
//! [`RunRecordWriter::finish`] without writing a footer.
use super::event::{Event, Footer, MsgPurpose, Reason, RunHeader, RunStats, Ticks};
use crate::crc::Crc32;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};

/// The eight bytes every run record starts with.
pub const MAGIC: [u8; 8] = *b"CPPE\0RUN";
/// The format major version this module writes and reads.
pub const VERSION_MAJOR: u16 = 1;
/// The format minor version this module writes.
pub const VERSION_MINOR: u16 = 3;
/// The largest payload an event or optional record may have (16 MiB): the bound that
/// keeps a corrupt length from making a reader allocate without limit.
pub const MAX_RECORD_LEN: u32 = 16 << 20;
/// The largest payload of the header and the footer (256 MiB). Their tables grow with the
/// machine: the header maps each virtual processor (up to 2^24, 4 bytes each at most,
/// 64 MiB), the footer gives each physical processor's busy time (up to 2^24, 10 bytes each
/// at most, 160 MiB), so a record of the largest machine cpss builds needs more than
/// [`MAX_RECORD_LEN`] there (one byte a processor already makes the footer of a
/// 4096x4096 mesh 16 MiB). The reader grows its buffer with the bytes actually present,
/// so a corrupt length costs no memory beyond the file's.
pub const MAX_TABLE_RECORD_LEN: u32 = 256 << 20;

/// The largest payload a record of kind `k` may have.
fn max_len(k: u8) -> u32 {
    if k == kind::HEADER || k == kind::FOOTER {
        MAX_TABLE_RECORD_LEN
    } else {
        MAX_RECORD_LEN
    }
}

/// Record kind numbers (append-only).
pub mod kind {
    /// The [`super::RunHeader`].
    pub const HEADER: u8 = 1;
    /// One [`super::Event`].
    pub const EVENT: u8 = 2;
    /// Statistics, event count and checksum.
    pub const FOOTER: u8 = 3;
    /// Kinds with this bit set may be skipped by readers that do not know them.
    pub const OPTIONAL: u8 = 0x80;
}

const PREAMBLE_LEN: usize = 12;
const CRC_LEN: usize = 4;
const MAX_VARINT_LEN: usize = 5;
const IO_BUFFER: usize = 64 * 1024;

/// Why a run record could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The first eight bytes are not [`MAGIC`].
    #[error("not a run record (bad magic bytes; expected a file written by cpss -t)")]
    BadMagic,
    /// A major version this reader does not know.
    #[error(
        "unsupported run record format version {}.{} (this reader supports {}.x)",
        .found.0, .found.1, .supported.0
    )]
    UnsupportedVersion {
        /// (major, minor) in the file.
        found: (u16, u16),
        /// (major, minor) of this reader.
        supported: (u16, u16),
    },
    /// The data ends before the footer.
    #[error(
        "run record ends without a footer (data stops at byte {offset}): the run was interrupted or the file is incomplete"
    )]
    Truncated {
        /// Number of bytes the record holds.
        offset: u64,
    },
    /// A record that cannot be what a writer produced.
    #[error("corrupt run record at byte {offset}: {reason}")]
    Corrupt {
        /// Byte offset of the record (or field) at fault.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// The footer's checksum does not match the bytes before it.
    #[error(
        "corrupt run record: checksum {computed:#010x} of the data does not match {stored:#010x} stored in the footer"
    )]
    Checksum {
        /// The CRC written in the footer.
        stored: u32,
        /// The CRC of the bytes read.
        computed: u32,
    },
    /// The underlying reader failed.
    #[error("cannot read run record: {0}")]
    Io(#[from] io::Error),
}

// ---------------------------------------------------------------------------------------
// Invariants shared by writer and reader

/// The header's table sizes and the state needed to check each event against them.
#[derive(Debug)]
struct Checker {
    pprocs: u32,
    functions: usize,
    channels: usize,
    labels: usize,
    last_time: Ticks,
}

impl Checker {
    /// A checker every event's numbers pass, for [`fast_event`].
    const PERMISSIVE: Checker =
        Checker { pprocs: u32::MAX, functions: usize::MAX, channels: usize::MAX, labels: usize::MAX, last_time: 0 };

    fn new(h: &RunHeader) -> Self {
        Checker {
            pprocs: h.pprocs,
            functions: h.functions.len(),
            channels: h.channels.len(),
            labels: h.labels.len(),
            last_time: 0,
        }
    }

    fn pproc(&self, what: &str, p: u32) -> Result<(), String> {
        if p < self.pprocs {
            Ok(())
        } else {
            Err(format!("{what} {p} is not below the {} physical processors of the header", self.pprocs))
        }
    }

    fn channel(&self, c: u32) -> Result<(), String> {
        if (c as usize) < self.channels {
            Ok(())
        } else {
            Err(format!("channel {c} is not in the header's table of {} channels", self.channels))
        }
    }

    /// Checks `e` and, when it is valid, records its effect (time, label table).
    fn check(&mut self, e: &Event) -> Result<(), String> {
        let t = e.time();
        if t < self.last_time {
            return Err(format!("{} event at tick {t} follows an event at tick {}", e.kind_name(), self.last_time));
        }
        match e {
            Event::ProcCreate { pproc, function, .. } => {
                self.pproc("processor", *pproc)?;
                if *function as usize >= self.functions {
                    return Err(format!(
                        "function {function} is not in the header's table of {} functions",
                        self.functions
                    ));
                }
            }
            Event::State { reason: Reason::Channel { channel, .. }, .. } => self.channel(*channel)?,
            Event::MsgSend { src_pproc, dst_pproc, purpose, .. } => {
                self.pproc("source processor", *src_pproc)?;
                self.pproc("destination processor", *dst_pproc)?;
                if let MsgPurpose::Channel { channel, .. } = purpose {
                    self.channel(*channel)?;
                }
            }
            Event::MsgArrive { dst_pproc, .. } => self.pproc("destination processor", *dst_pproc)?,
            Event::RecvCall { pproc, channel, .. } => {
                self.pproc("processor", *pproc)?;
                self.channel(*channel)?;
            }
            Event::RecvDone { pproc, .. } => self.pproc("processor", *pproc)?,
            Event::Hop { from, to, enter, leave, .. } => {
                self.pproc("link source", *from)?;
                self.pproc("link destination", *to)?;
                if enter > leave {
                    return Err(format!("hop enters its link at tick {enter}, after it leaves at tick {leave}"));
                }
            }
            Event::Probe { pproc, label, .. } => {
                self.pproc("processor", *pproc)?;
                if *label as usize >= self.labels {
                    return Err(format!("probe label {label} is not defined (the label table has {})", self.labels));
                }
            }
            Event::Label { index, .. } => {
                if *index as usize != self.labels {
                    return Err(format!("label definition {index} is not the next free label index {}", self.labels));
                }
            }
            Event::Busy { pproc, start, end, .. } => {
                self.pproc("processor", *pproc)?;
                if start > end {
                    return Err(format!("busy interval starts at tick {start}, after its end at tick {end}"));
                }
            }
            Event::State { .. }
            | Event::ProcEnd { .. }
            | Event::TimeOff { .. }
            | Event::TimeOn { .. }
            | Event::LineCost { .. } => {}
            Event::Deadlock { pproc, .. } => self.pproc("processor", *pproc)?,
            Event::Enter { function, .. } | Event::Leave { function, .. } => {
                if *function as usize >= self.functions {
                    return Err(format!(
                        "function {function} is not in the header's table of {} functions",
                        self.functions
                    ));
                }
            }
        }
        if matches!(e, Event::Label { .. }) {
            self.labels += 1;
        }
        self.last_time = t;
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Tracer

/// What the simulator calls for every event. The simulator is generic over it, so with
/// [`NoTrace`] every call and the construction of its event compile away.
pub trait Tracer {
    /// Records one event. Never fails and never reports back: tracing must not change the
    /// run. A writer keeps its first error for [`RunRecordWriter::finish`].
    fn event(&mut self, e: &Event);

    /// Whether events are wanted at all; lets the simulator skip work that only builds
    /// events (for instance hop records, which cost a route walk).
    #[inline]
    fn enabled(&self) -> bool {
        true
    }
}

/// The tracer of a run without a record.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTrace;

impl Tracer for NoTrace {
    #[inline]
    fn event(&mut self, _e: &Event) {}

    #[inline]
    fn enabled(&self) -> bool {
        false
    }
}

/// Collects events in memory (for tests of the simulator and small tools).
impl Tracer for Vec<Event> {
    #[inline]
    fn event(&mut self, e: &Event) {
        self.push(e.clone());
    }
}

impl<T: Tracer + ?Sized> Tracer for &mut T {
    #[inline]
    fn event(&mut self, e: &Event) {
        (**self).event(e)
    }

    #[inline]
    fn enabled(&self) -> bool {
        (**self).enabled()
    }
}

/// Puts events into [`Event::time`] order before passing them on, for a producer whose
/// events are only ordered up to a horizon: in a quantum every processor in turn runs
/// through the same stretch of time, so processor 1's events may precede processor 0's.
/// The producer calls [`TimeOrder::release_before`] when it knows no later event will be
/// earlier than the horizon (the start of the next quantum); memory holds one quantum's
/// events. Equal times keep the order in which they arrived.
#[derive(Debug)]
pub struct TimeOrder<T: Tracer> {
    inner: T,
    pending: Vec<Event>,
}

impl<T: Tracer> TimeOrder<T> {
    /// Wraps `inner`.
    pub fn new(inner: T) -> Self {
        TimeOrder { inner, pending: Vec::new() }
    }

    /// Passes on, in time order, every held event earlier than `horizon`.
    pub fn release_before(&mut self, horizon: Ticks) {
        // A stable sort keeps arrival order among equal times.
        self.pending.sort_by_key(Event::time);
        let n = self.pending.partition_point(|e| e.time() < horizon);
        for e in self.pending.drain(..n) {
            self.inner.event(&e);
        }
    }

    /// Passes on every held event and returns the inner tracer.
    pub fn into_inner(mut self) -> T {
        self.release_before(Ticks::MAX);
        // Events at the very last tick are not below the horizon Ticks::MAX.
        for e in self.pending.drain(..) {
            self.inner.event(&e);
        }
        self.inner
    }
}

impl<T: Tracer> Tracer for TimeOrder<T> {
    #[inline]
    fn event(&mut self, e: &Event) {
        if self.inner.enabled() {
            self.pending.push(e.clone());
        }
    }

    #[inline]
    fn enabled(&self) -> bool {
        self.inner.enabled()
    }
}

// ---------------------------------------------------------------------------------------
// Writer

/// Writes a run record to `W`: the preamble and header on creation, one record per
/// [`event`](Self::event), the footer on [`finish`](Self::finish). Output is buffered;
/// encoding reuses one buffer, so an event costs no allocation.
#[derive(Debug)]
pub struct RunRecordWriter<W: Write> {
    out: BufWriter<W>,
    crc: Crc32,
    buf: Vec<u8>,
    checker: Checker,
    events: u64,
    error: Option<io::Error>,
}

fn encode_varint(mut v: u32, out: &mut [u8; MAX_VARINT_LEN]) -> usize {
    let mut n = 0;
    loop {
        let low = (v & 0x7F) as u8;
        v >>= 7;
        if v == 0 {
            out[n] = low;
            return n + 1;
        }
        out[n] = low | 0x80;
        n += 1;
    }
}

impl<W: Write> RunRecordWriter<W> {
    /// Starts a record on `w` with `header`.
    pub fn new(w: W, header: &RunHeader) -> io::Result<Self> {
        header
            .check()
            .map_err(|reason| io::Error::new(io::ErrorKind::InvalidInput, format!("run header: {reason}")))?;
        let mut me = RunRecordWriter {
            out: BufWriter::with_capacity(IO_BUFFER, w),
            crc: Crc32::new(),
            buf: Vec::with_capacity(256),
            checker: Checker::new(header),
            events: 0,
            error: None,
        };
        let mut preamble = [0u8; PREAMBLE_LEN];
        preamble[..8].copy_from_slice(&MAGIC);
        preamble[8..10].copy_from_slice(&VERSION_MAJOR.to_le_bytes());
        preamble[10..12].copy_from_slice(&VERSION_MINOR.to_le_bytes());
        me.put(&preamble)?;
        let payload = postcard::to_allocvec(header).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        me.frame(kind::HEADER, payload.len())?;
        me.put(&payload)?;
        Ok(me)
    }

    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.crc.update(bytes);
        self.out.write_all(bytes)
    }

    /// Writes a record's kind and length; `len` is the whole payload.
    fn frame(&mut self, kind: u8, len: usize) -> io::Result<()> {
        let max = max_len(kind);
        let len = u32::try_from(len).ok().filter(|&l| l <= max).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("a run record entry of {len} bytes exceeds the limit of {max} bytes"),
            )
        })?;
        let mut head = [0u8; 1 + MAX_VARINT_LEN];
        head[0] = kind;
        let mut v = [0u8; MAX_VARINT_LEN];
        let n = encode_varint(len, &mut v);
        head[1..=n].copy_from_slice(&v[..n]);
        self.put(&head[..=n])
    }

    /// Appends one event. A write failure or an event that breaks the record's invariants
    /// is kept and reported by [`finish`](Self::finish); later events are then dropped.
    pub fn event(&mut self, e: &Event) {
        if self.error.is_some() {
            return;
        }
        if let Err(reason) = self.checker.check(e) {
            self.error = Some(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("run record not finished: event {} is invalid: {reason}", self.events),
            ));
            return;
        }
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let result = match postcard::to_extend(e, buf) {
            Ok(b) => {
                buf = b;
                self.frame(kind::EVENT, buf.len()).and_then(|()| self.put(&buf))
            }
            Err(err) => {
                buf = Vec::new();
                Err(io::Error::new(io::ErrorKind::InvalidInput, err))
            }
        };
        self.buf = buf;
        match result {
            Ok(()) => self.events += 1,
            Err(err) => self.error = Some(err),
        }
    }

    /// Number of events written so far.
    pub fn event_count(&self) -> u64 {
        self.events
    }

    /// Writes the footer with `stats`, flushes, and returns the underlying writer; or the
    /// first error met since creation (then no footer is written, so no reader will take
    /// the output for a complete record).
    pub fn finish(mut self, stats: &RunStats) -> io::Result<W> {
        if let Some(err) = self.error.take() {
            return Err(err);
        }
        let payload =
            postcard::to_allocvec(&(stats, self.events)).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        self.frame(kind::FOOTER, payload.len() + CRC_LEN)?;
        self.put(&payload)?;
        let crc = self.crc.value();
        self.out.write_all(&crc.to_le_bytes())?;
        self.out.into_inner().map_err(io::IntoInnerError::into_error)
    }
}

impl<W: Write> Tracer for RunRecordWriter<W> {
    #[inline]
    fn event(&mut self, e: &Event) {
        RunRecordWriter::event(self, e)
    }
}

// ---------------------------------------------------------------------------------------
// Reader

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Events,
    Ended,
    Failed,
}

/// Reads a run record one record at a time: [`open`](Self::open) checks the preamble
/// and returns the header, [`next_event`](Self::next_event) yields the events, and
/// [`footer`](Self::footer) the verified footer.
#[derive(Debug)]
pub struct RunRecordReader<R: Read> {
    input: BufReader<R>,
    crc: Crc32,
    offset: u64,
    buf: Vec<u8>,
    checker: Checker,
    labels: Vec<String>,
    events: u64,
    phase: Phase,
    footer: Option<Footer>,
}

fn corrupt(offset: u64, reason: impl Into<String>) -> RecordError {
    RecordError::Corrupt { offset, reason: reason.into() }
}

/// The header length and the payload length of the event record at the start of
/// `bytes`, when its kind is an event and its length is valid (at most 5 LEB128 bytes,
/// no redundant zero, within the limit); `None` for anything else.
#[inline]
fn event_frame(bytes: &[u8]) -> Option<(usize, usize)> {
    let (&k, rest) = bytes.split_first()?;
    if k != kind::EVENT {
        return None;
    }
    let mut len: u32 = 0;
    for (i, &b) in rest.iter().take(MAX_VARINT_LEN).enumerate() {
        let bits = u32::from(b & 0x7F);
        if i == MAX_VARINT_LEN - 1 && bits > 0x0F {
            return None;
        }
        len |= bits << (7 * i);
        if b & 0x80 == 0 {
            if (b == 0 && i > 0) || len > MAX_RECORD_LEN {
                return None;
            }
            return Some((1 + i + 1, len as usize));
        }
    }
    None
}

/// Decodes a whole payload as `T`; bytes left over are corruption, not padding.
fn decode<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8], what: &str, offset: u64) -> Result<T, RecordError> {
    match postcard::take_from_bytes::<T>(bytes) {
        Ok((v, [])) => Ok(v),
        Ok((_, rest)) => Err(corrupt(offset, format!("{} unexpected bytes at the end of the {what}", rest.len()))),
        Err(e) => Err(corrupt(offset, format!("undecodable {what}: {e}"))),
    }
}

/// Decodes an event payload: [`fast_event`] for the payloads a writer produces, postcard
/// for anything it declines (so a damaged payload gets postcard's own error message).
#[inline]
fn decode_event(bytes: &[u8], offset: u64) -> Result<Event, RecordError> {
    match fast_event(bytes) {
        Some(e) => Ok(e),
        None => decode(bytes, "event", offset),
    }
}

/// A read position in an event payload, decoding postcard's primitives: LEB128 varints
/// with postcard's bounds (at most 5 bytes for a u32, 10 for a u64, no bits beyond the
/// type in the last byte; longer-than-needed forms are accepted, as postcard does),
/// zigzag for signed integers, a 0/1 tag byte for an option.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    #[inline(always)]
    fn byte(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    /// A varint of at most eight bytes read as one little-endian word: the first byte
    /// without its continuation bit ends it, and its 7-bit groups are packed together
    /// in three steps. `None` when fewer than eight bytes remain or none of the eight
    /// ends the varint (then the byte loop decides).
    #[inline(always)]
    fn word_varint(&mut self) -> Option<(u64, usize)> {
        let word = u64::from_le_bytes(*self.bytes.get(self.at..)?.first_chunk::<8>()?);
        let stops = !word & 0x8080_8080_8080_8080;
        if stops == 0 {
            return None;
        }
        let len = (stops.trailing_zeros() / 8 + 1) as usize;
        // The bits up to the lowest stop bit: the varint's bytes.
        let mut x = word & (stops ^ (stops - 1)) & 0x7F7F_7F7F_7F7F_7F7F;
        x = ((x & 0x7F00_7F00_7F00_7F00) >> 1) | (x & 0x007F_007F_007F_007F);
        x = ((x & 0x3FFF_0000_3FFF_0000) >> 2) | (x & 0x0000_3FFF_0000_3FFF);
        x = ((x & 0x0FFF_FFFF_0000_0000) >> 4) | (x & 0x0000_0000_0FFF_FFFF);
        Some((x, len))
    }

    #[inline(always)]
    fn u32(&mut self) -> Option<u32> {
        let b = *self.bytes.get(self.at)?;
        if b < 0x80 {
            self.at += 1;
            return Some(u32::from(b));
        }
        if let Some((x, len)) = self.word_varint() {
            // At most 5 bytes, the fifth with no bits beyond the 32nd.
            if len > 5 || (len == 5 && x >> 32 != 0) {
                return None;
            }
            self.at += len;
            return Some(x as u32);
        }
        self.at += 1;
        let mut out = u32::from(b & 0x7F);
        for i in 1..5 {
            let b = self.byte()?;
            out |= u32::from(b & 0x7F) << (7 * i);
            if b & 0x80 == 0 {
                return (i < 4 || b <= 0x0F).then_some(out);
            }
        }
        None
    }

    #[inline(always)]
    fn u64(&mut self) -> Option<u64> {
        let b = *self.bytes.get(self.at)?;
        if b < 0x80 {
            self.at += 1;
            return Some(u64::from(b));
        }
        if let Some((x, len)) = self.word_varint() {
            self.at += len;
            return Some(x);
        }
        self.at += 1;
        let mut out = u64::from(b & 0x7F);
        for i in 1..10 {
            let b = self.byte()?;
            out |= u64::from(b & 0x7F) << (7 * i);
            if b & 0x80 == 0 {
                return (i < 9 || b <= 0x01).then_some(out);
            }
        }
        None
    }

    #[inline(always)]
    fn i32(&mut self) -> Option<i32> {
        let n = self.u32()?;
        Some(((n >> 1) as i32) ^ -((n & 1) as i32))
    }

    #[inline(always)]
    fn opt_u32(&mut self) -> Option<Option<u32>> {
        match self.byte()? {
            0 => Some(None),
            1 => self.u32().map(Some),
            _ => None,
        }
    }
}

/// Decodes an event payload without serde: the same value postcard gives for every
/// payload it accepts, in a fraction of the instructions (the record's events are read
/// by the million). `None` for anything else (an unknown variant, a bad option tag, a
/// short payload, bytes left over) and for the rare [`Event::Label`], which the caller
/// then hands to postcard.
#[inline]
fn fast_event(bytes: &[u8]) -> Option<Event> {
    fast_checked(bytes, &Checker::PERMISSIVE).map(|(e, _, _)| e)
}

/// [`fast_event`] with the event's [`time`](Event::time) and whether it passes `ck`'s
/// checks of its numbers against the header (not its time), each weighed in the arm
/// that decoded the kind: one dispatch on the kind per event instead of three (the
/// decoding, [`Event::time`] and [`Checker::check`]). `false` only says that
/// [`Checker::check`] must decide (and word the error); `true` promises that it passes
/// but for the time.
#[inline(always)]
fn fast_checked(bytes: &[u8], ck: &Checker) -> Option<(Event, Ticks, bool)> {
    use super::event::{BusyClass, ProcState};
    let mut c = Cursor { bytes, at: 0 };
    let pp = |p: u32| p < ck.pprocs;
    let ch = |k: u32| (k as usize) < ck.channels;
    let fun = |f: u32| (f as usize) < ck.functions;
    let r = match c.u32()? {
        0 => {
            let (time, parent, pid, vproc, pproc, function, line) =
                (c.u64()?, c.opt_u32()?, c.u32()?, c.opt_u32()?, c.u32()?, c.u32()?, c.u32()?);
            let ok = pp(pproc) && fun(function);
            (Event::ProcCreate { time, parent, pid, vproc, pproc, function, line }, time, ok)
        }
        1 => {
            let (time, pid) = (c.u64()?, c.u32()?);
            (Event::ProcEnd { time, pid }, time, true)
        }
        2 => {
            let (time, pid) = (c.u64()?, c.u32()?);
            let state = match c.u32()? {
                0 => ProcState::Ready,
                1 => ProcState::Running,
                2 => ProcState::Blocked,
                3 => ProcState::Delayed,
                4 => ProcState::Spinning,
                5 => ProcState::Ended,
                _ => return None,
            };
            let (reason, ok) = match c.u32()? {
                0 => (Reason::None, true),
                1 => {
                    let (channel, index) = (c.u32()?, c.u32()?);
                    (Reason::Channel { channel, index }, ch(channel))
                }
                2 => (Reason::Join, true),
                3 => (Reason::Forall, true),
                4 => (Reason::Lock { lock: c.u32()? }, true),
                5 => (Reason::RemoteRead { owner: c.u32()? }, true),
                6 => (Reason::Delay { until: c.u64()? }, true),
                7 => (Reason::Quantum, true),
                8 => (Reason::Children, true),
                _ => return None,
            };
            (Event::State { time, pid, state, reason }, time, ok)
        }
        3 => {
            let (time, msg, src_pid, src_pproc, dst_pid, dst_pproc) =
                (c.u64()?, c.u64()?, c.u32()?, c.u32()?, c.opt_u32()?, c.u32()?);
            let (purpose, ok) = match c.u32()? {
                0 => {
                    let (channel, index) = (c.u32()?, c.u32()?);
                    (MsgPurpose::Channel { channel, index }, ch(channel))
                }
                1 => (MsgPurpose::RemoteRead { addr: c.u32()? }, true),
                2 => (MsgPurpose::RemoteReply { addr: c.u32()? }, true),
                3 => (MsgPurpose::RemoteWrite { addr: c.u32()? }, true),
                _ => return None,
            };
            let (bytes, line) = (c.u32()?, c.u32()?);
            let ok = ok && pp(src_pproc) && pp(dst_pproc);
            (Event::MsgSend { time, msg, src_pid, src_pproc, dst_pid, dst_pproc, purpose, bytes, line }, time, ok)
        }
        4 => {
            let (time, msg, dst_pproc) = (c.u64()?, c.u64()?, c.u32()?);
            (Event::MsgArrive { time, msg, dst_pproc }, time, pp(dst_pproc))
        }
        5 => {
            let (time, pid, pproc, channel, index, line) = (c.u64()?, c.u32()?, c.u32()?, c.u32()?, c.u32()?, c.u32()?);
            (Event::RecvCall { time, pid, pproc, channel, index, line }, time, pp(pproc) && ch(channel))
        }
        6 => {
            let (time, pid, pproc, msg, src_pid, bytes) = (c.u64()?, c.u32()?, c.u32()?, c.u64()?, c.u32()?, c.u32()?);
            (Event::RecvDone { time, pid, pproc, msg, src_pid, bytes }, time, pp(pproc))
        }
        7 => {
            let (msg, packet, from, to, enter, leave) = (c.u64()?, c.u32()?, c.u32()?, c.u32()?, c.u64()?, c.u64()?);
            (Event::Hop { msg, packet, from, to, enter, leave }, leave, pp(from) && pp(to) && enter <= leave)
        }
        8 => {
            let (time, pid, pproc, id, label) = (c.u64()?, c.u32()?, c.u32()?, c.i32()?, c.u32()?);
            (Event::Probe { time, pid, pproc, id, label }, time, pp(pproc) && (label as usize) < ck.labels)
        }
        10 => {
            let (time, pid) = (c.u64()?, c.u32()?);
            (Event::TimeOff { time, pid }, time, true)
        }
        11 => {
            let (time, pid) = (c.u64()?, c.u32()?);
            (Event::TimeOn { time, pid }, time, true)
        }
        12 => {
            let (pproc, pid, start, end, line) = (c.u32()?, c.u32()?, c.u64()?, c.u64()?, c.u32()?);
            let class = match c.u32()? {
                0 => BusyClass::Work,
                1 => BusyClass::Overhead,
                _ => return None,
            };
            (Event::Busy { pproc, pid, start, end, line, class }, end, pp(pproc) && start <= end)
        }
        13 => {
            let (time, line, work, overhead) = (c.u64()?, c.u32()?, c.u64()?, c.u64()?);
            (Event::LineCost { time, line, work, overhead }, time, true)
        }
        14 => {
            let (time, msg, packet, pproc) = (c.u64()?, c.u64()?, c.u32()?, c.u32()?);
            (Event::Deadlock { time, msg, packet, pproc }, time, pp(pproc))
        }
        15 => {
            let (time, pid, function) = (c.u64()?, c.u32()?, c.u32()?);
            (Event::Enter { time, pid, function }, time, fun(function))
        }
        16 => {
            let (time, pid, function) = (c.u64()?, c.u32()?, c.u32()?);
            (Event::Leave { time, pid, function }, time, fun(function))
        }
        _ => return None,
    };
    (c.at == bytes.len()).then_some(r)
}

impl<R: Read> RunRecordReader<R> {
    /// Checks magic and version and reads the header.
    pub fn open(r: R) -> Result<(Self, RunHeader), RecordError> {
        let mut input = BufReader::with_capacity(IO_BUFFER, r);
        let mut preamble = [0u8; PREAMBLE_LEN];
        let mut got = 0;
        while got < PREAMBLE_LEN {
            match input.read(&mut preamble[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(RecordError::Io(e)),
            }
        }
        let magic_len = got.min(MAGIC.len());
        if preamble[..magic_len] != MAGIC[..magic_len] {
            return Err(RecordError::BadMagic);
        }
        if got < PREAMBLE_LEN {
            return Err(RecordError::Truncated { offset: got as u64 });
        }
        let major = u16::from_le_bytes([preamble[8], preamble[9]]);
        let minor = u16::from_le_bytes([preamble[10], preamble[11]]);
        if major != VERSION_MAJOR {
            return Err(RecordError::UnsupportedVersion {
                found: (major, minor),
                supported: (VERSION_MAJOR, VERSION_MINOR),
            });
        }
        let mut crc = Crc32::new();
        crc.update(&preamble);
        let mut me = RunRecordReader {
            input,
            crc,
            offset: PREAMBLE_LEN as u64,
            buf: Vec::new(),
            checker: Checker { pprocs: 0, functions: 0, channels: 0, labels: 0, last_time: 0 },
            labels: Vec::new(),
            events: 0,
            phase: Phase::Events,
            footer: None,
        };
        let (k, at) = me.read_record()?;
        if k != kind::HEADER {
            return Err(corrupt(at, format!("the first record has kind {k}, not the header ({})", kind::HEADER)));
        }
        let header: RunHeader = decode(&me.buf, "header", at)?;
        header.check().map_err(|reason| corrupt(at, format!("header: {reason}")))?;
        me.checker = Checker::new(&header);
        me.labels = header.labels.clone();
        Ok((me, header))
    }

    /// Reads exactly `dst.len()` bytes, feeding them to the checksum.
    fn read_exact(&mut self, dst: &mut [u8]) -> Result<(), RecordError> {
        let mut got = 0;
        while got < dst.len() {
            match self.input.read(&mut dst[got..]) {
                Ok(0) => return Err(RecordError::Truncated { offset: self.offset + got as u64 }),
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(RecordError::Io(e)),
            }
        }
        self.crc.update(dst);
        self.offset += got as u64;
        Ok(())
    }

    /// Reads one record into `self.buf` and returns its kind and starting offset. The
    /// payload's bytes are fed to the checksum, except a footer's last four (the stored
    /// checksum itself).
    fn read_record(&mut self) -> Result<(u8, u64), RecordError> {
        let at = self.offset;
        let mut byte = [0u8; 1];
        self.read_exact(&mut byte)?;
        let k = byte[0];
        let mut len: u32 = 0;
        for i in 0..MAX_VARINT_LEN {
            self.read_exact(&mut byte)?;
            let b = byte[0];
            let bits = u32::from(b & 0x7F);
            if i == MAX_VARINT_LEN - 1 && bits > 0x0F {
                return Err(corrupt(at, "record length does not fit in 32 bits"));
            }
            len |= bits << (7 * i);
            if b & 0x80 == 0 {
                if b == 0 && i > 0 {
                    return Err(corrupt(at, "record length has a redundant trailing zero byte"));
                }
                break;
            }
            if i == MAX_VARINT_LEN - 1 {
                return Err(corrupt(at, "record length is longer than 5 bytes"));
            }
        }
        if len > max_len(k) {
            return Err(corrupt(at, format!("record length {len} exceeds the limit of {} bytes", max_len(k))));
        }
        self.buf.clear();
        // Reading through `take` grows the buffer with the bytes actually present, so a
        // corrupt length at the end of a short file allocates nothing extra.
        let got = (&mut self.input).take(u64::from(len)).read_to_end(&mut self.buf)?;
        if got < len as usize {
            return Err(RecordError::Truncated { offset: self.offset + got as u64 });
        }
        let covered = if k == kind::FOOTER { self.buf.len().saturating_sub(CRC_LEN) } else { self.buf.len() };
        self.crc.update(&self.buf[..covered]);
        self.offset += u64::from(len);
        Ok((k, at))
    }

    /// The next event, or `None` once the footer has been read and verified.
    pub fn next_event(&mut self) -> Result<Option<Event>, RecordError> {
        match self.phase {
            Phase::Ended => return Ok(None),
            Phase::Failed => {
                return Err(corrupt(self.offset, "reading cannot continue after an earlier error"));
            }
            Phase::Events => {}
        }
        let result = self.read_next();
        if result.is_err() {
            self.phase = Phase::Failed;
        }
        result
    }

    /// An event record wholly in the input buffer, decoded in place (no copy, and one
    /// checksum update for the whole record) and checked ([`Self::admit`]): the path
    /// nearly every event takes. `None` (nothing consumed) for anything else, which
    /// [`Self::read_record`] then reads and judges, errors included.
    fn buffered_event(&mut self) -> Option<Result<Event, RecordError>> {
        let buffered = self.input.buffer();
        let (head, len) = event_frame(buffered)?;
        let end = head + len;
        let record = buffered.get(..end)?;
        let at = self.offset;
        self.crc.update(record);
        // Checked as in `buffered_events`: the full check only when the fast one declines.
        let e = match fast_checked(&record[head..], &self.checker) {
            Some((e, time, true)) if time >= self.checker.last_time => {
                self.checker.last_time = time;
                self.events += 1;
                Ok(e)
            }
            Some((e, _, _)) => self.admit(&e, at).map(|()| e),
            None => decode(&record[head..], "event", at).and_then(|e| self.admit(&e, at).map(|()| e)),
        };
        self.input.consume(end);
        self.offset += end as u64;
        Some(e)
    }

    /// Decodes and checks the event records wholly in the input buffer into `out`, up
    /// to `target` events in it: the loop of [`Self::buffered_event`] and
    /// [`Self::admit`] with one checksum update and one `consume` for the whole stretch.
    /// Stops before any other record; a bad event is consumed and its error returned, as
    /// one at a time.
    fn buffered_events(&mut self, out: &mut Vec<Event>, target: usize) -> Result<(), RecordError> {
        let buffered = self.input.buffer();
        let mut pos = 0;
        let mut result = Ok(());
        while out.len() < target {
            let Some((head, len)) = buffered.get(pos..).and_then(event_frame) else { break };
            let Some(payload) = buffered.get(pos + head..pos + head + len) else { break };
            let at = self.offset + pos as u64;
            pos += head + len;
            let (e, time, ok) = match fast_checked(payload, &self.checker) {
                Some(x) => x,
                None => match decode(payload, "event", at) {
                    Ok(e) => (e, 0, false),
                    Err(err) => {
                        result = Err(err);
                        break;
                    }
                },
            };
            if ok && time >= self.checker.last_time {
                self.checker.last_time = time;
            } else if let Err(reason) = self.checker.check(&e) {
                result = Err(corrupt(at, reason));
                break;
            }
            if let Event::Label { text, .. } = &e {
                self.labels.push(text.clone());
            }
            self.events += 1;
            out.push(e);
        }
        self.crc.update(&buffered[..pos]);
        self.input.consume(pos);
        self.offset += pos as u64;
        result
    }

    fn read_next(&mut self) -> Result<Option<Event>, RecordError> {
        loop {
            if let Some(e) = self.buffered_event() {
                return e.map(Some);
            }
            let (k, at) = self.read_record()?;
            match k {
                kind::EVENT => {
                    let e = decode_event(&self.buf, at)?;
                    return self.accept(e, at).map(Some);
                }
                kind::FOOTER => {
                    self.read_footer(at)?;
                    self.phase = Phase::Ended;
                    return Ok(None);
                }
                kind::HEADER => return Err(corrupt(at, "a second header record")),
                k if k & kind::OPTIONAL != 0 => continue,
                k => return Err(corrupt(at, format!("unknown record kind {k} (written by a newer cpss?)"))),
            }
        }
    }

    /// Checks a decoded event against the header and the events before it.
    fn accept(&mut self, e: Event, at: u64) -> Result<Event, RecordError> {
        self.admit(&e, at)?;
        Ok(e)
    }

    /// [`Self::accept`] of an event the caller keeps.
    #[inline]
    fn admit(&mut self, e: &Event, at: u64) -> Result<(), RecordError> {
        self.checker.check(e).map_err(|reason| corrupt(at, reason))?;
        if let Event::Label { text, .. } = e {
            self.labels.push(text.clone());
        }
        self.events += 1;
        Ok(())
    }

    /// Appends up to `max` events to `out`, as that many calls of
    /// [`next_event`](Self::next_event) would (same checks, same errors, and after an
    /// error no more events); `true` once the footer has been read and verified. The
    /// events wholly in the input buffer go straight into `out`, which saves moving each
    /// through the layers of results of a call per event.
    pub fn read_batch(&mut self, out: &mut Vec<Event>, max: usize) -> Result<bool, RecordError> {
        let target = out.len().saturating_add(max);
        while out.len() < target {
            if self.phase == Phase::Events {
                let before = out.len();
                if let Err(err) = self.buffered_events(out, target) {
                    self.phase = Phase::Failed;
                    return Err(err);
                }
                if out.len() > before {
                    continue;
                }
            }
            match self.next_event()? {
                Some(e) => out.push(e),
                None => return Ok(true),
            }
        }
        Ok(false)
    }

    fn read_footer(&mut self, at: u64) -> Result<(), RecordError> {
        let Some(split) = self.buf.len().checked_sub(CRC_LEN) else {
            return Err(corrupt(at, "footer shorter than its checksum"));
        };
        let (body, stored) = self.buf.split_at(split);
        let stored = u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]]);
        let computed = self.crc.value();
        if stored != computed {
            return Err(RecordError::Checksum { stored, computed });
        }
        let (stats, event_count): (RunStats, u64) = decode(body, "footer", at)?;
        if event_count != self.events {
            return Err(corrupt(at, format!("footer counts {event_count} events, the record holds {}", self.events)));
        }
        let mut extra = [0u8; 1];
        loop {
            match self.input.read(&mut extra) {
                Ok(0) => break,
                Ok(_) => return Err(corrupt(self.offset, "data after the footer")),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(RecordError::Io(e)),
            }
        }
        self.footer = Some(Footer { stats, event_count, crc: stored });
        Ok(())
    }

    /// The verified footer. Reads (and discards) any events not yet read first, so it
    /// also serves consumers that only want the statistics.
    pub fn footer(&mut self) -> Result<Footer, RecordError> {
        while self.next_event()?.is_some() {}
        self.footer.clone().ok_or_else(|| corrupt(self.offset, "no footer"))
    }

    /// The probe label table: the header's labels, then those defined by the
    /// [`Event::Label`] records read so far.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// The label of a probe, if defined.
    pub fn label(&self, index: u32) -> Option<&str> {
        self.labels.get(index as usize).map(String::as_str)
    }

    /// Number of events read so far.
    pub fn events_read(&self) -> u64 {
        self.events
    }

    /// Bytes consumed so far (the offset of the next record).
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

/// Iterates over the events; after an error it yields that error once and then stops.
impl<R: Read> Iterator for RunRecordReader<R> {
    type Item = Result<Event, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.phase == Phase::Failed {
            return None;
        }
        self.next_event().transpose()
    }
}

#[cfg(test)]
#[path = "record_tests.rs"]
mod tests;
