//! The debugger's command language: one command per line, words separated by blanks
//! (seed 000 §4.1, App. A 2.3). Parsing is separate from execution so that it can be
//! tested and fuzzed alone; it never panics and reports what is wrong with a line.
//!
//! Ranges: `LO:HI` or `I` per dimension, dimensions separated by `,` (`1:2,0:3`), or in
//! brackets (`[1:2][0:3]`). Depends on nothing else in the crate but `time::parse_time`.
use crate::time::parse_time;
use crate::time::Ticks;

/// An inclusive range of indices, `lo..=hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub lo: u32,
    pub hi: u32,
}

/// One debugger command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Break(u32),
    Clear(u32),
    Run,
    Continue,
    Step(u32),
    Process(u32),
    /// `show VAR [PID] [RANGE]`: per-dimension index ranges (empty: the whole variable).
    Show {
        var: String,
        pid: Option<u32>,
        range: Vec<Span>,
    },
    Trace {
        var: String,
        pid: Option<u32>,
    },
    Untrace(String),
    /// `status [RANGE]` of pids.
    Status(Option<Span>),
    /// `where [PID]` (or `bt`): the call stack.
    Where(Option<u32>),
    List(Option<Span>),
    Vcode(Option<Span>),
    Mem(Option<Span>),
    Time,
    /// `util [RANGE]` of physical processors.
    Util(Option<Span>),
    /// `profile [STEP] [RANGE]` (ticks; physical processors).
    Profile(Option<Ticks>, Option<Span>),
    /// `alarm T` (ticks) or `alarm off`.
    Alarm(Option<Ticks>),
    Params,
    Set {
        param: String,
        value: String,
    },
    Help,
    Quit,
    /// A blank line or a `#` comment.
    Nothing,
}

