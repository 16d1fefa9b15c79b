//! Exact sign of `(x1 - x2)^2 + (y1 - y2)^2 - (r1 + r2)^2` for any finite doubles.
//!
//! The last resort of the circle test, for the rare undecided pairs whose
//! magnitudes lie outside the window where floating-point expansions are
//! exact (a tiny part of a huge difference underflows once squared).
//!
//! Every finite double is an integer multiple of `2^-1074` below `2^1024`, so
//! `|v| * 2^1074` is an integer of at most 2098 bits: stored here
//! little-endian in 70 limbs of 30 bits (held in `i64`, so the product of two
//! limbs plus a carry never overflows).  Differences, sums, squares and the
//! comparison are then plain integer arithmetic: no rounding anywhere.  Loops
//! run only over the limbs in use, so the usual cost is a few dozen
//! operations.

const BITS: u32 = 30;
const MASK: i64 = (1 << BITS) - 1;
const LIMBS: usize = 72; // 70 * 30 = 2100 bits >= 1074 + 1024, plus carry room
const WIDE: usize = 2 * LIMBS + 6;

type Num = [i64; LIMBS];

/// Number of limbs up to the highest non-zero one.
fn used(a: &[i64]) -> usize {
    let mut k = a.len();
    while k > 0 && a[k - 1] == 0 {
        k -= 1;
    }
    k
}

/// `|v| * 2^1074` as limbs, and the sign of `v` (0 for zero).
fn from_double(v: f64) -> (i32, Num) {
    let mut out = [0i64; LIMBS];
    if v == 0.0 {
        return (0, out);
    }
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as u32;
    let frac = (bits & ((1u64 << 52) - 1)) as i64;
    // |v| = m * 2^(sh - 1074): subnormals have m = frac and sh = 0.
    let (m, sh) = if exp == 0 {
        (frac, 0)
    } else {
        (frac | 1 << 52, exp - 1)
    };
    let i = (sh / BITS) as usize;
    let off = sh % BITS;
    out[i] = (m & ((1 << (BITS - off)) - 1)) << off;
    let rest = m >> (BITS - off);
    out[i + 1] = rest & MASK;
    out[i + 2] = rest >> BITS;
    (if v > 0.0 { 1 } else { -1 }, out)
}

/// Sign of `|a| - |b|` for magnitudes of equal length.
fn compare(a: &[i64], b: &[i64]) -> i32 {
    for k in (0..a.len()).rev() {
        if a[k] != b[k] {
            return if a[k] > b[k] { 1 } else { -1 };
        }
    }
    0
}

fn add(a: &Num, b: &Num) -> Num {
    let mut out = [0i64; LIMBS];
    let mut carry = 0;
    for k in 0..(used(a).max(used(b)) + 1).min(LIMBS) {
        let t = a[k] + b[k] + carry;
        out[k] = t & MASK;
        carry = t >> BITS;
    }
    out
}

/// `a - b` for `a >= b`.
fn sub(a: &Num, b: &Num) -> Num {
    let mut out = [0i64; LIMBS];
    let mut borrow = 0;
    for k in 0..used(a) {
        let t = a[k] - b[k] - borrow;
        borrow = (t < 0) as i64;
        out[k] = t + (borrow << BITS);
    }
    out
}

/// `|sa * a - sb * b|`.
fn difference(sa: i32, a: &Num, sb: i32, b: &Num) -> Num {
    if sa * sb < 0 {
        add(a, b) // opposite signs: magnitudes add
    } else if compare(a, b) >= 0 {
        sub(a, b)
    } else {
        sub(b, a)
    }
}

/// `acc += a * a`.
fn square_into(a: &Num, acc: &mut [i64; WIDE]) {
    let n = used(a);
    for i in 0..n {
        let ai = a[i];
        if ai == 0 {
            continue;
        }
        let mut carry = 0;
        for j in 0..n {
            let t = acc[i + j] + ai * a[j] + carry; // < 2^30 + 2^60 + 2^31
            acc[i + j] = t & MASK;
            carry = t >> BITS;
        }
        let mut k = i + n;
        while carry != 0 {
            let t = acc[k] + carry;
            acc[k] = t & MASK;
            carry = t >> BITS;
            k += 1;
        }
    }
}

/// `acc += (p + sign_q * q)^2`.
fn add_square(p: f64, q: f64, sign_q: i32, acc: &mut [i64; WIDE]) {
    let (sp, u) = from_double(p);
    let (sq, v) = from_double(q);
    square_into(&difference(sp, &u, -sign_q * sq, &v), acc);
}

/// Sign (-1, 0, 1) of `(x1-x2)^2 + (y1-y2)^2 - (r1+r2)^2`, exactly, for finite inputs.
pub fn circle_sign(x1: f64, y1: f64, r1: f64, x2: f64, y2: f64, r2: f64) -> i32 {
    let mut lhs = [0i64; WIDE];
    let mut rhs = [0i64; WIDE];
    add_square(x1, x2, -1, &mut lhs);
    add_square(y1, y2, -1, &mut lhs);
    add_square(r1, r2, 1, &mut rhs);
    compare(&lhs, &rhs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extremes() {
        let tiny = f64::from_bits(1); // 2^-1074
        assert_eq!(circle_sign(0.0, 0.0, tiny, tiny, 0.0, 0.0), 0); // touching
        assert_eq!(circle_sign(0.0, 0.0, tiny, tiny, 0.0, tiny), -1);
        assert_eq!(
            circle_sign(-f64::MAX, 0.0, f64::MAX, f64::MAX, 0.0, f64::MAX),
            0
        );
        assert_eq!(
            circle_sign(-f64::MAX, 0.0, f64::MAX, f64::MAX, tiny, f64::MAX),
            1
        );
        assert_eq!(circle_sign(1e300, 1e-300, 0.0, 1e300, 0.0, 1e-300), 0);
        assert_eq!(circle_sign(3.0, 4.0, 2.0, 0.0, 0.0, 3.0), 0);
        assert_eq!(circle_sign(3.0, 4.0, 2.0, 0.0, 0.0, 2.5), 1);
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
            proptest::prop_assert_eq!(circle_sign(f(x1), f(y1), f(r1), f(x2), f(y2), f(r2)), want);
        }
    }
}
