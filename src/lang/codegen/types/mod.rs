//! The type table of a compilation (interned [`Type`]s with their sizes) and the typing of
//! declarations: base types, declarators, parameters, array dimensions, struct
//! definitions; `init` evaluates constant expressions and lays out initialisers.
mod init;

use super::{Gen, Symbol};
use crate::lang::ast::{self, BinOp, ExprKind, Init, Loc, UnOp};
use crate::lang::diag::Diagnostic;
use crate::lang::token::FastMap as HashMap;
use crate::vcode::{FieldInfo, IdentKind, StructInfo, Type, TypeId, Word};

pub(crate) const VOID: TypeId = 0;
pub(crate) const INT: TypeId = 1;
pub(crate) const FLOAT: TypeId = 2;
pub(crate) const CHAR: TypeId = 3;
pub(crate) const SPINLOCK: TypeId = 4;
/// Pseudo type of an expression that already produced a diagnostic.
pub(crate) const ERROR: TypeId = 5;
/// C's `_Bool`.
pub(crate) const BOOL: TypeId = 6;
/// C's `unsigned int`.
pub(crate) const UINT: TypeId = 7;
/// C's `short`, `unsigned short` and `signed char`.
pub(crate) const SHORT: TypeId = 8;
pub(crate) const USHORT: TypeId = 9;
pub(crate) const SCHAR: TypeId = 10;
/// C's `double`.
pub(crate) const DOUBLE: TypeId = 11;
/// C's `long` (and `long long`): 64 bits.
pub(crate) const LONG: TypeId = 12;
/// C's `unsigned long` (and `unsigned long long`).
pub(crate) const ULONG: TypeId = 13;

/// For a narrow integer type: its width in bits and whether it is signed.
pub(crate) fn narrow_of(t: TypeId) -> Option<(u8, bool)> {
    match t {
        SHORT => Some((16, true)),
        USHORT => Some((16, false)),
        SCHAR => Some((8, true)),
        _ => None,
    }
}

/// Largest object in words (4 Mi words): larger declarations are errors, not memory bombs.
const MAX_WORDS: u64 = 1 << 22;

pub(crate) struct Types {
    types: Vec<Type>,
    index: HashMap<TypeKey, TypeId>,
    structs: Vec<StructInfo>,
    /// Struct name → index. A struct gets its index when first named, so `struct S *`
    /// works inside S's own definition and before it.
    /// By struct index: whether its definition has been completed.
    complete: Vec<bool>,
    /// Structs whose fields are being read (innermost last).
    defining: Vec<u32>,
    /// By struct index: whether it is a union (every field at offset 0).
    unions: Vec<bool>,
    /// By type: how many levels its written form nests (a base type or a struct is 1;
    /// a pointer, array, channel or function one more than what it names), the height
    /// the `.cod` reader bounds by [`crate::vcode::cod::MAX_TYPE_NESTING`].
    depth: Vec<u32>,
}

#[derive(Hash, PartialEq, Eq)]
enum TypeKey {
    Pointer(TypeId),
    Array(TypeId, u32),
    Struct(u32),
    Channel(TypeId),
    Function(TypeId, Vec<TypeId>, bool),
}

impl Types {
    pub(crate) fn new() -> Self {
        Types {
            // ERROR is stored as Void so an exported table stays valid.
            types: vec![
                Type::Void,
                Type::Int,
                Type::Float,
                Type::Char,
                Type::Spinlock,
                Type::Void,
                Type::Bool,
                Type::UInt,
                Type::Short,
                Type::UShort,
                Type::SChar,
                Type::Double,
                Type::Long,
                Type::ULong,
            ],
            index: HashMap::default(),
            structs: Vec::new(),
            complete: Vec::new(),
            defining: Vec::new(),
            unions: Vec::new(),
            // One entry per base type above.
            depth: vec![1; ULONG as usize + 1],
        }
    }

    /// The nesting depth of `t`'s written form (see the field `depth`).
    pub(crate) fn depth(&self, t: TypeId) -> u32 {
        self.depth.get(t as usize).copied().unwrap_or(1)
    }

