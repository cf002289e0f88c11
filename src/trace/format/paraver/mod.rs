//! The Paraver writer (`--format paraver`): the `.prv` records, and the `.pcf` (state and
//! event names) and `.row` (row names) companions.
//!
//! Depends on [`crate::trace::convert`]. Model: one node, one application, one task per physical
//! processor with one thread; CPU `p + 1` is processor `p` and runs task `p + 1` (Paraver
//! ids are 1-based). Times are nanoseconds, one time unit being one microsecond. The
//! header line (`#Paraver (01/01/2026 at 00:00):FINAL_ns:1(P):1:P(1:1,…)`, a fixed date so
//! outputs are deterministic) needs the final time, known only at the end of the run
//! record: [`ParaverWriter`] writes the records only and returns the header line in
//! [`crate::trace::convert::Report::extra`] as `prv-header`; `cptrace` writes it in front.
//!
//! Records: `1:cpu:1:task:1:begin:end:state` for every stretch of every processor's time:
//! Running (1) for its busy intervals, and between them the state of its waiting
//! processes ([`crate::trace::states`]: 3 waiting a message, 20 waiting for a remote read, 5
//! for a lock, 7 for children, 21 delayed) or Idle (0), named in the `.pcf`; `2:…:time:70000004:pid+1` when a
//! process starts and `…:70000004:0` when it ends; `2:…:time:70000003:1` when a process
//! starts waiting in a receive and `…:70000003:0` when the receive completes;
//! `2:…:time:70000001:id:70000002:label+1` for a probe; `2:…:time:70000005:f+1` when a
//! process on the processor calls function `f` (index into the function table) and the
//! caller's value (0: back in the process's own function) at the return, in every busy
//! interval the call spans ([`crate::trace::calls`]), and for an MPI call of an MPI
//! program Extrae's MPI event in the same record (`50000001` point-to-point, `50000002`
//! collective, `50000003` other, with Extrae's value of the call, `0` at the return), so
//! Paraver's MPI views read them; and
//! `3:cpu_s:1:task_s:1:send:send:cpu_r:1:task_r:1:recv_call:arrival:bytes:tag` for every
//! channel message whose send and receive are kept (tag = flat channel element), placed
//! at its receive. Records are sorted by time (a state by its begin).
use crate::dense::DenseMap;
use crate::time::Ticks;
use crate::trace::calls::{CallMark, CallSplitter};
use crate::trace::convert::{nanos, Context, Reorder, TraceWriter};
use crate::trace::event::{Event, MsgPurpose, Reason};
use crate::trace::states::{PState, ProcessorStates, Stretch};
use std::fmt::Write as _;
use std::io::{self, Write};

/// The fixed date of every header.
pub const DATE: &str = "01/01/2026 at 00:00";

/// Writes Paraver records.
#[derive(Debug, Default)]
pub struct ParaverWriter {
    tpu: Ticks,
    buf: Reorder<String>,
    pproc_of: DenseMap<u32>,
    /// Message → (sender's processor, send time, tag), until received.
    sent: DenseMap<(u32, Ticks, u32)>,
    arrived: DenseMap<Ticks>,
    call: DenseMap<Ticks>,
    waiting: DenseMap<()>,
    /// The processors' states; every selected processor is begun in it, so that its
    /// open stretch holds the output back (a state record begins there once its end is
    /// known, and records are sorted by their begin).
    states: ProcessorStates,
    /// The stretches an event closed, to be written.
    stretches: Vec<Stretch>,
    /// The start of the selected window.
    from: Ticks,
    /// The processes' calls, placed in their busy intervals.
    calls: CallSplitter,
    marks: Vec<CallMark>,
    /// Per function of the header: its Extrae MPI event (type, value), for an MPI call of
    /// an MPI program.
    mpi: Vec<Option<(u32, i64)>>,
}

/// The records held before open stretches are cut to let them go (bounded memory).
const HOLD: usize = 1 << 16;

impl ParaverWriter {
    /// A new writer.
    pub fn new() -> ParaverWriter {
        // Messages are numbered in sending order and mostly received in it.
        ParaverWriter { tpu: 1000, sent: DenseMap::sliding(), arrived: DenseMap::sliding(), ..ParaverWriter::default() }
    }

