//! Threads: pools that survive `fork`, chunked maps, and disjoint scatters.
//!
//! Determinism: every parallel step splits its work into chunks fixed by the
//! data (never by the thread count) and combines the chunks' results in chunk
//! order, so a result never depends on the number of threads.
//!
//! Pools: one rayon pool of helpers per thread count, built on first use
//! and kept for the life of the process, listed in a registry reached
//! through an atomic pointer.  A step's chunks are run by a team (`team`):
//! the calling thread works from the first chunk on and the pool's threads
//! join when they run, each taking the next chunk; nobody waits for a
//! thread to be scheduled, and the caller, once no chunk is left, waits
//! parked (never spinning) only for chunks already running.  So a machine
//! whose cores are busy elsewhere costs a call no wake-up of a thread it has
//! not scheduled yet: only the chunks a helper holds when the OS puts it
//! aside.  The
//! registry remembers the process that built it: a child made by `fork()`
//! has none of the parent's threads, so it makes a registry of its own and
//! abandons (never drops or locks: its lock may have been held at the fork)
//! the inherited one.  No lock is taken on the way to a pool that a parent
//! thread could have held.
//!
//! Stopping: an executor may carry a [`Stop`], checked at the start of every
//! chunk; a set stop unwinds the call with [`Stopped`] (Ctrl-C in Python).
//!
//! Small inputs never touch a pool: [`Exec::serial`] runs everything on the
//! calling thread.  On a machine whose every core is busy elsewhere
//! (`busy`), "small" grows by `BUSY_FACTOR`: a helper there may cost a
//! time slice, which a short call cannot win back.
//!
//! # Parts
//! - `pools`: the process's pools (fork-safe registry), the threads
//!   available, and keeping a pool's threads awake through a search;
//! - `chunks`: chunk bounds fixed by the data ([`even_bounds`],
//!   [`balanced`], [`MAX_CHUNKS`]);
//! - `scatter`: writes of several threads to disjoint positions;
//! - `team`: a step's chunks run by the caller and the helpers that come;
//! - `busy`: whether every core of the machine is busy elsewhere.
//!
//! This file holds the executor ([`Exec`]) and its parallel steps.

mod busy;
mod chunks;
mod pools;
mod scatter;
mod team;

pub use crate::stop::{Stop, Stopped};
pub use busy::busy;
pub use chunks::{balanced, chunk_count, even_bounds, split_at_bounds, Work, MAX_CHUNKS};
pub use pools::available_threads;
pub use scatter::Scatter;

use pools::{keep_awake, pool, SetOnDrop};
use rayon::ThreadPool;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use team::team;

/// How much more work than on a quiet machine a step must have to use the
/// pool when every core is busy elsewhere (`busy`).  There a helper may
/// cost its step a time slice (a few milliseconds: waiting for a core, or
/// for a chunk the OS put aside), which only work far above the quiet
/// threshold (itself about where helpers start to pay) wins back; below it
/// the calling thread, which has its own share of a core, works alone.
pub const BUSY_FACTOR: usize = 16;

/// Where the chunks of a step run: on the calling thread, or on a pool.
#[derive(Clone)]
pub struct Exec {
    pool: Option<Arc<ThreadPool>>,
    /// The process the pool's threads live in (a step's caller in a child
    /// forked mid-step finds another: see `team`).
    pid: u32,
    /// Checked at the start of every chunk (see [`Stop`]).
    stop: Option<Arc<Stop>>,
}

impl Exec {
    /// Everything on the calling thread.
    pub fn serial() -> Exec {
        Exec {
            pool: None,
            pid: 0,
            stop: None,
        }
    }

    /// `workers` threads (`None`: all available; more than available is capped).
    ///
    /// One thread, or a pool that cannot be built, gives [`Exec::serial`].
    pub fn new(workers: Option<usize>) -> Exec {
        let threads = workers
            .unwrap_or(usize::MAX)
            .min(available_threads())
            .max(1);
        // the caller is one of the threads: the pool holds the others
        let (pool, pid) = match threads {
            1 => (None, 0),
            _ => pool(threads - 1).map_or((None, 0), |(p, pid)| (Some(p), pid)),
        };
        Exec {
            pool,
            pid,
            stop: None,
        }
    }

