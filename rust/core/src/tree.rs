//! The moving tree: objects in per-cell lists, pairs kept from frame to frame.
//!
//! # Structure (seeds 001 and 002)
//! The world is quantized into a `2^depth` grid ([`Grid`]).  Every object has
//! a *placement*: the level `l` and the (at most 2 x 2) cells of that level
//! that its box enters, by the quadtree rule with slack 0
//! ([`crate::quadtree::level`]: the seeds' smallest containing cell, moved
//! down to the object's fit level when it straddles a split line far above
//! its size).  Each cell of every level keeps a list of the objects entered
//! there ([`crate::lists`]: the seeds' linked list unrolled into one run of
//! entries per cell, each carrying a copy of its object's box, so that a
//! query asks for all of a cell's candidates at once); all levels' cells
//! are numbered in one linear array, level `l` from `(4^l - 1) / 3` on, in
//! Morton order inside a level (the seeds' linear array).  Inserting, moving
//! to other cells and removing are O(1) per object (amortized: a cell's run
//! moves when it fills up or empties out); a move that keeps its cells
//! relinks nothing.
//!
//! # Placements and lists kept up to date when read
//! An insert stores the object's box and placement and marks it *stale*; a
//! move stores the box and marks the object stale and *unplaced*.
//! Their next reader (a query, `pairs()` on its incremental path, `stats()`)
//! first places every unplaced object ([`Tree::settle`]: in parallel for
//! many), then brings the lists up to date: each stale object is relinked,
//! or only its box copies rewritten when it kept its cells, O(1) each; when
//! more than [`RELAYOUT_SHARE`] of the objects are stale the lists are laid
//! out anew, cell after cell.  So frames that move everything and search
//! from scratch (which reads only the boxes) never place an object nor
//! touch the lists: a move is a store of boxes.
//!
//! A move of fewer objects than the next refresh searches from scratch for
//! is answered incrementally, so its objects will be placed and their
//! lists read anyway: there, an object that was not stale and keeps its
//! cells has its box copies rewritten at once and never becomes stale (one
//! visit of its records while the move has them, instead of one in the
//! move, one placing it and one rewriting its entries).  Only the objects
//! that change cells wait for the reader, which places and relinks them
//! (and counts them in `stats().relinked`) as before.
//!
//! What a move reads of an object besides its box (placement, entry
//! locations, dirty mark) is one aligned 32-byte record (`Rec`): a move of
//! objects scattered over the slots waits for one line per object there.
//! The stale marks stay a dense byte column, which is all a move of every
//! object writes besides the boxes.
//!
//! # Fat boxes
//! With a margin `m > 0` an object is placed by its box grown by `m` (its
//! fat box) and keeps that placement while its box stays inside the fat box.
//! Placement only decides where an object is *looked for*; every test uses
//! the true box, so the answers are exact for any margin.
//!
//! # Finding what overlaps a box
//! Objects `a` and `b` overlap only if `b`'s cells meet the cells `a`'s box
//! covers at `b`'s level: `b`'s cells cover its fat box, which holds its
//! box, and quantization is monotone.  So a query visits, at every level
//! that has objects, the cells its box covers there.  An object entered in
//! several cells is taken only in the first of them (lowest column, then
//! row) that the query covers: an entry counts when its cell is its
//! object's first column or the query's first column, and likewise for
//! rows.  Each candidate is seen once, with no marks to clear, so queries
//! can run in parallel.  A refresh works out each query's runs (cell ids,
//! head words, skips) a few queries before it runs, asking for their
//! entries then, and the query reads that plan (`Plan`).
//!
//! # Pairs kept from frame to frame
//! The tree marks every object inserted, moved or removed since the last
//! [`Tree::pairs`] or [`Tree::update`] (*dirty*) and keeps the current pairs
//! in two sorted lists:
//! * the *base*: the pairs as of the last search from scratch or
//!   consolidation, with every object changed since marked *void*;
//! * the *delta*: the current pairs with at least one void object.
//!
//! The current pairs are the base pairs of two objects that are not void
//! (*standing*: neither changed since the base was made, so their answer
//! stands) and the delta; the two are disjoint.  A refresh queries the box
//! of each dirty live object for its current pairs (*fresh*), replaces the
//! delta's pairs with a dirty object by them, and marks the dirty objects
//! void.  Both halves stay true: a pair with a dirty object is fresh and now
//! has a void one; a pair of objects void before and not dirty stood in the
//! delta before and stands now.  So a frame costs the queries, the delta
//! and, for `pairs()`, one pass writing the rows it hands over (in chunks of
//! the base fixed by its length, each merging the delta's pairs of its key
//! range); the base is never rewritten while the delta stays small.  The
//! positions of the base's pairs with a void object are kept, found again
//! (one read of the base) only when objects become void, so that the rows
//! are the runs of the base between them, copied with no test per pair;
//! when the delta outgrows an eighth of the base, the two are consolidated
//! into a new base.  Objects that were void but moved no more (a different
//! set moving each frame) leave runs that every frame's rows skip: once the
//! void objects are as many again as the dirty ones, the rows' pass also
//! writes the current pairs packed, which become the base (no void object,
//! no delta; the next frame's dirty objects become void again with one read
//! of the base).  The same objects moving frame after frame stay void and
//! never pay it.  `update()`'s events are the fresh pairs
//! against the last pairs with a dirty object (the delta's, and the base's
//! standing pairs of objects void only from now on).
//!
//! # Handles given out again
//! A removed object's slot is given to the next insert at once (the last
//! removed first), so between two refreshes one handle may name two
//! objects: the removed one in the last pairs and a new one in the fresh
//! pairs.  The tree lists the slots removed since the last refresh (a push
//! per removal; nothing on the paths of frames that only move), and
//! `update()` counts a pair with such a slot as a pair of other objects
//! before and after: the last pairs end and the fresh ones begin, also
//! when both are `(i, j)`.  So a removed object's pairs always end, and an
//! object inserted and removed between two calls has no events.
//! `pairs()` hands the current pairs over as they are and, as `update()`
//! does, makes them the next events' baseline and forgets the removed slots.
//!
//! When more than [`REBUILD_SHARE`] of the objects are dirty, a search from
//! scratch ([`crate::search`]) is cheaper than the queries and replaces them
//! (its pairs become the base); a single move of more than that share
//! settles it in advance, and the tree keeps no more marks until then (a
//! frame that moves everything only stores boxes).  Either way the result
//! is the set of colliding pairs of the live objects, as
//! [`crate::find_pairs`] would give it.
//!
//! # Searches from scratch kept from frame to frame
//! With every slot live and enough objects for the grid method, the search
//! from scratch keeps its grid entries, and the next one brings them up to
//! date instead of sorting anew ([`crate::coherent`]): frames that move
//! everything a little pay for the entries of objects that changed cells,
//! and each cell's order of minx, not for a whole sort.  With fewer
//! objects, where the search from scratch sorts and sweeps, it keeps its
//! sweep order instead ([`crate::few`]), put right by an insertion sort.
//! After [`coherent::AGE`] incremental frames in a row they are let go.
//!
//! # Stopping
//! An executor may carry a [`crate::par::Stop`]: every chunk of a step
//! checks it first, and a set stop unwinds the call with
//! [`crate::par::Stopped`] (Ctrl-C, from the bindings).  A stop may come at
//! any chunk boundary of any method given an executor, and leaves a valid
//! tree, by this rule:
//! * `insert` is as if never called: the steps that may stop (placing the
//!   objects for reused slots, extending the arrays for new ones) come
//!   first and change nothing kept, and a stop there takes the arrays back
//!   to their length: no slot taken, no handle given out.
//! * `insert`, `pairs()` and `update()` check the stop once more just
//!   before they commit (after their last chunk), so that a stop set at
//!   any time before the commit leaves the tree as before.
//! * `move_to` is finished: a parallel move (the only one with chunks)
//!   runs the chunks the stop skipped on the calling thread (a store of
//!   their boxes, checking no stop), takes in every chunk's marks, and then
//!   unwinds.
//! * `pairs()` and `update()` are as if never called: a search from
//!   scratch only reads the tree (a stop drops the buffer and kept grid
//!   order it took, which only save work), and an incremental refresh works
//!   out the new kept pairs and its rows or events reading the tree only,
//!   then commits them with no chunk left to run.  The next call reports
//!   the same pairs and events as without the stopped one.
//! * The steps that bring the placements and lists up to date (of queries,
//!   `touching`, `stats` and refreshes) keep what they finished, and the
//!   next reader does the rest: [`Tree::settle`] applies what its finished
//!   chunks placed (the other objects stay unplaced); the lists' update
//!   clears the stale marks only once done (a stale object's entries are
//!   read by no one, so box copies rewritten before a stop do no harm);
//!   a relayout changes nothing until its sort is done.  No answer depends
//!   on how far they got.
//!
//! None of this costs per object: a `catch_unwind` around the steps that
//! may stop (nothing unless one unwinds) and a slot per chunk for the
//! results of settle and of a parallel move.

use crate::cells::Placement;
use crate::check::bounds_of;
use crate::coherent;
use crate::few;
use crate::hints::prefetch_at;
use crate::lists::{self, CellLists, Entry, LATER_COLUMN, LATER_ROW};
use crate::morton::{self, encode};
use crate::narrow::{box_circle_overlap, boxes_overlap, circle_overlap, Filters, Narrow, Shapes};
use crate::narrow::{BOX, CIRCLE};
use crate::pairs::{Budget, TooMany};
use crate::par::{chunk_count, even_bounds, split_at_bounds, Exec, Scatter, Stopped, MAX_CHUNKS};
use crate::quadtree;
use crate::scratch;
use crate::search::{self, Method, Search};
use crate::world::Grid;
use std::mem::MaybeUninit;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// Deepest tree: the list heads of all levels take `4^(depth + 1) / 3`
/// nine-byte records, 201 MB of address space at depth 12 (zeroed memory,
/// mapped only where objects are).
pub const MAX_DEPTH: u32 = 12;
/// No location.
const NONE: u32 = u32::MAX;
/// Level of a free slot.
const FREE: u8 = u8::MAX;
/// Bit of [`Tree::stale`]: the lists do not match the object.
const STALE: u8 = 1;
/// Bit of [`Tree::stale`]: moved since placed (its `place` is outdated;
/// implies [`STALE`]).
const UNPLACED: u8 = 2;
/// Above this share of dirty objects, [`Tree::pairs`] searches from scratch
/// (the default of [`Tree::rebuild_share`]).
pub const REBUILD_SHARE: f64 = 0.1;
/// Above this share of stale objects, the lists are laid out anew (the
/// default of [`Tree::relayout_share`]).
pub const RELAYOUT_SHARE: f64 = 0.125;
/// Moved objects per chunk of the parallel placement.
const MOVE_GRAIN: usize = 1 << 13;
/// Dirty objects per chunk of the parallel queries (small: a thread that
/// wakes late still finds chunks left to take).
const QUERY_GRAIN: usize = 128;
/// Dirty objects from which the queries run in parallel.
const QUERY_PARALLEL: usize = 512;
/// Stale objects per chunk of the lists' parallel update.
const SYNC_GRAIN: usize = 256;
/// How many queries ahead [`Tree::fresh_pairs`] asks for a query's memory.
const AHEAD: usize = 4;
/// Kept pairs per chunk of the parallel merge.
const MERGE_GRAIN: usize = 1 << 14;

/// Where an object is entered: `nx * ny` cells from `(cx, cy)` at `level`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// Level of the cells, or `FREE` for a free slot.
    pub level: u8,
    /// Cells along x (1 or 2).
    pub nx: u8,
    /// Cells along y (1 or 2).
    pub ny: u8,
    /// First cell's column at `level`.
    pub cx: u32,
    /// First cell's row at `level`.
    pub cy: u32,
}

/// An object's record: what a move reads and writes besides its box and
/// stale marks, in one aligned half cache line (a move of objects
/// scattered over the slots waits for one line here, where separate
/// columns took three).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
struct Rec {
    /// Where the object is entered (`FREE` for a free slot).
    place: Place,
    /// Its entries' locations in the lists.
    loc: [u32; 4],
    /// Moved, inserted or removed since the last refresh (listed in
    /// `dirty_list`).
    dirty: bool,
}

const FREE_PLACE: Place = Place {
    level: FREE,
    nx: 0,
    ny: 0,
    cx: 0,
    cy: 0,
};

/// A per-slot value most objects leave at its default: no memory until
/// one object differs (a game of plain boxes pays for no circles, groups or
/// masks).
#[derive(Clone, Debug)]
struct Column<T> {
    v: Vec<T>,
    default: T,
}

impl<T: Copy + PartialEq> Column<T> {
    fn new(default: T) -> Self {
        Column {
            v: Vec::new(),
            default,
        }
    }

    #[inline(always)]
    fn get(&self, h: usize) -> T {
        self.v.get(h).copied().unwrap_or(self.default)
    }

    /// Set slot `h` of `slots`.
    fn set(&mut self, h: usize, x: T, slots: usize) {
        if self.v.is_empty() {
            if x == self.default {
                return;
            }
            self.v.resize(slots, self.default);
        }
        self.v[h] = x;
    }

    /// Set slot `h` of `slots`, the column made even for the default: for
    /// columns that readers index at every slot once any object of a kind
    /// uses them (the circles, as soon as there is one circle).
    fn set_used(&mut self, h: usize, x: T, slots: usize) {
        if self.v.is_empty() {
            self.v.resize(slots, self.default);
        }
        self.v[h] = x;
    }

    fn grow(&mut self, slots: usize) {
        if !self.v.is_empty() {
            self.v.resize(slots, self.default);
        }
    }

    /// Every slot's value (only once some object differs from the default).
    fn all(&self) -> &[T] {
        &self.v
    }
}

/// First cell of `level` in the cells of all levels.
#[inline(always)]
pub fn cell_base(level: u32) -> usize {
    ((1usize << (2 * level)) - 1) / 3
}

/// Per-object filter values of an insert (`None`: the defaults, group 0
/// and all bits).
#[derive(Clone, Copy, Debug, Default)]
pub struct Attrs<'a> {
    /// Group per object.
    pub groups: Option<&'a [i64]>,
    /// Category bits per object.
    pub categories: Option<&'a [u64]>,
    /// Mask bits per object.
    pub masks: Option<&'a [u64]>,
}

/// A handle argument that names no suitable object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleError {
    /// `handles[at]` is not a live object.
    Unknown(usize),
    /// `handles[at]` repeats an earlier one.
    Twice(usize),
    /// `handles[at]` is an object of the other shape.
    WrongKind(usize),
}

