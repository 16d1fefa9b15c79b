//! The queries of a moving tree's incremental frame, alone and in cache:
//!
//! ```text
//! cargo run --release --example tree_queries -- [repeats]
//! ```
//!
//! `tree_few`'s scene (100,000 boxes of 10 x 10, depth 6) and its ~1% of the
//! handles; `Tree::touching` of each of them, `repeats` times over (200 by
//! default), on one thread.  A frame's queries read the same cells and test
//! their entries the same way (from memory, planned a few queries ahead;
//! `touching` finds its cells as it goes); here the cells stay in cache, so
//! the figure is the queries' own work.  Prints the mean nanoseconds a query.

use broadphase_core::par::Exec;
use broadphase_core::testing::{lcg, Bouncing};
use broadphase_core::tree::{Attrs, Tree};
use std::time::Instant;

fn main() {
    let n = 100_000usize;
    let repeats: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let ex = Exec::new(Some(1));
    let mut rnd = lcg(7);
    let scene = Bouncing::new(n, 1.0, &mut rnd);
    let mut tree = Tree::new([0.0, 0.0, 5000.0, 5000.0], 6, 0.0);
    tree.insert(&scene.boxes(), None, Attrs::default(), &ex);
    tree.pairs(&ex, None).unwrap();
    // the handles tree_few moves
    let moving: Vec<u32> = (0..n as u32).filter(|_| rnd() < 0.01).collect();
    let mut partners = 0usize;
    let t = Instant::now();
    for _ in 0..repeats {
        for &h in &moving {
            partners += tree.touching(h, &ex).len();
        }
    }
    let queries = (repeats * moving.len()) as f64;
    println!(
        "{} queries: {:.0} ns a query, {:.2} partners each",
        moving.len(),
        t.elapsed().as_secs_f64() * 1e9 / queries,
        partners as f64 / queries
    );
}