    fn ns(&self, t: Ticks) -> u64 {
        nanos(t, self.tpu)
    }

    /// A state record for processor `p` over `[a, b)` (clipped to the window's start).
    fn state_record(&mut self, p: u32, a: Ticks, b: Ticks, st: PState) {
        let a = a.max(self.from);
        if b > a {
            let s = format!("1:{}:1:{}:1:{}:{}:{}", p + 1, p + 1, self.ns(a), self.ns(b), st.paraver());
            self.buf.push(a, s);
        }
    }

    fn event_record(&mut self, t: Ticks, p: u32, pairs: &[(u32, i64)]) {
        let mut s = format!("2:{}:1:{}:1:{}", p + 1, p + 1, self.ns(t));
        for (ty, v) in pairs {
            let _ = write!(s, ":{ty}:{v}");
        }
        self.buf.push(t, s);
    }
}

/// The `.pcf` file: states, colours and event types, with the probe labels as values.
pub fn pcf(labels: &[String], functions: &[String]) -> String {
    let mut s = String::from(
        "DEFAULT_OPTIONS\n\nLEVEL               CPU\nUNITS               NANOSEC\nLOOK_BACK           100\nSPEED               1\nFLAG_ICONS          ENABLED\nNUM_OF_STATE_COLORS 1000\nYMAX_SCALE          37\n\n\nDEFAULT_SEMANTIC\n\nTHREAD_FUNC          State As Is\n\n\nSTATES\n",
    );
    let mut states: Vec<PState> = PState::ALL.to_vec();
    states.sort_by_key(|s| s.paraver());
    for st in &states {
        let name = match st {
            PState::Idle => "Idle".to_string(),
            PState::Running => "Running".to_string(),
            PState::Message => "Waiting a message".to_string(),
            other => {
                let n = other.name();
                n[..1].to_uppercase() + &n[1..]
            }
        };
        s.push_str(&format!("{:<4} {name}\n", st.paraver()));
    }
    s.push_str("\n\nSTATES_COLOR\n");
    for st in &states {
        let [r, g, b] = crate::trace::states::palette::rgb(st.colour());
        let rgb = format!("{{{r},{g},{b}}}");
        s.push_str(&format!("{:<4} {rgb}\n", st.paraver()));
    }
    s.push_str("\n\nEVENT_TYPE\n0    70000001    Probe id\n");
    // A VALUES block needs at least one value: the labels, when there are any.
    s.push_str("\n\nEVENT_TYPE\n0    70000002    Probe label\n");
    if !labels.is_empty() {
        s.push_str("VALUES\n");
        for (i, l) in labels.iter().enumerate() {
            s.push_str(&format!("{}      {}\n", i + 1, l.replace('\n', " ")));
        }
    }
    s.push_str("\n\nEVENT_TYPE\n0    70000003    Waiting in a receive\nVALUES\n0      No\n1      Yes\n");
    s.push_str("\n\nEVENT_TYPE\n0    70000004    Process (id + 1)\nVALUES\n0      None\n");
    s.push_str("\n\nEVENT_TYPE\n0    70000005    Function called (index + 1)\nVALUES\n0      None (the process's own function)\n");
    for (i, f) in functions.iter().enumerate() {
        s.push_str(&format!("{}      {}\n", i + 1, f.replace('\n', " ")));
    }
    // The MPI calls of an MPI program, as Extrae names them: one event type per group,
    // the calls of the program as its values.
    let mpi = mpi_events(functions);
    for (ty, label) in MPI_TYPES {
        let mut values: Vec<(i64, &str)> = functions
            .iter()
            .zip(&mpi)
            .filter_map(|(f, e)| e.filter(|e| e.0 == ty).map(|e| (e.1, f.as_str())))
            .collect();
        if values.is_empty() {
            continue;
        }
        values.sort();
        s.push_str(&format!("\n\nEVENT_TYPE\n9    {ty}    {label}\nVALUES\n"));
        for (v, f) in values {
            s.push_str(&format!("{v}   {f}\n"));
        }
        s.push_str("0   End\n");
    }
    s
}

