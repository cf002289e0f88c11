//! The memory pool: words plus the owning physical processor of each (seed 000 Figure 6),
//! with the returned segments kept by length for a best-fit reuse in logarithmic time (a
//! first-fit list scanned on every allocation grew with the number of ended processes).
//! Depends on `vcode::Word`.
use crate::vcode::Word;
use std::collections::BTreeMap;

pub(crate) struct Memory {
    pub(crate) words: Vec<Word>,
    pub(crate) owner: Vec<u32>,
    /// Returned segments: their bases by length, the last returned on top.
    free: BTreeMap<u32, Vec<u32>>,
    limit: u32,
    /// `Some(p)` while every word has been given to processor `p` (as far as allocation
    /// knows: a segment given back and reused by another processor counts as mixed).
    sole_owner: Option<u32>,
    /// Whether address 0 is the null pointer (no word of the pool is reachable there).
    pub(crate) null_reserved: bool,
}

/// Why [`Memory::alloc`] gave no words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AllocError {
    /// The pool's size (`--max-memory`) would be passed.
    Pool,
    /// The host refused the memory for a pool of this many words.
    Host { words: u64 },
}

impl Memory {
    pub(crate) fn new(limit: u32) -> Memory {
        Memory {
            words: Vec::new(),
            owner: Vec::new(),
            free: BTreeMap::new(),
            limit,
            sole_owner: None,
            null_reserved: false,
        }
    }

    /// Allocates `n` zeroed words owned by `pproc`: the base, or why not.
    pub(crate) fn alloc(&mut self, n: u32, pproc: u32) -> Result<u32, AllocError> {
        if self.words.is_empty() && self.sole_owner.is_none() {
            self.sole_owner = Some(pproc);
        } else if self.sole_owner != Some(pproc) {
            self.sole_owner = None;
        }
        // The shortest returned segment that holds `n` words (the most recently returned
        // of that length); what is left of it goes back to the free segments.
        if let Some((&len, bases)) = self.free.range_mut(n..).next() {
            let base = bases.pop();
            if bases.is_empty() {
                self.free.remove(&len);
            }
            // cannot fail: a length's list is removed when its last base is taken.
            let base = base.unwrap();
            if len > n {
                self.free(base + n, len - n);
            }
            let r = base as usize..(base + n) as usize;
            self.words[r.clone()].fill(Word::Int(0));
            self.owner[r].fill(pproc);
            return Ok(base);
        }
        let base = self.words.len() as u32;
        let end = base.checked_add(n).filter(|&e| e <= self.limit).ok_or(AllocError::Pool)?;
        self.grow(end as usize)?;
        self.words.resize(end as usize, Word::Int(0));
        self.owner.resize(end as usize, pproc);
        Ok(base)
    }

    /// Makes room for `len` words in the pool's host memory, asking the host for the
    /// usual doubling first and for the exact size when that is refused; a refusal of
    /// both is [`AllocError::Host`] (a `ulimit -v` below what the pool needs).
    fn grow(&mut self, len: usize) -> Result<(), AllocError> {
        if len <= self.words.capacity() && len <= self.owner.capacity() {
            return Ok(());
        }
        let more = len - self.words.len();
        let host = |_| AllocError::Host { words: len as u64 };
        crate::hostmem::fallible(|| {
            if self.words.try_reserve(more).is_err() {
                self.words.try_reserve_exact(more).map_err(host)?;
            }
            if self.owner.try_reserve(more).is_err() {
                self.owner.try_reserve_exact(more).map_err(host)?;
            }
            Ok(())
        })
    }

    /// The processor owning every word, if there is one: no access can be remote for
    /// its processes.
    #[inline]
    pub(crate) fn sole_owner(&self) -> Option<u32> {
        self.sole_owner
    }

    pub(crate) fn free(&mut self, base: u32, n: u32) {
        if n > 0 {
            self.free.entry(n).or_default().push(base);
        }
    }

    /// The pool index of an address, if it is inside the pool.
    #[inline]
    pub(crate) fn index(&self, addr: i64) -> Option<usize> {
        usize::try_from(addr).ok().filter(|&i| i < self.words.len() && (i > 0 || !self.null_reserved))
    }

    /// The bytes of the string at `addr`, up to its NUL or `max` bytes, whichever comes
    /// first (`%.3s` reads no further than three characters, as C does).
    pub(crate) fn read_c_string_max(&self, addr: i64, max: usize) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        self.read_c_string_into(addr, max, &mut out)?;
        Some(out)
    }

    /// [`Self::read_c_string_max`] into `out` (cleared first; on `None`, what it holds
    /// is unspecified). A string is at most 1 MiB.
    pub(crate) fn read_c_string_into(&self, addr: i64, max: usize, out: &mut Vec<u8>) -> Option<()> {
        let mut i = self.index(addr)?;
        out.clear();
        if max == 0 {
            return Some(());
        }
        loop {
            let b = match *self.words.get(i)? {
                Word::Char(c) => c,
                Word::Int(v) => v as u8,
                Word::Float(f) => f as i32 as u8,
                Word::Double(d) => d as i32 as u8,
                Word::Long(l) => l as u8,
            };
            if b == 0 || out.len() >= 1 << 20 {
                return Some(());
            }
            out.push(b);
            if out.len() >= max {
                return Some(());
            }
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alloc_reuses_freed_segments_best_fit() {
        let mut m = Memory::new(100);
        assert_eq!(m.alloc(10, 0), Ok(0));
        assert_eq!(m.alloc(20, 1), Ok(10));
        assert_eq!(m.alloc(5, 1), Ok(30));
        m.free(0, 10);
        m.free(30, 5);
        // 4 words: the 5-word segment at 30 is the shortest that holds them; its last
        // word stays free.
        assert_eq!(m.alloc(4, 2), Ok(30));
        assert_eq!(m.owner[33], 2);
        assert_eq!(m.alloc(1, 3), Ok(34), "the 1-word rest of the 5-word segment");
        // 6 words: only the 10-word segment at 0 holds them; 4 words remain at 6.
        assert_eq!(m.alloc(6, 3), Ok(0));
        assert_eq!(m.alloc(4, 3), Ok(6));
        assert_eq!(m.alloc(65, 0), Ok(35));
        assert_eq!(m.alloc(1, 0), Err(AllocError::Pool), "pool limit of 100 words reached");
    }

    #[test]
    fn segments_of_one_length_are_reused_last_returned_first() {
        let mut m = Memory::new(100);
        let a = m.alloc(8, 0).unwrap();
        let b = m.alloc(8, 0).unwrap();
        m.free(a, 8);
        m.free(b, 8);
        assert_eq!(m.alloc(8, 1), Ok(b));
        assert_eq!(m.alloc(8, 1), Ok(a));
        assert_eq!(m.alloc(8, 1), Ok(16), "none left: the top of the pool");
    }

    #[test]
    fn sole_owner_holds_until_another_processor_gets_words() {
        let mut m = Memory::new(100);
        assert_eq!(m.sole_owner(), None, "no words yet");
        m.alloc(10, 3).unwrap();
        m.alloc(5, 3).unwrap();
        assert_eq!(m.sole_owner(), Some(3));
        m.free(0, 10);
        // Reusing the freed segment for processor 1 mixes the owners.
        assert_eq!(m.alloc(4, 1), Ok(0));
        assert_eq!(m.sole_owner(), None);
        m.alloc(4, 3).unwrap();
        assert_eq!(m.sole_owner(), None, "once mixed, stays mixed");
    }
}
