//! The one place text is quoted for a structured format: a JSON string through
//! `serde_json`, a CSV record through the `csv` crate. Writers that build their
//! documents as they stream (Chrome traces, the analysis report) quote every text they
//! write through these, so no tool carries an escaper of its own.

/// `s` as a JSON string literal, quotes included (`serde_json`'s escaping).
pub fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| String::from("\"\""))
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

#[cfg(test)]
mod tests {
    use super::*;

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
