//! The exact test of two images in a triclinic cell at least one of which
//! is inexact (`super::lattice_images`).
//!
//! Image `p` of object `i` stands for `i`'s own coordinates plus `s_p H`,
//! with the integer shift `s_p = g_p - w_i` (its ghost shift, if any, less
//! the cells taken off `i`), so two images meet as the objects do with `i`
//! shifted by `t H`, `t = s_p - s_q`.  Each comparison is a sum of the
//! objects' coordinates and the products `t_m H_mk`: a float filter
//! ([`Approx`], every rounding error kept) decides it when its sign is
//! clear, the rest are decided in integers (`crate::bigint`).  Nothing
//! reads the images' rounded coordinates.

use super::approx::{balls_filter, Approx};
use super::lattice::{ghost_shift, Lattice, GHOST};
use crate::bigint::Dyadic;
use crate::narrow::Imaged;

/// What the exact test reads: the objects (boxes, or balls), the cell,
/// the images' tags and the cells taken off each object.
pub struct Judge<'a, const N: usize, const C: usize> {
    /// The objects' boxes (read when `balls` is empty).
    pub boxes: &'a [[f64; N]],
    /// The objects' balls (empty for boxes).
    pub balls: &'a [[f64; C]],
    /// The cell.
    pub lattice: &'a Lattice,
    /// The images' tags.
    pub tags: &'a [u64],
    /// Per object, the cells taken off to make its canonical image.
    pub wraps: &'a [[i32; 3]],
}

impl<const N: usize, const C: usize> Judge<'_, N, C> {
    /// The shift of image `p` from its object's own coordinates, and the object.
    fn shift(&self, p: usize) -> ([i64; 3], usize) {
        let tag = self.tags[p];
        let (k, code) = (Imaged::object(tag), Imaged::shifts(tag));
        let g = if code & GHOST != 0 {
            ghost_shift(code & !GHOST, self.lattice.dims())
        } else {
            [0; 3]
        };
        let w = self.wraps[k];
        (
            std::array::from_fn(|m| i64::from(g[m]) - i64::from(w[m])),
            k,
        )
    }

    /// `x + (t H)_k` with its bound, and exactly.
    fn plus_shift(&self, x: Approx, t: &[i64; 3], k: usize) -> Approx {
        (k..self.lattice.dims()).fold(x, |s, m| s.plus_product(t[m] as f64, self.lattice.at(m, k)))
    }

    /// `(t H)_k`, exactly.
    fn exact_shift(&self, t: &[i64; 3], k: usize) -> Dyadic {
        (k..self.lattice.dims()).fold(Dyadic::zero(), |s, m| {
            s + Dyadic::of(t[m] as f64) * Dyadic::of(self.lattice.at(m, k))
        })
    }

    /// The sign of `a - b + (t H)_k`, exactly.
    fn sign(&self, a: f64, b: f64, t: &[i64; 3], k: usize) -> i32 {
        let x = self.plus_shift(Approx::of(a).plus_product(-1.0, b), t, k);
        x.sign()
            .unwrap_or_else(|| (Dyadic::of(a) - Dyadic::of(b) + self.exact_shift(t, k)).sign())
    }

    /// Whether images `p` and `q` (of two objects) truly meet.
    pub fn meet(&self, p: usize, q: usize) -> bool {
        let ((sp, i), (sq, j)) = (self.shift(p), self.shift(q));
        let t: [i64; 3] = std::array::from_fn(|m| sp[m] - sq[m]);
        let d = N / 2;
        if self.balls.is_empty() {
            let (bi, bj) = (&self.boxes[i], &self.boxes[j]);
            // lo_i + u < hi_j and lo_j < hi_i + u, u = (t H)_k
            (0..d).all(|k| {
                self.sign(bj[d + k], bi[k], &t.map(|x| -x), k) > 0
                    && self.sign(bi[d + k], bj[k], &t, k) > 0
            })
        } else {
            self.balls_meet(i, j, &t)
        }
    }

    /// Balls `i` shifted by `t H` and `j` overlap: the distance of their
    /// centres below the sum of their radii.
    fn balls_meet(&self, i: usize, j: usize, t: &[i64; 3]) -> bool {
        let (ci, cj) = (&self.balls[i], &self.balls[j]);
        let s = ci[C - 1] + cj[C - 1];
        if s == 0.0 {
            return false; // points never overlap
        }
        let (mut lower, mut upper) = (0.0, 0.0);
        for k in 0..C - 1 {
            let v = self.plus_shift(Approx::of(ci[k]).plus_product(-1.0, cj[k]), t, k);
            let (x, p) = (v.x.abs(), v.pad());
            lower += (x - p).max(0.0).powi(2);
            upper += (x + p).powi(2);
        }
        if let Some(meet) = balls_filter(lower, upper, s) {
            return meet;
        }
        let mut sum = Dyadic::zero();
        for k in 0..C - 1 {
            let v = Dyadic::of(ci[k]) - Dyadic::of(cj[k]) + self.exact_shift(t, k);
            sum = sum + v.clone() * v;
        }
        let rs = Dyadic::of(ci[C - 1]) + Dyadic::of(cj[C - 1]);
        (sum - rs.clone() * rs).sign() < 0
    }
}
