//! A float with a bound on its distance from the true value it stands for:
//! the coordinates of images in a triclinic cell, made of the objects'
//! coordinates plus whole lattice vectors.
//!
//! Each step adds a product `q h` and keeps the exact rounding errors of
//! the product (`fma`) and of the sum (TwoSum) in the bound.  Those errors
//! are exact while products stay in the normal range (the entries of a
//! [`super::lattice::Lattice`] and the shifts keep them there); the bound's
//! own sums round, by a relative `2^-52` at most each, which [`Approx::pad`]
//! covers.  A value with a zero bound is exact.

use crate::narrow::two_sum;

/// A float and a bound on its error.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Approx {
    /// The float nearest at hand.
    pub x: f64,
    /// The true value is within about this of `x` ([`Approx::pad`] is a bound).
    pub err: f64,
}

impl Approx {
    /// The exact value `x`.
    #[inline(always)]
    pub fn of(x: f64) -> Approx {
        Approx { x, err: 0.0 }
    }

    /// `self + q h`.
    #[inline(always)]
    pub fn plus_product(self, q: f64, h: f64) -> Approx {
        if q == 0.0 || h == 0.0 {
            return self;
        }
        let p = q * h;
        let ep = q.mul_add(h, -p);
        let (s, es) = two_sum(self.x, p);
        Approx {
            x: s,
            err: self.err + ep.abs() + es.abs(),
        }
    }

    /// Whether `x` is the true value.
    #[inline(always)]
    pub fn is_exact(&self) -> bool {
        self.err == 0.0
    }

    /// A bound on the distance of `x` from the true value (0 when exact).
    #[inline(always)]
    pub fn pad(&self) -> f64 {
        if self.err == 0.0 {
            return 0.0;
        }
        self.err * (1.0 + 1e-12) + f64::MIN_POSITIVE
    }

    /// A float at or below the true value.
    #[inline(always)]
    pub fn lower(&self) -> f64 {
        if self.err == 0.0 {
            return self.x;
        }
        (self.x - self.pad()).next_down()
    }

    /// A float at or above the true value.
    #[inline(always)]
    pub fn upper(&self) -> f64 {
        if self.err == 0.0 {
            return self.x;
        }
        (self.x + self.pad()).next_up()
    }

    /// The sign of the true value when the bound decides it, else `None`.
    #[inline(always)]
    pub fn sign(&self) -> Option<i32> {
        let p = self.pad();
        if self.x > p {
            Some(1)
        } else if self.x < -p {
            Some(-1)
        } else if self.err == 0.0 {
            Some(0)
        } else {
            None
        }
    }
}

/// The integer nearest `x` (ties to even), for `|x| < 2^51`: the sum with
/// `1.5 * 2^52` rounds away the fraction (a plain add, where `round` is a
/// call on the baseline x86-64 target).
#[inline(always)]
pub fn near_int(x: f64) -> f64 {
    const MAGIC: f64 = 6755399441055744.0;
    (x + MAGIC) - MAGIC
}

/// Whether two balls whose centres' squared distance lies in `[lower,
/// upper]` (rounded sums of bounds) overlap, the sum of their radii being
/// `s`: `Some` when the floats decide it with a margin above their
/// rounding (a relative `1e-14`, and `1e-300` against underflow, in the
/// range where neither overflows), `None` for the exact test.
#[inline]
pub fn balls_filter(lower: f64, upper: f64, s: f64) -> Option<bool> {
    let s2 = s * s;
    let tol = 1e-14;
    if (1e-280..1e280).contains(&s2) && upper < 1e280 {
        if upper * (1.0 + tol) + 1e-300 < s2 * (1.0 - tol) {
            return Some(true);
        }
        if lower * (1.0 - tol) > s2 * (1.0 + tol) + 1e-300 {
            return Some(false);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bigint::Dyadic;

    /// The bound holds against exact sums (dyadic integers).
    #[test]
    fn bounds_hold() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..2000 {
            let x = (next() % 2_000_001) as f64 / 997.0 - 1000.0;
            let (q, h) = (
                (next() % 7) as f64 - 3.0,
                (next() % 1_000_001) as f64 / 131.0,
            );
            let (q2, h2) = ((next() % 5) as f64 - 2.0, (next() % 999) as f64 / 7.0);
            let a = Approx::of(x).plus_product(q, h).plus_product(q2, h2);
            let truth =
                Dyadic::of(x) + Dyadic::of(q) * Dyadic::of(h) + Dyadic::of(q2) * Dyadic::of(h2);
            assert!((truth.clone() - Dyadic::of(a.lower())).sign() >= 0);
            assert!((Dyadic::of(a.upper()) - truth.clone()).sign() >= 0);
            if a.is_exact() {
                assert_eq!((truth.clone() - Dyadic::of(a.x)).sign(), 0);
            }
            if let Some(s) = a.sign() {
                assert_eq!(s, truth.sign());
            }
        }
    }
}
