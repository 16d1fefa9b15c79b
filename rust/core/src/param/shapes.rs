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

use super::linear::{self, Lin};
use super::quadratic::{self, Quad};
use super::Sum;

/// Where the ray `o + s d`, `s` in `[0, s_max]`, first is strictly inside
/// the box `b` (`minx, miny, maxx, maxy`), or `None`.
#[inline]
pub fn ray_box(b: &[f64; 4], o: [f64; 2], d: [f64; 2], s_max: f64) -> Option<linear::Entry> {
    let c = |k: usize| {
        [
            Lin {
                a: Sum::diff(o[k], b[k]),
                b: Sum::one(d[k]),
            },
            Lin {
                a: Sum::diff(b[k + 2], o[k]),
                b: Sum::one(-d[k]),
            },
        ]
    };
    let [x0, x1] = c(0);
    let [y0, y1] = c(1);
    linear::solve(&[x0, x1, y0, y1], s_max)
}

/// When boxes moving from `a0` to `a1` and from `b0` to `b1` first overlap
/// strictly (`s` in `[0, 1]`), or `None`.
#[inline]
pub fn swept_boxes(
    a0: &[f64; 4],
    a1: &[f64; 4],
    b0: &[f64; 4],
    b1: &[f64; 4],
) -> Option<linear::Entry> {
    // hi of `h` above lo of `l` on axis k
    let c = |h0: &[f64; 4], h1: &[f64; 4], l0: &[f64; 4], l1: &[f64; 4], k: usize| Lin {
        a: Sum::diff(h0[k + 2], l0[k]),
        b: Sum::motion(h0[k + 2], h1[k + 2], l0[k], l1[k]),
    };
    let cons = [
        c(b0, b1, a0, a1, 0),
        c(a0, a1, b0, b1, 0),
        c(b0, b1, a0, a1, 1),
        c(a0, a1, b0, b1, 1),
    ];
    linear::solve(&cons, 1.0)
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
