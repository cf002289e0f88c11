//! The OTF2 writer (`--format otf2`): an archive that Score-P's readers (`otf2-print`,
//! Vampir, Scalasca's analysers) open, written by this module alone, without the C
//! library.
//!
//! Depends on [`super::convert`] and [`super::states`].
//!
//! # The archive
//!
//! `-o DIR/NAME.otf2` writes three things in `DIR`: the anchor file `NAME.otf2`, the
//! global definitions `NAME.def`, and a directory `NAME/` holding, for every location,
//! its events `L.evt` and its (empty) local definitions `L.def`. Every file is an OTF2
//! buffer: a chunk header (`0x03`, the endianness byte `0x42` for little-endian), then
//! records, then the end-of-buffer byte `0x01`. Event files are cut into chunks of
//! [`CHUNK`] bytes whose headers number their first and last events; a chunk starts with
//! a timestamp record, and the bytes after a chunk's last record are `0x00`. Integers
//! are OTF2's compressed form (a length byte, then that many little-endian bytes; `0` and
//! the all-ones value in one byte). We write trace format 2 (OTF2 2.0 records), which
//! every later reader accepts.
//!
//! # The model
//!
//! - **Clock:** one tick per OTF2 timer tick; the resolution is the run record's ticks
//!   per time unit times 10⁶, one time unit being one microsecond as in every other
//!   format `cptrace` writes.
//! - **System tree and locations:** one machine node (named after the topology); each
//!   physical processor `p` is a location group `P{p}` (a "process") holding one location
//!   `p` (a CPU thread). Every processor of the machine is a location; `--procs` empties
//!   the others.
//! - **Regions:** one per function of the program (entered while a process running it
//!   is busy on the processor, and, nested in that, while a function it called is open:
//!   the calls of [`super::calls`], re-entered in every busy interval a call spans), and
//!   one per waiting state of [`super::states`]
//!   ("waiting for a message", "… a remote read", "… a lock", "… children", "delayed"),
//!   entered while the processor is idle in that state, exactly the stretches of the
//!   Paraver output and of `cpperf`'s time by state. An idle processor with nothing
//!   waiting is in no region. Consecutive stretches in one waiting state are one visit.
//! - **Communicators:** one per channel of the program, over a group whose ranks are the
//!   processors (rank `p` = location `p`). A channel message is an `MpiSend` on the
//!   sender's processor at the send (receiver = the receiving processor, tag = the
//!   element's flat index in the channel, length = bytes) and an `MpiRecv` on the
//!   receiver's processor when the receive completes. Remote reads and writes are not
//!   messages here: their waits are the "waiting for a remote read" region.
//!
//! Records of one location must be in time order; a busy interval is known only at its
//! end, so records go through the same bounded [`Reorder`] buffer as the Paraver writer,
//! with ties broken as leave, enter, then messages, which keeps every message inside the
//! busy interval that sent or received it; a message at the very end of its interval
//! (its last instruction) is moved before that interval's leave when the interval comes.
//! A waiting stretch is known only when it closes, so nothing after the earliest open
//! stretch of a selected processor is written; when more than 65 536 records are held,
//! the open stretches are reported up to the horizon (the visit goes on).
use super::calls::{CallMark, CallSplitter};
use super::convert::{Context, Reorder, TraceWriter};
use super::event::{Event, MsgPurpose, Ticks};
use super::states::{PState, ProcessorStates, Stretch};
use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Bytes per event chunk: OTF2's smallest (256 KiB), to keep the partial chunks held per
/// location small.
pub const CHUNK: usize = 256 * 1024;
/// Bytes per definition chunk recorded in the anchor file (definition files are not
/// chunked; the value only has to be a legal size).
const DEF_CHUNK: u64 = 4 * 1024 * 1024;

// Buffer-level record types.
const END_OF_BUFFER: u8 = 1;
const END_OF_FILE: u8 = 2;
const CHUNK_HEADER: u8 = 3;
const TIMESTAMP: u8 = 5;
const LITTLE_ENDIAN: u8 = 0x42;

