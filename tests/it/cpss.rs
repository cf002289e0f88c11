//! `cpss`: every fixture program prints the output its header promises; the pipeline and
//! output rules of SPEC §1; exact times; mapping and determinism properties; errors and
//! limits with their exit codes.
use crate::harness::*;
use std::path::Path;

/// The `Expected output:` block of a fixture header, or `None` when the header defers
/// to a test.
fn expected_output(src: &str) -> Option<String> {
    let start = src.find(" * Expected output:\n")? + " * Expected output:\n".len();
    let end = start + src[start..].find(" */")?;
    let block = &src[start..end];
    if block.contains("(checksum computed") {
        return None;
    }
    let lines: Vec<&str> =
        block.lines().map(|l| l.strip_prefix(" * ").unwrap_or(l.strip_prefix(" *").unwrap_or(l))).collect();
    Some(lines.iter().map(|l| format!("{l}\n")).collect())
}

#[test]
fn every_fixture_prints_its_expected_output() {
    let dir = tempdir("cpss-fixtures");
    let mut checked = 0;
    for src in files_with_ext(&fixtures(), "c") {
        let text = std::fs::read_to_string(&src).unwrap();
        let Some(want) = expected_output(&text) else { continue };
        let cod = compile_into(&dir, &src);
        let mut args = vec![cod.to_str().unwrap().to_string(), "--stats".into(), "none".into()];
        let input = src.with_extension("in");
        if input.exists() {
            args.push("--input".into());
            args.push(input.to_str().unwrap().into());
        }
        let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        let out = run_in(&dir, "cpss", &args, b"");
        assert_eq!(out.status.code(), Some(0), "{}: {}", src.display(), String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{}", src.display());
        checked += 1;
    }
    assert!(checked >= 18, "only {checked} fixtures checked");
}

/// The seed program plus a checksum: the simulated product equals a sequential
/// computation in the test from the same `rand()` stream (seed 0): a and b are filled
/// row-major with rand()*5, and c[i][j] accumulates a[i][k]*b[k][j] for
/// k = (i+j+iter) % 8, iter = 0..7, in float (the order the processes of Figure 28 use).
#[test]
fn matmul_check_checksum_equals_sequential_computation() {
    let mut rng = cppe::rng::Rng::new(0);
    let mut next = || cppe::sim::rng::next_f32(&mut rng) * 5.0f32;
    let mut a = [[0f32; 8]; 8];
    let mut b = [[0f32; 8]; 8];
    for row in a.iter_mut() {
        for x in row.iter_mut() {
            *x = next();
        }
    }
    for row in b.iter_mut() {
        for x in row.iter_mut() {
            *x = next();
        }
    }
    let mut c = [[0f32; 8]; 8];
    let mut sum = 0f32;
    for i in 0..8 {
        for j in 0..8 {
            let mut acc = 0f32;
            for iter in 0..8 {
                let k = (i + j + iter) % 8;
                acc += a[i][k] * b[k][j];
            }
            c[i][j] = acc;
            sum += acc;
        }
    }
    let want = format!(
        "checksum {:.4}\nc[0][0] {:.4} c[3][5] {:.4} c[7][7] {:.4}\n",
        sum as f64, c[0][0] as f64, c[3][5] as f64, c[7][7] as f64
    );
    let dir = tempdir("cpss-matmul-check");
    let cod = compile_into(&dir, &fixtures().join("matmul_check.c"));
    for topo in ["mesh:8x8", "torus:8x8", "ring:64"] {
        let out = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--topology", topo, "--stats", "none"], b"");
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "on {topo}");
    }
}

fn stats_csv(dir: &Path, cod: &Path, extra: &[&str]) -> Vec<(String, String)> {
    let mut args = vec![cod.to_str().unwrap(), "--stats", "csv"];
    args.extend_from_slice(extra);
    let out = run_in(dir, "cpss", &args, b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let csv: Vec<&str> = text.lines().rev().take(2).collect();
    let (header, row) = (csv[1], csv[0]);
    header.split(',').map(String::from).zip(row.split(',').map(String::from)).collect()
}

fn stat<'a>(s: &'a [(String, String)], key: &str) -> &'a str {
    &s.iter().find(|(k, _)| k == key).unwrap_or_else(|| panic!("no {key} in {s:?}")).1
}

/// Seed Table 4: with as many virtual as physical processors, Default and Identity give
/// identical statistics. Sequential time does not depend on quantum, topology or mapping.
#[test]
fn default_equals_identity_and_sequential_time_is_invariant() {
    let dir = tempdir("cpss-table4");
    let cod = compile_into(&dir, &fixtures().join("matmul.c"));
    let strip = |s: Vec<(String, String)>| {
        s.into_iter().filter(|(k, _)| !NOT_STATISTICS.contains(&k.as_str())).collect::<Vec<_>>()
    };
    let d = strip(stats_csv(&dir, &cod, &["--topology", "mesh:8x8", "--mapping", "default"]));
    let i = strip(stats_csv(&dir, &cod, &["--topology", "mesh:8x8", "--mapping", "identity"]));
    assert_eq!(d, i);
    let seq = stat(&d, "seq_time").to_string();
    for extra in [
        &["--topology", "mesh:8x8", "--mapping", "random", "--seed", "3"][..],
        &["--topology", "torus:8x8", "--quantum", "7"],
        &["--topology", "ring:64", "--mapping", "torus2mesh"],
        &["--topology", "mesh:4x4"],
    ] {
        let s = stats_csv(&dir, &cod, extra);
        assert_eq!(stat(&s, "seq_time"), seq, "{extra:?}");
    }
}

