//! Pair output: sinks of found pairs and the one canonical pair order.
//!
//! Kernels split their work into chunks fixed by the data; a [`Sink`] (one
//! per pool thread, or one per chunk for kernels that keep chunk order)
//! stores their pairs, packed as `min << 32 | max` (object indices are below
//! `2^31`), in one buffer per [`Buckets`] bucket of `i`.  [`canonical`]
//! then turns them into the public convention: rows `(i, j)`, `i < j`, sorted
//! by `(i, j)`, as a flat `[i0, j0, i1, j1, ...]` vector of `isize` (NumPy's
//! `intp`).
//!
//! The order costs O(n + k) for k pairs of n objects, in parallel:
//! 1. while a chunk searches, its [`Sink`] drops every pair into the bucket
//!    of its `i` (at most 256 buckets of at least 4096 objects), so the
//!    pairs are read back once, bucket by bucket;
//! 2. per bucket, in cache: a counting sort by `i` lays the packed pairs out
//!    in rows (one per object), each row of two or more partners is sorted
//!    (insertion sort for the usual few, a library sort for the long rows of
//!    big boxes; packed pairs of one `i` sort by `j`), and one sequential
//!    pass writes them into the result.  The result is the pairs fully
//!    sorted, so it never depends on which sink held a pair, nor on the
//!    thread count.

use crate::par::{split_at_bounds, Exec, Stop};
use crate::scratch;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::sync::OnceLock;

/// A chunk's pairs, packed `min << 32 | max`.
pub type Pairs = Vec<u64>;

/// Pack the unordered pair `{i, j}` (`i != j`, both below `2^31`).
#[inline(always)]
pub fn pack(i: u32, j: u32) -> u64 {
    ((i.min(j) as u64) << 32) | i.max(j) as u64
}

/// The pair `(i, j)`, `i < j`, of a packed pair (the inverse of [`pack`]).
#[inline(always)]
pub fn unpack(p: u64) -> (usize, usize) {
    ((p >> 32) as usize, p as u32 as usize)
}

/// The smaller object of a packed pair.
#[inline(always)]
pub fn first(p: u64) -> usize {
    (p >> 32) as usize
}

/// The larger object of a packed pair.
#[inline(always)]
pub fn second(p: u64) -> usize {
    p as u32 as usize
}

/// Bytes a stored pair costs at the peak of a search: its bucket's block
/// (8, up to a block per bucket and sink more), the result (16), and the
/// in-cache temporaries of the bucket being put in order (at most 12 per
/// pair of that bucket), rounded up.
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
    /// The search's stop, checked by its sinks every [`BUF`] pairs: a chunk
    /// of many pairs ends soon after a stop, not at its end.
    stop: Option<Arc<Stop>>,
}

impl Budget {
    /// A budget of `limit` pairs.
    pub fn new(limit: u64) -> Budget {
        Budget {
            limit: OnceLock::from(limit),
            stored: AtomicU64::new(0),
            stop: None,
        }
    }

    /// A budget of what the available memory holds, looked up only once a
    /// search has stored many pairs (reading it costs more than a small search).
    pub fn of_memory() -> Budget {
        Budget {
            limit: OnceLock::new(),
            stored: AtomicU64::new(0),
            stop: None,
        }
    }

    /// A budget of `max_pairs` when given, else of the available memory.
    pub fn of(max_pairs: Option<u64>) -> Budget {
        max_pairs.map_or_else(Budget::of_memory, Budget::new)
    }

    /// This budget, its sinks checking `ex`'s stop (if any) as they go.
    pub fn stopped_with(mut self, ex: &Exec) -> Budget {
        self.stop = ex.stop().cloned();
        self
    }

    /// Most pairs this budget holds.
    pub fn limit(&self) -> u64 {
        *self
            .limit
            .get_or_init(|| crate::memory::available_memory() / BYTES_PER_PAIR)
    }
}

/// Pairs a chunk stores after every `STEP` it reports to the budget.
const STEP: usize = 1 << 16;
/// Pairs gathered on the stack before they move to the chunk's buckets.
const BUF: usize = 256;

/// Up to this many objects, the row counts fit in cache: one bucket.
const SMALL: usize = 1 << 15;

/// How a search's pairs are split by their first object `i`: buckets of
/// `2^shift` consecutive objects, at least 4096 (or n) and at most 256
/// buckets, so that one bucket's rows are put in order in cache.
///
/// Chunks drop each pair into its bucket as they find it, so the canonical
/// order reads every pair once (no histogram and scatter pass of its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Buckets {
    shift: u32,
    count: usize,
}

