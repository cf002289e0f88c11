//! Figures derived by hand from the cost table and the closed forms, checked in every
//! output that shows them: a processor whose process waits shows that wait (not "idle")
//! in cpperf's text and JSON, the Paraver states and the HTML report's timeline.
//!
//! The programs of `fixtures/waits/` run with `mathd_only.costs` (every instruction they
//! use costs nothing but MATHD, 1 unit), `--quantum 1 --network packet` with the packet
//! network's defaults (msg-init 5, packet-init 1, 4-byte packets, link-delay 5 per flit
//! of 1 byte). A 4-byte message over one hop then takes 5 + 1 + 4 × 5 = 26 units, and a
//! process woken by an arrival runs at the next quantum, one unit later. The child of
//! each program starts on processor 1 at 27 (its creation crosses the link as a message
//! of that size, then waits for the next quantum) and calls `work(100)`: 100 units.
use crate::harness::*;
use std::collections::BTreeMap;
use std::path::Path;

/// The state names of cpperf's JSON, in the order of the HTML report's state codes and
/// with their Paraver numbers.
const STATES: [(&str, &str, u32); 7] = [
    ("running", "running", 1),
    ("message", "waiting for a message", 3),
    ("remote_read", "waiting for a remote read", 20),
    ("lock", "waiting for a lock", 5),
    ("children", "waiting for children", 7),
    ("delay", "delayed", 21),
    ("idle", "idle", 0),
];

