//! The sort key of a (box, cell) entry: the one place that knows its bit layout.
//!
//! ```text
//!   bit 63                         S+V        S          0
//!   [ 0 ... | start (DL bits) | level (V bits) | sub (S bits) ]
//! ```
//!
//! * `start` is the Morton code of the cell's first finest descendant,
//!   `index << D(L - level)` in `D` dimensions ([`crate::morton`]), so
//!   sorting by key lists every cell right before its descendants, ancestors
//!   first (a pre-order walk of the quadtree, or of the octree, without a
//!   tree); cell `(level, index)` covers the finest codes
//!   `[start, start + 2^(D(L - level)))`.
//! * `level` breaks the tie between a cell and its first descendants
//!   (same `start`): the coarser cell comes first.  `V` is the bit length of
//!   `L` when levels vary (the quadtree), 0 when every entry is at level `L`
//!   (the grid): a field that never varies would only cost the sort passes.
//! * `sub` is where the entry's minx falls inside its cell, in `1/2^S`ths (a
//!   monotone function of minx), so each cell's entries are sorted by minx up
//!   to ties and the own-cell loop of the walk can stop early.  `S` fills the
//!   room left in the radix sort's last digit ([`Layout::new`]), at most
//!   [`MAX_SUB_BITS`], so it never costs a pass of its own; with `S = 0`
//!   every position is 0 and the walk scans its cells whole, still exact.
//!
//! The *cell key* is the key without `sub`: equal for all entries of a cell.

use crate::dim::Row;
use std::marker::PhantomData;

/// Most bits of the in-cell position field.
pub const MAX_SUB_BITS: u32 = 8;
/// Most bits of the level field (levels up to 31).
pub const MAX_LEVEL_BITS: u32 = 5;
/// Deepest grid of the pair search in 2D: keys stay below `2^63`.
pub const MAX_DEPTH: u32 = max_depth(2);

/// Deepest grid of the pair search in `d` dimensions: keys stay below
/// `2^63` (25 in 2D, 16 in 3D).
pub const fn max_depth(d: usize) -> u32 {
    (63 - MAX_LEVEL_BITS - MAX_SUB_BITS) / d as u32
}

/// Bits of a key's fields for one search, of `R`'s dimension
/// ([`crate::dim::Row`]: 2D by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout<R: Row = [f64; 4]> {
    /// Depth `L` of the grid.
    pub depth: u32,
    /// Bits of the level field (`V`).
    level_bits: u32,
    /// Bits of the in-cell position field (`S`).
    sub_bits: u32,
    dim: PhantomData<R>,
}

impl<R: Row> Layout<R> {
    /// Bits of Morton code per level (`D`).
    const GROUP: u32 = R::D as u32;

    /// The layout of a grid of `depth` (at most [`max_depth`]), whose entries
    /// sit at several levels or all at `depth`, for a sort whose digits have
    /// `digit` bits, with at least `min_sub` position bits (an extra digit
    /// when the room left is smaller).
    pub fn new(depth: u32, levels_vary: bool, digit: u32, min_sub: u32) -> Layout<R> {
        debug_assert!(depth <= max_depth(R::D) && digit > 0);
        let level_bits = if levels_vary {
            u32::BITS - depth.leading_zeros()
        } else {
            0
        };
        let base = Self::GROUP * depth + level_bits;
        let mut room = base.div_ceil(digit).max(1) * digit - base;
        if room < min_sub {
            room += digit;
        }
        Layout {
            depth,
            level_bits,
            sub_bits: room.min(MAX_SUB_BITS),
            dim: PhantomData,
        }
    }

    /// Whether entries sit at several levels (else all at `depth`, and no
    /// cell has an ancestor holding entries).
    #[inline]
    pub fn levels_vary(&self) -> bool {
        self.level_bits > 0
    }

    /// Width in bits of the keys.
    #[inline]
    pub fn width(&self) -> u32 {
        Self::GROUP * self.depth + self.level_bits + self.sub_bits
    }

    /// Largest in-cell position.
    #[inline(always)]
    pub fn sub_top(&self) -> u32 {
        (1 << self.sub_bits) - 1
    }

    /// Cell key of cell `index` at `level`.
    #[inline(always)]
    pub fn cell_key(&self, index: u64, level: u32) -> u64 {
        // with no level field every level is `depth`: nothing to store
        ((index << (Self::GROUP * (self.depth - level))) << self.level_bits)
            | (level as u64 & ((1 << self.level_bits) - 1))
    }

    /// Entry key: the cell key with the in-cell position `sub` (at most
    /// [`Layout::sub_top`]).
    #[inline(always)]
    pub fn entry_key(&self, cell_key: u64, sub: u32) -> u64 {
        (cell_key << self.sub_bits) | sub as u64
    }

    /// The cell key of an entry key.
    #[inline(always)]
    pub fn cell(&self, key: u64) -> u64 {
        key >> self.sub_bits
    }

    /// In-cell position of an entry key.
    #[inline(always)]
    pub fn sub(&self, key: u64) -> u32 {
        (key as u32) & self.sub_top()
    }

    /// Level of a cell key.
    #[inline(always)]
    pub fn level(&self, cell_key: u64) -> u32 {
        if self.level_bits == 0 {
            self.depth
        } else {
            (cell_key as u32) & ((1 << self.level_bits) - 1)
        }
    }

