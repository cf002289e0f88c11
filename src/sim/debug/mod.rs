//! The `cpss` debugger (seed 000 §4.1–4.2, App. A 2.3–2.5; SPEC §4 "Debugger"): an
//! interactive or scripted session of commands ([`command`]) around one run.
//!
//! The run is not resumable from outside: the session installs a [`DebugHook`] and calls
//! [`Simulator::run`]; the simulator calls the hook synchronously whenever a stop
//! condition is met (a breakpoint pc, a line start of the step process, a reference to a
//! traced address, the alarm), and the hook reads and executes commands until `continue`
//! or `step` returns from it. Every process is paused meanwhile, so a suspension changes
//! no simulated time; only `set` changes what happens next. Before the run and after its
//! end (normal, deadlock or error) the same command loop runs without a hook, so
//! `status` can show a deadlock.
//!
//! Lines and stops: a breakpoint on line L stops a process before each *entry* into L —
//! an instruction of L reached from an instruction of another line (by falling through
//! from it or by a jump from it), so a loop on one line stops once per execution of the
//! line and a loop body stops once per iteration. `step N` resumes until the step
//! process has made N such entries (into any line); the others run on meanwhile.
//!
//! Depends on the simulator's debugger view ([`Simulator::set_stops`] and friends), the
//! network parameters and the cost table.
pub mod command;
pub mod show;

use crate::sim::{CostTable, DebugHook, ProcState, Quit, SimError, Simulator, Stats, Stop};
use crate::time::format_time;
use crate::time::Ticks;
use crate::vcode::{listing, Module};
use command::{parse, Command, Span};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::{BufRead, Write};
use std::rc::Rc;

/// A writer shared by the session and the program's standard output, so that their
/// lines come out in the order they were produced.
#[derive(Clone)]
pub struct SharedOut(Rc<RefCell<Box<dyn Write>>>);

impl SharedOut {
    /// Shares `w`.
    pub fn new(w: Box<dyn Write>) -> SharedOut {
        SharedOut(Rc::new(RefCell::new(w)))
    }
}

impl Write for SharedOut {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().write(b)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.borrow_mut().flush()
    }
}

/// The longest command line read, in bytes.
pub const MAX_LINE: usize = 4096;

/// Why a session ended before its commands did, the run's result aside.
#[derive(Debug, thiserror::Error)]
pub enum SessionFault {
    /// The transcript could not be written (a closed pipe: `… | head`).
    #[error("writing the transcript: {0}")]
    Output(#[from] std::io::Error),
    /// Command line `line` (counting from 1) is longer than [`MAX_LINE`] bytes.
    #[error("command line {line} is longer than {MAX_LINE} bytes")]
    LineTooLong { line: usize },
}

/// Where the session reads commands and writes its transcript.
pub struct SessionIo {
    /// Commands, one per line.
    pub commands: Box<dyn BufRead>,
    /// The transcript (share it with the program's output through [`SharedOut`]).
    pub out: SharedOut,
    /// Scripted: echo each command after the prompt (a transcript); interactive: print
    /// the prompt only.
    pub echo: bool,
    /// A JSON transcript instead of text: one object per command on its own line,
    /// `{"command": …, "output": …, "program_output": …}`, the program's output taken
    /// from this buffer (give the program the same buffer as its standard output).
    pub json: Option<Captured>,
}

/// A buffer the program writes to and the session drains, for JSON transcripts.
#[derive(Clone, Default)]
pub struct Captured(Rc<RefCell<Vec<u8>>>);

impl Captured {
    /// Everything written since the last take.
    fn take(&self) -> String {
        String::from_utf8_lossy(&std::mem::take(&mut *self.0.borrow_mut())).into_owned()
    }
}

impl Write for Captured {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One command of a JSON transcript (`cpss --commands FILE --transcript json`).
#[derive(serde::Serialize)]
struct Record<'a> {
    /// The command as typed (`null` for what came before the first command).
    command: Option<&'a str>,
    /// The session's answer, including the suspension a resuming command ended in.
    output: &'a str,
    /// What the program printed meanwhile.
    #[serde(skip_serializing_if = "str::is_empty")]
    program_output: &'a str,
}

/// Where the run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    NotStarted,
    Suspended,
    Finished,
}

/// What the command loop ends with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    Resume,
    Quit,
}

struct Stepping {
    pid: u32,
    left: u32,
    /// The pc the step process is at when the step begins, if it will be checked again
    /// when the process runs (it does not count as a new line).
    origin: Option<u32>,
}

