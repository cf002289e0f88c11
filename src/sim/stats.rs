//! Final performance statistics of a run (seed 000 §4.2.5: globalClock, seqTime,
//! nbrUsedProcessors, per-processor virTime) and their text, CSV and JSON renderings.
//!
//! Times are kept in ticks and printed in time units (ticks / 1000), with a fractional
//! part only when it is non-zero. Depends on `time::Ticks`.
use crate::net::LinkLoad;
use crate::time::{format_time, Ticks};
use std::fmt::Write as _;
use std::time::Duration;

/// Statistics of a run (complete, or up to an alarm or a limit).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Sum of the costs of sequential-work instructions executed while time was on.
    pub seq_ticks: Ticks,
    /// The global clock at the end (a whole number of quanta).
    pub par_ticks: Ticks,
    /// Busy time of every physical processor that ever held a process: `(pproc, ticks)`,
    /// by processor id.
    pub busy: Vec<(u32, Ticks)>,
    /// Processes created, including process 0.
    pub processes: u64,
    /// vCode instructions executed.
    pub instructions: u64,
    /// Channel messages sent.
    pub messages: u64,
    /// Bytes of those messages (4 per word).
    pub bytes: u64,
    /// Sum over messages of arrival time minus send time (wider than one message's: many
    /// long latencies pass 2^64 ticks).
    pub latency_ticks: crate::time::Total,
    /// The messages that sum covers: those whose arrival is known (a message still in
    /// the network when the run ends has no latency yet).
    pub latency_messages: u64,
    /// Reads of words owned by another physical processor (one per instruction).
    pub remote_reads: u64,
    /// Writes of words owned by another physical processor (one per instruction).
    pub remote_writes: u64,
    /// Host time spent simulating.
    pub host_time: Duration,
    /// The flits the network model moved over one link each ([`crate::net::Network::flit_hops`]):
    /// its simulated work, stated with the host time.
    pub flit_hops: u64,
    /// The run was stopped by `--alarm` before the program ended.
    pub stopped_by_alarm: bool,
    /// Messages still queued in channels at the end (sent but never received).
    pub undelivered: u64,
    /// Row length of [`Stats::profile`] in ticks (0: no profile was asked for).
    pub profile_step: Ticks,
    /// Busy ticks of every physical processor (indexed by id) in each successive
    /// `profile_step` interval; an instruction counts in the quantum it starts in.
    pub profile: Vec<Vec<Ticks>>,
    /// With `--link-stats`: the busy time of every link that carried flits, by link.
    pub links: Vec<LinkLoad>,
    /// Cycles of blocked packets the network resolved (`--deadlock resolve`).
    pub deadlocks_resolved: u64,
    /// The program's exit status: `main`'s return value or `exit`'s argument (0 when
    /// `main` ends without one).
    pub exit_status: i32,
    /// What was run and how, stated with the statistics when known.
    pub config: Option<RunConfig>,
    /// Whether the CSV and JSON statistics carry `host_seconds` (`cpss --host-time`):
    /// off by default, so that identical runs give identical bytes. The text report
    /// always states the host time.
    pub report_host_time: bool,
    /// With `cpss --runs N --lines`: the busy ticks of every source line that had any,
    /// in line order (empty otherwise).
    pub lines: Vec<(u32, Ticks)>,
    /// Parameters the debugger's `set` changed during the run, `(time, "name value")` in
    /// order: the configuration lines state the values the run started with.
    pub changes: Vec<(Ticks, String)>,
}

/// The configuration of a run as the statistics state it: the program, the machine, the
/// mapping, the network and its parameters, the seed, and every option that shaped the
/// run (`(long option, value)`, defaults included, a repeated option once per value).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct RunConfig {
    pub program: String,
    pub topology: String,
    pub virtual_topology: String,
    pub mapping: String,
    pub network: String,
    /// The network's parameters and the quantum, `(name, value)` in `--help` order.
    #[serde(serialize_with = "pairs_as_map")]
    pub parameters: Vec<(String, String)>,
    pub seed: u64,
    pub options: Vec<(String, String)>,
}

impl RunConfig {
    /// The program, machine and network lines of the text statistics.
    pub fn text_lines(&self) -> String {
        let params: Vec<String> = self.parameters.iter().map(|(k, v)| format!("{k} {v}")).collect();
        format!(
            "Program = {}\nMachine = {} (virtual {}, mapping {})\nNetwork = {} ({})\n",
            self.program,
            self.topology,
            self.virtual_topology,
            self.mapping,
            self.network,
            params.join(", ")
        )
    }
}

