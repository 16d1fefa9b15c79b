//! Pairs in a periodic domain (orthorhombic): on an axis of period `L`, an
//! object stands for all its copies shifted by multiples of `L`, and two
//! objects collide when some copy of one overlaps the other (the box and
//! ball rules of [`crate::narrow`], open shapes).  Each pair is reported
//! once, whatever number of copies overlap; the decision is exact.
//!
//! **Derivation.**  Two intervals `(a, a + v)` and `(b, b + w)` overlap
//! after shifting the first by `k L` when `b - a - v < k L < b - a + w`: an
//! open interval of length `v + w`.  With every object's extent at most
//! `L / 2` (checked: a box's width, a ball's diameter; a ball's `|d - k L|
//! < r_i + r_j <= L / 2` bounds each axis alike) that interval is at most
//! `L` long and holds at most one multiple of `L`: at most one shift per
//! axis, so at most one copy of `i` meets `j` (for balls the sum of
//! squares is least at each axis' own nearest copy, which is that one).
//!
//! **Images.**  Each object gets a canonical image with its low side (a
//! ball: its centre) in `[0, L)` on every periodic axis, and ghosts shifted
//! by `-L` where the canonical image reaches past `L` (`images`).  If
//! copies of `i` and `j` overlap, with both canonical low sides in `[0,
//! L)` and extents at most `L / 2`, the shift `k` of `i` relative to `j`
//! is `-1`, `0` or `1` on each axis, and `k = -1` needs `i` to reach past
//! `L` (else `i`'s shifted copy ends at or below 0, where `j` starts; a
//! ball's canonical centre is in `[0, L)` but its box may start below 0,
//! so for balls "reach" counts the largest radius too, `images`): then
//! `i`'s ghost shifted on the axes where `k = -1` meets `j`'s image
//! shifted on those where `k = 1`.  So a plain search over the images
//! finds every colliding pair as two images whose shifted axes are
//! disjoint; two images shifted alike on an axis repeat the pair shifted on
//! neither, and are dropped ([`Imaged::meet`]).  As at most one shift
//! meets, no pair is found twice.
//!
//! **Exactness.**  Images whose coordinates are the true shifted ones
//! (objects already in `[0, L)`, and their ghosts: Sterbenz) are decided
//! by the plain exact predicates on those coordinates; the others, rounded
//! and widened to contain the truth, by `exact`.
//!
//! **Triclinic cells** ([`Lattice`]) follow the same plan: canonical images
//! in a brick, ghosts by a few lattice vectors, exact decisions from the
//! objects' own coordinates and integer shifts (`lattice`,
//! `lattice_images`, `lattice_exact`).
//!
//! **Balls of one radius** (points within a cutoff) go through the cell
//! list of `crate::cutoff` over the images' centres, which needs no boxes
//! and reports pairs of objects directly (`points`).
//!
//! **Order.**  The search returns canonical pairs of images; image `k < n`
//! is object `k`, so a pair of two canonical images is already the pair of
//! objects in order.  The pairs with a ghost are mapped to their objects,
//! sorted and merged in (`fold`).

mod approx;
mod axis;
mod exact;
mod images;
mod lattice;
mod lattice_canon;
mod lattice_exact;
mod lattice_images;
mod lattice_measure;
pub mod measure;
mod points;

pub use axis::place;
pub use lattice::{Lattice, LatticeError};

use crate::check::BadRow;
use crate::cutoff;
use crate::narrow::{Filters, Imaged, Narrow, Shapes};
use crate::pairs::Budget;
use crate::pairs::{pack, unpack, TooMany};
use crate::par::Exec;
use crate::scratch::Pooled;
use crate::search::{find_pairs, Search, Width};

/// Why a periodic search returned no pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// An object spans more than half the period on a periodic axis.
    Bad(BadRow),
    /// The pairs would not fit in memory.
    TooMany(TooMany),
}

