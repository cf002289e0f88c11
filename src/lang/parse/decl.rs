//! Declarations: type specifiers (with `struct`, `union`, `enum` and typedef names),
//! declarators, initialisers, function definitions and their parameters.
use super::*;

impl Parser<'_> {
    /// Whether `t` begins a declaration: a declaration keyword or a typedef name.
    pub(super) fn starts_type(&self, t: Token) -> bool {
        match t.kind {
            TokenKind::Ident(s) => self.is_typedef.get(s.0 as usize).is_some_and(|&n| n > 0),
            k => is_type_start(k),
        }
    }

    /// Declares `s` a typedef name in the current block.
    fn add_typedef(&mut self, s: Sym) {
        let i = s.0 as usize;
        if i >= self.is_typedef.len() {
            self.is_typedef.resize(i + 1, 0);
        }
        self.is_typedef[i] += 1;
        self.typedefs.push(s);
    }

    /// Forgets the typedef names declared since the scope mark `mark`.
    pub(super) fn drop_typedefs(&mut self, mark: usize) {
        while self.typedefs.len() > mark {
            if let Some(s) = self.typedefs.pop() {
                if let Some(n) = self.is_typedef.get_mut(s.0 as usize) {
                    *n = n.saturating_sub(1);
                }
            }
        }
    }

    /// "`X` is not supported" for a C keyword this compiler does not implement yet.
    pub(super) fn unsupported(&mut self, t: Token, k: Keyword) -> Fail {
        let why = unsupported_keyword(k).unwrap_or("");
        self.error(t.loc, format!("`{}` is not supported{why}", k.as_str()))
    }

    /// The declaration specifiers: storage class, qualifiers and one type, in any order
    /// (`static const int`, `int const`, `signed`).
    pub(super) fn type_spec(&mut self) -> PResult<TypeSpec> {
        let mut storage = Storage::None;
        let mut konst = false;
        let mut base: Option<(BaseType, Loc)> = None;
        let mut signed = None;
        let mut short: Option<Token> = None;
        let mut longs: Vec<Token> = Vec::new();
        loop {
            let t = self.peek();
            let class = match t.kind {
                TokenKind::Kw(Keyword::Typedef) => Some(Storage::Typedef),
                TokenKind::Kw(Keyword::Extern) => Some(Storage::Extern),
                TokenKind::Kw(Keyword::Static) => Some(Storage::Static),
                TokenKind::Kw(Keyword::Auto) => Some(Storage::Auto),
                TokenKind::Kw(Keyword::Register) => Some(Storage::Register),
                _ => None,
            };
            if let Some(c) = class {
                if storage != Storage::None {
                    return Err(self.error(t.loc, "a declaration has at most one storage class"));
                }
                storage = c;
                self.bump();
                continue;
            }
            let b = match t.kind {
                TokenKind::Kw(
                    k @ (Keyword::Const | Keyword::Volatile | Keyword::Restrict | Keyword::Inline | Keyword::Noreturn),
                ) => {
                    konst |= k == Keyword::Const;
                    self.bump();
                    continue;
                }
                TokenKind::Kw(Keyword::Long) => {
                    self.bump();
                    if longs.len() == 2 {
                        return Err(self.error(t.loc, "`long long long` is too long"));
                    }
                    longs.push(t);
                    continue;
                }
                TokenKind::Kw(Keyword::Short) => {
                    self.bump();
                    if short.is_some() {
                        return Err(self.error(t.loc, "`short` given twice"));
                    }
                    short = Some(t);
                    continue;
                }
                TokenKind::Kw(k @ (Keyword::Signed | Keyword::Unsigned)) => {
                    self.bump();
                    if signed.is_some() {
                        return Err(self.error(t.loc, "`signed` or `unsigned` given twice"));
                    }
                    signed = Some((k == Keyword::Unsigned, t));
                    continue;
                }
                TokenKind::Kw(k) if unsupported_keyword(k).is_some() => return Err(self.unsupported(t, k)),
                _ if base.is_some() => break,
                TokenKind::Kw(Keyword::Int) => BaseType::Int,
                TokenKind::Kw(Keyword::Float) => BaseType::Float,
                TokenKind::Kw(Keyword::Char) => BaseType::Char,
                TokenKind::Kw(Keyword::Void) => BaseType::Void,
                TokenKind::Kw(Keyword::Spinlock) => BaseType::Spinlock,
                TokenKind::Kw(Keyword::Bool) => BaseType::Bool,
                TokenKind::Kw(Keyword::Double) => BaseType::Double,
                TokenKind::Kw(k @ (Keyword::Struct | Keyword::Union)) => {
                    self.bump();
                    let ts = self.struct_spec(t.loc, k == Keyword::Union)?;
                    base = Some((ts.base, t.loc));
                    continue;
                }
                TokenKind::Kw(Keyword::Enum) => {
                    self.bump();
                    self.enum_spec(t.loc)?;
                    base = Some((BaseType::Enum, t.loc));
                    continue;
                }
                TokenKind::Ident(s) if self.starts_type(t) => BaseType::Typedef(self.name_of(s)),
                _ => break,
            };
            self.bump();
            base = Some((b, t.loc));
        }
        let (base, loc) = match (base, signed) {
            // `long double` is `double` here (binary64, the widest type simulated).
            (Some((BaseType::Double, loc)), _) if longs.len() == 1 => (BaseType::Double, loc),
            (None | Some((BaseType::Int, _)), Some((true, _))) if !longs.is_empty() => (BaseType::ULong, longs[0].loc),
            (None | Some((BaseType::Int, _)), _) if !longs.is_empty() => (BaseType::Long, longs[0].loc),
            (Some((_, loc)), _) if !longs.is_empty() => {
                return Err(self.error(loc, "`long` applies only to `int` and `double`"));
            }
            (None | Some((BaseType::Int, _)), _) if short.is_some() => {
                let loc = short.map_or(Loc::default(), |t| t.loc);
                match signed {
                    Some((true, _)) => (BaseType::UShort, loc),
                    _ => (BaseType::Short, loc),
                }
            }
            (Some((_, loc)), _) if short.is_some() => {
                return Err(self.error(loc, "`short` applies only to `int`"));
            }
            (Some((BaseType::Int, loc)), None | Some((false, _))) => (BaseType::Int, loc),
            (Some((BaseType::Int, loc)), Some((true, _))) => (BaseType::UInt, loc),
            (None, Some((unsigned, t))) => (if unsigned { BaseType::UInt } else { BaseType::Int }, t.loc),
            // `char` holds 0..255 here: it is `unsigned char`.
            (Some((BaseType::Char, loc)), Some((true, _))) => (BaseType::Char, loc),
            (Some((BaseType::Char, loc)), Some((false, _))) => (BaseType::SChar, loc),
            (Some((_, loc)), Some(_)) => {
                return Err(self.error(loc, "`signed` and `unsigned` apply only to integer types"));
            }
            (Some(b), None) => b,
            (None, None) => return Err(self.expected("a type")),
        };
        Ok(TypeSpec { base, loc, storage, konst })
    }

    /// After `enum`: a name, a body, or both. A body is hoisted as an [`EnumDef`].
    fn enum_spec(&mut self, loc: Loc) -> PResult<()> {
        let named = matches!(self.peek().kind, TokenKind::Ident(_));
        if named {
            self.bump();
        }
        if !self.at(Punct::LBrace) {
            return if named { Ok(()) } else { Err(self.expected("an enum name or `{`")) };
        }
        self.bump();
        let mut items = Vec::new();
        loop {
            if self.eat(Punct::RBrace) {
                break;
            }
            let TokenKind::Ident(s) = self.peek().kind else {
                return Err(self.expected("an enumerator name"));
            };
            let t = self.bump();
            let name = self.name_of(s);
            let value = if self.eat(Punct::Assign) { Some(self.cond_expr()?) } else { None };
            items.push((name, t.loc, value));
            if !self.eat(Punct::Comma) {
                self.expect_punct(Punct::RBrace, "to close the enum")?;
                break;
            }
        }
        if items.is_empty() {
            return Err(self.error(loc, "an enum needs at least one enumerator"));
        }
        self.hoisted.push(Hoisted::Enum(EnumDef { items, loc }));
        Ok(())
    }

    /// After `struct` (or `union`): a name, a body, or both. Structs and unions share
    /// one name space (C's tags).
    fn struct_spec(&mut self, loc: Loc, union: bool) -> PResult<TypeSpec> {
        let name = match self.peek().kind {
            TokenKind::Ident(s) => {
                self.bump();
                Some(self.names.name(s).to_string())
            }
            _ => None,
        };
        if !self.at(Punct::LBrace) {
            return match name {
                Some(n) => Ok(TypeSpec::new(BaseType::Struct(n), loc)),
                None => Err(self.expected("a struct name or `{`")),
            };
        }
        let name = name.unwrap_or_else(|| {
            self.anon += 1;
            format!("<anon {}>", self.anon)
        });
        self.enter()?;
        let fields = self.struct_fields();
        self.leave();
        self.hoisted.push(Hoisted::Struct(StructDef { name: name.clone(), fields: fields?, loc, union }));
        Ok(TypeSpec::new(BaseType::Struct(name), loc))
    }

    fn struct_fields(&mut self) -> PResult<Vec<VarDecl>> {
        let open = self.bump();
        let mut fields = Vec::new();
        loop {
            match self.peek().kind {
                TokenKind::Punct(Punct::RBrace) => {
                    self.bump();
                    return Ok(fields);
                }
                TokenKind::Eof => {
                    let msg = format!("expected `}}` to close the struct opened at line {}", open.loc.line);
                    return Err(self.expected_msg(msg));
                }
                _ => {}
            }
            let start = self.pos;
            match self.field() {
                Ok(Some(f)) => fields.push(f),
                Ok(None) => {}
                Err(Fail) => self.sync_stmt(start),
            }
            if self.pos == start {
                self.bump();
            }
        }
    }

    pub(super) fn expected_msg(&mut self, what: String) -> Fail {
        let t = self.peek();
        let msg = format!("{what}, found {}", self.describe(t));
        self.error(t.loc, msg)
    }

    fn field(&mut self) -> PResult<Option<VarDecl>> {
        let ty = self.type_spec()?;
        if self.at(Punct::Semi) {
            let t = self.bump();
            // An anonymous struct or union member (C11 6.7.2.1p13): its fields are the
            // enclosing struct's; the member has the empty name.
            if matches!(&ty.base, BaseType::Struct(n) if n.starts_with("<anon")) {
                let d = Declarator {
                    name: Name::from(""),
                    loc: t.loc,
                    pointers: 0,
                    const_pointer: false,
                    is_ref: false,
                    dims: Vec::new(),
                    init: None,
                    func: None,
                    bits: None,
                    array_pointers: 0,
                };
                return Ok(Some(VarDecl { loc: ty.loc, ty, decls: vec![d] }));
            }
            return Ok(None);
        }
        let mut decls = Vec::new();
        loop {
            // `int : 3;`: an unnamed bit-field only pads; it holds nothing.
            if self.eat(Punct::Colon) {
                self.cond_expr()?;
                if !self.eat(Punct::Comma) {
                    break;
                }
                continue;
            }
            let mut d = self.declarator(false)?;
            if self.eat(Punct::Colon) {
                d.bits = Some(Box::new(self.cond_expr()?));
            }
            if self.at(Punct::Assign) || self.at(Punct::LParen) {
                return Err(self.expected("`,` or `;` in a struct field"));
            }
            decls.push(d);
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect_semi("struct field")?;
        Ok(Some(VarDecl { loc: ty.loc, ty, decls }))
    }

    /// `*…` `&`? name `[d]…` (no initialiser). `unnamed` allows leaving out the name
    /// (parameters of a prototype).
    pub(super) fn declarator(&mut self, unnamed: bool) -> PResult<Declarator> {
        let mut pointers = 0;
        let mut const_pointer = false;
        while self.eat(Punct::Star) {
            pointers += 1;
            const_pointer = self.skip_qualifiers();
        }
        let is_ref = self.eat(Punct::Amp);
        if self.at(Punct::LParen) && self.peek_at(1).kind == TokenKind::Punct(Punct::Star) {
            return self.func_ptr_declarator(pointers, unnamed);
        }
        let (name, loc) = match self.peek().kind {
            TokenKind::Ident(s) => {
                let t = self.bump();
                self.last_decl_sym = Some(s);
                (self.name_of(s), t.loc)
            }
            _ if unnamed
                && matches!(self.peek().kind, TokenKind::Punct(Punct::Comma | Punct::RParen | Punct::LBracket)) =>
            {
                (Name::from(""), self.peek().loc)
            }
            _ => return Err(self.expected("a name")),
        };
        let dims = self.declarator_dims()?;
        Ok(Declarator {
            name,
            loc,
            pointers,
            const_pointer,
            is_ref,
            dims,
            init: None,
            func: None,
            bits: None,
            array_pointers: 0,
        })
    }

    /// `[N]…` after a declarator's name (none: an empty list).
    fn declarator_dims(&mut self) -> PResult<Vec<Option<Expr>>> {
        let mut dims = Vec::new();
        while self.eat(Punct::LBracket) {
            // A parameter's `[const 5]`, `[static 5]`, `[restrict]` and `[*]` (C11
            // 6.7.6.3p7): the qualifiers and `static` change nothing here, `*` is `[]`.
            while matches!(
                self.peek().kind,
                TokenKind::Kw(Keyword::Const | Keyword::Volatile | Keyword::Restrict | Keyword::Static)
            ) {
                self.bump();
            }
            if self.at(Punct::Star) && self.peek_at(1).kind == TokenKind::Punct(Punct::RBracket) {
                self.bump();
            }
            if self.eat(Punct::RBracket) {
                dims.push(None);
                continue;
            }
            dims.push(Some(self.cond_expr()?));
            self.expect_punct(Punct::RBracket, "to close the array dimension")?;
        }
        Ok(dims)
    }

    /// `( * name [dims] ) ( params )` after the result type's `*`s.
    fn func_ptr_declarator(&mut self, pointers: u32, unnamed: bool) -> PResult<Declarator> {
        self.bump();
        let mut inner = 0;
        while self.eat(Punct::Star) {
            inner += 1;
            self.skip_qualifiers();
        }
        let mut d = self.declarator(unnamed)?;
        if d.func.is_some() || d.pointers > 0 || d.is_ref {
            return Err(self.error(d.loc, "only `(*name)(params)` function pointers are supported"));
        }
        self.expect_punct(Punct::RParen, "to close `(*name`")?;
        // `(*p)[N]`: a pointer to an array; `(*p)` alone: a pointer in parentheses.
        if !self.at(Punct::LParen) {
            if !d.dims.is_empty() {
                return Err(self.error(d.loc, "only `(*name)[N]` and `(*name)(params)` are supported here"));
            }
            let mut outer = Vec::new();
            while self.at(Punct::LBracket) {
                let arr = self.declarator_dims()?;
                outer.extend(arr);
            }
            d.pointers = pointers;
            if outer.is_empty() {
                d.pointers += inner;
            } else {
                d.dims = outer;
                d.array_pointers = inner;
            }
            return Ok(d);
        }
        self.expect_punct(Punct::LParen, "to open the parameters of the function pointer")?;
        let (params, variadic) = self.params()?;
        d.pointers = pointers;
        d.func = Some(Box::new(FuncPtr { pointers: inner, params, variadic }));
        Ok(d)
    }

    /// Skips `const`, `volatile` and `restrict` (after a `*`): they do not change the
    /// generated code. Whether one was `const`.
    pub(super) fn skip_qualifiers(&mut self) -> bool {
        let mut konst = false;
        while let TokenKind::Kw(k @ (Keyword::Const | Keyword::Volatile | Keyword::Restrict)) = self.peek().kind {
            konst |= k == Keyword::Const;
            self.bump();
        }
        konst
    }

    /// The declarators after a type: variables, or one function (definition or
    /// prototype). Consumes the final `;` (or the function body).
    pub(super) fn decl_rest(&mut self, ty: TypeSpec) -> PResult<Decl> {
        if matches!(ty.base, BaseType::Struct(_) | BaseType::Enum) && self.eat(Punct::Semi) {
            return Ok(Decl::Nothing);
        }
        if ty.storage == Storage::Typedef {
            let mut decls = Vec::new();
            loop {
                self.last_decl_sym = None;
                let d = self.declarator(false)?;
                if d.is_ref || self.at(Punct::Assign) || self.at(Punct::LParen) {
                    return Err(self.error(d.loc, "a typedef names a type: no `&`, initialiser or parameters"));
                }
                if let Some(s) = self.last_decl_sym {
                    self.add_typedef(s);
                }
                decls.push(d);
                if !self.eat(Punct::Comma) {
                    break;
                }
            }
            self.expect_semi("typedef")?;
            return Ok(Decl::Typedef(VarDecl { loc: ty.loc, ty, decls }));
        }
        let first = self.declarator(false)?;
        if self.at(Punct::LParen) {
            return self.function(ty, first).map(Decl::Func);
        }
        let mut decls = Vec::new();
        let mut d = first;
        loop {
            if self.eat(Punct::Assign) {
                d.init = Some(self.init()?);
            }
            decls.push(d);
            if !self.eat(Punct::Comma) {
                break;
            }
            d = self.declarator(false)?;
            if self.at(Punct::LParen) {
                return Err(
                    self.error(self.peek().loc, "a function must be declared on its own, not after other names")
                );
            }
        }
        self.expect_semi("declaration")?;
        Ok(Decl::Var(VarDecl { loc: ty.loc, ty, decls }))
    }

    pub(super) fn init(&mut self) -> PResult<Init> {
        if !self.at(Punct::LBrace) {
            return Ok(Init::Expr(self.assign_expr()?));
        }
        self.enter()?;
        let open = self.bump();
        let r = self.init_list(open.loc);
        self.leave();
        r
    }

    fn init_list(&mut self, loc: Loc) -> PResult<Init> {
        let mut items = Vec::new();
        loop {
            if self.eat(Punct::RBrace) {
                return Ok(Init::List(items, loc));
            }
            if self.at(Punct::Dot) || self.at(Punct::LBracket) {
                let mut path = Vec::new();
                loop {
                    if self.eat(Punct::Dot) {
                        let TokenKind::Ident(s) = self.peek().kind else {
                            return Err(self.expected("a field name after `.` in a designator"));
                        };
                        let t = self.bump();
                        path.push(Designator::Field(self.name_of(s), t.loc));
                    } else if self.eat(Punct::LBracket) {
                        path.push(Designator::Index(self.cond_expr()?));
                        self.expect_punct(Punct::RBracket, "to close the designator")?;
                    } else {
                        break;
                    }
                }
                self.expect_punct(Punct::Assign, "after the designator")?;
                items.push(Init::Designated(path, Box::new(self.init()?)));
            } else {
                items.push(self.init()?);
            }
            if !self.eat(Punct::Comma) {
                self.expect_punct(Punct::RBrace, "to close the initialiser list")?;
                return Ok(Init::List(items, loc));
            }
        }
    }

    fn function(&mut self, ret: TypeSpec, d: Declarator) -> PResult<FuncDef> {
        if d.is_ref || !d.dims.is_empty() {
            return Err(self.error(d.loc, format!("`{}` cannot be a function returning an array or reference", d.name)));
        }
        self.bump();
        let (params, variadic) = self.params()?;
        let body = if self.at(Punct::LBrace) {
            Some(self.block()?)
        } else {
            self.expect_semi("function prototype")?;
            None
        };
        Ok(FuncDef { ret, ret_pointers: d.pointers, name: d.name.to_string(), loc: d.loc, params, variadic, body })
    }

    /// Parameters after `(`, through `)`, and whether `...` ends them.
    pub(super) fn params(&mut self) -> PResult<(Vec<Param>, bool)> {
        let mut params = Vec::new();
        if self.eat(Punct::RParen) {
            return Ok((params, false));
        }
        if self.at_kw(Keyword::Void) && self.peek_at(1).kind == TokenKind::Punct(Punct::RParen) {
            self.bump();
            self.bump();
            return Ok((params, false));
        }
        loop {
            if self.at(Punct::Dot) {
                let t = self.peek();
                let dots = (0..3).all(|k| self.peek_at(k).kind == TokenKind::Punct(Punct::Dot));
                if !dots {
                    return Err(self.expected("a parameter type"));
                }
                if params.is_empty() {
                    return Err(self.error(t.loc, "`...` needs a named parameter before it (C99)"));
                }
                self.bump();
                self.bump();
                self.bump();
                self.expect_punct(Punct::RParen, "after `...`")?;
                return Ok((params, true));
            }
            if !self.starts_type(self.peek()) {
                return Err(self.expected("a parameter type"));
            }
            let ty = self.type_spec()?;
            let decl = self.declarator(true)?;
            if self.at(Punct::Assign) {
                return Err(self.expected("`,` or `)` (parameters have no default value)"));
            }
            params.push(Param { ty, decl });
            if !self.eat(Punct::Comma) {
                self.expect_punct(Punct::RParen, "to close the parameter list")?;
                return Ok((params, false));
            }
        }
    }
}
