//! How many `(ray, object)` rows a cast of every hit ([`super::Mode::All`])
//! may store, and what it answers when they were more.
//!
//! Invariant: the chunks of one cast share one [`RowBudget`] and add each
//! ray's hits to it as they go, so once the total passes the limit every
//! chunk stops storing and only counts: the cast holds at most about the
//! limit's rows and still ends with their exact count ([`TooMany`]).
//! Whether it ends so depends on that total alone, the same for any thread
//! count.

use crate::memory::available_memory;
use crate::pairs::TooMany;
use std::sync::atomic::{AtomicU64, Ordering as Atomic};
use std::sync::OnceLock;

/// Bytes a stored row costs at the peak: the row and its `t` in its chunk
/// (24), then in the answer (24).
const ROW_BYTES: u64 = 48;
/// Rows a cast stores before it first asks how much memory there is
/// (reading it costs more than a small cast).
const ROWS_UNASKED: u64 = 1 << 16;

/// The rows of one cast of every hit, shared by its chunks.
pub(super) struct RowBudget {
    limit: OnceLock<u64>,
    /// Rows counted so far (stored or not).
    pub(super) stored: AtomicU64,
}

impl RowBudget {
    /// At most `max` rows (`None`: what the available memory holds).
    pub(super) fn new(max: Option<u64>) -> RowBudget {
        RowBudget {
            limit: max.map_or_else(OnceLock::new, OnceLock::from),
            stored: AtomicU64::new(0),
        }
    }

    fn limit(&self) -> u64 {
        *self.limit.get_or_init(|| available_memory() / ROW_BYTES)
    }

    /// Counts `n` more rows: whether they may be stored.
    pub(super) fn take(&self, n: usize) -> bool {
        let total = self.stored.fetch_add(n as u64, Atomic::Relaxed) + n as u64;
        match self.limit.get() {
            Some(&limit) => total <= limit,
            None => total <= ROWS_UNASKED || total <= self.limit(),
        }
    }

    /// The rows found, if more than the limit.
    pub(super) fn exceeded(&self) -> Option<TooMany> {
        let total = self.stored.load(Atomic::Relaxed);
        let within = self.limit.get().is_none() && total <= ROWS_UNASKED;
        (!within && total > self.limit()).then_some(TooMany(total))
    }
}
