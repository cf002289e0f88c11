//! The per-process summary: for every process, its function, processor, when it began
//! and ended, its busy time, the messages and bytes it sent and the messages it
//! received.
//!
//! The text report lists the ten busiest processes; `--table processes` (CSV) and the
//! JSON report hold every one. Memory grows with the number of processes, not events.
//! Depends on [`super::table`] and [`crate::trace`].
use super::table::{table_csv, table_json, Cell};
use crate::dense::DenseMap;
use crate::time::format_time;
use crate::time::Ticks;
use crate::trace::{Event, RunHeader};
use std::fmt::Write;

/// One process's summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessRow {
    pub pid: u32,
    /// Its function's name (`?` when the trace does not say).
    pub function: String,
    /// Its function's index in the header, once its creation is seen.
    function_index: Option<u32>,
    /// Its physical processor.
    pub pproc: u32,
    /// When it was created (or first seen).
    pub start: Ticks,
    /// When it ended (`None`: not in the trace).
    pub end: Option<Ticks>,
    /// Its processor's busy time running it.
    pub busy: Ticks,
    pub sent: u64,
    pub bytes_sent: u64,
    pub received: u64,
}

/// Follows the events the table needs (one index per event: process ids are dense).
#[derive(Debug, Default)]
pub struct ProcessBuilder {
    rows: DenseMap<ProcessRow>,
}

impl ProcessRow {
    /// Whether the trace shows its creation (and so its function).
    pub fn created(&self) -> bool {
        self.function_index.is_some()
    }
}

impl ProcessBuilder {
    #[inline]
    fn row(&mut self, pid: u32, time: Ticks) -> &mut ProcessRow {
        self.rows.get_or_insert_with(u64::from(pid), || ProcessRow { pid, start: time, ..ProcessRow::default() })
    }

    /// Takes one event into account.
    #[inline]
    pub fn event(&mut self, e: &Event) {
        match *e {
            Event::ProcCreate { time, pid, pproc, function, .. } => {
                let r = self.row(pid, time);
                r.start = time;
                r.pproc = pproc;
                r.function_index = Some(function);
            }
            Event::ProcEnd { time, pid } => self.row(pid, time).end = Some(time),
            Event::Busy { pproc, pid, start, end, .. } => {
                let r = self.row(pid, start);
                r.pproc = pproc;
                r.busy = r.busy.saturating_add(end.saturating_sub(start));
            }
            Event::MsgSend { time, src_pid, bytes, .. } => {
                let r = self.row(src_pid, time);
                r.sent += 1;
                r.bytes_sent = r.bytes_sent.saturating_add(u64::from(bytes));
            }
            Event::RecvDone { time, pid, .. } => self.row(pid, time).received += 1,
            _ => {}
        }
    }

    /// The rows in process order, functions named by `header`.
    pub fn finish(self, header: &RunHeader) -> Vec<ProcessRow> {
        let name = |f: Option<u32>| match f {
            Some(f) => header.function_name(f).map_or_else(|| format!("#{f}"), str::to_string),
            None => "?".to_string(),
        };
        self.rows.iter().map(|(_, r)| ProcessRow { function: name(r.function_index), ..r.clone() }).collect()
    }
}

/// Processes the text report lists.
const TEXT_ROWS: usize = 10;

/// The text section: the busiest processes (nothing without processes).
pub fn text(rows: &[ProcessRow]) -> String {
    let mut o = String::new();
    if rows.is_empty() {
        return o;
    }
    let mut busiest: Vec<&ProcessRow> = rows.iter().collect();
    busiest.sort_by(|a, b| b.busy.cmp(&a.busy).then(a.pid.cmp(&b.pid)));
    let shown = busiest.len().min(TEXT_ROWS);
    let _ = writeln!(o, "\nProcesses ({} in all; the {shown} busiest; every one with --table processes)", rows.len());
    let _ = writeln!(
        o,
        "  {:>7}  {:>5}  {:>10}  {:>10}  {:>10}  {:>6}  {:>8}  {:>8}  function",
        "pid", "pproc", "start", "end", "busy", "sent", "bytes", "received"
    );
    for r in &busiest[..shown] {
        let end = r.end.map_or_else(|| "-".to_string(), format_time);
        let _ = writeln!(
            o,
            "  {:>7}  {:>5}  {:>10}  {:>10}  {:>10}  {:>6}  {:>8}  {:>8}  {}",
            r.pid,
            r.pproc,
            format_time(r.start),
            end,
            format_time(r.busy),
            r.sent,
            r.bytes_sent,
            r.received,
            r.function
        );
    }
    o
}

/// The columns of the table, in CSV and JSON alike.
const COLUMNS: [&str; 9] = ["pid", "function", "pproc", "start", "end", "busy", "sent", "bytes_sent", "received"];

fn cells(r: &ProcessRow) -> [Cell; 9] {
    [
        Cell::Num(r.pid.to_string()),
        Cell::Text(r.function.clone()),
        Cell::Num(r.pproc.to_string()),
        Cell::Num(format_time(r.start)),
        r.end.map_or(Cell::Null, |t| Cell::Num(format_time(t))),
        Cell::Num(format_time(r.busy)),
        Cell::Num(r.sent.to_string()),
        Cell::Num(r.bytes_sent.to_string()),
        Cell::Num(r.received.to_string()),
    ]
}

/// The JSON array of every process.
pub fn json(rows: &[ProcessRow]) -> serde_json::Value {
    table_json(&COLUMNS, rows.iter().map(cells))
}

/// The CSV table `pid,function,pproc,start,end,busy,sent,bytes_sent,received`.
pub fn csv(rows: &[ProcessRow]) -> String {
    table_csv(&COLUMNS, rows.iter().map(cells))
}