/// Counts of the last calls, to tune the depth by.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// Objects the last insert placed, or that the moves since the last
    /// [`Tree::settle`] took into other cells.
    pub relinked: u64,
    /// Entries (object, cell) of the live objects as placed now.
    pub entries: u64,
    /// Box tests the last `pairs()` made.
    pub candidate_tests: u64,
    /// Pairs the last `pairs()` returned.
    pub pairs: u64,
    /// Whether the last `pairs()` searched from scratch.
    pub rebuilt: bool,
}

/// Moving boxes and circles in a linear quadtree with per-cell lists.
#[derive(Clone, Debug)]
pub struct Tree {
    grid: Grid,
    bounds: [f64; 4],
    margin: f64,
    // per slot
    boxes: Vec<[f64; 4]>,
    /// Fat boxes (only with a margin: else the boxes are).
    fat: Vec<[f64; 4]>,
    circles: Column<[f64; 3]>,
    kinds: Vec<u8>,
    groups: Column<i64>,
    cats: Column<u64>,
    masks: Column<u64>,
    /// What a move reads and writes of each object besides its box and
    /// stale marks, in one record (see [`Rec`]).
    rec: Vec<Rec>,
    /// [`STALE`] and [`UNPLACED`] bits per slot; the stale ones are listed
    /// in `stale_list`, each once.  (Dense, apart from the records: a move
    /// of every object marks them all, and a byte each is all it writes.)
    stale: Vec<u8>,
    /// Where the lists have it (`FREE`: not in them).
    linked: Vec<Place>,
    /// Slots with the [`UNPLACED`] bit.
    unplaced: usize,
    /// Objects taken into other cells by [`Tree::settle`]s stopped since
    /// the last one that finished (counted in its `stats().relinked`).
    relinked_stopped: u64,
    mark: Vec<u32>,
    lists: CellLists,
    // objects per level, live
    per_level: Vec<u64>,
    free: Vec<u32>,
    count: usize,
    nentries: u64,
    ncircles: usize,
    ngrouped: usize,
    nmasked: usize,
    dirty_list: Vec<u32>,
    /// Every object counts as dirty (a move of more than `rebuild_share` of
    /// them): the next refresh searches from scratch, and no more marks are
    /// kept until then (those set before are in `dirty_list`).
    all_dirty: bool,
    stale_list: Vec<u32>,
    epoch: u32,
    /// The pairs of the last search from scratch or consolidation, packed,
    /// sorted (`None` before the first `pairs()` or `update()`).
    base: Option<Vec<u64>>,
    /// Per slot: changed since `base` was made, so that its pairs there no
    /// longer count (listed in `void_list`, each once).
    void: Bits,
    void_list: Vec<u32>,
    /// The dirty objects as bits, set only while a refresh reads them (kept
    /// to be cleared, not made anew, every frame).
    dirty_bits: Bits,
    /// The slots removed since the last refresh (some dirty slots may then
    /// be free, or hold another object), in no order, repeats kept down to
    /// at most twice the slots.
    removed: Vec<u32>,
    /// The current pairs with a void object, packed, sorted.
    delta: Vec<u64>,
    /// The positions in `base` of its pairs with a void object, ascending:
    /// the rows are the runs between them, merged with the delta.
    void_at: Vec<usize>,
    /// A buffer for the next consolidation's or search's pairs.
    spare: Vec<u64>,
    /// The last search from scratch's grid entries, brought up to date by the
    /// next one ([`crate::coherent`]).
    kept: coherent::State,
    /// Incremental refreshes since the last search from scratch: past
    /// [`coherent::AGE`] of them the kept entries are let go (their memory
    /// serves no frame that moves only a few objects).
    since_search: u32,

    stats: Stats,
    /// Above this share of dirty objects, `pairs()` searches from scratch.
    pub rebuild_share: f64,
    /// Above this share of stale objects, the lists are laid out anew.
    pub relayout_share: f64,
    /// The delta is consolidated into the base once it holds this many
    /// pairs more than an eighth of the base (tests force consolidating
    /// once it outgrows an eighth of the base with 0, or never with
    /// `usize::MAX`).
    pub consolidate_from: usize,
}

impl Tree {
    /// An empty tree over `bounds` (finite, `min < max`) split `2^depth` ways
    /// per axis (`depth <= MAX_DEPTH`), placing objects by their boxes grown
    /// by `margin >= 0`.
    pub fn new(bounds: [f64; 4], depth: u32, margin: f64) -> Tree {
        debug_assert!(depth <= MAX_DEPTH && margin >= 0.0);
        Tree {
            grid: Grid::over(bounds, depth),
            bounds,
            margin,
            boxes: Vec::new(),
            fat: Vec::new(),
            circles: Column::new([0.0; 3]),
            kinds: Vec::new(),
            groups: Column::new(0),
            cats: Column::new(u64::MAX),
            masks: Column::new(u64::MAX),
            rec: Vec::new(),
            stale: Vec::new(),
            linked: Vec::new(),
            unplaced: 0,
            relinked_stopped: 0,
            mark: Vec::new(),
            lists: CellLists::new(cell_base(depth + 1)),
            per_level: vec![0; depth as usize + 1],
            free: Vec::new(),
            count: 0,
            nentries: 0,
            ncircles: 0,
            ngrouped: 0,
            nmasked: 0,
            dirty_list: Vec::new(),
            all_dirty: false,
            stale_list: Vec::new(),
            epoch: 0,
            base: None,
            void: Bits::default(),
            dirty_bits: Bits::default(),
            removed: Vec::new(),
            void_list: Vec::new(),
            delta: Vec::new(),
            void_at: Vec::new(),
            spare: Vec::new(),
            kept: coherent::State::default(),
            since_search: 0,
            stats: Stats::default(),
            rebuild_share: REBUILD_SHARE,
            relayout_share: RELAYOUT_SHARE,
            consolidate_from: MERGE_GRAIN,
        }
    }

    /// The world given at construction.
    pub fn bounds(&self) -> [f64; 4] {
        self.bounds
    }

    /// Level of the finest cells.
    pub fn depth(&self) -> u32 {
        self.grid.depth
    }

    /// The margin given at construction.
    pub fn margin(&self) -> f64 {
        self.margin
    }

    /// Live objects.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Objects the next `pairs()` or `update()` examines: every one when it
    /// searches from scratch, else the dirty ones.  What a caller weighs
    /// the call by (whether it is worth a thread that Ctrl-C can stop).
    pub fn pending(&self) -> usize {
        if self.will_rebuild() {
            self.count
        } else {
            self.dirty_list.len()
        }
    }

    /// Whether the tree holds no object.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Slots ever used (handles are below this).
    pub fn slots(&self) -> usize {
        self.rec.len()
    }

    /// Whether `h` is a live object.
    pub fn contains(&self, h: u64) -> bool {
        (h as usize) < self.rec.len() && self.rec[h as usize].place.level != FREE
    }

    /// The box of live object `h` (a circle's outward-rounded box).
    pub fn box_of(&self, h: u32) -> [f64; 4] {
        self.boxes[h as usize]
    }

    /// `Some(x, y, r)` when live object `h` is a circle.
    pub fn circle_of(&self, h: u32) -> Option<[f64; 3]> {
        (self.kinds[h as usize] == CIRCLE).then(|| self.circles.get(h as usize))
    }

    /// The counts of the last calls, every moved object placed first.
    pub fn stats(&mut self, ex: &Exec) -> Stats {
        self.settle(ex);
        Stats {
            entries: self.nentries,
            ..self.stats
        }
    }

    /// Live objects entered at each level, 0 to `depth` (as placed by the
    /// last [`Tree::settle`]).
    pub fn levels(&self) -> &[u64] {
        &self.per_level
    }

    /// Live objects whose box is not wholly inside the world.
    pub fn outside(&self) -> usize {
        let [x0, y0, x1, y1] = self.bounds;
        self.live()
            .filter(|&h| {
                let b = &self.boxes[h];
                !(b[0] >= x0 && b[1] >= y0 && b[2] <= x1 && b[3] <= y1)
            })
            .count()
    }

