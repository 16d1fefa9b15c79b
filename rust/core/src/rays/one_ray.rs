//! One ray's walk and answer: its candidates, cell by cell, each tested
//! once (a stamp per object and ray) against the filters, the slab
//! pre-test ([`super::reach`]) and the exact test; the best entry, every
//! entry or whether there is any, appended to its chunk's [`Part`].
//!
//! A ray may meet every object: it looks at the call's stop every
//! [`STOP_EVERY`] candidates, so Ctrl-C never waits for a chunk of rays.

use super::budget::RowBudget;
use super::{reach, Cast, Cells, Mode, Target};
use crate::dim::Row;
use crate::par::Exec;
use std::cell::Cell;
use std::cmp::Ordering;

/// Candidates a ray tests between two looks at the call's stop (Ctrl-C):
/// one ray may meet every object (identical boxes on its path), so a chunk
/// of rays may take seconds; a look costs a clock read, a cell a count.
const STOP_EVERY: usize = 4096;

/// The answers of one chunk of rays, in the order they were cast.
#[derive(Default)]
pub(super) struct Part {
    pub(super) index: Vec<i64>,
    pub(super) t: Vec<f64>,
    pub(super) rows: Vec<isize>,
    pub(super) any: Vec<bool>,
    /// For every hit: each ray's first entry in `t` and its number of hits.
    pub(super) spans: Vec<(usize, usize)>,
}

/// What bounds a cast: the rows it may store, and its stop.
#[derive(Clone, Copy)]
pub(super) struct Bounds<'a> {
    pub(super) budget: &'a RowBudget,
    pub(super) ex: &'a Exec,
}

/// Ray `k`'s walk and answer, appended to `out`.
pub(super) fn one_ray<const N: usize, const D: usize, T: Target<N>, C: Cells<N>>(
    target: &T,
    cells: &C,
    cast: &Cast<D>,
    k: usize,
    stamp: &mut [u32],
    bounds: Bounds,
    out: &mut Part,
) where
    [f64; N]: Row<Axes = [f64; D]>,
{
    let Bounds { budget, ex } = bounds;
    let rays = &cast.rays;
    let (o, d, s_max) = (rays.origins[k], rays.directions[k], rays.max_t(k));
    let tag = k as u32 + 1;
    let limit = Cell::new(f64::INFINITY);
    let reach = reach::Reach::<N>::new(o, d);
    let mut best: Option<(usize, T::Entry)> = None;
    let mut hits: Vec<(usize, T::Entry)> = Vec::new();
    let mut test = |j: usize| {
        if stamp[j] == tag {
            return;
        }
        stamp[j] = tag;
        // the box's slab test first: a sure miss, or a sure entry after the
        // best, needs no exact test
        if reach.rejects(&target.boxes()[j], s_max, limit.get()) {
            return;
        }
        if !rays.pass(k, &cast.objects, j) {
            return;
        }
        let Some(e) = target.hit(j, o, d, s_max) else {
            return;
        };
        match cast.mode {
            Mode::Any => {
                best = Some((j, e));
                limit.set(f64::NEG_INFINITY);
            }
            Mode::All => hits.push((j, e)),
            Mode::First => {
                let better = best.as_ref().is_none_or(|(bj, be)| match T::cmp(&e, be) {
                    Ordering::Less => true,
                    Ordering::Equal => j < *bj,
                    Ordering::Greater => false,
                });
                if better {
                    limit.set(T::upper(&e));
                    best = Some((j, e));
                }
            }
        }
    };
    let mut since = 0;
    let walked = cells.visit(
        o,
        d,
        s_max,
        || limit.get(),
        |cell| {
            for part in cell.chunks(STOP_EVERY) {
                since += part.len();
                if since >= STOP_EVERY {
                    since = 0;
                    ex.check_stop();
                }
                for &j in part {
                    test(j as usize);
                }
            }
        },
    );
    if !walked {
        for j in 0..target.boxes().len() {
            if j % STOP_EVERY == STOP_EVERY - 1 {
                ex.check_stop();
            }
            test(j);
        }
    }
    // the exact entry is at most `s_max`; a circle's, within its bound, may
    // be given past it
    let t_of = |e: &T::Entry| T::t(e).min(s_max);
    match cast.mode {
        Mode::Any => out.any.push(best.is_some()),
        Mode::First => match best {
            Some((j, e)) => {
                out.index.push(j as i64);
                out.t.push(t_of(&e));
            }
            None => {
                out.index.push(-1);
                out.t.push(f64::INFINITY);
            }
        },
        Mode::All => {
            if !budget.take(hits.len()) {
                hits.clear(); // counted: the cast ends in `TooMany`
            }
            hits.sort_unstable_by_key(|h| h.0);
            out.spans.push((out.t.len(), hits.len()));
            for (j, e) in hits {
                out.rows.extend([k as isize, j as isize]);
                out.t.push(t_of(&e));
            }
        }
    }
}
