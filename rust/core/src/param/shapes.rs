//! The exact tests of one candidate: a ray against a box or a ball, two
//! moving boxes or balls; each the constraints of [`super::linear`] or
//! [`super::quadratic`] built from the input doubles, with no rounding.
//! Each is written once over the dimension: a box row of `N = 2 D` doubles
//! ([`crate::dim`]: `[f64; 4]` or `[f64; 6]`), a ball row of `D + 1`
//! ([`BallRow`]: a circle or a sphere).
//!
//! * Ray `o + s d`, `s` in `[0, S]`, in the open box: per axis
//!   `(o - min) + d s > 0` and `(max - o) - d s > 0` (`2 D` constraints).
//! * Boxes moving from `a0` to `a1` and from `b0` to `b1` (each coordinate
//!   `c0 + s (c1 - c0)`, `s` in `[0, 1]`), strictly overlapping: per axis
//!   `hi_b(s) - lo_a(s) > 0` and `hi_a(s) - lo_b(s) > 0`, each
//!   `(hi0 - lo0) + s ((hi1 - hi0) - (lo1 - lo0)) > 0` (`2 D` constraints).
//! * Ray in the ball `(c, r)`: `p = o - c`, `v = d` (`D` terms each).
//! * Balls moving linearly: `p = ca0 - cb0`, `v = (ca1 - ca0) - (cb1 - cb0)`,
//!   radius `ra + rb` (the radii do not change).
//!
//! The sums are the same on every axis, so the number of roundings of each
//! linear test does not depend on the dimension; a quadratic's dot products
//! take one more addition per axis ([`super::quadratic`] counts them).

use super::ends;
use super::linear::{self, Lin, Quick};
use super::quadratic::{self, Quad};
use super::slab;
use super::{exact_sum, Sum};
use crate::dim::{hi, lo, BallRow, Row};

/// Where the ray `o + s d`, `s` in `[0, s_max]`, first is strictly inside
/// the box `b` (2D or 3D, `o` and `d` one value per axis), or `None`.
///
/// Constraint `k`: axis `k / 2`, the near side (`o - min`, `d`) for even
/// `k`, the far side (`max - o`, `-d`) for odd; read in floating point as
/// `fl(a)`, one subtraction of two doubles, and `b` itself: by selections
/// ([`slab::quick`]) when no slope is zero, else by [`linear::quick`], and
/// exactly for what they leave.
#[inline]
pub fn ray_box<const N: usize>(
    b: &[f64; N],
    o: <[f64; N] as Row>::Axes,
    d: <[f64; N] as Row>::Axes,
    s_max: f64,
) -> Option<linear::Entry>
where
    [f64; N]: Row,
{
    let (o, d) = (o.as_ref(), d.as_ref());
    // (x, y, sign of d): a = sign (x - y), b = sign d
    let side = |k: usize| {
        let x = k / 2;
        match k % 2 {
            0 => (o[x], lo(b, x), d[x]),
            _ => (hi(b, x), o[x], -d[x]),
        }
    };
    let lin = |k: usize| {
        let (p, q, v) = side(k);
        Lin {
            a: Sum::diff(p, q),
            b: Sum::one(v),
        }
    };
    if d.iter().all(|&v| v != 0.0) && s_max > 0.0 {
        let a: [f64; N] = std::array::from_fn(|k| side(k).0 - side(k).1);
        let b: [f64; N] = std::array::from_fn(|k| side(k).2);
        if let Some(set) = linear::decided(slab::quick(a, b, s_max), lin) {
            return set;
        }
    }
    linear::solve_with::<N>(
        |k| {
            let (p, q, v) = side(k);
            let a = p - q;
            a.is_finite().then_some((a, v))
        },
        lin,
        s_max,
    )
}

