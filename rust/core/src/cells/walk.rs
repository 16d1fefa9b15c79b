//! The walk over entries sorted by key: the ancestor stack, the parallel
//! chunks, and the choice to count the pairs first.
//!
//! Invariant: while cell `c` is walked, the stack holds exactly the entries
//! of `c`'s ancestors, root first (a chunk starts by pushing those of its
//! first cell, found by binary search among the earlier cells).  The chunks
//! are balanced by entries and fixed by the data, and the pairs end in
//! canonical order, so the result does not depend on the threads.

use super::entry::{holds, index_of, later_pairs, replicated, Ent};
use super::records::View;
use super::Tick;
use crate::dim::{hi, Row};
use crate::hints::prefetch;
use crate::key::{self, Layout};
use crate::morton::corner_of;
use crate::narrow::{boxes_overlap, Narrow};
use crate::pairs::{canonical, finish, Buckets, Budget, Sink, TooMany, LOOK_EVERY};
use crate::par::{balanced, chunk_count, Exec, MAX_CHUNKS};
use crate::scratch;
use crate::world::Grid;

/// The cells in walk order: where each one's entries start (then the
/// total) and its cell key.
fn cells_of<V: View + ?Sized, R: Row>(v: &V, lay: Layout<R>, m: usize) -> (Vec<usize>, Vec<u64>) {
    let mut first = scratch::take(m / 2 + 1);
    let mut ckeys = scratch::take(m / 2 + 1);
    let mut last = u64::MAX;
    for e in 0..m {
        let ck = lay.cell(v.key(e));
        if ck != last {
            first.push(e);
            ckeys.push(ck);
            last = ck;
        }
    }
    first.push(m);
    (first, ckeys)
}

/// Most entries on the ancestor stack at any point of the walk, and the
/// number of candidate tests the walk will make without its early stops (an
/// upper bound of the pairs it can find).
fn max_stack<R: Row>(first: &[usize], ckeys: &[u64], lay: Layout<R>) -> (usize, f64) {
    let mut stack: Vec<(u64, usize)> = Vec::with_capacity(lay.depth as usize + 2);
    let (mut size, mut most, mut tests) = (0, 0, 0.0);
    for (c, &ck) in ckeys.iter().enumerate() {
        let start = lay.start(ck);
        while let Some(&(end, cnt)) = stack.last() {
            if end > start {
                break;
            }
            stack.pop();
            size -= cnt;
        }
        let cnt = first[c + 1] - first[c];
        tests += cnt as f64 * ((cnt as f64 - 1.0) / 2.0 + size as f64);
        stack.push((start + lay.span(lay.level(ck)), cnt));
        size += cnt;
        most = most.max(size);
    }
    (most, tests)
}

/// Candidate tests from which a walk first checks that its pairs fit.
const CHECK_FROM: f64 = 1e7;
/// Candidate tests per box from which counting the pairs first can cost
/// less than the walk: the count (`crate::count::box_pairs`) sorts the boxes
/// and sweeps them with trees of counts, which per box costs what many
/// candidate tests of the walk do (docs/design/search.md, "Too many pairs").
const COUNT_FROM_PER_BOX: f64 = 1000.0;

/// Whether a walk of `candidates` tests (an upper bound, without the early
/// stops) over `n` boxes first counts the pairs, to answer [`TooMany`]
/// without walking: only when the pairs may not fit the budget's `limit`
/// and the walk would be far longer than the count.  (The walk itself
/// stores up to the limit and counts the rest, exactly, so this only saves
/// time: uniform boxes, tens of candidates a box and pairs far below the
/// limit, once went through the count whenever their candidates' bound
/// passed it, at 4e7 boxes seventy times the whole search.)
///
/// The limit is asked for last: reading the available memory costs more than
/// a small search.
pub(crate) fn worth_counting_first(candidates: f64, n: usize, limit: impl FnOnce() -> u64) -> bool {
    candidates > CHECK_FROM
        && candidates > COUNT_FROM_PER_BOX * n as f64
        && candidates > limit() as f64
}

/// The grid a search quantizes into and the layout of its entries' keys.
#[derive(Clone, Copy)]
pub(super) struct Keys<'a, R: Row> {
    pub(super) grid: &'a Grid<R>,
    pub(super) lay: Layout<R>,
}

