//! The number of colliding pairs of plain boxes in O(n log n), without listing them.
//!
//! For a search whose pairs would not fit in memory: the cell methods bound
//! their candidates from the cell populations before walking, and when the
//! bound is over budget this count decides, in a fraction of a second even
//! for 2e10 pairs, whether to raise `MemoryError` (naming this count) or go
//! on.
//!
//! # Derivation
//! Boxes `a`, `b` collide iff `a.x0 < b.x1 && b.x0 < a.x1` and likewise in y.
//! Process the boxes by `x0`, zero-width boxes first among equal `x0`, and
//! count for each box `b` the earlier boxes `a` with `a.x1 > b.x0` that meet
//! it in y.  For an earlier `a` (`a.x0 <= b.x0 <= b.x1`) the x test fails only
//! when `a.x1 <= b.x0`, or when `b.x1 == a.x0`, which forces `a.x0 == b.x0 ==
//! b.x1`: `b` has zero width and `a` shares its `x0`, so `a` came first only
//! if it has zero width too, and then `a.x1 == b.x0` fails the first test
//! anyway.  So "earlier and `a.x1 > b.x0`" is exactly "x-overlap".
//!
//! The earlier boxes with `a.x1 > b.x0` are the active set, kept in Fenwick
//! trees over the ranks of the y coordinates: those that miss `b` in y are
//! the ones with `a.y1 <= b.y0` plus those with `a.y0 >= b.y1`, minus those
//! with both, which forces `a.y0 == a.y1 == b.y0 == b.y1` (both of zero
//! height on one line), counted by a third tree.

