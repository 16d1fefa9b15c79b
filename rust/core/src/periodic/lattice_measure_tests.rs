//! Triclinic distances and vectors against the meeting copy found in exact
//! integers, and the cell list's widening for rounded far objects.

#![allow(clippy::needless_range_loop)] // axis loops read as the formulas

use super::lattice_tests::{ball_copies_meeting, cell, coordinate, copies, dy, reference, shift};
use super::tests::every_method;
use super::*;
use crate::bigint::Dyadic;
use crate::testing::lcg;

#[test]
fn distances_and_vectors_take_the_meeting_copy() {
    for seed in 0..20u64 {
        let mut rnd = lcg(seed + 77);
        let lat = cell(3, &mut rnd);
        let most = (0..3).fold(f64::INFINITY, |m, k| m.min(lat.side(k) / 4.0));
        let balls: Vec<[f64; 4]> = (0..80)
            .map(|_| {
                let mut c = [0.0; 4];
                for k in 0..3 {
                    c[k] = coordinate(&lat, k, &mut rnd);
                }
                c[3] = most * (0.5 + 0.5 * rnd());
                c
            })
            .collect();
        let boxes: Vec<[f64; 6]> = balls.iter().map(crate::check::ball_box).collect();
        let mut s = Search::of_boxes(&boxes, &Exec::serial()).unwrap();
        s.narrow.shapes = Shapes::Spheres(&balls);
        let flat = find_periodic_pairs(&s, Domain::Lattice(&lat), &Exec::serial()).unwrap();
        let v = measure::vectors(&balls, Domain::Lattice(&lat), &flat, &Exec::serial());
        let dist = measure::distances(&balls, Domain::Lattice(&lat), &flat, &Exec::serial());
        for (p, pair) in flat.chunks(2).enumerate() {
            let (a, b) = (&balls[pair[0] as usize], &balls[pair[1] as usize]);
            // the one copy of `a` that meets `b`, found in integers
            let reach = dy(a[3]) + dy(b[3]);
            let n = copies(&lat, &a[..3], &b[..3], |_, _| true)
                .into_iter()
                .find(|n| {
                    let sum = (0..3).fold(Dyadic::zero(), |s, k| {
                        let g = dy(a[k]) + shift(&lat, n, k) - dy(b[k]);
                        s + g.clone() * g
                    });
                    (sum - reach.clone() * reach.clone()).sign() < 0
                })
                .unwrap();
            // the floats are within rounding of the largest value in the
            // sums (a coordinate, or a shift by the tilts)
            let scale = 10.0 * (1.0 + a.iter().chain(b).map(|x| x.abs()).sum::<f64>());
            let mut len2 = 0.0;
            for k in 0..3 {
                let want = (dy(b[k]) - dy(a[k]) - shift(&lat, &n, k)).to_f64();
                assert!(
                    (v[3 * p + k] - want).abs() <= 1e-12 * scale,
                    "{seed} {pair:?} {k} {} {want} {a:?} {b:?} {n:?} {lat:?}",
                    v[3 * p + k]
                );
                len2 += want * want;
            }
            assert!((dist[p] - len2.sqrt()).abs() <= 1e-12 * scale);
        }
    }
}

#[test]
fn a_tie_in_floats_takes_the_meeting_copy() {
    // |1e-300 - (-3.75)| rounds to 3.75, the meeting copy's 3.75 - 1e-300
    // too: only the exact comparison tells the copy shifted by +a
    let lat = Lattice::new(&[&[7.5, 0.0, 0.0], &[0.0, 10.0, 0.0], &[0.0, 5.0, 10.0]]).unwrap();
    let balls = [[-3.75, 0.0, 0.0, 1.875], [1e-300, 0.0, 0.0, 1.875]];
    let flat = [0, 1];
    let domain = Domain::Lattice(&lat);
    assert_eq!(
        measure::vectors(&balls, domain, &flat, &Exec::serial()),
        [-3.75, 0.0, 0.0]
    );
    let boxes: Vec<[f64; 6]> = balls.iter().map(crate::check::ball_box).collect();
    let mut s = Search::of_boxes(&boxes, &Exec::serial()).unwrap();
    s.narrow.shapes = Shapes::Spheres(&balls);
    assert_eq!(
        find_periodic_pairs(&s, domain, &Exec::serial()),
        Ok(vec![0, 1])
    );
}

#[test]
fn the_cell_list_widens_its_filter_by_the_rounding_of_far_objects() {
    let lat = Lattice::new(&[&[0.7, 0.0, 0.0], &[0.3, 0.9, 0.0], &[0.2, -0.3, 1.1]]).unwrap();
    let r = 0.1;
    // a ball about 1e5 cells away: its canonical centre rounds
    let w = [123_457.0, -98_765.0, 54_321.0];
    let far: [f64; 3] = std::array::from_fn(|k| {
        [0.2, 0.3, 0.4][k] + (k..3).map(|m| w[m] * lat.at(m, k)).sum::<f64>()
    });
    let im = lattice_images::of_balls::<4, 6>(
        &[[far[0], far[1], far[2], r]],
        &lat,
        false,
        &Exec::serial(),
    )
    .unwrap();
    let (got, wrap) = (im.balls[0], im.wraps[0]);
    let truth = |k: usize| {
        (k..3).fold(dy(far[k]), |s, m| {
            s - dy(f64::from(wrap[m])) * dy(lat.at(m, k))
        })
    };
    let e = (truth(0) - dy(got[0])).to_f64();
    assert!(e.abs() > 1e-13, "the canonical centre rounded: {e}");
    // the second ball 2r + e/2 from the rounded centre on x: 2r - e/2 from
    // the true one, a pair the float distance alone would drop
    let near = [
        got[0] + (2.0 * r + e.abs() / 2.0).copysign(e),
        got[1],
        got[2],
        r,
    ];
    let mut balls = vec![[far[0], far[1], far[2], r], near];
    for t in 0..120 {
        let (i, j) = ((t % 10) as f64, (t / 10) as f64);
        balls.push([0.01 + 0.065 * i, 0.5 + 0.033 * j, 0.9, r]);
    }
    assert_eq!(ball_copies_meeting(&lat, &balls[0], &balls[1]), 1);
    let d2: f64 = (0..3).map(|k| (near[k] - got[k]).powi(2)).sum();
    assert!(d2 >= (2.0 * r) * (2.0 * r), "the floats alone say apart");
    let want = reference(balls.len(), |i, j| {
        ball_copies_meeting(&lat, &balls[i], &balls[j])
    });
    let boxes: Vec<[f64; 6]> = balls.iter().map(crate::check::ball_box).collect();
    let mut s = Search::of_boxes(&boxes, &Exec::serial()).unwrap();
    s.narrow.shapes = Shapes::Spheres(&balls);
    every_method(
        s,
        Domain::Lattice(&lat),
        &want,
        "a pair within rounding of the cutoff",
    );
    assert_eq!(&want[..2], &[0, 1]);
}
