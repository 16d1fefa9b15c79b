//! Every method against the naive reference, for boxes, circles and filters,
//! on one thread and on several.

mod common;

use broadphase_core::check::{circle_boxes, scan_boxes};
use broadphase_core::par::Exec;
use broadphase_core::testing::flat;
use broadphase_core::{find_pairs, naive, Filters, Method, Narrow, Search, Shapes};
use common::{check_all, check_filters, METHODS};
use proptest::prelude::*;

/// Boxes on a coarse integer lattice (ties, touching edges, zero sizes,
/// straddlers of every split line) at a random scale and offset.
fn boxes_strategy(max: usize) -> impl Strategy<Value = Vec<[f64; 4]>> {
    (
        proptest::collection::vec((0i32..64, 0i32..64, 0i32..20, 0i32..20, 0u8..10), 0..max),
        -10i32..10,
        prop_oneof![Just(0.0), -1e6..1e6f64],
    )
        .prop_map(|(raw, e, off)| {
            let s = (e as f64).exp2();
            raw.into_iter()
                .map(|(x, y, w, h, kind)| {
                    // kind 0: a big box; 1: a point; else the drawn size
                    let (w, h) = match kind {
                        0 => (w * 3, h * 3),
                        1 => (0, 0),
                        _ => (w / 3, h / 3),
                    };
                    [
                        off + x as f64 * s,
                        off + y as f64 * s,
                        off + (x + w) as f64 * s,
                        off + (y + h) as f64 * s,
                    ]
                })
                .collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn boxes_match_naive(boxes in boxes_strategy(400)) {
        let want = flat(&naive::pairs(&boxes, &Narrow::default()));
        check_all(&boxes, Narrow::default(), &want)?;
    }

    #[test]
    fn filters_match_naive(boxes in boxes_strategy(300), seed in any::<u64>()) {
        check_filters(&boxes, seed)?;
    }

    #[test]
    fn circles_match_naive(raw in proptest::collection::vec((0i32..200, 0i32..200, 0i32..12), 0..300),
                           e in -1070i32..1000) {
        // integer circles scaled by 2^e: many exact touchings, every magnitude
        let s = (e as f64).exp2();
        let circles: Vec<[f64; 3]> = raw.iter()
            .map(|&(x, y, r)| [x as f64 * s, y as f64 * s, r as f64 * s]).collect();
        let boxes = circle_boxes(&circles, &Exec::serial()).unwrap();
        let narrow = Narrow { shapes: Shapes::Circles(&circles), filters: Filters::default() };
        // the reference judges by the circle rule alone, with exact integers
        let mut want = Vec::new();
        for i in 0..raw.len() {
            for j in i + 1..raw.len() {
                let (a, b) = (raw[i], raw[j]);
                let d2 = ((a.0 - b.0) as i64).pow(2) + ((a.1 - b.1) as i64).pow(2);
                if d2 < ((a.2 + b.2) as i64).pow(2) {
                    want.push((i, j));
                }
            }
        }
        check_all(&boxes, narrow, &flat(&want))?;
    }
}

/// A search of plain boxes with `method`.
fn plain(boxes: &[[f64; 4]], method: Method) -> Search<'_> {
    Search {
        boxes,
        bounds: scan_boxes(boxes, &Exec::serial()).unwrap(),
        narrow: Narrow::default(),
        method,
        max_pairs: None,
    }
}

/// Every method of `methods`, on one thread and two, finds `want`.
fn assert_methods(boxes: &[[f64; 4]], methods: &[Method], want: &[isize]) {
    for &method in methods {
        for w in [1, 2] {
            let got = find_pairs(&plain(boxes, method), &Exec::new(Some(w))).unwrap();
            assert_eq!(got, want, "{method:?} on {w} threads");
        }
    }
}

/// `n` boxes at hashed positions in the unit square, sides from `side(hash)`.
fn hashed(n: u64, side: impl Fn(u64) -> f64) -> Vec<[f64; 4]> {
    (0..n)
        .map(|k| {
            let h = k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let x = (h >> 40) as f64 / (1u64 << 24) as f64;
            let y = ((h >> 16) & 0xFF_FFFF) as f64 / (1u64 << 24) as f64;
            let s = side(h);
            [x, y, x + s, y + s]
        })
        .collect()
}

#[test]
fn many_straddlers_and_a_dense_clump() {
    // boxes on the central split lines plus 500 identical boxes
    let mut boxes: Vec<[f64; 4]> = (0..2000)
        .map(|k| {
            let t = k as f64 / 2000.0 * 1000.0;
            if k % 2 == 0 {
                [499.5, t, 500.5, t + 0.4]
            } else {
                [t, 499.5, t + 0.4, 500.5]
            }
        })
        .collect();
    boxes.extend(std::iter::repeat_n([10.0, 10.0, 11.0, 11.0], 500));
    boxes.push([0.0, 0.0, 1000.0, 1000.0]);
    let want = flat(&naive::pairs(&boxes, &Narrow::default()));
    assert_methods(&boxes, &METHODS, &want);
}

#[test]
fn large_uniform_input_uses_the_parallel_paths() {
    // 60,000 boxes: every chunked pass has several chunks
    let n = 60_000;
    let boxes = hashed(n, |h| 0.002 + 0.004 * ((h & 0xFF) as f64 / 255.0));
    let want = find_pairs(&plain(&boxes, Method::Brute), &Exec::new(Some(2))).unwrap();
    assert!(want.len() > 2 * n as usize);
    assert_methods(
        &boxes,
        &[Method::Sweep, Method::Grid, Method::Quadtree],
        &want,
    );
}

#[test]
fn too_many_pairs_are_counted_not_stored() {
    // 3,000 identical boxes: 4,498,500 pairs against a budget of 100,000
    let boxes = vec![[1.0, 1.0, 2.0, 2.0]; 3000];
    for method in METHODS {
        for w in [1, 2] {
            let s = Search {
                max_pairs: Some(100_000),
                ..plain(&boxes, method)
            };
            let got = find_pairs(&s, &Exec::new(Some(w)));
            assert_eq!(
                got,
                Err(broadphase_core::pairs::TooMany(3000 * 2999 / 2)),
                "{method:?}"
            );
            // within the budget the same search answers
            let s = Search {
                max_pairs: Some(5_000_000),
                ..s
            };
            assert_eq!(
                find_pairs(&s, &Exec::new(Some(w))).unwrap().len(),
                3000 * 2999
            );
        }
    }
}

#[test]
fn far_outliers_stay_exact() {
    // boxes in the unit square plus points and boxes far away on every side
    let mut boxes = hashed(20_000, |_| 0.01);
    boxes.push([-1e20, -1e20, -1e20, -1e20]);
    boxes.push([1e20, 1e20, 1e20, 1e20]);
    boxes.push([-1e20, 0.5, 1e20, 0.5]); // zero height: meets boxes strictly around y = 0.5
    boxes.push([0.3, -1e300, 0.31, 1e300]);
    boxes.push([1e20, 1e20, 1e20 + 1e5, 1e20 + 1e5]);
    let want = find_pairs(&plain(&boxes, Method::Brute), &Exec::new(Some(2))).unwrap();
    assert_methods(
        &boxes,
        &[Method::Sweep, Method::Grid, Method::Quadtree],
        &want,
    );
}

#[test]
fn pairs_beyond_memory_are_counted_before_the_walk() {
    // 60,000 identical boxes: 1,799,970,000 pairs; the grid and the quadtree
    // count them in O(n log n) instead of testing every candidate
    let boxes = vec![[1.0, 1.0, 2.0, 2.0]; 60_000];
    for method in [Method::Grid, Method::Quadtree, Method::Auto] {
        let s = Search {
            max_pairs: Some(1_000_000),
            ..plain(&boxes, method)
        };
        let got = find_pairs(&s, &Exec::new(Some(2)));
        assert_eq!(
            got,
            Err(broadphase_core::pairs::TooMany(60_000 * 59_999 / 2)),
            "{method:?}"
        );
    }
}

/// A search stopped at its `k`-th chunk unwinds with `Stopped` (or, with
/// fewer chunks, finishes with the right pairs), and leaves nothing behind:
/// the next search on the same threads is right.
#[test]
fn a_stopped_search_unwinds_and_the_next_one_is_right() {
    use broadphase_core::par::{Stop, Stopped};
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::Arc;
    // 20,000 boxes: several chunks in every stage; some overlap
    let boxes: Vec<[f64; 4]> = (0..20_000)
        .map(|i| {
            let (x, y) = ((i * 7919 % 1000) as f64, (i * 104_729 % 1000) as f64);
            [x, y, x + 3.0, y + 3.0]
        })
        .collect();
    let bounds = scan_boxes(&boxes, &Exec::serial()).unwrap();
    let want = flat(&naive::pairs(&boxes, &Narrow::default()));
    for method in METHODS {
        let s = Search {
            boxes: &boxes,
            bounds,
            narrow: Narrow::default(),
            method,
            max_pairs: None,
        };
        for workers in [1, 2] {
            let mut stopped = 0;
            for k in [1, 2, 3, 5, 8, 13, 40, 200] {
                let ex = Exec::new(Some(workers)).stoppable(Arc::new(Stop::after(k)));
                match catch_unwind(AssertUnwindSafe(|| find_pairs(&s, &ex))) {
                    Ok(got) => assert_eq!(got.unwrap(), want, "{method:?} k {k}"),
                    Err(p) => {
                        assert!(p.is::<Stopped>(), "{method:?} k {k}: another panic");
                        stopped += 1;
                    }
                }
                let again = find_pairs(&s, &Exec::new(Some(workers))).unwrap();
                assert_eq!(again, want, "{method:?}, {workers} workers, after k {k}");
            }
            assert!(stopped > 0, "{method:?}: never stopped");
        }
    }
}
