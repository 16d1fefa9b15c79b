//! The periodic images of the objects: each object's canonical image in
//! the cell `[0, L)` of every periodic axis, and its ghosts, shifted by
//! `-L` on the axes where the canonical image reaches past `L`.
//!
//! **Canonical image.**  On a periodic axis of period `L`, a box whose low
//! side `lo` lies in `[0, L)` is its own canonical image (no arithmetic:
//! exact).  Else `lo` is moved by a multiple of `L` into `[0, L)`: `r0 = lo
//! % L` is exact (the remainder of two doubles is a double), and `r0 + L`
//! when `r0 < 0` may round; the high side moves by the same multiple, `r +
//! (hi - lo)`, which may round too.  A ball moves its centre the same way
//! (its radius does not move).  Where nothing rounded (checked by TwoSum)
//! the image is exact; else its box is widened by `pad` on that axis so
//! that it contains the true image, and the image is tagged inexact: its
//! pairs are decided by `super::exact`.
//!
//! **Ghosts.**  With every object's extent at most `L / 2` (boxes: `hi -
//! lo`; balls: the diameter), a canonical box image that reaches past `L`
//! has its low side above `L / 2`.  A ball's canonical centre is in `[0,
//! L)`, but its box may start below 0: a partner `i` then meets it shifted
//! by `-L` when `c_i - L + r_i + r_j > c_j >= 0`, so a ball gets a ghost
//! when `c + r + r_max > L` (`r_max` the largest radius), and its centre
//! is then above `L - 2 (L / 4)`.  Either way shifting by `-L` is exact
//! (Sterbenz: `x - L` is exact for `L / 2 <= x <= 2 L`; checked by TwoSum
//! all the same, an image found inexact is tagged so).  An object gets one
//! ghost per non-empty set of the axes on which it reaches past `L`: at
//! most 3 in 2D, 7 in 3D.
//!
//! **Order.**  Image `k < n` is the canonical image of object `k`; the
//! ghosts follow, object by object.  The layout of a tag is owned by
//! [`Imaged`].

use super::axis::{pad, place, too_wide};
use crate::check::{ball_box, BadRow, Problem};
use crate::dim::Row;
use crate::narrow::{two_sum, Imaged};
use crate::par::{chunk_count, even_bounds, split_at_bounds, Exec, MAX_CHUNKS};
use crate::scratch::{self, Pooled};

/// The images of `n` objects: their boxes for the search, their balls
/// (none for boxes), and their tags ([`Imaged::tag`]).  Their memory comes
/// from the scratch pools and goes back with [`Images::give_back`].
pub struct Images<const N: usize, const C: usize> {
    /// The images' boxes: exact, or containing the true image.
    pub boxes: Vec<[f64; N]>,
    /// The images' balls, by image (empty for boxes).
    pub balls: Vec<[f64; C]>,
    /// The images' tags.
    pub tags: Vec<u64>,
    /// Per object, the whole cells taken off its coordinates to make its
    /// canonical image (a triclinic cell's: `super::lattice_images`; empty
    /// for an orthorhombic one, whose images carry their own rounding).
    pub wraps: Vec<[i32; 3]>,
    /// Above the amount by which the distance of two image centres may
    /// stand from the true one (0 when every image is exact).
    pub slack: f64,
}

impl<const N: usize, const C: usize> Images<N, C> {
    /// Give the images' memory back to the scratch pools (kept for the next
    /// search of about this size: `crate::scratch`).
    pub fn give_back(self)
    where
        [f64; N]: Pooled,
        [f64; C]: Pooled,
    {
        scratch::give(self.boxes);
        scratch::give(self.balls);
        scratch::give(self.tags);
    }
}

