use super::*;
use crate::lang::{compile, FrontOptions};
use crate::machine::Machine;
use std::sync::Arc;

/// A ring of four processes passing a token twice round, with some arithmetic: enough
/// messages and work for every statistic to move with the parameters.
const RING: &str = "
arch ring R[4];
channel int hop[4];
void stage(int k) {
    int lap, t, i, s;
    for (lap = 0; lap < 2; lap++) {
        t = hop[k];
        s = 0;
        for (i = 0; i < 10 * (k + 1); i++) s = s + i * t;
        hop[(k + 1) % 4] = t + 1;
    }
}
void main() {
    int k;
    for (k = 1; k < 4; k++) fork [k; hop[k]] stage(k);
    hop[1] = 1;
    k = hop[0]; hop[1] = k; k = hop[0];
}
";

fn module(src: &str) -> Module {
    let opts = FrontOptions { include_dirs: vec![std::path::PathBuf::from("fixtures/include")], ..Default::default() };
    compile("ring.c", src, &opts).unwrap_or_else(|e| panic!("{e}")).module
}

/// `row` of a CSV whose header is `header` without its `host_seconds` cell, which no
/// two runs share.
fn without_host(header: &str, row: &str) -> String {
    let Some(at) = header.split(',').position(|h| h == "host_seconds") else { return row.to_string() };
    row.split(',').enumerate().filter(|(i, _)| *i != at).map(|(_, v)| v).collect::<Vec<_>>().join(",")
}

/// The `--stats csv` header and row of a run.
fn stats_csv(o: &Outcome) -> (String, String) {
    let csv = outcome_stats(o).unwrap().to_csv();
    let mut lines = csv.lines().map(str::to_string);
    (lines.next().unwrap(), lines.next().unwrap())
}

#[test]
fn student_t_table() {
    // Table values t(0.975, 1) = 12.706, t(0.975, 9) = 2.262; large df tend to 1.960.
    assert_eq!(t_975(1), 12.706);
    assert_eq!(t_975(9), 2.262);
    assert!((t_975(1_000_000) - 1.960).abs() < 1e-3);
    // 40 < 50 < 60: interpolated in 1/df between 2.021 and 2.000.
    let t50 = t_975(50);
    assert!(t50 < 2.021 && t50 > 2.000, "{t50}");
}

#[test]
fn summary_by_hand() {
    // Parallel times 10 and 20: mean 15, sd sqrt(50) = 7.0711, half-width
    // 12.706 * 7.0711 / sqrt(2) = 63.53.
    let a = Stats { par_ticks: 10_000, ..Stats::default() };
    let b = Stats { par_ticks: 20_000, ..Stats::default() };
    let rows = summarize(&[&a, &b]);
    let par = rows.iter().find(|r| r.name == "par_time").unwrap();
    assert_eq!(par.mean, 15.0);
    assert!((par.sd - 50f64.sqrt()).abs() < 1e-9);
    assert!((par.half_width - 63.53).abs() < 0.01, "{}", par.half_width);
    let one = summarize(&[&a]);
    assert_eq!((one[1].sd, one[1].half_width), (0.0, 0.0));
}

#[test]
fn sweep_rows_equal_single_runs() {
    let m = module(RING);
    let axes = vec![SweepAxis::parse("link-delay=1,3").unwrap(), SweepAxis::parse("packet-size=8,32,64").unwrap()];
    let configs = sweep_configs(&RunOptions::default(), &axes).unwrap();
    assert_eq!(configs.len(), 6, "2 × 3 configurations");
    // The last axis varies fastest.
    assert_eq!(configs[1].0, vec!["1".to_string(), "32".to_string()]);
    let never = std::sync::atomic::AtomicBool::new(false);
    let results: Vec<_> =
        sweep(&m, &configs, b"", &|| {}, &never).into_iter().map(|r| r.expect("every configuration runs")).collect();
    let csv = sweep_csv(&axes, &configs, &results);
    let header = csv.lines().next().unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 6);
    let mut distinct = std::collections::BTreeSet::new();
    for ((vals, opts), row) in configs.iter().zip(&rows) {
        let alone = run_config(&m, opts, b"").unwrap();
        let (alone_header, alone_row) = stats_csv(&alone);
        assert_eq!(header, format!("link-delay,packet-size,{alone_header}"));
        let expect = format!("{},{alone_row}", vals.join(","));
        assert_eq!(without_host(header, row), without_host(header, &expect));
        distinct.insert(row.split(',').nth(3).unwrap().to_string());
    }
    assert!(distinct.len() > 1, "the parameters change the parallel time: {distinct:?}");
    assert!(matches!(SweepAxis::parse("link-delay"), Err(SetupError::BadValue { .. })));
    let bad = vec![SweepAxis::parse("link-delay=1,x").unwrap()];
    assert!(sweep_configs(&RunOptions::default(), &bad).is_err());
}

