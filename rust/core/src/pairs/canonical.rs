//! The stored pairs of a search in the one canonical order: rows `(i, j)`,
//! `i < j`, sorted, as flat `[i0, j0, i1, j1, ...]` (and packed, for the
//! tree).
//!
//! Invariant: the output is the stored pairs fully sorted, whichever sink
//! held which pair and however many threads ran: every slot of the output
//! is written exactly once (a counting sort per bucket).

use super::packed::{first, second};
use super::sink::{Stored, LOOK_EVERY};
use crate::par::{split_at_bounds, Exec};
use crate::scratch;
use std::mem::MaybeUninit;

/// The stored pairs in canonical order, flat `[i, j, ...]`; `n` objects.
///
/// Per bucket, in parallel: a counting sort by `i` lays the pairs out in
/// rows of partners, and each row of two or more is sorted (insertion sort
/// for the usual few partners, a library sort for the long rows of big
/// boxes).  The result is the stored pairs sorted, whichever sinks held
/// them.
pub fn canonical(stored: &Stored, n: usize, ex: &Exec) -> Vec<isize> {
    canonical_with(stored, n, ex, None)
}

/// [`canonical`], and with `packed` the same pairs packed (`i << 32 | j`,
/// sorted) into it too (cleared first, its capacity reused): written as
/// each bucket's rows are, where packing the rows afterwards read them all
/// again.
pub fn canonical_with(
    stored: &Stored,
    n: usize,
    ex: &Exec,
    mut packed: Option<&mut Vec<u64>>,
) -> Vec<isize> {
    let Stored { buckets, sinks } = stored;
    let nb = buckets.count;
    let size: Vec<usize> = (0..nb)
        .map(|b| sinks.iter().map(|s| s[b].len()).sum())
        .collect();
    let k: usize = size.iter().sum();
    if let Some(p) = packed.as_deref_mut() {
        p.clear();
        p.reserve(k);
    }
    if k == 0 {
        return Vec::new();
    }
    let ex = ex.for_work(k, 1 << 15);
    let mut out: Vec<isize> = scratch::result(2 * k);
    let mut cuts = vec![0usize; nb + 1];
    for b in 0..nb {
        cuts[b + 1] = cuts[b] + size[b];
    }
    let flat_cuts: Vec<usize> = cuts.iter().map(|&c| 2 * c).collect();
    // Fresh pages fault on first touch: the buckets write them, in parallel
    // (never zeroed first).
    let parts = split_at_bounds(&mut out.spare_capacity_mut()[..2 * k], &flat_cuts);
    let packed_parts: Vec<Option<&mut [MaybeUninit<u64>]>> = match packed.as_deref_mut() {
        Some(p) => split_at_bounds(&mut p.spare_capacity_mut()[..k], &cuts)
            .into_iter()
            .map(Some)
            .collect(),
        None => (0..nb).map(|_| None).collect(),
    };
    let parts: Vec<_> = parts.into_iter().zip(packed_parts).collect();
    ex.each(parts, |b, (dst, pk)| {
        let base = b << buckets.shift;
        let w = (1usize << buckets.shift).min(n - base);
        let srcs: Vec<&[u64]> = sinks.iter().flat_map(|s| s[b].blocks()).collect();
        finish_bucket(&srcs, base, w, n, (dst, pk), &|| ex.check_stop());
    });
    // SAFETY: the parts tile 0..2k (flat_cuts run from 0 to 2k) and
    // finish_bucket writes every position of its part: its rows hold the
    // bucket's size[b] pairs end to end (a counting sort places each pair
    // exactly once), unpacked into 2 * size[b] values.  Likewise the packed
    // parts tile 0..k (cuts run from 0 to k) and finish_bucket writes each
    // of its size[b] pairs there.  Tested by `canonical_sorts_like_a_sort`
    // (both outputs) and `long_rows_and_many_buckets`.
    unsafe { out.set_len(2 * k) };
    if let Some(p) = packed {
        // SAFETY: as above: every one of the k slots was written.
        unsafe { p.set_len(k) };
    }
    out
}

/// Buckets of `j` the pairs of a bucket are first laid out by, so that its
/// rows come out nearly sorted.
const J_DIGITS: usize = 1024;
/// Below this many pairs a bucket sorts its rows as they come.
const J_FROM: usize = 4 * J_DIGITS;

