//! Balls of one radius (points within a cutoff): a cell list.
//!
//! Two balls of radius `r` meet when their centres are closer than `2 r`.
//! With cells of side `h >= 2 r (1 + 1e-8)`, such centres lie in the same
//! cell or in neighbouring ones (their computed cell coordinates differ by
//! at most 1 on every axis: each is `floor((x - lo) / h)` of a value below
//! `2^21`, rounded with a relative error under `2^-50`, far inside the
//! `1e-8` margin).  So every pair is met once by visiting each cell with
//! itself and the half of its `3^D - 1` neighbours that come later in
//! linear order.  A centre pair closer than the cutoff by the float sum of
//! squares (with a margin above its rounding, plus `slack` for rounded
//! images) goes on to the exact test: [`ball_overlap`] on the centres, or,
//! for periodic images, the rules of [`Imaged`] (and its exact test for
//! inexact images); then the filters.  Most candidates stop at the float
//! comparison, on coordinates gathered in cell order.
//!
//! The general cell search ([`crate::cells`]) compares the balls' boxes
//! (a cube holds 1.9 times the candidates of its ball in 3D) and reads each
//! ball by object for the exact test; this one does neither.  It declines
//! (`None`) where its grid would be too coarse for the spread of the data
//! (outliers far away), and the caller runs the general search.
//!
//! Chunks are cell ranges balanced by centres, fixed by the data, and the
//! pairs end in canonical order: the result does not depend on the threads.

use crate::narrow::{Imaged, Narrow, Shapes};
use crate::pairs::{canonical, finish, Buckets, Budget, Sink, TooMany};

mod walk;

use crate::par::{balanced, chunk_count, Exec, MAX_CHUNKS};
use crate::scratch::{self, Pooled};
use walk::Walk;

/// Most grid cells per centre before the cells are made coarser.
const CELLS_PER_CENTRE: f64 = 4.0;
/// Most cells per axis (keeps the cell coordinates exact enough: module doc).
const MOST_PER_AXIS: f64 = (1u64 << 21) as f64;
/// Declined when the same-cell pairs exceed this many per centre (the grid
/// is too coarse for the data).
const CROWDED: f64 = 64.0;
/// Centres per chunk of the list's parallel passes.
const GATHER: usize = 1 << 14;

/// The balls a cell list takes: the ball rows (centre, then radius) of a
/// search's shapes, or of its images, when every radius is the same.
pub fn one_radius<'a, R: crate::narrow::Balls>(
    shapes: &Shapes<'a>,
) -> Option<(&'a [R::Ball], f64)> {
    let balls = match shapes {
        Shapes::Imaged(im) => R::only_balls(&im.shapes)?,
        s => R::only_balls(s)?,
    };
    let r = balls.first()?.as_ref()[R::D];
    balls
        .iter()
        .all(|b| b.as_ref()[R::D] == r)
        .then_some((balls, r))
}

/// The grid: its low corner, cell side and cells per axis.
struct Cells<const D: usize> {
    lo: [f64; D],
    inv: f64,
    dims: [usize; D],
}

impl<const D: usize> Cells<D> {
    /// The cell of centre `c`, as a linear index (x fastest).
    #[inline(always)]
    fn of(&self, c: &[f64]) -> usize {
        let mut lin = 0;
        for k in (0..D).rev() {
            let q = ((c[k] - self.lo[k]) * self.inv) as usize; // saturating, >= 0
            lin = lin * self.dims[k] + q.min(self.dims[k] - 1);
        }
        lin
    }
}

/// Every pair of `balls` (all of radius `r`, centres in the first `D`
/// values of each row) that meets, canonical, and the candidate tests; or
/// `None` where the grid would be too coarse.  `narrow` brings the filters
/// and, for periodic images, the [`Imaged`] rules.
pub fn find<const D: usize, B: AsRef<[f64]> + Sync>(
    balls: &[B],
    r: f64,
    narrow: &Narrow,
    budget: &Budget,
    ex: &Exec,
) -> Option<(Result<Vec<isize>, TooMany>, u64)>
where
    [f64; D]: Pooled,
{
    let Some(list) = List::<D>::of(balls, r, narrow, ex)? else {
        return Some((Ok(Vec::new()), 0));
    };
    let walk = list.walk(narrow);
    let bounds = list.chunks();
    let results = ex.fold(
        bounds.len() - 1,
        || (Sink::new(budget, Buckets::for_objects(list.objects)), 0u64),
        |(out, tests), c| *tests += walk.cells_range(out, bounds[c], bounds[c + 1]),
    );
    let tests = results.iter().map(|r| r.1).sum();
    let sinks = results.into_iter().map(|r| r.0).collect();
    let out = finish(sinks).map(|stored| canonical(&stored, list.objects, ex));
    list.give_back();
    Some((out, tests))
}

