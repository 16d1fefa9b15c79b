//! The objects: slots, their boxes, shapes and filter values, and handles.
//!
//! A handle is a slot.  A removed object's slot is free (its kind
//! [`FREE_KIND`]) and listed in the free list, given to the next insert at
//! once (the last removed first).  Boxes and kinds are dense columns, every
//! slot a value; circles, groups, categories and masks are [`Column`]s that
//! take no memory until one object differs from the default (a game of
//! plain boxes pays for no circles, groups or masks).
//!
//! # Invariants ([`Objects::check`])
//! `count` is the number of live slots; the free list holds each free slot
//! once; the counts of circles, grouped and masked objects are those of the
//! live slots; every column is empty or one value per slot.

mod columns;

use super::Attrs;
use super::BallOf;
use crate::dim::Row;
use crate::narrow::Balls;
use crate::narrow::{Filters, Narrow, Shapes, CIRCLE};
use crate::par::Exec;
use crate::tree::TreeRow;
use columns::{gather_rows, Column, Rows};

/// Kind of a free slot (live objects are [`crate::narrow::BOX`] or [`CIRCLE`]).
pub(super) const FREE_KIND: u8 = u8::MAX;

/// A handle argument that names no suitable object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleError {
    /// `handles[at]` is not a live object.
    Unknown(usize),
    /// `handles[at]` repeats an earlier one.
    Twice(usize),
    /// `handles[at]` is an object of the other shape.
    WrongKind(usize),
}

/// The slots and what they hold.
#[derive(Clone, Debug)]
pub(super) struct Objects<const N: usize = 4>
where
    [f64; N]: Row,
{
    /// Box per slot (a circle's outward-rounded box).
    pub boxes: Vec<[f64; N]>,
    /// Shape per slot ([`FREE_KIND`] for a free slot).
    pub kinds: Vec<u8>,
    circles: Column<BallOf<N>>,
    groups: Column<i64>,
    cats: Column<u64>,
    masks: Column<u64>,
    /// Free slots, the next to be given out last.
    free: Vec<u32>,
    /// Live slots.
    count: usize,
    /// Live circles, grouped and masked objects (the narrow phase reads a
    /// column only while some object uses it).
    ncircles: usize,
    ngrouped: usize,
    nmasked: usize,
    /// Per slot: the last check of handles that saw it (`epoch`), to find
    /// a repeat with no marks to clear.
    mark: Vec<u32>,
    epoch: u32,
}

