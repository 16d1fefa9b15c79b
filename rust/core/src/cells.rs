//! The linear quadtree walk shared by the quadtree and the grid (seeds 000-002).
//!
//! # Derivation
//! Quantize the square world into a `2^L` grid.  Seed 001 puts each box in
//! the smallest cell containing it: the highest non-zero 2-bit group of the
//! XOR of its corner codes gives the level `l`, the corner code
//! `>> 2(L - l)` the cell.  A cell's candidates are its own objects and
//! those of its ancestors, so one pre-order walk that keeps the ancestors'
//! objects on a stack (pushed on the way down, popped on the way up) tests
//! every pair whose cells nest, once.
//!
//! Pre-order without a tree: the sort key of [`crate::key`] lists every cell
//! right before its descendants, ancestors first: the seeds' linear array in
//! the order of the walk, holding only the cells in use (memory O(n) for any
//! L).  Cell `(d, c)` covers finest codes `[c << 2(L-d), (c + 1) << 2(L-d))`:
//! an entry on the stack is an ancestor of the current cell iff the current
//! start is below its end, so popping is a comparison.
//!
//! # Replicas and the reference point
//! A placement ([`crate::quadtree`], [`crate::grid`]) may enter a box in
//! several cells of one level (at most 2 x 2 for the quadtree, all the cells
//! it covers for the grid).  A pair can then be seen from several cell
//! combinations; it is kept only where the deeper cell contains the
//! reference point `P = (max(ix0_a, ix0_b), max(iy0_a, iy0_b))` on the
//! integer grid.  Quantization is monotone, so `P` lies in both boxes'
//! integer ranges whenever they truly overlap: each box has exactly one
//! replica holding `P`, the two nest, and the pair is reported exactly once.
//! Pairs of unreplicated boxes are seen once anyway and skip the check.
//!
//! # Early stop inside a cell
//! Inside a cell the entries are ordered by their minx's position in the
//! cell (the key's `sub` field, a monotone function of minx at the
//! resolution [`crate::key::Layout`] gives it), so the test of an entry
//! against the later entries of its cell stops at the first one whose
//! position exceeds that of its maxx: that one, and all after it, start to
//! the right of it.  With coarse positions the stop comes later, never too
//! early.
//!
//! # Parallel walk
//! The cells are cut into chunks of about equal entries, fixed by the data.
//! A chunk starts by pushing the entries of its first cell's ancestors
//! (found by binary search among the earlier cells), then proceeds exactly
//! like the whole walk would.  Invariant: the stack holds exactly the entries
//! of the current cell's ancestors, root first.
//!
//! Complexity: O(m) radix sort of the m entries, and a walk costing O(m + T)
//! where T, the candidate tests, counts for each entry the entries of its
//! own and its ancestor cells.

use crate::hints::prefetch;
use crate::key::{self, Layout};
use crate::morton::{decode, encode};
use crate::narrow::{boxes_overlap, Narrow};
use crate::pairs::{canonical, finish, Buckets, Budget, Sink, TooMany};
use crate::par::{balanced, chunk_count, even_bounds, Exec, MAX_CHUNKS};
use crate::radix;
use crate::scratch::{self, Pooled};
use crate::world::Grid;

/// Tag bit of an entry whose box is entered in more than one cell.
const REPLICA: u32 = 1 << 31;

/// Where the boxes go: each one's level, and how many entries each chunk of
/// boxes makes (the chunks fixed by the data: [`Placement::chunks`]).
///
/// A box at level `l` enters every level-`l` cell its integer range meets
/// (1 to 4 for the quadtree, any number for the grid); the entry pass
/// recomputes the cells, so only the level is stored per box, and only where
/// it varies.
#[derive(Clone, Debug)]
pub struct Placement {
    /// Level of each box, or empty when every box is at the grid's depth.
    pub levels: Vec<u8>,
    /// First box of each chunk, then the number of boxes.
    pub bounds: Vec<usize>,
    /// First entry of each chunk, then the number of entries.
    pub starts: Vec<usize>,
}

impl Placement {
    /// Box chunks of a placement pass over `n` boxes.
    pub fn chunks(n: usize) -> Vec<usize> {
        even_bounds(n, chunk_count(n, BOX_GRAIN, MAX_CHUNKS))
    }

