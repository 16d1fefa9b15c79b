//! The cross-kind order against integer arithmetic by another route, in 2D
//! and in 3D.
//!
//! Inputs are small integers times `2^e` (from near the subnormals to
//! huge): the entries do not depend on `e`.  The reference compares the
//! box entry `r = n/m` (`m > 0`) with the circle entry
//! `s- = (-B - sqrt(D))/A` directly: `r < s-` exactly when
//! `X = A n + B m < -sqrt(D) m`, i.e. `X < 0` and `X^2 > D m^2`; equal when
//! `X <= 0` and `X^2 = D m^2` (no square root taken, in `i128`).

use super::*;
use crate::dim::{BallRow, Row};
use crate::param::shapes::{ray_ball, ray_box, ray_circle};
use crate::param::Sum;
use proptest::prelude::*;

fn int(s: &Sum, scale: f64) -> i128 {
    let v = s.to_f64() / scale;
    assert_eq!(v, v.trunc());
    v as i128
}

/// The reference order of the two entries of a ray of direction `d`
/// (`D` axes), unscaled.
fn reference<const D: usize>(d: [i64; D], l: &Lin, q: &Quad<D>, scale: f64) -> Ordering {
    // the linear root -a/b, with a, b scaled by `scale` (a) and `scale` (b)
    let (a, b) = (int(&l.a, scale), int(&l.b, scale));
    let (n, m) = if b > 0 { (-a, b) } else { (a, -b) };
    assert!(m > 0);
    let (p, v, rr) = (
        q.p.map(|x| int(&x, scale)),
        q.v.map(|x| int(&x, scale)),
        int(&q.r, scale),
    );
    assert_eq!(v, d.map(i128::from));
    let dot = |x: &[i128; D], y: &[i128; D]| (0..D).map(|k| x[k] * y[k]).sum::<i128>();
    let qa = dot(&v, &v);
    let qb = dot(&p, &v);
    let qc = dot(&p, &p) - rr * rr;
    let dd = qb * qb - qa * qc;
    let x = qa * n + qb * m;
    let rhs = dd * m * m;
    if x < 0 && x * x > rhs {
        Ordering::Less
    } else if x <= 0 && x * x == rhs {
        Ordering::Equal
    } else {
        Ordering::Greater
    }
}

fn scaled(v: i64, scale: f64) -> f64 {
    v as f64 * scale
}

/// A ray from `o` along `d` (integers; `o` scaled by `2^e`) against the box
/// of corners `bx` and the ball `(c, r)` (scaled): the order of their
/// entries is the integers'.
fn entries_order<const N: usize, const C: usize, const D: usize>(
    o: [i64; D],
    d: [i64; D],
    bx: [i64; N],
    (c, r): ([i64; D], i64),
    e: i32,
) -> Result<(), TestCaseError>
where
    [f64; N]: Row<Axes = [f64; D]>,
    [f64; C]: BallRow<D>,
{
    let scale = 2f64.powi(e);
    let b: [f64; N] = std::array::from_fn(|k| {
        let (x, y) = (bx[k % D], bx[k % D + D]);
        scaled(if k < D { x.min(y) } else { x.max(y) }, scale)
    });
    let (os, ds) = (o.map(|v| scaled(v, scale)), d.map(|v| v as f64));
    let ball: [f64; C] = std::array::from_fn(|k| scaled(if k < D { c[k] } else { r }, scale));
    let (Some(x), Some(y)) = (
        ray_box(&b, os, ds, f64::INFINITY),
        ray_ball(&ball, os, ds, f64::INFINITY),
    ) else {
        return Ok(());
    };
    let got = cmp_entries(&x, &y);
    let want = match (&x, &y) {
        // the direction is unscaled: a, p and r scale, b and v do not
        (linear::Entry::Root(l), quadratic::Entry::Root(q)) => reference_scaled(d, l, q, scale),
        (linear::Entry::Zero, quadratic::Entry::Zero) => Ordering::Equal,
        (linear::Entry::Zero, _) => Ordering::Less,
        _ => Ordering::Greater,
    };
    prop_assert_eq!(got, want);
    prop_assert_eq!(got, cmp_entries_reversed(&y, &x).reverse());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// In 2D and in 3D (the first two axes of the same draw).
    #[test]
    fn box_and_ball_entries_order_exactly(
        o in prop::array::uniform3(-12i64..12),
        d in prop::array::uniform3(-6i64..6),
        bx in prop::array::uniform6(-12i64..12),
        c in prop::array::uniform3(-12i64..12),
        r in 0i64..8,
        e in prop::sample::select(vec![-1000i32, -500, -60, 0, 1, 40, 500, 900]),
    ) {
        let two = |v: [i64; 3]| [v[0], v[1]];
        let b2 = [bx[0], bx[1], bx[3], bx[4]];
        entries_order::<4, 3, 2>(two(o), two(d), b2, (two(c), r), e)?;
        entries_order::<6, 4, 3>(o, d, bx, (c, r), e)?;
    }
}

