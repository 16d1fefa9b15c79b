//! The rays' broad phase: a uniform grid over the objects' boxes, and a
//! traversal that visits every cell a ray passes through (and a few more),
//! never fewer.
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
//! # The traversal is conservative
//! A ray hits an object at points `P(s) = o + s d` strictly inside it, all
//! within the closed bounds `B` of the boxes and with `s` in `[0, S]`.
//! 1. *Clip.*  Per axis with `d != 0`, the `s` where `P(s)` is in `B`'s
//!    slab run from `(lo - o)/d` to `(hi - o)/d` (sorted); each computed
//!    with two roundings, so within a relative `2u(1+u)` plus `2^-1075`
//!    (the quotient's underflow) of the true value, and widened by a
//!    relative `2^-46` plus `2^-1070`: the widened range `[s0, s1]`
//!    contains the true one.  An axis with `d = 0` keeps everything or
//!    nothing (exact comparisons).
//! 2. *Columns.*  The true segment's `x` lies between `x(s0)` and `x(s1)`;
//!    each computed as `fl(o + fl(s d))` within `2u(|o| + |s d|)` plus the
//!    product's underflow, so widened by `2^-46 (|o| + |s d|) +
//!    2^-1070 (1 + |d|)` and quantized (monotone) it gives a column range
//!    holding every column the segment meets.  Columns go in the ray's
//!    order along `x`: their `s` ranges increase.
//! 3. *Rows.*  In column `c` the segment's `s` lie in
//!    `[(e[c] - o)/d, (e[c+1] - o)/d]` (sorted) cut to `[s0, s1]`; its `y`
//!    between the `y` at the two ends.  The computed ends differ from the
//!    true ones by at most their rounding (`max` and `min` are
//!    1-Lipschitz), and `y = fl(o + fl(s d))` adds its own: the same
//!    widening as in 2, now with `|d|` times the `s` error
//!    (`|d| (2.0001u |s| + 2^-1075)`) inside it, covers all.
//!
//! Every point of the true segment thus lies in a visited cell.  When a
//! computed value is not finite (coordinates near the ends of the doubles)
//! the traversal gives up and the caller tests every object.
//!
//! # Lower bounds for the first hit
//! Each cell comes with a lower bound of the `s` of the segment's points
//! in it (the column's and the row's entry, widened down as above): an
//! object whose hit points all lie in cells not yet visited enters no
//! earlier than the least such bound.  The visitor skips cells whose bound
//! exceeds the caller's limit and stops at a column whose does.

use crate::par::Exec;
use crate::search::{grid_budget, grid_depth, placement_bounds};
use crate::world::{half_span, quantize, Grid};

/// Relative widening of a computed value (far above its `2u` error).
const WIDEN: f64 = f64::from_bits((1023 - 46) << 52); // 2^-46
/// Absolute widening (far above an underflowed quotient's `2^-1075`).
const TINY: f64 = f64::from_bits(1 << 4); // 2^-1070
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

fn widen_down(v: f64) -> f64 {
    v - v.abs() * WIDEN - TINY
}

fn widen_up(v: f64) -> f64 {
    v + v.abs() * WIDEN + TINY
}

