use super::*;
use crate::topo::Link;

/// Two processor types on a line of three processors: 1 (type 1) — 2 (type 2) — 3
/// (type 1), the second link slower and with a latency.
const LINE3: &str = "\
begin machine
name = \"line of three\"
processors = 2
topologies = 1
begin processor
  id = 1
  begin timings
    ADDI = 2
    muli = 3 0.5
  end timings
end processor
begin processor
  id = 2
  begin timings
    ADDI = pt(1).addi / 2      # half as long as type 1
    DIVI = tl(1)(2).latency + 1
  end timings
end processor
begin topology
  id = 1
  processors = 3
  links = 2
  begin procid
    p[1] = 1; p[2] = 2; p[3] = 1
  end procid
  begin linklist
    begin link
      id = 1; latency = 0; speed = 0.25; connect = 2 1 2
    end link
    begin link
      id = 2
      latency = 1.5
      speed = 0.5 0.1
      connect = 2 2 3
    end link
  end linklist
end topology
end machine
";

fn machine(text: &str) -> Result<Machine, MachineError> {
    Machine::parse("m.mach", text)
}

#[test]
fn costs_links_and_references() {
    let m = machine(LINE3).unwrap();
    assert_eq!(m.name(), "line of three");
    assert_eq!(m.topology().to_string(), "graph:3:0-1,1-2");
    assert!(m.has_spread());
    let run = m.sample_with(None).unwrap();
    // Type 1: ADDI 2 units = 2000 ticks; MULI at its mean 3; type 2: ADDI = 2/2 = 1,
    // DIVI = latency of link 2 + 1 = 2.5 units; SUBI keeps its vCode cost.
    assert_eq!(run.proc_costs[0].get(Op::AddI), 2000);
    assert_eq!(run.proc_costs[0].get(Op::MulI), 3000);
    assert_eq!(run.proc_costs[1].get(Op::AddI), 1000);
    assert_eq!(run.proc_costs[1].get(Op::DivI), 2500);
    assert_eq!(run.proc_costs[1].get(Op::SubI), u64::from(Op::SubI.default_cost()) * 1000);
    assert!(Arc::ptr_eq(&run.proc_costs[0], &run.proc_costs[2]), "one table per type");
    // Directed links 0→1, 1→0, 1→2, 2→1 in (from, to) order.
    let idx = |a, b| run.topology.link_index(Link { from: a, to: b }).unwrap();
    assert_eq!(run.links[idx(0, 1)], LinkTiming { per_byte: 0.25, latency: 0.0, copy_of: None });
    assert_eq!(run.links[idx(2, 1)], LinkTiming { per_byte: 0.5, latency: 1.5, copy_of: None });
}

#[test]
fn sampling_is_seeded_and_only_where_sd_is_not_zero() {
    let m = machine(LINE3).unwrap();
    let (a, b, c) = (m.sample(1).unwrap(), m.sample(1).unwrap(), m.sample(2).unwrap());
    assert_eq!(a.proc_costs[0], b.proc_costs[0]);
    assert_eq!(a.links, b.links);
    assert_ne!(a.proc_costs[0].get(Op::MulI), c.proc_costs[0].get(Op::MulI), "seeds 1 and 2 draw differently");
    // sd 0 timings never move.
    assert_eq!(c.proc_costs[0].get(Op::AddI), 2000);
    // Draws stay near the mean: over 200 seeds, MULI (3 ± 0.5) averages within 0.1.
    let mean: f64 = (0..200).map(|s| m.sample(s).unwrap().proc_costs[0].get(Op::MulI) as f64).sum::<f64>() / 200.0;
    assert!((mean - 3000.0).abs() < 100.0, "{mean}");
    let no_sd = LINE3.replace("muli = 3 0.5", "muli = 3").replace("speed = 0.5 0.1", "speed = 0.5");
    let m = machine(&no_sd).unwrap();
    assert!(!m.has_spread());
    assert_eq!(m.sample(1).unwrap().proc_costs, m.sample(99).unwrap().proc_costs);
}

#[test]
fn heterogeneous_processors_and_buses() {
    // A bus joining three processors is three links, every pair one hop.
    let text = LINE3.replace("links = 2", "links = 1").replace(
        "    begin link\n      id = 2\n      latency = 1.5\n      speed = 0.5 0.1\n      connect = 2 2 3\n    end link\n",
        "",
    );
    let text = text.replace("connect = 2 1 2", "connect = 3 1 2 3").replace("tl(1)(2).latency + 1", "5");
    let m = machine(&text).unwrap();
    assert_eq!(m.topology().distance(0, 2), 1);
    assert_eq!(m.topology().link_count(), 6);
}

