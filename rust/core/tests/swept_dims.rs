//! Swept pairs in 2D and in 3D, each check written once over the dimension:
//! the whole search (the union boxes' candidates, the exact tests, the
//! chunks and their order) against references in integer arithmetic that
//! share nothing with the core (rationals for boxes, the minimum of a
//! quadratic for balls), with and without filters, on one thread and on
//! three; and, when nothing moves, the pairs of `find_pairs` at `t = 0`.

use broadphase_core::check::{ball_boxes, scan_boxes};
use broadphase_core::dim::BallRow;
use broadphase_core::par::Exec;
use broadphase_core::scratch::Pooled;
use broadphase_core::swept::{swept_boxes, swept_circles, Motion, SweptPairs};
use broadphase_core::{find_pairs, Filters, Narrow, Search, Shapes, Width};
use proptest::prelude::*;

/// A rational `n / d`, `d > 0`.
type Ratio = (i128, i128);

fn less(x: Ratio, y: Ratio) -> bool {
    x.0 * y.1 < y.0 * x.1
}

/// The infimum of `{s in [0, 1] : a + b s > 0 for every (a, b)}`, or
/// `None` for the empty set: the greatest lower bound (0 closed, a root
/// open) below the least upper bound (1 closed, a root open).
fn infimum(cons: &[(i128, i128)]) -> Option<Ratio> {
    let (mut low, mut low_open) = ((0, 1), false);
    let (mut high, mut high_open) = ((1, 1), false);
    for &(a, b) in cons {
        if b == 0 {
            if a <= 0 {
                return None;
            }
            continue;
        }
        let r = if b > 0 { (-a, b) } else { (a, -b) };
        let same = |x: Ratio| !less(r, x) && !less(x, r);
        if b > 0 && (less(low, r) || (same(low) && !low_open)) {
            (low, low_open) = (r, true);
        }
        if b < 0 && (less(r, high) || (same(high) && !high_open)) {
            (high, high_open) = (r, true);
        }
    }
    less(low, high).then_some(low)
}

/// The first moment two integer boxes (rows of `N`) moving linearly
/// overlap strictly, in rationals: per axis `k`, `hi_b(s) > lo_a(s)` and
/// `hi_a(s) > lo_b(s)`.
fn box_reference<const N: usize>(
    a: (&[i64; N], &[i64; N]),
    b: (&[i64; N], &[i64; N]),
) -> Option<f64> {
    let d = N / 2;
    let gap = |h: (&[i64; N], &[i64; N]), l: (&[i64; N], &[i64; N]), k: usize| {
        let (h0, h1) = (h.0[d + k] as i128, h.1[d + k] as i128);
        let (l0, l1) = (l.0[k] as i128, l.1[k] as i128);
        (h0 - l0, (h1 - l1) - (h0 - l0))
    };
    let cons: Vec<(i128, i128)> = (0..d).flat_map(|k| [gap(b, a, k), gap(a, b, k)]).collect();
    // n / d below 2^53 both: one correctly rounded division
    infimum(&cons).map(|(n, d)| n as f64 / d as f64)
}

/// The first moment two integer balls (centres of `D`, radii) moving
/// linearly overlap strictly: `f(s) = |p + s v|^2 - r^2` takes a negative
/// value on `[0, 1]` exactly when its minimum there (at the vertex `-B/A`
/// clamped) is negative; the entry as a double from the integers.
fn ball_reference<const D: usize>(p: [i128; D], v: [i128; D], r: i128) -> Option<f64> {
    let dot = |x: &[i128; D], y: &[i128; D]| (0..D).map(|k| x[k] * y[k]).sum::<i128>();
    let (a, b, c) = (dot(&v, &v), dot(&p, &v), dot(&p, &p) - r * r);
    if c < 0 {
        return Some(0.0);
    }
    let below = match (a, -b) {
        (0, _) => false,
        (_, nb) if nb <= 0 => false,
        (a, nb) if nb >= a => a + 2 * b + c < 0, // past the frame's end: f(1)
        _ => a * c - b * b < 0,                  // f at the vertex, times A
    };
    below.then(|| c as f64 / (((b * b - a * c) as f64).sqrt() - b as f64))
}

/// Objects drawn as small integers: per object, a corner, a size, a motion
/// and a change of size on each of 3 axes (2D reads the first two).
type Raw = Vec<[i64; 12]>;

fn raw(max: usize) -> impl Strategy<Value = Raw> {
    proptest::collection::vec(
        (
            prop::array::uniform3(-8i64..8),
            prop::array::uniform3(0i64..4),
            prop::array::uniform3(prop_oneof![3 => Just(0i64), 4 => -10i64..10]),
            prop::array::uniform3(prop_oneof![3 => Just(0i64), 1 => -2i64..3]),
        )
            .prop_map(|(c, w, m, g)| {
                let mut r = [0; 12];
                for k in 0..3 {
                    (r[k], r[3 + k], r[6 + k], r[9 + k]) = (c[k], w[k], m[k], g[k]);
                }
                r
            }),
        0..max,
    )
}

