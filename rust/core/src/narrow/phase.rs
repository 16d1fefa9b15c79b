//! The narrow phase: what is decided after the box test.  Filters
//! (groups, categories and masks), the shapes of the objects beyond their
//! boxes ([`Shapes`]: circles, spheres, or boxes and balls mixed), and
//! [`Narrow`], which a pair loop asks about every pair whose boxes overlap.
//! Owns the shape codes ([`BOX`], [`CIRCLE`]).  The exact ball tests it
//! calls are the parent module's.

use super::{ball_overlap, circle_overlap, sphere_overlap};

/// Group and category/mask rules, per object; `None` means not given.
#[derive(Clone, Copy, Debug, Default)]
pub struct Filters<'a> {
    /// Same non-zero group: never a pair.
    pub groups: Option<&'a [i64]>,
    /// Category bits (default: all).
    pub categories: Option<&'a [u64]>,
    /// Mask bits (default: all).
    pub masks: Option<&'a [u64]>,
}

impl Filters<'_> {
    /// Whether no filter is given.
    pub fn is_empty(&self) -> bool {
        self.groups.is_none() && self.categories.is_none() && self.masks.is_none()
    }

    /// Whether the pair `(i, j)` passes every filter.
    #[inline]
    pub fn pass(&self, i: usize, j: usize) -> bool {
        if let Some(g) = self.groups {
            if g[i] != 0 && g[i] == g[j] {
                return false;
            }
        }
        if self.categories.is_some() || self.masks.is_some() {
            let c = |k: usize| self.categories.map_or(u64::MAX, |c| c[k]);
            let m = |k: usize| self.masks.map_or(u64::MAX, |m| m[k]);
            if c(i) & m(j) == 0 || c(j) & m(i) == 0 {
                return false;
            }
        }
        true
    }
}

/// Shape code of a box in [`Shapes::Mixed`] (the tree's object kinds).
pub const BOX: u8 = 0;
/// Shape code of a circle in [`Shapes::Mixed`].
pub const CIRCLE: u8 = 1;

/// What the objects are, beyond their boxes.
#[derive(Clone, Copy, Debug, Default)]
pub enum Shapes<'a> {
    /// The objects are periodic images of other objects ([`Imaged`]): a
    /// search over them reports each pair of originals once.
    Imaged(&'a Imaged<'a>),
    /// Every object is its box.
    #[default]
    Boxes,
    /// Every object is a circle, rows of `x, y, r` (its box is the circle's
    /// outward-rounded bounding box).
    Circles(&'a [[f64; 3]]),
    /// Every object is a sphere, rows of `x, y, z, r` (3D searches; its box
    /// is the sphere's outward-rounded bounding box).
    Spheres(&'a [[f64; 4]]),
    /// Object `k` is a circle (row `circles[k]`) when `kinds[k] == CIRCLE`,
    /// else the box `boxes[k]`.
    Mixed {
        /// [`BOX`] or [`CIRCLE`] per object.
        kinds: &'a [u8],
        /// `x, y, r` of the circles (other rows are not read).
        circles: &'a [[f64; 3]],
        /// The boxes.
        boxes: &'a [[f64; 4]],
    },
    /// [`Shapes::Mixed`] in 3D: object `k` is a sphere (row `spheres[k]`)
    /// when `kinds[k] == CIRCLE`, else the box `boxes[k]`.
    MixedSpheres {
        /// [`BOX`] or [`CIRCLE`] per object.
        kinds: &'a [u8],
        /// `x, y, z, r` of the spheres (other rows are not read).
        spheres: &'a [[f64; 4]],
        /// The boxes.
        boxes: &'a [[f64; 6]],
    },
}

/// What code written once over the dimension needs of its balls: the
/// narrow phase of boxes and balls together, and the exact box–ball test.
pub trait Balls: crate::dim::Row {
    /// Object `k` a ball (row `balls[k]`) when `kinds[k] == CIRCLE`, else
    /// the box `boxes[k]` ([`Shapes::Mixed`], [`Shapes::MixedSpheres`]).
    fn mixed<'a>(kinds: &'a [u8], balls: &'a [Self::Ball], boxes: &'a [Self]) -> Shapes<'a>;
    /// Exact: box `b` and ball `c` overlap (open shapes).
    fn box_meets_ball(b: &Self, c: &Self::Ball) -> bool;
    /// The ball rows of `shapes` when every object is a ball of this
    /// dimension ([`Shapes::Circles`], [`Shapes::Spheres`]).
    fn only_balls<'a>(shapes: &Shapes<'a>) -> Option<&'a [Self::Ball]>;
}

