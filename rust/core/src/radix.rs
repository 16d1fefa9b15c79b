//! Stable LSD radix sort of `u64` keys carrying a `u32` payload.
//!
//! The pair search sorts cell keys whose width is known (`2L + 13` bits for
//! the quadtree, see [`crate::key`]), so a few counting passes beat a
//! comparison sort: each pass is a histogram and a scatter.  Both run over
//! chunks fixed by the data; bucket positions are laid out digit-major,
//! chunk-minor, so the result is the same stable order for any thread count.
//! The digit width is the width divided evenly over the fewest passes of at
//! most 11 bits (23 bits: three passes of 8), which keeps the scatter's
//! write streams few.  A pass whose digit is the same for every key is
//! skipped.

use crate::par::{even_bounds, Exec, Scatter};

const MAX_BITS: u32 = 11;
/// Fewest keys per chunk.
pub const GRAIN: usize = 1 << 14;
const MAX_CHUNKS: usize = 16;

/// Sort `keys` (each below `2^nbits`) stably, permuting `vals` alike.
pub fn sort_pairs(
    mut keys: Vec<u64>,
    mut vals: Vec<u32>,
    nbits: u32,
    ex: &Exec,
) -> (Vec<u64>, Vec<u32>) {
    let n = keys.len();
    debug_assert_eq!(vals.len(), n);
    if n < 2 {
        return (keys, vals);
    }
    let ex = ex.for_work(n, 2 * GRAIN);
    let passes = nbits.max(1).div_ceil(MAX_BITS);
    let bits = nbits.max(1).div_ceil(passes);
    let radix = 1usize << bits;
    let mask = (radix - 1) as u64;
    let nch = (n / GRAIN).clamp(1, MAX_CHUNKS);
    let bounds = even_bounds(n, nch);
    let mut kb = vec![0u64; n];
    let mut vb = vec![0u32; n];
    for p in 0..passes {
        let shift = p * bits;
        let digit = |k: u64| ((k >> shift) & mask) as usize;
        let mut hist: Vec<Vec<usize>> = ex.map(nch, |c| {
            let mut h = vec![0usize; radix];
            for &k in &keys[bounds[c]..bounds[c + 1]] {
                h[digit(k)] += 1;
            }
            h
        });
        let d0 = digit(keys[0]);
        if hist.iter().map(|h| h[d0]).sum::<usize>() == n {
            continue; // every key has this digit: the pass would not move anything
        }
        let mut total = 0;
        for d in 0..radix {
            for h in hist.iter_mut() {
                let v = h[d];
                h[d] = total;
                total += v;
            }
        }
        {
            let (sk, sv) = (Scatter::new(&mut kb), Scatter::new(&mut vb));
            let (keys, vals) = (&keys, &vals);
            ex.map(nch, |c| {
                let mut h = hist[c].clone();
                for i in bounds[c]..bounds[c + 1] {
                    let d = digit(keys[i]);
                    let q = h[d];
                    h[d] = q + 1;
                    // SAFETY: chunk c writes the positions hist[c][d]..(its
                    // count of digit d) for each d; the prefix sums above lay
                    // these ranges end to end over 0..n, one per (d, c), so
                    // no two chunks write the same position.
                    unsafe {
                        sk.write(q, keys[i]);
                        sv.write(q, vals[i]);
                    }
                }
            });
        }
        std::mem::swap(&mut keys, &mut kb);
        std::mem::swap(&mut vals, &mut vb);
    }
    (keys, vals)
}

/// Start of every run of keys equal above their low `drop` bits, then `len`.
pub fn run_starts(keys: &[u64], drop: u32) -> Vec<usize> {
    let mut first = Vec::new();
    for (e, &k) in keys.iter().enumerate() {
        if e == 0 || (k >> drop) != (keys[e - 1] >> drop) {
            first.push(e);
        }
    }
    first.push(keys.len());
    first
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn stable_sort_for_any_threads(keys in proptest::collection::vec(0u64..1 << 23, 0..3000),
                                       w in 1usize..4) {
            let vals: Vec<u32> = (0..keys.len() as u32).collect();
            let mut want: Vec<(u64, u32)> = keys.iter().copied().zip(vals.iter().copied()).collect();
            want.sort_by_key(|p| p.0); // stable
            let (k, v) = sort_pairs(keys, vals, 23, &Exec::new(Some(w)));
            let got: Vec<(u64, u32)> = k.into_iter().zip(v).collect();
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn parallel_chunks_sort_like_serial() {
        let n = 5 * GRAIN + 17;
        let keys: Vec<u64> = (0..n as u64)
            .map(|i| (i * 2_654_435_761) % (1 << 30))
            .collect();
        let vals: Vec<u32> = (0..n as u32).collect();
        let a = sort_pairs(keys.clone(), vals.clone(), 30, &Exec::serial());
        let b = sort_pairs(keys, vals, 30, &Exec::new(Some(2)));
        assert_eq!(a, b);
        assert!(a.0.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn runs() {
        assert_eq!(run_starts(&[0, 1, 256, 300, 600], 8), vec![0, 2, 4, 5]);
        assert_eq!(run_starts(&[], 8), vec![0]);
    }
}
