//! Simulator tests on hand-assembled modules. Expected times are sums of the default
//! costs of `vcode::isa` (quoted next to each instruction).
use super::super::{Io, RuntimeError, SimConfig, SimError, Stats};
use super::Simulator;
use crate::net::{NetError, NetParams, Network};
use crate::time::{Ticks, TICKS_PER_UNIT};
use crate::vcode::{ChannelInfo, FunctionInfo, Instr, Module, Scalar, Word};
use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

const U: Ticks = TICKS_PER_UNIT;

/// A function for [`module`]: name, depth, params, frame words, first source line, code
/// with jump targets relative to the function's start.
struct F {
    name: &'static str,
    depth: u8,
    params: u32,
    frame: u32,
    line: u32,
    forall: bool,
    code: Vec<Instr>,
}

fn f(name: &'static str, depth: u8, params: u32, frame: u32, line: u32, code: Vec<Instr>) -> F {
    F { name, depth, params, frame, line, forall: false, code }
}

/// Builds a module; `strings` are NUL-ended strings laid out from global address
/// `globals_before` on (so their addresses are known to the test).
fn module(fs: Vec<F>, globals_before: u32, strings: &[&str], channels: Vec<ChannelInfo>) -> Module {
    let mut code = Vec::new();
    let mut lines = Vec::new();
    let mut functions = Vec::new();
    for fx in fs {
        let base = code.len() as u32;
        for (k, mut i) in fx.code.into_iter().enumerate() {
            if let Instr::Jump { target } | Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } = &mut i {
                *target += base;
            }
            code.push(i);
            lines.push(fx.line + k as u32);
        }
        functions.push(FunctionInfo {
            name: fx.name.to_string(),
            entry: base,
            end: code.len() as u32,
            depth: fx.depth,
            param_words: fx.params,
            frame_words: fx.frame,
            ret_words: 0,
            ret_ty: 0,
            parent: None,
            block: 0,
            line: fx.line,
            is_forall_body: fx.forall,
        });
    }
    let mut global_init = Vec::new();
    let mut g = globals_before;
    for s in strings {
        for b in s.bytes() {
            global_init.push((g, Word::Char(b)));
            g += 1;
        }
        global_init.push((g, Word::Char(0)));
        g += 1;
    }
    Module {
        source_name: "test.c".into(),
        source: String::new(),
        code,
        lines,
        src2cod: Vec::new(),
        types: Vec::new(),
        structs: Vec::new(),
        idents: Vec::new(),
        blocks: Vec::new(),
        functions,
        channels,
        globals_words: g,
        null_reserved: false,
        global_init,
        global_relocs: Vec::new(),
        main: 0,
        arch: None,
        phy_arch: None,
    }
}

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

/// Every message takes `lat` units.
struct Fixed(Ticks, NetParams);
impl Network for Fixed {
    fn send(&mut self, _id: u64, src: u32, dst: u32, _bytes: u32, now: Ticks) -> Option<Ticks> {
        Some(if src == dst { now + U } else { now + self.0 * U })
    }
    fn params(&self) -> &NetParams {
        &self.1
    }
    fn set_params(&mut self, p: NetParams) -> Result<(), NetError> {
        self.1 = p;
        Ok(())
    }
}

fn run_with(m: &Module, cfg: SimConfig, input: &str) -> (Result<Stats, SimError>, String) {
    let out = Out::default();
    let io = Io {
        stdin: Box::new(std::io::Cursor::new(input.as_bytes().to_vec())),
        stdout: Box::new(out.clone()),
        stderr: Box::new(std::io::sink()),
    };
    let r = Simulator::new(m, cfg, Box::new(Fixed(20, NetParams::default())), io).and_then(|mut s| s.run());
    let text = String::from_utf8(out.0.borrow().clone()).unwrap();
    (r, text)
}

fn run(m: &Module) -> (Stats, String) {
    let (r, out) = run_with(m, SimConfig::default(), "");
    (r.unwrap_or_else(|e| panic!("run failed: {e}")), out)
}

/// Statistics without host time, for comparisons.
fn key(s: &Stats) -> Stats {
    Stats { host_time: Default::default(), ..s.clone() }
}

fn chan(name: &str, dims: Vec<u32>, base: u32) -> ChannelInfo {
    ChannelInfo { name: name.into(), elem: 0, msg_words: 1, dims, base, line: 1 }
}

use Instr::*;

#[test]
fn sequential_time_is_the_sum_of_costs() {
    // "%d\n" at global 0.
    let m = module(
        vec![f(
            "main",
            1,
            0,
            0,
            1,
            vec![
                LdAddr { depth: 0, off: 0 }, // 1
                PushI { v: 6 },              // 1
                PushI { v: 7 },              // 1
                MulI {},                     // 2
                Printf { argc: 1 },          // 10
                Pop { n: 1 },                // 1
                Halt {},                     // 1
            ],
        )],
        0,
        &["%d\n"],
        vec![],
    );
    let (s, out) = run(&m);
    assert_eq!(out, "42\n");
    // 1+1+1+2+10+1+1 = 17 units; the program ends in the quantum [10, 20).
    assert_eq!(s.seq_ticks, 17 * U);
    assert_eq!(s.par_ticks, 20 * U);
    assert_eq!(s.instructions, 7);
    assert_eq!(s.busy, vec![(0, 17 * U)]);
}

