//! `cptrace`: every format is well formed (JSON parses, SDDF records match their
//! descriptors, PICL and Paraver field counts, sorted times), filters drop what they
//! should, bad input fails cleanly, output is deterministic, and the ring_token traces
//! equal the golden files in `fixtures/traces/`.
use crate::harness::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Compiles and runs ring_token.c (8 stages, 3 laps: 27 channel messages) into `dir`
/// and returns the run record's path. The golden traces were made on the closed-form
/// network, which these format tests keep.
fn ring_record(dir: &Path) -> PathBuf {
    let cod = dir.join("ring_token.cod");
    let out = run_in(&fixtures(), "cpcc", &["ring_token.c", "-o", cod.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let rec = dir.join("ring.cpt");
    let args = [cod.to_str().unwrap(), "-t", rec.to_str().unwrap(), "--stats", "none", "--network", "shortest-path"];
    let out = run_in(dir, "cpss", &args, b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    rec
}

fn cptrace(dir: &Path, args: &[&str]) -> String {
    let out = run_in(dir, "cptrace", args, b"");
    assert_eq!(out.status.code(), Some(0), "cptrace {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "cptrace {args:?} warned: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Checks the PICL new format: `record event time node process n [2 data…]`, so a line
/// has 6 fields when n = 0 and 7 + n otherwise; times never decrease. Returns the count
/// of each `record event` pair.
fn check_picl(text: &str) -> BTreeMap<(i64, i64), usize> {
    let mut last = 0f64;
    let mut counts = BTreeMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        assert!(f.len() >= 6, "{line}");
        let n: usize = f[5].parse().unwrap();
        let want = if n == 0 { 6 } else { 7 + n };
        assert_eq!(f.len(), want, "{line}");
        if n > 0 {
            assert_eq!(f[6], "2", "{line}: integer data");
        }
        let t: f64 = f[2].parse().unwrap();
        assert!(t >= last, "time goes back at {line}");
        last = t;
        *counts.entry((f[0].parse().unwrap(), f[1].parse().unwrap())).or_insert(0) += 1;
    }
    counts
}

#[test]
fn picl_records_have_their_field_counts_and_pair_up() {
    let dir = tempdir("cptrace-picl");
    let rec = ring_record(&dir);
    let c = check_picl(&cptrace(&dir, &[rec.to_str().unwrap(), "--format", "picl"]));
    // 27 channel messages: one send entry and exit each, and 27 receive exits (blocking
    // or not); 8 processors begin and end; 9 processes are spawned.
    assert_eq!(c[&(-3, -21)], 27);
    assert_eq!(c[&(-4, -21)], 27);
    let recv_exits = c.get(&(-4, -52)).unwrap_or(&0) + c.get(&(-4, -51)).unwrap_or(&0);
    assert_eq!(recv_exits, 27);
    assert_eq!(c[&(-3, -901)], 8);
    assert_eq!(c[&(-4, -901)], 8);
    assert_eq!(c[&(-2, -503)], 9);
    // Every idle block that opens closes.
    assert_eq!(c[&(-3, -601)], c[&(-4, -601)]);
}

#[test]
fn picl1_records_have_their_field_counts() {
    let dir = tempdir("cptrace-picl1");
    let rec = ring_record(&dir);
    let text = cptrace(&dir, &[rec.to_str().unwrap(), "--format", "picl1"]);
    // Fields per key, `key sec usec node` included (FORMATS.md, seed 001 Table 8-1).
    let fields: BTreeMap<u32, usize> = [(1, 7), (4, 7), (6, 7), (7, 5), (8, 7), (11, 6), (15, 5), (19, 5)].into();
    let mut last = (0u64, 0u64);
    let mut sends = 0;
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let key: u32 = f[0].parse().unwrap();
        assert_eq!(Some(&f.len()), fields.get(&key), "{line}");
        let t = (f[1].parse().unwrap(), f[2].parse().unwrap());
        assert!(t.1 < 1_000_000 && t >= last, "{line}");
        last = t;
        sends += usize::from(key == 4);
    }
    assert_eq!(sends, 27);
    // The last compstats record of each node is its idle time: the run's 3010 units minus
    // the node's busy time, summed here from the SDDF busy records (end - start).
    let sddf = cptrace(&dir, &[rec.to_str().unwrap(), "--format", "sddf", "--events", "busy"]);
    let mut busy_us = [0f64; 8];
    for l in sddf.lines().filter(|l| l.starts_with("\"busy\" {") && l.ends_with("};;")) {
        let v: Vec<f64> = l[9..l.len() - 4].split(", ").map(|x| x.parse().unwrap()).collect();
        busy_us[v[2] as usize] += (v[0] - v[1]) * 1e6;
    }
    for (node, busy) in busy_us.iter().enumerate() {
        let last = text.lines().rfind(|l| l.starts_with(&format!("11 0 3010 {node} "))).unwrap();
        let idle: f64 = last.rsplit(' ').next().unwrap().parse().unwrap();
        assert!((idle - (3010.0 - busy)).abs() < 0.5, "node {node}: {last} vs busy {busy}");
    }
}

/// Splits the values of an SDDF data record at top-level commas (outside quotes and
/// braces), so `[3] { "a,b" }` is one value.
fn sddf_values(body: &str) -> usize {
    let (mut depth, mut quoted, mut n) = (0, false, 1);
    let mut prev = ' ';
    for c in body.chars() {
        match c {
            '"' if prev != '\\' => quoted = !quoted,
            '{' if !quoted => depth += 1,
            '}' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => n += 1,
            _ => {}
        }
        prev = c;
    }
    n
}

#[test]
fn sddf_records_match_their_descriptors() {
    let dir = tempdir("cptrace-sddf");
    let rec = ring_record(&dir);
    let text = cptrace(&dir, &[rec.to_str().unwrap(), "--format", "sddf"]);
    assert!(text.starts_with("SDDFA\n/*\n"));
    let mut fields: BTreeMap<String, usize> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut data = 0;
    for line in text.lines() {
        let t = line.trim();
        if let Some(name) = current.clone() {
            if t == "};;" {
                current = None;
            } else if !t.starts_with("//") {
                assert!(
                    t.ends_with(';') && (t.starts_with("int ") || t.starts_with("double ") || t.starts_with("char ")),
                    "{t}"
                );
                *fields.get_mut(&name).unwrap() += 1;
            }
        } else if t.starts_with('"') && t.ends_with(" {") {
            let name = t.trim_end_matches(" {").trim_matches('"').to_string();
            fields.insert(name.clone(), 0);
            current = Some(name);
        } else if t.starts_with('"') && t.ends_with("};;") {
            let (name, rest) = t[1..].split_once('"').unwrap();
            let body = rest.trim().strip_prefix('{').unwrap().strip_suffix("};;").unwrap().trim();
            let want = fields.get(name).unwrap_or_else(|| panic!("no descriptor for {name}"));
            assert_eq!(sddf_values(body), *want, "{t}");
            data += 1;
        }
    }
    // One descriptor per event kind, and the run's statistics (a whole run's trace).
    assert_eq!(fields.len(), 19, "one descriptor per event kind, event_count and run_stats");
    // Every event of the record is written: 546 events for ring_token (run-record dump:
    // 322 busy, 34 each of msg_send and msg_arr (27 channel messages and 7 remote
    // writes: each stage stores into main's where[k] through its reference parameter,
    // line 21), 27 each of recv_call, recv_done, 63 state (27 blocks in a receive, 27
    // resumptions after them and the 9 processes' starts), 9 each of proc_init,
    // proc_exit, and 21 line_cost: lines 20-27, 29 and 34-45, those whose instructions
    // ran), the event_count record that counts them and the run_stats record.
    assert_eq!(data, 548);
}

fn num(v: &serde_json::Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} missing in {v}"))
}

#[test]
fn chrome_json_parses_with_one_track_per_processor_and_paired_flows() {
    let dir = tempdir("cptrace-chrome");
    let rec = ring_record(&dir);
    let text = cptrace(&dir, &[rec.to_str().unwrap(), "--format", "chrome"]);
    let doc: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let events = doc["traceEvents"].as_array().unwrap();
    let mut slices: BTreeMap<u64, Vec<(f64, f64)>> = BTreeMap::new();
    let mut flows: BTreeMap<u64, (usize, usize)> = BTreeMap::new();
    let mut names = 0;
    let mut counters = 0;
    for e in events {
        match e["ph"].as_str().unwrap() {
            "X" => {
                let tid = e["tid"].as_u64().unwrap();
                assert!(tid < 8, "{e}");
                slices.entry(tid).or_default().push((num(e, "ts"), num(e, "dur")));
            }
            "s" => flows.entry(e["id"].as_u64().unwrap()).or_default().0 += 1,
            "f" => flows.entry(e["id"].as_u64().unwrap()).or_default().1 += 1,
            "M" if e["name"] == "thread_name" => names += 1,
            "C" => counters += 1,
            _ => {}
        }
    }
    assert_eq!(names, 8);
    assert!(counters > 0);
    // 27 channel messages and 7 remote writes (stage k stores into main's where[k]),
    // each one `s` and one `f`.
    assert_eq!(flows.len(), 34);
    assert!(flows.values().all(|&c| c == (1, 1)), "{flows:?}");
    for (tid, mut v) in slices {
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        for w in v.windows(2) {
            assert!(w[0].0 + w[0].1 <= w[1].0 + 1e-9, "overlapping slices on tid {tid}: {w:?}");
        }
    }
}

#[test]
fn paraver_writes_three_files_with_counted_fields() {
    let dir = tempdir("cptrace-paraver");
    let rec = ring_record(&dir);
    let prv = dir.join("ring.prv");
    cptrace(&dir, &[rec.to_str().unwrap(), "--format", "paraver", "-o", prv.to_str().unwrap()]);
    let text = std::fs::read_to_string(&prv).unwrap();
    let mut lines = text.lines();
    // 3010 time units = 3 010 000 ns; 8 processors, one task each.
    assert_eq!(
        lines.next().unwrap(),
        "#Paraver (01/01/2026 at 00:00):3010000_ns:1(8):1:8(1:1,1:1,1:1,1:1,1:1,1:1,1:1,1:1)"
    );
    let mut comms = 0;
    let mut last = 0u64;
    for line in lines {
        let f: Vec<&str> = line.split(':').collect();
        match f[0] {
            "1" => assert_eq!(f.len(), 8, "{line}"),
            "2" => assert!(f.len() >= 8 && f.len() % 2 == 0, "{line}"),
            "3" => {
                assert_eq!(f.len(), 15, "{line}");
                comms += 1;
            }
            _ => panic!("unknown record {line}"),
        }
        let t: u64 = f[5].parse().unwrap();
        if f[0] != "3" {
            assert!(t >= last, "{line}");
            last = t;
        }
    }
    assert_eq!(comms, 27);
    assert!(std::fs::read_to_string(dir.join("ring.pcf")).unwrap().contains("STATES_COLOR"));
    assert!(std::fs::read_to_string(dir.join("ring.row")).unwrap().starts_with("LEVEL CPU SIZE 8\nP0\n"));
    // Without -o there is nowhere to put three files.
    let out = run_in(&dir, "cptrace", &[rec.to_str().unwrap(), "--format", "paraver"], b"");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn filters_drop_what_they_should() {
    let dir = tempdir("cptrace-filters");
    let rec = ring_record(&dir);
    let r = rec.to_str().unwrap();
    // Only nodes 0 and 1 appear.
    let text = cptrace(&dir, &[r, "--format", "picl", "--procs", "0-1"]);
    check_picl(&text);
    assert!(text.lines().all(|l| matches!(l.split(' ').nth(3), Some("0" | "1"))), "{text}");
    // Between 1000 and 2000 units = 0.001 s and 0.002 s.
    let text = cptrace(&dir, &[r, "--format", "picl", "--from", "1000", "--to", "2000"]);
    check_picl(&text);
    for l in text.lines() {
        let t: f64 = l.split(' ').nth(2).unwrap().parse().unwrap();
        assert!((0.001..=0.002).contains(&t), "{l}");
    }
    // Only busy records.
    let text = cptrace(&dir, &[r, "--format", "sddf", "--events", "busy"]);
    // The trace ends with the count of its event records (322).
    let data: Vec<&str> = text.lines().filter(|l| l.ends_with("};;") && l.starts_with('"')).collect();
    assert_eq!(data.len(), 323);
    assert!(data[..322].iter().all(|l| l.starts_with("\"busy\" {")));
    assert_eq!(data[322], "\"event_count\" { 322 };;");
    assert_eq!(text.matches("\n#").count(), 2, "the busy descriptor and the count's");
    for bad in [["--events", "sends"], ["--procs", "3-1"], ["--from", "x"]] {
        let out = run_in(&dir, "cptrace", &[r, "--format", "picl", bad[0], bad[1]], b"");
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn truncated_record_fails_and_leaves_no_file() {
    let dir = tempdir("cptrace-trunc");
    let rec = ring_record(&dir);
    let bytes = std::fs::read(&rec).unwrap();
    let cut = dir.join("cut.cpt");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    for (fmt, out) in [("picl", "out.trf"), ("chrome", "out.json"), ("paraver", "out.prv")] {
        let o = run_in(&dir, "cptrace", &[cut.to_str().unwrap(), "--format", fmt, "-o", out], b"");
        assert_eq!(o.status.code(), Some(2), "{fmt}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("cut.cpt") && err.contains("without a footer"), "{err}");
    }
    let mut left: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    left.sort();
    assert_eq!(left, ["cut.cpt", "ring.cpt", "ring_token.cod"]);
}

#[test]
fn output_is_deterministic() {
    let dir = tempdir("cptrace-determinism");
    let rec = ring_record(&dir);
    for fmt in ["picl", "picl1", "sddf", "chrome"] {
        let a = cptrace(&dir, &[rec.to_str().unwrap(), "--format", fmt]);
        let b = cptrace(&dir, &["--format", fmt, "-o", "x.out", rec.to_str().unwrap()]);
        assert!(b.is_empty());
        assert_eq!(a, std::fs::read_to_string(dir.join("x.out")).unwrap(), "{fmt}");
    }
}

#[test]
fn ring_token_golden_traces() {
    let dir = tempdir("cptrace-golden");
    let rec = ring_record(&dir);
    for (fmt, ext) in [("picl", "trf"), ("sddf", "sddf")] {
        let text = cptrace(&dir, &[rec.to_str().unwrap(), "--format", fmt]);
        expect_file(&fixtures().join("traces").join(format!("ring_token.{ext}")), &text);
    }
}

/// One range syntax everywhere: `--procs 0:3,7` keeps what `--procs 0-3,7` keeps, and the
/// debugger's `status 0-1` lists what `status 0:1` lists.
#[test]
fn both_range_syntaxes_work_everywhere() {
    let dir = tempdir("ranges");
    let cod = compile_into(&dir, &fixtures().join("matmul.c"));
    let cod = cod.to_str().unwrap();
    let out = run_in(&dir, "cpss", &[cod, "-t", "m.cpt", "--stats", "none"], b"");
    assert_eq!(out.status.code(), Some(0));
    let picl = |range: &str| {
        let out = run_in(&dir, "cptrace", &["m.cpt", "--format", "picl", "--procs", range], b"");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    };
    let dash = picl("0-3,7");
    assert!(!dash.is_empty());
    assert_eq!(dash, picl("0:3,7"));
    assert_ne!(dash, picl("0:2,7"), "the range matters");
    std::fs::write(dir.join("s.cmd"), "break 40\nrun\nstatus 0-1\nstatus 0:1\nquit\n").unwrap();
    let out = run_in(&dir, "cpss", &[cod, "--stats", "none", "--commands", "s.cmd"], b"");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let tables: Vec<&str> = text.split("(cpss) status").skip(1).map(|t| t.split("(cpss)").next().unwrap()).collect();
    assert_eq!(tables.len(), 2, "{text}");
    // Each after its command's own line: the same two processes.
    let body = |t: &str| t.split_once('\n').map(|(_, rest)| rest.to_string()).unwrap_or_default();
    assert_eq!(body(tables[0]), body(tables[1]));
    assert_eq!(body(tables[0]).lines().count(), 3, "a header and processes 0 and 1: {text}");
}
