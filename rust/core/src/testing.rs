//! Deterministic inputs for tests and examples: not part of any algorithm.

/// A small deterministic generator of floats in `[0, 1)` (a 64-bit linear
/// congruential generator, the top 53 bits of its state), the same sequence
/// for a seed on every machine.
pub fn lcg(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed;
    move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    }
}
