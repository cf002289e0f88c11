//! The pictures and exports tell the truth about every fixture program: the Chrome
//! trace's busy counter is the number of processors with a busy slice at each sample and
//! every slice names its source line; the Gantt chart's busy coverage per processor is
//! that processor's utilization; PICL and SDDF traces give cpperf the record's figures;
//! BSC's checker accepts the Paraver output, whose states are cpperf's.
use crate::harness::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Every fixture program that runs to completion, with its run record: (name, record).
/// Simulated once per test process.
fn records() -> &'static [(String, PathBuf)] {
    static RECORDS: OnceLock<Vec<(String, PathBuf)>> = OnceLock::new();
    RECORDS.get_or_init(|| {
        let dir = tempdir("truth-records");
        let inc = fixtures().join("include");
        let mut v = Vec::new();
        for src in files_with_ext(&fixtures(), "c") {
            let name = src.file_stem().unwrap().to_string_lossy().into_owned();
            let cod = dir.join(&name).with_extension("cod");
            let args = ["-I", inc.to_str().unwrap(), src.to_str().unwrap(), "-o", cod.to_str().unwrap()];
            if run_in(&dir, "cpcc", &args, b"").status.code() != Some(0) {
                continue;
            }
            let cpt = dir.join(&name).with_extension("cpt");
            let mut args = vec![cod.to_str().unwrap().to_string(), "--stats".into(), "none".into()];
            args.extend(["-t".to_string(), cpt.to_str().unwrap().to_string()]);
            let input = src.with_extension("in");
            if input.exists() {
                args.extend(["--input".to_string(), input.to_str().unwrap().to_string()]);
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            if run_in(&dir, "cpss", &args, b"").status.code() == Some(0) {
                v.push((name, cpt));
            }
        }
        assert!(v.len() >= 18, "only {} fixtures ran", v.len());
        v
    })
}

/// A Chrome timestamp (microseconds, three decimals) in ticks (nanoseconds).
fn ticks(v: &serde_json::Value) -> u64 {
    (v.as_f64().unwrap() * 1000.0).round() as u64
}

/// Checks the counter of one Chrome trace against its slices: at every sample time t,
/// the value is the number of threads (processors) with an `X` slice s ≤ t < s + dur.
fn check_counter(path: &Path, what: &str, includes: bool) {
    let j: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).expect("JSON");
    let events = j["traceEvents"].as_array().unwrap();
    let mut slices: BTreeMap<u64, Vec<(u64, u64)>> = BTreeMap::new();
    for e in events.iter().filter(|e| e["ph"] == "X" && e["cat"] == "busy") {
        // Every slice names its source line (the line its turn ended on), unless that
        // was in a header the program included (lines are the main source file's).
        assert!(e["args"]["line"].as_u64().is_some_and(|l| l > 0) || includes, "{what}: {e}");
        let s = ticks(&e["ts"]);
        slices.entry(e["tid"].as_u64().unwrap()).or_default().push((s, s + ticks(&e["dur"])));
    }
    for v in slices.values_mut() {
        v.sort_unstable();
    }
    // Waiting stretches (category "state") lie between a processor's busy slices.
    for e in events.iter().filter(|e| e["ph"] == "X" && e["cat"] == "state") {
        let (s, t) = (ticks(&e["ts"]), ticks(&e["ts"]) + ticks(&e["dur"]));
        let v = slices.get(&e["tid"].as_u64().unwrap()).map(Vec::as_slice).unwrap_or_default();
        assert!(v.iter().all(|&(a, b)| b <= s || a >= t), "{what}: {e} overlaps a busy slice");
    }
    let mut samples = 0;
    for c in events.iter().filter(|e| e["ph"] == "C") {
        let t = ticks(&c["ts"]);
        let busy = slices
            .values()
            .filter(|v| {
                let k = v.partition_point(|&(s, _)| s <= t);
                k > 0 && v[k - 1].1 > t
            })
            .count();
        assert_eq!(c["args"]["busy"].as_u64().unwrap(), busy as u64, "{what}: counter at {t}");
        samples += 1;
    }
    assert!(samples >= 2, "{what}: {samples} counter samples");
}