/// A periodic domain.
#[derive(Clone, Copy, Debug)]
pub enum Domain<'a> {
    /// Orthorhombic: one period per axis, infinite where the axis is open.
    Axes(&'a [f64]),
    /// A triclinic cell.
    Lattice(&'a Lattice),
}

impl Domain<'_> {
    /// The images of `boxes` in the domain ([`images::of_boxes`],
    /// [`lattice_images::of_boxes`]).
    fn of_boxes<const N: usize>(
        &self,
        boxes: &[[f64; N]],
        ex: &Exec,
    ) -> Result<images::Images<N, 0>, BadRow>
    where
        [f64; N]: Width<N> + Pooled,
    {
        match self {
            Domain::Axes(period) => images::of_boxes(boxes, period, ex),
            Domain::Lattice(lat) => lattice_images::of_boxes(boxes, lat, ex),
        }
    }

    /// The images of `balls` in the domain, with their boxes when `with_boxes`.
    fn of_balls<const C: usize, const N: usize>(
        &self,
        balls: &[[f64; C]],
        with_boxes: bool,
        ex: &Exec,
    ) -> Result<images::Images<N, C>, BadRow>
    where
        [f64; N]: Width<N> + Pooled,
        [f64; C]: Pooled,
    {
        match self {
            Domain::Axes(period) => images::of_balls(balls, period, with_boxes, ex),
            Domain::Lattice(lat) => lattice_images::of_balls(balls, lat, with_boxes, ex),
        }
    }

    /// The domain's checks, asserted: periods positive, one per axis of
    /// `dims`; a cell of `dims` axes.
    fn check(&self, dims: usize) {
        match self {
            Domain::Axes(period) => {
                assert_eq!(period.len(), dims, "one period per axis");
                assert!(
                    period.iter().all(|&l| l > 0.0),
                    "periods are positive (infinite: open)"
                );
            }
            Domain::Lattice(lat) => {
                assert_eq!(lat.dims(), dims, "a cell of the objects' dimension");
                lat.check();
            }
        }
    }
}

/// Every colliding pair of the objects of `s` in the periodic `domain`,
/// canonical, flat.  `s` holds boxes (`Shapes::Boxes`) or balls
/// (`Shapes::Circles` in 2D, `Shapes::Spheres` in 3D), validated, with any
/// filters; other shapes are a caller's error (panic).
pub fn find_periodic_pairs<const N: usize>(
    s: &Search<N>,
    domain: Domain,
    ex: &Exec,
) -> Result<Vec<isize>, Refused>
where
    [f64; N]: Periodic<N>,
{
    domain.check(N / 2);
    match s.narrow.shapes {
        Shapes::Boxes => {
            let im = domain.of_boxes(s.boxes, ex).map_err(Refused::Bad)?;
            let found = search::<N, 0>(s, domain, &im, &[], Shapes::Boxes, ex);
            im.give_back();
            found
        }
        _ => <[f64; N]>::balls(s, domain, ex),
    }
}

/// A row width a periodic search runs at: its balls' search (circles in
/// 2D, spheres in 3D; stable Rust cannot name a ball row of a generic
/// width, so each width names its own).
pub trait Periodic<const N: usize>: Width<N> + Pooled {
    /// [`find_periodic_pairs`] of balls (`s.narrow.shapes` this width's
    /// balls, else a caller's error: panic).
    fn balls(s: &Search<N>, domain: Domain, ex: &Exec) -> Result<Vec<isize>, Refused>;
}

impl Periodic<4> for [f64; 4] {
    fn balls(s: &Search<4>, domain: Domain, ex: &Exec) -> Result<Vec<isize>, Refused> {
        let Shapes::Circles(c) = s.narrow.shapes else {
            panic!("a periodic 2D search takes boxes or circles")
        };
        let list = |b: &[[f64; 3]], r, nar: &Narrow, bud: &Budget| {
            cutoff::find::<2, _>(b, r, nar, bud, ex).map(|f| f.0)
        };
        if let Some(found) = points::by_cutoff::<3, 4, _>(s, c, domain, ex, list) {
            return found;
        }
        let im = domain.of_balls::<3, 4>(c, true, ex).map_err(Refused::Bad)?;
        let found = search(s, domain, &im, c, Shapes::Circles(&im.balls), ex);
        im.give_back();
        found
    }
}

impl Periodic<6> for [f64; 6] {
    fn balls(s: &Search<6>, domain: Domain, ex: &Exec) -> Result<Vec<isize>, Refused> {
        let Shapes::Spheres(c) = s.narrow.shapes else {
            panic!("a periodic 3D search takes boxes or spheres")
        };
        let list = |b: &[[f64; 4]], r, nar: &Narrow, bud: &Budget| {
            cutoff::find::<3, _>(b, r, nar, bud, ex).map(|f| f.0)
        };
        if let Some(found) = points::by_cutoff::<4, 6, _>(s, c, domain, ex, list) {
            return found;
        }
        let im = domain.of_balls::<4, 6>(c, true, ex).map_err(Refused::Bad)?;
        let found = search(s, domain, &im, c, Shapes::Spheres(&im.balls), ex);
        im.give_back();
        found
    }
}

/// The search over the images `im` of the objects of `s` (`balls` their
/// balls, if any; `shapes` the images' own).
fn search<const N: usize, const C: usize>(
    s: &Search<N>,
    domain: Domain,
    im: &images::Images<N, C>,
    balls: &[[f64; C]],
    shapes: Shapes,
    ex: &Exec,
) -> Result<Vec<isize>, Refused>
where
    [f64; N]: Width<N>,
{
    let mut flat = over_images(s, domain, im, balls, shapes, |narrow| {
        let over = Search {
            boxes: &im.boxes,
            bounds: crate::check::bounds_of(&im.boxes),
            narrow,
            method: s.method,
            max_pairs: s.max_pairs,
        };
        find_pairs(&over, ex).map_err(Refused::TooMany)
    })?;
    fold(&mut flat, &im.tags, s.boxes.len());
    Ok(flat)
}

