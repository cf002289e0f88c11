//! Mutation fuzzing of the compiler: fixture programs are mutated (bytes and tokens
//! deleted, duplicated, swapped, replaced by interesting ones) and compiled; every input
//! must give a module or diagnostics, never a panic or a hang. The quick run is part of
//! the suite; `CPPE_FUZZ_SECS=600 cargo test --release --test it fuzz_compiler -- --ignored`
//! runs the long campaign (scripts/fuzz.sh does this for every target).
use crate::harness::*;
use cppe::lang::{compile, FrontOptions};
use std::time::{Duration, Instant};

/// A small deterministic generator (SplitMix64) so a failure can be replayed by seed.
pub struct Gen(pub u64);
impl Gen {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const INTERESTING: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    "=",
    "*",
    "&",
    "->",
    ".",
    "forall",
    "fork",
    "join",
    "channel",
    "arch",
    "phyArch",
    "struct",
    "#define X X\n",
    "#include \"cpc.h\"\n",
    "#if",
    "#endif\n",
    "/*",
    "\"",
    "'",
    "\\",
    "from",
    "to",
    "grouping",
    "0x7fffffff",
    "2147483648",
    "1e40",
    "return",
    "break",
    "sizeof",
    "?",
    ":",
    "spinlock",
    "lock(",
    "int",
    "float",
    "char",
    "void",
    "main",
    "\n",
    "99999999999999999999",
    "'\\x",
    "##",
    "#",
    "%",
    "typedef int T;\n",
    "T ",
    "enum { A, B = 3 }",
    "goto L;",
    "L:",
    "static ",
    "extern ",
    "const ",
    "union",
    "unsigned",
    "double",
    "...",
    "#define S(x) #x\n",
    "#define C(a, b) a ## b\n",
    "__LINE__",
    "#pragma once\n",
    "#include <stdio.h>\n",
    "#include <string.h>\n",
    "malloc(",
    "free(",
    "strlen(",
    "memset(",
    "NULL",
    "(int (*)(int))",
    "{ .x = 1 }",
];

pub fn mutate_source(g: &mut Gen, src: &str) -> String {
    let mut s: Vec<u8> = src.as_bytes().to_vec();
    for _ in 0..1 + g.below(8) {
        if s.is_empty() {
            s.extend_from_slice(b"void main() {}");
        }
        let at = g.below(s.len());
        match g.below(6) {
            0 => {
                let len = 1 + g.below(16).min(s.len() - at - 1 + 1);
                s.drain(at..(at + len).min(s.len()));
            }
            1 => {
                let ins = INTERESTING[g.below(INTERESTING.len())].as_bytes();
                s.splice(at..at, ins.iter().copied());
            }
            2 => {
                let len = g.below(40).min(s.len() - at);
                let chunk: Vec<u8> = s[at..at + len].to_vec();
                let to = g.below(s.len());
                s.splice(to..to, chunk);
            }
            3 => s[at] = (g.next() & 0x7f) as u8,
            4 => {
                let b = at;
                let e = g.below(s.len());
                s.swap(b, e);
            }
            _ => {
                // Deep nesting.
                let depth = g.below(400);
                let open: Vec<u8> = std::iter::repeat_n(b'(', depth).collect();
                s.splice(at..at, open);
            }
        }
    }
    String::from_utf8_lossy(&s).into_owned()
}

fn corpus() -> Vec<String> {
    let mut v = Vec::new();
    let conformance = root().join("tests").join("conformance");
    for dir in [fixtures(), fixtures().join("diagnostics"), fixtures().join("listings"), conformance] {
        for f in files_with_ext(&dir, "c") {
            v.push(std::fs::read_to_string(f).unwrap());
        }
    }
    v
}

