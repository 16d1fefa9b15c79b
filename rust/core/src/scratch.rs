//! Scratch buffers reused from one search to the next: bounded, given back.
//!
//! A search at n = 1e6 needs about 150 MB of temporaries (keys, sorted
//! entries, the walk's rows, the canonical order's buckets).  Fresh memory
//! costs a page fault and a zeroed page per 4 KiB on first touch, which was a
//! third of a whole search; games call the search every frame with about the
//! same n.  So big temporaries come from [`take`] and go back with [`give`].
//!
//! Bounds: the pool keeps at most [`MAX_BUFFERS`] buffers of each type and
//! [`MAX_BYTES`] in all; anything beyond is freed at once, so many threads
//! searching at once hold their scratch only while they search.  Buffers
//! that no search has used since the current one began ([`begin`]) are
//! stale: they make room for the current search's before anything of it is
//! freed, so a run of different inputs keeps the buffers of the latest.
//! The pool never blocks: a caller that finds it locked (another thread is
//! taking or giving, or a `fork()` happened while one was) allocates or
//! frees instead.
//!
//! # Registration
//! Each element type has a pool of its own ([`Pooled`], implemented by the
//! module that owns the type, with `pooled!`); this module names none of
//! them.  A pool registers itself on the first buffer given back to it
//! ([`give`]): its stale-buffer sweep goes into a fixed table that
//! [`release`] and the eviction of stale buffers walk.  Invariant: a pool
//! holds a buffer only once it is in the table, so those sweeps reach every
//! kept byte.  Registering never blocks either (a slot is claimed with one
//! atomic add and filled by its claimant alone); a pool that finds the table
//! full keeps nothing, and so does, in a child, one whose registration a
//! `fork()` interrupted.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// Most bytes kept across all pools.
pub const MAX_BYTES: usize = 384 << 20;
/// Most buffers kept per element type.
pub const MAX_BUFFERS: usize = 8;
/// Buffers smaller than this are not worth keeping (malloc reuses them anyway).
const MIN_BYTES: usize = 256 << 10;

static KEPT: AtomicUsize = AtomicUsize::new(0);
static EPOCH: AtomicU64 = AtomicU64::new(0);

/// A kept buffer and the search that gave it back.
pub struct Kept<T> {
    buf: Vec<T>,
    epoch: u64,
}

/// The kept buffers of one element type, and whether the pool is registered.
pub struct Pool<T> {
    kept: Mutex<Vec<Kept<T>>>,
    /// `NEW`, `BUSY`, `LISTED` or `FULL`.
    state: AtomicU8,
}

/// Not registered yet.
const NEW: u8 = 0;
/// Being registered by one thread (others keep nothing meanwhile).
const BUSY: u8 = 1;
/// Registered: may keep buffers.
const LISTED: u8 = 2;
/// The table was full: keeps nothing.
const FULL: u8 = 3;

impl<T> Pool<T> {
    /// An empty, unregistered pool (for a `static`).
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Pool<T> {
        Pool {
            kept: Mutex::new(Vec::new()),
            state: AtomicU8::new(NEW),
        }
    }
}

/// Element types with a pool of their own.
pub trait Pooled: Sized + Send + 'static {
    /// This type's pool.
    fn pool() -> &'static Pool<Self>;
}

/// `Pooled` for each type named: a `static` pool per type, declared by the
/// module that owns the type (the pool registers itself, see the module
/// docs).
macro_rules! pooled {
    ($($t:ty),*) => {$(
        impl $crate::scratch::Pooled for $t {
            fn pool() -> &'static $crate::scratch::Pool<$t> {
                static POOL: $crate::scratch::Pool<$t> = $crate::scratch::Pool::new();
                &POOL
            }
        }
    )*};
}
pub(crate) use pooled;

/// Most pools that can register (the crate declares about a dozen).
const MAX_POOLS: usize = 64;
/// Each registered pool's sweep: drop its buffers given back before an epoch.
static SWEEPS: [OnceLock<fn(u64)>; MAX_POOLS] = [const { OnceLock::new() }; MAX_POOLS];
/// Slots of [`SWEEPS`] claimed so far.
static CLAIMED: AtomicUsize = AtomicUsize::new(0);