/// The rows of one bucket of objects `base..base + w` (of `n`) into `dst`,
/// which holds exactly two slots per pair of `srcs`, and into `packed` (one
/// slot per pair) when given; every slot is written.
///
/// A counting sort by `i` lays the packed pairs out in rows; only rows of
/// two or more are sorted (most rows hold one partner or none), and a last
/// sequential pass unpacks them into `dst` (writing each row as it was
/// sorted cost a loop iteration per object, empty rows included, and a
/// running sum chained through memory a store-to-load wait per object:
/// together about as much as the rest).  Big buckets first lay their pairs
/// out by the high bits of `j` (a counting sort over [`J_DIGITS`] values),
/// and the stable sort by `i` keeps that order: every row is then sorted
/// but for partners that share their high bits, which the insertion sort
/// ([`crate::nearly`]) puts in
/// place in about one pass.  Sorting every long row from scratch (the rows
/// of big boxes hold dozens of partners) cost more than the extra pass.
fn finish_bucket(
    srcs: &[&[u64]],
    base: usize,
    w: usize,
    n: usize,
    (dst, packed): (&mut [MaybeUninit<isize>], Option<&mut [MaybeUninit<u64>]>),
    look: &dyn Fn(),
) {
    // a bucket may hold every pair of a search (one bucket up to 32,768
    // objects): `look` (the call's stop) every `LOOK_EVERY` pairs of a pass
    let looked = |x: usize| {
        if x.is_multiple_of(LOOK_EVERY as usize) {
            look();
        }
    };
    let k: usize = srcs.iter().map(|s| s.len()).sum();
    assert_eq!(dst.len(), 2 * k, "a bucket's rows fill its part exactly");
    assert!(
        packed.as_ref().is_none_or(|p| p.len() == k),
        "a bucket's packed pairs fill their part exactly"
    );
    let mut start = vec![0u32; w + 1];
    for (x, &p) in srcs.iter().copied().flatten().enumerate() {
        looked(x);
        start[first(p) - base + 1] += 1;
    }
    prefix_sums(&mut start);
    // the pairs themselves, by row: a row sorted as packed pairs is sorted by j
    let mut rows = scratch::filled(k, 0u64);
    let mut place = |p: u64| {
        let u = first(p) - base;
        rows[start[u] as usize] = p;
        start[u] += 1;
    };
    if k >= J_FROM {
        let jshift = usize::BITS - (n.saturating_sub(1) / J_DIGITS).leading_zeros();
        let digit = |p: u64| (p as u32 >> jshift) as usize;
        let mut at = [0u32; J_DIGITS + 1];
        for (x, &p) in srcs.iter().copied().flatten().enumerate() {
            looked(x);
            at[digit(p) + 1] += 1;
        }
        prefix_sums(&mut at);
        let mut by_j = scratch::filled(k, 0u64);
        for (x, &p) in srcs.iter().copied().flatten().enumerate() {
            looked(x);
            let d = digit(p);
            by_j[at[d] as usize] = p;
            at[d] += 1;
        }
        by_j.iter().enumerate().for_each(|(x, &p)| {
            looked(x);
            place(p)
        });
        scratch::give(by_j);
    } else {
        srcs.iter()
            .copied()
            .flatten()
            .enumerate()
            .for_each(|(x, &p)| {
                looked(x);
                place(p)
            });
    }
    // start[u] is now where row u ends (and row u + 1 starts); most rows
    // hold one partner or none, and need no sort
    let mut lo = 0;
    look();
    for &end in &start[..w] {
        let hi = end as usize;
        if hi - lo > 1 {
            crate::nearly::sort_by_key(&mut rows[lo..hi], |&p| p);
        }
        lo = hi;
    }
    look();
    for (pair, &p) in dst.chunks_exact_mut(2).zip(rows.iter()) {
        pair[0].write(first(p) as isize);
        pair[1].write(second(p) as isize);
    }
    if let Some(pk) = packed {
        for (slot, &p) in pk.iter_mut().zip(rows.iter()) {
            slot.write(p);
        }
    }
    scratch::give(rows);
}

/// Counts into where each value's run starts: `a[0]` stays, `a[t]` becomes
/// the sum of `a[..=t]` (a running total, not a chain through memory).
fn prefix_sums(a: &mut [u32]) {
    let mut total = 0;
    for v in a.iter_mut() {
        total += *v;
        *v = total;
    }
}

#[cfg(test)]
mod tests {
    use super::super::packed::{concatenate, pack, Pairs};
    use super::super::sink::Buckets;
    use super::*;
    use proptest::prelude::*;

    fn reference(chunks: &[Pairs]) -> Vec<isize> {
        let mut all: Vec<u64> = chunks.iter().flatten().copied().collect();
        all.sort_unstable();
        all.iter()
            .flat_map(|&p| [first(p) as isize, second(p) as isize])
            .collect()
    }

    proptest! {
        #[test]
        fn canonical_sorts_like_a_sort(n in 2usize..200_000, raw in proptest::collection::vec(
            (any::<u32>(), any::<u32>(), 0usize..7), 0..12_000), w in 1usize..4) {
            let mut chunks: Vec<Pairs> = vec![Vec::new(); 7];
            let mut seen = std::collections::HashSet::new();
            for (a, b, c) in raw {
                let (i, j) = (a % n as u32, b % n as u32);
                if i != j && seen.insert(pack(i, j)) {
                    chunks[c].push(pack(i, j));
                }
            }
            let stored = Stored::from_chunks(&chunks, Buckets::for_objects(n));
            let want = reference(&chunks);
            prop_assert_eq!(canonical(&stored, n, &Exec::new(Some(w))), want.clone());
            // and packed alongside, into a buffer holding stale pairs
            let mut packed = vec![7u64; 5];
            let flat = canonical_with(&stored, n, &Exec::new(Some(w)), Some(&mut packed));
            prop_assert_eq!(&flat, &want);
            let unpacked = concatenate(&[&packed]);
            prop_assert_eq!(unpacked, want);
        }
    }

    #[test]
    fn long_rows_and_many_buckets() {
        let n = 1 << 20;
        let mut chunks: Vec<Pairs> = vec![Vec::new(); 3];
        for t in 0..100_000u32 {
            chunks[(t % 3) as usize].push(pack(5, 10 + (t * 7919) % 1_000_000)); // one long row
            chunks[(t % 3) as usize].push(pack(t * 10, t * 10 + 1));
        }
        for c in chunks.iter_mut() {
            c.sort_unstable();
            c.dedup();
        }
        // duplicates across chunks are not produced by kernels; remove them here
        let mut seen = std::collections::HashSet::new();
        for c in chunks.iter_mut() {
            c.retain(|p| seen.insert(*p));
        }
        let want = reference(&chunks);
        let stored = Stored::from_chunks(&chunks, Buckets::for_objects(n));
        assert_eq!(stored.buckets.count, 256);
        assert_eq!(canonical(&stored, n, &Exec::serial()), want);
        assert_eq!(canonical(&stored, n, &Exec::new(Some(2))), want);
    }
}
