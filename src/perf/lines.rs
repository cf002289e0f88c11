//! Cost per source line (SPEC §6, seed 002 §6): the busy time of every process summed by
//! the source line its instructions came from, split into sequential work and parallel
//! overhead. A run record of cpss carries the exact totals as [`Event::LineCost`] events
//! (its [`Event::Busy`] intervals are one per turn of a process and say no line); a
//! trace without them (SDDF written by other tools) is summed from the `line` of its busy
//! intervals. The report quotes each line's text with the line's text quoted from the record
//! header and a text bar whose length is the line's share of the most expensive line, as
//! the performance bars of seed 002's CSDE.
//!
//! One counter update per busy interval; lines are kept in a vector indexed by line
//! number (a map for implausibly large numbers from damaged input). Depends only on
//! [`crate::trace`].
use super::table::{table_csv, table_json, Cell};
use crate::dense::DenseMap;
use crate::time::{format_time, format_total};
use crate::time::{Ticks, Total};
use crate::trace::{BusyClass, Event, ProcState, Reason};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Line numbers below this are counted in a vector; larger ones (a damaged record) in a map.
const DENSE: u32 = 1 << 16;

/// Width of a full bar in characters.
pub const BAR: usize = 40;

/// The busy time of one source line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineCost {
    /// Source line (0: unknown, e.g. a PICL trace).
    pub line: u32,
    /// Sequential-work busy ticks.
    pub work: Ticks,
    /// Parallel-overhead busy ticks (fork, send, receive, …).
    pub overhead: Ticks,
    /// The line's text from the record header, trimmed (empty when not available).
    pub text: String,
}

impl LineCost {
    /// Work + overhead.
    pub fn total(&self) -> Total {
        Total::from(self.work) + Total::from(self.overhead)
    }
}

/// Busy time per source line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineProfile {
    /// Every line with busy time, in line order.
    pub lines: Vec<LineCost>,
    /// Total busy ticks over all lines.
    pub total: Total,
    /// Per line with any, `(wait, communication)` ticks: the time processes waited
    /// there (a receive from its call to its completion, a remote read, a lock, a join
    /// or a delay: the line the process last ran) and the latency of the messages sent
    /// there (channel messages and remote memory traffic, from the send to the arrival).
    /// Summed over processes and messages, so wider than one process's time.
    pub waits: BTreeMap<u32, (Total, Total)>,
    /// The source text's lines, trimmed (for aligning two versions).
    pub source: Vec<String>,
}

impl LineProfile {
    /// How line `line` is shown: its number in the main file, `FILE:N` for line N of an
    /// included file (the module's source holds it after a marker line:
    /// [`crate::trace::INCLUDE_MARK`]), `?` for no line.
    pub fn label(&self, line: u32) -> String {
        if line == 0 {
            return "?".into();
        }
        let mark = self.source.iter().take(line as usize).enumerate().rev().find_map(|(i, l)| {
            l.strip_prefix(crate::trace::INCLUDE_MARK.trim_end()).map(|name| (name.trim(), i as u32 + 1))
        });
        match mark {
            Some((name, at)) if line > at => format!("{name}:{}", line - at),
            _ => line.to_string(),
        }
    }

    /// The cost of the most expensive line (0 without lines).
    pub fn max(&self) -> Total {
        self.lines.iter().map(LineCost::total).max().unwrap_or(0)
    }

    /// The `top` most expensive lines (all when `top` is `None`), in line order; ties in
    /// cost keep the lower line.
    pub fn top(&self, top: Option<usize>) -> Vec<&LineCost> {
        let Some(n) = top else { return self.lines.iter().collect() };
        let mut by_cost: Vec<&LineCost> = self.lines.iter().collect();
        by_cost.sort_by(|a, b| b.total().cmp(&a.total()).then(a.line.cmp(&b.line)));
        by_cost.truncate(n);
        by_cost.sort_by_key(|l| l.line);
        by_cost
    }

    /// The text bar of `l`: `#` for work and `+` for overhead, [`BAR`] characters for the
    /// most expensive line, padded with spaces to [`BAR`].
    pub fn bar(&self, l: &LineCost) -> String {
        bar_on(l, self.max(), BAR)
    }
}