// Global definition records.
const DEF_CLOCK_PROPERTIES: u8 = 5;
const DEF_STRING: u8 = 10;
const DEF_SYSTEM_TREE_NODE: u8 = 12;
const DEF_LOCATION_GROUP: u8 = 13;
const DEF_LOCATION: u8 = 14;
const DEF_REGION: u8 = 15;
const DEF_GROUP: u8 = 18;
const DEF_COMM: u8 = 22;

// Event records.
const EVT_ENTER: u8 = 12;
const EVT_LEAVE: u8 = 13;
const EVT_MPI_SEND: u8 = 14;
const EVT_MPI_RECV: u8 = 18;

// Enumerations.
const LOCATION_GROUP_PROCESS: u8 = 1;
const LOCATION_CPU_THREAD: u8 = 1;
const REGION_TYPE_UNKNOWN: u8 = 0;
const REGION_TYPE_FUNCTION: u8 = 1;
const ROLE_FUNCTION: u8 = 1;
const ROLE_ARTIFICIAL: u8 = 31;
const PARADIGM_USER: u8 = 1;
const PARADIGM_MPI: u8 = 4;
const PARADIGM_MEASUREMENT: u8 = 6;
const GROUP_PRE12_MPI_GROUP: u8 = 4;
const GROUP_PRE12_MPI_LOCATIONS: u8 = 6;
const GROUP_COMM_LOCATIONS: u8 = 4;
const GROUP_COMM_GROUP: u8 = 5;
const UNDEFINED: u32 = u32::MAX;

/// The anchor file's format, the trace format and the OTF2 version we write.
const ANCHOR_FORMAT: u8 = 3;
const TRACE_FORMAT: u8 = 2;
const VERSION: [u8; 3] = [2, 0, 0];

/// OTF2's compressed unsigned integer: `0` and the all-ones value `max` as one byte,
/// otherwise the number of significant bytes, then those bytes little-endian.
fn put_compressed(b: &mut Vec<u8>, v: u64, max: u64) {
    if v == 0 || v == max {
        b.push(v as u8);
        return;
    }
    let n = 8 - (v.leading_zeros() / 8) as usize;
    b.push(n as u8);
    b.extend_from_slice(&v.to_le_bytes()[..n]);
}

fn put_u32(b: &mut Vec<u8>, v: u32) {
    put_compressed(b, u64::from(v), u64::from(u32::MAX));
}

fn put_u64(b: &mut Vec<u8>, v: u64) {
    put_compressed(b, v, u64::MAX);
}

fn put_str(b: &mut Vec<u8>, s: &str) {
    // A string is NUL-terminated: an inner NUL would cut it.
    b.extend(s.bytes().map(|c| if c == 0 { b' ' } else { c }));
    b.push(0);
}

/// A record with a length: type, length (one byte below 255, else 255 and 8 bytes),
/// data.
fn put_record(b: &mut Vec<u8>, kind: u8, data: &[u8]) {
    b.push(kind);
    if data.len() < 255 {
        b.push(data.len() as u8);
    } else {
        b.push(255);
        b.extend_from_slice(&(data.len() as u64).to_le_bytes());
    }
    b.extend_from_slice(data);
}

/// One event record of a location, before encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rec {
    Enter { loc: u32, region: u32 },
    Leave { loc: u32, region: u32 },
    Send { loc: u32, to: u32, comm: u32, tag: u32, bytes: u32 },
    Recv { loc: u32, from: u32, comm: u32, tag: u32, bytes: u32 },
}

impl Rec {
    fn loc(self) -> u32 {
        match self {
            Rec::Enter { loc, .. } | Rec::Leave { loc, .. } | Rec::Send { loc, .. } | Rec::Recv { loc, .. } => loc,
        }
    }

    /// Its order among records of the same time: leaves, enters, then messages.
    fn rank(self) -> u64 {
        match self {
            Rec::Leave { .. } => 0,
            Rec::Enter { .. } => 1,
            Rec::Send { .. } | Rec::Recv { .. } => 2,
        }
    }

