//! The form of a run parameter's declaration: one row of a table gives its name (the
//! `cpss` flag without `--`, the config-file and `--sweep` key, the debugger's `set`
//! name, the statistics' and run record's key), its kind and valid range, its default,
//! a one-line description, the models it applies to, whether the debugger may change it
//! at a stop, and the two functions that write and read it in the structure that holds
//! it. Everything that lists, parses, checks, prints or sets parameters goes through the
//! rows: adding a parameter is one row plus the model code that reads its field.
//!
//! The tables themselves live beside what they configure: the network's in
//! `net::params` (over `NetParams`), the run's in `sim::params` (over the run options);
//! `sim::params::all` lists both, in the order `cpss --list-params` prints them.
//!
//! Depends on [`crate::time`] only.
use crate::time::{format_time, parse_time, Ticks};

/// What a parameter's value is, with its valid range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// A time in time units (decimals allowed, stored in ticks); `positive`: more than 0.
    Time { positive: bool },
    /// A whole number in `min..=max`, counted in `unit` (bytes, flits; empty for a
    /// plain count).
    Whole { min: u64, max: u64, unit: &'static str },
    /// A real number in `min..=max`.
    Real { min: f64, max: f64 },
    /// One of these words.
    Choice(&'static [&'static str]),
    /// A value of the inner kind, or `none`: a limit that may be lifted, a seed that may
    /// be absent. A row of this kind that is not given is left out of the run record's
    /// options (the record names only what the run was given).
    OrNone(&'static Kind),
}

/// A parameter's value, parsed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Time(Ticks),
    Whole(u64),
    Real(f64),
    Choice(&'static str),
    /// `none`, for a [`Kind::OrNone`] row.
    None,
}

impl Value {
    /// The ticks of a [`Kind::Time`] value (0 for another kind: rows read their own kind).
    pub fn ticks(self) -> Ticks {
        match self {
            Value::Time(t) => t,
            _ => 0,
        }
    }

    /// The number of a [`Kind::Whole`] value, as `u32` (the range of every `u32` row
    /// keeps it inside).
    pub fn whole32(self) -> u32 {
        match self {
            Value::Whole(n) => u32::try_from(n).unwrap_or(u32::MAX),
            _ => 0,
        }
    }

    /// The number of a [`Kind::Whole`] value.
    pub fn whole(self) -> u64 {
        match self {
            Value::Whole(n) => n,
            _ => 0,
        }
    }

    /// The number of a [`Kind::Real`] value.
    pub fn real(self) -> f64 {
        match self {
            Value::Real(x) => x,
            _ => 0.0,
        }
    }

    /// The ticks of a [`Kind::OrNone`] time: `None` for `none`.
    pub fn opt_ticks(self) -> Option<Ticks> {
        match self {
            Value::Time(t) => Some(t),
            _ => None,
        }
    }

    /// The number of a [`Kind::OrNone`] whole number: `None` for `none`.
    pub fn opt_whole(self) -> Option<u64> {
        match self {
            Value::Whole(n) => Some(n),
            _ => None,
        }
    }

    /// The word of a [`Kind::Choice`] value.
    pub fn choice(self) -> &'static str {
        match self {
            Value::Choice(w) => w,
            _ => "",
        }
    }
}

/// Everything about a parameter but where it is stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Info {
    /// Its name: the flag without `--`, and every key that names it.
    pub name: &'static str,
    /// Its kind and range.
    pub kind: Kind,
    /// Its default, as a user writes it.
    pub default: &'static str,
    /// One line: what it is.
    pub doc: &'static str,
    /// The network models (or "all") it applies to.
    pub models: &'static str,
    /// Whether the debugger's `set` may change it at a stop.
    pub at_stop: bool,
}