/// Two boxes moving over the frame, `a` from `a0` to `a1` and `b` from `b0`
/// to `b1`, read as the `2 D` gap constraints of [`swept_boxes`].
struct MovingBoxes<'a, const N: usize> {
    a: [&'a [f64; N]; 2],
    b: [&'a [f64; N]; 2],
}

impl<const N: usize> MovingBoxes<'_, N>
where
    [f64; N]: Row,
{
    /// Constraint `k`'s (hi, lo) at the end `e` (0 or 1): axis `k / 2`, the
    /// hi of `b` above the lo of `a` for even `k`, the other way for odd.
    #[inline(always)]
    fn pick(&self, k: usize, e: usize) -> (f64, f64) {
        let (a, b, x) = (self.a[e], self.b[e], k / 2);
        match k % 2 {
            0 => (hi(b, x), lo(a, x)),
            _ => (hi(a, x), lo(b, x)),
        }
    }

    /// The gaps `hi - lo` at the end `e`, each correctly rounded (see
    /// `ends`).
    #[inline(always)]
    fn gaps(&self, e: usize) -> [f64; N] {
        std::array::from_fn(|k| {
            let (h, l) = self.pick(k, e);
            h - l
        })
    }

    /// Constraint `k`, exact.
    #[inline(always)]
    fn lin(&self, k: usize) -> Lin {
        let ((h0, l0), (h1, l1)) = (self.pick(k, 0), self.pick(k, 1));
        Lin {
            a: Sum::diff(h0, l0),
            b: Sum::motion(h0, h1, l0, l1),
        }
    }

    /// What the gaps tell: [`Quick::Zero`] when every gap is open at the
    /// start (`N` exact comparisons), else [`ends::quick`].
    #[inline(always)]
    fn quick(&self) -> Quick {
        let g0 = self.gaps(0);
        if g0.iter().fold(true, |all, &g| all & (g > 0.0)) {
            return Quick::Zero;
        }
        ends::quick(g0, self.gaps(1))
    }

    /// The set exactly, for what [`Self::quick`] leaves: read in floating
    /// point when both motions `hi1 - hi0` and `lo1 - lo0` are doubles
    /// (TwoSum; then `b` has at most two terms, as [`Sum::motion`] builds
    /// it), and compared exactly when still too close.  Rare: out of line.
    #[cold]
    #[inline(never)]
    fn exact(&self) -> Option<linear::Entry> {
        linear::solve_with::<N>(
            |k| {
                let ((h0, l0), (h1, l1)) = (self.pick(k, 0), self.pick(k, 1));
                let (dh, dl) = (exact_sum(h1, -h0)?, exact_sum(l1, -l0)?);
                let (a, b) = (h0 - l0, dh - dl);
                (a.is_finite() && b.is_finite()).then_some((a, b))
            },
            |k| self.lin(k),
            1.0,
        )
    }
}

/// When boxes moving from `a0` to `a1` and from `b0` to `b1` (2D or 3D)
/// first overlap strictly (`s` in `[0, 1]`), or `None`.
///
/// Constraint `k`: axis `k / 2`, the hi of `b` above the lo of `a` for even
/// `k`, the other way for odd.  Boxes that overlap strictly at the start
/// (every `a > 0`, `N` exact comparisons) enter at 0.  Then the gaps at
/// both ends of the frame decide most candidates ([`ends::quick`]); what
/// they leave is read in floating point when both motions `hi1 - hi0` and
/// `lo1 - lo0` are doubles (TwoSum; then `b` has at most two terms, as
/// [`Sum::motion`] builds it), and compared exactly when still too close.
#[inline]
pub fn swept_boxes<const N: usize>(
    a0: &[f64; N],
    a1: &[f64; N],
    b0: &[f64; N],
    b1: &[f64; N],
) -> Option<linear::Entry>
where
    [f64; N]: Row,
{
    let m = MovingBoxes {
        a: [a0, a1],
        b: [b0, b1],
    };
    linear::decided(m.quick(), |k| m.lin(k)).unwrap_or_else(|| m.exact())
}

/// [`swept_boxes`]'s infimum as a double, correctly rounded
/// ([`linear::entry_f64`]): the same decision, with no [`linear::Entry`]
/// built and returned for the candidates the gaps decide (the common
/// path of a sweep stays in registers).
#[inline(always)]
pub fn swept_boxes_t<const N: usize>(
    a0: &[f64; N],
    a1: &[f64; N],
    b0: &[f64; N],
    b1: &[f64; N],
) -> Option<f64>
where
    [f64; N]: Row,
{
    let m = MovingBoxes {
        a: [a0, a1],
        b: [b0, b1],
    };
    match m.quick() {
        Quick::Empty => None,
        Quick::Zero => Some(0.0),
        Quick::Root(k) => Some(linear::root_f64(&m.lin(k))),
        Quick::Unsure => m.exact().map(|e| linear::entry_f64(&e)),
    }
}

/// The constraint of the ray `o + s d` in the ball `c` (`x, y, r` or
/// `x, y, z, r`).
#[inline]
pub fn ray_ball_quad<const C: usize, const D: usize>(
    c: &[f64; C],
    o: [f64; D],
    d: [f64; D],
) -> Quad<D>
where
    [f64; C]: BallRow<D>,
{
    Quad {
        p: std::array::from_fn(|k| Sum::diff(o[k], c[k])),
        v: d.map(Sum::one),
        r: Sum::one(c[D]),
    }
}

/// Where the ray `o + s d`, `s` in `[0, s_max]`, first is strictly inside
/// the ball `c` (a circle or a sphere), or `None`.
#[inline]
pub fn ray_ball<const C: usize, const D: usize>(
    c: &[f64; C],
    o: [f64; D],
    d: [f64; D],
    s_max: f64,
) -> Option<quadratic::Entry<D>>
where
    [f64; C]: BallRow<D>,
{
    quadratic::solve(&ray_ball_quad(c, o, d), s_max)
}

/// [`ray_ball`] of a circle (`x, y, r`): the 2D casts' test.
#[inline]
pub fn ray_circle(c: &[f64; 3], o: [f64; 2], d: [f64; 2], s_max: f64) -> Option<quadratic::Entry> {
    ray_ball(c, o, d, s_max)
}

/// When balls moving from `a0` to `a1` and from `b0` to `b1` (rows
/// `x, y, r` or `x, y, z, r`; the radius of the start row) first overlap
/// strictly (`s` in `[0, 1]`), or `None`.
#[inline]
pub fn swept_balls<const C: usize, const D: usize>(
    a0: &[f64; C],
    a1: &[f64; C],
    b0: &[f64; C],
    b1: &[f64; C],
) -> Option<quadratic::Entry<D>>
where
    [f64; C]: BallRow<D>,
{
    let q = Quad {
        p: std::array::from_fn(|k| Sum::diff(a0[k], b0[k])),
        v: std::array::from_fn(|k| Sum::motion(a0[k], a1[k], b0[k], b1[k])),
        r: Sum::two(a0[D], b0[D]),
    };
    quadratic::solve(&q, 1.0)
}

#[cfg(test)]
mod tests;
