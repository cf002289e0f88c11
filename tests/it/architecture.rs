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
    assert_eq!(named("use crate::net::{Ticks, NEVER};"), ["net"]);
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
