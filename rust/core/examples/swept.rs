//! Swept pairs of moving boxes against `find_pairs` of their start boxes,
//! without Python:
//!
//! ```text
//! cargo run --release --example swept -- [threads (0: all)] [motion]
//! ```
//!
//! `benchmarks/casts.py`'s scene: 100,000 boxes of 1 to 4 units in a square
//! of side `3 sqrt(n)`, each moving up to `motion` (default 3) in x and y.
//! Prints the median milliseconds of `swept_boxes`, of its union search
//! alone and of `find_pairs` on the start boxes (for development and for
//! comparing builds in turns); with the environment variable `ONLY` set,
//! runs the swept search alone 200 times (for a profiler).

use broadphase_core::par::Exec;
use broadphase_core::swept::{swept_boxes, unions, Motion};
use broadphase_core::testing::{lcg, search_plain};
use std::time::Instant;

fn median_ms(reps: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[reps / 2]
}

fn main() {
    let n = 100_000usize;
    let workers: Option<usize> = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .filter(|&w| w > 0);
    let motion: f64 = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3.0);
    let ex = Exec::new(workers);
    let mut rnd = lcg(11);
    let world = 3.0 * (n as f64).sqrt();
    let start: Vec<[f64; 4]> = (0..n)
        .map(|_| {
            let (x, y) = (rnd() * world, rnd() * world);
            [x, y, x + 1.0 + 3.0 * rnd(), y + 1.0 + 3.0 * rnd()]
        })
        .collect();
    let end: Vec<[f64; 4]> = start
        .iter()
        .map(|b| {
            let (dx, dy) = (motion * (2.0 * rnd() - 1.0), motion * (2.0 * rnd() - 1.0));
            [b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy]
        })
        .collect();
    let m = Motion {
        start: &start,
        end: &end,
        filters: Default::default(),
    };
    let reps = 15;
    if std::env::var_os("ONLY").is_some() {
        // for a profiler: the swept search alone
        for _ in 0..200 {
            std::hint::black_box(swept_boxes(&m, &ex).unwrap());
        }
        return;
    }
    let (rows, _) = swept_boxes(&m, &ex).unwrap();
    let swept = median_ms(reps, || {
        std::hint::black_box(swept_boxes(&m, &ex).unwrap());
    });
    let union = unions(&start, &end, &ex);
    let cands = search_plain(&union, &ex).len() / 2;
    let search = median_ms(reps, || {
        broadphase_core::scratch::give(search_plain(&union, &ex));
    });
    let still = median_ms(reps, || {
        broadphase_core::scratch::give(search_plain(&start, &ex));
    });
    println!(
        "motion {motion}: {} swept of {cands} candidates; swept {swept:.2} ms, union search {search:.2} ms, find_pairs {still:.2} ms, ratio {:.2}",
        rows.len() / 2,
        swept / still
    );
}
