//! Tests of the whole analysis on hand-built runs, and their helpers (the builders'
//! tests use them too).
use super::analyzer::BATCH;
use super::*;
use crate::perf::graph::EdgeKind;
use crate::trace::{MsgPurpose, Reason};

/// A channel message `msg` of `bytes` from process `src` to `dst`, each on the
/// processor of its number, sent at `time` (the builders' tests).
pub(super) fn send(time: u64, msg: u64, src: u32, dst: u32, bytes: u32) -> Event {
    Event::MsgSend {
        time,
        msg,
        src_pid: src,
        src_pproc: src,
        dst_pid: Some(dst),
        dst_pproc: dst,
        purpose: MsgPurpose::Channel { channel: 0, index: 0 },
        bytes,
        line: 1,
    }
}

fn busy(pproc: u32, start: u64, end: u64) -> Event {
    Event::Busy { pproc, pid: pproc, start, end, line: 1, class: crate::trace::BusyClass::Work }
}

/// Process `pid`'s creation at time 0 on processor `pid`, running `function` (the
/// builders' tests).
pub(super) fn created_at_0(pid: u32, function: u32) -> Event {
    Event::ProcCreate { time: 0, parent: None, pid, vproc: None, pproc: pid, function, line: 0 }
}

/// Process 0 (main, pproc 0) computes 0..100, forks workers 1 and 2 (pprocs 1, 2) at
/// 100, computes to 150 and receives twice. Worker 2 computes 100..200 and sends
/// (arrives 250); worker 1 computes 100..400 and sends (arrives 450). Main finishes
/// receiving at 250 and 450, computes 450..500 and ends.
pub(super) fn three_processes() -> (RunHeader, Vec<Event>, RunStats) {
    let header = RunHeader { pprocs: 3, functions: vec!["main".into(), "worker".into()], ..RunHeader::default() };
    let events = vec![
        Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 },
        busy(0, 0, 100),
        Event::ProcCreate { time: 100, parent: Some(0), pid: 1, vproc: Some(0), pproc: 1, function: 1, line: 9 },
        Event::ProcCreate { time: 100, parent: Some(0), pid: 2, vproc: Some(1), pproc: 2, function: 1, line: 9 },
        busy(0, 100, 150),
        Event::RecvCall { time: 150, pid: 0, pproc: 0, channel: 0, index: 0, line: 10 },
        busy(2, 100, 200),
        send(200, 2, 2, 0, 4),
        Event::ProcEnd { time: 200, pid: 2 },
        Event::MsgArrive { time: 250, msg: 2, dst_pproc: 0 },
        Event::RecvDone { time: 250, pid: 0, pproc: 0, msg: 2, src_pid: 2, bytes: 4 },
        Event::RecvCall { time: 250, pid: 0, pproc: 0, channel: 0, index: 0, line: 11 },
        busy(1, 100, 400),
        send(400, 1, 1, 0, 8),
        Event::ProcEnd { time: 400, pid: 1 },
        Event::MsgArrive { time: 450, msg: 1, dst_pproc: 0 },
        Event::RecvDone { time: 450, pid: 0, pproc: 0, msg: 1, src_pid: 1, bytes: 8 },
        busy(0, 450, 500),
        Event::ProcEnd { time: 500, pid: 0 },
    ];
    // Sequential time = all busy work: 100 + 50 + 100 + 300 + 50 = 600; latency
    // (250 − 200) + (450 − 400) = 100.
    let stats = RunStats {
        seq_ticks: 600,
        par_ticks: 500,
        pprocs_used: 3,
        busy_ticks: vec![200, 300, 100],
        processes: 3,
        messages: 2,
        bytes: 12,
        total_latency_ticks: 100,
        ..RunStats::default()
    };
    (header, events, stats)
}

