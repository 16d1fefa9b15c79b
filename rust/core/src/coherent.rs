//! The grid method with its sorted entries kept from one search to the next.
//!
//! A search from scratch ([`crate::grid`], [`crate::cells`]) spends about
//! half its time making one entry per (box, cell met) and radix-sorting
//! them.  The moving tree searches from scratch when most of its objects
//! moved, and objects that move every frame move a little: most of them
//! meet the same cells as before.  So the tree keeps the last search's
//! sorted entries ([`Kept`]) and re-sorts them.
//!
//! # Derivation
//! On one grid, an entry of box `k` in cell `c` is the word
//! `key << shift | k << 2 | later << 1 | replicated`, the key being `c`'s
//! Morton code followed by `sub`, the position of `k`'s minx in `c` (0 in
//! every cell past `k`'s first column, whose left edge lies right of the
//! minx: `later` marks those).  Sorting
//! the words sorts by key, then by `k`: the order the radix sort of a fresh
//! search gives (stable, from entries in box order).  Between two searches:
//! * box `k` still meets cell `c`: the entry stays, with `k`'s new `sub` and
//!   flags (the same flags and only a new `sub` when `k` meets the same
//!   cells); its cell, so its place among other cells, is unchanged;
//! * box `k` left `c`: the entry goes;
//! * box `k` now meets a cell it did not: a new entry.
//!
//! Last search's words, updated in place and with the gone ones dropped,
//! are still sorted by cell; only the runs of one cell can be out of order
//! (by `sub`), which an insertion sort mends in O(entries + inversions).
//! The new entries, from the few boxes whose cell range changed, are
//! radix-sorted and merged in.  The result is exactly the sorted words of a
//! fresh entry pass on the same grid and key layout (both fixed when the
//! order was made), so the walk of [`crate::cells`]
//! and its pairs are those of a search from scratch on that grid: exact for
//! any grid (quantization stays monotone, boxes outside it are clamped into
//! its border cells).
//!
//! # Chunks
//! The per-box passes run in chunks of boxes, the per-word passes in chunks
//! of words cut at cell starts (so a cell's run is never split), both fixed
//! by the data: the result never depends on the threads.
//!
//! # When it starts anew
//! The grid is chosen as a fresh search chooses it, and again when the
//! number of boxes changed, when the entries outgrew the grid's budget, or
//! after [`AGE`] searches (so that the grid follows the boxes' sizes and
//! extent).  When the new entries would pass `1 / GIVE_UP` of all, boxes
//! move too far for the re-sort to pay: that search and the next
//! `WAIT - 1` sort anew, then an order is kept again.

use crate::cells::{self, Keys, Placement, Words};
use crate::check::bounds_of;
use crate::key::Layout;
use crate::morton::{decode, encode};
use crate::narrow::Narrow;
use crate::pairs::{Budget, TooMany};
use crate::par::{chunk_count, even_bounds, split_at_bounds, Exec};
use crate::radix;
use crate::scratch;
use crate::search;
use crate::world::Grid;

/// Searches one choice of grid serves before it is chosen anew.
pub const AGE: u32 = 64;
/// A search re-sorts the kept order only while the entries of cells newly
/// met stay within this fraction (1 / `GIVE_UP`) of all: boxes that move
/// farther also change places more inside their cells, and the re-sort then
/// costs more than sorting anew (docs/benchmarks.md, "Four sessions after",
/// has the measurements).
const GIVE_UP: usize = 16;
/// Searches from scratch, the one whose re-sort gave up included, before
/// an order is kept again (making one costs about a tenth of a search more).
const WAIT: u32 = 16;
/// Fewest boxes per chunk of the per-box passes.
const BOX_GRAIN: usize = 1 << 12;
/// Fewest words per chunk of the per-word passes.
const WORD_GRAIN: usize = 1 << 13;
/// The cell range of a box that met no cell (before the first search).
const NOWHERE: Range = [1, 1, 0, 0];
/// Deepest grid kept: cell coordinates fit 16 bits.
pub const MAX_KEPT_DEPTH: u32 = 16;
/// The bits of a box's `info` holding its `sub` in its first column (at most
/// [`crate::key::MAX_SUB_BITS`] of them).
const SUB: u32 = 0xFF;
/// The bit of a box's `info` set when its cell range changed since the last
/// search.
const CHANGED: u32 = 1 << 31;

