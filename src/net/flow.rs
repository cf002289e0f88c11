//! The `flow` model: each message a flow over its route, each link's bandwidth shared
//! max-min fairly among the flows crossing it (the analytical model family of SimGrid's
//! CM02 and LV08 network models; no seed sentence describes it).
//!
//! A message of `b` bytes over `h >= 1` hops waits a latency, then moves its wire bytes
//! at the rate its share of the route's links gives it:
//!
//! ```text
//! P        = max(1, ceil((b + envelope) / (packet_size - header_size)))    packets
//! W        = P * packet_size                    wire bytes (last packet padded), or
//!          = b + envelope + P * header_size     with --pad-last-packet=false
//! latency  = msg_init + P * packet_init + h * hop_latency + sum of the links' latencies
//! capacity = flit_size / per_flit               bytes per unit of each link
//! ```
//!
//! The flow joins the sharing `latency` after the send. Whenever a flow joins or leaves,
//! the rates are shared out again by progressive filling: the link whose remaining
//! capacity divided by its unfixed flows is least fixes those flows at that share, its
//! capacity goes to them, and so on until every flow has a rate (max-min fairness: no
//! flow can go faster without slowing one that is no faster). A flow arrives when its
//! `W` bytes have moved; arrival times are rounded up to the tick. Alone on an idle
//! route a flow moves at the slowest link's capacity, so one message costs
//!
//! ```text
//! latency + ceil(W * max over the route of per_flit / flit_size)
//! ```
//!
//! and two equal flows that share one link each get half of it. The host cost of a
//! message is a few events (join, leave) whatever its size; each event shares the rates
//! out again in time proportional to the flows in flight times their hops times the
//! bottleneck rounds. Unlike the other models, a change of `link-delay` or `flit-size` at
//! a debugger stop applies to the flows already in flight too: the bandwidth belongs to
//! the link, not to the message. A message to the same processor costs `local_cost`.
use super::fabric::{Events, Fabric, RouteHop, Slab, NONE};
use super::{Hop, LinkCost, LinkLoad, NetError, NetParams, Network, NEVER};
use crate::time::Ticks;
use crate::topo::Topology;
use std::collections::VecDeque;

/// Max-min fair bandwidth sharing among flows.
pub struct Flow {
    params: NetParams,
    fabric: Fabric,
    /// Per link slot: busy time so far, and scratch for sharing (capacity left, unfixed
    /// flows).
    busy: Vec<Ticks>,
    cap_left: Vec<f64>,
    users: Vec<u32>,
    /// Each event is a flow joining the sharing (its latency over).
    events: Events,
    flows: Slab<FlowState>,
    /// Flows sharing the links, in the order they joined.
    active: Vec<u32>,
    /// The time up to which the active flows' progress is accounted.
    clock: Ticks,
    /// The earliest time an active flow is due to arrive.
    next_due: Ticks,
    /// Arrivals found and not yet handed back.
    done: VecDeque<(u64, Ticks)>,
    record: bool,
    hops: Vec<Hop>,
    count: bool,
}

#[derive(Default)]
struct FlowState {
    id: u64,
    /// Its processors and route.
    src: u32,
    dst: u32,
    route: Vec<RouteHop>,
    /// Wire bytes in all, and still to move.
    wire: f64,
    left: f64,
    /// Bytes per tick while the rates hold, and the arrival they give.
    rate: f64,
    due: Ticks,
    fixed: bool,
    /// When the flow joined the sharing.
    start: Ticks,
}

/// `ceil(x)` for a time computed in floating point, forgiving the rounding error of
/// the division that made it (a relative 1e-9), so that a whole number of ticks that
/// comes out as `k + 1e-12` stays `k`.
fn ceil_ticks(x: f64) -> Ticks {
    if !x.is_finite() {
        return if x > 0.0 { NEVER } else { 0 };
    }
    let x = x - 1e-9 * x.abs().max(1.0);
    if x <= 0.0 {
        0
    } else {
        (x.ceil() as Ticks).min(NEVER - 1)
    }
}

impl Flow {
    /// The model on `topo`, with per-link costs `links` (empty: uniform).
    pub fn new(params: NetParams, topo: Topology, links: Vec<LinkCost>) -> Flow {
        Flow {
            params,
            fabric: Fabric::new(topo, links),
            busy: Vec::new(),
            cap_left: Vec::new(),
            users: Vec::new(),
            events: Events::default(),
            flows: Slab::new(),
            active: Vec::new(),
            clock: 0,
            next_due: NEVER,
            done: VecDeque::new(),
            record: false,
            hops: Vec::new(),
            count: false,
        }
    }

