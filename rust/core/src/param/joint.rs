//! One quadratic constraint and linear ones together: the `s` in `[0, S]`
//! where `|p + s v|^2 < r^2` and every `a + b s > 0` hold (a moving sphere's
//! centre near one edge of a moving box: within `r` of the edge's line and
//! between the box's faces along it, [`super::rounded`]).
//!
//! # The set and its infimum
//! The linear constraints hold on `(L, U)` ([`super::linear`]: `L` the
//! greatest lower root, `U` the least upper one, either absent; a
//! constraint with `b = 0` holds everywhere or nowhere).  The quadratic
//! holds on `(s-, s+)` when `A > 0` and `D > 0` ([`super::quadratic`]),
//! everywhere when `v = 0` and `C < 0`, else nowhere.  So the set is
//! `(lo, hi) ∩ [0, S]` with `lo` the greatest of `0` (closed), `L` and `s-`,
//! `hi` the least of `S` (closed), `U` and `s+`: for `S > 0` it is not
//! empty exactly when `lo < hi` (an open bound equal to another bound
//! leaves nothing, and `0 < S`), and its infimum is `lo`.
//!
//! # Comparisons, exactly
//! Every bound is 0, `S`, a linear root or a root of the one quadratic, and
//! every pair compares by signs of polynomials already decided exactly:
//! * two linear roots, a root and `S`: [`linear::cmp_roots`],
//!   [`linear::cmp_root_value`]; a root and 0: the signs of `a` and `b`;
//! * a linear root and `s-`, `s+`: the sign of `f` there and its side of
//!   the vertex ([`super::cross::root_against`]);
//! * `S` and `s-`, `s+`: the signs of `f(S)` and `A S + B` ([`super::cross::between`]);
//! * 0 and `s-`, `s+`: the roots' product `C / A` and sum `-2 B / A` (with
//!   `C > 0` both have the sign of `-B`; with `C = 0` one is 0, the other
//!   `-2 B / A`; with `C < 0` they straddle 0).
//!
//! Their rounding counts are those of [`linear`], [`quadratic`] and
//! [`super::cross`] (at most 11 in 3D), within the filter's 12 ([`super`]).
//! Ties between `L` and `s-` give the linear root, whose double is
//! correctly rounded.

use super::cross::{between, root_against};
use super::linear::{self, cmp_root_value, cmp_roots, Lin};
use super::quadratic::{self, Quad};
use super::Num;
use std::cmp::Ordering;

/// The infimum of a non-empty set: 0, a linear root above 0, or the
/// quadratic's smaller root `s-` above 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Entry<const D: usize> {
    /// The set starts at 0.
    Zero,
    /// The set starts at this constraint's root (`b > 0`, `a < 0`).
    Linear(Lin),
    /// The set starts at the quadratic's smaller root.
    Quadratic(Quad<D>),
}

/// The entry as a double: correctly rounded for a linear root, within a
/// relative `2^-36` for the quadratic's ([`quadratic::entry_f64`]).
pub fn entry_f64<const D: usize>(e: &Entry<D>) -> f64 {
    match e {
        Entry::Zero => 0.0,
        Entry::Linear(l) => linear::root_f64(l),
        Entry::Quadratic(q) => quadratic::entry_f64(&quadratic::Entry::Root(*q)),
    }
}

/// A bound of the set: 0, `S`, a linear root (with the sign of its `b`),
/// or one of the quadratic's roots.
#[derive(Clone, Copy, Debug)]
enum Bound {
    Zero,
    End,
    Root(Lin, i32),
    Low,
    High,
}

/// The quadratic (`A > 0`, `D > 0`) and what the comparisons need of it.
struct Roots<'a, const D: usize> {
    q: &'a Quad<D>,
    s_max: f64,
    /// The signs of `s-` and `s+`.
    sign_low: i32,
    sign_high: i32,
}