    pub(crate) fn intern(&mut self, t: Type) -> TypeId {
        let key = match &t {
            Type::Void => return VOID,
            Type::Int => return INT,
            Type::Float => return FLOAT,
            Type::Char => return CHAR,
            Type::Spinlock => return SPINLOCK,
            Type::Bool => return BOOL,
            Type::UInt => return UINT,
            Type::Short => return SHORT,
            Type::UShort => return USHORT,
            Type::SChar => return SCHAR,
            Type::Double => return DOUBLE,
            Type::Long => return LONG,
            Type::ULong => return ULONG,
            Type::Pointer(e) => TypeKey::Pointer(*e),
            Type::Array { elem, len } => TypeKey::Array(*elem, *len),
            Type::Struct(s) => TypeKey::Struct(*s),
            Type::Channel(e) => TypeKey::Channel(*e),
            Type::Function { ret, params } => TypeKey::Function(*ret, params.clone(), false),
            Type::VariadicFunction { ret, params } => TypeKey::Function(*ret, params.clone(), true),
        };
        if let Some(&id) = self.index.get(&key) {
            return id;
        }
        let id = self.types.len() as TypeId;
        let depth = match &t {
            Type::Pointer(e) | Type::Array { elem: e, .. } | Type::Channel(e) => 1 + self.depth(*e),
            Type::Function { ret, params } | Type::VariadicFunction { ret, params } => {
                1 + params.iter().fold(self.depth(*ret), |d, &p| d.max(self.depth(p)))
            }
            _ => 1,
        };
        self.depth.push(depth);
        self.types.push(t);
        self.index.insert(key, id);
        id
    }

    pub(crate) fn get(&self, t: TypeId) -> &Type {
        self.types.get(t as usize).unwrap_or(&Type::Void)
    }

    /// Size in words.
    pub(crate) fn words(&self, t: TypeId) -> u32 {
        match self.get(t) {
            Type::Void => 0,
            Type::Array { elem, len } => self.words(*elem).saturating_mul(*len),
            Type::Struct(s) => self.structs.get(*s as usize).map_or(0, |s| s.words),
            _ => 1,
        }
    }

    pub(crate) fn is_arith(&self, t: TypeId) -> bool {
        matches!(t, INT | FLOAT | CHAR | BOOL | UINT | SHORT | USHORT | SCHAR | DOUBLE | LONG | ULONG)
    }
    pub(crate) fn is_integral(&self, t: TypeId) -> bool {
        matches!(t, INT | CHAR | BOOL | UINT | SHORT | USHORT | SCHAR | LONG | ULONG)
    }
    pub(crate) fn is_pointer(&self, t: TypeId) -> bool {
        matches!(self.get(t), Type::Pointer(_))
    }
    pub(crate) fn is_scalar(&self, t: TypeId) -> bool {
        self.is_arith(t) || self.is_pointer(t)
    }
    pub(crate) fn is_spinlock(&self, t: TypeId) -> bool {
        t == SPINLOCK
    }
    pub(crate) fn is_struct(&self, t: TypeId) -> bool {
        matches!(self.get(t), Type::Struct(_))
    }
    pub(crate) fn pointee(&self, t: TypeId) -> Option<TypeId> {
        match self.get(t) {
            Type::Pointer(e) => Some(*e),
            _ => None,
        }
    }
    pub(crate) fn array_elem(&self, t: TypeId) -> Option<(TypeId, u32)> {
        match self.get(t) {
            Type::Array { elem, len } => Some((*elem, *len)),
            _ => None,
        }
    }
    pub(crate) fn channel_elem(&self, t: TypeId) -> Option<TypeId> {
        match self.get(t) {
            Type::Channel(e) => Some(*e),
            _ => None,
        }
    }
    /// Whether `t` is a union type.
    pub(crate) fn is_union(&self, t: TypeId) -> bool {
        matches!(self.get(t), Type::Struct(s) if self.unions.get(*s as usize).copied().unwrap_or(false))
    }

    /// The incomplete struct `t` is, or holds as array elements (by value), if any.
    pub(crate) fn incomplete_struct(&self, t: TypeId) -> Option<u32> {
        match self.get(t) {
            Type::Struct(s) if !self.complete.get(*s as usize).copied().unwrap_or(true) => Some(*s),
            Type::Array { elem, .. } => self.incomplete_struct(*elem),
            _ => None,
        }
    }

    /// A new (incomplete) struct named `name`: its index.
    fn new_struct(&mut self, name: &str) -> u32 {
        let i = self.structs.len() as u32;
        self.structs.push(StructInfo { name: name.to_string(), fields: Vec::new(), words: 0 });
        self.complete.push(false);
        self.unions.push(false);
        i
    }

