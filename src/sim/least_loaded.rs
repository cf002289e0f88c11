//! The default allocation's choice (seed 000 §4.2.4: a process without a mapping goes to
//! the processor with the fewest live processes, ties to the lowest id) in logarithmic
//! time: a scan over the processors made every creation cost in proportion to the
//! machine, so a forall of N children on N processors took time in N².

/// Live-process counts per processor, with a tournament tree of minima over them, built
/// at the first [`LeastLoaded::least`]: a run whose every process is placed by its
/// program or mapping only counts (a million processes' counts kept in a tree of two
/// million nodes cost a cache miss per level).
pub(crate) struct LeastLoaded {
    /// Number of processors.
    n: usize,
    /// The live count per processor.
    counts: Vec<u32>,
    /// Empty until the first `least`; then leaves start at `leaves` (a power of two), node
    /// `i`'s children are `2i`, `2i+1`, and a node holds the least count below it (leaves
    /// past `n` hold `u32::MAX`).
    tree: Vec<u32>,
    leaves: usize,
}

impl LeastLoaded {
    /// `n >= 1` processors with no live process.
    pub(crate) fn new(n: usize) -> LeastLoaded {
        let n = n.max(1);
        LeastLoaded { n, counts: vec![0; n], tree: Vec::new(), leaves: n.next_power_of_two() }
    }

    /// The live count of processor `p`.
    #[cfg(test)]
    pub(crate) fn get(&self, p: usize) -> u32 {
        self.counts[p]
    }

    /// Adds `delta` (±1) to processor `p`'s count.
    pub(crate) fn add(&mut self, p: usize, delta: i32) {
        debug_assert!(p < self.n);
        let c = self.counts[p].wrapping_add_signed(delta);
        self.counts[p] = c;
        if self.tree.is_empty() {
            return;
        }
        let mut i = self.leaves + p;
        self.tree[i] = c;
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
    pub(crate) fn least(&mut self) -> u32 {
        if self.tree.is_empty() {
            let leaves = self.leaves;
            let mut tree = vec![u32::MAX; 2 * leaves];
            tree[leaves..leaves + self.n].copy_from_slice(&self.counts);
            for i in (1..leaves).rev() {
                tree[i] = tree[2 * i].min(tree[2 * i + 1]);
            }
            self.tree = tree;
        }
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
    fn counts_before_the_first_choice_are_seen() {
        // Processes placed by the program (no choice yet): two on processor 0 (one of
        // them ended), one on 1 and one on 3. The first choice is 2, the only empty
        // one; then every processor holds one, and the lowest id, 0, is chosen.
        let mut t = LeastLoaded::new(4);
        for p in [0, 1, 3, 0] {
            t.add(p, 1);
        }
        t.add(0, -1);
        assert_eq!(t.least(), 2);
        t.add(2, 1);
        assert_eq!(t.least(), 0);
        assert_eq!((t.get(0), t.get(1), t.get(2), t.get(3)), (1, 1, 1, 1));
    }

    #[test]
    fn one_processor() {
        let mut t = LeastLoaded::new(1);
        t.add(0, 1);
        assert_eq!(t.least(), 0);
        assert_eq!(t.get(0), 1);
    }
}
