//! `broadphase._core`'s Morton functions (`broadphase.morton` words them):
//! cell numbers of the seeds' linear quadtree, and of its octree (the
//! functions ending in `3`; `morton_locate` reads the dimension from the
//! boxes).  Each is written once over the dimension (`broadphase_core::dim::Row`)
//! and named once per dimension.
//!
//! The Python layer checks every argument first, naming it; the checks here
//! only keep the core's preconditions (equal lengths, cells below `2^31`
//! (`2^21` in 3D), codes below `2^(D depth)`, a depth the codes hold), so
//! that no call of this private module reads garbage or overflows whatever
//! it is given.

use crate::{rows, slice, Boxes};
use broadphase_core::dim::Row;
use broadphase_core::{morton, world};
use numpy::ndarray::Array1;
use numpy::{IntoPyArray, PyReadonlyArray1, PyUntypedArrayMethods};
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

/// A `ValueError` unless `depth` is at most the deepest grid of `R`'s
/// dimension (`morton::max_depth_in`).
fn depth_held<R: Row>(depth: u32) -> PyResult<()> {
    let most = morton::max_depth_in::<R>();
    if depth > most {
        return Err(PyValueError::new_err(format!(
            "depth: expected 0 <= depth <= {most}, found {depth}"
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

/// Bits of each cell coordinate `morton::code_of` takes in `R`'s
/// dimension: 31 in 2D (62-bit codes), 21 in 3D (63-bit codes).
fn coordinate_bits<R: Row>() -> u32 {
    if R::D == 2 {
        31
    } else {
        21
    }
}

/// Morton numbers of the cells whose coordinates are `axes` (one array per
/// axis: `ix, iy` or `ix, iy, iz`), in `R`'s dimension.
fn encode_in<R: Row>(py: Python<'_>, axes: &[(&[i64], &str)]) -> PyResult<Py<PyAny>> {
    debug_assert_eq!(axes.len(), R::D);
    let n = axes[0].0.len();
    if let Some(&(a, _)) = axes.iter().find(|(a, _)| a.len() != n) {
        same_length(n, a.len(), &names(axes))?;
    }
    for &(a, name) in axes {
        within(a, 1 << coordinate_bits::<R>(), name)?;
    }
    let out: Vec<i64> = (0..n)
        .map(|k| {
            let mut c = R::Corner::default();
            for (v, (a, _)) in c.as_mut().iter_mut().zip(axes) {
                *v = a[k] as u32;
            }
            morton::code_of::<R>(&c) as i64
        })
        .collect();
    Ok(Array1::from_vec(out).into_pyarray(py).into_any().unbind())
}

/// `"ix, iy"` (or `"ix, iy, iz"`): the arguments named together.
fn names(axes: &[(&[i64], &str)]) -> String {
    axes.iter().map(|&(_, n)| n).collect::<Vec<_>>().join(", ")
}

/// The cells of Morton numbers (below `2^(2 * 31)` in 2D, `2^63` in 3D):
/// one int64 array per axis, as a tuple.
fn decode_in<R: Row>(py: Python<'_>, code: PyReadonlyArray1<'_, i64>) -> PyResult<Py<PyAny>> {
    let c = slice(&code, "code")?;
    within(c, 1 << (R::D as u32 * coordinate_bits::<R>()), "code")?;
    let mut axes = vec![Vec::with_capacity(c.len()); R::D];
    for &v in c {
        let cell = morton::corner_of::<R>(v as u64);
        for (out, &x) in axes.iter_mut().zip(cell.as_ref()) {
            out.push(x as i64);
        }
    }
    let arrays = axes
        .into_iter()
        .map(|a| Array1::from_vec(a).into_pyarray(py));
    Ok(PyTuple::new(py, arrays)?.into_any().unbind())
}

/// `(levels, indices)` of boxes whose corners lie in cells `code0`, `code1`
/// of a grid `depth` deep, in `R`'s dimension.
fn cell_of_in<R: Row>(
    py: Python<'_>,
    code0: PyReadonlyArray1<'_, i64>,
    code1: PyReadonlyArray1<'_, i64>,
    depth: u32,
) -> PyResult<Py<PyAny>> {
    let (a, b) = (slice(&code0, "code0")?, slice(&code1, "code1")?);
    depth_held::<R>(depth)?;
    same_length(a.len(), b.len(), "code0, code1")?;
    let codes = 1 << (R::D as u32 * depth);
    within(a, codes, "code0")?;
    within(b, codes, "code1")?;
    let cells = a
        .iter()
        .zip(b)
        .map(|(&p, &q)| morton::cell_in::<R>(p as u64, q as u64, depth));
    levels_and_indices(py, cells)
}

/// Positions of cells `(level, index)` in the linear array of all levels
/// of `R`'s dimension (`morton::linear_index_in`).
fn linear_index_of<R: Row>(
    py: Python<'_>,
    level: PyReadonlyArray1<'_, i64>,
    index: PyReadonlyArray1<'_, i64>,
) -> PyResult<Py<PyAny>> {
    let (lv, ix) = (slice(&level, "level")?, slice(&index, "index")?);
    same_length(lv.len(), ix.len(), "level, index")?;
    let (most, d) = (morton::max_depth_in::<R>(), R::D as u32);
    let out = lv
        .iter()
        .zip(ix)
        .map(|(&l, &i)| match (u32::try_from(l), u64::try_from(i)) {
            (Ok(l), Ok(i)) if l <= most && i < 1 << (d * l) => {
                Ok(morton::linear_index_in::<R>(l, i) as i64)
            }
            _ => Err(PyValueError::new_err(format!(
                "level, index: expected 0 <= level <= {most} and 0 <= index < {}**level, \
                 found level {l}, index {i}",
                1 << d
            ))),
        })
        .collect::<PyResult<Vec<i64>>>()?;
    Ok(Array1::from_vec(out).into_pyarray(py).into_any().unbind())
}

/// Morton numbers of cells `(ix, iy)` (each below `2^31`).
#[pyfunction]
fn morton_encode(
    py: Python<'_>,
    ix: PyReadonlyArray1<'_, i64>,
    iy: PyReadonlyArray1<'_, i64>,
) -> PyResult<Py<PyAny>> {
    let axes = [(slice(&ix, "ix")?, "ix"), (slice(&iy, "iy")?, "iy")];
    encode_in::<[f64; 4]>(py, &axes)
}

/// Morton numbers of 3D cells `(ix, iy, iz)` (each below `2^21`).
#[pyfunction]
fn morton_encode3(
    py: Python<'_>,
    ix: PyReadonlyArray1<'_, i64>,
    iy: PyReadonlyArray1<'_, i64>,
    iz: PyReadonlyArray1<'_, i64>,
) -> PyResult<Py<PyAny>> {
    let axes = [
        (slice(&ix, "ix")?, "ix"),
        (slice(&iy, "iy")?, "iy"),
        (slice(&iz, "iz")?, "iz"),
    ];
    encode_in::<[f64; 6]>(py, &axes)
}

/// Cells `(ix, iy)` of Morton numbers.
#[pyfunction]
fn morton_decode(py: Python<'_>, code: PyReadonlyArray1<'_, i64>) -> PyResult<Py<PyAny>> {
    decode_in::<[f64; 4]>(py, code)
}

/// Cells `(ix, iy, iz)` of 3D Morton numbers.
#[pyfunction]
fn morton_decode3(py: Python<'_>, code: PyReadonlyArray1<'_, i64>) -> PyResult<Py<PyAny>> {
    decode_in::<[f64; 6]>(py, code)
}

/// `(levels, indices)` of boxes whose corners lie in cells `code0`, `code1`.
#[pyfunction]
fn morton_cell_of(
    py: Python<'_>,
    code0: PyReadonlyArray1<'_, i64>,
    code1: PyReadonlyArray1<'_, i64>,
    depth: u32,
) -> PyResult<Py<PyAny>> {
    cell_of_in::<[f64; 4]>(py, code0, code1, depth)
}

/// `(levels, indices)` of 3D boxes whose corners lie in cells `code0`,
/// `code1` (3-bit groups).
#[pyfunction]
fn morton_cell_of3(
    py: Python<'_>,
    code0: PyReadonlyArray1<'_, i64>,
    code1: PyReadonlyArray1<'_, i64>,
    depth: u32,
) -> PyResult<Py<PyAny>> {
    cell_of_in::<[f64; 6]>(py, code0, code1, depth)
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
    linear_index_of::<[f64; 4]>(py, level, index)
}

/// [`morton_linear_index`] of the octree (`morton::linear_index_in` in 3D):
/// a level in `[0, MORTON_MAX_DEPTH_3D]`, an index in `[0, 8^level)`.
#[pyfunction]
fn morton_linear_index3(
    py: Python<'_>,
    level: PyReadonlyArray1<'_, i64>,
    index: PyReadonlyArray1<'_, i64>,
) -> PyResult<Py<PyAny>> {
    linear_index_of::<[f64; 6]>(py, level, index)
}

/// The seeds' cell of each (valid) box: `(levels, indices)`; 2D boxes
/// `(n, 4)` with bounds of 4 values, or 3D boxes `(n, 6)` with bounds of 6.
#[pyfunction]
fn morton_locate(
    py: Python<'_>,
    boxes: Boxes<'_>,
    bounds: Vec<f64>,
    depth: u32,
) -> PyResult<Py<PyAny>> {
    if boxes.shape()[1] == 6 {
        locate_in::<6>(py, &boxes, &bounds, depth)
    } else {
        locate_in::<4>(py, &boxes, &bounds, depth)
    }
}

/// [`morton_locate`] of boxes of `N` columns.
fn locate_in<const N: usize>(
    py: Python<'_>,
    boxes: &Boxes<'_>,
    bounds: &[f64],
    depth: u32,
) -> PyResult<Py<PyAny>>
where
    [f64; N]: Row,
{
    let b = rows::<N>(boxes, "boxes")?;
    let bounds: [f64; N] = bounds.try_into().map_err(|_| {
        PyValueError::new_err(format!(
            "bounds: expected {N} values for boxes of {N} columns, found {}",
            bounds.len()
        ))
    })?;
    depth_held::<[f64; N]>(depth)?;
    let g = world::Grid::over(bounds, depth);
    let cells = b.iter().map(|bx| {
        // the integer range of the box: its low corner's cells, then its high one's
        let q = g.cells_of(bx);
        let code = |from: usize| {
            let mut c = <[f64; N] as Row>::Corner::default();
            for (k, v) in c.as_mut().iter_mut().enumerate() {
                *v = q[from + k];
            }
            morton::code_of::<[f64; N]>(&c)
        };
        morton::cell_in::<[f64; N]>(code(0), code(N / 2), depth)
    });
    levels_and_indices(py, cells)
}

/// Add this module's functions and constants to `_core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(morton_encode, m)?)?;
    m.add_function(wrap_pyfunction!(morton_decode, m)?)?;
    m.add_function(wrap_pyfunction!(morton_cell_of, m)?)?;
    m.add_function(wrap_pyfunction!(morton_locate, m)?)?;
    m.add_function(wrap_pyfunction!(morton_linear_index, m)?)?;
    m.add_function(wrap_pyfunction!(morton_encode3, m)?)?;
    m.add_function(wrap_pyfunction!(morton_decode3, m)?)?;
    m.add_function(wrap_pyfunction!(morton_cell_of3, m)?)?;
    m.add_function(wrap_pyfunction!(morton_linear_index3, m)?)?;
    m.add("MORTON_MAX_DEPTH", morton::MAX_DEPTH)?;
    m.add("MORTON_MAX_DEPTH_3D", morton::MAX_DEPTH_3D)?;
    Ok(())
}
