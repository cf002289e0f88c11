//! The communication matrix: bytes sent from each virtual processor to each other one,
//! read from its CSV form or built from a run record.
//!
//! The CSV form (also what `cpperf --format csv` writes for its communication matrix):
//!
//! ```text
//! src,dst,bytes
//! 0,1,4096
//! 1,0,4096
//! ```
//!
//! The first non-comment line is the header `src,dst,bytes` (spaces around fields are
//! allowed); each further line is one pair of virtual processor ids and a byte count.
//! `#` starts a comment; blank lines are ignored; a pair listed twice is summed; rows may
//! come in any order. A run record (recognised by its magic `CPPE\0RUN`) gives the same
//! matrix: process ids become virtual processors through the `ProcCreate` events, and the
//! bytes of every `MsgSend` between two processes placed on virtual processors are summed
//! per pair. Traffic from or to a process without a virtual processor (process 0, remote
//! memory traffic) has no place in a virtual-to-physical mapping and is left out.
use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::MapperError;
use crate::trace::{Event, RunHeader, RunRecordReader};

/// Bytes exchanged between virtual processors, as sorted `(src, dst) → bytes` entries with
/// no zero entries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommMatrix {
    entries: BTreeMap<(u32, u32), u64>,
}

impl CommMatrix {
    /// A matrix from `(src, dst, bytes)` triples; repeated pairs are summed, zero bytes
    /// dropped.
    pub fn from_triples(triples: impl IntoIterator<Item = (u32, u32, u64)>) -> CommMatrix {
        let mut m = CommMatrix::default();
        for (s, d, b) in triples {
            m.add(s, d, b);
        }
        m
    }

    fn add(&mut self, src: u32, dst: u32, bytes: u64) {
        if bytes > 0 {
            let slot = self.entries.entry((src, dst)).or_insert(0);
            *slot = slot.saturating_add(bytes);
        }
    }

    /// Parses the CSV form described in the module documentation. Errors name the line.
    pub fn parse_csv(text: &str) -> Result<CommMatrix, MapperError> {
        // Comments go first, line by line, so that record positions stay the file's lines.
        let cleaned: String = text.lines().map(|l| format!("{}\n", l.split('#').next().unwrap_or(""))).collect();
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(cleaned.as_bytes());
        let mut m = CommMatrix::default();
        let mut header_seen = false;
        for rec in reader.records() {
            let rec = rec.map_err(|e| MapperError::CommSyntax {
                line: e.position().map_or(0, |p| p.line() as usize),
                message: e.to_string(),
            })?;
            let line = rec.position().map_or(0, |p| p.line() as usize);
            let fields: Vec<&str> = rec.iter().collect();
            if fields.iter().all(|f| f.is_empty()) {
                continue;
            }
            let bad = |message: &str| MapperError::CommSyntax { line, message: message.to_string() };
            if !header_seen {
                if fields.len() == 3
                    && fields.iter().zip(["src", "dst", "bytes"]).all(|(f, w)| f.eq_ignore_ascii_case(w))
                {
                    header_seen = true;
                    continue;
                }
                return Err(bad("expected the header line `src,dst,bytes`"));
            }
            let [src, dst, bytes] = fields.as_slice() else {
                return Err(bad(&format!("expected 3 fields `src,dst,bytes`, found {}", fields.len())));
            };
            let number = |s: &str| s.parse::<u64>().map_err(|_| bad(&format!("`{s}` is not a non-negative integer")));
            let (src, dst, bytes) = (number(src)?, number(dst)?, number(bytes)?);
            let (Ok(src), Ok(dst)) = (u32::try_from(src), u32::try_from(dst)) else {
                return Err(bad("processor id too large"));
            };
            m.add(src, dst, bytes);
        }
        if !header_seen {
            return Err(MapperError::CommSyntax { line: 0, message: "empty: no `src,dst,bytes` header".into() });
        }
        Ok(m)
    }

    /// Builds the matrix from a run record; also returns the record's header (its
    /// topologies and mapping table serve as defaults).
    pub fn from_run_record(bytes: &[u8]) -> Result<(CommMatrix, RunHeader), MapperError> {
        CommMatrix::read_run_record(bytes)
    }

