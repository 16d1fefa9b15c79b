//! Ray casts at the tree's live objects, answered in handles.
//!
//! Two ways, the same answers (both exact, each tested against the naive
//! casts):
//! * few short rays walk the tree's own cells (`ray_cells`): the lists
//!   brought up to date, then each ray's candidates are the objects of the
//!   cells along it, at every level; rows are slots, so handles;
//! * otherwise (many rays, or an infinite one) the live objects are read as
//!   rows (the slots themselves when none is free, else the live slots
//!   gathered in ascending order, `live_rows`) and handed to
//!   [`crate::rays`], which builds its uniform grid over them for the call.
//!   Rows ascend with handles, so the rays' rule "ties go to the lower
//!   index" is "to the lower handle" and rows `(ray, object)` sorted by row
//!   are sorted by handle: mapping rows to handles keeps every answer's
//!   order.
//!
//! The policy's `ray_walk_share` chooses (a cast's rays' pieces against
//! the live objects: a walk costs its pieces, a grid a pass or two over the
//! objects).  Shapes: plain boxes, or boxes and balls together
//! ([`crate::rays::Mixed`], exact across kinds).  A 3D tree (an octree)
//! always takes the grid: the walk of its own cells is 2D so far.

use super::ray_cells::TreeCells;
use super::{Tree, TreeRow};
use crate::dim::{BallRow, Row};
use crate::narrow::{Narrow, Shapes};
use crate::pairs::TooMany;
use crate::par::Exec;
use crate::rays::{
    cast_at, cast_over, Balls, Boxes, Cast, Circles, Hits, Mixed, Mode, Rays, Target,
};

impl<const N: usize, const C: usize, const D: usize> Tree<N>
where
    [f64; N]: TreeRow<N> + Row<Ball = [f64; C], Axes = [f64; D]>,
    [f64; C]: BallRow<D>,
{
    /// `f` of the live objects as rows: their boxes, their narrow phase
    /// (shapes and filters) and the handle of each row (`None`: every slot
    /// is live, a row is its handle).
    pub(super) fn live_rows<R>(
        &self,
        f: impl FnOnce(&[[f64; N]], Narrow, Option<&[u32]>) -> R,
    ) -> R {
        let objects = &self.objects;
        if objects.dense() {
            return f(&objects.boxes, objects.narrow(), None);
        }
        let ids: Vec<u32> = objects.live().map(|h| h as u32).collect();
        let rows = objects.gather(&ids);
        f(&rows.boxes, rows.narrow(objects.narrow()), Some(&ids))
    }

    /// [`Tree::cast_rays`] through a grid built for the call over the live
    /// objects read as rows (answers in handles).
    pub fn cast_by_grid(&self, rays: &Rays<D>, mode: Mode, ex: &Exec) -> Result<Hits, TooMany> {
        self.live_rows(|boxes, narrow, ids| {
            let ignore: Option<Vec<i64>> = match (rays.ignore, ids) {
                (Some(g), Some(ids)) => Some(g.iter().map(|&h| row_of(ids, h)).collect()),
                _ => None,
            };
            let cast = Cast {
                rays: Rays {
                    ignore: ignore.as_deref().or(rays.ignore),
                    ..*rays
                },
                objects: narrow.filters,
                mode,
                max_hits: None,
            };
            let (kinds, balls) = <[f64; N]>::balls(&narrow.shapes);
            let hits = match kinds {
                None if balls.is_empty() => cast_at(&Boxes(boxes), &cast, ex),
                None => cast_at(&Balls { balls, boxes }, &cast, ex),
                Some(kinds) => {
                    let mixed = Mixed {
                        kinds,
                        circles: balls,
                        boxes,
                    };
                    cast_at(&mixed, &cast, ex)
                }
            };
            hits.map(|hits| match ids {
                None => hits,
                Some(ids) => to_handles(hits, ids),
            })
        })
    }
}

impl Tree<6> {
    /// Cast `rays` at the live objects of a 3D tree with their categories
    /// and masks; `rays.ignore` holds handles (one not live ignores
    /// nothing).  The answer names objects by handle; [`TooMany`] as
    /// [`crate::rays::cast_boxes`].
    pub fn cast_rays(&mut self, rays: &Rays<3>, mode: Mode, ex: &Exec) -> Result<Hits, TooMany> {
        self.cast_by_grid(rays, mode, ex)
    }
}

