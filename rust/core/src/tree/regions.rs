//! Region queries in a batch: many boxes in, the rows `(query, object)` out.
//!
//! Each query is [`Tree::query`]'s: the candidates of the cells its box
//! covers, each seen once ([`super::queries`]), tested exactly (touching
//! does not count; a circle by the exact box--circle test), its objects
//! sorted.  The queries split into chunks fixed by their count (the
//! policy's `query_grain`), run in parallel from the policy's
//! `query_parallel` queries on; each chunk writes its rows in query order,
//! so the rows, chunk after chunk, are sorted by query then object whatever
//! the threads.
//!
//! # Memory
//! The rows are counted as they are found, in one count all chunks share:
//! past `max_rows` (or what the available memory holds, read only once
//! the rows are many) every chunk stops storing and only counts, and the
//! call answers [`TooMany`] with the exact count.
//!
//! # Stopping
//! It brings the lists up to date first (a stopped sync leaves them valid,
//! see [`super::index`]) and then only reads the tree: a stop leaves it
//! valid.

use super::Tree;
use crate::pairs::{Budget, TooMany};
use crate::par::{chunk_count, even_bounds, Exec, MAX_CHUNKS};
use crate::tree::TreeRow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Rows from which the memory budget is read (reading it costs more than
/// a small batch).
const CHECKED_FROM: u64 = 1 << 16;

impl<const N: usize> Tree<N>
where
    [f64; N]: TreeRow<N>,
{
    /// For every box `qs[k]` (finite, `min <= max`), the live objects that
    /// overlap it as rows `[k, h, ...]`, sorted by `k` then `h`; or
    /// [`TooMany`] with the number of rows when they pass `max_rows` (or
    /// the memory).
    pub fn query_many(
        &mut self,
        qs: &[[f64; N]],
        ex: &Exec,
        max_rows: Option<u64>,
    ) -> Result<Vec<isize>, TooMany> {
        self.sync(ex);
        let budget = Budget::of(max_rows);
        let (stored, full) = (AtomicU64::new(0), AtomicBool::new(false));
        let nch = chunk_count(qs.len(), self.policy.query_grain, MAX_CHUNKS);
        let cb = even_bounds(qs.len(), nch);
        let on = ex.for_work(qs.len(), self.policy.query_parallel);
        let tree = &*self;
        let parts = on.map(nch, |c| {
            let (mut rows, mut found) = (Vec::new(), Vec::new());
            for (k, q) in qs.iter().enumerate().take(cb[c + 1]).skip(cb[c]) {
                on.check_stop(); // one query may meet every object
                found.clear();
                tree.candidates(q, |o, b| {
                    if tree.meets_box(o, b, q) {
                        found.push(o as u32);
                    }
                });
                if found.is_empty() {
                    continue;
                }
                let n = found.len() as u64;
                let total = stored.fetch_add(n, Ordering::Relaxed) + n;
                if (max_rows.is_some() || total >= CHECKED_FROM) && total > budget.limit() {
                    full.store(true, Ordering::Relaxed);
                }
                if full.load(Ordering::Relaxed) {
                    continue; // counted only
                }
                found.sort_unstable();
                for &o in &found {
                    rows.push(k as isize);
                    rows.push(o as isize);
                }
            }
            rows
        });
        if full.load(Ordering::Relaxed) {
            return Err(TooMany(stored.load(Ordering::Relaxed)));
        }
        Ok(parts.concat())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::narrow::{box_circle_overlap, boxes_overlap};
    use crate::testing::lcg;
    use crate::tree::Attrs;

    /// Batches of boxes of every size against a plain double loop, on one
    /// thread and two, with circles among the objects, and a budget the
    /// rows exceed.
    #[test]
    fn a_batch_is_each_query_in_turn() {
        let mut rnd = lcg(3);
        let mut sq = |side: f64| {
            let (x, y) = (rnd() * 120.0 - 10.0, rnd() * 120.0 - 10.0);
            [x, y, x + side * rnd(), y + side * rnd()]
        };
        let boxes: Vec<[f64; 4]> = (0..600)
            .map(|k| sq(if k % 50 == 0 { 60.0 } else { 6.0 }))
            .collect();
        let qs: Vec<[f64; 4]> = (0..700)
            .map(|k| sq([0.0, 3.0, 20.0, 200.0][k % 4]))
            .collect();
        for workers in [1, 2] {
            let ex = Exec::new(Some(workers));
            let mut tree = Tree::new([0.0, 0.0, 100.0, 100.0], 4, 1.0);
            tree.insert(&boxes, None, Attrs::default(), &ex);
            tree.insert(
                &[[50.0, 50.0, 52.0, 52.0]],
                Some(&[[51.0, 51.0, 1.0]]),
                Attrs::default(),
                &ex,
            );
            tree.remove(&[7, 8]);
            let got = tree.query_many(&qs, &ex, None).unwrap();
            // a plain double loop over the live objects
            let circle = [51.0, 51.0, 1.0];
            let mut want = Vec::new();
            for (k, q) in qs.iter().enumerate() {
                for (h, b) in boxes.iter().enumerate() {
                    if h != 7 && h != 8 && boxes_overlap(b, q) {
                        want.extend([k as isize, h as isize]);
                    }
                }
                if box_circle_overlap(q, &circle) {
                    want.extend([k as isize, boxes.len() as isize]);
                }
            }
            assert_eq!(got, want);
            let rows = (want.len() / 2) as u64;
            assert_eq!(
                tree.query_many(&qs, &ex, Some(rows - 1)),
                Err(TooMany(rows))
            );
            assert_eq!(tree.query_many(&qs, &ex, Some(rows)).unwrap(), want);
        }
    }
}
