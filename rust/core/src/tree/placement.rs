//! The one placement rule: where an object is entered.
//!
//! # Structure (seeds 001 and 002)
//! The world is quantized into a `2^depth` grid ([`Grid`]).  Every object has
//! a *placement* ([`Place`]): the level `l` and the (at most 2 per axis:
//! 2 x 2 in 2D, 2 x 2 x 2 in 3D) cells of that level that its box enters, by the quadtree rule with slack 0
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

use crate::dim::Row;
use crate::lists;
use crate::morton::{self, code_of};
use crate::quadtree;
use crate::world::Grid;

/// Deepest 2D tree: the list heads of all levels take `4^(depth + 1) / 3`
/// nine-byte records, 201 MB of address space at depth 12 (zeroed memory,
/// mapped only where objects are).
pub const MAX_DEPTH: u32 = 12;
/// Deepest 3D tree: `8^(depth + 1) / 7` heads, 172 MB of address space at
/// depth 8.
pub const MAX_DEPTH_3D: u32 = 8;

/// The deepest tree of rows `N` wide ([`MAX_DEPTH`] or [`MAX_DEPTH_3D`]).
pub const fn max_depth(n: usize) -> u32 {
    if n == 4 {
        MAX_DEPTH
    } else {
        MAX_DEPTH_3D
    }
}

/// Level of a free slot.
pub(super) const FREE: u8 = u8::MAX;

/// Where an object is entered: at `level`, the cells from `c` on, two
/// along each axis whose bit is set in `wide`, one along the others.
/// `C` is the dimension's corner (`[u32; D]`, [`Row::Corner`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place<C = [u32; 2]> {
    /// Level of the cells, or `u8::MAX` for a free slot.
    pub level: u8,
    /// Bit `k` set when the object takes two cells along axis `k`.
    pub wide: u8,
    /// First cell's coordinates at `level`.
    pub c: C,
}

/// The placement of a free slot (entered nowhere).
#[inline(always)]
pub(super) fn free_place<C: Default>() -> Place<C> {
    Place {
        level: FREE,
        wide: 0,
        c: C::default(),
    }
}

impl<C: Copy + AsRef<[u32]> + AsMut<[u32]>> Place<C> {
    /// Whether this is a live object's placement.
    #[inline(always)]
    pub(super) fn is_free(&self) -> bool {
        self.level == FREE
    }

    /// How many cells (entries) it takes: 0 for a free slot.
    #[inline(always)]
    pub(super) fn entries(&self) -> usize {
        if self.is_free() {
            0
        } else {
            1 << self.wide.count_ones()
        }
    }

    /// The steps of its cell `r` (in entry order: x fastest, then y, then
    /// z): bit `k` set when that cell is one on from `c` along axis `k`.
    /// The bits of `r` go, lowest first, to the axes of `wide`.
    #[inline(always)]
    pub(super) fn steps(&self, r: usize) -> u8 {
        let (mut steps, mut bit) = (0u8, 0);
        for k in 0..self.c.as_ref().len() {
            if self.wide >> k & 1 != 0 {
                steps |= ((r >> bit) as u8 & 1) << k;
                bit += 1;
            }
        }
        steps
    }

    /// Coordinates of its cell `r` (see [`Place::steps`]).
    #[inline(always)]
    fn cell_at(&self, r: usize) -> C {
        let steps = self.steps(r);
        let mut c = self.c;
        for (k, v) in c.as_mut().iter_mut().enumerate() {
            *v += (steps >> k & 1) as u32;
        }
        c
    }
}

/// The placement of rows `N` wide.
pub(super) type PlaceOf<const N: usize> = Place<<[f64; N] as Row>::Corner>;

/// The placement rule of a tree (its grid and margin) and every object's
/// fat box.
#[derive(Clone, Debug)]
pub(super) struct Placer<const N: usize = 4>
where
    [f64; N]: Row,
{
    /// The quantized world.
    pub grid: Grid<[f64; N]>,
    /// The world given at construction.
    pub bounds: [f64; N],
    /// How far a box grows into its fat box.
    pub margin: f64,
    /// Fat boxes per slot (only with a margin: else the boxes are).
    fat: Vec<[f64; N]>,
}

