//! One quadratic constraint `|p + s v|^2 < r^2` in one parameter `s`:
//! a point moving from `p` with velocity `v` strictly inside the circle
//! (2D) or sphere (3D) of radius `r` about the origin (a ray in a ball: `p`
//! its origin less the centre; two moving balls: their relative position
//! and motion, `r` the sum of the radii).  [`Quad`] is written once over
//! the number of axes (`p` and `v` of 2 or 3 terms each).
//!
//! # The set and its infimum
//! `f(s) = A s^2 + 2 B s + C` with `A = v.v`, `B = p.v`, `C = p.p - r^2`.
//! * `C < 0`: inside at `s = 0`, the infimum is 0 (for any `S >= 0`).
//! * Else, for `S = 0` nothing; for `A = 0` (`v = 0`) `f` is the constant
//!   `C >= 0`: nothing.
//! * Else `f < 0` exactly on the open interval between the roots
//!   `s- < s+` when the discriminant `D = B^2 - A C > 0`, nowhere else.
//!   With `C >= 0` both roots have the sign of `-B` (their product `C/A`
//!   is `>= 0`, their sum `-2B/A`), so the interval meets `s > 0` only
//!   when `B < 0`; then `s- >= 0` (0 when `C = 0`) is the infimum, and the
//!   set meets `[0, S]` when `s- < S`: when `f(S) < 0` (`S` inside the
//!   interval) or `S` lies past the vertex, `A S + B >= 0` (then `S >= s+`
//!   unless `f(S) < 0`).
//!
//! # Comparing two entries of one ray
//! For one `v` (one `A`), `s-_i < s-_j` exactly when
//! `g = (sqrt(D_i) - sqrt(D_j)) - X > 0` with `X = B_j - B_i`.  The sign of
//! `sqrt(D_i) - sqrt(D_j)` is that of `D_i - D_j`; when it and `X` differ in
//! sign (or one is zero) `g`'s sign follows.  Otherwise squaring compares
//! `(sqrt(D_i) - sqrt(D_j))^2 = D_i + D_j - 2 sqrt(D_i D_j)` with `X^2`: with
//! `W = D_i + D_j - X^2`, that difference has the sign of `W - 2 sqrt(D_i D_j)`,
//! which is -1 for `W <= 0` and else the sign of `W^2 - 4 D_i D_j`; `g` has
//! that sign when both are positive, the opposite when both are negative.
//!
//! # Roundings, over `k` axes
//! Counted on a path from an input to the result as [`super`] counts them:
//! `p` (a difference of two doubles) 1, `v` (a motion, up to four terms) 3,
//! `r` (a sum of two radii) 1.  A dot product over the `k` axes adds one
//! product and `k - 1` additions (the terms added in axis order: the first
//! term's path has them all), so `A = v.v` and `B = p.v` take `k + 3`,
//! `C = p.p - r^2` `k + 2`, `D = B^2 - A C` `k + 5`, `f(S)` `k + 7`,
//! `A S + B` `k + 5`; in [`cmp_entries`] `D_i - D_j` `k + 6` and
//! `W^2 - 4 D_i D_j` (`W` at `k + 7`, its square `k + 8`) `k + 9`.  The
//! most is 11 in 2D and 12 in 3D: within the filter's 12 ([`super`]).
//!
//! # The entry as a double
//! `s- = C / (-B + sqrt(D))` (no cancellation: `-B > 0`), from `B`, `C`,
//! `D` each rounded with a relative error below `2^-39` (the float
//! estimate when it has no cancellation worth `2^10`, else the exact value
//! rounded): the result is within a relative `2^-36` of `s-`, plus
//! `2^-1075` for an entry below the smallest normal double (its last
//! rounding is then absolute); an estimate past the largest double is that
//! double unless the entry itself is past it ([`entry_f64`]).

// The polynomials are written once for a `Copy` number type (`Est`) and
// one that is not (`Dyadic`): hence the clones.
#![allow(clippy::clone_on_copy)]

use super::{Dyadic, Est, Num, Sum};
use std::cmp::Ordering;

