//! A ray through the tree's own cells: the candidates of a cast of few
//! rays, with no grid built for the call.
//!
//! # Derivation
//! Cut the ray's range `[0, S]` into `k` pieces at `s_i = S i / k` (in
//! floating point: non-decreasing in `i`, `s_0 = 0`, `s_k = S`, and each
//! cut is the same double for the two pieces that share it, so the pieces
//! cover `[0, S]`).  Every coordinate of `o + s d` is monotone in `s`, so
//! the exact points of piece `i` lie in the box spanned by its two ends;
//! those are computed in floating point and the box widened by a bound of
//! their error (below).  An object that a point of the piece lies strictly
//! inside overlaps that box strictly, so it is among the box's candidates
//! ([`Tree::candidates`]: the objects of the cells the box covers, at every
//! occupied level).  The pieces go in order along the ray; once the
//! caller's bound `limit()` of the entries it still needs lies below a
//! piece's first `s`, no object left can enter early enough (an object
//! whose interior holds a point of an earlier piece was found with it),
//! and the walk stops.
//!
//! # Error bound
//! `fl(o + fl(s d))` is within `u |s d| + u |o + fl(s d)| <= 2.01 u (|o| +
//! |s d|)` of `o + s d` (`u = 2^-53`), plus `2^-1074` for an `s d` that
//! underflows; the box is widened by `4 u (|o| + |s_b d|) + 2^-1022` per
//! axis (`s_b`, the piece's end, bounds `|s d|`), which also covers the
//! rounding of the widening itself.  A box that is not finite after that
//! (coordinates near the largest double) gives up: every live object is a
//! candidate.
//!
//! # Cost
//! `k` is the ray's length over the finest cell's side (at least 1), so a
//! piece's box covers about two cells a side at the finest level and its
//! ancestors above: a ray costs its pieces, not the tree's size.  The cast
//! takes this path when the pieces of all its rays are few beside the live
//! objects ([`super::Policy::ray_walk_share`]); else it builds a uniform
//! grid over the objects for the call ([`crate::rays`]).

use super::Tree;
use crate::rays::Cells;

/// Most pieces a ray is cut into on this path (a longer one takes the
/// grid).
const MAX_PIECES: f64 = (1u64 << 24) as f64;

/// The tree's cells along rays (its lists in sync).
pub(super) struct TreeCells<'a> {
    tree: &'a Tree,
    /// The finest cells' width and height.
    cell: [f64; 2],
}

impl<'a> TreeCells<'a> {
    /// The cells of `tree`, whose lists are in sync.
    pub fn new(tree: &'a Tree) -> TreeCells<'a> {
        let [x0, y0, x1, y1] = tree.placer.bounds;
        let side = (1u64 << tree.placer.grid.depth) as f64;
        TreeCells {
            tree,
            cell: [(x1 - x0) / side, (y1 - y0) / side],
        }
    }

    /// The pieces the ray `o + s d`, `s` in `[0, s_max]`, is cut into, or
    /// `None` when this path does not take it (an infinite or too long ray).
    pub fn pieces(&self, d: [f64; 2], s_max: f64) -> Option<u64> {
        let along = |a: usize| s_max * d[a].abs() / self.cell[a];
        let k = along(0).max(along(1)).ceil().max(1.0);
        (k <= MAX_PIECES).then_some(k as u64)
    }
}

/// The box holding the exact points `o + s d` for `s` in `[sa, sb]`
/// (`0 <= sa <= sb`), widened by the error bound of the module's doc.
fn piece_box(o: [f64; 2], d: [f64; 2], sa: f64, sb: f64) -> [f64; 4] {
    const U4: f64 = 4.0 * f64::EPSILON / 2.0; // 4 u
    let mut b = [0.0; 4];
    for a in 0..2 {
        let (p, q) = (o[a] + sa * d[a], o[a] + sb * d[a]);
        let w = U4 * (o[a].abs() + (sb * d[a]).abs()) + f64::MIN_POSITIVE;
        b[a] = p.min(q) - w;
        b[a + 2] = p.max(q) + w;
    }
    b
}

/// The walk never gives up (`false` would have the caller test every
/// slot, free ones too): a piece it cannot bound has every live object as
/// its candidates.
impl Cells<4> for TreeCells<'_> {
    fn visit<L, V>(&self, o: [f64; 2], d: [f64; 2], s_max: f64, limit: L, mut visit: V) -> bool
    where
        L: Fn() -> f64,
        V: FnMut(&[u32]),
    {
        let mut found: Vec<u32> = Vec::new();
        let k = self.pieces(d, s_max).unwrap_or(0);
        for i in 0..k {
            let sa = s_max * i as f64 / k as f64;
            let sb = if i + 1 == k {
                s_max
            } else {
                s_max * (i + 1) as f64 / k as f64
            };
            if limit() < sa {
                return true;
            }
            let b = piece_box(o, d, sa, sb);
            if !b.iter().all(|v| v.is_finite()) {
                break;
            }
            found.clear();
            self.tree.candidates(&b, |id, _| found.push(id as u32));
            visit(&found);
            if i + 1 == k {
                return true;
            }
        }
        // given up (or no piece): every live object
        found.clear();
        found.extend(self.tree.objects.live().map(|h| h as u32));
        visit(&found);
        true
    }
}
