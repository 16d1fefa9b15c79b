//! A moving box against a moving ball (a circle, or a sphere in 3D): when
//! they first overlap strictly.  Written once over the dimension.
//!
//! The box moves from `b0` to `b1` (each coordinate linearly, so its size
//! may change), the ball's centre from `c0` to `c1`, its radius `r` fixed;
//! `s` in `[0, 1]`.  They overlap as the narrow phase says
//! (`narrow::box_circle_overlap`, `box_sphere_overlap`): when the point of
//! the closed box nearest the centre lies strictly inside the ball, that is
//! when the centre is closer than `r` to the closed box (a flat box too; a
//! radius of 0 is an empty ball: never).
//!
//! # The pieces
//! With `r > 0`, `{c : dist(c, box) < r}` is the union of open pieces, one
//! per non-empty set `K` of axes (those on which the centre is not strictly
//! between the box's sides) and, for `|K| >= 2`, a side per axis of `K`:
//! * `K = {k}`: the box widened by `r` across axis `k`, open along the
//!   others: `lo_k - r < c_k < hi_k + r`, `lo_o < c_o < hi_o` (linear);
//! * `|K| >= 2`: the centre within `r` of the box's corner point on the
//!   axes of `K` (one quadratic over those axes, `p` the centre less the
//!   corner, `v` their relative motion) and open along the others (linear).
//!   In 2D these are the four corners' disks; in 3D the twelve edges (a
//!   quadratic of two axes and two linear constraints: [`super::joint`])
//!   and the eight corners' balls.
//!
//! Each piece lies within `r` of the box (the box's point that takes the
//! centre's coordinates off `K` and the corner's on `K` is that close).
//! Conversely, with `K` the axes where the centre is not strictly inside
//! and on each the nearer side, the centre lies in `K`'s piece when closer
//! than `r` (its distance is the corner's on those axes).  So the answer is
//! the least entry of the pieces (as a double: the least of their doubles,
//! each correctly rounded or within a relative `2^-36`), or none: 6 pieces
//! in 2D, 23 in 3D.  A piece's quadratic over fewer axes than the box has
//! is a [`Quad`] of every axis with zero terms off `K` (exact zeros: no
//! rounding, no change to the filter's count).
//!
//! The slabs' `a` terms are sums of three doubles (`cx0 - lo0 + r`); the
//! filter's count of roundings ([`super::linear`]) grows by one, within its
//! bound.

use super::joint;
use super::linear::{self, Lin};
use super::quadratic::{self, Quad};
use super::Sum;
use crate::dim::{BallRow, Row};

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

