//! The `wormhole` model: flit-level wormhole routing with virtual channels (seed 000
//! §3.2.3, §4.2.2; the default network).
//!
//! # Model
//!
//! A message of `b` bytes becomes `P` packets of `F` flits (the last one padded), the
//! first flit of each packet being its head. The message is ready to leave at
//! `send + msg_init + P * packet_init`; its packets enter the network one after the
//! other (the next one is released when the previous one's tail starts over the first
//! link).
//!
//! Every directed link has `lanes` virtual channels; each lane buffers `buffer_size`
//! flits at the link's far end. A head needs a free lane on the next link of its route;
//! it takes the lowest free lane (of its class, below) or waits, first come first
//! served, and **while it waits it keeps every lane behind it**: the packet's flits stay
//! in the buffers they occupy. A lane is freed when the packet's tail leaves its buffer
//! (at the destination: when the tail arrives). The physical link carries one flit at a
//! time; among its lanes that have a flit ready to go and room in the lane's buffer it
//! serves them round robin. A head flit takes `hd = round(per_flit * head_flit_ratio) +
//! latency` to cross a link, a data flit `ld = per_flit` (`link_delay` unless a machine
//! file gives the link its own costs). A flit's buffer slot is taken when it starts over
//! the link and freed when it starts over the next one; the destination consumes flits
//! as they arrive.
//!
//! # Latency in an idle network
//!
//! ```text
//! latency = msg_init + P * packet_init + (P + h - 1) * hd + P * (F - 1) * ld + h * hr
//! ```
//!
//! over `h` hops: the head of the first packet needs `h * hd`, its data flits follow one
//! every `ld` behind it (the last link sets the pace), and each further packet adds its
//! serialisation on the first link, `hd + (F - 1) * ld`. After each link the head spends
//! `hr = hop_latency` in the router (the destination's too) before it asks for the next
//! lane, keeping the lanes behind it and leaving the link free. Exact when `P = 1` or
//! `h = 1`, or `head_flit_ratio = 1` with no router time, and for several packets over
//! several hops behind a slower head when
//! `buffer_size >= ceil(head_flit_ratio) + ceil(hr / ld)` (room for the flits that bunch
//! behind the head) and a second lane of the packet's class is free for the next packet; otherwise
//! the later packets wait for buffer room or for the earlier packet's lanes and the
//! message is slower (tested over all these cases). A message to the same processor
//! costs `local_cost`.
//!
//! # Deadlock
//!
//! Lanes are split into classes so that routing cannot deadlock where that is
//! possible. Dimension-order routing on a ring or torus has cyclic lane dependencies
//! around the wraparound links: with two or more lanes the model **prevents** deadlock
//! with dateline virtual channels (two classes, the lower half and the upper half of a
//! link's lanes; a packet uses class 1 from the wraparound link of a dimension until it
//! changes dimension, class 0 elsewhere, see `Fabric::route`). On a link list (machine
//! files) a hop's class counts the down-then-up turns of its route before it
//! (up*/down* classes, [`crate::topo::Graph`]); with as many lanes as the graph needs
//! classes, deadlock is impossible there too. Meshes, lines and hypercubes (e-cube)
//! have no cycles, so every lane serves every packet. Class `c` of `k` uses lanes
//! `c*W/k .. (c+1)*W/k` of the `W`.
//!
//! Where the user takes that freedom away (`--lanes 1` on a torus, fewer lanes than a
//! link list needs), packets can still wait for each other in a cycle. The network
//! **detects** it the moment no flit crosses any link while packets are in the network
//! (then none of them can ever move again: only a moving flit frees a lane or a buffer
//! slot) and, with `--deadlock resolve` (the default), **resolves** it as the seed's
//! network manager does: it follows "waits for a lane held by" from the first waiting
//! packet to the cycle, takes the packet of the cycle with the highest message id (the
//! youngest) out of every lane it holds, and delivers it over the recovery channel, a
//! path of its own that nothing else uses (as in Disha-style recovery), from the node
//! where its head waits: the rest of its route costs its head crossings plus the
//! serialisation of its other flits on the last link, `sum(hd) + (F - 1) * ld`. Freed
//! lanes go to the heads waiting for them. Each resolution is counted and reported to
//! the simulator ([`Network::take_resolutions`]). With `--deadlock report` the packets
//! stay blocked and [`Network::blocked`] describes the cycle; the simulator ends the
//! run with it when nothing else can happen.
use super::fabric::{Events, Fabric, RouteHop, Slab, NONE};
use super::{AheadStep, DeadlockMode, Hop, LinkCost, LinkLoad, NetError, NetParams, Network, Resolution, NEVER};
use crate::time::Ticks;
use crate::topo::{TopoKind, Topology, Walk};
use std::collections::VecDeque;

/// Events: a link finishing a flit (the link's record), a message's first packet
/// being released (`RELEASE | message`), a packet of a message reaching its
/// destination over the recovery channel or out of the destination's router
/// (`RECOVERED | message`), or a packet's head leaving a router (`ROUTED | packet`).
/// Link slots and records, messages and packets in the network are therefore numbered
/// below 2^29 (the messages in flight are bounded far below: each holds host memory, and the
/// words of channel messages in flight stop at 2^25).
const RELEASE: u32 = 1 << 31;
const RECOVERED: u32 = 1 << 30;
const ROUTED: u32 = 1 << 29;