/// The integer boxes of `raw` at the start and at the end (a size may
/// shrink to 0, not below).
fn int_boxes<const N: usize>(raw: &Raw) -> (Vec<[i64; N]>, Vec<[i64; N]>) {
    let d = N / 2;
    let row = |r: &[i64; 12], end: bool| -> [i64; N] {
        std::array::from_fn(|c| {
            let k = c % d;
            let lo = r[k] + if end { r[6 + k] } else { 0 };
            let size = (r[3 + k] + if end { r[9 + k] } else { 0 }).max(0);
            if c < d {
                lo
            } else {
                lo + size
            }
        })
    };
    (
        raw.iter().map(|r| row(r, false)).collect(),
        raw.iter().map(|r| row(r, true)).collect(),
    )
}

/// Filters of `n` objects drawn from `seed` (none for seed 0).
struct Drawn {
    groups: Vec<i64>,
    categories: Vec<u64>,
    masks: Vec<u64>,
}

impl Drawn {
    fn of(n: usize, seed: u64) -> Drawn {
        let n = n as u64;
        Drawn {
            groups: (0..n).map(|k| ((k ^ seed) % 3) as i64).collect(),
            categories: (0..n).map(|k| 1 << ((k * 7 + seed) % 3)).collect(),
            masks: (0..n).map(|k| (k + seed) % 8).collect(),
        }
    }

    fn filters(&self, seed: u64) -> Filters<'_> {
        match seed {
            0 => Filters::default(),
            _ => Filters {
                groups: Some(&self.groups),
                categories: Some(&self.categories),
                masks: Some(&self.masks),
            },
        }
    }
}

/// The reference's pairs: every `i < j` that passes the filters and has a
/// `t`, with it.
fn reference_pairs(
    n: usize,
    filters: &Filters,
    t: impl Fn(usize, usize) -> Option<f64>,
) -> Vec<(usize, usize, f64)> {
    let mut out = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if let Some(s) = t(i, j).filter(|_| filters.pass(i, j)) {
                out.push((i, j, s));
            }
        }
    }
    out
}

fn triples((rows, t): SweptPairs) -> Vec<(usize, usize, f64)> {
    rows.chunks(2)
        .zip(t)
        .map(|(r, s)| (r[0] as usize, r[1] as usize, s))
        .collect()
}

/// Boxes of `N` values: the search on one thread and on three gives the
/// reference's pairs and `t` (correctly rounded, so equal), the integers
/// scaled by `k`; and the still boxes give `find_pairs` at `t = 0`.
fn boxes_match<const N: usize>(raw: &Raw, k: f64, seed: u64) -> Result<(), TestCaseError>
where
    [f64; N]: Width<N> + Pooled,
{
    let (s0, s1) = int_boxes::<N>(raw);
    let scale = |b: &Vec<[i64; N]>| -> Vec<[f64; N]> {
        b.iter().map(|r| r.map(|v| v as f64 * k)).collect()
    };
    let (start, end) = (scale(&s0), scale(&s1));
    let drawn = Drawn::of(raw.len(), seed);
    let filters = drawn.filters(seed);
    let want = reference_pairs(raw.len(), &filters, |i, j| {
        box_reference((&s0[i], &s1[i]), (&s0[j], &s1[j]))
    });
    for workers in [1, 3] {
        let ex = Exec::new(Some(workers));
        let m = Motion {
            start: &start,
            end: &end,
            filters,
        };
        prop_assert_eq!(
            &triples(swept_boxes(&m, &ex).unwrap()),
            &want,
            "workers {}",
            workers
        );
    }
    let ex = Exec::new(Some(2));
    let m = Motion {
        start: &start,
        end: &start,
        filters,
    };
    let (rows, t) = swept_boxes(&m, &ex).unwrap();
    let search = Search {
        boxes: &start,
        bounds: scan_boxes(&start, &ex).unwrap(),
        narrow: Narrow {
            shapes: Shapes::Boxes,
            filters,
        },
        method: broadphase_core::Method::Auto,
        max_pairs: None,
    };
    prop_assert_eq!(rows, find_pairs(&search, &ex).unwrap());
    prop_assert!(t.iter().all(|&s| s == 0.0));
    Ok(())
}

/// `t` within the documented relative `2^-36` of the integers' root (a few
/// ulps from the exact one).
fn close(t: f64, want: f64) -> bool {
    (t - want).abs() <= want * (2f64.powi(-36) + 2f64.powi(-48))
}

