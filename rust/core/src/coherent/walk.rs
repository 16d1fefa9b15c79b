//! One chunk of cells of a search over the kept order: each cell's entries
//! gathered (kept words whose box still meets the cell, then its new
//! words), put in order of minx, written back as the next search's words,
//! and walked with the grid's in-cell walk ([`crate::cells`]).
//!
//! Invariant: the words written for a cell are exactly the boxes whose
//! current range holds it, by minx; the pairs are those of a search from
//! scratch on the same grid (the reference-point rule of the cells).

use super::words::{code, holds, index, pairs_within, word, Range};
use crate::cells::{self, Ent};
use crate::morton::decode;
use crate::narrow::Narrow;
use crate::pairs::Sink;

/// Words ahead whose box and range the cells' pass asks for.
const AHEAD: usize = 16;

/// One chunk of cells of a search over the kept order: its kept words, the
/// new words of its cells (sorted), the boxes and their current ranges.
pub(super) struct Cells<'a> {
    pub(super) old: &'a [u64],
    pub(super) add: &'a [u64],
    pub(super) boxes: &'a [[f64; 4]],
    pub(super) ranges: &'a [Range],
}

impl Cells<'_> {
    /// Cell after cell: its entries (kept words whose box still meets it,
    /// then its new words) gathered with their boxes into `buf`, put in
    /// order of minx, written to `out` as the next search's words, and
    /// walked into `sink`.  Returns the candidate tests, and those the
    /// cells would cost without early stops.
    pub(super) fn walk<const T: bool>(
        &self,
        narrow: &Narrow,
        sink: &mut Sink,
        buf: &mut Vec<Ent>,
        out: &mut Vec<u64>,
    ) -> (u64, u64) {
        let Cells {
            old,
            add,
            boxes,
            ranges,
        } = *self;
        let (mut i, mut j, mut tests, mut candidates) = (0, 0, 0, 0u64);
        let entry = |k: usize| {
            let r = ranges[k];
            let rep = (r[0] != r[2]) | (r[1] != r[3]);
            Ent::on_grid(boxes[k], r[0] as u32, r[1] as u32, k, rep)
        };
        while i < old.len() || j < add.len() {
            let cell = old
                .get(i)
                .map_or(u64::MAX, |&w| code(w))
                .min(add.get(j).map_or(u64::MAX, |&w| code(w)));
            let (cx, cy) = decode(cell);
            let (cx, cy) = (cx as u16, cy as u16);
            buf.clear();
            while let Some(&w) = old.get(i).filter(|&&w| code(w) == cell) {
                if let Some(&ahead) = old.get(i + AHEAD) {
                    crate::hints::prefetch(&boxes[index(ahead)]);
                    crate::hints::prefetch(&ranges[index(ahead)]);
                }
                let k = index(w);
                if holds(&ranges[k], cx, cy) {
                    buf.push(entry(k));
                }
                i += 1;
            }
            while let Some(&w) = add.get(j).filter(|&&w| code(w) == cell) {
                buf.push(entry(index(w)));
                j += 1;
            }
            cells::sort_by_minx(buf);
            let at = word(cx, cy, 0);
            out.extend(buf.iter().map(|e| at | e.id() as u64));
            candidates = candidates.saturating_add(pairs_within(buf.len()));
            tests += cells::grid_cell_pairs::<T>(buf, cx as u32, cy as u32, narrow, sink);
        }
        (tests, candidates)
    }
}
