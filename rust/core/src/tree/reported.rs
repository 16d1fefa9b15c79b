//! What the last `update()` reported: `update()`'s events are relative to
//! the previous `update()`, whatever `pairs()` calls came between.
//!
//! # Derivation
//! Every refresh, `pairs()` or `update()`, brings the kept pairs
//! ([`super::cache`]) up to date, and an `update()` refresh gives the
//! events between the kept pairs before and after it.  While every refresh
//! since the last `update()` is the next `update()`'s own, the kept pairs
//! before it are the pairs that `update()` left, so its events are the
//! answer.  A `pairs()` refresh in between moves the kept pairs on: just
//! before the first one that may change them, the kept pairs (those the
//! last `update()` left, none before the first `update()`) are copied
//! here, and the slots the refreshes since remove are listed.  The next
//! `update()` then refreshes as usual and gives the events from that copy
//! to the kept pairs after it, a slot removed since the copy counting as
//! another object before and after ([`crate::pairset::events_between`]:
//! a removed object's pairs end, also when its slot was given out again).
//! So the events are the same as if every `pairs()` call between two
//! `update()`s had not been made.
//!
//! # Cost
//! A frame that calls only `update()`, or only `pairs()`, pays nothing
//! here (the copy before the first `update()` is empty, and an empty copy
//! lists no removals).  A frame that calls `pairs()` after an `update()`
//! pays one copy of the kept pairs, and the next `update()` one read of
//! them: each about the pass `pairs()` makes anyway writing its rows.
//!
//! # Invariants ([`Reported::check`])
//! The copy is sorted and canonical, each pair of slots below the slots
//! ever used; removals are listed only while the copy has pairs.

use crate::pairs::{first, second};
use crate::pairset::{events_between, Events};

/// The pairs the last `update()` left, when `pairs()` has moved the kept
/// pairs on since (see the module's doc).
#[derive(Clone, Debug, Default)]
pub(super) struct Reported {
    /// The pairs the last `update()` left (none before the first), packed,
    /// sorted; `None` while the kept pairs are still those.
    copy: Option<Vec<u64>>,
    /// The slots removed by the refreshes since the copy, in no order,
    /// repeats kept down to at most twice the slots.
    removed: Vec<u32>,
}

impl Reported {
    /// Whether the next `update()` compares against the copy.
    pub fn moved_on(&self) -> bool {
        self.copy.is_some()
    }

    /// Whether the slots a `pairs()` refresh removes are to be listed (the
    /// copy has pairs that a removed slot may be part of).
    pub fn lists_removals(&self) -> bool {
        self.copy.as_ref().is_some_and(|c| !c.is_empty())
    }

    /// Before a `pairs()` refresh that may change the kept pairs: copy them
    /// (`kept()`, the pairs the last `update()` left), unless done already.
    pub fn before_pairs(&mut self, kept: impl FnOnce() -> Vec<u64>) {
        if self.copy.is_none() {
            self.copy = Some(kept());
        }
    }

    /// After a `pairs()` refresh: the slots `gone` it removed (of `slots`
    /// ever used), listed when [`Reported::lists_removals`].
    pub fn after_pairs(&mut self, gone: &[u32], slots: usize) {
        if !self.lists_removals() || gone.is_empty() {
            return;
        }
        self.removed.extend_from_slice(gone);
        if self.removed.len() > 2 * slots {
            self.removed.sort_unstable();
            self.removed.dedup();
        }
    }

    /// The events of an `update()` whose refresh removed the slots `gone`
    /// and left the kept pairs `now`: from the copy to `now`.  The copy is
    /// then forgotten (the kept pairs are the reported ones again).
    pub fn events_to(&mut self, now: &[u64], gone: &[u32]) -> Events {
        let old = self.copy.take().unwrap_or_default();
        let mut removed = std::mem::take(&mut self.removed);
        removed.extend_from_slice(gone);
        removed.sort_unstable();
        removed.dedup();
        events_between(&old, now, &removed)
    }

    /// The invariants (see the module's doc), `slots` slots ever used.
    pub fn check(&self, slots: usize) -> Result<(), String> {
        let Some(copy) = &self.copy else {
            return if self.removed.is_empty() {
                Ok(())
            } else {
                Err("removals listed with no copy of the reported pairs".into())
            };
        };
        if copy.is_empty() && !self.removed.is_empty() {
            return Err("removals listed for an empty copy of the reported pairs".into());
        }
        let canonical = copy.windows(2).all(|w| w[0] < w[1])
            && copy
                .iter()
                .all(|&p| first(p) < second(p) && second(p) < slots);
        if !canonical {
            return Err("reported pairs not sorted, not i < j or past the slots".into());
        }
        Ok(())
    }
}
