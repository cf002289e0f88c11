//! What the contention models share: routes turned into link numbers (with each hop's
//! virtual-channel class), per-link costs, a compact per-link state table, and an event
//! queue ordered by time and then by insertion.
use super::LinkCost;
use crate::time::Ticks;
use crate::topo::{Link, Topology, Walk};
use std::cmp::Reverse;
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BinaryHeap, HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

/// "No such slot".
pub(super) const NONE: u32 = u32::MAX;

/// In [`Fabric::loads_with`]'s table: a link routed over that has no slot.
const IDLE: u32 = u32::MAX - 1;

/// One hop of a route (8 bytes: a message of a whole route holds one per hop while it
/// travels, so a star of 262144 messages over 512 hops would hold 2^27 of them, which
/// is why the wormhole network walks its routes where it can, [`Fabric::walking`];
/// the link's ends are the slot's, [`Fabric::hop_ends`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct RouteHop {
    /// The link's slot ([`Fabric::slot_of`]).
    pub link: u32,
    /// Virtual-channel class on this hop: 1 from the wraparound link of a ring or torus
    /// dimension to the end of that dimension's hops, else 0 (see [`Fabric::route`]).
    pub class: u8,
}

/// The physical network: topology, link costs, routes.
pub(super) struct Fabric {
    pub topo: Topology,
    /// Per link index, when links differ; empty: every link costs the message's
    /// `link_delay` per flit and no latency.
    costs: Vec<LinkCost>,
    buf: Vec<Link>,
    /// Per link index, its slot in the models' compact link tables (NONE until used),
    /// so a large fully connected machine costs memory only for the links messages use.
    /// Per port ([`crate::topo::Step::port`]) instead when routes are walked.
    slot: SlotTable,
    /// Routes are followed hop by hop ([`Fabric::step`]) instead of made whole.
    walks: bool,
    /// Link index of each slot.
    pub slot_link: Vec<u32>,
    /// The link each slot was made for (on a single shared bus, the first pair that
    /// used it: every pair shares its slot), while [`Fabric::ends_kept`]. Reported as
    /// [`Link::BUS`] on a shared topology ([`Fabric::loads`]).
    slot_ends: Vec<Link>,
    /// Each slot's link is kept in `slot_ends`: on a shared topology, with parallel
    /// links, and while hops are recorded ([`Fabric::keep_ends`]), whose every hop asks.
    /// Otherwise a slot's ends are its link index's ([`Topology::link_at`], asked only
    /// on a network deadlock), and a machine of a million processors, two links used
    /// each, holds 16 bytes a processor less.
    ends_kept: bool,
    /// The topology is shared; `bus`: a single bus (no link list).
    shared: bool,
    bus: bool,
    /// Routes already made, by [`route_key`]`(src, dst, classes)`: where they start in `cached` and
    /// how many hops they have. A route never changes once made (its links got their
    /// slots then), so a message between the same two processors copies it instead of
    /// asking the topology again. At most [`ROUTE_CACHE_HOPS`] hops are kept.
    routes: HashMap<u64, (u32, u32), BuildHasherDefault<TickHash>>,
    cached: Vec<RouteHop>,
    /// Parallel links: for a link index that has copies, every index of the pair's
    /// links in this direction (itself first), and the next one a route takes.
    copies: BTreeMap<u32, (Vec<u32>, usize)>,
}

/// Per link index (or port), its slot plus one: 0 for none, so that the table is
/// allocated zeroed and a page of it no slot was made on is never touched (a machine of
/// 2^24 processors with 24 links each would otherwise write 1.6 GB when it is made).
struct SlotTable(Vec<u32>);

