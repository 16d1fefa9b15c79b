//! One ray's walk through a [`RayGrid`]: every cell the ray passes through
//! (and a few more), never fewer, in order along x, with a lower bound of
//! the ray's `s` in each.
//!
//! # Parameters of coordinates
//! Per axis with `d != 0` the walk needs the `s` where the ray's coordinate
//! is a given double `e` (a side of the bounds, an edge of a cell), the true
//! `P = (e - o)/d`.  It takes `r = fl(1/d)` once per ray and computes
//! `p = fl(fl(e - o) r)`: one subtraction and one product per edge, no
//! division.  Each operation rounds to nearest: the difference within a
//! relative `u = 2^-53` (a difference of doubles that lands among the
//! subnormals is exact), the reciprocal within a relative `u` (it is used
//! only when it is a normal double, `2^-1024 < |d| < 2^1022`; otherwise the
//! walk divides, `fl(fl(e - o)/d)`, two roundings) and the product within a
//! relative `u` or, when it underflows, an absolute `2^-1075`.  So
//!
//! `|p - P| <= g |P| + 2^-1075`, `g = (1 + u)^3 - 1 < 3.0001 u`,
//!
//! whenever `p` is finite.  `p` is monotone in `e` (every rounding is, and
//! `r` has the sign of `d`): edges in order give parameters in order, and an
//! infinite edge gives the infinite parameter of the right sign, exactly.
//! Widened by a relative `2^-46 = 128 u` plus `2^-1070` (`widen_down`,
//! `widen_up`) a parameter bounds the true one, with ample room for the
//! widening's own rounding: `g (|p| + 2^-1075) / (1 - g) + 2^-1075` is far
//! below the margin.
//!
//! # The walk is conservative
//! A ray hits an object at points `P(s) = o + s d` strictly inside it, all
//! within the closed bounds `B` of the boxes and with `s` in `[0, S]`.
//! 1. *Clip.*  Per axis with `d != 0`, the `s` where `P(s)` is in `B`'s
//!    slab run from the parameter of its near side to that of its far
//!    side, each widened outward: the range `[s0, s1]` contains the true
//!    one.  An axis with `d = 0` keeps everything or nothing (exact
//!    comparisons).
//! 2. *Columns.*  The true segment's `x` lies between `x(s0)` and `x(s1)`;
//!    each computed as `fl(o + fl(s d))` within `2u(|o| + |s d|)` plus the
//!    product's underflow, so widened by `2^-46 (|o| + |s d|) +
//!    2^-1070 (1 + |d|)` (`Axis::at`) and quantized (monotone) it gives a
//!    column range holding every column the segment meets.  Columns go in
//!    the ray's order along `x`: their `s` ranges increase.
//! 3. *Rows.*  In column `c` the segment's `s` lie in `[P_near, P_far]`
//!    (the true parameters of the column's edges on the ray's entry and
//!    exit side) cut to `[s0, s1]`; its `y` between the `y` at the two
//!    ends.  The computed ends `a = max(p_near, s0)`, `b = min(p_far, s1)`
//!    differ from the true ones by at most the parameters' error (`max`
//!    and `min` are 1-Lipschitz), under `3.0002u |a| + 2^-1074`; `y =
//!    fl(o + fl(s d))` adds its own rounding, so the true `y` at a true end
//!    lies within `5.001u (|o| + |s d|) + 2^-1074 (1 + |d|)` of the
//!    computed one: inside the margin of step 2.  When `a > b` (rounding
//!    can cross them) the rows between the two still cover the true
//!    range, empty or not.  Column `c`'s exit parameter is column `c + 1`'s
//!    entry (the same edge, the same computation: computed once), and when
//!    the cut leaves it unchanged so is the row range at it.
//!
//! Every point of the true segment thus lies in a visited cell.  When a
//! computed value is not finite (coordinates near the ends of the doubles)
//! the walk gives up and the caller tests every object.
//!
//! # Lower bounds for the first hit
//! A cell's bound is its column's, `widen_down(min(a, b))`, raised to its
//! row's entry, `widen_down` of the parameter of the row's near edge: both
//! at or below the `s` of every true point in the cell (for the column:
//! `a` is `p_near` or `s0`, each at or above its widened value, and later
//! columns' points lie beyond this column's entry).  An object whose hit
//! points all lie in cells not yet visited enters no earlier than the least
//! such bound.  The walk skips cells whose bound exceeds the caller's limit
//! and stops at a column whose does.

