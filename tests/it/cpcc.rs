//! `cpcc`: diagnostics (exact line and column), golden listings, `.cod` round trips of
//! every fixture, and the output-selection rules of SPEC §1.
use crate::harness::*;
use cppe::lang::{compile, FrontOptions};
use cppe::vcode::cod;

/// Every diagnostic fixture fails with exit 2 and prints exactly its `.err` file.
#[test]
fn diagnostics_match_expected_files() {
    let dir = fixtures().join("diagnostics");
    let files = files_with_ext(&dir, "c");
    assert!(files.len() >= 15, "at least 15 diagnostic fixtures");
    for f in files {
        let name = f.file_name().unwrap().to_str().unwrap().to_string();
        let out = run_in(&dir, "cpcc", &[&name, "-o", "-"], b"");
        assert_eq!(out.status.code(), Some(2), "{name}: exit code");
        assert!(out.stdout.is_empty(), "{name}: nothing on stdout");
        expect_file(&f.with_extension("err"), &String::from_utf8_lossy(&out.stderr));
    }
}

/// The first error of each fixture, checked against the place a reader would point at.
/// Each row: file, line, column, and a part of the message.
#[test]
fn diagnostics_point_at_the_right_place() {
    let rows: &[(&str, u32, u32, &str)] = DIAGNOSTIC_ROWS;
    for &(file, line, col, msg) in rows {
        let path = fixtures().join("diagnostics").join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let opts = FrontOptions {
            include_dirs: vec![],
            env_dirs: vec![],
            leak_syntax_tree: false,
            sandbox: None,
            error_limit: None,
        };
        let err = compile(&path.display().to_string(), &text, &opts).expect_err(file);
        let first = err.diagnostics.iter().find(|d| d.is_error()).expect("an error");
        assert_eq!((first.loc.line, first.loc.col), (line, col), "{file}: {}", first.message);
        assert!(first.message.contains(msg), "{file}: message `{}` lacks `{msg}`", first.message);
    }
}

/// (file, line, col, message part): the line and column are where the culprit starts in
/// the fixture text (1-based; a missing `;` is reported just after the previous token).
const DIAGNOSTIC_ROWS: &[(&str, u32, u32, &str)] = &[
    ("undeclared_name.c", 3, 9, "undeclared name `y`"),
    ("type_mismatch.c", 5, 9, "type mismatch"),
    ("wrong_arg_count.c", 4, 9, "wrong number of arguments"),
    ("channel_elem_type.c", 5, 9, "reading channel `data` of element type float into int"),
    ("fork_non_call.c", 4, 14, "`fork` needs a function call"),
    ("two_arch.c", 2, 1, "at most one `arch`"),
    ("unknown_topology.c", 1, 6, "unknown topology `butterfly`"),
    ("missing_semicolon.c", 3, 10, "expected `;`"),
    ("unterminated_comment.c", 3, 5, "unterminated comment"),
    ("unterminated_string.c", 2, 12, "unterminated string"),
    ("break_outside_loop.c", 4, 5, "`break` outside a loop"),
    ("assign_non_lvalue.c", 3, 5, "not an lvalue"),
    ("duplicate_definition.c", 2, 7, "duplicate definition of `count`"),
    ("missing_include.c", 1, 10, "cannot find include file `nowhere.h`"),
    ("recursive_macro.c", 5, 9, "recursive macro"),
    ("nonconst_array_size.c", 3, 14, "only the first dimension of a variable-length array may vary"),
    ("return_in_forall.c", 4, 9, "`return` inside a forall body"),
    ("unknown_field.c", 4, 7, "has no field `z`"),
    ("reference_non_lvalue.c", 4, 10, "reference parameter"),
];

/// Several independent errors in one file are all reported: in `several_errors.c` the
/// three syntax errors and the undeclared `b` on line 4 (a statement that parsed, so
/// it is checked too).
#[test]
fn every_error_in_a_file_is_reported() {
    for (file, want) in [("several_errors.c", 4), ("several_semantic_errors.c", 3)] {
        let path = fixtures().join("diagnostics").join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let err = compile(file, &text, &FrontOptions::default()).expect_err(file);
        let n = err.diagnostics.iter().filter(|d| d.is_error()).count();
        assert_eq!(n, want, "{file}: {:#?}", err.diagnostics);
    }
}

/// Golden listings of small programs (`fixtures/listings/*.c` → `.lst`).
#[test]
fn golden_listings() {
    let dir = fixtures().join("listings");
    let files = files_with_ext(&dir, "c");
    assert!(!files.is_empty());
    for f in files {
        let name = f.file_name().unwrap().to_str().unwrap().to_string();
        let out = run_in(&dir, "cpcc", &["-S", &name], b"");
        assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        expect_file(&f.with_extension("lst"), &String::from_utf8_lossy(&out.stdout));
    }
}

