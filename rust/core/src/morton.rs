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
//!
//! # One dimension up
//! The same in 3D (the octree): a cell `(ix, iy, iz)` has Morton number
//! `spread3(ix) | spread3(iy) << 1 | spread3(iz) << 2`, levels are 3-bit
//! groups, a cell at level `l` is the level-`L` number shifted right by
//! `3(L - l)`, and the highest non-zero 3-bit group of the corners' XOR
//! names the level.  [`code_of`], [`corner_of`], [`cell_in`] and the linear
//! index ([`level_start_in`], [`linear_index_in`]: level `l` starts at
//! `(8^l - 1) / 7` in 3D) are written once over the dimension
//! ([`crate::dim::Row`]); the 2D functions are the seeds' own spellings of
//! them.

use crate::dim::Row;

/// Deepest grid of the public Morton functions: `2 * 29` code bits, and
/// [`linear_index`] `(4^29 - 1) / 3 + index`, stay below `2^62`.
pub const MAX_DEPTH: u32 = 29;

/// Deepest grid of the public Morton functions in 3D, by the same rule:
/// `3 * 20` code bits, and [`linear_index_in`] `(8^20 - 1) / 7 + index`,
/// stay below `2^62` (the 3D pair search itself stops at
/// [`crate::key::max_depth`]`(3)`, 16).
pub const MAX_DEPTH_3D: u32 = 20;

/// [`MAX_DEPTH`] or [`MAX_DEPTH_3D`]: the deepest grid of the public Morton
/// functions in `R`'s dimension.
#[inline(always)]
pub const fn max_depth_in<R: Row>() -> u32 {
    if R::D == 2 {
        MAX_DEPTH
    } else {
        MAX_DEPTH_3D
    }
}

/// Position of level `level`'s first cell in the linear array of all
/// levels: `(4^level - 1) / 3`, the cells of the levels above it.
///
/// `4^level - 1` is `level` groups of `11` in binary, a multiple of 3 (each
/// group is 3 mod 4 and `4 = 1 mod 3`), so the division is exact.  Defined
/// for `level <= 31` (the result then stays below `2^62`; `level` 32 would
/// need a 65-bit `4^level`); the Morton functions use `level <= MAX_DEPTH`.
/// [`level_start_in`] in 2D.
///
/// ```
/// use broadphase_core::morton::level_start;
/// assert_eq!([0, 1, 2, 3].map(level_start), [0, 1, 5, 21]);
/// ```
#[inline(always)]
pub const fn level_start(level: u32) -> u64 {
    level_start_in::<[f64; 4]>(level)
}

/// [`level_start`] in `R`'s dimension `D`: `(2^(D level) - 1) / (2^D - 1)`,
/// the `1 + 2^D + ... + 2^(D (level - 1))` cells of the levels above
/// (`(8^level - 1) / 7` in 3D).
///
/// `2^(D level) - 1` is `level` groups of `D` one bits, each `2^D - 1`
/// times a power of `2^D`, so the division is exact.  Defined while `D
/// level < 64` (`level <= 31` in 2D, `<= 21` in 3D).
///
/// ```
/// use broadphase_core::morton::level_start_in;
/// assert_eq!([0, 1, 2, 3].map(level_start_in::<[f64; 6]>), [0, 1, 9, 73]);
/// ```
#[inline(always)]
pub const fn level_start_in<R: Row>(level: u32) -> u64 {
    let d = R::D as u32;
    debug_assert!(d * level < 64);
    ((1u64 << (d * level)) - 1) / ((1u64 << d) - 1)
}

/// Position of cell `index` (its Morton number inside `level`, below
/// `4^level`) in the linear array of all levels: `level_start(level) +
/// index`, below `level_start(level + 1)`.  [`linear_index_in`] in 2D.
///
/// ```
/// use broadphase_core::morton::linear_index;
/// assert_eq!(linear_index(2, 11), 16); // after level 0's 1 cell and level 1's 4
/// ```
#[inline(always)]
pub const fn linear_index(level: u32, index: u64) -> u64 {
    linear_index_in::<[f64; 4]>(level, index)
}