    /// Appends its encoding (without the timestamp).
    fn encode(self, b: &mut Vec<u8>) {
        match self {
            Rec::Enter { region, .. } => {
                b.push(EVT_ENTER);
                put_u32(b, region);
            }
            Rec::Leave { region, .. } => {
                b.push(EVT_LEAVE);
                put_u32(b, region);
            }
            Rec::Send { to: peer, comm, tag, bytes, .. } | Rec::Recv { from: peer, comm, tag, bytes, .. } => {
                // Type, one length byte (the data is at most 3 · 5 + 9 = 24 bytes), data:
                // written in place, the length patched after (no buffer per message).
                b.push(if matches!(self, Rec::Send { .. }) { EVT_MPI_SEND } else { EVT_MPI_RECV });
                let at = b.len();
                b.push(0);
                put_u32(b, peer);
                put_u32(b, comm);
                put_u32(b, tag);
                put_u64(b, u64::from(bytes));
                b[at] = (b.len() - at - 1) as u8;
            }
        }
    }
}

/// A chunked OTF2 file (events, or definitions), written chunk by chunk: every chunk
/// is `size` bytes but the last, and its header numbers its first and last events.
#[derive(Debug)]
struct ChunkedFile {
    path: PathBuf,
    size: usize,
    chunk: Vec<u8>,
    /// Events in the chunks already written.
    before: u64,
    /// Events in the current chunk.
    events: u64,
    /// The last timestamp written in the current chunk.
    time: Option<Ticks>,
}

impl ChunkedFile {
    fn new(path: PathBuf, size: usize) -> ChunkedFile {
        let mut f = ChunkedFile { path, size, chunk: Vec::new(), before: 0, events: 0, time: None };
        f.header();
        f
    }

    fn header(&mut self) {
        self.chunk.clear();
        self.chunk.extend_from_slice(&[CHUNK_HEADER, LITTLE_ENDIAN]);
        self.chunk.extend_from_slice(&(self.before + 1).to_le_bytes());
        self.chunk.extend_from_slice(&0u64.to_le_bytes());
        self.time = None;
    }

    /// Patches the chunk's last event number and appends it to the file, `pad`ded to a
    /// whole chunk with end-of-chunk bytes (every chunk but the last).
    fn flush(&mut self, pad: bool) -> io::Result<()> {
        let last = self.before + self.events;
        self.chunk[10..18].copy_from_slice(&last.to_le_bytes());
        if pad {
            self.chunk.resize(self.size, 0);
        }
        let mut f = OpenOptions::new().create(true).append(true).open(&self.path)?;
        f.write_all(&self.chunk)?;
        self.before = last;
        self.events = 0;
        Ok(())
    }

    /// Appends one record, encoded in `rec`: an event at `Some(t)` (preceded by a
    /// timestamp when the time changes and at the start of a chunk), or a definition.
    /// Starts a new chunk when the record does not fit with its timestamp and the
    /// end-of-file and end-of-buffer bytes.
    fn push(&mut self, t: Option<Ticks>, rec: &[u8]) -> io::Result<()> {
        if self.chunk.len() + 9 + rec.len() + 2 >= self.size {
            self.flush(true)?;
            self.header();
        }
        if let Some(t) = t {
            if self.time != Some(t) {
                self.chunk.push(TIMESTAMP);
                self.chunk.extend_from_slice(&t.to_le_bytes());
                self.time = Some(t);
            }
            self.events += 1;
        }
        self.chunk.extend_from_slice(rec);
        Ok(())
    }

    /// Writes the last chunk with the end-of-file and end-of-buffer bytes; returns the
    /// number of events.
    fn finish(&mut self) -> io::Result<u64> {
        self.chunk.extend_from_slice(&[END_OF_FILE, END_OF_BUFFER]);
        self.flush(false)?;
        Ok(self.before)
    }
}