    /// This executor if `work` reaches `min_parallel`, else a serial one
    /// (keeping the stop); on a busy machine, also a serial one below
    /// [`BUSY_FACTOR`] times `min_parallel` ([`Exec::unless_busy`]).
    pub fn for_work(&self, work: usize, min_parallel: usize) -> Exec {
        if work >= min_parallel {
            self.unless_busy(work, min_parallel)
        } else {
            self.serial_part()
        }
    }

    /// This executor, or a serial one (keeping the stop) when every core of
    /// the machine is busy elsewhere (`busy`) and `work` is below
    /// [`BUSY_FACTOR`] times `min_parallel`, the least work worth the pool
    /// on a quiet machine.  For a call as a whole (its steps then all run
    /// here) and, through [`Exec::for_work`], for each step.
    pub fn unless_busy(&self, work: usize, min_parallel: usize) -> Exec {
        if self.pool.is_some() && work < min_parallel.saturating_mul(BUSY_FACTOR) && busy() {
            self.serial_part()
        } else {
            self.clone()
        }
    }

    /// A serial executor with this one's stop.
    fn serial_part(&self) -> Exec {
        Exec {
            pool: None,
            pid: self.pid,
            stop: self.stop.clone(),
        }
    }

    /// This executor, stopping at its next chunk once `stop` is set.
    pub fn stoppable(mut self, stop: Arc<Stop>) -> Exec {
        self.stop = Some(stop);
        self
    }

    /// This executor's [`Stop`], if it carries one.
    pub fn stop(&self) -> Option<&Arc<Stop>> {
        self.stop.as_ref()
    }

    /// Unwind with [`Stopped`] if this executor's [`Stop`] is set: called at
    /// the start of every chunk of [`Exec::map`], [`Exec::fold`],
    /// [`Exec::each`] and [`Exec::extend_with`], so a stop set by a watcher
    /// ends any search within one chunk.
    #[inline]
    pub fn check_stop(&self) {
        if let Some(s) = &self.stop {
            s.check();
        }
    }

    /// Whether chunks may run on other threads.
    pub fn is_parallel(&self) -> bool {
        self.pool.is_some()
    }

    /// Start waking the pool's threads without waiting for them, for a call
    /// about to be followed by parallel work (a tree's `move` of many
    /// objects, before its `pairs()`): they wake meanwhile instead of the
    /// work paying for it.  Each then looks for work for `AWAKE_IDLE`
    /// (giving its core away while it finds none; nothing waits for it) and
    /// sleeps again.  Nothing for a serial executor.
    ///
    /// A woken thread stops looking as soon as it has run one job (the
    /// parallel work it was woken for keeps its threads awake by itself,
    /// [`Exec::install`]), so a wake a pool thread takes up while it waits
    /// inside another caller's work delays that work by one job at most.
    /// While woken threads are still looking, another `wake` adds none.
    pub fn wake(&self) {
        use pools::WOKEN;
        if let Some(p) = &self.pool {
            let n = p.current_num_threads();
            if WOKEN
                .compare_exchange(0, n, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                static NEVER: AtomicBool = AtomicBool::new(false);
                p.spawn_broadcast(|_| {
                    keep_awake(&NEVER, true);
                    WOKEN.fetch_sub(1, Ordering::AcqRel);
                });
            }
        }
    }