impl SlotTable {
    fn new(n: usize) -> SlotTable {
        SlotTable(vec![0; n])
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    /// The slot at `i` (NONE: none, or past the table).
    #[inline(always)]
    fn get(&self, i: usize) -> u32 {
        self.0.get(i).map_or(NONE, |&s| s.wrapping_sub(1))
    }

    /// Slots are numbered below NONE - 1 (one per link).
    #[inline(always)]
    fn set(&mut self, i: usize, slot: u32) {
        self.0[i] = slot + 1;
    }
}

/// One word for the route cache's key (one multiplication to hash).
fn route_key(src: u32, dst: u32, classes: u32) -> u64 {
    (u64::from(src) << 37) | (u64::from(dst) << 5) | u64::from(classes.min(31))
}

/// Hops the route cache keeps at most (16 bytes each): beyond that, new routes are
/// made every time.
const ROUTE_CACHE_HOPS: usize = 1 << 18;

impl Fabric {
    pub fn new(topo: Topology, costs: Vec<LinkCost>) -> Fabric {
        Fabric::make(topo, costs, false)
    }

    /// A fabric whose routes are walked hop by hop ([`Fabric::step`]) where the
    /// topology allows it ([`Topology::walkable`], and no parallel links): a message
    /// then holds no route, and a hop costs a few additions instead of a link
    /// number's search. Elsewhere routes are made whole ([`Fabric::route`]).
    pub fn walking(topo: Topology, costs: Vec<LinkCost>) -> Fabric {
        Fabric::make(topo, costs, true)
    }

    fn make(topo: Topology, costs: Vec<LinkCost>, walk: bool) -> Fabric {
        let mut copies: BTreeMap<u32, (Vec<u32>, usize)> = BTreeMap::new();
        for (i, c) in costs.iter().enumerate() {
            if let Some(b) = c.copy_of {
                copies.entry(b).or_insert_with(|| (vec![b], 0)).0.push(i as u32);
            }
        }
        let shared = topo.kind() == crate::topo::TopoKind::Shared;
        let walks = walk && copies.is_empty() && costs.len() <= topo.link_count() && topo.walkable();
        let n = if walks { topo.nodes() as usize * topo.ports() } else { topo.link_count().max(costs.len()) };
        Fabric {
            walks,
            ends_kept: shared || !copies.is_empty(),
            shared,
            bus: topo.kind() == crate::topo::TopoKind::Shared && topo.graph().is_none(),
            topo,
            costs,
            buf: Vec::new(),
            slot: SlotTable::new(n),
            slot_link: Vec::new(),
            slot_ends: Vec::new(),
            routes: HashMap::default(),
            cached: Vec::new(),
            copies,
        }
    }

    /// Keeps each slot's link from now on (those made already are filled in): hops are
    /// being recorded, each with its ends.
    pub fn keep_ends(&mut self) {
        if !self.ends_kept {
            self.slot_ends = self.slot_link.iter().map(|&i| self.index_ends(i)).collect();
            self.ends_kept = true;
        }
    }

    /// The ends of link index `index` (not on a shared topology, and not a parallel
    /// link's copy, whose index is past the topology's: their slots keep their ends).
    fn index_ends(&self, index: u32) -> Link {
        // Every slot's index is a link of the topology (`slot_of` gives none to others).
        self.topo.link_at(index as usize).unwrap_or(Link::BUS)
    }

    /// The cost of link `index` for a message whose uniform per-flit time is
    /// `link_delay`.
    pub fn cost(&self, index: u32, link_delay: Ticks) -> LinkCost {
        self.costs.get(index as usize).copied().unwrap_or(LinkCost::new(link_delay, 0))
    }

    /// Every link costs the message's `link_delay` per flit and no latency.
    #[inline(always)]
    pub fn uniform(&self) -> bool {
        self.costs.is_empty()
    }

    /// The cost of link slot `slot` (as [`Fabric::cost`]; without a look-up of the
    /// slot's link when every link costs the same).
    #[inline(always)]
    pub fn slot_cost(&self, slot: u32, link_delay: Ticks) -> LinkCost {
        if self.costs.is_empty() {
            LinkCost::new(link_delay, 0)
        } else {
            self.cost(self.slot_link[slot as usize], link_delay)
        }
    }

