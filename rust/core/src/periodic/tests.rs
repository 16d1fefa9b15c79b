//! The periodic search against a reference over copies, in exact integers.

use super::*;
use crate::bigint::Dyadic;
use crate::check::Problem;
use crate::search::Method;
use crate::testing::lcg;

const SHIFTS: i32 = 14; // copies -14 L ..= 14 L cover coordinates within ±6 L

fn dy(x: f64) -> Dyadic {
    Dyadic::of(x)
}

/// `x + k l`, exactly.
fn moved(x: f64, k: i32, l: f64) -> Dyadic {
    dy(x) + dy(l) * dy(f64::from(k))
}

/// The shifts `k` of the copies `x + k l` tried on an axis of period `l`,
/// and the period to shift by (an open axis: the object itself, `k = 0`).
fn copies(l: f64) -> (Vec<i32>, f64) {
    match l.is_finite() {
        true => ((-SHIFTS..=SHIFTS).collect(), l),
        false => (vec![0], 0.0),
    }
}

/// Whether some copy of box `a` strictly overlaps box `b`.
fn boxes_meet<const N: usize>(a: &[f64; N], b: &[f64; N], period: &[f64]) -> bool {
    let d = N / 2;
    (0..d).all(|x| {
        let (ks, l) = copies(period[x]);
        ks.into_iter().any(|k| {
            (moved(a[x], k, l) - dy(b[d + x])).sign() < 0
                && (dy(b[x]) - moved(a[d + x], k, l)).sign() < 0
        })
    })
}

/// Whether some copy of ball `a` overlaps ball `b` (the nearest copy on
/// each axis gives the least distance).
fn balls_meet<const C: usize>(a: &[f64; C], b: &[f64; C], period: &[f64]) -> bool {
    let mut sum = Dyadic::zero();
    for x in 0..C - 1 {
        let (ks, l) = copies(period[x]);
        let least = ks
            .into_iter()
            .map(|k| {
                let d = moved(a[x], k, l) - dy(b[x]);
                d.clone() * d
            })
            .reduce(|m, v| {
                if (v.clone() - m.clone()).sign() < 0 {
                    v
                } else {
                    m
                }
            })
            .unwrap();
        sum = sum + least;
    }
    let s = dy(a[C - 1]) + dy(b[C - 1]);
    (sum - s.clone() * s).sign() < 0
}

/// A coordinate of the kind `kind`: small multiples of 1/8, values near 0
/// and the period, rounded decimals anywhere within ±6 L.
fn coordinate(kind: u64, rnd: &mut impl FnMut() -> f64, l: f64) -> f64 {
    let l = if l.is_finite() { l } else { 10.0 };
    match kind % 5 {
        0 => ((rnd() * 8.0 * l).floor() / 8.0).min(l),
        1 => [0.0, -0.0, l, l.next_down(), (-l).next_up(), 1e-300][(rnd() * 6.0) as usize],
        2 => (rnd() - 0.5) * 12.0 * l,
        3 => l - rnd() * 0.1 * l,
        _ => rnd() * l,
    }
}

fn period_of(d: usize, seed: u64) -> Vec<f64> {
    let choices = [1.0, 0.7, 10.0, 3.0, f64::INFINITY];
    (0..d)
        .map(|k| choices[((seed >> (3 * k)) % 5) as usize])
        .collect()
}

fn random_boxes<const N: usize>(n: usize, period: &[f64], seed: u64) -> Vec<[f64; N]> {
    let mut rnd = lcg(seed);
    let d = N / 2;
    (0..n)
        .map(|t| {
            let mut b = [0.0; N];
            for x in 0..d {
                let l = period[x];
                let lo = coordinate(t as u64 + seed + x as u64, &mut rnd, l);
                let most = if l.is_finite() { l / 2.0 } else { 3.0 };
                let w = match (rnd() * 4.0) as u32 {
                    0 => 0.0,
                    1 => most,
                    _ => rnd() * most,
                };
                b[x] = lo;
                // a width that rounded above half the period: retry smaller
                b[d + x] = if axis::too_wide(lo, lo + w, l) {
                    lo
                } else {
                    lo + w
                };
            }
            b
        })
        .collect()
}

