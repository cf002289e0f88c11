//! The grammar: a recursive-descent parser with precedence climbing for C's binary
//! operators, reading the tokens of `lex.rs` and emitting stack-machine ops of `eval.rs`
//! directly (one pass, no tree), so a long chain such as `1+1+…+1` needs neither deep
//! recursion nor a deep evaluation stack.
//!
//! Totality: recursion happens only through [`Parser::enter`] (parentheses, `?:`, prefix
//! operators, `**`, function arguments), which stops at [`MAX_DEPTH`] levels; jumps only
//! go forward; the stack depth each op needs is tracked and capped at [`STACK_LIMIT`].
use super::eval::{lookup_func, BinOp, Leaf, Op, Program, UnOp, Value, FUNCS, STACK_LIMIT};
use super::lex::{tokenize, TokKind, Token};
use super::{ExprError, Span};

/// How deep parentheses, `?:`, prefix operators and calls may nest.
pub(crate) const MAX_DEPTH: usize = 200;
/// The most virtual or physical dimensions a mapping may have.
pub(crate) const MAX_DIMS: usize = 64;
/// The longest text accepted, in bytes: far beyond any real mapping or machine-file
/// expression, small enough that the token list stays a few megabytes.
pub(crate) const MAX_INPUT: usize = 1 << 16;

/// Literal conversion per number domain.
pub(crate) trait Literal: Value {
    /// Converts an integer or real token; `None` when it does not fit.
    fn literal(kind: TokKind, text: &str) -> Option<Self>;
}

fn parse_int(text: &str) -> Option<i64> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => i64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

impl Literal for i64 {
    fn literal(kind: TokKind, text: &str) -> Option<i64> {
        match kind {
            TokKind::Int => parse_int(text),
            _ => None,
        }
    }
}

impl Literal for f64 {
    fn literal(kind: TokKind, text: &str) -> Option<f64> {
        let v = match kind {
            TokKind::Int => match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
                Some(hex) => u128::from_str_radix(hex, 16).ok().map(|v| v as f64),
                None => text.parse::<f64>().ok(),
            },
            TokKind::Real => text.parse::<f64>().ok(),
            _ => None,
        }?;
        v.is_finite().then_some(v)
    }
}

struct Parser<'t, T> {
    toks: Vec<Token<'t>>,
    at: usize,
    depth: usize,
    /// Mapping mode: names are these parameters, `#i`/`$i` are allowed.
    mapping: bool,
    params: Vec<String>,
    /// Scalar mode: the distinct references, in order of first use.
    refs: Vec<String>,
    ops: Vec<Op<T>>,
    sp: usize,
    max_sp: usize,
    /// Every `$i` seen, checked once the number of physical coordinates is known.
    phys_refs: Vec<(u32, Span)>,
}

/// What a binary operator token compiles to.
#[derive(Clone, Copy)]
enum Infix {
    And,
    Or,
    Op(BinOp),
}

/// C's binary operators and their precedence (higher binds tighter); all left-associative.
fn infix(tok: &Token<'_>) -> Option<(u8, Infix)> {
    if tok.kind != TokKind::Punct {
        return None;
    }
    let (prec, op) = match tok.text {
        "||" => (1, Infix::Or),
        "&&" => (2, Infix::And),
        "|" => (3, Infix::Op(BinOp::BitOr)),
        "^" => (4, Infix::Op(BinOp::BitXor)),
        "&" => (5, Infix::Op(BinOp::BitAnd)),
        "==" => (6, Infix::Op(BinOp::Eq)),
        "!=" => (6, Infix::Op(BinOp::Ne)),
        "<" => (7, Infix::Op(BinOp::Lt)),
        "<=" => (7, Infix::Op(BinOp::Le)),
        ">" => (7, Infix::Op(BinOp::Gt)),
        ">=" => (7, Infix::Op(BinOp::Ge)),
        "<<" => (8, Infix::Op(BinOp::Shl)),
        ">>" => (8, Infix::Op(BinOp::Shr)),
        "+" => (9, Infix::Op(BinOp::Add)),
        "-" => (9, Infix::Op(BinOp::Sub)),
        "*" => (10, Infix::Op(BinOp::Mul)),
        "/" => (10, Infix::Op(BinOp::Div)),
        "%" => (10, Infix::Op(BinOp::Rem)),
        _ => return None,
    };
    Some((prec, op))
}

fn prefix(tok: &Token<'_>) -> Option<UnOp> {
    match (tok.kind, tok.text) {
        (TokKind::Punct, "-") => Some(UnOp::Neg),
        (TokKind::Punct, "+") => Some(UnOp::Plus),
        (TokKind::Punct, "!") => Some(UnOp::Not),
        (TokKind::Punct, "~") => Some(UnOp::BitNot),
        _ => None,
    }
}

