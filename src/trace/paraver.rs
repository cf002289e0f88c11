//! The Paraver writer (`--format paraver`): the `.prv` records, and the `.pcf` (state and
//! event names) and `.row` (row names) companions.
//!
//! Depends on [`super::convert`]. Model: one node, one application, one task per physical
//! processor with one thread; CPU `p + 1` is processor `p` and runs task `p + 1` (Paraver
//! ids are 1-based). Times are nanoseconds, one time unit being one microsecond. The
//! header line (`#Paraver (01/01/2026 at 00:00):FINAL_ns:1(P):1:P(1:1,…)`, a fixed date so
//! outputs are deterministic) needs the final time, known only at the end of the run
//! record: [`ParaverWriter`] writes the records only and returns the header line in
//! [`super::convert::Report::extra`] as `prv-header`; `cptrace` writes it in front.
//!
//! Records: `1:cpu:1:task:1:begin:end:1` Running for every busy interval (idle time is
//! left without a state, which Paraver shows as Idle); `2:…:time:70000004:pid+1` when a
//! process starts and `…:70000004:0` when it ends; `2:…:time:70000003:1` when a process
//! starts waiting in a receive and `…:70000003:0` when the receive completes;
//! `2:…:time:70000001:id:70000002:label+1` for a probe; and
//! `3:cpu_s:1:task_s:1:send:send:cpu_r:1:task_r:1:recv_call:arrival:bytes:tag` for every
//! channel message whose send and receive are kept (tag = flat channel element), placed
//! at its receive. Records are sorted by time (a state by its begin).
use super::convert::{nanos, Context, Reorder, TraceWriter};
use super::event::{Event, MsgPurpose, Reason, Ticks};
use std::collections::BTreeMap;
use std::io::{self, Write};

/// The fixed date of every header.
pub const DATE: &str = "01/01/2026 at 00:00";

/// Writes Paraver records.
#[derive(Debug, Default)]
pub struct ParaverWriter {
    tpu: Ticks,
    buf: Reorder<String>,
    pproc_of: BTreeMap<u32, u32>,
    /// Message → (sender's processor, send time, tag), until received.
    sent: BTreeMap<u64, (u32, Ticks, u32)>,
    arrived: BTreeMap<u64, Ticks>,
    call: BTreeMap<u32, Ticks>,
    waiting: BTreeMap<u32, ()>,
}

impl ParaverWriter {
    /// A new writer.
    pub fn new() -> ParaverWriter {
        ParaverWriter { tpu: 1000, ..ParaverWriter::default() }
    }

    fn ns(&self, t: Ticks) -> u64 {
        nanos(t, self.tpu)
    }

    fn event_record(&mut self, t: Ticks, p: u32, pairs: &[(u32, i64)]) {
        let mut s = format!("2:{}:1:{}:1:{}", p + 1, p + 1, self.ns(t));
        for (ty, v) in pairs {
            s.push_str(&format!(":{ty}:{v}"));
        }
        self.buf.push(t, s);
    }
}

/// The `.pcf` file: states, colours and event types, with the probe labels as values.
pub fn pcf(labels: &[String]) -> String {
    let mut s = String::from(
        "DEFAULT_OPTIONS\n\nLEVEL               CPU\nUNITS               NANOSEC\nLOOK_BACK           100\nSPEED               1\nFLAG_ICONS          ENABLED\nNUM_OF_STATE_COLORS 1000\nYMAX_SCALE          37\n\n\nDEFAULT_SEMANTIC\n\nTHREAD_FUNC          State As Is\n\n\nSTATES\n0    Idle\n1    Running\n2    Not created\n3    Waiting a message\n\n\nSTATES_COLOR\n0    {117,195,255}\n1    {0,0,255}\n2    {255,255,255}\n3    {255,0,0}\n\n\nEVENT_TYPE\n0    70000001    Probe id\n\n\nEVENT_TYPE\n0    70000002    Probe label\nVALUES\n",
    );
    for (i, l) in labels.iter().enumerate() {
        s.push_str(&format!("{}      {}\n", i + 1, l.replace('\n', " ")));
    }
    s.push_str("\n\nEVENT_TYPE\n0    70000003    Waiting in a receive\nVALUES\n0      No\n1      Yes\n");
    s.push_str("\n\nEVENT_TYPE\n0    70000004    Process (id + 1)\nVALUES\n0      None\n");
    s
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
        Ok(())
    }

    fn event(&mut self, e: &Event, cx: &Context<'_>, out: &mut dyn Write) -> io::Result<()> {
        match *e {
            Event::Busy { pproc, start, end, .. } => {
                let s = format!("1:{}:1:{}:1:{}:{}:1", pproc + 1, pproc + 1, self.ns(start), self.ns(end));
                self.buf.push(start, s);
            }
            Event::ProcCreate { time, pid, pproc, .. } => {
                self.pproc_of.insert(pid, pproc);
                self.event_record(time, pproc, &[(70000004, i64::from(pid) + 1)]);
            }
            Event::ProcEnd { time, pid } => {
                if let Some(p) = self.pproc_of.remove(&pid) {
                    self.event_record(time, p, &[(70000004, 0)]);
                }
            }
            Event::RecvCall { time, pid, pproc, .. } => {
                self.pproc_of.insert(pid, pproc);
                self.call.insert(pid, time);
            }
            Event::State { time, pid, reason: Reason::Channel { .. }, .. } => {
                if let Some(&p) = self.pproc_of.get(&pid) {
                    self.waiting.insert(pid, ());
                    self.event_record(time, p, &[(70000003, 1)]);
                }
            }
            Event::MsgSend { time, msg, src_pproc, purpose: MsgPurpose::Channel { channel, index }, .. } => {
                self.sent.insert(msg, (src_pproc, time, cx.channel_element(channel, index)));
            }
            Event::MsgArrive { time, msg, .. } if self.sent.contains_key(&msg) => {
                self.arrived.insert(msg, time);
            }
            Event::RecvDone { time, pid, pproc, msg, bytes, .. } => {
                if self.waiting.remove(&pid).is_some() {
                    self.event_record(time, pproc, &[(70000003, 0)]);
                }
                let call = self.call.remove(&pid).unwrap_or(time);
                let arrival = self.arrived.remove(&msg);
                if let Some((sp, st, tag)) = self.sent.remove(&msg) {
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
            _ => {}
        }
        self.buf.release(cx.horizon, |_, s| writeln!(out, "{s}"))
    }

    fn finish(&mut self, cx: &Context<'_>, end: Ticks, out: &mut dyn Write) -> io::Result<Vec<(&'static str, String)>> {
        self.buf.release(Ticks::MAX, |_, s| writeln!(out, "{s}"))?;
        Ok(vec![
            ("prv-header", header_line(self.ns(end), cx.header.pprocs)),
            ("pcf", pcf(cx.labels)),
            ("row", row(cx.header.pprocs)),
        ])
    }

    fn late(&self) -> u64 {
        self.buf.late()
    }
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
        let p = pcf(&["phase A".into()]);
        assert!(p.contains("70000002    Probe label\nVALUES\n1      phase A\n"), "{p}");
        assert!(p.contains("STATES\n0    Idle\n1    Running\n"));
    }
}
