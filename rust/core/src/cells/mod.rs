//! The linear quadtree walk shared by the quadtree and the grid (seeds
//! 000-002), written once over the dimension: in 3D the same walk is the
//! linear octree's.
//!
//! # Derivation
//! Quantize the square (cubic) world into a `2^L` grid.  Seed 001 puts each
//! box in the smallest cell containing it: the highest non-zero `D`-bit
//! group of the XOR of its corner codes gives the level `l`, the corner
//! code `>> D(L - l)` the cell (`D = 2`; `D = 3` for the octree: 3-bit
//! groups, 8 children).  A cell's candidates are its own objects and
//! those of its ancestors, so one pre-order walk that keeps the ancestors'
//! objects on a stack (pushed on the way down, popped on the way up) tests
//! every pair whose cells nest, once.
//!
//! Pre-order without a tree: the sort key of [`crate::key`] lists every cell
//! right before its descendants, ancestors first: the seeds' linear array in
//! the order of the walk, holding only the cells in use (memory O(n) for any
//! L).  Cell `(d, c)` covers finest codes `[c << D(L-d), (c + 1) << D(L-d))`:
//! an entry on the stack is an ancestor of the current cell iff the current
//! start is below its end, so popping is a comparison.
//!
//! # Replicas and the reference point
//! A placement ([`crate::quadtree`], [`crate::grid`]) may enter a box in
//! several cells of one level (at most 2 per axis for the quadtree, all the
//! cells it covers for the grid).  A pair can then be seen from several
//! cell combinations; it is kept only where the deeper cell contains the
//! reference point `P = (max(ix0_a, ix0_b), max(iy0_a, iy0_b))` (and
//! `max(iz0_a, iz0_b)` in 3D) on the integer grid.  Quantization is monotone, so `P` lies in both boxes'
//! integer ranges whenever they truly overlap: each box has exactly one
//! replica holding `P`, the two nest, and the pair is reported exactly once.
//! Pairs of unreplicated boxes are seen once anyway and skip the check.
//!
//! # Early stop inside a cell
//! Inside a cell the entries are ordered by their minx's position in the
//! cell (the key's `sub` field, a monotone function of minx at the
//! resolution [`crate::key::Layout`] gives it), so the test of an entry
//! against the later entries of its cell stops at the first one whose
//! position exceeds that of its maxx: that one, and all after it, start to
//! the right of it.  With coarse positions the stop comes later, never too
//! early.
//!
//! # Parallel walk
//! The cells are cut into chunks of about equal entries, fixed by the data.
//! A chunk starts by pushing the entries of its first cell's ancestors
//! (found by binary search among the earlier cells), then proceeds exactly
//! like the whole walk would.  Invariant: the stack holds exactly the entries
//! of the current cell's ancestors, root first.
//!
//! Complexity: O(m) radix sort of the m entries, and a walk costing O(m + T)
//! where T, the candidate tests, counts for each entry the entries of its
//! own and its ancestor cells.
//!
//! # Parts
//! - `placement`: where the boxes go (each one's level, each chunk's
//!   entry count);
//! - `records`: the sort records of every (box, cell) entry and their key
//!   layout;
//! - `entry`: one entry in walk order and the pair tests among a cell's
//!   entries (the reference-point rule);
//! - `walk`: the walk over the sorted entries (the ancestor stack, the
//!   parallel chunks, counting first).
//!
//! This file runs a search through them: records, radix sort, walk.

mod entry;
mod placement;
mod records;
mod walk;

pub(crate) use entry::{grid_cell_pairs, sort_by_minx, Ent};
pub use placement::Placement;
/// The entry pass, for the tests of the kept grid ([`crate::coherent`]).
#[cfg(test)]
pub(crate) use records::fill;
pub(crate) use records::layout;
pub(crate) use walk::worth_counting_first;

use crate::dim::Row;
use crate::narrow::Narrow;
use crate::pairs::{Budget, TooMany};
use crate::par::Exec;
use crate::radix;
use crate::scratch;
use crate::world::Grid;
use records::{entries, Entries, Words};
use walk::{walk_sorted, Keys};

/// Every colliding pair of boxes placed by `place` on `grid`, canonical.
///
/// Returns the flat pairs and the number of candidate tests.
pub fn find<const N: usize>(
    boxes: &[[f64; N]],
    grid: &Grid<[f64; N]>,
    place: &Placement,
    narrow: &Narrow,
    budget: &Budget,
    ex: &Exec,
    tick: Tick,
) -> (Result<Vec<isize>, TooMany>, u64)
where
    [f64; N]: Row,
    Ent<[f64; N]>: scratch::Pooled,
{
    // Each entry is tested against the later entries of its cell up to the
    // first that starts past it: positions make that stop early.  A few
    // position bits already stop it near the right place; when the key
    // leaves fewer in its last digit, a whole sort pass buys them.  The
    // grid's cells hold more entries than the quadtree's (a quadtree box
    // sits where it spans at least a quarter of its cell), so it asks more.
    let lay = layout(grid, place);
    let recs = entries(boxes, grid, lay, place, ex);
    let keys = Keys { grid, lay };
    tick("entries");
    let width = lay.width();
    match recs {
        Entries::Words { words, shift } => {
            let words = radix::sort(words, shift, width, ex);
            tick("radix sort");
            let v = Words {
                words: &words,
                shift,
            };
            let out = walk_sorted(&v, boxes, keys, narrow, budget, ex, tick);
            scratch::give(words);
            out
        }
        Entries::Pairs(pairs) => {
            let pairs = radix::sort(pairs, 0, width, ex);
            tick("radix sort");
            let out = walk_sorted(&pairs[..], boxes, keys, narrow, budget, ex, tick);
            scratch::give(pairs);
            out
        }
    }
}

/// A stage hook: called with the name of each stage as it ends (a
/// benchmark's timer; a no-op otherwise).
pub type Tick<'a> = &'a mut (dyn FnMut(&'static str) + Send);
