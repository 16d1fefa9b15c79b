//! The rays' broad phase: a uniform grid over the objects' boxes, read by
//! each ray's walk (`walk`) through the cells it passes through; written
//! once over the dimension (rows of `N = 2 D` doubles, [`crate::dim`]).
//!
//! # The grid
//! Square (in 3D cubic) cells over the search's placement bounds
//! ([`Grid::square`]): `side = 2^depth` cells per axis, `side^D` in all,
//! cell `(i_0, .., i_{D-1})` at index `i_0 + side (i_1 + side i_2)` (x
//! varying fastest, then y, then z), each box entered in every cell of its
//! quantized range, in a CSR table (object indices ascending within a
//! cell).  Quantization is monotone and [`Grid::edges`] gives, exactly, the
//! doubles where each cell starts on each axis: cell `c` of axis `k` holds
//! the real `v` with `e_k[c] <= v < e_k[c + 1]` (`e_k[0] = -inf`,
//! `e_k[side] = +inf`), so the cells tile the space (the border cells reach
//! to infinity) and a box, whose corners' cells bound its range on every
//! axis, lies inside the union of its cells: every point strictly inside
//! an object lies in a cell the object is entered in.
//!
//! # Its size
//! A ray meets the objects of every cell it crosses, so the cells are about
//! one typical box wide: the pair search's grid depth ([`grid_depth`]:
//! cells [`GRID_FACTOR`](crate::search::GRID_FACTOR) = 4 typical extents
//! wide in 2D, [`GRID_FACTOR_3D`](crate::search::GRID_FACTOR_3D) = 2 in
//! 3D) plus [`cell_finer`] halvings (2 in 2D, 1 in 3D).  A box about a cell wide then lies in about 2 cells per axis,
//! `2^D` entries: the entries may reach `2^(D - 2)` times the search's
//! budget ([`grid_budget`]: 4 per box in 2D, so 8 in 3D), and the grid is
//! coarsened a level at a time until they fit (and fit the table's `u32`
//! offsets).  The cells themselves cost a `u32` each, so their number is
//! bounded on both sides of the data: `side^D <= 8 n` (`depth <= (floor(
//! log2 n) + 3) / D`, a few cells per object) and `side^D <= 2^22` (depth
//! at most 11 in 2D, 7 in 3D, however many objects).
//!
//! The walk of one ray through the cells is in `walk`.

use crate::dim::Row;
use crate::par::Exec;
use crate::search::{grid_budget, grid_depth, placement_bounds};
use crate::world::{longest_half_span, Grid};

/// Halvings of the pair search's grid cells in `d` dimensions, so that the
/// rays' cells are about one typical box wide (the search's are 4 typical
/// extents wide in 2D, 2 in 3D).
pub const fn cell_finer(d: usize) -> u32 {
    if d == 2 {
        2
    } else {
        1
    }
}

/// Bits of the most cells a grid may have (`side^D <= 2^22`: 11 levels in
/// 2D, 7 in 3D, however many objects).
const MAX_CELL_BITS: u32 = 22;
/// Cells per object at most, as a power of two (`side^D <= 2^3 n`).
const CELLS_PER_OBJECT_BITS: u32 = 3;
/// Boxes from which their cell ranges are found in parallel.
const PARALLEL_FROM: usize = 1 << 14;
/// Boxes per chunk of that, at least.
const GRAIN: usize = 4096;

/// The objects' boxes (rows of `N` doubles: [`Row`]) in a uniform grid.
pub struct RayGrid<const N: usize>
where
    [f64; N]: Row,
{
    grid: Grid<[f64; N]>,
    /// Where the cells of each axis start ([`Grid::edges`]; the third is
    /// empty in 2D).
    edges: [Vec<f64>; 3],
    side: usize,
    /// `items[start[c]..start[c + 1]]` are the objects of cell `c` (its
    /// index: x fastest, then y, then z).
    start: Vec<u32>,
    items: Vec<u32>,
    /// The closed bounds of every box.
    bounds: [f64; N],
}

