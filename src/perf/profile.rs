//! Distributions of a run (FORMATS.md "What the best analysers report"): the concurrency
//! histogram (share of time with exactly k processors busy, ParaGraph), the message size
//! histogram, Late Sender wait per receiving process (Scalasca: arrival − receive call,
//! when positive), Late Receiver wait (Scalasca: receive call − send, when positive, for
//! the message of an `MPI_Ssend`, whose sender waits for the receive) and the
//! critical-path profile per processor and per activity kind.
//!
//! Depends on [`super::graph`], [`super::svg::Timeline`] and [`crate::trace`].
use super::graph::{BusyProfile, CriticalPath};
use crate::dense::DenseMap;
use crate::time::Ticks;
use crate::trace::Event;
use std::collections::BTreeMap;

/// The distributions of one run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    /// Entry k: ticks of `[0, end)` during which exactly k processors were busy.
    pub concurrency: Vec<Ticks>,
    /// Messages by payload size class: `(upper bound in bytes, count)` for the powers of
    /// two 1, 2, 4, …; a message of b bytes counts in the first class with bound ≥ b.
    pub sizes: Vec<(u64, u64)>,
    /// Late Sender wait per receiving process: `(pid, total ticks, receives that waited)`.
    pub late_sender: Vec<(u32, Ticks, u64)>,
    /// Late Sender wait per call site, the source line of the receive (of the MPI call
    /// for an MPI program): `(line, total ticks, receives that waited)`, by line.
    pub late_sender_lines: Vec<(u32, Ticks, u64)>,
    /// Late Receiver wait per sending process: `(pid, total ticks, MPI_Ssend calls that
    /// waited)`; a call waits receive call − send when its receive is called later.
    pub late_receiver: Vec<(u32, Ticks, u64)>,
    /// Late Receiver wait per call site (the `MPI_Ssend` call's line), by line.
    pub late_receiver_lines: Vec<(u32, Ticks, u64)>,
    /// Ticks of the critical path per physical processor of the process on it (messages,
    /// spawns and joins charged to the sender, parent or ended child).
    pub path_by_pproc: Vec<(u32, Ticks)>,
    /// Ticks of the critical path per activity kind (compute, message, spawn, join).
    pub path_by_kind: Vec<(&'static str, Ticks)>,
}

impl Profile {
    /// The measured serial fraction f of seed 003 §3.4's Amdahl's law: the computation
    /// done while exactly one processor was busy, over all computation (busy time summed
    /// over processors); `None` without busy time.
    pub fn serial_fraction(&self) -> Option<f64> {
        let work: crate::time::Total = self
            .concurrency
            .iter()
            .enumerate()
            .map(|(k, &t)| k as crate::time::Total * crate::time::Total::from(t))
            .sum();
        let alone = self.concurrency.get(1).copied().unwrap_or(0);
        (work > 0).then(|| alone as f64 / work as f64)
    }

    /// Amdahl's upper bound on the speedup on `n` processors with the measured serial
    /// fraction: S(n) ≤ 1 / (f + (1 − f) / n) (seed 003 §3.4).
    pub fn amdahl_bound(&self, n: u32) -> Option<f64> {
        let f = self.serial_fraction()?;
        (n > 0).then(|| 1.0 / (f + (1.0 - f) / f64::from(n)))
    }
}

/// Follows the events the distributions need.
#[derive(Debug)]
pub struct ProfileBuilder {
    /// Messages per size class: entry k counts those of class 2^k (a payload is a u32).
    sizes: [u64; 33],
    /// Per process, the time and line of its pending receive call.
    call: DenseMap<(Ticks, u32)>,
    arrival: DenseMap<Ticks>,
    /// Late Sender wait and count per receiving process.
    late: DenseMap<(Ticks, u64)>,
    /// Late Sender wait and count per line of the receive.
    late_lines: BTreeMap<u32, (Ticks, u64)>,
    /// The run's `MPI_Ssend` function (index into the header's functions), if any.
    ssend: Option<u32>,
    /// Per process, how many `MPI_Ssend` calls are open (its wait inside one is for the
    /// acknowledgement, not a Late Sender).
    in_ssend: DenseMap<u32>,
    /// The messages of open `MPI_Ssend` calls: message → (send time, line, sender).
    ssend_msgs: BTreeMap<u64, (Ticks, u32, u32)>,
    /// Late Receiver wait and count per sending process and per line.
    late_recv: DenseMap<(Ticks, u64)>,
    late_recv_lines: BTreeMap<u32, (Ticks, u64)>,
}