    /// A placement from the levels (empty: all at the depth) and each
    /// chunk's entry count.
    pub fn new(levels: Vec<u8>, bounds: Vec<usize>, counts: &[u64]) -> Placement {
        let mut starts = Vec::with_capacity(counts.len() + 1);
        let mut at = 0usize;
        starts.push(0);
        for &c in counts {
            at = at.saturating_add(usize::try_from(c).unwrap_or(usize::MAX));
            starts.push(at);
        }
        Placement {
            levels,
            bounds,
            starts,
        }
    }

    /// Cells of a level `2^s` finest cells wide that the integer range `q`
    /// (`[ix0, iy0, ix1, iy1]`) meets: the entries of a box placed there.
    #[inline(always)]
    pub fn cells_met(q: [u32; 4], s: u32) -> u64 {
        ((q[2] >> s) - (q[0] >> s) + 1) as u64 * ((q[3] >> s) - (q[1] >> s) + 1) as u64
    }

    /// Total entries, as a float (cannot wrap around for any count).
    pub fn total(&self) -> f64 {
        self.starts.last().map_or(0.0, |&t| t as f64)
    }

    /// Level of box `k` on a grid of `depth`.
    #[inline(always)]
    fn level(&self, k: usize, depth: u32) -> u32 {
        if self.levels.is_empty() {
            depth
        } else {
            self.levels[k] as u32
        }
    }

    /// Return the buffers to the scratch pool.
    pub fn give_back(self) {
        scratch::give(self.levels);
    }
}

/// One entry of a box in a cell, in walk order.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ent {
    /// The box.
    b: [f64; 4],
    /// Integer min corner of the box (for the reference point).
    qx: u32,
    qy: u32,
    /// Object index, with [`REPLICA`] set for replicated boxes.
    tag: u32,
    /// Position of minx inside the cell (the key's low bits).
    sub: u32,
}

scratch::pooled!(Ent);

impl Ent {
    /// The entry of box `k` (replicated or not) in a cell of a grid, its
    /// min corner in cell `(qx, qy)` (no in-cell position: the tree's kept
    /// order sorts a cell's entries by their minx, [`sort_by_minx`]).
    #[inline(always)]
    pub(crate) fn on_grid(b: [f64; 4], qx: u32, qy: u32, k: usize, rep: bool) -> Ent {
        Ent {
            b,
            qx,
            qy,
            tag: k as u32 | if rep { REPLICA } else { 0 },
            sub: 0,
        }
    }

    /// The object's index.
    #[inline(always)]
    pub(crate) fn id(&self) -> u32 {
        self.tag & !REPLICA
    }
}

/// Fewest in-cell position bits of the grid's keys.
const GRID_MIN_SUB: u32 = 4;
/// Fewest in-cell position bits of the quadtree's keys.
const QUADTREE_MIN_SUB: u32 = 2;

/// Fewest boxes per chunk of the placement and entry passes.
const BOX_GRAIN: usize = 1 << 12;

/// The entries of every (box, cell), as sort records.
///
/// Words when the key and the payload fit in 64 bits together: the key
/// above bit `shift`, and below it `k << 1 | replicated` for box `k` (the
/// usual case: up to depth 14 for a million boxes).  Else `(key, tag)` pairs.
enum Entries {
    Words { words: Vec<u64>, shift: u32 },
    Pairs(Vec<(u64, u32)>),
}

/// Read access to sorted entries: each one's key and tag.
trait View: Sync {
    fn count(&self) -> usize;
    fn key(&self, e: usize) -> u64;
    fn tag(&self, e: usize) -> u32;
}

struct Words<'a> {
    words: &'a [u64],
    /// Bits below the key: the box index, then the replicated flag.
    shift: u32,
}

impl View for Words<'_> {
    fn count(&self) -> usize {
        self.words.len()
    }

    #[inline(always)]
    fn key(&self, e: usize) -> u64 {
        self.words[e] >> self.shift
    }

    #[inline(always)]
    fn tag(&self, e: usize) -> u32 {
        let p = self.words[e] & ((1u64 << self.shift) - 1);
        (p >> 1) as u32 | if p & 1 != 0 { REPLICA } else { 0 }
    }
}

impl View for [(u64, u32)] {
    fn count(&self) -> usize {
        self.len()
    }

    #[inline(always)]
    fn key(&self, e: usize) -> u64 {
        self[e].0
    }

