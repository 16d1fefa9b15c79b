//! The index: per-cell lists of the objects, and each object's record.
//!
//! Each cell of every level keeps a list of the objects entered there
//! ([`crate::lists`]: the seeds' linked list unrolled into one run of
//! entries per cell, each carrying a copy of its object's box, so that a
//! query asks for all of a cell's candidates at once).  Inserting, moving
//! to other cells and removing are O(1) per object (amortized: a cell's run
//! moves when it fills up or empties out); a move that keeps its cells
//! relinks nothing.
//!
//! # Records
//! What a move reads of an object besides its box (placement, entry
//! locations, dirty mark) is one aligned 32-byte record ([`Rec`]): a move
//! of objects scattered over the slots waits for one line per object there.
//! The stale marks stay a dense byte column, which is all a move of every
//! object writes besides the boxes.  (The dirty mark is the frame's, see
//! [`super::changes`]; it sits here for that one line.)
//!
//! # Kept up to date when read
//! An insert stores the object's placement and marks it *stale*; a move
//! marks it stale and *unplaced*.  Their next reader first places every
//! unplaced object ([`Index::settle`]), then brings the lists up to date
//! ([`Index::sync`]): each stale object is relinked, or only its box copies
//! rewritten when it kept its cells, O(1) each; when more than the
//! policy's `relayout_share` of the objects are stale the lists are laid
//! out anew, cell after cell.  So frames that move everything and search
//! from scratch (which reads only the boxes) never place an object nor
//! touch the lists: a move is a store of boxes.  [`sync::rewrite`] is the
//! one path that rewrites an object's box copies.
//!
//! # Invariants ([`Index::check`])
//! * A slot is free exactly when its placement is; a free slot is in no list.
//! * `linked` is where the lists have each object; a fresh (not stale)
//!   object is linked where it is placed, its entries holding its box.
//! * Each linked object's entry `r` is at `rec.loc[r]`, in the list of its
//!   cell `r`, with its id and tag (the lists' back-pointers).
//! * The stale marks are the stale list (each slot once); unplaced implies
//!   stale; `unplaced` counts the unplaced marks.
//! * `per_level` and `nentries` count the live placements; the lists hold
//!   as many entries as the linked placements take.

mod sync;

use super::objects::Objects;
use super::placement::{free_place, PlaceOf, Placer};
use crate::dim::Row;
use crate::lists::{CellLists, NONE};
use crate::par::{Exec, Scatter};
use crate::tree::TreeRow;
use sync::rewrite;

/// Bit of [`Index::stale`]: the lists do not match the object.
pub(super) const STALE: u8 = 1;
/// Bit of [`Index::stale`]: moved since placed (its `place` is outdated;
/// implies [`STALE`]).
pub(super) const UNPLACED: u8 = 2;

/// An object's record: what a move reads and writes besides its box and
/// stale marks, in one aligned half cache line (a move of objects
/// scattered over the slots waits for one line here, where separate
/// columns took three).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub(super) struct Rec<const N: usize = 4>
where
    [f64; N]: Row,
{
    /// Where the object is entered (free for a free slot).
    pub place: PlaceOf<N>,
    /// Its entries' locations in the lists.
    pub loc: <[f64; N] as Row>::PerCell,
    /// Moved, inserted or removed since the last refresh (listed in the
    /// frame's changes, [`super::changes::Changes`]).
    pub dirty: bool,
}

impl<const N: usize> Rec<N>
where
    [f64; N]: Row,
{
    /// A new object's record, placed at `place`, in no list yet.
    pub fn new(place: PlaceOf<N>, dirty: bool) -> Self {
        Rec {
            place,
            loc: <[f64; N] as Row>::per_cell(NONE),
            dirty,
        }
    }
}

/// The lists and the records.
#[derive(Clone, Debug)]
pub(super) struct Index<const N: usize = 4>
where
    [f64; N]: Row,
{
    /// Per slot (see [`Rec`]).
    pub rec: Vec<Rec<N>>,
    /// [`STALE`] and [`UNPLACED`] bits per slot; the stale ones are listed
    /// in `stale_list`, each once.  (Dense, apart from the records: a move
    /// of every object marks them all, and a byte each is all it writes.)
    pub stale: Vec<u8>,
    stale_list: Vec<u32>,
    /// Where the lists have each slot (free: not in them).
    linked: Vec<PlaceOf<N>>,
    /// Slots with the [`UNPLACED`] bit.
    pub unplaced: usize,
    /// Objects taken into other cells by settles stopped since the last
    /// one that finished (counted in its `stats().relinked`).
    relinked_stopped: u64,
    pub lists: CellLists<N>,
    /// Live objects per level.
    pub per_level: Vec<u64>,
    /// Entries (object, cell) of the live objects as placed.
    pub nentries: u64,
}

