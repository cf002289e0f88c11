//! The run record file: [`RunRecordWriter`] (called by the simulator through the
//! [`Tracer`] trait) and the streaming [`RunRecordReader`] (used by `cptrace` and
//! `cpperf`).
//!
//! Depends on [`super::event`] (what is stored), [`crate::crc`] (the checksum) and
//! postcard (the encoding of each record's payload). Nothing else in the crate.
//!
//! This module holds the format (below), its errors and the invariants both ends check;
//! `write` the writing end, `read` the reader, `payload` the decoding of an event's
//! payload.
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
use crate::crc::Crc32;
use crate::time::Ticks;
use crate::trace::event::{Event, Footer, MsgPurpose, Reason, RunHeader, RunStats};
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

/// A [`RecordError::Corrupt`] at `offset`.
fn corrupt(offset: u64, reason: impl Into<String>) -> RecordError {
    RecordError::Corrupt { offset, reason: reason.into() }
}

/// One event's payload as the record stores it (postcard), for formats that carry
/// events verbatim in records of their own (the PICL writer's `-999` marks).
pub fn encode_event(e: &Event) -> Vec<u8> {
    // Cannot fail: an event is integers and enums, which postcard always encodes.
    postcard::to_allocvec(e).unwrap_or_default()
}

/// The event whose payload is `bytes` ([`encode_event`]'s inverse); an error says why
/// the bytes are not one.
pub fn decode_event_bytes(bytes: &[u8]) -> Result<Event, String> {
    payload::decode_event(bytes, 0).map_err(|e| match e {
        RecordError::Corrupt { reason, .. } => reason,
        other => other.to_string(),
    })
}

/// The names a header gives (functions, channels, probe labels, the source file's name
/// and text), encoded as the record encodes its header, for formats that carry them in
/// records of their own (the PICL writer's `-998` mark). The source is left out when the
/// whole would pass `limit` bytes.
pub fn encode_names(h: &RunHeader, limit: usize) -> Vec<u8> {
    let whole = (&h.functions, &h.channels, &h.labels, &h.source_name, &h.source);
    match postcard::to_allocvec(&whole) {
        Ok(v) if v.len() <= limit => v,
        _ => postcard::to_allocvec(&(&h.functions, &h.channels, &h.labels, &h.source_name, "")).unwrap_or_default(),
    }
}

/// [`encode_names`]'s inverse: the names set into `h`; an error says why the bytes are
/// not such names.
pub fn decode_names(bytes: &[u8], h: &mut RunHeader) -> Result<(), String> {
    type Names = (Vec<String>, Vec<crate::trace::event::ChannelDecl>, Vec<String>, String, String);
    let (functions, channels, labels, source_name, source): Names =
        payload::decode(bytes, "names", 0).map_err(|e| match e {
            RecordError::Corrupt { reason, .. } => reason,
            other => other.to_string(),
        })?;
    h.functions = functions;
    h.channels = channels;
    h.labels = labels;
    h.source_name = source_name;
    h.source = source;
    Ok(())
}

mod payload;
mod read;
mod write;

pub use read::RunRecordReader;
pub use write::{NoTrace, RunRecordWriter, TimeOrder, Tracer};

#[cfg(test)]
mod tests;
