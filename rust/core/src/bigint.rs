//! Exact arithmetic on doubles: dyadic numbers `±m * 2^e` with a big integer `m`.
//!
//! The last resort of every exact predicate of the crate (the ball test of
//! circles and spheres, the ray and swept-pair constraints of
//! [`crate::param`]), for the rare cases a float filter leaves undecided or
//! whose magnitudes lie outside the window where floating-point expansions
//! are exact.
//!
//! Every finite double is `m * 2^e` with an integer `|m| < 2^53` and
//! `e >= -1074`, so sums, differences and products of doubles are dyadic
//! numbers too: held here as a sign, a magnitude in little-endian 32-bit
//! limbs and an exponent.  Addition aligns the exponents (shifting the
//! operand of the larger one left), multiplication multiplies the
//! magnitudes and adds the exponents: no rounding anywhere, for any finite
//! input.  Sizes grow with the spread of the magnitudes (at most a few
//! thousand bits for polynomials of degree 8 in doubles); the usual case is
//! a few limbs.
//!
//! Invariants: the magnitude has no high zero limb (zero is the empty
//! magnitude, never negative).  [`Dyadic::to_f64`] and [`ratio_to_f64`]
//! round to nearest, ties to even: the one rounding rule of the crate's
//! reported parameters.

use std::cmp::Ordering;

/// `±mag * 2^exp`, exactly.
#[derive(Clone, Debug, PartialEq)]
pub struct Dyadic {
    neg: bool,
    mag: Vec<u32>,
    exp: i64,
}

fn trim(mut v: Vec<u32>) -> Vec<u32> {
    while v.last() == Some(&0) {
        v.pop();
    }
    v
}

fn bits(a: &[u32]) -> i64 {
    match a.last() {
        None => 0,
        Some(&top) => 32 * (a.len() as i64 - 1) + (32 - top.leading_zeros() as i64),
    }
}

fn cmp_mag(a: &[u32], b: &[u32]) -> Ordering {
    if a.len() != b.len() {
        return a.len().cmp(&b.len());
    }
    for k in (0..a.len()).rev() {
        if a[k] != b[k] {
            return a[k].cmp(&b[k]);
        }
    }
    Ordering::Equal
}

fn add_mag(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (a, b) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let mut out = Vec::with_capacity(a.len() + 1);
    let mut carry = 0u64;
    for (k, &x) in a.iter().enumerate() {
        let t = x as u64 + *b.get(k).unwrap_or(&0) as u64 + carry;
        out.push(t as u32);
        carry = t >> 32;
    }
    out.push(carry as u32);
    trim(out)
}

/// `a - b` for `a >= b`.
fn sub_mag(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len());
    let mut borrow = 0i64;
    for (k, &x) in a.iter().enumerate() {
        let mut t = x as i64 - *b.get(k).unwrap_or(&0) as i64 - borrow;
        borrow = (t < 0) as i64;
        t += borrow << 32;
        out.push(t as u32);
    }
    trim(out)
}

fn mul_mag(a: &[u32], b: &[u32]) -> Vec<u32> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let mut out = vec![0u32; a.len() + b.len()];
    for (i, &x) in a.iter().enumerate() {
        let mut carry = 0u64;
        for (j, &y) in b.iter().enumerate() {
            let t = out[i + j] as u64 + x as u64 * y as u64 + carry;
            out[i + j] = t as u32;
            carry = t >> 32;
        }
        out[i + b.len()] = carry as u32;
    }
    trim(out)
}

fn shl(a: &[u32], by: i64) -> Vec<u32> {
    if a.is_empty() {
        return Vec::new();
    }
    let (limbs, sh) = ((by / 32) as usize, (by % 32) as u32);
    let mut out = vec![0u32; limbs];
    let mut carry = 0u32;
    for &x in a {
        out.push((x << sh) | carry);
        carry = if sh == 0 { 0 } else { x >> (32 - sh) };
    }
    out.push(carry);
    trim(out)
}