fn pairs_as_map<S: serde::Serializer>(pairs: &[(String, String)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(pairs.len()))?;
    for (k, v) in pairs {
        m.serialize_entry(k, v)?;
    }
    m.end()
}

/// The version of the `--stats json` document's layout.
pub const STATS_SCHEMA_VERSION: u32 = 1;

/// A time in time units as a JSON number (a whole number when it is one).
fn json_time(t: Ticks) -> serde_json::Number {
    format_time(t).parse().unwrap_or_else(|_| serde_json::Number::from(0))
}

/// A float rounded to `digits` decimals, for JSON.
fn rounded(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

/// The `--stats json` document (schema in `cpss(1)`, STATISTICS).
#[derive(serde::Serialize)]
struct StatsDoc<'a> {
    schema_version: u32,
    seq_time: serde_json::Number,
    par_time: serde_json::Number,
    speedup: f64,
    pprocs_used: usize,
    processes: u64,
    instructions: u64,
    messages: u64,
    bytes: u64,
    avg_latency: serde_json::Number,
    remote_reads: u64,
    remote_writes: u64,
    utilization: Vec<UtilDoc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    host_seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    flit_hops: Option<u64>,
    alarm: bool,
    deadlocks_resolved: u64,
    exit_status: i32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    links: Vec<LinkDoc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    configuration: Option<&'a RunConfig>,
    /// The debugger's `set` changes during the run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    changes: Vec<ChangeDoc<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    profile: Option<ProfileDoc>,
}

/// One parameter change made during the run.
#[derive(serde::Serialize)]
struct ChangeDoc<'a> {
    time: serde_json::Number,
    set: &'a str,
}

/// The utilization profile in JSON: the row length, the used processors, and per row its
/// start time and each processor's busy percentage.
#[derive(serde::Serialize)]
struct ProfileDoc {
    step: serde_json::Number,
    pprocs: Vec<u32>,
    rows: Vec<ProfileRow>,
}

#[derive(serde::Serialize)]
struct ProfileRow {
    time: serde_json::Number,
    percent: Vec<f64>,
}

#[derive(serde::Serialize)]
struct UtilDoc {
    pproc: u32,
    percent: f64,
}

#[derive(serde::Serialize)]
struct LinkDoc {
    link: String,
    busy: serde_json::Number,
    percent: f64,
}

impl Stats {
    /// Sequential time / parallel time (0 when the parallel time is 0).
    pub fn speedup(&self) -> f64 {
        if self.par_ticks == 0 {
            0.0
        } else {
            self.seq_ticks as f64 / self.par_ticks as f64
        }
    }

    /// Number of physical processors used.
    pub fn pprocs_used(&self) -> usize {
        self.busy.len()
    }

    /// Busy time / parallel time of each used processor, in percent.
    pub fn utilization(&self) -> Vec<(u32, f64)> {
        self.utilization_iter().collect()
    }

    /// [`Stats::utilization`], one processor at a time.
    pub fn utilization_iter(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        self.busy
            .iter()
            .map(|&(p, b)| (p, if self.par_ticks == 0 { 0.0 } else { 100.0 * b as f64 / self.par_ticks as f64 }))
    }

    /// Average message latency in ticks, over the messages that arrived (0 without any).
    pub fn avg_latency_ticks(&self) -> Ticks {
        let avg = self.latency_ticks.checked_div(u128::from(self.latency_messages)).unwrap_or(0);
        Ticks::try_from(avg).unwrap_or(Ticks::MAX)
    }

