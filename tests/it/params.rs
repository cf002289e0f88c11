//! Every run parameter is one row of the parameter table, and every way of setting it
//! reaches the run: a flag, a config file, `--sweep`, and (for the rows the debugger may
//! change) the debugger's `set`.
use crate::harness::*;
use cppe::params::Kind;
use std::path::Path;

/// A valid value other than the row's default: the next whole number or time unit, twice
/// the factor, another word.
fn other_value(i: &cppe::params::Info) -> String {
    match i.kind {
        // A limit or seed that is none by default: one that the program (4 processes,
        // a few hundred instructions) never reaches.
        Kind::OrNone(_) if i.default == "none" => "1000000".to_string(),
        Kind::OrNone(&inner) => other_value(&cppe::params::Info { kind: inner, ..*i }),
        Kind::Time { .. } => format!("{}", i.default.parse::<f64>().unwrap() + 1.0),
        Kind::Whole { .. } => format!("{}", i.default.parse::<u64>().unwrap() + 1),
        Kind::Real { .. } => format!("{}", i.default.parse::<f64>().unwrap() * 2.0),
        Kind::Choice(words) => words.iter().find(|&&w| w != i.default).unwrap().to_string(),
    }
}

/// The value of parameter `name` the run record's header holds: the network's in its
/// parameters, the quantum and seed in their fields, the others in the recorded options.
fn in_header(cpt: &Path, name: &str) -> Option<String> {
    let bytes = std::fs::read(cpt).unwrap();
    let (_, h) = cppe::trace::RunRecordReader::open(&bytes[..]).unwrap();
    let find = |pairs: &[(String, String)]| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    match name {
        "network" => Some(h.network.clone()),
        "quantum" => Some(cppe::time::format_time(h.quantum_ticks)),
        "seed" => Some(h.seed.to_string()),
        _ => find(&h.network_params).or_else(|| find(&h.options)),
    }
}

fn par_time(json: &[u8]) -> (f64, f64) {
    let j: serde_json::Value = serde_json::from_slice(json).expect("JSON");
    (j["par_time"].as_f64().unwrap(), j["seq_time"].as_f64().unwrap())
}

#[test]
fn every_parameter_set_by_flag_config_sweep_or_debugger_reaches_the_run() {
    let dir = tempdir("params");
    // A program that prints nothing, so that --stats json is the whole of stdout.
    let src = "channel int c[4];\nvoid w(int i) { c[i] = i; }\nvoid main() { int i, s; s = 0;\n\
               forall (i from 0 to 3) w(i);\nfor (i = 0; i < 4; i++) s = s + c[i]; }\n";
    std::fs::write(dir.join("p.c"), src).unwrap();
    assert_eq!(run_in(&dir, "cpcc", &["p.c", "-o", "p.cod"], b"").status.code(), Some(0));
    let rows: Vec<_> = cppe::sim::params::all().collect();
    // The network's 12 rows, the run's quantum, seed and three factors, its seed of
    // speeds and six limits.
    assert!(rows.len() >= 24, "{} rows", rows.len());
    for i in rows {
        let name = i.name;
        let v = other_value(i);
        let flag = format!("--{name}");

        // By flag: the record's header holds it.
        let out = run_in(&dir, "cpss", &["p.cod", &flag, &v, "--stats", "json", "-t", "flag.cpt"], b"");
        assert_eq!(out.status.code(), Some(0), "{name}={v}: {}", String::from_utf8_lossy(&out.stderr));
        let by_flag = par_time(&out.stdout);
        let want = i.format(i.parse(&v).unwrap());
        assert_eq!(in_header(&dir.join("flag.cpt"), name).as_deref(), Some(want.as_str()), "{name} by flag");

        // By config file: the same header.
        let toml = match i.kind {
            Kind::Choice(_) => format!("{name} = \"{v}\"\n"),
            _ => format!("{name} = {v}\n"),
        };
        std::fs::write(dir.join("c.toml"), toml).unwrap();
        let out = run_in(&dir, "cpss", &["p.cod", "--config", "c.toml", "--stats", "none", "-t", "conf.cpt"], b"");
        assert_eq!(out.status.code(), Some(0), "{name} config: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(in_header(&dir.join("conf.cpt"), name), in_header(&dir.join("flag.cpt"), name), "{name} by config");

        // By --sweep: the configuration's statistics are the flag run's.
        let axis = format!("{name}={v}");
        let out = run_in(&dir, "cpss", &["p.cod", "--sweep", &axis, "--stats", "json"], b"");
        assert_eq!(out.status.code(), Some(0), "{name} sweep: {}", String::from_utf8_lossy(&out.stderr));
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let stats = &j["configurations"][0]["stats"];
        let swept = (stats["par_time"].as_f64().unwrap(), stats["seq_time"].as_f64().unwrap());
        assert_eq!(swept, by_flag, "{name} by sweep");
        let shown = &stats["configuration"]["parameters"][name];
        if !shown.is_null() {
            assert_eq!(shown.as_str(), Some(want.as_str()), "{name} in the sweep's configuration");
        }

        // By the debugger's set, where it may change at a stop: `params` then shows it.
        let cmds = format!("set {name} {v}\nparams\ncontinue\n");
        std::fs::write(dir.join("cmds"), cmds).unwrap();
        let out = run_in(&dir, "cpss", &["p.cod", "--commands", "cmds"], b"");
        let text = String::from_utf8_lossy(&out.stdout);
        if i.at_stop {
            let line = format!("  {name:<17}{want}");
            assert!(text.lines().any(|l| l.trim_end() == line), "{name} by set: {text}");
        } else {
            assert!(text.contains(&format!("`{name}` is fixed when the run starts")), "{name}: {text}");
        }
    }
}

#[test]
fn bad_values_name_the_parameter_and_its_range() {
    // A value outside a row's range is refused the same way from every door: the flag
    // and the sweep say the parameter and the valid range.
    let dir = tempdir("params-bad");
    std::fs::write(dir.join("p.c"), "void main() { }\n").unwrap();
    assert_eq!(run_in(&dir, "cpcc", &["p.c", "-o", "p.cod"], b"").status.code(), Some(0));
    for args in [&["--lanes", "65"][..], &["--sweep", "lanes=65"]] {
        let mut a = vec!["p.cod"];
        a.extend_from_slice(args);
        let out = run_in(&dir, "cpss", &a, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("lanes: 65 is not between 1 and 64"), "{out:?}");
    }
}
