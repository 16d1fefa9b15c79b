//! Brute force: every pair tested, O(n^2).  The reference all others match.
//!
//! Rows are split into chunks of about equal triangular work; the inner loop
//! runs over contiguous coordinate columns.  Pairs come out with `i`
//! ascending from chunk to chunk and `j` ascending within a row: already the
//! canonical order, so no sort follows.  Small inputs (a game's few hundred
//! sprites, every frame) run serially on the calling thread.

use crate::dim::{overlap_mask, Row};
use crate::narrow::Narrow;
use crate::pairs::{finish, Buckets, Budget, Sink, TooMany};
use crate::par::{balanced, chunk_count, Exec};

/// Up to this many boxes, one serial pass.
pub const SERIAL: usize = 512;

/// Pairs among `boxes` (2D or 3D, [`crate::dim`]) in canonical order, flat
/// `[i, j, ...]`.
pub fn find<const N: usize>(
    boxes: &[[f64; N]],
    narrow: &Narrow,
    budget: &Budget,
    ex: &Exec,
) -> Result<Vec<isize>, TooMany>
where
    [f64; N]: Row,
{
    let n = boxes.len();
    let cols: [Vec<f64>; N] = std::array::from_fn(|t| boxes.iter().map(|b| b[t]).collect());
    let rows = |lo: usize, hi: usize| -> Sink {
        if narrow.is_trivial() {
            rows::<true, N>(&cols, narrow, budget, lo, hi)
        } else {
            rows::<false, N>(&cols, narrow, budget, lo, hi)
        }
    };
    // Serially the chunks still run one by one (not one pass): a stop is
    // checked between them (`Exec::check_stop`).
    if n <= SERIAL {
        return Ok(finish(vec![rows(0, n)])?.concatenate());
    }
    // row i tests n - i - 1 pairs
    let mut cum = vec![0.0f64; n + 1];
    for i in 0..n {
        cum[i + 1] = cum[i] + (n - i) as f64;
    }
    let nch = chunk_count(n, 256, 64);
    let bounds = balanced(&cum, nch);
    let chunks = ex.map(nch, |c| rows(bounds[c], bounds[c + 1]));
    Ok(finish(chunks)?.concatenate())
}

/// Rows `lo..hi` against every later box; `T`: the narrow phase is trivial.
///
/// The box tests of a row run in blocks of 64 ([`overlap_mask`]), and only
/// the set bits go on to the narrow phase and the output.
fn rows<'a, const T: bool, const N: usize>(
    cols: &[Vec<f64>; N],
    narrow: &Narrow,
    budget: &'a Budget,
    lo: usize,
    hi: usize,
) -> Sink<'a> {
    let mut out = Sink::new(budget, Buckets::one());
    let n = cols[0].len();
    for i in lo..hi {
        let a: [f64; N] = std::array::from_fn(|c| cols[c][i]);
        let mut j0 = i + 1;
        while j0 < n {
            let j1 = (j0 + 64).min(n);
            let view: [&[f64]; N] = std::array::from_fn(|c| &cols[c][j0..j1]);
            let mut mask = overlap_mask(&a, &view);
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
