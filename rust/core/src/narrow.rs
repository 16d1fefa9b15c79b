//! Narrow phase: the exact overlap predicates and the pair filters.
//!
//! Every broad-phase kernel ends in [`Narrow::accept`], so every method
//! applies the same rules and their results can be compared for exact
//! equality.
//!
//! **Box rule**: two boxes collide when their open interiors intersect, i.e.
//! the overlap has positive length on both axes ([`boxes_overlap`]).  The four
//! comparisons are exact on floats.
//!
//! **Circle rule**: `|c1 - c2| < r1 + r2`.  Evaluated naively in floating
//! point the two sides can round across each other, so [`circle_overlap`]
//! first tries a float filter whose error bound is proven below, and only for
//! the rare undecided cases falls back to error-free transformations (TwoSum,
//! TwoProduct) and an exact expansion sum whose sign is the answer, or, for
//! magnitudes where those could underflow, to integer arithmetic
//! (`bigint`).
//!
//! **Filters** (Box2D style): two objects of the same non-zero group never
//! collide; a pair is kept only if `categories[i] & masks[j]` and
//! `categories[j] & masks[i]` are both non-zero (a missing array means all
//! bits).

use crate::bigint::circle_sign;

/// Relative error bound of the float filter.  `dx`, `dy`, `s` each carry one
/// rounding (relative error `u = 2^-53`); squaring adds one more and doubles
/// the first, the sum adds one: `|lhs~ - lhs| <= 4u(1+u)^4 lhs` and likewise
/// `3u` for `rhs`.  `1e-14` is about `45u`, far above the bound, so a decided
/// comparison is the exact one.
const FILTER_TOL: f64 = 1e-14;
/// With every non-zero input inside this window, the parts of the
/// differences (multiples of `2^-452`), the products and their error terms
/// (multiples of `2^-904`) stay normal and nothing exceeds `2^802`: the
/// expansion is exact.
const EXACT_LO: f64 = f64::from_bits((1023 - 400) << 52); // 2^-400
const EXACT_HI: f64 = f64::from_bits((1023 + 400) << 52); // 2^400

/// Strict overlap of two boxes `[minx, miny, maxx, maxy]`: positive length on both axes.
#[inline(always)]
pub fn boxes_overlap(a: &[f64; 4], b: &[f64; 4]) -> bool {
    (a[0] < b[2]) & (b[0] < a[2]) & (a[1] < b[3]) & (b[1] < a[3])
}

/// Knuth's TwoSum: `s + e == a + b` exactly (no overflow assumed).
/// Boxes as four coordinate columns, `minx, miny, maxx, maxy` (the layout
/// whose box tests [`overlap_mask`] runs in blocks).
pub type Columns<'a> = [&'a [f64]; 4];

/// Bit `t` set when box `a` strictly overlaps box `t` of the columns (at
/// most 64 rows).
///
/// The same four comparisons as [`boxes_overlap`], over contiguous columns
/// and into a mask with no branch, which the compiler vectorises; callers
/// then visit only the set bits, the few overlapping boxes.
#[inline(always)]
pub fn overlap_mask(a: &[f64; 4], cols: Columns) -> u64 {
    let [x0, y0, x1, y1] = cols;
    let len = x0.len();
    debug_assert!(len <= 64 && y0.len() == len && x1.len() == len && y1.len() == len);
    let (y0, x1, y1) = (&y0[..len], &x1[..len], &y1[..len]);
    let mut mask = 0u64;
    for t in 0..len {
        let keep = (a[0] < x1[t]) & (x0[t] < a[2]) & (a[1] < y1[t]) & (y0[t] < a[3]);
        mask |= (keep as u64) << t;
    }
    mask
}

/// `(s, e)` with `s` the rounded `a + b` and `a + b = s + e` exactly when `s`
/// is finite (Knuth's two-sum: no condition on the magnitudes).
#[inline(always)]
pub(crate) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// Dekker's split into two 26-bit halves: `a == hi + lo` exactly.
#[inline(always)]
fn split(a: f64) -> (f64, f64) {
    let c = 134_217_729.0 * a;
    let hi = c - (c - a);
    (hi, a - hi)
}

