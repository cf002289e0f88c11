//! C `printf` / `scanf` for the simulated program (seed 000 Table 1: PRINTF, SCANF …).
//!
//! [`printf`] formats the conversions `%d %i %u %f %F %e %E %g %G %a %A %c %s %p %x %X
//! %o %%` (`%n` and unknown letters are errors, never printed as text) with
//! the flags `- + space 0 #`, a width and a precision (either may be `*`), and ignores
//! the length modifiers `l h L`. A `float` argument is printed as C prints a `float`
//! promoted to `double`: the `f32` value is widened to `f64` exactly and formatted with
//! correct rounding, which is what glibc does. An argument of the "wrong" kind is
//! converted (an int printed with `%f` is widened, a float printed with `%d` truncated),
//! where C would be undefined.
//!
//! [`scanf`] reads `%d %i %u %x %o %f %e %g %c %s` (with widths, `*` suppression and
//! `l h` ignored) from a byte stream, skipping white space as C does, and returns the
//! values to store; it depends only on [`std::io::BufRead`] and the vCode [`Word`].
use crate::vcode::Word;
use std::io::BufRead;

/// An error while formatting: only reading a `%s` argument can fail.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// The `%s` argument is not the address of a readable string.
    #[error("bad string address {addr} for %s")]
    BadString { addr: i32 },
    /// Fewer arguments than conversions.
    #[error("the format needs more arguments than the {given} given")]
    MissingArgument { given: usize },
    /// A conversion this `printf` does not have (`%n`, an unknown letter), as written.
    #[error("the conversion `{conv}` is not supported")]
    Unsupported { conv: String },
}

fn word_int(w: Word) -> i64 {
    match w {
        Word::Int(i) => i as i64,
        Word::Char(c) => c as i64,
        Word::Float(f) => {
            if f.is_nan() {
                0
            } else {
                f as i32 as i64
            }
        }
        Word::Double(d) => {
            if d.is_nan() {
                0
            } else {
                d as i32 as i64
            }
        }
        Word::Long(l) => l,
    }
}

fn word_float(w: Word) -> f64 {
    match w {
        Word::Int(i) => i as f64,
        Word::Char(c) => c as f64,
        Word::Float(f) => f as f64,
        Word::Double(d) => d,
        Word::Long(l) => l as f64,
    }
}

#[derive(Default, Clone, Copy)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    zero: bool,
    alt: bool,
    width: usize,
    prec: Option<usize>,
}

/// How many argument words format `fmt` consumes: one per conversion but `%%`, and one
/// more for each `*` width or precision (for `vprintf`, whose arguments are in memory).
pub fn arguments_needed(fmt: &[u8]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            i += 1;
            continue;
        }
        i += 1;
        while matches!(fmt.get(i), Some(b'-' | b'+' | b' ' | b'0' | b'#')) {
            i += 1;
        }
        while let Some(&c) = fmt.get(i).filter(|c| c.is_ascii_digit() || **c == b'*' || **c == b'.') {
            n += usize::from(c == b'*');
            i += 1;
        }
        while matches!(fmt.get(i), Some(b'l' | b'h' | b'L' | b'q' | b'j' | b'z' | b't')) {
            i += 1;
        }
        match fmt.get(i) {
            Some(b'%') | None => {}
            Some(_) => n += 1,
        }
        i += 1;
    }
    n
}