    /// Wire bytes of a `bytes`-byte message (`W` above).
    pub fn wire_bytes(p: &NetParams, bytes: u32) -> u64 {
        let packets = p.packets(bytes);
        if p.pad_last_packet {
            packets * u64::from(p.packet_size)
        } else {
            u64::from(bytes) + u64::from(p.envelope) + packets * u64::from(p.header_size)
        }
    }

    /// The closed-form time of one `bytes`-byte message over `hops` uniform links of an
    /// idle network.
    pub fn latency(p: &NetParams, hops: u32, bytes: u32) -> Ticks {
        if hops == 0 {
            return p.local_cost;
        }
        let move_time = (Self::wire_bytes(p, bytes) * p.link_delay).div_ceil(u64::from(p.flit_size.max(1)));
        p.msg_init + p.packets(bytes) * p.packet_init + u64::from(hops) * p.hop_latency + move_time
    }

    /// Bytes per tick link slot `s` carries.
    fn capacity(&self, s: u32) -> f64 {
        let c = self.fabric.cost(self.fabric.slot_link[s as usize], self.params.link_delay);
        if c.per_flit == 0 {
            f64::INFINITY
        } else {
            f64::from(self.params.flit_size.max(1)) / c.per_flit as f64
        }
    }

    /// Moves the active flows on to `t`.
    fn advance(&mut self, t: Ticks) {
        if t <= self.clock {
            return;
        }
        let dt = (t - self.clock) as f64;
        for &f in &self.active {
            let fl = &mut self.flows.items[f as usize];
            fl.left = if fl.rate.is_finite() { (fl.left - fl.rate * dt).max(0.0) } else { 0.0 };
        }
        self.clock = t;
    }

    /// Shares the links out among the active flows (progressive filling) and sets each
    /// flow's arrival and the earliest of them.
    fn share(&mut self) {
        for i in 0..self.active.len() {
            let f = self.active[i] as usize;
            self.flows.items[f].fixed = false;
            for k in 0..self.flows.items[f].route.len() {
                let s = self.flows.items[f].route[k].link;
                self.cap_left[s as usize] = self.capacity(s);
                self.users[s as usize] = 0;
            }
        }
        for &f in &self.active {
            for h in &self.flows.items[f as usize].route {
                self.users[h.link as usize] += 1;
            }
        }
        // A flow alone on every link of its route gets the least of their capacities
        // whatever the others do: the filling below would fix it, alone, at that share
        // in some round, and fixing it changes no other flow's links. Fixed here at
        // once, the rounds are left for the flows that share a link (a shift between
        // neighbours, where every flow is alone, takes one pass instead of a round per
        // flow).
        let mut unfixed = self.active.len();
        for &f in &self.active {
            let fl = &mut self.flows.items[f as usize];
            if fl.route.iter().all(|h| self.users[h.link as usize] == 1) {
                let mut share = f64::INFINITY;
                for h in &fl.route {
                    let s = h.link as usize;
                    share = share.min(self.cap_left[s] / f64::from(self.users[s]));
                }
                fl.fixed = true;
                fl.rate = share;
                unfixed -= 1;
                for h in &fl.route {
                    let s = h.link as usize;
                    self.cap_left[s] = (self.cap_left[s] - share).max(0.0);
                    self.users[s] -= 1;
                }
            }
        }
        while unfixed > 0 {
            // The bottleneck: the least share any link can give its unfixed flows.
            let (mut share, mut at) = (f64::INFINITY, NONE);
            for &f in &self.active {
                let fl = &self.flows.items[f as usize];
                if fl.fixed {
                    continue;
                }
                for h in &fl.route {
                    let s = h.link as usize;
                    let here = self.cap_left[s] / f64::from(self.users[s]);
                    if here < share {
                        (share, at) = (here, h.link);
                    }
                }
            }
            for &f in &self.active {
                let fl = &mut self.flows.items[f as usize];
                if fl.fixed || (at != NONE && !fl.route.iter().any(|h| h.link == at)) {
                    continue;
                }
                fl.fixed = true;
                fl.rate = share;
                unfixed -= 1;
                for h in &fl.route {
                    let s = h.link as usize;
                    self.cap_left[s] = (self.cap_left[s] - share).max(0.0);
                    self.users[s] -= 1;
                }
            }
        }
        self.next_due = NEVER;
        for &f in &self.active {
            let fl = &mut self.flows.items[f as usize];
            fl.due = if fl.left <= 0.0 {
                self.clock
            } else if fl.rate > 0.0 {
                self.clock.saturating_add(ceil_ticks(fl.left / fl.rate))
            } else {
                NEVER
            };
            self.next_due = self.next_due.min(fl.due);
        }
    }