    /// The ends of a hop over link slot `slot` on the route of a message from `src` to
    /// `dst`: the slot's link, or on a single shared bus (one slot for every pair, one
    /// hop per route) the message's own ends.
    pub fn hop_ends(&self, slot: u32, src: u32, dst: u32) -> Link {
        if self.bus {
            Link { from: src, to: dst }
        } else if self.ends_kept {
            self.slot_ends[slot as usize]
        } else {
            self.index_ends(self.slot_link[slot as usize])
        }
    }

    /// The compact slot of link `index`, made on first use; `fresh` is called with the
    /// new slot number so the caller can grow its tables.
    pub fn slot_of(&mut self, index: u32, link: Link, mut fresh: impl FnMut(u32)) -> u32 {
        debug_assert!(!self.walks, "a walking fabric numbers its slots by port");
        if index as usize >= self.slot.len() {
            return NONE;
        }
        let mut s = self.slot.get(index as usize);
        if s == NONE {
            s = self.slot_link.len() as u32;
            self.slot.set(index as usize, s);
            self.slot_link.push(index);
            if self.ends_kept {
                self.slot_ends.push(link);
            }
            fresh(s);
        }
        s
    }

    /// Routes are walked ([`Fabric::walking`]): use [`Fabric::walk`] and
    /// [`Fabric::step`], not [`Fabric::route`].
    #[inline(always)]
    pub fn walks(&self) -> bool {
        self.walks
    }

    /// The start of the route from `src` to `dst`, to follow with [`Fabric::step`].
    pub fn walk(&self, src: u32, dst: u32) -> Walk {
        self.topo.walk(src, dst)
    }

    /// Hops from `src` to `dst`.
    pub fn distance(&self, src: u32, dst: u32) -> u32 {
        self.topo.distance(src, dst)
    }

    /// The next hop of `w` (`None`: `w` is at its destination), as [`Fabric::route`]
    /// would have given it: its link's slot, made on first use (`fresh` as in
    /// [`Fabric::slot_of`]), and its lane class among `classes`.
    #[inline(always)]
    pub fn step(&mut self, w: &mut Walk, classes: u32, fresh: impl FnMut(u32)) -> Option<RouteHop> {
        debug_assert!(self.walks);
        let step = self.topo.walk_step(w)?;
        let class = u8::from(classes > 1 && w.crossed);
        let slot = match self.slot.get(step.port) {
            NONE => self.port_slot(step, fresh),
            slot => slot,
        };
        Some(RouteHop { link: slot, class })
    }

    /// The slot of a walked hop's link, which has none yet.
    #[cold]
    #[inline(never)]
    fn port_slot(&mut self, step: crate::topo::Step, mut fresh: impl FnMut(u32)) -> u32 {
        let s = self.slot_link.len() as u32;
        // A walked hop is a link of the topology (the walk's tests check every route).
        let index = self.topo.link_index(step.link).map_or(NONE, |i| i as u32);
        self.slot_link.push(index);
        if self.ends_kept {
            self.slot_ends.push(step.link);
        }
        self.slot.set(step.port, s);
        fresh(s);
        s
    }

    /// The slot of `w`'s next hop's link without moving on or making one (NONE: no
    /// route has crossed it yet, or `w` is at its end).
    pub fn peek_slot(&self, w: &Walk) -> u32 {
        let mut w = *w;
        self.topo.walk_step(&mut w).map_or(NONE, |step| self.slot.get(step.port))
    }