fn campaign(seconds: u64, seed: u64) -> u64 {
    let corpus = corpus();
    assert!(!corpus.is_empty());
    let mut g = Gen(seed);
    let start = Instant::now();
    let mut execs = 0u64;
    let opts = FrontOptions {
        include_dirs: vec![fixtures().join("include")],
        env_dirs: vec![],
        leak_syntax_tree: false,
        sandbox: None,
        error_limit: None,
    };
    while start.elapsed() < Duration::from_secs(seconds) {
        let base = &corpus[g.below(corpus.len())];
        let input = mutate_source(&mut g, base);
        let t = Instant::now();
        if let Ok(c) = compile("fuzz.c", &input, &opts) {
            // The module read back writes the same bytes and shows the same (a constant
            // NaN, as a program's `0.0 / 0.0` folds to, is never `==` itself, so the
            // modules are not compared with `==`).
            let bytes = cppe::vcode::cod::encode(&c.module);
            let back = cppe::vcode::cod::decode(&bytes);
            assert!(
                matches!(back, Ok(ref m) if cppe::vcode::cod::encode(m) == bytes
                    && format!("{m:?}") == format!("{:?}", c.module)),
                "round trip of fuzz input:\n{input}"
            );
        }
        assert!(t.elapsed() < Duration::from_secs(5), "compile took {:?} on:\n{input}", t.elapsed());
        execs += 1;
    }
    execs
}

#[test]
fn fuzz_compiler_quick() {
    // Three seconds of mutated programs: none crashes the compiler or fails the `.cod`
    // round trip (how many run is a machine's speed, not a property: not checked).
    let n = campaign(3, 1);
    assert!(n > 0, "no input compiled in 3 s");
}