    #[inline(always)]
    fn tag(&self, e: usize) -> u32 {
        self[e].1
    }
}

/// The records of every (box, cell) entry, in box order.
fn entries(boxes: &[[f64; 4]], grid: &Grid, lay: Layout, place: &Placement, ex: &Exec) -> Entries {
    let n = boxes.len();
    let width = lay.width();
    let shift = usize::BITS - n.leading_zeros() + 1; // k < n, then the replica bit
    if width + shift <= 64 {
        let words = fill(boxes, grid, lay, place, ex, |key, k, rep| {
            (key << shift) | ((k as u64) << 1) | rep as u64
        });
        Entries::Words { words, shift }
    } else {
        Entries::Pairs(fill(boxes, grid, lay, place, ex, |key, k, rep| {
            (key, k as u32 | if rep { REPLICA } else { 0 })
        }))
    }
}

/// `make(key, box, replicated)` for every (box, cell) entry, in box order.
pub(crate) fn fill<T: Pooled + Copy + Default + Send>(
    boxes: &[[f64; 4]],
    grid: &Grid,
    lay: Layout,
    place: &Placement,
    ex: &Exec,
    make: impl Fn(u64, usize, bool) -> T + Sync + Send,
) -> Vec<T> {
    let n = boxes.len();
    let bb = &place.bounds;
    let eb = &place.starts;
    let mut recs = scratch::filled(eb[eb.len() - 1], T::default());
    let depth = grid.depth;
    ex.for_work(n, 2 * BOX_GRAIN)
        .chunks_mut(&mut recs, eb, |c, _, out| {
            let mut p = 0;
            for (k, b) in boxes.iter().enumerate().take(bb[c + 1]).skip(bb[c]) {
                let [ix0, iy0, ix1, iy1] = grid.cells_of(b);
                let t0 = grid.fine_x(b[0]);
                let lv = place.level(k, depth);
                let s = depth - lv;
                let inv2s = key::inv_pow2(s);
                let (cx0, cx1, cy0, cy1) = (ix0 >> s, ix1 >> s, iy0 >> s, iy1 >> s);
                let rep = (cx0 != cx1) | (cy0 != cy1);
                for cy in cy0..=cy1 {
                    for cx in cx0..=cx1 {
                        let sub = lay.position(t0, inv2s, cx).min(lay.sub_top());
                        let ck = lay.cell_key(encode(cx as u64, cy as u64), lv);
                        out[p] = make(lay.entry_key(ck, sub), k, rep);
                        p += 1;
                    }
                }
            }
        });
    recs
}

/// The key layout of the entries of `place` on `grid`.
pub(crate) fn layout(grid: &Grid, place: &Placement) -> Layout {
    let varying = !place.levels.is_empty();
    let min_sub = if varying {
        QUADTREE_MIN_SUB
    } else {
        GRID_MIN_SUB
    };
    Layout::new(
        grid.depth,
        varying,
        radix::digit_bits(place.total() as usize),
        min_sub,
    )
}

/// Every colliding pair of boxes placed by `place` on `grid`, canonical.
///
/// Returns the flat pairs and the number of candidate tests.
pub fn find(
    boxes: &[[f64; 4]],
    grid: &Grid,
    place: &Placement,
    narrow: &Narrow,
    budget: &Budget,
    ex: &Exec,
    tick: Tick,
) -> (Result<Vec<isize>, TooMany>, u64) {
    // Each entry is tested against the later entries of its cell up to the
    // first that starts past it: positions make that stop early.  A few
    // position bits already stop it near the right place; when the key
    // leaves fewer in its last digit, a whole sort pass buys them.  The
    // grid's cells hold more entries than the quadtree's (a quadtree box
    // sits where it spans at least a quarter of its cell), so it asks more.
    let lay = layout(grid, place);
    let recs = entries(boxes, grid, lay, place, ex);
    let keys = Keys { grid, lay };
    tick("entries");
    let width = lay.width();
    match recs {
        Entries::Words { words, shift } => {
            let words = radix::sort(words, shift, width, ex);
            tick("radix sort");
            let v = Words {
                words: &words,
                shift,
            };
            let out = walk_sorted(&v, boxes, keys, narrow, budget, ex, tick);
            scratch::give(words);
            out
        }
        Entries::Pairs(pairs) => {
            let pairs = radix::sort(pairs, 0, width, ex);
            tick("radix sort");
            let out = walk_sorted(&pairs[..], boxes, keys, narrow, budget, ex, tick);
            scratch::give(pairs);
            out
        }
    }
}