/// Whether `T`'s pool is registered (registering it now if it is new), so
/// that it may keep buffers.
fn listed<T: Pooled>() -> bool {
    let state = &T::pool().state;
    match state.load(Ordering::Acquire) {
        LISTED => return true,
        NEW => {}
        _ => return false,
    }
    if state
        .compare_exchange(NEW, BUSY, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        return state.load(Ordering::Acquire) == LISTED;
    }
    let slot = CLAIMED.fetch_add(1, Ordering::AcqRel);
    let done = match SWEEPS.get(slot) {
        Some(s) => {
            // the slot is this thread's alone: set cannot find it taken
            let _ = s.set(drop_older::<T>);
            LISTED
        }
        None => FULL,
    };
    state.store(done, Ordering::Release);
    done == LISTED
}

pooled!(
    u8,
    u32,
    u64,
    usize,
    isize,
    f64,
    [f64; 0],
    [f64; 2],
    [f64; 3],
    [f64; 4],
    [f64; 6],
    (u64, u32)
);

fn bytes<T>(v: &Vec<T>) -> usize {
    v.capacity() * std::mem::size_of::<T>()
}

static ACTIVE: AtomicUsize = AtomicUsize::new(0);
static OVERLAP: AtomicBool = AtomicBool::new(false);

/// A search in progress, from [`begin`] to its drop: also when the search
/// unwinds (a stop), so the count of searches running stays right.
#[must_use = "the search ends when this is dropped"]
pub struct Searching(());

/// Mark the start of a search: what is kept now is stale once room is needed.
/// The search ends when the returned guard drops ([`Searching`]).
pub fn begin() -> Searching {
    forget_parent_searches_at_fork();
    EPOCH.fetch_add(1, Ordering::Relaxed);
    if ACTIVE.fetch_add(1, Ordering::AcqRel) > 0 {
        OVERLAP.store(true, Ordering::Relaxed);
    }
    Searching(())
}

/// Have a child made by `fork()` start with no search running.
///
/// Why: the searches counted in [`ACTIVE`] at a fork ran on the parent's
/// other threads, which the child does not have; their guards never drop
/// there, so the count would never come back to zero and the child would never
/// give memory back after searches that overlapped.  The thread that forks is
/// in no search (a search runs no code that forks), so zero is the child's
/// true count; the count only decides when memory goes back to the system.
/// Registered once, on the first search; the handler only stores atomics,
/// which is all a child may do before it returns from `fork()`.
fn forget_parent_searches_at_fork() {
    #[cfg(unix)]
    {
        static REGISTERED: AtomicBool = AtomicBool::new(false);
        extern "C" fn child() {
            ACTIVE.store(0, Ordering::Relaxed);
            OVERLAP.store(false, Ordering::Relaxed);
        }
        extern "C" {
            fn pthread_atfork(
                prepare: Option<extern "C" fn()>,
                parent: Option<extern "C" fn()>,
                child: Option<extern "C" fn()>,
            ) -> i32;
        }
        if !REGISTERED.load(Ordering::Relaxed) && !REGISTERED.swap(true, Ordering::AcqRel) {
            // SAFETY: POSIX's pthread_atfork with only a child handler, a
            // plain function for the life of the process; it fails only for
            // want of memory, when the count is merely not reset in a child.
            unsafe { pthread_atfork(None, None, Some(child)) };
        }
    }
}

/// The end of a search.  The last of several searches that ran at the same
/// time gives the allocator's free memory back ([`trim`]): each thread
/// allocated in an arena of its own, which would otherwise keep it.
impl Drop for Searching {
    fn drop(&mut self) {
        if ACTIVE.fetch_sub(1, Ordering::AcqRel) == 1 && OVERLAP.swap(false, Ordering::Relaxed) {
            trim();
        }
    }
}

/// An empty vector with room for `len` elements, for a result that leaves
/// the core: a buffer that an earlier result gave back ([`give`], once its
/// NumPy array was freed) when the pool has one, else fresh memory.
///
/// Large ones are backed by huge pages where the system offers them on
/// request (Linux's `madvise` mode): a 32 MB result then costs 16 page
/// faults instead of 8,192.  A reused one costs none: a loop that searches
/// and drops the result every frame writes into pages it already has.
pub fn result<T: Pooled>(len: usize) -> Vec<T> {
    let mut v: Vec<T> = take(len);
    crate::hints::advise_huge(&mut v);
    v
}

/// Whether [`give`] would keep `v` (it is big enough to be worth it).
pub fn worth_keeping<T>(v: &Vec<T>) -> bool {
    (MIN_BYTES..=MAX_BYTES).contains(&bytes(v))
}

