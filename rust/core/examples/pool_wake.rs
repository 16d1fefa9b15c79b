//! What a call pays to reach a pool whose threads went to sleep, and what
//! [`Exec::wake`] ahead of it saves:
//!
//! ```text
//! cargo run --release --example pool_wake
//! ```
//!
//! 200 calls, each after 2 ms without work (the pool's threads asleep, as
//! between a game's frames), each an `install` of a 4-chunk `map` on 2
//! threads: first as is, then with `wake()` 60 us before (about a `move` of
//! 1,000 objects).  Prints the median and 90th percentile microseconds.

use broadphase_core::par::Exec;
use std::time::{Duration, Instant};

fn main() {
    let ex = Exec::new(Some(2));
    for wake in [false, true] {
        let mut t = vec![];
        for _ in 0..200 {
            std::thread::sleep(Duration::from_millis(2));
            if wake {
                ex.wake();
                std::thread::sleep(Duration::from_micros(60));
            }
            let s = Instant::now();
            let v = ex.install(|| ex.map(4, |i| i * 2));
            t.push(s.elapsed().as_secs_f64() * 1e6);
            assert_eq!(v, [0, 2, 4, 6]);
        }
        t.sort_by(f64::total_cmp);
        println!(
            "woken ahead: {wake}: round trip median {:.1} us, 90th percentile {:.1}",
            t[t.len() / 2],
            t[t.len() * 9 / 10]
        );
    }
}
