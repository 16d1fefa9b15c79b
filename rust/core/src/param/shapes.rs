//! The exact tests of one candidate: a ray against a box or a circle, two
//! moving boxes or circles; each the constraints of [`super::linear`] or
//! [`super::quadratic`] built from the input doubles, with no rounding.
//!
//! * Ray `o + s d`, `s` in `[0, S]`, in the open box: per axis
//!   `(o - min) + d s > 0` and `(max - o) - d s > 0`.
//! * Boxes moving from `a0` to `a1` and from `b0` to `b1` (each coordinate
//!   `c0 + s (c1 - c0)`, `s` in `[0, 1]`), strictly overlapping: per axis
//!   `hi_b(s) - lo_a(s) > 0` and `hi_a(s) - lo_b(s) > 0`, each
//!   `(hi0 - lo0) + s ((hi1 - hi0) - (lo1 - lo0)) > 0`.
//! * Ray in the circle `(c, r)`: `p = o - c`, `v = d`.
//! * Circles moving linearly: `p = ca0 - cb0`, `v = (ca1 - ca0) - (cb1 - cb0)`,
//!   radius `ra + rb` (the radii do not change).

use super::ends;
use super::linear::{self, Lin};
use super::quadratic::{self, Quad};
use super::slab;
use super::{exact_sum, Sum};

/// Where the ray `o + s d`, `s` in `[0, s_max]`, first is strictly inside
/// the box `b` (`minx, miny, maxx, maxy`), or `None`.
///
/// Constraint `k`: axis `k / 2`, the near side (`o - min`, `d`) for even
/// `k`, the far side (`max - o`, `-d`) for odd; read in floating point as
/// `fl(a)`, one subtraction of two doubles, and `b` itself: by selections
/// ([`slab::quick`]) when no slope is zero, else by [`linear::quick`], and
/// exactly for what they leave.
#[inline]
pub fn ray_box(b: &[f64; 4], o: [f64; 2], d: [f64; 2], s_max: f64) -> Option<linear::Entry> {
    // (x, y, sign of d): a = sign (x - y), b = sign d
    let side = |k: usize| {
        let x = k / 2;
        match k % 2 {
            0 => (o[x], b[x], d[x]),
            _ => (b[x + 2], o[x], -d[x]),
        }
    };
    let lin = |k: usize| {
        let (p, q, v) = side(k);
        Lin {
            a: Sum::diff(p, q),
            b: Sum::one(v),
        }
    };
    if d[0] != 0.0 && d[1] != 0.0 && s_max > 0.0 {
        let a: [f64; 4] = std::array::from_fn(|k| side(k).0 - side(k).1);
        let b: [f64; 4] = std::array::from_fn(|k| side(k).2);
        if let Some(set) = linear::decided(slab::quick(a, b, s_max), lin) {
            return set;
        }
    }
    linear::solve_with::<4>(
        |k| {
            let (p, q, v) = side(k);
            let a = p - q;
            a.is_finite().then_some((a, v))
        },
        lin,
        s_max,
    )
}

/// When boxes moving from `a0` to `a1` and from `b0` to `b1` first overlap
/// strictly (`s` in `[0, 1]`), or `None`.
///
/// Constraint `k`: axis `k / 2`, the hi of `b` above the lo of `a` for even
/// `k`, the other way for odd.  Boxes that overlap strictly at the start
/// (every `a > 0`, four exact comparisons) enter at 0.  Then the gaps at
/// both ends of the frame decide most candidates ([`ends::quick`]); what
/// they leave is read in floating point when both motions `hi1 - hi0` and
/// `lo1 - lo0` are doubles (TwoSum; then `b` has at most two terms, as
/// [`Sum::motion`] builds it), and compared exactly when still too close.
#[inline]
pub fn swept_boxes(
    a0: &[f64; 4],
    a1: &[f64; 4],
    b0: &[f64; 4],
    b1: &[f64; 4],
) -> Option<linear::Entry> {
    // the constraints' gaps at both ends of the frame (see `ends`); all
    // open at the start: the boxes overlap there (`boxes_overlap`)
    let gaps = |a: &[f64; 4], b: &[f64; 4]| [b[2] - a[0], a[2] - b[0], b[3] - a[1], a[3] - b[1]];
    let g0 = gaps(a0, b0);
    if g0.iter().fold(true, |all, &g| all & (g > 0.0)) {
        return Some(linear::Entry::Zero);
    }
    let quick = ends::quick(g0, gaps(a1, b1));
    // (hi at 0, hi at 1, lo at 0, lo at 1)
    let sides = |k: usize| {
        let x = k / 2;
        let ((h0, h1), (l0, l1)) = match k % 2 {
            0 => ((b0, b1), (a0, a1)),
            _ => ((a0, a1), (b0, b1)),
        };
        (h0[x + 2], h1[x + 2], l0[x], l1[x])
    };
    let lin = |k: usize| {
        let (h0, h1, l0, l1) = sides(k);
        Lin {
            a: Sum::diff(h0, l0),
            b: Sum::motion(h0, h1, l0, l1),
        }
    };
    if let Some(set) = linear::decided(quick, lin) {
        return set;
    }
    linear::solve_with::<4>(
        |k| {
            let (h0, h1, l0, l1) = sides(k);
            let (dh, dl) = (exact_sum(h1, -h0)?, exact_sum(l1, -l0)?);
            let (a, b) = (h0 - l0, dh - dl);
            (a.is_finite() && b.is_finite()).then_some((a, b))
        },
        lin,
        1.0,
    )
}

