//! Linear constraints known by their values at both ends of `[0, 1]`: the
//! float pre-test of two moving boxes, with no rounded coefficient.
//!
//! # Why the ends
//! A constraint of two boxes moving linearly over a frame,
//! `f(s) = a + b s > 0` (`super::shapes`), is the gap `hi(s) - lo(s)`
//! between a coordinate of one box and one of the other.  Its values at
//! the ends of the frame are `f(0) = hi0 - lo0` and `f(1) = hi1 - lo1`:
//! each a difference of two input doubles, so `fl(f(0))` and `fl(f(1))` are
//! correctly rounded and carry the exact signs (see [`super`]: rounding is
//! monotone, a difference of doubles rounds to zero only when it is zero,
//! and an overflow keeps the sign).  Its slope `b` is a sum of four doubles
//! that [`super::linear::quick`] must check term by term; the ends need no
//! such check.
//!
//! # The set of one constraint on `[0, 1]`
//! `f` is linear, so with `p = f(0)`, `q = f(1)`:
//! * `p > 0` and `q > 0`: it holds on all of `[0, 1]`;
//! * `p <= 0` and `q <= 0`: nowhere (the whole set is empty, exactly);
//! * `p <= 0 < q`: for `s > r` (a lower root, `0 <= r < 1`; `r = 0` exactly
//!   when `p = 0`);
//! * `p > 0 >= q`: for `s < r` (an upper root, `0 < r <= 1`);
//!
//! with `r = p / (p - q)`, the root `-a/b` of the constraint.  The decisions
//! on the signs are exact; the roots come with intervals.
//!
//! # The root's interval
//! With `P = fl(p) = p (1 + e0)`, `Q = fl(q) = q (1 + e1)`, `|e0|, |e1| <= u`,
//! and `p`, `-q` of one sign (or one of them zero), `P - Q = (p - q)(1 + e)`
//! with `e = (p e0 - q e1) / (p - q)` a mean of `e0` and `e1` weighted by
//! `|p|` and `|q|`: `|e| <= u`.  `D = fl(P - Q)` adds one rounding and
//! `fl(P / D)` one more and a possible underflow (the differences
//! themselves are exact when subnormal).  So `|fl(P / D) - r| <= 4.01 u r + 2^-1075`, and the root lies
//! in `[q' - e, q' + e]`, `q' = fl(P / D)`, `e = 2^-50 q' + 2^-1070` (as in
//! [`super::linear::quick`], whose margins also cover the roundings of
//! `q' - e` and `q' + e`).  A non-finite `P` or `D` gives no interval: the
//! constraint is left unread.
//!
//! # The decision
//! As [`super::linear::quick`] with `S = 1`: empty when the greatest lower
//! end of the lower roots (or 0) is at or above the least upper end of the
//! upper roots (or 1); not empty when every constraint was read and the
//! greatest upper end of the lower roots (or 0) is below the least lower end
//! of the upper roots (or 1); the infimum then 0 when no lower root lies
//! above 0 (every `p <= 0 < q` has `p = 0`), else the lower root above 0
//! whose interval lies above every other's (the unique greatest root, the
//! one [`super::linear::solve_exact`] picks).  Anything else is
//! [`Quick::Unsure`].

use super::linear::Quick;
use super::select::{Root, Roots};

