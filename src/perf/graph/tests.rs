//! The execution graph's tests: hand-built event sequences and their paths.
use super::*;
use crate::trace::{Event, ProcState, Reason};
#[test]
fn wcpa_weight_matches_the_seed_worked_checks() {
    // Seed 003 §3.4 (Figure 3.3; copied into SPEC §6): an edge of 100 with P = 0 on 100
    // processors "weighs 10100", an edge of 500 with P = 1 weighs 500.
    //
    // 1. P = 1: the second term vanishes whatever n is, w = Δt = 500.
    assert_eq!(wcpa_weight(500.0, 1.0, 100), 500.0);
    // 2. P = 0, n = 100: w = 100 + (1 − 0)·(100 − 1)·100 = 100 + 9900 = 10000, which
    //    is the seed's own statement that the weight "is maximized at nΔt" = 100·100.
    assert_eq!(wcpa_weight(100.0, 0.0, 100), 10000.0);
    assert_eq!(wcpa_weight(100.0, 0.0, 100), 100.0 * 100.0);
    // 3. The seed's figure 10100 is what the same formula gives with n = 101:
    //    100 + 1·(101 − 1)·100 = 100 + 10000 = 10100. The seed's arithmetic wrote
    //    (n − 1) with n − 1 = 100, i.e. it counted 101 processors (equivalently it used
    //    (1 − P)·n·Δt with n = 100). The formula is kept as specified; only the
    //    processor count differs.
    assert_eq!(wcpa_weight(100.0, 0.0, 101), 10100.0);
    assert_ne!(wcpa_weight(100.0, 0.0, 100), 10100.0);
    // One processor: no parallelism to lose, w = Δt whatever P is.
    assert_eq!(wcpa_weight(70.0, 0.0, 1), 70.0);
}

/// Seed 003's Figure 3.3 on n = 4 processors: process 0 computes A→B (0..100) while
/// every other processor is idle, then B→C (100..600) while processes 1–3 keep the
/// other three busy. The seed: "Since P = 0 between A and B, which means all other
/// nodes are idle", the edge weighs nΔt = 4·100 = 400 (the computing processor's own
/// work adds no parallelism: P is the busy share of the other n − 1); B→C has P = 1 and
/// weighs Δt = 500. Both paths (critical and weighted) are process 0's 600 units of
/// computation: 400 + 500 = 900, P 0 then 1. Counting the computing processor in P
/// would give P = 1/4 and 100 + (3/4)·3·100 = 325 for A→B.
#[test]
fn a_computation_while_all_other_processors_idle_weighs_n_dt() {
    let busy = |p: u32, start, end| Event::Busy {
        pproc: p,
        pid: p,
        start,
        end,
        line: 1,
        class: crate::trace::BusyClass::Work,
    };
    let mut evs =
        vec![Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 }];
    for p in 1..4 {
        evs.push(Event::ProcCreate { time: 0, parent: None, pid: p, vproc: None, pproc: p, function: 0, line: 0 });
    }
    evs.push(busy(0, 0, 100));
    for p in 1..4 {
        evs.push(busy(p, 100, 600));
    }
    evs.push(busy(0, 100, 600));
    for p in 0..4 {
        evs.push(Event::ProcEnd { time: 600, pid: p });
    }
    let mut g = GraphBuilder::default();
    for e in &evs {
        g.event(e);
    }
    let mut intervals = vec![(0, 100), (100, 600)];
    intervals.extend([(100, 600); 3]);
    let profile = BusyProfile::new(&intervals);
    let critical = g.path().weigh(4, &profile);
    let weighted = g.weighted(4, &profile, &g.weak_order());
    for c in [critical, weighted] {
        assert_eq!(c.total_weight, 900.0, "{c:?}");
        let p: Vec<(Ticks, Ticks, f64)> = c.segments.iter().map(|s| (s.from, s.to, s.parallelism)).collect();
        assert_eq!(p, vec![(0, 600, 500.0 / 600.0)], "one compute segment of process 0");
    }
    // The weight of each edge on its own, as BusyProfile gives P for a computation.
    assert_eq!(profile.edge_parallelism(0, 100, 4, Some(100.0)), 0.0);
    assert_eq!(profile.edge_parallelism(100, 600, 4, Some(500.0)), 1.0);
    assert_eq!(wcpa_weight(100.0, profile.edge_parallelism(0, 100, 4, Some(100.0)), 4), 400.0);
}

/// A 4-byte channel message `msg` from process 0 (processor 0) to process 1
/// (processor 1), sent at `time` from line 1.
fn send_0_to_1(time: Ticks, msg: u64) -> Event {
    crate::perf::tests::send(time, msg, 0, 1, 4)
}