/// Writes an OTF2 archive into a directory.
#[derive(Debug)]
pub struct Otf2Writer {
    dir: PathBuf,
    name: String,
    buf: Reorder<Rec>,
    files: BTreeMap<u32, ChunkedFile>,
    states: ProcessorStates,
    /// Process → region of its function (kept after the process ends: its last busy
    /// interval is recorded after its end).
    region_of: Vec<u32>,
    /// The same for process ids too large for `region_of` (from a damaged record).
    region_of_large: BTreeMap<u32, u32>,
    /// Channel message → (sender's processor, channel, element), until received.
    sent: BTreeMap<u64, (u32, u32, u32)>,
    /// Per processor: the waiting region it is in, if any.
    in_wait: BTreeMap<u32, u32>,
    /// The stretches an event closed.
    stretches: Vec<Stretch>,
    /// The first region of the waiting states (in [`WAIT_REGIONS`] order).
    wait_base: u32,
    from: Ticks,
    to: Ticks,
    scratch: Vec<u8>,
    /// The processes' calls, placed in their busy intervals.
    calls: CallSplitter,
    marks: Vec<CallMark>,
    /// Per location, the messages queued since its last busy interval: (time, key).
    messages: BTreeMap<u32, Vec<(Ticks, ReorderKey)>>,
}

/// The records held before open stretches are cut to let them go (bounded memory).
const HOLD: usize = 1 << 16;

/// A record's key in the [`Reorder`] buffer.
type ReorderKey = (Ticks, u64);

/// Process ids below this are looked up in a vector.
const DENSE_PIDS: u32 = 1 << 24;

/// The waiting states that are regions, in region order.
const WAIT_REGIONS: [PState; 5] = [PState::Message, PState::RemoteRead, PState::Lock, PState::Children, PState::Delay];

impl Otf2Writer {
    /// A writer of the archive `NAME.otf2` in `dir` (`name` without the extension).
    pub fn new(dir: &Path, name: &str) -> Otf2Writer {
        Otf2Writer {
            dir: dir.to_path_buf(),
            name: name.to_string(),
            buf: Reorder::default(),
            files: BTreeMap::new(),
            states: ProcessorStates::default(),
            region_of: Vec::new(),
            region_of_large: BTreeMap::new(),
            sent: BTreeMap::new(),
            in_wait: BTreeMap::new(),
            stretches: Vec::new(),
            wait_base: 0,
            from: 0,
            to: Ticks::MAX,
            scratch: Vec::new(),
            calls: CallSplitter::default(),
            marks: Vec::new(),
            messages: BTreeMap::new(),
        }
    }

    /// The files and directory an archive named `name` consists of, relative to its
    /// directory: the anchor, the global definitions and the per-location directory.
    pub fn parts(name: &str) -> [String; 3] {
        [format!("{name}.otf2"), format!("{name}.def"), name.to_string()]
    }

    /// The key of a record at `t` in the reorder buffer: time, then [`Rec::rank`].
    fn key(t: Ticks) -> Ticks {
        t.saturating_mul(4)
    }

    /// Queues `rec` at `t`; returns its key in the reorder buffer.
    fn push(&mut self, t: Ticks, rec: Rec) -> Option<(Ticks, u64)> {
        if !self.files.contains_key(&rec.loc()) {
            return None;
        }
        // Into the window (`max` then `min`: no panic even for a window the caller did
        // not check).
        let t = t.max(self.from).min(self.to);
        Some(self.buf.push(Self::key(t) + rec.rank(), rec))
    }

    /// The region of process `pid`'s function.
    fn region(&self, pid: u32) -> u32 {
        let unnamed = self.wait_base - 1;
        match self.region_of.get(pid as usize) {
            Some(&r) => r,
            None => self.region_of_large.get(&pid).copied().unwrap_or(unnamed),
        }
    }

    fn wait_region(&self, st: PState) -> Option<u32> {
        WAIT_REGIONS.iter().position(|&w| w == st).map(|i| self.wait_base + i as u32)
    }

    /// Processor `p` enters state `st` at `a`: it leaves the waiting region it was in, if
    /// `st` is another, and enters `st`'s, if a wait.
    fn visit(&mut self, p: u32, a: Ticks, st: PState) {
        let region = self.wait_region(st);
        let current = self.in_wait.get(&p).copied();
        if current == region {
            return;
        }
        if let Some(r) = current {
            self.push(a, Rec::Leave { loc: p, region: r });
            self.in_wait.remove(&p);
        }
        if let Some(r) = region {
            self.push(a, Rec::Enter { loc: p, region: r });
            self.in_wait.insert(p, r);
        }
    }