impl Default for ProfileBuilder {
    fn default() -> Self {
        ProfileBuilder {
            sizes: [0; 33],
            call: DenseMap::default(),
            // Messages are numbered in sending order and mostly received in it.
            arrival: DenseMap::sliding(),
            late: DenseMap::default(),
            late_lines: BTreeMap::new(),
            ssend: None,
            in_ssend: DenseMap::default(),
            ssend_msgs: BTreeMap::new(),
            late_recv: DenseMap::default(),
            late_recv_lines: BTreeMap::new(),
        }
    }
}

/// The size class of `bytes`: the smallest power of two not below it (1 for 0).
pub fn size_class(bytes: u64) -> u64 {
    bytes.max(1).next_power_of_two()
}

impl ProfileBuilder {
    /// A builder for a run whose functions are `functions` (the header's table).
    pub fn new(functions: &[String]) -> Self {
        let ssend = functions.iter().position(|f| f == "MPI_Ssend").map(|i| i as u32);
        ProfileBuilder { ssend, ..ProfileBuilder::default() }
    }

    /// Whether [`Event::Enter`] and [`Event::Leave`] matter (the run calls `MPI_Ssend`).
    pub fn wants_calls(&self) -> bool {
        self.ssend.is_some()
    }

    /// Takes one event into account.
    #[inline]
    pub fn event(&mut self, e: &Event) {
        match *e {
            Event::MsgSend {
                time,
                msg,
                src_pid,
                bytes,
                line,
                purpose: crate::trace::MsgPurpose::Channel { .. },
                ..
            } => {
                self.sizes[size_class(u64::from(bytes)).trailing_zeros() as usize] += 1;
                if self.ssend.is_some() && self.in_ssend.get(u64::from(src_pid)).is_some_and(|&n| n > 0) {
                    self.ssend_msgs.insert(msg, (time, line, src_pid));
                }
            }
            Event::MsgArrive { time, msg, .. } => {
                self.arrival.insert(msg, time);
            }
            Event::RecvCall { time, pid, line, .. } => {
                self.call.insert(u64::from(pid), (time, line));
            }
            Event::RecvDone { pid, msg, .. } => {
                // The arrival event precedes the completion in the record; traces without
                // arrivals (PICL) have no Late Sender figure.
                let call = self.call.remove(u64::from(pid));
                if let (Some((c, _)), Some((s, line, sender))) = (call, self.ssend_msgs.remove(&msg)) {
                    // A synchronous send's message: its sender waited from s for this
                    // receive, called at c.
                    if c > s {
                        let w = self.late_recv.get_or_insert_with(u64::from(sender), || (0, 0));
                        w.0 += c - s;
                        w.1 += 1;
                        let l = self.late_recv_lines.entry(line).or_insert((0, 0));
                        l.0 += c - s;
                        l.1 += 1;
                    }
                }
                // The wait of an MPI_Ssend for its acknowledgement is the receiver's
                // (above), not a Late Sender.
                let acknowledgement = self.ssend.is_some() && self.in_ssend.get(u64::from(pid)).is_some_and(|&n| n > 0);
                if let (Some((c, line)), Some(a)) = (call, self.arrival.remove(msg)) {
                    if a > c && !acknowledgement {
                        let w = self.late.get_or_insert_with(u64::from(pid), || (0, 0));
                        w.0 += a - c;
                        w.1 += 1;
                        let l = self.late_lines.entry(line).or_insert((0, 0));
                        l.0 += a - c;
                        l.1 += 1;
                    }
                }
            }
            Event::Enter { pid, function, .. } if Some(function) == self.ssend => {
                *self.in_ssend.get_or_insert_with(u64::from(pid), || 0) += 1;
            }
            Event::Leave { pid, function, .. } if Some(function) == self.ssend => {
                if let Some(n) = self.in_ssend.get_mut(u64::from(pid)) {
                    *n = n.saturating_sub(1);
                }
            }
            _ => {}
        }
    }