/// When the box moving from `b0` to `b1` (2D or 3D) and the ball moving
/// from `c0` to `c1` (rows `x, y, r` or `x, y, z, r`; the radius of `c0`)
/// first overlap strictly, as a double in `[0, 1]`, or `None`.
pub fn swept_box_ball<const N: usize, const C: usize, const D: usize>(
    b0: &[f64; N],
    b1: &[f64; N],
    c0: &[f64; C],
    c1: &[f64; C],
) -> Option<f64>
where
    [f64; N]: Row,
    [f64; C]: BallRow<D>,
{
    let r = c0[D];
    if r <= 0.0 {
        return None;
    }
    // centre above lo (widened by w), and hi above the centre, on axis k
    let above_lo = |k: usize, w: f64| Lin {
        a: three(c0[k], -b0[k], w),
        b: Sum::motion(c0[k], c1[k], b0[k], b1[k]),
    };
    let below_hi = |k: usize, w: f64| Lin {
        a: three(b0[D + k], -c0[k], w),
        b: Sum::motion(b0[D + k], b1[D + k], c0[k], c1[k]),
    };
    // open along the axes off `axes` (a bit set)
    let open_off = |axes: usize| -> Vec<Lin> {
        (0..D)
            .filter(|o| axes >> o & 1 == 0)
            .flat_map(|o| [above_lo(o, 0.0), below_hi(o, 0.0)])
            .collect()
    };
    let slab = |k: usize| {
        let mut cons = vec![above_lo(k, r), below_hi(k, r)];
        cons.extend(open_off(1 << k));
        linear::solve(&cons, 1.0).map(|e| linear::entry_f64(&e))
    };
    // the corner on the axes of `axes`: the high side on those of `high`
    let corner = |axes: usize, high: usize| {
        let at = |k: usize| k + if high >> k & 1 == 1 { D } else { 0 };
        let on = |k: usize| axes >> k & 1 == 1;
        let q: Quad<D> = Quad {
            p: std::array::from_fn(|k| match on(k) {
                true => Sum::diff(c0[k], b0[at(k)]),
                false => Sum::one(0.0),
            }),
            v: std::array::from_fn(|k| match on(k) {
                true => Sum::motion(c0[k], c1[k], b0[at(k)], b1[at(k)]),
                false => Sum::one(0.0),
            }),
            r: Sum::one(r),
        };
        let cons = open_off(axes);
        match cons.is_empty() {
            true => quadratic::solve(&q, 1.0).map(|e| quadratic::entry_f64(&e)),
            false => joint::solve(&q, &cons, 1.0).map(|e| joint::entry_f64(&e)),
        }
    };
    let all = (1usize << D) - 1;
    let mut best: Option<f64> = None;
    let mut keep = |t: Option<f64>| {
        if let Some(t) = t {
            best = Some(best.map_or(t, |b| b.min(t)));
        }
    };
    for axes in 1..=all {
        if axes.count_ones() == 1 {
            keep(slab(axes.trailing_zeros() as usize));
            continue;
        }
        // every choice of sides on the axes of `axes`
        for high in 0..=all {
            if high & !axes == 0 {
                keep(corner(axes, high));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A rational `n / d`, `d > 0`.
    type Ratio = (i128, i128);

    fn less(x: Ratio, y: Ratio) -> bool {
        x.0 * y.1 < y.0 * x.1
    }

    /// The exact answer by another route: the centre's distance to the
    /// box, squared, is one quadratic in `s` between the moments where a
    /// coordinate of the centre crosses a side of the box (on each piece
    /// the axes it is outside of, and on which side, do not change), and
    /// continuous; the first piece where its least value, at the vertex
    /// clamped to the piece, is below `r^2` holds the entry: the piece's
    /// start if already inside there (only at 0), else the quadratic's
    /// smaller root.  Integers: the box `(b0, b1)` and the centre `(c0, c1)`
    /// at both ends, rows of `2 D` and `D`.
    fn reference<const D: usize>(b: (&[i64], &[i64]), c: (&[i64], &[i64]), r: i64) -> Option<f64> {
        let line = |k: usize, side: usize| {
            // the centre less the side: a + b s
            let (l0, l1) = (b.0[side * D + k] as i128, b.1[side * D + k] as i128);
            let (x0, x1) = (c.0[k] as i128, c.1[k] as i128);
            (x0 - l0, (x1 - x0) - (l1 - l0))
        };
        let mut cuts: Vec<Ratio> = vec![(0, 1), (1, 1)];
        for k in 0..D {
            for side in 0..2 {
                let (a, bb) = line(k, side);
                let root = if bb > 0 { (-a, bb) } else { (a, -bb) };
                if bb != 0 && less((0, 1), root) && less(root, (1, 1)) {
                    cuts.push(root);
                }
            }
        }
        cuts.sort_by(|x, y| (x.0 * y.1).cmp(&(y.0 * x.1)));
        for w in cuts.windows(2) {
            let (lo, hi) = (w[0], w[1]);
            if !less(lo, hi) {
                continue;
            }
            // the axes outside at the middle, and the side: a sum of squares
            let mid = (lo.0 * hi.1 + hi.0 * lo.1, 2 * lo.1 * hi.1);
            let (mut qa, mut qb, mut qc) = (0i128, 0i128, -(r as i128) * (r as i128));
            for k in 0..D {
                let at = |(a, bb): (i128, i128)| a * mid.1 + bb * mid.0; // times mid.1
                let (below, above) = (line(k, 0), line(k, 1));
                let g = match (at(below) < 0, at(above) > 0) {
                    (true, _) => below,
                    (_, true) => above,
                    _ => continue,
                };
                (qa, qb, qc) = (qa + g.1 * g.1, qb + g.0 * g.1, qc + g.0 * g.0);
            }
            let f = |(n, d): Ratio| qa * n * n + 2 * qb * n * d + qc * d * d;
            let least = match qa {
                0 => qc,
                _ => {
                    let v = (-qb, qa);
                    f(if less(v, lo) {
                        lo
                    } else if less(hi, v) {
                        hi
                    } else {
                        v
                    })
                }
            };
            if least < 0 {
                if f(lo) < 0 {
                    return Some(lo.0 as f64 / lo.1 as f64);
                }
                let disc = (qb * qb - qa * qc) as f64;
                return Some(qc as f64 / (disc.sqrt() - qb as f64));
            }
        }
        None
    }

    /// A box and a ball of small integers (the box's size may change):
    /// the reference's decision, and its entry within the bound.
    fn against_reference<const N: usize, const C: usize, const D: usize>(
        b: &[i64],
        d: &[i64],
        c: &[i64],
        m: &[i64],
        r: i64,
    ) -> Result<(), TestCaseError>
    where
        [f64; N]: Row,
        [f64; C]: BallRow<D>,
    {
        let ib0: Vec<i64> = (0..N)
            .map(|k| match k < D {
                true => b[k].min(b[k + D]),
                false => b[k - D].max(b[k]),
            })
            .collect();
        let ib1: Vec<i64> = (0..N)
            .map(|k| match k < D {
                true => ib0[k] + d[k],
                false => (ib0[k] + d[k]).max(ib0[k - D] + d[k - D]),
            })
            .collect();
        let ic1: Vec<i64> = (0..D).map(|k| c[k] + m[k]).collect();
        let f = |v: &[i64], k: usize| v.get(k).map_or(r as f64, |&x| x as f64);
        let (b0, b1): ([f64; N], [f64; N]) = (
            std::array::from_fn(|k| ib0[k] as f64),
            std::array::from_fn(|k| ib1[k] as f64),
        );
        let (c0, c1): ([f64; C], [f64; C]) = (
            std::array::from_fn(|k| f(&c[..D], k)),
            std::array::from_fn(|k| f(&ic1, k)),
        );
        let got = swept_box_ball(&b0, &b1, &c0, &c1);
        let want = match r {
            0 => None, // an empty ball
            _ => reference::<D>((&ib0, &ib1), (&c[..D], &ic1), r),
        };
        prop_assert_eq!(
            got.is_some(),
            want.is_some(),
            "{:?} against {:?}",
            got,
            want
        );
        if let (Some(t), Some(w)) = (got, want) {
            prop_assert!(
                (t - w).abs() <= w * (2f64.powi(-36) + 2f64.powi(-48)),
                "{} {}",
                t,
                w
            );
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// Small integers against the reference, in 2D and in 3D.
        #[test]
        fn against_the_pieces_of_the_motion(
            b in prop::array::uniform6(-8i64..8),
            d in prop::array::uniform6(prop_oneof![Just(0i64), -8i64..8]),
            c in prop::array::uniform3(-10i64..10),
            m in prop::array::uniform3(prop_oneof![Just(0i64), -10i64..10]),
            r in 0i64..5,
        ) {
            let two = |v: [i64; 6]| [v[0], v[1], v[3], v[4]];
            against_reference::<4, 3, 2>(&two(b), &two(d), &c[..2], &m[..2], r)?;
            against_reference::<6, 4, 3>(&b, &d, &c, &m, r)?;
        }
    }

    #[test]
    fn a_circle_through_a_thin_wall_and_past_a_corner() {
        let wall = [20.0, -10.0, 23.0, 10.0];
        let (c0, c1) = ([0.0, 0.0, 2.0], [40.0, 0.0, 2.0]);
        assert_eq!(swept_box_ball(&wall, &wall, &c0, &c1), Some(18.0 / 40.0));
        // past the corner (20, 10) at a distance of exactly 2: no overlap
        let (c0, c1) = ([18.0, 30.0, 2.0], [18.0, 12.0, 2.0]);
        assert_eq!(swept_box_ball(&wall, &wall, &c0, &c1), None);
        // the corner's disk: centre from (0, 11) to (40, 11), radius 2
        let (c0, c1) = ([0.0, 11.0, 2.0], [40.0, 11.0, 2.0]);
        let t = swept_box_ball(&wall, &wall, &c0, &c1).unwrap();
        assert!((t * 40.0 - (20.0 - 3f64.sqrt())).abs() < 1e-12, "{t}");
        // a zero radius: nothing; a flat box is a segment
        assert_eq!(
            swept_box_ball(&wall, &wall, &[21.0, 0.0, 0.0], &[21.0, 0.0, 0.0]),
            None
        );
        let flat = [21.0, -10.0, 21.0, 10.0];
        let c = [22.0, 0.0, 1.0];
        assert_eq!(swept_box_ball(&flat, &flat, &c, &c), None); // tangent
        let c = [21.5, 0.0, 1.0];
        assert_eq!(swept_box_ball(&flat, &flat, &c, &c), Some(0.0));
    }

    #[test]
    fn a_sphere_through_a_face_past_an_edge_and_a_corner() {
        let cube = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
        let still = |c: [f64; 4]| (c, c);
        let go = |a: [f64; 3], b: [f64; 3], r: f64| ([a[0], a[1], a[2], r], [b[0], b[1], b[2], r]);
        let t = |(c0, c1): ([f64; 4], [f64; 4])| swept_box_ball(&cube, &cube, &c0, &c1);
        // head-on through the top face: z - 1 < 1 from z = 2, at s = 3/10
        assert_eq!(t(go([0.5, 0.5, 5.0], [0.5, 0.5, -5.0], 1.0)), Some(0.3));
        // diagonally at the edge x = y = 1: |(x - 1, x - 1)| < 1 from
        // x = 1 + 1/sqrt 2, an edge's piece (0 < z < 1 the whole way)
        let e = t(go([5.0, 5.0, 0.5], [-5.0, -5.0, 0.5], 1.0)).unwrap();
        let want = (4.0 - 0.5f64.sqrt()) / 10.0;
        assert!((e - want).abs() <= want * 2f64.powi(-36), "{e} {want}");
        // along that edge at a distance of exactly 5 (a 3-4-5 triangle):
        // grazing, no overlap; a radius one ulp more: from the start
        assert_eq!(t(go([4.0, 5.0, -10.0], [4.0, 5.0, 10.0], 5.0)), None);
        let r = 5f64.next_up();
        assert!(t(go([4.0, 5.0, -10.0], [4.0, 5.0, 10.0], r)).is_some());
        // past the corner (1, 1, 1), closest at (2, 3, 3), a distance of
        // exactly 3 = |(1, 2, 2)| (moving along (2, -1, 0), square to it)
        let (a, b) = ([-8.0, 8.0, 3.0], [12.0, -2.0, 3.0]);
        assert_eq!(t(go(a, b, 3.0)), None);
        let e = t(go(a, b, 3f64.next_up())).unwrap();
        assert!((e - 0.5).abs() < 1e-7, "{e}"); // about the middle of the frame
                                                // inside from the start, still; touching a face, still
        assert_eq!(t(still([0.5, 0.5, 0.5, 0.1])), Some(0.0));
        assert_eq!(t(still([0.5, 0.5, 2.0, 1.0])), None);
        assert_eq!(t(still([0.5, 0.5, 2.0, 0.0])), None);
    }
}
