//! One axis of a ray `o + s d`: the parameter `s` where its coordinate is a
//! given double, and its coordinate at a given `s`, each with the error
//! bound the walk's proof reads (`super`'s doc, "Parameters of
//! coordinates"), and the widenings that turn them into sure bounds.

/// Relative widening of a computed value (far above its `3.0001u` error).
const WIDEN: f64 = f64::from_bits((1023 - 46) << 52); // 2^-46
/// Absolute widening (far above an underflow's `2^-1075`).
const TINY: f64 = f64::from_bits(1 << 4); // 2^-1070

/// A value at or below the true one of a computed parameter `v`.
#[inline(always)]
pub(super) fn widen_down(v: f64) -> f64 {
    v - v.abs() * WIDEN - TINY
}

/// A value at or above the true one of a computed parameter `v`.
#[inline(always)]
pub(super) fn widen_up(v: f64) -> f64 {
    v + v.abs() * WIDEN + TINY
}

/// A lower bound of the `s` beyond a computed entry parameter `p`: `p`
/// widened down, or `-inf` when `p` is not finite.
#[inline(always)]
pub(super) fn lower(p: f64) -> f64 {
    if p.is_finite() {
        widen_down(p)
    } else {
        f64::NEG_INFINITY
    }
}

/// One axis of a ray `o + s d`.
#[derive(Clone, Copy)]
pub(super) struct Axis {
    pub(super) o: f64,
    pub(super) d: f64,
    /// `fl(1/d)` when that is a normal double, else 0 (then the walk divides).
    inv: f64,
    /// The absolute part of [`Axis::at`]'s margin, `2^-1070 (1 + |d|)`.
    tiny: f64,
}

impl Axis {
    /// The axis a 2D ray lacks (never read: its walk has no layers).
    pub(super) const FLAT: Axis = Axis {
        o: 0.0,
        d: 0.0,
        inv: 0.0,
        tiny: TINY,
    };

    /// The axis of origin `o` and direction `d`.
    #[inline(always)]
    pub(super) fn new(o: f64, d: f64) -> Axis {
        let inv = 1.0 / d;
        Axis {
            o,
            d,
            inv: if inv.is_normal() { inv } else { 0.0 },
            tiny: TINY * (1.0 + d.abs()),
        }
    }

    /// Whether the ray goes toward higher coordinates on this axis (`+0.0`
    /// and `-0.0` count as forward: either way the axis has one cell).
    #[inline(always)]
    pub(super) fn forward(&self) -> bool {
        self.d >= 0.0
    }

    /// The `s` where the coordinate is `e` (`d != 0`): within `3.0001u |s|
    /// + 2^-1075` of the true value when finite, monotone in `e`.
    #[inline(always)]
    pub(super) fn param(&self, e: f64) -> f64 {
        if self.inv != 0.0 {
            (e - self.o) * self.inv
        } else {
            (e - self.o) / self.d
        }
    }

    /// The parameter of cell `i`'s side the ray enters it by (`d != 0`;
    /// `e` the axis' edges): `e[i]` going forward, `e[i + 1]` backward.
    /// Finite or `-inf` for a cell a quantized coordinate reaches (or
    /// `+inf` when the quotient overflows).
    #[inline(always)]
    pub(super) fn near(&self, e: &[f64], i: usize) -> f64 {
        self.param(if self.d > 0.0 { e[i] } else { e[i + 1] })
    }

    /// The parameter of cell `i`'s side the ray leaves it by (`d != 0`):
    /// finite or `+inf`.
    #[inline(always)]
    pub(super) fn far(&self, e: &[f64], i: usize) -> f64 {
        self.param(if self.d > 0.0 { e[i + 1] } else { e[i] })
    }

    /// A lower bound of the `s` of the ray's points in cell `i` along this
    /// axis: its entry widened down, or `-inf` when the axis is flat or
    /// the entry is not finite.
    #[inline(always)]
    pub(super) fn entry_bound(&self, e: &[f64], i: usize) -> f64 {
        if self.d != 0.0 {
            lower(self.near(e, i))
        } else {
            f64::NEG_INFINITY
        }
    }

    /// The coordinate at `s`, widened to an interval holding the true one
    /// (also at any `s'` within a computed end's error of `s`).
    #[inline(always)]
    pub(super) fn at(&self, s: f64) -> (f64, f64) {
        let sd = s * self.d;
        let v = self.o + sd;
        let m = (self.o.abs() + sd.abs()) * WIDEN + self.tiny;
        (v - m, v + m)
    }
}
