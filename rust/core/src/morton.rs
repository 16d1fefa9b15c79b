//! Morton (Z-order) arithmetic of the seeds, on 64-bit integers.
//!
//! A cell `(ix, iy)` of the `2^L x 2^L` grid has Morton number
//! `spread(ix) | spread(iy) << 1`: x in the even bits, y in the odd ones.
//! Reading the number two bits at a time from the top gives the quadrant at
//! level 1, 2, ... so the number of a cell at level `l` is the level-`L`
//! number shifted right by `2(L - l)`.
//!
//! A box whose corners lie in cells `c0` and `c1` fits in the cell of level
//! `l` iff the two numbers agree above bit `2(L - l)`: the highest non-zero
//! 2-bit group of `c0 ^ c1` therefore names the level (seed 001; seed 004
//! sums the shift of every non-zero group, which is wrong: the highest one
//! alone decides).
//!
//! # The linear index
//! The cells of all levels are numbered in one linear array (the seeds'
//! linear quadtree): level 0's one cell, then level 1's four, and so on,
//! each level in Morton order.  Level `l` therefore starts after
//! `1 + 4 + ... + 4^(l-1) = (4^l - 1) / 3` cells ([`level_start`]), and cell
//! `index` of level `l` sits at `level_start(l) + index` ([`linear_index`]).
//! This module owns that rule: the moving tree's cell numbering and
//! `broadphase.morton.linear_index` both go through it.

/// Deepest grid of the public Morton functions: `2 * 29` code bits, and
/// [`linear_index`] `(4^29 - 1) / 3 + index`, stay below `2^62`.
pub const MAX_DEPTH: u32 = 29;

/// Position of level `level`'s first cell in the linear array of all
/// levels: `(4^level - 1) / 3`, the cells of the levels above it.
///
/// `4^level - 1` is `level` groups of `11` in binary, a multiple of 3 (each
/// group is 3 mod 4 and `4 = 1 mod 3`), so the division is exact.  Defined
/// for `level <= 31` (the result then stays below `2^62`; `level` 32 would
/// need a 65-bit `4^level`); the Morton functions use `level <= MAX_DEPTH`.
///
/// ```
/// use broadphase_core::morton::level_start;
/// assert_eq!([0, 1, 2, 3].map(level_start), [0, 1, 5, 21]);
/// ```
#[inline(always)]
pub const fn level_start(level: u32) -> u64 {
    debug_assert!(level <= 31);
    ((1u64 << (2 * level)) - 1) / 3
}

/// Position of cell `index` (its Morton number inside `level`, below
/// `4^level`) in the linear array of all levels: `level_start(level) +
/// index`, below `level_start(level + 1)`.
///
/// ```
/// use broadphase_core::morton::linear_index;
/// assert_eq!(linear_index(2, 11), 16); // after level 0's 1 cell and level 1's 4
/// ```
#[inline(always)]
pub const fn linear_index(level: u32, index: u64) -> u64 {
    debug_assert!(index < 1u64 << (2 * level));
    level_start(level) + index
}

