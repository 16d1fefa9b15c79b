//! Bringing the index up to date for its next reader: settle (place the
//! moved objects) and sync (relink them, rewrite box copies, or lay the
//! lists out anew).  See [`super`] for why they wait for a reader.
//!
//! # Stopping
//! Both keep what they finished, and the next reader does the rest:
//! [`Index::settle`] applies what its finished chunks placed (the other
//! objects stay unplaced); [`Index::sync`] clears the stale marks only once
//! done (a stale object's entries are read by no one, so box copies
//! rewritten before a stop do no harm); a relayout changes nothing until
//! its sort is done.  No answer depends on how far they got.

use super::{Index, Rec, STALE, UNPLACED};
use crate::dim::Row;
use crate::hints::{ahead, prefetch_at};
use crate::lists::{self, Entry, NONE};
use crate::morton::level_start_in;
use crate::par::{chunk_count, even_bounds, Exec, Scatter, MAX_CHUNKS};
use crate::tree::chunks_kept;
use crate::tree::placement::{free_place, replacement, Placer};
use crate::tree::policy::Policy;
use crate::tree::TreeRow;
use std::panic::resume_unwind;

impl<const N: usize> Index<N>
where
    [f64; N]: TreeRow<N>,
{
    /// Place every unplaced object by its box now (grown into a new fat box
    /// when it left its old one); those whose cells changed are counted.
    /// In parallel for many (the placements only read the tree), applied
    /// serially in list order.  `None` when no object was unplaced, else
    /// how many objects changed cells since the last settle that finished.
    ///
    /// Stopped, it keeps what its finished chunks placed (their objects are
    /// placed, the others still unplaced) and unwinds: the next reader
    /// places the rest.
    pub fn settle(
        &mut self,
        placer: &mut Placer<N>,
        boxes: &[[f64; N]],
        grain: usize,
        ex: &Exec,
    ) -> Option<u64> {
        if self.unplaced == 0 {
            return None;
        }
        let list = &self.stale_list;
        let nch = chunk_count(list.len(), grain, MAX_CHUNKS);
        let cb = even_bounds(list.len(), nch);
        let (grid, margin) = (placer.grid, placer.margin);
        let rec = &self.rec;
        let fat = Scatter::new(placer.fat_mut());
        let stale = Scatter::new(&mut self.stale);
        let ex = ex.for_work(list.len(), 2 * grain);
        let (changed, stopped) = chunks_kept(&ex, nch, |c| {
            let mut out = Vec::new();
            let far = |_: &(), a: u32| {
                // a few objects on, their records asked for now
                prefetch_at(boxes, a as usize);
                prefetch_at(rec, a as usize);
            };
            ahead(
                &list[cb[c]..cb[c + 1]],
                &mut (),
                far,
                |_, _, _| {},
                |_, _, h| {
                    let h = h as usize;
                    // SAFETY: the stale list holds each slot once (`check`
                    // checks it), so chunk c alone touches position h of `stale`
                    // and `fat` while they are scattered: one writer, no race.
                    // Tested in parallel against a serial tree, with and without
                    // margins: `parallel_move_equals_serial_move` (tests/tree.rs).
                    unsafe {
                        if stale.read(h) & UNPLACED == 0 {
                            return;
                        }
                        stale.write(h, STALE);
                        let old_fat = (margin > 0.0).then(|| fat.read(h));
                        let Some((f, p)) = replacement(&grid, margin, old_fat, &boxes[h]) else {
                            return; // still inside its fat box: placement stands
                        };
                        if margin > 0.0 {
                            fat.write(h, f);
                        }
                        if p != rec[h].place {
                            out.push((h as u32, p));
                        }
                    }
                },
            );
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
        Some(std::mem::take(&mut self.relinked_stopped) + relinked)
    }

    /// Bring the lists up to date with every stale object (placed first by
    /// [`Index::settle`]: the caller settles them), `count` objects live.
    pub fn sync(
        &mut self,
        placer: &Placer<N>,
        boxes: &[[f64; N]],
        count: usize,
        policy: &Policy,
        ex: &Exec,
    ) {
        if self.stale_list.is_empty() {
            return;
        }
        debug_assert_eq!(self.unplaced, 0, "settled first");
        if policy.relays(self.stale_list.len(), count) {
            self.relayout(placer, boxes, ex);
        } else {
            // Objects that kept their cells only get their entries' boxes
            // rewritten: in chunks fixed by the stale list, in parallel for
            // many.  The others are relinked after, serially, in list order.
            let grain = policy.sync_grain;
            let list = &self.stale_list;
            let nch = chunk_count(list.len(), grain, MAX_CHUNKS);
            let cb = even_bounds(list.len(), nch);
            let (rec, linked) = (&self.rec, &self.linked);
            let entries = Scatter::new(self.lists.entries_mut());
            let relink = ex.for_work(list.len(), 2 * grain).map(nch, |c| {
                let mut out = Vec::new();
                // a few objects on, their records asked for now (each is at
                // a random place: the loop's time is mostly their misses);
                // half as far on, the entries they point to
                let far = |_: &(), a: u32| {
                    prefetch_at(linked, a as usize);
                    prefetch_at(rec, a as usize);
                };
                let near = |_: &mut (), _, a: u32| {
                    if !linked[a as usize].is_free() {
                        entries.prefetch(rec[a as usize].loc.as_ref()[0] as usize);
                    }
                };
                ahead(&list[cb[c]..cb[c + 1]], &mut (), far, near, |_, _, h| {
                    let h = h as usize;
                    let p = rec[h].place;
                    if p.is_free() {
                        return; // removed: unlinked then
                    }
                    if linked[h] != p {
                        out.push(h as u32);
                        return;
                    }
                    // SAFETY: the stale list holds each object once
                    // (`check` checks it), and `rec[h].loc` are the
                    // locations holding object h's entries (the lists'
                    // back-pointers, checked by `check`): so they are read
                    // and written by this chunk alone.  Tested in parallel
                    // against the model frame by frame
                    // (`the_delta_grows_and_is_consolidated`, 2 threads,
                    // over 512 stale objects a frame).
                    unsafe { rewrite(&entries, &rec[h], &boxes[h]) };
                });
                out
            });
            for h in relink.into_iter().flatten() {
                let h = h as usize;
                self.unlink(placer, h);
                self.link(placer, h, boxes[h]);
            }
        }
        for &h in &self.stale_list {
            self.stale[h as usize] = 0;
        }
        self.stale_list.clear();
    }

    /// Enter `h` (of box `b`) in the lists of its placement.
    pub fn link(&mut self, placer: &Placer<N>, h: usize, b: [f64; N]) {
        let p = self.rec[h].place;
        let (cells, n) = placer.cells_on_stack(p);
        let rec = &mut self.rec;
        for (r, &(cell, tag)) in cells[..n].iter().enumerate() {
            let e = Entry {
                b,
                id: h as u32,
                tag,
            };
            // the entries of the cell that changed place: their back-pointers
            rec[h].loc.as_mut()[r] = self.lists.push(cell, e, |m, at| *back(rec, m) = at);
        }
        self.linked[h] = p;
    }

    /// Take `h` out of the lists it is in.
    pub fn unlink(&mut self, placer: &Placer<N>, h: usize) {
        let p = self.linked[h];
        if p.is_free() {
            return;
        }
        let (cells, n) = placer.cells_on_stack(p);
        let rec = &mut self.rec;
        for (r, &(cell, _)) in cells[..n].iter().enumerate() {
            let at = rec[h].loc.as_ref()[r];
            // the entries of the cell that changed place: their back-pointers
            self.lists.remove(cell, at, |m, to| *back(rec, m) = to);
            rec[h].loc.as_mut()[r] = NONE;
        }
        self.linked[h] = free_place();
    }

    /// Lay every list out anew, cell after cell (entries sorted by cell).
    ///
    /// Stopped (in the sort), it has changed nothing.
    fn relayout(&mut self, placer: &Placer<N>, boxes: &[[f64; N]], ex: &Exec) {
        // an entry's (object, rank) packed as `h << d | r`, `2^d` cells at most
        let d = N / 2;
        let mut recs: Vec<(u64, u32)> = Vec::with_capacity(self.nentries as usize);
        for h in 0..self.rec.len() {
            let p = self.rec[h].place;
            if !p.is_free() {
                for (r, (cell, _)) in placer.cells(p).enumerate() {
                    recs.push((cell as u64, (h << d | r) as u32));
                }
            }
        }
        let bits = usize::BITS - self.rec.len().max(1).leading_zeros();
        let cells = level_start_in::<[f64; N]>(placer.grid.depth + 1) as u32;
        let bits = bits.max(u32::BITS - cells.leading_zeros());
        let recs = crate::radix::sort(recs, 0, bits, ex);
        // nothing below stops; only stale objects can be linked elsewhere
        // than placed (`check` checks the others)
        for &h in &self.stale_list {
            self.linked[h as usize] = self.rec[h as usize].place;
        }
        let entries: Vec<(u32, Entry<N>)> = recs
            .iter()
            .map(|&(cell, nd)| {
                let (h, r) = (nd as usize >> d, nd as usize & ((1 << d) - 1));
                let tag = lists::tag(r, self.rec[h].place.steps(r));
                let e = Entry {
                    b: boxes[h],
                    id: h as u32,
                    tag,
                };
                (cell as u32, e)
            })
            .collect();
        let rec = &mut self.rec;
        self.lists.build(&entries, |k, at| {
            let nd = recs[k].1 as usize;
            rec[nd >> d].loc.as_mut()[nd & ((1 << d) - 1)] = at;
        });
    }
}

/// Write box `b` into the entries of the object of record `r`, linked
/// where it is placed: the one path that rewrites an object's box copies
/// (a move that keeps its cells, and the lists' update).
///
/// # Safety
/// No other thread reads or writes these entries while this runs: the
/// entries of one object are its own (the lists' back-pointers), so
/// callers that give each object to one thread qualify.
#[inline(always)]
pub(super) unsafe fn rewrite<const N: usize>(entries: &Scatter<Entry<N>>, r: &Rec<N>, b: &[f64; N])
where
    [f64; N]: Row,
{
    for &at in &r.loc.as_ref()[..r.place.entries()] {
        // SAFETY: the caller's contract: this thread alone touches the
        // entries at `r.loc`.
        unsafe {
            let mut e = entries.read(at as usize);
            e.b = *b;
            entries.write(at as usize, e);
        }
    }
}

/// The back-pointer of entry `e` in its object's record: one per cell of
/// its placement (the tag's rank, [`lists::RANK`]).
#[inline]
pub(super) fn back<'a, const N: usize>(rec: &'a mut [Rec<N>], e: &Entry<N>) -> &'a mut u32
where
    [f64; N]: Row,
{
    &mut rec[e.id as usize].loc.as_mut()[(e.tag & lists::RANK) as usize]
}
