//! The `shortest-path` model: store-and-forward packet switching with contention off, as
//! a closed form (seed 000 App. A 2.4.3: "the shortest path network simulates a packet
//! switching network with message congestion turned off").
use super::{Hop, LinkCost, LinkLoad, NetError, NetParams, Network};
use crate::time::Ticks;
use crate::topo::{Link, Topology};
use std::collections::BTreeMap;

/// Store-and-forward packet switching without contention.
///
/// For a message of `b` bytes over `h >= 1` hops:
///
/// ```text
/// P         = max(1, ceil((b + envelope) / (packet_size - header_size)))   packets
/// F         = ceil(packet_size / flit_size)                  flits per packet
/// latency   = msg_init + P * packet_init + (h + P - 1) * F * link_delay + h * hop_latency
/// ```
///
/// With `pad_last_packet` off the last packet has `Fl <= F` flits
/// ([`NetParams::last_flits`]); it catches up with the full packet ahead of it, so
/// `(h + P - 1) * F` becomes `(h + P - 2) * F + Fl` (and `h * Fl` when `P = 1`).
///
/// The message and its envelope are cut into packets (`msg_init + P * packet_init`),
/// then each packet takes `F * link_delay` to cross a link and is forwarded only when
/// whole; packets follow each other in a pipeline, so the last one leaves the first link
/// after `P` link times and needs `h - 1` more. After each link a packet spends
/// `hop_latency` in the router (the destination's too) without holding the link, so the
/// pipeline's pace is unchanged and the last packet pays it `h` times. A message to the
/// same processor (`h = 0`) costs `local_cost`.
///
/// With per-link costs ([`LinkCost`]) a packet crosses link `l` in
/// `F * per_flit(l) + latency(l)`, and the pipeline of packets moves at the pace of the
/// slowest link of the route:
///
/// ```text
/// latency = msg_init + P * packet_init + sum over the route of (F * per_flit + latency)
///           + (P - 1) * max over the route of (F * per_flit + latency) + h * hop_latency
/// ```
///
/// which is the formula above when every link costs `link_delay` per flit and no latency.
pub struct ShortestPath {
    params: NetParams,
    topo: Topology,
    links: Vec<LinkCost>,
    route: Vec<Link>,
    /// `--trace-routes` and `--link-stats`: each packet's crossings follow the
    /// pipeline of the closed form.
    record: bool,
    hops: Vec<Hop>,
    count: bool,
    busy: BTreeMap<Link, Ticks>,
    ends: Vec<Ticks>,
}

impl ShortestPath {
    /// The model on the physical topology `topo`.
    pub fn new(params: NetParams, topo: Topology) -> ShortestPath {
        ShortestPath::with_links(params, topo, Vec::new())
    }

    /// The model with a cost per directed link (indexed by [`Topology::link_index`];
    /// empty: uniform).
    pub fn with_links(params: NetParams, topo: Topology, links: Vec<LinkCost>) -> ShortestPath {
        ShortestPath {
            params,
            topo,
            links,
            route: Vec::new(),
            record: false,
            hops: Vec::new(),
            count: false,
            busy: BTreeMap::new(),
            ends: Vec::new(),
        }
    }

    /// The closed-form latency of a `bytes`-byte message over `hops` hops.
    pub fn latency(p: &NetParams, hops: u32, bytes: u32) -> Ticks {
        if hops == 0 {
            return p.local_cost;
        }
        let packets = p.packets(bytes);
        let (h, f, fl) = (u64::from(hops), p.flits(), p.last_flits(bytes));
        let flit_times = if packets == 1 { h * fl } else { (h + packets - 2) * f + fl };
        p.msg_init + packets * p.packet_init + flit_times * p.link_delay + h * p.hop_latency
    }
}

impl ShortestPath {
    /// Records the crossings of a message's packets and adds them to the link loads:
    /// packet `i` starts over hop `j` when it has crossed hop `j - 1` and packet `i - 1`
    /// has crossed hop `j` (the pipeline whose last arrival is the closed form).
    fn pipeline(&mut self, id: u64, src: u32, dst: u32, bytes: u32, now: Ticks) {
        let p = &self.params;
        let (packets, full, last) = (p.packets(bytes), p.flits(), p.last_flits(bytes));
        let ready = now + p.msg_init + packets * p.packet_init;
        self.route.clear();
        self.topo.route_into(src, dst, &mut self.route);
        self.ends.clear();
        self.ends.resize(self.route.len(), ready);
        let shared = self.topo.kind() == crate::topo::TopoKind::Shared;
        for i in 0..packets.min(u32::MAX as u64) as u32 {
            let flits = if u64::from(i) + 1 == packets { last } else { full };
            let mut t = ready;
            for (j, l) in self.route.iter().enumerate() {
                let c = self.topo.link_index(*l).and_then(|k| self.links.get(k)).copied();
                let c = c.unwrap_or(LinkCost::new(p.link_delay, 0));
                let cross = flits * c.per_flit + c.latency;
                let enter = t.max(self.ends[j]);
                let leave = enter + cross;
                self.ends[j] = leave;
                t = leave + p.hop_latency;
                if self.record {
                    self.hops.push(Hop { msg: id, packet: i, from: l.from, to: l.to, enter, leave });
                }
                if self.count {
                    *self.busy.entry(if shared { Link::BUS } else { *l }).or_default() += cross;
                }
            }
        }
    }
}

