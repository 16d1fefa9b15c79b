//! The quadratic solver against integer arithmetic, over 2 and 3 axes.
//!
//! Inputs are small integers times `2^e`: `A`, `B`, `C` are integers times
//! `2^2e`, the roots do not depend on `e`.  The reference decides
//! emptiness by another route than [`solve`]: `f` is continuous, so the
//! set `{s in [0, S] : f(s) < 0}` is non-empty exactly when the minimum of
//! `f` on `[0, S]` is negative, taken at the vertex `-B/A` clamped to the
//! range (a rational).  Entries are ordered with `sqrt(D)` bracketed by
//! integer square roots at `2^-36` (pairs the bracket cannot separate are
//! skipped unless both roots are rational or the constraints equal).

use super::*;
use proptest::prelude::*;

fn isqrt(n: i128) -> i128 {
    let mut x = (n as f64).sqrt() as i128;
    while x * x > n {
        x -= 1;
    }
    while (x + 1) * (x + 1) <= n {
        x += 1;
    }
    x
}

struct Ints {
    a: i128,
    b: i128,
    c: i128,
}

/// `A`, `B`, `C` of `|p + s v| < r` in integers, over `D` axes.
fn ints<const D: usize>(p: [i64; D], v: [i64; D], r: i64) -> Ints {
    let dot = |x: &[i64; D], y: &[i64; D]| (0..D).map(|k| x[k] as i128 * y[k] as i128).sum();
    Ints {
        a: dot(&v, &v),
        b: dot(&p, &v),
        c: dot(&p, &p) - r as i128 * r as i128,
    }
}

/// Whether `f < 0` somewhere on `[0, s_max]` (`None`: unbounded).
fn reference_hit(q: &Ints, s_max: Option<i128>) -> bool {
    if q.c < 0 {
        return true;
    }
    if q.a == 0 {
        return false;
    }
    // f at the rational n/d, times d^2
    let f = |n: i128, d: i128| q.a * n * n + 2 * q.b * n * d + q.c * d * d;
    // the vertex -B/A clamped to [0, S]
    let (n, d) = if -q.b <= 0 {
        (0, 1)
    } else if s_max.is_some_and(|m| -q.b > m * q.a) {
        (s_max.unwrap(), 1)
    } else {
        (-q.b, q.a)
    };
    f(n, d) < 0
}

/// The constraint of the integers times `2^e` (the position's terms as
/// differences with 0, on either side).
fn quad<const D: usize>(p: [i64; D], v: [i64; D], r: i64, e: i32) -> Quad<D> {
    let f = |x: i64| x as f64 * (e as f64).exp2();
    Quad {
        p: std::array::from_fn(|k| match k % 2 {
            0 => Sum::diff(f(p[k]), 0.0),
            _ => Sum::diff(0.0, f(-p[k])),
        }),
        v: v.map(|x| Sum::one(f(x))),
        r: Sum::one(f(r)),
    }
}

fn small() -> impl Strategy<Value = i64> {
    prop_oneof![-5i64..6, -2000i64..2000]
}

/// [`solve`] of the integers times `2^e` decides as the integers do, and
/// its entry is close to the float root of the integers.
fn check_hit<const D: usize>(
    p: [i64; D],
    v: [i64; D],
    r: i64,
    e: i32,
    s_max: Option<i64>,
) -> Result<(), TestCaseError> {
    let q = quad(p, v, r, e);
    let got = solve(&q, s_max.map_or(f64::INFINITY, |m| m as f64));
    let k = ints(p, v, r);
    let want = reference_hit(&k, s_max.map(|m| m as i128));
    prop_assert_eq!(got.is_some(), want);
    if let Some(Entry::Root(_)) = got {
        let d = k.b * k.b - k.a * k.c;
        let t = entry_f64(&got.unwrap());
        let exact = k.c as f64 / ((d as f64).sqrt() - k.b as f64);
        prop_assert!(
            (t - exact).abs() <= 1e-9 * exact.abs(),
            "{} vs {}",
            t,
            exact
        );
        prop_assert!(entry_upper(&got.unwrap()) >= t);
    }
    Ok(())
}

