//! Pair output: sinks of found pairs and the one canonical pair order.
//!
//! Kernels split their work into chunks fixed by the data; a [`Sink`] (one
//! per pool thread, or one per chunk for kernels that keep chunk order)
//! stores their pairs, packed as `min << 32 | max` (object indices are below
//! `2^31`), in one buffer per [`Buckets`] bucket of `i`.  [`canonical()`]
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
//!
//! # Parts
//! - `packed`: the packed pair `min << 32 | max`, the one owner of its
//!   layout, and packed pairs to and from flat rows;
//! - `budget`: how many pairs a search may store ([`Budget`]), and the
//!   count when they were more ([`TooMany`]);
//! - `sink`: where a chunk's pairs go ([`Sink`], by [`Buckets`]), and the
//!   stored pairs of a search ([`Stored`], [`finish`]);
//! - `canonical`: the stored pairs in the one canonical order.

mod budget;
mod canonical;
mod packed;
mod sink;

pub use budget::{Budget, TooMany, BYTES_PER_PAIR};
pub use canonical::{canonical, canonical_with};
pub use packed::{concatenate, first, pack, pack_rows, second, unpack, Pairs};
pub use sink::{finish, Buckets, Sink, Stored, LOOK_EVERY};
