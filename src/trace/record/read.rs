//! The streaming [`RunRecordReader`]: framing, checksum and checks.
use super::payload::{decode, decode_event, fast_checked};
use super::*;
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Events,
    Ended,
    Failed,
}

/// Reads a run record one record at a time: [`open`](Self::open) checks the preamble
/// and returns the header, [`next_event`](Self::next_event) yields the events, and
/// [`footer`](Self::footer) the verified footer.
#[derive(Debug)]
pub struct RunRecordReader<R: Read> {
    input: BufReader<R>,
    crc: Crc32,
    offset: u64,
    pub(super) buf: Vec<u8>,
    checker: Checker,
    labels: Vec<String>,
    events: u64,
    phase: Phase,
    footer: Option<Footer>,
}

/// The header length and the payload length of the event record at the start of
/// `bytes`, when its kind is an event and its length is valid (at most 5 LEB128 bytes,
/// no redundant zero, within the limit); `None` for anything else.
#[inline]
fn event_frame(bytes: &[u8]) -> Option<(usize, usize)> {
    let (&k, rest) = bytes.split_first()?;
    if k != kind::EVENT {
        return None;
    }
    let mut len: u32 = 0;
    for (i, &b) in rest.iter().take(MAX_VARINT_LEN).enumerate() {
        let bits = u32::from(b & 0x7F);
        if i == MAX_VARINT_LEN - 1 && bits > 0x0F {
            return None;
        }
        len |= bits << (7 * i);
        if b & 0x80 == 0 {
            if (b == 0 && i > 0) || len > MAX_RECORD_LEN {
                return None;
            }
            return Some((1 + i + 1, len as usize));
        }
    }
    None
}