impl Info {
    /// Parses `text` as this parameter's value, checking its range; the error says what
    /// is wrong (the caller names the parameter).
    pub fn parse(&self, text: &str) -> Result<Value, String> {
        let v = text.trim();
        match self.kind {
            Kind::OrNone(_) if v == "none" => Ok(Value::None),
            Kind::OrNone(&inner) => Info { kind: inner, ..*self }.parse(v),
            Kind::Time { .. } => parse_time(v).and_then(|t| self.check(Value::Time(t)).map(|()| Value::Time(t))),
            Kind::Whole { unit, .. } => {
                let what = if unit.is_empty() { String::new() } else { format!(" of {unit}") };
                let n: u64 = v.parse().map_err(|_| format!("`{v}` is not a whole number{what}"))?;
                self.check(Value::Whole(n)).map(|()| Value::Whole(n))
            }
            Kind::Real { .. } => {
                let x: f64 = v.parse().map_err(|_| format!("`{v}` is not a number"))?;
                self.check(Value::Real(x)).map(|()| Value::Real(x))
            }
            Kind::Choice(words) => words
                .iter()
                .find(|&&w| w == v)
                .map(|&w| Value::Choice(w))
                .ok_or_else(|| format!("`{v}` is not one of {}", words.join(", "))),
        }
    }

    /// Checks a value against the row's range (a value made by code rather than parsed).
    pub fn check(&self, v: Value) -> Result<(), String> {
        match (self.kind, v) {
            (Kind::OrNone(_), Value::None) => Ok(()),
            (Kind::OrNone(&inner), v) => Info { kind: inner, ..*self }.check(v),
            (Kind::Time { positive: true }, Value::Time(0)) => Err("must be more than 0".to_string()),
            (Kind::Whole { min, max, .. }, Value::Whole(n)) if !(min..=max).contains(&n) => {
                Err(format!("{n} is not between {min} and {max}"))
            }
            (Kind::Real { min, max }, Value::Real(x)) if !(min..=max).contains(&x) => {
                Err(format!("{} is not between {} and {}", real(x), real(min), real(max)))
            }
            _ => Ok(()),
        }
    }

    /// A value as a user writes it (what [`Info::parse`] reads back).
    pub fn format(&self, v: Value) -> String {
        match v {
            Value::Time(t) => format_time(t),
            Value::Whole(n) => n.to_string(),
            Value::Real(x) => x.to_string(),
            Value::Choice(w) => w.to_string(),
            Value::None => "none".to_string(),
        }
    }

    /// Its unit: `time units`, `bytes`, `flits`, empty for a count, a ratio or a choice.
    pub fn unit(&self) -> &'static str {
        match self.kind {
            Kind::Time { .. } => "time units",
            Kind::Whole { unit, .. } => unit,
            Kind::Real { .. } | Kind::Choice(_) => "",
            Kind::OrNone(&inner) => Info { kind: inner, ..*self }.unit(),
        }
    }

    /// Its valid values, as a user reads them: `>= 0`, `1..64`, `wormhole|packet`.
    pub fn range(&self) -> String {
        match self.kind {
            Kind::Time { positive: true } => "> 0".to_string(),
            Kind::Time { positive: false } => ">= 0".to_string(),
            Kind::Whole { min, max, .. } if max == u64::from(u32::MAX) || max == u64::MAX => format!(">= {min}"),
            Kind::Whole { min, max, .. } => format!("{min}..{max}"),
            Kind::Real { min, max } => format!("{}..{}", real(min), real(max)),
            Kind::Choice(words) => words.join("|"),
            Kind::OrNone(&inner) => format!("{} or none", Info { kind: inner, ..*self }.range()),
        }
    }

    /// The placeholder of its value in usage text.
    pub fn value_name(&self) -> &'static str {
        match self.kind {
            Kind::Time { .. } => "T",
            Kind::Whole { unit: "bytes", .. } => "BYTES",
            Kind::Whole { unit: "flits", .. } => "FLITS",
            Kind::Whole { unit: "words", .. } => "WORDS",
            Kind::Whole { .. } => "N",
            Kind::Real { .. } => "R",
            Kind::Choice(_) => "NAME",
            Kind::OrNone(&inner) => Info { kind: inner, ..*self }.value_name(),
        }
    }
}

