//! The lexical layer of the expression engine, written with `nom` combinators: it turns
//! the text into a flat list of [`Token`]s, each with its [`Span`], and skips
//! whitespace and `/* … */` or `// …` comments. The grammar itself (precedence, `?:`,
//! the mapping form) lives in `parse.rs`, which reads these tokens.
//!
//! Numbers are lexed in one of two ways: in a mapping only integers exist, so the `.`
//! after `[x, 1]` and even after `[x, 1.` stays the end-of-mapping dot; in a scalar
//! expression `1.5`, `.5` and `2e-3` are real literals.
use super::{ExprError, Span};
use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{char as one_char, digit0, digit1, hex_digit1, one_of};
use nom::combinator::{opt, recognize};
use nom::sequence::{pair, preceded, tuple};
use nom::IResult;

/// What a token is; the spelling is in [`Token::text`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TokKind {
    /// Decimal or `0x` hexadecimal integer literal.
    Int,
    /// Real literal (scalar expressions only).
    Real,
    Ident,
    /// `#i`: the text after `#` are the digits.
    VirtDim,
    /// `$i`: the text after `$` are the digits.
    PhysDim,
    /// Operator or punctuation; the text says which.
    Punct,
    /// End of input (always the last token).
    End,
}

/// One token with its place in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token<'t> {
    pub kind: TokKind,
    pub text: &'t str,
    pub span: Span,
}

impl Token<'_> {
    /// The token as shown in "found …" messages.
    pub fn describe(&self) -> String {
        match self.kind {
            TokKind::End => "end of input".to_string(),
            _ => format!("`{}`", self.text),
        }
    }

    /// Whether this is the punctuation `p`.
    pub fn is(&self, p: &str) -> bool {
        self.kind == TokKind::Punct && self.text == p
    }
}

type Res<'a, T> = IResult<&'a str, T, nom::error::Error<&'a str>>;

fn ident(i: &str) -> Res<'_, &str> {
    recognize(pair(
        take_while1(|c: char| c.is_ascii_alphabetic() || c == '_'),
        take_while(|c: char| c.is_ascii_alphanumeric() || c == '_'),
    ))(i)
}

fn integer(i: &str) -> Res<'_, &str> {
    alt((recognize(preceded(alt((tag("0x"), tag("0X"))), hex_digit1)), digit1))(i)
}

fn exponent(i: &str) -> Res<'_, &str> {
    recognize(tuple((one_of("eE"), opt(one_of("+-")), digit1)))(i)
}

/// A real literal: it must have a fraction or an exponent, else it is an integer.
fn real(i: &str) -> Res<'_, &str> {
    alt((
        recognize(tuple((digit1, one_char('.'), digit0, opt(exponent)))),
        recognize(tuple((one_char('.'), digit1, opt(exponent)))),
        recognize(pair(digit1, exponent)),
    ))(i)
}

fn dim_ref(i: &str) -> Res<'_, (TokKind, &str)> {
    alt((
        |i| preceded(one_char('#'), digit1)(i).map(|(r, d)| (r, (TokKind::VirtDim, d))),
        |i| preceded(one_char('$'), digit1)(i).map(|(r, d)| (r, (TokKind::PhysDim, d))),
    ))(i)
}

/// Operators, longest first so `<<` wins over `<`.
fn punct(i: &str) -> Res<'_, &str> {
    alt((
        alt((tag("<<"), tag(">>"), tag("<="), tag(">="), tag("=="), tag("!="), tag("&&"), tag("||"), tag("**"))),
        recognize(one_of("+-*/%<>&|^!~?:()[],=.")),
    ))(i)
}

/// Tracks line and column while the lexer moves through the text.
struct Cursor<'t> {
    text: &'t str,
    offset: usize,
    line: u32,
    col: u32,
}

