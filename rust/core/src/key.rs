//! The sort key of a (box, cell) entry: the one place that knows its bit layout.
//!
//! ```text
//!   bit 63        2L+13          13         8           0
//!   [ 0 | start (2L bits) | level (5) | sub (8) ]
//! ```
//!
//! * `start` is the Morton code of the cell's first finest descendant,
//!   `index << 2(L - level)`, so sorting by key lists every cell right before
//!   its descendants, ancestors first (a pre-order walk of the quadtree
//!   without a tree); cell `(level, index)` covers the finest codes
//!   `[start, start + 4^(L - level))`.
//! * `level` breaks the tie between a cell and its first descendants
//!   (same `start`): the coarser cell comes first.
//! * `sub` is where the entry's minx falls inside its cell, in 1/256ths (a
//!   monotone function of minx), so each cell's entries are sorted by minx up
//!   to ties and the own-cell loop of the walk can stop early.
//!
//! The *cell key* is the key without `sub`: equal for all entries of a cell.

/// Bits of the level field.
pub const LEVEL_BITS: u32 = 5;
/// Bits of the in-cell position field.
pub const SUB_BITS: u32 = 8;
/// Largest in-cell position.
pub const SUB_TOP: u32 = (1 << SUB_BITS) - 1;
/// Key bits beyond the `2L` of the Morton code.
pub const EXTRA_BITS: u32 = LEVEL_BITS + SUB_BITS;
/// Deepest grid of the pair search: keys stay below `2^63`.
pub const MAX_DEPTH: u32 = (63 - EXTRA_BITS) / 2;

/// Width in bits of the keys of a grid of depth `depth`.
#[inline]
pub fn width(depth: u32) -> u32 {
    2 * depth + EXTRA_BITS
}

/// Cell key of cell `index` at `level` in a grid of `depth`.
#[inline(always)]
pub fn cell_key(index: u64, level: u32, depth: u32) -> u64 {
    ((index << (2 * (depth - level))) << LEVEL_BITS) | level as u64
}

/// Entry key: the cell key with the in-cell position `sub` (at most [`SUB_TOP`]).
#[inline(always)]
pub fn entry_key(cell_key: u64, sub: u32) -> u64 {
    (cell_key << SUB_BITS) | sub as u64
}

/// The cell key of an entry key.
#[inline(always)]
pub fn cell(key: u64) -> u64 {
    key >> SUB_BITS
}

/// In-cell position of an entry key.
#[inline(always)]
pub fn sub(key: u64) -> u32 {
    (key as u32) & SUB_TOP
}

/// Level of a cell key.
#[inline(always)]
pub fn level(cell_key: u64) -> u32 {
    (cell_key as u32) & ((1 << LEVEL_BITS) - 1)
}

/// Finest code of the first descendant of a cell key.
#[inline(always)]
pub fn start(cell_key: u64) -> u64 {
    cell_key >> LEVEL_BITS
}

/// Where the level-`depth` coordinate `t` falls in cell column `cx` of a
/// level whose cells are `2^s` finest cells wide, in 1/256ths.
///
/// Monotone non-decreasing in `t` (multiplying by `2^-s` is exact); below the
/// cell it is 0, past it above [`SUB_TOP`] (callers clamp a minx's value to
/// [`SUB_TOP`] and compare a maxx's unclamped).
#[inline(always)]
pub fn position(t: f64, inv2s: f64, cx: u32) -> u32 {
    let f = (t * inv2s - cx as f64) * (SUB_TOP + 1) as f64;
    if f.is_nan() || f <= 0.0 {
        return 0;
    }
    if f >= 1e9 {
        return 1_000_000_000;
    }
    f as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        let depth = MAX_DEPTH;
        let idx = (1u64 << (2 * depth)) - 1;
        let ck = cell_key(idx, depth, depth);
        let k = entry_key(ck, SUB_TOP);
        assert!(k < 1 << 63);
        assert_eq!(cell(k), ck);
        assert_eq!(sub(k), SUB_TOP);
        assert_eq!(level(ck), depth);
        assert_eq!(start(ck), idx);
    }

    #[test]
    fn parents_sort_before_children() {
        // cell 2 of level 1 and its first child (cell 8 of level 2), depth 3
        let parent = entry_key(cell_key(2, 1, 3), SUB_TOP);
        let child = entry_key(cell_key(8, 2, 3), 0);
        assert!(parent < child);
        assert_eq!(start(cell(parent)), start(cell(child)));
    }

    #[test]
    fn position_is_monotone_and_clamped_below() {
        let mut last = 0;
        for k in -10..600 {
            let p = position(3.0 + k as f64 / 256.0, 1.0, 3);
            assert!(p >= last);
            last = p;
        }
        assert_eq!(position(f64::NAN, 1.0, 0), 0);
        assert_eq!(position(1e300, 1.0, 0), 1_000_000_000);
    }
}
