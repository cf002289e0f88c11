//! The instruction cost table: time units per instruction kind, indexed by opcode.
//!
//! Starts from [`Op::default_cost`] (the vCode table) and can be overridden one kind at a
//! time (`--cost OP=T`, mnemonics case-insensitive). Depends on `vcode::isa`.
//!
//! [`TickCosts`] holds the same in ticks (1/1000 unit), for the fractional and per-type
//! timings of machine description files; the simulator works from it. It lives beside
//! the instruction set, below both the simulator and the machine descriptions that use it.
//!
//! # Cost slots and groups
//!
//! The simulator looks an instruction's cost up by its *cost slot*: its opcode, except
//! that an access to a global variable (`LDADDR`, `LDVal`, `LDIndirect` at depth 0) has
//! a slot of its own ([`GLOBAL_SLOTS`], opcodes no instruction uses), so that local and
//! global accesses can cost differently (seed 004 §3.1.1 distinguishes local and global
//! parameters). Both cost the instruction's timing until a group override (seed 004
//! §3.2.2, `cpss --scale-group`) scales one of them: [`op_function`] and [`op_type`] name
//! the mathematical function and the data type of each instruction for those groups.
use crate::time::{Ticks, TICKS_PER_UNIT};
use crate::vcode::{Instr, Op};

/// Error in a cost override.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CostError {
    #[error("cost override `{text}` is not of the form OP=T")]
    Syntax { text: String },
    #[error("unknown instruction `{name}` in cost override")]
    UnknownOp { name: String },
    #[error("bad cost `{value}` for {name}: expected a whole number of time units from 0 to 4294967295")]
    BadValue { name: String, value: String },
}

/// Cost in time units of each instruction kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CostTable {
    by_opcode: [u32; 256],
}

impl Default for CostTable {
    fn default() -> Self {
        let mut by_opcode = [0u32; 256];
        for &op in Op::ALL {
            by_opcode[op.opcode() as usize] = op.default_cost();
        }
        CostTable { by_opcode }
    }
}

impl CostTable {
    /// The cost of `op`.
    #[inline]
    pub fn get(&self, op: Op) -> u32 {
        self.by_opcode[op.opcode() as usize]
    }

    /// Sets the cost of `op`.
    pub fn set(&mut self, op: Op, cost: u32) {
        self.by_opcode[op.opcode() as usize] = cost;
    }

    /// Applies an override `OP=T` (mnemonic case-insensitive).
    pub fn apply(&mut self, text: &str) -> Result<(), CostError> {
        let (op, cost) = parse_override(text)?;
        self.set(op, cost);
        Ok(())
    }
}

/// Reads an override `OP=T` (mnemonic case-insensitive, T whole time units).
pub fn parse_override(text: &str) -> Result<(Op, u32), CostError> {
    let (name, value) = text.split_once('=').ok_or_else(|| CostError::Syntax { text: text.to_string() })?;
    let (name, value) = (name.trim(), value.trim());
    let op = Op::from_mnemonic(name).ok_or_else(|| CostError::UnknownOp { name: name.to_string() })?;
    let cost = value.parse().map_err(|_| CostError::BadValue { name: name.to_string(), value: value.to_string() })?;
    Ok((op, cost))
}

/// The variable accesses that have a global cost slot, in the order of [`GLOBAL_SLOTS`].
pub const VARIABLE_ACCESSES: [Op; 3] = [Op::LdAddr, Op::LdVal, Op::LdIndirect];

/// The cost slots of [`VARIABLE_ACCESSES`] on a global variable (depth 0): opcodes no
/// instruction has (a unit test keeps it so).
pub const GLOBAL_SLOTS: [u8; 3] = [0xFD, 0xFE, 0xFF];

/// The cost slot of an instruction (see the module's documentation).
#[inline]
pub fn cost_slot(ins: &Instr) -> u8 {
    match *ins {
        Instr::LdAddr { depth: 0, .. } => GLOBAL_SLOTS[0],
        Instr::LdVal { depth: 0, .. } => GLOBAL_SLOTS[1],
        Instr::LdIndirect { depth: 0, .. } => GLOBAL_SLOTS[2],
        _ => ins.op().opcode(),
    }
}