/// One axis of a canonical image: its box side `[lo, hi]` (exact, or
/// widened to contain the true one), whether it is exact.
#[inline]
fn canonical(lo: f64, hi: f64, l: f64) -> (f64, f64, bool) {
    if (0.0..l).contains(&lo) {
        return (lo, hi, true);
    }
    let (r0, turns) = place(lo, l);
    let (r, e0) = if turns == 1 {
        two_sum(r0, l)
    } else {
        (r0, 0.0)
    };
    let (w, e1) = two_sum(hi, -lo);
    let (h, e2) = two_sum(r, w);
    if e0 == 0.0 && e1 == 0.0 && e2 == 0.0 {
        return (r, h, true);
    }
    let p = pad(r, w, l);
    (r - p, h + p, false)
}

/// `x - l` and whether it is exact (TwoSum; `x` above `l / 2` makes it so).
#[inline]
fn shifted(x: f64, l: f64) -> (f64, bool) {
    let (s, e) = two_sum(x, -l);
    (s, e == 0.0)
}

/// The ghosts one chunk of objects makes (appended after every canonical
/// image, chunk by chunk: the order is fixed by the data).
pub(super) struct Ghosts<const N: usize, const C: usize> {
    pub(super) boxes: Vec<[f64; N]>,
    pub(super) balls: Vec<[f64; C]>,
    pub(super) tags: Vec<u64>,
}

/// `n` copies of `value` in a pooled vector with room for the usual ghosts
/// after them (a quarter as many again): the ghosts are appended once the
/// canonical images are built, and a vector without the room would move,
/// into fresh pages, on every search.
pub(super) fn with_room<T: Pooled + Clone>(n: usize, value: T) -> Vec<T> {
    let mut v = scratch::take(n + n / 4 + 64);
    v.resize(n, value);
    v
}

/// Objects per chunk of the parallel build.
const GRAIN: usize = 1 << 14;

/// The slots of one canonical image: its box and its ball (each absent
/// when the images have none) and its tag.
pub(super) struct Slot<'s, const N: usize, const C: usize> {
    pub(super) bx: Option<&'s mut [f64; N]>,
    pub(super) ball: Option<&'s mut [f64; C]>,
    pub(super) tag: &'s mut u64,
}

/// The images of `n` objects: `image(k, slot, ghosts)` writes object `k`'s
/// canonical image into `slot` and pushes its ghosts, or says what is wrong
/// with it.  Canonical images are written in place (the closure writes
/// through references: returned by value, the three parts went through the
/// stack unaligned), in chunks fixed by `n`; the first bad row is the least
/// over the chunks.
pub(super) fn build<const N: usize, const C: usize, F>(
    mut out: Images<N, C>,
    ex: &Exec,
    image: F,
) -> Result<Images<N, C>, BadRow>
where
    F: Fn(usize, Slot<N, C>, &mut Ghosts<N, C>) -> Result<(), Problem> + Sync,
{
    let n = out.tags.len();
    let (with_boxes, with_balls) = (!out.boxes.is_empty(), !out.balls.is_empty());
    let bounds = even_bounds(n, chunk_count(n, GRAIN, MAX_CHUNKS));
    let tags = split_at_bounds(&mut out.tags, &bounds);
    let mut boxes = if with_boxes {
        split_at_bounds(&mut out.boxes, &bounds)
    } else {
        Vec::new()
    };
    let mut balls = if with_balls {
        split_at_bounds(&mut out.balls, &bounds)
    } else {
        Vec::new()
    };
    boxes.resize_with(tags.len(), || &mut []);
    balls.resize_with(tags.len(), || &mut []);
    let parts: Vec<_> = boxes.into_iter().zip(balls).zip(tags).collect();
    let made = ex.for_work(n, 2 * GRAIN).each(parts, |c, ((bx, bl), tg)| {
        let lo = bounds[c];
        let mut g = Ghosts {
            boxes: Vec::new(),
            balls: Vec::new(),
            tags: Vec::new(),
        };
        let (mut bx, mut bl) = (bx.iter_mut(), bl.iter_mut());
        for (t, tag) in tg.iter_mut().enumerate() {
            let slot = Slot {
                bx: bx.next(),
                ball: bl.next(),
                tag,
            };
            image(lo + t, slot, &mut g).map_err(|problem| BadRow {
                row: lo + t,
                problem,
            })?;
        }
        Ok(g)
    });
    for g in made {
        let g = g?;
        out.boxes.extend(g.boxes);
        out.balls.extend(g.balls);
        out.tags.extend(g.tags);
    }
    Ok(out)
}