impl<const N: usize> Placer<N>
where
    [f64; N]: Row,
{
    pub fn new(bounds: [f64; N], depth: u32, margin: f64) -> Self {
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
    pub fn fat_mut(&mut self) -> &mut Vec<[f64; N]> {
        &mut self.fat
    }

    /// The fat box of slot `h` of box `b` (`b` without a margin).
    #[inline]
    pub fn fat_of(&self, h: usize, b: &[f64; N]) -> [f64; N] {
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
    pub fn set_fat(&mut self, h: usize, b: &[f64; N]) {
        if self.has_margin() {
            self.fat[h] = fat_box(b, self.margin);
        }
    }

    /// The placement of a new object of box `b`.
    #[inline]
    pub fn place_new(&self, b: &[f64; N]) -> PlaceOf<N> {
        placement(&self.grid, &fat_box(b, self.margin))
    }

    /// [`replacement`] of slot `h`, now of box `b`, by its stored fat box.
    #[inline]
    pub fn moved(&self, h: usize, b: &[f64; N]) -> Option<([f64; N], PlaceOf<N>)> {
        let old = self.has_margin().then(|| self.fat[h]);
        replacement(&self.grid, self.margin, old, b)
    }

    /// Store `f` as slot `h`'s fat box (nothing to store without a margin).
    #[inline]
    pub fn store_fat(&mut self, h: usize, f: [f64; N]) {
        if self.has_margin() {
            self.fat[h] = f;
        }
    }

    /// Id of the cell at coordinates `c` of `level` in the cells of all levels.
    #[inline(always)]
    pub fn cell_id(&self, level: u32, c: &<[f64; N] as Row>::Corner) -> u32 {
        morton::linear_index_in::<[f64; N]>(level, code_of::<[f64; N]>(c)) as u32
    }

    /// The cells of a placement, in entry order, with their tags.
    pub fn cells(&self, p: PlaceOf<N>) -> impl Iterator<Item = (u32, u8)> + '_ {
        (0..p.entries()).map(move |r| {
            let c = p.cell_at(r);
            (self.cell_id(p.level as u32, &c), lists::tag(r, p.steps(r)))
        })
    }

    /// [`Placer::cells`] of `p` gathered on the stack (at most 2 per axis),
    /// and how many.
    pub fn cells_on_stack(&self, p: PlaceOf<N>) -> ([(u32, u8); 8], usize) {
        let mut cells = [(0u32, 0u8); 8];
        let mut n = 0;
        for c in self.cells(p) {
            cells[n] = c;
            n += 1;
        }
        (cells, n)
    }

    /// The seeds' cell of box `b`: `(level, index)` of the smallest cell
    /// holding it (the highest non-zero group of its corners' codes' XOR,
    /// [`crate::morton::xor_level_of`]).
    pub fn seeds_cell(&self, b: &[f64; N]) -> (u32, u64) {
        let q = self.grid.cells_of(b);
        let depth = self.grid.depth;
        let level = morton::xor_level_of(&q, depth);
        let lo = self.grid.corner_of(b);
        let d = N as u32 / 2;
        (level, code_of::<[f64; N]>(&lo) >> (d * (depth - level)))
    }

    /// Slots from `start` on with the boxes `boxes` (their fat boxes made).
    pub fn grow(&mut self, boxes: &[[f64; N]], start: usize, grain: usize, ex: &crate::par::Exec) {
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
    pub fn check(&self, h: usize, b: &[f64; N], p: PlaceOf<N>) -> Result<(), String> {
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
        let d = N as u32 / 2;
        for r in 0..p.entries() {
            let c = p.cell_at(r);
            if sl > p.level as u32 || code_of::<[f64; N]>(&c) >> (d * (p.level as u32 - sl)) != si {
                return Err(format!(
                    "object {h}: cell {c:?} at level {} outside its seeds' cell ({sl}, {si})",
                    p.level
                ));
            }
        }
        Ok(())
    }
}

/// Whether box `b` lies inside the fat box `f`.
#[inline(always)]
fn inside<const N: usize>(f: &[f64; N], b: &[f64; N]) -> bool {
    (0..N / 2).all(|k| f[k] <= b[k] && b[N / 2 + k] <= f[N / 2 + k])
}

/// The box an object of box `b` is placed by: grown by `margin` on every
/// side if any (rounding can only grow it further).
#[inline(always)]
pub(super) fn fat_box<const N: usize>(b: &[f64; N], margin: f64) -> [f64; N] {
    if margin > 0.0 {
        std::array::from_fn(|c| {
            if c < N / 2 {
                b[c] - margin
            } else {
                b[c] + margin
            }
        })
    } else {
        *b
    }
}

/// Where a moved object of box `b` belongs, the one rule of every move:
/// `None` while `b` stays inside its fat box `fat` (given with a margin:
/// its placement stands), else the box it is now placed by ([`fat_box`]:
/// its new fat box) and the cells that box enters.
#[inline(always)]
pub(super) fn replacement<const N: usize>(
    grid: &Grid<[f64; N]>,
    margin: f64,
    fat: Option<[f64; N]>,
    b: &[f64; N],
) -> Option<([f64; N], PlaceOf<N>)>
where
    [f64; N]: Row,
{
    if fat.is_some_and(|f| inside(&f, b)) {
        return None;
    }
    let f = fat_box(b, margin);
    Some((f, placement(grid, &f)))
}

/// The cells a (fat) box enters on `grid`: the quadtree rule with slack 0.
#[inline(always)]
pub(super) fn placement<const N: usize>(grid: &Grid<[f64; N]>, b: &[f64; N]) -> PlaceOf<N>
where
    [f64; N]: Row,
{
    let q = grid.cells_of(b);
    let l = quadtree::level(q, grid.depth, 0);
    let s = grid.depth - l;
    let mut p = Place {
        level: l as u8,
        wide: 0,
        c: <[f64; N] as Row>::Corner::default(),
    };
    for (k, v) in p.c.as_mut().iter_mut().enumerate() {
        *v = q[k] >> s;
        p.wide |= ((q[N / 2 + k] >> s != q[k] >> s) as u8) << k;
    }
    p
}
