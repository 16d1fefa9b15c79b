//! A moving box against a moving circle: when they first overlap strictly.
//!
//! The box moves from `b0` to `b1` (each coordinate linearly, so its size
//! may change), the circle's centre from `c0` to `c1`, its radius `r`
//! fixed; `s` in `[0, 1]`.  They overlap as the narrow phase says
//! (`narrow::box_circle_overlap`): when the point of the closed box
//! nearest the centre lies strictly inside the circle, that is when the
//! centre is closer than `r` to the closed box (a flat box too; a radius of
//! 0 is an empty disk: never).  With `r > 0`, `{p : dist(p, box) < r}` is
//! the union of six open pieces, each a set [`super::linear`] or
//! [`super::quadratic`] solves:
//! * the box widened by `r` across x, open along y: `lo_x - r < cx < hi_x + r`,
//!   `lo_y < cy < hi_y` (four linear constraints; the nearest point of the
//!   box is on a vertical side, or the centre is inside);
//! * the same across y;
//! * the four disks of radius `r` about the corners (one quadratic each:
//!   `p` the centre less the corner, `v` their relative motion).
//!
//! A centre whose nearest box point is not a corner lies in one of the two
//! slabs exactly when it is closer than `r`; else in that corner's disk.
//! So the answer is the least entry of the six pieces (its double: the
//! least of their doubles, each correctly rounded or within a relative
//! `2^-36`), or none.
//!
//! The slabs' `a` terms are sums of three doubles (`cx0 - lo0 + r`); the
//! filter's count of roundings ([`super::linear`]) grows by one, within its
//! bound.

use super::linear::{self, Lin};
use super::quadratic::{self, Quad};
use super::Sum;

/// `a + b + c` exactly (terms merged by [`Sum::two`] when it can).
fn three(a: f64, b: f64, c: f64) -> Sum {
    let ab = Sum::two(a, b);
    match ab.terms() {
        [x] => Sum::two(*x, c),
        _ => Sum {
            t: [a, b, c, 0.0],
            n: 3,
        },
    }
}

