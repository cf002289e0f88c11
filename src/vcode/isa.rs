//! The vCode instruction set, declared once.
//!
//! vCode is the code of a stack machine (seed 000 §3.2.1). Every instruction kind is one
//! row of the `isa!` table below: opcode byte (append-only: a number, once released, is
//! never reused or renumbered), variant name, mnemonic, operands, default cost in time
//! units, and its [`Class`]: sequential work, or parallel overhead (process creation,
//! joining, message passing, locking). Sequential Execution Time is the sum of the costs of
//! the [`Class::Work`] instructions executed while time is on.
//!
//! From the table follow: the [`Instr`] enum, the operand-less [`Op`] kinds (used to index
//! cost tables), mnemonics, default costs, classes, the byte encoder/decoder used by the
//! `.cod` code section, and the listing's operand text.
//!
//! # Machine model (what every instruction means)
//!
//! * **Memory** is a flat array of typed words ([`crate::vcode::Word`]): `int`, `float`
//!   and `char` each take one word, pointers are `int` words holding an address, arrays
//!   and structs are contiguous runs of words. Every word has an owning physical
//!   processor. Globals live at addresses `0..globals_words` of the memory pool, owned by
//!   process 0's processor; the initial global image (string literals, initialised
//!   globals) is in the module.
//! * **Frames.** A function activation has a frame of `frame_words` words; parameters are
//!   its first words (in order), then locals (block scopes share the frame; each
//!   declaration has its own offset). Variables are addressed by `(depth, off)`: `depth`
//!   0 is the global area, depth `d >= 1` is the frame of the innermost active function
//!   of static nesting depth `d` (top-level functions have depth 1, a function defined in
//!   one of them depth 2, a `forall` body one more than its enclosing function). The
//!   runtime keeps a display; a callee or `forall` body sees the caller's frames for the
//!   depths below its own.
//! * **The working stack** holds words; "pop a, pop b" below means the top is popped
//!   first. Addresses on the stack are `int` words.
//! * Arithmetic is typed: `*I` instructions operate on 32-bit integers with wrapping, `*F`
//!   on IEEE binary32. A `char` word used as an operand of an `*I` instruction counts as
//!   its (unsigned, 0..=255) integer value. Comparisons push `int` 0 or 1.
//! * A process ends when it returns from its bottom frame (the function given to
//!   `FORK`, the `forall` body) or executes `HALT` (only `main`'s process does): it first
//!   waits for its unjoined forked children.
use serde::{Deserialize, Serialize};
use std::fmt;

/// Whether an instruction's cost counts as sequential work or parallel overhead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Class {
    /// Work the program would do on one processor too: counted in sequential time.
    Work,
    /// Process creation, joining, message passing, locking: not counted in sequential time.
    Overhead,
}

/// Math functions of `Math`: each pops one `float` (two for `Pow`) and pushes one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum MathFn {
    Sqrt = 0,
    Sin = 1,
    Cos = 2,
    Tan = 3,
    Exp = 4,
    Log = 5,
    Pow = 6,
    Fabs = 7,
    Floor = 8,
    Ceil = 9,
    Atan = 10,
    Atan2 = 11,
    Asin = 12,
    Acos = 13,
    Sinh = 14,
    Cosh = 15,
    Tanh = 16,
    Fmod = 17,
    Log10 = 18,
    Log2 = 19,
    Exp2 = 20,
    Round = 21,
    Trunc = 22,
    Hypot = 23,
    Fmin = 24,
    Fmax = 25,
    Cbrt = 26,
    // .cod 1.5
    Expm1 = 27,
    Log1p = 28,
    Asinh = 29,
    Acosh = 30,
    Atanh = 31,
    Erf = 32,
    Erfc = 33,
    Tgamma = 34,
    Lgamma = 35,
    /// Round to the nearest integer, ties to even (C's `rint` and `nearbyint` in the
    /// default rounding mode, the only one here).
    Rint = 36,
    Logb = 37,
    Copysign = 38,
    Fdim = 39,
    Remainder = 40,
    Nextafter = 41,
}

impl MathFn {
    pub const ALL: [MathFn; 42] = [
        MathFn::Sqrt,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tan,
        MathFn::Exp,
        MathFn::Log,
        MathFn::Pow,
        MathFn::Fabs,
        MathFn::Floor,
        MathFn::Ceil,
        MathFn::Atan,
        MathFn::Atan2,
        MathFn::Asin,
        MathFn::Acos,
        MathFn::Sinh,
        MathFn::Cosh,
        MathFn::Tanh,
        MathFn::Fmod,
        MathFn::Log10,
        MathFn::Log2,
        MathFn::Exp2,
        MathFn::Round,
        MathFn::Trunc,
        MathFn::Hypot,
        MathFn::Fmin,
        MathFn::Fmax,
        MathFn::Cbrt,
        MathFn::Expm1,
        MathFn::Log1p,
        MathFn::Asinh,
        MathFn::Acosh,
        MathFn::Atanh,
        MathFn::Erf,
        MathFn::Erfc,
        MathFn::Tgamma,
        MathFn::Lgamma,
        MathFn::Rint,
        MathFn::Logb,
        MathFn::Copysign,
        MathFn::Fdim,
        MathFn::Remainder,
        MathFn::Nextafter,
    ];
    /// The function C's `name` calls (for a double) or `namef` (for a float, `false`):
    /// `nearbyint` is `rint` here.
    pub fn of_c_name(name: &str) -> Option<(MathFn, bool)> {
        let find = |n: &str| match n {
            "nearbyint" => Some(MathFn::Rint),
            _ => MathFn::ALL.iter().copied().find(|m| m.name() == n),
        };
        match find(name) {
            Some(m) => Some((m, true)),
            None => name.strip_suffix('f').and_then(find).map(|m| (m, false)),
        }
    }