/// Balls (rows of `C = D + 1`; boxes of `N`): centres and sizes of `raw`
/// (radius: the first size), scaled by `k`; the search on one thread and on
/// three decides as the integers do, `t` within its bound.
fn balls_match<const C: usize, const D: usize, const N: usize>(
    raw: &Raw,
    k: f64,
    seed: u64,
) -> Result<(), TestCaseError>
where
    [f64; C]: BallRow<D>,
    [f64; N]: Width<N> + Pooled,
{
    let centre = |r: &[i64; 12], end: bool| -> [i64; D] {
        std::array::from_fn(|a| r[a] + if end { r[6 + a] } else { 0 })
    };
    let radius = |r: &[i64; 12]| r[3];
    let row = |r: &[i64; 12], end: bool| -> [f64; C] {
        let c = centre(r, end);
        std::array::from_fn(|a| k * if a < D { c[a] } else { radius(r) } as f64)
    };
    let start: Vec<[f64; C]> = raw.iter().map(|r| row(r, false)).collect();
    let end: Vec<[f64; C]> = raw.iter().map(|r| row(r, true)).collect();
    let drawn = Drawn::of(raw.len(), seed);
    let filters = drawn.filters(seed);
    let want = reference_pairs(raw.len(), &filters, |i, j| {
        let (a, b) = (&raw[i], &raw[j]);
        let (a0, a1, b0, b1) = (
            centre(a, false),
            centre(a, true),
            centre(b, false),
            centre(b, true),
        );
        let p = std::array::from_fn(|x| (a0[x] - b0[x]) as i128);
        let v = std::array::from_fn(|x| ((a1[x] - a0[x]) - (b1[x] - b0[x])) as i128);
        ball_reference::<D>(p, v, (radius(a) + radius(b)) as i128)
    });
    for workers in [1, 3] {
        let ex = Exec::new(Some(workers));
        let boxes: [Vec<[f64; N]>; 2] = [
            ball_boxes(&start, &ex).unwrap(),
            ball_boxes(&end, &ex).unwrap(),
        ];
        let m = Motion {
            start: &start,
            end: &end,
            filters,
        };
        let got = triples(swept_circles(&m, [&boxes[0], &boxes[1]], &ex).unwrap());
        let pairs = |v: &[(usize, usize, f64)]| v.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>();
        prop_assert_eq!(pairs(&got), pairs(&want), "workers {}", workers);
        for (g, w) in got.iter().zip(&want) {
            prop_assert!(close(g.2, w.2), "{:?} against {:?}", g, w);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Boxes in 2D and in 3D, from the tiniest scale to the greatest.
    #[test]
    fn swept_boxes_match_rationals(
        raw in raw(30),
        k in prop_oneof![Just(1.0), Just(0.25), Just(2f64.powi(-1060)), Just(2f64.powi(990))],
        seed in prop_oneof![Just(0u64), 1u64..50],
    ) {
        boxes_match::<4>(&raw, k, seed)?;
        boxes_match::<6>(&raw, k, seed)?;
    }

    /// Circles and spheres.
    #[test]
    fn swept_balls_match_integers(
        raw in raw(30),
        k in prop_oneof![Just(1.0), Just(0.25), Just(2f64.powi(-1060)), Just(2f64.powi(990))],
        seed in prop_oneof![Just(0u64), 1u64..50],
    ) {
        balls_match::<3, 2, 4>(&raw, k, seed)?;
        balls_match::<4, 3, 6>(&raw, k, seed)?;
    }
}

/// A bullet through a floor in z, boxes and spheres; one sliding on it.
#[test]
fn through_a_floor() {
    let ex = Exec::serial();
    let floor = [-10.0, -10.0, 20.0, 10.0, 10.0, 23.0];
    let start = [
        [0.0, 0.0, 40.0, 4.0, 4.0, 44.0],
        floor,
        [-30.0, -10.0, 23.0, -26.0, -6.0, 27.0],
    ];
    let end = [
        [0.0, 0.0, 0.0, 4.0, 4.0, 4.0],
        floor,
        [30.0, -10.0, 23.0, 34.0, -6.0, 27.0],
    ];
    let m = Motion {
        start: &start,
        end: &end,
        filters: Filters::default(),
    };
    assert_eq!(
        triples(swept_boxes(&m, &ex).unwrap()),
        [(0, 1, 17.0 / 40.0)]
    );
    // spheres: one falling through a sphere, one passing by it at a
    // distance of exactly the sum of the radii (touching: no pair)
    let start = [
        [0.0, 0.0, 40.0, 1.0],
        [0.0, 0.0, 0.0, 2.0],
        [3.0, 0.0, 40.0, 1.0],
    ];
    let end = [
        [0.0, 0.0, -40.0, 1.0],
        [0.0, 0.0, 0.0, 2.0],
        [3.0, 0.0, -40.0, 1.0],
    ];
    let boxes: [Vec<[f64; 6]>; 2] = [
        ball_boxes(&start, &ex).unwrap(),
        ball_boxes(&end, &ex).unwrap(),
    ];
    let m = Motion {
        start: &start,
        end: &end,
        filters: Filters::default(),
    };
    let got = triples(swept_circles(&m, [&boxes[0], &boxes[1]], &ex).unwrap());
    assert_eq!(got, [(0, 1, 37.0 / 80.0)]); // |z| < 3 from s = 37/80
}
