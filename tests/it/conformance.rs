//! The C conformance suite, `tests/conformance/`: one small program per feature or
//! interaction of SPEC §2 (first and second round).
//!
//! * `NAME.c` with `NAME.out` runs: `cpcc` then `cpss --stats none`, in a fresh folder,
//!   with `NAME.in` as standard input when it exists; standard output must be exactly
//!   `NAME.out`, and both tools exit 0.
//! * `NAME.c` with `NAME.err` must not compile: `cpcc` exits 2 and its messages contain
//!   every line of `NAME.err` (the constructs left out, named).
//! * The expected outputs are gcc's: [`expected_outputs_are_gcc_s`] compiles every
//!   runnable program whose first line does not say `cpc-only` with the host's `gcc`
//!   and compares. A `cpc-only` program uses CPC itself or a documented difference from
//!   a 64-bit host (`sizeof` in words) and says which on that line.
use crate::harness::{root, run_in, tempdir};
use std::path::{Path, PathBuf};
use std::process::Command;

fn suite() -> Vec<PathBuf> {
    let dir = root().join("tests").join("conformance");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/conformance")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    v.sort();
    v
}

fn input_of(c: &Path) -> Vec<u8> {
    std::fs::read(c.with_extension("in")).unwrap_or_default()
}

fn cpc_only(c: &Path) -> bool {
    std::fs::read_to_string(c).ok().and_then(|t| t.lines().next().map(|l| l.contains("cpc-only"))).unwrap_or(false)
}

#[test]
fn suite_is_large_and_every_program_has_an_expectation() {
    let all = suite();
    assert!(all.len() >= 150, "only {} programs", all.len());
    for c in &all {
        let (out, err) = (c.with_extension("out").exists(), c.with_extension("err").exists());
        assert!(out != err, "{}: needs exactly one of .out and .err", c.display());
    }
}

#[test]
fn programs_give_their_expected_output() {
    let dir = tempdir("conformance");
    let mut failures = Vec::new();
    for c in suite() {
        let name = c.file_stem().unwrap().to_string_lossy().into_owned();
        let src = c.to_string_lossy().into_owned();
        let cod = format!("{name}.cod");
        let cc = run_in(&dir, "cpcc", &[&src, "-o", &cod], b"");
        let cc_err = String::from_utf8_lossy(&cc.stderr).into_owned();
        if let Ok(want) = std::fs::read_to_string(c.with_extension("err")) {
            if cc.status.code() != Some(2) {
                failures.push(format!("{name}: cpcc exit {:?}, expected 2", cc.status.code()));
            }
            for line in want.lines().filter(|l| !l.is_empty()) {
                if !cc_err.contains(line) {
                    failures.push(format!("{name}: messages lack `{line}`:\n{cc_err}"));
                }
            }
            continue;
        }
        if !cc.status.success() {
            failures.push(format!("{name}: cpcc failed:\n{cc_err}"));
            continue;
        }
        let input = c.with_extension("in");
        let mut args = vec!["--stats", "none", cod.as_str()];
        let input_s = input.to_string_lossy().into_owned();
        if input.exists() {
            args.extend(["--input", input_s.as_str()]);
        }
        let run = run_in(&dir, "cpss", &args, b"");
        let want = std::fs::read_to_string(c.with_extension("out")).unwrap_or_default();
        let got = String::from_utf8_lossy(&run.stdout);
        if !run.status.success() || got != want {
            failures.push(format!(
                "{name}: cpss exit {:?}\n--- expected\n{want}--- actual\n{got}--- stderr\n{}",
                run.status.code(),
                String::from_utf8_lossy(&run.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// The expected files are what gcc's build of the same program prints.
#[test]
fn expected_outputs_are_gcc_s() {
    if Command::new("gcc").arg("--version").output().is_err() {
        eprintln!("gcc not found: the expected outputs are not re-checked against it");
        return;
    }
    let dir = tempdir("conformance-gcc");
    let mut failures = Vec::new();
    let mut checked = 0;
    for c in suite() {
        let out = c.with_extension("out");
        if !out.exists() || cpc_only(&c) {
            continue;
        }
        let name = c.file_stem().unwrap().to_string_lossy().into_owned();
        let exe = dir.join(&name);
        let cc = Command::new("gcc").args(["-std=gnu99", "-w", "-o"]).arg(&exe).arg(&c).arg("-lm").output().unwrap();
        if !cc.status.success() {
            failures.push(format!("{name}: gcc failed:\n{}", String::from_utf8_lossy(&cc.stderr)));
            continue;
        }
        let mut child = Command::new(&exe)
            .current_dir(&dir)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        {
            use std::io::Write;
            let mut i = child.stdin.take().unwrap();
            i.write_all(&input_of(&c)).ok();
        }
        let r = child.wait_with_output().unwrap();
        let want = std::fs::read_to_string(&out).unwrap();
        if String::from_utf8_lossy(&r.stdout) != want {
            failures.push(format!("{name}: gcc's build prints\n{}", String::from_utf8_lossy(&r.stdout)));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 100, "only {checked} programs checked against gcc");
}
