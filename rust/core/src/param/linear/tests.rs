//! The linear solver against rational arithmetic on small integers.
//!
//! Inputs are small integers times `2^e` (exact doubles, from subnormal to
//! huge); the roots `-a/b` do not depend on `e`, so the reference works on
//! the integers in `i128`.  It finds the set by another route than
//! [`solve`]: the critical points (0, `S`, every root in between) cut
//! `[0, S]` into pieces on which each constraint keeps its truth value, so
//! testing every critical point and every midpoint between two neighbours
//! decides emptiness, and the infimum is the first critical point that is
//! in the set or followed by a midpoint in it.

use super::*;
use proptest::prelude::*;

/// [`quick`] of a slice, its entry spelled as [`solve`]'s: `None` when unsure.
fn quick_of(cons: &[Lin], s_max: f64) -> Option<Option<Entry>> {
    match quick(cons.len(), |k| short(&cons[k]), s_max) {
        Quick::Empty => Some(None),
        Quick::Zero => Some(Some(Entry::Zero)),
        Quick::Root(k) => Some(Some(Entry::Root(cons[k]))),
        Quick::Unsure => None,
    }
}

/// A rational `n / d`, `d > 0`.
#[derive(Clone, Copy, Debug)]
struct Q(i128, i128);

impl Q {
    fn cmp(self, o: Q) -> Ordering {
        (self.0 * o.1).cmp(&(o.0 * self.1))
    }
    fn mid(self, o: Q) -> Q {
        Q(self.0 * o.1 + o.0 * self.1, 2 * self.1 * o.1)
    }
}

/// `(a, b)` integer constraints `a + b s > 0`.
type Ints = Vec<(i128, i128)>;

fn holds(c: &Ints, s: Q, s_max: Option<i128>) -> bool {
    s.0 >= 0
        && s_max.is_none_or(|m| s.cmp(Q(m, 1)) != Ordering::Greater)
        && c.iter().all(|&(a, b)| a * s.1 + b * s.0 > 0)
}

/// The infimum of the set, or `None`.
fn reference(c: &Ints, s_max: Option<i128>) -> Option<Q> {
    let mut pts = vec![Q(0, 1)];
    for &(a, b) in c {
        if b != 0 {
            pts.push(if b > 0 { Q(-a, b) } else { Q(a, -b) });
        }
    }
    // beyond every root: a point past the last critical one
    let far = pts.iter().map(|q| q.0.abs() / q.1 + 1).max().unwrap_or(1);
    pts.push(Q(s_max.unwrap_or(far + 1), 1));
    pts.retain(|&q| q.0 >= 0 && s_max.is_none_or(|m| q.cmp(Q(m, 1)) != Ordering::Greater));
    pts.sort_by(|x, y| x.cmp(*y));
    for k in 0..pts.len() {
        if holds(c, pts[k], s_max) {
            return Some(pts[k]);
        }
        if k + 1 < pts.len() && holds(c, pts[k].mid(pts[k + 1]), s_max) {
            return Some(pts[k]);
        }
    }
    None
}

fn value(e: &Entry) -> Q {
    match e {
        Entry::Zero => Q(0, 1),
        Entry::Root(p) => {
            let (a, b) = (sum_int(&p.a), sum_int(&p.b));
            if b > 0 {
                Q(-a, b)
            } else {
                Q(a, -b)
            }
        }
    }
}

/// Integers scaled by `2^e` back to integers (`SCALE` is that power).
fn sum_int(s: &Sum) -> i128 {
    SCALE.with(|k| s.terms().iter().map(|v| (v / k.get()) as i128).sum())
}

thread_local! {
    static SCALE: std::cell::Cell<f64> = const { std::cell::Cell::new(1.0) };
}

fn build(ints: &[(i64, i64, i64, i64, i64, i64)], e: i32, nb: usize) -> (Vec<Lin>, Ints) {
    let k = (e as f64).exp2();
    SCALE.with(|c| c.set(k));
    let f = |v: i64| v as f64 * k;
    let mut cons = Vec::new();
    let mut reference = Vec::new();
    for &(a0, a1, b0, b1, b2, b3) in ints {
        let b = match nb {
            1 => Sum::one(f(b0)),
            2 => Sum::two(f(b0), f(b1)),
            _ => Sum::motion(f(b0), f(b1), f(b2), f(b3)),
        };
        let bi = match nb {
            1 => b0,
            2 => b0 + b1,
            _ => b1 - b0 - b3 + b2,
        };
        cons.push(Lin {
            a: Sum::diff(f(a0), f(a1)),
            b,
        });
        reference.push(((a0 - a1) as i128, bi as i128));
    }
    (cons, reference)
}