    fn live(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.rec.len()).filter(|&h| self.rec[h].place.level != FREE)
    }

    /// Check `handles`: live, each once, of shape `kind` if given.  Nothing changes.
    pub fn check_handles(&mut self, handles: &[i64], kind: Option<u8>) -> Result<(), HandleError> {
        // Strictly increasing handles (a game's list of its moving objects,
        // or of all of them) repeat none; with every slot live and every
        // object of the kind asked for, only their range is left to check,
        // with no marks to set.  The first bad one is the one the loop below
        // would name (it finds no repeat in them).
        let one_kind = match kind {
            None => true,
            Some(k) => self.ncircles == if k == CIRCLE { self.count } else { 0 },
        };
        if self.count == self.rec.len() && one_kind && handles.windows(2).all(|w| w[0] < w[1]) {
            let len = self.count as i64;
            return match handles.first() {
                Some(&h) if h < 0 => Err(HandleError::Unknown(0)),
                Some(_) if handles[handles.len() - 1] >= len => {
                    Err(HandleError::Unknown(handles.partition_point(|&h| h < len)))
                }
                _ => Ok(()),
            };
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.epoch = 1;
        }
        for (at, &h) in handles.iter().enumerate() {
            if h < 0 || !self.contains(h as u64) {
                return Err(HandleError::Unknown(at));
            }
            let h = h as usize;
            if self.mark[h] == self.epoch {
                return Err(HandleError::Twice(at));
            }
            self.mark[h] = self.epoch;
            if kind.is_some_and(|k| self.kinds[h] != k) {
                return Err(HandleError::WrongKind(at));
            }
        }
        Ok(())
    }

    /// Add objects (validated boxes, `circles` for circles); their handles.
    ///
    /// Removed slots are reused first, the last removed first; the others
    /// are new slots at the end, written in parallel chunks for big batches
    /// ([`Tree::append`]).  The lists take the new objects at their next
    /// reader.
    ///
    /// Stopped, it leaves the tree as before (no slot taken, no handle
    /// given out): its steps that may stop come first and change nothing
    /// the tree keeps.
    pub fn insert(
        &mut self,
        boxes: &[[f64; 4]],
        circles: Option<&[[f64; 3]]>,
        attrs: Attrs,
        ex: &Exec,
    ) -> Vec<u32> {
        let n = boxes.len();
        let reuse = n.min(self.free.len());
        let kind = if circles.is_some() { CIRCLE } else { BOX };
        let places = self.placements(&boxes[..reuse], ex);
        let start = self.rec.len();
        let counts = self.append(&boxes[reuse..], kind, ex);
        // nothing below stops
        let mut handles: Vec<u32> = self.free.drain(self.free.len() - reuse..).rev().collect();
        handles.extend(start as u32..(start + n - reuse) as u32);
        for (k, &h) in handles[..reuse].iter().enumerate() {
            let h = h as usize;
            self.kinds[h] = kind;
            self.set_columns(h, k, circles, attrs);
            self.count_kinds(h, 1);
            self.boxes[h] = boxes[k];
            self.set_fat(h);
            self.set_place(h, places[k]);
            self.touch(h);
        }
        self.appended(start, counts);
        // The new slots' columns (all default but for circles and filters).
        if circles.is_some()
            || attrs.groups.is_some()
            || attrs.categories.is_some()
            || attrs.masks.is_some()
        {
            for (k, &h) in handles.iter().enumerate().skip(reuse) {
                self.set_columns(h as usize, k, circles, attrs);
                self.count_kinds(h as usize, 1);
            }
        }
        self.count += n;
        self.stats.relinked = n as u64;
        handles
    }

    /// Slot `h`'s circle and filter values: those of object `k` of an insert.
    fn set_columns(&mut self, h: usize, k: usize, circles: Option<&[[f64; 3]]>, attrs: Attrs) {
        let slots = self.rec.len();
        // a circle makes the column (the narrow phase indexes it at every
        // slot once there is a circle, even one at (0, 0) of radius 0, the
        // default)
        match circles {
            Some(c) => self.circles.set_used(h, c[k], slots),
            None => self.circles.set(h, [0.0; 3], slots),
        }
        self.groups.set(h, attrs.groups.map_or(0, |g| g[k]), slots);
        self.cats
            .set(h, attrs.categories.map_or(u64::MAX, |c| c[k]), slots);
        self.masks
            .set(h, attrs.masks.map_or(u64::MAX, |m| m[k]), slots);
    }

    /// New slots at the end for objects of `kind` with `boxes`: every
    /// per-slot array extended straight to its values, in parallel chunks
    /// fixed by the batch for big ones; the objects placed, stale and
    /// dirty, as an insert into a reused slot leaves them one by one, once
    /// [`Tree::appended`] has counted them.  Their objects per level and
    /// entries, per chunk.
    ///
    /// Stopped, it takes the arrays back to their length before, and
    /// unwinds.
    fn append(&mut self, boxes: &[[f64; 4]], kind: u8, ex: &Exec) -> Vec<(Vec<u64>, u64)> {
        let start = self.rec.len();
        match catch_unwind(AssertUnwindSafe(|| self.extend_slots(boxes, kind, ex))) {
            Ok(counts) => counts,
            Err(stop) => {
                self.boxes.truncate(start);
                if self.margin > 0.0 {
                    self.fat.truncate(start);
                }
                self.rec.truncate(start);
                self.stale.truncate(start);
                self.kinds.truncate(start);
                self.linked.truncate(start);
                self.mark.truncate(start);
                resume_unwind(stop)
            }
        }
    }

    /// [`Tree::append`]'s steps that may stop.
    fn extend_slots(&mut self, boxes: &[[f64; 4]], kind: u8, ex: &Exec) -> Vec<(Vec<u64>, u64)> {
        let m = boxes.len();
        let start = self.rec.len();
        let ex = ex.for_work(m, 2 * MOVE_GRAIN);
        let (grid, margin, g) = (self.grid, self.margin, MOVE_GRAIN);
        ex.extend_with(&mut self.boxes, m, g, |i| boxes[i]);
        if margin > 0.0 {
            ex.extend_with(&mut self.fat, m, g, |i| grown(&boxes[i], margin));
        }
        let dirty = !self.all_dirty;
        ex.extend_with(&mut self.rec, m, g, |i| Rec {
            place: placement(&grid, &fat_box(&boxes[i], margin)),
            loc: [NONE; 4],
            dirty,
        });
        ex.extend_with(&mut self.stale, m, g, |_| STALE);
        ex.extend_with(&mut self.kinds, m, g, |_| kind);
        ex.extend_with(&mut self.linked, m, g, |_| FREE_PLACE);
        ex.extend_with(&mut self.mark, m, g, |_| 0);
        // what `set_place` counts, per chunk
        let cb = even_bounds(m, chunk_count(m, g, MAX_CHUNKS));
        let levels = self.per_level.len();
        let added = &self.rec[start..];
        let counts = ex.map(cb.len() - 1, |c| {
            let mut per = vec![0u64; levels];
            let mut entries = 0u64;
            for p in added[cb[c]..cb[c + 1]].iter().map(|r| r.place) {
                per[p.level as usize] += 1;
                entries += (p.nx * p.ny) as u64;
            }
            (per, entries)
        });
        // a stop set by now finds nothing committed
        ex.check_stop();
        counts
    }

    /// The slots from `start` on, made by [`Tree::append`], taken in: the
    /// columns grown (to their defaults), the objects counted (`counts`),
    /// stale and dirty.
    fn appended(&mut self, start: usize, counts: Vec<(Vec<u64>, u64)>) {
        let len = self.rec.len();
        self.circles.grow(len);
        self.groups.grow(len);
        self.cats.grow(len);
        self.masks.grow(len);
        self.void.grow(len);
        self.dirty_bits.grow(len);
        for (per, entries) in counts {
            for (t, x) in self.per_level.iter_mut().zip(per) {
                *t += x;
            }
            self.nentries += entries;
        }
        self.stale_list.extend(start as u32..len as u32);
        if !self.all_dirty {
            self.dirty_list.extend(start as u32..len as u32);
        }
    }

    /// The placements of `boxes` grown by the margin (in parallel for big batches).
    fn placements(&self, boxes: &[[f64; 4]], ex: &Exec) -> Vec<Place> {
        let n = boxes.len();
        let nch = chunk_count(n, MOVE_GRAIN, MAX_CHUNKS);
        let cb = even_bounds(n, nch);
        let parts = ex.for_work(n, 2 * MOVE_GRAIN).map(nch, |c| {
            boxes[cb[c]..cb[c + 1]]
                .iter()
                .map(|b| self.placement(&self.grown(b)))
                .collect::<Vec<_>>()
        });
        parts.concat()
    }

    /// New boxes (and circles) for checked handles.
    ///
    /// The boxes are stored (in parallel for big batches); objects that
    /// change cells are placed at the next reader ([`Tree::settle`]) and
    /// relinked there.  In a move answered incrementally (of no more than
    /// `rebuild_share` of the objects), an object that keeps its cells has
    /// its entries' boxes rewritten here instead ([`Tree::keeps_cells`]).
    pub fn move_to(
        &mut self,
        handles: &[i64],
        boxes: &[[f64; 4]],
        circles: Option<&[[f64; 3]]>,
        ex: &Exec,
    ) {
        let n = handles.len();
        // n distinct objects moved: beyond the share, the next refresh
        // searches from scratch whatever else moves, so dirty marks would
        // never be read
        if self.beyond_rebuild(n) {
            self.all_dirty = true;
        }
        // A move of as many objects as make the next refresh parallel (its
        // queries, or a search from scratch): the pool wakes while the boxes
        // are stored, not when `pairs()` needs it.
        if n >= QUERY_PARALLEL {
            ex.wake();
        }
        let pool = ex;
        let ex = ex.for_work(n, 2 * MOVE_GRAIN);
        if ex.is_parallel() && circles.is_none() {
            return ex.install(|| self.move_in_parallel(handles, boxes, &ex));
        }
        // A move the next refresh answers incrementally: an object whose
        // entries are up to date and that stays in its cells has them
        // rewritten now (see "Placements and lists kept up to date when
        // read" above); the others wait for the next reader.
        // (not when the next refresh searches from scratch anyway: a first
        // one, or dirty objects piling up past the share over several moves)
        let now = !self.all_dirty
            && self.base.is_some()
            && !self.beyond_rebuild(self.dirty_list.len() + n);
        // the first move since the tree last placed objects: none of the
        // moves since has taken an object into other cells yet (those that
        // keep theirs here never reach `settle`, which counts the others)
        if self.unplaced == 0 {
            self.stats.relinked = 0;
        }
        for (k, (&h, b)) in handles.iter().zip(boxes).enumerate() {
            if now {
                // a few objects on, their records asked for now (each is at
                // a random place: the loop's time is mostly their misses);
                // half as far on, the entries they point to
                if let Some(&a) = handles.get(k + 2 * AHEAD) {
                    self.prefetch_record(a as usize);
                }
                if let Some(&a) = handles.get(k + AHEAD) {
                    if self.stale[a as usize] == 0 {
                        self.lists.prefetch_entry(self.rec[a as usize].loc[0]);
                    }
                }
            }
            let h = h as usize;
            self.boxes[h] = *b;
            if let Some(c) = circles {
                let slots = self.rec.len();
                self.circles.set_used(h, c[k], slots);
            }
            self.touch(h);
            if !(now && self.stale[h] == 0 && self.keeps_cells(h)) {
                self.mark_unplaced(h);
            }
        }
        // again at the end (adding nothing while the woken threads still
        // look for work): a move longer than their idle spell, on a loaded
        // machine, would otherwise leave them asleep for `pairs()`
        if n >= QUERY_PARALLEL {
            pool.wake();
        }
    }

    /// Ask for the per-slot records of `h` that a move reads.
    fn prefetch_record(&self, h: usize) {
        prefetch_at(&self.boxes, h);
        prefetch_at(&self.rec, h);
        prefetch_at(&self.stale, h);
        if self.margin > 0.0 {
            prefetch_at(&self.fat, h);
        }
    }

    /// For a fresh object `h` (its entries up to date before its box
    /// changed): if its new box keeps its placement (inside its fat box, or
    /// placed in the same cells, with its fat box then grown anew), rewrite
    /// its entries' boxes and say so; else change nothing (it is placed and
    /// relinked at the next reader, and counted in `stats().relinked`
    /// there, as [`Tree::settle`] places any moved object).
    ///
    /// A fresh object is linked where it is placed (`linked == place`,
    /// checked by `validate`), so its entries are at `rec[h].loc`.
    fn keeps_cells(&mut self, h: usize) -> bool {
        let (b, p, margin) = (self.boxes[h], self.rec[h].place, self.margin);
        let old_fat = (margin > 0.0).then(|| self.fat[h]);
        if let Some((f, new)) = replacement(&self.grid, margin, old_fat, &b) {
            if new != p {
                return false;
            }
            if margin > 0.0 {
                self.fat[h] = f;
            }
        }
        for r in 0..(p.nx * p.ny) as usize {
            self.lists.entry_mut(self.rec[h].loc[r]).b = b;
        }
        true
    }

    /// [`Tree::move_to`] of boxes on the pool: chunks fixed by the data store
    /// each object's box and mark it (dirty only while marks are kept), and
    /// collect the objects newly marked (then listed serially, in chunk
    /// order).
    // (not inlined: in `move_to` it slowed the serial loop of a small move)
    #[inline(never)]
    fn move_in_parallel(&mut self, handles: &[i64], boxes: &[[f64; 4]], ex: &Exec) {
        let n = handles.len();
        let mark_dirty = !self.all_dirty;
        let nch = chunk_count(n, MOVE_GRAIN, MAX_CHUNKS);
        let cb = even_bounds(n, nch);
        let bx = Scatter::new(&mut self.boxes);
        let rec = Scatter::new(&mut self.rec);
        let stale = Scatter::new(&mut self.stale);
        let chunk = |c: usize| {
            let mut out = Moved::default();
            for k in cb[c]..cb[c + 1] {
                let (h, b) = (handles[k] as usize, boxes[k]);
                // SAFETY: the handles were checked (`check_handles`: live,
                // each at most once), so chunk c alone touches position h of
                // these arrays while they are scattered: one writer, no race.
                unsafe {
                    bx.write(h, b);
                    if mark_dirty {
                        let mut r = rec.read(h);
                        if !r.dirty {
                            r.dirty = true;
                            rec.write(h, r);
                            out.dirty.push(h as u32);
                        }
                    }
                    let m = stale.read(h);
                    if m & UNPLACED == 0 {
                        stale.write(h, STALE | UNPLACED);
                        out.unplaced += 1;
                        if m & STALE == 0 {
                            out.stale.push(h as u32);
                        }
                    }
                }
            }
            out
        };
        // Stopped, the move finishes here, on this thread, with the chunks
        // that did not run (a store of their boxes; no stop is checked),
        // and then unwinds: a stopped move is a finished move.
        let (mut parts, stopped) = chunks_kept(ex, nch, chunk);
        if stopped.as_ref().is_some_and(|s| s.is::<Stopped>()) {
            for (c, part) in parts.iter_mut().enumerate() {
                if part.is_none() {
                    *part = Some(chunk(c));
                }
            }
        }
        for m in parts.into_iter().flatten() {
            self.dirty_list.extend(m.dirty);
            self.stale_list.extend(m.stale);
            self.unplaced += m.unplaced;
        }
        if let Some(stop) = stopped {
            resume_unwind(stop);
        }
    }

    /// Place every unplaced object by its box now (grown into a new fat box
    /// when it left its old one); count those whose cells changed as
    /// `stats().relinked`.  In parallel for many (the placements only read
    /// the tree), applied serially in list order.
    ///
    /// Every reader of the placements calls this first; `stats()` too.
    ///
    /// Stopped, it keeps what its finished chunks placed (their objects are
    /// placed, the others still unplaced) and unwinds: the next reader
    /// places the rest.
    pub fn settle(&mut self, ex: &Exec) {
        if self.unplaced == 0 {
            return;
        }
        let list = &self.stale_list;
        let nch = chunk_count(list.len(), MOVE_GRAIN, MAX_CHUNKS);
        let cb = even_bounds(list.len(), nch);
        let (grid, margin) = (self.grid, self.margin);
        let (boxes, rec) = (&self.boxes, &self.rec);
        let fat = Scatter::new(&mut self.fat);
        let stale = Scatter::new(&mut self.stale);
        let ex = ex.for_work(list.len(), 2 * MOVE_GRAIN);
        let (changed, stopped) = chunks_kept(&ex, nch, |c| {
            let mut out = Vec::new();
            let part = &list[cb[c]..cb[c + 1]];
            for (k, &h) in part.iter().enumerate() {
                if let Some(&a) = part.get(k + 2 * AHEAD) {
                    // a few objects on, their records asked for now
                    prefetch_at(boxes, a as usize);
                    prefetch_at(rec, a as usize);
                }
                let h = h as usize;
                // SAFETY: the stale list holds each slot once (`validate`
                // checks it), so chunk c alone touches position h of `stale`
                // and `fat` while they are scattered: one writer, no race.
                // Tested in parallel against a serial tree, with and without
                // margins: `parallel_move_equals_serial_move` (tests/tree.rs).
                unsafe {
                    if stale.read(h) & UNPLACED == 0 {
                        continue;
                    }
                    stale.write(h, STALE);
                    let old_fat = (margin > 0.0).then(|| fat.read(h));
                    let Some((f, p)) = replacement(&grid, margin, old_fat, &boxes[h]) else {
                        continue; // still inside its fat box: placement stands
                    };
                    if margin > 0.0 {
                        fat.write(h, f);
                    }
                    if p != rec[h].place {
                        out.push((h as u32, p));
                    }
                }
            }
            out
        });
        let mut relinked = 0;
        for (h, p) in changed.into_iter().flatten().flatten() {
            self.set_place(h as usize, p);
            relinked += 1;
        }
        if let Some(stop) = stopped {
            // the objects of the chunks that did not run are still unplaced
            let stale = &self.stale;
            self.unplaced = self
                .stale_list
                .iter()
                .filter(|&&h| stale[h as usize] & UNPLACED != 0)
                .count();
            self.relinked_stopped += relinked;
            resume_unwind(stop);
        }
        self.unplaced = 0;
        self.stats.relinked = std::mem::take(&mut self.relinked_stopped) + relinked;
    }

    /// Take checked handles out; their slots are reused by later inserts,
    /// the last call's first, and in a call the first handle first.
    pub fn remove(&mut self, handles: &[i64]) {
        self.removed.extend(handles.iter().map(|&h| h as u32));
        if self.removed.len() > 2 * self.rec.len() {
            // a tree removing and inserting with no refresh (queries only)
            // keeps each slot once
            self.removed.sort_unstable();
            self.removed.dedup();
        }
        for &h in handles {
            let h = h as usize;
            self.touch(h);
            if self.stale[h] & UNPLACED != 0 {
                self.stale[h] &= !UNPLACED;
                self.unplaced -= 1;
            }
            self.count_kinds(h, -1);
            self.unlink(h);
            self.set_place(h, FREE_PLACE);
        }
        // reused last-in first-out, the first of this call first
        self.free.extend(handles.iter().rev().map(|&h| h as u32));
        self.count -= handles.len();
    }

    /// Radii of checked circle handles (for moves that keep them).
    pub fn radii(&self, handles: &[i64]) -> Vec<f64> {
        handles
            .iter()
            .map(|&h| self.circles.get(h as usize)[2])
            .collect()
    }

    /// The fat box of `h` (its box without a margin).
    #[inline]
    fn fat_of(&self, h: usize) -> [f64; 4] {
        if self.margin > 0.0 {
            self.fat[h]
        } else {
            self.boxes[h]
        }
    }

    /// Grow `h`'s box into its fat box (nothing to store without a margin).
    #[inline]
    fn set_fat(&mut self, h: usize) {
        if self.margin > 0.0 {
            self.fat[h] = self.grown(&self.boxes[h]);
        }
    }

    #[inline]
    fn grown(&self, b: &[f64; 4]) -> [f64; 4] {
        fat_box(b, self.margin)
    }

    /// The cells a (fat) box enters.
    #[inline]
    fn placement(&self, b: &[f64; 4]) -> Place {
        placement(&self.grid, b)
    }

    fn cell_id(&self, level: u32, x: u32, y: u32) -> u32 {
        (cell_base(level) as u64 + encode(x as u64, y as u64)) as u32
    }

    /// Set `h`'s placement (its lists catch up when next read).
    fn set_place(&mut self, h: usize, p: Place) {
        let old = self.rec[h].place;
        if old.level != FREE {
            self.per_level[old.level as usize] -= 1;
            self.nentries -= (old.nx * old.ny) as u64;
        }
        if p.level != FREE {
            self.per_level[p.level as usize] += 1;
            self.nentries += (p.nx * p.ny) as u64;
        }
        self.rec[h].place = p;
        self.mark_stale(h);
    }

    /// Note that `h`'s entries in the lists no longer match it.
    fn mark_stale(&mut self, h: usize) {
        if self.stale[h] == 0 {
            self.stale[h] = STALE;
            self.stale_list.push(h as u32);
        }
    }

    /// Note that `h` moved: its placement (and so its lists) are outdated.
    fn mark_unplaced(&mut self, h: usize) {
        if self.stale[h] & UNPLACED == 0 {
            self.mark_stale(h);
            self.stale[h] |= UNPLACED;
            self.unplaced += 1;
        }
    }

    /// The cells of a placement, in entry order, with their tags.
    fn cells(&self, p: Place) -> impl Iterator<Item = (u32, u8)> + '_ {
        (0..(p.nx * p.ny) as usize).map(move |r| {
            let (x, y) = (
                p.cx + (r % p.nx as usize) as u32,
                p.cy + (r / p.nx as usize) as u32,
            );
            (self.cell_id(p.level as u32, x, y), lists::tag(r, p.nx))
        })
    }

    /// Enter `h` in the lists of its placement.
    fn link(&mut self, h: usize) {
        let p = self.rec[h].place;
        let b = self.boxes[h];
        let (cells, n) = self.cells_on_stack(p);
        let rec = &mut self.rec;
        for (r, &(cell, tag)) in cells[..n].iter().enumerate() {
            let e = Entry {
                b,
                id: h as u32,
                tag,
            };
            // the entries of the cell that changed place: their back-pointers
            rec[h].loc[r] = self.lists.push(cell, e, |m, at| *back(rec, m) = at);
        }
        self.linked[h] = p;
    }

    /// [`Tree::cells`] of `p` gathered on the stack (at most 2 x 2), and
    /// how many.
    fn cells_on_stack(&self, p: Place) -> ([(u32, u8); 4], usize) {
        let mut cells = [(0u32, 0u8); 4];
        let mut n = 0;
        for c in self.cells(p) {
            cells[n] = c;
            n += 1;
        }
        (cells, n)
    }

    /// Take `h` out of the lists it is in.
    fn unlink(&mut self, h: usize) {
        let p = self.linked[h];
        if p.level == FREE {
            return;
        }
        let (cells, n) = self.cells_on_stack(p);
        let rec = &mut self.rec;
        for (r, &(cell, _)) in cells[..n].iter().enumerate() {
            let at = rec[h].loc[r];
            // the entries of the cell that changed place: their back-pointers
            self.lists.remove(cell, at, |m, to| *back(rec, m) = to);
            rec[h].loc[r] = NONE;
        }
        self.linked[h] = FREE_PLACE;
    }

    /// Bring the lists up to date with every stale object.
    fn sync(&mut self, ex: &Exec) {
        if self.stale_list.is_empty() {
            return;
        }
        self.settle(ex);
        if self.stale_list.len() as f64 > self.relayout_share * self.count.max(1) as f64 {
            self.relayout(ex);
        } else {
            // Objects that kept their cells only get their entries' boxes
            // rewritten: in chunks fixed by the stale list, in parallel for
            // many.  The others are relinked after, serially, in list order.
            let list = &self.stale_list;
            let nch = chunk_count(list.len(), SYNC_GRAIN, MAX_CHUNKS);
            let cb = even_bounds(list.len(), nch);
            let (rec, linked, boxes) = (&self.rec, &self.linked, &self.boxes);
            let entries = Scatter::new(self.lists.entries_mut());
            let relink = ex.for_work(list.len(), 2 * SYNC_GRAIN).map(nch, |c| {
                let mut out = Vec::new();
                let part = &list[cb[c]..cb[c + 1]];
                for (k, &h) in part.iter().enumerate() {
                    // a few objects on, their records asked for now (each is
                    // at a random place: the loop's time is mostly their
                    // misses); half as far on, the entries they point to
                    if let Some(&a) = part.get(k + 2 * AHEAD) {
                        prefetch_at(linked, a as usize);
                        prefetch_at(rec, a as usize);
                    }
                    if let Some(&a) = part.get(k + AHEAD) {
                        if linked[a as usize].level != FREE {
                            entries.prefetch(rec[a as usize].loc[0] as usize);
                        }
                    }
                    let h = h as usize;
                    let p = rec[h].place;
                    if p.level == FREE {
                        continue; // removed: unlinked then
                    }
                    if linked[h] != p {
                        out.push(h as u32);
                        continue;
                    }
                    for r in 0..(p.nx * p.ny) as usize {
                        let at = rec[h].loc[r] as usize;
                        // SAFETY: the stale list holds each object once
                        // (`validate` checks it), and `rec[h].loc[r]` is the
                        // one location holding object h's entry r (the
                        // lists' back-pointers, checked by `validate`): so
                        // position `at` is read and written by this chunk
                        // alone.  Tested in parallel against the model
                        // frame by frame (`the_delta_grows_and_is_consolidated`,
                        // 2 threads, over 512 stale objects a frame).
                        unsafe {
                            let mut e = entries.read(at);
                            e.b = boxes[h];
                            entries.write(at, e);
                        }
                    }
                }
                out
            });
            for h in relink.into_iter().flatten() {
                self.unlink(h as usize);
                self.link(h as usize);
            }
        }
        for &h in &self.stale_list {
            self.stale[h as usize] = 0;
        }
        self.stale_list.clear();
    }

    /// Lay every list out anew, cell after cell (entries sorted by cell).
    ///
    /// Stopped (in the sort), it has changed nothing.
    fn relayout(&mut self, ex: &Exec) {
        let mut recs: Vec<(u64, u32)> = Vec::with_capacity(self.nentries as usize);
        for h in 0..self.rec.len() {
            let p = self.rec[h].place;
            if p.level != FREE {
                for (r, (cell, _)) in self.cells(p).enumerate() {
                    recs.push((cell as u64, (4 * h + r) as u32));
                }
            }
        }
        let bits = usize::BITS - self.rec.len().max(1).leading_zeros();
        let bits = bits.max(u32::BITS - (cell_base(self.grid.depth + 1) as u32).leading_zeros());
        let recs = crate::radix::sort(recs, 0, bits, ex);
        // nothing below stops; only stale objects can be linked elsewhere
        // than placed (`validate` checks the others)
        for &h in &self.stale_list {
            self.linked[h as usize] = self.rec[h as usize].place;
        }
        let entries: Vec<(u32, Entry)> = recs
            .iter()
            .map(|&(cell, nd)| {
                let (h, r) = (nd as usize / 4, nd as usize % 4);
                let tag = lists::tag(r, self.rec[h].place.nx);
                let e = Entry {
                    b: self.boxes[h],
                    id: h as u32,
                    tag,
                };
                (cell as u32, e)
            })
            .collect();
        let rec = &mut self.rec;
        self.lists.build(&entries, |k, at| {
            let nd = recs[k].1 as usize;
            rec[nd / 4].loc[nd % 4] = at;
        });
    }

    fn count_kinds(&mut self, h: usize, sign: isize) {
        let add = |v: &mut usize, yes: bool| *v = (*v as isize + sign * yes as isize) as usize;
        add(&mut self.ncircles, self.kinds[h] == CIRCLE);
        add(&mut self.ngrouped, self.groups.get(h) != 0);
        add(
            &mut self.nmasked,
            self.cats.get(h) != u64::MAX || self.masks.get(h) != u64::MAX,
        );
    }

    /// Mark `h` changed since the last `pairs()`.
    fn touch(&mut self, h: usize) {
        if !self.rec[h].dirty && !self.all_dirty {
            self.rec[h].dirty = true;
            self.dirty_list.push(h as u32);
        }
    }

    /// The narrow phase over the slots.
    fn narrow(&self) -> Narrow<'_> {
        Narrow {
            shapes: if self.ncircles > 0 {
                Shapes::Mixed {
                    kinds: &self.kinds,
                    circles: self.circles.all(),
                    boxes: &self.boxes,
                }
            } else {
                Shapes::Boxes
            },
            filters: Filters {
                // a column no object sets stays unallocated: all default
                groups: (self.ngrouped > 0).then_some(self.groups.all()),
                categories: (self.nmasked > 0 && !self.cats.all().is_empty())
                    .then_some(self.cats.all()),
                masks: (self.nmasked > 0 && !self.masks.all().is_empty())
                    .then_some(self.masks.all()),
            },
        }
    }

    // ------------------------------------------------------------------
    // queries

    /// Call `f(o, box)` once for every live object whose cells meet the
    /// cells `q` covers (a superset of the objects overlapping `q`), with the
    /// object's box.  The lists must be in sync.
    ///
    /// Returns the number of candidates.
    fn candidates(&self, q: &[f64; 4], mut f: impl FnMut(usize, &[f64; 4])) -> u64 {
        let mut n = 0u64;
        let listed = self.runs_met(q, |run, skip| {
            for e in run {
                if e.tag & skip == 0 {
                    f(e.id as usize, &e.b);
                    n += 1;
                }
            }
        });
        if !listed {
            for o in self.live() {
                f(o, &self.boxes[o]);
                n += 1;
            }
        }
        n
    }

    /// Call `f(run, skip)` for the entries of every cell that the cells `q`
    /// covers meet, at every occupied level: an entry counts (is read once
    /// over all runs) when `e.tag & skip == 0`, since entries past their
    /// object's first column count only in the query's first column (rows
    /// likewise).  The lists must be in sync.
    ///
    /// Returns false, having called nothing, when those cells hold more
    /// entries than there are objects (a scan of every object costs less).
    #[inline(always)]
    fn runs_met(&self, q: &[f64; 4], mut f: impl FnMut(&[Entry], u8)) -> bool {
        let c = self.grid.cells_of(q);
        let depth = self.grid.depth;
        // cells to visit at every occupied level; past the objects' count, scan them all
        let mut visits = 0u64;
        for l in 0..=depth {
            if self.per_level[l as usize] > 0 {
                let s = depth - l;
                visits += Placement::cells_met(c, s);
            }
        }
        if visits > self.count as u64 + 64 {
            return false;
        }
        for l in 0..=depth {
            if self.per_level[l as usize] > 0 {
                self.cells_met(c, l, |cell, skip| f(self.lists.run_of(cell), skip));
            }
        }
        true
    }

    /// `f(cell, skip)` for the cells of `level` that the cells `c` (a box's,
    /// by [`Grid::cells_of`]) cover, row by row: `skip` holds the tag bits
    /// whose entries count only in an earlier cell of the query (see
    /// [`Tree::runs_met`]).
    #[inline(always)]
    fn cells_met(&self, c: [u32; 4], level: u32, mut f: impl FnMut(u32, u8)) {
        let s = self.grid.depth - level;
        let (x0, y0, x1, y1) = (c[0] >> s, c[1] >> s, c[2] >> s, c[3] >> s);
        for y in y0..=y1 {
            let skip_y = if y == y0 { 0 } else { LATER_ROW };
            for x in x0..=x1 {
                let skip = if x == x0 { 0 } else { LATER_COLUMN } | skip_y;
                f(self.cell_id(level, x, y), skip);
            }
        }
    }

    /// Whether live object `o`, of box `b`, overlaps the box `q` (touching
    /// does not count).
    fn meets_box(&self, o: usize, b: &[f64; 4], q: &[f64; 4]) -> bool {
        boxes_overlap(b, q)
            && (self.kinds[o] != CIRCLE || box_circle_overlap(q, &self.circles.get(o)))
    }

    /// Sorted handles of the objects that overlap `q` (touching does not count).
    pub fn query(&mut self, q: &[f64; 4], ex: &Exec) -> Vec<u32> {
        self.sync(ex);
        let mut out = Vec::new();
        self.candidates(q, |o, b| {
            if self.meets_box(o, b, q) {
                out.push(o as u32);
            }
        });
        out.sort_unstable();
        out
    }

    /// Sorted handles of the objects that strictly contain the point `(x, y)`.
    pub fn query_point(&mut self, x: f64, y: f64, ex: &Exec) -> Vec<u32> {
        self.sync(ex);
        let mut out = Vec::new();
        self.candidates(&[x, y, x, y], |o, b| {
            let hit = if self.kinds[o] == CIRCLE {
                let c = &self.circles.get(o);
                circle_overlap(x, y, 0.0, c[0], c[1], c[2])
            } else {
                b[0] < x && x < b[2] && b[1] < y && y < b[3]
            };
            if hit {
                out.push(o as u32);
            }
        });
        out.sort_unstable();
        out
    }

    /// Sorted handles of the objects that collide with live object `h` by
    /// the rules of `pairs()` (filters included), `h` itself left out.
    pub fn touching(&mut self, h: u32, ex: &Exec) -> Vec<u32> {
        self.sync(ex);
        let narrow = self.narrow();
        let mut out = Vec::new();
        self.partners(&narrow, h as usize, |o| out.push(o as u32));
        out.sort_unstable();
        out
    }

    /// The runs a query of `q` reads at the occupied `levels` (as
    /// [`Tree::runs_met`] visits them), their entries asked for; `fits` is
    /// false when the query meets more than [`PLAN_RUNS`] cells.  (A plan
    /// never needs `runs_met`'s scan of every object, which takes more
    /// cells than objects.)
    #[inline(always)]
    fn plan(&self, q: &[f64; 4], levels: &[u32], plan: &mut Plan) {
        let c = self.grid.cells_of(q);
        let mut n = 0;
        for &l in levels {
            if n + Placement::cells_met(c, self.grid.depth - l) as usize > PLAN_RUNS {
                plan.fits = false;
                return;
            }
            self.cells_met(c, l, |cell, skip| {
                let (start, len) = self.lists.run(cell as usize);
                if len > 0 {
                    self.lists.prefetch_run(start, len);
                    plan.runs[n] = (start as u32, len as u32, skip);
                    n += 1;
                }
            });
        }
        plan.n = n;
        plan.fits = true;
    }

    /// `f(o)` for every object colliding with `h`; the candidate tests.
    #[inline(always)]
    fn partners(&self, narrow: &Narrow, h: usize, mut f: impl FnMut(usize)) -> u64 {
        let b = self.boxes[h];
        let mut n = 0u64;
        let listed = self.runs_met(&b, |run, skip| {
            n += partners_in(narrow, h, &b, run, skip, &mut f);
        });
        if !listed {
            for o in self.live() {
                n += 1;
                if o != h && boxes_overlap(&b, &self.boxes[o]) && narrow.accept(h, o) {
                    f(o);
                }
            }
        }
        n
    }

    /// The seeds' cell of live object `h`: `(level, index)` of the smallest
    /// cell holding its box ([`crate::morton::cell_of`]).
    pub fn locate(&self, h: u32) -> (u32, u64) {
        let q = self.grid.cells_of(&self.boxes[h as usize]);
        morton::cell_of(
            encode(q[0] as u64, q[1] as u64),
            encode(q[2] as u64, q[3] as u64),
            self.grid.depth,
        )
    }

    // ------------------------------------------------------------------
    // pairs

    /// Every colliding pair of live objects as rows `[i0, j0, i1, j1, ...]`
    /// (`i < j`, sorted by `i` then `j`): the array `pairs()` hands over.
    ///
    /// The next call re-examines only what changed since.
    pub fn pairs(&mut self, ex: &Exec, max_pairs: Option<u64>) -> Result<Vec<isize>, TooMany> {
        let r = self.refresh_on_pool(ex, max_pairs, false)?;
        Ok(r.rows.unwrap_or_default())
    }

    /// [`Tree::pairs`] packed `i << 32 | j`, sorted.
    pub fn pairs_packed(&mut self, ex: &Exec, max_pairs: Option<u64>) -> Result<Vec<u64>, TooMany> {
        let rows = self.pairs(ex, max_pairs)?;
        let packed = packed_rows(&rows).collect();
        scratch::give(rows);
        Ok(packed)
    }

    /// The pairs of the last `pairs()` or `update()` (none before the first),
    /// packed, sorted.
    pub fn last_pairs(&self) -> Vec<u64> {
        let mut out = Vec::new();
        if self.base.is_some() {
            self.kept_pairs().packed_into(&Exec::serial(), &mut out);
        }
        out
    }

    /// The pairs that began and that ended since the last `pairs()` or
    /// `update()` (all current pairs began, on the first call), packed, sorted.
    ///
    /// Costs what changed and its neighbours: the objects changed since and
    /// their pairs, plus one read of the kept pairs when objects change for
    /// the first time since those were last consolidated.
    pub fn update(&mut self, ex: &Exec, max_pairs: Option<u64>) -> Result<Events, TooMany> {
        let r = self.refresh_on_pool(ex, max_pairs, true)?;
        Ok(r.events.unwrap_or_default())
    }

    /// [`Tree::refresh`] run on the pool as a whole when an incremental frame
    /// is worth it (as a search is: its stages then wake the pool once).
    fn refresh_on_pool(
        &mut self,
        ex: &Exec,
        max_pairs: Option<u64>,
        events: bool,
    ) -> Result<Refreshed, TooMany> {
        // An incremental frame with few dirty objects and few pairs runs
        // here, serially: that costs less than waking the pool.  One whose
        // queries or merge split into chunks runs on the pool as a whole.
        // A search from scratch goes to the pool by itself (as a whole, when
        // worth it: `find_pairs`' rule).
        let worth = !self.will_rebuild()
            && (self.dirty_list.len() >= QUERY_PARALLEL || base_len(&self.base) >= 2 * MERGE_GRAIN);
        let on = if worth { ex.clone() } else { Exec::serial() };
        on.install(|| self.refresh(ex, max_pairs, events))
    }

    /// Whether the next refresh searches from scratch (a first call, or
    /// more than `rebuild_share` of the objects dirty).
    fn will_rebuild(&self) -> bool {
        match &self.base {
            None => true,
            Some(_) => self.all_dirty || self.beyond_rebuild(self.dirty_list.len()),
        }
    }

    /// Whether `dirty` dirty objects are more than `rebuild_share` of them.
    fn beyond_rebuild(&self, dirty: usize) -> bool {
        dirty as f64 > self.rebuild_share * self.count.max(1) as f64
    }

    /// Bring the pairs up to date: the rows (for `pairs()`) or the events
    /// (for `update()`).
    fn refresh(
        &mut self,
        ex: &Exec,
        max_pairs: Option<u64>,
        events: bool,
    ) -> Result<Refreshed, TooMany> {
        let rebuild = self.will_rebuild();
        let r = if rebuild {
            // (a stopped search drops the buffer and the kept grid order it
            // took: a search without them is as exact)
            let spare = std::mem::take(&mut self.spare);
            let mut kept = std::mem::take(&mut self.kept);
            let found = self.search(ex, max_pairs, spare, &mut kept);
            // a stop set by now finds nothing committed
            ex.check_stop();
            self.kept = kept;
            let (new, tests, flat) = found?;
            self.since_search = 0;
            let ev = events.then(|| events_between(&self.last_pairs(), &new, &self.gone()));
            self.set_base(new);
            let rows = if events {
                scratch::give(flat);
                None
            } else {
                Some(flat)
            };
            Refreshed {
                rows,
                tests,
                events: ev,
            }
        } else {
            // (a stopped sync leaves the lists valid for the next one to
            // finish, a stopped step the kept pairs as they were)
            self.sync(ex);
            let r = self.step(ex, max_pairs, events);
            self.since_search = self.since_search.saturating_add(1);
            if self.since_search > coherent::AGE {
                self.kept.clear();
            }
            r?
        };
        for &h in &self.dirty_list {
            self.rec[h as usize].dirty = false;
        }
        self.dirty_list.clear();
        self.removed.clear();
        self.all_dirty = false;
        self.stats.candidate_tests = r.tests;
        self.stats.pairs = self.pair_count() as u64;
        self.stats.rebuilt = rebuild;
        Ok(r)
    }

    /// The slots removed since the last refresh, sorted, each once.
    fn gone(&self) -> Vec<u32> {
        let mut g = self.removed.clone();
        g.sort_unstable();
        g.dedup();
        g
    }

    /// How many pairs are kept: the standing base pairs and the delta.
    fn pair_count(&self) -> usize {
        self.kept_pairs().len()
    }

    /// Kept pairs from now on: `new`, none void (the old base's buffer
    /// serves the next consolidation or search: no fresh pages).
    fn set_base(&mut self, new: Vec<u64>) {
        for &h in &self.void_list {
            self.void.set(h as usize, false);
        }
        self.void_list.clear();
        self.delta.clear();
        self.void_at.clear();
        if let Some(old) = self.base.replace(new) {
            self.spare = old;
        }
    }

    /// An incremental refresh: the dirty objects' pairs by queries, the
    /// other pairs kept (see "Pairs kept from frame to frame" above).
    ///
    /// Everything that may stop is worked out first ([`Tree::plan_step`],
    /// reading the tree only), then committed with no chunk left to run:
    /// a stopped step leaves the kept pairs, and so the next call's events,
    /// as they were.
    fn step(
        &mut self,
        ex: &Exec,
        max_pairs: Option<u64>,
        events: bool,
    ) -> Result<Refreshed, TooMany> {
        // the dirty marks as bits, like the void ones: both stay in cache
        // while every kept pair is read (cleared again below, also when the
        // plan stops)
        for &h in &self.dirty_list {
            self.dirty_bits.set(h as usize, true);
        }
        let mut spare = std::mem::take(&mut self.spare);
        let planned = catch_unwind(AssertUnwindSafe(|| {
            self.plan_step(ex, max_pairs, events, &mut spare)
        }));
        for &h in &self.dirty_list {
            self.dirty_bits.set(h as usize, false);
        }
        self.spare = spare;
        let s = match planned {
            Ok(s) => s?,
            Err(stop) => resume_unwind(stop),
        };
        for &h in &s.newly {
            self.void.set(h as usize, true);
        }
        self.void_list.extend(s.newly);
        self.delta = s.delta;
        if let Some(at) = s.void_at {
            self.void_at = at;
        }
        if let Some(base) = s.base {
            self.set_base(base);
        }
        Ok(Refreshed {
            rows: s.rows,
            tests: s.tests,
            events: s.events,
        })
    }

    /// The new kept pairs of an incremental refresh, its rows or events,
    /// from the tree as it is (the dirty objects' bits set in
    /// `dirty_bits`); `spare` serves a new base.
    fn plan_step(
        &self,
        ex: &Exec,
        max_pairs: Option<u64>,
        events: bool,
        spare: &mut Vec<u64>,
    ) -> Result<StepPlan, TooMany> {
        let (fresh, tests) = self.fresh_pairs(ex);
        let base = self.base.as_deref().unwrap_or(&[]);
        let (dirty, void) = (&self.dirty_bits, &self.void);
        // The delta's pairs with a dirty object are replaced by the fresh
        // ones (the dirty objects' current pairs, all of them).
        let (old_delta, kept): (Vec<u64>, Vec<u64>) =
            self.delta.iter().partition(|&&p| dirty.either(p));
        let mut delta = vec![0; kept.len() + fresh.len()];
        coherent::merge_into(&kept, &fresh, &mut delta);
        // Dirty objects void from now on: their base pairs stop counting.
        let newly: Vec<u32> = self
            .dirty_list
            .iter()
            .copied()
            .filter(|&h| !void.get(h as usize))
            .collect();
        let nch = base_chunks(base.len());
        let lb = even_bounds(base.len(), nch);
        let mx = ex.for_work(base.len(), 2 * MERGE_GRAIN);
        // One read of the base when objects become void: the positions of
        // its pairs with a void object found again (void before, or dirty
        // now), and for events the last pairs it loses (standing before,
        // with a dirty object now; a pair with an object void before was
        // not standing).
        let (void_at, old_base): (Option<Vec<usize>>, Vec<u64>) = if newly.is_empty() {
            (None, Vec::new())
        } else {
            let (at, lost): (Vec<Vec<usize>>, Vec<Vec<u64>>) = mx
                .map(nch, |c| {
                    let (mut at, mut lost) = (Vec::new(), Vec::new());
                    for (i, &p) in base[lb[c]..lb[c + 1]].iter().enumerate() {
                        let was = void.either(p);
                        if was || dirty.either(p) {
                            at.push(lb[c] + i);
                            if !was && events {
                                lost.push(p);
                            }
                        }
                    }
                    (at, lost)
                })
                .into_iter()
                .unzip();
            (Some(at.concat()), lost.concat())
        };
        let now = KeptPairs {
            base,
            delta: &delta,
            void_at: void_at.as_deref().unwrap_or(&self.void_at),
        };
        let total = now.len();
        // the memory budget is read only for results that could exceed it
        if (total >= 1 << 16 || max_pairs.is_some()) && total as u64 > Budget::of(max_pairs).limit()
        {
            return Err(TooMany(total as u64));
        }
        // The last pairs with a dirty object: the delta's and the base's.
        let ev = events.then(|| {
            let mut old = old_delta;
            if !old_base.is_empty() {
                old.extend(old_base);
                old.sort_unstable();
            }
            events_between(&old, &fresh, &self.gone())
        });
        // Objects void but no longer dirty (they moved in earlier frames,
        // not in this one) leave runs in the base that every frame's merge
        // skips: past as many again as the dirty ones, the rows' pass also
        // writes the current pairs packed, which become the base.
        let fuse =
            !events && self.void_list.len() + newly.len() >= 2 * self.dirty_list.len().max(1);
        let mut packed = if fuse {
            let mut v = std::mem::take(spare);
            v.clear();
            v.reserve(total);
            v
        } else {
            Vec::new()
        };
        let rows = (!events).then(|| {
            let mut rows = scratch::result(2 * total);
            let to = Scatter::new(&mut packed.spare_capacity_mut()[..if fuse { total } else { 0 }]);
            now.merged_into(ex, &mut rows, |out: &mut [MaybeUninit<isize>; 2], k, p| {
                out[0].write((p >> 32) as isize);
                out[1].write(p as u32 as isize);
                if fuse {
                    // SAFETY: pair index k is below `total` and written by
                    // the one chunk whose slots hold it (the chunks' parts
                    // tile the merged order): one writer per position.
                    unsafe { to.write(k, MaybeUninit::new(p)) };
                }
            });
            rows
        });
        let new_base = if fuse {
            // SAFETY: `merged_into` wrote every pair index below `total`
            // (its slots tile the merged order, asserted per chunk), so the
            // first `total` elements are initialized.  Tested by the frames
            // of `void_objects_are_consolidated_with_the_rows` against the
            // naive pairs.
            unsafe { packed.set_len(total) };
            Some(packed)
        } else if delta.len() > (base.len() / 8).saturating_add(self.consolidate_from) {
            // Consolidate once the delta outgrows a share of the base: the
            // frames read the delta whole.
            let mut packed = std::mem::take(spare);
            now.packed_into(ex, &mut packed);
            Some(packed)
        } else {
            None
        };
        // a stop set by now finds nothing committed
        ex.check_stop();
        Ok(StepPlan {
            delta,
            newly,
            void_at,
            base: new_base,
            rows,
            tests,
            events: ev,
        })
    }

    /// The kept pairs as they stand.
    fn kept_pairs(&self) -> KeptPairs<'_> {
        KeptPairs {
            base: self.base.as_deref().unwrap_or(&[]),
            delta: &self.delta,
            void_at: &self.void_at,
        }
    }

    /// All pairs from scratch: the pair search over the live objects;
    /// packed, and as the search's flat rows.
    ///
    /// With every slot live and enough objects for the grid method, the
    /// grid entries are kept in `kept` and brought up to date by the next
    /// search.
    fn search(
        &self,
        ex: &Exec,
        max_pairs: Option<u64>,
        mut out: Vec<u64>,
        kept: &mut coherent::State,
    ) -> Result<(Vec<u64>, u64, Vec<isize>), TooMany> {
        // free slots leave holes: the search then runs over the live rows
        let compact = self.count < self.rec.len();
        let live: Vec<u32> = if compact {
            self.live().map(|h| h as u32).collect()
        } else {
            Vec::new()
        };
        let (boxes, circles, kinds, groups, cats, masks);
        let narrow = if compact {
            boxes = gather_rows(&self.boxes, &live);
            circles = gather_rows(self.circles.all(), &live);
            kinds = gather_rows(&self.kinds, &live);
            groups = gather_rows(self.groups.all(), &live);
            cats = gather_rows(self.cats.all(), &live);
            masks = gather_rows(self.masks.all(), &live);
            let mut n = self.narrow();
            if let Shapes::Mixed { .. } = n.shapes {
                n.shapes = Shapes::Mixed {
                    kinds: &kinds,
                    circles: &circles,
                    boxes: &boxes,
                };
            }
            n.filters = Filters {
                groups: n.filters.groups.map(|_| &groups[..]),
                categories: n.filters.categories.map(|_| &cats[..]),
                masks: n.filters.masks.map(|_| &masks[..]),
            };
            n
        } else {
            boxes = Vec::new();
            self.narrow()
        };
        let all = if compact { &boxes[..] } else { &self.boxes[..] };
        // the kept orders pack the pairs into the old pairs' buffer as they
        // put them in order
        if !compact && all.len() >= search::SWEEP_BELOW {
            let (flat, tests) = coherent::find(all, &narrow, max_pairs, ex, kept, &mut out);
            return flat.map(|flat| (out, tests, flat));
        }
        if !compact && few::serves(all.len()) {
            let (flat, tests) = few::find(all, &narrow, max_pairs, kept.for_few(), &mut out);
            return flat.map(|flat| (out, tests, flat));
        }
        kept.clear();
        let s = Search {
            boxes: all,
            bounds: bounds_of(all),
            narrow,
            method: Method::Auto,
            max_pairs,
        };
        let (flat, tests) = search::find_pairs_counted(&s, ex);
        let mut flat = flat?;
        if compact {
            // live is ascending: the handles keep the canonical order
            flat.iter_mut()
                .for_each(|v| *v = live[*v as usize] as isize);
        }
        // packed into the old pairs' buffer (no fresh pages)
        crate::pairs::pack_rows(&flat, &mut out, ex);
        Ok((out, tests, flat))
    }

    /// The current pairs of the dirty live objects, sorted, from a query of
    /// each (chunks of [`QUERY_GRAIN`] in parallel); the candidate tests.
    fn fresh_pairs(&self, ex: &Exec) -> (Vec<u64>, u64) {
        // (a dirty slot is free only if removed since the last refresh)
        let mut dirty: Vec<u32> = if !self.removed.is_empty() {
            let live = self.dirty_list.iter().copied();
            live.filter(|&h| self.contains(h as u64)).collect()
        } else {
            self.dirty_list.clone()
        };
        dirty.sort_unstable();
        let narrow = self.narrow();
        let nch = chunk_count(dirty.len(), QUERY_GRAIN, MAX_CHUNKS);
        let cb = even_bounds(dirty.len(), nch);
        let depth = self.grid.depth;
        let levels: Vec<u32> = (0..=depth)
            .filter(|&l| self.per_level[l as usize] > 0)
            .collect();
        let parts = ex.for_work(dirty.len(), QUERY_PARALLEL).map(nch, |c| {
            let mut out = Vec::new();
            let mut tests = 0;
            let part = &dirty[cb[c]..cb[c + 1]];
            // Each query's runs are planned (found and asked for) AHEAD
            // queries before it runs, in a ring of plans; the box of the one
            // 2 AHEAD on is asked for first.  (Their time is mostly memory.)
            let mut plans = [Plan::default(); AHEAD + 1];
            for (k, &a) in part.iter().enumerate().take(AHEAD) {
                self.plan(&self.boxes[a as usize], &levels, &mut plans[k]);
            }
            for (k, &h) in part.iter().enumerate() {
                if let Some(&a) = part.get(k + 2 * AHEAD) {
                    prefetch_at(&self.boxes, a as usize);
                }
                if let Some(&a) = part.get(k + AHEAD) {
                    let next = &mut plans[(k + AHEAD) % (AHEAD + 1)];
                    self.plan(&self.boxes[a as usize], &levels, next);
                }
                let h = h as usize;
                let plan = &plans[k % (AHEAD + 1)];
                let mut emit = |o: usize| out.push(crate::pairs::pack(h as u32, o as u32));
                if !plan.fits {
                    tests += self.partners(&narrow, h, emit);
                } else {
                    let b = self.boxes[h];
                    for &(start, len, skip) in &plan.runs[..plan.n] {
                        let run = self.lists.entries(start as usize, len as usize);
                        tests += partners_in(&narrow, h, &b, run, skip, &mut emit);
                    }
                }
            }
            (out, tests)
        });
        let tests = parts.iter().map(|p| p.1).sum();
        let mut fresh = Vec::with_capacity(parts.iter().map(|p| p.0.len()).sum());
        for p in &parts {
            fresh.extend_from_slice(&p.0);
        }
        // A pair of two dirty objects was found from both: twice, side by
        // side once sorted.  (Asking whether a partner is dirty, to find it
        // once, cost a lookup at a random place per pair.)
        fresh.sort_unstable();
        fresh.dedup();
        (fresh, tests)
    }

    // ------------------------------------------------------------------
    // checks

    /// The lists' entries of slot `h` against where it is linked; a fresh
    /// (not stale) object is linked where it is placed, with its box.
    fn check_lists_of(&self, h: usize) -> Result<(), String> {
        let l = self.linked[h];
        if l.level == FREE {
            return if self.rec[h].place.level == FREE || self.stale[h] != 0 {
                Ok(())
            } else {
                Err(format!("object {h}: not in the lists nor stale"))
            };
        }
        if self.stale[h] == 0 && (l != self.rec[h].place) {
            return Err(format!(
                "object {h}: linked at {l:?}, placed at {:?}",
                self.rec[h].place
            ));
        }
        for (r, (cell, tag)) in self.cells(l).enumerate() {
            let at = self.rec[h].loc[r];
            if !self.lists.holds(cell, at) {
                return Err(format!("object {h}: entry {r} at {at} not in cell {cell}"));
            }
            let e = self.lists.entry(at);
            if e.id as usize != h || e.tag != tag {
                return Err(format!("object {h}: entry {r} at {at} is {e:?}"));
            }
            if self.stale[h] == 0 && e.b != self.boxes[h] {
                return Err(format!(
                    "object {h}: entry {r} holds box {:?}, not {:?}",
                    e.b, self.boxes[h]
                ));
            }
        }
        Ok(())
    }

    /// Check every invariant; the first broken one, named.  O(slots + cells).
    pub fn validate(&self) -> Result<(), String> {
        let n = self.rec.len();
        let live = self.live().count();
        if live != self.count {
            return Err(format!("count {} != live slots {live}", self.count));
        }
        let mut free = self.free.clone();
        free.sort_unstable();
        let want: Vec<u32> = (0..n as u32)
            .filter(|&h| !self.contains(h as u64))
            .collect();
        if free != want {
            return Err("free list != removed slots".into());
        }
        let mut per_level = vec![0u64; self.per_level.len()];
        let mut linked_entries = 0usize;
        for h in 0..n {
            let p = self.rec[h].place;
            self.check_lists_of(h)?;
            let l = self.linked[h];
            linked_entries += if l.level == FREE {
                0
            } else {
                (l.nx * l.ny) as usize
            };
            if p.level == FREE {
                if l.level != FREE {
                    return Err(format!("removed object {h} still in the lists"));
                }
                continue;
            }
            per_level[p.level as usize] += 1;
            if self.stale[h] & UNPLACED != 0 {
                continue; // moved since placed: checked once placed
            }
            let b = &self.boxes[h];
            let f = &self.fat_of(h);
            if !(f[0] <= b[0] && f[1] <= b[1] && b[2] <= f[2] && b[3] <= f[3]) {
                return Err(format!("object {h}: box {b:?} outside its fat box {f:?}"));
            }
            let want = self.placement(f);
            if p != want {
                return Err(format!(
                    "object {h}: placement {p:?}, its fat box gives {want:?}"
                ));
            }
            // its cells lie inside its seeds' cell
            let (sl, si) = {
                let q = self.grid.cells_of(f);
                morton::cell_of(
                    encode(q[0] as u64, q[1] as u64),
                    encode(q[2] as u64, q[3] as u64),
                    self.grid.depth,
                )
            };
            for r in 0..(p.nx * p.ny) as usize {
                let (x, y) = (
                    p.cx + (r % p.nx as usize) as u32,
                    p.cy + (r / p.nx as usize) as u32,
                );
                if sl > p.level as u32
                    || encode(x as u64, y as u64) >> (2 * (p.level as u32 - sl)) != si
                {
                    return Err(format!(
                        "object {h}: cell ({x}, {y}) at level {} outside its seeds' cell ({sl}, {si})",
                        p.level
                    ));
                }
            }
        }
        if per_level != self.per_level {
            return Err(format!(
                "objects per level {:?}, counted {:?}",
                per_level, self.per_level
            ));
        }
        let in_lists = self.lists.check()?;
        if in_lists != linked_entries {
            return Err(format!(
                "{in_lists} entries in the lists, {linked_entries} linked"
            ));
        }
        let mut stale: Vec<u32> = (0..n as u32)
            .filter(|&h| self.stale[h as usize] != 0)
            .collect();
        if self
            .stale
            .iter()
            .any(|&m| m == UNPLACED || m > STALE | UNPLACED)
        {
            return Err("a stale mark unplaced but not stale, or with unknown bits".into());
        }
        let unplaced = self.stale.iter().filter(|&&m| m & UNPLACED != 0).count();
        if unplaced != self.unplaced {
            return Err(format!(
                "{unplaced} unplaced objects, {} counted",
                self.unplaced
            ));
        }
        let mut listed = self.stale_list.clone();
        listed.sort_unstable();
        stale.sort_unstable();
        if stale != listed {
            return Err("stale marks != stale list".into());
        }
        let (mut nc, mut ng, mut nm) = (0, 0, 0);
        for h in self.live() {
            nc += (self.kinds[h] == CIRCLE) as usize;
            ng += (self.groups.get(h) != 0) as usize;
            nm += (self.cats.get(h) != u64::MAX || self.masks.get(h) != u64::MAX) as usize;
        }
        if (nc, ng, nm) != (self.ncircles, self.ngrouped, self.nmasked) {
            return Err("counts of circles, grouped and masked objects are off".into());
        }
        self.check_kept_pairs()
    }

    /// The kept pairs' invariants ("Pairs kept from frame to frame"): base
    /// and delta sorted and canonical, every delta pair with a void object,
    /// every pair of two live objects (or of objects changed since the last
    /// call), the void list matching the
    /// marks, and the positions of the base's pairs with a void object.
    fn check_kept_pairs(&self) -> Result<(), String> {
        let Some(base) = &self.base else {
            return if self.delta.is_empty() && self.void_list.is_empty() && self.void_at.is_empty()
            {
                Ok(())
            } else {
                Err("pairs kept before the first call".into())
            };
        };
        let n = self.rec.len();
        let canonical = |v: &[u64]| {
            v.windows(2).all(|w| w[0] < w[1])
                && v.iter()
                    .all(|&p| (p >> 32) < p as u32 as u64 && (p as u32 as usize) < n)
        };
        if !canonical(base) || !canonical(&self.delta) {
            return Err("kept pairs not sorted, not i < j or past the slots".into());
        }
        if let Some(p) = self.delta.iter().find(|&&p| !self.void.either(p)) {
            return Err(format!("delta pair {p:#x} without a void object"));
        }
        // live, or changed since the last call (a removal not yet refreshed)
        let live =
            |h: usize| self.rec[h].place.level != FREE || self.rec[h].dirty || self.all_dirty;
        if let Some(p) = self
            .delta
            .iter()
            .find(|&&p| !live((p >> 32) as usize) || !live(p as u32 as usize))
        {
            return Err(format!("delta pair {p:#x} of a free slot"));
        }
        let mut marked = (0..n).filter(|&h| self.void.get(h)).collect::<Vec<_>>();
        let mut listed: Vec<usize> = self.void_list.iter().map(|&h| h as usize).collect();
        marked.sort_unstable();
        listed.sort_unstable();
        if marked != listed {
            return Err("void marks != void list".into());
        }
        let mut at = Vec::new();
        for (i, &p) in base.iter().enumerate() {
            if self.void.either(p) {
                at.push(i);
            } else if !live((p >> 32) as usize) || !live(p as u32 as usize) {
                return Err(format!("standing pair {p:#x} of a free slot"));
            }
        }
        if at != self.void_at {
            return Err(format!(
                "{} base pairs with a void object, {} positions kept",
                at.len(),
                self.void_at.len()
            ));
        }
        Ok(())
    }
}