/// Formats `fmt` with `args` into `out`, C `printf` style. `read_str(addr, max)` returns
/// the bytes (without the NUL) of the string at an address, for `%s`: at most `max` of
/// them (a precision; `usize::MAX` without one).
pub fn printf(
    fmt: &[u8],
    args: &[Word],
    read_str: &mut dyn FnMut(i32, usize) -> Result<Vec<u8>, FormatError>,
    out: &mut Vec<u8>,
) -> Result<(), FormatError> {
    let mut next = 0usize;
    let take = |next: &mut usize| -> Result<Word, FormatError> {
        let w = args.get(*next).copied().ok_or(FormatError::MissingArgument { given: args.len() })?;
        *next += 1;
        Ok(w)
    };
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        let start = i - 1;
        let mut s = Spec::default();
        while let Some(&f) = fmt.get(i) {
            match f {
                b'-' => s.left = true,
                b'+' => s.plus = true,
                b' ' => s.space = true,
                b'0' => s.zero = true,
                b'#' => s.alt = true,
                _ => break,
            }
            i += 1;
        }
        if fmt.get(i) == Some(&b'*') {
            i += 1;
            let w = word_int(take(&mut next)?);
            if w < 0 {
                s.left = true;
            }
            s.width = w.unsigned_abs().min(1 << 20) as usize;
        } else {
            while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                s.width = (s.width * 10 + (d - b'0') as usize).min(1 << 20);
                i += 1;
            }
        }
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            if fmt.get(i) == Some(&b'*') {
                i += 1;
                let p = word_int(take(&mut next)?);
                s.prec = if p < 0 { None } else { Some((p as u64).min(MAX_PRECISION as u64) as usize) };
            } else {
                let mut p = 0usize;
                while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                    p = (p * 10 + (d - b'0') as usize).min(MAX_PRECISION);
                    i += 1;
                }
                s.prec = Some(p);
            }
        }
        // `l`, `ll`, `j`, `q`: the argument is a 64-bit long. `h` and `hh`: an integer
        // conversion converts it to `short` or `char` first, as C's does (`%hhd` of 201
        // is -55, `%hu` of -4 is 65532).
        let (mut wide, mut short) = (false, 0u8);
        while let Some(m @ (b'l' | b'h' | b'L' | b'q' | b'j' | b'z' | b't')) = fmt.get(i) {
            wide |= matches!(m, b'l' | b'q' | b'j' | b'L');
            short = short.saturating_add(u8::from(*m == b'h'));
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            out.extend_from_slice(&fmt[start..]);
            break;
        };
        i += 1;
        match conv {
            b'%' => out.push(b'%'),
            b'd' | b'i' => {
                let w = word_int(take(&mut next)?);
                let v = match (wide, short) {
                    (true, _) => w,
                    (false, 0) => w as i32 as i64,
                    (false, 1) => w as i16 as i64,
                    (false, _) => w as i8 as i64,
                };
                let sign = sign_prefix(v < 0, &s);
                let digits = int_digits(v.unsigned_abs(), 10, false, s.prec);
                pad_number(out, &s, sign, &digits, s.prec.is_none());
            }
            b'u' | b'x' | b'X' | b'o' => {
                let w = word_int(take(&mut next)?);
                let v = match (wide, short) {
                    (true, _) => w as u64,
                    (false, 0) => w as i32 as u32 as u64,
                    (false, 1) => w as u16 as u64,
                    (false, _) => w as u8 as u64,
                };
                let (base, upper) = match conv {
                    b'u' => (10, false),
                    b'x' => (16, false),
                    b'X' => (16, true),
                    _ => (8, false),
                };
                let mut digits = int_digits(v, base, upper, s.prec);
                let mut prefix: &[u8] = b"";
                if s.alt {
                    match conv {
                        b'x' if v != 0 => prefix = b"0x",
                        b'X' if v != 0 => prefix = b"0X",
                        b'o' if !digits.starts_with(b"0") => digits.lead_zero(),
                        _ => {}
                    }
                }
                pad_number(out, &s, prefix, &digits, s.prec.is_none());
            }
            b'c' => {
                let v = word_int(take(&mut next)?) as u8;
                pad_bytes(out, &s, &[v]);
            }
            b's' => {
                let addr = word_int(take(&mut next)?) as i32;
                let bytes = read_str(addr, s.prec.unwrap_or(usize::MAX))?;
                pad_bytes(out, &s, &bytes);
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                let v = word_float(take(&mut next)?);
                let upper = conv.is_ascii_uppercase();
                // A NaN's sign too, as glibc prints it (`-nan`: x86's 0.0 / 0.0).
                let sign = sign_prefix(v.is_sign_negative(), &s);
                if !v.is_finite() {
                    let t: &[u8] = match (v.is_nan(), upper) {
                        (true, false) => b"nan",
                        (true, true) => b"NAN",
                        (false, false) => b"inf",
                        (false, true) => b"INF",
                    };
                    pad_number(out, &s, sign, t, false);
                    continue;
                }
                let a = v.abs();
                if conv.eq_ignore_ascii_case(&b'a') {
                    // The `0x` goes before any zero padding, as the sign does.
                    let prefix = [sign, if upper { b"0X" } else { b"0x" }].concat();
                    pad_number(out, &s, &prefix, hex_float(a, s.prec, s.alt, upper).as_bytes(), true);
                    continue;
                }
                let prec = s.prec.unwrap_or(6);
                let body = match conv.to_ascii_lowercase() {
                    b'f' => fixed(a, prec, s.alt),
                    b'e' => exp(a, prec, s.alt, upper),
                    _ => general(a, prec, s.alt, upper),
                };
                pad_number(out, &s, sign, body.as_bytes(), true);
            }
            b'p' => {
                let v = word_int(take(&mut next)?) as u32;
                if v == 0 {
                    pad_bytes(out, &s, b"(nil)");
                } else {
                    pad_number(out, &s, b"0x", &int_digits(u64::from(v), 16, false, s.prec), s.prec.is_none());
                }
            }
            _ => {
                let end = (i..=fmt.len()).find(|&e| std::str::from_utf8(&fmt[start..e]).is_ok()).unwrap_or(i);
                return Err(FormatError::Unsupported { conv: String::from_utf8_lossy(&fmt[start..end]).into_owned() });
            }
        }
    }
    Ok(())
}

