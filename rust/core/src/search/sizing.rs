//! Where the data is and how fine a search's cells are: the world a
//! search quantizes into ([`placement_bounds`]), the typical box
//! ([`typical_extent`]) and the depths of the quadtree and the grid.
//!
//! These only move the time: every method returns the same pairs whatever
//! the world and the depth (quantization is monotone, which is all
//! exactness needs: see [`crate::world`]).

use super::{GRID_FACTOR, GRID_FACTOR_3D, QUADTREE_BIAS};
use crate::dim::{hi, lo};
use crate::key;
use crate::sweep::SAMPLE;
use crate::world::log2_ratio;

/// Median of a box's greatest side over an evenly strided sample.
pub fn typical_extent<const N: usize>(boxes: &[[f64; N]]) -> f64 {
    let step = (boxes.len() / SAMPLE).max(1);
    let mut s: Vec<f64> = boxes
        .iter()
        .step_by(step)
        .map(|b| (0..N / 2).fold(f64::NEG_INFINITY, |m, k| m.max(hi(b, k) - lo(b, k))))
        .collect();
    if s.is_empty() {
        return f64::NAN;
    }
    let (len, mid) = (s.len(), s.len() / 2);
    let (lo, &mut m, _) = s.select_nth_unstable_by(mid, f64::total_cmp);
    if len % 2 == 1 {
        return m;
    }
    let below = lo.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (below + m) / 2.0
}

/// Where the data is: the world a search quantizes into.
///
/// The bounds of an evenly strided sample, without its `len / 512` most
/// extreme values on each side (none for a sample of under 512 rows), so a
/// few far outliers do not stretch the grid until every other box shares a
/// cell (1e5 boxes in the unit square plus two points at +-1e20 would
/// otherwise all fall in one cell: quadratic).  Boxes outside are clamped into
/// the border cells; quantization stays monotone, which is all exactness
/// needs (see [`crate::world`]).
pub fn placement_bounds<const N: usize>(boxes: &[[f64; N]], bounds: [f64; N]) -> [f64; N] {
    let n = boxes.len();
    let step = (n / SAMPLE).max(1);
    let m = n.div_ceil(step);
    let k = m / 512;
    let mut col = Vec::new();
    let mut pick = |t: usize, from_top: bool| -> f64 {
        let vals = boxes.iter().step_by(step).map(|b| b[t]);
        if k < FEW {
            return few_extreme(vals, k, from_top);
        }
        col.clear();
        col.extend(vals);
        let at = if from_top { m - 1 - k } else { k };
        *col.select_nth_unstable_by(at, f64::total_cmp).1
    };
    // a sample's value is one of the boxes': within the true bounds
    std::array::from_fn(|t| {
        if t < N / 2 {
            pick(t, false).max(bounds[t])
        } else {
            pick(t, true).min(bounds[t])
        }
    })
}

/// Below this many values cut per side, [`few_extreme`] beats a selection.
const FEW: usize = 8;

/// The value `k` places from the low end of `vals` (from the high end with
/// `from_top`) in `f64::total_cmp` order, for `k < FEW`: one pass keeping
/// the `k + 1` most extreme values seen, sorted.
fn few_extreme(vals: impl Iterator<Item = f64>, k: usize, from_top: bool) -> f64 {
    debug_assert!(k < FEW);
    // negated, the high end is the low end: total order reverses exactly
    let sign = if from_top { -1.0 } else { 1.0 };
    let mut best = [0.0f64; FEW];
    let mut len = 0;
    for v in vals.map(|v| v * sign) {
        if len > k && v.total_cmp(&best[k]).is_ge() {
            continue;
        }
        // insert v into best[..len], dropping what falls past index k
        let mut w = len.min(k);
        while w > 0 && v.total_cmp(&best[w - 1]).is_lt() {
            best[w] = best[w - 1];
            w -= 1;
        }
        best[w] = v;
        len = (len + 1).min(k + 1);
    }
    best[k] * sign
}

fn floor_log2(n: usize) -> i64 {
    (usize::BITS - 1 - n.max(1).leading_zeros()) as i64
}

/// Quadtree (octree) depth: finest cells about the typical box size, at
/// most ~256 n cells (`2^(D depth) <= 256 n`).
pub fn quadtree_depth<const N: usize>(boxes: &[[f64; N]], half: f64) -> u32 {
    let d = (N / 2) as i64;
    let most = key::max_depth(N / 2) as i64;
    let cap = most.min(((floor_log2(boxes.len()) + 8) / d).max(1));
    match log2_ratio(half, typical_extent(boxes)) {
        None => cap as u32,
        Some(oct) => cap.min(((oct + 1.0).floor() as i64 + QUADTREE_BIAS).max(1)) as u32,
    }
}

/// Grid depth: cells [`GRID_FACTOR`] times the typical box
/// ([`GRID_FACTOR_3D`] in 3D).
pub fn grid_depth<const N: usize>(boxes: &[[f64; N]], half: f64) -> u32 {
    let factor = if N == 4 { GRID_FACTOR } else { GRID_FACTOR_3D };
    let oct = log2_ratio(half, factor * 0.5 * typical_extent(boxes))
        .unwrap_or((boxes.len() as f64).log2() / (N / 2) as f64);
    (key::max_depth(N / 2) as i64).min((oct.floor() as i64).max(1)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn few_extreme_is_a_selection() {
        let vals = [
            3.0,
            -0.0,
            0.0,
            7.0,
            -2.0,
            7.0,
            f64::INFINITY,
            1.5,
            -2.0,
            5.0,
        ];
        let mut sorted = vals.to_vec();
        sorted.sort_by(f64::total_cmp);
        for k in 0..FEW {
            let lo = few_extreme(vals.iter().copied(), k, false);
            let hi = few_extreme(vals.iter().copied(), k, true);
            assert_eq!(lo.to_bits(), sorted[k].to_bits(), "k = {k}");
            assert_eq!(
                hi.to_bits(),
                sorted[vals.len() - 1 - k].to_bits(),
                "k = {k}"
            );
        }
    }

    #[test]
    fn median_like_numpy() {
        assert_eq!(
            typical_extent(&[[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 3.0, 1.0]]),
            2.0
        );
        assert_eq!(
            typical_extent(&[
                [0.0, 0.0, 1.0, 1.0],
                [0.0, 0.0, 3.0, 1.0],
                [0.0, 0.0, 0.0, 7.0]
            ]),
            3.0
        );
    }
}
