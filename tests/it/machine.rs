//! `cpss --machine`, `--runs` and `--sweep` from the command line (SPEC §8–9).
use crate::harness::*;
use std::path::{Path, PathBuf};

fn compile(dir: &Path, name: &str) -> PathBuf {
    let src = fixtures().join(name);
    let cod = dir.join(name).with_extension("cod");
    let inc = fixtures().join("include");
    let out =
        run_in(dir, "cpcc", &["-I", inc.to_str().unwrap(), src.to_str().unwrap(), "-o", cod.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    cod
}

fn machine(name: &str) -> String {
    fixtures().join("machines").join(name).to_str().unwrap().to_string()
}

/// cpss's standard output, checking the exit code.
fn cpss(dir: &Path, args: &[&str], code: i32) -> String {
    let out = run_in(dir, "cpss", args, b"");
    assert_eq!(out.status.code(), Some(code), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A `--stats csv` data row without the host time (the one field two runs never share;
/// there only with --host-time), counted from the end since sweep rows have parameter
/// columns in front.
fn without_host(header: &str, row: &str) -> String {
    let h: Vec<&str> = header.split(',').collect();
    let Some(at) = h.iter().position(|k| *k == "host_seconds") else { return row.to_string() };
    let from_end = h.len() - at;
    let fields: Vec<&str> = row.split(',').collect();
    let skip = fields.len() - from_end;
    fields.iter().enumerate().filter(|(i, _)| *i != skip).map(|(_, v)| *v).collect::<Vec<_>>().join(",")
}

/// The statistics of a `--stats csv` output, without the configuration and host time.
fn csv_row(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let header: Vec<&str> = lines[lines.len() - 2].split(',').collect();
    let row: Vec<&str> = lines[lines.len() - 1].split(',').collect();
    header.iter().zip(row).filter(|(k, _)| !NOT_STATISTICS.contains(k)).map(|(_, v)| v).collect::<Vec<_>>().join(",")
}

/// Acceptance: an 8x8 mesh given as a link list with uniform links (1-byte flits at 5
/// units per byte = the default link delay of 5, no latency, vCode costs) gives exactly
/// the statistics of `--topology mesh:8x8`.
#[test]
fn uniform_mesh_machine_file_equals_builtin_mesh() {
    let dir = tempdir("machine-mesh");
    let cod = compile(&dir, "matmul.c");
    let cod = cod.to_str().unwrap();
    let a = cpss(&dir, &[cod, "--machine", &machine("mesh8x8.mach"), "--stats", "csv"], 0);
    let b = cpss(&dir, &[cod, "--topology", "mesh:8x8", "--stats", "csv"], 0);
    assert_eq!(csv_row(&a), csv_row(&b));
    // With other network parameters the two still agree: twice the link delay is twice
    // the time per byte.
    let a = cpss(&dir, &[cod, "--machine", &machine("mesh8x8.mach"), "--scale-link-speed", "0.5", "--stats", "csv"], 0);
    let b = cpss(&dir, &[cod, "--topology", "mesh:8x8", "--link-delay", "10", "--stats", "csv"], 0);
    assert_eq!(csv_row(&a), csv_row(&b));
}

#[test]
fn every_fixture_machine_runs() {
    let dir = tempdir("machine-fixtures");
    let cod = compile(&dir, "matmul.c");
    for m in ["meiko_cs2_fattree16.mach", "hetero_cluster8.mach", "mesh8x8.mach"] {
        let out = cpss(&dir, &[cod.to_str().unwrap(), "--machine", &machine(m)], 0);
        assert!(out.contains("Parallel Execution Time"), "{m}: {out}");
    }
    // The cylinder's rings of links close cycles of shortest routes; its routes' lane
    // classes (up*/down* turns, man cpss) keep matmul's traffic free of deadlock with the
    // default two lanes, and with one lane a cycle is resolved: the run completes.
    let cyl = machine("transputer_cylinder_8x9.mach");
    let out = cpss(&dir, &[cod.to_str().unwrap(), "--machine", &cyl], 0);
    assert!(out.contains("Parallel Execution Time"), "{out}");
    let out = cpss(&dir, &[cod.to_str().unwrap(), "--machine", &cyl, "--network", "packet"], 0);
    assert!(out.contains("Parallel Execution Time"), "{out}");
}

/// `--runs 10` on a machine whose timings have an sd prints mean, sd and confidence
/// interval, with a non-zero sd; with every sd 0 every run is the same and sd is 0.
#[test]
fn runs_report_mean_sd_and_interval() {
    let dir = tempdir("machine-runs");
    let cod = compile(&dir, "matmul.c");
    let cod = cod.to_str().unwrap();
    let text = cpss(&dir, &[cod, "--machine", &machine("hetero_cluster8.mach"), "--runs", "10"], 0);
    assert!(text.contains("Statistics over 10 runs (mean, sd, 95% confidence interval"), "{text}");
    let csv = cpss(&dir, &[cod, "--machine", &machine("hetero_cluster8.mach"), "--runs", "10", "--stats", "csv"], 0);
    assert!(csv.starts_with("statistic,mean,sd,ci95_low,ci95_high,min,max,n\n"), "{csv}");
    let field = |csv: &str, name: &str, k: usize| -> f64 {
        let line = csv.lines().find(|l| l.starts_with(&format!("{name},"))).unwrap();
        line.split(',').nth(k).unwrap().parse().unwrap()
    };
    let (mean, sd, lo, hi) = (
        field(&csv, "par_time", 1),
        field(&csv, "par_time", 2),
        field(&csv, "par_time", 3),
        field(&csv, "par_time", 4),
    );
    assert!(sd > 0.0 && lo < mean && mean < hi, "{csv}");
    // The extremes bracket the mean, and with sd > 0 they differ.
    let (min, max) = (field(&csv, "par_time", 5), field(&csv, "par_time", 6));
    assert!(min < mean && mean < max, "{csv}");
    // Half-width = t(0.975, 9) sd / sqrt(10) = 2.262 sd / 3.1623.
    assert!(((hi - mean) - 2.262 * sd / 10f64.sqrt()).abs() < 1e-3, "{csv}");
    let fixed = cpss(&dir, &[cod, "--machine", &machine("mesh8x8.mach"), "--runs", "3", "--stats", "csv"], 0);
    for stat in ["seq_time", "par_time", "messages", "avg_latency"] {
        assert_eq!(field(&fixed, stat, 2), 0.0, "{stat}: {fixed}");
        assert_eq!(field(&fixed, stat, 5), field(&fixed, stat, 6), "{stat}: {fixed}");
    }
}

/// `--runs N --vary-speed S` draws run i's processor speeds from S+i: the parallel time
/// varies (sd > 0), sequential time does not (speed factors do not scale it), and run 0
/// is the plain `--vary-speed S` run, so the minimum is at most its parallel time.
#[test]
fn runs_with_vary_speed_draw_a_new_machine_per_run() {
    let dir = tempdir("runs-vary-speed");
    let cod = compile(&dir, "matmul.c");
    let cod = cod.to_str().unwrap();
    let csv = cpss(&dir, &[cod, "--vary-speed", "7", "--runs", "4", "--stats", "csv"], 0);
    let field = |name: &str, k: usize| -> f64 {
        let line = csv.lines().find(|l| l.starts_with(&format!("{name},"))).unwrap();
        line.split(',').nth(k).unwrap().parse().unwrap()
    };
    assert!(field("par_time", 2) > 0.0, "{csv}");
    assert_eq!(field("seq_time", 2), 0.0, "{csv}");
    let one = cpss(&dir, &[cod, "--vary-speed", "7", "--stats", "csv"], 0);
    // The single run's CSV is one header line and one row; par_time is its second column.
    assert!(one.starts_with("seq_time,par_time,"), "{one}");
    let par: f64 = one.lines().nth(1).and_then(|row| row.split(',').nth(1)).unwrap().parse().unwrap();
    assert!(field("par_time", 5) <= par && par <= field("par_time", 6), "{one}\n{csv}");
}

/// Acceptance: every sweep row equals the statistics of running its configuration alone.
#[test]
fn sweep_rows_equal_single_runs() {
    let dir = tempdir("machine-sweep");
    let cod = compile(&dir, "ring_token.c");
    let cod = cod.to_str().unwrap();
    let out = cpss(&dir, &[cod, "--sweep", "link-delay=1,3", "--sweep", "packet-size=8,64"], 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "header and 2 × 2 rows: {out}");
    assert!(lines[0].starts_with("link-delay,packet-size,seq_time,par_time,"), "{out}");
    let mut i = 1;
    for ld in ["1", "3"] {
        for ps in ["8", "64"] {
            let alone = cpss(&dir, &[cod, "--link-delay", ld, "--packet-size", ps, "--stats", "csv"], 0);
            let alone: Vec<&str> = alone.lines().collect();
            let expected = format!("{ld},{ps},{}", alone[alone.len() - 1]);
            assert_eq!(without_host(lines[0], lines[i]), without_host(lines[0], &expected));
            i += 1;
        }
    }
    let bad = run_in(&dir, "cpss", &[cod, "--sweep", "link-delay=1,x"], b"");
    assert_eq!(bad.status.code(), Some(2));
    let bad = run_in(&dir, "cpss", &[cod, "--sweep", "lane-count=1,2"], b"");
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn machine_file_errors_name_file_and_line() {
    let dir = tempdir("machine-errors");
    let cod = compile(&dir, "ring_token.c");
    let bad = dir.join("bad.mach");
    std::fs::write(
        &bad,
        "begin machine\nbegin processor\nid = 1\nbegin timings\nADDX = 1\nend timings\nend processor\nend machine\n",
    )
    .unwrap();
    let out = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--machine", bad.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.mach:5: `addx` is not a vCode instruction"), "{err}");
}

#[test]
fn completions_are_generated() {
    let out = run("cpss", &["--completions", "bash"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("--machine") && text.contains("--sweep"), "{text}");
}

/// `scripts/sweep.mk`: one row per configuration gathered into the CSV, a baseline kept,
/// `check` passing against itself and failing on a slower network, in another folder
/// and in the baseline's own (whose old statistics must not be reused). The slower network is
/// `--msg-init 40` instead of the default 5: every message starts 35 units later, so the
/// ring's parallel time grows far beyond the 2 % tolerance, and `cpperf compare` must
/// flag it (exit 1), which stops make with a non-zero status.
#[test]
fn sweep_makefile_gathers_rows_and_checks_against_a_baseline() {
    let dir = tempdir("machine-sweep-mk");
    let make = |args: &[&str]| {
        std::process::Command::new("make")
            .arg("-s")
            .arg("-f")
            .arg(root().join("scripts/sweep.mk"))
            .arg(format!("CPCC={}", tool("cpcc").display()))
            .arg(format!("CPSS={}", tool("cpss").display()))
            .arg(format!("CPPERF={}", tool("cpperf").display()))
            .arg(format!("PROGRAM={}", fixtures().join("ring_token.c").display()))
            .args(["VALUES1=8 64", "VALUES2=1 3"])
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("make runs (make is part of the build machine)")
    };
    let out = make(&["all"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 5, "header and 2 × 2 configurations: {csv}");
    assert!(lines[0].starts_with("packet-size,link-delay,seq_time,par_time,"), "{csv}");
    // Configuration order is the order of `cpss --sweep`: VALUES1 outer, VALUES2 inner.
    let firsts: Vec<String> = lines[1..].iter().map(|l| l.split(',').take(2).collect::<Vec<_>>().join(",")).collect();
    assert_eq!(firsts, ["8,1", "8,3", "64,1", "64,3"]);

    assert!(make(&["baseline"]).status.success());
    let same = make(&["check"]);
    assert!(same.status.success(), "{}", String::from_utf8_lossy(&same.stdout));

    let slower = make(&["check", "DIR=slow.d", "EXTRA=--msg-init 40"]);
    assert!(!slower.status.success(), "a slower network must fail the check");
    // In the same folder as the baseline's runs: the statistics depend on the flags, so
    // the check runs every configuration again instead of passing on the old files.
    let again = make(&["check", "EXTRA=--msg-init 40"]);
    assert!(!again.status.success(), "changed flags in the same folder must run again and fail");
    let report = String::from_utf8_lossy(&again.stdout);
    assert!(report.contains("regression against"), "{report}");
    let report = String::from_utf8_lossy(&slower.stdout);
    assert!(report.contains("regression against") && report.contains("REGRESSION"), "{report}");
    assert!(report.lines().any(|l| l.starts_with("par_time") && l.ends_with("REGRESSION")), "{report}");
}

/// A topology's creation time (seed 004: "if a program ... uses this topology, the
/// creation time must be added"): `pair_creation.mach` has two topologies that differ
/// only in it, 250 units against 0. The main process starts once the topology is
/// created, so every event moves 250 later and the parallel time grows by exactly 250
/// (250 is a multiple of the 10-unit quantum, so no turn changes its place in a
/// quantum); the sequential time (work) does not change. `--topology-id` chooses the
/// topology, and a file's values that drive nothing are warned about once each.
#[test]
fn creation_time_is_added_and_topology_id_chooses() {
    let dir = tempdir("machine-creation");
    let cod = compile(&dir, "ring_token.c");
    let cod = cod.to_str().unwrap();
    let m = machine("pair_creation.mach");
    let stat = |out: &str, key: &str| -> u64 {
        let line = out.lines().find(|l| l.starts_with(key)).unwrap_or_else(|| panic!("{key}: {out}"));
        line.rsplit(' ').next().unwrap().parse().unwrap()
    };
    let one = cpss(&dir, &[cod, "--machine", &m], 0);
    let two = cpss(&dir, &[cod, "--machine", &m, "--topology-id", "2"], 0);
    let par = "Parallel Execution Time =";
    assert_eq!(stat(&one, par), stat(&two, par) + 250, "{one}\n{two}");
    let seq = "Sequential Execution Time =";
    assert_eq!(stat(&one, seq), stat(&two, seq));
    let out = run_in(&dir, "cpss", &[cod, "--machine", &m], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("cpss: warning:")).collect();
    assert_eq!(warnings.len(), 3, "{err}");
    assert!(err.contains("pair_creation.mach:9: `pr(1).smallloopspeedup` (small-loop speed-up) is read but does not change the simulation"), "{err}");
    assert!(err.contains("pair_creation.mach:34: `pv.send` (machine-wide section) is read"), "{err}");
    assert!(
        err.contains("pair_creation.mach:24: topology 2 is not simulated (topology 1 is; choose with --topology-id)"),
        "{err}"
    );
    // Repetitions say it once too.
    let out = run_in(&dir, "cpss", &[cod, "--machine", &m, "--runs", "2"], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().filter(|l| l.starts_with("cpss: warning:")).count(), 3, "{err}");
    let out = run_in(&dir, "cpss", &[cod, "--machine", &m, "--topology-id", "3"], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--topology-id 3: the file's topologies are 1, 2"), "{err}");
}

/// Parallel links (seed 004's link list may join a pair twice): `pair_parallel.mach`'s
/// topology 1 joins its two processors by one link, topology 2 by two, each 5 units per
/// byte and no latency. `two_messages.c` sends two 4-byte messages back to back, g units
/// apart (read from the record). With the packet network a message is one packet of 4
/// one-byte flits: 5 (msg-init) + 1 (packet-init) + 4 × 5 = 26 units in an idle network.
/// On one link the second message waits for the first to leave it: it arrives 20 - g
/// later than alone, its contention delay. Two links are used in turn, message by
/// message: the second message takes the other link and its contention delay is 0. The
/// average latency is then 26, against 26 + (20 - g)/2 with one link.
#[test]
fn a_parallel_link_takes_the_second_message_off_the_first_one_s_queue() {
    let dir = tempdir("machine-parallel");
    let cod = compile(&dir, "two_messages.c");
    let cod = cod.to_str().unwrap();
    let m = machine("pair_parallel.mach");
    // (send, arrival) times in units of the two messages, in send order.
    let times = |id: &str| -> Vec<(f64, f64)> {
        let args =
            [cod, "--machine", &m, "--topology-id", id, "--network", "packet", "-t", "run.cpt", "--stats", "none"];
        assert!(cpss(&dir, &args, 0).contains('3'));
        let out = run_in(&dir, "cptrace", &["run.cpt", "--format", "sddf"], b"");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let fields = |l: &str| -> Vec<f64> {
            let body = l.split_once('{').unwrap().1.split_once('}').unwrap().0;
            body.split(',').map(|x| x.trim().parse().unwrap()).collect()
        };
        let sends: Vec<Vec<f64>> = text.lines().filter(|l| l.starts_with("\"msg_send\" { ")).map(fields).collect();
        let arrs: Vec<Vec<f64>> = text.lines().filter(|l| l.starts_with("\"msg_arr\" { ")).map(fields).collect();
        assert_eq!((sends.len(), arrs.len()), (2, 2), "{text}");
        (0..2)
            .map(|k| {
                let a = arrs.iter().find(|a| a[1] == sends[k][1]).unwrap();
                (sends[k][0] * 1e6, a[0] * 1e6)
            })
            .collect()
    };
    let (one, two) = (times("1"), times("2"));
    let gap = one[1].0 - one[0].0;
    assert!(gap > 0.0 && gap < 20.0, "the second send comes while the first crosses: {one:?}");
    let latency = |t: (f64, f64)| t.1 - t.0;
    let alone = 26.0;
    assert!((latency(one[0]) - alone).abs() < 1e-6, "{one:?}");
    assert!((latency(one[1]) - (alone + 20.0 - gap)).abs() < 1e-6, "one link: {one:?}");
    assert!((latency(two[0]) - alone).abs() < 1e-6 && (latency(two[1]) - alone).abs() < 1e-6, "two links: {two:?}");
}

/// `--runs N --lines` sums each source line's busy time over the runs (seed 002 §8.2's
/// per-line profile, repeated): matmul does not draw random numbers, so two runs are the
/// same run and every line's mean is the single run's per-line time `cpperf --table
/// lines` reads from its record, with sd 0; with `--vary-speed` the lines vary.
#[test]
fn runs_sum_line_costs_per_line() {
    let dir = tempdir("runs-lines");
    let cod = compile(&dir, "matmul.c");
    let cod = cod.to_str().unwrap();
    let csv = cpss(&dir, &[cod, "--runs", "2", "--lines", "--stats", "csv"], 0);
    let rows: Vec<Vec<&str>> = csv.lines().filter(|l| l.starts_with("line_")).map(|l| l.split(',').collect()).collect();
    assert!(rows.len() > 10, "{csv}");
    cpss(&dir, &[cod, "-t", "one.cpt", "--stats", "none"], 0);
    let out = run_in(&dir, "cpperf", &["one.cpt", "--table", "lines"], b"");
    let table = String::from_utf8_lossy(&out.stdout).into_owned();
    for r in &rows {
        let line = r[0].trim_start_matches("line_");
        let want: f64 = table
            .lines()
            .find(|l| l.split(',').next() == Some(line))
            .unwrap_or_else(|| panic!("line {line} not in {table}"))
            .split(',')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let (mean, sd): (f64, f64) = (r[1].parse().unwrap(), r[2].parse().unwrap());
        assert!((mean - want).abs() < 1e-3 && sd == 0.0, "line {line}: {mean} sd {sd}, record {want}");
    }
    let varied = cpss(&dir, &[cod, "--runs", "3", "--vary-speed", "5", "--lines", "--stats", "csv"], 0);
    let sd41: f64 =
        varied.lines().find(|l| l.starts_with("line_41,")).unwrap().split(',').nth(2).unwrap().parse().unwrap();
    assert!(sd41 > 0.0, "{varied}");
    let out = run_in(&dir, "cpss", &[cod, "--lines"], b"");
    assert_eq!(out.status.code(), Some(2));
}

/// The sequential time of `groups.c` under `--scale-group` overrides, from `--stats csv`.
fn groups_seq(dir: &Path, cod: &str, extra: &[&str]) -> f64 {
    let out = cpss(dir, &[&[cod, "--stats", "csv"][..], extra].concat(), 0);
    let lines: Vec<&str> = out.lines().collect();
    let header: Vec<&str> = lines[lines.len() - 2].split(',').collect();
    let row: Vec<&str> = lines[lines.len() - 1].split(',').collect();
    row[header.iter().position(|k| *k == "seq_time").unwrap()].parse().unwrap()
}

/// Group overrides by function, data type and variable place (seed 004 §3.2.2), derived
/// from `groups.c`'s listing (`cpcc -S`): its global accesses are LDADDR (1 unit) at
/// pcs 0, 3 and 29, LDVal (2) at pc 30, and per iteration LDADDR, LDVal, LDADDR, LDVal
/// (6 units) × 100 = 605 units, so `global=2` adds 605; the local ones are LDADDR at pc
/// 6 (1), the loop test's LDVal 101 times (202), LDVal in the body and LDADDR of the
/// increment 100 times (200 + 100): `local=2` adds 503. `function:add=3` triples the 100
/// ADDIs (1 unit each): + 200; `function:mul=3` the 100 MULDs (3 units): + 600;
/// `type:double=2` doubles the 100 PUSHDs (1) and MULDs (3): + 400. Groups overlap and
/// multiply: `function:mul=3` with `type:double=2` makes a MULD cost 18 and a PUSHD 2,
/// + 1500 + 100. `spmd=2` changes nothing in a program without parallel operations.
#[test]
fn group_overrides_scale_functions_types_and_variable_places() {
    let dir = tempdir("machine-groups");
    let cod = compile(&dir, "groups.c");
    let cod = cod.to_str().unwrap();
    let base = groups_seq(&dir, cod, &[]);
    let delta = |groups: &[&str]| {
        let args: Vec<&str> = groups.iter().flat_map(|g| ["--scale-group", *g]).collect();
        groups_seq(&dir, cod, &args) - base
    };
    assert_eq!(delta(&["global=2"]), 605.0);
    assert_eq!(delta(&["local=2"]), 503.0);
    assert_eq!(delta(&["function:add=3"]), 200.0);
    assert_eq!(delta(&["function:mul=3"]), 600.0);
    assert_eq!(delta(&["type:double=2"]), 400.0);
    assert_eq!(delta(&["function:mul=3", "type:double=2"]), 1600.0);
    assert_eq!(delta(&["spmd=2"]), 0.0);
    // One instruction: the 100 ADDIs again.
    assert_eq!(delta(&["op:ADDI=3"]), 200.0);
    for (bad, says) in [
        ("function:frob=2", "no instruction computes `frob`"),
        ("type:quad=2", "unknown data type `quad`"),
        ("spmd:ADDI=2", "ADDI is not an operation of the parallel run-time"),
        ("proc-type:1=2", "processor types are a machine file's"),
        ("local=0", "not a factor"),
    ] {
        let out = run_in(&dir, "cpss", &[cod, "--scale-group", bad], b"");
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{bad}: {err}");
    }
    // Factors multiply past the largest time quantity: a global LDVal (2 units) × 10^6 ×
    // 10^6 is 2·10^12 units, refused like any too large cost.
    let out = run_in(&dir, "cpss", &[cod, "--scale-group", "global=1e6", "--scale-group", "op:LDVal=1e6"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("more than 10^12 units"));
}

/// Group overrides per processor type and the SPMD factor (seed 004 §3.2.3–3.2.4) on
/// `pair_types.mach`: processor 1 is of type 1, processor 2 of type 2, one link of 5
/// units per byte and latency 3 between them. `two_messages.c`'s first 4-byte message
/// alone (packet network, one packet of four one-byte flits) takes msg-init 5 +
/// packet-init 1 + 4 × 5 + 3 = 29 units. `link-speed:2=2` (the link has an end on a type-2
/// processor) halves the 20 units of flits: 19; `latency:1=2` doubles the latency: 32;
/// `spmd=2` doubles msg-init: 34 (and the run-time's instructions, so the send comes
/// later). `proc-type:1=2` doubles every instruction cost on processor 1, where `main`
/// runs `groups.c` alone: its sequential time doubles; `proc-type:2=2` leaves it.
#[test]
fn group_overrides_per_processor_type_and_the_spmd_factor() {
    let dir = tempdir("machine-groups-types");
    let cod = compile(&dir, "two_messages.c");
    let cod = cod.to_str().unwrap();
    let m = machine("pair_types.mach");
    let first_latency = |group: Option<&str>| -> f64 {
        let mut args = vec![cod, "--machine", &m, "--network", "packet", "-t", "run.cpt", "--stats", "none"];
        if let Some(g) = group {
            args.extend(["--scale-group", g]);
        }
        assert!(cpss(&dir, &args, 0).contains('3'));
        let out = run_in(&dir, "cptrace", &["run.cpt", "--format", "sddf"], b"");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let first = |kind: &str| -> f64 {
            let l = text.lines().find(|l| l.starts_with(&format!("\"{kind}\" {{ 0."))).unwrap();
            l.split_once('{').unwrap().1.split(',').next().unwrap().trim().parse::<f64>().unwrap() * 1e6
        };
        ((first("msg_arr") - first("msg_send")) * 1e3).round() / 1e3
    };
    assert_eq!(first_latency(None), 29.0);
    assert_eq!(first_latency(Some("link-speed:2=2")), 19.0);
    assert_eq!(first_latency(Some("latency:1=2")), 32.0);
    assert_eq!(first_latency(Some("spmd=2")), 34.0);
    let g = compile(&dir, "groups.c");
    let g = g.to_str().unwrap();
    let base = groups_seq(&dir, g, &["--machine", &m]);
    assert_eq!(groups_seq(&dir, g, &["--machine", &m, "--scale-group", "proc-type:1=2"]), 2.0 * base);
    assert_eq!(groups_seq(&dir, g, &["--machine", &m, "--scale-group", "proc-type:2=2"]), base);
    let out = run_in(&dir, "cpss", &[g, "--machine", &m, "--scale-group", "latency:3=2"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no processor of type 3 (its types: 1, 2)"));
}
