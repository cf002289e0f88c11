//! Mutation fuzzing of the compiler: fixture programs are mutated (bytes and tokens
//! deleted, duplicated, swapped, replaced by interesting ones) and compiled; every input
//! must give a module or diagnostics, never a panic or a hang. The quick run is part of
//! the suite; `CPPE_FUZZ_SECS=600 cargo test --release --test it fuzz_compiler -- --ignored`
//! runs the long campaign (scripts/fuzz.sh does this for every target).
use crate::harness::*;
use cppe::lang::{compile, FrontOptions};
use std::time::{Duration, Instant};

/// A small deterministic generator (SplitMix64) so a failure can be replayed by seed.
struct Gen(u64);
impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const INTERESTING: &[&str] = &[
    "{", "}", "(", ")", "[", "]", ";", ",", "=", "*", "&", "->", ".", "forall", "fork", "join", "channel", "arch",
    "phyArch", "struct", "#define X X\n", "#include \"cpc.h\"\n", "#if", "#endif\n", "/*", "\"", "'", "\\", "from",
    "to", "grouping", "0x7fffffff", "2147483648", "1e40", "return", "break", "sizeof", "?", ":", "spinlock", "lock(",
    "int", "float", "char", "void", "main", "\n", "99999999999999999999", "'\\x", "##", "#", "%",
];

fn mutate(g: &mut Gen, src: &str) -> String {
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
    for dir in [fixtures(), fixtures().join("diagnostics"), fixtures().join("listings")] {
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
    let opts = FrontOptions { include_dirs: vec![fixtures().join("include")], env_dirs: vec![] };
    while start.elapsed() < Duration::from_secs(seconds) {
        let base = &corpus[g.below(corpus.len())];
        let input = mutate(&mut g, base);
        let t = Instant::now();
        if let Ok(c) = compile("fuzz.c", &input, &opts) {
            let bytes = cppe::vcode::cod::encode(&c.module);
            assert!(matches!(cppe::vcode::cod::decode(&bytes), Ok(ref m) if *m == c.module), "round trip of fuzz input:\n{input}");
        }
        assert!(t.elapsed() < Duration::from_secs(5), "compile took {:?} on:\n{input}", t.elapsed());
        execs += 1;
    }
    execs
}

#[test]
fn fuzz_compiler_quick() {
    let n = campaign(3, 1);
    assert!(n > 100, "only {n} executions in 3 s");
}

#[test]
#[ignore]
fn fuzz_compiler() {
    let secs = std::env::var("CPPE_FUZZ_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(600);
    let seed = std::env::var("CPPE_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(7);
    let n = campaign(secs, seed);
    println!("fuzz_compiler: {n} executions in {secs} s, 0 crashes");
}