    /// The C name of the function.
    pub fn name(self) -> &'static str {
        match self {
            MathFn::Sqrt => "sqrt",
            MathFn::Sin => "sin",
            MathFn::Cos => "cos",
            MathFn::Tan => "tan",
            MathFn::Exp => "exp",
            MathFn::Log => "log",
            MathFn::Pow => "pow",
            MathFn::Fabs => "fabs",
            MathFn::Floor => "floor",
            MathFn::Ceil => "ceil",
            MathFn::Atan => "atan",
            MathFn::Atan2 => "atan2",
            MathFn::Asin => "asin",
            MathFn::Acos => "acos",
            MathFn::Sinh => "sinh",
            MathFn::Cosh => "cosh",
            MathFn::Tanh => "tanh",
            MathFn::Fmod => "fmod",
            MathFn::Log10 => "log10",
            MathFn::Log2 => "log2",
            MathFn::Exp2 => "exp2",
            MathFn::Round => "round",
            MathFn::Trunc => "trunc",
            MathFn::Hypot => "hypot",
            MathFn::Fmin => "fmin",
            MathFn::Fmax => "fmax",
            MathFn::Cbrt => "cbrt",
            MathFn::Expm1 => "expm1",
            MathFn::Log1p => "log1p",
            MathFn::Asinh => "asinh",
            MathFn::Acosh => "acosh",
            MathFn::Atanh => "atanh",
            MathFn::Erf => "erf",
            MathFn::Erfc => "erfc",
            MathFn::Tgamma => "tgamma",
            MathFn::Lgamma => "lgamma",
            MathFn::Rint => "rint",
            MathFn::Logb => "logb",
            MathFn::Copysign => "copysign",
            MathFn::Fdim => "fdim",
            MathFn::Remainder => "remainder",
            MathFn::Nextafter => "nextafter",
        }
    }
    /// Number of `float` arguments.
    pub fn arity(self) -> usize {
        if matches!(
            self,
            MathFn::Pow
                | MathFn::Atan2
                | MathFn::Fmod
                | MathFn::Hypot
                | MathFn::Fmin
                | MathFn::Fmax
                | MathFn::Copysign
                | MathFn::Fdim
                | MathFn::Remainder
                | MathFn::Nextafter
        ) {
            2
        } else {
            1
        }
    }
    pub fn from_u8(b: u8) -> Option<MathFn> {
        MathFn::ALL.get(b as usize).copied()
    }
}

/// Scalar type tag used by conversions and typed stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum Scalar {
    Int = 0,
    Float = 1,
    Char = 2,
    /// IEEE binary64 (`.cod` 1.3).
    Double = 3,
    /// 64-bit two's complement (`.cod` 1.3).
    Long = 4,
}

impl Scalar {
    pub fn from_u8(b: u8) -> Option<Scalar> {
        match b {
            0 => Some(Scalar::Int),
            1 => Some(Scalar::Float),
            2 => Some(Scalar::Char),
            3 => Some(Scalar::Double),
            4 => Some(Scalar::Long),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Int => "int",
            Scalar::Float => "float",
            Scalar::Char => "char",
            Scalar::Double => "double",
            Scalar::Long => "long",
        }
    }
}

/// Error from decoding an instruction stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("unknown opcode 0x{opcode:02x} at byte {at}")]
    UnknownOpcode { opcode: u8, at: usize },
    #[error("instruction at byte {at} is truncated")]
    Truncated { at: usize },
    #[error("bad operand value {value} for {mnemonic} at byte {at}")]
    BadOperand { mnemonic: &'static str, value: u32, at: usize },
}

