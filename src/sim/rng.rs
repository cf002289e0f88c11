//! `rand()` of CPC on top of the crate's one generator ([`crate::rng`], xoshiro256**
//! seeded by SplitMix64): `rand()` returns `(next_u64 >> 40) as f32 / 2^24`, the top 24
//! bits, exactly representable in an `f32`, so the value is in `[0, 1)`; `srand(n)`
//! reseeds with `n` taken as an unsigned 32-bit number.
pub use crate::rng::Rng;

/// The next `rand()` value of the run.
pub fn next_f32(r: &mut Rng) -> f32 {
    (r.next_u64() >> 40) as f32 / (1u32 << 24) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_in_unit_interval_and_reproducible() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        for _ in 0..1000 {
            let x = next_f32(&mut a);
            assert!((0.0..1.0).contains(&x));
            assert_eq!(x.to_bits(), next_f32(&mut b).to_bits());
        }
        // The float is the top 24 bits of the generator's next word.
        let mut c = Rng::new(7);
        let w = Rng::new(7).next_u64();
        assert_eq!(next_f32(&mut c), (w >> 40) as f32 / 16_777_216.0);
    }
}
