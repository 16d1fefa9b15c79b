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
//! Every call given here survives an unwind at any chunk boundary (the
//! stateless searches; the tree's steps, as `tree/mod.rs`'s "Stopping" says).
//! A signal whose handler raised after the call's last check finds the call
//! finished: a stateless result is dropped and the handler's exception
//! raised ([`Watch::Stateless`]); a tree's step has committed, so its result
//! is returned and `KeyboardInterrupt` raised right after the call returns
//! ([`Watch::Committing`]: the caller gets the handles it was given, the
//! events it consumed).

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
/// The interrupt signal's number (the same on every platform Python runs on).
const SIGINT: std::ffi::c_int = 2;
/// Stack of the call's thread: as much as a Python thread's.
const STACK: usize = 8 << 20;

/// What a finished call's result is worth when a handler raised meanwhile.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Watch {
    /// Nothing: the call changed nothing (a search), its result is dropped.
    Stateless,
    /// Everything: the call changed state (a tree's step) that its result
    /// reports, so the result is returned and the interrupt raised after.
    Committing,
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
    if work < WATCHED_FROM {
        return Ok(py.detach(|| f(ex)));
    }
    let stop = Arc::new(Stop::new());
    let ex = ex.clone().stoppable(stop.clone());
    let (outcome, raised) = py.detach(|| run_watched(&ex, &stop, f));
    match (outcome, raised) {
        (Ok(r), None) => Ok(r),
        (Ok(r), Some(e))
            if how == Watch::Committing && e.is_instance_of::<PyKeyboardInterrupt>(py) =>
        {
            // SAFETY: a plain C call with the GIL held; it only marks SIGINT
            // as tripped, so Python raises KeyboardInterrupt at its next check.
            unsafe { pyo3::ffi::PyErr_SetInterruptEx(SIGINT) };
            Ok(r)
        }
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
