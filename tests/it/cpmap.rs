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
    assert!(text.contains("search stopped by its step or time bound"), "{text}");
    let json = stdout(&search(&["--max-steps", "1000", "--format", "json"]));
    assert!(json.contains("\"stopped\":true"), "{json}");
    assert_eq!(json, stdout(&search(&["--max-steps", "1000", "--format", "json"])));
    let full = stdout(&search(&["--format", "json"]));
    assert!(full.contains("\"stopped\":false"), "{full}");
    let out = search(&["--max-seconds", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--max-seconds 0"));
}