/// Flag bits of a word below its box index: [`LATER`], and bit 0 set for a
/// replicated box (as in every search's words).
const FLAGS: u32 = 2;
/// The flag of a word whose cell is past its box's first column (its `sub`
/// is 0).
const LATER: u64 = 2;

/// Cell range `[ix0, iy0, ix1, iy1]` of a box (at most [`MAX_KEPT_DEPTH`]).
type Range = [u16; 4];

/// The sorted entries of the last search, its grid and each box's cells.
#[derive(Clone, Debug)]
pub struct Kept {
    grid: Grid,
    lay: Layout,
    /// Bits below the key in a word: box index, then the later-column and
    /// replicated flags.
    shift: u32,
    /// Every entry's word, sorted.
    words: Vec<u64>,
    /// The merge's output buffer (kept between searches: no fresh pages).
    spare: Vec<u64>,
    /// Each box's cell range `[ix0, iy0, ix1, iy1]` (as of the last search,
    /// until [`Kept::scan`] brings it to the current boxes).
    ranges: Vec<Range>,
    /// Each box's `sub` in its first column, and [`CHANGED`].
    info: Vec<u32>,
    /// Searches since the grid was chosen.
    age: u32,
}

/// Cells of range `r` (none for an empty one).
#[inline(always)]
fn area(r: Range) -> usize {
    if r[0] > r[2] || r[1] > r[3] {
        0
    } else {
        // in usize: a range of all 2^16 columns would overflow u16
        (r[2] as usize - r[0] as usize + 1) * (r[3] as usize - r[1] as usize + 1)
    }
}

/// Whether range `r` holds cell `(cx, cy)`.
#[inline(always)]
fn holds(r: &Range, cx: u16, cy: u16) -> bool {
    (r[0] <= cx) & (cx <= r[2]) & (r[1] <= cy) & (cy <= r[3])
}

/// Cells both ranges hold.
#[inline(always)]
fn common(a: Range, b: Range) -> usize {
    area([
        a[0].max(b[0]),
        a[1].max(b[1]),
        a[2].min(b[2]),
        a[3].min(b[3]),
    ])
}

impl Kept {
    /// A new order for `boxes`: the grid a search from scratch would choose,
    /// every entry made and sorted.  When the grid is deeper than
    /// [`MAX_KEPT_DEPTH`] or a word cannot hold a key and a box index, the
    /// grid and the boxes' placement on it instead (for a search from
    /// scratch, which then uses wider records).
    fn new(boxes: &[[f64; 4]], ex: &Exec) -> Result<Kept, (Grid, Placement)> {
        let n = boxes.len();
        let (grid, place) = search::grid_for(boxes, bounds_of(boxes), ex);
        let lay = cells::layout(&grid, &place);
        let shift = usize::BITS - n.leading_zeros() + FLAGS; // k < n, then the flags
        if lay.width() + shift > 64 || grid.depth > MAX_KEPT_DEPTH {
            return Err((grid, place));
        }
        place.give_back();
        let mut kept = Kept {
            grid,
            lay,
            shift,
            words: Vec::new(),
            spare: Vec::new(),
            ranges: vec![NOWHERE; n],
            info: Vec::new(),
            age: 0,
        };
        kept.update(boxes, ex, None);
        Ok(kept)
    }

    /// The word of box `k` (first column `x0`, sub there `sub0`, replicated
    /// or not) in cell `(cx, cy)`.
    #[inline(always)]
    fn word(&self, cx: u16, cy: u16, x0: u16, sub0: u32, k: usize, rep: bool) -> u64 {
        let ck = self
            .lay
            .cell_key(encode(cx as u64, cy as u64), self.grid.depth);
        word(self.lay, self.shift, ck, cx == x0, sub0, k, rep)
    }

