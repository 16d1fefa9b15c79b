//! The O(n^2) references: every pair tested with the plain rules, sorted;
//! every object tested against each ray; every pair tested for a swept hit.
//!
//! Slow and obviously correct; every method is tested against it.  It shares
//! only the exact predicates of [`crate::narrow`] and `param`, which have
//! tests of their own against integer and rational arithmetic.

use crate::dim::{overlap, BallRow, Row};
use crate::narrow::{Narrow, Shapes, CIRCLE};
use crate::param::shapes;

/// Every colliding pair `(i, j)`, `i < j`, sorted, of 2D or 3D boxes
/// ([`crate::dim`]; balls judged by their shapes).
pub fn pairs<const N: usize>(boxes: &[[f64; N]], narrow: &Narrow) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for i in 0..boxes.len() {
        for j in i + 1..boxes.len() {
            // a ball is judged by its shape alone, not its box
            let boxes_meet = match narrow.shapes {
                // images' boxes contain their shapes: a filter, then the exact test
                Shapes::Boxes | Shapes::Imaged(_) => overlap(&boxes[i], &boxes[j]),
                Shapes::Circles(_) | Shapes::Spheres(_) => true,
                Shapes::Mixed { kinds, .. } | Shapes::MixedSpheres { kinds, .. } => {
                    kinds[i] == CIRCLE || kinds[j] == CIRCLE || overlap(&boxes[i], &boxes[j])
                }
            };
            if boxes_meet && narrow.accept(i, j) {
                out.push((i, j));
            }
        }
    }
    out
}

/// Every hit of one ray and its first hit (see [`ray_boxes`]).
#[derive(Clone, Debug, PartialEq)]
pub struct RayHits {
    /// `(object, t)` of every object hit, by object.
    pub all: Vec<(usize, f64)>,
    /// The first hit: least entry (exact order), ties to the lower object.
    pub first: Option<(usize, f64)>,
}

/// Every box the ray `o + s d`, `s` in `[0, s_max]`, enters among those
/// `keep` accepts (the filters), each tested.
pub fn ray_boxes(
    boxes: &[[f64; 4]],
    o: [f64; 2],
    d: [f64; 2],
    s_max: f64,
    keep: impl Fn(usize) -> bool,
) -> RayHits {
    use crate::param::linear::{cmp_entries, entry_f64};
    let hits: Vec<_> = (0..boxes.len())
        .filter(|&j| keep(j))
        .filter_map(|j| shapes::ray_box(&boxes[j], o, d, s_max).map(|e| (j, e)))
        .collect();
    // the first of the least: `min_by` keeps the earlier of equals
    let first = hits.iter().min_by(|a, b| cmp_entries(&a.1, &b.1));
    RayHits {
        first: first.map(|(j, e)| (*j, entry_f64(e))),
        all: hits.iter().map(|(j, e)| (*j, entry_f64(e))).collect(),
    }
}

/// Every circle (`x, y, r`) the ray enters among those `keep` accepts.
pub fn ray_circles(
    circles: &[[f64; 3]],
    o: [f64; 2],
    d: [f64; 2],
    s_max: f64,
    keep: impl Fn(usize) -> bool,
) -> RayHits {
    use crate::param::quadratic::{cmp_entries, entry_f64};
    let hits: Vec<_> = (0..circles.len())
        .filter(|&j| keep(j))
        .filter_map(|j| shapes::ray_circle(&circles[j], o, d, s_max).map(|e| (j, e)))
        .collect();
    let first = hits.iter().min_by(|a, b| cmp_entries(&a.1, &b.1));
    RayHits {
        first: first.map(|(j, e)| (*j, entry_f64(e))),
        all: hits.iter().map(|(j, e)| (*j, entry_f64(e))).collect(),
    }
}

/// Every pair of boxes (2D or 3D) moving from `start` to `end` that
/// overlaps strictly at some `s` in `[0, 1]`, with the first such `s`,
/// sorted.
pub fn swept_box_pairs<const N: usize>(
    start: &[[f64; N]],
    end: &[[f64; N]],
) -> Vec<(usize, usize, f64)>
where
    [f64; N]: Row,
{
    let mut out = Vec::new();
    for i in 0..start.len() {
        for j in i + 1..start.len() {
            if let Some(e) = shapes::swept_boxes(&start[i], &end[i], &start[j], &end[j]) {
                out.push((i, j, crate::param::linear::entry_f64(&e)));
            }
        }
    }
    out
}

/// Every pair of balls (circles or spheres) moving from `start` to `end`
/// (radii of `start`) that overlaps strictly at some `s` in `[0, 1]`, with
/// the first such `s`.
pub fn swept_ball_pairs<const C: usize, const D: usize>(
    start: &[[f64; C]],
    end: &[[f64; C]],
) -> Vec<(usize, usize, f64)>
where
    [f64; C]: BallRow<D>,
{
    let with_radius = |k: usize| -> [f64; C] {
        let mut e = end[k];
        e[D] = start[k][D];
        e
    };
    let mut out = Vec::new();
    for i in 0..start.len() {
        for j in i + 1..start.len() {
            let (ei, ej) = (with_radius(i), with_radius(j));
            if let Some(e) = shapes::swept_balls::<C, D>(&start[i], &ei, &start[j], &ej) {
                out.push((i, j, crate::param::quadratic::entry_f64(&e)));
            }
        }
    }
    out
}
