//! Results across the boundary: pair arrays NumPy owns, the first bad row
//! an argument's scan found ([`BadRow`], named fields rather than a tuple),
//! and the error of a result too big for the memory.

use broadphase_core::check;
use broadphase_core::pairs::TooMany;
use numpy::ndarray::{Array1, Array2, ArrayView, Dimension, Ix1, Ix2};
use numpy::{Element, IntoPyArray, PyArray};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use std::cell::UnsafeCell;

/// The first bad row of an argument, as the core's scan found it in its
/// copy: the Python layer words the error with the argument's own name
/// (`_cast.box_problem`, `_cast.circle_problem`).
#[pyclass(frozen, get_all, module = "broadphase._core")]
pub struct BadRow {
    /// The row, counted from 0.
    pub row: usize,
    /// What is wrong with it: one of the `NOT_FINITE`, `X_REVERSED`,
    /// `Y_REVERSED`, `Z_REVERSED`, `NEGATIVE_RADIUS` codes.
    pub code: u8,
}

#[pymethods]
impl BadRow {
    fn __repr__(&self) -> String {
        format!("BadRow(row={}, code={})", self.row, self.code)
    }
}

impl From<check::BadRow> for BadRow {
    fn from(b: check::BadRow) -> Self {
        BadRow {
            row: b.row,
            code: b.problem as u8,
        }
    }
}

/// `b` as the Python object [`BadRow`].
pub fn bad_row(py: Python<'_>, b: check::BadRow) -> PyResult<Py<PyAny>> {
    Ok(Bound::new(py, BadRow::from(b))?.into_any().unbind())
}

/// `12,345,678`: a count as people read it.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, ch) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// The `MemoryError` of a result of `count` pairs too big for the memory.
pub fn too_many(TooMany(count): TooMany) -> PyErr {
    PyMemoryError::new_err(format!(
        "{} colliding pairs: the result alone would take {:.1} GiB, more than the memory \
         available; split the input or filter it (groups, categories, masks)",
        grouped(count),
        (count as f64) * 16.0 / (1u64 << 30) as f64
    ))
}

/// The `MemoryError` of a cast of every hit (`hits="all"`) finding
/// `count` rows `(ray, object)`, more than the memory holds.
pub fn too_many_hits(TooMany(count): TooMany) -> PyErr {
    PyMemoryError::new_err(format!(
        "{} ray hits (ray, object) found: the result alone would take {:.1} GiB, more than \
         the memory available; cast fewer rays at a time, or ask for the first hit only",
        grouped(count),
        (count as f64) * 24.0 / (1u64 << 30) as f64
    ))
}

/// The `MemoryError` of `count` region rows `(query, handle)`: more than
/// `max_rows` when that was the limit, else more than the memory holds.
pub fn too_many_rows(TooMany(count): TooMany, max_rows: Option<u64>) -> PyErr {
    let rows = grouped(count);
    PyMemoryError::new_err(match max_rows {
        Some(m) if count > m => format!(
            "{rows} region rows (query, handle) found, more than max_rows={}; query fewer \
             or smaller boxes at a time, or raise max_rows",
            grouped(m)
        ),
        _ => format!(
            "{rows} region rows (query, handle) found: the result alone would take {:.1} GiB, \
             more than the memory available; query fewer or smaller boxes at a time",
            (count as f64) * 16.0 / (1u64 << 30) as f64
        ),
    })
}

/// The memory of a big result array (pairs, or their distances and
/// vectors): it goes back to the core's scratch pool when NumPy frees the
/// array, so the next search of about that size writes into pages it
/// already has (`scratch::result`).
#[pyclass(frozen, module = "broadphase._core")]
pub struct PairMemory {
    /// Written through the array (NumPy may write a result), never from
    /// Rust while the object lives: the cell makes those writes legal, and
    /// the vector is never reallocated, so the array's pointer stays valid.
    held: UnsafeCell<Held>,
}

