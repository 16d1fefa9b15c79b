//! Pair output: per-chunk buffers and the one canonical pair order.
//!
//! Kernels split their work into chunks fixed by the data; each chunk pushes
//! its pairs, packed as `min << 32 | max` (object indices are below `2^31`),
//! to its own [`Pairs`] buffer.  [`canonical`] then turns the buffers into
//! the public convention: rows `(i, j)`, `i < j`, sorted by `(i, j)`, as a
//! flat `[i0, j0, i1, j1, ...]` vector of `isize` (NumPy's `intp`).
//!
//! The order costs O(n + k) for k pairs of n objects, in parallel:
//! 1. split the pairs by the high bits of `i` into at most 256 buckets of at
//!    least 4096 objects (a histogram and a scatter per chunk buffer,
//!    positions laid out bucket-major, chunk-minor: deterministic for any
//!    thread count);
//! 2. per bucket, in cache: a counting sort by `i` gives every object's row
//!    of partners, and each row is sorted (insertion sort for the usual few
//!    partners, a library sort for the long rows of big boxes).

use crate::par::{split_at_bounds, Exec, Scatter};
use crate::scratch;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// A chunk's pairs, packed `min << 32 | max`.
pub type Pairs = Vec<u64>;

/// Pack the unordered pair `{i, j}` (`i != j`, both below `2^31`).
#[inline(always)]
pub fn pack(i: u32, j: u32) -> u64 {
    ((i.min(j) as u64) << 32) | i.max(j) as u64
}

/// Bytes a stored pair costs at the peak of a search: the chunk buffer
/// (8), the bucketed copy (8), the row sort's partners (4) and the result
/// (16), rounded up.
pub const BYTES_PER_PAIR: u64 = 40;

/// How many pairs a search may store before it only counts the rest.
///
/// Shared by the chunks of one search: each adds what it stored in steps, so
/// once the total passes the limit every chunk stops storing (within one
/// step) and goes on counting, and the search ends with the exact count and
/// no more memory than the limit allows.
#[derive(Debug)]
pub struct Budget {
    limit: OnceLock<u64>,
    stored: AtomicU64,
}

impl Budget {
    /// A budget of `limit` pairs.
    pub fn new(limit: u64) -> Budget {
        Budget {
            limit: OnceLock::from(limit),
            stored: AtomicU64::new(0),
        }
    }

    /// A budget of what the available memory holds, looked up only once a
    /// search has stored many pairs (reading it costs more than a small search).
    pub fn of_memory() -> Budget {
        Budget {
            limit: OnceLock::new(),
            stored: AtomicU64::new(0),
        }
    }

    /// Most pairs this budget holds.
    pub fn limit(&self) -> u64 {
        *self
            .limit
            .get_or_init(|| crate::par::available_memory() / BYTES_PER_PAIR)
    }
}

/// Pairs a chunk stores after every `STEP` it reports to the budget.
const STEP: usize = 1 << 16;
/// Pairs gathered on the stack before they move to the chunk's buffer.
const BUF: usize = 256;

/// Where a chunk's pairs go: stored while the budget allows, counted always.
///
/// [`Sink::emit`] is branch-free: every candidate is written to the next
/// slot of a small local buffer and only a kept one advances the count (a
/// mispredicted branch per candidate costs more than the store); the buffer
/// moves to the chunk's vector when full.
pub struct Sink<'a> {
    buf: [u64; BUF],
    fill: usize,
    out: Pairs,
    budget: &'a Budget,
    reported: usize,
    dropped: u64,
    storing: bool,
}

