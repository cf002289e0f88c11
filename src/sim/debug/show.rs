//! Finding a variable of a process and printing its value (seed 000 §4.1.4 "Show"):
//! the identifier and block tables of the program give each name's frame depth, offset,
//! type and scope; the process's display gives the frame base of each depth.
//!
//! Scope: a process at instruction `pc` sees the variables of the blocks of its function
//! that contain `pc`'s source line and were declared on or before it (parameters always),
//! then those of the enclosing functions as seen from the nested function's (or forall
//! statement's) line, then the globals; the innermost block wins. Depends on
//! [`crate::vcode::Module`] and on the [`ChannelView`] of the simulator.
use super::command::Span;
use crate::sim::ChannelView;
use crate::time::format_time;
use crate::vcode::{IdentInfo, IdentKind, Module, Type, TypeId, Word};

/// Most values `show` prints at once.
pub const MAX_VALUES: usize = 4096;

/// What `show` and `trace` need from a run.
pub trait Inspect {
    /// The word at `addr`.
    fn word_at(&self, addr: u32) -> Option<Word>;
    /// The channel element at `addr`.
    fn channel_at(&self, addr: u32) -> Option<ChannelView>;
}

impl Inspect for crate::sim::Simulator<'_> {
    fn word_at(&self, addr: u32) -> Option<Word> {
        self.word(addr).map(|(w, _)| w)
    }
    fn channel_at(&self, addr: u32) -> Option<ChannelView> {
        self.channel(addr)
    }
}

/// Why a variable cannot be shown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShowError {
    #[error("no variable `{name}` is visible in process {pid} ({function}, line {line})")]
    Unknown { name: String, pid: u32, function: String, line: u32 },
    #[error("`{name}` is not an array: a range needs an array")]
    NotArray { name: String },
    #[error("the range has {given} dimensions but `{name}` has {dims}")]
    TooManyDims { name: String, given: usize, dims: usize },
    #[error("index {index} is out of bounds for `{name}` (0..{len})")]
    OutOfBounds { name: String, index: u32, len: u32 },
    #[error("`{name}` is an array of unknown size: give a range")]
    Unsized { name: String },
    #[error("address {addr} is outside the memory pool")]
    BadAddress { addr: u64 },
    #[error("more than {MAX_VALUES} values: give a smaller range")]
    TooMany,
}

/// A variable found for a process: its name, type and the address of its first word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub name: String,
    pub ty: TypeId,
    pub addr: u32,
}

/// Nesting depth of block `b` (the global block is 0).
fn block_depth(m: &Module, mut b: u32) -> u32 {
    let mut d = 0;
    while let Some(p) = m.blocks.get(b as usize).and_then(|x| x.parent) {
        d += 1;
        b = p;
        if d > 10_000 {
            break;
        }
    }
    d
}

/// The identifier `name` seen from instruction `pc` (see the module docs).
pub fn lookup<'m>(m: &'m Module, name: &str, pc: u32) -> Option<&'m IdentInfo> {
    let usable = |i: &&IdentInfo| i.name == name && i.kind != IdentKind::Function;
    let mut func = m.function_at(pc);
    let mut at = m.line_of(pc);
    let mut hops = 0;
    while let Some(f) = func {
        let info = m.functions.get(f as usize)?;
        let best = m
            .idents
            .iter()
            .filter(usable)
            .filter(|i| i.depth > 0 && m.blocks.get(i.block as usize).is_some_and(|b| b.func == Some(f)))
            .filter(|i| {
                let in_scope = i.block == info.block
                    || m.blocks.get(i.block as usize).is_some_and(|b| b.first_line <= at && at <= b.last_line);
                let declared = i.line <= at || matches!(i.kind, IdentKind::Param | IdentKind::RefParam);
                in_scope && declared
            })
            .max_by_key(|i| (block_depth(m, i.block), i.line));
        if best.is_some() {
            return best;
        }
        at = info.line;
        func = info.parent;
        hops += 1;
        if hops > 10_000 {
            break;
        }
    }
    m.idents.iter().filter(usable).find(|i| i.depth == 0)
}

/// Finds `name` for a process at `pc` with `display`; a reference parameter resolves to
/// the object it refers to.
pub fn locate(
    m: &Module,
    run: &dyn Inspect,
    name: &str,
    pid: u32,
    pc: u32,
    display: &[u32],
) -> Result<Located, ShowError> {
    let unknown = || ShowError::Unknown {
        name: name.to_string(),
        pid,
        function: m.function_at(pc).and_then(|f| m.functions.get(f as usize)).map_or("?".into(), |f| f.name.clone()),
        line: m.line_of(pc),
    };
    let id = lookup(m, name, pc).ok_or_else(unknown)?;
    let base = if id.depth == 0 { 0 } else { *display.get(id.depth as usize).ok_or_else(unknown)? };
    let slot = base as u64 + id.off as u64;
    let slot = u32::try_from(slot).map_err(|_| ShowError::BadAddress { addr: slot })?;
    let addr = if id.kind == IdentKind::RefParam {
        match run.word_at(slot) {
            Some(Word::Int(a)) if a >= 0 => a as u32,
            _ => return Err(ShowError::BadAddress { addr: slot as u64 }),
        }
    } else {
        slot
    };
    Ok(Located { name: name.to_string(), ty: id.ty, addr })
}

