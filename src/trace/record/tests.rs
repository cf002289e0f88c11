//! Tests of the run record: [`super`] and its writing, reading and decoding.
use super::payload::{decode_event, fast_checked, fast_event};
use super::write::encode_varint;
use super::*;
use crate::trace::event::{BusyClass, ChannelDecl, ExitStatus, MsgPurpose, ProcState};
use crate::vcode::cod::crc32;
use proptest::prelude::*;

fn header() -> RunHeader {
    RunHeader {
        tool_version: "cpss 0.1.0".into(),
        program: "matmul".into(),
        source_name: "matmul.c".into(),
        source: "int main() { return 0; }\n".into(),
        topology: "mesh:2x2".into(),
        virtual_topology: "torus:2x2".into(),
        mapping: vec![0, 1, 3, 2],
        pprocs: 4,
        network: "wormhole".into(),
        network_params: vec![("lanes".into(), "2".into()), ("flit-size".into(), "4 bytes".into())],
        costs: vec![("LDVal".into(), 1), ("SEND".into(), 10)],
        seed: 42,
        quantum_ticks: 10 * TICKS,
        ticks_per_unit: TICKS,
        options: vec![("max-time".into(), "1000000".into())],
        functions: vec!["main".into(), "worker".into()],
        channels: vec![
            ChannelDecl { name: "c".into(), dims: vec![] },
            ChannelDecl { name: "a".into(), dims: vec![2, 2] },
        ],
        labels: vec!["start".into()],
    }
}

const TICKS: Ticks = crate::time::TICKS_PER_UNIT;

/// One event of every kind, every reason and every message purpose, in time order.
fn events() -> Vec<Event> {
    let ch = Reason::Channel { channel: 1, index: 3 };
    vec![
        Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: Some(0), pproc: 0, function: 0, line: 0 },
        Event::Probe { time: 0, pid: 0, pproc: 0, id: 1, label: 0 },
        Event::State { time: 0, pid: 0, state: ProcState::Running, reason: Reason::None },
        Event::ProcCreate { time: 5, parent: Some(0), pid: 1, vproc: None, pproc: 3, function: 1, line: 7 },
        Event::State { time: 5, pid: 1, state: ProcState::Ready, reason: Reason::None },
        Event::MsgSend {
            time: 6,
            msg: 0,
            src_pid: 0,
            src_pproc: 0,
            dst_pid: Some(1),
            dst_pproc: 3,
            purpose: MsgPurpose::Channel { channel: 1, index: 3 },
            bytes: 4,
            line: 9,
        },
        Event::MsgSend {
            time: 6,
            msg: 1,
            src_pid: 0,
            src_pproc: 0,
            dst_pid: None,
            dst_pproc: 2,
            purpose: MsgPurpose::RemoteRead { addr: 100 },
            bytes: 4,
            line: 10,
        },
        Event::State { time: 6, pid: 0, state: ProcState::Blocked, reason: Reason::RemoteRead { owner: 2 } },
        Event::RecvCall { time: 7, pid: 1, pproc: 3, channel: 1, index: 3, line: 12 },
        Event::State { time: 7, pid: 1, state: ProcState::Blocked, reason: ch },
        Event::Busy { pproc: 0, pid: 0, start: 0, end: 7, line: 9, class: BusyClass::Overhead },
        Event::Hop { msg: 0, packet: 0, from: 0, to: 1, enter: 6, leave: 8 },
        Event::Hop { msg: 0, packet: 0, from: 1, to: 3, enter: 8, leave: 10 },
        Event::MsgArrive { time: 10, msg: 0, dst_pproc: 3 },
        Event::RecvDone { time: 10, pid: 1, pproc: 3, msg: 0, src_pid: 0, bytes: 4 },
        Event::MsgArrive { time: 11, msg: 1, dst_pproc: 2 },
        Event::MsgSend {
            time: 11,
            msg: 2,
            src_pid: 1,
            src_pproc: 2,
            dst_pid: Some(0),
            dst_pproc: 0,
            purpose: MsgPurpose::RemoteReply { addr: 100 },
            bytes: 4,
            line: 10,
        },
        Event::MsgSend {
            time: 11,
            msg: 3,
            src_pid: 1,
            src_pproc: 3,
            dst_pid: None,
            dst_pproc: 2,
            purpose: MsgPurpose::RemoteWrite { addr: 101 },
            bytes: 4,
            line: 13,
        },
        Event::State { time: 12, pid: 1, state: ProcState::Delayed, reason: Reason::Delay { until: 20 } },
        Event::State { time: 12, pid: 0, state: ProcState::Spinning, reason: Reason::Lock { lock: 8 } },
        Event::State { time: 13, pid: 0, state: ProcState::Blocked, reason: Reason::Join },
        Event::State { time: 13, pid: 0, state: ProcState::Blocked, reason: Reason::Forall },
        Event::State { time: 14, pid: 0, state: ProcState::Ready, reason: Reason::Quantum },
        Event::State { time: 14, pid: 0, state: ProcState::Blocked, reason: Reason::Children },
        Event::Label { time: 15, index: 1, text: "phase 2".into() },
        Event::Probe { time: 15, pid: 1, pproc: 3, id: -2, label: 1 },
        Event::TimeOff { time: 16, pid: 1 },
        Event::Enter { time: 16, pid: 1, function: 1 },
        Event::TimeOn { time: 17, pid: 1 },
        Event::Leave { time: 18, pid: 1, function: 1 },
        Event::ProcEnd { time: 30, pid: 1 },
        Event::State { time: 30, pid: 1, state: ProcState::Ended, reason: Reason::None },
        Event::Busy { pproc: 3, pid: 1, start: 7, end: 30, line: 12, class: BusyClass::Work },
        Event::LineCost { time: 30, line: 12, work: 23, overhead: 0 },
        Event::ProcEnd { time: u64::MAX, pid: 0 },
    ]
}

