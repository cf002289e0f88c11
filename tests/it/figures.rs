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
    // The HTML report's timeline: per processor, `[gap, length, state code, pid, line]`.
    // --html alone prints nothing: the report is the file.
    let html = dir.join(format!("{name}.html"));
    let out = run_in(dir, "cpperf", &[cpt, "--html", html.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty(), "--html printed {} bytes", out.stdout.len());
    let page = std::fs::read_to_string(&html).unwrap();
    let data = cppe::perf::html::page_data(&page).expect("the report's data");
    assert_eq!(data["timeline"]["mode"], "stretches");
    let mut html_times = vec![BTreeMap::new(); times.len()];
    for (p, row) in data["timeline"]["rows"].as_array().unwrap().iter().enumerate() {
        let v: Vec<i64> = row.as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect();
        for s in v.chunks(5) {
            *html_times[p].entry(s[2] as usize).or_insert(0) += s[1] as u64 / 1000;
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
/// processor 1 waits for a message 600 units, then runs 100 and ends at 727. The notice
/// of its end (4 bytes, 26 units like every 4-byte message here) reaches processor 0 at
/// 753, and main learns of it one quantum later, 754: processor 0 is delayed 0..600,
/// then waits 154 units for children. The run ends at 755 (main's end, one quantum);
/// processor 1 is idle before `w` starts (27) and after it ends (755 - 727 = 28).
#[test]
fn a_receive_a_delay_and_a_join_are_waits_not_idle_time() {
    let dir = tempdir("figures-wait-message");
    let t = state_times(&dir, "message");
    assert_eq!((t[1]["message"], t[1]["running"], t[1]["idle"]), (600, 100, 27 + 28));
    assert_eq!((t[0]["delay"], t[0]["children"], t[0]["running"], t[0]["idle"]), (600, 154, 0, 1));
}

/// `r` reads main's `a` through a reference from processor 1 at 27: the request (4
/// bytes) and the reply (4 bytes) each take 26 units, and `r` resumes one quantum after
/// the reply: 26 + 26 + 1 = 53 units waiting for a remote read. It ends at
/// 27 + 53 + 100 = 180; the notice of its end takes 26 units and main learns of it one
/// quantum after it arrives: 207 units waiting for children.
#[test]
fn a_remote_read_is_a_wait() {
    let dir = tempdir("figures-wait-remote");
    let t = state_times(&dir, "remote_read");
    assert_eq!((t[1]["remote_read"], t[1]["running"]), (53, 100));
    assert_eq!(t[0]["children"], 180 + 26 + 1, "main waits in join until the notice of the child's end");
}

/// `main` holds the lock (in its own memory, processor 0) until its delay ends at 600.
/// `w` asks for it at 27: the request (4 bytes) reaches processor 0 at 53 and waits
/// there; main's unlock at 600 hands the lock to it, the grant (4 bytes) reaches
/// processor 1 at 626 and `w` resumes one quantum later, 627: 600 units waiting for a
/// lock. `w` runs 100 and ends at 727; main learns of it at 727 + 26 + 1 = 754, 154 units
/// after its delay.
#[test]
fn a_lock_is_a_wait() {
    let dir = tempdir("figures-wait-lock");
    let t = state_times(&dir, "lock");
    assert_eq!((t[1]["lock"], t[1]["running"]), (627 - 27, 100));
    assert_eq!((t[0]["delay"], t[0]["children"]), (600, 154));
}

/// Runs `fixtures/waits/NAME.c` with `mathd_only.costs`, `--quantum 1` and `--network
/// NET` and returns its output (checking exit 0).
fn output_of(dir: &Path, name: &str, net: &str) -> String {
    let waits = fixtures().join("waits");
    let cod = compile_into(dir, &waits.join(format!("{name}.c")));
    let costs = waits.join("mathd_only.costs");
    let args = [cod.to_str().unwrap(), "--cost-file", costs.to_str().unwrap(), "--quantum", "1"];
    let out = run_in(dir, "cpss", &[&args[..], &["--network", net, "--stats", "none"]].concat(), b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A remote write changes its owner's memory when it arrives, not when it is made. On
/// the shortest-path network (the closed form, no contention) the child's frame (4
/// bytes) reaches processor 1 at 5 + 1 + 4 × 5 = 26 and the child writes main's `flag`
/// at once (its instructions cost nothing): 4 bytes of address and 4 of data, 2 packets,
/// arriving at 26 + 5 + 2 × 1 + (1 + 2 − 1) × 4 × 5 = 73. With quantum 1 it lands at 73:
/// main reads 0 at 72 and 1 at 73.
#[test]
fn a_remote_write_is_seen_when_it_arrives() {
    let dir = tempdir("figures-remote-write");
    assert_eq!(output_of(&dir, "remote_write", "shortest-path"), "0 1\n");
}

/// Two workers (processors 1 and 2) each take a spinlock in main's memory three times,
/// append their id to main's `order` and add 1 to main's `k` while they hold it (20
/// units of work). Requests are served in the order they reach the lock's processor:
/// worker 2's first request arrives while worker 1 holds the lock, so the release hands
/// it to worker 2, and worker 1's next request queues behind, and so on: 1 2 1 2 1 2
/// (a lock that goes to whoever asks again first gives 1 1 1 2 2 2). No increment is
/// lost: a release frees the lock only after the releaser's writes have landed, so
/// `k` ends at 6 on every network.
#[test]
fn a_spinlock_serves_requests_in_order_and_orders_the_writes() {
    let dir = tempdir("figures-lock-fair");
    for net in ["packet", "shortest-path", "wormhole"] {
        assert_eq!(output_of(&dir, "lock_fair", net), "121212 6\n", "{net}");
    }
}

/// Remote traffic's latency is reported and counts in the granularity: `remote_read.c`'s
/// one remote read is a 4-byte request and a 4-byte reply of 26 units each, so 2 remote
/// messages of average latency 26, and the granularity is the 100 units of work over
/// those 52 units of communication (there are no channel messages).
#[test]
fn remote_traffic_counts_in_latency_and_granularity() {
    let dir = tempdir("figures-remote-latency");
    let waits = fixtures().join("waits");
    let cod = compile_into(&dir, &waits.join("remote_read.c"));
    let costs = waits.join("mathd_only.costs");
    let cpt = dir.join("r.cpt");
    let args = [cod.to_str().unwrap(), "--cost-file", costs.to_str().unwrap(), "--quantum", "1", "--network"];
    let args = [&args[..], &["packet", "--stats", "none", "-t", cpt.to_str().unwrap()]].concat();
    assert_eq!(run_in(&dir, "cpss", &args, b"").status.code(), Some(0));
    let out = run_in(&dir, "cpperf", &[cpt.to_str().unwrap(), "--format", "json"], b"");
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("cpperf JSON");
    assert_eq!((j["remote_messages"].as_u64(), j["avg_remote_latency"].as_f64()), (Some(2), Some(26.0)));
    assert_eq!(j["messages"].as_u64(), Some(0));
    assert!((j["granularity"].as_f64().unwrap() - 100.0 / 52.0).abs() < 1e-6, "{}", j["granularity"]);
    let text = String::from_utf8(run_in(&dir, "cpperf", &[cpt.to_str().unwrap()], b"").stdout).unwrap();
    assert!(text.contains("Remote Memory Messages = 2, average latency 26\n"), "{text}");
    assert!(text.contains("= 100 : (0 messages + 52 remote memory) = 1.9231\n"), "{text}");
}

/// The seed's matmul ends with nothing in flight: every message and remote write it
/// sends (1024 channel messages, 63 results written into main's `c` from the processors
/// other than main's; the child on processor 0 writes its own) has arrived by the
/// end of the run, and main ends after the last result has landed: each child's end
/// reaches its parent after the child's writes.
#[test]
fn the_seed_matmul_ends_with_every_result_delivered() {
    let dir = tempdir("figures-matmul-delivered");
    let cod = compile_into(&dir, &fixtures().join("matmul.c"));
    let cpt = dir.join("m.cpt");
    let out = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--stats", "csv", "-t", cpt.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let stats = String::from_utf8(out.stdout).unwrap();
    let par: f64 = stats.lines().last().unwrap().split(',').nth(1).unwrap().parse().unwrap();
    let sddf = run_in(&dir, "cptrace", &[cpt.to_str().unwrap(), "--format", "sddf"], b"");
    let text = String::from_utf8(sddf.stdout).unwrap();
    // Record lines `"msg_send" { SECONDS, ...` (1 unit = 1 µs).
    let times = |tag: &str| -> Vec<f64> {
        text.lines()
            .filter_map(|l| l.strip_prefix(&format!("\"{tag}\" {{ ")))
            .map(|r| r.split(',').next().unwrap().trim().parse::<f64>().unwrap() * 1e6)
            .collect()
    };
    let (sends, arrivals) = (times("msg_send"), times("msg_arr"));
    assert_eq!(sends.len(), 1024 + 63, "channel messages and remote writes");
    assert_eq!(arrivals.len(), sends.len(), "every message arrives");
    let last = arrivals.iter().copied().fold(0.0, f64::max);
    assert!(last <= par, "last arrival {last} after the end {par}");
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
