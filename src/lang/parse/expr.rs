//! Expressions: precedence climbing over C's binary operators (the table below),
//! unary and postfix operators, casts and primaries.
use super::*;

const PREC_COMMA: u8 = 1;
const PREC_ASSIGN: u8 = 2;
const PREC_COND: u8 = 3;

enum Infix {
    Comma,
    Assign(Option<BinOp>),
    Cond,
    Bin(BinOp),
}

fn infix(k: TokenKind) -> Option<(u8, Infix)> {
    use Punct::*;
    let TokenKind::Punct(p) = k else { return None };
    Some(match p {
        Comma => (PREC_COMMA, Infix::Comma),
        Assign => (PREC_ASSIGN, Infix::Assign(None)),
        StarAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::Mul))),
        SlashAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::Div))),
        PercentAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::Mod))),
        PlusAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::Add))),
        MinusAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::Sub))),
        ShlAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::Shl))),
        ShrAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::Shr))),
        AmpAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::BitAnd))),
        CaretAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::BitXor))),
        PipeAssign => (PREC_ASSIGN, Infix::Assign(Some(BinOp::BitOr))),
        Question => (PREC_COND, Infix::Cond),
        PipePipe => (4, Infix::Bin(BinOp::Or)),
        AmpAmp => (5, Infix::Bin(BinOp::And)),
        Pipe => (6, Infix::Bin(BinOp::BitOr)),
        Caret => (7, Infix::Bin(BinOp::BitXor)),
        Amp => (8, Infix::Bin(BinOp::BitAnd)),
        EqEq => (9, Infix::Bin(BinOp::Eq)),
        Ne => (9, Infix::Bin(BinOp::Ne)),
        Lt => (10, Infix::Bin(BinOp::Lt)),
        Le => (10, Infix::Bin(BinOp::Le)),
        Gt => (10, Infix::Bin(BinOp::Gt)),
        Ge => (10, Infix::Bin(BinOp::Ge)),
        Shl => (11, Infix::Bin(BinOp::Shl)),
        Shr => (11, Infix::Bin(BinOp::Shr)),
        Plus => (12, Infix::Bin(BinOp::Add)),
        Minus => (12, Infix::Bin(BinOp::Sub)),
        Star => (13, Infix::Bin(BinOp::Mul)),
        Slash => (13, Infix::Bin(BinOp::Div)),
        Percent => (13, Infix::Bin(BinOp::Mod)),
        _ => return None,
    })
}