/// `|p + s v|^2 < r^2` in `D` dimensions (2 by default: the circles of
/// the 2D casts; 3 for spheres).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quad<const D: usize = 2> {
    /// The position at `s = 0`, relative to the centre.
    pub p: [Sum; D],
    /// The velocity.
    pub v: [Sum; D],
    /// The radius.
    pub r: Sum,
}

/// The infimum of a non-empty set: 0, or the smaller root `s-` (above 0)
/// of this constraint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Entry<const D: usize = 2> {
    /// The set starts at 0.
    Zero,
    /// The set starts at the smaller root, above 0.
    Root(Quad<D>),
}

/// `x.x`, the terms added in axis order.
fn square<N: Num, const D: usize>(x: &[Sum; D]) -> N {
    let t = x[0].to::<N>();
    let mut acc = t.clone() * t;
    for s in &x[1..] {
        let t = s.to::<N>();
        acc = acc + t.clone() * t;
    }
    acc
}

/// `x.y`, the terms added in axis order.
fn dot<N: Num, const D: usize>(x: &[Sum; D], y: &[Sum; D]) -> N {
    let mut acc = x[0].to::<N>() * y[0].to::<N>();
    for k in 1..D {
        acc = acc + x[k].to::<N>() * y[k].to::<N>();
    }
    acc
}

impl<const D: usize> Quad<D> {
    /// `A = v.v`.
    pub(super) fn a<N: Num>(&self) -> N {
        square(&self.v)
    }

    /// `B = p.v`.
    pub(super) fn b<N: Num>(&self) -> N {
        dot(&self.p, &self.v)
    }

    /// `C = p.p - r^2`.
    pub(super) fn c<N: Num>(&self) -> N {
        let r = self.r.to::<N>();
        square::<N, D>(&self.p) - r.clone() * r
    }

    /// `D = B^2 - A C`.
    pub(super) fn d<N: Num>(&self) -> N {
        let b = self.b::<N>();
        b.clone() * b - self.a::<N>() * self.c::<N>()
    }

    /// `f(s) = A s^2 + 2 B s + C`.
    pub(super) fn at<N: Num>(&self, s: f64) -> N {
        let s = N::of(s);
        (self.a::<N>() * s.clone() + N::of(2.0) * self.b::<N>()) * s + self.c::<N>()
    }

    /// Whether `v = 0` (exactly).
    pub(super) fn still(&self) -> bool {
        self.v.iter().all(|v| v.sign() == 0)
    }
}

/// The infimum of `{s in [0, s_max] : |p + s v| < r}`, `None` for the
/// empty set; `s_max >= 0`, possibly infinite.
pub fn solve<const D: usize>(q: &Quad<D>, s_max: f64) -> Option<Entry<D>> {
    let sc = exact_sign!(N => q.c::<N>());
    if sc < 0 {
        return Some(Entry::Zero);
    }
    if s_max == 0.0 || q.still() {
        return None;
    }
    if exact_sign!(N => q.b::<N>()) >= 0 || exact_sign!(N => q.d::<N>()) <= 0 {
        return None;
    }
    if s_max < f64::INFINITY
        && exact_sign!(N => q.at::<N>(s_max)) >= 0
        && exact_sign!(N => q.a::<N>() * N::of(s_max) + q.b::<N>()) < 0
    {
        return None; // s- >= S
    }
    Some(if sc == 0 {
        Entry::Zero
    } else {
        Entry::Root(*q)
    })
}

