//! Options kept in files: a tool's long options from a TOML configuration file or from a
//! run record's configuration, merged under the command line.
//!
//! A configuration is a list of layers, lowest precedence first (for `cpss`: `cppe.toml`
//! in the working directory, then `--config FILE`, then `--config-from RUN.cpt`); an
//! option in a later layer replaces the same option in an earlier one, and an option on
//! the command line replaces it in every layer, as does a command-line option that
//! conflicts with it (`--machine` on the command line drops a configured `topology`).
//! The merge works on the tool's own `clap` definition, so a configuration holds exactly
//! the long options `--help` lists, under the same names, and its values are checked by
//! the same parser as the command line's.
//!
//! In TOML a key is a long option without its dashes (`link-delay`, or `link_delay`); a
//! value is a string, a number, a boolean (`true` gives a flag, `false` leaves it out)
//! or an array of those for an option that may be repeated (`cost = ["ADD=2", "MUL=4"]`).
//! Keys may also sit in a table named after the tool (`[cpss]`).
use clap::parser::ValueSource;
use clap::{Arg, ArgMatches, Command};
use std::ffi::OsString;

/// An option that a configuration cannot give, or a configuration that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// TOML that does not parse: where (1-based line and column), what, and the line
    /// with a caret under the place.
    #[error("{source_name}:{line}:{col}: {message}\n{snippet}")]
    Syntax { source_name: String, line: usize, col: usize, message: String, snippet: String },
    #[error("{source_name}{}: `{key}` is not a long option of {tool} (see {tool} --help){hint}", line_suffix(*.line))]
    Unknown { source_name: String, line: Option<usize>, key: String, tool: String, hint: String },
    #[error("{source_name}{}: `{key}` cannot be given in a configuration", line_suffix(*.line))]
    Refused { source_name: String, line: Option<usize>, key: String },
    #[error("{source_name}{}: `{key}`: {message}", line_suffix(*.line))]
    Value { source_name: String, line: Option<usize>, key: String, message: String },
}

fn line_suffix(line: Option<usize>) -> String {
    line.map(|l| format!(":{l}")).unwrap_or_default()
}

/// One option of a layer: its long name and values (none for a flag).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: String,
    pub values: Vec<String>,
    /// The line it was given on, for messages.
    pub line: Option<usize>,
}

/// The options of one configuration source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    /// The file the options came from, for messages.
    pub source_name: String,
    pub entries: Vec<Entry>,
}

/// The line of `text` on which `key` is assigned, if it can be found.
fn line_of(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let l = l.trim_start();
            let l = l.strip_prefix('"').unwrap_or(l);
            l.strip_prefix(key).is_some_and(|rest| {
                let rest = rest.strip_prefix('"').unwrap_or(rest).trim_start();
                rest.starts_with('=')
            })
        })
        .map(|i| i + 1)
}

