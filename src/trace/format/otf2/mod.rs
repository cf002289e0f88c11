//! The OTF2 writer (`--format otf2`): an archive that Score-P's readers (`otf2-print`,
//! Vampir, Scalasca's analysers) open, written by this module alone, without the C
//! library.
//!
//! Depends on [`crate::trace::convert`] and [`crate::trace::states`].
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
//! OTF2 describes programs made of threads that enter and leave regions; a CPC process is
//! such a thread, and a physical processor the "process" (location group) that hosts it.
//!
//! - **Clock:** one tick per OTF2 timer tick; the resolution is the run record's ticks
//!   per time unit times 10⁶, one time unit being one microsecond as in every other
//!   format `cptrace` writes.
//! - **System tree and locations:** one machine node (named after the topology); each
//!   physical processor `p` is a location group `P{p}`; each process `n` of the run is a
//!   location `n` (a CPU thread, named after its number and function) in the group of the
//!   processor it was placed on. `--procs` keeps the events of the processes placed on
//!   those processors and leaves the other locations empty.
//! - **Regions are calls:** a process enters its function's region when it is created and
//!   leaves it when it ends, and enters and leaves the region of every function it calls
//!   at the call and the return, so a reader's call counts are the program's: on the
//!   seed's matrix product `main` is entered once and `multiply` 64 times. Waits are
//!   regions of their own, nested in the function that waits: "waiting for a message",
//!   "… a remote read", "… a lock", "… children", "delayed" (the states of
//!   [`crate::trace::states`]) and "waiting for the processor" (ready while another process
//!   of its processor runs). A function's exclusive time is therefore the time its
//!   process ran in it. A wait that ends at the instant it began is not written.
//! - **MPI programs** (those with `MPI_Init`): an MPI call is a region of paradigm MPI
//!   with Score-P's role for it (`mpi_role`: point-to-point, barrier, the collectives by
//!   shape, else function), and the ranks' mailbox channel is the communicator
//!   `MPI_COMM_WORLD` (messages are addressed by world rank; the record does not keep the
//!   MPI tag, so the tag is the element index, the receiving rank, as for every channel).
//!   The run record has no region for the library's insides (see `cpss`).
//! - **Communicators:** one per channel of the program, over a group whose rank `n` is
//!   process `n` (location `n`). A channel message is an `MpiSend` on the sender at the
//!   send (receiver = the receiving process, tag = the element's flat index in the
//!   channel, length = bytes) and an `MpiRecv` on the receiver when the receive completes.
//!   Remote reads and writes are not messages here: their waits are the "waiting for a
//!   remote read" region.
//! - **Windows:** with `--from`/`--to`, the regions open at the window's start are entered
//!   at it, those open at its end are left at it, and nothing outside it is written, so
//!   every region nests. The writer sees every event of the record to know the calls open
//!   when the window begins.
//!
//! A location's records come in the record's order, which is time order for everything
//! but busy intervals (which this writer does not use), so each event file is written as
//! the record is read: no reordering. A location's file is finished when its process ends;
//! a partial chunk is held in memory up to [`SPILL`] bytes and then appended, its header
//! patched when the chunk is complete, so memory stays small however many processes are
//! alive. The archive has one event file per process.
use crate::time::Ticks;
use crate::trace::convert::{Context, TraceWriter};
use crate::trace::event::{Event, MsgPurpose, ProcState, Reason};
use crate::trace::states::{wait_of, PState};
use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
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
const ROLE_BARRIER: u8 = 15;
const ROLE_COLL_ONE2ALL: u8 = 23;
const ROLE_COLL_ALL2ONE: u8 = 24;
const ROLE_COLL_ALL2ALL: u8 = 25;
const ROLE_COLL_OTHER: u8 = 26;
const ROLE_POINT2POINT: u8 = 28;
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
    Enter { region: u32 },
    Leave { region: u32 },
    Send { to: u32, comm: u32, tag: u32, bytes: u32 },
    Recv { from: u32, comm: u32, tag: u32, bytes: u32 },
}

