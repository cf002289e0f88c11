//! The syntax of machine description files: logical lines (ended by a newline, a
//! vertical tab or `;`, as the seed's `nl`), `#` comments, and three line shapes —
//! `begin NAME`, `end NAME` and `KEY = VALUE` — nested into a tree of sections. What the
//! keys mean is the business of the parent module. Lexing uses `nom`.
use super::ErrorKind;
use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{char, digit1, space0, space1};
use nom::combinator::{all_consuming, map, opt, recognize};
use nom::sequence::{delimited, pair, preceded, terminated, tuple};
use nom::IResult;

/// One `KEY = VALUE` line.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The key in lower case, with a `[N]` index kept (`p[3]`).
    pub key: String,
    /// The text after `=`, trimmed.
    pub value: String,
    /// 1-based line.
    pub line: u32,
}

/// A `begin NAME … end NAME` block.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    /// The name in lower case.
    pub name: String,
    /// Line of `begin`.
    pub line: u32,
    /// Fields and subsections in file order.
    pub items: Vec<Item>,
}

/// What a section holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Field(Field),
    Section(Section),
}

enum Line<'a> {
    Begin(&'a str),
    End(&'a str),
    Field(&'a str, &'a str),
}

fn word(i: &str) -> IResult<&str, &str> {
    take_while1(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.')(i)
}

fn key(i: &str) -> IResult<&str, &str> {
    recognize(pair(word, opt(delimited(char('['), tuple((space0, digit1, space0)), char(']')))))(i)
}

fn line(i: &str) -> IResult<&str, Line<'_>> {
    all_consuming(delimited(
        space0,
        alt((
            map(preceded(terminated(tag("begin"), space1), word), Line::Begin),
            map(preceded(terminated(tag("end"), space1), word), Line::End),
            map(
                tuple((key, space0, char('='), space0, take_while(|_| true))),
                |(k, _, _, _, v): (&str, _, _, _, &str)| Line::Field(k, v.trim_end()),
            ),
        )),
        space0,
    ))(i)
}

/// Splits `text` into logical lines with their 1-based physical line numbers, comments
/// removed, blank lines skipped.
fn logical_lines(text: &str) -> Vec<(u32, &str)> {
    let mut out = Vec::new();
    for (k, physical) in text.split('\n').enumerate() {
        let code = physical.split('#').next().unwrap_or("");
        for part in code.split([';', '\u{b}']) {
            let part = part.trim_matches(|c: char| c == ' ' || c == '\t' || c == '\r');
            if !part.is_empty() {
                out.push((k as u32 + 1, part));
            }
        }
    }
    out
}

/// Parses the whole file into its top section (which must be `begin machine`).
pub fn parse(text: &str) -> Result<Section, (u32, ErrorKind)> {
    let mut stack: Vec<Section> = Vec::new();
    let mut top: Option<Section> = None;
    let mut last_line = 1;
    for (n, text_line) in logical_lines(text) {
        last_line = n;
        if top.is_some() {
            return Err((n, ErrorKind::AfterEnd));
        }
        let parsed = match line(text_line) {
            Ok((_, l)) => l,
            Err(_) => return Err((n, ErrorKind::BadLine { text: text_line.to_string() })),
        };
        match parsed {
            Line::Begin(name) => {
                let name = name.to_ascii_lowercase();
                if stack.is_empty() && name != "machine" {
                    return Err((n, ErrorKind::NotMachine { found: name }));
                }
                stack.push(Section { name, line: n, items: Vec::new() });
            }
            Line::End(name) => {
                let name = name.to_ascii_lowercase();
                let Some(done) = stack.pop() else {
                    return Err((n, ErrorKind::UnmatchedEnd { name }));
                };
                if done.name != name {
                    return Err((n, ErrorKind::WrongEnd { expected: done.name, found: name }));
                }
                match stack.last_mut() {
                    Some(parent) => parent.items.push(Item::Section(done)),
                    None => top = Some(done),
                }
            }
            Line::Field(k, v) => {
                let Some(cur) = stack.last_mut() else {
                    return Err((n, ErrorKind::NotMachine { found: k.to_string() }));
                };
                let key: String = k.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
                cur.items.push(Item::Field(Field { key, value: v.to_string(), line: n }));
            }
        }
    }
    match (top, stack.last()) {
        (Some(t), _) => Ok(t),
        (None, Some(open)) => Err((last_line, ErrorKind::Unclosed { name: open.name.clone(), line: open.line })),
        (None, None) => Err((1, ErrorKind::NotMachine { found: "an empty file".into() })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_and_separators() {
        let t = parse("begin machine ; name = \"x\" # comment\n begin processor\n p[ 3 ] = 2\u{b}id=1\nend processor\nend machine\n")
            .unwrap();
        assert_eq!(t.name, "machine");
        assert_eq!(t.items.len(), 2);
        let Item::Field(f) = &t.items[0] else { panic!("field first") };
        assert_eq!((f.key.as_str(), f.value.as_str(), f.line), ("name", "\"x\"", 1));
        let Item::Section(s) = &t.items[1] else { panic!("then a section") };
        assert_eq!((s.name.as_str(), s.line), ("processor", 2));
        let keys: Vec<&str> = s
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Field(f) => Some(f.key.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(keys, vec!["p[3]", "id"]);
    }

    #[test]
    fn errors_carry_the_line() {
        assert!(matches!(parse("begin machine\nend processor\n"), Err((2, ErrorKind::WrongEnd { .. }))));
        assert!(matches!(parse("begin machine\nbegin topology\n"), Err((2, ErrorKind::Unclosed { line: 2, .. }))));
        assert!(matches!(parse("begin machine\n= 3\nend machine"), Err((2, ErrorKind::BadLine { .. }))));
        assert!(matches!(parse("begin topology\n"), Err((1, ErrorKind::NotMachine { .. }))));
        assert!(matches!(parse("begin machine\nend machine\nid = 1\n"), Err((3, ErrorKind::AfterEnd))));
        assert!(matches!(parse(""), Err((1, ErrorKind::NotMachine { .. }))));
    }
}
