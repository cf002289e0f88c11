//! End-to-end tests: CPC source compiled by `lang`, run by the simulator on a topology
//! from `topo` with the shortest-path network. Expected times are sums of the default
//! costs of `vcode::isa`, following the code the compiler generates (quoted).
use super::{Io, RuntimeError, SimConfig, SimError, Simulator, Stats};
use crate::lang::{compile, FrontOptions};
use crate::net::{NetModel, NetParams};
use crate::time::{Ticks, TICKS_PER_UNIT};
use crate::topo::{builtin_mapping, Topology};
use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

const U: Ticks = TICKS_PER_UNIT;

#[derive(Clone, Default)]
struct Out(Rc<RefCell<Vec<u8>>>);
impl Write for Out {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Compiles and runs `src`: the physical architecture is the program's `phyArch` (else
/// mesh 4x4), its `arch` is mapped with the default mapping.
fn run_cpc(name: &str, src: &str, cfg: SimConfig, input: &str) -> (Result<Stats, SimError>, String) {
    run_cpc_observed(name, src, cfg, input, None)
}

/// As [`run_cpc`], with `observer` (if any) watching the run.
fn run_cpc_observed(
    name: &str,
    src: &str,
    cfg: SimConfig,
    input: &str,
    observer: Option<Box<dyn super::Observer>>,
) -> (Result<Stats, SimError>, String) {
    // The exact-time tests below are computed with the closed-form network.
    let net = NetParams { model: NetModel::ShortestPath, ..crate::net::classic() };
    run_cpc_on(name, src, cfg, input, observer, &net)
}

/// As [`run_cpc_observed`], on the network `net`.
fn run_cpc_on(
    name: &str,
    src: &str,
    cfg: SimConfig,
    input: &str,
    observer: Option<Box<dyn super::Observer>>,
    net: &NetParams,
) -> (Result<Stats, SimError>, String) {
    run_cpc_with(name, src, cfg, input, observer, net, |_| {}, |_| {})
}

/// As [`run_cpc_on`], with `before` given the simulator before it runs and `after`
/// after.
#[allow(clippy::too_many_arguments)]
fn run_cpc_with(
    name: &str,
    src: &str,
    cfg: SimConfig,
    input: &str,
    observer: Option<Box<dyn super::Observer>>,
    net: &NetParams,
    before: impl FnOnce(&mut Simulator),
    after: impl FnOnce(&Simulator),
) -> (Result<Stats, SimError>, String) {
    let c = compile(name, src, &FrontOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let m = c.module;
    let phys = match &m.phy_arch {
        Some(a) => Topology::from_arch(a).unwrap(),
        None => Topology::parse("mesh:4x4").unwrap(),
    };
    let mut cfg = SimConfig { pprocs: phys.nodes(), ..cfg };
    if let Some(a) = &m.arch {
        let virt = Topology::from_arch(a).unwrap();
        let map = builtin_mapping("default", &virt, &phys, 0).unwrap();
        cfg.mapping = (0..virt.nodes()).map(|v| map.pproc(v).unwrap()).collect();
    }
    let net = crate::net::build(net, &phys, &[]).unwrap();
    let out = Out::default();
    let io = Io {
        stdin: Box::new(std::io::Cursor::new(input.as_bytes().to_vec())),
        stdout: Box::new(out.clone()),
        stderr: Box::new(std::io::sink()),
    };
    let r = Simulator::new(&m, cfg, net, io).and_then(|mut s| {
        if let Some(o) = observer {
            s.set_observer(o);
        }
        before(&mut s);
        let r = s.run();
        after(&s);
        r
    });
    let text = String::from_utf8_lossy(&out.0.borrow()).into_owned();
    (r, text)
}

fn run_ok(src: &str) -> (Stats, String) {
    let (r, out) = run_cpc("t.c", src, SimConfig::default(), "");
    (r.unwrap_or_else(|e| panic!("{e}")), out)
}

fn no_host(s: &Stats) -> Stats {
    Stats { host_time: Default::default(), ..s.clone() }
}

/// Stepping every quantum and skipping idle ones give the same statistics and output.
fn assert_skip_equivalent(src: &str) {
    let (a, oa) = run_cpc("t.c", src, SimConfig::default(), "");
    let (b, ob) = run_cpc("t.c", src, SimConfig { skip_idle: false, ..SimConfig::default() }, "");
    assert_eq!(oa, ob);
    assert_eq!(no_host(&a.unwrap()), no_host(&b.unwrap()));
}

#[test]
fn sequential_time_of_a_known_instruction_sequence() {
    let (s, out) = run_ok(r#"void main() { int x; x = 6 * 7; printf("%d\n", x); }"#);
    assert_eq!(out, "42\n");
    // LDADDR 1 + PUSHI 1 + PUSHI 1 + MULI 2 + STORE 2 (x = 6 * 7)
    // + LDADDR 1 + LDVal 2 + PRINTF 10 + POP 1 (printf) + HALT 1 = 22 units,
    // so the run ends in the third quantum: parallel time 30.
    assert_eq!(s.seq_ticks, 22 * U);
    assert_eq!(s.par_ticks, 30 * U);
    assert_eq!(s.instructions, 10);
    assert!(s.to_text().contains("Sequential Execution Time = 22\n"));
}

#[test]
fn division_by_zero_names_the_function_and_line() {
    let src = "int q(int a, int b) {\n    return a / b;\n}\nvoid main() {\n    printf(\"%d\\n\", q(10, 2));\n    printf(\"%d\\n\", q(1, 0));\n}\n";
    let (r, out) = run_cpc("t.c", src, SimConfig::default(), "");
    assert_eq!(out, "5\n", "the first call prints before the second fails");
    match r {
        Err(e @ SimError::Runtime { pid: 0, line: 2, kind: RuntimeError::DivisionByZero, .. }) => {
            assert_eq!(e.exit_code(), 1);
            assert!(e.to_string().contains("(q, t.c:2)"), "{e}");
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn two_process_deadlock_reports_both_and_the_joining_parent() {
    let src = "arch line L[4];
channel int a, b;
void p1() { int x;
  x = a; b = x; }
void p2() { int y;
  y = b; a = y; }
void main() {
  fork [1; a] p1(); fork [2; b] p2();
  join; join; }
";
    let (r, _) = run_cpc("t.c", src, SimConfig::default(), "");
    let Err(SimError::Deadlock { waiters, .. }) = r else { panic!("expected a deadlock, got {r:?}") };
    let summary: Vec<(u32, u32, &str, u32)> =
        waiters.iter().map(|w| (w.pid, w.vproc, w.function.as_str(), w.line)).collect();
    assert_eq!(summary, vec![(0, 0, "main", 9), (1, 1, "p1", 4), (2, 2, "p2", 6)]);
    assert!(waiters[0].waits_for.contains("join"));
    assert!(waiters[1].waits_for.contains("channel a"), "{}", waiters[1]);
    assert!(waiters[2].waits_for.contains("channel b"), "{}", waiters[2]);
}

#[test]
fn forall_with_grouping() {
    let src = r#"int A[10];
void main() { int i, s;
  forall (i from 0 to 9 grouping 4) { A[i] = i * i; }
  s = 0;
  for (i = 0; i < 10; i++) s = s + A[i];
  printf("%d %d\n", s, pid()); }
"#;
    let (s, out) = run_ok(src);
    // 0 + 1 + 4 + ... + 81 = 285.
    assert_eq!(out, "285 0\n");
    // Groups {0..3}, {4..7}, {8, 9}: three children plus main, on processors 0..3
    // (processor 0 holds main, so the children go to 1, 2, 3).
    assert_eq!(s.processes, 4);
    assert_eq!(s.pprocs_used(), 4);
    // Each index's store into the global A is remote (A lives on processor 0).
    assert_eq!(s.remote_writes, 10);
    assert_skip_equivalent(src);
}

#[test]
fn fork_and_join() {
    let src = r#"int r[4];
void work(int k) { delay(100); r[k] = k * 10; }
void main() { int k;
  for (k = 0; k < 4; k++) fork work(k);
  for (k = 0; k < 4; k++) join;
  printf("%d\n", r[0] + r[1] + r[2] + r[3]); }
"#;
    let (s, out) = run_ok(src);
    assert_eq!(out, "60\n");
    assert_eq!(s.processes, 5);
    // Every child is still alive (delayed) when the next is forked, so the default
    // allocation puts them on processors 1, 2, 3, 4.
    assert_eq!(s.pprocs_used(), 5);
    assert_skip_equivalent(src);
}

/// main sends 41 to b three hops away on a line and b answers 42: the program of the
/// hand-timed tests below.
const PING_PONG: &str = r#"arch line V[4];
phyArch line P[4];
channel int toB, toA;
void b() { int x; x = toB; toA = x + 1; }
void main() { int y; fork [3; toB] b(); toB = 41; y = toA; printf("%d\n", y); join; }
"#;

#[test]
fn channel_ping_pong_latency_and_times() {
    let src = PING_PONG;
    let (s, out) = run_ok(src);
    assert_eq!(out, "42\n");
    // One int (4 bytes) over 3 hops of the line: P = 1 packet of F = 32/4 = 8 flits;
    // latency = msg_init 5 + packet_init 1 + (3 + 0) * 8 * link_delay 1 = 30 units.
    assert_eq!((s.messages, s.bytes), (2, 8));
    assert_eq!(s.avg_latency_ticks(), 30 * U);
    // main (pproc 0): PUSHI 1, LDADDR 1, FORK 20 → 22; LDADDR, PUSHI, SEND 10 → 34
    // (arrives at 64); LDADDR, LDADDR → 36, RECV blocks.
    // b (pproc 3) is made at 22; its frame (b has no parameters: one word, 4 bytes) takes
    // the same 30 units: b starts at 52: LDADDR, LDADDR → 54, RECV waits for 64; RECV 10 → 74,
    // STORE 2, LDADDR 1, LDVal 2, PUSHI 1, ADDI 1 → 81, SEND 10 → 91 (arrives at 121),
    // RET 3 → 94: b ends.
    // main wakes at 121: RECV 10 → 131, STORE 2, LDADDR 1, LDVal 2, PRINTF 10 → 146,
    // POP 1 → 147, JOIN 5 → 152, HALT 1 → 153: the run ends in the quantum [150, 160).
    assert_eq!(s.par_ticks, 160 * U);
    // Work only (not FORK, SEND, RECV, JOIN): main 1+1+1+1+1+1+2+1+2+10+1+1 = 23,
    // b 1+1+2+1+2+1+1+3 = 12.
    assert_eq!(s.seq_ticks, 35 * U);
    assert_skip_equivalent(src);
}

#[test]
fn send_and_receive_overheads_are_busy_time_of_their_processors() {
    // The ping-pong above with a send overhead of 3 and a receive overhead of 2 units.
    let src = PING_PONG;
    let net = NetParams {
        model: NetModel::ShortestPath,
        send_overhead: 3 * U,
        recv_overhead: 2 * U,
        ..crate::net::classic()
    };
    let (s, out) = run_cpc_on("t.c", src, SimConfig::default(), "", None, &net);
    let s = s.unwrap();
    assert_eq!(out, "42\n");
    // main: SEND 10 → 34, + 3 → 37: the message leaves at 37 and arrives at 67 (the
    // latency is still 30). b starts at 52 and waits for 67: RECV 10 → 77, + 2 → 79;
    // STORE .. ADDI 7 → 86, SEND 10 → 96, + 3 → 99 (arrives at 129), RET → 102.
    // main wakes at 129: RECV 10 → 139, + 2 → 141, then 21 units as before → 162,
    // HALT 1 → 163: the run ends in the quantum [160, 170).
    assert_eq!(s.avg_latency_ticks(), 30 * U);
    assert_eq!(s.par_ticks, 170 * U);
    // The overheads are not work a sequential program would do.
    assert_eq!(s.seq_ticks, 35 * U);
    // Busy time: main and b each pay one send and one receive overhead, 10 units more
    // than without them.
    let (base, _) = run_ok(src);
    let busy = |s: &Stats| s.busy.iter().map(|&(_, t)| t).sum::<Ticks>();
    assert_eq!(busy(&s), busy(&base) + 10 * U);
}

#[test]
fn rendezvous_messages_wait_for_the_receive() {
    // The ping-pong above with --eager-limit 0: each 4-byte message goes by rendezvous.
    // A handshake message (no payload, one packet) costs the same 30 units as the data.
    let src = PING_PONG;
    let net = NetParams { model: NetModel::ShortestPath, eager_limit: Some(0), ..crate::net::classic() };
    let (s, out) = run_cpc_on("t.c", src, SimConfig::default(), "", None, &net);
    let s = s.unwrap();
    assert_eq!(out, "42\n");
    // main's SEND ends at 34: its request to send arrives at b's processor at 64. b waits
    // from 54, so the clear to send leaves at 64 and arrives at 94; the data leaves then
    // and arrives at 124 (eager: 64). b: RECV 10 → 134, 7 units → 141, SEND 10 → 151:
    // its request arrives at 181; main has waited since 36, so the clear to send leaves
    // at 181 (arrives 211) and the data arrives at 241 (eager: 121). main: 241 + 32 =
    // 273, in the quantum [270, 280).
    assert_eq!((s.messages, s.bytes), (2, 8));
    assert_eq!(s.avg_latency_ticks(), 90 * U);
    assert_eq!(s.par_ticks, 280 * U);
    assert_eq!(s.seq_ticks, 35 * U);
    // The packet model, its handshakes in flight: the same latencies (90 each).
    let packet = NetParams { model: NetModel::Packet, ..net.clone() };
    let s = run_cpc_on("t.c", src, SimConfig::default(), "", None, &packet).0.unwrap();
    assert_eq!(s.avg_latency_ticks(), 90 * U);
    // The flow model: a 32-byte packet's flow takes 6 units to start and 8 to move
    // (4 bytes per unit), 14 in all. b's frame arrives at 22 + 14 = 36; main's request
    // (sent at 34) at 48, b waiting since 38: the clear to send arrives at 62, the data at
    // 76 (latency 42). Arrivals are received from the next quantum on: b runs from 80,
    // sends at 107 and ends at 110. Its request joins the links at 113, its end notice at
    // 116: they share the links (2 bytes per unit each) from 116, so the request, with
    // 20 bytes left, arrives at 126 (alone: 121). Clear to send 126 -> 140, data 140 ->
    // 154: latency 47. Mean 44.5.
    let flow = NetParams { model: NetModel::Flow, ..net.clone() };
    let s = run_cpc_on("t.c", src, SimConfig::default(), "", None, &flow).0.unwrap();
    assert_eq!(s.avg_latency_ticks(), 44500);
    // A limit of 4 bytes keeps 4-byte messages eager: the times of the eager run.
    let net = NetParams { eager_limit: Some(4), ..net };
    let s = run_cpc_on("t.c", src, SimConfig::default(), "", None, &net).0.unwrap();
    assert_eq!((s.avg_latency_ticks(), s.par_ticks), (30 * U, 160 * U));
}

#[test]
fn a_second_rendezvous_message_waits_for_the_second_receive() {
    // main sends b two 4-byte messages back to back; b receives them one after the
    // other. Closed form, classic parameters: every message (data or handshake) 30 units.
    let src = r#"arch line V[4];
phyArch line P[4];
channel int toB, toA;
void b() { int x; int y; x = toB; y = toB; toA = x + y; }
void main() { int z; fork [3; toB] b(); toB = 20; toB = 22; z = toA; printf("%d\n", z); join; }
"#;
    let net = NetParams { model: NetModel::ShortestPath, eager_limit: Some(0), ..crate::net::classic() };
    let (s, out) = run_cpc_on("t.c", src, SimConfig::default(), "", None, &net);
    let s = s.unwrap();
    assert_eq!(out, "42\n");
    // main's SENDs end at 34 and 46: the requests arrive at 64 and 76. b (started at 52)
    // waits from 54: the first clear to send leaves at 64, the data arrives at 124
    // (latency 90). b: RECV 10, STORE 2, LDADDR, LDADDR → 138, when its second receive
    // waits: only then does the second clear to send leave (its request has been there
    // since 76): data at 138 + 60 = 198, latency 198 - 46 = 152 (eager: 30, the two
    // messages would contend for nothing). b: RECV, STORE → 210, LDADDR 1, LDVal 2,
    // LDVal 2, ADDI 1 → 216, SEND → 226; main waits: data at 226 + 90 = 316 (latency
    // 90). In all 90 + 152 + 90 = 332 units.
    assert_eq!(s.messages, 3);
    assert_eq!(s.latency_ticks, u128::from(332 * U));
}

#[test]
fn a_free_handshake_lets_the_data_leave_when_the_receive_is_posted() {
    // The two tests above with --handshake free: no request or clear to send crosses the
    // network; a message's data leaves at the later of its send and its receive.
    let net = NetParams {
        model: NetModel::ShortestPath,
        eager_limit: Some(0),
        free_handshake: true,
        ..crate::net::classic()
    };
    // Ping-pong: main sends at 34, b waits from 54: the data leaves at 54, arrives at 84
    // (latency 50). b ends its SEND 27 units after the arrival, at 111; main waits
    // already: arrival 141 (latency 30). main: 141 + 32 = 173, in [170, 180).
    let (s, out) = run_cpc_on("t.c", PING_PONG, SimConfig::default(), "", None, &net);
    let s = s.unwrap();
    assert_eq!(out, "42\n");
    assert_eq!((s.latency_ticks, s.par_ticks), (u128::from(80 * U), 180 * U));
    // Two messages sent at 34 and 46: the first leaves at b's receive (54), arrives at
    // 84 (latency 50); b's second receive waits 14 units later, at 98: arrival 128
    // (latency 82). b's answer leaves 28 units after that, at 156: arrival 186 (30).
    let src = r#"arch line V[4];
phyArch line P[4];
channel int toB, toA;
void b() { int x; int y; x = toB; y = toB; toA = x + y; }
void main() { int z; fork [3; toB] b(); toB = 20; toB = 22; z = toA; printf("%d\n", z); join; }
"#;
    let (s, out) = run_cpc_on("t.c", src, SimConfig::default(), "", None, &net);
    assert_eq!(out, "42\n");
    assert_eq!(s.unwrap().latency_ticks, u128::from((50 + 82 + 30) * U));
}

#[test]
fn fork_args_child_moves_the_arguments_time_from_parent_to_child() {
    // The arguments cost LDVal 2 + LDVal 2 + MULI 2 + LDVal 2 + ADDI 1 = 9 units for
    // `x * y + z` and LDADDR 1 for the reference `r`: 10. With --fork-args child the
    // parent's processor (0) is busy 10 units less, the child's (1) 10 more; the
    // sequential time and the instruction count (ARGS, the marker, is not one) do not
    // change, nor does what the program computes.
    let src = r#"arch line V[2];
phyArch line P[2];
int r;
void f(int v, int &out) { out = v; }
void main() { int x, y, z; x = 6; y = 7; z = -1; fork [1] f(x * y + z, r); join; printf("%d\n", r); }
"#;
    let (parent, out) = run_ok(src);
    assert_eq!(out, "41\n");
    let cfg = SimConfig { fork_args_child: true, ..SimConfig::default() };
    let (child, out) = run_cpc("t.c", src, cfg, "");
    let child = child.unwrap();
    assert_eq!(out, "41\n");
    let busy = |s: &Stats, p: u32| s.busy.iter().find(|&&(q, _)| q == p).map_or(0, |&(_, t)| t);
    assert_eq!(busy(&child, 0) + 10 * U, busy(&parent, 0));
    assert_eq!(busy(&child, 1), busy(&parent, 1) + 10 * U);
    assert_eq!((child.seq_ticks, child.instructions), (parent.seq_ticks, parent.instructions));
}

#[test]
fn fork_args_child_hands_over_an_evaluation_longer_than_a_u32_of_ticks() {
    // spin(n) runs a loop of n turns; its cost grows linearly, so with n = 1000000 the
    // arguments take far more than 2^32 ticks (4.3 million units). Moved to the child
    // whole: the parent's processor is busy that much less, the child's that much more.
    let src = r#"arch line V[2];
phyArch line P[2];
int r;
int spin(int n) { int i, s; s = 0; for (i = 0; i < n; i++) s = s + i; return n; }
void f(int v, int &out) { out = v; }
void main() { fork [1] f(spin(1000000), r); join; printf("%d\n", r); }
"#;
    let (parent, out) = run_ok(src);
    assert_eq!(out, "1000000\n");
    let cfg = SimConfig { fork_args_child: true, ..SimConfig::default() };
    let (child, out) = run_cpc("t.c", src, cfg, "");
    let child = child.unwrap();
    assert_eq!(out, "1000000\n");
    let busy = |s: &Stats, p: u32| s.busy.iter().find(|&&(q, _)| q == p).map_or(0, |&(_, t)| t);
    let moved = busy(&parent, 0) - busy(&child, 0);
    assert!(moved > u64::from(u32::MAX), "{moved}");
    assert_eq!(busy(&child, 1), busy(&parent, 1) + moved);
    assert_eq!(child.seq_ticks, parent.seq_ticks);
}

#[test]
fn sim_time_is_the_process_clock_and_delay_takes_it_exactly() {
    // With time off no instruction costs anything: the first simTime() reads 0. A delay
    // of 12.5 - t (a double, not cut to an int) sleeps to 12.5 exactly, inside the
    // quantum [10, 20), and the second simTime() reads 12.5.
    let src = r#"void main() { double t; timeOff(); t = simTime(); delay(12.5 - t); printf("%g %g\n", t, simTime()); }
"#;
    let (s, out) = run_ok(src);
    assert_eq!(out, "0 12.5\n");
    assert!(s.par_ticks >= 12_500);
}

#[test]
fn reading_a_channel_of_another_process_names_both() {
    let src = "channel int c;
void spy() { int x;
  x = c; }
void main() { fork spy(); join; }
";
    let (r, _) = run_cpc("t.c", src, SimConfig::default(), "");
    match r {
        Err(SimError::Runtime {
            pid: 1,
            line: 3,
            kind: RuntimeError::NotOwner { reader: 1, owner: 0, channel },
            ..
        }) => {
            assert_eq!(channel, "c")
        }
        other => panic!("unexpected {other:?}"),
    }
}

/// The expected stdout of a fixture: the header lines after `Expected output:`, each
/// without its first three characters (fixtures/README.md).
fn expected_output(src: &str) -> Option<String> {
    let mut lines = src.lines().skip_while(|l| !l.contains("Expected output:"));
    lines.next()?;
    let mut out = String::new();
    for l in lines {
        if l.trim_start().starts_with("*/") {
            return Some(out);
        }
        out.push_str(l.get(3..).unwrap_or(""));
        out.push('\n');
    }
    None
}

/// The CPC programs of `fixtures/`, by name.
fn fixture_programs() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    names.sort();
    names
}

#[test]
fn fixture_programs_print_their_expected_output() {
    let names = fixture_programs();
    let mut checked = 0;
    for path in names {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        // fileio.c writes into the working directory: left to the cpss integration tests.
        if name == "fileio.c" {
            continue;
        }
        let src = std::fs::read_to_string(&path).unwrap();
        let Some(expected) = expected_output(&src) else { continue };
        if expected.starts_with('(') {
            continue; // computed by its own test (matmul_check.c)
        }
        let input = std::fs::read_to_string(path.with_extension("in")).unwrap_or_default();
        let (r, out) = run_cpc(path.to_str().unwrap(), &src, SimConfig::default(), &input);
        if let Err(e) = r {
            panic!("{name}: {e}");
        }
        assert_eq!(out, expected, "{name}");
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} fixtures checked");
}

/// The contention networks change times, never what a program computes: every fixture
/// prints its expected output on them too.
#[test]
fn fixtures_print_the_same_output_on_contention_networks() {
    let names = fixture_programs();
    let nets = [
        NetParams { model: NetModel::Packet, ..NetParams::default() },
        NetParams { model: NetModel::Wormhole, ..NetParams::default() },
        NetParams { model: NetModel::Wormhole, lanes: 1, head_flit_ratio: 1.0, ..NetParams::default() },
    ];
    let mut checked = 0;
    for path in names {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(&path).unwrap();
        let Some(expected) = expected_output(&src) else { continue };
        if name == "fileio.c" || expected.starts_with('(') {
            continue;
        }
        let input = std::fs::read_to_string(path.with_extension("in")).unwrap_or_default();
        for net in &nets {
            let (r, out) = run_cpc_on(path.to_str().unwrap(), &src, SimConfig::default(), &input, None, net);
            if let Err(e) = r {
                panic!("{name} on {net:?}: {e}");
            }
            assert_eq!(out, expected, "{name} on {net:?}");
        }
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} fixtures checked");
}

/// With messages in a contention network, stepping every quantum, skipping idle ones,
/// and letting a lone process run across quantum ends (no observer) all give the same
/// run.
#[test]
fn contention_networks_skip_and_solo_equivalence() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    for model in [NetModel::Packet, NetModel::Wormhole] {
        let net = NetParams { model, ..NetParams::default() };
        for name in ["ring_token.c", "master_worker.c", "matmul.c", "oddeven_sort.c", "jacobi.c"] {
            let src = std::fs::read_to_string(dir.join(name)).unwrap();
            let key = |r: Result<Stats, SimError>| match r {
                Ok(s) => format!("{:?}", no_host(&s)),
                Err(e) => e.to_string(),
            };
            let (a, oa) = run_cpc_on(name, &src, SimConfig::default(), "", None, &net);
            let stepping = SimConfig { skip_idle: false, ..SimConfig::default() };
            let (b, ob) = run_cpc_on(name, &src, stepping, "", None, &net);
            let log = Log(Rc::new(RefCell::new(Vec::new())));
            let (c, oc) = run_cpc_on(name, &src, SimConfig::default(), "", Some(Box::new(log)), &net);
            assert_eq!((&oa, &oa), (&ob, &oc), "{name} {model:?}");
            let (a, b, c) = (key(a), key(b), key(c));
            assert_eq!(a, b, "{name} {model:?}: skipping");
            assert_eq!(a, c, "{name} {model:?}: solo turns");
        }
    }
}

#[test]
fn error_fixtures_end_as_documented() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/errors");
    let read = |n: &str| std::fs::read_to_string(dir.join(n)).unwrap();
    let (r, out) = run_cpc("deadlock.c", &read("deadlock.c"), SimConfig::default(), "");
    assert_eq!(out, "start\n");
    match r {
        Err(SimError::Deadlock { waiters, .. }) => {
            assert_eq!(waiters.len(), 3, "main in join, ping and pong receiving");
        }
        other => panic!("unexpected {other:?}"),
    }
    let (r, out) = run_cpc("divzero.c", &read("divzero.c"), SimConfig::default(), "");
    assert_eq!(out, "10 / 2 = 5\n");
    assert!(matches!(r, Err(SimError::Runtime { line: 14, kind: RuntimeError::DivisionByZero, .. })), "{r:?}");
    let (r, out) = run_cpc("unmatched_send.c", &read("unmatched_send.c"), SimConfig::default(), "");
    assert_eq!(out, "main done\n");
    assert_eq!(r.unwrap().undelivered, 1);
}

/// Keeps a one-line summary of each event.
struct Log(Rc<RefCell<Vec<String>>>);
impl super::Observer for Log {
    fn event(&mut self, e: &super::SimEvent<'_>) {
        use super::SimEvent as E;
        let line = match e {
            E::ProcessCreate { time, pid, pproc, function, .. } => format!("create {pid} {function} p{pproc} @{time}"),
            E::ProcessEnd { time, pid } => format!("end {pid} @{time}"),
            E::Send { time, src_pid, dst_pid, arrival: Some(arrival), .. } => {
                format!("send {src_pid}->{dst_pid} @{time} arr {arrival}")
            }
            E::Receive { time, pid, .. } => format!("recv {pid} @{time}"),
            _ => return,
        };
        self.0.borrow_mut().push(line);
    }
}

#[test]
fn back_to_back_sends_queue_behind_each_others_overhead() {
    // main sends two messages to b at once; the network (30 units each, no contention
    // in the closed form) is the same in both runs. Without overheads: sends at 34 and
    // 46, arrivals 64 and 76; b's RECV ends at 64 + 10 = 74, four units of stores and
    // loads later its second RECV at 78 + 10 = 88.
    // With a send overhead of 3 and a receive overhead of 2: the second SEND starts
    // only after the first one's overhead, so the sends end at 37 and 52 (3 and 6 units
    // later; arrivals 67 and 82). b: RECV 67 + 10 + 2 = 79, stores and loads to 83, the
    // second message is there (82): RECV 83 + 10 + 2 = 95.
    let src = r#"arch line V[4];
phyArch line P[4];
channel int toB;
void b() { int x, y; x = toB; y = toB; }
void main() { fork [3; toB] b(); toB = 1; toB = 2; join; }
"#;
    let events = |send: Ticks, recv: Ticks| {
        let net = NetParams {
            model: NetModel::ShortestPath,
            send_overhead: send,
            recv_overhead: recv,
            ..crate::net::classic()
        };
        let log = Rc::new(RefCell::new(Vec::new()));
        let (r, _) = run_cpc_on("t.c", src, SimConfig::default(), "", Some(Box::new(Log(log.clone()))), &net);
        r.unwrap();
        let times: Vec<(String, Ticks)> = log
            .borrow()
            .iter()
            .filter(|l| l.starts_with("send") || l.starts_with("recv"))
            .map(|l| {
                let at: Ticks = l.split('@').nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
                (l.split('@').next().unwrap().trim().to_string(), at)
            })
            .collect();
        times
    };
    let at = |v: Vec<(String, Ticks)>| v.into_iter().map(|(k, t)| format!("{k} {}", t / U)).collect::<Vec<_>>();
    assert_eq!(at(events(0, 0)), ["send 0->1 34", "send 0->1 46", "recv 1 74", "recv 1 88"]);
    assert_eq!(at(events(3 * U, 2 * U)), ["send 0->1 37", "send 0->1 52", "recv 1 79", "recv 1 95"]);
}

#[test]
fn observer_sees_the_run_without_changing_it() {
    let src = PING_PONG;
    let c = compile("t.c", src, &FrontOptions::default()).unwrap();
    let run = |observe: bool| {
        let phys = Topology::parse("line:4").unwrap();
        let net = crate::net::ShortestPath::new(crate::net::classic(), phys.clone());
        let io = Io {
            stdin: Box::new(std::io::empty()),
            stdout: Box::new(Out::default()),
            stderr: Box::new(std::io::sink()),
        };
        let cfg = SimConfig { pprocs: 4, mapping: vec![0, 1, 2, 3], ..SimConfig::default() };
        let mut sim = Simulator::new(&c.module, cfg, Box::new(net), io).unwrap();
        let log = Rc::new(RefCell::new(Vec::new()));
        if observe {
            sim.set_observer(Box::new(Log(log.clone())));
        }
        let s = sim.run().unwrap();
        // At the end main has ended and b ended before it.
        let st: Vec<_> = sim.processes().iter().map(|p| (p.pid, p.state)).collect();
        assert_eq!(st, vec![(0, super::ProcState::Ended), (1, super::ProcState::Ended)]);
        let events = log.borrow().clone();
        (no_host(&s), events)
    };
    let (plain, _) = run(false);
    let (observed, events) = run(true);
    assert_eq!(plain, observed);
    // The times of channel_ping_pong_latency_and_times, in ticks.
    assert_eq!(
        events,
        vec![
            "create 0 main p0 @0",
            "create 1 b p3 @22000",
            "send 0->1 @34000 arr 64000",
            "recv 1 @74000",
            "send 1->0 @91000 arr 121000",
            "end 1 @94000",
            "recv 0 @131000",
            "end 0 @153000",
        ]
    );
}

/// A process running alone carries on across quantum ends without going back to the
/// scheduler, unless an observer watches the turns. Both ways must give the same run:
/// these fixtures mix long solo stretches of `main` with forks, spinlocks, remote
/// accesses, delays and channels, under several quanta, a profile, and limits.
#[test]
fn solo_turns_match_scheduled_turns() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let cfgs = [
        SimConfig::default(),
        SimConfig { quantum: 3 * U, ..SimConfig::default() },
        SimConfig { quantum: 37 * U, alarm: Some(2000 * U), ..SimConfig::default() },
        SimConfig { max_steps: Some(700), ..SimConfig::default() },
        SimConfig { max_time: Some(900 * U), ..SimConfig::default() },
    ];
    for name in ["spinlock_counter.c", "master_worker.c", "jacobi.c", "recursion.c", "matmul.c"] {
        let src = std::fs::read_to_string(dir.join(name)).unwrap();
        for cfg in &cfgs {
            let (plain, out_plain) = run_cpc(name, &src, cfg.clone(), "");
            let log = Log(Rc::new(RefCell::new(Vec::new())));
            let (observed, out_observed) = run_cpc_observed(name, &src, cfg.clone(), "", Some(Box::new(log)));
            assert_eq!(out_plain, out_observed, "{name}");
            let key = |r: Result<Stats, SimError>| match r {
                Ok(s) => format!("{:?}", no_host(&s)),
                Err(SimError::LimitExceeded { limit, stats }) => format!("{limit:?} {:?}", no_host(&stats)),
                Err(e) => e.to_string(),
            };
            assert_eq!(key(plain), key(observed), "{name}, quantum {}", cfg.quantum);
        }
    }
}

/// Keeps every event, in order.
struct FullLog(Rc<RefCell<Vec<String>>>);
impl super::Observer for FullLog {
    fn event(&mut self, e: &super::SimEvent<'_>) {
        self.0.borrow_mut().push(format!("{e:?}"));
    }
}

/// The network running ahead on its own thread changes nothing: every fixture, on the
/// wormhole network under several parameter sets (contention, one lane, small buffers,
/// quanta shorter and longer than the lookahead, an alarm, a time limit), gives the same
/// output, statistics (or error) and sequence of events with it as without it. The
/// network-bound fixtures must actually have run ahead, else the test proves nothing.
#[test]
fn network_thread_changes_nothing() {
    use super::NetThread;
    let worm = NetParams::default();
    let nets = [
        (SimConfig::default(), worm.clone()),
        (SimConfig { quantum: 3 * U, ..SimConfig::default() }, worm.clone()),
        (SimConfig { quantum: 37 * U, ..SimConfig::default() }, NetParams { lanes: 1, ..worm.clone() }),
        (SimConfig::default(), NetParams { packet_size: 8, buffer_size: 1, head_flit_ratio: 3.0, ..worm.clone() }),
        (SimConfig { quantum: 5 * U, ..SimConfig::default() }, NetParams { msg_init: 20 * U, ..worm.clone() }),
        (SimConfig { alarm: Some(150 * U), ..SimConfig::default() }, worm.clone()),
        (SimConfig { max_time: Some(200 * U), ..SimConfig::default() }, NetParams { lanes: 4, ..worm.clone() }),
    ];
    let mut ahead_total = 0;
    for path in fixture_programs() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(&path).unwrap();
        let input = std::fs::read_to_string(path.with_extension("in")).unwrap_or_default();
        for (i, (cfg, net)) in nets.iter().enumerate() {
            let run = |mode: NetThread| {
                let log = Rc::new(RefCell::new(Vec::new()));
                let cfg = SimConfig { net_thread: mode, ..cfg.clone() };
                // How many quanta the network ran ahead on its own thread.
                let mut ahead = 0;
                let (r, out) = run_cpc_with(
                    &path.to_string_lossy(),
                    &src,
                    cfg,
                    &input,
                    Some(Box::new(FullLog(log.clone()))),
                    net,
                    |_| {},
                    |s| ahead = s.quanta_ahead(),
                );
                let key = match r {
                    Ok(s) => format!("{:?}", no_host(&s)),
                    Err(SimError::LimitExceeded { limit, stats }) => format!("{limit:?} {:?}", no_host(&stats)),
                    Err(e) => e.to_string(),
                };
                let events = log.borrow().clone();
                (key, out, events, ahead)
            };
            let (k1, o1, e1, a1) = run(NetThread::Off);
            let (k2, o2, e2, a2) = run(NetThread::Always);
            assert_eq!(a1, 0);
            assert_eq!(o1, o2, "{name}");
            assert_eq!(k1, k2, "{name}, quantum {}", cfg.quantum);
            if e1 != e2 {
                let i = e1.iter().zip(&e2).position(|(a, b)| a != b).unwrap_or(e1.len().min(e2.len()));
                panic!(
                    "{name}, quantum {}: the events differ at {i}:\n{:?}\n{:?}\n{:?}",
                    cfg.quantum,
                    &e1[i.saturating_sub(3)..(i + 3).min(e1.len())],
                    &e2[i.saturating_sub(3)..(i + 3).min(e2.len())],
                    (e1.len(), e2.len())
                );
            }
            if i == 0 && ["matmul.c", "jacobi.c", "ring_token.c", "oddeven_sort.c"].contains(&name.as_str()) {
                assert!(a2 > 0, "{name}: the network never ran ahead");
            }
            ahead_total += a2;
        }
    }
    assert!(ahead_total > 1000, "{ahead_total}");
}

/// A channel element gives its message record back once its messages are received
/// (`Channels::settle`; here at once, and in batches of 3, where a record noted empty may
/// have messages again when its batch comes): every fixture, on the wormhole network (arrivals told later), with
/// every message a rendezvous (`--eager-limit 0`: the handshake's states live in the
/// record) and on the closed-form network (arrivals known at the send), gives the same
/// output, statistics (or error) and events as when no record is ever given back. Where
/// elements received messages, the records were given back (all spare at the end of a
/// run that ended with none queued, unless an element had several senders, whose
/// arrivals it keeps in its record) and fewer were made than in the reference, else the
/// test proves nothing.
#[test]
fn giving_channel_records_back_changes_nothing() {
    let worm = NetParams::default();
    let nets = [
        worm.clone(),
        NetParams { eager_limit: Some(0), ..worm.clone() },
        NetParams { model: NetModel::ShortestPath, ..crate::net::classic() },
    ];
    let (mut fewer, mut given, mut runs) = (0, 0, 0);
    for path in fixture_programs() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(&path).unwrap();
        let input = std::fs::read_to_string(path.with_extension("in")).unwrap_or_default();
        for net in &nets {
            let run = |batch: usize| {
                let log = Rc::new(RefCell::new(Vec::new()));
                let mut records = (0, 0);
                let (r, out) = run_cpc_with(
                    &path.to_string_lossy(),
                    &src,
                    SimConfig::default(),
                    &input,
                    Some(Box::new(FullLog(log.clone()))),
                    net,
                    |s| match batch {
                        0 => s.keep_channel_records(),
                        n => s.give_channel_records_back_by(n),
                    },
                    |s| records = s.channel_records(),
                );
                let (key, undelivered) = match r {
                    Ok(s) => (format!("{:?}", no_host(&s)), s.undelivered),
                    Err(SimError::LimitExceeded { limit, stats }) => {
                        (format!("{limit:?} {:?}", no_host(&stats)), stats.undelivered)
                    }
                    Err(e) => (e.to_string(), 1),
                };
                let events = log.borrow().clone();
                (key, out, events, records, undelivered)
            };
            let (k1, o1, e1, (made1, spare1), _) = run(0);
            assert_eq!(spare1, 0);
            runs += usize::from(made1 > 0);
            for batch in [1, 3] {
                let (k2, o2, e2, (made2, spare2), undelivered) = run(batch);
                assert_eq!(o1, o2, "{name}");
                assert_eq!(k1, k2, "{name}");
                assert!(e1 == e2, "{name}: the events differ (batches of {batch})");
                assert!(made2 <= made1, "{name}: {made2} records made, {made1} without giving back");
                assert!(spare2 <= made2);
                if batch == 1 {
                    fewer += usize::from(made2 < made1 && spare2 > 0);
                    given += usize::from(undelivered == 0 && made2 > 0 && spare2 == made2);
                }
            }
        }
    }
    assert!(runs > 20 && fewer > 10 && given > 5, "{runs} runs, {fewer} made fewer records, {given} gave all back");
}

