//! Constant expressions (integer, floating and address constants) and initialisers:
//! global ones laid out word by word, local ones compiled to stores, with designators,
//! brace elision and sizes inferred from them.
use super::*;

impl Gen<'_> {
    /// Evaluates an integer constant expression (array sizes, case labels, arch sizes).
    pub(in crate::lang::codegen) fn const_int(&mut self, e: &ast::Expr) -> Option<i64> {
        self.const_value(e).and_then(|v| match v {
            Const::Int(i) | Const::Long(i) => Some(i),
            Const::Float(_) => None,
        })
    }

    /// [`Self::const_int`] without diagnostics: whether a size or a null pointer is a
    /// constant is asked before the expression is compiled, which reports its errors.
    pub(in crate::lang::codegen) fn quiet_const_int(&mut self, e: &ast::Expr) -> Option<i64> {
        let mark = self.diags.len();
        let v = self.const_int(e);
        self.diags.truncate(mark);
        v
    }

    fn const_value(&mut self, e: &ast::Expr) -> Option<Const> {
        Some(match &e.kind {
            ExprKind::IntLit(v) => Const::Int(*v),
            ExprKind::UIntLit(v) => Const::Int(i64::from(*v)),
            ExprKind::DoubleLit(v) => Const::Float(*v),
            // Constant expressions are evaluated as at run time: int ones in 32 bits, long
            // ones in 64 (an unsigned long as its two's complement value: `man cpcc`).
            ExprKind::LongLit(v) => Const::Long(*v),
            ExprKind::ULongLit(v) => Const::Long(*v as i64),
            ExprKind::Ident(n) => match self.lookup(n) {
                Some(Symbol::Const(v)) => Const::Int(v as i64),
                _ => return None,
            },
            ExprKind::CharLit(c) => Const::Int(*c as i64),
            ExprKind::FloatLit(f) => Const::Float(*f),
            ExprKind::Unary(op, a) => {
                let a = self.const_value(a)?;
                match (op, a) {
                    (UnOp::Neg, Const::Int(i)) => Const::Int(i.checked_neg()?),
                    (UnOp::Neg, Const::Long(i)) => Const::Long(i.wrapping_neg()),
                    (UnOp::Neg, Const::Float(f)) => Const::Float(-f),
                    (UnOp::Plus, v) => v,
                    (UnOp::Not, Const::Int(i) | Const::Long(i)) => Const::Int((i == 0) as i64),
                    (UnOp::Not, Const::Float(f)) => Const::Int((f == 0.0) as i64),
                    (UnOp::BitNot, Const::Int(i)) => Const::Int(!i),
                    (UnOp::BitNot, Const::Long(i)) => Const::Long(!i),
                    _ => return None,
                }
            }
            ExprKind::Binary(op, ab) => {
                let (a, b) = (self.const_value(&ab.0)?, self.const_value(&ab.1)?);
                match (a, b) {
                    (Const::Int(x), Const::Int(y)) => Const::Int(const_int_op(*op, x, y)?),
                    (Const::Int(x) | Const::Long(x), Const::Int(y) | Const::Long(y)) => const_long_op(*op, x, y)?,
                    (x, y) => {
                        let (x, y) = (x.as_f64(), y.as_f64());
                        match op {
                            BinOp::Add => Const::Float(x + y),
                            BinOp::Sub => Const::Float(x - y),
                            BinOp::Mul => Const::Float(x * y),
                            BinOp::Div => Const::Float(x / y),
                            _ => Const::Int(const_compare(*op, x, y, 0.0)?),
                        }
                    }
                }
            }
            ExprKind::Cond(c, a, b) => {
                let c = self.const_value(c)?;
                if c.as_f64() != 0.0 {
                    self.const_value(a)?
                } else {
                    self.const_value(b)?
                }
            }
            ExprKind::SizeofExpr(a) => {
                if self.vla_of(a).is_some() {
                    return None;
                }
                let at = self.here();
                let t = if self.is_lvalue_expr(a) { self.lvalue(a) } else { self.rvalue(a) };
                self.truncate_code(at);
                if t == ERROR {
                    return None;
                }
                Const::Int(self.types.words(t) as i64)
            }
            ExprKind::SizeofType(tn) => {
                let base = self.base_type(&tn.base);
                let t = if tn.is_pointer() { INT } else { base };
                Const::Int(self.types.words(t) as i64)
            }
            ExprKind::Cast(tn, a) => {
                let v = self.const_value(a)?;
                if tn.is_pointer() {
                    return None;
                }
                let i = match v {
                    Const::Int(i) | Const::Long(i) => i,
                    Const::Float(f) => f as i64,
                };
                match self.base_type(&tn.base) {
                    FLOAT => Const::Float(v.as_f64() as f32 as f64),
                    DOUBLE => Const::Float(v.as_f64()),
                    INT => Const::Int(i64::from(i as i32)),
                    UINT => Const::Int(i64::from(i as u32)),
                    CHAR => Const::Int(i & 0xff),
                    SCHAR => Const::Int(i64::from(i as i8)),
                    SHORT => Const::Int(i64::from(i as i16)),
                    USHORT => Const::Int(i64::from(i as u16)),
                    BOOL => Const::Int(i64::from(v.as_f64() != 0.0)),
                    LONG => Const::Long(i),
                    ULONG => Const::Long(match v {
                        Const::Float(f) => f as u64 as i64,
                        _ => i,
                    }),
                    _ => return None,
                }
            }
            _ => return None,
        })
    }

    /// Stores a global initialiser into the initial memory image (constants only).
    pub(in crate::lang::codegen) fn global_init_value(&mut self, ty: TypeId, off: u32, init: &Init) {
        let mut leaves = Vec::new();
        self.init_leaves(ty, 0, init, &mut leaves);
        for (lty, at, e) in leaves {
            if let Some(bytes) = self.char_array_string(lty, e) {
                // Every word, padding included, is a char (as a local's would be).
                for (k, &b) in bytes.iter().enumerate() {
                    self.global_init.push((off + at + k as u32, Word::Char(b), false));
                }
                continue;
            }
            if !self.types.is_scalar(lty) {
                self.error(e.loc, format!("cannot initialise {} from a single value", self.types.name(lty)));
                continue;
            }
            if self.types.is_pointer(lty) && self.is_null_constant(e) {
                self.global_init.push((off + at, Word::Int(0), false));
                continue;
            }
            if self.types.is_pointer(lty) {
                match self.const_address(e) {
                    Some((addr, pty)) => {
                        let (want, have) = (self.types.pointee(lty), self.types.pointee(pty));
                        if want == have || want == Some(VOID) || have == Some(VOID) {
                            // An object's address moves with the globals (a function's
                            // value is its index).
                            let object = !matches!(
                                have.map(|t| self.types.get(t)),
                                Some(Type::Function { .. } | Type::VariadicFunction { .. })
                            );
                            self.global_init.push((off + at, Word::Int(addr as i32), object && addr != 0));
                        } else {
                            let (t, f) = (self.types.name(lty), self.types.name(pty));
                            self.error(e.loc, format!("type mismatch: expected {t}, found {f}"));
                        }
                    }
                    None => self.error(
                        e.loc,
                        "a global pointer's initialiser must be a constant address (`&global`, an array, a string)",
                    ),
                }
                continue;
            }
            match self.const_value(e) {
                Some(c) => {
                    let c = match (self.bitfield_at(ty, at), c) {
                        (Some((bits, signed)), Const::Int(i) | Const::Long(i)) => {
                            Const::Long(wrap_bits(i, bits, signed))
                        }
                        (Some((bits, signed)), Const::Float(f)) => Const::Int(wrap_bits(f as i64, bits, signed)),
                        (None, c) => c,
                    };
                    let w = c.to_word(lty);
                    self.global_init.push((off + at, w, false));
                }
                None => self.error(e.loc, "a global initialiser must be a constant expression"),
            }
        }
    }

    /// The address an address constant designates (C11 6.6p9) and its pointer type:
    /// a string literal, a global array, `&` of a global object, a member or an element
    /// of one with constant indices, plus or minus a constant.
    fn const_address(&mut self, e: &ast::Expr) -> Option<(i64, TypeId)> {
        match &e.kind {
            ExprKind::StrLit(b) => {
                let a = self.string_literal(b);
                Some((i64::from(a), self.types.intern(Type::Pointer(CHAR))))
            }
            ExprKind::WStrLit(points) => {
                let a = self.wide_string_literal(points);
                Some((i64::from(a), self.types.intern(Type::Pointer(INT))))
            }
            ExprKind::Cast(tn, inner) if tn.is_pointer() => {
                let (a, _) = self.const_address(inner)?;
                let t = self.type_name_type(tn)?;
                Some((a, t))
            }
            ExprKind::Unary(UnOp::Addr, x)
                if matches!(&x.kind, ExprKind::Ident(_)) && self.const_function(x).is_some() =>
            {
                self.const_function(x)
            }
            ExprKind::Unary(UnOp::Addr, x) => {
                let (a, t) = self.const_lvalue(x)?;
                Some((a, self.types.intern(Type::Pointer(t))))
            }
            ExprKind::Ident(_) if self.const_function(e).is_some() => self.const_function(e),
            // `c ? &a : 0`: the branch the constant condition takes.
            ExprKind::Cond(c, a, b) => {
                let pick = if self.const_value(c)?.as_f64() != 0.0 { a } else { b };
                if self.is_null_constant(pick) {
                    let other = if std::ptr::eq(pick, a) { b } else { a };
                    let t = self.const_address(other).map_or(self.types.intern(Type::Pointer(VOID)), |(_, t)| t);
                    return Some((0, t));
                }
                self.const_address(pick)
            }
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), lr) => {
                let (a, t) = self.const_address(&lr.0)?;
                let k = self.const_int(&lr.1)?;
                let w = i64::from(self.types.words(self.types.pointee(t)?).max(1));
                Some((if *op == BinOp::Add { a + k * w } else { a - k * w }, t))
            }
            ExprKind::Ident(_) => {
                let (a, t) = self.const_lvalue(e)?;
                let (elem, _) = self.types.array_elem(t)?;
                Some((a, self.types.intern(Type::Pointer(elem))))
            }
            _ => None,
        }
    }

    /// Whether `e` is a null pointer constant (C11 6.3.2.3p3): an integer constant 0,
    /// or one cast to a pointer type (`NULL`, `(int *)0`).
    pub(in crate::lang::codegen) fn is_null_constant(&mut self, e: &ast::Expr) -> bool {
        match &e.kind {
            ExprKind::Cast(tn, inner) if tn.is_pointer() => self.is_null_constant(inner),
            ExprKind::IntLit(0) | ExprKind::LongLit(0) => true,
            ExprKind::Cast(..) | ExprKind::Binary(..) | ExprKind::Unary(..) | ExprKind::Cond(..) => {
                self.quiet_const_int(e) == Some(0)
            }
            _ => false,
        }
    }

    /// The type a type name names (`None` after an error in it).
    pub(in crate::lang::codegen) fn type_name_type(&mut self, tn: &ast::TypeName) -> Option<TypeId> {
        let mut t = self.base_type(&tn.base);
        if t == ERROR {
            return None;
        }
        for _ in 0..tn.pointers {
            t = self.types.intern(Type::Pointer(t));
        }
        if let Some(fp) = &tn.func {
            t = self.function_type(t, &fp.params, fp.variadic, tn.base.loc)?;
            for _ in 0..fp.pointers {
                t = self.types.intern(Type::Pointer(t));
            }
        }
        Some(t)
    }

    /// A file-scope function named by `e`: its pointer value and type.
    fn const_function(&mut self, e: &ast::Expr) -> Option<(i64, TypeId)> {
        let ExprKind::Ident(n) = &e.kind else { return None };
        let idx = self.named_function(n)?;
        let sig = self.sigs.get(idx as usize)?.clone();
        if !sig.top || sig.params.iter().any(|(_, r)| *r) {
            return None;
        }
        let ft = self.signature_type(&sig);
        Some((i64::from(idx) + 1, self.types.intern(Type::Pointer(ft))))
    }

    /// A global object designated by constants only: its address and type.
    fn const_lvalue(&mut self, e: &ast::Expr) -> Option<(i64, TypeId)> {
        match &e.kind {
            ExprKind::Ident(n) => match self.lookup(n) {
                Some(Symbol::Var { ty, depth: 0, off, kind: IdentKind::Var }) => Some((i64::from(off), ty)),
                _ => None,
            },
            ExprKind::Index(ai) => {
                let (a, t) = self.const_lvalue(&ai.0)?;
                let (elem, len) = self.types.array_elem(t)?;
                let i = self.const_int(&ai.1)?;
                if i < 0 || i > i64::from(len) {
                    return None;
                }
                Some((a + i * i64::from(self.types.words(elem)), elem))
            }
            ExprKind::Member { expr, field, arrow: false, .. } => {
                let (a, t) = self.const_lvalue(expr)?;
                let f = self.types.struct_info(t)?.fields.iter().find(|f| *f.name == **field)?;
                Some((a + i64::from(f.off), f.ty))
            }
            _ => None,
        }
    }

    /// Flattens an initialiser into leaves (type, word offset, expression), walking
    /// braces over arrays and struct fields; reports lists that do not fit the type.
    fn init_leaves<'i>(&mut self, ty: TypeId, at: u32, init: &'i Init, out: &mut Vec<(TypeId, u32, &'i ast::Expr)>) {
        match init {
            Init::Expr(e) => out.push((ty, at, e)),
            Init::List(items, loc) => self.init_list(ty, at, items, *loc, out),
            Init::Designated(_, inner) => {
                self.error(Self::init_loc(inner), "a designator is only allowed inside braces");
            }
        }
    }

    fn init_loc(i: &Init) -> Loc {
        match i {
            Init::Expr(e) => e.loc,
            Init::List(_, l) => *l,
            Init::Designated(_, inner) => Self::init_loc(inner),
        }
    }

    /// The subobjects of an aggregate in order (type and word offset), `None` for a
    /// scalar.
    fn subobjects(&self, ty: TypeId) -> Option<Vec<(TypeId, u32)>> {
        if let Some((elem, len)) = self.types.array_elem(ty) {
            let w = self.types.words(elem);
            return Some((0..len).map(|k| (elem, k * w)).collect());
        }
        self.types.struct_info(ty).map(|info| info.fields.iter().map(|f| (f.ty, f.off)).collect())
    }

    /// Whether expression `e` initialises a whole object of type `ty` by itself (a scalar,
    /// or a string for a char array) rather than the first scalar inside it.
    fn takes_whole(&self, ty: TypeId, e: &ast::Expr) -> bool {
        self.subobjects(ty).is_none()
            || (matches!(e.kind, ExprKind::StrLit(_)) && matches!(self.types.array_elem(ty), Some((CHAR, _))))
    }

    /// A braced list for `ty` (C11 6.7.9): items fill the subobjects in order; a
    /// designator moves to the subobject it names; an expression for an aggregate
    /// subobject fills that subobject's scalars from the items that follow (brace
    /// elision).
    fn init_list<'i>(
        &mut self,
        ty: TypeId,
        at: u32,
        items: &'i [Init],
        loc: Loc,
        out: &mut Vec<(TypeId, u32, &'i ast::Expr)>,
    ) {
        let Some(subs) = self.subobjects(ty) else {
            // `int x = {5};`
            match items {
                [Init::Expr(e)] => out.push((ty, at, e)),
                [single @ Init::List(..)] => self.init_leaves(ty, at, single, out),
                _ => self.error(loc, format!("cannot initialise {} from a list", self.types.name(ty))),
            }
            return;
        };
        let mut pos = 0;
        let mut cursor = 0usize;
        while let Some(mut item) = items.get(pos) {
            pos += 1;
            if let Init::Designated(path, inner) = item {
                let Some((k, rest)) = self.designate(ty, path) else { return };
                cursor = k;
                if !rest.is_empty() {
                    let (st, off) = subs[k];
                    self.designated(st, at + off, rest, inner, items, &mut pos, out);
                    cursor += 1;
                    continue;
                }
                item = inner;
            }
            // A union takes one initialiser: its first member's, or the designated one's.
            let designated = matches!(items.get(pos - 1), Some(Init::Designated(..)));
            let past_union = self.types.is_union(ty) && cursor >= 1 && !designated;
            let Some(&(st, off)) = subs.get(cursor).filter(|_| !past_union) else {
                self.error(Self::init_loc(item), format!("too many initialisers for {}", self.types.name(ty)));
                return;
            };
            self.init_sub(st, at + off, item, items, &mut pos, out);
            cursor += if self.types.is_union(ty) { subs.len() } else { 1 };
        }
    }

    /// Initialises subobject `ty` from `item`: whole, or (an expression for an
    /// aggregate) with brace elision, taking more of `items`.
    fn init_sub<'i>(
        &mut self,
        ty: TypeId,
        at: u32,
        item: &'i Init,
        items: &'i [Init],
        pos: &mut usize,
        out: &mut Vec<(TypeId, u32, &'i ast::Expr)>,
    ) {
        match item {
            Init::Expr(e) if !self.takes_whole(ty, e) => self.elide(ty, at, Some(item), items, pos, out),
            _ => self.init_leaves(ty, at, item, out),
        }
    }

    /// Fills aggregate `ty` without braces of its own: from `first`, then from
    /// `items[*pos..]`, up to its last scalar, the end of the items or a designated item.
    fn elide<'i>(
        &mut self,
        ty: TypeId,
        at: u32,
        mut first: Option<&'i Init>,
        items: &'i [Init],
        pos: &mut usize,
        out: &mut Vec<(TypeId, u32, &'i ast::Expr)>,
    ) {
        let mut subs = self.subobjects(ty).unwrap_or_default();
        if self.types.is_union(ty) {
            subs.truncate(1);
        }
        for (st, off) in subs {
            let item = match first.take() {
                Some(i) => i,
                None => match items.get(*pos) {
                    None | Some(Init::Designated(..)) => return,
                    Some(i) => {
                        *pos += 1;
                        i
                    }
                },
            };
            self.init_sub(st, at + off, item, items, pos, out);
        }
    }

    /// The subobject index the first designator of `path` names in `ty`, and the rest.
    fn designate<'p>(&mut self, ty: TypeId, path: &'p [ast::Designator]) -> Option<(usize, &'p [ast::Designator])> {
        let (first, rest) = path.split_first()?;
        let k = match first {
            ast::Designator::Index(e) => {
                let Some((_, len)) = self.types.array_elem(ty) else {
                    self.error(e.loc, format!("`[…]` designator for {}, which is not an array", self.types.name(ty)));
                    return None;
                };
                match self.const_int(e) {
                    Some(v) if v >= 0 && v < i64::from(len) => v as usize,
                    Some(v) => {
                        self.error(e.loc, format!("designator index {v} is outside {}", self.types.name(ty)));
                        return None;
                    }
                    None => {
                        self.error(e.loc, "a designator index must be a constant integer expression");
                        return None;
                    }
                }
            }
            ast::Designator::Field(name, loc) => {
                let found = self.types.struct_info(ty).map(|i| i.fields.iter().position(|f| *f.name == **name));
                // A field of an anonymous member: designate the member, and the same
                // path again inside it.
                if let Some(None) = found {
                    let anon = self.types.struct_info(ty).and_then(|i| {
                        i.fields.iter().position(|f| f.name.is_empty() && self.find_field(f.ty, name).is_some())
                    });
                    if let Some(k) = anon {
                        return Some((k, path));
                    }
                }
                match found {
                    Some(Some(k)) => k,
                    Some(None) => {
                        self.error(*loc, format!("{} has no field `{name}`", self.types.name(ty)));
                        return None;
                    }
                    None => {
                        self.error(
                            *loc,
                            format!("`.{name}` designator for {}, which is not a struct", self.types.name(ty)),
                        );
                        return None;
                    }
                }
            }
        };
        Some((k, rest))
    }

    /// `.a.b[2] = init` below the first step: walks the rest of the path, initialises the
    /// subobject reached, then goes on with the subobjects after it in each aggregate on
    /// the way back up (C11 6.7.9p17: the next item follows the designated one).
    #[allow(clippy::too_many_arguments)]
    fn designated<'i>(
        &mut self,
        ty: TypeId,
        at: u32,
        path: &[ast::Designator],
        init: &'i Init,
        items: &'i [Init],
        pos: &mut usize,
        out: &mut Vec<(TypeId, u32, &'i ast::Expr)>,
    ) {
        let Some((k, rest)) = self.designate(ty, path) else { return };
        let Some(subs) = self.subobjects(ty) else { return };
        // A field designator's index is into the struct's fields, which may be more than
        // its subobjects (the members of an anonymous union).
        let designated = match self.types.struct_info(ty) {
            Some(info) => info.fields.get(k).map(|f| (f.ty, f.off)),
            None => subs.get(k).copied(),
        };
        let Some((st, off)) = designated else { return };
        if rest.is_empty() {
            self.init_sub(st, at + off, init, items, pos, out);
        } else {
            self.designated(st, at + off, rest, init, items, pos, out);
        }
        let rest_of: Vec<(TypeId, u32)> = if self.types.is_union(ty) {
            Vec::new()
        } else if self.types.struct_info(ty).is_some() {
            let end = off + self.types.words(st).max(1);
            subs.iter().filter(|(_, o)| *o >= end).copied().collect()
        } else {
            subs[k + 1..].to_vec()
        };
        for (st, off) in rest_of {
            let item = match items.get(*pos) {
                None | Some(Init::Designated(..)) => return,
                Some(i) => {
                    *pos += 1;
                    i
                }
            };
            self.init_sub(st, at + off, item, items, pos, out);
        }
    }

    /// The length an array declared `T a[] = {…}` gets: one past the last element the
    /// list initialises, counting designators and brace elision.
    pub(in crate::lang::codegen) fn inferred_length(&mut self, elem: TypeId, items: &[Init]) -> i64 {
        let per = self.scalar_count(elem).max(1);
        let (mut cursor, mut max) = (0i64, 0i64);
        let mut pos = 0;
        while pos < items.len() {
            let mut item = &items[pos];
            if let Init::Designated(path, inner) = item {
                if let Some(ast::Designator::Index(e)) = path.first() {
                    cursor = self.const_int(e).unwrap_or(cursor);
                }
                item = inner;
            }
            pos += 1;
            if let Init::Expr(e) = item {
                if !self.takes_whole(elem, e) {
                    // Elided braces: this element takes up to `per` items.
                    let mut taken = 1;
                    while taken < per && matches!(items.get(pos), Some(Init::Expr(_))) {
                        pos += 1;
                        taken += 1;
                    }
                }
            }
            cursor += 1;
            max = max.max(cursor);
        }
        max
    }

    /// `T a[] = {…}` and `char s[] = "…"`: the open first dimension takes its size from
    /// the initialiser, as in C.
    pub(in crate::lang::codegen) fn with_inferred_size<'d>(
        &mut self,
        base: TypeId,
        d: &'d ast::Declarator,
    ) -> std::borrow::Cow<'d, ast::Declarator> {
        let len = match (d.dims.first(), &d.init) {
            (Some(None), Some(Init::List(items, _))) => {
                // The element type: the declarator without its first dimension.
                let mut inner = d.clone();
                inner.dims.remove(0);
                inner.init = None;
                match self.declarator_type_any(base, &inner, false) {
                    Some(elem) => self.inferred_length(elem, items),
                    None => items.len() as i64,
                }
            }
            (Some(None), Some(Init::Expr(ast::Expr { kind: ExprKind::StrLit(b), .. }))) => b.len() as i64 + 1,
            _ => return std::borrow::Cow::Borrowed(d),
        };
        let mut d = d.clone();
        d.dims[0] = Some(ast::Expr { kind: ExprKind::IntLit(len), loc: d.loc });
        std::borrow::Cow::Owned(d)
    }

    /// How many scalars an object of type `ty` holds (1 for a scalar).
    fn scalar_count(&self, ty: TypeId) -> usize {
        match self.subobjects(ty) {
            None => 1,
            Some(subs) => subs.iter().map(|(t, _)| self.scalar_count(*t)).sum(),
        }
    }

    /// `char s[N] = "text"`: the N bytes to store (the text, then NULs), or `None` when
    /// `e` is not a string for a char array. A string longer than N is reported and
    /// truncated (C allows an exact fit without the NUL).
    fn char_array_string(&mut self, ty: TypeId, e: &ast::Expr) -> Option<Vec<u8>> {
        let (ExprKind::StrLit(bytes), Some((CHAR, len))) = (&e.kind, self.types.array_elem(ty)) else {
            return None;
        };
        if bytes.len() as u32 > len {
            self.error(e.loc, format!("string of {} chars does not fit in char[{len}]", bytes.len()));
        }
        let mut out = bytes.clone();
        out.resize(len as usize, 0);
        Some(out)
    }

    /// Declarator `d` of a variable declaration of base type `base`, its first dimension
    /// sized from its initialiser when left open, and the variable's type; `None` after
    /// reporting why it declares no variable (a reference outside a parameter list, a
    /// `void` variable, a bad declarator). Shared by globals and locals.
    pub(in crate::lang::codegen) fn variable<'d>(
        &mut self,
        base: TypeId,
        d: &'d ast::Declarator,
    ) -> Option<(std::borrow::Cow<'d, ast::Declarator>, TypeId)> {
        if d.is_ref {
            self.error(d.loc, "only parameters can be references");
            return None;
        }
        // `wchar_t s[] = L"…"` is the list of its code points and a zero.
        let d = match &d.init {
            Some(Init::Expr(ast::Expr { kind: ExprKind::WStrLit(points), loc })) if !d.dims.is_empty() => {
                let mut wide = d.clone();
                let items = points
                    .iter()
                    .chain(std::iter::once(&0))
                    .map(|&c| Init::Expr(ast::Expr { kind: ExprKind::IntLit(i64::from(c)), loc: *loc }))
                    .collect();
                wide.init = Some(Init::List(items, *loc));
                std::borrow::Cow::Owned(self.with_inferred_size(base, &wide).into_owned())
            }
            _ => self.with_inferred_size(base, d),
        };
        let ty = self.declarator_type(base, &d, false)?;
        if ty == VOID {
            self.error(d.loc, format!("variable `{}` cannot have type void", d.name));
            return None;
        }
        Some((d, ty))
    }

    /// Declares a local variable and generates code for its initialiser.
    pub(in crate::lang::codegen) fn local_var(&mut self, v: &ast::VarDecl) {
        let base = self.base_type(&v.ty);
        if base == ERROR {
            return;
        }
        for decl in &v.decls {
            if let Some(size) = self.vla_size(v.ty.storage, decl) {
                self.vla_decl(base, decl, size);
                continue;
            }
            // `extern T a[];` in a block: the file-scope array, whatever its size.
            if v.ty.storage == ast::Storage::Extern && matches!(decl.dims.first(), Some(None)) && decl.init.is_none() {
                if let Some(ty) = self.declarator_type(base, decl, true) {
                    let global = self.scopes.first().and_then(|s| s.names.get(&decl.name)).map(|(s, _)| *s);
                    let ty = match global {
                        Some(Symbol::Var { ty: gty, .. })
                            if self.types.array_elem(gty).map(|g| g.0) == self.types.array_elem(ty).map(|e| e.0) =>
                        {
                            gty
                        }
                        _ => ty,
                    };
                    self.extern_local(decl, ty);
                }
                continue;
            }
            let Some((d, ty)) = self.variable(base, decl) else {
                // Reported once: later uses of the name are not "undeclared" as well.
                self.poisoned.insert(decl.name.clone());
                continue;
            };
            let d = &*d;
            match v.ty.storage {
                ast::Storage::Static => {
                    self.static_local(d, ty);
                    self.note_const(&v.ty, d);
                    continue;
                }
                ast::Storage::Extern => {
                    self.extern_local(d, ty);
                    continue;
                }
                _ => {}
            }
            // The initialiser is evaluated before the name is visible (`int x = x;` sees
            // the outer `x`), as the compiler resolves it in order.
            let Some((depth, off)) = self.declare_var(&d.name, ty, IdentKind::Var, d.loc) else { continue };
            self.note_const(&v.ty, d);
            if let Some(init) = &d.init {
                self.local_init(ty, depth, off, init);
            }
        }
    }

    /// Generates the stores of a local initialiser.
    pub(in crate::lang::codegen) fn local_init(&mut self, ty: TypeId, depth: u8, off: u32, init: &Init) {
        use crate::vcode::{Instr, Scalar};
        let mut leaves = Vec::new();
        self.init_leaves(ty, off, init, &mut leaves);
        // C11 6.7.9p21: what a list leaves out is zero, at every execution of the
        // declaration (the frame word may hold an earlier iteration's value).
        if let (Init::List(_, loc), Some(_)) = (init, self.subobjects(ty)) {
            let words = self.types.words(ty);
            let mut covered = vec![false; words as usize];
            for (lty, at, _) in &leaves {
                let n = if self.types.array_elem(*lty).is_some() { self.types.words(*lty) } else { 1 };
                for k in at - off..(at - off + n).min(words) {
                    covered[k as usize] = true;
                }
            }
            if covered.iter().any(|c| !c) {
                self.emit(Instr::LdAddr { depth, off }, *loc);
                self.emit(Instr::PushI { v: 0 }, *loc);
                self.emit(Instr::PushI { v: words as i32 }, *loc);
                self.emit(Instr::MemSet {}, *loc);
                self.emit(Instr::Pop { n: 1 }, *loc);
            }
        }
        for (lty, at, e) in leaves {
            match self.char_array_string(lty, e) {
                Some(bytes) => {
                    for (k, &b) in bytes.iter().enumerate() {
                        self.emit(Instr::LdAddr { depth, off: at + k as u32 }, e.loc);
                        self.emit(Instr::PushC { v: b }, e.loc);
                        self.emit(Instr::Store { ty: Scalar::Char, keep: false }, e.loc);
                    }
                }
                None => {
                    self.emit(Instr::LdAddr { depth, off: at }, e.loc);
                    let bitfield = if self.types.is_scalar(lty) { self.bitfield_at(ty, at - off) } else { None };
                    match bitfield {
                        Some(bf) => {
                            if self.value_of_type(lty, e) != ERROR {
                                self.narrow_bitfield(bf, lty, e.loc);
                                self.emit(
                                    Instr::Store { ty: crate::lang::codegen::expr::scalar_of(lty), keep: false },
                                    e.loc,
                                );
                            }
                        }
                        None => {
                            self.assign_into(lty, e, false);
                        }
                    }
                }
            }
        }
    }

    /// The bit-field (width, signedness) at word `at` of an object of type `ty`, if the
    /// scalar there is one.
    pub(in crate::lang::codegen) fn bitfield_at(&self, mut ty: TypeId, mut at: u32) -> Option<(u8, bool)> {
        if self.bitfields.is_empty() {
            return None;
        }
        loop {
            if let Some((elem, _)) = self.types.array_elem(ty) {
                at %= self.types.words(elem).max(1);
                ty = elem;
                continue;
            }
            let info = self.types.struct_info(ty)?;
            let f = info.fields.iter().find(|f| f.off <= at && at < f.off + self.types.words(f.ty).max(1))?;
            if f.off == at && self.types.is_scalar(f.ty) {
                return self.bitfields.get(&(self.types.struct_id(ty), f.name.clone())).copied();
            }
            at -= f.off;
            ty = f.ty;
        }
    }

    pub(in crate::lang::codegen) fn push_diag(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }
}