#[test]
fn the_chrome_counter_counts_the_busy_slices_of_every_fixture() {
    let dir = tempdir("truth-chrome");
    for (name, cpt) in records() {
        for (tag, extra) in [("all", vec![]), ("window", vec!["--procs", "0-1", "--from", "5", "--to", "400"])] {
            let out = dir.join(format!("{name}-{tag}.json"));
            let mut args = vec![cpt.to_str().unwrap(), "--format", "chrome", "-o", out.to_str().unwrap()];
            args.extend(extra.iter().copied());
            let r = run_in(&dir, "cptrace", &args, b"");
            assert_eq!(r.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&r.stderr));
            let src = std::fs::read_to_string(fixtures().join(name).with_extension("c")).unwrap();
            let local = src.lines().any(|l| l.starts_with("#include \"") && !l.contains("cpc.h"));
            check_counter(&out, &format!("{name} ({tag})"), local);
        }
    }
}

/// The busy coverage of each processor's row of a Gantt chart: the rectangles' widths
/// (pixels), each times its fill opacity (1 when none), summed per `<g id="P…">` row.
fn gantt_coverage(svg: &str) -> BTreeMap<u64, f64> {
    let attr = |tag: &str, name: &str| -> Option<f64> {
        let k = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        tag[k..].split('"').next()?.parse().ok()
    };
    let mut cover: BTreeMap<u64, f64> = BTreeMap::new();
    let mut row: Option<u64> = None;
    for line in svg.lines() {
        if let Some(rest) = line.strip_prefix("<g id=\"P") {
            row = rest.split('"').next().and_then(|p| p.parse().ok());
            cover.insert(row.unwrap(), 0.0);
        } else if line.starts_with("</g>") {
            row = None;
        } else if let (Some(p), true) = (row, line.starts_with("<rect ")) {
            let w = attr(line, "width").unwrap();
            *cover.get_mut(&p).unwrap() += w * attr(line, "fill-opacity").unwrap_or(1.0);
        }
    }
    cover
}

#[test]
fn the_gantt_chart_s_ink_is_each_processor_s_utilization() {
    let dir = tempdir("truth-gantt");
    for (name, cpt) in records() {
        let charts = dir.join(name);
        let args = [cpt.to_str().unwrap(), "--format", "json", "--svg", charts.to_str().unwrap()];
        let out = run_in(&dir, "cpperf", &args, b"");
        assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let svg = std::fs::read_to_string(charts.join("gantt.svg")).unwrap();
        // The chart spans 0 .. its end (the last event); utilization is busy time over
        // the parallel time (the clock at the end, a few ticks later at most).
        let end: f64 = svg
            .split("<desc>time 0 .. ")
            .nth(1)
            .and_then(|r| r.split(',').next())
            .and_then(|e| e.parse().ok())
            .unwrap_or_else(|| panic!("{name}: no time span in the chart"));
        let par = j["par_time"].as_f64().unwrap();
        let cover = gantt_coverage(&svg);
        for u in j["utilization"].as_array().unwrap() {
            let p = u["pproc"].as_u64().unwrap();
            let busy = u["percent"].as_f64().unwrap() / 100.0 * par;
            let want = busy / end;
            let got = cover.get(&p).copied().unwrap_or(0.0) / 920.0;
            assert!((got - want).abs() <= 0.01, "{name}: P{p} ink {got:.4}, utilization over the chart {want:.4}");
        }
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("gantt.svg") && err.contains("utilization.svg"), "{name}: {err}");
    }
}

#[test]
fn picl_and_sddf_written_with_defaults_give_the_record_s_speedup() {
    // cptrace puts the run's statistics and the program's name into a whole run's PICL
    // and SDDF traces by default: cpperf then reads the same program, sequential and
    // parallel time and speedup from the trace as from the record, with no note.
    let dir = tempdir("truth-picl");
    for (name, cpt) in records() {
        let summary = |input: &Path| -> (serde_json::Value, String) {
            let out = run_in(&dir, "cpperf", &[input.to_str().unwrap(), "--format", "json"], b"");
            assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
            (serde_json::from_slice(&out.stdout).expect("JSON"), String::from_utf8_lossy(&out.stderr).into_owned())
        };
        let (want, _) = summary(cpt);
        for format in ["picl", "sddf"] {
            let trace = dir.join(format!("{name}.{format}"));
            let args = [cpt.to_str().unwrap(), "--format", format, "-o", trace.to_str().unwrap()];
            assert_eq!(run_in(&dir, "cptrace", &args, b"").status.code(), Some(0), "{name} {format}");
            let (got, notes) = summary(&trace);
            for key in ["program", "seq_time", "par_time", "speedup"] {
                assert_eq!(got[key], want[key], "{name} {format}: {key}");
            }
            assert!(!notes.contains("note:"), "{name} {format}: {notes}");
        }
    }
    // Without the statistics, cpperf says what it made up.
    let (_, cpt) = &records()[0];
    let trace = dir.join("bare.trf");
    let args = [cpt.to_str().unwrap(), "--format", "picl", "--no-stats", "-o", trace.to_str().unwrap()];
    assert_eq!(run_in(&dir, "cptrace", &args, b"").status.code(), Some(0));
    let out = run_in(&dir, "cpperf", &[trace.to_str().unwrap()], b"");
    assert!(String::from_utf8_lossy(&out.stderr).contains("note: no statistics record"), "{out:?}");
}