/// Runs `fixtures/waits/NAME.c` as described above and returns, per processor, its time
/// in each state (by JSON key) after checking that the text report's totals, the
/// Paraver states and the HTML report's timeline give the same times.
fn state_times(dir: &Path, name: &str) -> Vec<BTreeMap<&'static str, u64>> {
    let waits = fixtures().join("waits");
    let cod = compile_into(dir, &waits.join(format!("{name}.c")));
    let costs = waits.join("mathd_only.costs");
    let cpt = dir.join(format!("{name}.cpt"));
    let args = [cod.to_str().unwrap(), "--cost-file", costs.to_str().unwrap(), "--quantum", "1"];
    let args = [&args[..], &["--network", "packet", "--stats", "none", "-t", cpt.to_str().unwrap()]].concat();
    let out = run_in(dir, "cpss", &args, b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let cpt = cpt.to_str().unwrap();

    let out = run_in(dir, "cpperf", &[cpt, "--format", "json"], b"");
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("cpperf JSON");
    let times: Vec<BTreeMap<&'static str, u64>> = j["states"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| STATES.iter().map(|&(key, _, _)| (key, row[key].as_u64().unwrap())).collect())
        .collect();

    // The text report sums the processors.
    let text = String::from_utf8(run_in(dir, "cpperf", &[cpt], b"").stdout).unwrap();
    // Lines `  LABEL  PERCENT %  TIME` up to the blank line that ends the section.
    let section = text.split("Processor time by state").nth(1).expect("state section");
    let shown: BTreeMap<String, u64> = section
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[..w.len() - 3].join(" "), w[w.len() - 1].parse().unwrap())
        })
        .collect();
    for &(key, label, _) in &STATES {
        let total: u64 = times.iter().map(|t| t[key]).sum();
        assert_eq!(shown.get(label).copied().unwrap_or(0), total, "{name}: text total of {label}\n{section}");
    }

    // Paraver: state records `1:cpu:appl:task:thread:begin:end:state`, in nanoseconds
    // (one time unit = 1000 ns = 1000 ticks).
    let prv = dir.join(format!("{name}.prv"));
    let out = run_in(dir, "cptrace", &[cpt, "--format", "paraver", "-o", prv.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let mut prv_times = vec![BTreeMap::new(); times.len()];
    for l in std::fs::read_to_string(&prv).unwrap().lines().filter(|l| l.starts_with("1:")) {
        let f: Vec<u64> = l.split(':').map(|x| x.parse().unwrap()).collect();
        *prv_times[f[1] as usize - 1].entry(f[7] as u32).or_insert(0) += (f[6] - f[5]) / 1000;
    }
    // The HTML report's timeline: per processor, `[start, end, state code, pid, line]`.
    let html = dir.join(format!("{name}.html"));
    let out = run_in(dir, "cpperf", &[cpt, "--html", html.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let page = std::fs::read_to_string(&html).unwrap();
    let data = page.split("<script id=\"data\" type=\"application/json\">").nth(1).unwrap();
    let data: serde_json::Value =
        serde_json::from_str(&data[..data.find("</script>").unwrap()].replace("<\\/", "</")).unwrap();
    assert_eq!(data["timeline"]["mode"], "stretches");
    let mut html_times = vec![BTreeMap::new(); times.len()];
    for (p, row) in data["timeline"]["rows"].as_array().unwrap().iter().enumerate() {
        let v: Vec<u64> = row.as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
        for s in v.chunks(5) {
            *html_times[p].entry(s[2] as usize).or_insert(0) += (s[1] - s[0]) / 1000;
        }
    }
    for (p, t) in times.iter().enumerate() {
        for (code, &(key, _, paraver)) in STATES.iter().enumerate() {
            // Paraver's trace omits idle stretches of processors that ran nothing but
            // counts every other state; the HTML timeline leaves idle stretches out.
            if key != "idle" {
                assert_eq!(prv_times[p].get(&paraver).copied().unwrap_or(0), t[key], "{name}: Paraver P{p} {key}");
                assert_eq!(html_times[p].get(&code).copied().unwrap_or(0), t[key], "{name}: HTML P{p} {key}");
            }
        }
    }
    times
}

/// `main` forks `w` onto processor 1 and sleeps 600 units before it sends `go`; `w`
/// blocks in its receive as soon as it starts (27) and resumes at 600 + 26 + 1 = 627:
/// processor 1 waits for a message 600 units, then runs 100. Processor 0 is delayed
/// 0..600, then waits in `join` until the child's end at 727 is known one quantum later,
/// 728: 128 units waiting for children. The run ends at 729 (main's end, one quantum).
#[test]
fn a_receive_a_delay_and_a_join_are_waits_not_idle_time() {
    let dir = tempdir("figures-wait-message");
    let t = state_times(&dir, "message");
    assert_eq!((t[1]["message"], t[1]["running"], t[1]["idle"]), (600, 100, 27 + 2));
    assert_eq!((t[0]["delay"], t[0]["children"], t[0]["running"], t[0]["idle"]), (600, 128, 0, 1));
}

/// `r` reads main's `a` through a reference from processor 1 at 27: the request (4
/// bytes) and the reply (4 bytes) each take 26 units, and `r` resumes one quantum after
/// the reply: 26 + 26 + 1 = 53 units waiting for a remote read.
#[test]
fn a_remote_read_is_a_wait() {
    let dir = tempdir("figures-wait-remote");
    let t = state_times(&dir, "remote_read");
    assert_eq!((t[1]["remote_read"], t[1]["running"]), (53, 100));
    assert_eq!(t[0]["children"], 180 + 1, "main waits in join until the child's end (27 + 53 + 100) + 1");
}

/// `main` holds the lock until its delay ends at 600; `w` asks for it at 27 and spins
/// until 600: 573 units waiting for a lock.
#[test]
fn a_lock_is_a_wait() {
    let dir = tempdir("figures-wait-lock");
    let t = state_times(&dir, "lock");
    assert_eq!((t[1]["lock"], t[1]["running"]), (600 - 27, 100));
    assert_eq!((t[0]["delay"], t[0]["children"]), (600, 101));
}

/// `--vary-speed S` increases processor i's speed by 1/r_i (seed 000 §4.2.3), r_i the
/// i-th draw of the run's generator seeded with S, kept to three decimals (k_i =
/// round(1000 r_i) ticks per unit of cost). A sequential program runs on processor 0
/// alone: its parallel time is its sequential time times k_0/1000, to within the
/// quantum (10) the run ends on, and never more than the sequential time.
#[test]
fn vary_speed_makes_processors_faster() {
    let dir = tempdir("figures-vary-speed");
    let cod = compile_into(&dir, &fixtures().join("recursion.c"));
    let cod = cod.to_str().unwrap();
    let times = |extra: &[&str]| -> (f64, f64) {
        let out = run_in(&dir, "cpss", &[&[cod, "--stats", "csv"], extra].concat(), b"");
        let text = String::from_utf8(out.stdout).unwrap();
        let row: Vec<f64> = text.lines().last().unwrap().split(',').take(2).map(|x| x.parse().unwrap()).collect();
        (row[0], row[1])
    };
    let (seq, par) = times(&[]);
    assert_eq!(seq, par, "one process at unit speed");
    for seed in [1u64, 7, 12345] {
        let k = (1000.0 * cppe::rng::Rng::new(seed).next_f64_nonzero()).round().max(1.0);
        let (vseq, vpar) = times(&["--vary-speed", &seed.to_string()]);
        assert_eq!(vseq, seq, "sequential time is not scaled");
        let want = seq * k / 1000.0;
        assert!(vpar <= seq && (vpar - want).abs() <= 10.0, "seed {seed}: r = {k}/1000, par {vpar}, want {want}");
    }
}

/// `--sweep … --runs N` repeats every configuration N times, as `--runs N` repeats one
/// run: each row's `NAME_mean`, `NAME_sd` and interval are those `--runs N` prints for
/// that configuration alone (run i seeded S+i, speeds drawn from V+i).
#[test]
fn a_sweep_with_runs_summarizes_each_configuration() {
    let dir = tempdir("figures-sweep-runs");
    let cod = compile_into(&dir, &fixtures().join("ring_token.c"));
    let cod = cod.to_str().unwrap();
    let base = [cod, "--runs", "3", "--vary-speed", "5", "--stats", "csv"];
    let out = run_in(&dir, "cpss", &[&base[..], &["--sweep", "link-delay=1,3"]].concat(), b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 3, "a header and one row per configuration: {text}");
    assert_eq!(&rows[0][..3], ["link-delay", "runs", "seq_time_mean"]);
    for (row, ld) in rows[1..].iter().zip(["1", "3"]) {
        assert_eq!(&row[..2], [ld, "3"]);
        let alone = run_in(&dir, "cpss", &[&base[..], &["--link-delay", ld]].concat(), b"");
        let alone = String::from_utf8(alone.stdout).unwrap();
        for stat in ["par_time", "speedup", "messages"] {
            // statistic,mean,sd,ci95_low,ci95_high,min,max
            let want: Vec<&str> =
                alone.lines().find(|l| l.starts_with(&format!("{stat},"))).unwrap().split(',').collect();
            for (k, part) in ["mean", "sd", "ci95_low", "ci95_high"].iter().enumerate() {
                let col = rows[0].iter().position(|c| *c == format!("{stat}_{part}")).unwrap();
                assert_eq!(row[col], want[k + 1], "link-delay={ld} {stat}_{part}");
            }
        }
    }
    // --vary-speed draws another machine per run: the parallel time varies.
    let sd = rows[0].iter().position(|c| *c == "par_time_sd").unwrap();
    assert!(rows[1][sd].parse::<f64>().unwrap() > 0.0, "{text}");
}
