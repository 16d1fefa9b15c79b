//! The periodic images of objects in a triclinic cell ([`Lattice`]): each
//! object's canonical image in the brick, and its ghosts, shifted by the
//! lattice vectors of [`super::lattice::ghost_code`] that bring them near it.
//!
//! **Canonical image.**  An object whose low side (a ball: its centre) lies
//! in the brick is its own canonical image: no arithmetic, exact.  Else
//! whole cells `w` are taken off, last axis first (`super::lattice`):
//! `w_m = floor(y_m / H_mm)` of the coordinates `y` reduced so far, at most
//! [`MAX_WRAPS`] in magnitude (farther objects are refused, naming the
//! axis).  The quotient and the coordinates round, so the image lies in
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
//! follow, object by object, in chunks fixed by `n`.

use super::approx::{near_int, Approx};
use super::axis::too_wide;
use super::images::{self, with_room, Ghosts, Images};
use super::lattice::{ghost_code, Lattice, GHOST, MAX_WRAPS};
use crate::check::{BadRow, Problem};
use crate::dim::Row;
use crate::narrow::Imaged;
use crate::par::{chunk_count, even_bounds, Exec, MAX_CHUNKS};
use crate::scratch::Pooled;

/// Objects per chunk of the parallel passes.
const GRAIN: usize = 1 << 14;

/// One object's canonical image: its low and high corners (a ball: its
/// centre, twice; `r` its radius, 0 for a box) and the cells taken off.
#[derive(Clone, Copy, Default)]
struct Canon {
    lo: [Approx; 3],
    hi: [Approx; 3],
    r: f64,
    wrap: [i32; 3],
    /// What is wrong with the object (then the rest is blank).
    bad: Option<Problem>,
}

impl Canon {
    /// The canonical image of an object with `problem`.
    fn refused(problem: Problem) -> Canon {
        Canon {
            bad: Some(problem),
            ..Canon::default()
        }
    }
}

/// `x - w H` for the cells `w` that bring `x` into the brick, with `w`; or
/// the axis on which `x` lies more than [`MAX_WRAPS`] cells away.
fn reduce(lat: &Lattice, x: &[f64]) -> Result<([Approx; 3], [i32; 3]), usize> {
    let d = lat.dims();
    let mut y = [Approx::default(); 3];
    for k in 0..d {
        y[k] = Approx::of(x[k]);
    }
    let mut w = [0; 3];
    for m in (0..d).rev() {
        let h = lat.side(m);
        if (0.0..h).contains(&y[m].x) {
            continue;
        }
        let q = (y[m].x / h).floor();
        if q.abs() > MAX_WRAPS || q.is_nan() {
            return Err(m);
        }
        w[m] = q as i32;
        for (k, yk) in y.iter_mut().enumerate().take(m + 1) {
            *yk = yk.plus_product(-q, lat.at(m, k));
        }
    }
    Ok((y, w))
}

/// `x + n H` (the corner `x` of an image, the shift `n`).
fn shifted(lat: &Lattice, x: &[Approx; 3], n: &[i32; 3]) -> [Approx; 3] {
    let mut y = *x;
    for m in (0..lat.dims()).rev().filter(|&m| n[m] != 0) {
        for (k, yk) in y.iter_mut().enumerate().take(m + 1) {
            *yk = yk.plus_product(f64::from(n[m]), lat.at(m, k));
        }
    }
    y
}

/// The lower and upper float corners of the box of an image with corners
/// `lo`, `hi` and radius `r` (0: a box): containing its true box.
fn corners(lo: &[Approx; 3], hi: &[Approx; 3], r: f64, d: usize) -> ([f64; 3], [f64; 3]) {
    let (mut a, mut b) = ([0.0; 3], [0.0; 3]);
    for k in 0..d {
        if r == 0.0 {
            (a[k], b[k]) = (lo[k].lower(), hi[k].upper());
        } else {
            a[k] = (lo[k].lower() - r).next_down();
            b[k] = (hi[k].upper() + r).next_up();
        }
    }
    (a, b)
}