impl Buckets {
    /// The buckets of a search over `n` objects.
    pub fn for_objects(n: usize) -> Buckets {
        if n <= SMALL {
            return Buckets::one();
        }
        let mut shift = 0;
        while (n.saturating_sub(1) >> shift) >= 256 || (1usize << shift) < n.min(4096) {
            shift += 1;
        }
        Buckets {
            shift,
            count: ((n - 1) >> shift) + 1,
        }
    }

    /// A single bucket: for kernels that find their pairs in canonical order.
    pub fn one() -> Buckets {
        // i < 2^31, so i >> 31 is always 0
        Buckets {
            shift: 31,
            count: 1,
        }
    }

    /// One empty [`Bucket`] per bucket.
    fn empty(&self) -> Vec<Bucket> {
        (0..self.count).map(|_| Bucket::default()).collect()
    }

    /// The bucket of packed pair `p`.
    #[inline(always)]
    fn of(&self, p: u64) -> usize {
        first(p) >> self.shift
    }
}

/// Pairs of one block of a bucket: a bucket grows by whole blocks, never by
/// copying what it holds.
const BLOCK: usize = 4096;

/// One bucket of a sink: the blocks it filled and the one it fills.
#[derive(Debug, Default)]
struct Bucket {
    full: Vec<Pairs>,
    cur: Pairs,
}

impl Bucket {
    /// Store `p`.  The first block grows like a vector (small searches
    /// allocate little); from [`BLOCK`] pairs on, a full block is kept as
    /// it is and a new one begins.
    #[inline(always)]
    fn push(&mut self, p: u64) {
        if self.cur.len() == self.cur.capacity() {
            self.make_room();
        }
        let len = self.cur.len();
        self.cur.spare_capacity_mut()[0].write(p);
        // SAFETY: make_room left len < capacity, and the slot at len (the
        // first spare one) was just written: the first len + 1 elements are
        // initialised.  Checked by every test that stores pairs
        // (`canonical_sorts_like_a_sort` compares them all).
        unsafe { self.cur.set_len(len + 1) };
    }

    /// Room for one more pair: the block doubles up to [`BLOCK`] pairs,
    /// then a full one is kept and a new one begins.
    #[cold]
    fn make_room(&mut self) {
        if self.cur.len() < BLOCK {
            self.cur.reserve(self.cur.len().max(BUF));
        } else {
            let full = std::mem::replace(&mut self.cur, Pairs::with_capacity(BLOCK));
            self.full.push(full);
        }
    }

    /// The stored pairs, block by block, in the order they came.
    fn blocks(&self) -> impl Iterator<Item = &[u64]> {
        self.full
            .iter()
            .chain(std::iter::once(&self.cur))
            .map(Vec::as_slice)
    }

    fn len(&self) -> usize {
        self.blocks().map(<[u64]>::len).sum()
    }
}

/// Where a chunk's pairs go: stored while the budget allows, counted always.
///
/// [`Sink::emit`] is branch-free: every candidate is written to the next
/// slot of a small local buffer and only a kept one advances the count (a
/// mispredicted branch per candidate costs more than the store); the buffer
/// moves to the sink's buckets when full.
pub struct Sink<'a> {
    buf: [u64; BUF],
    fill: usize,
    buckets: Buckets,
    out: Vec<Bucket>,
    stored: usize,
    budget: &'a Budget,
    reported: usize,
    dropped: u64,
    storing: bool,
}