/// `a >> by` and whether any bit shifted out was set.
fn shr_sticky(a: &[u32], by: i64) -> (u64, bool) {
    // only called to keep at most 64 bits
    let mut v = 0u64;
    for k in 0..64 {
        let bit = by + k;
        let limb = (bit / 32) as usize;
        if limb < a.len() && a[limb] >> (bit % 32) & 1 == 1 {
            v |= 1 << k;
        }
    }
    let sticky = (0..by).any(|bit| a[(bit / 32) as usize] >> (bit % 32) & 1 == 1);
    (v, sticky)
}

/// `2^e` as a double, for `e` in the normal range.
fn pow2(e: i64) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// The double nearest `±q * 2^e` (ties to even), where `q < 2^64` and
/// `sticky` says the true magnitude lies strictly above `q * 2^e` (by less
/// than `2^e`).
fn round(neg: bool, q: u64, sticky: bool, e: i64) -> f64 {
    if q == 0 {
        return if neg { -0.0 } else { 0.0 };
    }
    let len = 64 - q.leading_zeros() as i64;
    // keep 53 bits, or fewer where the result is subnormal (ulp 2^-1074)
    let drop = (len - 53).max(-1074 - e).max(0);
    let (mut m, mut e2) = (q, e);
    if drop > 0 {
        if drop > 64 {
            return if neg { -0.0 } else { 0.0 }; // below half the least subnormal
        }
        let wide = q as u128;
        let rest = wide & ((1u128 << drop) - 1);
        let half = 1u128 << (drop - 1);
        m = (wide >> drop) as u64;
        e2 += drop;
        let up = rest > half || (rest == half && (sticky || m & 1 == 1));
        m += up as u64;
    }
    // m < 2^54 is exact as a double; scale by 2^e2 in two exact steps
    let mut v = m as f64;
    if e2 > 1023 {
        v *= pow2(1023);
        v *= if e2 - 1023 > 1023 {
            f64::INFINITY
        } else {
            pow2(e2 - 1023)
        };
    } else if e2 < -1022 {
        v *= pow2(-1022);
        v *= pow2((e2 + 1022).max(-1022));
    } else {
        v *= pow2(e2);
    }
    if neg {
        -v
    } else {
        v
    }
}

impl Dyadic {
    /// Zero.
    pub fn zero() -> Dyadic {
        Dyadic {
            neg: false,
            mag: Vec::new(),
            exp: 0,
        }
    }

    /// The exact value of a finite double.
    pub fn of(v: f64) -> Dyadic {
        debug_assert!(v.is_finite());
        if v == 0.0 {
            return Dyadic::zero();
        }
        let b = v.to_bits();
        let e = ((b >> 52) & 0x7ff) as i64;
        let f = b & ((1u64 << 52) - 1);
        let (m, exp) = if e == 0 {
            (f, -1074)
        } else {
            (f | 1 << 52, e - 1075)
        };
        Dyadic {
            neg: v < 0.0,
            mag: trim(vec![m as u32, (m >> 32) as u32]),
            exp,
        }
    }

    /// -1, 0 or 1.
    pub fn sign(&self) -> i32 {
        if self.mag.is_empty() {
            0
        } else if self.neg {
            -1
        } else {
            1
        }
    }

    /// The nearest double (ties to even; beyond the doubles, an infinity).
    pub fn to_f64(&self) -> f64 {
        let n = bits(&self.mag);
        let by = (n - 64).max(0);
        let (q, sticky) = shr_sticky(&self.mag, by);
        round(self.neg, q, sticky, self.exp + by)
    }

    /// `floor(log2 |self|) + 1` (0 for zero): the bit length of the value.
    pub fn log2(&self) -> i64 {
        if self.mag.is_empty() {
            0
        } else {
            bits(&self.mag) + self.exp
        }
    }

    /// `self * 2^k`, exactly.
    pub fn times_pow2(mut self, k: i64) -> Dyadic {
        self.exp += k;
        self
    }

    fn aligned(&self, to: i64) -> Vec<u32> {
        shl(&self.mag, self.exp - to)
    }
}

impl std::ops::Neg for Dyadic {
    type Output = Dyadic;
    fn neg(mut self) -> Dyadic {
        self.neg = !self.neg && !self.mag.is_empty();
        self
    }
}

