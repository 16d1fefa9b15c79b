//! The kept order: the words of the last search, its grid and each box's
//! cell range.
//!
//! Invariants (`Kept::check_words` in the tests): chunk `c` holds the
//! words of the cells from `cuts[c]` to the next chunk's; the words are by
//! cell code and inside a cell by minx as of the last search; as a set they
//! are the entries a fresh pass on the kept grid makes; `ranges[k]` is box
//! `k`'s cell range as of the last search.

use super::walk::Cells;
#[cfg(test)]
use super::words::index;
use super::words::{code, holds, pairs_within, word, Range, MAX_KEPT_DEPTH, NOWHERE};
use super::AGE;
use crate::cells;
use crate::check::bounds_of;
use crate::narrow::Narrow;
use crate::pairs::{canonical_with, finish, Buckets, Budget, Sink, TooMany};
use crate::par::{chunk_count, even_bounds, split_at_bounds, Exec, MAX_CHUNKS};
use crate::radix;
use crate::scratch;
use crate::search;
use crate::world::Grid;
use std::sync::Mutex;

/// Fewest boxes per chunk of the per-box pass.
pub(super) const BOX_GRAIN: usize = 1 << 12;
/// Fewest words per chunk of cells (chosen when an order is made).
pub(super) const WORD_GRAIN: usize = 1 << 12;

/// The kept entries of the last search, its grid and each box's cells.
#[derive(Clone, Debug)]
pub struct Kept {
    pub(super) grid: Grid,
    /// Where the grid's columns and rows start ([`Grid::edges`]): a box
    /// whose cells did not change is recognised by comparisons alone.
    edges: [Vec<f64>; 2],
    /// Each chunk's lowest cell code (the first 0): chunk `c` holds the
    /// words of the cells from `cuts[c]` to the next chunk's.
    cuts: Vec<u64>,
    /// Each chunk's words: by cell code, in a cell by minx.
    words: Vec<Vec<u64>>,
    /// The buffers the next search writes its words into.
    spare: Vec<Vec<u64>>,
    /// Each box's cell range as of the last search (until the per-box pass
    /// brings it to the current boxes).
    pub(super) ranges: Vec<Range>,
    /// The walk's candidate tests without early stops, as of the last
    /// search (whether the next one should count its pairs first).
    pub(super) candidates: u64,
    /// Searches since the grid was chosen.
    pub(super) age: u32,
}

impl Kept {
    /// A new order for `boxes`: the grid a search from scratch would choose,
    /// every word made and sorted by cell, cut into chunks (a cell's words
    /// are then by box; the first search puts them in order of minx).
    /// When the grid is deeper than [`MAX_KEPT_DEPTH`], the grid and the
    /// boxes' placement on it instead (for a search from scratch).
    pub(super) fn new(boxes: &[[f64; 4]], ex: &Exec) -> Result<Kept, (Grid, cells::Placement)> {
        let n = boxes.len();
        let (grid, place) = search::grid_for(boxes, bounds_of(boxes), ex);
        // box indices below 2^31 (the entries' tags keep bit 31 for a flag)
        if grid.depth > MAX_KEPT_DEPTH || !place.levels.is_empty() || n > 1 << 31 {
            return Err((grid, place));
        }
        place.give_back();
        let mut kept = Kept {
            edges: [grid.edges(0), grid.edges(1)],
            grid,
            cuts: vec![0],
            words: vec![Vec::new()],
            spare: Vec::new(),
            ranges: vec![NOWHERE; n],
            candidates: 0,
            age: 0,
        };
        let bb = even_bounds(n, chunk_count(n, BOX_GRAIN, MAX_CHUNKS));
        let scanned = kept.scan(boxes, &bb, ex);
        let all = kept.added(&scanned, ex);
        let m = all.len();
        // chunks of about WORD_GRAIN words, each bound moved to its cell's start
        let mut wb = even_bounds(m, chunk_count(m, WORD_GRAIN, MAX_CHUNKS));
        for c in 1..wb.len() - 1 {
            let mut b = wb[c].max(wb[c - 1]);
            while b > 0 && b < m && code(all[b]) == code(all[b - 1]) {
                b += 1;
            }
            wb[c] = b;
        }
        wb.dedup();
        if wb.len() < 2 {
            wb = vec![0, m]; // no words: one empty chunk
        }
        kept.cuts = wb[..wb.len() - 1]
            .iter()
            .enumerate()
            .map(|(c, &b)| if c == 0 { 0 } else { code(all[b]) })
            .collect();
        kept.words = wb.windows(2).map(|w| all[w[0]..w[1]].to_vec()).collect();
        kept.candidates = kept.cells_candidates();
        scratch::give(all);
        Ok(kept)
    }

