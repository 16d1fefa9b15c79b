//! Where a ray's candidate objects come from: the cells it passes through.
//!
//! A cast ([`super::cast_over`]) asks its [`Cells`] for the candidates of
//! each ray, cell after cell along it, and tests each candidate once (a
//! stamp per object and ray), exactly.  What every source guarantees:
//! every object that some point `o + s d`, `s` in `[0, s_max]`, lies
//! strictly inside is among the candidates of a visited cell, unless every
//! `s` of that cell's points exceeds the caller's `limit()` (read before
//! each cell: the bound of the entries it still needs).  [`RayGrid`] is the
//! uniform grid a cast builds over its objects (in 2D or 3D: boxes of `N`
//! doubles, points of `N / 2`); the moving tree walks its own cells
//! (`crate::tree`).

use super::RayGrid;
use crate::dim::Row;

/// The cells a ray passes through, and their candidate objects, for
/// objects whose boxes are rows of `N` doubles (points and directions of
/// `N / 2`: [`Row::Axes`]).
pub trait Cells<const N: usize>: Sync
where
    [f64; N]: Row,
{
    /// The candidates of every cell the ray `o + s d`, `s` in `[0, s_max]`,
    /// passes through, each cell as `visit(objects)`, in order along the
    /// ray as far as `limit()` needs; `false` when the walk gave up (then
    /// the caller tests every object).
    fn visit<L, V>(
        &self,
        o: <[f64; N] as Row>::Axes,
        d: <[f64; N] as Row>::Axes,
        s_max: f64,
        limit: L,
        visit: V,
    ) -> bool
    where
        L: Fn() -> f64,
        V: FnMut(&[u32]);

    /// The candidates of the cell holding `p`, to ask memory for ahead of a
    /// ray from `p` (empty when not known at once).
    fn first_cell(&self, _p: <[f64; N] as Row>::Axes) -> &[u32] {
        &[]
    }
}

impl<const N: usize> Cells<N> for RayGrid<N>
where
    [f64; N]: Row,
{
    fn visit<L, V>(
        &self,
        o: <[f64; N] as Row>::Axes,
        d: <[f64; N] as Row>::Axes,
        s_max: f64,
        limit: L,
        visit: V,
    ) -> bool
    where
        L: Fn() -> f64,
        V: FnMut(&[u32]),
    {
        RayGrid::visit(self, o, d, s_max, limit, visit)
    }

    fn first_cell(&self, p: <[f64; N] as Row>::Axes) -> &[u32] {
        self.cell_of(p)
    }
}