impl Balls for [f64; 4] {
    fn mixed<'a>(kinds: &'a [u8], circles: &'a [[f64; 3]], boxes: &'a [[f64; 4]]) -> Shapes<'a> {
        Shapes::Mixed {
            kinds,
            circles,
            boxes,
        }
    }
    #[inline(always)]
    fn box_meets_ball(b: &[f64; 4], c: &[f64; 3]) -> bool {
        box_circle_overlap(b, c)
    }
    fn only_balls<'a>(shapes: &Shapes<'a>) -> Option<&'a [[f64; 3]]> {
        match *shapes {
            Shapes::Circles(c) => Some(c),
            _ => None,
        }
    }
}

impl Balls for [f64; 6] {
    fn mixed<'a>(kinds: &'a [u8], spheres: &'a [[f64; 4]], boxes: &'a [[f64; 6]]) -> Shapes<'a> {
        Shapes::MixedSpheres {
            kinds,
            spheres,
            boxes,
        }
    }
    #[inline(always)]
    fn box_meets_ball(b: &[f64; 6], c: &[f64; 4]) -> bool {
        box_sphere_overlap(b, c)
    }
    fn only_balls<'a>(shapes: &Shapes<'a>) -> Option<&'a [[f64; 4]]> {
        match *shapes {
            Shapes::Spheres(c) => Some(c),
            _ => None,
        }
    }
}

/// Exact: the point of the box closest to the centre lies strictly inside
/// the circle.  That point is the centre clamped to the box, made of
/// existing coordinates (no rounding), so the circle test against a circle
/// of radius 0 there is the exact answer.
#[inline]
pub fn box_circle_overlap(b: &[f64; 4], c: &[f64; 3]) -> bool {
    let px = c[0].max(b[0]).min(b[2]);
    let py = c[1].max(b[1]).min(b[3]);
    circle_overlap(c[0], c[1], c[2], px, py, 0.0)
}

/// [`box_circle_overlap`] in 3D: the point of the box closest to the
/// sphere's centre (the centre clamped, no rounding) strictly inside it.
#[inline]
pub fn box_sphere_overlap(b: &[f64; 6], c: &[f64; 4]) -> bool {
    let p: [f64; 3] = std::array::from_fn(|k| c[k].max(b[k]).min(b[3 + k]));
    ball_overlap::<3>(&[c[0], c[1], c[2]], c[3], &p, 0.0)
}

/// Everything after the box test: filters, then the exact shape test.
#[derive(Clone, Copy, Debug, Default)]
pub struct Narrow<'a> {
    /// The objects' shapes.
    pub shapes: Shapes<'a>,
    /// The pair filters.
    pub filters: Filters<'a>,
}

impl Narrow<'_> {
    /// Whether the box test alone decides (plain boxes, no filters).
    #[inline(always)]
    pub fn is_trivial(&self) -> bool {
        matches!(self.shapes, Shapes::Boxes) && self.filters.is_empty()
    }

    /// Whether the pair `(i, j)`, whose boxes strictly overlap, collides.
    #[inline(always)]
    pub fn accept(&self, i: usize, j: usize) -> bool {
        self.filters.pass(i, j) && self.shapes_meet(i, j)
    }

    /// The exact shape test of `(i, j)`, whose boxes strictly overlap.
    #[inline(always)]
    pub fn shapes_meet(&self, i: usize, j: usize) -> bool {
        match self.shapes {
            Shapes::Imaged(im) => im.meet(i, j),
            plain => plain_meet(plain, i, j),
        }
    }

    /// `keep` (the box test) followed by [`Narrow::accept`] when needed.
    ///
    /// `TRIVIAL` is [`Narrow::is_trivial`], fixed at compile time so that the
    /// pair loops of plain boxes carry no narrow-phase code at all.
    #[inline(always)]
    pub fn judge<const TRIVIAL: bool>(&self, keep: bool, i: usize, j: usize) -> bool {
        if TRIVIAL {
            keep
        } else {
            keep && self.accept(i, j)
        }
    }
}

