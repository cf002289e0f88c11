//! The program-level metrics of a run (seed 003 §3.3): parallel and sequential time,
//! speedup, efficiency, per-processor utilization, message statistics, granularity and
//! the communication matrix between virtual processors.
//!
//! Times and totals come from the record's footer (the simulator's own statistics, so
//! `cpperf` and `cpss --stats` agree); per-processor busy time is summed from the
//! `Busy` events and the communication matrix from `ProcCreate` and `MsgSend` events.
//! Depends only on [`crate::trace`].
use crate::dense::DenseMap;
use crate::time::Ticks;
use crate::trace::{Event, MsgPurpose, RecordError, RunRecordReader, RunStats};
use std::collections::BTreeMap;
use std::io::Read;

/// The program-level metrics of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Sequential Execution Time in ticks (footer).
    pub seq_ticks: Ticks,
    /// Parallel Execution Time in ticks (footer).
    pub par_ticks: Ticks,
    /// Physical processors that ran at least one instruction (footer).
    pub pprocs_used: u32,
    /// Busy ticks of every processor with any, summed from `Busy` events, by pproc.
    pub busy: Vec<(u32, Ticks)>,
    /// Messages sent (footer).
    pub messages: u64,
    /// Payload bytes sent (footer).
    pub bytes: u64,
    /// Sum over messages of arrival − send (footer).
    pub total_latency_ticks: crate::time::Total,
    /// The messages that sum covers (a window's that arrive inside it; else `messages`).
    pub latency_messages: u64,
    /// Remote-memory messages (read requests and replies, writes, spinlock requests,
    /// grants and releases) whose arrival the record holds: a window's that are sent and
    /// arrive inside it.
    pub remote_messages: u64,
    /// Sum over those of arrival − send.
    pub remote_latency_ticks: crate::time::Total,
    /// Bytes sent between virtual processors, keyed `(src, dst)`; processes without a
    /// virtual processor (the main process, remote memory traffic) are left out, as in
    /// `cpmap --comm`.
    pub comm: BTreeMap<(u32, u32), u64>,
}

impl Summary {
    /// Sequential time / parallel time (0 when the parallel time is 0), as `cpss`.
    pub fn speedup(&self) -> f64 {
        ratio(self.seq_ticks, self.par_ticks)
    }

    /// Speedup / processors used (0 without processors).
    pub fn efficiency(&self) -> f64 {
        if self.pprocs_used == 0 {
            0.0
        } else {
            self.speedup() / f64::from(self.pprocs_used)
        }
    }

    /// Busy / parallel time of each processor with busy time, in percent.
    pub fn utilization(&self) -> Vec<(u32, f64)> {
        self.busy.iter().map(|&(p, b)| (p, 100.0 * ratio(b, self.par_ticks))).collect()
    }

    /// Total busy ticks over all processors (seed 003's total computation time Σ Cᵢ).
    pub fn total_busy_ticks(&self) -> crate::time::Total {
        self.busy.iter().map(|&(_, b)| crate::time::Total::from(b)).sum()
    }

    /// The degree of parallelism over the run, seed 003 §3.3: P = Σ U_cpu,i / n, the mean
    /// utilization of the machine's `n` processors as a fraction (busy time counts work
    /// and overhead, so P is at least the sequential time over n × the parallel time); 0
    /// without time or processors. Over a window (`cpperf --from/--to`) it is the
    /// window's.
    pub fn parallelism(&self, n: u32) -> f64 {
        if n == 0 || self.par_ticks == 0 {
            return 0.0;
        }
        self.total_busy_ticks() as f64 / (self.par_ticks as f64 * f64::from(n))
    }

    /// Average message latency in ticks, rounded down as `cpss` does (0 without messages).
    pub fn avg_latency_ticks(&self) -> Ticks {
        let avg = self.total_latency_ticks.checked_div(u128::from(self.latency_messages)).unwrap_or(0);
        Ticks::try_from(avg).unwrap_or(Ticks::MAX)
    }

    /// Average latency of the remote-memory messages in ticks, rounded down (0 without).
    pub fn avg_remote_latency_ticks(&self) -> Ticks {
        let avg = self.remote_latency_ticks.checked_div(u128::from(self.remote_messages)).unwrap_or(0);
        Ticks::try_from(avg).unwrap_or(Ticks::MAX)
    }

    /// The communication time M of the granularity: the total latency of the channel
    /// messages and of the remote-memory messages.
    pub fn communication_ticks(&self) -> crate::time::Total {
        self.total_latency_ticks + self.remote_latency_ticks
    }