struct Trace {
    name: String,
    pid: u32,
    lo: u32,
    hi: u32,
    /// The variable as found when the trace was set: a report shows it, not whatever
    /// the name means in the process's current function.
    var: show::Located,
}

/// The state of a debugging session.
struct Session {
    io: SessionIo,
    module: Rc<Module>,
    /// Per pc: it is an entry into its line (module docs).
    entry: Vec<bool>,
    breakpoints: BTreeSet<u32>,
    /// The step process (`process PID`, or the last process that stopped).
    step_pid: Option<u32>,
    stepping: Option<Stepping>,
    traces: Vec<Trace>,
    /// The process of the current suspension, if any.
    current: Option<u32>,
    /// Global time, sequential time and instructions at the previous suspension.
    since: (Ticks, Ticks),
    /// Busy time per physical processor at the previous suspension.
    since_busy: Vec<(u32, Ticks)>,
    /// The parameters `set` changed, `(time, "name value")`.
    changes: Vec<(Ticks, String)>,
    /// The final statistics, once the run is over.
    last: Option<Stats>,
    ended: bool,
    /// JSON transcripts: the command being answered and its answer so far.
    json_command: Option<String>,
    /// Command lines read so far.
    lines_read: usize,
    /// Set once the session must end: the transcript cannot be written or a command
    /// line was refused.
    fault: Option<SessionFault>,
    json_output: String,
}

/// Per pc, whether it is an entry into its source line: the first instruction, or one
/// whose fall-through predecessor or some jump to it is on another line.
pub fn line_entries(m: &Module) -> Vec<bool> {
    let n = m.code.len();
    let mut entry: Vec<bool> = (0..n).map(|pc| pc == 0 || m.line_of(pc as u32 - 1) != m.line_of(pc as u32)).collect();
    for (pc, ins) in m.code.iter().enumerate() {
        if let Some(t) = ins.jump_target() {
            if m.line_of(t) != m.line_of(pc as u32) {
                if let Some(e) = entry.get_mut(t as usize) {
                    *e = true;
                }
            }
        }
    }
    // A function's entry is reached by a call, not by falling through.
    for f in &m.functions {
        if let Some(e) = entry.get_mut(f.entry as usize) {
            *e = true;
        }
    }
    entry
}

/// The hook the simulator calls: borrows the session for the suspension.
struct Hook(Rc<RefCell<Session>>);

impl DebugHook for Hook {
    fn suspend(&mut self, sim: &mut Simulator<'_>, stop: Stop) -> Result<(), Quit> {
        let mut s = self.0.borrow_mut();
        match s.stopped(sim, stop) {
            Next::Resume => Ok(()),
            Next::Quit => Err(Quit),
        }
    }
}

/// Runs a debugging session around `sim`'s run: commands before the run, at each
/// suspension and after the end, until `quit` or the end of the commands. Returns the
/// run's result (`None` when the run was never started); a `quit` during the run gives
/// [`SimError::LimitExceeded`] with [`crate::sim::Limit::Debugger`]. A transcript that
/// cannot be written, or a command line over [`MAX_LINE`] bytes, ends the session at
/// once with a [`SessionFault`].
pub fn run_session(sim: &mut Simulator<'_>, io: SessionIo) -> Result<Option<Result<Stats, SimError>>, SessionFault> {
    let module = Rc::new(sim.module().clone());
    let session = Rc::new(RefCell::new(Session {
        entry: line_entries(&module),
        module,
        io,
        breakpoints: BTreeSet::new(),
        step_pid: None,
        stepping: None,
        traces: Vec::new(),
        current: None,
        since: (0, 0),
        since_busy: Vec::new(),
        changes: Vec::new(),
        last: None,
        ended: false,
        json_command: None,
        json_output: String::new(),
        lines_read: 0,
        fault: None,
    }));
    sim.set_debugger(Box::new(Hook(Rc::clone(&session))));
    let start = session.borrow_mut().command_loop(sim, Phase::NotStarted);
    if start == Next::Quit {
        let mut s = session.borrow_mut();
        s.emit_record();
        s.flush();
        return s.fault.take().map_or(Ok(None), Err);
    }
    let result = sim.run();
    let mut s = session.borrow_mut();
    let quit = matches!(&result, Err(SimError::LimitExceeded { limit: crate::sim::Limit::Debugger, .. }));
    if !quit && s.fault.is_none() {
        s.ended = true;
        let msg = match &result {
            Ok(st) => format!("The program ended at time {}.", format_time(st.par_ticks)),
            Err(SimError::Deadlock { stats, .. }) => format!(
                "Deadlock at time {}: no process can run and no message is in flight.",
                format_time(stats.par_ticks)
            ),
            Err(e) => format!("The run stopped: {e}."),
        };
        s.say(&msg);
        s.last = match &result {
            Ok(st) => Some(st.clone()),
            Err(SimError::Deadlock { stats, .. } | SimError::LimitExceeded { stats, .. }) => Some((**stats).clone()),
            Err(_) => None,
        };
        s.current = None;
        s.command_loop(sim, Phase::Finished);
    }
    s.emit_record();
    s.flush();
    if let Some(fault) = s.fault.take() {
        return Err(fault);
    }
    // The statistics list each change the session made, with its time.
    let changes = std::mem::take(&mut s.changes);
    let mut result = result;
    match &mut result {
        Ok(st) => st.changes = changes,
        Err(SimError::Deadlock { stats, .. } | SimError::LimitExceeded { stats, .. }) => stats.changes = changes,
        Err(_) => {}
    }
    Ok(Some(result))
}