    /// The links of the route from `src` to `dst` that have no slot, appended to `out`
    /// (as index and link): a walked route makes its slots as its packets go, a whole
    /// one all at its send, and the statistics list every link a message was routed
    /// over ([`Fabric::loads`]).
    pub fn unslotted(&self, src: u32, dst: u32, out: &mut Vec<(u32, Link)>) {
        let mut w = self.topo.walk(src, dst);
        while let Some(step) = self.topo.walk_step(&mut w) {
            if self.slot.get(step.port) == NONE {
                out.push((self.topo.link_index(step.link).map_or(NONE, |i| i as u32), step.link));
            }
        }
    }

    /// `link` as the statistics name it: [`Link::BUS`] on a shared topology.
    fn named(&self, link: Link) -> Link {
        if self.shared {
            Link::BUS
        } else {
            link
        }
    }

    /// Busy time per used link, ordered by link (parallel links of a pair summed).
    pub fn loads(&self, busy: &[Ticks]) -> Vec<super::LinkLoad> {
        self.loads_with(busy, Vec::new())
    }

    /// [`Fabric::loads`], with links that have no slot but were routed over
    /// ([`Fabric::unslotted`]) listed idle.
    pub fn loads_with(&self, busy: &[Ticks], mut idle: Vec<(u32, Link)>) -> Vec<super::LinkLoad> {
        idle.sort_unstable();
        idle.dedup();
        if !self.ends_kept {
            // Each slot a link of its own, listed in order of link index: (from, to).
            let mut v = Vec::with_capacity(self.slot_link.len() + idle.len());
            // Walked routes number their slots by port: by link index here.
            let by_index: Option<Vec<u32>> = (self.walks || !idle.is_empty()).then(|| {
                let mut t = vec![NONE; self.topo.link_count()];
                // (Every walked link has its number: `get_mut` only spares a panic.)
                for (s, &i) in self.slot_link.iter().enumerate() {
                    if let Some(x) = t.get_mut(i as usize) {
                        *x = s as u32;
                    }
                }
                for &(i, _) in &idle {
                    if let Some(x) = t.get_mut(i as usize) {
                        *x = IDLE;
                    }
                }
                t
            });
            let slot_of = |i: usize| match &by_index {
                Some(t) => t.get(i).copied().unwrap_or(NONE),
                None => self.slot.get(i),
            };
            self.topo.each_link_used(
                |i| slot_of(i) != NONE,
                |i, link| v.push(super::LinkLoad { link, busy: busy.get(slot_of(i) as usize).copied().unwrap_or(0) }),
            );
            return v;
        }
        let mut v: Vec<_> = self
            .slot_ends
            .iter()
            .zip(busy)
            .map(|(&link, &busy)| super::LinkLoad { link: self.named(link), busy })
            .chain(idle.iter().map(|&(_, link)| super::LinkLoad { link: self.named(link), busy: 0 }))
            .collect();
        v.sort_unstable_by_key(|l| l.link);
        v.dedup_by(|b, a| {
            let same = a.link == b.link;
            if same {
                a.busy += b.busy;
            }
            same
        });
        v
    }

