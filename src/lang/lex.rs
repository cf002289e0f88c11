//! The hand-written CPC lexer: bytes of one file to [`Lexed`] tokens.
//!
//! It works on bytes (all of CPC's syntax is ASCII; other bytes may only appear in
//! comments and literals), resolves escapes, interns identifiers and strings in an
//! [`Interner`], and records lexical errors as [`Diagnostic`]s while carrying on.
//! Each token remembers whether it starts a line and whether blank space precedes it,
//! which the preprocessor needs for directives and `#define f(x)` versus `#define f (x)`.
//! Backslash-newline joins lines everywhere. Columns count characters (as
//! [`super::diag::SourceMap::render`] does); lengths count bytes.
//! Depends on `token`, `ast::Loc` and `diag`.
use super::ast::Loc;
use super::diag::Diagnostic;
use super::token::{words, Interner, Keyword, Punct, Token, TokenKind};

/// A token with the layout facts the preprocessor needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lexed {
    pub tok: Token,
    /// First token on its (logical) line: a `#` here starts a directive.
    pub line_start: bool,
    /// Blank space or a comment precedes the token.
    pub space_before: bool,
}

/// Lexes one whole file. Returns the tokens and the location just past the end of the
/// text (where an "unexpected end of file" points).
pub fn lex(text: &str, file: u32, names: &mut Interner, diags: &mut Vec<Diagnostic>) -> (Vec<Lexed>, Loc) {
    let mut lx = Lexer {
        src: text.as_bytes(),
        text,
        pos: 0,
        line: 1,
        line_begin: 0,
        nonascii: false,
        file,
        names,
        diags,
        out: Vec::with_capacity(text.len() / 2 + 1),
    };
    lx.run();
    let end = lx.loc_at(lx.pos, 0);
    (lx.out, end)
}

struct Lexer<'a, 'n> {
    src: &'a [u8],
    text: &'a str,
    pos: usize,
    line: u32,
    /// Byte offset where the current physical line begins.
    line_begin: usize,
    /// The current line has a non-ASCII byte before `pos` (columns then count chars).
    nonascii: bool,
    file: u32,
    names: &'n mut Interner,
    diags: &'n mut Vec<Diagnostic>,
    out: Vec<Lexed>,
}

/// What the lexer has seen of a directive on the current line: `#include <x>` needs the
/// `<x>` lexed as one header name.
#[derive(PartialEq)]
enum DirState {
    None,
    Hash,
    Include,
}

impl Lexer<'_, '_> {
    fn peek(&self, off: usize) -> u8 {
        self.src.get(self.pos + off).copied().unwrap_or(0)
    }

    fn col_at(&self, pos: usize) -> u32 {
        let bytes = pos.saturating_sub(self.line_begin);
        let col = if self.nonascii {
            self.text.get(self.line_begin..pos).map_or(bytes, |s| s.chars().count())
        } else {
            bytes
        };
        col as u32 + 1
    }

    fn loc_at(&self, pos: usize, len: usize) -> Loc {
        Loc { file: self.file, line: self.line, col: self.col_at(pos), len: len as u32 }
    }

    fn newline(&mut self) {
        self.line += 1;
        self.line_begin = self.pos;
        self.nonascii = false;
    }

