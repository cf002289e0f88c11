//! The Chrome Trace Event JSON writer (`--format chrome`), for Perfetto and
//! chrome://tracing.
//!
//! Depends on [`crate::trace::convert`]. Layout: one process (`pid` 0, named after the program)
//! with one thread per selected physical processor (`tid` = processor, named `P<n>` by
//! `thread_name` metadata and ordered by `thread_sort_index`); an `X` slice per busy
//! interval (name: the function the process runs, category `busy`, args: process, line,
//! class), inside it an `X` slice per procedure call open in it (category `call`, named
//! by the function, args: process and depth; a call that spans several intervals shows
//! in each; [`crate::trace::calls`]), and one per idle stretch in which the processor's processes wait (category
//! `state`, named by what they wait for: [`crate::trace::states`]) — a processor's intervals
//! and stretches never overlap, so only calls nest, inside their interval; `i` instants for
//! process creation and end and for probes; a `C` counter "busy processors" that steps at
//! every change; and a flow per message (`s` at the send on the sender's track, `f` with
//! `"bp":"e"` at the receive — the arrival for remote-memory traffic — on the receiver's
//! track, sharing an `id`), written once both ends are known and kept. Times are
//! microseconds with three decimals: one time unit is one microsecond.
use crate::time::Ticks;
use crate::trace::calls::{CallMark, CallSplitter};
use crate::trace::convert::{units, Activity, Context, Decimal, Reorder, TraceWriter};
use crate::trace::event::{BusyClass, Event, MsgPurpose};
use crate::trace::states::{PState, ProcessorStates, Stretch};
use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Write};

pub use crate::textio::json_string;

/// A sent message waiting for its receive: sender's processor, send time, whether it is
/// channel traffic (ended by its receive) rather than remote memory (ended by arrival).
#[derive(Debug, Clone, Copy)]
struct Sent {
    pproc: u32,
    time: Ticks,
    channel: bool,
}

/// Writes Chrome Trace Event JSON.
#[derive(Debug)]
pub struct ChromeWriter {
    tpu: Ticks,
    first: bool,
    /// Process → (function name, end time once ended).
    procs: BTreeMap<u32, (String, Option<Ticks>)>,
    /// `(end, pid)` of the ended processes still in `procs`, in the order of their ends.
    ended: VecDeque<(Ticks, u32)>,
    sent: BTreeMap<u64, Sent>,
    buf: Reorder<(u32, bool)>,
    activity: Activity,
    /// The selected processors busy at the instant being accumulated. Every processor
    /// starts busy; [`Activity`] marks it idle from the trace's start unless an
    /// interval starts there.
    busy: BTreeMap<u32, ()>,
    /// The selected processors: the counter counts only those.
    selected: BTreeMap<u32, ()>,
    at: Option<Ticks>,
    shown: Option<usize>,
    states: ProcessorStates,
    /// The stretches an event closed, to be written.
    stretches: Vec<Stretch>,
    from: Ticks,
    /// The processes' calls, placed in their busy intervals.
    calls: CallSplitter,
    marks: Vec<CallMark>,
}

impl Default for ChromeWriter {
    fn default() -> Self {
        ChromeWriter::new()
    }
}

impl ChromeWriter {
    /// A new writer.
    pub fn new() -> ChromeWriter {
        ChromeWriter {
            tpu: 1000,
            first: true,
            procs: BTreeMap::new(),
            ended: VecDeque::new(),
            sent: BTreeMap::new(),
            buf: Reorder::default(),
            activity: Activity::default(),
            busy: BTreeMap::new(),
            selected: BTreeMap::new(),
            at: None,
            shown: None,
            states: ProcessorStates::default(),
            stretches: Vec::new(),
            from: 0,
            calls: CallSplitter::default(),
            marks: Vec::new(),
        }
    }

    /// Writes one record of the `traceEvents` array, formatted straight into `out`.
    fn emit(&mut self, out: &mut dyn Write, json: std::fmt::Arguments<'_>) -> io::Result<()> {
        if self.first {
            self.first = false;
            writeln!(out, "{json}")
        } else {
            writeln!(out, ",{json}")
        }
    }

    fn ts(&self, t: Ticks) -> Decimal {
        units(t, self.tpu)
    }

    /// Writes the counter value for the instant being accumulated, if it changed.
    fn flush_counter(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if let Some(t) = self.at {
            let n = self.busy.len();
            if self.shown != Some(n) {
                self.shown = Some(n);
                self.emit(
                    out,
                    format_args!(
                        r#"{{"ph":"C","name":"busy processors","pid":0,"ts":{},"args":{{"busy":{n}}}}}"#,
                        self.ts(t)
                    ),
                )?;
            }
        }
        Ok(())
    }