/// Every fixture program compiles, and its module survives encode → decode unchanged:
/// the module read back writes the same bytes and shows the same (not `==`: a constant
/// NaN, as a folded `0.0 / 0.0` is, is never `==` itself, and would fail a correct
/// round trip).
#[test]
fn every_fixture_round_trips_through_cod() {
    let files = files_with_ext(&fixtures(), "c");
    assert!(files.len() >= 14, "fixture programs present");
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let opts = FrontOptions {
            include_dirs: vec![fixtures().join("include")],
            env_dirs: vec![],
            leak_syntax_tree: false,
            sandbox: None,
            error_limit: None,
        };
        let compiled = compile(&f.display().to_string(), &text, &opts)
            .unwrap_or_else(|e| panic!("{} does not compile:\n{e}", f.display()));
        let bytes = cod::encode(&compiled.module);
        let back = cod::decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(cod::encode(&back), bytes, "{}: the module read back writes other bytes", f.display());
        assert_eq!(format!("{back:?}"), format!("{:?}", compiled.module), "{}", f.display());
    }
}

/// The golden `.cod` files of format 1.0 still decode (readers of 1.x read every 1.0
/// file), and compiling the sources of the current format's folder today gives the same
/// bytes (a change to the encoding must bump the version).
#[test]
fn golden_cod_v1_decodes() {
    for dir in ["v1.0", "v1.1"] {
        let dir = fixtures().join("cod").join(dir);
        let files = files_with_ext(&dir, "cod");
        assert!(!files.is_empty());
        for f in files {
            let bytes = std::fs::read(&f).unwrap();
            let m = cod::decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            assert!(!m.code.is_empty());
            if !dir.ends_with(format!("v{}.{}", cod::VERSION_MAJOR, cod::VERSION_MINOR)) {
                continue;
            }
            let src = f.with_extension("c");
            let text = std::fs::read_to_string(&src).unwrap();
            let name = src.file_name().unwrap().to_str().unwrap();
            let opts = FrontOptions {
                include_dirs: vec![fixtures().join("include")],
                env_dirs: vec![],
                leak_syntax_tree: false,
                sandbox: None,
                error_limit: None,
            };
            let compiled = compile(name, &text, &opts).unwrap();
            let again = cod::encode(&compiled.module);
            assert_eq!(again, bytes, "{}: encoding changed without a version bump", f.display());
        }
    }
}

#[test]
fn writes_cod_beside_the_source_and_to_stdout_only_when_asked() {
    let dir = tempdir("cpcc-out");
    std::fs::write(dir.join("p.c"), "void main() { printf(\"hi\\n\"); }\n").unwrap();
    // stdout is a pipe here (as under `make | cat`): the .cod still goes beside p.c, as
    // `gcc -c p.c` writes p.o, and nothing goes to stdout.
    let out = run_in(&dir, "cpcc", &["p.c"], b"");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty(), "{} bytes on stdout", out.stdout.len());
    assert!(cod::decode(&std::fs::read(dir.join("p.cod")).unwrap()).is_ok());
    // `-o -` asks for stdout; so does a source read from stdin.
    let out = run_in(&dir, "cpcc", &["-o", "-", "p.c"], b"");
    assert!(cod::decode(&out.stdout).is_ok());
    let src = std::fs::read(dir.join("p.c")).unwrap();
    let out = run_in(&dir, "cpcc", &[], &src);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(cod::decode(&out.stdout).is_ok());
    // -o writes the file.
    let out = run_in(&dir, "cpcc", &["p.c", "-o", "x.cod"], b"");
    assert_eq!(out.status.code(), Some(0));
    assert!(cod::decode(&std::fs::read(dir.join("x.cod")).unwrap()).is_ok());
    // `-` reads the source from stdin.
    let out = run_in(&dir, "cpcc", &["-", "-o", "y.cod"], b"void main() { }\n");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(dir.join("y.cod").exists());
}

#[test]
fn failed_compilation_leaves_no_output_file() {
    let dir = tempdir("cpcc-fail");
    std::fs::write(dir.join("bad.c"), "void main() { x = 1; }\n").unwrap();
    let out = run_in(&dir, "cpcc", &["bad.c", "-o", "bad.cod"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(!dir.join("bad.cod").exists());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("bad.c:1:15: error: undeclared name `x`"), "{err}");
}

#[test]
fn missing_file_and_bad_flag_exit_2() {
    let out = run("cpcc", &["no-such-file.c"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-file.c"));
    let out = run("cpcc", &["--no-such-flag"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn one_step_off_inputs_say_what_to_do() {
    // A .cod given to cpcc, C source or nothing given to cpss: each error says which
    // tool the input belongs to, exit 2.
    let dir = tempdir("cpcc-hints");
    std::fs::write(dir.join("p.c"), "int main(void) { return 0; }\n").unwrap();
    assert!(run_in(&dir, "cpcc", &["p.c"], b"").status.success());
    let out = run_in(&dir, "cpcc", &["p.cod"], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("this is a compiled .cod file, not C source: run it with cpss p.cod"), "{err}");
    let out = run_in(&dir, "cpss", &["p.c"], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("compile it with cpcc first (cpcc p.c && cpss p.cod)"), "{err}");
    let out = run_in(&dir, "cpss", &[], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no program on standard input"), "{err}");
}
