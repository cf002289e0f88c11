//! Sessions on small programs compiled here: breakpoint entries, scopes of `show`,
//! `quit`, and that suspensions leave the statistics alone.
use super::*;
use crate::lang::{compile, FrontOptions};
use crate::net::{NetParams, ShortestPath};
use crate::sim::{Io, Limit, SimConfig};
use crate::topo::Topology;

/// Runs `commands` on `src` (4 physical processors); returns the transcript and result.
fn session(src: &str, commands: &str) -> (String, Option<Result<Stats, SimError>>) {
    session_with(src, commands, SimConfig::default())
}

fn session_with(src: &str, commands: &str, cfg: SimConfig) -> (String, Option<Result<Stats, SimError>>) {
    let m = compile("t.c", src, &FrontOptions::default()).unwrap_or_else(|e| panic!("{e}")).module;
    let buf: Rc<RefCell<Vec<u8>>> = Rc::default();
    struct Sink(Rc<RefCell<Vec<u8>>>);
    impl Write for Sink {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let out = SharedOut::new(Box::new(Sink(Rc::clone(&buf))));
    let net = ShortestPath::new(NetParams::default(), Topology::parse("ring:4").unwrap());
    let io = Io { stdin: Box::new(std::io::empty()), stdout: Box::new(out.clone()), stderr: Box::new(std::io::sink()) };
    let mut sim = Simulator::new(&m, SimConfig { pprocs: 4, ..cfg }, Box::new(net), io).unwrap();
    let commands = Box::new(std::io::Cursor::new(commands.as_bytes().to_vec()));
    let r = run_session(&mut sim, SessionIo { commands, out, echo: true, json: None })
        .expect("the transcript is a buffer and no test line is too long");
    let text = String::from_utf8_lossy(&buf.borrow()).into_owned();
    (text, r)
}

fn no_host(s: &Stats) -> Stats {
    Stats { host_time: Default::default(), ..s.clone() }
}

const LOOPS: &str = "void main() {
    int i, s;
    for (i = 0; i < 3; i++) s = s + i;
    for (i = 0; i < 3; i++)
        s = s + i;
    printf(\"%d\\n\", s);
}
";

#[test]
fn a_loop_on_one_line_stops_once_and_a_body_line_once_per_iteration() {
    let (t, _) = session(LOOPS, "break 3\nrun\ncontinue\n");
    assert_eq!(t.matches("Breakpoint: ").count(), 1, "{t}");
    // Line 5 is the body of the loop of line 4: i = 0, 1, 2.
    let (t, _) = session(LOOPS, "break 5\nrun\nshow i\ncontinue\nshow i\ncontinue\nshow i\ncontinue\n");
    assert_eq!(t.matches("Breakpoint: ").count(), 3, "{t}");
    assert!(t.contains("i = 0\n") && t.contains("i = 1\n") && t.contains("i = 2\n"), "{t}");
    assert!(t.contains("6\nThe program ended"), "0+1+2 twice is 6: {t}");
}

#[test]
fn the_same_run_with_and_without_suspensions_has_the_same_statistics() {
    let (_, plain) = session(LOOPS, "run\n");
    let (t, stopped) = session(LOOPS, "break 5\nbreak 3\nrun\nstep 2\ncontinue\ncontinue\ncontinue\ncontinue\n");
    assert!(t.matches("Breakpoint: ").count() >= 3, "{t}");
    let (plain, stopped) = (plain.unwrap().unwrap(), stopped.unwrap().unwrap());
    assert_eq!(no_host(&plain), no_host(&stopped));
}

#[test]
fn show_sees_the_innermost_declaration_in_scope() {
    let src = "int t = 7;
void main() {
    int a;
    {
        int t;
        t = 1;
        a = t;
    }
    {
        int t;
        t = 2;
        a = t;
    }
    a = t;
}
";
    // Sibling blocks share frame words: the scope, not the address, picks the variable.
    let (t, _) = session(src, "break 7\nbreak 12\nbreak 14\nrun\nshow t\ncontinue\nshow t\ncontinue\nshow t\n");
    let shown: Vec<&str> = t.lines().filter(|l| l.starts_with("t = ")).collect();
    assert_eq!(shown, vec!["t = 1", "t = 2", "t = 7"], "{t}");
}

#[test]
fn show_reaches_the_enclosing_function_of_a_nested_one() {
    let src = "void main() {
    int depth;
    void inner(int k) {
        depth = depth + k;
    }
    depth = 5;
    inner(3);
}
";
    let (t, _) = session(src, "break 4\nrun\nshow depth\nshow k\nshow nope\n");
    assert!(t.contains("depth = 5\n") && t.contains("k = 3\n"), "{t}");
    assert!(t.contains("error: no variable `nope` is visible in process 0 (inner, line 4)"), "{t}");
}