/// The images of boxes, or the first row that spans more than half the
/// period on a periodic axis (`period[k]` infinite: axis `k` is open).
pub fn of_boxes<const N: usize>(
    boxes: &[[f64; N]],
    period: &[f64],
    ex: &Exec,
) -> Result<Images<N, 0>, BadRow>
where
    [f64; N]: Row + Pooled,
{
    let d = N / 2;
    let n = boxes.len();
    let out = Images {
        boxes: with_room(n, [0.0; N]),
        balls: Vec::new(),
        tags: with_room(n, 0),
        wraps: Vec::new(),
        slack: 0.0,
    };
    build(out, ex, |k, slot, ghosts| {
        let b = &boxes[k];
        let mut img = *b;
        let mut exact = true;
        let mut reach = 0u32;
        for a in (0..d).filter(|&a| period[a].is_finite()) {
            let l = period[a];
            if too_wide(b[a], b[d + a], l) {
                return Err(Problem::wide(a));
            }
            let (lo, hi, ex) = canonical(b[a], b[d + a], l);
            img[a] = lo;
            img[d + a] = hi;
            exact &= ex;
            reach |= u32::from(hi > l) << a;
        }
        for shifts in subsets(reach) {
            let mut g = img;
            let mut ex = exact;
            for a in (0..d).filter(|a| shifts >> a & 1 == 1) {
                let (lo, e1) = shifted(img[a], period[a]);
                let (hi, e2) = shifted(img[d + a], period[a]);
                ex &= e1 && e2;
                g[a] = lo;
                g[d + a] = hi;
                if !(exact && e1 && e2) {
                    // widened again: the subtraction rounded, or the
                    // canonical side was already a bound
                    let p = pad(lo, hi - lo, period[a]);
                    g[a] = lo - p;
                    g[d + a] = hi + p;
                }
            }
            ghosts.boxes.push(g);
            ghosts.tags.push(Imaged::tag(k, shifts, ex));
        }
        if let Some(at) = slot.bx {
            *at = img;
        }
        *slot.tag = Imaged::tag(k, 0, exact);
        Ok(())
    })
}