impl Network for ShortestPath {
    fn send(&mut self, id: u64, src: u32, dst: u32, bytes: u32, now: Ticks) -> Option<Ticks> {
        if (self.record || self.count) && src != dst {
            self.pipeline(id, src, dst, bytes, now);
        }
        let p = &self.params;
        if src == dst || self.links.is_empty() {
            let h = if src == dst { 0 } else { self.topo.distance(src, dst).max(1) };
            return Some(now + Self::latency(p, h, bytes));
        }
        self.route.clear();
        self.topo.route_into(src, dst, &mut self.route);
        let (packets, flits, last) = (p.packets(bytes), p.flits(), p.last_flits(bytes));
        let ready = now + p.msg_init + packets * p.packet_init;
        let hr = p.hop_latency;
        // The full packets flow as through a flow shop of identical jobs: full packet i
        // leaves hop j at `sum(t_1..t_j) + (j - 1) * hr + i * max(t_1..t_j)` after
        // `ready`. The last packet (of `last` flits) leaves hop j at
        // `max(its leaving hop j - 1 + hr, packet P - 2 leaving hop j) + t'_j`.
        let (mut sum, mut slowest, mut t_last) = (0, 0, 0);
        for (j, l) in self.route.iter().enumerate() {
            let c = self.topo.link_index(*l).and_then(|i| self.links.get(i)).copied();
            let c = c.unwrap_or(LinkCost::new(p.link_delay, 0));
            let t = flits * c.per_flit + c.latency;
            sum += t;
            slowest = slowest.max(t);
            let ahead = if packets >= 2 { sum + j as u64 * hr + (packets - 2) * slowest } else { 0 };
            let start = if j == 0 { 0 } else { t_last + hr };
            t_last = start.max(ahead) + last * c.per_flit + c.latency;
        }
        Some(ready + t_last + hr)
    }

    fn params(&self) -> &NetParams {
        &self.params
    }

    fn record_hops(&mut self, on: bool) {
        self.record = on;
    }

    fn take_hops(&mut self, out: &mut Vec<Hop>) {
        out.append(&mut self.hops);
    }

    fn count_links(&mut self, on: bool) {
        self.count = on;
    }

    fn link_busy(&self) -> Vec<LinkLoad> {
        self.busy.iter().map(|(&link, &busy)| LinkLoad { link, busy }).collect()
    }

