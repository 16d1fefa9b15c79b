//! The Dask path's tile kernels (`broadphase-core`'s `tiles` module).
//!
//! `broadphase._dask_tasks` calls these on the workers with arrays it built
//! itself (a tiling from `broadphase.dask._tiles`, validated boxes, pairs
//! from `find_pairs`); what is still checked here is what would otherwise
//! index out of bounds, so a wrong call raises `ValueError`, never a panic.
//! Checked and read on copies (`crate::owned`), as every input of the core.
//! Boxes are 2D `(n, 4)` or 3D `(n, 6)` rows; the tiles cut the x-y plane
//! in both (a 3D tile is a column).

use broadphase_core::dim::Row;
use broadphase_core::tiles::{self, TilePairs, Tiling};
use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;

use crate::owned;
use broadphase_core::memory;
use broadphase_core::par::Exec;

/// The rows of a C-contiguous `(k, 2)` int64 array of pairs.
pub(crate) fn pair_rows<'a>(a: &'a PyReadonlyArray2<'_, i64>) -> PyResult<&'a [[i64; 2]]> {
    if a.shape()[1] != 2 {
        return Err(PyValueError::new_err(format!(
            "pairs: expected 2 columns, found {}",
            a.shape()[1]
        )));
    }
    let flat = crate::c_order(a, "pairs: expected a C-contiguous int64 array")?;
    Ok(flat.as_chunks::<2>().0)
}

fn flat<'a, T: numpy::Element>(a: &'a PyReadonlyArray1<'_, T>, name: &str) -> PyResult<&'a [T]> {
    crate::slice(a, name)
}

/// Copies of a tiling's arrays `xs`, `ybounds` (S, C + 1) and `rank`.
struct TilingParts {
    xs: Vec<f64>,
    ybounds: Vec<f64>,
    cells_plus_one: usize,
    rank: Vec<i64>,
}

impl TilingParts {
    /// The arrays copied (`crate::owned`: checked, then read, with the GIL
    /// released, only in memory of our own).
    fn of(
        xs: &PyReadonlyArray1<'_, f64>,
        ybounds: &PyReadonlyArray2<'_, f64>,
        rank: &PyReadonlyArray1<'_, i64>,
    ) -> PyResult<TilingParts> {
        let yb = crate::c_order(ybounds, "ybounds: expected a C-contiguous float64 array")?;
        Ok(TilingParts {
            xs: owned::copy(flat(xs, "xs")?, "xs", &Exec::serial())?,
            ybounds: owned::copy(yb, "ybounds", &Exec::serial())?,
            cells_plus_one: ybounds.shape()[1],
            rank: owned::copy(flat(rank, "rank")?, "rank", &Exec::serial())?,
        })
    }

    /// The tiling, or a ValueError.
    fn tiling(&self) -> PyResult<Tiling<'_>> {
        Tiling::new(&self.xs, &self.ybounds, self.cells_plus_one, &self.rank)
            .map_err(PyValueError::new_err)
    }
}

fn int_array(py: Python<'_>, v: Vec<i64>) -> Py<PyAny> {
    v.into_pyarray(py).into_any().unbind()
}

fn pair_array(py: Python<'_>, flat: Vec<i64>) -> PyResult<Py<PyAny>> {
    crate::pairs_array(py, flat.into_iter().map(|v| v as isize).collect())
}

/// A `ValueError` unless `boxes` has 4 columns (2D) or 6 (3D): which.
fn three_d(boxes: &PyReadonlyArray2<'_, f64>) -> PyResult<bool> {
    match boxes.shape()[1] {
        4 => Ok(false),
        6 => Ok(true),
        w => Err(PyValueError::new_err(format!(
            "boxes: expected 4 columns (2D) or 6 (3D), found {w}"
        ))),
    }
}

/// Rows of valid `boxes` (2D or 3D) grouped by the tiles they meet:
/// `(order, starts)`.
#[pyfunction]
fn split_by_tile(
    py: Python<'_>,
    boxes: PyReadonlyArray2<'_, f64>,
    xs: PyReadonlyArray1<'_, f64>,
    ybounds: PyReadonlyArray2<'_, f64>,
    rank: PyReadonlyArray1<'_, i64>,
) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
    let parts = TilingParts::of(&xs, &ybounds, &rank)?;
    if three_d(&boxes)? {
        split_rows::<6>(py, &boxes, &parts)
    } else {
        split_rows::<4>(py, &boxes, &parts)
    }
}

