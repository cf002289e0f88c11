//! Tokens of CPC as produced by the lexer and rewritten by the preprocessor.
//!
//! Identifiers and string literals are interned in an [`Interner`] so that a
//! [`TokenKind`] is `Copy`: macro expansion copies tokens freely and the parser
//! compares identifiers by number. Depends only on [`super::ast::Loc`].
use super::ast::Loc;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// An interned identifier (index into [`Interner`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u32);

/// An interned string literal or header name (index into [`Interner`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StrId(pub u32);

macro_rules! keywords {
    ($($var:ident = $text:literal,)*) => {
        /// The reserved words of CPC. `from`, `to` and `grouping` are not here: they are
        /// contextual and only special inside a `forall` header.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Keyword { $( #[doc = $text] $var, )* }

        impl Keyword {
            /// Every keyword, in declaration order (its index is its pre-interned [`Sym`]).
            pub const ALL: &'static [Keyword] = &[$(Keyword::$var,)*];

            /// The keyword as written in source.
            pub fn as_str(self) -> &'static str {
                match self { $(Keyword::$var => $text,)* }
            }

            /// The keyword spelled `text`, if any.
            pub fn from_bytes(text: &[u8]) -> Option<Keyword> {
                match text { $(t if t == $text.as_bytes() => Some(Keyword::$var),)* _ => None }
            }
        }
    };
}

keywords! {
    Int = "int",
    Float = "float",
    Char = "char",
    Void = "void",
    Struct = "struct",
    If = "if",
    Else = "else",
    While = "while",
    Do = "do",
    For = "for",
    Switch = "switch",
    Case = "case",
    Default = "default",
    Break = "break",
    Continue = "continue",
    Return = "return",
    Sizeof = "sizeof",
    Arch = "arch",
    PhyArch = "phyArch",
    Channel = "channel",
    Forall = "forall",
    Fork = "fork",
    Join = "join",
    Spinlock = "spinlock",
    Typedef = "typedef",
    Enum = "enum",
    Union = "union",
    Goto = "goto",
    Const = "const",
    Volatile = "volatile",
    Restrict = "restrict",
    Register = "register",
    Auto = "auto",
    Static = "static",
    Extern = "extern",
    Inline = "inline",
    Signed = "signed",
    Unsigned = "unsigned",
    Short = "short",
    Long = "long",
    Double = "double",
    Bool = "_Bool",
    Generic = "_Generic",
    Complex = "_Complex",
    Atomic = "_Atomic",
    Alignas = "_Alignas",
    Alignof = "_Alignof",
    StaticAssert = "_Static_assert",
    ThreadLocal = "_Thread_local",
    Noreturn = "_Noreturn",
}

impl Keyword {
    /// The [`Sym`] under which the keyword's spelling is pre-interned (so a macro may be
    /// named like a keyword, as in C).
    pub fn sym(self) -> Sym {
        Sym(self as u32)
    }
}

macro_rules! puncts {
    ($($var:ident = $text:literal,)*) => {
        /// C punctuators.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Punct { $( #[doc = $text] $var, )* }

        impl Punct {
            /// Every punctuator.
            pub const ALL: &'static [Punct] = &[$(Punct::$var,)*];

            /// The punctuator as written in source.
            pub fn as_str(self) -> &'static str {
                match self { $(Punct::$var => $text,)* }
            }
        }
    };
}

puncts! {
    LParen = "(",
    RParen = ")",
    LBracket = "[",
    RBracket = "]",
    LBrace = "{",
    RBrace = "}",
    Dot = ".",
    Arrow = "->",
    PlusPlus = "++",
    MinusMinus = "--",
    Amp = "&",
    Star = "*",
    Plus = "+",
    Minus = "-",
    Tilde = "~",
    Bang = "!",
    Slash = "/",
    Percent = "%",
    Shl = "<<",
    Shr = ">>",
    Lt = "<",
    Gt = ">",
    Le = "<=",
    Ge = ">=",
    EqEq = "==",
    Ne = "!=",
    Caret = "^",
    Pipe = "|",
    AmpAmp = "&&",
    PipePipe = "||",
    Question = "?",
    Colon = ":",
    Semi = ";",
    Comma = ",",
    Assign = "=",
    StarAssign = "*=",
    SlashAssign = "/=",
    PercentAssign = "%=",
    PlusAssign = "+=",
    MinusAssign = "-=",
    ShlAssign = "<<=",
    ShrAssign = ">>=",
    AmpAssign = "&=",
    CaretAssign = "^=",
    PipeAssign = "|=",
    Hash = "#",
    HashHash = "##",
}

