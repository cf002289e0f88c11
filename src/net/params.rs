//! The network's parameters, one row each (see [`crate::params`]): what `cpss` offers as
//! flags, config and `--sweep` keys, debugger `set` names, and what the statistics and the
//! run record list, in this order.
use super::{DeadlockMode, NetModel, NetParams};
use crate::params::{Info, Kind, Param, Value};

/// Whole numbers that fit a `u32` field.
const U32: u64 = u32::MAX as u64;

/// Every network parameter, in the order the statistics list them.
pub const PARAMS: &[Param<NetParams>] = &[
    Param {
        info: Info {
            name: "network",
            kind: Kind::Choice(&["wormhole", "packet", "shortest-path", "flow"]),
            default: "wormhole",
            doc: "network model: flit-level wormhole routing with lanes, store-and-forward packets with FIFO links, a contention-free closed form, or flows sharing each link's bandwidth max-min fairly",
            models: "all",
            at_stop: true,
        },
        apply: |p, v| p.model = NetModel::from_name(v.choice()).unwrap_or_default(),
        read: |p| Value::Choice(p.model.name()),
    },
    Param {
        info: Info {
            name: "msg-init",
            kind: Kind::Time { positive: false },
            default: "5",
            doc: "startup cost per message",
            models: "all",
            at_stop: true,
        },
        apply: |p, v| p.msg_init = v.ticks(),
        read: |p| Value::Time(p.msg_init),
    },
    Param {
        info: Info {
            name: "packet-init",
            kind: Kind::Time { positive: false },
            default: "1",
            doc: "startup cost per packet",
            models: "all",
            at_stop: true,
        },
        apply: |p, v| p.packet_init = v.ticks(),
        read: |p| Value::Time(p.packet_init),
    },
    Param {
        info: Info {
            name: "packet-size",
            kind: Kind::Whole { min: 1, max: U32, unit: "bytes" },
            default: "4",
            doc: "packet size, header included (the last packet is padded); the seed's Tables 4 and 5 ran with 4",
            models: "all",
            at_stop: true,
        },
        apply: |p, v| p.packet_size = v.whole32(),
        read: |p| Value::Whole(u64::from(p.packet_size)),
    },
    Param {
        info: Info {
            name: "header-size",
            kind: Kind::Whole { min: 0, max: U32, unit: "bytes" },
            default: "0",
            doc: "header bytes per packet (less than the packet size)",
            models: "all",
            at_stop: true,
        },
        apply: |p, v| p.header_size = v.whole32(),
        read: |p| Value::Whole(u64::from(p.header_size)),
    },
    Param {
        info: Info {
            name: "flit-size",
            kind: Kind::Whole { min: 1, max: U32, unit: "bytes" },
            default: "1",
            doc: "flit size (a packet is ceil(packet-size / flit-size) flits)",
            models: "all",
            at_stop: true,
        },
        apply: |p, v| p.flit_size = v.whole32(),
        read: |p| Value::Whole(u64::from(p.flit_size)),
    },
    Param {
        info: Info {
            name: "link-delay",
            kind: Kind::Time { positive: false },
            default: "5",
            doc: "time for one data flit to cross one link (a head flit: times head-flit-ratio)",
            models: "all",
            at_stop: true,
        },
        apply: |p, v| p.link_delay = v.ticks(),
        read: |p| Value::Time(p.link_delay),
    },
    Param {
        info: Info {
            name: "local-cost",
            kind: Kind::Time { positive: false },
            default: "1",
            doc: "cost of a message between processes on the same physical processor",
            models: "all",
            at_stop: true,
        },
        apply: |p, v| p.local_cost = v.ticks(),
        read: |p| Value::Time(p.local_cost),
    },
    Param {
        info: Info {
            name: "lanes",
            kind: Kind::Whole { min: 1, max: 64, unit: "" },
            default: "2",
            doc: "virtual channels (lanes) per link; 2 gives rings and tori their dateline classes",
            models: "wormhole",
            at_stop: true,
        },
        apply: |p, v| p.lanes = v.whole32(),
        read: |p| Value::Whole(u64::from(p.lanes)),
    },
    Param {
        info: Info {
            name: "buffer-size",
            kind: Kind::Whole { min: 1, max: U32, unit: "flits" },
            default: "4",
            doc: "flits buffered per lane at the far end of a link",
            models: "wormhole",
            at_stop: true,
        },
        apply: |p, v| p.buffer_size = v.whole32(),
        read: |p| Value::Whole(u64::from(p.buffer_size)),
    },
    Param {
        info: Info {
            name: "head-flit-ratio",
            kind: Kind::Real { min: 1.0, max: 1000.0 },
            default: "2",
            doc: "time of a head flit over a link divided by a data flit's: the head also pays for the routing decision and the lane allocation",
            models: "wormhole",
            at_stop: true,
        },
        apply: |p, v| p.head_flit_ratio = v.real(),
        read: |p| Value::Real(p.head_flit_ratio),
    },
    Param {
        info: Info {
            name: "deadlock",
            kind: Kind::Choice(&["resolve", "report"]),
            default: "resolve",
            doc: "a cycle of blocked packets: resolve it over the recovery channel (counted as deadlocks_resolved) or end the run with it and the cycle (exit 1); man page, Deadlock",
            models: "wormhole",
            at_stop: true,
        },
        apply: |p, v| p.deadlock = if v.choice() == "report" { DeadlockMode::Report } else { DeadlockMode::Resolve },
        read: |p| Value::Choice(p.deadlock.name()),
    },
    Param {
        info: Info {
            name: "envelope",
            kind: Kind::Whole { min: 0, max: U32, unit: "bytes" },
            default: "0",
            doc: "bytes a message carries on the wire beyond its payload (its envelope: source, tag, size), cut into packets with it",
            models: "all",
            at_stop: true,
        },
        apply: |p, v| p.envelope = v.whole32(),
        read: |p| Value::Whole(u64::from(p.envelope)),
    },
    Param {
        info: Info {
            name: "hop-latency",
            kind: Kind::Time { positive: false },
            default: "0",
            doc: "time a packet (a wormhole packet's head) spends in the router after each link it crosses, the destination's included, without holding the link",
            models: "all",
            at_stop: true,
        },
        apply: |p, v| p.hop_latency = v.ticks(),
        read: |p| Value::Time(p.hop_latency),
    },
    Param {
        info: Info {
            name: "pad-last-packet",
            kind: Kind::Choice(&["yes", "no"]),
            default: "yes",
            doc: "pad a message's last packet to the full packet size (yes, the seed's: its Table 6 needs it) or send only its bytes and header (no)",
            models: "all",
            at_stop: true,
        },
        apply: |p, v| p.pad_last_packet = v.choice() == "yes",
        read: |p| Value::Choice(if p.pad_last_packet { "yes" } else { "no" }),
    },
    Param {
        info: Info {
            name: "send-overhead",
            kind: Kind::Time { positive: false },
            default: "0",
            doc: "busy time a channel send costs its processor beyond the SEND instruction, before the message leaves (LogGP's o; not scaled by processor speed, not part of the sequential time)",
            models: "all",
            at_stop: true,
        },
        apply: |p, v| p.send_overhead = v.ticks(),
        read: |p| Value::Time(p.send_overhead),
    },
    Param {
        info: Info {
            name: "recv-overhead",
            kind: Kind::Time { positive: false },
            default: "0",
            doc: "busy time a channel receive costs its processor beyond the RECV instruction, once the message is there (LogGP's o; not scaled by processor speed, not part of the sequential time)",
            models: "all",
            at_stop: true,
        },
        apply: |p, v| p.recv_overhead = v.ticks(),
        read: |p| Value::Time(p.recv_overhead),
    },
    Param {
        info: Info {
            name: "eager-limit",
            kind: Kind::OrNone(&Kind::Whole { min: 0, max: U32, unit: "bytes" }),
            default: "none",
            doc: "a channel message of more bytes than this to another processor goes by rendezvous: a request to send, then a clear to send once the receiver waits for it, then the data (none: every message eager)",
            models: "all",
            at_stop: true,
        },
        apply: |p, v| p.eager_limit = v.opt_whole().map(|n| n.min(U32) as u32),
        read: |p| p.eager_limit.map_or(Value::None, |n| Value::Whole(u64::from(n))),
    },
    Param {
        info: Info {
            name: "handshake",
            kind: Kind::Choice(&["network", "free"]),
            default: "network",
            doc: "a rendezvous's request to send and clear to send cross the network as messages of their own (network), or cost nothing (free: the data leaves once the send and a receive waiting for it are both there, as SimGrid's SMPI models a message by default)",
            models: "all",
            at_stop: true,
        },
        apply: |p, v| p.free_handshake = v.choice() == "free",
        read: |p| Value::Choice(if p.free_handshake { "free" } else { "network" }),
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_parses_and_reads_back_as_written() {
        // The defaults are the table's: each parses, and the default structure reads it
        // back in the same spelling.
        let d = NetParams::default();
        assert_eq!(crate::params::defaults_read_back(PARAMS, &d), Ok(()));
        // The seed's defaults in ticks: 5 units per message, 4-byte packets, 5 per flit.
        assert_eq!((d.msg_init, d.packet_size, d.link_delay, d.lanes), (5000, 4, 5000, 2));
    }
}
