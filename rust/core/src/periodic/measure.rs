//! Distances and vectors of the pairs of a search of balls or points: from
//! the centre of `i` to that of `j`, by the nearest copy on each periodic
//! axis (the minimum image), as float64 values.
//!
//! In a triclinic cell: `super::lattice_measure`.
//!
//! On a periodic axis both centres are first moved into `[0, L)`
//! ([`super::place`], then one rounding), so their difference lies within
//! `(-L, L)` and one shift by the nearest multiple of `L` brings it to
//! `[-L/2, L/2]`: the copy that made the pair (the pair's one overlapping
//! copy is the nearest, `super`'s derivation).  Each value is within a
//! few units in the last place of `L` of the true one (of the coordinates,
//! on an open axis).  Chunks are fixed by the pair count: the values do not
//! depend on the thread count.

use super::{lattice_measure, place, Domain};
use crate::hints::prefetch_row;
use crate::par::Exec;
use crate::scratch::{self, Pooled};

/// Pairs per chunk.
pub(super) const GRAIN: usize = 1 << 14;

/// The position of `x` on an axis of period `l`, in `[0, l]`.
#[inline(always)]
fn wrapped(x: f64, l: f64) -> f64 {
    let (r0, turns) = place(x, l);
    r0 + f64::from(turns) * l
}

/// Whether every centre of `balls` already lies in `[0, L)` on every
/// periodic axis: wrapping then changes nothing, and the pairs read the
/// balls' own rows (the common case of coordinates kept in the box).
fn inside<const C: usize>(balls: &[[f64; C]], period: &[f64], ex: &Exec) -> bool {
    let chunk = GRAIN;
    let parts = balls.len().div_ceil(chunk);
    ex.for_work(balls.len(), 2 * GRAIN)
        .map(parts, |c| {
            balls[c * chunk..((c + 1) * chunk).min(balls.len())]
                .iter()
                .all(|b| {
                    (0..C - 1).all(|a| !period[a].is_finite() || (0.0..period[a]).contains(&b[a]))
                })
        })
        .into_iter()
        .all(|x| x)
}

/// The centres of `balls`, each moved into `[0, L]` on the periodic axes
/// (one pass over the objects, so that a pair reads two short rows).
fn wrapped_centres<const C: usize>(balls: &[[f64; C]], period: &[f64], ex: &Exec) -> Vec<[f64; 3]> {
    let mut out = scratch::take(balls.len());
    ex.for_work(balls.len(), 2 * GRAIN)
        .collect_into(&mut out, balls.len(), GRAIN, |k| {
            let mut c = [0.0; 3];
            for (a, x) in c.iter_mut().enumerate().take(C - 1) {
                let l = period[a];
                *x = if l.is_finite() {
                    wrapped(balls[k][a], l)
                } else {
                    balls[k][a]
                };
            }
            c
        });
    out
}

/// The vector from wrapped centre `a` to wrapped centre `b`, minimum image:
/// their difference lies in `(-L, L)`, one period off where it passes
/// `L / 2`.
#[inline(always)]
fn between(a: &[f64; 3], b: &[f64; 3], half: &[f64; 3], period: &[f64; 3]) -> [f64; 3] {
    // selections, not branches: a pair across the boundary comes as the
    // data has it
    std::array::from_fn(|k| {
        let d = b[k] - a[k];
        let down = if d > half[k] { period[k] } else { 0.0 };
        let up = if d < -half[k] { period[k] } else { 0.0 };
        (d - down) + up
    })
}

/// Pairs ahead whose second centre is asked for.
pub(super) const AHEAD: usize = 48;

/// `f(p, vector of pair p)` for every pair of `flat`, collected: over the
/// balls' own rows when they lie inside the cell ([`inside`]), else over
/// wrapped copies of their centres (given back after).
fn each_pair<const C: usize, T: Send + Pooled>(
    balls: &[[f64; C]],
    domain: Domain,
    flat: &[isize],
    ex: &Exec,
    f: impl Fn([f64; 3]) -> T + Sync + Send,
) -> Vec<T> {
    let period = match domain {
        Domain::Axes(period) => period,
        Domain::Lattice(lat) => return lattice_measure::each_pair(balls, lat, flat, ex, f),
    };
    if inside(balls, period, ex) {
        return in_dims(balls, C - 1, period, flat, ex, f);
    }
    let centres = wrapped_centres(balls, period, ex);
    let out = in_dims(&centres, C - 1, period, flat, ex, f);
    scratch::give(centres);
    out
}

/// [`over_rows`] of rows whose first `dims` values (2 or 3) are the
/// centres: the dimension made a constant of the pass.
fn in_dims<const W: usize, T: Send + Pooled>(
    rows: &[[f64; W]],
    dims: usize,
    period: &[f64],
    flat: &[isize],
    ex: &Exec,
    f: impl Fn([f64; 3]) -> T + Sync + Send,
) -> Vec<T> {
    match dims {
        2 => over_rows::<W, 2, T>(rows, period, flat, ex, f),
        _ => over_rows::<W, 3, T>(rows, period, flat, ex, f),
    }
}

/// [`each_pair`] over rows whose first `D` values are the centres, each in
/// `[0, L]` on the periodic axes.
fn over_rows<const W: usize, const D: usize, T: Send + Pooled>(
    rows: &[[f64; W]],
    period: &[f64],
    flat: &[isize],
    ex: &Exec,
    f: impl Fn([f64; 3]) -> T + Sync + Send,
) -> Vec<T> {
    // open axes: an infinite half period never shifts
    let per: [f64; 3] = std::array::from_fn(|k| period.get(k).copied().unwrap_or(f64::INFINITY));
    let half = per.map(|l| 0.5 * l);
    // in 2D the third coordinate is 0 (and its axis open): no part
    let centre =
        |k: usize| -> [f64; 3] { std::array::from_fn(|a| if a < D { rows[k][a] } else { 0.0 }) };
    let k = flat.len() / 2;
    // a result that leaves the core: pages an earlier one gave back
    let mut out = scratch::result(k);
    ex.for_work(k, 2 * GRAIN)
        .collect_into(&mut out, k, GRAIN, |p| {
            // the pairs come sorted by `i`: `j` jumps about, asked for ahead
            // (both lines of a row that straddles two)
            if let Some(&ahead) = flat.get(2 * (p + AHEAD) + 1) {
                prefetch_row(&rows[ahead as usize]);
            }
            let (i, j) = (flat[2 * p] as usize, flat[2 * p + 1] as usize);
            f(between(&centre(i), &centre(j), &half, &per))
        });
    out
}

/// The vectors `centre(j) - centre(i)` (minimum image) of the pairs `flat`
/// (`[i0, j0, i1, j1, ...]`) of balls `balls` (rows of `C = D + 1`), as
/// `D` values a pair, flat.
pub fn vectors<const C: usize>(
    balls: &[[f64; C]],
    domain: Domain,
    flat: &[isize],
    ex: &Exec,
) -> Vec<f64> {
    // rows of D values written straight in (the result's pages pooled)
    match C {
        3 => each_pair(balls, domain, flat, ex, |v| [v[0], v[1]]).into_flattened(),
        _ => each_pair(balls, domain, flat, ex, |v| v).into_flattened(),
    }
}

/// The distances `|centre(j) - centre(i)|` (minimum image) of the pairs
/// `flat` of balls `balls`.
pub fn distances<const C: usize>(
    balls: &[[f64; C]],
    domain: Domain,
    flat: &[isize],
    ex: &Exec,
) -> Vec<f64> {
    each_pair(balls, domain, flat, ex, |v| {
        (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
    })
}
