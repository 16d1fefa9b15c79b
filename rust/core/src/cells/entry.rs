//! One entry of a box in a cell, in walk order, and the pair tests among
//! the entries of a cell.
//!
//! Owns the tag encoding: the object's index, with [`REPLICA`] set when its
//! box is entered in more than one cell.  Invariant of the tests: a pair of
//! two replicated boxes is kept only in the cell holding its reference
//! point (the max of their integer min corners), so it is reported once;
//! a pair with an unreplicated box is met in one cell combination only.

use crate::dim::Row;
use crate::narrow::{boxes_overlap, Narrow};
use crate::pairs::{Sink, LOOK_EVERY};
use crate::scratch;

/// Tag bit of an entry whose box is entered in more than one cell.
const REPLICA: u32 = 1 << 31;

/// The tag of object `k`'s entry, replicated or not.
#[inline(always)]
pub(super) fn tag_of(k: usize, rep: bool) -> u32 {
    k as u32 | if rep { REPLICA } else { 0 }
}

/// The object index of a tag.
#[inline(always)]
pub(super) fn index_of(tag: u32) -> usize {
    (tag & !REPLICA) as usize
}

/// Whether a tag's box is entered in more than one cell.
#[inline(always)]
pub(super) fn replicated(tag: u32) -> bool {
    tag & REPLICA != 0
}

/// One entry of a box in a cell, in walk order: a box row `R` of 2D
/// (the default) or 3D ([`crate::dim`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ent<R: Row = [f64; 4]> {
    /// The box.
    pub(super) b: R,
    /// Integer min corner of the box (for the reference point).
    pub(super) q: R::Corner,
    /// Object index, with [`REPLICA`] set for replicated boxes.
    pub(super) tag: u32,
    /// Position of minx inside the cell (the key's low bits).
    pub(super) sub: u32,
}

scratch::pooled!(Ent, Ent<[f64; 6]>);

impl Ent {
    /// The entry of box `k` (replicated or not) in a cell of a 2D grid,
    /// its min corner in cell `(qx, qy)` (no in-cell position: the tree's
    /// kept order sorts a cell's entries by their minx, [`sort_by_minx`]).
    #[inline(always)]
    pub(crate) fn on_grid(b: [f64; 4], qx: u32, qy: u32, k: usize, rep: bool) -> Ent {
        Ent {
            b,
            q: [qx, qy],
            tag: tag_of(k, rep),
            sub: 0,
        }
    }
}

impl<R: Row> Ent<R> {
    /// The object's index.
    #[inline(always)]
    pub(crate) fn id(&self) -> u32 {
        index_of(self.tag) as u32
    }
}

/// Does the cell at finest corner `c`, `2^s` finest cells wide, hold the
/// reference point of entries `a` and `b` (the max of their min corners)?
#[inline(always)]
pub(super) fn holds<R: Row>(a: &Ent<R>, b: &Ent<R>, c: &R::Corner, s: u32) -> bool {
    let (qa, qb, c) = (a.q.as_ref(), b.q.as_ref(), c.as_ref());
    let mut here = true;
    for k in 0..R::D {
        here &= (qa[k].max(qb[k]) >> s) == (c[k] >> s);
    }
    here
}

/// Test `u` against `later`, the entries after it in its cell, until
/// `past(v)` tells that `v` and every entry after it start right of `u`:
/// the pairs into `out`; returns the tests.  With `at` (`u` replicated: its
/// cell's finest corner and level shift), a pair of two replicated boxes is
/// kept only in the cell holding its reference point.
#[inline(always)]
pub(super) fn later_pairs<const T: bool, const N: usize>(
    u: &Ent<[f64; N]>,
    later: &[Ent<[f64; N]>],
    past: impl Fn(&Ent<[f64; N]>) -> bool,
    at: Option<(&<[f64; N] as Row>::Corner, u32)>,
    narrow: &Narrow,
    out: &mut Sink,
) -> u64
where
    [f64; N]: Row,
{
    let iu = u.id();
    let mut tests = 0;
    for v in later {
        if past(v) {
            break;
        }
        tests += 1;
        let here = match at {
            None => true,
            Some((c, s)) => !replicated(v.tag) | holds(u, v, c, s),
        };
        let keep = boxes_overlap(&u.b, &v.b) & here;
        out.emit(
            narrow.judge::<T>(keep, iu as usize, v.id() as usize),
            iu,
            v.id(),
        );
    }
    tests
}

/// Sort one cell's entries by their minx ([`crate::nearly`]): the nearly
/// sorted cells of a kept order (each entry moves a place or two from one
/// frame to the next) cost an insertion sort, a cell out of order (as when
/// an order is made) never more than O(c log c).
#[inline]
pub(crate) fn sort_by_minx(a: &mut [Ent]) {
    crate::nearly::sort_by_key(a, |e| e.b[0]);
}

/// The pairs among the entries `own` of 2D grid cell `(cx, cy)` (one
/// level: no ancestors), sorted by minx ([`sort_by_minx`]), into `out`;
/// returns the candidate tests.
///
/// The early stop compares the boxes themselves: once an entry starts at or
/// past `u`'s maxx, it and every later one miss `u` (the box test is
/// strict), so the stop is exact and needs no in-cell position.  A pair of
/// two replicated boxes is kept only in the cell holding its reference
/// point, as in the walk over sorted entries.
pub(crate) fn grid_cell_pairs<const T: bool>(
    own: &[Ent],
    cx: u32,
    cy: u32,
    narrow: &Narrow,
    out: &mut Sink,
) -> u64 {
    let (mut tests, mut next_look) = (0u64, LOOK_EVERY);
    for (t, u) in own.iter().enumerate() {
        out.check_stop_at(tests, &mut next_look); // a crowded cell a filter rejects
        let umax = u.b[2];
        let c = [cx, cy];
        let at = replicated(u.tag).then_some((&c, 0));
        tests += later_pairs::<T, 4>(u, &own[t + 1..], |v| v.b[0] >= umax, at, narrow, out);
    }
    tests
}
