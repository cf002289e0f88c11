//! The default allocation's choice (seed 000 §4.2.4: a process without a mapping goes to
//! the processor with the fewest live processes, ties to the lowest id) in logarithmic
//! time: a scan over the processors made every creation cost in proportion to the
//! machine, so a forall of N children on N processors took time in N².

/// Live-process counts per processor, with a tournament tree of minima over them.
pub(crate) struct LeastLoaded {
    /// Number of processors.
    n: usize,
    /// Leaves start at `leaves` (a power of two); node `i`'s children are `2i`, `2i+1`.
    /// A node holds the least count below it; leaves past `n` hold `u32::MAX`.
    tree: Vec<u32>,
    leaves: usize,
}

impl LeastLoaded {
    /// `n >= 1` processors with no live process.
    pub(crate) fn new(n: usize) -> LeastLoaded {
        let leaves = n.max(1).next_power_of_two();
        let mut tree = vec![u32::MAX; 2 * leaves];
        tree[leaves..leaves + n].fill(0);
        for i in (1..leaves).rev() {
            tree[i] = tree[2 * i].min(tree[2 * i + 1]);
        }
        LeastLoaded { n, tree, leaves }
    }

    /// The live count of processor `p`.
    #[cfg(test)]
    pub(crate) fn get(&self, p: usize) -> u32 {
        self.tree[self.leaves + p]
    }

    /// Adds `delta` (±1) to processor `p`'s count.
    pub(crate) fn add(&mut self, p: usize, delta: i32) {
        debug_assert!(p < self.n);
        let mut i = self.leaves + p;
        self.tree[i] = self.tree[i].wrapping_add_signed(delta);
        while i > 1 {
            i /= 2;
            let m = self.tree[2 * i].min(self.tree[2 * i + 1]);
            if self.tree[i] == m {
                break;
            }
            self.tree[i] = m;
        }
    }

    /// The processor with the fewest live processes, the lowest id among equals.
    pub(crate) fn least(&self) -> u32 {
        let mut i = 1;
        while i < self.leaves {
            // The left child holds the lower ids: it wins ties.
            i = if self.tree[2 * i] <= self.tree[2 * i + 1] { 2 * i } else { 2 * i + 1 };
        }
        (i - self.leaves) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition: a scan for the first least count.
    fn scan(counts: &[u32]) -> u32 {
        let mut best = 0;
        for (i, &c) in counts.iter().enumerate() {
            if c < counts[best] {
                best = i;
            }
        }
        best as u32
    }

    #[test]
    fn least_is_the_first_processor_with_the_fewest() {
        // 5 processors (a tree of 8 leaves): fill round-robin, then end some.
        let mut t = LeastLoaded::new(5);
        let mut counts = [0u32; 5];
        assert_eq!(t.least(), 0, "all empty: the lowest id");
        for k in 0..12 {
            let p = t.least();
            assert_eq!(p, scan(&counts), "after {k} creations");
            assert_eq!(p, k % 5, "an empty machine fills round-robin");
            t.add(p as usize, 1);
            counts[p as usize] += 1;
        }
        // counts = [3, 3, 2, 2, 2]; ending one on processor 3 makes it the least.
        t.add(3, -1);
        counts[3] -= 1;
        assert_eq!(t.least(), 3);
        assert_eq!(t.get(3), 1);
        // Pseudo-random creations and ends agree with the scan throughout.
        let mut x = 12345u32;
        for _ in 0..2000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let p = ((x >> 16) % 5) as usize;
            if x & 1 == 0 && counts[p] > 0 {
                t.add(p, -1);
                counts[p] -= 1;
            } else {
                let q = t.least() as usize;
                t.add(q, 1);
                counts[q] += 1;
            }
            assert_eq!(t.least(), scan(&counts));
        }
    }

    #[test]
    fn one_processor() {
        let mut t = LeastLoaded::new(1);
        t.add(0, 1);
        assert_eq!(t.least(), 0);
        assert_eq!(t.get(0), 1);
    }
}