#[derive(Clone, Copy)]
enum Const {
    /// An int-typed value (folded in 32 bits).
    Int(i64),
    /// A long-typed value (folded in 64 bits).
    Long(i64),
    Float(f64),
}

impl Const {
    fn as_f64(self) -> f64 {
        match self {
            Const::Int(i) | Const::Long(i) => i as f64,
            Const::Float(f) => f,
        }
    }
    fn to_word(self, ty: TypeId) -> Word {
        let int = match self {
            Const::Int(i) | Const::Long(i) => i,
            Const::Float(f) => f as i64,
        };
        if let Some((bits, signed)) = narrow_of(ty) {
            let shift = 64 - u32::from(bits);
            let v = if signed { (int << shift) >> shift } else { ((int as u64) << shift >> shift) as i64 };
            return Word::Int(v as i32);
        }
        match ty {
            BOOL => Word::Int(i32::from(self.as_f64() != 0.0)),
            UINT => Word::Int(match self {
                Const::Int(i) | Const::Long(i) => i as i32,
                Const::Float(f) => f as u32 as i32,
            }),
            FLOAT => Word::Float(self.as_f64() as f32),
            DOUBLE => Word::Double(self.as_f64()),
            LONG => Word::Long(int),
            ULONG => Word::Long(match self {
                Const::Int(i) | Const::Long(i) => i,
                Const::Float(f) => f as u64 as i64,
            }),
            CHAR => Word::Char(match self {
                Const::Int(i) | Const::Long(i) => i as u8,
                Const::Float(f) => f as i64 as u8,
            }),
            _ => Word::Int(match self {
                Const::Int(i) | Const::Long(i) => i as i32,
                Const::Float(f) => f as i32,
            }),
        }
    }
}

