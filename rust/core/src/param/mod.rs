//! Open sets of one parameter, decided exactly: where a ray is inside an
//! object, when two moving objects overlap.
//!
//! Both questions are "for which `s` in the closed range `[0, S]` do a few
//! strict inequalities hold?", each inequality a polynomial in `s` whose
//! coefficients are exact sums and products of the input doubles:
//!
//! * [`linear`]: constraints `a + b s > 0` (a ray inside an open box: one
//!   per side; two boxes moving linearly overlap: one per side pair), `a`
//!   and `b` sums of up to four doubles ([`Sum`]).  Their common set is an
//!   open interval `(L, U)` cut to `[0, S]`.
//! * [`quadratic`]: one constraint `|p + s v|^2 < r^2` (a ray inside a
//!   circle or a sphere; two circles or spheres moving linearly with `p`,
//!   `v` their relative position and velocity), an open interval between
//!   two roots.
//! * [`joint`]: one quadratic constraint and linear ones together (a
//!   moving sphere near a moving box's edge, [`rounded`]).
//!
//! All are written once over the dimension ([`shapes`]): a 3D box gives
//! six linear constraints where a 2D box gives four, each the same sums;
//! a sphere's `p` and `v` have three terms where a circle's have two.
//!
//! The answer is exact: whether the set is empty, and its infimum `t` (the
//! entry parameter), as a root of one constraint or 0, which compares
//! exactly with another such root (the first hit of a ray).  `t` is then
//! given as a double: correctly rounded for [`linear`] roots, within a
//! relative `2^-30` for [`quadratic`] ones.
//!
//! # Exactness: a filter, then exact arithmetic
//! Every decision is the sign of a polynomial in the input doubles.  Each
//! polynomial is written once, generic over [`Num`], and evaluated first
//! in floating point with a running magnitude ([`Est`]): `v` the rounded
//! value, `m` the same expression on absolute values.  With `d` the
//! largest number of roundings on any path from an input to the result,
//! and no product in the subnormal range (where the relative error model
//! fails), `|v - exact| <= gamma_d * M` with `gamma_d = d u / (1 - d u)`,
//! `u = 2^-53`, and `M <= m / (1 - u)^d` the exact magnitude (the standard
//! bound: each operation's relative error is at most `u`, and the error of
//! a sum or product of perturbed values is bounded by the same expression
//! on magnitudes).  Every polynomial here has `d <= 12`, so
//! `|v| > 2^-46 m` (`2^-46 = 128 u > gamma_12 / (1-u)^12`) gives the exact
//! sign.
//!
//! The count in 3D: a linear constraint's sums are per axis (`a` of at most
//! three terms, `b` of four: 2 and 3 roundings), so [`linear`]'s
//! polynomials have the same `d <= 6` in every dimension; a dot product
//! over `k` axes (`A = v.v`, `B = p.v`, `C = p.p - r^2`) has one product
//! and `k - 1` additions on its first term's path, so every polynomial of
//! [`quadratic`] and [`cross`] takes one rounding more in 3D than in 2D:
//! at most 12 (`W^2 - 4 D_i D_j`, comparing two entries of one ray), 11
//! in 2D (the counts, as functions of `k`, are in their module docs).  The
//! bound holds and the threshold stays: `2^-46` would serve any `d` up to
//! about 120 (`gamma_d / (1-u)^d < (d + 1) u` for such `d`), so the margin
//! is wide, and the count is what must not be exceeded unnoticed.  A product whose magnitude falls below `2^-960` (near or into the
//! subnormals) or any non-finite value marks the estimate unusable.  What
//! the filter leaves undecided is evaluated again with [`Dyadic`] (exact
//! big-integer arithmetic, `bigint`): the same expression, no rounding.
//! `exact_sign!` runs the two steps.
//!
//! Sums of two doubles are special: `fl(a + b)` has the sign of `a + b`
//! exactly (rounding is monotone and the sum of two doubles rounds to zero
//! only when it is zero; an overflow keeps the sign), so [`Sum::sign`]
//! needs no filter for them.