    /// The route from `src` to `dst` (SPEC §4 routing, [`Topology::route`]) into `out`,
    /// each hop with its link's slot and lane class, for a network of `classes` lane
    /// classes (1: every lane serves every packet). On a ring or torus with two or more,
    /// a hop is of class 1 from the wraparound link of a dimension on until the route
    /// changes dimension ("dateline" virtual channels): the class-0 lanes of a ring then
    /// never carry a packet across the wraparound and the class-1 lanes never carry one
    /// back to it, so neither class has a cycle of lanes waiting on each other, and
    /// dimension-order routing orders the dimensions. On a link list a hop's class is
    /// the number of down-then-up turns before it ([`crate::topo::Graph::turn_class`]),
    /// at most `classes - 1`. `fresh` as in [`Fabric::slot_of`].
    pub fn route(&mut self, src: u32, dst: u32, classes: u32, out: &mut Vec<RouteHop>, mut fresh: impl FnMut(u32)) {
        out.clear();
        if let Some(&(start, len)) = self.routes.get(&route_key(src, dst, classes)) {
            match &self.cached[start as usize..(start + len) as usize] {
                // (A neighbour's one hop, the commonest route, without the copy's call.)
                [hop] => out.push(*hop),
                hops => out.extend_from_slice(hops),
            }
            self.take_copies(out, &mut fresh);
            return;
        }
        self.buf.clear();
        self.topo.route_into(src, dst, &mut self.buf);
        let mut dim = usize::MAX;
        let mut crossed = false;
        let mut turn = 0u32;
        let top = classes.saturating_sub(1);
        for k in 0..self.buf.len() {
            let l = self.buf[k];
            let index = self.topo.link_index(l).map_or(NONE, |i| i as u32);
            let mut class = 0;
            if top > 0 {
                if let Some(g) = self.topo.graph() {
                    let prev = if k == 0 { l.from } else { self.buf[k - 1].from };
                    turn = g.turn_class(prev, l.from, l.to, turn);
                    class = turn.min(top) as u8;
                } else if let Some((d, wrap)) = self.topo.wrap_hop(l) {
                    if d != dim {
                        dim = d;
                        crossed = false;
                    }
                    crossed |= wrap;
                    class = u8::from(crossed);
                }
            }
            let slot = self.slot_of(index, l, &mut fresh);
            out.push(RouteHop { link: slot, class });
        }
        if self.cached.len() + out.len() <= ROUTE_CACHE_HOPS {
            self.routes.insert(route_key(src, dst, classes), (self.cached.len() as u32, out.len() as u32));
            self.cached.extend_from_slice(out);
        }
        self.take_copies(out, &mut fresh);
    }

    /// On a hop over a pair joined by parallel links, the link whose turn it is (round
    /// robin per pair and direction, message by message).
    fn take_copies(&mut self, out: &mut [RouteHop], fresh: &mut impl FnMut(u32)) {
        if self.copies.is_empty() {
            return;
        }
        for hop in out.iter_mut() {
            let Some(&index) = self.slot_link.get(hop.link as usize) else { continue };
            let Some((list, next)) = self.copies.get_mut(&index) else { continue };
            let pick = list[*next % list.len()];
            *next = (*next + 1) % list.len();
            let link = self.slot_ends[hop.link as usize];
            hop.link = self.slot_of(pick, link, &mut *fresh);
        }
    }
}

/// Events ordered by time, then by insertion (so equal times keep a fixed order).
///
/// The pending events are grouped by time: a heap of the distinct pending times, each
/// with a FIFO bucket of its events in insertion order. That is the same order as one
/// heap of (time, insertion number, event), but the heap holds only the distinct times
/// (few: processors advance in step and links take one of a few durations), and an
/// event is pushed and popped in constant time once its time has a bucket. Buckets are
/// reused, so a long run stops allocating once it has seen its busiest moment.
#[derive(Default)]
pub(super) struct Events {
    /// Distinct pending times, each with its bucket (times are unique in the heap).
    times: BinaryHeap<Reverse<(Ticks, u32)>>,
    /// The bucket of each pending time.
    bucket_of: HashMap<Ticks, u32, BuildHasherDefault<TickHash>>,
    /// Events of one time, oldest first; empty buckets are listed in `free`.
    buckets: Vec<VecDeque<u32>>,
    free: Vec<u32>,
    /// The time and bucket of the latest push, while that bucket is pending (most
    /// pushes in a row share a time).
    last: Option<(Ticks, u32)>,
    /// Running ahead ([`Events::ahead_begin`]): pushes at or after this time are noted.
    ahead_from: Option<Ticks>,
    /// Entering the deferred pushes ([`Events::ahead_insert`]).
    inserting: bool,
    /// Per bucket, where the deferred pushes go (`NONE`: at the end); `marked` lists the
    /// buckets with a mark.
    mark: Vec<u32>,
    marked: Vec<u32>,
}

impl Events {
    #[inline(always)]
    pub fn push(&mut self, t: Ticks, what: u32) {
        let b = match self.last {
            Some((lt, b)) if lt == t => b,
            _ => {
                let b = match self.bucket_of.entry(t) {
                    Entry::Occupied(e) => *e.get(),
                    Entry::Vacant(e) => {
                        let b = match self.free.pop() {
                            Some(b) => b,
                            None => {
                                self.buckets.push(VecDeque::new());
                                (self.buckets.len() - 1) as u32
                            }
                        };
                        e.insert(b);
                        self.times.push(Reverse((t, b)));
                        b
                    }
                };
                self.last = Some((t, b));
                b
            }
        };
        if self.ahead_from.is_some() || self.inserting {
            self.push_marked(t, b, what);
        } else {
            self.buckets[b as usize].push_back(what);
        }
    }

