//! Linear constraints `a + b s > 0` in one parameter `s`, `a` and `b` exact
//! sums of doubles ([`Sum`]).
//!
//! # The set and its infimum
//! A constraint with `b > 0` holds for `s > -a/b` (a lower root), with
//! `b < 0` for `s < -a/b` (an upper root), with `b = 0` everywhere or
//! nowhere (`a > 0` or not).  The common set of the constraints within the
//! closed range `[0, S]` is `{s : L < s < U, 0 <= s <= S}`, `L` the
//! greatest lower root (`-inf` if none), `U` the least upper root (`+inf`
//! if none).  For `S > 0` it is non-empty exactly when
//! `max(L, 0) < min(U, S)`: the interval then has positive length, and
//! when the two are equal no `s` satisfies both a strict and a closed
//! bound there (`L = S`: `s > S`; `U = 0`: `s < 0`).  Spelled out:
//! `U > 0` (the sign of `a` for `b < 0`), `L < S` and `L < U`.  For `S = 0`
//! the set is `{0}` when every constraint holds at 0 (every `a > 0`), else
//! empty.  The infimum is `L` when `L > 0` (the sign of `-a` for `b > 0`),
//! else 0 ([`Entry`]).
//!
//! # Comparisons, exactly
//! * `sign(r_q - r_p) = sign(a_p b_q - a_q b_p) sign(b_p) sign(b_q)` for the
//!   roots `r = -a/b` of two constraints ([`cmp_roots`]);
//! * `sign(S - r) = sign(a + b S) sign(b)` ([`cmp_root_value`]).
//!
//! Both polynomials have at most 6 roundings on a path (`a` of two terms 1,
//! `b` of four 3, a product 1, the difference 1), within the filter's 12
//! (see [`super`]).
//!
//! # Floats first
//! [`solve`] asks [`quick`] first: the roots in floating point, each within
//! a proven interval, decide most sets (empty, or not empty with a unique
//! entry) with no exact comparison; what is too close to call goes to
//! [`solve_exact`].  [`solve_with`] lets a shape read `fl(a)` and `fl(b)`
//! straight from its inputs and build the exact sums only when needed.
//!
//! # The root as a double
//! [`root_f64`] rounds `-a/b` to nearest (ties to even).  When both sums
//! are exact in floating point (checked with TwoSum) one IEEE division does
//! it.  Otherwise the float quotient `q` is checked against the midpoints
//! `m` between `q` and its neighbours: `sign(r - m) = -sign(a + b m) sign(b)`
//! with `m = q + h`, `h` half the gap to the neighbour (exact), a
//! polynomial the filter decides; `r` strictly between the two midpoints
//! means `q` is the nearest double.  Else (a tie, `q` off by more, or
//! magnitudes near the ends of the doubles) the exact quotient is rounded
//! ([`ratio_to_f64`]).

use super::{ratio_to_f64, Dyadic, Num, Sum};
use std::cmp::Ordering;

/// The constraint `a + b s > 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lin {
    /// The constant term.
    pub a: Sum,
    /// The coefficient of `s`.
    pub b: Sum,
}

/// The infimum of a non-empty set: 0, or the root `-a/b` of a constraint
/// with `b > 0` and `a < 0` (a root above 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Entry {
    /// The set starts at 0.
    Zero,
    /// The set starts at this constraint's root, above 0.
    Root(Lin),
}

/// Where the root of `p` (whose `b` has the sign `sp`) lies relative to the
/// root of `q` (sign `sq`); signs non-zero.
pub fn cmp_roots(p: &Lin, sp: i32, q: &Lin, sq: i32) -> Ordering {
    let s = exact_sign!(N => p.a.to::<N>() * q.b.to::<N>() - q.a.to::<N>() * p.b.to::<N>());
    // sign(r_q - r_p); r_p < r_q when it is positive
    0.cmp(&(s * sp * sq))
}

/// Where the root of `p` (whose `b` has the sign `sp`, non-zero) lies
/// relative to the double `v`.
pub fn cmp_root_value(p: &Lin, sp: i32, v: f64) -> Ordering {
    let s = exact_sign!(N => p.a.to::<N>() + p.b.to::<N>() * N::of(v));
    0.cmp(&(s * sp))
}