fn constraint() -> impl Strategy<Value = (i64, i64, i64, i64, i64, i64)> {
    // few values: ties and zero coefficients are common
    let v = || prop_oneof![-6i64..6, -3000i64..3000];
    (v(), v(), v(), v(), v(), v())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn solve_matches_rationals(
        ints in proptest::collection::vec(constraint(), 1..5),
        e in -1070i32..1000, nb in 1usize..4,
        s_max in prop_oneof![Just(None), (0i64..8).prop_map(Some)],
    ) {
        let (cons, refs) = build(&ints, e, nb);
        let got = solve(&cons, s_max.map_or(f64::INFINITY, |m| m as f64));
        let want = reference(&refs, s_max.map(|m| m as i128));
        match (got, want) {
            (None, None) => {}
            (Some(g), Some(w)) => {
                prop_assert_eq!(value(&g).cmp(w), Ordering::Equal, "{:?} vs {:?}", g, w);
                let t = entry_f64(&g);
                prop_assert_eq!(t, w.0 as f64 / w.1 as f64);
            }
            (g, w) => prop_assert!(false, "solve {:?}, reference {:?}", g, w),
        }
    }

    /// Whatever the float pre-test decides is what the exact path gives
    /// (small integers times `2^e`: ties, zero coefficients, subnormal and
    /// huge scales, sums of one, two and four terms).
    #[test]
    fn quick_agrees_with_the_exact_path(
        ints in proptest::collection::vec(constraint(), 1..5),
        e in -1074i32..1020, nb in 1usize..4,
        s_max in prop_oneof![Just(None), (0i64..8).prop_map(Some)],
    ) {
        let (cons, _) = build(&ints, e, nb);
        let s_max = s_max.map_or(f64::INFINITY, |m| m as f64);
        let exact = solve_exact(&cons, s_max);
        if let Some(got) = quick_of(&cons, s_max) {
            prop_assert_eq!(got, exact);
        }
    }

    /// The same on random doubles with roots one ulp or a few apart, and
    /// on a root against `S` one ulp away.
    #[test]
    fn quick_agrees_near_ties(
        r in prop_oneof![1e-300f64..1e-290, 1e-3f64..1e3, 1e290f64..1e300],
        b in prop_oneof![1e-10f64..1e10, Just(1.0)],
        ulps in proptest::collection::vec(-3i32..4, 3),
        signs in proptest::collection::vec(any::<bool>(), 3),
        two in any::<bool>(),
    ) {
        let step = |v: f64, k: i32| (0..k.abs()).fold(v, |v, _| if k > 0 { v.next_up() } else { v.next_down() });
        let cons: Vec<Lin> = ulps.iter().zip(&signs).map(|(&k, &lower)| {
            let root = step(r, k);
            // a + b s > 0 with root -a/b = root, a rounded: the root moves a little
            let bb = if lower { b } else { -b };
            let a = -root * bb;
            let a = if two { Sum::two(a, a * 2f64.powi(-60)) } else { Sum::one(a) };
            Lin { a, b: Sum::one(bb) }
        }).collect();
        for s_max in [f64::INFINITY, step(r, 1), r, step(r, -1), 0.0] {
            let exact = solve_exact(&cons, s_max);
            if let Some(got) = quick_of(&cons, s_max) {
                prop_assert_eq!(got, exact);
            }
            prop_assert_eq!(solve(&cons, s_max), exact);
        }
    }

    #[test]
    fn entries_compare_exactly(
        x in proptest::collection::vec(constraint(), 1..4),
        y in proptest::collection::vec(constraint(), 1..4),
        e in -1070i32..1000, nb in 1usize..4,
    ) {
        let (cx, rx) = build(&x, e, nb);
        let (cy, ry) = build(&y, e, nb);
        if let (Some(gx), Some(gy)) = (solve(&cx, f64::INFINITY), solve(&cy, f64::INFINITY)) {
            let (wx, wy) = (reference(&rx, None).unwrap(), reference(&ry, None).unwrap());
            prop_assert_eq!(cmp_entries(&gx, &gy), wx.cmp(wy));
        }
    }

    /// Roots of sums that floats do not hold exactly round as the exact
    /// quotient does (the reference: `Dyadic` division, itself checked
    /// against IEEE division in `bigint`).
    #[test]
    fn roots_round_to_nearest(a0 in -1e6f64..1e6, a1 in -1e6f64..1e6,
                              b in proptest::collection::vec(-1e3f64..1e3, 4)) {
        let p = Lin { a: Sum::diff(a0, a1), b: Sum::motion(b[0], b[1], b[2], b[3]) };
        prop_assume!(p.b.sign() != 0);
        let want = ratio_to_f64(&-p.a.to::<Dyadic>(), &p.b.to::<Dyadic>());
        prop_assert_eq!(root_f64(&p).to_bits(), want.to_bits());
        let p = Lin { a: Sum::diff(a0, a1), b: Sum::one(b[0]) };
        prop_assume!(b[0] != 0.0);
        let want = ratio_to_f64(&-p.a.to::<Dyadic>(), &p.b.to::<Dyadic>());
        prop_assert_eq!(root_f64(&p).to_bits(), want.to_bits());
    }
}