/// The set `{s in [0, 1] : f_k(s) > 0 for every k}` of linear constraints
/// given by `f0[k] = fl(f_k(0))` and `f1[k] = fl(f_k(1))`, each correctly
/// rounded from its exact value (a difference of two doubles is): see the
/// module docs.  `Quick::Root(k)` names the constraint whose root is the
/// infimum.
#[inline(always)]
pub fn quick<const N: usize>(f0: [f64; N], f1: [f64; N]) -> Quick {
    const REL: f64 = f64::from_bits((1023 - 50) << 52); // 2^-50
    const ABS: f64 = f64::from_bits(1 << 4); // 2^-1070

    // a gap closed at both ends: the set is empty (the common miss); a gap
    // is never NaN (a difference of finite doubles, at most an overflow)
    let closed = (0..N).fold(false, |c, k| c | ((f0[k] <= 0.0) & (f1[k] <= 0.0)));
    if closed {
        return Quick::Empty;
    }
    // every step below is a selection, not a branch (`select`)
    let mut roots = Roots::new(1.0);
    for k in 0..N {
        let (p, q) = (f0[k], f1[k]);
        let d = p - q;
        let r = p / d; // in [0, 1] when the gap crosses zero
        let e = r * REL + ABS;
        let fine = p.is_finite() & d.is_finite();
        let crossing = (p > 0.0) != (q > 0.0);
        roots.unread(crossing & !fine);
        // p <= 0 < q (not closed): a lower root; p > 0 >= q: an upper one
        let lower = crossing & fine & (q > 0.0);
        roots.add(Root {
            k,
            lo: r - e,
            hi: r + e,
            lower,
            upper: crossing & fine & (p > 0.0),
            entering: lower & (p < 0.0),
        });
    }
    roots.answer()
}

#[cfg(test)]
mod tests {
    use super::super::linear::{decided, solve_exact, Entry, Lin};
    use super::super::Sum;
    use super::*;
    use proptest::prelude::*;

    /// The gap `hi - lo` of a coordinate pair moving from `(h0, l0)` to
    /// `(h1, l1)`, as the exact constraint and as its rounded ends.
    type Gap = (f64, f64, f64, f64);

    fn lin(&(h0, h1, l0, l1): &Gap) -> Lin {
        Lin {
            a: Sum::diff(h0, l0),
            b: Sum::motion(h0, h1, l0, l1),
        }
    }

    /// `quick` of four gaps, spelled as `solve_exact`'s answer (`None`:
    /// unsure).
    fn quick_of(g: &[Gap; 4]) -> Option<Option<Entry>> {
        let f0 = g.map(|(h0, _, l0, _)| h0 - l0);
        let f1 = g.map(|(_, h1, _, l1)| h1 - l1);
        decided(quick(f0, f1), |k| lin(&g[k]))
    }

    fn exact_of(g: &[Gap; 4]) -> Option<Entry> {
        solve_exact(&g.map(|c| lin(&c)), 1.0)
    }

    /// Small integers times `2^e`, some moved by an ulp; a few of the
    /// extremes of the doubles; finite.
    fn value(v: i64, e: i32, ulp: u8) -> f64 {
        let x = match v {
            10_000 => f64::MAX,
            -10_000 => -f64::MAX,
            10_001 => f64::from_bits(1),
            // past the doubles: the greatest (inputs are finite)
            _ => (v as f64 * (e as f64).exp2()).clamp(-f64::MAX, f64::MAX),
        };
        let y = match ulp % 4 {
            1 => x.next_up(),
            2 => x.next_down(),
            _ => x,
        };
        if y.is_finite() {
            y
        } else {
            x
        }
    }

