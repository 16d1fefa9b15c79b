//! What rays are cast at: boxes, balls (circles, spheres) or boxes and
//! circles together, each with its exact test (`param::shapes`, written
//! once over the dimension) and the exact order of two entries along one
//! ray (across kinds: `param::cross`).  Objects are rows of `N` doubles
//! ([`crate::dim`]); a ray's origin and direction one double per axis.

use crate::dim::{BallRow, Row};
use crate::hints::prefetch_ptr;
use crate::narrow::CIRCLE;
use crate::param::shapes::{ray_ball, ray_box};
use crate::param::{cross, linear, quadratic};
use std::cmp::Ordering;

/// One kind of object a ray can hit, of boxes `N` doubles wide.
pub trait Target<const N: usize = 4>: Sync
where
    [f64; N]: Row,
{
    /// Where a ray enters an object, exactly (comparable along one ray).
    type Entry: Copy + Send;
    /// The objects' boxes (for balls, their outward-rounded boxes).
    fn boxes(&self) -> &[[f64; N]];
    /// Where the ray `o + s d`, `s` in `[0, s_max]`, enters object `j`.
    fn hit(
        &self,
        j: usize,
        o: <[f64; N] as Row>::Axes,
        d: <[f64; N] as Row>::Axes,
        s_max: f64,
    ) -> Option<Self::Entry>;
    /// Hint that [`Target::hit`] will soon read object `j`'s row.
    fn prefetch(&self, j: usize);
    /// The exact order of two entries of one ray.
    fn cmp(a: &Self::Entry, b: &Self::Entry) -> Ordering;
    /// The entry as a double.
    fn t(e: &Self::Entry) -> f64;
    /// A double at or above the entry.
    fn upper(e: &Self::Entry) -> f64;
}

/// Boxes `minx, miny, maxx, maxy` (3D: `minx, miny, minz, maxx, maxy, maxz`).
pub struct Boxes<'a, const N: usize = 4>(pub &'a [[f64; N]]);

impl<const N: usize> Target<N> for Boxes<'_, N>
where
    [f64; N]: Row,
{
    type Entry = linear::Entry;
    fn boxes(&self) -> &[[f64; N]] {
        self.0
    }
    #[inline]
    fn hit(
        &self,
        j: usize,
        o: <[f64; N] as Row>::Axes,
        d: <[f64; N] as Row>::Axes,
        s_max: f64,
    ) -> Option<linear::Entry> {
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

/// Balls (rows of `C` doubles: the centre, then the radius) and their
/// boxes (rows of `N`): circles `x, y, r` in 2D ([`Circles`]), spheres
/// `x, y, z, r` in 3D.
pub struct Balls<'a, const C: usize = 3, const N: usize = 4> {
    /// The balls.
    pub balls: &'a [[f64; C]],
    /// Their outward-rounded boxes (`check::ball_boxes`).
    pub boxes: &'a [[f64; N]],
}

/// Circles `x, y, r` and their boxes.
pub type Circles<'a> = Balls<'a, 3, 4>;

impl<const C: usize, const D: usize, const N: usize> Target<N> for Balls<'_, C, N>
where
    [f64; C]: BallRow<D>,
    [f64; N]: Row<Axes = [f64; D]>,
{
    type Entry = quadratic::Entry<D>;
    fn boxes(&self) -> &[[f64; N]] {
        self.boxes
    }
    #[inline]
    fn hit(&self, j: usize, o: [f64; D], d: [f64; D], s_max: f64) -> Option<quadratic::Entry<D>> {
        ray_ball(&self.balls[j], o, d, s_max)
    }
    #[inline(always)]
    fn prefetch(&self, j: usize) {
        prefetch_ptr(self.balls.as_ptr().wrapping_add(j));
    }
    fn cmp(a: &quadratic::Entry<D>, b: &quadratic::Entry<D>) -> Ordering {
        quadratic::cmp_entries(a, b)
    }
    fn t(e: &quadratic::Entry<D>) -> f64 {
        quadratic::entry_f64(e)
    }
    fn upper(e: &quadratic::Entry<D>) -> f64 {
        quadratic::entry_upper(e)
    }
}

/// Boxes and balls together (the moving tree's objects): object `j` is
/// the ball `circles[j]` when `kinds[j]` is [`CIRCLE`], else the box
/// `boxes[j]` (2D: circles `x, y, r`; 3D: spheres `x, y, z, r`).
pub struct Mixed<'a, const C: usize = 3, const N: usize = 4> {
    /// The shape code of each object ([`crate::narrow::BOX`] or [`CIRCLE`]).
    pub kinds: &'a [u8],
    /// The balls (rows of boxes are not read).
    pub circles: &'a [[f64; C]],
    /// The boxes (for balls, their outward-rounded boxes).
    pub boxes: &'a [[f64; N]],
}

/// Where a ray enters a box or a ball.
#[derive(Clone, Copy, Debug)]
pub enum MixedEntry<const D: usize = 2> {
    /// A box's entry.
    Box(linear::Entry),
    /// A ball's entry.
    Circle(quadratic::Entry<D>),
}

impl<const C: usize, const D: usize, const N: usize> Target<N> for Mixed<'_, C, N>
where
    [f64; C]: BallRow<D>,
    [f64; N]: Row<Axes = [f64; D]>,
{
    type Entry = MixedEntry<D>;
    fn boxes(&self) -> &[[f64; N]] {
        self.boxes
    }
    #[inline]
    fn hit(&self, j: usize, o: [f64; D], d: [f64; D], s_max: f64) -> Option<MixedEntry<D>> {
        if self.kinds[j] == CIRCLE {
            ray_ball(&self.circles[j], o, d, s_max).map(MixedEntry::Circle)
        } else {
            ray_box(&self.boxes[j], o, d, s_max).map(MixedEntry::Box)
        }
    }
    #[inline(always)]
    fn prefetch(&self, j: usize) {
        // the kind, and the box (a ball's row is read after the kind)
        prefetch_ptr(self.kinds.as_ptr().wrapping_add(j));
        prefetch_ptr(self.boxes.as_ptr().wrapping_add(j));
    }
    fn cmp(a: &MixedEntry<D>, b: &MixedEntry<D>) -> Ordering {
        use MixedEntry::{Box, Circle};
        match (a, b) {
            (Box(x), Box(y)) => linear::cmp_entries(x, y),
            (Circle(x), Circle(y)) => quadratic::cmp_entries(x, y),
            (Box(x), Circle(y)) => cross::cmp_entries(x, y),
            (Circle(x), Box(y)) => cross::cmp_entries(y, x).reverse(),
        }
    }
    fn t(e: &MixedEntry<D>) -> f64 {
        match e {
            MixedEntry::Box(x) => linear::entry_f64(x),
            MixedEntry::Circle(x) => quadratic::entry_f64(x),
        }
    }
    fn upper(e: &MixedEntry<D>) -> f64 {
        match e {
            MixedEntry::Box(x) => linear::entry_upper(x),
            MixedEntry::Circle(x) => quadratic::entry_upper(x),
        }
    }
}