impl Session {
    /// Writes `bytes` to the transcript unless it has already failed; the first failure
    /// ends the session.
    fn put(&mut self, bytes: &[u8]) {
        if self.fault.is_none() {
            if let Err(e) = self.io.out.write_all(bytes) {
                self.fault = Some(SessionFault::Output(e));
            }
        }
    }

    fn flush(&mut self) {
        if self.fault.is_none() {
            if let Err(e) = self.io.out.flush() {
                self.fault = Some(SessionFault::Output(e));
            }
        }
    }

    fn say(&mut self, text: &str) {
        if self.io.json.is_some() {
            self.json_output.push_str(text);
            if !text.ends_with('\n') {
                self.json_output.push('\n');
            }
            return;
        }
        self.put(text.as_bytes());
        if !text.ends_with('\n') {
            self.put(b"\n");
        }
    }

    /// JSON transcripts: writes the record of the command answered so far, if any.
    fn emit_record(&mut self) {
        let Some(captured) = &self.io.json else { return };
        let program_output = captured.take();
        if self.json_command.is_none() && self.json_output.is_empty() && program_output.is_empty() {
            return;
        }
        let record = Record {
            command: self.json_command.as_deref(),
            output: &self.json_output,
            program_output: &program_output,
        };
        if let Ok(line) = serde_json::to_string(&record) {
            self.put(format!("{line}\n").as_bytes());
        }
        self.json_command = None;
        self.json_output.clear();
    }

    /// A suspension: decides whether the stop is one the user asked for, reports it and
    /// runs the command loop.
    fn stopped(&mut self, sim: &mut Simulator<'_>, stop: Stop) -> Next {
        let m = Rc::clone(&self.module);
        let report = match stop {
            Stop::Pc { pid, pc } => {
                let line = m.line_of(pc);
                let is_break = self.breakpoints.contains(&line) && self.entry.get(pc as usize) == Some(&true);
                if let Some(st) = self.stepping.as_mut().filter(|st| st.pid == pid) {
                    if st.origin.take() == Some(pc) {
                        return Next::Resume;
                    }
                    st.left = st.left.saturating_sub(1);
                    if st.left > 0 && !is_break {
                        return Next::Resume;
                    }
                }
                if !is_break && self.stepping.as_ref().is_none_or(|st| st.pid != pid) {
                    // A stale stop (the stop pcs changed): not the user's.
                    return Next::Resume;
                }
                let what = if is_break { "Breakpoint" } else { "Step" };
                self.current = Some(pid);
                format!("{what}: {}", self.where_is(sim, pid, None))
            }
            Stop::Traced { pid } => {
                self.current = Some(pid);
                // Reported at the referencing instruction, the one before the pc.
                let line = sim.process_frame(pid).map(|(pc, _)| m.line_of(pc.saturating_sub(1)));
                let mut r = format!("Trace: {}", self.where_is(sim, pid, line));
                for t in &self.traces {
                    let v = match show::show(&self.module, sim, &t.var, &[]) {
                        Ok(v) => v,
                        Err(e) => vec![format!("error: {e}")],
                    };
                    let _ = write!(r, "\n  (process {}) {}", t.pid, v.join("\n  "));
                }
                r
            }
            Stop::Ended { pid } => {
                self.current = None;
                format!("Process {pid} ended at time {}.", format_time(sim.now()))
            }
            Stop::Alarm => {
                self.current = None;
                format!("Alarm at time {}.", format_time(sim.global_clock()))
            }
        };
        self.stepping = None;
        if let Some(p) = self.current {
            self.step_pid = Some(p);
        }
        self.sync(sim);
        self.say(&report);
        let next = self.command_loop(sim, Phase::Suspended);
        let st = sim.stats_so_far();
        self.since = (st.par_ticks, st.seq_ticks);
        self.since_busy = st.busy.clone();
        next
    }