/// A cell list made: the centres in cell order, with their objects (and
/// image tags), the cells' starts.
struct List<'a, const D: usize> {
    cells: Cells<D>,
    start: Vec<u32>,
    pts: Vec<[f64; D]>,
    order: Vec<u32>,
    tags: Vec<u64>,
    images: Option<&'a Imaged<'a>>,
    objects: usize,
    r: f64,
    reach: f64,
}

impl<'a, const D: usize> List<'a, D>
where
    [f64; D]: Pooled,
{
    /// The cell list of `balls` of radius `r`: `None` if declined,
    /// `Some(None)` if no pair can meet.  The passes over the centres (each
    /// one's cell, the gathers in cell order) run in chunks fixed by `n`;
    /// the counting sort between them is one serial pass.
    fn of<B: AsRef<[f64]> + Sync>(
        balls: &[B],
        r: f64,
        narrow: &Narrow<'a>,
        ex: &Exec,
    ) -> Option<Option<Self>> {
        let n = balls.len();
        let cut = 2.0 * r;
        if r == 0.0 || n < 2 {
            return Some(None); // touching is no overlap: points never meet
        }
        if !(1e-140..1e140).contains(&cut) {
            return None; // squares of distances could under- or overflow
        }
        let images = match narrow.shapes {
            Shapes::Imaged(im) => Some(im),
            _ => None,
        };
        // slack: how far rounded (inexact) images may stand from the truth
        let slack = images.map_or(0.0, |im| im.slack);
        let cells = grid::<D, B>(balls, cut + slack)?;
        let ncells: usize = cells.dims.iter().product();
        // counting sort of the centres by cell
        let ex = ex.for_work(n, 2 * GATHER);
        let mut cell_of: Vec<u32> = scratch::take(n);
        ex.collect_into(&mut cell_of, n, GATHER, |k| {
            cells.of(balls[k].as_ref()) as u32
        });
        let mut start = vec![0u32; ncells + 1];
        for &c in &cell_of {
            start[c as usize + 1] += 1;
        }
        let crowd: f64 = start.iter().map(|&k| f64::from(k) * f64::from(k)).sum();
        if crowd > CROWDED * n as f64 + 1e6 {
            scratch::give(cell_of);
            return None;
        }
        for c in 0..ncells {
            start[c + 1] += start[c];
        }
        let mut fill = start.clone();
        let mut order: Vec<u32> = scratch::filled(n, 0);
        for (k, &c) in cell_of.iter().enumerate() {
            order[fill[c as usize] as usize] = k as u32;
            fill[c as usize] += 1;
        }
        scratch::give(cell_of);
        let mut pts: Vec<[f64; D]> = scratch::take(n);
        ex.collect_into(&mut pts, n, GATHER, |p| {
            let b = balls[order[p] as usize].as_ref();
            std::array::from_fn(|a| b[a])
        });
        let mut tags: Vec<u64> = Vec::new();
        if let Some(im) = images {
            tags = scratch::take(n);
            ex.collect_into(&mut tags, n, GATHER, |p| im.tags[order[p] as usize]);
        }
        let objects = images.map_or(n, |im| im.objects);
        let reach = (cut + slack) * (cut + slack) * (1.0 + 1e-12);
        Some(Some(List {
            cells,
            start,
            pts,
            order,
            tags,
            images,
            objects,
            r,
            reach,
        }))
    }

    /// Give the list's buffers back to the scratch pools.
    fn give_back(self) {
        scratch::give(self.pts);
        scratch::give(self.order);
        scratch::give(self.tags);
    }

    /// The walk over this list, with the filters of `narrow`.
    fn walk<'w>(&'w self, narrow: &'w Narrow<'w>) -> Walk<'w, D> {
        Walk {
            cells: &self.cells,
            start: &self.start,
            pts: &self.pts,
            order: &self.order,
            tags: &self.tags,
            images: self.images,
            narrow,
            r: self.r,
            reach: self.reach,
        }
    }

    /// Chunks: cell ranges balanced by centres, fixed by the data.
    fn chunks(&self) -> Vec<usize> {
        let cum: Vec<f64> = self.start.iter().map(|&k| f64::from(k)).collect();
        balanced(&cum, chunk_count(self.pts.len(), 4096, MAX_CHUNKS))
    }
}

