//! Swept pairs (continuous collision): objects moving linearly over a frame
//! that overlap strictly at some moment of it, and the moment they start to.
//!
//! Each box moves from its `start` row to its `end` row, every coordinate
//! `c0 + s (c1 - c0)` for `s` in `[0, 1]` (circles and spheres likewise,
//! centres moving, radii fixed).  A pair is reported with the infimum `t`
//! of the `s` at which the two overlap strictly; the decision is exact, `t`
//! a double (`param`: correctly rounded for boxes, within a relative
//! `2^-36` for balls).  Written once over the dimension: box rows of 4 or 6
//! doubles ([`crate::dim`]), ball rows of 3 or 4.
//!
//! # How
//! The box of an object at any `s` lies in the union of its start and end
//! boxes (each coordinate moves monotonically between its two values), so
//! two objects that overlap at some `s` have union boxes that overlap
//! strictly: the pairs of the union boxes ([`find_pairs`], with the
//! filters) are a superset, each then tested exactly.  The candidates come
//! in canonical order and are tested in chunks fixed by their number, kept
//! in order: the result is canonical and the same for any thread count.
//! When nothing moves the exact test is the box (circle) test itself: the
//! pairs are those of [`find_pairs`] with `t = 0`.

use crate::check::bounds_of;
use crate::dim::{union, BallRow};
use crate::hints::prefetch;
use crate::narrow::{Filters, Narrow, Shapes};
use crate::pairs::TooMany;
use crate::par::{chunk_count, even_bounds, split_at_bounds, Exec, MAX_CHUNKS};
use crate::param::{quadratic, shapes};
use crate::scratch::{self, Pooled};
use crate::search::{find_pairs, Method, Search, Width};

/// Candidates per chunk of the exact tests, at least.
const GRAIN: usize = 4096;
/// Candidates between asking for an object's rows and testing it.
const AHEAD: usize = 8;
/// Candidates a chunk tests between two looks at the call's stop: chunks
/// are fixed by the candidates' number (at most `MAX_CHUNKS`), so one may
/// hold millions, and a circle's exact test can take microseconds.
const STOP_EVERY: usize = 4096;

/// Objects moving over a frame: rows at `s = 0` and at `s = 1`, of `W`
/// doubles (boxes: 4 or 6; circles and spheres: 3 or 4).
#[derive(Clone, Copy, Debug)]
pub struct Motion<'a, const W: usize> {
    /// Rows at the start (valid: finite, boxes `min <= max`, radii `>= 0`).
    pub start: &'a [[f64; W]],
    /// Rows at the end (as many, valid; balls: the radius is the start's).
    pub end: &'a [[f64; W]],
    /// The pair filters, as for [`find_pairs`].
    pub filters: Filters<'a>,
}

/// Swept pairs: canonical flat rows `[i, j, ...]` and their `t`.
pub type SweptPairs = (Vec<isize>, Vec<f64>);

/// Pairs of boxes (`minx, miny, maxx, maxy`, or 3D `minx, miny, minz,
/// maxx, maxy, maxz`) that overlap strictly at some `s` in `[0, 1]`, with
/// the first such `s`.
pub fn swept_boxes<const N: usize>(m: &Motion<N>, ex: &Exec) -> Result<SweptPairs, TooMany>
where
    [f64; N]: Width<N> + Pooled,
{
    candidates_then([m.start, m.end], m.filters, [m.start, m.end], ex, |i, j| {
        shapes::swept_boxes_t(&m.start[i], &m.end[i], &m.start[j], &m.end[j])
    })
}

/// Pairs of circles (`x, y, r`) or spheres (`x, y, z, r`) that overlap
/// strictly at some `s` in `[0, 1]`, with the first such `s`; `boxes` the
/// outward-rounded boxes of the start and end rows (`check::ball_boxes`,
/// which validates them).
pub fn swept_circles<const C: usize, const D: usize, const N: usize>(
    m: &Motion<C>,
    boxes: [&[[f64; N]]; 2],
    ex: &Exec,
) -> Result<SweptPairs, TooMany>
where
    [f64; C]: BallRow<D>,
    [f64; N]: Width<N> + Pooled,
{
    // the end rows with the start's radius
    let end: Vec<[f64; C]> = m
        .start
        .iter()
        .zip(m.end)
        .map(|(a, b)| {
            let mut e = *b;
            e[D] = a[D];
            e
        })
        .collect();
    candidates_then(boxes, m.filters, [m.start, &end], ex, |i, j| {
        shapes::swept_balls(&m.start[i], &end[i], &m.start[j], &end[j])
            .map(|e| quadratic::entry_f64(&e))
    })
}

