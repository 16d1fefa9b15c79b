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
//! **Ball rule** (circles in D = 2, spheres in D = 3): two balls of centres
//! `c1`, `c2` and radii `r1`, `r2` collide when `|c1 - c2| < r1 + r2`, i.e.
//! `sum_k (c1[k] - c2[k])^2 < (r1 + r2)^2` over the D axes; touching balls
//! do not collide.  Evaluated naively in floating point the two sides can
//! round across each other, so [`ball_overlap`] (and its 2D and 3D faces
//! [`circle_overlap`] and [`sphere_overlap`]) first tries a float filter
//! whose error bound is proven below, and only for the rare undecided cases
//! falls back to error-free transformations (TwoSum, TwoProduct) and an
//! exact expansion sum whose sign is the answer, or, for magnitudes where
//! those could underflow or overflow, to integer arithmetic
//! (`bigint::ball_sign`).  The answer is the exact one for every
//! finite input with radii `>= 0`.
//!
//! **Filters** (Box2D style): two objects of the same non-zero group never
//! collide; a pair is kept only if `categories[i] & masks[j]` and
//! `categories[j] & masks[i]` are both non-zero (a missing array means all
//! bits).

use crate::bigint::ball_sign;

/// Relative tolerance of the float filter of [`ball_overlap`].
///
/// With `u = 2^-53`: each `d_k = c1[k] - c2[k]` and `s = r1 + r2` carry one
/// rounding, squaring adds one (and doubles the first), the D - 1 additions
/// of the squares (terms `>= 0`) add at most D - 1 per term, so `|lhs~ - lhs|
/// <= g lhs` and `|rhs~ - rhs| <= g rhs` with `g = (1+u)^(D+2) - 1 <= (D+2)
/// u (1+u)^(D+1)`, overflow and underflow aside (the filter's range
/// `(1e-280, 1e280)` excludes them, up to `2^-1075` per product among the
/// subnormals, negligible there).  Rounding is monotone: a computed `gap >
/// tol` means `rhs~ - lhs~ > tol >= 1e-14 (1-u)^3 (lhs~ + rhs~)` (`tol` is
/// normal), and as `lhs + rhs <= (lhs~ + rhs~) / (1 - g)` the exact `rhs -
/// lhs` is positive once `g / (1 - g) < 1e-14 (1-u)^3`; likewise for `gap <
/// -tol`.  In 2D `g <= 4u (1+u)^3`, in 3D `g <= 5u (1+u)^4 < 5.6e-16`, and
/// `1e-14` is about `90u`: 22 and 18 times the bound, so a decided
/// comparison is the exact one (this holds up to D = 86; `ball_overlap`
/// checks `D <= 16` at compile time, where `g < 18.1u`, about 5 times below).
const FILTER_TOL: f64 = 1e-14;
/// With every non-zero input inside this window, the parts of the
/// differences (multiples of `2^-452`), the products and their error terms
/// (multiples of `2^-904`) stay normal and nothing exceeds `2^802` (their
/// sum stays below `6 (D+1) 2^802`, far from overflow): the expansion is exact.
const EXACT_LO: f64 = f64::from_bits((1023 - 400) << 52); // 2^-400
const EXACT_HI: f64 = f64::from_bits((1023 + 400) << 52); // 2^400

/// Strict overlap of two boxes, 2D or 3D: the box rule of [`crate::dim`].
pub use crate::dim::overlap as boxes_overlap;
pub use phase::{
    box_circle_overlap, box_sphere_overlap, Balls, Filters, Imaged, Narrow, Shapes, BOX, CIRCLE,
};

mod phase;

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

/// The 6 terms whose exact sum is `(h + lo)^2`: `h^2 + 2 h lo + lo^2`, each
/// product split by [`two_prod`] into its rounded value and its error.
#[inline(always)]
fn square_terms(h: f64, lo: f64) -> [f64; 6] {
    let (p0, e0) = two_prod(h, h);
    let (p1, e1) = two_prod(h, 2.0 * lo);
    let (p2, e2) = two_prod(lo, lo);
    [p0, e0, p1, e1, p2, e2]
}

/// Sign of `sum_k (d[k].0 + d[k].1)^2 - (s.0 + s.1)^2`, computed exactly
/// (every part a multiple of `2^-452` of magnitude at most `2^401`, as
/// inside the window [`EXACT_LO`]..[`EXACT_HI`]).
///
/// The `6 (D+1)` product terms ([`square_terms`]) are added, as they come,
/// with Shewchuk's Grow-Expansion, which keeps a non-overlapping expansion
/// (least significant component first) whose most significant non-zero
/// component carries the sign of the exact sum.  No heap: the expansion
/// lives in a stack array.
fn expansion_sign<const D: usize>(d: &[(f64, f64); D], s: (f64, f64)) -> i32 {
    // `6 (D+1) <= 12 D` for `D >= 1`; stable Rust cannot size an array by a
    // generic expression such as `6 * (D + 1)`.
    let mut buf = [[0.0f64; 12]; D];
    let exp = &mut buf.as_flattened_mut()[..6 * (D + 1)];
    let mut m = 0;
    let squares = d.iter().map(|&(h, lo)| (square_terms(h, lo), 1.0));
    for (terms, sign) in squares.chain([(square_terms(s.0, s.1), -1.0)]) {
        for t in terms {
            let mut q = sign * t;
            for e in exp[..m].iter_mut() {
                let (sum, err) = two_sum(q, *e);
                q = sum;
                *e = err;
            }
            exp[m] = q;
            m += 1;
        }
    }
    for &e in exp.iter().rev() {
        if e > 0.0 {
            return 1;
        }
        if e < 0.0 {
            return -1;
        }
    }
    0
}

