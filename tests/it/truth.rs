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
pub(crate) fn records() -> &'static [(String, PathBuf)] {
    static RECORDS: OnceLock<Vec<(String, PathBuf)>> = OnceLock::new();
    RECORDS.get_or_init(|| {
        let dir = shared_dir("truth-records");
        let inc = fixtures().join("include");
        let mut v = Vec::new();
        // The CPC fixtures, and the MPI ones that end well as their default ranks (every
        // trace format and the report must name and draw MPI calls as well).
        let mpi = files_with_ext(&fixtures().join("mpi"), "c").into_iter().map(|s| (s, "mpi_"));
        for (src, prefix) in files_with_ext(&fixtures(), "c").into_iter().map(|s| (s, "")).chain(mpi) {
            let name = format!("{prefix}{}", src.file_stem().unwrap().to_string_lossy());
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
    // (A window may lie inside one busy stretch of each processor: one sample.)
    let least = if what.ends_with("(window)") { 1 } else { 2 };
    assert!(samples >= least, "{what}: {samples} counter samples");
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
            let file = name.strip_prefix("mpi_").map_or(fixtures().join(name), |n| fixtures().join("mpi").join(n));
            let src = std::fs::read_to_string(file.with_extension("c")).unwrap();
            let local = src.lines().any(|l| l.starts_with("#include \"") && !l.contains("cpc.h"));
            check_counter(&out, &format!("{name} ({tag})"), local);
        }
    }
}

/// The busy coverage of each processor's row of a Gantt chart: the rectangles' widths
/// (pixels), each times its fill opacity (1 when none), summed per `<g id="P…">` row.
fn gantt_coverage(svg: &str) -> BTreeMap<u64, f64> {
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
fn picl_and_sddf_written_with_defaults_and_the_whole_window_give_the_record_s_figures() {
    // cptrace puts the run's statistics, the program's name, the header's names and (in
    // PICL, as `-2 -999` marks) the record's events into a whole run's PICL and SDDF
    // traces by default: cpperf then prints every figure from the trace as from the
    // record, in JSON and text, with no note; so does `--from 0 --to T`, T the run's
    // end. Every fixture, and the seed's matmul at n = 4, 8 and 16 (its remote writes,
    // time-sharing at 16x16 on the 8x8 machine).
    let dir = tempdir("truth-picl");
    let mut runs: Vec<(String, PathBuf)> = records().to_vec();
    let src = std::fs::read_to_string(fixtures().join("matmul.c")).unwrap();
    for n in [4, 8, 16] {
        let c = dir.join(format!("matmul{n}.c"));
        std::fs::write(&c, src.replace("#define n 8", &format!("#define n {n}"))).unwrap();
        let cod = compile_into(&dir, &c);
        let cpt = dir.join(format!("matmul{n}.cpt"));
        let out = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--stats", "none", "-t", cpt.to_str().unwrap()], b"");
        assert_eq!(out.status.code(), Some(0), "matmul {n}: {}", String::from_utf8_lossy(&out.stderr));
        runs.push((format!("matmul{n}"), cpt));
    }
    for (name, cpt) in &runs {
        let report = |input: &Path, format: &str| -> (String, String) {
            let out = run_in(&dir, "cpperf", &[input.to_str().unwrap(), "--format", format], b"");
            assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
            (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
        };
        let (json, text) = (report(cpt, "json").0, report(cpt, "text").0);
        for format in ["picl", "sddf"] {
            let trace = dir.join(format!("{name}.{format}"));
            let args = [cpt.to_str().unwrap(), "--format", format, "-o", trace.to_str().unwrap()];
            assert_eq!(run_in(&dir, "cptrace", &args, b"").status.code(), Some(0), "{name} {format}");
            let (got, notes) = report(&trace, "json");
            assert!(!notes.contains("note:"), "{name} {format}: {notes}");
            if got != json {
                let (a, b): (serde_json::Value, serde_json::Value) =
                    (serde_json::from_str(&json).unwrap(), serde_json::from_str(&got).unwrap());
                let a = a.as_object().unwrap();
                let differ: Vec<&String> = a.keys().filter(|k| a[*k] != b[k.as_str()]).collect();
                panic!("{name} {format}: figures differ from the record's: {differ:?}");
            }
            // The text report too, but for its first line (the input's name).
            let got = report(&trace, "text").0;
            let tail = |t: &str| t.lines().skip(1).map(|l| format!("{l}\n")).collect::<String>();
            assert_eq!(tail(&got), tail(&text), "{name} {format}: text report");
        }
        // The window from 0 to the run's end is the run.
        let par = serde_json::from_str::<serde_json::Value>(&json).unwrap()["par_time"].to_string();
        let args = [cpt.to_str().unwrap(), "--from", "0", "--to", par.as_str(), "--format", "json"];
        let out = run_in(&dir, "cpperf", &args, b"");
        assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout), json, "{name}: --from 0 --to {par}");
    }
    // Without the statistics, cpperf says what it made up.
    let (_, cpt) = &records()[0];
    let trace = dir.join("bare.trf");
    let args = [cpt.to_str().unwrap(), "--format", "picl", "--no-stats", "-o", trace.to_str().unwrap()];
    assert_eq!(run_in(&dir, "cptrace", &args, b"").status.code(), Some(0));
    let out = run_in(&dir, "cpperf", &[trace.to_str().unwrap()], b"");
    assert!(String::from_utf8_lossy(&out.stderr).contains("note: no statistics record"), "{out:?}");
}