/// [`linear_index`] in `R`'s dimension: `level_start_in::<R>(level) +
/// index`, `index` below `2^(D level)` (`8^level` in 3D).
///
/// ```
/// use broadphase_core::morton::linear_index_in;
/// assert_eq!(linear_index_in::<[f64; 6]>(2, 11), 20); // after 1 cell and 8
/// ```
#[inline(always)]
pub const fn linear_index_in<R: Row>(level: u32, index: u64) -> u64 {
    debug_assert!(index < 1u64 << (R::D as u32 * level));
    level_start_in::<R>(level) + index
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

/// Insert two zero bits above each of the low 21 bits of `v`.
#[inline(always)]
pub fn spread3(v: u64) -> u64 {
    let mut v = v & 0x1F_FFFF;
    v = (v | (v << 32)) & 0x001F_0000_0000_FFFF;
    v = (v | (v << 16)) & 0x001F_0000_FF00_00FF;
    v = (v | (v << 8)) & 0x100F_00F0_0F00_F00F;
    v = (v | (v << 4)) & 0x10C3_0C30_C30C_30C3;
    (v | (v << 2)) & 0x1249_2492_4924_9249
}

/// Inverse of [`spread3`]: gather every third bit of `v`, from bit 0.
#[inline(always)]
pub fn compact3(v: u64) -> u64 {
    let mut v = v & 0x1249_2492_4924_9249;
    v = (v | (v >> 2)) & 0x10C3_0C30_C30C_30C3;
    v = (v | (v >> 4)) & 0x100F_00F0_0F00_F00F;
    v = (v | (v >> 8)) & 0x001F_0000_FF00_00FF;
    v = (v | (v >> 16)) & 0x001F_0000_0000_FFFF;
    (v | (v >> 32)) & 0x1F_FFFF
}

/// Morton number of the cell at integer corner `c` (one coordinate per
/// axis) in `R`'s dimension: [`encode`] in 2D, three-way interleaving in
/// 3D (each coordinate below `2^21`).
#[inline(always)]
pub fn code_of<R: Row>(c: &R::Corner) -> u64 {
    let c = c.as_ref();
    if R::D == 2 {
        encode(c[0] as u64, c[1] as u64)
    } else {
        spread3(c[0] as u64) | (spread3(c[1] as u64) << 1) | (spread3(c[2] as u64) << 2)
    }
}

/// The integer corner of a Morton number in `R`'s dimension (inverse of
/// [`code_of`]).
#[inline(always)]
pub fn corner_of<R: Row>(code: u64) -> R::Corner {
    let mut c = R::Corner::default();
    let out = c.as_mut();
    if R::D == 2 {
        let (x, y) = decode(code);
        out[0] = x as u32;
        out[1] = y as u32;
    } else {
        for (k, v) in out.iter_mut().enumerate() {
            *v = compact3(code >> k) as u32;
        }
    }
    c
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

/// [`xor_level_xy`] in any dimension, of an integer range `q` (the low
/// corner's cells, then the high one's: `[ix0, iy0, iz0, ix1, iy1, iz1]` in
/// 3D): the highest bit where the corners differ on any axis is the
/// highest non-zero group of their codes' XOR, whatever the group's width.
#[inline(always)]
pub fn xor_level_of<const N: usize>(q: &[u32; N], depth: u32) -> u32 {
    let d = (0..N / 2).fold(0, |d, k| d.max(q[k] ^ q[N / 2 + k]));
    depth - (32 - d.leading_zeros())
}

/// The seeds' cell of a box from its corner codes: `(level, index in level)`.
/// [`cell_in`] in 2D.
#[inline]
pub fn cell_of(c0: u64, c1: u64, depth: u32) -> (u32, u64) {
    cell_in::<[f64; 4]>(c0, c1, depth)
}

/// [`cell_of`] in `R`'s dimension `D`: the highest non-zero `D`-bit group
/// of `c0 ^ c1` names the level (group `g` from 0 at the bottom: level
/// `depth - 1 - g`; equal codes give `depth`), and the cell is `c1` shifted
/// right by `D (depth - level)`.  Codes below `2^(D depth)`.
///
/// ```
/// use broadphase_core::morton::cell_in;
/// // 3D, depth 2: corners (1, 0, 0) and (2, 0, 0) part at the root
/// assert_eq!(cell_in::<[f64; 6]>(1, 8, 2), (0, 0));
/// assert_eq!(cell_in::<[f64; 6]>(8, 9, 2), (1, 1));
/// ```
#[inline]
pub fn cell_in<R: Row>(c0: u64, c1: u64, depth: u32) -> (u32, u64) {
    let d = R::D as u32;
    let bits = 64 - (c0 ^ c1).leading_zeros(); // bit length: highest set bit + 1
    let lv = depth - bits.div_ceil(d);
    (lv, c1 >> (d * (depth - lv)))
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

    #[test]
    fn levels_follow_one_another_in_3d() {
        // level l holds 8^l cells, from where level l - 1 ends
        type R = [f64; 6];
        let mut next = 0u64;
        for l in 0..=21 {
            assert_eq!(level_start_in::<R>(l), next, "level {l}");
            next += 1u64 << (3 * l);
        }
        let last = linear_index_in::<R>(MAX_DEPTH_3D, (1 << 60) - 1);
        assert_eq!(level_start_in::<R>(MAX_DEPTH_3D + 1) - 1, last);
        assert!(last < 1 << 62);
        assert_eq!(linear_index_in::<R>(3, 0), 73);
        assert_eq!(max_depth_in::<R>(), MAX_DEPTH_3D);
        assert_eq!(max_depth_in::<[f64; 4]>(), MAX_DEPTH);
        // the deepest 3D code of the public functions, every coordinate at its top
        let top = (1u32 << MAX_DEPTH_3D) - 1;
        assert_eq!(code_of::<R>(&[top; 3]), (1 << 60) - 1);
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
        fn level_in_3d_is_the_smallest_common_cell(c0 in 0u64..1 << 48, c1 in 0u64..1 << 48) {
            let depth = 16;
            let (lv, idx) = cell_in::<[f64; 6]>(c0, c1, depth);
            let sh = 3 * (depth - lv);
            prop_assert_eq!(c0 >> sh, idx);
            prop_assert_eq!(c1 >> sh, idx);
            if lv < depth {
                prop_assert_ne!(c0 >> (sh - 3), c1 >> (sh - 3));
            }
            // the 2D spelling is the generic one
            let (a, b) = (c0 & ((1 << 40) - 1), c1 & ((1 << 40) - 1));
            prop_assert_eq!(cell_of(a, b, 20), cell_in::<[f64; 4]>(a, b, 20));
        }

        #[test]
        fn linear_index_in_3d_is_one_to_one(l in 0u32..=MAX_DEPTH_3D, raw in any::<u64>()) {
            type R = [f64; 6];
            let index = raw & ((1u64 << (3 * l)) - 1);
            let at = linear_index_in::<R>(l, index);
            prop_assert!(level_start_in::<R>(l) <= at && at < level_start_in::<R>(l + 1));
            // the sum of the sizes of the levels above, written out
            let above: u64 = (0..l).map(|k| 1u64 << (3 * k)).sum();
            prop_assert_eq!(at, above + index);
        }

        #[test]
        fn decode_inverts_encode(x in 0u64..1 << 31, y in 0u64..1 << 31) {
            prop_assert_eq!(decode(encode(x, y)), (x, y));
        }

        #[test]
        fn range_level_is_the_codes_level(q in proptest::array::uniform6(0u32..1 << 16)) {
            let depth = 16;
            let lo = [q[0].min(q[3]), q[1].min(q[4]), q[2].min(q[5])];
            let hi = [q[0].max(q[3]), q[1].max(q[4]), q[2].max(q[5])];
            let (c0, c1) = (code_of::<[f64; 6]>(&lo), code_of::<[f64; 6]>(&hi));
            // the highest non-zero 3-bit group of the codes' XOR
            let bits = 64 - (c0 ^ c1).leading_zeros();
            let want = depth - bits.div_ceil(3);
            let r = [lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]];
            prop_assert_eq!(xor_level_of(&r, depth), want);
            let r2 = [lo[0], lo[1], hi[0], hi[1]];
            prop_assert_eq!(xor_level_of(&r2, depth), xor_level_xy(lo[0], lo[1], hi[0], hi[1], depth));
        }

        #[test]
        fn codes_in_3d_interleave_bit_by_bit(x in 0u32..1 << 21, y in 0u32..1 << 21,
                                             z in 0u32..1 << 21) {
            let code = code_of::<[f64; 6]>(&[x, y, z]);
            // bit 3b + k of the code is bit b of coordinate k, written out
            let mut want = 0u64;
            for b in 0..21 {
                for (k, v) in [x, y, z].into_iter().enumerate() {
                    want |= (((v >> b) & 1) as u64) << (3 * b + k);
                }
            }
            prop_assert_eq!(code, want);
            prop_assert_eq!(corner_of::<[f64; 6]>(code), [x, y, z]);
            prop_assert_eq!(code_of::<[f64; 4]>(&[x, y]), encode(x as u64, y as u64));
            prop_assert_eq!(corner_of::<[f64; 4]>(encode(x as u64, y as u64)), [x, y]);
        }
    }
}
