//! The exact test of two periodic images at least one of which is
//! inexact (its coordinates rounded, its box widened: `super::images`).
//!
//! The true image stands at `r0 + m L` on a periodic axis, `(r0, turns) =
//! images::place(x, L)` exact and `m = turns - shifted` a small integer
//! (`-1`, `0` or `1`), with `x` the box's low side or the ball's centre;
//! a box's high side is that plus `hi - lo`.  A float filter computes these
//! values with at most three roundings each (every one below `2^-53` of a
//! value under `|r0| + |hi - lo| + 2 L`) and decides when the answer clears
//! a margin above that error ([`super::axis::pad`], about `2^-49` of it); the
//! rest are decided in integers (`crate::bigint`).  Open axes use the
//! objects' own coordinates, whose comparisons are exact.

use super::approx::balls_filter;
use super::axis::{pad, place};
use crate::bigint::Dyadic;
use crate::narrow::Imaged;

/// What the exact test reads: the objects (boxes, or balls) and the
/// period, and the images' tags.
pub struct Judge<'a, const N: usize, const C: usize> {
    /// The objects' boxes (read when `balls` is empty).
    pub boxes: &'a [[f64; N]],
    /// The objects' balls (empty for boxes).
    pub balls: &'a [[f64; C]],
    /// The period per axis, infinite on an open axis.
    pub period: &'a [f64],
    /// The images' tags.
    pub tags: &'a [u64],
}

/// One coordinate of an image: the float nearest its true value, an
/// error bound of that float, and the true value's exact parts.
struct Side {
    x: f64,
    err: f64,
    r0: f64,
    m: i32,
}

impl<const N: usize, const C: usize> Judge<'_, N, C> {
    /// Whether images `p` and `q` (of two objects, no shifted axis shared)
    /// truly meet.
    pub fn meet(&self, p: usize, q: usize) -> bool {
        let (tp, tq) = (self.tags[p], self.tags[q]);
        let (i, j) = (Imaged::object(tp), Imaged::object(tq));
        let (sp, sq) = (Imaged::shifts(tp), Imaged::shifts(tq));
        if self.balls.is_empty() {
            (0..N / 2).all(|a| self.axis_overlaps(a, (i, sp), (j, sq)))
        } else {
            self.balls_meet((i, sp), (j, sq))
        }
    }

    /// The image's low side (a box) or centre (a ball) on periodic axis
    /// `a`, from the object's `x` there, shifted if bit `a` of `shifts` is set.
    fn side(&self, a: usize, x: f64, shifts: u32) -> Side {
        let l = self.period[a];
        let (r0, turns) = place(x, l);
        let m = turns - (shifts >> a & 1) as i32;
        Side {
            x: r0 + f64::from(m) * l,
            err: pad(r0, 0.0, l),
            r0,
            m,
        }
    }

    /// The exact value of a side, plus `extra` (a box's `hi - lo`).
    fn exact(&self, a: usize, s: &Side) -> Dyadic {
        Dyadic::of(s.r0) + Dyadic::of(self.period[a]) * Dyadic::of(f64::from(s.m))
    }

    /// Box images `(i, shifts)` strictly overlap on axis `a`.
    fn axis_overlaps(&self, a: usize, (i, si): (usize, u32), (j, sj): (usize, u32)) -> bool {
        let (bi, bj) = (&self.boxes[i], &self.boxes[j]);
        let h = N / 2;
        if !self.period[a].is_finite() {
            return bi[a] < bj[h + a] && bj[a] < bi[h + a];
        }
        let (li, lj) = (self.side(a, bi[a], si), self.side(a, bj[a], sj));
        // lo_i < lo_j + w_j and lo_j < lo_i + w_i
        self.less(a, &li, &lj, (bj[a], bj[h + a])) && self.less(a, &lj, &li, (bi[a], bi[h + a]))
    }

    /// Exactly: side `p` is below side `q` plus the width `hi - lo` of `q`'s box.
    fn less(&self, a: usize, p: &Side, q: &Side, (lo, hi): (f64, f64)) -> bool {
        let w = hi - lo;
        let gap = (q.x + w) - p.x;
        let err = p.err + q.err + pad(0.0, w, 0.0) + pad(q.x + w, p.x, 0.0);
        if gap > err {
            return true;
        }
        if gap < -err {
            return false;
        }
        let top = self.exact(a, q) + Dyadic::of(hi) - Dyadic::of(lo);
        (top - self.exact(a, p)).sign() > 0
    }

    /// Ball images `(i, shifts)` and `(j, shifts)` overlap: the distance of
    /// their centres below the sum of their radii.
    fn balls_meet(&self, (i, si): (usize, u32), (j, sj): (usize, u32)) -> bool {
        let (ci, cj) = (&self.balls[i], &self.balls[j]);
        let s = ci[C - 1] + cj[C - 1];
        if s == 0.0 {
            return false; // points never overlap
        }
        let (mut lower, mut upper) = (0.0, 0.0);
        let mut parts: [(Side, Side); 3] = std::array::from_fn(|_| (blank(), blank()));
        for a in 0..C - 1 {
            let (pi, pj) = if self.period[a].is_finite() {
                (self.side(a, ci[a], si), self.side(a, cj[a], sj))
            } else {
                (open(ci[a]), open(cj[a]))
            };
            let d = pi.x - pj.x;
            let err = pi.err + pj.err + pad(d, 0.0, 0.0);
            lower += (d.abs() - err).max(0.0).powi(2);
            upper += (d.abs() + err).powi(2);
            parts[a] = (pi, pj);
        }
        if let Some(meet) = balls_filter(lower, upper, s) {
            return meet;
        }
        let mut sum = Dyadic::zero();
        for (a, (pi, pj)) in parts.iter().enumerate().take(C - 1) {
            let d = if self.period[a].is_finite() {
                self.exact(a, pi) - self.exact(a, pj)
            } else {
                Dyadic::of(pi.x) - Dyadic::of(pj.x)
            };
            sum = sum + d.clone() * d;
        }
        let rs = Dyadic::of(ci[C - 1]) + Dyadic::of(cj[C - 1]);
        (sum - rs.clone() * rs).sign() < 0
    }
}

/// A coordinate on an open axis: exact.
fn open(x: f64) -> Side {
    Side {
        x,
        err: 0.0,
        r0: x,
        m: 0,
    }
}

fn blank() -> Side {
    open(0.0)
}
