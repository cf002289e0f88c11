//! Network models behind one trait (seed 000 §3.2.3, §4.2.2).
//!
//! The simulator asks the network when a message of `bytes` bytes sent at `now` from one
//! physical processor to another arrives; [`Network::send`] answers with the arrival
//! time. Models with contention keep state between calls (sends arrive in
//! non-decreasing `now` per processor, and the simulator never asks about the past of a
//! link it already reserved). This module depends only on the tick type; the hop
//! distance between processors comes from the topology through a caller-supplied
//! function so the two modules stay independent.

/// Simulated time in ticks: 1 time unit = [`TICKS_PER_UNIT`] ticks.
pub type Ticks = u64;

/// Resolution of simulated time: ticks per time unit (fine enough for fractional speed
/// factors).
pub const TICKS_PER_UNIT: Ticks = 1000;

/// A network model.
pub trait Network {
    /// Sends `bytes` bytes from physical processor `src` to `dst` at time `now`; returns
    /// the arrival time (>= `now`).
    fn send(&mut self, src: u32, dst: u32, bytes: u32, now: Ticks) -> Ticks;
}

/// Parameters of [`ShortestPath`], all times in ticks and sizes in bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShortestPathParams {
    /// Startup cost per message (`--msg-init`).
    pub msg_init: Ticks,
    /// Startup cost per packet (`--packet-init`).
    pub packet_init: Ticks,
    /// Packet size including the header (`--packet-size`); the last packet is padded.
    pub packet_size: u32,
    /// Header bytes per packet (`--header-size`).
    pub header_size: u32,
    /// Flit size (`--flit-size`).
    pub flit_size: u32,
    /// Time for one flit to cross one link (`--link-delay`).
    pub link_delay: Ticks,
    /// Cost of a message between two processes on the same physical processor.
    pub local_cost: Ticks,
}

impl Default for ShortestPathParams {
    /// msg_init 5 units, packet_init 1 unit, 32-byte packets with 4-byte headers, 4-byte
    /// flits, link_delay 1 unit per flit per link, local messages 1 unit.
    fn default() -> Self {
        ShortestPathParams {
            msg_init: 5 * TICKS_PER_UNIT,
            packet_init: TICKS_PER_UNIT,
            packet_size: 32,
            header_size: 4,
            flit_size: 4,
            link_delay: TICKS_PER_UNIT,
            local_cost: TICKS_PER_UNIT,
        }
    }
}

/// Store-and-forward packet switching without contention, as a closed form.
///
/// For a message of `b` bytes over `h >= 1` hops:
///
/// ```text
/// payload   = packet_size - header_size          (at least 1)
/// P         = max(1, ceil(b / payload))          packets
/// F         = ceil(packet_size / flit_size)      flits per packet (padded packets)
/// latency   = msg_init + P * packet_init + (h + P - 1) * F * link_delay
/// ```
///
/// Each packet takes `F * link_delay` to cross a link and is forwarded only when whole;
/// packets follow each other in a pipeline, so the last one leaves the first link after
/// `P` link times and needs `h - 1` more. A message to the same processor (`h = 0`)
/// costs `local_cost`.
pub struct ShortestPath {
    params: ShortestPathParams,
    hops: Box<dyn Fn(u32, u32) -> u32>,
}

impl ShortestPath {
    /// A network whose hop distance between physical processors is `hops(src, dst)`.
    pub fn new(params: ShortestPathParams, hops: Box<dyn Fn(u32, u32) -> u32>) -> ShortestPath {
        ShortestPath { params, hops }
    }

    /// The closed-form latency of a `bytes`-byte message over `hops` hops.
    pub fn latency(p: &ShortestPathParams, hops: u32, bytes: u32) -> Ticks {
        if hops == 0 {
            return p.local_cost;
        }
        let payload = p.packet_size.saturating_sub(p.header_size).max(1) as u64;
        let packets = (bytes as u64).div_ceil(payload).max(1);
        let flits = (p.packet_size.max(1) as u64).div_ceil(p.flit_size.max(1) as u64);
        p.msg_init + packets * p.packet_init + (hops as u64 + packets - 1) * flits * p.link_delay
    }
}

impl Network for ShortestPath {
    fn send(&mut self, src: u32, dst: u32, bytes: u32, now: Ticks) -> Ticks {
        let h = if src == dst { 0 } else { (self.hops)(src, dst).max(1) };
        now + Self::latency(&self.params, h, bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_form() {
        let p = ShortestPathParams::default();
        // 4 bytes, 3 hops: P = 1, F = 32/4 = 8; 5 + 1 + (3 + 0) * 8 * 1 = 30 units.
        assert_eq!(ShortestPath::latency(&p, 3, 4), 30 * TICKS_PER_UNIT);
        // 100 bytes: P = ceil(100/28) = 4; 5 + 4 + (3 + 3) * 8 = 57 units.
        assert_eq!(ShortestPath::latency(&p, 3, 100), 57 * TICKS_PER_UNIT);
        assert_eq!(ShortestPath::latency(&p, 0, 100), TICKS_PER_UNIT);
        // A line: hops = |src - dst|.
        let mut n = ShortestPath::new(p, Box::new(|a, b| a.abs_diff(b)));
        assert_eq!(n.send(0, 3, 4, 1000), 1000 + 30 * TICKS_PER_UNIT);
        assert_eq!(n.send(2, 2, 4, 1000), 1000 + TICKS_PER_UNIT);
    }
}
