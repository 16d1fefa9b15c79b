//! The moving tree: objects in per-cell lists, pairs kept from frame to frame.
//!
//! # Parts
//! Each part owns one concern and states its derivation and invariants in
//! its own doc; each part that holds state checks them in a `check()`
//! ([`Tree::validate`] runs them all).
//! The parts are private files of this folder:
//! * `objects`: the slots, their boxes, shapes and filter values; handles
//!   and the free list (`objects/columns.rs`: the columns most objects
//!   leave at their default);
//! * `placement`: the one placement rule (grid, margin, fat boxes): the
//!   level and the at most two cells per axis (2 x 2, or 2 x 2 x 2) an
//!   object is entered in;
//! * `index`: the per-cell lists and each object's record, brought up to
//!   date by their next reader (`index/sync.rs`: settle, then relink or relayout);
//! * `queries`: the cells a box meets, the plans of a refresh's queries,
//!   an object's partners (`regions`: region queries in a batch);
//! * `changes`: what changed since the last refresh (dirty objects,
//!   removed slots);
//! * `cache`: the current pairs kept as a base and a delta, and the
//!   events between frames: no geometry (`cache/merge.rs`: a frame's merge);
//! * `KeptSearch` (the kept-searches layer's `kept_search`): the search from scratch, keeping
//!   what helps the next one;
//! * `policy`: the knobs;
//! * `store` and `moves`: insert, remove and move;
//! * `frame`: a frame (`pairs()`, `update()`), its choices (on the pool
//!   or not, incremental or from scratch) and the search from scratch;
//! * `casts`: ray casts at the live objects, in handles (`ray_cells`: a
//!   ray through the tree's own cells, for casts of few rays);
//! * `sweeps`: swept pairs between `swept_pairs()` calls, and where each
//!   object was at the last one;
//! * `reported`: the pairs the last `update()` left, so that `update()`'s
//!   events are relative to the previous `update()` whatever `pairs()`
//!   calls came between.
//!
//! # A frame
//! A game stores its objects' new boxes (`move_to`: a store of boxes and
//! marks, nothing placed), then asks for the pairs (`pairs()`) or the
//! contact events (`update()`).  The refresh (`Tree::refresh`) then
//! either searches from scratch, when more than the policy's
//! `rebuild_share` of the objects changed (its pairs become the kept
//! base), or, incrementally:
//! 1. *settles*: places every moved object (`index::Index::settle`);
//! 2. *syncs*: brings the lists up to date (`index::Index::sync`);
//! 3. *queries* each dirty object for its current pairs (`Tree::fresh_pairs`);
//! 4. *merges* them into the kept pairs, writing the rows or events
//!    (`cache::PairCache::step`).
//!
//! Either way the result is the set of colliding pairs of the live
//! objects, as [`crate::find_pairs`] would give it.
//!
//! # Stopping
//! An executor may carry a [`crate::Stop`]: every chunk of a step
//! checks it first, and a set stop unwinds the call with
//! [`crate::Stopped`] (Ctrl-C, from the bindings).  A stop may come at
//! any chunk boundary of any method given an executor, and leaves a valid
//! tree, by this rule (each part's doc says how it keeps it):
//! * `insert` is as if never called (`store`);
//! * `move_to` is finished (`moves`);
//! * `pairs()` and `update()` are as if never called: a search from
//!   scratch only reads the tree (a stop drops the buffer and kept search
//!   it took, which only save work), and an incremental refresh works out
//!   the new kept pairs and its rows or events reading the tree only, then
//!   commits them with no chunk left to run (`cache`); both check the stop
//!   once more just before they commit.  The next call reports the same
//!   pairs and events as without the stopped one;
//! * settling and syncing (of queries, `touching`, `stats` and refreshes)
//!   keep what they finished, and the next reader does the rest
//!   (`index/sync.rs`).
//!   No answer depends on how far they got.
//!
//! None of this costs per object: a `catch_unwind` around the steps that
//! may stop (nothing unless one unwinds) and a slot per chunk for the
//! results of settle and of a parallel move (`chunks_kept`).

mod cache;
mod casts;
mod changes;
mod frame;
mod index;
mod moves;
mod objects;
mod placement;
mod policy;
mod queries;
mod ray_cells;
mod regions;
mod reported;
mod store;
mod sweeps;
#[cfg(test)]
mod tests;

pub use crate::pairset::Events;
pub use objects::HandleError;
pub use placement::{max_depth, Place, MAX_DEPTH, MAX_DEPTH_3D};
pub use policy::Policy;

