//! The memory pool: words plus the owning physical processor of each (seed 000 Figure 6),
//! with a first-fit free list of returned segments. Depends on `vcode::Word`.
use crate::vcode::Word;

pub(crate) struct Memory {
    pub(crate) words: Vec<Word>,
    pub(crate) owner: Vec<u32>,
    /// Returned segments `(base, len)`, in the order they were returned.
    free: Vec<(u32, u32)>,
    limit: u32,
    /// `Some(p)` while every word has been given to processor `p` (as far as allocation
    /// knows: a segment given back and reused by another processor counts as mixed).
    sole_owner: Option<u32>,
    /// Whether address 0 is the null pointer (no word of the pool is reachable there).
    pub(crate) null_reserved: bool,
}

impl Memory {
    pub(crate) fn new(limit: u32) -> Memory {
        Memory { words: Vec::new(), owner: Vec::new(), free: Vec::new(), limit, sole_owner: None, null_reserved: false }
    }

    /// Allocates `n` zeroed words owned by `pproc`; `None` when the pool limit is reached.
    pub(crate) fn alloc(&mut self, n: u32, pproc: u32) -> Option<u32> {
        if self.words.is_empty() && self.sole_owner.is_none() {
            self.sole_owner = Some(pproc);
        } else if self.sole_owner != Some(pproc) {
            self.sole_owner = None;
        }
        if let Some(k) = self.free.iter().position(|&(_, len)| len >= n) {
            let (base, len) = self.free[k];
            if len == n {
                self.free.remove(k);
            } else {
                self.free[k] = (base + n, len - n);
            }
            let r = base as usize..(base + n) as usize;
            self.words[r.clone()].fill(Word::Int(0));
            self.owner[r].fill(pproc);
            return Some(base);
        }
        let base = self.words.len() as u32;
        let end = base.checked_add(n).filter(|&e| e <= self.limit)?;
        self.words.resize(end as usize, Word::Int(0));
        self.owner.resize(end as usize, pproc);
        Some(base)
    }

    /// The processor owning every word, if there is one: no access can be remote for
    /// its processes.
    #[inline]
    pub(crate) fn sole_owner(&self) -> Option<u32> {
        self.sole_owner
    }

    pub(crate) fn free(&mut self, base: u32, n: u32) {
        if n > 0 {
            self.free.push((base, n));
        }
    }

    /// The pool index of an address, if it is inside the pool.
    #[inline]
    pub(crate) fn index(&self, addr: i64) -> Option<usize> {
        usize::try_from(addr).ok().filter(|&i| i < self.words.len() && (i > 0 || !self.null_reserved))
    }

    /// The bytes of the NUL-ended string at `addr` (at most 1 MiB).
    pub(crate) fn read_c_string(&self, addr: i64) -> Option<Vec<u8>> {
        let mut i = self.index(addr)?;
        let mut out = Vec::new();
        loop {
            let b = match *self.words.get(i)? {
                Word::Char(c) => c,
                Word::Int(v) => v as u8,
                Word::Float(f) => f as i32 as u8,
                Word::Double(d) => d as i32 as u8,
                Word::Long(l) => l as u8,
            };
            if b == 0 || out.len() >= 1 << 20 {
                return Some(out);
            }
            out.push(b);
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alloc_reuses_freed_segments_first_fit() {
        let mut m = Memory::new(100);
        assert_eq!(m.alloc(10, 0), Some(0));
        assert_eq!(m.alloc(20, 1), Some(10));
        m.free(0, 10);
        // 4 words fit in the freed 10-word segment at 0; the rest stays free.
        assert_eq!(m.alloc(4, 2), Some(0));
        assert_eq!(m.owner[3], 2);
        assert_eq!(m.alloc(6, 3), Some(4));
        assert_eq!(m.alloc(70, 0), Some(30));
        assert_eq!(m.alloc(1, 0), None, "pool limit of 100 words reached");
    }

    #[test]
    fn sole_owner_holds_until_another_processor_gets_words() {
        let mut m = Memory::new(100);
        assert_eq!(m.sole_owner(), None, "no words yet");
        m.alloc(10, 3);
        m.alloc(5, 3);
        assert_eq!(m.sole_owner(), Some(3));
        m.free(0, 10);
        // Reusing the freed segment for processor 1 mixes the owners.
        assert_eq!(m.alloc(4, 1), Some(0));
        assert_eq!(m.sole_owner(), None);
        m.alloc(4, 3);
        assert_eq!(m.sole_owner(), None, "once mixed, stays mixed");
    }
}