/// Kept pairs (see "Pairs kept from frame to frame"): the pairs of `base`
/// but those at the positions `void_at` (ascending), and the `delta`
/// (sorted, disjoint from them).
struct KeptPairs<'a> {
    base: &'a [u64],
    delta: &'a [u64],
    void_at: &'a [usize],
}

/// What [`Tree::plan_step`] worked out, for [`Tree::step`] to commit.
struct StepPlan {
    /// The new delta.
    delta: Vec<u64>,
    /// The dirty objects void from now on.
    newly: Vec<u32>,
    /// The positions of the base's pairs with a void object, if found again.
    void_at: Option<Vec<usize>>,
    /// A new base (every current pair), if the rows' pass or a
    /// consolidation made one.
    base: Option<Vec<u64>>,
    rows: Option<Vec<isize>>,
    tests: u64,
    events: Option<Events>,
}

impl KeptPairs<'_> {
    /// How many pairs: the standing base pairs and the delta.
    fn len(&self) -> usize {
        self.base.len() - self.void_at.len() + self.delta.len()
    }

    /// The current pairs, packed, into `out` (see [`KeptPairs::merged_into`]).
    fn packed_into(&self, ex: &Exec, out: &mut Vec<u64>) {
        self.merged_into(ex, out, |slot: &mut [MaybeUninit<u64>; 1], _, p| {
            slot[0].write(p);
        });
    }

    /// The current pairs, the standing base pairs merged with the delta,
    /// into `out` (emptied first): `W` slots a pair, written by `emit`.
    /// In chunks of the base fixed by its length, each merging the delta's
    /// pairs of its key range (base and delta are disjoint, so the ranges
    /// split the merged order exactly).  A chunk copies the runs of the base
    /// between its void positions and the delta's pairs, each pair's place
    /// in the base found by galloping from the last: a loop with no test
    /// per pair, however many pairs stand.
    fn merged_into<T: Send, const W: usize>(
        &self,
        ex: &Exec,
        out: &mut Vec<T>,
        emit: impl Fn(&mut [MaybeUninit<T>; W], usize, u64) + Sync,
    ) {
        let (base, delta, void_at) = (self.base, self.delta, self.void_at);
        let nch = base_chunks(base.len());
        let lb = even_bounds(base.len(), nch);
        let fb: Vec<usize> = (0..=nch)
            .map(|c| match c {
                0 => 0,
                c if c == nch => delta.len(),
                c => delta.partition_point(|&f| f < base[lb[c]]),
            })
            .collect();
        let vb: Vec<usize> = lb
            .iter()
            .map(|&b| void_at.partition_point(|&v| v < b))
            .collect();
        let mut ob = Vec::with_capacity(nch + 1);
        ob.push(0usize);
        for c in 0..nch {
            let standing = lb[c + 1] - lb[c] - (vb[c + 1] - vb[c]);
            ob.push(ob[c] + W * (standing + fb[c + 1] - fb[c]));
        }
        let len = ob[nch];
        out.clear();
        out.reserve(len);
        let parts = split_at_bounds(&mut out.spare_capacity_mut()[..len], &ob);
        ex.for_work(base.len(), 2 * MERGE_GRAIN)
            .each(parts, |c, part| {
                let (slots, rest) = part.as_chunks_mut::<W>();
                debug_assert!(rest.is_empty());
                let src = &base[lb[c]..lb[c + 1]];
                // the index of this chunk's first pair in the merged order
                let first = ob[c] / W;
                let mut voids = void_at[vb[c]..vb[c + 1]]
                    .iter()
                    .map(|&v| v - lb[c])
                    .peekable();
                let mut o = 0;
                // the standing pairs of src[a..b] into the slots from o on
                let mut standing = |slots: &mut [[MaybeUninit<T>; W]],
                                    a: usize,
                                    b: usize,
                                    o: &mut usize| {
                    let mut a = a;
                    while let Some(v) = voids.next_if(|&v| v < b) {
                        for (t, (slot, &p)) in slots[*o..].iter_mut().zip(&src[a..v]).enumerate() {
                            emit(slot, first + *o + t, p);
                        }
                        *o += v - a;
                        a = v + 1;
                    }
                    for (t, (slot, &p)) in slots[*o..].iter_mut().zip(&src[a..b]).enumerate() {
                        emit(slot, first + *o + t, p);
                    }
                    *o += b - a;
                };
                let mut i = 0;
                for &d in &delta[fb[c]..fb[c + 1]] {
                    let at = i + gallop(&src[i..], d);
                    standing(slots, i, at, &mut o);
                    emit(&mut slots[o], first + o, d);
                    o += 1;
                    i = at;
                }
                standing(slots, i, src.len(), &mut o);
                // every slot of this chunk's part written
                assert_eq!(o, slots.len(), "a merge chunk fills its part exactly");
            });
        // SAFETY: the parts tile 0..len (ob runs from 0 to len), and each
        // chunk wrote every slot of its part (asserted above: `emit` writes
        // all `W` slots it is given, and the chunk's pairs are exactly its
        // standing pairs, its base range less its void positions, plus its
        // delta range).  Tested by the tree tests comparing `pairs()` with
        // the naive pairs frame by frame (`merge_in_chunks_keeps_every_pair`
        // and tests/test_tree.py).
        unsafe { out.set_len(len) };
    }
}

