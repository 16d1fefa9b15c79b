//! The periodic images of objects in a triclinic cell ([`Lattice`]): each
//! object's canonical image in the brick, and its ghosts, shifted by the
//! lattice vectors of [`super::lattice::ghost_code`] that bring them near it.
//!
//! **Canonical image.**  An object whose low side (a ball: its centre) lies
//! in the brick is its own canonical image: no arithmetic, exact.  Else
//! whole cells `w` are taken off, last axis first (`super::lattice`):
//! `w_m = floor(y_m / H_mm)` of the coordinates `y` reduced so far.  An
//! object with a coordinate farther than
//! [`FAR_SIDES`](super::lattice::FAR_SIDES) of the cell's smallest sides
//! from the origin is refused first (naming the row): then `w` stays well
//! within [`MAX_WRAPS`](super::lattice::MAX_WRAPS), checked all the same.  The quotient and the coordinates round, so the image lies in
//! the brick only up to a small error; nothing needs more.  Every value is
//! an [`Approx`]: where one rounded, the image's box is widened to contain
//! the true one and the image is tagged inexact, and its pairs are decided
//! by `super::lattice_exact` from the objects' own coordinates and the
//! integer shifts (`wraps` and the ghost codes), never from these floats.
//!
//! **Ghosts.**  A ghost of object `i` by a shift `n` (lexicographically
//! positive, within the reach) is made when its box meets the box that
//! holds every canonical image (`region`, computed from them): if `i`'s
//! copy by `n` meets `j`, the ghost's box meets `j`'s, which lies in the
//! region.  A search over the images finds the pair as canonical `j`
//! against ghost `i` (or both canonical, for `n = 0`): ghosts never pair
//! with ghosts (they share the [`GHOST`] bit), and `-n` is never a ghost's
//! shift, so each pair is found once (`super::lattice`).
//!
//! **Order.**  Image `k < n` is object `k`'s canonical image; the ghosts
//! follow, object by object, in chunks fixed by `n`.  One object's images
//! are made by `super::lattice_canon`; this module runs the passes.

use super::approx::Approx;
use super::axis::too_wide;
use super::images::{self, with_room, Images};
use super::lattice::Lattice;
use super::lattice_canon::{corners, ghosts_of, image, pad_of, reduce, shifted, Canon};
use crate::check::{BadRow, Problem};
use crate::dim::Row;
use crate::par::{chunk_count, even_bounds, Exec, MAX_CHUNKS};
use crate::scratch::Pooled;

/// Objects per chunk of the parallel passes.
const GRAIN: usize = 1 << 14;

/// What the first pass learns of a chunk of canonical images: the box
/// holding them, their largest centre error, the first refused object.
#[derive(Clone, Copy)]
struct Summary {
    lo: [f64; 3],
    hi: [f64; 3],
    pad: f64,
    bad: Option<BadRow>,
}

impl Summary {
    fn new() -> Summary {
        Summary {
            lo: [f64::INFINITY; 3],
            hi: [f64::NEG_INFINITY; 3],
            pad: 0.0,
            bad: None,
        }
    }

    /// `self` joined with `other` (the earlier bad row kept).
    fn join(mut self, other: &Summary) -> Summary {
        for k in 0..3 {
            self.lo[k] = self.lo[k].min(other.lo[k]);
            self.hi[k] = self.hi[k].max(other.hi[k]);
        }
        self.pad = self.pad.max(other.pad);
        self.bad = self.bad.or(other.bad);
        self
    }
}

