//! Group overrides (seed 004 §3.2, the Parasol interface): `cpss --scale-group GROUP=F`
//! multiplies by F the costs of a predefined, possibly overlapping, group of machine
//! parameters. The seed's groups and how they read here:
//!
//! | GROUP | scales |
//! |---|---|
//! | `op:MNEMONIC` | one instruction's cost (seed: "one specific instruction") |
//! | `function:NAME` | every instruction computing one function whatever its type (`add`: `ADDI ADDF ADDD ADDL`; [`op_function`]) |
//! | `type:NAME` | every instruction on one data type (`int`, `unsigned`, `long`, `unsigned-long`, `float`, `double`, `char`; [`op_type`]) |
//! | `local`, `global` | variable accesses (`LDADDR`, `LDVal`, `LDIndirect`) of local or of global variables |
//! | `proc-type:N` | every instruction cost on the processors of machine-file type N |
//! | `link-speed:N`, `latency:N` | the speed (latency) of every link with an end on a processor of type N |
//! | `spmd` | the parallel run-time's operations: every overhead instruction (process creation and join, channel send and receive, locks) and `msg-init` |
//! | `spmd:MNEMONIC` | one of those instructions |
//!
//! Groups overlap ("non disjunct"): a cost in several groups is multiplied by each
//! factor, after `--cost` overrides and `--scale-costs`. The seed's "all the processor
//! timings", "all link speeds" and "all latencies" are `--scale-costs`,
//! `--scale-link-speed` and `--scale-latency`. Depends on [`crate::vcode`].
use crate::vcode::cost::{op_function, op_type, slot_op, DataType, GLOBAL_SLOTS, VARIABLE_ACCESSES};
use crate::vcode::{Class, Op};

/// A group of machine parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum Group {
    Op(Op),
    Function(String),
    Type(DataType),
    Local,
    Global,
    ProcType(i64),
    LinkSpeed(i64),
    Latency(i64),
    Spmd,
    SpmdOp(Op),
}

/// One override: a group and its factor.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupScale {
    pub group: Group,
    pub factor: f64,
    /// The override as given (`function:add=2`), for messages.
    pub text: String,
}

/// The group names, for messages.
pub const GROUPS: &str =
    "op:MNEMONIC, function:NAME, type:NAME, local, global, proc-type:N, link-speed:N, latency:N, spmd, spmd:MNEMONIC";

/// Reads `GROUP=F` (F a factor between 10^-6 and 10^6).
pub fn parse(text: &str) -> Result<GroupScale, String> {
    let (name, value) = text
        .rsplit_once('=')
        .filter(|(n, v)| !n.trim().is_empty() && !v.trim().is_empty())
        .ok_or_else(|| format!("`{text}` is not of the form GROUP=F (groups: {GROUPS})"))?;
    let factor = match value.trim().parse::<f64>() {
        Ok(f) if (1e-6..=1e6).contains(&f) => f,
        _ => return Err(format!("`{}` is not a factor between 10^-6 and 10^6", value.trim())),
    };
    let name = name.trim();
    let (kind, arg) = match name.split_once(':') {
        Some((k, a)) => (k.trim().to_ascii_lowercase(), Some(a.trim())),
        None => (name.to_ascii_lowercase(), None),
    };
    let op = |a: &str| Op::from_mnemonic(a).ok_or_else(|| format!("unknown instruction `{a}` in group `{name}`"));
    let ty_id = |a: &str| a.parse::<i64>().map_err(|_| format!("`{a}` in group `{name}` is not a processor type id"));
    let group = match (kind.as_str(), arg) {
        ("op", Some(a)) => Group::Op(op(a)?),
        ("function", Some(a)) => {
            let f = a.to_ascii_lowercase();
            if !Op::ALL.iter().any(|&o| op_function(o) == f) {
                return Err(format!("no instruction computes `{a}` (functions such as add, sub, mul, div, mod, neg, eq, lt, push, conv, math, or a mnemonic)"));
            }
            Group::Function(f)
        }
        ("type", Some(a)) => Group::Type(DataType::parse(a).ok_or_else(|| {
            format!("unknown data type `{a}` (int, unsigned, long, unsigned-long, float, double, char)")
        })?),
        ("local", None) => Group::Local,
        ("global", None) => Group::Global,
        ("proc-type", Some(a)) => Group::ProcType(ty_id(a)?),
        ("link-speed", Some(a)) => Group::LinkSpeed(ty_id(a)?),
        ("latency", Some(a)) => Group::Latency(ty_id(a)?),
        ("spmd", None) => Group::Spmd,
        ("spmd", Some(a)) => {
            let o = op(a)?;
            if o.class() != Class::Overhead {
                return Err(format!(
                    "{} is not an operation of the parallel run-time (spmd:SEND, RECV, FORK, JOIN, ...)",
                    o.mnemonic()
                ));
            }
            Group::SpmdOp(o)
        }
        _ => return Err(format!("unknown group `{name}` (groups: {GROUPS})")),
    };
    Ok(GroupScale { group, factor, text: text.trim().to_string() })
}

