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

use broadphase_core::dim::{BallRow, Row};
use broadphase_core::pairs::TooMany;
use broadphase_core::par::Exec;
use broadphase_core::rays::{Hits, Mode, Rays};
use broadphase_core::tree::{Tree, TreeRow};
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::casts::{hits_object, OwnedRays, U64s};
use crate::octree::PyTree3;
use crate::results::{pairs_array, too_many, too_many_hits};
use crate::tree::PyTree;
use crate::tree_shared::Shared;
use crate::watch::{watched, Watch};

/// The first hit, every hit or any hit of rays against the tree's live
/// objects (a `Tree` or a `Tree3`), in handles: `(index, t)`, `(pairs, t)`
/// or a bool array.
#[pyfunction]
#[pyo3(signature = (tree, origins, directions, max_t, mode, *, ray_categories=None,
                    ray_masks=None, ignore=None, workers=None))]
#[allow(clippy::too_many_arguments)]
pub fn tree_cast_rays(
    py: Python<'_>,
    tree: &Bound<'_, PyAny>,
    origins: PyReadonlyArray2<'_, f64>,
    directions: PyReadonlyArray2<'_, f64>,
    max_t: PyReadonlyArray1<'_, f64>,
    mode: &str,
    ray_categories: U64s<'_>,
    ray_masks: U64s<'_>,
    ignore: Option<PyReadonlyArray1<'_, i64>>,
    workers: Option<usize>,
) -> PyResult<Py<PyAny>> {
    if let Ok(t) = tree.cast::<PyTree3>() {
        let rays = OwnedRays::<3>::read(
            &origins,
            &directions,
            &max_t,
            mode,
            &ray_categories,
            &ray_masks,
            &ignore,
        )?;
        return cast_on(py, t.get().shared(), &rays, workers, |t, r, m, ex| {
            t.cast_rays(r, m, ex)
        });
    }
    let tree = tree.cast::<PyTree>()?;
    let rays = OwnedRays::<2>::read(
        &origins,
        &directions,
        &max_t,
        mode,
        &ray_categories,
        &ray_masks,
        &ignore,
    )?;
    cast_on(py, tree.get().shared(), &rays, workers, |t, r, m, ex| {
        t.cast_rays(r, m, ex)
    })
}

/// A cast of `rays` at the tree of `shared` by `cast` (the dimension's
/// own: the 2D tree may walk its cells), the GIL released.
fn cast_on<const N: usize, const D: usize>(
    py: Python<'_>,
    shared: &Shared<N>,
    rays: &OwnedRays<D>,
    workers: Option<usize>,
    cast: impl Fn(&mut Tree<N>, &Rays<D>, Mode, &Exec) -> Result<Hits, TooMany> + Send + Sync,
) -> PyResult<Py<PyAny>>
where
    [f64; N]: TreeRow<N>,
{
    let m = rays.len();
    let mut guard = shared.lock()?;
    let ex = Exec::new(workers.or(guard.workers));
    // a cast syncs the tree's lists (when it walks them), as a query does;
    // a stop leaves them valid (the next reader goes on): nothing to report
    let inner = &mut guard.inner;
    let work = m.saturating_add(inner.len());
    let hits = watched(py, work, &ex, Watch::Stateless, |ex| {
        cast(inner, &rays.rays(), rays.mode, ex)
    })?;
    drop(guard);
    hits_object(py, hits.map_err(too_many_hits)?)
}

/// The swept pairs since the last call of the tree (a `Tree` or a
/// `Tree3`), in handles: `(pairs, t)`.
#[pyfunction]
pub fn tree_swept_pairs(py: Python<'_>, tree: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    if let Ok(t) = tree.cast::<PyTree3>() {
        return swept_on(py, t.get().shared());
    }
    swept_on(py, tree.cast::<PyTree>()?.get().shared())
}

fn swept_on<const N: usize, const C: usize, const D: usize>(
    py: Python<'_>,
    shared: &Shared<N>,
) -> PyResult<Py<PyAny>>
where
    [f64; N]: TreeRow<N> + Row<Ball = [f64; C], Axes = [f64; D]>,
    [f64; C]: BallRow<D>,
{
    let mut guard = shared.lock()?;
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