use super::grid::RayGrid;

/// Relative widening of a computed value (far above its `3.0001u` error).
const WIDEN: f64 = f64::from_bits((1023 - 46) << 52); // 2^-46
/// Absolute widening (far above an underflow's `2^-1075`).
const TINY: f64 = f64::from_bits(1 << 4); // 2^-1070

fn widen_down(v: f64) -> f64 {
    v - v.abs() * WIDEN - TINY
}

fn widen_up(v: f64) -> f64 {
    v + v.abs() * WIDEN + TINY
}

/// One axis of a ray `o + s d`.
#[derive(Clone, Copy)]
struct Axis {
    o: f64,
    d: f64,
    /// `fl(1/d)` when that is a normal double, else 0 (then the walk divides).
    inv: f64,
    /// The absolute part of [`Axis::at`]'s margin, `2^-1070 (1 + |d|)`.
    tiny: f64,
}

impl Axis {
    fn new(o: f64, d: f64) -> Axis {
        let inv = 1.0 / d;
        Axis {
            o,
            d,
            inv: if inv.is_normal() { inv } else { 0.0 },
            tiny: TINY * (1.0 + d.abs()),
        }
    }

    /// The `s` where the coordinate is `e` (`d != 0`): within `3.0001u |s|
    /// + 2^-1075` of the true value when finite, monotone in `e`.
    #[inline(always)]
    fn param(&self, e: f64) -> f64 {
        if self.inv != 0.0 {
            (e - self.o) * self.inv
        } else {
            (e - self.o) / self.d
        }
    }

    /// The coordinate at `s`, widened to an interval holding the true one
    /// (also at any `s'` within a parameter's error of `s`).
    #[inline(always)]
    fn at(&self, s: f64) -> (f64, f64) {
        let sd = s * self.d;
        let v = self.o + sd;
        let m = (self.o.abs() + sd.abs()) * WIDEN + self.tiny;
        (v - m, v + m)
    }
}

/// The ray's axes and its clipped, widened `s` range.
struct Ray {
    x: Axis,
    y: Axis,
    s0: f64,
    s1: f64,
}

impl RayGrid {
    /// Every cell the ray `o + s d`, `s` in `[0, s_max]`, passes through, in
    /// order along x, each as `visit(objects)`; `limit()` (read before each
    /// cell) is the caller's current bound of the `s` it still needs: cells
    /// whose lower bound of the ray's `s` exceeds it are skipped.  `false`
    /// when the walk gave up (a value not finite): the caller then tests
    /// every object.
    pub fn visit<L, V>(&self, o: [f64; 2], d: [f64; 2], s_max: f64, limit: L, mut visit: V) -> bool
    where
        L: Fn() -> f64,
        V: FnMut(&[u32]),
    {
        if self.is_empty() {
            return true;
        }
        let (x, y) = (Axis::new(o[0], d[0]), Axis::new(o[1], d[1]));
        let Some(clip) = self.clip(&x, &y, s_max) else {
            return false;
        };
        let Some((s0, s1)) = clip else {
            return true;
        };
        if d[0] == 0.0 && d[1] == 0.0 {
            visit(self.cell(self.column(o[0]), self.row(o[1])));
            return true;
        }
        self.walk(&Ray { x, y, s0, s1 }, &limit, &mut visit)
            .is_some()
    }

    /// The widened `s` range of the ray within the bounds (`None` inside
    /// when it misses them); `None` when a value is not finite.
    fn clip(&self, x: &Axis, y: &Axis, s_max: f64) -> Option<Option<(f64, f64)>> {
        let b = self.bounds();
        let (mut s0, mut s1) = (0.0f64, s_max);
        for (k, a) in [(0, x), (1, y)] {
            let (lo, hi) = (b[k], b[k + 2]);
            if a.d == 0.0 {
                if a.o < lo || a.o > hi {
                    return Some(None);
                }
                continue;
            }
            // monotone: the near side's parameter is the lesser
            let (p, q) = if a.d > 0.0 {
                (a.param(lo), a.param(hi))
            } else {
                (a.param(hi), a.param(lo))
            };
            if !(p.is_finite() && q.is_finite()) {
                return None;
            }
            s0 = s0.max(widen_down(p));
            s1 = s1.min(widen_up(q));
        }
        Some((s0 <= s1).then_some((s0, s1)))
    }

