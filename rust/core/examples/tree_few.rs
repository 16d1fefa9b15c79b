//! Frames moving 1% of the tree's objects, scattered over the handles,
//! without Python:
//!
//! ```text
//! cargo run --release --example tree_few -- [threads] [between]
//! ```
//!
//! `tree_frames`' scene (100,000 boxes of 10 x 10, depth 6); 200 frames, each
//! a `move_to` of the moving boxes and a `pairs()` (its rows handed back as
//! Python does once NumPy frees them).  With `between` 1 (the default) a
//! `find_pairs` on all the boxes runs between frames, as in
//! `benchmarks/moving_few.py`, evicting the tree's data from the caches; 0
//! leaves the caches warm.  With the environment variable `VARY` set, a
//! different 1% moves each frame (objects that move for a frame and rest).
//! Prints the best and median milliseconds of a frame (for development and
//! for comparing builds in turns).

use broadphase_core::par::Exec;
use broadphase_core::testing::{lcg, search_plain, Bouncing};
use broadphase_core::tree::{Attrs, Tree};
use std::time::Instant;

fn main() {
    let n = 100_000usize;
    let workers: Option<usize> = std::env::args().nth(1).and_then(|a| a.parse().ok());
    let between = std::env::args().nth(2).is_none_or(|a| a == "1");
    let ex = Exec::new(workers);
    let mut rnd = lcg(7);
    let mut scene = Bouncing::new(n, 1.0, &mut rnd);
    let mut tree = Tree::new([0.0, 0.0, 5000.0, 5000.0], 6, 0.0);
    tree.insert(&scene.boxes(), None, Attrs::default(), &ex);
    tree.pairs(&ex, None).unwrap();
    // about 1% of the handles, in handle order
    let mut moving: Vec<i64> = (0..n as i64).filter(|_| rnd() < 0.01).collect();
    let mut times = vec![];
    let vary = std::env::var_os("VARY").is_some();
    for _ in 0..200 {
        if vary {
            moving = (0..n as i64).filter(|_| rnd() < 0.01).collect();
        }
        scene.step(&moving);
        let b = scene.boxes();
        let mb: Vec<[f64; 4]> = moving.iter().map(|&k| b[k as usize]).collect();
        if between {
            broadphase_core::scratch::give(search_plain(&b, &ex));
        }
        let t = Instant::now();
        tree.move_to(&moving, &mb, None, &ex);
        broadphase_core::scratch::give(tree.pairs(&ex, None).unwrap());
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "frame moving {} of {n}: {:.3} ({:.3}) ms",
        moving.len(),
        times[0],
        times[times.len() / 2]
    );
}
