//! One periodic axis of period `L`: where a coordinate lies in `[0, L)`,
//! the extent a periodic axis refuses, and the widening of a rounded
//! image.  Shared by the orthorhombic and triclinic images.

use crate::bigint::Dyadic;

/// Where `x` lies on an axis of period `l`: `(r0, turns)` with `x ≡ r0 +
/// turns * l` and `r0 + turns * l` in `[0, l)`, exactly (`turns` is 0 or
/// 1).  The exact position the canonical image stands for.
#[inline(always)]
pub fn place(x: f64, l: f64) -> (f64, i32) {
    if (0.0..l).contains(&x) {
        return (x, 0);
    }
    let r0 = x % l;
    (r0, i32::from(r0 < 0.0))
}

/// The widening of an inexact image's box on one axis: above the rounding
/// error of each of the at most three roundings that made it (each at most
/// `2^-53` of a value below `|r| + |w| + 2 L`).
#[inline]
pub fn pad(r: f64, w: f64, l: f64) -> f64 {
    (r.abs() + w.abs() + l) * f64::from_bits((1023 - 49) << 52)
}

/// Whether `hi - lo > l / 2`, exactly (the extent a periodic axis refuses).
///
/// The rounded `2 (hi - lo)` is within `2^-53` of the true one, so a margin
/// of `1e-15` decides almost every row; the rest are decided in integers.
pub fn too_wide(lo: f64, hi: f64, l: f64) -> bool {
    let t = 2.0 * (hi - lo);
    if !t.is_finite() || t > l * (1.0 + 1e-15) {
        return true;
    }
    if t < l * (1.0 - 1e-15) {
        return false;
    }
    ((Dyadic::of(hi) - Dyadic::of(lo)).times_pow2(1) - Dyadic::of(l)).sign() > 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::narrow::two_sum;

    #[test]
    fn place_is_exact() {
        for (x, l, r0, t) in [
            (0.25, 1.0, 0.25, 0),
            (-0.0, 1.0, -0.0, 0),
            (1.0, 1.0, 0.0, 0),
            (-0.25, 1.0, -0.25, 1),
            (7.5, 2.0, 1.5, 0),
            (-7.5, 2.0, -1.5, 1),
        ] {
            assert_eq!(place(x, l), (r0, t), "{x} {l}");
        }
    }

    #[test]
    fn too_wide_is_exact() {
        assert!(!too_wide(0.0, 0.5, 1.0));
        assert!(too_wide(0.0, 0.5f64.next_up(), 1.0));
        // 0.1 + 0.4 rounds to 0.5, but the true difference is above it
        let lo = 0.1f64;
        let hi = 0.6f64;
        let exact_above = {
            let (s, e) = two_sum(hi, -lo);
            s > 0.5 || (s == 0.5 && e > 0.0)
        };
        assert_eq!(too_wide(lo, hi, 1.0), exact_above);
        assert!(too_wide(-1e308, 1e308, 1.0));
        assert!(!too_wide(5.0, 5.0, 1e-300));
    }
}
