//! Time the radix sort alone: `cargo run --release --example radix_bench -- n bits`.
use broadphase_core::par::Exec;
use broadphase_core::radix;
use std::time::Instant;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a.get(1).and_then(|v| v.parse().ok()).unwrap_or(12_000);
    let bits: u32 = a.get(2).and_then(|v| v.parse().ok()).unwrap_or(27);
    let words: Vec<u64> = (0..n as u64)
        .map(|k| ((k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20) & ((1 << bits) - 1)) << 21 | k)
        .collect();
    let ex = Exec::serial();
    let mut best = f64::MAX;
    for _ in 0..200 {
        let w = words.clone();
        let t = Instant::now();
        let s = radix::sort(w, 21, bits, &ex);
        best = best.min(t.elapsed().as_secs_f64() * 1e6);
        assert!(s.windows(2).all(|p| p[0] >> 21 <= p[1] >> 21));
    }
    println!("n={n} bits={bits}: {best:.1} us");
}