    /// The cell key of a word.
    #[inline(always)]
    fn cell(&self, w: u64) -> u64 {
        self.lay.cell(w >> self.shift)
    }

    /// Bring the words to `boxes` (as many as the last time).  With
    /// `give_up`, gives up when more new entries than `1 / give_up` of the
    /// old ones would come (returns `false`; the state is then to be let go).
    fn update(&mut self, boxes: &[[f64; 4]], ex: &Exec, give_up: Option<usize>) -> bool {
        let n = boxes.len();
        debug_assert_eq!(n, self.ranges.len());
        let bb = even_bounds(n, chunk_count(n, BOX_GRAIN, 256));
        let scanned = self.scan(boxes, &bb, ex);
        let added: usize = scanned.iter().map(|s| s.0).sum();
        if give_up.is_some_and(|g| added * g > self.words.len()) {
            return false;
        }
        let (wb, low) = self.keep(ex);
        let add = self.added(&scanned, ex);
        self.merge(&wb, &low, add, ex);
        if self.words.len() as f64 > search::grid_budget(n) {
            self.age = AGE; // crowded: the next search chooses a grid anew
        }
        true
    }

    /// Each box's `info`, and its range brought to its box; for each chunk
    /// of boxes (cut at `bb`), the new entries it will make and its boxes
    /// whose range changed, with their old range.
    fn scan(
        &mut self,
        boxes: &[[f64; 4]],
        bb: &[usize],
        ex: &Exec,
    ) -> Vec<(usize, Vec<(u32, Range)>)> {
        let n = boxes.len();
        self.info.resize(n, 0);
        let parts: Vec<_> = split_at_bounds(&mut self.ranges, bb)
            .into_iter()
            .zip(split_at_bounds(&mut self.info, bb))
            .collect();
        let (grid, lay) = (&self.grid, self.lay);
        ex.for_work(n, 2 * BOX_GRAIN)
            .each(parts, |c, (ranges, info)| {
                let mut added = 0;
                let mut changed = Vec::new();
                for (i, (range, inf)) in ranges.iter_mut().zip(info.iter_mut()).enumerate() {
                    let b = &boxes[bb[c] + i];
                    // at most 2^16 cells a side: the coordinates fit
                    let r = grid.cells_of(b).map(|v| v as u16);
                    // at the finest level: 2^0 finest cells a cell
                    let sub = lay
                        .position(grid.fine_x(b[0]), 1.0, r[0] as u32)
                        .min(lay.sub_top());
                    *inf = sub;
                    if r != *range {
                        added += area(r) - common(r, *range);
                        *inf |= CHANGED;
                        changed.push(((bb[c] + i) as u32, *range));
                        *range = r;
                    }
                }
                (added, changed)
            })
    }

    /// Update every word in place (new `sub` and flag; dropped where its box
    /// left the cell) and mend the order, in chunks of words cut at cell
    /// starts.  Returns each chunk's start and the number of words it kept
    /// (sorted, at its front), and its lowest cell key before the update
    /// (`u64::MAX` for an empty chunk at the end): the key range whose new
    /// entries [`Kept::merge`] gives it.
    fn keep(&mut self, ex: &Exec) -> (Vec<(usize, usize)>, Vec<u64>) {
        let m = self.words.len();
        let mut wb = even_bounds(m, chunk_count(m, WORD_GRAIN, 256));
        // a cell's run is never split: each inner bound moves to its cell's start
        for c in 1..wb.len() - 1 {
            let mut b = wb[c].max(wb[c - 1]);
            while b > 0 && b < m && self.cell(self.words[b]) == self.cell(self.words[b - 1]) {
                b += 1;
            }
            wb[c] = b;
        }
        let low: Vec<u64> = wb[..wb.len() - 1]
            .iter()
            .map(|&b| self.words.get(b).map_or(u64::MAX, |&w| self.cell(w)))
            .collect();
        let (lay, shift) = (self.lay, self.shift);
        let (info, ranges) = (&self.info, &self.ranges);
        let kept = ex
            .for_work(m, 2 * WORD_GRAIN)
            .chunks_mut(&mut self.words, &wb, |_, _, part| {
                keep_part(part, lay, shift, info, ranges)
            });
        let spans = wb.windows(2).zip(kept).map(|(w, k)| (w[0], k)).collect();
        (spans, low)
    }

