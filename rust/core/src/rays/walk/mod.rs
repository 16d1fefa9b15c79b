//! One ray's walk through a [`RayGrid`]: every cell the ray passes through
//! (and a few more), never fewer, in order along x, with a lower bound of
//! the ray's `s` in each; written once over the dimension (columns along
//! x, rows along y within a column, and in 3D layers along z within a
//! column's row).
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
//! below the margin.  The same holds on every axis: the bound is per
//! parameter, whatever the dimension.
//!
//! *Ends.*  The walk cuts the ray's `s` range at several parameters at
//! once: a cell's range of `s` is the greatest of some lower ends and the
//! least of some upper ends, each a computed parameter (or the clip's
//! `s0`, `s1` below, doubles taken as they are, with no error).  The
//! computed greatest `m = max x_i` and the true `M = max X_i` (`|x_i -
//! X_i| <= g |X_i| + 2^-1075`) differ by at most one term's error: `m - M
//! <= x_i - X_i` for the `i` of `m` and `M - m <= X_j - x_j` for the `j` of
//! `M`; and that term's `|X|` is at most `(|m| + 2^-1075)/(1 - g)` (its
//! computed value is `m`, or its true value is `M`, and either way it lies
//! within its error of `m`'s magnitude).  Likewise for the least.  So
//! every computed end `a` of a cell's range is within `3.0002u |a| +
//! 2^-1074` of the true end, **however many axes** took part: the bound
//! does not grow from columns to rows to layers.
//!
//! # The walk is conservative
//! A ray hits an object at points `P(s) = o + s d` strictly inside it, all
//! within the closed bounds `B` of the boxes and with `s` in `[0, S]`.
//! 1. *Clip.*  Per axis with `d != 0` (x, y, and z in 3D), the `s` where
//!    `P(s)` is in `B`'s slab run from the parameter of its near side to
//!    that of its far side, each widened outward: the range `[s0, s1]`
//!    contains the true one.  An axis with `d = 0` keeps everything or
//!    nothing (exact comparisons).
//! 2. *Columns.*  The true segment's `x` lies between `x(s0)` and `x(s1)`;
//!    each computed as `fl(o + fl(s d))` within `2u(|o| + |s d|)` plus the
//!    product's underflow, so widened by `2^-46 (|o| + |s d|) +
//!    2^-1070 (1 + |d|)` (`Axis::at`) and quantized (monotone) it gives a
//!    column range holding every column the segment meets.  Columns go in
//!    the ray's order along `x`: their `s` ranges increase.
//! 3. *Rows.*  In column `c` the segment's `s` lie in `[A, B] = [max(s0,
//!    P_near), min(s1, P_far)]` (the true parameters of the column's edges
//!    on the ray's entry and exit side); its `y`, monotone in `s`, between
//!    the `y` at the two ends.  The computed ends `a = max(s0, p_near)`,
//!    `b = min(s1, p_far)` are within `3.0002u |a| + 2^-1074` of the true
//!    ones (*Ends*); `y = fl(o + fl(s d))` adds its own rounding, so the
//!    true `y` at a true end lies within `5.001u (|o| + |s d|) + 2^-1074
//!    (1 + |d|)` of the computed one: inside the margin of step 2.  When
//!    `a > b` (rounding can cross them) the rows between the two still
//!    cover the true range, empty or not.  Column `c`'s exit parameter is
//!    column `c + 1`'s entry (the same edge, the same computation:
//!    computed once), and when the cut leaves it unchanged so is the row
//!    range at it.
//! 4. *Layers* (3D).  In row `r` of column `c` the segment's `s` lie in
//!    `[max(A, Q_near), min(B, Q_far)]`, `Q` the true parameters of the
//!    row's edges (`[A, B]` itself when `d_y = 0`: every row the column
//!    holds is then the one of `o_y`, up to the margin); the computed ends
//!    `max(a, q_near)`, `min(b, q_far)` are the greatest of `s0` and two
//!    computed parameters and the least of `s1` and two: within `3.0002u
//!    |a'| + 2^-1074` of the true ones (*Ends*), so the `z` at them,
//!    widened as in step 2, holds the true `z` at the true ends, and the
//!    layers between hold every layer the row's part of the segment
//!    meets, empty or not, as in step 3.  Row `r`'s exit parameter is row
//!    `r + 1`'s entry, computed once, and so the layer range at it when
//!    the cut leaves it unchanged.
//!
//! Every point of the true segment thus lies in a visited cell.  When a
//! computed value is not finite (coordinates near the ends of the doubles)
//! the walk gives up and the caller tests every object.
//!
//! # Lower bounds for the first hit
//! A cell's bound is its column's, `widen_down(min(a, b))`, raised to its
//! row's entry, `widen_down` of the parameter of the row's near edge, and
//! in 3D to its layer's entry likewise: each at or below the `s` of every
//! true point in the cell (for the column: `a` is `p_near` or `s0`, each
//! at or above its widened value, and later columns' points lie beyond
//! this column's entry; a point in a row or layer lies beyond its near
//! edge's true parameter).  An object whose hit points all lie in cells
//! not yet visited enters no earlier than the least such bound.  The walk
//! skips cells whose bound exceeds the caller's limit and stops at a
//! column whose does.
//!
//! # Cost in 2D
//! The dimension is a constant of each instance: the clip's loop over the
//! axes has a constant trip count, and the column's body is the row loop
//! of cells in 2D and the row loop of layer loops in 3D by a branch on
//! the constant (no layer is computed, stored or tested in 2D).