    /// Takes the stretches collected in `self.stretches` of the selected processors.
    fn take_stretches(&mut self, cx: &Context<'_>) {
        let stretches = std::mem::take(&mut self.stretches);
        for &(p, a, _, st) in &stretches {
            if cx.selection.proc(p) {
                self.visit(p, a, st);
            }
        }
        self.stretches = stretches;
        self.stretches.clear();
    }

    /// Encodes and writes every record below `horizon`.
    fn release(&mut self, horizon: Ticks) -> io::Result<()> {
        let Otf2Writer { buf, files, scratch, .. } = self;
        buf.release(horizon, |key, rec| {
            let Some(f) = files.get_mut(&rec.loc()) else { return Ok(()) };
            scratch.clear();
            rec.encode(scratch);
            f.push(Some(key / 4), scratch)
        })
    }

    /// The global definitions and the anchor file, once every location's event count is
    /// known.
    /// Writes the global definitions file; returns the anchor file's contents.
    fn definitions(&self, cx: &Context<'_>, end: Ticks, counts: &BTreeMap<u32, u64>) -> io::Result<Vec<u8>> {
        let h = cx.header;
        let mut strings: Vec<String> = Vec::new();
        let mut string_id: BTreeMap<String, u32> = BTreeMap::new();
        let mut s = |text: &str| -> u32 {
            if let Some(&i) = string_id.get(text) {
                return i;
            }
            let i = strings.len() as u32;
            strings.push(text.to_string());
            string_id.insert(text.to_string(), i);
            i
        };
        let mut defs: Vec<(u8, Vec<u8>)> = Vec::new();
        let mut d = Vec::new();
        put_u64(&mut d, h.ticks_per_unit.saturating_mul(1_000_000));
        put_u64(&mut d, 0);
        put_u64(&mut d, end);
        defs.push((DEF_CLOCK_PROPERTIES, d));

        let mut d = Vec::new();
        put_u32(&mut d, 0);
        let machine = if h.topology.is_empty() { "machine".to_string() } else { h.topology.clone() };
        put_u32(&mut d, s(&machine));
        put_u32(&mut d, s("machine"));
        put_u32(&mut d, UNDEFINED);
        defs.push((DEF_SYSTEM_TREE_NODE, d));
        for p in 0..h.pprocs {
            let mut d = Vec::new();
            put_u32(&mut d, p);
            put_u32(&mut d, s(&format!("P{p}")));
            d.push(LOCATION_GROUP_PROCESS);
            put_u32(&mut d, 0);
            defs.push((DEF_LOCATION_GROUP, d));
        }
        for p in 0..h.pprocs {
            let mut d = Vec::new();
            put_u64(&mut d, u64::from(p));
            put_u32(&mut d, s(&format!("processor {p}")));
            d.push(LOCATION_CPU_THREAD);
            put_u64(&mut d, counts.get(&p).copied().unwrap_or(0));
            put_u32(&mut d, p);
            defs.push((DEF_LOCATION, d));
        }
        let source = s(&h.source_name);
        let empty = s("");
        let mut regions: Vec<(String, bool)> = h.functions.iter().map(|f| (f.clone(), true)).collect();
        regions.push(("(unnamed process)".to_string(), true));
        regions.extend(WAIT_REGIONS.iter().map(|w| (w.name().to_string(), false)));
        for (i, (name, function)) in regions.iter().enumerate() {
            let mut d = Vec::new();
            let n = s(name);
            put_u32(&mut d, i as u32);
            put_u32(&mut d, n);
            put_u32(&mut d, empty);
            d.push(if *function { REGION_TYPE_FUNCTION } else { REGION_TYPE_UNKNOWN });
            put_u32(&mut d, if *function { source } else { empty });
            put_u32(&mut d, 0);
            put_u32(&mut d, 0);
            put_u32(&mut d, n);
            d.push(if *function { ROLE_FUNCTION } else { ROLE_ARTIFICIAL });
            d.push(if *function { PARADIGM_USER } else { PARADIGM_MEASUREMENT });
            put_u32(&mut d, 0);
            defs.push((DEF_REGION, d));
        }
        if !h.channels.is_empty() {
            for (id, name, pre, kind) in [
                (0u32, "processors", GROUP_PRE12_MPI_LOCATIONS, GROUP_COMM_LOCATIONS),
                (1, "ranks", GROUP_PRE12_MPI_GROUP, GROUP_COMM_GROUP),
            ] {
                let mut d = Vec::new();
                put_u32(&mut d, id);
                put_u32(&mut d, s(name));
                d.push(pre);
                put_u32(&mut d, h.pprocs);
                for p in 0..h.pprocs {
                    put_u64(&mut d, u64::from(p));
                }
                d.push(kind);
                d.push(PARADIGM_MPI);
                put_u32(&mut d, 0);
                defs.push((DEF_GROUP, d));
            }
            for (c, ch) in h.channels.iter().enumerate() {
                let mut d = Vec::new();
                put_u32(&mut d, c as u32);
                put_u32(&mut d, s(&format!("channel {}", ch.name)));
                put_u32(&mut d, 1);
                put_u32(&mut d, UNDEFINED);
                defs.push((DEF_COMM, d));
            }
        }

        let [_, def_name, _] = Self::parts(&self.name);
        let path = self.dir.join(def_name);
        let _ = fs::remove_file(&path);
        let mut global = ChunkedFile::new(path, DEF_CHUNK as usize);
        let mut count = 0u64;
        let mut id = Fnv::default();
        let mut rec = Vec::new();
        // Strings first, so that every reference is to a string already defined.
        for (i, text) in strings.iter().enumerate() {
            let mut d = Vec::new();
            put_u32(&mut d, i as u32);
            put_str(&mut d, text);
            rec.clear();
            put_record(&mut rec, DEF_STRING, &d);
            id.add(&rec);
            global.push(None, &rec)?;
            count += 1;
        }
        for (kind, d) in &defs {
            rec.clear();
            put_record(&mut rec, *kind, d);
            id.add(&rec);
            global.push(None, &rec)?;
            count += 1;
        }
        global.finish()?;

        let mut anchor = vec![CHUNK_HEADER, LITTLE_ENDIAN];
        put_str(&mut anchor, "OTF2");
        anchor.extend_from_slice(&[ANCHOR_FORMAT, TRACE_FORMAT]);
        anchor.extend_from_slice(&VERSION);
        anchor.extend_from_slice(&(CHUNK as u64).to_le_bytes());
        anchor.extend_from_slice(&DEF_CHUNK.to_le_bytes());
        anchor.extend_from_slice(&[1, 1]); // POSIX files, no compression
        anchor.extend_from_slice(&u64::from(h.pprocs).to_le_bytes());
        anchor.extend_from_slice(&count.to_le_bytes());
        put_str(&mut anchor, "cppe simulated multicomputer");
        put_str(&mut anchor, &h.tool_version);
        put_str(&mut anchor, &format!("{} on {}", h.program, h.topology));
        anchor.extend_from_slice(&0u32.to_le_bytes()); // properties
        anchor.extend_from_slice(&id.get().to_le_bytes());
        anchor.extend_from_slice(&0u32.to_le_bytes()); // snapshots
        anchor.extend_from_slice(&0u32.to_le_bytes()); // thumbnails
        anchor.extend_from_slice(&[END_OF_FILE, END_OF_BUFFER, 0]);
        Ok(anchor)
    }
}