/// Without the charts the timeline keeps neither busy intervals nor messages, and
/// nothing else changes, even when the CPU times must be computed again from the
/// intervals (their processes kept beside their bounds for that).
#[test]
fn the_charts_option_changes_only_the_timeline() {
    let (h, e, s) = three_processes();
    let run = |events: &[Event], charts: bool| {
        let opts = Options { charts, ..Options::default() };
        let mut a = Analyzer::new(&h, &opts);
        for x in events {
            a.event(x);
        }
        a.finish(&s).unwrap()
    };
    let (with, without) = (run(&e, true), run(&e, false));
    // Main's touching 0..100 and 100..150 merge; then the workers', and main's last.
    assert_eq!(with.timeline.busy, vec![(0, 0, 0, 150), (2, 2, 100, 200), (1, 1, 100, 400), (0, 0, 450, 500)]);
    assert_eq!(with.timeline.messages.len(), 2);
    assert!(without.timeline.busy.is_empty() && without.timeline.messages.is_empty());
    let rest = |a: &Analysis| {
        let mut a = a.clone();
        a.timeline.busy.clear();
        a.timeline.messages.clear();
        format!("{a:?}")
    };
    assert_eq!(rest(&with), rest(&without));
    // Main's 100..150 recorded after its 450..500: its CPU times cannot be followed
    // event by event and are computed from all its intervals, to the same weights.
    let mut late = e.clone();
    let k = late.iter().position(|x| *x == busy(0, 100, 150)).unwrap();
    let moved = late.remove(k);
    late.insert(late.len() - 1, moved);
    let path = |a: &Analysis| format!("{:?}", (&a.critical, &a.weighted));
    for charts in [false, true] {
        assert_eq!(path(&run(&late, charts)), path(&with), "charts {charts}");
    }
}

#[test]
fn three_process_summary() {
    let (h, e, s) = three_processes();
    let a = analyze_events(&h, &e, &s);
    let m = &a.summary;
    // Speedup 600 / 500 = 1.2; efficiency 1.2 / 3 = 0.4.
    assert!((m.speedup() - 1.2).abs() < 1e-12);
    assert!((m.efficiency() - 0.4).abs() < 1e-12);
    // Busy from the events: p0 100+50+50 = 200 (40 %), p1 300 (60 %), p2 100 (20 %).
    assert_eq!(m.busy, vec![(0, 200), (1, 300), (2, 100)]);
    assert_eq!(m.utilization(), vec![(0, 40.0), (1, 60.0), (2, 20.0)]);
    // Granularity Σ Cᵢ : M = 600 : 100 = 6.
    assert_eq!(m.granularity(), Some(6.0));
    assert_eq!(m.avg_latency_ticks(), 50);
    // Main has no virtual processor, so both messages (to main) are left out.
    assert!(m.comm.is_empty());
    assert_eq!(m.comm_csv(), "src,dst,bytes\n");
}

