//! The `packet` model: store-and-forward packet switching with link contention
//! (seed 000 App. A 2.4.3, "simulated packet switching network ... with message
//! congestion turned on").
//!
//! A message of `b` bytes becomes `P` packets of `F` flits (as in [`ShortestPath`]),
//! all ready at `send + msg_init + P * packet_init`. A packet crosses a link in
//! `F * per_flit + latency` and is forwarded only when it has wholly arrived and has
//! spent `hop_latency` in the router at the link's end (the link is free meanwhile). Each
//! directed link serves the packets that reach it one at a time in order of arrival
//! (FIFO; packets reaching it at the same moment go in the order their events were made,
//! which is send order for packets leaving one processor). Buffers are unbounded. The
//! message arrives when its last packet does.
//!
//! In an idle network this is exactly the closed form of [`ShortestPath`]: the packets
//! leave the first link back to back and every later link is free when they reach it.
//!
//! [`ShortestPath`]: super::ShortestPath
use super::fabric::{Events, Fabric, RouteHop, Slab};
use super::{Hop, LinkCost, LinkLoad, NetError, NetParams, Network, NEVER};
use crate::time::Ticks;
use crate::topo::Topology;

/// Store-and-forward packet switching, FIFO per link.
pub struct PacketSwitched {
    params: NetParams,
    fabric: Fabric,
    /// Per link slot: when it is free again, and its busy time so far.
    free_at: Vec<Ticks>,
    busy: Vec<Ticks>,
    /// Each event is a packet reaching the node before hop `Pkt::hop` of its route.
    events: Events,
    pkts: Slab<Pkt>,
    msgs: Slab<Msg>,
    record: bool,
    hops: Vec<Hop>,
    /// `--link-stats` asked for (busy times are kept anyway: one addition per flit).
    count: bool,
    /// Flits carried over a link so far (a packet's crossing counts its flits).
    flit_hops: u64,
}

#[derive(Default)]
struct Pkt {
    msg: u32,
    index: u32,
    hop: u32,
}

#[derive(Default)]
struct Msg {
    id: u64,
    /// Its processors and route.
    src: u32,
    dst: u32,
    route: Vec<RouteHop>,
    /// Flits per packet (the last one's apart), per-flit time and time in each router
    /// (fixed at the send), packets.
    flits: u64,
    last_flits: u64,
    packets: u32,
    link_delay: Ticks,
    hop_latency: Ticks,
    /// Packets still travelling, and the latest arrival so far.
    left: u32,
    last: Ticks,
}

impl PacketSwitched {
    /// The model on `topo`, with per-link costs `links` (empty: uniform).
    pub fn new(params: NetParams, topo: Topology, links: Vec<LinkCost>) -> PacketSwitched {
        PacketSwitched {
            params,
            fabric: Fabric::new(topo, links),
            free_at: Vec::new(),
            busy: Vec::new(),
            events: Events::default(),
            pkts: Slab::new(),
            msgs: Slab::new(),
            record: false,
            hops: Vec::new(),
            count: false,
            flit_hops: 0,
        }
    }
}

impl Network for PacketSwitched {
    fn send(&mut self, id: u64, src: u32, dst: u32, bytes: u32, now: Ticks) -> Option<Ticks> {
        let p = &self.params;
        if src == dst {
            return Some(now + p.local_cost);
        }
        let (packets, flits, link_delay, hop_latency) = (p.packets(bytes), p.flits(), p.link_delay, p.hop_latency);
        let ready = now + p.msg_init + packets * p.packet_init;
        let m = self.msgs.alloc();
        let mut route = std::mem::take(&mut self.msgs.items[m as usize].route);
        let (free_at, busy) = (&mut self.free_at, &mut self.busy);
        self.fabric.route(src, dst, 1, &mut route, |_| {
            free_at.push(0);
            busy.push(0);
        });
        self.msgs.items[m as usize] = Msg {
            id,
            src,
            dst,
            route,
            flits,
            last_flits: p.last_flits(bytes),
            packets: packets.min(u32::MAX as u64) as u32,
            link_delay,
            hop_latency,
            left: packets.min(u32::MAX as u64) as u32,
            last: 0,
        };
        for index in 0..packets.min(u32::MAX as u64) as u32 {
            let k = self.pkts.alloc();
            self.pkts.items[k as usize] = Pkt { msg: m, index, hop: 0 };
            self.events.push(ready, k);
        }
        None
    }

