//! The ASCII SDDF reader: the records `cptrace --format sddf` writes (see
//! [`super`]) turned back into run-record events.
//!
//! The stream is `SDDFA`, an optional attribute comment (`/* … */ ;;`, whose `"program"`
//! and `"processors"` pairs are used), record descriptors (`#tag:` … `};;`, which must
//! have the fields of ours) and data records, one a line: `"name" { v, v, … };;`. Every
//! event of the run record is in the trace, so the analysis is that of the record, except
//! that names are gone: channels are numbered by flat element (channel 0, index = the
//! element), functions and labels by index. Depends on [`super`] (the descriptors), [`crate::trace`]
//! and nom.
use super::{COUNT_FIELDS, DESCRIPTORS, STATS_FIELDS};
use crate::time::{Ticks, TICKS_PER_UNIT};
use crate::trace::format::import::{derive_stats, parse_seconds, sort, ImportError, Imported, MAX_PPROC};
use crate::trace::{BusyClass, Event, MsgPurpose, ProcState, Reason, RunHeader, RunStats, LINKS_PARAM};
use nom::branch::alt;
use nom::bytes::complete::{escaped, is_not, tag, take_while1};
use nom::character::complete::{char as one, digit1, multispace0, one_of};
use nom::combinator::{map, recognize};
use nom::multi::separated_list0;
use nom::sequence::{delimited, pair, preceded, terminated, tuple};
use nom::IResult;
use std::collections::BTreeMap;
use std::io::BufRead;

/// The first line of an ASCII SDDF stream.
pub const FIRST_LINE: &str = "SDDFA";

/// A field value of a data record.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    /// A number as written.
    Num(String),
    /// A character array.
    Text(String),
}

fn quoted(i: &str) -> IResult<&str, String> {
    let body = escaped(is_not("\"\\"), '\\', one_of("\"\\"));
    map(delimited(one('"'), nom::combinator::opt(body), one('"')), |s: Option<&str>| {
        s.unwrap_or("").replace("\\\"", "\"").replace("\\\\", "\\")
    })(i)
}

fn number(i: &str) -> IResult<&str, &str> {
    take_while1(|c: char| c == '-' || c == '.' || c == '+' || c == 'e' || c == 'E' || c.is_ascii_digit())(i)
}

fn value(i: &str) -> IResult<&str, Value> {
    let ws = multispace0;
    alt((
        // `[n] { "text" }`
        map(
            preceded(
                tuple((one('['), digit1, one(']'), ws, one('{'), multispace0)),
                terminated(quoted, pair(multispace0, one('}'))),
            ),
            Value::Text,
        ),
        map(quoted, Value::Text),
        map(number, |s: &str| Value::Num(s.to_string())),
    ))(i)
}

/// `"name" { v, v, … };;`
fn record(i: &str) -> IResult<&str, (String, Vec<Value>)> {
    let sep = recognize(tuple((multispace0, one(','), multispace0)));
    tuple((
        terminated(quoted, multispace0),
        delimited(
            pair(one('{'), multispace0),
            separated_list0(sep, value),
            tuple((multispace0, one('}'), multispace0, tag(";;"))),
        ),
    ))(i)
}

/// A descriptor's record name and its field names, from its lines joined.
fn descriptor(text: &str) -> Option<(String, Vec<String>)> {
    let mut name = None;
    let mut fields = Vec::new();
    for l in text.lines().map(str::trim) {
        if l.starts_with("//") || l.starts_with('#') || l.is_empty() || l.starts_with("};;") {
            continue;
        }
        if name.is_none() {
            let (_, n) = quoted(l).ok()?;
            name = Some(n);
            continue;
        }
        // `type "field"[];`
        let q = l.find('"')?;
        let (_, f) = quoted(&l[q..]).ok()?;
        fields.push(f);
    }
    Some((name?, fields))
}

/// The field names of our record `name` (the writer's descriptors), if it is one.
fn our_fields(name: &str) -> Option<Vec<String>> {
    let strip = |f: &str| f.split('[').next().unwrap_or(f).to_string();
    if name == "run_stats" {
        return Some(STATS_FIELDS.iter().map(|f| strip(f.1)).collect());
    }
    if name == "event_count" {
        return Some(COUNT_FIELDS.iter().map(|f| strip(f.1)).collect());
    }
    DESCRIPTORS.iter().find(|d| d.0 == name).map(|d| d.1.iter().map(|f| strip(f.1)).collect())
}