    /// [`Events::push`] while running ahead or entering the deferred pushes.
    fn push_marked(&mut self, t: Ticks, b: u32, what: u32) {
        if self.mark.len() < self.buckets.len() {
            self.mark.resize(self.buckets.len(), NONE);
        }
        let q = &mut self.buckets[b as usize];
        let m = &mut self.mark[b as usize];
        if self.inserting {
            if *m == NONE {
                q.push_back(what);
            } else {
                q.insert(*m as usize, what);
                *m += 1;
            }
            return;
        }
        if self.ahead_from.is_some_and(|from| t >= from) && *m == NONE {
            *m = q.len() as u32;
            self.marked.push(b);
        }
        q.push_back(what);
    }

    /// Starts running ahead of pushes that are deferred: until [`Events::ahead_insert`],
    /// events are popped only before `from` and the pushes made meanwhile at or after
    /// `from` are noted, so that the deferred pushes, all at or after `from`, can later
    /// go before them in their buckets, where they would have been had they been made
    /// before the running ahead.
    pub fn ahead_begin(&mut self, from: Ticks) {
        self.ahead_from = Some(from);
    }

    /// The deferred pushes follow ([`Events::push`] puts each before the pushes made
    /// while running ahead at its time), until [`Events::ahead_end`].
    pub fn ahead_insert(&mut self) {
        self.ahead_from = None;
        self.inserting = true;
    }

    /// Back to plain pushes.
    pub fn ahead_end(&mut self) {
        self.ahead_from = None;
        self.inserting = false;
        for b in self.marked.drain(..) {
            self.mark[b as usize] = NONE;
        }
    }

    /// The earliest event's time.
    pub fn peek(&self) -> Option<Ticks> {
        self.times.peek().map(|Reverse((t, _))| *t)
    }

    /// The earliest event if it is before `until`.
    #[inline(always)]
    pub fn pop_before(&mut self, until: Ticks) -> Option<(Ticks, u32)> {
        let &Reverse((t, b)) = self.times.peek()?;
        if t >= until {
            return None;
        }
        debug_assert!(self.ahead_from.is_none_or(|from| t < from) && !self.inserting);
        let q = &mut self.buckets[b as usize];
        let what = q.pop_front()?;
        if q.is_empty() {
            self.times.pop();
            self.bucket_of.remove(&t);
            self.free.push(b);
            if self.last.is_some_and(|(lt, _)| lt == t) {
                self.last = None;
            }
        }
        Some((t, what))
    }

    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }
}

/// A hasher for integer keys (ticks, processor numbers): a multiplication (Fibonacci
/// hashing) per word, the high half folded into the low one so that keys with equal low
/// bits (multiples of 1000 ticks) spread. The maps are never iterated, so the order of
/// their entries does not matter.
#[derive(Default)]
pub(crate) struct TickHash(u64);

impl Hasher for TickHash {
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 32)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0 ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }
    fn write_u8(&mut self, v: u8) {
        self.write_u64(u64::from(v));
    }
}