/// The seed's relabelling (seed 003 Fig. 3.2 B) on a hand-built run, n = 2
/// processors. Main (pid 0, pproc 0) forks B (pid 1) and A (pid 2), both on its own
/// processor, at 0, and waits for its children. Processor 0 runs B 0..10, then A
/// 10..110 (A ends), then B 110..160; at 110 B forks pid 3 onto processor 1, which
/// runs 110..160. Busy processors: [0,110) 1 (P = 1/2), [110,160) 2 (P = 1).
///
/// The elapsed-time critical path ends at the last event (B's end at 160): B's
/// computation 0..160, 160 long; B computed only 10 + 50 of it (it waited 100 for its
/// processor), so it weighs w(10, P ½) + w(50, P 1) = (10 + ½·1·10) + 50 = 65.
/// The heaviest path ends at A's end instead: the spawn 0..10 (A waited for its
/// processor before it first ran), w = 10 + ½·10 = 15, then A's computation 10..110,
/// 100 of CPU at P = ½, w = 100 + ½·100 = 150: 165 in all. Every other path weighs
/// 65 (through pid 3: 15 + 50) or less. (The record says when each process starts
/// running, as cpss's do: a process begins there, not where it was created.)
#[test]
fn the_weighted_critical_path_is_the_heaviest_not_the_longest() {
    let header =
        RunHeader { pprocs: 2, functions: vec!["main".into(), "b".into(), "a".into()], ..RunHeader::default() };
    let create = |time, parent, pid, pproc, function| Event::ProcCreate {
        time,
        parent,
        pid,
        vproc: None,
        pproc,
        function,
        line: 0,
    };
    let run = |time, pid| Event::State { time, pid, state: crate::trace::ProcState::Running, reason: Reason::None };
    let busy =
        |pproc, pid, start, end| Event::Busy { pproc, pid, start, end, line: 1, class: crate::trace::BusyClass::Work };
    let events = vec![
        create(0, None, 0, 0, 0),
        run(0, 0),
        create(0, Some(0), 1, 0, 1),
        create(0, Some(0), 2, 0, 2),
        Event::State { time: 0, pid: 0, state: crate::trace::ProcState::Blocked, reason: Reason::Children },
        run(0, 1),
        busy(0, 1, 0, 10),
        run(10, 2),
        busy(0, 2, 10, 110),
        Event::ProcEnd { time: 110, pid: 2 },
        create(110, Some(1), 3, 1, 1),
        run(110, 3),
        busy(0, 1, 110, 160),
        Event::ProcEnd { time: 160, pid: 1 },
        busy(1, 3, 110, 160),
        Event::ProcEnd { time: 160, pid: 3 },
        Event::ProcEnd { time: 160, pid: 0 },
    ];
    let stats = RunStats { seq_ticks: 210, par_ticks: 160, pprocs_used: 2, processes: 4, ..RunStats::default() };
    let a = analyze_events(&header, &events, &stats);
    let shape = |c: &CriticalPath| -> Vec<(EdgeKind, u32, u64, u64, u64)> {
        c.segments.iter().map(|g| (g.kind, g.pid, g.from, g.to, g.busy)).collect()
    };
    assert_eq!(a.critical.length, 160);
    assert_eq!(shape(&a.critical), vec![(EdgeKind::Compute, 1, 0, 160, 60)]);
    // n = 2, a computation's P the busy share of the processors but its own process's
    // time: process 1's edge 0..110 (to its fork) has CPU 10 of a busy area of 110 (it
    // and process 2 on processor 0; processor 1 idle): P = (110 − 10) / 110 = 10/11,
    // w = 10 + (1/11)·10; its edge 110..160 has CPU 50 with processor 1 busy: P = 1, 50.
    // Total 60 + 10/11.
    assert!((a.critical.total_weight - (60.0 + 10.0 / 11.0)).abs() < 1e-9, "{}", a.critical.total_weight);
    assert_eq!(a.weighted.processors, 2);
    assert_eq!(shape(&a.weighted), vec![(EdgeKind::Spawn, 0, 0, 10, 0), (EdgeKind::Compute, 2, 10, 110, 100)]);
    let w: Vec<f64> = a.weighted.segments.iter().map(|g| g.weight).collect();
    // The spawn 0..10 occupies no processor: P = 10 / (2·10) = ½, 15; process 2's 100
    // of computation while processor 1 idles: P = 0, 200.
    assert_eq!(w, vec![15.0, 200.0]);
    assert_eq!(a.weighted.total_weight, 215.0);
    // The report says they differ.
    assert!(
        render::text(&a).contains("Not the elapsed-time critical path (which weighs 0.061)"),
        "{}",
        render::text(&a)
    );
}

#[test]
fn three_process_critical_path_and_weights() {
    let (h, e, s) = three_processes();
    let c = analyze_events(&h, &e, &s).critical;
    // Main waited longest for worker 1's message, so the path is
    // init0 →(100) fork0 →spawn(0) init1 →(300) send1 →msg(50) recv_done0 →(50) exit0:
    // 5 edges, 500 ticks = the parallel time.
    assert_eq!(c.length, 500);
    assert_eq!(c.edges, 5);
    let shape: Vec<(EdgeKind, u32, u64, u64)> = c.segments.iter().map(|g| (g.kind, g.pid, g.from, g.to)).collect();
    assert_eq!(
        shape,
        vec![
            (EdgeKind::Compute, 0, 0, 100),
            (EdgeKind::Compute, 1, 100, 400),
            (EdgeKind::Message, 1, 400, 450),
            (EdgeKind::Compute, 0, 450, 500),
        ]
    );
    // Busy processors: [0,100) 1, [100,150) 3, [150,200) 2, [200,400) 1, [400,450) 0,
    // [450,500) 1; n = 3, w = Δt + (1 − P)·2·Δt, a computation's P the busy share of the
    // two other processors (its own busy time left out), a message's of all three.
    //   0..100:   main alone, P = 0, w = 100 + 2·100 = 300
    //   100..400: busy area 150+100+200 = 450, worker 1's own 300: P = 150/600 = 1/4,
    //             w = 300 + (3/4)·2·300 = 750
    //   400..450: P = 0, w = 50 + 2·50 = 150
    //   450..500: main alone, P = 0, w = 50 + 2·50 = 150
    // Total 1350.
    let w: Vec<f64> = c.segments.iter().map(|g| g.weight).collect();
    let want = [300.0, 750.0, 150.0, 150.0];
    for (got, want) in w.iter().zip(want) {
        assert!((got - want).abs() < 1e-9, "{got} vs {want}");
    }
    assert!((c.total_weight - 1350.0).abs() < 1e-9);
    // Grouped: main's compute 450 (33.3 %) < worker 1's 750 (55.6 %): worker 1 first.
    let g = graph::group_weights(&c);
    assert_eq!((g[0].0, g[0].1), (EdgeKind::Compute, 1));
    assert!((g[0].2 - 750.0).abs() < 1e-9);
    assert!((g[1].2 - 450.0).abs() < 1e-9);
}