/// The bar of `l` on a scale where `max` ticks fill `width` characters (`#` work, `+`
/// overhead, spaces to `width`): one scale serves two runs side by side.
pub fn bar_on(l: &LineCost, max: Total, width: usize) -> String {
    if max == 0 {
        return " ".repeat(width);
    }
    let cells = |t: Total| ((t * width as u128 + max / 2) / max) as usize;
    let all = cells(l.total()).min(width);
    let work = cells(Total::from(l.work)).min(all);
    format!("{}{}{}", "#".repeat(work), "+".repeat(all - work), " ".repeat(width - all))
}

/// One source line of two runs (`cpperf compare --lines`, seed 002 §8.2): the line in
/// each version (`None`: not in that version, as `diff` aligns them), its busy cost in
/// each (`None`: no busy time there), its wait and communication time in each, and its
/// text (the new version's, else the base's).
#[derive(Debug, Clone, PartialEq)]
pub struct LineChange<'a> {
    pub base_line: Option<u32>,
    pub new_line: Option<u32>,
    pub base: Option<&'a LineCost>,
    pub new: Option<&'a LineCost>,
    /// `(wait, communication)` ticks in the base and in the new run.
    pub base_waits: (Total, Total),
    pub new_waits: (Total, Total),
    pub text: &'a str,
}

impl LineChange<'_> {
    fn cost(l: Option<&LineCost>) -> Total {
        l.map_or(0, LineCost::total)
    }

    /// new − base busy time, in ticks.
    pub fn change(&self) -> i128 {
        Self::cost(self.new) as i128 - Self::cost(self.base) as i128
    }

    /// The change in percent of the base cost (`None` when the base had none).
    pub fn change_percent(&self) -> Option<f64> {
        let b = Self::cost(self.base);
        (b > 0).then(|| 100.0 * self.change() as f64 / b as f64)
    }

    pub fn text(&self) -> &str {
        self.text
    }
}

/// Cells of the alignment table above which the middle of two versions (after their
/// common first and last lines) is matched by line number instead (about 64 MB).
const ALIGN_CELLS: usize = 1 << 25;