/// The walk over entries sorted by key: `(pairs, candidate tests)`.
pub(super) fn walk_sorted<V: View + ?Sized, const N: usize>(
    v: &V,
    boxes: &[[f64; N]],
    keys: Keys<[f64; N]>,
    narrow: &Narrow,
    budget: &Budget,
    ex: &Exec,
    tick: Tick,
) -> (Result<Vec<isize>, TooMany>, u64)
where
    [f64; N]: Row,
    Ent<[f64; N]>: scratch::Pooled,
{
    let Keys { grid, lay } = keys;
    let m = v.count();
    if m == 0 {
        return (Ok(Vec::new()), 0);
    }
    let ex = ex.for_work(m, 1 << 13);
    let mut ents: Vec<Ent<[f64; N]>> = scratch::take(m);
    ex.collect_into(&mut ents, m, 1 << 12, |e| gather(v, boxes, keys, e));
    tick("gather");
    let (first, ckeys) = cells_of(v, lay, m);
    let (most, candidates) = max_stack(&first, &ckeys, lay);
    // (the count is 2D: a 3D walk stores up to the limit and counts the rest)
    if N == 4
        && narrow.is_trivial()
        && worth_counting_first(candidates, boxes.len(), || budget.limit())
    {
        // Could the pairs outgrow memory?  Count them first, in O(n log n).
        // N == 4: the same rows seen as 2D boxes, not a copy
        let count = crate::count::box_pairs(boxes.as_flattened().as_chunks::<4>().0);
        if count > budget.limit() {
            scratch::give(ents);
            scratch::give(first);
            scratch::give(ckeys);
            return (Err(TooMany(count)), 0);
        }
    }
    let nch = chunk_count(m, 1024, MAX_CHUNKS); // a few chunks per thread: balance
    let cb = balanced(&first, nch);
    let w = Walk {
        ckeys: &ckeys,
        first: &first,
        ents: &ents,
        grid,
        lay,
        narrow,
        most,
    };
    let trivial = narrow.is_trivial();
    // The pairs end in canonical order and the tests are summed: which
    // chunks share a sink changes neither.
    let buckets = Buckets::for_objects(boxes.len());
    let results = ex.fold(
        nch,
        || (Sink::new(budget, buckets), 0u64),
        |(out, tests), c| {
            *tests += if trivial {
                w.chunk::<true>(out, cb[c], cb[c + 1])
            } else {
                w.chunk::<false>(out, cb[c], cb[c + 1])
            };
        },
    );
    tick("walk");
    let tests = results.iter().map(|r| r.1).sum();
    let sinks = results.into_iter().map(|r| r.0).collect();
    scratch::give(ents);
    scratch::give(first);
    scratch::give(ckeys);
    let out = finish(sinks).map(|chunks| canonical(&chunks, boxes.len(), &ex));
    tick("canonical order");
    (out, tests)
}

/// Entry `e` of the sorted `v`, with its box from `boxes`.
#[inline(always)]
fn gather<V: View + ?Sized, const N: usize>(
    v: &V,
    boxes: &[[f64; N]],
    keys: Keys<[f64; N]>,
    e: usize,
) -> Ent<[f64; N]>
where
    [f64; N]: Row,
{
    let Keys { grid, lay } = keys;
    // the boxes come in random order: ask for one a few entries ahead
    if e + 12 < v.count() {
        prefetch(&boxes[index_of(v.tag(e + 12))]);
    }
    let tag = v.tag(e);
    let b = boxes[index_of(tag)];
    Ent {
        b,
        q: grid.corner_of(&b),
        tag,
        sub: lay.sub(v.key(e)),
    }
}

struct Walk<'a, const N: usize>
where
    [f64; N]: Row,
{
    ckeys: &'a [u64],
    first: &'a [usize],
    ents: &'a [Ent<[f64; N]>],
    grid: &'a Grid<[f64; N]>,
    lay: Layout<[f64; N]>,
    narrow: &'a Narrow<'a>,
    most: usize,
}