    /// The distributions, with the busy intervals over `[0, end)` and `pproc_of`, the
    /// processor of each process.
    pub fn finish(self, pproc_of: &BTreeMap<u32, u32>, busy: &BusyProfile, path: &CriticalPath, end: Ticks) -> Profile {
        Profile {
            concurrency: busy.concurrency(end),
            sizes: (0..).zip(self.sizes).filter(|&(_, n)| n > 0).map(|(k, n)| (1u64 << k, n)).collect(),
            late_sender: self.late.iter().map(|(p, &(w, n))| (p as u32, w, n)).collect(),
            late_sender_lines: self.late_lines.into_iter().map(|(l, (w, n))| (l, w, n)).collect(),
            late_receiver: self.late_recv.iter().map(|(p, &(w, n))| (p as u32, w, n)).collect(),
            late_receiver_lines: self.late_recv_lines.into_iter().map(|(l, (w, n))| (l, w, n)).collect(),
            path_by_pproc: {
                let mut m: BTreeMap<u32, Ticks> = BTreeMap::new();
                for s in &path.segments {
                    let p = pproc_of.get(&s.pid).copied().unwrap_or(u32::MAX);
                    *m.entry(p).or_insert(0) += s.to - s.from;
                }
                m.into_iter().collect()
            },
            path_by_kind: {
                let mut m: BTreeMap<&'static str, Ticks> = BTreeMap::new();
                for s in &path.segments {
                    *m.entry(s.kind.name()).or_insert(0) += s.to - s.from;
                }
                m.into_iter().collect()
            },
        }
    }
}

/// Ticks of `[0, end)` with exactly k intervals open, for k = 0 up to the most open at
/// once: a sweep over the sorted interval ends.
pub fn concurrency(busy: &[(u32, u32, Ticks, Ticks)], end: Ticks) -> Vec<Ticks> {
    BusyProfile::from_intervals(busy.iter().map(|&(_, _, s, e)| (s, e))).concurrency(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrency_counts_time_by_busy_processors() {
        // [0,10) 1 busy, [10,20) 2, [20,30) 1, [30,40) 0 (end 40): 10, 20, 10 ticks for
        // k = 0, 1, 2, summing to the end.
        let h = concurrency(&[(0, 0, 0, 20), (1, 1, 10, 30)], 40);
        assert_eq!(h, vec![10, 20, 10]);
        assert_eq!(h.iter().sum::<Ticks>(), 40);
        assert_eq!(concurrency(&[], 5), vec![5]);
    }

    #[test]
    fn size_classes_are_powers_of_two() {
        assert_eq!([size_class(0), size_class(1), size_class(3), size_class(4), size_class(5)], [1, 1, 4, 4, 8]);
    }

    /// Channel messages of 0, 1, 3, 4, 5 and u32::MAX bytes fall in the classes 1, 1,
    /// 4, 4, 8 and 2^32 (the largest a payload can reach), listed by bound; a remote
    /// access is no channel message and counts nowhere.
    #[test]
    fn message_sizes_count_by_class_up_to_the_largest_payload() {
        let send = |bytes, purpose| Event::MsgSend {
            time: 0,
            msg: 0,
            src_pid: 0,
            src_pproc: 0,
            dst_pid: None,
            dst_pproc: 1,
            purpose,
            bytes,
            line: 0,
        };
        let channel = crate::trace::MsgPurpose::Channel { channel: 0, index: 0 };
        let mut b = ProfileBuilder::default();
        for bytes in [0, 1, 3, 4, 5, u32::MAX] {
            b.event(&send(bytes, channel));
        }
        b.event(&send(2, crate::trace::MsgPurpose::RemoteRead { addr: 0 }));
        let p = b.finish(&BTreeMap::new(), &BusyProfile::default(), &CriticalPath::default(), 1);
        assert_eq!(p.sizes, vec![(1, 2), (4, 2), (8, 1), (1 << 32, 1)]);
    }

    #[test]
    fn late_sender_is_arrival_minus_call_when_positive() {
        let mut b = ProfileBuilder::default();
        for e in [
            // Process 0 calls at 10, the message arrives at 25: 15 ticks of Late Sender.
            Event::RecvCall { time: 10, pid: 0, pproc: 0, channel: 0, index: 0, line: 0 },
            Event::MsgArrive { time: 25, msg: 1, dst_pproc: 0 },
            Event::RecvDone { time: 26, pid: 0, pproc: 0, msg: 1, src_pid: 1, bytes: 4 },
            // The next message was there before the call: no wait.
            Event::MsgArrive { time: 30, msg: 2, dst_pproc: 0 },
            Event::RecvCall { time: 40, pid: 0, pproc: 0, channel: 0, index: 0, line: 0 },
            Event::RecvDone { time: 41, pid: 0, pproc: 0, msg: 2, src_pid: 1, bytes: 4 },
        ] {
            b.event(&e);
        }
        let p = b.finish(&BTreeMap::new(), &BusyProfile::default(), &CriticalPath::default(), 50);
        assert_eq!(p.late_sender, vec![(0, 15, 1)]);
    }
}