/// Dekker's TwoProduct: `p + e == a * b` exactly (no under/overflow).
#[inline(always)]
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
}

/// Push the 6 exact terms of `sign * (h + lo)^2`.
fn push_square(terms: &mut Vec<f64>, h: f64, lo: f64, sign: f64) {
    for (a, b) in [(h, h), (h, 2.0 * lo), (lo, lo)] {
        let (p, e) = two_prod(a, b);
        terms.push(sign * p);
        terms.push(sign * e);
    }
}

/// Sign of `(dxh+dxl)^2 + (dyh+dyl)^2 - (sh+sl)^2`, computed exactly.
///
/// The 18 product terms are added with Shewchuk's Grow-Expansion, which keeps
/// a non-overlapping expansion whose most significant non-zero component
/// carries the sign of the exact sum.
fn expansion_sign(dx: (f64, f64), dy: (f64, f64), s: (f64, f64)) -> i32 {
    let mut terms = Vec::with_capacity(18);
    push_square(&mut terms, dx.0, dx.1, 1.0);
    push_square(&mut terms, dy.0, dy.1, 1.0);
    push_square(&mut terms, s.0, s.1, -1.0);
    let mut exp = [0.0f64; 19];
    let mut m = 0;
    for &t in &terms {
        let mut q = t;
        for e in exp.iter_mut().take(m) {
            let (s, h) = two_sum(q, *e);
            q = s;
            *e = h;
        }
        exp[m] = q;
        m += 1;
    }
    for &e in exp[..m].iter().rev() {
        if e > 0.0 {
            return 1;
        }
        if e < 0.0 {
            return -1;
        }
    }
    0
}

#[inline(always)]
fn in_window(v: f64) -> bool {
    let a = v.abs();
    a == 0.0 || (EXACT_LO..=EXACT_HI).contains(&a)
}

/// Exact test of `hypot(x1 - x2, y1 - y2) < r1 + r2` for finite inputs, radii >= 0.
///
/// A float filter decides almost every pair; the undecided rest go to the
/// exact arithmetic (kept out of line so the pair loops stay small).
#[inline(always)]
pub fn circle_overlap(x1: f64, y1: f64, r1: f64, x2: f64, y2: f64, r2: f64) -> bool {
    let dx = x1 - x2;
    let dy = y1 - y2;
    let s = r1 + r2;
    let lhs = dx * dx + dy * dy;
    let rhs = s * s;
    if lhs > 1e-280 && rhs > 1e-280 && lhs < 1e280 && rhs < 1e280 {
        let gap = rhs - lhs;
        let tol = FILTER_TOL * (lhs + rhs);
        if gap > tol {
            return true;
        }
        if gap < -tol {
            return false;
        }
    } else if s == 0.0 {
        return false; // two points (zero radii) never overlap
    } else if dx == 0.0 && dy == 0.0 {
        // One centre (a float difference is zero only for equal operands): they
        // overlap as `s > 0`. Common where objects spawn at one point.
        return true;
    }
    exact_overlap(x1, y1, r1, x2, y2, r2)
}

/// The exact circle test of the pairs the float filter leaves undecided.
///
/// An exact expansion when every non-zero input lies between `2^-400` and
/// `2^400` (no product or product error under- or overflows there), integer
/// arithmetic otherwise.
#[inline(never)]
pub fn exact_overlap(x1: f64, y1: f64, r1: f64, x2: f64, y2: f64, r2: f64) -> bool {
    if [x1, y1, r1, x2, y2, r2].into_iter().all(in_window) {
        expansion_sign(two_sum(x1, -x2), two_sum(y1, -y2), two_sum(r1, r2)) < 0
    } else {
        circle_sign(x1, y1, r1, x2, y2, r2) < 0
    }
}

/// Group and category/mask rules, per object; `None` means not given.
#[derive(Clone, Copy, Debug, Default)]
pub struct Filters<'a> {
    /// Same non-zero group: never a pair.
    pub groups: Option<&'a [i64]>,
    /// Category bits (default: all).
    pub categories: Option<&'a [u64]>,
    /// Mask bits (default: all).
    pub masks: Option<&'a [u64]>,
}

