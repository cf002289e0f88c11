//! Decoding an event record's payload: a fast path for what a writer produces, postcard
//! for the rest.
use super::*;
/// Decodes a whole payload as `T`; bytes left over are corruption, not padding.
pub(super) fn decode<'a, T: serde::Deserialize<'a>>(
    bytes: &'a [u8],
    what: &str,
    offset: u64,
) -> Result<T, RecordError> {
    match postcard::take_from_bytes::<T>(bytes) {
        Ok((v, [])) => Ok(v),
        Ok((_, rest)) => Err(corrupt(offset, format!("{} unexpected bytes at the end of the {what}", rest.len()))),
        Err(e) => Err(corrupt(offset, format!("undecodable {what}: {e}"))),
    }
}

/// Decodes an event payload: [`fast_event`] for the payloads a writer produces, postcard
/// for anything it declines (so a damaged payload gets postcard's own error message).
#[inline]
pub(super) fn decode_event(bytes: &[u8], offset: u64) -> Result<Event, RecordError> {
    match fast_event(bytes) {
        Some(e) => Ok(e),
        None => decode(bytes, "event", offset),
    }
}

/// A read position in an event payload, decoding postcard's primitives: LEB128 varints
/// with postcard's bounds (at most 5 bytes for a u32, 10 for a u64, no bits beyond the
/// type in the last byte; longer-than-needed forms are accepted, as postcard does),
/// zigzag for signed integers, a 0/1 tag byte for an option.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    #[inline(always)]
    fn byte(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    /// A varint of at most eight bytes read as one little-endian word: the first byte
    /// without its continuation bit ends it, and its 7-bit groups are packed together
    /// in three steps. `None` when fewer than eight bytes remain or none of the eight
    /// ends the varint (then the byte loop decides).
    #[inline(always)]
    fn word_varint(&mut self) -> Option<(u64, usize)> {
        let word = u64::from_le_bytes(*self.bytes.get(self.at..)?.first_chunk::<8>()?);
        let stops = !word & 0x8080_8080_8080_8080;
        if stops == 0 {
            return None;
        }
        let len = (stops.trailing_zeros() / 8 + 1) as usize;
        // The bits up to the lowest stop bit: the varint's bytes.
        let mut x = word & (stops ^ (stops - 1)) & 0x7F7F_7F7F_7F7F_7F7F;
        x = ((x & 0x7F00_7F00_7F00_7F00) >> 1) | (x & 0x007F_007F_007F_007F);
        x = ((x & 0x3FFF_0000_3FFF_0000) >> 2) | (x & 0x0000_3FFF_0000_3FFF);
        x = ((x & 0x0FFF_FFFF_0000_0000) >> 4) | (x & 0x0000_0000_0FFF_FFFF);
        Some((x, len))
    }

    #[inline(always)]
    fn u32(&mut self) -> Option<u32> {
        let b = *self.bytes.get(self.at)?;
        if b < 0x80 {
            self.at += 1;
            return Some(u32::from(b));
        }
        if let Some((x, len)) = self.word_varint() {
            // At most 5 bytes, the fifth with no bits beyond the 32nd.
            if len > 5 || (len == 5 && x >> 32 != 0) {
                return None;
            }
            self.at += len;
            return Some(x as u32);
        }
        self.at += 1;
        let mut out = u32::from(b & 0x7F);
        for i in 1..5 {
            let b = self.byte()?;
            out |= u32::from(b & 0x7F) << (7 * i);
            if b & 0x80 == 0 {
                return (i < 4 || b <= 0x0F).then_some(out);
            }
        }
        None
    }

    #[inline(always)]
    fn u64(&mut self) -> Option<u64> {
        let b = *self.bytes.get(self.at)?;
        if b < 0x80 {
            self.at += 1;
            return Some(u64::from(b));
        }
        if let Some((x, len)) = self.word_varint() {
            self.at += len;
            return Some(x);
        }
        self.at += 1;
        let mut out = u64::from(b & 0x7F);
        for i in 1..10 {
            let b = self.byte()?;
            out |= u64::from(b & 0x7F) << (7 * i);
            if b & 0x80 == 0 {
                return (i < 9 || b <= 0x01).then_some(out);
            }
        }
        None
    }

    #[inline(always)]
    fn i32(&mut self) -> Option<i32> {
        let n = self.u32()?;
        Some(((n >> 1) as i32) ^ -((n & 1) as i32))
    }

    #[inline(always)]
    fn opt_u32(&mut self) -> Option<Option<u32>> {
        match self.byte()? {
            0 => Some(None),
            1 => self.u32().map(Some),
            _ => None,
        }
    }
}

/// Decodes an event payload without serde: the same value postcard gives for every
/// payload it accepts, in a fraction of the instructions (the record's events are read
/// by the million). `None` for anything else (an unknown variant, a bad option tag, a
/// short payload, bytes left over) and for the rare [`Event::Label`], which the caller
/// then hands to postcard.
#[inline]
pub(super) fn fast_event(bytes: &[u8]) -> Option<Event> {
    fast_checked(bytes, &Checker::PERMISSIVE).map(|(e, _, _)| e)
}