/// The instruction kind whose cost a slot holds (a global slot's access instruction).
pub fn slot_op(slot: u8) -> Option<Op> {
    match GLOBAL_SLOTS.iter().position(|&g| g == slot) {
        Some(k) => Some(VARIABLE_ACCESSES[k]),
        None => Op::from_opcode(slot),
    }
}

/// A data type of the instruction set, for the group overrides by type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataType {
    Int,
    Unsigned,
    Long,
    UnsignedLong,
    Float,
    Double,
    Char,
}

impl DataType {
    /// Every type with the names `type:NAME` accepts for it.
    pub const NAMES: [(DataType, &'static [&'static str]); 7] = [
        (DataType::Int, &["int", "i"]),
        (DataType::Unsigned, &["unsigned", "u"]),
        (DataType::Long, &["long", "l"]),
        (DataType::UnsignedLong, &["unsigned-long", "ul"]),
        (DataType::Float, &["float", "f"]),
        (DataType::Double, &["double", "d"]),
        (DataType::Char, &["char", "c"]),
    ];

    /// The type named `name` (case-insensitive).
    pub fn parse(name: &str) -> Option<DataType> {
        let n = name.trim().to_ascii_lowercase();
        Self::NAMES.iter().find(|(_, names)| names.contains(&n.as_str())).map(|&(t, _)| t)
    }
}

/// The data type an instruction operates on, for arithmetic, comparisons and constants;
/// `None` for the rest (conversions, memory, control, processes, I/O). Unsigned `+ - * &
/// | ^ << ==` are the int instructions (the `.cod` format has no unsigned ones), so
/// they count as int.
pub fn op_type(op: Op) -> Option<DataType> {
    use Op::*;
    Some(match op {
        PushI | AddI | SubI | MulI | DivI | ModI | NegI | BitAnd | BitOr | BitXor | Shl | Shr | BitNot | LogNot
        | EqI | NeI | LtI | LeI | GtI | GeI | AbsI => DataType::Int,
        DivU | ModU | ShrU | LtU | LeU | GtU | GeU => DataType::Unsigned,
        PushL | AddL | SubL | MulL | DivL | ModL | NegL | AndL | OrL | XorL | ShlL | ShrL | EqL | NeL | LtL | LeL
        | GtL | GeL => DataType::Long,
        DivUL | ModUL | ShrUL | LtUL | LeUL | GtUL | GeUL => DataType::UnsignedLong,
        PushF | AddF | SubF | MulF | DivF | NegF | EqF | NeF | LtF | LeF | GtF | GeF | Math => DataType::Float,
        PushD | AddD | SubD | MulD | DivD | NegD | EqD | NeD | LtD | LeD | GtD | GeD | MathD => DataType::Double,
        PushC => DataType::Char,
        _ => return None,
    })
}

/// The mathematical function an instruction computes, whatever its type (`add` for
/// `ADDI`, `ADDF`, `ADDD`, `ADDL`; `conv` for every conversion; `push` for constants);
/// an instruction outside those families is its own function, its mnemonic in lower
/// case (`send`, `ldval`).
pub fn op_function(op: Op) -> String {
    use Op::*;
    let f = match op {
        PushI | PushF | PushC | PushD | PushL => "push",
        AddI | AddF | AddD | AddL => "add",
        SubI | SubF | SubD | SubL => "sub",
        MulI | MulF | MulD | MulL => "mul",
        DivI | DivF | DivD | DivL | DivU | DivUL => "div",
        ModI | ModL | ModU | ModUL => "mod",
        NegI | NegF | NegD | NegL => "neg",
        BitAnd | AndL => "and",
        BitOr | OrL => "or",
        BitXor | XorL => "xor",
        Shl | ShlL => "shl",
        Shr | ShrL | ShrU | ShrUL => "shr",
        EqI | EqF | EqD | EqL => "eq",
        NeI | NeF | NeD | NeL => "ne",
        LtI | LtF | LtD | LtL | LtU | LtUL => "lt",
        LeI | LeF | LeD | LeL | LeU | LeUL => "le",
        GtI | GtF | GtD | GtL | GtU | GtUL => "gt",
        GeI | GeF | GeD | GeL | GeU | GeUL => "ge",
        Math | MathD => "math",
        AbsI => "abs",
        Convert | CvtUF | CvtFU | CvtUD | CvtDU | CvtUL | CvtULD | CvtDUL | CvtULF | CvtFUL | Narrow => "conv",
        _ => return op.mnemonic().to_ascii_lowercase(),
    };
    f.to_string()
}

