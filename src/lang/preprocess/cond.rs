//! `#if` and `#elif` conditions: `defined`, macro expansion, then the constant expression
//! evaluated by precedence climbing.
use super::*;

/// An `#if` expression being evaluated: precedence climbing over macro-expanded tokens.
struct CondExpr<'t> {
    toks: &'t [Token],
    pos: usize,
    /// Where to point when the expression ends early (the directive).
    end: Loc,
    /// Nesting of parentheses, prefix operators and `?:` so far (at most
    /// [`crate::lang::parse::MAX_DEPTH`], as in the parser: no input can overflow the stack).
    depth: u32,
    /// Above 0 inside an operand that is not evaluated (the right of `0 && …` or
    /// `1 || …`, the branch of `?:` not taken): a division by zero there is no error
    /// (C11 6.6p3 applies to evaluated operands only).
    unevaluated: u32,
}

type CondResult = Result<i64, (Loc, String)>;

impl CondExpr<'_> {
    fn peek(&self) -> Option<TokenKind> {
        self.toks.get(self.pos).map(|t| t.kind)
    }

    fn eat(&mut self, p: Punct) -> bool {
        let yes = self.peek().is_some_and(|k| punct(k, p));
        self.pos += usize::from(yes);
        yes
    }

    fn here(&self) -> Loc {
        self.toks.get(self.pos).map_or(self.end, |t| t.loc)
    }

    fn ternary(&mut self) -> CondResult {
        let c = self.binary(0)?;
        if !self.eat(Punct::Question) {
            return Ok(c);
        }
        if self.depth >= crate::lang::parse::MAX_DEPTH {
            let n = crate::lang::parse::MAX_DEPTH;
            return Err((self.here(), format!("`#if` expression nested too deep (more than {n} levels)")));
        }
        self.depth += 1;
        let ab = self.branches(c != 0);
        self.depth -= 1;
        let (a, b) = ab?;
        Ok(if c != 0 { a } else { b })
    }

    /// The two branches of `?:` after the `?`.
    fn branches(&mut self, first: bool) -> Result<(i64, i64), (Loc, String)> {
        self.unevaluated += u32::from(!first);
        let a = self.ternary()?;
        self.unevaluated -= u32::from(!first);
        if !self.eat(Punct::Colon) {
            return Err((self.here(), "expected `:` in the `#if` expression".into()));
        }
        self.unevaluated += u32::from(first);
        let b = self.ternary()?;
        self.unevaluated -= u32::from(first);
        Ok((a, b))
    }

    /// Binary operators of precedence `min` and above (C's table, `||` lowest).
    fn binary(&mut self, min: u8) -> CondResult {
        let mut lhs = self.unary()?;
        loop {
            let Some(TokenKind::Punct(p)) = self.peek() else { return Ok(lhs) };
            let prec = match p {
                Punct::PipePipe => 1,
                Punct::AmpAmp => 2,
                Punct::Pipe => 3,
                Punct::Caret => 4,
                Punct::Amp => 5,
                Punct::EqEq | Punct::Ne => 6,
                Punct::Lt | Punct::Gt | Punct::Le | Punct::Ge => 7,
                Punct::Shl | Punct::Shr => 8,
                Punct::Plus | Punct::Minus => 9,
                Punct::Star | Punct::Slash | Punct::Percent => 10,
                _ => return Ok(lhs),
            };
            if prec < min.max(1) {
                return Ok(lhs);
            }
            let at = self.here();
            self.pos += 1;
            let skip = match p {
                Punct::AmpAmp => lhs == 0,
                Punct::PipePipe => lhs != 0,
                _ => false,
            };
            self.unevaluated += u32::from(skip);
            let rhs = self.binary(prec + 1)?;
            self.unevaluated -= u32::from(skip);
            lhs = match p {
                Punct::PipePipe => i64::from(lhs != 0 || rhs != 0),
                Punct::AmpAmp => i64::from(lhs != 0 && rhs != 0),
                Punct::Pipe => lhs | rhs,
                Punct::Caret => lhs ^ rhs,
                Punct::Amp => lhs & rhs,
                Punct::EqEq => i64::from(lhs == rhs),
                Punct::Ne => i64::from(lhs != rhs),
                Punct::Lt => i64::from(lhs < rhs),
                Punct::Gt => i64::from(lhs > rhs),
                Punct::Le => i64::from(lhs <= rhs),
                Punct::Ge => i64::from(lhs >= rhs),
                Punct::Shl => lhs.wrapping_shl(rhs as u32),
                Punct::Shr => lhs.wrapping_shr(rhs as u32),
                Punct::Plus => lhs.wrapping_add(rhs),
                Punct::Minus => lhs.wrapping_sub(rhs),
                Punct::Star => lhs.wrapping_mul(rhs),
                Punct::Slash | Punct::Percent if rhs == 0 && self.unevaluated > 0 => 0,
                Punct::Slash | Punct::Percent if rhs == 0 => {
                    return Err((at, "division by zero in the `#if` expression".into()));
                }
                Punct::Slash => lhs.wrapping_div(rhs),
                _ => lhs.wrapping_rem(rhs),
            };
        }
    }

    fn unary(&mut self) -> CondResult {
        let at = self.here();
        if self.depth >= crate::lang::parse::MAX_DEPTH {
            return Err((
                at,
                format!("`#if` expression nested too deep (more than {} levels)", crate::lang::parse::MAX_DEPTH),
            ));
        }
        self.depth += 1;
        let v = self.unary_inner(at);
        self.depth -= 1;
        v
    }

    fn unary_inner(&mut self, at: Loc) -> CondResult {
        let Some(k) = self.peek() else {
            return Err((at, "expected an expression in `#if`".into()));
        };
        self.pos += 1;
        match k {
            TokenKind::Int(v) => Ok(v),
            TokenKind::UInt(v) => Ok(i64::from(v)),
            TokenKind::Long(v) => Ok(v),
            // `#if` arithmetic is in 64 bits: an unsigned long above LONG_MAX wraps.
            TokenKind::ULong(v) => Ok(v as i64),
            TokenKind::Char(c) => Ok(i64::from(c as i8)),
            // An identifier left after expansion (keywords too) is 0 (C11 6.10.1p4).
            TokenKind::Ident(_) | TokenKind::Kw(_) => {
                if self.peek().is_some_and(|k| punct(k, Punct::LParen)) {
                    return Err((at, "function-like macro call or function in `#if`: not a constant".into()));
                }
                Ok(0)
            }
            TokenKind::Punct(Punct::Minus) => Ok(self.unary()?.wrapping_neg()),
            TokenKind::Punct(Punct::Plus) => self.unary(),
            TokenKind::Punct(Punct::Tilde) => Ok(!self.unary()?),
            TokenKind::Punct(Punct::Bang) => Ok(i64::from(self.unary()? == 0)),
            TokenKind::Punct(Punct::LParen) => {
                let v = self.ternary()?;
                if !self.eat(Punct::RParen) {
                    return Err((self.here(), "expected `)` in the `#if` expression".into()));
                }
                Ok(v)
            }
            TokenKind::Float(_) | TokenKind::Double(_) => {
                Err((at, "`#if` needs an integer constant expression, not a floating one".into()))
            }
            TokenKind::Str(_) => Err((at, "a string cannot appear in an `#if` expression".into())),
            _ => Err((at, "expected an expression in `#if`".into())),
        }
    }
}