impl Parser<'_> {
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        self.expr_bp(PREC_COMMA)
    }

    pub(super) fn assign_expr(&mut self) -> PResult<Expr> {
        self.expr_bp(PREC_ASSIGN)
    }

    pub(super) fn cond_expr(&mut self) -> PResult<Expr> {
        self.expr_bp(PREC_COND)
    }

    fn expr_bp(&mut self, min: u8) -> PResult<Expr> {
        self.enter()?;
        let spine = self.spine;
        let r = self.expr_bp_inner(min);
        self.spine = spine;
        self.leave();
        r
    }

    fn expr_bp_inner(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        // A chain `a + b + c …` builds a tree as deep as it is long, which the checker
        // and the code generator walk recursively: the chains open at once (`spine`) are
        // bounded, as nesting is.
        while let Some((prec, op)) = infix(self.peek().kind) {
            if prec < min {
                break;
            }
            self.spine += 1;
            if self.spine > MAX_CHAIN {
                let loc = self.peek().loc;
                let fail = self.error(loc, format!("expression too long (more than {MAX_CHAIN} operators in a row)"));
                self.gave_up = true;
                self.pos = self.toks.len();
                return Err(fail);
            }
            self.bump();
            let loc = lhs.loc;
            let kind = match op {
                Infix::Comma => ExprKind::Comma(Box::new((lhs, self.expr_bp(prec + 1)?))),
                Infix::Assign(op) => ExprKind::Assign(op, Box::new((lhs, self.expr_bp(prec)?))),
                Infix::Cond => {
                    let mid = self.expr()?;
                    self.expect_punct(Punct::Colon, "in the conditional expression")?;
                    let els = self.expr_bp(PREC_COND)?;
                    ExprKind::Cond(Box::new(lhs), Box::new(mid), Box::new(els))
                }
                Infix::Bin(op) => ExprKind::Binary(op, Box::new((lhs, self.expr_bp(prec + 1)?))),
            };
            lhs = Expr { kind, loc };
        }
        Ok(lhs)
    }

    fn type_name(&mut self) -> PResult<TypeName> {
        let base = self.type_spec()?;
        if base.storage != Storage::None {
            return Err(self.error(base.loc, "a storage class cannot appear in a type name"));
        }
        let mut pointers = 0;
        while self.eat(Punct::Star) {
            pointers += 1;
            self.skip_qualifiers();
        }
        // `T (*)(params)`: a function pointer type.
        if self.at(Punct::LParen)
            && self.peek_at(1).kind == TokenKind::Punct(Punct::Star)
            && self.peek_at(2).kind == TokenKind::Punct(Punct::RParen)
        {
            self.bump();
            self.bump();
            self.bump();
            self.expect_punct(Punct::LParen, "to open the parameters of the function pointer type")?;
            let (params, variadic) = self.params()?;
            return Ok(TypeName { base, pointers, func: Some(Box::new(FuncPtr { pointers: 1, params, variadic })) });
        }
        if self.at(Punct::LParen) || self.at(Punct::LBracket) {
            return Err(self.error(
                self.peek().loc,
                "only `T`, `T *…` and `T (*)(params)` are supported as type names (no array or function type names)",
            ));
        }
        Ok(TypeName { base, pointers, func: None })
    }

    fn unary(&mut self) -> PResult<Expr> {
        let t = self.peek();
        let op = match t.kind {
            TokenKind::Punct(Punct::Minus) => Some(UnOp::Neg),
            TokenKind::Punct(Punct::Plus) => Some(UnOp::Plus),
            TokenKind::Punct(Punct::Bang) => Some(UnOp::Not),
            TokenKind::Punct(Punct::Tilde) => Some(UnOp::BitNot),
            TokenKind::Punct(Punct::Star) => Some(UnOp::Deref),
            TokenKind::Punct(Punct::Amp) => Some(UnOp::Addr),
            _ => None,
        };
        let prefix = op.is_some()
            || matches!(t.kind, TokenKind::Punct(Punct::PlusPlus | Punct::MinusMinus) | TokenKind::Kw(Keyword::Sizeof))
            || (t.kind == TokenKind::Punct(Punct::LParen) && self.starts_type(self.peek_at(1)));
        if !prefix {
            return self.postfix();
        }
        self.enter()?;
        let r = self.prefix(t, op);
        self.leave();
        r
    }

    fn prefix(&mut self, t: Token, op: Option<UnOp>) -> PResult<Expr> {
        self.bump();
        let kind = match t.kind {
            _ if op.is_some() => ExprKind::Unary(op.unwrap_or(UnOp::Plus), Box::new(self.unary()?)),
            TokenKind::Punct(p @ (Punct::PlusPlus | Punct::MinusMinus)) => {
                ExprKind::IncDec { pre: true, inc: p == Punct::PlusPlus, expr: Box::new(self.unary()?) }
            }
            TokenKind::Kw(Keyword::Sizeof) => {
                if self.at(Punct::LParen) && self.starts_type(self.peek_at(1)) {
                    self.bump();
                    let tn = self.type_name()?;
                    self.expect_punct(Punct::RParen, "after the type in `sizeof`")?;
                    ExprKind::SizeofType(tn)
                } else {
                    ExprKind::SizeofExpr(Box::new(self.unary()?))
                }
            }
            _ => {
                // `(type) operand`
                let tn = self.type_name()?;
                self.expect_punct(Punct::RParen, "after the type in a cast")?;
                if self.at(Punct::LBrace) {
                    let init = self.init()?;
                    let e = Expr { kind: ExprKind::Compound(Box::new((tn, init))), loc: t.loc };
                    return self.postfix_of(e);
                }
                ExprKind::Cast(tn, Box::new(self.unary()?))
            }
        };
        Ok(Expr { kind, loc: t.loc })
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let e = self.primary()?;
        self.postfix_of(e)
    }

    /// The postfix operators (`[i]`, `(args)`, `.f`, `->f`, `++`, `--`) after `e`.
    fn postfix_of(&mut self, mut e: Expr) -> PResult<Expr> {
        let mut chain = 0u32;
        loop {
            let t = self.peek();
            let loc = e.loc;
            chain += 1;
            if chain > MAX_CHAIN {
                let fail = self
                    .error(t.loc, format!("expression too long (more than {MAX_CHAIN} postfix operators in a row)"));
                self.gave_up = true;
                self.pos = self.toks.len();
                return Err(fail);
            }
            let kind = match t.kind {
                TokenKind::Punct(Punct::LBracket) => {
                    self.bump();
                    let i = self.expr()?;
                    self.expect_punct(Punct::RBracket, "to close the index")?;
                    ExprKind::Index(Box::new((e, i)))
                }
                TokenKind::Punct(Punct::LParen) => {
                    self.bump();
                    let args = self.args()?;
                    match e.kind {
                        ExprKind::Ident(name) => ExprKind::Call { name, name_loc: e.loc, args },
                        _ => ExprKind::CallPtr(Box::new(e), args),
                    }
                }
                TokenKind::Punct(p @ (Punct::Dot | Punct::Arrow)) => {
                    self.bump();
                    let TokenKind::Ident(s) = self.peek().kind else {
                        return Err(self.expected(&format!("a field name after `{}`", p.as_str())));
                    };
                    let field_loc = self.bump().loc;
                    let field = self.name_of(s);
                    ExprKind::Member { expr: Box::new(e), field, field_loc, arrow: p == Punct::Arrow }
                }
                TokenKind::Punct(p @ (Punct::PlusPlus | Punct::MinusMinus)) => {
                    self.bump();
                    ExprKind::IncDec { pre: false, inc: p == Punct::PlusPlus, expr: Box::new(e) }
                }
                _ => return Ok(e),
            };
            e = Expr { kind, loc };
        }
    }

    /// Call arguments after `(`, through `)`.
    fn args(&mut self) -> PResult<Vec<Expr>> {
        let mut args = Vec::new();
        if self.eat(Punct::RParen) {
            return Ok(args);
        }
        loop {
            args.push(self.assign_expr()?);
            if !self.eat(Punct::Comma) {
                self.expect_punct(Punct::RParen, "to close the argument list")?;
                return Ok(args);
            }
        }
    }

    fn primary(&mut self) -> PResult<Expr> {
        let t = self.peek();
        let kind = match t.kind {
            TokenKind::Ident(s) => {
                let i = s.0 as usize;
                if self.mentioned.len() <= i {
                    self.mentioned.resize(i + 1, false);
                }
                self.mentioned[i] = true;
                ExprKind::Ident(self.name_of(s))
            }
            TokenKind::Int(v) => ExprKind::IntLit(v),
            TokenKind::UInt(v) => ExprKind::UIntLit(v),
            TokenKind::Long(v) => ExprKind::LongLit(v),
            TokenKind::ULong(v) => ExprKind::ULongLit(v),
            TokenKind::Float(v) => ExprKind::FloatLit(v),
            TokenKind::Double(v) => ExprKind::DoubleLit(v),
            TokenKind::Char(c) => ExprKind::CharLit(c),
            TokenKind::Str(_) | TokenKind::WStr(_) => {
                // Adjacent literals concatenate: "ab" "cd" is "abcd"; with a wide one
                // among them, the whole is wide (C11 6.4.5p5).
                let mut bytes = Vec::new();
                let mut wide = false;
                while let TokenKind::Str(id) | TokenKind::WStr(id) = self.peek().kind {
                    wide |= matches!(self.peek().kind, TokenKind::WStr(_));
                    bytes.extend_from_slice(self.names.str_bytes(id));
                    self.bump();
                }
                if wide {
                    let points = String::from_utf8_lossy(&bytes).chars().map(u32::from).collect();
                    return Ok(Expr { kind: ExprKind::WStrLit(points), loc: t.loc });
                }
                return Ok(Expr { kind: ExprKind::StrLit(bytes), loc: t.loc });
            }
            TokenKind::Punct(Punct::LParen) => {
                self.bump();
                let e = self.expr()?;
                self.expect_punct(Punct::RParen, "to close the parenthesis")?;
                return Ok(e);
            }
            TokenKind::Kw(k) if unsupported_keyword(k).is_some() => return Err(self.unsupported(t, k)),
            _ => return Err(self.expected("an expression")),
        };
        self.bump();
        Ok(Expr { kind, loc: t.loc })
    }
}
