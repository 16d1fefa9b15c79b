//! The joint solver against integer arithmetic, over 2 and 3 axes.
//!
//! Inputs are small integers times `2^e` (every coefficient scaled alike:
//! the roots do not depend on `e`).  The reference takes another route:
//! the linear constraints' set is an interval `(lo, hi)` of rationals (0 and
//! 1 closed); the quadratic `f` is continuous and convex, so it is negative
//! somewhere in that interval exactly when its least value on `[lo, hi]`,
//! at the vertex `-B/A` clamped, is negative.  The entry is `lo` when
//! `f(lo) <= 0`, else the quadratic's smaller root.

use super::*;
use crate::param::Sum;
use proptest::prelude::*;

/// A rational `n / d`, `d > 0`.
type Ratio = (i128, i128);

fn less(x: Ratio, y: Ratio) -> bool {
    x.0 * y.1 < y.0 * x.1
}

/// The linear constraints' set in `[0, 1]`: `(lo, hi)`, or `None`.
fn linear_set(cons: &[(i128, i128)]) -> Option<(Ratio, Ratio)> {
    let (mut lo, mut lo_open, mut hi, mut hi_open) = ((0, 1), false, (1, 1), false);
    for &(a, b) in cons {
        if b == 0 {
            if a <= 0 {
                return None;
            }
            continue;
        }
        let r = if b > 0 { (-a, b) } else { (a, -b) };
        let same = |x: Ratio| !less(r, x) && !less(x, r);
        if b > 0 && (less(lo, r) || (same(lo) && !lo_open)) {
            (lo, lo_open) = (r, true);
        }
        if b < 0 && (less(r, hi) || (same(hi) && !hi_open)) {
            (hi, hi_open) = (r, true);
        }
    }
    less(lo, hi).then_some((lo, hi))
}

/// The reference: `None` for the empty set, else the entry as a double
/// (`lo` exact, or the smaller root computed from the integers) and
/// whether it is the linear bound (then exactly rounded).
fn reference<const D: usize>(
    p: [i64; D],
    v: [i64; D],
    r: i64,
    cons: &[(i128, i128)],
) -> Option<(f64, bool)> {
    let dot =
        |x: &[i64; D], y: &[i64; D]| (0..D).map(|k| x[k] as i128 * y[k] as i128).sum::<i128>();
    let (a, b, c) = (
        dot(&v, &v),
        dot(&p, &v),
        dot(&p, &p) - (r as i128) * (r as i128),
    );
    let (lo, hi) = linear_set(cons)?;
    // f at n/d, times d^2
    let f = |(n, d): Ratio| a * n * n + 2 * b * n * d + c * d * d;
    let least = if a == 0 {
        c
    } else {
        // the vertex -B/A (A > 0) clamped to [lo, hi]
        let w = (-b, a);
        let w = if less(w, lo) {
            lo
        } else if less(hi, w) {
            hi
        } else {
            w
        };
        f(w)
    };
    if least >= 0 {
        return None;
    }
    if f(lo) <= 0 {
        return Some((lo.0 as f64 / lo.1 as f64, true));
    }
    let disc = (b * b - a * c) as f64;
    Some((c as f64 / (disc.sqrt() - b as f64), false))
}

