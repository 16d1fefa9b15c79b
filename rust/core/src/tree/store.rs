//! Storing objects: insert and remove.
//!
//! Removed slots are reused first, the last removed first; the others are
//! new slots at the end, written in parallel chunks for big batches.  The
//! lists take the new objects at their next reader ([`super::index`]).
//!
//! # Stopping
//! `insert` is as if never called: the steps that may stop (placing the
//! objects for reused slots, extending the arrays for new ones) come first
//! and change nothing kept, and a stop there takes the arrays back to their
//! length: no slot taken, no handle given out.  It checks the stop once
//! more just before it commits.  `remove` has no step that may stop.

use super::placement::PlaceOf;
use super::BallOf;
use super::{Attrs, Tree};
use crate::narrow::{BOX, CIRCLE};
use crate::par::{chunk_count, even_bounds, Exec, MAX_CHUNKS};
use crate::tree::TreeRow;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// Per chunk of new slots: their objects per level, and their entries.
type Counts = Vec<(Vec<u64>, u64)>;

impl<const N: usize> Tree<N>
where
    [f64; N]: TreeRow<N>,
{
    /// Add objects (validated boxes, `circles` for circles); their handles.
    ///
    /// Stopped, it leaves the tree as before (no slot taken, no handle
    /// given out): its steps that may stop come first and change nothing
    /// the tree keeps.
    pub fn insert(
        &mut self,
        boxes: &[[f64; N]],
        circles: Option<&[BallOf<N>]>,
        attrs: Attrs,
        ex: &Exec,
    ) -> Vec<u32> {
        let n = boxes.len();
        let reuse = self.objects.reusable(n);
        let kind = if circles.is_some() { CIRCLE } else { BOX };
        let places = self.placements(&boxes[..reuse], ex);
        let start = self.objects.slots();
        let counts = self.append(&boxes[reuse..], kind, ex);
        // nothing below stops
        let mut handles = self.objects.take_free(reuse);
        self.previous.forget(&handles);
        handles.extend(start as u32..(start + n - reuse) as u32);
        for (k, &h) in handles[..reuse].iter().enumerate() {
            let h = h as usize;
            self.objects.fill(h, k, kind, boxes[k], circles, attrs);
            self.placer.set_fat(h, &boxes[k]);
            self.index.set_place(h, places[k]);
            self.changes.touch(h, &mut self.index.rec[h]);
        }
        // the new slots taken in: counted, stale, dirty (as the reused
        // ones one by one above), their columns set
        let len = self.objects.slots();
        self.index.appended(start, counts);
        self.cache.grow(len);
        if self.changes.keeps_marks() {
            self.changes.listed(start as u32..len as u32);
        }
        self.objects.appended(&handles, reuse, circles, attrs);
        self.stats.relinked = n as u64;
        handles
    }

    /// New slots at the end for objects of `kind` with `boxes`: every
    /// per-slot array extended straight to its values, in parallel chunks
    /// fixed by the batch for big ones; the objects placed, stale and
    /// dirty (the lists, counts and dirty list take them in after).  Their
    /// objects per level and entries, per chunk.
    ///
    /// Stopped, it takes the arrays back to their length before, and
    /// unwinds.
    fn append(&mut self, boxes: &[[f64; N]], kind: u8, ex: &Exec) -> Counts {
        let start = self.objects.slots();
        match catch_unwind(AssertUnwindSafe(|| self.extend_slots(boxes, kind, ex))) {
            Ok(counts) => counts,
            Err(stop) => {
                self.objects.truncate(start);
                self.placer.truncate(start);
                self.index.truncate(start);
                resume_unwind(stop)
            }
        }
    }

    /// [`Tree::append`]'s steps that may stop.
    fn extend_slots(&mut self, boxes: &[[f64; N]], kind: u8, ex: &Exec) -> Counts {
        let (m, g) = (boxes.len(), self.policy.move_grain);
        let start = self.objects.slots();
        let ex = ex.for_work(m, 2 * g);
        self.objects.extend(boxes, kind, g, &ex);
        self.placer.grow(boxes, start, g, &ex);
        let placer = &self.placer;
        let dirty = self.changes.keeps_marks();
        let counts = self
            .index
            .extend(m, |i| placer.place_new(&boxes[i]), dirty, g, &ex);
        // a stop set by now finds nothing committed
        ex.check_stop();
        counts
    }

    /// The placements of `boxes` (in parallel for big batches).
    fn placements(&self, boxes: &[[f64; N]], ex: &Exec) -> Vec<PlaceOf<N>> {
        let (n, g) = (boxes.len(), self.policy.move_grain);
        let nch = chunk_count(n, g, MAX_CHUNKS);
        let cb = even_bounds(n, nch);
        let parts = ex.for_work(n, 2 * g).map(nch, |c| {
            boxes[cb[c]..cb[c + 1]]
                .iter()
                .map(|b| self.placer.place_new(b))
                .collect::<Vec<_>>()
        });
        parts.concat()
    }

    /// Take checked handles out; their slots are reused by later inserts,
    /// the last call's first, and in a call the first handle first.
    pub fn remove(&mut self, handles: &[i64]) {
        self.changes.removed(handles, self.objects.slots());
        for &h in handles {
            let h = h as usize;
            self.changes.touch(h, &mut self.index.rec[h]);
            self.index.remove(&self.placer, h);
        }
        self.objects.remove(handles);
    }
}
