//! The pair cache: the current pairs kept from frame to frame, and the
//! events between frames.  No geometry: it is told which objects changed
//! and their current pairs, and keeps the rest.
//!
//! # Derivation
//! The current pairs are kept in two sorted lists:
//! * the *base*: the pairs as of the last search from scratch or
//!   consolidation, with every object changed since marked *void*;
//! * the *delta*: the current pairs with at least one void object.
//!
//! The current pairs are the base pairs of two objects that are not void
//! (*standing*: neither changed since the base was made, so their answer
//! stands) and the delta; the two are disjoint.  A refresh is given the
//! *dirty* objects (changed since the last refresh) and their current pairs
//! (*fresh*); it replaces the delta's pairs with a dirty object by them,
//! and marks the dirty objects void.  Both halves stay true: a pair with a
//! dirty object is fresh and now has a void one; a pair of objects void
//! before and not dirty stood in the delta before and stands now.  So a
//! frame costs the delta and, for `pairs()`, one pass writing the rows it
//! hands over ([`crate::pairset::Patched::merged_into`]); the base is never
//! rewritten while the delta stays small.
//!
//! The positions of the base's pairs with a void object are kept, found
//! again (one read of the base) only when objects become void, so that the
//! rows are the runs of the base between them, copied with no test per
//! pair.  When the delta outgrows an eighth of the base (and the policy's
//! `consolidate_from`), the two are consolidated into a new base.  Objects
//! that were void but moved no more (a different set moving each frame)
//! leave runs that every frame's rows skip: once the void objects are as
//! many again as the dirty ones, the rows' pass also writes the current
//! pairs packed, which become the base (no void object, no delta; the next
//! frame's dirty objects become void again with one read of the base).  The
//! same objects moving frame after frame stay void and never pay it.  Every
//! new base, from a search, that pass or a consolidation, is taken in by
//! one function ([`PairCache::reset`]).
//!
//! `update()`'s events are the fresh pairs against the last pairs with a
//! dirty object (the delta's, and the base's standing pairs of objects void
//! only from now on), slots given out again counted as other objects
//! ([`crate::pairset::events_between`]).
//!
//! # Stopping
//! A step works out the new kept pairs and its rows or events reading the
//! cache only ([`PairCache::plan`]), then commits them with no chunk left
//! to run: a stopped step leaves the kept pairs, and so the next call's
//! events, as they were.
//!
//! # Invariants ([`PairCache::check`])
//! Base and delta sorted and canonical; every delta pair with a void
//! object; every pair of two live objects; the void list the void marks,
//! each once; `void_at` the positions of the base's pairs with a void object.

mod merge;

use super::policy::Policy;
use crate::pairs::{first, second, TooMany};
use crate::pairset::{events_between, Events, Patched};
use crate::par::Exec;
use crate::scratch;
use merge::Want;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// A set of slots, a bit each: small enough to stay in cache while a frame
/// looks up both objects of every kept pair.
#[derive(Clone, Debug, Default)]
pub(super) struct Bits(Vec<u64>);

impl Bits {
    /// Room for `slots` slots (the new ones out).
    fn grow(&mut self, slots: usize) {
        scratch::resize_huge(&mut self.0, slots.div_ceil(64), 0);
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
        self.get(first(p)) | self.get(second(p))
    }
}

/// The kept pairs (see the module's doc).
#[derive(Clone, Debug, Default)]
pub(super) struct PairCache {
    /// The pairs of the last search from scratch or consolidation, packed,
    /// sorted (`None` before the first refresh).
    base: Option<Vec<u64>>,
    /// Per slot: changed since `base` was made, so that its pairs there no
    /// longer count (listed in `void_list`, each once).
    void: Bits,
    void_list: Vec<u32>,
    /// The current pairs with a void object, packed, sorted.
    delta: Vec<u64>,
    /// The positions in `base` of its pairs with a void object, ascending.
    void_at: Vec<usize>,
    /// A buffer for the next consolidation's or search's pairs.
    spare: Vec<u64>,
    /// The dirty objects as bits, set only while a step reads them (kept
    /// to be cleared, not made anew, every frame).
    dirty_bits: Bits,
}

/// A refresh's output: the rows (for `pairs()`) or the events (for
/// `update()`).
pub(super) type Output = (Option<Vec<isize>>, Option<Events>);

impl PairCache {
    /// Room for `slots` slots.
    pub fn grow(&mut self, slots: usize) {
        self.void.grow(slots);
        self.dirty_bits.grow(slots);
    }

    /// Whether pairs are kept (a first refresh was made).
    pub fn started(&self) -> bool {
        self.base.is_some()
    }

    /// Pairs in the base.
    pub fn base_len(&self) -> usize {
        self.base.as_ref().map_or(0, Vec::len)
    }

