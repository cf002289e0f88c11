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
//! * Random arithmetic ([`random_arithmetic_prints_what_gcc_s_build_prints`]): generated
//!   programs of defined C over every scalar type print what gcc's builds print.
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

/// Whether the host has gcc; when it has not, says so and what is not checked (`skipped`).
pub(crate) fn have_gcc(skipped: &str) -> bool {
    let found = Command::new("gcc").arg("--version").output().is_ok();
    if !found {
        eprintln!("gcc not found: {skipped}");
    }
    found
}

/// The expected files are what gcc's build of the same program prints.
#[test]
fn expected_outputs_are_gcc_s() {
    if !have_gcc("the expected outputs are not re-checked against it") {
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

/// Whether scalar type `t` is floating.
pub(crate) fn real(t: &str) -> bool {
    t == "double" || t == "float"
}

/// The operators of the generated expressions ([`render`] writes each), and whether
/// one takes integer operands only.
pub(crate) const OPS: [&str; 23] = [
    "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", ">", "<=", ">=", "==", "!=", "&&", "||", "neg", "~", "!",
    "cast", "?:",
];

pub(crate) fn int_only(op: &str) -> bool {
    matches!(op, "%" | "<<" | ">>" | "&" | "|" | "^" | "~")
}

/// What an operator takes beyond its two operands: a cast's type, the third operand of
/// `?:` (drawn by the caller after the first two, so that a generator's draws stay in
/// the same order).
pub(crate) enum Third {
    None,
    Cast(&'static str),
    Else((String, bool)),
}

/// The defined C text of `op` applied to `a` and `b` (each with whether it is floating),
/// and whether the result is floating: see [`ExprGen`] for `DIV`, the masked shifts and
/// `D2I`; a floating value wanted as an integer (`want_int`) goes through `D2I`.
pub(crate) fn render(
    op: &str,
    (a, ra): (String, bool),
    (b, rb): (String, bool),
    want_int: bool,
    third: Third,
) -> (String, bool) {
    match (op, third) {
        ("/", _) => (format!("DIV({a}, {b})"), ra || rb),
        ("%", _) => (format!("DIVM({a}, {b})"), false),
        ("<<" | ">>", _) => (format!("({a} {op} (({b}) & 15))"), false),
        ("neg", _) => (format!("(-({a}))"), ra),
        ("~" | "!", _) => (format!("({op}({a}))"), false),
        (_, Third::Cast(t)) => match (real(t), want_int, ra) {
            (true, true, _) => (format!("D2I((double)({a}))"), false),
            (true, false, _) => (format!("(({t})({a}))"), true),
            (false, _, true) => (format!("(({t})D2I({a}))"), false),
            (false, _, false) => (format!("(({t})({a}))"), false),
        },
        (_, Third::Else((c, rc))) => (format!("(({a}) ? ({b}) : ({c}))"), rb || rc),
        ("<" | ">" | "<=" | ">=" | "==" | "!=" | "&&" | "||", _) => (format!("(({a}) {op} ({b}))"), false),
        _ => (format!("(({a}) {op} ({b}))"), ra || rb),
    }
}

/// Random arithmetic in C: a program of 150 statements over variables of every integer
/// type, `float` and `double`, each printing one expression of up to four levels of
/// operators (arithmetic, shifts, bitwise, comparisons, logic, casts, `?:`), with
/// compound assignments (`+=` to `>>=`) and `++`/`--` between them. The expressions
/// are defined C whatever the values: a division or remainder by 0 or -1 gives its left
/// operand instead (`DIV`), shift counts are masked to 0..15, a `double` becomes an
/// integer only through `D2I` (0 outside +-2e9), and no variable changes inside an
/// expression. Integers print as `unsigned long long` (every bit of a 64-bit result),
/// floating values with `%.17g`. gcc is built with `-fwrapv` (C's wrapping on overflow,
/// which cpss gives) and `-funsigned-char` (plain `char` is 0..255 in CPC, cpcc(1)).
/// Its output is the expected one.
struct ExprGen {
    g: crate::fuzz::Gen,
    vars: Vec<(String, &'static str)>,
}

/// Every scalar type of C that cpcc has (the generators' types).
pub(crate) const TYPES: [&str; 13] = [
    "int",
    "unsigned",
    "long",
    "unsigned long",
    "signed char",
    "unsigned char",
    "char",
    "short",
    "unsigned short",
    "double",
    "long long",
    "unsigned long long",
    "float",
];

impl ExprGen {
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.g.below(from.len())]
    }

    /// An operand: a constant or a variable (a floating one through `D2I` where an
    /// integer is wanted); with whether its type is floating.
    fn leaf(&mut self, want_int: bool) -> (String, bool) {
        if self.g.below(5) == 0 {
            let k = self.pick(&[
                "0",
                "1",
                "-1",
                "3",
                "31",
                "255",
                "65536",
                "2147483647",
                "4294967295u",
                "-5",
                "100000",
                "7u",
                "1L",
                "-1L",
                "0x80000000",
                "0xFFFFFFFF",
            ]);
            return (k.to_string(), false);
        }
        let (v, t) = self.vars[self.g.below(self.vars.len())].clone();
        match (real(t), want_int) {
            (true, true) => (format!("D2I({v})"), false),
            (real, _) => (v, real),
        }
    }

    fn expr(&mut self, depth: u32, want_int: bool) -> (String, bool) {
        if depth == 0 || self.g.below(4) == 0 {
            return self.leaf(want_int);
        }
        let op = self.pick(&OPS);
        let a = self.expr(depth - 1, want_int || int_only(op));
        let b = self.expr(depth - 1, want_int || int_only(op));
        let third = match op {
            "cast" => Third::Cast(self.pick(&TYPES)),
            "?:" => Third::Else(self.expr(depth - 1, want_int)),
            _ => Third::None,
        };
        render(op, a, b, want_int, third)
    }

    fn program(seed: u64) -> String {
        let mut x = ExprGen { g: crate::fuzz::Gen(seed), vars: Vec::new() };
        let mut out = String::from(
            "#include <stdio.h>\n\
             #define DIV(a, b) ((b) == 0 || (b) == -1 ? (a) : (a) / (b))\n\
             #define DIVM(a, b) ((b) == 0 || (b) == -1 ? (a) : (a) % (b))\n\
             #define D2I(x) ((x) >= 2e9 || (x) <= -2e9 || (x) != (x) ? 0 : (int)(x))\n\
             int main() {\n",
        );
        for (i, t) in TYPES.iter().chain(TYPES.iter()).enumerate() {
            let init = if real(t) {
                x.pick(&["0.5", "-3.25", "1e10", "-0.0", "7.0", "123456.789", "0.1", "1e-5"])
            } else {
                x.pick(&[
                    "0",
                    "1",
                    "-1",
                    "7",
                    "-100",
                    "255",
                    "256",
                    "65535",
                    "2147483647",
                    "-2147483647-1",
                    "4294967295u",
                    "123456789",
                    "-98765",
                    "1000000007",
                ])
            };
            out += &format!("    {t} v{i} = {init};\n");
            x.vars.push((format!("v{i}"), t));
        }
        for k in 0..150 {
            let (v, t) = x.vars[x.g.below(x.vars.len())].clone();
            match x.g.below(10) {
                0 => out += &format!("    {}{v};\n", x.pick(&["++", "--"])),
                1 | 2 => {
                    let op = x.pick(&["=", "+=", "-=", "*=", "&=", "|=", "^=", "<<=", ">>="]);
                    let line = match (real(t), op) {
                        (true, "&=" | "|=" | "^=" | "<<=" | ">>=") => format!("{v} = {}", x.expr(2, false).0),
                        (true, _) => format!("{v} {op} {}", x.expr(2, false).0),
                        (false, "<<=" | ">>=") => format!("{v} {op} (({}) & 15)", x.expr(2, true).0),
                        (false, _) => format!("{v} {op} {}", x.expr(2, true).0),
                    };
                    out += &format!("    {line};\n");
                }
                _ => {}
            }
            let depth = 1 + x.g.below(4) as u32;
            let (e, real) = x.expr(depth, false);
            out += &if real {
                format!("    printf(\"{k}: %.17g\\n\", (double)({e}));\n")
            } else {
                format!("    printf(\"{k}: %llu\\n\", (unsigned long long)({e}));\n")
            };
        }
        for (v, t) in &x.vars {
            out += &if real(t) {
                format!("    printf(\"{v} %.17g\\n\", (double){v});\n")
            } else {
                format!("    printf(\"{v} %llu\\n\", (unsigned long long){v});\n")
            };
        }
        out + "    return 0;\n}\n"
    }
}

/// What gcc's build of the generated program `c` prints: built next to it with
/// `-fwrapv` (C's wrapping on overflow, which cpss gives) and `-funsigned-char` (plain
/// `char` is 0..255 in CPC, cpcc(1)).
pub(crate) fn generated_gcc_output(c: &Path) -> Vec<u8> {
    let exe = c.with_extension("");
    let cc = Command::new("gcc")
        .args(["-std=gnu99", "-w", "-fwrapv", "-funsigned-char", "-o"])
        .arg(&exe)
        .arg(c)
        .output()
        .unwrap();
    assert!(cc.status.success(), "gcc on {}: {}", c.display(), String::from_utf8_lossy(&cc.stderr));
    Command::new(&exe).output().unwrap().stdout
}

/// Twenty programs of [`ExprGen`] (fixed seeds) print under cpss what gcc's builds
/// print, line for line. Skipped, and says so, without gcc.
#[test]
fn random_arithmetic_prints_what_gcc_s_build_prints() {
    if !have_gcc("random arithmetic is not compared with it") {
        return;
    }
    let dir = tempdir("conformance-random");
    for seed in 1..=20u64 {
        let c = dir.join(format!("r{seed}.c"));
        std::fs::write(&c, ExprGen::program(seed)).unwrap();
        let want = generated_gcc_output(&c);
        let cod = dir.join(format!("r{seed}.cod"));
        let out = run_in(&dir, "cpcc", &[c.to_str().unwrap(), "-o", cod.to_str().unwrap()], b"");
        assert_eq!(out.status.code(), Some(0), "cpcc on {}: {}", c.display(), String::from_utf8_lossy(&out.stderr));
        let run = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--stats", "none"], b"");
        assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
        let (want, got) = (String::from_utf8_lossy(&want), String::from_utf8_lossy(&run.stdout));
        if let Some((w, g)) = want.lines().zip(got.lines()).find(|(w, g)| w != g) {
            let k: String = w.chars().take_while(|c| *c != ':' && *c != ' ').collect();
            let line = std::fs::read_to_string(&c)
                .unwrap()
                .lines()
                .find(|l| l.contains(&format!("\"{k}:")))
                .map(str::to_string);
            panic!("{}: gcc prints {w:?}, cpss {g:?}\n{}", c.display(), line.unwrap_or_default());
        }
        assert_eq!(want.lines().count(), got.lines().count(), "{}", c.display());
    }
}