fn int_of(w: Word) -> i64 {
    match w {
        Word::Int(i) => i as i64,
        Word::Char(c) => c as i64,
        Word::Float(f) => f as i64,
        Word::Double(d) => d as i64,
        Word::Long(l) => l,
    }
}

/// A word as `mem` prints it: `5`, `2.5` (floats always with a point), `'a'`.
pub fn word_text(w: Word) -> String {
    match w {
        Word::Int(i) => i.to_string(),
        Word::Float(f) => format!("{f:?}"),
        Word::Char(c) => format!("'{}'", escape(c)),
        Word::Double(d) => format!("{d:?}"),
        Word::Long(l) => l.to_string(),
    }
}

/// A byte as inside a C character or string literal.
fn escape(c: u8) -> String {
    match c {
        0 => "\\0".into(),
        b'\n' => "\\n".into(),
        b'\t' => "\\t".into(),
        b'\\' => "\\\\".into(),
        b'\'' => "\\'".into(),
        b'"' => "\\\"".into(),
        0x20..=0x7e => char::from(c).to_string(),
        _ => format!("\\x{c:02x}"),
    }
}

/// Renders values of a type from a word source, counting the values printed.
struct Render<'a> {
    m: &'a Module,
    run: &'a dyn Inspect,
    count: usize,
}

impl Render<'_> {
    fn word(&self, read: &dyn Fn(u32) -> Option<Word>, addr: u32) -> Result<Word, ShowError> {
        read(addr).ok_or(ShowError::BadAddress { addr: addr as u64 })
    }

    fn tick(&mut self) -> Result<(), ShowError> {
        self.count += 1;
        if self.count > MAX_VALUES {
            return Err(ShowError::TooMany);
        }
        Ok(())
    }

    /// The value of type `ty` at `addr`, on one line.
    fn value(&mut self, read: &dyn Fn(u32) -> Option<Word>, ty: TypeId, addr: u32) -> Result<String, ShowError> {
        let m = self.m;
        Ok(match m.types.get(ty as usize) {
            None | Some(Type::Void) => "void".into(),
            Some(Type::Int | Type::Bool | Type::Short | Type::UShort | Type::SChar | Type::Long) => {
                self.tick()?;
                int_of(self.word(read, addr)?).to_string()
            }
            Some(Type::Double) => {
                self.tick()?;
                match self.word(read, addr)? {
                    Word::Double(d) => format!("{d:?}"),
                    Word::Float(f) => format!("{:?}", f as f64),
                    w => format!("{:?}", int_of(w) as f64),
                }
            }
            Some(Type::UInt) => {
                self.tick()?;
                (int_of(self.word(read, addr)?) as u32).to_string()
            }
            Some(Type::ULong) => {
                self.tick()?;
                (int_of(self.word(read, addr)?) as u64).to_string()
            }
            Some(Type::Float) => {
                self.tick()?;
                match self.word(read, addr)? {
                    Word::Float(f) => format!("{f:?}"),
                    w => format!("{:?}", int_of(w) as f32),
                }
            }
            Some(Type::Char) => {
                self.tick()?;
                word_text(Word::Char(int_of(self.word(read, addr)?) as u8))
            }
            Some(Type::Spinlock) => {
                self.tick()?;
                match int_of(self.word(read, addr)?) {
                    0 => "free".into(),
                    h => format!("held by process {}", h - 1),
                }
            }
            Some(Type::Pointer(p)) if m.types.get(*p as usize).is_some_and(|t| t.function_parts().is_some()) => {
                self.tick()?;
                let v = int_of(self.word(read, addr)?);
                let f = usize::try_from(v - 1).ok().and_then(|i| m.functions.get(i));
                match f {
                    Some(f) => format!("-> function {}", f.name),
                    None if v == 0 => "NULL".into(),
                    None => format!("-> {v} (no function)"),
                }
            }
            Some(Type::Pointer(_)) => {
                self.tick()?;
                format!("-> {}", int_of(self.word(read, addr)?))
            }
            Some(Type::Array { elem, len }) => {
                let (elem, len) = (*elem, *len);
                if m.types.get(elem as usize) == Some(&Type::Char) {
                    return self.chars(read, addr, len);
                }
                let w = m.type_words(elem);
                let mut parts = Vec::new();
                for i in 0..len {
                    parts.push(self.value(read, elem, addr.saturating_add(i.saturating_mul(w)))?);
                }
                format!("{{ {} }}", parts.join(", "))
            }
            Some(Type::Struct(s)) => {
                let Some(info) = m.structs.get(*s as usize) else { return Ok("?".into()) };
                let mut parts = Vec::new();
                for f in &info.fields {
                    let v = self.value(read, f.ty, addr.saturating_add(f.off))?;
                    parts.push(format!("{} = {v}", f.name));
                }
                format!("{{ {} }}", parts.join(", "))
            }
            Some(Type::Channel(elem)) => self.channel(*elem, addr)?,
            Some(Type::Function { .. } | Type::VariadicFunction { .. }) => "<function>".into(),
        })
    }

    /// A char array as a string literal up to its first NUL.
    fn chars(&mut self, read: &dyn Fn(u32) -> Option<Word>, addr: u32, len: u32) -> Result<String, ShowError> {
        let mut s = String::from("\"");
        for i in 0..len {
            self.tick()?;
            let c = int_of(self.word(read, addr.saturating_add(i))?) as u8;
            if c == 0 {
                break;
            }
            s.push_str(&escape(c));
        }
        s.push('"');
        Ok(s)
    }

    /// A channel element: its owner and messages in the order `RECV` takes them.
    fn channel(&mut self, elem: TypeId, addr: u32) -> Result<String, ShowError> {
        let Some(c) = self.run.channel_at(addr) else { return Ok("(not a channel)".into()) };
        let mut msgs = Vec::new();
        for (arrival, words) in &c.queued {
            let read = |a: u32| words.get(a as usize).copied();
            let v = self.value(&read, elem, 0)?;
            msgs.push(format!("{v} (arrival {})", format_time(*arrival)));
        }
        for (sent, words) in &c.in_network {
            let read = |a: u32| words.get(a as usize).copied();
            let v = self.value(&read, elem, 0)?;
            msgs.push(format!("{v} (in the network, sent {})", format_time(*sent)));
        }
        let body = if msgs.is_empty() { "empty".to_string() } else { msgs.join(", ") };
        Ok(format!("(owner {}): {body}", c.owner))
    }
}