    fn release(&mut self, horizon: Ticks, out: &mut dyn Write) -> io::Result<()> {
        let mut changes = Vec::new();
        self.buf.release(horizon, |t, c| {
            changes.push((t, c));
            Ok(())
        })?;
        for (t, (p, idle)) in changes {
            if self.at != Some(t) {
                self.flush_counter(out)?;
                self.at = Some(t);
            }
            if !self.selected.contains_key(&p) {
                continue;
            }
            if idle {
                self.busy.remove(&p);
            } else {
                self.busy.insert(p, ());
            }
        }
        Ok(())
    }

    fn name_of(&self, pid: u32) -> String {
        self.procs.get(&pid).map_or_else(|| format!("process {pid}"), |(f, _)| f.clone())
    }
}

impl TraceWriter for ChromeWriter {
    fn begin(&mut self, cx: &Context<'_>, out: &mut dyn Write) -> io::Result<()> {
        self.tpu = cx.header.ticks_per_unit;
        writeln!(out, r#"{{"displayTimeUnit":"ns","traceEvents":["#)?;
        let title = format!("{} on {}", cx.header.program, cx.header.topology);
        self.emit(
            out,
            format_args!(
                r#"{{"ph":"M","name":"process_name","pid":0,"tid":0,"args":{{"name":{}}}}}"#,
                json_string(&title)
            ),
        )?;
        let procs: Vec<u32> = cx.procs().collect();
        for &p in &procs {
            self.emit(
                out,
                format_args!(r#"{{"ph":"M","name":"thread_name","pid":0,"tid":{p},"args":{{"name":"P{p}"}}}}"#),
            )?;
            self.emit(
                out,
                format_args!(
                    r#"{{"ph":"M","name":"thread_sort_index","pid":0,"tid":{p},"args":{{"sort_index":{p}}}}}"#
                ),
            )?;
        }
        self.selected = procs.iter().map(|&p| (p, ())).collect();
        self.from = cx.selection.from.unwrap_or(0);
        for &p in &procs {
            self.states.open(p, self.from);
        }
        self.busy = self.selected.clone();
        self.activity.begin(procs.into_iter(), cx.selection.from.unwrap_or(0), &mut self.buf, |p, i| (p, i));
        Ok(())
    }

    fn event(&mut self, e: &Event, cx: &Context<'_>, out: &mut dyn Write) -> io::Result<()> {
        let mut stretches = std::mem::take(&mut self.stretches);
        self.states.each(e, |p, a, b, st| stretches.push((p, a, b, st)));
        for &(p, a, b, st) in &stretches {
            self.state_slice(p, a, b, st, out)?;
        }
        stretches.clear();
        self.stretches = stretches;
        match *e {
            Event::Busy { pproc, pid, start, end, line, class } if self.selected.contains_key(&pproc) => {
                let class = match class {
                    BusyClass::Work => "work",
                    BusyClass::Overhead => "overhead",
                };
                self.emit(out, format_args!(
                    r#"{{"ph":"X","name":{},"cat":"busy","pid":0,"tid":{pproc},"ts":{},"dur":{},"args":{{"process":{pid},"line":{line},"class":"{class}"}}}}"#,
                    json_string(&self.name_of(pid)),
                    self.ts(start),
                    self.ts(end - start)
                ))?;
                self.activity.busy(pproc, start, end, &mut self.buf, |p, i| (p, i));
                // The calls inside the interval, as slices nested in it.
                if self.calls.any() {
                    let mut marks = std::mem::take(&mut self.marks);
                    self.calls.interval(pid, start, end, &mut marks);
                    let mut open: Vec<(Ticks, u32)> = Vec::new();
                    for m in &marks {
                        if m.enter {
                            open.push((m.time, m.function));
                        } else if let Some((t0, f)) = open.pop() {
                            let name = cx.header.function_name(f).map_or_else(|| format!("#{f}"), str::to_string);
                            self.emit(out, format_args!(
                                r#"{{"ph":"X","name":{},"cat":"call","pid":0,"tid":{pproc},"ts":{},"dur":{},"args":{{"process":{pid},"depth":{}}}}}"#,
                                json_string(&name),
                                self.ts(t0),
                                self.ts(m.time - t0),
                                m.depth
                            ))?;
                        }
                    }
                    self.marks = marks;
                }
            }
            Event::Enter { .. } | Event::Leave { .. } => self.calls.event(e),
            Event::ProcCreate { time, pid, pproc, function, .. } => {
                let f = cx.header.function_name(function).unwrap_or("?").to_string();
                self.emit(out, format_args!(
                    r#"{{"ph":"i","s":"t","name":{},"cat":"process","pid":0,"tid":{pproc},"ts":{},"args":{{"process":{pid}}}}}"#,
                    json_string(&format!("start {f} (process {pid})")),
                    self.ts(time)
                ))?;
                self.procs.insert(pid, (f, None));
            }
            Event::ProcEnd { time, pid } => {
                // Names stay until every interval ending at this time has been read: those
                // of processes that ended before it go (unless created again since).
                while let Some(&(t, p)) = self.ended.front().filter(|&&(t, _)| t < time) {
                    self.ended.pop_front();
                    if self.procs.get(&p).is_some_and(|(_, end)| *end == Some(t)) {
                        self.procs.remove(&p);
                    }
                }
                let name = self.name_of(pid);
                if let Some(entry) = self.procs.get_mut(&pid) {
                    entry.1 = Some(time);
                    self.ended.push_back((time, pid));
                }
                self.emit(
                    out,
                    format_args!(
                        r#"{{"ph":"i","s":"p","name":{},"cat":"process","pid":0,"ts":{},"args":{{"process":{pid}}}}}"#,
                        json_string(&format!("end {name} (process {pid})")),
                        self.ts(time)
                    ),
                )?;
            }
            Event::MsgSend { time, msg, src_pproc, purpose, .. } => {
                let channel = matches!(purpose, MsgPurpose::Channel { .. });
                self.sent.insert(msg, Sent { pproc: src_pproc, time, channel });
            }
            Event::RecvDone { time, pproc, msg, .. } => self.flow(msg, pproc, time, true, out)?,
            Event::MsgArrive { time, msg, dst_pproc } => self.flow(msg, dst_pproc, time, false, out)?,
            Event::Probe { time, pid, pproc, id, label } => {
                let text = cx.labels.get(label as usize).map_or("", String::as_str);
                self.emit(out, format_args!(
                    r#"{{"ph":"i","s":"t","name":{},"cat":"probe","pid":0,"tid":{pproc},"ts":{},"args":{{"process":{pid},"id":{id}}}}}"#,
                    json_string(text),
                    self.ts(time)
                ))?;
            }
            _ => {}
        }
        self.release(cx.horizon, out)
    }

    fn finish(
        &mut self,
        _cx: &Context<'_>,
        end: Ticks,
        out: &mut dyn Write,
    ) -> io::Result<Vec<(&'static str, String)>> {
        let mut stretches = Vec::new();
        let procs: Vec<u32> = self.selected.keys().copied().collect();
        self.states.finish(end, procs.into_iter(), |p, a, b, st| stretches.push((p, a, b, st)));
        for (p, a, b, st) in stretches {
            self.state_slice(p, a, b, st, out)?;
        }
        self.activity.close(end, &mut self.buf, |p, i| (p, i));
        self.release(Ticks::MAX, out)?;
        // Nothing runs after the end (the idle blocks closed there are no busy time).
        if self.at.is_none_or(|t| t < end) {
            self.flush_counter(out)?;
            self.at = Some(end);
        }
        self.busy.clear();
        self.flush_counter(out)?;
        writeln!(out, "]}}")?;
        Ok(Vec::new())
    }

    fn late(&self) -> u64 {
        self.buf.late()
    }
}

impl ChromeWriter {
    /// A slice for an idle stretch of a selected processor in a waiting state (category
    /// `state`, named by the state; idle stretches and busy ones, which have their own
    /// slices, are left out), clipped to the window's start.
    fn state_slice(&mut self, p: u32, a: Ticks, b: Ticks, st: PState, out: &mut dyn Write) -> io::Result<()> {
        let a = a.max(self.from);
        if b <= a || matches!(st, PState::Running | PState::Idle) || !self.selected.contains_key(&p) {
            return Ok(());
        }
        self.emit(
            out,
            format_args!(
                r#"{{"ph":"X","name":"{}","cat":"state","pid":0,"tid":{p},"ts":{},"dur":{},"args":{{"state":"{}"}}}}"#,
                st.name(),
                self.ts(a),
                self.ts(b - a),
                st.key()
            ),
        )
    }

    /// Ends message `msg`'s flow on processor `pproc` at `time`, if the send was kept and
    /// this is the event that ends this kind of message (`by_receive` for channel traffic).
    fn flow(&mut self, msg: u64, pproc: u32, time: Ticks, by_receive: bool, out: &mut dyn Write) -> io::Result<()> {
        let Some(s) = self.sent.get(&msg).copied() else { return Ok(()) };
        if s.channel != by_receive {
            return Ok(());
        }
        self.sent.remove(&msg);
        self.emit(
            out,
            format_args!(
                r#"{{"ph":"s","name":"message","cat":"message","id":{msg},"pid":0,"tid":{},"ts":{}}}"#,
                s.pproc,
                self.ts(s.time)
            ),
        )?;
        self.emit(
            out,
            format_args!(
                r#"{{"ph":"f","bp":"e","name":"message","cat":"message","id":{msg},"pid":0,"tid":{pproc},"ts":{}}}"#,
                self.ts(time)
            ),
        )
    }
}
