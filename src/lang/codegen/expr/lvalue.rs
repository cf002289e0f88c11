//! Lvalues: the address of a variable, an element, a member or a dereference, and
//! the load of the value there.
use super::*;

impl Gen<'_> {
    /// Pushes the address of the object `e` designates; returns its type.
    pub(in crate::lang::codegen) fn lvalue(&mut self, e: &Expr) -> TypeId {
        match &e.kind {
            ExprKind::Ident(name) => match self.lookup(name) {
                Some(Symbol::Var { ty, depth, off, kind }) => {
                    if kind == IdentKind::RefParam {
                        self.emit(Instr::LdVal { depth, off }, e.loc);
                    } else {
                        self.emit(Instr::LdAddr { depth, off }, e.loc);
                    }
                    ty
                }
                Some(Symbol::Func(_)) => {
                    self.error(e.loc, format!("`{name}` is a function, not a variable"));
                    ERROR
                }
                Some(Symbol::Type(_)) => {
                    self.error(e.loc, format!("`{name}` is a type name, not a variable"));
                    ERROR
                }
                Some(Symbol::Const(_)) => {
                    self.error(e.loc, format!("`{name}` is an enumeration constant, not a variable"));
                    ERROR
                }
                None => {
                    self.undeclared(e.loc, "name", name);
                    ERROR
                }
            },
            ExprKind::Index(ai) => self.index(&ai.0, &ai.1, e.loc),
            ExprKind::Member { expr, field, field_loc, arrow } => self.member(expr, field, *field_loc, *arrow),
            ExprKind::Compound(ti) => self.compound_literal(&ti.0, &ti.1, e.loc),
            ExprKind::Unary(UnOp::Deref, p) => {
                let t = self.rvalue(p);
                if t == ERROR {
                    return ERROR;
                }
                match self.types.pointee(t) {
                    Some(VOID) => {
                        self.error(e.loc, "cannot dereference a void pointer");
                        ERROR
                    }
                    Some(pt) => pt,
                    None => {
                        self.error(p.loc, format!("cannot dereference a non-pointer ({})", self.types.name(t)));
                        ERROR
                    }
                }
            }
            _ => {
                self.error(e.loc, "expression is not an lvalue (it does not designate an object)");
                ERROR
            }
        }
    }

    fn index(&mut self, a: &Expr, i: &Expr, loc: Loc) -> TypeId {
        let base = if self.is_lvalue_expr(a) {
            let t = self.lvalue(a);
            // An element of an array member of a union lies in the union's words: the
            // flag survives the index expression (which may read other members).
            let union = std::mem::take(&mut self.union_member);
            if t == ERROR {
                self.rvalue_discard(i);
                return ERROR;
            }
            if let Some((elem, len)) = self.types.array_elem(t) {
                self.int_value(i);
                let size = self.types.words(elem);
                self.emit(Instr::Index { size, len }, loc);
                self.union_member = union;
                return elem;
            }
            // A pointer variable: load it.
            self.load(t, a.loc)
        } else {
            self.rvalue(a)
        };
        if base == ERROR {
            self.rvalue_discard(i);
            return ERROR;
        }
        match self.types.pointee(base) {
            Some(elem) if elem != VOID => {
                self.int_value(i);
                let size = self.types.words(elem);
                self.emit(Instr::Index { size, len: 0 }, loc);
                elem
            }
            _ => {
                self.error(a.loc, format!("cannot index a value of type {}", self.types.name(base)));
                self.rvalue_discard(i);
                ERROR
            }
        }
    }

    /// Type-checks `e` (reporting its errors) without leaving code behind.
    pub(super) fn rvalue_discard(&mut self, e: &Expr) {
        let at = self.here();
        self.rvalue(e);
        self.truncate_code(at);
    }

    pub(in crate::lang::codegen) fn truncate_code(&mut self, at: usize) {
        if let Some(f) = self.fns.last_mut() {
            f.code.truncate(at);
            f.lines.truncate(at);
        }
    }

    fn member(&mut self, e: &Expr, field: &str, field_loc: Loc, arrow: bool) -> TypeId {
        let st = if arrow {
            let t = self.rvalue(e);
            if t == ERROR {
                return ERROR;
            }
            match self.types.pointee(t) {
                Some(s) if self.types.is_struct(s) => s,
                _ => {
                    self.error(e.loc, format!("`->` needs a pointer to a struct, found {}", self.types.name(t)));
                    return ERROR;
                }
            }
        } else if !self.is_lvalue_expr(e) && matches!(e.kind, ExprKind::Call { .. } | ExprKind::CallPtr(..)) {
            // `f().a`: the struct a call returns, kept in frame words of its own.
            let Some(at) = self.fns.last().map(|f| f.next) else { return ERROR };
            let depth = self.cur_depth();
            self.emit(Instr::LdAddr { depth, off: at }, e.loc);
            let t = self.rvalue(e);
            if t == ERROR {
                return ERROR;
            }
            if !self.types.is_struct(t) {
                self.error(e.loc, format!("`.` needs a struct, found {}", self.types.name(t)));
                return ERROR;
            }
            let n = self.types.words(t);
            if let Some(f) = self.fns.last_mut() {
                f.next = at + n;
                f.high = f.high.max(f.next);
            }
            self.emit(Instr::StoreBlock { n }, e.loc);
            self.emit(Instr::LdAddr { depth, off: at }, e.loc);
            t
        } else {
            if !self.is_lvalue_expr(e) {
                self.error(e.loc, "`.` needs a struct variable, array element or dereference");
                return ERROR;
            }
            let t = self.lvalue(e);
            if t == ERROR {
                return ERROR;
            }
            if !self.types.is_struct(t) {
                self.error(e.loc, format!("`.` needs a struct, found {}", self.types.name(t)));
                return ERROR;
            }
            t
        };
        self.bitfield = None;
        let Some(info) = self.types.struct_info(st) else { return ERROR };
        match self.find_field(st, field) {
            Some((ty, off, container)) => {
                self.union_member = self.types.is_union(container);
                if !self.bitfields.is_empty() {
                    self.bitfield = self.bitfields.get(&(self.types.struct_id(container), field.to_string())).copied();
                }
                if off != 0 {
                    self.emit(Instr::PushI { v: off as i32 }, field_loc);
                    self.emit(Instr::AddI {}, field_loc);
                }
                ty
            }
            None => {
                let name = info.name.clone();
                self.error(field_loc, format!("struct `{name}` has no field `{field}`"));
                ERROR
            }
        }
    }

    /// Turns the address on the stack (of an object of type `t`) into its value.
    pub(super) fn load(&mut self, t: TypeId, loc: Loc) -> TypeId {
        if t == ERROR {
            return ERROR;
        }
        match self.types.get(t).clone() {
            _ if self.types.is_scalar(t) => {
                self.emit(Instr::Dereference {}, loc);
                // A `char` word read through a `signed char *` (converted with a
                // warning) holds 0..255: read as C's signed char would be.
                if t == SCHAR {
                    self.emit(Instr::Narrow { bits: 8, signed: true }, loc);
                }
                t
            }
            Type::Array { elem, .. } => self.types.intern(Type::Pointer(elem)),
            Type::Struct(_) => {
                let n = self.types.words(t);
                self.emit(Instr::LoadBlock { n }, loc);
                t
            }
            Type::Channel(elem) => {
                let n = self.types.words(elem);
                self.emit(Instr::Recv { n }, loc);
                elem
            }
            Type::Spinlock => {
                self.error(loc, "a spinlock has no value: use lock(s) and unlock(s)");
                ERROR
            }
            // `*fp`: a function designator, which is its pointer again (C11 6.3.2.1p4).
            Type::Function { .. } | Type::VariadicFunction { .. } => self.types.intern(Type::Pointer(t)),
            // Void (every other type is a scalar, taken above).
            _ => {
                self.error(loc, "a void value cannot be used");
                ERROR
            }
        }
    }
}

impl Gen<'_> {
    /// Field `name` of struct or union `st`, looked for in `st`'s own fields and then in
    /// those of its anonymous members (C11 6.7.2.1p13): the field's type, its offset in
    /// `st` and the struct or union that declares it.
    pub(in crate::lang::codegen) fn find_field(&self, st: TypeId, name: &str) -> Option<(TypeId, u32, TypeId)> {
        let info = self.types.struct_info(st)?;
        if let Some(f) = info.fields.iter().find(|f| f.name == name) {
            return Some((f.ty, f.off, st));
        }
        info.fields
            .iter()
            .filter(|f| f.name.is_empty())
            .find_map(|f| self.find_field(f.ty, name).map(|(t, off, c)| (t, f.off + off, c)))
    }
}
