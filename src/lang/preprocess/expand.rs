//! Macro expansion: the token stream with every macro use replaced (`next_expanded`),
//! arguments collected and expanded before substitution, `#` and `##`.
use super::*;

impl Pre<'_> {
    /// How a token is written: identifiers, keywords and punctuators by their text,
    /// literals as in the source when the location still shows them (so `0x10` stays
    /// `0x10`), else rebuilt from the value.
    pub(super) fn spell(&mut self, t: Token) -> String {
        match t.kind {
            TokenKind::Ident(s) => self.names.name(s).to_string(),
            TokenKind::Kw(k) => k.as_str().to_string(),
            TokenKind::Punct(p) => p.as_str().to_string(),
            TokenKind::Eof => String::new(),
            kind => {
                if let Some(text) = self.source_text(t.loc).map(str::to_string) {
                    let mut sink = Vec::new();
                    let (toks, _) = lex(&text, t.loc.file, &mut self.names, &mut sink);
                    if sink.is_empty() && toks.len() == 1 && toks[0].tok.kind == kind {
                        return text;
                    }
                }
                match kind {
                    TokenKind::Int(v) => v.to_string(),
                    TokenKind::UInt(v) => format!("{v}u"),
                    TokenKind::Long(v) => format!("{v}L"),
                    TokenKind::ULong(v) => format!("{v}UL"),
                    TokenKind::Float(v) => format!("{v:?}f"),
                    TokenKind::Double(v) => format!("{v:?}"),
                    TokenKind::Char(c) => format!("'{}'", escape_c(&[c], b'\'')),
                    TokenKind::Str(id) | TokenKind::HeaderName(id) => {
                        format!("\"{}\"", escape_c(self.names.str_bytes(id), b'"'))
                    }
                    TokenKind::WStr(id) => format!("L\"{}\"", escape_c(self.names.str_bytes(id), b'"')),
                    _ => String::new(),
                }
            }
        }
    }

    /// `#x`: the argument's spelling as one string literal, one space where the source
    /// had white space between tokens (C11 6.10.3.2).
    pub(super) fn stringize(&mut self, arg: &[PTok], loc: Loc) -> PTok {
        let mut text = String::new();
        let mut prev: Option<Loc> = None;
        for t in arg {
            let l = t.tok.loc;
            if let Some(p) = prev {
                let adjacent = p.file == l.file && p.line == l.line && p.col + p.len == l.col;
                if !adjacent {
                    text.push(' ');
                }
            }
            text.push_str(&self.spell(t.tok));
            prev = Some(l);
        }
        let id = self.names.add_str(text.into_bytes());
        PTok { tok: Token { kind: TokenKind::Str(id), loc }, noexpand: false }
    }

    /// `a ## b`: one token spelt as both together, or an error when that is not a token.
    pub(super) fn paste(&mut self, a: PTok, b: PTok, loc: Loc) -> Option<PTok> {
        let text = format!("{}{}", self.spell(a.tok), self.spell(b.tok));
        let mut sink = Vec::new();
        let (toks, _) = lex(&text, loc.file, &mut self.names, &mut sink);
        match toks.as_slice() {
            [one] if sink.is_empty() => Some(PTok { tok: Token { kind: one.tok.kind, loc }, noexpand: false }),
            _ => {
                self.error(loc, format!("pasting gives `{text}`, which is not one token"));
                None
            }
        }
    }

    /// Next unexpanded token of a context.
    pub(super) fn raw_next(&mut self, ctx: &mut Ctx) -> Option<PTok> {
        loop {
            if let Some(seg) = ctx.segs.last_mut() {
                if let Some(&t) = seg.toks.get(seg.pos) {
                    seg.pos += 1;
                    return Some(t);
                }
                ctx.segs.pop();
                continue;
            }
            return match &mut ctx.list {
                Some((toks, pos)) => {
                    let t = toks.get(*pos).copied();
                    *pos += 1;
                    t
                }
                None => self.next_file_token(),
            };
        }
    }

    /// Whether the next token is `(` (for a function-like macro name), without consuming
    /// it. Does not look past a directive or the end of the current file.
    pub(super) fn next_is_lparen(&mut self, ctx: &mut Ctx) -> bool {
        while let Some(seg) = ctx.segs.last() {
            if let Some(t) = seg.toks.get(seg.pos) {
                return punct(t.tok.kind, Punct::LParen);
            }
            ctx.segs.pop();
        }
        match &ctx.list {
            Some((toks, pos)) => toks.get(*pos).is_some_and(|t| punct(t.tok.kind, Punct::LParen)),
            // A `(` cannot start a directive, so the next raw token is the one the
            // parser would see (a directive in between shows up as `#` here).
            None => {
                self.files.last().and_then(|f| f.toks.get(f.pos)).is_some_and(|lx| punct(lx.tok.kind, Punct::LParen))
            }
        }
    }

    /// The next fully macro-expanded token of a context.
    pub(super) fn next_expanded(&mut self, ctx: &mut Ctx) -> Option<PTok> {
        loop {
            let mut t = self.raw_next(ctx)?;
            if t.noexpand {
                return Some(t);
            }
            let Some(sym) = Self::word_sym(t.tok.kind) else { return Some(t) };
            let Some(m) = self.macro_of(sym) else { return Some(t) };
            if ctx.is_active(sym) {
                // C11 6.10.3.4p2: not replaced, now or later.
                if !self.self_referenced.contains(&sym) {
                    self.self_referenced.push(sym);
                }
                t.noexpand = true;
                return Some(t);
            }
            if self.budget == 0 {
                return Some(t);
            }
            let use_loc = t.tok.loc;
            if let Some(d) = m.dynamic {
                let kind = match d {
                    Dynamic::Line => {
                        let line = match self.line_mark(use_loc) {
                            Some((at, n, _)) => n + i64::from(use_loc.line) - i64::from(at) - 1,
                            None => i64::from(use_loc.line),
                        };
                        TokenKind::Int(line)
                    }
                    Dynamic::File => {
                        let named = self.line_mark(use_loc).and_then(|(_, _, name)| name.clone());
                        let name = match named {
                            Some(n) => n,
                            None => self
                                .sources
                                .files
                                .get(use_loc.file as usize)
                                .map_or("", |f| f.name.as_str())
                                .to_string(),
                        };
                        TokenKind::Str(self.names.add_str(name.into_bytes()))
                    }
                    Dynamic::Counter => {
                        self.counter += 1;
                        TokenKind::Int(i64::from(self.counter - 1))
                    }
                };
                return Some(PTok { tok: Token { kind, loc: use_loc }, noexpand: true });
            }
            // Fast path for the common `#define N 8`: a one-token body that cannot expand
            // further needs no replacement segment.
            if let (None, [BodyTok::Tok(kind)]) = (&m.params, m.body.as_slice()) {
                if Self::word_sym(*kind).is_none() {
                    return Some(PTok { tok: Token { kind: *kind, loc: use_loc }, noexpand: false });
                }
            }
            let toks = match &m.params {
                None => m
                    .body
                    .iter()
                    .filter_map(|b| if let BodyTok::Tok(k) = b { Some(*k) } else { None })
                    .map(|kind| PTok { tok: Token { kind, loc: use_loc }, noexpand: false })
                    .collect(),
                Some(params) => {
                    if !self.next_is_lparen(ctx) {
                        return Some(t);
                    }
                    self.raw_next(ctx);
                    let mut args = self.collect_args(ctx, sym, use_loc)?;
                    if m.variadic {
                        // The arguments from the last parameter on, with their commas,
                        // are `__VA_ARGS__` (empty when there are none).
                        let named = params.len() - 1;
                        if args.len() > named {
                            let rest = args.split_off(named);
                            let comma = PTok {
                                tok: Token { kind: TokenKind::Punct(Punct::Comma), loc: use_loc },
                                noexpand: false,
                            };
                            let mut joined = Vec::new();
                            for (k, a) in rest.into_iter().enumerate() {
                                if k > 0 {
                                    joined.push(comma);
                                }
                                joined.extend(a);
                            }
                            args.push(joined);
                        } else if args.len() == named {
                            args.push(Vec::new());
                        }
                    }
                    let n_args =
                        if params.is_empty() && args.len() == 1 && args[0].is_empty() { 0 } else { args.len() };
                    if n_args != params.len() {
                        let msg = format!(
                            "macro `{}` takes {} argument{}, but {} {} given",
                            self.names.name(sym),
                            params.len(),
                            if params.len() == 1 { "" } else { "s" },
                            n_args,
                            if n_args == 1 { "was" } else { "were" }
                        );
                        self.error(use_loc, msg);
                        continue;
                    }
                    if ctx.depth >= MAX_MACRO_DEPTH {
                        self.error(use_loc, "macro calls nested too deeply");
                        self.budget = 0;
                        continue;
                    }
                    let mut inherited = ctx.inherited.clone();
                    inherited.extend(ctx.segs.iter().map(|g| g.name));
                    let mut expanded = Vec::with_capacity(args.len());
                    for a in args.iter().cloned() {
                        let mut sub = Ctx {
                            segs: Vec::new(),
                            list: Some((a, 0)),
                            inherited: inherited.clone(),
                            depth: ctx.depth + 1,
                        };
                        let mut v = Vec::new();
                        while let Some(x) = self.next_expanded(&mut sub) {
                            v.push(x);
                            if self.budget == 0 {
                                break;
                            }
                        }
                        expanded.push(v);
                    }
                    let mut out: Vec<PTok> = Vec::new();
                    // Where the right operand of a pending `##` starts in `out`.
                    let mut paste_at: Option<usize> = None;
                    for (k, b) in m.body.iter().enumerate() {
                        let start = out.len();
                        match b {
                            BodyTok::Tok(kind) => {
                                out.push(PTok { tok: Token { kind: *kind, loc: use_loc }, noexpand: false })
                            }
                            BodyTok::Param(i) => {
                                // An operand of `##` is the argument as written, unexpanded.
                                let pasted = paste_at.is_some() || matches!(m.body.get(k + 1), Some(BodyTok::Paste));
                                let src = if pasted { args.get(*i) } else { expanded.get(*i) };
                                out.extend(src.into_iter().flatten().copied());
                            }
                            BodyTok::Stringize(i) => {
                                let arg = args.get(*i).cloned().unwrap_or_default();
                                let st = self.stringize(&arg, use_loc);
                                out.push(st);
                            }
                            BodyTok::Paste => {
                                paste_at = Some(start);
                                continue;
                            }
                        }
                        if let Some(at) = paste_at.take() {
                            // An empty operand leaves the other one alone (C11 6.10.3.3).
                            if at > 0 && at < out.len() {
                                let (a, b) = (out[at - 1], out[at]);
                                match self.paste(a, b, use_loc) {
                                    Some(t) => {
                                        out[at - 1] = t;
                                        out.remove(at);
                                    }
                                    None => out.truncate(at - 1),
                                }
                            }
                        }
                    }
                    out
                }
            };
            if toks.len() >= self.budget {
                self.budget = 0;
                if !self.budget_reported {
                    self.budget_reported = true;
                    self.error(use_loc, "macro expansion produces too many tokens");
                }
                continue;
            }
            self.budget -= toks.len().max(1);
            ctx.segs.push(Seg { toks, pos: 0, name: sym });
        }
    }

    /// Reads a macro call's arguments after its `(`, split at top-level commas.
    /// `None` (after an error) when the input ends first.
    pub(super) fn collect_args(&mut self, ctx: &mut Ctx, name: Sym, use_loc: Loc) -> Option<Vec<Vec<PTok>>> {
        let mut args = vec![Vec::new()];
        let mut depth = 0u32;
        loop {
            let Some(t) = self.raw_next(ctx) else {
                let msg = format!("unterminated argument list of macro `{}`", self.names.name(name));
                self.error(use_loc, msg);
                return None;
            };
            match t.tok.kind {
                TokenKind::Punct(Punct::LParen) => depth += 1,
                TokenKind::Punct(Punct::RParen) if depth == 0 => return Some(args),
                TokenKind::Punct(Punct::RParen) => depth -= 1,
                TokenKind::Punct(Punct::Comma) if depth == 0 => {
                    args.push(Vec::new());
                    continue;
                }
                _ => {}
            }
            if let Some(a) = args.last_mut() {
                a.push(t);
            }
        }
    }
}
