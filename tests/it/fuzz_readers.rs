//! One named fuzz target per reader: CPC source (`cpc`), `.cod` (`cod`), run records
//! (`record`: analysed as cpperf does and converted by every cptrace writer), PICL
//! (`picl`), SDDF (`sddf`), mapping strings (`mapping`), machine files (`machine`), map
//! files (`mapfile`), cost files (`cost`), debugger commands (`debug`), and the simulator
//! on mutated verified programs (`sim`).
//!
//! Each target mutates inputs from its seed corpus (files of `fixtures/`, plus every
//! earlier crashing input kept in `fixtures/fuzz/TARGET/`) with a seeded generator and
//! feeds them to the reader and what consumes its result. Every input must give a value
//! or a typed error: a panic is a crash, an input that takes longer than [`SLOW`] is a
//! crash too (a hang or a quadratic blow-up), and a watchdog ends the process if one
//! input runs longer than [`HANG`]. Crashing inputs are written to `CPPE_FUZZ_OUT`
//! (default `target/fuzz-crashes`) for replay; keep them in `fixtures/fuzz/TARGET/`,
//! where [`every_kept_crash_input_is_handled`] replays them on every `cargo test`.
//!
//! `scripts/fuzz.sh SECONDS [TARGET...]` runs the long campaign (release build) and
//! prints one report line per target; the quick runs below (one second each) are part
//! of the suite.
use crate::fuzz::Gen;
use crate::harness::*;
use cppe::lang::{compile, FrontOptions};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, Once, OnceLock};
use std::time::{Duration, Instant};

/// One input slower than this is reported as a crash (a hang or a blow-up). Inputs are
/// at most [`MAX_INPUT`] bytes; every reader here is linear or n log n in its input, so a
/// release build handles one in milliseconds.
const SLOW: Duration = Duration::from_secs(if cfg!(debug_assertions) { 20 } else { 3 });
/// The watchdog ends the process when one input runs longer than this.
const HANG: Duration = Duration::from_secs(if cfg!(debug_assertions) { 120 } else { 30 });
/// Mutated inputs are cut to this size.
const MAX_INPUT: usize = 256 * 1024;

/// Every target, in report order.
pub const TARGETS: &[&str] =
    &["cpc", "cod", "record", "picl", "picl1", "sddf", "mapping", "machine", "mapfile", "cost", "work", "debug", "sim"];

/// The result of one campaign.
#[derive(Debug, Clone, Copy)]
pub struct Report {
    pub execs: u64,
    pub crashes: u64,
}

// ---------------------------------------------------------------------------------------
// Seed corpora

fn read_dir_files(dir: &Path, ext: Option<&str>) -> Vec<Vec<u8>> {
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut paths: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && ext.is_none_or(|x| p.extension().is_some_and(|e| e == x)))
        .collect();
    paths.sort();
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

fn front() -> FrontOptions {
    FrontOptions {
        include_dirs: vec![fixtures().join("include")],
        env_dirs: vec![],
        leak_syntax_tree: false,
        sandbox: None,
        error_limit: None,
    }
}

/// Compiles a fixture program (the corpora of `.cod`, records, costs and sessions).
fn module_of(path: &Path) -> cppe::vcode::Module {
    let text = std::fs::read_to_string(path).expect("fixture source");
    compile(&path.display().to_string(), &text, &front()).unwrap_or_else(|e| panic!("{e}")).module
}

/// Run records of a few fixture programs, simulated through the library.
fn records() -> &'static Vec<Vec<u8>> {
    static R: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    R.get_or_init(|| {
        let dir = tempdir("fuzz-records");
        let mut v = Vec::new();
        for (name, topo) in [("ring_token.c", "ring:4"), ("oddeven_sort.c", "mesh:2x2"), ("master_worker.c", "line:3")]
        {
            let src = fixtures().join(name);
            let cod = dir.join(name).with_extension("cod");
            let cpt = dir.join(name).with_extension("cpt");
            let out = run_in(&dir, "cpcc", &[src.to_str().unwrap(), "-o", cod.to_str().unwrap()], b"");
            assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
            let args = [cod.to_str().unwrap(), "--topology", topo, "--stats", "none", "-t", cpt.to_str().unwrap()];
            let out = run_in(&dir, "cpss", &args, b"");
            assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
            v.push(std::fs::read(&cpt).expect("record"));
        }
        let _ = std::fs::remove_dir_all(&dir);
        v
    })
}

