//! Tiles of the Dask path: which tiles a box meets, which tile owns a pair.
//!
//! The plane is cut into `S` vertical strips at the edges `xs` (`S + 1` of
//! them, `-inf` and `+inf` at the ends), and strip `i` into `C` cells at
//! `ybounds[i]` (`C + 1` edges each, the same ends): tile `(i, c)` is the
//! half-open region `[xs[i], xs[i + 1]) x [ybounds[i][c], ybounds[i][c + 1])`
//! and its number is `rank[i * C + c]`.
//!
//! A point lies in exactly one tile: the strip whose lower edge is the last
//! one `<= x`, then the cell likewise in `y` (a binary search each).  A
//! closed box meets the strips from that of its `minx` to that of its
//! `maxx`, and in each the cells from that of its `miny` to that of its
//! `maxy`: every tile it meets, once.
//!
//! A pair of boxes that overlap (or touch) is found by every tile both meet;
//! it is *owned* by exactly one of them, the tile holding its reference
//! point, the lower-left corner of the two boxes' intersection
//! `(max(minx), max(miny))`.  That corner lies in both boxes, so the owner
//! is among the tiles that found the pair: nothing lost, nothing doubled.
//!
//! The functions are serial: a Dask task is one chunk, and the workers are
//! the parallelism.  Each makes two passes (count, then fill), so the only
//! memory is its output.
//!
//! # In 3D
//! The tiles cut the plane of the first two axes only: a tile is the column
//! `[x0, x1) x [y0, y1) x (-inf, inf)`, so a 3D box meets the tiles its x-y
//! shadow meets.  Two overlapping 3D boxes still share the lower-left
//! corner of their intersection's shadow, `(max(minx), max(miny))`, which lies
//! in both shadows, so the same rule owns each pair once.  The functions
//! are written once over the row ([`crate::dim::Row`]: 4 or 6 values) and
//! read axes 0 and 1 of it ([`lo`], [`hi`]).

use crate::dim::{hi, lo, Row};
use crate::hints::prefetch;

/// The strips and cells of a tiling (see the module doc), as flat arrays.
///
/// Invariants, checked by [`Tiling::new`]: `xs` has `S + 1 >= 2` sorted
/// edges, `ybounds` is `S` rows of `C + 1 >= 2` sorted edges (row-major),
/// and `rank` is a permutation of `0..S * C`.
#[derive(Clone, Copy, Debug)]
pub struct Tiling<'a> {
    xs: &'a [f64],
    ybounds: &'a [f64],
    cells: usize,
    rank: &'a [i64],
}

/// Index of the last of the sorted `edges` that is `<= v`, clamped to
/// `0..=top` (an edge list starting at `-inf` never needs the clamp for a
/// number; it keeps a NaN or a stray edge list in bounds).
#[inline]
fn last_at_most(edges: &[f64], v: f64, top: usize) -> usize {
    edges
        .partition_point(|&e| e <= v)
        .saturating_sub(1)
        .min(top)
}

impl<'a> Tiling<'a> {
    /// A tiling from its arrays, or what is wrong with them.
    pub fn new(
        xs: &'a [f64],
        ybounds: &'a [f64],
        cells_plus_one: usize,
        rank: &'a [i64],
    ) -> Result<Tiling<'a>, String> {
        if xs.len() < 2 {
            return Err(format!(
                "xs: expected at least 2 strip edges, found {}",
                xs.len()
            ));
        }
        let strips = xs.len() - 1;
        if cells_plus_one < 2 || ybounds.len() != strips * cells_plus_one {
            return Err(format!(
                "ybounds: expected {strips} rows of at least 2 cell edges, found {} values in rows of {cells_plus_one}",
                ybounds.len()
            ));
        }
        let sorted = |e: &[f64]| e.windows(2).all(|w| w[0] <= w[1]);
        if !sorted(xs) || !ybounds.chunks_exact(cells_plus_one).all(sorted) {
            return Err("xs, ybounds: expected sorted edges".into());
        }
        let tiles = strips * (cells_plus_one - 1);
        let mut seen = vec![false; tiles];
        if rank.len() != tiles
            || !rank.iter().all(|&r| {
                usize::try_from(r)
                    .is_ok_and(|r| r < tiles && !std::mem::replace(&mut seen[r], true))
            })
        {
            return Err(format!("rank: expected a permutation of 0..{tiles}"));
        }
        Ok(Tiling {
            xs,
            ybounds,
            cells: cells_plus_one - 1,
            rank,
        })
    }

    /// Number of tiles.
    pub fn tiles(&self) -> usize {
        self.rank.len()
    }

    fn strips(&self) -> usize {
        self.xs.len() - 1
    }

    fn strip_of(&self, x: f64) -> usize {
        last_at_most(self.xs, x, self.strips() - 1)
    }

    fn row(&self, strip: usize) -> &'a [f64] {
        let w = self.cells + 1;
        &self.ybounds[strip * w..(strip + 1) * w]
    }

    fn cell_of(&self, strip: usize, y: f64) -> usize {
        last_at_most(self.row(strip), y, self.cells - 1)
    }

    fn number(&self, strip: usize, cell: usize) -> usize {
        self.rank[strip * self.cells + cell] as usize
    }

    /// The number of the tile holding the point `(x, y)`.
    pub fn tile_of(&self, x: f64, y: f64) -> usize {
        let i = self.strip_of(x);
        self.number(i, self.cell_of(i, y))
    }

    /// Every tile the closed box `b` (2D or 3D: its x-y shadow) meets, once
    /// each.
    fn each_tile<const N: usize>(&self, b: &[f64; N], mut f: impl FnMut(usize)) {
        for i in self.strip_of(lo(b, 0))..=self.strip_of(hi(b, 0)) {
            for c in self.cell_of(i, lo(b, 1))..=self.cell_of(i, hi(b, 1)) {
                f(self.number(i, c));
            }
        }
    }
}

