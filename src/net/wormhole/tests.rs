//! Tests of the wormhole model: idle-network latencies against the man page's formula,
//! contention, router time, deadlock detection and resolution, and the link records
//! given back when empty.
use super::super::packet::{drive, drive_hops};
use super::*;
use crate::time::TICKS_PER_UNIT as U;

#[test]
fn a_link_s_record_with_its_two_near_lanes_is_one_cache_line() {
    // The layout `LinkState` documents: a flit's link and the lanes its turn reads
    // in one 64-byte line (the flit crossing: 3 u32s; the turn, the noted flag and the
    // lanes held: 3 bytes; the queue's two ends; the busy time; two 16-byte lanes),
    // and the 12 bytes a used link keeps when it has no record.
    assert_eq!((std::mem::size_of::<LinkState>(), std::mem::align_of::<LinkState>()), (64, 64));
    assert_eq!(std::mem::size_of::<Lane>(), 16);
    assert_eq!(std::mem::size_of::<SlotState>(), 12);
}

fn net(topo: &str, p: &NetParams) -> Wormhole {
    Wormhole::new(p.clone(), Topology::parse(topo).unwrap(), Vec::new())
}

/// The man page's idle-network latency.
fn formula(p: &NetParams, hops: u64, bytes: u32) -> Ticks {
    let (pk, f, fl) = (p.packets(bytes), p.flits(), p.last_flits(bytes));
    let hd = (p.link_delay as f64 * p.head_flit_ratio).round() as Ticks;
    p.msg_init
        + pk * p.packet_init
        + (pk + hops - 1) * hd
        + ((pk - 1) * (f - 1) + fl - 1) * p.link_delay
        + hops * p.hop_latency
}

/// `head_time` is `f64::round` of the product, halves and near-halves included.
#[test]
fn head_time_rounds_as_f64_round() {
    let ratios = [1.0, 1.5, 2.0, 2.5, 0.5 + 1e-12, 1.999_999_999_999_999_8, 3.3, 7.25, 999.5, 1000.0];
    let mut flits: Vec<Ticks> = (0..2000).collect();
    flits.extend([1 << 40, (1 << 52) - 1, 1 << 52, (1 << 53) + 1, u64::MAX / 1000, u64::MAX]);
    for &r in &ratios {
        for &f in &flits {
            assert_eq!(head_time(f, r), (f as f64 * r).round() as Ticks, "{f} * {r}");
        }
    }
}

#[test]
fn idle_network_matches_the_formula() {
    // Hop counts 1, 3, 7 on a line; one flit (4-byte packets of 4-byte flits, no
    // header), one packet (4 bytes, and 28 = one full packet), several packets
    // (100 bytes = 4 packets);
    // parameter sets with head ratios 1, 2 and 3 (buffers of at least ceil(ratio)).
    let one_flit =
        NetParams { packet_size: 4, header_size: 0, flit_size: 4, head_flit_ratio: 2.0, ..crate::net::classic() };
    let ratio1 = NetParams { head_flit_ratio: 1.0, lanes: 1, buffer_size: 1, ..crate::net::classic() };
    let ratio3 = NetParams {
        head_flit_ratio: 3.0,
        buffer_size: 3,
        lanes: 2,
        msg_init: 2 * U,
        packet_init: 0,
        link_delay: 2 * U,
        ..crate::net::classic()
    };
    for p in [crate::net::classic(), one_flit, ratio1, ratio3] {
        for hops in [1u32, 3, 7] {
            for bytes in [4u32, 28, 100] {
                let mut n = net("line:8", &p);
                let got = drive(&mut n, &[(1, 0, hops, bytes, 10 * U)]);
                let want = 10 * U + formula(&p, hops as u64, bytes);
                assert_eq!(got, vec![(1, want)], "hops {hops} bytes {bytes} params {p:?}");
            }
        }
    }
}

