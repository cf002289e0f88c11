//! The run's own parameters, one row each (see [`crate::params`]), and every parameter
//! of a run — the network's ([`crate::net::params`]) then these — for what enumerates
//! them: `cpss`'s flags (a [`clap::Args`] built from the rows), `--list-params`, config
//! files and `--sweep` (through [`super::setup::RunOptions::set`]), the debugger's `set`.
//!
//! The limits that stop a run are rows too, of a kind that may be `none` (no limit).
//! Options that are not numbers or words of a fixed set — the topologies, the mapping, a
//! cost override, a machine file — are flags of their own, and so are the choices of what
//! to report (`--profile`, `--stats`, `--link-stats`), which change no simulated time.
use super::setup::RunOptions;
use crate::net::params as net;
use crate::params::{Info, Kind, Param, Value};

/// A factor of the machine parameters (the `--scale-…` flags).
const FACTOR: Kind = Kind::Real { min: 1e-6, max: 1e6 };
/// A simulated time, or none.
const TIME_OR_NONE: Kind = Kind::OrNone(&Kind::Time { positive: false });
/// A count, or none.
const COUNT_OR_NONE: Kind = Kind::OrNone(&Kind::Whole { min: 0, max: u64::MAX, unit: "" });

/// A limit with a default (a field whose type ends at `largest`): `none` lifts it to the
/// largest value.
fn lifted(v: Value, largest: u64) -> u64 {
    v.opt_whole().map_or(largest, |n| n.min(largest))
}

/// The same limit as its row reads it: the largest value is `none`.
fn limit_value(n: u64, largest: u64) -> Value {
    if n == largest {
        Value::None
    } else {
        Value::Whole(n)
    }
}

/// The largest `u32` limit.
const U32: u64 = u32::MAX as u64;

