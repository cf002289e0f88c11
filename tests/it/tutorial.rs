//! The README tutorial, step by step, with the claims the README makes about its output:
//! both versions print the same total, the weighted critical path of the first version
//! is led by main's fill loop running alone, the second version's speedup is close to
//! 16, and `cpperf compare` accepts the change one way and flags it the other.
use crate::harness::*;

fn csv_field(text: &str, name: &str) -> f64 {
    let lines: Vec<&str> = text.lines().collect();
    let header: Vec<&str> = lines[lines.len() - 2].split(',').collect();
    let row: Vec<&str> = lines[lines.len() - 1].split(',').collect();
    let i = header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no {name} in {text}"));
    row[i].parse().unwrap()
}

#[test]
fn tutorial_steps_hold() {
    let dir = tempdir("tutorial");
    let fx = fixtures().join("tutorial");
    for (src, run) in [("sumsq.c", "before.cpt"), ("sumsq_local.c", "after.cpt")] {
        let cod = dir.join(src).with_extension("cod");
        let out = run_in(&dir, "cpcc", &[fx.join(src).to_str().unwrap(), "-o", cod.to_str().unwrap()], b"");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let out = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "-t", run, "--stats", "csv"], b"");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        // 1260 periods of 650 plus 0 + 49 + 1 + 64 (the header comment of sumsq.c); with
        // --stats csv the program's output is on stderr.
        let printed = String::from_utf8_lossy(&out.stderr);
        assert!(printed.starts_with("total 819114\n"), "{src}: {printed}");
        let speedup = csv_field(&text, "speedup");
        if run == "before.cpt" {
            // The fill loop alone and the remote reads keep the speedup below 2.
            assert!(speedup < 2.0, "{text}");
        } else {
            // 16 workers with equal slices and 16 four-byte messages: near 16.
            assert!(speedup > 15.0, "{text}");
        }
    }

    // The weighted critical path of the first version, grouped by process and activity:
    // the heaviest group is the last worker's remote reads (a worker, more than half the
    // weight, every read a round trip at fewer than 1 in 10 processors busy), the next
    // main's computation from time 0 (the fill loop) with fewer than 1 in 10 busy.
    let out = run_in(&dir, "cpperf", &["before.cpt", "--format", "json"], b"");
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap()).unwrap();
    let path = &json["weighted_path"];
    let total = path["wcpa_weight"].as_f64().unwrap();
    let segments = path["segments"].as_array().unwrap();
    let mut groups: std::collections::BTreeMap<(String, u64), f64> = Default::default();
    for s in segments {
        let key = (s["kind"].as_str().unwrap().to_string(), s["pid"].as_u64().unwrap());
        *groups.entry(key).or_default() += s["weight"].as_f64().unwrap();
    }
    let mut by_weight: Vec<((String, u64), f64)> = groups.into_iter().collect();
    by_weight.sort_by(|a, b| b.1.total_cmp(&a.1));
    let ((kind, pid), w) = &by_weight[0];
    assert_eq!((kind.as_str(), *pid != 0), ("remote read", true), "{by_weight:?}");
    assert!(*w > 0.5 * total, "{by_weight:?}");
    let reads: Vec<&serde_json::Value> = segments.iter().filter(|s| s["kind"] == "remote read").collect();
    let p = reads.iter().map(|s| s["parallelism"].as_f64().unwrap()).sum::<f64>() / reads.len() as f64;
    assert!(p < 0.1, "mean P of the reads {p}");
    assert_eq!(by_weight[1].0, ("compute".to_string(), 0), "{by_weight:?}");
    let main = segments.iter().find(|s| s["pid"] == 0 && s["kind"] == "compute").unwrap();
    assert_eq!(main["from"], 0, "{main}");
    assert!(main["parallelism"].as_f64().unwrap() < 0.1, "{main}");

    // compare: the change is an improvement (exit 0); undone, it regresses (exit 1).
    // Two versions of the program (files of different names): --versions says so.
    let better = run_in(&dir, "cpperf", &["compare", "before.cpt", "after.cpt", "--versions"], b"");
    assert_eq!(better.status.code(), Some(0), "{}", String::from_utf8_lossy(&better.stdout));
    let worse = run_in(
        &dir,
        "cpperf",
        &["compare", "after.cpt", "before.cpt", "--versions", "--metrics", "par_time,speedup"],
        b"",
    );
    assert_eq!(worse.status.code(), Some(1), "{}", String::from_utf8_lossy(&worse.stdout));
    let table = String::from_utf8_lossy(&worse.stdout);
    assert!(table.contains("2 regression(s) beyond 2%"), "{table}");
}