/// `lanes` may change while messages are in the network: those in it keep their lanes,
/// those sent later take the new ones. Two lanes; message 1 (4 bytes, one packet,
/// 0 -> 3) sent at 0; down to 1 lane at 10 while it travels, message 2 (4 bytes,
/// 4 -> 7) sent then; up to 3 lanes at 15 with both travelling, message 3 (4 bytes,
/// 3 -> 0) sent then. They use different links, so each arrives when it would alone
/// in an idle network (19 units over 3 hops, [`worked_example`]), the lane table
/// keeps message 1's lane while it is narrower, and the network is empty at the end.
#[test]
fn lanes_change_while_messages_travel() {
    let p = crate::net::classic();
    let mut n = net("line:8", &p);
    assert_eq!(n.send(1, 0, 3, 4, 0), None);
    assert_eq!(n.next_arrival(10 * U), None);
    n.set_params(NetParams { lanes: 1, ..p.clone() }).unwrap();
    assert_eq!((n.width, n.stride), (1, 2));
    assert_eq!(n.send(2, 4, 7, 4, 10 * U), None);
    assert_eq!(n.next_arrival(15 * U), None);
    n.set_params(NetParams { lanes: 3, ..p.clone() }).unwrap();
    assert_eq!((n.width, n.stride), (3, 3));
    assert_eq!(n.send(3, 3, 0, 4, 15 * U), None);
    let mut got = Vec::new();
    while let Some(a) = n.next_arrival(NEVER) {
        got.push(a);
    }
    got.sort();
    assert_eq!(got, vec![(1, 19 * U), (2, 29 * U), (3, 34 * U)]);
    assert_eq!(n.in_flight(), 0);
    // With the network empty the table fits the width again.
    n.set_params(NetParams { lanes: 2, ..p.clone() }).unwrap();
    assert_eq!((n.width, n.stride), (2, 2));
}

#[test]
fn worked_example() {
    // Default parameters, 4 bytes over 3 hops: P = 1, F = 8, hd = 2, ld = 1:
    // 5 + 1 + 3 * 2 + 7 * 1 = 19 units.
    let p = crate::net::classic();
    assert_eq!(formula(&p, 3, 4), 19 * U);
    // 100 bytes: P = 4: 5 + 4 + (4 + 2) * 2 + 4 * 7 = 49 units.
    assert_eq!(formula(&p, 3, 100), 49 * U);
}

#[test]
fn a_packet_s_hop_window_keeps_every_held_state_as_it_grows() {
    // The ring against a plain list of every hop's state: hops are pushed in order,
    // the tail leaves some (lo advances), held states change; the window's size
    // wanders up to 40, so the ring grows from the record's four states to 8, 16,
    // 32 and 64 at every offset, most of them wrapped (lo > 0). Each held hop must
    // read back what the list says.
    let mut hops = Hops::default();
    hops.reset();
    let mut all: Vec<HopState> = Vec::new();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut grew_wrapped = 0;
    for step in 0..20_000u32 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let held = hops.hi - hops.lo;
        let room = if step % 4000 < 2000 { 40 } else { 6 };
        match seed % 3 {
            0 | 1 if held < room => {
                if held > hops.mask && hops.lo & hops.mask != 0 {
                    grew_wrapped += 1;
                }
                hops.push(!(all.len() as u32), all.len() as u32);
                all.push(HopState { link: !(all.len() as u32), lane: all.len() as u32, ..UNSTARTED });
            }
            _ if held > 0 => hops.lo += 1 + (seed >> 8) as u32 % held.min(3),
            _ => {}
        }
        if hops.hi > hops.lo {
            let j = hops.lo + (seed >> 20) as u32 % (hops.hi - hops.lo);
            hops[j].sent += 1;
            hops[j].enter = u64::from(step);
            all[j as usize].sent += 1;
            all[j as usize].enter = u64::from(step);
        }
        for j in hops.lo..hops.hi {
            let (got, want) = (hops[j], all[j as usize]);
            assert_eq!(
                (got.link, got.lane, got.sent, got.enter),
                (want.link, want.lane, want.sent, want.enter),
                "hop {j} at step {step}"
            );
        }
    }
    assert!(hops.mask >= 63 && grew_wrapped > 0, "mask {} wrapped growths {grew_wrapped}", hops.mask);
}