/// The infimum of `{s in [0, s_max] : every constraint holds}`, `None` for
/// the empty set; `s_max >= 0`, possibly infinite.  [`quick`] first, the
/// exact comparisons ([`solve_exact`]) for what it leaves: for built
/// constraints (a box against a circle, `super::rounded`; the shapes that
/// read theirs straight from the inputs use [`solve_with`]).
#[inline]
pub fn solve(cons: &[Lin], s_max: f64) -> Option<Entry> {
    let first = quick(cons.len(), |k| short(&cons[k]), s_max);
    decided(first, |k| cons[k]).unwrap_or_else(|| solve_exact(cons, s_max))
}

/// The set a pre-test decided ([`quick`], or a shape's own): `None` when
/// it was [`Quick::Unsure`], for the exact path; `lin(k)` the constraint
/// it names.
#[inline(always)]
pub fn decided(first: Quick, lin: impl Fn(usize) -> Lin) -> Option<Option<Entry>> {
    match first {
        Quick::Empty => Some(None),
        Quick::Zero => Some(Some(Entry::Zero)),
        Quick::Root(k) => Some(Some(Entry::Root(lin(k)))),
        Quick::Unsure => None,
    }
}

/// [`solve`] of the constraints `lin(0), ..., lin(N - 1)`, read in floating
/// point by `read(k)`, which must give [`short`]`(&lin(k))` or `None`: a
/// caller that can tell `fl(a)` and `fl(b)` from its inputs directly builds
/// no [`Sum`] for the candidates [`quick`] decides (only the entry's).
#[inline(always)]
pub fn solve_with<const N: usize>(
    read: impl Fn(usize) -> Option<(f64, f64)>,
    lin: impl Fn(usize) -> Lin,
    s_max: f64,
) -> Option<Entry> {
    decided(quick(N, read, s_max), &lin).unwrap_or_else(|| solve_built::<N>(&lin, s_max))
}

/// [`solve_exact`] of `lin(0), ..., lin(N - 1)`: rare, kept out of line so
/// that the callers' common path stays small.
#[cold]
#[inline(never)]
fn solve_built<const N: usize>(lin: &impl Fn(usize) -> Lin, s_max: f64) -> Option<Entry> {
    solve_exact(&std::array::from_fn::<Lin, N, _>(lin), s_max)
}

/// [`solve`] by exact comparisons only (the reference of [`quick`]).
pub fn solve_exact(cons: &[Lin], s_max: f64) -> Option<Entry> {
    let mut lower: Option<Lin> = None;
    let mut upper: Option<Lin> = None;
    for c in cons {
        match c.b.sign() {
            0 => {
                if c.a.sign() <= 0 {
                    return None;
                }
            }
            1 => {
                lower = Some(match lower {
                    Some(l) if cmp_roots(&l, 1, c, 1) != Ordering::Less => l,
                    _ => *c,
                })
            }
            _ => {
                upper = Some(match upper {
                    Some(u) if cmp_roots(&u, -1, c, -1) != Ordering::Greater => u,
                    _ => *c,
                })
            }
        }
    }
    if s_max == 0.0 {
        return cons.iter().all(|c| c.a.sign() > 0).then_some(Entry::Zero);
    }
    if let Some(u) = &upper {
        if u.a.sign() <= 0 {
            return None; // U <= 0
        }
    }
    if let Some(l) = &lower {
        if s_max < f64::INFINITY && cmp_root_value(l, 1, s_max) != Ordering::Less {
            return None; // L >= S
        }
        if let Some(u) = &upper {
            if cmp_roots(l, 1, u, -1) != Ordering::Less {
                return None; // L >= U
            }
        }
        if l.a.sign() < 0 {
            return Some(Entry::Root(*l));
        }
    }
    Some(Entry::Zero)
}

/// What the float pre-test [`quick`] tells of a set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Quick {
    /// Empty, for certain.
    Empty,
    /// Not empty, starting at 0, for certain.
    Zero,
    /// Not empty, starting at the root of this constraint (above 0), for
    /// certain: the entry [`solve_exact`] gives.
    Root(usize),
    /// Too close to call in floating point.
    Unsure,
}

