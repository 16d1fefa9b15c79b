//! Long calls that Ctrl-C interrupts.
//!
//! Python runs its signal handlers on the main thread, between bytecodes: a
//! call into the core would hold that thread, and Ctrl-C, until it returns.
//! So a call over at least [`WATCHED_FROM`] objects runs on a thread of its
//! own, with an executor carrying a [`Stop`], while the calling thread waits
//! (parked, never spinning) and every [`POLL`] takes the GIL to run Python's
//! signal handlers.  A handler that raises (`KeyboardInterrupt`) sets the
//! stop; the call unwinds at its next chunk ([`Exec::check_stop`]) and the
//! handler's exception is raised, its result discarded.  Smaller calls run on
//! the calling thread: they take less time than a poll.
//!
//! Which calls get a stop is the caller's choice ([`Watch::Stoppable`]):
//! only those whose state survives an unwind at any chunk boundary.  The
//! others ([`Watch::ToTheEnd`]) run on the calling thread, and Python runs
//! the handlers once they return.

use broadphase_core::par::{Exec, Stop, Stopped};
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// How often the waiting thread runs Python's signal handlers.
pub const POLL: Duration = Duration::from_millis(50);
/// Objects from which a call runs on a thread of its own.
pub const WATCHED_FROM: usize = 1 << 14;
/// Stack of the call's thread: as much as a Python thread's.
const STACK: usize = 8 << 20;

/// Whether a watched call may be stopped midway.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Watch {
    /// Unwinding at any chunk leaves nothing behind (stateless searches).
    Stoppable,
    /// The call always runs to its end, on the calling thread; a signal's
    /// handler runs after it.
    ToTheEnd,
}

/// `f(ex)` with the GIL released; for `work >= WATCHED_FROM`, on a thread of
/// its own while this one runs Python's signal handlers every [`POLL`] (see
/// the module docs).  The error a handler raised, if any, else `f`'s value.
pub fn watched<R: Send>(
    py: Python<'_>,
    work: usize,
    ex: &Exec,
    how: Watch,
    f: impl FnOnce(&Exec) -> R + Send,
) -> PyResult<R> {
    // A call that runs to its end anyway gains nothing from a thread of its
    // own (Python runs the handlers when it returns): it stays here.
    if work < WATCHED_FROM || how == Watch::ToTheEnd {
        return Ok(py.detach(|| f(ex)));
    }
    let stop = Arc::new(Stop::new());
    let ex = match how {
        Watch::Stoppable => ex.clone().stoppable(stop.clone()),
        Watch::ToTheEnd => ex.clone(),
    };
    let (outcome, raised) = py.detach(|| run_watched(&ex, &stop, f));
    match (outcome, raised) {
        (Ok(r), None) => Ok(r),
        (Ok(_), Some(e)) => Err(e),
        (Err(payload), raised) if payload.is::<Stopped>() => {
            Err(raised.unwrap_or_else(|| PyKeyboardInterrupt::new_err("the call was stopped")))
        }
        // a bug in the core: let PyO3 report the panic
        (Err(payload), _) => std::panic::resume_unwind(payload),
    }
}

type Outcome<R> = std::thread::Result<R>;

/// The call on a thread of its own (or here, if no thread can be had), and
/// the exception a signal handler raised meanwhile.
fn run_watched<R: Send>(
    ex: &Exec,
    stop: &Stop,
    f: impl FnOnce(&Exec) -> R + Send,
) -> (Outcome<R>, Option<PyErr>) {
    let slot = Mutex::new(Some(f));
    let take = || slot.lock().unwrap_or_else(|e| e.into_inner()).take();
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel::<()>();
        let job = move || {
            let f = take().expect("the call runs once");
            let out = catch_unwind(AssertUnwindSafe(|| f(ex)));
            let _ = tx.send(()); // the waiting thread may have gone: an unwind
            out
        };
        let spawned = std::thread::Builder::new()
            .name("broadphase-call".into())
            .stack_size(STACK)
            .spawn_scoped(s, job);
        let Ok(handle) = spawned else {
            // no thread to be had: the call runs here, unwatched
            let f = take().expect("the call did not run");
            return (catch_unwind(AssertUnwindSafe(|| f(ex))), None);
        };
        let mut raised = None;
        while let Err(mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(POLL) {
            if raised.is_none() {
                if let Err(e) = Python::attach(|py| py.check_signals()) {
                    raised = Some(e);
                    stop.set();
                }
            }
        }
        let out = handle.join().unwrap_or_else(Err);
        (out, raised)
    })
}