#[test]
fn three_process_imbalance() {
    let (h, e, s) = three_processes();
    let m = analyze_events(&h, &e, &s).imbalance;
    // worker: processes 1 and 2, busy 300 and 100 (mean 200, max 300); the path holds
    // worker 1's compute 100..400 = 300, all of it busy: imbalance 300 − 200 = 100,
    // max/mean 1.5. main: busy 200; on the path 0..100 and 450..500 = 150, busy
    // throughout, < 200: imbalance 0.
    let rows = imbalance::tests::function_rows(&m);
    assert_eq!(rows, vec![("worker", 2, 300, 300, 200.0, 300, 100.0), ("main", 1, 150, 150, 200.0, 200, 0.0)]);
    // Had worker 1 waited 100..200 for its processor (busy 200..400 only), the path
    // would hold 200 of its computation: 200 − mean (200 + 100)/2 = 50. (The record
    // has no `Running` states, so the worker began where it was created, at 100.)
    let (h, mut e, s) = three_processes();
    e[12] = Event::Busy { pproc: 1, pid: 1, start: 200, end: 400, line: 1, class: crate::trace::BusyClass::Work };
    let f = &analyze_events(&h, &e, &s).imbalance.functions[0];
    assert_eq!((f.function.as_str(), f.path_time, f.path_busy, f.imbalance), ("worker", 300, 200, 50.0));
    assert_eq!(m.functions[0].max_over_mean(), 1.5);
    // Total 100 of a 500-tick path: 20 %.
    assert_eq!((m.total, m.share), (100.0, 20.0));
}

fn what_if(targets: &[&str]) -> Result<Vec<(String, Ticks)>, PerfError> {
    let (h, e, s) = three_processes();
    let opts =
        Options { what_if: targets.iter().map(|t| whatif::Target::parse(t).unwrap()).collect(), ..Options::default() };
    let mut a = Analyzer::new(&h, &opts);
    for x in &e {
        a.event(x);
    }
    Ok(a.finish(&s)?.what_if.iter().map(|o| (o.target.to_string(), o.new_length)).collect())
}

#[test]
fn three_process_what_if() {
    // function=worker: the workers' 300 and 100 of computation vanish; each message
    // still takes 50 from its send (at the fork, 100) and arrives at 150, when main
    // calls its first receive anyway. Main's own time is left: 100 + 50 + 50 = 200.
    // function=main: main's 100 + 50 + 50 vanish, the workers start at 0; worker 1
    // computes 300 and its message takes 50: 350.
    let got = what_if(&["function=worker", "function=main"]).unwrap();
    assert_eq!(got, vec![("function=worker".into(), 200), ("function=main".into(), 350)]);
    // No probes, so no phases to zero; an unknown function names the known ones.
    let e = what_if(&["phase=x"]).unwrap_err();
    assert_eq!(e.to_string(), "--what-if phase=x: no such phase in the run (it has: no probes)");
    let e = what_if(&["function=nope"]).unwrap_err();
    assert!(e.to_string().contains("(it has: main, worker)"), "{e}");
}