/// Extrae's MPI event types: point-to-point, collective, other.
const MPI_TYPES: [(u32, &str); 3] =
    [(50000001, "MPI Point-to-point"), (50000002, "MPI Collective Comm"), (50000003, "MPI Other")];

/// The Extrae MPI event (type, value) of each function of `functions`, when the program is
/// an MPI program (it has `MPI_Init`) and the function is an MPI call of cpcc's subset;
/// the values are Extrae's (its `MPI_EventEncoding.h`), so Paraver's MPI views and
/// configurations read them.
fn mpi_events(functions: &[String]) -> Vec<Option<(u32, i64)>> {
    let mpi = functions.iter().any(|f| f == "MPI_Init");
    functions
        .iter()
        .map(|f| {
            if !mpi {
                return None;
            }
            let (ty, v) = match f.strip_prefix("MPI_")? {
                "Send" => (1, 1),
                "Recv" => (1, 2),
                "Isend" => (1, 3),
                "Irecv" => (1, 4),
                "Wait" => (1, 5),
                "Waitall" => (1, 6),
                "Bcast" => (2, 7),
                "Barrier" => (2, 8),
                "Reduce" => (2, 9),
                "Allreduce" => (2, 10),
                "Alltoall" => (2, 11),
                "Gather" => (2, 13),
                "Gatherv" => (2, 14),
                "Scatter" => (2, 15),
                "Scatterv" => (2, 16),
                "Allgather" => (2, 17),
                "Comm_rank" => (3, 19),
                "Comm_size" => (3, 20),
                "Comm_dup" => (3, 22),
                "Comm_split" => (3, 23),
                "Comm_free" => (3, 25),
                "Scan" => (2, 30),
                "Init" => (3, 31),
                "Finalize" => (3, 32),
                "Ssend" => (1, 34),
                "Test" => (3, 39),
                "Sendrecv" => (1, 41),
                "Sendrecv_replace" => (1, 42),
                "Cart_create" => (3, 43),
                "Cart_shift" => (3, 44),
                "Cart_coords" => (3, 45),
                "Cart_get" => (3, 46),
                "Cart_rank" => (3, 48),
                "Cartdim_get" => (3, 50),
                "Dims_create" => (3, 51),
                "Waitany" => (1, 59),
                "Probe" => (1, 61),
                "Iprobe" => (1, 62),
                "Abort" => (3, 100),
                "Initialized" => (3, 108),
                "Wtick" => (3, 109),
                "Wtime" => (3, 110),
                "Request_free" => (3, 115),
                "Get_count" => (3, 118),
                _ => return None,
            };
            Some((50000000 + ty, v))
        })
        .collect()
}

/// The `.row` file: CPU, node and thread names.
pub fn row(pprocs: u32) -> String {
    let names: String = (0..pprocs).map(|p| format!("P{p}\n")).collect();
    format!("LEVEL CPU SIZE {pprocs}\n{names}\nLEVEL NODE SIZE 1\nnode\n\nLEVEL THREAD SIZE {pprocs}\n{names}")
}

/// The `.prv` header line for a run of `final_ns` nanoseconds on `pprocs` processors.
pub fn header_line(final_ns: u64, pprocs: u32) -> String {
    let threads: Vec<&str> = (0..pprocs).map(|_| "1:1").collect();
    format!("#Paraver ({DATE}):{final_ns}_ns:1({pprocs}):1:{pprocs}({})", threads.join(","))
}

impl TraceWriter for ParaverWriter {
    fn begin(&mut self, cx: &Context<'_>, _out: &mut dyn Write) -> io::Result<()> {
        self.tpu = cx.header.ticks_per_unit;
        self.from = cx.selection.from.unwrap_or(0);
        self.mpi = mpi_events(&cx.header.functions);
        for p in cx.procs() {
            self.states.begin(p, self.from);
        }
        Ok(())
    }

