//! Uniform grid (spatial hash): each box in every cell it overlaps.
//!
//! A uniform grid of `2^L` cells a side (squares in 2D, cubes in 3D) is the
//! linear quadtree (octree) with
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
use crate::dim::Row;
use crate::par::Exec;
use crate::world::Grid;

/// Every box at level `depth`, entered in all the cells it overlaps (2D or
/// 3D boxes: the grid is the quadtree's, or the octree's, finest level).
pub fn place<const N: usize>(boxes: &[[f64; N]], grid: &Grid<[f64; N]>, ex: &Exec) -> Placement
where
    [f64; N]: Row,
{
    let n = boxes.len();
    let bounds = Placement::chunks(n);
    let counts = ex.for_work(n, 1 << 13).map(bounds.len() - 1, |c| {
        boxes[bounds[c]..bounds[c + 1]]
            .iter()
            .map(|b| Placement::cells_met(grid.cells_of(b), 0))
            .sum::<u64>()
    });
    Placement::new(Vec::new(), bounds, &counts)
}
