//! The sort records of every (box, cell) entry, and their key layout.
//!
//! Owns the record encodings: a word `key << shift | k << 1 | replicated`
//! when key and payload fit in 64 bits together, else a `(key, tag)` pair
//! with the tag of [`super::entry`].  Invariant: the records come in box
//! order, one per level-`l` cell that box `k`'s integer range meets (`l`
//! its level), chunk `c`'s records from `place.starts[c]`; each key is the
//! [`crate::key::Layout`] entry key of its cell and in-cell position.

use super::entry::tag_of;
use super::placement::{Placement, BOX_GRAIN};
use crate::dim::Row;
use crate::key::{self, Layout};
use crate::morton::code_of;
use crate::par::Exec;
use crate::radix;
use crate::scratch::{self, Pooled};
use crate::world::Grid;

/// Fewest in-cell position bits of the grid's keys.
const GRID_MIN_SUB: u32 = 4;
/// Fewest in-cell position bits of the quadtree's keys.
const QUADTREE_MIN_SUB: u32 = 2;

/// The entries of every (box, cell), as sort records.
///
/// Words when the key and the payload fit in 64 bits together: the key
/// above bit `shift`, and below it `k << 1 | replicated` for box `k` (the
/// usual case: up to depth 14 for a million boxes).  Else `(key, tag)` pairs.
pub(super) enum Entries {
    Words { words: Vec<u64>, shift: u32 },
    Pairs(Vec<(u64, u32)>),
}

/// Read access to sorted entries: each one's key and tag.
pub(super) trait View: Sync {
    fn count(&self) -> usize;
    fn key(&self, e: usize) -> u64;
    fn tag(&self, e: usize) -> u32;
}

pub(super) struct Words<'a> {
    pub(super) words: &'a [u64],
    /// Bits below the key: the box index, then the replicated flag.
    pub(super) shift: u32,
}

impl View for Words<'_> {
    fn count(&self) -> usize {
        self.words.len()
    }

    #[inline(always)]
    fn key(&self, e: usize) -> u64 {
        self.words[e] >> self.shift
    }

    #[inline(always)]
    fn tag(&self, e: usize) -> u32 {
        let p = self.words[e] & ((1u64 << self.shift) - 1);
        tag_of((p >> 1) as usize, p & 1 != 0)
    }
}

impl View for [(u64, u32)] {
    fn count(&self) -> usize {
        self.len()
    }

    #[inline(always)]
    fn key(&self, e: usize) -> u64 {
        self[e].0
    }

    #[inline(always)]
    fn tag(&self, e: usize) -> u32 {
        self[e].1
    }
}

/// The records of every (box, cell) entry, in box order.
pub(super) fn entries<const N: usize>(
    boxes: &[[f64; N]],
    grid: &Grid<[f64; N]>,
    lay: Layout<[f64; N]>,
    place: &Placement,
    ex: &Exec,
) -> Entries
where
    [f64; N]: Row,
{
    let n = boxes.len();
    let width = lay.width();
    let shift = usize::BITS - n.leading_zeros() + 1; // k < n, then the replica bit
    if width + shift <= 64 {
        let words = fill(boxes, grid, lay, place, ex, |key, k, rep| {
            (key << shift) | ((k as u64) << 1) | rep as u64
        });
        Entries::Words { words, shift }
    } else {
        Entries::Pairs(fill(boxes, grid, lay, place, ex, |key, k, rep| {
            (key, tag_of(k, rep))
        }))
    }
}

/// `make(key, box, replicated)` for every (box, cell) entry, in box order
/// (a box's cells with x varying fastest, then y, then z).
pub(crate) fn fill<T: Pooled + Copy + Default + Send, const N: usize>(
    boxes: &[[f64; N]],
    grid: &Grid<[f64; N]>,
    lay: Layout<[f64; N]>,
    place: &Placement,
    ex: &Exec,
    make: impl Fn(u64, usize, bool) -> T + Sync + Send,
) -> Vec<T>
where
    [f64; N]: Row,
{
    let n = boxes.len();
    let bb = &place.bounds;
    let eb = &place.starts;
    let mut recs = scratch::filled(eb[eb.len() - 1], T::default());
    let depth = grid.depth;
    ex.for_work(n, 2 * BOX_GRAIN)
        .chunks_mut(&mut recs, eb, |c, _, out| {
            let mut p = 0;
            for (k, b) in boxes.iter().enumerate().take(bb[c + 1]).skip(bb[c]) {
                let q = grid.cells_of(b);
                let t0 = grid.fine_x(b[0]);
                let lv = place.level(k, depth);
                let s = depth - lv;
                let inv2s = key::inv_pow2(s);
                // the level-lv cells from corner lo to corner hi
                let mut lo = <[f64; N] as Row>::Corner::default();
                let mut hi = lo;
                let (l, h) = (lo.as_mut(), hi.as_mut());
                for a in 0..N / 2 {
                    (l[a], h[a]) = (q[a] >> s, q[N / 2 + a] >> s);
                }
                let rep = lo != hi;
                let mut at = lo;
                'cells: loop {
                    let cx = at.as_ref()[0];
                    let sub = lay.position(t0, inv2s, cx).min(lay.sub_top());
                    let ck = lay.cell_key(code_of::<[f64; N]>(&at), lv);
                    out[p] = make(lay.entry_key(ck, sub), k, rep);
                    p += 1;
                    // the next cell, x fastest
                    let (c, l, h) = (at.as_mut(), lo.as_ref(), hi.as_ref());
                    for a in 0..N / 2 {
                        if c[a] < h[a] {
                            c[a] += 1;
                            continue 'cells;
                        }
                        c[a] = l[a];
                    }
                    break;
                }
            }
        });
    recs
}

/// The key layout of the entries of `place` on `grid`.
pub(crate) fn layout<R: Row>(grid: &Grid<R>, place: &Placement) -> Layout<R> {
    let varying = !place.levels.is_empty();
    let min_sub = if varying {
        QUADTREE_MIN_SUB
    } else {
        GRID_MIN_SUB
    };
    Layout::new(
        grid.depth,
        varying,
        radix::digit_bits(place.total() as usize),
        min_sub,
    )
}