fn check<const D: usize>(
    p: [i64; D],
    v: [i64; D],
    r: i64,
    cons: &[(i64, i64)],
    e: i32,
) -> Result<(), TestCaseError> {
    let s = (e as f64).exp2();
    // the terms as differences with 0 on either side: sums of one term
    let one = |x: i64| Sum::diff(x as f64 * s, 0.0);
    let q: Quad<D> = Quad {
        p: p.map(one),
        v: v.map(one),
        r: Sum::diff(0.0, -(r as f64) * s),
    };
    let lins: Vec<Lin> = cons
        .iter()
        .map(|&(a, b)| Lin {
            a: one(a),
            b: one(b),
        })
        .collect();
    let ints: Vec<(i128, i128)> = cons.iter().map(|&(a, b)| (a as i128, b as i128)).collect();
    let got = solve(&q, &lins, 1.0);
    let want = reference(p, v, r, &ints);
    prop_assert_eq!(
        got.is_some(),
        want.is_some(),
        "{:?} against {:?}",
        got,
        want
    );
    if let (Some(g), Some((w, exact))) = (got, want) {
        let t = entry_f64(&g);
        match exact {
            true => prop_assert_eq!(t, w, "{:?}", g),
            false => prop_assert!(
                (t - w).abs() <= w * (2f64.powi(-36) + 2f64.powi(-48)),
                "{} against {}",
                t,
                w
            ),
        }
    }
    Ok(())
}

fn small() -> impl Strategy<Value = i64> {
    prop_oneof![2 => Just(0i64), 5 => -6i64..7, 1 => -60i64..60]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Quadratics of 2 and 3 axes (some still, some inside from the
    /// start), with up to four linear constraints (some with `b = 0`),
    /// from the subnormals to huge scales.
    #[test]
    fn sets_and_entries_match_integers(
        p in [small(), small(), small()], v in [small(), small(), small()], r in 0i64..8,
        cons in proptest::collection::vec((small(), small()), 0..5),
        e in prop_oneof![-1040i32..-1000, -20i32..20, 900i32..940],
    ) {
        check([p[0], p[1]], [v[0], v[1]], r, &cons, e)?;
        check(p, v, r, &cons, e)?;
    }
}

#[test]
fn bounds_that_meet() {
    let q = |p: [f64; 2], v: [f64; 2], r: f64| Quad {
        p: p.map(Sum::one),
        v: v.map(Sum::one),
        r: Sum::one(r),
    };
    let lin = |a: f64, b: f64| Lin {
        a: Sum::one(a),
        b: Sum::one(b),
    };
    // |(-3 + 4 s, 0)| < 1 on (1/2, 1): with s > 3/4 from the linear one
    let q0 = q([-3.0, 0.0], [4.0, 0.0], 1.0);
    let e = solve(&q0, &[lin(-3.0, 4.0)], 1.0).unwrap();
    assert_eq!((e, entry_f64(&e)), (Entry::Linear(lin(-3.0, 4.0)), 0.75));
    // the linear bound at the quadratic's entry: the linear root, exactly
    let e = solve(&q0, &[lin(-1.0, 2.0)], 1.0).unwrap();
    assert_eq!(e, Entry::Linear(lin(-1.0, 2.0)));
    // the linear set ends where the quadratic's begins: empty
    assert_eq!(solve(&q0, &[lin(1.0, -2.0)], 1.0), None);
    // ... and just after it: the quadratic's entry
    let e = solve(&q0, &[lin(1.0, -1.5)], 1.0).unwrap();
    assert_eq!((e, entry_f64(&e)), (Entry::Quadratic(q0), 0.5));
    // the linear set starts where the quadratic's ends (s+ = 1): empty
    assert_eq!(solve(&q0, &[lin(-1.0, 1.0)], 1.0), None);
    // inside from the start, still: the linear set's
    let q1 = q([0.5, 0.0], [0.0, 0.0], 1.0);
    assert_eq!(solve(&q1, &[], 1.0), Some(Entry::Zero));
    let e = solve(&q1, &[lin(-1.0, 4.0)], 1.0).unwrap();
    assert_eq!(entry_f64(&e), 0.25);
    // on the circle at the start, moving in: 0, not inside at 0 but right after
    let q2 = q([-1.0, 0.0], [1.0, 0.0], 1.0);
    assert_eq!(solve(&q2, &[], 1.0), Some(Entry::Zero));
    // a constraint that never holds, one that always does
    assert_eq!(solve(&q2, &[lin(0.0, 0.0)], 1.0), None);
    assert_eq!(solve(&q2, &[lin(1.0, 0.0)], 1.0), Some(Entry::Zero));
}