/// Same inputs, same bytes: statistics (host time aside) and run records.
#[test]
fn runs_are_deterministic() {
    let dir = tempdir("cpss-determinism");
    let cod = compile_into(&dir, &fixtures().join("matmul.c"));
    let c = cod.to_str().unwrap();
    for f in ["a.cpt", "b.cpt"] {
        let out =
            run_in(&dir, "cpss", &[c, "--mapping", "random", "--seed", "5", "--topology", "mesh:8x8", "-t", f], b"");
        assert_eq!(out.status.code(), Some(0));
    }
    let (a, b) = (std::fs::read(dir.join("a.cpt")).unwrap(), std::fs::read(dir.join("b.cpt")).unwrap());
    assert!(a.len() > 1000);
    assert_eq!(a, b);
}

/// `cpcc p.c | cpss | …`: the run record goes to stdout, the program output and
/// statistics to stderr; with a file argument stdout stays text.
#[test]
fn pipeline_rule() {
    let dir = tempdir("cpss-pipe");
    let cod = compile_into(&dir, &fixtures().join("ring_token.c"));
    let bytes = std::fs::read(&cod).unwrap();
    let out = run_in(&dir, "cpss", &[], &bytes);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.starts_with(b"CPPE\0RUN"), "run record on stdout");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("lap 3 token 108") && err.contains("Speedup"), "{err}");
    let mut reader = cppe::trace::RunRecordReader::open(&out.stdout[..]).unwrap().0;
    let mut n = 0;
    while reader.next_event().unwrap().is_some() {
        n += 1;
    }
    let footer = reader.footer().unwrap();
    assert_eq!(footer.event_count, n);
    let out = run_in(&dir, "cpss", &[cod.to_str().unwrap()], b"");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("lap 1 token 36\n"));
}

/// `-t -` puts the run record on standard output, as `-` means for every tool, even
/// with the program given as a file: the record there is the same as `-t FILE` writes
/// (byte for byte: runs are deterministic), no file named `-` appears, and the program's
/// output and statistics move to standard error. With the debugger, whose transcript
/// uses standard output, it is a usage error (exit 2).
#[test]
fn trace_to_standard_output() {
    let dir = tempdir("cpss-trace-stdout");
    let cod = compile_into(&dir, &fixtures().join("ring_token.c"));
    let cod = cod.to_str().unwrap();
    let out = run_in(&dir, "cpss", &[cod, "-t", "-"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("lap 3 token 108") && err.contains("Speedup"), "{err}");
    assert!(!dir.join("-").exists(), "no file named -");
    let file = run_in(&dir, "cpss", &[cod, "-t", "run.cpt"], b"");
    assert_eq!(file.status.code(), Some(0));
    assert_eq!(out.stdout, std::fs::read(dir.join("run.cpt")).unwrap(), "same record as -t FILE");
    let dbg = run_in(&dir, "cpss", &[cod, "-t", "-", "--debug"], b"quit\n");
    assert_eq!(dbg.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&dbg.stderr).contains("-t -"), "{}", String::from_utf8_lossy(&dbg.stderr));
}

