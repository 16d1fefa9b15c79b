//! Exact references for the tests of the rays' broad phase (test code
//! only): the set of `s` at which a ray's points satisfy interval
//! constraints per axis, decided in dyadic arithmetic, in any dimension.
//!
//! Every `s` is held as `v / den`, `den > 0` the product of the ray's
//! non-zero `|d_k|`: a double `s` gives the dyadic `v = s den`, and the
//! parameter where axis `k`'s coordinate is a double `e`, `(e - o_k) / d_k`,
//! gives `v = (e - o_k) sign(d_k) prod_{j != k} |d_j|`, dyadic too.  So
//! sets of `s` (intervals) and their ends compare exactly, with no
//! division.

use crate::bigint::Dyadic;
use std::cmp::Ordering;

/// `a` against `b`, exactly.
fn cmp(a: &Dyadic, b: &Dyadic) -> Ordering {
    (a.clone() - b.clone()).sign().cmp(&0)
}

/// One end of an interval of `s`: the scaled value and whether it belongs.
#[derive(Clone, Debug)]
struct End {
    v: Dyadic,
    closed: bool,
}

/// An interval of `s` (scaled), possibly empty.
#[derive(Clone, Debug)]
pub struct Set {
    lo: Option<End>,
    up: Option<End>,
    empty: bool,
}

impl Set {
    fn above(&mut self, v: Dyadic, closed: bool) {
        match &mut self.lo {
            Some(l) => match cmp(&v, &l.v) {
                Ordering::Greater => *l = End { v, closed },
                Ordering::Equal => l.closed &= closed,
                Ordering::Less => {}
            },
            None => self.lo = Some(End { v, closed }),
        }
    }

    fn below(&mut self, v: Dyadic, closed: bool) {
        match &mut self.up {
            Some(u) => match cmp(&v, &u.v) {
                Ordering::Less => *u = End { v, closed },
                Ordering::Equal => u.closed &= closed,
                Ordering::Greater => {}
            },
            None => self.up = Some(End { v, closed }),
        }
    }

    /// Whether no `s` is in the set.
    pub fn is_empty(&self) -> bool {
        if self.empty {
            return true;
        }
        match (&self.lo, &self.up) {
            (Some(l), Some(u)) => match cmp(&l.v, &u.v) {
                Ordering::Less => false,
                Ordering::Equal => !(l.closed && u.closed),
                Ordering::Greater => true,
            },
            _ => false,
        }
    }

    /// The least `s` of the set, scaled (its infimum), when not empty.
    pub fn least(&self) -> Option<&Dyadic> {
        if self.is_empty() {
            None
        } else {
            self.lo.as_ref().map(|l| &l.v)
        }
    }
}

/// A ray `o + s d` in exact arithmetic.
pub struct ExactRay {
    o: Vec<f64>,
    d: Vec<f64>,
    den: Dyadic,
    /// Per axis, the product of the other axes' non-zero `|d_j|`.
    others: Vec<Dyadic>,
}

impl ExactRay {
    /// The ray of origin `o` and direction `d` (finite, as many of each).
    pub fn new(o: &[f64], d: &[f64]) -> ExactRay {
        let abs = |j: usize| Dyadic::of(d[j].abs());
        let prod = |skip: Option<usize>| {
            (0..d.len())
                .filter(|&j| d[j] != 0.0 && Some(j) != skip)
                .fold(Dyadic::of(1.0), |p, j| p * abs(j))
        };
        ExactRay {
            o: o.to_vec(),
            d: d.to_vec(),
            den: prod(None),
            others: (0..d.len()).map(|k| prod(Some(k))).collect(),
        }
    }

    /// The scaled value of a finite `s`.
    pub fn scaled(&self, s: f64) -> Dyadic {
        Dyadic::of(s) * self.den.clone()
    }

    /// The double `b` (possibly infinite, not a NaN) against the scaled
    /// `v`.
    pub fn cmp(&self, b: f64, v: &Dyadic) -> Ordering {
        if b.is_infinite() {
            return if b > 0.0 {
                Ordering::Greater
            } else {
                Ordering::Less
            };
        }
        cmp(&self.scaled(b), v)
    }

    /// The `s` in `[0, upto]` (`upto` possibly infinite, or negative).
    pub fn span(&self, upto: f64) -> Set {
        let mut set = Set {
            lo: Some(End {
                v: Dyadic::zero(),
                closed: true,
            }),
            up: None,
            empty: upto < 0.0,
        };
        if upto.is_finite() {
            set.below(self.scaled(upto), true);
        }
        set
    }

    /// Narrows `set` to the `s` where coordinate `k` lies in the interval
    /// from `lo` to `hi` (each possibly infinite; `closed` for each end).
    pub fn clip(&self, set: &mut Set, k: usize, lo: (f64, bool), hi: (f64, bool)) {
        let (o, d) = (self.o[k], self.d[k]);
        if d == 0.0 {
            let above = if lo.1 { lo.0 <= o } else { lo.0 < o };
            let below = if hi.1 { o <= hi.0 } else { o < hi.0 };
            set.empty |= !(above && below);
            return;
        }
        // the scaled parameter of a finite edge
        let param = |e: f64| {
            let v = (Dyadic::of(e) - Dyadic::of(o)) * self.others[k].clone();
            if d > 0.0 {
                v
            } else {
                -v
            }
        };
        // going forward the low end bounds s from below; backward, above
        for ((e, closed), is_lo) in [(lo, true), (hi, false)] {
            if e.is_infinite() {
                // an end beyond every coordinate on its own side holds for
                // all, one on the other side for none
                set.empty |= (e > 0.0) == is_lo;
                continue;
            }
            if is_lo == (d > 0.0) {
                set.above(param(e), closed);
            } else {
                set.below(param(e), closed);
            }
        }
    }
}
