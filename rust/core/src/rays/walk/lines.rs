//! Inside a column: its rows (steps 3 and 4 of `super`'s proof), each the
//! line of its cells in 2D, of its layers in 3D, and the lower bound of
//! each cell ("Lower bounds for the first hit").
//!
//! A line is the cells at `at + i side^k` for `i` in a range along axis `k`
//! (rows along y in 2D, layers along z in 3D), taken in the ray's order
//! along that axis; each non-empty cell's bound is the line's own raised
//! to the cell's entry along `k`, computed only when the caller's limit
//! is finite (a cast of every hit never reads it).

use super::axis::{lower, Axis};
use super::{Range, Ray, Span};
use crate::dim::Row;
use crate::rays::grid::RayGrid;

/// A column's (in 3D also a row's) share of the walk.
#[derive(Clone, Copy)]
pub(super) struct Part {
    /// The index of its first cell (the column's at row 0, the row's at
    /// layer 0).
    pub(super) at: usize,
    /// Its part of the ray's `s` range, as computed.
    pub(super) span: Span,
    /// The cells along the next axis that part meets.
    pub(super) next: Range,
    /// A lower bound of the `s` of the ray's points in it.
    pub(super) bound: f64,
}

impl<const N: usize> RayGrid<N>
where
    [f64; N]: Row,
{
    /// A column's cells: its rows' cells in 2D, its rows' layers in 3D (a
    /// branch on the constant `N`).
    #[inline(always)]
    pub(super) fn column<L, V>(
        &self,
        ray: &Ray,
        part: &Part,
        limit: &L,
        visit: &mut V,
    ) -> Option<()>
    where
        L: Fn() -> f64,
        V: FnMut(usize, f64, &[u32]),
    {
        if N / 2 == 2 {
            self.line(&ray.y, 1, part, limit, visit);
            Some(())
        } else {
            self.rows(ray, part, limit, visit)
        }
    }

    /// A column's rows in the ray's order along y, each the line of its
    /// layers (3D; step 4); `None` when a layer range is not finite.
    fn rows<L, V>(&self, ray: &Ray, col: &Part, limit: &L, visit: &mut V) -> Option<()>
    where
        L: Fn() -> f64,
        V: FnMut(usize, f64, &[u32]),
    {
        let (y, side) = (&ray.y, self.side());
        let ey = self.edges(1);
        let (lo, hi) = col.next;
        let (sa, sb) = col.span;
        let flat = y.d == 0.0;
        let mut near = if flat {
            f64::NEG_INFINITY
        } else {
            y.near(ey, if y.forward() { lo } else { hi })
        };
        // the layer range at the previous row's exit
        let mut carry: Option<(f64, Range)> = None;
        for k in 0..=hi - lo {
            let r = if y.forward() { lo + k } else { hi - k };
            // the row's part of the column's span, and its bound
            let row = if flat {
                *col
            } else {
                let far = y.far(ey, r);
                let bound = col.bound.max(lower(near));
                let span = (near.max(sa), far.min(sb));
                near = far;
                Part {
                    bound,
                    span,
                    ..*col
                }
            };
            let (ra, rb) = row.span;
            let la = match carry {
                Some((s, l)) if s == ra => l,
                _ => self.cells_at(&ray.z, 2, ra)?,
            };
            let lb = self.cells_at(&ray.z, 2, rb)?;
            carry = Some((rb, lb));
            let part = Part {
                at: col.at + r * side,
                next: (la.0.min(lb.0), la.1.max(lb.1)),
                ..row
            };
            self.line(&ray.z, 2, &part, limit, visit);
        }
        Some(())
    }

    /// The non-empty cells of `part`'s line along `axis` (`a` the ray's
    /// axis there), in the ray's order along it, each with its bound
    /// checked against the limit.
    #[inline(always)]
    fn line<L, V>(&self, a: &Axis, axis: usize, part: &Part, limit: &L, visit: &mut V)
    where
        L: Fn() -> f64,
        V: FnMut(usize, f64, &[u32]),
    {
        let e = self.edges(axis);
        // rows (axis 1) a side apart, layers (axis 2) a side's square
        let stride = if axis == 1 {
            self.side()
        } else {
            self.side() * self.side()
        };
        let (lo, hi) = part.next;
        for k in 0..=hi - lo {
            let i = if a.forward() { lo + k } else { hi - k };
            let c = part.at + i * stride;
            let cell = self.cell(c);
            if cell.is_empty() {
                continue;
            }
            let most = limit();
            let mut bound = part.bound;
            if most < f64::INFINITY {
                // the cell's entry along the axis
                bound = bound.max(a.entry_bound(e, i));
                if bound > most {
                    continue;
                }
            }
            visit(c, bound, cell);
        }
    }
}