/// `v.resize(len, value)`, asking for huge pages under the new capacity when
/// it grows (see [`result`]): a structure of a million objects then
/// faults in hundreds of pages on first use instead of tens of thousands.
pub fn resize_huge<T: Clone>(v: &mut Vec<T>, len: usize, value: T) {
    if len > v.capacity() {
        v.reserve(len - v.len());
        crate::hints::advise_huge(v);
    }
    v.resize(len, value);
}

/// An empty vector with room for `len` elements, reused when the pool has one.
pub fn take<T: Pooled>(len: usize) -> Vec<T> {
    kept(len).unwrap_or_else(|| Vec::with_capacity(len))
}

/// [`take`], or `None` when fresh memory for `len` elements cannot be had
/// (the caller reports it rather than the allocator aborting).
pub fn try_take<T: Pooled>(len: usize) -> Option<Vec<T>> {
    if let Some(v) = kept(len) {
        return Some(v);
    }
    let mut v = Vec::new();
    v.try_reserve_exact(len).ok()?;
    Some(v)
}

/// The smallest kept buffer with room for `len` elements, emptied, if any
/// (none for small ones: not worth keeping).
fn kept<T: Pooled>(len: usize) -> Option<Vec<T>> {
    if len.saturating_mul(std::mem::size_of::<T>()) < MIN_BYTES {
        return None;
    }
    let mut pool = T::pool().kept.try_lock().ok()?;
    let k = (0..pool.len())
        .filter(|&k| pool[k].buf.capacity() >= len)
        .min_by_key(|&k| pool[k].buf.capacity())?;
    let mut v = pool.swap_remove(k).buf;
    KEPT.fetch_sub(bytes(&v), Ordering::Relaxed);
    v.clear();
    Some(v)
}

/// A vector of `len` copies of `value` (see [`take`]).
pub fn filled<T: Pooled + Clone>(len: usize, value: T) -> Vec<T> {
    let mut v = take(len);
    v.resize(len, value);
    v
}

/// Give a vector back for later searches (or free it, past the bounds).
pub fn give<T: Pooled>(v: Vec<T>) {
    let size = bytes(&v);
    if !worth_keeping(&v) {
        return;
    }
    if !listed::<T>() {
        return;
    }
    let epoch = EPOCH.load(Ordering::Relaxed);
    if KEPT.load(Ordering::Relaxed) + size > MAX_BYTES {
        evict_stale(epoch);
    }
    if let Ok(mut pool) = T::pool().kept.try_lock() {
        if pool.len() == MAX_BUFFERS {
            // make room: the oldest, then the smallest
            if let Some(k) =
                (0..pool.len()).min_by_key(|&k| (pool[k].epoch, pool[k].buf.capacity()))
            {
                let old = pool.swap_remove(k);
                KEPT.fetch_sub(bytes(&old.buf), Ordering::Relaxed);
            }
        }
        if KEPT.load(Ordering::Relaxed) + size <= MAX_BYTES {
            KEPT.fetch_add(size, Ordering::Relaxed);
            pool.push(Kept { buf: v, epoch });
        }
    }
}

/// Drop every buffer of type `T` given back before `epoch` (all with `u64::MAX`).
fn drop_older<T: Pooled>(epoch: u64) {
    if let Ok(mut pool) = T::pool().kept.try_lock() {
        pool.retain(|k| {
            let keep = k.epoch >= epoch;
            if !keep {
                KEPT.fetch_sub(bytes(&k.buf), Ordering::Relaxed);
            }
            keep
        });
    }
}

/// Drop the buffers given back before `epoch` from every registered pool.
fn evict_stale(epoch: u64) {
    let claimed = CLAIMED.load(Ordering::Acquire).min(MAX_POOLS);
    for sweep in SWEEPS[..claimed].iter().filter_map(OnceLock::get) {
        sweep(epoch);
    }
}

/// Free every kept buffer and give the allocator's free memory back
/// ([`trim`]): for a process under a memory limit between searches (a Dask
/// worker between tasks).  Buffers a search holds now are not affected.
pub fn release() {
    evict_stale(u64::MAX);
    trim();
}

/// Give the allocator's free memory back to the system.
///
/// Memory a search freed outside the pool (its pair buffers, scratch past
/// the pool's bounds) otherwise stays with the C allocator's per-thread
/// arenas for the life of the process: eight threads searching a million
/// boxes at once left 900 MiB resident.  glibc only; elsewhere a no-op.
pub fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: glibc's malloc_trim has no preconditions: it only returns
        // free pages of the allocator's heaps to the system, and every live
        // allocation stays where it is.
        unsafe { malloc_trim(0) };
    }
}