/// Flit-level wormhole routing with virtual channels.
pub struct Wormhole {
    params: NetParams,
    fabric: Fabric,
    /// Lanes per link new packets may take.
    width: u32,
    /// Lanes per link in the table (`width`, or more while packets still hold lanes a
    /// change of `lanes` took away: they keep them until they leave).
    stride: u32,
    /// Lane classes in use (1: every lane serves every packet; module docs).
    classes: u32,
    /// Links with a flit crossing them.
    in_transit: u32,
    /// Deadlocks resolved and not yet taken by the simulator.
    resolved: Vec<Resolution>,
    /// The lanes past the first [`NEAR_LANES`] of each link record (none with the
    /// default two), `stride - NEAR_LANES` a record ([`Wormhole::far`]).
    lanes: Vec<Lane>,
    /// The records of the active links ([`LinkState`]): what crosses the link, whose
    /// turn, its busy time since it became active, the heads waiting for a lane of it,
    /// and its first lanes (one cache line a link, read and written at every flit). A
    /// link is active from the moment a head asks for one of its lanes until it is
    /// empty again (no flit crossing, no lane held, no head waiting); then its record
    /// goes back to `spare`, with the others found empty, once [`RETIRE_BATCH`] of
    /// them are ([`Wormhole::retire`]). Only the links packets are on (and a batch of
    /// recently used ones) hold a record, so a large machine whose links have all been
    /// used, but few at a time, keeps few records instead of one per link, and a link
    /// that carries packet after packet keeps its record.
    links: Vec<LinkState>,
    /// The link slot of each record (NONE: spare).
    link_slot: Vec<u32>,
    /// Records not in use.
    spare: Vec<u32>,
    /// Per link slot, what outlasts its records ([`SlotState`]).
    slots: Vec<SlotState>,
    /// Records found empty when a lane was freed (each once), retired together when
    /// there are `retire_batch` of them ([`RETIRE_BATCH`]; tests give other sizes) and
    /// the turns are all taken.
    emptied: Vec<u32>,
    retire_batch: usize,
    events: Events,
    pkts: Slab<Pkt>,
    msgs: Slab<Msg>,
    /// Idle links whose arbitration may have changed, in order ([`Wormhole::wake`]).
    work: Fifo,
    now: Ticks,
    done: VecDeque<(u64, Ticks)>,
    record: bool,
    hops: Vec<Hop>,
    /// `--link-stats` asked for (busy times are kept anyway: one addition per flit).
    count: bool,
    /// Flits started over a link so far.
    flit_hops: u64,
}

#[derive(Clone, Copy)]
struct Lane {
    /// The packet holding the lane (NONE: free), and which hop of its route this is,
    /// with [`LAST_HOP`] set when it is the last (its buffer is the destination, never
    /// full).
    owner: u32,
    hop: u32,
    /// Flits in (or on their way to) the lane's buffer.
    buf: u32,
    /// Flits of the holder ready to start over the lane: arrived in the previous hop's
    /// buffer (at the source: not yet sent) and not started here. Kept here so that a
    /// link's turn reads its lanes alone, not the records of the packets waiting on it.
    ready: u32,
}

/// A first-in first-out queue that is emptied whole before it is filled again (the
/// links to look at after an event): a vector and a read position, cleared when it is
/// read to the end, so that a push and a pop are a store and a load.
#[derive(Default)]
struct Fifo {
    items: Vec<u32>,
    head: usize,
}

impl Fifo {
    #[inline(always)]
    fn push(&mut self, x: u32) {
        self.items.push(x);
    }

    fn is_empty(&self) -> bool {
        self.head == self.items.len()
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<u32> {
        match self.items.get(self.head) {
            Some(&x) => {
                self.head += 1;
                Some(x)
            }
            None => {
                self.items.clear();
                self.head = 0;
                None
            }
        }
    }
}

/// Marks a lane's hop as its holder's last (routes are far shorter than 2^31 hops).
const LAST_HOP: u32 = 1 << 31;

const FREE: Lane = Lane { owner: NONE, hop: 0, buf: 0, ready: 0 };

/// Link slots reserved when the network is made, at most ([`Wormhole::new`]): 48 MB
/// of address space, the links of a 1024x1024 torus (or mesh).
const RESERVE_LINKS: usize = 1 << 22;

/// A link's state that outlasts its records: the record it has while active (NONE:
/// none) and its busy time up to its last record (the busy time of its current record
/// is added when it is retired or read). 12 bytes: two of them a process on a tree of
/// processes with a processor each.
///
/// Its round-robin turn does not outlast a record: a record is made only while no
/// link's turn is pending (for the head of the event being taken:
/// [`Wormhole::make_record`]), so its link's turn is the first taken, with that head's
/// lane the only one held, and it starts that lane's flit wherever the turn starts.
#[derive(Clone, Copy)]
#[repr(C, packed(4))]
struct SlotState {
    busy: Ticks,
    record: u32,
}

const UNUSED_SLOT: SlotState = SlotState { busy: 0, record: NONE };

/// Empty link records kept before they are given back together ([`Wormhole::links`]).
const RETIRE_BATCH: usize = 4096;

/// Lanes kept in their link's own record ([`LinkState::near`]): the default's two, so
/// that a flit's link and the lanes its turn reads share one cache line (on a large mesh
/// every link of a long route is a cache miss; two arrays made it two).
const NEAR_LANES: u32 = 2;

#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct LinkState {
    /// The flit crossing now: packet (`NONE`: none), hop, flit number.
    packet: u32,
    hop: u32,
    flit: u32,
    /// Next lane to look at first (lanes are at most 64).
    rr: u8,
    /// In [`Wormhole::emptied`].
    noted: bool,
    /// Lanes held. A flit crosses the link only on a held lane, and a head waits only
    /// while every lane of its class is held, so a link none of whose lanes is held is
    /// empty.
    held: u8,
    /// The packets whose head waits for a lane of it, in order of arrival: the first
    /// and the last (`NONE`: none), each linked to the next by its [`Pkt::next_wait`].
    /// A head waits for one lane at a time, so one link field per packet serves every
    /// queue, and a link no one waits for holds no queue (a million links of a large
    /// mesh would otherwise hold a million empty queues).
    wait_first: u32,
    wait_last: u32,
    /// Time spent carrying flits since the link became active.
    busy: Ticks,
    /// Its lanes `0..NEAR_LANES` (those past the table's stride stay free).
    near: [Lane; NEAR_LANES as usize],
}