    /// The index of struct type `t` (`u32::MAX` for another type).
    pub(crate) fn struct_id(&self, t: TypeId) -> u32 {
        match self.get(t) {
            Type::Struct(i) => *i,
            _ => u32::MAX,
        }
    }

    pub(crate) fn struct_info(&self, t: TypeId) -> Option<&StructInfo> {
        match self.get(t) {
            Type::Struct(s) => self.structs.get(*s as usize),
            _ => None,
        }
    }

    /// A function type's parameter list as C writes it: `int, char *, ...`.
    fn param_list(&self, (_, params, variadic): (TypeId, &[TypeId], bool)) -> String {
        let mut ps: Vec<String> = params.iter().map(|p| self.name(*p)).collect();
        if variadic {
            ps.push("...".into());
        }
        ps.join(", ")
    }

    /// The type as C would write it, for messages.
    pub(crate) fn name(&self, t: TypeId) -> String {
        if t == ERROR {
            return "<error>".into();
        }
        match self.get(t) {
            Type::Void => "void".into(),
            Type::Int => "int".into(),
            Type::Float => "float".into(),
            Type::Char => "char".into(),
            Type::Spinlock => "spinlock".into(),
            Type::Bool => "_Bool".into(),
            Type::UInt => "unsigned int".into(),
            Type::Short => "short".into(),
            Type::UShort => "unsigned short".into(),
            Type::SChar => "signed char".into(),
            Type::Double => "double".into(),
            Type::Long => "long".into(),
            Type::ULong => "unsigned long".into(),
            Type::Pointer(e) => match self.get(*e).function_parts() {
                Some(f) => format!("{} (*)({})", self.name(f.0), self.param_list(f)),
                None => format!("{}*", self.name(*e)),
            },
            Type::Function { .. } | Type::VariadicFunction { .. } => {
                let f = self.get(t).function_parts().unwrap_or((ERROR, &[], false));
                format!("{} ({})", self.name(f.0), self.param_list(f))
            }
            Type::Array { elem, len } => {
                // Length 0 is an open `[]` (an `extern` array, a flexible member).
                let show = |len: u32| if len == 0 { "[]".to_string() } else { format!("[{len}]") };
                let mut dims = show(*len);
                let mut e = *elem;
                while let Type::Array { elem, len } = self.get(e) {
                    dims.push_str(&show(*len));
                    e = *elem;
                }
                format!("{}{}", self.name(e), dims)
            }
            Type::Struct(s) => format!(
                "{} {}",
                if self.is_union(t) { "union" } else { "struct" },
                self.structs.get(*s as usize).map_or("?", |s| s.name.as_str())
            ),
            Type::Channel(e) => format!("channel {}", self.name(*e)),
        }
    }

    pub(crate) fn export(&self) -> (Vec<Type>, Vec<StructInfo>) {
        (self.types.clone(), self.structs.clone())
    }
}