    /// The candidate tests of the kept cells without early stops.
    fn cells_candidates(&self) -> u64 {
        let mut total = 0u64;
        for words in &self.words {
            let mut run = 0;
            for (i, &w) in words.iter().enumerate() {
                run += 1;
                if words.get(i + 1).is_none_or(|&x| code(x) != code(w)) {
                    total = total.saturating_add(pairs_within(run));
                    run = 0;
                }
            }
        }
        total
    }

    /// Each box's range brought to its box; for each chunk of boxes (cut
    /// at `bb`), the words of the cells its boxes newly meet, made here
    /// while each box and its old range are at hand (in box order).
    fn scan(&mut self, boxes: &[[f64; 4]], bb: &[usize], ex: &Exec) -> Vec<Vec<u64>> {
        let n = boxes.len();
        let parts = split_at_bounds(&mut self.ranges, bb);
        let grid = &self.grid;
        let [ex_, ey] = &self.edges;
        ex.for_work(n, 2 * BOX_GRAIN).each(parts, |c, ranges| {
            let mut words = Vec::new();
            for (i, range) in ranges.iter_mut().enumerate() {
                let b = &boxes[bb[c] + i];
                // the same cells: each coordinate between its cell's edges
                // (a range of NOWHERE never passes: its minx would lie
                // right of its maxx)
                let [x0, y0, x1, y1] = range.map(usize::from);
                let same = (ex_[x0] <= b[0])
                    & (b[0] < ex_[x0 + 1])
                    & (ey[y0] <= b[1])
                    & (b[1] < ey[y0 + 1])
                    & (ex_[x1] <= b[2])
                    & (b[2] < ex_[x1 + 1])
                    & (ey[y1] <= b[3])
                    & (b[3] < ey[y1 + 1]);
                if same {
                    continue;
                }
                // at most 2^16 cells a side: the coordinates fit
                let r = grid.cells_of(b).map(|v| v as u16);
                if r != *range {
                    for cy in r[1]..=r[3] {
                        for cx in r[0]..=r[2] {
                            if !holds(range, cx, cy) {
                                words.push(word(cx, cy, bb[c] + i));
                            }
                        }
                    }
                    *range = r;
                }
            }
            words
        })
    }

    /// The words of [`Kept::scan`]'s chunks in one vector, sorted by cell
    /// (stably: a cell's new words come by box).
    fn added(&self, scanned: &[Vec<u64>], ex: &Exec) -> Vec<u64> {
        let total = scanned.iter().map(Vec::len).sum();
        let mut add: Vec<u64> = scratch::take(total);
        for words in scanned {
            add.extend_from_slice(words);
        }
        radix::sort(add, 32, 2 * self.grid.depth, ex)
    }

