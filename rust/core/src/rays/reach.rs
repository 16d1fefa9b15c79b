//! A float pre-test of a ray against a candidate's box: candidates it
//! rejects are missed for certain, or entered after the best hit so far;
//! written once over the dimension (a slab per axis).
//!
//! Why: most candidates of a ray (the objects of the cells it crosses)
//! pass beside it or lie beyond its first hit.  The exact test
//! (`param::shapes::ray_box`: a division per side and the bookkeeping of
//! their intervals) costs several times the slab test with the ray's
//! reciprocal direction that tells most of them apart; this is that slab
//! test, with a margin that makes every rejection certain.  What it does
//! not reject goes to the exact test, which alone decides hits and entries.
//!
//! # The slab test
//! Along axis `k` the ray `o + s d` is strictly inside `(lo_k, hi_k)` for
//! `s` strictly between `t1 = (lo_k - o_k) / d_k` and `t2 = (hi_k - o_k) /
//! d_k`; inside the box for `enter < s < exit`, `enter` the greatest of the
//! axes' `min(t1, t2)`, `exit` the least of their `max(t1, t2)` (over the
//! `D` axes: two or three).  Within `[0, S]` that set is empty when
//! `enter >= exit`, `exit <= 0` or `enter >= S`, and any entry of a
//! non-empty set is at least `enter`.  The same holds for a circle (a sphere) and its
//! outward-rounded box (the open ball lies in the open box, so the ball's
//! set is a subset of the box's).
//!
//! # The margin
//! With `d_k` of magnitude in `[2^-1000, 2^1000]` the reciprocal `fl(1/d_k)`
//! is normal, within a relative `u = 2^-53`; `fl(lo_k - o_k)` is within
//! `u`, and the product adds one rounding and, only below `2^-1022`, an
//! absolute `2^-1075`.  So each computed time is within
//! `e = 4u |t~| + 2^-1070` of its exact value (`(1 + u)^3 - 1 < 3.01u`, and
//! `|t| <= |t~| (1 + 4u)`), whatever the axis, and min and max over any
//! number of them move no result by more than the largest `e` (the result
//! is one of the times), which is at most `E0 = 4u M + 2^-1070`, `M` the
//! greatest `|t~|` over all axes.  With `E = 16u M + 2^-1000`, each
//! rejection below holds exactly, its own comparisons' roundings included
//! (each adds at most `2u M`):
//! * `fl(enter~ - exit~) >= E`: `enter - exit >= E - 2uM - 2 E0 > 0`;
//! * `exit~ <= -E`: `exit <= -E + E0 < 0`;
//! * `enter~ >= fl(S + E)`: `enter >= (S + E)(1 - u) - E0 > S` (as
//!   `S <= M (1 + 2u)` there);
//! * `enter~ >= fl(L + E)` for the best hit's upper bound `L`: likewise
//!   `enter > L`, so the candidate enters strictly after the best (a tie,
//!   which the lower index may win, is never rejected).
//!
//! The dimension enters nowhere but in the number of times: the margin is
//! the same in 2D and 3D.  A non-finite time (a coordinate far beyond the
//! direction's scale) or a direction outside the range rejects nothing.

use crate::dim::Row;

/// A ray as the pre-test reads it: its origin and reciprocal direction, or
/// nothing when the margin's premises fail (a zero, tiny or huge
/// component); for boxes of `N` doubles ([`Row`]).
#[derive(Clone, Copy, Debug)]
pub struct Reach<const N: usize>
where
    [f64; N]: Row,
{
    o: <[f64; N] as Row>::Axes,
    inv: <[f64; N] as Row>::Axes,
    usable: bool,
}

const U: f64 = f64::EPSILON / 2.0;
/// `2^-1000`: the absolute part of the margin.
const TINY: f64 = f64::from_bits((1023 - 1000) << 52);
/// `2^1000`: the range of a direction component's magnitude, `[1/BIG, BIG]`.
const BIG: f64 = f64::from_bits((1023 + 1000) << 52);