fn stats() -> RunStats {
    RunStats {
        seq_ticks: 23,
        par_ticks: 30,
        pprocs_used: 2,
        busy_ticks: vec![7, 0, 0, 23],
        processes: 2,
        messages: 4,
        bytes: 16,
        total_latency_ticks: 9,
        latency_messages: None,
        instructions: 12,
        exit: ExitStatus::Deadlock,
        message: "process 0 waits for join".into(),
    }
}

fn write(h: &RunHeader, evs: &[Event], s: &RunStats) -> Vec<u8> {
    let mut w = RunRecordWriter::new(Vec::new(), h).unwrap();
    for e in evs {
        w.event(e);
    }
    w.finish(s).unwrap()
}

fn sample() -> Vec<u8> {
    write(&header(), &events(), &stats())
}

fn read_all(bytes: &[u8]) -> Result<(RunHeader, Vec<Event>, Footer), RecordError> {
    let (mut r, h) = RunRecordReader::open(bytes)?;
    let mut evs = Vec::new();
    while let Some(e) = r.next_event()? {
        evs.push(e);
    }
    Ok((h, evs, r.footer()?))
}

/// Builds a record from raw `(kind, payload)` records with a correct footer checksum,
/// to reach the reader's checks behind the CRC.
fn assemble(records: &[(u8, Vec<u8>)], footer_payload: &[u8]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&[1, 0, 0, 0]);
    let push = |out: &mut Vec<u8>, k: u8, len: usize| {
        out.push(k);
        let mut v = [0u8; MAX_VARINT_LEN];
        let n = encode_varint(len as u32, &mut v);
        out.extend_from_slice(&v[..n]);
    };
    for (k, p) in records {
        push(&mut out, *k, p.len());
        out.extend_from_slice(p);
    }
    push(&mut out, kind::FOOTER, footer_payload.len() + CRC_LEN);
    out.extend_from_slice(footer_payload);
    let crc = crc32(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

fn header_rec() -> (u8, Vec<u8>) {
    (kind::HEADER, postcard::to_allocvec(&header()).unwrap())
}

fn event_rec(e: &Event) -> (u8, Vec<u8>) {
    (kind::EVENT, postcard::to_allocvec(e).unwrap())
}

fn footer_payload(events: u64) -> Vec<u8> {
    postcard::to_allocvec(&(stats(), events)).unwrap()
}

#[test]
fn round_trip_of_every_event_kind() {
    let bytes = sample();
    let (h, evs, footer) = read_all(&bytes).unwrap();
    assert_eq!(h, header());
    assert_eq!(evs, events());
    assert_eq!(footer.stats, stats());
    assert_eq!(footer.event_count, events().len() as u64);
    // The stored checksum is the one-shot CRC of everything but the last four bytes.
    assert_eq!(footer.crc, crc32(&bytes[..bytes.len() - 4]));
    let kinds: std::collections::BTreeSet<_> = evs.iter().map(Event::kind_name).collect();
    assert_eq!(kinds.len(), 16, "all 16 event kinds are exercised: {kinds:?}");
}

#[test]
fn byte_layout_is_as_documented() {
    let bytes = sample();
    assert_eq!(&bytes[..8], b"CPPE\0RUN");
    assert_eq!(&bytes[8..12], &[1, 0, 3, 0], "major 1, minor 3, little-endian u16s");
    assert_eq!(bytes[12], kind::HEADER);
    let stored = u32::from_le_bytes(bytes[bytes.len() - 4..].try_into().unwrap());
    assert_eq!(stored, crc32(&bytes[..bytes.len() - 4]));
    // The header payload follows a one- or two-byte LEB128 length; decode it by hand.
    let payload = postcard::to_allocvec(&header()).unwrap();
    assert!(payload.len() >= 128 && payload.len() < 16384, "a two-byte length: {}", payload.len());
    assert_eq!(bytes[13], (payload.len() & 0x7F) as u8 | 0x80);
    assert_eq!(bytes[14], (payload.len() >> 7) as u8);
    assert_eq!(&bytes[15..15 + payload.len()], &payload[..]);
}

#[test]
fn varint_lengths() {
    let enc = |x: u32| {
        let mut v = [0u8; MAX_VARINT_LEN];
        let n = encode_varint(x, &mut v);
        v[..n].to_vec()
    };
    // LEB128: 7 bits per byte, low group first, high bit = more follows.
    assert_eq!(enc(0), [0]);
    assert_eq!(enc(127), [0x7F]);
    assert_eq!(enc(128), [0x80, 0x01]);
    assert_eq!(enc(300), [0xAC, 0x02]);
    assert_eq!(enc(u32::MAX), [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]);
}

#[test]
fn every_truncation_is_reported_at_the_cut() {
    let bytes = sample();
    for n in 0..bytes.len() {
        match read_all(&bytes[..n]) {
            Err(RecordError::Truncated { offset }) => assert_eq!(offset, n as u64, "cut at {n}"),
            other => panic!("cut at {n}: expected Truncated, got {other:?}"),
        }
    }
}

#[test]
fn every_bit_flip_is_detected() {
    let bytes = sample();
    for i in 0..bytes.len() {
        for bit in 0..8 {
            let mut b = bytes.clone();
            b[i] ^= 1 << bit;
            assert!(read_all(&b).is_err(), "flip of bit {bit} of byte {i} went unnoticed");
        }
    }
}

#[test]
fn a_flipped_statistic_is_a_checksum_error() {
    let mut bytes = sample();
    // The byte before the CRC is the last byte of the footer's postcard payload.
    let i = bytes.len() - 5;
    bytes[i] ^= 0x01;
    assert!(matches!(read_all(&bytes), Err(RecordError::Checksum { .. })));
}

#[test]
fn magic_and_version_errors() {
    assert!(matches!(read_all(b"PICL 2.0 text"), Err(RecordError::BadMagic)));
    assert!(matches!(read_all(b""), Err(RecordError::Truncated { offset: 0 })));
    let mut bytes = sample();
    bytes[8] = 2;
    match read_all(&bytes) {
        Err(RecordError::UnsupportedVersion { found: (2, 3), supported: (1, 3) }) => {}
        other => panic!("{other:?}"),
    }
    // A newer minor version of the same major is accepted, and the checksum (which
    // covers the version) must then match.
    let mut bytes = assemble(&[header_rec()], &footer_payload(0));
    bytes[10] = 7;
    let n = bytes.len() - 4;
    let crc = crc32(&bytes[..n]);
    bytes[n..].copy_from_slice(&crc.to_le_bytes());
    assert!(read_all(&bytes).is_ok());
}

#[test]
fn inconsistent_headers_are_refused_by_both_ends() {
    let mut h = header();
    h.mapping[2] = 4; // pprocs is 4: processors 0..=3
    let err = RunRecordWriter::new(Vec::new(), &h).unwrap_err();
    assert!(err.to_string().contains("virtual processor 2 on physical processor 4"), "{err}");
    let bytes = assemble(&[(kind::HEADER, postcard::to_allocvec(&h).unwrap())], &footer_payload(0));
    assert!(matches!(read_all(&bytes), Err(RecordError::Corrupt { offset: 12, .. })));
    let h = RunHeader { ticks_per_unit: 0, ..RunHeader::default() };
    assert!(RunRecordWriter::new(Vec::new(), &h).is_err());
    // The default header is valid: no processors, nothing mapped.
    assert!(RunHeader::default().check().is_ok());
}

#[test]
fn framing_errors() {
    let mut pre = MAGIC.to_vec();
    pre.extend_from_slice(&[1, 0, 0, 0]);
    let corrupt_at = |tail: &[u8]| {
        let mut b = pre.clone();
        b.extend_from_slice(tail);
        match RunRecordReader::open(&b[..]) {
            Err(RecordError::Corrupt { offset: 12, reason }) => reason,
            other => panic!("{tail:?}: {other:?}"),
        }
    };
    // An event beyond 16 MiB: 16 MiB + 1 = 0x0100_0001 → LEB128 81 80 80 08 (the length
    // is checked before the kind's place).
    assert!(corrupt_at(&[2, 0x81, 0x80, 0x80, 0x08]).contains("exceeds the limit of 16777216 bytes"));
    // A header beyond 256 MiB: 0x1000_0001 → 81 80 80 80 01.
    assert!(corrupt_at(&[1, 0x81, 0x80, 0x80, 0x80, 0x01]).contains("exceeds the limit of 268435456 bytes"));
    // A header of 16 MiB + 1 is within its limit: the file just ends inside it.
    let mut b = pre.clone();
    b.extend_from_slice(&[1, 0x81, 0x80, 0x80, 0x08]);
    assert!(matches!(RunRecordReader::open(&b[..]), Err(RecordError::Truncated { offset: 17 })));
    assert!(corrupt_at(&[1, 0x80, 0x00]).contains("redundant"));
    assert!(corrupt_at(&[1, 0xFF, 0xFF, 0xFF, 0xFF, 0x1F]).contains("32 bits"));
    assert!(corrupt_at(&[2, 0]).contains("not the header"));
    // A header payload with a byte too many.
    let mut p = postcard::to_allocvec(&header()).unwrap();
    p.push(0);
    let b = assemble(&[(kind::HEADER, p)], &footer_payload(0));
    match RunRecordReader::open(&b[..]) {
        Err(RecordError::Corrupt { offset: 12, reason }) => {
            assert!(reason.contains("1 unexpected bytes"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

/// The header and footer of a machine of millions of processors exceed the 16 MiB of an
/// event: here 2^22 virtual processors mapped onto processors near 2^24 (4 bytes each,
/// 16 MiB and more) and 2^21 processors' busy times of 2^62 ticks (9 bytes each, 18 MiB).
/// Both ends take them, and what is read back is what was written.
#[test]
fn headers_and_footers_of_large_machines_exceed_an_event_s_limit() {
    let pprocs = 1u32 << 24;
    let h = RunHeader { mapping: (0..1u32 << 22).map(|v| pprocs - 1 - v).collect(), pprocs, ..header() };
    let s = RunStats { busy_ticks: vec![1 << 62; 1 << 21], ..stats() };
    let bytes = write(&h, &[], &s);
    assert!(bytes.len() > 2 * MAX_RECORD_LEN as usize, "{} bytes", bytes.len());
    let (h2, evs, footer) = read_all(&bytes).unwrap();
    assert!(evs.is_empty());
    assert_eq!(h2, h);
    assert_eq!(footer.stats, s);
}

#[test]
fn record_level_errors_behind_a_valid_checksum() {
    let e = event_rec(&Event::TimeOn { time: 5, pid: 0 });
    let corrupt = |bytes: Vec<u8>| match read_all(&bytes) {
        Err(RecordError::Corrupt { reason, .. }) => reason,
        other => panic!("{other:?}"),
    };
    // Optional kinds are skipped; the event count covers events only.
    let ok = assemble(&[header_rec(), (0x80, vec![1, 2, 3]), e.clone()], &footer_payload(1));
    assert_eq!(read_all(&ok).unwrap().1.len(), 1);
    assert!(corrupt(assemble(&[header_rec(), (9, vec![])], &footer_payload(0))).contains("unknown record kind 9"));
    assert!(corrupt(assemble(&[header_rec(), header_rec()], &footer_payload(0))).contains("second header"));
    assert!(corrupt(assemble(&[header_rec(), e.clone()], &footer_payload(2))).contains("footer counts 2"));
    let late = event_rec(&Event::TimeOn { time: 4, pid: 0 });
    assert!(corrupt(assemble(&[header_rec(), e.clone(), late], &footer_payload(2))).contains("follows"));
    let bad_label = event_rec(&Event::Probe { time: 6, pid: 0, pproc: 0, id: 0, label: 1 });
    assert!(corrupt(assemble(&[header_rec(), bad_label], &footer_payload(1))).contains("not defined"));
    let bad_proc = event_rec(&Event::MsgArrive { time: 6, msg: 0, dst_pproc: 4 });
    assert!(corrupt(assemble(&[header_rec(), bad_proc], &footer_payload(1))).contains("not below the 4"));
    let mut after = ok.clone();
    after.push(0);
    assert!(corrupt(after).contains("after the footer"));
}

#[test]
fn errors_are_sticky_and_the_iterator_stops() {
    let bytes = sample();
    let cut = &bytes[..bytes.len() - 10];
    let (mut r, _) = RunRecordReader::open(cut).unwrap();
    let results: Vec<_> = (&mut r).collect();
    assert_eq!(results.iter().filter(|x| x.is_err()).count(), 1);
    assert!(results.last().unwrap().is_err());
    assert!(r.next_event().is_err());
    assert!(r.footer().is_err());
}

#[test]
fn footer_skips_unread_events_and_labels_are_tracked() {
    let bytes = sample();
    let (mut r, _) = RunRecordReader::open(&bytes[..]).unwrap();
    assert_eq!(r.labels(), &["start".to_string()]);
    let f = r.footer().unwrap();
    assert_eq!(f.event_count, r.events_read());
    assert_eq!(r.label(1), Some("phase 2"));
    assert_eq!(r.offset(), bytes.len() as u64);
    assert_eq!(r.next_event().unwrap(), None);
}

#[test]
fn the_writer_refuses_what_the_reader_would_refuse() {
    let bad = [
        vec![Event::TimeOn { time: 5, pid: 0 }, Event::TimeOn { time: 4, pid: 0 }],
        vec![Event::Label { time: 0, index: 2, text: "x".into() }],
        vec![Event::Busy { pproc: 0, pid: 0, start: 3, end: 2, line: 1, class: BusyClass::Work }],
        vec![Event::RecvCall { time: 0, pid: 0, pproc: 0, channel: 2, index: 0, line: 1 }],
        vec![Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 2, line: 0 }],
    ];
    for evs in bad {
        let mut w = RunRecordWriter::new(Vec::new(), &header()).unwrap();
        for e in &evs {
            w.event(e);
        }
        let err = w.finish(&stats()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{evs:?}");
    }
}

#[test]
fn write_errors_are_kept_for_finish() {
    #[derive(Debug)]
    struct Full;
    impl Write for Full {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    // The header fits in the 64 KiB buffer, so the failure shows at the first flush.
    let w = RunRecordWriter::new(Full, &header()).unwrap();
    assert_eq!(w.finish(&stats()).unwrap_err().kind(), io::ErrorKind::StorageFull);
}

#[test]
fn tracers() {
    let mut t = NoTrace;
    t.event(&Event::TimeOn { time: 0, pid: 0 });
    assert!(!t.enabled());
    assert!(!TimeOrder::new(NoTrace).enabled());

    let on = |time, pid| Event::TimeOn { time, pid };
    let mut o = TimeOrder::new(Vec::new());
    // Processor 0's turn of the quantum [0, 10), then processor 1's.
    for e in [on(2, 0), on(9, 0), on(12, 0), on(1, 1), on(9, 1)] {
        o.event(&e);
    }
    o.release_before(10);
    // Sorted by time; the two events at 9 keep their arrival order (pid 0 first);
    // the one at 12 waits for a later horizon.
    assert_eq!(o.inner, vec![on(1, 1), on(2, 0), on(9, 0), on(9, 1)]);
    o.event(&on(10, 1));
    o.event(&on(u64::MAX, 1));
    assert_eq!(o.into_inner()[4..], [on(10, 1), on(12, 0), on(u64::MAX, 1)]);
}

/// Writes `n` busy intervals and reads them back, returning the reader's largest
/// buffer capacity.
fn stream(n: u64) -> usize {
    let h = header();
    let mut w = RunRecordWriter::new(Vec::new(), &h).unwrap();
    for i in 0..n {
        w.event(&Event::Busy {
            pproc: (i % 4) as u32,
            pid: i as u32,
            start: i,
            end: i + 1,
            line: 3,
            class: BusyClass::Work,
        });
    }
    let bytes = w.finish(&stats()).unwrap();
    let (mut r, _) = RunRecordReader::open(&bytes[..]).unwrap();
    let mut seen = 0;
    let mut max_cap = 0;
    while let Some(e) = r.next_event().unwrap() {
        assert_eq!(e.time(), seen + 1);
        seen += 1;
        max_cap = max_cap.max(r.buf.capacity());
    }
    assert_eq!(seen, n);
    assert_eq!(r.footer().unwrap().event_count, n);
    max_cap
}

#[test]
fn reading_holds_one_record_at_a_time() {
    // The header (a few hundred bytes) is the largest record; events reuse its
    // buffer, so 10 000 events need no more room than 10.
    let small = stream(10);
    let large = stream(10_000);
    assert_eq!(small, large);
    assert!(large < 4096, "{large}");
}

#[test]
#[ignore = "a million events take a few seconds in a debug build"]
fn a_million_events() {
    stream(1_000_000);
}

/// What postcard makes of a whole payload (the reference the fast decoder must match).
fn postcard_event(bytes: &[u8]) -> Option<Event> {
    match postcard::take_from_bytes::<Event>(bytes) {
        Ok((e, [])) => Some(e),
        _ => None,
    }
}

#[test]
fn fast_decoding_gives_postcard_s_value_for_every_kind() {
    // The reference is postcard itself: every kind, reason and purpose of `events()`, and
    // the extremes of each field type (varints of 1, 5 and 10 bytes, negative zigzag).
    let mut all = events();
    all.push(Event::Probe { time: u64::MAX, pid: u32::MAX, pproc: 0, id: i32::MIN, label: 0 });
    all.push(Event::Probe { time: 0, pid: 0, pproc: 0, id: i32::MAX, label: u32::MAX });
    all.push(Event::State {
        time: 1 << 35,
        pid: 1,
        state: ProcState::Delayed,
        reason: Reason::Delay { until: u64::MAX },
    });
    for e in &all {
        let bytes = postcard::to_allocvec(e).unwrap();
        assert_eq!(postcard_event(&bytes).as_ref(), Some(e));
        // Labels carry text and are left to postcard.
        let want = if matches!(e, Event::Label { .. }) { None } else { Some(e) };
        assert_eq!(fast_event(&bytes).as_ref(), want, "{e:?}");
        assert_eq!(&decode_event(&bytes, 0).unwrap(), e);
    }
    // Varints of every length, read word-wise (eight bytes remain) or byte by byte
    // (near the end): values with 1 to 64 significant bits, and u32 fields of 1 to 32.
    for bits in 1..=64u32 {
        let v = u64::MAX >> (64 - bits);
        let w = (v & u64::from(u32::MAX)) as u32;
        for e in [
            Event::MsgArrive { time: v, msg: v, dst_pproc: w },
            Event::MsgArrive { time: 1 << (bits - 1), msg: 0, dst_pproc: 0 },
            Event::RecvCall { time: 0, pid: w, pproc: w >> 1, channel: 1, index: w, line: w },
            Event::Probe { time: v, pid: 0, pproc: 0, id: w as i32, label: w },
        ] {
            let bytes = postcard::to_allocvec(&e).unwrap();
            assert_eq!(fast_event(&bytes), Some(e));
        }
    }
    // Longer-than-needed varints are accepted by postcard, so by the fast path too:
    // ProcEnd (variant 1) with time 5 written as 0x85 0x00 and pid 7.
    let overlong = [1, 0x85, 0x00, 7];
    assert_eq!(postcard_event(&overlong), Some(Event::ProcEnd { time: 5, pid: 7 }));
    assert_eq!(fast_event(&overlong), Some(Event::ProcEnd { time: 5, pid: 7 }));
    // The same inside a word (time 5 in four bytes, pid 7 in three), and a pid of six
    // bytes, which no u32 may have.
    let overlong = [1, 0x85, 0x80, 0x80, 0x00, 0x87, 0x80, 0x00];
    assert_eq!(postcard_event(&overlong), Some(Event::ProcEnd { time: 5, pid: 7 }));
    assert_eq!(fast_event(&overlong), Some(Event::ProcEnd { time: 5, pid: 7 }));
    let six = [1, 5, 0x87, 0x80, 0x80, 0x80, 0x80, 0x00, 0, 0];
    assert_eq!((postcard_event(&six), fast_event(&six)), (None, None));
    // A u32 whose fifth byte has bits beyond 32 (0x10) is refused by both; a trailing
    // byte, an unknown variant (14) and a bad option tag (2) by the fast path, and
    // decode_event then reports postcard's error.
    for bad in [&[1, 5, 0xFF, 0xFF, 0xFF, 0xFF, 0x10][..], &[1, 5, 7, 0], &[14, 0], &[0, 0, 2, 0, 0, 0, 0, 0]] {
        assert_eq!(postcard_event(bad), None);
        assert_eq!(fast_event(bad), None);
        let err = decode_event(bad, 40).unwrap_err().to_string();
        assert!(err.starts_with("corrupt run record at byte 40: "), "{err}");
    }
}

/// What [`RunRecordReader::read_batch`] makes of `bytes`, `max` events at a time: the
/// events, and the error that stopped it (as text) or the footer.
fn read_batches(bytes: &[u8], max: usize) -> (Vec<Event>, Result<Footer, String>) {
    let mut evs = Vec::new();
    let (mut r, _) = match RunRecordReader::open(bytes) {
        Ok(x) => x,
        Err(e) => return (evs, Err(e.to_string())),
    };
    loop {
        match r.read_batch(&mut evs, max) {
            Ok(true) => return (evs, r.footer().map_err(|e| e.to_string())),
            Ok(false) => {}
            Err(e) => return (evs, Err(e.to_string())),
        }
    }
}

/// The same through [`RunRecordReader::next_event`], the reference.
fn read_one_by_one(bytes: &[u8]) -> (Vec<Event>, Result<Footer, String>) {
    let mut evs = Vec::new();
    let (mut r, _) = match RunRecordReader::open(bytes) {
        Ok(x) => x,
        Err(e) => return (evs, Err(e.to_string())),
    };
    loop {
        match r.next_event() {
            Ok(Some(e)) => evs.push(e),
            Ok(None) => return (evs, r.footer().map_err(|e| e.to_string())),
            Err(e) => return (evs, Err(e.to_string())),
        }
    }
}

#[test]
fn batches_read_what_single_events_read() {
    // Every batch size from 1 to past the record's length, on the sample record and on
    // records damaged at every 7th byte or cut short: the same events, then the same
    // footer or error.
    let good = sample();
    let mut inputs = vec![good.clone()];
    for at in (12..good.len()).step_by(7) {
        let mut b = good.clone();
        b[at] ^= 0x55;
        inputs.push(b);
        inputs.push(good[..at].to_vec());
    }
    for bytes in &inputs {
        let want = read_one_by_one(bytes);
        for max in [1, 2, 3, 5, events().len() + 1] {
            assert_eq!(read_batches(bytes, max), want);
        }
    }
    assert_eq!(read_batches(&good, 4).0, events());
}

proptest! {
    #[test]
    fn fast_decoding_never_disagrees_with_postcard(
        pick in any::<prop::sample::Index>(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
        cut in any::<prop::sample::Index>(),
        extra in proptest::collection::vec(any::<u8>(), 0..3),
    ) {
        // A damaged encoding of a real event: whatever the fast path accepts, postcard
        // accepts as the same event; whatever it declines goes to postcard anyway.
        let all = events();
        let mut b = postcard::to_allocvec(&all[pick.index(all.len())]).unwrap();
        for (at, v) in edits {
            let i = at.index(b.len());
            b[i] = v;
        }
        b.truncate(cut.index(b.len() + 1));
        b.extend_from_slice(&extra);
        if let Some(e) = fast_event(&b) {
            prop_assert_eq!(Some(e), postcard_event(&b));
        }
    }

    #[test]
    fn fast_checks_agree_with_the_checker(
        pick in any::<prop::sample::Index>(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
    ) {
        // A real event with damaged numbers (a processor, channel, function or label out
        // of the header's tables, a busy interval or hop backwards): the reader's fast
        // check passes it exactly when the full check does (but for the time, which the
        // reader compares itself: a fresh checker has seen none), and it reads the time
        // [`Event::time`] reads.
        let all = events();
        let mut b = postcard::to_allocvec(&all[pick.index(all.len())]).unwrap();
        for (at, v) in edits {
            let i = at.index(b.len());
            b[i] = v;
        }
        let mut ck = Checker::new(&header());
        if let Some((e, time, ok)) = fast_checked(&b, &ck) {
            prop_assert_eq!(time, e.time());
            prop_assert_eq!(ok, ck.check(&e).is_ok(), "{:?}", e);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = read_all(&bytes);
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&[1, 0, 0, 0]);
        b.extend_from_slice(&bytes);
        let _ = read_all(&b);
    }

    #[test]
    fn a_mutated_record_reads_back_only_if_unchanged(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<prop::sample::Index>(),
        shorten in any::<bool>(),
    ) {
        let original = sample();
        let mut b = original.clone();
        for (at, v) in edits {
            let i = at.index(b.len());
            b[i] = v;
        }
        if shorten {
            b.truncate(cut.index(b.len()));
        }
        if read_all(&b).is_ok() {
            prop_assert_eq!(b, original);
        }
    }
}

#[test]
fn a_state_s_number_is_postcard_s_variant_index() {
    // The record decoder reads a state by its number (ProcState::from_code), so each
    // number must be the one postcard writes: the variant's index, in declaration order.
    for (i, s) in ProcState::ALL.into_iter().enumerate() {
        assert_eq!(postcard::to_allocvec(&s).unwrap(), vec![s.code()], "{s:?}");
        assert_eq!((usize::from(s.code()), ProcState::from_code(i as u64)), (i, Some(s)));
    }
    assert_eq!(ProcState::from_code(6), None);
    assert_eq!(ProcState::from_code(u64::MAX), None);
}

#[test]
fn a_reason_s_code_is_its_number_in_the_record_and_in_sddf() {
    // postcard writes an enum variant as its index (one byte below 128): the first byte
    // of an encoded reason is its code, which SDDF's `reason` field carries too, and
    // `from_code` reads back the same kind (with its detail word where it has one).
    for (k, r) in Reason::EACH.iter().enumerate() {
        assert_eq!(usize::from(r.code()), k, "{r:?}");
        assert_eq!(postcard::to_allocvec(r).unwrap()[0], r.code(), "{r:?}");
        let detail = r.detail(|_, index| u64::from(index));
        assert_eq!(Reason::from_code(u64::from(r.code()), detail), Some(*r), "{r:?}");
    }
    assert_eq!(Reason::from_code(9, 0), None);
    // A delay's detail is its wake time, a lock's its address.
    assert_eq!(Reason::Delay { until: 77 }.detail(|_, _| 0), 77);
    assert_eq!(Reason::from_code(4, 12), Some(Reason::Lock { lock: 12 }));
}
