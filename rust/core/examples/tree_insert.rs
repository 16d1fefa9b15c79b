//! Inserting a million boxes into a new tree: `cargo run --release --example tree_insert`.
use broadphase_core::par::Exec;
use broadphase_core::tree::{Attrs, Tree};
use std::time::Instant;

fn main() {
    let n = 1_000_000usize;
    let ex = Exec::new(None);
    let boxes: Vec<[f64; 4]> = (0..n)
        .map(|k| {
            let (x, y) = ((k * 7919 % 15811) as f64, (k * 104729 % 15803) as f64);
            [x, y, x + 10.0, y + 10.0]
        })
        .collect();
    for _ in 0..5 {
        let mut tree = Tree::new([0.0, 0.0, 15811.0, 15811.0], 8, 0.0);
        let t = Instant::now();
        tree.insert(&boxes, None, Attrs::default(), &ex);
        println!("insert {n}: {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    }
}
