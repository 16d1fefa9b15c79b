//! An object's presence in one cell ([`Entry`], with a copy of its box),
//! the tag that tells which of the object's cells it is, and the test of a
//! run's entries against a query box.
//!
//! Owns the tag encoding: the cell's rank `r` (0 to 3) in the low two bits,
//! [`LATER_COLUMN`] and [`LATER_ROW`] above.  Invariant of the test: bit
//! `t` of [`overlap_bits`] is set exactly when entry `t` counts and its box
//! strictly overlaps the query ([`crate::narrow::boxes_overlap`]).

/// An object's presence in one cell.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Entry {
    /// The object's box (as of the last sync).
    pub b: [f64; 4],
    /// The object.
    pub id: u32,
    /// Which of the object's cells this is (see [`tag`]).
    pub tag: u8,
}

/// Bit of [`Entry::tag`]: the cell is not in the object's first column.
pub const LATER_COLUMN: u8 = 4;
/// Bit of [`Entry::tag`]: the cell is not in the object's first row.
pub const LATER_ROW: u8 = 8;

/// The tag of an object's cell `r` (0 to 3) of `nx` columns: `r` in the low
/// two bits, and whether the cell is past the first column and row.
#[inline]
pub fn tag(r: usize, nx: u8) -> u8 {
    let (col, row) = (r % nx as usize, r / nx as usize);
    r as u8 | if col > 0 { LATER_COLUMN } else { 0 } | if row > 0 { LATER_ROW } else { 0 }
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
pub fn overlap_bits(q: &[f64; 4], part: &[Entry], skip: u8) -> (u64, u64) {
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

/// [`crate::narrow::boxes_overlap`] of `q` and `b`, the two axes at once:
/// `b`'s minima below `q`'s maxima, and `q`'s minima below `b`'s maxima,
/// each a comparison of two lanes.
#[inline(always)]
fn overlaps(q: &[f64; 4], b: &[f64; 4]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
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
            _mm_movemask_pd(_mm_and_pd(below, above)) == 3
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        crate::narrow::boxes_overlap(q, b)
    }
}
