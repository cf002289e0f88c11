//! Tests of the `.cod` format: [`super`] and its writing, reading and verifier.
use super::read::{read_u16, read_u32};
use super::write::{assemble, module_sections};
use super::*;
use crate::vcode::isa::Scalar;
use crate::vcode::module::FieldInfo;
use proptest::prelude::*;

/// The program these tables describe, one statement per line so that every line
/// number below can be checked by eye.
const SAMPLE_SOURCE: &str = "struct pt { int x; float y; struct pt *next; };
channel int c[2];
int g;
void worker(int k) {
struct pt p; c[k] = k;
}
main() {
fork [1; c[1]] worker(1);
g = c[1];
if (g) join;
printf(\"hi\"); }
";

/// A small valid module using every table: two functions, a self-referencing struct
/// (through a pointer, which is allowed), a channel array, a string in global_init.
///
/// Global area: c[0] at 0, c[1] at 1, g at 2, "hi\0" at 3..6 → 6 words.
/// worker's frame: k at 0, p (3 words) at 1..4 → 4 words.
pub(crate) fn sample_module() -> Module {
    use Instr::*;
    let code_lines: [(Instr, u32); 20] = [
        // worker, pc 0..6
        (LdAddr { depth: 0, off: 0 }, 5),
        (LdVal { depth: 1, off: 0 }, 5),
        (Index { size: 1, len: 2 }, 5),
        (LdVal { depth: 1, off: 0 }, 5),
        (Send { n: 1 }, 5),
        (Ret { n: 0 }, 6),
        // main, pc 6..20
        (PushI { v: 1 }, 8),
        (LdAddr { depth: 0, off: 1 }, 8),
        (PushI { v: 1 }, 8),
        (Fork { func: 0, chans: 1, vproc: true }, 8),
        (LdAddr { depth: 0, off: 2 }, 9),
        (LdAddr { depth: 0, off: 1 }, 9),
        (Recv { n: 1 }, 9),
        (Store { ty: Scalar::Int, keep: false }, 9),
        (LdVal { depth: 0, off: 2 }, 10),
        (JumpIfFalse { target: 17 }, 10),
        (Join {}, 10),
        (LdAddr { depth: 0, off: 3 }, 11),
        (Printf { argc: 0 }, 11),
        (Halt {}, 11),
    ];
    let func = |name: &str, entry, end, param_words, frame_words, ret_words, ret_ty, block, line| FunctionInfo {
        name: name.into(),
        entry,
        end,
        depth: 1,
        param_words,
        frame_words,
        ret_words,
        ret_ty,
        parent: None,
        block,
        line,
        is_forall_body: false,
    };
    let ident = |name: &str, kind, ty, depth, off, block, line| IdentInfo {
        name: name.into(),
        kind,
        ty,
        depth,
        off,
        block,
        line,
    };
    let field = |name: &str, ty, off| FieldInfo { name: name.into(), ty, off };
    Module {
        source_name: "sample.cpc".into(),
        source: SAMPLE_SOURCE.into(),
        code: code_lines.iter().map(|&(i, _)| i).collect(),
        lines: code_lines.iter().map(|&(_, l)| l).collect(),
        // First instruction of each line that produced code, read off the table above.
        src2cod: vec![(5, 0), (6, 5), (8, 6), (9, 10), (10, 14), (11, 17)],
        types: vec![
            Type::Void,
            Type::Int,
            Type::Float,
            Type::Char,
            Type::Struct(0),
            Type::Pointer(4),
            Type::Channel(1),
            Type::Array { elem: 6, len: 2 },
            Type::Array { elem: 3, len: 3 },
        ],
        structs: vec![StructInfo {
            name: "pt".into(),
            fields: vec![field("x", 1, 0), field("y", 2, 1), field("next", 5, 2)],
            words: 3,
        }],
        idents: vec![
            ident("c", IdentKind::Channel, 7, 0, 0, 0, 2),
            ident("g", IdentKind::Var, 1, 0, 2, 0, 3),
            ident("worker", IdentKind::Function, 0, 0, 0, 0, 4),
            ident("k", IdentKind::Param, 1, 1, 0, 1, 4),
            ident("p", IdentKind::Var, 4, 1, 1, 1, 5),
            ident("main", IdentKind::Function, 1, 0, 1, 0, 7),
        ],
        blocks: vec![
            BlockInfo { parent: None, func: None, first_line: 1, last_line: 11 },
            BlockInfo { parent: Some(0), func: Some(0), first_line: 4, last_line: 6 },
            BlockInfo { parent: Some(0), func: Some(1), first_line: 7, last_line: 11 },
        ],
        functions: vec![func("worker", 0, 6, 1, 4, 0, 0, 1, 4), func("main", 6, 20, 0, 0, 1, 1, 2, 7)],
        channels: vec![ChannelInfo { name: "c".into(), elem: 1, msg_words: 1, dims: vec![2], base: 0, line: 2 }],
        globals_words: 6,
        null_reserved: true,
        global_init: vec![(3, Word::Char(b'h')), (4, Word::Char(b'i'))],
        global_relocs: Vec::new(),
        main: 1,
        arch: Some(ArchDecl { kind: TopoKind::Torus, name: "T".into(), dims: vec![2, 2] }),
        phy_arch: Some(ArchDecl { kind: TopoKind::Mesh, name: "M".into(), dims: vec![2, 2] }),
    }
}

/// Re-seals a file after editing it: replaces the trailing CRC.
fn reseal(bytes: &mut [u8]) {
    let n = bytes.len() - CRC_LEN;
    let crc = crc32(&bytes[..n]);
    bytes[n..].copy_from_slice(&crc.to_le_bytes());
}

/// Byte offset of the payload of section `t` in a file written by [`encode`].
fn payload_offset(bytes: &[u8], t: u16) -> usize {
    let mut pos = HEADER_LEN;
    loop {
        let this = read_u16(bytes, pos).unwrap();
        let len = read_u32(bytes, pos + 2).unwrap() as usize;
        if this == t {
            return pos + SECTION_HEADER_LEN;
        }
        pos += SECTION_HEADER_LEN + len;
    }
}

#[test]
fn crc32_known_vector() {
    // The check value of CRC-32/ISO-HDLC in the CRC catalogue.
    assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    // The CRC of nothing is the initial value xor the final xor: 0.
    assert_eq!(crc32(b""), 0);
}

#[test]
fn sample_module_is_valid() {
    verify(&sample_module()).unwrap();
}

#[test]
fn one_pass_writer_matches_section_by_section_layout() {
    // `encode` streams every section into one buffer and patches the lengths; the
    // reference is the layout built from separately encoded payloads. Both must give the
    // same bytes, for the sample and for one with its big tables emptied.
    let m = sample_module();
    assert_eq!(encode(&m), assemble(VERSION_MAJOR, VERSION_MINOR, &module_sections(&m)));
    let mut empty = m.clone();
    empty.source.clear();
    empty.code.clear();
    empty.lines.clear();
    empty.src2cod.clear();
    empty.idents.clear();
    empty.functions.clear();
    assert_eq!(encode(&empty), assemble(VERSION_MAJOR, VERSION_MINOR, &module_sections(&empty)));
}

#[test]
fn round_trip_preserves_every_table() {
    let m = sample_module();
    let bytes = encode(&m);
    assert_eq!(decode(&bytes).unwrap(), m);
    // Deterministic: the same module gives the same bytes.
    assert_eq!(encode(&m), bytes);
}

#[test]
fn layout_header_is_as_documented() {
    let bytes = encode(&sample_module());
    assert_eq!(&bytes[0..8], b"CPPE\0COD");
    assert_eq!(&bytes[8..12], &[1, 0, 6, 0], "version 1.6, two u16 LE");
    assert_eq!(&bytes[12..16], &[10, 0, 0, 0], "ten sections");
    assert_eq!(&bytes[16..18], &[1, 0], "the meta section comes first");
    // Code section: count 20 then the first instruction LDADDR 0 0 = opcode 0x10,
    // depth byte 0, offset u32 0.
    let code = payload_offset(&bytes, tag::CODE);
    assert_eq!(&bytes[code..code + 4], &[20, 0, 0, 0]);
    assert_eq!(&bytes[code + 4..code + 10], &[0x10, 0, 0, 0, 0, 0]);
}

#[test]
fn wrong_magic_is_rejected() {
    let mut bytes = encode(&sample_module());
    bytes[0] = b'X';
    let e = decode(&bytes).unwrap_err();
    assert!(matches!(e, CodError::BadMagic));
    assert_eq!(e.to_string(), "not a .cod file (bad magic)");
    // A text file is not a .cod file either, and says so before anything else.
    assert!(matches!(decode(b"int main() { return 0; }\n"), Err(CodError::BadMagic)));
}

#[test]
fn major_version_2_is_rejected() {
    let m = sample_module();
    let bytes = assemble(2, 0, &module_sections(&m));
    let e = decode(&bytes).unwrap_err();
    assert!(matches!(e, CodError::UnsupportedVersion { found: (2, 0), supported: (1, 6) }), "{e:?}");
    assert_eq!(e.to_string(), "unsupported .cod format version 2.0 (this reader supports 1.x)");
}

#[test]
fn newer_minor_with_optional_section_is_read() {
    // A 1.7 writer added an optional section: this 1.6 reader skips it.
    let m = sample_module();
    let mut sections = module_sections(&m);
    sections.push((OPTIONAL_SECTION | 12, vec![1, 2, 3]));
    assert_eq!(decode(&assemble(1, 7, &sections)).unwrap(), m);
}

/// The addresses among the initial globals (`global_relocs`, for the ranks' copies) are
/// written as an eleventh, optional section when there are any, and read back; one that
/// names a word with no initial value is refused.
#[test]
fn global_relocations_round_trip() {
    let mut m = sample_module();
    m.global_init.push((5, Word::Int(3)));
    m.global_init.sort_by_key(|e| e.0);
    m.global_relocs = vec![5];
    let bytes = encode(&m);
    assert_eq!(&bytes[12..16], &[11, 0, 0, 0], "eleven sections");
    assert_eq!(decode(&bytes).unwrap(), m);
    m.global_relocs = vec![6];
    let e = decode(&encode(&m)).unwrap_err();
    assert!(e.to_string().contains("global_relocs: address 6 has no initial word"), "{e}");
}

#[test]
fn unknown_required_section_is_rejected() {
    let mut sections = module_sections(&sample_module());
    sections.push((11, vec![1, 2, 3]));
    let e = decode(&assemble(1, 1, &sections)).unwrap_err();
    assert!(matches!(e, CodError::BadSection { tag: 11, .. }), "{e:?}");
}

#[test]
fn missing_and_duplicate_sections_are_rejected() {
    let mut sections = module_sections(&sample_module());
    let channels = sections.remove(8);
    assert_eq!(channels.0, tag::CHANNELS);
    let e = decode(&assemble(1, 0, &sections)).unwrap_err();
    assert!(matches!(e, CodError::BadSection { tag: tag::CHANNELS, .. }), "{e:?}");
    sections.push(channels.clone());
    sections.push(channels);
    let e = decode(&assemble(1, 0, &sections)).unwrap_err();
    assert!(matches!(e, CodError::BadSection { tag: tag::CHANNELS, .. }), "{e:?}");
}

#[test]
fn sections_in_another_order_are_read() {
    let m = sample_module();
    let mut sections = module_sections(&m);
    sections.reverse();
    assert_eq!(decode(&assemble(1, 2, &sections)).unwrap(), m);
    // A 1.0 or 1.1 file promised nothing about address 0: it runs as it always did.
    let old = decode(&assemble(1, 0, &sections)).unwrap();
    assert!(!old.null_reserved);
    assert_eq!(Module { null_reserved: true, ..old }, m);
}

#[test]
fn unknown_opcode_names_pc_and_byte() {
    let mut bytes = encode(&sample_module());
    // Instruction 0 is 6 bytes (LDADDR: opcode, depth u8, off u32) and instruction 1
    // starts right after it: payload + 4 (count) + 6.
    let at = payload_offset(&bytes, tag::CODE) + 4 + 6;
    bytes[at] = 0xEE;
    reseal(&mut bytes);
    match decode(&bytes) {
        Err(CodError::UnknownOpcode { pc: 1, opcode: 0xEE, byte }) => assert_eq!(byte, at),
        other => panic!("expected unknown opcode, got {other:?}"),
    }
}

#[test]
fn oversized_counts_are_refused_before_allocating() {
    let mut bytes = encode(&sample_module());
    // An instruction count of 4 billion in a section of a few hundred bytes.
    let at = payload_offset(&bytes, tag::CODE);
    bytes[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    reseal(&mut bytes);
    assert!(matches!(decode(&bytes), Err(CodError::BadSection { tag: tag::CODE, .. })));
    // A section count of 4 billion.
    let mut bytes = encode(&sample_module());
    bytes[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(decode(&bytes), Err(CodError::Truncated { offset: 12, .. })));
    // A section length of 4 GB.
    let mut bytes = encode(&sample_module());
    bytes[18..22].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(decode(&bytes), Err(CodError::Truncated { offset: 16, .. })));
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = encode(&sample_module());
    for n in 0..bytes.len() {
        let e = decode(&bytes[..n]);
        assert!(e.is_err(), "prefix of {n} bytes accepted");
    }
    // Cut inside a section (not the checksum): the error names the truncation.
    assert!(matches!(decode(&bytes[..40]), Err(CodError::Truncated { .. })));
}

#[test]
fn trailing_bytes_are_an_error() {
    let mut bytes = encode(&sample_module());
    bytes.push(0);
    assert!(matches!(decode(&bytes), Err(CodError::TrailingBytes { count: 5, .. })));
}

#[test]
fn every_single_bit_flip_is_detected() {
    // CRC-32 detects every single-bit error; flips in the magic, version or framing
    // are caught even before the checksum.
    let bytes = encode(&sample_module());
    let mut copy = bytes.clone();
    for i in 0..bytes.len() {
        for bit in 0..8 {
            copy[i] ^= 1 << bit;
            assert!(decode(&copy).is_err(), "flip of bit {bit} of byte {i} accepted");
            copy[i] ^= 1 << bit;
        }
    }
    // Away from header and framing, the flip shows as a checksum mismatch.
    copy[payload_offset(&bytes, tag::SOURCE) + 3] ^= 0x10;
    assert!(matches!(decode(&copy), Err(CodError::Checksum { .. })));
}

#[test]
fn read_file_names_the_file() {
    let dir = std::env::temp_dir().join(format!("cppe-cod-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.cod");
    std::fs::write(&good, encode(&sample_module())).unwrap();
    assert_eq!(read_file(&good).unwrap(), sample_module());
    let bad = dir.join("bad.cod");
    std::fs::write(&bad, b"garbage").unwrap();
    let e = read_file(&bad).unwrap_err();
    assert_eq!(e.to_string(), format!("{}: not a .cod file (bad magic)", bad.display()));
    let missing = dir.join("missing.cod");
    let e = read_file(&missing).unwrap_err();
    assert!(matches!(e, CodError::Io { .. }));
    assert!(e.to_string().starts_with(&missing.display().to_string()));
    std::fs::remove_dir_all(&dir).unwrap();
}

fn rejects(m: &Module, needle: &str) {
    match verify(m) {
        Err(CodError::Invalid { what }) => assert!(what.contains(needle), "message {what:?} lacks {needle:?}"),
        other => panic!("expected Invalid containing {needle:?}, got {other:?}"),
    }
    // decode runs the verifier too.
    assert!(matches!(decode(&encode(m)), Err(CodError::Invalid { .. })));
}

#[test]
fn verifier_rejects_jump_out_of_range() {
    let mut m = sample_module();
    m.code[15] = Instr::JumpIfFalse { target: 1000 };
    rejects(&m, "jump target 1000 outside 6..20");
    // Into another function is just as wrong.
    m.code[15] = Instr::JumpIfFalse { target: 2 };
    rejects(&m, "jump target 2 outside 6..20");
}

#[test]
fn verifier_rejects_bad_function_index() {
    let mut m = sample_module();
    m.code[9] = Instr::Fork { func: 7, chans: 1, vproc: true };
    rejects(&m, "function index 7, but there are 2 functions");
    let mut m = sample_module();
    m.main = 2;
    rejects(&m, "main is function 2");
    let mut m = sample_module();
    m.code[9] = Instr::Forall { func: 0, grouping: false };
    rejects(&m, "is not a forall body");
}

#[test]
fn verifier_rejects_falling_off_the_end() {
    let mut m = sample_module();
    m.code[5] = Instr::Nop {};
    rejects(&m, "function 0 (worker): last instruction 5 is not RET, HALT or JMP");
}

#[test]
fn verifier_rejects_structural_errors() {
    let mut m = sample_module();
    m.lines.pop();
    rejects(&m, "19 line entries for 20 instructions");

    let mut m = sample_module();
    m.src2cod.swap(0, 1);
    rejects(&m, "not sorted");

    let mut m = sample_module();
    m.structs[0].fields[2].ty = 4; // struct pt { ... struct pt next; }
    rejects(&m, "contains itself");

    let mut m = sample_module();
    m.types[8] = Type::Array { elem: 8, len: 3 };
    rejects(&m, "type 8 contains itself");

    let mut m = sample_module();
    m.types[5] = Type::Pointer(5);
    rejects(&m, "type 5 refers to itself");

    let mut m = sample_module();
    m.types[5] = Type::Pointer(99);
    rejects(&m, "refers to type 99");

    let mut m = sample_module();
    m.code[1] = Instr::LdVal { depth: 2, off: 0 };
    rejects(&m, "no enclosing frame of depth 2");

    let mut m = sample_module();
    m.code[1] = Instr::LdVal { depth: 1, off: 4 };
    rejects(&m, "offset 4 outside the area of 4 words");

    let mut m = sample_module();
    m.channels[0].base = 5; // elements 5 and 6 of a 6-word area
    rejects(&m, "exceed the 6 global words");

    let mut m = sample_module();
    m.global_init.push((6, Word::Int(1)));
    rejects(&m, "address 6 outside");

    let mut m = sample_module();
    m.functions[1].entry = 5;
    rejects(&m, "function 0 (worker) (0..6) overlaps function 1 (main) (5..20)");

    let mut m = sample_module();
    m.code[5] = Instr::Ret { n: 1 };
    rejects(&m, "returns 1 words");

    let mut m = sample_module();
    m.idents[2].off = 2;
    rejects(&m, "identifier 2 (worker): function 2 out of range");

    let mut m = sample_module();
    m.code[5] = Instr::Halt {};
    rejects(&m, "HALT outside main");

    let mut m = sample_module();
    m.idents[4].off = 2; // struct pt p (3 words) at 2..5 in worker's 4-word frame
    rejects(&m, "identifier 4 (p): words 2..5 outside the frame of function 0 (worker) (4 words)");

    let mut m = sample_module();
    m.blocks[1].parent = Some(1);
    rejects(&m, "block 1: parent");
}

#[test]
fn every_resealed_byte_edit_is_handled() {
    // With the checksum fixed up, edits reach postcard and the verifier. Each byte of
    // the sections set to 0, 0xFF and +1 in turn: decode must return (never panic), and
    // some of these must get as far as the verifier, or this test would not test it.
    let bytes = encode(&sample_module());
    let mut reached_verifier = 0;
    for i in HEADER_LEN..bytes.len() - CRC_LEN {
        for v in [0, 0xFF, bytes[i].wrapping_add(1)] {
            let mut copy = bytes.clone();
            copy[i] = v;
            reseal(&mut copy);
            if let Err(CodError::Invalid { .. }) = decode(&copy) {
                reached_verifier += 1;
            }
        }
    }
    assert!(reached_verifier > 0);
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = decode(&bytes);
    }

    #[test]
    fn arbitrary_bytes_after_a_valid_header_never_panic(
        rest in proptest::collection::vec(any::<u8>(), 0..600),
    ) {
        let mut bytes = encode(&sample_module())[..HEADER_LEN].to_vec();
        bytes.extend_from_slice(&rest);
        prop_assert!(decode(&bytes).is_err());
    }

    /// Damage that keeps the checksum valid reaches the section decoders and the
    /// verifier: they must answer with an error or a valid module, never a panic.
    #[test]
    fn resealed_damage_never_panics(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let mut bytes = encode(&sample_module());
        let body = bytes.len() - CRC_LEN - HEADER_LEN;
        for (i, v) in edits {
            bytes[HEADER_LEN + i.index(body)] = v;
        }
        reseal(&mut bytes);
        if let Ok(m) = decode(&bytes) {
            prop_assert!(verify(&m).is_ok());
        }
    }
}
