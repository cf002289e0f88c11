//! The read side of a C stream (`stdin` or a file opened for reading): C's end-of-file
//! and error indicators and `ungetc`'s pushed-back character, around any buffered
//! reader. The formatted input routines read through a [`Reading`], so every read that
//! finds no more input sets the end-of-file indicator as C's `getc` does, and a
//! pushed-back character is read first.
use std::io::{self, BufRead, Read};

/// The state C keeps per stream besides its buffer.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Indicators {
    /// A read found no more input (C's `feof`); cleared by `ungetc`, `fseek`, `rewind`
    /// and `clearerr`.
    pub eof: bool,
    /// A read failed (C's `ferror`); cleared by `rewind` and `clearerr`.
    pub error: bool,
    /// The character `ungetc` pushed back (C guarantees one).
    pub back: Option<u8>,
}

/// A reader seen through a stream's indicators, for the length of one library call.
pub(crate) struct Reading<'a, R: BufRead + ?Sized> {
    pub inner: &'a mut R,
    pub ind: &'a mut Indicators,
}

impl<R: BufRead + ?Sized> Read for Reading<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(buf.len());
        buf[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead + ?Sized> BufRead for Reading<'_, R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if let Some(b) = &self.ind.back {
            return Ok(std::slice::from_ref(b));
        }
        match self.inner.fill_buf() {
            Ok(b) => {
                if b.is_empty() {
                    self.ind.eof = true;
                }
                Ok(b)
            }
            Err(e) => {
                self.ind.error = true;
                Err(e)
            }
        }
    }

    fn consume(&mut self, mut n: usize) {
        if n > 0 && self.ind.back.take().is_some() {
            n -= 1;
        }
        self.inner.consume(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ungetc`'s character comes first, then the reader's; the end-of-file indicator
    /// is set only when a read finds nothing (after "ab" is read, not before).
    #[test]
    fn pushback_then_input_then_eof() {
        let mut src = io::Cursor::new(b"ab".to_vec());
        let mut ind = Indicators { back: Some(b'z'), ..Indicators::default() };
        let mut out = Vec::new();
        let mut r = Reading { inner: &mut src, ind: &mut ind };
        let mut one = [0u8; 1];
        for _ in 0..3 {
            assert_eq!(r.read(&mut one).unwrap(), 1);
            out.push(one[0]);
        }
        assert!(!r.ind.eof, "all of the input read, but no read has found its end yet");
        assert_eq!(r.read(&mut one).unwrap(), 0);
        assert_eq!(out, b"zab");
        assert!(ind.eof);
    }
}
