//! An object's presence in one cell ([`Entry`], with a copy of its box),
//! the tag that tells which of the object's cells it is, and the test of a
//! run's entries against a query box.
//!
//! Owns the tag encoding: the cell's rank `r` (0 to 7: an object is
//! entered in at most `2^D` cells) in the low three bits ([`RANK`]), and
//! above them one bit per axis ([`later`]) set when the cell is past the
//! object's first cell along that axis.  Invariant of the test: bit `t` of
//! [`overlap_bits`] is set exactly when entry `t` counts and its box
//! strictly overlaps the query ([`crate::dim::overlap`]).

/// An object's presence in one cell, its box a row of `N` doubles
/// ([`crate::dim`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry<const N: usize = 4> {
    /// The object's box (as of the last sync).
    pub b: [f64; N],
    /// The object.
    pub id: u32,
    /// Which of the object's cells this is (see [`tag`]).
    pub tag: u8,
}

impl<const N: usize> Default for Entry<N> {
    fn default() -> Self {
        Entry {
            b: [0.0; N],
            id: 0,
            tag: 0,
        }
    }
}

/// Bits of [`Entry::tag`] holding the cell's rank among its object's cells.
pub const RANK: u8 = 7;

/// Bit of [`Entry::tag`]: the cell is past the object's first cell along
/// `axis` (0 is x: a later column; 1 is y: a later row; 2 is z).
#[inline(always)]
pub const fn later(axis: usize) -> u8 {
    8 << axis
}

/// Bit of [`Entry::tag`]: the cell is not in the object's first column.
pub const LATER_COLUMN: u8 = later(0);
/// Bit of [`Entry::tag`]: the cell is not in the object's first row.
pub const LATER_ROW: u8 = later(1);

/// The tag of an object's cell `r` whose offsets from the object's first
/// cell are `steps` (the bit of axis `k` set when it is one cell on along
/// `k`): `r` in the low bits, then a [`later`] bit per axis stepped.
#[inline]
pub fn tag(r: usize, steps: u8) -> u8 {
    debug_assert!(r <= RANK as usize && steps < 8);
    r as u8 | steps << 3
}

/// Bit `t` set when entry `t` of `part` (at most 64 entries) counts (its
/// tag has none of the bits of `skip`) and its box strictly overlaps `q`;
/// and how many of them count.
///
/// The tests of a run's entries go into a mask with no branch (a branch per
/// entry would be taken at random); the caller then visits the few set bits.
/// A query's first cell at a level (`skip` 0) counts every entry, so its loop
/// has no tag test.
#[inline(always)]
pub fn overlap_bits<const N: usize>(q: &[f64; N], part: &[Entry<N>], skip: u8) -> (u64, u64) {
    debug_assert!(part.len() <= 64);
    let mut mask = 0u64;
    if skip == 0 {
        for (t, e) in part.iter().enumerate() {
            mask |= (overlaps(q, &e.b) as u64) << t;
        }
        return (mask, part.len() as u64);
    }
    let mut counted = 0;
    for (t, e) in part.iter().enumerate() {
        let counts = e.tag & skip == 0;
        counted += counts as u64;
        mask |= ((counts & overlaps(q, &e.b)) as u64) << t;
    }
    (mask, counted)
}

/// [`crate::dim::overlap`] of `q` and `b`; in 2D the two axes at once:
/// `b`'s minima below `q`'s maxima, and `q`'s minima below `b`'s maxima,
/// each a comparison of two lanes.
#[inline(always)]
fn overlaps<const N: usize>(q: &[f64; N], b: &[f64; N]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if N == 4 {
        use std::arch::x86_64::{_mm_and_pd, _mm_cmplt_pd, _mm_movemask_pd, _mm_set_pd};
        // SAFETY: these are SSE2 instructions, which every x86_64 processor
        // has (SSE2 is part of the x86_64 baseline, enabled in every build
        // for it); they compute on their register arguments only and touch
        // no memory.  `overlap_bits_equals_boxes_overlap` checks them
        // against the scalar test: touching and shared edges, one ulp
        // apart, infinities, signed zeros.
        unsafe {
            let below = _mm_cmplt_pd(_mm_set_pd(b[1], b[0]), _mm_set_pd(q[3], q[2]));
            let above = _mm_cmplt_pd(_mm_set_pd(q[1], q[0]), _mm_set_pd(b[3], b[2]));
            return _mm_movemask_pd(_mm_and_pd(below, above)) == 3;
        }
    }
    crate::dim::overlap(q, b)
}
