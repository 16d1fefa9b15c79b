//! What rays are cast at: boxes, circles or both, each with its exact test
//! (`param::shapes`) and the exact order of two entries along one ray
//! (across kinds: `param::cross`).

use crate::hints::prefetch_ptr;
use crate::narrow::CIRCLE;
use crate::param::shapes::{ray_box, ray_circle};
use crate::param::{cross, linear, quadratic};
use std::cmp::Ordering;

/// One kind of object a ray can hit.
pub trait Target: Sync {
    /// Where a ray enters an object, exactly (comparable along one ray).
    type Entry: Copy + Send;
    /// The objects' boxes (for circles, their outward-rounded boxes).
    fn boxes(&self) -> &[[f64; 4]];
    /// Where the ray `o + s d`, `s` in `[0, s_max]`, enters object `j`.
    fn hit(&self, j: usize, o: [f64; 2], d: [f64; 2], s_max: f64) -> Option<Self::Entry>;
    /// Hint that [`Target::hit`] will soon read object `j`'s row.
    fn prefetch(&self, j: usize);
    /// The exact order of two entries of one ray.
    fn cmp(a: &Self::Entry, b: &Self::Entry) -> Ordering;
    /// The entry as a double.
    fn t(e: &Self::Entry) -> f64;
    /// A double at or above the entry.
    fn upper(e: &Self::Entry) -> f64;
}

/// Boxes `minx, miny, maxx, maxy`.
pub struct Boxes<'a>(pub &'a [[f64; 4]]);

impl Target for Boxes<'_> {
    type Entry = linear::Entry;
    fn boxes(&self) -> &[[f64; 4]] {
        self.0
    }
    #[inline]
    fn hit(&self, j: usize, o: [f64; 2], d: [f64; 2], s_max: f64) -> Option<linear::Entry> {
        ray_box(&self.0[j], o, d, s_max)
    }
    #[inline(always)]
    fn prefetch(&self, j: usize) {
        prefetch_ptr(self.0.as_ptr().wrapping_add(j));
    }
    fn cmp(a: &linear::Entry, b: &linear::Entry) -> Ordering {
        linear::cmp_entries(a, b)
    }
    fn t(e: &linear::Entry) -> f64 {
        linear::entry_f64(e)
    }
    fn upper(e: &linear::Entry) -> f64 {
        linear::entry_upper(e)
    }
}

/// Circles `x, y, r` and their boxes.
pub struct Circles<'a> {
    /// The circles.
    pub circles: &'a [[f64; 3]],
    /// Their outward-rounded boxes (`check::circle_boxes`).
    pub boxes: &'a [[f64; 4]],
}

impl Target for Circles<'_> {
    type Entry = quadratic::Entry;
    fn boxes(&self) -> &[[f64; 4]] {
        self.boxes
    }
    #[inline]
    fn hit(&self, j: usize, o: [f64; 2], d: [f64; 2], s_max: f64) -> Option<quadratic::Entry> {
        ray_circle(&self.circles[j], o, d, s_max)
    }
    #[inline(always)]
    fn prefetch(&self, j: usize) {
        prefetch_ptr(self.circles.as_ptr().wrapping_add(j));
    }
    fn cmp(a: &quadratic::Entry, b: &quadratic::Entry) -> Ordering {
        quadratic::cmp_entries(a, b)
    }
    fn t(e: &quadratic::Entry) -> f64 {
        quadratic::entry_f64(e)
    }
    fn upper(e: &quadratic::Entry) -> f64 {
        quadratic::entry_upper(e)
    }
}

/// Boxes and circles together (the moving tree's objects): object `j` is
/// the circle `circles[j]` when `kinds[j]` is [`CIRCLE`], else the box
/// `boxes[j]`.
pub struct Mixed<'a> {
    /// The shape code of each object ([`crate::narrow::BOX`] or [`CIRCLE`]).
    pub kinds: &'a [u8],
    /// `x, y, r` of the circles (rows of boxes are not read).
    pub circles: &'a [[f64; 3]],
    /// The boxes (for circles, their outward-rounded boxes).
    pub boxes: &'a [[f64; 4]],
}

/// Where a ray enters a box or a circle.
#[derive(Clone, Copy, Debug)]
pub enum MixedEntry {
    /// A box's entry.
    Box(linear::Entry),
    /// A circle's entry.
    Circle(quadratic::Entry),
}

impl Target for Mixed<'_> {
    type Entry = MixedEntry;
    fn boxes(&self) -> &[[f64; 4]] {
        self.boxes
    }
    #[inline]
    fn hit(&self, j: usize, o: [f64; 2], d: [f64; 2], s_max: f64) -> Option<MixedEntry> {
        if self.kinds[j] == CIRCLE {
            ray_circle(&self.circles[j], o, d, s_max).map(MixedEntry::Circle)
        } else {
            ray_box(&self.boxes[j], o, d, s_max).map(MixedEntry::Box)
        }
    }
    #[inline(always)]
    fn prefetch(&self, j: usize) {
        // the kind, and the box (a circle's row is read after the kind)
        prefetch_ptr(self.kinds.as_ptr().wrapping_add(j));
        prefetch_ptr(self.boxes.as_ptr().wrapping_add(j));
    }
    fn cmp(a: &MixedEntry, b: &MixedEntry) -> Ordering {
        use MixedEntry::{Box, Circle};
        match (a, b) {
            (Box(x), Box(y)) => linear::cmp_entries(x, y),
            (Circle(x), Circle(y)) => quadratic::cmp_entries(x, y),
            (Box(x), Circle(y)) => cross::cmp_entries(x, y),
            (Circle(x), Box(y)) => cross::cmp_entries(y, x).reverse(),
        }
    }
    fn t(e: &MixedEntry) -> f64 {
        match e {
            MixedEntry::Box(x) => linear::entry_f64(x),
            MixedEntry::Circle(x) => quadratic::entry_f64(x),
        }
    }
    fn upper(e: &MixedEntry) -> f64 {
        match e {
            MixedEntry::Box(x) => linear::entry_upper(x),
            MixedEntry::Circle(x) => quadratic::entry_upper(x),
        }
    }
}
