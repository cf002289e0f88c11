//! A small harness: run a tool of this crate in a temporary folder, and compare output
//! with expected files.
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixtures() -> PathBuf {
    root().join("fixtures")
}

/// The path of a tool built by cargo for this test run.
pub fn tool(name: &str) -> PathBuf {
    match name {
        "cpcc" => PathBuf::from(env!("CARGO_BIN_EXE_cpcc")),
        "cpss" => PathBuf::from(env!("CARGO_BIN_EXE_cpss")),
        "cpmap" => PathBuf::from(env!("CARGO_BIN_EXE_cpmap")),
        "cptrace" => PathBuf::from(env!("CARGO_BIN_EXE_cptrace")),
        "cpperf" => PathBuf::from(env!("CARGO_BIN_EXE_cpperf")),
        other => panic!("unknown tool {other}"),
    }
}

/// Runs `tool args` in `dir` with `stdin` as standard input.
pub fn run_in(dir: &Path, name: &str, args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(tool(name))
        .args(args)
        .current_dir(dir)
        .env_remove("CPPE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tool");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin).ok();
    drop(input);
    child.wait_with_output().expect("wait for tool")
}

/// Runs a tool in the fixtures folder.
pub fn run(name: &str, args: &[&str]) -> Output {
    run_in(&fixtures(), name, args, b"")
}

/// A fresh temporary folder for one test, removed when the test ends. A failing test
/// (one that is panicking when its folder is dropped) keeps the folder and prints its path,
/// so that what the tools wrote can be read; `CPPE_KEEP_TEMP=1` keeps every folder.
pub struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if std::thread::panicking() || std::env::var_os("CPPE_KEEP_TEMP").is_some() {
            eprintln!("kept {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// A fresh temporary folder for one test, named after `tag` and this test process.
pub fn tempdir(tag: &str) -> TempDir {
    let d = std::env::temp_dir().join(format!("cppe-it-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create temp dir");
    TempDir(d)
}

/// A folder shared by the tests of one test process (records simulated once and read by
/// many tests), emptied when it is first asked for and left for the next run to reuse:
/// it lives under cargo's `CARGO_TARGET_TMPDIR`, so it never accumulates in the system's
/// temporary folder.
pub fn shared_dir(tag: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(tag);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create shared test dir");
    d
}

/// Compares `actual` with the file `expected`; with `UPDATE_EXPECT=1` rewrites it.
pub fn expect_file(expected: &Path, actual: &str) {
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(expected, actual).expect("write expected file");
        return;
    }
    let want = std::fs::read_to_string(expected)
        .unwrap_or_else(|_| panic!("missing expected file {} (run with UPDATE_EXPECT=1)", expected.display()));
    if want != actual {
        panic!("{} differs:\n--- expected\n{want}\n--- actual\n{actual}", expected.display());
    }
}

/// All files with the given extension directly in `dir`, sorted.
pub fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read fixtures dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}

/// The lines of `text` outside `#[cfg(test)]` items (a test module, a test helper, a
/// `#[path]` test file declaration), with their 1-based numbers.
pub fn non_test_lines(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_start().starts_with("#[cfg(test)]") {
            i += 1;
            while i < lines.len() && lines[i].trim_start().starts_with("#[") {
                i += 1;
            }
            // The item: one line ending in `;`, or up to its balanced closing brace.
            let (mut depth, mut opened) = (0i64, false);
            while i < lines.len() {
                let l = lines[i];
                depth += l.matches('{').count() as i64 - l.matches('}').count() as i64;
                opened |= l.contains('{');
                i += 1;
                if (!opened && l.trim_end().ends_with(';')) || (opened && depth <= 0) {
                    break;
                }
            }
            continue;
        }
        out.push((i + 1, lines[i]));
        i += 1;
    }
    out
}

/// The `.rs` files under `dir`, recursively.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Compiles a fixture into `dir` and returns the .cod path.
pub fn compile_into(dir: &Path, src: &Path) -> std::path::PathBuf {
    let cod = dir.join(src.file_name().unwrap()).with_extension("cod");
    let inc = fixtures().join("include");
    let out =
        run_in(dir, "cpcc", &["-I", inc.to_str().unwrap(), src.to_str().unwrap(), "-o", cod.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}: {}", src.display(), String::from_utf8_lossy(&out.stderr));
    cod
}

/// `cpss` text statistics without the lines that state the configuration and the host
/// time: what two runs of different configurations can share.
pub fn statistics_only(text: &str) -> String {
    const SKIP: [&str; 5] = ["Program = ", "Machine = ", "Network = ", "Seed = ", "Host Time = "];
    text.lines().filter(|l| !SKIP.iter().any(|p| l.starts_with(p))).map(|l| format!("{l}\n")).collect()
}

/// The columns of `cpss --stats csv` that state the configuration, and the host time.
pub const NOT_STATISTICS: [&str; 7] = ["program", "topology", "virtual", "mapping", "network", "seed", "host_seconds"];

/// Starts tool `name` with `args` in `dir` with its output piped and SIGINT at its default action: a
/// test run from a background job inherits SIGINT ignored, and the child takes the
/// default, as an interactive command does.
#[cfg(unix)]
pub fn spawn_interruptible(name: &str, dir: &std::path::Path, args: &[&str]) -> std::process::Child {
    use std::os::unix::process::CommandExt;
    extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }
    let mut cmd = std::process::Command::new(tool(name));
    cmd.current_dir(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    // SAFETY: `signal` is async-signal-safe, as `pre_exec` requires.
    unsafe {
        cmd.pre_exec(|| {
            signal(2, 0);
            Ok(())
        });
    }
    cmd.spawn().unwrap()
}

/// Sends SIGINT (`^C`) to `child`, which must still be running.
#[cfg(unix)]
pub fn interrupt(child: &std::process::Child) {
    extern "C" {
        fn kill(pid: i32, sig: i32) -> i32;
    }
    // SAFETY: `kill` only sends a signal; the child is ours and has not been reaped.
    assert_eq!(unsafe { kill(child.id() as i32, 2) }, 0, "SIGINT to {}", child.id());
}

/// The number in attribute `name` of the markup tag `tag` (`… name="3.5" …`), if any.
pub fn attr(tag: &str, name: &str) -> Option<f64> {
    let k = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    tag[k..].split('"').next()?.parse().ok()
}

/// The seed's matrix multiplication (fixtures/matmul.c) at `n` × `n` processes on an
/// `n` × `n` mesh, compiled and run in `dir`: its run record `m{n}.cpt`.
pub fn matmul_record(dir: &Path, n: u32) -> PathBuf {
    let src =
        std::fs::read_to_string(fixtures().join("matmul.c")).unwrap().replace("#define n 8", &format!("#define n {n}"));
    let (c, cod, cpt) = (format!("m{n}.c"), format!("m{n}.cod"), format!("m{n}.cpt"));
    std::fs::write(dir.join(&c), src).unwrap();
    assert_eq!(run_in(dir, "cpcc", &[&c, "-o", &cod], b"").status.code(), Some(0));
    let out = run_in(dir, "cpss", &[&cod, "-t", &cpt, "--stats", "none"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    dir.join(cpt)
}