    /// [`CommMatrix::from_run_record`] streaming from a reader: the memory held is the
    /// matrix and a map of processes, not the record.
    pub fn read_run_record<R: std::io::Read>(input: R) -> Result<(CommMatrix, RunHeader), MapperError> {
        let record = |e: crate::trace::RecordError| MapperError::Record(e.to_string());
        let (mut reader, header) = RunRecordReader::open(input).map_err(record)?;
        let mut vproc_of: BTreeMap<u32, u32> = BTreeMap::new();
        let mut m = CommMatrix::default();
        while let Some(e) = reader.next_event().map_err(record)? {
            match e {
                Event::ProcCreate { pid, vproc: Some(v), .. } => {
                    vproc_of.insert(pid, v);
                }
                Event::MsgSend { src_pid, dst_pid: Some(dst_pid), bytes, .. } => {
                    if let (Some(&s), Some(&d)) = (vproc_of.get(&src_pid), vproc_of.get(&dst_pid)) {
                        m.add(s, d, u64::from(bytes));
                    }
                }
                _ => {}
            }
        }
        // Reading the footer verifies the checksum over everything consumed above.
        reader.footer().map_err(record)?;
        Ok((m, header))
    }

    /// Whether `bytes` start with the run record's magic.
    pub fn is_run_record(bytes: &[u8]) -> bool {
        bytes.starts_with(&crate::trace::record::MAGIC)
    }

    /// The entries `(src, dst, bytes)` in `(src, dst)` order.
    pub fn entries(&self) -> impl Iterator<Item = (u32, u32, u64)> + '_ {
        self.entries.iter().map(|(&(s, d), &b)| (s, d, b))
    }

    /// The total number of bytes.
    pub fn total_bytes(&self) -> u64 {
        self.entries.values().fold(0u64, |a, &b| a.saturating_add(b))
    }

    /// The largest virtual processor id named, if any.
    pub fn max_vproc(&self) -> Option<u32> {
        self.entries.keys().map(|&(s, d)| s.max(d)).max()
    }

    /// Checks that every id is a processor of a virtual architecture of `vprocs`.
    pub fn check_range(&self, vprocs: u32) -> Result<(), MapperError> {
        match self.entries.keys().find(|&&(s, d)| s >= vprocs || d >= vprocs) {
            Some(&(src, dst)) => Err(MapperError::CommOutOfRange { src, dst, vprocs }),
            None => Ok(()),
        }
    }

    /// The CSV form, header included.
    pub fn to_csv(&self) -> String {
        let mut out = String::from("src,dst,bytes\n");
        for (s, d, b) in self.entries() {
            let _ = writeln!(out, "{s},{d},{b}");
        }
        out
    }

    /// The symmetric sparse adjacency of `vprocs` virtual processors: for each one, its
    /// partners with the bytes exchanged in both directions, sorted by partner id.
    /// Self-traffic is dropped (it never crosses a link). Entries beyond `vprocs` are
    /// ignored (callers check with [`CommMatrix::check_range`] first).
    pub fn adjacency(&self, vprocs: u32) -> Adjacency {
        let mut pairs: BTreeMap<(u32, u32), u64> = BTreeMap::new();
        for (s, d, b) in self.entries() {
            if s == d || s >= vprocs || d >= vprocs {
                continue;
            }
            for key in [(s, d), (d, s)] {
                let slot = pairs.entry(key).or_insert(0);
                *slot = slot.saturating_add(b);
            }
        }
        let mut offsets = vec![0usize; vprocs as usize + 1];
        let mut partners = Vec::with_capacity(pairs.len());
        for (&(s, d), &b) in &pairs {
            if let Some(o) = offsets.get_mut(s as usize + 1) {
                *o += 1;
            }
            partners.push((d, b));
        }
        for i in 1..offsets.len() {
            offsets[i] += offsets[i - 1];
        }
        Adjacency { offsets, partners }
    }
}

/// A compressed sparse row view of a symmetric communication matrix (see
/// [`CommMatrix::adjacency`]); the weight of the pair `{a, b}` appears under both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Adjacency {
    offsets: Vec<usize>,
    partners: Vec<(u32, u64)>,
}

impl Adjacency {
    /// The partners of `v` with the bytes exchanged both ways (empty beyond the range).
    pub fn partners(&self, v: u32) -> &[(u32, u64)] {
        let (Some(&a), Some(&b)) = (self.offsets.get(v as usize), self.offsets.get(v as usize + 1)) else {
            return &[];
        };
        self.partners.get(a..b).unwrap_or(&[])
    }

    /// The number of virtual processors.
    pub fn vprocs(&self) -> u32 {
        self.offsets.len().saturating_sub(1) as u32
    }

