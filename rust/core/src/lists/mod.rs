//! Per-cell lists of objects, each cell's entries in one run: the moving tree's cells.
//!
//! Seeds 001 and 002 keep each cell's objects in a doubly linked list of
//! one node per object, so that moving an object to another cell is O(1).
//! Walking such a list jumps to a random address per object: on a machine
//! whose memory answers in ~100 ns that is the whole cost of a query (an
//! object's neighbours were 40 list nodes in 40 places).  Unrolling the list
//! into linked blocks of a few entries, each carrying a copy of its object's
//! box, cut that to one jump per block; but the blocks of a cell are still
//! found one from the other, each jump waiting for the block before it.
//!
//! Here the list of a cell is unrolled into a single block, a *run* of
//! `MIN_RUN << class` consecutive entries of which the first `len` are used,
//! found from the cell's `head` word.  A query knows from that word every
//! cache line it will read and asks for all of them at once, a few queries
//! ahead (`CellLists::prefetch_run`), so a cell costs one wait however
//! many entries it holds.
//!
//! # Invariants
//! * `head[cell]` is `start << 32 | len`: the cell's entries are
//!   `e[start..start + len]`; 0 for an empty cell, which has no run.  A
//!   zeroed table is all empty cells, so a deep tree's table is memory the
//!   OS maps on first touch: untouched cells cost nothing.
//! * A run of class `k` holds `MIN_RUN << k` slots and starts at a multiple
//!   of [`MIN_RUN`]; `class[cell]` is the class of the cell's run.  The runs,
//!   used and free, tile `e` exactly; `runs[start / MIN_RUN]` records each
//!   run's cell (`NONE` when free) and class, so the runs can be walked in
//!   order ([`CellLists::clear`], [`CellLists::check`]).
//! * A used run holds 1 to its capacity entries.  [`CellLists::push`] appends
//!   to the run; a full run first moves to a run of twice the capacity.
//!   [`CellLists::remove`] fills the hole with the run's last entry; an
//!   emptied run is freed, and one at most a quarter full moves to a run of
//!   half the capacity.  Free runs are reused by class; when they hold more
//!   slots than the used runs (and more than [`COMPACT_FROM`]), the next push
//!   lays the used runs out anew, one after the other.
//! * Every entry that changes place is reported to the caller (`moved`), to
//!   update its back-pointer.
//!
//! # Costs
//! Push and remove are O(1) amortized, as a growing array's push is: a run
//! moves (O(len)) only after a number of pushes or removals since it was
//! made that is a fixed share of its entries (a fresh run has room for a
//! quarter more and moves when full or a quarter full), and a compaction
//! (O(slots)) only after the free runs grew to as many slots as the used
//! ones, which takes as many frees.  The slots in use are at most four times
//! the entries (a run is at least a quarter full); free runs hold at most as
//! many again, plus [`COMPACT_FROM`], as of the last push (removals alone
//! only free runs that later pushes reuse or compact away).
//!
//! # Parts
//! - `entry`: an object's presence in a cell ([`Entry<N>`]) with its tag,
//!   and the branch-free test of a run's entries against a query;
//! - `runs`: the runs' slots: classes, allocation, moves, compaction;
//! - `check`: [`CellLists::check`], the invariants above, checked.
//!
//! This file holds the lists ([`CellLists`]) and their operations: push,
//! remove, read, clear, build.

mod check;
mod entry;
mod runs;

pub use entry::{later, overlap_bits, tag, Entry, LATER_COLUMN, LATER_ROW, RANK};

use crate::hints::{prefetch, prefetch_slice};
use runs::{cap, cell_groups, fit, runs_in_order, slots_for};

/// No entry.
pub const NONE: u32 = u32::MAX;
/// Slots of a run of class 0; every run holds `MIN_RUN << class`.
pub const MIN_RUN: usize = 4;
/// Free slots below which the runs are never laid out anew.
pub const COMPACT_FROM: usize = 1 << 12;
/// Most entries of a cell a query asks for ahead (the memory system
/// streams the rest of a longer run by itself).
const PREFETCH_ENTRIES: usize = 32;