    /// Hands back the flows due at `t` (in the order they joined).
    fn finish(&mut self, t: Ticks) {
        let mut keep = 0;
        for i in 0..self.active.len() {
            let f = self.active[i];
            let fl = &self.flows.items[f as usize];
            if fl.due > t {
                self.active[keep] = f;
                keep += 1;
                continue;
            }
            self.done.push_back((fl.id, t));
            for h in &fl.route {
                if self.record {
                    let l = self.fabric.hop_ends(h.link, fl.src, fl.dst);
                    self.hops.push(Hop { msg: fl.id, packet: 0, from: l.from, to: l.to, enter: fl.start, leave: t });
                }
                let c = self.capacity(h.link);
                self.busy[h.link as usize] += if c.is_finite() { ceil_ticks(fl.wire / c) } else { 0 };
            }
            self.flows.release(f);
        }
        self.active.truncate(keep);
    }
}

impl Network for Flow {
    fn send(&mut self, id: u64, src: u32, dst: u32, bytes: u32, now: Ticks) -> Option<Ticks> {
        // (The flows' progress is accounted only as events are processed: a send is
        // never dated before the network's clock, and it changes nothing before its
        // latency is over.)
        let p = &self.params;
        if src == dst {
            return Some(now + p.local_cost);
        }
        let wire = Self::wire_bytes(p, bytes) as f64;
        let mut latency = p.msg_init + p.packets(bytes) * p.packet_init;
        let (hop_latency, link_delay) = (p.hop_latency, p.link_delay);
        let f = self.flows.alloc();
        let mut route = std::mem::take(&mut self.flows.items[f as usize].route);
        let (busy, cap_left, users) = (&mut self.busy, &mut self.cap_left, &mut self.users);
        self.fabric.route(src, dst, 1, &mut route, |_| {
            busy.push(0);
            cap_left.push(0.0);
            users.push(0);
        });
        for h in &route {
            latency += hop_latency + self.fabric.cost(self.fabric.slot_link[h.link as usize], link_delay).latency;
        }
        let start = now + latency;
        self.flows.items[f as usize] =
            FlowState { id, src, dst, route, wire, left: wire, rate: 0.0, due: NEVER, fixed: false, start };
        self.events.push(start, f);
        None
    }

    fn next_arrival(&mut self, until: Ticks) -> Option<(u64, Ticks)> {
        loop {
            if let Some(d) = self.done.pop_front() {
                return Some(d);
            }
            let t = self.events.peek().unwrap_or(NEVER).min(self.next_due);
            if t >= until || t == NEVER {
                return None;
            }
            self.advance(t);
            if self.next_due == t {
                self.finish(t);
            }
            while let Some((_, f)) = self.events.pop_before(t + 1) {
                self.active.push(f);
            }
            self.share();
        }
    }

    fn next_event(&self) -> Ticks {
        if !self.done.is_empty() {
            return self.clock;
        }
        self.events.peek().unwrap_or(NEVER).min(self.next_due)
    }

    fn in_flight(&self) -> usize {
        self.flows.live() + self.done.len()
    }

    fn params(&self) -> &NetParams {
        &self.params
    }

