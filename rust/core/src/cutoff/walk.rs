//! The walk of a cell list: each cell with itself and its later
//! neighbours, the float distance filter, then the exact test, the image
//! rules and the filters (the derivation is the parent module's).

use super::Cells;
use crate::narrow::{ball_overlap, Imaged, Narrow};
use crate::pairs::{Sink, LOOK_EVERY};

pub(super) struct Walk<'a, const D: usize> {
    pub(super) cells: &'a Cells<D>,
    pub(super) start: &'a [u32],
    pub(super) pts: &'a [[f64; D]],
    pub(super) order: &'a [u32],
    pub(super) tags: &'a [u64],
    pub(super) images: Option<&'a Imaged<'a>>,
    pub(super) narrow: &'a Narrow<'a>,
    pub(super) r: f64,
    pub(super) reach: f64,
}

impl<const D: usize> Walk<'_, D> {
    /// The pairs of cells `c0..c1` with themselves and their later
    /// neighbours into `out`; the candidate tests.
    pub(super) fn cells_range(&self, out: &mut Sink, c0: usize, c1: usize) -> u64 {
        let dims = self.cells.dims;
        let offsets = later_neighbours::<D>();
        let mut tests = 0u64;
        let mut next = LOOK_EVERY;
        for c in c0..c1 {
            let (a0, a1) = (self.start[c] as usize, self.start[c + 1] as usize);
            if a0 == a1 {
                continue;
            }
            out.check_stop_at(tests, &mut next);
            let at = coords(c, &dims);
            for u in a0..a1 {
                tests += (a1 - u - 1) as u64;
                for v in u + 1..a1 {
                    self.test(out, u, v);
                }
            }
            for off in &offsets {
                let Some(nb) = neighbour(&at, off, &dims) else {
                    continue;
                };
                let (b0, b1) = (self.start[nb] as usize, self.start[nb + 1] as usize);
                tests += ((a1 - a0) * (b1 - b0)) as u64;
                for u in a0..a1 {
                    for v in b0..b1 {
                        self.test(out, u, v);
                    }
                }
            }
        }
        tests
    }

    /// Centres `u` and `v` (cell order): the float distance test, then the
    /// exact one, the image rules and the filters.
    #[inline(always)]
    fn test(&self, out: &mut Sink, u: usize, v: usize) {
        let (p, q) = (&self.pts[u], &self.pts[v]);
        let mut d2 = 0.0;
        for k in 0..D {
            let d = p[k] - q[k];
            d2 += d * d;
        }
        if d2 >= self.reach {
            return;
        }
        let (i, j) = (self.order[u] as usize, self.order[v] as usize);
        let (oi, oj, meet) = match self.images {
            None => (i, j, ball_overlap::<D>(p, self.r, q, self.r)),
            Some(im) => {
                let (a, b) = (self.tags[u], self.tags[v]);
                if !Imaged::distinct(a, b) {
                    return;
                }
                let meet = if Imaged::is_exact(a) && Imaged::is_exact(b) {
                    ball_overlap::<D>(p, self.r, q, self.r)
                } else {
                    (im.exact)(i, j)
                };
                (Imaged::object(a), Imaged::object(b), meet)
            }
        };
        // filters by image, as every search over images ([`Imaged`])
        if meet && self.narrow.filters.pass(i, j) {
            out.emit(true, oi as u32, oj as u32);
        }
    }
}

/// The cell coordinates of linear cell `c`.
#[inline]
fn coords<const D: usize>(mut c: usize, dims: &[usize; D]) -> [usize; D] {
    std::array::from_fn(|k| {
        let q = c % dims[k];
        c /= dims[k];
        q
    })
}

/// The linear index of the cell at `at + off`, if inside the grid.
#[inline]
fn neighbour<const D: usize>(at: &[usize; D], off: &[i8; D], dims: &[usize; D]) -> Option<usize> {
    let mut lin = 0;
    for k in (0..D).rev() {
        let q = at[k] as isize + isize::from(off[k]);
        if q < 0 || q >= dims[k] as isize {
            return None;
        }
        lin = lin * dims[k] + q as usize;
    }
    Some(lin)
}

/// The offsets in `{-1, 0, 1}^D` after the zero offset in linear order
/// (the highest axis most significant): half of the neighbours, each pair
/// of neighbouring cells met once.
pub(super) fn later_neighbours<const D: usize>() -> Vec<[i8; D]> {
    let total = 3usize.pow(D as u32);
    (0..total)
        .map(|t| {
            let mut t = t;
            std::array::from_fn(|_| {
                let o = (t % 3) as i8 - 1;
                t /= 3;
                o
            })
        })
        .filter(|o: &[i8; D]| {
            // the most significant non-zero offset is positive
            o.iter().rev().find(|&&x| x != 0).is_some_and(|&x| x > 0)
        })
        .collect()
}