/// The lines `show` prints for a located variable, restricted to `range` (leading
/// dimensions). An array of arrays or of channels prints one line per innermost row.
pub fn show(m: &Module, run: &dyn Inspect, var: &Located, range: &[Span]) -> Result<Vec<String>, ShowError> {
    let mut r = Render { m, run, count: 0 };
    let mut out = Vec::new();
    let read = |a: u32| run.word_at(a);
    lines(&mut r, &read, &var.name, var.name.clone(), var.ty, var.addr, range, &mut out)?;
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn lines(
    r: &mut Render<'_>,
    read: &dyn Fn(u32) -> Option<Word>,
    name: &str,
    prefix: String,
    ty: TypeId,
    addr: u32,
    range: &[Span],
    out: &mut Vec<String>,
) -> Result<(), ShowError> {
    let m = r.m;
    let Some(&Type::Array { elem, len }) = m.types.get(ty as usize) else {
        if !range.is_empty() {
            return Err(ShowError::NotArray { name: name.to_string() });
        }
        let v = r.value(read, ty, addr)?;
        let sep = if matches!(m.types.get(ty as usize), Some(Type::Channel(_))) { " " } else { " = " };
        out.push(format!("{prefix}{sep}{v}"));
        return Ok(());
    };
    let dims = array_dims(m, ty);
    if range.len() > dims {
        return Err(ShowError::TooManyDims { name: name.to_string(), given: range.len(), dims });
    }
    let span = match range.first() {
        Some(&s) => {
            if len > 0 && s.hi >= len {
                return Err(ShowError::OutOfBounds { name: name.to_string(), index: s.hi, len });
            }
            Some(s)
        }
        None if len == 0 => return Err(ShowError::Unsized { name: name.to_string() }),
        None => None,
    };
    let (lo, hi) = span.map_or((0, len.saturating_sub(1)), |s| (s.lo, s.hi));
    let ew = m.type_words(elem);
    let at = |i: u32| addr.saturating_add(i.saturating_mul(ew));
    let rows = matches!(m.types.get(elem as usize), Some(Type::Array { .. } | Type::Channel(_)));
    if rows {
        for i in lo..=hi {
            lines(r, read, name, format!("{prefix}[{i}]"), elem, at(i), range.get(1..).unwrap_or(&[]), out)?;
        }
        return Ok(());
    }
    match span {
        None => {
            let v = r.value(read, ty, addr)?;
            out.push(format!("{prefix} = {v}"));
        }
        Some(s) if s.lo == s.hi => {
            let v = r.value(read, elem, at(s.lo))?;
            out.push(format!("{prefix}[{}] = {v}", s.lo));
        }
        Some(s) => {
            let mut parts = Vec::new();
            for i in s.lo..=s.hi {
                parts.push(r.value(read, elem, at(i))?);
            }
            out.push(format!("{prefix}[{}:{}] = {{ {} }}", s.lo, s.hi, parts.join(", ")));
        }
    }
    Ok(())
}

/// Number of array dimensions of `ty`.
fn array_dims(m: &Module, mut ty: TypeId) -> usize {
    let mut d = 0;
    while let Some(Type::Array { elem, .. }) = m.types.get(ty as usize) {
        d += 1;
        ty = *elem;
        if d > 64 {
            break;
        }
    }
    d
}

/// The words a variable of type `ty` occupies (at least 1, for `trace`).
pub fn words_of(m: &Module, ty: TypeId) -> u32 {
    m.type_words(ty).max(1)
}