const IDLE_LINK: LinkState = LinkState {
    packet: NONE,
    hop: 0,
    flit: 0,
    rr: 0,
    noted: false,
    held: 0,
    wait_first: NONE,
    wait_last: NONE,
    busy: 0,
    near: [FREE; NEAR_LANES as usize],
};

#[derive(Default)]
struct Pkt {
    /// In use (freed slots keep their last contents).
    live: bool,
    msg: u32,
    index: u32,
    /// The hop whose lane the head waits for (NONE: not waiting), and a copy of that
    /// hop of the message's route with the link's record in place of its slot: a
    /// released lane's class check and the flits that arrive behind the waiting head
    /// read it here instead of the route, which on a long route is a cache miss each.
    want: u32,
    wanted: RouteHop,
    /// The next packet waiting for a lane of the same link (NONE: it is the last).
    next_wait: u32,
    /// The hop whose lane the head asks for when it leaves the router it is in
    /// (`hop_latency`).
    routed: u32,
    /// The message's flits per packet and hop count, read at every flit.
    flits: u32,
    hops: u32,
    /// Where its head is on a walked route ([`Fabric::walks`]): the next hop it asks
    /// for is the walk's next step, with the lane classes of its message's send.
    walk: Walk,
    classes: u32,
    /// The message's costs, copied when the packet is released so that a flit's
    /// crossing and arrival read the packet's record and not the message's: a head
    /// flit's crossing of a link of the uniform cost (`head_time(link_delay, ratio)`),
    /// a data flit's (`link_delay`), the head-flit ratio (for links of costs of their
    /// own) and the time in each router.
    head: Ticks,
    link_delay: Ticks,
    ratio: f64,
    hop_latency: Ticks,
    /// The hops of the route it holds or has held a lane on and not yet left.
    hop: Hops,
}

/// Hop states kept in the packet's own record: a window of up to this many hops.
const INLINE_HOPS: u32 = 4;

/// A packet's hop states from the oldest hop its tail has not yet left (`lo`) to the
/// last hop its head has a lane on (`hi - 1`): a packet of `F` flits spans about `F`
/// hops whatever its route's length, so the states live in a ring indexed by hop
/// number, in the packet's own record while the window fits (every packet of the
/// default four-flit packets; one memory access less per flit) and in a larger ring on
/// the heap when it does not. A hop's state is written when its head gets the lane
/// (hops are granted in route order), never before, so a packet on a route of 500
/// hops touches a few cache lines, not 500 states, and a packet waiting for its first
/// lane holds none.
#[derive(Default)]
struct Hops {
    inline: [HopState; INLINE_HOPS as usize],
    /// The ring while the window does not fit in `inline` (`mask >= INLINE_HOPS`): its
    /// first `mask + 1` states; kept allocated when the packet's record is reused.
    spill: Vec<HopState>,
    /// The ring's length minus one (a power of two minus one).
    mask: u32,
    /// The hops held: `lo..hi`.
    lo: u32,
    hi: u32,
}

impl Hops {
    /// No hop held yet.
    fn reset(&mut self) {
        self.mask = INLINE_HOPS - 1;
        self.lo = 0;
        self.hi = 0;
    }

    /// The next hop (`hi`), over link slot `link`, got lane `lane`; its head starts
    /// there.
    #[inline(always)]
    fn push(&mut self, link: u32, lane: u32) {
        if self.hi - self.lo > self.mask {
            self.grow();
        }
        let j = self.hi;
        self.hi += 1;
        self[j] = HopState { link, lane, ..UNSTARTED };
    }

    /// The link slot and lane of hop `j` if its head has a lane there.
    #[inline(always)]
    fn granted_lane(&self, j: u32) -> Option<(u32, u32)> {
        (j < self.hi).then(|| (self[j].link, self[j].lane))
    }

    /// Doubles the ring, each held hop's state moved to its place in the larger one.
    #[cold]
    fn grow(&mut self) {
        let (old, new) = (self.mask, self.mask * 2 + 1);
        if self.spill.len() <= new as usize {
            self.spill.resize(new as usize + 1, UNSTARTED);
        }
        for j in self.lo..self.hi {
            let state = self[j];
            let to = (j & new) as usize;
            // Out of the record, or within the heap ring from its lower half to the new
            // upper half, where nothing held is (a state already in place stays).
            if old < INLINE_HOPS || to != (j & old) as usize {
                self.spill[to] = state;
            }
        }
        self.mask = new;
    }
}

impl std::ops::Index<u32> for Hops {
    type Output = HopState;
    #[inline(always)]
    fn index(&self, j: u32) -> &HopState {
        debug_assert!(self.lo <= j && j < self.hi, "hop {j} outside {}..{}", self.lo, self.hi);
        if self.mask < INLINE_HOPS {
            &self.inline[(j & self.mask) as usize]
        } else {
            &self.spill[(j & self.mask) as usize]
        }
    }
}

impl std::ops::IndexMut<u32> for Hops {
    #[inline(always)]
    fn index_mut(&mut self, j: u32) -> &mut HopState {
        debug_assert!(self.lo <= j && j < self.hi, "hop {j} outside {}..{}", self.lo, self.hi);
        if self.mask < INLINE_HOPS {
            &mut self.inline[(j & self.mask) as usize]
        } else {
            &mut self.spill[(j & self.mask) as usize]
        }
    }
}

/// A packet on one hop of its route.
#[derive(Clone, Copy)]
struct HopState {
    /// The link record of the hop (held while the lane is) and the lane held on it.
    link: u32,
    lane: u32,
    /// Flits started over the hop's link, flits that finished crossing it.
    sent: u32,
    arrived: u32,
    /// When the head started over the link.
    enter: Ticks,
}

const UNSTARTED: HopState = HopState { link: NONE, lane: NONE, sent: 0, arrived: 0, enter: 0 };

impl Default for HopState {
    fn default() -> Self {
        UNSTARTED
    }
}

