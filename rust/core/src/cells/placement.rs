//! Where the boxes go: each one's level, and how many entries each chunk
//! of boxes makes.
//!
//! Invariants: `bounds` are the box chunks of [`Placement::chunks`] (fixed
//! by the number of boxes alone, never by the threads); `starts` are the
//! prefix sums of the chunks' entry counts (`starts[c]` is chunk `c`'s
//! first entry, the last one the total); `levels` is empty (every box at
//! the grid's depth) or holds one level per box, at most the depth.

use crate::par::{chunk_count, even_bounds, MAX_CHUNKS};
use crate::scratch;

/// Fewest boxes per chunk of the placement and entry passes.
pub(super) const BOX_GRAIN: usize = 1 << 12;

/// Where the boxes go: each one's level, and how many entries each chunk of
/// boxes makes (the chunks fixed by the data: [`Placement::chunks`]).
///
/// A box at level `l` enters every level-`l` cell its integer range meets
/// (1 to 2^D for the quadtree or the octree, any number for the grid); the entry pass
/// recomputes the cells, so only the level is stored per box, and only where
/// it varies.
#[derive(Clone, Debug)]
pub struct Placement {
    /// Level of each box, or empty when every box is at the grid's depth.
    pub levels: Vec<u8>,
    /// First box of each chunk, then the number of boxes.
    pub bounds: Vec<usize>,
    /// First entry of each chunk, then the number of entries.
    pub starts: Vec<usize>,
}

impl Placement {
    /// Box chunks of a placement pass over `n` boxes.
    pub fn chunks(n: usize) -> Vec<usize> {
        even_bounds(n, chunk_count(n, BOX_GRAIN, MAX_CHUNKS))
    }

    /// A placement from the levels (empty: all at the depth) and each
    /// chunk's entry count.
    pub fn new(levels: Vec<u8>, bounds: Vec<usize>, counts: &[u64]) -> Placement {
        let mut starts = Vec::with_capacity(counts.len() + 1);
        let mut at = 0usize;
        starts.push(0);
        for &c in counts {
            at = at.saturating_add(usize::try_from(c).unwrap_or(usize::MAX));
            starts.push(at);
        }
        Placement {
            levels,
            bounds,
            starts,
        }
    }

    /// Cells of a level `2^s` finest cells wide that the integer range `q`
    /// (the low corner's cells, then the high one's: `[ix0, iy0, ix1, iy1]`
    /// in 2D) meets: the entries of a box placed there.
    #[inline(always)]
    pub fn cells_met<const N: usize>(q: [u32; N], s: u32) -> u64 {
        (0..N / 2).fold(1, |m, k| m * ((q[N / 2 + k] >> s) - (q[k] >> s) + 1) as u64)
    }

    /// Total entries, as a float (cannot wrap around for any count).
    pub fn total(&self) -> f64 {
        self.starts.last().map_or(0.0, |&t| t as f64)
    }

    /// Level of box `k` on a grid of `depth`.
    #[inline(always)]
    pub(super) fn level(&self, k: usize, depth: u32) -> u32 {
        if self.levels.is_empty() {
            depth
        } else {
            self.levels[k] as u32
        }
    }

    /// Return the buffers to the scratch pool.
    pub fn give_back(self) {
        scratch::give(self.levels);
    }
}
