//! Statements: blocks and scopes, control flow, `switch`, and the CPC process statements
//! (`forall` bodies become nested functions; `fork` pushes its virtual processor, channel
//! addresses and arguments, then `FORK`).
use super::{FnCtx, Gen, Symbol, ERROR, INT, VOID};
use crate::lang::ast::{self, ExprKind, Loc, StmtKind};
use crate::lang::token::FastMap as HashMap;
use crate::vcode::{IdentKind, Instr, Scalar};

impl Gen<'_> {
    /// The statements of a function body or block, in a scope already pushed by the caller.
    /// Nested function definitions of this block are declared first so they may be called
    /// before their definition.
    pub(super) fn block_items(&mut self, b: &ast::Block) {
        let mut nested = Vec::new();
        for s in &b.stmts {
            if let StmtKind::Func(f) = &s.kind {
                // A block-scope prototype (`int helper(int);`) names the file-scope
                // function, a library function or a built-in (C11 6.2.2p5), not a nested
                // function of its own.
                if f.body.is_none() && (self.names_outer_function(&f.name) || !self.mentioned.contains(f.name.as_str()))
                {
                    continue;
                }
                if let Some(idx) = self.declare_signature(f) {
                    nested.push((idx, f));
                }
            }
        }
        for s in &b.stmts {
            if let StmtKind::Func(f) = &s.kind {
                if let Some((idx, _)) = nested.iter().find(|(_, g)| std::ptr::eq(*g, f)) {
                    if self.bodies.get(*idx as usize).is_some_and(|b| b.is_none()) {
                        self.function_body(*idx, f);
                    }
                }
                continue;
            }
            self.stmt(s);
        }
    }

    /// Whether `name` is a file-scope function, a library function or a built-in.
    fn names_outer_function(&self, name: &str) -> bool {
        let global = self.scopes.first().and_then(|s| s.names.get(name)).map(|(sym, _)| *sym);
        matches!(global, Some(Symbol::Func(_)))
            || super::expr::is_builtin(name)
            || super::library::names().any(|n| n == name)
    }

    fn scoped_block(&mut self, b: &ast::Block) {
        let saved = self.fns.last().map_or(0, |f| f.next);
        self.push_scope(b.loc);
        self.block_items(b);
        self.free_scope_vlas(b.end);
        self.pop_scope(b.end);
        // Sibling blocks reuse the frame words of this one.
        if let Some(f) = self.fns.last_mut() {
            f.next = saved;
        }
    }

    /// A statement used as a loop or `if` body gets its own scope when it declares things.
    fn sub_stmt(&mut self, s: &ast::Stmt) {
        match &s.kind {
            StmtKind::Decl(_) | StmtKind::Func(_) => {
                let b = ast::Block { stmts: vec![s.clone()], loc: s.loc, end: s.loc };
                self.scoped_block(&b);
            }
            _ => self.stmt(s),
        }
    }

    pub(super) fn stmt(&mut self, s: &ast::Stmt) {
        let loc = s.loc;
        match &s.kind {
            StmtKind::Empty => {}
            StmtKind::Expr(e) => self.expr_stmt(e),
            StmtKind::Decl(v) => self.local_var(v),
            StmtKind::Func(f) => {
                // Reached only for a definition outside `block_items` (e.g. an `if` body).
                let b = ast::Block { stmts: vec![ast::Stmt { kind: StmtKind::Func(f.clone()), loc }], loc, end: loc };
                self.scoped_block(&b);
            }
            StmtKind::Struct(sd) => self.struct_def(sd),
            StmtKind::Enum(e) => self.enum_def(e),
            StmtKind::Typedef(v) => self.typedef(v),
            StmtKind::StaticAssert(a) => self.static_assert(a),
            StmtKind::Label(name) => {
                let here = self.here();
                if let Some(f) = self.fns.last_mut() {
                    if let Some((_, prev)) = f.labels.get(name) {
                        let prev = *prev;
                        self.diags.push(
                            crate::lang::diag::Diagnostic::error(loc, format!("duplicate label `{name}`"))
                                .with_note(format!("previous definition at line {}:{}", prev.line, prev.col)),
                        );
                    } else {
                        f.labels.insert(name.clone(), (here, loc));
                    }
                }
            }
            StmtKind::Goto(name) => {
                let at = self.emit(Instr::Jump { target: 0 }, loc);
                if let Some(f) = self.fns.last_mut() {
                    f.gotos.push((name.clone(), at, loc));
                }
            }
            StmtKind::Block(b) => self.scoped_block(b),
            StmtKind::If { cond, then, els } => {
                self.condition(cond);
                let jf = self.emit(Instr::JumpIfFalse { target: 0 }, loc);
                self.sub_stmt(then);
                if let Some(e) = els {
                    let j = self.emit(Instr::Jump { target: 0 }, loc);
                    let here = self.here();
                    self.patch(jf, here);
                    self.sub_stmt(e);
                    let here = self.here();
                    self.patch(j, here);
                } else {
                    let here = self.here();
                    self.patch(jf, here);
                }
            }
            StmtKind::While { cond, body } => {
                let top = self.here();
                self.condition(cond);
                let jf = self.emit(Instr::JumpIfFalse { target: 0 }, cond.loc);
                self.enter_loop(true);
                self.sub_stmt(body);
                let (breaks, conts) = self.leave_loop();
                self.emit(Instr::Jump { target: top as u32 }, loc);
                let end = self.here();
                self.patch(jf, end);
                self.patch_all(&breaks, end);
                self.patch_all(&conts, top);
            }
            StmtKind::DoWhile { body, cond, cond_defs } => {
                let top = self.here();
                self.enter_loop(true);
                self.sub_stmt(body);
                let (breaks, conts) = self.leave_loop();
                let cont = self.here();
                for d in cond_defs {
                    self.stmt(d);
                }
                self.condition(cond);
                self.emit(Instr::JumpIfTrue { target: top as u32 }, cond.loc);
                let end = self.here();
                self.patch_all(&breaks, end);
                self.patch_all(&conts, cont);
            }
            StmtKind::For { init, cond, step, body } => {
                let saved = self.fns.last().map_or(0, |f| f.next);
                self.push_scope(loc);
                if let Some(i) = init {
                    self.stmt(i);
                }
                let top = self.here();
                let jf = cond.as_ref().map(|c| {
                    self.condition(c);
                    self.emit(Instr::JumpIfFalse { target: 0 }, c.loc)
                });
                self.enter_loop(true);
                self.sub_stmt(body);
                let (breaks, conts) = self.leave_loop();
                let cont = self.here();
                if let Some(st) = step {
                    self.expr_stmt(st);
                }
                self.emit(Instr::Jump { target: top as u32 }, loc);
                let end = self.here();
                if let Some(jf) = jf {
                    self.patch(jf, end);
                }
                self.patch_all(&breaks, end);
                self.patch_all(&conts, cont);
                self.pop_scope(loc);
                if let Some(f) = self.fns.last_mut() {
                    f.next = saved;
                }
            }
            StmtKind::Switch { expr, body } => self.switch(expr, body, loc),
            StmtKind::Case(e) => {
                let here = self.here();
                match self.switches.last_mut().and_then(|c| c.jumps.remove(&stmt_key(s))) {
                    Some(usize::MAX) => {}
                    Some(j) => self.patch(j, here),
                    None => self.error(e.loc, "`case` label outside a switch body"),
                }
            }
            StmtKind::Default => {
                let here = self.here();
                match self.switches.last_mut().filter(|c| c.default == Some(stmt_key(s))) {
                    Some(c) => c.default_at = Some(here),
                    None => self.error(loc, "`default` label outside a switch body"),
                }
            }
            StmtKind::Break => {
                let j = self.emit(Instr::Jump { target: 0 }, loc);
                match self.fns.last_mut().and_then(|f| f.breaks.last_mut()) {
                    Some(list) => list.push(j),
                    None => self.error(loc, "`break` outside a loop or switch"),
                }
            }
            StmtKind::Continue => {
                let j = self.emit(Instr::Jump { target: 0 }, loc);
                let target = self.fns.last_mut().and_then(|f| f.continues.iter_mut().rev().find_map(|c| c.as_mut()));
                match target {
                    Some(list) => list.push(j),
                    None => self.error(loc, "`continue` outside a loop"),
                }
            }
            StmtKind::Return(e) => self.return_stmt(e.as_ref(), loc),
            StmtKind::Forall { var, var_loc, lo, hi, grouping, body } => {
                self.forall(var, *var_loc, lo, hi, grouping.as_deref(), body, loc)
            }
            StmtKind::Fork { vproc, chans, call } => self.fork(vproc.as_deref(), chans, call, loc, false),
            StmtKind::Join => {
                self.emit(Instr::Join {}, loc);
            }
        }
    }

    fn enter_loop(&mut self, is_loop: bool) {
        if let Some(f) = self.fns.last_mut() {
            f.breaks.push(Vec::new());
            f.continues.push(if is_loop { Some(Vec::new()) } else { None });
        }
    }

    fn leave_loop(&mut self) -> (Vec<usize>, Vec<usize>) {
        match self.fns.last_mut() {
            Some(f) => (f.breaks.pop().unwrap_or_default(), f.continues.pop().flatten().unwrap_or_default()),
            None => (Vec::new(), Vec::new()),
        }
    }

    fn patch_all(&mut self, list: &[usize], target: usize) {
        for &j in list {
            self.patch(j, target);
        }
    }

    /// `switch`: the value is kept in a hidden frame word and compared with each label.
    fn switch(&mut self, e: &ast::Expr, body: &ast::Block, loc: Loc) {
        let t = self.rvalue(e);
        if t != ERROR && !self.types.is_integral(t) {
            self.error(e.loc, format!("switch value must be an integer, found {}", self.types.name(t)));
        }
        let (depth, off) = self.temp();
        self.emit(Instr::LdAddr { depth, off }, loc);
        self.emit(Instr::Swap {}, loc);
        self.emit(Instr::Store { ty: crate::vcode::Scalar::Int, keep: false }, loc);
        // Dispatch: one compare-and-jump per case label of the body, at any depth (a
        // label inside a nested block or loop, as in Duff's device; not one of a nested
        // switch), in source order. Each jump is patched when its label is compiled.
        let mut cases: Vec<&ast::Stmt> = Vec::new();
        collect_cases(&body.stmts, &mut cases);
        let mut ctx = SwitchCtx::default();
        // Each value's first label, for "duplicate case value" (a map: a switch may have
        // tens of thousands of cases, and compile time stays linear in them).
        let mut values: std::collections::HashMap<i64, Loc> = std::collections::HashMap::new();
        for s in cases {
            match &s.kind {
                StmtKind::Case(ce) => {
                    let Some(v) = self.const_int(ce) else {
                        self.error(ce.loc, "case label must be a constant integer expression");
                        ctx.jumps.insert(stmt_key(s), usize::MAX);
                        continue;
                    };
                    if let Some(&prev) = values.get(&v) {
                        self.push_diag(
                            crate::lang::diag::Diagnostic::error(ce.loc, format!("duplicate case value {v}"))
                                .with_note(format!("first used at line {}", prev.line)),
                        );
                        ctx.jumps.insert(stmt_key(s), usize::MAX);
                        continue;
                    }
                    values.insert(v, ce.loc);
                    self.emit(Instr::LdVal { depth, off }, ce.loc);
                    self.emit(Instr::PushI { v: v as i32 }, ce.loc);
                    self.emit(Instr::EqI {}, ce.loc);
                    let j = self.emit(Instr::JumpIfTrue { target: 0 }, ce.loc);
                    ctx.jumps.insert(stmt_key(s), j);
                }
                _ => {
                    if ctx.default.is_some() {
                        self.error(s.loc, "more than one `default` label in a switch");
                    }
                    ctx.default.get_or_insert(stmt_key(s));
                }
            }
        }
        let jdefault = self.emit(Instr::Jump { target: 0 }, loc);
        self.enter_loop(false);
        let saved = self.fns.last().map_or(0, |f| f.next);
        self.push_scope(body.loc);
        self.switches.push(ctx);
        self.block_items(body);
        self.free_scope_vlas(body.end);
        let default_at = self.switches.pop().and_then(|c| c.default_at);
        self.pop_scope(body.end);
        if let Some(f) = self.fns.last_mut() {
            f.next = saved;
        }
        let (breaks, _) = self.leave_loop();
        let end = self.here();
        self.patch(jdefault, default_at.unwrap_or(end));
        self.patch_all(&breaks, end);
    }

    fn return_stmt(&mut self, e: Option<&ast::Expr>, loc: Loc) {
        let Some(ctx) = self.fns.last() else { return };
        let (ret, is_main, is_forall) = (ctx.ret, ctx.is_main, ctx.is_forall_body);
        if is_forall {
            self.error(loc, "`return` inside a forall body (the body is a process of its own)");
            return;
        }
        match e {
            Some(e) => {
                if ret == VOID {
                    self.error(e.loc, "a void function cannot return a value");
                    return;
                }
                let t = self.value_of_type(ret, e);
                if is_main {
                    if t == INT {
                        self.emit(Instr::Status {}, loc);
                    } else if t != ERROR {
                        self.emit(Instr::Pop { n: self.types.words(ret) }, loc);
                    }
                    self.emit(Instr::Halt {}, loc);
                } else {
                    // The value is on the stack: the arrays it was read from can go.
                    self.free_vlas(loc);
                    let n = self.types.words(ret);
                    self.emit(Instr::Ret { n }, loc);
                }
            }
            None => {
                if ret != VOID && ret != ERROR && !is_main {
                    self.error(loc, format!("this function returns {}: `return` needs a value", self.types.name(ret)));
                    return;
                }
                if is_main {
                    self.emit(Instr::Halt {}, loc);
                } else {
                    self.free_vlas(loc);
                    self.emit(Instr::Ret { n: 0 }, loc);
                }
            }
        }
    }

    /// Reports a forall index that is not a declared int variable.
    fn check_forall_index(&mut self, var: &str, var_loc: Loc) {
        match self.lookup(var) {
            Some(Symbol::Var { ty, .. }) if ty == INT => {}
            Some(Symbol::Var { ty, .. }) if ty == ERROR => {}
            Some(Symbol::Var { ty, .. }) => {
                let n = self.types.name(ty);
                self.error(var_loc, format!("forall index `{var}` must be an int variable, found {n}"));
            }
            Some(Symbol::Func(_) | Symbol::Type(_) | Symbol::Const(_)) => {
                self.error(var_loc, format!("forall index `{var}` is not a variable"))
            }
            None => self.undeclared(var_loc, "name", var),
        }
    }

    /// `forall (i from lo to hi [grouping g]) body`: the body is compiled as a nested
    /// function one static level down whose first frame word is the child's copy of `i`.
    /// A chain of foralls without grouping whose innermost body is one `fork` is the
    /// seed's three-part statement instead ([`Self::forall_fork`]).
    #[allow(clippy::too_many_arguments)]
    fn forall(
        &mut self,
        var: &str,
        var_loc: Loc,
        lo: &ast::Expr,
        hi: &ast::Expr,
        grouping: Option<&ast::Expr>,
        body: &ast::Stmt,
        loc: Loc,
    ) {
        if grouping.is_none() {
            let mut levels = vec![(var, var_loc, lo, hi)];
            let mut inner = body;
            loop {
                inner = single_stmt(inner);
                match &inner.kind {
                    StmtKind::Forall { var, var_loc, lo, hi, grouping: None, body } => {
                        levels.push((var.as_str(), *var_loc, lo.as_ref(), hi.as_ref()));
                        inner = body;
                    }
                    StmtKind::Fork { vproc, chans, call } => {
                        self.forall_fork(&levels, vproc.as_deref(), chans, call, inner.loc, loc);
                        return;
                    }
                    _ => break,
                }
            }
        }
        self.check_forall_index(var, var_loc);
        if let Some(g) = grouping {
            self.int_value(g);
        }
        self.int_value(lo);
        self.int_value(hi);
        let depth = self.cur_depth() + 1;
        if depth > 200 {
            self.error(loc, "forall nested too deeply");
            return;
        }
        let idx = self.new_forall_body(loc);
        let (code, lines) = self.spare.pop().unwrap_or_default();
        self.fns.push(FnCtx {
            index: idx,
            depth,
            code,
            lines,
            next: 0,
            high: 0,
            ret: VOID,
            is_main: false,
            is_forall_body: true,
            breaks: Vec::new(),
            continues: Vec::new(),
            va_off: None,
            labels: HashMap::default(),
            gotos: Vec::new(),
            vla_base: 0,
            vla_count: 0,
            vla_used: 0,
        });
        let block = self.push_scope(loc);
        self.declare_var(&crate::lang::ast::Name::from(var), INT, IdentKind::ForallIndex, var_loc);
        self.reserve_vlas(std::slice::from_ref(body));
        self.sub_stmt(body);
        self.free_vlas(loc);
        self.emit(Instr::Ret { n: 0 }, loc);
        self.pop_scope(loc);
        let name = format!("forall@{}", loc.line);
        self.finish_function(idx, &name, block, 1, VOID, loc, true);
        self.emit(Instr::Forall { func: idx, grouping: grouping.is_some() }, loc);
    }

    /// `forall (i from lo to hi) … forall (j …) fork [V; chans] f(args);` as seed 000
    /// ch. 6 reads it: one statement whose index bounds, virtual processor, channels and
    /// arguments the running process evaluates itself, in nested loops over fresh copies
    /// of the indices in its own frame, making each child with FORALLFORK (no process in
    /// between); FORALLWAIT then waits for all of them, as a forall does.
    fn forall_fork(
        &mut self,
        levels: &[(&str, Loc, &ast::Expr, &ast::Expr)],
        vproc: Option<&ast::Expr>,
        chans: &[ast::Expr],
        call: &ast::Expr,
        fork_loc: Loc,
        loc: Loc,
    ) {
        let saved = self.fns.last().map_or(0, |f| f.next);
        self.push_scope(loc);
        // Per level: the loop's top, its exit jump and the index's slot.
        let mut loops = Vec::with_capacity(levels.len());
        for &(var, var_loc, lo, hi) in levels {
            self.check_forall_index(var, var_loc);
            // The bounds see the indices of the levels outside this one only.
            let (id, io) = self.temp();
            self.emit(Instr::LdAddr { depth: id, off: io }, lo.loc);
            self.int_value(lo);
            self.emit(Instr::Store { ty: Scalar::Int, keep: false }, lo.loc);
            let (hd, ho) = self.temp();
            self.emit(Instr::LdAddr { depth: hd, off: ho }, hi.loc);
            self.int_value(hi);
            self.emit(Instr::Store { ty: Scalar::Int, keep: false }, hi.loc);
            self.push_scope(var_loc);
            let sym = Symbol::Var { ty: INT, depth: id, off: io, kind: IdentKind::ForallIndex };
            if self.declare(&crate::lang::ast::Name::from(var), sym, var_loc) {
                self.record_ident(var, IdentKind::ForallIndex, INT, id, io, var_loc);
            }
            let top = self.here();
            self.emit(Instr::LdVal { depth: id, off: io }, loc);
            self.emit(Instr::LdVal { depth: hd, off: ho }, loc);
            self.emit(Instr::LeI {}, loc);
            let exit = self.emit(Instr::JumpIfFalse { target: 0 }, loc);
            loops.push((top, exit, id, io));
        }
        self.fork(vproc, chans, call, fork_loc, true);
        for &(top, exit, id, io) in loops.iter().rev() {
            self.emit(Instr::LdAddr { depth: id, off: io }, loc);
            self.emit(Instr::IncDec { ty: Scalar::Int, delta: 1, pre: true }, loc);
            self.emit(Instr::Pop { n: 1 }, loc);
            self.emit(Instr::Jump { target: top as u32 }, loc);
            let end = self.here();
            self.patch(exit, end);
            self.pop_scope(loc);
        }
        self.emit(Instr::ForallWait {}, loc);
        self.pop_scope(loc);
        if let Some(f) = self.fns.last_mut() {
            f.next = saved;
        }
    }

    /// `fork [v; ch…] f(args);` (FORALLFORK when `in_forall`: one process of
    /// [`Self::forall_fork`]).
    fn fork(&mut self, vproc: Option<&ast::Expr>, chans: &[ast::Expr], call: &ast::Expr, loc: Loc, in_forall: bool) {
        let ExprKind::Call { name, name_loc, args } = &call.kind else {
            self.error(call.loc, "`fork` needs a function call (`fork f(args);`)");
            return;
        };
        let func = match self.lookup(name) {
            Some(Symbol::Func(f)) => f,
            Some(Symbol::Var { .. } | Symbol::Type(_) | Symbol::Const(_)) => {
                self.error(*name_loc, format!("`{name}` is not a function"));
                return;
            }
            None if super::expr::is_builtin(name) => {
                self.error(*name_loc, format!("cannot fork the built-in `{name}`: fork a function of the program"));
                return;
            }
            None => {
                self.undeclared(*name_loc, "function", name);
                return;
            }
        };
        if self.sigs.get(func as usize).is_some_and(|s| s.variadic) {
            self.error(
                *name_loc,
                format!("cannot fork `{name}`: its `...` arguments live in the forking process's frame"),
            );
            return;
        }
        if let Some(v) = vproc {
            self.int_value(v);
        }
        for c in chans {
            let t = self.lvalue(c);
            if t != ERROR && self.types.channel_elem(t).is_none() {
                self.error(c.loc, format!("a fork clause lists channels, found {}", self.types.name(t)));
            }
        }
        if !args.is_empty() {
            self.emit(Instr::Args {}, loc);
        }
        if self.call_args(func, name, *name_loc, args) {
            let (chans, vproc) = (chans.len() as u32, vproc.is_some());
            if in_forall {
                self.emit(Instr::ForallFork { func, chans, vproc }, loc);
            } else {
                self.emit(Instr::Fork { func, chans, vproc }, loc);
            }
        }
    }
}

