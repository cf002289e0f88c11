//! The `.cod` file: a compiled program ([`Module`]) as bytes, and the verifier that every
//! loaded program passes before the simulator or the debugger sees it.
//!
//! Depends on [`super::isa`] (the instruction encoding of the code section) and
//! [`super::module`] (the tables); postcard encodes the other sections. Nothing else.
//!
//! # Byte layout (format 1.0)
//!
//! All integers written by this module are little-endian. Offsets are from the start of
//! the file.
//!
//! | offset | size | content |
//! |---|---|---|
//! | 0 | 8 | magic `43 50 50 45 00 43 4F 44` = `b"CPPE\0COD"` ([`MAGIC`]) |
//! | 8 | 2 | format major version, u16 ([`VERSION_MAJOR`] = 1) |
//! | 10 | 2 | format minor version, u16 ([`VERSION_MINOR`] = 5) |
//! | 12 | 4 | section count N, u32 |
//! | 16 | … | N sections, each: tag u16, payload length L u32, then L payload bytes |
//! | end − 4 | 4 | CRC-32 (IEEE, as zlib/PNG; see [`crc32`]) of every byte before it, u32 |
//!
//! Section tags are append-only constants (module [`tag`]): a number, once released, keeps
//! its meaning forever. The writer emits every section once, in ascending tag order.
//!
//! | tag | section | payload |
//! |---|---|---|
//! | 1 | meta | postcard of the tuple `(source_name: String, arch: Option<ArchDecl>, phy_arch: Option<ArchDecl>, main: u32, globals_words: u32)` |
//! | 2 | source | postcard `String`: the main source text |
//! | 3 | code | instruction count u32 LE, then each instruction as [`Instr::encode`] writes it: opcode byte, then its operands in table order, fixed width, LE |
//! | 4 | lines | postcard `(lines: Vec<u32>, src2cod: Vec<(u32, u32)>)` |
//! | 5 | types | postcard `(types: Vec<Type>, structs: Vec<StructInfo>)` |
//! | 6 | idents | postcard `Vec<IdentInfo>` |
//! | 7 | blocks | postcard `Vec<BlockInfo>` |
//! | 8 | functions | postcard `Vec<FunctionInfo>` |
//! | 9 | channels | postcard `Vec<ChannelInfo>` |
//! | 10 | global_init | postcard `Vec<(u32, Word)>` |
//! | 0x800B | global_relocs (optional, when not empty) | postcard `Vec<u32>` |
//!
//! The code section uses its own encoding rather than postcard so that a reader meeting an
//! opcode it does not know reports the instruction index and the byte offset
//! ([`CodError::UnknownOpcode`]) instead of a generic deserialisation failure.
//!
//! # Compatibility rule
//!
//! * A reader accepts a file whose major version equals its own, whatever the minor
//!   version; any other major version is [`CodError::UnsupportedVersion`].
//! * A minor version may only add sections and opcodes (1.1 added FORALLFORK and
//!   FORALLWAIT; a 1.0 reader reports them as unknown opcodes), or promise something of
//!   the code: 1.2 files place no object at global address 0, the null pointer
//!   ([`Module::null_reserved`]; files before 1.2 run as they always did); 1.3 added
//!   SPRINTF, the C library's MALLOC, FREE, REALLOC, MEMCOPY, MEMSET and EXIT, the
//!   unsigned DIVU … CVTFU, VPRINTF … VSNPRINTF, CALLIND, NARROW, CHECKWORD, the
//!   double and long instructions, and the types `_Bool`, `unsigned int`, `short`,
//!   `unsigned short`, `signed char`, `double`, `long` and function types; 1.4 added
//!   `unsigned long` and its instructions DIVUL … CVTFUL; 1.5 added the variadic
//!   function type; 1.6 added MPI and the optional section `global_relocs`. A tag
//!   with the high bit set
//!   ([`OPTIONAL_SECTION`], `0x8000`) marks a section that readers which do not know it
//!   skip; an unknown tag without that bit is an error naming the tag (the file needs a
//!   newer reader). Sections 1–10 are all required.
//! * Every payload must be consumed exactly: a known section with extra bytes is
//!   corrupt. New data goes into new sections, never at the end of an old one.
//! * Each tag appears at most once; readers accept the sections in any order.
//!
//! # Reading order and errors
//!
//! [`decode`] checks, in this order: magic, version, section framing (a length running
//! past the end is [`CodError::Truncated`]), the CRC ([`CodError::Checksum`]), the set of
//! tags, each payload, and finally [`verify`]. Every length and count read from the file
//! is compared with the bytes that remain before anything is allocated for it, so garbage
//! input cannot make the reader allocate more than a small multiple of its own size.
//!
//! This module holds the layout's constants, the errors and the section names; `write`
//! writes a module, `read` reads one back, `verify` checks it.
use crate::vcode::isa::{DecodeError, Instr};
use crate::vcode::module::{
    ArchDecl, BlockInfo, ChannelInfo, FunctionInfo, IdentInfo, IdentKind, Module, StructInfo, TopoKind, Type, Word,
};
use std::path::{Path, PathBuf};

/// The eight magic bytes every `.cod` file starts with.
pub const MAGIC: [u8; 8] = *b"CPPE\0COD";
/// The format major version written and accepted by this reader.
pub const VERSION_MAJOR: u16 = 1;
/// The format minor version written by this writer.
pub const VERSION_MINOR: u16 = 6;
/// High bit of a section tag: readers that do not know the section may skip it.
pub const OPTIONAL_SECTION: u16 = 0x8000;
/// Deepest type nesting (arrays, struct fields, pointer chains) the verifier accepts.
/// Far beyond any real declaration; it bounds the recursion of code that walks types.
pub const MAX_TYPE_NESTING: usize = 256;

