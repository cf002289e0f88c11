//! The run record: the binary event log of one simulated run.
//!
//! `cpss` writes it (`-t FILE`, or stdout in a pipeline); `cptrace` converts it to trace
//! formats and `cpperf` analyses it. It is the only thing the analysers read, so it holds
//! everything they need without the `.cod` file: a header with the whole configuration
//! and the tables that name processors, functions, channels and probe labels; the events
//! of the run in time order (the execution-graph nodes of seed 003 — `proc_init`,
//! `proc_exit`, `msg_send`, `recv_call`, `msg_arr` — plus state changes, receive
//! completions, per-hop routes, probes, `timeOn`/`timeOff` and per-processor busy
//! intervals attributed to source lines); and a footer with the final statistics and a
//! checksum of everything before it.
//!
//! ```text
//!  sim ──Observer──▶ sim::recorder ──Tracer::event──▶ RunRecordWriter ──bytes──▶ RunRecordReader ──▶ cptrace / cpperf
//! ```
//!
//! The simulator reports its events to an optional boxed observer (`sim::observe`); the
//! one that records turns them into [`Event`]s for a [`Tracer`], here the
//! [`RunRecordWriter`]. Without an observer nothing is built (one branch per event site,
//! nothing in the interpreter loop), and the writer never feeds anything back, so a run
//! gives the same results with or without a record. Times are integer ticks, [`crate::time::TICKS_PER_UNIT`] = 1000 per time unit.
//!
//! ```
//! use cppe::trace::{Event, RunHeader, RunRecordReader, RunRecordWriter, RunStats};
//!
//! let header = RunHeader { pprocs: 1, functions: vec!["main".into()], ..RunHeader::default() };
//! let mut w = RunRecordWriter::new(Vec::new(), &header)?;
//! w.event(&Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 });
//! w.event(&Event::ProcEnd { time: 2_500, pid: 0 });
//! let bytes = w.finish(&RunStats { par_ticks: 2_500, ..RunStats::default() })?;
//!
//! let (mut r, header) = RunRecordReader::open(&bytes[..])?;
//! while let Some(e) = r.next_event()? {
//!     println!("{} at {} time units", e.kind_name(), e.time() as f64 / header.ticks_per_unit as f64);
//! }
//! assert_eq!(r.footer()?.stats.par_ticks, 2_500);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! * [`event`] — the header, event, statistics and footer types.
//! * [`record`] — the byte layout, the writer, the streaming reader, [`TimeOrder`].
//! * [`crate::crc`] — the incremental CRC-32 of the footer.
//! * [`convert`], [`filter`] — `cptrace`'s streaming conversion: the driver and the
//!   selection; [`states`] and [`calls`] — the processor states and the call stacks the
//!   writers and `cpperf` share.
//! * [`format`](mod@format) — the trace formats, one folder each (writer, reader, files), and their
//!   registry [`format::Format`].
//!
//! Depends on serde, postcard and thiserror only; nothing in the crate upstream of the
//! analysers (`sim`, `net`) is imported here, and nothing here knows the simulator.
pub mod calls;
pub mod convert;
pub mod event;
pub mod filter;
pub mod format;
pub mod record;
pub mod states;

/// The marker line before an included file's text in a record header's `source`.
pub use crate::vcode::INCLUDE_MARK;
/// The label prefix of the probe CPC's `mapping("SPEC")` writes (see [`crate::vcode::MAPPING_PROBE_ID`]).
pub use crate::vcode::MAPPING_PREFIX;
pub use event::{
    BusyClass, ChannelDecl, Event, ExitStatus, Footer, MsgPurpose, ProcState, Reason, RunHeader, RunStats, LINKS_PARAM,
};
pub use record::{NoTrace, RecordError, RunRecordReader, RunRecordWriter, TimeOrder, Tracer};
