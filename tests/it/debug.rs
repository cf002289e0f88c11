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

/// `--transcript json`: one JSON object per command (comments and blank lines left out)
/// whose `output` is exactly the text the text transcript shows after that command, and
/// whose `program_output` is what the program printed meanwhile (locks.c prints "ok 7"
/// just before the PRINTF trace stop).
#[test]
fn json_transcript_holds_the_text_transcript_command_by_command() {
    let dir = tempdir("debug-json");
    let cod = compile(&dir, "locks.c");
    let script = debug_dir().join("locks.cmd");
    let input = debug_dir().join("locks.input");
    let run = |format: &str| {
        let args = [
            cod.to_str().unwrap(),
            "--stats",
            "none",
            "--network",
            "shortest-path",
            "--input",
            input.to_str().unwrap(),
            "--commands",
            script.to_str().unwrap(),
            "--transcript",
            format,
        ];
        let out = run_in(&dir, "cpss", &args, b"");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let text = run("text");
    let json = run("json");
    let records: Vec<serde_json::Value> =
        json.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect();
    let commands: Vec<&str> = records.iter().map(|r| r["command"].as_str().unwrap()).collect();
    let script_text = std::fs::read_to_string(&script).unwrap();
    let expected: Vec<&str> = script_text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).collect();
    assert_eq!(commands, expected);
    // The text transcript is the records' commands and outputs after prompts, the
    // program's output in its place.
    let mut rebuilt = String::new();
    for l in script_text.lines().take_while(|l| l.starts_with('#')) {
        rebuilt.push_str(&format!("(cpss) {l}\n"));
    }
    for r in &records {
        rebuilt.push_str(&format!("(cpss) {}\n", r["command"].as_str().unwrap()));
        rebuilt.push_str(r["program_output"].as_str().unwrap_or(""));
        rebuilt.push_str(r["output"].as_str().unwrap());
    }
    rebuilt.push_str("(cpss) \n");
    assert_eq!(rebuilt, text);
    let printed: Vec<&serde_json::Value> = records.iter().filter(|r| r.get("program_output").is_some()).collect();
    assert_eq!(printed.len(), 1);
    assert_eq!(printed[0]["program_output"], "ok 7\n");
}

/// A `set` during the run is stated in the final statistics with its time, after the
/// configuration the run started with: links.c stops at line 21 in the quantum ending at
/// 50 (main's clock 45), where `lanes` and `link-delay` change (lanes while messages may
/// travel: it applies to the packets that ask for a lane from then on).
#[test]
fn the_statistics_list_each_change_made_during_the_run() {
    let dir = tempdir("debug-changes");
    let cod = compile(&dir, "links.c");
    let script = b"break 21\nrun\nset lanes 4\nset link-delay 10\nclear 21\ncontinue\n";
    let out = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--debug", "--stats", "json"], script);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let j: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(j["changes"], serde_json::json!([{"time": 50, "set": "lanes 4"}, {"time": 50, "set": "link-delay 10"}]));
    assert_eq!(j["configuration"]["parameters"]["link-delay"], "5", "the configuration the run started with");
    let out = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--debug"], script);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Seed = 0\nSet at time 50 = lanes 4\nSet at time 50 = link-delay 10\n"), "{text}");
}