use crate::dim::Row;
use crate::kept_search::KeptSearch;
use crate::morton::level_start_in;
use crate::narrow::{Balls, Shapes};
use crate::par::Exec;
use crate::search::Width;
use cache::PairCache;
use changes::Changes;
use index::Index;
use objects::Objects;
use placement::Placer;
use reported::Reported;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What the tree needs of its rows (`[f64; 4]` in 2D, `[f64; 6]` in 3D):
/// their balls' narrow phase and the search from scratch.
pub trait TreeRow<const N: usize>: Balls + Width<N> + crate::scratch::Pooled {
    /// The kinds (`None`: every object a box) and the balls of a narrow
    /// phase of this dimension's objects ([`Objects`]' shapes: boxes, or
    /// boxes and balls).
    fn balls<'a>(shapes: &Shapes<'a>) -> (Option<&'a [u8]>, &'a [Self::Ball]);
}

impl TreeRow<4> for [f64; 4] {
    fn balls<'a>(shapes: &Shapes<'a>) -> (Option<&'a [u8]>, &'a [[f64; 3]]) {
        match *shapes {
            Shapes::Mixed { kinds, circles, .. } => (Some(kinds), circles),
            Shapes::Circles(c) => (None, c),
            Shapes::Boxes => (None, &[]),
            Shapes::Spheres(_) | Shapes::MixedSpheres { .. } | Shapes::Imaged(_) => {
                unreachable!("a 2D tree holds no spheres or images (`Objects::narrow`)")
            }
        }
    }
}

impl TreeRow<6> for [f64; 6] {
    fn balls<'a>(shapes: &Shapes<'a>) -> (Option<&'a [u8]>, &'a [[f64; 4]]) {
        match *shapes {
            Shapes::MixedSpheres { kinds, spheres, .. } => (Some(kinds), spheres),
            Shapes::Spheres(c) => (None, c),
            Shapes::Boxes => (None, &[]),
            Shapes::Circles(_) | Shapes::Mixed { .. } | Shapes::Imaged(_) => {
                unreachable!("a 3D tree holds no circles or images (`Objects::narrow`)")
            }
        }
    }
}

/// The ball row (centre, then radius) of the dimension of rows `N` wide.
pub type BallOf<const N: usize> = <[f64; N] as Row>::Ball;
use sweeps::Previous;

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

/// Moving boxes and balls (circles in 2D, spheres in 3D) in a linear
/// quadtree (rows of `N = 4` doubles) or octree (`N = 6`) with per-cell
/// lists: one code for both ([`crate::dim`]).
#[derive(Clone, Debug)]
pub struct Tree<const N: usize = 4>
where
    [f64; N]: Row,
{
    /// The placement rule and fat boxes.
    placer: Placer<N>,
    /// The slots and what they hold.
    objects: Objects<N>,
    /// The lists and the records.
    index: Index<N>,
    /// What changed since the last refresh.
    changes: Changes,
    /// The pairs kept from frame to frame.
    cache: PairCache,
    /// The pairs the last `update()` left, once `pairs()` moved on.
    reported: Reported,
    /// The search from scratch's kept orders.
    search: KeptSearch,
    /// Where each object was at the last `swept_pairs()`.
    previous: Previous<N>,
    policy: Policy,
    stats: Stats,
}