    /// Bytes `v` exchanges with everyone else.
    pub fn volume(&self, v: u32) -> u64 {
        self.partners(v).iter().fold(0u64, |a, &(_, b)| a.saturating_add(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_with_comments_sums_repeats() {
        let text = "# matrix\n src , dst , bytes\n0,1,10\n\n1,0,5 # back\n0,1,2\n2,2,7\n";
        let m = CommMatrix::parse_csv(text).map_err(|e| e.to_string());
        let m = m.as_ref().map(|m| m.entries().collect::<Vec<_>>());
        // 0→1 is listed twice: 10 + 2 = 12.
        assert_eq!(m, Ok(vec![(0, 1, 12), (1, 0, 5), (2, 2, 7)]));
    }

    #[test]
    fn csv_errors_name_the_line() {
        let e = |t: &str| CommMatrix::parse_csv(t).map(|_| ()).map_err(|e| e.to_string());
        assert_eq!(e("0,1,2\n"), Err("communication matrix line 1: expected the header line `src,dst,bytes`".into()));
        assert!(e("src,dst,bytes\n0,1\n").is_err_and(|m| m.contains("line 2") && m.contains("found 2")));
        assert!(e("src,dst,bytes\n0,x,1\n").is_err_and(|m| m.contains("line 2") && m.contains("`x`")));
        assert!(e("src,dst,bytes\n0,-1,1\n").is_err());
        assert!(e("src,dst,bytes\n0,99999999999,1\n").is_err_and(|m| m.contains("too large")));
        assert!(e("").is_err());
    }

    #[test]
    fn round_trip_and_range() {
        let m = CommMatrix::from_triples([(3, 1, 4), (0, 2, 0), (1, 3, 6)]);
        // The zero entry is dropped.
        assert_eq!(m.to_csv(), "src,dst,bytes\n1,3,6\n3,1,4\n");
        assert_eq!(CommMatrix::parse_csv(&m.to_csv()), Ok(m.clone()));
        assert_eq!(m.total_bytes(), 10);
        assert_eq!(m.max_vproc(), Some(3));
        assert!(m.check_range(4).is_ok());
        assert_eq!(m.check_range(3), Err(MapperError::CommOutOfRange { src: 1, dst: 3, vprocs: 3 }));
    }

    #[test]
    fn adjacency_is_symmetric_without_self_traffic() {
        let m = CommMatrix::from_triples([(0, 1, 10), (1, 0, 5), (2, 2, 7), (2, 0, 1)]);
        let a = m.adjacency(3);
        // {0,1}: 10 + 5 = 15 both ways; {0,2}: 1; the 2→2 self traffic is gone.
        assert_eq!(a.partners(0), &[(1, 15), (2, 1)]);
        assert_eq!(a.partners(1), &[(0, 15)]);
        assert_eq!(a.partners(2), &[(0, 1)]);
        assert_eq!(a.partners(9), &[]);
        assert_eq!(a.volume(0), 16);
        assert_eq!(a.vprocs(), 3);
    }

    #[test]
    fn run_record_magic() {
        assert!(CommMatrix::is_run_record(b"CPPE\0RUN\x01\x00"));
        assert!(!CommMatrix::is_run_record(b"src,dst,bytes\n"));
    }

    #[test]
    fn matrix_from_a_run_record() {
        use crate::trace::{MsgPurpose, RunRecordWriter, RunStats};
        let header = RunHeader {
            pprocs: 2,
            functions: vec!["main".into()],
            channels: vec![crate::trace::ChannelDecl { name: "c".into(), dims: vec![] }],
            mapping: vec![0, 1],
            ..RunHeader::default()
        };
        let mut w = match RunRecordWriter::new(Vec::new(), &header) {
            Ok(w) => w,
            Err(e) => panic!("{e}"),
        };
        let create = |pid, vproc, pproc| Event::ProcCreate {
            time: 0,
            parent: if pid == 0 { None } else { Some(0) },
            pid,
            vproc,
            pproc,
            function: 0,
            line: 0,
        };
        w.event(&create(0, None, 0));
        w.event(&create(1, Some(0), 0));
        w.event(&create(2, Some(1), 1));
        let send = |msg, src_pid, dst_pid, bytes| Event::MsgSend {
            time: 1,
            msg,
            src_pid,
            src_pproc: 0,
            dst_pid,
            dst_pproc: 1,
            purpose: MsgPurpose::Channel { channel: 0, index: 0 },
            bytes,
            line: 1,
        };
        w.event(&send(0, 1, Some(2), 8));
        w.event(&send(1, 1, Some(2), 4));
        w.event(&send(2, 2, Some(1), 16));
        // Traffic of process 0 (no virtual processor) and remote traffic are left out.
        w.event(&send(3, 0, Some(2), 100));
        w.event(&send(4, 1, None, 100));
        let bytes = match w.finish(&RunStats::default()) {
            Ok(b) => b,
            Err(e) => panic!("{e}"),
        };
        let (m, h) = match CommMatrix::from_run_record(&bytes) {
            Ok(x) => x,
            Err(e) => panic!("{e}"),
        };
        // vproc 0 → 1: 8 + 4; vproc 1 → 0: 16.
        assert_eq!(m.entries().collect::<Vec<_>>(), vec![(0, 1, 12), (1, 0, 16)]);
        assert_eq!(h.mapping, vec![0, 1]);
        assert!(CommMatrix::from_run_record(&bytes[..bytes.len() - 1]).is_err());
    }
}