/// The lists of every cell of every level.
#[derive(Clone, Debug)]
pub struct CellLists<const N: usize = 4> {
    /// Per cell: `start << 32 | len`, 0 when empty.
    head: Vec<u64>,
    /// Per cell: the class of its run (meaningful while it has one).
    class: Vec<u8>,
    /// The runs' slots.
    e: Vec<Entry<N>>,
    /// Per `MIN_RUN` slots, at the start of each run: its cell (`NONE` when
    /// free) and class.
    runs: Vec<(u32, u8)>,
    /// Starts of the free runs, by class.
    free: Vec<Vec<u32>>,
    /// Slots in free runs.
    free_slots: usize,
}

impl<const N: usize> CellLists<N> {
    /// Bytes a cell's list head takes (its run and its class), whether
    /// the cell is used or not: what [`CellLists::new`] allocates per cell.
    pub const BYTES_PER_CELL: usize = std::mem::size_of::<u64>() + std::mem::size_of::<u8>();

    /// Empty lists for `cells` cells.
    pub fn new(cells: usize) -> Self {
        CellLists {
            head: vec![0; cells],
            class: vec![0; cells],
            e: Vec::new(),
            runs: Vec::new(),
            free: Vec::new(),
            free_slots: 0,
        }
    }

    /// `(start, len)` of `cell`'s entries.
    #[inline]
    pub(crate) fn run(&self, cell: usize) -> (usize, usize) {
        let r = self.head[cell];
        ((r >> 32) as usize, r as u32 as usize)
    }

    /// Add `e` to `cell`; its location.  `moved(entry, loc)` is told of every
    /// other entry that changed place.
    pub fn push(&mut self, cell: u32, e: Entry<N>, mut moved: impl FnMut(&Entry<N>, u32)) -> u32 {
        if self.free_slots > COMPACT_FROM.max(self.e.len() - self.free_slots) {
            self.compact(&mut moved);
        }
        let c = cell as usize;
        let (mut s, len) = self.run(c);
        if len == 0 {
            s = self.alloc(c, 0);
        } else if len == cap(self.class[c]) {
            self.relocate(c, self.class[c] + 1, &mut moved);
            s = self.run(c).0;
        }
        self.e[s + len] = e;
        self.set_run(c, s, len + 1);
        (s + len) as u32
    }

    /// Take the entry at `loc` out of `cell`'s list.  `moved(entry, loc)` is
    /// told of every entry that changed place (the one that filled the hole,
    /// or all of them when the run shrinks).
    pub fn remove(&mut self, cell: u32, loc: u32, mut moved: impl FnMut(&Entry<N>, u32)) {
        let c = cell as usize;
        let (s, len) = self.run(c);
        let (loc, last) = (loc as usize, s + len - 1);
        debug_assert!((s..=last).contains(&loc), "entry {loc} not in cell {cell}");
        if loc != last {
            self.e[loc] = self.e[last];
            moved(&self.e[loc], loc as u32);
        }
        let k = self.class[c];
        if len == 1 {
            self.release(s, k);
            self.set_run(c, 0, 0);
        } else {
            self.set_run(c, s, len - 1);
            if k > 0 && len - 1 <= cap(k) / 4 {
                self.relocate(c, k - 1, &mut moved);
            }
        }
    }

    /// The entry at `loc`.
    #[inline]
    pub fn entry(&self, loc: u32) -> &Entry<N> {
        &self.e[loc as usize]
    }

    /// The entry at `loc`, to change its box.
    #[inline]
    pub fn entry_mut(&mut self, loc: u32) -> &mut Entry<N> {
        &mut self.e[loc as usize]
    }

    /// Every slot, by location (to rewrite entries' boxes in place; the
    /// lists' shape is not changed through it).
    pub(crate) fn entries_mut(&mut self) -> &mut [Entry<N>] {
        &mut self.e
    }