/// What one chunk of a parallel move marked.
#[derive(Default)]
struct Moved {
    dirty: Vec<u32>,
    stale: Vec<u32>,
    unplaced: usize,
}

/// `f(c)` for every chunk `c < n` on `ex`, each result kept in its slot as
/// soon as its chunk is done; and what the step unwound with, if it did (a
/// stop, at the start of a chunk).  A stopped step leaves the slots of the
/// chunks that ran filled and the others `None` (when it unwinds, no chunk
/// is still running): their caller keeps what those chunks did.
fn chunks_kept<T: Send>(
    ex: &Exec,
    n: usize,
    f: impl Fn(usize) -> T + Sync + Send,
) -> (Vec<Option<T>>, Option<Box<dyn std::any::Any + Send>>) {
    let mut slots: Vec<Option<T>> = (0..n).map(|_| None).collect();
    let parts: Vec<&mut Option<T>> = slots.iter_mut().collect();
    let ran = catch_unwind(AssertUnwindSafe(|| {
        ex.each(parts, |c, slot| *slot = Some(f(c)));
    }));
    (slots, ran.err())
}

/// Whether box `b` lies inside the fat box `f`.
#[inline(always)]
fn inside(f: &[f64; 4], b: &[f64; 4]) -> bool {
    f[0] <= b[0] && f[1] <= b[1] && b[2] <= f[2] && b[3] <= f[3]
}

