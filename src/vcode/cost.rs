//! The instruction cost table: time units per instruction kind, indexed by opcode.
//!
//! Starts from [`Op::default_cost`] (the vCode table) and can be overridden one kind at a
//! time (`--cost OP=T`, mnemonics case-insensitive). Depends on `vcode::isa`.
//!
//! [`TickCosts`] holds the same in ticks (1/1000 unit), for the fractional and per-type
//! timings of machine description files; the simulator works from it. It lives beside
//! the instruction set, below both the simulator and the machine descriptions that use it.
use crate::time::{Ticks, TICKS_PER_UNIT};
use crate::vcode::Op;

/// Error in a cost override.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CostError {
    #[error("cost override `{text}` is not of the form OP=T")]
    Syntax { text: String },
    #[error("unknown instruction `{name}` in cost override")]
    UnknownOp { name: String },
    #[error("bad cost `{value}` for {name}: expected a whole number of time units")]
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

/// Cost of each instruction kind in ticks at the reference speed ([`TICKS_PER_UNIT`]
/// ticks per unit): one processor type's timings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TickCosts {
    by_opcode: [Ticks; 256],
}

impl From<&CostTable> for TickCosts {
    /// The whole-unit table in ticks.
    fn from(t: &CostTable) -> TickCosts {
        let mut by_opcode = [0; 256];
        for (slot, &c) in by_opcode.iter_mut().zip(t.by_opcode.iter()) {
            *slot = Ticks::from(c) * TICKS_PER_UNIT;
        }
        TickCosts { by_opcode }
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

    /// Sets the cost of `op` in ticks.
    pub fn set(&mut self, op: Op, ticks: Ticks) {
        self.by_opcode[op.opcode() as usize] = ticks;
    }

    /// Every cost multiplied by `factor` (rounded to the nearest tick; `--scale-costs`).
    pub fn scaled(&self, factor: f64) -> TickCosts {
        let mut by_opcode = self.by_opcode;
        for c in &mut by_opcode {
            *c = (*c as f64 * factor).round() as Ticks;
        }
        TickCosts { by_opcode }
    }

    /// The whole table, indexed by opcode.
    pub fn by_opcode(&self) -> &[Ticks; 256] {
        &self.by_opcode
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
}