    fn error(&mut self, loc: Loc, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(loc, msg));
    }

    /// Skips blanks, comments and line continuations. Returns (newline seen, space seen).
    fn skip_space(&mut self) -> (bool, bool) {
        let (mut nl, mut sp) = (false, false);
        loop {
            match self.peek(0) {
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                    self.pos += 1;
                    sp = true;
                }
                b'\n' => {
                    self.pos += 1;
                    self.newline();
                    nl = true;
                    sp = true;
                }
                b'\\' if self.peek(1) == b'\n' || (self.peek(1) == b'\r' && self.peek(2) == b'\n') => {
                    self.pos += if self.peek(1) == b'\n' { 2 } else { 3 };
                    self.newline();
                    sp = true;
                }
                b'/' if self.peek(1) == b'/' => {
                    while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                        if self.src[self.pos] >= 0x80 {
                            self.nonascii = true;
                        }
                        self.pos += 1;
                    }
                    sp = true;
                }
                b'/' if self.peek(1) == b'*' => {
                    let start = self.loc_at(self.pos, 2);
                    self.pos += 2;
                    let mut closed = false;
                    while self.pos < self.src.len() {
                        let b = self.src[self.pos];
                        if b == b'*' && self.peek(1) == b'/' {
                            self.pos += 2;
                            closed = true;
                            break;
                        }
                        self.pos += 1;
                        if b == b'\n' {
                            self.newline();
                        } else if b >= 0x80 {
                            self.nonascii = true;
                        }
                    }
                    if !closed {
                        self.error(start, "unterminated comment");
                    }
                    sp = true;
                }
                _ => return (nl, sp),
            }
        }
    }

    fn push(&mut self, kind: TokenKind, start: usize, line: u32, col: u32, line_start: bool, space: bool) {
        let loc = Loc { file: self.file, line, col, len: (self.pos - start) as u32 };
        self.out.push(Lexed { tok: Token { kind, loc }, line_start, space_before: space });
    }

    fn run(&mut self) {
        let mut first = true;
        let mut dir = DirState::None;
        loop {
            let (nl, sp) = self.skip_space();
            if self.pos >= self.src.len() {
                break;
            }
            let line_start = nl || first;
            first = false;
            if line_start {
                dir = DirState::None;
            }
            let start = self.pos;
            let (line, col) = (self.line, self.col_at(start));
            let c = self.src[start];
            if c == b'<' && dir == DirState::Include {
                if let Some(kind) = self.header_name(start) {
                    self.push(kind, start, line, col, line_start, sp);
                    dir = DirState::None;
                    continue;
                }
            }
            let kind = match c {
                // `L'x'`, `u'x'`, `U'x'`: a wide character is an int, its code point.
                b'L' | b'u' | b'U' if self.peek(1) == b'\'' => {
                    self.pos += 1;
                    self.wide_char(start)
                }
                b'L' | b'u' | b'U' if self.peek(1) == b'"' => {
                    self.pos += 1;
                    match self.string(start + 1) {
                        TokenKind::Str(id) => TokenKind::WStr(id),
                        k => k,
                    }
                }
                // `u8"…"`: a UTF-8 string is a plain string.
                b'u' if self.peek(1) == b'8' && self.peek(2) == b'"' => {
                    self.pos += 2;
                    self.string(start + 2)
                }
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                    self.identifier_rest();
                    // Keywords are pre-interned at the start of the table, so one hash
                    // lookup classifies the word.
                    let sym = self.names.intern(self.text.get(start..self.pos).unwrap_or(""));
                    match Keyword::ALL.get(sym.0 as usize) {
                        Some(&k) => TokenKind::Kw(k),
                        None => TokenKind::Ident(sym),
                    }
                }
                b'0'..=b'9' => self.number(start),
                b'.' if self.peek(1).is_ascii_digit() => self.number(start),
                b'"' => self.string(start),
                b'\'' => self.char_lit(start),
                // A letter beyond ASCII (C11 6.4.2.1 allows them in identifiers).
                _ if c >= 0x80
                    && self.text.get(start..).and_then(|s| s.chars().next()).is_some_and(char::is_alphabetic) =>
                {
                    self.nonascii = true;
                    self.identifier_rest();
                    TokenKind::Ident(self.names.intern(self.text.get(start..self.pos).unwrap_or("")))
                }
                _ => match self.punct() {
                    Some(p) => TokenKind::Punct(p),
                    None => {
                        let ch = self.text.get(start..).and_then(|s| s.chars().next()).unwrap_or('\u{fffd}');
                        let w = ch.len_utf8().max(1);
                        self.pos += w;
                        if c >= 0x80 {
                            self.nonascii = true;
                        }
                        let loc = Loc { file: self.file, line, col, len: w as u32 };
                        let shown = if ch.is_control() { format!("{:?}", ch) } else { format!("`{ch}`") };
                        self.error(loc, format!("unexpected character {shown}"));
                        continue;
                    }
                },
            };
            dir = match (&dir, kind) {
                (DirState::None, TokenKind::Punct(Punct::Hash)) if line_start => DirState::Hash,
                (DirState::Hash, TokenKind::Ident(s)) if s == words::INCLUDE => DirState::Include,
                _ => DirState::None,
            };
            self.push(kind, start, line, col, line_start, sp);
        }
    }

    /// Moves past the rest of an identifier: ASCII letters, digits and `_`, and letters
    /// and digits beyond ASCII.
    fn identifier_rest(&mut self) {
        loop {
            match self.peek(0) {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' => self.pos += 1,
                b if b >= 0x80 => match self.text.get(self.pos..).and_then(|s| s.chars().next()) {
                    Some(ch) if ch.is_alphanumeric() => self.pos += ch.len_utf8(),
                    _ => break,
                },
                _ => break,
            }
        }
    }

    /// `L'x'` (at the quote): the character's code point as an int.
    fn wide_char(&mut self, start: usize) -> TokenKind {
        let loc = Loc { file: self.file, line: self.line, col: self.col_at(start), len: 1 };
        self.pos += 1;
        match self.quoted(b'\'') {
            Ok(b) => {
                let text = String::from_utf8_lossy(&b);
                let mut chars = text.chars();
                match (chars.next(), chars.next()) {
                    (Some(ch), None) => TokenKind::Int(i64::from(u32::from(ch))),
                    (None, _) => {
                        self.error(loc, "empty character literal");
                        TokenKind::Int(0)
                    }
                    (Some(ch), Some(_)) => {
                        self.error(loc, "wide character literal holds more than one character");
                        TokenKind::Int(i64::from(u32::from(ch)))
                    }
                }
            }
            Err(_) => {
                self.error(loc, "unterminated character literal");
                TokenKind::Int(0)
            }
        }
    }

    /// `<file>` right after `#include`; `None` (nothing consumed) when no `>` ends it on
    /// this line, so the `<` lexes as a punctuator and the directive reports the problem.
    fn header_name(&mut self, start: usize) -> Option<TokenKind> {
        let rest = &self.src[start + 1..];
        let end = rest.iter().position(|&b| b == b'>' || b == b'\n')?;
        if rest.get(end) != Some(&b'>') {
            return None;
        }
        let name = rest[..end].to_vec();
        if name.iter().any(|&b| b >= 0x80) {
            self.nonascii = true;
        }
        self.pos = start + end + 2;
        Some(TokenKind::HeaderName(self.names.add_str(name)))
    }

    fn punct(&mut self) -> Option<Punct> {
        use Punct::*;
        let (a, b, c) = (self.peek(0), self.peek(1), self.peek(2));
        let (p, n) = match a {
            b'(' => (LParen, 1),
            b')' => (RParen, 1),
            b'[' => (LBracket, 1),
            b']' => (RBracket, 1),
            b'{' => (LBrace, 1),
            b'}' => (RBrace, 1),
            b'.' => (Dot, 1),
            b'~' => (Tilde, 1),
            b'?' => (Question, 1),
            b':' => (Colon, 1),
            b';' => (Semi, 1),
            b',' => (Comma, 1),
            b'-' => match b {
                b'>' => (Arrow, 2),
                b'-' => (MinusMinus, 2),
                b'=' => (MinusAssign, 2),
                _ => (Minus, 1),
            },
            b'+' => match b {
                b'+' => (PlusPlus, 2),
                b'=' => (PlusAssign, 2),
                _ => (Plus, 1),
            },
            b'&' => match b {
                b'&' => (AmpAmp, 2),
                b'=' => (AmpAssign, 2),
                _ => (Amp, 1),
            },
            b'|' => match b {
                b'|' => (PipePipe, 2),
                b'=' => (PipeAssign, 2),
                _ => (Pipe, 1),
            },
            b'*' => {
                if b == b'=' {
                    (StarAssign, 2)
                } else {
                    (Star, 1)
                }
            }
            b'/' => {
                if b == b'=' {
                    (SlashAssign, 2)
                } else {
                    (Slash, 1)
                }
            }
            b'%' => {
                if b == b'=' {
                    (PercentAssign, 2)
                } else {
                    (Percent, 1)
                }
            }
            b'^' => {
                if b == b'=' {
                    (CaretAssign, 2)
                } else {
                    (Caret, 1)
                }
            }
            b'!' => {
                if b == b'=' {
                    (Ne, 2)
                } else {
                    (Bang, 1)
                }
            }
            b'=' => {
                if b == b'=' {
                    (EqEq, 2)
                } else {
                    (Assign, 1)
                }
            }
            b'#' => {
                if b == b'#' {
                    (HashHash, 2)
                } else {
                    (Hash, 1)
                }
            }
            b'<' => match (b, c) {
                (b'<', b'=') => (ShlAssign, 3),
                (b'<', _) => (Shl, 2),
                (b'=', _) => (Le, 2),
                _ => (Lt, 1),
            },
            b'>' => match (b, c) {
                (b'>', b'=') => (ShrAssign, 3),
                (b'>', _) => (Shr, 2),
                (b'=', _) => (Ge, 2),
                _ => (Gt, 1),
            },
            _ => return None,
        };
        self.pos += n;
        Some(p)
    }

    /// A C "preprocessing number" (digits, letters, `.`, and a sign after an exponent),
    /// then interpreted as an integer or a float.
    fn number(&mut self, start: usize) -> TokenKind {
        let hex = self.peek(0) == b'0' && matches!(self.peek(1), b'x' | b'X');
        loop {
            match self.peek(0) {
                b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'.' => self.pos += 1,
                b'+' | b'-' if !hex && matches!(self.src.get(self.pos.wrapping_sub(1)), Some(b'e' | b'E')) => {
                    self.pos += 1
                }
                _ => break,
            }
        }
        let text = &self.src[start..self.pos];
        match parse_number(text) {
            Ok(k) => k,
            Err(why) => {
                let loc = self.loc_at(start, self.pos - start);
                let spelled = String::from_utf8_lossy(text).into_owned();
                self.error(loc, format!("invalid number `{spelled}`: {why}"));
                TokenKind::Int(0)
            }
        }
    }

    /// Reads one escape after `\` (at `self.pos`), returning its byte, or `None` for a
    /// backslash-newline continuation.
    fn escape(&mut self) -> Option<u8> {
        let at = self.pos - 1;
        let c = self.peek(0);
        self.pos += 1;
        let v = match c {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'a' => 0x07,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'v' => 0x0b,
            b'\\' | b'\'' | b'"' | b'?' => c,
            b'\n' => {
                self.newline();
                return None;
            }
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                for _ in 0..2 {
                    match self.peek(0) {
                        d @ b'0'..=b'7' => {
                            v = v * 8 + u32::from(d - b'0');
                            self.pos += 1;
                        }
                        _ => break,
                    }
                }
                if v > 255 {
                    let loc = self.loc_at(at, self.pos - at);
                    self.error(loc, "octal escape value out of range (above \\377)");
                }
                v as u8
            }
            b'x' => {
                let mut v: u32 = 0;
                let mut n = 0;
                while self.peek(0).is_ascii_hexdigit() {
                    let d = self.peek(0);
                    v = (v.saturating_mul(16)).saturating_add(u32::from(hex_val(d)));
                    self.pos += 1;
                    n += 1;
                }
                if n == 0 || v > 255 {
                    let loc = self.loc_at(at, self.pos - at);
                    self.error(
                        loc,
                        if n == 0 { "`\\x` escape needs hex digits" } else { "hex escape value above 0xff" },
                    );
                }
                v as u8
            }
            _ => {
                // Step back over a multi-byte character so we stay on a char boundary.
                if c >= 0x80 || c == 0 {
                    self.pos -= 1;
                    let loc = self.loc_at(at, 1);
                    self.error(loc, "unknown escape sequence");
                    return Some(b'\\');
                }
                let loc = self.loc_at(at, 2);
                self.error(loc, format!("unknown escape sequence `\\{}`", c as char));
                c
            }
        };
        Some(v)
    }

    /// `\uXXXX` or `\UXXXXXXXX` (at the `u`): the character, appended in UTF-8.
    fn universal(&mut self, bytes: &mut Vec<u8>) {
        let at = self.pos - 1;
        let n = if self.peek(0) == b'u' { 4 } else { 8 };
        self.pos += 1;
        let mut v: u32 = 0;
        let mut got = 0;
        while got < n && self.peek(0).is_ascii_hexdigit() {
            v = v * 16 + u32::from(hex_val(self.peek(0)));
            self.pos += 1;
            got += 1;
        }
        match char::from_u32(v).filter(|_| got == n) {
            Some(ch) => {
                let mut buf = [0u8; 4];
                bytes.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                self.nonascii = true;
            }
            None => {
                let loc = self.loc_at(at, self.pos - at);
                self.error(
                    loc,
                    format!("`\\{}` needs {n} hex digits naming a character", if n == 4 { 'u' } else { 'U' }),
                );
            }
        }
    }

    /// Reads literal bytes up to `quote`; `Err(bytes)` when the line or file ends first.
    fn quoted(&mut self, quote: u8) -> Result<Vec<u8>, Vec<u8>> {
        let mut bytes = Vec::new();
        loop {
            let Some(&b) = self.src.get(self.pos) else { return Err(bytes) };
            match b {
                b'\n' => return Err(bytes),
                b'\\' => {
                    self.pos += 1;
                    if self.pos >= self.src.len() {
                        return Err(bytes);
                    }
                    if self.peek(0) == b'\r' && self.peek(1) == b'\n' {
                        self.pos += 1;
                    }
                    if matches!(self.peek(0), b'u' | b'U') {
                        self.universal(&mut bytes);
                        continue;
                    }
                    if let Some(v) = self.escape() {
                        bytes.push(v);
                    }
                }
                _ if b == quote => {
                    self.pos += 1;
                    return Ok(bytes);
                }
                _ => {
                    if b >= 0x80 {
                        self.nonascii = true;
                    }
                    bytes.push(b);
                    self.pos += 1;
                }
            }
        }
    }

    fn string(&mut self, start: usize) -> TokenKind {
        let (line, col) = (self.line, self.col_at(start));
        self.pos += 1;
        let bytes = match self.quoted(b'"') {
            Ok(b) => b,
            Err(b) => {
                let loc = Loc { file: self.file, line, col, len: 1 };
                self.error(loc, "unterminated string literal");
                b
            }
        };
        TokenKind::Str(self.names.add_str(bytes))
    }

    fn char_lit(&mut self, start: usize) -> TokenKind {
        let (line, col) = (self.line, self.col_at(start));
        self.pos += 1;
        let loc = Loc { file: self.file, line, col, len: 1 };
        match self.quoted(b'\'') {
            Ok(b) if b.len() == 1 => TokenKind::Char(b[0]),
            Ok(b) => {
                let len = (self.pos - start) as u32;
                let msg =
                    if b.is_empty() { "empty character literal" } else { "character literal holds more than one byte" };
                self.error(Loc { len, ..loc }, msg);
                TokenKind::Char(b.first().copied().unwrap_or(0))
            }
            Err(b) => {
                self.error(loc, "unterminated character literal");
                TokenKind::Char(b.first().copied().unwrap_or(0))
            }
        }
    }
}