    /// `f()` here, the pool's threads kept looking for work while it runs.
    ///
    /// Steps inside `f` that use this executor find the helpers awake (see
    /// `keep_awake`): a search of several parallel stages then wakes each
    /// thread once, not once per stage.  A kept-awake thread only takes
    /// queued jobs and gives its core away while it finds none, so a helper
    /// the machine has put aside delays nothing.
    pub fn install<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.pool {
            Some(p) => {
                let done = Arc::new(AtomicBool::new(false));
                let flag = done.clone();
                p.spawn_broadcast(move |_| keep_awake(&flag, false));
                // Set on the way out, also when `f` panics.
                let _done = SetOnDrop(done);
                f()
            }
            None => f(),
        }
    }

    /// `work(state, c)` for every chunk `c < n`, on this thread and the
    /// helpers that come (see `team`), each participant's state made by
    /// `init` on its first chunk, the stop checked before every chunk;
    /// every state.  Serially, one state takes every chunk in order.
    fn run<S: Send>(
        &self,
        n: usize,
        init: impl Fn() -> S + Sync,
        work: impl Fn(&mut S, usize) + Sync,
    ) -> Vec<S> {
        let chunk = |s: &mut S, c: usize| {
            self.check_stop();
            work(s, c)
        };
        match &self.pool {
            Some(p) if n > 1 => team(p, self.pid, p.current_num_threads(), n, init, chunk),
            _ => {
                let mut s = init();
                (0..n).for_each(|c| chunk(&mut s, c));
                vec![s]
            }
        }
    }

    /// `f(0), ..., f(n - 1)`, in that order, computed in parallel if allowed
    /// (each chunk taken by whichever thread is free: when the costly chunks
    /// sit together, the pairs of big boxes which often come first, the
    /// others are shared by the rest).
    pub fn map<T: Send>(&self, n: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
        let mut out: Vec<T> = Vec::with_capacity(n);
        let slots = Scatter::new(&mut out.spare_capacity_mut()[..n]);
        // SAFETY: chunk `c` writes slot `c` only, and each chunk runs once.
        self.run(
            n,
            || (),
            |_, c| unsafe { slots.write(c, MaybeUninit::new(f(c))) },
        );
        // SAFETY: `run` returned, so every chunk ran and wrote its slot (a
        // panic unwinds before this line; the written values then leak,
        // never drop twice).
        unsafe { out.set_len(n) };
        out
    }

    /// Chunks `0..n` folded into accumulators: `f(acc, c)` for every chunk,
    /// each accumulator made by `init`, every accumulator returned.
    ///
    /// Each thread that takes part fills one accumulator of its own: so
    /// there are at most as many accumulators as threads, however many
    /// chunks.  Which chunks share an accumulator, and how many there are,
    /// depends on the threads and their timing: only for results that end
    /// up the same whatever the grouping (pairs put in canonical order,
    /// counts summed).  Serially, one accumulator takes every chunk in order.
    pub fn fold<A: Send>(
        &self,
        n: usize,
        init: impl Fn() -> A + Sync + Send,
        f: impl Fn(&mut A, usize) + Sync + Send,
    ) -> Vec<A> {
        self.run(n, init, f)
    }

    /// `[f(0), ..., f(n - 1)]` into `out` (cleared first, its capacity
    /// reused), written straight in: [`Exec::extend_with`] of an empty vector.
    pub fn collect_into<T: Send>(
        &self,
        out: &mut Vec<T>,
        n: usize,
        grain: usize,
        f: impl Fn(usize) -> T + Sync + Send,
    ) {
        out.clear();
        self.extend_with(out, n, grain, f);
    }

    /// `f(0), ..., f(n - 1)` appended to `out`, written straight in: in
    /// chunks of at least `grain` fixed by `n`, in parallel if allowed, each
    /// one a plain loop (into which `f` inlines: rayon's own collect left `f`
    /// a call per element in some builds).  A grown allocation asks for huge
    /// pages ([`crate::scratch::resize_huge`]'s rule), and its first touches
    /// (the page faults) are shared by the chunks.
    pub fn extend_with<T: Send>(
        &self,
        out: &mut Vec<T>,
        n: usize,
        grain: usize,
        f: impl Fn(usize) -> T + Sync + Send,
    ) {
        let len = out.len();
        if n > out.capacity() - len {
            out.reserve(n);
            crate::hints::advise_huge(out);
        }
        let bounds = even_bounds(n, chunk_count(n, grain, MAX_CHUNKS));
        let parts = split_at_bounds(&mut out.spare_capacity_mut()[..n], &bounds);
        self.each(parts, |c, part| {
            for (slot, i) in part.iter_mut().zip(bounds[c]..) {
                slot.write(f(i));
            }
        });
        // SAFETY: the parts tile len..len + n (`bounds` runs from 0 to n over
        // the spare capacity from len on) and each chunk's loop wrote every
        // slot of its part; a panic in `f` unwinds out of `each` before this
        // line (the written slots then leak, never drop twice).  Tested by
        // `collect_into_fills_every_slot_and_extend_with_appends` below and
        // by every search's gather (tests/methods.rs against the naive pairs).
        unsafe { out.set_len(len + n) };
    }

    /// The `parts` one after the other into `out` (cleared first, its
    /// capacity reused), each part copied by a chunk of its own, in
    /// parallel if allowed: the per-chunk results of a step joined in
    /// chunk order without a serial pass over them.  A grown allocation
    /// asks for huge pages, as in [`Exec::extend_with`].
    pub fn concat_into<T: Copy + Send + Sync, P: AsRef<[T]> + Sync>(
        &self,
        out: &mut Vec<T>,
        parts: &[P],
    ) {
        let mut bounds = Vec::with_capacity(parts.len() + 1);
        bounds.push(0);
        for p in parts {
            bounds.push(bounds[bounds.len() - 1] + p.as_ref().len());
        }
        let n = bounds[parts.len()];
        out.clear();
        if n > out.capacity() {
            out.reserve(n);
            crate::hints::advise_huge(out);
        }
        let slots = split_at_bounds(&mut out.spare_capacity_mut()[..n], &bounds);
        self.each(slots, |c, slot| {
            for (d, &v) in slot.iter_mut().zip(parts[c].as_ref()) {
                d.write(v);
            }
        });
        // SAFETY: the slots tile 0..n (`bounds` are the parts' cumulative
        // lengths, slot `c` as long as part `c`) and each chunk wrote every
        // slot of its own; `T: Copy`, so nothing leaks or drops twice.
        unsafe { out.set_len(n) };
    }

    /// `f(c, parts[c])` for every part, in parallel if allowed.
    pub fn each<P: Send, R: Send>(
        &self,
        parts: Vec<P>,
        f: impl Fn(usize, P) -> R + Sync + Send,
    ) -> Vec<R> {
        if self.pool.is_none() || parts.len() <= 1 {
            return parts
                .into_iter()
                .enumerate()
                .map(|(c, s)| {
                    self.check_stop();
                    f(c, s)
                })
                .collect();
        }
        // each part taken once, by the chunk of its index
        let parts: Vec<Mutex<Option<P>>> = parts.into_iter().map(|p| Mutex::new(Some(p))).collect();
        let take = |c: usize| {
            let mut slot = parts[c].lock().unwrap_or_else(|e| e.into_inner());
            slot.take().expect("each part is taken once")
        };
        self.map(parts.len(), |c| f(c, take(c)))
    }

    /// `f(c, lo, data[lo..hi])` for every chunk `lo..hi` of `bounds`.
    pub fn chunks_mut<T: Send, R: Send>(
        &self,
        data: &mut [T],
        bounds: &[usize],
        f: impl Fn(usize, usize, &mut [T]) -> R + Sync + Send,
    ) -> Vec<R> {
        let parts = split_at_bounds(data, bounds);
        self.each(parts, |c, s| f(c, bounds[c], s))
    }
}