/// The exact shape test of objects `i` and `j` of `shapes` (not
/// [`Shapes::Imaged`]), whose boxes strictly overlap.
#[inline(always)]
fn plain_meet(shapes: Shapes, i: usize, j: usize) -> bool {
    match shapes {
        Shapes::Imaged(_) => unreachable!("images of images are never made"),
        Shapes::Boxes => true,
        Shapes::Circles(c) => {
            let (a, b) = (c[i], c[j]);
            circle_overlap(a[0], a[1], a[2], b[0], b[1], b[2])
        }
        Shapes::Spheres(c) => sphere_overlap(&c[i], &c[j]),
        Shapes::Mixed {
            kinds,
            circles,
            boxes,
        } => match (kinds[i] == CIRCLE, kinds[j] == CIRCLE) {
            (false, false) => true,
            (true, true) => {
                let (a, b) = (circles[i], circles[j]);
                circle_overlap(a[0], a[1], a[2], b[0], b[1], b[2])
            }
            (true, false) => box_circle_overlap(&boxes[j], &circles[i]),
            (false, true) => box_circle_overlap(&boxes[i], &circles[j]),
        },
        Shapes::MixedSpheres {
            kinds,
            spheres,
            boxes,
        } => match (kinds[i] == CIRCLE, kinds[j] == CIRCLE) {
            (false, false) => true,
            (true, true) => sphere_overlap(&spheres[i], &spheres[j]),
            (true, false) => box_sphere_overlap(&boxes[j], &spheres[i]),
            (false, true) => box_sphere_overlap(&boxes[i], &spheres[j]),
        },
    }
}

/// Objects that are periodic images of other objects, for a search over
/// them that reports each pair of originals once ([`Shapes::Imaged`];
/// `crate::periodic` makes them).  Owns the image tags' layout.
///
/// Every image carries a tag: its object's index, its shift bits, and
/// whether its coordinates are exactly the shifted ones (else they are
/// rounded outward, and the search's box test is only a filter).  The
/// shift bits are the image maker's code: in an orthorhombic cell bit `k`
/// is a shift by minus the period on axis `k`; a triclinic cell's ghosts
/// set bit 6 and the index of their lattice shift.  Two images meet when
/// they are of two objects, share no shift bit (a pair shifted alike on an
/// axis is the same pair as the one shifted on neither, which the search
/// meets too; two triclinic ghosts never pair), and their shapes meet: tested on the images' coordinates when both are exact,
/// else by `exact`, which knows the objects.  A search over images reads
/// its filters by image (the objects' filters gathered).
#[derive(Clone, Copy)]
pub struct Imaged<'a> {
    /// One tag per image ([`Imaged::tag`]).
    pub tags: &'a [u64],
    /// How many objects the images are of: images `0..objects` are their
    /// canonical images, in object order (the ghosts follow).
    pub objects: usize,
    /// The images' own shapes, by image: [`Shapes::Boxes`],
    /// [`Shapes::Circles`] or [`Shapes::Spheres`].
    pub shapes: Shapes<'a>,
    /// The exact test of two images at least one of which is inexact
    /// (called only for images of two objects with no shift bit shared).
    pub exact: &'a (dyn Fn(usize, usize) -> bool + Sync),
    /// Above the amount by which the distance of two ball images' centres
    /// may stand from the true one (0 when all are exact): a search that
    /// filters on those distances widens its filter by it.
    pub slack: f64,
}

impl std::fmt::Debug for Imaged<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Imaged")
            .field("images", &self.tags.len())
            .field("shapes", &self.shapes)
            .finish()
    }
}

/// The tag bit of an inexact image.
const INEXACT: u64 = 1 << 7;
/// The tag bits of the shift code.
const SHIFTS: u64 = INEXACT - 1;
/// Where a tag's object index starts.
const OBJECT: u32 = 8;

impl Imaged<'_> {
    /// The tag of an image of object `object` with shift bits `shifts`
    /// (below `2^7`), exact or not.
    #[inline(always)]
    pub fn tag(object: usize, shifts: u32, exact: bool) -> u64 {
        debug_assert!(u64::from(shifts) <= SHIFTS);
        ((object as u64) << OBJECT) | u64::from(shifts) | if exact { 0 } else { INEXACT }
    }

    /// The object of the image tagged `tag`.
    #[inline(always)]
    pub fn object(tag: u64) -> usize {
        (tag >> OBJECT) as usize
    }

    /// The shift bits of the image tagged `tag`.
    #[inline(always)]
    pub fn shifts(tag: u64) -> u32 {
        (tag & SHIFTS) as u32
    }

    /// Whether the image tagged `tag` has its true coordinates.
    #[inline(always)]
    pub fn is_exact(tag: u64) -> bool {
        tag & INEXACT == 0
    }

    /// Whether images tagged `a` and `b` may report a pair: images of two
    /// objects, with no shift bit in common.
    #[inline(always)]
    pub fn distinct(a: u64, b: u64) -> bool {
        a & b & SHIFTS == 0 && a >> OBJECT != b >> OBJECT
    }

    /// Whether images `i` and `j`, whose boxes strictly overlap, meet.
    #[inline(always)]
    pub fn meet(&self, i: usize, j: usize) -> bool {
        let (a, b) = (self.tags[i], self.tags[j]);
        if !Imaged::distinct(a, b) {
            return false;
        }
        if (a | b) & INEXACT != 0 {
            return (self.exact)(i, j);
        }
        plain_meet(self.shapes, i, j)
    }
}