    /// The entries of the cells each changed box newly meets, sorted (from
    /// [`Kept::scan`]'s chunks: how many, and which boxes, with their old
    /// ranges).
    fn added(&self, scanned: &[(usize, Vec<(u32, Range)>)], ex: &Exec) -> Vec<u64> {
        let mut fb = Vec::with_capacity(scanned.len() + 1);
        fb.push(0);
        for s in scanned {
            fb.push(fb[fb.len() - 1] + s.0);
        }
        let total = fb[scanned.len()];
        let mut add: Vec<u64> = scratch::filled(total, 0);
        ex.for_work(total, 2 * WORD_GRAIN)
            .chunks_mut(&mut add, &fb, |c, _, out| {
                let mut p = 0;
                for &(k, old) in &scanned[c].1 {
                    let k = k as usize;
                    let r = self.ranges[k];
                    let rep = (r[0] != r[2]) | (r[1] != r[3]);
                    let sub0 = self.info[k] & SUB;
                    for cy in r[1]..=r[3] {
                        for cx in r[0]..=r[2] {
                            if !holds(&old, cx, cy) {
                                out[p] = self.word(cx, cy, r[0], sub0, k, rep);
                                p += 1;
                            }
                        }
                    }
                }
                assert_eq!(p, out.len(), "a chunk makes the entries it counted");
            });
        radix::sort(add, self.shift, self.lay.width(), ex)
    }

    /// Merge the kept words of each chunk (`spans`: start and count) with
    /// the added ones of its cells (from its lowest cell key in `low` to the
    /// next chunk's) into `spare`, which becomes the words.
    fn merge(&mut self, spans: &[(usize, usize)], low: &[u64], add: Vec<u64>, ex: &Exec) {
        let nch = spans.len();
        let ab: Vec<usize> = (0..=nch)
            .map(|c| match c {
                0 => 0,
                c if c == nch => add.len(),
                c => add.partition_point(|&w| self.cell(w) < low[c]),
            })
            .collect();
        let mut ob = Vec::with_capacity(nch + 1);
        ob.push(0);
        for c in 0..nch {
            ob.push(ob[c] + spans[c].1 + ab[c + 1] - ab[c]);
        }
        // `keep` makes at least one chunk (an empty one for no words)
        debug_assert!(nch >= 1);
        let total = ob[nch];
        let mut out = std::mem::take(&mut self.spare);
        out.clear();
        out.resize(total, 0);
        let words = &self.words;
        ex.for_work(total, 2 * WORD_GRAIN)
            .chunks_mut(&mut out, &ob, |c, _, part| {
                let (s, k) = spans[c];
                merge_into(&words[s..s + k], &add[ab[c]..ab[c + 1]], part);
            });
        scratch::give(add);
        self.spare = std::mem::replace(&mut self.words, out);
    }

    /// The walk over the kept words: `(pairs, candidate tests)`.
    fn walk(
        &self,
        boxes: &[[f64; 4]],
        narrow: &Narrow,
        budget: &Budget,
        ex: &Exec,
    ) -> (Result<Vec<isize>, TooMany>, u64) {
        let v = Words {
            words: &self.words,
            shift: self.shift,
            flags: FLAGS,
        };
        let keys = Keys {
            grid: &self.grid,
            lay: self.lay,
        };
        cells::walk_sorted(&v, boxes, keys, narrow, budget, ex, &mut |_| {})
    }
}

/// The word of box `k` in the cell of key `ck`: in its first column (with
/// `sub0`, its minx's position there) or a later one (`sub` 0, [`LATER`]),
/// replicated or not.  The one place that lays a word out.
#[inline(always)]
fn word(lay: Layout, shift: u32, ck: u64, first: bool, sub0: u32, k: usize, rep: bool) -> u64 {
    let (sub, later) = if first { (sub0, 0) } else { (0, LATER) };
    (lay.entry_key(ck, sub) << shift) | ((k as u64) << FLAGS) | later | rep as u64
}

