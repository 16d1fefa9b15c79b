//! The triclinic search against a reference over lattice copies, in exact
//! integers: every method, both thread counts, boxes and balls, with
//! coordinates inside the cell, on its faces and many cells away.

#![allow(clippy::needless_range_loop)] // axis loops read as the formulas

use super::tests::{balls_with_and_without_groups, every_method};
use super::*;
use crate::bigint::Dyadic;
use crate::check::Problem;
use crate::testing::lcg;

pub(super) fn dy(x: f64) -> Dyadic {
    Dyadic::of(x)
}

/// `(n H)_k`, exactly.
pub(super) fn shift(lat: &Lattice, n: &[i32; 3], k: usize) -> Dyadic {
    (0..lat.dims()).fold(Dyadic::zero(), |s, m| {
        s + dy(f64::from(n[m])) * dy(lat.at(m, k))
    })
}

/// The shifts `n` of `a`'s copies worth trying against `b`, axis by axis
/// from the last (`n_k` within 3 of a float estimate of the nearest), kept
/// while `keep(n, k)` holds on the axes chosen so far.
pub(super) fn copies(
    lat: &Lattice,
    a: &[f64],
    b: &[f64],
    keep: impl Fn(&[i32; 3], usize) -> bool,
) -> Vec<[i32; 3]> {
    let d = lat.dims();
    let mut out = vec![[0; 3]];
    for k in (0..d).rev() {
        let mut next = Vec::new();
        for n in out {
            // the estimate: the float difference with the later shifts applied
            let later: f64 = (k + 1..d).map(|m| f64::from(n[m]) * lat.at(m, k)).sum();
            let est = ((b[k] - a[k] - later) / lat.side(k)).round() as i32;
            for nk in est - 3..=est + 3 {
                let mut n = n;
                n[k] = nk;
                if keep(&n, k) {
                    next.push(n);
                }
            }
        }
        out = next;
    }
    out
}

/// How many copies of box `a` strictly overlap box `b`.
fn box_copies_meeting<const N: usize>(lat: &Lattice, a: &[f64; N], b: &[f64; N]) -> usize {
    let d = N / 2;
    copies(lat, &a[..d], &b[..d], |n, k| {
        let s = shift(lat, n, k);
        (dy(a[k]) + s.clone() - dy(b[d + k])).sign() < 0 && (dy(b[k]) - dy(a[d + k]) - s).sign() < 0
    })
    .len()
}

/// How many copies of ball `a` overlap ball `b`.
pub(super) fn ball_copies_meeting<const C: usize>(
    lat: &Lattice,
    a: &[f64; C],
    b: &[f64; C],
) -> usize {
    let d = C - 1;
    let reach = dy(a[d]) + dy(b[d]);
    let gap = |n: &[i32; 3], k: usize| dy(a[k]) + shift(lat, n, k) - dy(b[k]);
    copies(lat, &a[..d], &b[..d], |n, k| {
        let g = gap(n, k);
        (g.clone() * g - reach.clone() * reach.clone()).sign() < 0
    })
    .into_iter()
    .filter(|n| {
        let sum = (0..d).fold(Dyadic::zero(), |s, k| {
            let g = gap(n, k);
            s + g.clone() * g
        });
        (sum - reach.clone() * reach.clone()).sign() < 0
    })
    .count()
}

/// A reduced cell of `d` axes: sides of a few sizes, tilts of every kind
/// (none, exactly half the side either way or a little past it, eighths,
/// any).
pub(super) fn cell(d: usize, rnd: &mut impl FnMut() -> f64) -> Lattice {
    let sides = [1.0, 0.7, 10.0, 3.0];
    let mut h = [[0.0; 3]; 3];
    for m in 0..d {
        h[m][m] = sides[(rnd() * 4.0) as usize];
    }
    for m in 0..d {
        for k in 0..m {
            let half = h[k][k] / 2.0;
            h[m][k] = match (rnd() * 6.0) as u32 {
                0 => 0.0,
                1 => half,
                2 => -half,
                // a half tilt as single precision writes it: a little past
                5 => half * 1.000_001 * if rnd() < 0.5 { 1.0 } else { -1.0 },
                3 => ((rnd() - 0.5) * 8.0 * half).round() / 8.0,
                _ => (rnd() - 0.5) * 2.0 * half,
            };
        }
    }
    let rows: Vec<&[f64]> = h[..d].iter().map(|r| &r[..d]).collect();
    Lattice::new(&rows).unwrap()
}

