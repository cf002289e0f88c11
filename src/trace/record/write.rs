//! The writing end: the [`Tracer`] the simulator calls, [`TimeOrder`] and
//! [`RunRecordWriter`].
use super::*;
/// What the simulator calls for every event. The simulator is generic over it, so with
/// [`NoTrace`] every call and the construction of its event compile away.
pub trait Tracer {
    /// Records one event. Never fails and never reports back: tracing must not change the
    /// run. A writer keeps its first error for [`RunRecordWriter::finish`].
    fn event(&mut self, e: &Event);

    /// Whether events are wanted at all; lets the simulator skip work that only builds
    /// events (for instance hop records, which cost a route walk).
    #[inline]
    fn enabled(&self) -> bool {
        true
    }
}

/// The tracer of a run without a record.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTrace;

impl Tracer for NoTrace {
    #[inline]
    fn event(&mut self, _e: &Event) {}

    #[inline]
    fn enabled(&self) -> bool {
        false
    }
}

/// Collects events in memory (for tests of the simulator and small tools).
impl Tracer for Vec<Event> {
    #[inline]
    fn event(&mut self, e: &Event) {
        self.push(e.clone());
    }
}

impl<T: Tracer + ?Sized> Tracer for &mut T {
    #[inline]
    fn event(&mut self, e: &Event) {
        (**self).event(e)
    }

    #[inline]
    fn enabled(&self) -> bool {
        (**self).enabled()
    }
}

/// Puts events into [`Event::time`] order before passing them on, for a producer whose
/// events are only ordered up to a horizon: in a quantum every processor in turn runs
/// through the same stretch of time, so processor 1's events may precede processor 0's.
/// The producer calls [`TimeOrder::release_before`] when it knows no later event will be
/// earlier than the horizon (the start of the next quantum); memory holds one quantum's
/// events. Equal times keep the order in which they arrived, deadlock resolutions after
/// the rest.
#[derive(Debug)]
pub struct TimeOrder<T: Tracer> {
    pub(super) inner: T,
    pending: Vec<Event>,
}

impl<T: Tracer> TimeOrder<T> {
    /// Wraps `inner`.
    pub fn new(inner: T) -> Self {
        TimeOrder { inner, pending: Vec::new() }
    }

    /// Passes on, in time order, every held event earlier than `horizon`.
    pub fn release_before(&mut self, horizon: Ticks) {
        // A stable sort keeps arrival order among equal times, but for the network's
        // deadlock resolutions, which follow the other events of their time: the network
        // reports them when it hands over its crossings, which with its own thread
        // (`cpss --threads 2`) is later in the quantum than without it, and the record
        // must not depend on that.
        self.pending.sort_by_key(|e| (e.time(), matches!(e, Event::Deadlock { .. })));
        let n = self.pending.partition_point(|e| e.time() < horizon);
        for e in self.pending.drain(..n) {
            self.inner.event(&e);
        }
    }

    /// The inner tracer.
    pub fn get_ref(&self) -> &T {
        &self.inner
    }

    /// Passes on every held event and returns the inner tracer.
    pub fn into_inner(mut self) -> T {
        self.release_before(Ticks::MAX);
        // Events at the very last tick are not below the horizon Ticks::MAX.
        for e in self.pending.drain(..) {
            self.inner.event(&e);
        }
        self.inner
    }
}

impl<T: Tracer> Tracer for TimeOrder<T> {
    #[inline]
    fn event(&mut self, e: &Event) {
        if self.inner.enabled() {
            self.pending.push(e.clone());
        }
    }

    #[inline]
    fn enabled(&self) -> bool {
        self.inner.enabled()
    }
}

/// Writes a run record to `W`: the preamble and header on creation, one record per
/// [`event`](Self::event), the footer on [`finish`](Self::finish). Output is buffered;
/// encoding reuses one buffer, so an event costs no allocation.
#[derive(Debug)]
pub struct RunRecordWriter<W: Write> {
    out: BufWriter<W>,
    crc: Crc32,
    buf: Vec<u8>,
    checker: Checker,
    events: u64,
    error: Option<io::Error>,
}

