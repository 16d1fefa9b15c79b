//! The process's thread pools, and keeping their threads awake.
//!
//! Invariants: one pool per count of helpers (the calling thread is the
//! call's other thread, see `team`), built on first use and kept for
//! the life of the process, listed in a registry reached through an atomic
//! pointer and never dropped; a registry belongs to the process that made
//! it (a child made by `fork()` makes its own and abandons the inherited
//! one, whose lock a parent thread may have held); no lock a parent thread
//! could have held is taken on the way to a pool.  A kept-awake thread only
//! takes queued jobs and ends by itself: nothing ever waits for it.

use rayon::{ThreadPool, ThreadPoolBuilder};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The pools of one process.  Never dropped: a child made by `fork()`
/// leaves its parent's registry (whose lock a parent thread may have held at
/// the fork) and makes one of its own.
struct Registry {
    pid: u32,
    pools: Mutex<Vec<(usize, Arc<ThreadPool>)>>,
}

/// The current process's [`Registry`], or null before the first pool.
static REGISTRY: AtomicPtr<Registry> = AtomicPtr::new(std::ptr::null_mut());

/// This process's registry, made on first use and after a `fork()`.
///
/// Lock-free: the pointer is swapped, never a lock taken, so a child never
/// waits on a lock that a thread of its parent held at the fork.
fn registry() -> &'static Registry {
    let pid = std::process::id();
    loop {
        let cur = REGISTRY.load(Ordering::Acquire);
        // SAFETY: a non-null pointer came from `Box::leak` below and is never
        // freed (registries live for the life of the process).
        if let Some(r) = unsafe { cur.as_ref() } {
            if r.pid == pid {
                return r;
            }
        }
        let fresh = Box::into_raw(Box::new(Registry {
            pid,
            pools: Mutex::new(Vec::new()),
        }));
        match REGISTRY.compare_exchange(cur, fresh, Ordering::AcqRel, Ordering::Acquire) {
            // The parent's registry (if any) is abandoned: its pools' threads
            // do not exist in this process, and its lock may be held; nor
            // are the parent's awake helpers awake here.
            Ok(_) => {
                if !cur.is_null() {
                    AWAKE.store(0, Ordering::Relaxed);
                    WOKEN.store(0, Ordering::Relaxed);
                }
                // SAFETY: `fresh` came from `Box::into_raw` above and is now
                // published for the life of the process (never freed).
                return unsafe { &*fresh };
            }
            // Another thread of this process got there first: use theirs.
            // SAFETY: the exchange failed, so `fresh` was never published:
            // this thread still owns it alone and frees it once.
            Err(_) => drop(unsafe { Box::from_raw(fresh) }),
        }
    }
}

/// Threads available to this process (cgroup and affinity limits included),
/// read once: the lookup reads files, which costs more than a small search.
/// Kept in an atomic rather than a `OnceLock`, whose initialisation a child
/// could find forever in progress if a parent thread was in it at a `fork()`.
pub fn available_threads() -> usize {
    static THREADS: AtomicUsize = AtomicUsize::new(0);
    match THREADS.load(Ordering::Relaxed) {
        0 => {
            let n = std::thread::available_parallelism().map_or(1, |n| n.get());
            THREADS.store(n, Ordering::Relaxed);
            n
        }
        n => n,
    }
}

/// The pool of `threads` helper threads, built on first use, and the id of
/// the process its threads live in.
pub(super) fn pool(threads: usize) -> Option<(Arc<ThreadPool>, u32)> {
    let registry = registry();
    // A poisoned lock only means another caller panicked while holding it;
    // the pool list itself is always consistent.
    let mut pools = registry.pools.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = pools.iter().find(|(t, _)| *t == threads) {
        return Some((p.clone(), registry.pid));
    }
    let p = Arc::new(
        ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("broadphase-{i}"))
            .build()
            .ok()?,
    );
    pools.push((threads, p.clone()));
    Some((p, registry.pid))
}

/// How long a kept-awake thread looks for work after its last job before it
/// goes back to the pool's own idling (a few yields, then sleep).
pub(super) const AWAKE_IDLE: Duration = Duration::from_micros(200);

/// Run the pool's pending jobs on this (pool) thread until `done`, or until
/// none came for [`AWAKE_IDLE`] (with `one`, also once one job ran: a thread
/// woken ahead of work, `Exec::wake`).
///
/// Why: rayon puts an idle thread to sleep after a few dozen yields, which on
/// an idle core take microseconds, so between two parallel stages of one
/// search (a serial stage of tens of microseconds between them) the other
/// threads fall asleep and each stage pays a wake-up, often longer than the
/// stage itself at 1e4 objects.  Nothing ever waits for this loop: it only
/// takes jobs that are queued (a descheduled keeper delays no one more than
/// any stolen job does), it gives its core away (`yield_now`) while it finds
/// none, and it ends by itself when the search ends or stops feeding it.
pub(super) fn keep_awake(done: &AtomicBool, one: bool) {
    AWAKE.fetch_add(1, Ordering::Relaxed);
    let _asleep = AsleepOnDrop;
    let mut last = Instant::now();
    while !done.load(Ordering::Acquire) {
        if rayon::yield_now() == Some(rayon::Yield::Executed) {
            if one {
                return;
            }
            last = Instant::now();
        } else if last.elapsed() > AWAKE_IDLE {
            return;
        } else {
            std::thread::yield_now();
        }
    }
}

/// Pool threads now in [`keep_awake`]: runnable while they look for work,
/// so the machine's count of runnable threads holds them (`busy`).
static AWAKE: AtomicUsize = AtomicUsize::new(0);

/// Pool threads woken ahead of work (`Exec::wake`) and still looking: while
/// any are, another wake adds none.  A child made by `fork()` starts again
/// from none with its registry (the parent's woken threads are not its own).
pub(super) static WOKEN: AtomicUsize = AtomicUsize::new(0);

/// The pool threads now looking for work ([`keep_awake`]).
pub(super) fn awake_helpers() -> usize {
    AWAKE.load(Ordering::Relaxed)
}

/// Counts its thread out of [`AWAKE`] when dropped (also on unwind).
struct AsleepOnDrop;

impl Drop for AsleepOnDrop {
    fn drop(&mut self) {
        AWAKE.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Sets its flag when dropped.
pub(super) struct SetOnDrop(pub(super) Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_forked_child_has_no_woken_or_awake_helpers() {
        // A pool exists (so a registry does), and helpers count as woken.
        assert!(pool(1).is_some());
        WOKEN.fetch_add(1, Ordering::Relaxed);
        AWAKE.fetch_add(1, Ordering::Relaxed);
        let fresh = || {
            registry();
            WOKEN.load(Ordering::Relaxed) == 0 && AWAKE.load(Ordering::Relaxed) == 0
        };
        let held = crate::forked::holds_in_forked_child(fresh);
        WOKEN.fetch_sub(1, Ordering::Relaxed);
        AWAKE.fetch_sub(1, Ordering::Relaxed);
        assert!(held);
    }
}
