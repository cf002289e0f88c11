//! The one place text is quoted for a structured format: a JSON string through
//! `serde_json`, a CSV record through the `csv` crate. Writers that build their
//! documents as they stream (Chrome traces, the analysis report) quote every text they
//! write through these, so no tool carries an escaper of its own. Also the one renderer
//! of the source line under an error message with a caret ([`snippet`]), which the
//! compiler's diagnostics and the expression errors of mapping strings and machine files
//! share. And the "did you mean" of every tool's unknown names ([`did_you_mean`]).

/// The most characters of a line [`snippet`] shows: an error in a file that is no source
/// (a binary, `/proc/self/environ`, one huge line) echoes no more than this of it.
pub const SNIPPET_CHARS: usize = 120;

/// The two lines under an error message at line `line`, column `col` (1-based) of a
/// source whose line is `text`: ` N | text`, then a caret under `width` characters
/// (at least one) from the column, tabs kept so that it lines up under them. A line
/// longer than [`SNIPPET_CHARS`] shows only that many characters around the column,
/// with `…` where it is cut; control characters but tab show as `?`. Nothing but that
/// one line of the file is ever shown.
pub fn snippet(line: u32, col: u32, text: &str, width: usize) -> String {
    let gutter = line.to_string();
    let chars: Vec<char> = text.chars().collect();
    let at = (col.saturating_sub(1) as usize).min(chars.len());
    let start = match chars.len() {
        n if n <= SNIPPET_CHARS => 0,
        n => at.saturating_sub(SNIPPET_CHARS / 2).min(n - SNIPPET_CHARS),
    };
    let end = chars.len().min(start + SNIPPET_CHARS);
    let shown: String = chars[start..end].iter().map(|&c| if c.is_control() && c != '\t' { '?' } else { c }).collect();
    let (lead, trail) = (if start > 0 { "…" } else { "" }, if end < chars.len() { "…" } else { "" });
    let pad: String =
        lead.chars().chain(chars[start..at].iter().copied()).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
    let width = width.min(end.saturating_sub(at)).max(1);
    format!(" {gutter} | {lead}{shown}{trail}\n {} | {pad}{}\n", " ".repeat(gutter.len()), "^".repeat(width))
}

/// The most characters of one `quoted` text in an error message ([`shorten_quotes`]).
pub const QUOTE_CHARS: usize = 80;

/// An error message with every text between backquotes (how the tools quote what they
/// read: a token, a line, a name) cut to [`QUOTE_CHARS`] characters with `…`, and control
/// characters but tab shown as `?`: a message about a file that is no source (one huge
/// line, a binary) echoes no more than that of it.
pub fn shorten_quotes(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(4096));
    let mut inside = false;
    let mut run = 0usize;
    for c in message.chars() {
        if c == '`' {
            if inside && run > QUOTE_CHARS {
                out.push('…');
            }
            inside = !inside;
            run = 0;
            out.push(c);
            continue;
        }
        if inside {
            run += 1;
            if run > QUOTE_CHARS {
                continue;
            }
        }
        out.push(if c.is_control() && c != '\t' && c != '\n' { '?' } else { c });
    }
    if inside && run > QUOTE_CHARS {
        out.push('…');
    }
    out
}

/// `s` as a JSON string literal, quotes included (`serde_json`'s escaping).
pub fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| String::from("\"\""))
}

/// `x` rounded to `digits` decimals, as the text report prints it (a JSON number then
/// reads as the figure a person sees, not as the float behind it).
pub fn rounded(x: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    let r = (x * scale).round() / scale;
    if r.is_finite() {
        r
    } else {
        x
    }
}

/// A number the reports formatted (`units`, `{:.4}`…) as a JSON number; a text that is
/// no JSON number stays a string rather than being lost.
pub fn json_number(text: &str) -> serde_json::Value {
    match serde_json::from_str::<serde_json::Number>(text) {
        Ok(n) => serde_json::Value::Number(n),
        Err(_) => serde_json::Value::String(text.to_owned()),
    }
}

