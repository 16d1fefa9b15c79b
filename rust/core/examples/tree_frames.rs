//! Frames of the moving tree without Python:
//!
//! ```text
//! cargo run --release --example tree_frames -- [threads] [speed]
//! ```
//!
//! 100,000 boxes of 10 x 10 in a 5,000 x 5,000 world (seed 000's scene),
//! depth 6, velocities uniform in `[-5, 5)` per axis times `speed` (1 by
//! default); frames moving every box, then 1% of them, each a `move_to`
//! and a `pairs()`; and the search from scratch on the same boxes.  Prints
//! the median milliseconds of each part (for development; the committed
//! figures come from `benchmarks/moving.py`).

use broadphase_core::par::Exec;
use broadphase_core::testing::{lcg, search_plain, Bouncing};
use broadphase_core::tree::{Attrs, Tree};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let n = 100_000usize;
    let workers: Option<usize> = std::env::args().nth(1).and_then(|a| a.parse().ok());
    let ex = Exec::new(workers);
    let speed: f64 = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1.0);
    let mut scene = Bouncing::new(n, speed, &mut lcg(7));
    let mut tree = Tree::new([0.0, 0.0, 5000.0, 5000.0], 6, 0.0);
    let t = Instant::now();
    tree.insert(&scene.boxes(), None, Attrs::default(), &ex);
    println!("insert {:.2} ms", t.elapsed().as_secs_f64() * 1e3);
    tree.pairs(&ex, None).unwrap();
    for (label, every) in [("all", 1usize), ("1%", 100)] {
        let moving: Vec<i64> = (0..n as i64)
            .filter(|k| (*k as usize).is_multiple_of(every))
            .collect();
        let (mut tm, mut tp, mut tf) = (vec![], vec![], vec![]);
        for _ in 0..30 {
            scene.step(&moving);
            let b = scene.boxes();
            let mb: Vec<[f64; 4]> = moving.iter().map(|&k| b[k as usize]).collect();
            let t = Instant::now();
            let want = search_plain(&b, &ex).len() / 2;
            tf.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            tree.move_to(&moving, &mb, None, &ex);
            tm.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            let rows = tree.pairs(&ex, None).unwrap();
            let k = rows.len() / 2;
            // as the Python layer does: the rows handed over, freed later
            broadphase_core::scratch::give(rows);
            tp.push(t.elapsed().as_secs_f64() * 1e3);
            assert_eq!(k, want);
        }
        let s = tree.stats(&ex);
        println!(
            "move {label}: move {:.3} pairs {:.3} find_pairs {:.3} ms; {} pairs, {} tests, rebuilt {}",
            median(tm),
            median(tp),
            median(tf),
            s.pairs,
            s.candidate_tests,
            s.rebuilt
        );
    }
}