    /// The columns in the ray's order and their rows; `None` when it gave up.
    fn walk<L, V>(&self, ray: &Ray, limit: &L, visit: &mut V) -> Option<()>
    where
        L: Fn() -> f64,
        V: FnMut(&[u32]),
    {
        let (x, s0, s1) = (&ray.x, ray.s0, ray.s1);
        if x.d == 0.0 {
            let rows = self.rows_between(ray, s0, s1)?;
            return self.column_cells(ray, self.column(x.o), rows, widen_down(s0), limit, visit);
        }
        // the column range (step 2)
        let (a, b) = (x.at(s0), x.at(s1));
        if !(a.0.is_finite() && a.1.is_finite() && b.0.is_finite() && b.1.is_finite()) {
            return None;
        }
        let (lo, hi) = (self.column(a.0.min(b.0)), self.column(a.1.max(b.1)));
        let ex = self.edges(0);
        let fwd = x.d > 0.0;
        let (mut c, last) = if fwd { (lo, hi) } else { (hi, lo) };
        // column c spans [ex[c], ex[c + 1]]: entered at ex[c] going forward
        let mut near = x.param(ex[if fwd { c } else { c + 1 }]);
        // the row range at the previous column's exit
        let mut carry: Option<(f64, (usize, usize))> = None;
        loop {
            let far = x.param(ex[if fwd { c + 1 } else { c }]);
            let (sa, sb) = (near.max(s0), far.min(s1));
            let col_bound = widen_down(sa.min(sb));
            if col_bound > limit() {
                return Some(());
            }
            // step 3
            let ra = match carry {
                Some((s, r)) if s == sa => r,
                _ => self.rows_at(&ray.y, sa)?,
            };
            let rb = self.rows_at(&ray.y, sb)?;
            carry = Some((sb, rb));
            let rows = (ra.0.min(rb.0), ra.1.max(rb.1));
            self.column_cells(ray, c, rows, col_bound, limit, visit)?;
            if c == last {
                return Some(());
            }
            c = if fwd { c + 1 } else { c - 1 };
            near = far;
        }
    }

    /// The rows holding the widened `y` at `s`; `None` when not finite.
    #[inline(always)]
    fn rows_at(&self, y: &Axis, s: f64) -> Option<(usize, usize)> {
        let (lo, hi) = y.at(s);
        (lo.is_finite() && hi.is_finite()).then(|| (self.row(lo), self.row(hi)))
    }

    /// The rows between the widened `y` at `sa` and at `sb`.
    fn rows_between(&self, ray: &Ray, sa: f64, sb: f64) -> Option<(usize, usize)> {
        let (a, b) = (self.rows_at(&ray.y, sa)?, self.rows_at(&ray.y, sb)?);
        Some((a.0.min(b.0), a.1.max(b.1)))
    }

