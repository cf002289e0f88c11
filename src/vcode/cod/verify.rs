//! The verifier: every index, type, scope and jump of a decoded module within bounds,
//! so the simulator may trust it.
use super::*;

/// Checks that a directed graph over `0..adj.len()` has no cycle and no path longer than
/// [`MAX_TYPE_NESTING`]; returns the nodes in post-order (successors first). Iterative,
/// so a hostile graph cannot exhaust the stack.
fn post_order(adj: &[Vec<usize>], what: &str) -> Result<Vec<usize>, CodError> {
    const NEW: u8 = 0;
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let n = adj.len();
    let mut state = vec![NEW; n];
    let mut height = vec![0usize; n];
    let mut order = Vec::with_capacity(n);
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if state[root] != NEW {
            continue;
        }
        state[root] = ON_PATH;
        stack.push((root, 0));
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if let Some(&w) = adj[v].get(*next) {
                *next += 1;
                match state[w] {
                    NEW => {
                        state[w] = ON_PATH;
                        stack.push((w, 0));
                    }
                    ON_PATH => return Err(invalid(format!("type {w} {what}"))),
                    _ => {}
                }
            } else {
                let h = 1 + adj[v].iter().map(|&w| height[w]).max().unwrap_or(0);
                if h > MAX_TYPE_NESTING {
                    return Err(invalid(format!("type {v} is nested {h} levels deep (limit {MAX_TYPE_NESTING})")));
                }
                height[v] = h;
                state[v] = DONE;
                order.push(v);
                stack.pop();
            }
        }
    }
    Ok(order)
}

/// Checks the type and struct tables; returns the size in words of every type.
fn verify_types(m: &Module) -> Result<Vec<u32>, CodError> {
    let nt = m.types.len();
    let ty_ok = |t: u32, whose: &dyn Fn() -> String| {
        if (t as usize) < nt {
            Ok(t as usize)
        } else {
            Err(invalid(format!("{} refers to type {t}, but there are {nt} types", whose())))
        }
    };
    // Containment edges (the value holds the other type) and naming edges (a type's
    // written form mentions the other type; a struct is named, so it stops there).
    let mut contains = vec![Vec::new(); nt];
    let mut names = vec![Vec::new(); nt];
    for (i, t) in m.types.iter().enumerate() {
        let whose = || format!("type {i}");
        match *t {
            Type::Pointer(p) => names[i].push(ty_ok(p, &whose)?),
            Type::Function { ret, ref params } | Type::VariadicFunction { ret, ref params } => {
                names[i].push(ty_ok(ret, &whose)?);
                for &p in params {
                    names[i].push(ty_ok(p, &whose)?);
                }
            }
            Type::Array { elem, .. } | Type::Channel(elem) => {
                let e = ty_ok(elem, &whose)?;
                contains[i].push(e);
                names[i].push(e);
            }
            Type::Struct(s) => {
                let st = m.structs.get(s as usize).ok_or_else(|| {
                    invalid(format!("type {i} refers to struct {s}, but there are {} structs", m.structs.len()))
                })?;
                for f in &st.fields {
                    contains[i].push(ty_ok(f.ty, &|| format!("field {} of struct {}", f.name, st.name))?);
                }
            }
            Type::Void
            | Type::Int
            | Type::Float
            | Type::Char
            | Type::Spinlock
            | Type::Bool
            | Type::UInt
            | Type::Short
            | Type::UShort
            | Type::SChar
            | Type::Double
            | Type::Long
            | Type::ULong => {}
        }
    }
    for st in &m.structs {
        for f in &st.fields {
            ty_ok(f.ty, &|| format!("field {} of struct {}", f.name, st.name))?;
        }
    }
    let order = post_order(&contains, "contains itself (through array elements, channel messages or struct fields)")?;
    post_order(&names, "refers to itself without a struct in between")?;
    let mut words = vec![0u32; nt];
    for v in order {
        words[v] = match m.types[v] {
            Type::Void => 0,
            Type::Array { elem, len } => words[elem as usize]
                .checked_mul(len)
                .ok_or_else(|| invalid(format!("type {v}: array of {len} elements is larger than 2^32 words")))?,
            Type::Struct(s) => m.structs[s as usize].words,
            _ => 1,
        };
    }
    for st in &m.structs {
        for f in &st.fields {
            let end = f.off.checked_add(words[f.ty as usize]);
            if end.is_none_or(|e| e > st.words) {
                return Err(invalid(format!(
                    "field {} of struct {} (offset {}, {} words) lies outside the struct's {} words",
                    f.name, st.name, f.off, words[f.ty as usize], st.words
                )));
            }
        }
    }
    Ok(words)
}

