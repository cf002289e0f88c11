//! The crate's layers: `src/lib.rs` lists, for each top-level module, the modules it may
//! use. A module whose code (tests aside) names another that its line does not list
//! fails here, with the file and line, so the map in the docs stays the map of the code.
use crate::harness::*;
use std::collections::{BTreeMap, BTreeSet};

/// The `## Layers` list of `src/lib.rs`: module → the modules it may use.
fn layers() -> BTreeMap<String, BTreeSet<String>> {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).unwrap();
    let text: Vec<&str> = lib.lines().map(|l| l.strip_prefix("//!").unwrap_or("").trim()).collect();
    let start = text.iter().position(|l| *l == "## Layers").expect("src/lib.rs has a `## Layers` section");
    let open = start + text[start..].iter().position(|l| *l == "```text").expect("a text block");
    let mut map = BTreeMap::new();
    for l in text[open + 1..].iter().take_while(|l| **l != "```") {
        let (name, deps) = l.split_once(':').unwrap_or_else(|| panic!("`{l}`: expected `module: deps`"));
        let deps = deps.split(',').map(|d| d.trim().to_string()).filter(|d| !d.is_empty()).collect();
        map.insert(name.trim().to_string(), deps);
    }
    map
}

/// The top-level modules named by `crate::NAME` in the code of `line` (comments aside),
/// `use crate::{a, b::c}` groups included.
fn named(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = group.split('}').next().unwrap_or("");
            for part in inner.split(',') {
                let m: String = part.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                out.push(m);
            }
        } else {
            out.push(rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect());
        }
    }
    out.into_iter().filter(|m| !m.is_empty()).collect()
}

