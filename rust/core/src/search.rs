//! One search: pick a method, size its grid, run it.
//!
//! Every method returns the identical canonical pairs; the choice and the
//! tuning below only move the time (docs/benchmarks.md has the figures
//! behind them).

use crate::cells::{self, Placement};
use crate::key;
use crate::narrow::Narrow;
use crate::par::Exec;
use crate::sweep::SAMPLE;
use crate::world::{half_span, log2_ratio, Grid};
use crate::{brute, grid, quadtree, sweep};

/// Levels a box may sit above its fit level before it is split.
pub const QUADTREE_SLACK: u32 = 1;
/// Finest quadtree cell about `2^-BIAS` of the typical box extent.
pub const QUADTREE_BIAS: i64 = 0;
/// Grid cell side, in typical box extents.
pub const GRID_FACTOR: f64 = 4.0;
/// Grid entries allowed per box before the cells grow.
pub const GRID_BUDGET: f64 = 4.0;
/// `Auto`: brute force below this many objects,
pub const BRUTE_BELOW: usize = 300;
/// sort-and-sweep below this many, the grid from here on.
pub const SWEEP_BELOW: usize = 1500;

/// A broad-phase algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Chosen from the input by [`choose`].
    Auto,
    /// Every pair tested.
    Brute,
    /// Sort-and-sweep along the sparser axis.
    Sweep,
    /// Uniform grid on the linear quadtree's machinery.
    Grid,
    /// Linear quadtree in Morton order.
    Quadtree,
}

impl Method {
    /// Every method, with the names the Python API accepts.
    pub const NAMES: [(&'static str, Method); 5] = [
        ("auto", Method::Auto),
        ("brute", Method::Brute),
        ("sweep", Method::Sweep),
        ("grid", Method::Grid),
        ("quadtree", Method::Quadtree),
    ];

    /// The method named `name`.
    pub fn from_name(name: &str) -> Option<Method> {
        Self::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, m)| *m)
    }
}

/// A validated pair search.
#[derive(Clone, Copy, Debug)]
pub struct Search<'a> {
    /// `minx, miny, maxx, maxy` per object (for circles, their
    /// outward-rounded bounding boxes); finite, `min <= max`.
    pub boxes: &'a [[f64; 4]],
    /// `[minx, miny, maxx, maxy]` over all boxes.
    pub bounds: [f64; 4],
    /// Filters and shapes.
    pub narrow: Narrow<'a>,
    /// The algorithm.
    pub method: Method,
}

/// The `Auto` rule: fixed costs dominate small inputs, where brute force and
/// then the sweep win; from about 1,500 boxes on the grid is the fastest on
/// every named scene, whatever the size spread.
pub fn choose(n: usize) -> Method {
    if n < BRUTE_BELOW {
        Method::Brute
    } else if n < SWEEP_BELOW {
        Method::Sweep
    } else {
        Method::Grid
    }
}

/// Median of `max(width, height)` over an evenly strided sample.
pub fn typical_extent(boxes: &[[f64; 4]]) -> f64 {
    let step = (boxes.len() / SAMPLE).max(1);
    let mut s: Vec<f64> = boxes
        .iter()
        .step_by(step)
        .map(|b| (b[2] - b[0]).max(b[3] - b[1]))
        .collect();
    if s.is_empty() {
        return f64::NAN;
    }
    let (len, mid) = (s.len(), s.len() / 2);
    let (lo, &mut m, _) = s.select_nth_unstable_by(mid, f64::total_cmp);
    if len % 2 == 1 {
        return m;
    }
    let below = lo.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (below + m) / 2.0
}

fn half(bounds: [f64; 4]) -> f64 {
    half_span(bounds[0], bounds[2]).max(half_span(bounds[1], bounds[3]))
}

fn floor_log2(n: usize) -> i64 {
    (usize::BITS - 1 - n.max(1).leading_zeros()) as i64
}

/// Quadtree depth: finest cells about the typical box size, at most ~256 n cells.
pub fn quadtree_depth(boxes: &[[f64; 4]], half: f64) -> u32 {
    let cap = (key::MAX_DEPTH as i64).min((floor_log2(boxes.len()) / 2 + 4).max(1));
    match log2_ratio(half, typical_extent(boxes)) {
        None => cap as u32,
        Some(oct) => cap.min(((oct + 1.0).floor() as i64 + QUADTREE_BIAS).max(1)) as u32,
    }
}

/// Grid depth: cells `GRID_FACTOR` times the typical box.
pub fn grid_depth(boxes: &[[f64; 4]], half: f64) -> u32 {
    let oct = log2_ratio(half, GRID_FACTOR * 0.5 * typical_extent(boxes))
        .unwrap_or(0.5 * (boxes.len() as f64).log2());
    (key::MAX_DEPTH as i64).min((oct.floor() as i64).max(1)) as u32
}

fn run_quadtree(s: &Search, ex: &Exec) -> Vec<isize> {
    let g = Grid::square(s.bounds, quadtree_depth(s.boxes, half(s.bounds)));
    let place = quadtree::place(s.boxes, &g, QUADTREE_SLACK, ex);
    cells::find(s.boxes, &g, &place, &s.narrow, ex).0
}

fn run_grid(s: &Search, ex: &Exec) -> Vec<isize> {
    let n = s.boxes.len();
    let mut depth = grid_depth(s.boxes, half(s.bounds));
    let (g, place): (Grid, Placement) = loop {
        let g = Grid::square(s.bounds, depth);
        let place = grid::place(s.boxes, &g, ex);
        // a few big boxes cover too many cells: coarsen
        if depth <= 1 || place.total() <= GRID_BUDGET * n as f64 + 1024.0 {
            break (g, place);
        }
        depth -= 1;
    };
    cells::find(s.boxes, &g, &place, &s.narrow, ex).0
}

/// Every colliding pair of the search, canonical, flat `[i0, j0, i1, j1, ...]`.
pub fn find_pairs(s: &Search, ex: &Exec) -> Vec<isize> {
    let n = s.boxes.len();
    if n < 2 {
        return Vec::new();
    }
    let method = if s.method == Method::Auto {
        choose(n)
    } else {
        s.method
    };
    match method {
        Method::Brute => brute::find(s.boxes, &s.narrow, ex),
        Method::Sweep => sweep::find(s.boxes, s.bounds, &s.narrow, ex),
        Method::Grid => run_grid(s, ex),
        Method::Quadtree | Method::Auto => run_quadtree(s, ex),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_like_numpy() {
        assert_eq!(
            typical_extent(&[[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 3.0, 1.0]]),
            2.0
        );
        assert_eq!(
            typical_extent(&[
                [0.0, 0.0, 1.0, 1.0],
                [0.0, 0.0, 3.0, 1.0],
                [0.0, 0.0, 0.0, 7.0]
            ]),
            3.0
        );
    }
}
