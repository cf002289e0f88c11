//! Reading a `.cod` file: the container's framing and checksum, each section's payload,
//! then the verifier.
use super::*;

/// One section as found in the file.
struct Section<'a> {
    tag: u16,
    /// Offset of the payload's first byte in the file.
    offset: usize,
    payload: &'a [u8],
}

pub(super) fn read_u16(bytes: &[u8], at: usize) -> Option<u16> {
    let b = bytes.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

pub(super) fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
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
    let mut relocs: Option<&Section<'_>> = None;
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
                if s.tag == tag::GLOBAL_RELOCS {
                    relocs = Some(s);
                }
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
    let global_relocs: Vec<u32> = match relocs {
        Some(s) => postcard_payload(s)?,
        None => Vec::new(),
    };
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
        global_relocs,
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