impl std::ops::Add for Dyadic {
    type Output = Dyadic;
    fn add(self, o: Dyadic) -> Dyadic {
        if o.mag.is_empty() {
            return self;
        }
        if self.mag.is_empty() {
            return o;
        }
        let exp = self.exp.min(o.exp);
        let (a, b) = (self.aligned(exp), o.aligned(exp));
        if self.neg == o.neg {
            return Dyadic {
                neg: self.neg,
                mag: add_mag(&a, &b),
                exp,
            };
        }
        match cmp_mag(&a, &b) {
            Ordering::Equal => Dyadic::zero(),
            Ordering::Greater => Dyadic {
                neg: self.neg,
                mag: sub_mag(&a, &b),
                exp,
            },
            Ordering::Less => Dyadic {
                neg: o.neg,
                mag: sub_mag(&b, &a),
                exp,
            },
        }
    }
}

impl std::ops::Sub for Dyadic {
    type Output = Dyadic;
    fn sub(self, o: Dyadic) -> Dyadic {
        self + -o
    }
}

impl std::ops::Mul for Dyadic {
    type Output = Dyadic;
    fn mul(self, o: Dyadic) -> Dyadic {
        let mag = mul_mag(&self.mag, &o.mag);
        Dyadic {
            neg: self.neg != o.neg && !mag.is_empty(),
            mag,
            exp: self.exp + o.exp,
        }
    }
}

/// The double nearest `num / den` (ties to even), `den` non-zero.
///
/// Binary long division to 64 quotient bits (at least 63 of them
/// significant, so at least 10 beyond the 53 kept), the remainder a sticky
/// bit: exactly the information rounding to nearest needs.
pub fn ratio_to_f64(num: &Dyadic, den: &Dyadic) -> f64 {
    assert!(den.sign() != 0, "ratio_to_f64: zero denominator");
    if num.sign() == 0 {
        return 0.0;
    }
    let neg = num.neg != den.neg;
    // scale so that 2^63 <= n / d < 2^64
    let shift = 63 - (bits(&num.mag) - bits(&den.mag));
    let (mut n, d) = if shift >= 0 {
        (shl(&num.mag, shift), den.mag.clone())
    } else {
        (num.mag.clone(), shl(&den.mag, -shift))
    };
    if cmp_mag(&n, &shl(&d, 63)) == Ordering::Less {
        n = shl(&n, 1); // n / d was in (2^62, 2^63): now in [2^63, 2^64)
        return finish(neg, n, d, num.exp - den.exp - shift - 1);
    }
    finish(neg, n, d, num.exp - den.exp - shift)
}

fn finish(neg: bool, mut n: Vec<u32>, d: Vec<u32>, e: i64) -> f64 {
    let mut q = 0u64;
    for k in (0..64).rev() {
        let dk = shl(&d, k);
        if cmp_mag(&n, &dk) != Ordering::Less {
            n = sub_mag(&n, &dk);
            q |= 1 << k;
        }
    }
    round(neg, q, !n.is_empty(), e)
}