    /// Granularity, seed 003 §3.3: the computation to communication ratio Σ Cᵢ : M, with
    /// Σ Cᵢ the total busy time of all processors and M the sum of the diagonal edges'
    /// weights, i.e. the total latency of the messages, channel and remote-memory ones
    /// ([`Self::communication_ticks`]). Reported as the quotient Σ Cᵢ / M; `None` when
    /// nothing was communicated (the ratio is infinite).
    pub fn granularity(&self) -> Option<f64> {
        match self.communication_ticks() {
            0 => None,
            m => Some(self.total_busy_ticks() as f64 / m as f64),
        }
    }

    /// The communication matrix as CSV `src,dst,bytes` (the format `cpmap --comm` reads).
    pub fn comm_csv(&self) -> String {
        let mut s = String::from("src,dst,bytes\n");
        for (&(a, b), &n) in &self.comm {
            s.push_str(&format!("{a},{b},{n}\n"));
        }
        s
    }
}

fn ratio(a: Ticks, b: Ticks) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// The summary of a run record read as a stream, without the execution graph and the
/// timeline of a full analysis: memory does not grow with the number of events
/// (`cpperf --comm`).
pub fn summarize<R: Read>(input: R) -> Result<Summary, RecordError> {
    let (mut reader, _) = RunRecordReader::open(input)?;
    let mut b = SummaryBuilder::default();
    while let Some(e) = reader.next_event()? {
        b.event(&e);
    }
    Ok(b.finish(&reader.footer()?.stats))
}

/// Accumulates a [`Summary`] one event at a time, in memory that grows with the number
/// of processors, processes and communicating pairs but not with the number of events.
#[derive(Debug, Default)]
pub struct SummaryBuilder {
    busy: DenseMap<Ticks>,
    vproc_of: DenseMap<u32>,
    /// Bytes by source and destination virtual processor: for each source (by number)
    /// its first [`ROW`] destinations in order of first message, searched from the
    /// latest (a process sends to few others in most programs), the others in `wide`.
    /// Sorted into the matrix at the end.
    comm: DenseMap<Vec<(u32, u64)>>,
    wide: BTreeMap<(u32, u32), u64>,
    /// Remote-memory messages sent and not arrived yet: id → send time.
    remote_sent: std::collections::HashMap<u64, Ticks>,
    remote_messages: u64,
    remote_latency: crate::time::Total,
    /// Arrivals of channel messages (of those the record says were sent).
    channel_arrivals: u64,
}

/// Destinations of a source kept in its row of [`SummaryBuilder`]'s matrix.
const ROW: usize = 16;

impl SummaryBuilder {
    /// Takes one event into account.
    #[inline]
    pub fn event(&mut self, e: &Event) {
        match *e {
            Event::Busy { pproc, start, end, .. } => {
                *self.busy.get_or_insert_with(u64::from(pproc), || 0) += end.saturating_sub(start);
            }
            Event::ProcCreate { pid, vproc: Some(v), .. } => {
                self.vproc_of.insert(u64::from(pid), v);
            }
            Event::MsgSend { time, msg, purpose, .. } if !matches!(purpose, MsgPurpose::Channel { .. }) => {
                self.remote_sent.insert(msg, time);
            }
            Event::MsgArrive { time, msg, .. } => {
                if let Some(t0) = self.remote_sent.remove(&msg) {
                    self.remote_messages += 1;
                    self.remote_latency += crate::time::Total::from(time.saturating_sub(t0));
                } else {
                    self.channel_arrivals += 1;
                }
            }
            Event::MsgSend { src_pid, dst_pid: Some(dst), bytes, .. } => {
                if let (Some(&s), Some(&d)) = (self.vproc_of.get(u64::from(src_pid)), self.vproc_of.get(u64::from(dst)))
                {
                    let row = self.comm.get_or_insert_with(u64::from(s), Vec::new);
                    if let Some(c) = row.iter_mut().rev().find(|c| c.0 == d) {
                        c.1 += u64::from(bytes);
                    } else if row.len() < ROW {
                        row.push((d, u64::from(bytes)));
                    } else {
                        *self.wide.entry((s, d)).or_insert(0) += u64::from(bytes);
                    }
                }
            }
            _ => {}
        }
    }