/// Whether `v` is zero or its magnitude lies in the window
/// [`EXACT_LO`]..=[`EXACT_HI`] where the expansion is exact.
#[inline(always)]
fn in_window(v: f64) -> bool {
    let a = v.abs();
    a == 0.0 || (EXACT_LO..=EXACT_HI).contains(&a)
}

/// Exact test of `|c1 - c2| < r1 + r2` for two balls in D dimensions (D = 2
/// circles, D = 3 spheres; `1 <= D <= 16`, checked at compile time), finite
/// inputs, radii `>= 0`.  Touching balls do not overlap.
///
/// A float filter (tolerance `FILTER_TOL`, above its proven error bound
/// for every allowed D) decides almost every pair; two exactly decided
/// special cases follow (zero radii: never; one centre: always); the
/// undecided rest go to the exact arithmetic ([`exact_ball_overlap`], kept
/// out of line so the pair loops stay small).
#[inline(always)]
pub fn ball_overlap<const D: usize>(c1: &[f64; D], r1: f64, c2: &[f64; D], r2: f64) -> bool {
    match ball_filter(c1, r1, c2, r2) {
        Some(answer) => answer,
        None => exact_ball_overlap(c1, r1, c2, r2),
    }
}

/// The inline part of [`ball_overlap`]: the float filter and the special
/// cases, `None` for the pairs only exact arithmetic decides.
#[inline(always)]
fn ball_filter<const D: usize>(c1: &[f64; D], r1: f64, c2: &[f64; D], r2: f64) -> Option<bool> {
    const { assert!(D >= 1 && D <= 16, "ball_overlap: 1 <= D <= 16 (FILTER_TOL)") };
    let d: [f64; D] = std::array::from_fn(|k| c1[k] - c2[k]);
    let s = r1 + r2;
    let mut lhs = d[0] * d[0];
    for &v in &d[1..] {
        lhs += v * v;
    }
    let rhs = s * s;
    if lhs > 1e-280 && rhs > 1e-280 && lhs < 1e280 && rhs < 1e280 {
        let gap = rhs - lhs;
        let tol = FILTER_TOL * (lhs + rhs);
        if gap > tol {
            return Some(true);
        }
        if gap < -tol {
            return Some(false);
        }
    } else if s == 0.0 {
        return Some(false); // two points (zero radii) never overlap
    } else if d.iter().all(|&v| v == 0.0) {
        // One centre (a float difference is zero only for equal operands): they
        // overlap as `s > 0`. Common where objects spawn at one point.
        return Some(true);
    }
    None
}

/// The exact ball test of the pairs the float filter of [`ball_overlap`]
/// leaves undecided (correct for any finite input, radii `>= 0`).
///
/// An exact expansion of `6 (D+1)` terms when every non-zero input lies
/// between `2^-400` and `2^400` (no product or product error under- or
/// overflows there), integer arithmetic (`bigint::ball_sign`) otherwise.
#[inline(never)]
pub fn exact_ball_overlap<const D: usize>(c1: &[f64; D], r1: f64, c2: &[f64; D], r2: f64) -> bool {
    let inside = c1.iter().chain(c2).chain([&r1, &r2]).all(|&v| in_window(v));
    if inside {
        let d: [(f64, f64); D] = std::array::from_fn(|k| two_sum(c1[k], -c2[k]));
        expansion_sign(&d, two_sum(r1, r2)) < 0
    } else {
        ball_sign(c1, r1, c2, r2) < 0
    }
}

/// Exact test of `hypot(x1 - x2, y1 - y2) < r1 + r2` for finite inputs, radii >= 0:
/// [`ball_overlap`] with D = 2.
///
/// The same filter; the undecided pairs go to [`exact_overlap`], whose six
/// scalars travel in registers (arrays by reference would be stored first).
#[inline(always)]
pub fn circle_overlap(x1: f64, y1: f64, r1: f64, x2: f64, y2: f64, r2: f64) -> bool {
    match ball_filter::<2>(&[x1, y1], r1, &[x2, y2], r2) {
        Some(answer) => answer,
        None => exact_overlap(x1, y1, r1, x2, y2, r2),
    }
}

/// The exact circle test of the pairs the float filter leaves undecided:
/// [`exact_ball_overlap`] with D = 2.
#[inline(never)]
pub fn exact_overlap(x1: f64, y1: f64, r1: f64, x2: f64, y2: f64, r2: f64) -> bool {
    exact_ball_overlap::<2>(&[x1, y1], r1, &[x2, y2], r2)
}