/// `b` grown by `m` on every side (rounding can only grow it further).
#[inline(always)]
fn grown(b: &[f64; 4], m: f64) -> [f64; 4] {
    [b[0] - m, b[1] - m, b[2] + m, b[3] + m]
}

/// The box an object of box `b` is placed by: grown by `margin` if any.
#[inline(always)]
fn fat_box(b: &[f64; 4], margin: f64) -> [f64; 4] {
    if margin > 0.0 {
        grown(b, margin)
    } else {
        *b
    }
}

/// Where a moved object of box `b` belongs, the one rule of
/// [`Tree::settle`] and [`Tree::keeps_cells`]: `None` while `b` stays inside
/// its fat box `fat` (given with a margin: its placement stands), else the
/// box it is now placed by ([`fat_box`]: its new fat box) and the cells
/// that box enters.
#[inline(always)]
fn replacement(
    grid: &Grid,
    margin: f64,
    fat: Option<[f64; 4]>,
    b: &[f64; 4],
) -> Option<([f64; 4], Place)> {
    if fat.is_some_and(|f| inside(&f, b)) {
        return None;
    }
    let f = fat_box(b, margin);
    Some((f, placement(grid, &f)))
}

/// The cells a (fat) box enters on `grid`: the quadtree rule with slack 0.
#[inline(always)]
fn placement(grid: &Grid, b: &[f64; 4]) -> Place {
    let q = grid.cells_of(b);
    let l = quadtree::level(q, grid.depth, 0);
    let s = grid.depth - l;
    Place {
        level: l as u8,
        nx: 1 + (q[2] >> s != q[0] >> s) as u8,
        ny: 1 + (q[3] >> s != q[1] >> s) as u8,
        cx: q[0] >> s,
        cy: q[1] >> s,
    }
}

