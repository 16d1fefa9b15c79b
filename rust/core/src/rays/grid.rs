//! The rays' broad phase: a uniform grid over the objects' boxes, read by
//! each ray's walk (`walk`) through the cells it passes through.
//!
//! # The grid
//! Square cells over the search's placement bounds ([`Grid::square`]),
//! each box entered in every cell of its quantized range, in a CSR table
//! (object indices ascending within a cell).  Quantization is monotone and
//! [`Grid::edges`] gives, exactly, the doubles where each cell starts:
//! column `c` holds the real `x` with `e[c] <= x < e[c + 1]`
//! (`e[0] = -inf`, `e[top + 1] = +inf`), so the cells tile the plane (the
//! border cells reach to infinity) and a box, whose corners' cells bound
//! its range, lies inside the union of its cells: every point strictly
//! inside an object lies in a cell the object is entered in.
//!
//! The walk of one ray through the cells is in `walk`.

use crate::par::Exec;
use crate::search::{grid_budget, grid_depth, placement_bounds};
use crate::world::{half_span, quantize, Grid};

/// Halvings of the pair search's grid cells (`GRID_FACTOR` = 4 typical
/// boxes wide): a ray meets the objects of every cell it crosses, so its
/// cells are about one typical box wide (each box then in about four).
const CELL_FINER: u32 = 2;
/// Most cells a side (4^11 cells at most, however many objects).
const MAX_DEPTH: u32 = 11;
/// Boxes from which their cell ranges are found in parallel.
const PARALLEL_FROM: usize = 1 << 14;
/// Boxes per chunk of that, at least.
const GRAIN: usize = 4096;

/// The objects' boxes in a uniform grid.
pub struct RayGrid {
    grid: Grid,
    /// Where the columns and rows start ([`Grid::edges`]).
    edges: [Vec<f64>; 2],
    side: usize,
    /// `items[start[c]..start[c + 1]]` are the objects of cell `c = row * side + col`.
    start: Vec<u32>,
    items: Vec<u32>,
    /// The closed bounds of every box.
    bounds: [f64; 4],
}

impl RayGrid {
    /// The grid of `boxes` (valid boxes; `bounds` their bounds): cells about
    /// a typical box wide, coarsened until the entries stay within the
    /// search's budget.
    pub fn new(boxes: &[[f64; 4]], bounds: [f64; 4], ex: &Exec) -> RayGrid {
        let n = boxes.len();
        let world = placement_bounds(boxes, bounds);
        let half = half_span(world[0], world[2]).max(half_span(world[1], world[3]));
        let fit = (usize::BITS - n.max(1).leading_zeros()) / 2 + 1;
        let mut depth = if n == 0 {
            0
        } else {
            (grid_depth(boxes, half) + CELL_FINER)
                .min(fit)
                .min(MAX_DEPTH)
        };
        let most = grid_budget(n);
        let ex = ex.for_work(n, PARALLEL_FROM);
        let mut cells = Vec::new();
        loop {
            let grid = Grid::square(world, depth);
            ex.collect_into(&mut cells, n, GRAIN, |k| grid.cells_of(&boxes[k]));
            let total: f64 = cells
                .iter()
                .map(|&[x0, y0, x1, y1]| ((x1 - x0 + 1) as f64) * ((y1 - y0 + 1) as f64))
                .sum();
            if depth == 0 || total <= most {
                return Self::fill(&cells, bounds, grid);
            }
            depth -= 1;
        }
    }

    /// The grid's CSR table from each box's cell range `cells`.
    fn fill(cells: &[[u32; 4]], bounds: [f64; 4], grid: Grid) -> RayGrid {
        let side = grid.top() as usize + 1;
        let mut start = vec![0u32; side * side + 1];
        for &[x0, y0, x1, y1] in cells {
            for r in y0..=y1 {
                for c in x0..=x1 {
                    start[r as usize * side + c as usize + 1] += 1;
                }
            }
        }
        for k in 1..start.len() {
            start[k] += start[k - 1];
        }
        let mut next = start.clone();
        let mut items = vec![0u32; start[side * side] as usize];
        for (i, &[x0, y0, x1, y1]) in cells.iter().enumerate() {
            for r in y0..=y1 {
                for c in x0..=x1 {
                    let cell = r as usize * side + c as usize;
                    items[next[cell] as usize] = i as u32;
                    next[cell] += 1;
                }
            }
        }
        RayGrid {
            edges: [grid.edges(0), grid.edges(1)],
            grid,
            side,
            start,
            items,
            bounds,
        }
    }

    /// The Morton code of the cell holding the point `p` (finite): points
    /// near in the plane mostly have codes near in order.
    pub fn code_of(&self, p: [f64; 2]) -> u64 {
        crate::morton::encode(self.column(p[0]) as u64, self.row(p[1]) as u64)
    }

    /// Bits of [`RayGrid::code_of`]'s codes.
    pub fn code_bits(&self) -> u32 {
        2 * (usize::BITS - (self.side - 1).leading_zeros())
    }

    /// The objects of the cell holding the point `p` (finite).
    pub fn cell_of(&self, p: [f64; 2]) -> &[u32] {
        self.cell(self.column(p[0]), self.row(p[1]))
    }

    /// Whether no cell holds an object.
    pub(super) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The closed bounds of every box.
    pub(super) fn bounds(&self) -> [f64; 4] {
        self.bounds
    }

    /// Where the columns (`axis` 0) or rows (1) start ([`Grid::edges`]).
    pub(super) fn edges(&self, axis: usize) -> &[f64] {
        &self.edges[axis]
    }

    /// The objects of the cell at `col`, `row`.
    #[inline(always)]
    pub(super) fn cell(&self, col: usize, row: usize) -> &[u32] {
        let c = row * self.side + col;
        &self.items[self.start[c] as usize..self.start[c + 1] as usize]
    }

    /// The column of `x` (clamped to the grid).
    #[inline(always)]
    pub(super) fn column(&self, v: f64) -> usize {
        let g = &self.grid;
        quantize(v, g.origin(0), g.scale(0), g.top() as u64) as usize
    }

    /// The row of `y` (clamped to the grid).
    #[inline(always)]
    pub(super) fn row(&self, v: f64) -> usize {
        let g = &self.grid;
        quantize(v, g.origin(1), g.scale(1), g.top() as u64) as usize
    }
}
