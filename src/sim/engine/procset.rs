//! The processors to visit in the current quantum: a set of processor ids taken out
//! lowest first. The scheduler inserts and takes out a processor at every turn of a busy
//! quantum, so this replaces an ordered tree by a few word operations with the same
//! order: a bit set (one bit per physical processor) under a summary of bit sets (one
//! bit per non-empty word of the level below), up to one word. Every operation costs a
//! few word operations per level (four levels for 16M processors), whatever the size of
//! the machine: a flat bit set had to be scanned from its start, which on a million
//! processors cost each quantum a look at 16 384 words.

/// A set of processor ids below the size it was made for.
#[derive(Debug, Clone, Default)]
pub(super) struct ProcSet {
    /// `levels[0]` has one bit per id; bit `w` of `levels[l + 1]` is set when word `w`
    /// of `levels[l]` is not zero. The last level has one word.
    levels: Vec<Vec<u64>>,
    len: usize,
    /// No id below `64 * first` is in the set: where [`ProcSet::pop_first`] looks first
    /// (a quantum takes its processors out in id order, so that word usually has the
    /// next one, and the levels above are not needed).
    first: usize,
}

impl ProcSet {
    /// An empty set for ids `0..n`.
    pub(super) fn new(n: usize) -> ProcSet {
        let mut levels = Vec::new();
        let mut words = n.div_ceil(64).max(1);
        loop {
            levels.push(vec![0; words]);
            if words == 1 {
                break;
            }
            words = words.div_ceil(64);
        }
        ProcSet { levels, len: 0, first: 0 }
    }

    /// Adds `id` (ids past the size given to [`ProcSet::new`] make the set grow).
    #[inline]
    pub(super) fn insert(&mut self, id: u32) {
        let mut i = id as usize;
        if i / 64 >= self.levels[0].len() {
            self.grow(i + 1);
        }
        self.first = self.first.min(i / 64);
        for (l, level) in self.levels.iter_mut().enumerate() {
            let (w, bit) = (i / 64, 1u64 << (i % 64));
            let was = level[w];
            level[w] = was | bit;
            if l == 0 {
                if was & bit != 0 {
                    return;
                }
                self.len += 1;
            }
            if was != 0 {
                // The levels above already mark this word.
                return;
            }
            i = w;
        }
    }

    /// Makes room for ids `0..n`, keeping the ids in the set.
    #[cold]
    fn grow(&mut self, n: usize) {
        let mut bigger = ProcSet::new(n);
        while let Some(id) = self.pop_first() {
            bigger.insert(id);
        }
        *self = bigger;
    }