/// The ancestor of function `f` (or `f` itself) at static depth `depth`.
fn ancestor_at(funcs: &[FunctionInfo], f: usize, depth: u8) -> Option<usize> {
    let mut cur = f;
    // Depth falls by exactly one per parent step (checked before this is called), so the
    // walk ends within 256 steps; the bound makes that independent of the check.
    for _ in 0..=u8::MAX as usize {
        let info = funcs.get(cur)?;
        if info.depth == depth {
            return Some(cur);
        }
        if info.depth < depth {
            return None;
        }
        cur = info.parent? as usize;
    }
    None
}

fn fn_label(m: &Module, f: usize) -> String {
    match m.functions.get(f) {
        Some(info) => format!("function {f} ({})", info.name),
        None => format!("function {f}"),
    }
}

fn verify_functions(m: &Module, types: &[u32]) -> Result<(), CodError> {
    let code_len = m.code.len();
    let nf = m.functions.len();
    for (i, f) in m.functions.iter().enumerate() {
        let label = || fn_label(m, i);
        if !(f.entry < f.end && f.end as usize <= code_len) {
            return Err(invalid(format!(
                "{}: code range {}..{} is empty or outside the code (0..{code_len})",
                label(),
                f.entry,
                f.end
            )));
        }
        match f.parent {
            None if f.depth != 1 => {
                return Err(invalid(format!("{}: depth {} without an enclosing function", label(), f.depth)))
            }
            None if f.is_forall_body => {
                return Err(invalid(format!("{}: forall body without an enclosing function", label())))
            }
            None => {}
            Some(p) => {
                let parent = m
                    .functions
                    .get(p as usize)
                    .ok_or_else(|| invalid(format!("{}: parent {p} out of range", label())))?;
                if parent.depth.checked_add(1) != Some(f.depth) {
                    return Err(invalid(format!(
                        "{}: depth {} is not one more than its parent's ({})",
                        label(),
                        f.depth,
                        fn_label(m, p as usize)
                    )));
                }
            }
        }
        if f.ret_ty as usize >= types.len() {
            return Err(invalid(format!("{}: return type {} out of range", label(), f.ret_ty)));
        }
        if f.block as usize >= m.blocks.len() {
            return Err(invalid(format!("{}: body block {} out of range", label(), f.block)));
        }
        if f.param_words > f.frame_words {
            return Err(invalid(format!(
                "{}: {} parameter words exceed the frame of {} words",
                label(),
                f.param_words,
                f.frame_words
            )));
        }
        match m.code.get(f.end as usize - 1) {
            Some(Instr::Ret { .. } | Instr::Halt {} | Instr::Jump { .. }) => {}
            _ => {
                return Err(invalid(format!(
                    "{}: last instruction {} is not RET, HALT or JMP: control falls off the end",
                    label(),
                    f.end - 1
                )))
            }
        }
    }
    let mut by_entry: Vec<usize> = (0..nf).collect();
    by_entry.sort_by_key(|&i| (m.functions[i].entry, i));
    for w in by_entry.windows(2) {
        let (a, b) = (&m.functions[w[0]], &m.functions[w[1]]);
        if a.end > b.entry {
            return Err(invalid(format!(
                "{} ({}..{}) overlaps {} ({}..{})",
                fn_label(m, w[0]),
                a.entry,
                a.end,
                fn_label(m, w[1]),
                b.entry,
                b.end
            )));
        }
    }
    let main = m
        .functions
        .get(m.main as usize)
        .ok_or_else(|| invalid(format!("main is function {}, but there are {nf} functions", m.main)))?;
    if main.depth != 1 || main.is_forall_body {
        return Err(invalid(format!("main ({}) is not a top-level function", fn_label(m, m.main as usize))));
    }
    Ok(())
}