/// Pairs of equal lines `(i, j)` (0-based) of a longest common subsequence of `a` and
/// `b`, in order: the alignment `diff` makes. The common first and last lines are
/// matched directly; a middle too large for the table is matched by position.
fn align(a: &[String], b: &[String]) -> Vec<(usize, usize)> {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..].iter().rev().zip(b[pre..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (am, bm) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    let mut pairs: Vec<(usize, usize)> = (0..pre).map(|k| (k, k)).collect();
    let (n, m) = (am.len(), bm.len());
    if n > 0 && m > 0 {
        if (n + 1) * (m + 1) > ALIGN_CELLS {
            pairs.extend((0..n.min(m)).filter(|&k| am[k] == bm[k]).map(|k| (pre + k, pre + k)));
        } else {
            // l[i][j]: the LCS length of am[i..] and bm[j..].
            let w = m + 1;
            let mut l = vec![0u32; (n + 1) * w];
            for i in (0..n).rev() {
                for j in (0..m).rev() {
                    l[i * w + j] = if am[i] == bm[j] {
                        l[(i + 1) * w + j + 1] + 1
                    } else {
                        l[(i + 1) * w + j].max(l[i * w + j + 1])
                    };
                }
            }
            let (mut i, mut j) = (0, 0);
            while i < n && j < m {
                if am[i] == bm[j] {
                    pairs.push((pre + i, pre + j));
                    i += 1;
                    j += 1;
                } else if l[(i + 1) * w + j] >= l[i * w + j + 1] {
                    i += 1;
                } else {
                    j += 1;
                }
            }
        }
    }
    pairs.extend((0..suf).map(|k| (a.len() - suf + k, b.len() - suf + k)));
    pairs
}

/// The lines of `base` and `new` aligned by content, as `diff` does (a longest common
/// subsequence of their source lines): a line kept in both versions is one row whatever
/// its number, a line of one version only is a row of its own, placed where it was.
/// Rows with no busy, wait or communication time in either run are left out. Without
/// source texts (PICL traces) the lines are matched by number.
pub fn line_changes<'a>(base: &'a LineProfile, new: &'a LineProfile) -> Vec<LineChange<'a>> {
    let pairs: Vec<(u32, u32)> = if base.source.is_empty() || new.source.is_empty() {
        let mut nums: Vec<u32> = base.lines.iter().chain(&new.lines).map(|l| l.line).collect();
        nums.extend(base.waits.keys().chain(new.waits.keys()));
        nums.sort_unstable();
        nums.dedup();
        nums.into_iter().map(|n| (n, n)).collect()
    } else {
        align(&base.source, &new.source).into_iter().map(|(i, j)| (i as u32 + 1, j as u32 + 1)).collect()
    };
    let cost =
        |p: &'a LineProfile, line: u32| p.lines.binary_search_by_key(&line, |l| l.line).ok().map(|k| &p.lines[k]);
    let waits = |p: &LineProfile, line: u32| p.waits.get(&line).copied().unwrap_or((0, 0));
    let text = |p: &'a LineProfile, line: u32| {
        line.checked_sub(1).and_then(|i| p.source.get(i as usize)).map_or("", String::as_str)
    };
    let row = |b: Option<u32>, n: Option<u32>| {
        let (bc, nc) = (b.and_then(|l| cost(base, l)), n.and_then(|l| cost(new, l)));
        let t = match (n, b) {
            (Some(l), _) if !text(new, l).is_empty() => text(new, l),
            (_, Some(l)) if !text(base, l).is_empty() => text(base, l),
            _ => nc.or(bc).map_or("", |c| c.text.as_str()),
        };
        LineChange {
            base_line: b,
            new_line: n,
            base: bc,
            new: nc,
            base_waits: b.map_or((0, 0), |l| waits(base, l)),
            new_waits: n.map_or((0, 0), |l| waits(new, l)),
            text: t,
        }
    };
    // Every line with a figure in either run, in the new version's order, a base-only
    // line before the next kept line.
    let used = |p: &LineProfile| -> Vec<u32> {
        let mut v: Vec<u32> = p.lines.iter().map(|l| l.line).chain(p.waits.keys().copied()).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let (bu, nu) = (used(base), used(new));
    let mut rows = Vec::new();
    let (mut bi, mut ni) = (0, 0);
    let flush = |rows: &mut Vec<LineChange<'a>>, bi: &mut usize, ni: &mut usize, b_upto: u32, n_upto: u32| {
        while *bi < bu.len() && bu[*bi] < b_upto {
            rows.push(row(Some(bu[*bi]), None));
            *bi += 1;
        }
        while *ni < nu.len() && nu[*ni] < n_upto {
            rows.push(row(None, Some(nu[*ni])));
            *ni += 1;
        }
    };
    for &(b, n) in &pairs {
        flush(&mut rows, &mut bi, &mut ni, b, n);
        let (hb, hn) = (bi < bu.len() && bu[bi] == b, ni < nu.len() && nu[ni] == n);
        if hb || hn {
            rows.push(row(Some(b), Some(n)));
        }
        bi += usize::from(hb);
        ni += usize::from(hn);
    }
    flush(&mut rows, &mut bi, &mut ni, u32::MAX, u32::MAX);
    rows
}

/// Width of each run's bar in the side-by-side comparison.
const PAIR_BAR: usize = 20;