/// A reader written by others (`scripts/readers.sh` installs them: `ptd` into
/// target/readers-venv, `otf2-print` and `chromium` from Debian), found in the
/// readers' virtual environment or on the PATH. When it is missing, the check that
/// needs it is skipped and says so on the terminal (past the test harness's capture),
/// unless `CPPE_REQUIRE_READERS` is set, as `.ci/run` sets it: then a missing reader
/// fails the test. The tests never install anything.
pub(crate) fn reader(name: &str, check: &str) -> Option<PathBuf> {
    let venv = root().join("target/readers-venv/bin").join(name);
    let found = if venv.is_file() {
        Some(venv)
    } else {
        std::env::var_os("PATH")
            .map(|path| std::env::split_paths(&path).map(|d| d.join(name)).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .find(|p| p.is_file())
    };
    if found.is_none() {
        let why = format!("{name} is not installed (scripts/readers.sh installs it)");
        assert!(std::env::var_os("CPPE_REQUIRE_READERS").is_none(), "{check}: {why}");
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "skipped: {check}: {why}");
    }
    found
}

#[test]
fn smpi_observations_kept_as_data_are_what_smpi_predicts() {
    // SimGrid's SMPI, run by scripts/smpi-suite.sh, gives the times the SMPI profile was
    // fitted to (fixtures/profiles/smpi/observed-smpi.csv), byte for byte: the host's
    // computing time is not simulated, so they are the same on every machine.
    let Some(_) = reader("smpirun", "SMPI observations made again") else { return };
    let out = std::process::Command::new(root().join("scripts/smpi-suite.sh")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let kept = std::fs::read_to_string(fixtures().join("profiles/smpi/observed-smpi.csv")).unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), kept);
    // The calibration's observations are the same times, with the twins and their flags.
    let out = std::process::Command::new(root().join("scripts/smpi-suite.sh")).arg("--calibration").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let kept = std::fs::read_to_string(fixtures().join("profiles/smpi/observed.csv")).unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), kept);
}

#[test]
fn paraver_of_every_fixture_passes_bsc_s_checker_and_its_states_are_cpperf_s() {
    let Some(ptd) = reader("ptd", "Paraver traces checked by pertalde") else { return };
    let dir = tempdir("truth-paraver");
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

/// `otf2-print` from Debian's otf2-tools, if installed (see [`reader`]).
fn otf2_print() -> Option<PathBuf> {
    reader("otf2-print", "OTF2 archives read by otf2-print")
}

/// Runs otf2-print on an archive; asserts it read it without a warning or an error and
/// returns its event lines split into fields.
fn otf2_events(anchor: &Path, what: &str) -> Vec<Vec<String>> {
    let out = std::process::Command::new(otf2_print().expect("otf2-print")).arg(anchor).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.trim().is_empty(), "{what}: otf2-print: {err}");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(!text.contains("ERROR"), "{what}: {text}");
    text.lines()
        .filter(|l| l.starts_with(|c: char| c.is_ascii_uppercase()) && !l.starts_with("Event"))
        .map(|l| {
            // KIND LOCATION TIME, then the attributes: a region's quoted name as one field.
            let mut f: Vec<String> = l.split_whitespace().take(3).map(str::to_string).collect();
            let rest = l.split_once("Region: ").map_or("", |(_, r)| r);
            f.push(String::new());
            f.push(rest.rsplit_once(" <").map_or(rest, |(name, _)| name).to_string());
            f
        })
        .collect()
}

