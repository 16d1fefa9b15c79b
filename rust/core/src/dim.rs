//! The dimension of a search, and the one layout of a box over it.
//!
//! A box in `D` dimensions is a row of `N = 2 D` doubles, its low corner
//! first: `min_0, ..., min_{D-1}, max_0, ..., max_{D-1}` (2D: `minx, miny,
//! maxx, maxy`; 3D: `minx, miny, minz, maxx, maxy, maxz`).  A ball (a circle
//! in 2D, a sphere in 3D) is a row of `D + 1` doubles, its centre then its
//! radius.  This module owns both layouts: code written once over the
//! dimension reads a box through [`lo`], [`hi`] and [`overlap`] and is
//! generic over the row width `N`, bounded by [`Row`] (implemented for the
//! two widths there are, so `N / 2` is 2 or 3 wherever it is read).
//!
//! **Box rule**, in every dimension: two boxes collide when their open
//! interiors intersect, i.e. the overlap has positive length on every axis.
//! The `2 D` comparisons are exact on doubles.
//!
//! Written this way, a loop over `0..N / 2` has a constant trip count: the
//! compiler unrolls it, and a 2D kernel compiles to the code it had when
//! its four comparisons were spelled out.

/// A box row: `[f64; 4]` (2D) or `[f64; 6]` (3D), and the per-axis types
/// that go with it (stable Rust cannot size an array `N / 2` from a
/// generic `N`, so each width names them).
pub trait Row: Copy + Send + Sync + std::fmt::Debug + 'static {
    /// The dimension `D`.
    const D: usize;
    /// The width of a ball row (`D + 1`: centre, then radius).
    const BALL: usize;
    /// One double per axis (`[f64; D]`): a grid's origin and scales.
    type Axes: Copy
        + Default
        + PartialEq
        + Send
        + Sync
        + std::fmt::Debug
        + AsRef<[f64]>
        + AsMut<[f64]>;
    /// One cell coordinate per axis (`[u32; D]`): a box's integer corner.
    type Corner: Copy
        + Default
        + PartialEq
        + Eq
        + Send
        + Sync
        + std::fmt::Debug
        + AsRef<[u32]>
        + AsMut<[u32]>;
    /// A ball row (`[f64; D + 1]`: centre, then radius).
    type Ball: Copy
        + Default
        + PartialEq
        + Send
        + Sync
        + std::fmt::Debug
        + AsRef<[f64]>
        + AsMut<[f64]>;
    /// One `u32` per cell of a block of `2^D` cells (`[u32; 2^D]`): where a
    /// moving tree keeps an object's entries, one per cell it is entered in.
    type PerCell: Copy + Send + Sync + std::fmt::Debug + AsRef<[u32]> + AsMut<[u32]>;
    /// [`Row::PerCell`] with every value `v`.
    fn per_cell(v: u32) -> Self::PerCell;
}

impl Row for [f64; 4] {
    const D: usize = 2;
    const BALL: usize = 3;
    type Axes = [f64; 2];
    type Corner = [u32; 2];
    type Ball = [f64; 3];
    type PerCell = [u32; 4];
    fn per_cell(v: u32) -> [u32; 4] {
        [v; 4]
    }
}

impl Row for [f64; 6] {
    const D: usize = 3;
    const BALL: usize = 4;
    type Axes = [f64; 3];
    type Corner = [u32; 3];
    type Ball = [f64; 4];
    type PerCell = [u32; 8];
    fn per_cell(v: u32) -> [u32; 8] {
        [v; 8]
    }
}

/// A ball row in `D` dimensions: `[f64; 3]` (a circle, `D = 2`) or
/// `[f64; 4]` (a sphere, `D = 3`), its centre then its radius.
///
/// Code over balls names both widths, `fn f<const C: usize, const D:
/// usize>(c: &[f64; C]) where [f64; C]: BallRow<D>` (stable Rust cannot
/// write `[T; C - 1]`): with one impl per width the compiler infers `D`
/// from `C`, and an array of `D` values (a centre, a velocity) is a
/// `[T; D]`.
pub trait BallRow<const D: usize>: Copy + Send + Sync + std::fmt::Debug + 'static {}

impl BallRow<2> for [f64; 3] {}

impl BallRow<3> for [f64; 4] {}

/// The low coordinate of box `b` on axis `k` (`k < N / 2`).
#[inline(always)]
pub fn lo<const N: usize>(b: &[f64; N], k: usize) -> f64 {
    b[k]
}

/// The high coordinate of box `b` on axis `k` (`k < N / 2`).
#[inline(always)]
pub fn hi<const N: usize>(b: &[f64; N], k: usize) -> f64 {
    b[N / 2 + k]
}

