//! A frame: `pairs()` and `update()`, their choices (on the pool or not,
//! incremental or from scratch), and the search from scratch.
//!
//! # Searches from scratch
//! When more than the policy's `rebuild_share` of the objects are dirty, a
//! search from scratch is cheaper than the queries and replaces them (its
//! pairs become the kept base, [`super::cache::PairCache::rebuilt`]).  It
//! reads the live objects only: with every slot live, the slots
//! themselves, which lets the search keep what helps the next one
//! ([`crate::kept_search`]: the method choice lives there); with free
//! slots, the live ones gathered into rows of their own, kept nothing.
//! Incremental frames tell the kept search they made none, so that it lets
//! its orders go after many of them.

use super::{Events, Tree};
use crate::pairs::{pack, TooMany};
use crate::par::Exec;
use crate::scratch;
use crate::tree::TreeRow;

/// What a refresh gives: the rows (for `pairs()`), the events (for
/// `update()`), and the candidate tests it made.
pub(super) struct Refreshed {
    pub rows: Option<Vec<isize>>,
    pub events: Option<Events>,
    pub tests: u64,
}

impl<const N: usize> Tree<N>
where
    [f64; N]: TreeRow<N>,
{
    /// Every colliding pair of live objects as rows `[i0, j0, i1, j1, ...]`
    /// (`i < j`, sorted by `i` then `j`): the array `pairs()` hands over.
    ///
    /// The next call re-examines only what changed since.  The events of
    /// the next [`Tree::update`] stay relative to the last `update()`
    /// (`reported`).
    pub fn pairs(&mut self, ex: &Exec, max_pairs: Option<u64>) -> Result<Vec<isize>, TooMany> {
        if self.refresh_may_change() {
            let cache = &self.cache;
            self.reported.before_pairs(|| cache.pairs());
        }
        let gone = if self.reported.lists_removals() {
            self.changes.gone()
        } else {
            Vec::new()
        };
        let r = self.refresh_on_pool(ex, max_pairs, false)?;
        self.reported.after_pairs(&gone, self.objects.slots());
        Ok(r.rows.unwrap_or_default())
    }

    /// [`Tree::pairs`] packed ([`crate::pairs::pack`]), sorted.
    pub fn pairs_packed(&mut self, ex: &Exec, max_pairs: Option<u64>) -> Result<Vec<u64>, TooMany> {
        let rows = self.pairs(ex, max_pairs)?;
        let packed = rows
            .chunks_exact(2)
            .map(|r| pack(r[0] as u32, r[1] as u32))
            .collect();
        scratch::give(rows);
        Ok(packed)
    }

    /// The pairs of the last `pairs()` or `update()` (none before the first),
    /// packed, sorted.
    pub fn last_pairs(&self) -> Vec<u64> {
        self.cache.pairs()
    }

    /// The pairs that began and that ended since the last `update()` (all
    /// current pairs began, on the first call), packed, sorted; `pairs()`
    /// calls between two `update()`s change nothing in them.
    ///
    /// Costs what changed and its neighbours: the objects changed since and
    /// their pairs, plus one read of the kept pairs when objects change for
    /// the first time since those were last consolidated; and one read of
    /// the pairs when `pairs()` was called since the last `update()`
    /// (`super::reported`).
    pub fn update(&mut self, ex: &Exec, max_pairs: Option<u64>) -> Result<Events, TooMany> {
        if !self.reported.moved_on() {
            let r = self.refresh_on_pool(ex, max_pairs, true)?;
            return Ok(r.events.unwrap_or_default());
        }
        let gone = self.changes.gone();
        // (the refresh's own events, from the kept pairs of the last
        // `pairs()`, are not the answer: the copy's are)
        self.refresh_on_pool(ex, max_pairs, true)?;
        let now = self.cache.pairs();
        Ok(self.reported.events_to(&now, &gone))
    }

    /// Whether a refresh now may change the kept pairs: a first one, or
    /// objects changed since the last.
    fn refresh_may_change(&self) -> bool {
        !self.cache.started() || !self.changes.keeps_marks() || !self.changes.dirty.is_empty()
    }

    /// A frame: bring the pairs up to date, the rows (for `pairs()`) or
    /// the events (for `update()`).
    pub(super) fn refresh(
        &mut self,
        ex: &Exec,
        max_pairs: Option<u64>,
        events: bool,
    ) -> Result<Refreshed, TooMany> {
        let rebuild = self.will_rebuild();
        let r = if rebuild {
            self.search_from_scratch(ex, max_pairs, events)?
        } else {
            // (a stopped sync leaves the lists valid for the next one to
            // finish, a stopped step the kept pairs as they were)
            self.sync(ex);
            let (fresh, tests) = self.fresh_pairs(ex);
            let gone = self.changes.gone();
            let (dirty, policy) = (&self.changes.dirty, &self.policy);
            let stepped = self
                .cache
                .step(dirty, &fresh, &gone, events, max_pairs, policy, ex);
            self.search.idle();
            let (rows, events) = stepped?;
            Refreshed {
                rows,
                events,
                tests,
            }
        };
        self.changes.clear(&mut self.index.rec);
        self.stats.candidate_tests = r.tests;
        self.stats.pairs = self.cache.len() as u64;
        self.stats.rebuilt = rebuild;
        Ok(r)
    }

    /// [`Tree::refresh`] run on the pool as a whole when an incremental frame
    /// is worth it (as a search is: its stages then wake the pool once).
    pub(super) fn refresh_on_pool(
        &mut self,
        ex: &Exec,
        max_pairs: Option<u64>,
        events: bool,
    ) -> Result<Refreshed, TooMany> {
        // An incremental frame with few dirty objects and few pairs runs
        // here, serially: that costs less than waking the pool.  One whose
        // queries or merge split into chunks (each step's own rule, which
        // on a busy machine asks for more work) runs on the pool as a
        // whole.  A search from scratch goes to the pool by itself (as a
        // whole, when worth it: `find_pairs`' rule).
        let worth = !self.will_rebuild()
            && (ex
                .for_work(self.changes.dirty.len(), self.policy.query_parallel)
                .is_parallel()
                || ex
                    .for_work(self.cache.base_len(), 2 * self.policy.merge_grain)
                    .is_parallel());
        let on = if worth { ex.clone() } else { Exec::serial() };
        on.install(|| self.refresh(ex, max_pairs, events))
    }

    /// Whether the next refresh searches from scratch (a first call, or
    /// more than `rebuild_share` of the objects dirty).
    pub(super) fn will_rebuild(&self) -> bool {
        !self.cache.started()
            || !self.changes.keeps_marks()
            || self
                .policy
                .rebuilds(self.changes.dirty.len(), self.objects.len())
    }

    /// A refresh by a search from scratch over the live objects: its pairs
    /// become the kept ones; the rows or (with `events`) the events.
    ///
    /// Stopped, it has changed nothing but dropped the kept search and the
    /// buffer it took (which only save work).
    pub(super) fn search_from_scratch(
        &mut self,
        ex: &Exec,
        max_pairs: Option<u64>,
        events: bool,
    ) -> Result<Refreshed, TooMany> {
        let spare = self.cache.take_spare();
        let mut search = std::mem::take(&mut self.search);
        let objects = &self.objects;
        let found = if objects.dense() {
            let narrow = objects.narrow();
            search.find(&objects.boxes, &narrow, max_pairs, None, ex, spare)
        } else {
            // free slots leave holes: the search runs over the live rows
            let live: Vec<u32> = objects.live().map(|h| h as u32).collect();
            let rows = objects.gather(&live);
            let narrow = rows.narrow(objects.narrow());
            search.find(&rows.boxes, &narrow, max_pairs, Some(&live), ex, spare)
        };
        // a stop set by now finds nothing committed
        ex.check_stop();
        self.search = search;
        let found = found?;
        let ev = self
            .cache
            .rebuilt(found.packed, events, &self.changes.gone());
        let rows = if events {
            scratch::give(found.rows);
            None
        } else {
            Some(found.rows)
        };
        Ok(Refreshed {
            rows,
            events: ev,
            tests: found.tests,
        })
    }
}