#[test]
fn three_process_phases_between_probes_of_main() {
    // Probes of main at 100 ("work") and 450 ("finish"), a probe of worker 2 at 150
    // that is ignored. With the weights of `three_process_critical_path_and_weights`:
    // before 0..100 = 300 (22.2 %), work 100..450 = 750 + 150 = 900 (66.7 %),
    // finish 450..500 = 150 (11.1 %).
    let (mut h, mut e, s) = three_processes();
    h.labels = vec!["work".into(), "finish".into()];
    e.insert(4, Event::Probe { time: 100, pid: 0, pproc: 0, id: 1, label: 0 });
    e.insert(6, Event::Probe { time: 150, pid: 2, pproc: 2, id: 7, label: 1 });
    e.insert(17, Event::Probe { time: 450, pid: 0, pproc: 0, id: 2, label: 1 });
    let p = analyze_events(&h, &e, &s).phases;
    let rows: Vec<(&str, Ticks)> = p.phases.iter().map(|x| (x.label.as_str(), x.time)).collect();
    assert_eq!(rows, vec![(phases::BEFORE, 100), ("work", 350), ("finish", 50)]);
    let want = [300.0, 900.0, 150.0];
    for (x, w) in p.phases.iter().zip(want) {
        assert!((x.weight - w).abs() < 1e-9, "{} vs {w}", x.weight);
        assert!((x.share - 100.0 * w / 1350.0).abs() < 1e-9);
    }
    // A probe inside worker 1's compute (at 250) cuts it: 100..250 has busy area
    // 150 + 100 + 50 = 300, 150 of it the worker's own: P = 150/300 = 1/2, w = 150 +
    // (1/2)·2·150 = 300; 250..400 has only the worker busy, P = 0, w = 150 + 2·150 =
    // 450 (the pieces add up to the segment's 750); finish 250..500 = 450 + the
    // message 150 + main's 150 = 750.
    e[17] = Event::Probe { time: 250, pid: 0, pproc: 0, id: 2, label: 1 };
    e.sort_by_key(Event::time);
    let p = analyze_events(&h, &e, &s).phases;
    let w: Vec<f64> = p.phases.iter().map(|x| x.weight).collect();
    let want = [300.0, 300.0, 750.0];
    for (x, w) in w.iter().zip(want) {
        assert!((x - w).abs() < 1e-9, "{x} vs {w}");
    }
}

#[test]
fn comm_matrix_counts_only_processes_with_virtual_processors() {
    // Two workers on vprocs 0 and 1 exchange 8 and 4 bytes; a send to main is dropped.
    let h = RunHeader { functions: vec!["main".into()], ..RunHeader::default() };
    let e = vec![
        Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 },
        Event::ProcCreate { time: 0, parent: Some(0), pid: 1, vproc: Some(0), pproc: 0, function: 0, line: 0 },
        Event::ProcCreate { time: 0, parent: Some(0), pid: 2, vproc: Some(1), pproc: 1, function: 0, line: 0 },
        send(1, 1, 1, 2, 8),
        send(2, 2, 2, 1, 4),
        send(3, 3, 1, 2, 8),
        send(4, 4, 2, 0, 99),
    ];
    let a = analyze_events(&h, &e, &RunStats::default());
    assert_eq!(a.summary.comm_csv(), "src,dst,bytes\n0,1,16\n1,0,4\n");
}

#[test]
fn the_two_thread_reading_gives_the_one_thread_analysis() {
    // More events than fit in a few batches: the record read by two threads
    // (analyze) and the same events fed on one (analyze_events) give the same
    // analysis; a record cut in the middle is an error (the reader stops, the
    // analysing thread drains what it got, nothing hangs).
    let (mut h, mut e, s) = three_processes();
    h.channels = vec![crate::trace::ChannelDecl { name: "c".into(), dims: vec![] }];
    e.pop();
    let mut t = 500;
    for k in 0..3 * BATCH as u64 {
        e.push(Event::Busy {
            pproc: (k % 3) as u32,
            pid: 0,
            start: t,
            end: t + 7,
            line: 1,
            class: crate::trace::BusyClass::Work,
        });
        t += 7;
    }
    e.push(Event::ProcEnd { time: t, pid: 0 });
    let mut w = crate::trace::RunRecordWriter::new(Vec::new(), &h).unwrap();
    for x in &e {
        w.event(x);
    }
    let bytes = w.finish(&s).unwrap();
    let a = analyze(&bytes[..]).unwrap();
    assert_eq!(a.events, e.len() as u64);
    assert_eq!(format!("{a:?}"), format!("{:?}", analyze_events(&h, &e, &s)));
    let err = analyze(&bytes[..bytes.len() / 2]).unwrap_err().to_string();
    assert!(err.contains("ends without a footer"), "{err}");
}