/// What a token is; payloads are small so the whole kind is `Copy`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TokenKind {
    /// An identifier (including the contextual words `from`, `to`, `grouping`).
    Ident(Sym),
    Kw(Keyword),
    /// Integer literal; values above `i64::MAX` (up to `u64::MAX`) wrap, as in C.
    Int(i64),
    /// Integer literal of type `unsigned int`: a `u` suffix, or a hexadecimal or octal
    /// constant above `INT_MAX` that fits 32 bits (C11 6.4.4.1).
    UInt(u32),
    /// Integer literal of type `long`: an `l`/`ll` suffix, or a constant too large for
    /// `int` (and, when hexadecimal or octal, for `unsigned int`).
    Long(i64),
    /// Integer literal of type `unsigned long`: a `u` suffix with `l`/`ll`, a `u` suffix on
    /// a constant above `UINT_MAX`, or a hexadecimal or octal constant above `LONG_MAX`.
    ULong(u64),
    /// A floating constant with an `f` suffix (a `float`).
    Float(f64),
    /// A floating constant without suffix (a `double`).
    Double(f64),
    /// Character literal (one byte, escapes resolved).
    Char(u8),
    /// String literal (escapes resolved, no terminating NUL).
    Str(StrId),
    /// Wide string literal (`L"…"`, `u"…"`, `U"…"`): its characters as UTF-8, escapes
    /// resolved; the program sees an array of `wchar_t` (`int`) code points.
    WStr(StrId),
    /// `<file>` after `#include`; only the lexer's directive mode produces it.
    HeaderName(StrId),
    Punct(Punct),
    /// End of the token stream (only the preprocessor's output ends with it).
    Eof,
}

/// A token and where it came from (for macro-expanded tokens: the macro use).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Token {
    pub kind: TokenKind,
    pub loc: Loc,
}

/// A fast non-cryptographic hasher for short identifier keys (FNV-1a).
#[derive(Default)]
pub struct Fnv(u64);

/// A hash map keyed by short names, with [`Fnv`] (the compiler's maps are never iterated
/// into output, so the order does not matter).
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// Identifier and string-literal tables of one compilation.
///
/// Keywords are pre-interned first (so `Keyword::sym` is their index), followed by the
/// contextual and directive words listed in [`words`].
///
/// Identifiers are found through an open-addressing table of symbol numbers (linear
/// probing, at most half full) keyed by a word-at-a-time hash of the spelling: the
/// lexer interns every identifier it meets, so this lookup is on its hot path.
#[derive(Debug)]
pub struct Interner {
    /// Symbol number + 1 by hash slot (0: empty); the length is a power of two.
    slots: Vec<u32>,
    /// Hash of each symbol's spelling, by symbol number (compared before the bytes, and
    /// used to rebuild `slots` when it grows).
    hashes: Vec<u32>,
    names: Vec<Box<str>>,
    strs: Vec<Vec<u8>>,
}

/// Byte equality inlined for short words (identifiers are mostly a few bytes, where a
/// call to `memcmp` costs more than the comparison).
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Hash of an identifier's bytes, eight at a time (multiply-rotate, as FxHash); the
/// high half of the last product is the best-mixed, so that is what is kept.
fn word_hash(bytes: &[u8]) -> u32 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = 0u64;
        for (k, &b) in rest.iter().enumerate() {
            w |= u64::from(b) << (8 * k);
        }
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    (h >> 32) as u32
}

/// Pre-interned non-keyword words (contextual keywords and directive names).
pub mod words {
    use super::Sym;
    const BASE: u32 = super::Keyword::ALL.len() as u32;
    /// The spellings, in the order of the constants below.
    pub const TEXTS: &[&str] = &[
        "from", "to", "grouping", "define", "undef", "include", "ifdef", "ifndef", "endif", "elif", "main", "defined",
    ];
    /// `from` (forall header).
    pub const FROM: Sym = Sym(BASE);
    /// `to` (forall header).
    pub const TO: Sym = Sym(BASE + 1);
    /// `grouping` (forall header).
    pub const GROUPING: Sym = Sym(BASE + 2);
    /// `#define`.
    pub const DEFINE: Sym = Sym(BASE + 3);
    /// `#undef`.
    pub const UNDEF: Sym = Sym(BASE + 4);
    /// `#include`.
    pub const INCLUDE: Sym = Sym(BASE + 5);
    /// `#ifdef`.
    pub const IFDEF: Sym = Sym(BASE + 6);
    /// `#ifndef`.
    pub const IFNDEF: Sym = Sym(BASE + 7);
    /// `#endif`.
    pub const ENDIF: Sym = Sym(BASE + 8);
    /// `#elif`.
    pub const ELIF: Sym = Sym(BASE + 9);
    /// `main`.
    pub const MAIN: Sym = Sym(BASE + 10);
    /// `defined` (in `#if`).
    pub const DEFINED: Sym = Sym(BASE + 11);
}

impl Default for Interner {
    fn default() -> Self {
        Self::new()
    }
}

impl Interner {
    /// A table holding the keywords and [`words`].
    pub fn new() -> Self {
        let mut i = Interner { slots: vec![0; 64], hashes: Vec::new(), names: Vec::new(), strs: Vec::new() };
        for k in Keyword::ALL {
            i.intern(k.as_str());
        }
        for w in words::TEXTS {
            i.intern(w);
        }
        i
    }