/// One CSV record of `cells`, with its line end, quoted where a cell needs it (a comma,
/// quote or line break), as the `csv` crate writes it.
pub fn csv_record<I, T>(cells: I) -> String
where
    I: IntoIterator<Item = T>,
    T: AsRef<[u8]>,
{
    let mut w = csv::WriterBuilder::new().flexible(true).from_writer(Vec::new());
    let written = w.write_record(cells);
    debug_assert!(written.is_ok(), "writing CSV to memory cannot fail");
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// `s` as one CSV cell (quoted, quotes doubled, when it holds a comma, quote or line
/// break).
pub fn csv_cell(s: &str) -> String {
    if s.is_empty() {
        // Alone on its record the crate writes `""`; in a row it is nothing.
        return String::new();
    }
    let mut r = csv_record([s]);
    r.truncate(r.trim_end_matches(['\n', '\r']).len());
    r
}

/// The longest line a text reader accepts ([`lines`]): 1 MiB.
pub const MAX_LINE: usize = 1 << 20;

/// The lines of `input` (without their line ends), each at most `max` bytes: a longer one
/// (a line that never ends, a binary file) is an error of kind `InvalidData` instead of
/// growing without bound, as is a line that is not UTF-8.
pub fn lines<R: std::io::BufRead>(mut input: R, max: usize) -> impl Iterator<Item = std::io::Result<String>> {
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let mut buf = Vec::new();
        let r = std::io::BufRead::read_until(&mut std::io::Read::take(&mut input, max as u64 + 1), b'\n', &mut buf);
        let bad = |what: String| Some(Err(std::io::Error::new(std::io::ErrorKind::InvalidData, what)));
        match r {
            Err(e) => {
                done = true;
                Some(Err(e))
            }
            Ok(0) => None,
            Ok(_) => {
                if buf.last() == Some(&b'\n') {
                    buf.pop();
                    if buf.last() == Some(&b'\r') {
                        buf.pop();
                    }
                } else if buf.len() > max {
                    done = true;
                    return bad(format!("a line longer than {max} bytes"));
                }
                match String::from_utf8(buf) {
                    Ok(s) => Some(Ok(s)),
                    Err(_) => {
                        done = true;
                        bad("a line that is not UTF-8 text".to_string())
                    }
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_bounded_and_text() {
        let got: Vec<String> = lines("a\r\nbb\n\nc".as_bytes(), 4).map(|l| l.unwrap()).collect();
        assert_eq!(got, ["a", "bb", "", "c"]);
        // A 5-byte line with a limit of 4: an error, and nothing after it.
        let mut it = lines("abcd\nabcde\nx\n".as_bytes(), 4);
        assert_eq!(it.next().unwrap().unwrap(), "abcd");
        assert!(it.next().unwrap().unwrap_err().to_string().contains("longer than 4 bytes"));
        assert!(it.next().is_none());
        let mut it = lines(&b"\xff\n"[..], 4);
        assert!(it.next().unwrap().is_err());
        // An endless line stops at the limit.
        let mut it = lines(std::io::BufReader::new(std::io::repeat(b'x')), 1000);
        assert!(it.next().unwrap().is_err());
    }

    #[test]
    fn json_strings_escape_quotes_backslashes_and_controls() {
        assert_eq!(json_string("a\"b\\\n\u{1}"), r#""a\"b\\\n\u0001""#);
        assert_eq!(json_string("naïve"), "\"naïve\"");
        // What is written reads back as the same text.
        let back: String = serde_json::from_str(&json_string("x,\"y\"\t\u{7f}")).unwrap();
        assert_eq!(back, "x,\"y\"\t\u{7f}");
    }

    #[test]
    fn csv_cells_are_quoted_only_when_needed() {
        assert_eq!(csv_cell("plain"), "plain");
        assert_eq!(csv_cell("a,b"), "\"a,b\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_cell(""), "");
        assert_eq!(csv_record(["1", "x,y", ""]), "1,\"x,y\",\n");
        // A record reads back as its cells.
        let text = csv_record(["p\"q", "r\ns", "t"]);
        let mut rd = csv::ReaderBuilder::new().has_headers(false).from_reader(text.as_bytes());
        let rec = rd.records().next().unwrap().unwrap();
        assert_eq!(rec.iter().collect::<Vec<_>>(), ["p\"q", "r\ns", "t"]);
    }
}

#[cfg(test)]
mod snippet_tests {
    #[test]
    fn the_caret_sits_under_the_span_and_keeps_tabs() {
        // Column 3 of "  y = 3;" is `y`; a tab before the column stays a tab.
        assert_eq!(super::snippet(2, 3, "  y = 3;", 1), " 2 |   y = 3;\n   |   ^\n");
        assert_eq!(super::snippet(10, 2, "\tx", 0), " 10 | \tx\n    | \t^\n");
        // A caret past the end of the line sits just after it.
        assert_eq!(super::snippet(1, 9, "ab", 3), " 1 | ab\n   |   ^\n");
    }

    /// A quoted text of 200 characters is cut to 80 and `…`; short quotes, the text
    /// around them and an unclosed quote's first 80 characters stay; a NUL shows as `?`.
    #[test]
    fn long_quotes_in_messages_are_cut() {
        let long = "x".repeat(200);
        assert_eq!(
            super::shorten_quotes(&format!("found `{long}` after `a`")),
            format!("found `{}…` after `a`", "x".repeat(80))
        );
        assert_eq!(super::shorten_quotes(&format!("at `{long}")), format!("at `{}…", "x".repeat(80)));
        assert_eq!(super::shorten_quotes("name `a\0b`\nnext line"), "name `a?b`\nnext line");
    }

    /// A 1000-character line shows 120 characters around the column, cut with `…` on
    /// both sides (the caret under column 500 sits 61 places in: `…` and 60 before it);
    /// a NUL and an escape show as `?`, so no terminal control reaches the screen.
    #[test]
    fn a_long_or_binary_line_shows_a_window_of_it() {
        let text: String = (0..1000).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        let s = super::snippet(1, 500, &text, 4);
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0], format!(" 1 | …{}…", &text[439..559]));
        assert_eq!(lines[1], format!("   | {}^^^^", " ".repeat(61)));
        assert_eq!(super::snippet(1, 1, "A\0B\x1bC", 1), " 1 | A?B?C\n   | ^\n");
    }
}

/// "; did you mean `X`?" for the candidate closest to `word` (Levenshtein distance with
/// transpositions, strsim's optimal string alignment) when it is close enough to be a
/// slip — at most a third of the word's length, and at least one edit — else "". For an
/// error message that already lists what is known: `unknown kind `mesj` (expected line,
/// ring, mesh, ...); did you mean `mesh`?`.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    let limit = (word.chars().count() / 3).max(1);
    let best = candidates
        .into_iter()
        .map(|c| (strsim::osa_distance(word, c), c))
        .filter(|&(d, _)| d > 0 && d <= limit)
        .min_by_key(|&(d, _)| d);
    best.map_or_else(String::new, |(_, c)| format!("; did you mean `{c}`?"))
}

#[cfg(test)]
mod did_you_mean_tests {
    use super::did_you_mean;

    #[test]
    fn a_slip_is_named_and_a_stranger_is_not() {
        // `mesj` is one edit from `mesh` (4 letters: up to 1 edit); `snkae` two from
        // `snake`... which is not a candidate here; `torus2mehs` one transposition from
        // `torus2mesh`; `grid` is 3 or more edits from every kind: nothing.
        let kinds = ["line", "ring", "mesh", "torus", "hypercube"];
        assert_eq!(did_you_mean("mesj", kinds), "; did you mean `mesh`?");
        assert_eq!(did_you_mean("torus2mehs", ["default", "torus2mesh"]), "; did you mean `torus2mesh`?");
        assert_eq!(did_you_mean("grid", kinds), "");
        assert_eq!(did_you_mean("mesh", kinds), "");
        assert_eq!(did_you_mean("link-dely", ["link-delay", "lanes"]), "; did you mean `link-delay`?");
    }
}