fn random_balls<const C: usize>(n: usize, period: &[f64], seed: u64, one: bool) -> Vec<[f64; C]> {
    let mut rnd = lcg(seed);
    (0..n)
        .map(|t| {
            let mut c = [0.0; C];
            for x in 0..C - 1 {
                c[x] = coordinate(t as u64 + seed + 2 * x as u64, &mut rnd, period[x]);
            }
            let most = period
                .iter()
                .fold(f64::INFINITY, |m, &l| m.min(l / 4.0))
                .min(2.0);
            c[C - 1] = match if one { 2 } else { (rnd() * 4.0) as u32 } {
                0 => 0.0,
                1 => most,
                _ if one => most * 0.3,
                _ => rnd() * most,
            };
            c
        })
        .collect()
}

fn reference<const N: usize>(n: usize, meet: impl Fn(usize, usize) -> bool) -> Vec<isize> {
    let mut out = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if meet(i, j) {
                out.extend([i as isize, j as isize]);
            }
        }
    }
    out
}

/// `find_periodic_pairs` in `domain` equals `want`, for every method and
/// both thread counts.
pub(super) fn every_method<const N: usize>(s: Search<N>, domain: Domain, want: &[isize], what: &str)
where
    [f64; N]: Periodic<N>,
{
    for method in [
        Method::Brute,
        Method::Sweep,
        Method::Grid,
        Method::Quadtree,
        Method::Auto,
    ] {
        for w in [1, 2] {
            let got = find_periodic_pairs(&Search { method, ..s }, domain, &Exec::new(Some(w)));
            assert_eq!(got.as_deref(), Ok(want), "{what} {method:?} {w} threads");
        }
    }
}

fn check_boxes<const N: usize>(seed: u64)
where
    [f64; N]: Periodic<N>,
{
    let period = period_of(N / 2, seed);
    let boxes = random_boxes::<N>(60, &period, seed);
    let want = reference::<N>(boxes.len(), |i, j| {
        boxes_meet(&boxes[i], &boxes[j], &period)
    });
    let s = Search::of_boxes(&boxes, &Exec::serial()).unwrap();
    every_method(
        s,
        Domain::Axes(&period),
        &want,
        &format!("boxes seed {seed} period {period:?}"),
    );
}

fn check_balls<const C: usize, const N: usize>(
    seed: u64,
    one: bool,
    shapes: for<'s> fn(&'s [[f64; C]]) -> Shapes<'s>,
) where
    [f64; N]: Periodic<N>,
{
    let period = period_of(N / 2, seed);
    // one radius: the cell list (`Auto`) takes them
    let balls = random_balls::<C>(if one { 130 } else { 60 }, &period, seed, one);
    let want = reference::<N>(balls.len(), |i, j| {
        balls_meet(&balls[i], &balls[j], &period)
    });
    balls_with_and_without_groups::<C, N>(
        &balls,
        shapes,
        Domain::Axes(&period),
        &want,
        &format!("balls seed {seed} period {period:?}"),
    );
}

/// [`every_method`] on `balls` (their shapes by `shapes`) in `domain`
/// against `want`, then again with a group filter (pairs within a non-zero
/// group dropped from `want`).
pub(super) fn balls_with_and_without_groups<const C: usize, const N: usize>(
    balls: &[[f64; C]],
    shapes: for<'s> fn(&'s [[f64; C]]) -> Shapes<'s>,
    domain: Domain,
    want: &[isize],
    what: &str,
) where
    [f64; N]: Periodic<N>,
{
    let boxes: Vec<[f64; N]> = balls.iter().map(crate::check::ball_box).collect();
    let mut s = Search::of_boxes(&boxes, &Exec::serial()).unwrap();
    s.narrow.shapes = shapes(balls);
    every_method(s, domain, want, what);
    let groups: Vec<i64> = (0..balls.len() as i64).map(|k| k % 3).collect();
    let kept: Vec<isize> = want
        .chunks(2)
        .filter(|p| groups[p[0] as usize] == 0 || groups[p[0] as usize] != groups[p[1] as usize])
        .flatten()
        .copied()
        .collect();
    s.narrow.filters.groups = Some(&groups);
    every_method(s, domain, &kept, &format!("filtered {what}"));
}

