//! `broadphase._core`'s Morton functions (`broadphase.morton` words them):
//! cell numbers of the seeds' linear quadtree.
//!
//! The Python layer checks every argument first, naming it; the checks here
//! only keep the core's preconditions (equal lengths, cells below `2^31`,
//! codes below `4^depth`, a depth the keys hold), so that no call of this
//! private module reads garbage or overflows whatever it is given.

use crate::{rows, slice, Boxes};
use broadphase_core::{morton, world};
use numpy::ndarray::Array1;
use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// A `ValueError` unless `a` and `b` have one length.
fn same_length(a: usize, b: usize, names: &str) -> PyResult<()> {
    if a != b {
        return Err(PyValueError::new_err(format!(
            "{names}: expected one length, found {a} and {b}"
        )));
    }
    Ok(())
}

/// A `ValueError` unless every value lies in `[0, below)`.
fn within(values: &[i64], below: u64, name: &str) -> PyResult<()> {
    match values.iter().position(|&v| v < 0 || v as u64 >= below) {
        None => Ok(()),
        Some(k) => Err(PyValueError::new_err(format!(
            "{name}[{k}]: expected an integer in [0, {below}), found {}",
            values[k]
        ))),
    }
}

/// A `ValueError` unless `depth <= morton::MAX_DEPTH`.
fn depth_held(depth: u32) -> PyResult<()> {
    if depth > morton::MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "depth: expected 0 <= depth <= {}, found {depth}",
            morton::MAX_DEPTH
        )));
    }
    Ok(())
}

/// `(levels, indices)` as two int64 arrays.
fn levels_and_indices(
    py: Python<'_>,
    cells: impl Iterator<Item = (u32, u64)>,
) -> PyResult<Py<PyAny>> {
    let (lv, idx): (Vec<i64>, Vec<i64>) = cells.map(|(l, i)| (l as i64, i as i64)).unzip();
    two_arrays(py, lv, idx)
}

/// The tuple `(a, b)` of two int64 arrays.
fn two_arrays(py: Python<'_>, a: Vec<i64>, b: Vec<i64>) -> PyResult<Py<PyAny>> {
    let (a, b) = (
        Array1::from_vec(a).into_pyarray(py),
        Array1::from_vec(b).into_pyarray(py),
    );
    Ok(PyTuple::new(py, [a, b])?.into_any().unbind())
}

/// Morton numbers of cells `(ix, iy)` (each below `2^31`).
#[pyfunction]
fn morton_encode(
    py: Python<'_>,
    ix: PyReadonlyArray1<'_, i64>,
    iy: PyReadonlyArray1<'_, i64>,
) -> PyResult<Py<PyAny>> {
    let (x, y) = (slice(&ix, "ix")?, slice(&iy, "iy")?);
    same_length(x.len(), y.len(), "ix, iy")?;
    within(x, 1 << 31, "ix")?;
    within(y, 1 << 31, "iy")?;
    let out: Vec<i64> = x
        .iter()
        .zip(y)
        .map(|(&a, &b)| morton::encode(a as u64, b as u64) as i64)
        .collect();
    Ok(Array1::from_vec(out).into_pyarray(py).into_any().unbind())
}

/// Cells `(ix, iy)` of Morton numbers.
#[pyfunction]
fn morton_decode(py: Python<'_>, code: PyReadonlyArray1<'_, i64>) -> PyResult<Py<PyAny>> {
    let c = slice(&code, "code")?;
    within(c, 1 << 62, "code")?;
    let (x, y): (Vec<i64>, Vec<i64>) = c
        .iter()
        .map(|&v| {
            let (a, b) = morton::decode(v as u64);
            (a as i64, b as i64)
        })
        .unzip();
    two_arrays(py, x, y)
}

/// `(levels, indices)` of boxes whose corners lie in cells `code0`, `code1`.
#[pyfunction]
fn morton_cell_of(
    py: Python<'_>,
    code0: PyReadonlyArray1<'_, i64>,
    code1: PyReadonlyArray1<'_, i64>,
    depth: u32,
) -> PyResult<Py<PyAny>> {
    let (a, b) = (slice(&code0, "code0")?, slice(&code1, "code1")?);
    depth_held(depth)?;
    same_length(a.len(), b.len(), "code0, code1")?;
    within(a, 1 << (2 * depth), "code0")?;
    within(b, 1 << (2 * depth), "code1")?;
    let cells = a
        .iter()
        .zip(b)
        .map(|(&p, &q)| morton::cell_of(p as u64, q as u64, depth));
    levels_and_indices(py, cells)
}

/// Positions of cells `(level, index)` in the linear array of all levels
/// (`morton::linear_index`): `ValueError` for lengths that differ, a level
/// outside `[0, MORTON_MAX_DEPTH]` or an index outside `[0, 4^level)`
/// (the Python layer checks them first, naming the argument).
#[pyfunction]
fn morton_linear_index(
    py: Python<'_>,
    level: PyReadonlyArray1<'_, i64>,
    index: PyReadonlyArray1<'_, i64>,
) -> PyResult<Py<PyAny>> {
    let (lv, ix) = (slice(&level, "level")?, slice(&index, "index")?);
    same_length(lv.len(), ix.len(), "level, index")?;
    let out = lv
        .iter()
        .zip(ix)
        .map(|(&l, &i)| match (u32::try_from(l), u64::try_from(i)) {
            (Ok(l), Ok(i)) if l <= morton::MAX_DEPTH && i < 1 << (2 * l) => {
                Ok(morton::linear_index(l, i) as i64)
            }
            _ => Err(PyValueError::new_err(format!(
                "level, index: expected 0 <= level <= {} and 0 <= index < 4**level, \
                 found level {l}, index {i}",
                morton::MAX_DEPTH
            ))),
        })
        .collect::<PyResult<Vec<i64>>>()?;
    Ok(Array1::from_vec(out).into_pyarray(py).into_any().unbind())
}

/// The seeds' cell of each (valid) box: `(levels, indices)`.
#[pyfunction]
fn morton_locate(
    py: Python<'_>,
    boxes: Boxes<'_>,
    bounds: [f64; 4],
    depth: u32,
) -> PyResult<Py<PyAny>> {
    let b = rows::<4>(&boxes, "boxes")?;
    depth_held(depth)?;
    let g = world::Grid::over(bounds, depth);
    let cells = b.iter().map(|bx| {
        let [ix0, iy0, ix1, iy1] = g.cells_of(bx);
        let c0 = morton::encode(ix0 as u64, iy0 as u64);
        morton::cell_of(c0, morton::encode(ix1 as u64, iy1 as u64), depth)
    });
    levels_and_indices(py, cells)
}

/// Add this module's functions and constant to `_core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(morton_encode, m)?)?;
    m.add_function(wrap_pyfunction!(morton_decode, m)?)?;
    m.add_function(wrap_pyfunction!(morton_cell_of, m)?)?;
    m.add_function(wrap_pyfunction!(morton_locate, m)?)?;
    m.add_function(wrap_pyfunction!(morton_linear_index, m)?)?;
    m.add("MORTON_MAX_DEPTH", morton::MAX_DEPTH)?;
    Ok(())
}
