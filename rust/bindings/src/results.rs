//! Results across the boundary: pair arrays NumPy owns, the first bad row
//! an argument's scan found ([`BadRow`], named fields rather than a tuple),
//! and the error of a result too big for the memory.

use broadphase_core::check;
use broadphase_core::pairs::TooMany;
use numpy::ndarray::{Array2, ArrayView2};
use numpy::{IntoPyArray, PyArray2};
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

/// The memory of a big result array: it goes back to the core's scratch
/// pool when NumPy frees the array, so the next search of about that size
/// writes its pairs into pages it already has (`scratch::result`).
#[pyclass(frozen, module = "broadphase._core")]
pub struct PairMemory {
    /// Written through the array (NumPy may write a result), never from
    /// Rust while the object lives: the cell makes those writes legal, and
    /// the vector is never reallocated, so the array's pointer stays valid.
    flat: UnsafeCell<Vec<isize>>,
}

// SAFETY: Rust never reads or writes the vector while the object lives
// (only NumPy does, through the array, under the GIL), and `Drop` has it alone.
unsafe impl Sync for PairMemory {}

impl Drop for PairMemory {
    fn drop(&mut self) {
        broadphase_core::scratch::give(std::mem::take(self.flat.get_mut()));
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
    // A pointer that may be written through (NumPy writes a result): taken
    // from the vector mutably, not from a shared borrow of it.
    let ptr = flat.as_mut_ptr().cast_const();
    let owner = Bound::new(
        py,
        PairMemory {
            flat: UnsafeCell::new(flat),
        },
    )?;
    // SAFETY: `ptr` points at the `2 * k` elements of the vector that `owner`
    // holds, moved there without reallocating; `owner` becomes the array's
    // base, which NumPy keeps alive as long as the array and any view of it.
    // The vector sits in an `UnsafeCell` and nothing in Rust touches it while
    // `owner` lives, so NumPy's writes through the array alias nothing.  It is
    // given back only when the last reference drops.  Tested in
    // tests/test_runtime.py (results stay intact while later searches run, a
    // freed result's memory is reused, results are writeable).
    let view = unsafe { ArrayView2::from_shape_ptr((k, 2), ptr) };
    let arr = unsafe { PyArray2::borrow_from_array(&view, owner.into_any()) };
    Ok(arr.into_any().unbind())
}