    fn set_params(&mut self, params: NetParams) -> Result<(), NetError> {
        params.validate()?;
        self.params = params;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::TICKS_PER_UNIT as U;

    #[test]
    fn envelope_and_router_time_in_the_closed_form() {
        // classic: 28 payload bytes per packet, F = 8 flits of 1 unit. 4 bytes with a
        // 28-byte envelope are 32 bytes: P = 2. Over 3 hops with 2 units per router:
        // 5 + 2 * 1 + (3 + 2 - 1) * 8 + 3 * 2 = 45 units.
        let p = NetParams { envelope: 28, hop_latency: 2 * U, ..crate::net::classic() };
        assert_eq!(ShortestPath::latency(&p, 3, 4), 45 * U);
        // The same with per-link costs (each link 1 unit per flit, no latency) on a line.
        let mut n = ShortestPath::with_links(p, Topology::parse("line:4").unwrap(), vec![LinkCost::new(U, 0); 6]);
        assert_eq!(n.send(1, 0, 3, 4, 0), Some(45 * U));
    }

    #[test]
    fn an_unpadded_last_packet_catches_up() {
        // classic, 100 bytes: P = 4 (28 payload bytes each), the last carrying 16 bytes
        // and the 4-byte header: 5 flits instead of 8. Ready at 5 + 4 = 9; over 3 hops
        // packets 1-3 leave the last link at 33, 41, 49, and the last one crosses it
        // during [49, 54): 5 + 4 + (3 + 4 - 2) * 8 + 5 = 54 units (padded: 57).
        let p = NetParams { pad_last_packet: false, ..crate::net::classic() };
        assert_eq!(p.last_flits(100), 5);
        assert_eq!(ShortestPath::latency(&p, 3, 100), 54 * U);
        let mut n =
            ShortestPath::with_links(p.clone(), Topology::parse("line:4").unwrap(), vec![LinkCost::new(U, 0); 6]);
        assert_eq!(n.send(1, 0, 3, 100, 0), Some(54 * U));
        // One packet: 10 bytes + header = 14 bytes, 4 flits per hop: 5 + 1 + 3 * 4 = 18.
        assert_eq!(ShortestPath::latency(&p, 3, 10), 18 * U);
    }

    #[test]
    fn closed_form() {
        let p = crate::net::classic();
        // 4 bytes, 3 hops: P = 1, F = 32/4 = 8; 5 + 1 + (3 + 0) * 8 * 1 = 30 units.
        assert_eq!(ShortestPath::latency(&p, 3, 4), 30 * U);
        // 100 bytes: P = ceil(100/28) = 4; 5 + 4 + (3 + 3) * 8 = 57 units.
        assert_eq!(ShortestPath::latency(&p, 3, 100), 57 * U);
        assert_eq!(ShortestPath::latency(&p, 0, 100), U);
        // A line: hops = |src - dst|.
        let mut n = ShortestPath::new(p, Topology::parse("line:8").unwrap());
        assert_eq!(n.send(1, 0, 3, 4, 1000), Some(1000 + 30 * U));
        assert_eq!(n.send(2, 2, 2, 4, 1000), Some(1000 + U));
    }

    #[test]
    fn hop_counts_and_sizes() {
        // Defaults: 28-byte payloads, F = 8 flits of 1 unit. 4 bytes (one packet) and 28
        // bytes (one full packet): 5 + 1 + h * 8 = 14, 30, 62 for h = 1, 3, 7; 100 bytes
        // (4 packets): 5 + 4 + (h + 3) * 8 = 41, 57, 89.
        let p = crate::net::classic();
        let mut n = ShortestPath::new(p, Topology::parse("line:8").unwrap());
        for (h, one, full, four) in [(1, 14, 14, 41), (3, 30, 30, 57), (7, 62, 62, 89)] {
            assert_eq!(n.send(1, 0, h, 4, 0), Some(one * U), "{h} hops, 4 bytes");
            assert_eq!(n.send(2, 0, h, 28, 0), Some(full * U), "{h} hops, 28 bytes");
            assert_eq!(n.send(3, 0, h, 100, 0), Some(four * U), "{h} hops, 100 bytes");
        }
        // One-flit packets (4 bytes, no header) with link delay 2: 5 + 1 + 3 * 1 * 2 = 12
        // for one packet over 3 hops; 12 bytes = 3 packets: 5 + 3 + (3 + 2) * 2 = 18.
        let p = NetParams { packet_size: 4, header_size: 0, link_delay: 2 * U, ..crate::net::classic() };
        let mut n = ShortestPath::new(p, Topology::parse("line:8").unwrap());
        assert_eq!(n.send(4, 0, 3, 4, 0), Some(12 * U));
        assert_eq!(n.send(5, 0, 3, 12, 0), Some(18 * U));
    }

    #[test]
    fn hops_follow_the_pipeline() {
        // 100 bytes = 4 packets of 8 flits over line 0 -> 2, ready at 5 + 4 = 9 units:
        // packet i crosses 0->1 during [9 + 8i, 17 + 8i) and 1->2 8 units later; the
        // last leaves 1->2 at 9 + 8 * 5 = 49 = the closed form 5 + 4 + (2 + 3) * 8.
        let p = crate::net::classic();
        let mut n = ShortestPath::new(p.clone(), Topology::parse("line:4").unwrap());
        n.record_hops(true);
        n.count_links(true);
        assert_eq!(n.send(3, 0, 2, 100, 0), Some(49 * U));
        let mut hops = Vec::new();
        n.take_hops(&mut hops);
        assert_eq!(hops.len(), 8);
        assert_eq!((hops[0].enter, hops[0].leave), (9 * U, 17 * U));
        assert_eq!((hops[7].from, hops[7].to, hops[7].enter, hops[7].leave), (1, 2, 41 * U, 49 * U));
        // Each link carried 4 packets of 8 units.
        let busy: Vec<_> = n.link_busy().iter().map(|l| (l.link.from, l.busy / U)).collect();
        assert_eq!(busy, vec![(0, 32), (1, 32)]);
    }

    #[test]
    fn per_link_costs() {
        let p = crate::net::classic();
        let topo = Topology::parse("line:4").unwrap();
        // Uniform links of link_delay and no latency: the plain closed form.
        let uniform = vec![LinkCost::new(U, 0); topo.link_count()];
        let mut n = ShortestPath::with_links(p.clone(), topo.clone(), uniform);
        assert_eq!(n.send(1, 0, 3, 100, 0), Some(ShortestPath::latency(&p, 3, 100)));
        // Link 1->2 twice as slow with a latency of 3: 100 bytes = 4 packets of 8 flits;
        // crossings 8, 16 + 3, 8 units; 5 + 4 + (8 + 19 + 8) + 3 * 19 = 101 units.
        let mut links = vec![LinkCost::new(U, 0); topo.link_count()];
        let slow = topo.link_index(Link { from: 1, to: 2 }).unwrap();
        links[slow] = LinkCost::new(2 * U, 3 * U);
        let mut n = ShortestPath::with_links(p, topo, links);
        assert_eq!(n.send(2, 0, 3, 100, 0), Some(101 * U));
    }
}