/// A stage hook: called with the name of each stage as it ends (a
/// benchmark's timer; a no-op otherwise).
pub type Tick<'a> = &'a mut (dyn FnMut(&'static str) + Send);

/// The cells in walk order: where each one's entries start (then the
/// total) and its cell key.
fn cells_of<V: View + ?Sized>(v: &V, lay: Layout, m: usize) -> (Vec<usize>, Vec<u64>) {
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
fn max_stack(first: &[usize], ckeys: &[u64], lay: Layout) -> (usize, f64) {
    let depth = lay.depth;
    let mut stack: Vec<(u64, usize)> = Vec::with_capacity(depth as usize + 2);
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
        stack.push((start + (1u64 << (2 * (depth - lay.level(ck)))), cnt));
        size += cnt;
        most = most.max(size);
    }
    (most, tests)
}

/// Candidate tests from which a walk first checks that its pairs fit.
const CHECK_FROM: f64 = 1e7;
/// Candidate tests per box from which counting the pairs first can cost
/// less than the walk: the count (`crate::count::box_pairs`) sorts the boxes
/// and sweeps them with trees of counts, a few thousand times a walk's test
/// per box once the boxes outgrow the caches (docs/benchmarks.md, "On the
/// Rust core (issue 19)").
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
struct Keys<'a> {
    grid: &'a Grid,
    lay: Layout,
}

/// The walk over entries sorted by key: `(pairs, candidate tests)`.
fn walk_sorted<V: View + ?Sized>(
    v: &V,
    boxes: &[[f64; 4]],
    keys: Keys,
    narrow: &Narrow,
    budget: &Budget,
    ex: &Exec,
    tick: Tick,
) -> (Result<Vec<isize>, TooMany>, u64) {
    let Keys { grid, lay } = keys;
    let m = v.count();
    if m == 0 {
        return (Ok(Vec::new()), 0);
    }
    let ex = ex.for_work(m, 1 << 13);
    let top = grid.top() as u64;
    let mut ents: Vec<Ent> = scratch::take(m);
    ex.collect_into(&mut ents, m, 1 << 12, |e| gather(v, boxes, keys, top, e));
    tick("gather");
    let (first, ckeys) = cells_of(v, lay, m);
    let (most, candidates) = max_stack(&first, &ckeys, lay);
    if narrow.is_trivial() && worth_counting_first(candidates, boxes.len(), || budget.limit()) {
        // Could the pairs outgrow memory?  Count them first, in O(n log n).
        let count = crate::count::box_pairs(boxes);
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
fn gather<V: View + ?Sized>(v: &V, boxes: &[[f64; 4]], keys: Keys, top: u64, e: usize) -> Ent {
    let Keys { grid, lay } = keys;
    // the boxes come in random order: ask for one a few entries ahead
    if e + 12 < v.count() {
        prefetch(&boxes[(v.tag(e + 12) & !REPLICA) as usize]);
    }
    let tag = v.tag(e);
    let b = boxes[(tag & !REPLICA) as usize];
    Ent {
        b,
        qx: crate::world::quantize(b[0], grid.x0, grid.sx, top) as u32,
        qy: crate::world::quantize(b[1], grid.y0, grid.sy, top) as u32,
        tag,
        sub: lay.sub(v.key(e)),
    }
}

struct Walk<'a> {
    ckeys: &'a [u64],
    first: &'a [usize],
    ents: &'a [Ent],
    grid: &'a Grid,
    lay: Layout,
    narrow: &'a Narrow<'a>,
    most: usize,
}

/// Does the cell at finest corner `(cx, cy)`, `2^s` finest cells wide, hold
/// the reference point of entries `a` and `b` (the max of their min corners)?
#[inline(always)]
fn holds(a: &Ent, b: &Ent, cx: u32, cy: u32, s: u32) -> bool {
    ((a.qx.max(b.qx) >> s) == (cx >> s)) & ((a.qy.max(b.qy) >> s) == (cy >> s))
}

impl Walk<'_> {
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
        let mut stack: Vec<Ent> = Vec::with_capacity(self.most);
        // end code and entry count of each stacked cell
        let mut cells: Vec<(u64, usize)> = Vec::with_capacity(depth as usize + 2);
        let mut tests = 0u64;
        if c0 < c1 && lay.levels_vary() {
            let ck0 = self.cell_key_at(c0);
            let start0 = lay.start(ck0);
            for lv in 0..lay.level(ck0) {
                let sh = 2 * (depth - lv);
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
            let (cx, cy) = decode(start);
            let (cx, cy) = (cx as u32, cy as u32);
            while let Some(&(end, cnt)) = cells.last() {
                if end > start {
                    break;
                }
                cells.pop();
                stack.truncate(stack.len() - cnt);
            }
            let own = &ents[b..e_end];
            for (t, u) in own.iter().enumerate() {
                let iu = u.id();
                // no later entry of this cell overlaps once one starts past u's maxx
                let umax = lay.position(self.grid.fine_x(u.b[2]), inv2s, cx >> s);
                tests += stack.len() as u64;
                // Own cell, later entries.  Two boxes can share several cells
                // only if both are replicated, and only a replicated deeper
                // entry can meet the same ancestor object twice: an entry of a
                // box entered once needs no reference point.
                let later = &own[t + 1..];
                if u.tag & REPLICA == 0 {
                    tests += later_pairs::<T>(u, later, |v| v.sub > umax, None, narrow, out);
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
                let at = Some((cx, cy, s));
                tests += later_pairs::<T>(u, later, |v| v.sub > umax, at, narrow, out);
                for w in &stack {
                    let keep = boxes_overlap(&u.b, &w.b) & holds(u, w, cx, cy, s);
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
            cells.push((start + (1u64 << (2 * s)), own.len()));
        }
        tests
    }
}

/// Test `u` against `later`, the entries after it in its cell, until
/// `past(v)` tells that `v` and every entry after it start right of `u`:
/// the pairs into `out`; returns the tests.  With `at` (`u` replicated: its
/// cell's finest corner and level shift), a pair of two replicated boxes is
/// kept only in the cell holding its reference point.
#[inline(always)]
fn later_pairs<const T: bool>(
    u: &Ent,
    later: &[Ent],
    past: impl Fn(&Ent) -> bool,
    at: Option<(u32, u32, u32)>,
    narrow: &Narrow,
    out: &mut Sink,
) -> u64 {
    let iu = u.id();
    let mut tests = 0;
    for v in later {
        if past(v) {
            break;
        }
        tests += 1;
        let here = match at {
            None => true,
            Some((cx, cy, s)) => (v.tag & REPLICA == 0) | holds(u, v, cx, cy, s),
        };
        let keep = boxes_overlap(&u.b, &v.b) & here;
        out.emit(
            narrow.judge::<T>(keep, iu as usize, v.id() as usize),
            iu,
            v.id(),
        );
    }
    tests
}

/// Sort one cell's entries by their minx ([`crate::nearly`]): the nearly
/// sorted cells of a kept order (each entry moves a place or two from one
/// frame to the next) cost an insertion sort, a cell out of order (as when
/// an order is made) never more than O(c log c).
#[inline]
pub(crate) fn sort_by_minx(a: &mut [Ent]) {
    crate::nearly::sort_by_key(a, |e| e.b[0]);
}

/// The pairs among the entries `own` of grid cell `(cx, cy)` (one level:
/// no ancestors), sorted by minx ([`sort_by_minx`]), into `out`; returns
/// the candidate tests.
///
/// The early stop compares the boxes themselves: once an entry starts at or
/// past `u`'s maxx, it and every later one miss `u` (the box test is
/// strict), so the stop is exact and needs no in-cell position.  A pair of
/// two replicated boxes is kept only in the cell holding its reference
/// point, as in the walk over sorted entries.
pub(crate) fn grid_cell_pairs<const T: bool>(
    own: &[Ent],
    cx: u32,
    cy: u32,
    narrow: &Narrow,
    out: &mut Sink,
) -> u64 {
    let mut tests = 0u64;
    for (t, u) in own.iter().enumerate() {
        let umax = u.b[2];
        let at = (u.tag & REPLICA != 0).then_some((cx, cy, 0));
        tests += later_pairs::<T>(u, &own[t + 1..], |v| v.b[0] >= umax, at, narrow, out);
    }
    tests
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
