//! `cpss --commands`: scripted debugging sessions on the programs of `fixtures/debug/`
//! give exactly their expected transcripts (`NAME.cmd` → `NAME.expected`; the program is
//! named on the script's first line, `# program: FILE.c`, and its standard input, if any, on
//! the second, `# input: FILE`), and debugging does not change the statistics of a run.
use crate::harness::*;
use std::path::{Path, PathBuf};

fn debug_dir() -> PathBuf {
    fixtures().join("debug")
}

/// Compiles `fixtures/debug/NAME` into `dir`.
fn compile(dir: &Path, name: &str) -> PathBuf {
    let src = debug_dir().join(name);
    let cod = dir.join(name).with_extension("cod");
    let out = run_in(dir, "cpcc", &[src.to_str().unwrap(), "-o", cod.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    cod
}

#[test]
fn every_script_gives_its_expected_transcript() {
    let dir = tempdir("debug-scripts");
    let scripts = files_with_ext(&debug_dir(), "cmd");
    assert!(scripts.len() >= 6, "{scripts:?}");
    for script in scripts {
        let text = std::fs::read_to_string(&script).unwrap();
        let program = text.lines().next().and_then(|l| l.strip_prefix("# program: ")).expect("a `# program:` line");
        let cod = compile(&dir, program);
        // The transcripts' times (message latencies before and after `set link-delay`)
        // are those of the closed-form network.
        // `# input: FILE` on the second line: the program's standard input.
        let input = text.lines().nth(1).and_then(|l| l.strip_prefix("# input: ")).map(|f| debug_dir().join(f));
        let mut args = vec![
            cod.to_str().unwrap().to_string(),
            "--stats".into(),
            "none".into(),
            "--network".into(),
            "shortest-path".into(),
            "--commands".into(),
            script.to_str().unwrap().to_string(),
        ];
        if let Some(f) = input {
            args.extend(["--input".to_string(), f.to_str().unwrap().to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run_in(&dir, "cpss", &args, b"");
        let transcript = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.code().is_some_and(|c| c <= 1), "{}: {}", script.display(), transcript);
        expect_file(&script.with_extension("expected"), &transcript);
    }
}

/// The statistics without the host time (the one line that may differ between runs).
fn stats_without_host(out: &[u8]) -> String {
    let text = String::from_utf8_lossy(out);
    let start = text.find("Sequential Execution Time").expect("statistics");
    text[start..].lines().filter(|l| !l.starts_with("Host Time")).map(|l| format!("{l}\n")).collect()
}

#[test]
fn breakpoints_do_not_change_the_statistics() {
    let dir = tempdir("debug-stats");
    for (program, lines) in [("workers.c", "21"), ("links.c", "20")] {
        let cod = compile(&dir, program);
        let plain = run_in(&dir, "cpss", &[cod.to_str().unwrap()], b"");
        // Stop at every breakpoint hit (12 in workers.c: 4 processes x 3 iterations; 4
        // in links.c), step a little, look around, and continue to the end.
        let mut script = format!("break {lines}\nrun\nstep 2\nstatus\ntime\n");
        script.push_str(&"continue\nshow k\n".repeat(20));
        let cmd = dir.join(format!("{program}.cmd"));
        std::fs::write(&cmd, script).unwrap();
        let debugged = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--commands", cmd.to_str().unwrap()], b"");
        assert_eq!(plain.status.code(), Some(0));
        assert_eq!(debugged.status.code(), Some(0));
        let transcript = String::from_utf8_lossy(&debugged.stdout);
        assert!(transcript.matches("Breakpoint: ").count() >= 3, "{transcript}");
        assert_eq!(stats_without_host(&debugged.stdout), stats_without_host(&plain.stdout), "{program}");
    }
}

#[test]
fn debug_needs_the_program_in_a_file() {
    let out = run("cpss", &["--debug"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("give the program as a file"));
}
