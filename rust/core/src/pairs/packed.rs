//! The packed pair: `min << 32 | max` in a `u64` (object indices below
//! `2^31`), the one place that lays a pair out and reads it back.
//!
//! Invariant: packed pairs sort as their rows `(i, j)`, `i < j`, do, so a
//! sorted vector of packed pairs is the canonical order.

use crate::par::Exec;

/// A chunk's pairs, packed `min << 32 | max`.
pub type Pairs = Vec<u64>;

/// Pack the unordered pair `{i, j}` (`i != j`, both below `2^31`).
#[inline(always)]
pub fn pack(i: u32, j: u32) -> u64 {
    ((i.min(j) as u64) << 32) | i.max(j) as u64
}

/// The pair `(i, j)`, `i < j`, of a packed pair (the inverse of [`pack`]).
#[inline(always)]
pub fn unpack(p: u64) -> (usize, usize) {
    ((p >> 32) as usize, p as u32 as usize)
}

/// The smaller object of a packed pair.
#[inline(always)]
pub fn first(p: u64) -> usize {
    (p >> 32) as usize
}

/// The larger object of a packed pair.
#[inline(always)]
pub fn second(p: u64) -> usize {
    p as u32 as usize
}

/// Pairs packed by [`pack_rows`] per chunk.
const PACK_GRAIN: usize = 1 << 14;

/// Flat rows `[i, j, ...]` packed (`i << 32 | j`) into `out` (cleared
/// first, its capacity reused: no fresh pages), in chunks.
pub fn pack_rows(flat: &[isize], out: &mut Vec<u64>, ex: &Exec) {
    let k = flat.len() / 2;
    ex.for_work(k, 2 * PACK_GRAIN)
        .collect_into(out, k, PACK_GRAIN, |p| {
            pack(flat[2 * p] as u32, flat[2 * p + 1] as u32)
        });
}

/// The chunks' packed pairs one after the other as flat rows `[i, j, ...]`,
/// for kernels that emit canonical order (and the tree's kept pairs).
pub fn concatenate<P: AsRef<[u64]>>(chunks: &[P]) -> Vec<isize> {
    let k: usize = chunks.iter().map(|c| c.as_ref().len()).sum();
    let mut out = Vec::with_capacity(2 * k);
    for p in chunks.iter().flat_map(|c| c.as_ref()) {
        out.push(first(*p) as isize);
        out.push(second(*p) as isize);
    }
    out
}
