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
//! | 10 | 2 | format minor version, u16 ([`VERSION_MINOR`] = 4) |
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
//!   `unsigned long` and its instructions DIVUL … CVTFUL. A tag
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
use super::isa::{DecodeError, Instr};
use super::module::{
    ArchDecl, BlockInfo, ChannelInfo, FunctionInfo, IdentInfo, IdentKind, Module, StructInfo, TopoKind, Type, Word,
};
use std::path::{Path, PathBuf};

/// The eight magic bytes every `.cod` file starts with.
pub const MAGIC: [u8; 8] = *b"CPPE\0COD";
/// The format major version written and accepted by this reader.
pub const VERSION_MAJOR: u16 = 1;
/// The format minor version written by this writer.
pub const VERSION_MINOR: u16 = 4;
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
        t if t & OPTIONAL_SECTION != 0 => "unknown optional",
        _ => "unknown",
    }
}

// ---------------------------------------------------------------------------------------
// CRC-32

pub use crate::crc::crc32;

// ---------------------------------------------------------------------------------------
// Writing

/// Postcard-encodes a section payload (tests build files from separate sections).
#[cfg(test)]
fn postcard_section<T: serde::Serialize + ?Sized>(value: &T) -> Vec<u8> {
    postcard::to_allocvec(value).expect("postcard encoding of module tables cannot fail")
}

#[cfg(test)]
fn code_section(code: &[Instr]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + code.len() * 5);
    put_code(&mut out, code);
    out
}

/// Appends the code section's payload: instruction count, then each instruction.
fn put_code(out: &mut Vec<u8>, code: &[Instr]) {
    // cannot fail: `try_encode` refuses more than u32::MAX instructions before this runs.
    let count = u32::try_from(code.len()).expect("code table longer than u32::MAX instructions");
    out.extend_from_slice(&count.to_le_bytes());
    for i in code {
        i.encode(out);
    }
}

/// Lays out header, sections and checksum from separately encoded payloads, so tests
/// can build files with other versions and extra sections. [`encode`] writes the same
/// bytes in one pass.
#[cfg(test)]
fn assemble(major: u16, minor: u16, sections: &[(u16, Vec<u8>)]) -> Vec<u8> {
    let size = HEADER_LEN + sections.iter().map(|(_, p)| SECTION_HEADER_LEN + p.len()).sum::<usize>() + CRC_LEN;
    let mut out = Vec::with_capacity(size);
    put_header(&mut out, major, minor, sections.len());
    for (t, payload) in sections {
        let at = begin_section(&mut out, *t);
        out.extend_from_slice(payload);
        // cannot fail: tests assemble small sections.
        end_section(&mut out, *t, at).expect("test sections are small");
    }
    finish(out)
}

#[cfg(test)]
fn module_sections(m: &Module) -> Vec<(u16, Vec<u8>)> {
    vec![
        (tag::META, postcard_section(&(&m.source_name, &m.arch, &m.phy_arch, m.main, m.globals_words))),
        (tag::SOURCE, postcard_section(&m.source)),
        (tag::CODE, code_section(&m.code)),
        (tag::LINES, postcard_section(&(&m.lines, &m.src2cod))),
        (tag::TYPES, postcard_section(&(&m.types, &m.structs))),
        (tag::IDENTS, postcard_section(&m.idents)),
        (tag::BLOCKS, postcard_section(&m.blocks)),
        (tag::FUNCTIONS, postcard_section(&m.functions)),
        (tag::CHANNELS, postcard_section(&m.channels)),
        (tag::GLOBAL_INIT, postcard_section(&m.global_init)),
    ]
}

fn put_header(out: &mut Vec<u8>, major: u16, minor: u16, sections: usize) {
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&major.to_le_bytes());
    out.extend_from_slice(&minor.to_le_bytes());
    // cannot fail: a fixed list of at most a dozen sections (tests add one or two).
    let count = u32::try_from(sections).expect("section count fits in u32");
    out.extend_from_slice(&count.to_le_bytes());
}