/// Spans from the start of `a` to the end of `b`.
fn join(a: Span, b: Span) -> Span {
    Span { len: (b.offset + b.len).saturating_sub(a.offset), ..a }
}

impl<'t, T: Literal> Parser<'t, T> {
    fn new(text: &'t str, mapping: bool) -> Result<Self, ExprError> {
        if text.len() > MAX_INPUT {
            return Err(ExprError::TooLong { len: text.len(), limit: MAX_INPUT });
        }
        let toks = tokenize(text, !mapping)?;
        Ok(Parser {
            toks,
            at: 0,
            depth: 0,
            mapping,
            params: Vec::new(),
            refs: Vec::new(),
            ops: Vec::new(),
            sp: 0,
            max_sp: 0,
            phys_refs: Vec::new(),
        })
    }

    fn peek(&self) -> Token<'t> {
        // The token list always ends with `End`, and `bump` never moves past it.
        match self.toks.get(self.at) {
            Some(t) => *t,
            None => self.toks.last().copied().unwrap_or(Token { kind: TokKind::End, text: "", span: Span::START }),
        }
    }

    fn peek2(&self) -> Token<'t> {
        self.toks.get(self.at + 1).copied().unwrap_or_else(|| self.peek())
    }

    fn bump(&mut self) -> Token<'t> {
        let t = self.peek();
        if t.kind != TokKind::End {
            self.at += 1;
        }
        t
    }

    fn syntax(&self, expected: impl Into<String>) -> ExprError {
        let found = self.peek();
        ExprError::Syntax { span: found.span, expected: expected.into(), found: found.describe() }
    }

    fn expect_punct(&mut self, punct: &str, expected: &str) -> Result<Token<'t>, ExprError> {
        if self.peek().is(punct) {
            Ok(self.bump())
        } else {
            Err(self.syntax(expected))
        }
    }

    fn ident(&mut self, expected: &str) -> Result<Token<'t>, ExprError> {
        if self.peek().kind == TokKind::Ident {
            Ok(self.bump())
        } else {
            Err(self.syntax(expected))
        }
    }

    fn enter(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ExprError::TooDeep { span: self.peek().span, limit: MAX_DEPTH });
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Emits an op that pushes one value.
    fn push(&mut self, op: Op<T>, span: Span) -> Result<(), ExprError> {
        self.ops.push(op);
        self.sp += 1;
        if self.sp > STACK_LIMIT {
            return Err(ExprError::TooComplex { span, limit: STACK_LIMIT });
        }
        self.max_sp = self.max_sp.max(self.sp);
        Ok(())
    }

    /// Emits an op that pops `n` values (and pushes nothing).
    fn pop(&mut self, op: Op<T>, n: usize) {
        self.ops.push(op);
        self.sp = self.sp.saturating_sub(n);
    }

    /// Emits a jump with a placeholder target; returns its index for [`Self::patch`].
    fn jump(&mut self, op: Op<T>, pops: usize) -> usize {
        self.pop(op, pops);
        self.ops.len() - 1
    }

    /// Points the jump at `index` to the next op to be emitted.
    fn patch(&mut self, index: usize) {
        let target = self.ops.len() as u32;
        if let Some(Op::Jump(t) | Op::JumpIfFalse(t) | Op::AndJump(t) | Op::OrJump(t)) = self.ops.get_mut(index) {
            *t = target;
        }
    }

    /// Takes the ops emitted since the last call as one program.
    fn finish(&mut self) -> Program<T> {
        let prog = Program { ops: std::mem::take(&mut self.ops), max_stack: self.max_sp };
        self.sp = 0;
        self.max_sp = 0;
        prog
    }

    fn expr(&mut self) -> Result<(), ExprError> {
        self.enter()?;
        self.binary(1)?;
        if self.peek().is("?") {
            self.bump();
            let base = self.sp.saturating_sub(1);
            let to_else = self.jump(Op::JumpIfFalse(0), 1);
            self.expr()?;
            self.expect_punct(":", "`:` of the `?:` operator")?;
            let to_end = self.jump(Op::Jump(0), 0);
            self.patch(to_else);
            // Both branches start from the stack as it was below the condition.
            self.sp = base;
            self.expr()?;
            self.patch(to_end);
        }
        self.leave();
        Ok(())
    }

    fn binary(&mut self, min_prec: u8) -> Result<(), ExprError> {
        self.unary()?;
        while let Some((prec, op)) = infix(&self.peek()) {
            if prec < min_prec {
                break;
            }
            let tok = self.bump();
            match op {
                Infix::And | Infix::Or => {
                    let j = if matches!(op, Infix::And) { Op::AndJump(0) } else { Op::OrJump(0) };
                    let j = self.jump(j, 1);
                    self.binary(prec + 1)?;
                    self.ops.push(Op::Truth);
                    self.patch(j);
                }
                Infix::Op(b) => {
                    self.binary(prec + 1)?;
                    self.pop(Op::Binary(b, tok.span), 1);
                }
            }
        }
        Ok(())
    }

    fn unary(&mut self) -> Result<(), ExprError> {
        match prefix(&self.peek()) {
            Some(u) => {
                let tok = self.bump();
                self.enter()?;
                self.unary()?;
                self.leave();
                self.ops.push(Op::Unary(u, tok.span));
                Ok(())
            }
            None => self.power(),
        }
    }

    /// `a ** b`: binds tighter than `*` and than a prefix operator on its left, and is
    /// right-associative (`-2**2` is -4, `2**3**2` is 512).
    fn power(&mut self) -> Result<(), ExprError> {
        self.primary()?;
        if self.peek().is("**") {
            let tok = self.bump();
            self.enter()?;
            self.unary()?;
            self.leave();
            self.pop(Op::Binary(BinOp::Pow, tok.span), 1);
        }
        Ok(())
    }

    fn primary(&mut self) -> Result<(), ExprError> {
        let tok = self.peek();
        match tok.kind {
            TokKind::Int | TokKind::Real => {
                self.bump();
                let v = T::literal(tok.kind, tok.text)
                    .ok_or_else(|| ExprError::BadNumber { span: tok.span, text: tok.text.to_string() })?;
                self.push(Op::Const(v), tok.span)
            }
            TokKind::VirtDim | TokKind::PhysDim => {
                self.bump();
                self.dimension(tok)
            }
            TokKind::Ident => {
                self.bump();
                if self.peek().is("(") {
                    if let Some((index, func)) = lookup_func(tok.text) {
                        return self.call(tok, index, func.arity);
                    }
                }
                self.name(tok)
            }
            TokKind::Punct if tok.is("(") => {
                self.bump();
                self.expr()?;
                self.expect_punct(")", "`)`")?;
                Ok(())
            }
            _ => Err(self.syntax("expression")),
        }
    }

    fn dimension(&mut self, tok: Token<'t>) -> Result<(), ExprError> {
        let (sigil, virt) = if tok.kind == TokKind::VirtDim { ('#', true) } else { ('$', false) };
        let index: u32 = tok.text.parse().unwrap_or(u32::MAX);
        // The token's span already covers the sigil.
        let span = tok.span;
        if !self.mapping {
            return Err(ExprError::DimensionOutsideMapping { span, sigil, index: tok.text.to_string() });
        }
        let params = self.params.len();
        if index == 0 {
            return Err(ExprError::DimensionZero { span, sigil });
        }
        let slot = u16::try_from(index - 1).unwrap_or(u16::MAX);
        if virt {
            if index as usize > params {
                return Err(ExprError::DimensionOutOfRange { span, sigil, index, dims: params });
            }
            self.push(Op::Load(Leaf::VirtDim(slot), span), span)
        } else {
            self.phys_refs.push((index, span));
            self.push(Op::Load(Leaf::PhysDim(slot), span), span)
        }
    }

    fn call(&mut self, name: Token<'t>, index: u8, arity: usize) -> Result<(), ExprError> {
        let func = FUNCS.get(usize::from(index));
        if !func.is_some_and(T::has_func) {
            return Err(ExprError::RealFunction { span: name.span, name: name.text.to_string() });
        }
        self.expect_punct("(", "`(`")?;
        self.enter()?;
        let mut args = 0usize;
        if !self.peek().is(")") {
            loop {
                self.expr()?;
                args += 1;
                if !self.peek().is(",") {
                    break;
                }
                self.bump();
            }
        }
        let close = self.expect_punct(")", "`,` or `)`")?;
        self.leave();
        if args != arity {
            return Err(ExprError::FunctionArity {
                span: join(name.span, close.span),
                name: name.text.to_string(),
                expected: arity,
                found: args,
            });
        }
        // A call pops its arguments and pushes its result.
        self.sp = self.sp.saturating_sub(arity);
        self.push(Op::Call(index, name.span), name.span)
    }

    fn name(&mut self, tok: Token<'t>) -> Result<(), ExprError> {
        let next = self.peek();
        if self.mapping {
            if next.is("(") {
                return Err(unknown_function(tok, false));
            }
            return match self.params.iter().position(|p| p == tok.text) {
                Some(i) => self.push(Op::Load(Leaf::Coord(i as u16), tok.span), tok.span),
                None => Err(ExprError::UnknownName {
                    span: tok.span,
                    name: tok.text.to_string(),
                    params: self.params.join(", "),
                }),
            };
        }
        // `foo(x)` can only be a call, but `pt(1)` is a reference.
        if next.is("(") && self.peek2().kind != TokKind::Int {
            return Err(unknown_function(tok, true));
        }
        let (name, span) = self.reference(tok)?;
        let slot = match self.refs.iter().position(|r| *r == name) {
            Some(i) => i,
            None => {
                self.refs.push(name);
                self.refs.len() - 1
            }
        };
        self.push(Op::Load(Leaf::Var(slot as u32), span), span)
    }

    /// A machine-file reference such as `pt(1).ila` or `tl(1)(2).connect(0)`
    /// (seed 004 §2.9): words joined by `.`, each followed by integer indices in
    /// parentheses. Returns the canonical spelling (no blanks, decimal indices).
    fn reference(&mut self, first: Token<'t>) -> Result<(String, Span), ExprError> {
        let mut name = first.text.to_string();
        let mut last = first.span;
        loop {
            while self.peek().is("(") {
                self.bump();
                let idx = self.peek();
                let value = match idx.kind {
                    TokKind::Int => parse_int(idx.text),
                    _ => None,
                };
                let Some(value) = value else { return Err(self.syntax("integer index of the reference")) };
                self.bump();
                last = self.expect_punct(")", "`)`")?.span;
                name.push('(');
                name.push_str(&value.to_string());
                name.push(')');
            }
            if self.peek().is(".") && self.peek2().kind == TokKind::Ident {
                self.bump();
                let field = self.bump();
                last = field.span;
                name.push('.');
                name.push_str(field.text);
            } else {
                return Ok((name, join(first.span, last)));
            }
        }
    }
}

