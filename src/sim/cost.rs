//! The instruction cost table: time units per instruction kind, indexed by opcode.
//!
//! Starts from [`Op::default_cost`] (the vCode table) and can be overridden one kind at a
//! time (`--cost OP=T`, mnemonics case-insensitive). Depends on `vcode::isa`.
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
        let (name, value) = text.split_once('=').ok_or_else(|| CostError::Syntax { text: text.to_string() })?;
        let (name, value) = (name.trim(), value.trim());
        let op = Op::from_mnemonic(name).ok_or_else(|| CostError::UnknownOp { name: name.to_string() })?;
        let cost =
            value.parse().map_err(|_| CostError::BadValue { name: name.to_string(), value: value.to_string() })?;
        self.set(op, cost);
        Ok(())
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
}