    fn next_arrival(&mut self, until: Ticks) -> Option<(u64, Ticks)> {
        while let Some((t, k)) = self.events.pop_before(until) {
            let Pkt { msg, index, hop } = self.pkts.items[k as usize];
            let m = &mut self.msgs.items[msg as usize];
            let Some(&h) = m.route.get(hop as usize) else {
                // At the destination.
                self.pkts.release(k);
                m.left -= 1;
                m.last = m.last.max(t);
                if m.left == 0 {
                    let done = (m.id, m.last);
                    self.msgs.release(msg);
                    return Some(done);
                }
                continue;
            };
            let LinkCost { per_flit, latency, .. } =
                self.fabric.cost(self.fabric.slot_link[h.link as usize], m.link_delay);
            let flits = if index + 1 == m.packets { m.last_flits } else { m.flits };
            let cross = flits * per_flit + latency;
            let l = h.link as usize;
            let start = t.max(self.free_at[l]);
            let end = start + cross;
            self.free_at[l] = end;
            self.busy[l] += cross;
            self.flit_hops += flits;
            if self.record {
                let l = self.fabric.hop_ends(h.link, m.src, m.dst);
                self.hops.push(Hop { msg: m.id, packet: index, from: l.from, to: l.to, enter: start, leave: end });
            }
            self.pkts.items[k as usize].hop += 1;
            self.events.push(end + m.hop_latency, k);
        }
        None
    }

    fn next_event(&self) -> Ticks {
        self.events.peek().unwrap_or(NEVER)
    }

    fn in_flight(&self) -> usize {
        self.msgs.live()
    }

    fn params(&self) -> &NetParams {
        &self.params
    }

    fn set_params(&mut self, params: NetParams) -> Result<(), NetError> {
        params.validate()?;
        self.params = params;
        Ok(())
    }

    fn record_hops(&mut self, on: bool) {
        self.record = on;
        if on {
            self.fabric.keep_ends();
        }
    }

    fn take_hops(&mut self, out: &mut Vec<Hop>) {
        out.append(&mut self.hops);
    }

    fn count_links(&mut self, on: bool) {
        self.count = on;
    }

    fn flit_hops(&self) -> u64 {
        self.flit_hops
    }

    fn link_busy(&self) -> Vec<LinkLoad> {
        if self.count {
            self.fabric.loads(&self.busy)
        } else {
            Vec::new()
        }
    }
}

/// Runs `sends` (id, src, dst, bytes, time) to completion as the simulator would (the
/// network never moves past a send before it is made); the arrivals sorted by id.
#[cfg(test)]
pub(super) fn drive(net: &mut dyn Network, sends: &[(u64, u32, u32, u32, Ticks)]) -> Vec<(u64, Ticks)> {
    let mut sends = sends.to_vec();
    sends.sort_by_key(|s| s.4);
    let mut out = Vec::new();
    for &(id, s, d, b, t) in &sends {
        while let Some(a) = net.next_arrival(t) {
            out.push(a);
        }
        if let Some(at) = net.send(id, s, d, b, t) {
            out.push((id, at));
        }
    }
    while let Some(a) = net.next_arrival(NEVER) {
        out.push(a);
    }
    assert_eq!(net.in_flight(), 0, "messages left in the network: {:?}", net.blocked());
    out.sort_unstable();
    out
}