/// Insert a zero bit above each of the low 32 bits of `v`.
#[inline(always)]
pub fn spread(v: u64) -> u64 {
    let mut v = v & 0xFFFF_FFFF;
    v = (v | (v << 16)) & 0x0000_FFFF_0000_FFFF;
    v = (v | (v << 8)) & 0x00FF_00FF_00FF_00FF;
    v = (v | (v << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    v = (v | (v << 2)) & 0x3333_3333_3333_3333;
    (v | (v << 1)) & 0x5555_5555_5555_5555
}

/// Inverse of [`spread`]: gather the even bits of `v`.
#[inline(always)]
pub fn compact(v: u64) -> u64 {
    let mut v = v & 0x5555_5555_5555_5555;
    v = (v | (v >> 1)) & 0x3333_3333_3333_3333;
    v = (v | (v >> 2)) & 0x0F0F_0F0F_0F0F_0F0F;
    v = (v | (v >> 4)) & 0x00FF_00FF_00FF_00FF;
    v = (v | (v >> 8)) & 0x0000_FFFF_0000_FFFF;
    (v | (v >> 16)) & 0x0000_0000_FFFF_FFFF
}

/// Morton number of cell `(ix, iy)`.
#[inline(always)]
pub fn encode(ix: u64, iy: u64) -> u64 {
    spread(ix) | (spread(iy) << 1)
}

/// Cell `(ix, iy)` of a Morton number.
#[inline(always)]
pub fn decode(code: u64) -> (u64, u64) {
    (compact(code), compact(code >> 1))
}

/// Level of the smallest cell holding both codes: the seeds' XOR rule.
///
/// The highest non-zero 2-bit group of `c0 ^ c1` (not the sum of all of
/// them) fixes the level: group `g` (counted from 0 at the bottom) means the
/// corners part at level `depth - 1 - g`.  Equal codes give `depth`.
#[inline(always)]
pub fn xor_level(c0: u64, c1: u64, depth: u32) -> u32 {
    let bits = 64 - (c0 ^ c1).leading_zeros(); // bit length: highest set bit + 1
    depth - bits.div_ceil(2)
}

/// [`xor_level`] of the corners' codes, without encoding them.
///
/// The highest set bit of `encode(dx, dy)` (`dx = ix0 ^ ix1`, `dy` likewise)
/// is bit `2b` of dx's highest bit `b` or bit `2b + 1` of dy's, so its 2-bit
/// group is the higher of the two highest bits: the bit length of
/// `max(dx, dy)`.
#[inline(always)]
pub fn xor_level_xy(ix0: u32, iy0: u32, ix1: u32, iy1: u32, depth: u32) -> u32 {
    let d = (ix0 ^ ix1).max(iy0 ^ iy1);
    depth - (32 - d.leading_zeros())
}

/// The seeds' cell of a box from its corner codes: `(level, index in level)`.
#[inline]
pub fn cell_of(c0: u64, c1: u64, depth: u32) -> (u32, u64) {
    let lv = xor_level(c0, c1, depth);
    (lv, c1 >> (2 * (depth - lv)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn seed_worked_examples() {
        assert_eq!(encode(3, 6), 45);
        assert_eq!(decode(45), (3, 6));
        // seed 001, depth 3: corners 19 and 31 share level 1 cell 1
        assert_eq!(cell_of(19, 31, 3), (1, 1));
        assert_eq!(cell_of(45, 47, 3), (2, 11));
        assert_eq!(cell_of(0, 63, 3), (0, 0));
        assert_eq!(cell_of(12, 12, 3), (3, 12));
    }

    #[test]
    fn levels_follow_one_another() {
        // level l holds 4^l cells, from where level l - 1 ends
        let mut next = 0u64;
        for l in 0..=31 {
            assert_eq!(level_start(l), next, "level {l}");
            next += 1u64 << (2 * l);
        }
        assert_eq!(
            level_start(MAX_DEPTH + 1) - 1,
            linear_index(MAX_DEPTH, (1 << 58) - 1)
        );
        assert!(linear_index(MAX_DEPTH, (1 << 58) - 1) < 1 << 62);
        assert_eq!(linear_index(0, 0), 0);
        assert_eq!(linear_index(3, 0), 21);
    }

    proptest! {
        #[test]
        fn xy_level_equals_code_level(a in 0u32..1 << 20, b in 0u32..1 << 20,
                                       c in 0u32..1 << 20, d in 0u32..1 << 20) {
            let want = xor_level(encode(a as u64, b as u64), encode(c as u64, d as u64), 20);
            prop_assert_eq!(xor_level_xy(a, b, c, d, 20), want);
        }

        #[test]
        fn level_is_the_smallest_common_cell(c0 in 0u64..1 << 40, c1 in 0u64..1 << 40) {
            let depth = 20;
            let (lv, idx) = cell_of(c0, c1, depth);
            let sh = 2 * (depth - lv);
            prop_assert_eq!(c0 >> sh, idx);
            prop_assert_eq!(c1 >> sh, idx);
            if lv < depth {
                prop_assert_ne!(c0 >> (sh - 2), c1 >> (sh - 2));
            }
        }

        #[test]
        fn linear_index_is_one_to_one(l in 0u32..=MAX_DEPTH, raw in any::<u64>()) {
            // cell `index` of level l lands inside level l's part, in order
            let index = raw & ((1u64 << (2 * l)) - 1);
            let at = linear_index(l, index);
            prop_assert!(level_start(l) <= at && at < level_start(l + 1));
            prop_assert_eq!(at - level_start(l), index);
            // the sum of the sizes of the levels above, written out
            let above: u64 = (0..l).map(|k| 1u64 << (2 * k)).sum();
            prop_assert_eq!(at, above + index);
        }

        #[test]
        fn decode_inverts_encode(x in 0u64..1 << 31, y in 0u64..1 << 31) {
            prop_assert_eq!(decode(encode(x, y)), (x, y));
        }
    }
}