/// The exact sign (-1, 0, 1) of a polynomial written once for both number
/// types: `exact_sign!(N => expr)` evaluates `expr` with `N` = [`Est`]
/// and, when the filter cannot decide, again with `N` = [`Dyadic`].
macro_rules! exact_sign {
    ($n:ident => $e:expr) => {{
        let est = {
            #[allow(dead_code)]
            type $n = $crate::param::Est;
            $e
        };
        match est.sign() {
            Some(s) => s,
            None => {
                #[allow(dead_code)]
                type $n = $crate::param::Dyadic;
                $e.sign()
            }
        }
    }};
}

pub mod cross;
pub mod ends;
pub mod joint;
pub mod linear;
pub mod quadratic;
pub mod rounded;
pub mod select;
pub mod shapes;
pub mod slab;

pub use crate::bigint::{ratio_to_f64, Dyadic};

/// Numbers the polynomials of this module are evaluated in: [`Est`] (a
/// float filter) or [`Dyadic`] (exact).
pub trait Num:
    Sized
    + Clone
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Neg<Output = Self>
{
    /// The double `v` (finite).
    fn of(v: f64) -> Self;
}

impl Num for Dyadic {
    fn of(v: f64) -> Dyadic {
        Dyadic::of(v)
    }
}

/// Smallest product magnitude the filter trusts: above the subnormals with
/// room for the error terms.
const SAFE_PRODUCT: f64 = f64::from_bits((1023 - 960) << 52); // 2^-960
/// The filter's threshold: `|v| > TOL * m` decides (see the module docs).
const TOL: f64 = f64::from_bits((1023 - 46) << 52); // 2^-46

/// A float evaluation: the value `v`, the magnitude `m` (the expression on
/// absolute values) and whether both are trustworthy.
#[derive(Clone, Copy, Debug)]
pub struct Est {
    /// The rounded value.
    pub v: f64,
    /// The rounded magnitude.
    pub m: f64,
    ok: bool,
}

impl Est {
    /// The exact sign when the filter decides it.
    #[inline]
    pub fn sign(self) -> Option<i32> {
        if !(self.ok && self.m.is_finite()) {
            return None;
        }
        let tol = TOL * self.m;
        if self.v > tol {
            Some(1)
        } else if self.v < -tol {
            Some(-1)
        } else {
            None
        }
    }
}

impl Num for Est {
    #[inline(always)]
    fn of(v: f64) -> Est {
        Est {
            v,
            m: v.abs(),
            ok: true,
        }
    }
}

impl std::ops::Add for Est {
    type Output = Est;
    #[inline(always)]
    fn add(self, o: Est) -> Est {
        Est {
            v: self.v + o.v,
            m: self.m + o.m,
            ok: self.ok & o.ok,
        }
    }
}

impl std::ops::Sub for Est {
    type Output = Est;
    #[inline(always)]
    fn sub(self, o: Est) -> Est {
        Est {
            v: self.v - o.v,
            m: self.m + o.m,
            ok: self.ok & o.ok,
        }
    }
}

impl std::ops::Neg for Est {
    type Output = Est;
    #[inline(always)]
    fn neg(self) -> Est {
        Est { v: -self.v, ..self }
    }
}

impl std::ops::Mul for Est {
    type Output = Est;
    #[inline(always)]
    fn mul(self, o: Est) -> Est {
        let m = self.m * o.m;
        // a product near the subnormals may have lost bits: not trusted
        // (an exact zero factor, magnitude 0, is fine)
        let tiny = m < SAFE_PRODUCT && self.m != 0.0 && o.m != 0.0;
        Est {
            v: self.v * o.v,
            m,
            ok: self.ok & o.ok & !tiny,
        }
    }
}

/// An exact sum of up to four doubles (unused terms are zero).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sum {
    t: [f64; 4],
    n: u8,
}

impl Sum {
    /// `v`.
    #[inline(always)]
    pub fn one(v: f64) -> Sum {
        Sum {
            t: [v, 0.0, 0.0, 0.0],
            n: 1,
        }
    }

    /// `a - b` (negation of a double is exact): one term when the
    /// difference is a double.
    #[inline(always)]
    pub fn diff(a: f64, b: f64) -> Sum {
        Sum::two(a, -b)
    }