#[test]
fn division_by_zero_names_process_function_and_line() {
    let m = module(vec![f("main", 1, 0, 0, 5, vec![PushI { v: 1 }, PushI { v: 0 }, DivI {}, Halt {}])], 0, &[], vec![]);
    let (r, _) = run_with(&m, SimConfig::default(), "");
    match r {
        Err(SimError::Runtime { pid: 0, function, line: 7, kind: RuntimeError::DivisionByZero, .. }) => {
            assert_eq!(function, "main")
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn calls_loops_and_locals() {
    // sum(n): s = 0; i = 0; while (i < n) { s = s + i; i++; } return s;  frame: n, s, i.
    let sum = f(
        "sum",
        1,
        1,
        3,
        10,
        vec![
            LdAddr { depth: 1, off: 2 },
            PushI { v: 0 },
            Store { ty: Scalar::Int, keep: false },
            LdVal { depth: 1, off: 2 }, // 3: loop top
            LdVal { depth: 1, off: 0 },
            LtI {},
            JumpIfFalse { target: 16 },
            LdAddr { depth: 1, off: 1 },
            LdVal { depth: 1, off: 1 },
            LdVal { depth: 1, off: 2 },
            AddI {},
            Store { ty: Scalar::Int, keep: false },
            LdAddr { depth: 1, off: 2 },
            IncDec { ty: Scalar::Int, delta: 1, pre: false },
            Pop { n: 1 },
            Jump { target: 3 },
            LdVal { depth: 1, off: 1 }, // 16
            Ret { n: 1 },
        ],
    );
    let main = f(
        "main",
        1,
        0,
        0,
        1,
        vec![
            LdAddr { depth: 0, off: 0 },
            PushI { v: 100 },
            Call { func: 1 },
            Printf { argc: 1 },
            Pop { n: 1 },
            Halt {},
        ],
    );
    let m = module(vec![main, sum], 0, &["%d"], vec![]);
    let (s, out) = run(&m);
    assert_eq!(out, "4950");
    // main: LDADDR 1 + PUSHI 1 + CALL 5 + PRINTF 10 + POP 1 + HALT 1 = 19.
    // sum prologue: LDADDR 1 + PUSHI 1 + STORE 2 = 4; per iteration (100 of them):
    // LDVal 2 + LDVal 2 + LTI 1 + JPF 1 + LDADDR 1 + LDVal 2 + LDVal 2 + ADDI 1 + STORE 2
    // + LDADDR 1 + INCDEC 3 + POP 1 + JMP 1 = 20; exit test 2+2+1+1 = 6; LDVal 2 + RET 3.
    let expect = 19 + 4 + 100 * 20 + 6 + 2 + 3;
    assert_eq!(s.seq_ticks, expect * U);
    assert_eq!(s.par_ticks, (expect.div_ceil(10) * 10) * U);
}

#[test]
fn delay_and_idle_skipping_give_identical_results() {
    let m = module(
        vec![f("main", 1, 0, 0, 1, vec![PushI { v: 1000 }, Delay {}, PushI { v: 5 }, Delay {}, Halt {}])],
        0,
        &[],
        vec![],
    );
    let (s, _) = run(&m);
    // PUSHI 1 + DELAY 1 = 2, wake at 1002; PUSHI 1 + DELAY 1 → 1004, wake 1009; HALT 1 →
    // 1010, which is a quantum boundary: the program ends at 1010.
    assert_eq!(s.par_ticks, 1010 * U);
    assert_eq!(s.seq_ticks, 5 * U);
    let (r, _) = run_with(&m, SimConfig { skip_idle: false, ..SimConfig::default() }, "");
    assert_eq!(key(&r.unwrap()), key(&s));
    // With a profile of 100-unit rows: 11 rows, busy 2 units in row 0 and 3 in row 10.
    let prof = |skip| SimConfig { skip_idle: skip, profile_step: Some(100 * U), ..SimConfig::default() };
    let (a, _) = run_with(&m, prof(true), "");
    let (b, _) = run_with(&m, prof(false), "");
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(key(&a), key(&b));
    assert_eq!(a.profile.len(), 11);
    assert_eq!(a.profile[0][0], 2 * U);
    assert_eq!(a.profile[10][0], 3 * U);
    assert!(a.profile[1..10].iter().all(|r| r.iter().all(|&b| b == 0)));
}

/// main forks `child` (owner of c[1]) and sends it 5; the child answers x+1 on c[0].
fn ping_pong() -> Module {
    // Globals: c[2] at 0..2, "%d\n" at 2.
    let main = f(
        "main",
        1,
        0,
        0,
        1,
        vec![
            LdAddr { depth: 0, off: 1 }, // channel list: c[1]
            Fork { func: 1, chans: 1, vproc: false },
            LdAddr { depth: 0, off: 1 },
            PushI { v: 5 },
            Send { n: 1 },
            LdAddr { depth: 0, off: 2 },
            LdAddr { depth: 0, off: 0 },
            Recv { n: 1 },
            Printf { argc: 1 },
            Pop { n: 1 },
            Join {},
            Halt {},
        ],
    );
    let child = f(
        "child",
        1,
        0,
        0,
        20,
        vec![
            LdAddr { depth: 0, off: 0 },
            LdAddr { depth: 0, off: 1 },
            Recv { n: 1 },
            PushI { v: 1 },
            AddI {},
            Send { n: 1 },
            Ret { n: 0 },
        ],
    );
    module(vec![main, child], 2, &["%d\n"], vec![chan("c", vec![2], 0)])
}

#[test]
fn channel_ping_pong_latency_and_skip_equivalence() {
    let m = ping_pong();
    let (s, out) = run(&m);
    assert_eq!(out, "6\n");
    assert_eq!(s.messages, 2);
    assert_eq!(s.bytes, 8);
    // The child is on pproc 1 (pproc 0 holds main): both messages cross the network and
    // take the fixed 20 units.
    assert_eq!(s.avg_latency_ticks(), 20 * U);
    // main: LDADDR 1 + FORK 20 = 21 (child ready at 21); LDADDR 1 + PUSHI 1 + SEND 10 →
    // 33, message arrives at 53. Child starts at 21 in quantum [20,30): LDADDR 1 +
    // LDADDR 1 = 23, blocks on RECV; wakes at 53: RECV 10 → 63, PUSHI 1, ADDI 1 → 65,
    // SEND 10 → 75, answer arrives at 95; RET 3 → 78, child ends at 78.
    // main: LDADDR 1 + LDADDR 1 → 35, blocks; wakes at 95 (quantum [90,100)): RECV 10
    // → 105, PRINTF 10 → 115, POP 1 → 116, JOIN 5 → 121, HALT 1 → 122 → ends in [120,130).
    assert_eq!(s.par_ticks, 130 * U);
    // Work: main LDADDR×4 + PUSHI 1 + PRINTF 10 + POP 1 + HALT 1 = 17, child LDADDR×2 +
    // PUSHI 1 + ADDI 1 + RET 3 = 7 (FORK, SEND, RECV, JOIN are overhead).
    assert_eq!(s.seq_ticks, 24 * U);
    assert_eq!(s.processes, 2);
    let (r, out2) = run_with(&m, SimConfig { skip_idle: false, ..SimConfig::default() }, "");
    assert_eq!(out2, out);
    assert_eq!(key(&r.unwrap()), key(&s));
}

#[test]
fn deadlock_reports_every_blocked_process() {
    // main forks a child owning c[1]; each waits on its own channel: nobody sends.
    let main = f(
        "main",
        1,
        0,
        0,
        1,
        vec![
            LdAddr { depth: 0, off: 1 },
            Fork { func: 1, chans: 1, vproc: false },
            LdAddr { depth: 0, off: 0 },
            Recv { n: 1 },
            Pop { n: 1 },
            Halt {},
        ],
    );
    let child = f("child", 1, 0, 0, 20, vec![LdAddr { depth: 0, off: 1 }, Recv { n: 1 }, Pop { n: 1 }, Ret { n: 0 }]);
    let m = module(vec![main, child], 2, &[], vec![chan("c", vec![2], 0)]);
    for skip in [true, false] {
        let (r, _) = run_with(&m, SimConfig { skip_idle: skip, ..SimConfig::default() }, "");
        let Err(SimError::Deadlock { waiters, .. }) = r else { panic!("expected a deadlock, got {r:?}") };
        assert_eq!(waiters.len(), 2);
        assert_eq!((waiters[0].pid, waiters[0].line, waiters[0].function.as_str()), (0, 4, "main"));
        assert!(waiters[0].waits_for.contains("c[0]"), "{}", waiters[0]);
        assert_eq!((waiters[1].pid, waiters[1].pproc, waiters[1].line), (1, 1, 21));
        assert!(waiters[1].waits_for.contains("c[1]"), "{}", waiters[1]);
    }
}

#[test]
fn reading_another_process_channel_is_an_error() {
    let main = f("main", 1, 0, 0, 1, vec![Fork { func: 1, chans: 0, vproc: false }, Join {}, Halt {}]);
    let child = f("child", 1, 0, 0, 20, vec![LdAddr { depth: 0, off: 0 }, Recv { n: 1 }, Pop { n: 1 }, Ret { n: 0 }]);
    let m = module(vec![main, child], 1, &[], vec![chan("c", vec![], 0)]);
    let (r, _) = run_with(&m, SimConfig::default(), "");
    match r {
        Err(SimError::Runtime {
            pid: 1,
            line: 21,
            kind: RuntimeError::NotOwner { reader: 1, owner: 0, channel },
            ..
        }) => {
            assert_eq!(channel, "c")
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn forall_with_grouping_runs_every_index_once() {
    // A[10] at globals 0..10, "%d\n" at 10. forall (i from 0 to 9 grouping 3) A[i] = i*i;
    // then main prints the sum.
    let body = F {
        name: "forall@3",
        depth: 2,
        params: 1,
        frame: 1,
        line: 3,
        forall: true,
        code: vec![
            LdAddr { depth: 0, off: 0 },
            LdVal { depth: 2, off: 0 },
            Index { size: 1, len: 10 },
            LdVal { depth: 2, off: 0 },
            LdVal { depth: 2, off: 0 },
            MulI {},
            Store { ty: Scalar::Int, keep: false },
            Ret { n: 0 },
        ],
    };
    // main frame: s (0), k (1).
    let main = f(
        "main",
        1,
        0,
        2,
        1,
        vec![
            PushI { v: 3 },
            PushI { v: 0 },
            PushI { v: 9 },
            Forall { func: 1, grouping: true },
            LdVal { depth: 1, off: 1 }, // 4: loop
            PushI { v: 10 },
            LtI {},
            JumpIfFalse { target: 19 },
            LdAddr { depth: 1, off: 0 },
            LdVal { depth: 1, off: 0 },
            LdAddr { depth: 0, off: 0 },
            LdVal { depth: 1, off: 1 },
            Index { size: 1, len: 10 },
            Dereference {},
            AddI {},
            Store { ty: Scalar::Int, keep: false },
            LdAddr { depth: 1, off: 1 },
            IncDec { ty: Scalar::Int, delta: 1, pre: true },
            Pop { n: 1 },
            // 19
            LdAddr { depth: 0, off: 10 },
            LdVal { depth: 1, off: 0 },
            Printf { argc: 1 },
            Pop { n: 1 },
            Halt {},
        ],
    );
    // Patch: the loop's back jump.
    let mut main = main;
    main.code.insert(19, Jump { target: 4 });
    if let JumpIfFalse { target } = &mut main.code[7] {
        *target = 20;
    }
    let m = module(vec![main, body], 10, &["%d\n"], vec![]);
    let (s, out) = run(&m);
    // 0+1+4+…+81 = 285.
    assert_eq!(out, "285\n");
    // ceil(10 / 3) = 4 children plus main.
    assert_eq!(s.processes, 5);
    // Children on pprocs 1..4 store into main's globals: one remote write per index.
    assert_eq!(s.remote_writes, 10);
    assert_eq!(s.pprocs_used(), 5);
    let (r, _) = run_with(&m, SimConfig { skip_idle: false, ..SimConfig::default() }, "");
    assert_eq!(key(&r.unwrap()), key(&s));
}

#[test]
fn remote_read_blocks_for_the_round_trip() {
    // Child on pproc 1 reads global 0 (owned by pproc 0) and stores it into global 1.
    let main = f("main", 1, 0, 0, 1, vec![Fork { func: 1, chans: 0, vproc: true }, Join {}, Halt {}]);
    let child = f(
        "child",
        1,
        0,
        0,
        20,
        vec![
            LdAddr { depth: 0, off: 1 },
            LdVal { depth: 0, off: 0 },
            Store { ty: Scalar::Int, keep: false },
            Ret { n: 0 },
        ],
    );
    let mut main = main;
    main.code.insert(0, PushI { v: 1 }); // virtual processor 1
    let mut m = module(vec![main, child], 2, &[], vec![]);
    m.global_init.push((0, Word::Int(77)));
    let (s, _) = run(&m);
    assert_eq!(s.remote_reads, 1);
    assert_eq!(s.remote_writes, 1);
    // main: PUSHI 1 + FORK 20 = 21. The child's frame takes the network's 20 units: it
    // starts at 41: LDADDR 1, LDVal 2 → 44, blocks for 20 + 20 units → 84; STORE 2 → 86
    // (posted write, arrives at 106 and lands at the quantum boundary 110); RET 3 → 89,
    // ends at 89; the notice of its end reaches processor 0 at 89 + 20 = 109, and main
    // learns of it after the write has landed: at 110.
    // main: JOIN at 21 blocks; wakes at 110: JOIN 5 → 115, HALT 1 → 116; the run ends
    // with the quantum [110, 120).
    assert_eq!(s.par_ticks, 120 * U);
}

#[test]
fn scanf_reads_stdin_into_memory() {
    // x at 0, "%d" at 1, "%d\n" at 4.
    let main = f(
        "main",
        1,
        0,
        0,
        1,
        vec![
            LdAddr { depth: 0, off: 1 },
            LdAddr { depth: 0, off: 0 },
            Scanf { argc: 1 },
            Pop { n: 1 },
            LdAddr { depth: 0, off: 4 },
            LdVal { depth: 0, off: 0 },
            PushI { v: 2 },
            MulI {},
            Printf { argc: 1 },
            Pop { n: 1 },
            Halt {},
        ],
    );
    let m = module(vec![main], 1, &["%d", "%d\n"], vec![]);
    let (r, out) = run_with(&m, SimConfig::default(), " 21\n");
    r.unwrap();
    assert_eq!(out, "42\n");
}

#[test]
fn limits_stop_the_run() {
    let m = module(vec![f("main", 1, 0, 0, 1, vec![Jump { target: 0 }])], 0, &[], vec![]);
    let (r, _) = run_with(&m, SimConfig { max_steps: Some(1000), ..SimConfig::default() }, "");
    match r {
        Err(e @ SimError::LimitExceeded { .. }) => assert_eq!(e.exit_code(), 3),
        other => panic!("unexpected {other:?}"),
    }
    let (r, _) = run_with(&m, SimConfig { alarm: Some(50 * U), ..SimConfig::default() }, "");
    let s = r.unwrap();
    assert!(s.stopped_by_alarm);
    // JMP costs 1: 50 units of work by the alarm at 50.
    assert_eq!(s.par_ticks, 50 * U);
    assert_eq!(s.seq_ticks, 50 * U);
}

#[test]
fn recursion_overflows_the_stack() {
    let main = f("main", 1, 0, 0, 1, vec![Call { func: 1 }, Halt {}]);
    let rec = f("rec", 1, 0, 100, 10, vec![Call { func: 1 }, Ret { n: 0 }]);
    let m = module(vec![main, rec], 0, &[], vec![]);
    let (r, _) = run_with(&m, SimConfig { max_stack_words: 10_000, ..SimConfig::default() }, "");
    assert!(matches!(r, Err(SimError::Runtime { kind: RuntimeError::StackOverflow { .. }, line: 10, .. })), "{r:?}");
}

#[test]
fn spinlock_serialises_two_children() {
    // Globals: lock at 0, counter at 1, "%d\n" at 2. forall (i from 0 to 1): lock;
    // counter = counter + 1 after a delay of 50 inside the critical section; unlock.
    let body = F {
        name: "forall@2",
        depth: 2,
        params: 1,
        frame: 1,
        line: 2,
        forall: true,
        code: vec![
            LdAddr { depth: 0, off: 0 },
            Lock {},
            PushI { v: 50 },
            Delay {},
            LdAddr { depth: 0, off: 1 },
            LdVal { depth: 0, off: 1 },
            PushI { v: 1 },
            AddI {},
            Store { ty: Scalar::Int, keep: false },
            LdAddr { depth: 0, off: 0 },
            Unlock {},
            Ret { n: 0 },
        ],
    };
    let main = f(
        "main",
        1,
        0,
        0,
        1,
        vec![
            PushI { v: 0 },
            PushI { v: 1 },
            Forall { func: 1, grouping: false },
            LdAddr { depth: 0, off: 2 },
            LdVal { depth: 0, off: 1 },
            Printf { argc: 1 },
            Pop { n: 1 },
            Halt {},
        ],
    );
    let m = module(vec![main, body], 2, &["%d\n"], vec![]);
    let (s, out) = run(&m);
    assert_eq!(out, "2\n");
    // The second child waits for the first one's 50-unit critical section: the run
    // lasts more than two delays.
    assert!(s.par_ticks > 100 * U, "{}", s.par_ticks);
    let (r, _) = run_with(&m, SimConfig { skip_idle: false, ..SimConfig::default() }, "");
    assert_eq!(key(&r.unwrap()), key(&s));
}

#[test]
fn forall_body_sees_the_parent_frame_through_the_display() {
    // f(x): forall (i from 1 to 3) { t = x * i; }  where t is a local of f (depth 1,
    // off 1) and the body is at depth 2; f is called from main with 7. The last
    // store wins in index order (children run on distinct processors in id order
    // within the same quantum): t = 21; f returns t.
    let body = F {
        name: "forall@11",
        depth: 2,
        params: 1,
        frame: 1,
        line: 11,
        forall: true,
        code: vec![
            LdAddr { depth: 1, off: 1 },
            LdVal { depth: 1, off: 0 },
            LdVal { depth: 2, off: 0 },
            MulI {},
            Store { ty: Scalar::Int, keep: false },
            Ret { n: 0 },
        ],
    };
    let fx = f(
        "f",
        1,
        1,
        2,
        10,
        vec![
            PushI { v: 1 },
            PushI { v: 3 },
            Forall { func: 2, grouping: false },
            LdVal { depth: 1, off: 1 },
            Ret { n: 1 },
        ],
    );
    let main = f(
        "main",
        1,
        0,
        0,
        1,
        vec![LdAddr { depth: 0, off: 0 }, PushI { v: 7 }, Call { func: 1 }, Printf { argc: 1 }, Pop { n: 1 }, Halt {}],
    );
    let m = module(vec![main, fx, body], 0, &["%d"], vec![]);
    let (s, out) = run(&m);
    assert_eq!(out, "21");
    // Each child reads x (remote: f's frame is on pproc 0) and writes t remotely.
    assert_eq!((s.remote_reads, s.remote_writes), (3, 3));
}

#[test]
fn join_without_children_is_an_error_and_struct_results_get_new_blocks() {
    let m = module(vec![f("main", 1, 0, 0, 1, vec![Join {}, Halt {}])], 0, &[], vec![]);
    let (r, _) = run_with(&m, SimConfig::default(), "");
    assert!(matches!(r, Err(SimError::Runtime { kind: RuntimeError::NothingToJoin, line: 1, .. })), "{r:?}");
    // CopyToNewBlock copies globals 0..2 (5, 6) to a new block and loads its second word.
    let main = f(
        "main",
        1,
        0,
        0,
        1,
        vec![
            LdAddr { depth: 0, off: 2 },
            LdAddr { depth: 0, off: 0 },
            CopyToNewBlock { n: 2 },
            PushI { v: 1 },
            AddrAdd { size: 1 },
            Dereference {},
            Printf { argc: 1 },
            Pop { n: 1 },
            Halt {},
        ],
    );
    let mut m = module(vec![main], 2, &["%d"], vec![]);
    m.global_init.extend([(0, Word::Int(5)), (1, Word::Int(6))]);
    assert_eq!(run(&m).1, "6");
}

#[test]
fn process_table_shows_blocked_states_after_a_deadlock() {
    let main = f("main", 1, 0, 0, 1, vec![Fork { func: 1, chans: 0, vproc: false }, Join {}, Halt {}]);
    let child = f("child", 1, 0, 0, 20, vec![PushI { v: 0 }, Lock {}, Ret { n: 0 }]);
    let mut m = module(vec![main, child], 1, &[], vec![]);
    // The spinlock at global 0 is held by a process that does not exist: pid 41 + 1.
    m.global_init.push((0, Word::Int(42)));
    let out = Out::default();
    let io = Io { stdin: Box::new(std::io::empty()), stdout: Box::new(out), stderr: Box::new(std::io::sink()) };
    let mut sim = Simulator::new(&m, SimConfig::default(), Box::new(Fixed(20, NetParams::default())), io).unwrap();
    assert!(matches!(sim.run(), Err(SimError::Deadlock { .. })));
    use super::super::ProcState;
    use crate::trace::Reason;
    let st: Vec<_> = sim.processes().iter().map(|p| (p.pid, p.state, p.line)).collect();
    assert_eq!(st, vec![(0, ProcState::Blocked(Reason::Join), 2), (1, ProcState::Spinning, 21)]);
}

/// Runs `m` under `cfg` with the interpreter's superinstructions, or (`fuse` false) with
/// every instruction dispatched alone; the statistics without host time, the output and
/// the error message.
fn run_fusing(m: &Module, cfg: SimConfig, fuse: bool) -> (Option<Stats>, String, String) {
    let (s, out, err, _) = run_fusing_lines(m, cfg, fuse, false);
    (s, out, err)
}

/// [`run_fusing`], with an observer when `observe` is set: then the interpreter keeps the
/// busy time per instruction (and a process never runs on past a quantum end on its own),
/// and the busy time per source line and the calls' enter and leave events it reported
/// are returned too.
fn run_fusing_lines(
    m: &Module,
    cfg: SimConfig,
    translated: bool,
    observe: bool,
) -> (Option<Stats>, String, String, Vec<String>) {
    #[derive(Clone, Default)]
    struct Lines(Rc<RefCell<Vec<String>>>);
    impl super::super::Observer for Lines {
        fn event(&mut self, e: &super::super::SimEvent<'_>) {
            match e {
                super::super::SimEvent::LineCosts { lines } => self.0.borrow_mut().push(format!("{lines:?}")),
                super::super::SimEvent::Enter { time, pid, function } => {
                    self.0.borrow_mut().push(format!("enter {time} {pid} {function}"))
                }
                super::super::SimEvent::Leave { time, pid, function } => {
                    self.0.borrow_mut().push(format!("leave {time} {pid} {function}"))
                }
                _ => {}
            }
        }
    }
    let out = Out::default();
    let lines = Lines::default();
    let io = Io {
        stdin: Box::new(std::io::Cursor::new(Vec::new())),
        stdout: Box::new(out.clone()),
        stderr: Box::new(std::io::sink()),
    };
    let r = Simulator::new(m, cfg, Box::new(Fixed(20, NetParams::default())), io).and_then(|mut s| {
        if !translated {
            super::block::Step::untranslated(&mut s.prog);
        }
        if observe {
            s.set_observer(Box::new(lines.clone()));
        }
        s.run()
    });
    // Bytes that are not UTF-8 (a mutated program's output) are compared as bytes.
    let text = String::from_utf8(out.0.borrow().clone()).unwrap_or_else(|e| format!("{:?}", e.into_bytes()));
    let costs = lines.0.borrow().clone();
    match r {
        Ok(s) => (Some(key(&s)), text, String::new(), costs),
        Err(e) => (None, text, e.to_string(), costs),
    }
}

/// A CPC program made of the sequences the superinstructions stand for (loop tests
/// against a constant and a variable, `i++`, `a[i][j]`, `a[i]`, `s = s + x * y`), ending
/// in an out-of-bounds `v[i]` (line 14) when `n` is past 8.
const FUSED_SRC: &str = "int a[8][8], v[8];
void main() {
    int i, j, k, s, n;
    n = 8;
    for (i = 0; i < 8; i++) { v[i] = i; for (j = 0; j < n; j++) a[i][j] = i * 3 + j; }
    s = 0;
    for (i = 0; i < n; i++)
        for (k = 0; k < 8; k++) {
            s = s + a[i][k] * v[k];
            s = s + a[k][i] * a[i][k];
        }
    printf(\"%d\\n\", s);
    n = 9;
    for (i = 0; i < n; i++) s = s + v[i];
}";

/// Three processes time-sliced on one processor, racing on `order` and `pos`: the
/// output shows where each quantum ended.
const FUSED_RACE_SRC: &str = "int order[90], pos;
void worker(int id) {
    int r, k, s;
    for (r = 0; r < 30; r++) {
        s = 0;
        for (k = 0; k < 5; k++)
            s = s + k * id;
        order[pos] = id;
        pos++;
    }
}
void main() {
    int k;
    for (k = 0; k < 3; k++)
        fork worker(k + 1);
    for (k = 0; k < 3; k++)
        join;
    for (k = 0; k < 90; k++)
        printf(\"%d\", order[k]);
}";

/// A program with an operation of every kind of the flat form (`block::flat`), checked by
/// `flat_kinds_change_no_result`, ending in a division by zero inside one (line 99).
pub(super) const FLAT_SRC: &str = "int g[8], h[8], m2[4][4], gv;
double d[4];
int fib(int n) {
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}
void main() {
    int i, j, k, s, t, z, one, loc[6], u;
    int *p;
    double x, y, w;
    gv = 3;
    for (i = 0; i < 8; i++)
        g[i] = i * 2 + 1;
    for (i = 0; i < 4; i++)
        for (j = 0; j < 4; j++)
            m2[i][j] = i - j;
    for (i = 0; i < 6; i++)
        loc[i] = g[i] + gv;
    s = loc[5];
    for (i = 0; i < 4; i++)
        for (k = 0; k < 4; k++)
            s = s + m2[i][k] * m2[k][i];
    one = 1;
    for (i = 0; i < 4; i++) {
        s = s + g[i * 2 + 1] + g[i * 2] + g[0];
        s += g[i * 2 + one];
        h[i] = 7;
        h[i + 4] = i;
        h[i] = s;
        t = gv;
        t = -gv;
    }
    j = 2;
    while (i > j) {
        i--;
        s += i;
        s += j;
        s -= 1;
        t = j;
        t = 7;
        s = s + (i + j) % 3;
    }
    for (i = 0; i < 4; i++)
        d[i] = i * 0.5;
    x = 0.0;
    for (i = 0; i < 4; i++) {
        y = d[i];
        x = x + y * y;
        x = x + x * y;
        x = y * y + x;
    }
    p = &g[0];
    for (i = 0; i < 3; i++)
        s = s + *p + i;
    t = 0;
    for (i = 0; i < 5; i++)
        if (g[i] > 4 && s > 0 && g[i] < s && g[i] != g[i + 1])
            t = t + 1;
    for (i = 0; i < 5; i++)
        while (loc[i] > i)
            loc[i] = loc[i] - 2;
    k = 0;
    for (i = 0; i < 6; i++)
        k = k * 3 + loc[i];
    for (i = 0; i < 8; i++)
        k = k * 3 + h[i];
    printf(\"%d %d %g %d\\n\", s, t, x, k);
    u = 0;
    w = 1.0;
    for (i = 0; i < 4; i++) {
        u = u + i;
        u = u * 3;
        i = i + 1;
        h[i]--;
        u = u + ++h[i];
        t = (s * 3 + i) / 2 + j;
        u = u + t + (s + i) / 2;
        u = u + p[i];
        u = u + p[i + j];
        w = w + x * y;
        w = w - y / x;
        if (!h[i + 4])
            w = w + 1.0;
    }
    i = 0;
    while (i < 3) {
        u = u + 1;
        u = u + !z + !u;
        i = i + 1;
    }
    printf(\"%d %g\\n\", u, w);
    k = 0;
    for (i = 0; i < 4; i++)
        k = k + fib(i * 2 + 1);
    printf(\"%d\\n\", k);
    z = 0;
    for (i = 0; i < 3; i++)
        s /= z;
}
";

#[test]
fn flat_kinds_change_no_result() {
    // Alone on its processor and without line costs, the program runs in the flat form
    // (the translation of each kind is checked in `block::flat`). The reference is the
    // same program with every instruction run alone: statistics, output and the error
    // must be the same at every quantum (ends falling inside operations) and step limit
    // (reached inside them).
    let opts = crate::lang::FrontOptions::default();
    let m = crate::lang::compile("flat.c", FLAT_SRC, &opts).unwrap().module;
    // The same without the failure, so that the statistics are compared too.
    let whole = FLAT_SRC.replace("s /= z;", "s /= one;");
    let ok = crate::lang::compile("flat.c", &whole, &opts).unwrap().module;
    let mut cfgs = Vec::new();
    for q in [1, U, 2 * U, 3 * U, 7 * U, 10 * U, 100 * U] {
        cfgs.push(SimConfig { quantum: q, ..SimConfig::default() });
    }
    for n in [1, 50, 333, 1000, 1001, 1002, 1003, 2500] {
        cfgs.push(SimConfig { max_steps: Some(n), ..SimConfig::default() });
    }
    for cfg in cfgs {
        let what = format!("quantum {} steps {:?}", cfg.quantum, cfg.max_steps);
        let flat = run_fusing(&m, cfg.clone(), true);
        let plain = run_fusing(&m, cfg.clone(), false);
        assert_eq!(flat, plain, "{what}");
        let flat = run_fusing(&ok, cfg.clone(), true);
        let plain = run_fusing(&ok, cfg.clone(), false);
        assert_eq!(flat, plain, "{what}, no failure");
        assert!(flat.0.is_some() || cfg.max_steps.is_some(), "{what}: {flat:?}");
    }
    let (s, out, err) = run_fusing(&m, SimConfig::default(), true);
    // t counts the i < 5 with 4 < g[i] = 2i + 1 < s and g[i] != g[i + 1]: i = 2, 3, 4. x
    // over y = 0, 0.5, 1, 1.5 (x += y^2, x += x y, x = y^2 + x): 0, 0.625, 4.25, 18.5.
    assert!(out.starts_with("94 3 18.5 "), "{out}");
    // The second line: s is -26 before its loop, so h[1] = -26 + 28 = 2 and h[3] = -26 +
    // 104 = 78 (h[i]-- then ++h[i] reads them back). The for loop runs for i = 0 and 2
    // (i = i + 1 in its body), where t + (s + i) / 2 is 143 + 47, then 144 + 48, and p[i] +
    // p[i + j] is 3 + 7, then 7 + 11: u = h[1] + 200 after the first, 3 (u + 2) + h[3] +
    // 210 = 900 after the second, and the while loop adds 2 a turn (1, then !z = 1 with z
    // still 0 and !u = 0), 906. w = 1 + 2 (x y - y / x) with x = 18.5 and y = 1.5: h[i + 4]
    // = i is 1, then 3, where it is read, never 0.
    assert!(out.contains("\n906 56.3378\n"), "{out}");
    // The third: fib(1) + fib(3) + fib(5) + fib(7) = 1 + 2 + 5 + 13, its calls and returns
    // in the flat form.
    assert!(out.ends_with("\n21\n"), "{out}");
    assert!(s.is_none() && err.contains("division by zero") && err.contains("flat.c:99"), "{err}");
}

#[test]
fn pointer_walks_and_local_arrays_change_no_result() {
    // Pointer arithmetic (`p += step`, `buf + 24`), arrays in main's frame and a `switch`
    // run as flat operations (block::flat's tests); against every instruction run alone, at several
    // quanta and step limits: the same statistics, output and error. By hand: a = 9, 1, 2,
    // 3, 4, 5 and every m[i][j] = 7, so s = 3 * 7 * (9 + 1 + 2 + 3) = 315; t = a[0] + a[5]
    // = 14, plus a[i - 1] + a[i + 1 - u] = a[i - 1] + a[i] for i = 1..4 (10, 3, 5, 7): 39.
    // The walks mark buf at 0, 5, .., 20 (5 of them) and 1, 4, .., 22 (8), 10 in both: 12
    // ones. u goes from 1 by 1, 10, 100, 1, 10, 100, 1 (a `switch` on i % 3): 224. Then
    // a[k] with k = 6 is past the array (line 43).
    let src = "char buf[24];
int walk(char *p, char *end, int step) {
    int n;
    n = 0;
    while (p < end) {
        *p = 1;
        n++;
        p += step;
    }
    return n;
}
void main() {
    int a[6], m[3][4], i, j, k, s, t, u, w1, w2, c;
    char *q;
    for (i = 0; i < 6; i++)
        a[i] = i;
    a[0] = 9;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 4; j++)
            m[i][j] = 7;
    s = 0;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 4; j++)
            s = s + m[i][j] * a[j];
    t = a[0] + a[5];
    u = 1;
    for (i = 1; i < 5; i++)
        t = t + a[i - 1] + a[i + 1 - u];
    w1 = walk(buf, buf + 24, 5);
    w2 = walk(buf + 1, buf + 24, 3);
    c = 0;
    for (q = buf; q < buf + 24; q += 1)
        c = c + *q;
    for (i = 0; i < 7; i++) {
        switch (i % 3) {
        case 0: u = u + 1; break;
        case 1: u = u + 10; break;
        default: u = u + 100;
        }
    }
    printf(\"%d %d %d %d %d %d\\n\", s, t, w1, w2, c, u);
    k = 6;
    printf(\"%d\\n\", a[k]);
}";
    let m = crate::lang::compile("pw.c", src, &crate::lang::FrontOptions::default()).unwrap().module;
    let mut cfgs = Vec::new();
    for q in [1, U, 2 * U, 3 * U, 7 * U, 100 * U] {
        cfgs.push(SimConfig { quantum: q, ..SimConfig::default() });
    }
    for n in [1, 50, 333, 1000, 1001, 1002, 1003] {
        cfgs.push(SimConfig { max_steps: Some(n), ..SimConfig::default() });
    }
    for cfg in cfgs {
        let what = format!("quantum {} steps {:?}", cfg.quantum, cfg.max_steps);
        assert_eq!(run_fusing(&m, cfg.clone(), true), run_fusing(&m, cfg, false), "{what}");
    }
    let (s, out, err) = run_fusing(&m, SimConfig::default(), true);
    assert_eq!(out, "315 39 5 8 12 224\n");
    assert!(s.is_none() && err.contains("pw.c:43"), "{err}");
}

#[test]
fn short_turns_of_processes_sharing_the_machine_change_no_result() {
    // Four workers sieve below 300 in arrays of their own frames, as processes on four
    // processors (each owning its frames: the interpreter checks every word's owner) and
    // on one (round robin): in turns of a quantum, most too short to enter the translated
    // stretches (`interp::MIN_ROOM`), some long enough. Against every instruction run
    // alone, at quanta from 1 tick to 100 units: the same statistics and output. There
    // are 62 primes below 300, so each worker prints `id: 62`.
    let src = "void w(int id) {
    char c[300];
    int i, j, n;
    for (i = 0; i < 300; i++)
        c[i] = 0;
    n = 0;
    for (i = 2; i < 300; i++)
        if (!c[i]) {
            n++;
            for (j = i + i; j < 300; j += i)
                c[j] = 1;
        }
    printf(\"%d: %d\\n\", id, n);
}
void main() {
    int k;
    forall (k from 0 to 3) w(k);
}";
    let m = crate::lang::compile("turns.c", src, &crate::lang::FrontOptions::default()).unwrap().module;
    for pprocs in [4, 1] {
        for q in [1, U, 2 * U, 3 * U, 7 * U, 10 * U, 20 * U, 100 * U] {
            let cfg = SimConfig { quantum: q, pprocs, ..SimConfig::default() };
            let translated = run_fusing(&m, cfg.clone(), true);
            assert_eq!(translated, run_fusing(&m, cfg, false), "{pprocs} processors, quantum {q}");
            let mut lines: Vec<&str> = translated.1.lines().collect();
            lines.sort_unstable();
            assert_eq!(lines, ["0: 62", "1: 62", "2: 62", "3: 62"], "{pprocs} processors, quantum {q}");
            assert!(translated.0.is_some(), "{}", translated.2);
        }
    }
}

#[test]
fn an_unsigned_index_of_a_pointer_changes_no_result() {
    // `s[k]` of a `char *` with an `unsigned` index, converted to `int` before `INDEX`
    // (the library's `strlen` too): one operation in the flat form. Against every
    // instruction run alone, at several quanta and step limits: the same statistics,
    // output and error. strlen(w) is 15 and the sum of 'a'..'o' is 15 * 97 + 105 = 1560,
    // so the first line is 1575; the second call reads on past the pool's end (line 7).
    let src = "char w[16];
int count(char *s, unsigned int n) {
    unsigned int k;
    int c;
    c = 0;
    for (k = 0; k < n; k++)
        c = c + s[k];
    return c;
}
void main() {
    int i, t;
    for (i = 0; i < 15; i++)
        w[i] = 'a' + i;
    t = strlen(w) + count(w, 15);
    printf(\"%d\\n\", t);
    printf(\"%d\\n\", count(w, 3000000000u));
}";
    let m = crate::lang::compile("cv.c", src, &crate::lang::FrontOptions::default()).unwrap().module;
    let mut cfgs = Vec::new();
    for q in [1, U, 3 * U, 100 * U] {
        cfgs.push(SimConfig { quantum: q, ..SimConfig::default() });
    }
    for n in [1, 100, 333, 1001] {
        cfgs.push(SimConfig { max_steps: Some(n), ..SimConfig::default() });
    }
    for cfg in cfgs {
        let what = format!("quantum {} steps {:?}", cfg.quantum, cfg.max_steps);
        assert_eq!(run_fusing(&m, cfg.clone(), true), run_fusing(&m, cfg, false), "{what}");
    }
    let (s, out, err) = run_fusing(&m, SimConfig::default(), true);
    assert_eq!(out, "1575\n");
    assert!(s.is_none() && err.contains("bad address") && err.contains("cv.c:7"), "{err}");
}

#[test]
fn superinstructions_change_no_result() {
    // The reference is the same program with every instruction dispatched alone: the
    // superinstructions must give identical statistics, output and errors whatever the
    // quantum (ends falling inside them: 1 tick, 1..=13 units), step limit (reached
    // inside them), alarm and time limit.
    let c = crate::lang::compile("fused.c", FUSED_SRC, &crate::lang::FrontOptions::default()).unwrap();
    let m = c.module;
    let mut cfgs = Vec::new();
    for q in [1, 7 * U / 10, U, 2 * U, 3 * U, 5 * U, 7 * U, 10 * U, 11 * U, 13 * U] {
        cfgs.push(SimConfig { quantum: q, ..SimConfig::default() });
    }
    for n in [1, 5, 100, 1001, 1002, 1003, 1004, 1005] {
        cfgs.push(SimConfig { max_steps: Some(n), ..SimConfig::default() });
    }
    for t in [37 * U, 1234 * U + 1] {
        cfgs.push(SimConfig { alarm: Some(t), ..SimConfig::default() });
        cfgs.push(SimConfig { max_time: Some(t), ..SimConfig::default() });
    }
    let race = crate::lang::compile("race.c", FUSED_RACE_SRC, &crate::lang::FrontOptions::default()).unwrap().module;
    for q in [1, U, 2 * U, 3 * U, 7 * U, 10 * U, 11 * U] {
        let cfg = SimConfig { quantum: q, pprocs: 1, ..SimConfig::default() };
        let fused = run_fusing(&race, cfg.clone(), true);
        let plain = run_fusing(&race, cfg, false);
        assert_eq!(fused, plain, "race, quantum {q}");
    }
    // One instance checked by hand: with a quantum of 1 tick every instruction ends
    // one and the three workers take turns (1, 2, 3 in fork order).
    let one = run_fusing(&race, SimConfig { quantum: 1, pprocs: 1, ..SimConfig::default() }, true);
    assert_eq!(one.1, "123".repeat(30));
    for cfg in cfgs {
        let what =
            format!("quantum {} steps {:?} alarm {:?} time {:?}", cfg.quantum, cfg.max_steps, cfg.alarm, cfg.max_time);
        let fused = run_fusing(&m, cfg.clone(), true);
        let plain = run_fusing(&m, cfg, false);
        assert_eq!(fused, plain, "{what}");
    }
    // The program's own result: the sum over i, k < 8 of (3i + k) * k, 3 * 28 * 28 + 8 * 140,
    // plus that of (3k + i) * (3i + k) = 10ik + 3k^2 + 3i^2, 10 * 28 * 28 + 2 * 3 * 8 * 140.
    let (s, out, err) = run_fusing(&m, SimConfig::default(), true);
    assert_eq!(out, format!("{}\n", 3 * 28 * 28 + 8 * 140 + 10 * 28 * 28 + 2 * 3 * 8 * 140));
    assert!(s.is_none() && err.contains("index 8") && err.contains("fused.c:14"), "{err}");
}

#[test]
fn computed_indexes_and_stores_run_with_their_value_change_no_result() {
    // Elements whose index is one or two `int` operations (`a[i * 4 + j]`), and stores run
    // with the operation that computes their value (of `int`, `char` and `double`), each
    // program ending in a failure inside such an operation: an index out of bounds, a
    // division by zero in an index, a store through a null pointer, a store through a
    // pointer past the pool. The translated runs must equal the untranslated ones at every
    // quantum and step limit, errors included; the expected outputs are worked out below.
    let progs = [
        // 1-D matmul of 4x4 (a = i + j, b = i - j): the trace is the sum over i, k of
        // (i + k)(k - i) = sum k^2 - i^2 = 0; then a[4 * 4 + 0] is out of bounds (line 9).
        ("int a[16], b[16], c[16];
void main() {
    int i, j, k, s, n;
    for (i = 0; i < 4; i++) for (j = 0; j < 4; j++) { a[i * 4 + j] = i + j; b[i * 4 + j] = i - j; }
    for (i = 0; i < 4; i++) for (j = 0; j < 4; j++) { s = 0; for (k = 0; k < 4; k++) s += a[i * 4 + k] * b[k * 4 + j]; c[i * 4 + j] = s; }
    s = 0; for (i = 0; i < 4; i++) s = s + c[i * 4 + i];
    printf(\"%d\\n\", s);
    n = 4;
    s = a[n * 4 + 0];
}", "0\n", "index 16"),
        // A char and a double array written through index expressions, then an index
        // divided by zero (line 8).
        ("char t[8]; double d[8];
void main() {
    int i, z;
    for (i = 0; i < 7; i++) { t[i + 1] = i + 65; d[i * 1 + 1] = i * 0.5; }
    printf(\"%c%c %.1f\\n\", t[1], t[7], d[7]);
    z = 0;
    i = 3;
    t[0] = t[i / z];
}", "AG 3.0\n", "division by zero"),
        // Elements through a pointer parameter and chains of `int` operations on a value
        // (`s + x[i] / 2 + i + 1`): the sum over i < 6 of 4i / 2 + i + 1 = 3 * 15 + 6 = 51;
        // then a division by zero inside a chain (line 8).
        ("int v[6];
int sum(int *x, int n) { int i, s; s = 0; for (i = 0; i < n; i++) s = s + x[i] / 2 + i + 1; return s; }
void main() {
    int i, z;
    for (i = 0; i < 6; i++) v[i] = i * 4;
    printf(\"%d\\n\", sum(v, 6));
    z = 0;
    v[0] = v[1] / z + 1;
}", "51\n", "division by zero"),
        // A sum stored through a null pointer (line 6).
        ("int v;
void main() {
    int *p;
    v = 41;
    p = &v; *p = v + 1; printf(\"%d\\n\", v);
    p = 0; *p = v + 1;
}", "42\n", "null"),
        // A sum stored far past the pool (line 6).
        ("int v;
void main() {
    int *p;
    p = &v; *p = v * 2 + 7; printf(\"%d\\n\", v);
    p = p + 100000000;
    *p = v * 2 + 7;
}", "7\n", "address"),
    ];
    for (k, (src, want, err)) in progs.iter().enumerate() {
        let m = crate::lang::compile("ix.c", src, &crate::lang::FrontOptions::default()).unwrap().module;
        let (stats, out, e) = run_fusing(&m, SimConfig::default(), true);
        assert!(stats.is_none(), "program {k} fails");
        assert_eq!(&out, want, "program {k}");
        assert!(e.contains(err), "program {k}: {e}");
        let mut cfgs: Vec<SimConfig> =
            [1, U, 2 * U, 3 * U, 7 * U].iter().map(|&q| SimConfig { quantum: q, ..SimConfig::default() }).collect();
        for n in [1, 7, 50, 333] {
            cfgs.push(SimConfig { max_steps: Some(n), ..SimConfig::default() });
        }
        for cfg in cfgs {
            let what = format!("program {k}, quantum {} steps {:?}", cfg.quantum, cfg.max_steps);
            assert_eq!(run_fusing(&m, cfg.clone(), true), run_fusing(&m, cfg, false), "{what}");
        }
    }
}

/// Dot-product loops (`s = s + a[i][k] * b[k][j];` and `s += ...`, run whole by the
/// interpreter), against a constant and a variable bound, ending in an out-of-bounds
/// `a[i][k]` (line 14, `k` = 6) when `n` is past 6.
const DOT_SRC: &str = "int a[6][6], b[6][6], c[6][6];
void main() {
    int i, j, k, s, n, tr;
    n = 6;
    for (i = 0; i < 6; i++) for (j = 0; j < 6; j++) { a[i][j] = i + 2 * j; b[i][j] = i * j - 3; }
    for (i = 0; i < 6; i++)
        for (j = 0; j < n; j++) {
            s = 0;
            for (k = 0; k < 6; k++) s = s + a[i][k] * b[k][j];
            for (k = 0; k < n; k++) s += a[i][k] * b[k][j];
            c[i][j] = s;
        }
    tr = 0; for (i = 0; i < 6; i++) tr = tr + c[i][i]; printf(\"%d\\n\", tr);
    n = 7; i = 1; j = 2; for (k = 0; k < n; k++) s = s + a[i][k] * b[k][j];
}";

/// Three processes time-sliced on one processor, each running dot-product loops and
/// noting its id after each: the output shows where each quantum ended.
const DOT_RACE_SRC: &str = "int a[4][40], b[40][4], order[60], pos;
void worker(int id) {
    int r, k, s, i, j;
    i = id; j = 3 - id;
    for (r = 0; r < 20; r++) {
        s = 0;
        for (k = 0; k < 40; k++) s = s + a[i][k] * b[k][j];
        order[pos] = id;
        pos++;
    }
}
void main() {
    int k;
    for (k = 0; k < 40; k++) { a[k % 4][k] = k; b[k][k % 4] = 40 - k; }
    for (k = 0; k < 3; k++)
        fork worker(k + 1);
    for (k = 0; k < 3; k++)
        join;
    for (k = 0; k < 60; k++)
        printf(\"%d\", order[k]);
}";

/// Dot-product loops of `double`s (`s = s + ...`) and `float`s (`t += ...`).
const DOT_REAL_SRC: &str = "double a[5][5], b[5][5];
float f[5][5], g[5][5];
void main() {
    int i, j, k, n;
    double s; float t;
    n = 5;
    for (i = 0; i < 5; i++) for (j = 0; j < 5; j++) { a[i][j] = 0.1 * (i + 1) + j / 3.0; b[i][j] = 1.0 / (i + j + 1); f[i][j] = a[i][j]; g[i][j] = b[i][j]; }
    s = 0.5; t = 0.25;
    for (i = 0; i < 5; i++) for (j = 0; j < 5; j++) {
        for (k = 0; k < n; k++) s = s + a[i][k] * b[k][j];
        for (k = 0; k < 5; k++) t += f[i][k] * g[k][j];
    }
    printf(\"%.12f %.6f\\n\", s, t);
}";

#[test]
fn dot_product_loops_change_no_result() {
    // Translated (a loop whose body is one stretch run whole), a dot-product loop (of
    // ints, doubles, floats) must give what its instructions give one by one: statistics,
    // output, errors and the busy time per source line, whatever the quantum (ends inside
    // iterations, an iteration longer than a quantum), step limit (reached inside an
    // iteration), alarm and time limit, and with processes taking turns.
    let dot = crate::lang::compile("dot.c", DOT_SRC, &crate::lang::FrontOptions::default()).unwrap().module;
    let race = crate::lang::compile("race.c", DOT_RACE_SRC, &crate::lang::FrontOptions::default()).unwrap().module;
    let real = crate::lang::compile("real.c", DOT_REAL_SRC, &crate::lang::FrontOptions::default()).unwrap().module;
    let mut cfgs = Vec::new();
    for q in [1, 7 * U / 10, U, 3 * U, 10 * U, 11 * U, 29 * U, 1000 * U] {
        cfgs.push(SimConfig { quantum: q, ..SimConfig::default() });
    }
    for n in [1, 5, 1000, 1001, 1002, 1003, 1013, 1024, 1025, 1026, 5000] {
        cfgs.push(SimConfig { max_steps: Some(n), ..SimConfig::default() });
    }
    for t in [37 * U, 1234 * U + 1, 3000 * U + 7] {
        cfgs.push(SimConfig { alarm: Some(t), ..SimConfig::default() });
        cfgs.push(SimConfig { max_time: Some(t), ..SimConfig::default() });
    }
    let mut runs: Vec<(&Module, SimConfig)> = cfgs.iter().map(|c| (&dot, c.clone())).collect();
    runs.extend(cfgs.into_iter().map(|c| (&real, c)));
    for q in [1, U, 3 * U, 10 * U, 11 * U, 50 * U, 200 * U] {
        runs.push((&race, SimConfig { quantum: q, pprocs: 1, ..SimConfig::default() }));
    }
    for (m, cfg) in runs {
        let what = format!(
            "{} quantum {} steps {:?} alarm {:?} time {:?}",
            if std::ptr::eq(m, &dot) {
                "dot"
            } else if std::ptr::eq(m, &real) {
                "real"
            } else {
                "race"
            },
            cfg.quantum,
            cfg.max_steps,
            cfg.alarm,
            cfg.max_time
        );
        for observe in [false, true] {
            let whole = run_fusing_lines(m, cfg.clone(), true, observe);
            assert_eq!(whole, run_fusing_lines(m, cfg.clone(), false, observe), "{what} {observe}");
        }
    }
    // The programs' own results. dot.c: c[i][i] is twice the sum over k < 6 of
    // (i + 2k)(k i - 3) = i^2 * 15 + 2i * 55 - 3 * 6i - 6 * 15 = 15i^2 + 92i - 90, so the
    // trace is 2 * (15 * 55 + 92 * 15 - 6 * 90) = 3330; the seventh k is out of bounds.
    let (s, out, err, _) = run_fusing_lines(&dot, SimConfig::default(), true, false);
    assert_eq!(out, "3330\n");
    assert!(s.is_none() && err.contains("index 6") && err.contains("dot.c:14"), "{err}");
    // real.c: the same sums in Rust, in the program's order and types (each product and
    // sum rounded, in f64 and f32).
    let (mut a, mut b) = ([[0f64; 5]; 5], [[0f64; 5]; 5]);
    for i in 0..5 {
        for j in 0..5 {
            a[i][j] = 0.1 * (i + 1) as f64 + j as f64 / 3.0;
            b[i][j] = 1.0 / (i + j + 1) as f64;
        }
    }
    let (mut s, mut t) = (0.5f64, 0.25f32);
    for ai in &a {
        for j in 0..5 {
            for (x, bk) in ai.iter().zip(&b) {
                s += x * bk[j];
            }
            for (x, bk) in ai.iter().zip(&b) {
                t += *x as f32 * bk[j] as f32;
            }
        }
    }
    let (_, out, err, _) = run_fusing_lines(&real, SimConfig::default(), true, false);
    assert_eq!((out, err), (format!("{s:.12} {:.6}\n", f64::from(t)), String::new()));
    // race.c with a quantum longer than the whole run: each worker runs to its end in turn.
    let long = SimConfig { quantum: 1 << 40, pprocs: 1, ..SimConfig::default() };
    let (_, out, _, _) = run_fusing_lines(&race, long, true, false);
    assert_eq!(out, format!("{}{}{}", "1".repeat(20), "2".repeat(20), "3".repeat(20)));
}

/// A message's words read back as they were sent, whether kept in place (up to
/// `Payload::INLINE` = 2 words: 0, 1, 2 here) or on the heap (3 and 5 words).
#[test]
fn message_payload_keeps_its_words() {
    use super::Payload;
    for n in [0usize, 1, 2, 3, 5] {
        let words: Vec<Word> =
            (0..n).map(|i| if i % 2 == 0 { Word::Int(7 * i as i32 - 3) } else { Word::Float(0.5) }).collect();
        let p = Payload::new(&words);
        assert_eq!(&*p, &words[..], "{n} words");
        assert_eq!(matches!(p, Payload::Heap(_)), n > Payload::INLINE, "{n} words");
    }
    assert!(Payload::default().is_empty());
}

/// A watched run ([`SimConfig::watch`]) publishes its progress and leaves a long solo
/// stretch every 2^16 quanta; that changes no result: 200 000 one-unit jumps with a
/// one-unit quantum cross 200 000 quantum ends, three of the watch's bounds. With its
/// stop flag set the run ends after its first quantum with the statistics so far
/// (10 jumps of 1 unit in the default 10-unit quantum) and exit code 130.
#[test]
fn a_watched_run_has_the_same_results_and_stops_when_asked() {
    use std::sync::atomic::{AtomicBool, Ordering};
    static NEVER_SET: AtomicBool = AtomicBool::new(false);
    static SET: AtomicBool = AtomicBool::new(true);
    let m = module(vec![f("main", 1, 0, 0, 1, vec![Jump { target: 0 }])], 0, &[], vec![]);
    let cfg = SimConfig { quantum: U, max_steps: Some(200_000), ..SimConfig::default() };
    let watch = std::sync::Arc::new(super::super::Watch::new(&NEVER_SET));
    let watched = SimConfig { watch: Some(std::sync::Arc::clone(&watch)), ..cfg.clone() };
    let stats = |r: Result<Stats, SimError>| match r {
        Err(SimError::LimitExceeded { limit: super::super::Limit::Steps, stats }) => key(&stats),
        other => panic!("unexpected {other:?}"),
    };
    let plain = stats(run_with(&m, cfg, "").0);
    assert_eq!(stats(run_with(&m, watched, "").0), plain);
    assert_eq!(plain.instructions, 200_000);
    // The progress last published: a quantum end before the limit, one process alive.
    assert!(watch.instructions.load(Ordering::Relaxed) >= 3 << 16);
    assert_eq!(watch.alive.load(Ordering::Relaxed), 1);
    let stop = SimConfig { watch: Some(std::sync::Arc::new(super::super::Watch::new(&SET))), ..SimConfig::default() };
    match run_with(&m, stop, "").0 {
        Err(e @ SimError::LimitExceeded { limit: super::super::Limit::Interrupted, .. }) => {
            assert_eq!(e.exit_code(), 130);
            let SimError::LimitExceeded { stats, .. } = e else { unreachable!() };
            assert_eq!((stats.par_ticks, stats.instructions), (10 * U, 10));
        }
        other => panic!("unexpected {other:?}"),
    }
}

/// A new process lists no frame; its bottom frame, made when asked, is the one a call
/// would have listed: `main` (function 1 here, after `g`) of 2 parameters and 5 frame
/// words takes 5 words at the base of its one segment, returns to nothing (`NONE`), and
/// replaced a display entry of 0 with an empty working stack below it.
#[test]
fn a_new_process_lists_no_frame_and_makes_its_bottom_one() {
    let g = f("g", 1, 0, 0, 1, vec![Ret { n: 0 }]);
    let main = f("main", 1, 2, 5, 3, vec![Ret { n: 0 }]);
    let mut m = module(vec![g, main], 4, &[], vec![]);
    m.main = 1;
    let io =
        Io { stdin: Box::new(std::io::empty()), stdout: Box::new(std::io::sink()), stderr: Box::new(std::io::sink()) };
    let sim = Simulator::new(&m, SimConfig::default(), Box::new(Fixed(20, NetParams::default())), io).unwrap();
    let p = &sim.pt.procs[0];
    assert!(p.frames.is_empty() && p.frames.capacity() == 0);
    let b = p.bottom_frame();
    let base = p.segs[0].base;
    assert_eq!((b.func, b.base, b.words, b.saved, b.ret_pc, b.stack_base), (1, base, 5, 0, super::NONE, 0));
    assert_eq!(p.frame_words, 5);
    assert_eq!(p.all_frames().len(), 1);
}

/// A channel element is 24 bytes and its declaration and index come from its number:
/// for `a[3]`, `b[2][2]` and `c` (a declaration of one element), then two MPI mailboxes,
/// element 0 is a[0], 3 is b[0][0], 6 is b[1][1], 7 is c, 8 and 9 are the mailboxes of
/// ranks 0 and 1 (declaration 3, one past the module's three). Each element's global
/// word names it.
#[test]
fn a_channel_element_finds_its_declaration_from_its_number() {
    assert_eq!(std::mem::size_of::<super::Chan>(), 24);
    let m = module(
        vec![f("main", 1, 0, 0, 1, vec![Ret { n: 0 }])],
        8,
        &[],
        vec![chan("a", vec![3], 0), chan("b", vec![2, 2], 3), chan("c", vec![], 7)],
    );
    let ch = super::channels::Channels::new(&m, 2);
    let want = [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (1, 3), (2, 0), (3, 0), (3, 1)];
    let got: Vec<_> = (0..ch.chans.len()).map(|c| ch.decl_of(c)).collect();
    assert_eq!(got, want);
    assert_eq!((ch.chans[8].owner, ch.chans[9].owner), (0, 1));
    let io =
        Io { stdin: Box::new(std::io::empty()), stdout: Box::new(std::io::sink()), stderr: Box::new(std::io::sink()) };
    let sim = Simulator::new(&m, SimConfig::default(), Box::new(Fixed(20, NetParams::default())), io).unwrap();
    assert_eq!(sim.channel_name(6), "b[1][1]");
    assert_eq!(sim.channel_name(7), "c");
}

/// The fields a turn touches share the process block's first cache line, the display
/// and frames its second (see [`super::Proc`]).
#[test]
fn a_process_block_keeps_a_turn_s_fields_in_its_first_cache_line() {
    use super::Proc;
    use std::mem::{align_of, offset_of, size_of};
    assert_eq!(align_of::<Proc>(), 64);
    let first = [
        offset_of!(Proc, stack) + size_of::<Vec<crate::vcode::Word>>(),
        offset_of!(Proc, clock) + 8,
        offset_of!(Proc, wait) + size_of::<crate::trace::Reason>(),
        offset_of!(Proc, pc) + 4,
        offset_of!(Proc, pproc) + 4,
        offset_of!(Proc, ended) + 1,
        offset_of!(Proc, ending) + 1,
        offset_of!(Proc, time_on) + 1,
        offset_of!(Proc, start_cost) + 4,
    ];
    assert!(first.iter().all(|&end| end <= 64), "{first:?}");
    let second = [offset_of!(Proc, display), offset_of!(Proc, frames), offset_of!(Proc, cur_seg)];
    assert!(second.iter().all(|&at| (64..128).contains(&at)), "{second:?}");
    assert_eq!(size_of::<Proc>() % 64, 0);
    // Three lines: a million idle processes (scripts/bench-scale.sh) hold about 192 MB
    // of blocks, not 256 MB; a frame fits the allocator's smallest block (24 bytes
    // usable).
    assert_eq!(size_of::<Proc>(), 192);
    assert_eq!(size_of::<super::Frame>(), 24);
}

/// Every kind of translated operation, in loops spelled four ways (for, while, `x = x + 1`,
/// `x += 1`), on every scalar type, with 1-D and 2-D arrays, signed and unsigned
/// arithmetic, conversions, `i++` in an expression, and stack shapes that are not
/// statements (`?:`, `&&`, calls in expressions); then the failures a stretch must leave to
/// the instruction that fails: a division by zero (line 20) when `z` is 0.
const ALL_OPS_SRC: &str = "int v[12], m[4][5], g;
double d[6]; float f[6]; char c[9]; long l[4]; unsigned u[4];
int sq(int x) { return x * x; }
void main() {
    int i, j, k, s, t, z;
    double x; float y; long w; unsigned q;
    for (i = 0; i < 12; i++) v[i] = i * 3 - 7;
    i = 0; while (i < 4) { j = 0; while (j < 5) { m[i][j] = v[i + j] % 5; j = j + 1; } i += 1; }
    s = 0; for (k = 11; k >= 0; k--) s += v[k] * (k & 3) - (v[k] >> 1) + (k ^ 5);
    t = 0; for (i = 0; i < 4; ++i) for (j = 0; j < 5; j++) t = m[i][j] * 7 + t / 3 - (i < j ? i : j);
    x = 0.5; for (i = 0; i < 6; i++) { d[i] = i * 0.25 + x; x = x * 1.5 - d[i] / 4.0; }
    y = 1.0f; for (i = 0; i < 6; i++) { f[i] = y * i; y = y + f[i] / 3.0f; }
    for (i = 0; i < 8; i++) c[i] = 'a' + i * 2;
    w = 1; for (i = 0; i < 4; i++) { l[i] = w * 1000003; w = w * 7 + l[i] % 11; }
    q = 4000000000u; for (i = 0; i < 4; i++) { u[i] = q / (i + 1) + q % 7; q = q >> 1; }
    k = 0; for (i = 0; i < 12 && v[i] < 20; i++) k = k + (v[i] > 0 || i == 3);
    g = 0; for (i = 0; i < 5; i++) g = g + sq(i) + v[i++];
    printf(\"%d %d %.9f %.5f %s %ld %u %u %d %d\\n\", s, t, x, y, c, w, u[1], q, k, g);
    z = 3;
    for (i = 0; i < 6; i++) { s = s + 100 / z; z = z - 1; }
    printf(\"%d\\n\", s);
}";

#[test]
fn translated_operations_change_no_result() {
    // Against every instruction dispatched alone: identical statistics, output, error
    // (with its line and time) and busy time per source line, whatever the quantum (ends
    // inside stretches and inside loops run whole, instructions longer than a quantum),
    // step limit (inside a stretch and inside a loop), alarm and time limit. (`main`'s
    // calls of `sq` after the first go to the frame segment kept from it.)
    let m = crate::lang::compile("ops.c", ALL_OPS_SRC, &crate::lang::FrontOptions::default()).unwrap().module;
    // The program does use most kinds of operation (so the comparison covers them).
    let kinds: std::collections::HashSet<_> =
        super::block::Step::all(&m.code).iter().map(|s| std::mem::discriminant(&s.x)).collect();
    assert!(kinds.len() >= 20, "{} kinds of operation", kinds.len());
    let mut cfgs = Vec::new();
    for q in [1, 7 * U / 10, U, 2 * U, 3 * U, 10 * U, 13 * U, 1000 * U] {
        cfgs.push(SimConfig { quantum: q, ..SimConfig::default() });
    }
    for n in [1, 2, 3, 17, 100, 501, 502, 503, 1000, 1001, 1500] {
        cfgs.push(SimConfig { max_steps: Some(n), ..SimConfig::default() });
    }
    for t in [37 * U, 1234 * U + 1, 2500 * U + 3] {
        cfgs.push(SimConfig { alarm: Some(t), ..SimConfig::default() });
        cfgs.push(SimConfig { max_time: Some(t), ..SimConfig::default() });
    }
    for cfg in cfgs {
        let what =
            format!("quantum {} steps {:?} alarm {:?} time {:?}", cfg.quantum, cfg.max_steps, cfg.alarm, cfg.max_time);
        for observe in [false, true] {
            let translated = run_fusing_lines(&m, cfg.clone(), true, observe);
            assert_eq!(translated, run_fusing_lines(&m, cfg.clone(), false, observe), "{what} {observe}");
        }
    }
    // The run itself, checked against the same arithmetic in Rust: it prints the line of
    // results, then fails at the division by zero of line 20 (z counts 3, 2, 1, 0).
    let (s, out, err, _) = run_fusing_lines(&m, SimConfig::default(), true, false);
    let v: Vec<i32> = (0..12).map(|i| i * 3 - 7).collect();
    let ss: i32 = (0..12).rev().map(|k: i32| v[k as usize] * (k & 3) - (v[k as usize] >> 1) + (k ^ 5)).sum();
    let mut mm = [[0i32; 5]; 4];
    for (i, row) in mm.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            *x = v[i + j] % 5;
        }
    }
    let mut t = 0i32;
    for (i, row) in mm.iter().enumerate() {
        for (j, &x) in row.iter().enumerate() {
            t = x * 7 + t / 3 - (if i < j { i } else { j }) as i32;
        }
    }
    let line = out.lines().next().unwrap_or("");
    assert!(line.starts_with(&format!("{ss} {t} ")), "{line} (want {ss} {t} ...)");
    assert!(line.contains(" acegikmo "), "{line}");
    assert!(s.is_none() && err.contains("division by zero") && err.contains("ops.c:20"), "{err}");
}

#[test]
fn a_variable_s_updates_in_either_spelling_change_no_result() {
    // Every `int` operation as `x = x op y;` and as `x op= y;`, with y a variable and a
    // constant, in a loop; against the instructions dispatched alone: the same output
    // and statistics at several quanta, and the same failure (its line and time) when
    // the divisor reaches zero (z counts 4, 3, 2, 1, 0: line 10 fails).
    let src = "void main() {
    int i, x, y, z, s;
    x = 7; y = 3; s = 0; z = 4;
    for (i = 0; i < 40; i++) {
        x = x + y; x += 5; x = x * 3; x *= y; x = x - i; x -= 2; x = x % 1000; x %= 997;
        x = x & 4095; x &= 4095; x = x | 3; x |= 8; x = x ^ i; x ^= 21; x = x << 1; x <<= 1;
        x = x >> 2; x >>= 1; x = x / 2; x /= 1; s += x; y = y + 1; y %= 7;
    }
    printf(\"%d %d %d\\n\", x, y, s);
    for (i = 0; i < 9; i++) { s = s / z; s /= 1; z = z - 1; }
}";
    let m = crate::lang::compile("upd.c", src, &crate::lang::FrontOptions::default()).unwrap().module;
    let upd = super::block::Step::all(&m.code).iter().filter(|s| matches!(s.x, super::block::Op::UpdI { .. })).count();
    assert!(upd >= 20, "{upd} updates translated");
    for q in [1, 7 * U / 10, U, 3 * U, 10 * U, 1000 * U] {
        let cfg = SimConfig { quantum: q, ..SimConfig::default() };
        for observe in [false, true] {
            let translated = run_fusing_lines(&m, cfg.clone(), true, observe);
            assert_eq!(translated, run_fusing_lines(&m, cfg.clone(), false, observe), "quantum {q} {observe}");
        }
    }
    // The same arithmetic in Rust (wrapping as the machine's `int`).
    let (mut x, mut y, mut s) = (7i32, 3i32, 0i32);
    for i in 0..40 {
        x = x.wrapping_add(y).wrapping_add(5).wrapping_mul(3).wrapping_mul(y);
        x = x.wrapping_sub(i).wrapping_sub(2) % 1000 % 997;
        x = ((x & 4095 & 4095) | 3 | 8) ^ i ^ 21;
        x = x.wrapping_shl(1).wrapping_shl(1) >> 2 >> 1;
        x /= 2;
        s = s.wrapping_add(x);
        y = (y + 1) % 7;
    }
    let (st, out, err, _) = run_fusing_lines(&m, SimConfig::default(), true, false);
    assert_eq!(out.lines().next(), Some(format!("{x} {y} {s}").as_str()));
    assert!(st.is_none() && err.contains("division by zero") && err.contains("upd.c:10"), "{err}");
}

#[test]
fn elements_given_variables_and_constants_change_no_result() {
    // Elements of every scalar type given a variable, a constant and a converted
    // constant, then an index past the end (i reaches 8 in a[8] of line 8): against the
    // instructions dispatched alone, the same output, statistics and failure.
    let src = "int a[8]; char c[8]; double d[8]; float f[8]; long l[8];
void main() {
    int i, v, s; double x;
    v = 300; x = 2.5; s = 0;
    for (i = 0; i < 8; i++) { a[i] = v; c[i] = 'a'; c[i] = v; d[i] = x; d[i] = 1; f[i] = x; l[i] = v; v = v + i; }
    for (i = 0; i < 8; i++) s = s + a[i] + c[i] + l[i];
    printf(\"%d %d %.2f %.2f\\n\", s, c[3], d[2] + f[5], x);
    for (i = 0; i < 9; i++) a[i] = 7;
}";
    let m = crate::lang::compile("elem.c", src, &crate::lang::FrontOptions::default()).unwrap().module;
    let sets =
        super::block::Step::all(&m.code).iter().filter(|s| matches!(s.x, super::block::Op::ElemSet { .. })).count();
    assert!(sets >= 6, "{sets} element stores translated");
    for q in [1, 7 * U / 10, U, 3 * U, 1000 * U] {
        let cfg = SimConfig { quantum: q, ..SimConfig::default() };
        for observe in [false, true] {
            let translated = run_fusing_lines(&m, cfg.clone(), true, observe);
            assert_eq!(translated, run_fusing_lines(&m, cfg.clone(), false, observe), "quantum {q} {observe}");
        }
    }
    // a[i] = 300 + 0 + 1 + ... + (i - 1); c[i] = 300 + ... as a char (the last store);
    // l as a; d[i] = 1 (the last store); f[i] = 2.5.
    let (mut s, mut v) = (0i32, 300i32);
    let mut c = [0u8; 8];
    for i in 0..8 {
        c[i as usize] = v as u8;
        s += v + i32::from(v as u8) + v;
        v += i;
    }
    let (st, out, err, _) = run_fusing_lines(&m, SimConfig::default(), true, false);
    assert_eq!(out.lines().next(), Some(format!("{s} {} 3.50 2.50", c[3]).as_str()));
    assert!(st.is_none() && err.contains("elem.c:8"), "{err}");
}

#[test]
fn translated_runs_of_fixtures_equal_untranslated_ones() {
    // Programs whose processes read and write words of other processors (a forall over a
    // mesh, a spinlock counter) and MPI ranks (each with its own globals): an operation
    // touching another processor's word is run by the interpreter, which makes it a
    // remote access. Programs of calls and returns (recursion, the C library's string
    // functions, whose time goes to the program's call site, pointers, structures).
    // Everything must equal the untranslated run, at several quanta, with and without
    // the busy time per line and the calls' enter and leave events.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let opts = crate::lang::FrontOptions { include_dirs: vec![dir.join("include")], ..Default::default() };
    let compile = |name: &str| {
        let src = std::fs::read_to_string(dir.join(name)).unwrap();
        crate::lang::compile(name, &src, &opts).unwrap().module
    };
    let runs = [
        ("forall_mesh.c", 1),
        ("spinlock_counter.c", 1),
        ("matmul.c", 1),
        ("mpi/coll.c", 7),
        ("mpi/p2p.c", 4),
        ("recursion.c", 1),
        ("strings.c", 1),
        ("pointers.c", 1),
        ("structs.c", 1),
    ];
    for (name, ranks) in runs {
        let m = compile(name);
        // On processors of the reference speed the sequential ticks of a run of stretches
        // are its clock's advance (added once); at another speed they are summed stretch
        // by stretch: both must equal the plain run's. (The speeds cover every processor
        // these programs use, at most 64.)
        for (q, speed) in [(U, U), (3 * U, U), (10 * U, U), (100 * U, U), (10 * U, 3 * U / 2)] {
            let cfg = SimConfig { quantum: q, ranks, speeds: vec![speed; 4096], ..SimConfig::default() };
            for observe in [false, true] {
                let translated = run_fusing_lines(&m, cfg.clone(), true, observe);
                let plain = run_fusing_lines(&m, cfg.clone(), false, observe);
                assert_eq!(translated, plain, "{name} quantum {q} speed {speed} {observe}");
                if observe && name == "recursion.c" {
                    assert!(translated.3.iter().any(|e| e.starts_with("enter")), "the calls are reported");
                }
                if name != "matmul.c" || ranks > 1 {
                    continue;
                }
                // The seed's matmul writes to other processors' words (63 remote writes).
                let s = translated.0.as_ref().expect("matmul runs");
                assert!(s.remote_writes > 0, "{s:?}");
            }
        }
    }
}

/// A small generator for the differential fuzz below (xorshift64*, fixed by its seed).
struct Xs(u64);

impl Xs {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// `i` with its operands (or, for an operation, its kind among those of the same shape)
/// changed the way a slip in a program changes them: a constant off by one, zero, -1 or
/// an extreme; a variable's neighbour or another depth; an array bound dropped or off by
/// one; another type for a store, conversion or increment; another jump target, callee
/// or result count, one argument more or fewer for `printf`. The shapes the translation
/// fuses stay shapes, with operands their fast paths must check (a negative index, a
/// word of another type, a divisor of 0).
fn slip(g: &mut Xs, i: Instr, code: usize, funcs: usize) -> Instr {
    const INT2: [Instr; 16] = [
        AddI {},
        SubI {},
        MulI {},
        DivI {},
        ModI {},
        BitAnd {},
        BitOr {},
        BitXor {},
        Shl {},
        Shr {},
        EqI {},
        NeI {},
        LtI {},
        LeI {},
        GtI {},
        GeI {},
    ];
    const DBL2: [Instr; 10] = [AddD {}, SubD {}, MulD {}, DivD {}, EqD {}, NeD {}, LtD {}, LeD {}, GtD {}, GeD {}];
    const TYPES: [Scalar; 5] = [Scalar::Int, Scalar::Float, Scalar::Char, Scalar::Double, Scalar::Long];
    let int = |g: &mut Xs, v: i32| match g.below(7) {
        0 => 0,
        1 => -1,
        2 => v.wrapping_add(1),
        3 => v.wrapping_sub(1),
        4 => i32::MAX,
        5 => i32::MIN,
        _ => v.wrapping_neg(),
    };
    let off = |g: &mut Xs, o: u32| match g.below(4) {
        0 => o.saturating_sub(1),
        1 => o + 1,
        2 => o + 2 + g.below(8) as u32,
        _ => 0,
    };
    let depth = |g: &mut Xs, d: u8| if g.below(4) == 0 { g.below(3) as u8 } else { d };
    let ty = |g: &mut Xs| TYPES[g.below(TYPES.len())];
    match i {
        PushI { v } => PushI { v: int(g, v) },
        LdVal { depth: d, off: o } => LdVal { depth: depth(g, d), off: off(g, o) },
        LdAddr { depth: d, off: o } => LdAddr { depth: depth(g, d), off: off(g, o) },
        Index { size, len } => match g.below(4) {
            0 => Index { size, len: 0 },
            1 => Index { size, len: len.saturating_sub(1) },
            2 => Index { size, len: len + 1 },
            _ => Index { size: size.max(2) - 1, len },
        },
        IncDec { delta, pre, .. } => IncDec { ty: ty(g), delta: int(g, delta), pre },
        Store { keep, .. } => Store { ty: ty(g), keep },
        Convert { .. } => Convert { to: ty(g) },
        Jump { .. } => Jump { target: g.below(code) as u32 },
        JumpIfFalse { .. } => JumpIfFalse { target: g.below(code) as u32 },
        JumpIfTrue { .. } => JumpIfTrue { target: g.below(code) as u32 },
        Call { .. } => Call { func: g.below(funcs) as u32 },
        Ret { .. } => Ret { n: g.below(3) as u32 },
        Pop { n } => Pop { n: if g.below(2) == 0 { n + 1 } else { n.saturating_sub(1) } },
        Printf { argc } => Printf { argc: if g.below(2) == 0 { argc + 1 } else { argc.saturating_sub(1) } },
        Sprintf { argc } => Sprintf { argc: if g.below(2) == 0 { argc + 1 } else { argc.saturating_sub(1) } },
        LdIndirect { depth: d, off: o } => LdIndirect { depth: depth(g, d), off: off(g, o) },
        x if INT2.contains(&x) => INT2[g.below(INT2.len())],
        x if DBL2.contains(&x) => DBL2[g.below(DBL2.len())],
        x => x,
    }
}

/// Runs mutants of the fixtures (the MPI ones on four ranks) and of the benchmark
/// suite's programs in all their spellings (one to three instructions of each changed by [`slip`]; those the
/// verifier refuses are skipped), each translated and untranslated at two quanta, on one
/// processor and on sixteen, under step and time limits: statistics, output and error
/// must be the same (the translation charges what the instructions it stands for charge
/// and fails where they do). Returns the mutants made and those run.
fn translation_campaign(seconds: f64, max_mutants: u64, seed: u64) -> (u64, u64) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixtures = root.join("fixtures");
    let opts = crate::lang::FrontOptions { include_dirs: vec![fixtures.join("include")], ..Default::default() };
    // Each program with its ranks (MPI programs run on four, the others on one).
    let mut sources: Vec<(std::path::PathBuf, u32)> = Vec::new();
    let mut dirs = vec![(fixtures.clone(), 1), (root.join("scripts/bench/suite"), 1), (fixtures.join("mpi"), 4)];
    // The suite's programs in other spellings (pointer walks, local arrays, ...).
    let mut spellings: Vec<_> =
        std::fs::read_dir(root.join("scripts/bench/spellings")).unwrap().map(|e| e.unwrap().path()).collect();
    spellings.sort();
    dirs.extend(spellings.into_iter().map(|d| (d, 1)));
    for (dir, ranks) in dirs {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "c"))
            // fileio.c writes files in the working directory.
            .filter(|p| !p.ends_with("fileio.c"))
            .collect();
        files.sort();
        sources.extend(files.into_iter().map(|f| (f, ranks)));
    }
    let modules: Vec<(String, Module, u32)> = sources
        .iter()
        .filter_map(|(p, ranks)| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let src = std::fs::read_to_string(p).unwrap();
            crate::lang::compile(&name, &src, &opts).ok().map(|c| (name, c.module, *ranks))
        })
        .collect();
    assert!(modules.len() >= 40, "only {} programs compiled", modules.len());
    let mut g = Xs(seed.max(1));
    let start = std::time::Instant::now();
    let (mut made, mut ran) = (0u64, 0u64);
    while made < max_mutants && start.elapsed().as_secs_f64() < seconds {
        let (name, base, ranks) = &modules[g.below(modules.len())];
        let mut m = base.clone();
        let mut changed = Vec::new();
        for _ in 0..1 + g.below(3) {
            let at = g.below(m.code.len());
            m.code[at] = slip(&mut g, m.code[at], m.code.len(), m.functions.len());
            changed.push((at, m.code[at]));
        }
        made += 1;
        if crate::vcode::cod::verify(&m).is_err() {
            continue;
        }
        ran += 1;
        let pprocs = if made % 2 == 0 { 1 } else { 16 };
        for quantum in [U, 10 * U] {
            let cfg = SimConfig {
                pprocs,
                ranks: *ranks,
                quantum,
                max_steps: Some(30_000),
                max_time: Some(1_000_000 * U),
                max_procs: 64,
                max_memory: 1 << 20,
                max_stack_words: 1 << 14,
                ..SimConfig::default()
            };
            let observe = made % 5 == 0;
            let translated = run_fusing_lines(&m, cfg.clone(), true, observe);
            let plain = run_fusing_lines(&m, cfg, false, observe);
            assert_eq!(
                translated, plain,
                "{name} with {changed:?}, {pprocs} processors, quantum {quantum}: the translated run differs"
            );
        }
    }
    (made, ran)
}

/// A mutant the campaign found: in `late.c` the count of receive patterns the MPI
/// library passes to its match becomes 2^31 - 1. The match reads the patterns one by one
/// and stops at the first outside the pool, a bad address; it used to size its list by
/// the count first and end the process asking for 25 GB.
#[test]
fn a_match_of_2_31_patterns_is_a_bad_address_not_25_gb() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let opts = crate::lang::FrontOptions { include_dirs: vec![dir.join("include")], ..Default::default() };
    let src = std::fs::read_to_string(dir.join("mpi/late.c")).unwrap();
    let mut m = crate::lang::compile("late.c", &src, &opts).unwrap().module;
    assert_eq!(m.code[432], PushI { v: 1 }, "the library's pattern count is where it was");
    m.code[432] = PushI { v: i32::MAX };
    m.code[556] = LdVal { depth: 1, off: 0 };
    crate::vcode::cod::verify(&m).unwrap();
    let cfg = SimConfig { pprocs: 16, ranks: 4, ..SimConfig::default() };
    let (stats, _, err, _) = run_fusing_lines(&m, cfg, true, false);
    assert!(stats.is_none() && err.contains("bad address"), "{err}");
}

#[test]
fn mutated_programs_run_the_same_translated_and_untranslated() {
    // A fixed seed and count, so that the test is the same on every machine (it stops
    // early only past a minute, on a very slow one).
    let (made, ran) = translation_campaign(60.0, 300, 2026);
    assert!(ran >= 100, "only {ran} of {made} mutants passed the verifier");
}

/// The same campaign for as long as `CPPE_FUZZ_SECS` says (default 600 s), from seed
/// `CPPE_FUZZ_SEED` (default 7): `cargo test --release --lib -- --ignored translated`.
#[test]
#[ignore]
fn fuzz_translated_equals_untranslated() {
    let secs = std::env::var("CPPE_FUZZ_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(600.0);
    let seed = std::env::var("CPPE_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(7);
    let (made, ran) = translation_campaign(secs, u64::MAX, seed);
    println!("fuzz_translated_equals_untranslated: {made} mutants, {ran} run both ways in {secs} s, none differed");
}

#[test]
fn a_join_takes_the_earliest_pending_end_time_however_many_are_pending() {
    use super::EndTimes;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    // Pushed out of order, with a tie and more than the two kept in the block: a join
    // takes them in ascending order, as the heap it replaces did. (`rest` stands for the
    // heap of the process's `Rare` record, made when first needed.)
    let mut rest: Option<BinaryHeap<Reverse<crate::time::Ticks>>> = None;
    let mut e = EndTimes::NONE;
    assert_eq!(e.peek(), None);
    for t in [50, 20, 90, 20, 10, 70] {
        e.push(t, || rest.get_or_insert_with(Default::default));
    }
    assert_eq!(e.peek(), Some(10));
    let mut got = Vec::new();
    while let Some(t) = e.pop(rest.as_mut()) {
        got.push(t);
        if t == 20 && got.len() == 2 {
            // A child ending between two joins, earlier than every pending time.
            e.push(5, || rest.get_or_insert_with(Default::default));
        }
    }
    assert_eq!(got, [10, 20, 5, 20, 50, 70, 90]);
    // Two pending, the binary tree's case: no heap is made.
    let mut rest: Option<BinaryHeap<Reverse<crate::time::Ticks>>> = None;
    let mut e = EndTimes::NONE;
    e.push(3, || rest.get_or_insert_with(Default::default));
    e.push(1, || rest.get_or_insert_with(Default::default));
    assert!(rest.is_none());
    assert_eq!((e.pop(rest.as_mut()), e.pop(rest.as_mut()), e.pop(rest.as_mut())), (Some(1), Some(3), None));
}

#[test]
fn a_display_of_any_length_reads_and_writes_its_entries_and_refuses_depths_past_it() {
    use super::Display;
    // Two entries (every C program's): in the block, no heap.
    let mut d = Display::new(&[7, 9]);
    assert!(d.far.is_none());
    assert_eq!((d.len(), d.get(0), d.get(1), d.get(2)), (2, Some(7), Some(9), None));
    assert_eq!(d.first_two(), (7, 9));
    *d.get_mut(1).unwrap() = 11;
    assert!(d.get_mut(2).is_none());
    assert_eq!(d.to_vec(), [7, 11]);
    // Fewer (a module without functions at depth 1, which the verifier refuses): padded
    // to two with zeros.
    let d = Display::new(&[5]);
    assert_eq!((d.len(), d.get(0), d.get(1), d.get(2), d.first_two()), (2, Some(5), Some(0), None, (5, 0)));
    assert_eq!(Display::zeros(1).to_vec(), [0, 0]);
    // Three (a function nested in another): the third on the heap, readable and
    // writable, the fourth refused.
    let mut d = Display::zeros(3);
    assert_eq!(d.to_vec(), [0, 0, 0]);
    *d.get_mut(2).unwrap() = 4;
    *d.get_mut(0).unwrap() = 1;
    assert_eq!((d.len(), d.get(2), d.get(3), d.first_two()), (3, Some(4), None, (1, 0)));
    assert!(d.get_mut(3).is_none());
    let d = Display::new(&[1, 2, 3, 4]);
    assert_eq!((d.len(), d.get(3), d.get(4), d.to_vec()), (4, Some(4), None, vec![1, 2, 3, 4]));
    assert!(Display::zeros(2).far.is_none());
}