fn corpus(target: &str) -> Vec<Vec<u8>> {
    let f = fixtures();
    let mut v: Vec<Vec<u8>> = match target {
        "cpc" => {
            let mut v = read_dir_files(&f, Some("c"));
            v.extend(read_dir_files(&f.join("diagnostics"), Some("c")));
            v.extend(read_dir_files(&f.join("listings"), Some("c")));
            v
        }
        "cod" => {
            let mut v = read_dir_files(&f.join("cod/v1.0"), Some("cod"));
            for name in ["arith.c", "structs.c", "switch.c", "ring_token.c"] {
                v.push(cppe::vcode::cod::encode(&module_of(&f.join(name))));
            }
            v
        }
        "record" => records().clone(),
        "picl" => {
            let mut v = read_dir_files(&f.join("traces"), Some("trf"));
            v.push(b"-3 -901 0.0 0 0 0\n-4 -901 1.5 0 0 0\n".to_vec());
            v.push(b"-2 -989 0.000010 0 0 0\n-3 -901 0.000010 0 0 0\n-4 -901 0.000025 0 0 0\n".to_vec());
            v
        }
        "picl1" => read_dir_files(&f.join("traces"), Some("picl1")),
        "sddf" => read_dir_files(&f.join("traces"), Some("sddf")),
        "mapping" => [
            "torus2mesh(x, y) = [x <= (#1-1)/2 ? 2*x : 2*(#1-x)-1, y<=(#2-1)/2 ? 2*y : 2*(#2-y)-1].",
            "f(x) = [x % #1].",
            "g(x, y) = [y, x].",
            "h(x,y) = [(x*#2+y) / 2, 0].",
            "identity",
            "random",
            "default",
            "mesh:4x4",
            "torus:8x8",
            "hypercube:4",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect(),
        "machine" => read_dir_files(&f.join("machines"), Some("mach")),
        "mapfile" => vec![
            b"# cppe map file\nvirtual ring:4\nphysical mesh:2x2\n0 0\n1 1   # c\n2 3\n3 2\n".to_vec(),
            b"physical line:2\nvirtual torus:2x2\n3 1\n2 0\n1 1\n0 0\n".to_vec(),
        ],
        "cost" => vec![
            b"# costs\nADDI=2\nmuli = 5   # slower\n\nSend=10\n".to_vec(),
            b"LDVal=0\nDivF=40\n".to_vec(),
            b"function:add=2\ntype:double=0.5\nglobal=3\nspmd=2\nspmd:send=4\nop:LDVal=2\n".to_vec(),
        ],
        "work" => {
            vec![b"# costs\nvproc,cost\n0,4\n1, 2.5\n7,0\n3,9\n".to_vec(), b"vproc,cost\n2,1\n2,1\n5,100\n".to_vec()]
        }
        "debug" => read_dir_files(&f.join("debug"), Some("cmd")),
        "sim" => Vec::new(),
        other => panic!("unknown fuzz target {other}"),
    };
    v.extend(read_dir_files(&f.join("fuzz").join(target), None));
    v
}

// ---------------------------------------------------------------------------------------
// Mutation

/// Tokens worth inserting into the text formats.
const TEXT_TOKENS: &[&str] = &[
    "\n",
    " ",
    "#",
    "=",
    "(",
    ")",
    "[",
    "]",
    ",",
    ".",
    ":",
    "x",
    "-",
    "-1",
    "0",
    "1",
    "4294967295",
    "4294967296",
    "18446744073709551616",
    "99999999999999999999999",
    "1e308",
    "nan",
    "inf",
    "-0",
    "0x",
    "%",
    "?",
    "#1",
    "#0",
    "#9",
    "begin ",
    "end ",
    "processor",
    "machine",
    "timings",
    "topology",
    "links",
    "pt(1).",
    "id = ",
    "virtual ",
    "physical ",
    "mesh:",
    "torus:",
    "ring:",
    "hypercube:",
    "line:",
    "65536x65536",
    "break ",
    "show ",
    "run\n",
    "continue\n",
    "step ",
    "list ",
    "set ",
    "process ",
    "clear ",
    "status\n",
    "quit\n",
    "\"",
    "\\",
    "\t",
    "\r",
    "\u{0}",
    "é",
    "-901",
    "-3 ",
    "-4 ",
    "-21 ",
    "-52 ",
    "\"PICL\" {",
    "};;\n",
    "#1:\n",
    "int",
    "double",
];

fn interesting_u32(g: &mut Gen) -> u32 {
    [0, 1, 0x7f, 0x80, 0xff, 0xffff, 0x7fff_ffff, 0x8000_0000, u32::MAX, u32::MAX - 1][g.below(10)]
}

/// Mutates `input` in place with 1 to 8 of: bit flip, interesting byte or word,
/// deletion, duplication, insertion of a token, splice from another input, truncation,
/// repetition of a chunk (for blow-ups).
fn mutate_bytes(g: &mut Gen, input: &mut Vec<u8>, others: &[Vec<u8>]) {
    for _ in 0..1 + g.below(8) {
        if input.is_empty() {
            input.push(b'0');
        }
        let at = g.below(input.len());
        match g.below(11) {
            0 => input[at] ^= 1 << g.below(8),
            1 => input[at] = interesting_u32(g) as u8,
            2 => {
                let v = interesting_u32(g).to_le_bytes();
                let end = (at + 4).min(input.len());
                input[at..end].copy_from_slice(&v[..end - at]);
            }
            3 => {
                let len = 1 + g.below(32);
                input.drain(at..(at + len).min(input.len()));
            }
            4 => {
                let len = g.below(64).min(input.len() - at);
                let chunk = input[at..at + len].to_vec();
                let to = g.below(input.len() + 1);
                input.splice(to..to, chunk);
            }
            5 | 6 => {
                let t = TEXT_TOKENS[g.below(TEXT_TOKENS.len())].as_bytes();
                input.splice(at..at, t.iter().copied());
            }
            7 => {
                if let Some(o) = others.get(g.below(others.len().max(1))).filter(|o| !o.is_empty()) {
                    let from = g.below(o.len());
                    let len = g.below(256).min(o.len() - from);
                    input.splice(at..at, o[from..from + len].iter().copied());
                }
            }
            8 => input.truncate(at),
            9 => input[at] = g.next() as u8,
            _ => {
                let len = 1 + g.below(16).min(input.len() - at - 1);
                let chunk = input[at..at + len].to_vec();
                let times = 1 + g.below(2000);
                for _ in 0..times {
                    input.splice(at..at, chunk.iter().copied());
                    if input.len() > MAX_INPUT {
                        break;
                    }
                }
            }
        }
    }
    input.truncate(MAX_INPUT);
}

/// Makes the trailing CRC-32 match again, so the mutation reaches the decoder behind the
/// checksum (`.cod` files and run records both end with the CRC of every byte before).
fn fix_crc(bytes: &mut [u8]) {
    if bytes.len() >= 4 {
        let n = bytes.len() - 4;
        let crc = cppe::crc::crc32(&bytes[..n]);
        bytes[n..].copy_from_slice(&crc.to_le_bytes());
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

// ---------------------------------------------------------------------------------------
// The readers under test

fn limits() -> cppe::sim::SimConfig {
    cppe::sim::SimConfig {
        pprocs: 4,
        max_steps: Some(200_000),
        max_time: Some(20_000_000),
        max_procs: 64,
        max_memory: 1 << 20,
        max_stack_words: 1 << 14,
        ..cppe::sim::SimConfig::default()
    }
}

fn topologies(sel: u8) -> (cppe::topo::Topology, cppe::topo::Topology) {
    use cppe::topo::Topology;
    let pairs = [("mesh:4x4", "mesh:4x4"), ("torus:8x8", "mesh:8x8"), ("ring:6", "hypercube:3"), ("line:5", "line:2")];
    let (v, p) = pairs[sel as usize % pairs.len()];
    // cannot fail: fixed, valid topology strings.
    (Topology::parse(v).expect("valid"), Topology::parse(p).expect("valid"))
}

fn cost_module() -> &'static cppe::vcode::Module {
    static M: OnceLock<cppe::vcode::Module> = OnceLock::new();
    M.get_or_init(|| module_of(&fixtures().join("arith.c")))
}

fn debug_modules() -> &'static Vec<(String, cppe::vcode::Module)> {
    static M: OnceLock<Vec<(String, cppe::vcode::Module)>> = OnceLock::new();
    M.get_or_init(|| {
        ["workers.c", "links.c", "deadlock.c"]
            .iter()
            .map(|n| (n.to_string(), module_of(&fixtures().join("debug").join(n))))
            .collect()
    })
}

fn sim_modules() -> &'static Vec<cppe::vcode::Module> {
    static M: OnceLock<Vec<cppe::vcode::Module>> = OnceLock::new();
    M.get_or_init(|| {
        files_with_ext(&fixtures(), "c")
            .iter()
            .filter(|f| !f.ends_with("fileio.c")) // writes files in the working directory
            .map(|f| module_of(f))
            .collect()
    })
}