    fn set_params(&mut self, params: NetParams) -> Result<(), NetError> {
        params.validate()?;
        self.params = params;
        // The links' capacities may have changed under the flows in flight.
        self.share();
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

    fn link_busy(&self) -> Vec<LinkLoad> {
        if self.count {
            self.fabric.loads(&self.busy)
        } else {
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{drive, drive_hops};
    use crate::time::TICKS_PER_UNIT as U;

    fn net(topo: &str, p: &NetParams) -> Flow {
        Flow::new(p.clone(), Topology::parse(topo).unwrap(), Vec::new())
    }

    fn flow_params() -> NetParams {
        // 1-byte flits crossing a link in 1 unit: 1 byte per unit; one big packet per
        // message so that W = the payload.
        NetParams {
            model: crate::net::NetModel::Flow,
            msg_init: 5 * U,
            packet_init: 0,
            packet_size: 1 << 30,
            header_size: 0,
            flit_size: 1,
            link_delay: U,
            pad_last_packet: false,
            ..NetParams::default()
        }
    }

    #[test]
    fn one_flow_is_the_closed_form() {
        // Default parameters (4-byte packets, padded, 1-byte flits, 5 units each, msg-init
        // 5, packet-init 1): 10 bytes = 3 packets = 12 wire bytes; over 3 hops:
        // 5 + 3 + 12 * 5 = 68 units, with hop latency 2: 74.
        let p = NetParams { model: crate::net::NetModel::Flow, ..NetParams::default() };
        assert_eq!(Flow::latency(&p, 3, 10), 68 * U);
        let p = NetParams { hop_latency: 2 * U, ..p };
        assert_eq!(Flow::latency(&p, 3, 10), 74 * U);
        for p in [p.clone(), flow_params(), NetParams { envelope: 7, link_delay: 333, flit_size: 3, ..flow_params() }] {
            for hops in [1u32, 2, 5] {
                for bytes in [0u32, 4, 1000, 100_000] {
                    let got = drive(&mut net("line:6", &p), &[(1, 0, hops, bytes, 10 * U)]);
                    assert_eq!(got, vec![(1, 10 * U + Flow::latency(&p, hops, bytes))], "{hops} hops, {bytes} bytes");
                }
            }
        }
        // A message to the same processor costs local_cost.
        let p = NetParams { local_cost: 3 * U, ..flow_params() };
        assert_eq!(drive(&mut net("line:2", &p), &[(1, 1, 1, 100, 0)]), vec![(1, 3 * U)]);
    }

    #[test]
    fn two_equal_flows_on_one_link_get_half_each() {
        // 1 byte per unit, msg-init 5. Two 100-byte messages 0 -> 1 at time 0: both join
        // at 5, each moves at 1/2 byte per unit, both arrive at 5 + 200 = 205 (alone:
        // 105).
        let p = flow_params();
        let got = drive(&mut net("line:2", &p), &[(1, 0, 1, 100, 0), (2, 0, 1, 100, 0)]);
        assert_eq!(got, vec![(1, 205 * U), (2, 205 * U)]);
        // The second sent 50 units later joins at 55, when the first has 50 bytes left:
        // both at 1/2 until the first ends at 55 + 100 = 155 (the second has moved 50),
        // then the second alone moves its last 50 bytes by 205.
        let got = drive(&mut net("line:2", &p), &[(1, 0, 1, 100, 0), (2, 0, 1, 100, 50 * U)]);
        assert_eq!(got, vec![(1, 155 * U), (2, 205 * U)]);
        // The link was busy 200 units in all: 100 bytes each at 1 byte per unit.
        let mut n = net("line:2", &p);
        n.count_links(true);
        drive(&mut n, &[(1, 0, 1, 100, 0), (2, 0, 1, 100, 0)]);
        assert_eq!(n.link_busy().iter().map(|l| l.busy / U).collect::<Vec<_>>(), vec![200]);
    }

    #[test]
    fn three_flows_share_max_min() {
        // line:3, links a = 0->1 and b = 1->2, 1 byte per unit each, msg-init 5 (all
        // three join at 5). Flow 1: 0 -> 2 (a and b), 300 bytes; flow 2: 0 -> 1 (a), 100
        // bytes; flow 3: 1 -> 2 (b), 600 bytes.
        // Progressive filling: a and b each have two flows, share 1/2: every flow 1/2.
        // Flow 2 ends after 200 units (at 205); flow 1 has 200 left, flow 3 500.
        // Then a has flow 1 alone (share 1) and b has flows 1 and 3 (share 1/2): b is
        // the bottleneck, both 1/2. Flow 1 ends 400 later (605); flow 3 has 300 left,
        // alone on b at 1 byte per unit: 905.
        let p = flow_params();
        let got = drive(&mut net("line:3", &p), &[(1, 0, 2, 300, 0), (2, 0, 1, 100, 0), (3, 1, 2, 600, 0)]);
        assert_eq!(got, vec![(1, 605 * U), (2, 205 * U), (3, 905 * U)]);
        // Max-min, not equal shares: with link b twice as fast (2 bytes per unit), a is
        // the bottleneck (1/2 each for flows 1 and 2) and flow 3 gets what b has left,
        // 2 - 1/2 = 3/2. Flow 2 ends at 205; flow 1 has 200 left, flow 3 600 - 300 = 300.
        // Then a gives flow 1 all of it (1) and b's other 1 goes to flow 3: flow 1 ends
        // at 405, when flow 3 has 100 left, which it moves alone at 2 by 455.
        let topo = Topology::parse("line:3").unwrap();
        let mut costs = vec![LinkCost::new(U, 0); topo.link_count()];
        costs[topo.link_index(crate::topo::Link { from: 1, to: 2 }).unwrap()] = LinkCost::new(U / 2, 0);
        let mut n = Flow::new(p, topo, costs);
        let got = drive(&mut n, &[(1, 0, 2, 300, 0), (2, 0, 1, 100, 0), (3, 1, 2, 600, 0)]);
        assert_eq!(got, vec![(1, 405 * U), (2, 205 * U), (3, 455 * U)]);
    }

    #[test]
    fn hops_are_recorded_once_per_link() {
        let p = flow_params();
        let hops = drive_hops(&mut net("line:3", &p), &[(7, 0, 2, 10, 0)]);
        // Joins at 5, 10 bytes at 1 per unit: 15.
        let want = vec![
            Hop { msg: 7, packet: 0, from: 0, to: 1, enter: 5 * U, leave: 15 * U },
            Hop { msg: 7, packet: 0, from: 1, to: 2, enter: 5 * U, leave: 15 * U },
        ];
        assert_eq!(hops, want);
    }
}
