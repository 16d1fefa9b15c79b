//! Finding what overlaps a box: the cells met, the plans, the partners.
//!
//! # Derivation
//! Objects `a` and `b` overlap only if `b`'s cells meet the cells `a`'s box
//! covers at `b`'s level: `b`'s cells cover its fat box, which holds its
//! box, and quantization is monotone.  So a query visits, at every level
//! that has objects, the cells its box covers there.  An object entered in
//! several cells is taken only in the first of them (lowest column, then
//! row) that the query covers: an entry counts when its cell is its
//! object's first column or the query's first column, and likewise for
//! rows.  Each candidate is seen once, with no marks to clear, so queries
//! can run in parallel.  When the cells to visit outnumber the objects, a
//! scan of every object costs less and is taken instead.
//!
//! # Plans
//! A refresh works out each query's runs (cell ids, head words, skips) a
//! few queries before it runs, asking for their entries then
//! ([`crate::hints::ahead`]), and the query reads that plan ([`Plan`]).  A
//! query meeting more than [`PLAN_RUNS`] cells takes the general path.
//!
//! Every query reads the lists in sync (its caller syncs them first).

use super::Tree;
use crate::cells::Placement;
use crate::dim::Row;
use crate::hints::{ahead, prefetch_at, AHEAD};
use crate::lists::{self, Entry};
use crate::narrow::Balls;
use crate::narrow::{boxes_overlap, Narrow};
use crate::pairs::pack;
use crate::par::{chunk_count, even_bounds, Exec, MAX_CHUNKS};
use crate::tree::TreeRow;

/// Most runs a [`Plan`] holds; a query meeting more cells takes the
/// general path ([`Tree::partners`]).  (An array's length: a constant.)
pub(super) const PLAN_RUNS: usize = 16;

/// The runs a query will read, found when its memory is asked for (a few
/// queries ahead) and read when it runs: its cells' ids, head words and
/// skips are worked out once.
#[derive(Clone, Copy)]
pub(super) struct Plan {
    /// `(start, len, skip)` of the first `n` nonempty runs, in the order
    /// [`Tree::runs_met`] visits them.
    pub runs: [(u32, u32, u8); PLAN_RUNS],
    pub n: usize,
    /// Whether every run fits in `runs`; if not, the query takes the
    /// general path.
    pub fits: bool,
}

impl Default for Plan {
    fn default() -> Plan {
        Plan {
            runs: [(0, 0, 0); PLAN_RUNS],
            n: 0,
            fits: false,
        }
    }
}

