//! Writing a module as a `.cod` file: the container, its sections and their payloads.
use super::*;

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
pub(super) fn assemble(major: u16, minor: u16, sections: &[(u16, Vec<u8>)]) -> Vec<u8> {
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
pub(super) fn module_sections(m: &Module) -> Vec<(u16, Vec<u8>)> {
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
    let sections = 10 + usize::from(!m.global_relocs.is_empty());
    put_header(&mut out, VERSION_MAJOR, if m.null_reserved { VERSION_MINOR } else { 1 }, sections);
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
    if !m.global_relocs.is_empty() {
        out = put_postcard(out, tag::GLOBAL_RELOCS, &m.global_relocs)?;
    }
    Ok(finish(out))
}