/// A slab of reusable records: freed records keep their allocations (route and
/// per-hop vectors), so a long run stops allocating once it has seen its busiest
/// moment.
pub(super) struct Slab<T> {
    pub items: Vec<T>,
    free: Vec<u32>,
}

impl<T: Default> Slab<T> {
    pub fn new() -> Slab<T> {
        Slab { items: Vec::new(), free: Vec::new() }
    }

    /// A free record (reset by the caller) and its index.
    pub fn alloc(&mut self) -> u32 {
        match self.free.pop() {
            Some(i) => i,
            None => {
                self.items.push(T::default());
                (self.items.len() - 1) as u32
            }
        }
    }

    pub fn release(&mut self, i: u32) {
        self.free.push(i);
    }

    /// Records in use.
    pub fn live(&self) -> usize {
        self.items.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NEVER;

    #[test]
    fn dateline_classes_on_a_torus() {
        // torus 4x4, 0 -> 15 = (3,3): last coordinate first, the shorter way is -1 in
        // each dimension: 0 -> 3 (wraps, class 1), then 3 -> 15 (wraps along rows,
        // class 1 again after the dimension change resets it).
        let mut f = Fabric::new(Topology::parse("torus:4x4").unwrap(), Vec::new());
        let mut r = Vec::new();
        f.route(0, 15, 2, &mut r, |_| {});
        let hops: Vec<_> = r
            .iter()
            .map(|h| {
                let l = f.hop_ends(h.link, 0, 15);
                (l.from, l.to, h.class)
            })
            .collect();
        assert_eq!(hops, vec![(0, 3, 1), (3, 15, 1)]);
        // 1 -> 3 on a ring of 8 goes +1 twice without wrapping: class 0.
        let mut f = Fabric::new(Topology::parse("ring:8").unwrap(), Vec::new());
        f.route(1, 3, 2, &mut r, |_| {});
        assert!(r.iter().all(|h| h.class == 0));
        // 6 -> 1: 6 -> 7 (class 0), 7 -> 0 (the wraparound: class 1), 0 -> 1 (class 1).
        f.route(6, 1, 2, &mut r, |_| {});
        let classes: Vec<_> = r.iter().map(|h| h.class).collect();
        assert_eq!(classes, vec![0, 1, 1]);
        // Slots are handed out in order of first use.
        assert_eq!(r[0].link, 2);
        // The same route again comes from the cache: the same hops, no new slot.
        let first = r.clone();
        let mut fresh = 0;
        f.route(6, 1, 2, &mut r, |_| fresh += 1);
        assert_eq!((r, fresh), (first, 0));
    }

    #[test]
    fn a_hop_s_ends_are_its_link_s_or_on_a_bus_its_message_s() {
        // On shared:4 every pair crosses the one bus slot, so a hop's ends are the
        // message's own: 1 -> 3 and 2 -> 0 share slot 0 and keep their pairs.
        let mut f = Fabric::new(Topology::parse("shared:4").unwrap(), Vec::new());
        let (mut a, mut b) = (Vec::new(), Vec::new());
        f.route(1, 3, 1, &mut a, |_| {});
        f.route(2, 0, 1, &mut b, |_| {});
        assert_eq!((a.len(), b.len(), a[0].link, b[0].link), (1, 1, 0, 0));
        assert_eq!(f.hop_ends(a[0].link, 1, 3), Link { from: 1, to: 3 });
        assert_eq!(f.hop_ends(b[0].link, 2, 0), Link { from: 2, to: 0 });
        // On mesh:3x3, 0 -> 8 = (2,2) goes along the row first (0 -> 1 -> 2), then down
        // the column (2 -> 5 -> 8): each hop's ends are its link's.
        let mut f = Fabric::new(Topology::parse("mesh:3x3").unwrap(), Vec::new());
        f.route(0, 8, 1, &mut a, |_| {});
        let ends: Vec<_> = a.iter().map(|h| f.hop_ends(h.link, 0, 8)).map(|l| (l.from, l.to)).collect();
        assert_eq!(ends, vec![(0, 1), (1, 2), (2, 5), (5, 8)]);
    }

    #[test]
    fn link_loads_are_the_same_whether_slots_keep_their_ends_or_not() {
        // Routes over a torus 4x3 from every processor to every third one make slots in
        // route order, not link order. Made once with the ends kept from the start and
        // once without (asked of the topology), each slot's hop ends and the loads
        // (each slot's busy time its number, so that every link's is different) agree,
        // and the loads are in link order with no link twice.
        let pairs: Vec<(u32, u32)> = (0..12).flat_map(|s| (0..12).step_by(3).map(move |d| (s, d))).collect();
        let make = |kept: bool| {
            let mut f = Fabric::new(Topology::parse("torus:4x3").unwrap(), Vec::new());
            if kept {
                f.keep_ends();
            }
            let mut hops = Vec::new();
            let mut route = Vec::new();
            for &(s, d) in &pairs {
                f.route(s, d, 2, &mut route, |_| {});
                hops.extend(route.iter().map(|h| (h.link, f.hop_ends(h.link, s, d))));
            }
            let busy: Vec<Ticks> = (0..f.slot_link.len() as Ticks).collect();
            (f.ends_kept, hops, f.loads(&busy))
        };
        let (kept, hops_kept, loads_kept) = make(true);
        let (not_kept, hops, loads) = make(false);
        assert!(kept && !not_kept);
        assert_eq!(hops, hops_kept);
        assert_eq!(loads, loads_kept);
        assert!(loads.windows(2).all(|w| w[0].link < w[1].link));
        assert!(loads.len() > 12, "{}", loads.len());
        // Turned on after slots were made, the ends of those are filled in.
        let mut f = Fabric::new(Topology::parse("torus:4x3").unwrap(), Vec::new());
        let mut route = Vec::new();
        f.route(0, 5, 2, &mut route, |_| {});
        let before: Vec<_> = route.iter().map(|h| f.hop_ends(h.link, 0, 5)).collect();
        f.keep_ends();
        let after: Vec<_> = route.iter().map(|h| f.hop_ends(h.link, 0, 5)).collect();
        assert_eq!(before, after);
        assert_eq!(f.slot_ends.len(), f.slot_link.len());
    }

    #[test]
    fn events_come_out_by_time_then_insertion() {
        // Against the definition (one heap of (time, insertion number, event)): pushes
        // at a few times with many ties, pops interleaved, times never before the last
        // pop, as the models use the queue. A fixed LCG makes the sequence.
        let mut ev = Events::default();
        let mut want: BinaryHeap<Reverse<(Ticks, u64, u32)>> = BinaryHeap::new();
        let (mut x, mut seq, mut now) = (12345u64, 0u64, 0 as Ticks);
        for step in 0..20_000u32 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            if (x >> 33) % 3 != 0 {
                let t = now + (x >> 40) % 4 * 1000;
                seq += 1;
                ev.push(t, step);
                want.push(Reverse((t, seq, step)));
            } else {
                let until = now + (x >> 50) % 3 * 1000;
                let got = ev.pop_before(until);
                let exp = match want.peek() {
                    Some(Reverse((t, _, _))) if *t < until => want.pop().map(|Reverse((t, _, w))| (t, w)),
                    _ => None,
                };
                assert_eq!(got, exp, "step {step}");
                if let Some((t, _)) = got {
                    now = t;
                }
            }
            assert_eq!(ev.peek(), want.peek().map(|Reverse((t, _, _))| *t));
        }
        while let Some(got) = ev.pop_before(NEVER) {
            assert_eq!(Some(got), want.pop().map(|Reverse((t, _, w))| (t, w)));
        }
        assert!(want.is_empty() && ev.is_empty());
    }
}