/// Runs one input through `target`'s reader and its consumers. A panic propagates.
pub fn exercise(target: &str, input: &[u8]) {
    match target {
        "cpc" => {
            let src = text(input);
            if let Ok(c) = compile("fuzz.c", &src, &front()) {
                let bytes = cppe::vcode::cod::encode(&c.module);
                let again = cppe::vcode::cod::decode(&bytes).map(|m| cppe::vcode::cod::encode(&m));
                assert_eq!(again.ok().as_deref(), Some(&bytes[..]), "round trip through .cod");
                let _ = cppe::vcode::listing::listing(&c.module);
            }
        }
        "cod" => {
            if let Ok(m) = cppe::vcode::cod::decode(input) {
                let _ = cppe::vcode::listing::listing(&m);
                // A module the decoder accepts encodes to bytes that decode to it again
                // (compared as bytes: a NaN constant is not equal to itself).
                let bytes = cppe::vcode::cod::encode(&m);
                let again = cppe::vcode::cod::decode(&bytes).map(|m2| cppe::vcode::cod::encode(&m2));
                assert_eq!(again.ok().as_deref(), Some(&bytes[..]), "round trip of a decoded module");
            }
        }
        "record" => {
            if let Ok((mut r, _)) = cppe::trace::RunRecordReader::open(input) {
                while let Ok(Some(_)) = r.next_event() {}
                let _ = r.footer();
            }
            if let Ok(a) = cppe::perf::analyze_bytes(input) {
                let _ = cppe::perf::render::text(&a);
                let _ = cppe::perf::render::csv_row(&a);
                let _ = cppe::perf::render::json(&a);
            }
            // Every cptrace writer behind its time-order buffer (OTF2 writes a folder of
            // files and is fuzzed through its own tests' records).
            use cppe::trace::format::{convert, Format};
            for format in Format::ALL.into_iter().filter(|f| f.writer().is_some()) {
                let _ = convert(input, format, Default::default(), &mut std::io::sink());
            }
        }
        "picl" | "picl1" | "sddf" => {
            use cppe::trace::format::Format;
            let format = Format::ALL.into_iter().find(|f| f.info().name == target).unwrap();
            if let Some(Ok(t)) = format.read(&mut &input[..]) {
                let charts = cppe::perf::Options { charts: true, ..cppe::perf::Options::default() };
                let Ok(a) = cppe::perf::analyze_imported_with(&t, &charts) else { return };
                let _ = cppe::perf::render::text(&a);
                let _ = cppe::perf::charts(&a, a.summary.pprocs_used.min(64));
                // The procedure profile too (its calls and returns come in any order).
                let mut b = cppe::perf::functions::FunctionBuilder::default();
                for e in &t.events {
                    b.event(e);
                }
                let p = b.finish(&t.header, &a.critical);
                let _ = cppe::perf::functions::text(&p);
                // A cut trace is analysed as its window (the path cpperf takes).
                if t.window_from.is_some() {
                    let _ = cppe::perf::analyze_any(input).map(|a| cppe::perf::render::text(&a));
                }
            }
        }
        "mapping" => {
            let (sel, rest) = input.split_first().unwrap_or((&0, &[]));
            let spec = text(rest);
            let (virt, phys) = topologies(*sel);
            let _ = cppe::topo::resolve_mapping(&spec, &virt, &phys, 1);
            let _ = cppe::expr::MappingExpr::parse(&spec);
            let _ = cppe::expr::Expr::parse(&spec);
            let _ = cppe::topo::Topology::parse(&spec);
        }
        "machine" => {
            if let Ok(m) = cppe::machine::Machine::parse("fuzz.mach", &text(input)) {
                let _ = m.sample(1);
            }
        }
        "mapfile" => {
            if let Ok(mf) = cppe::topo::MapFile::parse(&text(input)) {
                assert_eq!(cppe::topo::MapFile::parse(&mf.to_text()).ok(), Some(mf));
            }
        }
        "cost" => {
            let mut opts = cppe::sim::setup::RunOptions {
                cost_file: Some(("fuzz.cost".to_string(), text(input))),
                ..Default::default()
            };
            let _ = cppe::sim::setup::setup(cost_module(), &opts);
            // Each line as a group override (`--scale-group`) too, then all that parse.
            opts.cost_file = None;
            for line in text(input).lines().take(16) {
                let _ = opts.set("scale-group", line);
            }
            let _ = cppe::sim::setup::setup(cost_module(), &opts);
        }
        "work" => work_heuristics(input),
        "debug" => debug_session(input),
        "sim" => simulate_mutant(input),
        other => panic!("unknown fuzz target {other}"),
    }
}