fn verify_code(m: &Module) -> Result<(), CodError> {
    let code_len = m.code.len();
    let funcs = &m.functions;
    let max_depth = funcs.iter().map(|f| f.depth).max().unwrap_or(0);
    // Function ranges are disjoint and inside the code (checked before).
    let mut owner: Vec<Option<usize>> = vec![None; code_len];
    for (i, f) in funcs.iter().enumerate() {
        for slot in &mut owner[f.entry as usize..f.end as usize] {
            *slot = Some(i);
        }
    }
    for (pc, (instr, &own)) in m.code.iter().zip(&owner).enumerate() {
        let at = || match own {
            Some(f) => format!("instruction {pc} ({instr}) in {}", fn_label(m, f)),
            None => format!("instruction {pc} ({instr})"),
        };
        if let Some(target) = instr.jump_target() {
            let (lo, hi) = own.map_or((0, code_len), |f| (funcs[f].entry as usize, funcs[f].end as usize));
            if !(lo..hi).contains(&(target as usize)) {
                return Err(invalid(format!("{}: jump target {target} outside {lo}..{hi}", at())));
            }
        }
        if let Some(callee) = instr.func_ref() {
            let c = funcs.get(callee as usize).ok_or_else(|| {
                invalid(format!("{}: function index {callee}, but there are {} functions", at(), funcs.len()))
            })?;
            let is_forall = matches!(instr, Instr::Forall { .. });
            // FORALLFORK starts an ordinary function, like FORK.
            if c.is_forall_body != is_forall {
                return Err(invalid(if is_forall {
                    format!("{}: {} is not a forall body", at(), fn_label(m, callee as usize))
                } else {
                    format!("{}: {} is a forall body", at(), fn_label(m, callee as usize))
                }));
            }
            if let Some(f) = own {
                // Static scoping: a forall body belongs to the function running FORALL; a
                // nested function is visible inside its parent and everything nested there.
                let visible = if is_forall {
                    c.parent == Some(f as u32)
                } else {
                    c.depth <= 1 || c.parent.map(|p| p as usize) == ancestor_at(funcs, f, c.depth - 1)
                };
                if !visible {
                    return Err(invalid(format!("{}: {} is not visible here", at(), fn_label(m, callee as usize))));
                }
            }
        }
        match *instr {
            Instr::LdAddr { depth, off } | Instr::LdVal { depth, off } | Instr::LdIndirect { depth, off } => {
                let limit = if depth == 0 {
                    Some(m.globals_words)
                } else if let Some(f) = own {
                    let frame = ancestor_at(funcs, f, depth)
                        .ok_or_else(|| invalid(format!("{}: no enclosing frame of depth {depth}", at())))?;
                    Some(funcs[frame].frame_words)
                } else if depth <= max_depth {
                    // Outside every function no frame is known: only the depth is checked.
                    None
                } else {
                    return Err(invalid(format!("{}: depth {depth} exceeds {max_depth}", at())));
                };
                if let Some(limit) = limit.filter(|&l| off >= l) {
                    return Err(invalid(format!("{}: offset {off} outside the area of {limit} words", at())));
                }
            }
            Instr::Ret { n } => {
                if let Some(f) = own.filter(|&f| funcs[f].ret_words != n) {
                    return Err(invalid(format!(
                        "{}: returns {n} words, the function returns {}",
                        at(),
                        funcs[f].ret_words
                    )));
                }
            }
            Instr::Halt {} if own.is_some_and(|f| f != m.main as usize) => {
                return Err(invalid(format!("{}: HALT outside main", at())));
            }
            _ => {}
        }
    }
    Ok(())
}

