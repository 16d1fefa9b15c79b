//! The word of box `k` in cell `(cx, cy)`: `code(cx, cy) << 32 | k`, the
//! cell's Morton code at the grid's depth above bit 32, the box below.
//!
//! This module is the one place that lays a word out and reads it back.
//! Invariant: cell coordinates fit 16 bits ([`MAX_KEPT_DEPTH`]) and box
//! indices 32, so the words of a grid sort by cell, then by box.

use crate::morton::encode;

/// Deepest grid kept: cell coordinates fit 16 bits, a Morton code 32.
pub const MAX_KEPT_DEPTH: u32 = 16;
/// The range of a box that met no cell (before an order is made).
pub(super) const NOWHERE: Range = [1, 1, 0, 0];

/// Cell range `[ix0, iy0, ix1, iy1]` of a box (at most [`MAX_KEPT_DEPTH`]).
pub(super) type Range = [u16; 4];

/// The word of box `k` in cell `(cx, cy)`: the one place that lays a word
/// out (the cell's code above bit 32, the box below).
#[inline(always)]
pub(super) fn word(cx: u16, cy: u16, k: usize) -> u64 {
    (encode(cx as u64, cy as u64) << 32) | k as u64
}

/// The cell code of a word.
#[inline(always)]
pub(super) fn code(w: u64) -> u64 {
    w >> 32
}

/// The box of a word.
#[inline(always)]
pub(super) fn index(w: u64) -> usize {
    w as u32 as usize
}

/// Whether range `r` holds cell `(cx, cy)`.
#[inline(always)]
pub(super) fn holds(r: &Range, cx: u16, cy: u16) -> bool {
    (r[0] <= cx) & (cx <= r[2]) & (r[1] <= cy) & (cy <= r[3])
}

/// The candidate tests of a cell of `c` entries (no ancestors on a grid),
/// in integers: sums of them never depend on the order of the additions.
#[inline(always)]
pub(super) fn pairs_within(c: usize) -> u64 {
    let c = c as u64;
    c.saturating_mul(c.saturating_sub(1)) / 2
}
