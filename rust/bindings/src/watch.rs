//! Long calls that Ctrl-C interrupts.
//!
//! Python runs its signal handlers on the main thread, between bytecodes: a
//! call into the core would hold that thread, and Ctrl-C, until it returns.
//! So a call over at least [`WATCHED_FROM`] objects made on the main thread
//! (a few hundred: a call's time grows with its pairs and its exact tests,
//! not with its objects, so a few thousand circles may take seconds)
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
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How often the calling thread runs Python's signal handlers.
pub const POLL: Duration = Duration::from_millis(50);
/// Objects from which a call polls for signals: below, a call ends within a
/// poll whatever its input (256 objects make 32,640 pairs at most).
pub const WATCHED_FROM: usize = 1 << 8;
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

/// `threading.main_thread().ident`, read when `_core` is imported and, in a
/// child made by `fork()`, again ([`main_thread_changed`], which the package
/// registers with `os.register_at_fork`): each call compares it with its
/// own thread's ident, a load and a comparison, no Python code.
static MAIN_THREAD: AtomicU64 = AtomicU64::new(u64::MAX);

/// Read Python's main thread into [`MAIN_THREAD`].
fn read_main_thread(py: Python<'_>) -> PyResult<()> {
    let main = py.import("threading")?.call_method0("main_thread")?;
    let ident: u64 = main.getattr("ident")?.extract()?;
    MAIN_THREAD.store(ident, Ordering::Relaxed);
    Ok(())
}

/// Read Python's main thread again: called in a child after `fork()`, where
/// the thread that forked is the main thread.
#[pyfunction]
fn main_thread_changed(py: Python<'_>) -> PyResult<()> {
    read_main_thread(py)
}

/// Whether the calling thread is Python's main thread: the only one that
/// runs signal handlers, so the only one worth a poll; and a poll from any
/// other thread could take the GIL while the main thread finalizes the
/// interpreter (a daemon thread's call at exit), which CPython forbids.
fn on_main_thread() -> bool {
    // SAFETY: a plain C call with no preconditions (the thread's identity,
    // as `threading.get_ident()` gives it).
    let me = unsafe { pyo3::ffi::PyThread_get_thread_ident() } as u64;
    me == MAIN_THREAD.load(Ordering::Relaxed)
}

/// Register [`main_thread_changed`] and read the main thread now.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(main_thread_changed, m)?)?;
    read_main_thread(m.py())
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
    if work < WATCHED_FROM || !on_main_thread() {
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
