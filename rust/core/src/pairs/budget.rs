//! How many pairs a search may store, and what it answers when they were
//! more.
//!
//! Invariant: the chunks of one search share one [`Budget`] and add what
//! they store to it in steps, so once its limit is passed every chunk stops
//! storing (within a step) and only counts: a search holds at most about
//! the limit's pairs and still ends with their exact count ([`TooMany`]).

use crate::par::{Exec, Stop};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::sync::OnceLock;

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
    pub(super) stored: AtomicU64,
    /// The search's stop, checked by its sinks every few hundred pairs and
    /// by the walks every `LOOK_EVERY` candidate tests: a chunk of many
    /// pairs (or of many candidates a filter rejects) ends soon after a stop.
    pub(super) stop: Option<Arc<Stop>>,
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

/// A search found more pairs than its budget holds: how many.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooMany(pub u64);