/// The order of two entries of constraints with one velocity `v` (the
/// circles one ray meets), exactly.
pub fn cmp_entries<const D: usize>(x: &Entry<D>, y: &Entry<D>) -> Ordering {
    let (qi, qj) = match (x, y) {
        (Entry::Zero, Entry::Zero) => return Ordering::Equal,
        (Entry::Zero, Entry::Root(_)) => return Ordering::Less,
        (Entry::Root(_), Entry::Zero) => return Ordering::Greater,
        (Entry::Root(i), Entry::Root(j)) => (i, j),
    };
    debug_assert_eq!(qi.v, qj.v);
    let sd = exact_sign!(N => qi.d::<N>() - qj.d::<N>());
    let sx = exact_sign!(N => qj.b::<N>() - qi.b::<N>());
    let g = if sd == 0 || sx == 0 || sd != sx {
        if sd == 0 {
            -sx
        } else {
            sd
        }
    } else {
        // (sqrt(Di) - sqrt(Dj))^2 against X^2
        let w = exact_sign!(N => {
            let x = qj.b::<N>() - qi.b::<N>();
            qi.d::<N>() + qj.d::<N>() - x.clone() * x
        });
        let sq = if w <= 0 {
            -1
        } else {
            exact_sign!(N => {
                let x = qj.b::<N>() - qi.b::<N>();
                let w = qi.d::<N>() + qj.d::<N>() - x.clone() * x;
                w.clone() * w - N::of(4.0) * qi.d::<N>() * qj.d::<N>()
            })
        };
        if sd > 0 {
            sq
        } else {
            -sq
        }
    };
    // s-_i < s-_j when g > 0
    0.cmp(&g)
}

/// Whether a float estimate is its value within a relative `2^-39`: no
/// cancellation worth more than `2^10` (the error is at most `13 u m`),
/// magnitudes well inside the doubles.
fn accurate(e: Est) -> bool {
    e.ok && e.v.abs() * 1024.0 >= e.m && (1e-280..1e280).contains(&e.m)
}

/// The infimum as a double, within a relative `2^-36` (see the module docs).
///
/// Scaling `p`, `v` and `r` by one factor leaves the roots alone and scales
/// `B` and `C` by its square, `D` by its fourth power.  So when the
/// estimates are not accurate, `B`, `C`, `D` are computed exactly; the
/// denominator `sqrt(D) - B` is worked out from `B 2^k` and `D 2^2k`, the
/// numerator from `C 2^j`, each scaled (exactly) to magnitudes near 1 on
/// its own (the two may lie a thousand binades apart, for an entry far
/// along a ray), and their quotient scaled back by `2^(k - j)`, exactly.
///
/// An estimate past the largest double is that double when the entry itself
/// is not past it (the estimate may exceed the entry by its error): an
/// entry's `t` is infinite only when the entry is.
pub fn entry_f64<const D: usize>(e: &Entry<D>) -> f64 {
    let Entry::Root(q) = e else { return 0.0 };
    let t = estimate(q);
    if t.is_finite() || beyond_doubles(q) {
        t
    } else {
        f64::MAX
    }
}

/// [`entry_f64`]'s estimate, which may overflow.
fn estimate<const D: usize>(q: &Quad<D>) -> f64 {
    let (b, c, d) = (q.b::<Est>(), q.c::<Est>(), q.d::<Est>());
    if accurate(b) && accurate(c) && accurate(d) {
        return c.v / (d.v.sqrt() - b.v);
    }
    let (b, c, d) = (q.b::<Dyadic>(), q.c::<Dyadic>(), q.d::<Dyadic>());
    let k = -(b.log2().max((d.log2() + 1) / 2));
    let j = -c.log2();
    let den = d.times_pow2(2 * k).to_f64().sqrt() - b.times_pow2(k).to_f64();
    let quotient = c.times_pow2(j).to_f64() / den;
    Dyadic::of(quotient).times_pow2(k - j).to_f64()
}

/// Whether the entry `s-` of a set that is not empty lies past the largest
/// double `M`, exactly: `M` is then outside the set (`f(M) > 0`) and before
/// the vertex (`A M + B < 0`), as in [`solve`].
fn beyond_doubles<const D: usize>(q: &Quad<D>) -> bool {
    exact_sign!(N => q.at::<N>(f64::MAX)) > 0
        && exact_sign!(N => q.a::<N>() * N::of(f64::MAX) + q.b::<N>()) < 0
}

/// An upper bound of the entry: [`entry_f64`] raised past its error.
pub fn entry_upper<const D: usize>(e: &Entry<D>) -> f64 {
    let t = entry_f64(e);
    t + t * 2f64.powi(-30) + f64::MIN_POSITIVE
}

#[cfg(test)]
mod tests;