/// `f(narrow)` with the narrow phase of a search over the images `im` of
/// the objects of `s` (`balls` their balls, if any; `shapes` the images'
/// own): the image rules of [`Imaged`] with the exact test of the domain
/// (`exact::Judge`, `lattice_exact::Judge`), and the objects' filters by
/// image.
fn over_images<const N: usize, const C: usize, R>(
    s: &Search<N>,
    domain: Domain,
    im: &images::Images<N, C>,
    balls: &[[f64; C]],
    shapes: Shapes,
    f: impl FnOnce(Narrow) -> R,
) -> R {
    let judge = match domain {
        Domain::Axes(period) => Judge::Axes(exact::Judge {
            boxes: s.boxes,
            balls,
            period,
            tags: &im.tags,
        }),
        Domain::Lattice(lattice) => Judge::Lattice(lattice_exact::Judge {
            boxes: s.boxes,
            balls,
            lattice,
            tags: &im.tags,
            wraps: &im.wraps,
        }),
    };
    let test = |p: usize, q: usize| match &judge {
        Judge::Axes(j) => j.meet(p, q),
        Judge::Lattice(j) => j.meet(p, q),
    };
    let imaged = Imaged {
        tags: &im.tags,
        objects: s.boxes.len(),
        shapes,
        exact: &test,
        slack: im.slack,
    };
    let (groups, categories, masks) = gathered(&s.narrow.filters, &im.tags);
    f(Narrow {
        shapes: Shapes::Imaged(&imaged),
        filters: Filters {
            groups: groups.as_deref(),
            categories: categories.as_deref(),
            masks: masks.as_deref(),
        },
    })
}

/// The exact test of a domain.
enum Judge<'a, const N: usize, const C: usize> {
    Axes(exact::Judge<'a, N, C>),
    Lattice(lattice_exact::Judge<'a, N, C>),
}

/// The filters of the objects, by image (`None` where not given).
#[allow(clippy::type_complexity)]
fn gathered(f: &Filters, tags: &[u64]) -> (Option<Vec<i64>>, Option<Vec<u64>>, Option<Vec<u64>>) {
    fn by_image<T: Copy>(v: Option<&[T]>, tags: &[u64]) -> Option<Vec<T>> {
        v.map(|v| tags.iter().map(|&t| v[Imaged::object(t)]).collect())
    }
    (
        by_image(f.groups, tags),
        by_image(f.categories, tags),
        by_image(f.masks, tags),
    )
}

/// Canonical pairs of images (`flat`, sorted) to canonical pairs of
/// objects, in place: pairs of two canonical images (`< n`) stay where
/// they are, in order; the others are mapped to their objects, sorted and
/// merged in from the back.
fn fold(flat: &mut Vec<isize>, tags: &[u64], n: usize) {
    let mut moved: Vec<u64> = Vec::new();
    let mut kept = 0;
    for r in 0..flat.len() / 2 {
        let (p, q) = (flat[2 * r] as usize, flat[2 * r + 1] as usize);
        if q < n {
            flat[2 * kept] = p as isize;
            flat[2 * kept + 1] = q as isize;
            kept += 1;
        } else {
            let (i, j) = (Imaged::object(tags[p]), Imaged::object(tags[q]));
            moved.push(pack(i as u32, j as u32));
        }
    }
    if moved.is_empty() {
        flat.truncate(2 * kept);
        return;
    }
    moved.sort_unstable();
    let total = kept + moved.len();
    flat.resize(2 * total, 0);
    // merge from the back: the kept rows are a prefix, in order
    let (mut a, mut b) = (kept, moved.len());
    for out in (0..total).rev() {
        let take_moved = a == 0
            || (b > 0 && {
                let (i, j) = unpack(moved[b - 1]);
                (i as isize, j as isize) > (flat[2 * (a - 1)], flat[2 * (a - 1) + 1])
            });
        let (i, j) = if take_moved {
            b -= 1;
            let (i, j) = unpack(moved[b]);
            (i as isize, j as isize)
        } else {
            a -= 1;
            (flat[2 * a], flat[2 * a + 1])
        };
        flat[2 * out] = i;
        flat[2 * out + 1] = j;
    }
}

#[cfg(test)]
mod lattice_measure_tests;
#[cfg(test)]
mod lattice_tests;
#[cfg(test)]
mod tests;