    /// `process 2 (worker, vproc 2, pproc 2) at line 12, clock 43` and the source line.
    fn where_is(&self, sim: &Simulator<'_>, pid: u32, line: Option<u32>) -> String {
        let Some(mut p) = sim.processes().into_iter().find(|p| p.pid == pid) else { return format!("process {pid}") };
        p.line = line.unwrap_or(p.line);
        format!(
            "process {pid} ({}, vproc {}, pproc {}) at line {}, clock {}\n{}",
            p.function,
            p.vproc,
            p.pproc,
            p.line,
            format_time(p.clock),
            self.source_line(p.line).trim_end()
        )
    }

    fn source_line(&self, line: u32) -> String {
        let text = self.module.source.lines().nth((line as usize).wrapping_sub(1)).unwrap_or("");
        let mark = if self.breakpoints.contains(&line) { '*' } else { ' ' };
        format!("{line:>4}{mark} {text}")
    }

    /// Hands the breakpoints, the step and the traces to the simulator.
    fn sync(&self, sim: &mut Simulator<'_>) {
        let m = &self.module;
        let bps: Vec<u32> = (0..m.code.len() as u32)
            .filter(|&pc| self.entry[pc as usize] && self.breakpoints.contains(&m.line_of(pc)))
            .collect();
        // Library code has no source line (line 0): a step goes over it, as over a
        // function without debugging information.
        let starts: Vec<u32> =
            (0..m.code.len() as u32).filter(|&pc| self.entry[pc as usize] && m.line_of(pc) > 0).collect();
        sim.set_stops(&bps, self.stepping.as_ref().map(|s| (s.pid, starts.as_slice())));
        sim.set_traced(self.traces.iter().map(|t| (t.lo, t.hi)).collect());
    }

    /// Reads and executes commands until one resumes the run or ends the session.
    fn command_loop(&mut self, sim: &mut Simulator<'_>, phase: Phase) -> Next {
        loop {
            if self.io.json.is_some() {
                self.emit_record();
            } else {
                self.put(b"(cpss) ");
            }
            self.flush();
            if self.fault.is_some() {
                return Next::Quit;
            }
            // A command line is text of at most MAX_LINE bytes; past that (a binary
            // file, /dev/zero) the session ends with an error instead of reading on.
            let mut bytes = Vec::new();
            let read = std::io::Read::take(&mut self.io.commands, MAX_LINE as u64 + 1).read_until(b'\n', &mut bytes);
            let too_long = bytes.len() > MAX_LINE;
            self.lines_read += 1;
            let line = match std::string::String::from_utf8(bytes) {
                Ok(l) if !too_long => l,
                Ok(_) | Err(_) if too_long => {
                    self.say(&format!("error: a command line longer than {MAX_LINE} bytes: the session ends"));
                    self.fault = Some(SessionFault::LineTooLong { line: self.lines_read });
                    return Next::Quit;
                }
                Ok(_) | Err(_) => {
                    self.say("error: the command line is not UTF-8 text");
                    continue;
                }
            };
            match read {
                Ok(0) | Err(_) if self.io.json.is_some() => return Next::Quit,
                Ok(0) | Err(_) => {
                    if self.io.echo {
                        self.say("");
                    } else {
                        self.say("quit");
                    }
                    return Next::Quit;
                }
                Ok(_) => {}
            }
            if self.io.json.is_some() {
                let l = line.trim();
                if l.is_empty() || l.starts_with('#') {
                    continue;
                }
                self.json_command = Some(l.to_string());
            } else if self.io.echo {
                let l = line.trim_end().to_string();
                self.say(&l);
            }
            let out = match parse(&line) {
                Err(e) => Err(e.to_string()),
                Ok(c) => match self.execute(sim, phase, c) {
                    Ok(Some(next)) => return next,
                    Ok(None) => Ok(()),
                    Err(e) => Err(e),
                },
            };
            if let Err(e) = out {
                self.say(&format!("error: {e}"));
            }
        }
    }

