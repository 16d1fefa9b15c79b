//! Moving objects: new boxes stored, placements left to the next reader.
//!
//! A move stores the boxes and marks the objects dirty ([`super::changes`])
//! and stale and unplaced ([`super::index`]); the next reader places them.
//! It takes one of two paths, by its size and shapes:
//! * on the pool (many boxes): chunks fixed by the data store the boxes
//!   and set the marks, and the marks are listed after, in chunk order;
//! * serially: the same, one object after the other; and when the next
//!   refresh is incremental (its objects will be placed and their lists
//!   read anyway), an object that was fresh and keeps its cells has its
//!   box copies rewritten at once and never becomes stale (one visit of its
//!   records while the move has them, instead of one in the move, one
//!   placing it and one rewriting its entries).  Only the objects that
//!   change cells wait for the reader, which places and relinks them (and
//!   counts them in `stats().relinked`) as before.
//!
//! # Stopping
//! `move_to` is finished: a parallel move (the only one with chunks) runs
//! the chunks the stop skipped on the calling thread (a store of their
//! boxes, checking no stop), takes in every chunk's marks, and then unwinds.

use super::index::{STALE, UNPLACED};
use super::BallOf;
use super::{chunks_kept, Tree};
use crate::hints::{ahead, prefetch_at};
use crate::par::{chunk_count, even_bounds, Exec, Scatter, Stopped, MAX_CHUNKS};
use crate::tree::TreeRow;
use std::panic::resume_unwind;

/// What one chunk of a parallel move marked.
#[derive(Default)]
struct Moved {
    dirty: Vec<u32>,
    stale: Vec<u32>,
    unplaced: usize,
}

impl<const N: usize> Tree<N>
where
    [f64; N]: TreeRow<N>,
{
    /// New boxes (and circles) for checked handles.
    ///
    /// The boxes are stored (in parallel for big batches); objects that
    /// change cells are placed at the next reader and relinked there.  In
    /// a move answered incrementally (of no more than the policy's
    /// `rebuild_share` of the objects), an object that keeps its cells has
    /// its entries' boxes rewritten here instead.
    pub fn move_to(
        &mut self,
        handles: &[i64],
        boxes: &[[f64; N]],
        circles: Option<&[BallOf<N>]>,
        ex: &Exec,
    ) {
        let n = handles.len();
        // n distinct objects moved: beyond the share, the next refresh
        // searches from scratch whatever else moves, so dirty marks would
        // never be read
        if self.policy.rebuilds(n, self.objects.len()) {
            self.changes.mark_all();
        }
        self.wake_for_refresh(n, ex);
        let on = ex.for_work(n, 2 * self.policy.move_grain);
        if on.is_parallel() && circles.is_none() {
            return on.install(|| self.move_in_parallel(handles, boxes, &on));
        }
        self.move_serially(handles, boxes, circles);
        // again at the end (adding nothing while the woken threads still
        // look for work): a move longer than their idle spell, on a loaded
        // machine, would otherwise leave them asleep for `pairs()`
        self.wake_for_refresh(n, ex);
    }

    /// A move of as many objects as make the next refresh parallel (its
    /// queries, or a search from scratch): the pool wakes while the boxes
    /// are stored, not when `pairs()` needs it.
    fn wake_for_refresh(&self, n: usize, ex: &Exec) {
        // (none on a busy machine, unless the queries are many: their rule)
        ex.for_work(n, self.policy.query_parallel).wake();
    }

    /// [`Tree::move_to`] on the calling thread.
    fn move_serially(
        &mut self,
        handles: &[i64],
        boxes: &[[f64; N]],
        circles: Option<&[BallOf<N>]>,
    ) {
        let n = handles.len();
        // A move the next refresh answers incrementally: an object whose
        // entries are up to date and that stays in its cells has them
        // rewritten now; the others wait for the next reader.  (Not when
        // the next refresh searches from scratch anyway: a first one, or
        // dirty objects piling up past the share over several moves.)
        let now = self.changes.keeps_marks()
            && self.cache.started()
            && !self
                .policy
                .rebuilds(self.changes.dirty.len() + n, self.objects.len());
        // the first move since the tree last placed objects: none of the
        // moves since has taken an object into other cells yet (those that
        // keep theirs here never reach `settle`, which counts the others)
        if self.index.unplaced == 0 {
            self.stats.relinked = 0;
        }
        // a few objects on, their records asked for now (each is at a
        // random place: the loop's time is mostly their misses); half as
        // far on, the entries they point to
        let far = |t: &Tree<N>, a: i64| {
            if now {
                t.prefetch_record(a as usize);
            }
        };
        let near = |t: &mut Tree<N>, _, a: i64| {
            let a = a as usize;
            if now && t.index.stale[a] == 0 {
                t.index.lists.prefetch_entry(t.index.rec[a].loc.as_ref()[0]);
            }
        };
        ahead(handles, self, far, near, |t, k, h| {
            let h = h as usize;
            t.objects.boxes[h] = boxes[k];
            if let Some(c) = circles {
                t.objects.set_circle(h, c[k]);
            }
            t.changes.touch(h, &mut t.index.rec[h]);
            let fresh = now && t.index.stale[h] == 0;
            if !(fresh && t.index.keeps_cells(&mut t.placer, h, &boxes[k])) {
                t.index.mark_unplaced(h);
            }
        });
    }

    /// Ask for the per-slot records of `h` that a move reads.
    fn prefetch_record(&self, h: usize) {
        prefetch_at(&self.objects.boxes, h);
        prefetch_at(&self.index.rec, h);
        prefetch_at(&self.index.stale, h);
        self.placer.prefetch(h);
    }

    /// [`Tree::move_to`] of boxes on the pool: chunks fixed by the data store
    /// each object's box and mark it (dirty only while marks are kept), and
    /// collect the objects newly marked (then listed serially, in chunk
    /// order).
    // (not inlined: in `move_to` it slowed the serial loop of a small move)
    #[inline(never)]
    fn move_in_parallel(&mut self, handles: &[i64], boxes: &[[f64; N]], ex: &Exec) {
        let n = handles.len();
        let mark_dirty = self.changes.keeps_marks();
        let nch = chunk_count(n, self.policy.move_grain, MAX_CHUNKS);
        let cb = even_bounds(n, nch);
        let bx = Scatter::new(&mut self.objects.boxes);
        let rec = Scatter::new(&mut self.index.rec);
        let stale = Scatter::new(&mut self.index.stale);
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
            self.changes.listed(m.dirty);
            self.index.marked(m.stale, m.unplaced);
        }
        if let Some(stop) = stopped {
            resume_unwind(stop);
        }
    }
}
