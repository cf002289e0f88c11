//! Unmatched sends and receives (seed 003 §6.2, where a message sent but never received
//! revealed a real bug): channel messages that no receive consumed by the end of the run,
//! and receive calls that never completed (the process was still waiting at the end).
//!
//! Matching is by message id: a `RecvDone` names the message it consumed. Remote memory
//! traffic has no receive and is not considered. Depends only on [`crate::trace`].
use crate::dense::DenseMap;
use crate::time::Ticks;
use crate::trace::{ChannelDecl, Event, MsgPurpose, RunHeader};

/// A channel message no receive consumed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnmatchedSend {
    /// The message id.
    pub msg: u64,
    /// Send time.
    pub time: Ticks,
    /// Sending process.
    pub pid: u32,
    /// Receiving process (the channel's owner), when known.
    pub dst_pid: Option<u32>,
    /// Channel index into the header's table.
    pub channel: u32,
    /// Row-major element index.
    pub index: u32,
    /// The element as the source writes it, e.g. `hop[3]` (`#c[i]` when the header does
    /// not name channel `c`).
    pub element: String,
    /// Source line of the send (0 when the record does not say).
    pub line: u32,
    /// Payload bytes.
    pub bytes: u32,
}

/// A receive call that had not completed when the run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingReceive {
    /// Time of the call.
    pub time: Ticks,
    /// Receiving process.
    pub pid: u32,
    /// Channel index.
    pub channel: u32,
    /// Row-major element index.
    pub index: u32,
    /// The element as the source writes it.
    pub element: String,
    /// Source line of the read (0 when the record does not say).
    pub line: u32,
}

/// Unmatched communication of a run, each list in time order (ties by id).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unmatched {
    /// Messages sent and never received.
    pub sends: Vec<UnmatchedSend>,
    /// Receives still waiting at the end.
    pub receives: Vec<PendingReceive>,
}

/// The source form of element `index` of `decl`: `name`, `name[i]`, `name[i][j]`, …
pub fn element_name(decl: Option<&ChannelDecl>, channel: u32, index: u32) -> String {
    let Some(d) = decl else {
        return format!("#{channel}[{index}]");
    };
    if d.dims.is_empty() {
        return d.name.clone();
    }
    let mut subs = vec![0u32; d.dims.len()];
    let mut rest = index;
    for (k, &n) in d.dims.iter().enumerate().rev() {
        let n = n.max(1);
        subs[k] = rest % n;
        rest /= n;
    }
    let mut s = d.name.clone();
    for x in subs {
        s.push_str(&format!("[{x}]"));
    }
    s
}

/// A message in flight as [`UnmatchedBuilder`] keeps it: what an [`UnmatchedSend`]
/// holds but its id (the key) and element name (made at the end), in 32 bytes instead
/// of 72, since a run sends millions.
#[derive(Debug, Clone, Copy)]
struct InFlight {
    time: Ticks,
    pid: u32,
    dst_pid: Option<u32>,
    channel: u32,
    index: u32,
    line: u32,
    bytes: u32,
}

/// Follows sends, receive calls and completions.
#[derive(Debug)]
pub struct UnmatchedBuilder {
    /// Messages not yet received.
    sends: DenseMap<InFlight>,
    /// Receive calls not yet completed, by process.
    waiting: DenseMap<PendingReceive>,
}

impl Default for UnmatchedBuilder {
    fn default() -> Self {
        // Messages are numbered in sending order and mostly received in it.
        UnmatchedBuilder { sends: DenseMap::sliding(), waiting: DenseMap::default() }
    }
}

impl UnmatchedBuilder {
    /// Takes one event into account.
    #[inline]
    pub fn event(&mut self, e: &Event) {
        match *e {
            Event::MsgSend {
                time,
                msg,
                src_pid,
                dst_pid,
                purpose: MsgPurpose::Channel { channel, index },
                bytes,
                line,
                ..
            } => {
                self.sends.insert(msg, InFlight { time, pid: src_pid, dst_pid, channel, index, line, bytes });
            }
            Event::RecvCall { time, pid, channel, index, line, .. } => {
                self.waiting
                    .insert(u64::from(pid), PendingReceive { time, pid, channel, index, element: String::new(), line });
            }
            Event::RecvDone { pid, msg, .. } => {
                self.sends.remove(msg);
                self.waiting.remove(u64::from(pid));
            }
            _ => {}
        }
    }

    /// What is left unmatched, with channel names from `header`.
    pub fn finish(self, header: &RunHeader) -> Unmatched {
        let mut sends: Vec<UnmatchedSend> = self
            .sends
            .iter()
            .map(|(msg, s)| UnmatchedSend {
                msg,
                time: s.time,
                pid: s.pid,
                dst_pid: s.dst_pid,
                channel: s.channel,
                index: s.index,
                element: element_name(header.channel(s.channel), s.channel, s.index),
                line: s.line,
                bytes: s.bytes,
            })
            .collect();
        sends.sort_by_key(|s| (s.time, s.msg));
        let mut receives: Vec<PendingReceive> = self
            .waiting
            .iter()
            .map(|(_, r)| r.clone())
            .map(|mut r| {
                r.element = element_name(header.channel(r.channel), r.channel, r.index);
                r
            })
            .collect();
        receives.sort_by_key(|r| (r.time, r.pid));
        Unmatched { sends, receives }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_names_follow_row_major_order() {
        let d = ChannelDecl { name: "grid".into(), dims: vec![2, 3] };
        // Index 5 of a 2x3 array is row 1, column 2 (5 = 1·3 + 2).
        assert_eq!(element_name(Some(&d), 0, 5), "grid[1][2]");
        let s = ChannelDecl { name: "done".into(), dims: vec![] };
        assert_eq!(element_name(Some(&s), 1, 0), "done");
        assert_eq!(element_name(None, 4, 2), "#4[2]");
    }

    #[test]
    fn a_consumed_message_is_matched_and_the_other_is_not() {
        let header =
            RunHeader { channels: vec![ChannelDecl { name: "c".into(), dims: vec![4] }], ..RunHeader::default() };
        let send = |time, msg, line| Event::MsgSend {
            time,
            msg,
            src_pid: 1,
            src_pproc: 1,
            dst_pid: Some(0),
            dst_pproc: 0,
            purpose: MsgPurpose::Channel { channel: 0, index: 2 },
            bytes: 4,
            line,
        };
        let mut b = UnmatchedBuilder::default();
        for e in [
            send(10, 0, 7),
            send(20, 1, 8),
            Event::RecvCall { time: 30, pid: 0, pproc: 0, channel: 0, index: 2, line: 12 },
            Event::RecvDone { time: 31, pid: 0, pproc: 0, msg: 0, src_pid: 1, bytes: 4 },
            Event::RecvCall { time: 40, pid: 2, pproc: 2, channel: 0, index: 3, line: 15 },
        ] {
            b.event(&e);
        }
        let u = b.finish(&header);
        // Message 0 was consumed; message 1 (line 8) was not; process 2 still waits on c[3].
        assert_eq!(u.sends.len(), 1);
        assert_eq!((u.sends[0].msg, u.sends[0].line, u.sends[0].element.as_str()), (1, 8, "c[2]"));
        assert_eq!(u.receives.len(), 1);
        assert_eq!((u.receives[0].pid, u.receives[0].element.as_str()), (2, "c[3]"));
    }
}