/// Object `k`'s image with corners `(lo, hi)` and radius `r` (0: a box)
/// and shift bits `shifts`: its box, its ball row (centre, radius) and its tag.
fn image<const N: usize, const C: usize>(
    k: usize,
    (lo, hi): (&[Approx; 3], &[Approx; 3]),
    r: f64,
    shifts: u32,
) -> ([f64; N], [f64; C], u64) {
    let d = N / 2;
    let (a, b) = corners(lo, hi, r, d);
    let mut bx = [0.0; N];
    bx[..d].copy_from_slice(&a[..d]);
    bx[d..].copy_from_slice(&b[..d]);
    let mut ball = [0.0; C];
    if C > 0 {
        for (x, l) in ball.iter_mut().zip(lo) {
            *x = l.x;
        }
        ball[C - 1] = r;
    }
    let exact = lo[..d].iter().chain(&hi[..d]).all(Approx::is_exact);
    (bx, ball, Imaged::tag(k, shifts, exact))
}

/// The largest error bound of the centre coordinates of an image with low
/// corner `lo` (a ball's centre).
fn pad_of(lo: &[Approx; 3]) -> f64 {
    lo.iter().fold(0.0, |m, x| m.max(x.pad()))
}

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

/// Pushes the ghosts of object `k` (canonical image `c`) whose boxes meet
/// the region `(lo, hi)`: axis by axis from the last, each shift component
/// taken among those that keep the box meeting the region on that axis.
///
/// The test runs in plain floats with a margin of `2^-30` of the values,
/// far above their rounding: a ghost it keeps needlessly costs time only
/// (its pairs are still decided exactly), and none is missed.
fn ghosts_of<const N: usize, const C: usize>(
    k: usize,
    c: &Canon,
    lat: &Lattice,
    (lo, hi): (&[f64; 3], &[f64; 3]),
    with_boxes: bool,
    out: &mut Ghosts<N, C>,
) {
    let d = lat.dims();
    let (a, b) = corners(&c.lo, &c.hi, c.r, d);
    // the shifts `n` on axis `j` that may keep the box, moved by `s` (the
    // later components' part) and `n H_jj`, meeting the region there
    let span = |j: usize, s: f64| {
        if j >= d {
            return 0..=0;
        }
        let h = lat.side(j);
        let reach = (d - j) as i32;
        // within one of the nearest integers: `meets` decides
        let least = near_int((lo[j] - b[j] - s) / h) - 1.0;
        let most = near_int((hi[j] - a[j] - s) / h) + 1.0;
        (least.max(-f64::from(reach)) as i32)..=(most.min(f64::from(reach)) as i32)
    };
    let meets = |j: usize, s: f64, n: i32| {
        let t = s + f64::from(n) * lat.side(j);
        let margin = (a[j].abs() + b[j].abs() + t.abs()) * f64::from_bits((1023 - 30) << 52);
        a[j] + t - margin <= hi[j] && b[j] + t + margin >= lo[j]
    };
    for n2 in span(2, 0.0) {
        if d > 2 && !meets(2, 0.0, n2) {
            continue;
        }
        let s1 = f64::from(n2) * lat.at(2, 1);
        for n1 in span(1, s1) {
            if !meets(1, s1, n1) {
                continue;
            }
            let s0 = f64::from(n1) * lat.at(1, 0) + f64::from(n2) * lat.at(2, 0);
            for n0 in span(0, s0) {
                let n = [n0, n1, n2];
                let Some(code) = ghost_code(&n, d) else {
                    continue;
                };
                if meets(0, s0, n0) {
                    let (glo, ghi) = (shifted(lat, &c.lo, &n), shifted(lat, &c.hi, &n));
                    let (bx, ball, tag) = image::<N, C>(k, (&glo, &ghi), c.r, GHOST | code);
                    if with_boxes {
                        out.boxes.push(bx);
                    }
                    if C > 0 {
                        out.balls.push(ball);
                    }
                    out.tags.push(tag);
                }
            }
        }
    }
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
        let Ok((lo, wrap)) = reduce(lat, &b[..d]) else {
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
        let Ok((lo, wrap)) = reduce(lat, &c[..d]) else {
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