/// What the record says of each process, for the OTF2 checks: its processor, creation
/// and end, its calls per function, and its time in each waiting state.
#[derive(Default)]
struct ProcFacts {
    pproc: u32,
    function: String,
    created: u64,
    ended: Option<u64>,
    calls: BTreeMap<String, usize>,
    waits: BTreeMap<String, u64>,
    /// The wait a process is in when the record ends without its end (the program ended
    /// by exit() or MPI_Abort while it waited): the region and its start.
    open_wait: Option<(String, u64)>,
}

/// The waiting region a state change begins, by the man page's definition (cptrace(1),
/// otf2): blocked in a receive, a remote read or a join, waiting for a lock, delayed, or
/// ready while another process runs.
fn wait_region(state: cppe::trace::ProcState, reason: cppe::trace::Reason) -> Option<&'static str> {
    use cppe::trace::{ProcState as S, Reason as R};
    match (state, reason) {
        (S::Blocked, R::Channel { .. }) => Some("waiting for a message"),
        (S::Blocked, R::RemoteRead { .. }) => Some("waiting for a remote read"),
        (_, R::Lock { .. }) => Some("waiting for a lock"),
        (S::Blocked, R::Join | R::Forall | R::Children) => Some("waiting for children"),
        (S::Delayed, _) => Some("delayed"),
        (S::Ready, _) => Some("waiting for the processor"),
        _ => None,
    }
}

