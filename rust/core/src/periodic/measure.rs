//! Distances and vectors of the pairs of a search of balls or points: from
//! the centre of `i` to that of `j`, by the nearest copy on each periodic
//! axis (the minimum image), as float64 values.
//!
//! On a periodic axis both centres are first moved into `[0, L)`
//! ([`super::place`], then one rounding), so their difference lies within
//! `(-L, L)` and one shift by the nearest multiple of `L` brings it to
//! `[-L/2, L/2]`: the copy that made the pair (the pair's one overlapping
//! copy is the nearest, `super`'s derivation).  Each value is within a
//! few units in the last place of `L` of the true one (of the coordinates,
//! on an open axis).  Chunks are fixed by the pair count: the values do not
//! depend on the thread count.

use super::place;
use crate::hints::prefetch;
use crate::par::Exec;

/// Pairs per chunk.
const GRAIN: usize = 1 << 14;

/// The position of `x` on an axis of period `l`, in `[0, l]`.
#[inline(always)]
fn wrapped(x: f64, l: f64) -> f64 {
    let (r0, turns) = place(x, l);
    r0 + f64::from(turns) * l
}

/// The vector from centre `a` to centre `b`, minimum image: the wrapped
/// difference lies in `(-L, L)`, one period off where it passes `L / 2`.
#[inline(always)]
fn between<const C: usize>(a: &[f64; C], b: &[f64; C], period: &[f64]) -> [f64; 3] {
    let mut v = [0.0; 3];
    for k in 0..C - 1 {
        let l = period[k];
        v[k] = if l.is_finite() {
            let d = wrapped(b[k], l) - wrapped(a[k], l);
            if d > 0.5 * l {
                d - l
            } else if d < -0.5 * l {
                d + l
            } else {
                d
            }
        } else {
            b[k] - a[k]
        };
    }
    v
}

/// The vector of pair `p` of `flat`, the centre of a pair a little ahead
/// asked for first (the pairs come sorted by `i`: `j` jumps about).
#[inline(always)]
fn of_pair<const C: usize>(
    balls: &[[f64; C]],
    period: &[f64],
    flat: &[isize],
    p: usize,
) -> [f64; 3] {
    if let Some(&ahead) = flat.get(2 * (p + AHEAD) + 1) {
        prefetch(&balls[ahead as usize]);
    }
    let (i, j) = (flat[2 * p] as usize, flat[2 * p + 1] as usize);
    between(&balls[i], &balls[j], period)
}

/// Pairs ahead whose second centre is asked for.
const AHEAD: usize = 48;

/// The vectors `centre(j) - centre(i)` (minimum image) of the pairs `flat`
/// (`[i0, j0, i1, j1, ...]`) of balls `balls` (rows of `C = D + 1`), as
/// `D` values a pair, flat.
pub fn vectors<const C: usize>(
    balls: &[[f64; C]],
    period: &[f64],
    flat: &[isize],
    ex: &Exec,
) -> Vec<f64> {
    let k = flat.len() / 2;
    let mut out: Vec<[f64; 3]> = Vec::new();
    ex.for_work(k, 2 * GRAIN)
        .collect_into(&mut out, k, GRAIN, |p| of_pair(balls, period, flat, p));
    if C == 4 {
        return out.into_flattened();
    }
    out.iter()
        .flat_map(|v| v[..C - 1].iter().copied())
        .collect()
}

/// The distances `|centre(j) - centre(i)|` (minimum image) of the pairs
/// `flat` of balls `balls`.
pub fn distances<const C: usize>(
    balls: &[[f64; C]],
    period: &[f64],
    flat: &[isize],
    ex: &Exec,
) -> Vec<f64> {
    let k = flat.len() / 2;
    let mut out = Vec::new();
    ex.for_work(k, 2 * GRAIN)
        .collect_into(&mut out, k, GRAIN, |p| {
            let v = of_pair(balls, period, flat, p);
            v[..C - 1].iter().map(|x| x * x).sum::<f64>().sqrt()
        });
    out
}
