//! The map file: a mapping table written by `cpmap --emit map` and read by
//! `cpss --map-file`. Plain text so that it can be edited by hand and diffed:
//!
//! ```text
//! # cppe map file: one line per virtual processor, VPROC PPROC
//! virtual torus:8x8
//! physical mesh:8x8
//! 0 0    # (0,0) -> (0,0)
//! 1 2    # (0,1) -> (0,2)
//! ...
//! ```
//!
//! `#` starts a comment (whole line or after an entry); blank lines are ignored. The
//! `virtual` and `physical` headers (topologies in [`Topology`]'s `KIND:SIZES` form) come
//! first, once each, in either order; then exactly one `VPROC PPROC` line per virtual
//! processor, in any order. Several virtual processors may share a physical one.
//! Errors name the file line.
use std::fmt::Write as _;

use super::{MapError, Mapping, Topology};

/// A parsed map file: the two architectures and the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapFile {
    /// The virtual architecture the table is for.
    pub virt: Topology,
    /// The physical architecture the table is for.
    pub phys: Topology,
    /// The table (its warnings are empty after reading).
    pub mapping: Mapping,
}

impl MapFile {
    /// Parses map-file text.
    pub fn parse(text: &str) -> Result<MapFile, MapError> {
        let mut virt: Option<Topology> = None;
        let mut phys: Option<Topology> = None;
        // First line number of each virtual processor's entry (0 = not seen yet).
        let mut seen: Vec<usize> = Vec::new();
        let mut table: Vec<u32> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let mut words = content.split_whitespace();
            let (Some(first), second, rest) = (words.next(), words.next(), words.next()) else { continue };
            let syntax = |message: &str| MapError::Syntax { line, message: message.to_string(), text: raw.to_string() };
            if rest.is_some() {
                return Err(syntax("expected `VPROC PPROC` or a `virtual`/`physical` header"));
            }
            let Some(second) = second else {
                return Err(syntax("expected `VPROC PPROC` or a `virtual`/`physical` header"));
            };
            if first == "virtual" || first == "physical" {
                if !seen.is_empty() {
                    return Err(syntax("headers must come before the entries"));
                }
                let topo = Topology::parse(second).map_err(|source| MapError::BadTopology { line, source })?;
                let (slot, keyword) = if first == "virtual" { (&mut virt, "virtual") } else { (&mut phys, "physical") };
                if slot.is_some() {
                    return Err(MapError::DuplicateHeader { line, keyword });
                }
                *slot = Some(topo);
                continue;
            }
            let (Some(v), Some(p)) = (&virt, &phys) else {
                let keyword = if virt.is_none() { "virtual" } else { "physical" };
                return Err(MapError::MissingHeader { keyword });
            };
            if seen.is_empty() {
                seen = vec![0; v.nodes() as usize];
                table = vec![0; v.nodes() as usize];
            }
            let number = |s: &str| s.parse::<u32>().map_err(|_| MapError::BadNumber { line, text: s.to_string() });
            let (vproc, pproc) = (number(first)?, number(second)?);
            let Some(first_line) = seen.get_mut(vproc as usize) else {
                return Err(MapError::VprocOutOfRange { line, vproc, count: v.nodes() });
            };
            if *first_line != 0 {
                return Err(MapError::DuplicateVproc { line, vproc, first_line: *first_line });
            }
            if pproc >= p.nodes() {
                return Err(MapError::PprocOutOfRangeAt { line, pproc, count: p.nodes() });
            }
            *first_line = line;
            if let Some(slot) = table.get_mut(vproc as usize) {
                *slot = pproc;
            }
        }
        let Some(virt) = virt else { return Err(MapError::MissingHeader { keyword: "virtual" }) };
        let Some(phys) = phys else { return Err(MapError::MissingHeader { keyword: "physical" }) };
        if seen.is_empty() {
            seen = vec![0; virt.nodes() as usize];
            table = vec![0; virt.nodes() as usize];
        }
        if let Some(vproc) = seen.iter().position(|&l| l == 0) {
            return Err(MapError::MissingVproc { vproc: vproc as u32 });
        }
        Ok(MapFile { virt, phys, mapping: Mapping::new(table) })
    }

    /// The file text: headers, then one entry per virtual processor in id order, each
    /// with its virtual and physical coordinates as a comment. The mapping's warnings, if
    /// any, become comment lines.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        out.push_str("# cppe map file: one line per virtual processor, VPROC PPROC\n");
        for w in &self.mapping.warnings {
            let _ = writeln!(out, "# warning: {w}");
        }
        let _ = writeln!(out, "virtual {}", self.virt);
        let _ = writeln!(out, "physical {}", self.phys);
        for (v, &p) in self.mapping.table.iter().enumerate() {
            let v = v as u32;
            let vc = if v < self.virt.nodes() { coords_text(&self.virt.coords(v)) } else { "?".into() };
            let pc = if p < self.phys.nodes() { coords_text(&self.phys.coords(p)) } else { "?".into() };
            let _ = writeln!(out, "{v} {p}    # {vc} -> {pc}");
        }
        out
    }
}