#[test]
fn quit_during_the_run_ends_it_with_the_debugger_limit() {
    let (t, r) = session(LOOPS, "break 5\nrun\nquit\n");
    assert!(matches!(r, Some(Err(SimError::LimitExceeded { limit: Limit::Debugger, .. }))), "{t}");
    let (_, r) = session(LOOPS, "quit\n");
    assert!(r.is_none(), "never started");
}

#[test]
fn mem_prints_values_with_their_owner_and_rejects_bad_ranges() {
    let src = "int g[2] = {4, 5};
float f = 1.5;
void main() { g[0] = 6; }
";
    let (t, _) = session(src, "mem 1 3\nmem 99999 100000\nmem 2 1\n");
    // Globals are at 1.. (word 0 is the null pointer's, no object's) and owned by
    // process 0's processor 0.
    assert!(t.contains("     1  4             0\n     2  5             0\n     3  1.5           0\n"), "{t}");
    // The pool: 4 global words and process 0's first segment, which holds just main's
    // frame: main has no variable, and a segment has at least 1 word.
    assert!(t.contains("error: address 99999 is outside the memory pool (0..5)"), "{t}");
    assert!(t.contains("error: bad range `2 1`: FROM is after TO"), "{t}");
}

#[test]
fn a_cost_change_applies_to_the_instructions_after_it() {
    // ADDI costs 1 by default; each of the 3 iterations of line 5 runs one ADDI (`s + i`;
    // `i++` is an INCDEC). Raising ADDI to 3 at the first stop at line 5 (before its
    // first body ran) makes those 3 ADDIs cost 2 more each: 6 more units of sequential
    // time (ADDI is work).
    let (_, plain) = session(LOOPS, "run\n");
    let (t, changed) = session(LOOPS, "break 5\nrun\nclear 5\nset cost ADDI=3\ncontinue\n");
    let (plain, changed) = (plain.unwrap().unwrap(), changed.unwrap().unwrap());
    assert_eq!(changed.seq_ticks - plain.seq_ticks, 6 * crate::time::TICKS_PER_UNIT, "{t}");
}

#[test]
fn profile_rebins_the_recorded_rows_and_needs_a_recording() {
    let (t, _) = session(LOOPS, "break 5\nrun\nprofile\n");
    assert!(t.contains("error: no profile is being recorded: start cpss with --profile"), "{t}");
    let cfg = SimConfig { profile_step: Some(10 * crate::time::TICKS_PER_UNIT), ..SimConfig::default() };
    let (t, _) = session_with(LOOPS, "break 5\nrun\nprofile 15\nprofile 20\n", cfg);
    assert!(t.contains("error: the profile is recorded in rows of 10: give a multiple of it"), "{t}");
    // One process busy all the time: every row of 20 units is `*` on processor 0.
    let rows: Vec<&str> = t.lines().skip_while(|l| !l.contains("one row per 20")).skip(2).collect();
    assert!(!rows.is_empty() && rows.iter().take_while(|l| !l.starts_with("(cpss)")).all(|l| l.ends_with(" *")), "{t}");
}

/// `profile STEP RANGE` keeps the columns of the physical processors in RANGE: with four
/// forall children busy on processors 0..3, `profile 10 1:2` has the two columns 1 and 2
/// (its header row of ones digits is `12`), and a range with no used processor is an
/// error.
#[test]
fn profile_takes_a_processor_range() {
    let src = "void work(int k) { int i, s; s = 0; for (i = 0; i < 50; i++) s = s + i; }
void main() {
    int k;
    forall (k from 0 to 3) work(k);
}
";
    let cfg = SimConfig { profile_step: Some(10 * crate::time::TICKS_PER_UNIT), ..SimConfig::default() };
    let (t, _) = session_with(src, "break 1\nrun\nprofile 10 1:2\nprofile 10 5-6\nprofile 10 0:3\n", cfg);
    let tables: Vec<&str> = t.split("(cpss) profile").skip(1).collect();
    assert_eq!(tables.len(), 3, "{t}");
    let header = |table: &str| {
        table
            .lines()
            .find(|l| l.trim_end().ends_with(|c: char| c.is_ascii_digit()) && l.trim_start().starts_with("time"))
            .map(|l| l.split_whitespace().last().unwrap_or("").to_string())
    };
    assert_eq!(header(tables[0]).as_deref(), Some("12"), "{t}");
    assert!(tables[1].contains("error: no used physical processor in that range"), "{t}");
    assert_eq!(header(tables[2]).as_deref(), Some("0123"), "{t}");
}
