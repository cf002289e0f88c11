//! The directives: `#define` and `#undef`, `#include` (files and the built-in headers),
//! the conditionals' nesting, `#line`, `#error`, `#warning` and `#pragma`.
use super::*;

impl Pre<'_> {
    /// Handles one directive; the `#` has been consumed.
    pub(super) fn directive(&mut self, hash: Token) {
        let Some(frame) = self.files.last_mut() else { return };
        let start = frame.pos;
        let mut end = start;
        while frame.toks.get(end).is_some_and(|lx| !lx.line_start) {
            end += 1;
        }
        frame.pos = end;
        let toks: Vec<Token> = frame.toks[start..end].iter().map(|lx| lx.tok).collect();
        let spaces: Vec<bool> = frame.toks[start..end].iter().map(|lx| lx.space_before).collect();
        let active = frame.conds.last().is_none_or(|c| c.active);
        let Some(&head) = toks.first() else { return };
        let rest = &toks[1..];
        let name = match head.kind {
            TokenKind::Kw(Keyword::If) => "if",
            TokenKind::Kw(Keyword::Else) => "else",
            TokenKind::Ident(s) if s == words::IFDEF => "ifdef",
            TokenKind::Ident(s) if s == words::IFNDEF => "ifndef",
            TokenKind::Ident(s) if s == words::ENDIF => "endif",
            TokenKind::Ident(s) if s == words::ELIF => "elif",
            TokenKind::Ident(s) if s == words::DEFINE => "define",
            TokenKind::Ident(s) if s == words::UNDEF => "undef",
            TokenKind::Ident(s) if s == words::INCLUDE => "include",
            TokenKind::Ident(s) => match self.names.name(s) {
                "error" => "error",
                "warning" => "warning",
                "pragma" => "pragma",
                "line" => "line",
                _ => "",
            },
            _ => "",
        };
        match name {
            "ifdef" | "ifndef" => {
                let defined = match rest.first().and_then(|t| Self::word_sym(t.kind)) {
                    Some(s) => self.macro_of(s).is_some() || self.is_has_include(s),
                    None => {
                        if active {
                            self.error(head.loc, format!("expected a macro name after `#{name}`"));
                        }
                        false
                    }
                };
                if active {
                    self.extra_tokens(rest.get(1..).unwrap_or(&[]), name);
                }
                let taken = active && (defined == (name == "ifdef"));
                self.push_cond(head.loc, if name == "ifdef" { "ifdef" } else { "ifndef" }, active, taken);
            }
            "if" => {
                let taken = active && self.condition(head.loc, rest);
                self.push_cond(head.loc, "if", active, taken);
            }
            "else" | "elif" => {
                let Some(c) = self.files.last_mut().and_then(|f| f.conds.last_mut()) else {
                    self.error(head.loc, format!("`#{name}` without `#if`, `#ifdef` or `#ifndef`"));
                    return;
                };
                if c.in_else {
                    let loc = head.loc;
                    self.error(loc, format!("`#{name}` after `#else`"));
                    return;
                }
                if name == "elif" {
                    // Evaluated only when no branch before was taken (C11 6.10.1p6).
                    let evaluate = c.parent_active && !c.taken;
                    let v = evaluate && self.condition(head.loc, rest);
                    if let Some(c) = self.files.last_mut().and_then(|f| f.conds.last_mut()) {
                        c.active = v;
                        c.taken |= v;
                    }
                    return;
                }
                c.in_else = true;
                c.active = c.parent_active && !c.taken;
                c.taken = true;
                if c.parent_active {
                    self.extra_tokens(rest, "else");
                }
            }
            "endif" => match self.files.last_mut().and_then(|f| f.conds.pop()) {
                Some(c) if c.parent_active => self.extra_tokens(rest, "endif"),
                Some(_) => {}
                None => self.error(head.loc, "`#endif` without `#if`, `#ifdef` or `#ifndef`"),
            },
            _ if !active => {}
            "define" => self.define(head, rest, spaces.get(1..).unwrap_or(&[])),
            "undef" => match rest.first().and_then(|t| Self::word_sym(t.kind)) {
                Some(s) => {
                    if let Some(m) = self.macros.get_mut(s.0 as usize) {
                        *m = None;
                    }
                    self.extra_tokens(&rest[1..], "undef");
                }
                None => self.error(head.loc, "expected a macro name after `#undef`"),
            },
            "include" => self.include(head, rest),
            "error" | "warning" => {
                // The message as written (from the first token to the end of the line).
                let text = match rest.first() {
                    Some(t) => self
                        .sources
                        .line_text(t.loc.file, t.loc.line)
                        .and_then(|l| l.get((t.loc.col as usize).saturating_sub(1)..))
                        .map_or_else(String::new, |l| l.trim_end().to_string()),
                    None => String::new(),
                };
                let msg = format!("#{name} {text}");
                if name == "error" {
                    self.error(head.loc, msg);
                } else {
                    self.diags.push(Diagnostic::warning(head.loc, msg));
                }
            }
            // `#pragma once` is honoured; other pragmas (e.g. OpenMP's) are ignored, as C
            // allows for pragmas an implementation does not recognise.
            "pragma" => {
                let word = match rest.first().map(|t| t.kind) {
                    Some(TokenKind::Ident(s)) => self.names.name(s).to_string(),
                    _ => String::new(),
                };
                match word.as_str() {
                    "once" => {
                        if let Some(key) = self.files.last().and_then(|f| f.key.as_deref().map(once_key)) {
                            self.once.push(key);
                        }
                    }
                    "push_macro" | "pop_macro" => self.push_pop_macro(head.loc, &word, &rest[1..]),
                    _ => {}
                }
            }
            // `#line N "file"`: the next line is numbered N (in file "file") for
            // `__LINE__` and `__FILE__`; diagnostics keep the real file's positions.
            "line" => {
                let expanded;
                let rest = if matches!(rest.first().map(|t| t.kind), Some(TokenKind::Int(_))) {
                    rest
                } else {
                    expanded = self.expand_list(rest.iter().map(|&tok| PTok { tok, noexpand: false }).collect());
                    &expanded[..]
                };
                self.line_directive(head, rest);
            }
            _ => {
                let msg = match head.kind {
                    TokenKind::Ident(s) => format!("unknown preprocessor directive `#{}`", self.names.name(s)),
                    TokenKind::Kw(k) => format!("unknown preprocessor directive `#{}`", k.as_str()),
                    _ => "expected a preprocessor directive name after `#`".to_string(),
                };
                let loc = if matches!(head.kind, TokenKind::Ident(_) | TokenKind::Kw(_)) { head.loc } else { hash.loc };
                self.error(loc, msg);
            }
        }
    }

    /// Whether `#include "name"` (`angle`: `<name>`) would find a file.
    pub(super) fn include_exists(&mut self, file_name: &str, angle: bool) -> bool {
        if crate::lang::headers::builtin(file_name).is_some() {
            return true;
        }
        let mut dirs: Vec<PathBuf> = Vec::new();
        if !angle {
            dirs.extend(self.files.last().map(|f| f.dir.clone()));
        }
        dirs.extend(self.opts.include_dirs.iter().cloned());
        dirs.extend(self.opts.env_dirs.iter().cloned());
        dirs.iter().any(|d| {
            let path = normalize(&d.join(file_name));
            self.cache.contains_key(&path)
                || (self.loader.refused(&path).is_none() && self.loader.read(&path).is_some())
        })
    }

    /// `#line N ["file"]` with its operand expanded already.
    fn line_directive(&mut self, head: Token, rest: &[Token]) {
        match (rest.first().map(|t| t.kind), rest.get(1).map(|t| t.kind)) {
            (Some(TokenKind::Int(n)), name @ (None | Some(TokenKind::Str(_)))) if rest.len() <= 2 => {
                let name = match name {
                    Some(TokenKind::Str(id)) => Some(String::from_utf8_lossy(self.names.str_bytes(id)).into_owned()),
                    _ => self.line_marks.iter().rev().find(|m| m.0 == head.loc.file).and_then(|m| m.3.clone()),
                };
                self.line_marks.push((head.loc.file, head.loc.line, n, name));
            }
            _ => self.error(head.loc, "expected `#line` NUMBER or `#line` NUMBER \"FILE\""),
        }
    }

    /// The latest `#line` before `loc` in its file: its line, the number it gives the
    /// line after it, and the file name in force.
    pub(super) fn line_mark(&self, loc: Loc) -> Option<(u32, i64, &Option<String>)> {
        let mark = self.line_marks.iter().rev().find(|m| m.0 == loc.file && m.1 < loc.line)?;
        Some((mark.1, mark.2, &mark.3))
    }

    pub(super) fn push_cond(&mut self, loc: Loc, directive: &'static str, parent_active: bool, taken: bool) {
        if let Some(f) = self.files.last_mut() {
            f.conds.push(Cond { loc, directive, parent_active, active: taken, taken, in_else: false });
        }
    }

    pub(super) fn extra_tokens(&mut self, rest: &[Token], name: &str) {
        if let Some(t) = rest.first() {
            self.diags.push(Diagnostic::warning(t.loc, format!("extra tokens after `#{name}` are ignored")));
        }
    }

    pub(super) fn define(&mut self, head: Token, rest: &[Token], spaces: &[bool]) {
        let Some(name_tok) = rest.first() else {
            self.error(head.loc, "expected a macro name after `#define`");
            return;
        };
        let Some(name) = Self::word_sym(name_tok.kind) else {
            let msg = format!("macro name must be an identifier, found {}", name_tok.kind.describe(&self.names));
            self.error(name_tok.loc, msg);
            return;
        };
        let mut i = 1;
        let function_like =
            rest.get(1).is_some_and(|t| punct(t.kind, Punct::LParen)) && !spaces.get(1).copied().unwrap_or(true);
        let mut params = None;
        let mut variadic = false;
        if function_like {
            i = 2;
            let mut ps: Vec<Sym> = Vec::new();
            let mut expect_name = true;
            loop {
                let Some(t) = rest.get(i) else {
                    self.error(name_tok.loc, "unterminated parameter list in `#define`");
                    return;
                };
                i += 1;
                let ellipsis = (i..i + 2).all(|k| rest.get(k).is_some_and(|x| punct(x.kind, Punct::Dot)));
                match t.kind {
                    // `...` (three dots): the variable arguments, last.
                    TokenKind::Punct(Punct::Dot) if expect_name && !variadic && ellipsis => {
                        i += 2;
                        ps.push(self.names.intern("__VA_ARGS__"));
                        variadic = true;
                        expect_name = false;
                        if !rest.get(i).is_some_and(|x| punct(x.kind, Punct::RParen)) {
                            self.error(t.loc, "`...` must be the last parameter of a macro");
                            return;
                        }
                    }
                    TokenKind::Punct(Punct::RParen) if !expect_name || ps.is_empty() => break,
                    TokenKind::Punct(Punct::Comma) if !expect_name => expect_name = true,
                    TokenKind::Ident(s) if expect_name => {
                        if ps.contains(&s) {
                            let msg = format!("duplicate macro parameter `{}`", self.names.name(s));
                            self.error(t.loc, msg);
                            return;
                        }
                        ps.push(s);
                        expect_name = false;
                    }
                    _ => {
                        let msg =
                            format!("expected a parameter name in `#define`, found {}", t.kind.describe(&self.names));
                        self.error(t.loc, msg);
                        return;
                    }
                }
            }
            params = Some(ps);
        }
        let mut body = Vec::with_capacity(rest.len().saturating_sub(i));
        let toks = rest.get(i..).unwrap_or(&[]);
        let param_of = |t: Option<&Token>| match (t.map(|t| t.kind), &params) {
            (Some(TokenKind::Ident(s)), Some(ps)) => ps.iter().position(|p| *p == s),
            _ => None,
        };
        let mut k = 0;
        while let Some(t) = toks.get(k) {
            k += 1;
            if punct(t.kind, Punct::HashHash) {
                if body.is_empty() || k == toks.len() {
                    self.error(t.loc, "`##` cannot be at either end of a macro's replacement");
                    return;
                }
                body.push(BodyTok::Paste);
                continue;
            }
            if punct(t.kind, Punct::Hash) && params.is_some() {
                match param_of(toks.get(k)) {
                    Some(p) => {
                        body.push(BodyTok::Stringize(p));
                        k += 1;
                    }
                    None => {
                        self.error(t.loc, "`#` in a function-like macro must be followed by a parameter name");
                        return;
                    }
                }
                continue;
            }
            body.push(match param_of(Some(t)) {
                Some(p) => BodyTok::Param(p),
                None => BodyTok::Tok(t.kind),
            });
        }
        let m = Macro { params, variadic, body, dynamic: None };
        let idx = name.0 as usize;
        if self.macros.len() <= idx {
            self.macros.resize(idx + 1, None);
        }
        if let Some(Some(old)) = self.macros.get(idx) {
            if !old.same_as(&m) {
                let msg = format!("macro `{}` redefined", self.names.name(name));
                self.diags.push(Diagnostic::warning(name_tok.loc, msg));
            }
        }
        if let Some(slot) = self.macros.get_mut(idx) {
            *slot = Some(Rc::new(m));
        }
    }

    pub(super) fn include(&mut self, head: Token, rest: &[Token]) {
        let expanded;
        let rest = match rest.first().map(|t| t.kind) {
            Some(TokenKind::Ident(_)) => {
                expanded = self.expand_list(rest.iter().map(|&tok| PTok { tok, noexpand: false }).collect());
                &expanded[..]
            }
            _ => rest,
        };
        let Some(&name_tok) = rest.first() else {
            self.error(head.loc, "expected \"file\" or <file> after `#include`");
            return;
        };
        let (id, angle) = match name_tok.kind {
            TokenKind::Str(id) => (id, false),
            TokenKind::HeaderName(id) => (id, true),
            // A macro that gave `<`, the name's tokens and `>` (C11 6.10.2p4: spelt
            // together, without the spaces between them).
            TokenKind::Punct(Punct::Lt) if rest.iter().skip(1).any(|t| punct(t.kind, Punct::Gt)) => {
                let close = rest.iter().position(|t| punct(t.kind, Punct::Gt)).unwrap_or(rest.len());
                let name: String = rest[1..close].iter().map(|&t| self.spell(t)).collect();
                let id = self.names.add_str(name.into_bytes());
                return self.include_named(name_tok, id, true, &rest[close + 1..]);
            }
            k => {
                let msg = format!("expected \"file\" or <file> after `#include`, found {}", k.describe(&self.names));
                self.error(name_tok.loc, msg);
                return;
            }
        };
        self.include_named(name_tok, id, angle, &rest[1..]);
    }

    /// `#include` of file `id` (`angle`: `<name>`), named at `name_tok`; `after`: the
    /// directive's tokens after the name (none are expected).
    fn include_named(&mut self, name_tok: Token, id: crate::lang::token::StrId, angle: bool, after: &[Token]) {
        self.extra_tokens(after, "include");
        let file_name = String::from_utf8_lossy(self.names.str_bytes(id)).into_owned();
        let builtin = crate::lang::headers::builtin(&file_name);
        let mut dirs: Vec<PathBuf> = Vec::new();
        if !angle {
            dirs.extend(self.files.last().map(|f| f.dir.clone()));
        }
        dirs.extend(self.opts.include_dirs.iter().cloned());
        dirs.extend(self.opts.env_dirs.iter().cloned());
        let mut found = None;
        // `<stdio.h>` and the other standard headers are always the built-in ones; a
        // `"name"` include finds a file on the search path first.
        if let (true, Some(text)) = (angle, builtin) {
            found = Some(self.builtin_header(&file_name, text));
        }
        for d in dirs.iter().filter(|_| found.is_none()) {
            let path = normalize(&d.join(&file_name));
            if let Some(why) = self.loader.refused(&path) {
                self.error(name_tok.loc, format!("cannot include `{file_name}`: {why}"));
                return;
            }
            if let Some(toks) = self.cache.get(&path) {
                found = Some((path, Ok(Rc::clone(toks))));
                break;
            }
            if let Some(text) = self.loader.read(&path) {
                found = Some((path, Err(text)));
                break;
            }
        }
        if let (None, Some(text)) = (&found, builtin) {
            found = Some(self.builtin_header(&file_name, text));
        }
        let Some((path, content)) = found else {
            self.error(name_tok.loc, format!("cannot find include file `{file_name}`"));
            return;
        };
        if self.once.contains(&once_key(&path)) {
            return;
        }
        // A file may include itself (C11 6.10.2 sets no rule against it: a macro or guard
        // ends the recursion); one without an end stops at the depth limit, named.
        if self.files.len() >= MAX_INCLUDE_DEPTH && self.files.iter().any(|f| f.key.as_deref() == Some(path.as_path()))
        {
            self.error(
                name_tok.loc,
                format!(
                    "`#include` cycle: `{}` includes itself more than {MAX_INCLUDE_DEPTH} levels deep (an include guard ends it)",
                    path.display()
                ),
            );
            return;
        }
        if self.files.len() >= MAX_INCLUDE_DEPTH {
            self.error(name_tok.loc, format!("`#include` nested too deeply (limit {MAX_INCLUDE_DEPTH})"));
            return;
        }
        // A NUL byte is in no C source (a binary, `/proc/self/environ`): refused whole,
        // with nothing of it echoed.
        if let Err(text) = &content {
            if let Some(at) = text.find('\0') {
                let line = text[..at].matches('\n').count() + 1;
                self.error(
                    name_tok.loc,
                    format!(
                        "cannot include `{file_name}`: `{}` is not C source text (a NUL byte on its line {line})",
                        path.display()
                    ),
                );
                return;
            }
        }
        let toks = match content {
            Ok(toks) => toks,
            Err(text) => {
                let shown = if path.starts_with(BUILTIN_DIR) {
                    format!("<{}>", path.strip_prefix(BUILTIN_DIR).unwrap_or(&path).display())
                } else {
                    path.display().to_string()
                };
                let file = self.sources.add(shown, text);
                let text = self.sources.files.last().map(|f| f.text.as_str()).unwrap_or("");
                let (t, _) = lex(text, file, &mut self.names, self.diags);
                let t = Rc::new(t);
                self.cache.insert(path.clone(), Rc::clone(&t));
                t
            }
        };
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        self.files.push(Frame { toks, pos: 0, dir, key: Some(path), conds: Vec::new() });
    }

    /// A built-in header (see [`crate::lang::headers`]): its key, and its tokens when lexed
    /// already, else its text.
    pub(super) fn builtin_header(&self, name: &str, text: &str) -> (PathBuf, Result<Rc<Vec<Lexed>>, String>) {
        let path = Path::new(BUILTIN_DIR).join(name);
        match self.cache.get(&path) {
            Some(t) => (path, Ok(Rc::clone(t))),
            None => (path, Err(text.to_string())),
        }
    }

    /// `#pragma push_macro("NAME")` saves NAME's definition (or its absence) on a stack
    /// of its own; `#pragma pop_macro("NAME")` restores the last one saved (as gcc and
    /// MSVC do; a pop with nothing saved leaves the macro as it is).
    fn push_pop_macro(&mut self, loc: Loc, word: &str, args: &[Token]) {
        let name = match args {
            [open, name, close, ..] if punct(open.kind, Punct::LParen) && punct(close.kind, Punct::RParen) => {
                match name.kind {
                    TokenKind::Str(id) => String::from_utf8_lossy(self.names.str_bytes(id)).into_owned(),
                    _ => String::new(),
                }
            }
            _ => String::new(),
        };
        if name.is_empty() || args.len() > 3 {
            self.error(loc, format!("expected `#pragma {word}(\"NAME\")`"));
            return;
        }
        let sym = self.names.intern(&name);
        let i = sym.0 as usize;
        if word == "push_macro" {
            let current = self.macros.get(i).cloned().flatten();
            self.pushed_macros.entry(sym.0).or_default().push(current);
        } else if let Some(saved) = self.pushed_macros.get_mut(&sym.0).and_then(|v| v.pop()) {
            if self.macros.len() <= i {
                self.macros.resize(i + 1, None);
            }
            self.macros[i] = saved;
        }
    }
}

/// `path` with `.` components dropped and `dir/..` pairs removed, as written (no file
/// system lookup): `./x.h` and `../here/x.h` name the file `x.h` does, for `#pragma once`.
fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().collect()
}

/// The identity of a file for `#pragma once`: its canonical path where the file system
/// has one (a file reached through `../dir/x.h` or a link is the same file), else `path`.
fn once_key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
