//! Ray casts at the tree's live objects, answered in handles.
//!
//! A cast reads the live objects as rows (the slots themselves when none is
//! free, else the live slots gathered in ascending order, `live_rows`) and
//! hands them to [`crate::rays`], which builds its uniform grid over them
//! for the call: O(n) to gather and grid n objects, then each ray's walk.
//! Rows ascend with handles, so the rays' rule "ties go to the lower
//! index" is "to the lower handle" and rows `(ray, object)` sorted by row
//! are sorted by handle: mapping rows to handles keeps every answer's
//! order.  The tree is only read: a cast needs no settled placement, the
//! boxes are stored by every move.  Shapes: plain boxes, or boxes and
//! circles together ([`crate::rays::Mixed`], exact across kinds).

use super::Tree;
use crate::narrow::{Narrow, Shapes};
use crate::pairs::TooMany;
use crate::par::Exec;
use crate::rays::{cast_boxes, cast_circles, cast_mixed, Cast, Hits, Mixed, Mode, Rays};

impl Tree {
    /// `f` of the live objects as rows: their boxes, their narrow phase
    /// (shapes and filters) and the handle of each row (`None`: every slot
    /// is live, a row is its handle).
    pub(super) fn live_rows<R>(
        &self,
        f: impl FnOnce(&[[f64; 4]], Narrow, Option<&[u32]>) -> R,
    ) -> R {
        let objects = &self.objects;
        if objects.dense() {
            return f(&objects.boxes, objects.narrow(), None);
        }
        let ids: Vec<u32> = objects.live().map(|h| h as u32).collect();
        let rows = objects.gather(&ids);
        f(&rows.boxes, rows.narrow(objects.narrow()), Some(&ids))
    }

    /// Cast `rays` at the live objects with their categories and masks;
    /// `rays.ignore` holds handles (one not live ignores nothing).  The
    /// answer names objects by handle.
    /// [`TooMany`] as [`crate::rays::cast_boxes`].
    pub fn cast_rays(&self, rays: &Rays, mode: Mode, ex: &Exec) -> Result<Hits, TooMany> {
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
            let hits = match narrow.shapes {
                Shapes::Boxes => cast_boxes(boxes, &cast, ex),
                Shapes::Circles(c) => cast_circles(c, boxes, &cast, ex),
                Shapes::Mixed {
                    kinds,
                    circles,
                    boxes,
                } => cast_mixed(
                    &Mixed {
                        kinds,
                        circles,
                        boxes,
                    },
                    &cast,
                    ex,
                ),
            };
            hits.map(|hits| match ids {
                None => hits,
                Some(ids) => to_handles(hits, ids),
            })
        })
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