    /// The non-empty cells of column `col` in `rows`, in the ray's order
    /// along y, each with its bound checked against the limit.
    fn column_cells<L, V>(
        &self,
        ray: &Ray,
        col: usize,
        rows: (usize, usize),
        col_bound: f64,
        limit: &L,
        visit: &mut V,
    ) -> Option<()>
    where
        L: Fn() -> f64,
        V: FnMut(&[u32]),
    {
        let y = &ray.y;
        let ey = self.edges(1);
        let (lo, hi) = rows;
        for k in 0..=hi - lo {
            let r = if y.d >= 0.0 { lo + k } else { hi - k };
            let cell = self.cell(col, r);
            if cell.is_empty() {
                continue;
            }
            let most = limit();
            if most < f64::INFINITY {
                // the row's entry: where y reaches the row's near edge
                let mut bound = col_bound;
                if y.d != 0.0 {
                    let s = y.param(if y.d > 0.0 { ey[r] } else { ey[r + 1] });
                    if s.is_finite() {
                        bound = bound.max(widen_down(s));
                    }
                }
                if bound > most {
                    continue;
                }
            }
            visit(cell);
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bigint::Dyadic;
    use crate::check::bounds_of;
    use crate::par::Exec;

    /// A bound of `s`: `num / den` (`den > 0`) and whether it is attained.
    type Bound = (Dyadic, Dyadic, bool);

    /// Whether the ray's true segment, `s` in `[0, s_max]`, has a point in
    /// the cell `[lo[0], hi[0]) x [lo[1], hi[1])` (edges possibly infinite)
    /// within the closed bounds `b`: exact, by the signs of cross products
    /// of dyadic numbers.
    fn meets(o: [f64; 2], d: [f64; 2], s_max: f64, cell: [f64; 4], b: [f64; 4]) -> bool {
        let one = || Dyadic::of(1.0);
        let mut lows: Vec<Bound> = vec![(Dyadic::zero(), one(), true)];
        let mut ups: Vec<Bound> = vec![];
        if s_max.is_finite() {
            ups.push((Dyadic::of(s_max), one(), true));
        }
        // (axis, edge, whether a lower edge, whether closed)
        let sides = [
            (0, cell[0], true, true),
            (1, cell[1], true, true),
            (0, cell[2], false, false),
            (1, cell[3], false, false),
            (0, b[0], true, true),
            (1, b[1], true, true),
            (0, b[2], false, true),
            (1, b[3], false, true),
        ];
        for (k, e, is_lo, closed) in sides {
            if e.is_infinite() {
                if (e > 0.0) == is_lo {
                    return false;
                }
                continue;
            }
            if d[k] == 0.0 {
                let inside = match (is_lo, closed) {
                    (true, true) => e <= o[k],
                    (true, false) => e < o[k],
                    (false, true) => o[k] <= e,
                    (false, false) => o[k] < e,
                };
                if !inside {
                    return false;
                }
                continue;
            }
            let num = Dyadic::of(e) - Dyadic::of(o[k]);
            let (num, den) = if d[k] > 0.0 {
                (num, Dyadic::of(d[k]))
            } else {
                (-num, Dyadic::of(-d[k]))
            };
            // d > 0: a lower edge gives a lower bound of s; d < 0 flips it
            if is_lo == (d[k] > 0.0) {
                lows.push((num, den, closed));
            } else {
                ups.push((num, den, closed));
            }
        }
        lows.iter().all(|l| {
            ups.iter().all(|u| {
                let c = (l.0.clone() * u.1.clone() - u.0.clone() * l.1.clone()).sign();
                c < 0 || (c == 0 && l.2 && u.2)
            })
        })
    }

    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) as usize) % n
        }
    }

    /// Checks one ray against every cell of `grid` (the points of the
    /// segment within the objects' bounds: no object reaches beyond);
    /// `false` when the walk gave up.
    fn check_ray(grid: &RayGrid, o: [f64; 2], d: [f64; 2], s_max: f64, limit: f64) -> bool {
        let mut seen: Vec<*const u32> = vec![];
        let walked = grid.visit(o, d, s_max, || limit, |cell| seen.push(cell.as_ptr()));
        if !walked {
            return false;
        }
        let (ex, ey) = (grid.edges(0), grid.edges(1));
        let side = ex.len() - 2;
        // the segment the limit still asks for
        let upto = s_max.min(limit);
        for r in 0..side {
            for c in 0..side {
                let cell = grid.cell(c, r);
                if cell.is_empty() || upto < 0.0 {
                    continue;
                }
                if meets(
                    o,
                    d,
                    upto,
                    [ex[c], ey[r], ex[c + 1], ey[r + 1]],
                    grid.bounds(),
                ) {
                    assert!(
                        seen.contains(&cell.as_ptr()),
                        "cell ({c}, {r}) skipped by the ray {o:?} + s {d:?}, s <= {upto:e}"
                    );
                }
            }
        }
        true
    }

    /// Rays through cell corners and along cell edges exactly, near-axis
    /// and diagonal, with huge and tiny coordinates and directions, and
    /// with finite limits: the walk visits every non-empty cell the exact
    /// segment has a point in (the `s` up to the limit).
    #[test]
    fn the_walk_misses_no_cell_a_ray_passes_through() {
        let mut rng = Rng(7);
        let (mut rays, mut gave_up) = (0, 0);
        for scale in [1.0, 0.375, 2f64.powi(-1060), 2f64.powi(-30), 2f64.powi(990)] {
            // a lattice of unit boxes with gaps, and a few long ones
            let mut boxes = vec![];
            for i in 0..10 {
                for j in 0..10 {
                    if (i * 7 + j * 3) % 5 != 0 {
                        let (x, y) = (i as f64 * scale, j as f64 * scale);
                        boxes.push([x, y, x + scale, y + scale]);
                    }
                }
            }
            boxes.push([0.0, 4.5 * scale, 10.0 * scale, 4.75 * scale]);
            let grid = RayGrid::new(&boxes, bounds_of(&boxes), &Exec::serial());
            let (ex, ey) = (grid.edges(0).to_vec(), grid.edges(1).to_vec());
            let finite = |e: &[f64]| {
                e.iter()
                    .copied()
                    .filter(|v| v.is_finite())
                    .collect::<Vec<_>>()
            };
            let (fx, fy) = (finite(&ex), finite(&ey));
            assert!(fx.len() >= 4 && fy.len() >= 4, "a grid of several cells");
            let tiny = f64::from_bits(1);
            let dirs: Vec<[f64; 2]> = vec![
                [1.0, 0.0],
                [-1.0, 0.0],
                [0.0, 1.0],
                [0.0, -1.0],
                [-0.0, 1.0],
                [1.0, 1.0],
                [-1.0, 1.0],
                [1.0, -2.0],
                [3.0, 1.0],
                [1.0, 2f64.powi(-40)],
                [-1.0, -(2f64.powi(-52))],
                [2f64.powi(-45), -1.0],
                [1.0, tiny],
                [tiny, 0.0],
                [-tiny, tiny],
                [1e308, -1e308],
                [0.0, 0.0],
            ];
            let s_maxes = [f64::INFINITY, 0.0, 1.0, 2.5];
            let limits = [f64::INFINITY, 0.0, 0.75, 3.0];
            for round in 0..1500 {
                // origin: a corner, an edge's middle or a point outside
                let (i, j) = (rng.below(fx.len()), rng.below(fy.len()));
                let mut o = [fx[i], fy[j]];
                match round % 4 {
                    1 if i + 1 < fx.len() => o[0] = fx[i] + (fx[i + 1] - fx[i]) / 2.0,
                    2 => o[1] -= 3.0 * scale,
                    _ => {}
                }
                // direction: one of the list, or corner to corner (exact
                // when the differences are), at the grid's scale or not
                let mut d = if round % 3 == 0 {
                    let (k, l) = (rng.below(fx.len()), rng.below(fy.len()));
                    [fx[k] - o[0], fy[l] - o[1]]
                } else {
                    let d = dirs[rng.below(dirs.len())];
                    let k = [1.0, scale][rng.below(2)];
                    [d[0] * k, d[1] * k]
                };
                if !(d[0].is_finite() && d[1].is_finite()) {
                    d = [1.0, 0.0];
                }
                let s_max = s_maxes[rng.below(s_maxes.len())];
                let limit = limits[rng.below(limits.len())];
                rays += 1;
                if !check_ray(&grid, o, d, s_max, limit) {
                    gave_up += 1;
                    let tame = |v: f64| {
                        v == 0.0 || (v.abs() > 2f64.powi(-900) && v.abs() < 2f64.powi(900))
                    };
                    assert!(
                        !(tame(o[0]) && tame(o[1]) && tame(d[0]) && tame(d[1])),
                        "the walk gave up on {o:?} + s {d:?}"
                    );
                }
            }
        }
        // the walk gives up only near the ends of the doubles (a subnormal
        // direction, coordinates near 2^1024): not on most rays
        assert!(gave_up * 5 < rays, "{gave_up} of {rays} rays gave up");
    }
}