    /// Four gaps of the values `v`; gap `k` does not move for bit `k` of
    /// `still`, and is open (or touching) at the start for bit `k` of
    /// `open`, at the end for bit `k + 4` (so that many sets are not empty).
    fn gaps(v: &[i64], e: i32, ulps: &[u8], still: u8, open: u8) -> [Gap; 4] {
        std::array::from_fn(|k| {
            let f = |t: usize| value(v[4 * k + t], e, ulps[4 * k + t]);
            let (mut h0, mut h1, mut l0, mut l1) = (f(0), f(1), f(2), f(3));
            if (open >> k) & 1 == 1 && h0 < l0 {
                (h0, l0) = (l0, h0);
            }
            if (open >> (k + 4)) & 1 == 1 && h1 < l1 {
                (h1, l1) = (l1, h1);
            }
            let f = |t: usize| [h0, h1, l0, l1][t];
            let (h0, l0) = (f(0), f(2));
            // constraint k may not move (both ends the same gap)
            let (h1, l1) = match (still >> k) & 1 {
                1 => (h0, l0),
                _ => (f(1), f(3)),
            };
            (h0, h1, l0, l1)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// Whatever `quick` decides is what the exact comparisons decide:
        /// near-ties an ulp apart, equal roots, constraints that do not
        /// move, subnormal to huge scales, overflowing gaps.
        #[test]
        fn quick_agrees_with_the_exact_path(
            v in proptest::collection::vec(
                prop_oneof![8 => -4i64..4, 8 => -3000i64..3000,
                            1 => Just(10_000i64), 1 => Just(-10_000i64), 1 => Just(10_001i64)],
                16),
            e in prop_oneof![-1074i32..-1000, -60i32..60, 960i32..1023],
            ulps in proptest::collection::vec(any::<u8>(), 16),
            still in any::<u8>(), open in any::<u8>(),
        ) {
            let g = gaps(&v, e, &ulps, still, open);
            if let Some(got) = quick_of(&g) {
                prop_assert_eq!(got, exact_of(&g));
            }
        }
    }

    #[test]
    fn ties_and_the_edges_of_the_doubles() {
        let tiny = f64::from_bits(1);
        let big = f64::MAX;
        let still = |h: f64, l: f64| (h, h, l, l);
        let cases: [[Gap; 4]; 6] = [
            // two lower roots at exactly 0.5 (a corner met diagonally)
            [
                (0.0, 2.0, 1.0, 1.0),
                (0.0, 2.0, 1.0, 1.0),
                still(1.0, 0.0),
                still(1.0, 0.0),
            ],
            // a lower root at 0.5, an upper root just below it, 1 / (2 + 2^-52)
            [
                (0.0, 2.0, 1.0, 1.0),
                (1.0, -1.0 - f64::EPSILON, 0.0, 0.0),
                still(1.0, 0.0),
                still(1.0, 0.0),
            ],
            // a gap that touches at the start (root exactly 0)
            [
                (1.0, 3.0, 1.0, 1.0),
                still(1.0, 0.0),
                still(1.0, 0.0),
                still(1.0, 0.0),
            ],
            // a gap that closes at the end (upper root exactly 1)
            [
                (1.0, 0.0, 0.0, 0.0),
                (0.0, 2.0, 1.0, 1.0),
                still(1.0, 0.0),
                still(1.0, 0.0),
            ],
            // gaps that overflow: unread, then decided exactly
            [
                (big, big, -big, -big),
                (-big, big, big, -big),
                still(1.0, 0.0),
                still(1.0, 0.0),
            ],
            // subnormal gaps
            [
                (0.0, 3.0 * tiny, tiny, tiny),
                (tiny, 0.0, 0.0, 0.0),
                still(tiny, 0.0),
                still(1.0, -0.0),
            ],
        ];
        for g in &cases {
            let want = exact_of(g);
            if let Some(got) = quick_of(g) {
                assert_eq!(got, want, "{g:?}");
            }
        }
        // the lower root 0.5 against an upper root an ulp below it: empty
        assert_eq!(exact_of(&cases[1]), None);
        assert_eq!(exact_of(&cases[2]), Some(Entry::Zero));
        // the overflowing gaps never get an interval
        assert_eq!(quick_of(&cases[4]), None);
    }

    #[test]
    fn sign_decisions_need_no_root() {
        // a gap closed at both ends empties the set; one open at both ends
        // is no constraint
        let open = [1.0; 4];
        assert_eq!(
            quick([1.0, 1.0, 0.0, 1.0], [1.0, 1.0, -0.0, 1.0]),
            Quick::Empty
        );
        assert_eq!(quick([-1.0, 1.0, 1.0, 1.0], open), Quick::Root(0));
        assert_eq!(quick([0.0, 1.0, 1.0, 1.0], open), Quick::Zero);
        assert_eq!(
            quick([-1.0, -3.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]),
            Quick::Root(1)
        );
    }
}