/// `fl(o + s d)` widened to an interval holding the true value.
fn at(o: f64, s: f64, d: f64) -> (f64, f64) {
    let sd = s * d;
    let v = o + sd;
    let m = (o.abs() + sd.abs()) * WIDEN + TINY * (1.0 + d.abs());
    (v - m, v + m)
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

    fn cell(&self, col: usize, row: usize) -> &[u32] {
        let c = row * self.side + col;
        &self.items[self.start[c] as usize..self.start[c + 1] as usize]
    }

    fn column(&self, v: f64) -> usize {
        let g = &self.grid;
        quantize(v, g.x0, g.sx, g.top() as u64) as usize
    }

    fn row(&self, v: f64) -> usize {
        let g = &self.grid;
        quantize(v, g.y0, g.sy, g.top() as u64) as usize
    }

    /// The widened `s` range of the ray within the bounds, or `None` when
    /// it misses them; `Err` when a value is not finite.
    fn clip(&self, o: [f64; 2], d: [f64; 2], s_max: f64) -> Result<Option<(f64, f64)>, ()> {
        let (mut s0, mut s1) = (0.0f64, s_max);
        for k in 0..2 {
            let (lo, hi) = (self.bounds[k], self.bounds[k + 2]);
            if d[k] == 0.0 {
                if o[k] < lo || o[k] > hi {
                    return Ok(None);
                }
                continue;
            }
            let (a, b) = ((lo - o[k]) / d[k], (hi - o[k]) / d[k]);
            let (a, b) = if a <= b { (a, b) } else { (b, a) };
            if !(a.is_finite() && b.is_finite()) {
                return Err(());
            }
            s0 = s0.max(widen_down(a));
            s1 = s1.min(widen_up(b));
        }
        Ok((s0 <= s1).then_some((s0, s1)))
    }

    /// Every cell the ray `o + s d`, `s` in `[0, s_max]`, passes through, in
    /// order along x, each as `visit(objects, s_bound)` with `s_bound` a
    /// lower bound of the `s` of the ray's points in the cell; `limit()`
    /// (read before each cell) is the caller's current bound: cells beyond
    /// it are skipped.  `false` when the traversal gave up (a value not
    /// finite): the caller then tests every object.
    pub fn visit(
        &self,
        o: [f64; 2],
        d: [f64; 2],
        s_max: f64,
        limit: &dyn Fn() -> f64,
        visit: &mut dyn FnMut(&[u32]),
    ) -> bool {
        if self.items.is_empty() {
            return true;
        }
        let (s0, s1) = match self.clip(o, d, s_max) {
            Err(()) => return false,
            Ok(None) => return true,
            Ok(Some(r)) => r,
        };
        if d[0] == 0.0 && d[1] == 0.0 {
            visit(self.cell(self.column(o[0]), self.row(o[1])));
            return true;
        }
        // the column range (step 2)
        let (cols, step) = if d[0] == 0.0 {
            let c = self.column(o[0]);
            ((c, c), 1isize)
        } else {
            let (a, b) = (at(o[0], s0, d[0]), at(o[0], s1, d[0]));
            if !(a.0.is_finite() && a.1.is_finite() && b.0.is_finite() && b.1.is_finite()) {
                return false;
            }
            let (lo, hi) = (self.column(a.0.min(b.0)), self.column(a.1.max(b.1)));
            if d[0] > 0.0 {
                ((lo, hi), 1)
            } else {
                ((hi, lo), -1)
            }
        };
        let ex = &self.edges[0];
        let mut c = cols.0 as isize;
        loop {
            // the column's s range (step 3)
            let (sa, sb) = if d[0] == 0.0 {
                (s0, s1)
            } else {
                let cu = c as usize;
                let (p, q) = ((ex[cu] - o[0]) / d[0], (ex[cu + 1] - o[0]) / d[0]);
                let (p, q) = if p <= q { (p, q) } else { (q, p) };
                (p.max(s0), q.min(s1))
            };
            let (sa, sb) = (sa.min(sb), sa.max(sb));
            let col_bound = widen_down(sa);
            if col_bound > limit() {
                return true;
            }
            if !self.rows(c as usize, o, d, (sa, sb), col_bound, limit, visit) {
                return false;
            }
            if c == cols.1 as isize {
                return true;
            }
            c += step;
        }
    }

    /// The cells of column `col` between the `y` of the ray at `s` in
    /// `span` (widened), in the ray's order along y.
    #[allow(clippy::too_many_arguments)]
    fn rows(
        &self,
        col: usize,
        o: [f64; 2],
        d: [f64; 2],
        span: (f64, f64),
        col_bound: f64,
        limit: &dyn Fn() -> f64,
        visit: &mut dyn FnMut(&[u32]),
    ) -> bool {
        let (a, b) = (at(o[1], span.0, d[1]), at(o[1], span.1, d[1]));
        if !(a.0.is_finite() && a.1.is_finite() && b.0.is_finite() && b.1.is_finite()) {
            return false;
        }
        let (lo, hi) = (self.row(a.0.min(b.0)), self.row(a.1.max(b.1)));
        let ey = &self.edges[1];
        for k in 0..=hi - lo {
            let r = if d[1] >= 0.0 { lo + k } else { hi - k };
            // the row's entry: where y reaches the row's near edge
            let near = if d[1] > 0.0 { ey[r] } else { ey[r + 1] };
            let row_bound = if d[1] == 0.0 || near.is_infinite() {
                col_bound
            } else {
                col_bound.max(widen_down((near - o[1]) / d[1]))
            };
            let cell = self.cell(col, r);
            if cell.is_empty() || row_bound > limit() {
                continue;
            }
            visit(cell);
        }
        true
    }
}
