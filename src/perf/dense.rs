//! [`DenseMap`]: a map from integer keys that are mostly small and dense (process ids,
//! processor numbers, message ids, all numbered from 0 by the simulator) to values, for
//! the per-event work of the analysis builders: a vector indexed by the key, so that a
//! look-up costs one index and a new key at the end no allocation beyond the vector's
//! amortised growth, with an ordered map for keys far beyond the dense range (a foreign
//! trace's stray huge id costs no memory). Iteration is in key order, as a `BTreeMap`'s.
//! Depends on nothing.
use std::collections::BTreeMap;

/// Keys below this always go to the vector.
const MIN_DENSE: u64 = 4096;

/// A map from `u64` keys to `V`, dense where the keys are.
#[derive(Debug, Clone)]
pub struct DenseMap<V> {
    slots: Vec<Option<V>>,
    /// Keys not below `slots.len()`.
    sparse: BTreeMap<u64, V>,
}

impl<V> Default for DenseMap<V> {
    fn default() -> Self {
        DenseMap { slots: Vec::new(), sparse: BTreeMap::new() }
    }
}

impl<V> DenseMap<V> {
    /// The slot index of `key` when it is in the vector's range.
    #[inline]
    fn slot(&self, key: u64) -> Option<usize> {
        usize::try_from(key).ok().filter(|&k| k < self.slots.len())
    }

    /// Grows the vector to hold `key` when `key` is within twice its length (plus
    /// [`MIN_DENSE`]), moving sparse entries the growth covers; whether `key` now has a slot.
    fn reach(&mut self, key: u64) -> bool {
        let len = self.slots.len() as u64;
        if key >= len.saturating_mul(2).saturating_add(MIN_DENSE) {
            return false;
        }
        let Ok(new_len) = usize::try_from(key + 1) else { return false };
        self.slots.resize_with(new_len, || None);
        if self.sparse.first_key_value().is_some_and(|(&k, _)| k <= key) {
            let rest = self.sparse.split_off(&(key + 1));
            for (k, v) in std::mem::replace(&mut self.sparse, rest) {
                // k <= key < new_len, so the index is in range.
                self.slots[k as usize] = Some(v);
            }
        }
        true
    }

    /// The value of `key`.
    #[inline]
    pub fn get(&self, key: u64) -> Option<&V> {
        match self.slot(key) {
            Some(k) => self.slots[k].as_ref(),
            None => self.sparse.get(&key),
        }
    }

    /// Sets the value of `key`, returning the previous one.
    #[inline]
    pub fn insert(&mut self, key: u64, value: V) -> Option<V> {
        if let Some(k) = self.slot(key) {
            return self.slots[k].replace(value);
        }
        if self.reach(key) {
            return self.slots[key as usize].replace(value);
        }
        self.sparse.insert(key, value)
    }

    /// Removes `key`, returning its value.
    #[inline]
    pub fn remove(&mut self, key: u64) -> Option<V> {
        match self.slot(key) {
            Some(k) => self.slots[k].take(),
            None => self.sparse.remove(&key),
        }
    }

    /// The value of `key`, inserted with `make` when absent.
    #[inline]
    pub fn get_or_insert_with(&mut self, key: u64, make: impl FnOnce() -> V) -> &mut V {
        if self.slot(key).is_some() || self.reach(key) {
            return self.slots[key as usize].get_or_insert_with(make);
        }
        self.sparse.entry(key).or_insert_with(make)
    }

    /// The entries in key order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &V)> {
        let dense = self.slots.iter().enumerate().filter_map(|(k, v)| v.as_ref().map(|v| (k as u64, v)));
        dense.chain(self.sparse.iter().map(|(&k, v)| (k, v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_as_an_ordered_map_for_dense_and_stray_keys() {
        // The same operations on a BTreeMap give the reference answers.
        let mut d: DenseMap<u32> = DenseMap::default();
        let mut b: BTreeMap<u64, u32> = BTreeMap::new();
        let keys = [3u64, 0, 5000, u64::MAX, 9000, 3, 20_000, 12_000, 1 << 40, 7];
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(d.insert(k, i as u32), b.insert(k, i as u32), "insert {k}");
        }
        // Keys 0..7 grow the vector to 8 slots; 5000 and up are beyond 2·len + 4096 of
        // that vector and go to the ordered map.
        assert_eq!(d.slots.len(), 8);
        assert_eq!(d.sparse.len(), 6);
        assert_eq!(
            d.iter().map(|(k, &v)| (k, v)).collect::<Vec<_>>(),
            b.iter().map(|(&k, &v)| (k, v)).collect::<Vec<_>>()
        );
        for k in [3u64, 5000, 20_000, u64::MAX, 1, 1 << 40] {
            assert_eq!(d.get(k), b.get(&k), "get {k}");
            assert_eq!(d.remove(k), b.remove(&k), "remove {k}");
            assert_eq!(d.get(k), None);
        }
        *d.get_or_insert_with(8, || 100) += 1;
        *d.get_or_insert_with(8, || 100) += 1;
        assert_eq!(d.get(8), Some(&102));
    }

    #[test]
    fn growth_takes_in_sparse_keys_it_covers() {
        let mut d: DenseMap<u8> = DenseMap::default();
        // 10_000 is beyond 2·0 + 4096: sparse. 4000 is not: the vector grows to 4001.
        assert_eq!(d.insert(10_000, 1), None);
        assert!(d.slots.is_empty());
        d.insert(4000, 2);
        // 10_500 is within 2·4001 + 4096 = 12_098: the vector grows to 10_501 and takes
        // in the sparse 10_000.
        d.insert(10_500, 3);
        assert!(d.sparse.is_empty());
        assert_eq!(d.get(10_000), Some(&1));
        assert_eq!(d.iter().map(|(k, _)| k).collect::<Vec<_>>(), vec![4000, 10_000, 10_500]);
    }
}
