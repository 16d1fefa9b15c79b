//! The walk's tests: the 2D walk against an exact reference on a lattice
//! of boxes (every ray's cells).

use super::*;
use crate::bigint::Dyadic;
use crate::check::bounds_of;
use crate::par::Exec;

/// A bound of `s`: `num / den` (`den > 0`) and whether it is attained.
type Bound = (Dyadic, Dyadic, bool);

/// Whether the ray's true segment, `s` in `[0, s_max]`, has a point in
/// the cell `[lo[0], hi[0]) x [lo[1], hi[1])` (edges possibly infinite)
/// within the closed bounds `b`: exact, by the signs of cross products
/// of dyadic numbers.
fn meets(o: [f64; 2], d: [f64; 2], s_max: f64, cell: [f64; 4], b: [f64; 4]) -> bool {
    let one = || Dyadic::of(1.0);
    let mut lows: Vec<Bound> = vec![(Dyadic::zero(), one(), true)];
    let mut ups: Vec<Bound> = vec![];
    if s_max.is_finite() {
        ups.push((Dyadic::of(s_max), one(), true));
    }
    // (axis, edge, whether a lower edge, whether closed)
    let sides = [
        (0, cell[0], true, true),
        (1, cell[1], true, true),
        (0, cell[2], false, false),
        (1, cell[3], false, false),
        (0, b[0], true, true),
        (1, b[1], true, true),
        (0, b[2], false, true),
        (1, b[3], false, true),
    ];
    for (k, e, is_lo, closed) in sides {
        if e.is_infinite() {
            if (e > 0.0) == is_lo {
                return false;
            }
            continue;
        }
        if d[k] == 0.0 {
            let inside = match (is_lo, closed) {
                (true, true) => e <= o[k],
                (true, false) => e < o[k],
                (false, true) => o[k] <= e,
                (false, false) => o[k] < e,
            };
            if !inside {
                return false;
            }
            continue;
        }
        let num = Dyadic::of(e) - Dyadic::of(o[k]);
        let (num, den) = if d[k] > 0.0 {
            (num, Dyadic::of(d[k]))
        } else {
            (-num, Dyadic::of(-d[k]))
        };
        // d > 0: a lower edge gives a lower bound of s; d < 0 flips it
        if is_lo == (d[k] > 0.0) {
            lows.push((num, den, closed));
        } else {
            ups.push((num, den, closed));
        }
    }
    lows.iter().all(|l| {
        ups.iter().all(|u| {
            let c = (l.0.clone() * u.1.clone() - u.0.clone() * l.1.clone()).sign();
            c < 0 || (c == 0 && l.2 && u.2)
        })
    })
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

/// Checks one ray against every cell of `grid` (the points of the
/// segment within the objects' bounds: no object reaches beyond);
/// `false` when the walk gave up.
fn check_ray(grid: &RayGrid<4>, o: [f64; 2], d: [f64; 2], s_max: f64, limit: f64) -> bool {
    let mut seen: Vec<*const u32> = vec![];
    let walked = grid.visit(o, d, s_max, || limit, |cell| seen.push(cell.as_ptr()));
    if !walked {
        return false;
    }
    let (ex, ey) = (grid.edges(0), grid.edges(1));
    let side = ex.len() - 2;
    // the segment the limit still asks for
    let upto = s_max.min(limit);
    for r in 0..side {
        for c in 0..side {
            let cell = grid.cell(r * side + c);
            if cell.is_empty() || upto < 0.0 {
                continue;
            }
            if meets(
                o,
                d,
                upto,
                [ex[c], ey[r], ex[c + 1], ey[r + 1]],
                grid.bounds(),
            ) {
                assert!(
                    seen.contains(&cell.as_ptr()),
                    "cell ({c}, {r}) skipped by the ray {o:?} + s {d:?}, s <= {upto:e}"
                );
            }
        }
    }
    true
}

/// Rays through cell corners and along cell edges exactly, near-axis
/// and diagonal, with huge and tiny coordinates and directions, and
/// with finite limits: the walk visits every non-empty cell the exact
/// segment has a point in (the `s` up to the limit).
#[test]
fn the_walk_misses_no_cell_a_ray_passes_through() {
    let mut rng = Rng(7);
    let (mut rays, mut gave_up) = (0, 0);
    for scale in [1.0, 0.375, 2f64.powi(-1060), 2f64.powi(-30), 2f64.powi(990)] {
        // a lattice of unit boxes with gaps, and a few long ones
        let mut boxes = vec![];
        for i in 0..10 {
            for j in 0..10 {
                if (i * 7 + j * 3) % 5 != 0 {
                    let (x, y) = (i as f64 * scale, j as f64 * scale);
                    boxes.push([x, y, x + scale, y + scale]);
                }
            }
        }
        boxes.push([0.0, 4.5 * scale, 10.0 * scale, 4.75 * scale]);
        let grid = RayGrid::<4>::new(&boxes, bounds_of(&boxes), &Exec::serial());
        let (ex, ey) = (grid.edges(0).to_vec(), grid.edges(1).to_vec());
        let finite = |e: &[f64]| {
            e.iter()
                .copied()
                .filter(|v| v.is_finite())
                .collect::<Vec<_>>()
        };
        let (fx, fy) = (finite(&ex), finite(&ey));
        assert!(fx.len() >= 4 && fy.len() >= 4, "a grid of several cells");
        let tiny = f64::from_bits(1);
        let dirs: Vec<[f64; 2]> = vec![
            [1.0, 0.0],
            [-1.0, 0.0],
            [0.0, 1.0],
            [0.0, -1.0],
            [-0.0, 1.0],
            [1.0, 1.0],
            [-1.0, 1.0],
            [1.0, -2.0],
            [3.0, 1.0],
            [1.0, 2f64.powi(-40)],
            [-1.0, -(2f64.powi(-52))],
            [2f64.powi(-45), -1.0],
            [1.0, tiny],
            [tiny, 0.0],
            [-tiny, tiny],
            [1e308, -1e308],
            [0.0, 0.0],
        ];
        let s_maxes = [f64::INFINITY, 0.0, 1.0, 2.5];
        let limits = [f64::INFINITY, 0.0, 0.75, 3.0];
        for round in 0..1500 {
            // origin: a corner, an edge's middle or a point outside
            let (i, j) = (rng.below(fx.len()), rng.below(fy.len()));
            let mut o = [fx[i], fy[j]];
            match round % 4 {
                1 if i + 1 < fx.len() => o[0] = fx[i] + (fx[i + 1] - fx[i]) / 2.0,
                2 => o[1] -= 3.0 * scale,
                _ => {}
            }
            // direction: one of the list, or corner to corner (exact
            // when the differences are), at the grid's scale or not
            let mut d = if round % 3 == 0 {
                let (k, l) = (rng.below(fx.len()), rng.below(fy.len()));
                [fx[k] - o[0], fy[l] - o[1]]
            } else {
                let d = dirs[rng.below(dirs.len())];
                let k = [1.0, scale][rng.below(2)];
                [d[0] * k, d[1] * k]
            };
            if !(d[0].is_finite() && d[1].is_finite()) {
                d = [1.0, 0.0];
            }
            let s_max = s_maxes[rng.below(s_maxes.len())];
            let limit = limits[rng.below(limits.len())];
            rays += 1;
            if !check_ray(&grid, o, d, s_max, limit) {
                gave_up += 1;
                let tame =
                    |v: f64| v == 0.0 || (v.abs() > 2f64.powi(-900) && v.abs() < 2f64.powi(900));
                assert!(
                    !(tame(o[0]) && tame(o[1]) && tame(d[0]) && tame(d[1])),
                    "the walk gave up on {o:?} + s {d:?}"
                );
            }
        }
    }
    // the walk gives up only near the ends of the doubles (a subnormal
    // direction, coordinates near 2^1024): not on most rays
    assert!(gave_up * 5 < rays, "{gave_up} of {rays} rays gave up");
}