/// Process 0 runs 0..10 and 20..40 (busy intervals recorded at their ends) and sends
/// at 30, inside the second interval: its CPU time before the send is 10 + (30 − 20)
/// = 20, before its end at 40 is 30; process 1 was never busy (0). These are
/// [`CpuTime`]'s answers, followed one event at a time.
#[test]
fn cpu_times_are_followed_event_by_event() {
    let send = send_0_to_1;
    let busy =
        |pid, start, end| Event::Busy { pproc: pid, pid, start, end, line: 1, class: crate::trace::BusyClass::Work };
    let evs = vec![
        Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 },
        Event::ProcCreate { time: 0, parent: None, pid: 1, vproc: None, pproc: 1, function: 0, line: 0 },
        busy(0, 0, 10),
        send(30, 1),
        busy(0, 20, 40),
        Event::ProcEnd { time: 40, pid: 0 },
        Event::ProcEnd { time: 40, pid: 1 },
    ];
    let mut g = GraphBuilder::default();
    for e in &evs {
        g.event(e);
    }
    assert!(!g.needs_cpu_rebuild());
    let got: Vec<(u32, Ticks, Ticks)> = g.nodes.iter().zip(&g.cpu).map(|(n, &c)| (n.pid, n.time, c)).collect();
    assert_eq!(got, vec![(0, 0, 0), (1, 0, 0), (0, 30, 20), (0, 40, 30), (1, 40, 0)]);
    let exact = CpuTime::new(&[(0, 0, 10), (0, 20, 40)]);
    assert_eq!(exact.cumulative(g.nodes.iter().map(|n| (n.pid, n.time))), Some(g.cpu.clone()));

    // The same intervals out of order (20..40 before 0..10) cannot be followed: the
    // graph says so, and computing the times from all the intervals gives the same.
    let mut g = GraphBuilder::default();
    for e in [&evs[0], &evs[1], &evs[3], &evs[4], &evs[2], &evs[5], &evs[6]] {
        g.event(e);
    }
    assert!(g.needs_cpu_rebuild());
    g.rebuild_cpu(&[(0, 20, 40), (0, 0, 10)]);
    assert!(!g.needs_cpu_rebuild());
    let got: Vec<Ticks> = g.cpu.clone();
    assert_eq!(got, vec![0, 0, 20, 30, 0]);
}

#[test]
fn a_remote_read_is_its_own_edge_not_computation() {
    // Process 0 computes 0..10, blocks in a remote read at 10, runs again at 40 and
    // ends at 50: its path is compute 0..10, the read's round trip 10..40 (no CPU
    // time), compute 40..50. With n = 1 every edge weighs its Δt: CPU 10 + elapsed
    // 30 + CPU 10 = 50.
    let evs = vec![
        Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 },
        Event::State { time: 0, pid: 0, state: ProcState::Running, reason: Reason::None },
        Event::State { time: 10, pid: 0, state: ProcState::Blocked, reason: Reason::RemoteRead { owner: 1 } },
        Event::Busy { pproc: 0, pid: 0, start: 0, end: 10, line: 1, class: crate::trace::BusyClass::Work },
        Event::State { time: 40, pid: 0, state: ProcState::Running, reason: Reason::None },
        Event::Busy { pproc: 0, pid: 0, start: 40, end: 50, line: 1, class: crate::trace::BusyClass::Work },
        Event::ProcEnd { time: 50, pid: 0 },
    ];
    let mut g = GraphBuilder::default();
    for e in &evs {
        g.event(e);
    }
    let profile = BusyProfile::new(&[(0, 10), (40, 50)]);
    let edges = g.path();
    let critical = edges.weigh(1, &profile);
    let weighted = g.weighted(1, &profile, &g.weak_order());
    for c in [critical, weighted] {
        let shape: Vec<(EdgeKind, Ticks, Ticks, Ticks)> =
            c.segments.iter().map(|s| (s.kind, s.from, s.to, s.busy)).collect();
        assert_eq!(
            shape,
            vec![(EdgeKind::Compute, 0, 10, 10), (EdgeKind::RemoteRead, 10, 40, 0), (EdgeKind::Compute, 40, 50, 10)]
        );
        assert_eq!(c.total_weight, 50.0);
    }
}

