//! The run's random number generator behind CPC's `rand()` / `srand(n)`.
//!
//! xoshiro256** seeded through SplitMix64, written out here so the stream never changes
//! when a dependency is upgraded (STYLE "Determinism"). `rand()` returns
//! `(next_u64 >> 40) as f32 / 2^24`: the top 24 bits, exactly representable in an `f32`,
//! so the value is in `[0, 1)`. Depends on nothing.

/// xoshiro256** state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Rng {
    /// A generator whose four state words are the first four SplitMix64 outputs from `seed`.
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        Rng { s: [splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x)] }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A float in `[0, 1)` with 24 random bits.
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u32 << 24) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // SplitMix64 from seed 1234567: the first outputs published with the reference
        // implementation (Vigna, splitmix64.c test vector).
        let mut x = 1234567u64;
        assert_eq!(splitmix64(&mut x), 6457827717110365317);
        assert_eq!(splitmix64(&mut x), 3203168211198807973);
    }

    #[test]
    fn floats_in_unit_interval_and_reproducible() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        for _ in 0..1000 {
            let x = a.next_f32();
            assert!((0.0..1.0).contains(&x));
            assert_eq!(x.to_bits(), b.next_f32().to_bits());
        }
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }
}
