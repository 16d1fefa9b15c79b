//! 3D searches: every method against the naive reference and against plain
//! integer arithmetic, for boxes, spheres and filters, on one thread and on
//! several.

mod common;

use broadphase_core::check::{ball_boxes, scan_boxes, BadRow, Problem};
use broadphase_core::par::Exec;
use broadphase_core::testing::flat;
use broadphase_core::{find_pairs, naive, Filters, Method, Narrow, Search, Shapes};
use common::{check_all, check_filters, METHODS};
use proptest::prelude::*;

/// 3D boxes on a coarse integer lattice (ties, touching faces, zero sizes)
/// at a random scale and offset, and the same boxes in integers.
fn boxes_strategy(max: usize) -> impl Strategy<Value = (Vec<[f64; 6]>, Vec<[i64; 6]>)> {
    (
        proptest::collection::vec(
            (
                (0i64..24, 0i64..24, 0i64..24),
                (0i64..9, 0i64..9, 0i64..9),
                0u8..10,
            ),
            0..max,
        ),
        -20i32..20,
        prop_oneof![Just(0.0), -1e3..1e3f64],
    )
        .prop_map(|(raw, e, off)| {
            let s = (e as f64).exp2();
            // the offset a multiple of the step: every coordinate exact
            let off = (off / s).round() * s;
            let ints: Vec<[i64; 6]> = raw
                .into_iter()
                .map(|((x, y, z), (w, h, d), kind)| {
                    // kind 0: a big box; 1: a point; else the drawn size
                    let (w, h, d) = match kind {
                        0 => (3 * w, 3 * h, 3 * d),
                        1 => (0, 0, 0),
                        _ => (w, h, d),
                    };
                    [x, y, z, x + w, y + h, z + d]
                })
                .collect();
            let boxes = ints
                .iter()
                .map(|b| std::array::from_fn(|c| off + b[c] as f64 * s))
                .collect();
            (boxes, ints)
        })
}