/// A scripted debugger session of the commands in `input` on a fixture program (chosen
/// by the input's length), under step and time limits.
fn debug_session(input: &[u8]) {
    use cppe::net::{NetParams, ShortestPath};
    use cppe::sim::debug::{run_session, SessionIo, SharedOut};
    use cppe::sim::{Io, Simulator};
    let mods = debug_modules();
    let (_, m) = &mods[input.len() % mods.len()];
    let out = SharedOut::new(Box::new(std::io::sink()));
    // cannot fail: a fixed, valid topology string.
    let net = ShortestPath::new(NetParams::default(), cppe::topo::Topology::parse("ring:4").expect("valid"));
    let io = Io { stdin: Box::new(std::io::empty()), stdout: Box::new(out.clone()), stderr: Box::new(std::io::sink()) };
    if let Ok(mut sim) = Simulator::new(m, limits(), Box::new(net), io) {
        let commands = Box::new(std::io::Cursor::new(input.to_vec()));
        let _ = run_session(&mut sim, SessionIo { commands, out, echo: true, json: None });
    }
}

/// The simulator on a fixture program with instructions replaced: the input's bytes
/// choose the program, the places and the new instructions. Modules the verifier
/// accepts run under step, time, process and memory limits.
fn simulate_mutant(input: &[u8]) {
    use cppe::net::{NetParams, ShortestPath};
    use cppe::sim::{Io, Simulator};
    let mut seed = 0xcbf2_9ce4_8422_2325u64;
    for &b in input {
        seed = (seed ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    let mut g = Gen(seed);
    let mods = sim_modules();
    let mut m = mods[g.below(mods.len())].clone();
    for _ in 0..1 + g.below(3) {
        let at = g.below(m.code.len());
        m.code[at] = crate::fuzz::random_instr(&mut g, &m);
    }
    if cppe::vcode::cod::verify(&m).is_err() {
        return;
    }
    // cannot fail: a fixed, valid topology string.
    let net = ShortestPath::new(NetParams::default(), cppe::topo::Topology::parse("line:16").expect("valid"));
    let io =
        Io { stdin: Box::new(std::io::empty()), stdout: Box::new(std::io::sink()), stderr: Box::new(std::io::sink()) };
    let cfg = cppe::sim::SimConfig { pprocs: 16, max_steps: Some(20_000), max_time: Some(2_000_000), ..limits() };
    if let Ok(mut sim) = Simulator::new(&m, cfg, Box::new(net), io) {
        let _ = sim.run();
    }
}

// ---------------------------------------------------------------------------------------
// The campaign

struct Current {
    target: &'static str,
    input: Vec<u8>,
}

static CURRENT: Mutex<Option<Current>> = Mutex::new(None);
static STARTED_MS: AtomicU64 = AtomicU64::new(0);
static BUSY: AtomicBool = AtomicBool::new(false);

fn epoch() -> Instant {
    static E: OnceLock<Instant> = OnceLock::new();
    *E.get_or_init(Instant::now)
}

fn out_dir() -> PathBuf {
    std::env::var_os("CPPE_FUZZ_OUT").map(PathBuf::from).unwrap_or_else(|| root().join("target/fuzz-crashes"))
}

/// Writes a crashing input for replay; returns its path.
fn save(target: &str, input: &[u8], why: &str) -> PathBuf {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in input {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    let dir = out_dir().join(target);
    let _ = std::fs::create_dir_all(&dir);
    let p = dir.join(format!("{why}-{h:016x}"));
    let _ = std::fs::write(&p, input);
    p
}

/// Starts (once) the thread that ends the process when one input runs past [`HANG`].
fn watchdog() {
    static W: Once = Once::new();
    W.call_once(|| {
        std::thread::spawn(|| loop {
            std::thread::sleep(Duration::from_millis(500));
            let start = STARTED_MS.load(Ordering::SeqCst);
            let now = epoch().elapsed().as_millis() as u64;
            if BUSY.load(Ordering::SeqCst) && now.saturating_sub(start) > HANG.as_millis() as u64 {
                let cur = CURRENT.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(c) = cur.as_ref() {
                    let p = save(c.target, &c.input, "hang");
                    eprintln!("fuzz {}: hang (> {:?}) on the input saved in {}", c.target, HANG, p.display());
                }
                std::process::exit(70);
            }
        });
    });
}

/// Runs `input` through `target`, watched; returns what went wrong, if anything.
fn watched(target: &'static str, input: &[u8]) -> Option<String> {
    *CURRENT.lock().unwrap_or_else(|e| e.into_inner()) = Some(Current { target, input: input.to_vec() });
    STARTED_MS.store(epoch().elapsed().as_millis() as u64, Ordering::SeqCst);
    BUSY.store(true, Ordering::SeqCst);
    let t = Instant::now();
    let r = std::panic::catch_unwind(AssertUnwindSafe(|| exercise(target, input)));
    BUSY.store(false, Ordering::SeqCst);
    let took = t.elapsed();
    match r {
        Err(e) => {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Some(format!("panic: {msg}"))
        }
        Ok(()) if took > SLOW => Some(format!("slow: {took:?}")),
        Ok(()) => None,
    }
}

/// Task costs read from `input` drive every load-aware search on a small machine, with a
/// communication matrix drawn from the same bytes.
fn work_heuristics(input: &[u8]) {
    use cppe::mapper::{search, Budget, CommMatrix, SearchMethod, TaskCosts};
    let Ok(given) = TaskCosts::parse_csv(&text(input)) else { return };
    let Ok(costs) = TaskCosts::new(&given, 8, 1 + u64::from(input.len() as u8)) else { return };
    let (virt, phys) = (cppe::topo::Topology::parse("ring:8"), cppe::topo::Topology::parse("mesh:2x2"));
    let (Ok(virt), Ok(phys)) = (virt, phys) else { panic!("topologies") };
    let comm = CommMatrix::from_triples(
        input.chunks(3).filter(|c| c.len() == 3).map(|c| (u32::from(c[0] % 8), u32::from(c[1] % 8), u64::from(c[2]))),
    );
    let Ok(start) = cppe::topo::builtin_mapping("default", &virt, &phys, 0) else { panic!("default mapping") };
    let budget = Budget { max_steps: 20_000, deadline: None, stop: None };
    for m in SearchMethod::ALL {
        let found = search(m, &start, &virt, &phys, &comm, Some(&costs), 3, budget);
        assert!(found.is_ok_and(|f| f.mapping.validate(&virt, &phys).is_ok()), "{m:?}");
    }
}

fn target_name(name: &str) -> &'static str {
    TARGETS.iter().find(|&&t| t == name).copied().unwrap_or_else(|| panic!("unknown fuzz target {name}"))
}

/// Fuzzes `target` for `seconds` from `seed`.
pub fn campaign(name: &str, seconds: f64, seed: u64) -> Report {
    let target = target_name(name);
    watchdog();
    let corpus = corpus(target);
    let mut g = Gen(seed ^ name.bytes().fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b))));
    let start = Instant::now();
    let mut rep = Report { execs: 0, crashes: 0 };
    // The seeds themselves first, unchanged.
    let mut queue: Vec<Vec<u8>> = corpus.clone();
    while start.elapsed().as_secs_f64() < seconds {
        let input = match queue.pop() {
            Some(i) => i,
            None if target == "sim" => g.next().to_le_bytes().to_vec(),
            None if target == "cpc" => {
                let base = text(&corpus[g.below(corpus.len())]);
                crate::fuzz::mutate_source(&mut g, &base).into_bytes()
            }
            None => {
                let mut i = corpus[g.below(corpus.len())].clone();
                mutate_bytes(&mut g, &mut i, &corpus);
                if matches!(target, "cod" | "record") && g.below(2) == 0 {
                    fix_crc(&mut i);
                }
                i
            }
        };
        rep.execs += 1;
        if let Some(why) = watched(target, &input) {
            rep.crashes += 1;
            let p = save(target, &input, why.split(':').next().unwrap_or("crash"));
            eprintln!("fuzz {target}: {why}\n  input saved in {}", p.display());
        }
    }
    rep
}

