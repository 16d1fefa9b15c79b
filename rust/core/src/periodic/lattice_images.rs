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

use super::approx::Approx;
use super::axis::too_wide;
use super::images::Images;
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

/// The images of a chunk's ghosts.
#[derive(Default)]
struct Ghosts<const N: usize, const C: usize> {
    boxes: Vec<[f64; N]>,
    balls: Vec<[f64; C]>,
    tags: Vec<u64>,
    /// The largest error bound of a centre coordinate (balls).
    pad: f64,
}

impl<const N: usize, const C: usize> Ghosts<N, C> {
    /// Object `k`'s image `(lo, hi)` (of radius `c.r`) as a box, a ball and
    /// a tag (`shifts` its code), pushed.
    fn push(&mut self, k: usize, lo: &[Approx; 3], hi: &[Approx; 3], r: f64, shifts: u32) {
        let d = N / 2;
        let (a, b) = corners(lo, hi, r, d);
        let mut bx = [0.0; N];
        bx[..d].copy_from_slice(&a[..d]);
        bx[d..].copy_from_slice(&b[..d]);
        self.boxes.push(bx);
        if C > 0 {
            let mut ball = [0.0; C];
            for (x, l) in ball.iter_mut().zip(lo) {
                *x = l.x;
            }
            ball[C - 1] = r;
            self.balls.push(ball);
        }
        self.pad = lo[..d].iter().fold(self.pad, |m, x| m.max(x.pad()));
        let exact = lo[..d].iter().chain(&hi[..d]).all(Approx::is_exact);
        self.tags.push(Imaged::tag(k, shifts, exact));
    }
}

/// The images of objects (`canon(k)` object `k`'s canonical image, or what
/// is wrong with it), with their boxes when `with_boxes`.
fn build<const N: usize, const C: usize>(
    n: usize,
    lat: &Lattice,
    with_boxes: bool,
    ex: &Exec,
    canon: impl Fn(usize) -> Result<Canon, Problem> + Sync + Send,
) -> Result<Images<N, C>, BadRow>
where
    [f64; N]: Row + Pooled,
    [f64; C]: Pooled,
{
    let d = N / 2;
    let mut made = Vec::new();
    ex.for_work(n, 2 * GRAIN)
        .collect_into(&mut made, n, GRAIN, &canon);
    let mut all = Vec::with_capacity(n);
    for (row, c) in made.into_iter().enumerate() {
        all.push(c.map_err(|problem| BadRow { row, problem })?);
    }
    // every canonical image's box lies in `region`
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for c in &all {
        let (a, b) = corners(&c.lo, &c.hi, c.r, d);
        for k in 0..d {
            lo[k] = lo[k].min(a[k]);
            hi[k] = hi[k].max(b[k]);
        }
    }
    let mut out = Ghosts::<N, C>::default();
    for (k, c) in all.iter().enumerate() {
        out.push(k, &c.lo, &c.hi, c.r, 0);
    }
    let bounds = even_bounds(n, chunk_count(n, GRAIN, MAX_CHUNKS));
    let parts = ex.for_work(n, 2 * GRAIN).map(bounds.len() - 1, |c| {
        let mut g = Ghosts::<N, C>::default();
        for (k, canon) in all.iter().enumerate().take(bounds[c + 1]).skip(bounds[c]) {
            ghosts_of(k, canon, lat, (&lo, &hi), &mut g);
        }
        g
    });
    for g in parts {
        out.boxes.extend(g.boxes);
        out.balls.extend(g.balls);
        out.tags.extend(g.tags);
        out.pad = out.pad.max(g.pad);
    }
    if !with_boxes {
        out.boxes = Vec::new();
    }
    Ok(Images {
        boxes: out.boxes,
        balls: out.balls,
        tags: out.tags,
        wraps: all.iter().map(|c| c.wrap).collect(),
        // two centres, each off by at most `pad` on each of up to 3 axes
        slack: 4.0 * out.pad,
    })
}

/// Pushes the ghosts of object `k` (canonical image `c`) whose boxes meet
/// the region `(lo, hi)`: axis by axis from the last, each shift component
/// chosen where the axes so far still meet it.
fn ghosts_of<const N: usize, const C: usize>(
    k: usize,
    c: &Canon,
    lat: &Lattice,
    (lo, hi): (&[f64; 3], &[f64; 3]),
    out: &mut Ghosts<N, C>,
) {
    let d = lat.dims();
    let range = |a: usize| {
        let r = if a < d { (d - a) as i32 } else { 0 };
        -r..=r
    };
    // whether the image shifted by `n` meets the region on axis `a`
    let meets = |n: &[i32; 3], a: usize| {
        let x = |v: &[Approx; 3]| {
            (a..d).fold(v[a], |s, m| s.plus_product(f64::from(n[m]), lat.at(m, a)))
        };
        let (l, h) = (x(&c.lo), x(&c.hi));
        (l.lower() - c.r).next_down() <= hi[a] && (h.upper() + c.r).next_up() >= lo[a]
    };
    for n2 in range(2) {
        let n = [0, 0, n2];
        if d > 2 && !meets(&n, 2) {
            continue;
        }
        for n1 in range(1) {
            let n = [0, n1, n2];
            if !meets(&n, 1) {
                continue;
            }
            for n0 in range(0) {
                let n = [n0, n1, n2];
                let Some(code) = ghost_code(&n, d) else {
                    continue;
                };
                if meets(&n, 0) {
                    let (a, b) = (shifted(lat, &c.lo, &n), shifted(lat, &c.hi, &n));
                    out.push(k, &a, &b, c.r, GHOST | code);
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
            return Err(Problem::wide(a));
        }
        let (lo, wrap) = reduce(lat, &b[..d]).map_err(|_| Problem::Far)?;
        let mut hi = [Approx::default(); 3];
        for a in 0..d {
            hi[a] = Approx::of(b[d + a]);
        }
        let hi = shifted(lat, &hi, &wrap.map(|w| -w));
        Ok(Canon {
            lo,
            hi,
            r: 0.0,
            wrap,
        })
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
            return Err(Problem::wide(a));
        }
        let (lo, wrap) = reduce(lat, &c[..d]).map_err(|_| Problem::Far)?;
        Ok(Canon {
            lo,
            hi: lo,
            r,
            wrap,
        })
    })
}