impl Layer {
    /// Reads a TOML configuration of `tool` from `text` (named `source_name`).
    pub fn from_toml(source_name: &str, tool: &str, text: &str) -> Result<Layer, ConfigError> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let at = e.span().map_or(0, |s| s.start).min(text.len());
            let before = text.get(..at).unwrap_or("");
            let line = before.matches('\n').count() + 1;
            let start = before.rfind('\n').map_or(0, |i| i + 1);
            let col = text.get(start..at).map_or(0, |s| s.chars().count()) + 1;
            let line_text = text[start..].lines().next().unwrap_or("");
            let snippet = crate::textio::snippet(line as u32, col as u32, line_text, 1);
            ConfigError::Syntax {
                source_name: source_name.to_string(),
                line,
                col,
                message: e.message().trim_end().replace('\n', " "),
                snippet: snippet.trim_end().to_string(),
            }
        })?;
        let mut entries = Vec::new();
        let value_err = |key: &str, message: String| ConfigError::Value {
            source_name: source_name.to_string(),
            line: line_of(text, key),
            key: key.to_string(),
            message,
        };
        let mut add = |key: &str, v: &toml::Value| -> Result<(), ConfigError> {
            let scalar = |v: &toml::Value| -> Result<Option<String>, ConfigError> {
                Ok(match v {
                    toml::Value::String(s) => Some(s.clone()),
                    toml::Value::Integer(i) => Some(i.to_string()),
                    toml::Value::Float(f) => Some(f.to_string()),
                    toml::Value::Boolean(_) => None,
                    other => return Err(value_err(key, format!("a {} is not an option value", other.type_str()))),
                })
            };
            let line = line_of(text, key);
            let entry = |values| Entry { key: key.replace('_', "-"), values, line };
            match v {
                toml::Value::Boolean(false) => {}
                toml::Value::Boolean(true) => entries.push(entry(Vec::new())),
                toml::Value::Array(items) => {
                    let mut values = Vec::new();
                    for item in items {
                        match scalar(item)? {
                            Some(s) => values.push(s),
                            None => return Err(value_err(key, "an array holds values, not booleans".into())),
                        }
                    }
                    entries.push(entry(values));
                }
                other => entries.push(entry(scalar(other)?.into_iter().collect())),
            }
            Ok(())
        };
        for (key, v) in &table {
            match v {
                toml::Value::Table(inner) if key == tool => {
                    for (k, v) in inner {
                        add(k, v)?;
                    }
                }
                toml::Value::Table(_) => {
                    return Err(ConfigError::Refused {
                        source_name: source_name.to_string(),
                        line: text.lines().position(|l| l.trim() == format!("[{key}]")).map(|i| i + 1),
                        key: format!("[{key}]"),
                    })
                }
                _ => add(key, v)?,
            }
        }
        Ok(Layer { source_name: source_name.to_string(), entries })
    }

    /// A layer from `(name, value)` pairs as [`recorded`] gives them (a flag's value is
    /// `true`; a repeated option appears once per value).
    pub fn from_pairs(source_name: &str, pairs: &[(String, String)]) -> Layer {
        let mut entries: Vec<Entry> = Vec::new();
        for (k, v) in pairs {
            match entries.iter_mut().find(|e| &e.key == k) {
                Some(e) => e.values.push(v.clone()),
                None => entries.push(Entry { key: k.clone(), values: vec![v.clone()], line: None }),
            }
        }
        Layer { source_name: source_name.to_string(), entries }
    }
}

fn long_arg<'c>(cmd: &'c Command, key: &str) -> Option<&'c Arg> {
    cmd.get_arguments().find(|a| a.get_long() == Some(key))
}

/// Whether `a` takes values (a flag does not).
fn takes_values(a: &Arg) -> bool {
    a.get_action().takes_values()
}