fn verify_lines(m: &Module) -> Result<(), CodError> {
    if m.lines.len() != m.code.len() {
        return Err(invalid(format!("{} line entries for {} instructions", m.lines.len(), m.code.len())));
    }
    let mut prev: Option<u32> = None;
    for &(line, pc) in &m.src2cod {
        if prev.is_some_and(|p| p >= line) {
            return Err(invalid(format!("src2cod is not sorted by line at line {line}")));
        }
        prev = Some(line);
        match m.lines.get(pc as usize) {
            Some(&l) if l == line => {}
            Some(&l) => {
                return Err(invalid(format!("src2cod: line {line} points at instruction {pc}, which is line {l}")))
            }
            None => return Err(invalid(format!("src2cod: line {line} points at instruction {pc}, outside the code"))),
        }
    }
    Ok(())
}

fn verify_scopes(m: &Module, types: &[u32]) -> Result<(), CodError> {
    let nf = m.functions.len();
    for (i, b) in m.blocks.iter().enumerate() {
        // Blocks are numbered as they open, so a parent always has a smaller number;
        // requiring it also rules out cycles in the parent chain.
        if b.parent.is_some_and(|p| p as usize >= i) {
            return Err(invalid(format!("block {i}: parent {:?} is not an earlier block", b.parent)));
        }
        if b.func.is_some_and(|f| f as usize >= nf) {
            return Err(invalid(format!("block {i}: function {:?} out of range", b.func)));
        }
        if b.first_line > b.last_line {
            return Err(invalid(format!("block {i}: lines {}..{} are reversed", b.first_line, b.last_line)));
        }
    }
    for (i, id) in m.idents.iter().enumerate() {
        let label = || format!("identifier {i} ({})", id.name);
        if id.ty as usize >= types.len() {
            return Err(invalid(format!("{}: type {} out of range", label(), id.ty)));
        }
        if id.block as usize >= m.blocks.len() {
            return Err(invalid(format!("{}: block {} out of range", label(), id.block)));
        }
        match id.kind {
            IdentKind::Function => {
                if id.off as usize >= nf {
                    return Err(invalid(format!("{}: function {} out of range", label(), id.off)));
                }
            }
            IdentKind::Channel => {}
            kind => {
                // The area holding the variable: the global area, or the frame of the
                // function at the identifier's depth enclosing its block.
                let (area, area_name) = if id.depth == 0 {
                    (m.globals_words, "the global area".to_string())
                } else {
                    let frame = m
                        .blocks
                        .get(id.block as usize)
                        .and_then(|b| b.func)
                        .and_then(|f| ancestor_at(&m.functions, f as usize, id.depth))
                        .ok_or_else(|| {
                            invalid(format!(
                                "{}: no function of depth {} encloses block {}",
                                label(),
                                id.depth,
                                id.block
                            ))
                        })?;
                    (m.functions[frame].frame_words, format!("the frame of {}", fn_label(m, frame)))
                };
                // A variable's storage lies wholly inside; a parameter only starts inside
                // (an array parameter is passed as one address word, whatever its type).
                let words = if kind == IdentKind::Var { types[id.ty as usize].max(1) } else { 1 };
                if id.off.checked_add(words).is_none_or(|end| end > area) {
                    return Err(invalid(format!(
                        "{}: words {}..{} outside {area_name} ({area} words)",
                        label(),
                        id.off,
                        u64::from(id.off) + u64::from(words),
                    )));
                }
            }
        }
    }
    Ok(())
}

