//! The ASCII Pablo Self-Defining Data Format writer (`--format sddf`; seed 001 Fig. 8-18).
//!
//! Depends on [`crate::trace::convert`] and [`crate::trace::filter::KINDS`]. The output is `SDDFA`, a
//! stream-attribute comment (creating program, program name, topology, ticks), one
//! record descriptor per selected event kind (`#1:` … `#13:` in the order of
//! [`crate::trace::filter::KINDS`], each field with a `// "name" "description"` attribute), then
//! one data record per kept event in run-record order (by time; a busy interval at its
//! end). Times are `double` seconds, one time unit being one microsecond; state, reason,
//! purpose and class are integer codes listed in the descriptors' attributes.
pub mod read;

use crate::time::Ticks;
use crate::trace::convert::{seconds, Context, TraceWriter};
use crate::trace::event::{BusyClass, Event, MsgPurpose, Reason, RunStats};
use crate::trace::filter::KINDS;
use std::io::{self, Write};

/// One descriptor: the record name and its fields as (type, name, description).
type Descriptor = (&'static str, &'static [(&'static str, &'static str, &'static str)]);

/// The descriptors, in the order of [`KINDS`]; the tag of `KINDS[i]` is `i + 1`.
pub const DESCRIPTORS: [Descriptor; 17] = [
    (
        "proc_init",
        &[
            ("double", "time", "Seconds (1 time unit = 1 us)"),
            ("int", "processor", "Physical processor"),
            ("int", "process", "Process id"),
            ("int", "parent", "Creating process, -1 for process 0"),
            ("int", "virtual processor", "Virtual processor, -1 if none"),
            ("int", "function", "Function index"),
            ("int", "line", "Source line of the fork"),
        ],
    ),
    ("proc_exit", &[("double", "time", "Seconds"), ("int", "process", "Process id")]),
    (
        "state",
        &[
            ("double", "time", "Seconds"),
            ("int", "process", "Process id"),
            ("int", "state", "0 ready 1 running 2 blocked 3 delayed 4 spinning 5 ended"),
            ("int", "reason", "0 none 1 channel 2 join 3 forall 4 lock 5 remote read 6 delay 7 quantum 8 children"),
            ("int", "detail", "Channel element, lock address, owner or wake-up tick; else 0"),
        ],
    ),
    (
        "msg_send",
        &[
            ("double", "time", "Seconds"),
            ("int", "message", "Message id"),
            ("int", "source process", "Sending process"),
            ("int", "source processor", "Sender's processor"),
            ("int", "destination process", "Receiving process, -1 for remote memory traffic"),
            ("int", "destination processor", "Destination processor"),
            ("int", "purpose", "0 channel 1 remote read 2 remote reply 3 remote write"),
            ("int", "detail", "Channel element or word address"),
            ("int", "bytes", "Payload bytes"),
            ("int", "line", "Source line"),
        ],
    ),
    (
        "msg_arr",
        &[
            ("double", "time", "Seconds"),
            ("int", "message", "Message id"),
            ("int", "processor", "Destination processor"),
        ],
    ),
    (
        "recv_call",
        &[
            ("double", "time", "Seconds"),
            ("int", "process", "Receiving process"),
            ("int", "processor", "Its processor"),
            ("int", "channel element", "Flat channel element number"),
            ("int", "line", "Source line"),
        ],
    ),
    (
        "recv_done",
        &[
            ("double", "time", "Seconds"),
            ("int", "process", "Receiving process"),
            ("int", "processor", "Its processor"),
            ("int", "message", "Message id"),
            ("int", "source process", "Sending process"),
            ("int", "bytes", "Payload bytes"),
        ],
    ),
    (
        "hop",
        &[
            ("double", "time", "Seconds, when the tail left the link"),
            ("double", "enter", "Seconds, when the head entered the link"),
            ("int", "message", "Message id (-1: memory or process-creation traffic, which has no send record)"),
            ("int", "packet", "Packet number"),
            ("int", "from", "Processor the link leaves"),
            ("int", "to", "Processor the link enters"),
        ],
    ),
    (
        "probe",
        &[
            ("double", "time", "Seconds"),
            ("int", "process", "Process id"),
            ("int", "processor", "Its processor"),
            ("int", "id", "User probe id"),
            ("int", "label", "Label index (see the label records)"),
        ],
    ),
    ("label", &[("double", "time", "Seconds"), ("int", "index", "Label index"), ("char", "text[]", "Label text")]),
    ("time_off", &[("double", "time", "Seconds"), ("int", "process", "Process id")]),
    ("time_on", &[("double", "time", "Seconds"), ("int", "process", "Process id")]),
    (
        "busy",
        &[
            ("double", "time", "Seconds, end of the interval"),
            ("double", "start", "Seconds, start of the interval"),
            ("int", "processor", "Physical processor"),
            ("int", "process", "Process id"),
            ("int", "line", "Source line"),
            ("int", "class", "0 work 1 overhead"),
        ],
    ),
    (
        "line_cost",
        &[
            ("double", "time", "Seconds, end of the run"),
            ("int", "line", "Source line"),
            ("double", "work", "Seconds of sequential work on the line"),
            ("double", "overhead", "Seconds of parallel overhead on the line"),
        ],
    ),
    (
        "deadlock",
        &[
            ("double", "time", "Seconds, when the cycle of blocked packets was resolved"),
            ("int", "message", "Message id (-1: memory or process-creation traffic)"),
            ("int", "packet", "Packet of the message taken out of the lanes"),
            ("int", "processor", "Where its head waited"),
        ],
    ),
    (
        "proc_enter",
        &[
            ("double", "time", "Seconds, when the callee starts"),
            ("int", "pid", "Process"),
            ("int", "function", "Function entered (index into the function table)"),
        ],
    ),
    (
        "proc_leave",
        &[
            ("double", "time", "Seconds, when the return ends"),
            ("int", "pid", "Process"),
            ("int", "function", "Function left (index into the function table)"),
        ],
    ),
];

/// The stream attribute that carries the record header's names (functions, channels,
/// probe labels, the source file's name and text): the hexadecimal digits of
/// [`crate::trace::record::encode_names`].
pub const NAMES_ATTRIBUTE: &str = "cppe names";

/// The tag of the `run_stats` descriptor that `cptrace --stats` appends (after the
/// tags of [`DESCRIPTORS`]).
pub const STATS_TAG: usize = DESCRIPTORS.len() + 1;

/// The tag of the `event_count` descriptor that ends every trace `cptrace` writes: its one
/// record counts the event records before it, so that a reader that finds another
/// number knows records were deleted or repeated (as a run record's footer tells its
/// reader).
pub const COUNT_TAG: usize = DESCRIPTORS.len() + 2;

/// The fields of the `event_count` record.
pub const COUNT_FIELDS: [(&str, &str, &str); 1] = [("int", "records", "Event records in the trace before this one")];

/// The fields of the `run_stats` record.
pub const STATS_FIELDS: [(&str, &str, &str); 8] = [
    ("double", "time", "Seconds, the parallel time"),
    ("int", "sequential ticks", "Sequential Execution Time in ticks"),
    ("int", "parallel ticks", "Parallel Execution Time in ticks"),
    ("int", "processors used", "Physical processors that ran an instruction"),
    ("int", "messages", "Messages sent"),
    ("int", "bytes", "Payload bytes sent"),
    ("int", "latency ticks", "Sum over messages of arrival minus send time, ticks"),
    ("int", "ticks per unit", "Ticks per time unit"),
];

/// The run's final statistics as a `run_stats` descriptor and data record, for
/// `cptrace --stats`, so that `cpperf` on the trace reports the simulator's sequential
/// time and speedup.
pub fn stats_records(stats: &RunStats, tpu: Ticks) -> String {
    let mut o = format!("#{STATS_TAG}:\n// \"event\" \"run_stats\"\n\"run_stats\" {{\n");
    for (ty, field, desc) in STATS_FIELDS {
        o.push_str(&format!("\t// {} {}\n\t{ty} {};\n", quote(field), quote(desc), quote(field)));
    }
    o.push_str("};;\n\n");
    o.push_str(&format!(
        "\"run_stats\" {{ {}, {}, {}, {}, {}, {}, {}, {tpu} }};;\n",
        seconds(stats.par_ticks, tpu),
        stats.seq_ticks,
        stats.par_ticks,
        stats.pprocs_used,
        stats.messages,
        stats.bytes,
        stats.total_latency_ticks
    ));
    o
}

/// Writes ASCII SDDF.
#[derive(Debug, Default)]
pub struct SddfWriter {
    tpu: Ticks,
    /// Event records written ([`COUNT_TAG`]).
    records: u64,
}

impl SddfWriter {
    /// A new writer.
    pub fn new() -> SddfWriter {
        SddfWriter { tpu: 1000, records: 0 }
    }
}

/// Quotes `s` for SDDF: backslashes and double quotes escaped.
/// The message id of a link crossing or a resolved deadlock: the record's `u64::MAX`
/// (traffic without a send record: remote memory, process creation) is -1, a value an
/// SDDF `int` can hold.
fn traffic_id(msg: u64) -> String {
    if msg == u64::MAX {
        "-1".to_string()
    } else {
        msg.to_string()
    }
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn reason_code(r: Reason, cx: &Context<'_>) -> (u8, u64) {
    (r.code(), r.detail(|channel, index| u64::from(cx.channel_element(channel, index))))
}

fn opt(v: Option<u32>) -> i64 {
    v.map_or(-1, i64::from)
}

/// Writes one record of the event kind `kind` (a plain name, quoted as is), `"kind" { v1,
/// v2, … };;`, each value by its `Display`, straight into `out`.
fn record(out: &mut dyn Write, kind: &str, values: &[&dyn std::fmt::Display]) -> io::Result<()> {
    write!(out, "\"{kind}\" {{ ")?;
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.write_all(b", ")?;
        }
        write!(out, "{v}")?;
    }
    writeln!(out, " }};;")
}

impl TraceWriter for SddfWriter {
    fn begin(&mut self, cx: &Context<'_>, out: &mut dyn Write) -> io::Result<()> {
        self.tpu = cx.header.ticks_per_unit;
        let h = cx.header;
        writeln!(out, "{}", read::FIRST_LINE)?;
        writeln!(out, "/*")?;
        writeln!(out, " * \"creation program\" \"cptrace\"")?;
        writeln!(out, " * \"program\" {}", quote(&h.program))?;
        writeln!(out, " * \"topology\" {}", quote(&h.topology))?;
        writeln!(out, " * \"processors\" \"{}\"", h.pprocs)?;
        writeln!(out, " * \"time unit\" \"1 time unit = 1 microsecond\"")?;
        if let Some(m) = h.network_links() {
            // The network's directed links, for the network load.
            writeln!(out, " * {} \"{m}\"", quote(crate::trace::event::LINKS_PARAM))?;
        }
        // The header's names (functions, channels, labels, the source; the source left
        // out past 256 KiB), as hex of their record encoding, so that the reports name
        // what the record names.
        let names = crate::trace::record::encode_names(h, 256 << 10);
        let hex: String = names.iter().map(|b| format!("{b:02x}")).collect();
        writeln!(out, " * {} \"{hex}\"", quote(NAMES_ATTRIBUTE))?;
        if let Some(from) = cx.selection.from {
            // A cut trace: `cpperf` counts its times from the window's start.
            writeln!(out, " * \"window from\" \"{}\"", seconds(from, self.tpu))?;
        }
        if cx.selection.procs.is_some() || cx.selection.kinds.is_some() {
            // Some processors or kinds only: not every send of a receive is here.
            writeln!(out, " * \"selection\" \"part of the run\"")?;
        }
        writeln!(out, " */ ;;")?;
        writeln!(out)?;
        for (i, (name, fields)) in DESCRIPTORS.iter().enumerate() {
            if cx.selection.kinds.as_ref().is_some_and(|k| !k.contains(name)) {
                continue;
            }
            writeln!(out, "#{}:", i + 1)?;
            writeln!(out, "// \"event\" {}", quote(KINDS[i]))?;
            writeln!(out, "{} {{", quote(name))?;
            for (ty, field, desc) in fields.iter() {
                let (base, dims) = field.split_once('[').map_or((*field, ""), |(b, _)| (b, "[]"));
                writeln!(out, "\t// {} {}", quote(base), quote(desc))?;
                writeln!(out, "\t{ty} {}{dims};", quote(base))?;
            }
            writeln!(out, "}};;")?;
            writeln!(out)?;
        }
        Ok(())
    }

    fn event(&mut self, e: &Event, cx: &Context<'_>, out: &mut dyn Write) -> io::Result<()> {
        self.records += 1;
        let s = |t: Ticks| seconds(t, self.tpu);
        let kind = e.kind_name();
        match e {
            Event::ProcCreate { time, parent, pid, vproc, pproc, function, line } => {
                record(out, kind, &[&s(*time), pproc, pid, &opt(*parent), &opt(*vproc), function, line])
            }
            Event::ProcEnd { time, pid } | Event::TimeOff { time, pid } | Event::TimeOn { time, pid } => {
                record(out, kind, &[&s(*time), pid])
            }
            Event::State { time, pid, state, reason } => {
                let (r, d) = reason_code(*reason, cx);
                record(out, kind, &[&s(*time), pid, &state.code(), &r, &d])
            }
            Event::MsgSend { time, msg, src_pid, src_pproc, dst_pid, dst_pproc, purpose, bytes, line } => {
                let (code, detail) = match *purpose {
                    MsgPurpose::Channel { channel, index } => (0, cx.channel_element(channel, index)),
                    MsgPurpose::RemoteRead { addr } => (1, addr),
                    MsgPurpose::RemoteReply { addr } => (2, addr),
                    MsgPurpose::RemoteWrite { addr } => (3, addr),
                };
                record(
                    out,
                    kind,
                    &[&s(*time), msg, src_pid, src_pproc, &opt(*dst_pid), dst_pproc, &code, &detail, bytes, line],
                )
            }
            Event::MsgArrive { time, msg, dst_pproc } => record(out, kind, &[&s(*time), msg, dst_pproc]),
            Event::RecvCall { time, pid, pproc, channel, index, line } => {
                record(out, kind, &[&s(*time), pid, pproc, &cx.channel_element(*channel, *index), line])
            }
            Event::RecvDone { time, pid, pproc, msg, src_pid, bytes } => {
                record(out, kind, &[&s(*time), pid, pproc, msg, src_pid, bytes])
            }
            Event::Hop { msg, packet, from, to, enter, leave } => {
                record(out, kind, &[&s(*leave), &s(*enter), &traffic_id(*msg), packet, from, to])
            }
            Event::Probe { time, pid, pproc, id, label } => record(out, kind, &[&s(*time), pid, pproc, id, label]),
            Event::Label { time, index, text } => {
                let text = format!("[{}] {{ {} }}", text.len(), quote(text));
                record(out, kind, &[&s(*time), index, &text])
            }
            Event::Busy { pproc, pid, start, end, line, class } => {
                let class = match class {
                    BusyClass::Work => 0,
                    BusyClass::Overhead => 1,
                };
                record(out, kind, &[&s(*end), &s(*start), pproc, pid, line, &class])
            }
            Event::LineCost { time, line, work, overhead } => {
                record(out, kind, &[&s(*time), line, &s(*work), &s(*overhead)])
            }
            Event::Deadlock { time, msg, packet, pproc } => {
                record(out, kind, &[&s(*time), &traffic_id(*msg), packet, pproc])
            }
            Event::Enter { time, pid, function } | Event::Leave { time, pid, function } => {
                record(out, kind, &[&s(*time), pid, function])
            }
        }
    }

    fn finish(
        &mut self,
        _cx: &Context<'_>,
        _end: Ticks,
        out: &mut dyn Write,
    ) -> io::Result<Vec<(&'static str, String)>> {
        writeln!(out, "#{COUNT_TAG}:\n// \"event\" \"event_count\"\n\"event_count\" {{")?;
        for (ty, field, desc) in COUNT_FIELDS {
            writeln!(out, "\t// {} {}\n\t{ty} {};", quote(field), quote(desc), quote(field))?;
        }
        writeln!(out, "}};;\n")?;
        writeln!(out, "\"event_count\" {{ {} }};;", self.records)?;
        Ok(Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_follow_the_kind_order() {
        // Tag i + 1 describes KINDS[i], so `--events` names and record names agree.
        for (i, (name, fields)) in DESCRIPTORS.iter().enumerate() {
            assert_eq!(*name, KINDS[i]);
            assert_eq!(fields[0].1, "time", "{name}: every record starts with its time");
        }
    }

    #[test]
    fn quoting_escapes_quotes_and_backslashes() {
        assert_eq!(quote(r#"a"b\c"#), r#""a\"b\\c""#);
    }
}