/// Exact test of two spheres, rows of `x, y, z, r` (finite, `r >= 0`):
/// [`ball_overlap`] with D = 3.
#[inline(always)]
pub fn sphere_overlap(a: &[f64; 4], b: &[f64; 4]) -> bool {
    ball_overlap::<3>(&[a[0], a[1], a[2]], a[3], &[b[0], b[1], b[2]], b[3])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bigint::ball_sign;
    use proptest::prelude::*;

    #[test]
    fn window_constants() {
        assert_eq!(EXACT_LO, 2f64.powi(-400));
        assert_eq!(EXACT_HI, 2f64.powi(400));
    }

    /// `v * 2^e`, exactly (`e >= -1074`, `|v| < 2^53`, result finite).
    fn scaled(v: i64, e: i32) -> f64 {
        assert!(v.unsigned_abs() < 1 << 53 && e >= -1074);
        let pow2 = |k: i32| f64::from_bits(((k + 1023) as u64) << 52); // normal k
        let w = v as f64; // exact
        if e >= -1022 {
            w * pow2(e)
        } else {
            // the first product is exact, the second too: the result is a
            // multiple of 2^-1074 below 2^-1021
            w * pow2(e + 1074) * f64::from_bits(1)
        }
    }

    /// The exact sign of `sum_k (c1[k] - c2[k])^2 - (r1 + r2)^2`, from the
    /// bits of the doubles and `i128` arithmetic alone (no float arithmetic,
    /// no `bigint`): every input as an odd integer times a power of two,
    /// all aligned to the smallest power.  `None` when the aligned integers are
    /// too wide for `i128` (spread of magnitudes over about 60 bits).
    fn reference_sign<const D: usize>(
        c1: &[f64; D],
        r1: f64,
        c2: &[f64; D],
        r2: f64,
    ) -> Option<i32> {
        // (negative, integer significand, power of two) of a finite double
        let parts = |v: f64| {
            let b = v.to_bits();
            let (bexp, frac) = (((b >> 52) & 0x7ff) as i32, b & ((1 << 52) - 1));
            assert!(bexp != 0x7ff, "finite inputs only");
            let (m, e) = if bexp == 0 {
                (frac, -1074)
            } else {
                (frac | 1 << 52, bexp - 1075)
            };
            // odd significand: the narrowest alignment
            let tz = if m == 0 { 0 } else { m.trailing_zeros() };
            (b >> 63 == 1, m >> tz, e + tz as i32)
        };
        let vals: Vec<f64> = c1.iter().chain(c2).chain([&r1, &r2]).copied().collect();
        let emin = vals
            .iter()
            .filter(|v| **v != 0.0)
            .map(|&v| parts(v).2)
            .min()
            .unwrap_or(0);
        let mut ints = Vec::new();
        for &v in &vals {
            let (neg, m, e) = parts(v);
            let shift = (e - emin) as u32;
            if m != 0 && 64 - m.leading_zeros() + shift > 60 {
                return None;
            }
            let a = (m as i128) << shift;
            ints.push(if neg { -a } else { a });
        }
        let s = ints[2 * D] + ints[2 * D + 1];
        let mut acc = -(s * s);
        for k in 0..D {
            let d = ints[k] - ints[D + k];
            acc = acc.checked_add(d * d)?;
        }
        Some(acc.signum() as i32)
    }

    /// Every exact entry point against the expectation `want` (for D = 2
    /// also the circle functions, for D = 3 the sphere rows).
    fn check_ball<const D: usize>(c1: [f64; D], r1: f64, c2: [f64; D], r2: f64, want: bool) {
        let case = format!("{c1:?} {r1:?} {c2:?} {r2:?}");
        assert_eq!(ball_overlap(&c1, r1, &c2, r2), want, "ball_overlap {case}");
        assert_eq!(exact_ball_overlap(&c1, r1, &c2, r2), want, "exact {case}");
        assert_eq!(ball_sign(&c1, r1, &c2, r2) < 0, want, "ball_sign {case}");
        // the arguments swapped: the same answer
        assert_eq!(ball_overlap(&c2, r2, &c1, r1), want, "swapped {case}");
        if D == 2 {
            let (x1, y1, x2, y2) = (c1[0], c1[1], c2[0], c2[1]);
            assert_eq!(
                circle_overlap(x1, y1, r1, x2, y2, r2),
                want,
                "circle {case}"
            );
            assert_eq!(
                exact_overlap(x1, y1, r1, x2, y2, r2),
                want,
                "exact_overlap {case}"
            );
        }
        if D == 3 {
            let (a, b) = ([c1[0], c1[1], c1[2], r1], [c2[0], c2[1], c2[2], r2]);
            assert_eq!(sphere_overlap(&a, &b), want, "sphere {case}");
        }
    }

    /// [`check_ball`] against [`reference_sign`], which must fit.
    fn check_against_reference<const D: usize>(c1: [f64; D], r1: f64, c2: [f64; D], r2: f64) {
        let sign = reference_sign(&c1, r1, &c2, r2).expect("the reference fits in i128");
        check_ball(c1, r1, c2, r2, sign < 0);
    }

    /// The case and every variant with one non-zero input moved one ulp up
    /// or down (radii stay `>= 0`), each checked against the reference.
    fn check_nudges<const D: usize>(c1: [f64; D], r1: f64, c2: [f64; D], r2: f64) {
        check_against_reference(c1, r1, c2, r2);
        for i in 0..2 * D + 2 {
            for up in [false, true] {
                let (mut a, mut ra, mut b, mut rb) = (c1, r1, c2, r2);
                let v = match i {
                    i if i < D => &mut a[i],
                    i if i < 2 * D => &mut b[i - D],
                    i if i == 2 * D => &mut ra,
                    _ => &mut rb,
                };
                if *v == 0.0 {
                    continue;
                }
                *v = if up { v.next_up() } else { v.next_down() };
                check_against_reference(a, ra, b, rb);
            }
        }
    }

    /// Touching balls in integer units of `2^e`: centre `c1`, centre
    /// `c1 + k v` (`|v| = hyp`), radii `r1` and `k hyp - r1`.
    fn touching<const D: usize>(
        c1: [i64; D],
        v: [i64; D],
        hyp: i64,
        k: i64,
        r1: i64,
        e: i32,
    ) -> ([f64; D], f64, [f64; D], f64) {
        assert_eq!(v.iter().map(|x| x * x).sum::<i64>(), hyp * hyp);
        let c2: [i64; D] = std::array::from_fn(|i| c1[i] + k * v[i]);
        (
            c1.map(|x| scaled(x, e)),
            scaled(r1, e),
            c2.map(|x| scaled(x, e)),
            scaled(k * hyp - r1, e),
        )
    }

    /// Touching balls whose differences and sum of radii are not doubles
    /// (`two_sum` leaves a non-zero low part): in integer units of `2^e`,
    /// `c2 = c1 + k v` with `k v[i]` up to `2^54` and `k hyp` odd, every
    /// coordinate and radius an integer below `2^53` placed by `at` (in
    /// thousandths of the room it has).
    fn inexact_touching<const D: usize>(
        v: [i64; D],
        hyp: i64,
        k: i64,
        at: [i64; D],
        r_at: i64,
        e: i32,
    ) -> ([f64; D], f64, [f64; D], f64) {
        const TOP: i64 = 1 << 53;
        // an integer x with x and x + w both in (-2^53, 2^53)
        let place = |w: i64, t: i64| {
            let (lo, hi) = ((-TOP).max(-TOP - w), TOP.min(TOP - w));
            lo + 1 + (hi - lo - 2) / 1000 * t
        };
        let c1: [i64; D] = std::array::from_fn(|i| place(k * v[i], at[i]));
        let r1 = place(-k * hyp, r_at);
        assert!(r1 > 0 && k * hyp - r1 > 0 && k * hyp - r1 < TOP);
        touching(c1, v, hyp, k, r1, e)
    }

    /// Pythagorean quadruples `a^2 + b^2 + c^2 = d^2`: spheres at these
    /// distances touch.
    const QUADRUPLES: [[i64; 4]; 18] = [
        [1, 2, 2, 3],
        [2, 3, 6, 7],
        [1, 4, 8, 9],
        [4, 4, 7, 9],
        [2, 6, 9, 11],
        [6, 6, 7, 11],
        [3, 4, 12, 13],
        [2, 5, 14, 15],
        [2, 10, 11, 15],
        [1, 12, 12, 17],
        [8, 9, 12, 17],
        [1, 6, 18, 19],
        [6, 6, 17, 19],
        [6, 10, 15, 19],
        [4, 5, 20, 21],
        [4, 8, 19, 21],
        [4, 13, 16, 21],
        [8, 11, 16, 21],
    ];
    /// Pythagorean triples `a^2 + b^2 = c^2`: circles at these distances touch.
    const TRIPLES: [[i64; 3]; 7] = [
        [3, 4, 5],
        [5, 12, 13],
        [8, 15, 17],
        [7, 24, 25],
        [20, 21, 29],
        [12, 35, 37],
        [9, 40, 41],
    ];

    /// The direction `v` of a quadruple or triple: components permuted
    /// (`perm` in `0..6`) and signed.
    fn direction<const D: usize>(row: &[i64], perm: usize, signs: [bool; 3]) -> [i64; D] {
        const PERMS: [[usize; 3]; 6] = [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ];
        let order: Vec<usize> = PERMS[perm].iter().copied().filter(|&p| p < D).collect();
        std::array::from_fn(|i| {
            if signs[i] {
                -row[order[i]]
            } else {
                row[order[i]]
            }
        })
    }

    /// Scales from the subnormals to near the largest doubles, with the
    /// edges of the exact window (`2^-400`, `2^400`) inside two of them.
    fn exponents(lift: i32) -> impl Strategy<Value = i32> {
        prop_oneof![
            -1074i32..=-1030,
            -1010i32..=-980,
            (-460i32..=-380).prop_map(move |e| e - lift),
            -40i32..=10,
            (360i32..=420).prop_map(move |e| e - lift),
            940i32..=971,
        ]
    }

    #[test]
    fn references_are_right() {
        for q in QUADRUPLES {
            assert_eq!(
                q[0] * q[0] + q[1] * q[1] + q[2] * q[2],
                q[3] * q[3],
                "{q:?}"
            );
        }
        for t in TRIPLES {
            assert_eq!(t[0] * t[0] + t[1] * t[1], t[2] * t[2], "{t:?}");
        }
        assert_eq!(scaled(3, -1074), 1.5e-323);
        assert_eq!(scaled(-5, 10), -5120.0);
        assert_eq!(scaled(1, -1022), f64::MIN_POSITIVE);
        let r = |c1: [f64; 3], r1, c2: [f64; 3], r2| reference_sign(&c1, r1, &c2, r2);
        assert_eq!(r([0.0; 3], 1.0, [1.0, 2.0, 2.0], 2.0), Some(0));
        assert_eq!(r([0.0; 3], 1.5, [1.0, 2.0, 2.0], 1.5), Some(0));
        assert_eq!(r([0.0; 3], 1.0, [1.0, 2.0, 2.0], 2.5), Some(-1));
        assert_eq!(r([0.0; 3], 1.0, [-1.0, 2.0, -2.0], 1.5), Some(1));
        assert_eq!(r([0.0; 3], 1.0, [1.0, 2.0, 2.0], 1e-30), None);
        assert_eq!(r([0.0; 3], 0.0, [0.0; 3], 0.0), Some(0));
    }

    #[test]
    fn touching_circles_do_not_collide() {
        // the expectations of the 2D code before `ball_overlap`, for both faces
        check_ball([0.0, 0.0], 1.0, [2.0, 0.0], 1.0, false);
        check_ball([0.0, 0.0], 1.0, [2.0, 0.0], 1.0000000000000002, true);
        check_ball([0.0, 0.0], 0.0, [0.0, 0.0], 0.0, false);
        // the exact sum of the doubles 0.1 and 0.2 exceeds the double 0.3
        check_ball([0.0, 0.0], 0.1, [0.3, 0.0], 0.2, true);
        check_ball([0.0, 0.0], 0.1, [0.30000000000000004, 0.0], 0.2, false);
        check_ball([1e-300, 0.0], 1e300, [0.0, 0.0], 0.0, true);
        check_ball([0.0, 0.0], 2.0, [3.0, 4.0], 3.0, false);
        check_ball([0.0, 0.0], 2.0, [3.0, 4.0], 3.0f64.next_up(), true);
        check_ball([0.0, 0.0], 2.0, [3.0, 4.0f64.next_down()], 3.0, true);
    }

    #[test]
    fn touching_spheres_do_not_collide() {
        check_ball([0.0; 3], 1.0, [1.0, 2.0, 2.0], 2.0, false);
        check_ball([0.0; 3], 1.0, [1.0, 2.0, 2.0], 2.0f64.next_up(), true);
        check_ball([0.0; 3], 1.0, [1.0, 2.0, 2.0f64.next_up()], 2.0, false);
        check_ball([0.0; 3], 1.0, [1.0, 2.0, 2.0f64.next_down()], 2.0, true);
        check_ball([5.0, -1.0, 0.5], 3.0, [7.0, 2.0, 6.5], 4.0, false); // 2, 3, 6: 7
        check_ball([5.0, -1.0, 0.5], 3.0, [7.0, 2.0, 6.5], 4.5, true);
        check_ball([0.0; 3], 0.1, [0.3, 0.0, 0.0], 0.2, true);
        check_ball([0.0; 3], 0.1, [0.0, 0.0, 0.30000000000000004], 0.2, false);
        check_ball([1e-300, 0.0, 0.0], 1e300, [0.0; 3], 0.0, true);
        check_ball(
            [-f64::MAX, 0.0, 0.0],
            f64::MAX,
            [f64::MAX, 0.0, 0.0],
            f64::MAX,
            false,
        );
        check_ball(
            [-f64::MAX, 0.0, 0.0],
            f64::MAX,
            [f64::MAX, 5e-324, 0.0],
            f64::MAX,
            false,
        );
        check_ball([-f64::MAX; 3], f64::MAX, [f64::MAX; 3], f64::MAX, false);
        check_ball(
            [-f64::MAX, 0.0, 0.0],
            f64::MAX,
            [f64::MAX.next_down(), 0.0, 0.0],
            f64::MAX,
            true,
        );
        // subnormal: a quadruple in units of 2^-1074
        let t = 5e-324;
        check_ball([0.0; 3], 3.0 * t, [t, 2.0 * t, 2.0 * t], 0.0, false);
        check_ball([0.0; 3], 3.0 * t, [t, 2.0 * t, 2.0 * t], t, true);
        check_ball([0.0; 3], 2.0 * t, [t, 2.0 * t, 2.0 * t], 0.0, false);
        // one dimension: intervals
        assert!(!ball_overlap(&[0.0], 1.0, &[2.0], 1.0));
        assert!(ball_overlap(&[0.0], 1.0, &[2.0f64.next_down()], 1.0));
        assert!(!sphere_overlap(
            &[1.0, 1.0, 1.0, 0.0],
            &[1.0, 1.0, 1.0, 0.0]
        ));
        assert!(sphere_overlap(
            &[1.0, 1.0, 1.0, 0.0],
            &[1.0, 1.0, 1.0, 5e-324]
        ));
    }

    #[test]
    fn one_centre_overlaps_unless_both_radii_are_zero() {
        for v in [0.0, -0.0, 1e-320, 3.5, -1e300, f64::MAX] {
            check_ball([v, v], 4.0, [v, v], 0.0, true);
            check_ball([v, -v], 5e-324, [v, -v], 0.0, true);
            check_ball([v, v], 0.0, [v, v], 0.0, false);
            check_ball([v, -v, v], 1e300, [v, -v, v], 0.0, true);
            check_ball([v, v, -v], 0.0, [v, v, -v], 5e-324, true);
            check_ball([v, v, v], 0.0, [v, v, v], 0.0, false);
        }
        // nearly one centre: the difference is a subnormal, still not zero
        check_ball([0.0, 0.0], 0.0, [5e-324, 0.0], 0.0, false);
        check_ball([0.0, 0.0], 5e-324, [5e-324, 0.0], 5e-324, true);
        check_ball([0.0, 0.0], 5e-324, [1e-323, 0.0], 0.0, false);
        check_ball([0.0, 0.0, 0.0], 0.0, [0.0, 0.0, 5e-324], 0.0, false);
        check_ball([0.0, 0.0, 0.0], 5e-324, [0.0, 1e-323, 0.0], 0.0, false);
    }

    /// The window of the expansion: its edges are in, the doubles next
    /// to them out, and touching and nearly touching balls at both edges
    /// (the largest differences, `2^401`; the smallest parts, `2^-452`,
    /// squared to `2^-904`) come out exactly from the expansion, the
    /// integers and the public functions alike.
    #[test]
    fn window_edges() {
        let (lo, hi) = (EXACT_LO, EXACT_HI);
        for v in [
            0.0,
            -0.0,
            lo,
            -lo,
            hi,
            -hi,
            lo.next_up(),
            hi.next_down(),
            1.0,
        ] {
            assert!(in_window(v), "{v:e}");
        }
        for v in [lo.next_down(), -lo.next_down(), hi.next_up(), -hi.next_up()] {
            assert!(!in_window(v), "{v:e}");
        }
        for v in [5e-324, f64::MIN_POSITIVE, 1e-200, 1e200, f64::MAX] {
            assert!(!in_window(v), "{v:e}");
        }
        // (c1, r1, c2, r2, want)
        let u = lo; // 2^-400
        type Case = ([f64; 3], f64, [f64; 3], f64, bool);
        let cases: [Case; 14] = [
            // a quadruple in units of 2^-400 (every input in the window) ...
            ([0.0; 3], 3.0 * u, [u, 2.0 * u, 2.0 * u], 0.0, false),
            (
                [0.0; 3],
                (3.0 * u).next_up(),
                [u, 2.0 * u, 2.0 * u],
                0.0,
                true,
            ),
            (
                [0.0; 3],
                3.0 * u,
                [u.next_up(), 2.0 * u, 2.0 * u],
                0.0,
                false,
            ),
            (
                [0.0; 3],
                3.0 * u,
                [u, 2.0 * u, (2.0 * u).next_down()],
                0.0,
                true,
            ),
            // ... and in units of 2^-401 (one input out of it: integers)
            ([0.0; 3], 1.5 * u, [u / 2.0, u, u], 0.0, false),
            ([0.0; 3], 1.5 * u, [u / 2.0, u, u], u.next_down(), true),
            // parts of 2^-452: d = 2^-399 + 2^-452 (a tie, its TwoSum is
            // 2^-399 and 2^-452), s the same sum
            (
                [lo.next_up(), 0.0, 0.0],
                lo.next_up(),
                [-lo, 0.0, 0.0],
                lo,
                false,
            ),
            (
                [lo.next_up(), 0.0, 0.0],
                lo.next_up(),
                [-lo, 0.0, 0.0],
                lo.next_up(),
                true,
            ),
            ([lo.next_up(), 0.0, 0.0], lo, [-lo, 0.0, 0.0], lo, false),
            // differences of 2^401, radii of 2^400
            ([-hi, 0.0, 0.0], hi, [hi, 0.0, 0.0], hi, false),
            ([-hi, 0.0, 0.0], hi, [hi.next_down(), 0.0, 0.0], hi, true),
            ([-hi, 0.0, 0.0], hi.next_down(), [hi, 0.0, 0.0], hi, false),
            ([-hi, -hi, hi], hi, [hi, hi, -hi], hi, false),
            // the radius just past the window: integers
            ([-hi, 0.0, 0.0], hi, [hi, 0.0, 0.0], hi.next_up(), true),
        ];
        for (c1, r1, c2, r2, want) in cases {
            let sign = reference_sign(&c1, r1, &c2, r2).expect("fits");
            assert_eq!(sign < 0, want, "reference {c1:?} {r1:e} {c2:?} {r2:e}");
            check_ball(c1, r1, c2, r2, want);
            let inside = c1
                .iter()
                .chain(&c2)
                .chain([&r1, &r2])
                .all(|&v| in_window(v));
            if inside {
                let d: [(f64, f64); 3] = std::array::from_fn(|k| two_sum(c1[k], -c2[k]));
                assert_eq!(expansion_sign(&d, two_sum(r1, r2)), sign, "{c1:?} {c2:?}");
            }
            // the same in 2D (the third axis dropped where it is zero)
            if c1[2] == 0.0 && c2[2] == 0.0 {
                check_ball([c1[0], c1[1]], r1, [c2[0], c2[1]], r2, want);
            }
        }
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
            let (a, b) = ([f(x1), f(y1)], [f(x2), f(y2)]);
            prop_assert_eq!(ball_overlap(&a, f(r1), &b, f(r2)), want);
            prop_assert_eq!(exact_ball_overlap(&a, f(r1), &b, f(r2)), want);
        }

        /// Spheres of small integer coordinates, each scaled by its own power
        /// of two near a common one (from subnormal to 1e300 magnitudes, and
        /// across the window edges): the sign of the same integer expression.
        #[test]
        fn spheres_of_scaled_integers(
            c1 in prop::array::uniform3(-3000i64..3000),
            c2 in prop::array::uniform3(-3000i64..3000),
            r in prop::array::uniform2(0i64..3000),
            lift in prop::array::uniform8(prop_oneof![Just(0u32), 0u32..=40]),
            e in exponents(20),
        ) {
            // input i is v * 2^(e + lift[i]): in units of 2^e, v << lift[i]
            let unit = |v: i64, i: usize| v << lift[i];
            let f = |v: i64, i: usize| scaled(unit(v, i), e);
            let d2: i128 = (0..3).map(|k| ((unit(c1[k], k) - unit(c2[k], 3 + k)) as i128).pow(2)).sum();
            let s = (unit(r[0], 6) + unit(r[1], 7)) as i128;
            let want = d2 < s * s;
            let a = [f(c1[0], 0), f(c1[1], 1), f(c1[2], 2)];
            let b = [f(c2[0], 3), f(c2[1], 4), f(c2[2], 5)];
            let (ra, rb) = (f(r[0], 6), f(r[1], 7));
            prop_assert_eq!(reference_sign(&a, ra, &b, rb), Some((d2 - s * s).signum() as i32));
            check_ball(a, ra, b, rb, want);
        }

        /// Touching spheres (Pythagorean quadruples, e.g. 1, 2, 2: 3 and
        /// 2, 3, 6: 7, scaled and turned) at every scale, subnormal and huge
        /// included, never overlap; near the subnormals, where the reference
        /// can follow, each input one ulp up or down too.
        #[test]
        fn touching_spheres_at_every_scale(
            q in 0..QUADRUPLES.len(), perm in 0usize..6, signs in prop::array::uniform3(any::<bool>()),
            c1 in prop::array::uniform3(-2000i64..2000), k in 1i64..=64, split in 0i64..=100,
            e in exponents(0),
        ) {
            let row = QUADRUPLES[q];
            let r1 = k * row[3] * split / 100;
            let (a, ra, b, rb) = touching(c1, direction::<3>(&row, perm, signs), row[3], k, r1, e);
            prop_assert_eq!(reference_sign(&a, ra, &b, rb), Some(0));
            check_ball(a, ra, b, rb, false);
            if e <= -1030 {
                // every input below 2^-1017, every ulp at least 2^-1074: the
                // reference fits
                check_nudges(a, ra, b, rb);
            }
        }

        /// `expansion_sign` on any split of the differences and of the sum
        /// (not only TwoSum's): `sum_k (h_k + l_k)^2 - (h + l)^2` exactly, with
        /// ties from quadruples whose parts have unrelated squares.
        #[test]
        fn expansion_sign_is_exact(
            q in 0..QUADRUPLES.len(), perm in 0usize..6, signs in prop::array::uniform3(any::<bool>()),
            k in 1i64..=1000, cut in prop::array::uniform4(-30000i64..=30000),
            off in -2i64..=2, e in -452i32..=370,
        ) {
            let row = QUADRUPLES[q];
            let v = direction::<3>(&row, perm, signs);
            let f = |x: i64| scaled(x, e);
            // d_k = k v_k = h_k + l_k, s = k hyp + off = h + l
            let d: [(f64, f64); 3] = std::array::from_fn(|i| (f(k * v[i] - cut[i]), f(cut[i])));
            let s = (f(k * row[3] + off - cut[3]), f(cut[3]));
            let want = reference_sign(&d.map(|p| p.0), s.0, &d.map(|p| -p.1), s.1).unwrap();
            prop_assert_eq!(want, -off.signum() as i32);
            prop_assert_eq!(expansion_sign(&d, s), want);
            let d2 = [d[0], d[1]];
            let want2 = reference_sign(&d2.map(|p| p.0), s.0, &d2.map(|p| -p.1), s.1).unwrap();
            prop_assert_eq!(expansion_sign(&d2, s), want2);
        }

        /// Touching spheres whose differences and sum of radii have low parts
        /// (their exact values need 54 bits): the expansion must carry every
        /// cross term; one unit off each radius too.
        #[test]
        fn touching_spheres_with_inexact_differences(
            q in 0..QUADRUPLES.len(), perm in 0usize..6, signs in prop::array::uniform3(any::<bool>()),
            kt in 0i64..=1000, at in prop::array::uniform3(0i64..=1000), r_at in 0i64..=1000,
            e in exponents(0), nudge in -1i64..=1,
        ) {
            // the one odd component needs room: 2^53 <= odd k, hyp k <= 2^54
            let odd = |r: &[i64; 4]| *r[..3].iter().find(|&&x| x % 2 == 1).unwrap();
            let rows: Vec<_> = QUADRUPLES.iter().filter(|r| 2 * odd(r) > r[3]).collect();
            let row = *rows[q % rows.len()];
            let (kmin, kmax) = (((1i64 << 53) + odd(&row) - 1) / odd(&row), (1i64 << 54) / row[3]);
            let k = (kmin + (kmax - kmin) / 1000 * kt) | 1; // odd: k hyp odd
            let k = if k > kmax { k - 2 } else { k };
            let v = direction::<3>(&row, perm, signs);
            let (a, ra, b, rb) = inexact_touching(v, row[3], k, at, r_at, e.min(969));
            let d: [(f64, f64); 3] = std::array::from_fn(|i| two_sum(a[i], -b[i]));
            prop_assert!(d.iter().any(|p| p.1 != 0.0) && two_sum(ra, rb).1 != 0.0);
            prop_assert_eq!(reference_sign(&a, ra, &b, rb), Some(0));
            check_ball(a, ra, b, rb, false);
            // one unit (2^e) more or less on a radius
            let rb2 = rb + scaled(nudge, e.min(969));
            check_against_reference(a, ra, b, rb2);
        }

        /// The same for circles (Pythagorean triples).
        #[test]
        fn touching_circles_with_inexact_differences(
            t in 0..TRIPLES.len(), swap in any::<bool>(), signs in prop::array::uniform3(any::<bool>()),
            kt in 0i64..=1000, at in prop::array::uniform2(0i64..=1000), r_at in 0i64..=1000,
            e in exponents(0), nudge in -1i64..=1,
        ) {
            let odd = |r: &[i64; 3]| *r[..2].iter().find(|&&x| x % 2 == 1).unwrap();
            let rows: Vec<_> = TRIPLES.iter().filter(|r| 2 * odd(r) > r[2]).collect();
            let row = *rows[t % rows.len()];
            let (kmin, kmax) = (((1i64 << 53) + odd(&row) - 1) / odd(&row), (1i64 << 54) / row[2]);
            let k = (kmin + (kmax - kmin) / 1000 * kt) | 1;
            let k = if k > kmax { k - 2 } else { k };
            let v = direction::<2>(&row, if swap { 2 } else { 0 }, signs);
            let (a, ra, b, rb) = inexact_touching(v, row[2], k, at, r_at, e.min(969));
            let d: [(f64, f64); 2] = std::array::from_fn(|i| two_sum(a[i], -b[i]));
            prop_assert!(d.iter().any(|p| p.1 != 0.0) && two_sum(ra, rb).1 != 0.0);
            prop_assert_eq!(reference_sign(&a, ra, &b, rb), Some(0));
            check_ball(a, ra, b, rb, false);
            let rb2 = rb + scaled(nudge, e.min(969));
            check_against_reference(a, ra, b, rb2);
        }

        /// Touching spheres of large integer coordinates (zero or above 2^44
        /// units, below 2^52, so that every ulp, down as well as up, is at
        /// least 2^-8 units and the reference fits), each input moved one
        /// ulp up and down.
        #[test]
        fn spheres_one_ulp_from_touching(
            q in 0..QUADRUPLES.len(), perm in 0usize..6, signs in prop::array::uniform3(any::<bool>()),
            c1 in prop::array::uniform3(prop_oneof![Just(0i64), (1i64 << 44) + 1..=(1 << 49)]),
            k in (1i64 << 44) + 1..=(1 << 46), split in prop_oneof![Just(-1i64), 0i64..=1000],
            e in prop_oneof![-1066i32..=-1040, -470i32..=-420, -60i32..=0, 330i32..=380, 900i32..=971],
        ) {
            let row = QUADRUPLES[q];
            let v = direction::<3>(&row, perm, signs);
            // c1 on the side of the move: |c2| = |c1| + k |v| > 2^44; the
            // radii 0 or both above 2^44
            let c1: [i64; 3] = std::array::from_fn(|i| c1[i] * v[i].signum());
            let kd = k * row[3];
            let r1 = if split < 0 { 0 } else { (1 << 44) + 1 + (kd - (1 << 45) - 2) / 1000 * split };
            let (a, ra, b, rb) = touching(c1, v, row[3], k, r1, e);
            check_ball(a, ra, b, rb, false);
            check_nudges(a, ra, b, rb);
        }

        /// The same for circles (Pythagorean triples): `ball_overlap::<2>`,
        /// `circle_overlap` and their exact paths.
        #[test]
        fn circles_one_ulp_from_touching(
            t in 0..TRIPLES.len(), swap in any::<bool>(), signs in prop::array::uniform3(any::<bool>()),
            c1 in prop::array::uniform2(prop_oneof![Just(0i64), (1i64 << 44) + 1..=(1 << 49)]),
            k in (1i64 << 44) + 1..=(1 << 46), split in prop_oneof![Just(-1i64), 0i64..=1000],
            e in prop_oneof![-1066i32..=-1040, -470i32..=-420, -60i32..=0, 330i32..=380, 900i32..=971],
        ) {
            let row = TRIPLES[t];
            let v = direction::<2>(&row, if swap { 2 } else { 0 }, signs);
            let c1: [i64; 2] = std::array::from_fn(|i| c1[i] * v[i].signum());
            let kd = k * row[2];
            let r1 = if split < 0 { 0 } else { (1 << 44) + 1 + (kd - (1 << 45) - 2) / 1000 * split };
            let (a, ra, b, rb) = touching(c1, v, row[2], k, r1, e);
            check_ball(a, ra, b, rb, false);
            check_nudges(a, ra, b, rb);
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