/// Keeps each remote access's kind and bytes, in order.
struct RemoteLog(Rc<RefCell<Vec<(String, u32)>>>);
impl super::Observer for RemoteLog {
    fn event(&mut self, e: &super::SimEvent<'_>) {
        if let super::SimEvent::Remote { kind, bytes, .. } = e {
            self.0.borrow_mut().push((format!("{kind:?}"), *bytes));
        }
    }
}

/// A remote access sends what it reads or writes as a channel message would (man cpss,
/// MEMORY): 4 bytes a word, 8 a double or a long word. The child on processor 1 updates
/// main's double, long and int through reference parameters: each is a remote read (a
/// 4-byte request, a reply of 8, 8 and 4 bytes) then a remote write (4 bytes of address
/// and the word: 12, 12 and 8 bytes).
#[test]
fn remote_accesses_count_the_bytes_of_their_words() {
    let src = "#include \"cpc.h\"
arch shared S[2];
phyArch fullconnect PF[2];
void worker(double &x, long &y, int &z) {
    x = x + 1.0;
    y = y + 1;
    z = z + 1;
}
void main() {
    double x = 1.5;
    long y = 7;
    int z = 3;
    fork [1] worker(x, y, z);
    join;
    printf(\"%.1f %ld %d\\n\", x, y, z);
}
";
    let log = Rc::new(RefCell::new(Vec::new()));
    let (r, out) = run_cpc_observed("remote.c", src, SimConfig::default(), "", Some(Box::new(RemoteLog(log.clone()))));
    r.unwrap();
    assert_eq!(out, "2.5 8 4\n");
    let got: Vec<(String, u32)> = log.borrow().clone();
    let want: Vec<(String, u32)> = [
        ("Read", 4),
        ("Reply", 8),
        ("Write", 12),
        ("Read", 4),
        ("Reply", 8),
        ("Write", 12),
        ("Read", 4),
        ("Reply", 4),
        ("Write", 8),
    ]
    .iter()
    .map(|&(k, b)| (k.to_string(), b))
    .collect();
    assert_eq!(got, want);
}

/// Indexed run queues ([`SimConfig::queue_index_at`]) choose exactly as the scan over a
/// short queue does: every fixture program gives the same events, output and statistics
/// with every queue indexed (from the start or part-way through; observed or not), on
/// its own machine and crowded onto 2 and 3 processors (so queues hold many processes),
/// on the closed-form and the wormhole networks.
#[test]
fn indexed_run_queues_change_nothing() {
    let names = fixture_programs();
    let mut compared = 0;
    for path in names {
        // fileio.c writes into the working directory: left to the cpss integration tests.
        if path.ends_with("fileio.c") {
            continue;
        }
        let src = std::fs::read_to_string(&path).unwrap();
        let Ok(c) = compile(path.to_str().unwrap(), &src, &FrontOptions::default()) else { continue };
        let m = c.module;
        let input = std::fs::read_to_string(path.with_extension("in")).unwrap_or_default();
        let own = match &m.phy_arch {
            Some(a) => Topology::from_arch(a).unwrap(),
            None => Topology::parse("mesh:4x4").unwrap(),
        };
        for phys in [own, Topology::parse("ring:2").unwrap(), Topology::parse("ring:3").unwrap()] {
            for model in [NetModel::ShortestPath, NetModel::Wormhole] {
                let run = |index_at: usize, observe: bool| {
                    let cfg = SimConfig { pprocs: phys.nodes(), queue_index_at: index_at, ..SimConfig::default() };
                    let net = crate::net::build(&NetParams { model, ..NetParams::default() }, &phys, &[]).unwrap();
                    let out = Out::default();
                    let io = Io {
                        stdin: Box::new(std::io::Cursor::new(input.as_bytes().to_vec())),
                        stdout: Box::new(out.clone()),
                        stderr: Box::new(std::io::sink()),
                    };
                    let log = Rc::new(RefCell::new(Vec::new()));
                    let r = Simulator::new(&m, cfg, net, io).and_then(|mut s| {
                        if observe {
                            s.set_observer(Box::new(FullLog(Rc::clone(&log))));
                        }
                        s.run()
                    });
                    let r = match r {
                        Ok(s) => format!("{:?}", no_host(&s)),
                        Err(e) => e.to_string(),
                    };
                    let text = String::from_utf8_lossy(&out.0.borrow()).into_owned();
                    let events = log.borrow().clone();
                    (r, text, events)
                };
                let (scan, indexed) = (run(usize::MAX, true), run(0, true));
                // Indexed part-way through a run, when a turn creates the fourth process.
                let later = run(3, true);
                assert_eq!((&scan.0, &scan.1), (&later.0, &later.1), "{}: indexed later", path.display());
                assert!(scan.2 == later.2, "{}: events differ when indexed later", path.display());
                // Unobserved, a lone process may run across quantum ends (`solo_cross`).
                let (scan_alone, indexed_alone) = (run(usize::MAX, false), run(0, false));
                assert_eq!(scan_alone.0, indexed_alone.0, "{} unobserved", path.display());
                assert_eq!(scan_alone.0, scan.0, "{} observed or not", path.display());
                let what = format!("{} on {} {model:?}", path.display(), phys.nodes());
                assert_eq!(scan.0, indexed.0, "{what}: statistics");
                assert_eq!(scan.1, indexed.1, "{what}: output");
                assert!(scan.2 == indexed.2, "{what}: events differ");
                compared += 1;
            }
        }
    }
    assert!(compared >= 90, "only {compared} runs compared");
}