/// [`drive`] with the hops recorded: the hops of `sends`, as the network reports them.
#[cfg(test)]
pub(super) fn drive_hops(net: &mut dyn Network, sends: &[(u64, u32, u32, u32, Ticks)]) -> Vec<Hop> {
    net.record_hops(true);
    drive(net, sends);
    let mut hops = Vec::new();
    net.take_hops(&mut hops);
    hops
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ShortestPath;
    use crate::time::TICKS_PER_UNIT as U;

    fn net(topo: &str, p: &NetParams) -> PacketSwitched {
        PacketSwitched::new(p.clone(), Topology::parse(topo).unwrap(), Vec::new())
    }

    #[test]
    fn idle_network_matches_the_closed_form() {
        // line:8, hops 1, 3 and 7; 4 bytes (one packet), 28 (one full packet), 100 (four
        // packets); default parameters, a second set, and one-flit packets (4 bytes, no
        // header: 4 bytes is one flit, 28 bytes 7 packets, 100 bytes 25).
        let mut other = NetParams { msg_init: 2 * U, packet_init: 3 * U, link_delay: 2 * U, ..crate::net::classic() };
        other.packet_size = 16;
        other.header_size = 2;
        other.flit_size = 2;
        let one_flit = NetParams { packet_size: 4, header_size: 0, flit_size: 4, ..crate::net::classic() };
        for p in [crate::net::classic(), other, one_flit] {
            for hops in [1u32, 3, 7] {
                for bytes in [4u32, 28, 100] {
                    let mut n = net("line:8", &p);
                    let got = drive(&mut n, &[(1, 0, hops, bytes, 10 * U)]);
                    let want = 10 * U + ShortestPath::latency(&p, hops, bytes);
                    assert_eq!(got, vec![(1, want)], "hops {hops} bytes {bytes} params {p:?}");
                }
            }
        }
    }

    #[test]
    fn two_messages_share_a_link_in_fifo_order() {
        // line:4, default parameters: one packet = 8 flits = 8 units per link.
        // Message 1: 0 -> 2 sent at 0, ready at 6, crosses 0->1 during [6, 14),
        //   1->2 during [14, 22): arrives 22.
        // Message 2: 1 -> 3 sent at 8, ready at 14, wants 1->2 at 14 when message 1
        //   reaches it too; message 1's packet queued first (its event was made
        //   first), so message 2 crosses 1->2 during [22, 30) and 2->3 during
        //   [30, 38): arrives 38 instead of 14 + 16 = 30 — 8 units of contention.
        let p = crate::net::classic();
        let mut n = net("line:4", &p);
        let got = drive(&mut n, &[(1, 0, 2, 4, 0), (2, 1, 3, 4, 8 * U)]);
        assert_eq!(got, vec![(1, 22 * U), (2, 38 * U)]);
        // Link busy time: 0->1 8, 1->2 16, 2->3 8 units.
        n.count_links(true);
        let busy: Vec<Ticks> = n.link_busy().iter().map(|l| l.busy / U).collect();
        assert_eq!(busy, vec![8, 16, 8]);
        // Two packets of 8 flits, each over 2 links: 32 flit-hops.
        assert_eq!(n.flit_hops(), 32);
    }

    #[test]
    fn envelope_and_router_time_idle_and_contended() {
        // Idle, by hand: classic (28 payload bytes, 8 flits of 1 unit per packet), 4
        // bytes + a 28-byte envelope = 2 packets, 2 units per router, 3 hops. Ready at
        // 5 + 2 = 7; packet 1 crosses [7,15), [17,25), [27,35) and is out of the last
        // router at 37; packet 2 crosses [15,23), [25,33), [35,43): out at 45.
        let p = NetParams { envelope: 28, hop_latency: 2 * U, ..crate::net::classic() };
        let got = drive(&mut net("line:4", &p), &[(1, 0, 3, 4, 0)]);
        assert_eq!(got, vec![(1, 45 * U)]);
        assert_eq!(ShortestPath::latency(&p, 3, 4), 45 * U);
        // Two messages on one link, router time 4: ready at 6, the link carries them
        // during [6,14) and [14,22), out of the router at 18 and 26. The router does not
        // hold the link: were it part of the crossing, the second would be out at 30.
        let p = NetParams { hop_latency: 4 * U, ..crate::net::classic() };
        let got = drive(&mut net("line:2", &p), &[(1, 0, 1, 4, 0), (2, 0, 1, 4, 0)]);
        assert_eq!(got, vec![(1, 18 * U), (2, 26 * U)]);
        // Two messages of 2 packets each (the envelope's), ready at 7: the link serves
        // 1's packets during [7,15), [15,23), then 2's during [23,31), [31,39).
        let p = NetParams { envelope: 28, ..crate::net::classic() };
        let got = drive(&mut net("line:2", &p), &[(1, 0, 1, 4, 0), (2, 0, 1, 4, 0)]);
        assert_eq!(got, vec![(1, 23 * U), (2, 39 * U)]);
    }

    #[test]
    fn unpadded_last_packets_idle_and_contended() {
        // Idle: the closed form's 54 units (see closed.rs) for 100 bytes over 3 hops.
        let p = NetParams { pad_last_packet: false, ..crate::net::classic() };
        assert_eq!(drive(&mut net("line:4", &p), &[(1, 0, 3, 100, 0)]), vec![(1, 54 * U)]);
        // Two messages of 30 bytes (a full packet and one of 2 bytes + header = 2 flits)
        // on one link, ready at 7: 1's packets cross during [7,15), [15,17), 2's during
        // [17,25), [25,27). Padded, they would arrive at 23 and 39.
        let got = drive(&mut net("line:2", &p), &[(1, 0, 1, 30, 0), (2, 0, 1, 30, 0)]);
        assert_eq!(got, vec![(1, 17 * U), (2, 27 * U)]);
    }

    #[test]
    fn three_messages_queue_on_one_link() {
        // Three single-packet messages 0 -> 1 sent at 0, 0 and 1: ready at 6, 6, 7; the
        // link serves them during [6,14), [14,22), [22,30): each waits for the ones
        // ahead (0, 8 and 15 units of contention).
        let p = crate::net::classic();
        let mut n = net("line:2", &p);
        let got = drive(&mut n, &[(1, 0, 1, 4, 0), (2, 0, 1, 4, 0), (3, 0, 1, 4, U)]);
        assert_eq!(got, vec![(1, 14 * U), (2, 22 * U), (3, 30 * U)]);
    }

    #[test]
    fn hops_are_recorded() {
        let p = crate::net::classic();
        let hops = drive_hops(&mut net("line:4", &p), &[(7, 0, 2, 4, 0)]);
        let want = vec![
            Hop { msg: 7, packet: 0, from: 0, to: 1, enter: 6 * U, leave: 14 * U },
            Hop { msg: 7, packet: 0, from: 1, to: 2, enter: 14 * U, leave: 22 * U },
        ];
        assert_eq!(hops, want);
    }
}