/// Strict overlap of two boxes: positive length on every axis.
#[inline(always)]
pub fn overlap<const N: usize>(a: &[f64; N], b: &[f64; N]) -> bool {
    let mut keep = true;
    for k in 0..N / 2 {
        keep &= (a[k] < b[N / 2 + k]) & (b[k] < a[N / 2 + k]);
    }
    keep
}

/// Bit `t` set when box `a` strictly overlaps box `t` of `cols`, the boxes
/// as `N` coordinate columns in row order (at most 64 rows).
///
/// The comparisons of [`overlap`] over contiguous columns and into a mask
/// with no branch, which the compiler vectorises; callers then visit only
/// the set bits, the few overlapping boxes.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // row t of every column: no one slice to iterate
pub fn overlap_mask<const N: usize>(a: &[f64; N], cols: &[&[f64]; N]) -> u64 {
    let len = cols[0].len();
    debug_assert!(len <= 64 && cols.iter().all(|c| c.len() == len));
    let cols: [&[f64]; N] = std::array::from_fn(|c| &cols[c][..len]);
    let mut mask = 0u64;
    for t in 0..len {
        let mut keep = true;
        for k in 0..N / 2 {
            keep &= (a[k] < cols[N / 2 + k][t]) & (cols[k][t] < a[N / 2 + k]);
        }
        mask |= (keep as u64) << t;
    }
    mask
}

/// The bounds of nothing: every box's bounds absorb them (each low side
/// `+inf`, each high side `-inf`).
pub fn empty_bounds<const N: usize>() -> [f64; N] {
    std::array::from_fn(|c| {
        if c < N / 2 {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        }
    })
}

/// The bounds of two bounds (or boxes): each low side the least, each high
/// side the greatest.
#[inline]
pub fn union<const N: usize>(a: [f64; N], b: [f64; N]) -> [f64; N] {
    std::array::from_fn(|c| {
        if c < N / 2 {
            a[c].min(b[c])
        } else {
            a[c].max(b[c])
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touching_is_no_overlap_in_any_dimension() {
        let a = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
        // sharing a face, an edge, a corner: no collision
        assert!(!overlap(&a, &[1.0, 0.0, 0.0, 2.0, 1.0, 1.0]));
        assert!(!overlap(&a, &[0.0, 0.0, 1.0, 1.0, 1.0, 2.0]));
        assert!(!overlap(&a, &[1.0, 1.0, 1.0, 2.0, 2.0, 2.0]));
        // apart only in z
        assert!(!overlap(&a, &[0.5, 0.5, 1.5, 0.6, 0.6, 2.0]));
        assert!(overlap(&a, &[0.5, 0.5, 0.5, 0.6, 0.6, 2.0]));
        // equal boxes, and a zero-size box inside another
        assert!(overlap(&a, &a));
        assert!(overlap(&a, &[0.5, 0.5, 0.5, 0.5, 0.5, 0.5]));
        assert!(!overlap(&[0.5, 0.5, 0.5, 0.5], &[0.5, 0.5, 0.5, 0.5]));
        assert!(overlap(&[0.0, 0.0, 2.0, 2.0], &[1.0, 1.0, 3.0, 3.0]));
        assert!(!overlap(&[0.0, 0.0, 2.0, 2.0], &[2.0, 0.0, 4.0, 1.0]));
    }

    #[test]
    fn masks_agree_with_the_rule() {
        let mut rnd = {
            let mut s = 7u64;
            move || {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 33) % 5) as f64
            }
        };
        let rows: Vec<[f64; 6]> = (0..64)
            .map(|_| {
                let l = [rnd(), rnd(), rnd()];
                [l[0], l[1], l[2], l[0] + rnd(), l[1] + rnd(), l[2] + rnd()]
            })
            .collect();
        let cols: [Vec<f64>; 6] = std::array::from_fn(|c| rows.iter().map(|r| r[c]).collect());
        for a in &rows {
            for len in [0, 1, 17, 64] {
                let view: [&[f64]; 6] = std::array::from_fn(|c| &cols[c][..len]);
                let want = (0..len).fold(0u64, |m, t| {
                    let keep = (0..3).all(|k| a[k] < rows[t][3 + k] && rows[t][k] < a[3 + k]);
                    m | (keep as u64) << t
                });
                assert_eq!(overlap_mask(a, &view), want);
            }
        }
    }

    #[test]
    fn bounds() {
        let e = empty_bounds::<6>();
        assert_eq!(e[..3], [f64::INFINITY; 3]);
        assert_eq!(e[3..], [f64::NEG_INFINITY; 3]);
        let b = union(
            union(e, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]),
            [-1.0, 2.0, 0.0, 2.0, 9.0, 5.0],
        );
        assert_eq!(b, [-1.0, 1.0, 0.0, 3.0, 9.0, 5.0]);
        assert_eq!(lo(&b, 2), 0.0);
        assert_eq!(hi(&b, 1), 9.0);
    }
}