impl Pre<'_> {
    /// The tokens of a directive's operand after macro expansion (`#if`, and `#line` and
    /// `#include` when they are not in their plain form: C11 6.10.2p4, 6.10.4p5).
    pub(super) fn expand_list(&mut self, toks: Vec<PTok>) -> Vec<Token> {
        let mut ctx = Ctx { segs: Vec::new(), list: Some((toks, 0)), inherited: Vec::new(), depth: 0 };
        let mut expanded = Vec::new();
        while let Some(t) = self.next_expanded(&mut ctx) {
            expanded.push(t.tok);
        }
        expanded
    }

    /// The value of the condition of an `#if` or `#elif` at `loc`: `defined NAME` and
    /// `defined(NAME)` become 1 or 0, the rest is macro-expanded, identifiers left over
    /// are 0, and the integer constant expression is evaluated in 64-bit signed
    /// arithmetic (C11 6.10.1). A malformed expression is an error and counts as false.
    pub(super) fn condition(&mut self, loc: Loc, rest: &[Token]) -> bool {
        let mut toks: Vec<PTok> = Vec::with_capacity(rest.len());
        let mut i = 0;
        while i < rest.len() {
            let t = rest[i];
            if let Some(next) = self.has_include(rest, i) {
                let (value, after) = match next {
                    Ok(v) => v,
                    Err(msg) => {
                        self.error(t.loc, msg);
                        return false;
                    }
                };
                toks.push(PTok { tok: Token { kind: TokenKind::Int(i64::from(value)), loc: t.loc }, noexpand: true });
                i = after;
                continue;
            }
            if Self::word_sym(t.kind) == Some(words::DEFINED) {
                let paren = rest.get(i + 1).is_some_and(|x| punct(x.kind, Punct::LParen));
                let at = if paren { i + 2 } else { i + 1 };
                let Some(name) = rest.get(at).and_then(|x| Self::word_sym(x.kind)) else {
                    self.error(t.loc, "expected a macro name after `defined`");
                    return false;
                };
                if paren && !rest.get(at + 1).is_some_and(|x| punct(x.kind, Punct::RParen)) {
                    self.error(t.loc, "expected `)` after `defined(NAME`");
                    return false;
                }
                let is = self.macros.get(name.0 as usize).is_some_and(Option::is_some) || self.is_has_include(name);
                toks.push(PTok { tok: Token { kind: TokenKind::Int(i64::from(is)), loc: t.loc }, noexpand: true });
                i = at + 1 + usize::from(paren);
                continue;
            }
            toks.push(PTok { tok: t, noexpand: false });
            i += 1;
        }
        let expanded = self.expand_list(toks);
        let mut e = CondExpr { toks: &expanded, pos: 0, end: loc, depth: 0, unevaluated: 0 };
        match e.ternary().and_then(|v| match e.toks.get(e.pos) {
            None => Ok(v),
            Some(t) => Err((t.loc, "unexpected token after the `#if` expression".to_string())),
        }) {
            Ok(v) => v != 0,
            Err((at, msg)) => {
                self.error(at, msg);
                false
            }
        }
    }
}