impl<const D: usize> Roots<'_, D> {
    /// Where the non-quadratic bound `x` lies against `s-`, `s+`.
    fn against(&self, x: &Bound) -> (Ordering, Ordering) {
        match x {
            Bound::Zero => (0.cmp(&self.sign_low), 0.cmp(&self.sign_high)),
            Bound::End => {
                let q = self.q;
                let f = exact_sign!(N => q.at::<N>(self.s_max));
                let side = exact_sign!(N => q.a::<N>() * N::of(self.s_max) + q.b::<N>());
                between(f, side)
            }
            Bound::Root(l, sb) => root_against(l, *sb, self.q),
            Bound::Low | Bound::High => unreachable!("a bound of the quadratic itself"),
        }
    }
}

/// The order of two bounds, exactly (`roots`: the quadratic, when it
/// bounds the set).
fn cmp<const D: usize>(x: &Bound, y: &Bound, roots: Option<&Roots<D>>, s_max: f64) -> Ordering {
    use Bound::{End, High, Low, Root, Zero};
    use Ordering::{Equal, Greater, Less};
    let quad = || roots.expect("the quadratic's roots bound the set");
    match (x, y) {
        (Zero, Zero) | (End, End) | (Low, Low) | (High, High) => Equal,
        (Low, High) => Less,
        (High, Low) => Greater,
        (Low | High, _) => cmp(y, x, roots, s_max).reverse(),
        (_, Low) => quad().against(x).0,
        (_, High) => quad().against(x).1,
        (Zero, End) => Less,
        (End, Zero) => Greater,
        // the root -a/b against 0: its sign is -sign(a) sign(b)
        (Root(l, sb), Zero) => (-l.a.sign() * sb).cmp(&0),
        (Root(l, sb), End) => cmp_root_value(l, *sb, s_max),
        (Root(l, sl), Root(m, sm)) => cmp_roots(l, *sl, m, *sm),
        (Zero | End, Root(..)) => cmp(y, x, roots, s_max).reverse(),
    }
}

/// The infimum of `{s in [0, s_max] : |p + s v| < r, every a + b s > 0}`,
/// `None` for the empty set; `s_max` positive and finite (a frame's 1).
pub fn solve<const D: usize>(q: &Quad<D>, lins: &[Lin], s_max: f64) -> Option<Entry<D>> {
    debug_assert!(s_max > 0.0 && s_max.is_finite());
    let (mut low, mut high) = (Bound::Zero, Bound::End);
    let sc = exact_sign!(N => q.c::<N>());
    let roots = if q.still() {
        if sc >= 0 {
            return None; // outside, and staying there
        }
        None // inside the whole time: the linear constraints alone
    } else {
        if sc >= 0 && exact_sign!(N => q.d::<N>()) <= 0 {
            return None; // no real roots: never inside
        }
        let sb = exact_sign!(N => q.b::<N>());
        // the signs of s- and s+ from C (their product's) and -B (their sum's)
        let (sign_low, sign_high) = match sc {
            -1 => (-1, 1),
            0 => match sb < 0 {
                true => (0, 1),
                false => (-1, 0),
            },
            _ => (-sb, -sb),
        };
        Some(Roots {
            q,
            s_max,
            sign_low,
            sign_high,
        })
    };
    let roots = roots.as_ref();
    let above = |x: &Bound, y: &Bound| cmp(x, y, roots, s_max) == Ordering::Greater;
    for l in lins {
        match l.b.sign() {
            0 if l.a.sign() <= 0 => return None,
            0 => {}
            1 if above(&Bound::Root(*l, 1), &low) => low = Bound::Root(*l, 1),
            -1 if above(&high, &Bound::Root(*l, -1)) => high = Bound::Root(*l, -1),
            _ => {}
        }
    }
    if roots.is_some() {
        // on a tie the linear root stays: its double is correctly rounded
        if above(&Bound::Low, &low) {
            low = Bound::Low;
        }
        if above(&high, &Bound::High) {
            high = Bound::High;
        }
    }
    if cmp(&low, &high, roots, s_max) != Ordering::Less {
        return None;
    }
    Some(match low {
        Bound::Root(l, _) => Entry::Linear(l),
        Bound::Low => Entry::Quadratic(*q),
        _ => Entry::Zero,
    })
}

#[cfg(test)]
mod tests;