/// The statement a body stands for: itself, or the one statement of a block that holds
/// nothing else (`{ fork … }` reads as `fork …`).
fn single_stmt(s: &ast::Stmt) -> &ast::Stmt {
    match &s.kind {
        StmtKind::Block(b) if b.stmts.len() == 1 => single_stmt(&b.stmts[0]),
        _ => s,
    }
}

/// The case labels of a switch being compiled: the dispatch jump of each `case`
/// statement (by its address; `usize::MAX` for one already reported), the `default`
/// statement, and where the latter's code starts.
#[derive(Default)]
pub(super) struct SwitchCtx {
    jumps: HashMap<usize, usize>,
    default: Option<usize>,
    default_at: Option<usize>,
}

fn stmt_key(s: &ast::Stmt) -> usize {
    s as *const ast::Stmt as usize
}

/// The `case` and `default` labels of a switch body in source order, at any depth except
/// inside a nested switch, function or forall body (those are not this switch's).
fn collect_cases<'s>(stmts: &'s [ast::Stmt], out: &mut Vec<&'s ast::Stmt>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Case(_) | StmtKind::Default => out.push(s),
            StmtKind::Block(b) => collect_cases(&b.stmts, out),
            StmtKind::If { then, els, .. } => {
                collect_cases(std::slice::from_ref(then), out);
                if let Some(e) = els {
                    collect_cases(std::slice::from_ref(e), out);
                }
            }
            StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } | StmtKind::For { body, .. } => {
                collect_cases(std::slice::from_ref(body), out)
            }
            _ => {}
        }
    }
}