#[cfg(test)]
mod tests {
    use super::pools::AWAKE_IDLE;
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Instant;

    /// A reading serves the calls of the next quarter second, then the
    /// file is read again.
    #[test]
    fn collect_into_fills_every_slot_and_extend_with_appends() {
        for workers in [1, 2, 3] {
            let ex = Exec::new(Some(workers));
            for n in [0usize, 1, 7, 100, 1000, 4099] {
                let squares = (0..n).map(|i| format!("{}", i * i));
                let (mut fresh, mut more) =
                    (vec![String::from("old"); 3], vec![String::from("old"); 3]);
                ex.collect_into(&mut fresh, n, 64, |i| format!("{}", i * i));
                ex.extend_with(&mut more, n, 64, |i| format!("{}", i * i));
                assert_eq!(
                    fresh,
                    squares.clone().collect::<Vec<_>>(),
                    "n = {n}, {workers} workers"
                );
                assert_eq!(more[..3], ["old", "old", "old"]);
                assert!(
                    more[3..].iter().cloned().eq(squares),
                    "n = {n}, {workers} workers"
                );
                // into spare capacity, no reallocation
                let mut v: Vec<u32> = Vec::with_capacity(n + 5);
                v.push(9);
                ex.extend_with(&mut v, n, 64, |i| i as u32);
                assert_eq!(v.len(), n + 1);
                assert!(v[1..].iter().enumerate().all(|(i, &x)| x == i as u32));
            }
        }
    }