#[test]
fn every_module_imports_only_what_the_layers_allow() {
    let layers = layers();
    let src = root().join("src");
    let mut bad = Vec::new();
    let mut seen_modules = BTreeSet::new();
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        if name == "lib" || name == "main" {
            continue;
        }
        seen_modules.insert(name.clone());
        let allowed =
            layers.get(&name).unwrap_or_else(|| panic!("module `{name}` is missing from src/lib.rs's Layers"));
        let mut files = Vec::new();
        if p.is_dir() {
            rust_files(&p, &mut files);
        } else {
            files.push(p.clone());
        }
        files.sort();
        for f in files {
            let file = f.file_name().unwrap().to_string_lossy().into_owned();
            if file == "tests.rs" || file.ends_with("_tests.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&f).unwrap();
            for (n, line) in non_test_lines(&text) {
                for m in named(line) {
                    if m != name && !allowed.contains(&m) {
                        let at = f.strip_prefix(root()).unwrap().display();
                        bad.push(format!("{at}:{n}: `{name}` uses `{m}`: {}", line.trim()));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "imports across src/lib.rs's Layers:\n{}", bad.join("\n"));
    let listed: BTreeSet<String> = layers.keys().cloned().collect();
    assert_eq!(listed, seen_modules, "src/lib.rs's Layers lists exactly the top-level modules");
}

#[test]
fn the_check_sees_imports_in_their_forms() {
    // What the test above relies on: plain paths, groups, and nothing in comments.
    assert_eq!(named("use crate::net::{NetParams, NEVER};"), ["net"]);
    assert_eq!(named("use crate::{sim::Stats, trace};"), ["sim", "trace"]);
    assert_eq!(named("let t = crate::time::parse_time(s)?; // crate::perf"), ["time"]);
    assert_eq!(named("/// see [`crate::machine`]"), Vec::<String>::new());
    // And the layers of the lib are a strict order: no module may use itself or one
    // that (through others) may use it.
    let layers = layers();
    fn reaches(l: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str, depth: usize) -> bool {
        depth < 32 && l.get(from).is_some_and(|d| d.iter().any(|m| m == to || reaches(l, m, to, depth + 1)))
    }
    for m in layers.keys() {
        assert!(!reaches(&layers, m, m, 0), "`{m}` may use itself through the Layers list");
    }
}

/// The parts of `src/DIR` a line of a file in part `own` names: `crate::DIR::NAME`, and
/// `super::NAME` (from a file directly in DIR) or `super::super::NAME` (one folder down),
/// groups included. Only names that are parts count.
fn parts_named(line: &str, dir: &str, depth: usize, parts: &BTreeSet<String>) -> BTreeSet<String> {
    let code = line.split("//").next().unwrap_or("");
    let mut prefixes = vec![format!("crate::{dir}::")];
    prefixes.push(if depth == 0 { "super::".to_string() } else { "super::super::".to_string() });
    let mut out = BTreeSet::new();
    for prefix in &prefixes {
        let mut rest = code;
        while let Some(i) = rest.find(prefix.as_str()) {
            // `super::super::x` also contains `super::x`: skip the longer form's tail.
            let before = &rest[..i];
            rest = &rest[i + prefix.len()..];
            if depth == 0 && prefix == "super::" && before.ends_with("super::") {
                continue;
            }
            let names: Vec<String> = match rest.strip_prefix('{') {
                Some(group) => group.split('}').next().unwrap_or("").split(',').map(str::to_string).collect(),
                None => vec![rest.to_string()],
            };
            for n in names {
                let m: String = n.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if parts.contains(&m) {
                    out.insert(m);
                }
            }
        }
    }
    out
}

#[test]
fn no_files_of_perf_or_trace_import_each_other_in_a_loop() {
    // The parts of a folder are its files and subfolders (its mod.rs, the folder's
    // root, aside): the analysis's sections, the trace formats. A loop among them means
    // no part can be read, or moved, without the others.
    for dir in ["perf", "trace"] {
        let root_dir = root().join("src").join(dir);
        let mut parts = BTreeSet::new();
        for e in std::fs::read_dir(&root_dir).unwrap() {
            let p = e.unwrap().path();
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            if stem != "mod" && stem != "tests" {
                parts.insert(stem);
            }
        }
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for part in &parts {
            let (file, folder) = (root_dir.join(format!("{part}.rs")), root_dir.join(part));
            let mut files = Vec::new();
            if folder.is_dir() {
                rust_files(&folder, &mut files);
            }
            if file.is_file() {
                files.push(file);
            }
            for f in files {
                let name = f.file_name().unwrap().to_string_lossy().into_owned();
                if name == "tests.rs" || name.ends_with("_tests.rs") {
                    continue;
                }
                // How many folders below DIR the file's module is (a folder's mod.rs is
                // the folder's module).
                let rel = f.strip_prefix(&root_dir).unwrap();
                let mut depth = rel.components().count() - 1;
                if name == "mod.rs" {
                    depth -= 1;
                }
                let text = std::fs::read_to_string(&f).unwrap();
                for (_, line) in non_test_lines(&text) {
                    for m in parts_named(line, dir, depth, &parts) {
                        if &m != part {
                            edges.entry(part.clone()).or_default().insert(m);
                        }
                    }
                }
            }
        }
        fn path(e: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str, seen: &mut BTreeSet<String>) -> bool {
            e.get(from).is_some_and(|d| d.iter().any(|m| m == to || (seen.insert(m.clone()) && path(e, m, to, seen))))
        }
        for p in &parts {
            let back: Vec<&String> =
                edges.get(p).into_iter().flatten().filter(|m| path(&edges, m, p, &mut BTreeSet::new())).collect();
            assert!(back.is_empty(), "src/{dir}: `{p}` uses {back:?}, which use it again (edges: {edges:?})");
        }
    }
}

#[test]
fn the_loop_check_reads_relative_and_absolute_paths() {
    let parts: BTreeSet<String> = ["convert", "format", "event"].iter().map(|s| s.to_string()).collect();
    assert_eq!(
        parts_named("use super::convert::{Context, TraceWriter};", "trace", 0, &parts),
        ["convert".into()].into()
    );
    assert_eq!(parts_named("use super::super::event::Event;", "trace", 1, &parts), ["event".into()].into());
    assert!(parts_named("use super::read;", "trace", 1, &parts).is_empty(), "a sibling inside the folder");
    assert_eq!(
        parts_named("use crate::trace::{convert::X, format::Format};", "trace", 2, &parts),
        ["convert".into(), "format".into()].into()
    );
}

#[test]
fn a_trace_format_is_named_only_in_its_folder_and_the_registry() {
    // Outside src/trace/format/ the code reaches a format through the registry
    // (`Format`), never its module; tests may.
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let formats = ["picl", "sddf", "chrome", "paraver", "otf2"];
    let mut bad = Vec::new();
    for f in files {
        let rel = f.strip_prefix(root()).unwrap().to_string_lossy().replace('\\', "/");
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if rel.starts_with("src/trace/format/") || name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in non_test_lines(&text) {
            let code = line.split("//").next().unwrap_or("");
            if formats.iter().any(|m| code.contains(&format!("format::{m}"))) {
                bad.push(format!("{rel}:{n}: {}", line.trim()));
            }
        }
    }
    assert!(bad.is_empty(), "a format's module named outside its folder:\n{}", bad.join("\n"));
}

#[test]
fn the_tick_has_one_path() {
    // `Ticks`, `TICKS_PER_UNIT` and the functions that read and write times are
    // `crate::time`'s; no module re-exports or renames them, so the code names them one
    // way and a time is written for users by one of `time`'s formatters.
    let time_items =
        ["Ticks", "TICKS_PER_UNIT", "format_time", "parse_time", "format_signed", "format_mean", "format_fixed"];
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let mut bad = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let names_time = time_items.iter().any(|i| code.contains(i));
            let renamed = code.trim_start().starts_with("use")
                && time_items[2..].iter().any(|i| code.contains(&format!("{i} as")));
            if (code.trim_start().starts_with("pub use") && names_time) || renamed {
                bad.push(format!("{}:{}: {}", f.strip_prefix(root()).unwrap().display(), n + 1, line.trim()));
            }
        }
    }
    assert!(bad.is_empty(), "the tick or a time formatter re-exported or renamed:\n{}", bad.join("\n"));
}