/// The bits of `v`, as unsigned integers ordered as [`f64::total_cmp`]
/// orders the floats (negatives flipped whole, positives above them).
#[inline]
fn ordered(v: f64) -> u64 {
    let b = v.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// A Fenwick tree of counts over ranks `0..n`.
struct Fenwick(Vec<i64>);

impl Fenwick {
    fn new(n: usize) -> Fenwick {
        Fenwick(vec![0; n + 1])
    }

    fn add(&mut self, rank: usize, v: i64) {
        let mut i = rank + 1;
        while i < self.0.len() {
            self.0[i] += v;
            i += i & i.wrapping_neg();
        }
    }

    /// Sum over ranks `0..=rank`.
    fn upto(&self, rank: usize) -> i64 {
        let mut i = rank + 1;
        let mut s = 0;
        while i > 0 {
            s += self.0[i];
            i -= i & i.wrapping_neg();
        }
        s
    }
}

/// Number of pairs `i < j` of strictly overlapping boxes (finite, `min <= max`).
pub fn box_pairs(boxes: &[[f64; 4]]) -> u64 {
    let n = boxes.len();
    let mut ys: Vec<f64> = boxes.iter().flat_map(|b| [b[1], b[3]]).collect();
    ys.sort_unstable_by(f64::total_cmp);
    ys.dedup();
    let rank = |y: f64| ys.partition_point(|&v| v < y);
    // Sorted as records carrying their keys (comparing boxes through their
    // indices would read them at random, a cache miss a comparison once they
    // outgrow the caches); the index last, so equal keys keep the boxes' order.
    // by x0, zero-width boxes first among equal x0; `+ 0.0` makes -0.0 the
    // +0.0 it equals (total_cmp's order puts it first: a box at -0.0 would
    // come before a zero-width box at 0.0 and count as overlapping it)
    let mut keyed: Vec<(u64, bool, u32)> = boxes
        .iter()
        .enumerate()
        .map(|(k, b)| (ordered(b[0] + 0.0), b[2] > b[0], k as u32))
        .collect();
    keyed.sort_unstable();
    let order: Vec<u32> = keyed.iter().map(|r| r.2).collect();
    let mut keyed: Vec<(u64, u32)> = boxes
        .iter()
        .enumerate()
        .map(|(k, b)| (ordered(b[2] + 0.0), k as u32))
        .collect();
    keyed.sort_unstable();
    let by_x1: Vec<u32> = keyed.iter().map(|r| r.1).collect();
    drop(keyed);
    let (mut top, mut bottom, mut flat) = (
        Fenwick::new(ys.len()),
        Fenwick::new(ys.len()),
        Fenwick::new(ys.len()),
    );
    let mut inside = vec![false; n];
    let mut passed = vec![false; n];
    let (mut active, mut next, mut pairs) = (0i64, 0, 0u64);
    for &k in &order {
        let b = &boxes[k as usize];
        // boxes ending at or before b.x0 leave the active set
        while next < n && boxes[by_x1[next] as usize][2] <= b[0] {
            let a = by_x1[next] as usize;
            passed[a] = true;
            if inside[a] {
                inside[a] = false;
                let r = &boxes[a];
                top.add(rank(r[3]), -1);
                bottom.add(rank(r[1]), -1);
                if r[1] == r[3] {
                    flat.add(rank(r[1]), -1);
                }
                active -= 1;
            }
            next += 1;
        }
        let (r0, r1) = (rank(b[1]), rank(b[3]));
        let below = top.upto(r0); // a.y1 <= b.y0
        let above = active - if r1 > 0 { bottom.upto(r1 - 1) } else { 0 }; // a.y0 >= b.y1
        let both = if b[1] == b[3] {
            flat.upto(r0) - if r0 > 0 { flat.upto(r0 - 1) } else { 0 }
        } else {
            0
        };
        pairs += (active - below - above + both) as u64;
        if !passed[k as usize] {
            inside[k as usize] = true;
            top.add(r1, 1);
            bottom.add(r0, 1);
            if b[1] == b[3] {
                flat.add(r0, 1);
            }
            active += 1;
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naive;
    use crate::narrow::Narrow;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn counts_what_the_reference_finds(raw in proptest::collection::vec(
            (0i32..12, 0i32..12, 0i32..4, 0i32..4, any::<u8>()), 0..120)) {
            // a coarse lattice: ties, touching edges, points and lines
            // everywhere; a zero is -0.0 for a bit of `neg` (it equals 0.0)
            let z = |v: i32, neg: u8, bit: u8| match (v, neg >> bit & 1) {
                (0, 1) => -0.0,
                _ => v as f64,
            };
            let boxes: Vec<[f64; 4]> = raw.iter()
                .map(|&(x, y, w, h, neg)| {
                    [z(x, neg, 0), z(y, neg, 1), z(x + w, neg, 2), z(y + h, neg, 3)]
                })
                .collect();
            let want = naive::pairs(&boxes, &Narrow::default()).len() as u64;
            prop_assert_eq!(box_pairs(&boxes), want);
        }
    }

    #[test]
    fn ordered_is_total_cmp() {
        let v = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            2.5,
            1e300,
            f64::INFINITY,
        ];
        for a in v {
            for b in v {
                assert_eq!(ordered(a).cmp(&ordered(b)), a.total_cmp(&b), "{a} {b}");
            }
        }
    }

    #[test]
    fn a_box_at_minus_zero_misses_a_zero_width_box_at_zero() {
        // -0.0 < 0.0 is false: the boxes at -0.0 only touch the segments at 0
        let mut boxes: Vec<[f64; 4]> = (0..5)
            .map(|k| [-0.0, k as f64, 1.0, k as f64 + 1.0])
            .collect();
        boxes.extend([[0.0, 0.0, 0.0, 5.0]; 5]);
        assert_eq!(box_pairs(&boxes), 0);
    }

    #[test]
    fn identical_boxes() {
        assert_eq!(box_pairs(&vec![[0.0, 0.0, 1.0, 1.0]; 1000]), 1000 * 999 / 2);
        assert_eq!(box_pairs(&vec![[0.0, 0.0, 0.0, 0.0]; 10]), 0);
        assert_eq!(box_pairs(&[[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0]]), 1);
    }
}