fn hex_val(d: u8) -> u8 {
    match d {
        b'0'..=b'9' => d - b'0',
        b'a'..=b'f' => d - b'a' + 10,
        b'A'..=b'F' => d - b'A' + 10,
        _ => 0,
    }
}

/// Interprets the spelling of a number (see [`Lexer::number`]).
fn parse_number(text: &[u8]) -> Result<TokenKind, &'static str> {
    let is_hex = text.len() > 2 && text[0] == b'0' && matches!(text[1], b'x' | b'X');
    let is_float = !is_hex && text.iter().any(|&b| matches!(b, b'.' | b'e' | b'E'));
    if is_float {
        let suffix = text.last().copied().filter(|c| matches!(c, b'f' | b'F' | b'l' | b'L'));
        let body = if suffix.is_some() { &text[..text.len() - 1] } else { text };
        let s = std::str::from_utf8(body).map_err(|_| "not a number")?;
        if !s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')) {
            return Err("bad digit or suffix");
        }
        // `1.5L` is a `long double` constant, which is `double` here.
        let kind = if matches!(suffix, Some(b'f' | b'F')) { TokenKind::Float } else { TokenKind::Double };
        return s.parse::<f64>().map(kind).map_err(|_| "malformed floating constant");
    }
    let (digits, radix) = if is_hex {
        (&text[2..], 16)
    } else if text.len() > 1 && text[0] == b'0' {
        (&text[1..], 8)
    } else {
        (text, 10)
    };
    let end = digits.iter().position(|b| matches!(b, b'u' | b'U' | b'l' | b'L')).unwrap_or(digits.len());
    let (digits, suffix) = digits.split_at(end);
    if !suffix.iter().all(|b| matches!(b, b'u' | b'U' | b'l' | b'L')) || suffix.len() > 3 {
        return Err("bad suffix");
    }
    if digits.is_empty() && radix == 16 {
        return Err("no hex digits");
    }
    let mut v: u64 = 0;
    for &d in digits {
        let dv = match d {
            b'0'..=b'9' => u64::from(d - b'0'),
            b'a'..=b'f' | b'A'..=b'F' if radix == 16 => u64::from(hex_val(d)),
            _ => return Err(if radix == 8 { "bad octal digit" } else { "bad digit or suffix" }),
        };
        if dv >= radix {
            return Err("bad octal digit");
        }
        v = v.checked_mul(radix).and_then(|v| v.checked_add(dv)).ok_or("too large")?;
    }
    let unsigned = suffix.iter().any(|b| matches!(b, b'u' | b'U'));
    let long = suffix.iter().any(|b| matches!(b, b'l' | b'L'));
    // C11 6.4.4.1: the first type of the constant's list that holds it. A `u` suffix:
    // unsigned int, then unsigned long; `ul`: unsigned long.
    if unsigned {
        return Ok(match u32::try_from(v) {
            Ok(u) if !long => TokenKind::UInt(u),
            _ => TokenKind::ULong(v),
        });
    }
    // A hexadecimal or octal constant above INT_MAX that fits 32 bits is unsigned int.
    if !long && radix != 10 && v > i32::MAX as u64 && v <= u64::from(u32::MAX) {
        return Ok(TokenKind::UInt(v as u32));
    }
    // A constant too large for int (or an `l` suffix) is a long; a hexadecimal or octal
    // one above LONG_MAX an unsigned long. 2^31 stays an int so that `-2147483648` is
    // INT_MIN.
    if long || v > 1 << 31 {
        return match i64::try_from(v) {
            Ok(l) => Ok(TokenKind::Long(l)),
            Err(_) if radix != 10 => Ok(TokenKind::ULong(v)),
            Err(_) => Err("too large for long (a `u` suffix makes it an unsigned long)"),
        };
    }
    Ok(TokenKind::Int(v as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> (Vec<TokenKind>, Vec<Diagnostic>, Interner) {
        let mut names = Interner::new();
        let mut d = Vec::new();
        let (t, _) = lex(src, 0, &mut names, &mut d);
        (t.iter().map(|l| l.tok.kind).collect(), d, names)
    }

    #[test]
    fn numbers_in_all_bases_and_float_forms() {
        let (k, d, _) = kinds(
            "10 0x1F 017 5u 7L 0xFFFFFFFF 2147483648 3000000000 1.5 1e3 .5 2.f 1.5e-3f 5ul 5000000000u \
             0xFFFFFFFFFFFFFFFF 18446744073709551615ULL 0xFFFFFFFFL",
        );
        assert!(d.is_empty(), "{d:?}");
        // 0x1F = 31, 017 = 8 + 7 = 15; a `u` suffix, or a hex constant above INT_MAX that
        // fits 32 bits, is unsigned int (C11 6.4.4.1); an `L` suffix or a decimal constant
        // above INT_MAX is a long (2^31 stays an int, for `-2147483648`). `ul` is unsigned
        // long, as is a `u` constant above UINT_MAX, a hex constant above LONG_MAX and
        // `ULL`; `0xFFFFFFFFL` is a long (the `l` list has no unsigned int).
        let want = [
            TokenKind::Int(10),
            TokenKind::Int(31),
            TokenKind::Int(15),
            TokenKind::UInt(5),
            TokenKind::Long(7),
            TokenKind::UInt(u32::MAX),
            TokenKind::Int(1 << 31),
            TokenKind::Long(3_000_000_000),
            TokenKind::Double(1.5),
            TokenKind::Double(1000.0),
            TokenKind::Double(0.5),
            TokenKind::Float(2.0),
            TokenKind::Float(0.0015),
            TokenKind::ULong(5),
            TokenKind::ULong(5_000_000_000),
            TokenKind::ULong(u64::MAX),
            TokenKind::ULong(u64::MAX),
            TokenKind::Long(0xFFFF_FFFF),
        ];
        assert_eq!(k, want);
    }

    #[test]
    fn bad_numbers_are_errors() {
        let (_, d, _) = kinds("09 0x 1e 12abc");
        assert_eq!(d.len(), 4, "{d:?}");
        assert!(d[0].message.contains("octal"));
    }

    #[test]
    fn char_and_string_escapes() {
        let (k, d, names) = kinds(r#"'\n' '\t' '\\' '\'' '\"' '\0' '\r' '\x41' 'a' "a\tb\x21" "q""#);
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(&k[..9], &[10u8, 9, 92, 39, 34, 0, 13, 0x41, b'a'].map(TokenKind::Char));
        let TokenKind::Str(s) = k[9] else { panic!("{:?}", k[9]) };
        assert_eq!(names.str_bytes(s), b"a\tb!");
    }

    #[test]
    fn keywords_idents_and_contextual_words() {
        let (k, _, names) = kinds("forall to phyArch x_1");
        assert_eq!(k[0], TokenKind::Kw(Keyword::Forall));
        assert_eq!(k[1], TokenKind::Ident(words::TO));
        assert_eq!(k[2], TokenKind::Kw(Keyword::PhyArch));
        let TokenKind::Ident(s) = k[3] else { panic!() };
        assert_eq!(names.name(s), "x_1");
    }

    #[test]
    fn maximal_munch_punctuators() {
        let (k, _, _) = kinds("a<<=b->c++ >>= && ||");
        use Punct::*;
        let p: Vec<_> = k.iter().filter_map(|k| if let TokenKind::Punct(p) = k { Some(*p) } else { None }).collect();
        assert_eq!(p, vec![ShlAssign, Arrow, PlusPlus, ShrAssign, AmpAmp, PipePipe]);
    }

    #[test]
    fn locations_and_line_flags() {
        let mut names = Interner::new();
        let mut d = Vec::new();
        let (t, end) = lex("int x;\n  /* c\n */ y = 1; \\\n z", 3, &mut names, &mut d);
        let locs: Vec<_> = t.iter().map(|l| (l.tok.loc.line, l.tok.loc.col, l.tok.loc.len, l.line_start)).collect();
        // `y` follows a comment that spans into line 3, at column 5; the backslash
        // continuation puts `z` on line 4 but not at a logical line start.
        assert_eq!(
            locs,
            vec![
                (1, 1, 3, true),
                (1, 5, 1, false),
                (1, 6, 1, false),
                (3, 5, 1, true),
                (3, 7, 1, false),
                (3, 9, 1, false),
                (3, 10, 1, false),
                (4, 2, 1, false)
            ]
        );
        assert_eq!(t[0].tok.loc.file, 3);
        assert_eq!((end.line, end.col), (4, 3));
    }

    #[test]
    fn columns_count_characters_after_non_ascii() {
        let mut names = Interner::new();
        let mut d = Vec::new();
        let (t, _) = lex("/* é */ x", 0, &mut names, &mut d);
        // "/* é */ " is 8 characters (9 bytes), so `x` is at column 9.
        assert_eq!(t[0].tok.loc.col, 9);
    }

    #[test]
    fn header_name_only_after_include() {
        let (k, d, names) = kinds("#include <stdio.h>\na <b> c");
        assert!(d.is_empty());
        let TokenKind::HeaderName(h) = k[2] else { panic!("{:?}", k[2]) };
        assert_eq!(names.str_bytes(h), b"stdio.h");
        assert_eq!(k[4], TokenKind::Punct(Punct::Lt));
    }

    #[test]
    fn unterminated_things_point_at_their_start() {
        let (_, d, _) = kinds("x = \"abc\ny = 'a\nz /* never");
        let got: Vec<_> = d.iter().map(|d| (d.loc.line, d.loc.col, d.message.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (1, 5, "unterminated string literal"),
                (2, 5, "unterminated character literal"),
                (3, 3, "unterminated comment")
            ]
        );
    }

    #[test]
    fn stray_characters_are_reported_and_skipped() {
        // `€` is no letter: an identifier cannot hold it (a letter beyond ASCII, `é`,
        // can: C11 6.4.2.1).
        let (k, d, _) = kinds("a @ b ` € é");
        assert_eq!(k.len(), 3);
        assert_eq!(d.len(), 3);
        assert_eq!(d[0].message, "unexpected character `@`");
        assert_eq!((d[2].loc.col, d[2].loc.len), (9, 3), "`€` is 3 bytes of UTF-8");
    }
}