pub(super) fn encode_varint(mut v: u32, out: &mut [u8; MAX_VARINT_LEN]) -> usize {
    let mut n = 0;
    loop {
        let low = (v & 0x7F) as u8;
        v >>= 7;
        if v == 0 {
            out[n] = low;
            return n + 1;
        }
        out[n] = low | 0x80;
        n += 1;
    }
}

impl<W: Write> RunRecordWriter<W> {
    /// Starts a record on `w` with `header`.
    pub fn new(w: W, header: &RunHeader) -> io::Result<Self> {
        header
            .check()
            .map_err(|reason| io::Error::new(io::ErrorKind::InvalidInput, format!("run header: {reason}")))?;
        let mut me = RunRecordWriter {
            out: BufWriter::with_capacity(IO_BUFFER, w),
            crc: Crc32::new(),
            buf: Vec::with_capacity(256),
            checker: Checker::new(header),
            events: 0,
            error: None,
        };
        let mut preamble = [0u8; PREAMBLE_LEN];
        preamble[..8].copy_from_slice(&MAGIC);
        preamble[8..10].copy_from_slice(&VERSION_MAJOR.to_le_bytes());
        preamble[10..12].copy_from_slice(&VERSION_MINOR.to_le_bytes());
        me.put(&preamble)?;
        let payload = postcard::to_allocvec(header).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        me.frame(kind::HEADER, payload.len())?;
        me.put(&payload)?;
        Ok(me)
    }

    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.crc.update(bytes);
        self.out.write_all(bytes)
    }

    /// Writes a record's kind and length; `len` is the whole payload.
    fn frame(&mut self, kind: u8, len: usize) -> io::Result<()> {
        let max = max_len(kind);
        let len = u32::try_from(len).ok().filter(|&l| l <= max).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("a run record entry of {len} bytes exceeds the limit of {max} bytes"),
            )
        })?;
        let mut head = [0u8; 1 + MAX_VARINT_LEN];
        head[0] = kind;
        let mut v = [0u8; MAX_VARINT_LEN];
        let n = encode_varint(len, &mut v);
        head[1..=n].copy_from_slice(&v[..n]);
        self.put(&head[..=n])
    }

    /// Appends one event. A write failure or an event that breaks the record's invariants
    /// is kept and reported by [`finish`](Self::finish); later events are then dropped.
    pub fn event(&mut self, e: &Event) {
        if self.error.is_some() {
            return;
        }
        if let Err(reason) = self.checker.check(e) {
            self.error = Some(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("run record not finished: event {} is invalid: {reason}", self.events),
            ));
            return;
        }
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let result = match postcard::to_extend(e, buf) {
            Ok(b) => {
                buf = b;
                self.frame(kind::EVENT, buf.len()).and_then(|()| self.put(&buf))
            }
            Err(err) => {
                buf = Vec::new();
                Err(io::Error::new(io::ErrorKind::InvalidInput, err))
            }
        };
        self.buf = buf;
        match result {
            Ok(()) => self.events += 1,
            Err(err) => self.error = Some(err),
        }
    }

    /// Whether a write has failed (or an event was invalid): every later event is
    /// dropped and [`finish`](Self::finish) reports the error.
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// Number of events written so far.
    pub fn event_count(&self) -> u64 {
        self.events
    }

    /// Writes the footer with `stats`, flushes, and returns the underlying writer; or the
    /// first error met since creation (then no footer is written, so no reader will take
    /// the output for a complete record).
    pub fn finish(mut self, stats: &RunStats) -> io::Result<W> {
        if let Some(err) = self.error.take() {
            return Err(err);
        }
        let payload =
            postcard::to_allocvec(&(stats, self.events)).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        self.frame(kind::FOOTER, payload.len() + CRC_LEN)?;
        self.put(&payload)?;
        let crc = self.crc.value();
        self.out.write_all(&crc.to_le_bytes())?;
        self.out.into_inner().map_err(io::IntoInnerError::into_error)
    }
}

impl<W: Write> Tracer for RunRecordWriter<W> {
    #[inline]
    fn event(&mut self, e: &Event) {
        RunRecordWriter::event(self, e)
    }
}