/// Rows of `boxes` (2D or 3D) grouped by the tiles they meet: `(order, starts)`.
///
/// `order[starts[t]..starts[t + 1]]` are the rows meeting tile `t`, in
/// increasing order; a row appears once per tile it meets.
pub fn split_by_tile<const N: usize>(boxes: &[[f64; N]], t: &Tiling) -> (Vec<i64>, Vec<i64>)
where
    [f64; N]: Row,
{
    let n = t.tiles();
    let mut starts = vec![0i64; n + 1];
    for b in boxes {
        t.each_tile(b, |k| starts[k + 1] += 1);
    }
    for k in 0..n {
        starts[k + 1] += starts[k];
    }
    let mut order = vec![0i64; starts[n] as usize];
    let mut fill: Vec<usize> = starts[..n].iter().map(|&s| s as usize).collect();
    for (row, b) in boxes.iter().enumerate() {
        t.each_tile(b, |k| {
            order[fill[k]] = row as i64;
            fill[k] += 1;
        });
    }
    (order, starts)
}

/// What [`owned_pairs`] works on: one tile's boxes (rows of `N` values, 2D
/// or 3D) and their pairs.
///
/// Invariant, checked by [`TilePairs::new`]: every pair indexes `boxes`, and
/// `rows` has one global row per box.
#[derive(Clone, Copy, Debug)]
pub struct TilePairs<'a, const N: usize = 4> {
    pairs: &'a [[i64; 2]],
    boxes: &'a [[f64; N]],
    rows: &'a [i64],
}

impl<'a, const N: usize> TilePairs<'a, N>
where
    [f64; N]: Row,
{
    /// Pairs `[a, b]` of indices into `boxes`, and the global row of each
    /// box; or what is wrong with them.
    pub fn new(
        pairs: &'a [[i64; 2]],
        boxes: &'a [[f64; N]],
        rows: &'a [i64],
    ) -> Result<TilePairs<'a, N>, String> {
        let n = boxes.len();
        if rows.len() != n {
            return Err(format!(
                "rows: expected {n} global rows, found {}",
                rows.len()
            ));
        }
        if let Some(k) = pairs.iter().position(|p| {
            p.iter()
                .any(|&i| usize::try_from(i).map_or(true, |i| i >= n))
        }) {
            return Err(format!(
                "pairs[{k}]: expected indices of the {n} boxes, found {:?}",
                pairs[k]
            ));
        }
        Ok(TilePairs { pairs, boxes, rows })
    }
}