/// A coordinate on axis `k`: eighths, the faces, rounded decimals within
/// a few cells, and far away (about 1e5 cells).
pub(super) fn coordinate(lat: &Lattice, k: usize, rnd: &mut impl FnMut() -> f64) -> f64 {
    let l = lat.side(k);
    match (rnd() * 6.0) as u32 {
        0 => ((rnd() * 8.0 * l).floor() / 8.0).min(l),
        1 => [0.0, -0.0, l, l.next_down(), (-l).next_up()][(rnd() * 5.0) as usize],
        2 => (rnd() - 0.5) * 6.0 * l,
        3 => (rnd() - 0.5) * 2e5 * l,
        _ => rnd() * l,
    }
}

pub(super) fn reference(n: usize, meets: impl Fn(usize, usize) -> usize) -> Vec<isize> {
    let mut out = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            let m = meets(i, j);
            assert!(m <= 1, "at most one copy meets ({i}, {j}): {m}");
            if m == 1 {
                out.extend([i as isize, j as isize]);
            }
        }
    }
    out
}

fn check_boxes<const N: usize>(seed: u64)
where
    [f64; N]: Periodic<N>,
{
    let d = N / 2;
    let mut rnd = lcg(seed);
    let lat = cell(d, &mut rnd);
    let boxes: Vec<[f64; N]> = (0..60)
        .map(|_| {
            let mut b = [0.0; N];
            for k in 0..d {
                let lo = coordinate(&lat, k, &mut rnd);
                let most = lat.side(k) / 2.0;
                let w = [0.0, most, rnd() * most, rnd() * most][(rnd() * 4.0) as usize];
                b[k] = lo;
                b[d + k] = if axis::too_wide(lo, lo + w, lat.side(k)) {
                    lo
                } else {
                    lo + w
                };
            }
            b
        })
        .collect();
    let want = reference(boxes.len(), |i, j| {
        box_copies_meeting(&lat, &boxes[i], &boxes[j])
    });
    let s = Search::of_boxes(&boxes, &Exec::serial()).unwrap();
    every_method(
        s,
        Domain::Lattice(&lat),
        &want,
        &format!("boxes seed {seed} {lat:?}"),
    );
}

fn check_balls<const C: usize, const N: usize>(
    seed: u64,
    one: bool,
    shapes: for<'s> fn(&'s [[f64; C]]) -> Shapes<'s>,
) where
    [f64; N]: Periodic<N>,
{
    let d = C - 1;
    let mut rnd = lcg(seed + 1000);
    let lat = cell(d, &mut rnd);
    let most = (0..d).fold(f64::INFINITY, |m, k| m.min(lat.side(k) / 4.0));
    // one radius, and enough balls: the cell list (`Auto`) takes them
    let balls: Vec<[f64; C]> = (0..if one { 130 } else { 60 })
        .map(|_| {
            let mut c = [0.0; C];
            for k in 0..d {
                c[k] = coordinate(&lat, k, &mut rnd);
            }
            c[d] = if one {
                most * 0.6
            } else {
                [0.0, most, rnd() * most][(rnd() * 3.0) as usize]
            };
            c
        })
        .collect();
    let want = reference(balls.len(), |i, j| {
        ball_copies_meeting(&lat, &balls[i], &balls[j])
    });
    let what = format!("balls seed {seed} {lat:?}");
    balls_with_and_without_groups::<C, N>(&balls, shapes, Domain::Lattice(&lat), &want, &what);
}

#[test]
fn boxes_in_a_cell_equal_the_reference_over_copies() {
    for seed in 0..30 {
        check_boxes::<4>(seed);
        check_boxes::<6>(seed);
    }
}

#[test]
fn balls_in_a_cell_equal_the_reference_over_copies() {
    for seed in 0..30 {
        for one in [false, true] {
            check_balls::<3, 4>(seed, one, |c| Shapes::Circles(c));
            check_balls::<4, 6>(seed, one, |c| Shapes::Spheres(c));
        }
    }
}

