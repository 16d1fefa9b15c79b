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
/// the empty set; `s_max >= 0`, possibly infinite.
pub fn solve(cons: &[Lin], s_max: f64) -> Option<Entry> {
    if surely_empty(cons, s_max) {
        return None;
    }
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

/// Whether the set of [`solve`] is empty for certain, from the roots in
/// floating point: most candidates of a cast or a sweep are misses, told
/// here without the exact comparisons.
///
/// Only constraints whose `a` and `b` are single doubles are read (the
/// others are left out, which only makes the set larger).  A computed root
/// `q = fl(-a/b)` is within `u |r| + 2^-1075` of the true `r` (one
/// rounding, and an underflow), so `r` lies in `[q - e, q + e]` with
/// `e = 2^-52 |q| + 2^-1070`.  The set is empty when a lower root lies
/// surely at or above an upper root, at or above `S`, or an upper root at
/// or below 0 (the conditions of [`solve`]), or when a constraint with
/// `b = 0` has `a <= 0`.  A value that is not finite decides nothing.
#[inline]
pub fn surely_empty(cons: &[Lin], s_max: f64) -> bool {
    let (mut low, mut high) = (0.0f64, s_max);
    for c in cons {
        let ([a], [b]) = (c.a.terms(), c.b.terms()) else {
            continue;
        };
        if *b == 0.0 {
            if *a <= 0.0 {
                return true;
            }
            continue;
        }
        let q = -a / b;
        if !q.is_finite() {
            continue;
        }
        let e = q.abs() * f64::from_bits((1023 - 52) << 52) + f64::from_bits(1 << 4);
        if *b > 0.0 {
            low = low.max(q - e);
        } else {
            high = high.min(q + e);
        }
    }
    // an upper root at or below 0 (high <= 0), a lower one at or above S
    // or at or above an upper one (low >= high); for S = 0 every a > 0 is
    // asked, which the same tests cover only in part: leave it to `solve`
    s_max > 0.0 && low >= high
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
