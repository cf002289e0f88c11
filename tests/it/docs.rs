//! The documentation agrees with the tools: every flag of `--help` is in the man page and
//! every flag of the man page is in `--help`; the man page's cost table is the
//! instruction table.
use crate::harness::*;
use std::collections::BTreeSet;

fn flags(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i + 2 < b.len() {
        if b[i] == b'-'
            && b[i + 1] == b'-'
            && b[i + 2].is_ascii_lowercase()
            && (i == 0 || !b[i - 1].is_ascii_alphanumeric())
        {
            let mut j = i + 2;
            while j < b.len() && (b[j].is_ascii_lowercase() || b[j] == b'-') {
                j += 1;
            }
            out.insert(text[i..j].trim_end_matches('-').to_string());
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

#[test]
fn help_and_man_page_list_the_same_flags() {
    for tool in ["cpcc", "cpss", "cpmap", "cptrace", "cpperf"] {
        let help = String::from_utf8_lossy(&run(tool, &["--help"]).stdout).into_owned();
        let man = std::fs::read_to_string(root().join("man").join(format!("{tool}.1"))).unwrap();
        // Drop roff font escapes (\fB, \fR, \fP, \fI) and unescape dashes.
        let man = ["\\fB", "\\fR", "\\fP", "\\fI"].iter().fold(man, |m, e| m.replace(e, " ")).replace("\\-", "-");
        // The man page's flags are those of its OPTIONS section (examples mention other tools).
        let start = man.find(".SH OPTIONS").expect("an OPTIONS section");
        let end = man[start + 1..].find("\n.SH ").map_or(man.len(), |e| start + 1 + e);
        let (h, m) = (flags(&help), flags(&man[start..end]));
        assert!(h.len() >= 3, "{tool}: {h:?}");
        let missing: Vec<_> = h.difference(&m).collect();
        assert!(missing.is_empty(), "{tool}: flags in --help but not in the man page: {missing:?}");
        let extra: Vec<_> = m.difference(&h).collect();
        assert!(extra.is_empty(), "{tool}: flags in the man page but not in --help: {extra:?}");
    }
}

#[test]
fn man_page_cost_table_is_the_instruction_table() {
    let man = std::fs::read_to_string(root().join("man").join("cpss.1")).unwrap();
    for &op in cppe::vcode::Op::ALL {
        let class = match op.class() {
            cppe::vcode::Class::Work => "work",
            cppe::vcode::Class::Overhead => "overhead",
        };
        let row = format!("0x{:02x}\t{}\t{}\t{}", op.opcode(), op.mnemonic(), op.default_cost(), class);
        assert!(man.lines().any(|l| l == row), "man/cpss.1 lacks the row `{row}`");
    }
}

/// Every tool prints a completion script that bash accepts (`bash -n`), naming its own
/// long options.
#[test]
fn every_tool_completes_in_bash() {
    for (tool, option) in [
        ("cpcc", "--output"),
        ("cpss", "--topology"),
        ("cptrace", "--format"),
        ("cpperf", "--what-if"),
        ("cpmap", "--search"),
    ] {
        let out = run(tool, &["--completions", "bash"]);
        assert_eq!(out.status.code(), Some(0), "{tool}: {}", String::from_utf8_lossy(&out.stderr));
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(script.contains(option), "{tool}: no {option} in its completions");
        let dir = tempdir(&format!("completions-{tool}"));
        let file = dir.join(format!("{tool}.bash"));
        std::fs::write(&file, &script).unwrap();
        let check = std::process::Command::new("bash").arg("-n").arg(&file).output().unwrap();
        assert!(check.status.success(), "{tool}: {}", String::from_utf8_lossy(&check.stderr));
    }
}

/// Each tool's `--help` opens with its own one-line description, the man page's NAME line
/// (not the crate's description, which all five shared).
#[test]
fn each_tool_describes_itself_as_its_man_page_does() {
    for tool in ["cpcc", "cpss", "cptrace", "cpperf", "cpmap"] {
        let man = std::fs::read_to_string(root().join("man").join(format!("{tool}.1"))).unwrap();
        let name_line = man.lines().skip_while(|l| *l != ".SH NAME").nth(1).unwrap();
        let want = name_line.split_once("\\- ").map(|(_, d)| d).unwrap();
        let out = run(tool, &["--help"]);
        let help = String::from_utf8_lossy(&out.stdout);
        assert_eq!(help.lines().next(), Some(want), "{tool}");
    }
}

#[test]
fn the_man_page_s_parameter_table_is_the_code_s() {
    // man/cpss.1's Parameters list, between its markers, is what the parameter table
    // generates (UPDATE_EXPECT=1 rewrites it): a parameter is declared only in the table.
    let path = root().join("man/cpss.1");
    let page = std::fs::read_to_string(&path).unwrap();
    let (begin, end) = (".\\\" BEGIN PARAMETERS\n", ".\\\" END PARAMETERS\n");
    let a = page.find(begin).expect("BEGIN PARAMETERS marker") + begin.len();
    let b = page.find(end).expect("END PARAMETERS marker");
    let want = cppe::sim::params::man_table();
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, format!("{}{want}{}", &page[..a], &page[b..])).unwrap();
        return;
    }
    assert_eq!(&page[a..b], want, "man/cpss.1 Parameters differs from the table (UPDATE_EXPECT=1 rewrites it)");
    // And --list-params lists the same names, one row each.
    let out = crate::harness::run("cpss", &["--list-params", "--format", "json"]);
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = rows.as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    let table: Vec<&str> = cppe::sim::params::all().map(|i| i.name).collect();
    assert_eq!(names, table);
}

/// `scripts/install.sh PREFIX` (with the binaries under test, `CPPE_BIN`) installs the
/// five tools in PREFIX/bin, their man pages in PREFIX/share/man/man1, and completions
/// where bash, zsh and fish look: each installed tool runs, each bash completion loads
/// and registers its tool, the zsh ones start `#compdef TOOL`, the fish ones hold
/// `complete -c TOOL` commands, and each man page is the repository's.
#[test]
fn install_script_installs_binaries_man_pages_and_completions() {
    let prefix = tempdir("install").join("prefix");
    let bin = tool("cpss").parent().unwrap().to_path_buf();
    let out = std::process::Command::new("bash")
        .arg(root().join("scripts/install.sh"))
        .arg(&prefix)
        .env("CPPE_BIN", &bin)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for tool in ["cpcc", "cpss", "cptrace", "cpperf", "cpmap"] {
        let v = std::process::Command::new(prefix.join("bin").join(tool)).arg("--version").output().unwrap();
        assert!(String::from_utf8_lossy(&v.stdout).starts_with(tool), "{tool} --version");
        let man = std::fs::read(prefix.join(format!("share/man/man1/{tool}.1"))).unwrap();
        assert_eq!(man, std::fs::read(root().join(format!("man/{tool}.1"))).unwrap(), "{tool}.1");
        let bash = prefix.join(format!("share/bash-completion/completions/{tool}"));
        let script = format!("source '{}' && complete -p {tool}", bash.display());
        let c = std::process::Command::new("bash").args(["-c", &script]).output().unwrap();
        assert!(String::from_utf8_lossy(&c.stdout).trim_end().ends_with(&format!(" {tool}")), "{tool}: bash");
        let zsh = std::fs::read_to_string(prefix.join(format!("share/zsh/site-functions/_{tool}"))).unwrap();
        assert!(zsh.starts_with(&format!("#compdef {tool}\n")), "{tool}: zsh");
        let fish =
            std::fs::read_to_string(prefix.join(format!("share/fish/vendor_completions.d/{tool}.fish"))).unwrap();
        // (A value list may span lines inside a quoted argument.)
        let lines = fish.lines().filter(|l| l.starts_with(&format!("complete -c {tool} "))).count();
        assert!(lines > 5, "{tool}: fish");
    }
}

/// The demo (README's first command; here with the tools under test, `CPPE_BIN`) fits
/// one screen: at most 24 lines, with the parallel and sequential times and the speedup
/// of the seed's matrix product (3.5197: Table 5's mapping, pinned by the figures tests),
/// the critical path, the weighted critical path's heaviest segments, where the HTML
/// report is (and it is there), and how to see the whole analysis.
#[test]
fn the_demo_fits_one_screen_and_says_where_the_rest_is() {
    let dir = tempdir("demo");
    let bin = tool("cpss").parent().unwrap().to_path_buf();
    let out = std::process::Command::new("bash")
        .arg(root().join("scripts/demo.sh"))
        .env("CPPE_BIN", &bin)
        .env("DEMO_DIR", &*dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().count() <= 24, "{text}");
    for want in [
        "Parallel time 13100 (sequential 46108), speedup 3.5197",
        "critical path 13099",
        "heaviest segments:",
        "matmul.html",
        "| less",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
    assert!(dir.join("matmul.html").is_file());
}

/// The README's tour, run as written (in a copy of the fixtures, with the tools under
/// test on the PATH; `| less` reads as `| cat`): every command exits as it says (the
/// deadlock 1, a program with errors 2, everything else 0), and the effects its comments
/// state hold: the program's own machine gives 13030 (the figures tests pin it), the
/// pipeline writes a run record on stdout, and the map cpmap searched for the random
/// mapping's traffic gives a lower parallel time than the random mapping and the
/// default.
#[test]
fn the_readme_tour_runs_and_its_claims_hold() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let tour = readme.split("## A short tour\n\n```sh\n").nth(1).unwrap().split("\n```").next().unwrap();
    let dir = tempdir("tour");
    let copy = std::process::Command::new("cp").arg("-r").arg(fixtures()).arg(&*dir).status().unwrap();
    assert!(copy.success());
    let bin = tool("cpss").parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let sh = |cmd: &str| {
        std::process::Command::new("sh").args(["-c", cmd]).current_dir(&*dir).env("PATH", &path).output().unwrap()
    };
    let mut ran = 0;
    for line in tour.lines().filter(|l| !l.trim().is_empty() && !l.starts_with("cargo build")) {
        let (cmd, comment) = line.split_once("  #").map_or((line, ""), |(c, m)| (c, m));
        let cmd = cmd.replace("| less", "| cat");
        let out = sh(&cmd);
        let want = if comment.contains("exit 1") {
            1
        } else if cmd.contains("several_errors") {
            2
        } else {
            0
        };
        assert_eq!(out.status.code(), Some(want), "{cmd}: {}", String::from_utf8_lossy(&out.stderr));
        ran += 1;
    }
    assert!(ran >= 20, "{ran} commands");
    // The pipeline's run record (`> run.cpt`) is a run record.
    assert!(std::fs::read(dir.join("run.cpt")).unwrap().starts_with(b"CPPE"), "run.cpt");
    let par = |args: &str| {
        let out = sh(&format!("cpss fixtures/matmul.cod {args} --stats csv"));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let row = text.lines().last().unwrap().to_string();
        row.split(',').nth(1).unwrap().parse::<f64>().unwrap()
    };
    let (default, random, better) = (par(""), par("--mapping random --seed 1"), par("--map-file better.map"));
    assert_eq!(default, 13030.0);
    assert!(better < random && better < default, "better.map {better}, random {random}, default {default}");
}