impl Rec {
    /// Appends its encoding (without the timestamp).
    fn encode(self, b: &mut Vec<u8>) {
        match self {
            Rec::Enter { region } => {
                b.push(EVT_ENTER);
                put_u32(b, region);
            }
            Rec::Leave { region } => {
                b.push(EVT_LEAVE);
                put_u32(b, region);
            }
            Rec::Send { to: peer, comm, tag, bytes } | Rec::Recv { from: peer, comm, tag, bytes } => {
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

/// A partial chunk longer than this is appended to its file (its header is patched when
/// the chunk is complete), so a location holds at most this much in memory.
pub const SPILL: usize = 16 * 1024;

/// A chunked OTF2 file (events, or definitions), written chunk by chunk: every chunk
/// is `size` bytes but the last, and its header numbers its first and last events.
#[derive(Debug)]
struct ChunkedFile {
    path: PathBuf,
    size: usize,
    /// The current chunk's bytes not yet appended to the file.
    chunk: Vec<u8>,
    /// Bytes of the current chunk already appended (0: its header is still in `chunk`).
    spilled: usize,
    /// The file's length: where the current chunk starts plus `spilled`.
    len: u64,
    /// Events in the chunks already written.
    before: u64,
    /// Events in the current chunk.
    events: u64,
    /// The last timestamp written in the current chunk.
    time: Option<Ticks>,
}

impl ChunkedFile {
    fn new(path: PathBuf, size: usize) -> ChunkedFile {
        let mut f = ChunkedFile { path, size, chunk: Vec::new(), spilled: 0, len: 0, before: 0, events: 0, time: None };
        f.header();
        f
    }

    fn header(&mut self) {
        self.chunk.clear();
        self.spilled = 0;
        self.chunk.extend_from_slice(&[CHUNK_HEADER, LITTLE_ENDIAN]);
        self.chunk.extend_from_slice(&(self.before + 1).to_le_bytes());
        self.chunk.extend_from_slice(&0u64.to_le_bytes());
        self.time = None;
    }

    fn append(&mut self) -> io::Result<()> {
        let mut f = OpenOptions::new().create(true).append(true).open(&self.path)?;
        f.write_all(&self.chunk)?;
        self.len += self.chunk.len() as u64;
        self.spilled += self.chunk.len();
        self.chunk.clear();
        Ok(())
    }

    /// Patches the chunk's last event number and appends it to the file, `pad`ded to a
    /// whole chunk with end-of-chunk bytes (every chunk but the last).
    fn flush(&mut self, pad: bool) -> io::Result<()> {
        let last = self.before + self.events;
        let spilled = self.spilled;
        if spilled == 0 {
            self.chunk[10..18].copy_from_slice(&last.to_le_bytes());
        }
        if pad {
            self.chunk.resize(self.size - spilled, 0);
        }
        let start = self.len - spilled as u64;
        self.append()?;
        if spilled > 0 {
            let mut f = OpenOptions::new().write(true).open(&self.path)?;
            f.seek(SeekFrom::Start(start + 10))?;
            f.write_all(&last.to_le_bytes())?;
        }
        self.before = last;
        self.events = 0;
        Ok(())
    }

    /// The current chunk's length.
    fn chunk_len(&self) -> usize {
        self.spilled + self.chunk.len()
    }

    /// Appends one record, encoded in `rec`: an event at `Some(t)` (preceded by a
    /// timestamp when the time changes and at the start of a chunk), or a definition.
    /// Starts a new chunk when the record does not fit with its timestamp and the
    /// end-of-file and end-of-buffer bytes.
    fn push(&mut self, t: Option<Ticks>, rec: &[u8]) -> io::Result<()> {
        if self.chunk_len() + 9 + rec.len() + 2 >= self.size {
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
        if self.chunk.len() >= SPILL {
            self.append()?;
        }
        Ok(())
    }

    /// Writes the last chunk with the end-of-file and end-of-buffer bytes; returns the
    /// number of events. The buffer's memory is given back.
    fn finish(&mut self) -> io::Result<u64> {
        self.chunk.extend_from_slice(&[END_OF_FILE, END_OF_BUFFER]);
        self.flush(false)?;
        self.chunk = Vec::new();
        Ok(self.before)
    }
}

/// One process: a location.
#[derive(Debug)]
struct Loc {
    /// Its process id.
    pid: u32,
    /// Its processor (its location group).
    pproc: u32,
    /// The region of its function.
    function: u32,
    /// Whether its processor is selected.
    selected: bool,
    /// Regions open, outermost first: its function, then the functions it called.
    stack: Vec<u32>,
    /// The waiting region it is in and since when (written when it closes, unless empty).
    wait: Option<(u32, Ticks)>,
    /// Its event file (`None` once finished).
    file: Option<ChunkedFile>,
    /// Events written, once finished.
    events: u64,
    /// The time of its last record (a record out of order is moved up to it).
    last: Ticks,
}

/// Writes an OTF2 archive into a directory.
#[derive(Debug)]
pub struct Otf2Writer {
    dir: PathBuf,
    name: String,
    /// The processes in creation order: location `n` is the `n`th created (its id is
    /// `n` too in a record from the simulator, which numbers processes so).
    locs: Vec<Loc>,
    /// The locations of the processes whose id is not their place in `locs`.
    other: BTreeMap<u32, usize>,
    /// Channel message → (sending process, channel, element), until received.
    sent: BTreeMap<u64, (u32, u32, u32)>,
    /// The first region of the waiting states (in [`WAIT_REGIONS`] order).
    wait_base: u32,
    from: Ticks,
    to: Ticks,
    /// Whether the window has begun (records at or after `from` are written).
    open: bool,
    /// Whether it has ended (a record after `to` was read: nothing more is written).
    closed: bool,
    scratch: Vec<u8>,
    late: u64,
}

/// The waiting regions, in region order: the waiting states, then ready.
const WAIT_REGIONS: [&str; 6] = [
    PState::Message.name(),
    PState::RemoteRead.name(),
    PState::Lock.name(),
    PState::Children.name(),
    PState::Delay.name(),
    "waiting for the processor",
];

/// The place in [`WAIT_REGIONS`] of the wait a state change begins, if any.
fn wait_index(state: ProcState, reason: Reason) -> Option<u32> {
    if state == ProcState::Ready {
        return Some(5);
    }
    match wait_of(state, reason)? {
        PState::Message => Some(0),
        PState::RemoteRead => Some(1),
        PState::Lock => Some(2),
        PState::Children => Some(3),
        PState::Delay => Some(4),
        PState::Running | PState::Idle => None,
    }
}

/// Writes the OTF2 archive whose anchor is `anchor` (`NAME.otf2`) from the run record
/// `input` (named `name` in errors). Its files are written into a scratch directory beside
/// the anchor, then moved into place (an existing archive of the same name is replaced),
/// so a failed conversion leaves no half-written archive.
pub fn write_archive(
    input: Box<dyn std::io::Read>,
    sel: crate::trace::filter::Selection,
    anchor: &Path,
    name: &str,
) -> Result<crate::trace::convert::Report, super::WriteError> {
    use super::WriteError;
    let dir = super::folder_of(anchor);
    let stem = match (anchor.file_stem(), anchor.extension()) {
        (Some(s), Some(e)) if e == "otf2" => s.to_string_lossy().into_owned(),
        _ => {
            return Err(WriteError::Usage(format!(
                "{}: the OTF2 anchor file must be named NAME.otf2",
                anchor.display()
            )))
        }
    };
    let scratch = dir.join(format!(".{stem}.otf2-partial{}", std::process::id()));
    let at = super::output_error;
    // A folder made for the archive goes again if the archive fails.
    let mut folders = crate::cli::NewFolders::default();
    let result = (|| {
        folders.create(&dir).map_err(at(&dir))?;
        std::fs::create_dir_all(&scratch).map_err(at(&scratch))?;
        let mut writer = Otf2Writer::new(&scratch, &stem);
        let report = crate::trace::convert::convert_with(input, &mut writer, sel, &mut std::io::sink())
            .map_err(|source| WriteError::Input { name: name.to_string(), source })?;
        for part in Otf2Writer::parts(&stem) {
            let target = dir.join(&part);
            if target.is_dir() {
                std::fs::remove_dir_all(&target).map_err(at(&target))?;
            }
            std::fs::rename(scratch.join(&part), &target).map_err(at(&target))?;
        }
        Ok(report)
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    if result.is_ok() {
        folders.keep();
    }
    result
}

impl Otf2Writer {
    /// A writer of the archive `NAME.otf2` in `dir` (`name` without the extension); `dir`
    /// should hold no older `NAME/` (event files are appended to).
    pub fn new(dir: &Path, name: &str) -> Otf2Writer {
        Otf2Writer {
            dir: dir.to_path_buf(),
            name: name.to_string(),
            locs: Vec::new(),
            other: BTreeMap::new(),
            sent: BTreeMap::new(),
            wait_base: 0,
            from: 0,
            to: Ticks::MAX,
            open: false,
            closed: false,
            scratch: Vec::new(),
            late: 0,
        }
    }

    /// The files and directory an archive named `name` consists of, relative to its
    /// directory: the anchor, the global definitions and the per-location directory.
    pub fn parts(name: &str) -> [String; 3] {
        [format!("{name}.otf2"), format!("{name}.def"), name.to_string()]
    }

    /// Writes `rec` at `t` on `loc` if its processor is selected and the window is open.
    fn emit(open: bool, scratch: &mut Vec<u8>, late: &mut u64, loc: &mut Loc, t: Ticks, rec: Rec) -> io::Result<()> {
        if !open || !loc.selected {
            return Ok(());
        }
        let Some(file) = loc.file.as_mut() else { return Ok(()) };
        let t = if t < loc.last {
            *late += 1;
            loc.last
        } else {
            t
        };
        loc.last = t;
        scratch.clear();
        rec.encode(scratch);
        file.push(Some(t), scratch)
    }

    /// The location of process `pid`, if it was created.
    fn index(&self, pid: u32) -> Option<usize> {
        match self.locs.get(pid as usize) {
            Some(l) if l.pid == pid => Some(pid as usize),
            _ => self.other.get(&pid).copied(),
        }
    }

    /// Ends location `i`'s wait, if any, at `t`: its enter and leave are written if it
    /// lasted.
    fn end_wait(&mut self, i: usize, t: Ticks) -> io::Result<()> {
        let open = self.open && !self.closed;
        let Otf2Writer { locs, scratch, late, .. } = self;
        let loc = &mut locs[i];
        if let Some((region, since)) = loc.wait.take() {
            if t > since {
                Self::emit(open, scratch, late, loc, since, Rec::Enter { region })?;
                Self::emit(open, scratch, late, loc, t, Rec::Leave { region })?;
            }
        }
        Ok(())
    }

    /// Writes `rec` at `t` on location `i` (ending its wait first: a process that acts is
    /// not waiting).
    fn record(&mut self, i: usize, t: Ticks, rec: Rec) -> io::Result<()> {
        self.end_wait(i, t)?;
        let open = self.open && !self.closed;
        let Otf2Writer { locs, scratch, late, .. } = self;
        Self::emit(open, scratch, late, &mut locs[i], t, rec)
    }

    /// The window begins at `from`: every region open then is entered at it.
    fn open_window(&mut self) -> io::Result<()> {
        self.open = true;
        let from = self.from;
        let Otf2Writer { locs, scratch, late, .. } = self;
        for loc in locs.iter_mut() {
            for k in 0..loc.stack.len() {
                let region = loc.stack[k];
                Self::emit(true, scratch, late, loc, from, Rec::Enter { region })?;
            }
            if let Some((_, since)) = loc.wait.as_mut() {
                *since = (*since).max(from);
            }
        }
        Ok(())
    }

    /// Location `i`'s process ends at `t` (or the window or the run does): its wait and
    /// open regions are left, innermost first.
    fn leave_all(&mut self, i: usize, t: Ticks) -> io::Result<()> {
        self.end_wait(i, t)?;
        let open = self.open && !self.closed;
        let Otf2Writer { locs, scratch, late, .. } = self;
        let loc = &mut locs[i];
        while let Some(region) = loc.stack.pop() {
            Self::emit(open, scratch, late, loc, t, Rec::Leave { region })?;
        }
        Ok(())
    }

    /// Finishes location `i`'s event file.
    fn finish_file(&mut self, i: usize) -> io::Result<()> {
        let loc = &mut self.locs[i];
        if let Some(mut f) = loc.file.take() {
            loc.events = f.finish()?;
        }
        Ok(())
    }

    /// The window ends at `at`: every region still open is left at it.
    fn close_window(&mut self, at: Ticks) -> io::Result<()> {
        for i in 0..self.locs.len() {
            self.leave_all(i, at)?;
        }
        self.closed = true;
        Ok(())
    }

    /// The region of function `f` (an index into the header's table; others are the
    /// "unnamed" region).
    fn function_region(&self, f: u32) -> u32 {
        f.min(self.wait_base - 1)
    }

    /// Writes the global definitions file once every location's event count is known;
    /// returns the anchor file's contents. `locs[n]` is location `n`'s process id,
    /// processor, region and event count.
    fn definitions(&self, cx: &Context<'_>, end: Ticks, locs: &[(u32, u32, u32, u64)]) -> io::Result<Vec<u8>> {
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
        for (i, &(pid, pproc, region, events)) in locs.iter().enumerate() {
            let mut d = Vec::new();
            put_u64(&mut d, i as u64);
            let function = h.functions.get(region as usize).map_or("?", String::as_str);
            put_u32(&mut d, s(&format!("process {pid} ({function})")));
            d.push(LOCATION_CPU_THREAD);
            put_u64(&mut d, events);
            put_u32(&mut d, if pproc < h.pprocs { pproc } else { 0 });
            defs.push((DEF_LOCATION, d));
        }
        let source = s(&h.source_name);
        let empty = s("");
        let mpi = h.functions.iter().any(|f| f == "MPI_Init");
        let mut regions: Vec<(String, bool)> = h.functions.iter().map(|f| (f.clone(), true)).collect();
        regions.push(("(unnamed process)".to_string(), true));
        regions.extend(WAIT_REGIONS.iter().map(|w| (w.to_string(), false)));
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
            match (function, mpi.then(|| mpi_role(name)).flatten()) {
                (true, Some(role)) => d.extend([role, PARADIGM_MPI]),
                (true, None) => d.extend([ROLE_FUNCTION, PARADIGM_USER]),
                (false, _) => d.extend([ROLE_ARTIFICIAL, PARADIGM_MEASUREMENT]),
            }
            put_u32(&mut d, 0);
            defs.push((DEF_REGION, d));
        }
        if !h.channels.is_empty() {
            for (id, name, pre, kind) in [
                (0u32, "processes", GROUP_PRE12_MPI_LOCATIONS, GROUP_COMM_LOCATIONS),
                (1, "ranks", GROUP_PRE12_MPI_GROUP, GROUP_COMM_GROUP),
            ] {
                let mut d = Vec::new();
                put_u32(&mut d, id);
                put_u32(&mut d, s(name));
                d.push(pre);
                put_u32(&mut d, locs.len() as u32);
                for i in 0..locs.len() {
                    put_u64(&mut d, i as u64);
                }
                d.push(kind);
                d.push(PARADIGM_MPI);
                put_u32(&mut d, 0);
                defs.push((DEF_GROUP, d));
            }
            for (c, ch) in h.channels.iter().enumerate() {
                let mut d = Vec::new();
                put_u32(&mut d, c as u32);
                // The ranks' mailboxes carry every communicator's messages, addressed by
                // rank in MPI_COMM_WORLD.
                let name =
                    if mpi && ch.name == "MPI" { "MPI_COMM_WORLD".to_string() } else { format!("channel {}", ch.name) };
                put_u32(&mut d, s(&name));
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
        anchor.extend_from_slice(&(locs.len() as u64).to_le_bytes());
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
        fs::create_dir_all(self.dir.join(&self.name))
    }

    fn whole_record(&self) -> bool {
        true
    }

    fn event(&mut self, e: &Event, cx: &Context<'_>, _out: &mut dyn Write) -> io::Result<()> {
        if matches!(e, Event::Busy { .. } | Event::Hop { .. } | Event::LineCost { .. } | Event::Label { .. }) {
            return Ok(());
        }
        let t = e.time();
        if !self.open && t >= self.from {
            self.open_window()?;
        }
        if !self.closed && t > self.to {
            self.close_window(self.to)?;
        }
        match *e {
            Event::ProcCreate { time, pid, pproc, function, .. } => {
                let i = self.locs.len();
                if pid as usize != i {
                    self.other.insert(pid, i);
                }
                let path = self.dir.join(&self.name).join(format!("{i}.evt"));
                let region = self.function_region(function);
                self.locs.push(Loc {
                    pid,
                    pproc,
                    function: region,
                    selected: cx.selection.proc(pproc),
                    stack: vec![region],
                    wait: None,
                    file: Some(ChunkedFile::new(path, CHUNK)),
                    events: 0,
                    last: 0,
                });
                self.record(i, time, Rec::Enter { region })?;
            }
            Event::Enter { time, pid, function } => {
                if let Some(i) = self.index(pid) {
                    let region = self.function_region(function);
                    self.locs[i].stack.push(region);
                    self.record(i, time, Rec::Enter { region })?;
                }
            }
            Event::Leave { time, pid, function } => {
                let Some(i) = self.index(pid) else { return Ok(()) };
                let region = self.function_region(function);
                self.end_wait(i, time)?;
                let open = self.open && !self.closed;
                let Otf2Writer { locs, scratch, late, .. } = self;
                let loc = &mut locs[i];
                // The process's own function stays open until it ends.
                if let Some(k) = loc.stack.iter().rposition(|&r| r == region).filter(|&k| k > 0) {
                    while loc.stack.len() > k {
                        let r = loc.stack.pop().unwrap_or(region);
                        Self::emit(open, scratch, late, loc, time, Rec::Leave { region: r })?;
                    }
                }
            }
            Event::State { time, pid, state, reason } => {
                let Some(i) = self.index(pid) else { return Ok(()) };
                let want = wait_index(state, reason).map(|w| self.wait_base + w);
                if self.locs[i].wait.map(|w| w.0) != want {
                    self.end_wait(i, time)?;
                    self.locs[i].wait = want.map(|region| (region, time));
                }
            }
            Event::ProcEnd { time, pid } => {
                if let Some(i) = self.index(pid) {
                    self.leave_all(i, time)?;
                    self.finish_file(i)?;
                }
            }
            Event::MsgSend {
                time,
                msg,
                src_pid,
                dst_pid,
                purpose: MsgPurpose::Channel { channel, index },
                bytes,
                ..
            } => {
                let Some(i) = self.index(src_pid) else { return Ok(()) };
                self.sent.insert(msg, (i as u32, channel, index));
                let to = dst_pid.and_then(|d| self.index(d)).map_or(UNDEFINED, |r| r as u32);
                self.record(i, time, Rec::Send { to, comm: channel, tag: index, bytes })?;
            }
            Event::RecvDone { time, pid, msg, bytes, .. } => {
                if let (Some((from, comm, tag)), Some(i)) = (self.sent.remove(&msg), self.index(pid)) {
                    self.record(i, time, Rec::Recv { from, comm, tag, bytes })?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(
        &mut self,
        cx: &Context<'_>,
        end: Ticks,
        _out: &mut dyn Write,
    ) -> io::Result<Vec<(&'static str, String)>> {
        if !self.open {
            self.open_window()?;
        }
        if !self.closed {
            self.close_window(end)?;
        }
        let dir = self.dir.join(&self.name);
        let mut counts = Vec::with_capacity(self.locs.len());
        for i in 0..self.locs.len() {
            self.finish_file(i)?;
            // Local definitions: none, but readers open the file.
            ChunkedFile::new(dir.join(format!("{i}.def")), DEF_CHUNK as usize).finish()?;
            let loc = &self.locs[i];
            counts.push((loc.pid, loc.pproc, loc.function, loc.events));
        }
        let anchor = self.definitions(cx, end, &counts)?;
        let [a, _, _] = Self::parts(&self.name);
        fs::write(self.dir.join(a), anchor)?;
        let events: u64 = counts.iter().map(|c| c.3).sum();
        Ok(vec![("events", events.to_string())])
    }

    fn late(&self) -> u64 {
        self.late
    }
}

/// The OTF2 role of an MPI function's region, as Score-P's MPI adapter gives it: the
/// point-to-point calls, the barrier, the collectives by their shape (one to all, all to
/// one, all to all, `MPI_Scan` other), and every other MPI call (set-up, communicators,
/// requests, time) a function; `None` for a name that is not an MPI call.
fn mpi_role(name: &str) -> Option<u8> {
    let call = name.strip_prefix("MPI_")?;
    Some(match call {
        "Send" | "Recv" | "Ssend" | "Isend" | "Irecv" | "Sendrecv" | "Sendrecv_replace" | "Probe" | "Iprobe" => {
            ROLE_POINT2POINT
        }
        "Barrier" => ROLE_BARRIER,
        "Bcast" | "Scatter" | "Scatterv" => ROLE_COLL_ONE2ALL,
        "Reduce" | "Gather" | "Gatherv" => ROLE_COLL_ALL2ONE,
        "Allreduce" | "Allgather" | "Alltoall" => ROLE_COLL_ALL2ALL,
        "Scan" => ROLE_COLL_OTHER,
        _ => ROLE_FUNCTION,
    })
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
        Rec::Send { to: 3, comm: 0, tag: 300, bytes: 4 }.encode(&mut b);
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