/// Cost of each instruction kind in ticks at the reference speed ([`TICKS_PER_UNIT`]
/// ticks per unit): one processor type's timings. Global variable accesses have their
/// own costs ([`GLOBAL_SLOTS`]), equal to the instruction's unless scaled apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TickCosts {
    by_opcode: [Ticks; 256],
    /// The costs of [`VARIABLE_ACCESSES`] on global variables.
    global: [Ticks; 3],
}

impl From<&CostTable> for TickCosts {
    /// The whole-unit table in ticks.
    fn from(t: &CostTable) -> TickCosts {
        let mut by_opcode = [0; 256];
        for (slot, &c) in by_opcode.iter_mut().zip(t.by_opcode.iter()) {
            *slot = Ticks::from(c) * TICKS_PER_UNIT;
        }
        let global = VARIABLE_ACCESSES.map(|op| by_opcode[op.opcode() as usize]);
        TickCosts { by_opcode, global }
    }
}

impl Default for TickCosts {
    /// The vCode table's default costs.
    fn default() -> TickCosts {
        TickCosts::from(&CostTable::default())
    }
}

impl TickCosts {
    /// The cost of `op` in ticks.
    #[inline]
    pub fn get(&self, op: Op) -> Ticks {
        self.by_opcode[op.opcode() as usize]
    }

    /// Sets the cost of `op` in ticks (a variable access's on local and global
    /// variables alike).
    pub fn set(&mut self, op: Op, ticks: Ticks) {
        self.by_opcode[op.opcode() as usize] = ticks;
        if let Some(k) = VARIABLE_ACCESSES.iter().position(|&v| v == op) {
            self.global[k] = ticks;
        }
    }

    /// Every cost multiplied by `factor` (rounded to the nearest tick; `--scale-costs`).
    pub fn scaled(&self, factor: f64) -> TickCosts {
        self.scaled_by(|_| factor)
    }

    /// Each slot's cost multiplied by `factor(slot)` (rounded to the nearest tick; the
    /// group overrides). Slots are opcodes and [`GLOBAL_SLOTS`].
    pub fn scaled_by(&self, factor: impl Fn(u8) -> f64) -> TickCosts {
        let scale = |c: Ticks, slot: u8| {
            let f = factor(slot);
            if f == 1.0 {
                c
            } else {
                (c as f64 * f).round() as Ticks
            }
        };
        let mut t = self.clone();
        for (slot, c) in (0u8..=255).zip(t.by_opcode.iter_mut()) {
            *c = scale(*c, slot);
        }
        for (k, c) in t.global.iter_mut().enumerate() {
            *c = scale(*c, GLOBAL_SLOTS[k]);
        }
        t
    }