/// The side-by-side text: per line the two busy costs, the change, the two runs' wait
/// and communication times, and both busy bars on one scale (the most expensive line of
/// either run fills `PAIR_BAR`).
pub fn changes_text(base: &LineProfile, new: &LineProfile) -> String {
    let rows = line_changes(base, new);
    let max = base.max().max(new.max());
    let mut o = String::new();
    let _ = writeln!(
        o,
        "Cost per source line, base and new on one scale ({PAIR_BAR} characters = {}; # work, + overhead); \
         lines aligned by content (-N: line N of the base only); wait and comm: time waited at the line and \
         latency of the messages it sent",
        format_total(max)
    );
    let _ = writeln!(
        o,
        "  {:>6}  {:>10}  {:>10}  {:>10}  {:>8}  {:>10}  {:>10}  {:>10}  {:>10}  {:<w$}  {:<w$}  text",
        "line",
        "base",
        "new",
        "change",
        "change%",
        "base wait",
        "new wait",
        "base comm",
        "new comm",
        "base",
        "new",
        w = PAIR_BAR + 2
    );
    let empty = LineCost { line: 0, work: 0, overhead: 0, text: String::new() };
    for r in &rows {
        let pct = r.change_percent().map_or_else(|| "-".to_string(), |p| format!("{p:+.1}"));
        let _ = writeln!(
            o,
            "  {:>6}  {:>10}  {:>10}  {:>10}  {:>8}  {:>10}  {:>10}  {:>10}  {:>10}  |{}|  |{}|  {}",
            match (r.new_line, r.base_line) {
                (Some(n), _) => new.label(n),
                (None, Some(b)) => format!("-{}", base.label(b)),
                (None, None) => "?".into(),
            },
            format_total(LineChange::cost(r.base)),
            format_total(LineChange::cost(r.new)),
            plus(r.change()),
            pct,
            format_total(r.base_waits.0),
            format_total(r.new_waits.0),
            format_total(r.base_waits.1),
            format_total(r.new_waits.1),
            bar_on(r.base.unwrap_or(&empty), max, PAIR_BAR),
            bar_on(r.new.unwrap_or(&empty), max, PAIR_BAR),
            r.text()
        );
    }
    let total = new.total as i128 - base.total as i128;
    let sum = |p: &LineProfile, k: usize| p.waits.values().map(|w| if k == 0 { w.0 } else { w.1 }).sum::<Total>();
    let _ = writeln!(
        o,
        "  {:>6}  {:>10}  {:>10}  {:>10}  {:>8}  {:>10}  {:>10}  {:>10}  {:>10}",
        "all",
        format_total(base.total),
        format_total(new.total),
        plus(total),
        "",
        format_total(sum(base, 0)),
        format_total(sum(new, 0)),
        format_total(sum(base, 1)),
        format_total(sum(new, 1))
    );
    o
}

/// A change with its sign: `+1900`, `-3`, `0`.
fn plus(t: i128) -> String {
    if t > 0 {
        format!("+{}", crate::time::format_signed(t))
    } else {
        crate::time::format_signed(t)
    }
}

/// The columns of the comparison, in CSV and JSON alike.
const CHANGE_COLUMNS: [&str; 11] = [
    "base_line",
    "new_line",
    "base",
    "new",
    "change",
    "change_percent",
    "base_wait",
    "new_wait",
    "base_comm",
    "new_comm",
    "text",
];

fn change_cells(r: &LineChange) -> [Cell; 11] {
    let line = |l: Option<u32>| l.map_or(Cell::Null, |l| Cell::Num(l.to_string()));
    [
        line(r.base_line),
        line(r.new_line),
        Cell::Num(format_total(LineChange::cost(r.base))),
        Cell::Num(format_total(LineChange::cost(r.new))),
        Cell::Num(crate::time::format_signed(r.change())),
        r.change_percent().map_or(Cell::Null, |p| Cell::Num(format!("{p:.4}"))),
        Cell::Num(format_total(r.base_waits.0)),
        Cell::Num(format_total(r.new_waits.0)),
        Cell::Num(format_total(r.base_waits.1)),
        Cell::Num(format_total(r.new_waits.1)),
        Cell::Text(r.text().to_string()),
    ]
}

/// The comparison as CSV `base_line,new_line,base,new,change,change_percent,base_wait,
/// new_wait,base_comm,new_comm,text` (a line number is empty for a line of the other
/// version only).
pub fn changes_csv(base: &LineProfile, new: &LineProfile) -> String {
    table_csv(&CHANGE_COLUMNS, line_changes(base, new).iter().map(change_cells))
}

