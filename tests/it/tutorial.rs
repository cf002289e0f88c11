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
        // 1260 periods of 650 plus 0 + 49 + 1 + 64 (the header comment of sumsq.c).
        assert!(text.starts_with("total 819114\n"), "{src}: {text}");
        let speedup = csv_field(&text, "speedup");
        if run == "before.cpt" {
            // The fill loop alone and the remote reads keep the speedup below 2.
            assert!(speedup < 2.0, "{text}");
        } else {
            // 16 workers with equal slices and 16 four-byte messages: near 16.
            assert!(speedup > 15.0, "{text}");
        }
    }

    // The heaviest segment of the weighted critical path of the first version is the last
    // worker's compute segment, mostly spent waiting for its remote reads (busy less
    // than a tenth of its length, fewer than 1 in 10 processors busy meanwhile); the
    // next one is main's compute from time 0 (the fill loop).
    let out = run_in(&dir, "cpperf", &["before.cpt", "--format", "json"], b"");
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap()).unwrap();
    let segments = json["critical_path"]["segments"].as_array().unwrap();
    let mut by_share: Vec<&serde_json::Value> = segments.iter().collect();
    by_share.sort_by(|a, b| b["share"].as_f64().unwrap().total_cmp(&a["share"].as_f64().unwrap()));
    let (worker, main) = (by_share[0], by_share[1]);
    assert_eq!(worker["kind"], "compute", "{worker}");
    assert_ne!(worker["pid"], 0, "{worker}");
    assert!(worker["parallelism"].as_f64().unwrap() < 0.1, "{worker}");
    assert!(worker["share"].as_f64().unwrap() > 50.0, "{worker}");
    let length = worker["to"].as_f64().unwrap() - worker["from"].as_f64().unwrap();
    assert!(worker["busy"].as_f64().unwrap() < 0.1 * length, "{worker}");
    assert_eq!(main["kind"], "compute", "{main}");
    assert_eq!(main["pid"], 0, "{main}");
    assert_eq!(main["from"], 0, "{main}");
    assert!(main["parallelism"].as_f64().unwrap() < 0.1, "{main}");

    // compare: the change is an improvement (exit 0); undone, it regresses (exit 1).
    let better = run_in(&dir, "cpperf", &["compare", "before.cpt", "after.cpt"], b"");
    assert_eq!(better.status.code(), Some(0), "{}", String::from_utf8_lossy(&better.stdout));
    let worse = run_in(&dir, "cpperf", &["compare", "after.cpt", "before.cpt", "--metrics", "par_time,speedup"], b"");
    assert_eq!(worse.status.code(), Some(1), "{}", String::from_utf8_lossy(&worse.stdout));
    let table = String::from_utf8_lossy(&worse.stdout);
    assert!(table.contains("2 regression(s) beyond 2%"), "{table}");
}
