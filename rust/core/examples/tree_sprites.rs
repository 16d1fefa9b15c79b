//! 200 sprites without Python: `benchmarks/moving.py`'s sprites (32 x 32 in
//! an 832 x 832 window, depth 4, velocities in [-3, 3) per axis, wrapping
//! at 800), each frame a `move_to` of all of them and a `pairs()`:
//!
//! ```text
//! cargo run --release --example tree_sprites
//! ```
//!
//! Prints the best and median microseconds of 20,000 frames of each part.

use broadphase_core::par::Exec;
use broadphase_core::testing::lcg;
use broadphase_core::tree::{Attrs, Tree};
use std::time::Instant;

fn main() {
    let ex = Exec::new(None);
    let mut rnd = lcg(3);
    let mut pos: Vec<[f64; 2]> = (0..200).map(|_| [rnd() * 800.0, rnd() * 800.0]).collect();
    let vel: Vec<[f64; 2]> = (0..200)
        .map(|_| [rnd() * 6.0 - 3.0, rnd() * 6.0 - 3.0])
        .collect();
    let boxes = |pos: &[[f64; 2]]| -> Vec<[f64; 4]> {
        pos.iter()
            .map(|p| [p[0], p[1], p[0] + 32.0, p[1] + 32.0])
            .collect()
    };
    let mut tree = Tree::new([0.0, 0.0, 832.0, 832.0], 4, 0.0);
    let h: Vec<i64> = tree
        .insert(&boxes(&pos), None, Attrs::default(), &ex)
        .iter()
        .map(|&x| x as i64)
        .collect();
    tree.pairs(&ex, None).unwrap();
    let (mut tm, mut tp) = (vec![], vec![]);
    for _ in 0..20_000 {
        for (p, v) in pos.iter_mut().zip(&vel) {
            p[0] = (p[0] + v[0]).rem_euclid(800.0);
            p[1] = (p[1] + v[1]).rem_euclid(800.0);
        }
        let b = boxes(&pos);
        let t = Instant::now();
        tree.move_to(&h, &b, None, &ex);
        let t1 = Instant::now();
        broadphase_core::scratch::give(tree.pairs(&ex, None).unwrap());
        tm.push((t1 - t).as_secs_f64() * 1e6);
        tp.push(t1.elapsed().as_secs_f64() * 1e6);
    }
    for (name, mut v) in [("move", tm), ("pairs", tp)] {
        v.sort_by(f64::total_cmp);
        println!("{name}: {:.2} ({:.2}) us", v[0], v[v.len() / 2]);
    }
}
