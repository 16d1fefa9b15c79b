//! A step's chunks run by a team: the calling thread and whichever pool
//! threads come.
//!
//! Why: on a machine whose cores are busy elsewhere, a thread woken for a
//! step may wait milliseconds for a core.  A step that hands its chunks to
//! the pool and parks its caller waits for such threads to be scheduled,
//! and a step whose chunks wait for the slowest thread's share waits for
//! every thread the machine has put aside.  Here the caller works from the
//! first chunk on, a helper takes chunks only once it runs, chunks are
//! claimed one at a time from one counter (whoever runs takes the next), and
//! a helper that comes after the last chunk was taken leaves without
//! touching the step.  The caller waits only for chunks that helpers are
//! running, never for a helper to be scheduled: on a quiet machine the
//! helpers share the work; on a busy one the helpers that run share it, and
//! the call waits at most for the chunks a helper holds when the OS puts it
//! aside.
//!
//! # Protocol
//! The step (its closures, the participants' states, a panic) lives on the
//! caller's stack; helpers reach it through a shared handle ([`Shared`]:
//! atomics, the caller's thread, a pointer to the step) that may outlive it
//! in jobs that start late.
//! * chunks are claimed from the counter `next`, each exactly once;
//! * a helper *joins* by incrementing `active`, then reads `closed`: if the
//!   step is closed it leaves at once, never following the pointer; else it
//!   claims chunks until none is left, then decrements `active` and, if it
//!   was the last one and the step is closed, wakes the caller;
//! * the caller claims chunks until none is left, sets `closed`, and waits
//!   until `active` is 0: a few microseconds looking (`LOOK`, less than a
//!   park and wake-up cost), then parked.
//!
//! All four accesses are `SeqCst`: a helper's join (write `active`, read
//! `closed`) and the caller's close (write `closed`, read `active`) are the
//! store-load pattern of Dekker's algorithm, so at least one sees the
//! other's write: either the caller waits for the helper, or the helper
//! sees the step closed.  The same holds for a helper's leave and the
//! caller's wait, so the caller is never left parked.  Hence when the
//! caller returns, no helper follows the pointer again.
//!
//! A panic in a chunk (a stop's [`super::Stopped`], or a bug) ends the
//! claims (the counter is moved past the end), is kept, and is resumed on
//! the caller once every helper has left: an unwinding step leaves no chunk
//! running.
//!
//! A process forked while a step runs (by a signal handler that a chunk's
//! stop ran, in Python) holds the caller's thread alone: the helpers that
//! had joined do not exist there and never leave.  The parked caller
//! compares its process id with the one the pool's threads live in now and
//! then ([`FORK_LOOK`]); in such a child it
//! unwinds with [`super::Stopped`] (the step's result cannot be had) rather
//! than wait for ever.  No thread follows the pointer in that child.

use rayon::ThreadPool;
use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// How long a caller with no chunk left looks for its helpers to leave
/// before it parks: about a chunk of a small step, far below a time slice.
const LOOK: Duration = Duration::from_micros(20);
/// How often a parked caller looks whether it is now in a forked child.
const FORK_LOOK: Duration = Duration::from_millis(10);

/// What the helpers of a step share with its caller.
struct Shared {
    /// The next chunk to claim (past `n`: none left).
    next: AtomicUsize,
    /// Chunks of the step.
    n: usize,
    /// Helpers joined and not yet left.
    active: AtomicUsize,
    /// Set by the caller once it found no chunk left.
    closed: AtomicBool,
    /// The calling thread, woken by the last helper to leave a closed step.
    caller: Thread,
    /// The step, on the caller's stack: followed only by a joined helper of
    /// an open step (see the module's protocol).
    step: *const (),
    /// Takes part in the step behind `step` (its type erased).
    run: unsafe fn(*const (), &Shared),
}

// SAFETY: the raw pointer is followed only under the join protocol, while
// the caller waits for the helper (the step is `Sync`: see `team`); every
// other field is Send and Sync.
unsafe impl Send for Shared {}
// SAFETY: as above.
unsafe impl Sync for Shared {}

/// A step as one participant sees it: make a state, run chunks into it.
struct Step<'a, S, I, W> {
    init: &'a I,
    work: &'a W,
    /// Each participant's state, once it ran a chunk.
    states: Mutex<Vec<S>>,
    /// The first panic of a chunk.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

