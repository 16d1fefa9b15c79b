//! The world a search quantizes into, computed without overflow.
//!
//! Kernels quantize a coordinate as `floor((v/2 - origin/2) * scale)`
//! ([`quantize`]).  Halves of finite floats never overflow when subtracted, so
//! even a world from -1.7e308 to 1.7e308 works; the scale is capped so that a
//! subnormal world gives a coarse but correct grid instead of an infinite one.
//! Correctness never depends on the scale, only on quantization being
//! monotone non-decreasing in `v`: a poor scale costs time, never pairs.

use crate::dim::Row;

/// Largest scale ever used (cells per half unit).
pub const MAX_SCALE: f64 = 1e300;

/// `(hi - lo) / 2`, finite for any finite `lo <= hi`.
#[inline]
pub fn half_span(lo: f64, hi: f64) -> f64 {
    hi * 0.5 - lo * 0.5
}

/// The longest half-span of bounds (a box row, [`crate::dim`]): what a
/// square (cubic) grid over them spans on each axis.
pub fn longest_half_span<const N: usize>(bounds: [f64; N]) -> f64 {
    (0..N / 2).fold(f64::NEG_INFINITY, |m, k| {
        m.max(half_span(bounds[k], bounds[N / 2 + k]))
    })
}

/// Scale mapping a half-span `half` onto `cells` cells (0 if empty or not finite).
pub fn scale(half: f64, cells: f64) -> f64 {
    if half.is_nan() || half <= 0.0 {
        return 0.0;
    }
    if half * MAX_SCALE <= cells {
        return MAX_SCALE; // the quotient would exceed the cap (or overflow)
    }
    cells / half
}

/// `log2(num / den)` for positive finite values, `None` when undefined.
pub fn log2_ratio(num: f64, den: f64) -> Option<f64> {
    if !(num > 0.0 && den > 0.0 && num.is_finite() && den.is_finite()) {
        return None;
    }
    Some(num.log2() - den.log2())
}

/// Cell coordinate of `v`: `floor((v/2 - origin/2) * scale)` clamped to `[0, top]`.
///
/// Every step is monotone non-decreasing in `v`, which is all the pair
/// kernels rely on; the clamp puts a coordinate on or past the far edge in
/// the last cell instead of cell `top + 1` (the seeds' trap), and one before
/// the near edge (or a NaN, which finite inputs never produce) in cell 0.
#[inline(always)]
pub fn quantize(v: f64, origin: f64, scale: f64, top: u64) -> u64 {
    let t = (v * 0.5 - origin * 0.5) * scale;
    let t = if t > 0.0 { t } else { 0.0 };
    // in [0, top] (top < 2^63): the signed conversion is exact there and a
    // single instruction, where a float-to-unsigned one is a sequence
    t.min(top as f64) as i64 as u64
}

/// A double (not a NaN) as an integer in the same order: `-inf` lowest,
/// `-0.0` and `+0.0` neighbours, `+inf` highest.
fn to_order(v: f64) -> u64 {
    let b = v.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// The double of [`to_order`]'s integer `k`.
fn from_order(k: u64) -> f64 {
    f64::from_bits(if k >> 63 == 1 { k & !(1 << 63) } else { !k })
}

/// How coordinates map to cells: origin and scale of each axis, and the
/// depth, for boxes of `R`'s dimension ([`crate::dim::Row`]: 2D by default).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid<R: Row = [f64; 4]> {
    /// World minimum of each axis.
    pub origins: R::Axes,
    /// Cells per half unit along each axis.
    pub scales: R::Axes,
    /// Level of the finest cells: `2^depth` cells a side.
    pub depth: u32,
}