/// The lesser of two times (neither is a NaN).
#[inline(always)]
fn lo(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

/// The greater of two times.
#[inline(always)]
fn hi(a: f64, b: f64) -> f64 {
    if a < b {
        b
    } else {
        a
    }
}

impl<const N: usize> Reach<N>
where
    [f64; N]: Row,
{
    /// The pre-test of the ray `o + s d`.
    #[inline]
    pub fn new(o: <[f64; N] as Row>::Axes, d: <[f64; N] as Row>::Axes) -> Reach<N> {
        let fits = |v: f64| (1.0 / BIG..=BIG).contains(&v.abs());
        let mut inv = d;
        for v in inv.as_mut() {
            *v = 1.0 / *v;
        }
        Reach {
            o,
            inv,
            usable: d.as_ref().iter().all(|&v| fits(v)),
        }
    }

    /// Whether the ray, `s` in `[0, s_max]`, surely misses the box `b` or
    /// surely enters it after `limit` (an upper bound of the best entry so
    /// far; `+inf` for none).
    #[inline(always)]
    pub fn rejects(&self, b: &[f64; N], s_max: f64, limit: f64) -> bool {
        if !self.usable {
            return false;
        }
        let (o, inv) = (self.o.as_ref(), self.inv.as_ref());
        // the times of each axis' two sides: their min and max, and the
        // greatest magnitude, folded over the axes
        let time = |k: usize| {
            let t = ((b[k] - o[k]) * inv[k], (b[N / 2 + k] - o[k]) * inv[k]);
            (lo(t.0, t.1), hi(t.0, t.1), hi(t.0.abs(), t.1.abs()))
        };
        let (mut enter, mut exit, mut m) = time(0);
        for k in 1..N / 2 {
            let (a, z, mk) = time(k);
            (enter, exit, m) = (hi(enter, a), lo(exit, z), hi(m, mk));
        }
        // no time is NaN (`inv` is finite and not zero, a difference of
        // finite doubles at most overflows); an overflow rejects nothing
        if !m.is_finite() {
            return false;
        }
        let e = 16.0 * U * m + TINY;
        (enter - exit >= e) | (exit <= -e) | (enter >= s_max + e) | (enter >= limit + e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::param::linear::{cmp_root_value, Entry};
    use crate::param::shapes::ray_box;
    use crate::rays::exact::ExactRay;
    use proptest::prelude::*;
    use std::cmp::Ordering;

    /// Small integers times `2^e`, some an ulp off.
    fn value(v: i32, e: i32, ulp: u8) -> f64 {
        let x = f64::from(v) * f64::from(e).exp2();
        match ulp % 4 {
            1 => x.next_up(),
            2 => x.next_down(),
            _ => x,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        /// A rejected box is never hit, or is entered after `limit`: near
        /// misses an ulp away, grazing sides, rays starting inside, every
        /// scale, limits at and around the entries.
        #[test]
        fn rejects_only_what_the_exact_test_rejects(
            v in proptest::collection::vec(-12i32..12, 8),
            ulps in proptest::collection::vec(any::<u8>(), 8),
            e in prop_oneof![-1070i32..-1000, -40i32..40, 990i32..1010],
            s_max in prop_oneof![Just(f64::INFINITY), Just(0.0), Just(1.0), 0.0f64..4.0],
            lim in prop_oneof![Just(f64::INFINITY), Just(0.0), -1.0f64..4.0],
        ) {
            let f = |k: usize| value(v[k], e, ulps[k]);
            let b = [f(0).min(f(2)), f(1).min(f(3)), f(0).max(f(2)), f(1).max(f(3))];
            let (o, d) = ([f(4), f(5)], [f(6), f(7)]);
            prop_assume!(b.iter().chain(&o).chain(&d).all(|x| x.is_finite()));
            let exact = ray_box(&b, o, d, s_max);
            if Reach::<4>::new(o, d).rejects(&b, s_max, lim) {
                // entered, then only strictly after the limit (exactly)
                let after = match &exact {
                    None => true,
                    Some(Entry::Zero) => lim < 0.0,
                    Some(Entry::Root(p)) => lim.is_finite()
                        && cmp_root_value(p, p.b.sign(), lim) == Ordering::Greater,
                };
                prop_assert!(after, "{:?}", (b, o, d, s_max, lim, exact));
            }
        }
    }

    /// Whether rejecting box `b` (rows of `N`) is right: the exact set of
    /// `s` in `[0, s_max]` where the ray is strictly inside the box
    /// ([`ExactRay`]) is empty, or its least `s` is strictly after `lim`.
    fn rejection_holds<const N: usize>(
        b: &[f64; N],
        o: &[f64],
        d: &[f64],
        s_max: f64,
        lim: f64,
    ) -> bool
    where
        [f64; N]: Row,
    {
        let ray = ExactRay::new(o, d);
        let mut set = ray.span(s_max);
        for k in 0..N / 2 {
            ray.clip(&mut set, k, (b[k], false), (b[N / 2 + k], false));
        }
        set.least()
            .is_none_or(|least| ray.cmp(lim, least) == Ordering::Less)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]

        /// Over both dimensions, against the exact sets of `s`: a rejected
        /// box is never hit, or is entered after `limit`.
        #[test]
        fn rejects_only_sure_misses_in_2d_and_3d(
            v in proptest::collection::vec(-12i32..12, 12),
            ulps in proptest::collection::vec(any::<u8>(), 12),
            e in prop_oneof![-1070i32..-1000, -40i32..40, 990i32..1010],
            s_max in prop_oneof![Just(f64::INFINITY), Just(0.0), Just(1.0), 0.0f64..4.0],
            lim in prop_oneof![Just(f64::INFINITY), Just(0.0), -1.0f64..4.0],
        ) {
            let f = |k: usize| value(v[k], e, ulps[k]);
            let b: [f64; 6] = std::array::from_fn(|c| {
                let (p, q) = (f(c % 3), f(3 + c % 3));
                if c < 3 { p.min(q) } else { p.max(q) }
            });
            let (o, d) = ([f(6), f(7), f(8)], [f(9), f(10), f(11)]);
            prop_assume!(b.iter().chain(&o).chain(&d).all(|x| x.is_finite()));
            if Reach::<6>::new(o, d).rejects(&b, s_max, lim) {
                prop_assert!(rejection_holds(&b, &o, &d, s_max, lim), "{:?}", (b, o, d, s_max, lim));
            }
            let b2 = [b[0], b[1], b[3], b[4]];
            let (o2, d2) = ([o[0], o[1]], [d[0], d[1]]);
            if Reach::<4>::new(o2, d2).rejects(&b2, s_max, lim) {
                prop_assert!(rejection_holds(&b2, &o2, &d2, s_max, lim), "{:?}", (b2, o2, d2, s_max, lim));
            }
        }
    }

    #[test]
    fn rejects_the_plain_cases() {
        let r = Reach::<4>::new([0.0, 0.0], [1.0, 1.0]);
        let b = [2.0, 2.0, 3.0, 3.0];
        // on the way, within reach
        assert!(!r.rejects(&b, 10.0, f64::INFINITY));
        // beside the ray, behind it, beyond its end, after the best
        assert!(r.rejects(&[2.0, 5.0, 3.0, 6.0], 10.0, f64::INFINITY));
        assert!(r.rejects(&[-3.0, -3.0, -2.0, -2.0], 10.0, f64::INFINITY));
        assert!(r.rejects(&b, 1.5, f64::INFINITY));
        assert!(r.rejects(&b, 10.0, 1.5));
        // a tie with the best is the exact test's to decide
        assert!(!r.rejects(&b, 10.0, 2.0));
        // a zero component: nothing rejected
        assert!(!Reach::<4>::new([0.0, 0.0], [1.0, 0.0]).rejects(&b, 10.0, 0.5));
        // in 3D, a box the ray passes beside only in z
        let r = Reach::<6>::new([0.0; 3], [1.0, 1.0, 1.0]);
        assert!(!r.rejects(&[2.0, 2.0, 2.0, 3.0, 3.0, 3.0], 10.0, f64::INFINITY));
        assert!(r.rejects(&[2.0, 2.0, 5.0, 3.0, 3.0, 6.0], 10.0, f64::INFINITY));
        assert!(r.rejects(&[2.0, 2.0, 2.0, 3.0, 3.0, 3.0], 10.0, 1.5));
    }
}
