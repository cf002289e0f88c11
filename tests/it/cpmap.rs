//! `cpmap`: the seed's mappings through the command line, errors and exit codes, map files
//! that `cpss --map-file` runs exactly like the mapping string, and the search on a
//! measured communication matrix.
use crate::harness::*;
use std::path::Path;

const TORUS2MESH: &str = "torus2mesh(x, y) = [x <= (#1-1)/2 ? 2*x : 2*(#1-x)-1, y<=(#2-1)/2 ? 2*y : 2*(#2-y)-1].";

fn stdout(out: &std::process::Output) -> String {
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The `"table":[…]` of the first mapping of a JSON report.
fn json_table(json: &str) -> String {
    let start = json.find("\"table\":[").expect("a table") + "\"table\":[".len();
    json[start..start + json[start..].find(']').expect("end of table")].to_string()
}

#[test]
fn seed_string_equals_builtin_torus2mesh() {
    for n in [8, 16] {
        let (v, p) = (format!("torus:{n}x{n}"), format!("mesh:{n}x{n}"));
        let args = |m: &str| vec!["--virtual".to_string(), v.clone(), "--physical".into(), p.clone(), m.into()];
        let a = |m: &str| stdout(&run("cpmap", &args(m).iter().map(|s| s.as_str()).collect::<Vec<_>>()));
        let (s, b) = (a(TORUS2MESH), a("torus2mesh"));
        // Same table rows; only the `mapping:` line names them differently.
        let rows = |t: &str| t.lines().filter(|l| !l.starts_with("mapping:")).map(String::from).collect::<Vec<_>>();
        assert_eq!(rows(&s), rows(&b), "{n}x{n}");
        // Every torus neighbour lands at most 2 hops away (Figure 20's fold).
        assert!(s.contains("dilation: max 2,"), "{s}");
    }
    let id = stdout(&run("cpmap", &["--virtual", "torus:8x8", "--physical", "mesh:8x8", "identity"]));
    // The wrap-around pair (r,0)-(r,7) spans 7 mesh hops.
    assert!(id.contains("dilation: max 7, mean 1.750 hops"), "{id}");
}

#[test]
fn ring2line_is_table_3() {
    let out = stdout(&run("cpmap", &["--virtual", "ring:8", "--physical", "line:8", "ring2line", "--format", "json"]));
    // Seed 000 Table 3.
    assert_eq!(json_table(&out), "0,2,4,6,7,5,3,1");
}

#[test]
fn block_form_puts_sixteen_on_each_processor() {
    let out = stdout(&run(
        "cpmap",
        &["--virtual", "torus:16x16", "--physical", "mesh:4x4", "block(x, y) = [x/(#1/$1), y/(#2/$2)]."],
    ));
    // 256 virtual processors in 4x4 blocks: 16 on each of the 16.
    assert!(out.contains(&format!("load per physical processor: {}\n", vec!["16"; 16].join(" "))), "{out}");
    assert!(out.contains("valid: yes, many-to-one"), "{out}");
}

#[test]
fn out_of_range_and_syntax_errors_exit_2() {
    let out = run("cpmap", &["--virtual", "mesh:4x4", "--physical", "mesh:4x4", "f(x, y) = [x + 1, y]."]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    // (3,0) = id 12 is the first with x + 1 = 4.
    assert!(err.contains("virtual processor 12 (3,0) is mapped to [4,0]"), "{err}");
    let out = run("cpmap", &["--virtual", "mesh:4x4", "--physical", "mesh:4x4", "f(x, y) = [x, ]."]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mapping:1:15") && err.contains("^"), "{err}");
    let out = run("cpmap", &["--virtual", "ring:4", "--physical", "line:4", "--search", "anneal"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--comm"));
}

#[test]
fn csv_comm_matrix_and_ranked_csv() {
    let dir = tempdir("cpmap-csv");
    // A ring of 4 sending 10 bytes to its successor.
    std::fs::write(dir.join("m.csv"), "src,dst,bytes\n0,1,10\n1,2,10\n2,3,10\n3,0,10\n").unwrap();
    let out = run_in(
        &dir,
        "cpmap",
        &[
            "--virtual",
            "ring:4",
            "--physical",
            "line:4",
            "--comm",
            "m.csv",
            "identity",
            "f(x) = [3 - x].",
            "--format",
            "csv",
        ],
        b"",
    );
    let csv = stdout(&out);
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 3, "{csv}");
    // Both cost 10 × (1 + 1 + 1 + 3) = 60 byte-hops; a tie keeps the given order.
    assert!(rows[1].starts_with("1,identity,true,") && rows[1].contains(",60,"), "{csv}");
    assert!(rows[2].starts_with("2,f(x) = [3 - x].,") && rows[2].contains(",60,"), "{csv}");
}

fn compile_matmul(dir: &Path) {
    compile_into(dir, &fixtures().join("matmul.c"));
}

/// The statistics of a run, without the host time (the only line that varies).
fn stats(dir: &Path, args: &[&str]) -> String {
    statistics_only(&stdout(&run_in(dir, "cpss", args, b"")))
}

fn parallel_time(stats: &str) -> u64 {
    let line = stats.lines().find(|l| l.starts_with("Parallel Execution Time = ")).expect("parallel time");
    line["Parallel Execution Time = ".len()..].trim().parse().expect("a number")
}

#[test]
fn emitted_map_file_runs_like_the_mapping_string() {
    let dir = tempdir("cpmap-emit");
    compile_matmul(&dir);
    let out = run_in(
        &dir,
        "cpmap",
        &["--virtual", "torus:8x8", "--physical", "mesh:8x8", TORUS2MESH, "--emit", "map", "-o", "t2m.map"],
        b"",
    );
    stdout(&out);
    let by_file = stats(&dir, &["matmul.cod", "--topology", "mesh:8x8", "--map-file", "t2m.map"]);
    let by_string = stats(&dir, &["matmul.cod", "--topology", "mesh:8x8", "--mapping", TORUS2MESH]);
    assert_eq!(by_file, by_string);
    // Without -o the map file is the whole standard output.
    let out =
        run_in(&dir, "cpmap", &["--virtual", "ring:4", "--physical", "line:4", "ring2line", "--emit", "map"], b"");
    assert!(stdout(&out).starts_with("# cppe map file"));
}

#[test]
fn anneal_beats_a_random_mapping_of_matmul() {
    let dir = tempdir("cpmap-anneal");
    compile_matmul(&dir);
    let random =
        stats(&dir, &["matmul.cod", "--topology", "mesh:8x8", "--mapping", "random", "--seed", "1", "-t", "run.cpt"]);
    let out = run_in(
        &dir,
        "cpmap",
        &[
            "--comm", "run.cpt", "random", "--seed", "1", "--search", "anneal", "--format", "json", "--emit", "map",
            "-o", "best.map",
        ],
        b"",
    );
    let json = stdout(&out);
    let field = |name: &str| -> u64 {
        let start = json.find(&format!("\"{name}\":")).expect(name) + name.len() + 3;
        let end = start + json[start..].find([',', '}']).expect("end");
        json[start..end].parse().expect("a number")
    };
    let (cost, start_cost) = (field("cost"), field("start_cost"));
    // At least 30 % below the random mapping's weighted cost.
    assert!(cost * 10 <= start_cost * 7, "cost {cost}, random {start_cost}");
    let best = stats(&dir, &["matmul.cod", "--topology", "mesh:8x8", "--map-file", "best.map"]);
    let (t_random, t_best) = (parallel_time(&random), parallel_time(&best));
    assert!(t_best < t_random, "annealed {t_best}, random {t_random}");
    eprintln!("matmul 8x8: weighted cost random {start_cost}, annealed {cost}; parallel time random {t_random}, annealed {t_best}");
}

/// `--map-file -` reads the map file from standard input: the same run as from the file.
#[test]
fn map_file_from_standard_input() {
    let dir = tempdir("cpmap-stdin");
    compile_matmul(&dir);
    let args = ["--virtual", "torus:8x8", "--physical", "mesh:8x8", TORUS2MESH, "--emit", "map", "-o", "t2m.map"];
    stdout(&run_in(&dir, "cpmap", &args, b""));
    let by_file = stats(&dir, &["matmul.cod", "--topology", "mesh:8x8", "--map-file", "t2m.map"]);
    let map = std::fs::read(dir.join("t2m.map")).unwrap();
    let out = run_in(&dir, "cpss", &["matmul.cod", "--topology", "mesh:8x8", "--map-file", "-"], &map);
    let by_stdin = statistics_only(&stdout(&out));
    assert_eq!(by_file, by_stdin);
    // Standard input cannot carry both the program and the map file.
    let cod = std::fs::read(dir.join("matmul.cod")).unwrap();
    let out = run_in(&dir, "cpss", &["--topology", "mesh:8x8", "--map-file", "-"], &cod);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("standard input can feed only one of the program and --map-file -"), "{err}");
}

/// An error in a map file or a cost file is said once, with the file and line (the
/// error's message already includes its cause's; the cause is not printed again).
#[test]
fn file_errors_are_said_once() {
    let dir = tempdir("cpss-file-errors");
    compile_matmul(&dir);
    std::fs::write(dir.join("c.txt"), "ADDI=2\nFOO=3\n").unwrap();
    std::fs::write(dir.join("m.map"), "zz\n").unwrap();
    let out = run_in(&dir, "cpss", &["matmul.cod", "--cost-file", "c.txt"], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err, "cpss: error: c.txt:2: unknown instruction `FOO` in cost override\n");
    let out = run_in(&dir, "cpss", &["matmul.cod", "--topology", "mesh:8x8", "--map-file", "m.map"], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("expected `VPROC PPROC`").count(), 1, "{err}");
    assert!(err.starts_with("cpss: error: m.map: map file line 1: "), "{err}");
}

/// A run record is binary: `-t -` with standard output on a terminal is refused (exit
/// 2) rather than written to the screen. The terminal is a pseudo-terminal made by
/// `script` (util-linux).
#[test]
fn run_record_is_never_written_to_a_terminal() {
    let dir = tempdir("cpss-tty");
    compile_matmul(&dir);
    let cmd = format!("{} matmul.cod -t -", tool("cpss").display());
    let out = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .current_dir(&dir)
        .output()
        .expect("script (util-linux) runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("refusing to write a binary run record to the terminal"), "{text}");
    assert!(text.len() < 300, "no binary on the terminal: {} bytes", text.len());
}

/// `--max-steps` bounds each search run: with 1000 moves the annealer stops early, says
/// so in text and JSON, and gives the same mapping twice; the default bound lets the
/// 8x8 search finish (`stopped` false). `--max-seconds 0` is refused.
#[test]
fn search_bounds_stop_runs_and_say_so() {
    let dir = tempdir("cpmap-bounds");
    compile_matmul(&dir);
    stats(&dir, &["matmul.cod", "--topology", "mesh:8x8", "-t", "run.cpt"]);
    let search = |extra: &[&str]| {
        let mut args = vec!["--comm", "run.cpt", "random", "--seed", "1", "--search", "anneal"];
        args.extend_from_slice(extra);
        run_in(&dir, "cpmap", &args, b"")
    };
    let text = stdout(&search(&["--max-steps", "1000"]));
    assert!(text.contains("search anneal (seed 1) stopped by its step or time bound"), "{text}");
    let json = stdout(&search(&["--max-steps", "1000", "--format", "json"]));
    assert!(json.contains("\"stopped\":true"), "{json}");
    assert_eq!(json, stdout(&search(&["--max-steps", "1000", "--format", "json"])));
    let full = stdout(&search(&["--format", "json"]));
    assert!(full.contains("\"stopped\":false"), "{full}");
    let out = search(&["--max-seconds", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--max-seconds 0"));
}

/// The load-aware heuristics on a master/worker program whose worker w loops 300·w
/// times: every worker exchanges the same 8 bytes with the master, so greedy and
/// anneal, which see only communication, place the workers by id and leave one mesh
/// processor with the heaviest ones. LPTF pairs the largest tasks with the smallest
/// (8+1, 7+2, 6+3, 5+4: equal sums), so its computation imbalance (largest over mean)
/// is close to 1, as is LGCF's (the same order, the communication small beside it).
/// The simulated run follows the model: the LPTF mapping runs in well under 60 % of the
/// greedy one's parallel time. Boillat and HME give the same mapping twice with one seed.
#[test]
fn load_aware_heuristics_balance_unequal_tasks() {
    let dir = tempdir("cpmap-lptf");
    let src = std::fs::read_to_string(fixtures().join("master_worker_unequal.c")).unwrap();
    std::fs::write(dir.join("mw.c"), src).unwrap();
    stdout(&run_in(&dir, "cpcc", &["mw.c", "-o", "mw.cod"], b""));
    stdout(&run_in(&dir, "cpss", &["mw.cod", "-t", "run.cpt"], b""));
    let all = ["--comm", "run.cpt", "--work", "run.cpt", "--seed", "1", "--format", "json"];
    let search = |methods: &str| {
        let mut args = all.to_vec();
        args.extend(["--search", methods]);
        stdout(&run_in(&dir, "cpmap", &args, b""))
    };
    let json = search("greedy,anneal,lptf,lgcf,boillat,hme");
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["schema_version"], 2);
    let mapping = |name: &str| -> &serde_json::Value {
        doc["mappings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {json}"))
    };
    let imb = |name: &str| mapping(name)["work_imbalance"].as_f64().unwrap();
    let time = |name: &str| mapping(name)["max_time"].as_f64().unwrap();
    for balanced in ["search:lptf", "search:lgcf"] {
        assert!(imb(balanced) < 1.05, "{balanced} imbalance {}", imb(balanced));
        assert!(
            time(balanced) < time("search:greedy") * 0.6,
            "{balanced} {} greedy {}",
            time(balanced),
            time("search:greedy")
        );
    }
    assert!(imb("search:greedy") > 1.5, "greedy imbalance {}", imb("search:greedy"));
    // Ranked by the most loaded processor's time: a balanced one comes first.
    let first = doc["mappings"][0]["name"].as_str().unwrap().to_string();
    assert!(first == "search:lptf" || first == "search:lgcf", "{first}");
    for seeded in ["boillat", "hme"] {
        assert_eq!(search(seeded), search(seeded), "{seeded} with one seed");
    }
    // The simulated runs: the LPTF mapping against the greedy one.
    let emit = |m: &str, file: &str| {
        let mut args = all.to_vec();
        args.extend(["--search", m, "--emit", "map", "-o", file]);
        stdout(&run_in(&dir, "cpmap", &args, b""));
    };
    emit("lptf", "lptf.map");
    emit("greedy", "greedy.map");
    let t = |file: &str| parallel_time(&stats(&dir, &["mw.cod", "--map-file", file]));
    let (t_lptf, t_greedy) = (t("lptf.map"), t("greedy.map"));
    assert!(t_lptf * 10 < t_greedy * 6, "lptf {t_lptf}, greedy {t_greedy}");
    // Cost methods need task costs, and say so.
    let out = run_in(&dir, "cpmap", &["--comm", "run.cpt", "--search", "hme"], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--search hme needs the computation cost of every task (--work FILE"), "{err}");
}

/// LPTF and LGCF by hand from a CSV of costs, on line:2 (one hop apart) with 10 bytes
/// between tasks 0 and 1 at 1 unit per byte-hop. Costs 4, 4, 1, 1. LPTF: 0 on p0, 1 on
/// p1, 2 on p0 (tie at 4, lower id), 3 on p1: computation 5 and 5, but the pair 0–1
/// crosses: each side pays 10, so the most loaded processor has 15. LGCF: 0 on p0; 1 on
/// p0 (4 + 4 = 8 against 4 + 10 = 14 on p1); 2 and 3 on p1: loads 8 and 2, max 8.
#[test]
fn lptf_and_lgcf_by_hand_from_csv() {
    let dir = tempdir("cpmap-lgcf");
    std::fs::write(dir.join("comm.csv"), "src,dst,bytes\n0,1,10\n").unwrap();
    std::fs::write(dir.join("work.csv"), "vproc,cost\n0,4\n1,4\n2,1\n3,1\n").unwrap();
    let base = ["--virtual", "line:4", "--physical", "line:2", "--comm", "comm.csv", "--work", "work.csv"];
    let run_search = |m: &str| {
        let mut args = base.to_vec();
        args.extend(["--search", m, "--format", "json"]);
        let doc: serde_json::Value = serde_json::from_str(&stdout(&run_in(&dir, "cpmap", &args, b""))).unwrap();
        let found = doc["mappings"].as_array().unwrap().iter().find(|x| x["name"] == format!("search:{m}")).cloned();
        let found = found.unwrap_or_else(|| panic!("{doc}"));
        (found["table"].to_string(), found["max_time"].as_f64().unwrap())
    };
    assert_eq!(run_search("lgcf"), ("[0,0,1,1]".to_string(), 8.0));
    // LPTF's table 0,1,0,1 written as a mapping string: 15 on both processors. (A search
    // never proposes a mapping worse than its start, so the table is evaluated directly.)
    let mut args = base.to_vec();
    args.extend(["f(x) = [x % 2].", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&run_in(&dir, "cpmap", &args, b""))).unwrap();
    assert_eq!(doc["mappings"][0]["max_time"].as_f64(), Some(15.0), "{doc}");
    assert_eq!(doc["mappings"][0]["processor_times"].to_string(), "[15,15]");
    // A bad cost line is named.
    std::fs::write(dir.join("bad.csv"), "vproc,cost\n0,-3\n").unwrap();
    let out = run_in(&dir, "cpmap", &["--virtual", "line:4", "--physical", "line:2", "--work", "bad.csv"], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.csv: task cost line 2: `-3` is not a time between 0 and 10^15 units"), "{err}");
}

/// `^C` during a long search (greedy then annealing on a 48x48 torus's traffic, 2304
/// virtual processors: 40 s in a release build): cpmap stops within seconds (about 1 in
/// a release build, 7 in a debug one, as CI builds), reports the best mapping found so
/// far (the ranking, with the search's row), says on stderr that it was interrupted,
/// and exits 130.
#[cfg(unix)]
#[test]
fn interrupt_during_a_search_reports_the_best_so_far() {
    let dir = tempdir("cpmap-interrupt");
    let mut csv = String::from("src,dst,bytes\n");
    for v in 0..2304u32 {
        let (x, y) = (v % 48, v / 48);
        for (dx, dy) in [(1, 0), (0, 1)] {
            csv.push_str(&format!("{v},{},{}\n", (x + dx) % 48 + 48 * ((y + dy) % 48), 1 + v % 97));
        }
    }
    std::fs::write(dir.join("comm.csv"), csv).unwrap();
    let args =
        ["--comm", "comm.csv", "--virtual", "torus:48x48", "--physical", "mesh:48x48", "--search", "greedy,anneal"];
    let child = spawn_interruptible("cpmap", &dir, &args);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let start = std::time::Instant::now();
    interrupt(&child);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("cpmap: interrupted: the search stopped early"), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("search:"), "the ranking with the search's mapping");
    assert!(start.elapsed().as_secs() < 30, "stopped {} s after ^C", start.elapsed().as_secs());
}
