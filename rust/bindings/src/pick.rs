//! Objects out: rows of indices into an object array given back as a list
//! of tuples of its objects, in one pass (the sprite layer's pairs, which
//! NumPy would build through an object array, two lists and a `zip`).

use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::slice;

/// `[(objects[i], objects[j]) for i, j in rows]`: `objects` a 1-D object
/// array, `rows` a C-contiguous `(k, 2)` int64 array of indices into it
/// (`ValueError` naming the first out of range).
#[pyfunction]
pub fn pick_pairs<'py>(
    py: Python<'py>,
    objects: PyReadonlyArray1<'py, Py<PyAny>>,
    rows: PyReadonlyArray2<'py, i64>,
) -> PyResult<Bound<'py, PyList>> {
    let objects = slice(&objects, "objects")?;
    if rows.shape()[1] != 2 {
        return Err(PyValueError::new_err(format!(
            "rows: expected 2 columns, found {}",
            rows.shape()[1]
        )));
    }
    let flat = rows
        .as_slice()
        .map_err(|_| PyTypeError::new_err("rows: expected a C-contiguous int64 array"))?;
    let get = |k: usize, v: i64| {
        usize::try_from(v)
            .ok()
            .and_then(|v| objects.get(v))
            .map(|o| o.clone_ref(py))
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "rows[{k}]: expected indices in [0, {}), found {v}",
                    objects.len()
                ))
            })
    };
    let mut out = Vec::with_capacity(flat.len() / 2);
    for (k, &[i, j]) in flat.as_chunks::<2>().0.iter().enumerate() {
        out.push(PyTuple::new(py, [get(k, i)?, get(k, j)?])?);
    }
    PyList::new(py, out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(pick_pairs, m)?)
}