/// The run's parameters beyond the network's.
pub const PARAMS: &[Param<RunOptions>] = &[
    Param {
        info: Info {
            name: "quantum",
            kind: Kind::Time { positive: true },
            default: "10",
            doc: "scheduling quantum: a processor's turn, and the step at which packets advance and writes land",
            models: "all",
            at_stop: false,
        },
        apply: |o, v| o.quantum = Some(v.ticks()),
        read: |o| Value::Time(o.quantum.unwrap_or(super::SimConfig::default().quantum)),
    },
    Param {
        info: Info {
            name: "fork-args",
            kind: Kind::Choice(&["parent", "child"]),
            default: "parent",
            doc: "whose time evaluating a fork's function arguments is: the parent's (it pays for them before the FORK) or the child's (the parent pays for the virtual processor, the channels and the FORK; the child starts that much later, busy on its processor); man page, Process creation",
            models: "all",
            at_stop: false,
        },
        apply: |o, v| o.fork_args_child = v.choice() == "child",
        read: |o| Value::Choice(if o.fork_args_child { "child" } else { "parent" }),
    },
    Param {
        info: Info {
            name: "seed",
            kind: Kind::Whole { min: 0, max: u64::MAX, unit: "" },
            default: "0",
            doc: "seed of rand(), of the random mapping and of a machine file's sampled timings (xoshiro256** seeded by SplitMix64, a stream that does not change between versions)",
            models: "all",
            at_stop: false,
        },
        apply: |o, v| o.seed = v.whole(),
        read: |o| Value::Whole(o.seed),
    },
    Param {
        info: Info {
            name: "scale-costs",
            kind: FACTOR,
            default: "1",
            doc: "multiply every instruction cost by this factor (a slower or faster clock)",
            models: "all",
            at_stop: false,
        },
        apply: |o, v| o.scale_costs = Some(v.real()),
        read: |o| Value::Real(o.scale_costs.unwrap_or(1.0)),
    },
    Param {
        info: Info {
            name: "scale-link-speed",
            kind: FACTOR,
            default: "1",
            doc: "make every link this many times as fast (its time per flit divided by it)",
            models: "all",
            at_stop: false,
        },
        apply: |o, v| o.scale_link_speed = Some(v.real()),
        read: |o| Value::Real(o.scale_link_speed.unwrap_or(1.0)),
    },
    Param {
        info: Info {
            name: "scale-latency",
            kind: FACTOR,
            default: "1",
            doc: "multiply every link latency (machine files) by this factor",
            models: "all",
            at_stop: false,
        },
        apply: |o, v| o.scale_latency = Some(v.real()),
        read: |o| Value::Real(o.scale_latency.unwrap_or(1.0)),
    },
    Param {
        info: Info {
            name: "vary-speed",
            kind: COUNT_OR_NONE,
            default: "none",
            doc: "make processor i 1/r_i times as fast, r_i in (0,1] drawn from this seed, not from --seed (seed 000 §4.2.3; three decimals, at least 0.001): no processor is slower than without it, and the sequential time is not scaled",
            models: "all",
            at_stop: false,
        },
        apply: |o, v| o.vary_speed = v.opt_whole(),
        read: |o| o.vary_speed.map_or(Value::None, Value::Whole),
    },
    Param {
        info: Info {
            name: "alarm",
            kind: TIME_OR_NONE,
            default: "none",
            doc: "stop at this simulated time and report the statistics so far (exit 0; under --debug, suspend there instead)",
            models: "all",
            at_stop: false,
        },
        apply: |o, v| o.alarm = v.opt_ticks(),
        read: |o| o.alarm.map_or(Value::None, Value::Time),
    },
    Param {
        info: Info {
            name: "max-time",
            kind: TIME_OR_NONE,
            default: "none",
            doc: "stop with exit status 3 when the simulated time passes this",
            models: "all",
            at_stop: false,
        },
        apply: |o, v| o.max_time = v.opt_ticks(),
        read: |o| o.max_time.map_or(Value::None, Value::Time),
    },
    Param {
        info: Info {
            name: "max-steps",
            kind: COUNT_OR_NONE,
            default: "none",
            doc: "stop with exit status 3 after this many instructions (a loop running with time off never advances the clock: use this)",
            models: "all",
            at_stop: false,
        },
        apply: |o, v| o.max_steps = v.opt_whole(),
        read: |o| o.max_steps.map_or(Value::None, Value::Whole),
    },
    Param {
        info: Info {
            name: "max-procs",
            kind: Kind::OrNone(&Kind::Whole { min: 0, max: U32, unit: "" }),
            default: "65536",
            doc: "stop with exit status 3 when more processes than this are alive (a fork bomb stops here, before the host runs out of memory)",
            models: "all",
            at_stop: false,
        },
        apply: |o, v| o.max_procs = Some(lifted(v, U32) as u32),
        read: |o| limit_value(u64::from(o.max_procs.unwrap_or(super::SimConfig::default().max_procs)), U32),
    },
    Param {
        info: Info {
            name: "max-memory",
            kind: Kind::OrNone(&Kind::Whole { min: 0, max: U32, unit: "words" }),
            default: "268435456",
            doc: "size of the memory pool; exhausting it stops the run with exit status 3 (so does a stack beyond 4194304 words: unbounded recursion)",
            models: "all",
            at_stop: false,
        },
        apply: |o, v| o.max_memory = Some(lifted(v, U32) as u32),
        read: |o| limit_value(u64::from(o.max_memory.unwrap_or(super::SimConfig::default().max_memory)), U32),
    },
    Param {
        info: Info {
            name: "max-messages",
            kind: COUNT_OR_NONE,
            default: "4194304",
            doc: "stop with exit status 3 when more messages than this are sent and not yet received (each holds host memory; their words are bounded too, at 2^25)",
            models: "all",
            at_stop: false,
        },
        apply: |o, v| o.max_messages = Some(lifted(v, u64::MAX)),
        read: |o| limit_value(o.max_messages.unwrap_or(super::SimConfig::default().max_messages), u64::MAX),
    },
    Param {
        info: Info {
            name: "max-output",
            kind: Kind::OrNone(&Kind::Whole { min: 0, max: u64::MAX, unit: "bytes" }),
            default: "67108864",
            doc: "stop with exit status 3 when the program has written this many bytes (standard output, standard error and its files together; the write that passes it is cut there); cpss --trust makes the default none",
            models: "all",
            at_stop: false,
        },
        apply: |o, v| o.max_output = Some(lifted(v, u64::MAX)),
        read: |o| limit_value(o.max_output.unwrap_or(super::setup::DEFAULT_MAX_OUTPUT), u64::MAX),
    },
];

/// Every parameter of a run, the network's first, in the order `cpss --list-params`
/// prints them.
pub fn all() -> impl Iterator<Item = &'static Info> {
    net::PARAMS.iter().map(|p| &p.info).chain(PARAMS.iter().map(|p| &p.info))
}

/// The row of `name`, if it is a parameter.
pub fn info(name: &str) -> Option<&'static Info> {
    all().find(|i| i.name == name)
}

/// The listing of `cpss --list-params`: one row per parameter with its unit, default,
/// range, models, whether the debugger may set it, and what it is.
pub fn listing_text() -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<17} {:<11} {:<9} {:<29} {:<9} {:<4} description",
        "parameter", "unit", "default", "range", "models", "set"
    );
    for i in all() {
        let _ = writeln!(
            s,
            "{:<17} {:<11} {:<9} {:<29} {:<9} {:<4} {}",
            i.name,
            if i.unit().is_empty() { "-" } else { i.unit() },
            i.default,
            i.range(),
            i.models,
            if i.at_stop { "yes" } else { "no" },
            i.doc
        );
    }
    s
}

/// The same as one JSON array of objects (`name`, `unit`, `default`, `range`, `models`,
/// `debugger_set`, `doc`).
pub fn listing_json() -> String {
    let rows: Vec<serde_json::Value> = all()
        .map(|i| {
            serde_json::json!({
                "name": i.name,
                "unit": i.unit(),
                "default": i.default,
                "range": i.range(),
                "models": i.models,
                "debugger_set": i.at_stop,
                "doc": i.doc,
            })
        })
        .collect();
    let mut s = serde_json::to_string_pretty(&rows).unwrap_or_default();
    s.push('\n');
    s
}