impl Filters<'_> {
    /// Whether no filter is given.
    pub fn is_empty(&self) -> bool {
        self.groups.is_none() && self.categories.is_none() && self.masks.is_none()
    }

    /// Whether the pair `(i, j)` passes every filter.
    #[inline]
    pub fn pass(&self, i: usize, j: usize) -> bool {
        if let Some(g) = self.groups {
            if g[i] != 0 && g[i] == g[j] {
                return false;
            }
        }
        if self.categories.is_some() || self.masks.is_some() {
            let c = |k: usize| self.categories.map_or(u64::MAX, |c| c[k]);
            let m = |k: usize| self.masks.map_or(u64::MAX, |m| m[k]);
            if c(i) & m(j) == 0 || c(j) & m(i) == 0 {
                return false;
            }
        }
        true
    }
}

/// Shape code of a box in [`Shapes::Mixed`] (the tree's object kinds).
pub const BOX: u8 = 0;
/// Shape code of a circle in [`Shapes::Mixed`].
pub const CIRCLE: u8 = 1;

/// What the objects are, beyond their boxes.
#[derive(Clone, Copy, Debug, Default)]
pub enum Shapes<'a> {
    /// Every object is its box.
    #[default]
    Boxes,
    /// Every object is a circle, rows of `x, y, r` (its box is the circle's
    /// outward-rounded bounding box).
    Circles(&'a [[f64; 3]]),
    /// Object `k` is a circle (row `circles[k]`) when `kinds[k] == CIRCLE`,
    /// else the box `boxes[k]`.
    Mixed {
        /// [`BOX`] or [`CIRCLE`] per object.
        kinds: &'a [u8],
        /// `x, y, r` of the circles (other rows are not read).
        circles: &'a [[f64; 3]],
        /// The boxes.
        boxes: &'a [[f64; 4]],
    },
}

/// Exact: the point of the box closest to the centre lies strictly inside
/// the circle.  That point is the centre clamped to the box, made of
/// existing coordinates (no rounding), so the circle test against a circle
/// of radius 0 there is the exact answer.
#[inline]
pub fn box_circle_overlap(b: &[f64; 4], c: &[f64; 3]) -> bool {
    let px = c[0].max(b[0]).min(b[2]);
    let py = c[1].max(b[1]).min(b[3]);
    circle_overlap(c[0], c[1], c[2], px, py, 0.0)
}

/// Everything after the box test: filters, then the exact shape test.
#[derive(Clone, Copy, Debug, Default)]
pub struct Narrow<'a> {
    /// The objects' shapes.
    pub shapes: Shapes<'a>,
    /// The pair filters.
    pub filters: Filters<'a>,
}

