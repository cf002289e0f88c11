//! `cpperf`: its times and ratios are the simulator's own statistics, its critical path
//! spans the run, its communication matrix is the one `cpmap --comm` builds, and the
//! documented output formats hold.
use crate::harness::*;
use std::path::{Path, PathBuf};

/// Compiles and runs `fixture` with a run record; returns (record path, cpss CSV stdout).
fn simulate(dir: &Path, fixture: &str, extra: &[&str]) -> (PathBuf, String) {
    let src = fixtures().join(fixture);
    let cod = dir.join(fixture).with_extension("cod");
    let out = run_in(dir, "cpcc", &[src.to_str().unwrap(), "-o", cod.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let cpt = dir.join(fixture).with_extension("cpt");
    let mut args = vec![cod.to_str().unwrap(), "--stats", "csv", "-t", cpt.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = run_in(dir, "cpss", &args, b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    (cpt, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The last two lines of a CSV text as (header → value) pairs.
fn csv_fields(text: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let n = lines.len();
    assert!(n >= 2, "no CSV in {text:?}");
    lines[n - 2].split(',').map(String::from).zip(lines[n - 1].split(',').map(String::from)).collect()
}

fn field<'a>(fields: &'a [(String, String)], name: &str) -> &'a str {
    fields.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str()).unwrap_or_else(|| panic!("no {name}"))
}

/// End time of process 0 read straight from the record.
fn end_of_process_0(cpt: &Path) -> u64 {
    let bytes = std::fs::read(cpt).unwrap();
    let (mut r, _) = cppe::trace::RunRecordReader::open(&bytes[..]).unwrap();
    let mut end = None;
    while let Some(e) = r.next_event().unwrap() {
        if let cppe::trace::Event::ProcEnd { time, pid: 0 } = e {
            end = Some(time);
        }
    }
    end.expect("process 0 ends")
}

#[test]
fn ring_token_metrics_equal_cpss_statistics_and_the_critical_path_spans_the_run() {
    let dir = tempdir("cpperf-ring");
    let (cpt, cpss_out) = simulate(&dir, "ring_token.c", &[]);
    let sim = csv_fields(&cpss_out);
    let out = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--format", "csv"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let perf = csv_fields(&String::from_utf8_lossy(&out.stdout));
    for name in ["seq_time", "par_time", "speedup", "pprocs_used", "messages", "bytes", "avg_latency"] {
        assert_eq!(field(&perf, name), field(&sim, name), "{name}");
    }
    // Efficiency = speedup / processors.
    let speedup: f64 = field(&perf, "speedup").parse().unwrap();
    let procs: f64 = field(&perf, "pprocs_used").parse().unwrap();
    let eff: f64 = field(&perf, "efficiency").parse().unwrap();
    assert!((eff - speedup / procs).abs() < 1e-3, "{eff} vs {speedup}/{procs}");
    // The critical path starts at process 0's creation (time 0) and ends at the last
    // process event, which is process 0's end; the parallel time is the clock at the end.
    let end = end_of_process_0(&cpt);
    let cp: f64 = field(&perf, "critical_path").parse().unwrap();
    assert_eq!((cp * 1000.0).round() as u64, end);
    let par: f64 = field(&perf, "par_time").parse().unwrap();
    assert!(cp <= par && par - cp < 0.05 * par, "critical path {cp} vs parallel time {par}");
}

#[test]
fn utilization_matches_cpss() {
    let dir = tempdir("cpperf-util");
    let (cpt, cpss_out) = simulate(&dir, "ring_token.c", &[]);
    let sim = csv_fields(&cpss_out);
    let out = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--format", "json"], b"");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("cpperf --format json is JSON");
    let ours: Vec<String> = json["utilization"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| format!("{}:{:.2}", u["pproc"], u["percent"].as_f64().unwrap()))
        .collect();
    assert_eq!(ours.join(";"), field(&sim, "utilization"));
}

#[test]
fn comm_matrix_is_the_one_cpmap_reads() {
    let dir = tempdir("cpperf-comm");
    let (cpt, _) = simulate(&dir, "ring_token.c", &[]);
    let out = run_in(&dir, "cpperf", &["--comm", cpt.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0));
    let ours = String::from_utf8_lossy(&out.stdout).into_owned();
    let bytes = std::fs::read(&cpt).unwrap();
    let (m, _) = cppe::mapper::comm::CommMatrix::from_run_record(&bytes).unwrap();
    assert_eq!(ours, m.to_csv());
    // And cpmap parses it back to the same matrix.
    assert_eq!(cppe::mapper::comm::CommMatrix::parse_csv(&ours).unwrap().to_csv(), ours);
    // Ring of 8 stages: every stage sends to its successor, so at least 8 rows.
    assert!(ours.lines().count() > 8, "{ours}");
}

#[test]
fn text_report_has_its_sections_and_reads_standard_input() {
    let dir = tempdir("cpperf-text");
    let (cpt, _) = simulate(&dir, "ring_token.c", &[]);
    let bytes = std::fs::read(&cpt).unwrap();
    let out = run_in(&dir, "cpperf", &[], &bytes);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    for section in ["Speedup = ", "Efficiency = ", "Granularity", "\nCritical path\n", "\nWeighted critical path"] {
        assert!(text.contains(section), "missing {section:?} in\n{text}");
    }
}

#[test]
fn a_truncated_record_is_exit_2() {
    let dir = tempdir("cpperf-trunc");
    let (cpt, _) = simulate(&dir, "ring_token.c", &[]);
    let bytes = std::fs::read(&cpt).unwrap();
    let out = run_in(&dir, "cpperf", &["-"], &bytes[..bytes.len() / 2]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cpperf: error:"));
    assert!(out.stdout.is_empty());
}

/// `text` with the value of CSV column `name` (header line starting `seq_time,`, next
/// line the values) replaced by `f(old value)`.
fn edit_csv(text: &str, name: &str, f: impl Fn(f64) -> f64) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let h = lines.iter().rposition(|l| l.starts_with("seq_time,")).expect("a statistics header");
    let col = lines[h].split(',').position(|k| k == name).expect("the column");
    let mut cells: Vec<String> = lines[h + 1].split(',').map(String::from).collect();
    cells[col] = format!("{}", f(cells[col].parse().unwrap()));
    let mut out: Vec<String> = lines[..=h].iter().map(|l| l.to_string()).collect();
    out.push(cells.join(","));
    out.join("\n") + "\n"
}

#[test]
fn compare_exits_1_when_the_parallel_time_grows_beyond_the_tolerance() {
    let dir = tempdir("cpperf-compare");
    let (cpt, cpss_out) = simulate(&dir, "ring_token.c", &[]);
    let base = dir.join("base.csv");
    std::fs::write(&base, &cpss_out).unwrap();
    // par_time 2720 → ×1.05 = 2856 (+5 %) and ×1.01 = 2747.2 (+1 %), only that column.
    for (factor, tolerance, code) in [(1.05, "2%", 1), (1.01, "2%", 0), (1.05, "6%", 0)] {
        let new = dir.join("new.csv");
        std::fs::write(&new, edit_csv(&cpss_out, "par_time", |t| t * factor)).unwrap();
        let out = run_in(
            &dir,
            "cpperf",
            &["compare", base.to_str().unwrap(), new.to_str().unwrap(), "--tolerance", tolerance],
            b"",
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(code), "×{factor} at {tolerance}:\n{text}");
        let row = text.lines().find(|l| l.starts_with("par_time")).expect("a par_time row");
        assert_eq!(row.contains("REGRESSION"), code == 1, "{row}");
    }
    // Speedup is better when higher: a speedup that shrinks 5 % regresses, one that grows
    // 5 % does not; --metrics restricts the table to the columns listed.
    for (factor, code) in [(0.95, 1), (1.05, 0)] {
        let new = dir.join("speedup.csv");
        std::fs::write(&new, edit_csv(&cpss_out, "speedup", |s| s * factor)).unwrap();
        let out = run_in(
            &dir,
            "cpperf",
            &["compare", base.to_str().unwrap(), new.to_str().unwrap(), "--metrics", "speedup", "--format", "csv"],
            b"",
        );
        assert_eq!(out.status.code(), Some(code), "{}", String::from_utf8_lossy(&out.stdout));
        assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2, "header and the speedup row");
    }
    // A run record against the cpperf CSV of the same run: only the CSV's rounding (speedup to
    // four decimals) differs.
    let perf_csv = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--format", "csv"], b"");
    let p = dir.join("perf.csv");
    std::fs::write(&p, &perf_csv.stdout).unwrap();
    let out =
        run_in(&dir, "cpperf", &["compare", cpt.to_str().unwrap(), p.to_str().unwrap(), "--tolerance", "0.1%"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    // Garbage is bad input.
    std::fs::write(dir.join("junk.csv"), "hello\n").unwrap();
    let out = run_in(&dir, "cpperf", &["compare", "junk.csv", p.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_unreceived_send_is_reported_with_its_process_channel_and_line() {
    let dir = tempdir("cpperf-unmatched");
    let (cpt, _) = simulate(&dir, "unreceived_send.c", &[]);
    let out = run_in(&dir, "cpperf", &[cpt.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    // The worker's second send, `answer = x * 3;`, is line 14 of the fixture; the first
    // (line 13) was read by main.
    let src = std::fs::read_to_string(fixtures().join("unreceived_send.c")).unwrap();
    assert_eq!(src.lines().nth(13).unwrap().trim(), "answer = x * 3;");
    assert!(
        text.contains(
            "send never received: process 1 (worker) sent 4 bytes on channel answer (channel 0, element 0) at line 14"
        ),
        "{text}"
    );
    assert_eq!(text.matches("send never received").count(), 1, "{text}");
    let csv = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--format", "csv"], b"");
    assert_eq!(field(&csv_fields(&String::from_utf8_lossy(&csv.stdout)), "unmatched_sends"), "1");
    // ring_token receives every message it sends.
    let (ring, _) = simulate(&dir, "ring_token.c", &[]);
    let out = run_in(&dir, "cpperf", &[ring.to_str().unwrap()], b"");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("Unmatched"));
}

/// `cpperf` reads the old PICL format too, which holds nodes, sends, receives and idle
/// times only: the matmul's picl1 trace without statistics gives the record's parallel
/// time, messages, bytes and processors; its sequential time is the busy time (the
/// format has no per-line work), and cpperf says which figures it rebuilt. The new PICL
/// trace, which carries the record's events, gives the record's sequential time too.
#[test]
fn old_picl_reads_like_new_picl_without_statistics() {
    let dir = tempdir("cpperf-picl1");
    let (cpt, _) = simulate(&dir, "matmul.c", &[]);
    let summary = |input: &Path| {
        let out = run_in(&dir, "cpperf", &[input.to_str().unwrap(), "--format", "json"], b"");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let keys = ["par_time", "seq_time", "messages", "bytes", "pprocs_used"];
        // Busy time from the utilizations (percent of the parallel time, 4 decimals).
        let par = j["par_time"].as_f64().unwrap();
        let busy: f64 =
            j["utilization"].as_array().unwrap().iter().map(|u| u["percent"].as_f64().unwrap() * par / 100.0).sum();
        (keys.map(|k| j[k].as_f64().unwrap_or(f64::NAN)), busy, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let trace = |format: &str| {
        let out = run_in(&dir, "cptrace", &[cpt.to_str().unwrap(), "--format", format, "--no-stats"], b"");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let trace = dir.join(format!("m.{format}"));
        std::fs::write(&trace, &out.stdout).unwrap();
        trace
    };
    let (record, busy, _) = summary(&cpt);
    let (old, _, notes) = summary(&trace("picl1"));
    let (new, _, new_notes) = summary(&trace("picl"));
    assert_eq!(new, record);
    assert!(!new_notes.contains("rebuilt"), "{new_notes}");
    // The seed's matmul: parallel time 13030 on the default mesh, 1024 messages of 4 bytes
    // on 64 processors; the old format's sequential time is the busy time.
    assert_eq!(record[..1], [13030.0]);
    assert_eq!((old[0], old[2], old[3], old[4]), (13030.0, 1024.0, 4096.0, 64.0));
    // Each utilization is rounded to 0.00005 % of 13030 (0.0065): 64 of them, 0.42 at most.
    assert!((old[1] - busy).abs() < 0.42 && old[1] > record[1], "{old:?} {busy}");
    assert!(notes.contains("the processor states, the critical paths"), "{notes}");
}

/// `--from 25 --to 45` on the hand-written `three_procs.trf` (node 0 busy 0-20, 35-40,
/// 65-80; node 1 busy 10-60; node 2 busy 10-30; node 2 sends 8 bytes at 30 that node 0
/// receives at 35): parallel time 20, busy inside the window 5, 20 and 5, so
/// utilization 25 %, 100 %, 25 % and sequential time 30; the one message sent inside,
/// 8 bytes, latency 5; the critical path spans the window. A trace cut by cptrace to the
/// same window gives the record's window figures.
#[test]
fn a_window_reports_its_own_parallel_time_utilization_and_messages() {
    let dir = tempdir("cpperf-window");
    let trf = fixtures().join("traces").join("three_procs.trf");
    let out = run_in(&dir, "cpperf", &[trf.to_str().unwrap(), "--from", "25", "--to", "45", "--format", "json"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let f = |v: &serde_json::Value| v.as_f64().unwrap();
    assert_eq!((f(&j["par_time"]), f(&j["seq_time"])), (20.0, 30.0));
    let util: Vec<f64> = j["utilization"].as_array().unwrap().iter().map(|u| f(&u["percent"])).collect();
    assert_eq!(util, [25.0, 100.0, 25.0]);
    // Seed 003 §3.3's parallelism over the window: P = (0.25 + 1 + 0.25) / 3 processors.
    assert_eq!(f(&j["parallelism"]), 0.5);
    // A trace without routes has no network load.
    assert!(j["network_load"].is_null());
    assert_eq!((f(&j["messages"]), f(&j["bytes"]), f(&j["avg_latency"])), (1.0, 8.0, 5.0));
    assert_eq!(f(&j["critical_path"]["length"]), 20.0);
    assert!(String::from_utf8_lossy(&out.stderr).contains("note: the window 25 to 45: times count from 25"));
    let (cpt, _) = simulate(&dir, "matmul.c", &[]);
    let cut =
        run_in(&dir, "cptrace", &[cpt.to_str().unwrap(), "--from", "1000", "--to", "3000", "--format", "sddf"], b"");
    std::fs::write(dir.join("cut.sddf"), &cut.stdout).unwrap();
    let window = ["--from", "1000", "--to", "3000", "--format", "csv"];
    let whole = run_in(&dir, "cpperf", &[&[cpt.to_str().unwrap()][..], &window[..]].concat(), b"");
    let cut = run_in(&dir, "cpperf", &[&["cut.sddf"][..], &window[..]].concat(), b"");
    let first_fields = |o: &std::process::Output| -> Vec<String> {
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        text.lines().nth(1).unwrap_or("").split(',').take(8).map(str::to_string).collect()
    };
    assert_eq!(first_fields(&whole)[1], "2000");
    // The cut trace holds the window's events only, not the run's sequential work: its
    // sequential time (so speedup and efficiency) is its busy time, and cpperf says so;
    // the rest (parallel time, processors, messages, bytes, latency) is the same.
    let (w, c) = (first_fields(&whole), first_fields(&cut));
    for k in [1, 4, 5, 6, 7] {
        assert_eq!(c[k], w[k], "field {k}");
    }
    assert!(String::from_utf8_lossy(&cut.stderr).contains("the sequential time is the busy time"));
    // A trace cut by cptrace says where its window starts, so cpperf without --from
    // analyses the same window: parallel time 2000, not the window's end 3000, in SDDF
    // and PICL alike; a record with traced routes carries its link crossings (of
    // unnumbered traffic too) and m into the SDDF, so the network load is the record's.
    let (routed, _) = simulate(&dir, "matmul.c", &["--trace-routes"]);
    let routed = routed.to_str().unwrap();
    let csv = ["--format", "csv"];
    let record = run_in(&dir, "cpperf", &[&[routed, "--from", "1000", "--to", "3000"][..], &csv[..]].concat(), b"");
    for format in ["sddf", "picl"] {
        let out = run_in(&dir, "cptrace", &[routed, "--from", "1000", "--to", "3000", "--format", format], b"");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let name = format!("cut.{format}");
        std::fs::write(dir.join(&name), &out.stdout).unwrap();
        let cut = run_in(&dir, "cpperf", &[&[name.as_str()][..], &csv[..]].concat(), b"");
        assert_eq!(cut.status.code(), Some(0), "{format}: {}", String::from_utf8_lossy(&cut.stderr));
        // Sequential time, speedup and efficiency aside (see above), the cut trace gives
        // the record's window: PICL carries the record's events, arrivals included.
        assert_eq!(first_fields(&cut)[4..8], first_fields(&record)[4..8], "{format}");
        assert_eq!(first_fields(&cut)[1], first_fields(&record)[1], "{format}");
        assert!(String::from_utf8_lossy(&cut.stderr).contains("note: the window 1000 to 3000"));
        if format == "sddf" {
            let last = |o: &std::process::Output| {
                String::from_utf8_lossy(&o.stdout).lines().nth(1).unwrap_or("").rsplit(',').next().unwrap().to_string()
            };
            assert!(!last(&record).is_empty(), "the record's window has a network load");
            assert_eq!(last(&cut), last(&record), "network load");
        }
    }
    let bad = run_in(&dir, "cpperf", &[trf.to_str().unwrap(), "--from", "45", "--to", "25"], b"");
    assert_eq!(bad.status.code(), Some(2));
}

/// Seed 003 §3.3's network load L = Σ U_link / m counts every directed link of the
/// machine: `two_messages.c` on `line:2` with traced routes sends three messages (the
/// child's creation and two values) over 0 -> 1 and one back over 1 -> 0 (the notice of
/// the child's end), so L = (occupied(0 -> 1) + occupied(1 -> 0)) / (2 × T). cpss records
/// m = 2 in the run's header; the 8x8 mesh has 2 × 2 × 8 × 7 = 224 directed links. P =
/// Σ U_cpu / n over the run's two processors.
#[test]
fn network_load_divides_by_every_link_of_the_machine() {
    let dir = tempdir("cpperf-network-load");
    let (cpt, _) = simulate(&dir, "two_messages.c", &["--topology", "line:2", "--trace-routes"]);
    let out = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--format", "json"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let f = |v: &serde_json::Value| v.as_f64().unwrap();
    let links = j["links"].as_array().unwrap();
    assert_eq!(links.len(), 2, "{links:?}");
    assert_eq!((f(&links[0]["from"]), f(&links[0]["to"]), f(&links[0]["messages"])), (0.0, 1.0, 3.0));
    assert_eq!((f(&links[1]["from"]), f(&links[1]["to"]), f(&links[1]["messages"])), (1.0, 0.0, 1.0));
    let t = f(&j["par_time"]);
    let want = (f(&links[0]["occupied"]) + f(&links[1]["occupied"])) / (2.0 * t);
    assert!((f(&j["network_load"]) - want).abs() < 1e-6, "L = {} against {want}", j["network_load"]);
    let util: f64 = j["utilization"].as_array().unwrap().iter().map(|u| f(&u["percent"])).sum();
    assert!((f(&j["parallelism"]) - util / 100.0 / 2.0).abs() < 1e-6, "{}", j["parallelism"]);
    let text = String::from_utf8_lossy(&run_in(&dir, "cpperf", &[cpt.to_str().unwrap()], b"").stdout).into_owned();
    assert!(text.contains("(m = 2 directed links)"), "{text}");
    let (mesh, _) = simulate(&dir, "matmul.c", &["--trace-routes"]);
    let text = String::from_utf8_lossy(&run_in(&dir, "cpperf", &[mesh.to_str().unwrap()], b"").stdout).into_owned();
    assert!(text.contains("(m = 224 directed links)"), "{text}");
    // Without traced routes there is no load to state.
    let (plain, _) = simulate(&dir, "matmul.c", &[]);
    let text = String::from_utf8_lossy(&run_in(&dir, "cpperf", &[plain.to_str().unwrap()], b"").stdout).into_owned();
    assert!(!text.contains("Network Load") && text.contains("Parallelism P = "), "{text}");
}

/// `cpperf compare --lines`: two versions of a loop, 100 and 200 iterations of 19 time
/// units each (the loop test, the add and the increment), the count in a `#define` on
/// line 1 so that the loop's line reads the same in both: the two versions are aligned
/// by content, line 5 costs 1900 more (the loop's set-up is the same), the other lines
/// the same; the new run's line fills the common scale's bar, the base's half of it.
#[test]
fn compare_lines_puts_two_versions_on_one_scale() {
    let dir = tempdir("cpperf-compare-lines");
    for n in [100, 200] {
        let src = dir.join(format!("v{n}.c"));
        let text = format!(
            "#define N {n}\nint main() {{\n  int i, s;\n  s = 0;\n  for (i = 0; i < N; i++) s = s + i;\n  return 0;\n}}\n"
        );
        std::fs::write(&src, text).unwrap();
        let cod = format!("v{n}.cod");
        assert_eq!(run_in(&dir, "cpcc", &[src.to_str().unwrap(), "-o", &cod], b"").status.code(), Some(0));
        let cpt = format!("v{n}.cpt");
        assert_eq!(run_in(&dir, "cpss", &[&cod, "--stats", "none", "-t", &cpt], b"").status.code(), Some(0));
    }
    let csv = run_in(&dir, "cpperf", &["compare", "--lines", "v100.cpt", "v200.cpt", "--format", "csv"], b"");
    assert_eq!(csv.status.code(), Some(0), "{}", String::from_utf8_lossy(&csv.stderr));
    let text = String::from_utf8_lossy(&csv.stdout).into_owned();
    assert!(text
        .starts_with("base_line,new_line,base,new,change,change_percent,base_wait,new_wait,base_comm,new_comm,text\n"));
    let rows: Vec<Vec<String>> =
        text.lines().skip(1).map(|l| l.splitn(11, ',').map(str::to_string).collect()).collect();
    assert!(rows.iter().all(|r| r[0] == r[1]), "every line kept in place: {rows:?}");
    let line5 = rows.iter().find(|r| r[1] == "5").expect("line 5");
    let (base, new): (u64, u64) = (line5[2].parse().unwrap(), line5[3].parse().unwrap());
    assert_eq!((new - base, line5[4].as_str()), (1900, "1900"));
    assert!(rows.iter().filter(|r| r[1] != "5").all(|r| r[4] == "0"), "{rows:?}");
    let text = run_in(&dir, "cpperf", &["compare", "--lines", "v100.cpt", "v200.cpt"], b"");
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    let row = text.lines().find(|l| l.contains("for (i = 0; i < N")).expect("line 5's row");
    assert!(row.contains(&format!("|{}|", "#".repeat(20))), "{text}");
    assert!(row.contains(&format!("|{}{}|", "#".repeat(10), " ".repeat(10))), "{text}");
    let json = run_in(&dir, "cpperf", &["compare", "--lines", "v100.cpt", "v200.cpt", "--format", "json"], b"");
    let j: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(j["schema_version"], 1);
}

/// Busy time in code from an `#include`d file is that file's lines': `preproc.c`
/// includes `include/util.h`, whose line 14 is `clamp`'s return (called three times);
/// the per-line report names it `…include/util.h:14` with its text, and no busy time
/// is left without a line.
#[test]
fn per_line_costs_name_the_lines_of_included_files() {
    let dir = tempdir("cpperf-include-lines");
    let (cpt, _) = simulate(&dir, "preproc.c", &[]);
    let out = run_in(&dir, "cpperf", &[cpt.to_str().unwrap()], b"");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let row = text.lines().find(|l| l.contains("include/util.h:14 ")).unwrap_or_else(|| panic!("{text}"));
    assert!(row.ends_with("| return v < lo ? lo : (v > hi ? hi : v);"), "{row}");
    let section = text.split("Cost per source line").nth(1).unwrap();
    assert!(!section.lines().any(|l| l.trim_start().starts_with("? ")), "{section}");
}

/// The README tutorial's before/after pair, aligned as `diff` aligns them: lines kept
/// in both versions (the closing braces, the receive loop) are one row each with their
/// own costs, while the removed hot line `s += v[i] * v[i];` (line 23 of the base only)
/// is a row of its own holding all of its busy time and the workers' remote-read
/// waits, and the lines the fix added are rows of the new version only.
#[test]
fn compare_lines_aligns_the_tutorial_pair_by_content() {
    let dir = tempdir("cpperf-compare-tutorial");
    let tut = fixtures().join("tutorial");
    for (name, cpt) in [("sumsq.c", "before.cpt"), ("sumsq_local.c", "after.cpt")] {
        let cod = compile_into(&dir, &tut.join(name));
        let out = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--stats", "none", "-t", cpt], b"");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let csv = run_in(&dir, "cpperf", &["compare", "--lines", "before.cpt", "after.cpt", "--format", "csv"], b"");
    let text = String::from_utf8_lossy(&csv.stdout).into_owned();
    let rows: Vec<Vec<String>> =
        text.lines().skip(1).map(|l| l.splitn(11, ',').map(str::to_string).collect()).collect();
    let hot = rows.iter().find(|r| r[10] == "s += v[i] * v[i];").expect("the hot line");
    assert_eq!((hot[0].as_str(), hot[1].as_str(), hot[3].as_str()), ("23", "", "0"), "{hot:?}");
    assert_eq!(hot[4], format!("-{}", hot[2]), "its whole cost is removed");
    assert!(hot[6].parse::<u64>().unwrap() > 0, "the remote-read waits are the line's: {hot:?}");
    for r in rows.iter().filter(|r| !r[0].is_empty() && !r[1].is_empty()) {
        // A kept line costs the same in both (the fix changed other lines).
        assert_eq!(r[4], "0", "{r:?}");
    }
    let closing = rows.iter().filter(|r| r[10] == "}").count();
    assert!(closing >= 1 && rows.iter().filter(|r| r[10] == "}").all(|r| r[4] == "0"), "{rows:?}");
}

/// A regression in the network shows where it costs: the same program with 16-byte
/// packets instead of 4 spends the same busy time on every line, and more communication
/// time (message latency) on the lines that send.
#[test]
fn compare_lines_shows_communication_time_per_line() {
    let dir = tempdir("cpperf-compare-comm");
    let cod = compile_into(&dir, &fixtures().join("ring_token.c"));
    for (ps, cpt) in [("4", "p4.cpt"), ("16", "p16.cpt")] {
        let args = [cod.to_str().unwrap(), "--packet-size", ps, "--stats", "none", "-t", cpt];
        assert_eq!(run_in(&dir, "cpss", &args, b"").status.code(), Some(0));
    }
    let csv = run_in(&dir, "cpperf", &["compare", "--lines", "p4.cpt", "p16.cpt", "--format", "csv"], b"");
    let text = String::from_utf8_lossy(&csv.stdout).into_owned();
    let rows: Vec<Vec<String>> =
        text.lines().skip(1).map(|l| l.splitn(11, ',').map(str::to_string).collect()).collect();
    let n = |s: &str| s.parse::<f64>().unwrap();
    assert!(rows.iter().all(|r| r[4] == "0"), "busy time unchanged: {rows:?}");
    let more: Vec<&Vec<String>> = rows.iter().filter(|r| n(&r[9]) > n(&r[8])).collect();
    assert!(!more.is_empty(), "a sending line pays more latency: {rows:?}");
}

/// Speedup, per-processor utilization and critical path length of `cpperf --format json`.
fn key_metrics(dir: &Path, input: &Path) -> (f64, String, String) {
    let out = run_in(dir, "cpperf", &[input.to_str().unwrap(), "--format", "json"], b"");
    assert_eq!(out.status.code(), Some(0), "{}: {}", input.display(), String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    (j["speedup"].as_f64().unwrap(), j["utilization"].to_string(), j["critical_path"]["length"].to_string())
}

#[test]
fn picl_and_sddf_traces_of_a_run_give_the_record_s_speedup_utilization_and_critical_path() {
    let dir = tempdir("cpperf-import");
    for fixture in ["ring_token.c", "master_worker.c"] {
        let (cpt, _) = simulate(&dir, fixture, &[]);
        let want = key_metrics(&dir, &cpt);
        for format in ["picl", "sddf"] {
            let out = run_in(&dir, "cptrace", &[cpt.to_str().unwrap(), "--format", format, "--stats"], b"");
            assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
            let trace = dir.join(format!("{fixture}.{format}"));
            std::fs::write(&trace, &out.stdout).unwrap();
            assert_eq!(key_metrics(&dir, &trace), want, "{fixture} via {format}");
        }
        // Without --stats the sequential time is not in the trace, but the SDDF trace holds
        // every event: utilization (busy / last event time) may differ from the record's only
        // by the few ticks the clock runs past the last event, the critical path not at all.
        let out = run_in(&dir, "cptrace", &[cpt.to_str().unwrap(), "--format", "sddf"], b"");
        let trace = dir.join(format!("{fixture}.plain.sddf"));
        std::fs::write(&trace, &out.stdout).unwrap();
        assert_eq!(key_metrics(&dir, &trace).2, want.2, "{fixture} via plain SDDF");
    }
    // A damaged trace is exit 2 with the file and line named.
    std::fs::write(dir.join("bad.trf"), "-3 -901 0.000000000 0 0 0\n-3 -21 0.000001000 0 0 4 2 4\n").unwrap();
    let out = run_in(&dir, "cpperf", &["bad.trf"], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.trf") && err.contains("line 2"), "{err}");
}

/// A small XML well-formedness check: one root element, every tag closed in order,
/// attribute values quoted, no stray `<` or `&` in text. Returns the root's name.
fn well_formed(xml: &str) -> Result<String, String> {
    let mut rest = xml.trim_start();
    if let Some(r) = rest.strip_prefix("<?xml") {
        rest = &r[r.find("?>").ok_or("unterminated declaration")? + 2..];
    }
    let (mut stack, mut root): (Vec<String>, Option<String>) = (Vec::new(), None);
    while let Some(lt) = rest.find('<') {
        let text = &rest[..lt];
        if stack.is_empty() && !text.trim().is_empty() {
            return Err(format!("text outside the root: {text:?}"));
        }
        for (k, _) in text.match_indices('&') {
            let ent = &text[k..];
            if !["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].iter().any(|e| ent.starts_with(e)) {
                return Err(format!("bare & in {text:?}"));
            }
        }
        let gt = rest[lt..].find('>').ok_or("unterminated tag")? + lt;
        let tag = &rest[lt + 1..gt];
        rest = &rest[gt + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack.pop().ok_or(format!("</{name}> closes nothing"))?;
            if open != name.trim() {
                return Err(format!("</{name}> closes <{open}>"));
            }
            continue;
        }
        let self_closing = tag.ends_with('/');
        let body = tag.trim_end_matches('/');
        let name: String = body.chars().take_while(|c| !c.is_whitespace()).collect();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == ':' || c == '-' || c == '_') {
            return Err(format!("bad tag name in <{tag}>"));
        }
        // Attributes: name="value" pairs.
        let mut attrs = body[name.len()..].trim();
        while !attrs.is_empty() {
            let eq = attrs.find('=').ok_or(format!("attribute without value in <{tag}>"))?;
            let v = attrs[eq + 1..].trim_start();
            let q = v.chars().next().filter(|&c| c == '"' || c == '\'').ok_or(format!("unquoted value in <{tag}>"))?;
            let close = v[1..].find(q).ok_or(format!("unterminated value in <{tag}>"))? + 1;
            if v[1..close].contains('<') {
                return Err(format!("< in an attribute of <{tag}>"));
            }
            attrs = v[close + 1..].trim_start();
        }
        if stack.is_empty() {
            if root.is_some() {
                return Err("two root elements".into());
            }
            root = Some(name.clone());
        }
        if !self_closing {
            stack.push(name);
        }
    }
    if !stack.is_empty() || !rest.trim().is_empty() {
        return Err(format!("unclosed elements {stack:?}"));
    }
    root.ok_or_else(|| "no element".into())
}

#[test]
fn the_checker_rejects_malformed_xml() {
    assert_eq!(well_formed("<a x=\"1\"><b/>t &amp; u</a>"), Ok("a".into()));
    for bad in ["<a><b></a></b>", "<a x=1/>", "<a>", "<a/><b/>", "<a>&</a>", "text<a/>"] {
        assert!(well_formed(bad).is_err(), "{bad}");
    }
}

#[test]
fn svg_charts_are_well_formed_and_deterministic() {
    let dir = tempdir("cpperf-svg");
    let (cpt, _) = simulate(&dir, "ring_token.c", &[]);
    let out = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--svg", "charts"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // --svg alone writes its files and prints nothing; with --format the report too.
    assert!(out.stdout.is_empty(), "--svg printed {} bytes", out.stdout.len());
    let out = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--svg", "charts", "--format", "text"], b"");
    assert!(String::from_utf8_lossy(&out.stdout).contains("Speedup"), "--svg --format text prints the report");
    let first: Vec<String> = ["gantt.svg", "spacetime.svg", "utilization.svg"]
        .iter()
        .map(|f| std::fs::read_to_string(dir.join("charts").join(f)).unwrap())
        .collect();
    for (f, text) in ["gantt", "spacetime", "utilization"].iter().zip(&first) {
        assert_eq!(well_formed(text), Ok("svg".into()), "{f}");
    }
    // The Gantt chart has a slice per busy interval and the critical path in vermillion; the
    // space-time diagram every message: ring_token sends 27 channel messages of 4 bytes
    // (the lightest blue, up to 8 bytes) and makes 7 remote writes (stage k stores into
    // main's where[k]; dashed indigo), each line's tooltip counting the messages it
    // stands for; the legend counts them too.
    assert!(
        first[0].contains("<rect")
            && first[0].contains(&format!("stroke=\"{}\"", cppe::trace::states::palette::CRITICAL_PATH))
    );
    let drawn = |colour: &str| -> usize {
        first[1]
            .lines()
            .filter(|l| l.starts_with("<line") && l.contains(&format!("stroke=\"{colour}\"")))
            .map(|l| {
                let t = l.split("<title>").nth(1).unwrap();
                if t.starts_with("1 message ") {
                    1
                } else {
                    t.split(' ').next().unwrap().parse().unwrap()
                }
            })
            .sum()
    };
    assert_eq!(drawn("#6baed6"), 27);
    assert_eq!(drawn(cppe::trace::states::palette::REMOTE_WRITE), 7);
    assert!(first[1].contains("channel, 0..8 B: 27") && first[1].contains("remote write: 7"), "legend");
    let out = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--svg", "again"], b"");
    assert_eq!(out.status.code(), Some(0));
    for (f, text) in ["gantt.svg", "spacetime.svg", "utilization.svg"].iter().zip(&first) {
        assert_eq!(&std::fs::read_to_string(dir.join("again").join(f)).unwrap(), text, "{f} differs between runs");
    }
}

#[test]
fn several_runs_give_one_csv_row_each_in_the_order_given() {
    let dir = tempdir("cpperf-many");
    let (ring, ring_csv) = simulate(&dir, "ring_token.c", &[]);
    let (mw, mw_csv) = simulate(&dir, "master_worker.c", &[]);
    let args = [ring.to_str().unwrap(), mw.to_str().unwrap(), ring.to_str().unwrap(), "--format", "csv"];
    let out = run_in(&dir, "cpperf", &args, b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    // Each row's par_time (column 2) is that run's cpss par_time.
    let par = |csv: &str| field(&csv_fields(csv), "par_time").to_string();
    let col = |l: &str| l.split(',').nth(1).unwrap().to_string();
    assert_eq!([col(lines[1]), col(lines[2]), col(lines[3])], [par(&ring_csv), par(&mw_csv), par(&ring_csv)]);
}

#[test]
fn distributions_add_up() {
    let dir = tempdir("cpperf-profile");
    let (cpt, _) = simulate(&dir, "master_worker.c", &[]);
    let out = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--format", "json"], b"");
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let f = |v: &serde_json::Value| v.as_f64().unwrap();
    // Concurrency: the times with k busy processors cover the run, and Σ k·t_k is the busy
    // time of all processors (the granularity's computation, Σ Cᵢ = Σ utilization · par).
    let conc: Vec<f64> = j["concurrency"].as_array().unwrap().iter().map(f).collect();
    let par = f(&j["par_time"]);
    assert!((conc.iter().sum::<f64>() - par).abs() < 1e-6, "{conc:?} vs {par}");
    let busy: f64 = j["utilization"].as_array().unwrap().iter().map(|u| f(&u["percent"]) * par / 100.0).sum();
    let weighted: f64 = conc.iter().enumerate().map(|(k, t)| k as f64 * t).sum();
    // Utilizations are printed with 4 decimals of a percent: each processor's busy time
    // is off by at most 0.00005 % of the parallel time.
    let slack = 5e-7 * par * j["utilization"].as_array().unwrap().len() as f64;
    assert!((weighted - busy).abs() <= slack, "{weighted} vs {busy}");
    // Every message is in one size class; the critical-path profiles each sum to its length.
    let sizes: f64 = j["message_sizes"].as_array().unwrap().iter().map(|s| f(&s["messages"])).sum();
    assert_eq!(sizes, f(&j["messages"]));
    let len = f(&j["critical_path"]["length"]);
    for key in ["critical_path_by_pproc", "critical_path_by_kind"] {
        let sum: f64 = j[key].as_array().unwrap().iter().map(|s| f(&s["time"])).sum();
        assert!((sum - len).abs() < 1e-6, "{key}: {sum} vs {len}");
    }
}

/// `fixtures/traces/three_procs.trf`, a PICL 2.0 trace written by hand (1 µs = 1 time
/// unit). Process 0 (node 0) computes 0..20, spawns processes 1 and 2 (nodes 1, 2) at 10,
/// blocks to receive from process 2 at 20, gets its 8 bytes at 35, computes 35..40,
/// blocks to receive from process 1 at 40, gets its 8 bytes at 65 and computes 65..80.
/// Process 1 computes 10..60 and sends at 60; process 2 computes 10..30 and sends at 30.
#[test]
fn a_hand_written_three_process_trace_gives_its_hand_computed_metrics() {
    let dir = tempdir("cpperf-three");
    let trf = fixtures().join("traces").join("three_procs.trf");
    let out = run_in(&dir, "cpperf", &[trf.to_str().unwrap(), "--format", "json"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let f = |v: &serde_json::Value| v.as_f64().unwrap();
    // Busy (outside the idle blocks): process 0 20 + 5 + 15 = 40, process 1 50, process 2
    // 20; Σ Cᵢ = 110. Without a statistics record the sequential time is the busy time
    // and the parallel time the trace's end: 110 and 80.
    assert_eq!((f(&j["seq_time"]), f(&j["par_time"]), f(&j["pprocs_used"])), (110.0, 80.0, 3.0));
    // Speedup 110 / 80 = 1.375; efficiency 1.375 / 3 = 0.458333.
    assert!((f(&j["speedup"]) - 1.375).abs() < 1e-6);
    assert!((f(&j["efficiency"]) - 1.375 / 3.0).abs() < 1e-6);
    // PICL has no arrivals, so latency runs to the receive's completion: 35 − 30 = 5 and
    // 65 − 60 = 5, M = 10; computation : communication = 110 : 10 = 11.
    assert!((f(&j["granularity"]) - 11.0).abs() < 1e-6);
    // One processor alone is busy 0..10, 30..35, 40..60 and 65..80 = 50 of the 110 of
    // work: f = 50/110, and Amdahl's bound on 3 processors 1 / (f + (1 − f)/3) = 1.571429
    // (11/7), above the measured 1.375.
    assert!((f(&j["serial_fraction"]) - 50.0 / 110.0).abs() < 1e-6);
    assert!((f(&j["amdahl_bound"]) - 11.0 / 7.0).abs() < 1e-6);
    // Per process (pid, start, end, busy, sent, bytes, received): the hand-made timeline
    // above, as `--table processes` prints it.
    let table = run_in(&dir, "cpperf", &[trf.to_str().unwrap(), "--table", "processes"], b"");
    assert_eq!(
        String::from_utf8_lossy(&table.stdout),
        "pid,function,pproc,start,end,busy,sent,bytes_sent,received\n0,#0,0,0,80,40,0,0,2\n1,#1,1,10,60,50,1,8,0\n2,#1,2,10,30,20,1,8,0\n"
    );
    assert_eq!(j["processes"].as_array().map(Vec::len), Some(3));
    // Critical path: process 0 ends last (80). Its second receive waited for process 1's
    // message (sent 60, completed 65), which process 1 computed from its creation at 10,
    // forked by process 0 at 10 after computing from 0: 0..10 on process 0, 10..60 on
    // process 1, the message 60..65, 65..80 on process 0 = 80, the trace's length.
    let c = &j["critical_path"];
    assert_eq!(f(&c["length"]), 80.0);
    let shape: Vec<(String, u64, f64, f64)> = c["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["kind"].as_str().unwrap().to_string(), s["pid"].as_u64().unwrap(), f(&s["from"]), f(&s["to"])))
        .collect();
    let want =
        [("compute", 0, 0.0, 10.0), ("compute", 1, 10.0, 60.0), ("message", 1, 60.0, 65.0), ("compute", 0, 65.0, 80.0)];
    assert_eq!(shape, want.iter().map(|&(k, p, a, b)| (k.to_string(), p, a, b)).collect::<Vec<_>>());
    // WCPA, n = 3, w = Δt + (1 − P)·2·Δt, a computation's P the busy share of the two
    // other processors (its own busy time left out), a message's of all three: busy
    // processors [0,10) 1, [10,20) 3, [20,30) 2, [30,35) 1, [35,40) 2, [40,60) 1,
    // [60,65) 0, [65,80) 1.
    //   0..10: process 0 alone, P = 0: 30;  10..60: area 30+20+5+10+20 = 85, 50 of it
    //   process 1's own: P = 35/100, 50 + 0.65·100 = 115;  60..65: P = 0, 15;
    //   65..80: process 0 alone, 45.  Total 205.
    assert!((f(&c["wcpa_weight"]) - 205.0).abs() < 1e-9);
    let p: Vec<f64> = c["segments"].as_array().unwrap().iter().map(|s| f(&s["parallelism"])).collect();
    assert_eq!(p, [0.0, 0.35, 0.0, 0.0]);
    // Imbalance: function 1 (processes 1, 2: busy 50 and 20, mean 35) has 50 on the
    // path, 15 more than its mean; function 0 has 25 on the path and 40 busy: 0.
    assert_eq!(f(&j["imbalance"]["total"]), 15.0);
    // No hops in a PICL trace.
    assert!(j["links"].is_null());
}

/// Reads a run record and replays its execution graph with nothing zeroed.
fn baseline_of(cpt: &Path) -> (u64, u64) {
    let bytes = std::fs::read(cpt).unwrap();
    let a = cppe::perf::analyze(&bytes[..]).unwrap();
    let (mut r, _) = cppe::trace::RunRecordReader::open(&bytes[..]).unwrap();
    let mut w = cppe::perf::whatif::WhatIfBuilder::default();
    while let Some(e) = r.next_event().unwrap() {
        w.event(&e);
    }
    (a.critical.length, w.baseline(a.critical.length))
}

#[test]
fn the_what_if_replay_gives_back_each_fixture_s_critical_path_when_nothing_is_zeroed() {
    let dir = tempdir("cpperf-baseline");
    for fixture in ["ring_token.c", "master_worker.c", "jacobi.c", "matmul.c", "hypercube_sum.c"] {
        let (cpt, _) = simulate(&dir, fixture, &[]);
        let (length, replay) = baseline_of(&cpt);
        assert_eq!(replay, length, "{fixture}");
    }
}

#[test]
fn jacobi_phases_links_imbalance_and_what_if() {
    let dir = tempdir("cpperf-jacobi");
    let (cpt, _) = simulate(&dir, "jacobi.c", &["--trace-routes"]);
    let c = cpt.to_str().unwrap();
    let args = [c, "--format", "json", "--what-if", "phase=sweeps done", "--what-if", "function=block"];
    let out = run_in(&dir, "cpperf", &args, b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let f = |v: &serde_json::Value| v.as_f64().unwrap();
    // main probes "start sweeps" then "sweeps done": two phases after the time before
    // the first probe; their weights add up to the path's total weight (100 %).
    assert_eq!(j["phase_process"], 0);
    let phases = j["phases"].as_array().unwrap();
    let labels: Vec<&str> = phases.iter().map(|p| p["label"].as_str().unwrap()).collect();
    assert_eq!(&labels[labels.len() - 2..], ["start sweeps", "sweeps done"]);
    let share: f64 = phases.iter().map(|p| f(&p["share"])).sum();
    assert!((share - 100.0).abs() < 0.01, "{share}");
    let time: f64 = phases.iter().map(|p| f(&p["time"])).sum();
    assert!((time - f(&j["critical_path"]["length"])).abs() < 1e-6);
    // Routes were traced: every link's utilization is a share of the run, and every
    // message crossed at least one link unless it stayed on its processor.
    let links = j["links"].as_array().expect("links traced");
    assert!(!links.is_empty());
    assert!(links.iter().all(|l| (0.0..=100.0).contains(&f(&l["utilization"])) && f(&l["packets"]) >= 1.0));
    // What-if: zeroing can only shorten the path, and zeroing the last phase (all
    // computation of main between its probe and the end) shortens it by at most that
    // phase's time.
    let len = f(&j["critical_path"]["length"]);
    let w = j["what_if"].as_array().unwrap();
    assert_eq!(w.len(), 2);
    let last = phases.iter().find(|p| p["label"] == "sweeps done").unwrap();
    assert!(f(&w[0]["saving"]) > 0.0 && f(&w[0]["saving"]) <= f(&last["time"]) + 1e-9, "{w:?}");
    assert!(w.iter().all(|x| f(&x["new_length"]) <= len && f(&x["length"]) == len));
    // Without --trace-routes there is no link section.
    let (plain, _) = simulate(&dir, "ring_token.c", &[]);
    let out = run_in(&dir, "cpperf", &[plain.to_str().unwrap()], b"");
    assert!(String::from_utf8_lossy(&out.stdout).contains("Link traffic: routes not traced"));
}

#[test]
fn tables_print_one_csv_each_and_a_bad_what_if_is_exit_2() {
    let dir = tempdir("cpperf-tables");
    let (cpt, _) = simulate(&dir, "jacobi.c", &["--trace-routes"]);
    let c = cpt.to_str().unwrap();
    for (table, header) in [
        ("lines", "line,time,work,overhead,share,relative,text"),
        ("phases", "id,label,occurrences,time,weight,share,mapping"),
        ("links", "from,to,packets,messages,bytes,occupied,utilization"),
        ("imbalance", "function,processes,path_time,path_busy,mean_busy,max_busy,max_over_mean,imbalance"),
        ("what-if", "target,length,new_length,saving,saving_percent"),
    ] {
        let out = run_in(&dir, "cpperf", &[c, "--table", table, "--what-if", "function=main"], b"");
        assert_eq!(out.status.code(), Some(0), "{table}: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(text.lines().next(), Some(header), "{table}");
        assert!(text.lines().count() >= 2, "{table}: {text}");
    }
    let out = run_in(&dir, "cpperf", &[c, "--what-if", "function=nope"], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--what-if function=nope: no such function in the run (it has: block, main)"), "{err}");
    let out = run_in(&dir, "cpperf", &[c, "--what-if", "worker"], b"");
    assert_eq!(out.status.code(), Some(2));
}

/// Cost per source line from a cpss record: every instruction's cost is charged to its
/// line, so over all lines the work equals the Sequential Execution Time (the sum of the
/// costs of work instructions while time is on) and work + overhead equals the total
/// busy time (the computation side of the granularity line), for programs with forks,
/// channels, remote memory and forall, and for sequential ones (control.c, recursion.c),
/// whose loops the simulator runs as fused superinstructions, at a quantum of 7 that
/// ends quanta inside them.
#[test]
fn line_costs_add_up_to_sequential_and_busy_time() {
    let dir = tempdir("cpperf-lines");
    for fixture in
        ["master_worker.c", "ring_token.c", "jacobi.c", "hypercube_sum.c", "matmul.c", "control.c", "recursion.c"]
    {
        let (cpt, _) = simulate(&dir, fixture, &["--quantum", "7"]);
        let out = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--format", "json"], b"");
        assert_eq!(out.status.code(), Some(0), "{fixture}");
        let json: serde_json::Value =
            serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap()).unwrap();
        let lines = json["lines"].as_array().unwrap();
        assert!(lines.len() > 5, "{fixture}: {lines:?}");
        assert!(lines.iter().all(|l| l["line"].as_u64().unwrap() > 0), "{fixture}: every line known");
        let sum = |k: &str| lines.iter().map(|l| l[k].as_f64().unwrap()).sum::<f64>();
        let seq = json["seq_time"].as_f64().unwrap();
        assert!((sum("work") - seq).abs() < 1e-6, "{fixture}: work {} seq {seq}", sum("work"));

        let text = run_in(&dir, "cpperf", &[cpt.to_str().unwrap()], b"");
        let text = String::from_utf8_lossy(&text.stdout);
        let gran = text.lines().find(|l| l.starts_with("Granularity")).unwrap();
        let busy: f64 = gran.split(" = ").nth(1).unwrap().split(" : ").next().unwrap().trim().parse().unwrap();
        assert!((sum("time") - busy).abs() < 1e-6, "{fixture}: lines {} busy {busy}", sum("time"));
        assert!(text.contains("Cost per source line ("), "{fixture}");
    }
}

/// `cpperf compare` gates on parallel time, speedup and efficiency: two runs with the same
/// parallel time and a 5 % higher average latency pass (the latency is marked worse);
/// naming `--metrics avg_latency` makes it fail, and `--tolerance avg_latency=10%` lets
/// it pass again.
#[test]
fn compare_gates_on_the_headline_metrics_by_default() {
    let dir = tempdir("compare-gates");
    let base = "seq_time,par_time,speedup,messages,avg_latency\n1000,500,2.0000,4,40\n";
    let new = "seq_time,par_time,speedup,messages,avg_latency\n1000,500,2.0000,4,42\n";
    std::fs::write(dir.join("base.csv"), base).unwrap();
    std::fs::write(dir.join("new.csv"), new).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["compare", "base.csv", "new.csv"];
        args.extend_from_slice(extra);
        let out = run_in(&dir, "cpperf", &args, b"");
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let (code, text) = run(&[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.lines().any(|l| l.starts_with("avg_latency") && l.ends_with("worse (not gating)")), "{text}");
    let (code, text) = run(&["--metrics", "avg_latency"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.lines().any(|l| l.starts_with("avg_latency") && l.ends_with("REGRESSION")), "{text}");
    let (code, text) = run(&["--metrics", "avg_latency", "--tolerance", "2%,avg_latency=10%"]);
    assert_eq!(code, Some(0), "{text}");
}

/// `--summary` is the short form: four headline lines and the five heaviest WCPA
/// segments (matmul has exactly five segments on its weighted path, so all appear, by
/// decreasing share); `--what-if` prints the comparison only.
#[test]
fn summary_is_short_and_what_if_prints_only_its_answers() {
    let dir = tempdir("cpperf-summary");
    let (cpt, _) = simulate(&dir, "matmul.c", &[]);
    let c = cpt.to_str().unwrap();
    let out = run_in(&dir, "cpperf", &[c, "--summary"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].starts_with("Parallel time 13030 (sequential 46108), speedup 3.5386"), "{text}");
    assert!(lines[4].starts_with("Weighted critical path: total weight "), "{text}");
    let shares: Vec<f64> = lines[5..].iter().map(|l| l.split_whitespace().next().unwrap().parse().unwrap()).collect();
    assert_eq!(shares.len(), 5, "{text}");
    assert!(shares.windows(2).all(|w| w[0] >= w[1]), "{shares:?}");
    let full = run_in(&dir, "cpperf", &[c], b"");
    assert!(String::from_utf8_lossy(&full.stdout).lines().count() > 3 * lines.len());
    // --summary is text only.
    assert_eq!(run_in(&dir, "cpperf", &[c, "--summary", "--format", "csv"], b"").status.code(), Some(2));
    let out = run_in(&dir, "cpperf", &[c, "--what-if", "function=main"], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[1], "What if (critical-path zeroing)");
    assert!(lines[2].starts_with("  function=main: critical path 13029 -> "), "{text}");
}

/// `compare` never answers in silence on bad input: a NaN in the new run is an error
/// naming the metric (it dropped the column and reported 0 regressions), and a gating
/// metric present in one run only is an error.
#[test]
fn compare_refuses_non_finite_and_missing_gating_metrics() {
    let dir = tempdir("cpperf-compare-nan");
    let (_, cpss_out) = simulate(&dir, "ring_token.c", &[]);
    std::fs::write(dir.join("base.csv"), &cpss_out).unwrap();
    std::fs::write(dir.join("nan.csv"), edit_csv(&cpss_out, "par_time", |_| f64::NAN)).unwrap();
    let out = run_in(&dir, "cpperf", &["compare", "base.csv", "nan.csv"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the value \"NaN\" of par_time is not a finite number"));
    // Without the par_time column.
    let lines: Vec<&str> = cpss_out.lines().collect();
    let h = lines.iter().rposition(|l| l.starts_with("seq_time,")).unwrap();
    let drop_col =
        |l: &str| l.split(',').enumerate().filter(|(i, _)| *i != 1).map(|(_, c)| c).collect::<Vec<_>>().join(",");
    std::fs::write(dir.join("nopar.csv"), format!("{}\n{}\n", drop_col(lines[h]), drop_col(lines[h + 1]))).unwrap();
    let out = run_in(&dir, "cpperf", &["compare", "base.csv", "nopar.csv"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("par_time gates the comparison but the new run does not have it")
    );
}

/// `--svg` with several runs writes one folder per run, so runs of the same file name
/// (a/run.cpt, b/run.cpt) keep their own charts: run/ and run-2/.
#[test]
fn svg_of_several_runs_writes_a_folder_each() {
    let dir = tempdir("cpperf-svg-many");
    let (cpt, _) = simulate(&dir, "ring_token.c", &[]);
    for sub in ["a", "b"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        std::fs::copy(&cpt, dir.join(sub).join("run.cpt")).unwrap();
    }
    let out = run_in(&dir, "cpperf", &["a/run.cpt", "b/run.cpt", "--svg", "charts"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    for folder in ["run", "run-2"] {
        for chart in ["gantt.svg", "spacetime.svg", "utilization.svg"] {
            assert!(dir.join("charts").join(folder).join(chart).is_file(), "{folder}/{chart}");
        }
    }
}

/// `cpperf --functions` on `recursion.c`: call counts are the recursions' closed forms,
/// and the inclusive time of `main` (process 0's own function, entered at its creation)
/// is process 0's busy time. fib(n) makes C(n) = 1 + C(n-1) + C(n-2) calls (C(0) = C(1)
/// = 1): fib(1), fib(10), fib(20) make 1 + 177 + 21891 = 22069. fact(n) makes n calls:
/// 10 + 12 + 13 = 35. hanoi(n)'s move makes 2^(n+1) - 1: 63 + 2047 = 2110. gcd makes 4
/// calls on (1071, 462) (462, 147, 21, 0 as second arguments) and 4 on (17, 5): 8.
/// Ackermann: A(2,3) takes 44 calls and A(3,3) 2432 (counted by the same recursion run
/// by hand: C(0,n) = 1, C(m,0) = 1 + C(m-1,1), C(m,n) = 1 + C(m,n-1) + C(m-1,A(m,n-1))),
/// 2476 in all. The same counts come back from the PICL trace of the run.
#[test]
fn functions_profile_counts_calls_and_main_is_the_busy_time() {
    let dir = tempdir("cpperf-functions");
    let (cpt, _) = simulate(&dir, "recursion.c", &[]);
    let out = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--functions", "--format", "json"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let rows = j["functions"].as_array().expect("a functions array");
    let row = |name: &str| rows.iter().find(|r| r["function"] == name).unwrap_or_else(|| panic!("{name}"));
    for (name, calls) in [("fib", 22069), ("fact", 35), ("move", 2110), ("gcd", 8), ("ack", 2476), ("main", 1)] {
        assert_eq!(row(name)["calls"], calls, "{name}");
    }
    let busy0 = j["processes"].as_array().unwrap().iter().find(|p| p["pid"] == 0).unwrap()["busy"].clone();
    assert_eq!(row("main")["inclusive"], busy0);
    // The exclusive times add up to the busy time too (one process).
    let excl: f64 = rows.iter().map(|r| r["exclusive"].as_f64().unwrap()).sum();
    assert!((excl - busy0.as_f64().unwrap()).abs() < 1e-6, "{excl} {busy0}");
    // Without --functions the report has none.
    let plain = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--format", "json"], b"");
    let j: serde_json::Value = serde_json::from_slice(&plain.stdout).expect("JSON");
    assert!(j["functions"].is_null());
    // The CSV table and the text section.
    let csv = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--table", "functions"], b"");
    let csv = String::from_utf8_lossy(&csv.stdout).into_owned();
    assert!(csv.starts_with("function,calls,inclusive,exclusive,mean_per_call,sd_per_call,critical_path,critical_path_share,concurrency_weighted\nfib,22069,"), "{csv}");
    let text = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--functions"], b"");
    assert!(String::from_utf8_lossy(&text.stdout).contains("\nFunctions (busy time;"));
    // Through PICL (which carries the names).
    let trf = dir.join("rec.trf");
    let out = run_in(&dir, "cptrace", &[cpt.to_str().unwrap(), "--format", "picl", "-o", trf.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0));
    let out = run_in(&dir, "cpperf", &[trf.to_str().unwrap(), "--table", "functions"], b"");
    assert!(String::from_utf8_lossy(&out.stdout).contains("\nfib,22069,"), "{}", String::from_utf8_lossy(&out.stdout));
}

/// `cpperf compare` for CI, end to end: cpss's JSON statistics against its CSV of the same
/// run compare equal (exit 0); two summaries of repeated runs (`cpss --runs 4`) of the
/// same machine compare equal with Welch's test reported; the ring against the matmul is
/// refused (exit 2: different programs), or with `--versions` compared with a
/// warning; `--format junit` has one test case per
/// gating metric and fails the one that regressed (par_time at --link-delay 9 against
/// the default 5 on the ring: every message is slower, the run longer).
#[test]
fn compare_reads_json_and_repeated_runs_and_writes_junit() {
    let dir = tempdir("cpperf-compare-ci");
    let cod = compile_into(&dir, &fixtures().join("ring_token.c"));
    let cpss = |args: &[&str], file: &str| {
        let out = run_in(&dir, "cpss", &[&[cod.to_str().unwrap()][..], args].concat(), b"");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let p = dir.join(file);
        std::fs::write(&p, &out.stdout).unwrap();
        p
    };
    let compare = |a: &Path, b: &Path, extra: &[&str]| {
        run_in(&dir, "cpperf", &[&["compare", a.to_str().unwrap(), b.to_str().unwrap()][..], extra].concat(), b"")
    };
    let json = cpss(&["--stats", "json"], "r.json");
    let csv = cpss(&["--stats", "csv"], "r.csv");
    let out = compare(&json, &csv, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let runs = ["--runs", "4", "--vary-speed", "1", "--stats", "csv"];
    let (a, b) = (cpss(&runs, "a.csv"), cpss(&runs, "b.csv"));
    let out = compare(&a, &b, &["--format", "csv"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    // Identical summaries: t = 0 with 4 + 4 - 2 = 6 degrees of freedom (par_time gates).
    let par = text.lines().find(|l| l.starts_with("par_time,")).unwrap();
    assert!(par.ends_with(",true,false,false,0,6.0000"), "{par}");
    let slow = cpss(&["--stats", "csv", "--link-delay", "9"], "slow.csv");
    let out = compare(&csv, &slow, &["--format", "junit"]);
    let xml = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{xml}");
    assert!(xml.contains(r#"<testsuite name="cpperf compare" tests="2" failures="2">"#), "{xml}");
    assert!(xml.contains(r#"<testcase classname="cpperf.compare" name="par_time">"#), "{xml}");
    // A real JUnit reader (PyPI's junitparser, in the readers' environment) reads it: two
    // tests, two failures, the first par_time's.
    let python = root().join("target/readers-venv/bin/python");
    if python.is_file() {
        let file = dir.join("compare.xml");
        std::fs::write(&file, xml.as_bytes()).unwrap();
        let script = "import sys\nfrom junitparser import JUnitXml, Failure\nx = JUnitXml.fromfile(sys.argv[1])\n\
            cases = [c for s in x for c in s]\n\
            print(len(cases), sum(1 for c in cases if any(isinstance(r, Failure) for r in c.result)), cases[0].name)";
        let r = std::process::Command::new(&python).args(["-c", script]).arg(&file).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&r.stdout).trim(), "2 2 par_time", "{}", String::from_utf8_lossy(&r.stderr));
    } else {
        assert!(std::env::var_os("CPPE_REQUIRE_READERS").is_none(), "junitparser: scripts/readers.sh installs it");
        eprintln!("skipped: JUnit output read by junitparser: not installed (scripts/readers.sh installs it)");
    }
    let other = compile_into(&dir, &fixtures().join("matmul.c"));
    let out = run_in(&dir, "cpss", &[other.to_str().unwrap(), "--stats", "csv"], b"");
    let mm = dir.join("mm.csv");
    std::fs::write(&mm, &out.stdout).unwrap();
    let out = compare(&csv, &mm, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the two runs are of different programs"), "{err}");
    let out = compare(&csv, &mm, &["--versions", "--format", "markdown"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("note: two versions of a program compared"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("**Warning: the runs are of different programs"));
}

/// A run on more processors than a chart has rows (128, `cppe::perf::svg::MAX_ROWS`):
/// the seed's matmul at n = 16 on a 16x16 mesh, 256 processors. The Gantt chart draws
/// 128 rows of 2 processors each (labelled `P0-1` … `P254-255`), each row's ink (the
/// rectangles' widths times their opacity, over the chart's 920 columns) the mean
/// utilization of its two processors (from the JSON report, within 1 %); the space-time
/// diagram draws at most 12 000 lines (`MAX_LINES`); neither exceeds 5 MB.
#[test]
fn svg_charts_of_many_processors_draw_blocks_whose_ink_is_their_utilization() {
    let dir = tempdir("cpperf-svg-blocks");
    matmul_record(&dir, 16);
    let out = run_in(&dir, "cpperf", &["m16.cpt", "--svg", "charts", "--format", "json"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let util: Vec<f64> = j["utilization"].as_array().unwrap().iter().map(|u| u["percent"].as_f64().unwrap()).collect();
    assert_eq!(util.len(), 256);
    let gantt = std::fs::read_to_string(dir.join("charts/gantt.svg")).unwrap();
    let space = std::fs::read_to_string(dir.join("charts/spacetime.svg")).unwrap();
    assert!(gantt.len() < 5 << 20 && space.len() < 5 << 20, "{} and {} bytes", gantt.len(), space.len());
    assert!(gantt.contains("rows: 2 physical processors each"));
    let mut ink: Vec<(u32, f64)> = Vec::new();
    for line in gantt.lines() {
        if let Some(rest) = line.strip_prefix("<g id=\"P") {
            let first: u32 = rest.split('-').next().unwrap().parse().unwrap();
            ink.push((first, 0.0));
        } else if line.starts_with("<rect ") && !ink.is_empty() && !line.contains("fill=\"white\"") {
            if let Some(w) = attr(line, "width") {
                ink.last_mut().unwrap().1 += w * attr(line, "fill-opacity").unwrap_or(1.0);
            }
        } else if line.starts_with("</g>") && ink.len() == 128 {
            break;
        }
    }
    assert_eq!(ink.len(), 128, "rows");
    for (first, drawn) in ink {
        let want = (util[first as usize] + util[first as usize + 1]) / 2.0 / 100.0;
        let drawn = drawn / 920.0;
        assert!((drawn - want).abs() <= 0.01, "P{first}-{}: drawn {drawn:.4}, utilization {want:.4}", first + 1);
    }
    let lines = space.lines().filter(|l| l.starts_with("<line") && l.contains("<title>")).count();
    assert!(lines <= 12_000, "{lines} message lines");
}

/// A sweep's CSV given to cpperf without --html or --svg is refused with the way to draw
/// it (exit 2), not as "not a run record".
#[test]
fn a_sweep_csv_without_a_chart_flag_says_how_to_draw_it() {
    let dir = tempdir("cpperf-sweep-hint");
    std::fs::write(dir.join("s.csv"), "topology,seq_time,par_time,speedup,pprocs_used\nmesh:2x2,10,5,2,4\n").unwrap();
    let out = run_in(&dir, "cpperf", &["s.csv"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("s.csv: the CSV of a sweep: cpperf draws it with --html FILE or --svg DIR"));
}