/// The reference with `a` and `p`, `r` scaled by `scale`, `b` and `v` not:
/// unscale them first.
fn reference_scaled<const D: usize>(d: [i64; D], l: &Lin, q: &Quad<D>, scale: f64) -> Ordering {
    let un = |s: &Sum, k: f64| Sum::one(s.to_f64() / k);
    let l = Lin {
        a: un(&l.a, scale),
        b: un(&l.b, 1.0),
    };
    let q = Quad {
        p: q.p.map(|x| un(&x, scale)),
        v: q.v.map(|x| un(&x, 1.0)),
        r: un(&q.r, scale),
    };
    reference(d, &l, &q, 1.0)
}

fn cmp_entries_reversed<const D: usize>(y: &quadratic::Entry<D>, x: &linear::Entry) -> Ordering {
    cmp_entries(x, y).reverse()
}

#[test]
fn ties_and_near_ties() {
    let inf = f64::INFINITY;
    // along the x axis: the box's left edge at 3, the circle (5, 0, 2) enters at 3
    let (o, d) = ([0.0, 0.0], [1.0, 0.0]);
    let b = ray_box(&[3.0, -1.0, 4.0, 1.0], o, d, inf).unwrap();
    let c = ray_circle(&[5.0, 0.0, 2.0], o, d, inf).unwrap();
    assert_eq!(cmp_entries(&b, &c), Ordering::Equal);
    // one ulp either side
    for (edge, want) in [
        (3.0f64.next_down(), Ordering::Less),
        (3.0f64.next_up(), Ordering::Greater),
    ] {
        let b = ray_box(&[edge, -1.0, 4.0, 1.0], o, d, inf).unwrap();
        assert_eq!(cmp_entries(&b, &c), want, "{edge}");
    }
    // an irrational circle entry: (0, 1) towards (5, 0) radius 2 along x at y = 1:
    // s- = 5 - sqrt(3) = 3.2679...; box edges either side
    let (o, d) = ([0.0, 1.0], [1.0, 0.0]);
    let c = ray_circle(&[5.0, 0.0, 2.0], o, d, inf).unwrap();
    let s = 5.0 - 3f64.sqrt();
    for (edge, want) in [
        (s.next_down().next_down(), Ordering::Less),
        (s.next_up().next_up(), Ordering::Greater),
    ] {
        let b = ray_box(&[edge, 0.0, 9.0, 2.0], o, d, inf).unwrap();
        assert_eq!(cmp_entries(&b, &c), want, "{edge}");
    }
    // the linear root at the circle's far root s+ = 5 + sqrt(3) is later
    let b = ray_box(&[7.0, 0.0, 9.0, 2.0], o, d, inf).unwrap();
    assert_eq!(cmp_entries(&b, &c), Ordering::Greater);
}
