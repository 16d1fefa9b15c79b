//! Stopping a call midway: a flag its chunks check, and the unwind that follows.
//!
//! Invariant: a set [`Stop`] makes every later [`Stop::check`] unwind with
//! [`Stopped`], and nothing else does; whoever catches the unwind discards
//! the call's result.  [`crate::par::Exec`] carries one and checks it at the
//! start of every chunk, the pair sinks every few hundred pairs.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// A request to stop a call, shared by its executor and a watcher.
///
/// The watcher (the binding's thread waiting for a long call, which checks
/// for Ctrl-C) calls [`Stop::set`]; every chunk of a step run by an executor
/// carrying it ([`Exec::stoppable`](crate::par::Exec::stoppable)) first
/// calls [`Stop::check`], which then unwinds with the payload [`Stopped`].
/// Unwinding drops what the call had built; a caller catching it discards
/// the call's result.  Only calls whose state survives an unwind at any
/// chunk boundary are given one (the stateless searches; a tree's steps as
/// their docs say).
#[derive(Debug)]
pub struct Stop {
    set: AtomicBool,
    /// Checks left before the stop sets itself (tests: stop at the k-th chunk).
    checks_left: AtomicU64,
}

/// The panic payload of a stopped call (see [`Stop`]).
#[derive(Debug)]
pub struct Stopped;

impl Default for Stop {
    fn default() -> Self {
        Stop::new()
    }
}

impl Stop {
    /// A stop that is set only by [`Stop::set`].
    pub fn new() -> Stop {
        Stop {
            set: AtomicBool::new(false),
            checks_left: AtomicU64::new(u64::MAX),
        }
    }

    /// A stop that sets itself at its `k`-th check (`k >= 1`), for tests of
    /// what a stop at each chunk boundary leaves behind.
    pub fn after(k: u64) -> Stop {
        Stop {
            set: AtomicBool::new(false),
            checks_left: AtomicU64::new(k.max(1)),
        }
    }

    /// Ask the call to stop at its next chunk.
    pub fn set(&self) {
        self.set.store(true, Ordering::Release);
    }

    /// Whether the stop was set.
    pub fn is_set(&self) -> bool {
        self.set.load(Ordering::Acquire)
    }

    /// Unwind with [`Stopped`] if set (or if this is the check it sets
    /// itself at).  `resume_unwind` runs no panic hook: nothing is printed.
    #[inline]
    pub fn check(&self) {
        if !self.is_set()
            && self.checks_left.load(Ordering::Relaxed) != u64::MAX
            && self.checks_left.fetch_sub(1, Ordering::AcqRel) == 1
        {
            self.set();
        }
        if self.is_set() {
            std::panic::resume_unwind(Box::new(Stopped));
        }
    }
}
