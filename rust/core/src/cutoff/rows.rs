//! The pairs of a cell list with their vectors, in canonical order.
//!
//! A record is a pair `i < j` and the vector from the centre of `i` to
//! that of `j`, computed where the pair is found (the centres are then at
//! hand, in cell order; read again afterwards they come in object order,
//! one random read a pair).  Each chunk keeps its records in buckets of
//! objects by `i`, as the pair sinks do (`crate::pairs`), so that each
//! bucket is put in order on its own: a counting sort by `i` lays out its
//! rows, each row is sorted by `j` (an insertion sort: a handful of
//! partners), the vectors moving with their pairs.  Buckets are fixed by
//! the object count and every record lands in one slot: the result does not
//! depend on the threads.

use crate::par::{split_at_bounds, Exec};

/// A pair `i < j` and the vector from `i` to `j`.
#[derive(Clone, Copy, Debug)]
pub struct Rec {
    i: u32,
    j: u32,
    v: [f64; 3],
}

/// One chunk's records, by bucket of `i`.
pub struct Collect<'e> {
    shift: u32,
    buckets: Vec<Vec<Rec>>,
    ex: &'e Exec,
}

/// About this many buckets.
const BUCKET_BITS: u32 = 6;

/// The bucket shift for `objects` objects.
fn shift_for(objects: usize) -> u32 {
    (usize::BITS - objects.leading_zeros()).saturating_sub(BUCKET_BITS)
}

impl<'e> Collect<'e> {
    /// An empty collection for pairs of `objects` objects.
    pub fn new(objects: usize, ex: &'e Exec) -> Collect<'e> {
        let shift = shift_for(objects);
        Collect {
            shift,
            buckets: vec![Vec::new(); (objects >> shift) + 1],
            ex,
        }
    }

    /// Keep the pair of objects `a` and `b` (either order), `v` the vector
    /// from `a` to `b`.
    #[inline]
    pub fn put(&mut self, a: u32, b: u32, v: [f64; 3]) {
        let rec = if a < b {
            Rec { i: a, j: b, v }
        } else {
            Rec {
                i: b,
                j: a,
                v: v.map(|x| -x),
            }
        };
        self.buckets[(rec.i >> self.shift) as usize].push(rec);
    }

    /// Unwind if the search was stopped.
    pub fn check_stop(&self) {
        self.ex.check_stop();
    }

    /// The records kept.
    pub fn len(&self) -> usize {
        self.buckets.iter().map(Vec::len).sum()
    }
}

/// The records of `parts` (of `objects` objects) in canonical order: the
/// pairs, flat `[i0, j0, ...]`, and their vectors.
pub fn canonical(parts: &[Collect], objects: usize, ex: &Exec) -> (Vec<isize>, Vec<[f64; 3]>) {
    let shift = shift_for(objects);
    let nb = (objects >> shift) + 1;
    let mut cuts = vec![0usize; nb + 1];
    for b in 0..nb {
        cuts[b + 1] = cuts[b] + parts.iter().map(|p| p.buckets[b].len()).sum::<usize>();
    }
    let k = cuts[nb];
    let mut flat = vec![0isize; 2 * k];
    let mut vecs = vec![[0.0f64; 3]; k];
    let flat_cuts: Vec<usize> = cuts.iter().map(|&c| 2 * c).collect();
    let dst: Vec<_> = split_at_bounds(&mut flat, &flat_cuts)
        .into_iter()
        .zip(split_at_bounds(&mut vecs, &cuts))
        .collect();
    ex.for_work(k, 1 << 15).each(dst, |b, (pairs, vs)| {
        let base = b << shift;
        let width = (1usize << shift).min(objects - base);
        let recs = parts.iter().flat_map(|p| p.buckets[b].iter());
        // rows: a counting sort by i
        let mut start = vec![0usize; width + 1];
        for r in recs.clone() {
            start[r.i as usize - base + 1] += 1;
        }
        for t in 0..width {
            start[t + 1] += start[t];
        }
        let mut fill = start.clone();
        for r in recs {
            let at = &mut fill[r.i as usize - base];
            pairs[2 * *at] = r.i as isize;
            pairs[2 * *at + 1] = r.j as isize;
            vs[*at] = r.v;
            *at += 1;
        }
        // each row by j
        for t in 0..width {
            for x in start[t] + 1..start[t + 1] {
                let (j, v) = (pairs[2 * x + 1], vs[x]);
                let mut y = x;
                while y > start[t] && pairs[2 * (y - 1) + 1] > j {
                    pairs[2 * y + 1] = pairs[2 * (y - 1) + 1];
                    vs[y] = vs[y - 1];
                    y -= 1;
                }
                pairs[2 * y + 1] = j;
                vs[y] = v;
            }
        }
    });
    (flat, vecs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_like_a_sort_and_vectors_follow() {
        let ex = Exec::new(Some(2));
        let objects = 5000;
        let mut want = Vec::new();
        let mut parts = vec![Collect::new(objects, &ex), Collect::new(objects, &ex)];
        let mut s = 12345u64;
        for t in 0..20000 {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (a, b) = ((s >> 20) as u32 % 5000, (s >> 40) as u32 % 5000);
            if a == b || want.iter().any(|&(i, j, _)| (i, j) == (a.min(b), a.max(b))) {
                continue;
            }
            let v = [f64::from(b) - f64::from(a), 1.0, -2.0];
            let sign = if a < b { 1.0 } else { -1.0 };
            want.push((a.min(b), a.max(b), v.map(|x| sign * x)));
            parts[t % 2].put(a, b, v);
        }
        want.sort_by_key(|&(i, j, _)| (i, j));
        let (flat, vecs) = canonical(&parts, objects, &ex);
        let got: Vec<(u32, u32, [f64; 3])> = (0..vecs.len())
            .map(|p| (flat[2 * p] as u32, flat[2 * p + 1] as u32, vecs[p]))
            .collect();
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert_eq!((g.0, g.1), (w.0, w.1));
            assert_eq!(g.2, w.2);
        }
    }
}