    /// Whether `cell`'s list holds the location `loc`.
    pub fn holds(&self, cell: u32, loc: u32) -> bool {
        let (s, len) = self.run(cell as usize);
        (s..s + len).contains(&(loc as usize))
    }

    /// The entries `start..start + len` (a run found by [`CellLists::run`]).
    #[inline(always)]
    pub(crate) fn entries(&self, start: usize, len: usize) -> &[Entry<N>] {
        &self.e[start..start + len]
    }

    /// Ask for the cache lines of the entries `start..start + len`, up to
    /// `PREFETCH_ENTRIES` of them.
    #[inline]
    pub(crate) fn prefetch_run(&self, start: usize, len: usize) {
        prefetch_slice(&self.e[start..start + len.min(PREFETCH_ENTRIES)]);
    }

    /// The entries of `cell`, in list order.
    #[inline(always)]
    pub fn run_of(&self, cell: u32) -> &[Entry<N>] {
        let (s, len) = self.run(cell as usize);
        &self.e[s..s + len]
    }

    /// Ask for the entry at `loc`.
    #[inline]
    pub fn prefetch_entry(&self, loc: u32) {
        if let Some(x) = self.e.get(loc as usize) {
            prefetch(x);
        }
    }

    /// Empty every list (O(runs)).
    pub fn clear(&mut self) {
        for (_, cell, _) in runs_in_order(&self.runs) {
            if cell != NONE {
                self.head[cell as usize] = 0;
            }
        }
        self.e.clear();
        self.runs.clear();
        self.free.clear();
        self.free_slots = 0;
    }