#[derive(Default)]
struct Msg {
    id: u64,
    /// Its processors and route (empty when routes are walked: [`Fabric::walks`]),
    /// and the lane classes in use when it was sent (its route's classes).
    src: u32,
    dst: u32,
    route: Vec<RouteHop>,
    classes: u32,
    /// Fixed at the send: flits per packet, per-flit time, head ratio, time in each
    /// router, packets.
    flits: u32,
    last_flits: u32,
    link_delay: Ticks,
    ratio: f64,
    hop_latency: Ticks,
    packets: u32,
    /// Packets released so far, packets not yet arrived, latest arrival.
    released: u32,
    left: u32,
    last: Ticks,
}

impl Wormhole {
    /// The model on `topo`, with per-link costs `links` (empty: uniform).
    pub fn new(params: NetParams, topo: Topology, links: Vec<LinkCost>) -> Wormhole {
        let width = params.lanes.max(1);
        let classes = lane_classes(&topo, width);
        // Room for a slot per link of the machine, as far as RESERVE_LINKS goes: a
        // link's slot is made when a route first crosses it, and a table that grew by
        // doubling would hold its old copy and its new one at once while it moved.
        // Reserved, not written: pages no slot was made on are never touched. A
        // reservation the host refuses leaves the table to grow.
        let mut table = Vec::new();
        let want = topo.link_count().max(links.len()).min(RESERVE_LINKS);
        crate::hostmem::fallible(|| table.try_reserve_exact(want)).ok();
        Wormhole {
            params,
            fabric: Fabric::walking(topo, links),
            width,
            stride: width,
            classes,
            in_transit: 0,
            resolved: Vec::new(),
            lanes: Vec::new(),
            links: Vec::new(),
            link_slot: Vec::new(),
            spare: Vec::new(),
            slots: table,
            emptied: Vec::new(),
            retire_batch: RETIRE_BATCH,
            events: Events::default(),
            pkts: Slab::new(),
            msgs: Slab::new(),
            work: Fifo::default(),
            now: 0,
            done: VecDeque::new(),
            record: false,
            hops: Vec::new(),
            count: false,
            flit_hops: 0,
        }
    }

    /// The lanes a packet of `class` may take.
    fn lane_range(&self, class: u8) -> std::ops::Range<u32> {
        let (c, k, w) = (u32::from(class).min(self.classes - 1), self.classes, self.width);
        c * w / k..(c + 1) * w / k
    }

    /// Where lane `v >= NEAR_LANES` of link record `r` is in `lanes`.
    #[inline(always)]
    fn far(&self, r: u32, v: u32) -> usize {
        (r * (self.stride - NEAR_LANES) + v - NEAR_LANES) as usize
    }

    #[inline(always)]
    fn lane(&mut self, r: u32, v: u32) -> &mut Lane {
        if v < NEAR_LANES {
            &mut self.links[r as usize].near[v as usize]
        } else {
            let i = self.far(r, v);
            &mut self.lanes[i]
        }
    }

    /// Lane `v` of link record `r`.
    #[inline(always)]
    fn lane_at(&self, r: u32, v: u32) -> Lane {
        if v < NEAR_LANES {
            self.links[r as usize].near[v as usize]
        } else {
            self.lanes[self.far(r, v)]
        }
    }

    /// The record of link `slot`, made (from a spare one when there is one) if the link
    /// is not active.
    #[inline(always)]
    fn activate(&mut self, slot: u32) -> u32 {
        let r = self.slots[slot as usize].record;
        if r != NONE {
            return r;
        }
        self.make_record(slot)
    }

    /// A record for link `slot`, which has none: its turn starts at lane 0
    /// ([`SlotState`]).
    #[cold]
    #[inline(never)]
    fn make_record(&mut self, slot: u32) -> u32 {
        debug_assert!(self.work.is_empty(), "a record is made while a turn is pending");
        let r = match self.spare.pop() {
            Some(r) => r,
            None => {
                // A spare record's lanes are free: it was retired empty.
                let far = self.stride.saturating_sub(NEAR_LANES) as usize;
                self.lanes.extend(std::iter::repeat_n(FREE, far));
                self.links.push(IDLE_LINK);
                self.link_slot.push(NONE);
                (self.links.len() - 1) as u32
            }
        };
        let state = &mut self.slots[slot as usize];
        state.record = r;
        self.links[r as usize] = IDLE_LINK;
        self.link_slot[r as usize] = slot;
        r
    }

    /// Gives record `r` back if its link is still empty (no flit crossing, no head
    /// waiting, no lane held): its busy time goes to the link's slot. Called only
    /// once the links' turns are all taken, when no turn waits for it and no event
    /// names it.
    fn retire(&mut self, r: u32) {
        let slot = self.link_slot[r as usize];
        let link = &mut self.links[r as usize];
        link.noted = false;
        if link.held != 0 || link.packet != NONE || link.wait_first != NONE {
            return;
        }
        debug_assert!((0..self.stride).all(|v| self.lane_at(r, v).owner == NONE));
        let link = &self.links[r as usize];
        let state = &mut self.slots[slot as usize];
        state.busy += link.busy;
        state.record = NONE;
        self.link_slot[r as usize] = NONE;
        self.spare.push(r);
    }

    /// Releases the next packet of message `m`: its head asks for a lane on the first
    /// link.
    #[inline(always)]
    fn release_packet(&mut self, m: u32) {
        let msg = &mut self.msgs.items[m as usize];
        let index = msg.released;
        let (hops, flits) = (msg.route.len() as u32, if index + 1 == msg.packets { msg.last_flits } else { msg.flits });
        let (link_delay, ratio, hop_latency) = (msg.link_delay, msg.ratio, msg.hop_latency);
        let (src, dst, classes) = (msg.src, msg.dst, msg.classes);
        msg.released += 1;
        let (hops, walk) = if self.fabric.walks() {
            (self.fabric.distance(src, dst), self.fabric.walk(src, dst))
        } else {
            (hops, Walk::default())
        };
        let k = self.pkts.alloc();
        let p = &mut self.pkts.items[k as usize];
        p.live = true;
        p.msg = m;
        p.index = index;
        p.want = NONE;
        p.flits = flits;
        p.hops = hops;
        p.walk = walk;
        p.classes = classes;
        (p.head, p.link_delay, p.ratio, p.hop_latency) = (head_time(link_delay, ratio), link_delay, ratio, hop_latency);
        p.hop.reset();
        self.request_lane(k, 0);
    }

