//! One search: pick a method, size its grid, run it.
//!
//! Every method returns the identical canonical pairs; the choice and the
//! tuning below only move the time (docs/benchmarks.md has the figures
//! behind them).

mod sizing;

pub use sizing::{grid_depth, placement_bounds, quadtree_depth, typical_extent};

use crate::cells::{self, Ent, Placement, Tick};
use crate::check::{scan_boxes, BadRow};
use crate::dim::Row;
use crate::narrow::{Balls, Narrow};
use crate::pairs::{Budget, TooMany};
use crate::par::Exec;
use crate::scratch::Pooled;
use crate::sweep::SAMPLE;
use crate::world::{longest_half_span, Grid};
use crate::{brute, cutoff, grid, quadtree, sweep};

/// Levels a box may sit above its fit level before it is split.
pub const QUADTREE_SLACK: u32 = 1;
/// Finest quadtree cell about `2^-BIAS` of the typical box extent.
pub const QUADTREE_BIAS: i64 = 0;
/// Grid cell side, in typical box extents (2D).
pub const GRID_FACTOR: f64 = 4.0;
/// Grid cell side, in typical box extents, in 3D: a cell of the 2D factor
/// holds `factor^D` boxes' worth of space, four times as many in 3D for
/// the same pairs per box; half the side keeps about the 2D cell's count.
pub const GRID_FACTOR_3D: f64 = 2.0;
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
    /// Linear quadtree in Morton order (in 3D the linear octree).
    Quadtree,
}

impl Method {
    /// Every method, with the names the Python API accepts ("octree": the
    /// quadtree's name in 3D, where it is the seeds' octree; either name
    /// runs the same code at either dimension).
    pub const NAMES: [(&'static str, Method); 6] = [
        ("auto", Method::Auto),
        ("brute", Method::Brute),
        ("sweep", Method::Sweep),
        ("grid", Method::Grid),
        ("quadtree", Method::Quadtree),
        ("octree", Method::Quadtree),
    ];

    /// The method named `name`.
    pub fn from_name(name: &str) -> Option<Method> {
        Self::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, m)| *m)
    }
}

/// A validated pair search, of 2D boxes (`N = 4`, the default) or 3D boxes
/// (`N = 6`): rows as [`crate::dim`] lays them out.
#[derive(Clone, Copy, Debug)]
pub struct Search<'a, const N: usize = 4> {
    /// `minx, miny, maxx, maxy` per object in 2D, `minx, miny, minz, maxx,
    /// maxy, maxz` in 3D (for balls, their outward-rounded bounding boxes);
    /// finite, `min <= max`.
    pub boxes: &'a [[f64; N]],
    /// The bounds over all boxes, a row of the same layout.
    pub bounds: [f64; N],
    /// Filters and shapes.
    pub narrow: Narrow<'a>,
    /// The algorithm.
    pub method: Method,
    /// Most pairs the result may hold (`None`: what the available memory holds).
    pub max_pairs: Option<u64>,
}