impl<'a> Sink<'a> {
    /// An empty sink drawing on `budget`.
    pub fn new(budget: &'a Budget) -> Sink<'a> {
        Sink {
            buf: [0; BUF],
            fill: 0,
            out: Pairs::new(),
            budget,
            reported: 0,
            dropped: 0,
            storing: true,
        }
    }

    /// Keep `{i, j}` when `keep` (stored, or only counted once over budget).
    #[inline(always)]
    pub fn emit(&mut self, keep: bool, i: u32, j: u32) {
        // fill < BUF always holds here: the mask only spares a bounds check
        self.buf[self.fill & (BUF - 1)] = pack(i, j);
        self.fill += keep as usize;
        if self.fill == BUF {
            self.flush();
        }
    }

    /// Move the local buffer out; every `STEP` stored pairs, report to the
    /// budget and stop storing once it is exhausted (the stored pairs are
    /// then dropped, only counts remain).
    #[cold]
    fn flush(&mut self) {
        if self.storing {
            self.out.extend_from_slice(&self.buf[..self.fill]);
        } else {
            self.dropped += self.fill as u64;
        }
        self.fill = 0;
        if self.out.len() - self.reported >= STEP {
            let new = (self.out.len() - self.reported) as u64;
            self.reported = self.out.len();
            let total = self.budget.stored.fetch_add(new, Ordering::Relaxed) + new;
            if total > self.budget.limit() {
                self.storing = false;
                self.dropped += self.out.len() as u64;
                self.out = Pairs::new();
                self.reported = 0;
            }
        }
    }

    /// Total pairs found (stored and dropped).
    pub fn found(&self) -> u64 {
        (self.out.len() + self.fill) as u64 + self.dropped
    }
}

/// A search found more pairs than its budget holds: how many.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooMany(pub u64);

/// The result of a search's chunks: every chunk's pairs, or the total count
/// when they did not fit in the budget.
pub fn finish(sinks: Vec<Sink>) -> Result<Vec<Pairs>, TooMany> {
    let total: u64 = sinks.iter().map(Sink::found).sum();
    if sinks.iter().any(|s| s.dropped > 0 || !s.storing) {
        return Err(TooMany(total));
    }
    Ok(sinks
        .into_iter()
        .map(|mut s| {
            // the last partial buffer: at most BUF pairs past the budget
            s.out.extend_from_slice(&s.buf[..s.fill]);
            s.out
        })
        .collect())
}

/// Up to this many objects, the row counts fit in cache: one bucket.
const SMALL: usize = 1 << 15;

/// log2 of the objects per bucket: at least 4096 (or n), at most 256 buckets.
fn bucket_shift(n: usize) -> u32 {
    let mut shift = 0;
    while (n.saturating_sub(1) >> shift) >= 256 || (1usize << shift) < n.min(4096) {
        shift += 1;
    }
    shift
}

/// The pairs of every chunk in canonical order, flat `[i, j, ...]`.
pub fn canonical(chunks: &[Pairs], n: usize, ex: &Exec) -> Vec<isize> {
    let k: usize = chunks.iter().map(Vec::len).sum();
    if k == 0 {
        return Vec::new();
    }
    let ex = ex.for_work(k, 1 << 15);
    if n <= SMALL {
        // one bucket: rows straight from the chunks' buffers
        let mut out = scratch::zeroed_result(2 * k);
        let srcs: Vec<&[u64]> = chunks.iter().map(Vec::as_slice).collect();
        finish_bucket(&srcs, 0, n, &mut out);
        return out;
    }
    let shift = bucket_shift(n);
    let nb = ((n - 1) >> shift) + 1;
    let bucket = |p: u64| ((p >> 32) >> shift) as usize;
    // 1. scatter into buckets
    let mut hist: Vec<Vec<usize>> = ex.map(chunks.len(), |c| {
        let mut h = vec![0usize; nb];
        for &p in &chunks[c] {
            h[bucket(p)] += 1;
        }
        h
    });
    let mut bstart = vec![0usize; nb + 1];
    let mut total = 0;
    for b in 0..nb {
        bstart[b] = total;
        for h in hist.iter_mut() {
            let v = h[b];
            h[b] = total;
            total += v;
        }
    }
    bstart[nb] = total;
    let mut tmp = scratch::filled(k, 0u64);
    {
        let sc = Scatter::new(&mut tmp);
        ex.map(chunks.len(), |c| {
            let mut h = hist[c].clone();
            for &p in &chunks[c] {
                let b = bucket(p);
                // SAFETY: chunk c writes hist[c][b] and the next (its count
                // of bucket b) - 1 positions; the prefix sums lay these
                // ranges end to end over 0..k, one per (b, c): disjoint.
                unsafe { sc.write(h[b], p) };
                h[b] += 1;
            }
        });
    }
    // 2. per bucket: rows by counting sort on i, each row sorted
    let mut out = scratch::zeroed_result(2 * k);
    let cuts: Vec<usize> = bstart.iter().map(|&b| 2 * b).collect();
    let parts = split_at_bounds(&mut out, &cuts);
    ex.each(parts, |b, dst: &mut [isize]| {
        let base = b << shift;
        let w = (1usize << shift).min(n - base);
        finish_bucket(&[&tmp[bstart[b]..bstart[b + 1]]], base, w, dst);
    });
    scratch::give(tmp);
    out
}

/// Step 2 for one bucket of objects `base..base + w`: rows into `dst`.
fn finish_bucket(srcs: &[&[u64]], base: usize, w: usize, dst: &mut [isize]) {
    let k: usize = srcs.iter().map(|s| s.len()).sum();
    let mut start = vec![0u32; w + 1];
    for &p in srcs.iter().copied().flatten() {
        start[(p >> 32) as usize - base + 1] += 1;
    }
    for u in 0..w {
        start[u + 1] += start[u];
    }
    let mut js = vec![0u32; k];
    for &p in srcs.iter().copied().flatten() {
        let u = (p >> 32) as usize - base;
        js[start[u] as usize] = p as u32;
        start[u] += 1;
    }
    // start[u] is now where row u ends (and row u + 1 starts)
    let mut lo = 0;
    for (u, &end) in start[..w].iter().enumerate() {
        let hi = end as usize;
        let row = &mut js[lo..hi];
        if row.len() > 24 {
            row.sort_unstable();
        } else {
            insertion_sort(row);
        }
        let i = (base + u) as isize;
        for (pair, &j) in dst[2 * lo..2 * hi].chunks_exact_mut(2).zip(row.iter()) {
            pair[0] = i;
            pair[1] = j as isize;
        }
        lo = hi;
    }
}

/// Sort a short row in place (a library sort costs more below a few dozen).
fn insertion_sort(a: &mut [u32]) {
    for t in 1..a.len() {
        let v = a[t];
        let mut w = t;
        while w > 0 && a[w - 1] > v {
            a[w] = a[w - 1];
            w -= 1;
        }
        a[w] = v;
    }
}

/// The chunks' packed pairs one after the other as flat rows `[i, j, ...]`,
/// for kernels that emit canonical order (and the tree's kept pairs).
pub fn concatenate<P: AsRef<[u64]>>(chunks: &[P]) -> Vec<isize> {
    let k: usize = chunks.iter().map(|c| c.as_ref().len()).sum();
    let mut out = Vec::with_capacity(2 * k);
    for p in chunks.iter().flat_map(|c| c.as_ref()) {
        out.push((p >> 32) as isize);
        out.push((*p as u32) as isize);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn reference(chunks: &[Pairs]) -> Vec<isize> {
        let mut all: Vec<u64> = chunks.iter().flatten().copied().collect();
        all.sort_unstable();
        all.iter()
            .flat_map(|p| [(p >> 32) as isize, (*p as u32) as isize])
            .collect()
    }

    proptest! {
        #[test]
        fn canonical_sorts_like_a_sort(n in 2usize..20000, raw in proptest::collection::vec(
            (any::<u32>(), any::<u32>(), 0usize..7), 0..3000), w in 1usize..4) {
            let mut chunks: Vec<Pairs> = vec![Vec::new(); 7];
            let mut seen = std::collections::HashSet::new();
            for (a, b, c) in raw {
                let (i, j) = (a % n as u32, b % n as u32);
                if i != j && seen.insert(pack(i, j)) {
                    chunks[c].push(pack(i, j));
                }
            }
            prop_assert_eq!(canonical(&chunks, n, &Exec::new(Some(w))), reference(&chunks));
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
        assert_eq!(canonical(&chunks, n, &Exec::serial()), want);
        assert_eq!(canonical(&chunks, n, &Exec::new(Some(2))), want);
    }
}
