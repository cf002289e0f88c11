//! The vCode listing printed by `cpcc -S` and the debugger's `vcode FROM TO`: per
//! instruction, its source line, its index, mnemonic and operands (seed 000 §4.1.3).
//!
//! Depends only on [`super::module`] and the mnemonics and operand text of [`super::isa`].
//! Works on any [`Module`], verified or not: out-of-range references print as numbers.
//!
//! # Format (stable: golden tests pin it)
//!
//! ```text
//!   line    pc  op              operands
//! ; function worker (line 4)
//!      5     0  LDADDR          0 0
//!      8     9  FORK            0 1 1  ; worker
//! ```
//!
//! * A header row, then one row per instruction in index order.
//! * Columns: source line right-aligned in 6 characters, the instruction index right-aligned
//!   in 6, two spaces, the mnemonic left-aligned in 16, the operands separated by single
//!   spaces (in the instruction table's order). Wider numbers widen their column.
//! * CALL, FORK and FORALL end with `  ; NAME`, the called function's name.
//! * Before the first listed instruction of a function, a comment line
//!   `; function NAME (line L)` (`; forall body NAME (line L)` for a forall body).
//! * No trailing spaces; every line ends with `\n`.
use super::module::Module;
use std::fmt::Write as _;

/// The header row of every listing.
pub const HEADER: &str = "  line    pc  op              operands";

/// The whole program's listing.
pub fn listing(m: &Module) -> String {
    render(m, |_| true)
}

/// The listing of the instructions whose source line is in `from_line..=to_line` (the
/// debugger's `vcode FROM TO`). Only the header when no instruction is on those lines.
pub fn listing_range(m: &Module, from_line: u32, to_line: u32) -> String {
    render(m, |line| (from_line..=to_line).contains(&line))
}

fn render(m: &Module, keep_line: impl Fn(u32) -> bool) -> String {
    // The function owning each instruction; the first function wins where (invalid)
    // ranges overlap, as in `Module::function_at`.
    let mut owner: Vec<Option<usize>> = vec![None; m.code.len()];
    for (i, f) in m.functions.iter().enumerate().rev() {
        let end = (f.end as usize).min(owner.len());
        let start = (f.entry as usize).min(end);
        for slot in &mut owner[start..end] {
            *slot = Some(i);
        }
    }
    let mut out = String::new();
    out.push_str(HEADER);
    out.push('\n');
    let mut current: Option<usize> = None;
    for (pc, (instr, &own)) in m.code.iter().zip(&owner).enumerate() {
        let line = m.line_of(pc as u32);
        if !keep_line(line) {
            continue;
        }
        if own.is_some() && own != current {
            if let Some(f) = own.and_then(|f| m.functions.get(f)) {
                let what = if f.is_forall_body { "forall body" } else { "function" };
                let _ = writeln!(out, "; {what} {} (line {})", f.name, f.line);
            }
        }
        current = own;
        let mut row = format!("{line:>6}{pc:>6}  {:<16}{}", instr.op().mnemonic(), instr.operands_text());
        if let Some(f) = instr.func_ref().and_then(|f| m.functions.get(f as usize)) {
            let _ = write!(row, "  ; {}", f.name);
        }
        out.push_str(row.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vcode::cod::tests::sample_module;

    /// Rows read off the sample module's code table (see `cod::tests::sample_module`):
    /// worker is pc 0..6 (lines 5–6), main pc 6..20 (lines 8–11).
    const SAMPLE_LISTING: &str = "  line    pc  op              operands
; function worker (line 4)
     5     0  LDADDR          0 0
     5     1  LDVal           1 0
     5     2  INDEX           1 2
     5     3  LDVal           1 0
     5     4  SEND            1
     6     5  RET             0
; function main (line 7)
     8     6  PUSHI           1
     8     7  LDADDR          0 1
     8     8  PUSHI           1
     8     9  FORK            0 1 1  ; worker
     9    10  LDADDR          0 2
     9    11  LDADDR          0 1
     9    12  RECV            1
     9    13  STORE           int 0
    10    14  LDVal           0 2
    10    15  JPF             17
    10    16  JOIN
    11    17  LDADDR          0 3
    11    18  PRINTF          0
    11    19  HALT
";

    #[test]
    fn whole_listing_matches_golden_text() {
        assert_eq!(listing(&sample_module()), SAMPLE_LISTING);
    }

    #[test]
    fn range_lists_only_those_lines_with_their_function() {
        // Lines 9..=10 are pcs 10..17, all in main: one function comment, seven rows.
        let expected = "  line    pc  op              operands
; function main (line 7)
     9    10  LDADDR          0 2
     9    11  LDADDR          0 1
     9    12  RECV            1
     9    13  STORE           int 0
    10    14  LDVal           0 2
    10    15  JPF             17
    10    16  JOIN
";
        assert_eq!(listing_range(&sample_module(), 9, 10), expected);
    }

    #[test]
    fn range_without_code_is_only_the_header() {
        // Lines 1–3 are declarations: no code.
        assert_eq!(listing_range(&sample_module(), 1, 3), format!("{HEADER}\n"));
        // A reversed range is empty too.
        assert_eq!(listing_range(&sample_module(), 9, 8), format!("{HEADER}\n"));
    }

    #[test]
    fn forall_bodies_and_bad_references_are_printed_without_panic() {
        let mut m = sample_module();
        m.functions[0].is_forall_body = true;
        m.functions[1].entry = 1000; // out of the code: no comment, no panic
        m.code[9] = crate::vcode::Instr::Call { func: 42 }; // no name to show
        let text = listing(&m);
        assert!(text.contains("; forall body worker (line 4)\n"));
        assert!(!text.contains("; function main"));
        assert!(text.contains("     8     9  CALL            42\n"));
    }
}
