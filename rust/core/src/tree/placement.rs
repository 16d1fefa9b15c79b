//! The one placement rule: where an object is entered.
//!
//! # Structure (seeds 001 and 002)
//! The world is quantized into a `2^depth` grid ([`Grid`]).  Every object has
//! a *placement* ([`Place`]): the level `l` and the (at most 2 x 2) cells of
//! that level that its box enters, by the quadtree rule with slack 0
//! ([`crate::quadtree::level`]: the seeds' smallest containing cell, moved
//! down to the object's fit level when it straddles a split line far above
//! its size).  All levels' cells are numbered in one linear array, level
//! `l` from `(4^l - 1) / 3` on ([`crate::morton::level_start`], the one
//! owner of that rule), in Morton order inside a
//! level (the seeds' linear array).
//!
//! # Fat boxes
//! With a margin `m > 0` an object is placed by its box grown by `m` (its
//! fat box) and keeps that placement while its box stays inside the fat box
//! ([`replacement`]: the one rule a move is placed by).  Placement
//! only decides where an object is *looked for*; every test uses the true
//! box, so the answers are exact for any margin.
//!
//! # Invariants ([`Placer::check`])
//! A placed object's box lies inside its fat box (its box without a
//! margin), its placement is the rule's for that fat box, and its cells lie
//! inside its seeds' cell ([`crate::morton::cell_of`] of the fat box).

use crate::lists;
use crate::morton::{self, encode};
use crate::quadtree;
use crate::world::Grid;

/// Deepest tree: the list heads of all levels take `4^(depth + 1) / 3`
/// nine-byte records, 201 MB of address space at depth 12 (zeroed memory,
/// mapped only where objects are).
pub const MAX_DEPTH: u32 = 12;
/// Level of a free slot.
pub(super) const FREE: u8 = u8::MAX;

/// Where an object is entered: `nx * ny` cells from `(cx, cy)` at `level`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// Level of the cells, or `u8::MAX` for a free slot.
    pub level: u8,
    /// Cells along x (1 or 2).
    pub nx: u8,
    /// Cells along y (1 or 2).
    pub ny: u8,
    /// First cell's column at `level`.
    pub cx: u32,
    /// First cell's row at `level`.
    pub cy: u32,
}

/// The placement of a free slot (entered nowhere).
pub(super) const FREE_PLACE: Place = Place {
    level: FREE,
    nx: 0,
    ny: 0,
    cx: 0,
    cy: 0,
};

impl Place {
    /// Whether this is a live object's placement.
    #[inline(always)]
    pub(super) fn is_free(&self) -> bool {
        self.level == FREE
    }

    /// How many cells (entries) it takes: 0 for a free slot.
    #[inline(always)]
    pub(super) fn entries(&self) -> usize {
        (self.nx * self.ny) as usize
    }

    /// Column and row of its cell `r` (in entry order: row by row).
    #[inline(always)]
    fn cell_xy(&self, r: usize) -> (u32, u32) {
        (
            self.cx + (r % self.nx as usize) as u32,
            self.cy + (r / self.nx as usize) as u32,
        )
    }
}

/// The placement rule of a tree (its grid and margin) and every object's
/// fat box.
#[derive(Clone, Debug)]
pub(super) struct Placer {
    /// The quantized world.
    pub grid: Grid,
    /// The world given at construction.
    pub bounds: [f64; 4],
    /// How far a box grows into its fat box.
    pub margin: f64,
    /// Fat boxes per slot (only with a margin: else the boxes are).
    fat: Vec<[f64; 4]>,
}

impl Placer {
    pub fn new(bounds: [f64; 4], depth: u32, margin: f64) -> Placer {
        Placer {
            grid: Grid::over(bounds, depth),
            bounds,
            margin,
            fat: Vec::new(),
        }
    }

    /// Whether objects have fat boxes of their own.
    #[inline(always)]
    pub fn has_margin(&self) -> bool {
        self.margin > 0.0
    }

    /// The fat boxes (empty without a margin), to be written in parallel
    /// by a placing step.
    pub fn fat_mut(&mut self) -> &mut Vec<[f64; 4]> {
        &mut self.fat
    }

    /// The fat box of slot `h` of box `b` (`b` without a margin).
    #[inline]
    pub fn fat_of(&self, h: usize, b: &[f64; 4]) -> [f64; 4] {
        if self.has_margin() {
            self.fat[h]
        } else {
            *b
        }
    }

    /// Ask for slot `h`'s fat box (a hint; nothing without a margin).
    #[inline(always)]
    pub fn prefetch(&self, h: usize) {
        if self.has_margin() {
            crate::hints::prefetch_at(&self.fat, h);
        }
    }

    /// Slot `h`'s fat box made anew from its box `b` (nothing to store
    /// without a margin).
    #[inline]
    pub fn set_fat(&mut self, h: usize, b: &[f64; 4]) {
        if self.has_margin() {
            self.fat[h] = fat_box(b, self.margin);
        }
    }

    /// The placement of a new object of box `b`.
    #[inline]
    pub fn place_new(&self, b: &[f64; 4]) -> Place {
        placement(&self.grid, &fat_box(b, self.margin))
    }

    /// [`replacement`] of slot `h`, now of box `b`, by its stored fat box.
    #[inline]
    pub fn moved(&self, h: usize, b: &[f64; 4]) -> Option<([f64; 4], Place)> {
        let old = self.has_margin().then(|| self.fat[h]);
        replacement(&self.grid, self.margin, old, b)
    }