#[test]
fn a_pair_through_a_tilted_face() {
    // a = (10, 0), b = (5, 10): the copy of the point near the top face
    // comes back shifted by -b, 5 to the left
    let lat = Lattice::new(&[&[10.0, 0.0], &[5.0, 10.0]]).unwrap();
    let balls = [[6.0, 9.5, 0.5], [1.0, 0.0, 0.5], [6.0, 0.0, 0.5]];
    let boxes: Vec<[f64; 4]> = balls.iter().map(crate::check::ball_box).collect();
    let mut s = Search::of_boxes(&boxes, &Exec::serial()).unwrap();
    s.narrow.shapes = Shapes::Circles(&balls);
    let got = find_periodic_pairs(&s, Domain::Lattice(&lat), &Exec::serial()).unwrap();
    // (6, 9.5) - b = (1, -0.5): 0.5 from ball 1; ball 2 is 5 from it
    assert_eq!(got, vec![0, 1]);
}

#[test]
fn too_far_and_too_wide_are_refused_by_row() {
    let lat = Lattice::new(&[&[1.0, 0.0], &[0.5, 1.0]]).unwrap();
    let search = |boxes: &[[f64; 4]]| {
        let s = Search::of_boxes(boxes, &Exec::serial()).unwrap();
        find_periodic_pairs(&s, Domain::Lattice(&lat), &Exec::serial())
    };
    let refused = |problem| Err(Refused::Bad(BadRow { row: 1, problem }));
    assert_eq!(
        search(&[[0.0, 0.0, 0.5, 0.5], [0.0, 1e9, 0.1, 1e9]]),
        refused(Problem::Far)
    );
    // the limit: 2^22 of the smallest side (1) from the origin, exactly
    let edge = (1u64 << 22) as f64;
    assert!(search(&[[0.0, -edge, 0.1, -edge], [edge, 0.0, edge, 0.1]]).is_ok());
    assert_eq!(
        search(&[[0.0, 0.0, 0.1, 0.1], [edge, 0.0, edge.next_up(), 0.1]]),
        refused(Problem::Far)
    );
    assert_eq!(
        search(&[[0.0, 0.0, 0.5, 0.5], [0.0, 0.0, 0.5, 0.5f64.next_up()]]),
        refused(Problem::YWide)
    );
}

#[test]
fn a_box_cell_gives_the_orthorhombic_pairs() {
    let lat = Lattice::new(&[&[10.0, 0.0], &[0.0, 10.0]]).unwrap();
    let boxes = [
        [9.0, 9.0, 11.0, 11.0],
        [0.5, 0.5, 1.5, 1.5],
        [-0.5, 4.0, 0.5, 5.0],
        [9.8, 4.2, 10.0, 4.8],
        [10.0, 0.0, 10.0, 0.0],
    ];
    let s = Search::of_boxes(&boxes, &Exec::serial()).unwrap();
    let by_cell = find_periodic_pairs(&s, Domain::Lattice(&lat), &Exec::serial());
    let by_axes = find_periodic_pairs(&s, Domain::Axes(&[10.0, 10.0]), &Exec::serial());
    assert_eq!(by_cell, by_axes);
    assert_eq!(by_cell.unwrap(), vec![0, 1, 0, 4, 2, 3]);
}

#[test]
fn a_ghost_whose_shift_nearly_cancels_is_made() {
    // n = (-1, 2, 1): on x the shift -1 + 2 (0.3) + c_x is 3 * 2^-54, while
    // its rounded sum is 2^-52: a margin on the sum alone drops the ghost
    let cx = f64::from_bits(0x3fd9_9999_9999_999d);
    let lat = Lattice::new(&[&[1.0, 0.0, 0.0], &[0.3, 1.0, 0.0], &[cx, -0.501, 1.0]]).unwrap();
    let boxes = [
        [0.0, 0.0, 0.0, 1e-17, 0.1, 0.1],
        [1.7e-16, 0.9999, 0.9, 2e-16, 1.4994, 1.3],
    ];
    assert_eq!(box_copies_meeting(&lat, &boxes[0], &boxes[1]), 1);
    let s = Search::of_boxes(&boxes, &Exec::serial()).unwrap();
    every_method(
        s,
        Domain::Lattice(&lat),
        &[0, 1],
        "a nearly cancelling shift",
    );
}