/// The grid for centres `balls` and the pair distance `reach`: cells of
/// side `reach (1 + 1e-8)`, coarser if there would be too many; `None` if
/// the centres are not finite or spread beyond what the grid can hold.
fn grid<const D: usize, B: AsRef<[f64]>>(balls: &[B], reach: f64) -> Option<Cells<D>> {
    let mut lo = [f64::INFINITY; D];
    let mut hi = [f64::NEG_INFINITY; D];
    for b in balls {
        for k in 0..D {
            lo[k] = lo[k].min(b.as_ref()[k]);
            hi[k] = hi[k].max(b.as_ref()[k]);
        }
    }
    let mut h = reach * (1.0 + 1e-8);
    let most = (CELLS_PER_CENTRE * balls.len() as f64).max(1024.0);
    loop {
        let dims: [f64; D] = std::array::from_fn(|k| ((hi[k] - lo[k]) / h).floor() + 1.0);
        if !dims.iter().all(|d| d.is_finite()) || !h.is_finite() {
            return None;
        }
        if dims.iter().product::<f64>() <= most && dims.iter().all(|&d| d <= MOST_PER_AXIS) {
            return Some(Cells {
                lo,
                inv: 1.0 / h,
                dims: dims.map(|d| d as usize),
            });
        }
        h *= 1.5;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dim::Row;
    use crate::narrow::Filters;

    fn lcg(seed: u64) -> impl FnMut() -> f64 {
        let mut s = seed;
        move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// The cell list against the naive reference, on `balls` of radius `r`.
    fn agree<const C: usize, const D: usize, const N: usize>(
        balls: &[[f64; C]],
        groups: Option<&[i64]>,
        shapes: fn(&[[f64; C]]) -> Shapes,
    ) where
        [f64; N]: Row,
        [f64; D]: Pooled,
    {
        let r = balls[0][D];
        let boxes: Vec<[f64; N]> = balls.iter().map(crate::check::ball_box).collect();
        let narrow = Narrow {
            shapes: shapes(balls),
            filters: Filters {
                groups,
                ..Filters::default()
            },
        };
        let want: Vec<isize> = crate::naive::pairs(&boxes, &narrow)
            .into_iter()
            .flat_map(|(i, j)| [i as isize, j as isize])
            .collect();
        for w in [1, 2] {
            let got = find::<D, _>(
                balls,
                r,
                &narrow,
                &Budget::new(u64::MAX),
                &Exec::new(Some(w)),
            );
            let (got, _) = got.expect("a cell list for these centres");
            assert_eq!(
                got.unwrap(),
                want,
                "{} balls of radius {r}, {w} threads",
                balls.len()
            );
        }
    }

    #[test]
    fn equal_to_the_reference_on_lattices_and_random_centres() {
        let mut rnd = lcg(3);
        for round in 0..12 {
            // a lattice: distances of exactly the cutoff (1) never pair
            let lattice: Vec<[f64; 4]> = (0..400)
                .map(|k| [(k % 7) as f64, (k / 7 % 7) as f64, (k / 49) as f64, 0.5])
                .collect();
            agree::<4, 3, 6>(&lattice, None, |b| Shapes::Spheres(b));
            let r = [0.5, 0.01, 3.0][round % 3];
            let spread = 20.0 * (1 + round) as f64;
            let pts: Vec<[f64; 3]> = (0..700)
                .map(|k| {
                    if k % 50 == 7 {
                        [1.0, 1.0, r] // repeated centres
                    } else {
                        [
                            rnd() * spread - 5.0,
                            (rnd() * spread * 4.0).round() / 4.0,
                            r,
                        ]
                    }
                })
                .collect();
            agree::<3, 2, 4>(&pts, None, |b| Shapes::Circles(b));
            let groups: Vec<i64> = (0..700).map(|k| (k % 3) as i64).collect();
            agree::<3, 2, 4>(&pts, Some(&groups), |b| Shapes::Circles(b));
        }
    }

    #[test]
    fn an_outlier_far_away_declines() {
        let mut pts: Vec<[f64; 3]> = (0..5000).map(|k| [k as f64 * 1e-3, 0.0, 0.01]).collect();
        pts.push([1e300, 0.0, 0.01]);
        let narrow = Narrow {
            shapes: Shapes::Circles(&pts),
            ..Narrow::default()
        };
        assert!(
            find::<2, _>(&pts, 0.01, &narrow, &Budget::new(u64::MAX), &Exec::serial()).is_none()
        );
    }

    #[test]
    fn half_the_neighbours() {
        assert_eq!(walk::later_neighbours::<2>().len(), 4);
        assert_eq!(walk::later_neighbours::<3>().len(), 13);
    }
}