impl<R: Read> RunRecordReader<R> {
    /// Checks magic and version and reads the header.
    pub fn open(r: R) -> Result<(Self, RunHeader), RecordError> {
        let mut input = BufReader::with_capacity(IO_BUFFER, r);
        let mut preamble = [0u8; PREAMBLE_LEN];
        let mut got = 0;
        while got < PREAMBLE_LEN {
            match input.read(&mut preamble[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(RecordError::Io(e)),
            }
        }
        let magic_len = got.min(MAGIC.len());
        if preamble[..magic_len] != MAGIC[..magic_len] {
            return Err(RecordError::BadMagic);
        }
        if got < PREAMBLE_LEN {
            return Err(RecordError::Truncated { offset: got as u64 });
        }
        let major = u16::from_le_bytes([preamble[8], preamble[9]]);
        let minor = u16::from_le_bytes([preamble[10], preamble[11]]);
        if major != VERSION_MAJOR {
            return Err(RecordError::UnsupportedVersion {
                found: (major, minor),
                supported: (VERSION_MAJOR, VERSION_MINOR),
            });
        }
        let mut crc = Crc32::new();
        crc.update(&preamble);
        let mut me = RunRecordReader {
            input,
            crc,
            offset: PREAMBLE_LEN as u64,
            buf: Vec::new(),
            checker: Checker { pprocs: 0, functions: 0, channels: 0, labels: 0, last_time: 0 },
            labels: Vec::new(),
            events: 0,
            phase: Phase::Events,
            footer: None,
        };
        let (k, at) = me.read_record()?;
        if k != kind::HEADER {
            return Err(corrupt(at, format!("the first record has kind {k}, not the header ({})", kind::HEADER)));
        }
        let header: RunHeader = decode(&me.buf, "header", at)?;
        header.check().map_err(|reason| corrupt(at, format!("header: {reason}")))?;
        me.checker = Checker::new(&header);
        me.labels = header.labels.clone();
        Ok((me, header))
    }

    /// Reads exactly `dst.len()` bytes, feeding them to the checksum.
    fn read_exact(&mut self, dst: &mut [u8]) -> Result<(), RecordError> {
        let mut got = 0;
        while got < dst.len() {
            match self.input.read(&mut dst[got..]) {
                Ok(0) => return Err(RecordError::Truncated { offset: self.offset + got as u64 }),
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(RecordError::Io(e)),
            }
        }
        self.crc.update(dst);
        self.offset += got as u64;
        Ok(())
    }

    /// Reads one record into `self.buf` and returns its kind and starting offset. The
    /// payload's bytes are fed to the checksum, except a footer's last four (the stored
    /// checksum itself).
    fn read_record(&mut self) -> Result<(u8, u64), RecordError> {
        let at = self.offset;
        let mut byte = [0u8; 1];
        self.read_exact(&mut byte)?;
        let k = byte[0];
        let mut len: u32 = 0;
        for i in 0..MAX_VARINT_LEN {
            self.read_exact(&mut byte)?;
            let b = byte[0];
            let bits = u32::from(b & 0x7F);
            if i == MAX_VARINT_LEN - 1 && bits > 0x0F {
                return Err(corrupt(at, "record length does not fit in 32 bits"));
            }
            len |= bits << (7 * i);
            if b & 0x80 == 0 {
                if b == 0 && i > 0 {
                    return Err(corrupt(at, "record length has a redundant trailing zero byte"));
                }
                break;
            }
            if i == MAX_VARINT_LEN - 1 {
                return Err(corrupt(at, "record length is longer than 5 bytes"));
            }
        }
        if len > max_len(k) {
            return Err(corrupt(at, format!("record length {len} exceeds the limit of {} bytes", max_len(k))));
        }
        self.buf.clear();
        // Reading through `take` grows the buffer with the bytes actually present, so a
        // corrupt length at the end of a short file allocates nothing extra.
        let got = (&mut self.input).take(u64::from(len)).read_to_end(&mut self.buf)?;
        if got < len as usize {
            return Err(RecordError::Truncated { offset: self.offset + got as u64 });
        }
        let covered = if k == kind::FOOTER { self.buf.len().saturating_sub(CRC_LEN) } else { self.buf.len() };
        self.crc.update(&self.buf[..covered]);
        self.offset += u64::from(len);
        Ok((k, at))
    }

    /// The next event, or `None` once the footer has been read and verified.
    pub fn next_event(&mut self) -> Result<Option<Event>, RecordError> {
        match self.phase {
            Phase::Ended => return Ok(None),
            Phase::Failed => {
                return Err(corrupt(self.offset, "reading cannot continue after an earlier error"));
            }
            Phase::Events => {}
        }
        let result = self.read_next();
        if result.is_err() {
            self.phase = Phase::Failed;
        }
        result
    }

    /// An event record wholly in the input buffer, decoded in place (no copy, and one
    /// checksum update for the whole record) and checked ([`Self::admit`]): the path
    /// nearly every event takes. `None` (nothing consumed) for anything else, which
    /// [`Self::read_record`] then reads and judges, errors included.
    fn buffered_event(&mut self) -> Option<Result<Event, RecordError>> {
        let buffered = self.input.buffer();
        let (head, len) = event_frame(buffered)?;
        let end = head + len;
        let record = buffered.get(..end)?;
        let at = self.offset;
        self.crc.update(record);
        // Checked as in `buffered_events`: the full check only when the fast one declines.
        let e = match fast_checked(&record[head..], &self.checker) {
            Some((e, time, true)) if time >= self.checker.last_time => {
                self.checker.last_time = time;
                self.events += 1;
                Ok(e)
            }
            Some((e, _, _)) => self.admit(&e, at).map(|()| e),
            None => decode(&record[head..], "event", at).and_then(|e| self.admit(&e, at).map(|()| e)),
        };
        self.input.consume(end);
        self.offset += end as u64;
        Some(e)
    }

    /// Decodes and checks the event records wholly in the input buffer into `out`, up
    /// to `target` events in it: the loop of [`Self::buffered_event`] and
    /// [`Self::admit`] with one checksum update and one `consume` for the whole stretch.
    /// Stops before any other record; a bad event is consumed and its error returned, as
    /// one at a time.
    fn buffered_events(&mut self, out: &mut Vec<Event>, target: usize) -> Result<(), RecordError> {
        let buffered = self.input.buffer();
        let mut pos = 0;
        let mut result = Ok(());
        while out.len() < target {
            let Some((head, len)) = buffered.get(pos..).and_then(event_frame) else { break };
            let Some(payload) = buffered.get(pos + head..pos + head + len) else { break };
            let at = self.offset + pos as u64;
            pos += head + len;
            let (e, time, ok) = match fast_checked(payload, &self.checker) {
                Some(x) => x,
                None => match decode(payload, "event", at) {
                    Ok(e) => (e, 0, false),
                    Err(err) => {
                        result = Err(err);
                        break;
                    }
                },
            };
            if ok && time >= self.checker.last_time {
                self.checker.last_time = time;
            } else if let Err(reason) = self.checker.check(&e) {
                result = Err(corrupt(at, reason));
                break;
            }
            if let Event::Label { text, .. } = &e {
                self.labels.push(text.clone());
            }
            self.events += 1;
            out.push(e);
        }
        self.crc.update(&buffered[..pos]);
        self.input.consume(pos);
        self.offset += pos as u64;
        result
    }

    fn read_next(&mut self) -> Result<Option<Event>, RecordError> {
        loop {
            if let Some(e) = self.buffered_event() {
                return e.map(Some);
            }
            let (k, at) = self.read_record()?;
            match k {
                kind::EVENT => {
                    let e = decode_event(&self.buf, at)?;
                    return self.accept(e, at).map(Some);
                }
                kind::FOOTER => {
                    self.read_footer(at)?;
                    self.phase = Phase::Ended;
                    return Ok(None);
                }
                kind::HEADER => return Err(corrupt(at, "a second header record")),
                k if k & kind::OPTIONAL != 0 => continue,
                k => return Err(corrupt(at, format!("unknown record kind {k} (written by a newer cpss?)"))),
            }
        }
    }

    /// Checks a decoded event against the header and the events before it.
    fn accept(&mut self, e: Event, at: u64) -> Result<Event, RecordError> {
        self.admit(&e, at)?;
        Ok(e)
    }

    /// [`Self::accept`] of an event the caller keeps.
    #[inline]
    fn admit(&mut self, e: &Event, at: u64) -> Result<(), RecordError> {
        self.checker.check(e).map_err(|reason| corrupt(at, reason))?;
        if let Event::Label { text, .. } = e {
            self.labels.push(text.clone());
        }
        self.events += 1;
        Ok(())
    }

    /// Appends up to `max` events to `out`, as that many calls of
    /// [`next_event`](Self::next_event) would (same checks, same errors, and after an
    /// error no more events); `true` once the footer has been read and verified. The
    /// events wholly in the input buffer go straight into `out`, which saves moving each
    /// through the layers of results of a call per event.
    pub fn read_batch(&mut self, out: &mut Vec<Event>, max: usize) -> Result<bool, RecordError> {
        let target = out.len().saturating_add(max);
        while out.len() < target {
            if self.phase == Phase::Events {
                let before = out.len();
                if let Err(err) = self.buffered_events(out, target) {
                    self.phase = Phase::Failed;
                    return Err(err);
                }
                if out.len() > before {
                    continue;
                }
            }
            match self.next_event()? {
                Some(e) => out.push(e),
                None => return Ok(true),
            }
        }
        Ok(false)
    }

    fn read_footer(&mut self, at: u64) -> Result<(), RecordError> {
        let Some(split) = self.buf.len().checked_sub(CRC_LEN) else {
            return Err(corrupt(at, "footer shorter than its checksum"));
        };
        let (body, stored) = self.buf.split_at(split);
        let stored = u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]]);
        let computed = self.crc.value();
        if stored != computed {
            return Err(RecordError::Checksum { stored, computed });
        }
        let (stats, event_count): (RunStats, u64) = decode(body, "footer", at)?;
        if event_count != self.events {
            return Err(corrupt(at, format!("footer counts {event_count} events, the record holds {}", self.events)));
        }
        let mut extra = [0u8; 1];
        loop {
            match self.input.read(&mut extra) {
                Ok(0) => break,
                Ok(_) => return Err(corrupt(self.offset, "data after the footer")),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(RecordError::Io(e)),
            }
        }
        self.footer = Some(Footer { stats, event_count, crc: stored });
        Ok(())
    }

    /// The verified footer. Reads (and discards) any events not yet read first, so it
    /// also serves consumers that only want the statistics.
    pub fn footer(&mut self) -> Result<Footer, RecordError> {
        while self.next_event()?.is_some() {}
        self.footer.clone().ok_or_else(|| corrupt(self.offset, "no footer"))
    }

    /// The probe label table: the header's labels, then those defined by the
    /// [`Event::Label`] records read so far.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// The label of a probe, if defined.
    pub fn label(&self, index: u32) -> Option<&str> {
        self.labels.get(index as usize).map(String::as_str)
    }

    /// Number of events read so far.
    pub fn events_read(&self) -> u64 {
        self.events
    }

    /// Bytes consumed so far (the offset of the next record).
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

/// Iterates over the events; after an error it yields that error once and then stops.
impl<R: Read> Iterator for RunRecordReader<R> {
    type Item = Result<Event, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.phase == Phase::Failed {
            return None;
        }
        self.next_event().transpose()
    }
}