#[test]
fn a_message_that_waited_in_the_queue_weighs_its_transfer_only() {
    // n = 2. Process 0 computes 0..20 and sends (arrives 30); process 1 begins at 90
    // (a source of its own), computes 90..100 and reads the message at 100, which
    // had been there since 30: a weak edge. Busy: [0,20) 1, [20,90) 0, [90,100) 1.
    // A computation's P is the busy share of the other processor: process 1's own chain
    // (90..100, processor 0 idle) weighs w(10, 0) = 20; through the message: 0's
    // computation w(20, 0) = 40, plus the transfer 20..30 at P = 0 (no processor busy):
    // 10 + 10 = 20, total 60. (Weighed to the read at 100, the message would weigh
    // 80 + (15/16)·80 = 155.)
    let evs = vec![
        Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 },
        Event::State { time: 0, pid: 0, state: ProcState::Running, reason: Reason::None },
        send_0_to_1(20, 1),
        Event::Busy { pproc: 0, pid: 0, start: 0, end: 20, line: 1, class: crate::trace::BusyClass::Work },
        Event::ProcEnd { time: 20, pid: 0 },
        Event::MsgArrive { time: 30, msg: 1, dst_pproc: 1 },
        Event::ProcCreate { time: 90, parent: None, pid: 1, vproc: None, pproc: 1, function: 0, line: 0 },
        Event::State { time: 90, pid: 1, state: ProcState::Running, reason: Reason::None },
        Event::RecvCall { time: 100, pid: 1, pproc: 1, channel: 0, index: 0, line: 2 },
        Event::RecvDone { time: 100, pid: 1, pproc: 1, msg: 1, src_pid: 0, bytes: 4 },
        Event::Busy { pproc: 1, pid: 1, start: 90, end: 100, line: 2, class: crate::trace::BusyClass::Work },
        Event::ProcEnd { time: 100, pid: 1 },
    ];
    let mut g = GraphBuilder::default();
    for e in &evs {
        g.event(e);
    }
    let profile = BusyProfile::new(&[(0, 20), (90, 100)]);
    let _ = g.path();
    let w = g.weighted(2, &profile, &g.weak_order());
    let shape: Vec<(EdgeKind, Ticks, Ticks, f64)> =
        w.segments.iter().map(|s| (s.kind, s.from, s.to, s.weight)).collect();
    assert_eq!(shape, vec![(EdgeKind::Compute, 0, 20, 40.0), (EdgeKind::Message, 20, 30, 20.0)]);
    assert_eq!(w.total_weight, 60.0);
}

/// Process 1 calls receive at 10 and waits; process 0 sends at 20, the message
/// arrives at 30 and completes the receive; 1 ends at 40. The critical path is 0's
/// computation 0..20, the message 20..30, 1's computation 30..40: length 40, three
/// edges, and the receiver's edge from its call to the completion is cut (it was
/// suspended). In record order the message is resolved at its completion and
/// forgotten (nothing stays in flight); a foreign trace that lists the completion
/// before the send gets the same path, the edge resolved at the end.
#[test]
fn a_message_is_resolved_at_its_completion_or_at_the_end() {
    let create = |pid| Event::ProcCreate { time: 0, parent: None, pid, vproc: None, pproc: pid, function: 0, line: 0 };
    let (send, arrive) = (send_0_to_1(20, 5), Event::MsgArrive { time: 30, msg: 5, dst_pproc: 1 });
    let done = Event::RecvDone { time: 30, pid: 1, pproc: 1, msg: 5, src_pid: 0, bytes: 4 };
    let call = Event::RecvCall { time: 10, pid: 1, pproc: 1, channel: 0, index: 0, line: 2 };
    let ends = [Event::ProcEnd { time: 20, pid: 0 }, Event::ProcEnd { time: 40, pid: 1 }];
    let in_order = [create(0), create(1), call.clone(), send.clone(), arrive.clone(), done.clone()];
    let done_first = [create(0), create(1), call, done, send, arrive];
    for (order, evs) in [("in order", &in_order), ("completion first", &done_first)] {
        let mut g = GraphBuilder::default();
        for e in evs.iter().chain(&ends) {
            g.event(e);
        }
        if order == "in order" {
            assert!(g.pending.is_empty() && g.send_of.get(5).is_none() && g.arrival.get(5).is_none(), "{order}");
        } else {
            assert_eq!(g.pending.len(), 1, "{order}");
        }
        g.elapsed_only = true;
        let path = g.path().weigh(2, &BusyProfile::default());
        let shape: Vec<(EdgeKind, u32, Ticks, Ticks)> =
            path.segments.iter().map(|s| (s.kind, s.pid, s.from, s.to)).collect();
        assert_eq!(
            shape,
            vec![(EdgeKind::Compute, 0, 0, 20), (EdgeKind::Message, 0, 20, 30), (EdgeKind::Compute, 1, 30, 40)],
            "{order}"
        );
        assert_eq!((path.length, path.edges), (40, 3), "{order}");
        let recv_done = g.nodes.iter().position(|n| n.kind == NodeKind::RecvDone).unwrap();
        assert_eq!(g.vertical[recv_done], Link::NONE, "{order}");
    }
}