    /// Finest code of the first descendant of a cell key.
    #[inline(always)]
    pub fn start(&self, cell_key: u64) -> u64 {
        cell_key >> self.level_bits
    }

    /// Finest codes a cell of `level` covers: `2^(D (depth - level))`.
    #[inline(always)]
    pub fn span(&self, level: u32) -> u64 {
        1u64 << (Self::GROUP * (self.depth - level))
    }

    /// Bits of Morton code per level of cells `2^s` finest cells wide: `D s`.
    #[inline(always)]
    pub fn shift(&self, s: u32) -> u32 {
        Self::GROUP * s
    }

    /// Where the level-`depth` coordinate `t` falls in cell column `cx` of
    /// a level whose cells are `2^s` finest cells wide (`inv2s = 2^-s`), in
    /// `1/2^S`ths of the cell.
    ///
    /// Monotone non-decreasing in `t` (multiplying by powers of two is
    /// exact); below the cell it is 0, past it above [`Layout::sub_top`]
    /// (callers clamp a minx's value to `sub_top` and compare a maxx's
    /// unclamped).
    #[inline(always)]
    pub fn position(&self, t: f64, inv2s: f64, cx: u32) -> u32 {
        let f = (t * inv2s - cx as f64) * (1u64 << self.sub_bits) as f64;
        if f.is_nan() || f <= 0.0 {
            return 0;
        }
        if f >= 1e9 {
            return 1_000_000_000;
        }
        f as u32
    }
}

/// `2^-s`, exactly (`s` below 1023), without a division.
#[inline(always)]
pub fn inv_pow2(s: u32) -> f64 {
    f64::from_bits((1023 - s as u64) << 52)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        for varying in [false, true] {
            for depth in [1, 7, 9, 13, MAX_DEPTH] {
                for digit in [4, 8, 11] {
                    let lay = Layout::<[f64; 4]>::new(depth, varying, digit, 0);
                    assert!(lay.width() < 64);
                    assert!(lay.width().is_multiple_of(digit) || lay.sub_bits == MAX_SUB_BITS);
                    let idx = (1u64 << (2 * depth)) - 1;
                    let ck = lay.cell_key(idx, depth);
                    let k = lay.entry_key(ck, lay.sub_top());
                    assert!(k < 1 << lay.width());
                    assert_eq!(lay.cell(k), ck);
                    assert_eq!(lay.sub(k), lay.sub_top());
                    assert_eq!(lay.level(ck), depth);
                    assert_eq!(lay.start(ck), idx);
                }
            }
        }
    }

    #[test]
    fn sub_fills_the_last_digit_only() {
        // depth 9, levels vary: 18 + 4 bits fill two 11-bit digits
        assert_eq!(Layout::<[f64; 4]>::new(9, true, 11, 0).width(), 22);
        // the grid of depth 7: 14 bits, 8 more for positions
        assert_eq!(Layout::<[f64; 4]>::new(7, false, 11, 4).width(), 22);
        // a grid of depth 11 fills two digits: a third one for positions
        assert_eq!(
            Layout::<[f64; 4]>::new(11, false, 11, 4).width(),
            22 + MAX_SUB_BITS
        );
        assert_eq!(Layout::<[f64; 4]>::new(11, false, 11, 0).width(), 22);
        // never more than MAX_SUB_BITS
        assert_eq!(
            Layout::<[f64; 4]>::new(1, false, 11, 0).width(),
            2 + MAX_SUB_BITS
        );
    }

    #[test]
    fn parents_sort_before_children() {
        // cell 2 of level 1 and its first child (cell 8 of level 2), depth 3
        let lay = Layout::<[f64; 4]>::new(3, true, 11, 0);
        let parent = lay.entry_key(lay.cell_key(2, 1), lay.sub_top());
        let child = lay.entry_key(lay.cell_key(8, 2), 0);
        assert!(parent < child);
        assert_eq!(lay.start(lay.cell(parent)), lay.start(lay.cell(child)));
        assert_eq!(lay.level(lay.cell(parent)), 1);
        assert_eq!(lay.level(lay.cell(child)), 2);
    }

    #[test]
    fn inv_pow2_is_exact() {
        for s in 0..64 {
            assert_eq!(inv_pow2(s), 1.0 / (1u64 << s) as f64);
        }
        assert_eq!(inv_pow2(1022), 2f64.powi(-1022));
    }

    #[test]
    fn position_is_monotone_and_clamped_below() {
        let lay = Layout::<[f64; 4]>::new(7, false, 11, 0); // 14 + 8 bits
        assert_eq!(lay.sub_top(), 255);
        let mut last = 0;
        for k in -10..600 {
            let p = lay.position(3.0 + k as f64 / 256.0, 1.0, 3);
            assert!(p >= last);
            last = p;
        }
        assert_eq!(last, 599); // (3 + 599/256 - 3) * 256
        assert_eq!(lay.position(f64::NAN, 1.0, 0), 0);
        assert_eq!(lay.position(1e300, 1.0, 0), 1_000_000_000);
        // no position bits: everything inside the cell is at 0
        let flat = Layout::<[f64; 4]>::new(9, true, 11, 0);
        assert_eq!(flat.sub_top(), 0);
        assert_eq!(flat.position(3.99, 1.0, 3), 0);
    }
}