    /// The table indexed by cost slot ([`cost_slot`]): by opcode, with the global
    /// variable accesses' costs in [`GLOBAL_SLOTS`].
    pub fn by_slot(&self) -> [Ticks; 256] {
        let mut t = self.by_opcode;
        for (k, &g) in GLOBAL_SLOTS.iter().enumerate() {
            t[g as usize] = self.global[k];
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_overrides() {
        let mut c = CostTable::default();
        assert_eq!(c.get(Op::DivI), 4, "DIVI costs 4 in the vCode table");
        c.apply("divi=7").unwrap();
        assert_eq!(c.get(Op::DivI), 7);
        c.apply(" LDVal = 0 ").unwrap();
        assert_eq!(c.get(Op::LdVal), 0);
        assert!(matches!(c.apply("FOO=1"), Err(CostError::UnknownOp { .. })));
        assert!(matches!(c.apply("ADDI"), Err(CostError::Syntax { .. })));
        assert!(matches!(c.apply("ADDI=-1"), Err(CostError::BadValue { .. })));
        // The error says the range: 2^32 is one past the largest cost.
        let e = c.apply("MULF=4294967296").unwrap_err().to_string();
        assert_eq!(e, "bad cost `4294967296` for MULF: expected a whole number of time units from 0 to 4294967295");
    }

    #[test]
    fn tick_costs_are_thousandths() {
        let mut c = CostTable::default();
        c.apply("DIVI=7").unwrap();
        let t = TickCosts::from(&c);
        // 7 units = 7000 ticks; scaling by 1.5 gives 10500.
        assert_eq!(t.get(Op::DivI), 7000);
        assert_eq!(t.scaled(1.5).get(Op::DivI), 10_500);
        assert_eq!(TickCosts::default().get(Op::DivI), 4000, "DIVI costs 4 units in the vCode table");
    }

    #[test]
    fn global_slots_are_no_instruction_s_and_follow_their_access() {
        for op in Op::ALL {
            assert!(!GLOBAL_SLOTS.contains(&op.opcode()), "{} takes a global cost slot", op.mnemonic());
        }
        let mut t = TickCosts::default();
        // LDVal costs 2 units on globals and locals alike, until scaled apart.
        assert_eq!(t.by_slot()[GLOBAL_SLOTS[1] as usize], 2000);
        t.set(Op::LdVal, 3000);
        assert_eq!(t.by_slot()[GLOBAL_SLOTS[1] as usize], 3000);
        let g = t.scaled_by(|slot| if GLOBAL_SLOTS.contains(&slot) { 2.0 } else { 1.0 });
        assert_eq!((g.get(Op::LdVal), g.by_slot()[GLOBAL_SLOTS[1] as usize]), (3000, 6000));
        assert_eq!(cost_slot(&Instr::LdVal { depth: 0, off: 4 }), GLOBAL_SLOTS[1]);
        assert_eq!(cost_slot(&Instr::LdVal { depth: 1, off: 4 }), Op::LdVal.opcode());
        assert_eq!(slot_op(GLOBAL_SLOTS[2]), Some(Op::LdIndirect));
    }

    #[test]
    fn functions_and_types_group_the_typed_instructions() {
        let add: Vec<&str> = Op::ALL.iter().filter(|&&op| op_function(op) == "add").map(|op| op.mnemonic()).collect();
        assert_eq!(add, ["ADDI", "ADDF", "ADDD", "ADDL"]);
        assert_eq!(op_function(Op::Send), "send");
        assert_eq!(op_function(Op::CvtFU), "conv");
        // JPF is a jump, not a float instruction.
        assert_eq!(op_type(Op::JumpIfFalse), None);
        assert_eq!(op_type(Op::MulF), Some(DataType::Float));
        assert_eq!(op_type(Op::DivU), Some(DataType::Unsigned));
        assert_eq!(DataType::parse("F"), Some(DataType::Float));
        assert_eq!(DataType::parse("unsigned-long"), Some(DataType::UnsignedLong));
        // Every typed instruction's mnemonic says its function (but for the bit ones).
        for &op in Op::ALL {
            if op_type(op).is_some()
                && !matches!(
                    op_function(op).as_str(),
                    "and" | "or" | "xor" | "shl" | "shr" | "not" | "lnot" | "abs" | "math"
                )
            {
                assert!(op.mnemonic().to_ascii_lowercase().starts_with(&op_function(op)), "{}", op.mnemonic());
            }
        }
    }
}