/// A row-major R×C mesh as a machine description with uniform links: `speed` time units
/// per byte, no latency, every processor of one type without timings.
pub(crate) fn mesh_machine(r: u32, c: u32, speed: &str, extra_timing: &str) -> String {
    let n = r * c;
    let mut links = Vec::new();
    for a in 0..n {
        if a % c + 1 < c {
            links.push((a, a + 1));
        }
        if a / c + 1 < r {
            links.push((a, a + c));
        }
    }
    let mut s = format!(
        "begin machine\nname = \"mesh\"\nbegin processor\nid = 1\nbegin timings\n{extra_timing}\nend timings\nend processor\n\
         begin topology\nid = 1\nhardware = 1\nprocessors = {n}\nlinks = {}\nbegin procid\n",
        links.len()
    );
    for p in 1..=n {
        s.push_str(&format!("p[{p}] = 1\n"));
    }
    s.push_str("end procid\nbegin linklist\n");
    for (k, (a, b)) in links.iter().enumerate() {
        s.push_str(&format!(
            "begin link; id = {}; latency = 0; speed = {speed}; connect = 2 {} {}; end link\n",
            k + 1,
            a + 1,
            b + 1
        ));
    }
    s.push_str("end linklist\nend topology\nend machine\n");
    s
}

#[test]
fn uniform_mesh_machine_equals_builtin_mesh() {
    let m = module(RING);
    // 1-byte flits at 5 units per byte: 5 units per flit, the default link delay.
    let text = mesh_machine(2, 4, "5", "");
    let machine = Arc::new(Machine::parse("mesh.mach", &text).unwrap());
    let with_machine = RunOptions { machine: Some(machine), ..RunOptions::default() };
    let builtin = RunOptions { topology: Some("mesh:2x4".into()), ..RunOptions::default() };
    let a = run_config(&m, &with_machine, b"").unwrap().unwrap();
    let b = run_config(&m, &builtin, b"").unwrap().unwrap();
    // The same statistics; only the configuration's topology differs.
    let plain = |s: Stats| Stats { host_time: Default::default(), config: None, ..s };
    assert_eq!(plain(a.clone()), plain(b.clone()));
    assert_eq!(a.config.unwrap().topology, "machine:mesh.mach");
    assert_eq!(b.config.unwrap().topology, "mesh:2x4");
}

#[test]
fn repeated_runs_spread_only_with_sd() {
    let m = module(RING);
    let spread = Arc::new(Machine::parse("m", &mesh_machine(2, 2, "0.25 0.05", "ADDI = 1 0.3\nMULI = 2 0.5")).unwrap());
    let fixed = Arc::new(Machine::parse("m", &mesh_machine(2, 2, "0.25", "ADDI = 1\nMULI = 2")).unwrap());
    for (machine, varies) in [(spread, true), (fixed, false)] {
        let opts = RunOptions { machine: Some(machine), seed: 5, ..RunOptions::default() };
        let never = std::sync::atomic::AtomicBool::new(false);
        let runs = repeat(&m, &opts, b"", 6, &never);
        let stats: Vec<Stats> = runs.into_iter().map(|r| r.unwrap().unwrap().unwrap()).collect();
        let refs: Vec<&Stats> = stats.iter().collect();
        let rows = summarize(&refs);
        let par = rows.iter().find(|r| r.name == "par_time").unwrap();
        assert_eq!(par.sd > 0.0, varies, "{par:?}");
        if !varies {
            assert!(stats.iter().all(|s| s.par_ticks == stats[0].par_ticks && s.seq_ticks == stats[0].seq_ticks));
        }
        // Run 0 is the single run with the same seed.
        let single = run_config(&m, &opts, b"").unwrap().unwrap();
        assert_eq!((single.par_ticks, single.seq_ticks), (stats[0].par_ticks, stats[0].seq_ticks));
    }
}

#[test]
fn group_overrides_scale_costs_and_links() {
    let m = module(RING);
    let base = run_config(&m, &RunOptions::default(), b"").unwrap().unwrap();
    let mut o = RunOptions::default();
    o.set("scale-costs", "2").unwrap();
    let doubled = run_config(&m, &o, b"").unwrap().unwrap();
    // Every instruction costs twice as much: sequential time doubles exactly.
    assert_eq!(doubled.seq_ticks, 2 * base.seq_ticks);
    let mut o = RunOptions::default();
    o.set("scale-link-speed", "2").unwrap();
    let fast = run_config(&m, &o, b"").unwrap().unwrap();
    assert!(fast.avg_latency_ticks() < base.avg_latency_ticks());
    assert!(o.set("scale-latency", "0").is_err());
}

/// Once the stop flag is set (`^C`), no configuration or run starts: every result is
/// `None` when it is set before the sweep.
#[test]
fn a_set_stop_flag_starts_nothing() {
    let m = module(RING);
    let stop = std::sync::atomic::AtomicBool::new(true);
    let configs = vec![(vec!["1".to_string()], RunOptions::default()); 3];
    assert!(sweep(&m, &configs, b"", &|| {}, &stop).iter().all(Option::is_none));
    assert!(repeat(&m, &RunOptions::default(), b"", 4, &stop).iter().all(Option::is_none));
    assert!(sweep_repeated(&m, &configs, b"", 2, &|| {}, &stop).iter().flatten().all(Option::is_none));
}

/// A sweep of more than [`MAX_SWEEP`] configurations is refused before anything runs,
/// with the count: 1001 × 1000 = 1 001 000.
#[test]
fn a_sweep_has_a_cap() {
    let axis = |n: usize| SweepAxis { name: "seed".into(), values: (0..n).map(|k| k.to_string()).collect() };
    let e = sweep_configs(&RunOptions::default(), &[axis(1001), axis(1000)]).unwrap_err();
    assert!(e.to_string().contains("1001000 configurations, more than the 1000000 a sweep may have"), "{e}");
    assert_eq!(sweep_configs(&RunOptions::default(), &[axis(10), axis(3)]).unwrap().len(), 30);
}