#[test]
#[ignore]
fn fuzz_compiler() {
    let secs = std::env::var("CPPE_FUZZ_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(600);
    let seed = std::env::var("CPPE_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(7);
    let n = campaign(secs, seed);
    println!("fuzz_compiler: {n} executions in {secs} s, 0 crashes");
}

// ---------------------------------------------------------------------------------------
// The simulator on mutated programs: an instruction of a compiled fixture is replaced by
// another with random operands; modules the verifier accepts are run under step, time,
// process and memory limits. Any outcome but a panic is fine (a runtime error is the
// expected one).

pub fn random_instr(g: &mut Gen, m: &cppe::vcode::Module) -> cppe::vcode::Instr {
    use cppe::vcode::{Instr, MathFn, Scalar};
    let small = |g: &mut Gen| (g.next() % 40) as u32;
    let int = |g: &mut Gen| match g.below(4) {
        0 => 0,
        1 => -1,
        2 => i32::MAX,
        _ => (g.next() % 200) as i32 - 100,
    };
    let nf = m.functions.len().max(1);
    let nc = m.code.len().max(1);
    match g.below(24) {
        0 => Instr::PushI { v: int(g) },
        1 => Instr::PushF { v: f32::from_bits(g.next() as u32) },
        2 => Instr::Pop { n: small(g) },
        3 => Instr::Dup {},
        4 => Instr::Swap {},
        5 => Instr::LdAddr { depth: g.below(3) as u8, off: small(g) },
        6 => Instr::LdVal { depth: g.below(3) as u8, off: small(g) },
        7 => Instr::LdIndirect { depth: g.below(3) as u8, off: small(g) },
        8 => Instr::Dereference {},
        9 => Instr::Store { ty: Scalar::Int, keep: g.below(2) == 0 },
        10 => Instr::Index { size: 1 + small(g), len: small(g) },
        11 => Instr::DivI {},
        12 => Instr::ModI {},
        13 => Instr::Jump { target: g.below(nc) as u32 },
        14 => Instr::JumpIfFalse { target: g.below(nc) as u32 },
        15 => Instr::Call { func: g.below(nf) as u32 },
        16 => Instr::Ret { n: small(g) % 3 },
        17 => Instr::Fork { func: g.below(nf) as u32, chans: small(g) % 3, vproc: g.below(2) == 0 },
        18 => Instr::Send { n: 1 + small(g) % 3 },
        19 => Instr::Recv { n: 1 + small(g) % 3 },
        20 => Instr::Lock {},
        21 => Instr::Printf { argc: small(g) % 4 },
        22 => Instr::Math { f: MathFn::ALL[g.below(MathFn::ALL.len())] },
        _ => Instr::CopyBlock { n: small(g) },
    }
}

fn sim_campaign(seconds: u64, seed: u64) -> (u64, u64) {
    use cppe::net::{NetParams, ShortestPath};
    use cppe::sim::{Io, NetThread, SimConfig, Simulator, Stats};
    let opts = FrontOptions {
        include_dirs: vec![fixtures().join("include")],
        env_dirs: vec![],
        leak_syntax_tree: false,
        sandbox: None,
        error_limit: None,
    };
    let mut modules = Vec::new();
    for f in files_with_ext(&fixtures(), "c") {
        if f.ends_with("fileio.c") {
            continue; // writes files in the working directory
        }
        let text = std::fs::read_to_string(&f).unwrap();
        modules.push(compile(&f.display().to_string(), &text, &opts).unwrap().module);
    }
    let mut g = Gen(seed);
    let start = Instant::now();
    let (mut runs, mut verified) = (0u64, 0u64);
    while start.elapsed() < Duration::from_secs(seconds) {
        let mut m = modules[g.below(modules.len())].clone();
        for _ in 0..1 + g.below(3) {
            let at = g.below(m.code.len());
            m.code[at] = random_instr(&mut g, &m);
        }
        runs += 1;
        if cppe::vcode::cod::verify(&m).is_err() {
            continue;
        }
        verified += 1;
        let cfg = SimConfig {
            pprocs: 16,
            max_steps: Some(20_000),
            max_time: Some(2_000_000),
            max_procs: 64,
            max_memory: 1 << 20,
            max_stack_words: 1 << 14,
            ..SimConfig::default()
        };
        let t = Instant::now();
        if runs % 2 == 0 {
            let net = ShortestPath::new(NetParams::default(), cppe::topo::Topology::parse("line:16").unwrap());
            let io = Io {
                stdin: Box::new(std::io::empty()),
                stdout: Box::new(std::io::sink()),
                stderr: Box::new(std::io::sink()),
            };
            if let Ok(mut sim) = Simulator::new(&m, cfg, Box::new(net), io) {
                let _ = sim.run();
            }
        } else {
            // Every other mutant runs on the wormhole network with and without the
            // network's own thread: the two runs must end the same way.
            let run = |thread: NetThread| {
                let topo = cppe::topo::Topology::parse("mesh:4x4").unwrap();
                let net = cppe::net::build(&NetParams::default(), &topo, &[]).unwrap();
                let io = Io {
                    stdin: Box::new(std::io::empty()),
                    stdout: Box::new(std::io::sink()),
                    stderr: Box::new(std::io::sink()),
                };
                let cfg = SimConfig { net_thread: thread, ..cfg.clone() };
                Simulator::new(&m, cfg, net, io).map(|mut sim| match sim.run() {
                    Ok(s) => format!("{:?}", Stats { host_time: Default::default(), ..s }),
                    Err(e) => e.to_string(),
                })
            };
            let (a, b) = (run(NetThread::Off), run(NetThread::Always));
            assert_eq!(a.is_ok(), b.is_ok());
            if let (Ok(a), Ok(b)) = (a, b) {
                assert_eq!(a, b, "the network thread changed the run");
            }
        }
        assert!(t.elapsed() < Duration::from_secs(5), "simulation took {:?}", t.elapsed());
    }
    (runs, verified)
}

#[test]
fn fuzz_simulator_quick() {
    let (runs, verified) = sim_campaign(3, 11);
    assert!(verified > 20, "only {verified} of {runs} mutants passed the verifier");
}

#[test]
#[ignore]
fn fuzz_simulator() {
    let secs = std::env::var("CPPE_FUZZ_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(600);
    let seed = std::env::var("CPPE_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(7);
    let (runs, verified) = sim_campaign(secs, seed);
    println!("fuzz_simulator: {runs} mutants, {verified} verified and run in {secs} s, 0 crashes");
}