    fn active(&self, sim: &Simulator<'_>, pid: u32) -> Result<(), String> {
        match sim.processes().get(pid as usize) {
            None => Err(format!("process {pid} does not exist")),
            Some(p) if p.state == ProcState::Ended => Err(format!("process {pid} has ended")),
            Some(_) => Ok(()),
        }
    }

    /// Processor `p`'s busy time at the previous suspension (0 before the first).
    fn busy_at_suspension(&self, p: u32) -> Ticks {
        self.since_busy.iter().find(|&&(q, _)| q == p).map_or(0, |&(_, b)| b)
    }

    /// The process a command without PID means.
    fn default_pid(&self) -> u32 {
        self.current.or(self.step_pid).unwrap_or(0)
    }

    fn locate(&self, sim: &Simulator<'_>, var: &str, pid: u32) -> Result<show::Located, String> {
        self.active(sim, pid)?;
        let (pc, display) = sim.process_frame(pid).ok_or_else(|| format!("process {pid} has ended"))?;
        show::locate(&self.module, sim, var, pid, pc, &display).map_err(|e| e.to_string())
    }

    /// Executes one command: `Some` ends the command loop.
    fn execute(&mut self, sim: &mut Simulator<'_>, phase: Phase, c: Command) -> Result<Option<Next>, String> {
        let m = Rc::clone(&self.module);
        let running = |what: &str| -> Result<(), String> {
            match phase {
                Phase::Suspended => Ok(()),
                Phase::NotStarted => Err(format!("the program is not running: `{what}` needs a run (type `run`)")),
                Phase::Finished => Err(format!("the program has ended: nothing to {what}")),
            }
        };
        match c {
            Command::Nothing => {}
            Command::Help => {
                let mut s = String::from("Commands:\n");
                for (name, what) in command::COMMANDS {
                    let _ = writeln!(s, "  {name:<24}{what}");
                }
                self.say(&s);
            }
            Command::Quit => return Ok(Some(Next::Quit)),
            Command::Break(line) => {
                let has_code = m.src2cod.iter().any(|&(l, _)| l == line);
                if !has_code {
                    let nearest = m.src2cod.iter().map(|&(l, _)| l).min_by_key(|&l| (l.abs_diff(line), l));
                    return Err(match nearest {
                        Some(n) => format!("line {line} has no code; breakpoints go on lines with code (nearest: {n})"),
                        None => format!("line {line} has no code"),
                    });
                }
                if self.breakpoints.insert(line) {
                    self.say(&format!("Breakpoint at line {line}."));
                } else {
                    self.say(&format!("Breakpoint at line {line} (already set)."));
                }
                self.sync(sim);
            }
            Command::Clear(line) => {
                if !self.breakpoints.remove(&line) {
                    return Err(format!("no breakpoint at line {line}"));
                }
                self.say(&format!("Breakpoint at line {line} cleared."));
                self.sync(sim);
            }
            Command::Run => {
                return match phase {
                    Phase::NotStarted => Ok(Some(Next::Resume)),
                    Phase::Suspended => Err("the program is already running (use `continue` or `step`)".into()),
                    Phase::Finished => Err("the program has ended; start cpss again to rerun it".into()),
                };
            }
            Command::Continue => {
                running("continue")?;
                return Ok(Some(Next::Resume));
            }
            Command::Step(n) => {
                if phase == Phase::Finished {
                    return Err("the program has ended: nothing to step".into());
                }
                let pid = if phase == Phase::NotStarted {
                    0
                } else {
                    self.step_pid.ok_or("no step process: use `process PID`")?
                };
                self.active(sim, pid)?;
                // The process suspended before its pc will not be stopped there again;
                // any other one will, and that first stop is where it already is.
                let origin = match (phase, self.current) {
                    (Phase::NotStarted, _) => None,
                    (_, Some(c)) if c == pid => None,
                    _ => sim.process_frame(pid).map(|(pc, _)| pc),
                };
                self.step_pid = Some(pid);
                self.stepping = Some(Stepping { pid, left: n, origin });
                self.sync(sim);
                return Ok(Some(Next::Resume));
            }
            Command::Process(pid) => {
                self.active(sim, pid)?;
                self.step_pid = Some(pid);
                self.say(&format!("Step process: {}.", self.where_is(sim, pid, None).lines().next().unwrap_or("")));
            }
            Command::Show { var, pid, range } => {
                let pid = pid.unwrap_or_else(|| self.default_pid());
                let v = self.locate(sim, &var, pid)?;
                let lines = show::show(&m, sim, &v, &range).map_err(|e| e.to_string())?;
                self.say(&lines.join("\n"));
            }
            Command::Trace { var, pid } => {
                let pid = pid.unwrap_or_else(|| self.default_pid());
                let v = self.locate(sim, &var, pid)?;
                let words = show::words_of(&m, v.ty);
                self.traces.retain(|t| !(t.name == var && t.pid == pid));
                self.traces.push(Trace { name: var.clone(), pid, lo: v.addr, hi: v.addr + words, var: v.clone() });
                self.sync(sim);
                let last = v.addr + words - 1;
                let at =
                    if words == 1 { format!("address {}", v.addr) } else { format!("addresses {}..{last}", v.addr) };
                self.say(&format!("Tracing {var} of process {pid} ({at})."));
            }
            Command::Untrace(var) => {
                let before = self.traces.len();
                self.traces.retain(|t| t.name != var);
                if self.traces.len() == before {
                    return Err(format!("`{var}` is not traced"));
                }
                self.sync(sim);
                self.say(&format!("No longer tracing {var}."));
            }
            Command::Status(range) => self.status(sim, range)?,
            Command::Where(pid) => {
                let pid = pid.unwrap_or_else(|| self.default_pid());
                self.active(sim, pid)?;
                let frames = sim.call_stack(pid).ok_or_else(|| format!("process {pid} has ended"))?;
                // The library's own helpers (`__cppe_…`) are not the program's: the call
                // the program made (`MPI_Recv`) is the innermost frame shown.
                let lines: Vec<String> = frames
                    .iter()
                    .filter(|f| !f.function.starts_with("__cppe_"))
                    .enumerate()
                    .map(|(k, f)| {
                        let args: Vec<String> = f.args.iter().map(|&w| show::word_text(w)).collect();
                        format!("#{k}  {}({}) at line {}", f.function, args.join(", "), f.line)
                    })
                    .collect();
                self.say(&format!("Process {pid}:\n{}", lines.join("\n")));
            }
            Command::List(range) => {
                let total = m.source.lines().count() as u32;
                let (lo, hi) = range.map_or((1, total), |s| (s.lo.max(1), s.hi.min(total)));
                if lo > hi {
                    return Err(format!("the program has {total} lines"));
                }
                let text: Vec<String> = (lo..=hi).map(|l| self.source_line(l).trim_end().to_string()).collect();
                self.say(&text.join("\n"));
            }
            Command::Vcode(range) => {
                let text = match range {
                    None => listing::listing(&m),
                    Some(s) => listing::listing_range(&m, s.lo, s.hi),
                };
                self.say(&text);
            }
            Command::Mem(range) => {
                let n = sim.memory_words();
                let (lo, hi) = match range {
                    Some(s) => (s.lo, s.hi),
                    None => (0, m.globals_words.clamp(1, 64) - 1),
                };
                if lo >= n {
                    return Err(format!("address {lo} is outside the memory pool (0..{n})"));
                }
                let hi = hi.min(n - 1);
                if hi - lo >= show::MAX_VALUES as u32 {
                    return Err(format!("more than {} words: give a smaller range", show::MAX_VALUES));
                }
                let mut s = String::from("  addr  value         pproc\n");
                for a in lo..=hi {
                    if let Some((w, owner)) = sim.word(a) {
                        let _ = writeln!(s, "{a:>6}  {:<12}  {owner}", show::word_text(w));
                    }
                }
                self.say(&s);
            }
            Command::Time => {
                if phase == Phase::NotStarted {
                    return Err("the program is not running".into());
                }
                let st = self.last.clone().unwrap_or_else(|| sim.stats_so_far());
                let (t, q) = (st.par_ticks, st.seq_ticks);
                let (t0, q0) = self.since;
                let speedup = |seq: Ticks, par: Ticks| if par == 0 { 0.0 } else { seq as f64 / par as f64 };
                // Processors used: those with busy time, since the start and since the
                // last suspension.
                let used = st.busy.iter().filter(|(_, b)| *b > 0).count();
                let used_since = st.busy.iter().filter(|&&(p, b)| b > self.busy_at_suspension(p)).count();
                self.say(&format!(
                    "Since the start: elapsed {}, sequential {}, speedup {:.2}, processors used {used}\n\
                     Since the last suspension (time {}): elapsed {}, sequential {}, speedup {:.2}, processors used {used_since}",
                    format_time(t),
                    format_time(q),
                    speedup(q, t),
                    format_time(t0),
                    format_time(t.saturating_sub(t0)),
                    format_time(q.saturating_sub(q0)),
                    speedup(q.saturating_sub(q0), t.saturating_sub(t0)),
                ));
            }
            Command::Util(range) => {
                if phase == Phase::NotStarted {
                    return Err("the program is not running".into());
                }
                let st = self.last.clone().unwrap_or_else(|| sim.stats_so_far());
                let t0 = self.since.0;
                let span = st.par_ticks.saturating_sub(t0);
                let mut s = format!(
                    "Utilization at time {} (and since the last suspension, time {}):\n",
                    format_time(st.par_ticks),
                    format_time(t0)
                );
                let mut any = false;
                for ((p, u), (_, busy)) in st.utilization().into_iter().zip(st.busy.iter()) {
                    if range.is_none_or(|r| (r.lo..=r.hi).contains(&p)) {
                        any = true;
                        let recent = busy.saturating_sub(self.busy_at_suspension(p));
                        let ur = if span == 0 { 0.0 } else { 100.0 * recent as f64 / span as f64 };
                        let _ = writeln!(
                            s,
                            "  Processor {p}: busy {}, {u:.1}%; since: busy {}, {ur:.1}%",
                            format_time(*busy),
                            format_time(recent)
                        );
                    }
                }
                if !any {
                    return Err("no used physical processor in that range".into());
                }
                self.say(&s);
            }
            Command::Profile(step, range) => {
                if phase == Phase::NotStarted {
                    return Err("the program is not running".into());
                }
                self.say(&profile(sim, step, range)?);
            }
            Command::Alarm(t) => {
                if phase == Phase::Finished {
                    return Err("the program has ended".into());
                }
                match t {
                    Some(t) if phase == Phase::Suspended && t <= sim.now() => {
                        return Err(format!("time {} has passed (it is {})", format_time(t), format_time(sim.now())));
                    }
                    Some(t) => self.say(&format!("Alarm at time {}.", format_time(t))),
                    None => self.say("Alarm off."),
                }
                sim.set_alarm(t);
            }
            Command::Params => {
                let mut s = String::new();
                for (k, v) in sim.network().params().to_pairs() {
                    let _ = writeln!(s, "  {k:<17}{v}");
                }
                let _ = writeln!(s, "  {:<17}{} (fixed for the run)", "quantum", format_time(sim.quantum()));
                let changed = changed_costs(sim.costs());
                let _ = writeln!(s, "  {:<17}{}", "cost", if changed.is_empty() { "defaults".into() } else { changed });
                self.say(&s);
            }
            Command::Set { param, value } => {
                if phase == Phase::Finished {
                    return Err("the program has ended".into());
                }
                if param == "cost" {
                    let mut c = sim.costs().clone();
                    c.apply(&value).map_err(|e| e.to_string())?;
                    sim.set_costs(c);
                } else if crate::sim::params::info(&param).is_some_and(|i| i.at_stop) {
                    let mut p = sim.network().params().clone();
                    p.set(&param, &value).map_err(|e| e.to_string())?;
                    sim.network_mut().set_params(p).map_err(|e| e.to_string())?;
                } else if crate::sim::setup::RunOptions::names().contains(&param.as_str()) {
                    return Err(format!("`{param}` is fixed when the run starts"));
                } else {
                    let settable = crate::sim::params::all().filter(|i| i.at_stop).map(|i| i.name);
                    let known: Vec<&str> = settable.chain(["cost"]).collect();
                    return Err(format!("unknown parameter `{param}` (known: {})", known.join(", ")));
                }
                self.changes.push((sim.now(), format!("{param} {value}")));
                self.say(&format!("{param} = {value}; messages and instructions from now on use it."));
            }
        }
        Ok(None)
    }