/// The set of [`solve`] from its roots in floating point, when they are far
/// enough apart: most candidates of a cast or a sweep are told here, with
/// no exact comparison.
///
/// Constraint `k` is read as `read(k)`: [`short`] of it, `fl(a)` and
/// `fl(b)` when `a` and `b` have at most two terms (else `None`): then
/// `fl(a)` and `fl(b)` are correctly rounded and carry the exact signs (see
/// [`super`]), so `b = 0`, the root's side of 0 (the sign of `a`) and an
/// upper root at or below 0 (`b < 0`, `a <= 0`: empty) are exact.  The
/// computed root `q = fl(-fl(a) / fl(b))` has three roundings and a possible
/// underflow: `|q - r| <= 3.001 u |r| + 2^-1075`, so the true root lies in
/// `[q - e, q + e]` with `e = 2^-50 |q| + 2^-1070` (`2^-50 = 8u` also covers
/// the roundings of `q - e` and `q + e`).  With those intervals:
/// * empty when a lower root lies surely at or above `S` or an upper root
///   (the conditions of [`solve_exact`]); constraints not read are left out,
///   which only makes the set larger;
/// * not empty when every constraint is read and the greatest upper bound
///   of `max(L, 0)` lies below the least lower bound of `min(U, S)`; the
///   infimum is then 0 when no lower root lies above 0 (every `b > 0` has
///   `a >= 0`), else the lower root above 0 whose interval lies above every
///   other one's (a unique greatest root, the one [`solve_exact`] picks).
///
/// `S = 0` is asked exactly (every `a > 0`), left to [`solve_exact`] when a
/// sum has more terms.  A value that is not finite decides nothing.
#[inline]
pub fn quick(n: usize, read: impl Fn(usize) -> Option<(f64, f64)>, s_max: f64) -> Quick {
    // the emptiness bounds: max(0, lower roots' low ends), min(S, upper roots' high ends)
    let (mut low, mut high) = (0.0f64, s_max);
    // the other way: an upper bound of max(L, 0), a lower bound of min(U, S)
    let (mut low_hi, mut high_lo) = (0.0f64, s_max);
    let mut read_all = true;
    // the lower root above 0 with the greatest interval: its index and low
    // end, and the greatest high end of the other lower roots above 0
    let mut entry: Option<(usize, f64, f64)> = None;
    let mut others_hi = f64::NEG_INFINITY;
    for k in 0..n {
        let Some((a, b)) = read(k) else {
            read_all = false;
            continue;
        };
        if s_max == 0.0 || b == 0.0 {
            if a <= 0.0 {
                return Quick::Empty;
            }
            continue;
        }
        if b < 0.0 && a <= 0.0 {
            return Quick::Empty; // U <= 0
        }
        let Some((lo, hi)) = root_interval(a, b) else {
            read_all = false;
            continue;
        };
        if b > 0.0 {
            low = low.max(lo);
            if a < 0.0 {
                low_hi = low_hi.max(hi);
                match entry {
                    Some((_, best_lo, best_hi)) if lo > best_lo => {
                        others_hi = others_hi.max(best_hi);
                        entry = Some((k, lo, hi));
                    }
                    Some(_) => others_hi = others_hi.max(hi),
                    None => entry = Some((k, lo, hi)),
                }
            }
        } else {
            high = high.min(hi);
            high_lo = high_lo.min(lo);
        }
    }
    if s_max == 0.0 {
        return match read_all {
            true => Quick::Zero,
            false => Quick::Unsure,
        };
    }
    if low >= high {
        return Quick::Empty;
    }
    if !(read_all && low_hi < high_lo) {
        return Quick::Unsure;
    }
    let Some((p, p_lo, _)) = entry else {
        return Quick::Zero;
    };
    // the entry's root lies surely above every other lower root above 0
    match others_hi < p_lo {
        true => Quick::Root(p),
        false => Quick::Unsure,
    }
}

/// `fl(a)` and `fl(b)` of a constraint whose sums have at most two terms
/// (correctly rounded, finite, with the exact signs), else `None`.
#[inline(always)]
pub fn short(c: &Lin) -> Option<(f64, f64)> {
    Some((c.a.short_f64()?, c.b.short_f64()?))
}