fn error(text: &str) -> MachineError {
    match machine(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

#[test]
fn errors_name_file_line_and_problem() {
    let e = error(&LINE3.replace("muli = 3 0.5", "mulx = 3"));
    assert_eq!(e.line, 9);
    assert!(e.to_string().starts_with("m.mach:9: `mulx` is not a vCode instruction"), "{e}");
    let e = error(&LINE3.replace("muli = 3 0.5", "muli = 3 -1"));
    assert!(matches!(e.kind, ErrorKind::BadValue { .. }) && e.line == 9, "{e}");
    let e = error(&LINE3.replace("connect = 2 2 3", "connect = 2 2 4"));
    assert!(e.to_string().contains("processor 4 is not between 1 and 3"), "{e}");
    let e = error(&LINE3.replace("connect = 2 2 3", "connect = 2 2 2"));
    assert!(e.to_string().contains("processor 2 is listed twice"), "{e}");
    // Joining 1 and 2 again is a parallel link, so processor 3 is left unconnected.
    let e = error(&LINE3.replace("connect = 2 2 3", "connect = 2 2 1"));
    assert!(matches!(e.kind, ErrorKind::Network { .. }), "{e}");
    let e = error(&LINE3.replace("p[3] = 1", "p[3] = 7"));
    assert!(matches!(e.kind, ErrorKind::UnknownType { proc: 3, ty: 7 }), "{e}");
    let e = error(&LINE3.replace("p[3] = 1", ""));
    assert!(e.to_string().contains("type of processor 3"), "{e}");
    let e = error(&LINE3.replace("links = 2", "links = 3"));
    assert!(matches!(e.kind, ErrorKind::CountMismatch { given: 3, found: 2, .. }), "{e}");
    let e = error(&LINE3.replace("pt(1).addi / 2", "pt(2).addi / 2"));
    assert!(matches!(e.kind, ErrorKind::Cycle { .. }) && e.line == 15, "{e}");
    let e = error(&LINE3.replace("pt(1).addi / 2", "pt(9).addi / 2"));
    assert!(e.to_string().contains("unknown reference `pt(9).addi`"), "{e}");
    let e = error(&LINE3.replace("pt(1).addi / 2", "pt(1).addi / "));
    assert!(e.line == 15 && e.to_string().contains("column"), "{e}");
    let e = error(&LINE3.replace("end topology", "end topologie"));
    assert!(matches!(e.kind, ErrorKind::WrongEnd { .. }), "{e}");
    let e = error(&LINE3.replace("begin procid", "begin procids").replace("end procid", "end procids"));
    assert!(matches!(e.kind, ErrorKind::UnknownSection { .. }), "{e}");
}

#[test]
fn disconnected_network_is_an_error() {
    let text = LINE3.replace("connect = 2 2 3", "connect = 2 1 3").replace("processors = 3", "processors = 4");
    let text = text.replace("p[3] = 1", "p[3] = 1; p[4] = 1");
    let e = error(&text);
    assert!(e.to_string().contains("not connected"), "{e}");
}

/// A pair joined by two links: the topology keeps one edge, and the drawn costs list the
/// second link in each direction after the topology's own links, as a copy of the first.
#[test]
fn a_second_link_between_a_pair_is_a_parallel_link() {
    let text = LINE3.replace("links = 2", "links = 3").replace(
        "  end linklist",
        "    begin link; id = 3; latency = 1; speed = 0.5; connect = 2 2 3; end link\n  end linklist",
    );
    let m = Machine::parse("m.mach", &text).unwrap_or_else(|e| panic!("{e}"));
    let n = m.topology().link_count();
    assert_eq!(n, 4, "two undirected edges");
    let run = m.sample(0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.links.len(), n + 2);
    let copies: Vec<_> = run.links[n..].iter().map(|l| (l.copy_of, l.per_byte, l.latency)).collect();
    let idx = |a, b| m.topology().link_index(crate::topo::Link { from: a, to: b }).map(|i| i as u32);
    assert_eq!(copies, vec![(idx(1, 2), 0.5, 1.0), (idx(2, 1), 0.5, 1.0)]);
}
