//! The `shortest-path` model: store-and-forward packet switching with contention off, as
//! a closed form (seed 000 App. A 2.4.3: "the shortest path network simulates a packet
//! switching network with message congestion turned off").
use super::{NetError, NetParams, Network, Ticks};
use crate::topo::Topology;

/// Store-and-forward packet switching without contention.
///
/// For a message of `b` bytes over `h >= 1` hops:
///
/// ```text
/// P         = max(1, ceil(b / (packet_size - header_size)))   packets
/// F         = ceil(packet_size / flit_size)                  flits per packet (padded)
/// latency   = msg_init + P * packet_init + (h + P - 1) * F * link_delay
/// ```
///
/// The message is cut into packets (`msg_init + P * packet_init`), then each packet
/// takes `F * link_delay` to cross a link and is forwarded only when whole; packets
/// follow each other in a pipeline, so the last one leaves the first link after `P`
/// link times and needs `h - 1` more. A message to the same processor (`h = 0`) costs
/// `local_cost`.
pub struct ShortestPath {
    params: NetParams,
    topo: Topology,
}

impl ShortestPath {
    /// The model on the physical topology `topo`.
    pub fn new(params: NetParams, topo: Topology) -> ShortestPath {
        ShortestPath { params, topo }
    }

    /// The closed-form latency of a `bytes`-byte message over `hops` hops.
    pub fn latency(p: &NetParams, hops: u32, bytes: u32) -> Ticks {
        if hops == 0 {
            return p.local_cost;
        }
        let packets = p.packets(bytes);
        p.msg_init + packets * p.packet_init + (hops as u64 + packets - 1) * p.flits() * p.link_delay
    }
}

impl Network for ShortestPath {
    fn send(&mut self, _id: u64, src: u32, dst: u32, bytes: u32, now: Ticks) -> Option<Ticks> {
        let h = if src == dst { 0 } else { self.topo.distance(src, dst).max(1) };
        Some(now + Self::latency(&self.params, h, bytes))
    }

    fn params(&self) -> &NetParams {
        &self.params
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
    use crate::net::TICKS_PER_UNIT as U;

    #[test]
    fn closed_form() {
        let p = NetParams::default();
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
}