#[test]
fn a_receive_that_did_not_wait_keeps_the_receiver_on_the_path() {
    // Process 0 forks 1 at 10; 1 sends at 20 (arrives 25) and ends; 0 computes until 60,
    // calls receive at 60 and completes at 61: the message was already there, so the
    // path runs along process 0 only: init → fork → recv_call → recv_done → exit.
    let evs = vec![
        Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 },
        Event::ProcCreate { time: 10, parent: Some(0), pid: 1, vproc: None, pproc: 1, function: 0, line: 3 },
        Event::MsgSend {
            time: 20,
            msg: 7,
            src_pid: 1,
            src_pproc: 1,
            dst_pid: Some(0),
            dst_pproc: 0,
            purpose: crate::trace::MsgPurpose::Channel { channel: 0, index: 0 },
            bytes: 4,
            line: 4,
        },
        Event::ProcEnd { time: 20, pid: 1 },
        Event::MsgArrive { time: 25, msg: 7, dst_pproc: 0 },
        Event::RecvCall { time: 60, pid: 0, pproc: 0, channel: 0, index: 0, line: 5 },
        Event::RecvDone { time: 61, pid: 0, pproc: 0, msg: 7, src_pid: 1, bytes: 4 },
        Event::ProcEnd { time: 70, pid: 0 },
    ];
    let mut g = GraphBuilder::default();
    for e in &evs {
        g.event(e);
    }
    let path = g.finish(2, &BusyProfile::default());
    assert_eq!(path.length, 70);
    assert_eq!(path.edges, 4);
    assert!(path.segments.iter().all(|s| s.kind == EdgeKind::Compute && s.pid == 0));
    // Consecutive compute edges of one process merge into one segment 0..70.
    assert_eq!(path.segments.len(), 1);
    assert_eq!((path.segments[0].from, path.segments[0].to), (0, 70));
}

/// A trace whose process lists an event before an earlier one (a receive call at 100,
/// then one at 50) would give a vertical edge backwards in time: it is dropped, so
/// the call at 50 starts a path of its own, and the exit (120), which follows it,
/// ends the critical path: 70 over one edge. Without the disorder every vertical
/// edge stays and the path runs from the init: 120 over three edges.
#[test]
fn a_vertical_edge_backwards_in_time_is_dropped() {
    let call = |time| Event::RecvCall { time, pid: 0, pproc: 0, channel: 0, index: 0, line: 5 };
    let init = Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 };
    let exit = Event::ProcEnd { time: 120, pid: 0 };
    for (calls, backward, links, length, edges) in [
        ([100, 50], true, [None, Some(0), None, Some(2)], 70, 1),
        ([50, 100], false, [None, Some(0), Some(1), Some(2)], 120, 3),
    ] {
        let mut g = GraphBuilder::default();
        for e in [init.clone(), call(calls[0]), call(calls[1]), exit.clone()] {
            g.event(&e);
        }
        assert_eq!(g.backward, backward);
        g.resolve();
        assert_eq!(g.vertical.iter().map(|l| l.get()).collect::<Vec<_>>(), links);
        let path = g.critical();
        assert_eq!((path.length, path.edges.len()), (length, edges), "{calls:?}");
    }
}

#[test]
fn a_parent_waiting_in_join_continues_the_path_from_its_child() {
    // Process 0 runs 0..10, forks 1 at 10 and blocks in join; the busy interval 0..10
    // is recorded after the block (intervals are recorded at their end) and must not
    // count as the resumption. Child 1 runs 10..50 and ends; the parent runs 50..60.
    // Path: init0 →10 fork0 →spawn init1 →40 exit1 →join wake0(50) →10 exit0(60):
    // five edges, the zero-length spawn and join left out of the segments.
    let busy = |pid: u32, start, end| Event::Busy {
        pproc: pid,
        pid,
        start,
        end,
        line: 0,
        class: crate::trace::BusyClass::Work,
    };
    let evs = vec![
        Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 },
        Event::ProcCreate { time: 10, parent: Some(0), pid: 1, vproc: None, pproc: 1, function: 0, line: 3 },
        Event::State { time: 10, pid: 0, state: ProcState::Blocked, reason: Reason::Join },
        busy(0, 0, 10),
        busy(1, 10, 50),
        Event::ProcEnd { time: 50, pid: 1 },
        busy(0, 50, 60),
        Event::ProcEnd { time: 60, pid: 0 },
    ];
    let mut g = GraphBuilder::default();
    for e in &evs {
        g.event(e);
    }
    let path = g.finish(2, &BusyProfile::default());
    assert_eq!(path.length, 60);
    assert_eq!(path.edges, 5);
    let shape: Vec<(EdgeKind, u32, Ticks, Ticks)> =
        path.segments.iter().map(|s| (s.kind, s.pid, s.from, s.to)).collect();
    assert_eq!(
        shape,
        vec![(EdgeKind::Compute, 0, 0, 10), (EdgeKind::Compute, 1, 10, 50), (EdgeKind::Compute, 0, 50, 60)]
    );
}