/// Operand kinds and their fixed-width little-endian encodings.
trait Operand: Sized + Copy {
    fn put(self, out: &mut Vec<u8>);
    fn get(bytes: &[u8], at: &mut usize, start: usize, mnem: &'static str) -> Result<Self, DecodeError>;
    fn show(self, out: &mut String);
}

fn take<const N: usize>(bytes: &[u8], at: &mut usize, start: usize) -> Result<[u8; N], DecodeError> {
    let end = at.checked_add(N).ok_or(DecodeError::Truncated { at: start })?;
    let slice = bytes.get(*at..end).ok_or(DecodeError::Truncated { at: start })?;
    *at = end;
    let mut a = [0u8; N];
    a.copy_from_slice(slice);
    Ok(a)
}

impl Operand for i32 {
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(b: &[u8], at: &mut usize, s: usize, _: &'static str) -> Result<Self, DecodeError> {
        Ok(i32::from_le_bytes(take::<4>(b, at, s)?))
    }
    fn show(self, out: &mut String) {
        out.push_str(&self.to_string());
    }
}
impl Operand for u32 {
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(b: &[u8], at: &mut usize, s: usize, _: &'static str) -> Result<Self, DecodeError> {
        Ok(u32::from_le_bytes(take::<4>(b, at, s)?))
    }
    fn show(self, out: &mut String) {
        out.push_str(&self.to_string());
    }
}
impl Operand for u8 {
    fn put(self, out: &mut Vec<u8>) {
        out.push(self);
    }
    fn get(b: &[u8], at: &mut usize, s: usize, _: &'static str) -> Result<Self, DecodeError> {
        Ok(take::<1>(b, at, s)?[0])
    }
    fn show(self, out: &mut String) {
        out.push_str(&self.to_string());
    }
}
impl Operand for f32 {
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bits().to_le_bytes());
    }
    fn get(b: &[u8], at: &mut usize, s: usize, _: &'static str) -> Result<Self, DecodeError> {
        Ok(f32::from_bits(u32::from_le_bytes(take::<4>(b, at, s)?)))
    }
    fn show(self, out: &mut String) {
        out.push_str(&format!("{self:?}"));
    }
}
impl Operand for i64 {
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(b: &[u8], at: &mut usize, s: usize, _: &'static str) -> Result<Self, DecodeError> {
        Ok(i64::from_le_bytes(take::<8>(b, at, s)?))
    }
    fn show(self, out: &mut String) {
        out.push_str(&self.to_string());
    }
}
impl Operand for f64 {
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bits().to_le_bytes());
    }
    fn get(b: &[u8], at: &mut usize, s: usize, _: &'static str) -> Result<Self, DecodeError> {
        Ok(f64::from_bits(u64::from_le_bytes(take::<8>(b, at, s)?)))
    }
    fn show(self, out: &mut String) {
        out.push_str(&format!("{self:?}"));
    }
}
impl Operand for bool {
    fn put(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
    fn get(b: &[u8], at: &mut usize, s: usize, m: &'static str) -> Result<Self, DecodeError> {
        match take::<1>(b, at, s)?[0] {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(DecodeError::BadOperand { mnemonic: m, value: v as u32, at: s }),
        }
    }
    fn show(self, out: &mut String) {
        out.push_str(if self { "1" } else { "0" });
    }
}
impl Operand for MathFn {
    fn put(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
    fn get(b: &[u8], at: &mut usize, s: usize, m: &'static str) -> Result<Self, DecodeError> {
        let v = take::<1>(b, at, s)?[0];
        MathFn::from_u8(v).ok_or(DecodeError::BadOperand { mnemonic: m, value: v as u32, at: s })
    }
    fn show(self, out: &mut String) {
        out.push_str(self.name());
    }
}
impl Operand for Scalar {
    fn put(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
    fn get(b: &[u8], at: &mut usize, s: usize, m: &'static str) -> Result<Self, DecodeError> {
        let v = take::<1>(b, at, s)?[0];
        Scalar::from_u8(v).ok_or(DecodeError::BadOperand { mnemonic: m, value: v as u32, at: s })
    }
    fn show(self, out: &mut String) {
        out.push_str(self.name());
    }
}

macro_rules! isa {
    ($( $(#[$doc:meta])* $code:literal $name:ident $mnem:literal { $($f:ident : $t:ty),* } $cost:literal $class:ident; )*) => {
        /// One vCode instruction with its operands.
        #[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
        pub enum Instr {
            $( $(#[$doc])* $name { $($f: $t),* }, )*
        }

        /// An instruction kind without operands: the key of cost tables and statistics.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[repr(u8)]
        pub enum Op {
            $( $name = $code, )*
        }

        impl Op {
            /// Every instruction kind, in opcode order.
            pub const ALL: &'static [Op] = &[ $( Op::$name, )* ];
            /// Number of instruction kinds.
            pub const COUNT: usize = Op::ALL.len();
            /// The mnemonic printed in listings and accepted by `--cost OP=T`.
            pub fn mnemonic(self) -> &'static str {
                match self { $( Op::$name => $mnem, )* }
            }
            /// Default cost in time units.
            pub fn default_cost(self) -> u32 {
                match self { $( Op::$name => $cost, )* }
            }
            /// Sequential work or parallel overhead.
            pub fn class(self) -> Class {
                match self { $( Op::$name => Class::$class, )* }
            }
            /// The opcode byte.
            pub fn opcode(self) -> u8 { self as u8 }
            /// Looks an instruction kind up by opcode byte.
            pub fn from_opcode(b: u8) -> Option<Op> {
                match b { $( $code => Some(Op::$name), )* _ => None }
            }
            /// Looks an instruction kind up by mnemonic (case-insensitive).
            pub fn from_mnemonic(s: &str) -> Option<Op> {
                Op::ALL.iter().copied().find(|op| op.mnemonic().eq_ignore_ascii_case(s))
            }
            /// Names of the operands, for documentation.
            pub fn operand_names(self) -> &'static [&'static str] {
                match self { $( Op::$name => &[ $( stringify!($f) ),* ], )* }
            }
        }

        impl Instr {
            /// The instruction's kind.
            #[inline]
            pub fn op(&self) -> Op {
                match self { $( Instr::$name { .. } => Op::$name, )* }
            }
            /// Appends the byte encoding: opcode, then each operand little-endian.
            #[allow(unused_variables)]
            pub fn encode(&self, out: &mut Vec<u8>) {
                match *self {
                    $( Instr::$name { $($f),* } => {
                        out.push($code);
                        $( Operand::put($f, out); )*
                    } )*
                }
            }
            /// Decodes one instruction starting at `*at`, advancing `*at`.
            pub fn decode(bytes: &[u8], at: &mut usize) -> Result<Instr, DecodeError> {
                let start = *at;
                let code = *bytes.get(start).ok_or(DecodeError::Truncated { at: start })?;
                *at += 1;
                match code {
                    $( $code => Ok(Instr::$name { $( $f: <$t as Operand>::get(bytes, at, start, $mnem)? ),* }), )*
                    _ => Err(DecodeError::UnknownOpcode { opcode: code, at: start }),
                }
            }
            /// The operands as listing text (`a b c`).
            #[allow(unused_variables, unused_mut)]
            pub fn operands_text(&self) -> String {
                let mut s = String::new();
                match *self {
                    $( Instr::$name { $($f),* } => {
                        $( if !s.is_empty() { s.push(' '); } Operand::show($f, &mut s); )*
                    } )*
                }
                s
            }
        }
    };
}

isa! {
    // ---- constants and stack ----
    /// Does nothing.
    0x00 Nop "NOP" {} 1 Work;
    /// Push int `v`.
    0x01 PushI "PUSHI" { v: i32 } 1 Work;
    /// Push float `v`.
    0x02 PushF "PUSHF" { v: f32 } 1 Work;
    /// Push char `v`.
    0x03 PushC "PUSHC" { v: u8 } 1 Work;
    /// Pop and discard `n` words.
    0x04 Pop "POP" { n: u32 } 1 Work;
    /// Push a copy of the top word.
    0x05 Dup "DUP" {} 1 Work;
    /// Exchange the two top words.
    0x06 Swap "SWAP" {} 1 Work;

    // ---- variable access (seed 000 Table 1) ----
    /// Push the address of the variable at `(depth, off)`.
    0x10 LdAddr "LDADDR" { depth: u8, off: u32 } 1 Work;
    /// Load value of a variable onto stack: push the word at `(depth, off)`.
    0x11 LdVal "LDVal" { depth: u8, off: u32 } 2 Work;
    /// Load indirectly: the word at `(depth, off)` is an address (a reference parameter
    /// or pointer); push the word at that address.
    0x12 LdIndirect "LDIndirect" { depth: u8, off: u32 } 3 Work;
    /// Replace the address on top of the stack by the word it points to.
    0x13 Dereference "Dereference" {} 2 Work;
    /// Pop an address; push the `n` words starting there (struct values).
    0x14 LoadBlock "LoadBlock" { n: u32 } 2 Work;
    /// Pop a value, pop an address, store the value converted to `ty`; if `keep`, push the
    /// stored value back (assignment used as an expression).
    0x15 Store "STORE" { ty: Scalar, keep: bool } 2 Work;
    /// Pop a source address, pop a destination address, copy `n` words (struct assignment).
    0x16 CopyBlock "CopyBlock" { n: u32 } 3 Work;
    /// Pop an address, allocate a new block of `n` words owned by the current physical
    /// processor, copy the `n` words there, push the new block's address (struct results).
    0x17 CopyToNewBlock "CopyToNewBlock" { n: u32 } 5 Work;
    /// Pop `n` words, pop an address, store the words there (struct from the stack).
    0x18 StoreBlock "StoreBlock" { n: u32 } 3 Work;
    /// Pop an index, pop a base address; if `len > 0` check `0 <= index < len` (runtime
    /// error otherwise); push `base + index * size`.
    0x19 Index "INDEX" { size: u32, len: u32 } 2 Work;
    /// Pop an int `i`, pop an address `a`, push `a + i * size` (pointer arithmetic).
    0x1a AddrAdd "ADDRADD" { size: u32 } 1 Work;
    /// Pop the address of a scalar, add `delta` (int, or float when `ty` is float) and
    /// store; push the new value if `pre`, else the old one.
    0x1b IncDec "INCDEC" { ty: Scalar, delta: i32, pre: bool } 3 Work;

    // ---- integer arithmetic ----
    0x20 AddI "ADDI" {} 1 Work;
    0x21 SubI "SUBI" {} 1 Work;
    0x22 MulI "MULI" {} 2 Work;
    /// Division by zero is a runtime error; truncates toward zero.
    0x23 DivI "DIVI" {} 4 Work;
    /// Remainder by zero is a runtime error.
    0x24 ModI "MODI" {} 4 Work;
    0x25 NegI "NEGI" {} 1 Work;
    0x26 BitAnd "AND" {} 1 Work;
    0x27 BitOr "OR" {} 1 Work;
    0x28 BitXor "XOR" {} 1 Work;
    0x29 Shl "SHL" {} 1 Work;
    /// Arithmetic shift right.
    0x2a Shr "SHR" {} 1 Work;
    0x2b BitNot "NOT" {} 1 Work;
    /// Logical not: push 1 if the popped word is zero (int, float or char), else 0.
    0x2c LogNot "LNOT" {} 1 Work;
    0x2d EqI "EQI" {} 1 Work;
    0x2e NeI "NEI" {} 1 Work;
    0x2f LtI "LTI" {} 1 Work;
    0x30 LeI "LEI" {} 1 Work;
    0x31 GtI "GTI" {} 1 Work;
    0x32 GeI "GEI" {} 1 Work;
    /// Integer absolute value (wrapping).
    0x33 AbsI "ABSI" {} 1 Work;

    // ---- float arithmetic ----
    0x40 AddF "ADDF" {} 2 Work;
    0x41 SubF "SUBF" {} 2 Work;
    0x42 MulF "MULF" {} 3 Work;
    /// IEEE division (no error on zero).
    0x43 DivF "DIVF" {} 5 Work;
    0x44 NegF "NEGF" {} 1 Work;
    0x45 EqF "EQF" {} 2 Work;
    0x46 NeF "NEF" {} 2 Work;
    0x47 LtF "LTF" {} 2 Work;
    0x48 LeF "LEF" {} 2 Work;
    0x49 GtF "GTF" {} 2 Work;
    0x4a GeF "GEF" {} 2 Work;
    /// Convert the top word to `to` (int→float, float→int truncating toward zero and
    /// saturating, anything→char keeping the low 8 bits of the integer value).
    0x4b Convert "CONV" { to: Scalar } 1 Work;
    /// Pop the argument(s), push the float result of the math function.
    0x4c Math "MATH" { f: MathFn } 10 Work;

    // ---- control ----
    0x50 Jump "JMP" { target: u32 } 1 Work;
    /// Pop; jump if zero.
    0x51 JumpIfFalse "JPF" { target: u32 } 1 Work;
    /// Pop; jump if non-zero.
    0x52 JumpIfTrue "JPT" { target: u32 } 1 Work;
    /// Call function `func` (index in the function table); its `param_words` argument
    /// words are on the stack and become the first words of the new frame.
    0x53 Call "CALL" { func: u32 } 5 Work;
    /// Return: pop `n` result words, drop the frame, push the result words on the
    /// caller's stack. From a process's bottom frame, end the process.
    0x54 Ret "RET" { n: u32 } 3 Work;
    /// End of `main`: wait for unjoined forked children, then end the program.
    0x55 Halt "HALT" {} 1 Work;

    // ---- processes (overhead) ----
    /// Create a child process running function `func`. Stack (bottom to top): the virtual
    /// processor id if `vproc`, then `chans` channel element addresses (the child becomes
    /// their owner), then the `param_words` argument words. The parent continues.
    0x60 Fork "FORK" { func: u32, chans: u32, vproc: bool } 20 Overhead;
    /// Pop `hi`, pop `lo` (and first a group size `g` if `grouping`): create one child per
    /// index value (or per run of `g` consecutive values) running the body `func` (a
    /// function of depth one more than the current one whose first parameter is the
    /// index), and wait for all of them.
    0x61 Forall "FORALL" { func: u32, grouping: bool } 20 Overhead;
    /// Wait for one forked child to end.
    0x62 Join "JOIN" {} 5 Overhead;
    /// One process of a `forall … fork` statement (seed 000 ch. 6): as FORK, but the
    /// child counts as a forall child of the running process, which FORALLWAIT waits for.
    0x63 ForallFork "FORALLFORK" { func: u32, chans: u32, vproc: bool } 20 Overhead;
    /// Wait until every child made by FORALLFORK since the last FORALLWAIT has ended.
    0x64 ForallWait "FORALLWAIT" {} 5 Overhead;
    /// A marker before the function arguments of a FORK or FORALLFORK: with `cpss
    /// --fork-args child` their evaluation is the child's time, not the parent's. Not
    /// an instruction the machine runs: no cost, not counted.
    0x65 Args "ARGS" {} 0 Overhead;
    /// Pop an int: the program's exit status (`return N;` in `main`; it costs what the
    /// POP it stands for costs).
    0x66 Status "STATUS" {} 1 Work;

    // ---- channels (overhead) ----
    /// Pop `n` value words, pop a channel element address; send the message to the
    /// channel's owner (non-blocking).
    0x68 Send "SEND" { n: u32 } 10 Overhead;
    /// Pop a channel element address; block until a message is there; push its `n` words.
    /// Reading a channel owned by another process is a runtime error.
    0x69 Recv "RECV" { n: u32 } 10 Overhead;
    /// Pop the address of a spinlock; spin (state Spinning) until it is free, then take it.
    0x6a Lock "LOCK" {} 5 Overhead;
    /// Pop the address of a spinlock; release it.
    0x6b Unlock "UNLOCK" {} 5 Overhead;

    // ---- time and identity ----
    0x70 TimeOn "TIMEON" {} 0 Work;
    0x71 TimeOff "TIMEOFF" {} 0 Work;
    /// Pop a time (int or float units); sleep that long (state Delayed).
    0x72 Delay "DELAY" {} 1 Work;
    /// Pop the address of a label string, pop an int id; record a user event. With the id
    /// [`MAPPING_PROBE_ID`] (CPC's `mapping("SPEC")`) the label is `mapping: SPEC` and the
    /// processes created after it are placed by the mapping SPEC.
    0x73 Probe "PROBE" {} 1 Work;
    /// Push the virtual processor id of the process.
    0x74 Vproc "VPROC" {} 1 Work;
    /// Push the process id.
    0x75 Pid "PID" {} 1 Work;
    /// Push a float in [0,1) from the run's generator.
    0x76 Rand "RAND" {} 2 Work;
    /// Pop an int; reseed the run's generator.
    0x77 Srand "SRAND" {} 2 Work;
    /// Push the process's clock, in time units, as a double (CPC's `simTime()`).
    0x78 SimTime "SIMTIME" {} 1 Work;

    // ---- input and output (seed 000 Table 1) ----
    /// Pop `argc` argument words (the last argument on top), pop the address of the format
    /// string; write to standard output; push the number of bytes written (C's result).
    /// `%s` arguments are addresses of NUL-ended chars.
    0x80 Printf "PRINTF" { argc: u32 } 10 Work;
    /// As PRINTF, with a file handle below the format address (pushes the bytes written).
    0x81 Fprintf "FPRINTF" { argc: u32 } 10 Work;
    /// Pop `argc` destination addresses, pop the format address; read standard input;
    /// push the number of conversions assigned (or -1 at end of input).
    0x82 Scanf "SCANF" { argc: u32 } 10 Work;
    /// As SCANF, with a file handle below the format address.
    0x83 Fscanf "FSCANF" { argc: u32 } 10 Work;
    /// Pop the mode string address, pop the file name address; push a file handle (0 on
    /// failure, as C's NULL).
    0x84 Fopen "FOPEN" {} 10 Work;
    /// Pop a file handle; close it; push 0.
    0x85 Fclose "FCLOSE" {} 10 Work;
    /// `sprintf`/`snprintf`: pop `argc` argument words, the format address, a size (-1:
    /// unbounded) and the destination address; write at most size-1 chars and a NUL
    /// there; push the length the whole text has (C's result).
    0x86 Sprintf "SPRINTF" { argc: u32 } 10 Work;
    /// `sscanf` (.cod 1.5): pop `argc` destination addresses, pop the format address, pop
    /// the address of the input string; as SCANF, reading that string; push the number
    /// of conversions assigned (-1 when the string ends before the first).
    0x87 Sscanf "SSCANF" { argc: u32 } 10 Work;

    // ---- the C library's memory routines (.cod 1.3) ----
    /// Pop a word count n; push the address of n new zeroed words owned by the caller's
    /// processor (0, the null pointer, when n < 1 or the pool is full).
    0x88 Malloc "MALLOC" {} 5 Work;
    /// Pop an address returned by MALLOC or REALLOC (or 0: nothing); give its words back.
    0x89 Free "FREE" {} 5 Work;
    /// Pop a word count n, pop an address p (0 or from MALLOC); push the address of n
    /// words holding p's first min(n, old) words (p is freed). The cost is per word moved.
    0x8A Realloc "REALLOC" {} 1 Work;
    /// Pop n, pop a source and a destination address; copy n words as they are (overlap
    /// allowed, as memmove); push the destination. The cost is per word.
    0x8B MemCopy "MEMCOPY" {} 2 Work;
    /// Pop n, pop a byte value, pop a destination; set n words to it (0 sets every type's
    /// zero); push the destination. The cost is per word.
    0x8C MemSet "MEMSET" {} 1 Work;
    /// Pop a status; end the program (C's `exit`): status 0 as when `main` returns, any
    /// other value as a runtime error naming the status.
    0x8D Exit "EXIT" {} 1 Work;
    /// A stream operation of `<stdio.h>` (.cod 1.5), chosen by `op` ([`file_op`]): FEOF,
    /// FERROR, CLEARERR, FTELL and REWIND pop a file handle; FSEEK pops `whence`, a long
    /// offset and a handle; UNGETC pops a handle and a character. Each pushes C's result
    /// (an int; a long for FTELL).
    0x8E FileOp "FILEOP" { op: u8 } 5 Work;
    /// `getenv` (.cod 1.5): pop a name's address; push the address of its value in the
    /// run's environment (`cpss --env`), a string owned by the calling processor, or 0.
    0x8F Getenv "GETENV" {} 5 Work;

    // ---- unsigned int (.cod 1.3): +, -, *, &, |, ^, << and == are the int ones ----
    /// Pop b, pop a (as unsigned 32-bit); push a / b (division by zero is a runtime error).
    0x90 DivU "DIVU" {} 4 Work;
    /// Pop b, pop a (unsigned); push a % b.
    0x91 ModU "MODU" {} 4 Work;
    /// Pop b, pop a; push a >> b, shifting zeros in (a unsigned).
    0x92 ShrU "SHRU" {} 1 Work;
    /// Pop b, pop a (unsigned); push a < b.
    0x93 LtU "LTU" {} 1 Work;
    /// Pop b, pop a (unsigned); push a <= b.
    0x94 LeU "LEU" {} 1 Work;
    /// Pop b, pop a (unsigned); push a > b.
    0x95 GtU "GTU" {} 1 Work;
    /// Pop b, pop a (unsigned); push a >= b.
    0x96 GeU "GEU" {} 1 Work;
    /// Convert the top word, an unsigned int, to float.
    0x97 CvtUF "CVTUF" {} 1 Work;
    /// Convert the top word, a float, to unsigned int (truncating toward zero).
    0x98 CvtFU "CVTFU" {} 1 Work;
    /// `vprintf`: pop a `va_list` (the address of the argument words), pop the format
    /// address; print as PRINTF, taking as many words as the format converts.
    0x99 Vprintf "VPRINTF" {} 10 Work;
    /// `vfprintf`: as VPRINTF, with a file handle below the format address.
    0x9A Vfprintf "VFPRINTF" {} 10 Work;
    /// `vsprintf`/`vsnprintf`: as SPRINTF (destination, size), arguments from a `va_list`.
    0x9B Vsnprintf "VSNPRINTF" {} 10 Work;
    /// Call through a function pointer: pop the pointer (function index + 1; 0 is a
    /// runtime error), then as CALL.
    0x9C CallInd "CALLIND" {} 5 Work;
    /// Wrap the top word, an int, into `bits` bits, signed or not (conversion to
    /// `short`, `unsigned short`, `signed char`).
    0x9D Narrow "NARROW" { bits: u8, signed: bool } 1 Work;
    /// After loading a union member: a runtime error unless the word on top holds a `ty`
    /// value (or is a zeroed word): memory holds typed values, so a member cannot
    /// reinterpret another's bytes.
    0x9E CheckWord "CHECKWORD" { ty: Scalar } 0 Work;

    // ---- double (IEEE binary64, .cod 1.3): as the float ones, on double words ----
    /// Push a double constant.
    0xA0 PushD "PUSHD" { v: f64 } 1 Work;
    0xA1 AddD "ADDD" {} 2 Work;
    0xA2 SubD "SUBD" {} 2 Work;
    0xA3 MulD "MULD" {} 3 Work;
    0xA4 DivD "DIVD" {} 5 Work;
    0xA5 NegD "NEGD" {} 1 Work;
    0xA6 EqD "EQD" {} 2 Work;
    0xA7 NeD "NED" {} 2 Work;
    0xA8 LtD "LTD" {} 2 Work;
    0xA9 LeD "LED" {} 2 Work;
    0xAA GtD "GTD" {} 2 Work;
    0xAB GeD "GED" {} 2 Work;
    /// As MATH, in double precision (C's `sqrt`, `sin`, … of a double).
    0xAC MathD "MATHD" { f: MathFn } 10 Work;
    /// Convert the top word, an unsigned int, to double.
    0xAD CvtUD "CVTUD" {} 1 Work;
    /// Convert the top word, a double, to unsigned int (truncating toward zero).
    0xAE CvtDU "CVTDU" {} 1 Work;

    // ---- long / long long (64-bit, .cod 1.3): as the int ones, on long words ----
    /// Push a long constant.
    0xB0 PushL "PUSHL" { v: i64 } 1 Work;
    0xB1 AddL "ADDL" {} 1 Work;
    0xB2 SubL "SUBL" {} 1 Work;
    0xB3 MulL "MULL" {} 2 Work;
    /// Division by zero is a runtime error.
    0xB4 DivL "DIVL" {} 4 Work;
    0xB5 ModL "MODL" {} 4 Work;
    0xB6 NegL "NEGL" {} 1 Work;
    0xB7 AndL "ANDL" {} 1 Work;
    0xB8 OrL "ORL" {} 1 Work;
    0xB9 XorL "XORL" {} 1 Work;
    /// Pop b (an int count), pop a; push a << b.
    0xBA ShlL "SHLL" {} 1 Work;
    /// Pop b, pop a; push a >> b (arithmetic).
    0xBB ShrL "SHRL" {} 1 Work;
    0xBC EqL "EQL" {} 1 Work;
    0xBD NeL "NEL" {} 1 Work;
    0xBE LtL "LTL" {} 1 Work;
    0xBF LeL "LEL" {} 1 Work;
    0xC0 GtL "GTL" {} 1 Work;
    0xC1 GeL "GEL" {} 1 Work;
    /// Convert the top word, an unsigned int, to long (zero-extended).
    0xC2 CvtUL "CVTUL" {} 1 Work;

    // ---- unsigned long (.cod 1.4): the long ones but for these, on long words read as
    // 64 unsigned bits ----
    /// Pop b, pop a (unsigned); push a / b (division by zero is a runtime error).
    0xC3 DivUL "DIVUL" {} 4 Work;
    /// Pop b, pop a (unsigned); push a % b.
    0xC4 ModUL "MODUL" {} 4 Work;
    /// Pop b (an int count), pop a; push a >> b, shifting zeros in.
    0xC5 ShrUL "SHRUL" {} 1 Work;
    /// Pop b, pop a (unsigned); push a < b.
    0xC6 LtUL "LTUL" {} 1 Work;
    /// Pop b, pop a (unsigned); push a <= b.
    0xC7 LeUL "LEUL" {} 1 Work;
    /// Pop b, pop a (unsigned); push a > b.
    0xC8 GtUL "GTUL" {} 1 Work;
    /// Pop b, pop a (unsigned); push a >= b.
    0xC9 GeUL "GEUL" {} 1 Work;
    /// Convert the top word, an unsigned long, to double (rounded to nearest).
    0xCA CvtULD "CVTULD" {} 1 Work;
    /// Convert the top word, a double, to unsigned long (truncating toward zero).
    0xCB CvtDUL "CVTDUL" {} 1 Work;
    /// Convert the top word, an unsigned long, to float.
    0xCC CvtULF "CVTULF" {} 1 Work;
    /// Convert the top word, a float, to unsigned long (truncating toward zero).
    0xCD CvtFUL "CVTFUL" {} 1 Work;

    // ---- MPI (.cod 1.6) ----
    /// The message passing of `<mpi.h>` (its library is C built on these), chosen by
    /// `op` ([`mpi_op`]): RANK and SIZE push the world rank of the calling process and
    /// the number of ranks (`cpss --ranks`); WTIME and WTICK push seconds as a double
    /// (the clock, and one tick, at [`mpi_op::SECONDS_PER_UNIT`] per unit); SEND pops
    /// `flags`, a context, a tag, a destination rank, a word count and a buffer address,
    /// sends those words to the destination's mailbox (non-blocking) and pushes 0;
    /// MATCH pops the address of a 5-int information block, a `mode`, a pattern count
    /// `n` and the address of `n` patterns `(source, tag, context)` (source and tag -1:
    /// any), finds the earliest message in the caller's mailbox that has arrived and
    /// matches a pattern (blocking until one does when bit 0 of `mode` is set), writes
    /// its `(source, tag, words, flags, context)` into the block and pushes the index of
    /// the first pattern it matches, or -1. With bit 1 of `mode` set it is a probe: a
    /// rendezvous message whose request to send has arrived matches too (its data stays
    /// at the sender), and no TAKE follows; otherwise a MATCH that finds nothing posts
    /// its patterns as receives (the rendezvous messages they match are asked for);
    /// TAKE pops a word count and a buffer address,
    /// removes the message MATCH found last, copies its words into the buffer (more words
    /// than the count is a runtime error, MPI's truncation) and pushes their number;
    /// CONTEXT pops a count and pushes the first of that many fresh context numbers.
    0xCE Mpi "MPI" { op: u8 } 10 Overhead;
}

impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ops = self.operands_text();
        if ops.is_empty() {
            f.write_str(self.op().mnemonic())
        } else {
            write!(f, "{} {}", self.op().mnemonic(), ops)
        }
    }
}

impl Instr {
    /// The jump target of a control transfer inside the code, if any.
    pub fn jump_target(&self) -> Option<u32> {
        match *self {
            Instr::Jump { target } | Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } => Some(target),
            _ => None,
        }
    }
    /// The function index referred to, if any.
    pub fn func_ref(&self) -> Option<u32> {
        match *self {
            Instr::Call { func }
            | Instr::Fork { func, .. }
            | Instr::ForallFork { func, .. }
            | Instr::Forall { func, .. } => Some(func),
            _ => None,
        }
    }
}

/// The probe id of CPC's `mapping("SPEC")`: a probe with this id whose label is
/// [`MAPPING_PREFIX`] followed by a mapping sets the virtual-to-physical mapping of the
/// processes created after it (seed 000 §1.3.2: "the user can specify a mapping pattern
/// at the beginning of each parallel phase").
pub const MAPPING_PROBE_ID: i32 = i32::MIN;

/// The label prefix of a [`MAPPING_PROBE_ID`] probe.
pub const MAPPING_PREFIX: &str = "mapping: ";

/// The operations of MPI (its `op` operand).
pub mod mpi_op {
    pub const RANK: u8 = 0;
    pub const SIZE: u8 = 1;
    pub const WTIME: u8 = 2;
    pub const WTICK: u8 = 3;
    pub const SEND: u8 = 4;
    pub const MATCH: u8 = 5;
    pub const TAKE: u8 = 6;
    /// Pops a count `n` and pushes the first of `n` context numbers no communicator of
    /// the run has had (one counter for the whole run, as SimGrid's SMPI numbers its
    /// communicators): a new communicator's rank 0 takes one and broadcasts it.
    pub const CONTEXT: u8 = 7;
    /// Seconds per time unit in `MPI_Wtime` (1 unit = 1 µs, as `fixtures/profiles/smpi.toml`
    /// is fitted).
    pub const SECONDS_PER_UNIT: f64 = 1e-6;
    /// Words before the data in an MPI message: source rank, tag, context, flags.
    pub const HEADER: usize = 4;
}

/// The operations of FILEOP (its `op` operand).
pub mod file_op {
    pub const FEOF: u8 = 0;
    pub const FERROR: u8 = 1;
    pub const CLEARERR: u8 = 2;
    pub const FTELL: u8 = 3;
    pub const FSEEK: u8 = 4;
    pub const REWIND: u8 = 5;
    pub const UNGETC: u8 = 6;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcodes_are_unique_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for &op in Op::ALL {
            assert!(seen.insert(op.opcode()), "duplicate opcode {:#x}", op.opcode());
            assert_eq!(Op::from_opcode(op.opcode()), Some(op));
            assert_eq!(Op::from_mnemonic(op.mnemonic()), Some(op));
        }
    }