/// `v` wrapped into a bit-field of `bits` bits, signed or not (C11 6.3.1.3: what an
/// unsigned field keeps; gcc's choice, two's complement, for a signed one).
pub(in crate::lang::codegen) fn wrap_bits(v: i64, bits: u8, signed: bool) -> i64 {
    if bits >= 64 {
        return v;
    }
    let shift = 64 - u32::from(bits);
    if signed {
        (v << shift) >> shift
    } else {
        ((v as u64) << shift >> shift) as i64
    }
}

/// A binary operator on constants one of which is a long: in 64 bits, as at run time
/// (comparisons and logical operators give an int).
fn const_long_op(op: BinOp, a: i64, b: i64) -> Option<Const> {
    Some(match op {
        BinOp::Add => Const::Long(a.wrapping_add(b)),
        BinOp::Sub => Const::Long(a.wrapping_sub(b)),
        BinOp::Mul => Const::Long(a.wrapping_mul(b)),
        BinOp::Div => Const::Long(a.checked_div(b)?),
        BinOp::Mod => Const::Long(a.checked_rem(b)?),
        BinOp::Shl => Const::Long(a.wrapping_shl(b as u32)),
        BinOp::Shr => Const::Long(a.wrapping_shr(b as u32)),
        BinOp::BitAnd => Const::Long(a & b),
        BinOp::BitXor => Const::Long(a ^ b),
        BinOp::BitOr => Const::Long(a | b),
        _ => Const::Int(const_compare(op, a, b, 0)?),
    })
}