impl<const N: usize> Walk<'_, N>
where
    [f64; N]: Row,
{
    fn cell_key_at(&self, c: usize) -> u64 {
        self.ckeys[c]
    }

    /// Walk cells `c0..c1`: their pairs into `out`, and the candidate tests.
    fn chunk<const T: bool>(&self, out: &mut Sink, c0: usize, c1: usize) -> u64 {
        let depth = self.grid.depth;
        let lay = self.lay;
        let ents = self.ents;
        let first = self.first;
        let narrow = self.narrow;
        let mut stack: Vec<Ent<[f64; N]>> = Vec::with_capacity(self.most);
        // end code and entry count of each stacked cell
        let mut cells: Vec<(u64, usize)> = Vec::with_capacity(depth as usize + 2);
        let mut tests = 0u64;
        let mut next_look = LOOK_EVERY;
        if c0 < c1 && lay.levels_vary() {
            let ck0 = self.cell_key_at(c0);
            let start0 = lay.start(ck0);
            for lv in 0..lay.level(ck0) {
                let sh = lay.shift(depth - lv);
                let akey = lay.cell_key(start0 >> sh, lv);
                let (mut lo, mut hi) = (0, c0); // first cell before c0 with key >= akey
                while lo < hi {
                    let mid = (lo + hi) / 2;
                    if self.cell_key_at(mid) < akey {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                if lo < c0 && self.cell_key_at(lo) == akey {
                    stack.extend_from_slice(&ents[first[lo]..first[lo + 1]]);
                    cells.push((((start0 >> sh) + 1) << sh, first[lo + 1] - first[lo]));
                }
            }
        }
        for cc in c0..c1 {
            let (b, e_end) = (first[cc], first[cc + 1]);
            let ck = self.cell_key_at(cc);
            let start = lay.start(ck);
            let s = depth - lay.level(ck);
            let inv2s = key::inv_pow2(s);
            let corner = corner_of::<[f64; N]>(start);
            let cx = corner.as_ref()[0];
            while let Some(&(end, cnt)) = cells.last() {
                if end > start {
                    break;
                }
                cells.pop();
                stack.truncate(stack.len() - cnt);
            }
            let own = &ents[b..e_end];
            for (t, u) in own.iter().enumerate() {
                out.check_stop_at(tests, &mut next_look);
                let iu = u.id();
                // no later entry of this cell overlaps once one starts past u's maxx
                let umax = lay.position(self.grid.fine_x(hi(&u.b, 0)), inv2s, cx >> s);
                tests += stack.len() as u64;
                // Own cell, later entries.  Two boxes can share several cells
                // only if both are replicated, and only a replicated deeper
                // entry can meet the same ancestor object twice: an entry of a
                // box entered once needs no reference point.
                let later = &own[t + 1..];
                if !replicated(u.tag) {
                    tests += later_pairs::<T, N>(u, later, |v| v.sub > umax, None, narrow, out);
                    for w in &stack {
                        let keep = boxes_overlap(&u.b, &w.b);
                        out.emit(
                            narrow.judge::<T>(keep, iu as usize, w.id() as usize),
                            iu,
                            w.id(),
                        );
                    }
                    continue;
                }
                let at = Some((&corner, s));
                tests += later_pairs::<T, N>(u, later, |v| v.sub > umax, at, narrow, out);
                for w in &stack {
                    let keep = boxes_overlap(&u.b, &w.b) & holds(u, w, &corner, s);
                    out.emit(
                        narrow.judge::<T>(keep, iu as usize, w.id() as usize),
                        iu,
                        w.id(),
                    );
                }
            }
            if s == 0 {
                continue; // a finest cell has no descendants: nothing to push
            }
            stack.extend_from_slice(own);
            cells.push((start + lay.span(lay.level(ck)), own.len()));
        }
        tests
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counting_first_only_when_the_walk_would_be_far_longer() {
        // 60,000 identical boxes: 1.8e9 candidates, pairs beyond a small budget
        assert!(worth_counting_first(1.8e9, 60_000, || 1_000_000));
        // ... within the budget: the walk stores them all
        assert!(!worth_counting_first(1.8e9, 60_000, || 2_000_000_000));
        // 40 million uniform boxes, 1.4e9 candidates, 8e7 pairs: walk, store
        // up to the limit and count the rest if need be
        assert!(!worth_counting_first(1.4e9, 40_000_000, || 500_000_000));
        assert!(!worth_counting_first(1.4e9, 40_000_000, || 10_000_000));
        // few candidates: never, and the limit (the available memory, slow
        // to read) is not even asked for
        assert!(!worth_counting_first(5e6, 1_000, || unreachable!()));
        assert!(!worth_counting_first(5e8, 1_000_000, || unreachable!()));
    }
}
