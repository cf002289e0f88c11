//! The bridge between the processors and the network: messages in a contention network
//! and what their arrival will do (remote reads and lock requests that answer, remote
//! writes that land), the routes and deadlock resolutions to report, and the network's
//! own thread when it runs ahead of the processors ([`super::net_worker`]).
use super::net_worker::NetWorker;
use super::InFlight;
use crate::time::TimeQueue;
use crate::vcode::Word;
use std::collections::HashMap;

/// What the processors have handed the network and not yet got back.
pub(super) struct Bridge {
    /// Messages in a contention network, by id.
    pub(super) in_flight: HashMap<u64, InFlight, std::hash::BuildHasherDefault<crate::net::TickHash>>,
    pub(super) hop_buf: Vec<crate::net::Hop>,
    /// Deadlocks the network resolved, between [`Simulator::flush_hops`] calls.
    pub(super) resolved: Vec<crate::net::Resolution>,
    /// The network's thread, when it runs ahead of the processors ([`net_worker`]).
    pub(super) ahead: Option<Box<NetWorker>>,
    /// Messages in a contention network whose arrival makes a send (remote-read
    /// requests, spinlock requests and releases: [`read_requests`]).
    pub(super) reads_pending: u32,
    /// Quanta in which the network ran ahead.
    pub(super) quanta_ahead: u64,
    /// Remote writes whose arrival is known and which have not landed, by arrival
    /// ([`Simulator::land_writes`]).
    pub(super) landing: TimeQueue<Landing>,
    /// Remote writes in a contention network whose arrival is not known yet.
    pub(super) loads_pending: u32,
    /// The id of the last message handed to the network (ids order messages that
    /// arrive at the same time).
    pub(super) msg_seq: u64,
}

impl Bridge {
    /// Nothing in flight, the network on the processors' thread.
    pub(super) fn new() -> Bridge {
        Bridge {
            in_flight: HashMap::default(),
            hop_buf: Vec::new(),
            resolved: Vec::new(),
            ahead: None,
            reads_pending: 0,
            quanta_ahead: 0,
            landing: TimeQueue::new(),
            loads_pending: 0,
            msg_seq: 0,
        }
    }
}

/// A word of a remote write, travelling to its owner's memory.
pub(super) struct Landing {
    pub(super) index: u32,
    pub(super) word: Word,
    /// The writer.
    pub(super) pid: u32,
    /// The processor that owned the word when it was written (a word given to another
    /// processor meanwhile is not overwritten).
    pub(super) owner: u32,
}