/// The pairs tile `tile` owns, as global rows, grouped by bucket: `(out, cut)`.
///
/// A pair is owned by the tile holding `(max(minx), max(miny))` of its two
/// boxes (in 3D too: the tiles are columns over the x-y plane).  It comes
/// out as `(min, max)` of its global rows, in the bucket `q` with `edges[q]
/// <= min < edges[q + 1]` (a first row below every edge goes to bucket 0),
/// the pairs of a bucket in their input order: `out[cut[q]..cut[q + 1]]`
/// (flat, two values a pair).
pub fn owned_pairs<const N: usize>(
    p: &TilePairs<N>,
    t: &Tiling,
    tile: usize,
    edges: &[i64],
) -> (Vec<i64>, Vec<i64>)
where
    [f64; N]: Row,
{
    let nb = edges.len().saturating_sub(1);
    let mut bucket = vec![usize::MAX; p.pairs.len()];
    let mut cut = vec![0i64; nb + 1];
    if nb == 0 {
        return (Vec::new(), cut);
    }
    // The pairs come sorted by their first box, so the second boxes (and
    // their rows, in the fill pass) are read in no order: ask for them a few
    // pairs ahead, so that several cache misses are in flight at once.
    const AHEAD: usize = 16;
    for (k, &[a, b]) in p.pairs.iter().enumerate() {
        if let Some(&[_, later]) = p.pairs.get(k + AHEAD) {
            prefetch(&p.boxes[later as usize]);
            prefetch(&p.rows[later as usize]);
        }
        let (ba, bb) = (&p.boxes[a as usize], &p.boxes[b as usize]);
        if t.tile_of(lo(ba, 0).max(lo(bb, 0)), lo(ba, 1).max(lo(bb, 1))) == tile {
            let first = p.rows[a as usize].min(p.rows[b as usize]);
            let q = edges
                .partition_point(|&e| e <= first)
                .saturating_sub(1)
                .min(nb - 1);
            bucket[k] = q;
            cut[q + 1] += 1;
        }
    }
    for q in 0..nb {
        cut[q + 1] += cut[q];
    }
    let mut out = vec![0i64; 2 * cut[nb] as usize];
    let mut fill: Vec<usize> = cut[..nb].iter().map(|&c| c as usize).collect();
    for (k, &[a, b]) in p.pairs.iter().enumerate() {
        let q = bucket[k];
        if q != usize::MAX {
            let (ra, rb) = (p.rows[a as usize], p.rows[b as usize]);
            out[2 * fill[q]] = ra.min(rb);
            out[2 * fill[q] + 1] = ra.max(rb);
            fill[q] += 1;
        }
    }
    (out, cut)
}

/// `pairs` (first value in `lo..hi`) in canonical order, flat.
///
/// A counting sort by the first value (`hi - lo` counters: a bucket is a
/// range of rows), then each run of one first value sorted by the second.
/// O(k + hi - lo) instead of a comparison sort's O(k log k).
pub fn sort_pairs(pairs: &[[i64; 2]], lo: i64, hi: i64) -> Vec<i64> {
    let width = (hi - lo).max(0) as usize;
    let mut end = vec![0usize; width + 1];
    for p in pairs {
        end[(p[0] - lo) as usize + 1] += 1;
    }
    for r in 0..width {
        end[r + 1] += end[r];
    }
    let mut out = vec![0i64; 2 * pairs.len()];
    let mut second = vec![0i64; pairs.len()];
    for p in pairs {
        let r = (p[0] - lo) as usize;
        second[end[r]] = p[1];
        end[r] += 1;
    }
    // end[r] is now the end of run r; each run sorted by the second value
    let mut first = 0;
    for (r, &last) in end[..width].iter().enumerate() {
        second[first..last].sort_unstable();
        for (k, &j) in second[first..last].iter().enumerate() {
            out[2 * (first + k)] = lo + r as i64;
            out[2 * (first + k) + 1] = j;
        }
        first = last;
    }
    out
}