#[test]
fn boxes_equal_the_reference_over_copies() {
    for seed in 0..40 {
        check_boxes::<4>(seed);
        check_boxes::<6>(seed);
    }
}

#[test]
fn balls_equal_the_reference_over_copies() {
    for seed in 0..40 {
        for one in [false, true]
            .into_iter()
            .filter(|&one| !one || seed % 4 == 0)
        {
            check_balls::<3, 4>(seed, one, |c| Shapes::Circles(c));
            check_balls::<4, 6>(seed, one, |c| Shapes::Spheres(c));
        }
    }
}

#[test]
fn pairs_across_the_boundary_and_at_its_corner() {
    let period = [10.0, 10.0];
    let boxes = [
        [9.0, 9.0, 11.0, 11.0], // reaches past both sides
        [0.5, 0.5, 1.5, 1.5],   // meets box 0's copy shifted by (-10, -10)
        [-0.5, 4.0, 0.5, 5.0],  // given below 0: meets box 3 by its own copy
        [9.8, 4.2, 10.0, 4.8],  // at the far edge
        [10.0, 0.0, 10.0, 0.0], // a point on the boundary: no width, no pair
    ];
    let s = Search::of_boxes(&boxes, &Exec::serial()).unwrap();
    let got = find_periodic_pairs(&s, Domain::Axes(&period), &Exec::serial()).unwrap();
    assert_eq!(got, vec![0, 1, 0, 4, 2, 3]); // box 0 shifted by (0, -10) holds the point
}

#[test]
fn a_filter_applies_to_the_objects_of_the_images() {
    let boxes = [
        [9.0, 0.0, 11.0, 1.0],
        [0.5, 0.0, 1.5, 1.0],
        [0.2, 0.0, 0.6, 1.0],
    ];
    let groups = [5, 5, 0];
    let mut s = Search::of_boxes(&boxes, &Exec::serial()).unwrap();
    s.narrow.filters.groups = Some(&groups);
    let got =
        find_periodic_pairs(&s, Domain::Axes(&[10.0, f64::INFINITY]), &Exec::serial()).unwrap();
    assert_eq!(got, vec![0, 2, 1, 2]);
}

#[test]
fn more_than_half_the_period_is_refused_by_row() {
    let boxes = [[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 5.5]];
    let s = Search::of_boxes(&boxes, &Exec::serial()).unwrap();
    let got = find_periodic_pairs(&s, Domain::Axes(&[10.0, 10.0]), &Exec::serial());
    assert_eq!(
        got,
        Err(Refused::Bad(BadRow {
            row: 1,
            problem: Problem::YWide
        }))
    );
    // exactly half is taken
    let boxes = [[0.0, 0.0, 5.0, 5.0]];
    let s = Search::of_boxes(&boxes, &Exec::serial()).unwrap();
    assert_eq!(
        find_periodic_pairs(&s, Domain::Axes(&[10.0, 10.0]), &Exec::serial()),
        Ok(vec![])
    );
}

#[test]
fn distances_and_vectors_take_the_nearest_copy() {
    let balls = [[0.5, 9.5, 1.0], [9.5, 0.5, 1.0], [-19.5, 5.0, 1.0]];
    let period = [10.0, 10.0];
    let flat = [0, 1, 0, 2];
    let v = measure::vectors(&balls, Domain::Axes(&period), &flat, &Exec::serial());
    assert_eq!(v, vec![-1.0, 1.0, 0.0, -4.5]);
    let d = measure::distances(&balls, Domain::Axes(&period), &flat, &Exec::serial());
    assert_eq!(d, vec![2f64.sqrt(), 4.5]);
    // every centre inside [0, L): read from the rows, radii left out
    let inside = [[0.5, 9.5, 0.25], [9.5, 0.5, 3.0], [5.0, 5.0, 1.0]];
    let flat = [0, 1, 1, 2];
    let v = measure::vectors(&inside, Domain::Axes(&period), &flat, &Exec::serial());
    assert_eq!(v, vec![-1.0, 1.0, -4.5, 4.5]);
    let d = measure::distances(&inside, Domain::Axes(&period), &flat, &Exec::serial());
    assert_eq!(d, vec![2f64.sqrt(), 40.5f64.sqrt()]);
}