/// The images of balls (rows of `C = D + 1`: centre, then radius), their
/// boxes outward-rounded (and widened where inexact), or the first ball
/// whose diameter exceeds half the period on a periodic axis.
///
/// Without `with_boxes` the boxes are left out (empty): a cell list needs
/// only the centres.
pub fn of_balls<const C: usize, const N: usize>(
    balls: &[[f64; C]],
    period: &[f64],
    with_boxes: bool,
    ex: &Exec,
) -> Result<Images<N, C>, BadRow>
where
    [f64; N]: Row + Pooled,
    [f64; C]: Pooled,
{
    let d = N / 2;
    // a partner's radius widens the band of ghosts (module doc)
    let most = balls.iter().fold(0.0f64, |m, c| m.max(c[C - 1]));
    let n = balls.len();
    let out = Images {
        boxes: if with_boxes {
            with_room(n, [0.0; N])
        } else {
            Vec::new()
        },
        balls: with_room(n, [0.0; C]),
        tags: with_room(n, 0),
        wraps: Vec::new(),
        slack: 0.0,
    };
    let mut im = build(out, ex, |k, slot, ghosts| {
        let c = &balls[k];
        let r = c[C - 1];
        let mut img = *c;
        let mut inexact_axes = 0u32;
        for a in (0..d).filter(|&a| period[a].is_finite()) {
            let l = period[a];
            // diameter 2 r > l / 2, exactly: 4 r is exact (or infinite)
            if 4.0 * r > l {
                return Err(Problem::wide(a));
            }
            let (r0, turns) = place(c[a], l);
            let (x, e) = if turns == 1 {
                two_sum(r0, l)
            } else {
                (r0, 0.0)
            };
            img[a] = x;
            inexact_axes |= u32::from(e != 0.0) << a;
        }
        // reaches past `L` with a partner: `c + r + r_max > L`, with a
        // margin above its two roundings (and the pad of a rounded centre)
        let reach = (0..d).fold(0u32, |m, a| {
            let l = period[a];
            let p = if inexact_axes >> a & 1 == 1 {
                pad(img[a], r, l)
            } else {
                0.0
            };
            m | u32::from(img[a] + (r + most) + p > l * (1.0 - 1e-15)) << a
        });
        for shifts in subsets(reach) {
            let mut g = img;
            let mut inexact = inexact_axes;
            for a in (0..d).filter(|a| shifts >> a & 1 == 1) {
                let (x, ex) = shifted(img[a], period[a]);
                g[a] = x;
                inexact |= u32::from(!ex) << a;
            }
            if with_boxes {
                ghosts.boxes.push(image_box::<C, N>(&g, inexact, period));
            }
            ghosts.balls.push(g);
            ghosts.tags.push(Imaged::tag(k, shifts, inexact == 0));
        }
        if let Some(at) = slot.bx {
            *at = image_box::<C, N>(&img, inexact_axes, period);
        }
        if let Some(at) = slot.ball {
            *at = img;
        }
        *slot.tag = Imaged::tag(k, 0, inexact_axes == 0);
        Ok(())
    })?;
    im.slack = slack_of(&im);
    Ok(im)
}

/// Above the distance by which two rounded ball images' centres may stand
/// from the true one: their widening ([`pad`]: `2^-49` of coordinates and
/// period below `2^-47` of the largest coordinate), on each of up to 3
/// axes, for both; 0 when every image is exact.
fn slack_of<const N: usize, const C: usize>(im: &Images<N, C>) -> f64 {
    if im.tags.iter().all(|&t| Imaged::is_exact(t)) {
        return 0.0;
    }
    let big = im
        .balls
        .iter()
        .flat_map(|b| b.iter().copied())
        .fold(0.0f64, |m, v| m.max(v.abs()));
    big * f64::from_bits((1023 - 44) << 52)
}

/// The box of ball image `c`: outward-rounded, and widened on the axes of
/// `inexact` (bit `k`: axis `k`), where `c`'s centre is a rounded value.
fn image_box<const C: usize, const N: usize>(c: &[f64; C], inexact: u32, period: &[f64]) -> [f64; N]
where
    [f64; N]: Row,
{
    let d = N / 2;
    let mut b: [f64; N] = ball_box(c);
    for a in (0..d).filter(|a| inexact >> a & 1 == 1) {
        let p = pad(c[a], c[C - 1], period[a]);
        b[a] -= p;
        b[d + a] += p;
    }
    b
}

/// Every non-empty subset of the bits of `m`, in increasing order.
fn subsets(m: u32) -> impl Iterator<Item = u32> {
    (1..=m).filter(move |s| s & !m == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ghosts_of_a_corner_box() {
        let imgs = of_boxes(&[[0.9, 0.8, 1.1, 1.05]], &[1.0, 1.0], &Exec::serial()).unwrap();
        // canonical, then shifted in x, in y, in both
        assert_eq!(
            imgs.tags
                .iter()
                .map(|&t| Imaged::shifts(t))
                .collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
        assert_eq!(imgs.boxes[3], [0.9 - 1.0, 0.8 - 1.0, 1.1 - 1.0, 1.05 - 1.0]);
        // an open axis never wraps
        let imgs = of_boxes(
            &[[0.9, 0.8, 1.1, 1.05]],
            &[1.0, f64::INFINITY],
            &Exec::serial(),
        )
        .unwrap();
        assert_eq!(imgs.tags.len(), 2);
    }
}
