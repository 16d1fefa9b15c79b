//! Batched ray casts against boxes or circles: the first hit of each ray,
//! every hit, or whether there is any.
//!
//! A ray `o + s d` with `s` in `[0, S]` (`S` its `max_t`, possibly
//! infinite) hits an object when some such point lies strictly inside it
//! (grazing an edge, a corner or a circle is no hit); it enters at the
//! infimum `t` of those `s` (0 for a ray starting inside).  The decision
//! and the order of two entries along a ray are exact (`param`); ties go to
//! the lower object index.
//!
//! # How
//! Each ray's candidates come from the cells it passes through (`cells`):
//! the static casts put the objects into a uniform grid (`grid`) and walk
//! it (`walk`); the moving tree walks its own cells (`crate::tree`).  Each
//! candidate is tested once (a stamp per object and ray) against the
//! filters, then by a float slab test of its box that rejects only sure
//! misses and sure entries after the best hit (`reach`), then exactly
//! (`one_ray`).  For the first hit, cells whose points lie beyond the best
//! entry so far are skipped and the walk stops at the first column (the
//! tree: piece) beyond it; an object found there could only enter later.
//!
//! # Determinism
//! The static casts take the rays in the Morton order of their origins'
//! cells (a stable sort: neighbours in that order read the same objects,
//! kept in cache), the tree in their own order; either way they are split
//! into chunks fixed by their number, each ray's answer depends on nothing
//! but its own walk and is put back at the ray's place, so the result is
//! the same for any thread count and any order.  Each thread keeps one
//! stamp array (one `u32` per object).

mod budget;
mod cells;
#[cfg(test)]
mod exact;
mod grid;
mod one_ray;
mod reach;
mod targets;
mod walk;

use budget::RowBudget;
pub use cells::Cells;
pub use grid::RayGrid;
use one_ray::{one_ray, Bounds, Part};
pub use targets::{Balls, Boxes, Circles, Mixed, MixedEntry, Target};

use crate::check::bounds_of;
use crate::dim::{BallRow, Row};
use crate::hints::prefetch;
use crate::narrow::Filters;
use crate::pairs::TooMany;
use crate::par::{chunk_count, even_bounds, Exec, MAX_CHUNKS};
use std::sync::atomic::Ordering as Atomic;

/// Rays from this many on are split among threads.
const PARALLEL_FROM: usize = 1024;
/// Rays per chunk, at least.
const GRAIN: usize = 256;
/// Rays between asking for a ray's origin and direction and casting it.
const AHEAD: usize = 4;

/// What a cast reports per ray.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The first object hit and its entry.
    First,
    /// Every object hit and its entry.
    All,
    /// Whether any object is hit.
    Any,
}

/// The rays and their filters, in `D` dimensions.
#[derive(Clone, Copy, Debug)]
pub struct Rays<'a, const D: usize = 2> {
    /// `x, y` (3D: `x, y, z`) of each ray's origin (finite).
    pub origins: &'a [[f64; D]],
    /// `dx, dy` (3D: `dx, dy, dz`) of each ray's direction (finite; zero allowed).
    pub directions: &'a [[f64; D]],
    /// The greatest `s` of each ray (`>= 0`, possibly infinite): one value
    /// for every ray, or one per ray.
    pub max_t: &'a [f64],
    /// Category bits of each ray (default: all).
    pub categories: Option<&'a [u64]>,
    /// Mask bits of each ray (default: all).
    pub masks: Option<&'a [u64]>,
    /// An object each ray ignores (its shooter), or a negative value.
    pub ignore: Option<&'a [i64]>,
}

impl<const D: usize> Rays<'_, D> {
    /// The number of rays.
    pub fn len(&self) -> usize {
        self.origins.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.origins.is_empty()
    }

    fn max_t(&self, k: usize) -> f64 {
        self.max_t[if self.max_t.len() == 1 { 0 } else { k }]
    }

    /// Whether ray `k` may hit object `j` with these objects' filters:
    /// `categories[ray] & masks[object]` and `categories[object] &
    /// masks[ray]` both non-zero (as between two objects), and `j` not the
    /// ray's ignored object.
    #[inline]
    fn pass(&self, k: usize, objects: &Filters, j: usize) -> bool {
        if self.ignore.is_some_and(|g| g[k] == j as i64) {
            return false;
        }
        let bits = |c: Option<&[u64]>, i: usize| c.map_or(u64::MAX, |c| c[i]);
        bits(self.categories, k) & bits(objects.masks, j) != 0
            && bits(objects.categories, j) & bits(self.masks, k) != 0
    }
}