    fn status(&mut self, sim: &Simulator<'_>, range: Option<Span>) -> Result<(), String> {
        let procs = sim.processes();
        let rows: Vec<_> = procs
            .iter()
            .filter(|p| match range {
                Some(r) => (r.lo..=r.hi).contains(&p.pid),
                None => p.state != ProcState::Ended,
            })
            .collect();
        if rows.is_empty() {
            return Err(match range {
                Some(r) => format!("no process in {}..{} ({} created)", r.lo, r.hi, procs.len()),
                None => "no active process".into(),
            });
        }
        let mut s = String::from("  pid  function      line  state                         vproc  pproc  clock\n");
        for p in rows {
            let state = if Some(p.pid) == self.current && !self.ended {
                "running".to_string()
            } else if let Some(w) = sim.mpi_wait(p.pid) {
                format!("blocked ({w})")
            } else {
                state_text(&self.module, p.state)
            };
            let _ = writeln!(
                s,
                "{:>5}  {:<12} {:>5}  {:<28} {:>6} {:>6}  {}",
                p.pid,
                p.function,
                p.line,
                state,
                p.vproc,
                p.pproc,
                format_time(p.clock)
            );
        }
        self.say(&s);
        Ok(())
    }
}

/// `name[i][j]` of the channel element at `addr`.
fn channel_name(m: &Module, addr: u32) -> String {
    for c in &m.channels {
        let count: u32 = c.dims.iter().product::<u32>().max(1);
        if (c.base..c.base.saturating_add(count)).contains(&addr) {
            let mut e = addr - c.base;
            let mut idx = Vec::new();
            for &d in c.dims.iter().rev() {
                idx.push(e % d.max(1));
                e /= d.max(1);
            }
            let mut s = c.name.clone();
            for i in idx.iter().rev() {
                let _ = write!(s, "[{i}]");
            }
            return s;
        }
    }
    format!("address {addr}")
}