impl Group {
    /// Whether the cost in `slot` ([`crate::vcode::cost::cost_slot`]) on a processor of
    /// machine-file type `ty` belongs to the group.
    pub fn covers(&self, slot: u8, ty: Option<i64>) -> bool {
        let Some(op) = slot_op(slot) else { return false };
        match self {
            Group::Op(o) | Group::SpmdOp(o) => op == *o,
            Group::Function(f) => op_function(op) == *f,
            Group::Type(t) => op_type(op) == Some(*t),
            Group::Local => !GLOBAL_SLOTS.contains(&slot) && VARIABLE_ACCESSES.contains(&op),
            Group::Global => GLOBAL_SLOTS.contains(&slot),
            Group::ProcType(n) => ty == Some(*n),
            Group::Spmd => op.class() == Class::Overhead,
            Group::LinkSpeed(_) | Group::Latency(_) => false,
        }
    }

    /// Whether the group needs a machine file's processor types.
    pub fn needs_types(&self) -> Option<i64> {
        match self {
            Group::ProcType(n) | Group::LinkSpeed(n) | Group::Latency(n) => Some(*n),
            _ => None,
        }
    }

    /// Whether the group scales instruction costs.
    pub fn is_instructions(&self) -> bool {
        !matches!(self, Group::LinkSpeed(_) | Group::Latency(_))
    }
}

/// The factor on the cost in `slot` on a processor of type `ty`: the product of the
/// factors of the groups that hold it.
pub fn slot_factor(scales: &[GroupScale], slot: u8, ty: Option<i64>) -> f64 {
    scales.iter().filter(|s| s.group.covers(slot, ty)).map(|s| s.factor).product()
}

/// The factors on a link's speed and latency, the link joining processors of types
/// `a` and `b` (a group counts once even when both ends are of its type).
pub fn link_factors(scales: &[GroupScale], a: Option<i64>, b: Option<i64>) -> (f64, f64) {
    let touches = |n: i64| a == Some(n) || b == Some(n);
    let mut speed = 1.0;
    let mut latency = 1.0;
    for s in scales {
        match s.group {
            Group::LinkSpeed(n) if touches(n) => speed *= s.factor,
            Group::Latency(n) if touches(n) => latency *= s.factor,
            _ => {}
        }
    }
    (speed, latency)
}

/// The factor on `msg-init`, the message start-up of the run-time (the `spmd` group).
pub fn msg_init_factor(scales: &[GroupScale]) -> f64 {
    scales.iter().filter(|s| s.group == Group::Spmd).map(|s| s.factor).product()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(op: Op) -> u8 {
        op.opcode()
    }

    #[test]
    fn groups_parse_and_cover_their_instructions() {
        let g = |t: &str| parse(t).unwrap();
        assert_eq!(
            g("function:add=2"),
            GroupScale { group: Group::Function("add".into()), factor: 2.0, text: "function:add=2".into() }
        );
        assert_eq!(g("type:F=0.5").group, Group::Type(DataType::Float));
        assert_eq!(g(" proc-type:2 = 3").group, Group::ProcType(2));
        assert_eq!(g("spmd=2").group, Group::Spmd);
        assert_eq!(g("spmd:send=2").group, Group::SpmdOp(Op::Send));
        for bad in ["add=2", "function:frobnicate=2", "type:quad=2", "spmd:ADDI=2", "local=0", "local", "op:XYZ=2"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let add = g("function:add=2").group;
        assert!(add.covers(slot(Op::AddF), None) && add.covers(slot(Op::AddL), None));
        assert!(!add.covers(slot(Op::SubI), None));
        let float = g("type:float=2").group;
        assert!(float.covers(slot(Op::MulF), None) && !float.covers(slot(Op::MulD), None));
        let (local, global) = (g("local=2").group, g("global=2").group);
        assert!(local.covers(slot(Op::LdVal), None) && !local.covers(GLOBAL_SLOTS[1], None));
        assert!(global.covers(GLOBAL_SLOTS[1], None) && !global.covers(slot(Op::LdVal), None));
        let spmd = g("spmd=2").group;
        assert!(spmd.covers(slot(Op::Send), None) && spmd.covers(slot(Op::Fork), None));
        assert!(!spmd.covers(slot(Op::AddI), None));
        let t2 = g("proc-type:2=2").group;
        assert!(t2.covers(slot(Op::AddI), Some(2)) && !t2.covers(slot(Op::AddI), Some(1)));
    }

    #[test]
    fn overlapping_groups_multiply() {
        let scales: Vec<GroupScale> =
            ["function:add=2", "type:float=3", "proc-type:1=5", "link-speed:1=4", "latency:2=0.5"]
                .iter()
                .map(|t| parse(t).unwrap())
                .collect();
        // ADDF is an add and a float instruction: 2 × 3, and 5 more on type 1.
        assert_eq!(slot_factor(&scales, slot(Op::AddF), None), 6.0);
        assert_eq!(slot_factor(&scales, slot(Op::AddF), Some(1)), 30.0);
        assert_eq!(slot_factor(&scales, slot(Op::AddI), None), 2.0);
        assert_eq!(slot_factor(&scales, slot(Op::Send), None), 1.0);
        // A link between types 1 and 2: speed × 4 (type 1) and latency × 0.5 (type 2);
        // between two type-1 processors the factor counts once.
        assert_eq!(link_factors(&scales, Some(1), Some(2)), (4.0, 0.5));
        assert_eq!(link_factors(&scales, Some(1), Some(1)), (4.0, 1.0));
        assert_eq!(link_factors(&scales, Some(3), None), (1.0, 1.0));
        assert_eq!(msg_init_factor(&scales), 1.0);
        assert_eq!(msg_init_factor(&[parse("spmd=2").unwrap(), parse("spmd:send=3").unwrap()]), 2.0);
    }
}