/// [`Kept::keep`] on one chunk of words: each updated or dropped, the kept
/// ones sorted into the chunk's front; their number.
fn keep_part(part: &mut [u64], lay: Layout, shift: u32, info: &[u32], ranges: &[Range]) -> usize {
    let mask = (1u64 << shift) - 1;
    let sub_field = (lay.sub_top() as u64) << shift;
    let mut o = 0;
    for i in 0..part.len() {
        let w = part[i];
        let k = ((w & mask) >> FLAGS) as usize;
        let inf = info[k];
        let sub0 = (inf & SUB) as u64;
        let nw = if inf & CHANGED == 0 {
            // same cells, same flags: only the first column's sub moves
            let sub = if w & LATER == 0 { sub0 } else { 0 };
            (w & !sub_field) | (sub << shift)
        } else {
            let r = &ranges[k];
            let ck = lay.cell(w >> shift);
            let (cx, cy) = decode(lay.start(ck));
            let (cx, cy) = (cx as u16, cy as u16);
            if !holds(r, cx, cy) {
                continue; // the box left this cell
            }
            let rep = (r[0] != r[2]) | (r[1] != r[3]);
            word(lay, shift, ck, cx == r[0], sub0 as u32, k, rep)
        };
        // insertion into the kept front part[..o] (o <= i: every slot
        // written here was read already); most words stay or move one
        // place, which the min/max does without a branch
        if o == 0 {
            part[0] = nw;
        } else {
            let prev = part[o - 1];
            let lo = prev.min(nw);
            part[o] = prev.max(nw);
            part[o - 1] = lo;
            // the front before o - 1 is sorted and at most prev: only a word
            // that moved one place may have to go further
            if o >= 2 && part[o - 2] > lo {
                let mut j = o - 1;
                while j > 0 && part[j - 1] > lo {
                    part[j] = part[j - 1];
                    j -= 1;
                }
                part[j] = lo;
            }
        }
        o += 1;
    }
    o
}

/// Merge sorted `a` and `b` (disjoint) into `out` (exactly their length).
pub(crate) fn merge_into(a: &[u64], b: &[u64], out: &mut [u64]) {
    let (mut i, mut j) = (0, 0);
    for o in out.iter_mut() {
        let take_a = j >= b.len() || (i < a.len() && a[i] < b[j]);
        *o = if take_a {
            i += 1;
            a[i - 1]
        } else {
            j += 1;
            b[j - 1]
        };
    }
}

/// What a caller keeps between searches: the kept order, or how many
/// searches from scratch remain before one is made again.
#[derive(Clone, Debug)]
pub struct State {
    kept: Option<Box<Kept>>,
    wait: u32,
    /// [`GIVE_UP`] (tests set 0: never give up, re-sort whatever moved).
    give_up: usize,
}

impl Default for State {
    fn default() -> State {
        State {
            kept: None,
            wait: 0,
            give_up: GIVE_UP,
        }
    }
}

impl State {
    /// Let the kept order go (its memory), to be made again by the next
    /// search.
    pub fn clear(&mut self) {
        self.kept = None;
        self.wait = 0;
    }

    /// Whether an order is kept.
    pub fn is_kept(&self) -> bool {
        self.kept.is_some()
    }
}

