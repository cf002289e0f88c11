//! The processors to visit in the current quantum: a set of processor ids taken out
//! lowest first, as a bit set (one bit per physical processor). The scheduler inserts
//! and takes out a processor at every turn of a busy quantum, so this replaces an
//! ordered tree by a few word operations with the same order.

/// A set of processor ids below the size it was made for.
#[derive(Debug, Clone, Default)]
pub(super) struct ProcSet {
    words: Vec<u64>,
    len: usize,
    /// No id below `64 * first` is in the set: where [`ProcSet::pop_first`] starts looking
    /// (a quantum takes its processors out in id order, so the words before it are empty).
    first: usize,
}

impl ProcSet {
    /// An empty set for ids `0..n`.
    pub(super) fn new(n: usize) -> ProcSet {
        ProcSet { words: vec![0; n.div_ceil(64)], len: 0, first: 0 }
    }

    /// Adds `id` (ids past the size given to [`ProcSet::new`] make the set grow).
    #[inline]
    pub(super) fn insert(&mut self, id: u32) {
        let (w, bit) = ((id / 64) as usize, 1u64 << (id % 64));
        self.first = self.first.min(w);
        match self.words.get_mut(w) {
            Some(word) => {
                if *word & bit == 0 {
                    *word |= bit;
                    self.len += 1;
                }
            }
            None => self.grow_insert(w, bit),
        }
    }

    #[cold]
    fn grow_insert(&mut self, w: usize, bit: u64) {
        self.words.resize(w + 1, 0);
        self.words[w] = bit;
        self.len += 1;
    }

    /// Takes out and returns the lowest id.
    #[inline]
    pub(super) fn pop_first(&mut self) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        for (w, word) in self.words.iter_mut().enumerate().skip(self.first) {
            if *word != 0 {
                let b = word.trailing_zeros();
                *word &= *word - 1;
                self.len -= 1;
                self.first = w;
                return Some(w as u32 * 64 + b);
            }
        }
        None
    }

    /// Moves every id of `other` into this set, leaving `other` empty.
    pub(super) fn absorb(&mut self, other: &mut ProcSet) {
        if other.len == 0 {
            return;
        }
        if self.words.len() < other.words.len() {
            self.words.resize(other.words.len(), 0);
        }
        let mut len = 0;
        for (w, o) in self.words.iter_mut().zip(other.words.iter_mut()) {
            *w |= std::mem::take(o);
            len += w.count_ones() as usize;
        }
        for w in &self.words[other.words.len()..] {
            len += w.count_ones() as usize;
        }
        self.len = len;
        self.first = self.first.min(other.first);
        other.len = 0;
    }

    /// No id in the set.
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The ids in the set, lowest first.
    pub(super) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let words = if self.len == 0 { &[][..] } else { &self.words[self.first.min(self.words.len())..] };
        words.iter().enumerate().flat_map(move |(k, &word)| {
            let base = (self.first + k) as u32 * 64;
            std::iter::successors((word != 0).then_some(word), |&w| Some(w & (w - 1)).filter(|&w| w != 0))
                .map(move |w| base + w.trailing_zeros())
        })
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

    /// The look for the lowest id starts past the words emptied by earlier takes; an id
    /// put back below them (by `insert` or `absorb`) is still the next one out.
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