    /// One search over the kept order: the ranges brought to `boxes` (as
    /// many as the last time), the words of the cells newly met, then every
    /// cell's entries put in order and walked.  `None` when the new words
    /// pass `1 / give_up` of the kept ones (0: never): the order is then
    /// to be let go.
    pub(super) fn search(
        &mut self,
        boxes: &[[f64; 4]],
        narrow: &Narrow,
        budget: &Budget,
        ex: &Exec,
        give_up: usize,
        packed: &mut Vec<u64>,
    ) -> Option<(Result<Vec<isize>, TooMany>, u64)> {
        let n = boxes.len();
        debug_assert_eq!(n, self.ranges.len());
        let m: usize = self.words.iter().map(Vec::len).sum();
        let bb = even_bounds(n, chunk_count(n, BOX_GRAIN, MAX_CHUNKS));
        let scanned = self.scan(boxes, &bb, ex);
        let new: usize = scanned.iter().map(Vec::len).sum();
        if new * give_up > m {
            return None;
        }
        let add = self.added(&scanned, ex);
        let nch = self.words.len();
        let ab: Vec<usize> = (0..=nch)
            .map(|c| match c {
                0 => 0,
                c if c == nch => add.len(),
                c => add.partition_point(|&w| code(w) < self.cuts[c]),
            })
            .collect();
        let mut spare = std::mem::take(&mut self.spare);
        spare.resize_with(nch, Vec::new);
        let outs: Vec<Mutex<Vec<u64>>> = spare.into_iter().map(Mutex::new).collect();
        let buckets = Buckets::for_objects(n);
        let trivial = narrow.is_trivial();
        let ex = ex.for_work(m + add.len(), 2 * WORD_GRAIN);
        let this = &*self;
        let results = ex.fold(
            nch,
            || (Sink::new(budget, buckets), 0u64, 0u64, Vec::new()),
            |(sink, tests, candidates, buf), c| {
                let mut out = outs[c].lock().unwrap_or_else(|e| e.into_inner());
                out.clear();
                let cells = Cells {
                    old: &this.words[c],
                    add: &add[ab[c]..ab[c + 1]],
                    boxes,
                    ranges: &this.ranges,
                };
                let (t, cand) = if trivial {
                    cells.walk::<true>(narrow, sink, buf, &mut out)
                } else {
                    cells.walk::<false>(narrow, sink, buf, &mut out)
                };
                *tests += t;
                *candidates = candidates.saturating_add(cand);
            },
        );
        let tests = results.iter().map(|r| r.1).sum();
        self.candidates = results.iter().fold(0u64, |a, r| a.saturating_add(r.2));
        let sinks = results.into_iter().map(|r| r.0).collect();
        let rows = finish(sinks).map(|s| canonical_with(&s, n, &ex, Some(packed)));
        scratch::give(add);
        let next = outs
            .into_iter()
            .map(|o| o.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect();
        self.spare = std::mem::replace(&mut self.words, next);
        let total: usize = self.words.iter().map(Vec::len).sum();
        if total as f64 > search::grid_budget(n) {
            self.age = AGE; // crowded: the next search chooses a grid anew
        }
        Some((rows, tests))
    }
}

#[cfg(test)]
impl Kept {
    /// Check the kept words against `boxes` (those of the last search):
    /// each chunk within its codes, cells in order and in a cell by minx,
    /// and as a set the entries of a fresh pass on the kept grid (this
    /// module's ranges, and the search's own entry pass, `cells::fill`).
    pub(super) fn check_words(&self, boxes: &[[f64; 4]]) {
        assert_eq!(self.cuts.len(), self.words.len());
        for (c, words) in self.words.iter().enumerate() {
            let hi = self.cuts.get(c + 1).copied().unwrap_or(u64::MAX);
            assert!(words
                .iter()
                .all(|&w| self.cuts[c] <= code(w) && code(w) < hi));
        }
        let all: Vec<u64> = self.words.concat();
        for p in all.windows(2) {
            let (a, b) = (p[0], p[1]);
            assert!(
                code(a) < code(b)
                    || (code(a) == code(b) && boxes[index(a)][0] <= boxes[index(b)][0]),
                "cells in order, in a cell by minx"
            );
        }
        let mut got = all;
        got.sort_unstable();
        let mut want = Vec::new();
        for (k, b) in boxes.iter().enumerate() {
            let r = self.grid.cells_of(b).map(|v| v as u16);
            for cy in r[1]..=r[3] {
                for cx in r[0]..=r[2] {
                    want.push(word(cx, cy, k));
                }
            }
        }
        want.sort_unstable();
        assert_eq!(got, want);
        let ex = Exec::serial();
        let place = crate::grid::place(boxes, &self.grid, &ex);
        let lay = cells::layout(&self.grid, &place);
        let mut fill = cells::fill(boxes, &self.grid, lay, &place, &ex, |key, i, _| {
            (lay.cell(key) << 32) | i as u64
        });
        fill.sort_unstable();
        assert_eq!(got, fill);
    }

    /// How many words are kept.
    pub(super) fn word_count(&self) -> usize {
        self.words.iter().map(Vec::len).sum()
    }
}