/// Bytes kept in the pools now.
pub fn kept_bytes() -> usize {
    KEPT.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Only this test uses i16 buffers (other tests share the other pools).
    pooled!(i16);

    #[cfg(unix)]
    #[test]
    fn a_forked_child_counts_none_of_its_parents_searches() {
        let _running = begin();
        assert!(ACTIVE.load(Ordering::Relaxed) >= 1);
        let none = || ACTIVE.load(Ordering::Relaxed) == 0 && !OVERLAP.load(Ordering::Relaxed);
        assert!(crate::forked::holds_in_forked_child(none));
    }

    #[test]
    fn reuse_bounds_and_staleness() {
        // A result's buffer, given back, is the next result's memory.
        let r: Vec<i16> = result(3 << 20);
        assert!(r.is_empty() && r.capacity() >= 3 << 20);
        let at = r.as_ptr();
        give(r);
        let r: Vec<i16> = result(1 << 20);
        assert_eq!(r.as_ptr(), at);
        assert!(r.is_empty());
        drop(r);
        let small: Vec<i16> = result(10);
        assert!(small.capacity() >= 10 && !worth_keeping(&small));
        let v: Vec<i16> = take(1 << 20);
        let p = v.as_ptr();
        give(v);
        let w: Vec<i16> = take(1000 << 10);
        assert_eq!(w.as_ptr(), p); // the kept buffer came back
        assert!(w.is_empty() && w.capacity() >= 1000 << 10);
        give(w);
        for _ in 0..MAX_BUFFERS + 3 {
            give(Vec::<i16>::with_capacity(MAX_BYTES / 2 / 4));
        }
        assert!(i16::pool().kept.lock().unwrap().len() <= MAX_BUFFERS);
        assert!(kept_bytes() <= MAX_BYTES);
        // a new search: the old buffers are stale, the new one displaces them
        let searching = begin();
        give(Vec::<i16>::with_capacity(MAX_BYTES / 2 - 4096));
        let pool = i16::pool().kept.lock().unwrap();
        assert!(pool
            .iter()
            .any(|k| k.buf.capacity() == MAX_BYTES / 2 - 4096));
        drop(pool);
        let small: Vec<i16> = take(10);
        assert!(small.capacity() >= 10);
        drop(searching);
        // released: nothing of this type is kept any more
        release();
        assert!(i16::pool().kept.lock().unwrap().is_empty());
    }

    #[test]
    fn pools_register_themselves_on_first_give() {
        // a type of this test alone: no module names it to the sweeps
        #[derive(Clone, Copy)]
        struct Probe(#[allow(dead_code)] u32);
        pooled!(Probe);
        assert_eq!(Probe::pool().state.load(Ordering::Acquire), NEW);
        let small = Vec::<Probe>::with_capacity(4);
        give(small); // not worth keeping: the pool stays unregistered
        assert_eq!(Probe::pool().state.load(Ordering::Acquire), NEW);
        give(Vec::<Probe>::with_capacity(1 << 20));
        assert_eq!(Probe::pool().state.load(Ordering::Acquire), LISTED);
        assert_eq!(Probe::pool().kept.lock().unwrap().len(), 1);
        // the release reaches it although this module never named it
        release();
        assert!(Probe::pool().kept.lock().unwrap().is_empty());
    }

    #[test]
    fn a_pool_that_could_not_register_keeps_nothing() {
        #[derive(Clone, Copy)]
        struct Unlisted(#[allow(dead_code)] u32);
        pooled!(Unlisted);
        Unlisted::pool().state.store(FULL, Ordering::Release);
        give(Vec::<Unlisted>::with_capacity(1 << 20));
        assert!(Unlisted::pool().kept.lock().unwrap().is_empty());
        let v: Vec<Unlisted> = take(1 << 20);
        assert!(v.capacity() >= 1 << 20);
    }

    #[test]
    fn resize_huge_keeps_contents_and_fills() {
        let mut v: Vec<u32> = (0..1000).collect();
        resize_huge(&mut v, 3 << 20, 7); // past the huge-page threshold
        assert_eq!(v.len(), 3 << 20);
        assert!(v[..1000].iter().enumerate().all(|(i, &x)| x == i as u32));
        assert!(v[1000..].iter().all(|&x| x == 7));
        resize_huge(&mut v, 10, 0); // shrinking is a plain resize
        assert_eq!(v, (0..10).collect::<Vec<u32>>());
    }

    #[test]
    fn trim_keeps_live_memory() {
        let v: Vec<u64> = (0..1u64 << 20).collect();
        drop(vec![0u8; 64 << 20]);
        trim();
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64));
    }
}