    /// The end-of-run report in the seed's words.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        // Writing to a string cannot fail.
        let _ = self.write_text(&mut s);
        s
    }

    /// [`Stats::to_text`] written onto `s` as it is made: the report of a million
    /// processors (a line each) is not held whole.
    pub fn write_text(&self, s: &mut impl std::fmt::Write) -> std::fmt::Result {
        if let Some(c) = &self.config {
            s.write_str(&c.text_lines())?;
            writeln!(s, "Seed = {}", c.seed)?;
        }
        for (t, set) in &self.changes {
            writeln!(s, "Set at time {} = {set}", format_time(*t))?;
        }
        if self.stopped_by_alarm {
            writeln!(s, "Alarm: stopped at time {}", format_time(self.par_ticks))?;
        }
        writeln!(s, "Sequential Execution Time = {}", format_time(self.seq_ticks))?;
        writeln!(s, "Parallel Execution Time = {}", format_time(self.par_ticks))?;
        writeln!(s, "Speedup = {:.2}", self.speedup())?;
        writeln!(s, "Processors Used = {}", self.pprocs_used())?;
        writeln!(s, "Processes Created = {}", self.processes)?;
        writeln!(s, "Instructions Executed = {}", self.instructions)?;
        writeln!(s, "Messages Sent = {}", self.messages)?;
        writeln!(s, "Bytes Sent = {}", self.bytes)?;
        writeln!(s, "Average Message Latency = {}", format_time(self.avg_latency_ticks()))?;
        writeln!(s, "Remote Reads = {}", self.remote_reads)?;
        writeln!(s, "Remote Writes = {}", self.remote_writes)?;
        if self.undelivered > 0 {
            writeln!(s, "Undelivered Messages = {}", self.undelivered)?;
        }
        if self.deadlocks_resolved > 0 {
            writeln!(s, "Network Deadlocks Resolved = {}", self.deadlocks_resolved)?;
        }
        if self.exit_status != 0 {
            writeln!(s, "Exit Status = {}", self.exit_status)?;
        }
        writeln!(s, "Utilization:")?;
        for (p, u) in self.utilization_iter() {
            writeln!(s, "  Processor {p}: {u:.1}%")?;
        }
        if !self.links.is_empty() {
            writeln!(s, "Link Utilization:")?;
            for (l, busy, u) in self.link_utilization_iter() {
                writeln!(s, "  Link {l}: busy {}, {u:.1}%", format_time(busy))?;
            }
        }
        let host = self.host_time.as_secs_f64();
        if self.flit_hops > 0 {
            let each = host * 1e9 / self.flit_hops as f64;
            writeln!(s, "Host Time = {host:.3} s ({} flit-hops simulated, {each:.1} ns each)", self.flit_hops)?;
        } else {
            writeln!(s, "Host Time = {host:.3} s")?;
        }
        Ok(())
    }

    /// Each link's name (`a->b`, or `bus`), busy time and busy share of the parallel
    /// time in percent.
    pub fn link_utilization(&self) -> Vec<(String, Ticks, f64)> {
        self.link_utilization_iter().collect()
    }

    /// [`Stats::link_utilization`], one link at a time.
    pub fn link_utilization_iter(&self) -> impl Iterator<Item = (String, Ticks, f64)> + '_ {
        let par = self.par_ticks.max(1) as f64;
        self.links.iter().map(move |l| (l.link.to_string(), l.busy, 100.0 * l.busy as f64 / par))
    }

    /// The profile as numbers: the used processors, and per row its start time and each
    /// processor's busy share of the row in percent (the last row may be shorter).
    pub fn profile_rows(&self) -> (Vec<u32>, Vec<(Ticks, Vec<f64>)>) {
        let used: Vec<u32> = self.busy.iter().map(|&(p, _)| p).collect();
        if self.profile_step == 0 {
            return (used, Vec::new());
        }
        let rows = self.par_ticks.div_ceil(self.profile_step) as usize;
        let out = (0..rows)
            .map(|r| {
                let start = r as Ticks * self.profile_step;
                let len = self.profile_step.min(self.par_ticks - start).max(1);
                let row = self.profile.get(r);
                let pct = used
                    .iter()
                    .map(|&p| {
                        let b = row.and_then(|v| v.get(p as usize)).copied().unwrap_or(0).min(len);
                        100.0 * b as f64 / len as f64
                    })
                    .collect();
                (start, pct)
            })
            .collect();
        (used, out)
    }

    /// The profile as CSV (`--profile` with `--stats csv`): `time` then one column per
    /// used processor (`p0`, `p5`, …), busy percent with two decimals; empty without a
    /// profile.
    pub fn profile_csv(&self) -> String {
        if self.profile_step == 0 {
            return String::new();
        }
        let (used, rows) = self.profile_rows();
        let mut o =
            crate::textio::csv_record(std::iter::once("time".to_string()).chain(used.iter().map(|p| format!("p{p}"))));
        for (t, pct) in rows {
            o.push_str(&crate::textio::csv_record(
                std::iter::once(format_time(t)).chain(pct.iter().map(|x| format!("{x:.2}"))),
            ));
        }
        o
    }

    /// The utilization profile (seed 000 Figure 22): one row per `profile_step`, one mark
    /// per used processor — `*` 75–100 %, `+` 50–75 %, `-` 25–50 %, `.` 0–25 % — and a
    /// time stamp line every 20 rows. Empty without a profile.
    pub fn to_profile(&self) -> String {
        let mut s = String::new();
        if self.profile_step == 0 {
            return s;
        }
        let used: Vec<u32> = self.busy.iter().map(|&(p, _)| p).collect();
        let _ = writeln!(s, "Utilization profile: one row per {} time units", format_time(self.profile_step));
        if used.iter().any(|&p| p >= 10) {
            let tens: String = used.iter().map(|p| char::from(b'0' + ((p / 10) % 10) as u8)).collect();
            let _ = writeln!(s, "{:>10} {tens}", "");
        }
        let ones: String = used.iter().map(|p| char::from(b'0' + (p % 10) as u8)).collect();
        let _ = writeln!(s, "{:>10} {ones}", "time");
        let rows = self.par_ticks.div_ceil(self.profile_step) as usize;
        for r in 0..rows {
            let start = r as Ticks * self.profile_step;
            let len = self.profile_step.min(self.par_ticks - start).max(1);
            if r > 0 && r % 20 == 0 {
                let _ = writeln!(s, "{:>10} --- time {} ---", "", format_time(start));
            }
            let row = self.profile.get(r);
            let marks: String = used
                .iter()
                .map(|&p| {
                    let b = row.and_then(|v| v.get(p as usize)).copied().unwrap_or(0);
                    match 4 * b.min(len) / len {
                        3.. => '*',
                        2 => '+',
                        1 => '-',
                        _ => '.',
                    }
                })
                .collect();
            let _ = writeln!(s, "{:>10} {marks}", format_time(start));
        }
        s
    }

    /// The scalar statistics as (key, value) in output order, before `utilization`; the
    /// speedup with `speedup_digits` decimals.
    fn fields(&self, speedup_digits: usize) -> [(&'static str, String); 11] {
        [
            ("seq_time", format_time(self.seq_ticks)),
            ("par_time", format_time(self.par_ticks)),
            ("speedup", format!("{:.*}", speedup_digits, self.speedup())),
            ("pprocs_used", self.pprocs_used().to_string()),
            ("processes", self.processes.to_string()),
            ("instructions", self.instructions.to_string()),
            ("messages", self.messages.to_string()),
            ("bytes", self.bytes.to_string()),
            ("avg_latency", format_time(self.avg_latency_ticks())),
            ("remote_reads", self.remote_reads.to_string()),
            ("remote_writes", self.remote_writes.to_string()),
        ]
    }

    /// The fields after `utilization`.
    fn tail_fields(&self) -> Vec<(&'static str, String)> {
        let host = self.report_host_time.then(|| {
            [
                ("host_seconds", format!("{:.6}", self.host_time.as_secs_f64())),
                ("flit_hops", self.flit_hops.to_string()),
            ]
        });
        host.into_iter()
            .flatten()
            .chain([
                ("alarm", self.stopped_by_alarm.to_string()),
                ("deadlocks_resolved", self.deadlocks_resolved.to_string()),
                ("exit_status", self.exit_status.to_string()),
            ])
            .collect()
    }

    /// One header line and one data row (the `csv` crate quotes what needs it);
    /// utilization as `p:percent` pairs separated by `;`; with a configuration, its
    /// program, topology, virtual topology, mapping, network and seed last.
    pub fn to_csv(&self) -> String {
        let fields = self.csv_fields();
        let mut w = csv::Writer::from_writer(Vec::new());
        let written = w
            .write_record(fields.iter().map(|(k, _)| *k))
            .and_then(|()| w.write_record(fields.iter().map(|(_, v)| v.as_str())));
        debug_assert!(written.is_ok(), "writing CSV to memory cannot fail");
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// The columns of [`Stats::to_csv`]: `(name, value)`.
    pub fn csv_fields(&self) -> Vec<(&'static str, String)> {
        let util: Vec<String> = self.utilization().iter().map(|(p, u)| format!("{p}:{u:.2}")).collect();
        let mut fields: Vec<(&str, String)> = self.fields(4).into();
        fields.push(("utilization", util.join(";")));
        fields.extend(self.tail_fields());
        if !self.links.is_empty() {
            let links: Vec<String> = self.link_utilization().iter().map(|(l, _, u)| format!("{l}:{u:.2}")).collect();
            fields.push(("links", links.join(";")));
        }
        if let Some(c) = &self.config {
            fields.extend([
                ("program", c.program.clone()),
                ("topology", c.topology.clone()),
                ("virtual", c.virtual_topology.clone()),
                ("mapping", c.mapping.clone()),
                ("network", c.network.clone()),
                ("seed", c.seed.to_string()),
            ]);
        }
        fields
    }

    /// The JSON document of `--stats json` (`schema_version` 1; times in time units).
    pub fn to_json(&self) -> String {
        let doc = StatsDoc {
            schema_version: STATS_SCHEMA_VERSION,
            seq_time: json_time(self.seq_ticks),
            par_time: json_time(self.par_ticks),
            speedup: rounded(self.speedup(), 6),
            pprocs_used: self.pprocs_used(),
            processes: self.processes,
            instructions: self.instructions,
            messages: self.messages,
            bytes: self.bytes,
            avg_latency: json_time(self.avg_latency_ticks()),
            remote_reads: self.remote_reads,
            remote_writes: self.remote_writes,
            utilization: self
                .utilization()
                .into_iter()
                .map(|(pproc, u)| UtilDoc { pproc, percent: rounded(u, 4) })
                .collect(),
            host_seconds: self.report_host_time.then(|| rounded(self.host_time.as_secs_f64(), 6)),
            flit_hops: self.report_host_time.then_some(self.flit_hops),
            alarm: self.stopped_by_alarm,
            deadlocks_resolved: self.deadlocks_resolved,
            exit_status: self.exit_status,
            links: self
                .link_utilization()
                .into_iter()
                .map(|(link, busy, u)| LinkDoc { link, busy: json_time(busy), percent: rounded(u, 4) })
                .collect(),
            configuration: self.config.as_ref(),
            changes: self.changes.iter().map(|(t, set)| ChangeDoc { time: json_time(*t), set }).collect(),
            profile: (self.profile_step > 0).then(|| {
                let (pprocs, rows) = self.profile_rows();
                ProfileDoc {
                    step: json_time(self.profile_step),
                    pprocs,
                    rows: rows
                        .into_iter()
                        .map(|(t, p)| ProfileRow {
                            time: json_time(t),
                            percent: p.iter().map(|&x| rounded(x, 2)).collect(),
                        })
                        .collect(),
                }
            }),
        };
        let mut s = serde_json::to_string(&doc).unwrap_or_default();
        s.push('\n');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_units_and_ratios() {
        assert_eq!(format_time(35_816_000), "35816");
        assert_eq!(format_time(12_500), "12.5");
        assert_eq!(format_time(1_005), "1.005");
        // Seed 000 Table 4, 8x8 torus on 8x8 mesh: 35816 / 3630 = 9.866… → 9.87.
        let s = Stats {
            seq_ticks: 35_816_000,
            par_ticks: 3_630_000,
            busy: vec![(0, 3_630_000), (1, 1_815_000)],
            ..Stats::default()
        };
        assert_eq!(s.to_profile(), "", "no profile asked for");
        let t = s.to_text();
        assert!(t.contains("Speedup = 9.87"), "{t}");
        assert!(t.contains("Processor 1: 50.0%"), "{t}");
        assert!(s.to_csv().lines().nth(1).unwrap().starts_with("35816,3630,9.8667,2,"));
        assert!(s
            .to_json()
            .starts_with("{\"schema_version\":1,\"seq_time\":35816,\"par_time\":3630,\"speedup\":9.866667,"));
    }
}

#[cfg(test)]
mod profile_tests {
    use super::*;

    #[test]
    fn profile_marks_by_quarter() {
        // Two processors, 30 units in rows of 10: processor 0 busy 10, 5, 2 units, processor
        // 3 busy 7.5, 2.5, 0: marks *,+,. and *,-,. (7.5/10 = 75 % is `*`).
        let s = Stats {
            par_ticks: 30_000,
            busy: vec![(0, 17_000), (3, 10_000)],
            profile_step: 10_000,
            profile: vec![vec![10_000, 0, 0, 7_500], vec![5_000, 0, 0, 2_500], vec![2_000, 0, 0, 0]],
            ..Stats::default()
        };
        let p = s.to_profile();
        let rows: Vec<&str> = p.lines().skip(2).collect();
        assert_eq!(rows, vec!["         0 **", "        10 +-", "        20 .."]);
    }
}
