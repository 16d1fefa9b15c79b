//! Ray casts and swept pairs of `broadphase._core.Tree`
//! (`broadphase-core`'s `tree::casts` and `tree::sweeps`), answered in
//! handles.
//!
//! The Python layer (`_tree_casts.py`) validates and converts every
//! argument as `_casts.py` does for the static casts; what is checked here
//! is what would index out of bounds (lengths).  The rays are read from
//! copies (`crate::owned`); the work runs with the GIL released
//! (`crate::watch`): a cast only reads the tree, a swept search keeps the
//! objects' places for the next one, which a stop leaves as they were.

use broadphase_core::par::Exec;
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::casts::{hits_object, OwnedRays, U64s};
use crate::results::{pairs_array, too_many, too_many_hits};
use crate::tree::PyTree;
use crate::watch::{watched, Watch};

/// The first hit, every hit or any hit of rays against the tree's live
/// objects, in handles: `(index, t)`, `(pairs, t)` or a bool array.
#[pyfunction]
#[pyo3(signature = (tree, origins, directions, max_t, mode, *, ray_categories=None,
                    ray_masks=None, ignore=None, workers=None))]
#[allow(clippy::too_many_arguments)]
pub fn tree_cast_rays(
    py: Python<'_>,
    tree: &Bound<'_, PyTree>,
    origins: PyReadonlyArray2<'_, f64>,
    directions: PyReadonlyArray2<'_, f64>,
    max_t: PyReadonlyArray1<'_, f64>,
    mode: &str,
    ray_categories: U64s<'_>,
    ray_masks: U64s<'_>,
    ignore: Option<PyReadonlyArray1<'_, i64>>,
    workers: Option<usize>,
) -> PyResult<Py<PyAny>> {
    let rays = OwnedRays::read(
        &origins,
        &directions,
        &max_t,
        mode,
        &ray_categories,
        &ray_masks,
        &ignore,
    )?;
    let m = rays.len();
    let tree = tree.get();
    let mut guard = tree.lock()?;
    let ex = Exec::new(workers.or(guard.workers));
    // a cast syncs the tree's lists (when it walks them), as a query does;
    // a stop leaves them valid (the next reader goes on): nothing to report
    let inner = &mut guard.inner;
    let work = m.saturating_add(inner.len());
    let hits = watched(py, work, &ex, Watch::Stateless, |ex| {
        inner.cast_rays(&rays.rays(), rays.mode, ex)
    })?;
    drop(guard);
    hits_object(py, hits.map_err(too_many_hits)?)
}

/// The swept pairs since the last call, in handles: `(pairs, t)`.
#[pyfunction]
pub fn tree_swept_pairs(py: Python<'_>, tree: &Bound<'_, PyTree>) -> PyResult<Py<PyAny>> {
    let tree = tree.get();
    let mut guard = tree.lock()?;
    let st = &mut *guard;
    let ex = Exec::new(st.workers);
    let inner = &mut st.inner;
    let work = inner.len();
    let found = watched(py, work, &ex, Watch::Committing, |ex| inner.swept_pairs(ex))?;
    let (rows, t) = found.map_err(too_many)?;
    let pairs = pairs_array(py, rows)?;
    let t = numpy::ndarray::Array1::from_vec(t);
    let t = numpy::IntoPyArray::into_pyarray(t, py).into_any().unbind();
    Ok(PyTuple::new(py, [pairs, t])?.into_any().unbind())
}

/// Register the functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tree_cast_rays, m)?)?;
    m.add_function(wrap_pyfunction!(tree_swept_pairs, m)?)?;
    Ok(())
}