/// `%a`'s digits after `0x` for a finite `v >= 0`, as glibc prints a double: the leading
/// hex digit (1 for a normal number, 0 for zero and subnormals), the fraction's 13 hex
/// digits without trailing zeros, or rounded half to even to `prec` digits, then `p` and
/// the binary exponent (`1.5` is `1.8p+0`, `0.1` is `1.999999999999ap-4`).
fn hex_float(v: f64, prec: Option<usize>, alt: bool, upper: bool) -> String {
    let bits = v.to_bits();
    let (biased, frac) = ((bits >> 52) & 0x7ff, bits & ((1u64 << 52) - 1));
    let (mut lead, exp) = match (biased, frac) {
        (0, 0) => (0u64, 0i64),
        (0, _) => (0, -1022),
        (b, _) => (1, b as i64 - 1023),
    };
    let digits = match prec {
        None => {
            let mut d = format!("{frac:013x}");
            while d.ends_with('0') {
                d.pop();
            }
            d
        }
        Some(p) if p >= 13 => format!("{frac:013x}{}", "0".repeat(p - 13)),
        Some(p) => {
            let shift = 52 - 4 * p as u32;
            let (mut kept, rest, half) = (frac >> shift, frac & ((1u64 << shift) - 1), 1u64 << (shift - 1));
            let odd = if p == 0 { lead & 1 == 1 } else { kept & 1 == 1 };
            if rest > half || (rest == half && odd) {
                kept += 1;
                if kept >> (4 * p) != 0 {
                    lead += 1;
                    kept = 0;
                }
            }
            if p == 0 {
                String::new()
            } else {
                format!("{kept:0width$x}", width = p)
            }
        }
    };
    let mut t = format!("{lead}");
    if !digits.is_empty() || alt {
        t.push('.');
    }
    t.push_str(&digits);
    t.push_str(&format!("p{exp:+}"));
    if upper {
        t = t.to_ascii_uppercase();
    }
    t
}

fn sign_prefix(neg: bool, s: &Spec) -> &'static [u8] {
    if neg {
        b"-"
    } else if s.plus {
        b"+"
    } else if s.space {
        b" "
    } else {
        b""
    }
}

/// The digits of an integer ([`int_digits`]): written from the end of an array, which
/// holds a `u64` in octal (22 digits) or a precision up to 23, with a byte to spare in
/// front for `%#o`'s zero; a longer precision takes a vector.
enum Digits {
    Short { buf: [u8; 24], start: usize },
    Long(Vec<u8>),
}

impl std::ops::Deref for Digits {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Digits::Short { buf, start } => &buf[*start..],
            Digits::Long(v) => v,
        }
    }
}

impl Digits {
    /// Puts a `0` in front (`%#o`).
    fn lead_zero(&mut self) {
        match self {
            Digits::Short { buf, start } => {
                // (`start` is at least 1: see `int_digits`.)
                *start -= 1;
                buf[*start] = b'0';
            }
            Digits::Long(v) => v.insert(0, b'0'),
        }
    }
}