impl<const N: usize> Tree<N>
where
    [f64; N]: TreeRow<N>,
{
    /// Sorted handles of the objects that overlap `q` (touching does not count).
    pub fn query(&mut self, q: &[f64; N], ex: &Exec) -> Vec<u32> {
        self.sync(ex);
        let mut out = Vec::new();
        self.candidates(q, |o, b| {
            if self.meets_box(o, b, q) {
                out.push(o as u32);
            }
        });
        out.sort_unstable();
        out
    }

    /// Sorted handles of the objects that strictly contain the point `p`
    /// (one coordinate per axis): those that overlap the box of zero size
    /// at `p`, whose overlap test is the point's strictly-inside test.
    pub fn query_point(&mut self, p: &<[f64; N] as Row>::Axes, ex: &Exec) -> Vec<u32> {
        let p = p.as_ref();
        let q: [f64; N] = std::array::from_fn(|c| p[c % (N / 2)]);
        self.query(&q, ex)
    }

    /// Sorted handles of the objects that collide with live object `h` by
    /// the rules of `pairs()` (filters included), `h` itself left out.
    pub fn touching(&mut self, h: u32, ex: &Exec) -> Vec<u32> {
        self.sync(ex);
        let narrow = self.objects.narrow();
        let mut out = Vec::new();
        self.partners(&narrow, h as usize, |o| out.push(o as u32));
        out.sort_unstable();
        out
    }

    /// The seeds' cell of live object `h`: `(level, index)` of the smallest
    /// cell holding its box ([`crate::morton::cell_of`]).
    pub fn locate(&self, h: u32) -> (u32, u64) {
        self.placer.seeds_cell(&self.objects.boxes[h as usize])
    }

    /// Call `f(o, box)` once for every live object whose cells meet the
    /// cells `q` covers (a superset of the objects overlapping `q`), with the
    /// object's box.
    pub(super) fn candidates(&self, q: &[f64; N], mut f: impl FnMut(usize, &[f64; N])) {
        let listed = self.runs_met(q, |run, skip| {
            for e in run {
                if e.tag & skip == 0 {
                    f(e.id as usize, &e.b);
                }
            }
        });
        if !listed {
            for o in self.objects.live() {
                f(o, &self.objects.boxes[o]);
            }
        }
    }

    /// Call `f(run, skip)` for the entries of every cell that the cells `q`
    /// covers meet, at every occupied level: an entry counts (is read once
    /// over all runs) when `e.tag & skip == 0`, since entries past their
    /// object's first column count only in the query's first column (rows
    /// likewise).
    ///
    /// Returns false, having called nothing, when those cells hold more
    /// entries than there are objects (a scan of every object costs less).
    #[inline(always)]
    pub(super) fn runs_met(&self, q: &[f64; N], mut f: impl FnMut(&[Entry<N>], u8)) -> bool {
        let grid = &self.placer.grid;
        let c = grid.cells_of(q);
        let depth = grid.depth;
        let per_level = &self.index.per_level;
        // cells to visit at every occupied level; past the objects' count, scan them all
        let mut visits = 0u64;
        for l in 0..=depth {
            if per_level[l as usize] > 0 {
                visits += Placement::cells_met(c, depth - l);
            }
        }
        if visits > self.objects.len() as u64 + 64 {
            return false;
        }
        for l in 0..=depth {
            if per_level[l as usize] > 0 {
                self.cells_met(c, l, |cell, skip| f(self.index.lists.run_of(cell), skip));
            }
        }
        true
    }

    /// `f(cell, skip)` for the cells of `level` that the cells `c` (a box's,
    /// by [`crate::world::Grid::cells_of`]) cover, row by row: `skip` holds
    /// the tag bits whose entries count only in an earlier cell of the
    /// query (see [`Tree::runs_met`]).
    #[inline(always)]
    fn cells_met(&self, c: [u32; N], level: u32, mut f: impl FnMut(u32, u8)) {
        let s = self.placer.grid.depth - level;
        let mut lo = <[f64; N] as Row>::Corner::default();
        for (k, v) in lo.as_mut().iter_mut().enumerate() {
            *v = c[k] >> s;
        }
        let mut at = lo;
        loop {
            let mut skip = 0;
            for k in 0..N / 2 {
                skip |= if at.as_ref()[k] == lo.as_ref()[k] {
                    0
                } else {
                    lists::later(k)
                };
            }
            f(self.placer.cell_id(level, &at), skip);
            // the next cell, x fastest (an odometer over the axes)
            let mut k = 0;
            loop {
                if k == N / 2 {
                    return;
                }
                let v = &mut at.as_mut()[k];
                if *v < c[N / 2 + k] >> s {
                    *v += 1;
                    break;
                }
                *v = lo.as_ref()[k];
                k += 1;
            }
        }
    }

    /// Whether live object `o`, of box `b`, overlaps the box `q` (touching
    /// does not count).
    pub(super) fn meets_box(&self, o: usize, b: &[f64; N], q: &[f64; N]) -> bool {
        boxes_overlap(b, q)
            && (!self.objects.is_circle(o)
                || <[f64; N]>::box_meets_ball(q, &self.objects.circle(o)))
    }

    /// The runs a query of `q` reads at the occupied `levels` (as
    /// [`Tree::runs_met`] visits them), their entries asked for; `fits` is
    /// false when the query meets more than [`PLAN_RUNS`] cells.  (A plan
    /// never needs `runs_met`'s scan of every object, which takes more
    /// cells than objects.)
    #[inline(always)]
    pub(super) fn plan(&self, q: &[f64; N], levels: &[u32], plan: &mut Plan) {
        let grid = &self.placer.grid;
        let c = grid.cells_of(q);
        let mut n = 0;
        for &l in levels {
            if n + Placement::cells_met(c, grid.depth - l) as usize > PLAN_RUNS {
                plan.fits = false;
                return;
            }
            self.cells_met(c, l, |cell, skip| {
                let (start, len) = self.index.lists.run(cell as usize);
                if len > 0 {
                    self.index.lists.prefetch_run(start, len);
                    plan.runs[n] = (start as u32, len as u32, skip);
                    n += 1;
                }
            });
        }
        plan.n = n;
        plan.fits = true;
    }

    /// `f(o)` for every object colliding with `h`; the candidate tests.
    #[inline(always)]
    pub(super) fn partners(&self, narrow: &Narrow, h: usize, mut f: impl FnMut(usize)) -> u64 {
        let boxes = &self.objects.boxes;
        let b = boxes[h];
        let mut n = 0u64;
        let listed = self.runs_met(&b, |run, skip| {
            n += partners_in(narrow, h, &b, run, skip, &mut f);
        });
        if !listed {
            for o in self.objects.live() {
                n += 1;
                if o != h && boxes_overlap(&b, &boxes[o]) && narrow.accept(h, o) {
                    f(o);
                }
            }
        }
        n
    }

    /// The current pairs of the dirty live objects, sorted, from a query of
    /// each (chunks of the policy's `query_grain`, in parallel from its
    /// `query_parallel` on); the candidate tests.  Reads the tree only.
    pub(super) fn fresh_pairs(&self, ex: &Exec) -> (Vec<u64>, u64) {
        // (a dirty slot is free only if removed since the last refresh)
        let listed = &self.changes.dirty;
        let mut dirty: Vec<u32> = if self.changes.any_removed() {
            let live = listed.iter().copied();
            live.filter(|&h| self.objects.contains(h as usize))
                .collect()
        } else {
            listed.clone()
        };
        dirty.sort_unstable();
        let narrow = self.objects.narrow();
        let boxes = &self.objects.boxes;
        let nch = chunk_count(dirty.len(), self.policy.query_grain, MAX_CHUNKS);
        let cb = even_bounds(dirty.len(), nch);
        let levels: Vec<u32> = (0..=self.placer.grid.depth)
            .filter(|&l| self.index.per_level[l as usize] > 0)
            .collect();
        let ex = ex.for_work(dirty.len(), self.policy.query_parallel);
        let parts = ex.map(nch, |c| {
            let mut out = Vec::new();
            let mut tests = 0;
            // Each query's runs are planned (found and asked for) AHEAD
            // queries before it runs, in a ring of plans; the box of the one
            // 2 AHEAD on is asked for first.  (Their time is mostly memory.)
            let mut plans = [Plan::default(); AHEAD + 1];
            let far = |_: &[Plan; AHEAD + 1], a: u32| prefetch_at(boxes, a as usize);
            let near = |plans: &mut [Plan; AHEAD + 1], k: usize, a: u32| {
                self.plan(&boxes[a as usize], &levels, &mut plans[k % (AHEAD + 1)]);
            };
            ahead(
                &dirty[cb[c]..cb[c + 1]],
                &mut plans,
                far,
                near,
                |plans, k, h| {
                    let h = h as usize;
                    let plan = &plans[k % (AHEAD + 1)];
                    let mut emit = |o: usize| out.push(pack(h as u32, o as u32));
                    if !plan.fits {
                        tests += self.partners(&narrow, h, emit);
                    } else {
                        let b = boxes[h];
                        for &(start, len, skip) in &plan.runs[..plan.n] {
                            let run = self.index.lists.entries(start as usize, len as usize);
                            tests += partners_in(&narrow, h, &b, run, skip, &mut emit);
                        }
                    }
                },
            );
            (out, tests)
        });
        let tests = parts.iter().map(|p| p.1).sum();
        let mut fresh = Vec::with_capacity(parts.iter().map(|p| p.0.len()).sum());
        for p in &parts {
            fresh.extend_from_slice(&p.0);
        }
        // A pair of two dirty objects was found from both: twice, side by
        // side once sorted.  (Asking whether a partner is dirty, to find it
        // once, cost a lookup at a random place per pair.)
        fresh.sort_unstable();
        fresh.dedup();
        (fresh, tests)
    }
}

/// [`Tree::partners`] of `h` (of box `b`) among the entries of one `run`
/// (counting as `skip` says): `f(o)` for each; the entries that count.
#[inline(always)]
fn partners_in<const N: usize>(
    narrow: &Narrow,
    h: usize,
    b: &[f64; N],
    run: &[Entry<N>],
    skip: u8,
    f: &mut impl FnMut(usize),
) -> u64 {
    let mut n = 0;
    // the tests of 64 entries at a time into a mask, then the few hits
    for part in run.chunks(64) {
        let (mut mask, counted) = lists::overlap_bits(b, part, skip);
        n += counted;
        while mask != 0 {
            let o = part[mask.trailing_zeros() as usize].id as usize;
            mask &= mask - 1;
            if o != h && narrow.accept(h, o) {
                f(o);
            }
        }
    }
    n
}