/// Whether every pair's first value lies in `lo..hi`: the contract of
/// [`sort_pairs`], checked at the boundary.
pub fn firsts_within(pairs: &[[i64; 2]], lo: i64, hi: i64) -> bool {
    pairs.iter().all(|p| (lo..hi).contains(&p[0]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::TestCaseError;

    /// Strip and cell edges on a small integer grid (boxes touch them),
    /// numbered by a shuffled permutation.
    fn tiling_parts(strips: usize, cells: usize, seed: u64) -> (Vec<f64>, Vec<f64>, Vec<i64>) {
        let mut s = seed | 1;
        let mut rnd = move |m: u64| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s % m
        };
        let mut inner: Vec<f64> = (1..strips).map(|_| rnd(20) as f64).collect();
        inner.sort_by(f64::total_cmp);
        let xs: Vec<f64> = [f64::NEG_INFINITY]
            .into_iter()
            .chain(inner)
            .chain([f64::INFINITY])
            .collect();
        let mut yb = Vec::new();
        for _ in 0..strips {
            let mut row: Vec<f64> = (1..cells).map(|_| rnd(20) as f64).collect();
            row.sort_by(f64::total_cmp);
            yb.push(f64::NEG_INFINITY);
            yb.extend(row);
            yb.push(f64::INFINITY);
        }
        let mut rank: Vec<i64> = (0..(strips * cells) as i64).collect();
        for k in (1..rank.len()).rev() {
            rank.swap(k, rnd(k as u64 + 1) as usize);
        }
        (xs, yb, rank)
    }

    /// The half-open region of tile (i, c).
    fn region(xs: &[f64], yb: &[f64], cells: usize, i: usize, c: usize) -> [f64; 4] {
        let w = cells + 1;
        [xs[i], yb[i * w + c], xs[i + 1], yb[i * w + c + 1]]
    }

    /// [`split_by_tile`] and [`owned_pairs`] of `boxes` (2D or 3D) against
    /// the half-open regions of a random tiling, written out.
    fn against_the_regions<const N: usize>(
        (strips, cells, seed): (usize, usize, u64),
        boxes: &[[f64; N]],
        bucket_edges: &[i64],
    ) -> Result<(), TestCaseError>
    where
        [f64; N]: Row,
    {
        let (xs, yb, rank) = tiling_parts(strips, cells, seed);
        let t = Tiling::new(&xs, &yb, cells + 1, &rank).unwrap();
        // a closed box meets a region (a column in 3D) when its x-y shadow does
        let meets = |b: &[f64; N], r: &[f64; 4]| {
            lo(b, 0) < r[2] && hi(b, 0) >= r[0] && lo(b, 1) < r[3] && hi(b, 1) >= r[1]
        };
        let (order, starts) = split_by_tile(boxes, &t);
        for i in 0..strips {
            for c in 0..cells {
                let r = region(&xs, &yb, cells, i, c);
                let k = rank[i * cells + c] as usize;
                let want: Vec<i64> = (0..boxes.len() as i64)
                    .filter(|&j| meets(&boxes[j as usize], &r))
                    .collect();
                prop_assert_eq!(
                    &order[starts[k] as usize..starts[k + 1] as usize],
                    &want[..]
                );
            }
        }
        // every pair of these boxes (touching ones too) owned by one tile,
        // the one whose region holds its reference point
        let n = boxes.len() as i64;
        let pairs: Vec<[i64; 2]> = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| [a, b]))
            .collect();
        let rows: Vec<i64> = (0..n).map(|k| (k * 7919) % 401).collect();
        let mut edges = bucket_edges.to_vec();
        edges.sort_unstable();
        edges.insert(0, 0);
        edges.push(401);
        let p = TilePairs::new(&pairs, boxes, &rows).unwrap();
        let mut seen = 0;
        for i in 0..strips {
            for c in 0..cells {
                let r = region(&xs, &yb, cells, i, c);
                let (out, cut) = owned_pairs(&p, &t, rank[i * cells + c] as usize, &edges);
                for q in 0..edges.len() - 1 {
                    let want: Vec<i64> = pairs
                        .iter()
                        .filter(|&&[a, b]| {
                            let (ba, bb) = (&boxes[a as usize], &boxes[b as usize]);
                            let (px, py) = (ba[0].max(bb[0]), ba[1].max(bb[1]));
                            let first = rows[a as usize].min(rows[b as usize]);
                            px >= r[0]
                                && px < r[2]
                                && py >= r[1]
                                && py < r[3]
                                && first >= edges[q]
                                && first < edges[q + 1]
                        })
                        .flat_map(|&[a, b]| {
                            let (ra, rb) = (rows[a as usize], rows[b as usize]);
                            [ra.min(rb), ra.max(rb)]
                        })
                        .collect();
                    prop_assert_eq!(
                        &out[2 * cut[q] as usize..2 * cut[q + 1] as usize],
                        &want[..]
                    );
                }
                seen += out.len() / 2;
            }
        }
        prop_assert_eq!(seen, pairs.len());
        Ok(())
    }

    proptest! {
        #[test]
        fn tiles_against_the_half_open_regions(
            strips in 1usize..5, cells in 1usize..5, seed: u64,
            raw in prop::collection::vec((-2i32..22, -2i32..22, 0i32..8, 0i32..8), 0..40),
            bucket_edges in prop::collection::vec(0i64..400, 0..4),
        ) {
            let boxes: Vec<[f64; 4]> = raw
                .iter()
                .map(|&(x, y, w, h)| [x as f64, y as f64, (x + w) as f64, (y + h) as f64])
                .collect();
            against_the_regions((strips, cells, seed), &boxes, &bucket_edges)?;
        }

        #[test]
        fn columns_in_3d_against_the_half_open_regions(
            strips in 1usize..5, cells in 1usize..5, seed: u64,
            raw in prop::collection::vec(
                ((-2i32..22, -2i32..22, -5i32..5), (0i32..8, 0i32..8, 0i32..4)), 0..40),
            bucket_edges in prop::collection::vec(0i64..400, 0..4),
        ) {
            let boxes: Vec<[f64; 6]> = raw
                .iter()
                .map(|&((x, y, z), (w, h, d))| {
                    [x, y, z, x + w, y + h, z + d].map(f64::from)
                })
                .collect();
            against_the_regions((strips, cells, seed), &boxes, &bucket_edges)?;
            // the tiles of a 3D box are those of its x-y shadow, and so are
            // the pairs a tile owns
            let shadows: Vec<[f64; 4]> = boxes.iter().map(|b| [b[0], b[1], b[3], b[4]]).collect();
            let (xs, yb, rank) = tiling_parts(strips, cells, seed);
            let t = Tiling::new(&xs, &yb, cells + 1, &rank).unwrap();
            prop_assert_eq!(split_by_tile(&boxes, &t), split_by_tile(&shadows, &t));
            let n = boxes.len() as i64;
            let pairs: Vec<[i64; 2]> = (0..n).flat_map(|a| (a + 1..n).map(move |b| [a, b])).collect();
            let rows: Vec<i64> = (0..n).collect();
            let (p3, p2) = (
                TilePairs::new(&pairs, &boxes, &rows).unwrap(),
                TilePairs::new(&pairs, &shadows, &rows).unwrap(),
            );
            for tile in 0..t.tiles() {
                let edges = [0, n.max(1)];
                prop_assert_eq!(owned_pairs(&p3, &t, tile, &edges), owned_pairs(&p2, &t, tile, &edges));
            }
        }

        #[test]
        fn sort_pairs_is_the_canonical_order(
            lo in 0i64..1000, width in 1i64..40,
            raw in prop::collection::vec((0i64..40, 1i64..50), 0..300),
        ) {
            let mut pairs: Vec<[i64; 2]> = raw.iter().map(|&(i, d)| [lo + i % width, lo + i % width + d]).collect();
            if pairs.len() > 40 {
                // one first value with a long run, as a huge box makes
                let k = pairs.len() / 2;
                for p in &mut pairs[..k] {
                    p[1] += p[0] - lo;
                    p[0] = lo;
                }
            }
            prop_assert!(firsts_within(&pairs, lo, lo + width));
            let mut want = pairs.clone();
            want.sort_unstable();
            let want: Vec<i64> = want.into_iter().flatten().collect();
            prop_assert_eq!(sort_pairs(&pairs, lo, lo + width), want);
        }
    }

    #[test]
    fn bad_tilings_are_named() {
        let inf = f64::INFINITY;
        let xs = [-inf, 0.0, inf];
        let yb = [-inf, inf, -inf, inf];
        assert!(Tiling::new(&xs, &yb, 2, &[1, 0]).is_ok());
        assert!(Tiling::new(&xs[..1], &yb, 2, &[1, 0])
            .unwrap_err()
            .starts_with("xs:"));
        assert!(Tiling::new(&xs, &yb[..3], 2, &[1, 0])
            .unwrap_err()
            .starts_with("ybounds:"));
        assert!(Tiling::new(&[inf, -inf, 0.0], &yb, 2, &[1, 0])
            .unwrap_err()
            .contains("sorted"));
        assert!(Tiling::new(&xs, &yb, 2, &[0, 0])
            .unwrap_err()
            .starts_with("rank:"));
        assert!(Tiling::new(&xs, &yb, 2, &[0, 2])
            .unwrap_err()
            .starts_with("rank:"));
        assert!(Tiling::new(&xs, &yb, 2, &[0])
            .unwrap_err()
            .starts_with("rank:"));
        let b = [[0.0; 4]; 2];
        assert!(TilePairs::new(&[[0, 1]], &b, &[5, 6]).is_ok());
        assert!(TilePairs::new(&[[0, 2]], &b, &[5, 6])
            .unwrap_err()
            .starts_with("pairs[0]:"));
        assert!(TilePairs::new(&[[-1, 1]], &b, &[5, 6])
            .unwrap_err()
            .starts_with("pairs[0]:"));
        assert!(TilePairs::new(&[], &b, &[5])
            .unwrap_err()
            .starts_with("rows:"));
    }
}