/// A cast: the rays, the objects' filters (categories and masks; groups
/// are not read) and what to report.
#[derive(Clone, Copy, Debug)]
pub struct Cast<'a, const D: usize = 2> {
    /// The rays.
    pub rays: Rays<'a, D>,
    /// The objects' categories and masks.
    pub objects: Filters<'a>,
    /// What to report.
    pub mode: Mode,
    /// Most rows [`Mode::All`] may store (`None`: what the available
    /// memory holds); beyond them the cast only counts ([`TooMany`]).
    pub max_hits: Option<u64>,
}

/// The answer of a cast.
#[derive(Clone, Debug, PartialEq)]
pub enum Hits {
    /// Per ray: the first object hit (-1 for none) and its entry (`inf`).
    First {
        /// Object indices.
        index: Vec<i64>,
        /// Entries.
        t: Vec<f64>,
    },
    /// Every hit as flat rows `[ray, object, ...]`, sorted, and the entries.
    All {
        /// Rows `(ray, object)`, flat.
        rows: Vec<isize>,
        /// Entries, one per row.
        t: Vec<f64>,
    },
    /// Per ray: whether it hits anything.
    Any(Vec<bool>),
}

/// Cast the rays at boxes (valid: finite, `min <= max`; rows of `N`
/// doubles, the rays of `D = N / 2`); [`TooMany`] when [`Mode::All`]
/// finds more rows than `cast.max_hits` (or the memory) holds.
pub fn cast_boxes<const N: usize, const D: usize>(
    boxes: &[[f64; N]],
    cast: &Cast<D>,
    ex: &Exec,
) -> Result<Hits, TooMany>
where
    [f64; N]: Row<Axes = [f64; D]>,
{
    cast_at(&Boxes(boxes), cast, ex)
}

/// Cast the rays at balls (valid: circles `x, y, r` or spheres `x, y, z,
/// r`; `boxes` their outward-rounded boxes); [`TooMany`] as [`cast_boxes`].
pub fn cast_balls<const C: usize, const D: usize, const N: usize>(
    balls: &[[f64; C]],
    boxes: &[[f64; N]],
    cast: &Cast<D>,
    ex: &Exec,
) -> Result<Hits, TooMany>
where
    [f64; C]: BallRow<D>,
    [f64; N]: Row<Axes = [f64; D]>,
{
    cast_at(&Balls { balls, boxes }, cast, ex)
}

/// [`cast_balls`] of circles: the 2D casts' call.
pub fn cast_circles(
    circles: &[[f64; 3]],
    boxes: &[[f64; 4]],
    cast: &Cast,
    ex: &Exec,
) -> Result<Hits, TooMany> {
    cast_balls(circles, boxes, cast, ex)
}

/// Cast the rays at boxes and balls together (valid; [`Mixed`]);
/// [`TooMany`] as [`cast_boxes`].
pub fn cast_mixed<const C: usize, const D: usize, const N: usize>(
    objects: &Mixed<C, N>,
    cast: &Cast<D>,
    ex: &Exec,
) -> Result<Hits, TooMany>
where
    [f64; C]: BallRow<D>,
    [f64; N]: Row<Axes = [f64; D]>,
{
    cast_at(objects, cast, ex)
}

/// Cast the rays at `target`'s objects through a uniform grid built over
/// them for the call, the rays in the Morton order of their origins' cells;
/// [`TooMany`] as [`cast_boxes`].
pub fn cast_at<const N: usize, const D: usize, T: Target<N>>(
    target: &T,
    cast: &Cast<D>,
    ex: &Exec,
) -> Result<Hits, TooMany>
where
    [f64; N]: Row<Axes = [f64; D]>,
{
    let grid = RayGrid::<N>::new(target.boxes(), bounds_of(target.boxes()), ex);
    let order = ray_order(&grid, cast.rays.origins, ex);
    cast_over(target, &grid, &order, cast, ex)
}