/// What is wrong with a command line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("unknown command `{0}` (type `help` for the list)")]
    Unknown(String),
    #[error("`{command}` needs {what}")]
    Missing { command: &'static str, what: &'static str },
    #[error("`{command}`: unexpected `{extra}`")]
    Extra { command: &'static str, extra: String },
    #[error("`{text}` is not {what}")]
    Bad { text: String, what: &'static str },
    #[error("bad range `{text}`: {why}")]
    Range { text: String, why: &'static str },
}

/// Names of the commands, for `help` and abbreviations.
pub const COMMANDS: [(&str, &str); 24] = [
    ("break LINE", "suspend every process when one reaches LINE (a line with code)"),
    ("clear LINE", "remove the breakpoint at LINE"),
    ("run", "start the program"),
    ("continue", "resume until the next breakpoint, trace, alarm or the end"),
    ("step [N]", "resume until the step process has begun N more source lines (default 1)"),
    ("process PID", "make PID the step process"),
    ("show VAR [PID] [RANGE]", "print a variable of process PID (default: the suspended one)"),
    ("trace VAR [PID]", "suspend when any process references VAR of process PID"),
    ("untrace VAR", "stop tracing VAR"),
    ("status [RANGE]", "pid, function, line, state, virtual and physical processor, clock"),
    ("where [PID]", "the call stack of PID (default: the suspended one) with arguments; also bt"),
    ("list [FROM TO]", "print source lines"),
    ("vcode [FROM TO]", "print the vCode of source lines FROM..TO"),
    ("mem [FROM TO]", "print memory words with their owning physical processor"),
    ("time", "elapsed time, speedup and processors used since the start and the last suspension"),
    ("util [RANGE]", "utilization of physical processors, overall and since the last suspension"),
    ("profile [STEP] [RANGE]", "utilization profile so far, one row per STEP time units"),
    ("alarm T|off", "suspend when the global clock reaches time T"),
    ("params", "network and cost parameters"),
    ("set PARAM VALUE", "change a network parameter, or an instruction cost (set cost OP=T)"),
    ("help", "this list"),
    ("quit", "end the session"),
    ("RANGE", "LO:HI, LO-HI or I per dimension, separated by `,` (1:2,0:3) or in brackets ([1:2][0:3])"),
    ("#", "a comment"),
];

fn number(text: &str, what: &'static str) -> Result<u32, CommandError> {
    text.parse::<u32>().map_err(|_| CommandError::Bad { text: text.to_string(), what })
}

/// One dimension: `LO:HI`, `LO-HI` or `I` ([`crate::span`]).
fn span(text: &str, whole: &str) -> Result<Span, CommandError> {
    let why = |e| match e {
        crate::span::SpanError::NotANumber => "bounds are whole numbers",
        crate::span::SpanError::Reversed => "the low bound is above the high bound",
    };
    let (lo, hi) =
        crate::span::parse_span(text).map_err(|e| CommandError::Range { text: whole.to_string(), why: why(e) })?;
    Ok(Span { lo, hi })
}

/// A range of one or more dimensions: `1:2,0:3`, `[1:2][0:3]`, `4`.
pub fn parse_range(text: &str) -> Result<Vec<Span>, CommandError> {
    let t = text.trim();
    if let Some(inner) = t.strip_prefix('[') {
        let inner = inner
            .strip_suffix(']')
            .ok_or_else(|| CommandError::Range { text: text.to_string(), why: "a `[` without its `]`" })?;
        return inner.split("][").map(|d| span(d, text)).collect();
    }
    t.split(',').map(|d| span(d, text)).collect()
}

/// `FROM TO` (two numbers), or nothing.
fn from_to(command: &'static str, args: &[&str]) -> Result<Option<Span>, CommandError> {
    match args {
        [] => Ok(None),
        [one] if one.contains([':', '-']) => Ok(Some(span(one, one)?)),
        [one] => {
            let a = number(one, "a number")?;
            Ok(Some(Span { lo: a, hi: a }))
        }
        [a, b] => {
            let (lo, hi) = (number(a, "a number")?, number(b, "a number")?);
            if lo > hi {
                return Err(CommandError::Range { text: format!("{a} {b}"), why: "FROM is after TO" });
            }
            Ok(Some(Span { lo, hi }))
        }
        [_, _, extra, ..] => Err(CommandError::Extra { command, extra: extra.to_string() }),
    }
}

/// A single-dimension range (`status`, `util`), or nothing.
fn one_range(command: &'static str, args: &[&str]) -> Result<Option<Span>, CommandError> {
    match args {
        [] => Ok(None),
        [r] => {
            let v = parse_range(r)?;
            match v.as_slice() {
                [s] => Ok(Some(*s)),
                _ => Err(CommandError::Range { text: r.to_string(), why: "one dimension only" }),
            }
        }
        [_, extra, ..] => Err(CommandError::Extra { command, extra: extra.to_string() }),
    }
}

fn no_args(command: &'static str, args: &[&str], c: Command) -> Result<Command, CommandError> {
    match args.first() {
        None => Ok(c),
        Some(extra) => Err(CommandError::Extra { command, extra: extra.to_string() }),
    }
}

/// Parses one line.
pub fn parse(line: &str) -> Result<Command, CommandError> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(Command::Nothing);
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let (name, args) = match words.split_first() {
        Some((n, a)) => (*n, a),
        None => return Ok(Command::Nothing),
    };
    let line_arg = |command: &'static str| -> Result<u32, CommandError> {
        match args {
            [] => Err(CommandError::Missing { command, what: "a line number" }),
            [l] => number(l, "a line number"),
            [_, extra, ..] => Err(CommandError::Extra { command, extra: extra.to_string() }),
        }
    };
    match name {
        "break" | "b" => line_arg("break").map(Command::Break),
        "clear" => line_arg("clear").map(Command::Clear),
        "run" | "r" => no_args("run", args, Command::Run),
        "continue" | "c" => no_args("continue", args, Command::Continue),
        "step" | "s" => match args {
            [] => Ok(Command::Step(1)),
            [n] => match number(n, "a number of lines")? {
                0 => Err(CommandError::Bad { text: n.to_string(), what: "a number of lines (1 or more)" }),
                k => Ok(Command::Step(k)),
            },
            [_, extra, ..] => Err(CommandError::Extra { command: "step", extra: extra.to_string() }),
        },
        "process" => match args {
            [] => Err(CommandError::Missing { command: "process", what: "a process id" }),
            [p] => Ok(Command::Process(number(p, "a process id")?)),
            [_, extra, ..] => Err(CommandError::Extra { command: "process", extra: extra.to_string() }),
        },
        "show" | "p" | "print" => {
            let Some((var, rest)) = args.split_first() else {
                return Err(CommandError::Missing { command: "show", what: "a variable name" });
            };
            let (pid, rest) = match rest.split_first() {
                Some((p, r)) if p.bytes().all(|b| b.is_ascii_digit()) => (Some(number(p, "a process id")?), r),
                _ => (None, rest),
            };
            let range = match rest {
                [] => Vec::new(),
                [r] => parse_range(r)?,
                [_, extra, ..] => return Err(CommandError::Extra { command: "show", extra: extra.to_string() }),
            };
            Ok(Command::Show { var: var.to_string(), pid, range })
        }
        "trace" => match args {
            [] => Err(CommandError::Missing { command: "trace", what: "a variable name" }),
            [v] => Ok(Command::Trace { var: v.to_string(), pid: None }),
            [v, p] => Ok(Command::Trace { var: v.to_string(), pid: Some(number(p, "a process id")?) }),
            [_, _, extra, ..] => Err(CommandError::Extra { command: "trace", extra: extra.to_string() }),
        },
        "untrace" => match args {
            [] => Err(CommandError::Missing { command: "untrace", what: "a variable name" }),
            [v] => Ok(Command::Untrace(v.to_string())),
            [_, extra, ..] => Err(CommandError::Extra { command: "untrace", extra: extra.to_string() }),
        },
        "status" => one_range("status", args).map(Command::Status),
        "where" | "bt" => match args {
            [] => Ok(Command::Where(None)),
            [p] => Ok(Command::Where(Some(number(p, "a process id")?))),
            [_, extra, ..] => Err(CommandError::Extra { command: "where", extra: extra.to_string() }),
        },
        "list" | "l" => from_to("list", args).map(Command::List),
        "vcode" => from_to("vcode", args).map(Command::Vcode),
        "mem" => from_to("mem", args).map(Command::Mem),
        "time" => no_args("time", args, Command::Time),
        "util" => one_range("util", args).map(Command::Util),
        "profile" => {
            // `profile [STEP] [RANGE]`: a range has `:` or `-`, a step does not.
            let (mut step, mut range) = (None, None);
            if args.len() > 2 {
                return Err(CommandError::Extra { command: "profile", extra: args[2].to_string() });
            }
            for a in args {
                if a.contains([':', '-']) && range.is_none() {
                    range = one_range("profile", &[a])?;
                } else if step.is_none() {
                    step = match parse_time(a) {
                        Ok(0) | Err(_) => {
                            return Err(CommandError::Bad { text: a.to_string(), what: "a positive time step" })
                        }
                        Ok(t) => Some(t),
                    };
                } else {
                    return Err(CommandError::Extra { command: "profile", extra: a.to_string() });
                }
            }
            Ok(Command::Profile(step, range))
        }
        "alarm" => match args {
            [] => Err(CommandError::Missing { command: "alarm", what: "a time or `off`" }),
            ["off"] => Ok(Command::Alarm(None)),
            [t] => parse_time(t)
                .map(|t| Command::Alarm(Some(t)))
                .map_err(|_| CommandError::Bad { text: t.to_string(), what: "a time" }),
            [_, extra, ..] => Err(CommandError::Extra { command: "alarm", extra: extra.to_string() }),
        },
        "params" => no_args("params", args, Command::Params),
        "set" => match args {
            [] | [_] => Err(CommandError::Missing { command: "set", what: "a parameter and a value" }),
            [p, v] => Ok(Command::Set { param: p.to_string(), value: v.to_string() }),
            [_, _, extra, ..] => Err(CommandError::Extra { command: "set", extra: extra.to_string() }),
        },
        "help" | "h" | "?" => Ok(Command::Help),
        "quit" | "q" | "exit" => no_args("quit", args, Command::Quit),
        other => Err(CommandError::Unknown(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_each_command() {
        assert_eq!(parse("break 12"), Ok(Command::Break(12)));
        assert_eq!(parse("  step  "), Ok(Command::Step(1)));
        assert_eq!(parse("step 3"), Ok(Command::Step(3)));
        assert_eq!(parse("show x"), Ok(Command::Show { var: "x".into(), pid: None, range: vec![] }));
        assert_eq!(
            parse("show m 2 1:2,0:3"),
            Ok(Command::Show {
                var: "m".into(),
                pid: Some(2),
                range: vec![Span { lo: 1, hi: 2 }, Span { lo: 0, hi: 3 }]
            })
        );
        // A lone number after the name is a pid; a range needs `:` or brackets.
        assert_eq!(
            parse("show a [4]"),
            Ok(Command::Show { var: "a".into(), pid: None, range: vec![Span { lo: 4, hi: 4 }] })
        );
        assert_eq!(parse("status 0:3"), Ok(Command::Status(Some(Span { lo: 0, hi: 3 }))));
        assert_eq!(parse("list 3 9"), Ok(Command::List(Some(Span { lo: 3, hi: 9 }))));
        // Times are in units: 2.5 units are 2500 ticks.
        assert_eq!(parse("alarm 2.5"), Ok(Command::Alarm(Some(2500))));
        assert_eq!(parse("alarm off"), Ok(Command::Alarm(None)));
        assert_eq!(parse("profile 20"), Ok(Command::Profile(Some(20_000), None)));
        assert_eq!(parse("profile 20 0:3"), Ok(Command::Profile(Some(20_000), Some(Span { lo: 0, hi: 3 }))));
        assert_eq!(parse("profile 1-2"), Ok(Command::Profile(None, Some(Span { lo: 1, hi: 2 }))));
        assert!(parse("profile 1 2").is_err());
        assert_eq!(parse("set link-delay 3"), Ok(Command::Set { param: "link-delay".into(), value: "3".into() }));
        assert_eq!(parse("# note"), Ok(Command::Nothing));
    }

    #[test]
    fn reports_what_is_wrong() {
        assert_eq!(parse("frobnicate"), Err(CommandError::Unknown("frobnicate".into())));
        assert!(matches!(parse("break"), Err(CommandError::Missing { command: "break", .. })));
        assert!(matches!(parse("break x"), Err(CommandError::Bad { .. })));
        assert!(matches!(parse("step 0"), Err(CommandError::Bad { .. })));
        assert!(matches!(parse("show a 0 3:1"), Err(CommandError::Range { .. })));
        assert!(matches!(parse("show a 0 [1:2"), Err(CommandError::Range { .. })));
        assert!(matches!(parse("list 9 3"), Err(CommandError::Range { .. })));
        assert!(matches!(parse("run now"), Err(CommandError::Extra { command: "run", .. })));
        assert!(matches!(parse("status 1:2,3:4"), Err(CommandError::Range { .. })));
        assert_eq!(
            parse("break 99999999999").unwrap_err().to_string(),
            "`99999999999` is not a line number",
            "larger than any u32"
        );
    }

    proptest! {
        #[test]
        fn never_panics(line in "\\PC{0,40}") {
            let _ = parse(&line);
        }

        #[test]
        fn ranges_round_trip(lo in 0u32..1000, len in 0u32..1000, lo2 in 0u32..10) {
            let hi = lo + len;
            let text = format!("{lo}:{hi},{lo2}");
            prop_assert_eq!(parse_range(&text), Ok(vec![Span { lo, hi }, Span { lo: lo2, hi: lo2 }]));
            prop_assert_eq!(parse_range(&format!("[{lo}:{hi}][{lo2}]")), Ok(vec![Span { lo, hi }, Span { lo: lo2, hi: lo2 }]));
        }
    }
}