    /// Takes out and returns the lowest id.
    #[inline]
    pub(super) fn pop_first(&mut self) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let mut i;
        let word = self.levels[0][self.first];
        if word != 0 {
            i = self.first * 64 + word.trailing_zeros() as usize;
        } else {
            // Down from the top: the lowest marked word at each level.
            i = 0;
            for level in self.levels.iter().rev() {
                i = i * 64 + level[i].trailing_zeros() as usize;
            }
            self.first = i / 64;
        }
        let id = i;
        // Up from the bottom: clear the bit, and a word's mark once it is empty.
        for level in self.levels.iter_mut() {
            let (w, bit) = (i / 64, 1u64 << (i % 64));
            level[w] &= !bit;
            if level[w] != 0 {
                break;
            }
            i = w;
        }
        self.len -= 1;
        Some(id as u32)
    }

    /// The lowest `i >= from` whose bit is set in level `l`.
    fn succ(&self, l: usize, from: usize) -> Option<usize> {
        let level = &self.levels[l];
        let w = from / 64;
        let word = *level.get(w)? & (!0u64 << (from % 64));
        if word != 0 {
            return Some(w * 64 + word.trailing_zeros() as usize);
        }
        // The next non-empty word after `w`, from the level above.
        if l + 1 == self.levels.len() {
            return None;
        }
        let next = self.succ(l + 1, w + 1)?;
        Some(next * 64 + level[next].trailing_zeros() as usize)
    }

    /// Moves every id of `other` into this set, leaving `other` empty.
    pub(super) fn absorb(&mut self, other: &mut ProcSet) {
        if other.len == 0 {
            return;
        }
        if self.len == 0 && self.levels[0].len() >= other.levels[0].len() {
            // The scheduler's case: the quantum's set is empty when the next one's moves in.
            if self.levels[0].len() == other.levels[0].len() {
                std::mem::swap(self, other);
                return;
            }
        }
        // Word by word, over the non-empty words of `other` only.
        let mut w = 0;
        while let Some(k) = other.succ_word(w) {
            let word = std::mem::take(&mut other.levels[0][k]);
            let mut rest = word;
            while rest != 0 {
                self.insert((k * 64) as u32 + rest.trailing_zeros());
                rest &= rest - 1;
            }
            w = k + 1;
        }
        for level in other.levels.iter_mut().skip(1) {
            level.fill(0);
        }
        other.len = 0;
    }

    /// The first non-empty word of the bottom level at or after `w`.
    fn succ_word(&self, w: usize) -> Option<usize> {
        if w >= self.levels[0].len() {
            return None;
        }
        if self.levels.len() == 1 {
            return (w..self.levels[0].len()).find(|&k| self.levels[0][k] != 0);
        }
        self.succ(1, w)
    }

    /// No id in the set.
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The ids in the set, lowest first.
    pub(super) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let first = if self.len == 0 { None } else { self.succ(0, 0) };
        std::iter::successors(first, move |&i| self.succ(0, i + 1)).map(|i| i as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The same answers as the ordered tree set it replaces, over a mixed sequence of
    /// inserts (with repeats and ids in several words) and takes, including an id below
    /// the last one taken (a processor woken for the current quantum again).
    #[test]
    fn behaves_as_an_ordered_set() {
        let mut s = ProcSet::new(130);
        let mut t: BTreeSet<u32> = BTreeSet::new();
        let mut x: u64 = 12345;
        for step in 0..20_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            if (x >> 60) < 9 {
                let id = ((x >> 20) % 200) as u32;
                s.insert(id);
                t.insert(id);
            } else {
                assert_eq!(s.pop_first(), t.pop_first(), "step {step}");
            }
            assert_eq!(s.is_empty(), t.is_empty(), "step {step}");
        }
        while let Some(id) = t.pop_first() {
            assert_eq!(s.pop_first(), Some(id));
        }
        assert_eq!(s.pop_first(), None);
    }

    /// An id put back below those taken (by `insert` or `absorb`) is the next one out.
    #[test]
    fn takes_the_lowest_after_emptied_words() {
        let mut s = ProcSet::new(256);
        for id in [5, 130, 200] {
            s.insert(id);
        }
        // 5 leaves word 0 empty; 130 is in word 2.
        assert_eq!(s.pop_first(), Some(5));
        assert_eq!(s.pop_first(), Some(130));
        s.insert(64);
        assert_eq!(s.pop_first(), Some(64));
        let mut other = ProcSet::new(256);
        other.insert(3);
        s.absorb(&mut other);
        assert_eq!(s.pop_first(), Some(3));
        assert_eq!(s.pop_first(), Some(200));
        assert_eq!(s.pop_first(), None);
    }

    /// `absorb` is a union that empties its argument: ids of both sets (one in a word
    /// the other set does not have) come out once each, in order.
    #[test]
    fn iter_lists_the_ids_lowest_first_without_taking_them() {
        let mut s = ProcSet::new(200);
        for id in [130, 3, 64, 63, 199, 0] {
            s.insert(id);
        }
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![0, 3, 63, 64, 130, 199]);
        assert_eq!(s.pop_first(), Some(0));
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![3, 63, 64, 130, 199]);
        assert_eq!(ProcSet::new(10).iter().count(), 0);
    }

    /// Three levels (64 * 64 < 5000): ids in distant words, the first and the last, taken
    /// in order, listed in order, and absorbed by an empty set of the same size (a swap)
    /// and by a non-empty one.
    #[test]
    fn three_levels_keep_the_order() {
        let ids = [4999, 0, 4096, 63, 64, 4095, 2222];
        let mut s = ProcSet::new(5000);
        assert_eq!(s.levels.len(), 3);
        for id in ids {
            s.insert(id);
        }
        let mut sorted = ids.to_vec();
        sorted.sort();
        assert_eq!(s.iter().collect::<Vec<_>>(), sorted);
        let mut empty = ProcSet::new(5000);
        empty.absorb(&mut s);
        assert!(s.is_empty() && s.iter().next().is_none());
        let mut t = ProcSet::new(5000);
        t.insert(1000);
        t.absorb(&mut empty);
        sorted.insert(3, 1000);
        assert_eq!(t.iter().collect::<Vec<_>>(), sorted);
        for &id in &sorted {
            assert_eq!(t.pop_first(), Some(id));
        }
        assert_eq!(t.pop_first(), None);
        // A set grown past its size by an insert keeps its ids.
        let mut g = ProcSet::new(10);
        g.insert(7);
        g.insert(70_000);
        assert_eq!(g.iter().collect::<Vec<_>>(), [7, 70_000]);
    }

    #[test]
    fn absorb_is_a_union() {
        let mut a = ProcSet::new(64);
        let mut b = ProcSet::new(200);
        for id in [3, 70] {
            a.insert(id);
        }
        for id in [3, 5, 150] {
            b.insert(id);
        }
        a.absorb(&mut b);
        assert!(b.is_empty());
        assert_eq!(b.pop_first(), None);
        let mut got = Vec::new();
        while let Some(id) = a.pop_first() {
            got.push(id);
        }
        assert_eq!(got, [3, 5, 70, 150]);
    }
}