/// Contact events: pairs that began and pairs that ended, packed, sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Events {
    /// Pairs now colliding that did not before.
    pub began: Vec<u64>,
    /// Pairs that collided before and do not now.
    pub ended: Vec<u64>,
}

/// A set of slots, a bit each: small enough to stay in cache while a frame
/// looks up both objects of every kept pair.
#[derive(Clone, Debug, Default)]
struct Bits(Vec<u64>);

impl Bits {
    /// Room for `slots` slots (the new ones out).
    fn grow(&mut self, slots: usize) {
        crate::scratch::resize_huge(&mut self.0, slots.div_ceil(64), 0);
    }

    #[inline]
    fn get(&self, h: usize) -> bool {
        (self.0[h / 64] >> (h % 64)) & 1 != 0
    }

    #[inline]
    fn set(&mut self, h: usize, on: bool) {
        let m = 1u64 << (h % 64);
        if on {
            self.0[h / 64] |= m;
        } else {
            self.0[h / 64] &= !m;
        }
    }

    /// Whether either object of the packed pair `p` is in the set.
    #[inline]
    fn either(&self, p: u64) -> bool {
        self.get((p >> 32) as usize) | self.get(p as u32 as usize)
    }
}

/// What a refresh gives: the rows (for `pairs()`), the events (for
/// `update()`), and the candidate tests it made.
struct Refreshed {
    rows: Option<Vec<isize>>,
    tests: u64,
    events: Option<Events>,
}

/// The back-pointer of entry `e` in its object's record: one of four, per
/// cell of its placement (the tag's low two bits).
#[inline]
fn back<'a>(rec: &'a mut [Rec], e: &Entry) -> &'a mut u32 {
    &mut rec[e.id as usize].loc[(e.tag & 3) as usize]
}

/// Rows `[i0, j0, i1, j1, ...]` packed ([`crate::pairs::pack`]).
fn packed_rows(rows: &[isize]) -> impl Iterator<Item = u64> + '_ {
    rows.chunks_exact(2)
        .map(|r| crate::pairs::pack(r[0] as u32, r[1] as u32))
}

/// Chunks of a base of `n` pairs: fixed by `n` alone.
/// How many of the ascending `v` are below `x`, found by doubling steps
/// from the front (cheap when the answer is near it) and then halving.
fn gallop(v: &[u64], x: u64) -> usize {
    let mut hi = 1;
    while hi <= v.len() && v[hi - 1] < x {
        hi *= 2;
    }
    // v[lo - 1] < x (or lo == 0); v[hi - 1] >= x or hi is past the end
    let lo = hi / 2;
    lo + v[lo..hi.min(v.len())].partition_point(|&p| p < x)
}

fn base_chunks(n: usize) -> usize {
    chunk_count(n, MERGE_GRAIN, MAX_CHUNKS)
}

fn base_len(base: &Option<Vec<u64>>) -> usize {
    base.as_ref().map_or(0, Vec::len)
}

/// The events from the pairs `old` to the pairs `new` (packed, sorted),
/// the slots `gone` (sorted) removed in between: a pair with such a slot is
/// of another object before than after (its slot given out again), so it
/// ends and begins even when both hold it.
fn events_between(old: &[u64], new: &[u64], gone: &[u32]) -> Events {
    if gone.is_empty() {
        return Events {
            began: difference(new, old),
            ended: difference(old, new),
        };
    }
    let same = |p: &&u64| {
        gone.binary_search(&((**p >> 32) as u32)).is_err()
            && gone.binary_search(&(**p as u32)).is_err()
    };
    let old_same: Vec<u64> = old.iter().filter(same).copied().collect();
    let new_same: Vec<u64> = new.iter().filter(same).copied().collect();
    Events {
        began: difference(new, &old_same),
        ended: difference(old, &new_same),
    }
}

/// `a - b` of two sorted sets.
fn difference(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::new();
    let mut j = 0;
    for &x in a {
        while j < b.len() && b[j] < x {
            j += 1;
        }
        if j == b.len() || b[j] != x {
            out.push(x);
        }
    }
    out
}

/// `v` at the slots `at` (nothing for a column no object uses).
fn gather_rows<T: Copy>(v: &[T], at: &[u32]) -> Vec<T> {
    if v.is_empty() {
        return Vec::new();
    }
    at.iter().map(|&h| v[h as usize]).collect()
}

/// [`Tree::partners`] of `h` (of box `b`) among the entries of one `run`
/// (counting as `skip` says): `f(o)` for each; the entries that count.
#[inline(always)]
fn partners_in(
    narrow: &Narrow,
    h: usize,
    b: &[f64; 4],
    run: &[Entry],
    skip: u8,
    f: &mut impl FnMut(usize),
) -> u64 {
    let mut n = 0;
    // the tests of 64 entries at a time into a mask, then the few hits
    for part in run.chunks(64) {
        let (mut mask, counted) = lists::overlap_bits(b, part, skip);
        n += counted;
        while mask != 0 {
            let o = part[mask.trailing_zeros() as usize].id as usize;
            mask &= mask - 1;
            if o != h && narrow.accept(h, o) {
                f(o);
            }
        }
    }
    n
}

/// Most runs a [`Plan`] holds; a query meeting more cells takes the
/// general path ([`Tree::partners`]).
const PLAN_RUNS: usize = 16;

/// The runs a query will read, found when its memory is asked for (a few
/// queries ahead) and read when it runs: its cells' ids, head words and
/// skips are worked out once.
#[derive(Clone, Copy)]
struct Plan {
    /// `(start, len, skip)` of the first `n` nonempty runs, in the order
    /// [`Tree::runs_met`] visits them.
    runs: [(u32, u32, u8); PLAN_RUNS],
    n: usize,
    /// Whether every run fits in `runs`; if not, the query takes the
    /// general path.
    fits: bool,
}

