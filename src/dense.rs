//! [`DenseMap`]: a map from integer keys that are mostly small and dense (process ids,
//! processor numbers, message ids, all numbered from 0 by the simulator) to values, for
//! the per-event work of the analysis builders and the trace converters: a window of
//! slots indexed by the key, so that a look-up costs one index and a new key at the end
//! no allocation beyond the window's amortised growth, with an ordered map for keys
//! outside the window (a foreign trace's stray huge id costs no memory). A [`sliding`](DenseMap::sliding) map also
//! drops the empty slots at the window's start, so a map of messages in flight, removed
//! roughly in the order they were added, holds only the span between the oldest and the
//! newest (and as many dropped slots again at most, or 1 024, before it gives
//! them back). Iteration is in key order, as a `BTreeMap`'s. Depends on nothing.
use std::collections::BTreeMap;

/// The window may grow to hold a key up to twice its length plus this beyond its end.
const MIN_DENSE: u64 = 4096;
/// A sliding window's dropped slots are given back (the live ones moved to the front)
/// once they are at least this many and at least as many as the live ones: each slot
/// is moved at most once per slot dropped before it, so dropping costs O(1) amortised.
const MIN_DROP: usize = 1024;

/// A map from `u64` keys to `V`, dense where the keys are.
#[derive(Debug, Clone)]
pub struct DenseMap<V> {
    /// `slots[head + k]` holds key `base + k`; the `head` slots before are dropped ones
    /// of a sliding window, not yet given back. A plain vector rather than a ring: a
    /// look-up is one addition and one bounds check, in the analysis's hottest loops.
    slots: Vec<Option<V>>,
    head: usize,
    base: u64,
    /// Keys outside `base..base + window length`.
    sparse: BTreeMap<u64, V>,
    /// Whether empty slots at the start are dropped.
    sliding: bool,
}

impl<V> Default for DenseMap<V> {
    fn default() -> Self {
        DenseMap { slots: Vec::new(), head: 0, base: 0, sparse: BTreeMap::new(), sliding: false }
    }
}

impl<V> DenseMap<V> {
    /// A map whose window moves past keys once they are removed; for keys added in
    /// increasing order and removed roughly in the same order.
    pub fn sliding() -> Self {
        DenseMap { sliding: true, ..DenseMap::default() }
    }

    /// The number of keys the window spans.
    #[inline(always)]
    fn window(&self) -> usize {
        self.slots.len() - self.head
    }

    /// The index in `slots` of `key` when it is in the window.
    #[inline(always)]
    fn slot(&self, key: u64) -> Option<usize> {
        let off = key.wrapping_sub(self.base);
        if off < self.window() as u64 {
            Some(self.head + off as usize)
        } else {
            None
        }
    }

    /// Grows the window to hold `key` when `key` lies after it, within twice its length
    /// (plus [`MIN_DENSE`]), moving the sparse entries the growth covers; the index of
    /// `key`'s slot if it now has one.
    #[cold]
    fn reach(&mut self, key: u64) -> Option<usize> {
        let len = self.window() as u64;
        let off = key.checked_sub(self.base)?;
        if off >= len.saturating_mul(2).saturating_add(MIN_DENSE) {
            return None;
        }
        let end = key.checked_add(1)?;
        let new_len = usize::try_from(off + 1).ok()?.checked_add(self.head)?;
        self.slots.resize_with(new_len, || None);
        let lo = self.base + len;
        if self.sparse.range(lo..end).next().is_some() {
            let mut covered = self.sparse.split_off(&lo);
            let above = covered.split_off(&end);
            self.sparse.extend(above);
            for (k, v) in covered {
                // base + len <= k <= key: within the grown window.
                self.slots[self.head + (k - self.base) as usize] = Some(v);
            }
        }
        Some(new_len - 1)
    }

    /// The value of `key`.
    #[inline]
    pub fn get(&self, key: u64) -> Option<&V> {
        match self.slot(key) {
            Some(k) => self.slots[k].as_ref(),
            None => self.sparse.get(&key),
        }
    }

    /// The value of `key`, to change in place.
    #[inline]
    pub fn get_mut(&mut self, key: u64) -> Option<&mut V> {
        match self.slot(key) {
            Some(k) => self.slots[k].as_mut(),
            None => self.sparse.get_mut(&key),
        }
    }

    /// Sets the value of `key`, returning the previous one.
    #[inline]
    pub fn insert(&mut self, key: u64, value: V) -> Option<V> {
        match self.slot(key).or_else(|| self.reach(key)) {
            Some(k) => self.slots[k].replace(value),
            None => self.sparse.insert(key, value),
        }
    }

    /// Removes `key`, returning its value.
    #[inline]
    pub fn remove(&mut self, key: u64) -> Option<V> {
        match self.slot(key) {
            Some(k) => {
                let v = self.slots[k].take();
                if self.sliding && k == self.head {
                    self.slide();
                }
                v
            }
            None => self.sparse.remove(&key),
        }
    }

    /// Moves a sliding window's start past its empty slots.
    fn slide(&mut self) {
        let live = self.slots[self.head..].iter().position(Option::is_some).unwrap_or(self.window());
        self.head += live;
        self.base += live as u64;
        if self.head == self.slots.len() {
            self.slots.clear();
            self.head = 0;
        } else if self.head >= MIN_DROP && self.head >= self.window() {
            self.slots.drain(..self.head);
            self.head = 0;
        }
    }