/// `analyze_with` on a run record honours a window as `analyze_any_with` does: the
/// three-process run (parallel time 500) cut to 100..400 lasts 300, and worker 1,
/// busy 100..400, is busy all of it.
#[test]
fn analyze_with_honours_a_window() {
    let (mut h, e, s) = three_processes();
    h.channels = vec![crate::trace::ChannelDecl { name: "c".into(), dims: vec![] }];
    let mut w = crate::trace::RunRecordWriter::new(Vec::new(), &h).unwrap();
    for x in &e {
        w.event(x);
    }
    let bytes = w.finish(&s).unwrap();
    let opts = Options { window: Some(window::Window { from: 100, to: 400 }), ..Options::default() };
    let a = analyze_with(&bytes[..], &opts).unwrap();
    assert_eq!(a.summary.par_ticks, 300);
    assert_eq!(a.summary.utilization().iter().find(|(p, _)| *p == 1).map(|&(_, u)| u), Some(100.0));
}

/// A machine may have up to 2^24 processors (more than the 2^20 a trace may name):
/// a process busy 0..10 on processor 2^20 + 5 of a machine of 2^20 + 6 shows in the
/// state table running for 10 ticks, after a row for each processor before it (idle
/// throughout: 10 ticks), as in the summary's busy time.
#[test]
fn processors_beyond_a_trace_s_limit_have_their_states() {
    let p = crate::trace::format::import::MAX_PPROC + 5;
    let header = RunHeader { pprocs: p + 1, functions: vec!["main".into()], ..RunHeader::default() };
    let events = vec![
        Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: p, function: 0, line: 0 },
        Event::Busy { pproc: p, pid: 0, start: 0, end: 10, line: 1, class: crate::trace::BusyClass::Work },
        Event::ProcEnd { time: 10, pid: 0 },
    ];
    let stats = RunStats { seq_ticks: 10, par_ticks: 10, pprocs_used: 1, ..RunStats::default() };
    let a = analyze_events(&header, &events, &stats);
    assert_eq!(a.summary.busy, vec![(p, 10)]);
    assert_eq!(a.states.len(), p as usize + 1);
    let (running, idle) = (PState::Running.report_index(), PState::Idle.report_index());
    assert_eq!((a.states[p as usize].0, a.states[p as usize].1[running]), (p, 10));
    assert_eq!(a.states[0].1[idle], 10);
}

#[test]
fn a_damaged_record_is_an_error_not_a_panic() {
    assert!(analyze(&b"CPPE\0RUN\x01"[..]).is_err());
    assert!(analyze(&b"not a record"[..]).is_err());
}

proptest::proptest! {
    /// No text makes a reader or the analysis of what it read panic: PICL-like lines
    /// of small numbers, and SDDF lines mutated from a real record.
    #[test]
    fn trace_readers_and_their_analysis_never_panic(
        lines in proptest::collection::vec(
            proptest::collection::vec(-1000i64..1000, 0..12), 0..20),
        cut in 0usize..400,
        junk in "[ -~]{0,20}",
    ) {
        let mut picl = String::new();
        for l in &lines {
            let t: Vec<String> = l.iter().enumerate().map(|(k, v)| if k == 2 {
                format!("0.{:06}", v.unsigned_abs())
            } else {
                v.to_string()
            }).collect();
            picl.push_str(&t.join(" "));
            picl.push('\n');
        }
        if let Ok(t) = crate::trace::format::picl::read::read(picl.as_bytes()) {
            let _ = crate::perf::analyze_imported(&t);
        }
        // The same lines with the signs dropped are old-format records.
        if let Ok(t) = crate::trace::format::picl::read_old::read(picl.replace('-', "").as_bytes()) {
            let _ = crate::perf::analyze_imported(&t);
        }
        let sddf = "SDDFA\n#2:\n\"proc_exit\" {\n\tdouble \"time\";\n\tint \"process\";\n};;\n\"proc_exit\" { 0.000002500, 3 };;\n";
        let mut text = sddf[..cut.min(sddf.len())].to_string();
        text.push_str(&junk);
        text.push_str(&sddf[cut.min(sddf.len())..]);
        if let Ok(t) = crate::trace::format::sddf::read::read(text.as_bytes()) {
            let _ = crate::perf::analyze_imported(&t);
        }
    }
}