impl Narrow<'_> {
    /// Whether the box test alone decides (plain boxes, no filters).
    #[inline(always)]
    pub fn is_trivial(&self) -> bool {
        matches!(self.shapes, Shapes::Boxes) && self.filters.is_empty()
    }

    /// Whether the pair `(i, j)`, whose boxes strictly overlap, collides.
    #[inline(always)]
    pub fn accept(&self, i: usize, j: usize) -> bool {
        self.filters.pass(i, j) && self.shapes_meet(i, j)
    }

    /// The exact shape test of `(i, j)`, whose boxes strictly overlap.
    #[inline(always)]
    pub fn shapes_meet(&self, i: usize, j: usize) -> bool {
        match self.shapes {
            Shapes::Boxes => true,
            Shapes::Circles(c) => {
                let (a, b) = (c[i], c[j]);
                circle_overlap(a[0], a[1], a[2], b[0], b[1], b[2])
            }
            Shapes::Mixed {
                kinds,
                circles,
                boxes,
            } => match (kinds[i] == CIRCLE, kinds[j] == CIRCLE) {
                (false, false) => true,
                (true, true) => {
                    let (a, b) = (circles[i], circles[j]);
                    circle_overlap(a[0], a[1], a[2], b[0], b[1], b[2])
                }
                (true, false) => box_circle_overlap(&boxes[j], &circles[i]),
                (false, true) => box_circle_overlap(&boxes[i], &circles[j]),
            },
        }
    }

    /// `keep` (the box test) followed by [`Narrow::accept`] when needed.
    ///
    /// `TRIVIAL` is [`Narrow::is_trivial`], fixed at compile time so that the
    /// pair loops of plain boxes carry no narrow-phase code at all.
    #[inline(always)]
    pub fn judge<const TRIVIAL: bool>(&self, keep: bool, i: usize, j: usize) -> bool {
        if TRIVIAL {
            keep
        } else {
            keep && self.accept(i, j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn window_constants() {
        assert_eq!(EXACT_LO, 2f64.powi(-400));
        assert_eq!(EXACT_HI, 2f64.powi(400));
    }

    #[test]
    fn touching_circles_do_not_collide() {
        assert!(!circle_overlap(0.0, 0.0, 1.0, 2.0, 0.0, 1.0));
        assert!(circle_overlap(0.0, 0.0, 1.0, 2.0, 0.0, 1.0000000000000002));
        assert!(!circle_overlap(0.0, 0.0, 0.0, 0.0, 0.0, 0.0));
        // the exact sum of the doubles 0.1 and 0.2 exceeds the double 0.3
        assert!(circle_overlap(0.0, 0.0, 0.1, 0.3, 0.0, 0.2));
        assert!(!circle_overlap(
            0.0,
            0.0,
            0.1,
            0.30000000000000004,
            0.0,
            0.2
        ));
        assert!(circle_overlap(1e-300, 0.0, 1e300, 0.0, 0.0, 0.0));
    }

    #[test]
    fn one_centre_overlaps_unless_both_radii_are_zero() {
        for v in [0.0, -0.0, 1e-320, 3.5, -1e300, f64::MAX] {
            assert!(circle_overlap(v, v, 4.0, v, v, 0.0));
            assert!(circle_overlap(v, -v, 5e-324, v, -v, 0.0));
            assert!(!circle_overlap(v, v, 0.0, v, v, 0.0));
        }
        // nearly one centre: the difference is a subnormal, still not zero
        assert!(!circle_overlap(0.0, 0.0, 0.0, 5e-324, 0.0, 0.0));
        assert!(circle_overlap(0.0, 0.0, 5e-324, 5e-324, 0.0, 5e-324));
        assert!(!circle_overlap(0.0, 0.0, 5e-324, 1e-323, 0.0, 0.0));
    }

    proptest! {
        /// The float path and the exact paths agree with integer arithmetic on
        /// integers scaled by a power of two (near-ties included, by construction).
        #[test]
        fn overlap_is_exact(x1 in -3000i64..3000, y1 in -3000i64..3000, r1 in 0i64..3000,
                            dx in -3000i64..3000, r2 in 0i64..3000, e in -1050i32..980,
                            pyth in any::<bool>()) {
            // pyth: put circle 2 at an exact touching distance when possible
            let (x2, y2) = if pyth { (x1 + r1 + r2, y1) } else { (x1 + dx, y1 - dx / 2) };
            let f = |v: i64| v as f64 * (e as f64).exp2();
            let d2 = (x1 - x2).pow(2) + (y1 - y2).pow(2);
            let want = d2 < (r1 + r2).pow(2);
            prop_assert_eq!(circle_overlap(f(x1), f(y1), f(r1), f(x2), f(y2), f(r2)), want);
            prop_assert_eq!(exact_overlap(f(x1), f(y1), f(r1), f(x2), f(y2), f(r2)), want);
        }
    }

    #[test]
    fn filters() {
        let g = [0i64, 0, 5, 5];
        let f = Filters {
            groups: Some(&g),
            ..Default::default()
        };
        assert!(f.pass(0, 1));
        assert!(!f.pass(2, 3));
        let c = [1u64, 2];
        let m = [2u64, 1];
        let f = Filters {
            categories: Some(&c),
            masks: Some(&m),
            ..Default::default()
        };
        assert!(f.pass(0, 1));
        let m = [2u64, 2];
        let f = Filters {
            categories: Some(&c),
            masks: Some(&m),
            ..Default::default()
        };
        assert!(!f.pass(0, 1));
        let f = Filters {
            masks: Some(&m),
            ..Default::default()
        };
        assert!(f.pass(0, 1)); // categories default to all bits
    }
}
