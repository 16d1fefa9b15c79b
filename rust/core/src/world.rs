//! The world a search quantizes into, computed without overflow.
//!
//! Kernels quantize a coordinate as `floor((v/2 - origin/2) * scale)`
//! ([`quantize`]).  Halves of finite floats never overflow when subtracted, so
//! even a world from -1.7e308 to 1.7e308 works; the scale is capped so that a
//! subnormal world gives a coarse but correct grid instead of an infinite one.
//! Correctness never depends on the scale, only on quantization being
//! monotone non-decreasing in `v`: a poor scale costs time, never pairs.

/// Largest scale ever used (cells per half unit).
pub const MAX_SCALE: f64 = 1e300;

/// `(hi - lo) / 2`, finite for any finite `lo <= hi`.
#[inline]
pub fn half_span(lo: f64, hi: f64) -> f64 {
    hi * 0.5 - lo * 0.5
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

/// How coordinates map to cells: origin and scale of each axis, and the depth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    /// World minimum x.
    pub x0: f64,
    /// World minimum y.
    pub y0: f64,
    /// Cells per half unit along x.
    pub sx: f64,
    /// Cells per half unit along y.
    pub sy: f64,
    /// Level of the finest cells: `2^depth` cells a side.
    pub depth: u32,
}

impl Grid {
    /// Square cells over `bounds`: both axes scaled by the longer half-span.
    pub fn square(bounds: [f64; 4], depth: u32) -> Grid {
        let half = half_span(bounds[0], bounds[2]).max(half_span(bounds[1], bounds[3]));
        let s = scale(half, (depth as f64).exp2());
        Grid {
            x0: bounds[0],
            y0: bounds[1],
            sx: s,
            sy: s,
            depth,
        }
    }

    /// Cells over `bounds`, each axis scaled to its own span (oblong cells).
    pub fn over(bounds: [f64; 4], depth: u32) -> Grid {
        let cells = (depth as f64).exp2();
        Grid {
            x0: bounds[0],
            y0: bounds[1],
            sx: scale(half_span(bounds[0], bounds[2]), cells),
            sy: scale(half_span(bounds[1], bounds[3]), cells),
            depth,
        }
    }

    /// Last cell coordinate, `2^depth - 1`.
    #[inline(always)]
    pub fn top(&self) -> u32 {
        ((1u64 << self.depth) - 1) as u32
    }

    /// Integer cell range `[ix0, iy0, ix1, iy1]` of a box.
    #[inline(always)]
    pub fn cells_of(&self, b: &[f64; 4]) -> [u32; 4] {
        let top = self.top() as u64;
        [
            quantize(b[0], self.x0, self.sx, top) as u32,
            quantize(b[1], self.y0, self.sy, top) as u32,
            quantize(b[2], self.x0, self.sx, top) as u32,
            quantize(b[3], self.y0, self.sy, top) as u32,
        ]
    }

    /// Unclamped level-`depth` coordinate of `v` along x (for positions inside a cell).
    #[inline(always)]
    pub fn fine_x(&self, v: f64) -> f64 {
        (v * 0.5 - self.x0 * 0.5) * self.sx
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
        assert!(g.sx > 0.0 && g.sx.is_finite());
        assert_eq!(g.cells_of(&[-1.7e308, 0.0, 1.7e308, 0.0])[2], 15);
    }

    #[test]
    fn subnormal_world_is_capped() {
        assert_eq!(scale(5e-324, 1024.0), MAX_SCALE);
        assert_eq!(scale(0.0, 8.0), 0.0);
        assert_eq!(scale(f64::INFINITY, 8.0), 0.0);
    }
}