impl<'a, const N: usize> Search<'a, N>
where
    [f64; N]: Row,
{
    /// A search of `boxes` by the `Auto` method, with no filters and no cap
    /// but the available memory, after checking them: every coordinate
    /// finite and `min <= max` on every axis (else the first bad row).
    pub fn of_boxes(boxes: &'a [[f64; N]], ex: &Exec) -> Result<Search<'a, N>, BadRow> {
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

/// Pairs (or their count) and the candidate tests made.
pub type Found = (Result<Vec<isize>, TooMany>, u64);

fn run_quadtree<const N: usize>(s: &Search<N>, budget: &Budget, ex: &Exec, tick: Tick) -> Found
where
    [f64; N]: Row,
    Ent<[f64; N]>: Pooled,
{
    let world = placement_bounds(s.boxes, s.bounds);
    let g = Grid::square(world, quadtree_depth(s.boxes, longest_half_span(world)));
    let place = quadtree::place(s.boxes, &g, QUADTREE_SLACK, ex);
    tick("place");
    let out = cells::find(s.boxes, &g, &place, &s.narrow, budget, ex, tick);
    place.give_back();
    out
}

fn run_grid<const N: usize>(s: &Search<N>, budget: &Budget, ex: &Exec, tick: Tick) -> Found
where
    [f64; N]: Row,
    Ent<[f64; N]>: Pooled,
{
    let (g, place) = grid_for(s.boxes, s.bounds, ex);
    tick("place");
    let out = cells::find(s.boxes, &g, &place, &s.narrow, budget, ex, tick);
    place.give_back();
    out
}

/// The grid method's grid for `boxes` (of bounds `bounds`), and the boxes'
/// placement on it: cells about [`GRID_FACTOR`] typical extents wide,
/// coarsened until the entries stay within [`GRID_BUDGET`] per box.
pub(crate) fn grid_for<const N: usize>(
    boxes: &[[f64; N]],
    bounds: [f64; N],
    ex: &Exec,
) -> (Grid<[f64; N]>, Placement)
where
    [f64; N]: Row,
{
    let world = placement_bounds(boxes, bounds);
    let mut depth = grid_depth(boxes, longest_half_span(world));
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
fn sampled_entries<const N: usize>(boxes: &[[f64; N]], g: &Grid<[f64; N]>) -> f64
where
    [f64; N]: Row,
{
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
pub fn find_pairs<const N: usize>(s: &Search<N>, ex: &Exec) -> Result<Vec<isize>, TooMany>
where
    [f64; N]: Width<N>,
{
    find_pairs_with(s, ex, &mut |_| {})
}

/// [`find_pairs`], calling `tick` at the end of each stage of the cell
/// methods (`benchmarks`' stage timer).
pub fn find_pairs_with<const N: usize>(
    s: &Search<N>,
    ex: &Exec,
    tick: Tick,
) -> Result<Vec<isize>, TooMany>
where
    [f64; N]: Width<N>,
{
    counted(s, ex, tick).0
}

/// [`find_pairs`] and the number of candidate box tests it made (0 when the
/// method does not count them: the sweep).
pub fn find_pairs_counted<const N: usize>(
    s: &Search<N>,
    ex: &Exec,
) -> (Result<Vec<isize>, TooMany>, u64)
where
    [f64; N]: Width<N>,
{
    counted(s, ex, &mut |_| {})
}

/// A row width a search runs at (2D: `[f64; 4]`, 3D: `[f64; 6]`).  Every
/// method is written once over the dimension; this trait names the two
/// instances, whose buffers have scratch pools of their own (a pool is a
/// static per type: `crate::scratch`), so that a caller generic over the
/// width needs no bound on the kernels' private types.
pub trait Width<const N: usize>: Row + Balls {
    /// Run `method` (not `Auto`: [`choose`] has picked) over `s`.
    fn run(s: &Search<N>, method: Method, budget: &Budget, ex: &Exec, tick: Tick) -> Found;
}

impl Width<4> for [f64; 4] {
    fn run(s: &Search, method: Method, budget: &Budget, ex: &Exec, tick: Tick) -> Found {
        by_cutoff::<4, 2>(s, method, budget, ex)
            .unwrap_or_else(|| run_method(s, method, budget, ex, tick))
    }
}

impl Width<6> for [f64; 6] {
    fn run(s: &Search<6>, method: Method, budget: &Budget, ex: &Exec, tick: Tick) -> Found {
        by_cutoff::<6, 3>(s, method, budget, ex)
            .unwrap_or_else(|| run_method(s, method, budget, ex, tick))
    }
}

/// The `Auto` search of balls of one radius beyond brute force's range: the
/// cell list of [`crate::cutoff`] (`None`: not such a search, or the cell
/// list declined).
fn by_cutoff<const N: usize, const D: usize>(
    s: &Search<N>,
    method: Method,
    budget: &Budget,
    ex: &Exec,
) -> Option<Found>
where
    [f64; N]: Row + Balls,
    [f64; D]: Pooled,
{
    if s.method != Method::Auto || method == Method::Brute {
        return None;
    }
    let (balls, r) = cutoff::one_radius::<[f64; N]>(&s.narrow.shapes)?;
    cutoff::find::<D, _>(balls, r, &s.narrow, budget, ex)
}

fn counted<const N: usize>(s: &Search<N>, ex: &Exec, tick: Tick) -> Found
where
    [f64; N]: Width<N>,
{
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

fn run<const N: usize>(s: &Search<N>, budget: &Budget, ex: &Exec, tick: Tick) -> Found
where
    [f64; N]: Width<N>,
{
    let method = if s.method == Method::Auto {
        choose(s.boxes.len())
    } else {
        s.method
    };
    <[f64; N]>::run(s, method, budget, ex, tick)
}

/// The search by `method`, at any width.
fn run_method<const N: usize>(
    s: &Search<N>,
    method: Method,
    budget: &Budget,
    ex: &Exec,
    tick: Tick,
) -> Found
where
    [f64; N]: Row,
    sweep::Rec<N>: Pooled,
    Ent<[f64; N]>: Pooled,
{
    let n = s.boxes.len();
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