/// [`cmp_entries`] of two constraints of one velocity `v` orders their
/// entries as integer brackets of `sqrt(D)` do.
fn check_order<const D: usize>(
    pi: [i64; D],
    pj: [i64; D],
    v: [i64; D],
    (ri, rj): (i64, i64),
    e: i32,
) -> Result<(), TestCaseError> {
    let (qi, qj) = (quad(pi, v, ri, e), quad(pj, v, rj, e));
    let (Some(ei), Some(ej)) = (solve(&qi, f64::INFINITY), solve(&qj, f64::INFINITY)) else {
        return Ok(());
    };
    let (ki, kj) = (ints(pi, v, ri), ints(pj, v, rj));
    // an entry above 0 has D > 0 (the bracket's square roots need it)
    for (k, e) in [(&ki, &ei), (&kj, &ej)] {
        prop_assert!(
            matches!(e, Entry::Zero) || k.b * k.b > k.a * k.c,
            "no real roots"
        );
    }
    // x = -B - sqrt(D) (0 for a Zero entry: A > 0 scales both alike)
    let bracket = |k: &Ints, e: &Entry<D>| -> (i128, i128, Option<i128>) {
        const F: i128 = 1 << 36;
        if matches!(e, Entry::Zero) {
            return (0, 0, Some(0));
        }
        let d = k.b * k.b - k.a * k.c;
        let s = isqrt(d * F * F);
        let exact = (isqrt(d) * isqrt(d) == d).then(|| -k.b - isqrt(d));
        (-k.b * F - s - 1, -k.b * F - s, exact)
    };
    let (xi, xj) = (bracket(&ki, &ei), bracket(&kj, &ej));
    let want = match (&ei, &ej) {
        (Entry::Zero, Entry::Zero) => Ordering::Equal,
        (Entry::Zero, _) => Ordering::Less,
        (_, Entry::Zero) => Ordering::Greater,
        _ => {
            if let (Some(a), Some(b)) = (xi.2, xj.2) {
                a.cmp(&b)
            } else if ki.b == kj.b && ki.a * ki.c == kj.a * kj.c {
                Ordering::Equal
            } else if xi.1 < xj.0 {
                Ordering::Less
            } else if xj.1 < xi.0 {
                Ordering::Greater
            } else {
                return Ok(()); // too close for the bracket
            }
        }
    };
    prop_assert_eq!(cmp_entries(&ei, &ej), want);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn hits_match_integers(p in [small(), small(), small()], v in [small(), small(), small()],
                           r in 0i64..50, e in -1070i32..990,
                           s_max in prop_oneof![Just(None), (0i64..6).prop_map(Some)]) {
        check_hit([p[0], p[1]], [v[0], v[1]], r, e, s_max)?;
        check_hit(p, v, r, e, s_max)?;
    }

    #[test]
    fn entries_of_one_ray_order_exactly(
        pi in [small(), small(), small()], pj in [small(), small(), small()],
        v in [small(), small(), small()], ri in 0i64..60, rj in 0i64..60, e in -1070i32..990,
    ) {
        let two = |x: [i64; 3]| [x[0], x[1]];
        check_order(two(pi), two(pj), two(v), (ri, rj), e)?;
        check_order(pi, pj, v, (ri, rj), e)?;
    }
}

#[test]
fn tangent_and_inside() {
    let q = |p: (f64, f64), v: (f64, f64), r: f64| Quad {
        p: [Sum::one(p.0), Sum::one(p.1)],
        v: [Sum::one(v.0), Sum::one(v.1)],
        r: Sum::one(r),
    };
    // grazing the circle of radius 1 along y = 1: no hit
    assert_eq!(solve(&q((-5.0, 1.0), (1.0, 0.0), 1.0), f64::INFINITY), None);
    assert!(solve(
        &q((-5.0, 1.0f64.next_down()), (1.0, 0.0), 1.0),
        f64::INFINITY
    )
    .is_some());
    // on the circle moving in: entry 0; moving out: nothing
    assert_eq!(
        solve(&q((-1.0, 0.0), (1.0, 0.0), 1.0), 9.0),
        Some(Entry::Zero)
    );
    assert_eq!(solve(&q((-1.0, 0.0), (-1.0, 0.0), 1.0), 9.0), None);
    // inside, even for a zero range or no motion
    assert_eq!(
        solve(&q((0.5, 0.0), (0.0, 0.0), 1.0), 0.0),
        Some(Entry::Zero)
    );
    // reaching the circle exactly at S: no hit
    assert_eq!(solve(&q((-3.0, 0.0), (1.0, 0.0), 1.0), 2.0), None);
    let e = solve(&q((-3.0, 0.0), (1.0, 0.0), 1.0), 2.5).unwrap();
    assert_eq!(entry_f64(&e), 2.0);
    // huge coordinates: the entry is still found
    let e = solve(&q((-3e200, 0.0), (1e200, 0.0), 1e200), f64::INFINITY).unwrap();
    assert_eq!(entry_f64(&e), 2.0);
}

/// `|p + s v| < r` for doubles: the position less the centre, the velocity
/// and the radius, each one term.
fn quad_of(p: [f64; 2], v: [f64; 2], r: f64) -> Quad {
    Quad {
        p: p.map(Sum::one),
        v: v.map(Sum::one),
        r: Sum::one(r),
    }
}

#[test]
fn an_entry_at_the_largest_double_is_that_double() {
    let m = f64::MAX;
    // from x = -M at half a unit a step, the circle of radius M/2 about 0 is
    // entered at x = -M/2: s = M exactly (the estimate may pass it)
    let at_max = quad_of([-m, 0.0], [0.5, 0.0], m / 2.0);
    let e = solve(&at_max, f64::INFINITY).expect("entered");
    assert_eq!(entry_f64(&e), m);
    // ... at a quarter unit a step, at s = 2M: past the doubles
    let past = quad_of([-m, 0.0], [0.25, 0.0], m / 2.0);
    let e = solve(&past, f64::INFINITY).expect("entered");
    assert_eq!(entry_f64(&e), f64::INFINITY);
    // just below M: finite, within 2^-36
    let below = quad_of([-m, 0.0], [0.5, 0.0], m / 2.0 + m * 2f64.powi(-30));
    let e = solve(&below, f64::INFINITY).expect("entered");
    let t = entry_f64(&e);
    assert!(
        t.is_finite() && t < m && t > m * (1.0 - 2f64.powi(-28)),
        "{t}"
    );
}