/// The command line `argv` with the options of `layers` (lowest precedence first) put
/// before its own, leaving out what the command line gives itself or conflicts with.
/// `refused` names long options a configuration may not hold. `argv` must already parse
/// (the caller parsed it to find its configuration files).
pub fn merged_args(
    cmd: &Command,
    argv: &[OsString],
    layers: &[Layer],
    refused: &[&str],
) -> Result<Vec<OsString>, ConfigError> {
    let mut cmd = cmd.clone();
    cmd.build();
    let given = cmd.clone().try_get_matches_from(argv).ok();
    let on_command_line =
        |id: &str| given.as_ref().is_some_and(|m| m.value_source(id) == Some(ValueSource::CommandLine));
    // Later layers replace earlier ones, option by option.
    let mut chosen: Vec<(&Entry, &Layer)> = Vec::new();
    for layer in layers {
        for e in &layer.entries {
            let Some(arg) = long_arg(&cmd, &e.key) else {
                return Err(ConfigError::Unknown {
                    source_name: layer.source_name.clone(),
                    line: e.line,
                    key: e.key.clone(),
                    tool: cmd.get_name().to_string(),
                    hint: crate::textio::did_you_mean(&e.key, cmd.get_arguments().filter_map(Arg::get_long)),
                });
            };
            if refused.contains(&e.key.as_str()) || arg.is_positional() {
                return Err(ConfigError::Refused {
                    source_name: layer.source_name.clone(),
                    line: e.line,
                    key: e.key.clone(),
                });
            }
            let bad = |message: &str| ConfigError::Value {
                source_name: layer.source_name.clone(),
                line: e.line,
                key: e.key.clone(),
                message: message.to_string(),
            };
            let repeatable = matches!(arg.get_action(), clap::ArgAction::Append);
            match (takes_values(arg), e.values.len()) {
                (false, 0) => {}
                (false, _) if e.values != ["true"] => return Err(bad("a flag takes `true` or `false`")),
                (true, 0) if arg.get_num_args().is_none_or(|r| r.min_values() > 0) => return Err(bad("needs a value")),
                (true, n) if n > 1 && !repeatable => return Err(bad("takes one value, not an array")),
                _ => {}
            }
            chosen.retain(|(c, _)| c.key != e.key);
            chosen.push((e, layer));
        }
    }
    let conflicts = |a: &Arg, b: &Arg| {
        cmd.get_arg_conflicts_with(a).iter().any(|c| c.get_id() == b.get_id())
            || cmd.get_arg_conflicts_with(b).iter().any(|c| c.get_id() == a.get_id())
    };
    let mut out = vec![argv.first().cloned().unwrap_or_else(|| OsString::from(cmd.get_name()))];
    for (e, _) in &chosen {
        let Some(arg) = long_arg(&cmd, &e.key) else { continue };
        let overridden = on_command_line(arg.get_id().as_str())
            || cmd.get_arguments().any(|other| {
                other.get_id() != arg.get_id() && on_command_line(other.get_id().as_str()) && conflicts(arg, other)
            });
        if overridden {
            continue;
        }
        if !takes_values(arg) || e.values.is_empty() {
            out.push(OsString::from(format!("--{}", e.key)));
        }
        for v in &e.values {
            if takes_values(arg) {
                out.push(OsString::from(format!("--{}={v}", e.key)));
            }
        }
    }
    out.extend(argv.iter().skip(1).cloned());
    Ok(out)
}