/// A comparison or logical operator on two constants (`zero`: the type's zero): 1 or 0
/// as an int; `None` for another operator.
fn const_compare<T: PartialOrd + Copy>(op: BinOp, a: T, b: T, zero: T) -> Option<i64> {
    Some(i64::from(match op {
        BinOp::Lt => a < b,
        BinOp::Le => a <= b,
        BinOp::Gt => a > b,
        BinOp::Ge => a >= b,
        BinOp::Eq => a == b,
        BinOp::Ne => a != b,
        BinOp::And => a != zero && b != zero,
        BinOp::Or => a != zero || b != zero,
        _ => return None,
    }))
}

fn const_int_op(op: BinOp, x: i64, y: i64) -> Option<i64> {
    // Constant folding follows the 32-bit runtime semantics.
    let (a, b) = (x as i32, y as i32);
    Some(match op {
        BinOp::Add => a.wrapping_add(b) as i64,
        BinOp::Sub => a.wrapping_sub(b) as i64,
        BinOp::Mul => a.wrapping_mul(b) as i64,
        BinOp::Div => a.checked_div(b)? as i64,
        BinOp::Mod => a.checked_rem(b)? as i64,
        BinOp::Shl => a.wrapping_shl(b as u32) as i64,
        BinOp::Shr => a.wrapping_shr(b as u32) as i64,
        BinOp::Lt => (a < b) as i64,
        BinOp::Le => (a <= b) as i64,
        BinOp::Gt => (a > b) as i64,
        BinOp::Ge => (a >= b) as i64,
        BinOp::Eq => (a == b) as i64,
        BinOp::Ne => (a != b) as i64,
        BinOp::BitAnd => (a & b) as i64,
        BinOp::BitXor => (a ^ b) as i64,
        BinOp::BitOr => (a | b) as i64,
        BinOp::And => (a != 0 && b != 0) as i64,
        BinOp::Or => (a != 0 || b != 0) as i64,
    })
}