impl<'t> Cursor<'t> {
    fn rest(&self) -> &'t str {
        self.text.get(self.offset..).unwrap_or("")
    }

    fn span(&self, len: usize) -> Span {
        Span { offset: self.offset as u32, len: len as u32, line: self.line, col: self.col }
    }

    /// Moves past `n` bytes (always a prefix of `rest`, so on a char boundary).
    fn advance(&mut self, n: usize) {
        for c in self.rest().get(..n).unwrap_or("").chars() {
            if c == '\n' {
                self.line += 1;
                self.col = 1;
            } else {
                self.col += 1;
            }
        }
        self.offset += n;
    }

    /// Skips whitespace and comments; an unterminated `/*` is an error at its start.
    fn skip_blanks(&mut self) -> Result<(), ExprError> {
        loop {
            let rest = self.rest();
            let blank = rest.len() - rest.trim_start().len();
            if blank > 0 {
                self.advance(blank);
                continue;
            }
            if rest.starts_with("/*") {
                match rest.get(2..).and_then(|r| r.find("*/")) {
                    Some(end) => self.advance(end + 4),
                    None => {
                        return Err(ExprError::UnterminatedComment { span: self.span(2) });
                    }
                }
                continue;
            }
            if rest.starts_with("//") {
                let end = rest.find('\n').unwrap_or(rest.len());
                self.advance(end);
                continue;
            }
            return Ok(());
        }
    }
}

/// Splits `text` into tokens, the last one [`TokKind::End`]. `reals` admits real literals.
pub(crate) fn tokenize(text: &str, reals: bool) -> Result<Vec<Token<'_>>, ExprError> {
    let mut cur = Cursor { text, offset: 0, line: 1, col: 1 };
    let mut tokens = Vec::new();
    loop {
        cur.skip_blanks()?;
        let rest = cur.rest();
        if rest.is_empty() {
            tokens.push(Token { kind: TokKind::End, text: "", span: cur.span(0) });
            return Ok(tokens);
        }
        let lexed: Option<(&str, TokKind, &str)> =
            if reals { real(rest).ok().map(|(r, t)| (r, TokKind::Real, t)) } else { None }
                .or_else(|| integer(rest).ok().map(|(r, t)| (r, TokKind::Int, t)))
                .or_else(|| ident(rest).ok().map(|(r, t)| (r, TokKind::Ident, t)))
                .or_else(|| dim_ref(rest).ok().map(|(r, (k, t))| (r, k, t)))
                .or_else(|| punct(rest).ok().map(|(r, t)| (r, TokKind::Punct, t)));
        match lexed {
            Some((after, kind, tok_text)) => {
                let len = rest.len() - after.len();
                tokens.push(Token { kind, text: tok_text, span: cur.span(len) });
                cur.advance(len);
            }
            None => {
                let c = rest.chars().next().unwrap_or(' ');
                return Err(ExprError::UnexpectedChar { span: cur.span(c.len_utf8()), found: c });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str, reals: bool) -> Vec<(TokKind, String)> {
        match tokenize(text, reals) {
            Ok(t) => t.iter().map(|t| (t.kind, t.text.to_string())).collect(),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn longest_operator_wins_and_dims_keep_digits() {
        use TokKind::*;
        let got = kinds("a<<=#12$3", false);
        let want = [(Ident, "a"), (Punct, "<<"), (Punct, "="), (VirtDim, "12"), (PhysDim, "3"), (End, "")];
        assert_eq!(got, want.map(|(k, s)| (k, s.to_string())).to_vec());
    }

    #[test]
    fn mapping_mode_keeps_final_dot_after_integer() {
        // `1.` must not become a real: the dot ends the mapping.
        let got = kinds("1.", false);
        assert_eq!(got[0], (TokKind::Int, "1".to_string()));
        assert_eq!(got[1], (TokKind::Punct, ".".to_string()));
        let got = kinds("1.5e2 .5 2e3 0x1F", true);
        let texts: Vec<_> = got.iter().map(|(k, t)| (*k, t.as_str())).collect();
        assert_eq!(
            texts,
            [
                (TokKind::Real, "1.5e2"),
                (TokKind::Real, ".5"),
                (TokKind::Real, "2e3"),
                (TokKind::Int, "0x1F"),
                (TokKind::End, "")
            ]
        );
    }

    #[test]
    fn spans_count_lines_and_columns_across_comments() {
        let toks = tokenize("a /* c\n */ +\n  b", false).unwrap_or_default();
        let spans: Vec<(u32, u32)> = toks.iter().map(|t| (t.span.line, t.span.col)).collect();
        // `a` at 1:1; the comment ends on line 2 so `+` is at 2:5; `b` at 3:3.
        assert_eq!(spans, [(1, 1), (2, 5), (3, 3), (3, 4)]);
    }

    #[test]
    fn bad_character_and_open_comment_are_errors() {
        assert!(matches!(tokenize("x @", false), Err(ExprError::UnexpectedChar { found: '@', .. })));
        assert!(matches!(tokenize("x /* y", false), Err(ExprError::UnterminatedComment { .. })));
    }
}