    /// `a + b`: one term, `fl(a + b)`, when the sum is a double (its
    /// rounding error, by TwoSum, is zero); else the two terms.  Fewer
    /// terms make every later step cheaper (the filter's products, the
    /// root's single division) and change no value.
    #[inline(always)]
    pub fn two(a: f64, b: f64) -> Sum {
        if let Some(s) = exact_sum(a, b) {
            return Sum::one(s);
        }
        Sum {
            t: [a, b, 0.0, 0.0],
            n: 2,
        }
    }

    /// `(a1 - a0) - (b1 - b0)`: a relative motion (one or two terms when
    /// the two differences are doubles, as for most motions: [`Sum::two`]).
    #[inline(always)]
    pub fn motion(a0: f64, a1: f64, b0: f64, b1: f64) -> Sum {
        let (da, db) = (Sum::diff(a1, a0), Sum::diff(b1, b0));
        if let ([x], [y]) = (da.terms(), db.terms()) {
            return Sum::diff(*x, *y);
        }
        Sum {
            t: [a1, -a0, -b1, b0],
            n: 4,
        }
    }

    /// The terms in use.
    #[inline(always)]
    pub fn terms(&self) -> &[f64] {
        &self.t[..self.n as usize]
    }

    /// The sum in the number type `N` (terms added in order).
    #[inline(always)]
    pub fn to<N: Num>(&self) -> N {
        let t = self.terms();
        let mut acc = N::of(t[0]);
        for &v in &t[1..] {
            acc = acc + N::of(v);
        }
        acc
    }

    /// The sum rounded once (correctly) to a double.
    pub fn to_f64(self) -> f64 {
        match self.terms() {
            [a] => *a,
            [a, b] => a + b,
            _ => self.to::<Dyadic>().to_f64(),
        }
    }

    /// The sum rounded once (correctly) to a double, when it has at most
    /// two terms and that double is finite: its sign is then the exact one.
    #[inline(always)]
    pub fn short_f64(&self) -> Option<f64> {
        let v = match self.terms() {
            [a] => *a,
            [a, b] => a + b,
            _ => return None,
        };
        v.is_finite().then_some(v)
    }

    /// The exact sign of the sum.
    #[inline]
    pub fn sign(&self) -> i32 {
        match self.terms() {
            [a] => sign_of(*a),
            [a, b] => sign_of(a + b), // exact: see the module docs
            _ => exact_sign!(N => self.to::<N>()),
        }
    }
}

/// `a + b` when it is a (finite) double: TwoSum's rounding error is zero.
#[inline(always)]
pub fn exact_sum(a: f64, b: f64) -> Option<f64> {
    let s = a + b;
    let bb = s - a;
    (s.is_finite() && (a - (s - bb)) + (b - bb) == 0.0).then_some(s)
}

#[inline(always)]
fn sign_of(v: f64) -> i32 {
    (v > 0.0) as i32 - (v < 0.0) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants() {
        assert_eq!(SAFE_PRODUCT, 2f64.powi(-960));
        assert_eq!(TOL, 2f64.powi(-46));
    }

    #[test]
    fn sums_have_exact_signs() {
        let tiny = f64::from_bits(1);
        assert_eq!(Sum::diff(0.3, 0.1 + 0.2).sign(), -1);
        assert_eq!(Sum::diff(tiny, tiny).sign(), 0);
        assert_eq!(Sum::two(f64::MAX, f64::MAX).sign(), 1);
        assert_eq!(
            Sum::motion(1e300, 1e300, 1.0, 1.0 + 2f64.powi(-52)).sign(),
            -1
        );
        assert_eq!(
            Sum::motion(0.1, 0.7, 0.2, 0.8).sign(),
            (Dyadic::of(0.7) - Dyadic::of(0.1) - Dyadic::of(0.8) + Dyadic::of(0.2)).sign()
        );
        assert_eq!(Sum::motion(1e-310, 3e-310, -1e-310, 1e-310).sign(), 0);
    }

    #[test]
    fn the_filter_refuses_tiny_products() {
        let a = Est::of(1e-170);
        assert!((a * a).sign().is_none());
        let z = Est::of(0.0);
        assert_eq!((a * z + Est::of(1.0)).sign(), Some(1));
        assert!((Est::of(1.0) - Est::of(1.0)).sign().is_none());
    }
}