/// The pairs of integer boxes by the strict rule, on every axis.
fn integer_pairs(ints: &[[i64; 6]]) -> Vec<isize> {
    let mut out = Vec::new();
    for i in 0..ints.len() {
        for j in i + 1..ints.len() {
            let (a, b) = (ints[i], ints[j]);
            if (0..3).all(|k| a[k] < b[3 + k] && b[k] < a[3 + k]) {
                out.extend([i as isize, j as isize]);
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn boxes_match_integers_and_naive((boxes, ints) in boxes_strategy(300)) {
        let want = integer_pairs(&ints);
        prop_assert_eq!(&flat(&naive::pairs(&boxes, &Narrow::default())), &want);
        check_all(&boxes, Narrow::default(), &want)?;
    }

    #[test]
    fn filters_match_naive((boxes, _) in boxes_strategy(200), seed in any::<u64>()) {
        check_filters(&boxes, seed)?;
    }

    #[test]
    fn spheres_match_integers(
        raw in proptest::collection::vec((0i64..60, 0i64..60, 0i64..60, 0i64..12), 0..250),
        e in -1070i32..1000,
    ) {
        // integer spheres scaled by 2^e: many exact touchings (Pythagorean
        // quadruples), every magnitude down to the subnormals
        let s = (e as f64).exp2();
        let balls: Vec<[f64; 4]> = raw.iter()
            .map(|&(x, y, z, r)| [x as f64 * s, y as f64 * s, z as f64 * s, r as f64 * s])
            .collect();
        let boxes: Vec<[f64; 6]> = ball_boxes(&balls, &Exec::serial()).unwrap();
        let narrow = Narrow { shapes: Shapes::Spheres(&balls), filters: Filters::default() };
        let mut want = Vec::new();
        for i in 0..raw.len() {
            for j in i + 1..raw.len() {
                let (a, b) = (raw[i], raw[j]);
                let d2 = (a.0 - b.0).pow(2) + (a.1 - b.1).pow(2) + (a.2 - b.2).pow(2);
                if d2 < (a.3 + b.3).pow(2) {
                    want.extend([i as isize, j as isize]);
                }
            }
        }
        check_all(&boxes, narrow, &want)?;
    }
}

#[test]
fn touching_faces_edges_and_corners_are_no_pairs() {
    // a 3 x 3 x 3 block of unit cubes: every neighbour only touches
    let cubes: Vec<[f64; 6]> = (0..27)
        .map(|k| {
            let (x, y, z) = ((k % 3) as f64, ((k / 3) % 3) as f64, (k / 9) as f64);
            [x, y, z, x + 1.0, y + 1.0, z + 1.0]
        })
        .collect();
    check_all(&cubes, Narrow::default(), &[]).unwrap();
    // a cube inside the centre one meets it alone; one straddling the
    // corner (1, 1, 1) meets the 8 cubes around that corner
    let mut more = cubes.clone();
    more.push([1.25, 1.25, 1.25, 1.75, 1.75, 1.75]);
    check_all(&more, Narrow::default(), &[13, 27]).unwrap();
    more[27] = [0.5, 0.5, 0.5, 1.5, 1.5, 1.5];
    let want: Vec<isize> = [0, 1, 3, 4, 9, 10, 12, 13]
        .iter()
        .flat_map(|&i| [i, 27])
        .collect();
    check_all(&more, Narrow::default(), &want).unwrap();
}

#[test]
fn apart_in_z_alone() {
    // equal in x and y, apart (or touching) in z only: a 2D search of their
    // shadows would pair them all
    let stack: Vec<[f64; 6]> = (0..2000)
        .map(|k| [0.0, 0.0, k as f64, 1.0, 1.0, k as f64 + 1.0])
        .collect();
    check_all(&stack, Narrow::default(), &[]).unwrap();
    let thick: Vec<[f64; 6]> = (0..2000)
        .map(|k| [0.0, 0.0, k as f64, 1.0, 1.0, k as f64 + 1.5])
        .collect();
    let want: Vec<isize> = (0..1999).flat_map(|k| [k, k + 1]).collect();
    check_all(&thick, Narrow::default(), &want).unwrap();
}

#[test]
fn one_ulp_slabs() {
    let up = |v: f64| v.next_up();
    let slabs = [
        [0.0, 0.0, 1.0, 5.0, 5.0, up(1.0)],
        [0.0, 0.0, up(1.0), 5.0, 5.0, 2.0],
        [1.0, 1.0, 1.0, 2.0, 2.0, up(1.0)],
        [0.0, 0.0, 0.0, 5.0, 5.0, 1.0],
    ];
    // 0 and 1 touch at z = 1 + ulp; 0 and 2 share the slab; 3 ends at z = 1
    check_all(&slabs, Narrow::default(), &[0, 2]).unwrap();
}

#[test]
fn bad_rows_name_the_axis() {
    let ex = Exec::serial();
    let mut boxes = vec![[0.0, 0.0, 0.0, 1.0, 1.0, 1.0]; 5];
    boxes[3] = [0.0, 0.0, 2.0, 1.0, 1.0, 1.0];
    assert_eq!(
        scan_boxes(&boxes, &ex),
        Err(BadRow {
            row: 3,
            problem: Problem::ZReversed
        })
    );
    boxes[1] = [0.0, 0.0, 0.0, 1.0, 1.0, f64::NAN];
    assert_eq!(scan_boxes(&boxes, &ex).unwrap_err().row, 1);
    let balls = [[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, -1.0]];
    assert_eq!(
        ball_boxes::<4, 6>(&balls, &ex),
        Err(BadRow {
            row: 1,
            problem: Problem::NegativeRadius
        })
    );
    // a sphere's box: each side the nearest double outward
    let b: Vec<[f64; 6]> = ball_boxes(&[[0.1, 4.0, -4.0, 4.0]], &ex).unwrap();
    assert_eq!([b[0][1], b[0][2], b[0][4], b[0][5]], [0.0, -8.0, 8.0, 0.0]);
    // 0.1 + 4 is not a double: the sides lie outside it, one double apart
    assert!(b[0][0] < -3.9 && b[0][3] > 4.1);
    assert_eq!(b[0][3].next_down(), 0.1 + 4.0);
}

/// `n` boxes at hashed places in a cube of side 100, sides from `side`.
fn hashed(n: u64, side: impl Fn(u64) -> f64) -> Vec<[f64; 6]> {
    (0..n)
        .map(|k| {
            let h = k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let at = |s: u32| ((h >> s) & 0xFFFF) as f64 / 65536.0 * 100.0;
            let (x, y, z, w) = (at(0), at(16), at(32), side(h >> 48));
            [x, y, z, x + w, y + w, z + w]
        })
        .collect()
}

#[test]
fn many_boxes_every_method_as_brute_force() {
    // one size; sizes over three decades (the octree's levels vary); a
    // few huge boxes among small ones (the grid coarsens)
    let scenes = [
        hashed(6000, |_| 4.0),
        hashed(5000, |h| 0.05 * (1 << (h % 11)) as f64),
        hashed(4000, |h| if h % 500 == 0 { 60.0 } else { 0.7 }),
    ];
    for boxes in scenes {
        let bounds = scan_boxes(&boxes, &Exec::serial()).unwrap();
        let s = |method| Search {
            boxes: &boxes,
            bounds,
            narrow: Narrow::default(),
            method,
            max_pairs: None,
        };
        let want = find_pairs(&s(Method::Brute), &Exec::serial()).unwrap();
        assert!(want.len() > boxes.len(), "a scene with pairs to find");
        for method in METHODS {
            for w in [1, 2] {
                let got = find_pairs(&s(method), &Exec::new(Some(w))).unwrap();
                assert_eq!(got, want, "{method:?} on {w} threads");
            }
        }
    }
}
