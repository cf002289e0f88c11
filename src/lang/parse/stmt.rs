//! Statements and blocks, CPC's `forall` and `fork` among them.
use super::*;

impl Parser<'_> {
    pub(super) fn block(&mut self) -> PResult<Block> {
        // Enter before taking the `{` so that, when too deep, the enclosing block skips
        // this one whole (braces balanced).
        self.enter()?;
        let open = match self.expect_punct(Punct::LBrace, "to open a block") {
            Ok(t) => t,
            Err(f) => {
                self.leave();
                return Err(f);
            }
        };
        let typedef_mark = self.typedefs.len();
        let mut stmts = self.scratch.pop().unwrap_or_default();
        let mut out = self.scratch.pop().unwrap_or_default();
        let end = loop {
            let t = self.peek();
            match t.kind {
                TokenKind::Punct(Punct::RBrace) => break self.bump().loc,
                TokenKind::Eof => {
                    let msg = format!("expected `}}` to close the block opened at line {}", open.loc.line);
                    self.expected_msg(msg);
                    break t.loc;
                }
                _ => {}
            }
            let start = self.pos;
            let mark = self.hoisted.len();
            let r = self.block_item(&mut out);
            stmts.extend(self.hoisted.drain(mark..).map(|h| match h {
                Hoisted::Struct(s) => Stmt { loc: s.loc, kind: StmtKind::Struct(s) },
                Hoisted::Enum(e) => Stmt { loc: e.loc, kind: StmtKind::Enum(e) },
            }));
            stmts.append(&mut out);
            if r.is_err() {
                self.sync_stmt(start);
                self.poison(start);
            }
            if self.pos == start {
                self.bump();
            }
        };
        self.leave();
        self.drop_typedefs(typedef_mark);
        let mut exact = Vec::with_capacity(stmts.len());
        exact.append(&mut stmts);
        self.scratch.push(stmts);
        self.scratch.push(out);
        Ok(Block { stmts: exact, loc: open.loc, end })
    }

    /// A declaration or a statement inside a block.
    fn block_item(&mut self, out: &mut Vec<Stmt>) -> PResult<()> {
        let t = self.peek();
        match t.kind {
            TokenKind::Ident(_) if self.peek_at(1).kind == TokenKind::Punct(Punct::Colon) => {
                out.push(self.stmt()?);
                Ok(())
            }
            _ if self.starts_type(t) => {
                let ty = self.type_spec()?;
                match self.decl_rest(ty)? {
                    Decl::Var(v) => out.push(Stmt { loc: t.loc, kind: StmtKind::Decl(v) }),
                    Decl::Func(f) => out.push(Stmt { loc: t.loc, kind: StmtKind::Func(Box::new(f)) }),
                    Decl::Typedef(v) => out.push(Stmt { loc: t.loc, kind: StmtKind::Typedef(v) }),
                    Decl::Nothing => {}
                }
                Ok(())
            }
            TokenKind::Kw(Keyword::StaticAssert) => {
                let a = self.static_assert()?;
                out.push(Stmt { loc: a.loc, kind: StmtKind::StaticAssert(a) });
                Ok(())
            }
            TokenKind::Kw(k @ (Keyword::Channel | Keyword::Arch | Keyword::PhyArch)) => {
                Err(self.error(t.loc, format!("`{}` declarations must be at file level", k.as_str())))
            }
            TokenKind::Ident(_) if matches!(self.peek_at(1).kind, TokenKind::Ident(_)) => {
                let msg = super::unknown_type(self.names_of(t));
                Err(self.error(t.loc, msg))
            }
            _ => {
                out.push(self.stmt()?);
                Ok(())
            }
        }
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        if self.at(Punct::LBrace) {
            let b = self.block()?;
            return Ok(Stmt { loc: b.loc, kind: StmtKind::Block(b) });
        }
        self.enter()?;
        let r = self.stmt_inner();
        self.leave();
        r
    }

    /// `( expr )` after a keyword; `after` is the message context ("after `if`").
    fn paren_expr(&mut self, after: &str) -> PResult<Expr> {
        self.expect_punct(Punct::LParen, after)?;
        let e = self.expr()?;
        self.expect_punct(Punct::RParen, "to close the condition")?;
        Ok(e)
    }

    // Each statement kind has its own function: in unoptimised builds one big match
    // would give every nesting level a frame as large as all arms together.
    fn stmt_inner(&mut self) -> PResult<Stmt> {
        let t = self.peek();
        let loc = t.loc;
        // One call through a function pointer keeps a single result temporary in this
        // frame, which matters for the stack depth of unoptimised builds.
        let f: fn(&mut Self) -> PResult<StmtKind> = match t.kind {
            TokenKind::Punct(Punct::Semi) => Self::empty_stmt,
            TokenKind::Kw(Keyword::If) => Self::if_stmt,
            TokenKind::Kw(Keyword::While) => Self::while_stmt,
            TokenKind::Kw(Keyword::Do) => Self::do_stmt,
            TokenKind::Kw(Keyword::For) => Self::for_stmt,
            TokenKind::Kw(Keyword::Switch) => Self::switch_stmt,
            TokenKind::Kw(Keyword::Case) => Self::case_label,
            TokenKind::Kw(Keyword::Default) => Self::default_label,
            TokenKind::Kw(Keyword::Break | Keyword::Continue | Keyword::Join) => Self::jump_stmt,
            TokenKind::Kw(Keyword::Return) => Self::return_stmt,
            TokenKind::Kw(Keyword::Forall) => Self::forall,
            TokenKind::Kw(Keyword::Fork) => Self::fork,
            TokenKind::Kw(Keyword::Goto) => Self::goto_stmt,
            TokenKind::Ident(_) if self.peek_at(1).kind == TokenKind::Punct(Punct::Colon) => Self::label,
            _ if self.starts_type(t) => return self.decl_stmt(loc),
            _ => Self::expr_stmt,
        };
        let mark = self.hoisted.len();
        let kind = f(self)?;
        let stmt = Stmt { kind, loc };
        // A selection or iteration statement is a block of its own (C11 6.8.4, 6.8.5):
        // a struct or enum defined in its condition ends with it.
        let scoped = matches!(
            stmt.kind,
            StmtKind::If { .. }
                | StmtKind::While { .. }
                | StmtKind::DoWhile { .. }
                | StmtKind::For { .. }
                | StmtKind::Switch { .. }
        );
        if !scoped || self.hoisted.len() == mark {
            return Ok(stmt);
        }
        let end = self.prev().map_or(loc, |t| t.loc);
        let mut stmts: Vec<Stmt> = self
            .hoisted
            .drain(mark..)
            .map(|h| match h {
                Hoisted::Struct(s) => Stmt { loc: s.loc, kind: StmtKind::Struct(s) },
                Hoisted::Enum(e) => Stmt { loc: e.loc, kind: StmtKind::Enum(e) },
            })
            .collect();
        let mut stmt = stmt;
        // A do-while's condition follows its body: what it defines is not the body's.
        if let StmtKind::DoWhile { cond_defs, .. } = &mut stmt.kind {
            *cond_defs = std::mem::take(&mut stmts);
        }
        stmts.push(stmt);
        Ok(Stmt { loc, kind: StmtKind::Block(Block { stmts, loc, end }) })
    }

    /// `_Static_assert ( constant [, "message"] ) ;`
    pub(super) fn static_assert(&mut self) -> PResult<StaticAssert> {
        let kw = self.bump();
        self.expect_punct(Punct::LParen, "after `_Static_assert`")?;
        let cond = self.cond_expr()?;
        let mut message = Vec::new();
        if self.eat(Punct::Comma) {
            let TokenKind::Str(_) = self.peek().kind else {
                return Err(self.expected("a string literal as the message of `_Static_assert`"));
            };
            while let TokenKind::Str(id) = self.peek().kind {
                message.extend_from_slice(self.names.str_bytes(id));
                self.bump();
            }
        }
        self.expect_punct(Punct::RParen, "to close `_Static_assert`")?;
        self.expect_semi("`_Static_assert`")?;
        Ok(StaticAssert { cond, message, loc: kw.loc })
    }

    /// `goto name;`
    fn goto_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let TokenKind::Ident(s) = self.peek().kind else {
            return Err(self.expected("a label name after `goto`"));
        };
        self.bump();
        let name = self.name_of(s);
        self.expect_semi("`goto`")?;
        Ok(StmtKind::Goto(name))
    }

    /// `name:`
    fn label(&mut self) -> PResult<StmtKind> {
        let TokenKind::Ident(s) = self.bump().kind else {
            return Err(self.expected("a label"));
        };
        self.bump();
        Ok(StmtKind::Label(self.name_of(s)))
    }

    fn empty_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        Ok(StmtKind::Empty)
    }

    fn default_label(&mut self) -> PResult<StmtKind> {
        self.bump();
        self.expect_punct(Punct::Colon, "after `default`")?;
        Ok(StmtKind::Default)
    }

    /// `break;`, `continue;`, `join;`
    fn jump_stmt(&mut self) -> PResult<StmtKind> {
        let t = self.bump();
        let (kind, what) = match t.kind {
            TokenKind::Kw(Keyword::Break) => (StmtKind::Break, "`break`"),
            TokenKind::Kw(Keyword::Continue) => (StmtKind::Continue, "`continue`"),
            _ => (StmtKind::Join, "`join`"),
        };
        self.expect_semi(what)?;
        Ok(kind)
    }

    fn if_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let cond = self.paren_expr("after `if`")?;
        let then = Box::new(self.body()?);
        let els = if self.at_kw(Keyword::Else) {
            self.bump();
            Some(Box::new(self.body()?))
        } else {
            None
        };
        Ok(StmtKind::If { cond, then, els })
    }

    fn while_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let cond = self.paren_expr("after `while`")?;
        Ok(StmtKind::While { cond, body: Box::new(self.body()?) })
    }

    fn do_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let body = Box::new(self.body()?);
        if !self.at_kw(Keyword::While) {
            return Err(self.expected("`while` after the body of `do`"));
        }
        self.bump();
        let cond = self.paren_expr("after `while`")?;
        self.expect_semi("`do`-`while` statement")?;
        Ok(StmtKind::DoWhile { body, cond, cond_defs: Vec::new() })
    }

    fn switch_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let expr = self.paren_expr("after `switch`")?;
        if self.at(Punct::LBrace) {
            return Ok(StmtKind::Switch { expr: Box::new(expr), body: self.block()? });
        }
        // `switch (x) case 1: f();` (C11 6.8.4: the body is any statement).
        let s = self.body()?;
        let body = match s.kind {
            StmtKind::Block(b) => b,
            _ => Block { loc: s.loc, end: s.loc, stmts: vec![s] },
        };
        Ok(StmtKind::Switch { expr: Box::new(expr), body })
    }

    /// The body of `if`, `else`, a loop or `switch`: one statement, where a labelled
    /// statement (`L: s`, `case 1: s`, `default: s`) is the label and `s` together.
    fn body(&mut self) -> PResult<Stmt> {
        let first = self.stmt()?;
        if !matches!(first.kind, StmtKind::Label(_) | StmtKind::Case(_) | StmtKind::Default) {
            return Ok(first);
        }
        let loc = first.loc;
        let next = self.body()?;
        let end = next.loc;
        Ok(Stmt { loc, kind: StmtKind::Block(Block { stmts: vec![first, next], loc, end }) })
    }

    fn case_label(&mut self) -> PResult<StmtKind> {
        self.bump();
        let e = self.cond_expr()?;
        self.expect_punct(Punct::Colon, "after the `case` value")?;
        Ok(StmtKind::Case(e))
    }

    fn return_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let e = if self.at(Punct::Semi) { None } else { Some(self.expr()?) };
        self.expect_semi("`return` statement")?;
        Ok(StmtKind::Return(e))
    }

    fn expr_stmt(&mut self) -> PResult<StmtKind> {
        let e = self.expr()?;
        let before = self.diags.len();
        let r = self.expect_semi("expression");
        // `retrun 0;`: a lone name where a keyword was meant.
        if let (ExprKind::Ident(n), Some(d)) = (&e.kind, self.diags.get_mut(before)) {
            let close =
                [Keyword::Return, Keyword::Goto, Keyword::Break, Keyword::Continue, Keyword::Struct, Keyword::Typedef]
                    .into_iter()
                    .chain([
                        Keyword::Int,
                        Keyword::Float,
                        Keyword::Char,
                        Keyword::Void,
                        Keyword::Static,
                        Keyword::Const,
                    ])
                    .find(|k| crate::lang::diag::edit_distance(n, k.as_str()) == 1);
            if let Some(k) = close {
                d.notes.push(format!("did you mean `{}`?", k.as_str()));
            }
        }
        r?;
        Ok(StmtKind::Expr(e))
    }

    /// A declaration as the body of `if`/`while`/…: alone, or in its own block when a
    /// struct definition came with it.
    fn decl_stmt(&mut self, loc: Loc) -> PResult<Stmt> {
        let mut out = Vec::new();
        self.block_item(&mut out)?;
        if out.len() == 1 {
            if let Some(s) = out.pop() {
                return Ok(s);
            }
        }
        let end = self.prev().map_or(loc, |p| p.loc);
        Ok(Stmt { kind: StmtKind::Block(Block { stmts: out, loc, end }), loc })
    }

    fn for_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        self.expect_punct(Punct::LParen, "after `for`")?;
        let t = self.peek();
        let init = if self.eat(Punct::Semi) {
            None
        } else if self.starts_type(t) {
            let ty = self.type_spec()?;
            match self.decl_rest(ty)? {
                Decl::Var(v) => Some(Box::new(Stmt { loc: t.loc, kind: StmtKind::Decl(v) })),
                Decl::Typedef(_) => return Err(self.error(t.loc, "a typedef cannot be declared in a `for` header")),
                Decl::Func(f) => return Err(self.error(f.loc, "a function cannot be declared in a `for` header")),
                Decl::Nothing => None,
            }
        } else {
            let e = self.expr()?;
            self.expect_punct(Punct::Semi, "after the `for` initialiser")?;
            Some(Box::new(Stmt { loc: t.loc, kind: StmtKind::Expr(e) }))
        };
        let cond = if self.at(Punct::Semi) { None } else { Some(self.expr()?) };
        self.expect_punct(Punct::Semi, "after the `for` condition")?;
        let step = if self.at(Punct::RParen) { None } else { Some(self.expr()?) };
        self.expect_punct(Punct::RParen, "to close the `for` header")?;
        let body = Box::new(self.body()?);
        Ok(StmtKind::For { init, cond: cond.map(Box::new), step: step.map(Box::new), body })
    }

    fn expect_word(&mut self, w: Sym, text: &str) -> PResult<()> {
        if self.peek().kind == TokenKind::Ident(w) {
            self.bump();
            return Ok(());
        }
        Err(self.expected(&format!("`{text}` in the `forall` header")))
    }

    fn forall(&mut self) -> PResult<StmtKind> {
        self.bump();
        self.expect_punct(Punct::LParen, "after `forall`")?;
        let (var, var_loc) = self.expect_ident("the index variable of `forall`")?;
        self.expect_word(words::FROM, "from")?;
        let lo = self.assign_expr()?;
        self.expect_word(words::TO, "to")?;
        let hi = self.assign_expr()?;
        let grouping = if self.peek().kind == TokenKind::Ident(words::GROUPING) {
            self.bump();
            Some(self.assign_expr()?)
        } else {
            None
        };
        self.expect_punct(Punct::RParen, "to close the `forall` header")?;
        let body = Box::new(self.stmt()?);
        Ok(StmtKind::Forall {
            var,
            var_loc,
            lo: Box::new(lo),
            hi: Box::new(hi),
            grouping: grouping.map(Box::new),
            body,
        })
    }

    fn fork(&mut self) -> PResult<StmtKind> {
        self.bump();
        let mut vproc = None;
        let mut chans = Vec::new();
        if self.eat(Punct::LBracket) {
            vproc = Some(self.assign_expr()?);
            if self.eat(Punct::Semi) && !self.at(Punct::RBracket) {
                loop {
                    chans.push(self.assign_expr()?);
                    if !self.eat(Punct::Comma) {
                        break;
                    }
                }
            }
            self.expect_punct(Punct::RBracket, "to close `fork [`")?;
        }
        let call = self.expr()?;
        self.expect_semi("`fork` statement")?;
        Ok(StmtKind::Fork { vproc: vproc.map(Box::new), chans, call: Box::new(call) })
    }
}