fn proc_facts(cpt: &Path) -> (BTreeMap<u32, ProcFacts>, usize, usize) {
    use cppe::trace::Event as E;
    let bytes = std::fs::read(cpt).unwrap();
    let (mut r, header) = cppe::trace::RunRecordReader::open(&bytes[..]).unwrap();
    let name = |f: u32| header.functions.get(f as usize).cloned().unwrap_or_else(|| "(unnamed process)".into());
    let mut facts: BTreeMap<u32, ProcFacts> = BTreeMap::new();
    let mut open: BTreeMap<u32, (&'static str, u64)> = BTreeMap::new();
    let (mut sends, mut recvs) = (0usize, 0usize);
    let mut channel_msgs = std::collections::BTreeSet::new();
    let close = |facts: &mut BTreeMap<u32, ProcFacts>, open: &mut BTreeMap<u32, (&'static str, u64)>, pid, t| {
        if let Some((w, since)) = open.remove(&pid) {
            if t > since {
                *facts.get_mut(&pid).unwrap().waits.entry(w.to_string()).or_default() += t - since;
            }
        }
    };
    while let Some(e) = r.next_event().unwrap() {
        match e {
            E::ProcCreate { time, pid, pproc, function, .. } => {
                let f = ProcFacts { pproc, function: name(function), created: time, ..ProcFacts::default() };
                facts.insert(pid, f);
            }
            E::Enter { pid, function, .. } => {
                *facts.get_mut(&pid).unwrap().calls.entry(name(function)).or_default() += 1
            }
            E::State { time, pid, state, reason } => {
                let want = wait_region(state, reason);
                if open.get(&pid).map(|w| w.0) != want {
                    close(&mut facts, &mut open, pid, time);
                    if let Some(w) = want {
                        open.insert(pid, (w, time));
                    }
                }
            }
            E::ProcEnd { time, pid } => {
                close(&mut facts, &mut open, pid, time);
                facts.get_mut(&pid).unwrap().ended = Some(time);
            }
            E::MsgSend { msg, purpose: cppe::trace::MsgPurpose::Channel { .. }, .. } => {
                sends += 1;
                channel_msgs.insert(msg);
            }
            E::RecvDone { msg, .. } if channel_msgs.contains(&msg) => recvs += 1,
            _ => {}
        }
    }
    for (pid, (w, since)) in open {
        facts.get_mut(&pid).unwrap().open_wait = Some((w.to_string(), since));
    }
    (facts, sends, recvs)
}

#[test]
fn otf2_of_every_fixture_reads_in_otf2_print_with_the_record_s_calls_waits_and_messages() {
    if otf2_print().is_none() {
        return;
    }
    // Every archive reads without a warning. Each process is a location; its MPI_SEND /
    // MPI_RECV events are the record's channel sends and completed receives; its function
    // region is entered once, at its creation, and left at its end; every call the
    // record has is one ENTER of the callee (so a reader's call counts are the
    // program's); its time in each waiting region is its time in that state by the
    // record's state changes; regions nest and messages happen in a function, not in a
    // wait.
    let dir = tempdir("truth-otf2");
    for (name, cpt) in records() {
        let anchor = dir.join(format!("{name}.otf2"));
        let args = [cpt.to_str().unwrap(), "--format", "otf2", "-o", anchor.to_str().unwrap()];
        let out = run_in(&dir, "cptrace", &args, b"");
        assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let events = otf2_events(&anchor, name);
        let (facts, sends, recvs) = proc_facts(cpt);

        let count = |kind: &str| events.iter().filter(|f| f[0] == kind).count();
        assert_eq!(count("MPI_SEND"), sends, "{name}: sends");
        assert_eq!(count("MPI_RECV"), recvs, "{name}: receives");
        let is_wait = |r: &str| r.starts_with("\"waiting for ") || r == "\"delayed\"";

        let mut stack: BTreeMap<u32, Vec<(String, u64)>> = BTreeMap::new();
        let mut calls: BTreeMap<u32, BTreeMap<String, usize>> = BTreeMap::new();
        let mut waits: BTreeMap<u32, BTreeMap<String, u64>> = BTreeMap::new();
        let mut span: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
        for f in &events {
            let (loc, t): (u32, u64) = (f[1].parse().unwrap(), f[2].parse().unwrap());
            let region = f[4].trim_matches('"').to_string();
            match f[0].as_str() {
                "ENTER" => {
                    let s = stack.entry(loc).or_default();
                    if s.is_empty() {
                        assert!(!span.contains_key(&loc), "{name}: process {loc} entered its function twice");
                        assert_eq!(region, facts[&loc].function, "{name}: process {loc}'s function");
                        span.insert(loc, (t, t));
                    } else if !is_wait(&f[4]) {
                        *calls.entry(loc).or_default().entry(region.clone()).or_default() += 1;
                    }
                    s.push((region, t));
                }
                "LEAVE" => {
                    let (open, since) = stack.get_mut(&loc).and_then(Vec::pop).expect("leave without enter");
                    assert_eq!(open, region, "{name}: location {loc} leaves {region} inside {open}");
                    if is_wait(&f[4]) {
                        *waits.entry(loc).or_default().entry(region).or_default() += t - since;
                    }
                    if stack[&loc].is_empty() {
                        span.get_mut(&loc).unwrap().1 = t;
                    }
                }
                "MPI_SEND" | "MPI_RECV" => {
                    let top = stack.get(&loc).and_then(|s| s.last()).map(|(r, _)| r.clone());
                    assert!(top.is_some_and(|r| !is_wait(&format!("\"{r}\""))), "{name}: {f:?} outside a function");
                }
                other => panic!("{name}: unexpected event {other}"),
            }
        }
        assert!(stack.values().all(Vec::is_empty), "{name}: regions left open");
        for (pid, fact) in &facts {
            assert_eq!(calls.get(pid).cloned().unwrap_or_default(), fact.calls, "{name}: process {pid}'s calls");
            // A wait still open when the record ends is left when the archive ends.
            let mut want = fact.waits.clone();
            if let (Some((w, since)), Some(&(_, last))) = (&fact.open_wait, span.get(pid)) {
                if last > *since {
                    *want.entry(w.clone()).or_default() += last - since;
                }
            }
            assert_eq!(waits.get(pid).cloned().unwrap_or_default(), want, "{name}: process {pid}'s waits");
            if let Some(end) = fact.ended {
                assert_eq!(span.get(pid), Some(&(fact.created, end)), "{name}: process {pid}'s life");
            }
        }
        if name == "matmul" {
            // The seed's program: main once, multiply once per process (64), whatever the
            // number of busy slices they ran in.
            let entered = |f: &str| events.iter().filter(|e| e[0] == "ENTER" && e[4] == format!("\"{f}\"")).count();
            assert_eq!((entered("main"), entered("multiply")), (1, 64), "{name}");
        }
        if name == "recursion" {
            // 22069 calls of fib, as many as the program makes (fib(20) computed naively).
            assert_eq!(facts[&0].calls.get("fib"), Some(&22069), "{name}");
        }
    }
}

#[test]
fn otf2_with_a_processor_filter_keeps_only_those_processes() {
    if otf2_print().is_none() {
        return;
    }
    let dir = tempdir("truth-otf2-procs");
    let (name, cpt) = records().iter().find(|(n, _)| n == "matmul").expect("matmul ran");
    let anchor = dir.join("part.otf2");
    let args = [cpt.to_str().unwrap(), "--format", "otf2", "--procs", "0-1", "-o", anchor.to_str().unwrap()];
    assert_eq!(run_in(&dir, "cptrace", &args, b"").status.code(), Some(0));
    let events = otf2_events(&anchor, name);
    assert!(!events.is_empty());
    let (facts, _, _) = proc_facts(cpt);
    let on = |f: &Vec<String>| facts[&f[1].parse::<u32>().unwrap()].pproc;
    assert!(events.iter().all(|f| on(f) <= 1), "{name}: events of processes outside 0-1");
    // Written twice, the archive is byte-identical, and no scratch directory is left.
    let first = std::fs::read(dir.join("part/0.evt")).unwrap();
    assert_eq!(run_in(&dir, "cptrace", &args, b"").status.code(), Some(0));
    assert_eq!(std::fs::read(dir.join("part/0.evt")).unwrap(), first);
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 3, "{left:?}");
    // Without -o NAME.otf2, a clear error.
    let out = run_in(&dir, "cptrace", &[cpt.to_str().unwrap(), "--format", "otf2"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("-o NAME.otf2"));
}

#[test]
fn otf2_of_a_window_enters_what_is_open_at_its_start_and_leaves_it_at_its_end() {
    if otf2_print().is_none() {
        return;
    }
    // The program: w waits for `go` from 51 until main's message arrives at 663
    // (default costs); a window [30, 670] cuts main's delay, w's function and main's join:
    // each is entered at 30 and left at 670 (ticks: × 1000), and nothing else is written.
    let dir = tempdir("truth-otf2-window");
    let src = "#include \"cpc.h\"\narch line L[2]; phyArch line PL[2];\nchannel int go;\n\
               void work(int k) { int i; double x = 2.0; for (i = 0; i < k; i++) x = sqrt(x); }\n\
               void w() { int v; v = go; work(100); }\n\
               void main() { fork [1; go] w(); delay(600); go = 1; join; }\n";
    std::fs::write(dir.join("w.c"), src).unwrap();
    assert_eq!(run_in(&dir, "cpcc", &["w.c", "-o", "w.cod"], b"").status.code(), Some(0));
    let out = run_in(
        &dir,
        "cpss",
        &["w.cod", "--quantum", "1", "--network", "packet", "--stats", "none", "-t", "w.cpt"],
        b"",
    );
    assert_eq!(out.status.code(), Some(0));
    let args = ["w.cpt", "--format", "otf2", "--from", "30", "--to", "670", "-o", "w.otf2"];
    assert_eq!(run_in(&dir, "cptrace", &args, b"").status.code(), Some(0));
    let events = otf2_events(&dir.join("w.otf2"), "window");
    let line = |f: &Vec<String>| format!("{} {} {} {}", f[0], f[1], f[2], f[4]);
    let lines: Vec<String> = events.iter().map(line).collect();
    assert_eq!(lines.first().map(String::as_str), Some("ENTER 0 30000 \"main\""), "{lines:#?}");
    assert!(lines.contains(&"ENTER 0 30000 \"delayed\"".to_string()), "{lines:#?}");
    assert!(lines.contains(&"ENTER 1 30000 \"w\"".to_string()), "{lines:#?}");
    assert!(lines.contains(&"LEAVE 1 670000 \"w\"".to_string()), "{lines:#?}");
    assert!(lines.contains(&"LEAVE 0 670000 \"main\"".to_string()), "{lines:#?}");
    assert!(events.iter().all(|f| (30000..=670000).contains(&f[2].parse::<u64>().unwrap())), "{lines:#?}");
    // The work after the window (w's call of work at 681) is not there.
    assert!(!lines.iter().any(|l| l.contains("\"work\"")), "{lines:#?}");
}

#[test]
fn otf2_of_a_long_run_spans_several_chunks_and_still_reads() {
    if otf2_print().is_none() {
        return;
    }
    // matmul at n = 4 with its shift loop run 1000·n times: a process's event file is
    // larger than one 256 KiB chunk (and than the part held in memory), so the reader
    // crosses chunk boundaries; it sees every event the location definition announces.
    let dir = tempdir("truth-otf2-long");
    let src = std::fs::read_to_string(fixtures().join("matmul.c")).unwrap();
    let src = src.replace("#define n 8", "#define n 4").replace("iter<n;", "iter<1000*n;");
    assert!(src.contains("iter<1000*n;"), "fixtures/matmul.c changed: no shift loop to scale");
    std::fs::write(dir.join("long.c"), src).unwrap();
    assert_eq!(run_in(&dir, "cpcc", &["long.c", "-o", "long.cod"], b"").status.code(), Some(0));
    let out = run_in(&dir, "cpss", &["long.cod", "--stats", "none", "-t", "long.cpt"], b"");
    assert_eq!(out.status.code(), Some(0));
    let args = ["long.cpt", "--format", "otf2", "-o", "long.otf2"];
    assert_eq!(run_in(&dir, "cptrace", &args, b"").status.code(), Some(0));
    // The largest event file (a process that sends and receives 4000 times).
    let (size, loc) = std::fs::read_dir(dir.join("long"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "evt"))
        .map(|p| (std::fs::metadata(&p).unwrap().len(), p.file_stem().unwrap().to_string_lossy().into_owned()))
        .max()
        .unwrap();
    assert!(size > 256 * 1024, "only {size} bytes: one chunk");
    let events = otf2_events(&dir.join("long.otf2"), "long");
    let on0 = events.iter().filter(|f| f[1] == loc).count() as u64;
    let g = std::process::Command::new(otf2_print().expect("otf2-print"))
        .arg("-G")
        .arg(dir.join("long.otf2"))
        .output()
        .unwrap();
    let defs = String::from_utf8_lossy(&g.stdout).into_owned();
    let announced = defs
        .lines()
        .find(|l| l.starts_with("LOCATION ") && l.split_whitespace().nth(1) == Some(loc.as_str()))
        .and_then(|l| l.split("# Events: ").nth(1))
        .and_then(|r| r.split(',').next())
        .and_then(|n| n.trim().parse::<u64>().ok())
        .expect("location 0's definition");
    assert_eq!(on0, announced);
}

/// Debian's chromium, if installed (see [`reader`]).
pub(crate) fn chromium() -> Option<PathBuf> {
    reader("chromium", "HTML reports opened in headless Chromium")
}

/// Taken by each Chromium the tests start, so that one runs at a time: several started
/// together beside the other tests on two cores can miss their start-up deadlines.
pub(crate) static CHROMIUM_TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Headless Chromium with the network cut off (every host name fails to resolve) and a
/// profile of its own; `extra` says what to do with the page.
pub(crate) fn headless(tag: &str, extra: &[&str], url: &str) -> std::process::Output {
    let _turn = CHROMIUM_TURN.lock().unwrap_or_else(|e| e.into_inner());
    let profile = tempdir(&format!("chromium-{tag}"));
    let mut cmd = std::process::Command::new(chromium().expect("chromium"));
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--enable-logging=stderr",
        "--v=0",
    ]);
    cmd.arg(format!("--user-data-dir={}", profile.display()));
    cmd.args(extra).arg(url);
    cmd.output().expect("chromium")
}