/// [`split_by_tile`] of boxes of `N` columns.
fn split_rows<const N: usize>(
    py: Python<'_>,
    boxes: &PyReadonlyArray2<'_, f64>,
    parts: &TilingParts,
) -> PyResult<(Py<PyAny>, Py<PyAny>)>
where
    [f64; N]: Row,
{
    let b = owned::copy(crate::rows::<N>(boxes, "boxes")?, "boxes", &Exec::serial())?;
    let t = parts.tiling()?;
    let (order, starts) = py.detach(|| tiles::split_by_tile(&b, &t));
    Ok((int_array(py, order), int_array(py, starts)))
}

/// What [`owned_pairs`] reads besides the tiling and the boxes.
struct Owned<'a, 'py> {
    pairs: &'a PyReadonlyArray2<'py, i64>,
    rows: &'a PyReadonlyArray1<'py, i64>,
    tile: usize,
    edges: Vec<i64>,
}

/// The pairs tile `tile` owns, as `(k, 2)` global rows, and their bucket
/// cuts; boxes 2D or 3D.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn owned_pairs(
    py: Python<'_>,
    pairs: PyReadonlyArray2<'_, i64>,
    boxes: PyReadonlyArray2<'_, f64>,
    rows: PyReadonlyArray1<'_, i64>,
    xs: PyReadonlyArray1<'_, f64>,
    ybounds: PyReadonlyArray2<'_, f64>,
    rank: PyReadonlyArray1<'_, i64>,
    tile: usize,
    edges: PyReadonlyArray1<'_, i64>,
) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
    let parts = TilingParts::of(&xs, &ybounds, &rank)?;
    let edges = owned::copy(flat(&edges, "edges")?, "edges", &Exec::serial())?;
    if !edges.windows(2).all(|w| w[0] <= w[1]) {
        return Err(PyValueError::new_err("edges: expected sorted bucket edges"));
    }
    let args = Owned {
        pairs: &pairs,
        rows: &rows,
        tile,
        edges,
    };
    if three_d(&boxes)? {
        owned_rows::<6>(py, &boxes, &parts, args)
    } else {
        owned_rows::<4>(py, &boxes, &parts, args)
    }
}

/// [`owned_pairs`] of boxes of `N` columns.
fn owned_rows<const N: usize>(
    py: Python<'_>,
    boxes: &PyReadonlyArray2<'_, f64>,
    parts: &TilingParts,
    args: Owned,
) -> PyResult<(Py<PyAny>, Py<PyAny>)>
where
    [f64; N]: Row,
{
    let t = parts.tiling()?;
    let (pairs, boxes, rows) = (
        owned::copy(pair_rows(args.pairs)?, "pairs", &Exec::serial())?,
        owned::copy(crate::rows::<N>(boxes, "boxes")?, "boxes", &Exec::serial())?,
        owned::copy(flat(args.rows, "rows")?, "rows", &Exec::serial())?,
    );
    let p = TilePairs::new(&pairs, &boxes, &rows).map_err(PyValueError::new_err)?;
    let (out, cut) = py.detach(|| tiles::owned_pairs(&p, &t, args.tile, &args.edges));
    Ok((pair_array(py, out)?, int_array(py, cut)))
}

/// `pairs` (first value in `[lo, hi)`) in canonical order, a new `(k, 2)` intp array.
#[pyfunction]
fn sort_pairs(
    py: Python<'_>,
    pairs: PyReadonlyArray2<'_, i64>,
    lo: i64,
    hi: i64,
) -> PyResult<Py<PyAny>> {
    // one counter per first value: a range that overflows or does not fit
    // in memory is an error, never the allocator's abort
    let width = hi.checked_sub(lo).filter(|&w| w >= 0).ok_or_else(|| {
        PyValueError::new_err(format!(
            "lo, hi: expected lo <= hi at most 2**63 - 1 apart, found {lo}, {hi}"
        ))
    })?;
    if !memory::fits((width as u64).saturating_add(1).saturating_mul(8)) {
        return Err(PyMemoryError::new_err(format!(
            "lo, hi: {width} counters do not fit in the memory available"
        )));
    }
    let p = owned::copy(pair_rows(&pairs)?, "pairs", &Exec::serial())?;
    if !tiles::firsts_within(&p, lo, hi) {
        return Err(PyValueError::new_err(format!(
            "pairs: expected first values in [{lo}, {hi})"
        )));
    }
    let out = py.detach(|| tiles::sort_pairs(&p, lo, hi));
    pair_array(py, out)
}

/// Adds the tile kernels to `broadphase._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(split_by_tile, m)?)?;
    m.add_function(wrap_pyfunction!(owned_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(sort_pairs, m)?)?;
    Ok(())
}
