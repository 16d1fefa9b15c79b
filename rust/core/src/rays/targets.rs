//! What rays are cast at: boxes or circles, each with its exact test
//! (`param::shapes`) and the exact order of two entries along one ray.

use crate::param::shapes::{ray_box, ray_circle};
use crate::param::{linear, quadratic};
use std::cmp::Ordering;

/// One kind of object a ray can hit.
pub trait Target: Sync {
    /// Where a ray enters an object, exactly (comparable along one ray).
    type Entry: Copy + Send;
    /// The objects' boxes (for circles, their outward-rounded boxes).
    fn boxes(&self) -> &[[f64; 4]];
    /// Where the ray `o + s d`, `s` in `[0, s_max]`, enters object `j`.
    fn hit(&self, j: usize, o: [f64; 2], d: [f64; 2], s_max: f64) -> Option<Self::Entry>;
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