    /// The value of `key`, inserted with `make` when absent.
    #[inline(always)]
    pub fn get_or_insert_with(&mut self, key: u64, make: impl FnOnce() -> V) -> &mut V {
        let k = match self.slot(key) {
            Some(k) => k,
            None => match self.reach(key) {
                Some(k) => k,
                None => return self.sparse.entry(key).or_insert_with(make),
            },
        };
        self.slots[k].get_or_insert_with(make)
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.slots.clear();
        self.head = 0;
        self.base = 0;
        self.sparse.clear();
    }

    /// The entries in key order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &V)> {
        let base = self.base;
        let end = base + self.window() as u64;
        let below = self.sparse.range(..base);
        let window = self.slots[self.head..]
            .iter()
            .enumerate()
            .filter_map(move |(k, v)| v.as_ref().map(|v| (base + k as u64, v)));
        let above = self.sparse.range(end..);
        below.map(|(&k, v)| (k, v)).chain(window).chain(above.map(|(&k, v)| (k, v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a pseudo-random mix of inserts, removes and look-ups on `d` and on a
    /// `BTreeMap`, the reference, and checks every answer and the final order.
    fn agrees_with_btreemap(mut d: DenseMap<u32>, key: impl Fn(u64, u64) -> u64) {
        let mut b: BTreeMap<u64, u32> = BTreeMap::new();
        let mut x: u64 = 12345;
        for i in 0..20_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let k = key(i, x >> 33);
            match (x >> 20) % 5 {
                0 | 1 => assert_eq!(d.insert(k, i as u32), b.insert(k, i as u32), "insert {k}"),
                2 => assert_eq!(d.remove(k), b.remove(&k), "remove {k}"),
                3 => {
                    // A change in place is seen by the next look-up.
                    let (got, want) = (d.get_mut(k), b.get_mut(&k));
                    assert_eq!(got.is_some(), want.is_some(), "get_mut {k}");
                    if let (Some(g), Some(w)) = (got, want) {
                        *g += 1;
                        *w += 1;
                    }
                }
                _ => assert_eq!(d.get(k), b.get(&k), "get {k}"),
            }
        }
        let got: Vec<(u64, u32)> = d.iter().map(|(k, &v)| (k, v)).collect();
        let want: Vec<(u64, u32)> = b.iter().map(|(&k, &v)| (k, v)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn behaves_as_an_ordered_map() {
        // Keys near a growing counter (as message ids), small keys (as process ids), and
        // keys anywhere (stray ids), in both kinds of map.
        for sliding in [false, true] {
            let make = || if sliding { DenseMap::sliding() } else { DenseMap::default() };
            agrees_with_btreemap(make(), |i, r| (i / 2).saturating_sub(r % 64));
            agrees_with_btreemap(make(), |_, r| r % 300);
            agrees_with_btreemap(make(), |i, r| if r % 7 == 0 { r << 20 } else { i + r % 9000 });
            agrees_with_btreemap(make(), |_, r| u64::MAX - r % 3);
        }
        let mut d: DenseMap<u32> = DenseMap::default();
        *d.get_or_insert_with(8, || 100) += 1;
        *d.get_or_insert_with(8, || 100) += 1;
        assert_eq!(d.get(8), Some(&102));
        // Cleared, it holds nothing, however its keys were kept, and takes keys again.
        d.insert(u64::MAX, 1);
        d.clear();
        assert_eq!(d.iter().count(), 0);
        assert_eq!((d.get(8), d.get(u64::MAX)), (None, None));
        d.insert(3, 4);
        assert_eq!(d.iter().collect::<Vec<_>>(), vec![(3, &4)]);
    }

    #[test]
    fn stray_keys_take_no_slots_and_growth_takes_them_in() {
        let mut d: DenseMap<u8> = DenseMap::default();
        // 10_000 is beyond 2·0 + 4096: sparse. 4000 is not: the window grows to 4001.
        d.insert(u64::MAX, 0);
        d.insert(10_000, 1);
        assert_eq!(d.window(), 0);
        d.insert(4000, 2);
        assert_eq!(d.window(), 4001);
        // 10_500 is within 2·4001 + 4096 = 12_098: the window grows to 10_501 and takes
        // in 10_000; u64::MAX stays sparse.
        d.insert(10_500, 3);
        assert_eq!(d.sparse.len(), 1);
        assert_eq!(d.get(10_000), Some(&1));
        assert_eq!(d.iter().map(|(k, _)| k).collect::<Vec<_>>(), vec![4000, 10_000, 10_500, u64::MAX]);
    }

    #[test]
    fn a_sliding_window_holds_only_the_keys_in_flight() {
        // Keys added in order and removed in order, at most 10 apart: the window never
        // spans more than the 11 keys from the oldest in flight to the newest, however
        // many went through, and the dropped slots are given back once there are
        // MIN_DROP of them (the live ones fewer).
        let mut d: DenseMap<u64> = DenseMap::sliding();
        for k in 0..100_000u64 {
            d.insert(k, k);
            if k >= 10 {
                assert_eq!(d.remove(k - 10), Some(k - 10));
            }
            assert!(d.window() <= 11);
            assert!(d.head < MIN_DROP && d.slots.len() < MIN_DROP + 11);
        }
        assert!(d.sparse.is_empty());
        // A key behind the window goes to the ordered map and is found there.
        d.insert(5, 5);
        assert_eq!(d.get(5), Some(&5));
        assert_eq!(d.iter().next(), Some((5, &5)));
    }
}