impl Default for Plan {
    fn default() -> Plan {
        Plan {
            runs: [(0, 0, 0); PLAN_RUNS],
            n: 0,
            fits: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::lcg;

    /// Searches from scratch keep the grid order (enough objects, no free
    /// slot); incremental frames let it go after `coherent::AGE` of them,
    /// and a later search from scratch makes a new one.
    #[test]
    fn the_kept_grid_order_is_let_go_after_many_incremental_frames() {
        let mut rnd = lcg(5);
        let n = 2000;
        let mut boxes: Vec<[f64; 4]> = (0..n)
            .map(|_| {
                let (x, y) = (rnd() * 990.0, rnd() * 990.0);
                [x, y, x + 10.0, y + 10.0]
            })
            .collect();
        let ex = Exec::new(Some(2));
        let mut tree = Tree::new([0.0, 0.0, 1000.0, 1000.0], 6, 0.0);
        let all: Vec<i64> = (0..n as i64).collect();
        tree.insert(&boxes, None, Attrs::default(), &ex);
        tree.pairs(&ex, None).unwrap();
        assert!(tree.kept.is_kept());
        for frame in 0..=coherent::AGE {
            assert!(tree.kept.is_kept(), "frame {frame}");
            boxes[0] = [
                boxes[0][0] + 0.5,
                boxes[0][1],
                boxes[0][2] + 0.5,
                boxes[0][3],
            ];
            tree.move_to(&all[..1], &boxes[..1], None, &ex);
            tree.pairs(&ex, None).unwrap();
            assert!(!tree.stats.rebuilt);
        }
        assert!(!tree.kept.is_kept());
        tree.move_to(&all, &boxes, None, &ex);
        tree.pairs(&ex, None).unwrap();
        assert!(tree.stats.rebuilt && tree.kept.is_kept());
    }

    /// `check_handles` names the first bad handle as a plain reading of
    /// its rules does (unknown, then repeated, then of the other kind), on
    /// strictly increasing lists with every slot live and one kind (only
    /// their range checked) as on any other.
    #[test]
    fn check_handles_names_the_first_bad_handle() {
        fn reference(
            kinds: &[Option<u8>],
            hs: &[i64],
            kind: Option<u8>,
        ) -> Result<(), HandleError> {
            for (at, &h) in hs.iter().enumerate() {
                let live = usize::try_from(h)
                    .ok()
                    .and_then(|h| kinds.get(h).copied().flatten());
                match live {
                    None => return Err(HandleError::Unknown(at)),
                    Some(_) if hs[..at].contains(&h) => return Err(HandleError::Twice(at)),
                    Some(k) if kind.is_some_and(|want| want != k) => {
                        return Err(HandleError::WrongKind(at))
                    }
                    _ => {}
                }
            }
            Ok(())
        }
        let mut rnd = lcg(5);
        let ex = Exec::serial();
        for case in 0..3 {
            let mut tree = Tree::new([0.0, 0.0, 100.0, 100.0], 3, 0.0);
            let boxes = vec![[1.0, 1.0, 2.0, 2.0]; 40];
            let circles = vec![[1.5, 1.5, 0.5]; 40];
            // every slot live and all boxes; boxes and circles; then slots freed
            tree.insert(&boxes, None, Attrs::default(), &ex);
            let mut kinds: Vec<Option<u8>> = vec![Some(BOX); 40];
            if case >= 1 {
                tree.insert(&boxes[..10], Some(&circles[..10]), Attrs::default(), &ex);
                kinds.extend([Some(CIRCLE); 10]);
            }
            if case == 2 {
                tree.remove(&[3, 17, 45]);
                for h in [3, 17, 45] {
                    kinds[h] = None;
                }
            }
            for _ in 0..400 {
                let n = (rnd() * 12.0) as usize;
                let mut hs: Vec<i64> = (0..n).map(|_| (rnd() * 56.0) as i64 - 3).collect();
                if rnd() < 0.6 {
                    hs.sort_unstable();
                    hs.dedup();
                }
                for kind in [None, Some(BOX), Some(CIRCLE)] {
                    let want = reference(&kinds, &hs, kind);
                    assert_eq!(
                        tree.check_handles(&hs, kind),
                        want,
                        "{hs:?} {kind:?} case {case}"
                    );
                }
            }
            // the all-live range check alone
            if case == 0 {
                assert_eq!(tree.check_handles(&[0, 5, 39], Some(BOX)), Ok(()));
                assert_eq!(
                    tree.check_handles(&[-1, 5], None),
                    Err(HandleError::Unknown(0))
                );
                assert_eq!(
                    tree.check_handles(&[1, 39, 40, 41], None),
                    Err(HandleError::Unknown(2))
                );
                assert_eq!(
                    tree.check_handles(&[1, 2], Some(CIRCLE)),
                    Err(HandleError::WrongKind(0))
                );
            }
        }
    }

    #[test]
    fn gallop_counts_the_values_below() {
        let v: Vec<u64> = (0..100).map(|k| 3 * k + 1).collect();
        for x in 0..=310 {
            let want = v.iter().filter(|&&p| p < x).count();
            assert_eq!(gallop(&v, x), want, "x = {x}");
            for from in [0, 1, 7, 50, 99, 100] {
                let want = v[from..].iter().filter(|&&p| p < x).count();
                assert_eq!(gallop(&v[from..], x), want, "x = {x}, from {from}");
            }
        }
        assert_eq!(gallop(&[], 5), 0);
    }

    /// The first circle equal to the circle column's default, (0, 0) of
    /// radius 0, still makes the column: the narrow phase indexes it for any
    /// box meeting the circle's cells (it panicked before).
    #[test]
    fn a_circle_like_the_default_makes_the_column() {
        let ex = Exec::serial();
        let mut tree = Tree::new([0.0, 0.0, 16.0, 16.0], 3, 0.0);
        let c = [[0.0, 0.0, 0.0]];
        tree.insert(&[[0.0, 0.0, 0.0, 0.0]], Some(&c), Attrs::default(), &ex);
        tree.insert(&[[-1.0, -1.0, 1.0, 1.0]], None, Attrs::default(), &ex);
        // the point circle touches nothing: no pair, and no panic
        assert_eq!(tree.pairs_packed(&ex, None).unwrap(), Vec::<u64>::new());
        tree.move_to(
            &[0],
            &[[0.25, 0.25, 0.75, 0.75]],
            Some(&[[0.5, 0.5, 0.25]]),
            &ex,
        );
        assert_eq!(tree.pairs_packed(&ex, None).unwrap(), vec![1]);
        tree.validate().unwrap();
    }

    /// `n` squares of side `side`, their corners uniform in `[0, span)^2`,
    /// as a model's live objects.
    fn squares(
        n: usize,
        span: f64,
        side: f64,
        rnd: &mut impl FnMut() -> f64,
    ) -> Vec<Option<[f64; 4]>> {
        (0..n)
            .map(|_| {
                let (x, y) = (rnd() * span, rnd() * span);
                Some([x, y, x + side, y + side])
            })
            .collect()
    }

    /// Every current pair of the live slots of `model`, packed, sorted.
    fn model_pairs(model: &[Option<[f64; 4]>]) -> Vec<u64> {
        let mut out = Vec::new();
        for (i, a) in model.iter().enumerate() {
            for (j, b) in model.iter().enumerate().skip(i + 1) {
                if let (Some(a), Some(b)) = (a, b) {
                    if boxes_overlap(a, b) {
                        out.push(crate::pairs::pack(i as u32, j as u32));
                    }
                }
            }
        }
        out
    }

    /// `pairs()` frames moving 1% of the objects: a different 1% each frame
    /// leaves void objects that no longer move, and the rows' pass writes
    /// the current pairs packed as the new base once they are as many as the
    /// dirty ones (every other frame here); the same 1% frame after frame
    /// keeps its void objects and never does.  Every frame equals the
    /// naive pairs, on one thread and two.
    #[test]
    fn void_objects_are_consolidated_with_the_rows() {
        let n = 6000;
        let mut rnd = lcg(5);
        let start = squares(n, 980.0, 12.0, &mut rnd);
        for workers in [1, 2] {
            let ex = Exec::new(Some(workers));
            let mut model = start.clone();
            let boxes: Vec<[f64; 4]> = model.iter().map(|b| b.unwrap()).collect();
            let mut tree = Tree::new([0.0, 0.0, 1000.0, 1000.0], 5, 0.0);
            tree.insert(&boxes, None, Attrs::default(), &ex);
            tree.pairs_packed(&ex, None).unwrap();
            let (mut fused, mut kept) = (0, 0);
            for frame in 0..14usize {
                // frames 0 to 7 a different 1% each, then the same 1%
                let set = if frame < 8 { frame } else { 8 };
                let handles: Vec<i64> = (0..n as i64).filter(|k| k % 100 == set as i64).collect();
                let mut to = Vec::new();
                for &h in &handles {
                    let b = model[h as usize].as_mut().unwrap();
                    let (dx, dy) = (rnd() * 6.0 - 3.0, rnd() * 6.0 - 3.0);
                    *b = [b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy];
                    to.push(*b);
                }
                tree.move_to(&handles, &to, None, &ex);
                let want = model_pairs(&model);
                let rows = tree.pairs(&ex, None).unwrap();
                let flat: Vec<isize> = want
                    .iter()
                    .flat_map(|&p| [(p >> 32) as isize, p as u32 as isize])
                    .collect();
                assert_eq!(rows, flat, "frame {frame}");
                assert_eq!(tree.last_pairs(), want, "frame {frame}");
                assert!(!tree.stats.rebuilt);
                tree.validate().unwrap();
                if tree.void_list.is_empty() && tree.delta.is_empty() {
                    fused += 1;
                    assert!(frame < 9, "frame {frame}: the same 1% again consolidated");
                } else {
                    kept += 1;
                }
            }
            assert_eq!(fused, 4, "frames 1, 3, 5, 7 fold the void objects in");
            assert_eq!(kept, 10);
        }
    }

    /// Queries meeting few cells read the runs planned ahead; those
    /// meeting more than a plan holds (big boxes over many occupied levels)
    /// take the general path: frame by frame, both agree with the naive
    /// pairs.
    #[test]
    fn planned_and_general_queries_find_the_same_pairs() {
        let n = 7000;
        assert!(n / 12 >= QUERY_PARALLEL && n as f64 / 12.0 <= REBUILD_SHARE * n as f64);
        let mut rnd = lcg(5);
        // sides from 1 to 300 (log-uniform): objects at every level
        let mut model: Vec<Option<[f64; 4]>> = (0..n)
            .map(|_| {
                let side = 300f64.powf(rnd());
                let (x, y) = (rnd() * 1024.0, rnd() * 1024.0);
                Some([x, y, x + side, y + side])
            })
            .collect();
        for workers in [1, 2] {
            let ex = Exec::new(Some(workers));
            let mut tree = Tree::new([0.0, 0.0, 1024.0, 1024.0], 6, 0.0);
            let boxes: Vec<[f64; 4]> = model.iter().map(|b| b.unwrap()).collect();
            tree.insert(&boxes, None, Attrs::default(), &ex);
            assert_eq!(tree.pairs_packed(&ex, None).unwrap(), model_pairs(&model));
            let levels: Vec<u32> = (0..=6)
                .filter(|&l| tree.per_level[l as usize] > 0)
                .collect();
            assert!(levels.len() >= 6, "objects at most levels");
            tree.sync(&ex);
            let mut plan = Plan::default();
            tree.plan(&[10.0, 10.0, 11.0, 11.0], &levels, &mut plan);
            assert!(plan.fits && plan.n >= 1, "fits {} n {}", plan.fits, plan.n);
            tree.plan(&[10.0, 10.0, 200.0, 200.0], &levels, &mut plan);
            assert!(!plan.fits, "a big box meets more cells than a plan holds");
            for frame in 0..4 {
                // a twelfth of the objects (queries in parallel chunks with
                // 2 threads), big ones among them
                let (mut moved, mut to) = (Vec::new(), Vec::new());
                for k in (frame..n).step_by(12) {
                    let b = model[k].unwrap();
                    let (dx, dy) = (rnd() * 40.0 - 20.0, rnd() * 40.0 - 20.0);
                    let b = [b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy];
                    model[k] = Some(b);
                    moved.push(k as i64);
                    to.push(b);
                }
                tree.move_to(&moved, &to, None, &ex);
                let got = tree.pairs_packed(&ex, None).unwrap();
                assert!(!tree.stats.rebuilt, "an incremental frame");
                assert!(
                    got == model_pairs(&model),
                    "frame {frame}, {workers} threads"
                );
                tree.validate().unwrap();
            }
        }
    }

    /// The packed pairs `pairs` (sorted) each with the identities of its two
    /// objects (`ids`: per slot, of the object in it now).
    fn with_ids(pairs: &[u64], ids: &[u64]) -> Vec<(u64, [u64; 2])> {
        pairs
            .iter()
            .map(|&p| (p, [ids[(p >> 32) as usize], ids[p as u32 as usize]]))
            .collect()
    }

    /// The events from the pairs `last` to `now` (both [`with_ids`]): the
    /// pairs of two objects colliding now and not then (began), then and
    /// not now (ended), as packed handles, sorted.  Objects, not handles: a
    /// slot freed and given out again holds another object.
    fn events_of_objects(
        last: &[(u64, [u64; 2])],
        now: &[(u64, [u64; 2])],
    ) -> (Vec<u64>, Vec<u64>) {
        use crate::testing::objects_minus;
        (objects_minus(now, last), objects_minus(last, now))
    }

    /// Frames that each change a different 8% of the objects (moves,
    /// removals, inserts into the freed slots): the void objects and the
    /// delta grow until the delta is consolidated into the base, and every
    /// frame, `pairs()` and `update()` taking turns, equals the model (the
    /// events the pairs of objects that began and ended, a freed slot given
    /// out again holding another object), on one thread and two (over
    /// `2 * SYNC_GRAIN` stale objects a frame: the lists' update in parallel).
    #[test]
    fn the_delta_grows_and_is_consolidated() {
        let n = 8000;
        assert!(n * 8 / 100 * 9 / 10 >= 2 * SYNC_GRAIN);
        let mut rnd = lcg(11);
        let model = squares(n, 1374.0, 40.0, &mut rnd);
        for workers in [1, 2] {
            let ex = Exec::new(Some(workers));
            let mut tree = Tree::new([0.0, 0.0, 1414.0, 1414.0], 5, 0.0);
            let boxes: Vec<[f64; 4]> = model.iter().map(|b| b.unwrap()).collect();
            tree.insert(&boxes, None, Attrs::default(), &ex);
            let mut model = model.clone();
            // each object's identity, by slot
            let mut ids: Vec<u64> = (0..n as u64).collect();
            let mut next_id = n as u64;
            let mut last = Vec::new();
            let (mut incremental, mut consolidated, mut reused) = (0, 0, 0);
            for frame in 0..12usize {
                let want = model_pairs(&model);
                let now = with_ids(&want, &ids);
                if frame % 2 == 0 {
                    assert_eq!(tree.pairs_packed(&ex, None).unwrap(), want, "frame {frame}");
                } else {
                    let ev = tree.update(&ex, None).unwrap();
                    let (began, ended) = events_of_objects(&last, &now);
                    // pairs of the same two handles, of other objects
                    reused += ev.began.iter().filter(|p| ev.ended.contains(p)).count();
                    assert_eq!(ev.began, began, "frame {frame}");
                    assert_eq!(ev.ended, ended, "frame {frame}");
                }
                assert_eq!(tree.last_pairs(), want);
                assert_eq!(tree.stats.pairs, want.len() as u64);
                tree.validate().unwrap();
                if frame > 0 {
                    assert!(!tree.stats.rebuilt);
                    if tree.delta.is_empty() && tree.void_list.is_empty() {
                        consolidated += 1;
                    } else {
                        incremental += 1;
                    }
                }
                last = now;
                // 8% of the slots, a different set each frame: most move,
                // every tenth is removed, and as many new boxes come in
                let changed: Vec<usize> = (0..n)
                    .filter(|k| k % 12 == frame % 12)
                    .take(n * 8 / 100)
                    .collect();
                let (mut moved, mut to) = (Vec::new(), Vec::new());
                let mut gone = Vec::new();
                for (c, &k) in changed.iter().enumerate() {
                    match model[k] {
                        Some(b) if c % 10 != 0 => {
                            let (dx, dy) = (rnd() * 10.0 - 5.0, rnd() * 10.0 - 5.0);
                            let b = [b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy];
                            model[k] = Some(b);
                            moved.push(k as i64);
                            to.push(b);
                        }
                        Some(_) => {
                            model[k] = None;
                            gone.push(k as i64);
                        }
                        None => {}
                    }
                }
                tree.move_to(&moved, &to, None, &ex);
                tree.remove(&gone);
                let new: Vec<[f64; 4]> = gone
                    .iter()
                    .map(|_| {
                        let (x, y) = (rnd() * 1374.0, rnd() * 1374.0);
                        [x, y, x + 40.0, y + 40.0]
                    })
                    .collect();
                for (h, b) in tree
                    .insert(&new, None, Attrs::default(), &ex)
                    .into_iter()
                    .zip(new)
                {
                    assert!(model[h as usize].is_none(), "a freed slot is reused");
                    model[h as usize] = Some(b);
                    ids[h as usize] = next_id;
                    next_id += 1;
                }
            }
            assert!(
                incremental > 0 && consolidated > 0 && reused > 0,
                "{incremental} {consolidated} {reused}"
            );
        }
    }
}