/// The man page's parameter table (`man/cpss.1`, OPTIONS, Parameters), which a test
/// checks against the rows.
pub fn man_table() -> String {
    let esc = |t: &str| t.replace('-', "\\-");
    let mut s = String::new();
    for i in all() {
        s.push_str(&format!(".TP\n.BI \\-\\-{} \" {}\"\n", esc(i.name), i.value_name()));
        let mut line = capitalized(i.doc);
        if !i.unit().is_empty() {
            line.push_str(&format!(", in {}", i.unit()));
        }
        line.push_str(&format!(". Default {}; valid {}; models: {}", i.default, i.range(), i.models));
        if i.at_stop {
            line.push_str("; the debugger may set it at a stop");
        }
        s.push_str(&esc(&line));
        s.push_str(".\n");
    }
    s
}

/// `text` with its first letter in upper case.
fn capitalized(text: &str) -> String {
    let mut c = text.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

/// The parameters as `cpss` flags: `--NAME VALUE` for every row, with its default. Take
/// [`ParamFlags::values`] after parsing and give each to [`RunOptions::set`].
#[derive(Debug, Clone, Default)]
pub struct ParamFlags {
    /// Every parameter's value, given or default, in [`all`] order.
    pub values: Vec<(&'static str, String)>,
}

impl clap::FromArgMatches for ParamFlags {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let values = all().filter_map(|i| m.get_one::<String>(i.name).map(|v| (i.name, v.clone()))).collect();
        Ok(ParamFlags { values })
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for ParamFlags {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let mut cmd = cmd;
        for i in all() {
            let mut arg = clap::Arg::new(i.name)
                .long(i.name)
                .value_name(i.value_name())
                .help(help(i))
                .help_heading("Parameters (cpss --list-params)")
                // `--seed -1` is a value the row's own check refuses with its range,
                // not an unknown argument clap would tell to pass after `--` (to the
                // program).
                .allow_negative_numbers(true);
            // A row that may be none is recorded only when given; its default shows in
            // the help all the same.
            arg = match i.kind {
                Kind::OrNone(_) => arg.help(format!("{} [default: {}]", help(i), i.default)),
                _ => arg.default_value(i.default),
            };
            if let Kind::Choice(words) = i.kind {
                arg = arg.value_parser(clap::builder::PossibleValuesParser::new(words.iter().copied()));
            }
            cmd = cmd.arg(arg);
        }
        cmd
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

/// A row's one-line help: its doc, unit and models.
fn help(i: &Info) -> String {
    let mut h = capitalized(i.doc);
    let mut notes: Vec<String> = Vec::new();
    if !i.unit().is_empty() {
        notes.push(format!("in {}", i.unit()));
    }
    if i.models != "all" {
        notes.push(i.models.to_string());
    }
    if !notes.is_empty() {
        h.push_str(&format!(" ({})", notes.join("; ")));
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lifted_limit_reads_none_and_a_given_one_itself() {
        // `none` lifts a bound to its field's largest value (a u32 for processes and
        // words, a u64 for messages) or leaves an optional one unset; each reads back
        // as written.
        let mut o = RunOptions::default();
        for name in ["vary-speed", "alarm", "max-time", "max-steps", "max-procs", "max-memory", "max-messages"] {
            let p = crate::params::find(PARAMS, name).unwrap();
            p.set(&mut o, "none").unwrap();
            assert_eq!(p.get(&o), "none", "{name}");
        }
        assert_eq!((o.max_procs, o.max_memory, o.max_messages), (Some(u32::MAX), Some(u32::MAX), Some(u64::MAX)));
        assert_eq!((o.vary_speed, o.alarm, o.max_time, o.max_steps), (None, None, None, None));
        for name in ["vary-speed", "alarm", "max-time", "max-steps", "max-procs", "max-memory", "max-messages"] {
            let p = crate::params::find(PARAMS, name).unwrap();
            p.set(&mut o, "7").unwrap();
            assert_eq!(p.get(&o), "7", "{name}");
        }
        // 7 units are 7000 ticks.
        assert_eq!((o.max_procs, o.max_messages, o.alarm), (Some(7), Some(7), Some(7000)));
        // Beyond a u32 is refused for the u32 limits.
        assert!(crate::params::find(PARAMS, "max-procs").unwrap().set(&mut o, "4294967296").is_err());
    }

    #[test]
    fn every_run_default_parses_and_reads_back() {
        // RunOptions' defaults read as the table's: quantum 10 units (SimConfig's), seed 0,
        // every factor 1.
        assert_eq!(crate::params::defaults_read_back(PARAMS, &RunOptions::default()), Ok(()));
        let names: Vec<&str> = all().map(|i| i.name).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "a name twice: {names:?}");
    }
}
