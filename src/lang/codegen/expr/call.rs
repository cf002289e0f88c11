//! Calls: user functions and function pointers with their arguments, the library,
//! the formatted I/O functions and the built-ins.
use super::*;

impl Gen<'_> {
    /// Pushes the arguments of a call of user function `func`; reports mismatches.
    pub(in crate::lang::codegen) fn call_args(&mut self, func: u32, name: &str, name_loc: Loc, args: &[Expr]) -> bool {
        let Some(sig) = self.sigs.get(func as usize).cloned() else { return false };
        let (named, extra) = if sig.variadic && args.len() >= sig.params.len() {
            args.split_at(sig.params.len())
        } else {
            (args, &[][..])
        };
        if sig.params.len() != named.len() {
            self.push_diag(
                crate::lang::diag::Diagnostic::error(
                    name_loc,
                    format!(
                        "wrong number of arguments: `{name}` takes {}{} argument{}, {} given",
                        if sig.variadic { "at least " } else { "" },
                        sig.params.len(),
                        if sig.params.len() == 1 { "" } else { "s" },
                        args.len()
                    ),
                )
                .with_note(format!("`{name}` is declared at line {}", sig.loc.line)),
            );
            return false;
        }
        let mut ok = true;
        for (k, (arg, (pty, is_ref))) in named.iter().zip(sig.params.iter()).enumerate() {
            if *pty == ERROR {
                ok = false;
                continue;
            }
            if *is_ref {
                if !self.is_lvalue_expr(arg) {
                    self.error(
                        arg.loc,
                        format!(
                            "argument {} of `{name}` is a reference parameter: it needs a variable, element or field",
                            k + 1
                        ),
                    );
                    ok = false;
                    continue;
                }
                let t = self.lvalue(arg);
                if t == ERROR {
                    ok = false;
                    continue;
                }
                if t != *pty && !self.same_array_elem(t, *pty) {
                    let (f, tt) = (self.types.name(t), self.types.name(*pty));
                    self.error(
                        arg.loc,
                        format!("type mismatch: argument {} of `{name}` is a reference to {tt}, found {f}", k + 1),
                    );
                    ok = false;
                }
            } else if self.value_of_type(*pty, arg) == ERROR {
                ok = false;
            }
        }
        if sig.variadic {
            ok &= self.variadic_args(name, extra, name_loc);
        }
        ok
    }

    /// `f` used as a value: a pointer to the function (its index + 1).
    pub(super) fn function_pointer(&mut self, idx: u32, name: &str, loc: Loc) -> TypeId {
        let Some(sig) = self.sigs.get(idx as usize).cloned() else { return ERROR };
        if !sig.top {
            self.error(loc, format!("`{name}` is a nested function: only a file-scope function can be pointed to"));
            return ERROR;
        }
        if sig.params.iter().any(|(_, r)| *r) {
            self.error(loc, format!("`{name}` takes reference parameters: it cannot be called through a pointer"));
            return ERROR;
        }
        let ft = self.signature_type(&sig);
        self.emit(Instr::PushI { v: idx as i32 + 1 }, loc);
        self.types.intern(Type::Pointer(ft))
    }

    /// The function type of a signature without reference parameters.
    pub(in crate::lang::codegen) fn signature_type(&mut self, sig: &crate::lang::codegen::Signature) -> TypeId {
        let (ret, params) = (sig.ret, sig.params.iter().map(|(t, _)| *t).collect());
        self.types.intern(if sig.variadic {
            Type::VariadicFunction { ret, params }
        } else {
            Type::Function { ret, params }
        })
    }

    /// The result type of function type `ft`.
    pub(super) fn function_result(&self, ft: TypeId) -> TypeId {
        self.types.get(ft).function_parts().map_or(ERROR, |f| f.0)
    }

    /// Pushes the arguments of a call through a pointer to function type `ft`: the named
    /// ones, then (for `...`) the address of the words holding the others.
    pub(super) fn pointer_call_args(&mut self, ft: TypeId, args: &[Expr], loc: Loc) -> bool {
        let Some((params, variadic)) = self.types.get(ft).function_parts().map(|(_, p, v)| (p.to_vec(), v)) else {
            return false;
        };
        if params.len() != args.len() && !(variadic && args.len() >= params.len()) {
            self.error(
                loc,
                format!(
                    "wrong number of arguments: the function pointed to takes {}{}, {} given",
                    if variadic { "at least " } else { "" },
                    params.len(),
                    args.len()
                ),
            );
            return false;
        }
        let (named, extra) = args.split_at(params.len());
        let mut ok = true;
        for (a, p) in named.iter().zip(params) {
            ok &= self.value_of_type(p, a) != ERROR;
        }
        if variadic {
            ok &= self.variadic_args("the function pointed to", extra, loc);
        }
        ok
    }

    /// The arguments after a variadic function's named ones, stored one after another in
    /// hidden frame words of the caller, whose address is pushed as the callee's hidden
    /// last parameter (`va_start` reads it, `va_arg` walks it by `sizeof` the type it
    /// reads). A scalar takes one word, promoted as C does (`char` and `_Bool` to
    /// `int`); a struct or union takes its words, copied.
    fn variadic_args(&mut self, name: &str, extra: &[Expr], loc: Loc) -> bool {
        let Some(f) = self.fns.last_mut() else {
            self.error(loc, format!("`{name}` cannot be called here"));
            return false;
        };
        let (depth, base) = (f.depth, f.next);
        let mut cur = base;
        let mut ok = true;
        for a in extra {
            // The words of the arguments before this one are kept from its temporaries;
            // its own are written only once its value is on the stack.
            if let Some(f) = self.fns.last_mut() {
                f.reserve_to(cur);
            }
            self.emit(Instr::LdAddr { depth, off: cur }, a.loc);
            let t = self.rvalue(a);
            if t == ERROR {
                ok = false;
                self.emit(Instr::Pop { n: 1 }, a.loc);
                continue;
            }
            if self.types.is_struct(t) {
                let n = self.types.words(t);
                self.emit(Instr::StoreBlock { n }, a.loc);
                cur += n;
                continue;
            }
            if !self.types.is_scalar(t) {
                self.error(a.loc, format!("a {} cannot be passed through `...`", self.types.name(t)));
                ok = false;
                continue;
            }
            let st = if t == CHAR || t == BOOL {
                self.emit(Instr::Convert { to: Scalar::Int }, a.loc);
                Scalar::Int
            } else {
                scalar_of(t)
            };
            self.emit(Instr::Store { ty: st, keep: false }, a.loc);
            cur += 1;
        }
        if let Some(f) = self.fns.last_mut() {
            f.reserve_to(cur.max(base + 1));
        }
        self.emit(Instr::LdAddr { depth, off: base }, loc);
        ok
    }

    pub(super) fn call(&mut self, name: &str, name_loc: Loc, args: &[Expr], loc: Loc) -> TypeId {
        match self.lookup(name) {
            Some(Symbol::Func(func)) => {
                let ret = self.sigs.get(func as usize).map_or(ERROR, |s| s.ret);
                if self.call_args(func, name, name_loc, args) {
                    self.emit(Instr::Call { func }, loc);
                    ret
                } else {
                    ERROR
                }
            }
            Some(Symbol::Var { ty, .. })
                if self.types.pointee(ty).is_some_and(|p| self.types.get(p).function_parts().is_some()) =>
            {
                let ft = self.types.pointee(ty).unwrap_or(ERROR);
                if !self.pointer_call_args(ft, args, loc) {
                    return ERROR;
                }
                let callee = Expr { kind: ExprKind::Ident(crate::lang::ast::Name::from(name)), loc: name_loc };
                self.rvalue(&callee);
                self.emit(Instr::CallInd {}, loc);
                self.function_result(ft)
            }
            Some(Symbol::Var { .. } | Symbol::Type(_) | Symbol::Const(_)) => {
                self.error(name_loc, format!("`{name}` is not a function"));
                ERROR
            }
            None if is_builtin(name) => self.builtin(name, name_loc, args, loc),
            None => match self.link_library(name) {
                Some(func) => {
                    let ret = self.sigs.get(func as usize).map_or(ERROR, |s| s.ret);
                    if self.call_args(func, name, name_loc, args) {
                        self.emit(Instr::Call { func }, loc);
                        ret
                    } else {
                        ERROR
                    }
                }
                None => {
                    self.undeclared(name_loc, "function", name);
                    ERROR
                }
            },
        }
    }

    fn arity(&mut self, name: &str, name_loc: Loc, args: &[Expr], n: usize) -> bool {
        if args.len() != n {
            self.error(
                name_loc,
                format!(
                    "wrong number of arguments: `{name}` takes {n} argument{}, {} given",
                    if n == 1 { "" } else { "s" },
                    args.len()
                ),
            );
            return false;
        }
        true
    }

    fn pointer_arg(&mut self, e: &Expr, what: &str) -> bool {
        self.pointer_arg_type(e, what).is_some()
    }

    /// Pushes a pointer argument; returns its type (`None` after an error).
    fn pointer_arg_type(&mut self, e: &Expr, what: &str) -> Option<TypeId> {
        let t = self.rvalue(e);
        if t == ERROR {
            return None;
        }
        // A null pointer constant (`free(0)`) is a pointer (C11 6.3.2.3p3).
        if matches!(e.kind, ExprKind::IntLit(0)) {
            return Some(self.types.intern(Type::Pointer(VOID)));
        }
        if !self.types.is_pointer(t) {
            self.error(e.loc, format!("type mismatch: {what} must be a pointer, found {}", self.types.name(t)));
            return None;
        }
        Some(t)
    }

    /// `vprintf(fmt, ap)`, `vfprintf(f, fmt, ap)`, `vsprintf(buf, fmt, ap)`,
    /// `vsnprintf(buf, n, fmt, ap)`: the arguments come from a `va_list`.
    fn vformat(&mut self, name: &str, name_loc: Loc, args: &[Expr], loc: Loc) -> TypeId {
        let want = match name {
            "vprintf" => 2,
            "vsnprintf" => 4,
            _ => 3,
        };
        if !self.arity(name, name_loc, args, want) {
            return ERROR;
        }
        let (lead, rest) = args.split_at(want - 2);
        match name {
            "vfprintf" if !self.file_arg(&lead[0]) => return ERROR,
            "vsprintf" | "vsnprintf" => {
                if !self.pointer_arg(&lead[0], "the destination") {
                    return ERROR;
                }
                if name == "vsprintf" {
                    self.emit(Instr::PushI { v: -1 }, loc);
                } else if self.int_value(&lead[1]) == ERROR {
                    return ERROR;
                }
            }
            _ => {}
        }
        if !self.pointer_arg(&rest[0], "the format") || !self.pointer_arg(&rest[1], "the `va_list`") {
            return ERROR;
        }
        self.emit(
            match name {
                "vprintf" => Instr::Vprintf {},
                "vfprintf" => Instr::Vfprintf {},
                _ => Instr::Vsnprintf {},
            },
            loc,
        );
        INT
    }

    /// The C library's memory routines and `sprintf`, `snprintf`, `exit`. Sizes are in
    /// words, as `sizeof` counts them.
    fn library(&mut self, name: &str, name_loc: Loc, args: &[Expr], loc: Loc) -> TypeId {
        let void_ptr = self.types.intern(Type::Pointer(VOID));
        match name {
            "sprintf" | "snprintf" => {
                let fixed = if name == "sprintf" { 2 } else { 3 };
                if args.len() < fixed {
                    self.error(name_loc, format!("wrong number of arguments: `{name}` needs at least {fixed}"));
                    return ERROR;
                }
                if !self.pointer_arg(&args[0], "the destination") {
                    return ERROR;
                }
                if name == "sprintf" {
                    self.emit(Instr::PushI { v: -1 }, loc);
                } else if self.int_value(&args[1]) == ERROR {
                    return ERROR;
                }
                let fmt = &args[fixed - 1];
                if !self.pointer_arg(fmt, "the format") {
                    return ERROR;
                }
                self.check_format(fmt, args.len() - fixed, name);
                for a in &args[fixed..] {
                    let t = self.rvalue(a);
                    if t == ERROR {
                        return ERROR;
                    }
                    if !self.types.is_scalar(t) {
                        self.error(a.loc, format!("cannot print a value of type {}", self.types.name(t)));
                        return ERROR;
                    }
                }
                self.emit(Instr::Sprintf { argc: (args.len() - fixed) as u32 }, loc);
                INT
            }
            "malloc" => {
                if !self.arity(name, name_loc, args, 1) || self.int_value(&args[0]) == ERROR {
                    return ERROR;
                }
                self.emit(Instr::Malloc {}, loc);
                void_ptr
            }
            "calloc" => {
                if !self.arity(name, name_loc, args, 2)
                    || self.int_value(&args[0]) == ERROR
                    || self.int_value(&args[1]) == ERROR
                {
                    return ERROR;
                }
                // MALLOC's words are zeroed already.
                self.emit(Instr::MulI {}, loc);
                self.emit(Instr::Malloc {}, loc);
                void_ptr
            }
            "realloc" => {
                if !self.arity(name, name_loc, args, 2)
                    || !self.pointer_arg(&args[0], "the block")
                    || self.int_value(&args[1]) == ERROR
                {
                    return ERROR;
                }
                self.emit(Instr::Realloc {}, loc);
                void_ptr
            }
            "free" => {
                if !self.arity(name, name_loc, args, 1) || !self.pointer_arg(&args[0], "the block") {
                    return ERROR;
                }
                self.emit(Instr::Free {}, loc);
                VOID
            }
            "memcpy" | "memmove" => {
                if !self.arity(name, name_loc, args, 3)
                    || !self.pointer_arg(&args[0], "the destination")
                    || !self.pointer_arg(&args[1], "the source")
                    || self.int_value(&args[2]) == ERROR
                {
                    return ERROR;
                }
                self.emit(Instr::MemCopy {}, loc);
                void_ptr
            }
            "memset" => {
                if !self.arity(name, name_loc, args, 3) {
                    return ERROR;
                }
                let Some(t) = self.pointer_arg_type(&args[0], "the destination") else { return ERROR };
                let zero = matches!(args[1].kind, ExprKind::IntLit(0) | ExprKind::CharLit(0));
                let pointee = self.types.pointee(t).unwrap_or(VOID);
                if !zero && pointee != CHAR {
                    self.error(
                        args[1].loc,
                        format!(
                            "`memset` with a value other than 0 is exact only on char memory here, and the \
                             destination is {}: memory holds one value per word, not bytes (assign in a loop)",
                            self.types.name(t)
                        ),
                    );
                    return ERROR;
                }
                if self.int_value(&args[1]) == ERROR || self.int_value(&args[2]) == ERROR {
                    return ERROR;
                }
                self.emit(Instr::MemSet {}, loc);
                void_ptr
            }
            _ => {
                if !self.arity(name, name_loc, args, 1) || self.int_value(&args[0]) == ERROR {
                    return ERROR;
                }
                self.emit(Instr::Exit {}, loc);
                VOID
            }
        }
    }

    /// `(T){…}`: initialises hidden frame words of the current function (a new object
    /// each time the expression runs, as an automatic object of the block) and pushes
    /// their address.
    pub(super) fn compound_literal(
        &mut self,
        tn: &crate::lang::ast::TypeName,
        init: &crate::lang::ast::Init,
        loc: Loc,
    ) -> TypeId {
        let Some(ty) = self.type_name_type(tn) else { return ERROR };
        if ty == VOID {
            self.error(loc, "a compound literal cannot have type void");
            return ERROR;
        }
        let words = self.types.words(ty);
        let Some(f) = self.fns.last_mut() else {
            self.error(loc, "compound literals at file scope are not supported: declare a named object");
            return ERROR;
        };
        let (depth, off) = (f.depth, f.next);
        f.reserve_to(off + words);
        self.local_init(ty, depth, off, init);
        self.emit(Instr::LdAddr { depth, off }, loc);
        ty
    }

    /// A file handle argument: an `int` from `fopen`, or a `FILE *` holding one.
    fn file_arg(&mut self, e: &Expr) -> bool {
        let t = self.rvalue(e);
        if t == ERROR {
            return false;
        }
        if !self.types.is_integral(t) && !self.types.is_pointer(t) {
            self.error(
                e.loc,
                format!("type mismatch: a file handle is an int or FILE *, found {}", self.types.name(t)),
            );
            return false;
        }
        true
    }

    /// Counts the conversions of a literal format string (`%%` excluded).
    fn format_conversions(fmt: &[u8]) -> usize {
        let mut n = 0;
        let mut i = 0;
        while i < fmt.len() {
            if fmt[i] == b'%' {
                if fmt.get(i + 1) == Some(&b'%') {
                    i += 2;
                    continue;
                }
                n += 1;
                if fmt[i + 1..].iter().take_while(|c| !c.is_ascii_alphabetic()).any(|&c| c == b'*') {
                    n += 1;
                }
            }
            i += 1;
        }
        n
    }

    /// The first conversion of a literal `printf` format that the C library here does
    /// not have (`%n`, which would write through its argument, or an unknown letter),
    /// as written (`%n`, `%-5y`).
    fn unsupported_conversion(fmt: &[u8]) -> Option<String> {
        let mut i = 0;
        while i < fmt.len() {
            if fmt[i] != b'%' {
                i += 1;
                continue;
            }
            let start = i;
            i += 1;
            while matches!(fmt.get(i), Some(b'-' | b'+' | b' ' | b'0' | b'#' | b'*' | b'.') | Some(b'0'..=b'9')) {
                i += 1;
            }
            while matches!(fmt.get(i), Some(b'l' | b'h' | b'L' | b'q' | b'j' | b'z' | b't')) {
                i += 1;
            }
            match fmt.get(i) {
                None => return None,
                Some(c) if b"%diuxXofFeEgGaAcsp".contains(c) => i += 1,
                Some(_) => {
                    let end = (i + 1..=fmt.len()).find(|&e| std::str::from_utf8(&fmt[start..e]).is_ok())?;
                    return Some(String::from_utf8_lossy(&fmt[start..end]).into_owned());
                }
            }
        }
        None
    }

    fn check_format(&mut self, fmt: &Expr, given: usize, name: &str) {
        if let ExprKind::StrLit(bytes) = &fmt.kind {
            if !name.ends_with("scanf") {
                if let Some(conv) = Self::unsupported_conversion(bytes) {
                    self.error(fmt.loc, format!("the `{name}` conversion `{conv}` is not supported"));
                    return;
                }
            }
            let want = Self::format_conversions(bytes);
            if want != given {
                self.error(
                    fmt.loc,
                    format!("wrong number of arguments: the `{name}` format has {want} conversion(s), {given} argument(s) given"),
                );
            }
        }
    }

    /// `printf`/`fprintf`/`scanf`/`fscanf`: an optional file handle, a format, then
    /// values to print (scalars) or destinations to read into (pointers).
    fn formatted_io(&mut self, name: &str, name_loc: Loc, args: &[Expr], loc: Loc) -> TypeId {
        let file = name.starts_with('f');
        let string = name == "sscanf";
        let reads = name.ends_with("scanf");
        let fixed = if file || string { 2 } else { 1 };
        if args.len() < fixed {
            self.error(name_loc, format!("wrong number of arguments: `{name}` needs at least {fixed}"));
            return ERROR;
        }
        if file && !self.file_arg(&args[0]) {
            return ERROR;
        }
        if string && !self.pointer_arg(&args[0], "the string to read") {
            return ERROR;
        }
        let fmt = &args[fixed - 1];
        if !self.pointer_arg(fmt, "the format") {
            return ERROR;
        }
        self.check_format(fmt, args.len() - fixed, name);
        for a in &args[fixed..] {
            if reads {
                if !self.pointer_arg(a, &format!("a `{name}` destination (use `&x`)")) {
                    return ERROR;
                }
                continue;
            }
            let t = self.rvalue(a);
            if t == ERROR {
                return ERROR;
            }
            if !self.types.is_scalar(t) {
                self.error(a.loc, format!("cannot print a value of type {}", self.types.name(t)));
                return ERROR;
            }
        }
        let argc = (args.len() - fixed) as u32;
        let instr = match (file, reads) {
            _ if string => Instr::Sscanf { argc },
            (false, false) => Instr::Printf { argc },
            (true, false) => Instr::Fprintf { argc },
            (false, true) => Instr::Scanf { argc },
            (true, true) => Instr::Fscanf { argc },
        };
        self.emit(instr, loc);
        INT
    }

    /// The MPI instruction's operations, for `<mpi.h>`'s library ([`crate::vcode::mpi_op`]):
    /// `(op, [is each operand a pointer], result)`.
    fn mpi_builtin(&mut self, name: &str, name_loc: Loc, args: &[Expr], loc: Loc) -> TypeId {
        use crate::vcode::mpi_op::*;
        let (op, operands, ret): (u8, &[bool], TypeId) = match name {
            "__cppe_mpi_rank" => (RANK, &[], INT),
            "__cppe_mpi_size" => (SIZE, &[], INT),
            "__cppe_mpi_wtime" => (WTIME, &[], DOUBLE),
            "__cppe_mpi_wtick" => (WTICK, &[], DOUBLE),
            // (buffer, words, destination, tag, context, flags)
            "__cppe_mpi_send" => (SEND, &[true, false, false, false, false, false], INT),
            // (patterns, count, block, information)
            "__cppe_mpi_match" => (MATCH, &[true, false, false, true], INT),
            // (count)
            "__cppe_mpi_context" => (CONTEXT, &[false], INT),
            // (buffer, count)
            _ => (TAKE, &[true, false], INT),
        };
        if !self.arity(name, name_loc, args, operands.len()) {
            return ERROR;
        }
        for (a, &pointer) in args.iter().zip(operands) {
            let ok = if pointer { self.pointer_arg(a, "a buffer") } else { self.int_value(a) != ERROR };
            if !ok {
                return ERROR;
            }
        }
        self.emit(Instr::Mpi { op }, loc);
        ret
    }

    fn builtin(&mut self, name: &str, name_loc: Loc, args: &[Expr], loc: Loc) -> TypeId {
        if let Some((f, double)) = crate::vcode::MathFn::of_c_name(name) {
            if !self.arity(name, name_loc, args, f.arity()) {
                return ERROR;
            }
            // C's math functions take and give double; `sqrtf` and the others named
            // with an `f` take and give float.
            let t = if double { DOUBLE } else { FLOAT };
            for a in args {
                if self.value_of_type(t, a) == ERROR {
                    return ERROR;
                }
            }
            self.emit(if double { Instr::MathD { f } } else { Instr::Math { f } }, loc);
            return t;
        }
        match name {
            "printf" | "fprintf" | "scanf" | "fscanf" | "sscanf" => self.formatted_io(name, name_loc, args, loc),
            "__cppe_mpi_rank" | "__cppe_mpi_size" | "__cppe_mpi_wtime" | "__cppe_mpi_wtick" | "__cppe_mpi_send"
            | "__cppe_mpi_match" | "__cppe_mpi_take" | "__cppe_mpi_context" => {
                self.mpi_builtin(name, name_loc, args, loc)
            }
            "getenv" => {
                if !self.arity(name, name_loc, args, 1) || !self.pointer_arg(&args[0], "the variable's name") {
                    return ERROR;
                }
                self.emit(Instr::Getenv {}, loc);
                self.types.intern(Type::Pointer(CHAR))
            }
            "feof" | "ferror" | "clearerr" | "ftell" | "rewind" | "fseek" | "ungetc" => {
                use crate::vcode::file_op::*;
                let (op, n, ret) = match name {
                    "feof" => (FEOF, 1, INT),
                    "ferror" => (FERROR, 1, INT),
                    "clearerr" => (CLEARERR, 1, VOID),
                    "ftell" => (FTELL, 1, LONG),
                    "rewind" => (REWIND, 1, VOID),
                    "fseek" => (FSEEK, 3, INT),
                    _ => (UNGETC, 2, INT),
                };
                if !self.arity(name, name_loc, args, n) {
                    return ERROR;
                }
                // The operands below the handle: ungetc's character, fseek's offset
                // and whence (the handle is pushed last: FILEOP pops it first).
                let ok = match name {
                    "ungetc" => self.int_value(&args[0]) != ERROR && self.file_arg(&args[1]),
                    "fseek" => {
                        self.value_of_type(LONG, &args[1]) != ERROR
                            && self.int_value(&args[2]) != ERROR
                            && self.file_arg(&args[0])
                    }
                    _ => self.file_arg(&args[0]),
                };
                if !ok {
                    return ERROR;
                }
                self.emit(Instr::FileOp { op }, loc);
                if ret == VOID {
                    self.emit(Instr::Pop { n: 1 }, loc);
                }
                ret
            }
            "fopen" => {
                if !self.arity(name, name_loc, args, 2) {
                    return ERROR;
                }
                if !self.pointer_arg(&args[0], "the file name") || !self.pointer_arg(&args[1], "the mode") {
                    return ERROR;
                }
                self.emit(Instr::Fopen {}, loc);
                // A failed open sets `errno` to ENOENT (2), when a header declared it.
                if let Some((Symbol::Var { depth: 0, off, .. }, _)) =
                    self.scopes.first().and_then(|s| s.names.get("__cppe_errno")).copied()
                {
                    self.emit(Instr::Dup {}, loc);
                    let j = self.emit(Instr::JumpIfTrue { target: 0 }, loc);
                    self.emit(Instr::LdAddr { depth: 0, off }, loc);
                    self.emit(Instr::PushI { v: 2 }, loc);
                    self.emit(Instr::Store { ty: Scalar::Int, keep: false }, loc);
                    let end = self.here();
                    self.patch(j, end);
                }
                // A `FILE *` (the handle is the pointer's value; see `convert_to` for `int`).
                self.types.intern(Type::Pointer(VOID))
            }
            "fclose" => {
                if !self.arity(name, name_loc, args, 1) || !self.file_arg(&args[0]) {
                    return ERROR;
                }
                self.emit(Instr::Fclose {}, loc);
                INT
            }
            "sprintf" | "snprintf" | "malloc" | "calloc" | "realloc" | "free" | "memcpy" | "memmove" | "memset"
            | "exit" => self.library(name, name_loc, args, loc),
            "vprintf" | "vfprintf" | "vsprintf" | "vsnprintf" => self.vformat(name, name_loc, args, loc),
            "__builtin_va_start" => {
                if !self.arity(name, name_loc, args, 0) {
                    return ERROR;
                }
                let Some((depth, Some(off))) = self.fns.last().map(|f| (f.depth, f.va_off)) else {
                    self.error(name_loc, "`va_start` is used in a function without `...`");
                    return ERROR;
                };
                self.emit(Instr::LdVal { depth, off }, loc);
                self.types.intern(Type::Pointer(CHAR))
            }
            "abs" => {
                if !self.arity(name, name_loc, args, 1) || self.int_value(&args[0]) == ERROR {
                    return ERROR;
                }
                self.emit(Instr::AbsI {}, loc);
                INT
            }
            "rand" | "vproc" | "pid" | "timeOn" | "timeOff" | "simTime" => {
                if !self.arity(name, name_loc, args, 0) {
                    return ERROR;
                }
                let (i, t) = match name {
                    "rand" => (Instr::Rand {}, FLOAT),
                    "vproc" => (Instr::Vproc {}, INT),
                    "pid" => (Instr::Pid {}, INT),
                    "simTime" => (Instr::SimTime {}, DOUBLE),
                    "timeOn" => (Instr::TimeOn {}, VOID),
                    _ => (Instr::TimeOff {}, VOID),
                };
                self.emit(i, loc);
                t
            }
            "srand" => {
                if !self.arity(name, name_loc, args, 1) || self.int_value(&args[0]) == ERROR {
                    return ERROR;
                }
                self.emit(Instr::Srand {}, loc);
                VOID
            }
            "delay" => {
                if !self.arity(name, name_loc, args, 1) {
                    return ERROR;
                }
                let t = self.rvalue(&args[0]);
                if t == ERROR {
                    return ERROR;
                }
                if !self.types.is_arith(t) {
                    self.error(
                        args[0].loc,
                        format!("type mismatch: `delay` takes a time, found {}", self.types.name(t)),
                    );
                    return ERROR;
                }
                self.emit(Instr::Delay {}, loc);
                VOID
            }
            "probe" => {
                if !self.arity(name, name_loc, args, 2) || self.int_value(&args[0]) == ERROR {
                    return ERROR;
                }
                if !self.pointer_arg(&args[1], "the probe label") {
                    return ERROR;
                }
                self.emit(Instr::Probe {}, loc);
                VOID
            }
            "mapping" => {
                // mapping("SPEC"): a probe that sets the mapping of later processes.
                if !self.arity(name, name_loc, args, 1) {
                    return ERROR;
                }
                let ExprKind::StrLit(spec) = &args[0].kind else {
                    self.error(args[0].loc, "`mapping` takes a string literal: a mapping name or string".to_string());
                    return ERROR;
                };
                let mut label = crate::vcode::MAPPING_PREFIX.as_bytes().to_vec();
                label.extend_from_slice(spec.strip_suffix(&[0]).unwrap_or(spec));
                self.emit(Instr::PushI { v: crate::vcode::MAPPING_PROBE_ID }, loc);
                let addr = self.string_literal(&label);
                self.emit(Instr::LdAddr { depth: 0, off: addr }, loc);
                self.emit(Instr::Probe {}, loc);
                VOID
            }
            "lock" | "unlock" => {
                if !self.arity(name, name_loc, args, 1) {
                    return ERROR;
                }
                let a = &args[0];
                let t = if self.is_lvalue_expr(a) { self.lvalue(a) } else { self.rvalue(a) };
                if t == ERROR {
                    return ERROR;
                }
                let ok = t == SPINLOCK || self.types.pointee(t) == Some(SPINLOCK);
                if !ok {
                    self.error(
                        a.loc,
                        format!("type mismatch: `{name}` takes a spinlock, found {}", self.types.name(t)),
                    );
                    return ERROR;
                }
                if t != SPINLOCK {
                    // A pointer to a spinlock: the address is the pointer's value.
                    self.emit(Instr::Dereference {}, loc);
                }
                self.emit(if name == "lock" { Instr::Lock {} } else { Instr::Unlock {} }, loc);
                VOID
            }
            _ => {
                self.error(name_loc, format!("undeclared function `{name}`"));
                ERROR
            }
        }
    }
}