    /// Store `f` as slot `h`'s fat box (nothing to store without a margin).
    #[inline]
    pub fn store_fat(&mut self, h: usize, f: [f64; 4]) {
        if self.has_margin() {
            self.fat[h] = f;
        }
    }

    /// Id of cell `(x, y)` of `level` in the cells of all levels.
    #[inline(always)]
    pub fn cell_id(&self, level: u32, x: u32, y: u32) -> u32 {
        morton::linear_index(level, encode(x as u64, y as u64)) as u32
    }

    /// The cells of a placement, in entry order, with their tags.
    pub fn cells(&self, p: Place) -> impl Iterator<Item = (u32, u8)> + '_ {
        (0..p.entries()).map(move |r| {
            let (x, y) = p.cell_xy(r);
            (self.cell_id(p.level as u32, x, y), lists::tag(r, p.nx))
        })
    }

    /// [`Placer::cells`] of `p` gathered on the stack (at most 2 x 2), and
    /// how many.
    pub fn cells_on_stack(&self, p: Place) -> ([(u32, u8); 4], usize) {
        let mut cells = [(0u32, 0u8); 4];
        let mut n = 0;
        for c in self.cells(p) {
            cells[n] = c;
            n += 1;
        }
        (cells, n)
    }

    /// The seeds' cell of box `b`: `(level, index)` of the smallest cell
    /// holding it ([`crate::morton::cell_of`]).
    pub fn seeds_cell(&self, b: &[f64; 4]) -> (u32, u64) {
        let q = self.grid.cells_of(b);
        morton::cell_of(
            encode(q[0] as u64, q[1] as u64),
            encode(q[2] as u64, q[3] as u64),
            self.grid.depth,
        )
    }

    /// Slots from `start` on with the boxes `boxes` (their fat boxes made).
    pub fn grow(&mut self, boxes: &[[f64; 4]], start: usize, grain: usize, ex: &crate::par::Exec) {
        if self.has_margin() {
            let margin = self.margin;
            debug_assert_eq!(self.fat.len(), start);
            ex.extend_with(&mut self.fat, boxes.len(), grain, |i| {
                fat_box(&boxes[i], margin)
            });
        }
    }

    /// The slots from `len` on let go.
    pub fn truncate(&mut self, len: usize) {
        if self.has_margin() {
            self.fat.truncate(len);
        }
    }

    /// The invariants of placed slot `h` of box `b` and placement `p` (see
    /// the module's doc).
    pub fn check(&self, h: usize, b: &[f64; 4], p: Place) -> Result<(), String> {
        let f = &self.fat_of(h, b);
        if !inside(f, b) {
            return Err(format!("object {h}: box {b:?} outside its fat box {f:?}"));
        }
        let want = placement(&self.grid, f);
        if p != want {
            return Err(format!(
                "object {h}: placement {p:?}, its fat box gives {want:?}"
            ));
        }
        let (sl, si) = self.seeds_cell(f);
        for r in 0..p.entries() {
            let (x, y) = p.cell_xy(r);
            if sl > p.level as u32
                || encode(x as u64, y as u64) >> (2 * (p.level as u32 - sl)) != si
            {
                return Err(format!(
                    "object {h}: cell ({x}, {y}) at level {} outside its seeds' cell ({sl}, {si})",
                    p.level
                ));
            }
        }
        Ok(())
    }
}

/// Whether box `b` lies inside the fat box `f`.
#[inline(always)]
fn inside(f: &[f64; 4], b: &[f64; 4]) -> bool {
    f[0] <= b[0] && f[1] <= b[1] && b[2] <= f[2] && b[3] <= f[3]
}

/// The box an object of box `b` is placed by: grown by `margin` on every
/// side if any (rounding can only grow it further).
#[inline(always)]
pub(super) fn fat_box(b: &[f64; 4], margin: f64) -> [f64; 4] {
    if margin > 0.0 {
        [b[0] - margin, b[1] - margin, b[2] + margin, b[3] + margin]
    } else {
        *b
    }
}

/// Where a moved object of box `b` belongs, the one rule of every move:
/// `None` while `b` stays inside its fat box `fat` (given with a margin:
/// its placement stands), else the box it is now placed by ([`fat_box`]:
/// its new fat box) and the cells that box enters.
#[inline(always)]
pub(super) fn replacement(
    grid: &Grid,
    margin: f64,
    fat: Option<[f64; 4]>,
    b: &[f64; 4],
) -> Option<([f64; 4], Place)> {
    if fat.is_some_and(|f| inside(&f, b)) {
        return None;
    }
    let f = fat_box(b, margin);
    Some((f, placement(grid, &f)))
}

/// The cells a (fat) box enters on `grid`: the quadtree rule with slack 0.
#[inline(always)]
pub(super) fn placement(grid: &Grid, b: &[f64; 4]) -> Place {
    let q = grid.cells_of(b);
    let l = quadtree::level(q, grid.depth, 0);
    let s = grid.depth - l;
    Place {
        level: l as u8,
        nx: 1 + (q[2] >> s != q[0] >> s) as u8,
        ny: 1 + (q[3] >> s != q[1] >> s) as u8,
        cx: q[0] >> s,
        cy: q[1] >> s,
    }
}