    /// The kept pairs as they stand.
    fn kept(&self) -> Patched<'_> {
        Patched {
            base: self.base.as_deref().unwrap_or(&[]),
            void_at: &self.void_at,
            delta: &self.delta,
        }
    }

    /// Whether the kept pairs are the base alone (no void object, no
    /// delta): as a search from scratch or a consolidation leaves them.
    #[cfg(test)]
    pub fn is_whole(&self) -> bool {
        self.void_list.is_empty() && self.delta.is_empty()
    }

    /// How many pairs are kept.
    pub fn len(&self) -> usize {
        self.kept().len()
    }

    /// The kept pairs (none before the first refresh), packed, sorted.
    pub fn pairs(&self) -> Vec<u64> {
        let mut out = Vec::new();
        if self.started() {
            self.kept()
                .packed_into(&Exec::serial(), usize::MAX, &mut out);
        }
        out
    }

    /// The buffer a search from scratch packs its pairs into (the old
    /// base's: no fresh pages).
    pub fn take_spare(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.spare)
    }

    /// Kept pairs from now on: `new`, none void (the old base's buffer
    /// serves the next consolidation or search).  The one way a base is
    /// made.
    pub fn reset(&mut self, new: Vec<u64>) {
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

    /// The pairs of a search from scratch, `new`, kept; with `events`, the
    /// events from the kept pairs to them (the slots `gone` given out again).
    pub fn rebuilt(&mut self, new: Vec<u64>, events: bool, gone: &[u32]) -> Option<Events> {
        let ev = events.then(|| events_between(&self.pairs(), &new, gone));
        self.reset(new);
        ev
    }

    /// A refresh of the `dirty` objects (each once), whose current pairs are
    /// `fresh` (sorted, each once), the slots `gone` (sorted) given out
    /// again: the kept pairs brought up to date, and the rows or (with
    /// `events`) the events.  [`TooMany`] when the pairs pass `max_pairs`
    /// (or the memory), the kept pairs then as before.
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        dirty: &[u32],
        fresh: &[u64],
        gone: &[u32],
        events: bool,
        max_pairs: Option<u64>,
        policy: &Policy,
        ex: &Exec,
    ) -> Result<Output, TooMany> {
        // the dirty marks as bits, like the void ones: both stay in cache
        // while every kept pair is read (cleared again below, also when the
        // plan stops)
        for &h in dirty {
            self.dirty_bits.set(h as usize, true);
        }
        let mut spare = std::mem::take(&mut self.spare);
        let planned = catch_unwind(AssertUnwindSafe(|| {
            let want = Want {
                dirty,
                fresh,
                gone,
                events,
                max_pairs,
            };
            self.plan(&want, policy, ex, &mut spare)
        }));
        for &h in dirty {
            self.dirty_bits.set(h as usize, false);
        }
        self.spare = spare;
        let s = match planned {
            Ok(s) => s?,
            Err(stop) => resume_unwind(stop),
        };
        // nothing below stops
        for &h in &s.newly {
            self.void.set(h as usize, true);
        }
        self.void_list.extend(s.newly);
        self.delta = s.delta;
        if let Some(at) = s.void_at {
            self.void_at = at;
        }
        if let Some(base) = s.base {
            self.reset(base);
        }
        Ok((s.rows, s.events))
    }
}

impl PairCache {
    /// The invariants (see the module's doc), the slots `slots` in all
    /// and those `live` (or changed since the last refresh: a removal not
    /// yet refreshed may still have pairs).
    pub fn check(&self, slots: usize, live: impl Fn(usize) -> bool) -> Result<(), String> {
        let Some(base) = &self.base else {
            return if self.delta.is_empty() && self.void_list.is_empty() && self.void_at.is_empty()
            {
                Ok(())
            } else {
                Err("pairs kept before the first call".into())
            };
        };
        let canonical = |v: &[u64]| {
            v.windows(2).all(|w| w[0] < w[1])
                && v.iter().all(|&p| first(p) < second(p) && second(p) < slots)
        };
        if !canonical(base) || !canonical(&self.delta) {
            return Err("kept pairs not sorted, not i < j or past the slots".into());
        }
        if let Some(p) = self.delta.iter().find(|&&p| !self.void.either(p)) {
            return Err(format!("delta pair {p:#x} without a void object"));
        }
        let of_live = |p: u64| live(first(p)) && live(second(p));
        if let Some(p) = self.delta.iter().find(|&&p| !of_live(p)) {
            return Err(format!("delta pair {p:#x} of a free slot"));
        }
        let mut marked = (0..slots).filter(|&h| self.void.get(h)).collect::<Vec<_>>();
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
            } else if !of_live(p) {
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
