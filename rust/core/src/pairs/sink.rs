//! Where a chunk's pairs go: a [`Sink`] per pool thread (or per chunk),
//! storing each kept pair in the bucket of its first object ([`Buckets`])
//! while the budget allows, counting always; then the stored pairs of a
//! search ([`Stored`], from [`finish`]).
//!
//! Invariants: a sink's count is every pair it was given, kept or not
//! stored; a pair sits in bucket `i >> shift` of its first object `i`; a
//! search's pairs are [`Stored`] only when no sink dropped one.

use super::budget::{Budget, TooMany};
use super::packed::{concatenate, first, pack, Pairs};
use std::sync::atomic::Ordering;

/// Pairs a chunk stores after every `STEP` it reports to the budget.
const STEP: usize = 1 << 16;
/// Pairs gathered on the stack before they move to the chunk's buckets.
const BUF: usize = 256;
/// Cheap steps between two looks at the stop: candidate tests of a walk
/// ([`Sink::check_stop_at`]; a sink looks at the stop when its buffer fills,
/// which never happens while a filter rejects every candidate, one crowded
/// cell of a single group) and pairs of a pass putting them in order.
pub const LOOK_EVERY: u64 = 1 << 16;

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
    pub(super) shift: u32,
    pub(super) count: usize,
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
pub(super) struct Bucket {
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
    pub(super) fn blocks(&self) -> impl Iterator<Item = &[u64]> {
        self.full
            .iter()
            .chain(std::iter::once(&self.cur))
            .map(Vec::as_slice)
    }

    pub(super) fn len(&self) -> usize {
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

    /// Unwind with `Stopped` if the search's stop is set.
    #[inline]
    pub fn check_stop(&self) {
        if let Some(stop) = &self.budget.stop {
            stop.check();
        }
    }

    /// [`Sink::check_stop`] once a walk's count of candidate tests reaches
    /// the mark `next` (start it at [`LOOK_EVERY`]), which then moves
    /// [`LOOK_EVERY`] further.
    #[inline]
    pub fn check_stop_at(&self, tests: u64, next: &mut u64) {
        if tests >= *next {
            self.check_stop();
            *next = tests + LOOK_EVERY;
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
        self.check_stop();
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

/// The stored pairs of a search's sinks, split into buckets by `i`.
#[derive(Debug)]
pub struct Stored {
    pub(super) buckets: Buckets,
    /// `sinks[s][b]`: the pairs sink `s` stored in bucket `b`.
    pub(super) sinks: Vec<Vec<Bucket>>,
}

impl Stored {
    /// Chunk-ordered pairs (each a [`pack`]) into `buckets`, as kernels' sinks
    /// would have stored them.
    #[cfg(test)]
    pub(super) fn from_chunks(chunks: &[Pairs], buckets: Buckets) -> Stored {
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
