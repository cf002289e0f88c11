//! The seed's chapter-6 lessons with default flags (seed 000 Tables 4–6), and a network
//! that never deadlocks by default (SPEC §4 "Network").
use crate::harness::*;
use std::path::{Path, PathBuf};

/// Compiles `src` (text) as `name` into `dir`.
fn compile_text(dir: &Path, name: &str, src: &str) -> PathBuf {
    let c = dir.join(name);
    std::fs::write(&c, src).unwrap();
    let cod = c.with_extension("cod");
    let out = run_in(dir, "cpcc", &[c.to_str().unwrap(), "-o", cod.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    cod
}

/// The seed's matmul (fixtures/matmul.c) for an n x n torus.
fn matmul(dir: &Path, n: u32) -> PathBuf {
    let src = std::fs::read_to_string(fixtures().join("matmul.c")).unwrap();
    let src = src.replace("#define n 8", &format!("#define n {n}"));
    compile_text(dir, &format!("matmul{n}.c"), &src)
}

/// The statistics of one run as CSV header and row, checking the exit code.
fn stats(dir: &Path, cod: &Path, args: &[&str], code: i32) -> (Vec<String>, Vec<String>) {
    let mut a = vec![cod.to_str().unwrap(), "--stats", "csv"];
    a.extend_from_slice(args);
    let out = run_in(dir, "cpss", &a, b"");
    assert_eq!(out.status.code(), Some(code), "{a:?}: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    let split = |l: &str| l.split(',').map(str::to_string).collect::<Vec<_>>();
    (split(lines[lines.len() - 2]), split(lines[lines.len() - 1]))
}

fn field(s: &(Vec<String>, Vec<String>), key: &str) -> f64 {
    let i = s.0.iter().position(|k| k == key).unwrap_or_else(|| panic!("no {key}"));
    s.1[i].parse().unwrap()
}

fn par(dir: &Path, cod: &Path, args: &[&str]) -> f64 {
    field(&stats(dir, cod, args, 0), "par_time")
}

/// Seed 000 Tables 4–6 in shape, with no network flag (what `scripts/tables.sh` prints):
/// default = identity; random slower than identity (mean over seeds 1..8: the seed's
/// Table 4 has +35 % and +59 %); torus < mesh < ring for the 4x4 program (Table 5);
/// parallel time rising with the packet size 4, 8, 16 (Table 6). This test keeps the
/// lessons, not the numbers: on this model the results' delivery to main (64 or 256
/// remote writes into processor 0, one at a time through its last link, about 58 units
/// each at 8 bytes) is the same under every mapping and narrows the mapping's share of
/// the time to +5 % (8x8) and +7 % (16x16); `scripts/tables.sh` prints the figures.
#[test]
fn seed_tables_4_to_6_hold_with_default_flags() {
    let dir = tempdir("net-tables");
    for n in [8u32, 16] {
        let cod = matmul(&dir, n);
        let mesh = format!("mesh:{n}x{n}");
        let default = par(&dir, &cod, &["--topology", &mesh, "--mapping", "default"]);
        let identity = par(&dir, &cod, &["--topology", &mesh, "--mapping", "identity"]);
        assert_eq!(default, identity, "{n}x{n}: default is identity when sizes match");
        let random: f64 = (1..=8)
            .map(|s| par(&dir, &cod, &["--topology", &mesh, "--mapping", "random", "--seed", &s.to_string()]))
            .sum::<f64>()
            / 8.0;
        let slower = random / identity - 1.0;
        let want = 0.03;
        assert!(slower >= want, "{n}x{n}: random {random} vs identity {identity}: {:.1} %", 100.0 * slower);
        if n == 16 {
            let p: Vec<f64> = ["4", "8", "16"]
                .iter()
                .map(|ps| par(&dir, &cod, &["--topology", &mesh, "--packet-size", ps]))
                .collect();
            assert!(p[0] < p[1] && p[1] < p[2], "Table 6: {p:?}");
        }
    }
    let cod = matmul(&dir, 4);
    let t: Vec<f64> =
        ["torus:4x4", "mesh:4x4", "ring:256"].iter().map(|t| par(&dir, &cod, &["--topology", t])).collect();
    assert!(t[0] < t[1] && t[1] < t[2], "Table 5: {t:?}");
}

/// The seed's matmul completes with default flags on every machine file, and the
/// all-to-all program (16 or more processes sending 128-byte blocks to every other) on
/// the topologies whose routes close cycles: no network deadlock, none resolved
/// (dateline classes on rings and tori, up*/down* classes on link lists).
#[test]
fn no_program_deadlocks_in_the_network_with_defaults() {
    let dir = tempdir("net-nodeadlock");
    let cod = matmul(&dir, 8);
    for m in files_with_ext(&fixtures().join("machines"), "mach") {
        let s = stats(&dir, &cod, &["--machine", m.to_str().unwrap()], 0);
        assert_eq!(field(&s, "deadlocks_resolved"), 0.0, "{}", m.display());
    }
    let src = std::fs::read_to_string(fixtures().join("alltoall.c")).unwrap();
    for (topo, p) in [("ring:16", 16), ("torus:4x4", 16), ("torus:16x16", 256), ("hypercube:6", 64)] {
        let cod = compile_text(&dir, &format!("a2a{p}.c"), &src.replace("#define P 16", &format!("#define P {p}")));
        let out = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--topology", topo, "--stats", "csv"], b"");
        assert_eq!(out.status.code(), Some(0), "{topo}: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout);
        // With --stats csv the program's output goes to stderr.
        let printed = String::from_utf8_lossy(&out.stderr);
        assert!(printed.starts_with(&format!("all-to-all of {p} processes done\n")), "{topo}: {printed}");
        let header: Vec<&str> = text.lines().rev().nth(1).unwrap().split(',').collect();
        let row: Vec<&str> = text.lines().last().unwrap().split(',').collect();
        let k = header.iter().position(|&h| h == "deadlocks_resolved").unwrap();
        assert_eq!(row[k], "0", "{topo}");
    }
}

/// One lane on a torus takes the dateline classes away: the all-to-all traffic closes a
/// cycle of packets each waiting for the lane the next holds. By default the network
/// resolves it and the run completes with the resolutions counted (and recorded);
/// `--deadlock report` ends the run with the cycle and exit 1. One thread or two, the
/// results are the same byte for byte.
#[test]
fn a_forced_cycle_is_resolved_or_reported() {
    let dir = tempdir("net-cycle");
    let cod = compile_text(&dir, "a2a.c", &std::fs::read_to_string(fixtures().join("alltoall.c")).unwrap());
    let cod = cod.to_str().unwrap();
    let args = [cod, "--topology", "torus:4x4", "--lanes", "1", "--link-delay", "1", "--stats", "csv"];
    let one = run_in(&dir, "cpss", &[&args[..], &["--threads", "1", "-t", "one.cpt"]].concat(), b"");
    assert_eq!(one.status.code(), Some(0), "{}", String::from_utf8_lossy(&one.stderr));
    let text = String::from_utf8_lossy(&one.stdout).into_owned();
    let printed = String::from_utf8_lossy(&one.stderr);
    assert!(printed.starts_with("all-to-all of 16 processes done\n"), "{printed}");
    let header: Vec<&str> = text.lines().rev().nth(1).unwrap().split(',').collect();
    let row: Vec<&str> = text.lines().last().unwrap().split(',').collect();
    let k = header.iter().position(|&h| h == "deadlocks_resolved").unwrap();
    let resolved: u64 = row[k].parse().unwrap();
    assert!(resolved > 0, "{text}");
    // Every resolution is a `deadlock` event of the run record.
    let trace = run_in(&dir, "cptrace", &["one.cpt", "--format", "sddf", "--events", "deadlock"], b"");
    assert_eq!(trace.status.code(), Some(0), "{}", String::from_utf8_lossy(&trace.stderr));
    let text_trace = String::from_utf8_lossy(&trace.stdout).into_owned();
    let records = text_trace.lines().filter(|l| l.starts_with("\"deadlock\" {") && l.ends_with("};;")).count();
    assert_eq!(records as u64, resolved);
    // The network's thread changes nothing: the same statistics but for the host time,
    // the same events.
    let two = run_in(&dir, "cpss", &[&args[..], &["--threads", "2", "-t", "two.cpt"]].concat(), b"");
    let two = String::from_utf8_lossy(&two.stdout).into_owned();
    // (host_seconds is there only with --host-time.)
    let h = header.iter().position(|&h| h == "host_seconds").unwrap_or(usize::MAX);
    let without_host = |t: &str| {
        let row: Vec<&str> = t.lines().last().unwrap().split(',').collect();
        row.iter().enumerate().filter(|(i, _)| *i != h).map(|(_, v)| v.to_string()).collect::<Vec<_>>()
    };
    assert_eq!(without_host(&text), without_host(&two));
    // The records' headers name the flags; their events are the same.
    // PICL carries every event of the record (-2 -999 marks).
    let events = |f: &str| run_in(&dir, "cptrace", &[f, "--format", "picl"], b"").stdout;
    assert!(events("one.cpt") == events("two.cpt"), "the events differ between one thread and two");
    // Reported instead.
    let out = run_in(&dir, "cpss", &[&args[..], &["--deadlock", "report"]].concat(), b"");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("network deadlock") && err.contains("waits for a lane on link"), "{err}");
}