impl<const N: usize> Index<N>
where
    [f64; N]: TreeRow<N>,
{
    pub fn new(cells: usize, depth: u32) -> Self {
        Index {
            rec: Vec::new(),
            stale: Vec::new(),
            stale_list: Vec::new(),
            linked: Vec::new(),
            unplaced: 0,
            relinked_stopped: 0,
            lists: CellLists::new(cells),
            per_level: vec![0; depth as usize + 1],
            nentries: 0,
        }
    }

    /// Objects the lists do not match yet (stale): what the next reader's
    /// sync relinks.
    pub fn stale_count(&self) -> usize {
        self.stale_list.len()
    }

    /// Slots from the end on for `m` new objects, placed by `place(i)`,
    /// stale, `dirty` as told, in no list (in parallel chunks of `grain`
    /// for big batches); the objects per level and entries they add, per
    /// chunk.
    pub fn extend(
        &mut self,
        m: usize,
        place: impl Fn(usize) -> PlaceOf<N> + Sync + Send,
        dirty: bool,
        grain: usize,
        ex: &Exec,
    ) -> Vec<(Vec<u64>, u64)> {
        let start = self.rec.len();
        ex.extend_with(&mut self.rec, m, grain, |i| Rec::new(place(i), dirty));
        ex.extend_with(&mut self.stale, m, grain, |_| STALE);
        ex.extend_with(&mut self.linked, m, grain, |_| free_place());
        // what `set_place` counts, per chunk
        let cb =
            crate::par::even_bounds(m, crate::par::chunk_count(m, grain, crate::par::MAX_CHUNKS));
        let levels = self.per_level.len();
        let added = &self.rec[start..];
        ex.map(cb.len() - 1, |c| {
            let mut per = vec![0u64; levels];
            let mut entries = 0u64;
            for p in added[cb[c]..cb[c + 1]].iter().map(|r| r.place) {
                per[p.level as usize] += 1;
                entries += p.entries() as u64;
            }
            (per, entries)
        })
    }

    /// The slots from `start` on, made by [`Index::extend`], taken in: their
    /// counts added, stale.
    pub fn appended(&mut self, start: usize, counts: Vec<(Vec<u64>, u64)>) {
        for (per, entries) in counts {
            for (t, x) in self.per_level.iter_mut().zip(per) {
                *t += x;
            }
            self.nentries += entries;
        }
        self.stale_list.extend(start as u32..self.rec.len() as u32);
    }

    /// The slots from `len` on let go (an insert stopped before it took them).
    pub fn truncate(&mut self, len: usize) {
        self.rec.truncate(len);
        self.stale.truncate(len);
        self.linked.truncate(len);
    }

    /// Set `h`'s placement (its lists catch up when next read).
    pub fn set_place(&mut self, h: usize, p: PlaceOf<N>) {
        let old = self.rec[h].place;
        if !old.is_free() {
            self.per_level[old.level as usize] -= 1;
            self.nentries -= old.entries() as u64;
        }
        if !p.is_free() {
            self.per_level[p.level as usize] += 1;
            self.nentries += p.entries() as u64;
        }
        self.rec[h].place = p;
        self.mark_stale(h);
    }

    /// Note that `h`'s entries in the lists no longer match it.
    pub fn mark_stale(&mut self, h: usize) {
        if self.stale[h] == 0 {
            self.stale[h] = STALE;
            self.stale_list.push(h as u32);
        }
    }

    /// Note that `h` moved: its placement (and so its lists) are outdated.
    pub fn mark_unplaced(&mut self, h: usize) {
        if self.stale[h] & UNPLACED == 0 {
            self.mark_stale(h);
            self.stale[h] |= UNPLACED;
            self.unplaced += 1;
        }
    }

    /// Marks set elsewhere (a parallel move) taken in: the slots `stale`
    /// newly marked stale, and `unplaced` more marked unplaced.
    pub fn marked(&mut self, stale: Vec<u32>, unplaced: usize) {
        self.stale_list.extend(stale);
        self.unplaced += unplaced;
    }

    /// Take removed slot `h` out: out of the lists, placed nowhere.
    pub fn remove(&mut self, placer: &Placer<N>, h: usize) {
        if self.stale[h] & UNPLACED != 0 {
            self.stale[h] &= !UNPLACED;
            self.unplaced -= 1;
        }
        self.unlink(placer, h);
        self.set_place(h, free_place());
    }

    /// For a fresh object `h` (its entries up to date before its box
    /// changed) now of box `b`: if `b` keeps its placement (inside its fat
    /// box, or placed in the same cells, with its fat box then grown anew),
    /// rewrite its entries' boxes and say so; else change nothing (it is
    /// placed and relinked at the next reader, and counted in
    /// `stats().relinked` there, as [`Index::settle`] places any moved
    /// object).
    ///
    /// A fresh object is linked where it is placed (`linked == place`,
    /// checked by [`Index::check`]), so its entries are at `rec[h].loc`.
    pub fn keeps_cells(&mut self, placer: &mut Placer<N>, h: usize, b: &[f64; N]) -> bool {
        if let Some((f, new)) = placer.moved(h, b) {
            if new != self.rec[h].place {
                return false;
            }
            placer.store_fat(h, f);
        }
        let entries = Scatter::new(self.lists.entries_mut());
        // SAFETY: one thread, the only one holding the lists (borrowed
        // mutably here): no other reader or writer of these entries.
        unsafe { rewrite(&entries, &self.rec[h], b) };
        true
    }

    /// The lists' entries of slot `h` (of box `b`) against where it is
    /// linked; a fresh (not stale) object is linked where it is placed,
    /// with its box.
    fn check_lists_of(&self, placer: &Placer<N>, h: usize, b: &[f64; N]) -> Result<(), String> {
        let l = self.linked[h];
        if l.is_free() {
            return if self.rec[h].place.is_free() || self.stale[h] != 0 {
                Ok(())
            } else {
                Err(format!("object {h}: not in the lists nor stale"))
            };
        }
        if self.stale[h] == 0 && (l != self.rec[h].place) {
            return Err(format!(
                "object {h}: linked at {l:?}, placed at {:?}",
                self.rec[h].place
            ));
        }
        for (r, (cell, tag)) in placer.cells(l).enumerate() {
            let at = self.rec[h].loc.as_ref()[r];
            if !self.lists.holds(cell, at) {
                return Err(format!("object {h}: entry {r} at {at} not in cell {cell}"));
            }
            let e = self.lists.entry(at);
            if e.id as usize != h || e.tag != tag {
                return Err(format!("object {h}: entry {r} at {at} is {e:?}"));
            }
            if self.stale[h] == 0 && e.b != *b {
                return Err(format!(
                    "object {h}: entry {r} holds box {:?}, not {b:?}",
                    e.b
                ));
            }
        }
        Ok(())
    }

    /// The invariants (see the module's doc), every placed object's by the
    /// placement rule too ([`Placer::check`]).  O(slots + cells).
    pub fn check(&self, placer: &Placer<N>, objects: &Objects<N>) -> Result<(), String> {
        let n = objects.slots();
        if self.rec.len() != n || self.stale.len() != n || self.linked.len() != n {
            return Err("records, stale marks or links not one per slot".into());
        }
        let mut per_level = vec![0u64; self.per_level.len()];
        let (mut linked_entries, mut entries) = (0, 0);
        for h in 0..n {
            let p = self.rec[h].place;
            if p.is_free() == objects.contains(h) {
                return Err(format!(
                    "slot {h}: placed at {p:?}, live {}",
                    objects.contains(h)
                ));
            }
            let b = &objects.boxes[h];
            self.check_lists_of(placer, h, b)?;
            let l = self.linked[h];
            linked_entries += l.entries();
            if p.is_free() {
                if !l.is_free() {
                    return Err(format!("removed object {h} still in the lists"));
                }
                continue;
            }
            per_level[p.level as usize] += 1;
            entries += p.entries() as u64;
            if self.stale[h] & UNPLACED != 0 {
                continue; // moved since placed: checked once placed
            }
            placer.check(h, b, p)?;
        }
        if per_level != self.per_level || entries != self.nentries {
            return Err(format!(
                "objects per level {per_level:?} and {entries} entries, counted {:?} and {}",
                self.per_level, self.nentries
            ));
        }
        let in_lists = self.lists.check()?;
        if in_lists != linked_entries {
            return Err(format!(
                "{in_lists} entries in the lists, {linked_entries} linked"
            ));
        }
        if self
            .stale
            .iter()
            .any(|&m| m == UNPLACED || m > STALE | UNPLACED)
        {
            return Err("a stale mark unplaced but not stale, or with unknown bits".into());
        }
        let unplaced = self.stale.iter().filter(|&&m| m & UNPLACED != 0).count();
        if unplaced != self.unplaced {
            return Err(format!(
                "{unplaced} unplaced objects, {} counted",
                self.unplaced
            ));
        }
        let mut stale: Vec<u32> = (0..n as u32)
            .filter(|&h| self.stale[h as usize] != 0)
            .collect();
        let mut listed = self.stale_list.clone();
        listed.sort_unstable();
        stale.sort_unstable();
        if stale != listed {
            return Err("stale marks != stale list".into());
        }
        Ok(())
    }
}
