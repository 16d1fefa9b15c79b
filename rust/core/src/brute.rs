//! Brute force: every pair tested, O(n^2).  The reference all others match.
//!
//! Rows are split into chunks of about equal triangular work; the inner loop
//! runs over contiguous coordinate columns.  Pairs come out with `i`
//! ascending from chunk to chunk and `j` ascending within a row: already the
//! canonical order, so no sort follows.  Small inputs (a game's few hundred
//! sprites, every frame) run serially on the calling thread.

use crate::narrow::Narrow;
use crate::pairs::{concatenate, finish, Budget, Sink, TooMany};
use crate::par::{balanced, chunk_count, Exec};

/// Up to this many boxes, one serial pass.
pub const SERIAL: usize = 512;

/// Pairs among `boxes` in canonical order, flat `[i, j, ...]`.
pub fn find(
    boxes: &[[f64; 4]],
    narrow: &Narrow,
    budget: &Budget,
    ex: &Exec,
) -> Result<Vec<isize>, TooMany> {
    let n = boxes.len();
    let cols: [Vec<f64>; 4] = std::array::from_fn(|t| boxes.iter().map(|b| b[t]).collect());
    let rows = |lo: usize, hi: usize| -> Sink {
        if narrow.is_trivial() {
            rows::<true>(&cols, narrow, budget, lo, hi)
        } else {
            rows::<false>(&cols, narrow, budget, lo, hi)
        }
    };
    if n <= SERIAL || !ex.is_parallel() {
        return Ok(concatenate(&finish(vec![rows(0, n)])?));
    }
    // row i tests n - i - 1 pairs
    let mut cum = vec![0.0f64; n + 1];
    for i in 0..n {
        cum[i + 1] = cum[i] + (n - i) as f64;
    }
    let nch = chunk_count(n, 256, 64);
    let bounds = balanced(&cum, nch);
    let chunks = ex.map(nch, |c| rows(bounds[c], bounds[c + 1]));
    Ok(concatenate(&finish(chunks)?))
}

/// Rows `lo..hi` against every later box; `T`: the narrow phase is trivial.
///
/// The box tests of a row run in blocks of 64 into a bit mask (compares the
/// compiler can vectorise, no branch), and only the set bits, the few
/// overlapping boxes, go on to the narrow phase and the output.
fn rows<'a, const T: bool>(
    cols: &[Vec<f64>; 4],
    narrow: &Narrow,
    budget: &'a Budget,
    lo: usize,
    hi: usize,
) -> Sink<'a> {
    let mut out = Sink::new(budget);
    let [x0, y0, x1, y1] = cols;
    let n = x0.len();
    for i in lo..hi {
        let (ax0, ay0, ax1, ay1) = (x0[i], y0[i], x1[i], y1[i]);
        let mut j0 = i + 1;
        while j0 < n {
            let j1 = (j0 + 64).min(n);
            let mut mask = 0u64;
            let (bx0, by0, bx1, by1) = (&x0[j0..j1], &y0[j0..j1], &x1[j0..j1], &y1[j0..j1]);
            for t in 0..j1 - j0 {
                let keep = (ax0 < bx1[t]) & (bx0[t] < ax1) & (ay0 < by1[t]) & (by0[t] < ay1);
                mask |= (keep as u64) << t;
            }
            while mask != 0 {
                let j = j0 + mask.trailing_zeros() as usize;
                mask &= mask - 1;
                out.emit(narrow.judge::<T>(true, i, j), i as u32, j as u32);
            }
            j0 = j1;
        }
    }
    out
}