impl Tree {
    /// Cast `rays` at the live objects with their categories and masks;
    /// `rays.ignore` holds handles (one not live ignores nothing).  The
    /// answer names objects by handle; [`TooMany`] as
    /// [`crate::rays::cast_boxes`].  Few rays walk the tree's own cells
    /// (`ray_cells`), many a grid built for the call: the same answers.
    pub fn cast_rays(&mut self, rays: &Rays, mode: Mode, ex: &Exec) -> Result<Hits, TooMany> {
        if let Some(hits) = self.cast_walking(rays, mode, ex) {
            return hits;
        }
        self.cast_by_grid(rays, mode, ex)
    }

    /// [`Tree::cast_rays`] of `rays` if it walks the tree's cells (few
    /// short rays: a short call), else `None` having done nothing.
    pub fn cast_walking(
        &mut self,
        rays: &Rays,
        mode: Mode,
        ex: &Exec,
    ) -> Option<Result<Hits, TooMany>> {
        self.walks(rays).then(|| {
            self.sync(ex);
            self.cast_along_cells(rays, mode, ex)
        })
    }

    /// Whether a cast of `rays` walks the tree's cells: every ray finite
    /// and their pieces at most the policy's share of the live objects.
    fn walks(&self, rays: &Rays) -> bool {
        let cells = TreeCells::new(self);
        let mut pieces = 0.0;
        for k in 0..rays.len() {
            let s_max = rays.max_t[if rays.max_t.len() == 1 { 0 } else { k }];
            match cells.pieces(rays.directions[k], s_max) {
                Some(p) => pieces += p as f64,
                None => return false,
            }
        }
        pieces <= self.policy.ray_walk_share * self.objects.len() as f64
    }

    /// The cast of [`Tree::cast_rays`] along the tree's cells (lists in
    /// sync): rows are slots, so handles, and `ignore` needs no mapping.
    fn cast_along_cells(&self, rays: &Rays, mode: Mode, ex: &Exec) -> Result<Hits, TooMany> {
        let narrow = self.objects.narrow();
        let cast = Cast {
            rays: *rays,
            objects: narrow.filters,
            mode,
            max_hits: None,
        };
        let cells = TreeCells::new(self);
        cast_shapes(&self.objects.boxes, narrow.shapes, &cells, &cast, ex)
    }
}

/// `cast` at the objects of `shapes` (`boxes` their boxes) along the
/// tree's `cells`, the rays in their own order.
fn cast_shapes(
    boxes: &[[f64; 4]],
    shapes: Shapes,
    cells: &TreeCells,
    cast: &Cast,
    ex: &Exec,
) -> Result<Hits, TooMany> {
    fn go<T: Target>(
        target: &T,
        cells: &TreeCells,
        cast: &Cast,
        ex: &Exec,
    ) -> Result<Hits, TooMany> {
        let order: Vec<u32> = (0..cast.rays.len() as u32).collect();
        cast_over(target, cells, &order, cast, ex)
    }
    let (kinds, balls) = <[f64; 4]>::balls(&shapes);
    match kinds {
        None if balls.is_empty() => go(&Boxes(boxes), cells, cast, ex),
        None => go(&Circles { balls, boxes }, cells, cast, ex),
        Some(kinds) => {
            let mixed = Mixed {
                kinds,
                circles: balls,
                boxes,
            };
            go(&mixed, cells, cast, ex)
        }
    }
}

/// The row of handle `h` among the live handles `ids` (ascending), or -1.
fn row_of(ids: &[u32], h: i64) -> i64 {
    u32::try_from(h)
        .ok()
        .and_then(|h| ids.binary_search(&h).ok())
        .map_or(-1, |r| r as i64)
}

/// `hits` with rows renamed by their handles.
fn to_handles(hits: Hits, ids: &[u32]) -> Hits {
    match hits {
        Hits::First { index, t } => Hits::First {
            index: index
                .into_iter()
                .map(|j| if j < 0 { j } else { ids[j as usize] as i64 })
                .collect(),
            t,
        },
        Hits::All { mut rows, t } => {
            for r in rows.chunks_exact_mut(2) {
                r[1] = ids[r[1] as usize] as isize;
            }
            Hits::All { rows, t }
        }
        any => any,
    }
}