/// When the box moving from `b0` to `b1` and the circle moving from `c0`
/// to `c1` (rows `x, y, r`; the radius of `c0`) first overlap strictly,
/// as a double in `[0, 1]`, or `None`.
pub fn swept_box_circle(b0: &[f64; 4], b1: &[f64; 4], c0: &[f64; 3], c1: &[f64; 3]) -> Option<f64> {
    let r = c0[2];
    if r <= 0.0 {
        return None;
    }
    // centre above lo (widened by w), and hi above the centre, on axis k
    let above_lo = |k: usize, w: f64| Lin {
        a: three(c0[k], -b0[k], w),
        b: Sum::motion(c0[k], c1[k], b0[k], b1[k]),
    };
    let below_hi = |k: usize, w: f64| Lin {
        a: three(b0[k + 2], -c0[k], w),
        b: Sum::motion(b0[k + 2], b1[k + 2], c0[k], c1[k]),
    };
    let slab = |k: usize| {
        let o = 1 - k;
        let cons = [
            above_lo(k, r),
            below_hi(k, r),
            above_lo(o, 0.0),
            below_hi(o, 0.0),
        ];
        linear::solve(&cons, 1.0).map(|e| linear::entry_f64(&e))
    };
    let corner = |kx: usize, ky: usize| {
        let q = Quad {
            p: [Sum::diff(c0[0], b0[kx]), Sum::diff(c0[1], b0[ky])],
            v: [
                Sum::motion(c0[0], c1[0], b0[kx], b1[kx]),
                Sum::motion(c0[1], c1[1], b0[ky], b1[ky]),
            ],
            r: Sum::one(r),
        };
        quadratic::solve(&q, 1.0).map(|e| quadratic::entry_f64(&e))
    };
    [
        slab(0),
        slab(1),
        corner(0, 1),
        corner(2, 1),
        corner(0, 3),
        corner(2, 3),
    ]
    .into_iter()
    .flatten()
    .reduce(f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::narrow::box_circle_overlap;
    use proptest::prelude::*;

    /// Whether they overlap at `s = n / 64` (exact for these inputs).
    fn at(b0: &[f64; 4], b1: &[f64; 4], c0: &[f64; 3], c1: &[f64; 3], n: i32) -> bool {
        let s = n as f64 / 64.0;
        let l = |a: f64, b: f64| a + s * (b - a);
        let b = [
            l(b0[0], b1[0]),
            l(b0[1], b1[1]),
            l(b0[2], b1[2]),
            l(b0[3], b1[3]),
        ];
        let c = [l(c0[0], c1[0]), l(c0[1], c1[1]), c0[2]];
        box_circle_overlap(&b, &c)
    }

    #[test]
    fn a_circle_through_a_thin_wall_and_past_a_corner() {
        let wall = [20.0, -10.0, 23.0, 10.0];
        let (c0, c1) = ([0.0, 0.0, 2.0], [40.0, 0.0, 2.0]);
        assert_eq!(swept_box_circle(&wall, &wall, &c0, &c1), Some(18.0 / 40.0));
        // past the corner (20, 10) at a distance of exactly 2: no overlap
        let (c0, c1) = ([18.0, 30.0, 2.0], [18.0, 12.0, 2.0]);
        assert_eq!(swept_box_circle(&wall, &wall, &c0, &c1), None);
        // the corner's disk: centre from (0, 11) to (40, 11), radius 2
        let (c0, c1) = ([0.0, 11.0, 2.0], [40.0, 11.0, 2.0]);
        let t = swept_box_circle(&wall, &wall, &c0, &c1).unwrap();
        assert!((t * 40.0 - (20.0 - 3f64.sqrt())).abs() < 1e-12, "{t}");
        // a zero radius: nothing; a flat box is a segment
        assert_eq!(
            swept_box_circle(&wall, &wall, &[21.0, 0.0, 0.0], &[21.0, 0.0, 0.0]),
            None
        );
        let flat = [21.0, -10.0, 21.0, 10.0];
        let c = [22.0, 0.0, 1.0];
        assert_eq!(swept_box_circle(&flat, &flat, &c, &c), None); // tangent
        let c = [21.5, 0.0, 1.0];
        assert_eq!(swept_box_circle(&flat, &flat, &c, &c), Some(0.0));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// Small integers against the narrow phase at 65 sampled `s`: an
        /// overlap at a sample means a `t` at or before it, and no sample
        /// before `t` overlaps (the exact reference is in the Python tests).
        #[test]
        fn against_samples(
            b in prop::array::uniform4(-8i32..8),
            d in prop::array::uniform4(-8i32..8),
            c in prop::array::uniform2(-10i32..10),
            m in prop::array::uniform2(-10i32..10),
            r in 0i32..5,
        ) {
            let f = |v: i32| v as f64;
            let b0 = [f(b[0].min(b[2])), f(b[1].min(b[3])), f(b[0].max(b[2])), f(b[1].max(b[3]))];
            let b1 = [b0[0] + f(d[0]), b0[1] + f(d[1]), (b0[2] + f(d[2])).max(b0[0] + f(d[0])),
                      (b0[3] + f(d[3])).max(b0[1] + f(d[1]))];
            let c0 = [f(c[0]), f(c[1]), f(r)];
            let c1 = [f(c[0] + m[0]), f(c[1] + m[1]), f(r)];
            let got = swept_box_circle(&b0, &b1, &c0, &c1);
            for n in 0..=64 {
                let hit = at(&b0, &b1, &c0, &c1, n);
                if hit {
                    prop_assert!(got.is_some_and(|t| t <= n as f64 / 64.0 + 1e-9), "{n} {got:?}");
                }
                if let Some(t) = got {
                    if (n as f64 / 64.0) < t - 1e-9 {
                        prop_assert!(!hit, "{n} before {t}");
                    }
                }
            }
        }
    }
}
