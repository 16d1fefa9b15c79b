//! Objects out: rows of indices into an object array given back as a list
//! of tuples of its objects, in one pass (the sprite layer's pairs, which
//! NumPy would build through an object array, two lists and a `zip`).

use numpy::{PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// `[(objects[i], objects[j]) for i, j in rows]`: `objects` a 1-D object
/// array, `rows` a C-contiguous `(k, 2)` int64 array of indices into it
/// (`ValueError` naming the first out of range).
#[pyfunction]
pub fn pick_pairs<'py>(
    py: Python<'py>,
    objects: PyReadonlyArray1<'py, Py<PyAny>>,
    rows: PyReadonlyArray2<'py, i64>,
) -> PyResult<Bound<'py, PyList>> {
    // the slots read as raw pointers: an object array may hold empty (NULL)
    // slots, which NumPy reads as `None`; each slot aligned, as a read needs
    let data = objects.data().cast::<*mut ffi::PyObject>().cast_const();
    if !objects.is_c_contiguous() || !data.is_aligned() {
        return Err(PyTypeError::new_err(
            "objects: expected a C-contiguous, aligned object array",
        ));
    }
    let n = objects.len();
    if rows.shape()[1] != 2 {
        return Err(PyValueError::new_err(format!(
            "rows: expected 2 columns, found {}",
            rows.shape()[1]
        )));
    }
    let flat = crate::c_order(&rows, "rows: expected a C-contiguous int64 array")?;
    // every index checked before anything is built
    let pairs = flat.as_chunks::<2>().0;
    for (k, row) in pairs.iter().enumerate() {
        for &v in row {
            if usize::try_from(v).map_or(true, |v| v >= n) {
                return Err(PyValueError::new_err(format!(
                    "rows[{k}]: expected indices in [0, {n}), found {v}"
                )));
            }
        }
    }
    // SAFETY: the GIL is held; `PyList_New(k)` gives a new list of `k`
    // empty slots (or NULL with an exception set, turned into the error),
    // each filled below by `PyList_SetItem`, which takes the tuple's
    // reference; on an error the list is dropped with its empty slots.
    let list = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyList_New(pairs.len() as isize))? };
    for (k, &[i, j]) in pairs.iter().enumerate() {
        // SAFETY: `i`, `j` are slots of the array (checked above), which the
        // borrow keeps alive and in place.  The slots are read only once the
        // tuple is made: making it may run Python code (a collection, a
        // finalizer) that puts other objects in them.
        let t = unsafe { pair(py, data.add(i as usize), data.add(j as usize))? };
        // SAFETY: `k` is a slot of the list, empty until now
        unsafe { ffi::PyList_SetItem(list.as_ptr(), k as isize, t.into_ptr()) };
    }
    // SAFETY: a list, made above
    Ok(unsafe { list.cast_into_unchecked() })
}

/// The tuple of the objects in the slots `a` and `b` (`None` for an empty
/// slot), built in place (a 2-tuple from CPython's free list).
///
/// # Safety
/// The GIL is held and `a`, `b` point to slots of a live object array.
unsafe fn pair<'py>(
    py: Python<'py>,
    a: *const *mut ffi::PyObject,
    b: *const *mut ffi::PyObject,
) -> PyResult<Bound<'py, PyTuple>> {
    // a new reference to the slot's object (`None` for an empty slot)
    let take = |slot: *const *mut ffi::PyObject| {
        let p = *slot;
        let p = if p.is_null() { ffi::Py_None() } else { p };
        ffi::Py_IncRef(p);
        p
    };
    // `PyTuple_New(2)` gives a new tuple (or NULL with an exception set,
    // turned into the error) whose two slots `PyTuple_SetItem` fills, each
    // taking the reference given
    let t = Bound::from_owned_ptr_or_err(py, ffi::PyTuple_New(2))?;
    ffi::PyTuple_SetItem(t.as_ptr(), 0, take(a));
    ffi::PyTuple_SetItem(t.as_ptr(), 1, take(b));
    Ok(t.cast_into_unchecked())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(pick_pairs, m)?)
}
