//! Report tables and the figures in them, for every section of `cpperf`'s reports: a
//! table is one list of columns and one of rows of [`Cell`]s, written as CSV or JSON
//! from the same lists; times are time units as `cpss --stats` writes them.
//!
//! Depends on [`crate::textio`] and [`crate::time`] only, so that every section module
//! and [`super::render`] use it without importing each other.
use serde_json::Value;

pub use crate::textio::{csv_cell as csv_str, json_number as number, json_string as json_str, rounded};

/// The version of the JSON report's schema (the fields of `ReportDoc`); it changes
/// when a field is renamed or removed or changes meaning, not when one is added.
pub const JSON_SCHEMA_VERSION: u32 = 1;

/// One cell of a report table: a number (written alike in CSV and JSON), a text (quoted
/// each format's way) or nothing (empty in CSV, `null` in JSON).
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// A number, already formatted.
    Num(String),
    /// A text.
    Text(String),
    /// No value.
    Null,
}

/// A report table as CSV: the header, then one line per row. `columns` and each row's
/// cells come from one list per table, so CSV and JSON ([`table_json`]) cannot drift.
pub fn table_csv<const N: usize>(columns: &[&str; N], rows: impl IntoIterator<Item = [Cell; N]>) -> String {
    let mut o = columns.join(",");
    o.push('\n');
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .map(|c| match c {
                Cell::Num(v) => v.clone(),
                Cell::Text(t) => csv_str(t),
                Cell::Null => String::new(),
            })
            .collect();
        o.push_str(&cells.join(","));
        o.push('\n');
    }
    o
}

/// A report table as a JSON array of objects, one per row, keyed by `columns` in their
/// order.
pub fn table_json<const N: usize>(columns: &[&str; N], rows: impl IntoIterator<Item = [Cell; N]>) -> Value {
    let object = |row: [Cell; N]| {
        let fields = columns.iter().zip(row).map(|(k, c)| {
            let v = match c {
                Cell::Num(v) => number(&v),
                Cell::Text(t) => Value::String(t),
                Cell::Null => Value::Null,
            };
            (k.to_string(), v)
        });
        Value::Object(fields.collect())
    };
    Value::Array(rows.into_iter().map(object).collect())
}