/// A two-process deadlock exits 1 and names both processes, their lines and channels.
#[test]
fn deadlock_report() {
    let dir = tempdir("cpss-deadlock");
    let cod = compile_into(&dir, &fixtures().join("errors").join("deadlock.c"));
    let out = run_in(&dir, "cpss", &[cod.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("deadlock"), "{err}");
    // Each process named with its function and place in the source, process 0 too.
    assert!(
        err.contains("in ping at ") && err.contains("deadlock.c:14: waiting for a message on channel toPing"),
        "{err}"
    );
    assert!(
        err.contains("in pong at ") && err.contains("deadlock.c:20: waiting for a message on channel toPong"),
        "{err}"
    );
}

/// Division by zero exits 1 naming the line (fixture header: line 14).
#[test]
fn division_by_zero_names_the_line() {
    let dir = tempdir("cpss-divzero");
    let cod = compile_into(&dir, &fixtures().join("errors").join("divzero.c"));
    let out = run_in(&dir, "cpss", &[cod.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("divzero.c:14)") && err.contains("division by zero"), "{err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "10 / 2 = 5\n");
}

/// `--max-time` stops with exit 3 and the statistics so far.
#[test]
fn max_time_exits_3() {
    let dir = tempdir("cpss-maxtime");
    let cod = compile_into(&dir, &fixtures().join("matmul.c"));
    let out = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--max-time", "100"], b"");
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Parallel Execution Time"));
}

/// Bad input is exit 2 with a clear message, never a panic.
#[test]
fn bad_inputs_exit_2() {
    let dir = tempdir("cpss-bad");
    std::fs::write(dir.join("junk.cod"), b"not a cod file at all").unwrap();
    let out = run_in(&dir, "cpss", &["junk.cod"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("junk.cod: not a .cod file"));
    let cod = compile_into(&dir, &fixtures().join("ring_token.c"));
    for (args, msg) in [
        (&["--topology", "mesh:0x4"][..], "--topology"),
        (&["--mapping", "nosuch"], "unknown mapping"),
        (&["--mapping", "f(x) = [x + 100]."], "outside the physical architecture"),
        (&["--cost", "FOO=3"], "unknown instruction"),
        (&["--quantum", "0"], "quantum: must be more than 0"),
        (&["--quantum", "ten"], "quantum: "),
    ] {
        let mut a = vec![cod.to_str().unwrap()];
        a.extend_from_slice(args);
        let out = run_in(&dir, "cpss", &a, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(msg), "{args:?}: {err}");
    }
}

/// `--trace-routes` puts every link crossing in the run record (each between neighbours
/// of the 4x4 mesh, entered before it is left, and of a message the record sent), and
/// `--link-stats` reports link busy times, on each network model.
#[test]
fn routes_and_link_loads_are_recorded() {
    let dir = tempdir("cpss-routes");
    let cod = compile_into(&dir, &fixtures().join("ring_token.c"));
    let topo = cppe::topo::Topology::parse("mesh:4x4").unwrap();
    for net in ["wormhole", "packet", "shortest-path"] {
        let rec = dir.join(format!("{net}.cpt"));
        let args = [
            cod.to_str().unwrap(),
            "--topology",
            "mesh:4x4",
            "--network",
            net,
            "--trace-routes",
            "--link-stats",
            "-t",
            rec.to_str().unwrap(),
        ];
        let out = run_in(&dir, "cpss", &args, b"");
        assert_eq!(out.status.code(), Some(0), "{net}: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("Link Utilization:\n  Link "), "{net}: {text}");
        let bytes = std::fs::read(&rec).unwrap();
        let mut reader = cppe::trace::RunRecordReader::open(&bytes[..]).unwrap().0;
        let (mut hops, mut sends) = (0, std::collections::BTreeSet::new());
        while let Some(e) = reader.next_event().unwrap() {
            match e {
                cppe::trace::Event::MsgSend { msg, .. } => {
                    sends.insert(msg);
                }
                cppe::trace::Event::Hop { msg, from, to, enter, leave, .. } => {
                    hops += 1;
                    assert!(topo.neighbours(from).contains(&to), "{net}: {from}->{to}");
                    assert!(enter < leave, "{net}: {enter} {leave}");
                    assert!(msg == u64::MAX || sends.contains(&msg), "{net}: hop of unsent message {msg}");
                }
                _ => {}
            }
        }
        assert!(hops >= 27, "{net}: {hops} crossings for 27 messages");
    }
}

/// `--runs` and `--sweep` honour `--stats json`: each prints one JSON document (checked
/// by serde_json) whose figures are those of the CSV forms.
#[test]
fn runs_and_sweep_print_json() {
    let dir = tempdir("runs-json");
    compile_into(&dir, &fixtures().join("matmul.c"));
    let out = run_in(&dir, "cpss", &["matmul.cod", "--runs", "3", "--stats", "json"], b"");
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--runs --stats json is JSON");
    assert_eq!(doc["schema_version"], 1);
    assert_eq!(doc["runs"], 3);
    let par = doc["statistics"].as_array().unwrap().iter().find(|s| s["name"] == "par_time").unwrap();
    // The seed's matmul on its own 8x8 mesh with the default mapping: 13030 every run
    // (nothing random), so sd 0.
    assert_eq!(par["mean"], 13030.0);
    assert_eq!(par["sd"], 0.0);
    let out = run_in(&dir, "cpss", &["matmul.cod", "--sweep", "quantum=1,2", "--stats", "json"], b"");
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--sweep --stats json is JSON");
    assert_eq!(doc["parameters"], serde_json::json!(["quantum"]));
    let confs = doc["configurations"].as_array().unwrap();
    assert_eq!(confs.len(), 2);
    let csv = run_in(&dir, "cpss", &["matmul.cod", "--sweep", "quantum=1,2", "--stats", "csv"], b"");
    let text = String::from_utf8_lossy(&csv.stdout);
    for (c, row) in confs.iter().zip(text.lines().skip(1)) {
        // The CSV's par_time is its third column (after the quantum and seq_time).
        let par: f64 = row.split(',').nth(2).unwrap().parse().unwrap();
        assert_eq!(c["stats"]["par_time"].as_f64(), Some(par), "{row}");
        assert!(c["error"].is_null());
    }
}

/// `^C` during a run (SIGINT): cpss stops at the next quantum, prints a one-line note and
/// the statistics so far on standard error, exits 130 (128 + SIGINT, what a shell
/// reports for `^C`), and leaves neither the run record nor its temporary file.
#[cfg(unix)]
#[test]
fn interrupt_prints_statistics_so_far_and_leaves_no_file() {
    let dir = tempdir("interrupt");
    std::fs::write(
        dir.join("spin.c"),
        "int main() {\n    int i = 0;\n    while (1) { i = i + 1; }\n    return 0;\n}\n",
    )
    .unwrap();
    let cod = compile_into(&dir, &dir.join("spin.c"));
    let child = spawn_interruptible("cpss", &dir, &[cod.to_str().unwrap(), "-t", "out.cpt"]);
    // The program never ends: wait until the run is under way (the temporary exists).
    let start = std::time::Instant::now();
    while !std::fs::read_dir(&dir).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().contains("out.cpt")) {
        assert!(start.elapsed().as_secs() < 30, "no temporary run record appeared");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    interrupt(&child);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.starts_with("cpss: interrupted at time "), "{stderr}");
    assert!(stderr.contains("no run record written"), "{stderr}");
    // The statistics so far: one process, busy the whole time.
    assert!(stderr.contains("Parallel Execution Time = "), "{stderr}");
    assert!(stderr.contains("Processor 0: 100.0%"), "{stderr}");
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("out.cpt"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// `^C` during `--sweep` and `--runs`: no further configuration or run starts, the
/// finished ones are written (the CSV rows of the finished configurations, the summary
/// of the runs that ended), stderr says how many are missing, and the exit code is 130.
/// Each of the 200 000 configurations (100 000 runs) spins for 100 000 instructions,
/// far more than finishes in the half second before the signal.
#[cfg(unix)]
#[test]
fn interrupt_during_sweep_and_runs_keeps_what_finished() {
    let dir = tempdir("interrupt-sweep");
    std::fs::write(
        dir.join("spin.c"),
        "int main() {\n    int i = 0;\n    while (1) { i = i + 1; }\n    return 0;\n}\n",
    )
    .unwrap();
    let cod = compile_into(&dir, &dir.join("spin.c"));
    let seeds = (1..=500).map(|s| s.to_string()).collect::<Vec<_>>().join(",");
    let steps = (100_000..100_400).map(|s| s.to_string()).collect::<Vec<_>>().join(",");
    let (seeds, steps) = (format!("seed={seeds}"), format!("max-steps={steps}"));
    let sweep = [cod.to_str().unwrap(), "--sweep", &seeds, "--sweep", &steps, "--stats", "csv"];
    let runs = [cod.to_str().unwrap(), "--max-steps", "100000", "--runs", "100000", "--stats", "csv"];
    for (args, what, total) in [(&sweep[..], "configurations missing", 200_000), (&runs[..], "runs not run", 100_000)] {
        let child = spawn_interruptible("cpss", &dir, args);
        std::thread::sleep(std::time::Duration::from_millis(500));
        interrupt(&child);
        let out = child.wait_with_output().unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(130), "{stderr}");
        let line = stderr.lines().find(|l| l.starts_with("cpss: interrupted: ")).expect(&stderr);
        let missing: usize = line["cpss: interrupted: ".len()..].split(' ').next().unwrap().parse().unwrap();
        assert!(line.contains(&format!("of {total} {what}")), "{line}");
        assert!(missing > 0, "{line}");
        if what.starts_with("configurations") {
            // A header, then one row per finished configuration.
            assert_eq!(stdout.lines().count(), 1 + total - missing, "{line}");
        } else {
            assert!(stdout.starts_with("statistic,mean,"), "{stdout}");
        }
    }
}

/// `--config-from RUN.cpt` reruns the options the record keeps: the same program gives a
/// byte-identical record, and a flag on the command line still overrides the record.
#[test]
fn config_from_a_record_reproduces_it_byte_for_byte() {
    let dir = tempdir("config-from");
    let cod = compile_into(&dir, &fixtures().join("matmul.c"));
    let cod = cod.to_str().unwrap();
    let first = run_in(
        &dir,
        "cpss",
        &[
            cod,
            "--topology",
            "torus:8x8",
            "--mapping",
            "random",
            "--seed",
            "3",
            "--link-delay",
            "4",
            "--cost",
            "PUSHI=2",
            "--link-stats",
            "-t",
            "a.cpt",
        ],
        b"",
    );
    assert_eq!(first.status.code(), Some(0), "{}", String::from_utf8_lossy(&first.stderr));
    let again = run_in(&dir, "cpss", &[cod, "--config-from", "a.cpt", "-t", "b.cpt"], b"");
    assert_eq!(again.status.code(), Some(0), "{}", String::from_utf8_lossy(&again.stderr));
    assert!(std::fs::read(dir.join("a.cpt")).unwrap() == std::fs::read(dir.join("b.cpt")).unwrap(), "records differ");
    // The same statistics, but for the host time.
    let strip = |o: &[u8]| {
        String::from_utf8_lossy(o).lines().filter(|l| !l.starts_with("Host Time")).collect::<Vec<_>>().join("\n")
    };
    assert_eq!(strip(&first.stdout), strip(&again.stdout));
    // Without the options the run differs (the default mesh, identity mapping: 13030).
    let plain = run_in(&dir, "cpss", &[cod, "--stats", "csv"], b"");
    assert!(String::from_utf8_lossy(&plain.stdout).lines().nth(1).unwrap().contains(",13030,"));
    let seed4 = run_in(&dir, "cpss", &[cod, "--config-from", "a.cpt", "--seed", "4", "--stats", "csv"], b"");
    let seed3 = run_in(&dir, "cpss", &[cod, "--config-from", "a.cpt", "--stats", "csv"], b"");
    assert_ne!(seed4.stdout, seed3.stdout, "--seed on the command line overrides the record's");
}

/// A `cppe.toml` in the working directory holds options under the command line's;
/// `--no-config` ignores it; `--config FILE` reads another; an unknown key is an error
/// naming the file and line.
#[test]
fn project_configuration_file_and_its_overrides() {
    let dir = tempdir("cppe-toml");
    let cod = compile_into(&dir, &fixtures().join("matmul.c"));
    let cod = cod.to_str().unwrap();
    let par = |args: &[&str]| {
        let out = run_in(&dir, "cpss", &[&[cod, "--stats", "csv"], args].concat(), b"");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).lines().nth(1).unwrap().split(',').nth(1).unwrap().to_string()
    };
    // Defaults: mesh 8x8 (the program's phyArch), identity mapping, 13030 (README).
    assert_eq!(par(&[]), "13030");
    let on_ring = par(&["--topology", "ring:16", "--link-delay", "3"]);
    std::fs::write(dir.join("cppe.toml"), "# project options\ntopology = \"ring:16\"\nlink_delay = 3\n").unwrap();
    assert_eq!(par(&[]), on_ring);
    assert_eq!(par(&["--no-config"]), "13030");
    assert_eq!(par(&["--topology", "mesh:8x8", "--link-delay", "5"]), "13030");
    std::fs::write(dir.join("other.toml"), "[cpss]\ntopology = \"mesh:8x8\"\n").unwrap();
    let mesh3 = par(&["--topology", "mesh:8x8", "--link-delay", "3"]);
    assert_eq!(par(&["--config", "other.toml"]), mesh3, "--config over cppe.toml, option by option");
    std::fs::write(dir.join("cppe.toml"), "topology = \"ring:16\"\nlink-dleay = 3\n").unwrap();
    let out = run_in(&dir, "cpss", &[cod], b"");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "cpss: error: cppe.toml:2: `link-dleay` is not a long option of cpss (see cpss --help); did you mean `link-delay`?\n"
    );
}

/// `--profile` takes the statistics' format: with `--stats csv` a second table after a
/// blank line, `time` then one busy-percent column per used processor, one row per step
/// (matmul: parallel time 13030 in steps of 2000 is 7 rows, 0 to 12000); with `--stats
/// json` a `profile` field holding the same numbers. `cpperf compare` still reads the
/// statistics table in front of it.
#[test]
fn profile_follows_the_statistics_format() {
    let dir = tempdir("profile-format");
    let cod = compile_into(&dir, &fixtures().join("matmul.c"));
    let cod = cod.to_str().unwrap();
    let out = run_in(&dir, "cpss", &[cod, "--profile", "2000", "--stats", "csv"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let (stats, profile) = text.split_once("\n\n").expect("two tables");
    assert!(stats.lines().last().unwrap().starts_with("46108,13030,"), "{stats}");
    let rows: Vec<Vec<&str>> = profile.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows[0].len(), 65, "time and 64 processors");
    assert_eq!((rows[0][0], rows[0][1], rows[0][64]), ("time", "p0", "p63"));
    let times: Vec<&str> = rows[1..].iter().map(|r| r[0]).collect();
    assert_eq!(times, ["0", "2000", "4000", "6000", "8000", "10000", "12000"]);
    assert!(rows[1..].iter().flat_map(|r| &r[1..]).all(|c| (0.0..=100.0).contains(&c.parse::<f64>().unwrap())));
    std::fs::write(dir.join("p.csv"), &text).unwrap();
    let same = run_in(&dir, "cpperf", &["compare", "p.csv", "p.csv"], b"");
    assert_eq!(same.status.code(), Some(0), "{}", String::from_utf8_lossy(&same.stdout));
    let out = run_in(&dir, "cpss", &[cod, "--profile", "2000", "--stats", "json"], b"");
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["profile"]["step"], 2000);
    let jrows = j["profile"]["rows"].as_array().unwrap();
    assert_eq!(jrows.len(), 7);
    for (jr, r) in jrows.iter().zip(&rows[1..]) {
        assert_eq!(jr["time"].to_string(), r[0]);
        let csv0: f64 = r[1].parse().unwrap();
        assert!((jr["percent"][0].as_f64().unwrap() - csv0).abs() < 0.006);
    }
}

/// The repetition summary states its configuration: the machine and mapping once, and
/// the seeds of the runs (run i has seed SEED + i: 5, 6, 7 here).
#[test]
fn runs_summary_states_the_configuration_and_the_seeds() {
    let dir = tempdir("runs-config");
    let cod = compile_into(&dir, &fixtures().join("matmul.c"));
    let cod = cod.to_str().unwrap();
    let out = run_in(&dir, "cpss", &[cod, "--runs", "3", "--seed", "5", "--mapping", "random"], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Machine = mesh:8x8 (virtual torus:8x8, mapping random)\n"), "{text}");
    assert!(text.contains("Seeds = 5 to 7\n"), "{text}");
    let out = run_in(&dir, "cpss", &[cod, "--runs", "3", "--seed", "5", "--stats", "json"], b"");
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["configuration"]["topology"], "mesh:8x8");
    assert_eq!(j["configuration"]["seed"], 5);
    assert_eq!(j["runs"], 3);
}

/// A mapping per parallel phase (seed 000 §1.3.2: "the user can specify a mapping
/// pattern at the beginning of each parallel phase") on `two_phase.c`, whose phases want
/// different mappings of its ring of 8 onto a line of 8: "ring" (neighbours exchange)
/// wants ring2line, "pairs" (partners 4 apart) wants pairs(x) = [2*(x%4) + x/4].
///
/// The phases run one after the other (each ends in joins before the next probe), so a
/// run's parallel time is t0 + T_ring(m) + T_pairs(m), the phase times read from
/// `cpperf --table phases`. Giving each phase its best mapping predicts
/// T* = t0 + min_m T_ring(m) + min_m T_pairs(m), and every single mapping m is slower by
/// Δm = (T_ring(m) - min T_ring) + (T_pairs(m) - min T_pairs), which is positive for each
/// of the three mappings since none is best in both phases. The per-phase run must be
/// within two quanta of T* (its second phase starts elsewhere on the 10-unit quantum
/// grid) and so beat each single mapping by Δm less those two quanta. CPC's
/// `mapping("SPEC")` in place of the probes compiles to the same instructions and gives
/// the same run.
#[test]
fn a_mapping_per_phase_beats_every_single_mapping() {
    let dir = tempdir("cpss-phase-mapping");
    let src = std::fs::read_to_string(fixtures().join("two_phase.c")).unwrap();
    std::fs::write(dir.join("tp.c"), &src).unwrap();
    let pairs = "pairs(x) = [2*(x%4) + x/4].";
    let with_calls = src
        .replace("probe(1, \"ring\");", "mapping(\"ring2line\");")
        .replace("probe(2, \"pairs\");", &format!("mapping(\"{pairs}\");"));
    std::fs::write(dir.join("tpm.c"), with_calls).unwrap();
    for (c, cod) in [("tp.c", "tp.cod"), ("tpm.c", "tpm.cod")] {
        let out = run_in(&dir, "cpcc", &[c, "-o", cod], b"");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    }
    // (parallel time, ring phase time, pairs phase time) of a run, in units.
    let run = |cod: &str, extra: &[&str]| -> (f64, f64, f64) {
        let mut args = vec![cod, "--stats", "csv", "-t", "run.cpt"];
        args.extend_from_slice(extra);
        let out = run_in(&dir, "cpss", &args, b"");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let lines: Vec<&str> = text.lines().collect();
        let (h, v) = (lines[lines.len() - 2], lines[lines.len() - 1]);
        let par = h.split(',').zip(v.split(',')).find(|(k, _)| *k == "par_time").unwrap().1.parse().unwrap();
        let table = run_in(&dir, "cpperf", &["run.cpt", "--table", "phases"], b"");
        let table = String::from_utf8_lossy(&table.stdout).into_owned();
        let phase = |label: &str| -> f64 {
            let row = table.lines().find(|l| l.split(',').nth(1) == Some(label)).unwrap_or_else(|| panic!("{table}"));
            row.split(',').nth(3).unwrap().parse().unwrap()
        };
        (par, phase("ring"), phase("pairs"))
    };
    let singles: Vec<(&str, (f64, f64, f64))> =
        ["identity", "ring2line", pairs].iter().map(|&m| (m, run("tp.cod", &["--mapping", m]))).collect();
    let best_ring = singles.iter().map(|s| s.1 .1).fold(f64::MAX, f64::min);
    let best_pairs = singles.iter().map(|s| s.1 .2).fold(f64::MAX, f64::min);
    assert_eq!(singles.iter().find(|s| s.1 .1 == best_ring).unwrap().0, "ring2line", "{singles:?}");
    assert_eq!(singles.iter().find(|s| s.1 .2 == best_pairs).unwrap().0, pairs, "{singles:?}");
    let (t0, ..) = singles[0].1;
    let t0 = t0 - singles[0].1 .1 - singles[0].1 .2;
    let predicted = t0 + best_ring + best_pairs;
    let per_phase = run("tp.cod", &["--phase-mapping", "ring=ring2line", "--phase-mapping", &format!("pairs={pairs}")]);
    assert!((per_phase.0 - predicted).abs() <= 20.0, "per-phase {per_phase:?}, predicted {predicted}");
    for (m, (t, ring, pair)) in &singles {
        let margin = (ring - best_ring) + (pair - best_pairs);
        assert!(margin > 0.0, "{m}");
        assert!(t - per_phase.0 >= margin - 20.0, "{m}: {t} against {}, margin {margin}", per_phase.0);
        eprintln!(
            "{m}: {t} (ring {ring}, pairs {pair}); per-phase {} beats it by {} (predicted {margin})",
            per_phase.0,
            t - per_phase.0
        );
    }
    // mapping("SPEC") in the program: the same run.
    let out = run_in(&dir, "cpss", &["tpm.cod", "--stats", "csv"], b"");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let l: Vec<&str> = text.lines().collect();
    let par: f64 = l[l.len() - 2]
        .split(',')
        .zip(l[l.len() - 1].split(','))
        .find(|(k, _)| *k == "par_time")
        .unwrap()
        .1
        .parse()
        .unwrap();
    assert_eq!(par, per_phase.0);
    // The phases report says which mapping each ran with.
    let table = run_in(&dir, "cpperf", &["run.cpt", "--table", "phases"], b"");
    let table = String::from_utf8_lossy(&table.stdout).into_owned();
    let ring_row = table.lines().find(|l| l.starts_with("1,ring,")).unwrap_or_else(|| panic!("{table}"));
    assert!(ring_row.ends_with(",ring2line"), "{table}");
    // A bad key or mapping is refused before the run.
    let out = run_in(&dir, "cpss", &["tp.cod", "--phase-mapping", "ring=snake"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--phase-mapping ring=…: unknown mapping `snake`"));
}

#[test]
fn large_send_and_receive_overheads_are_recorded_in_time_order() {
    // A send or receive overhead is busy time charged with its instruction, so a process
    // can pass its quantum's end by that much more: the run record's ordering window
    // makes room for it. Before, 50 units (5 quanta) gave "event ... follows an event"
    // and no record.
    let dir = tempdir("overhead-record");
    let cod = compile_into(&dir, &fixtures().join("matmul.c"));
    let rec = dir.join("m.cpt");
    let args = [
        cod.to_str().unwrap(),
        "--send-overhead",
        "50",
        "--recv-overhead",
        "70",
        "--stats",
        "none",
        "-t",
        rec.to_str().unwrap(),
    ];
    let out = run_in(&dir, "cpss", &args, b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run_in(&dir, "cpperf", &[rec.to_str().unwrap(), "--summary"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn main_gets_its_arguments_and_its_status_reaches_the_shell() {
    // `cpss prog.cod -- A B` gives main argc 3 and argv {prog.cod, A, B, NULL}; main's
    // return value is the run's exit_status statistic, and --exit-status makes it cpss's
    // own exit code (modulo 256, as a shell reports a process's).
    let dir = tempdir("cpss-argv");
    let src = "#include <stdio.h>\n#include <stdlib.h>\nint main(int argc, char *argv[]) {\n    for (int i = 0; i < argc; i++) printf(\"%d:%s\\n\", i, argv[i]);\n    printf(\"%d\\n\", argv[argc] == NULL);\n    return argc > 1 ? atoi(argv[1]) : 0;\n}\n";
    std::fs::write(dir.join("args.c"), src).unwrap();
    let cc = run_in(&dir, "cpcc", &["args.c", "-o", "args.cod"], b"");
    assert!(cc.status.success(), "{}", String::from_utf8_lossy(&cc.stderr));
    let out = run_in(&dir, "cpss", &["args.cod", "--stats", "none", "--", "300", "two words"], b"");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "0:args.cod\n1:300\n2:two words\n1\n");
    let csv = stats_csv(&dir, &dir.join("args.cod"), &["--", "300"]);
    assert_eq!(stat(&csv, "exit_status"), "300");
    let out = run_in(&dir, "cpss", &["args.cod", "--stats", "none", "--exit-status", "--", "300"], b"");
    assert_eq!(out.status.code(), Some(300 & 0xff));
    // No arguments: argc 1, status 0.
    let out = run_in(&dir, "cpss", &["args.cod", "--stats", "none", "--exit-status"], b"");
    assert_eq!(
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned()),
        (Some(0), "0:args.cod\n1\n".into())
    );
    // exit(N) ends the program at once with status N: a normal end, not an error.
    let src = "#include <stdio.h>\n#include <stdlib.h>\nint main(void) {\n    printf(\"a\\n\");\n    exit(3);\n    printf(\"b\\n\");\n}\n";
    std::fs::write(dir.join("ex.c"), src).unwrap();
    assert!(run_in(&dir, "cpcc", &["ex.c", "-o", "ex.cod"], b"").status.success());
    let out = run_in(&dir, "cpss", &["ex.cod"], b"");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("a\n") && text.contains("Exit Status = 3\n"), "{text}");
    let out = run_in(&dir, "cpss", &["ex.cod", "--stats", "none", "--exit-status"], b"");
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn getenv_sees_only_the_env_flags() {
    // The program's environment is what `--env` gives, the last value of a name
    // winning, never the host's: HOME is set for the test process but not given.
    let dir = tempdir("cpss-env");
    let src = "#include <stdio.h>\n#include <stdlib.h>\nint main(void) {\n    const char *s = getenv(\"SIZE\");\n    printf(\"%s %d %d\\n\", s ? s : \"(null)\", getenv(\"HOME\") == NULL, getenv(\"SIZE\") == s);\n    return 0;\n}\n";
    std::fs::write(dir.join("env.c"), src).unwrap();
    assert!(run_in(&dir, "cpcc", &["env.c", "-o", "env.cod"], b"").status.success());
    let out = run_in(&dir, "cpss", &["env.cod", "--stats", "none"], b"");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "(null) 1 1\n");
    let out = run_in(&dir, "cpss", &["env.cod", "--stats", "none", "--env", "SIZE=4", "--env", "SIZE=64"], b"");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "64 1 1\n");
    // A flag that is not NAME=VALUE is a usage error.
    let out = run_in(&dir, "cpss", &["env.cod", "--env", "=4"], b"");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn identical_runs_give_identical_machine_readable_statistics() {
    // The host's time differs between runs, so it is in the CSV and JSON statistics
    // only with --host-time; without it two runs give the same bytes.
    let dir = tempdir("cpss-same-stats");
    let cod = compile_into(&dir, &fixtures().join("ring_token.c"));
    let cod = cod.to_str().unwrap();
    for format in ["csv", "json"] {
        let a = run_in(&dir, "cpss", &[cod, "--stats", format], b"");
        let b = run_in(&dir, "cpss", &[cod, "--stats", format], b"");
        assert_eq!(a.status.code(), Some(0));
        assert_eq!(a.stdout, b.stdout, "--stats {format}");
        assert!(!String::from_utf8_lossy(&a.stdout).contains("host_seconds"));
        assert!(!String::from_utf8_lossy(&a.stdout).contains("flit_hops"));
        let h = run_in(&dir, "cpss", &[cod, "--stats", format, "--host-time"], b"");
        assert!(String::from_utf8_lossy(&h.stdout).contains("host_seconds"), "--stats {format} --host-time");
        assert!(String::from_utf8_lossy(&h.stdout).contains("flit_hops"), "--stats {format} --host-time");
    }
    let a = run_in(&dir, "cpss", &[cod, "--runs", "3", "--stats", "csv"], b"");
    let b = run_in(&dir, "cpss", &[cod, "--runs", "3", "--stats", "csv"], b"");
    assert_eq!(a.status.code(), Some(0), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, b.stdout, "--runs 3");
}

#[test]
fn machine_readable_statistics_own_standard_output() {
    // ring_token prints a line per lap; with --stats json or csv those lines go to
    // stderr and stdout parses as one JSON document (checked by Python's own parser
    // when there is one) or one CSV header and row.
    let dir = tempdir("cpss-json-stdout");
    let cod = compile_into(&dir, &fixtures().join("ring_token.c"));
    let cod = cod.to_str().unwrap();
    let out = run_in(&dir, "cpss", &[cod, "--stats", "json"], b"");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("lap 1 token 36"));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is one JSON document");
    assert_eq!(doc["messages"], 27, "ring_token's 3 laps of 9 hops");
    if let Ok(mut py) = std::process::Command::new("python3")
        .args(["-m", "json.tool"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
    {
        use std::io::Write;
        py.stdin.take().unwrap().write_all(&out.stdout).unwrap();
        assert!(py.wait().unwrap().success(), "python3 -m json.tool rejects the statistics");
    }
    let out = run_in(&dir, "cpss", &[cod, "--stats", "csv"], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.starts_with("seq_time,"), "{text}");
}

/// Hints where a user is one step off: a misspelt mapping, topology kind, sweep
/// parameter or configuration key names the closest one; `--seed -1` is refused by the
/// seed's own check (not clap's advice to pass it after `--`, which would give it to the
/// program); a TOML error gives the file, line and column with the line and a caret; a
/// `./cppe.toml` nobody named is announced on stderr, unless `--quiet`.
#[test]
fn hints_for_a_user_one_step_off() {
    let dir = tempdir("cpss-hints");
    let cod = compile_into(&dir, &fixtures().join("ring_token.c"));
    let cod = cod.to_str().unwrap();
    let err = |args: &[&str]| {
        let out = run_in(&dir, "cpss", &[&[cod][..], args].concat(), b"");
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    for (args, hint) in [
        (&["--mapping", "torus2mehs"][..], "did you mean `torus2mesh`?"),
        (&["--topology", "mesj:4x4"], "did you mean `mesh`?"),
        (&["--sweep", "link-dely=1,2"], "did you mean `link-delay`?"),
    ] {
        let (code, e) = err(args);
        assert_eq!(code, Some(2), "{e}");
        assert!(e.trim_end().ends_with(hint), "{args:?}: {e}");
    }
    let (code, e) = err(&["--seed", "-1"]);
    assert_eq!((code, e.as_str()), (Some(2), "cpss: error: seed: `-1` is not a whole number\n"));
    std::fs::write(dir.join("bad.toml"), "seed = 1\n[x\n").unwrap();
    let (code, e) = err(&["--config", "bad.toml"]);
    assert_eq!(code, Some(2));
    assert_eq!(e, "cpss: error: bad.toml:2:3: unclosed table, expected `]`\n 2 | [x\n   |   ^\n");
    std::fs::write(dir.join("cppe.toml"), "lanes = 2\n").unwrap();
    let (code, e) = err(&["--stats", "none"]);
    assert_eq!(code, Some(0), "{e}");
    assert!(e.starts_with("cpss: note: options read from ./cppe.toml"), "{e}");
    let (_, e) = err(&["--stats", "none", "--quiet"]);
    assert!(!e.contains("cppe.toml"), "{e}");
}