/// Cast the rays, taken in `order` (a permutation of the rays: the
/// answers do not depend on it), at `target`'s objects, the candidates of
/// each ray coming from `cells` ([`Cells`]); [`TooMany`] as [`cast_boxes`].
pub fn cast_over<const N: usize, const D: usize, T: Target<N>, C: Cells<N>>(
    target: &T,
    cells: &C,
    order: &[u32],
    cast: &Cast<D>,
    ex: &Exec,
) -> Result<Hits, TooMany>
where
    [f64; N]: Row<Axes = [f64; D]>,
{
    let (m, n) = (cast.rays.len(), target.boxes().len());
    assert!(
        m < u32::MAX as usize && n < u32::MAX as usize && order.len() == m,
        "too many rays or objects, or an order of other rays"
    );
    let bounds = even_bounds(m, chunk_count(m, GRAIN, MAX_CHUNKS));
    let nch = bounds.len() - 1;
    let ex = ex.for_work(m, PARALLEL_FROM);
    let budget = RowBudget::new(cast.max_hits);
    let limits = Bounds {
        budget: &budget,
        ex: &ex,
    };
    let states = ex.fold(
        nch,
        || (Vec::<u32>::new(), Vec::<(usize, Part)>::new()),
        |(stamp, parts), c| {
            if stamp.len() != n {
                *stamp = vec![0; n];
            }
            let mut part = Part::default();
            let ks = &order[bounds[c]..bounds[c + 1]];
            for (q, &k) in ks.iter().enumerate() {
                // the rays come in the objects' order, not their own
                if let Some(&next) = ks.get(q + 2 * AHEAD) {
                    prefetch(&cast.rays.origins[next as usize]);
                    prefetch(&cast.rays.directions[next as usize]);
                }
                // the cell of a coming ray's origin (most rays' first cell,
                // often their only one): its objects' rows and stamps
                if let Some(&next) = ks.get(q + AHEAD) {
                    for &j in cells.first_cell(cast.rays.origins[next as usize]) {
                        prefetch(&stamp[j as usize]);
                        target.prefetch(j as usize);
                    }
                }
                one_ray(target, cells, cast, k as usize, stamp, limits, &mut part);
            }
            parts.push((c, part));
        },
    );
    if let Some(too_many) = budget.exceeded() {
        return Err(too_many);
    }
    let mut parts: Vec<(usize, Part)> = states.into_iter().flat_map(|s| s.1).collect();
    parts.sort_unstable_by_key(|p| p.0);
    // each ray's answer back at its own place
    let rays = |c: usize| order[bounds[c]..bounds[c + 1]].iter().map(|&k| k as usize);
    Ok(match cast.mode {
        Mode::First => {
            let (mut index, mut t) = (vec![-1; m], vec![f64::INFINITY; m]);
            for (c, p) in &parts {
                for (q, k) in rays(*c).enumerate() {
                    (index[k], t[k]) = (p.index[q], p.t[q]);
                }
            }
            Hits::First { index, t }
        }
        Mode::Any => {
            let mut any = vec![false; m];
            for (c, p) in &parts {
                for (q, k) in rays(*c).enumerate() {
                    any[k] = p.any[q];
                }
            }
            Hits::Any(any)
        }
        Mode::All => {
            // (part, first hit, hits) of each ray
            let mut at = vec![(0, 0, 0); m];
            for (w, (c, p)) in parts.iter().enumerate() {
                for (q, k) in rays(*c).enumerate() {
                    at[k] = (w, p.spans[q].0, p.spans[q].1);
                }
            }
            let stored = budget.stored.load(Atomic::Relaxed) as usize;
            let (mut rows, mut t) = (Vec::with_capacity(2 * stored), Vec::with_capacity(stored));
            for (w, first, len) in at {
                let p = &parts[w].1;
                rows.extend_from_slice(&p.rows[2 * first..2 * (first + len)]);
                t.extend_from_slice(&p.t[first..first + len]);
            }
            Hits::All { rows, t }
        }
    })
}

/// The rays in the order of their origins' cells (Morton), ties by index:
/// rays taken in this order read mostly the same objects one after another,
/// which then stay in cache.  Fixed by the data (a stable sort).
fn ray_order<const N: usize, const D: usize>(
    grid: &RayGrid<N>,
    origins: &[[f64; D]],
    ex: &Exec,
) -> Vec<u32>
where
    [f64; N]: Row<Axes = [f64; D]>,
{
    let recs: Vec<u64> = origins
        .iter()
        .enumerate()
        .map(|(k, &o)| grid.code_of(o) << 32 | k as u64)
        .collect();
    let sorted = crate::radix::sort(recs, 32, grid.code_bits(), ex);
    sorted.into_iter().map(|r| r as u32).collect()
}