impl Gen<'_> {
    /// The type named by a type specifier.
    pub(super) fn base_type(&mut self, t: &ast::TypeSpec) -> TypeId {
        match &t.base {
            ast::BaseType::Int => INT,
            ast::BaseType::Float => FLOAT,
            ast::BaseType::Char => CHAR,
            ast::BaseType::Void => VOID,
            ast::BaseType::Spinlock => SPINLOCK,
            ast::BaseType::Struct(name) => {
                let s = self.struct_tag(name, false);
                self.types.intern(Type::Struct(s))
            }
            ast::BaseType::Enum => INT,
            ast::BaseType::Bool => BOOL,
            ast::BaseType::UInt => UINT,
            ast::BaseType::Short => SHORT,
            ast::BaseType::UShort => USHORT,
            ast::BaseType::SChar => SCHAR,
            ast::BaseType::Double => DOUBLE,
            ast::BaseType::Long => LONG,
            ast::BaseType::ULong => ULONG,
            ast::BaseType::Typedef(name) => match self.lookup(name) {
                Some(Symbol::Type(t)) => t,
                _ => {
                    self.error(t.loc, format!("`{name}` is not a type name here"));
                    ERROR
                }
            },
        }
    }

    /// Applies pointers and array dimensions of a declarator to a base type; an object
    /// of incomplete struct type (not through a pointer) is an error.
    pub(super) fn declarator_type(&mut self, base: TypeId, d: &ast::Declarator, allow_open: bool) -> Option<TypeId> {
        let t = self.declarator_type_any(base, d, allow_open)?;
        if let Some(s) = self.types.incomplete_struct(t) {
            let name = self.types.structs.get(s as usize).map_or(String::new(), |s| s.name.clone());
            let msg = if self.types.defining.contains(&s) {
                format!("struct `{name}` cannot contain itself (a pointer `struct {name} *` can)")
            } else {
                format!(
                    "`{}` has incomplete type struct `{name}` (the struct is not defined before this point)",
                    d.name
                )
            };
            self.error(d.loc, msg);
            return None;
        }
        Some(t)
    }

    /// [`Gen::declarator_type`] without the completeness check (typedefs may name an
    /// incomplete struct).
    fn declarator_type_any(&mut self, base: TypeId, d: &ast::Declarator, allow_open: bool) -> Option<TypeId> {
        let mut t = base;
        for _ in 0..d.pointers {
            t = self.types.intern(Type::Pointer(t));
        }
        if let Some(fp) = &d.func {
            t = self.function_type(t, &fp.params, fp.variadic, d.loc)?;
            for _ in 0..fp.pointers {
                t = self.types.intern(Type::Pointer(t));
            }
        }
        if t == VOID && !d.dims.is_empty() {
            self.error(d.loc, "array of void");
            return None;
        }
        let (mut t, _) = self.array_dims(t, &d.dims, allow_open && d.array_pointers == 0, d.loc)?;
        for _ in 0..d.array_pointers {
            t = self.types.intern(Type::Pointer(t));
        }
        let depth = self.types.depth(t) as usize;
        if depth > crate::vcode::cod::MAX_TYPE_NESTING {
            let limit = crate::vcode::cod::MAX_TYPE_NESTING;
            self.error(d.loc, format!("the type of `{}` nests {depth} levels deep (the limit is {limit})", d.name));
            return None;
        }
        if t != VOID && self.types.words(t) as u64 > MAX_WORDS {
            self.error(
                d.loc,
                format!("`{}` is too large ({} words; the limit is {MAX_WORDS})", d.name, self.types.words(t)),
            );
            return None;
        }
        Some(t)
    }

    /// The function type `ret (params)` a function pointer points to. Reference
    /// parameters and `...` cannot be called through a pointer here.
    pub(super) fn function_type(
        &mut self,
        ret: TypeId,
        params: &[ast::Param],
        variadic: bool,
        loc: ast::Loc,
    ) -> Option<TypeId> {
        if self.types.array_elem(ret).is_some() {
            self.error(loc, "a function cannot return an array");
            return None;
        }
        let mut ps = Vec::with_capacity(params.len());
        for p in params {
            let base = self.base_type(&p.ty);
            if base == ERROR {
                return None;
            }
            if p.decl.is_ref {
                self.error(p.decl.loc, "a function pointer's parameters cannot be references");
                return None;
            }
            ps.push(self.param_type(base, &p.decl)?);
        }
        Some(self.types.intern(if variadic {
            Type::VariadicFunction { ret, params: ps }
        } else {
            Type::Function { ret, params: ps }
        }))
    }

    /// Builds `elem[d0][d1]…`; returns the type and the dimensions. An open first
    /// dimension (`[]`) is allowed only for parameters and gives length 0.
    pub(super) fn array_dims(
        &mut self,
        elem: TypeId,
        dims: &[Option<ast::Expr>],
        allow_open_first: bool,
        loc: ast::Loc,
    ) -> Option<(TypeId, Vec<u32>)> {
        let mut sizes = Vec::with_capacity(dims.len());
        let mut ok = true;
        for (k, d) in dims.iter().enumerate() {
            match d {
                None if k == 0 && allow_open_first => sizes.push(0),
                None => {
                    self.error(loc, "array size missing (give it, or an initialiser to count)");
                    ok = false;
                }
                Some(e) => match self.const_int(e) {
                    Some(v) if v > 0 && (v as u64) <= MAX_WORDS => sizes.push(v as u32),
                    Some(v) => {
                        self.error(e.loc, format!("array size must be positive, found {v}"));
                        ok = false;
                    }
                    None => {
                        let vla =
                            if self.fns.is_empty() { "" } else { " (only a local array's first dimension may vary)" };
                        self.error(e.loc, format!("array size must be a constant integer expression{vla}"));
                        ok = false;
                    }
                },
            }
        }
        if !ok {
            return None;
        }
        let mut t = elem;
        let mut total: u64 = self.types.words(elem).max(1) as u64;
        for &n in sizes.iter().rev() {
            total = total.saturating_mul(n.max(1) as u64);
            if total > MAX_WORDS {
                self.error(
                    dims.first().and_then(|d| d.as_ref()).map_or(Default::default(), |e| e.loc),
                    "array is too large",
                );
                return None;
            }
            t = self.types.intern(Type::Array { elem: t, len: n });
        }
        Some((t, sizes))
    }

    /// The type of a parameter: reference parameters keep their declared (array) type;
    /// by-value array parameters decay to pointers as in C.
    pub(super) fn param_type(&mut self, base: TypeId, d: &ast::Declarator) -> Option<TypeId> {
        let t = self.declarator_type(base, d, true)?;
        if t == VOID {
            self.error(d.loc, format!("parameter `{}` cannot have type void", d.name));
            return None;
        }
        if self.types.is_spinlock(t) && !d.is_ref {
            self.error(d.loc, "a spinlock parameter must be a reference (`spinlock &s`)");
            return None;
        }
        if d.is_ref {
            return Some(t);
        }
        if let Some((elem, _)) = self.types.array_elem(t) {
            return Some(self.types.intern(Type::Pointer(elem)));
        }
        Some(t)
    }

    /// The width and signedness of bit-field `d` of type `ty` (C11 6.7.2.1p4-5): an
    /// integer type, a constant width from 1 to the type's bits (0 names no field).
    /// `int` and the signed types are signed, as in gcc; an enum's is unsigned (gcc's
    /// choice for an enum without negative constants).
    fn bit_width(&mut self, ty: TypeId, is_enum: bool, w: &ast::Expr, d: &ast::Declarator) -> Option<(u8, bool)> {
        let (max, signed) = match ty {
            INT => (32, !is_enum),
            UINT => (32, false),
            BOOL => (1, false),
            CHAR => (8, false),
            SCHAR => (8, true),
            SHORT => (16, true),
            USHORT => (16, false),
            LONG => (64, true),
            ULONG => (64, false),
            _ => {
                self.error(
                    d.loc,
                    format!("bit-field `{}` must have an integer type, not {}", d.name, self.types.name(ty)),
                );
                return None;
            }
        };
        match self.const_int(w) {
            Some(v) if v >= 1 && v <= max => Some((v as u8, signed)),
            Some(v) => {
                self.error(w.loc, format!("bit-field `{}` width must be 1 to {max}, found {v}", d.name));
                None
            }
            None => {
                self.error(w.loc, format!("bit-field `{}` width must be a constant integer expression", d.name));
                None
            }
        }
    }

    /// The struct or union tag `name` names here: the innermost declaration of it (for
    /// a definition, only one in the current scope counts, which it completes), else a
    /// new incomplete one declared in the current scope, as C's tag scopes have it.
    fn struct_tag(&mut self, name: &str, defining: bool) -> u32 {
        let found = if defining {
            self.scopes.last().and_then(|s| s.tags.get(name).copied())
        } else {
            self.scopes.iter().rev().find_map(|s| s.tags.get(name).copied())
        };
        if let Some(i) = found {
            return i;
        }
        let i = self.types.new_struct(name);
        if let Some(s) = self.scopes.last_mut() {
            s.tags.insert(name.to_string(), i);
        }
        i
    }

    pub(super) fn struct_def(&mut self, s: &ast::StructDef) {
        let idx = self.struct_tag(&s.name, true);
        if self.types.complete.get(idx as usize).copied().unwrap_or(false) || self.types.defining.contains(&idx) {
            self.error(s.loc, format!("duplicate definition of struct `{}`", s.name));
            return;
        }
        self.types.defining.push(idx);
        let mut fields: Vec<FieldInfo> = Vec::new();
        let mut off = 0u32;
        let count: usize = s.fields.iter().map(|f| f.decls.len()).sum();
        let mut k = 0;
        for f in &s.fields {
            let base = self.base_type(&f.ty);
            if base == ERROR {
                continue;
            }
            for d in &f.decls {
                k += 1;
                if d.is_ref || d.init.is_some() {
                    self.error(d.loc, "a struct field takes no `&` or initialiser");
                    continue;
                }
                // A flexible array member (`double v[];`, C99): the last member of a
                // struct with others, no words of its own; its elements are those the
                // allocation gives beyond the struct.
                let flexible = !s.union && k == count && count > 1;
                if !flexible && matches!(d.dims.first(), Some(None)) {
                    self.error(
                        d.loc,
                        format!(
                            "field `{}` has no array size: only the last member of a struct with other \
                             members can be a flexible array (`T name[];`)",
                            d.name
                        ),
                    );
                    continue;
                }
                let Some(ty) = self.declarator_type(base, d, flexible) else { continue };
                if let Some(w) = &d.bits {
                    let is_enum = matches!(f.ty.base, ast::BaseType::Enum);
                    let Some(width) = self.bit_width(ty, is_enum, w, d) else { continue };
                    self.bitfields.insert((idx, d.name.to_string()), width);
                }
                if ty == VOID || self.types.channel_elem(ty).is_some() {
                    self.error(d.loc, format!("field `{}` cannot have type {}", d.name, self.types.name(ty)));
                    continue;
                }
                // An anonymous struct or union member (named ""): its fields are found
                // through it (`Gen::find_field`).
                if !d.name.is_empty() && fields.iter().any(|x| *x.name == *d.name) {
                    self.error(d.loc, format!("duplicate field `{}`", d.name));
                    continue;
                }
                if s.union {
                    // Every member at offset 0; the union is as large as the largest.
                    fields.push(FieldInfo { name: d.name.to_string(), ty, off: 0 });
                    off = off.max(self.types.words(ty));
                } else {
                    fields.push(FieldInfo { name: d.name.to_string(), ty, off });
                    off = off.saturating_add(self.types.words(ty));
                }
            }
        }
        self.types.defining.pop();
        if let Some(info) = self.types.structs.get_mut(idx as usize) {
            *info = StructInfo { name: s.name.clone(), fields, words: off };
        }
        if let Some(c) = self.types.complete.get_mut(idx as usize) {
            *c = true;
        }
        if let Some(u) = self.types.unions.get_mut(idx as usize) {
            *u = s.union;
        }
    }

    /// `enum {A, B = 5, C}`: declares each enumerator as an `int` constant (one more
    /// than the previous, the first 0, unless given).
    pub(super) fn enum_def(&mut self, e: &ast::EnumDef) {
        let mut next: i64 = 0;
        for (name, loc, value) in &e.items {
            let v = match value {
                Some(x) => match self.const_int(x) {
                    Some(v) => v,
                    None => {
                        self.error(x.loc, "an enumerator's value must be a constant integer expression");
                        next
                    }
                },
                None => next,
            };
            let Ok(v32) = i32::try_from(v) else {
                self.error(*loc, format!("enumerator `{name}` = {v} does not fit in an int"));
                continue;
            };
            self.declare(name, Symbol::Const(v32), *loc);
            next = v + 1;
        }
    }

    /// `_Static_assert(e, "m")`: an error with the message when the constant `e` is 0.
    pub(super) fn static_assert(&mut self, a: &ast::StaticAssert) {
        match self.const_int(&a.cond) {
            Some(0) => {
                let m = String::from_utf8_lossy(&a.message).into_owned();
                self.error(
                    a.loc,
                    if m.is_empty() {
                        "static assertion failed".to_string()
                    } else {
                        format!("static assertion failed: {m}")
                    },
                );
            }
            Some(_) => {}
            None => self.error(a.cond.loc, "`_Static_assert` needs an integer constant expression"),
        }
    }

    /// `typedef T name…;`: each declarator names its type in the current scope. The
    /// same typedef may be repeated with the same type (C11).
    pub(super) fn typedef(&mut self, v: &ast::VarDecl) {
        let base = self.base_type(&v.ty);
        if base == ERROR {
            return;
        }
        for d in &v.decls {
            let Some(ty) = self.declarator_type_any(base, d, false) else { continue };
            let same = self.scopes.last().and_then(|s| s.names.get(&d.name)).map(|(s, _)| *s);
            if let Some(Symbol::Type(prev)) = same {
                if prev == ty {
                    continue;
                }
            }
            self.declare(&d.name, Symbol::Type(ty), d.loc);
        }
    }
}