/// The options in effect after parsing, as `(long name, value)` pairs in `--help` order,
/// defaults included and `skip` left out: what a run record keeps so that
/// [`Layer::from_pairs`] and [`merged_args`] give the same options back. A flag that is
/// set appears as `(name, "true")`; a repeated option once per value.
pub fn recorded(cmd: &Command, matches: &ArgMatches, skip: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for arg in cmd.get_arguments() {
        let Some(long) = arg.get_long() else { continue };
        if skip.contains(&long) || arg.is_positional() {
            continue;
        }
        let id = arg.get_id().as_str();
        if takes_values(arg) {
            if let Some(vals) = matches.get_raw(id) {
                out.extend(vals.map(|v| (long.to_string(), v.to_string_lossy().into_owned())));
            }
        } else if matches.value_source(id) == Some(ValueSource::CommandLine)
            && matches.try_get_one::<bool>(id).ok().flatten() == Some(&true)
        {
            out.push((long.to_string(), "true".to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, FromArgMatches, Parser};

    #[derive(Parser, Debug)]
    #[command(name = "t")]
    struct T {
        file: Option<String>,
        #[arg(long)]
        topology: Option<String>,
        #[arg(long, conflicts_with = "topology")]
        machine: Option<String>,
        #[arg(long, default_value = "5")]
        link_delay: String,
        #[arg(long)]
        cost: Vec<String>,
        #[arg(long)]
        link_stats: bool,
        #[arg(long, num_args = 0..=1, default_missing_value = "10")]
        profile: Option<String>,
        #[arg(long)]
        config: Option<String>,
    }

    fn merge(argv: &[&str], layers: &[Layer]) -> Result<T, ConfigError> {
        let argv: Vec<OsString> = argv.iter().map(OsString::from).collect();
        let merged = merged_args(&T::command(), &argv, layers, &["config"])?;
        Ok(T::from_arg_matches(&T::command().get_matches_from(merged)).unwrap())
    }

    fn toml(text: &str) -> Layer {
        Layer::from_toml("c.toml", "t", text).unwrap()
    }

    #[test]
    fn configured_options_apply_under_the_command_line() {
        let l = toml("topology = \"mesh:8x8\"\nlink_delay = 7\ncost = [\"ADD=2\", \"MUL=4\"]\nlink-stats = true\n");
        let t = merge(&["t", "p.cod"], std::slice::from_ref(&l)).unwrap();
        assert_eq!(t.file.as_deref(), Some("p.cod"));
        assert_eq!(t.topology.as_deref(), Some("mesh:8x8"));
        assert_eq!(t.link_delay, "7");
        assert_eq!(t.cost, ["ADD=2", "MUL=4"]);
        assert!(t.link_stats);
        // The command line replaces an option (a repeated one as a whole) and drops what
        // conflicts with its own.
        let t = merge(&["t", "--cost", "SUB=9", "--machine", "m.mdf", "--link-delay", "1"], &[l]).unwrap();
        assert_eq!((t.topology, t.machine.as_deref()), (None, Some("m.mdf")));
        assert_eq!((t.cost, t.link_delay), (vec!["SUB=9".to_string()], "1".to_string()));
    }

    #[test]
    fn later_layers_replace_earlier_ones() {
        let a = toml("topology = \"mesh:4x4\"\nprofile = 5\n");
        let b = toml("[t]\ntopology = \"ring:8\"\n");
        let t = merge(&["t"], &[a, b]).unwrap();
        assert_eq!((t.topology.as_deref(), t.profile.as_deref()), (Some("ring:8"), Some("5")));
        // `profile = true`: the option's value when given bare.
        let t = merge(&["t"], &[toml("profile = true\n")]).unwrap();
        assert_eq!(t.profile.as_deref(), Some("10"));
    }

    #[test]
    fn errors_name_the_file_the_line_and_the_key() {
        let e = merge(&["t"], &[toml("# c\ntopolgy = \"x\"\n")]).unwrap_err();
        // One transposition from `topology`: named.
        assert_eq!(
            e.to_string(),
            "c.toml:2: `topolgy` is not a long option of t (see t --help); did you mean `topology`?"
        );
        let e = merge(&["t"], &[toml("config = \"x\"\n")]).unwrap_err();
        assert_eq!(e.to_string(), "c.toml:1: `config` cannot be given in a configuration");
        let e = merge(&["t"], &[toml("topology = [\"a\", \"b\"]\n")]).unwrap_err();
        assert_eq!(e.to_string(), "c.toml:1: `topology`: takes one value, not an array");
        let e = Layer::from_toml("c.toml", "t", "topology = \n").unwrap_err();
        // Line 1, column 12: past `topology = `, where a value is missing.
        assert!(e.to_string().starts_with("c.toml:1:12: "), "{e}");
        let e = Layer::from_toml("c.toml", "t", "[cpperf]\nx = 1\n").unwrap_err();
        assert_eq!(e.to_string(), "c.toml:1: `[cpperf]` cannot be given in a configuration");
    }

    #[test]
    fn recorded_options_give_the_same_options_back() {
        let cmd = T::command();
        let argv = [
            "t",
            "p.cod",
            "--topology",
            "torus:4x4",
            "--cost",
            "ADD=2",
            "--cost",
            "MUL=3",
            "--link-stats",
            "--profile",
        ];
        let m = cmd.clone().get_matches_from(argv);
        let rec = recorded(&cmd, &m, &["config"]);
        let pairs = |v: &[(&str, &str)]| v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>();
        assert_eq!(
            rec,
            pairs(&[
                ("topology", "torus:4x4"),
                ("link-delay", "5"),
                ("cost", "ADD=2"),
                ("cost", "MUL=3"),
                ("link-stats", "true"),
                ("profile", "10")
            ])
        );
        let replay: Vec<OsString> = ["t", "p.cod"].iter().map(OsString::from).collect();
        let merged = merged_args(&cmd, &replay, &[Layer::from_pairs("run.cpt", &rec)], &["config"]).unwrap();
        let m2 = cmd.clone().get_matches_from(merged);
        assert_eq!(recorded(&cmd, &m2, &["config"]), rec);
    }
}