fn state_text(m: &Module, s: ProcState) -> String {
    use crate::trace::Reason as R;
    match s {
        ProcState::Ready => "ready".into(),
        ProcState::Delayed => "delayed".into(),
        ProcState::Spinning => "spinning".into(),
        ProcState::Ended => "ended".into(),
        ProcState::Blocked(r) => match r {
            R::Channel { channel, index } => {
                let base = m.channels.get(channel as usize).map_or(u32::MAX, |c| c.base);
                format!("blocked (receive {})", channel_name(m, base.saturating_add(index)))
            }
            R::Join => "blocked (join)".into(),
            R::Forall => "blocked (forall children)".into(),
            R::RemoteRead { owner } => format!("blocked (remote read, pp {owner})"),
            R::Delay { .. } => "delayed".into(),
            R::Lock { lock } => format!("spinning (lock {lock})"),
            R::Children => "blocked (children)".into(),
            R::None | R::Quantum => "ready".into(),
        },
    }
}

/// `OP=T` for every instruction whose cost differs from the default.
fn changed_costs(c: &CostTable) -> String {
    let d = CostTable::default();
    let v: Vec<String> = crate::vcode::Op::ALL
        .iter()
        .filter(|&&op| c.get(op) != d.get(op))
        .map(|&op| format!("{}={}", op.mnemonic(), c.get(op)))
        .collect();
    v.join(" ")
}