/// The vector under a result array.
enum Held {
    /// Flat pairs `[i0, j0, ...]`.
    Pairs(Vec<isize>),
    /// Values of the pairs (distances, vectors).
    Values(Vec<f64>),
}

// SAFETY: Rust never reads or writes the vector while the object lives
// (only NumPy does, through the array, under the GIL), and `Drop` has it alone.
unsafe impl Sync for PairMemory {}

impl Drop for PairMemory {
    fn drop(&mut self) {
        match std::mem::replace(self.held.get_mut(), Held::Values(Vec::new())) {
            Held::Pairs(v) => broadphase_core::scratch::give(v),
            Held::Values(v) => broadphase_core::scratch::give(v),
        }
    }
}

/// A `shape` array that owns `v` (moved into a [`PairMemory`], its base:
/// see the safety note) and that NumPy may write; `held` wraps the vector.
fn owning_array<T: Element, D: Dimension>(
    py: Python<'_>,
    mut v: Vec<T>,
    shape: D,
    held: fn(Vec<T>) -> Held,
) -> PyResult<Py<PyAny>> {
    if shape.size() != v.len() {
        return Err(PyValueError::new_err("result: its size is not its shape's"));
    }
    // A pointer that may be written through (NumPy writes a result): taken
    // from the vector mutably, not from a shared borrow of it.
    let ptr = v.as_mut_ptr().cast_const();
    let owner = Bound::new(
        py,
        PairMemory {
            held: UnsafeCell::new(held(v)),
        },
    )?;
    // SAFETY: `ptr` points at the `shape.size()` elements of the vector
    // that `owner` holds, moved there without reallocating; `owner` becomes
    // the array's base, which NumPy keeps alive as long as the array and any
    // view of it.  The vector sits in an `UnsafeCell` and nothing in Rust
    // touches it while `owner` lives, so NumPy's writes through the array
    // alias nothing.  It is given back only when the last reference drops.
    // Tested in tests/test_runtime.py (results stay intact while later
    // searches run, a freed result's memory is reused, results are
    // writeable).
    let view = unsafe { ArrayView::from_shape_ptr(shape, ptr) };
    let arr = unsafe { PyArray::borrow_from_array(&view, owner.into_any()) };
    Ok(arr.into_any().unbind())
}

/// Values of the pairs, `(k,)` when `cols` is 1, else `(k, cols)`, as an
/// array that owns them (from the scratch pool when big: see [`PairMemory`]).
pub fn values_array(py: Python<'_>, v: Vec<f64>, cols: usize) -> PyResult<Py<PyAny>> {
    let k = v.len() / cols.max(1);
    let small = !broadphase_core::scratch::worth_keeping(&v);
    let bad = |e: numpy::ndarray::ShapeError| PyValueError::new_err(format!("values: {e}"));
    match (cols, small) {
        (1, true) => Ok(Array1::from_vec(v).into_pyarray(py).into_any().unbind()),
        (_, true) => Ok(Array2::from_shape_vec((k, cols), v)
            .map_err(bad)?
            .into_pyarray(py)
            .into_any()
            .unbind()),
        (1, false) => owning_array(py, v, Ix1(k), Held::Values),
        (_, false) => owning_array(py, v, Ix2(k, cols), Held::Values),
    }
}

/// Flat pairs `[i0, j0, ...]` as a `(k, 2)` intp array that owns them and
/// that NumPy may write.
pub fn pairs_array(py: Python<'_>, mut flat: Vec<isize>) -> PyResult<Py<PyAny>> {
    let k = flat.len() / 2;
    flat.truncate(2 * k);
    let bad = |e: numpy::ndarray::ShapeError| PyValueError::new_err(format!("pairs: {e}"));
    if !broadphase_core::scratch::worth_keeping(&flat) {
        let arr = Array2::from_shape_vec((k, 2), flat).map_err(bad)?;
        return Ok(arr.into_pyarray(py).into_any().unbind());
    }
    owning_array(py, flat, Ix2(k, 2), Held::Pairs)
}