/// The comparison as one JSON object: `schema_version` and `lines`.
pub fn changes_json(base: &LineProfile, new: &LineProfile) -> String {
    let doc = serde_json::json!({
        "schema_version": super::table::JSON_SCHEMA_VERSION,
        "lines": table_json(&CHANGE_COLUMNS, line_changes(base, new).iter().map(change_cells)),
    });
    let mut out = doc.to_string();
    out.push('\n');
    out
}

/// Work and overhead ticks per line: a vector indexed by line number, a map for
/// implausibly large numbers.
#[derive(Debug, Default)]
struct Counts {
    dense: Vec<(Ticks, Ticks)>,
    sparse: BTreeMap<u32, (Ticks, Ticks)>,
}

impl Counts {
    fn add(&mut self, line: u32, work: Ticks, overhead: Ticks) {
        let slot = if line < DENSE {
            let i = line as usize;
            if self.dense.len() <= i {
                self.dense.resize(i + 1, (0, 0));
            }
            &mut self.dense[i]
        } else {
            self.sparse.entry(line).or_insert((0, 0))
        };
        slot.0 = slot.0.saturating_add(work);
        slot.1 = slot.1.saturating_add(overhead);
    }
}

/// Accumulates a [`LineProfile`]. Its per-process and per-message maps are
/// [`DenseMap`]s: one look-up per event costs an index, not a tree search.
#[derive(Debug)]
pub struct LineBuilder {
    /// From the busy intervals' lines.
    busy: Counts,
    /// From [`Event::LineCost`]; when the input has any, they are the profile.
    totals: Counts,
    has_totals: bool,
    /// Per line, wait and communication ticks ([`LineProfile::waits`]).
    waits: BTreeMap<u32, (Total, Total)>,
    /// Per process in a receive: the line it was called on and when.
    called: DenseMap<(u32, Ticks)>,
    /// Per process: the line its latest busy interval ended on, and since when it has
    /// been suspended (other than in a receive). A turn's busy interval is recorded
    /// after the state change that ends it and before the process runs again, so when
    /// it resumes, its latest line is the one it blocked on.
    last_line: DenseMap<u32>,
    suspended: DenseMap<Ticks>,
    /// Messages sent and not arrived: id → (line, send time).
    sent: DenseMap<(u32, Ticks)>,
}

impl Default for LineBuilder {
    fn default() -> Self {
        LineBuilder {
            busy: Counts::default(),
            totals: Counts::default(),
            has_totals: false,
            waits: BTreeMap::new(),
            called: DenseMap::default(),
            last_line: DenseMap::default(),
            suspended: DenseMap::default(),
            // Messages arrive roughly in the order they were sent.
            sent: DenseMap::sliding(),
        }
    }
}

impl LineBuilder {
    /// Takes one event into account.
    #[inline]
    pub fn event(&mut self, e: &Event) {
        match *e {
            Event::Busy { pid, start, end, line, class, .. } => {
                let t = end.saturating_sub(start);
                match class {
                    BusyClass::Work => self.busy.add(line, t, 0),
                    BusyClass::Overhead => self.busy.add(line, 0, t),
                }
                self.last_line.insert(pid as u64, line);
            }
            Event::LineCost { line, work, overhead, .. } => {
                self.has_totals = true;
                self.totals.add(line, work, overhead);
            }
            Event::RecvCall { time, pid, line, .. } => {
                self.called.insert(pid as u64, (line, time));
            }
            Event::RecvDone { time, pid, .. } => {
                if let Some((line, since)) = self.called.remove(pid as u64) {
                    self.waits.entry(line).or_default().0 += Total::from(time.saturating_sub(since));
                }
            }
            Event::State { time, pid, state, reason } => match state {
                ProcState::Running => {
                    if let Some(since) = self.suspended.remove(pid as u64) {
                        let line = self.last_line.get(pid as u64).copied().unwrap_or(0);
                        self.waits.entry(line).or_default().0 += Total::from(time.saturating_sub(since));
                    }
                }
                ProcState::Blocked | ProcState::Delayed if !matches!(reason, Reason::Channel { .. }) => {
                    self.suspended.insert(pid as u64, time);
                }
                _ => {}
            },
            Event::ProcEnd { pid, .. } => {
                self.last_line.remove(pid as u64);
                self.suspended.remove(pid as u64);
            }
            Event::MsgSend { time, msg, line, .. } => {
                self.sent.insert(msg, (line, time));
            }
            Event::MsgArrive { time, msg, .. } => {
                if let Some((line, t0)) = self.sent.remove(msg) {
                    self.waits.entry(line).or_default().1 += Total::from(time.saturating_sub(t0));
                }
            }
            _ => {}
        }
    }