/// An interval holding the root `-a/b` of `fl(a) = a_f`, `fl(b) = b_f`
/// (`b_f` non-zero), from `q = fl(-a_f / b_f)`: `q -/+ (2^-50 |q| + 2^-1070)`
/// (see [`quick`]); `None` when `q` is not finite.
#[inline(always)]
fn root_interval(a_f: f64, b_f: f64) -> Option<(f64, f64)> {
    const REL: f64 = f64::from_bits((1023 - 50) << 52); // 2^-50
    const ABS: f64 = f64::from_bits(1 << 4); // 2^-1070
    let q = -a_f / b_f;
    let e = q.abs() * REL + ABS;
    q.is_finite().then_some((q - e, q + e))
}

/// The order of two infima, exactly.
pub fn cmp_entries(x: &Entry, y: &Entry) -> Ordering {
    match (x, y) {
        (Entry::Zero, Entry::Zero) => Ordering::Equal,
        (Entry::Zero, Entry::Root(_)) => Ordering::Less,
        (Entry::Root(_), Entry::Zero) => Ordering::Greater,
        (Entry::Root(p), Entry::Root(q)) => cmp_roots(p, 1, q, 1),
    }
}

/// The infimum as a double, correctly rounded.
pub fn entry_f64(e: &Entry) -> f64 {
    match e {
        Entry::Zero => 0.0,
        Entry::Root(p) => root_f64(p),
    }
}

/// The sum as a double and whether that double is its exact value.
fn rounded(s: &Sum) -> (f64, bool) {
    match s.terms() {
        [a] => (*a, true),
        [a, b] => {
            let v = a + b;
            let bb = v - a;
            (v, (a - (v - bb)) + (b - bb) == 0.0 && v.is_finite())
        }
        t => (t.iter().sum(), false),
    }
}

/// `-a/b` rounded to nearest, ties to even; `b` non-zero.
pub fn root_f64(p: &Lin) -> f64 {
    let (a, a_exact) = rounded(&p.a);
    let (b, b_exact) = rounded(&p.b);
    let mut q = -a / b;
    if a_exact && b_exact && b != 0.0 {
        return q; // one IEEE division of the exact values
    }
    let sb = p.b.sign();
    let fine = |q: f64| q.is_finite() && (1e-290..1e290).contains(&q.abs());
    for _ in 0..3 {
        if !fine(q) {
            break;
        }
        // sign(r - m) for the midpoints below and above q
        let below = -(q - q.next_down()) * 0.5;
        let above = (q.next_up() - q) * 0.5;
        let side = |h: f64| {
            -exact_sign!(N => p.a.to::<N>() + p.b.to::<N>() * N::of(q)
                + p.b.to::<N>() * N::of(h))
                * sb
        };
        match (side(below), side(above)) {
            (1, -1) => return q,
            (-1, _) => q = q.next_down(),
            (_, 1) => q = q.next_up(),
            _ => break, // on a midpoint: the exact rounding below settles the tie
        }
    }
    ratio_to_f64(&-p.a.to::<Dyadic>(), &p.b.to::<Dyadic>())
}

/// An upper bound of the root, cheap: for `b` of one term, `q = -fl(a) / b`
/// is within a relative `2u (1 + u)` of `-a/b` plus `2^-1075` (the
/// quotient's underflow; `fl(a)` of two terms is correctly rounded), so
/// `q + |q| 2^-50 + 2^-1070` lies above it; otherwise the correctly rounded
/// root's successor.
pub fn root_upper(p: &Lin) -> f64 {
    if let [b] = p.b.terms() {
        let q = -p.a.to_f64() / b;
        if q.is_finite() {
            return q + q.abs() * 2f64.powi(-50) + 2f64.powi(-1070);
        }
    }
    root_f64(p).next_up()
}

/// [`root_upper`] of the entry's root, 0 for [`Entry::Zero`].
pub fn entry_upper(e: &Entry) -> f64 {
    match e {
        Entry::Zero => 0.0,
        Entry::Root(p) => root_upper(p),
    }
}

#[cfg(test)]
mod tests;