fn quick(target: &str) {
    let r = campaign(target, 1.0, 1);
    assert_eq!(r.crashes, 0, "{target}: crashing inputs are in {}", out_dir().display());
    assert!(r.execs > 0);
}

#[test]
fn fuzz_quick_cpc() {
    quick("cpc");
}
#[test]
fn fuzz_quick_cod() {
    quick("cod");
}
#[test]
fn fuzz_quick_record() {
    quick("record");
}
#[test]
fn fuzz_quick_picl() {
    quick("picl");
}
#[test]
fn fuzz_quick_picl1() {
    quick("picl1");
}
#[test]
fn fuzz_quick_sddf() {
    quick("sddf");
}
#[test]
fn fuzz_quick_mapping() {
    quick("mapping");
}
#[test]
fn fuzz_quick_machine() {
    quick("machine");
}
#[test]
fn fuzz_quick_mapfile() {
    quick("mapfile");
}
#[test]
fn fuzz_quick_cost() {
    quick("cost");
}
#[test]
fn fuzz_quick_work() {
    quick("work");
}
#[test]
fn fuzz_quick_debug() {
    quick("debug");
}

/// Every input kept in `fixtures/fuzz/TARGET/` (each once made a reader crash, hang or
/// blow up) is handled now: no panic, within [`SLOW`].
#[test]
fn every_kept_crash_input_is_handled() {
    for &target in TARGETS {
        for input in read_dir_files(&fixtures().join("fuzz").join(target), None) {
            let r = watched(target, &input);
            assert!(r.is_none(), "{target}: {r:?} on kept input {:?}", text(&input[..input.len().min(200)]));
        }
    }
}

/// The long campaign of one target: `CPPE_FUZZ_TARGET=NAME CPPE_FUZZ_SECS=600` (see
/// `scripts/fuzz.sh`). Prints `fuzz-report TARGET SECONDS EXECUTIONS CRASHES`.
#[test]
#[ignore]
fn fuzz_target() {
    let name = std::env::var("CPPE_FUZZ_TARGET").unwrap_or_else(|_| "cpc".to_string());
    let secs: f64 = std::env::var("CPPE_FUZZ_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(600.0);
    let seed: u64 = std::env::var("CPPE_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(7);
    let r = campaign(&name, secs, seed);
    println!("fuzz-report {name} {secs} {} {}", r.execs, r.crashes);
    assert_eq!(r.crashes, 0, "crashing inputs are in {}", out_dir().display());
}