    #[test]
    fn concat_into_joins_the_parts_in_order() {
        for workers in [1, 2, 3] {
            let ex = Exec::new(Some(workers));
            let parts: Vec<Vec<u32>> = (0..40u32)
                .map(|c| (0..c * c % 7).map(|v| 100 * c + v).collect())
                .collect();
            let want: Vec<u32> = parts.iter().flatten().copied().collect();
            let mut out = vec![9u32; 3];
            ex.concat_into(&mut out, &parts);
            assert_eq!(out, want, "{workers} workers");
            ex.concat_into::<u32, &[u32]>(&mut out, &[]);
            assert!(out.is_empty());
        }
    }

    /// Whether `f` unwound with [`Stopped`] (any other panic goes on).
    fn stops(f: impl FnOnce()) -> bool {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
            Ok(()) => false,
            Err(p) if p.is::<Stopped>() => true,
            Err(p) => std::panic::resume_unwind(p),
        }
    }

    #[test]
    fn a_stop_ends_every_step_at_its_next_chunk() {
        for w in [1, 2, 3] {
            // set before: no chunk runs
            let stop = Arc::new(Stop::new());
            stop.set();
            let ex = Exec::new(Some(w)).stoppable(stop);
            let ran = AtomicUsize::new(0);
            assert!(stops(|| {
                ex.map(10, |_| ran.fetch_add(1, Ordering::Relaxed));
            }));
            assert!(stops(|| {
                ex.fold(
                    10,
                    || (),
                    |_, _| {
                        ran.fetch_add(1, Ordering::Relaxed);
                    },
                );
            }));
            assert!(stops(|| {
                ex.each(vec![1, 2, 3], |_, _| ran.fetch_add(1, Ordering::Relaxed));
            }));
            assert!(stops(|| {
                let mut v = Vec::new();
                ex.extend_with(&mut v, 10_000, 64, |i| i);
            }));
            assert!(stops(|| ex.for_work(0, 1).check_stop()));
            assert_eq!(ran.load(Ordering::Relaxed), 0, "{w} workers");
            // set at the 5th check: 4 chunks ran, then the step unwound
            let ex = Exec::new(Some(w)).stoppable(Arc::new(Stop::after(5)));
            let ran = AtomicUsize::new(0);
            assert!(stops(|| {
                ex.map(100, |_| {
                    ran.fetch_add(1, Ordering::Relaxed);
                });
            }));
            assert!(ran.load(Ordering::Relaxed) >= 4 && ran.load(Ordering::Relaxed) < 100);
            // no stop, or one never set: every chunk, no unwind
            let ex = Exec::new(Some(w)).stoppable(Arc::new(Stop::new()));
            assert!(!stops(|| assert_eq!(ex.map(50, |i| i).len(), 50)));
        }
    }

    #[test]
    fn a_step_never_waits_for_a_helper_that_does_not_come() {
        // Every helper of the pool busy elsewhere (as threads the OS put
        // aside): each step runs on its caller alone, right away, and the
        // helpers' jobs, once they run, find the steps closed and leave.
        let ex = Exec::new(Some(3));
        let Some(p) = &ex.pool else { return }; // one core: nothing to test
        let (release, held) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicUsize::new(0)),
        );
        for _ in 0..p.current_num_threads() {
            let (release, held) = (release.clone(), held.clone());
            p.spawn(move || {
                held.fetch_add(1, Ordering::SeqCst);
                while !release.load(Ordering::SeqCst) {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            });
        }
        while held.load(Ordering::SeqCst) < p.current_num_threads() {
            std::thread::yield_now();
        }
        let t = Instant::now();
        for _ in 0..20 {
            assert_eq!(
                ex.map(64, |i| i * 2),
                (0..64).map(|i| i * 2).collect::<Vec<_>>()
            );
            let accs = ex.fold(64, || 0usize, |a, c| *a += c);
            assert_eq!((accs.len(), accs.iter().sum::<usize>()), (1, (0..64).sum()));
        }
        let took = t.elapsed();
        release.store(true, Ordering::SeqCst);
        assert!(took < std::time::Duration::from_millis(500), "{took:?}");
        // the late jobs left without running a chunk; the pool serves again
        assert_eq!(ex.map(8, |i| i + 1), (1..=8).collect::<Vec<_>>());
    }

    #[test]
    fn map_is_ordered_for_any_threads() {
        for w in [1, 2, 3, 8] {
            let ex = Exec::new(Some(w));
            assert_eq!(
                ex.map(100, |i| i * i),
                (0..100).map(|i| i * i).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn fold_takes_every_chunk_once_in_one_accumulator_per_thread() {
        for w in [1, 2, 3, 8] {
            let ex = Exec::new(Some(w));
            let threads = w.min(available_threads());
            // uneven chunks: the first few cost far more than the rest
            let accs = ex.fold(200, Vec::new, |acc: &mut Vec<usize>, c| {
                let spin = if c < 8 { 20_000 } else { 10 };
                for x in 0..spin {
                    std::hint::black_box(x);
                }
                acc.push(c);
            });
            assert!(
                !accs.is_empty() && accs.len() <= threads,
                "{w}: {}",
                accs.len()
            );
            let mut all: Vec<usize> = accs.into_iter().flatten().collect();
            all.sort_unstable();
            assert_eq!(all, (0..200).collect::<Vec<_>>());
            // a chunk that waits on the pool itself: never a deadlock, and
            // a chunk its thread took meanwhile gets an accumulator of its own
            let accs = ex.fold(50, Vec::new, |acc: &mut Vec<usize>, c| {
                acc.push(c + ex.map(4, |i| i).iter().sum::<usize>() - 6);
            });
            let mut all: Vec<usize> = accs.into_iter().flatten().collect();
            all.sort_unstable();
            assert_eq!(all, (0..50).collect::<Vec<_>>());
        }
    }

    #[test]
    fn install_keeps_threads_awake_and_lets_them_go() {
        let ex = Exec::new(Some(2));
        for _ in 0..50 {
            // Stages inside one install: the kept-awake thread takes part.
            let got = ex.install(|| {
                let a = ex.map(64, |i| i + 1);
                let b = ex.map(64, |i| a[i] * 2);
                b.iter().sum::<usize>()
            });
            assert_eq!(got, (1..=64).sum::<usize>() * 2);
        }
        // A panic inside still ends the keepers (the flag is set on unwind),
        // and the pool answers afterwards.
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ex.install(|| -> usize { panic!("inside install") })
        }));
        assert!(r.is_err());
        assert_eq!(ex.install(|| ex.map(8, |i| i).len()), 8);
        // A keeper with its flag set returns at once; one never fed returns
        // after AWAKE_IDLE (this thread is not a pool thread: nothing runs).
        keep_awake(&AtomicBool::new(true), false);
        let t = Instant::now();
        keep_awake(&AtomicBool::new(false), false);
        assert!(t.elapsed() >= AWAKE_IDLE);
        // Woken ahead, the pool answers as before (a serial executor has
        // nothing to wake).
        for _ in 0..20 {
            ex.wake();
            let got = ex.install(|| ex.map(8, |i| i * 3));
            assert_eq!(got, (0..8).map(|i| i * 3).collect::<Vec<_>>());
        }
        Exec::serial().wake();
    }
}
