//! What changed since the last refresh (`pairs()` or `update()`): the
//! dirty objects and the removed slots.
//!
//! Every object inserted, moved or removed since the last refresh is
//! *dirty*: its pairs are found again by the next refresh, the others'
//! kept.  The dirty mark of each slot is the `dirty` bit of its record
//! ([`super::index::Rec`], in the line a move reads anyway); the dirty
//! slots are listed here, each once.
//!
//! # All dirty
//! A move of more than the policy's `rebuild_share` of the objects settles
//! that the next refresh searches from scratch, whatever else moves: from
//! then on no more marks are kept (`all`), so a frame that moves
//! everything only stores boxes.  The marks set before stay listed, to be
//! cleared by the refresh.
//!
//! # Handles given out again
//! A removed object's slot is given to the next insert at once, so between
//! two refreshes one handle may name two objects: the removed one in the
//! last pairs and a new one in the fresh pairs.  The removed slots are
//! listed (a push per removal; nothing on the paths of frames that only
//! move), and `update()` counts a pair with such a slot as a pair of other
//! objects before and after ([`crate::pairset::events_between`]).
//!
//! # Invariants ([`Changes::check`])
//! The dirty list holds each slot once and is the set of slots whose
//! record is marked dirty; a removed slot not yet refreshed is dirty.

use super::index::Rec;
use crate::dim::Row;

/// The changes since the last refresh.
#[derive(Clone, Debug, Default)]
pub(super) struct Changes {
    /// The dirty slots, each once (some may be free, or hold another
    /// object, when removed since the last refresh).
    pub dirty: Vec<u32>,
    /// Every object counts as dirty: the next refresh searches from
    /// scratch, and no more marks are kept until then.
    all: bool,
    /// The slots removed since the last refresh, in no order, repeats kept
    /// down to at most twice the slots.
    removed: Vec<u32>,
}

impl Changes {
    /// Whether marks are kept (not every object dirty).
    #[inline(always)]
    pub fn keeps_marks(&self) -> bool {
        !self.all
    }

    /// Every object dirty from now on: the next refresh searches from
    /// scratch, and no more marks are kept until then.
    pub fn mark_all(&mut self) {
        self.all = true;
    }

    /// Mark `h` (of record `r`) changed since the last refresh.
    #[inline(always)]
    pub fn touch<const N: usize>(&mut self, h: usize, r: &mut Rec<N>)
    where
        [f64; N]: Row,
    {
        if !r.dirty && !self.all {
            r.dirty = true;
            self.dirty.push(h as u32);
        }
    }

    /// Slots marked dirty elsewhere (a parallel move), listed.
    pub fn listed(&mut self, marked: impl IntoIterator<Item = u32>) {
        self.dirty.extend(marked);
    }

    /// Checked handles removed (their slots, `slots` in all, may be given
    /// out again before the next refresh).
    pub fn removed(&mut self, handles: &[i64], slots: usize) {
        self.removed.extend(handles.iter().map(|&h| h as u32));
        if self.removed.len() > 2 * slots {
            // a tree removing and inserting with no refresh (queries only)
            // keeps each slot once
            self.removed.sort_unstable();
            self.removed.dedup();
        }
    }

    /// Whether a slot was removed since the last refresh.
    pub fn any_removed(&self) -> bool {
        !self.removed.is_empty()
    }

    /// The slots removed since the last refresh, sorted, each once.
    pub fn gone(&self) -> Vec<u32> {
        let mut g = self.removed.clone();
        g.sort_unstable();
        g.dedup();
        g
    }

    /// A refresh done: no change since, every mark cleared.
    pub fn clear<const N: usize>(&mut self, rec: &mut [Rec<N>])
    where
        [f64; N]: Row,
    {
        for &h in &self.dirty {
            rec[h as usize].dirty = false;
        }
        self.dirty.clear();
        self.removed.clear();
        self.all = false;
    }

    /// The invariants (see the module's doc).
    pub fn check<const N: usize>(&self, rec: &[Rec<N>]) -> Result<(), String>
    where
        [f64; N]: Row,
    {
        let mut marked: Vec<u32> = (0..rec.len() as u32)
            .filter(|&h| rec[h as usize].dirty)
            .collect();
        let mut listed = self.dirty.clone();
        marked.sort_unstable();
        listed.sort_unstable();
        if marked != listed {
            return Err("dirty marks != dirty list".into());
        }
        if let Some(h) = self
            .removed
            .iter()
            .find(|&&h| !self.all && !rec[h as usize].dirty)
        {
            return Err(format!("slot {h} removed, not dirty"));
        }
        Ok(())
    }
}
