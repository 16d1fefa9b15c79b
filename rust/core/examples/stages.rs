//! Where the time of one search goes, stage by stage.
//!
//! ```text
//! cargo run --release --example stages -- [uniform|mixed|uniform3|mixed3] [n] [method] [threads] [rounds]
//! ```
//!
//! Boxes like `broadphase.scenarios`' uniform scene (side about 2 cells of a
//! `sqrt(n)` grid) or its mixed one (a tenth of them ten times bigger), from a
//! fixed hash, their 3D counterparts (`uniform3`, `mixed3`: cubes, about as
//! many pairs per box), or the rows of a file of raw f64 (four per box);
//! prints the best and median milliseconds of each stage.

use broadphase_core::check::scan_boxes;
use broadphase_core::par::Exec;
use broadphase_core::{find_pairs_with, Method, Narrow, Search};
use std::time::Instant;

fn scene<const N: usize>(name: &str, n: usize) -> Vec<[f64; N]> {
    let d = N / 2;
    // 2D: about 2 cells of a sqrt(n) grid; 3D: cubes with about as many
    // pairs per box
    let side = if d == 2 {
        1000.0 / (n as f64).sqrt() * 1.4
    } else {
        1000.0 / (n as f64).cbrt() * 1.0
    };
    (0..n as u64)
        .map(|k| {
            let h = (k + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let g = h.wrapping_mul(0xD1B5_4A32_D192_ED03);
            let x = (h >> 40) as f64 / (1u64 << 24) as f64 * 1000.0;
            let y = ((h >> 16) & 0xFF_FFFF) as f64 / (1u64 << 24) as f64 * 1000.0;
            let z = (g >> 40) as f64 / (1u64 << 24) as f64 * 1000.0;
            let f = (h & 0xFFFF) as f64 / 65536.0;
            let s = if name.starts_with("mixed") && f < 0.1 {
                10.0 * side
            } else {
                side * (0.5 + f)
            };
            let lo = [x, y, z];
            std::array::from_fn(|c| lo[c % d] + if c < d { 0.0 } else { s })
        })
        .collect()
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let name = a.get(1).map_or("uniform", String::as_str);
    let n: usize = a.get(2).and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
    let method = a
        .get(3)
        .and_then(|v| Method::from_name(v))
        .unwrap_or(Method::Grid);
    let threads: usize = a.get(4).and_then(|v| v.parse().ok()).unwrap_or(1);
    let rounds: usize = a.get(5).and_then(|v| v.parse().ok()).unwrap_or(7);
    if name.ends_with('3') {
        let boxes: Vec<[f64; 6]> = scene(name, n);
        return stages(name, &boxes, method, threads, rounds);
    }
    // A name that is a file holds n rows of four little-endian f64
    // (`np.ascontiguousarray(boxes).tofile(path)`), e.g. a Python scenario.
    let boxes: Vec<[f64; 4]> = match std::fs::read(name) {
        Ok(raw) => raw
            .chunks_exact(32)
            .map(|r| {
                std::array::from_fn(|k| f64::from_le_bytes(r[8 * k..8 * k + 8].try_into().unwrap()))
            })
            .collect(),
        Err(_) => scene(name, n),
    };
    stages(name, &boxes, method, threads, rounds);
}

/// Time `rounds` searches of `boxes`, stage by stage, and print them.
fn stages<const N: usize>(
    name: &str,
    boxes: &[[f64; N]],
    method: Method,
    threads: usize,
    rounds: usize,
) where
    [f64; N]: broadphase_core::Width<N>,
{
    let n = boxes.len();
    let ex = Exec::new(Some(threads));
    let mut times: Vec<(&'static str, Vec<f64>)> = Vec::new();
    let mut pairs = 0;
    let search = |bounds| Search {
        boxes,
        bounds,
        narrow: Narrow::default(),
        method,
        max_pairs: None,
    };
    for _ in 0..rounds {
        let start = Instant::now();
        let mut last = Instant::now();
        let bounds = scan_boxes(boxes, &ex).unwrap();
        let mut stage = 0;
        let mut tick = |s: &'static str| {
            let now = Instant::now();
            if times.len() <= stage {
                times.push((s, Vec::new()));
            }
            times[stage].1.push((now - last).as_secs_f64() * 1e3);
            last = now;
            stage += 1;
        };
        tick("scan");
        let flat = find_pairs_with(&search(bounds), &ex, &mut tick).unwrap();
        pairs = flat.len() / 2;
        // as the Python layer does once NumPy frees the result
        broadphase_core::scratch::give(flat);
        let total = start.elapsed().as_secs_f64() * 1e3;
        if times.last().map(|t| t.0) != Some("total") && times.len() == stage {
            times.push(("total", Vec::new()));
        }
        times[stage].1.push(total);
    }
    println!("{name} n={n} {method:?} threads={threads}: {pairs} pairs");
    if std::env::var("TESTS").is_ok() {
        let s = search(scan_boxes(boxes, &ex).unwrap());
        println!(
            "tests {}",
            broadphase_core::search::find_pairs_counted(&s, &ex).1
        );
    }
    for (s, mut v) in times {
        v.sort_by(f64::total_cmp);
        println!("  {s:16} {:8.2} ({:.2})", v[0], v[v.len() / 2]);
    }
}