impl<const N: usize> Tree<N>
where
    [f64; N]: TreeRow<N>,
{
    /// An empty tree over `bounds` (finite, `min < max`) split `2^depth` ways
    /// per axis (`depth <= MAX_DEPTH`), placing objects by their boxes grown
    /// by `margin >= 0`, with the default [`Policy`].
    pub fn new(bounds: [f64; N], depth: u32, margin: f64) -> Self {
        Tree::with_policy(bounds, depth, margin, Policy::default())
    }

    /// [`Tree::new`] with the knobs of `policy`.
    pub fn with_policy(bounds: [f64; N], depth: u32, margin: f64, policy: Policy) -> Self {
        debug_assert!(depth <= max_depth(N) && margin >= 0.0);
        Tree {
            placer: Placer::new(bounds, depth, margin),
            objects: Objects::new(),
            index: Index::new(level_start_in::<[f64; N]>(depth + 1) as usize, depth),
            changes: Changes::default(),
            cache: PairCache::default(),
            reported: Reported::default(),
            search: KeptSearch::default(),
            previous: Previous::default(),
            policy: policy.checked(),
            stats: Stats::default(),
        }
    }

    /// The knobs.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// Other knobs from now on (no answer changes: see [`Policy`]).
    pub fn set_policy(&mut self, policy: Policy) {
        self.policy = policy.checked();
    }

    /// The world given at construction.
    pub fn bounds(&self) -> [f64; N] {
        self.placer.bounds
    }

    /// Level of the finest cells.
    pub fn depth(&self) -> u32 {
        self.placer.grid.depth
    }

    /// The margin given at construction.
    pub fn margin(&self) -> f64 {
        self.placer.margin
    }

    /// Live objects.
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    /// Whether the tree holds no object.
    pub fn is_empty(&self) -> bool {
        self.objects.len() == 0
    }

    /// Slots ever used (handles are below this).
    pub fn slots(&self) -> usize {
        self.objects.slots()
    }

    /// Whether `h` is a live object.
    pub fn contains(&self, h: u64) -> bool {
        usize::try_from(h).is_ok_and(|h| self.objects.contains(h))
    }

    /// The box of live object `h` (a circle's outward-rounded box).
    pub fn box_of(&self, h: u32) -> [f64; N] {
        self.objects.boxes[h as usize]
    }

    /// `Some` of its centre and radius when live object `h` is a ball
    /// (`x, y, r`; in 3D `x, y, z, r`).
    pub fn circle_of(&self, h: u32) -> Option<BallOf<N>> {
        let h = h as usize;
        self.objects.is_circle(h).then(|| self.objects.circle(h))
    }

    /// Radii of checked ball handles (for moves that keep them).
    pub fn radii(&self, handles: &[i64]) -> Vec<f64> {
        handles
            .iter()
            .map(|&h| self.objects.circle(h as usize).as_ref()[N / 2])
            .collect()
    }

    /// Check `handles`: live, each once, of shape `kind` if given.  Nothing changes.
    pub fn check_handles(&mut self, handles: &[i64], kind: Option<u8>) -> Result<(), HandleError> {
        self.objects.check_handles(handles, kind)
    }

    /// Live objects whose box is not wholly inside the world.
    pub fn outside(&self) -> usize {
        let w = &self.placer.bounds;
        let boxes = &self.objects.boxes;
        let inside =
            |b: &[f64; N]| (0..N / 2).all(|k| b[k] >= w[k] && b[N / 2 + k] <= w[N / 2 + k]);
        self.objects.live().filter(|&h| !inside(&boxes[h])).count()
    }

    /// Live objects entered at each level, 0 to `depth` (as placed by the
    /// last [`Tree::settle`]).
    pub fn levels(&self) -> &[u64] {
        &self.index.per_level
    }

    /// The counts of the last calls, every moved object placed first.
    pub fn stats(&mut self, ex: &Exec) -> Stats {
        self.settle(ex);
        Stats {
            entries: self.index.nentries,
            ..self.stats
        }
    }

    /// Objects the next `pairs()` or `update()` examines: every one when it
    /// searches from scratch, else the dirty ones.  What a caller weighs
    /// the call by (whether it is worth a thread that Ctrl-C can stop).
    pub fn pending(&self) -> usize {
        if self.will_rebuild() {
            self.objects.len()
        } else {
            self.changes.dirty.len()
        }
    }

    /// Objects inserted or moved since the lists were last brought up to
    /// date: what the next query syncs first (what a caller weighs a
    /// one-object call by).
    pub fn unsynced(&self) -> usize {
        self.index.stale_count()
    }

    /// Place every unplaced object by its box now; count those whose cells
    /// changed as `stats().relinked` (the index's settle).  Every
    /// reader of the placements calls this first; `stats()` too.
    pub fn settle(&mut self, ex: &Exec) {
        let grain = self.policy.move_grain;
        let boxes = &self.objects.boxes;
        if let Some(relinked) = self.index.settle(&mut self.placer, boxes, grain, ex) {
            self.stats.relinked = relinked;
        }
    }

    /// Bring the lists up to date: settle, then relink ([`index::Index::sync`]).
    fn sync(&mut self, ex: &Exec) {
        self.settle(ex);
        let (boxes, count) = (&self.objects.boxes, self.objects.len());
        self.index
            .sync(&self.placer, boxes, count, &self.policy, ex);
    }

    /// Check every invariant, part by part; the first broken one, named.
    /// O(slots + cells + kept pairs).
    pub fn validate(&self) -> Result<(), String> {
        self.objects.check()?;
        self.index.check(&self.placer, &self.objects)?;
        self.changes.check(&self.index.rec)?;
        let (objects, rec, all) = (&self.objects, &self.index.rec, !self.changes.keeps_marks());
        // live, or changed since the last call (a removal not yet refreshed)
        let live = |h: usize| objects.contains(h) || rec[h].dirty || all;
        self.cache.check(self.objects.slots(), live)?;
        self.reported.check(self.objects.slots())?;
        self.previous.check()
    }
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