/// Every colliding pair of `boxes` (at least [`search::SWEEP_BELOW`] of
/// them, where `find_pairs` picks the grid), canonical, and the candidate
/// tests.  The entries are kept in `state` for the next call, which
/// re-sorts them when the boxes are as many and moved little (see the
/// module's derivation); when they moved more, the searches sort anew for
/// a few calls (`WAIT`) before an order is kept again.
pub fn find(
    boxes: &[[f64; 4]],
    narrow: &Narrow,
    max_pairs: Option<u64>,
    ex: &Exec,
    state: &mut State,
) -> (Result<Vec<isize>, TooMany>, u64) {
    let n = boxes.len();
    let budget = Budget::of(max_pairs);
    scratch::begin();
    // on the pool as a whole, as a search from scratch runs
    let out = ex.for_work(n, search::WHOLE_ON_POOL).install(|| {
        let reused = match state.kept.as_mut() {
            Some(k) if k.ranges.len() == n && k.age < AGE => {
                let kept = k.update(boxes, ex, Some(state.give_up));
                if !kept {
                    state.wait = WAIT;
                }
                kept
            }
            _ => false,
        };
        if !reused {
            state.kept = None;
            let made = if state.wait > 0 {
                state.wait -= 1;
                let (grid, place) = search::grid_for(boxes, bounds_of(boxes), ex);
                Err((grid, place))
            } else {
                Kept::new(boxes, ex)
            };
            match made {
                Ok(k) => state.kept = Some(Box::new(k)),
                Err((grid, place)) => {
                    // the search from scratch on the grid chosen
                    let tick = &mut |_| {};
                    let out = cells::find(boxes, &grid, &place, narrow, &budget, ex, tick);
                    place.give_back();
                    return out;
                }
            }
        }
        let k = state.kept.as_mut().expect("kept or returned above");
        k.age += 1;
        k.walk(boxes, narrow, &budget, ex)
    });
    scratch::end();
    out
}

