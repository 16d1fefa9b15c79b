//! A frame's choices: on the pool or not, incremental or from scratch; and
//! the search from scratch.
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
use crate::pairs::TooMany;
use crate::par::Exec;
use crate::scratch;

/// What a refresh gives: the rows (for `pairs()`), the events (for
/// `update()`), and the candidate tests it made.
pub(super) struct Refreshed {
    pub rows: Option<Vec<isize>>,
    pub events: Option<Events>,
    pub tests: u64,
}

impl Tree {
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