/// Section tags (append-only: never renumber, never reuse).
pub mod tag {
    /// Source name, architectures, `main`, size of the global area.
    pub const META: u16 = 1;
    /// The main source text.
    pub const SOURCE: u16 = 2;
    /// The instructions.
    pub const CODE: u16 = 3;
    /// Line of each instruction and the src2cod table.
    pub const LINES: u16 = 4;
    /// Types and struct definitions.
    pub const TYPES: u16 = 5;
    /// The identifier table.
    pub const IDENTS: u16 = 6;
    /// The block (scope) table.
    pub const BLOCKS: u16 = 7;
    /// The function table.
    pub const FUNCTIONS: u16 = 8;
    /// The channel table.
    pub const CHANNELS: u16 = 9;
    /// The initial global memory image.
    pub const GLOBAL_INIT: u16 = 10;
    /// Which initial global words are addresses of globals (1.6; optional: a reader that
    /// does not know it runs the program as one process, as it always did).
    pub const GLOBAL_RELOCS: u16 = super::OPTIONAL_SECTION | 11;
    /// Every section a 1.0 reader requires, in the order the writer emits them.
    pub const REQUIRED: [u16; 10] =
        [META, SOURCE, CODE, LINES, TYPES, IDENTS, BLOCKS, FUNCTIONS, CHANNELS, GLOBAL_INIT];
}

const HEADER_LEN: usize = 16;
const SECTION_HEADER_LEN: usize = 6;
const CRC_LEN: usize = 4;

/// Why a `.cod` file could not be read or a [`Module`] is not a valid program.
#[derive(Debug, thiserror::Error)]
pub enum CodError {
    /// The first eight bytes are not [`MAGIC`].
    #[error("not a .cod file (bad magic)")]
    BadMagic,
    /// A format major version other than [`VERSION_MAJOR`].
    #[error(
        "unsupported .cod format version {}.{} (this reader supports {}.x)",
        .found.0, .found.1, .supported.0
    )]
    UnsupportedVersion {
        /// (major, minor) found in the file.
        found: (u16, u16),
        /// (major, minor) of this reader.
        supported: (u16, u16),
    },
    /// The file ends inside `what`, which starts at byte `offset`.
    #[error("truncated or corrupt .cod file: {what} at byte {offset} runs past the end of the data")]
    Truncated {
        /// The part that is cut short (header, a section, an instruction, the checksum).
        what: String,
        /// Byte offset where that part starts.
        offset: usize,
    },
    /// Bytes after the checksum position implied by the section table.
    #[error("corrupt .cod file: {count} unexpected bytes after the sections at byte {offset}")]
    TrailingBytes {
        /// Where the checksum was expected.
        offset: usize,
        /// How many bytes follow the sections instead of exactly four.
        count: usize,
    },
    /// The CRC-32 does not match: the file was damaged.
    #[error("corrupt .cod file: checksum mismatch (stored {stored:#010x}, computed {computed:#010x})")]
    Checksum {
        /// The CRC stored in the file.
        stored: u32,
        /// The CRC of the bytes read.
        computed: u32,
    },
    /// An opcode this reader does not know (the file needs a newer reader, or is corrupt).
    #[error("unknown opcode {opcode:#04x} at instruction {pc} (byte {byte} of the file)")]
    UnknownOpcode {
        /// Index of the instruction in the code table.
        pc: u32,
        /// The opcode byte.
        opcode: u8,
        /// Byte offset of the opcode in the file.
        byte: usize,
    },
    /// A section is missing, duplicated, unknown and required, or its payload is malformed.
    #[error("bad .cod section {tag} ({}): {reason}", section_name(*.tag))]
    BadSection {
        /// The section tag.
        tag: u16,
        /// What is wrong with it.
        reason: String,
    },
    /// The verifier found something a correct compiler never produces.
    #[error("invalid vCode program: {what}")]
    Invalid {
        /// What is wrong, naming the table entry or instruction.
        what: String,
    },
    /// The file could not be read.
    #[error("{}: {error}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        error: std::io::Error,
    },
    /// A decoding error in a named file.
    #[error("{}: {error}", .path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong with its contents.
        error: Box<CodError>,
    },
}

/// The name of a section tag, for messages.
pub fn section_name(t: u16) -> &'static str {
    match t {
        tag::META => "meta",
        tag::SOURCE => "source",
        tag::CODE => "code",
        tag::LINES => "lines",
        tag::TYPES => "types",
        tag::IDENTS => "idents",
        tag::BLOCKS => "blocks",
        tag::FUNCTIONS => "functions",
        tag::CHANNELS => "channels",
        tag::GLOBAL_INIT => "global_init",
        tag::GLOBAL_RELOCS => "global_relocs",
        t if t & OPTIONAL_SECTION != 0 => "unknown optional",
        _ => "unknown",
    }
}

// ---------------------------------------------------------------------------------------
// CRC-32

pub use crate::crc::crc32;

fn bad_section(t: u16, reason: impl Into<String>) -> CodError {
    CodError::BadSection { tag: t, reason: reason.into() }
}

fn invalid(what: impl Into<String>) -> CodError {
    CodError::Invalid { what: what.into() }
}

mod read;
mod verify;
mod write;

pub use read::{decode, read_file};
pub use verify::verify;
pub use write::{encode, try_encode};

#[cfg(test)]
pub(crate) mod tests;