    /// Packet `k`'s head asks for a lane on hop `j`.
    #[inline(always)]
    fn request_lane(&mut self, k: u32, j: u32) {
        let hop = if self.fabric.walks() {
            // Hops are asked for in route order: the walk is at hop `j`, which exists
            // (`j < hops`, the walk's length).
            let p = &mut self.pkts.items[k as usize];
            let slots = &mut self.slots;
            self.fabric.step(&mut p.walk, p.classes, |_| slots.push(UNUSED_SLOT)).unwrap_or_default()
        } else {
            let m = self.pkts.items[k as usize].msg;
            self.msgs.items[m as usize].route[j as usize]
        };
        let r = self.activate(hop.link);
        for v in self.lane_range(hop.class) {
            if self.lane(r, v).owner == NONE {
                self.grant(k, j, r, v);
                return;
            }
        }
        let p = &mut self.pkts.items[k as usize];
        p.want = j;
        p.wanted = RouteHop { link: r, ..hop };
        p.next_wait = NONE;
        let link = &mut self.links[r as usize];
        let last = std::mem::replace(&mut link.wait_last, k);
        if last == NONE {
            link.wait_first = k;
        } else {
            self.pkts.items[last as usize].next_wait = k;
        }
    }

    /// Takes packet `k`, which follows `prev` (NONE: it is the first), out of the
    /// queue of heads waiting for a lane of link record `r`.
    #[inline(always)]
    fn unqueue(&mut self, r: u32, prev: u32, k: u32) {
        let next = self.pkts.items[k as usize].next_wait;
        let link = &mut self.links[r as usize];
        if prev == NONE {
            link.wait_first = next;
        } else {
            self.pkts.items[prev as usize].next_wait = next;
        }
        if link.wait_last == k {
            link.wait_last = prev;
        }
    }

    /// Packet `k`'s head gets lane `v` of link record `r` for hop `j`.
    #[inline(always)]
    fn grant(&mut self, k: u32, j: u32, r: u32, v: u32) {
        let p = &mut self.pkts.items[k as usize];
        // Nothing has started here yet: every flit that reached the buffer behind is
        // ready (at the source, every flit of the packet).
        let ready = if j == 0 { p.flits } else { p.hop[j - 1].arrived };
        let hop = if j + 1 == p.hops { j | LAST_HOP } else { j };
        debug_assert_eq!(j, p.hop.hi, "hops are granted in route order");
        p.hop.push(r, v);
        p.want = NONE;
        *self.lane(r, v) = Lane { owner: k, hop, buf: 0, ready };
        self.links[r as usize].held += 1;
        self.wake(r);
    }

    /// Frees lane `v` of link record `r` and gives it to the first waiting head that
    /// may use it.
    #[inline(always)]
    fn release_lane(&mut self, r: u32, v: u32) {
        *self.lane(r, v) = FREE;
        let link = &mut self.links[r as usize];
        link.held -= 1;
        // No class has a lane past the width (one a change of `lanes` took away is not
        // given again), and the queue is read only when someone waits. The link may
        // be empty now: its record is noted for [`Wormhole::retire`].
        let (mut prev, mut q) = (NONE, link.wait_first);
        if q == NONE {
            if link.held == 0 && !link.noted {
                link.noted = true;
                self.emptied.push(r);
            }
            return;
        }
        if v >= self.width {
            return;
        }
        // The first in the queue whose class may take the lane.
        while !self.lane_range(self.pkts.items[q as usize].wanted.class).contains(&v) {
            (prev, q) = (q, self.pkts.items[q as usize].next_wait);
            if q == NONE {
                return;
            }
        }
        self.unqueue(r, prev, q);
        let j = self.pkts.items[q as usize].want;
        self.grant(q, j, r, v);
    }

    /// The arbitration of link record `r` may have changed: it is looked at in turn
    /// when it is idle. A link carrying a flit stays so until that flit's event, and the
    /// work is all done before the next event is taken, so its turn would find it busy
    /// and do nothing: it is not queued (the same links start the same flits in the
    /// same order).
    #[inline(always)]
    fn wake(&mut self, r: u32) {
        if self.links[r as usize].packet == NONE {
            self.work.push(r);
        }
    }

    /// Starts the next flit over link record `r` if it is idle and a lane has one
    /// ready.
    fn arbitrate(&mut self, r: u32) {
        if self.links[r as usize].packet != NONE {
            return;
        }
        // Every lane of the table: a packet may hold one past `width` after a change.
        let (width, mut v) = (self.stride, u32::from(self.links[r as usize].rr));
        for _ in 0..width {
            let lane = self.lane_at(r, v);
            let next = if v + 1 == width { 0 } else { v + 1 };
            if lane.owner != NONE {
                debug_assert_eq!(lane.ready, {
                    let (p, j) = (&self.pkts.items[lane.owner as usize], lane.hop & !LAST_HOP);
                    if j == p.hop.lo {
                        p.flits - p.hop[j].sent
                    } else {
                        p.hop[j - 1].arrived - p.hop[j].sent
                    }
                });
                if lane.ready != 0 && (lane.hop & LAST_HOP != 0 || lane.buf < self.params.buffer_size) {
                    self.links[r as usize].rr = next as u8;
                    self.start_flit(r, v, lane.owner, lane.hop & !LAST_HOP);
                    return;
                }
            }
            v = next;
        }
    }