fn unknown_function(tok: Token<'_>, reals: bool) -> ExprError {
    let known: Vec<&str> = FUNCS.iter().filter(|f| reals || f.int.is_some()).map(|f| f.name).collect();
    ExprError::UnknownFunction { span: tok.span, name: tok.text.to_string(), known: known.join(", ") }
}

/// The parts of a parsed mapping string.
pub(crate) struct ParsedMapping {
    pub name: String,
    pub params: Vec<String>,
    pub params_span: Span,
    pub coords: Vec<Program<i64>>,
    pub coords_span: Span,
}

/// Parses `name(x1, …, xm) = [y1, …, yn].`
pub(crate) fn parse_mapping(text: &str) -> Result<ParsedMapping, ExprError> {
    let mut p: Parser<'_, i64> = Parser::new(text, true)?;
    let name = p.ident("mapping name")?.text.to_string();
    let open = p.expect_punct("(", "`(` after the mapping name")?;
    let mut params: Vec<String> = Vec::new();
    let close = loop {
        let tok = p.ident("parameter name")?;
        if params.iter().any(|q| q == tok.text) {
            return Err(ExprError::DuplicateParameter { span: tok.span, name: tok.text.to_string() });
        }
        if params.len() == MAX_DIMS {
            return Err(ExprError::TooManyDimensions { span: tok.span, what: "parameters", limit: MAX_DIMS });
        }
        params.push(tok.text.to_string());
        if p.peek().is(",") {
            p.bump();
        } else {
            break p.expect_punct(")", "`,` or `)`")?;
        }
    };
    p.params = params.clone();
    p.expect_punct("=", "`=`")?;
    let bracket = p.expect_punct("[", "`[`")?;
    let mut coords = Vec::new();
    let end = loop {
        if coords.len() == MAX_DIMS {
            return Err(ExprError::TooManyDimensions { span: p.peek().span, what: "coordinates", limit: MAX_DIMS });
        }
        p.expr()?;
        coords.push(p.finish());
        if p.peek().is(",") {
            p.bump();
        } else {
            break p.expect_punct("]", "`,` or `]`")?;
        }
    };
    p.expect_punct(".", "`.` at the end of the mapping")?;
    if p.peek().kind != TokKind::End {
        return Err(p.syntax("end of input after the mapping's final `.`"));
    }
    if let Some(&(index, span)) = p.phys_refs.iter().find(|(i, _)| *i as usize > coords.len()) {
        return Err(ExprError::DimensionOutOfRange { span, sigil: '$', index, dims: coords.len() });
    }
    Ok(ParsedMapping {
        name,
        params,
        params_span: join(open.span, close.span),
        coords,
        coords_span: join(bracket.span, end.span),
    })
}

/// Parses a scalar expression over reals; returns its program and reference names.
pub(crate) fn parse_scalar(text: &str) -> Result<(Program<f64>, Vec<String>), ExprError> {
    let mut p: Parser<'_, f64> = Parser::new(text, false)?;
    p.expr()?;
    if p.peek().kind != TokKind::End {
        return Err(p.syntax("operator or end of input"));
    }
    let prog = p.finish();
    Ok((prog, p.refs))
}