/// The constraint of the ray `o + s d` in the circle `c` (`x, y, r`).
#[inline]
pub fn ray_circle_quad(c: &[f64; 3], o: [f64; 2], d: [f64; 2]) -> Quad {
    Quad {
        p: [Sum::diff(o[0], c[0]), Sum::diff(o[1], c[1])],
        v: [Sum::one(d[0]), Sum::one(d[1])],
        r: Sum::one(c[2]),
    }
}

/// Where the ray `o + s d`, `s` in `[0, s_max]`, first is strictly inside
/// the circle `c` (`x, y, r`), or `None`.
#[inline]
pub fn ray_circle(c: &[f64; 3], o: [f64; 2], d: [f64; 2], s_max: f64) -> Option<quadratic::Entry> {
    quadratic::solve(&ray_circle_quad(c, o, d), s_max)
}

/// When circles moving from `a0` to `a1` and from `b0` to `b1` (rows
/// `x, y, r`; the radius of the start row) first overlap strictly (`s` in
/// `[0, 1]`), or `None`.
#[inline]
pub fn swept_circles(
    a0: &[f64; 3],
    a1: &[f64; 3],
    b0: &[f64; 3],
    b1: &[f64; 3],
) -> Option<quadratic::Entry> {
    let q = Quad {
        p: [Sum::diff(a0[0], b0[0]), Sum::diff(a0[1], b0[1])],
        v: [
            Sum::motion(a0[0], a1[0], b0[0], b1[0]),
            Sum::motion(a0[1], a1[1], b0[1], b1[1]),
        ],
        r: Sum::two(a0[2], b0[2]),
    };
    quadratic::solve(&q, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Small integers times `2^e`, some moved by an ulp (near-ties), as
    /// boxes (`min <= max`).
    fn boxes_of(v: &[i64], e: i32, ulps: u16) -> Vec<[f64; 4]> {
        let f = |k: usize| {
            let x = v[k] as f64 * (e as f64).exp2();
            match (ulps >> (k % 16)) & 3 {
                1 => x.next_up(),
                2 => x.next_down(),
                _ => x,
            }
        };
        (0..v.len() / 4)
            .map(|r| {
                let c = |k: usize| f(4 * r + k);
                [
                    c(0).min(c(2)),
                    c(1).min(c(3)),
                    c(0).max(c(2)),
                    c(1).max(c(3)),
                ]
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The boxes' float reading (`solve_with`) gives what the exact
        /// path gives on the constraints of the module docs: near-ties one
        /// ulp apart, zero motion, subnormal to huge scales.
        #[test]
        fn swept_boxes_agree_with_the_exact_path(
            v in proptest::collection::vec(prop_oneof![-4i64..4, -3000i64..3000], 16),
            e in prop_oneof![-1074i32..-1000, -60i32..60, 960i32..1010],
            ulps in any::<u16>(), still in 0u8..4,
        ) {
            let r = boxes_of(&v, e, ulps);
            let (a0, b0) = (r[0], r[1]);
            let a1 = if still & 1 == 1 { a0 } else { r[2] };
            let b1 = if still & 2 == 2 { b0 } else { r[3] };
            let c = |h0: &[f64; 4], h1: &[f64; 4], l0: &[f64; 4], l1: &[f64; 4], k: usize| Lin {
                a: Sum::diff(h0[k + 2], l0[k]),
                b: Sum::motion(h0[k + 2], h1[k + 2], l0[k], l1[k]),
            };
            let cons = [
                c(&b0, &b1, &a0, &a1, 0),
                c(&a0, &a1, &b0, &b1, 0),
                c(&b0, &b1, &a0, &a1, 1),
                c(&a0, &a1, &b0, &b1, 1),
            ];
            prop_assert_eq!(swept_boxes(&a0, &a1, &b0, &b1), linear::solve_exact(&cons, 1.0));
        }

        /// The same for rays (origin and direction from the same values).
        #[test]
        fn ray_box_agrees_with_the_exact_path(
            v in proptest::collection::vec(prop_oneof![-4i64..4, -3000i64..3000], 8),
            e in prop_oneof![-1074i32..-1000, -60i32..60, 960i32..1010],
            ulps in any::<u16>(), s_max in prop_oneof![Just(f64::INFINITY), Just(0.0), Just(1.0), Just(0.5)],
        ) {
            let r = boxes_of(&v, e, ulps);
            let (b, w) = (r[0], r[1]);
            let (o, d) = ([w[0], w[1]], [w[2] - w[0], w[3] - w[1]]);
            let cons: Vec<Lin> = (0..2)
                .flat_map(|k| {
                    [
                        Lin { a: Sum::diff(o[k], b[k]), b: Sum::one(d[k]) },
                        Lin { a: Sum::diff(b[k + 2], o[k]), b: Sum::one(-d[k]) },
                    ]
                })
                .collect();
            prop_assert_eq!(ray_box(&b, o, d, s_max), linear::solve_exact(&cons, s_max));
        }
    }

    #[test]
    fn boxes_that_do_not_move_overlap_as_boxes() {
        let a = [0.0, 0.0, 2.0, 2.0];
        for (b, want) in [
            ([1.0, 1.0, 3.0, 3.0], true),
            ([2.0, 0.0, 4.0, 1.0], false), // touching
            ([5.0, 5.0, 6.0, 6.0], false),
        ] {
            assert_eq!(swept_boxes(&a, &a, &b, &b).is_some(), want, "{b:?}");
        }
    }

    #[test]
    fn a_fast_bullet_through_a_thin_wall() {
        // a 4-wide bullet moving 40 to the right through a 3-wide wall
        let (b0, b1) = ([0.0, 0.0, 4.0, 4.0], [40.0, 0.0, 44.0, 4.0]);
        let wall = [20.0, -10.0, 23.0, 10.0];
        let e = swept_boxes(&b0, &b1, &wall, &wall).unwrap();
        assert_eq!(linear::entry_f64(&e), 0.4); // x + 4 > 20 from s = 16/40
                                                // moving along the wall's face: never strictly inside
        let (c0, c1) = ([16.0, -30.0, 20.0, -26.0], [16.0, 30.0, 20.0, 34.0]);
        assert_eq!(swept_boxes(&c0, &c1, &wall, &wall), None);
    }

    #[test]
    fn rays_graze_edges_and_corners_without_a_hit() {
        let b = [0.0, 0.0, 1.0, 1.0];
        let inf = f64::INFINITY;
        assert_eq!(ray_box(&b, [-1.0, 1.0], [1.0, 0.0], inf), None); // along the top
        assert_eq!(ray_box(&b, [-1.0, 0.0], [1.0, 1.0], inf), None); // the corner (0, 1)
        assert!(ray_box(&b, [-1.0, 2.0], [1.0, -1.0], inf).is_some()); // the diagonal
        assert_eq!(
            ray_box(&b, [0.5, 0.5], [0.0, 0.0], 0.0),
            Some(linear::Entry::Zero)
        );
        assert_eq!(ray_box(&b, [-0.0, 0.5], [-0.0, 1.0], inf), None); // on the left edge
        let e = ray_box(&b, [-1.0, 0.5], [2.0, -0.0], inf).unwrap();
        assert_eq!(linear::entry_f64(&e), 0.5);
    }

    #[test]
    fn circles() {
        let c = [0.0, 0.0, 1.0];
        let e = ray_circle(&c, [-3.0, 0.0], [1.0, 0.0], f64::INFINITY).unwrap();
        assert_eq!(quadratic::entry_f64(&e), 2.0);
        assert_eq!(ray_circle(&c, [-3.0, 1.0], [1.0, 0.0], f64::INFINITY), None);
        // two circles passing through each other in one frame
        let (a0, a1) = ([-10.0, 0.0, 1.0], [10.0, 0.0, 1.0]);
        let b = [0.0, 0.0, 1.0];
        let e = swept_circles(&a0, &a1, &b, &b).unwrap();
        assert_eq!(quadratic::entry_f64(&e), 0.4);
        let (a0, a1) = ([-10.0, 2.0, 1.0], [10.0, 2.0, 1.0]); // grazing
        assert_eq!(swept_circles(&a0, &a1, &b, &b), None);
    }
}
