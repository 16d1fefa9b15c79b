//! What the method tests share: every method, and the check that each one,
//! on one thread and on several, finds the wanted pairs.

use broadphase_core::check::scan_boxes;
use broadphase_core::par::Exec;
use broadphase_core::testing::flat;
use broadphase_core::{find_pairs, naive, Filters, Method, Narrow, Search, Shapes, Width};
use proptest::prelude::*;

/// Every method (`Auto` included).
pub const METHODS: [Method; 5] = [
    Method::Auto,
    Method::Brute,
    Method::Sweep,
    Method::Grid,
    Method::Quadtree,
];

/// Every method of a search of `boxes` (2D or 3D) with `narrow`, on one
/// thread and on three, finds `want`.
pub fn check_all<const N: usize>(
    boxes: &[[f64; N]],
    narrow: Narrow,
    want: &[isize],
) -> Result<(), TestCaseError>
where
    [f64; N]: Width<N>,
{
    let bounds = scan_boxes(boxes, &Exec::serial()).unwrap();
    for method in METHODS {
        for workers in [1, 3] {
            let s = Search {
                boxes,
                bounds,
                narrow,
                method,
                max_pairs: None,
            };
            let got = find_pairs(&s, &Exec::new(Some(workers))).unwrap();
            prop_assert_eq!(&got, want, "method {:?} workers {}", method, workers);
        }
    }
    Ok(())
}

/// [`check_all`] of `boxes` under groups, categories and masks drawn from
/// `seed`, against the naive reference: groups alone, categories alone,
/// and all three.
pub fn check_filters<const N: usize>(boxes: &[[f64; N]], seed: u64) -> Result<(), TestCaseError>
where
    [f64; N]: Width<N>,
{
    let n = boxes.len() as u64;
    let groups: Vec<i64> = (0..n).map(|k| ((k ^ seed) % 4) as i64).collect();
    let cats: Vec<u64> = (0..n).map(|k| 1 << ((k * 7 + seed) % 3)).collect();
    let masks: Vec<u64> = (0..n).map(|k| (k + seed) % 8).collect();
    for filters in [
        Filters {
            groups: Some(&groups),
            ..Default::default()
        },
        Filters {
            categories: Some(&cats),
            ..Default::default()
        },
        Filters {
            groups: Some(&groups),
            categories: Some(&cats),
            masks: Some(&masks),
        },
    ] {
        let narrow = Narrow {
            shapes: Shapes::Boxes,
            filters,
        };
        let want = flat(&naive::pairs(boxes, &narrow));
        check_all(boxes, narrow, &want)?;
    }
    Ok(())
}