#[test]
fn grazing_and_degenerate() {
    let c = |a: Sum, b: f64| Lin { a, b: Sum::one(b) };
    // a ray along y = 1 through the box (0, 1) x (1, 2): on its edge, no hit
    let along_edge = [
        c(Sum::diff(-5.0, 0.0), 1.0),  // x > 0
        c(Sum::diff(1.0, -5.0), -1.0), // x < 1
        c(Sum::diff(1.0, 1.0), 0.0),   // y > 1: 0 > 0
        c(Sum::diff(2.0, 1.0), 0.0),   // y < 2
    ];
    assert_eq!(solve(&along_edge, f64::INFINITY), None);
    // through a corner only: enters x at s = 1 where y leaves
    let corner = [
        c(Sum::diff(0.0, 1.0), 1.0),  // s > 1
        c(Sum::diff(1.0, 0.0), -1.0), // s < 1
    ];
    assert_eq!(solve(&corner, f64::INFINITY), None);
    // from inside: t = 0; a zero range: inside at 0 only
    let inside = [c(Sum::diff(1.0, 0.0), 1.0), c(Sum::diff(1.0, 0.0), -1.0)];
    assert_eq!(solve(&inside, 0.0), Some(Entry::Zero));
    assert_eq!(solve(&inside, f64::INFINITY), Some(Entry::Zero));
    // reaching the entry exactly at S: no hit (the set is open there)
    let ahead = [c(Sum::diff(-2.0, 0.0), 1.0)];
    assert_eq!(solve(&ahead, 2.0), None);
    assert!(solve(&ahead, 2.0f64.next_up()).is_some());
}

/// The float pre-test never calls a set empty that is not: roots one ulp
/// apart, in both orders, near 1, near the subnormals and near the top.
#[test]
fn the_float_pretest_only_rejects_empty_sets() {
    for r in [1.0f64, 3.0e-310, 1.0e300, 0.1] {
        let up = r.next_up();
        // lower root r (b > 0: s > r), upper root `up` (b < 0: s < up)
        let lower = Lin {
            a: Sum::one(-r),
            b: Sum::one(1.0),
        };
        let upper = Lin {
            a: Sum::one(up),
            b: Sum::one(-1.0),
        };
        assert_ne!(quick_of(&[lower, upper], f64::INFINITY), Some(None), "{r}");
        assert_eq!(
            solve(&[lower, upper], f64::INFINITY),
            Some(Entry::Root(lower))
        );
        // the other way round: empty, whoever tells
        let lower = Lin {
            a: Sum::one(-up),
            b: Sum::one(1.0),
        };
        let upper = Lin {
            a: Sum::one(r),
            b: Sum::one(-1.0),
        };
        assert_eq!(solve(&[lower, upper], f64::INFINITY), None);
        // a lower root just below S: not empty; at S: empty
        let at = Lin {
            a: Sum::one(-r),
            b: Sum::one(1.0),
        };
        assert_ne!(quick_of(&[at], up), Some(None));
        assert!(solve(&[at], up).is_some());
        assert_eq!(solve(&[at], r), None);
    }
    // b = 0: everywhere or nowhere
    let never = Lin {
        a: Sum::one(0.0),
        b: Sum::one(0.0),
    };
    assert_eq!(quick_of(&[never], 0.0), Some(None));
    let always = Lin {
        a: Sum::one(1.0),
        b: Sum::one(0.0),
    };
    assert_eq!(quick_of(&[always], 0.0), Some(Some(Entry::Zero)));
    assert_eq!(solve(&[always], 0.0), Some(Entry::Zero));
}
