//! Stopping a call midway: a flag its chunks check, and the unwind that follows.
//!
//! Invariant: a set [`Stop`] makes every later [`Stop::check`] unwind with
//! [`Stopped`], and nothing else does (a polled stop sets itself first when
//! its poll says so); whoever catches the unwind discards
//! the call's result.  [`crate::par::Exec`] carries one and checks it at the
//! start of every chunk, the pair sinks every few hundred pairs.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

/// A request to stop a call, shared by its executor and a watcher.
///
/// A watcher calls [`Stop::set`], or the stop asks a poll of its own
/// ([`Stop::polled`]: the bindings' check for Ctrl-C, which only the calling
/// thread can make); every chunk of a step run by an executor
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
    /// Asked at the checks of one thread, now and then, whether to stop.
    poll: Option<Poll>,
}

/// A stop's own poll: `ask` on thread `owner`, at most every `every`.
struct Poll {
    ask: Box<dyn Fn() -> bool + Send + Sync>,
    owner: ThreadId,
    every: Duration,
    start: Instant,
    /// When the next ask is due, in nanoseconds from `start`.
    due: AtomicU64,
}

impl std::fmt::Debug for Poll {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Poll")
            .field("owner", &self.owner)
            .field("every", &self.every)
            .finish()
    }
}

impl Poll {
    /// Whether `ask` says stop, if it is due and this is its thread (the
    /// clock is read at every check, the rest only once due).
    #[inline]
    fn ask_if_due(&self) -> bool {
        let now = self.start.elapsed().as_nanos() as u64;
        now >= self.due.load(Ordering::Relaxed) && self.ask_now(now)
    }

    /// `ask`, if this is its thread, and when it is due next.
    #[cold]
    fn ask_now(&self, now: u64) -> bool {
        if std::thread::current().id() != self.owner {
            return false;
        }
        self.due
            .store(now + self.every.as_nanos() as u64, Ordering::Relaxed);
        (self.ask)()
    }
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
            poll: None,
        }
    }

    /// A stop that also sets itself when `ask` returns true, asked at the
    /// checks that the thread making it runs, at most every `every` (the
    /// first time after `every`).  So a calling thread that works on its
    /// call's chunks itself (as [`crate::par::Exec`]'s steps have it do)
    /// can check for what only it can see (Python's signal handlers run on
    /// the main thread) while it works, with no other thread to wait for.
    pub fn polled(ask: impl Fn() -> bool + Send + Sync + 'static, every: Duration) -> Stop {
        Stop {
            poll: Some(Poll {
                ask: Box::new(ask),
                owner: std::thread::current().id(),
                every,
                start: Instant::now(),
                due: AtomicU64::new(every.as_nanos() as u64),
            }),
            ..Stop::new()
        }
    }

    /// A stop that sets itself at its `k`-th check (`k >= 1`), for tests of
    /// what a stop at each chunk boundary leaves behind.
    pub fn after(k: u64) -> Stop {
        Stop {
            set: AtomicBool::new(false),
            checks_left: AtomicU64::new(k.max(1)),
            poll: None,
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
        if let Some(p) = &self.poll {
            if !self.is_set() && p.ask_if_due() {
                self.set();
            }
        }
        if self.is_set() {
            std::panic::resume_unwind(Box::new(Stopped));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;

    fn stops(stop: &Stop) -> bool {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| stop.check())).is_err()
    }

    #[test]
    fn a_polled_stop_asks_on_its_thread_when_due_and_sets_itself() {
        let asked = Arc::new(AtomicUsize::new(0));
        let say = Arc::new(AtomicBool::new(false));
        let (a, s) = (asked.clone(), say.clone());
        let every = Duration::from_millis(20);
        let stop = Arc::new(Stop::polled(
            move || {
                a.fetch_add(1, Ordering::Relaxed);
                s.load(Ordering::Relaxed)
            },
            every,
        ));
        // not due yet: not asked
        assert!(!stops(&stop));
        assert_eq!(asked.load(Ordering::Relaxed), 0);
        std::thread::sleep(every * 2);
        // due, but another thread: not asked
        let other = stop.clone();
        std::thread::spawn(move || assert!(!stops(&other)))
            .join()
            .unwrap();
        assert_eq!(asked.load(Ordering::Relaxed), 0);
        // due, this thread: asked once, then not before `every` again
        assert!(!stops(&stop));
        assert!(!stops(&stop));
        assert_eq!(asked.load(Ordering::Relaxed), 1);
        // asked again once due, and its answer sets the stop for everyone
        say.store(true, Ordering::Relaxed);
        std::thread::sleep(every * 2);
        assert!(stops(&stop));
        assert!(stop.is_set());
        let other = stop.clone();
        assert!(std::thread::spawn(move || stops(&other)).join().unwrap());
        assert_eq!(asked.load(Ordering::Relaxed), 2);
    }
}
