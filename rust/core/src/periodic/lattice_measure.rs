//! Distances and vectors of the pairs of a search of balls in a triclinic
//! cell ([`Lattice`]): from the centre of `i` to that of `j`, by the pair's
//! one meeting copy (the nearest), as float64 values.
//!
//! The difference of the two centres is brought into the brick, last axis
//! first (`super::lattice`), with a bound on its rounding.  A
//! pair's meeting copy is within half the brick's side of the other ball
//! on every axis, and any other copy differs from it by a lattice vector
//! at least a side long on its last axis: so a reduced difference that is,
//! bound included, within half the side on every axis is that copy, and
//! its floats are returned.  Otherwise (rounding left it on the edge) the
//! reduced shift and its `3^D - 1` neighbours are compared exactly
//! (`crate::bigint`) and the nearest copy's vector returned, each value
//! rounded once.  Chunks are fixed by the pair count.

use super::approx::near_int;
use super::measure::{AHEAD, GRAIN};
use super::Lattice;
use crate::bigint::Dyadic;
use crate::hints::prefetch_row;
use crate::par::Exec;
use crate::scratch::{self, Pooled};

/// `f(vector of pair p)` for every pair of `flat` (`[i0, j0, i1, j1, ...]`)
/// of balls `balls` (rows of `C = D + 1`) in the cell `lat`, collected.
pub(super) fn each_pair<const C: usize, T: Send + Pooled>(
    balls: &[[f64; C]],
    lat: &Lattice,
    flat: &[isize],
    ex: &Exec,
    f: impl Fn([f64; 3]) -> T + Sync + Send,
) -> Vec<T> {
    let d = C - 1;
    let inv: [f64; 3] = std::array::from_fn(|k| if k < d { 1.0 / lat.side(k) } else { 0.0 });
    let k = flat.len() / 2;
    let mut out = scratch::result(k);
    ex.for_work(k, 2 * GRAIN)
        .collect_into(&mut out, k, GRAIN, |p| {
            if let Some(&ahead) = flat.get(2 * (p + AHEAD) + 1) {
                prefetch_row(&balls[ahead as usize]);
            }
            let (i, j) = (flat[2 * p] as usize, flat[2 * p + 1] as usize);
            let (a, b) = (&balls[i][..d], &balls[j][..d]);
            f(if d == 2 {
                nearest::<2>(a, b, lat, &inv)
            } else {
                nearest::<3>(a, b, lat, &inv)
            })
        });
    out
}

/// The vector from centre `a` to the nearest copy of centre `b` ([module
/// doc](self)), both of `D` coordinates; `inv` the inverses of the cell's
/// sides.
#[inline(always)]
fn nearest<const D: usize>(a: &[f64], b: &[f64], lat: &Lattice, inv: &[f64; 3]) -> [f64; 3] {
    let mut v = [0.0; 3];
    // the magnitudes summed on each axis: each of the at most 7 roundings
    // there (a difference, then a product and a difference per row) is
    // below 2^-53 of their sum
    let mut size = [0.0; 3];
    for k in 0..D {
        v[k] = b[k] - a[k];
        size[k] = b[k].abs() + a[k].abs();
    }
    let mut n = [0.0; 3];
    for m in (0..D).rev() {
        n[m] = near_int(v[m] * inv[m]);
        // most pairs cross no face: the branch is then well predicted
        if n[m] != 0.0 {
            for k in 0..=m {
                let p = n[m] * lat.at(m, k);
                v[k] -= p;
                size[k] += p.abs();
            }
        }
    }
    let mut inside = true;
    for k in 0..D {
        let bound = size[k] * f64::from_bits((1023 - 50) << 52) + f64::MIN_POSITIVE;
        inside &= v[k].abs() + bound < 0.5 * lat.side(k);
    }
    if inside {
        return v;
    }
    nearest_exactly(a, b, lat, &n)
}

/// The vector from `a` to the nearest of the copies of `b` by the shifts
/// `-n` and its neighbours, compared exactly.
#[cold]
fn nearest_exactly(a: &[f64], b: &[f64], lat: &Lattice, n: &[f64; 3]) -> [f64; 3] {
    let d = lat.dims();
    let mut best: Option<(Dyadic, [Dyadic; 3])> = None;
    for code in 0..3usize.pow(d as u32) {
        let mut c = code;
        let mut shift = *n;
        for s in shift.iter_mut().take(d) {
            *s += (c % 3) as f64 - 1.0;
            c /= 3;
        }
        let v: [Dyadic; 3] = std::array::from_fn(|k| {
            if k >= d {
                return Dyadic::zero();
            }
            (k..d).fold(Dyadic::of(b[k]) - Dyadic::of(a[k]), |s, m| {
                s - Dyadic::of(shift[m]) * Dyadic::of(lat.at(m, k))
            })
        });
        let len = v
            .iter()
            .fold(Dyadic::zero(), |s, x| s + x.clone() * x.clone());
        if best
            .as_ref()
            .is_none_or(|(l, _)| (len.clone() - l.clone()).sign() < 0)
        {
            best = Some((len, v));
        }
    }
    let (_, v) = best.expect("one copy at least");
    std::array::from_fn(|k| v[k].to_f64())
}