    /// The profile, quoting lines of `source` (the record header's main source text).
    pub fn finish(self, source: &str) -> LineProfile {
        let counts = if self.has_totals { self.totals } else { self.busy };
        let text: Vec<&str> = source.lines().collect();
        let quote = |line: u32| {
            line.checked_sub(1).and_then(|i| text.get(i as usize)).map(|s| s.trim().to_string()).unwrap_or_default()
        };
        let lines: Vec<LineCost> = (0u32..)
            .zip(counts.dense)
            .chain(counts.sparse)
            .filter(|&(_, (w, o))| w > 0 || o > 0)
            .map(|(line, (work, overhead))| LineCost { line, work, overhead, text: quote(line) })
            .collect();
        let total = lines.iter().map(LineCost::total).sum();
        let mut waits = self.waits;
        waits.remove(&0);
        waits.retain(|_, w| w.0 + w.1 > 0);
        let source = text.iter().map(|l| l.trim().to_string()).collect();
        LineProfile { lines, total, waits, source }
    }
}

/// The text section: one row per line with its time, share of all busy time, bar and text.
pub fn text(p: &LineProfile, top: Option<usize>) -> String {
    let mut o = String::new();
    if p.lines.is_empty() {
        return o;
    }
    if p.lines.iter().all(|l| l.line == 0) {
        let _ = writeln!(o, "\nCost per source line: the record attributes no busy time to source lines");
        return o;
    }
    let shown = p.top(top);
    let _ = writeln!(
        o,
        "\nCost per source line ({} of {} lines; busy time of all processes; bar: share of the most expensive line, # work, + overhead)",
        shown.len(),
        p.lines.len()
    );
    for l in shown {
        let share = if p.total > 0 { 100.0 * l.total() as f64 / p.total as f64 } else { 0.0 };
        let line = p.label(l.line);
        let row = format!("  {line:>5} {:>12} {share:6.2} % |{}| {}", format_total(l.total()), p.bar(l), l.text);
        let _ = writeln!(o, "{}", row.trim_end());
    }
    o
}

/// The columns of the per-line table, in CSV and JSON alike.
const COLUMNS: [&str; 7] = ["line", "time", "work", "overhead", "share", "relative", "text"];

/// One line's cells; `relative` is the bar's share of the most expensive line in percent.
fn cells(p: &LineProfile, max: Total, l: &LineCost) -> [Cell; 7] {
    [
        Cell::Num(l.line.to_string()),
        Cell::Num(format_total(l.total())),
        Cell::Num(format_time(l.work)),
        Cell::Num(format_time(l.overhead)),
        Cell::Num(format!("{:.4}", pct(l.total(), p.total))),
        Cell::Num(format!("{:.4}", pct(l.total(), max))),
        Cell::Text(l.text.clone()),
    ]
}

/// The JSON array of the lines shown (line order).
pub fn json(p: &LineProfile, top: Option<usize>) -> serde_json::Value {
    let max = p.max();
    table_json(&COLUMNS, p.top(top).into_iter().map(|l| cells(p, max, l)))
}

/// The CSV table `line,time,work,overhead,share,relative,text`.
pub fn csv(p: &LineProfile, top: Option<usize>) -> String {
    let max = p.max();
    table_csv(&COLUMNS, p.top(top).into_iter().map(|l| cells(p, max, l)))
}