mod axis;
mod lines;

use super::grid::RayGrid;
use crate::dim::Row;
use axis::{widen_down, widen_up, Axis};
use lines::Part;

/// The ray's axes (x, y, z; z [`Axis::FLAT`] in 2D) and its clipped,
/// widened `s` range.
struct Ray {
    x: Axis,
    y: Axis,
    z: Axis,
    s0: f64,
    s1: f64,
}

/// A part of the ray's `s` range: `[a, b]` as computed (`a > b` possible,
/// when rounding crossed the ends of a tiny part).
type Span = (f64, f64);

/// A range of cell coordinates along one axis, `lo..=hi`.
type Range = (usize, usize);

impl<const N: usize> RayGrid<N>
where
    [f64; N]: Row,
{
    /// Every cell the ray `o + s d`, `s` in `[0, s_max]`, passes through, in
    /// order along x, each as `visit(objects)`; `limit()` (read before each
    /// cell) is the caller's current bound of the `s` it still needs: cells
    /// whose lower bound of the ray's `s` exceeds it are skipped.  `false`
    /// when the walk gave up (a value not finite): the caller then tests
    /// every object.
    #[inline]
    pub fn visit<L, V>(
        &self,
        o: <[f64; N] as Row>::Axes,
        d: <[f64; N] as Row>::Axes,
        s_max: f64,
        limit: L,
        mut visit: V,
    ) -> bool
    where
        L: Fn() -> f64,
        V: FnMut(&[u32]),
    {
        self.walk_cells(o, d, s_max, limit, |_, _, cell| visit(cell))
    }

    /// [`RayGrid::visit`], each cell as `visit(index, bound, objects)`:
    /// its index in the table and a lower bound of the `s` of the ray's
    /// points in it within the bounds (the full bound of the module's doc
    /// when `limit()` is finite, else the column's, or in 3D the row's).
    pub(super) fn walk_cells<L, V>(
        &self,
        o: <[f64; N] as Row>::Axes,
        d: <[f64; N] as Row>::Axes,
        s_max: f64,
        limit: L,
        mut visit: V,
    ) -> bool
    where
        L: Fn() -> f64,
        V: FnMut(usize, f64, &[u32]),
    {
        if self.is_empty() {
            return true;
        }
        let (o, d) = (o.as_ref(), d.as_ref());
        let axis = |k: usize| {
            if k < N / 2 {
                Axis::new(o[k], d[k])
            } else {
                Axis::FLAT
            }
        };
        let mut ray = Ray {
            x: axis(0),
            y: axis(1),
            z: axis(2),
            s0: 0.0,
            s1: s_max,
        };
        let Some(clip) = self.clip(&ray) else {
            return false;
        };
        let Some((s0, s1)) = clip else {
            return true;
        };
        (ray.s0, ray.s1) = (s0, s1);
        if d.iter().all(|&v| v == 0.0) {
            let mut c = 0;
            for k in (0..N / 2).rev() {
                c = c * self.side() + self.coord(k, o[k]);
            }
            visit(c, s0, self.cell(c));
            return true;
        }
        self.walk(&ray, &limit, &mut visit).is_some()
    }

    /// Axis `k` of the ray.
    #[inline(always)]
    fn axis(ray: &Ray, k: usize) -> &Axis {
        match k {
            0 => &ray.x,
            1 => &ray.y,
            _ => &ray.z,
        }
    }

    /// The widened `s` range of the ray (its `s1` the ray's `s_max`) within
    /// the bounds (`None` inside when it misses them); `None` when a value
    /// is not finite.
    fn clip(&self, ray: &Ray) -> Option<Option<(f64, f64)>> {
        let b = self.bounds();
        let (mut s0, mut s1) = (0.0f64, ray.s1);
        for k in 0..N / 2 {
            let a = Self::axis(ray, k);
            let (lo, hi) = (b[k], b[N / 2 + k]);
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

    /// The columns in the ray's order and their cells; `None` when it gave
    /// up.
    fn walk<L, V>(&self, ray: &Ray, limit: &L, visit: &mut V) -> Option<()>
    where
        L: Fn() -> f64,
        V: FnMut(usize, f64, &[u32]),
    {
        let (x, s0, s1) = (&ray.x, ray.s0, ray.s1);
        if x.d == 0.0 {
            let rows = self.between(&ray.y, 1, s0, s1)?;
            let col = Part {
                at: self.coord(0, x.o),
                span: (s0, s1),
                next: rows,
                bound: widen_down(s0),
            };
            return self.column(ray, &col, limit, visit);
        }
        // the column range (step 2)
        let (a, b) = (x.at(s0), x.at(s1));
        if !(a.0.is_finite() && a.1.is_finite() && b.0.is_finite() && b.1.is_finite()) {
            return None;
        }
        let (lo, hi) = (self.coord(0, a.0.min(b.0)), self.coord(0, a.1.max(b.1)));
        let ex = self.edges(0);
        let fwd = x.d > 0.0;
        let (mut c, last) = if fwd { (lo, hi) } else { (hi, lo) };
        let mut near = x.near(ex, c);
        // the row range at the previous column's exit
        let mut carry: Option<(f64, Range)> = None;
        loop {
            let far = x.far(ex, c);
            let (sa, sb) = (near.max(s0), far.min(s1));
            let col_bound = widen_down(sa.min(sb));
            if col_bound > limit() {
                return Some(());
            }
            // step 3
            let ra = match carry {
                Some((s, r)) if s == sa => r,
                _ => self.cells_at(&ray.y, 1, sa)?,
            };
            let rb = self.cells_at(&ray.y, 1, sb)?;
            carry = Some((sb, rb));
            let col = Part {
                at: c,
                span: (sa, sb),
                next: (ra.0.min(rb.0), ra.1.max(rb.1)),
                bound: col_bound,
            };
            self.column(ray, &col, limit, visit)?;
            if c == last {
                return Some(());
            }
            c = if fwd { c + 1 } else { c - 1 };
            near = far;
        }
    }

    /// The cells along `axis` holding the widened coordinate at `s`;
    /// `None` when not finite.
    #[inline(always)]
    fn cells_at(&self, a: &Axis, axis: usize, s: f64) -> Option<Range> {
        let (lo, hi) = a.at(s);
        (lo.is_finite() && hi.is_finite()).then(|| (self.coord(axis, lo), self.coord(axis, hi)))
    }

    /// The cells along `axis` between the widened coordinates at `sa` and
    /// at `sb`.
    #[inline(always)]
    fn between(&self, a: &Axis, axis: usize, sa: f64, sb: f64) -> Option<Range> {
        let (p, q) = (self.cells_at(a, axis, sa)?, self.cells_at(a, axis, sb)?);
        Some((p.0.min(q.0), p.1.max(q.1)))
    }
}

#[cfg(test)]
mod tests;
