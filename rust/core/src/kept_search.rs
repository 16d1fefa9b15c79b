//! A search from scratch that keeps what helps the next one: the method
//! choice of a caller searching the same objects call after call (the
//! moving tree, when most of its objects moved).
//!
//! # The choice
//! Where [`crate::search`]'s `Auto` rule picks the grid (at least
//! [`search::SWEEP_BELOW`] boxes), the grid entries are kept and brought up
//! to date by the next search instead of sorting anew ([`crate::coherent`]);
//! where it sorts and sweeps ([`few::serves`]), the sweep order is kept and
//! put right by an insertion sort ([`crate::few`]).  Below that, and
//! whenever the rows are not the caller's objects one for one (a caller with
//! holes searches a gathered subset, whose row `k` is another object from
//! one call to the next), it is a plain [`search::find_pairs_counted`] and
//! nothing is kept.  Every method returns the identical canonical pairs: the
//! choice only moves the time.
//!
//! # Letting go
//! A caller that answers many calls without a search from scratch (a game
//! moving a few objects a frame) tells so with [`KeptSearch::idle`]; after
//! [`coherent::AGE`] such calls in a row the kept orders are let go (their
//! memory serves none of those calls) and the next search makes them anew.
//!
//! # Invariant
//! The kept orders only save work: a search with them finds what a search
//! without finds, so dropping a `KeptSearch` (a stopped search drops the one
//! it took) never changes an answer.

use crate::check::bounds_of;
use crate::narrow::Narrow;
use crate::pairs::{pack_rows, TooMany};
use crate::par::Exec;
use crate::search::{self, Method, Search, Width};
use crate::{coherent, few};

/// What a caller keeps between its searches from scratch.
#[derive(Clone, Debug, Default)]
pub struct KeptSearch {
    /// The kept grid entries or sweep order ([`coherent::State`] holds both).
    state: coherent::State,
    /// Calls answered without a search since the last search.
    idle: u32,
}

/// The pairs of a search, in both forms, and its candidate tests.
#[derive(Debug)]
pub struct Found {
    /// The pairs packed ([`crate::pairs::pack`]), sorted.
    pub packed: Vec<u64>,
    /// The pairs as flat rows `[i0, j0, i1, j1, ...]`, canonical.
    pub rows: Vec<isize>,
    /// Candidate box tests made (0 for the sweep, which does not count them).
    pub tests: u64,
}

impl KeptSearch {
    /// Every colliding pair of `boxes` (and `narrow`'s shapes and filters),
    /// or [`TooMany`] past `max_pairs`; packed into `packed`'s buffer
    /// (cleared first: no fresh pages).  `ids`: `None` when row `k` is the
    /// caller's object `k` (the same objects as the last call: the orders
    /// are kept), else the ascending ids of the rows, which the pairs are
    /// given in (nothing is kept).
    ///
    /// The kept orders are of 2D rows; 3D rows (`N == 6`) take the plain
    /// search every time.
    pub fn find<const N: usize>(
        &mut self,
        boxes: &[[f64; N]],
        narrow: &Narrow,
        max_pairs: Option<u64>,
        ids: Option<&[u32]>,
        ex: &Exec,
        mut packed: Vec<u64>,
    ) -> Result<Found, TooMany>
    where
        [f64; N]: Width<N>,
    {
        let n = boxes.len();
        // the same rows, read as 2D rows when they are
        let flat = (N == 4).then_some(boxes.as_flattened().as_chunks::<4>().0);
        let (rows, tests) =
            if let Some(boxes) = flat.filter(|_| ids.is_none() && n >= search::SWEEP_BELOW) {
                coherent::find(boxes, narrow, max_pairs, ex, &mut self.state, &mut packed)
            } else if let Some(boxes) = flat.filter(|_| ids.is_none() && few::serves(n)) {
                let order = self.state.for_few();
                few::find(boxes, narrow, max_pairs, order, &mut packed)
            } else {
                self.state.clear();
                let s = Search {
                    boxes,
                    bounds: bounds_of(boxes),
                    narrow: *narrow,
                    method: Method::Auto,
                    max_pairs,
                };
                let (rows, tests) = search::find_pairs_counted(&s, ex);
                let rows = rows.map(|mut rows| {
                    if let Some(ids) = ids {
                        // ascending ids keep the canonical order
                        rows.iter_mut().for_each(|v| *v = ids[*v as usize] as isize);
                    }
                    // packed into the old pairs' buffer (no fresh pages)
                    pack_rows(&rows, &mut packed, ex);
                    rows
                });
                (rows, tests)
            };
        let rows = rows?;
        self.idle = 0;
        Ok(Found {
            packed,
            rows,
            tests,
        })
    }

    /// A call answered without a search from scratch: past
    /// [`coherent::AGE`] of them in a row, the kept orders are let go.
    pub fn idle(&mut self) {
        self.idle = self.idle.saturating_add(1);
        if self.idle > coherent::AGE {
            self.state.clear();
        }
    }

    /// Whether a grid order is kept.
    #[cfg(test)]
    pub fn is_kept(&self) -> bool {
        self.state.is_kept()
    }
}