/// The utilization profile of the quanta run so far, re-binned to rows of `step`
/// (a multiple of the recorded row length).
fn profile(sim: &mut Simulator<'_>, step: Option<Ticks>, range: Option<Span>) -> Result<String, String> {
    let mut st = sim.stats_so_far();
    if let Some(r) = range {
        // The columns are the used processors: keep those of the range.
        st.busy.retain(|&(p, _)| (r.lo..=r.hi).contains(&p));
        if st.busy.is_empty() {
            return Err("no used physical processor in that range".into());
        }
    }
    if st.profile_step == 0 {
        // Recording one costs memory and speed in every quantum: only when asked for.
        return Err("no profile is being recorded: start cpss with --profile".into());
    }
    let rec = st.profile_step;
    let step = step.unwrap_or((10 * crate::time::TICKS_PER_UNIT).max(rec));
    if step % rec != 0 {
        return Err(format!("the profile is recorded in rows of {}: give a multiple of it", format_time(rec)));
    }
    let k = (step / rec) as usize;
    // Whole quanta only: the current one is still running.
    st.par_ticks = sim.global_clock() / rec * rec;
    let rows: Vec<Vec<Ticks>> = st
        .profile
        .chunks(k)
        .map(|c| {
            let mut sum = vec![0; c.first().map_or(0, |r| r.len())];
            for r in c {
                for (s, v) in sum.iter_mut().zip(r) {
                    *s += v;
                }
            }
            sum
        })
        .collect();
    st.profile = rows;
    st.profile_step = step;
    if st.par_ticks == 0 {
        return Err("no quantum has run yet".into());
    }
    Ok(st.to_profile())
}

#[cfg(test)]
mod tests;