    /// Starts the next flit of packet `k`, on hop `j`, over lane `v` of link record `r`.
    fn start_flit(&mut self, r: u32, v: u32, k: u32, j: u32) {
        let now = self.now;
        let (m, flit, flits, hops, up, uv, head, link_delay, ratio) = {
            let p = &mut self.pkts.items[k as usize];
            let h = &mut p.hop[j];
            let flit = h.sent;
            h.sent += 1;
            if flit == 0 {
                h.enter = now;
            }
            let (up, uv) = if j > 0 { (Some(p.hop[j - 1].link), p.hop[j - 1].lane) } else { (None, NONE) };
            if j > 0 && flit + 1 == p.flits {
                // The tail leaves hop j - 1's buffer: the hops before j are done.
                p.hop.lo = j;
            }
            (p.msg, flit, p.flits, p.hops, up, uv, p.head, p.link_delay, p.ratio)
        };
        let dur = if self.fabric.uniform() {
            // `slot_cost` would give `link_delay` and no latency: `head` is the head's.
            if flit == 0 {
                head
            } else {
                link_delay
            }
        } else {
            let LinkCost { per_flit, latency, .. } = self.fabric.slot_cost(self.link_slot[r as usize], link_delay);
            if flit == 0 {
                head_time(per_flit, ratio) + latency
            } else {
                per_flit
            }
        };
        let lane = self.lane(r, v);
        lane.ready -= 1;
        if j + 1 < hops {
            lane.buf += 1;
        }
        if let Some(up) = up {
            self.lane(up, uv).buf -= 1;
            self.wake(up);
            if flit + 1 == flits {
                self.release_lane(up, uv);
            }
        } else if flit + 1 == flits && self.msgs.items[m as usize].released < self.msgs.items[m as usize].packets {
            self.release_packet(m);
        }
        let link = &mut self.links[r as usize];
        (link.packet, link.hop, link.flit) = (k, j, flit);
        link.busy += dur;
        self.in_transit += 1;
        self.flit_hops += 1;
        self.events.push(now + dur, r);
    }

    /// Link record `r` finished carrying a flit.
    fn flit_done(&mut self, r: u32) {
        let link = &mut self.links[r as usize];
        let (k, j, flit) = (link.packet, link.hop, link.flit);
        if k == NONE {
            return;
        }
        link.packet = NONE;
        self.in_transit -= 1;
        let now = self.now;
        let p = &mut self.pkts.items[k as usize];
        let h = &mut p.hop[j];
        h.arrived += 1;
        let (m, index, lane, enter) = (p.msg, p.index, h.lane, h.enter);
        let (hops, tail, hop_latency) = (p.hops, flit + 1 == p.flits, p.hop_latency);
        if tail && self.record {
            let msg = &self.msgs.items[m as usize];
            let l = self.fabric.hop_ends(self.link_slot[r as usize], msg.src, msg.dst);
            self.hops.push(Hop { msg: msg.id, packet: index, from: l.from, to: l.to, enter, leave: now });
        }
        if j + 1 == hops {
            if tail {
                self.release_lane(r, lane);
                self.pkts.items[k as usize].live = false;
                self.pkts.release(k);
                if hop_latency == 0 {
                    self.packet_arrived(m);
                } else {
                    // Out of the destination's router later; the lane is free now.
                    self.events.push(now + hop_latency, RECOVERED | m);
                }
            }
        } else if flit == 0 {
            if hop_latency == 0 {
                self.request_lane(k, j + 1);
            } else {
                // The head is in the router: it asks for the next lane when it leaves,
                // holding the lanes behind it (it counts as moving meanwhile).
                self.pkts.items[k as usize].routed = j + 1;
                self.in_transit += 1;
                self.events.push(now + hop_latency, ROUTED | k);
            }
        } else {
            // A flit behind the head reached the buffer: it may go on over the next link
            // (its record is in the packet's once the head has a lane there or waits for
            // one). A link the head has not asked for yet has no lane held by anyone
            // unless it is active: an inactive link's turn would do nothing.
            let p = &self.pkts.items[k as usize];
            let next = match p.hop.granted_lane(j + 1) {
                Some((next, v)) => {
                    self.lane(next, v).ready += 1;
                    next
                }
                None if p.want == j + 1 => p.wanted.link,
                // The head is in the router: its walk is at hop j + 1.
                None if self.fabric.walks() => match self.fabric.peek_slot(&p.walk) {
                    NONE => NONE,
                    slot => self.slots[slot as usize].record,
                },
                None => self.slots[self.msgs.items[m as usize].route[j as usize + 1].link as usize].record,
            };
            if next != NONE {
                self.wake(next);
            }
        }
        self.wake(r);
    }

    /// Every link's turn that is due; then, if a batch of links was found empty, those
    /// still empty give their records back.
    fn run_work(&mut self) {
        while let Some(r) = self.work.pop() {
            self.arbitrate(r);
        }
        if self.emptied.len() >= self.retire_batch {
            while let Some(r) = self.emptied.pop() {
                self.retire(r);
            }
        }
    }

    /// A packet of message `m` reached its destination at `self.now`.
    #[inline(always)]
    fn packet_arrived(&mut self, m: u32) {
        let now = self.now;
        let msg = &mut self.msgs.items[m as usize];
        msg.left -= 1;
        msg.last = msg.last.max(now);
        if msg.left == 0 {
            self.done.push_back((msg.id, msg.last));
            self.msgs.release(m);
        }
    }

    /// With `--deadlock resolve`: while no flit crosses any link and packets are in the
    /// network (all of them blocked for good), resolves one cycle after the other
    /// (module docs).
    fn resolve_deadlocks(&mut self) {
        while self.in_transit == 0 && self.pkts.live() > 0 && self.params.deadlock == DeadlockMode::Resolve {
            let cycle = self.cycle();
            let Some(victim) = cycle.iter().map(|&(k, _)| k).max_by_key(|&k| {
                let p = &self.pkts.items[k as usize];
                (self.msgs.items[p.msg as usize].id, p.index)
            }) else {
                return;
            };
            self.recover(victim);
            self.run_work();
        }
    }