impl Pre<'_> {
    /// Whether `s` is `__has_include` or `__has_include_next` (C23 6.10.1, gcc): defined
    /// for `#ifdef` and `defined`, operators in `#if`.
    pub(super) fn is_has_include(&self, s: Sym) -> bool {
        matches!(self.names.name(s), "__has_include" | "__has_include_next")
    }

    /// `__has_include("file")`, `__has_include(<file>)` or `__has_include(MACRO)` at
    /// `rest[i]`: whether `#include` would find the file, and the index after the `)`.
    /// `None` when `rest[i]` is not the operator. `__has_include_next` searches as
    /// `__has_include` does (there is one search path per kind of name).
    fn has_include(&mut self, rest: &[Token], i: usize) -> Option<Result<(bool, usize), String>> {
        let s = Self::word_sym(rest[i].kind)?;
        if !self.is_has_include(s) {
            return None;
        }
        let what = self.names.name(s).to_string();
        if !rest.get(i + 1).is_some_and(|t| punct(t.kind, Punct::LParen)) {
            return Some(Err(format!("expected `(` after `{what}`")));
        }
        let Some(close) = rest[i + 2..].iter().position(|t| punct(t.kind, Punct::RParen)).map(|k| i + 2 + k) else {
            return Some(Err(format!("expected `)` to close `{what}(`")));
        };
        let inner: Vec<Token> = rest[i + 2..close].to_vec();
        let inner = match inner.first().map(|t| t.kind) {
            Some(TokenKind::Ident(_)) => {
                self.expand_list(inner.into_iter().map(|tok| PTok { tok, noexpand: false }).collect())
            }
            _ => inner,
        };
        let (name, angle) = match inner.as_slice() {
            [t] => match t.kind {
                TokenKind::Str(id) | TokenKind::HeaderName(id) => (
                    String::from_utf8_lossy(self.names.str_bytes(id)).into_owned(),
                    matches!(t.kind, TokenKind::HeaderName(_)),
                ),
                _ => return Some(Err(format!("expected \"file\" or <file> in `{what}(…)`"))),
            },
            [lt, mid @ .., gt] if punct(lt.kind, Punct::Lt) && punct(gt.kind, Punct::Gt) => {
                (mid.iter().map(|&t| self.spell(t)).collect(), true)
            }
            _ => return Some(Err(format!("expected \"file\" or <file> in `{what}(…)`"))),
        };
        Some(Ok((self.include_exists(&name, angle), close + 1)))
    }
}
