//! One search: pick a method, size its grid, run it.
//!
//! Every method returns the identical canonical pairs; the choice and the
//! tuning below only move the time (docs/benchmarks.md has the figures
//! behind them).

use crate::cells::{self, Placement, Tick};
use crate::check::{scan_boxes, BadRow};
use crate::key;
use crate::narrow::Narrow;
use crate::pairs::{Budget, TooMany};
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
pub const BRUTE_BELOW: usize = 100;
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
    /// Most pairs the result may hold (`None`: what the available memory holds).
    pub max_pairs: Option<u64>,
}

impl<'a> Search<'a> {
    /// A search of `boxes` by the `Auto` method, with no filters and no cap
    /// but the available memory, after checking them: every coordinate
    /// finite and `min <= max` on both axes (else the first bad row).
    pub fn of_boxes(boxes: &'a [[f64; 4]], ex: &Exec) -> Result<Search<'a>, BadRow> {
        Ok(Search {
            boxes,
            bounds: scan_boxes(boxes, ex)?,
            narrow: Narrow::default(),
            method: Method::Auto,
            max_pairs: None,
        })
    }
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

/// Where the data is: the world a search quantizes into.
///
/// The bounds of an evenly strided sample, without its `len / 512` most
/// extreme values on each side (none for a sample of under 512 rows), so a
/// few far outliers do not stretch the grid until every other box shares a
/// cell (1e5 boxes in the unit square plus two points at +-1e20 would
/// otherwise all fall in one cell: quadratic).  Boxes outside are clamped into
/// the border cells; quantization stays monotone, which is all exactness
/// needs (see [`crate::world`]).
pub fn placement_bounds(boxes: &[[f64; 4]], bounds: [f64; 4]) -> [f64; 4] {
    let n = boxes.len();
    let step = (n / SAMPLE).max(1);
    let m = n.div_ceil(step);
    let k = m / 512;
    let mut col = Vec::new();
    let mut pick = |t: usize, from_top: bool| -> f64 {
        let vals = boxes.iter().step_by(step).map(|b| b[t]);
        if k < FEW {
            return few_extreme(vals, k, from_top);
        }
        col.clear();
        col.extend(vals);
        let at = if from_top { m - 1 - k } else { k };
        *col.select_nth_unstable_by(at, f64::total_cmp).1
    };
    let (x0, y0, x1, y1) = (pick(0, false), pick(1, false), pick(2, true), pick(3, true));
    // a sample's value is one of the boxes': within the true bounds
    [
        x0.max(bounds[0]),
        y0.max(bounds[1]),
        x1.min(bounds[2]),
        y1.min(bounds[3]),
    ]
}

/// Below this many values cut per side, [`few_extreme`] beats a selection.
const FEW: usize = 8;

/// The value `k` places from the low end of `vals` (from the high end with
/// `from_top`) in `f64::total_cmp` order, for `k < FEW`: one pass keeping
/// the `k + 1` most extreme values seen, sorted.
fn few_extreme(vals: impl Iterator<Item = f64>, k: usize, from_top: bool) -> f64 {
    debug_assert!(k < FEW);
    // negated, the high end is the low end: total order reverses exactly
    let sign = if from_top { -1.0 } else { 1.0 };
    let mut best = [0.0f64; FEW];
    let mut len = 0;
    for v in vals.map(|v| v * sign) {
        if len > k && v.total_cmp(&best[k]).is_ge() {
            continue;
        }
        // insert v into best[..len], dropping what falls past index k
        let mut w = len.min(k);
        while w > 0 && v.total_cmp(&best[w - 1]).is_lt() {
            best[w] = best[w - 1];
            w -= 1;
        }
        best[w] = v;
        len = (len + 1).min(k + 1);
    }
    best[k] * sign
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

/// Pairs (or their count) and the candidate tests made.
type Found = (Result<Vec<isize>, TooMany>, u64);

fn run_quadtree(s: &Search, budget: &Budget, ex: &Exec, tick: Tick) -> Found {
    let world = placement_bounds(s.boxes, s.bounds);
    let g = Grid::square(world, quadtree_depth(s.boxes, half(world)));
    let place = quadtree::place(s.boxes, &g, QUADTREE_SLACK, ex);
    tick("place");
    let out = cells::find(s.boxes, &g, &place, &s.narrow, budget, ex, tick);
    place.give_back();
    out
}

fn run_grid(s: &Search, budget: &Budget, ex: &Exec, tick: Tick) -> Found {
    let (g, place) = grid_for(s.boxes, s.bounds, ex);
    tick("place");
    let out = cells::find(s.boxes, &g, &place, &s.narrow, budget, ex, tick);
    place.give_back();
    out
}

/// The grid method's grid for `boxes` (of bounds `bounds`), and the boxes'
/// placement on it: cells about [`GRID_FACTOR`] typical extents wide,
/// coarsened until the entries stay within [`GRID_BUDGET`] per box.
pub(crate) fn grid_for(boxes: &[[f64; 4]], bounds: [f64; 4], ex: &Exec) -> (Grid, Placement) {
    let world = placement_bounds(boxes, bounds);
    let mut depth = grid_depth(boxes, half(world));
    // the sample's entries foretell the budget test below: skip the depths
    // it would reject without placing every box at each
    let most = grid_budget(boxes.len());
    while depth > 1 && sampled_entries(boxes, &Grid::square(world, depth)) > most {
        depth -= 1;
    }
    loop {
        let g = Grid::square(world, depth);
        let place = grid::place(boxes, &g, ex);
        // a few big boxes cover too many cells: coarsen
        if depth <= 1 || place.total() <= most {
            return (g, place);
        }
        place.give_back();
        depth -= 1;
    }
}

/// Most grid entries `n` boxes may make before the grid is coarsened.
pub(crate) fn grid_budget(n: usize) -> f64 {
    GRID_BUDGET * n as f64 + 1024.0
}

/// Grid entries of all boxes, estimated from an evenly strided sample.
fn sampled_entries(boxes: &[[f64; 4]], g: &Grid) -> f64 {
    let step = (boxes.len() / SAMPLE).max(1);
    let sum: f64 = boxes
        .iter()
        .step_by(step)
        .map(|b| Placement::cells_met(g.cells_of(b), 0) as f64)
        .sum();
    sum * boxes.len() as f64 / boxes.len().div_ceil(step) as f64
}

/// Objects from which a search runs on the pool as a whole.
pub(crate) const WHOLE_ON_POOL: usize = 4096;

/// Bytes a search may hold per object at its peak, besides its pairs
/// ([`crate::pairs::BYTES_PER_PAIR`] each): the copy of the input (32), keys
/// and sorted entries, the walk's rows and the buckets (about 150 at 10^6
/// objects), rounded up.  A caller compares `n` times this with
/// [`crate::memory::available_memory`] before it starts, so that a search
/// that cannot fit fails with an error rather than the allocator's abort.
pub const BYTES_PER_OBJECT: u64 = 256;

/// Every colliding pair of the search, canonical, flat `[i0, j0, i1, j1, ...]`,
/// or [`TooMany`] with their count when they would not fit in memory.
pub fn find_pairs(s: &Search, ex: &Exec) -> Result<Vec<isize>, TooMany> {
    find_pairs_with(s, ex, &mut |_| {})
}

/// [`find_pairs`], calling `tick` at the end of each stage of the cell
/// methods (`benchmarks`' stage timer).
pub fn find_pairs_with(s: &Search, ex: &Exec, tick: Tick) -> Result<Vec<isize>, TooMany> {
    counted(s, ex, tick).0
}

/// [`find_pairs`] and the number of candidate box tests it made (0 when the
/// method does not count them: the sweep).
pub fn find_pairs_counted(s: &Search, ex: &Exec) -> (Result<Vec<isize>, TooMany>, u64) {
    counted(s, ex, &mut |_| {})
}

fn counted(s: &Search, ex: &Exec, tick: Tick) -> Found {
    let n = s.boxes.len();
    if n < 2 {
        return (Ok(Vec::new()), 0);
    }
    // a short call on a busy machine: every step on this thread
    let ex = &ex.unless_busy(n, WHOLE_ON_POOL);
    let budget = Budget::of(s.max_pairs).stopped_with(ex);
    let searching = crate::scratch::begin();
    // The whole search runs on one pool thread (when the input is worth the
    // pool): its serial stages then share the cores with the pool's other,
    // idle, threads, instead of the calling thread competing with all of
    // them while they wind down after each parallel stage.
    let out = ex
        .for_work(n, WHOLE_ON_POOL)
        .install(|| run(s, &budget, ex, tick));
    drop(searching);
    out
}

fn run(s: &Search, budget: &Budget, ex: &Exec, tick: Tick) -> Found {
    let n = s.boxes.len();
    let method = if s.method == Method::Auto {
        choose(n)
    } else {
        s.method
    };
    match method {
        Method::Brute => (
            brute::find(s.boxes, &s.narrow, budget, ex),
            (n * (n - 1) / 2) as u64,
        ),
        Method::Sweep => {
            let world = placement_bounds(s.boxes, s.bounds);
            (sweep::find(s.boxes, world, &s.narrow, budget, ex), 0)
        }
        Method::Grid => run_grid(s, budget, ex, tick),
        Method::Quadtree | Method::Auto => run_quadtree(s, budget, ex, tick),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn few_extreme_is_a_selection() {
        let vals = [
            3.0,
            -0.0,
            0.0,
            7.0,
            -2.0,
            7.0,
            f64::INFINITY,
            1.5,
            -2.0,
            5.0,
        ];
        let mut sorted = vals.to_vec();
        sorted.sort_by(f64::total_cmp);
        for k in 0..FEW {
            let lo = few_extreme(vals.iter().copied(), k, false);
            let hi = few_extreme(vals.iter().copied(), k, true);
            assert_eq!(lo.to_bits(), sorted[k].to_bits(), "k = {k}");
            assert_eq!(
                hi.to_bits(),
                sorted[vals.len() - 1 - k].to_bits(),
                "k = {k}"
            );
        }
    }

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