#[test]
fn long_packets_on_long_routes_match_the_formula() {
    // A packet of F flits with one-flit buffers spans up to F hops, more than the
    // four hop states a packet keeps in its own record: 8-, 16- and 32-flit packets
    // over up to 40 hops move their window into a larger ring, and with a head
    // ratio of 1 the idle formula is exact for any packet count, so any state lost
    // or misplaced in the move shows as a wrong time (or a stuck packet).
    for packet_size in [8u32, 16, 32] {
        for buffer_size in [1u32, 3] {
            for hops in [5u32, 17, 40] {
                for bytes in [packet_size, 3 * packet_size - 1] {
                    let p =
                        NetParams { packet_size, head_flit_ratio: 1.0, buffer_size, lanes: 1, ..crate::net::classic() };
                    let got = drive(&mut net("line:41", &p), &[(1, 0, hops, bytes, 0)]);
                    let want = formula(&p, hops as u64, bytes);
                    assert_eq!(
                        got,
                        vec![(1, want)],
                        "packet {packet_size} buffer {buffer_size} hops {hops} bytes {bytes}"
                    );
                }
            }
        }
    }
}

#[test]
fn formula_holds_exactly_where_the_man_page_says() {
    // Every combination of head ratio, buffer size, lanes, hops and packets: the
    // formula is exact when P = 1, h = 1 or the ratio is 1, or when buffers hold
    // ceil(ratio) flits and a second lane is free; otherwise later packets wait
    // for lanes or buffer room and the message is slower, never faster.
    for ratio in [1.0, 2.0, 3.0] {
        for buffer_size in [1u32, 2, 3, 4] {
            for lanes in [1u32, 2, 4] {
                for hops in [1u32, 2, 3, 7] {
                    for bytes in [4u32, 60, 100] {
                        let p = NetParams { head_flit_ratio: ratio, buffer_size, lanes, ..crate::net::classic() };
                        let got = drive(&mut net("line:8", &p), &[(1, 0, hops, bytes, 0)])[0].1;
                        let want = formula(&p, hops as u64, bytes);
                        let exact = p.packets(bytes) == 1
                            || hops == 1
                            || ratio == 1.0
                            || (buffer_size as f64 >= ratio.ceil() && lanes >= 2);
                        let case =
                            format!("ratio {ratio} buffer {buffer_size} lanes {lanes} hops {hops} bytes {bytes}");
                        if exact {
                            assert_eq!(got, want, "{case}");
                        } else {
                            assert!(got > want, "{case}: {got} <= {want}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn small_buffers_throttle_a_message_behind_a_slow_head() {
    // Ratio 3, 1-flit buffers, 100 bytes (4 packets) over 3 hops: data flits
    // cannot bunch behind each head, the first link idles, the next packet leaves
    // later: 67 units against the formula's 5 + 4 + (4 + 2) * 3 + 4 * 7 = 55.
    let p = NetParams { head_flit_ratio: 3.0, buffer_size: 1, ..crate::net::classic() };
    assert_eq!(formula(&p, 3, 100), 55 * U);
    assert_eq!(drive(&mut net("line:8", &p), &[(1, 0, 3, 100, 0)]), vec![(1, 67 * U)]);
}

#[test]
fn two_messages_share_a_link() {
    // line:4, ratio 1, one lane, default sizes: one packet of 8 flits, 1 unit each.
    // A: 0 -> 2 sent at 0, ready at 6: head over 0->1 [6,7), 1->2 [7,8); data flits
    //   follow one a unit; its tail arrives at 15 (formula 5 + 1 + 2 + 7 = 15).
    // B: 1 -> 3 sent at 2, ready at 8: its head wants link 1->2 at 8, whose only lane
    //   A holds until A's tail arrives at 15. B then crosses 1->2 [15,16) and 2->3
    //   [16,17); its tail arrives at 24 instead of 8 + 2 + 7 = 17: 7 units of
    //   contention.
    let p = NetParams { head_flit_ratio: 1.0, lanes: 1, ..crate::net::classic() };
    let mut n = net("line:4", &p);
    let got = drive(&mut n, &[(1, 0, 2, 4, 0), (2, 1, 3, 4, 2 * U)]);
    assert_eq!(got, vec![(1, 15 * U), (2, 24 * U)]);
    // With two lanes B gets the second lane at 8, and link 1->2 alternates between
    // the lanes: B's head at 8 (the round robin looks at lane 1 first after A's
    // head used lane 0), A's flit 1 at 9, B's flit 1 at 10, ... A's flits 1..7 at
    // 9, 11, ..., 21 (tail arrives 22) and B's at 10, 12, ..., 22; B's flits go on
    // over the idle 2->3 at once, its tail arriving at 24.
    let p2 = NetParams { lanes: 2, ..p };
    let mut n = net("line:4", &p2);
    let got = drive(&mut n, &[(1, 0, 2, 4, 0), (2, 1, 3, 4, 2 * U)]);
    assert_eq!(got, vec![(1, 22 * U), (2, 24 * U)]);
}

#[test]
fn equal_times_go_in_event_order() {
    // B (1 -> 3, sent at 1) is released at 7, the moment A's head (0 -> 2, sent at
    // 0) reaches processor 1; B's release was scheduled first (at its send), so B
    // takes the one lane of 1->2: B arrives at 7 + 2 + 7 = 16, A waits until B's tail
    // leaves processor 2's buffer at 15 and arrives at 15 + 1 + 7 = 23.
    let p = NetParams { head_flit_ratio: 1.0, lanes: 1, ..crate::net::classic() };
    let mut n = net("line:4", &p);
    let got = drive(&mut n, &[(1, 0, 2, 4, 0), (2, 1, 3, 4, U)]);
    assert_eq!(got, vec![(1, 23 * U), (2, 16 * U)]);
}

#[test]
fn router_time_idle_and_contended() {
    // Idle: the formula plus h router times, for one and several packets (classic:
    // 8 flits, head 2 units, data 1; 3 units per router; a 10-byte envelope), with
    // buffers of 8 flits: room for the 2 + 3 flits that bunch behind a head while it
    // crosses a link and waits in a router.
    let p = NetParams { hop_latency: 3 * U, envelope: 10, buffer_size: 8, ..crate::net::classic() };
    for hops in [1u32, 3, 7] {
        for bytes in [4u32, 28, 100] {
            let got = drive(&mut net("line:8", &p), &[(1, 0, hops, bytes, 0)]);
            assert_eq!(got, vec![(1, formula(&p, hops as u64, bytes))], "hops {hops} bytes {bytes}");
        }
        // One packet arrives as the formula says whatever the buffers: its flits
        // bunch behind the waiting head and leave the last router one per `ld`.
        let small = NetParams { buffer_size: 1, ..p.clone() };
        let got = drive(&mut net("line:8", &small), &[(1, 0, hops, 4, 0)]);
        assert_eq!(got, vec![(1, formula(&small, hops as u64, 4))], "hops {hops}, 1-flit buffers");
    }
    // An unpadded last packet: its F' - 1 data flits follow its head, not F - 1.
    let p = NetParams { pad_last_packet: false, ..crate::net::classic() };
    for hops in [1u32, 3, 7] {
        for bytes in [4u32, 30, 100] {
            let got = drive(&mut net("line:8", &p), &[(1, 0, hops, bytes, 0)]);
            assert_eq!(got, vec![(1, formula(&p, hops as u64, bytes))], "unpadded: hops {hops} bytes {bytes}");
        }
    }
    // One lane, two one-packet messages 0 -> 1 ready at 6, router time 4. Message 1
    // takes the lane: head [6,8), seven data flits [8,15); its tail frees the lane
    // at 15 and it is out of the router at 19. Message 2 then crosses [15,17),
    // [17,24): out at 28. Had the router time held the lane, 2 would be out at 32.
    let p = NetParams { hop_latency: 4 * U, lanes: 1, ..crate::net::classic() };
    let got = drive(&mut net("line:2", &p), &[(1, 0, 1, 4, 0), (2, 0, 1, 4, 0)]);
    assert_eq!(got, vec![(1, 19 * U), (2, 28 * U)]);
}

#[test]
fn three_messages_contend_for_one_lane() {
    // line:2, ratio 1, one lane, single-packet messages 0 -> 1 at 0, 0 and 0: all
    // ready at 6; each holds the lane for 8 flits: arrivals 14, 22, 30.
    let p = NetParams { head_flit_ratio: 1.0, lanes: 1, ..crate::net::classic() };
    let mut n = net("line:2", &p);
    let got = drive(&mut n, &[(1, 0, 1, 4, 0), (2, 0, 1, 4, 0), (3, 0, 1, 4, 0)]);
    assert_eq!(got, vec![(1, 14 * U), (2, 22 * U), (3, 30 * U)]);
}

#[test]
fn one_lane_ring_deadlocks_and_says_where() {
    // ring:4 with one lane, each processor sends a long message two hops clockwise
    // at the same time: every head takes its first link and waits for the next,
    // which the neighbour's packet holds — the textbook cycle.
    let p = NetParams {
        lanes: 1,
        head_flit_ratio: 1.0,
        buffer_size: 1,
        deadlock: DeadlockMode::Report,
        ..crate::net::classic()
    };
    let mut n = net("ring:4", &p);
    for s in 0..4u32 {
        assert_eq!(n.send(s as u64, s, (s + 2) % 4, 4000, 0), None);
    }
    while n.next_arrival(NEVER).is_some() {}
    assert_eq!(n.in_flight(), 4);
    let cycle = n.blocked();
    assert_eq!(cycle.len(), 4, "{cycle:?}");
    assert!(cycle[0].contains("waits for a lane on link"), "{cycle:?}");
    // With two lanes the dateline classes prevent it.
    let p = NetParams { lanes: 2, ..p };
    let mut n = net("ring:4", &p);
    let sends: Vec<_> = (0..4u32).map(|s| (s as u64, s, (s + 2) % 4, 4000, 0)).collect();
    assert_eq!(drive(&mut n, &sends).len(), 4);
    assert!(n.blocked().is_empty());
}

#[test]
fn one_lane_ring_cycle_is_resolved() {
    // ring:4, one lane, 1-flit buffers, head ratio 1; each processor sends one packet
    // (28 bytes: 8 flits) two hops clockwise at 0. Ready at 0 + 5 + 1 = 6; each head
    // crosses its first link in 1 and waits at 7 for the next link, whose only lane
    // the neighbour's packet holds, and its data flits wait for the full buffer: no
    // flit moves at 7, a cycle. The youngest message, 3 (3 -> 1), head waiting at
    // processor 0 for its last hop, leaves for the recovery channel: one head
    // crossing (1) plus 7 data flits (1 each) behind it: it arrives at 7 + 8 = 15. Its
    // lane on 3 -> 0 goes to message 2, and the rest unwinds without another cycle.
    let p = NetParams { lanes: 1, head_flit_ratio: 1.0, buffer_size: 1, ..crate::net::classic() };
    let mut n = net("ring:4", &p);
    let sends: Vec<_> = (0..4u32).map(|s| (s as u64, s, (s + 2) % 4, 28, 0)).collect();
    let got = drive(&mut n, &sends);
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(got.contains(&(3, 15 * U)), "{got:?}");
    let mut r = Vec::new();
    n.take_resolutions(&mut r);
    assert_eq!(r, vec![Resolution { time: 7 * U, msg: 3, packet: 0, at: 0 }]);
    assert_eq!(n.in_flight(), 0);
}

/// Links that give their records back the moment they are empty and links that
/// never do: the same arrivals, busy times and flit-hops (a record's busy time goes
/// to its slot; a new record's turn starts at lane 0), on a torus with three lanes in
/// two classes (turns that matter) and on a one-lane ring whose deadlocks
/// are resolved (some are). Random sizes, pairs and times from a fixed seed; the
/// retiring network ends with every record spare, and on the torus it needed fewer
/// records than links.
/// `count` sends (id, src, dst, bytes, time) among `procs` processors from a xorshift
/// generator seeded with `seed`: 4 to `4 + bytes` bytes, at times up to 300 units.
fn random_sends(seed: u64, count: u64, procs: u64, bytes: u64) -> Vec<(u64, u32, u32, u32, Ticks)> {
    let mut x = seed;
    let mut next = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    (0..count)
        .map(|id| {
            let (s, d) = (next(procs) as u32, next(procs) as u32);
            (id, s, d, 4 + next(bytes) as u32, next(3000) * U / 10)
        })
        .collect()
}

#[test]
fn giving_link_records_back_changes_nothing() {
    let torus = NetParams { lanes: 3, buffer_size: 2, head_flit_ratio: 2.0, ..crate::net::classic() };
    let ring = NetParams { lanes: 1, buffer_size: 1, head_flit_ratio: 1.0, ..crate::net::classic() };
    for (topo, p, procs) in [("torus:4x4", &torus, 16u64), ("ring:6", &ring, 6)] {
        let sends = random_sends(0x2545_f491_4f6c_dd1d, 400, procs, 200);
        let run = |batch: usize| {
            let mut n = net(topo, p);
            n.retire_batch = batch;
            n.count_links(true);
            let got = drive(&mut n, &sends);
            let busy: Vec<(u32, u32, Ticks)> = n.link_busy().iter().map(|l| (l.link.from, l.link.to, l.busy)).collect();
            let mut r = Vec::new();
            n.take_resolutions(&mut r);
            (got, busy, n.flit_hops(), r.len(), n.links.len(), n.spare.len(), n.slots.len())
        };
        let (kept, given) = (run(usize::MAX), run(1));
        assert_eq!((&kept.0, &kept.1, kept.2, kept.3), (&given.0, &given.1, given.2, given.3), "{topo}");
        assert_eq!(kept.0.len(), 400, "{topo}");
        assert_eq!((kept.4, kept.5), (kept.6, 0), "{topo}: a record per link, none given back");
        assert_eq!(given.5, given.4, "{topo}: every record spare at the end");
        if procs == 16 {
            assert!(given.4 < given.6, "{topo}: {} records for {} links", given.4, given.6);
        } else {
            assert!(kept.3 > 0, "{topo}: no deadlock was resolved");
        }
    }
}

#[test]
fn hops_and_link_busy() {
    let p = NetParams { head_flit_ratio: 1.0, ..crate::net::classic() };
    let mut n = net("line:4", &p);
    let hops = drive_hops(&mut n, &[(9, 0, 2, 4, 0)]);
    // Head over 0->1 at 6, tail leaves it at 14; head over 1->2 at 7, tail at 15.
    let want = vec![
        Hop { msg: 9, packet: 0, from: 0, to: 1, enter: 6 * U, leave: 14 * U },
        Hop { msg: 9, packet: 0, from: 1, to: 2, enter: 7 * U, leave: 15 * U },
    ];
    assert_eq!(hops, want);
    n.count_links(true);
    let busy: Vec<Ticks> = n.link_busy().iter().map(|l| l.busy / U).collect();
    assert_eq!(busy, vec![8, 8]);
    // One packet of 8 flits over 2 links: 16 flit-hops.
    assert_eq!(n.flit_hops(), 16);
}

/// Walking routes hop by hop (the default where the topology allows) gives what whole
/// routes made at the send give: the same arrivals, link loads, flit-hops, deadlock
/// resolutions (when, which packet, where) and recorded hops, on random traffic over
/// a torus with router time (heads in a router: the flits behind look ahead on the
/// walk), a one-lane ring whose deadlocks are resolved (the rest of a route walked at
/// its recovery), a mesh with several packets a message, a hypercube and a line.
#[test]
fn walked_routes_change_nothing() {
    let torus =
        NetParams { lanes: 3, buffer_size: 2, head_flit_ratio: 2.0, hop_latency: U / 2, ..crate::net::classic() };
    let ring = NetParams { lanes: 1, buffer_size: 1, head_flit_ratio: 1.0, ..crate::net::classic() };
    let small = NetParams { packet_size: 8, ..crate::net::classic() };
    let cases = [
        ("torus:4x4", &torus, 16u64),
        ("ring:6", &ring, 6),
        ("mesh:3x5", &small, 15),
        ("hypercube:4", &small, 16),
        ("line:5", &torus, 5),
    ];
    for (topo, p, procs) in cases {
        let sends = random_sends(0x9e37_79b9_7f4a_7c15, 300, procs, 60);
        let make = |walk: bool| {
            let t = Topology::parse(topo).unwrap();
            let mut n = net(topo, p);
            n.fabric = if walk { Fabric::walking(t, Vec::new()) } else { Fabric::new(t, Vec::new()) };
            assert_eq!(n.fabric.walks(), walk, "{topo}");
            n.count_links(true);
            n
        };
        let run = |walk: bool| {
            let mut n = make(walk);
            let hops = drive_hops(&mut n, &sends);
            let busy: Vec<_> = n.link_busy().iter().map(|l| (l.link.from, l.link.to, l.busy)).collect();
            let mut r = Vec::new();
            n.take_resolutions(&mut r);
            let r: Vec<_> = r.iter().map(|r| (r.time, r.msg, r.packet, r.at)).collect();
            (drive(&mut make(walk), &sends), busy, n.flit_hops(), r, hops)
        };
        let (whole, walked) = (run(false), run(true));
        assert_eq!(whole, walked, "{topo}");
        assert_eq!(whole.0.len(), 300, "{topo}");
        if procs == 6 {
            assert!(!whole.3.is_empty(), "{topo}: no deadlock was resolved");
        }
    }
}

/// A run stopped while messages travel or wait to leave lists the same links with
/// whole and walked routes: those a packet has reached with their busy time, and the
/// rest of every route still in the network idle (a whole route has its links from its
/// send). On 8x8 machines with few messages most links are untouched, and the last
/// message sent, one unit before the stop, has not left its source (`msg_init` is 5).
#[test]
fn links_of_messages_still_in_the_network_are_listed_idle() {
    for topo in ["mesh:8x8", "torus:8x8", "hypercube:6"] {
        let sends: Vec<(u64, u32, u32, u32, Ticks)> =
            (0..12u64).map(|id| (id, (id * 5 % 64) as u32, (63 - id * 7 % 64) as u32, 40, id * 3 * U)).collect();
        let stop = 34 * U;
        let run = |walk: bool| {
            let t = Topology::parse(topo).unwrap();
            let mut n = net(topo, &crate::net::classic());
            n.fabric = if walk { Fabric::walking(t, Vec::new()) } else { Fabric::new(t, Vec::new()) };
            n.count_links(true);
            for &(id, s, d, b, t) in &sends {
                while n.next_arrival(t).is_some() {}
                n.send(id, s, d, b, t);
            }
            while n.next_arrival(stop).is_some() {}
            let busy: Vec<_> = n.link_busy().iter().map(|l| (l.link.from, l.link.to, l.busy)).collect();
            (n.in_flight(), busy)
        };
        let (whole, walked) = (run(false), run(true));
        assert!(whole.0 > 0, "{topo}: nothing in flight");
        assert!(whole.1.iter().any(|l| l.2 == 0), "{topo}: no idle link listed");
        assert_eq!(whole, walked, "{topo}");
    }
}