fn coords_text(c: &[u32]) -> String {
    let parts: Vec<String> = c.iter().map(|x| x.to_string()).collect();
    format!("({})", parts.join(","))
}

#[cfg(test)]
mod tests {
    use super::super::builtin_mapping;
    use super::*;

    fn t(s: &str) -> Topology {
        match Topology::parse(s) {
            Ok(t) => t,
            Err(e) => panic!("{s}: {e}"),
        }
    }

    fn parse(text: &str) -> Result<MapFile, MapError> {
        MapFile::parse(text)
    }

    #[test]
    fn round_trip() {
        let (virt, phys) = (t("torus:4x4"), t("mesh:4x4"));
        let mapping = match builtin_mapping("torus2mesh", &virt, &phys, 0) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        let file = MapFile { virt, phys, mapping };
        let text = file.to_text();
        // (0,3) → (jump(0)=0, jump(3,4)=2*(4-3)-1=1) = id 1.
        assert!(text.contains("\n3 1    # (0,3) -> (0,1)\n"), "{text}");
        assert_eq!(parse(&text), Ok(file));
    }

    #[test]
    fn hand_written_file_with_comments_any_order_many_to_one() {
        let text = "# ring of 4 on 2\nphysical line:2\n\nvirtual ring:4\n3 1\n0 0 # first\n2 1\n1 0\n";
        let f = parse(text);
        assert_eq!(f.map(|f| f.mapping.table), Ok(vec![0, 0, 1, 1]));
    }

    #[test]
    fn errors_name_the_line() {
        let head = "virtual ring:4\nphysical line:4\n";
        assert_eq!(parse(&format!("{head}0 0\n1 x\n")), Err(MapError::BadNumber { line: 4, text: "x".into() }));
        assert_eq!(
            parse(&format!("{head}0 0\n1 1\n0 2\n")),
            Err(MapError::DuplicateVproc { line: 5, vproc: 0, first_line: 3 })
        );
        assert_eq!(parse(&format!("{head}0 0\n1 1\n3 3\n")), Err(MapError::MissingVproc { vproc: 2 }));
        assert_eq!(parse(&format!("{head}0 4\n")), Err(MapError::PprocOutOfRangeAt { line: 3, pproc: 4, count: 4 }));
        assert_eq!(parse(&format!("{head}4 0\n")), Err(MapError::VprocOutOfRange { line: 3, vproc: 4, count: 4 }));
        assert_eq!(parse("virtual ring:4\n0 0\n"), Err(MapError::MissingHeader { keyword: "physical" }));
        assert_eq!(parse("physical ring:4\n"), Err(MapError::MissingHeader { keyword: "virtual" }));
        assert!(matches!(parse("virtual ring:4\nvirtual ring:4\n"), Err(MapError::DuplicateHeader { line: 2, .. })));
        assert!(matches!(parse("virtual ring:x\n"), Err(MapError::BadTopology { line: 1, .. })));
        assert!(matches!(parse(&format!("{head}0 0 0\n")), Err(MapError::Syntax { line: 3, .. })));
        assert!(matches!(parse(&format!("{head}0\n")), Err(MapError::Syntax { line: 3, .. })));
        assert!(matches!(parse(&format!("{head}0 0\nvirtual ring:4\n")), Err(MapError::Syntax { line: 4, .. })));
        let msg = parse(&format!("{head}0 0\n1 x\n")).map(|_| ()).unwrap_err().to_string();
        assert!(msg.contains("line 4"), "{msg}");
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The reader never panics, whatever the text.
        #[test]
        fn parse_never_panics(text in "(virtual ring:[0-9]{1,2}\n|physical line:[0-9]{1,2}\n|[0-9]{1,2} [0-9]{1,2}\n|[0-9 #x:a-z]{0,12}\n){0,12}") {
            let _ = MapFile::parse(&text);
        }

        /// Any table of a ring of `nv` on a line of `np` survives writing and reading.
        #[test]
        fn any_table_round_trips(np in 1u32..10, table in proptest::collection::vec(0u32..10, 1..12)) {
            let table: Vec<u32> = table.into_iter().map(|p| p % np).collect();
            let virt = Topology::parse(&format!("ring:{}", table.len())).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let phys = Topology::parse(&format!("line:{np}")).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let file = MapFile { virt, phys, mapping: Mapping::new(table) };
            prop_assert_eq!(MapFile::parse(&file.to_text()), Ok(file));
        }
    }
}