/// A trace identifier that depends on the contents only (FNV-1a of the definitions), so
/// equal runs give byte-identical archives; never 0.
#[derive(Debug)]
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn add(&mut self, bytes: &[u8]) {
        self.0 = bytes.iter().fold(self.0, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    }

    fn get(&self) -> u64 {
        self.0.max(1)
    }
}

impl TraceWriter for Otf2Writer {
    fn begin(&mut self, cx: &Context<'_>, _out: &mut dyn Write) -> io::Result<()> {
        self.from = cx.selection.from.unwrap_or(0);
        self.to = cx.selection.to.unwrap_or(Ticks::MAX);
        self.wait_base = cx.header.functions.len() as u32 + 1;
        let locs = self.dir.join(&self.name);
        fs::create_dir_all(&locs)?;
        for p in 0..cx.header.pprocs {
            let path = locs.join(format!("{p}.evt"));
            let _ = fs::remove_file(&path);
            self.files.insert(p, ChunkedFile::new(path, CHUNK));
        }
        for p in cx.procs() {
            self.states.begin(p, self.from);
        }
        Ok(())
    }

    fn event(&mut self, e: &Event, cx: &Context<'_>, _out: &mut dyn Write) -> io::Result<()> {
        let mut stretches = std::mem::take(&mut self.stretches);
        self.states.each(e, |p, a, b, st| stretches.push((p, a, b, st)));
        self.stretches = stretches;
        self.take_stretches(cx);
        if let Event::Busy { pproc: p, pid, start, end, .. } = *e {
            if end > start && cx.selection.proc(p) {
                let region = self.region(pid);
                self.push(start, Rec::Enter { loc: p, region });
                // The calls open in the interval, nested in the process's function.
                if self.calls.any() {
                    let mut marks = std::mem::take(&mut self.marks);
                    self.calls.interval(pid, start, end, &mut marks);
                    let unnamed = self.wait_base - 1;
                    for m in &marks {
                        let region = if m.function < unnamed { m.function } else { unnamed };
                        let rec = if m.enter { Rec::Enter { loc: p, region } } else { Rec::Leave { loc: p, region } };
                        self.push(m.time, rec);
                    }
                    self.marks = marks;
                }
                // A message sent or received by the interval's last instruction has the
                // interval's end for its time: it goes before the leave, not after.
                if let Some(queued) = self.messages.remove(&p) {
                    for (t, key) in queued {
                        if t == end {
                            if let Some(rec) = self.buf.remove(key) {
                                self.buf.push(Self::key(end), rec);
                            }
                        }
                    }
                }
                self.push(end, Rec::Leave { loc: p, region });
            }
        }
        if matches!(e, Event::Enter { .. } | Event::Leave { .. }) {
            self.calls.event(e);
        }
        match *e {
            Event::ProcCreate { pid, function, .. } => {
                let f = if (function as usize) < cx.header.functions.len() { function } else { self.wait_base - 1 };
                if pid < DENSE_PIDS {
                    if self.region_of.len() <= pid as usize {
                        self.region_of.resize(pid as usize + 1, self.wait_base - 1);
                    }
                    self.region_of[pid as usize] = f;
                } else {
                    self.region_of_large.insert(pid, f);
                }
            }
            Event::MsgSend {
                time,
                msg,
                src_pproc,
                dst_pproc,
                purpose: MsgPurpose::Channel { channel, index },
                bytes,
                ..
            } => {
                self.sent.insert(msg, (src_pproc, channel, index));
                if cx.selection.proc(src_pproc) {
                    let rec = Rec::Send { loc: src_pproc, to: dst_pproc, comm: channel, tag: index, bytes };
                    if let Some(key) = self.push(time, rec) {
                        self.messages.entry(src_pproc).or_default().push((time, key));
                    }
                }
            }
            Event::RecvDone { time, pproc, msg, bytes, .. } => {
                if let Some((from, comm, tag)) = self.sent.remove(&msg) {
                    if cx.selection.proc(pproc) {
                        if let Some(key) = self.push(time, Rec::Recv { loc: pproc, from, comm, tag, bytes }) {
                            self.messages.entry(pproc).or_default().push((time, key));
                        }
                    }
                }
            }
            _ => {}
        }
        // Held back to the earliest open stretch; when too much is held, the open
        // stretches before the horizon are reported up to it.
        if self.buf.len() > HOLD {
            let mut stretches = std::mem::take(&mut self.stretches);
            for p in self.states.open_before(cx.horizon) {
                self.states.cut(p, cx.horizon, |p, a, b, st| stretches.push((p, a, b, st)));
            }
            self.stretches = stretches;
            self.take_stretches(cx);
        }
        self.release(Self::key(cx.horizon.min(self.states.earliest_open())))
    }

