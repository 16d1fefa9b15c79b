//! The moving tree's knobs, in one place.
//!
//! Every knob only moves the time: for any values (shares of any sign,
//! grains of any size) every answer of the tree is the same, exact, and
//! independent of the thread count, since each chunking below is fixed by
//! the data and the policy, never by the threads.  The defaults are what the
//! tree's benchmarks (`benchmarks/moving*.py`) favoured; the tests set other
//! values to force one path or the other.

/// When a frame searches from scratch, when the lists are laid out anew,
/// when the kept pairs are consolidated, and how the parallel steps are
/// cut into chunks.  Set with [`super::Tree::with_policy`] or
/// [`super::Tree::set_policy`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Policy {
    /// Above this share of dirty objects (changed since the last refresh),
    /// `pairs()` and `update()` search from scratch instead of querying each
    /// dirty object; a single move of more than this share settles it in
    /// advance and the tree keeps no more marks until then.  Default 0.1:
    /// about where a query per dirty object costs what a search of all
    /// costs (a query reads the cells near one object; a search, with its
    /// kept order, reads each object's cells once in order, far cheaper per
    /// object: docs/design/tree.md).
    pub rebuild_share: f64,
    /// Above this share of stale objects (whose lists are behind), the
    /// lists are laid out anew cell after cell instead of relinked one by
    /// one.  Default 0.125: a relayout writes every entry once, in order,
    /// a relink a few at random places: past about an eighth, in order wins.
    pub relayout_share: f64,
    /// The delta is consolidated into the base once it holds this many
    /// pairs more than an eighth of the base.  Default 2^14 (a merge chunk):
    /// below it a frame reads the whole delta in less than a chunk of the
    /// base.  (Tests consolidate as soon as allowed with 0, never with
    /// `usize::MAX`.)
    pub consolidate_from: usize,
    /// Objects per chunk of the parallel insert, move and placement; twice
    /// as many make them parallel.  Default 2^13: a chunk's stores outlast
    /// a thread's wake-up.
    pub move_grain: usize,
    /// Dirty objects per chunk of the parallel queries.  Default 128 (small:
    /// a thread that wakes late still finds chunks left to take).
    pub query_grain: usize,
    /// Dirty objects from which the queries run in parallel, and from
    /// which a move wakes the pool for the refresh to come.  Default 512.
    pub query_parallel: usize,
    /// Stale objects per chunk of the lists' parallel update; twice as many
    /// make it parallel.  Default 256.
    pub sync_grain: usize,
    /// Kept pairs per chunk of the parallel merge of base and delta; twice
    /// as many make it parallel.  Default 2^14.
    pub merge_grain: usize,
    /// A ray cast walks the tree's own cells when its rays, cut into
    /// pieces of about a finest cell, have at most this share of the live
    /// objects' count in pieces (every ray finite); else it builds a
    /// uniform grid over the objects for the call.  Default 0.1: a grid
    /// costs a pass or two over the objects, a piece the few cells it
    /// covers at each level.
    pub ray_walk_share: f64,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            rebuild_share: 0.1,
            relayout_share: 0.125,
            consolidate_from: 1 << 14,
            move_grain: 1 << 13,
            query_grain: 128,
            query_parallel: 512,
            sync_grain: 256,
            merge_grain: 1 << 14,
            ray_walk_share: 0.1,
        }
    }
}

impl Policy {
    /// This policy with every grain at least 1 (a grain of 0 would make no
    /// chunk).
    pub fn checked(mut self) -> Policy {
        for g in [
            &mut self.move_grain,
            &mut self.query_grain,
            &mut self.sync_grain,
            &mut self.merge_grain,
        ] {
            *g = (*g).max(1);
        }
        self
    }

    /// Whether `dirty` dirty objects of `count` make the next refresh a
    /// search from scratch.
    pub fn rebuilds(&self, dirty: usize, count: usize) -> bool {
        dirty as f64 > self.rebuild_share * count.max(1) as f64
    }

    /// Whether `stale` stale objects of `count` make the lists' update a
    /// relayout.
    pub fn relays(&self, stale: usize, count: usize) -> bool {
        stale as f64 > self.relayout_share * count.max(1) as f64
    }

    /// Whether a frame of `dirty` dirty objects, with `void` objects void
    /// after it, folds the void objects in: its rows' pass also writes the
    /// pairs packed as the new base.  Once the void objects are as many
    /// again as the dirty ones: those void and no longer moving leave runs
    /// that every frame's rows skip, while the same objects moving frame
    /// after frame stay void and never pay for it.
    pub fn folds(&self, void: usize, dirty: usize) -> bool {
        void >= 2 * dirty.max(1)
    }

    /// Whether a delta of `delta` pairs is consolidated with a base of
    /// `base` pairs.
    pub fn consolidates(&self, delta: usize, base: usize) -> bool {
        delta > (base / 8).saturating_add(self.consolidate_from)
    }
}