fn int_digits(mut v: u64, base: u64, upper: bool, prec: Option<usize>) -> Digits {
    let table: &[u8; 16] = if upper { b"0123456789ABCDEF" } else { b"0123456789abcdef" };
    let min = prec.unwrap_or(1);
    let mut buf = [b'0'; 24];
    let mut start = buf.len();
    if base == 10 {
        // The common base as a constant: a multiplication, not a division, per digit.
        while v > 0 {
            start -= 1;
            buf[start] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    }
    while v > 0 {
        start -= 1;
        buf[start] = table[(v % base) as usize];
        v /= base;
    }
    let n = buf.len() - start;
    if min < buf.len() {
        // The zeros of the precision are there already; at most 23 digits, so a byte in
        // front is left.
        Digits::Short { buf, start: start.min(buf.len() - min) }
    } else {
        let mut d = vec![b'0'; min - n];
        d.extend_from_slice(&buf[start..]);
        Digits::Long(d)
    }
}

/// The largest precision honoured: the host formatter's limit less the leading digit of
/// `%e` (65534 digits; C would print more, all of them beyond a float's precision).
const MAX_PRECISION: usize = u16::MAX as usize - 1;

/// Writes `prefix` + `body` padded to the width; zero padding goes between them.
fn pad_number(out: &mut Vec<u8>, s: &Spec, prefix: &[u8], body: &[u8], zero_ok: bool) {
    let len = prefix.len() + body.len();
    let fill = s.width.saturating_sub(len);
    if s.left {
        out.extend_from_slice(prefix);
        out.extend_from_slice(body);
        out.extend(std::iter::repeat_n(b' ', fill));
    } else if s.zero && zero_ok {
        out.extend_from_slice(prefix);
        out.extend(std::iter::repeat_n(b'0', fill));
        out.extend_from_slice(body);
    } else {
        out.extend(std::iter::repeat_n(b' ', fill));
        out.extend_from_slice(prefix);
        out.extend_from_slice(body);
    }
}

fn pad_bytes(out: &mut Vec<u8>, s: &Spec, body: &[u8]) {
    pad_number(out, &Spec { zero: false, ..*s }, b"", body, false)
}

fn fixed(a: f64, prec: usize, alt: bool) -> String {
    let mut t = format!("{a:.prec$}");
    if alt && prec == 0 {
        t.push('.');
    }
    t
}

/// `d.ddde±XX` with at least two exponent digits, as C.
fn exp(a: f64, prec: usize, alt: bool, upper: bool) -> String {
    let t = format!("{a:.prec$e}");
    let (mant, e) = t.split_once('e').unwrap_or((&t, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let mut s = String::from(mant);
    if alt && prec == 0 {
        s.push('.');
    }
    s.push(if upper { 'E' } else { 'e' });
    s.push(if e < 0 { '-' } else { '+' });
    s.push_str(&format!("{:02}", e.unsigned_abs()));
    s
}

/// C's `%g`: precision P (0 counts as 1); with X the exponent `%e` would print, use `%f`
/// with precision P-1-X when P > X >= -4, else `%e` with precision P-1; then, without
/// `#`, drop trailing zeros and a trailing point.
fn general(a: f64, prec: usize, alt: bool, upper: bool) -> String {
    let p = prec.max(1);
    let e_form = format!("{a:.prec$e}", prec = p - 1);
    let x: i64 = e_form.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    let mut s =
        if (p as i64) > x && x >= -4 { fixed(a, (p as i64 - 1 - x) as usize, alt) } else { exp(a, p - 1, alt, upper) };
    if !alt {
        let (mant, tail) = match s.find(['e', 'E']) {
            Some(k) => (s[..k].to_string(), s[k..].to_string()),
            None => (s.clone(), String::new()),
        };
        let mant = if mant.contains('.') { mant.trim_end_matches('0').trim_end_matches('.').to_string() } else { mant };
        s = mant + &tail;
    }
    s
}

/// One value read by [`scanf`], to be stored at the next destination address.
#[derive(Debug, Clone, PartialEq)]
pub enum ScanValue {
    /// `%d %i %u %x %o`: store an int (with `h`, converted to `short` or `unsigned
    /// short` first, as C's conversion into the `short` stores it).
    Int(i32),
    /// `%hhd %hhi` (`signed`) and `%hhu %hhx %hho`: store a byte. The value converted to
    /// `signed char` (an `int` word, as cpcc keeps a `signed char`), or to `unsigned
    /// char` (a `char` word); a `signed` conversion into a word that holds a `char` (a
    /// plain `char` variable, unsigned in CPC) stores a `char` word too.
    Byte { v: u8, signed: bool },
    /// `%f %e %g`: store a float.
    Float(f32),
    /// `%lf %le %lg`: store a double.
    Double(f64),
    /// `%ld %lld %li %lu %lx`: store a long.
    Long(i64),
    /// `%c`: store the chars (no NUL).
    Chars(Vec<u8>),
    /// `%s`: store the chars followed by a NUL.
    Str(Vec<u8>),
}

/// Result of [`scanf`]: the values read (in destination order) and the C return value
/// (number of conversions assigned, or -1 when input ended before the first conversion).
#[derive(Debug, Clone, PartialEq)]
pub struct Scan {
    pub values: Vec<ScanValue>,
    pub ret: i32,
}

fn peek(r: &mut dyn BufRead) -> Option<u8> {
    match r.fill_buf() {
        Ok(b) => b.first().copied(),
        Err(_) => None,
    }
}

fn skip_ws(r: &mut dyn BufRead) {
    while let Some(c) = peek(r) {
        if !c.is_ascii_whitespace() {
            break;
        }
        r.consume(1);
    }
}

/// Reads bytes while `ok(byte, text so far)` holds, at most `width`.
fn take_while(r: &mut dyn BufRead, width: usize, mut ok: impl FnMut(u8, &[u8]) -> bool) -> Vec<u8> {
    let mut t = Vec::new();
    while t.len() < width {
        match peek(r) {
            Some(c) if ok(c, &t) => {
                t.push(c);
                r.consume(1);
            }
            _ => break,
        }
    }
    t
}

/// Parses an integer (C `strtol` with `base` 0 meaning "from the prefix").
fn scan_int(r: &mut dyn BufRead, width: usize, base: u32) -> Option<i32> {
    scan_long(r, width, base).map(|v| v as i32)
}

/// An integer at the front of `r` (wrapping modulo 2^64, as C's strtol leaves out of
/// range values implementation-defined).
fn scan_long(r: &mut dyn BufRead, width: usize, base: u32) -> Option<i64> {
    let mut base = base;
    let mut left = width;
    let mut neg = false;
    let mut had_digit = false;
    if let Some(c @ (b'+' | b'-')) = peek(r) {
        neg = c == b'-';
        r.consume(1);
        left = left.saturating_sub(1);
    }
    if (base == 0 || base == 16) && left > 0 && peek(r) == Some(b'0') {
        r.consume(1);
        left -= 1;
        had_digit = true;
        if left > 0 && matches!(peek(r), Some(b'x' | b'X')) {
            r.consume(1);
            left -= 1;
            base = 16;
        } else if base == 0 {
            base = 8;
        }
    }
    if base == 0 {
        base = 10;
    }
    let mut v: u64 = 0;
    while left > 0 {
        let Some(d) = peek(r).and_then(|c| (c as char).to_digit(base)) else { break };
        r.consume(1);
        left -= 1;
        had_digit = true;
        v = v.wrapping_mul(u64::from(base)).wrapping_add(u64::from(d));
    }
    if !had_digit {
        return None;
    }
    let v = v as i64;
    Some(if neg { v.wrapping_neg() } else { v })
}

fn scan_float(r: &mut dyn BufRead, width: usize) -> Option<f32> {
    // Parsed straight to binary32 (one rounding, as C's strtof).
    scan_number_text(r, width)?.parse::<f32>().ok()
}

fn scan_double(r: &mut dyn BufRead, width: usize) -> Option<f64> {
    scan_number_text(r, width)?.parse::<f64>().ok()
}

/// The text of a floating number at the front of `r` (at most `width` bytes).
fn scan_number_text(r: &mut dyn BufRead, width: usize) -> Option<String> {
    let mut seen_e = false;
    let mut seen_dot = false;
    let t = take_while(r, width, |c, t| {
        let last = t.last().copied();
        // `inf`, `infinity` and `nan` in any case, after the sign (as glibc reads them).
        let word = t.strip_prefix(b"-").or_else(|| t.strip_prefix(b"+")).unwrap_or(t);
        if c.is_ascii_alphabetic() && word.iter().all(u8::is_ascii_alphabetic) {
            let mut w = word.to_ascii_lowercase();
            w.push(c.to_ascii_lowercase());
            if b"infinity".starts_with(&w) || b"nan".starts_with(&w) {
                return true;
            }
        }
        match c {
            b'+' | b'-' => t.is_empty() || matches!(last, Some(b'e' | b'E')),
            b'0'..=b'9' => true,
            b'.' if !seen_dot && !seen_e => {
                seen_dot = true;
                true
            }
            b'e' | b'E' if !seen_e && t.iter().any(|d| d.is_ascii_digit()) => {
                seen_e = true;
                true
            }
            _ => false,
        }
    });
    let mut s = std::str::from_utf8(&t).ok()?.to_string();
    // "1e" or "1e+" (C would push back the exponent part; we read it as absent).
    while s.ends_with(['e', 'E', '+', '-']) && s.len() > 1 {
        s.pop();
    }
    Some(s)
}

/// Reads `fmt`'s conversions from `input`, C `scanf` style.
pub fn scanf(fmt: &[u8], input: &mut dyn BufRead) -> Scan {
    let mut values = Vec::new();
    let mut assigned = 0;
    let mut i = 0;
    let mut eof_first = false;
    'outer: while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c.is_ascii_whitespace() {
            skip_ws(input);
            continue;
        }
        if c != b'%' || fmt.get(i) == Some(&b'%') {
            if c == b'%' {
                i += 1;
                skip_ws(input);
            }
            match peek(input) {
                Some(x) if x == c => input.consume(1),
                None if assigned == 0 && values.is_empty() => {
                    eof_first = true;
                    break;
                }
                _ => break,
            }
            continue;
        }
        let suppress = fmt.get(i) == Some(&b'*');
        if suppress {
            i += 1;
        }
        let mut width = 0usize;
        while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
            width = (width * 10 + (d - b'0') as usize).min(1 << 20);
            i += 1;
        }
        let (mut long, mut short) = (false, 0u8);
        while let Some(m @ (b'l' | b'h' | b'L' | b'q' | b'j' | b'z' | b't')) = fmt.get(i) {
            long |= matches!(m, b'l' | b'L' | b'q' | b'j');
            short = short.saturating_add(u8::from(*m == b'h'));
            i += 1;
        }
        let signed = matches!(fmt.get(i), Some(b'd' | b'i'));
        let int = move |v: i32| match (short, signed) {
            (0, _) => ScanValue::Int(v),
            (1, true) => ScanValue::Int(i32::from(v as i16)),
            (1, false) => ScanValue::Int(i32::from(v as u16)),
            (_, signed) => ScanValue::Byte { v: v as u8, signed },
        };
        let Some(&conv) = fmt.get(i) else { break };
        i += 1;
        if conv != b'c' {
            skip_ws(input);
        }
        if peek(input).is_none() {
            eof_first = assigned == 0;
            break;
        }
        let w = if width == 0 { usize::MAX } else { width };
        let v = match conv {
            b'd' | b'u' if long => scan_long(input, w, 10).map(ScanValue::Long),
            b'i' if long => scan_long(input, w, 0).map(ScanValue::Long),
            b'x' | b'X' if long => scan_long(input, w, 16).map(ScanValue::Long),
            b'o' if long => scan_long(input, w, 8).map(ScanValue::Long),
            b'd' | b'u' => scan_int(input, w, 10).map(int),
            b'i' => scan_int(input, w, 0).map(int),
            b'x' | b'X' => scan_int(input, w, 16).map(int),
            b'o' => scan_int(input, w, 8).map(int),
            b'f' | b'e' | b'g' | b'E' | b'G' | b'F' if long => scan_double(input, w).map(ScanValue::Double),
            b'f' | b'e' | b'g' | b'E' | b'G' | b'F' => scan_float(input, w).map(ScanValue::Float),
            b'c' => {
                let n = if width == 0 { 1 } else { width };
                let t = take_while(input, n, |_, _| true);
                if t.is_empty() {
                    None
                } else {
                    Some(ScanValue::Chars(t))
                }
            }
            b's' => {
                let t = take_while(input, w, |c, _| !c.is_ascii_whitespace());
                if t.is_empty() {
                    None
                } else {
                    Some(ScanValue::Str(t))
                }
            }
            _ => None,
        };
        match v {
            Some(v) => {
                if !suppress {
                    values.push(v);
                    assigned += 1;
                }
            }
            None => break 'outer,
        }
    }
    Scan { values, ret: if eof_first && assigned == 0 { -1 } else { assigned } }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pf(fmt: &str, args: &[Word]) -> String {
        let mut out = Vec::new();
        let mut rs = |a: i32, max: usize| -> Result<Vec<u8>, FormatError> {
            if a == 7 {
                Ok(b"hello"[..max.min(5)].to_vec())
            } else {
                Err(FormatError::BadString { addr: a })
            }
        };
        printf(fmt.as_bytes(), args, &mut rs, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    use Word::{Float as F, Int as I};

    /// A precision beyond the host formatter's limit is capped, not a panic (found by the
    /// simulator fuzzer: `%.*f` with a huge precision).
    #[test]
    fn huge_precision_is_capped() {
        for fmt in ["%.70000f", "%.70000e", "%.70000g", "%.*f"] {
            let out = pf(fmt, &[I(i32::MAX), F(1.5)][if fmt == "%.*f" { 0.. } else { 1.. }]);
            assert!(out.len() <= MAX_PRECISION + 16, "{fmt}: {} bytes", out.len());
            assert!(out.starts_with('1'), "{fmt}");
        }
    }

    /// `%a` as glibc prints it (each expected string is glibc's for the same format and
    /// double): the shortest exact hex digits, a precision rounded half to even (1.5 to
    /// 0 digits is 0x2p+0: the kept digit 1 is odd), subnormals with a 0 lead and
    /// exponent -1022, flags and zero padding after `0x`.
    #[test]
    fn hex_floats_are_glibc_s() {
        use Word::Double as D;
        let row = |v: f64| pf("%a %A %.0a %.1a %.3a %#.0a %12.2a %-14a| %+a %013a", &[D(v); 10]);
        assert_eq!(
            row(1.5),
            "0x1.8p+0 0X1.8P+0 0x2p+0 0x1.8p+0 0x1.800p+0 0x2.p+0    0x1.80p+0 0x1.8p+0      | +0x1.8p+0 0x000001.8p+0"
        );
        assert_eq!(row(0.1), "0x1.999999999999ap-4 0X1.999999999999AP-4 0x2p-4 0x1.ap-4 0x1.99ap-4 0x2.p-4    0x1.9ap-4 0x1.999999999999ap-4| +0x1.999999999999ap-4 0x1.999999999999ap-4");
        assert_eq!(
            row(-2.75),
            "-0x1.6p+1 -0X1.6P+1 -0x1p+1 -0x1.6p+1 -0x1.600p+1 -0x1.p+1   -0x1.60p+1 -0x1.6p+1     | -0x1.6p+1 -0x00001.6p+1"
        );
        assert_eq!(row(255.5), "0x1.ffp+7 0X1.FFP+7 0x2p+7 0x2.0p+7 0x1.ff0p+7 0x2.p+7    0x1.ffp+7 0x1.ffp+7     | +0x1.ffp+7 0x00001.ffp+7");
        assert_eq!(row(4.9e-324), "0x0.0000000000001p-1022 0X0.0000000000001P-1022 0x0p-1022 0x0.0p-1022 0x0.000p-1022 0x0.p-1022 0x0.00p-1022 0x0.0000000000001p-1022| +0x0.0000000000001p-1022 0x0.0000000000001p-1022");
        assert_eq!(pf("%a %a %.20a", &[D(0.0), D(-0.0), D(1.0 / 3.0)]), "0x0p+0 -0x0p+0 0x1.55555555555550000000p-2");
    }

    /// `%n` (which would write through its argument) and unknown letters are errors that
    /// name the conversion, never printed as text with the arguments shifted; `%p` is
    /// glibc's (`(nil)` for a null pointer).
    #[test]
    fn unsupported_conversions_are_errors_and_p_is_glibc_s() {
        let mut rs = |a: i32, _: usize| -> Result<Vec<u8>, FormatError> { Err(FormatError::BadString { addr: a }) };
        for (fmt, conv) in [("%n %d", "%n"), ("x %-5y", "%-5y"), ("%lk", "%lk")] {
            let e = printf(fmt.as_bytes(), &[I(8), I(5)], &mut rs, &mut Vec::new()).unwrap_err();
            assert_eq!(e, FormatError::Unsupported { conv: conv.into() }, "{fmt}");
        }
        assert_eq!(pf("%p %p|%8p", &[I(255), I(0), I(16)]), "0xff (nil)|    0x10");
    }

    /// `h` and `hh` convert an integer argument to `short` and `char` first (the
    /// expected line is glibc's for the same format and `int` arguments), and a NaN
    /// prints its sign (x86-64's 0.0 / 0.0 is negative: glibc prints `-nan`).
    #[test]
    fn short_lengths_and_nan_signs_are_glibc_s() {
        let args = [I(201), I(-1), I(40000), I(-4), I(0x1234), I(0x12345), I(511), I(300), I(70000), I(32768), I(7)];
        assert_eq!(
            pf("%hhd %hhu %hd %hu %hhx %hx %#hho %5hhd|%-6hu|%+hd %.3hhd", &args),
            "-55 255 -25536 65532 34 2345 0377    44|4464  |-32768 007"
        );
        // A run of 300 `h`s is `hh` (and no overflow of the count).
        let many = format!("%{}d", "h".repeat(300));
        assert_eq!(pf(&many, &[I(201)]), "-55");
        let nan = f64::NAN.copysign(-1.0);
        assert_eq!(
            pf(
                "%f %f %+f %5.1e|%G",
                &[Word::Double(nan), Word::Double(-nan), Word::Double(-nan), Word::Double(nan), Word::Double(nan)]
            ),
            "-nan nan +nan  -nan|-NAN"
        );
    }

    #[test]
    fn matches_c_outputs() {
        // Each expected string is what glibc printf prints for the same format and
        // arguments (floats passed as (double)(float)x).
        assert_eq!(
            pf("%8.3f|%-5d|%e|%g|%x", &[F(5.12345), I(42), F(1234.5), F(0.0001), I(255)]),
            "   5.123|42   |1.234500e+03|0.0001|ff"
        );
        assert_eq!(pf("%g %g %g %g", &[F(100000.0), F(1000000.0), F(0.00001), F(1.5)]), "100000 1e+06 1e-05 1.5");
        // 0.1f widened is 0.100000001490116…: %g with 6 significant digits shows 0.1.
        assert_eq!(pf("%g|%.10g|%f", &[F(0.1), F(0.1), F(0.1)]), "0.1|0.1000000015|0.100000");
        assert_eq!(pf("%+d|% d|%05d|%-05d|%.3d", &[I(5), I(5), I(-42), I(7), I(7)]), "+5| 5|-0042|7    |007");
        assert_eq!(pf("%#x|%#o|%X|%u|%o", &[I(255), I(8), I(255), I(-1), I(0)]), "0xff|010|FF|4294967295|0");
        assert_eq!(pf("%c%c|%5s|%-6s|%.2s", &[I(72), Word::Char(105), I(7), I(7), I(7)]), "Hi|hello|hello |he");
        assert_eq!(pf("%*d|%-*d|%.*f", &[I(4), I(1), I(3), I(2), I(2), F(2.5)]), "   1|2  |2.50");
        assert_eq!(pf("100%% %ld %hd", &[I(1), I(2)]), "100% 1 2");
        assert_eq!(pf("%E|%G|%.0e|%#.0f", &[F(-0.5), F(1e-10), F(15.0), F(3.0)]), "-5.000000E-01|1E-10|2e+01|3.");
        assert_eq!(pf("%.0f %.0f %.1f", &[F(0.5), F(1.5), F(0.25)]), "0 2 0.2");
        assert_eq!(pf("%g %g %#g", &[F(0.0), F(123456789.0), F(1.0)]), "0 1.23457e+08 1.00000");
        assert_eq!(pf("%d %f", &[F(2.9), I(3)]), "2 3.000000");
        assert_eq!(pf("%08.3f|%-8.2e|", &[F(-3.5), F(12.0)]), "-003.500|1.20e+01|");
        // Decimal digits at the ends of their range, and none for 0 at precision 0.
        assert_eq!(
            pf("[%.0d]|%d|%ld|%lu", &[I(0), I(i32::MIN), Word::Long(i64::MIN), Word::Long(-1)]),
            "[]|-2147483648|-9223372036854775808|18446744073709551615"
        );
        // Digits written in place and, past 23, in a vector: precisions on both sides of
        // that bound, and `%#o`'s leading zero in each (glibc's outputs).
        assert_eq!(
            pf(
                "[%.25d]|[%#o]|[%#o]|[%#.3o]|[%#lo]|[%.23u]|[%.24u]|[%#.24o]",
                &[I(42), I(8), I(0), I(8), Word::Long(-1), I(5), I(5), I(8)]
            ),
            "[0000000000000000000000042]|[010]|[0]|[010]|[01777777777777777777777]|\
             [00000000000000000000005]|[000000000000000000000005]|[000000000000000000000010]"
        );
    }

    #[test]
    fn missing_argument_is_an_error() {
        let mut out = Vec::new();
        let r = printf(b"%d %d", &[I(1)], &mut |_, _| Ok(Vec::new()), &mut out);
        assert_eq!(r, Err(FormatError::MissingArgument { given: 1 }));
    }

    fn sc(fmt: &str, input: &str) -> Scan {
        let mut r = std::io::Cursor::new(input.as_bytes().to_vec());
        scanf(fmt.as_bytes(), &mut r)
    }

    #[test]
    fn scanf_reads_like_c() {
        let s = sc("%d %f %s %c", "  -12\n 2.5e1 word  x");
        assert_eq!(
            s.values,
            vec![
                ScanValue::Int(-12),
                ScanValue::Float(25.0),
                ScanValue::Str(b"word".to_vec()),
                ScanValue::Chars(b"x".to_vec())
            ]
        );
        assert_eq!(s.ret, 4, "the blank before %c skips the spaces, so %c reads `x`");
        assert_eq!(sc("%d", "").ret, -1, "end of input before the first conversion");
        assert_eq!(sc("%d %d", "5 x").ret, 1, "a matching failure stops the scan");
        assert_eq!(
            sc("%i %i %x", "0x1f 010 ff").values,
            vec![ScanValue::Int(31), ScanValue::Int(8), ScanValue::Int(255)]
        );
        assert_eq!(sc("%d,%d", "3,4").values, vec![ScanValue::Int(3), ScanValue::Int(4)]);
        assert_eq!(sc("%2d%d", "1234").values, vec![ScanValue::Int(12), ScanValue::Int(34)]);
        assert_eq!(sc("%*d %d", "1 2").values, vec![ScanValue::Int(2)]);
        // `h` converts to short (70000 is 4464 as a short, -1 is 65535 as an unsigned
        // short), `hh` to a byte (300 is 44, 0x1ff is 255), `j` reads a long.
        assert_eq!(
            sc("%hd %hu %hhd %hhx %jd", "70000 -1 300 0x1ff 5000000000").values,
            vec![
                ScanValue::Int(4464),
                ScanValue::Int(65535),
                ScanValue::Byte { v: 44, signed: true },
                ScanValue::Byte { v: 255, signed: false },
                ScanValue::Long(5_000_000_000)
            ]
        );
        // `inf`, `infinity` and `nan` in any case, with a sign (glibc reads them).
        let s = sc("%lf %lf %lf %f", "-Infinity INF nan -inf");
        assert_eq!(s.ret, 4);
        match &s.values[..] {
            [ScanValue::Double(a), ScanValue::Double(b), ScanValue::Double(c), ScanValue::Float(d)] => {
                assert!(*a == f64::NEG_INFINITY && *b == f64::INFINITY && c.is_nan() && *d == f32::NEG_INFINITY);
            }
            v => panic!("{v:?}"),
        }
        assert_eq!(sc("%lf", "infin").ret, 0, "a word that only starts like infinity is no number");
    }
}