    /// Takes packet `k` (its head waiting) out of its lanes and sends it on over the
    /// recovery channel.
    fn recover(&mut self, k: u32) {
        let (m, want, hops, index, flits) = {
            let p = &self.pkts.items[k as usize];
            (p.msg, p.want, p.hops, p.index, p.flits)
        };
        let wait_link = self.pkts.items[k as usize].wanted.link;
        let wait_slot = self.link_slot[wait_link as usize];
        let (mut prev, mut q) = (NONE, self.links[wait_link as usize].wait_first);
        while q != k && q != NONE {
            (prev, q) = (q, self.pkts.items[q as usize].next_wait);
        }
        if q == k {
            self.unqueue(wait_link, prev, k);
        }
        let (id, link_delay, ratio) = {
            let msg = &self.msgs.items[m as usize];
            (msg.id, msg.link_delay, msg.ratio)
        };
        let at = self.hop_ends(m, wait_slot).from;
        self.resolved.push(Resolution { time: self.now, msg: id, packet: index, at });
        // The rest of the route: the head's crossings, then the other flits behind it.
        let mut delay = 0;
        let mut ld = link_delay;
        let mut cross = |fabric: &Fabric, slot: u32| {
            let c = fabric.cost(fabric.slot_link[slot as usize], link_delay);
            delay += head_time(c.per_flit, ratio) + c.latency;
            ld = c.per_flit;
        };
        if self.fabric.walks() {
            // The walk is past the hop waited for. The rest of the route gets its
            // slots, as a whole route's links have theirs from its send.
            cross(&self.fabric, wait_slot);
            let (mut walk, classes) = (self.pkts.items[k as usize].walk, self.pkts.items[k as usize].classes);
            let slots = &mut self.slots;
            while let Some(hop) = self.fabric.step(&mut walk, classes, |_| slots.push(UNUSED_SLOT)) {
                cross(&self.fabric, hop.link);
            }
        } else {
            for j in want..hops {
                cross(&self.fabric, self.msgs.items[m as usize].route[j as usize].link);
            }
        }
        delay += u64::from(flits.saturating_sub(1)) * ld;
        // Hops before `lo` are done: their lanes are free, and the tail has left the
        // source when `lo > 0`.
        let hop = &self.pkts.items[k as usize].hop;
        let (lo, first_done) = (hop.lo, hop.lo > 0 || (hop.hi > 0 && hop[0].sent == flits));
        for j in lo..want {
            let HopState { lane, link, .. } = self.pkts.items[k as usize].hop[j];
            if lane != NONE && self.lane(link, lane).owner == k {
                self.release_lane(link, lane);
                self.wake(link);
            }
        }
        self.pkts.items[k as usize].live = false;
        self.pkts.release(k);
        // Its flits left the source with it: the message's next packet may go.
        let msg = &self.msgs.items[m as usize];
        if !first_done && msg.released < msg.packets {
            self.release_packet(m);
        }
        self.events.push(self.now + delay, RECOVERED | m);
    }

    /// From the first waiting packet, "waits for a lane held by" until a packet
    /// repeats: the repeated part, as (packet, holder) pairs; a chain that ends at a
    /// packet that does not wait (holder NONE) when there is no cycle.
    fn cycle(&self) -> Vec<(u32, u32)> {
        let waiting = (0..self.pkts.items.len() as u32)
            .find(|&k| self.pkts.items[k as usize].live && self.pkts.items[k as usize].want != NONE);
        let Some(first) = waiting else { return Vec::new() };
        let mut chain: Vec<(u32, u32)> = Vec::new();
        let mut k = first;
        loop {
            if let Some(pos) = chain.iter().position(|&(p, _)| p == k) {
                chain.drain(..pos);
                break;
            }
            let p = &self.pkts.items[k as usize];
            if p.want == NONE {
                break;
            }
            let hop = p.wanted;
            let holder = self
                .lane_range(hop.class)
                .map(|v| self.lane_at(hop.link, v).owner)
                .find(|&o| o != NONE)
                .unwrap_or(NONE);
            chain.push((k, holder));
            if holder == NONE {
                break;
            }
            k = holder;
        }
        chain
    }

    /// (src, dst) of message slot `m`.
    fn ends(&self, m: u32) -> (u32, u32) {
        let msg = &self.msgs.items[m as usize];
        (msg.src, msg.dst)
    }

    /// The ends of the hop over link slot `slot` on message slot `m`'s route.
    fn hop_ends(&self, m: u32, slot: u32) -> crate::topo::Link {
        let msg = &self.msgs.items[m as usize];
        self.fabric.hop_ends(slot, msg.src, msg.dst)
    }
}

/// A head flit's crossing without the link's latency, `round(per_flit * ratio)` (half
/// away from zero, as `f64::round`), computed without `round`'s library call (one per
/// head flit): the product's integer part, plus one when its fraction, exact as a
/// difference of the product and its integer part, is at least a half. The product is
/// never negative; past `u64::MAX` both saturate.
#[inline]
fn head_time(per_flit: Ticks, ratio: f64) -> Ticks {
    let x = per_flit as f64 * ratio;
    let whole = x as Ticks;
    if x - whole as f64 >= 0.5 {
        whole.saturating_add(1)
    } else {
        whole
    }
}

/// The lane classes of `width` lanes per link on `topo` (module docs): 2 on a ring or
/// torus, what the routes need on a link list, as far as the lanes go; else 1.
fn lane_classes(topo: &Topology, width: u32) -> u32 {
    let want = match topo.graph() {
        Some(g) => g.classes(),
        None if matches!(topo.kind(), TopoKind::Ring | TopoKind::Torus) => 2,
        None => 1,
    };
    want.min(width).clamp(1, 32)
}

