//! Hardening: damaged inputs (truncated `.cod` files and run records, a flipped byte),
//! closed pipes, interrupts, programs that fork, recurse or send without bound, and a
//! huge source file. Each must end with its documented exit code and a clear message,
//! never a panic, a hang or a partial output file.
use crate::harness::*;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Compiles `src` (CPC text) to `dir/NAME.cod`.
fn compile_text(dir: &Path, name: &str, src: &str) -> PathBuf {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, src).unwrap();
    let cod = dir.join(format!("{name}.cod"));
    let out = run_in(dir, "cpcc", &[c.to_str().unwrap(), "-o", cod.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    cod
}

/// Standard error with the place `FILE:LINE` of a runtime error in `cod`'s source
/// written `line LINE`, as the expectations below are.
fn said(o: &std::process::Output, cod: &Path) -> String {
    stderr(o).replace(&format!("{}:", cod.with_extension("c").display()), "line ")
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn no_panic(o: &std::process::Output) {
    let e = stderr(o);
    assert!(!e.contains("panicked") && !e.contains("RUST_BACKTRACE"), "{e}");
}

/// The files in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// The ring program's `.cod` and run record in `dir`.
fn ring(dir: &Path) -> (PathBuf, PathBuf) {
    let cod = dir.join("ring.cod");
    let out = run_in(dir, "cpcc", &[fixtures().join("ring_token.c").to_str().unwrap(), "-o", "ring.cod"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run_in(dir, "cpss", &["ring.cod", "--stats", "none", "-t", "ring.cpt"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    (cod, dir.join("ring.cpt"))
}

/// Cut points: inside the magic, just after it, inside the first section or record,
/// the middle, and one byte short of the end (the CRC or the footer's last byte).
fn cuts(len: usize) -> [usize; 6] {
    [0, 3, 12, 20, len / 2, len - 1]
}

#[test]
fn truncated_cod_files_are_refused_at_every_cut() {
    let dir = tempdir("harden-cod-cut");
    let (cod, _) = ring(&dir);
    let bytes = std::fs::read(&cod).unwrap();
    for cut in cuts(bytes.len()) {
        std::fs::write(dir.join("cut.cod"), &bytes[..cut]).unwrap();
        let o = run_in(&dir, "cpss", &["cut.cod", "--stats", "none"], b"");
        assert_eq!(o.status.code(), Some(2), "cut at {cut}: {}", stderr(&o));
        no_panic(&o);
        let e = stderr(&o);
        // Below 4 bytes the magic itself is incomplete; beyond, something runs past the
        // end (or the CRC no longer matches when the cut lands exactly after a section).
        assert!(e.contains("cut.cod") && (e.contains("not a .cod file") || e.contains("truncated")), "{cut}: {e}");
    }
}

#[test]
fn truncated_run_records_are_reported_as_such_at_every_cut() {
    let dir = tempdir("harden-cpt-cut");
    let (_, cpt) = ring(&dir);
    let bytes = std::fs::read(&cpt).unwrap();
    for cut in cuts(bytes.len()) {
        std::fs::write(dir.join("cut.cpt"), &bytes[..cut]).unwrap();
        for tool in ["cpperf", "cptrace"] {
            let args: &[&str] =
                if tool == "cptrace" { &["cut.cpt", "--format", "picl", "-o", "out.txt"] } else { &["cut.cpt"] };
            let o = run_in(&dir, tool, args, b"");
            assert_eq!(o.status.code(), Some(2), "{tool} cut at {cut}: {}", stderr(&o));
            no_panic(&o);
            let e = stderr(&o);
            assert!(e.contains("cut.cpt"), "{tool} cut at {cut}: {e}");
            // From the magic on the record is recognised, and its end is missing. (Fewer
            // than 8 bytes: cpperf cannot tell a record from a PICL or SDDF trace.)
            if tool == "cptrace" || cut >= 8 {
                assert!(e.contains("run record ends without a footer"), "{tool} cut at {cut}: {e}");
                assert_eq!(e.matches("without a footer").count(), 1, "said once: {e}");
            }
            assert!(o.stdout.is_empty(), "{tool} cut at {cut} wrote a partial report");
            assert!(!dir.join("out.txt").exists(), "{tool} cut at {cut} left an output file");
        }
    }
}

#[test]
fn a_flipped_byte_in_a_run_record_is_detected() {
    let dir = tempdir("harden-cpt-flip");
    let (_, cpt) = ring(&dir);
    let bytes = std::fs::read(&cpt).unwrap();
    // Inside the version, an event, the middle, and the footer's statistics.
    for at in [9, 40, bytes.len() / 2, bytes.len() - 10] {
        let mut b = bytes.clone();
        b[at] ^= 0x10;
        std::fs::write(dir.join("flip.cpt"), &b).unwrap();
        let o = run_in(&dir, "cpperf", &["flip.cpt", "--format", "csv"], b"");
        assert_eq!(o.status.code(), Some(2), "flip at {at}: {}", stderr(&o));
        no_panic(&o);
        let e = stderr(&o);
        assert!(e.contains("corrupt") || e.contains("unsupported run record format"), "flip at {at}: {e}");
        assert!(o.stdout.is_empty(), "a failed analysis printed a partial CSV");
    }
}

/// Reads one line of `cmd`'s standard output, closes the pipe (as `head -1` does) and
/// returns the exit status and standard error.
fn head_1(mut cmd: Command) -> (Option<i32>, String, String) {
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).stdin(Stdio::null()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    // The reader is dropped here: the tool's next write fails with EPIPE.
    let out = child.wait_with_output().unwrap();
    (out.status.code(), line, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn closing_the_pipe_early_ends_every_tool_quietly_with_141() {
    let dir = tempdir("harden-head");
    // Every output below is well over a pipe buffer (64 KiB), so the writer meets the
    // closed pipe: 200000 printed lines; the listing of 20000 statements; the PICL
    // trace of 20000 messages (two lines each).
    let chatty = compile_text(
        &dir,
        "chatty",
        "void main() {\n int i;\n for (i = 0; i < 200000; i++) printf(\"%d\\n\", i);\n}\n",
    );
    let long_src = format!("void main() {{\n int x;\n{}}}\n", " x = x + 1;\n".repeat(20000));
    std::fs::write(dir.join("long.c"), long_src).unwrap();
    let pingpong = compile_text(
        &dir,
        "pingpong",
        "arch line L[2];\nphyArch line P[2];\nchannel int c;\nvoid w(int n) {\n int i;\n for (i = 0; i < n; i++) c = i;\n}\nvoid main() {\n int i, s;\n fork [1] w(20000);\n for (i = 0; i < 20000; i++) s = c;\n join;\n}\n",
    );
    let out = run_in(&dir, "cpss", &[pingpong.to_str().unwrap(), "--stats", "none", "-t", "pp.cpt"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let cases: Vec<(&str, Vec<String>)> = vec![
        ("cpss", vec![chatty.display().to_string(), "--stats".into(), "none".into()]),
        ("cpcc", vec!["-S".into(), "long.c".into()]),
        ("cptrace", vec!["pp.cpt".into(), "--format".into(), "picl".into()]),
    ];
    for (tool, args) in cases {
        let mut cmd = Command::new(crate::harness::tool(tool));
        cmd.args(&args).current_dir(&dir);
        let (code, line, err) = head_1(cmd);
        assert!(!line.is_empty(), "{tool} {args:?} printed nothing");
        // 141 = 128 + SIGPIPE, what a shell reports for a writer ended by the pipe.
        assert_eq!(code, Some(141), "{tool} {args:?}: {err}");
        assert!(err.is_empty(), "{tool} {args:?} wrote to stderr: {err}");
    }
}

#[test]
fn a_fork_bomb_stops_at_the_process_limit_with_exit_3() {
    let dir = tempdir("harden-forkbomb");
    let cod = compile_text(
        &dir,
        "bomb",
        "void bomb(int n) {\n    fork bomb(n + 1);\n    fork bomb(n + 1);\n    join;\n    join;\n}\nvoid main() {\n    bomb(0);\n}\n",
    );
    // A small limit keeps the test fast; the default (65536) is reached the same way.
    let o = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--max-procs", "2000"], b"");
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    no_panic(&o);
    assert!(stderr(&o).contains("too many processes alive at once (--max-procs"), "{}", stderr(&o));
}

#[test]
fn unbounded_recursion_stops_with_a_stack_overflow_and_exit_3() {
    let dir = tempdir("harden-recursion");
    let cod = compile_text(
        &dir,
        "deep",
        "int down(int n) {\n    int pad[1000];\n    pad[0] = n;\n    return down(n + 1) + pad[0];\n}\nvoid main() {\n    printf(\"%d\\n\", down(0));\n}\n",
    );
    // Default limits: each frame holds 1000 words, so the 4194304-word stack overflows
    // after about 4194 calls.
    let o = run_in(&dir, "cpss", &[cod.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    no_panic(&o);
    let e = said(&o, &cod);
    assert!(e.contains("(down, line 4): stack overflow"), "{e}");
}

#[test]
fn sending_without_bound_stops_at_the_message_limit_with_exit_3() {
    let dir = tempdir("harden-flood");
    let cod = compile_text(
        &dir,
        "flood",
        "arch line L[2];\nphyArch line P[2];\nchannel int sink;\nvoid worker(int x) {\n    int i;\n    for (i = 0; ; i++) sink = i;\n}\nvoid main() {\n    fork [1] worker(0);\n    join;\n}\n",
    );
    let o = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--max-messages", "10000"], b"");
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    no_panic(&o);
    assert!(stderr(&o).contains("too many messages (or message words) sent and not yet received"), "{}", stderr(&o));
    // The statistics so far: exactly the 10000 messages the limit allowed (none is
    // received; the 10001st send is refused before it counts).
    let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(all.contains("Messages Sent = 10000\n"), "{all}");
}

#[test]
fn a_10_mb_source_of_random_tokens_is_a_clear_error() {
    let dir = tempdir("harden-10mb");
    const TOKENS: &[&str] = &[
        "int", "x", "y", "(", ")", "{", "}", "[", "]", ";", ",", "=", "+", "*", "42", "while", "if", "else", "forall",
        "channel", "\"s\"", "3.5", "->", ".", "return", "fork", "join", "&", "!", "<", "\n",
    ];
    let mut g = crate::fuzz::Gen(2026);
    let mut src = String::with_capacity(10 << 20);
    while src.len() < 10 << 20 {
        src.push_str(TOKENS[g.below(TOKENS.len())]);
        src.push(' ');
    }
    std::fs::write(dir.join("big.c"), &src).unwrap();
    let t = Instant::now();
    let o = run_in(&dir, "cpcc", &["big.c", "-o", "big.cod"], b"");
    let took = t.elapsed();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    no_panic(&o);
    let e = stderr(&o);
    assert!(e.starts_with("big.c:") && e.contains("error"), "{}", &e[..e.len().min(2000)]);
    assert!(!dir.join("big.cod").exists());
    eprintln!("10 MB of random tokens: exit 2 after {took:?}");
}

/// SIGTERM, and SIGABRT: a release build ends on a panic by aborting (Cargo.toml), which
/// raises SIGABRT, so the same handler removes the temporary then too.
#[test]
fn a_terminated_run_leaves_no_record_and_no_temporary() {
    for (sig, name) in [(15, "TERM"), (6, "ABRT")] {
        terminated_run_leaves_nothing(sig, name);
    }
}

fn terminated_run_leaves_nothing(sig: i32, name: &str) {
    let dir = tempdir(&format!("harden-sig{name}"));
    let cod = compile_text(&dir, "spin", "void main() {\n    int i;\n    for (i = 0; ; i++) i = i - 1 + 1;\n}\n");
    let child = Command::new(crate::harness::tool("cpss"))
        .args([cod.to_str().unwrap(), "-t", "out.cpt"])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the temporary record exists (the run is under way), then interrupt.
    let start = Instant::now();
    while !listing(&dir).iter().any(|f| f.starts_with(".out.cpt.tmp")) {
        assert!(start.elapsed() < Duration::from_secs(60), "no temporary appeared: {:?}", listing(&dir));
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    // (SIGINT ends a run with its statistics so far: see the cpss tests.)
    let kill = Command::new("kill").args([&format!("-{name}"), &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    use std::os::unix::process::ExitStatusExt;
    // Ended by the signal itself, as a terminated tool should.
    assert_eq!(out.status.signal(), Some(sig), "{:?} {}", out.status, String::from_utf8_lossy(&out.stderr));
    assert_eq!(listing(&dir), ["spin.c", "spin.cod"]);
}

#[test]
fn failed_runs_leave_no_trace_file_and_no_cod() {
    let dir = tempdir("harden-atomic");
    let (_, cpt) = ring(&dir);
    // A record cut short: cptrace fails and leaves no SDDF file (nor a temporary).
    let bytes = std::fs::read(&cpt).unwrap();
    std::fs::write(dir.join("cut.cpt"), &bytes[..bytes.len() - 5]).unwrap();
    let o = run_in(&dir, "cptrace", &["cut.cpt", "--format", "sddf", "-o", "out.sddf"], b"");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // A source with an error: cpcc writes no .cod, and an old one is left as it was.
    std::fs::write(dir.join("bad.c"), "void main() { int x = ; }\n").unwrap();
    std::fs::write(dir.join("bad.cod"), b"old").unwrap();
    let o = run_in(&dir, "cpcc", &["bad.c", "-o", "bad.cod"], b"");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(std::fs::read(dir.join("bad.cod")).unwrap(), b"old");
    assert_eq!(listing(&dir), ["bad.c", "bad.cod", "cut.cpt", "ring.cod", "ring.cpt"]);
}

/// Outside tests, every `unwrap()` and `expect(` in `src/` carries a `cannot fail:`
/// comment on its line or the three before, proving that it cannot fail on data from a
/// file or a user. The parsers' own `expect` methods (`self.expect(…)?`, `p.expect(…)?`:
/// "expect this token", returning a `Result`) are not `Option`/`Result::expect`.
#[test]
fn every_unwrap_in_src_is_proven_safe() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    files.sort();
    let mut bad = Vec::new();
    let mut proven = 0;
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        let all: Vec<&str> = text.lines().collect();
        for (n, line) in non_test_lines(&text) {
            let code = line.split("//").next().unwrap_or("");
            if !code.contains("unwrap()") && !code.contains("expect(") {
                continue;
            }
            let context = all[n.saturating_sub(4)..n].join("\n");
            if context.contains("cannot fail") {
                proven += 1;
            } else {
                bad.push(format!("{}:{n}: {}", f.strip_prefix(root()).unwrap().display(), line.trim()));
            }
        }
    }
    assert!(bad.is_empty(), "unwrap/expect without a `cannot fail:` proof:\n{}", bad.join("\n"));
    // The four of the .cod writer, at least (sizes checked by try_encode).
    assert!(proven >= 4, "{proven}");
}

#[test]
fn the_null_pointer_is_no_object_s_address_and_dereferencing_it_stops_the_process() {
    // A string literal (the first object the program places) is not at address 0, so
    // it compares unequal to a null pointer; writing through a null pointer stops the
    // run with exit 1 and a message naming the process, function and line, instead of
    // silently overwriting that string.
    let dir = tempdir("harden-null");
    let src = "#include <stdio.h>\nvoid main() {\n    char *s = \"hi\";\n    int *p = 0;\n    printf(\"%d\\n\", s == 0);\n    *p = 5;\n    printf(\"%d\\n\", *p);\n}\n";
    let cod = compile_text(&dir, "null", src);
    let out = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--stats", "none"], b"");
    no_panic(&out);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "0\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        said(&out, &cod).contains("runtime error in process 0 (main, line 6): null pointer dereference"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn library_misuse_and_type_punning_stop_with_the_line() {
    // Each of these is undefined or implementation-defined in C and would give a silent
    // wrong answer in a memory of typed words; here each stops the run with exit 1 and a
    // message naming the line: a union member read after another type was stored in it,
    // a call through a null function pointer, a double free.
    let cases = [
        (
            "union u { int i; float f; };\nint main(void) {\n    union u x;\n    x.f = 1.5f;\n    return x.i;\n}\n",
            "(main, line 5): a union member read as int holds a float",
        ),
        // The same through an element of an array member (gcc on a little-endian host
        // prints 3: the low byte of 515).
        (
            "#include <stdio.h>\nint main(void) {\n    union { int a; char b[4]; } x;\n    x.a = 515;\n    printf(\"%d\\n\", x.b[0]);\n    return 0;\n}\n",
            "(main, line 5): a union member read as char holds a int",
        ),
        ("int main(void) {\n    int (*f)(int) = 0;\n    return f(1);\n}\n", "(main, line 3): call through a null function pointer"),
        (
            "#include <stdlib.h>\nint main(void) {\n    int *p = malloc(4);\n    free(p);\n    free(p);\n    return 0;\n}\n",
            "(main, line 5): free or realloc of address",
        ),
    ];
    let dir = tempdir("harden-misuse");
    for (k, (src, want)) in cases.iter().enumerate() {
        let cod = compile_text(&dir, &format!("misuse{k}"), src);
        let out = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--stats", "none"], b"");
        no_panic(&out);
        assert_eq!(out.status.code(), Some(1), "{src}");
        assert!(said(&out, &cod).contains(want), "{src}: {}", stderr(&out));
    }
}

/// An output named after an input of the same run is refused with exit 2, the input
/// untouched: `cpcc a.c -o a.c`, `cpss x.cod -t x.cod`, `cptrace x.cpt -o x.cpt`,
/// `cpmap --comm c.csv … -o c.csv` (also through a symbolic link to the input).
#[test]
fn an_output_never_replaces_an_input_of_the_same_run() {
    let dir = tempdir("harden-same-file");
    let (cod, cpt) = ring(&dir);
    let src = fixtures().join("ring_token.c");
    std::fs::copy(&src, dir.join("a.c")).unwrap();
    std::fs::write(dir.join("c.csv"), "src,dst,bytes\n0,1,8\n1,0,8\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("ring.cpt", dir.join("link.cpt")).unwrap();
    let before: Vec<(String, Vec<u8>)> = ["a.c", "ring.cod", "ring.cpt", "c.csv"]
        .iter()
        .map(|f| (f.to_string(), std::fs::read(dir.join(f)).unwrap()))
        .collect();
    let cases: [(&str, Vec<&str>); 5] = [
        ("cpcc", vec!["a.c", "-o", "a.c"]),
        ("cpss", vec!["ring.cod", "-t", "ring.cod"]),
        ("cptrace", vec!["ring.cpt", "--format", "sddf", "-o", "ring.cpt"]),
        ("cptrace", vec!["ring.cpt", "--format", "sddf", "-o", "link.cpt"]),
        (
            "cpmap",
            vec![
                "--comm",
                "c.csv",
                "--virtual",
                "ring:2",
                "--physical",
                "ring:2",
                "identity",
                "--emit",
                "map",
                "-o",
                "c.csv",
            ],
        ),
    ];
    for (tool, args) in cases {
        let out = run_in(&dir, tool, &args, b"");
        assert_eq!(out.status.code(), Some(2), "{tool} {args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("is also an input of this run"), "{tool} {args:?}: {}", stderr(&out));
    }
    for (f, bytes) in before {
        assert!(std::fs::read(dir.join(&f)).unwrap() == bytes, "{f} changed");
    }
    let _ = (cod, cpt);
}

/// Special files and links: an output that is a FIFO is written in place (the FIFO stays
/// a FIFO and its reader gets the bytes); a symbolic link stays a link and its target is
/// replaced atomically.
#[cfg(unix)]
#[test]
fn outputs_write_fifos_in_place_and_replace_a_link_s_target() {
    let dir = tempdir("harden-special");
    let (_, _) = ring(&dir);
    let fifo = dir.join("out.fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let out = run_in(&dir, "cptrace", &["ring.cpt", "--format", "sddf", "-o", "out.fifo"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let got = reader.join().unwrap();
    let direct = run_in(&dir, "cptrace", &["ring.cpt", "--format", "sddf"], b"");
    assert!(got == direct.stdout, "the FIFO's reader gets the whole SDDF text");
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "still a FIFO");
    use std::os::unix::fs::FileTypeExt;
    // A link to a file in a subfolder: the link stays, the file behind it is replaced.
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/real.sddf"), "old").unwrap();
    std::os::unix::fs::symlink("sub/real.sddf", dir.join("via.sddf")).unwrap();
    let out = run_in(&dir, "cptrace", &["ring.cpt", "--format", "sddf", "-o", "via.sddf"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::symlink_metadata(dir.join("via.sddf")).unwrap().file_type().is_symlink());
    assert!(std::fs::read(dir.join("sub/real.sddf")).unwrap() == direct.stdout);
    assert_eq!(listing(&dir.join("sub")), ["real.sddf"], "no temporary left");
}

/// A closed standard output (`>&-`) is an error, exit 2, not output silently lost.
#[cfg(unix)]
#[test]
fn a_closed_standard_output_is_an_error() {
    let dir = tempdir("harden-closed-stdout");
    let (_, _) = ring(&dir);
    let src = fixtures().join("ring_token.c");
    let cases: [(&str, Vec<&str>); 4] = [
        ("cpcc", vec![src.to_str().unwrap(), "-S"]),
        ("cpss", vec!["ring.cod"]),
        ("cptrace", vec!["ring.cpt", "--format", "sddf"]),
        ("cpperf", vec!["ring.cpt"]),
    ];
    for (tool, args) in cases {
        let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
        let line = format!("'{}' {} >&-", tool_path(tool), quoted.join(" "));
        let out = Command::new("sh").arg("-c").arg(&line).current_dir(&dir).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{line}: {}", stderr(&out));
        assert!(stderr(&out).contains("standard output is closed"), "{line}: {}", stderr(&out));
    }
}

fn tool_path(name: &str) -> String {
    crate::harness::tool(name).to_str().unwrap().to_string()
}

/// Under a file size limit (`ulimit -f`) a write fails with a message naming the file,
/// exit 2, and no temporary is left (the process is not killed by SIGXFSZ).
#[cfg(unix)]
#[test]
fn a_file_size_limit_is_a_clear_error_and_leaves_no_temporary() {
    let dir = tempdir("harden-xfsz");
    let (_, _) = ring(&dir);
    // 4 blocks of 512 bytes: the SDDF text of the ring run is longer.
    let line = format!("ulimit -f 4; '{}' ring.cpt --format sddf -o big.sddf", tool_path("cptrace"));
    let out = Command::new("sh").arg("-c").arg(&line).current_dir(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("big.sddf"), "{}", stderr(&out));
    assert!(stderr(&out).to_lowercase().contains("file too large"), "{}", stderr(&out));
    assert_eq!(listing(&dir), ["ring.cod", "ring.cpt"]);
}

/// Flags that cannot combine are a usage error naming both (exit 2); `--profile 0` is
/// refused rather than printing a row per tick; a directory given as `--input` or
/// `--commands` is an error, not an empty file; a limit hit before the run starts
/// (`--max-memory 1`: the program's globals do not fit; `--max-procs 0`) exits 3 as
/// any limit does.
#[test]
fn bad_combinations_and_limits_have_their_exit_codes() {
    let dir = tempdir("harden-flags");
    let (_, _) = ring(&dir);
    let d = dir.to_str().unwrap();
    let cases: [(Vec<&str>, i32, &str); 8] = [
        (vec!["--profile", "0"], 2, "--profile: the step must be more than 0"),
        (
            vec!["--runs", "2", "-t", "x.cpt"],
            2,
            "--runs runs many simulations and summarizes them: -t needs a single run",
        ),
        (
            vec!["--sweep", "link-delay=1,2", "--commands", "x.cmd"],
            2,
            "--sweep runs many simulations and summarizes them: --commands needs a single run",
        ),
        (vec!["--runs", "2", "--profile", "10"], 2, "--profile needs a single run"),
        (vec!["--input", d], 2, "is a directory"),
        (vec!["--commands", d], 2, "is a directory"),
        (vec!["--max-memory", "1"], 3, "memory pool exhausted"),
        (vec!["--max-procs", "0"], 3, "too many processes alive"),
    ];
    for (extra, code, message) in cases {
        let args: Vec<&str> = ["ring.cod"].into_iter().chain(extra.iter().copied()).collect();
        let out = run_in(&dir, "cpss", &args, b"");
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        assert!(!dir.join("x.cpt").exists());
    }
}

/// The debugger reads commands as text lines of at most 4096 bytes: a line that is not
/// UTF-8 is an error and the session goes on (the breakpoint set before it still stops
/// the run); a line over 4096 bytes, or an endless one (/dev/zero), ends the session
/// with an error naming the line and exit 2 instead of filling memory (it ended with exit
/// 0 before, as if the commands had run).
#[test]
fn debugger_command_lines_are_bounded_text() {
    let dir = tempdir("harden-debug-lines");
    let (_, _) = ring(&dir);
    std::fs::write(dir.join("bad.cmd"), b"break 20\n\xff\xfe\nrun\n").unwrap();
    let out = run_in(&dir, "cpss", &["ring.cod", "--commands", "bad.cmd", "--stats", "none"], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("(cpss) error: the command line is not UTF-8 text\n(cpss) run\n"), "{text}");
    assert!(text.contains("Breakpoint: "), "{text}");
    #[cfg(unix)]
    {
        let out = run_in(&dir, "cpss", &["ring.cod", "--commands", "/dev/zero", "--stats", "none"], b"");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("error: a command line longer than 4096 bytes: the session ends"), "{text}");
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains("cpss: /dev/zero: command line 1 is longer than 4096 bytes"), "{}", stderr(&out));
    }
    // Line 2 has 5000 bytes: the `break` of line 1 is answered, nothing after line 2 runs.
    std::fs::write(dir.join("long.cmd"), format!("break 20\nprint {}\nrun\n", "x".repeat(4994))).unwrap();
    let out = run_in(&dir, "cpss", &["ring.cod", "--commands", "long.cmd", "--stats", "none"], b"");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("cpss: long.cmd: command line 2 is longer than 4096 bytes"), "{}", stderr(&out));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("Breakpoint: "), "the run must not start");
}

/// A transcript piped into `head` ends the session as soon as a write fails, with 141
/// (128 + SIGPIPE) as the shell reports for `yes | head`; it exited 0 before, having run
/// every remaining command into the closed pipe.
#[cfg(unix)]
#[test]
fn debugger_transcript_into_a_closed_pipe_exits_141() {
    let dir = tempdir("harden-debug-pipe");
    let (_, _) = ring(&dir);
    std::fs::write(dir.join("many.cmd"), "step\n".repeat(20_000)).unwrap();
    let script = format!(
        "set -o pipefail; '{}' ring.cod --commands many.cmd --stats none | head -c 1 >/dev/null",
        tool("cpss").display()
    );
    let out = std::process::Command::new("bash").arg("-c").arg(&script).current_dir(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(141), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "a closed pipe is not an error message");
}

/// Numbers out of range are errors, never silent wrong answers: a scale factor outside
/// 10^-6..10^6 (`--scale-link-speed 1e-300` made runs faster), a time quantity past
/// 10^12 units (a machine file's link latency of 2e16 behaved as 0), and a clock that
/// would pass its range (2^62 ticks: `delay(2147483647)` forever saturated the clock
/// and cpss hung) stops with exit 3 and the statistics so far.
#[test]
fn out_of_range_numbers_are_errors() {
    let dir = tempdir("harden-numbers");
    let (_, _) = ring(&dir);
    for (flag, value) in [("--scale-link-speed", "1e-300"), ("--scale-costs", "1e300"), ("--scale-latency", "0")] {
        let out = run_in(&dir, "cpss", &["ring.cod", flag, value], b"");
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
        assert!(stderr(&out).contains("is not between 1e-6 and 1e6"), "{}", stderr(&out));
    }
    let out = run_in(&dir, "cpss", &["ring.cod", "--link-delay", "1e14"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("link-delay: more than 10^12 units, the largest time quantity"), "{}", stderr(&out));
    let text = std::fs::read_to_string(fixtures().join("machines/hetero_cluster8.mach")).unwrap();
    let huge = text.replace("latency = 50 5;", "latency = 2e16 0;");
    assert_ne!(huge, text);
    std::fs::write(dir.join("huge.mach"), huge).unwrap();
    let out = run_in(&dir, "cpss", &["ring.cod", "--machine", "huge.mach"], b"");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("a link's latency in the machine file: more than 10^12 units"), "{}", stderr(&out));
    let cod = compile_text(&dir, "sleeper", "void main() {\n    while (1)\n        delay(2147483647);\n}\n");
    let out = run_in(&dir, "cpss", &[cod.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("simulated time exceeds 4611686018427387 units"), "{}", stderr(&out));
    assert!(stderr(&out).contains("Parallel Execution Time = "), "the statistics so far: {}", stderr(&out));
}

/// Readers check what they read before holding it: a `.cod` is refused at its first
/// eight bytes (`/dev/zero` would otherwise be read forever); a PICL line longer than
/// 1 MiB is an error naming the line; a map file past the 64 MiB text limit is refused.
#[cfg(unix)]
#[test]
fn readers_check_first_bytes_and_bound_what_they_hold() {
    let dir = tempdir("harden-readers");
    let (_, _) = ring(&dir);
    let out = run_in(&dir, "cpss", &["/dev/zero"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out), "cpss: error: /dev/zero: not a .cod file (bad magic)\n");
    let mut long = String::from("-3 -901 0.000000 0 0 0\n-3 -901 0.0 0 0 ");
    long.push_str(&"9".repeat(2 << 20));
    std::fs::write(dir.join("long.trf"), long).unwrap();
    let out = run_in(&dir, "cpperf", &["long.trf"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("long.trf: line 2: cannot read: a line longer than 1048576 bytes"),
        "{}",
        stderr(&out)
    );
    let f = std::fs::File::create(dir.join("big.map")).unwrap();
    f.set_len((64 << 20) + 1).unwrap();
    let out = run_in(&dir, "cpss", &["ring.cod", "--map-file", "big.map"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("big.map: larger than the 64 MiB this input may hold"), "{}", stderr(&out));
}

/// Under a 4 GB address-space limit (`ulimit -v 4194304`) the seed's matmul runs with
/// the default configuration (parallel time 13030, as in the README), and a channel
/// flooded with 100 000-word structs stops at the message limit (exit 3, words counted,
/// not only messages) instead of aborting on a failed allocation.
#[cfg(unix)]
#[test]
fn a_4_gb_limit_runs_matmul_and_stops_a_flood_with_exit_3() {
    let dir = tempdir("harden-ulimit");
    let matmul = crate::harness::compile_into(&dir, &fixtures().join("matmul.c"));
    let flood = compile_text(
        &dir,
        "flood",
        "struct big { int a[100000]; };\nchannel struct big ch;\nvoid main() {\n    struct big b;\n    b.a[0] = 1;\n    while (1) { ch = b; }\n}\n",
    );
    let run = |cod: &Path| {
        let line = format!("ulimit -v 4194304; '{}' '{}' --stats csv", tool_path("cpss"), cod.display());
        Command::new("sh").arg("-c").arg(&line).current_dir(&dir).output().unwrap()
    };
    let out = run(&matmul);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).lines().last().unwrap().starts_with("46108,13030,"));
    let out = run(&flood);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("too many messages (or message words) sent and not yet received"),
        "{}",
        stderr(&out)
    );
}

/// Sizes are checked before anything is allocated: a fullconnect of 100000 processors
/// (10^10 links) and a billion repetitions are usage errors (exit 2) under a 4 GB limit,
/// not aborts.
#[cfg(unix)]
#[test]
fn sizes_are_checked_before_allocating() {
    let dir = tempdir("harden-sizes");
    let (_, _) = ring(&dir);
    for (args, message) in [
        ("--topology fullconnect:100000", "a fullconnect of more than 4096 processors"),
        ("--runs 1000000000", "1000000000 is not in 1..=100000"),
    ] {
        let line = format!("ulimit -v 4194304; '{}' ring.cod {args}", tool_path("cpss"));
        let out = Command::new("sh").arg("-c").arg(&line).current_dir(&dir).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args}: {}", stderr(&out));
        assert!(stderr(&out).contains(message), "{args}: {}", stderr(&out));
    }
}

/// Writes `cwd/file`, a program that only includes `include`, and compiles it in `cwd`
/// with `flags` (to `x.cod` beside it).
fn compile_an_include(cwd: &Path, file: &str, include: &str, flags: &[&str]) -> std::process::Output {
    std::fs::write(cwd.join(file), format!("#include \"{include}\"\nint main() {{ return 0; }}\n")).unwrap();
    let cod = Path::new(file).with_file_name("x.cod");
    let mut args = flags.to_vec();
    args.extend([file, "-o", cod.to_str().unwrap()]);
    run_in(cwd, "cpcc", &args, b"")
}

/// `--sandbox DIR` for graders: cpcc refuses an include outside DIR (an absolute path
/// such as /proc/self/environ, or a link inside DIR that leads out) with an error naming
/// it; cpss makes the program's fopen of a file outside DIR a runtime error (exit 1),
/// while files inside stay usable.
#[cfg(unix)]
#[test]
fn sandbox_confines_includes_and_fopen() {
    let dir = tempdir("harden-sandbox");
    let b = dir.join("box");
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(dir.join("secret.h"), "#define SECRET 42\n").unwrap();
    std::os::unix::fs::symlink("../secret.h", b.join("link.h")).unwrap();
    std::fs::write(b.join("ok.h"), "#define X 3\n").unwrap();
    for (file, include) in [("box/abs.c", "/proc/self/environ"), ("box/link.c", "link.h")] {
        let out = compile_an_include(&dir, file, include, &["--sandbox", "box"]);
        assert_eq!(out.status.code(), Some(2), "{file}: {}", stderr(&out));
        assert!(stderr(&out).contains("is outside the sandbox"), "{file}: {}", stderr(&out));
        assert!(!stderr(&out).contains("PATH="), "no environment echoed");
    }
    std::fs::write(
        b.join("f.c"),
        "#include \"ok.h\"\n#include <stdio.h>\nint main() {\n    FILE *f;\n    f = fopen(\"box/out.txt\", \"w\");\n    fprintf(f, \"%d\\n\", X);\n    fclose(f);\n    f = fopen(\"secret.h\", \"r\");\n    return 0;\n}\n",
    )
    .unwrap();
    let out = run_in(&dir, "cpcc", &["--sandbox", "box", "box/f.c", "-o", "box/f.cod"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run_in(&dir, "cpss", &["box/f.cod", "--sandbox", "box", "--stats", "none"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("(main, box/f.c:8): fopen of `secret.h`, which is outside the sandbox"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(b.join("out.txt")).unwrap(), "3\n");
}

/// Built-ins that write through a pointer respect the destination object: `scanf("%s")`
/// of 8 letters into `char s[4]` (9 words with the NUL) is a runtime error naming the
/// line, exit 1, where it overwrote the neighbouring variable; a 3-letter word fits; a
/// local array and sprintf are checked the same way.
#[test]
fn string_builtins_respect_their_destination() {
    let dir = tempdir("harden-scanf");
    let cod = compile_text(
        &dir,
        "sc",
        "#include <stdio.h>\nint before;\nchar s[4];\nint after;\nvoid main() {\n    char t[4];\n    before = 1; after = 2;\n    scanf(\"%s\", s);\n    printf(\"%s %d %d\\n\", s, before, after);\n    scanf(\"%s\", t);\n    sprintf(t, \"%d\", after * 1000);\n    printf(\"%s\\n\", t);\n}\n",
    );
    let c = cod.to_str().unwrap();
    let out = run_in(&dir, "cpss", &[c, "--stats", "none"], b"abcdefgh\n");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("sc.c:8): scanf writes 9 words at address ")
            && stderr(&out).contains("past the end of its object (4 words from there)"),
        "{}",
        stderr(&out)
    );
    let out = run_in(&dir, "cpss", &[c, "--stats", "none"], b"abc\nxyzwvu\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "abc 1 2\n");
    assert!(stderr(&out).contains("sc.c:10): scanf writes 7 words"), "{}", stderr(&out));
    // "2000" and its NUL are 5 words: one more than t holds.
    let out = run_in(&dir, "cpss", &[c, "--stats", "none"], b"abc\nxyz\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("sc.c:11): sprintf writes 5 words"), "{}", stderr(&out));
}

/// The destination check never stops a correct program: a compound literal (no name)
/// shares its frame words with a variable of a later block, whose one word the check
/// took for the literal's object ("memset writes 8 words ..., 1 words from there"). The
/// literal's `c[2]` is 5, the later block adds 5 * 1: 10.
#[test]
fn a_compound_literal_is_not_taken_for_a_later_block_s_variable() {
    let dir = tempdir("harden-literal");
    let cod = compile_text(
        &dir,
        "lit",
        "#include <stdio.h>\nstruct S { int a; unsigned char b; short c[4]; double d; long long e; };\nint main() {\n    int t = 0;\n    { int k = 2; t += (struct S){1, 2, {3, 4, 5}, 0.5, 6}.c[k]; }\n    { int y = 1, x = 5; t += x * y; }\n    printf(\"%d\\n\", t);\n    return 0;\n}\n",
    );
    let out = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--stats", "none"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "10\n");
}

/// No input overflows cpcc's stack: a chain of 20 000 `+` (40 KB of source) and chains
/// nested in parentheses are an error naming the place; 1000 terms compile and run
/// (the sum is 1000).
#[test]
fn long_expressions_are_an_error_not_a_stack_overflow() {
    let dir = tempdir("harden-chains");
    let terms = |n: usize| vec!["1"; n].join(" + ");
    let mut nested = String::from("1");
    for _ in 0..200 {
        nested = format!("{} + ({nested})", terms(100));
    }
    for (name, expr) in [("plus", terms(20_000)), ("nested", nested)] {
        let src = dir.join(format!("{name}.c"));
        std::fs::write(&src, format!("int main() {{ int x; x = {expr}; return x; }}\n")).unwrap();
        let out = run_in(&dir, "cpcc", &[src.to_str().unwrap(), "-o", "x.cod"], b"");
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(stderr(&out).contains("error: expression too long (more than 1024 operators in a row)"), "{name}");
    }
    let cod = compile_text(
        &dir,
        "thousand",
        &format!("#include <stdio.h>\nint main() {{ printf(\"%d\\n\", {}); return 0; }}\n", terms(1000)),
    );
    let out = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--stats", "none"], b"");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1000\n");
}

/// cpcc shows its first `--error-limit` errors (default 20) and counts the rest: 30
/// undeclared names give 20 error blocks and "30 errors …; the first 20 shown"; with
/// `--error-limit 0` all 30 are shown. (Reporting time per error is in
/// `scripts/bench-errors.sh`.)
#[test]
fn errors_past_the_limit_are_counted_not_shown() {
    let dir = tempdir("harden-error-limit");
    let src = dir.join("e.c");
    let body: String = (0..30).map(|i| format!("  x{i} = 1;\n")).collect();
    std::fs::write(&src, format!("int main() {{\n{body}  return 0;\n}}\n")).unwrap();
    let blocks = |o: &std::process::Output| stderr(o).matches(": error: undeclared name").count();
    let out = run_in(&dir, "cpcc", &[src.to_str().unwrap(), "-o", "e.cod"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(blocks(&out), 20, "{}", stderr(&out));
    let last = format!("30 errors in {}; the first 20 shown (--error-limit 20; 0 shows all)\n", src.display());
    assert!(stderr(&out).ends_with(&last), "{}", stderr(&out));
    let out = run_in(&dir, "cpcc", &[src.to_str().unwrap(), "--error-limit", "0", "-o", "e.cod"], b"");
    assert_eq!(blocks(&out), 30, "{}", stderr(&out));
    assert!(stderr(&out).ends_with(&format!("\n30 errors in {}\n", src.display())), "{}", stderr(&out));
    assert!(!dir.join("e.cod").exists());
}

/// A switch of 20 000 cases compiles (its lowering is linear in the cases) and
/// dispatches to the right one: x = 19 999 jumps to the last case, which prints
/// 19 999 · 2; a repeated value is still reported with its first line.
#[test]
fn a_switch_of_many_cases_compiles_and_dispatches() {
    let dir = tempdir("harden-switch");
    let n = 20_000;
    let cases: String = (0..n).map(|i| format!("  case {i}: y = {i} * 2; break;\n")).collect();
    let src = format!(
        "#include <stdio.h>\nint main() {{\n int x, y; x = {}; y = -1;\n switch (x) {{\n{cases} }}\n printf(\"%d\\n\", y);\n return 0;\n}}\n",
        n - 1
    );
    let cod = compile_text(&dir, "sw", &src);
    let out = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--stats", "none"], b"");
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{}\n", (n - 1) * 2));
    let dup = dir.join("dup.c");
    std::fs::write(
        &dup,
        "int main() { int x; x = 1;\n switch (x) {\n case 1: break;\n case 1: break;\n }\n return 0; }\n",
    )
    .unwrap();
    let out = run_in(&dir, "cpcc", &[dup.to_str().unwrap(), "-o", "dup.cod"], b"");
    assert!(stderr(&out).contains("dup.c:4:7: error: duplicate case value 1"), "{}", stderr(&out));
    assert!(stderr(&out).contains("first used at line 3"), "{}", stderr(&out));
}

/// cpcc refuses what cpss would: a declarator nesting 300 pointers (or 300 array
/// dimensions) is an error at the declarator, against the `.cod` limit of 256 levels,
/// and 300 structs each holding the previous one fail the same check that cpss makes
/// on load. No `.cod` is written.
#[test]
fn types_nested_past_the_cod_limit_are_refused_by_cpcc() {
    let dir = tempdir("harden-deep-types");
    let stars = "*".repeat(300);
    let dims = "[1]".repeat(300);
    let mut structs = String::from("struct s0 { int a; };\n");
    for i in 1..300 {
        structs += &format!("struct s{i} {{ struct s{} a; }};\n", i - 1);
    }
    let cases = [
        (
            "ptr",
            format!("int main() {{ int {stars}p; return 0; }}\n"),
            "the type of `p` nests 301 levels deep (the limit is 256)",
        ),
        (
            "arr",
            format!("int main() {{ int a{dims}; return 0; }}\n"),
            "the type of `a` nests 301 levels deep (the limit is 256)",
        ),
        (
            "st",
            format!("{structs}int main() {{ struct s299 x; return 0; }}\n"),
            "1:1: error: the program exceeds a limit of the vCode format",
        ),
    ];
    for (name, src, expect) in cases {
        let c = dir.join(format!("{name}.c"));
        std::fs::write(&c, src).unwrap();
        let out = run_in(&dir, "cpcc", &[c.to_str().unwrap(), "-o", "x.cod"], b"");
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(stderr(&out).contains(expect), "{name}: {}", stderr(&out));
        assert!(!dir.join("x.cod").exists(), "{name}");
    }
}

/// A 10-way macro bomb 7 levels deep (10^7 tokens) stops at the expansion limit with an
/// error, and a 1 MB header included 200 times compiles: neither aborts.
#[test]
fn macro_bombs_and_repeated_large_includes_are_bounded() {
    let dir = tempdir("harden-macro-bomb");
    let mut src = String::from("#define A0 x\n");
    for d in 1..8 {
        src += &format!("#define A{d} {}\n", vec![format!("A{}", d - 1); 10].join(" "));
    }
    src += "int main() { int x; x = 0; A7; return 0; }\n";
    let c = dir.join("bomb.c");
    std::fs::write(&c, src).unwrap();
    let out = run_in(&dir, "cpcc", &[c.to_str().unwrap(), "-o", "b.cod"], b"");
    no_panic(&out);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("error: macro expansion produces too many tokens"), "{}", stderr(&out));
    std::fs::write(dir.join("big.h"), format!("/*{}*/\n", "x".repeat(1 << 20))).unwrap();
    let inc = dir.join("inc.c");
    std::fs::write(&inc, format!("{}int main() {{ return 0; }}\n", "#include \"big.h\"\n".repeat(200))).unwrap();
    let out = run_in(&dir, "cpcc", &[inc.to_str().unwrap(), "-o", "i.cod"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Every file a run reads is an input no output may replace: a header the program
/// includes (`cpcc i.c -o inc/h.h`), a cost or configuration file (`-t` onto it), and,
/// through standard output, any input at all (`cptrace rr.cpt --format picl >> rr.cpt`,
/// `cpss --input in.txt >> in.txt`, `cpperf rr.cpt >> rr.cpt`): as `cat` does, the
/// device and inode of standard output are compared with the inputs'. Each is refused
/// with exit 2 and leaves the file as it was.
#[test]
fn no_output_lands_on_an_included_file_or_through_standard_output_on_an_input() {
    let dir = tempdir("harden-inputs");
    std::fs::create_dir_all(dir.join("inc")).unwrap();
    std::fs::write(dir.join("inc/h.h"), "#define K 3\n").unwrap();
    std::fs::write(dir.join("i.c"), "#include \"inc/h.h\"\n#include <stdio.h>\nint main(void) { int x; scanf(\"%d\", &x); printf(\"%d\\n\", x * K); return 0; }\n").unwrap();
    std::fs::write(dir.join("in.txt"), "14\n").unwrap();
    std::fs::write(dir.join("c.costs"), "ADDI=2\n").unwrap();
    std::fs::write(dir.join("cfg.toml"), "network = \"flow\"\n").unwrap();
    let ok = run_in(&dir, "cpcc", &["i.c", "-o", "i.cod"], b"");
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
    let ok = run_in(&dir, "cpss", &["i.cod", "--input", "in.txt", "--stats", "none", "-t", "rr.cpt"], b"");
    assert_eq!((ok.status.code(), ok.stdout.as_slice()), (Some(0), &b"42\n"[..]), "{}", stderr(&ok));
    let files = ["inc/h.h", "in.txt", "c.costs", "cfg.toml", "rr.cpt"];
    let before: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(dir.join(f)).unwrap()).collect();
    let named: [(&str, Vec<&str>); 4] = [
        ("cpcc", vec!["i.c", "-o", "inc/h.h"]),
        ("cpcc", vec!["-S", "i.c", "-o", "inc/h.h"]),
        ("cpss", vec!["i.cod", "--input", "in.txt", "--cost-file", "c.costs", "-t", "c.costs"]),
        ("cpss", vec!["i.cod", "--input", "in.txt", "--config", "cfg.toml", "-t", "cfg.toml"]),
    ];
    for (tool, args) in named {
        let out = run_in(&dir, tool, &args, b"");
        assert_eq!(out.status.code(), Some(2), "{tool} {args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("is also an input of this run"), "{tool} {args:?}: {}", stderr(&out));
    }
    let appended: [(&str, Vec<&str>, &str); 3] = [
        ("cptrace", vec!["rr.cpt", "--format", "picl"], "rr.cpt"),
        ("cpss", vec!["i.cod", "--input", "in.txt", "--stats", "none"], "in.txt"),
        ("cpperf", vec!["rr.cpt"], "rr.cpt"),
    ];
    for (tool, args, onto) in appended {
        let out_file = std::fs::OpenOptions::new().append(true).open(dir.join(onto)).unwrap();
        let out = Command::new(crate::harness::tool(tool))
            .args(&args)
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::from(out_file))
            .output()
            .unwrap();
        no_panic(&out);
        assert_eq!(out.status.code(), Some(2), "{tool} {args:?} >> {onto}: {}", stderr(&out));
        assert!(stderr(&out).contains("input file is output file"), "{tool} {args:?}: {}", stderr(&out));
    }
    for (f, bytes) in files.iter().zip(before) {
        assert!(std::fs::read(dir.join(f)).unwrap() == bytes, "{f} changed");
    }
}

/// `printf("%n %d\n", &x, 5)` printed `%n 8` (the conversion as text, the arguments
/// shifted by one). A literal format with `%n` or an unknown letter is a compile error
/// that names it (exit 2); a format built at run time is a runtime error at the call
/// (exit 1); `%a` prints glibc's hex float.
#[test]
fn unsupported_printf_conversions_are_refused_by_name() {
    let dir = tempdir("harden-printf");
    std::fs::write(
        dir.join("n.c"),
        "#include <stdio.h>\nint main(void) { int x; printf(\"%n %d\\n\", &x, 5); return 0; }\n",
    )
    .unwrap();
    let out = run_in(&dir, "cpcc", &["n.c", "-o", "n.cod"], b"");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("n.c:2:"), "{}", stderr(&out));
    assert!(stderr(&out).contains("the `printf` conversion `%n` is not supported"), "{}", stderr(&out));
    let cod = compile_text(
        &dir,
        "runtime",
        "#include <stdio.h>\nint main(void) {\n  char f[8] = \"%n %d\\n\"; int x = 0;\n  printf(\"%a\\n\", 1.5);\n  printf(f, &x, 5);\n  return 0;\n}\n",
    );
    let out = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--stats", "none"], b"");
    no_panic(&out);
    assert_eq!((out.status.code(), out.stdout.as_slice()), (Some(1), &b"0x1.8p+0\n"[..]), "{}", stderr(&out));
    assert!(said(&out, &cod).contains("(main, line 5): the conversion `%n` is not supported"), "{}", stderr(&out));
}

/// The sequential time (every processor's work summed) grows 64 times as fast as the
/// clock on 64 workers: with every instruction at cost 4294967295 it passed 2^64 ticks
/// and wrapped, printing a speedup of 0.66 with exit 0. It now ends the run with the
/// limit named (exit 3) once it would pass the clock's range; below that the speedup is
/// computed (at most 64 on 64 processors).
#[test]
fn the_sequential_time_never_wraps() {
    let dir = tempdir("harden-seq-wrap");
    let cod = compile_text(
        &dir,
        "work",
        "#include <stdlib.h>\nint s[64];\nint main(int argc, char **argv) {\n  int w; int n = atoi(argv[1]);\n  \
         forall (w from 0 to 63) { int i; for (i = 0; i < n; i++) s[w] = s[w] + i; }\n  return 0;\n}\n",
    );
    let costs: String = cppe::vcode::Op::ALL.iter().map(|op| format!("{}=4294967295\n", op.mnemonic())).collect();
    std::fs::write(dir.join("huge.costs"), costs).unwrap();
    let run = |n: &str| {
        let args = [cod.to_str().unwrap(), "--topology", "mesh:8x8", "--cost-file", "huge.costs", "--", n];
        run_in(&dir, "cpss", &args, b"")
    };
    let out = run("2000");
    no_panic(&out);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the sequential time (every processor's work summed), or the busy"),
        "{}",
        stderr(&out)
    );
    let out = run("200");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let speedup: f64 =
        text.lines().find_map(|l| l.strip_prefix("Speedup = ")).and_then(|v| v.parse().ok()).expect("a speedup");
    assert!(speedup > 1.0 && speedup <= 64.0, "{text}");
    // The analysis of that record at 10^15 units of work: each WCPA weight is
    // w = Δt (1 + (1 − P)(n − 1)), between Δt and n Δt, and the weighted path is the
    // heaviest, so its weight W lies between the critical path's length L and n times the
    // parallel time (n = 64).
    let args =
        [cod.to_str().unwrap(), "--topology", "mesh:8x8", "--cost-file", "huge.costs", "-t", "w.cpt", "--", "200"];
    let out = run_in(&dir, "cpss", &args, b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let par = units_to_ticks(text.lines().find_map(|l| l.strip_prefix("Parallel Execution Time = ")).unwrap());
    let out = run_in(&dir, "cpperf", &["w.cpt"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    let field = |name: &str| -> u128 {
        units_to_ticks(report.lines().find_map(|l| l.trim().strip_prefix(name)).expect(name).trim())
    };
    let (length, weight) = (field("Length = "), field("Total weight = "));
    assert!(length > 0 && length <= par && length <= weight && weight <= 64 * par, "{length} {weight} {par}");
}

/// A symbolic link loop named as the output was replaced by a regular file (exit 0); it
/// is refused as the system refuses to open one, "too many levels of symbolic links"
/// (exit 2), and both links stay links.
#[cfg(unix)]
#[test]
fn a_symbolic_link_loop_as_the_output_is_refused() {
    let dir = tempdir("harden-link-loop");
    let (_, cpt) = ring(&dir);
    std::os::unix::fs::symlink("loop_b", dir.join("loop_a")).unwrap();
    std::os::unix::fs::symlink("loop_a", dir.join("loop_b")).unwrap();
    std::fs::copy(fixtures().join("ring_token.c"), dir.join("a.c")).unwrap();
    let cases: [(&str, Vec<&str>); 2] = [
        ("cpcc", vec!["a.c", "-o", "loop_a"]),
        ("cptrace", vec![cpt.to_str().unwrap(), "--format", "picl", "-o", "loop_b"]),
    ];
    for (tool, args) in cases {
        let out = run_in(&dir, tool, &args, b"");
        no_panic(&out);
        assert_eq!(out.status.code(), Some(2), "{tool}: {}", stderr(&out));
        assert!(stderr(&out).contains("too many levels of symbolic links"), "{tool}: {}", stderr(&out));
    }
    for l in ["loop_a", "loop_b"] {
        assert!(std::fs::symlink_metadata(dir.join(l)).unwrap().file_type().is_symlink(), "{l} is no longer a link");
    }
}

/// A `--phase-mapping` key that no probe can have is not ignored in silence: jacobi's
/// probes are labelled "start sweeps" and "sweeps done", so `sweep` and `#0` (probes
/// count from #1) warn, naming both labels, while "start sweeps" and `#2` do not; the
/// run goes on (exit 0) either way.
#[test]
fn a_phase_mapping_key_that_never_matches_warns_with_the_program_s_labels() {
    let dir = tempdir("harden-phase-key");
    let inc = fixtures().join("include");
    let src = fixtures().join("jacobi.c");
    let out = run_in(&dir, "cpcc", &["-I", inc.to_str().unwrap(), src.to_str().unwrap(), "-o", "j.cod"], b"");
    assert_eq!(out.status.code(), Some(0));
    for (key, warns) in [("sweep", true), ("#0", true), ("start sweeps", false), ("#2", false)] {
        let spec = format!("{key}=random");
        let out = run_in(&dir, "cpss", &["j.cod", "--phase-mapping", &spec, "--stats", "none"], b"");
        assert_eq!(out.status.code(), Some(0), "{key}");
        let err = String::from_utf8_lossy(&out.stderr);
        let warned = err.contains(&format!("--phase-mapping {key}=…: no probe of the program has the label"));
        assert_eq!(warned, warns, "{key}: {err}");
        if warns {
            assert!(err.contains("\"start sweeps\", \"sweeps done\""), "{err}");
        }
    }
}

/// A run record that cannot be written stops the run at the next quantum end (exit 2,
/// the write error named) instead of simulating to the end for nothing: the token ring
/// of 100 000 laps prints far fewer than its 100 000 lap lines before the run stops. Before,
/// the whole run was simulated and only then reported the full disk.
#[cfg(target_os = "linux")]
#[test]
fn a_failed_run_record_stops_the_run() {
    let dir = tempdir("harden-record-full");
    let src = std::fs::read_to_string(fixtures().join("ring_token.c")).unwrap();
    let long = src.replace("#define LAPS 3", "#define LAPS 100000");
    assert_ne!(long, src);
    std::fs::write(dir.join("long.c"), long).unwrap();
    let inc = fixtures().join("include");
    let out = run_in(&dir, "cpcc", &["long.c", "-I", inc.to_str().unwrap(), "-o", "long.cod"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run_in(&dir, "cpss", &["long.cod", "--trace", "/dev/full", "--stats", "none"], b"");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("writing the run record: No space left on device"), "{}", stderr(&out));
    let laps = String::from_utf8_lossy(&out.stdout).lines().filter(|l| l.starts_with("lap ")).count();
    assert!(laps < 1000, "{laps} laps simulated after the record failed");
}

/// cpmap checks its map file's output before it searches: a missing folder, a directory
/// or an input as `-o` is exit 2 at once. Before, a greedy search on 4096 processors ran
/// its 26 s and only then said so. The search here is bounded by `--max-seconds 120`, so
/// an answer within 30 s shows it never started.
#[test]
fn cpmap_checks_its_output_before_searching() {
    let dir = tempdir("harden-cpmap-early");
    let n = 64;
    let mut csv = String::from("src,dst,bytes\n");
    for y in 0..n {
        for x in 0..n {
            for (dx, dy) in [(1, 0), (n - 1, 0), (0, 1), (0, n - 1)] {
                csv.push_str(&format!("{},{},100\n", y * n + x, ((y + dy) % n) * n + (x + dx) % n));
            }
        }
    }
    std::fs::write(dir.join("comm.csv"), csv).unwrap();
    for (out, says) in [
        ("missing/m.map", "missing/m.map: No such file or directory"),
        (".", ".: is a directory"),
        ("comm.csv", "comm.csv: is also an input of this run"),
    ] {
        let start = Instant::now();
        let args = ["--virtual", "torus:64x64", "--physical", "mesh:64x64", "--comm", "comm.csv", "--search", "greedy"];
        let tail = ["--max-seconds", "120", "--emit", "map", "-o", out];
        let all: Vec<&str> = args.iter().chain(tail.iter()).copied().collect();
        let r = run_in(&dir, "cpmap", &all, b"");
        assert_eq!(r.status.code(), Some(2), "-o {out}: {}", stderr(&r));
        assert!(stderr(&r).contains(says), "-o {out}: {}", stderr(&r));
        assert!(start.elapsed() < Duration::from_secs(30), "-o {out}: the search ran first");
    }
}

/// The files of one output are a set, all written or none: under a 20 480-byte file
/// limit (`ulimit -f 40`, 512-byte blocks) master_worker's Gantt (18 130 bytes) and
/// space-time (6 892) charts fit but its utilization chart (25 062) does not, so
/// `cpperf --svg DIR` fails (exit 2) and DIR keeps the ring's three charts byte for byte,
/// with no temporary; a folder it had to create is gone again. Before, DIR was left with
/// two charts of one run and one of the other. The Paraver set (.prv, .pcf, .row) and an
/// OTF2 archive's new folder (under a 512-byte limit) behave the same.
#[cfg(unix)]
#[test]
fn a_set_of_outputs_is_written_whole_or_not_at_all() {
    let dir = tempdir("harden-output-set");
    let (_, ring_cpt) = ring(&dir);
    let mw = crate::harness::compile_into(&dir, &fixtures().join("master_worker.c"));
    let out = run_in(&dir, "cpss", &[mw.to_str().unwrap(), "-t", "mw.cpt", "--stats", "none"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run_in(&dir, "cpperf", &[ring_cpt.to_str().unwrap(), "--svg", "charts"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run_in(&dir, "cptrace", &["ring.cpt", "--format", "paraver", "-o", "t.prv"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let before = |names: &[&str]| names.iter().map(|n| std::fs::read(dir.join(n)).unwrap()).collect::<Vec<_>>();
    let charts = ["charts/gantt.svg", "charts/spacetime.svg", "charts/utilization.svg"];
    let paraver = ["t.prv", "t.pcf", "t.row"];
    let (old_charts, old_paraver) = (before(&charts), before(&paraver));
    let limited_to = |blocks: u32, args: &str| {
        let line = format!("ulimit -f {blocks}; {args}");
        Command::new("sh").arg("-c").arg(&line).current_dir(&dir).output().unwrap()
    };
    let limited = |args: &str| limited_to(40, args);
    let cpperf = tool_path("cpperf");
    let out = limited(&format!("'{cpperf}' mw.cpt --svg charts"));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("charts/utilization.svg: File too large"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("wrote"), "nothing was written: {}", stderr(&out));
    assert_eq!(before(&charts), old_charts, "the older charts are untouched");
    let out = limited(&format!("'{cpperf}' mw.cpt --svg new/deeper"));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!dir.join("new").exists(), "the folders made for the failed set are removed");
    // The alltoall run's .prv passes the limit: nothing of the set replaces the old one.
    let a2a = crate::harness::compile_into(&dir, &fixtures().join("alltoall.c"));
    let out = run_in(&dir, "cpss", &[a2a.to_str().unwrap(), "-t", "a2a.cpt", "--stats", "none"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = limited(&format!("'{}' a2a.cpt --format paraver -o t.prv", tool_path("cptrace")));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(before(&paraver), old_paraver, "the older Paraver set is untouched");
    let out = limited_to(1, &format!("'{}' a2a.cpt --format otf2 -o arch/a.otf2", tool_path("cptrace")));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!dir.join("arch").exists(), "the OTF2 archive's new folder is removed");
    let mut left = listing(&dir);
    left.retain(|n| n.starts_with('.'));
    assert!(left.is_empty(), "temporaries left: {left:?}");
    let mut left = listing(&dir.join("charts"));
    left.retain(|n| n.starts_with('.'));
    assert!(left.is_empty(), "temporaries left in charts/: {left:?}");
}

/// Under an address-space limit the host's refusals are exit 3 with the limit named,
/// never an abort (exit 134 and a backtrace): a program that mallocs 1 MB forever under
/// `ulimit -v 4000000` stops when the pool cannot grow (the statistics so far follow,
/// and no processor is busy longer than the run: 100.0 %), and a hypercube:24 (16 777 216
/// processors, within the documented limit) under `ulimit -v 1000000` is refused by the
/// allocator's line, naming the bytes asked for.
#[cfg(target_os = "linux")]
#[test]
fn a_refused_host_allocation_is_exit_3_naming_the_limit() {
    let dir = tempdir("harden-host-memory");
    let (_, _) = ring(&dir);
    let ma = compile_text(
        &dir,
        "ma",
        "#include <stdlib.h>\nint main() {\n    while (1)\n        malloc(1000000);\n    return 0;\n}\n",
    );
    let line = format!("ulimit -v 4000000; '{}' '{}'", tool_path("cpss"), ma.display());
    let out = Command::new("sh").arg("-c").arg(&line).current_dir(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the host refused memory for the memory pool (a limit such as `ulimit -v`"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("Processor 0: 100.0%"), "{}", stderr(&out));
    let line = format!("ulimit -v 1000000; '{}' ring.cod --topology hypercube:24", tool_path("cpss"));
    let out = Command::new("sh").arg("-c").arg(&line).current_dir(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).starts_with("cpss: error: the host refused "), "{}", stderr(&out));
    assert!(stderr(&out).contains("bytes of memory (a limit such as `ulimit -v`"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("backtrace"), "{}", stderr(&out));
}

/// Text traces are checked as run records are (they were analysed whatever they held):
/// the ring's PICL and SDDF traces are refused (exit 2, the line named) with a record
/// moved earlier, a record repeated, or an event record deleted (the count record at the
/// end says how many there were); a PICL trace without the run record's events (as
/// other tools write) is refused with a receive whose send was deleted, an idle block
/// ended twice, or a send begun inside another. The traces as written pass.
#[test]
fn inconsistent_text_traces_are_refused_with_the_line() {
    let dir = tempdir("harden-text-traces");
    let (_, cpt) = ring(&dir);
    let cpt = cpt.to_str().unwrap();
    let mut texts = Vec::new();
    for (format, file) in [("picl", "r.trf"), ("sddf", "r.sddf")] {
        let out = run_in(&dir, "cptrace", &[cpt, "--format", format, "-o", file], b"");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        texts.push((file, std::fs::read_to_string(dir.join(file)).unwrap()));
    }
    let analyse = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).unwrap();
        run_in(&dir, "cpperf", &[name], b"")
    };
    for (file, text) in &texts {
        let out = analyse(file, text);
        assert_eq!(out.status.code(), Some(0), "{file} as written: {}", stderr(&out));
    }
    let lines = |t: &str| t.lines().map(str::to_string).collect::<Vec<_>>();
    let join = |v: &[String]| v.join("\n") + "\n";
    // The k-th line that starts with `prefix`.
    let nth = |v: &[String], prefix: &str, k: usize| {
        v.iter().enumerate().filter(|(_, l)| l.starts_with(prefix)).nth(k).map(|(i, _)| i).unwrap()
    };
    let (picl, sddf) = (lines(&texts[0].1), lines(&texts[1].1));
    // The same PICL without the run record's events, as other tools write it.
    let rebuilt: Vec<String> =
        picl.iter().filter(|l| !l.starts_with("-2 -999") && !l.starts_with("-2 -992")).cloned().collect();
    // The k-th line starting with `prefix`, moved `by` lines later, repeated or deleted.
    let moved = |v: &[String], prefix: &str, k: usize, by: usize| {
        let mut v = v.to_vec();
        let i = nth(&v, prefix, k);
        let l = v.remove(i);
        v.insert(i + by, l);
        v
    };
    let repeated = |v: &[String], prefix: &str, k: usize| {
        let mut v = v.to_vec();
        let i = nth(&v, prefix, k);
        v.insert(i, v[i].clone());
        v
    };
    let deleted = |v: &[String], prefix: &str, k: usize, n: usize| {
        let mut v = v.to_vec();
        let i = nth(&v, prefix, k);
        v.drain(i..i + n);
        v
    };
    let cases: Vec<(&str, Vec<String>, &str)> = vec![
        ("moved.trf", moved(&picl, "-2 -999", 200, 40), "a trace is in time order"),
        ("repeated.trf", repeated(&picl, "-2 -999", 100), "repeats the one before it"),
        ("deleted.trf", deleted(&picl, "-2 -999", 300, 1), "marks were deleted or repeated"),
        ("moved.sddf", moved(&sddf, "\"busy\" {", 20, 60), "a trace is in time order"),
        ("deleted.sddf", deleted(&sddf, "\"busy\" {", 20, 1), "records were deleted or repeated"),
        // A send's begin and end records.
        ("no_send.trf", deleted(&rebuilt, "-3 -21 ", 0, 2), "before any record sends it"),
        ("idle_twice.trf", repeated(&rebuilt, "-4 -601 ", 0), "ends an idle block while not idle"),
        ("send_in_send.trf", deleted(&rebuilt, "-4 -21 ", 0, 1), "(a record repeated or missing?)"),
    ];
    for (name, v, says) in cases {
        let out = analyse(name, &join(&v));
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(stderr(&out).contains(&format!("cpperf: error: {name}: line ")), "{name}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{name}: {}", stderr(&out));
    }
}

/// The sandbox by default, for graders. cpcc reads an include only from the source's
/// folder (and below), `-I` and `$CPPE` folders: `/proc/self/environ` and `../up.h` are
/// refused naming the file and echoing none of it, `inc/h.h` below the source is read,
/// `-I ..` admits `../up.h`, `--trust` admits any file but still refuses one holding a
/// NUL byte. cpss lets `fopen` reach the working folder only (`../out.txt` is a runtime
/// error, exit 1, unless `--trust`; a missing folder gives NULL), cuts the program's
/// output at `--max-output` (exactly 1000 bytes written, then exit 3 naming the flag),
/// and no configuration file may give `--trust`.
#[cfg(unix)]
#[test]
fn the_sandbox_is_the_default_and_trust_lifts_it() {
    let dir = tempdir("harden-default-sandbox");
    let p = dir.join("prog");
    std::fs::create_dir_all(p.join("inc")).unwrap();
    std::fs::write(dir.join("up.h"), "#define UP 7\n").unwrap();
    std::fs::write(p.join("inc/h.h"), "#define H 5\n").unwrap();
    for (include, flags, code, says) in [
        ("/proc/self/environ", &[][..], 2, "`/proc/self/environ` is outside the sandbox"),
        (
            "/proc/self/environ",
            &["--trust"][..],
            2,
            "`/proc/self/environ` is not C source text (a NUL byte on its line 1)",
        ),
        ("../up.h", &[][..], 2, "`../up.h` is outside the sandbox"),
        ("../up.h", &["-I", ".."][..], 0, ""),
        ("../up.h", &["--trust"][..], 0, ""),
        ("inc/h.h", &[][..], 0, ""),
    ] {
        let out = compile_an_include(&p, "i.c", include, flags);
        assert_eq!(out.status.code(), Some(code), "{include} {flags:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{include} {flags:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("PATH="), "no environment echoed: {}", stderr(&out));
        no_panic(&out);
    }
    std::fs::write(
        p.join("w.c"),
        "#include <stdio.h>\nint main() {\n    FILE *f;\n    f = fopen(\"here.txt\", \"w\");\n    fprintf(f, \"in\\n\");\n    fclose(f);\n    printf(\"%d\\n\", fopen(\"nodir/x.txt\", \"w\") == NULL);\n    f = fopen(\"../out.txt\", \"w\");\n    fprintf(f, \"out\\n\");\n    fclose(f);\n    return 0;\n}\n",
    )
    .unwrap();
    let out = run_in(&p, "cpcc", &["w.c"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run_in(&p, "cpss", &["w.cod", "--stats", "none"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("w.c:8): fopen of `../out.txt`, which is outside the sandbox"), "{}", stderr(&out));
    // A folder that does not exist holds no file: fopen returns NULL, as in C.
    assert_eq!(out.stdout, b"1\n");
    assert_eq!(std::fs::read_to_string(p.join("here.txt")).unwrap(), "in\n");
    assert!(!dir.join("out.txt").exists());
    let out = run_in(&p, "cpss", &["w.cod", "--stats", "none", "--trust"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(dir.join("out.txt")).unwrap(), "out\n");
    // A configuration that comes with the program cannot lift it.
    std::fs::write(p.join("cppe.toml"), "trust = true\n").unwrap();
    let out = run_in(&p, "cpss", &["w.cod", "--stats", "none"], b"");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("cppe.toml:1: `trust` cannot be given in a configuration"), "{}", stderr(&out));
    std::fs::remove_file(p.join("cppe.toml")).unwrap();
    // The output cap: 7 bytes a line, cut at exactly 1000 bytes.
    std::fs::write(
        p.join("loud.c"),
        "#include <stdio.h>\nint main() {\n    while (1) printf(\"012345\\n\");\n    return 0;\n}\n",
    )
    .unwrap();
    let out = run_in(&p, "cpcc", &["loud.c"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run_in(&p, "cpss", &["loud.cod", "--max-output", "1000"], b"");
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(out.stdout.len(), 1000);
    assert!(stderr(&out).contains("passed --max-output bytes"), "{}", stderr(&out));
    // The default cap is --list-params's 67108864 bytes; --trust makes it none, which a
    // step limit shows: the same loop then stops at --max-steps (exit 3) having written
    // more than a --max-output of 1000 would allow.
    let out = run_in(&p, "cpss", &["--list-params"], b"");
    let row = String::from_utf8_lossy(&out.stdout).lines().find(|l| l.starts_with("max-output")).unwrap().to_string();
    assert!(row.contains(" bytes ") && row.contains(" 67108864 "), "{row}");
    let out = run_in(&p, "cpss", &["loud.cod", "--trust", "--max-steps", "20000"], b"");
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("--max-steps"), "{}", stderr(&out));
    assert!(out.stdout.len() > 1000, "{}", out.stdout.len());
}

/// Time in units as the reports print it (`12`, `3.25`) in ticks, exactly, however large.
fn units_to_ticks(s: &str) -> u128 {
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    whole.parse::<u128>().unwrap() * 1000 + format!("{frac:0<3}").parse::<u128>().unwrap()
}

/// Sums over processors pass 2^64 ticks (1.8 * 10^16 units) well inside the clock's
/// range. Busy time summed over processors is bounded like the sequential time: 32
/// processes each sending once with a send overhead of 10^15 units make 3.2 * 10^16
/// units of busy time, and the run stops with the limit named (exit 3) where the
/// analysis printed "running 156.51 %". Idle time is not bounded by the simulator and is
/// summed without overflow: when process 0 alone sends, the other 31 processors idle for
/// about 3.1 * 10^16 units, and running + waiting + idle is exactly 32 times the parallel
/// time (each processor is in one state at every moment), where a 64-bit sum had wrapped.
/// Message latencies summed past 2^64 ticks keep a true average.
#[test]
fn sums_over_processors_never_wrap() {
    let dir = tempdir("harden-sum-wrap");
    let body = |all: bool| {
        format!(
            "#define P 32\nchannel int box[P];\nvoid node(int me) {{\n  int x;\n  if ({}) {{ box[me] = me; x = box[me]; }}\n}}\n\
             void main() {{\n  int i;\n  forall (i from 0 to P - 1) fork [i; box[i]] node(i);\n}}\n",
            if all { "1" } else { "me == 0" }
        )
    };
    let all = compile_text(&dir, "all", &body(true));
    let one = compile_text(&dir, "one", &body(false));
    let flags = ["--topology", "mesh:8x4", "--send-overhead", "1000000000000000"];
    let mut args = vec![all.to_str().unwrap()];
    args.extend(flags);
    let out = run_in(&dir, "cpss", &args, b"");
    no_panic(&out);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("the busy time summed over processors (work and overhead)"), "{}", stderr(&out));
    let mut args = vec![one.to_str().unwrap(), "-t", "one.cpt"];
    args.extend(flags);
    let out = run_in(&dir, "cpss", &args, b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let par = units_to_ticks(text.lines().find_map(|l| l.strip_prefix("Parallel Execution Time = ")).unwrap());
    let out = run_in(&dir, "cpperf", &["one.cpt"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    let states: Vec<u128> = report
        .lines()
        .skip_while(|l| !l.starts_with("Processor time by state"))
        .skip(1)
        .take_while(|l| l.contains('%'))
        .map(|l| units_to_ticks(l.split_whitespace().last().unwrap()))
        .collect();
    assert_eq!(states.len(), 3, "running, waiting for children, idle: {report}");
    assert!(states[2] > 1 << 64, "idle passes 2^64 ticks: {states:?}");
    assert_eq!(states.iter().sum::<u128>(), 32 * par, "{report}");
    // Latencies: 32 processes each send 600 messages with a start-up of 10^12 units
    // (--msg-init, the largest time quantity): 19200 latencies of a little over 10^12
    // units sum past 2^64 ticks. The average stays a little over 10^12 (a saturated sum
    // had given 960767920505.705), in cpss and in cpperf alike.
    let lat = compile_text(
        &dir,
        "lat",
        "#define P 32\nchannel int box[P];\nvoid node(int me) {\n  int x, k;\n  \
         for (k = 0; k < 600; k++) box[(me + 1) % P] = me;\n  for (k = 0; k < 600; k++) x = box[me];\n}\n\
         void main() {\n  int i;\n  forall (i from 0 to P - 1) fork [i; box[i]] node(i);\n}\n",
    );
    let args = [lat.to_str().unwrap(), "--topology", "mesh:8x4", "--msg-init", "1000000000000", "-t", "lat.cpt"];
    let out = run_in(&dir, "cpss", &args, b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let avg = |text: &str| {
        let v = text.lines().find_map(|l| l.strip_prefix("Average Message Latency = ")).expect("an average");
        units_to_ticks(v)
    };
    let from_cpss = avg(&String::from_utf8_lossy(&out.stdout));
    assert!((1_000_000_000_000_000..1_000_000_000_100_000).contains(&from_cpss), "{from_cpss}");
    let out = run_in(&dir, "cpperf", &["lat.cpt"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(avg(&String::from_utf8_lossy(&out.stdout)), from_cpss);
}