/// Busy ticks of each processor in [a, b) from the record's busy intervals.
pub(crate) fn busy_in(cpt: &Path, n: usize, a: u64, b: u64) -> Vec<u64> {
    let bytes = std::fs::read(cpt).unwrap();
    let (mut r, _) = cppe::trace::RunRecordReader::open(&bytes[..]).unwrap();
    let mut busy = vec![0u64; n];
    while let Some(e) = r.next_event().unwrap() {
        if let cppe::trace::Event::Busy { pproc, start, end, .. } = e {
            let (s, t) = (start.max(a), end.min(b));
            if t > s && (pproc as usize) < n {
                busy[pproc as usize] += t - s;
            }
        }
    }
    busy
}

#[test]
fn every_fixture_s_html_report_loads_offline_and_draws_the_record_s_figures() {
    if chromium().is_none() {
        return;
    }
    // Each report opens in headless Chromium with the network cut off and no console
    // message; it references nothing outside itself; its self-check (#selfcheck) finds
    // every view, the figures of cpperf --format json, and per processor a drawn busy
    // fraction equal to the record's busy time over the window (within 1 %), at the
    // default zoom and at a 100× zoom into the middle of the run.
    let dir = tempdir("truth-html");
    for (name, cpt) in records() {
        let html = dir.join(format!("{name}.html"));
        let out = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--html", html.to_str().unwrap()], b"");
        assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let page = std::fs::read_to_string(&html).unwrap();
        for outside in ["src=\"http", "href=\"http", "url(http", "@import", "<link"] {
            assert!(!page.contains(outside), "{name}: the report refers to something outside it ({outside})");
        }
        let url = format!("file://{}#selfcheck", html.display());
        let out = headless(name, &["--virtual-time-budget=5000", "--dump-dom"], &url);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("CONSOLE") && !err.contains("Uncaught"), "{name}: console: {err}");
        let dom = String::from_utf8_lossy(&out.stdout);
        let check = dom
            .split("<pre id=\"selfcheck\">")
            .nth(1)
            .and_then(|r| r.split("</pre>").next())
            .unwrap_or_else(|| panic!("{name}: no self-check in the page: {err}"));
        let check: serde_json::Value = serde_json::from_str(&check.replace("&quot;", "\"")).expect("self-check JSON");
        assert_eq!(check["errors"].as_array().map(Vec::len), Some(0), "{name}: script errors {}", check["errors"]);
        let views: Vec<&str> = check["views"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(
            views,
            [
                "timeline",
                "search",
                "details",
                "profile",
                "per-processor",
                "topology",
                "unmatched",
                "wcpa",
                "stats",
                "source"
            ],
            "{name}"
        );

        let out = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--format", "json"], b"");
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let figs = &check["figures"];
        for (id, key) in
            [("fig-par", "par_time"), ("fig-seq", "seq_time"), ("fig-speedup", "speedup"), ("fig-procs", "pprocs_used")]
        {
            assert_eq!(figs[id].as_f64(), j[key].as_f64(), "{name}: {key}");
        }
        let heaviest = j["weighted_path"]["segments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["weight"].as_f64().unwrap(), s["share"].as_f64().unwrap()))
            .fold(None, |m: Option<(f64, f64)>, x| if m.is_none_or(|m| x.0 > m.0) { Some(x) } else { m });
        if let Some((_, share)) = heaviest {
            assert_eq!(figs["fig-wcpa"].as_f64(), Some(share), "{name}: heaviest WCPA segment");
        }

        let n = check["processors"].as_u64().unwrap() as usize;
        let end = check["end"].as_u64().unwrap();
        let full = busy_in(cpt, n, 0, end);
        let (z0, z1) = (check["zoom"]["t0"].as_f64().unwrap(), check["zoom"]["t1"].as_f64().unwrap());
        let zoom = busy_in(cpt, n, z0.ceil() as u64, z1.floor() as u64);
        for p in 0..n {
            let drawn = check["full"][p].as_f64().unwrap();
            let want = full[p] as f64 / end as f64;
            assert!((drawn - want).abs() <= 0.01, "{name}: P{p} drawn {drawn:.4}, busy {want:.4}");
            let drawn = check["zoom"]["busy"][p].as_f64().unwrap();
            let want = zoom[p] as f64 / (z1.floor() - z0.ceil()).max(1.0);
            assert!((drawn - want).abs() <= 0.01, "{name}: P{p} at 100x drawn {drawn:.4}, busy {want:.4}");
        }
    }
}

#[test]
fn the_matmul_report_has_a_screenshot() {
    if chromium().is_none() {
        return;
    }
    // The seed's matrix multiplication's report rendered by Chromium: a nonempty PNG
    // (the README shows it; target/report/matmul.png is the one to look at).
    let (_, cpt) = records().iter().find(|(n, _)| n == "matmul").expect("matmul ran");
    let dir = root().join("target/report");
    std::fs::create_dir_all(&dir).unwrap();
    let html = dir.join("matmul.html");
    let out = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--html", html.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0));
    let png = dir.join("matmul.png");
    let _ = std::fs::remove_file(&png);
    let shot = format!("--screenshot={}", png.display());
    // The page draws after inflating its data (asynchronously): the virtual time budget
    // lets it finish before the picture is taken.
    let out = headless(
        "shot",
        &[&shot, "--window-size=1280,1600", "--hide-scrollbars", "--virtual-time-budget=5000"],
        &format!("file://{}", html.display()),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(&png).expect("screenshot");
    assert!(bytes.starts_with(b"\x89PNG") && bytes.len() > 50_000, "{} bytes", bytes.len());
}

#[test]
fn an_mpi_run_s_otf2_and_paraver_name_the_mpi_calls_as_score_p_and_extrae_do() {
    // `p2p.c` on its default ranks: every MPI call it makes is one region, of paradigm MPI
    // with Score-P's role, and nothing of the library's insides shows; the Paraver trace
    // carries Extrae's MPI events (MPI_Send = 1 and MPI_Recv = 2 in type 50000001) and
    // passes BSC's checker.
    let (_, cpt) = records().iter().find(|(n, _)| n == "mpi_p2p").expect("mpi_p2p ran");
    let dir = tempdir("truth-mpi-names");
    if otf2_print().is_some() {
        let anchor = dir.join("p2p.otf2");
        let args = [cpt.to_str().unwrap(), "--format", "otf2", "-o", anchor.to_str().unwrap()];
        assert_eq!(run_in(&dir, "cptrace", &args, b"").status.code(), Some(0));
        let events = otf2_events(&anchor, "mpi_p2p");
        let regions: std::collections::BTreeSet<&str> =
            events.iter().filter(|f| f[0] == "ENTER").map(|f| f[4].trim_matches('"')).collect();
        assert!(regions.contains("MPI_Send") && regions.contains("MPI_Recv"), "{regions:?}");
        assert!(regions.iter().all(|r| !r.starts_with("__cppe")), "library insides: {regions:?}");
        let defs = std::process::Command::new(otf2_print().unwrap()).arg("-G").arg(&anchor).output().unwrap();
        let defs = String::from_utf8_lossy(&defs.stdout);
        let send = defs.lines().find(|l| l.contains("Name: \"MPI_Send\"")).expect("MPI_Send defined");
        assert!(send.contains("Role: POINT2POINT, Paradigm: MPI"), "{send}");
        let init = defs.lines().find(|l| l.contains("Name: \"MPI_Init\"")).expect("MPI_Init defined");
        assert!(init.contains("Role: FUNCTION, Paradigm: MPI"), "{init}");
        assert!(defs.contains("\"MPI_COMM_WORLD\""), "{defs}");
    }
    let prv = dir.join("p2p.prv");
    let args = [cpt.to_str().unwrap(), "--format", "paraver", "-o", prv.to_str().unwrap()];
    assert_eq!(run_in(&dir, "cptrace", &args, b"").status.code(), Some(0));
    let pcf = std::fs::read_to_string(prv.with_extension("pcf")).unwrap();
    assert!(pcf.contains("9    50000001    MPI Point-to-point\nVALUES\n1   MPI_Send\n2   MPI_Recv\n"), "{pcf}");
    let text = std::fs::read_to_string(&prv).unwrap();
    let sends = text.lines().filter(|l| l.starts_with("2:") && l.contains(":50000001:1")).count();
    let ends = text.lines().filter(|l| l.starts_with("2:") && l.contains(":50000001:0")).count();
    assert!(sends > 0 && ends >= sends, "{sends} MPI_Send events, {ends} ends");
    if let Some(ptd) = reader("ptd", "Paraver traces checked by pertalde") {
        let check = std::process::Command::new(&ptd).args(["comprovar", "-e"]).arg(&prv).output().unwrap();
        assert!(check.status.success(), "pertalde: {}", String::from_utf8_lossy(&check.stderr));
    }
}
