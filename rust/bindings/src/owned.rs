//! Copies of the caller's arrays, made before the core reads them.
//!
//! Once the GIL is released, another thread may write an input array (NumPy
//! itself writes without the GIL).  The core reads its inputs several times
//! (a scan, a count, a placement), and what it does with the later readings
//! rests on the first (rows checked finite and ordered, handles checked live,
//! each once), so it reads only memory it owns: these copies.  A writer then
//! gives the old answer or the new one, never an out-of-bounds index or a
//! size computed from a torn reading.  A copy costs one pass over the input,
//! small next to the search that reads it several times.
//!
//! Every allocation here is fallible and named: a copy that does not fit
//! becomes a `MemoryError` naming the argument, as does a search whose
//! working memory would not fit ([`room_for`]).

use broadphase_core::memory::available_memory;
use broadphase_core::par::Exec;
use broadphase_core::scratch::{self, Pooled};
use broadphase_core::search::BYTES_PER_OBJECT;
use pyo3::exceptions::PyMemoryError;
use pyo3::PyErr;

/// Below this many objects a search's working memory is not worth checking
/// (reading the limits costs more than the search).
const CHECKED_FROM: usize = 1 << 16;

/// `n` bytes as people read them.
fn gib(bytes: u64) -> String {
    format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
}

fn no_room(name: &str, what: &str, bytes: u64) -> PyErr {
    PyMemoryError::new_err(format!(
        "{name}: {what} needs {} of memory, more than the {} available \
         (system, cgroup and address-space limits)",
        gib(bytes),
        gib(available_memory())
    ))
}

/// A `MemoryError` naming `name` unless a search over `n` objects fits in
/// the available memory ([`BYTES_PER_OBJECT`] each).
pub fn room_for(n: usize, name: &str) -> Result<(), PyErr> {
    if n < CHECKED_FROM {
        return Ok(());
    }
    let need = (n as u64).saturating_mul(BYTES_PER_OBJECT);
    room_for_bytes(need, name, &format!("a search over {n} objects"))
}

/// A `MemoryError` naming `name` unless `bytes` for `what` fit in the
/// available memory.
pub fn room_for_bytes(bytes: u64, name: &str, what: &str) -> Result<(), PyErr> {
    if bytes > available_memory() {
        return Err(no_room(name, what, bytes));
    }
    Ok(())
}

/// Elements from which a copy is shared by the executor's threads (each
/// copies a chunk: the page faults of fresh memory and the reads of a big
/// input are shared too).
const PARALLEL_FROM: usize = 1 << 15;

/// The error of a copy of `src` that does not fit.
fn no_copy<T>(name: &str, src: &[T]) -> PyErr {
    no_room(
        name,
        "a copy of the input",
        std::mem::size_of_val(src) as u64,
    )
}

/// `src` appended to `v`, whose capacity already holds it.
fn fill<T: Copy + Send + Sync>(v: &mut Vec<T>, src: &[T], ex: &Exec) {
    if src.len() < PARALLEL_FROM || !ex.is_parallel() {
        v.extend_from_slice(src);
    } else {
        ex.extend_with(v, src.len(), 4096, |i| src[i]);
    }
}

/// A copy of `src` into memory of our own, or a `MemoryError` naming `name`.
pub fn copy<T: Copy + Send + Sync>(src: &[T], name: &str, ex: &Exec) -> Result<Vec<T>, PyErr> {
    let mut v = Vec::new();
    v.try_reserve_exact(src.len())
        .map_err(|_| no_copy(name, src))?;
    fill(&mut v, src, ex);
    Ok(v)
}

/// [`copy`], a big one into a buffer from the scratch pool (give it back
/// with [`scratch::give`]): a loop calling with about the same big input
/// every frame copies into pages it already has, rather than faulting in
/// fresh ones.  A small one is a fresh vector (a pooled one would be one
/// fewer for the search that follows).
pub fn copy_pooled<T: Copy + Send + Sync + Pooled>(
    src: &[T],
    name: &str,
    ex: &Exec,
) -> Result<Vec<T>, PyErr> {
    if src.len() < PARALLEL_FROM {
        return copy(src, name, ex);
    }
    let mut v = scratch::try_take(src.len()).ok_or_else(|| no_copy(name, src))?;
    fill(&mut v, src, ex);
    Ok(v)
}

/// [`copy`] of an optional slice.
pub fn copy_opt<T: Copy + Send + Sync>(
    src: Option<&[T]>,
    name: &str,
    ex: &Exec,
) -> Result<Option<Vec<T>>, PyErr> {
    src.map(|s| copy(s, name, ex)).transpose()
}