    #[test]
    fn seed_table_1_mnemonics_exist() {
        for m in [
            "LDVal",
            "LDIndirect",
            "LoadBlock",
            "Dereference",
            "STORE",
            "SCANF",
            "FSCANF",
            "PRINTF",
            "FPRINTF",
            "LOCK",
            "UNLOCK",
            "CopyBlock",
            "CopyToNewBlock",
        ] {
            let op = Op::from_mnemonic(m).unwrap_or_else(|| panic!("{m} missing"));
            assert_eq!(op.mnemonic(), m, "mnemonic spelled as in seed 000 Table 1");
        }
    }

    #[test]
    fn encode_decode_every_kind() {
        let samples = [
            Instr::PushI { v: -7 },
            Instr::PushF { v: 2.5 },
            Instr::LdVal { depth: 2, off: 40000 },
            Instr::Store { ty: Scalar::Char, keep: true },
            Instr::Math { f: MathFn::Pow },
            Instr::Fork { func: 3, chans: 2, vproc: true },
            Instr::IncDec { ty: Scalar::Float, delta: -1, pre: false },
        ];
        let mut buf = Vec::new();
        for i in &samples {
            i.encode(&mut buf);
        }
        let mut at = 0;
        for i in &samples {
            assert_eq!(Instr::decode(&buf, &mut at).unwrap(), *i);
        }
        assert_eq!(at, buf.len());
    }

    #[test]
    fn decode_rejects_garbage() {
        assert_eq!(Instr::decode(&[0xff], &mut 0), Err(DecodeError::UnknownOpcode { opcode: 0xff, at: 0 }));
        assert_eq!(Instr::decode(&[0x01, 1, 2], &mut 0), Err(DecodeError::Truncated { at: 0 }));
        assert!(matches!(Instr::decode(&[0x15, 0, 7], &mut 0), Err(DecodeError::BadOperand { .. })));
        assert!(matches!(Instr::decode(&[0x4c, 99], &mut 0), Err(DecodeError::BadOperand { .. })));
    }
}