/// [`fast_event`] with the event's [`time`](Event::time) and whether it passes `ck`'s
/// checks of its numbers against the header (not its time), each weighed in the arm
/// that decoded the kind: one dispatch on the kind per event instead of three (the
/// decoding, [`Event::time`] and [`Checker::check`]). `false` only says that
/// [`Checker::check`] must decide (and word the error); `true` promises that it passes
/// but for the time.
#[inline(always)]
pub(super) fn fast_checked(bytes: &[u8], ck: &Checker) -> Option<(Event, Ticks, bool)> {
    use crate::trace::event::{BusyClass, ProcState};
    let mut c = Cursor { bytes, at: 0 };
    let pp = |p: u32| p < ck.pprocs;
    let ch = |k: u32| (k as usize) < ck.channels;
    let fun = |f: u32| (f as usize) < ck.functions;
    let r = match c.u32()? {
        0 => {
            let (time, parent, pid, vproc, pproc, function, line) =
                (c.u64()?, c.opt_u32()?, c.u32()?, c.opt_u32()?, c.u32()?, c.u32()?, c.u32()?);
            let ok = pp(pproc) && fun(function);
            (Event::ProcCreate { time, parent, pid, vproc, pproc, function, line }, time, ok)
        }
        1 => {
            let (time, pid) = (c.u64()?, c.u32()?);
            (Event::ProcEnd { time, pid }, time, true)
        }
        2 => {
            let (time, pid) = (c.u64()?, c.u32()?);
            let state = ProcState::from_code(u64::from(c.u32()?))?;
            // The numbers are `Reason::code` (checked by a test).
            let (reason, ok) = match c.u32()? {
                0 => (Reason::None, true),
                1 => {
                    let (channel, index) = (c.u32()?, c.u32()?);
                    (Reason::Channel { channel, index }, ch(channel))
                }
                2 => (Reason::Join, true),
                3 => (Reason::Forall, true),
                4 => (Reason::Lock { lock: c.u32()? }, true),
                5 => (Reason::RemoteRead { owner: c.u32()? }, true),
                6 => (Reason::Delay { until: c.u64()? }, true),
                7 => (Reason::Quantum, true),
                8 => (Reason::Children, true),
                _ => return None,
            };
            (Event::State { time, pid, state, reason }, time, ok)
        }
        3 => {
            let (time, msg, src_pid, src_pproc, dst_pid, dst_pproc) =
                (c.u64()?, c.u64()?, c.u32()?, c.u32()?, c.opt_u32()?, c.u32()?);
            let (purpose, ok) = match c.u32()? {
                0 => {
                    let (channel, index) = (c.u32()?, c.u32()?);
                    (MsgPurpose::Channel { channel, index }, ch(channel))
                }
                1 => (MsgPurpose::RemoteRead { addr: c.u32()? }, true),
                2 => (MsgPurpose::RemoteReply { addr: c.u32()? }, true),
                3 => (MsgPurpose::RemoteWrite { addr: c.u32()? }, true),
                _ => return None,
            };
            let (bytes, line) = (c.u32()?, c.u32()?);
            let ok = ok && pp(src_pproc) && pp(dst_pproc);
            (Event::MsgSend { time, msg, src_pid, src_pproc, dst_pid, dst_pproc, purpose, bytes, line }, time, ok)
        }
        4 => {
            let (time, msg, dst_pproc) = (c.u64()?, c.u64()?, c.u32()?);
            (Event::MsgArrive { time, msg, dst_pproc }, time, pp(dst_pproc))
        }
        5 => {
            let (time, pid, pproc, channel, index, line) = (c.u64()?, c.u32()?, c.u32()?, c.u32()?, c.u32()?, c.u32()?);
            (Event::RecvCall { time, pid, pproc, channel, index, line }, time, pp(pproc) && ch(channel))
        }
        6 => {
            let (time, pid, pproc, msg, src_pid, bytes) = (c.u64()?, c.u32()?, c.u32()?, c.u64()?, c.u32()?, c.u32()?);
            (Event::RecvDone { time, pid, pproc, msg, src_pid, bytes }, time, pp(pproc))
        }
        7 => {
            let (msg, packet, from, to, enter, leave) = (c.u64()?, c.u32()?, c.u32()?, c.u32()?, c.u64()?, c.u64()?);
            (Event::Hop { msg, packet, from, to, enter, leave }, leave, pp(from) && pp(to) && enter <= leave)
        }
        8 => {
            let (time, pid, pproc, id, label) = (c.u64()?, c.u32()?, c.u32()?, c.i32()?, c.u32()?);
            (Event::Probe { time, pid, pproc, id, label }, time, pp(pproc) && (label as usize) < ck.labels)
        }
        10 => {
            let (time, pid) = (c.u64()?, c.u32()?);
            (Event::TimeOff { time, pid }, time, true)
        }
        11 => {
            let (time, pid) = (c.u64()?, c.u32()?);
            (Event::TimeOn { time, pid }, time, true)
        }
        12 => {
            let (pproc, pid, start, end, line) = (c.u32()?, c.u32()?, c.u64()?, c.u64()?, c.u32()?);
            let class = match c.u32()? {
                0 => BusyClass::Work,
                1 => BusyClass::Overhead,
                _ => return None,
            };
            (Event::Busy { pproc, pid, start, end, line, class }, end, pp(pproc) && start <= end)
        }
        13 => {
            let (time, line, work, overhead) = (c.u64()?, c.u32()?, c.u64()?, c.u64()?);
            (Event::LineCost { time, line, work, overhead }, time, true)
        }
        14 => {
            let (time, msg, packet, pproc) = (c.u64()?, c.u64()?, c.u32()?, c.u32()?);
            (Event::Deadlock { time, msg, packet, pproc }, time, pp(pproc))
        }
        15 => {
            let (time, pid, function) = (c.u64()?, c.u32()?, c.u32()?);
            (Event::Enter { time, pid, function }, time, fun(function))
        }
        16 => {
            let (time, pid, function) = (c.u64()?, c.u32()?, c.u32()?);
            (Event::Leave { time, pid, function }, time, fun(function))
        }
        _ => return None,
    };
    (c.at == bytes.len()).then_some(r)
}
