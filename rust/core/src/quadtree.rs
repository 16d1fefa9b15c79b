//! Quadtree (octree in 3D) placement: the seeds' cell of each box, with
//! the straddler fix, written once over the dimension.
//!
//! The seeds put each box in the smallest cell containing it
//! ([`crate::morton::xor_level_of`]).  The trap: a small box on a high split
//! line (`x = W/2`, say) lands at the root and is tested against everything,
//! O(n^2) for many such boxes.  Fix: a box whose XOR level `l` is more than
//! `slack` levels above its *fit level* `f` (the deepest level at which it
//! spans at most 2 cells per axis) is placed at level `max(l, f - slack)` in
//! each of the (at most 2 per axis) cells it overlaps there: exactly the
//! descendants of its seeds' cell that it touches, so it meets only the
//! objects of those subtrees.  The walk's reference-point rule
//! ([`crate::cells`]) reports each pair of replicated boxes once.
//!
//! Complexity: O(n) to place (at most 4 entries per box).  A box placed at
//! level `d` spans at least `2^-(slack+1)` of a level-`d` cell on some axis, so
//! it only meets boxes within a constant factor of its own reach: the
//! candidate tests are O(n + k) for sizes within a bounded ratio of the cell
//! size, straddlers included; only sizes spread over many octaves (or long
//! thin boxes meeting many others' cells) make them grow beyond the k pairs.

use crate::cells::Placement;
use crate::dim::Row;
use crate::morton::xor_level_of;
use crate::par::{split_at_bounds, Exec};
use crate::scratch;
use crate::world::Grid;

/// Smallest `s` with `(b >> s) - (a >> s) <= 1` (`a <= b`).
///
/// Starts from the lower bound `bitlen(b - a) - 1` (below it `b - a`
/// alone, shifted, still exceeds 1); the floors add at most one more step.
#[inline(always)]
fn fit_shift(a: u32, b: u32) -> u32 {
    let mut s = (u32::BITS - (b - a).leading_zeros()).saturating_sub(1);
    while (b >> s) - (a >> s) > 1 {
        s += 1;
    }
    s
}

/// Level of a box with integer range `c` (`[ix0, iy0, ix1, iy1]` in 2D,
/// `[ix0, iy0, iz0, ix1, iy1, iz1]` in 3D).
#[inline(always)]
pub fn level<const N: usize>(c: [u32; N], depth: u32, slack: u32) -> u32 {
    let home = xor_level_of(&c, depth);
    let fit = depth - (0..N / 2).fold(0, |m, k| m.max(fit_shift(c[k], c[N / 2 + k])));
    home.max(fit.saturating_sub(slack))
}

/// Level of each box, and the entries (1 to 2^D per box) of each chunk.
pub fn place<const N: usize>(
    boxes: &[[f64; N]],
    grid: &Grid<[f64; N]>,
    slack: u32,
    ex: &Exec,
) -> Placement
where
    [f64; N]: Row,
{
    let n = boxes.len();
    let mut levels = scratch::filled(n, 0u8);
    let bounds = Placement::chunks(n);
    let parts = split_at_bounds(&mut levels, &bounds);
    let counts = ex.for_work(n, 1 << 13).each(parts, |c, lv| {
        let mut total = 0u64;
        for (t, l_out) in lv.iter_mut().enumerate() {
            let q = grid.cells_of(&boxes[bounds[c] + t]);
            let l = level(q, grid.depth, slack);
            let s = grid.depth - l;
            *l_out = l as u8;
            total += Placement::cells_met(q, s);
        }
        total
    });
    Placement::new(levels, bounds, &counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_shift_is_the_smallest() {
        for a in 0..300u32 {
            for b in a..300 {
                let s = fit_shift(a, b);
                assert!((b >> s) - (a >> s) <= 1, "{a} {b}");
                assert!(s == 0 || (b >> (s - 1)) - (a >> (s - 1)) > 1, "{a} {b}");
            }
        }
    }

    #[test]
    fn straddler_goes_down_not_to_the_root() {
        // depth 4: a box of one cell's width on the middle line x = 8 cells
        let c = [7, 3, 8, 3];
        assert_eq!(crate::morton::xor_level_xy(7, 3, 8, 3, 4), 0); // the seeds' rule: the root
        assert_eq!(level(c, 4, 1), 3);
        assert_eq!(level(c, 4, 0), 4);
    }
}