    fn event(&mut self, e: &Event, cx: &Context<'_>, out: &mut dyn Write) -> io::Result<()> {
        let mut stretches = std::mem::take(&mut self.stretches);
        self.states.each(e, |p, a, b, st| stretches.push((p, a, b, st)));
        for &(p, a, b, st) in &stretches {
            if cx.selection.proc(p) {
                self.state_record(p, a, b, st);
            }
        }
        stretches.clear();
        self.stretches = stretches;
        match *e {
            Event::ProcCreate { time, pid, pproc, .. } => {
                self.pproc_of.insert(u64::from(pid), pproc);
                self.event_record(time, pproc, &[(70000004, i64::from(pid) + 1)]);
            }
            Event::ProcEnd { time, pid } => {
                if let Some(p) = self.pproc_of.remove(u64::from(pid)) {
                    self.event_record(time, p, &[(70000004, 0)]);
                }
            }
            Event::RecvCall { time, pid, pproc, .. } => {
                self.pproc_of.insert(u64::from(pid), pproc);
                self.call.insert(u64::from(pid), time);
            }
            Event::State { time, pid, reason: Reason::Channel { .. }, .. } => {
                if let Some(&p) = self.pproc_of.get(u64::from(pid)) {
                    self.waiting.insert(u64::from(pid), ());
                    self.event_record(time, p, &[(70000003, 1)]);
                }
            }
            Event::MsgSend { time, msg, src_pproc, purpose: MsgPurpose::Channel { channel, index }, .. } => {
                self.sent.insert(msg, (src_pproc, time, cx.channel_element(channel, index)));
            }
            Event::MsgArrive { time, msg, .. } if self.sent.get(msg).is_some() => {
                self.arrived.insert(msg, time);
            }
            Event::RecvDone { time, pid, pproc, msg, bytes, .. } => {
                if self.waiting.remove(u64::from(pid)).is_some() {
                    self.event_record(time, pproc, &[(70000003, 0)]);
                }
                let call = self.call.remove(u64::from(pid)).unwrap_or(time);
                let arrival = self.arrived.remove(msg);
                if let Some((sp, st, tag)) = self.sent.remove(msg) {
                    let arrival = arrival.unwrap_or(time);
                    let s = format!(
                        "3:{}:1:{}:1:{}:{}:{}:1:{}:1:{}:{}:{bytes}:{tag}",
                        sp + 1,
                        sp + 1,
                        self.ns(st),
                        self.ns(st),
                        pproc + 1,
                        pproc + 1,
                        self.ns(call),
                        self.ns(arrival)
                    );
                    self.buf.push(time, s);
                }
            }
            Event::Probe { time, pproc, id, label, .. } => {
                self.event_record(time, pproc, &[(70000001, i64::from(id)), (70000002, i64::from(label) + 1)]);
            }
            Event::Enter { .. } | Event::Leave { .. } => self.calls.event(e),
            Event::Busy { pproc, pid, start, end, .. } if self.calls.any() && cx.selection.proc(pproc) => {
                // The function called at every instant of the interval: its index + 1 at
                // an entry, the caller's (0 for the process's own function) at a return.
                let mut marks = std::mem::take(&mut self.marks);
                self.calls.interval(pid, start, end, &mut marks);
                let mut stack: Vec<u32> = Vec::new();
                for m in &marks {
                    if m.enter {
                        stack.push(m.function);
                    } else {
                        stack.pop();
                    }
                    let value = stack.last().map_or(0, |&f| i64::from(f) + 1);
                    // An MPI call is also Extrae's MPI event: its value at the call, 0 (End)
                    // at the return.
                    match self.mpi.get(m.function as usize).copied().flatten() {
                        Some((ty, v)) => {
                            let v = if m.enter { v } else { 0 };
                            self.event_record(m.time, pproc, &[(70000005, value), (ty, v)]);
                        }
                        None => self.event_record(m.time, pproc, &[(70000005, value)]),
                    }
                }
                self.marks = marks;
            }
            _ => {}
        }
        // Held back to the earliest open stretch; when too much is held, the open
        // stretches before the horizon are cut there and written in two records.
        if self.buf.len() > HOLD {
            let mut stretches = std::mem::take(&mut self.stretches);
            for p in self.states.open_before(cx.horizon) {
                self.states.cut(p, cx.horizon, |p, a, b, st| stretches.push((p, a, b, st)));
            }
            for &(p, a, b, st) in &stretches {
                self.state_record(p, a, b, st);
            }
            stretches.clear();
            self.stretches = stretches;
        }
        let hold = self.states.earliest_open();
        self.buf.release(cx.horizon.min(hold), |_, s| writeln!(out, "{s}"))
    }