impl<const N: usize> Objects<N>
where
    [f64; N]: TreeRow<N>,
{
    pub fn new() -> Self {
        Objects {
            boxes: Vec::new(),
            kinds: Vec::new(),
            circles: Column::new(Default::default()),
            groups: Column::new(0),
            cats: Column::new(u64::MAX),
            masks: Column::new(u64::MAX),
            free: Vec::new(),
            count: 0,
            ncircles: 0,
            ngrouped: 0,
            nmasked: 0,
            mark: Vec::new(),
            epoch: 0,
        }
    }

    /// Live objects.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Slots ever used.
    pub fn slots(&self) -> usize {
        self.kinds.len()
    }

    /// Whether every slot is live (no holes).
    pub fn dense(&self) -> bool {
        self.count == self.slots()
    }

    /// Whether `h` is a live object.
    #[inline]
    pub fn contains(&self, h: usize) -> bool {
        h < self.kinds.len() && self.kinds[h] != FREE_KIND
    }

    /// The live slots, ascending.
    pub fn live(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.kinds.len()).filter(|&h| self.kinds[h] != FREE_KIND)
    }

    /// The circle of slot `h` (`(0, 0, 0)` for a box).
    #[inline]
    pub fn circle(&self, h: usize) -> BallOf<N> {
        self.circles.get(h)
    }

    /// Whether live object `h` is a circle.
    #[inline]
    pub fn is_circle(&self, h: usize) -> bool {
        self.kinds[h] == CIRCLE
    }

    /// Free slots an insert of `n` objects reuses.
    pub fn reusable(&self, n: usize) -> usize {
        n.min(self.free.len())
    }

    /// Check `handles`: live, each once, of shape `kind` if given.
    pub fn check_handles(&mut self, handles: &[i64], kind: Option<u8>) -> Result<(), HandleError> {
        // Strictly increasing handles (a game's list of its moving objects,
        // or of all of them) repeat none; with every slot live and every
        // object of the kind asked for, only their range is left to check,
        // with no marks to set.  The first bad one is the one the loop below
        // would name (it finds no repeat in them).
        let one_kind = match kind {
            None => true,
            Some(k) => self.ncircles == if k == CIRCLE { self.count } else { 0 },
        };
        if self.dense() && one_kind && handles.windows(2).all(|w| w[0] < w[1]) {
            let len = self.count as i64;
            return match handles.first() {
                Some(&h) if h < 0 => Err(HandleError::Unknown(0)),
                Some(_) if handles[handles.len() - 1] >= len => {
                    Err(HandleError::Unknown(handles.partition_point(|&h| h < len)))
                }
                _ => Ok(()),
            };
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.epoch = 1;
        }
        for (at, &h) in handles.iter().enumerate() {
            if h < 0 || !self.contains(h as usize) {
                return Err(HandleError::Unknown(at));
            }
            let h = h as usize;
            if self.mark[h] == self.epoch {
                return Err(HandleError::Twice(at));
            }
            self.mark[h] = self.epoch;
            if kind.is_some_and(|k| self.kinds[h] != k) {
                return Err(HandleError::WrongKind(at));
            }
        }
        Ok(())
    }

    /// The `n` free slots an insert reuses, in the order it gives them out.
    pub fn take_free(&mut self, n: usize) -> Vec<u32> {
        self.free.drain(self.free.len() - n..).rev().collect()
    }

    /// Dense columns extended by the new slots of `boxes`, all of `kind`
    /// (in parallel chunks of `grain` for big batches).
    pub fn extend(&mut self, boxes: &[[f64; N]], kind: u8, grain: usize, ex: &Exec) {
        let m = boxes.len();
        ex.extend_with(&mut self.boxes, m, grain, |i| boxes[i]);
        ex.extend_with(&mut self.kinds, m, grain, |_| kind);
        ex.extend_with(&mut self.mark, m, grain, |_| 0);
    }

    /// The slots from `len` on let go (an insert stopped before it took them).
    pub fn truncate(&mut self, len: usize) {
        self.boxes.truncate(len);
        self.kinds.truncate(len);
        self.mark.truncate(len);
    }

    /// Reused slot `h` given object `k` of an insert of `kind`, `boxes`,
    /// `circles` and `attrs`.
    pub fn fill(
        &mut self,
        h: usize,
        k: usize,
        kind: u8,
        b: [f64; N],
        circles: Option<&[BallOf<N>]>,
        attrs: Attrs,
    ) {
        self.kinds[h] = kind;
        self.set_columns(h, k, circles, attrs);
        self.count_kinds(h, 1);
        self.boxes[h] = b;
    }

    /// The new slots `handles` (from `reuse` on, extended by
    /// [`Objects::extend`]) taken in: the sparse columns grown to their
    /// defaults, the insert's circles and filter values set; `n` more live.
    pub fn appended(
        &mut self,
        handles: &[u32],
        reuse: usize,
        circles: Option<&[BallOf<N>]>,
        attrs: Attrs,
    ) {
        let len = self.slots();
        self.circles.grow(len);
        self.groups.grow(len);
        self.cats.grow(len);
        self.masks.grow(len);
        // (all default but for circles and filters)
        if circles.is_some()
            || attrs.groups.is_some()
            || attrs.categories.is_some()
            || attrs.masks.is_some()
        {
            for (k, &h) in handles.iter().enumerate().skip(reuse) {
                self.set_columns(h as usize, k, circles, attrs);
                self.count_kinds(h as usize, 1);
            }
        }
        self.count += handles.len();
    }

    /// Slot `h`'s circle and filter values: those of object `k` of an insert.
    fn set_columns(&mut self, h: usize, k: usize, circles: Option<&[BallOf<N>]>, attrs: Attrs) {
        let slots = self.slots();
        // a circle makes the column (the narrow phase indexes it at every
        // slot once there is a circle, even one at (0, 0) of radius 0, the
        // default)
        match circles {
            Some(c) => self.circles.set_used(h, c[k], slots),
            None => self.circles.set(h, Default::default(), slots),
        }
        self.groups.set(h, attrs.groups.map_or(0, |g| g[k]), slots);
        self.cats
            .set(h, attrs.categories.map_or(u64::MAX, |c| c[k]), slots);
        self.masks
            .set(h, attrs.masks.map_or(u64::MAX, |m| m[k]), slots);
    }

    /// Live object `h`'s new circle.
    #[inline]
    pub fn set_circle(&mut self, h: usize, c: BallOf<N>) {
        let slots = self.slots();
        self.circles.set_used(h, c, slots);
    }

    /// Take checked handles out: their slots freed, to be reused the last
    /// call's first, and in a call the first handle first.
    pub fn remove(&mut self, handles: &[i64]) {
        for &h in handles {
            let h = h as usize;
            self.count_kinds(h, -1);
            self.kinds[h] = FREE_KIND;
        }
        self.free.extend(handles.iter().rev().map(|&h| h as u32));
        self.count -= handles.len();
    }

    fn count_kinds(&mut self, h: usize, sign: isize) {
        let add = |v: &mut usize, yes: bool| *v = (*v as isize + sign * yes as isize) as usize;
        add(&mut self.ncircles, self.kinds[h] == CIRCLE);
        add(&mut self.ngrouped, self.groups.get(h) != 0);
        add(
            &mut self.nmasked,
            self.cats.get(h) != u64::MAX || self.masks.get(h) != u64::MAX,
        );
    }

    /// The narrow phase over the slots.
    pub fn narrow(&self) -> Narrow<'_> {
        Narrow {
            shapes: if self.ncircles > 0 {
                <[f64; N]>::mixed(&self.kinds, self.circles.all(), &self.boxes)
            } else {
                Shapes::Boxes
            },
            filters: Filters {
                // a column no object sets stays unallocated: all default
                groups: (self.ngrouped > 0).then_some(self.groups.all()),
                categories: (self.nmasked > 0 && !self.cats.all().is_empty())
                    .then_some(self.cats.all()),
                masks: (self.nmasked > 0 && !self.masks.all().is_empty())
                    .then_some(self.masks.all()),
            },
        }
    }

    /// The slots `ids` gathered into rows of their own (a search of the
    /// live objects when some slots are free).
    pub fn gather(&self, ids: &[u32]) -> Rows<N> {
        Rows {
            boxes: gather_rows(&self.boxes, ids),
            circles: gather_rows(self.circles.all(), ids),
            kinds: gather_rows(&self.kinds, ids),
            groups: gather_rows(self.groups.all(), ids),
            cats: gather_rows(self.cats.all(), ids),
            masks: gather_rows(self.masks.all(), ids),
        }
    }

    /// The invariants (see the module's doc).
    pub fn check(&self) -> Result<(), String> {
        let n = self.slots();
        if self.boxes.len() != n || self.mark.len() != n {
            return Err("per-slot columns of different lengths".into());
        }
        self.circles.check(n, "circles")?;
        self.groups.check(n, "groups")?;
        self.cats.check(n, "categories")?;
        self.masks.check(n, "masks")?;
        let live = self.live().count();
        if live != self.count {
            return Err(format!("count {} != live slots {live}", self.count));
        }
        let mut free = self.free.clone();
        free.sort_unstable();
        let want: Vec<u32> = (0..n as u32)
            .filter(|&h| !self.contains(h as usize))
            .collect();
        if free != want {
            return Err("free list != removed slots".into());
        }
        let (mut nc, mut ng, mut nm) = (0, 0, 0);
        for h in self.live() {
            nc += (self.kinds[h] == CIRCLE) as usize;
            ng += (self.groups.get(h) != 0) as usize;
            nm += (self.cats.get(h) != u64::MAX || self.masks.get(h) != u64::MAX) as usize;
        }
        if (nc, ng, nm) != (self.ncircles, self.ngrouped, self.nmasked) {
            return Err("counts of circles, grouped and masked objects are off".into());
        }
        Ok(())
    }
}