#[cfg(test)]
impl Kept {
    /// The sorted words of a fresh entry pass over `boxes` on this grid:
    /// what the kept words must equal after a search of them.
    fn fresh_words(&self, boxes: &[[f64; 4]]) -> Vec<u64> {
        let mut v = Vec::new();
        for (k, b) in boxes.iter().enumerate() {
            let r = self.grid.cells_of(b).map(|v| v as u16);
            let sub = self
                .lay
                .position(self.grid.fine_x(b[0]), 1.0, r[0] as u32)
                .min(self.lay.sub_top());
            let rep = (r[0] != r[2]) | (r[1] != r[3]);
            for cy in r[1]..=r[3] {
                for cx in r[0]..=r[2] {
                    v.push(self.word(cx, cy, r[0], sub, k, rep));
                }
            }
        }
        v.sort_unstable();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naive;
    use crate::narrow::Filters;
    use crate::testing::lcg;
    use proptest::prelude::*;

    fn flat(p: &[(usize, usize)]) -> Vec<isize> {
        p.iter()
            .flat_map(|&(i, j)| [i as isize, j as isize])
            .collect()
    }

    /// `n` boxes in `[0, 1000)^2`: most of side about 10, a tenth of them
    /// ten times bigger, a few points.
    fn scene(n: usize, rnd: &mut impl FnMut() -> f64) -> Vec<[f64; 4]> {
        (0..n)
            .map(|k| {
                let (x, y) = (rnd() * 1000.0, rnd() * 1000.0);
                let s = match k % 10 {
                    0 => 100.0 * rnd(),
                    1 => 0.0,
                    _ => 5.0 + 10.0 * rnd(),
                };
                [x, y, x + s, y + s * (0.5 + rnd())]
            })
            .collect()
    }

    /// Every box shifted by up to `step` per axis.
    fn shifted(boxes: &[[f64; 4]], step: f64, rnd: &mut impl FnMut() -> f64) -> Vec<[f64; 4]> {
        boxes
            .iter()
            .map(|b| {
                let (dx, dy) = ((rnd() * 2.0 - 1.0) * step, (rnd() * 2.0 - 1.0) * step);
                [b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy]
            })
            .collect()
    }

    /// Entries as `(key, box << 1 | replicated)`.
    type KeyTags = Vec<(u64, u32)>;

    /// The kept words as `(key, box << 1 | replicated)`, and the same from
    /// the entry pass of a search from scratch on the kept grid and layout
    /// (`cells::fill`, then sorted).
    fn against_fill(k: &Kept, boxes: &[[f64; 4]]) -> (KeyTags, KeyTags) {
        let mask = (1u64 << k.shift) - 1;
        let got = k
            .words
            .iter()
            .map(|&w| {
                (
                    w >> k.shift,
                    ((((w & mask) >> FLAGS) << 1) | (w & 1)) as u32,
                )
            })
            .collect();
        let ex = Exec::serial();
        let place = crate::grid::place(boxes, &k.grid, &ex);
        let mut want = cells::fill(boxes, &k.grid, k.lay, &place, &ex, |key, i, rep| {
            (key, ((i as u32) << 1) | rep as u32)
        });
        want.sort_unstable();
        (got, want)
    }

    /// One search through `state`; with `verify`, its pairs against the
    /// naive ones, and the kept words (if any) against those of a fresh
    /// entry pass (this module's, with the later-column flags, and the
    /// search's own).  Returns the kept order's age (`None`: none kept).
    fn search(
        boxes: &[[f64; 4]],
        narrow: &Narrow,
        ex: &Exec,
        state: &mut State,
        verify: bool,
    ) -> Option<u32> {
        let (got, _) = find(boxes, narrow, None, ex, state);
        let k = state.kept.as_ref();
        if verify {
            assert_eq!(got.unwrap(), flat(&naive::pairs(boxes, narrow)));
            if let Some(k) = k {
                assert_eq!(k.words, k.fresh_words(boxes));
                let (words, fill) = against_fill(k, boxes);
                assert_eq!(words, fill);
                assert_eq!(k.ranges.len(), boxes.len());
            }
        }
        k.map(|k| k.age)
    }

    /// [`search`], verified.
    fn check(boxes: &[[f64; 4]], narrow: &Narrow, ex: &Exec, state: &mut State) -> Option<u32> {
        search(boxes, narrow, ex, state, true)
    }

    /// A floor spanning the world on the deepest grid kept: its range holds
    /// all 2^16 columns (counted in `usize`: in `u16` the count wrapped to 0
    /// and the new entries overflowed their chunk).  Then it moves.
    #[test]
    fn a_floor_as_wide_as_the_deepest_grid() {
        let n = 29_999;
        let mut boxes: Vec<[f64; 4]> = (0..n)
            .map(|k| {
                let x = k as f64 * (400_000.0 / n as f64);
                let y = if k % 1000 == 0 { 0.0 } else { 1.0 };
                [x, y, x + 1.0, y + 1.0]
            })
            .collect();
        boxes.push([0.0, 0.0, 400_000.0, 0.5]);
        let ex = Exec::new(Some(2));
        let mut state = State::default();
        assert_eq!(check(&boxes, &Narrow::default(), &ex, &mut state), Some(1));
        let k = state.kept.as_ref().unwrap();
        assert_eq!((k.grid.depth, k.ranges[n][2]), (MAX_KEPT_DEPTH, u16::MAX));
        for b in boxes.iter_mut().step_by(50) {
            *b = [b[0] + 0.5, b[1] - 0.75, b[2] + 0.5, b[3] - 0.75];
        }
        assert_eq!(check(&boxes, &Narrow::default(), &ex, &mut state), Some(2));
    }

    /// Frames of many boxes moving a little (the kept order re-sorted, in
    /// several chunks of boxes and of words, on one thread and on two), a
    /// few of them leaving the grid's bounds (clamped into its border
    /// cells); then every box thrown far (too many new entries: searches
    /// from scratch for `WAIT` calls, then a new order); far moves again
    /// with the rule off.
    #[test]
    fn kept_words_are_a_fresh_sort_frame_after_frame() {
        let mut rnd = lcg(2024);
        let start = scene(24_000, &mut rnd);
        let plain = Narrow::default();
        for workers in [1, 2] {
            let ex = Exec::new(Some(workers));
            let mut rnd = lcg(7);
            let mut boxes = start.clone();
            let mut state = State::default();
            assert_eq!(check(&boxes, &plain, &ex, &mut state), Some(1));
            assert!(state.kept.as_ref().unwrap().words.len() > 4 * WORD_GRAIN);
            for frame in 1..4 {
                boxes = shifted(&boxes, 1.0, &mut rnd);
                assert_eq!(check(&boxes, &plain, &ex, &mut state), Some(frame + 1));
            }
            for b in boxes.iter_mut().step_by(97) {
                *b = [
                    b[0] * 1.2 - 100.0,
                    b[1] - 150.0,
                    b[2] * 1.2 - 100.0,
                    b[3] - 150.0,
                ];
            }
            assert_eq!(check(&boxes, &plain, &ex, &mut state), Some(5));
            boxes = scene(boxes.len(), &mut rnd);
            assert_eq!(check(&boxes, &plain, &ex, &mut state), None, "gave up");
            for _ in 1..WAIT {
                boxes = shifted(&boxes, 1.0, &mut rnd);
                assert_eq!(search(&boxes, &plain, &ex, &mut state, false), None);
            }
            assert_eq!(
                check(&boxes, &plain, &ex, &mut state),
                Some(1),
                "kept again"
            );
            boxes = shifted(&boxes, 1.0, &mut rnd);
            assert_eq!(check(&boxes, &plain, &ex, &mut state), Some(2));
            // far moves re-sorted all the same (the rule off): the re-sort of
            // many changed cells, across chunks
            state.give_up = 0;
            boxes = shifted(&boxes, 6.0, &mut rnd);
            assert_eq!(check(&boxes, &plain, &ex, &mut state), Some(3));
            boxes = scene(boxes.len(), &mut rnd);
            assert_eq!(check(&boxes, &plain, &ex, &mut state), Some(4));
        }
    }

    /// The grid is chosen anew after `AGE` searches and when the number of
    /// boxes changes; filters reach the walk.
    #[test]
    fn a_kept_order_ages_and_follows_the_count() {
        let mut rnd = lcg(99);
        let mut boxes = scene(2000, &mut rnd);
        let groups: Vec<i64> = (0..boxes.len() as i64).map(|k| k % 3).collect();
        let narrow = Narrow {
            filters: Filters {
                groups: Some(&groups),
                ..Filters::default()
            },
            ..Narrow::default()
        };
        let ex = Exec::new(Some(2));
        let mut state = State::default();
        for frame in 0..AGE + 3 {
            boxes = shifted(&boxes, 0.5, &mut rnd);
            let verify = frame % 16 == 0 || frame % AGE == 0;
            let age = search(&boxes, &narrow, &ex, &mut state, verify);
            assert_eq!(age, Some(frame % AGE + 1));
        }
        boxes.truncate(1500);
        assert_eq!(check(&boxes, &Narrow::default(), &ex, &mut state), Some(1));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Boxes on a coarse lattice (ties, touching edges, points) moved
        /// by whole lattice steps, some far: every frame exact, the kept
        /// words a fresh sort.
        #[test]
        fn lattice_frames(
            raw in proptest::collection::vec((0i32..40, 0i32..40, 0i32..8, 0i32..8), 2..300),
            moves in proptest::collection::vec(
                proptest::collection::vec((-3i32..4, -3i32..4, 0u8..12), 1..300), 1..5),
        ) {
            let mut boxes: Vec<[f64; 4]> = raw
                .iter()
                .map(|&(x, y, w, h)| [x as f64, y as f64, (x + w) as f64, (y + h) as f64])
                .collect();
            let ex = Exec::new(Some(2));
            // re-sorted however far the boxes move (a test of the re-sort,
            // not of when it pays)
            let mut state = State { give_up: 0, ..State::default() };
            check(&boxes, &Narrow::default(), &ex, &mut state);
            for (frame, m) in moves.iter().enumerate() {
                for (b, &(dx, dy, far)) in boxes.iter_mut().zip(m.iter().cycle()) {
                    let s = if far == 0 { 10.0 } else { 1.0 };
                    let (dx, dy) = (dx as f64 * s, dy as f64 * s);
                    *b = [b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy];
                }
                // kept: re-sorted, or made anew when crowded cells asked for
                // another grid
                let age = check(&boxes, &Narrow::default(), &ex, &mut state);
                prop_assert!(age.is_some(), "frame {}", frame);
            }
        }
    }
}