    /// Empty lists, then `entries` (sorted by cell) laid out cell after
    /// cell, each run with room for a quarter more; `put(k, loc)` is told
    /// where entry `k` went.
    pub fn build(&mut self, entries: &[(u32, Entry<N>)], mut put: impl FnMut(usize, u32)) {
        self.clear();
        // the slots, counted: asked for at once, in huge pages where the
        // system has them
        self.e.reserve(slots_for(entries));
        crate::hints::advise_huge(&mut self.e);
        for (cell, r) in cell_groups(entries) {
            let s = self.alloc(cell as usize, fit(r.len()));
            for (t, k) in r.clone().enumerate() {
                self.e[s + t] = entries[k].1;
                put(k, (s + t) as u32);
            }
            self.set_run(cell as usize, s, r.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn e(id: u32) -> Entry {
        Entry {
            id,
            ..Default::default()
        }
    }

    /// Lists and the location of every id, kept up to date from what
    /// `push` and `remove` report, as the tree keeps its back-pointers.
    struct Model {
        lists: CellLists,
        locs: Vec<Option<u32>>,
        cells: Vec<Vec<u32>>,
    }

    impl Model {
        fn new(cells: usize) -> Model {
            Model {
                lists: CellLists::new(cells),
                locs: Vec::new(),
                cells: vec![Vec::new(); cells],
            }
        }

        fn push(&mut self, cell: u32) {
            let id = self.locs.len() as u32;
            let locs = &mut self.locs;
            let at = self.lists.push(cell, e(id), |m, at| {
                assert!(locs[m.id as usize].is_some(), "a moved entry is live");
                locs[m.id as usize] = Some(at);
            });
            locs.push(Some(at));
            self.cells[cell as usize].push(id);
        }

        fn remove(&mut self, id: usize) {
            let at = self.locs[id].unwrap();
            let cell = (0..self.cells.len())
                .find(|&c| self.cells[c].contains(&(id as u32)))
                .unwrap();
            assert!(self.lists.holds(cell as u32, at));
            let locs = &mut self.locs;
            self.lists.remove(cell as u32, at, |m, to| {
                assert_ne!(m.id as usize, id, "the removed entry is not reported");
                locs[m.id as usize] = Some(to);
            });
            locs[id] = None;
            self.cells[cell].retain(|&x| x != id as u32);
        }

        fn check(&self) -> Result<(), TestCaseError> {
            let total = self.lists.check().map_err(TestCaseError::fail)?;
            prop_assert_eq!(total, self.cells.iter().map(Vec::len).sum::<usize>());
            for (c, want) in self.cells.iter().enumerate() {
                let mut got = Vec::new();
                got.extend(self.lists.run_of(c as u32).iter().map(|x| x.id));
                got.sort_unstable();
                let mut want = want.clone();
                want.sort_unstable();
                prop_assert_eq!(got, want);
            }
            for (id, loc) in self.locs.iter().enumerate() {
                if let Some(l) = loc {
                    prop_assert_eq!(self.lists.entry(*l).id, id as u32);
                }
            }
            Ok(())
        }
    }

    proptest! {
        /// Pushes and removals against a model: each cell's ids as a
        /// multiset, every location kept up to date from what the lists
        /// report.  Runs grow, shrink and are freed and reused.
        #[test]
        fn lists_keep_their_entries(ops in prop::collection::vec((0u32..4, 0u8..3, any::<usize>()), 0..300)) {
            let mut m = Model::new(4);
            for (cell, add, pick) in ops {
                let live: Vec<usize> = (0..m.locs.len()).filter(|&i| m.locs[i].is_some()).collect();
                if add > 0 || live.is_empty() {
                    m.push(cell);
                } else {
                    m.remove(live[pick % live.len()]);
                }
                m.check()?;
            }
        }
    }

    /// A coordinate from a few scales, its neighbours one ulp away, and
    /// the special values.
    fn coordinate() -> impl Strategy<Value = f64> {
        let scale = prop::sample::select(vec![1e-300, 1e-3, 1.0, 5000.0, 1e300]);
        let special = prop::sample::select(vec![
            0.0,
            -0.0,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ]);
        prop_oneof![
            (-1.0f64..1.0, scale.clone()).prop_map(|(u, s)| u * s),
            (-1.0f64..1.0, scale).prop_map(|(u, s)| (u * s).next_up()),
            special,
        ]
    }

    /// A box with sides in order, from two coordinates per axis.
    fn ordered([a, b, c, d]: [f64; 4]) -> [f64; 4] {
        [a.min(c), b.min(d), a.max(c), b.max(d)]
    }

    proptest! {
        /// The mask is the scalar test's, entry by entry, with the tags
        /// skipped as asked.
        #[test]
        fn overlap_bits_equals_boxes_overlap(
            q in prop::array::uniform4(coordinate()),
            boxes in prop::collection::vec(prop::array::uniform4(coordinate()), 1..64),
            shared in prop::collection::vec((0usize..4, 0usize..4, -1i8..=1), 0..64),
            tags in prop::collection::vec(0u8..64, 64),
            skip in prop::sample::select(vec![0u8, LATER_COLUMN, LATER_ROW, LATER_COLUMN | LATER_ROW, later(2) | LATER_ROW]),
        ) {
            let q = ordered(q);
            let mut boxes: Vec<[f64; 4]> = boxes.into_iter().map(ordered).collect();
            // some sides on the query's sides or one ulp off them:
            // touching, sharing edges, overlapping by the least there is
            for (k, &(side, from, nudge)) in shared.iter().enumerate() {
                let n = boxes.len();
                boxes[k % n][side] = match nudge {
                    -1 => q[from].next_down(),
                    0 => q[from],
                    _ => q[from].next_up(),
                };
                boxes[k % n] = ordered(boxes[k % n]);
            }
            let part: Vec<Entry> = boxes
                .iter()
                .zip(&tags)
                .enumerate()
                .map(|(t, (&b, &tag))| Entry { b, id: t as u32, tag })
                .collect();
            let (mask, counted) = overlap_bits(&q, &part, skip);
            let counts = |t: usize| part[t].tag & skip == 0;
            prop_assert_eq!(counted, (0..part.len()).filter(|&t| counts(t)).count() as u64);
            for (t, b) in boxes.iter().enumerate() {
                let want = counts(t) && crate::narrow::boxes_overlap(&q, b);
                prop_assert_eq!(mask >> t & 1 == 1, want, "entry {} {:?} against {:?}", t, b, q);
            }
        }
    }

    /// A cell filled past its run's capacity moves to runs twice as large,
    /// emptied it shrinks and frees its run, which a later cell reuses.
    #[test]
    fn runs_grow_shrink_and_are_reused() {
        let mut m = Model::new(3);
        for _ in 0..100 {
            m.push(1);
        }
        m.check().unwrap();
        assert_eq!(cap(m.lists.class[1]), 128, "4 slots doubled five times");
        for id in 0..98 {
            m.remove(id);
            m.check().unwrap();
        }
        assert_eq!(m.lists.class[1], 0, "two entries: back to the smallest run");
        let slots = m.lists.e.len();
        m.remove(98);
        m.remove(99);
        m.check().unwrap();
        assert_eq!(m.lists.head[1], 0, "an empty cell has no run");
        m.push(2);
        m.check().unwrap();
        assert_eq!(m.lists.e.len(), slots, "the freed run is reused");
    }

    /// Free runs holding more slots than the used ones are dropped by the
    /// next push, which lays the used runs out anew; every location follows.
    #[test]
    fn free_runs_are_compacted_away() {
        let cells = 2 * COMPACT_FROM / MIN_RUN;
        let mut m = Model::new(cells);
        for c in 0..cells {
            m.push(c as u32);
        }
        for id in 0..cells - 1 {
            m.remove(id);
        }
        assert_eq!(m.lists.free_slots, (cells - 1) * MIN_RUN);
        m.push(0);
        m.check().unwrap();
        assert_eq!(m.lists.free_slots, 0);
        assert_eq!(m.lists.e.len(), 2 * MIN_RUN);
    }

    /// Asking for an empty cell, a cell's entries or an entry, or a location
    /// past every slot, changes nothing.
    #[test]
    fn prefetch_changes_nothing() {
        let mut lists = CellLists::new(2);
        lists.prefetch_run(0, 0);
        let at = lists.push(1, e(7), |_, _| unreachable!());
        let (start, len) = lists.run(1);
        lists.prefetch_run(start, len);
        lists.prefetch_entry(at);
        lists.prefetch_entry(u32::MAX); // no such slot: nothing
        assert_eq!(lists.entry(at).id, 7);
    }

    #[test]
    fn build_lays_out_cells_in_order() {
        let entries: Vec<(u32, Entry)> = (0..20u32).map(|k| (k / 9 * 2, e(k))).collect();
        let mut lists = CellLists::new(6);
        lists.push(5, e(99), |_, _| unreachable!());
        let mut locs = [0; 20];
        lists.build(&entries, |k, loc| locs[k] = loc);
        assert_eq!(lists.check(), Ok(20));
        for (k, &loc) in locs.iter().enumerate() {
            assert_eq!(lists.entry(loc).id, k as u32);
            assert!(lists.holds(k as u32 / 9 * 2, loc));
        }
        assert!(locs.windows(2).all(|w| w[0] < w[1]), "cell after cell");
        assert!(lists.run_of(5).is_empty());
        // cell 3 of 2 x 2 is one on along x and y; cell 1 of 1 x 2 along y
        assert_eq!(tag(3, 0b11), 3 | LATER_COLUMN | LATER_ROW);
        assert_eq!(tag(1, 0b10), 1 | LATER_ROW);
        // cell 6 of 1 x 2 x 2 ... of 2 x 2 x 2: along y and z
        assert_eq!(tag(6, 0b110), 6 | LATER_ROW | later(2));
        assert_eq!(tag(6, 0b110) & RANK, 6);
    }

    /// A fresh run has room for a quarter more entries than it is made for.
    #[test]
    fn fit_leaves_room() {
        for m in 0..1000 {
            let k = fit(m);
            assert!(cap(k) > m + m / 4);
            assert!(k == 0 || cap(k - 1) <= m + m / 4);
        }
    }
}