impl<S, I, W> Step<'_, S, I, W>
where
    I: Fn() -> S,
    W: Fn(&mut S, usize),
{
    /// Claim and run chunks until none is left (or one panicked).
    fn take_part(&self, shared: &Shared) {
        let mut state: Option<S> = None;
        let ran = catch_unwind(AssertUnwindSafe(|| loop {
            let c = shared.next.fetch_add(1, SeqCst);
            if c >= shared.n {
                break;
            }
            (self.work)(state.get_or_insert_with(self.init), c);
        }));
        if let Err(p) = ran {
            // no more claims (far past any count the adds could reach)
            shared.next.store(usize::MAX / 2, SeqCst);
            let mut first = self.panic.lock().unwrap_or_else(|e| e.into_inner());
            first.get_or_insert(p);
        }
        if let Some(s) = state {
            self.states
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(s);
        }
    }
}

/// [`Step::take_part`] of the step behind `step`.
///
/// # Safety
/// `step` points to a live `Step<S, I, W>` (a joined helper of an open step).
unsafe fn take_part<S, I, W>(step: *const (), shared: &Shared)
where
    I: Fn() -> S,
    W: Fn(&mut S, usize),
{
    // SAFETY: by the caller's contract the step is alive, and it is `Sync`
    // (see `team`), so a shared reference from this thread is sound.
    let step = unsafe { &*step.cast::<Step<'_, S, I, W>>() };
    step.take_part(shared);
}

/// A helper's job: join, take part if the step is still open, leave.
fn help(shared: Arc<Shared>) {
    shared.active.fetch_add(1, SeqCst);
    if !shared.closed.load(SeqCst) {
        // SAFETY: joined while the step was open: the caller waits for
        // `active` to drop to 0 before its step goes (module protocol).
        unsafe { (shared.run)(shared.step, &shared) };
    }
    if shared.active.fetch_sub(1, SeqCst) == 1 && shared.closed.load(SeqCst) {
        shared.caller.unpark();
    }
}

/// `work(state, c)` for every chunk `c < n`, by the calling thread and up to
/// `helpers` threads of `pool` (whose threads live in process `pid`), each
/// participant's state made by `init` on its first chunk; every state, in no
/// fixed order.  A chunk's panic is resumed here once no chunk runs.
pub(super) fn team<S, I, W>(
    pool: &ThreadPool,
    pid: u32,
    helpers: usize,
    n: usize,
    init: I,
    work: W,
) -> Vec<S>
where
    S: Send,
    I: Fn() -> S + Sync,
    W: Fn(&mut S, usize) + Sync,
{
    let step = Step {
        init: &init,
        work: &work,
        states: Mutex::new(Vec::new()),
        panic: Mutex::new(None),
    };
    // `Step` is Sync: `init` and `work` are Sync, and `S: Send` values only
    // move in and out of its mutexes.
    let shared = Arc::new(Shared {
        next: AtomicUsize::new(0),
        n,
        active: AtomicUsize::new(0),
        closed: AtomicBool::new(false),
        caller: std::thread::current(),
        step: (&step as *const Step<'_, S, I, W>).cast(),
        run: take_part::<S, I, W>,
    });
    for _ in 0..helpers.min(n.saturating_sub(1)) {
        let s = shared.clone();
        pool.spawn(move || help(s));
    }
    step.take_part(&shared);
    shared.closed.store(true, SeqCst);
    // A helper still running a chunk of a quiet machine's step ends within
    // about a chunk: look for a moment before parking (a park and its wake
    // cost more than that); one the OS put aside is waited for parked.
    let look = Instant::now();
    while shared.active.load(SeqCst) != 0 && look.elapsed() < LOOK {
        std::hint::spin_loop();
    }
    while shared.active.load(SeqCst) != 0 {
        std::thread::park_timeout(FORK_LOOK);
        if std::process::id() != pid {
            resume_unwind(Box::new(super::Stopped)); // see "A process forked"
        }
    }
    let panic = step.panic.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = panic {
        resume_unwind(p);
    }
    step.states.into_inner().unwrap_or_else(|e| e.into_inner())
}