    /// The summary, with the footer's statistics.
    pub fn finish(self, stats: &RunStats) -> Summary {
        Summary {
            seq_ticks: stats.seq_ticks,
            par_ticks: stats.par_ticks,
            pprocs_used: stats.pprocs_used,
            // Keys came from u32 processor numbers.
            busy: self.busy.iter().filter(|&(_, &b)| b > 0).map(|(p, &b)| (p as u32, b)).collect(),
            messages: stats.messages,
            bytes: stats.bytes,
            total_latency_ticks: stats.total_latency_ticks,
            // The footer's latency covers the messages that arrived: a message still in
            // the network at the end has none (a record without arrivals, as one made
            // from a PICL trace, covers every message).
            latency_messages: stats.latency_messages.unwrap_or(match self.channel_arrivals {
                0 => stats.messages,
                n => n.min(stats.messages),
            }),
            remote_messages: self.remote_messages,
            remote_latency_ticks: self.remote_latency,
            // Keys came from u32 virtual processor numbers; a pair is in a row or in
            // `wide`, never both.
            comm: self
                .comm
                .iter()
                .flat_map(|(s, row)| row.iter().map(move |&(d, n)| ((s as u32, d), n)))
                .chain(self.wide)
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{BusyClass, ChannelDecl, RunHeader, RunRecordWriter};

    #[test]
    fn a_source_with_many_destinations_keeps_every_pair() {
        // Virtual processor 0 sends k + 1 bytes to each k of 1..=40 (more than a row
        // holds), twice; 3 sends 5 to 0. The matrix: 0 → k = 2(k + 1), 3 → 0 = 5.
        let mut b = SummaryBuilder::default();
        for v in 0..=40u32 {
            b.event(&Event::ProcCreate {
                time: 0,
                parent: None,
                pid: v,
                vproc: Some(v),
                pproc: 0,
                function: 0,
                line: 0,
            });
        }
        let send = |src: u32, dst: u32, bytes: u32| Event::MsgSend {
            time: 1,
            msg: 0,
            src_pid: src,
            src_pproc: 0,
            dst_pid: Some(dst),
            dst_pproc: 0,
            purpose: MsgPurpose::Channel { channel: 0, index: 0 },
            bytes,
            line: 1,
        };
        for _ in 0..2 {
            for k in 1..=40u32 {
                b.event(&send(0, k, k + 1));
            }
        }
        b.event(&send(3, 0, 5));
        let s = b.finish(&RunStats::default());
        let mut want: BTreeMap<(u32, u32), u64> = (1..=40u32).map(|k| ((0, k), 2 * u64::from(k + 1))).collect();
        want.insert((3, 0), 5);
        assert_eq!(s.comm, want);
    }

    #[test]
    fn the_streaming_summary_is_the_full_analysis_summary() {
        // Workers 1 and 2 (virtual processors 0 and 1, physical 0 and 1) exchange 8 and 4
        // bytes; processor 0 is busy 0..30 and processor 1 5..25, so busy = 30 and 20.
        let header = RunHeader {
            pprocs: 2,
            functions: vec!["main".into()],
            channels: vec![ChannelDecl { name: "c".into(), dims: vec![] }],
            ..RunHeader::default()
        };
        let create =
            |pid, parent, vproc, pproc| Event::ProcCreate { time: 0, parent, pid, vproc, pproc, function: 0, line: 0 };
        let send = |time, msg, src: u32, dst: u32, bytes| Event::MsgSend {
            time,
            msg,
            src_pid: src,
            src_pproc: src - 1,
            dst_pid: Some(dst),
            dst_pproc: dst - 1,
            purpose: MsgPurpose::Channel { channel: 0, index: 0 },
            bytes,
            line: 1,
        };
        let busy =
            |pproc, start, end| Event::Busy { pproc, pid: pproc + 1, start, end, line: 1, class: BusyClass::Work };
        let events = [
            create(0, None, None, 0),
            create(1, Some(0), Some(0), 0),
            create(2, Some(0), Some(1), 1),
            send(10, 1, 1, 2, 8),
            send(12, 2, 2, 1, 4),
            busy(1, 5, 25),
            busy(0, 0, 30),
        ];
        let stats =
            RunStats { par_ticks: 30, seq_ticks: 50, pprocs_used: 2, messages: 2, bytes: 12, ..RunStats::default() };
        let mut w = RunRecordWriter::new(Vec::new(), &header).unwrap();
        for e in &events {
            w.event(e);
        }
        let bytes = w.finish(&stats).unwrap();
        let s = summarize(&bytes[..]).unwrap();
        assert_eq!(s, crate::perf::analyze(&bytes[..]).unwrap().summary);
        assert_eq!(s.busy, vec![(0, 30), (1, 20)]);
        assert_eq!(s.comm_csv(), "src,dst,bytes\n0,1,8\n1,0,4\n");
        // A damaged record is an error, as for the full analysis.
        assert!(summarize(&bytes[..bytes.len() - 1]).is_err());
    }
}