/// Writes a section's tag and a length placeholder; returns where the payload starts.
fn begin_section(out: &mut Vec<u8>, t: u16) -> usize {
    out.extend_from_slice(&t.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.len()
}

/// Fills in the length of the section with tag `t` whose payload started at `at`, or
/// says that the u32 length field cannot express it.
fn end_section(out: &mut [u8], t: u16, at: usize) -> Result<(), CodError> {
    let n = out.len() - at;
    let len = u32::try_from(n)
        .map_err(|_| bad_section(t, format!("{n} bytes: more than the .cod format's 4 GiB per section")))?;
    out[at - 4..at].copy_from_slice(&len.to_le_bytes());
    Ok(())
}

/// Appends the CRC of everything so far.
fn finish(mut out: Vec<u8>) -> Vec<u8> {
    let crc = crc32(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Appends one postcard-encoded section.
fn put_postcard<T: serde::Serialize + ?Sized>(out: Vec<u8>, t: u16, value: &T) -> Result<Vec<u8>, CodError> {
    let mut out = out;
    let at = begin_section(&mut out, t);
    // postcard fails only on sequences of unknown length and on full fixed buffers; the
    // module's types are derived Serialize impls of known-length Vecs written to a Vec.
    // cannot fail: see above; no user data can make a derived encoder fail.
    let mut out = postcard::to_extend(value, out).expect("postcard encoding of module tables cannot fail");
    end_section(&mut out, t, at)?;
    Ok(out)
}

/// Encodes a module as a `.cod` file (format [`VERSION_MAJOR`].[`VERSION_MINOR`]; 1.1 for a
/// module without [`Module::null_reserved`]).
///
/// The module is written as given; run [`verify`] first if it may be invalid (a reader
/// rejects an invalid module). The sections go straight into one buffer sized from the
/// big tables (source text, code, lines, idents), so a large program is not copied
/// section by section.
///
/// # Panics
///
/// If one section exceeds 4 GiB, which the u32 length field cannot express: use
/// [`try_encode`] for a module of unknown size (a compiler's output).
pub fn encode(m: &Module) -> Vec<u8> {
    // cannot fail on what a reader produced: every section of a decoded module had a u32
    // length; a compiler's output goes through `try_encode`.
    try_encode(m).expect(".cod section larger than 4 GiB")
}

/// Encodes a module as [`encode`] does, or says why the format cannot hold it (more
/// than 2^32 − 1 instructions, or a section beyond 4 GiB, such as a huge source text).
pub fn try_encode(m: &Module) -> Result<Vec<u8>, CodError> {
    if u32::try_from(m.code.len()).is_err() {
        return Err(invalid("more than 2^32 - 1 instructions: too large for the .cod format"));
    }
    // An estimate only (a short buffer grows): 5 bytes per instruction and per line
    // entry, 24 per identifier record, 32 per function record.
    let guess = HEADER_LEN
        + 10 * SECTION_HEADER_LEN
        + m.source.len()
        + m.source_name.len()
        + 16
        + 4
        + 5 * m.code.len()
        + 5 * (m.lines.len() + 2 * m.src2cod.len())
        + 24 * m.idents.len()
        + 16 * m.blocks.len()
        + 32 * m.functions.len()
        + 16 * (m.types.len() + m.channels.len() + m.global_init.len())
        + 256
        + CRC_LEN;
    let mut out = Vec::with_capacity(guess);
    // A module that still places an object at address 0 is written as 1.1, which says so.
    put_header(&mut out, VERSION_MAJOR, if m.null_reserved { VERSION_MINOR } else { 1 }, 10);
    out = put_postcard(out, tag::META, &(&m.source_name, &m.arch, &m.phy_arch, m.main, m.globals_words))?;
    out = put_postcard(out, tag::SOURCE, &m.source)?;
    let at = begin_section(&mut out, tag::CODE);
    put_code(&mut out, &m.code);
    end_section(&mut out, tag::CODE, at)?;
    out = put_postcard(out, tag::LINES, &(&m.lines, &m.src2cod))?;
    out = put_postcard(out, tag::TYPES, &(&m.types, &m.structs))?;
    out = put_postcard(out, tag::IDENTS, &m.idents)?;
    out = put_postcard(out, tag::BLOCKS, &m.blocks)?;
    out = put_postcard(out, tag::FUNCTIONS, &m.functions)?;
    out = put_postcard(out, tag::CHANNELS, &m.channels)?;
    out = put_postcard(out, tag::GLOBAL_INIT, &m.global_init)?;
    Ok(finish(out))
}

// ---------------------------------------------------------------------------------------
// Reading

/// One section as found in the file.
struct Section<'a> {
    tag: u16,
    /// Offset of the payload's first byte in the file.
    offset: usize,
    payload: &'a [u8],
}

fn read_u16(bytes: &[u8], at: usize) -> Option<u16> {
    let b = bytes.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn truncated(what: impl Into<String>, offset: usize) -> CodError {
    CodError::Truncated { what: what.into(), offset }
}

/// Checks magic, version, framing and checksum; returns the sections.
fn parse_container(bytes: &[u8]) -> Result<Vec<Section<'_>>, CodError> {
    let head = &bytes[..bytes.len().min(MAGIC.len())];
    if *head != MAGIC[..head.len()] {
        return Err(CodError::BadMagic);
    }
    if bytes.len() < HEADER_LEN {
        return Err(truncated("header", 0));
    }
    let major = read_u16(bytes, 8).ok_or_else(|| truncated("header", 0))?;
    let minor = read_u16(bytes, 10).ok_or_else(|| truncated("header", 0))?;
    if major != VERSION_MAJOR {
        return Err(CodError::UnsupportedVersion { found: (major, minor), supported: (VERSION_MAJOR, VERSION_MINOR) });
    }
    let count = read_u32(bytes, 12).ok_or_else(|| truncated("header", 0))? as usize;
    // Each section takes at least its 6-byte header: a larger count cannot be genuine,
    // and checking it here keeps the allocation below proportional to the input.
    if count > (bytes.len() - HEADER_LEN) / SECTION_HEADER_LEN {
        return Err(truncated(format!("section table of {count} sections"), 12));
    }
    let mut sections = Vec::with_capacity(count);
    let mut pos = HEADER_LEN;
    for i in 0..count {
        let t = read_u16(bytes, pos).ok_or_else(|| truncated(format!("header of section #{i}"), pos))?;
        let len = read_u32(bytes, pos + 2).ok_or_else(|| truncated(format!("header of section #{i}"), pos))?;
        let start = pos + SECTION_HEADER_LEN;
        let end = start
            .checked_add(len as usize)
            .filter(|&e| e <= bytes.len())
            .ok_or_else(|| truncated(format!("section {t} ({}) of {len} bytes", section_name(t)), pos))?;
        sections.push(Section { tag: t, offset: start, payload: &bytes[start..end] });
        pos = end;
    }
    let stored = read_u32(bytes, pos).ok_or_else(|| truncated("checksum", pos))?;
    if bytes.len() != pos + CRC_LEN {
        return Err(CodError::TrailingBytes { offset: pos, count: bytes.len() - pos });
    }
    let computed = crc32(&bytes[..pos]);
    if stored != computed {
        return Err(CodError::Checksum { stored, computed });
    }
    Ok(sections)
}

fn bad_section(t: u16, reason: impl Into<String>) -> CodError {
    CodError::BadSection { tag: t, reason: reason.into() }
}

/// Decodes a postcard payload that must be consumed exactly.
fn postcard_payload<'a, T: serde::Deserialize<'a>>(s: &Section<'a>) -> Result<T, CodError> {
    let (value, rest) = postcard::take_from_bytes::<T>(s.payload).map_err(|e| bad_section(s.tag, e.to_string()))?;
    if !rest.is_empty() {
        return Err(bad_section(s.tag, format!("{} unexpected bytes after the data", rest.len())));
    }
    Ok(value)
}

fn decode_code(s: &Section<'_>) -> Result<Vec<Instr>, CodError> {
    let count = read_u32(s.payload, 0).ok_or_else(|| truncated("instruction count of the code section", s.offset))?;
    // Every instruction takes at least its opcode byte.
    let room = s.payload.len() - 4;
    if count as usize > room {
        return Err(bad_section(tag::CODE, format!("{count} instructions cannot fit in {room} bytes")));
    }
    let mut code = Vec::with_capacity(count as usize);
    let mut at = 4;
    for pc in 0..count {
        let instr = Instr::decode(s.payload, &mut at).map_err(|e| match e {
            DecodeError::UnknownOpcode { opcode, at } => CodError::UnknownOpcode { pc, opcode, byte: s.offset + at },
            DecodeError::Truncated { at } => truncated(format!("instruction {pc}"), s.offset + at),
            DecodeError::BadOperand { mnemonic, value, at } => bad_section(
                tag::CODE,
                format!("instruction {pc} at byte {}: bad operand value {value} for {mnemonic}", s.offset + at),
            ),
        })?;
        code.push(instr);
    }
    if at != s.payload.len() {
        return Err(bad_section(
            tag::CODE,
            format!("{} unexpected bytes after the instructions", s.payload.len() - at),
        ));
    }
    Ok(code)
}

type Meta = (String, Option<ArchDecl>, Option<ArchDecl>, u32, u32);

/// Decodes and verifies a `.cod` file.
///
/// Never panics, whatever the bytes; the error says what is wrong and where.
pub fn decode(bytes: &[u8]) -> Result<Module, CodError> {
    let sections = parse_container(bytes)?;
    // The container checked the header: the minor version is there.
    let minor = read_u16(bytes, 10).unwrap_or(0);
    let mut found: [Option<&Section<'_>>; tag::REQUIRED.len()] = [None; tag::REQUIRED.len()];
    let mut optional_seen: Vec<u16> = Vec::new();
    for s in &sections {
        match tag::REQUIRED.iter().position(|&t| t == s.tag) {
            Some(i) => {
                if found[i].is_some() {
                    return Err(bad_section(s.tag, "appears twice"));
                }
                found[i] = Some(s);
            }
            None if s.tag & OPTIONAL_SECTION != 0 => {
                if optional_seen.contains(&s.tag) {
                    return Err(bad_section(s.tag, "appears twice"));
                }
                optional_seen.push(s.tag);
            }
            None => {
                return Err(bad_section(
                    s.tag,
                    format!("required section unknown to this reader (format {VERSION_MAJOR}.{VERSION_MINOR})"),
                ))
            }
        }
    }
    let get = |t: u16| -> Result<&Section<'_>, CodError> {
        tag::REQUIRED.iter().position(|&r| r == t).and_then(|i| found[i]).ok_or_else(|| bad_section(t, "missing"))
    };
    let (source_name, arch, phy_arch, main, globals_words): Meta = postcard_payload(get(tag::META)?)?;
    let source: String = postcard_payload(get(tag::SOURCE)?)?;
    let code = decode_code(get(tag::CODE)?)?;
    let (lines, src2cod): (Vec<u32>, Vec<(u32, u32)>) = postcard_payload(get(tag::LINES)?)?;
    let (types, structs): (Vec<Type>, Vec<StructInfo>) = postcard_payload(get(tag::TYPES)?)?;
    let idents: Vec<IdentInfo> = postcard_payload(get(tag::IDENTS)?)?;
    let blocks: Vec<BlockInfo> = postcard_payload(get(tag::BLOCKS)?)?;
    let functions: Vec<FunctionInfo> = postcard_payload(get(tag::FUNCTIONS)?)?;
    let channels: Vec<ChannelInfo> = postcard_payload(get(tag::CHANNELS)?)?;
    let global_init: Vec<(u32, Word)> = postcard_payload(get(tag::GLOBAL_INIT)?)?;
    let m = Module {
        source_name,
        source,
        code,
        lines,
        src2cod,
        types,
        structs,
        idents,
        blocks,
        functions,
        channels,
        globals_words,
        null_reserved: minor >= 2,
        global_init,
        main,
        arch,
        phy_arch,
    };
    verify(&m)?;
    Ok(m)
}

/// Reads, decodes and verifies a `.cod` file; every error names the file.
pub fn read_file(path: impl AsRef<Path>) -> Result<Module, CodError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|error| CodError::Io { path: path.to_path_buf(), error })?;
    decode(&bytes).map_err(|e| CodError::File { path: path.to_path_buf(), error: Box::new(e) })
}

// ---------------------------------------------------------------------------------------
// Verifier

fn invalid(what: impl Into<String>) -> CodError {
    CodError::Invalid { what: what.into() }
}

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
            Type::Function { ret, ref params } => {
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

#[cfg(test)]
#[path = "cod_tests.rs"]
pub(crate) mod tests;