/// The images of objects (`canon(k)` object `k`'s canonical image), with
/// their boxes when `with_boxes`, or the first object refused.
///
/// Two passes, in chunks fixed by `n`: the first finds the cells taken
/// off each object and the region of the canonical images; the second
/// writes each canonical image in place and makes its ghosts
/// (`super::images`' build).  `canon` runs in both: it is cheaper to redo
/// than to keep.
fn build<const N: usize, const C: usize>(
    n: usize,
    lat: &Lattice,
    with_boxes: bool,
    ex: &Exec,
    canon: impl Fn(usize) -> Canon + Sync + Send,
) -> Result<Images<N, C>, BadRow>
where
    [f64; N]: Row + Pooled,
    [f64; C]: Pooled,
{
    let d = N / 2;
    let bounds = even_bounds(n, chunk_count(n, GRAIN, MAX_CHUNKS));
    let mut wraps = vec![[0i32; 3]; n];
    let parts = ex
        .for_work(n, 2 * GRAIN)
        .chunks_mut(&mut wraps, &bounds, |_, first, part| {
            let mut s = Summary::new();
            for (t, w) in part.iter_mut().enumerate() {
                let c = canon(first + t);
                if let Some(problem) = c.bad {
                    s.bad = Some(BadRow {
                        row: first + t,
                        problem,
                    });
                    break;
                }
                *w = c.wrap;
                let (a, b) = corners(&c.lo, &c.hi, c.r, d);
                for k in 0..d {
                    s.lo[k] = s.lo[k].min(a[k]);
                    s.hi[k] = s.hi[k].max(b[k]);
                }
                s.pad = s.pad.max(pad_of(&c.lo));
            }
            s
        });
    let region = parts.iter().fold(Summary::new(), Summary::join);
    if let Some(bad) = region.bad {
        return Err(bad);
    }
    let out = Images {
        boxes: if with_boxes {
            with_room(n, [0.0; N])
        } else {
            Vec::new()
        },
        balls: if C > 0 {
            with_room(n, [0.0; C])
        } else {
            Vec::new()
        },
        tags: with_room(n, 0),
        wraps,
        slack: 0.0,
    };
    let mut im = images::build(out, ex, |k, slot, ghosts| {
        let c = canon(k);
        let (bx, ball, tag) = image::<N, C>(k, (&c.lo, &c.hi), c.r, 0);
        if let Some(at) = slot.bx {
            *at = bx;
        }
        if let Some(at) = slot.ball {
            *at = ball;
        }
        *slot.tag = tag;
        ghosts_of(k, &c, lat, (&region.lo, &region.hi), with_boxes, ghosts);
        Ok(())
    })?;
    // a ghost adds to its canonical image's error the rounding of a few
    // lattice vectors' components on top of values within the region
    let reach = (0..d).fold(0.0f64, |m, k| {
        let column: f64 = (0..d).map(|r| lat.at(r, k).abs()).sum();
        m.max(region.lo[k].abs() + region.hi[k].abs() + 4.0 * column)
    });
    // two centres, each off by at most that on each of up to 3 axes
    im.slack = 4.0 * (region.pad + reach * f64::from_bits((1023 - 48) << 52));
    Ok(im)
}

/// The images of boxes in the cell `lat`, or the first row that spans more
/// than half the brick's side on an axis or lies too far from the cell.
pub fn of_boxes<const N: usize>(
    boxes: &[[f64; N]],
    lat: &Lattice,
    ex: &Exec,
) -> Result<Images<N, 0>, BadRow>
where
    [f64; N]: Row + Pooled,
{
    let d = N / 2;
    build::<N, 0>(boxes.len(), lat, true, ex, |k| {
        let b = &boxes[k];
        if let Some(a) = (0..d).find(|&a| too_wide(b[a], b[d + a], lat.side(a))) {
            return Canon::refused(Problem::wide(a));
        }
        if lat.too_far(b) {
            return Canon::refused(Problem::Far);
        }
        let Some((lo, wrap)) = reduce(lat, &b[..d]) else {
            return Canon::refused(Problem::Far);
        };
        let mut hi = [Approx::default(); 3];
        for a in 0..d {
            hi[a] = Approx::of(b[d + a]);
        }
        let hi = shifted(lat, &hi, &wrap.map(|w| -w));
        Canon {
            lo,
            hi,
            r: 0.0,
            wrap,
            bad: None,
        }
    })
}

/// The images of balls (rows of `C = D + 1`: centre, then radius) in the
/// cell `lat`, their boxes outward-rounded (and widened where inexact;
/// left out unless `with_boxes`), or the first ball whose diameter exceeds
/// half the brick's side on an axis, or that lies too far from the cell.
pub fn of_balls<const C: usize, const N: usize>(
    balls: &[[f64; C]],
    lat: &Lattice,
    with_boxes: bool,
    ex: &Exec,
) -> Result<Images<N, C>, BadRow>
where
    [f64; N]: Row + Pooled,
    [f64; C]: Pooled,
{
    let d = N / 2;
    build(balls.len(), lat, with_boxes, ex, |k| {
        let c = &balls[k];
        let r = c[C - 1];
        // diameter 2 r > H_aa / 2, exactly: 4 r is exact (or infinite)
        if let Some(a) = (0..d).find(|&a| 4.0 * r > lat.side(a)) {
            return Canon::refused(Problem::wide(a));
        }
        if lat.too_far(&c[..d]) {
            return Canon::refused(Problem::Far);
        }
        let Some((lo, wrap)) = reduce(lat, &c[..d]) else {
            return Canon::refused(Problem::Far);
        };
        Canon {
            lo,
            hi: lo,
            r,
            wrap,
            bad: None,
        }
    })
}
