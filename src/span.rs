//! Ranges of ids as users write them, one syntax for every tool: `7` (one id), `0-3` or
//! `0:3` (both bounds included). `cptrace --procs`, `cpperf`'s processor ranges and the
//! debugger's `status`, `util`, `profile` and array ranges all read them here.
//!
//! A leaf: depends on nothing else in the crate.

/// What is wrong with a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanError {
    /// A bound is not a whole number.
    NotANumber,
    /// The low bound is above the high one.
    Reversed,
}

impl std::fmt::Display for SpanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SpanError::NotANumber => "bounds are whole numbers",
            SpanError::Reversed => "the low bound is above the high bound",
        })
    }
}

/// `7`, `0-3` or `0:3` (spaces allowed around the numbers) as `(low, high)`.
pub fn parse_span(text: &str) -> Result<(u32, u32), SpanError> {
    let t = text.trim();
    let (lo, hi) = match t.split_once(['-', ':']) {
        Some((a, b)) => (a.trim(), b.trim()),
        None => (t, t),
    };
    let lo: u32 = lo.parse().map_err(|_| SpanError::NotANumber)?;
    let hi: u32 = hi.parse().map_err(|_| SpanError::NotANumber)?;
    if lo > hi {
        return Err(SpanError::Reversed);
    }
    Ok((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_separators_and_single_ids() {
        assert_eq!(parse_span("0-3"), Ok((0, 3)));
        assert_eq!(parse_span("0:3"), Ok((0, 3)));
        assert_eq!(parse_span(" 2 : 5 "), Ok((2, 5)));
        assert_eq!(parse_span("7"), Ok((7, 7)));
        assert_eq!(parse_span("3-1"), Err(SpanError::Reversed));
        assert_eq!(parse_span("-1"), Err(SpanError::NotANumber), "no negative ids");
        assert_eq!(parse_span("1-2-3"), Err(SpanError::NotANumber));
        assert_eq!(parse_span("a:b"), Err(SpanError::NotANumber));
        assert_eq!(parse_span(""), Err(SpanError::NotANumber));
    }
}