    /// The symbol for `name`, adding it if new.
    pub fn intern(&mut self, name: &str) -> Sym {
        let h = word_hash(name.as_bytes());
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        // The table is never more than half full, so the probe ends at an empty slot.
        while let Some(&e) = self.slots.get(i) {
            if e == 0 {
                break;
            }
            let s = (e - 1) as usize;
            if self.hashes.get(s) == Some(&h)
                && self.names.get(s).is_some_and(|n| same_bytes(n.as_bytes(), name.as_bytes()))
            {
                return Sym(s as u32);
            }
            i = (i + 1) & mask;
        }
        let s = self.names.len() as u32;
        self.names.push(name.into());
        self.hashes.push(h);
        if let Some(slot) = self.slots.get_mut(i) {
            *slot = s + 1;
        }
        if self.names.len() * 2 > self.slots.len() {
            self.grow();
        }
        Sym(s)
    }

    /// Doubles the slot table and re-inserts every symbol by its stored hash.
    fn grow(&mut self) {
        let n = self.slots.len() * 2;
        let mut slots = vec![0u32; n];
        for (s, &h) in self.hashes.iter().enumerate() {
            let mut i = h as usize & (n - 1);
            while slots.get(i).is_some_and(|&e| e != 0) {
                i = (i + 1) & (n - 1);
            }
            if let Some(slot) = slots.get_mut(i) {
                *slot = s as u32 + 1;
            }
        }
        self.slots = slots;
    }

    /// The spelling of `s` (empty for a symbol from another table).
    pub fn name(&self, s: Sym) -> &str {
        self.names.get(s.0 as usize).map_or("", |n| n)
    }

    /// Number of symbols so far.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no symbols exist (never true: keywords are pre-interned).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Stores the bytes of a string literal.
    pub fn add_str(&mut self, bytes: Vec<u8>) -> StrId {
        self.strs.push(bytes);
        StrId((self.strs.len() - 1) as u32)
    }

    /// The bytes of a string literal (empty for an id from another table).
    pub fn str_bytes(&self, id: StrId) -> &[u8] {
        self.strs.get(id.0 as usize).map_or(&[], |v| v)
    }
}

impl TokenKind {
    /// How the token is described in "expected …, found …" messages.
    pub fn describe(&self, names: &Interner) -> String {
        match *self {
            TokenKind::Ident(s) => format!("identifier `{}`", names.name(s)),
            TokenKind::Kw(k) => format!("`{}`", k.as_str()),
            TokenKind::Int(v) => format!("number `{v}`"),
            TokenKind::UInt(v) => format!("number `{v}u`"),
            TokenKind::Long(v) => format!("number `{v}L`"),
            TokenKind::ULong(v) => format!("number `{v}UL`"),
            TokenKind::Float(v) => format!("number `{v}f`"),
            TokenKind::Double(v) => format!("number `{v}`"),
            TokenKind::Char(_) => "character literal".to_string(),
            TokenKind::Str(_) => "string literal".to_string(),
            TokenKind::WStr(_) => "wide string literal".to_string(),
            TokenKind::HeaderName(id) => format!("`<{}>`", String::from_utf8_lossy(names.str_bytes(id))),
            TokenKind::Punct(p) => format!("`{}`", p.as_str()),
            TokenKind::Eof => "end of file".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_are_preinterned_at_their_index() {
        let mut i = Interner::new();
        for k in Keyword::ALL {
            assert_eq!(i.intern(k.as_str()), k.sym(), "{}", k.as_str());
        }
        assert_eq!(i.intern("to"), words::TO);
        assert_eq!(i.intern("main"), words::MAIN);
        assert_eq!(i.name(words::GROUPING), "grouping");
    }

    #[test]
    fn many_names_survive_table_growth() {
        // 5000 distinct names force several doublings of the 64-slot table; each must
        // keep the number it got first (numbers are handed out in order after the
        // pre-interned words) and spell back exactly, including names that share long
        // prefixes and differ only past the first eight bytes.
        let mut i = Interner::new();
        let base = i.len() as u32;
        let names: Vec<String> = (0..5000).map(|k| format!("identifier_{k}")).collect();
        for (k, n) in names.iter().enumerate() {
            assert_eq!(i.intern(n), Sym(base + k as u32));
        }
        for (k, n) in names.iter().enumerate() {
            assert_eq!(i.intern(n), Sym(base + k as u32), "{n}");
            assert_eq!(i.name(Sym(base + k as u32)), n);
        }
        assert_eq!(i.len(), base as usize + 5000);
        assert_eq!(i.intern("int"), Keyword::Int.sym());
    }

    #[test]
    fn keyword_lookup_is_exact() {
        assert_eq!(Keyword::from_bytes(b"phyArch"), Some(Keyword::PhyArch));
        assert_eq!(Keyword::from_bytes(b"phyarch"), None);
        assert_eq!(Keyword::from_bytes(b"to"), None);
    }
}