/// A real number as a user reads it: `1e-6` rather than `0.000001`.
fn real(x: f64) -> String {
    if x != 0.0 && !(1e-3..1e6).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// A parameter stored in a `T`: its [`Info`] and how to write and read its field.
#[derive(Debug, Clone, Copy)]
pub struct Param<T: 'static> {
    pub info: Info,
    /// Writes a value of the row's kind (already checked against its range).
    pub apply: fn(&mut T, Value),
    /// Reads the value.
    pub read: fn(&T) -> Value,
}

impl<T> Param<T> {
    /// Parses `text` and writes it into `target`.
    pub fn set(&self, target: &mut T, text: &str) -> Result<(), String> {
        let v = self.info.parse(text)?;
        (self.apply)(target, v);
        Ok(())
    }

    /// The value in `target`, as a user writes it.
    pub fn get(&self, target: &T) -> String {
        self.info.format((self.read)(target))
    }
}

/// The row named `name` of `table`.
pub fn find<T>(table: &'static [Param<T>], name: &str) -> Option<&'static Param<T>> {
    table.iter().find(|p| p.info.name == name)
}

/// A structure with every row's default written (`base` holds the fields no row covers).
/// The defaults are checked by each table's test, so none fails here.
pub fn defaults<T>(table: &'static [Param<T>], mut base: T) -> T {
    for p in table {
        let _ = p.set(&mut base, p.info.default);
    }
    base
}

/// Checks a table's defaults (for its tests): each parses, and `target`, made by the
/// structure's own default, reads each back in the same spelling.
pub fn defaults_read_back<T>(table: &'static [Param<T>], target: &T) -> Result<(), String> {
    for p in table {
        p.info.parse(p.info.default).map_err(|e| format!("{}: default: {e}", p.info.name))?;
        let got = p.get(target);
        if got != p.info.default {
            return Err(format!("{}: reads {got}, the table says {}", p.info.name, p.info.default));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_parse_within_their_range_and_print_back() {
        let lanes = Info {
            name: "lanes",
            kind: Kind::Whole { min: 1, max: 64, unit: "" },
            default: "2",
            doc: "",
            models: "wormhole",
            at_stop: true,
        };
        assert_eq!(lanes.parse(" 3 "), Ok(Value::Whole(3)));
        assert_eq!(lanes.parse("0"), Err("0 is not between 1 and 64".to_string()));
        assert_eq!(lanes.parse("x"), Err("`x` is not a whole number".to_string()));
        assert_eq!(lanes.range(), "1..64");
        let t = Info { kind: Kind::Time { positive: true }, ..lanes };
        assert_eq!(t.parse("0"), Err("must be more than 0".to_string()));
        // 2.5 units = 2500 ticks (1000 ticks per unit), printed back as 2.5.
        assert_eq!(t.parse("2.5"), Ok(Value::Time(2500)));
        assert_eq!(t.format(Value::Time(2500)), "2.5");
        let c = Info { kind: Kind::Choice(&["a", "b"]), ..lanes };
        assert_eq!(c.parse("b"), Ok(Value::Choice("b")));
        assert_eq!(c.parse("c"), Err("`c` is not one of a, b".to_string()));
        // A limit: a whole number of processes or `none`; its range says both.
        let l = Info { kind: Kind::OrNone(&Kind::Whole { min: 0, max: u64::MAX, unit: "" }), ..lanes };
        assert_eq!(l.parse("none"), Ok(Value::None));
        assert_eq!(l.parse("7"), Ok(Value::Whole(7)));
        assert_eq!(l.parse("x"), Err("`x` is not a whole number".to_string()));
        assert_eq!(l.format(Value::None), "none");
        assert_eq!(l.range(), ">= 0 or none");
    }
}