/// Reads an ASCII SDDF trace.
pub fn read<R: BufRead>(input: R) -> Result<Imported, ImportError> {
    let mut events: Vec<Event> = Vec::new();
    let mut known: BTreeMap<String, usize> = BTreeMap::new();
    let mut header = RunHeader::default();
    let mut stats: Option<RunStats> = None;
    let mut pprocs_attr: Option<u32> = None;
    let mut window_from: Option<Ticks> = None;
    let (mut max_pproc, mut end) = (0u32, 0 as Ticks);
    // The records hold together as a run record's events do.
    let mut check = crate::trace::format::import::Consistency::default();
    // Event records read, and whether an `event_count` record counted them.
    let (mut records, mut counted) = (0u64, false);
    // Open comment or descriptor: (kind, first line, text so far).
    let mut open: Option<(char, usize, String)> = None;
    for (i, line) in crate::textio::lines(input, crate::textio::MAX_LINE).enumerate() {
        let n = i + 1;
        let err = |reason: String| ImportError { line: n, reason };
        let line = line.map_err(|e| err(format!("cannot read: {e}")))?;
        let l = line.trim();
        if n == 1 {
            if l != FIRST_LINE {
                return Err(err("not ASCII SDDF (the first line is not SDDFA)".into()));
            }
            continue;
        }
        if let Some((kind, first, mut text)) = open.take() {
            text.push_str(l);
            text.push('\n');
            match kind {
                'c' if l.contains("*/") => {
                    for a in text.lines() {
                        let a = a.trim_start_matches([' ', '*', '/']).trim();
                        let Ok((rest, k)) = quoted(a) else { continue };
                        let Ok((_, v)) = quoted(rest.trim()) else { continue };
                        match k.as_str() {
                            "program" => header.program = v,
                            "topology" => header.topology = v,
                            "processors" => pprocs_attr = v.parse().ok().filter(|&p| p <= MAX_PPROC),
                            "window from" => window_from = parse_seconds(&v),
                            "selection" => check.windowed(),
                            k if k == super::NAMES_ATTRIBUTE => {
                                let bytes: Option<Vec<u8>> = (0..v.len() / 2)
                                    .map(|i| v.get(2 * i..2 * i + 2).and_then(|x| u8::from_str_radix(x, 16).ok()))
                                    .collect();
                                let names =
                                    bytes.filter(|_| v.len() % 2 == 0).ok_or_else(|| "not hexadecimal".to_string());
                                names.and_then(|b| crate::trace::record::decode_names(&b, &mut header)).map_err(
                                    |r| ImportError { line: first, reason: format!("bad {k:?} attribute: {r}") },
                                )?;
                            }
                            k if k == LINKS_PARAM && v.parse::<u64>().is_ok() => {
                                header.network_params.push((k.to_string(), v))
                            }
                            _ => {}
                        }
                    }
                }
                'd' if l.ends_with("};;") => {
                    let (name, fields) = descriptor(&text)
                        .ok_or_else(|| ImportError { line: first, reason: "unreadable record descriptor".into() })?;
                    // Descriptors of records we do not know are fine: their data are skipped.
                    if let Some(ours) = our_fields(&name) {
                        if ours != fields {
                            return Err(ImportError {
                                line: first,
                                reason: format!("descriptor of {name:?} has fields {fields:?}, expected {ours:?}"),
                            });
                        }
                        known.insert(name, fields.len());
                    }
                }
                _ => open = Some((kind, first, text)),
            }
            continue;
        }
        if l.is_empty() || l.starts_with("//") {
            continue;
        }
        if l.starts_with("/*") {
            if !l.contains("*/") {
                open = Some(('c', n, format!("{l}\n")));
            }
            continue;
        }
        if l.starts_with('#') {
            open = Some(('d', n, format!("{l}\n")));
            continue;
        }
        let (name, vals) = match record(l) {
            Ok(("", r)) => r,
            _ => return Err(err(format!("not an SDDF data record: {l:?}"))),
        };
        let Some(&width) = known.get(&name) else {
            if our_fields(&name).is_some() {
                return Err(err(format!("record {name:?} before its descriptor")));
            }
            continue;
        };
        if vals.len() != width {
            return Err(err(format!("record {name:?} has {} values, its descriptor {width}", vals.len())));
        }
        let int = |k: usize| -> Result<i64, ImportError> {
            match &vals[k] {
                Value::Num(s) => {
                    s.parse().map_err(|_| err(format!("value {} of {name:?} ({s}) is not an integer", k + 1)))
                }
                Value::Text(_) => Err(err(format!("value {} of {name:?} is text, not a number", k + 1))),
            }
        };
        let u = |k: usize| -> Result<u32, ImportError> {
            let v = int(k)?;
            u32::try_from(v).map_err(|_| err(format!("value {} of {name:?} ({v}) is out of range", k + 1)))
        };
        let u64v = |k: usize| -> Result<u64, ImportError> {
            let v = int(k)?;
            u64::try_from(v).map_err(|_| err(format!("value {} of {name:?} ({v}) is negative", k + 1)))
        };
        let opt = |k: usize| -> Result<Option<u32>, ImportError> { Ok(u32::try_from(int(k)?).ok()) };
        let time = |k: usize| -> Result<Ticks, ImportError> {
            match &vals[k] {
                Value::Num(s) => parse_seconds(s).ok_or_else(|| err(format!("bad time {s:?} in {name:?}"))),
                Value::Text(_) => Err(err(format!("value {} of {name:?} is text, not a time", k + 1))),
            }
        };
        let e = match name.as_str() {
            "proc_init" => Event::ProcCreate {
                time: time(0)?,
                pproc: u(1)?,
                pid: u(2)?,
                parent: opt(3)?,
                vproc: opt(4)?,
                function: u(5)?,
                line: u(6)?,
            },
            "proc_exit" => Event::ProcEnd { time: time(0)?, pid: u(1)? },
            "time_off" => Event::TimeOff { time: time(0)?, pid: u(1)? },
            "time_on" => Event::TimeOn { time: time(0)?, pid: u(1)? },
            "state" => {
                let code = int(2)?;
                let state = u64::try_from(code)
                    .ok()
                    .and_then(ProcState::from_code)
                    .ok_or_else(|| err(format!("unknown state code {code}")))?;
                let (code, detail) = (int(3)?, u64v(4)?);
                let reason = u64::try_from(code)
                    .ok()
                    .and_then(|c| Reason::from_code(c, detail))
                    .ok_or_else(|| err(format!("unknown reason code {code}")))?;
                Event::State { time: time(0)?, pid: u(1)?, state, reason }
            }
            "msg_send" => {
                let detail = u(7)?;
                let purpose = match int(6)? {
                    0 => MsgPurpose::Channel { channel: 0, index: detail },
                    1 => MsgPurpose::RemoteRead { addr: detail },
                    2 => MsgPurpose::RemoteReply { addr: detail },
                    3 => MsgPurpose::RemoteWrite { addr: detail },
                    p => return Err(err(format!("unknown purpose code {p}"))),
                };
                Event::MsgSend {
                    time: time(0)?,
                    msg: u64v(1)?,
                    src_pid: u(2)?,
                    src_pproc: u(3)?,
                    dst_pid: opt(4)?,
                    dst_pproc: u(5)?,
                    purpose,
                    bytes: u(8)?,
                    line: u(9)?,
                }
            }
            "msg_arr" => Event::MsgArrive { time: time(0)?, msg: u64v(1)?, dst_pproc: u(2)? },
            "recv_call" => {
                Event::RecvCall { time: time(0)?, pid: u(1)?, pproc: u(2)?, channel: 0, index: u(3)?, line: u(4)? }
            }
            "recv_done" => Event::RecvDone {
                time: time(0)?,
                pid: u(1)?,
                pproc: u(2)?,
                msg: u64v(3)?,
                src_pid: u(4)?,
                bytes: u(5)?,
            },
            "hop" => {
                // -1: traffic without a send record (cptrace writes the record's u64::MAX
                // so; older files hold that number itself).
                let msg = match &vals[2] {
                    Value::Num(n) if n == "-1" => u64::MAX,
                    Value::Num(n) if n.parse::<u64>() == Ok(u64::MAX) => u64::MAX,
                    _ => u64v(2)?,
                };
                Event::Hop { leave: time(0)?, enter: time(1)?, msg, packet: u(3)?, from: u(4)?, to: u(5)? }
            }
            "probe" => Event::Probe {
                time: time(0)?,
                pid: u(1)?,
                pproc: u(2)?,
                id: i32::try_from(int(3)?).map_err(|_| err("probe id out of range".into()))?,
                label: u(4)?,
            },
            "label" => {
                let text = match &vals[2] {
                    Value::Text(t) => t.clone(),
                    Value::Num(s) => s.clone(),
                };
                header.labels.push(text.clone());
                Event::Label { time: time(0)?, index: u(1)?, text }
            }
            "busy" => Event::Busy {
                end: time(0)?,
                start: time(1)?,
                pproc: u(2)?,
                pid: u(3)?,
                line: u(4)?,
                class: if int(5)? == 0 { BusyClass::Work } else { BusyClass::Overhead },
            },
            "line_cost" => Event::LineCost { time: time(0)?, line: u(1)?, work: time(2)?, overhead: time(3)? },
            "proc_enter" => Event::Enter { time: time(0)?, pid: u(1)?, function: u(2)? },
            "proc_leave" => Event::Leave { time: time(0)?, pid: u(1)?, function: u(2)? },
            "event_count" => {
                let count = u64::try_from(int(0)?).map_err(|_| err("negative event count".into()))?;
                if count != records {
                    return Err(err(format!(
                        "the trace holds {records} event records where its event_count record says {count}: records were deleted or repeated"
                    )));
                }
                counted = true;
                continue;
            }
            "run_stats" => {
                let tpu = u64v(7)?.max(1);
                let t = |x: u64| x.saturating_mul(TICKS_PER_UNIT) / tpu;
                stats = Some(RunStats {
                    seq_ticks: t(u64v(1)?),
                    par_ticks: t(u64v(2)?),
                    pprocs_used: u(3)?,
                    messages: u64v(4)?,
                    bytes: u64v(5)?,
                    total_latency_ticks: crate::time::Total::from(t(u64v(6)?)),
                    ..RunStats::default()
                });
                continue;
            }
            _ => continue,
        };
        end = end.max(e.time());
        if let Event::ProcCreate { pproc, .. } | Event::Busy { pproc, .. } = e {
            if pproc > MAX_PPROC {
                return Err(err(format!("processor {pproc} is beyond the {MAX_PPROC} a trace may have")));
            }
            max_pproc = max_pproc.max(pproc);
        }
        if window_from.is_some() {
            check.windowed();
        }
        check.event(&e).map_err(err)?;
        records += 1;
        events.push(e);
    }
    if let Some((_, first, _)) = open {
        return Err(ImportError { line: first, reason: "comment or descriptor not closed".into() });
    }
    // Label events were read as definitions; the header lists them, so the events go.
    events.retain(|e| !matches!(e, Event::Label { .. }));
    sort(&mut events);
    header.pprocs = pprocs_attr.unwrap_or(max_pproc + 1).max(max_pproc + 1);
    let mut derived = derive_stats(&events, end, header.pprocs);
    let mut missing = crate::trace::format::import::missing(stats.is_some(), !header.program.is_empty());
    if !counted && records > 0 {
        missing.push(
            "no event_count record ends the trace: it may be cut short or be from an older cptrace, and a deleted record would go unseen".to_string(),
        );
    }
    if let Some(s) = stats {
        derived = RunStats { busy_ticks: derived.busy_ticks, processes: derived.processes, ..s };
    }
    Ok(Imported { header, events, stats: derived, missing, window_from })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_and_values() {
        let (rest, (name, vals)) = record(r#""label" { 0.000001000, 0, [5] { "a \"b\"" } };;"#).unwrap();
        assert_eq!(rest, "");
        assert_eq!(name, "label");
        assert_eq!(vals[2], Value::Text("a \"b\"".into()));
        assert_eq!(vals[1], Value::Num("0".into()));
    }

    #[test]
    fn a_small_trace_round_trips_through_the_writer_descriptors() {
        // A selection of the run (`cptrace --kinds proc_exit`): no creation before the exit.
        let text = "SDDFA\n/*\n * \"program\" \"p\"\n * \"processors\" \"4\"\n * \"selection\" \"part of the run\"\n */ ;;\n\n#2:\n\"proc_exit\" {\n\t// \"time\" \"Seconds\"\n\tdouble \"time\";\n\tint \"process\";\n};;\n\"proc_exit\" { 0.000002500, 3 };;\n";
        let t = read(text.as_bytes()).unwrap();
        assert_eq!(t.header.program, "p");
        assert_eq!(t.header.pprocs, 4);
        // 2.5 µs = 2500 ticks.
        assert_eq!(t.events, vec![Event::ProcEnd { time: 2500, pid: 3 }]);
        assert_eq!(t.stats.par_ticks, 2500);
    }

    #[test]
    fn errors_name_the_line() {
        let e = read("SDDFA\n\"proc_exit\" { 1, 2 };;\n".as_bytes()).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.reason.contains("before its descriptor"), "{e}");
        let e = read("SDDFA\n#2:\n\"proc_exit\" {\n\tdouble \"time\";\n};;\n".as_bytes()).unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let e = read("SDDF\n".as_bytes()).unwrap_err();
        assert_eq!(e.line, 1);
        let e = read("SDDFA\n/*\n".as_bytes()).unwrap_err();
        assert_eq!(e.line, 2);
    }
}