impl<'a> Sink<'a> {
    /// An empty sink drawing on `budget`, splitting its pairs into `buckets`.
    pub fn new(budget: &'a Budget, buckets: Buckets) -> Sink<'a> {
        Sink {
            buf: [0; BUF],
            fill: 0,
            buckets,
            out: buckets.empty(),
            stored: 0,
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

    /// The local buffer's pairs into their buckets.
    fn spill(&mut self) {
        let pairs = &self.buf[..self.fill];
        for &p in pairs {
            self.out[self.buckets.of(p)].push(p);
        }
        self.stored += pairs.len();
        self.fill = 0;
    }

    /// Move the local buffer out; every `STEP` stored pairs, report to the
    /// budget and stop storing once it is exhausted (the stored pairs are
    /// then dropped, only counts remain).
    #[cold]
    fn flush(&mut self) {
        if let Some(stop) = &self.budget.stop {
            stop.check();
        }
        if !self.storing {
            self.dropped += self.fill as u64;
            self.fill = 0;
            return;
        }
        self.spill();
        if self.stored - self.reported >= STEP {
            let new = (self.stored - self.reported) as u64;
            self.reported = self.stored;
            let total = self.budget.stored.fetch_add(new, Ordering::Relaxed) + new;
            if total > self.budget.limit() {
                self.storing = false;
                self.dropped += self.stored as u64;
                self.out = Vec::new();
                self.stored = 0;
                self.reported = 0;
            }
        }
    }

    /// Total pairs found (stored and dropped).
    pub fn found(&self) -> u64 {
        (self.stored + self.fill) as u64 + self.dropped
    }
}

/// A search found more pairs than its budget holds: how many.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooMany(pub u64);

/// The stored pairs of a search's sinks, split into buckets by `i`.
#[derive(Debug)]
pub struct Stored {
    buckets: Buckets,
    /// `sinks[s][b]`: the pairs sink `s` stored in bucket `b`.
    sinks: Vec<Vec<Bucket>>,
}

impl Stored {
    /// Chunk-ordered pairs (each a [`pack`]) into `buckets`, as kernels' sinks
    /// would have stored them.
    #[cfg(test)]
    fn from_chunks(chunks: &[Pairs], buckets: Buckets) -> Stored {
        let sinks = chunks
            .iter()
            .map(|c| {
                let mut out = buckets.empty();
                for &p in c {
                    out[buckets.of(p)].push(p);
                }
                out
            })
            .collect();
        Stored { buckets, sinks }
    }

    /// The pairs chunk after chunk, as flat rows `[i, j, ...]`: for kernels
    /// that find them in canonical order (one bucket).
    pub fn concatenate(&self) -> Vec<isize> {
        debug_assert_eq!(self.buckets.count, 1);
        let flat: Vec<&[u64]> = self
            .sinks
            .iter()
            .flatten()
            .flat_map(Bucket::blocks)
            .collect();
        concatenate(&flat)
    }
}

/// The result of a search's chunks: every chunk's pairs, or the total count
/// when they did not fit in the budget.
pub fn finish(sinks: Vec<Sink>) -> Result<Stored, TooMany> {
    let total: u64 = sinks.iter().map(Sink::found).sum();
    if sinks.iter().any(|s| s.dropped > 0 || !s.storing) {
        return Err(TooMany(total));
    }
    let buckets = sinks.first().map_or(Buckets::one(), |s| s.buckets);
    let sinks = sinks
        .into_iter()
        .map(|mut s| {
            debug_assert_eq!(s.buckets, buckets);
            // the last partial buffer: at most BUF pairs past the budget
            s.spill();
            s.out
        })
        .collect();
    Ok(Stored { buckets, sinks })
}

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
        finish_bucket(&srcs, base, w, n, dst, pk);
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
    dst: &mut [MaybeUninit<isize>],
    packed: Option<&mut [MaybeUninit<u64>]>,
) {
    let k: usize = srcs.iter().map(|s| s.len()).sum();
    assert_eq!(dst.len(), 2 * k, "a bucket's rows fill its part exactly");
    assert!(
        packed.as_ref().is_none_or(|p| p.len() == k),
        "a bucket's packed pairs fill their part exactly"
    );
    let mut start = vec![0u32; w + 1];
    for &p in srcs.iter().copied().flatten() {
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
        for &p in srcs.iter().copied().flatten() {
            at[digit(p) + 1] += 1;
        }
        prefix_sums(&mut at);
        let mut by_j = scratch::filled(k, 0u64);
        for &p in srcs.iter().copied().flatten() {
            let d = digit(p);
            by_j[at[d] as usize] = p;
            at[d] += 1;
        }
        by_j.iter().for_each(|&p| place(p));
        scratch::give(by_j);
    } else {
        srcs.iter().copied().flatten().for_each(|&p| place(p));
    }
    // start[u] is now where row u ends (and row u + 1 starts); most rows
    // hold one partner or none, and need no sort
    let mut lo = 0;
    for &end in &start[..w] {
        let hi = end as usize;
        if hi - lo > 1 {
            crate::nearly::sort_by_key(&mut rows[lo..hi], |&p| p);
        }
        lo = hi;
    }
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

/// Pairs packed by [`pack_rows`] per chunk.
const PACK_GRAIN: usize = 1 << 14;

/// Flat rows `[i, j, ...]` packed (`i << 32 | j`) into `out` (cleared
/// first, its capacity reused: no fresh pages), in chunks.
pub fn pack_rows(flat: &[isize], out: &mut Vec<u64>, ex: &Exec) {
    let k = flat.len() / 2;
    ex.for_work(k, 2 * PACK_GRAIN)
        .collect_into(out, k, PACK_GRAIN, |p| {
            pack(flat[2 * p] as u32, flat[2 * p + 1] as u32)
        });
}

/// The chunks' packed pairs one after the other as flat rows `[i, j, ...]`,
/// for kernels that emit canonical order (and the tree's kept pairs).
pub fn concatenate<P: AsRef<[u64]>>(chunks: &[P]) -> Vec<isize> {
    let k: usize = chunks.iter().map(|c| c.as_ref().len()).sum();
    let mut out = Vec::with_capacity(2 * k);
    for p in chunks.iter().flat_map(|c| c.as_ref()) {
        out.push(first(*p) as isize);
        out.push(second(*p) as isize);
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