fn verify_globals(m: &Module, types: &[u32]) -> Result<(), CodError> {
    for (i, c) in m.channels.iter().enumerate() {
        let label = || format!("channel {i} ({})", c.name);
        let elem_words = types
            .get(c.elem as usize)
            .ok_or_else(|| invalid(format!("{}: message type {} out of range", label(), c.elem)))?;
        if *elem_words != c.msg_words {
            return Err(invalid(format!(
                "{}: {} words per message, but its type has {elem_words}",
                label(),
                c.msg_words
            )));
        }
        let elements = c.dims.iter().try_fold(1u32, |acc, &d| acc.checked_mul(d));
        let end = elements.and_then(|n| c.base.checked_add(n));
        if end.is_none_or(|e| e > m.globals_words) {
            return Err(invalid(format!(
                "{}: elements from {} with dimensions {:?} exceed the {} global words",
                label(),
                c.base,
                c.dims,
                m.globals_words
            )));
        }
    }
    let mut addrs: Vec<u32> = m.global_init.iter().map(|&(a, _)| a).collect();
    addrs.sort_unstable();
    if let Some(&a) = addrs.last().filter(|&&a| a >= m.globals_words) {
        return Err(invalid(format!("global_init: address {a} outside the {} global words", m.globals_words)));
    }
    if let Some(w) = addrs.windows(2).find(|w| w[0] == w[1]) {
        return Err(invalid(format!("global_init: address {} initialised twice", w[0])));
    }
    // Each relocation names an initialised word, once, in ascending order.
    if let Some(w) = m.global_relocs.windows(2).find(|w| w[0] >= w[1]) {
        return Err(invalid(format!("global_relocs: {} then {} (not ascending)", w[0], w[1])));
    }
    if let Some(a) = m.global_relocs.iter().find(|a| addrs.binary_search(a).is_err()) {
        return Err(invalid(format!("global_relocs: address {a} has no initial word")));
    }
    for (which, arch) in [("arch", &m.arch), ("phyArch", &m.phy_arch)] {
        let Some(a) = arch else { continue };
        let ok = match a.kind {
            TopoKind::Hypercube => a.dims.len() == 1 && a.dims[0] <= 30,
            _ => {
                !a.dims.is_empty()
                    && a.dims.iter().all(|&d| d > 0)
                    && a.dims.iter().try_fold(1u32, |acc, &d| acc.checked_mul(d)).is_some()
            }
        };
        if !ok {
            return Err(invalid(format!("{which} {} {}: bad dimensions {:?}", a.kind.name(), a.name, a.dims)));
        }
    }
    Ok(())
}

/// Checks that a module is a program a correct compiler could have produced, so the
/// simulator and the debugger can index its tables without further checks.
///
/// Checked: one line per instruction; src2cod sorted by line, each entry pointing at an
/// instruction of that line; type references in range, no type containing itself
/// (through array elements, channel messages or struct fields) and no pointer/array chain
/// back to itself without a struct in between, nesting at most [`MAX_TYPE_NESTING`], struct
/// fields inside their struct; every function's code range non-empty, inside the code and
/// disjoint from the others, ending in RET, HALT or JMP (control cannot fall off the end);
/// function depth = parent's depth + 1 (1 for top-level), `main` a top-level function;
/// every jump target inside the jumping function; CALL/FORK/FORALL function indices in
/// range, FORALL naming a forall body whose parent is the current function, CALL/FORK
/// naming a non-body visible by static scoping; LDADDR/LDVal/LDIndirect depth at most the
/// current function's, offset inside that frame (or the global area for depth 0); RET
/// returning the function's `ret_words`; HALT only in main; identifier, block and channel
/// references in range, a variable's words inside the global area or the frame of the
/// function of its depth enclosing its block (a parameter's first word); block parents earlier blocks; channel elements inside the global
/// area with `msg_words` the size of the message type; global_init addresses inside the
/// global area and unique; architecture dimensions non-empty and positive (a hypercube:
/// one dimension k <= 30).
pub fn verify(m: &Module) -> Result<(), CodError> {
    if u32::try_from(m.code.len()).is_err() {
        return Err(invalid("more than 2^32 instructions"));
    }
    verify_lines(m)?;
    let types = verify_types(m)?;
    verify_functions(m, &types)?;
    verify_code(m)?;
    verify_scopes(m, &types)?;
    verify_globals(m, &types)
}