impl Network for Wormhole {
    fn send(&mut self, id: u64, src: u32, dst: u32, bytes: u32, now: Ticks) -> Option<Ticks> {
        let p = &self.params;
        if src == dst {
            return Some(now + p.local_cost);
        }
        let packets = p.packets(bytes).min(u32::MAX as u64) as u32;
        let flits = p.flits().min(u32::MAX as u64) as u32;
        let ready = p.ready(bytes, now);
        let (link_delay, ratio, hop_latency) = (p.link_delay, p.head_flit_ratio, p.hop_latency);
        let m = self.msgs.alloc();
        let mut route = std::mem::take(&mut self.msgs.items[m as usize].route);
        if self.fabric.walks() {
            // Its packets follow the route hop by hop.
            route.clear();
        } else {
            let slots = &mut self.slots;
            self.fabric.route(src, dst, self.classes, &mut route, |_| slots.push(UNUSED_SLOT));
        }
        self.msgs.items[m as usize] = Msg {
            id,
            src,
            dst,
            route,
            classes: self.classes,
            flits,
            last_flits: p.last_flits(bytes).min(u32::MAX as u64) as u32,
            link_delay,
            ratio,
            hop_latency,
            packets,
            released: 0,
            left: packets,
            last: 0,
        };
        self.events.push(ready, RELEASE | m);
        None
    }

    fn next_arrival(&mut self, until: Ticks) -> Option<(u64, Ticks)> {
        loop {
            if let Some(d) = self.done.pop_front() {
                return Some(d);
            }
            let (t, what) = self.events.pop_before(until)?;
            self.now = t;
            if what & RELEASE != 0 {
                self.release_packet(what & !RELEASE);
            } else if what & RECOVERED != 0 {
                self.packet_arrived(what & !RECOVERED);
            } else if what & ROUTED != 0 {
                let k = what & !ROUTED;
                self.in_transit -= 1;
                self.request_lane(k, self.pkts.items[k as usize].routed);
            } else {
                self.flit_done(what);
            }
            self.run_work();
            self.resolve_deadlocks();
        }
    }

    fn next_event(&self) -> Ticks {
        if !self.done.is_empty() {
            return self.now;
        }
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
        if params.lanes != self.width {
            // Packets injected from now on take the new lanes; those in the network keep
            // the lanes they hold (a lane past the new width serves its holder and is
            // not given again). The table grows to the widest width asked for while
            // packets hold lanes, and fits the width at a change made with the network
            // empty.
            let width = params.lanes.max(1);
            let stride = if self.msgs.live() == 0 { width } else { self.stride.max(width) };
            if stride != self.stride {
                // The near lanes stay in the link records; the far ones move to their
                // places in a table of the new stride (a lane past it is free: the
                // table narrows only with the network empty).
                let (old, new) = (self.stride.saturating_sub(NEAR_LANES), stride.saturating_sub(NEAR_LANES));
                let mut lanes = vec![FREE; self.links.len() * new as usize];
                let keep = old.min(new) as usize;
                for r in 0..self.links.len() {
                    let (from, to) = (r * old as usize, r * new as usize);
                    lanes[to..to + keep].copy_from_slice(&self.lanes[from..from + keep]);
                }
                self.lanes = lanes;
                self.stride = stride;
            }
            self.width = width;
            self.classes = lane_classes(&self.fabric.topo, self.width);
            for l in &mut self.links {
                l.rr %= self.stride as u8;
            }
        }
        self.params = params;
        Ok(())
    }

    fn record_hops(&mut self, on: bool) {
        self.record = on;
        if on {
            self.fabric.keep_ends();
        }
    }

    /// A send changes nothing before its message is ready, `msg_init + packet_init`
    /// or more after it (routes and link slots it adds are used by nothing before).
    fn lookahead(&self) -> Option<Ticks> {
        Some(self.params.msg_init + self.params.packet_init)
    }

    fn ahead(&mut self, step: AheadStep) {
        match step {
            AheadStep::Begin(from) => self.events.ahead_begin(from),
            AheadStep::Insert => self.events.ahead_insert(),
            AheadStep::End => self.events.ahead_end(),
        }
    }

    fn take_hops(&mut self, out: &mut Vec<Hop>) {
        out.append(&mut self.hops);
    }

    fn take_resolutions(&mut self, out: &mut Vec<Resolution>) {
        out.append(&mut self.resolved);
    }

    fn count_links(&mut self, on: bool) {
        self.count = on;
    }

    fn flit_hops(&self) -> u64 {
        self.flit_hops
    }

    fn link_busy(&self) -> Vec<LinkLoad> {
        if self.count {
            let busy: Vec<Ticks> = self
                .slots
                .iter()
                .map(|s| s.busy + if s.record == NONE { 0 } else { self.links[s.record as usize].busy })
                .collect();
            // A walked route's links get their slots as its packets reach them: those
            // of the messages still in the network that no packet has reached yet are
            // listed idle, as the links of a whole route are from its send.
            let mut idle = Vec::new();
            if self.fabric.walks() {
                for msg in self.msgs.items.iter().filter(|msg| msg.left > 0) {
                    self.fabric.unslotted(msg.src, msg.dst, &mut idle);
                }
            }
            self.fabric.loads_with(&busy, idle)
        } else {
            Vec::new()
        }
    }

    fn blocked(&self) -> Vec<String> {
        if !self.events.is_empty() || self.msgs.live() == 0 {
            return Vec::new();
        }
        let chain = self.cycle();
        chain
            .iter()
            .map(|&(k, holder)| {
                let p = &self.pkts.items[k as usize];
                let hop = self.hop_ends(p.msg, self.link_slot[p.wanted.link as usize]);
                let (s, d) = self.ends(p.msg);
                let mut line = format!(
                    "packet {} of a message {s}->{d}: head at processor {} waits for a lane on link {}->{}",
                    p.index, hop.from, hop.from, hop.to
                );
                if holder != NONE {
                    let q = &self.pkts.items[holder as usize];
                    let (qs, qd) = self.ends(q.msg);
                    line.push_str(&format!(", held by packet {} of a message {qs}->{qd}", q.index));
                }
                line
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