    fn finish(&mut self, cx: &Context<'_>, end: Ticks, out: &mut dyn Write) -> io::Result<Vec<(&'static str, String)>> {
        let mut stretches = Vec::new();
        self.states.finish(end, cx.procs(), |p, a, b, st| stretches.push((p, a, b, st)));
        for (p, a, b, st) in stretches {
            self.state_record(p, a, b, st);
        }
        self.buf.release(Ticks::MAX, |_, s| writeln!(out, "{s}"))?;
        Ok(vec![
            ("prv-header", header_line(self.ns(end), cx.header.pprocs)),
            ("pcf", pcf(cx.labels, &cx.header.functions)),
            ("row", row(cx.header.pprocs)),
        ])
    }

    fn late(&self) -> u64 {
        self.buf.late()
    }
}

/// Writes the Paraver trace `prv` and its `.pcf` and `.row` beside it from the run record
/// `input` (named `name` in errors). The `.prv`'s header holds the final time, known at
/// the end: the records go to a scratch file first, then header and records into the
/// `.prv`.
pub fn write_files(
    input: Box<dyn std::io::Read>,
    sel: crate::trace::filter::Selection,
    prv: &std::path::Path,
    name: &str,
) -> Result<crate::trace::convert::Report, super::WriteError> {
    use super::WriteError;
    use std::io::BufWriter;
    let dir = super::folder_of(prv);
    let stem = prv.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let scratch = dir.join(format!(".{stem}.body{}", std::process::id()));
    let at = super::output_error;
    let result = (|| {
        let file = std::fs::File::create(&scratch).map_err(at(prv))?;
        let mut body = BufWriter::new(file);
        let mut writer = ParaverWriter::new();
        let report = crate::trace::convert::convert_with(input, &mut writer, sel, &mut body).map_err(|e| match e {
            crate::trace::convert::ConvertError::Io(io) => WriteError::Output { path: prv.to_path_buf(), source: io },
            source => WriteError::Input { name: name.to_string(), source },
        })?;
        body.flush().map_err(at(prv))?;
        drop(body);
        let extra = |ext: &str| report.extra.iter().find(|(e, _)| *e == ext).map(|(_, s)| s.as_str()).unwrap_or("");
        let mut file = crate::cli::AtomicFile::create(prv).map_err(at(prv))?;
        writeln!(file, "{}", extra("prv-header")).map_err(at(prv))?;
        let mut records = std::fs::File::open(&scratch).map_err(at(prv))?;
        std::io::copy(&mut records, &mut file).map_err(at(prv))?;
        // The three files are one set: none replaces an older one unless all are written.
        let mut set = crate::cli::OutputSet::new();
        set.add_file(file).map_err(at(prv))?;
        for ext in ["pcf", "row"] {
            let path = prv.with_extension(ext);
            set.add(&path, extra(ext).as_bytes()).map_err(at(&path))?;
        }
        set.commit().map_err(at(prv))?;
        Ok(report)
    })();
    let _ = std::fs::remove_file(&scratch);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_names_one_task_per_processor() {
        // 2720 units = 2 720 000 ns; 3 processors, each one task with one thread on node 1.
        assert_eq!(header_line(2_720_000, 3), "#Paraver (01/01/2026 at 00:00):2720000_ns:1(3):1:3(1:1,1:1,1:1)");
    }

    #[test]
    fn row_file_lists_every_cpu() {
        let r = row(2);
        assert!(r.starts_with("LEVEL CPU SIZE 2\nP0\nP1\n"), "{r}");
    }

    #[test]
    fn pcf_lists_labels_from_one() {
        let p = pcf(&["phase A".into()], &["main".into(), "f".into()]);
        assert!(p.contains("70000005    Function called (index + 1)\nVALUES\n0      None (the process's own function)\n1      main\n2      f\n"), "{p}");
        assert!(p.contains("70000002    Probe label\nVALUES\n1      phase A\n"), "{p}");
        assert!(p.contains("STATES\n0    Idle\n1    Running\n3    Waiting a message\n"), "{p}");
        // No labels, no VALUES block for them (an empty one is ill-formed).
        assert!(!pcf(&[], &[]).contains("Probe label\nVALUES"));
    }
}