impl<const N: usize> RayGrid<N>
where
    [f64; N]: Row,
{
    /// The dimension.
    const D: usize = N / 2;

    /// The grid of `boxes` (valid boxes; `bounds` their bounds): cells about
    /// a typical box wide, coarsened until the entries stay within the
    /// budget (the module's doc).
    pub fn new(boxes: &[[f64; N]], bounds: [f64; N], ex: &Exec) -> RayGrid<N> {
        let n = boxes.len();
        let d = Self::D as u32;
        let world = placement_bounds(boxes, bounds);
        let half = longest_half_span(world);
        let log2n = usize::BITS - 1 - n.max(1).leading_zeros();
        let fit = (log2n + CELLS_PER_OBJECT_BITS) / d;
        let mut depth = if n == 0 {
            0
        } else {
            (grid_depth(boxes, half) + cell_finer(Self::D))
                .min(fit)
                .min(MAX_CELL_BITS / d)
        };
        // 2^(D - 2) times the search's entries, and offsets within a u32
        let most = (grid_budget(n) * (1u64 << (d - 2)) as f64).min((u32::MAX - 1) as f64);
        let ex = ex.for_work(n, PARALLEL_FROM);
        let mut cells = Vec::new();
        loop {
            let grid = Grid::square(world, depth);
            ex.collect_into(&mut cells, n, GRAIN, |k| grid.cells_of(&boxes[k]));
            let total: f64 = cells
                .iter()
                .map(|q| (0..Self::D).fold(1.0, |p, k| p * ((q[Self::D + k] - q[k] + 1) as f64)))
                .sum();
            if depth == 0 || total <= most {
                return Self::fill(&cells, bounds, grid);
            }
            depth -= 1;
        }
    }

    /// Calls `f` with the index of every cell of the cell range `q` (low
    /// corner, then high corner), x varying fastest.
    #[inline(always)]
    fn each_cell(q: &[u32; N], side: usize, mut f: impl FnMut(usize)) {
        let d = Self::D;
        let (z0, z1) = if d == 3 { (q[2], q[5]) } else { (0, 0) };
        for z in z0..=z1 {
            for y in q[1]..=q[d + 1] {
                let row = (z as usize * side + y as usize) * side;
                for x in q[0]..=q[d] {
                    f(row + x as usize);
                }
            }
        }
    }

    /// The grid's CSR table from each box's cell range `cells`.
    fn fill(cells: &[[u32; N]], bounds: [f64; N], grid: Grid<[f64; N]>) -> RayGrid<N> {
        let side = grid.top() as usize + 1;
        let count = side.pow(Self::D as u32);
        let mut start = vec![0u32; count + 1];
        for q in cells {
            Self::each_cell(q, side, |c| start[c + 1] += 1);
        }
        for k in 1..start.len() {
            start[k] += start[k - 1];
        }
        let mut next = start.clone();
        let mut items = vec![0u32; start[count] as usize];
        for (i, q) in cells.iter().enumerate() {
            Self::each_cell(q, side, |c| {
                items[next[c] as usize] = i as u32;
                next[c] += 1;
            });
        }
        let edges = std::array::from_fn(|k| {
            if k < Self::D {
                grid.edges(k)
            } else {
                Vec::new()
            }
        });
        RayGrid {
            edges,
            grid,
            side,
            start,
            items,
            bounds,
        }
    }

    /// The Morton code of the cell holding the point `p` (finite): points
    /// near in space mostly have codes near in order.
    pub fn code_of(&self, p: <[f64; N] as Row>::Axes) -> u64 {
        let mut corner = <[f64; N] as Row>::Corner::default();
        for (k, c) in corner.as_mut().iter_mut().enumerate() {
            *c = self.grid.cell(p.as_ref()[k], k);
        }
        crate::morton::code_of::<[f64; N]>(&corner)
    }

    /// Bits of [`RayGrid::code_of`]'s codes.
    pub fn code_bits(&self) -> u32 {
        Self::D as u32 * (usize::BITS - (self.side - 1).leading_zeros())
    }

    /// The objects of the cell holding the point `p` (finite).
    pub fn cell_of(&self, p: <[f64; N] as Row>::Axes) -> &[u32] {
        let p = p.as_ref();
        let mut c = 0;
        for k in (0..Self::D).rev() {
            c = c * self.side + self.coord(k, p[k]);
        }
        self.cell(c)
    }

    /// Whether no cell holds an object.
    pub(super) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The closed bounds of every box.
    pub(super) fn bounds(&self) -> [f64; N] {
        self.bounds
    }

    /// Cells per axis.
    #[inline(always)]
    pub(super) fn side(&self) -> usize {
        self.side
    }

    /// Where the cells of `axis` (0: x, 1: y, 2: z) start ([`Grid::edges`]).
    #[inline(always)]
    pub(super) fn edges(&self, axis: usize) -> &[f64] {
        &self.edges[axis]
    }

    /// The objects of the cell at index `c` (x fastest, then y, then z).
    #[inline(always)]
    pub(super) fn cell(&self, c: usize) -> &[u32] {
        &self.items[self.start[c] as usize..self.start[c + 1] as usize]
    }

    /// The cell coordinate of `v` along `axis` (clamped to the grid).
    #[inline(always)]
    pub(super) fn coord(&self, axis: usize, v: f64) -> usize {
        self.grid.cell(v, axis) as usize
    }
}
