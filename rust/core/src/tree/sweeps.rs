//! Swept pairs between frames: the pairs of objects that overlapped at
//! some moment while each moved from its place at the previous
//! [`Tree::swept_pairs`] to its place now.
//!
//! # The contract
//! Each live object moves linearly, `s` from 0 to 1, from its *start* to
//! its current box (circle): its start is where it was at the previous
//! `swept_pairs()` call, or, for an object inserted since (or before the
//! first call), where it is now.  A circle whose radius changed sweeps
//! with the larger of its two radii over the whole frame (its centre
//! moving as [`crate::swept::swept_circles`] moves it), so the pairs at the
//! start and at the end of the frame are swept pairs, and so is every pair
//! that met while the radius went linearly from one to the other; its
//! boxes for the candidates are the outward-rounded boxes of its two
//! centres with that radius.  The
//! pairs are those of [`crate::swept`] on those rows: canonical, in
//! handles, with the filters of the tree (groups, categories, masks), and
//! `t` the first moment of strict overlap.  When nothing moved they are
//! the pairs of `pairs()`, each with `t = 0`.  Boxes and circles may be
//! mixed: a box against a circle is [`crate::param::rounded`].
//!
//! # What is kept
//! [`Previous`]: per slot, its box and circle at the last call and whether
//! the slot's object was there then (an insert reusing a slot forgets it).
//! Nothing is kept before the first call; a call costs O(slots) for the
//! copy, plus the swept search.  Rows ascend with handles, so the
//! canonical order of rows is that of handles.

use super::{Tree, TreeRow};
use crate::check;
use crate::dim::{BallRow, Row};
use crate::narrow::CIRCLE;
use crate::pairs::TooMany;
use crate::par::Exec;
use crate::param::{quadratic, rounded, shapes};
use crate::swept::{candidates_then, SweptPairs};

/// Where each slot's object was at the last [`Tree::swept_pairs`].
#[derive(Clone, Debug)]
pub(super) struct Previous<const N: usize = 4>
where
    [f64; N]: Row,
{
    boxes: Vec<[f64; N]>,
    circles: Vec<<[f64; N] as Row>::Ball>,
    /// Whether the slot's object was live then (an insert reusing the slot
    /// clears it; slots past the end were not).
    known: Vec<bool>,
}

impl<const N: usize> Default for Previous<N>
where
    [f64; N]: Row,
{
    fn default() -> Self {
        Previous {
            boxes: Vec::new(),
            circles: Vec::new(),
            known: Vec::new(),
        }
    }
}

impl<const N: usize> Previous<N>
where
    [f64; N]: Row,
{
    /// Reused slots `handles` hold new objects: they start where they are.
    pub fn forget(&mut self, handles: &[u32]) {
        for &h in handles {
            if let Some(k) = self.known.get_mut(h as usize) {
                *k = false;
            }
        }
    }

    /// The invariant: one value per slot in each column.
    pub fn check(&self) -> Result<(), String> {
        let n = self.known.len();
        if self.boxes.len() != n || self.circles.len() != n {
            return Err("swept: previous columns of different lengths".into());
        }
        Ok(())
    }
}

impl<const N: usize, const C: usize, const D: usize> Tree<N>
where
    [f64; N]: TreeRow<N> + Row<Ball = [f64; C], Axes = [f64; D]>,
    [f64; C]: BallRow<D>,
{
    /// The swept pairs since the last call (see the module's doc), in
    /// handles; then every live object's place is kept as the next start.
    /// Nothing is kept when the result is too big ([`TooMany`]).
    pub fn swept_pairs(&mut self, ex: &Exec) -> Result<SweptPairs, TooMany> {
        let prev = &self.previous;
        let objects = &self.objects;
        let found = self.live_rows(|boxes, narrow, ids| {
            let handle = |k: usize| ids.map_or(k, |ids| ids[k] as usize);
            let known = |h: usize| prev.known.get(h).copied().unwrap_or(false);
            let n = boxes.len();
            let (kinds, circles) = <[f64; N]>::balls(&narrow.shapes);
            let is_circle = |k: usize| kinds.is_some_and(|kd| kd[k] == CIRCLE);
            let mut start: Vec<[f64; N]> = (0..n)
                .map(|k| {
                    let h = handle(k);
                    if known(h) {
                        prev.boxes[h]
                    } else {
                        boxes[k]
                    }
                })
                .collect();
            let (mut c0, mut c1) = (Vec::new(), Vec::new());
            let mut end = boxes.to_vec();
            if kinds.is_some() {
                // a circle sweeps with the larger of its two radii
                c0 = (0..n)
                    .map(|k| {
                        let h = handle(k);
                        let now = circles[k];
                        if known(h) && is_circle(k) {
                            let mut was = prev.circles[h];
                            was[D] = was[D].max(now[D]);
                            was
                        } else {
                            now
                        }
                    })
                    .collect();
                c1 = (0..n)
                    .map(|k| {
                        let mut c: [f64; C] = circles[k];
                        c[D] = c0[k][D];
                        c
                    })
                    .collect();
                for k in (0..n).filter(|&k| is_circle(k)) {
                    start[k] = check::ball_box(&c0[k]);
                    end[k] = check::ball_box(&c1[k]);
                }
            }
            let found = candidates_then(
                [&start, &end],
                narrow.filters,
                [&start, &end],
                ex,
                |i, j| match (is_circle(i), is_circle(j)) {
                    (false, false) => shapes::swept_boxes_t(&start[i], &end[i], &start[j], &end[j]),
                    (true, true) => shapes::swept_balls(&c0[i], &c1[i], &c0[j], &c1[j])
                        .map(|e| quadratic::entry_f64(&e)),
                    (false, true) => rounded::swept_box_ball(&start[i], &end[i], &c0[j], &c1[j]),
                    (true, false) => rounded::swept_box_ball(&start[j], &end[j], &c0[i], &c1[i]),
                },
            );
            found.map(|(mut rows, t)| {
                if let Some(ids) = ids {
                    rows.iter_mut().for_each(|r| *r = ids[*r as usize] as isize);
                }
                (rows, t)
            })
        })?;
        let slots = objects.slots();
        self.previous = Previous {
            boxes: objects.boxes.clone(),
            circles: (0..slots).map(|h| objects.circle(h)).collect(),
            known: (0..slots).map(|h| objects.contains(h)).collect(),
        };
        Ok(found)
    }
}