/// The bin directory of the readers' virtual environment (scripts/readers.sh installs
/// it on first use).
fn readers() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let out = std::process::Command::new(root().join("scripts/readers.sh")).output().expect("scripts/readers.sh");
        assert!(out.status.success(), "scripts/readers.sh: {}", String::from_utf8_lossy(&out.stderr));
        PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
    })
}

#[test]
fn paraver_of_every_fixture_passes_bsc_s_checker_and_its_states_are_cpperf_s() {
    let dir = tempdir("truth-paraver");
    let ptd = readers().join("ptd");
    let mut probes = 0;
    for (name, cpt) in records() {
        let prv = dir.join(format!("{name}.prv"));
        let args = [cpt.to_str().unwrap(), "--format", "paraver", "-o", prv.to_str().unwrap()];
        let out = run_in(&dir, "cptrace", &args, b"");
        assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        // Records stay sorted without moving any (no warning).
        assert!(out.stderr.is_empty(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let check = std::process::Command::new(&ptd).args(["comprovar", "-e"]).arg(&prv).output().unwrap();
        let said = format!("{}{}", String::from_utf8_lossy(&check.stdout), String::from_utf8_lossy(&check.stderr));
        assert!(check.status.success() && said.trim().is_empty(), "{name}: pertalde: {said}");
        let pcf = std::fs::read_to_string(prv.with_extension("pcf")).unwrap();
        probes += usize::from(pcf.contains("Probe label\nVALUES"));
        // Time per state per processor in the .prv (ns = ticks) against cpperf's.
        let text = std::fs::read_to_string(&prv).unwrap();
        let mut got: BTreeMap<(u64, u64), u64> = BTreeMap::new();
        for l in text.lines().filter(|l| l.starts_with("1:")) {
            let f: Vec<u64> = l.split(':').map(|x| x.parse().unwrap()).collect();
            *got.entry((f[1] - 1, f[7])).or_default() += f[6] - f[5];
        }
        let out = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--format", "json"], b"");
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        // Paraver's state numbers of cpperf's keys (the .pcf names them).
        let codes = [
            ("running", 1),
            ("message", 3),
            ("remote_read", 20),
            ("lock", 5),
            ("children", 7),
            ("delay", 21),
            ("idle", 0),
        ];
        for row in j["states"].as_array().unwrap() {
            let p = row["pproc"].as_u64().unwrap();
            for (key, code) in codes {
                let want = (row[key].as_f64().unwrap() * 1000.0).round() as u64;
                let have = got.get(&(p, code)).copied().unwrap_or(0);
                assert_eq!(have, want, "{name}: P{p} {key}");
                assert!(want == 0 || pcf.contains(&format!("\n{code:<4} ")), "{name}: state {code} not named");
            }
        }
    }
    assert!(probes >= 1, "no fixture with probes");
}

#[test]
fn a_delay_records_when_it_ends_and_the_process_resumes_then() {
    // forall_mesh.c sleeps delay(40 - 10k): each Delayed state says when it ends (after
    // its start), and the process starts running again at that time or later.
    let (_, cpt) = records().iter().find(|(n, _)| n == "forall_mesh").expect("forall_mesh ran");
    let bytes = std::fs::read(cpt).unwrap();
    let (mut r, _) = cppe::trace::RunRecordReader::open(&bytes[..]).unwrap();
    let mut until: BTreeMap<u32, u64> = BTreeMap::new();
    let mut delays = 0;
    while let Some(e) = r.next_event().unwrap() {
        let cppe::trace::Event::State { time, pid, state, reason } = e else { continue };
        match (state, reason) {
            (cppe::trace::ProcState::Delayed, cppe::trace::Reason::Delay { until: u }) => {
                assert!(u > time, "delay of process {pid} at {time} ends at {u}");
                until.insert(pid, u);
                delays += 1;
            }
            (cppe::trace::ProcState::Running, _) => {
                if let Some(u) = until.remove(&pid) {
                    assert!(time >= u, "process {pid} ran at {time}, before its delay ended at {u}");
                }
            }
            _ => {}
        }
    }
    assert!(delays >= 4, "{delays} delays");
}
