//! Stable LSD radix sort of records by an integer key.
//!
//! The pair search sorts cell keys whose width is known (laid out by
//! [`crate::key::Layout`] to fill whole digits of [`digit_bits`]), so a few
//! counting passes beat a comparison sort: each pass is a histogram and a
//! scatter.  Both run over chunks fixed by the data (their number by the
//! record count and the digit width only); bucket positions are laid out
//! digit-major, chunk-minor, so the result is the same stable order for any
//! thread count.  The digit width is the width divided evenly over the
//! fewest passes of at most 11 bits (23 bits: three passes of 8), which
//! keeps the scatter's write streams few, and at most about `log2(n)` bits
//! for short inputs.  A pass whose digit is the same for every key is
//! skipped.
//!
//! The records are plain words when the key and its payload fit in 64 bits
//! together (the key above, the payload below, the sort only reading the key
//! bits), else `(key, payload)` pairs: one array either way, so a scatter
//! writes one stream per digit.

use crate::par::{even_bounds, Exec, Scatter};
use crate::scratch::{self, Pooled};

const MAX_BITS: u32 = 11;
/// Fewest keys from which the sort runs in parallel.
pub const GRAIN: usize = 1 << 14;
/// Records per chunk and digit value, on average, below which the chunks
/// are fewer (see the scatter in [`sort`]).
const SEGMENT: usize = 32;
const SORT_CHUNKS: usize = 16;
const MAX_RADIX: usize = 1 << MAX_BITS;
/// Counts (then positions) of each digit value.
type Hist = Box<[usize; MAX_RADIX]>;

/// A record with a sort key.
pub trait Keyed: Copy + Send + Sync + Default + Pooled {
    /// The key, shifted by `shift` (keys are read from bit `shift` on).
    fn key(&self, shift: u32) -> u64;
}

impl Keyed for u64 {
    #[inline(always)]
    fn key(&self, shift: u32) -> u64 {
        self >> shift
    }
}

impl Keyed for (u64, u32) {
    #[inline(always)]
    fn key(&self, _: u32) -> u64 {
        self.0
    }
}

/// Bits of a digit when sorting `n` records: about `log2(n)` (4 to 11), so
/// a short input does not pay for thousands of counters per pass.  A key
/// whose width is a multiple of it is sorted in `width / digit_bits(n)`
/// passes of exactly this width.
pub fn digit_bits(n: usize) -> u32 {
    (usize::BITS - n.leading_zeros()).clamp(4, MAX_BITS)
}

/// Sort `recs` stably by their key (bits `shift..shift + nbits`).
pub fn sort<T: Keyed>(mut recs: Vec<T>, shift: u32, nbits: u32, ex: &Exec) -> Vec<T> {
    let n = recs.len();
    if n < 2 {
        return recs;
    }
    let ex = ex.for_work(n, 2 * GRAIN);
    let most = digit_bits(n);
    let passes = nbits.max(1).div_ceil(most);
    let bits = nbits.max(1).div_ceil(passes);
    let radix = 1usize << bits;
    let mask = (radix - 1) as u64;
    // chunks whose share of a digit's bucket averages SEGMENT records: with
    // less, the scatter's neighbouring chunks write the same cache lines
    let nch = (n / (radix * SEGMENT)).clamp(1, SORT_CHUNKS);
    let bounds = even_bounds(n, nch);
    let mut spare = scratch::filled(n, T::default());
    let digit = |k: u64, p: u32| ((k >> (p * bits)) & mask) as usize & (MAX_RADIX - 1);
    // Digit counts of passes `ps`, for each chunk of the current order.
    let count = |recs: &[T], ps: std::ops::Range<u32>| -> Vec<Vec<Hist>> {
        ex.map(nch, |c| {
            let mut hs: Vec<Hist> = ps.clone().map(|_| Box::new([0; MAX_RADIX])).collect();
            for r in &recs[bounds[c]..bounds[c + 1]] {
                let k = r.key(shift);
                for (h, p) in hs.iter_mut().zip(ps.clone()) {
                    h[digit(k, p)] += 1;
                }
            }
            hs
        })
    };
    // One chunk: one read counts every pass (a pass only reorders the
    // chunk).  Several: each pass counts anew, the chunks' contents moved.
    let mut counted = if nch == 1 {
        count(&recs, 0..passes).swap_remove(0).into_iter()
    } else {
        Vec::new().into_iter()
    };
    for p in 0..passes {
        let mut hist: Vec<Hist> = match counted.next() {
            Some(h) => vec![h],
            None => count(&recs, p..p + 1).into_iter().flatten().collect(),
        };
        let d0 = digit(recs[0].key(shift), p);
        if hist.iter().map(|h| h[d0]).sum::<usize>() == n {
            continue; // every key has this digit: the pass would not move anything
        }
        // positions: digit-major, chunk-minor
        let mut total = 0;
        for d in 0..radix {
            for h in hist.iter_mut() {
                let v = h[d];
                h[d] = total;
                total += v;
            }
        }
        if nch == 1 {
            let h = &mut hist[0];
            for r in &recs {
                let d = digit(r.key(shift), p);
                spare[h[d]] = *r;
                h[d] += 1;
            }
        } else {
            let out = Scatter::new(&mut spare);
            let recs = &recs;
            ex.map(nch, |c| {
                let mut h: Hist = hist[c].clone();
                for r in &recs[bounds[c]..bounds[c + 1]] {
                    let d = digit(r.key(shift), p);
                    // SAFETY: chunk c writes the positions hist[c][d]..(its
                    // count of digit d) for each d; the prefix sums above lay
                    // these ranges end to end over 0..n, one per (d, c), so
                    // no two chunks write the same position.
                    unsafe { out.write(h[d], *r) };
                    h[d] += 1;
                }
            });
        }
        std::mem::swap(&mut recs, &mut spare);
    }
    scratch::give(spare);
    recs
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn stable_sort_for_any_threads(keys in proptest::collection::vec(0u64..1 << 23, 0..3000),
                                       w in 1usize..4) {
            let recs: Vec<(u64, u32)> = keys.iter().copied().zip(0..).collect();
            let mut want = recs.clone();
            want.sort_by_key(|p| p.0); // stable
            prop_assert_eq!(sort(recs, 0, 23, &Exec::new(Some(w))), want);
        }

        #[test]
        fn words_sort_on_their_key_bits(keys in proptest::collection::vec(0u64..1 << 30, 0..3000)) {
            // payload in the low 12 bits: the input position
            let words: Vec<u64> = keys.iter().enumerate().map(|(i, &k)| (k << 12) | i as u64).collect();
            let mut want = words.clone();
            want.sort_by_key(|w| w >> 12);
            prop_assert_eq!(sort(words, 12, 30, &Exec::new(Some(2))), want);
        }
    }

    #[test]
    fn parallel_chunks_sort_like_serial() {
        let n = 5 * GRAIN + 17;
        let recs: Vec<(u64, u32)> = (0..n as u64)
            .map(|i| ((i * 2_654_435_761) % (1 << 30), i as u32))
            .collect();
        let a = sort(recs.clone(), 0, 30, &Exec::serial());
        let b = sort(recs, 0, 30, &Exec::new(Some(2)));
        assert_eq!(a, b);
        assert!(a.windows(2).all(|w| w[0].0 <= w[1].0));
    }
}