impl<const N: usize> Grid<[f64; N]>
where
    [f64; N]: Row,
{
    /// Cubic (square in 2D) cells over `bounds` (a box row): every axis
    /// scaled by the longest half-span.
    pub fn square(bounds: [f64; N], depth: u32) -> Self {
        let s = scale(longest_half_span(bounds), (depth as f64).exp2());
        Self::with(bounds, depth, |_| s)
    }

    /// Cells over `bounds`, each axis scaled to its own span (oblong cells).
    pub fn over(bounds: [f64; N], depth: u32) -> Self {
        let cells = (depth as f64).exp2();
        Self::with(bounds, depth, |k| {
            scale(half_span(bounds[k], bounds[N / 2 + k]), cells)
        })
    }

    fn with(bounds: [f64; N], depth: u32, scale_of: impl Fn(usize) -> f64) -> Self {
        let (mut origins, mut scales) = (
            <[f64; N] as Row>::Axes::default(),
            <[f64; N] as Row>::Axes::default(),
        );
        for (k, (o, s)) in origins.as_mut().iter_mut().zip(scales.as_mut()).enumerate() {
            (*o, *s) = (bounds[k], scale_of(k));
        }
        Grid {
            origins,
            scales,
            depth,
        }
    }

    /// World minimum along `axis`.
    #[inline(always)]
    pub fn origin(&self, axis: usize) -> f64 {
        self.origins.as_ref()[axis]
    }

    /// Cells per half unit along `axis`.
    #[inline(always)]
    pub fn scale(&self, axis: usize) -> f64 {
        self.scales.as_ref()[axis]
    }

    /// Last cell coordinate, `2^depth - 1`.
    #[inline(always)]
    pub fn top(&self) -> u32 {
        ((1u64 << self.depth) - 1) as u32
    }

    /// The cell coordinate of `v` along `axis` ([`quantize`]).
    #[inline(always)]
    pub fn cell(&self, v: f64, axis: usize) -> u32 {
        quantize(v, self.origin(axis), self.scale(axis), self.top() as u64) as u32
    }

    /// Where the cells of an axis (0: x, 1: y, 2: z) start: `e[c]` is the least
    /// `v` whose cell coordinate ([`quantize`]) is at least `c`, for `c` in
    /// `1..=top`, with `-inf` before and `+inf` after (twice: `top + 3`
    /// values), so that `v` lies in cell `c` exactly when
    /// `e[c] <= v < e[c + 1]`.  A box can then be checked against its cells
    /// by comparisons alone, without converting its coordinates.
    ///
    /// Exact: each edge is found by bisection over the doubles in order,
    /// around the estimate `origin + 2c / scale` (a few steps each); a
    /// coordinate no double reaches has edge `+inf`.
    pub fn edges(&self, axis: usize) -> Vec<f64> {
        let (origin, scale) = (self.origin(axis), self.scale(axis));
        let top = self.top() as u64;
        let at_least = |key: u64, c: u64| quantize(from_order(key), origin, scale, top) >= c;
        let (lo, hi) = (to_order(f64::NEG_INFINITY), to_order(f64::INFINITY));
        let mut e = Vec::with_capacity(top as usize + 3);
        e.push(f64::NEG_INFINITY);
        for c in 1..=top {
            if !at_least(hi, c) {
                e.push(f64::INFINITY);
                continue;
            }
            let guess = origin + 2.0 * c as f64 / scale;
            let k = to_order(if guess.is_nan() { 0.0 } else { guess }).clamp(lo, hi);
            // a bracket: below it short of c, at its top c or more
            let (mut a, mut b) = (k, k);
            let mut step = 1u64;
            if at_least(k, c) {
                loop {
                    a = b.saturating_sub(step).max(lo);
                    if a == lo || !at_least(a, c) {
                        break;
                    }
                    b = a;
                    step = step.saturating_mul(2);
                }
            } else {
                loop {
                    b = a.saturating_add(step).min(hi);
                    if at_least(b, c) {
                        break;
                    }
                    a = b;
                    step = step.saturating_mul(2);
                }
            }
            // q(-inf) = 0 < c: the bracket's bottom is short of c
            while b - a > 1 {
                let m = a + (b - a) / 2;
                if at_least(m, c) {
                    b = m;
                } else {
                    a = m;
                }
            }
            e.push(from_order(b));
        }
        e.push(f64::INFINITY);
        e.push(f64::INFINITY);
        e
    }

    /// Integer cell range of a box: the low corner's cells, then the high
    /// corner's (`[ix0, iy0, ix1, iy1]` in 2D).
    #[inline(always)]
    pub fn cells_of(&self, b: &[f64; N]) -> [u32; N] {
        std::array::from_fn(|c| self.cell(b[c], c % (N / 2)))
    }

    /// The integer low corner of a box.
    #[inline(always)]
    pub fn corner_of(&self, b: &[f64; N]) -> <[f64; N] as Row>::Corner {
        let mut q = <[f64; N] as Row>::Corner::default();
        for (k, v) in q.as_mut().iter_mut().enumerate() {
            *v = self.cell(b[k], k);
        }
        q
    }

    /// Unclamped level-`depth` coordinate of `v` along x (for positions inside a cell).
    #[inline(always)]
    pub fn fine_x(&self, v: f64) -> f64 {
        (v * 0.5 - self.origin(0) * 0.5) * self.scale(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn far_edge_is_the_last_cell() {
        let g = Grid::square([0.0, 0.0, 8.0, 8.0], 3);
        assert_eq!(g.cells_of(&[0.0, 0.0, 8.0, 8.0]), [0, 0, 7, 7]);
        assert_eq!(g.cells_of(&[-1.0, 3.0, 1e300, 3.0]), [0, 3, 7, 3]);
    }

    #[test]
    fn huge_world_stays_finite() {
        let g = Grid::square([-1.7e308, -1.0, 1.7e308, 1.0], 4);
        assert!(g.scale(0) > 0.0 && g.scale(0).is_finite());
        assert_eq!(g.cells_of(&[-1.7e308, 0.0, 1.7e308, 0.0])[2], 15);
    }

    /// Every edge is exact: the cell of a coordinate found by comparisons
    /// with the edges is its quantized one, at the edges, one double on
    /// either side, and anywhere (degenerate and huge worlds included).
    #[test]
    fn edges_split_the_axis_exactly_where_quantize_does() {
        let grids = [
            Grid::square([0.0, 0.0, 5000.0, 5000.0], 6),
            Grid::over([-3.3, 1e-3, 7.7, 2e-3], 5),
            Grid::square([-1.7e308, -1.0, 1.7e308, 1.0], 4),
            Grid::square([2.0, 2.0, 2.0, 2.0], 3),
            Grid::square([0.0, 0.0, 1.0, 1.0], 16),
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut rnd = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for g in grids {
            for axis in 0..2 {
                let e = g.edges(axis);
                let top = g.top() as usize;
                assert_eq!(e.len(), top + 3);
                assert_eq!((e[0], e[top + 1]), (f64::NEG_INFINITY, f64::INFINITY));
                let (o, s) = (g.origin(axis), g.scale(axis));
                let cell = |v: f64| quantize(v, o, s, top as u64) as usize;
                // the edges never decrease: the last one at or below v
                let by_edges = |v: f64| e.partition_point(|&x| x <= v) - 1;
                let mut probes = vec![f64::MIN, -1e300, -1.0, 0.0, 1e300, f64::MAX];
                for &v in &e[1..=top] {
                    if v.is_finite() {
                        let k = to_order(v);
                        probes.extend([from_order(k - 1), v, from_order(k + 1)]);
                    }
                }
                probes.extend((0..2000).map(|_| -10.0 + 6010.0 * rnd()));
                for v in probes {
                    assert_eq!(by_edges(v), cell(v), "axis {axis}, v {v}, {g:?}");
                }
            }
        }
    }

    #[test]
    fn subnormal_world_is_capped() {
        assert_eq!(scale(5e-324, 1024.0), MAX_SCALE);
        assert_eq!(scale(0.0, 8.0), 0.0);
        assert_eq!(scale(f64::INFINITY, 8.0), 0.0);
    }
}