fn pct(a: Total, b: Total) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `diff`'s alignment: the longest common subsequence of the lines. "x" replaces
    /// "b" and "e" is inserted: a, c and d are matched where they are.
    #[test]
    fn align_matches_a_longest_common_subsequence() {
        let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(align(&v(&["a", "b", "c", "d"]), &v(&["a", "x", "c", "e", "d"])), vec![(0, 0), (2, 2), (3, 4)]);
        // Moved lines: only one order can be kept.
        assert_eq!(align(&v(&["p", "q", "r"]), &v(&["r", "p", "q"])), vec![(0, 1), (1, 2)]);
        assert_eq!(align(&v(&[]), &v(&["a"])), vec![]);
        assert_eq!(align(&v(&["}", "}"]), &v(&["}", "x", "}"])), vec![(0, 0), (1, 2)]);
    }

    fn busy(pid: u32, start: Ticks, end: Ticks, line: u32, class: BusyClass) -> Event {
        Event::Busy { pproc: pid, pid, start, end, line, class }
    }

    #[test]
    fn lines_sum_over_processes_and_bars_scale_to_the_most_expensive() {
        let source = "int main() {\n  x = 1;\n  y = f(x);\n}\n";
        let mut b = LineBuilder::default();
        for e in [
            // Line 2: 100 work on process 0 + 100 work on process 1 = 200.
            busy(0, 0, 100, 2, BusyClass::Work),
            busy(1, 0, 100, 2, BusyClass::Work),
            // Line 3: 60 work + 40 overhead = 100, half of line 2.
            busy(0, 100, 160, 3, BusyClass::Work),
            busy(0, 160, 200, 3, BusyClass::Overhead),
            // An empty interval adds nothing; line 4 never appears.
            busy(1, 100, 100, 4, BusyClass::Work),
        ] {
            b.event(&e);
        }
        let p = b.finish(source);
        assert_eq!(p.total, 300);
        assert_eq!(p.lines.len(), 2);
        assert_eq!((p.lines[0].line, p.lines[0].total(), p.lines[0].text.as_str()), (2, 200, "x = 1;"));
        assert_eq!((p.lines[1].line, p.lines[1].work, p.lines[1].overhead), (3, 60, 40));
        // Line 2 is the most expensive: a full bar of 40 `#`. Line 3 is 100/200 of it:
        // 20 cells, of which 60/200·40 = 12 work and 8 overhead, then 20 blanks.
        assert_eq!(p.bar(&p.lines[0]), "#".repeat(40));
        assert_eq!(p.bar(&p.lines[1]), format!("{}{}{}", "#".repeat(12), "+".repeat(8), " ".repeat(20)));
        // Top 1 keeps line 2 only.
        assert_eq!(p.top(Some(1)).iter().map(|l| l.line).collect::<Vec<_>>(), vec![2]);
        // 200 ticks are 0.2 time units.
        let t = text(&p, None);
        assert!(t.contains("    2          0.2  66.67 % |"), "{t}");
        assert!(t.contains("| y = f(x);"), "{t}");
    }

    #[test]
    fn huge_line_numbers_from_damaged_input_do_not_allocate_a_huge_table() {
        let mut b = LineBuilder::default();
        b.event(&busy(0, 0, 5, u32::MAX, BusyClass::Work));
        let p = b.finish("");
        assert_eq!(p.lines.len(), 1);
        assert_eq!((p.lines[0].line, p.lines[0].total(), p.lines[0].text.as_str()), (u32::MAX, 5, ""));
    }

    #[test]
    fn line_totals_replace_the_busy_intervals_lines() {
        // A cpss record: busy intervals without lines (line 0), then the exact totals.
        // Line 2: 70 work; line 3: 20 work + 10 overhead; the busy intervals' 100 ticks
        // (70 + 30) must not be counted a second time as line 0.
        let mut b = LineBuilder::default();
        b.event(&busy(0, 0, 100, 0, BusyClass::Work));
        b.event(&Event::LineCost { time: 100, line: 2, work: 70, overhead: 0 });
        b.event(&Event::LineCost { time: 100, line: 3, work: 20, overhead: 10 });
        let p = b.finish("a\nb\nc\n");
        assert_eq!(p.total, 100);
        let rows: Vec<(u32, Ticks, Ticks, &str)> =
            p.lines.iter().map(|l| (l.line, l.work, l.overhead, l.text.as_str())).collect();
        assert_eq!(rows, vec![(2, 70, 0, "b"), (3, 20, 10, "c")]);
    }
}
