//! Diagnostics as data: every phase of the front end returns a list of [`Diagnostic`]s
//! instead of stopping at the first problem; [`SourceMap::render`] prints them as
//! `file:line:col: error: message`, the source line, and a caret under the culprit.
use super::ast::Loc;
use std::fmt::Write as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub loc: Loc,
    pub message: String,
    /// Extra lines printed after the caret (`note: …`).
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(loc: Loc, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Error, loc, message: message.into(), notes: Vec::new() }
    }
    pub fn warning(loc: Loc, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Warning, loc, message: message.into(), notes: Vec::new() }
    }
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// One file read by the compiler (the main source or an include).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// The name shown in diagnostics (as given on the command line or in `#include`).
    pub name: String,
    pub text: String,
}

/// All files of one compilation; `Loc::file` indexes into it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceMap {
    pub files: Vec<SourceFile>,
}

impl SourceMap {
    /// Adds a file and returns its index.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> u32 {
        self.files.push(SourceFile { name: name.into(), text: text.into() });
        (self.files.len() - 1) as u32
    }

    /// The text of line `line` (1-based) of file `file`, without its newline.
    pub fn line_text(&self, file: u32, line: u32) -> Option<&str> {
        let f = self.files.get(file as usize)?;
        f.text.split('\n').nth(line.checked_sub(1)? as usize).map(|l| l.strip_suffix('\r').unwrap_or(l))
    }

    /// Renders one diagnostic: header, source line and caret, notes.
    pub fn render(&self, d: &Diagnostic) -> String {
        self.render_with(d, |file, line| self.line_text(file, line))
    }

    /// [`Self::render`] with the source line found by `line_text`.
    fn render_with<'s>(&self, d: &Diagnostic, line_text: impl Fn(u32, u32) -> Option<&'s str>) -> String {
        let name = self.files.get(d.loc.file as usize).map_or("<unknown>", |f| f.name.as_str());
        let sev = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let message = crate::textio::shorten_quotes(&d.message);
        let mut s = format!("{}:{}:{}: {}: {}\n", name, d.loc.line, d.loc.col, sev, message);
        if let Some(text) = line_text(d.loc.file, d.loc.line) {
            s.push_str(&crate::textio::snippet(d.loc.line, d.loc.col, text, d.loc.len as usize));
        }
        for n in &d.notes {
            let _ = writeln!(s, "  = note: {}", crate::textio::shorten_quotes(n));
        }
        s
    }

    /// Whether file `file` is C source by its name: the main file, a built-in header, or
    /// an include named `.h`, `.c`, `.inc` or `.def`. Of any other file (`#include
    /// "/etc/passwd"` under `cpcc --trust`) the diagnostics show one line at most.
    pub fn is_source(&self, file: u32) -> bool {
        let Some(f) = self.files.get(file as usize) else { return false };
        file == 0
            || f.name.starts_with('<')
            || std::path::Path::new(&f.name)
                .extension()
                .is_some_and(|e| ["h", "c", "inc", "def"].iter().any(|x| e.eq_ignore_ascii_case(x)))
    }

    /// Renders every diagnostic in order; each file's lines are found once, so the time
    /// grows with the number of diagnostics, not with its product by the file's length.
    /// A file that is no source ([`Self::is_source`]) has its line shown under its first
    /// diagnostic only.
    pub fn render_all(&self, diags: &[Diagnostic]) -> String {
        let lines: Vec<Vec<&str>> = self
            .files
            .iter()
            .map(|f| f.text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect())
            .collect();
        let mut shown = std::collections::BTreeSet::new();
        diags
            .iter()
            .map(|d| {
                let show = self.is_source(d.loc.file) || shown.insert(d.loc.file);
                self.render_with(d, |file, line| {
                    lines.get(file as usize)?.get(line.checked_sub(1)? as usize).copied().filter(|_| show)
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_header_line_and_caret() {
        let mut sm = SourceMap::default();
        sm.add("p.c", "int x;\n  y = 3;\n");
        let d = Diagnostic::error(Loc { file: 0, line: 2, col: 3, len: 1 }, "undeclared name `y`");
        assert_eq!(sm.render(&d), "p.c:2:3: error: undeclared name `y`\n 2 |   y = 3;\n   |   ^\n");
    }

    /// Two errors in `/etc/passwd` (no source by its name) show its first line only, under
    /// the first error; two in a header `q.h` show both lines.
    #[test]
    fn a_file_that_is_no_source_shows_one_line() {
        let mut sm = SourceMap::default();
        sm.add("p.c", "#include ...\n");
        sm.add("/etc/passwd", "root:x:0:0\nuser:x:1000:1000\n");
        sm.add("q.h", "a b\nc d\n");
        let at = |file, line| Diagnostic::error(Loc { file, line, col: 1, len: 1 }, "bad");
        let text = sm.render_all(&[at(1, 1), at(1, 2), at(2, 1), at(2, 2)]);
        assert_eq!(
            text,
            "/etc/passwd:1:1: error: bad\n 1 | root:x:0:0\n   | ^\n/etc/passwd:2:1: error: bad\n\
             q.h:1:1: error: bad\n 1 | a b\n   | ^\nq.h:2:1: error: bad\n 2 | c d\n   | ^\n"
        );
        assert!(sm.is_source(0) && !sm.is_source(1) && sm.is_source(2));
    }
}

/// Levenshtein distance with adjacent transpositions counted as one edit (`pritnf` is one
/// edit from `printf`), by characters: strsim's optimal string alignment distance.
pub fn edit_distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

#[cfg(test)]
mod edit_tests {
    use super::edit_distance;

    #[test]
    fn transposition_is_one_edit() {
        // `pritnf` swaps two neighbours of `printf`: one edit, not two.
        assert_eq!(edit_distance("pritnf", "printf"), 1);
        assert_eq!(edit_distance("retrun", "return"), 1);
        assert_eq!(edit_distance("cout", "count"), 1);
        assert_eq!(edit_distance("abc", "xyz"), 3);
        assert_eq!(edit_distance("", "ab"), 2);
    }
}
