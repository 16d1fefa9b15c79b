//! Long calls that Ctrl-C interrupts.
//!
//! Python runs its signal handlers on the main thread, between bytecodes: a
//! call into the core would hold that thread, and Ctrl-C, until it returns.
//! So a call over at least [`WATCHED_FROM`] objects made on the main thread
//! carries a [`Stop`] that polls (a call on any other thread could run no
//! handler, and its poll could meet an interpreter the main thread is
//! finalizing): the calling thread, which works on the call's chunks itself (the
//! core's steps run on the caller and whichever pool threads come), takes
//! the GIL at a chunk boundary every [`POLL`] to run Python's signal
//! handlers.  A handler that raises (`KeyboardInterrupt`) sets the stop; the
//! call unwinds at its next chunk ([`Exec::check_stop`]) and the handler's
//! exception is raised, its result discarded.  Smaller calls take less time
//! than a poll and carry no stop.
//!
//! Why on the calling thread: a call handed to a thread of its own, with the
//! caller waiting, pays twice for a thread to be scheduled (the call's to
//! start, the caller's to take the result), which on a machine whose cores
//! are busy elsewhere is milliseconds each time.
//!
//! Every call given here survives an unwind at any chunk boundary (the
//! stateless searches; the tree's steps, as `tree/mod.rs`'s "Stopping" says).
//! A signal whose handler raised after the call's last check finds the call
//! finished: a stateless result is dropped and the handler's exception
//! raised ([`Watch::Stateless`]); a tree's step has committed, so its result
//! is returned and `KeyboardInterrupt` raised right after the call returns
//! ([`Watch::Committing`]: the caller gets the handles it was given, the
//! events it consumed).  A signal that comes after the last poll runs its
//! handler when the call has returned, as between any two bytecodes.

use broadphase_core::par::{Exec, Stop, Stopped};
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How often the calling thread runs Python's signal handlers.
pub const POLL: Duration = Duration::from_millis(50);
/// Objects from which a call polls for signals.
pub const WATCHED_FROM: usize = 1 << 14;
/// The interrupt signal's number (the same on every platform Python runs on).
const SIGINT: std::ffi::c_int = 2;

/// What a finished call's result is worth when a handler raised meanwhile.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Watch {
    /// Nothing: the call changed nothing (a search), its result is dropped.
    Stateless,
    /// Everything: the call changed state (a tree's step) that its result
    /// reports, so the result is returned and the interrupt raised after.
    Committing,
}

/// Whether the calling thread is Python's main thread: the only one that
/// runs signal handlers, so the only one worth a poll; and a poll from any
/// other thread could take the GIL while the main thread finalizes the
/// interpreter (a daemon thread's call at exit), which CPython forbids.
/// Its error, if any, is the caller's (a signal's handler that ran in it).
fn on_main_thread(py: Python<'_>) -> PyResult<bool> {
    let threading = py.import("threading")?;
    let main = threading.call_method0("main_thread")?.getattr("ident")?;
    let me = threading.call_method0("get_ident")?;
    main.eq(me)
}

/// `f(ex)` with the GIL released; for `work >= WATCHED_FROM` on the main
/// thread, running
/// Python's signal handlers every [`POLL`] at its chunk boundaries (see the
/// module docs).  The error a handler raised, if any, else `f`'s value.
pub fn watched<R: Send>(
    py: Python<'_>,
    work: usize,
    ex: &Exec,
    how: Watch,
    f: impl FnOnce(&Exec) -> R + Send,
) -> PyResult<R> {
    if work < WATCHED_FROM || !on_main_thread(py)? {
        return Ok(py.detach(|| f(ex)));
    }
    let raised: Arc<Mutex<Option<PyErr>>> = Arc::default();
    let slot = raised.clone();
    let ask = move || {
        Python::attach(|py| match py.check_signals() {
            Ok(()) => false,
            Err(e) => {
                *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                true
            }
        })
    };
    let ex = ex.clone().stoppable(Arc::new(Stop::polled(ask, POLL)));
    let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(|| f(&ex))));
    let raised = raised.lock().unwrap_or_else(|e| e.into_inner()).take();
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
