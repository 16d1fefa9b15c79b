//! Uniform grid (spatial hash): each box in every cell it overlaps.
//!
//! A uniform grid of `2^L x 2^L` square cells is the linear quadtree with
//! every box entered at the finest level, in all the cells its integer range
//! covers.  So the grid only differs in placement: the entries, their radix
//! sort by Morton key (only occupied cells exist, memory O(entries) for any
//! L), the walk (whose ancestor stack stays empty) and the reference-point
//! rule for boxes sharing several cells all come from [`crate::cells`].
//!
//! Cost O(n + E + sum over cells of m_c^2) for E entries: ideal for boxes of
//! one size about the cell, poorer when a few large boxes cover many cells
//! (the driver coarsens the grid until E stays within a budget, which then
//! crowds the cells).

use crate::cells::Placement;
use crate::par::{chunk_count, even_bounds, split_at_bounds, Exec};
use crate::scratch;
use crate::world::Grid;

/// Every box at level `depth`, entered in all the cells it overlaps.
pub fn place(boxes: &[[f64; 4]], grid: &Grid, ex: &Exec) -> Placement {
    let n = boxes.len();
    let mut p = Placement {
        levels: scratch::filled(n, grid.depth as u8),
        counts: scratch::filled(n, 0),
    };
    let bounds = even_bounds(n, chunk_count(n, 1 << 12, 256));
    let parts = split_at_bounds(&mut p.counts, &bounds);
    ex.for_work(n, 1 << 13).each(parts, |c, cnt| {
        for (t, v) in cnt.iter_mut().enumerate() {
            let [ix0, iy0, ix1, iy1] = grid.cells_of(&boxes[bounds[c] + t]);
            *v = (ix1 - ix0 + 1) as u64 * (iy1 - iy0 + 1) as u64;
        }
    });
    p
}