/// The union of each start box and end box, in parallel for many (the
/// candidates' boxes: every box an object takes on the way lies inside).
pub fn unions<const N: usize>(start: &[[f64; N]], end: &[[f64; N]], ex: &Exec) -> Vec<[f64; N]>
where
    [f64; N]: Pooled,
{
    let mut out = scratch::take(start.len());
    ex.for_work(start.len(), 16 * GRAIN)
        .collect_into(&mut out, start.len(), GRAIN, |k| union(start[k], end[k]));
    out
}

/// The pairs of the union boxes of `boxes` (start and end boxes; with the
/// filters), each kept with its `t` when `test(i, j)` gives one; `objects`
/// what `test` reads of an object (asked for `AHEAD` candidates before it
/// is tested: the second objects of consecutive candidates lie anywhere in
/// memory); in order: canonical rows.
///
/// Each chunk of candidates writes its pairs over its own candidates (a
/// pair at or before the candidate being read) and their `t` at the same
/// places of a second buffer; the chunks' parts are then joined in chunk
/// order ([`Exec::concat_into`]).  Every buffer but the result comes from
/// the scratch pool and goes back to it.
pub fn candidates_then<const N: usize, const W: usize>(
    boxes: [&[[f64; N]]; 2],
    filters: Filters,
    objects: [&[[f64; W]]; 2],
    ex: &Exec,
    test: impl Fn(usize, usize) -> Option<f64> + Sync,
) -> Result<SweptPairs, TooMany>
where
    [f64; N]: Width<N> + Pooled,
{
    let union = unions(boxes[0], boxes[1], ex);
    let search = Search {
        boxes: &union,
        bounds: bounds_of(&union),
        narrow: Narrow {
            shapes: Shapes::Boxes,
            filters,
        },
        method: Method::Auto,
        max_pairs: None,
    };
    let found = find_pairs(&search, ex);
    scratch::give(union);
    let mut flat = found?;
    let k = flat.len() / 2;
    let bounds = even_bounds(k, chunk_count(k, GRAIN, MAX_CHUNKS));
    let ex = ex.for_work(k, 2 * GRAIN);
    let mut found_t = scratch::take(k);
    ex.collect_into(&mut found_t, k, 16 * GRAIN, |_| 0.0);
    // each chunk's pairs over its first candidates (written at or before
    // the one being read) and its t at the same places: no allocation
    let rows2: Vec<usize> = bounds.iter().map(|&b| 2 * b).collect();
    let counts = {
        let t_parts = split_at_bounds(&mut found_t, &bounds);
        let rows_parts = split_at_bounds(&mut flat, &rows2);
        let parts: Vec<_> = rows_parts.into_iter().zip(t_parts).collect();
        ex.each(parts, |_, (rows, t)| {
            let len = t.len();
            let mut kept = 0;
            for p in 0..len {
                if p % STOP_EVERY == 0 {
                    ex.check_stop(); // a chunk may hold a million slow exact tests
                }
                if p + AHEAD < len {
                    let j = rows[2 * (p + AHEAD) + 1] as usize;
                    prefetch(&objects[0][j]);
                    prefetch(&objects[1][j]);
                }
                let (i, j) = (rows[2 * p] as usize, rows[2 * p + 1] as usize);
                if let Some(s) = test(i, j) {
                    rows[2 * kept] = i as isize;
                    rows[2 * kept + 1] = j as isize;
                    // the exact moment is below 1; a circle's, within its
                    // bound, may be given past it
                    t[kept] = s.min(1.0);
                    kept += 1;
                }
            }
            kept
        })
    };
    let total: usize = counts.iter().sum();
    let rows_of: Vec<&[isize]> = (0..counts.len())
        .map(|c| &flat[rows2[c]..rows2[c] + 2 * counts[c]])
        .collect();
    let t_of: Vec<&[f64]> = (0..counts.len())
        .map(|c| &found_t[bounds[c]..bounds[c] + counts[c]])
        .collect();
    let ex = ex.for_work(total, 16 * GRAIN);
    let mut rows = scratch::result(2 * total);
    ex.concat_into(&mut rows, &rows_of);
    let mut t = scratch::take(total);
    ex.concat_into(&mut t, &t_of);
    scratch::give(flat);
    scratch::give(found_t);
    Ok((rows, t))
}
