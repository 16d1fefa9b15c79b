//! One object's images in a triclinic cell: its canonical image (the cells
//! taken off, last axis first: `super::lattice_images` says why that is
//! enough), the box, ball and tag of an image, and the choice of its
//! ghosts.  Every value is an [`Approx`]: a float with a bound on its
//! error, so that an image's box contains the true one and the image is
//! tagged exact only when nothing rounded.

use super::approx::{near_int, Approx};
use super::images::Ghosts;
use super::lattice::{ghost_code, Lattice, GHOST, MAX_WRAPS};
use crate::check::Problem;
use crate::narrow::Imaged;

/// One object's canonical image: its low and high corners (a ball: its
/// centre, twice; `r` its radius, 0 for a box) and the cells taken off.
#[derive(Clone, Copy, Default)]
pub(super) struct Canon {
    pub(super) lo: [Approx; 3],
    pub(super) hi: [Approx; 3],
    pub(super) r: f64,
    pub(super) wrap: [i32; 3],
    /// What is wrong with the object (then the rest is blank).
    pub(super) bad: Option<Problem>,
}

impl Canon {
    /// The canonical image of an object with `problem`.
    pub(super) fn refused(problem: Problem) -> Canon {
        Canon {
            bad: Some(problem),
            ..Canon::default()
        }
    }
}

/// `x - w H` for the cells `w` that bring `x` into the brick, with `w`; or
/// `None` when `x` lies more than [`MAX_WRAPS`] cells away on an axis.
pub(super) fn reduce(lat: &Lattice, x: &[f64]) -> Option<([Approx; 3], [i32; 3])> {
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
            return None;
        }
        w[m] = q as i32;
        for (k, yk) in y.iter_mut().enumerate().take(m + 1) {
            *yk = yk.plus_product(-q, lat.at(m, k));
        }
    }
    Some((y, w))
}

/// `x + n H` (the corner `x` of an image, the shift `n`).
pub(super) fn shifted(lat: &Lattice, x: &[Approx; 3], n: &[i32; 3]) -> [Approx; 3] {
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
pub(super) fn corners(
    lo: &[Approx; 3],
    hi: &[Approx; 3],
    r: f64,
    d: usize,
) -> ([f64; 3], [f64; 3]) {
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
pub(super) fn image<const N: usize, const C: usize>(
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
pub(super) fn pad_of(lo: &[Approx; 3]) -> f64 {
    lo.iter().fold(0.0, |m, x| m.max(x.pad()))
}

/// Pushes the ghosts of object `k` (canonical image `c`) whose boxes meet
/// the region `(lo, hi)`: axis by axis from the last, each shift component
/// taken among those that keep the box meeting the region on that axis.
///
/// The test runs in plain floats with a margin of `2^-30` of the
/// magnitudes summed (the corners and every term of the shift), far above
/// their rounding: a ghost it keeps needlessly costs time only (its pairs
/// are still decided exactly), and none is missed.  The candidate shifts
/// of an axis come from a rounded quotient, widened by one each way.
pub(super) fn ghosts_of<const N: usize, const C: usize>(
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
    // whether the box shifted by `n` meets the region on axis `j`: the
    // shift's sum `t` rounds by less than 2^-50 of its terms' magnitudes,
    // far below the margin
    let meets = |j: usize, n: &[i32; 3]| {
        let (mut t, mut size) = (0.0, 0.0);
        for (m, &nm) in n.iter().enumerate().take(d).skip(j) {
            let p = f64::from(nm) * lat.at(m, j);
            t += p;
            size += p.abs();
        }
        let margin = (a[j].abs() + b[j].abs() + size) * f64::from_bits((1023 - 30) << 52);
        a[j] + t - margin <= hi[j] && b[j] + t + margin >= lo[j]
    };
    for n2 in span(2, 0.0) {
        if d > 2 && !meets(2, &[0, 0, n2]) {
            continue;
        }
        let s1 = f64::from(n2) * lat.at(2, 1);
        for n1 in span(1, s1) {
            if !meets(1, &[0, n1, n2]) {
                continue;
            }
            let s0 = f64::from(n1) * lat.at(1, 0) + f64::from(n2) * lat.at(2, 0);
            for n0 in span(0, s0) {
                let n = [n0, n1, n2];
                let Some(code) = ghost_code(&n, d) else {
                    continue;
                };
                if meets(0, &n) {
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
