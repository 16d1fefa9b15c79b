//! A ray and a box in floating point: the constraints of
//! [`super::shapes::ray_box`] (two per axis) decided by selections, not
//! branches.
//!
//! # Why
//! A ray's candidates hit or miss as randomly as the boxes lie along it,
//! so the branches of [`super::linear::quick`] (which constraint is read,
//! which root is greater) are mispredicted about as often as taken.  For a
//! ray with every direction component non-zero and `S > 0` every
//! constraint has a non-zero slope, and the same decision is made here with
//! every step a selection.
//!
//! # What holds
//! Constraint `k` is `a_k + b_k s > 0` with `fl(a_k)` one subtraction of
//! two doubles (correctly rounded, with the exact sign) and `b_k = ±d`
//! exact and non-zero.  Its root `-a_k / b_k` lies in `[q - e, q + e]`,
//! `q = fl(-fl(a_k) / b_k)`, `e = 2^-50 |q| + 2^-1070` (two roundings and
//! a possible underflow, within [`super::linear::quick`]'s margin for
//! three).  A non-finite `q` leaves the constraint unread.  The answers are
//! [`super::linear::quick`]'s on the same constraints: empty when an upper
//! root lies at or below 0 (`b < 0`, `a <= 0`: exact signs) or the lower
//! ends of the lower roots (and 0) reach the upper ends of the upper roots
//! (and `S`); not empty when every constraint was read and the upper ends
//! of the lower roots (and 0) lie below the lower ends of the upper roots
//! (and `S`), entering at 0 when no lower root lies above 0 (the exact sign
//! of `a`), else at the lower root above 0 whose interval lies above every
//! other's; anything else [`Quick::Unsure`], for the exact path.

use super::linear::Quick;
use super::select::{Root, Roots};

/// [`super::linear::quick`] of the `N` constraints `a[k] + b[k] s > 0`
/// (two per axis: 4 in 2D, 6 in 3D) on `[0, s_max]`, `a[k]` correctly
/// rounded from a difference of two doubles, `b[k]` exact and non-zero,
/// `s_max > 0` (see the module docs).
#[inline(always)]
pub fn quick<const N: usize>(a: [f64; N], b: [f64; N], s_max: f64) -> Quick {
    const REL: f64 = f64::from_bits((1023 - 50) << 52); // 2^-50
    const ABS: f64 = f64::from_bits(1 << 4); // 2^-1070

    // an upper root at or below 0: empty (a common miss), exactly
    let closed = (0..N).fold(false, |c, k| c | ((b[k] < 0.0) & (a[k] <= 0.0)));
    if closed {
        return Quick::Empty;
    }
    let mut roots = Roots::new(s_max);
    for k in 0..N {
        let q = -a[k] / b[k];
        let e = q.abs() * REL + ABS;
        let fine = q.is_finite();
        roots.unread(!fine);
        let lower = fine & (b[k] > 0.0);
        roots.add(Root {
            k,
            lo: q - e,
            hi: q + e,
            lower,
            upper: fine & (b[k] < 0.0),
            entering: lower & (a[k] < 0.0),
        });
    }
    roots.answer()
}

#[cfg(test)]
mod tests {
    use super::super::linear::{decided, solve_exact, Lin};
    use super::super::Sum;
    use super::*;
    use proptest::prelude::*;

    /// The constraints of the ray `o + s d` and the box `bx`, exact and
    /// read (as `shapes::ray_box` reads them).
    fn constraints(bx: [f64; 4], o: [f64; 2], d: [f64; 2]) -> ([Lin; 4], [f64; 4], [f64; 4]) {
        let side = |k: usize| {
            let x = k / 2;
            match k % 2 {
                0 => (o[x], bx[x], d[x]),
                _ => (bx[x + 2], o[x], -d[x]),
            }
        };
        let lins = std::array::from_fn(|k| {
            let (p, q, v) = side(k);
            Lin {
                a: Sum::diff(p, q),
                b: Sum::one(v),
            }
        });
        (
            lins,
            std::array::from_fn(|k| side(k).0 - side(k).1),
            std::array::from_fn(|k| side(k).2),
        )
    }

    fn coordinate() -> impl Strategy<Value = f64> {
        prop_oneof![
            (-40i32..40).prop_map(|v| f64::from(v) / 4.0),
            -1e3f64..1e3,
            (-40i32..40, -1000i32..1000).prop_map(|(v, e)| f64::from(v) * 2f64.powi(e)),
        ]
    }

    fn direction() -> impl Strategy<Value = f64> {
        prop_oneof![
            (-8i32..9)
                .prop_filter("non-zero", |v| *v != 0)
                .prop_map(f64::from),
            (1e-3f64..1e3).prop_flat_map(|v| prop_oneof![Just(v), Just(-v)]),
            (-40i32..40, -1000i32..1000)
                .prop_filter("non-zero", |(v, _)| *v != 0)
                .prop_map(|(v, e)| f64::from(v) * 2f64.powi(e)),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// Whenever it decides, it decides as the exact path does.
        #[test]
        fn quick_agrees_with_the_exact_path(
            x in coordinate(), y in coordinate(), w in coordinate(), h in coordinate(),
            ox in coordinate(), oy in coordinate(), dx in direction(), dy in direction(),
            s_max in prop_oneof![Just(1.0), Just(0.5), Just(f64::INFINITY), 1e-3f64..1e3],
        ) {
            let bx = [x.min(x + w.abs()), y.min(y + h.abs()), x + w.abs(), y + h.abs()];
            prop_assume!(bx.iter().all(|v| v.is_finite()));
            let (lins, a, b) = constraints(bx, [ox, oy], [dx, dy]);
            let exact = solve_exact(&lins, s_max);
            if let Some(got) = decided(quick(a, b, s_max), |k| lins[k]) {
                prop_assert_eq!(got, exact);
            }
        }
    }

    /// Rays through a box's corner, along its sides, from its edges and
    /// into it from far away: the answers of the exact path, or none.
    #[test]
    fn edges_and_corners() {
        let bx = [0.0, 0.0, 2.0, 2.0];
        let cases: [([f64; 2], [f64; 2], f64); 6] = [
            ([-1.0, -1.0], [1.0, 1.0], 10.0),      // through the corners
            ([-1.0, 3.0], [1.0, -1.0], 10.0),      // along the other diagonal
            ([0.0, 1.0], [1.0, 0.5], 10.0),        // from the left edge, inward
            ([1.0, 1.0], [1.0, 1.0], 10.0),        // from inside
            ([-1e300, 1.0], [1e300, 1e-300], 2.0), // from far away
            ([3.0, 3.0], [1.0, 1.0], 10.0),        // going away
        ];
        for (o, d, s_max) in cases {
            let (lins, a, b) = constraints(bx, o, d);
            let exact = solve_exact(&lins, s_max);
            let got = decided(quick(a, b, s_max), |k| lins[k]);
            assert!(
                got.is_none_or(|g| g == exact),
                "{o:?} {d:?}: {got:?} against {exact:?}"
            );
        }
    }
}