    fn finish(
        &mut self,
        cx: &Context<'_>,
        end: Ticks,
        _out: &mut dyn Write,
    ) -> io::Result<Vec<(&'static str, String)>> {
        let mut stretches = std::mem::take(&mut self.stretches);
        self.states.finish(end, cx.procs(), |p, a, b, st| stretches.push((p, a, b, st)));
        self.stretches = stretches;
        self.take_stretches(cx);
        for (p, region) in std::mem::take(&mut self.in_wait) {
            self.push(end, Rec::Leave { loc: p, region });
        }
        self.release(Ticks::MAX)?;
        let mut counts = BTreeMap::new();
        for (&p, f) in self.files.iter_mut() {
            counts.insert(p, f.finish()?);
            // Local definitions: none, but readers open the file.
            let def = f.path.with_extension("def");
            let _ = fs::remove_file(&def);
            ChunkedFile::new(def, DEF_CHUNK as usize).finish()?;
        }
        let anchor = self.definitions(cx, end, &counts)?;
        let [a, _, _] = Self::parts(&self.name);
        fs::write(self.dir.join(a), anchor)?;
        let events: u64 = counts.values().sum();
        Ok(vec![("events", events.to_string())])
    }

    fn late(&self) -> u64 {
        self.buf.late()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_integers_follow_otf2() {
        // 0 and the all-ones value in one byte; otherwise length byte + significant bytes.
        let enc = |v: u64, max: u64| {
            let mut b = Vec::new();
            put_compressed(&mut b, v, max);
            b
        };
        assert_eq!(enc(0, u64::from(u32::MAX)), [0]);
        assert_eq!(enc(u64::from(u32::MAX), u64::from(u32::MAX)), [0xff]);
        assert_eq!(enc(5, u64::MAX), [1, 5]);
        assert_eq!(enc(0x1234, u64::MAX), [2, 0x34, 0x12]);
        assert_eq!(enc(1 << 32, u64::MAX), [5, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn message_records_encode_as_type_length_data() {
        // MpiSend to rank 3, communicator 0, tag 300, 4 bytes: type 14, length 8, then
        // [1 3] [0] [2 0x2c 0x01] [1 4] = 2 + 1 + 3 + 2 = 8 bytes of data.
        let mut b = Vec::new();
        Rec::Send { loc: 0, to: 3, comm: 0, tag: 300, bytes: 4 }.encode(&mut b);
        assert_eq!(b, [EVT_MPI_SEND, 8, 1, 3, 0, 2, 0x2c, 0x01, 1, 4]);
    }

    #[test]
    fn records_longer_than_254_bytes_use_the_long_length() {
        let mut b = Vec::new();
        put_record(&mut b, 10, &[7; 300]);
        assert_eq!(&b[..10], &[10, 255, 44, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(b.len(), 10 + 300);
    }

    #[test]
    fn chunks_are_cut_and_numbered() {
        let dir = std::env::temp_dir().join(format!("cppe-otf2-chunks-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("0.evt");
        let _ = fs::remove_file(&path);
        let mut f = ChunkedFile::new(path.clone(), CHUNK);
        // 40 000 enters of 2 bytes, each with its own 9-byte timestamp: 440 000 bytes,
        // more than one chunk.
        for t in 0..40_000u64 {
            f.push(Some(t + 1), &[EVT_ENTER, 0]).unwrap();
        }
        assert_eq!(f.finish().unwrap(), 40_000);
        let bytes = fs::read(&path).unwrap();
        assert!(bytes.len() > CHUNK);
        // First chunk: events 1..=n; the second starts at n + 1 with a timestamp.
        let last1 = u64::from_le_bytes(bytes[10..18].try_into().unwrap());
        let second = &bytes[CHUNK..];
        assert_eq!(&second[..2], &[CHUNK_HEADER, LITTLE_ENDIAN]);
        assert_eq!(u64::from_le_bytes(second[2..10].try_into().unwrap()), last1 + 1);
        assert_eq!(u64::from_le_bytes(second[10..18].try_into().unwrap()), 40_000);
        assert_eq!(second[18], TIMESTAMP);
        assert_eq!(&bytes[bytes.len() - 2..], &[END_OF_FILE, END_OF_BUFFER]);
        // The first chunk is padded with end-of-chunk bytes.
        assert_eq!(bytes[CHUNK - 1], 0);
        fs::remove_dir_all(&dir).unwrap();
    }
}