/// Sign (-1, 0, 1) of `sum_k (c1[k]-c2[k])^2 - (r1+r2)^2`, exactly, for
/// finite inputs in any dimension D (the ball test: 2 circles, 3 spheres).
pub fn ball_sign<const D: usize>(c1: &[f64; D], r1: f64, c2: &[f64; D], r2: f64) -> i32 {
    let s = Dyadic::of(r1) + Dyadic::of(r2);
    let mut acc = -(s.clone() * s);
    for (&a, &b) in c1.iter().zip(c2) {
        let d = Dyadic::of(a) - Dyadic::of(b);
        acc = acc + d.clone() * d;
    }
    acc.sign()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`ball_sign`] of two circles.
    fn c2(x1: f64, y1: f64, r1: f64, x2: f64, y2: f64, r2: f64) -> i32 {
        ball_sign::<2>(&[x1, y1], r1, &[x2, y2], r2)
    }

    #[test]
    fn extremes() {
        let tiny = f64::from_bits(1); // 2^-1074
        assert_eq!(c2(0.0, 0.0, tiny, tiny, 0.0, 0.0), 0); // touching
        assert_eq!(c2(0.0, 0.0, tiny, tiny, 0.0, tiny), -1);
        assert_eq!(c2(-f64::MAX, 0.0, f64::MAX, f64::MAX, 0.0, f64::MAX), 0);
        assert_eq!(c2(-f64::MAX, 0.0, f64::MAX, f64::MAX, tiny, f64::MAX), 1);
        assert_eq!(c2(1e300, 1e-300, 0.0, 1e300, 0.0, 1e-300), 0);
        assert_eq!(c2(3.0, 4.0, 2.0, 0.0, 0.0, 3.0), 0);
        assert_eq!(c2(3.0, 4.0, 2.0, 0.0, 0.0, 2.5), 1);
    }

    #[test]
    fn ball_extremes() {
        let tiny = f64::from_bits(1); // 2^-1074
        let max = f64::MAX;
        // the quadruple 1, 2, 2: 3 in units of 2^-1074 and of 2^1021
        let q = |u: f64| ([u, 2.0 * u, 2.0 * u], 3.0 * u);
        let (c, r) = q(tiny);
        assert_eq!(ball_sign(&[0.0; 3], r, &c, 0.0), 0); // touching
        assert_eq!(ball_sign(&[0.0; 3], r, &c, tiny), -1);
        assert_eq!(ball_sign(&[0.0; 3], r - tiny, &c, 0.0), 1);
        let (c, r) = q(2f64.powi(1021));
        assert_eq!(ball_sign(&[0.0; 3], r / 2.0, &c, r / 2.0), 0);
        assert_eq!(ball_sign(&[0.0; 3], r / 2.0, &c, (r / 2.0).next_up()), -1);
        assert_eq!(ball_sign(&[-c[0], -c[1], -c[2]], r, &c, r), 0); // 2 |c| = 2 r
        assert_eq!(ball_sign(&[-max, 0.0, 0.0], max, &[max, 0.0, 0.0], max), 0);
        assert_eq!(ball_sign(&[-max, 0.0, 0.0], max, &[max, 0.0, tiny], max), 1);
        assert_eq!(ball_sign(&[-max; 3], max, &[max; 3], max), 1); // 12 max^2 vs 4 max^2
                                                                   // huge and tiny together: only the tiny terms decide
        assert_eq!(
            ball_sign(&[1e300, 1e-300, 0.0], 0.0, &[1e300, 0.0, 0.0], 1e-300),
            0
        );
        assert_eq!(
            ball_sign(&[1e300, 1e-300, 0.0], 0.0, &[1e300, 0.0, tiny], 1e-300),
            1
        );
        assert_eq!(ball_sign(&[2.0, 3.0, 6.0], 3.0, &[0.0; 3], 4.0), 0); // 7
        assert_eq!(ball_sign(&[2.0, 3.0, 6.0], 3.0, &[0.0; 3], 4.5), -1);
        // one and two dimensions
        assert_eq!(ball_sign(&[-1.0], 1.0, &[1.0], 1.0), 0);
        assert_eq!(ball_sign(&[-1.0], 1.0, &[1.0], 0.5), 1);
        assert_eq!(ball_sign(&[3.0, 4.0], 2.0, &[0.0, 0.0], 3.0), 0);
        assert_eq!(c2(3.0, 4.0, 2.0, 0.0, 0.0, 3.0), 0);
    }

    #[test]
    fn doubles_round_trip_and_sums_round_once() {
        let tiny = f64::from_bits(1);
        for v in [
            0.0,
            1.0,
            -2.5,
            tiny,
            -tiny,
            1e-310,
            f64::MAX,
            -f64::MIN_POSITIVE,
            0.1,
        ] {
            assert_eq!(Dyadic::of(v).to_f64().to_bits(), v.to_bits(), "{v}");
        }
        // 1 + 2^-53 is a tie: to even (1); 1 + 2^-53 + 2^-80 rounds up
        let h = 2f64.powi(-53);
        assert_eq!((Dyadic::of(1.0) + Dyadic::of(h)).to_f64(), 1.0);
        let up = Dyadic::of(1.0) + Dyadic::of(h) + Dyadic::of(2f64.powi(-80));
        assert_eq!(up.to_f64(), 1.0 + 2.0 * h);
        assert_eq!(
            (Dyadic::of(f64::MAX) + Dyadic::of(f64::MAX)).to_f64(),
            f64::INFINITY
        );
        assert_eq!((Dyadic::of(tiny) * Dyadic::of(0.5)).to_f64(), 0.0); // tie to even 0
        assert_eq!((Dyadic::of(tiny) * Dyadic::of(0.75)).to_f64(), tiny);
    }

    #[test]
    fn ratios_round_to_nearest() {
        let r = |a: f64, b: f64| ratio_to_f64(&Dyadic::of(a), &Dyadic::of(b));
        for (a, b) in [
            (1.0, 3.0),
            (2.0, 3.0),
            (-7.0, 0.1),
            (1e300, 1e-300),
            (5e-324, 3.0),
            (1e-300, 1e300),
            (0.3, -0.1),
            (f64::MAX, 0.5),
            (12.0, 4.0),
        ] {
            assert_eq!(r(a, b).to_bits(), (a / b).to_bits(), "{a} / {b}");
        }
    }

    proptest::proptest! {
        /// Small integers scaled by a power of two: the sign is that of the
        /// integer expression (scaling by 2^e is exact and keeps the sign).
        #[test]
        fn agrees_with_integer_arithmetic(
            x1 in -4096i64..4096, y1 in -4096i64..4096, r1 in 0i64..4096,
            x2 in -4096i64..4096, y2 in -4096i64..4096, r2 in 0i64..4096,
            e in -1060i32..990,
        ) {
            let f = |v: i64| v as f64 * (e as f64).exp2();
            let want = ((x1 - x2).pow(2) + (y1 - y2).pow(2) - (r1 + r2).pow(2)).signum() as i32;
            proptest::prop_assert_eq!(c2(f(x1), f(y1), f(r1), f(x2), f(y2), f(r2)), want);
        }

        /// The same for spheres: integers scaled by a power of two, near
        /// touching by construction (a Pythagorean quadruple `1, 2, 2: 3` or
        /// `2, 3, 6: 7` times `k`, radii off by `off`) or anywhere.
        #[test]
        fn spheres_agree_with_integer_arithmetic(
            c1 in proptest::array::uniform3(-4096i64..4096),
            c2 in proptest::array::uniform3(-4096i64..4096),
            r1 in 0i64..4096, r2 in 0i64..4096, e in -1074i32..990,
            quad in proptest::option::of((proptest::bool::ANY, 1i64..500, -2i64..=2)),
        ) {
            let (c2, r2) = match quad {
                Some((small, k, off)) => {
                    let (v, h) = if small { ([1, 2, 2], 3) } else { ([2, 3, 6], 7) };
                    let c2: [i64; 3] = std::array::from_fn(|i| c1[i] + k * v[i]);
                    (c2, (k * h - r1 + off).max(0))
                }
                None => (c2, r2),
            };
            let f = |v: i64| {
                // v * 2^e, exactly (below the normals, two exact products)
                let pow2 = |k: i32| f64::from_bits(((k + 1023) as u64) << 52);
                if e >= -1022 {
                    v as f64 * pow2(e)
                } else {
                    v as f64 * pow2(e + 1074) * f64::from_bits(1)
                }
            };
            let d2: i64 = (0..3).map(|k| (c1[k] - c2[k]).pow(2)).sum();
            let want = (d2 - (r1 + r2).pow(2)).signum() as i32;
            proptest::prop_assert_eq!(
                ball_sign(&c1.map(f), f(r1), &c2.map(f), f(r2)), want
            );
        }

        /// Quotients of doubles round as the hardware's division does.
        #[test]
        fn division_as_ieee(a in proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL,
                            b in proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL) {
            let q = ratio_to_f64(&Dyadic::of(a), &Dyadic::of(b));
            proptest::prop_assert_eq!(q.to_bits(), (a / b).to_bits(), "{} / {}", a, b);
        }
    }
}
