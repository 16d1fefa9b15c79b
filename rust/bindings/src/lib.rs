//! `broadphase._core`: the thin PyO3 layer over `broadphase-core`.
//!
//! The Python package validates and converts its arguments (`_cast.py`) and
//! hands this module C-contiguous arrays of the right dtype; everything here
//! reinterprets them as rows, copies them (`owned`: the core reads only
//! memory no other thread can write), releases the GIL, runs the core
//! (`watch`: long calls on a thread of their own, so that Ctrl-C stops them)
//! and wraps the result.  A row that fails the core's scan comes back as a
//! `BadRow` (its `row` and `code`, one of the `NOT_FINITE`, ... constants)
//! so that the Python layer words the error with the argument's own name.  No input
//! makes a Rust panic reach Python: what would not fit in memory is a
//! `MemoryError` named before it is allocated (`owned::room_for`, the pair
//! budget of `broadphase_core::memory`).

use broadphase_core::check;
use broadphase_core::par::Exec;
use broadphase_core::scratch::Pooled;
use broadphase_core::{Method, Narrow, Search, Width};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use results::{bad_row, pairs_array, too_many};

mod casts;
mod cells;
mod contacts;
mod filters;
mod octree;
mod owned;
mod pick;
mod rects;
mod refresh;
mod results;
mod search;
mod swept;
mod tiles;
mod tree;
mod tree_casts;
mod tree_circle_one;
mod tree_one;
mod tree_ray_one;
mod tree_regions;
mod tree_shared;
mod tree_values;
mod watch;

type Boxes<'py> = PyReadonlyArray2<'py, f64>;

/// Rows of `W` floats of a C-contiguous `(n, W)` array.
fn rows<'a, const W: usize>(
    a: &'a PyReadonlyArray2<'_, f64>,
    name: &str,
) -> PyResult<&'a [[f64; W]]> {
    let shape = a.shape();
    if shape[1] != W {
        return Err(PyValueError::new_err(format!(
            "{name}: expected {W} columns, found {}",
            shape[1]
        )));
    }
    let flat = c_order(a, &format!("{name}: expected a C-contiguous float64 array"))?;
    let (rows, rest) = flat.as_chunks::<W>();
    debug_assert!(rest.is_empty());
    Ok(rows)
}

/// A 2-D array's values in C order, or the `TypeError` `what`: rust-numpy's
/// `as_slice` also takes a Fortran-ordered array, whose rows it would misread.
pub(crate) fn c_order<'a, T: numpy::Element>(
    a: &'a PyReadonlyArray2<'_, T>,
    what: &str,
) -> PyResult<&'a [T]> {
    if !a.is_c_contiguous() {
        return Err(PyTypeError::new_err(what.to_string()));
    }
    a.as_slice()
        .map_err(|_| PyTypeError::new_err(what.to_string()))
}

fn method(name: &str) -> PyResult<Method> {
    Method::from_name(name)
        .ok_or_else(|| PyValueError::new_err(format!("method: unknown {name:?}")))
}

/// Free the core's kept scratch buffers and hand the allocator's free memory
/// back to the system (a Dask worker under a memory limit, between tasks).
#[pyfunction]
fn release_scratch(py: Python<'_>) {
    py.detach(broadphase_core::scratch::release);
}

/// Bounds of valid boxes (2D `(n, 4)` or 3D `(n, 6)` rows), or a `BadRow`.
#[pyfunction]
#[pyo3(signature = (boxes, workers=None))]
fn scan_boxes(py: Python<'_>, boxes: Boxes<'_>, workers: Option<usize>) -> PyResult<Py<PyAny>> {
    if boxes.shape()[1] == 6 {
        scan_rows::<6>(py, &boxes, workers)
    } else {
        scan_rows::<4>(py, &boxes, workers)
    }
}

/// [`scan_boxes`] of rows of `N` columns.
fn scan_rows<const N: usize>(
    py: Python<'_>,
    boxes: &Boxes<'_>,
    workers: Option<usize>,
) -> PyResult<Py<PyAny>>
where
    [f64; N]: Width<N>,
{
    let b = owned::copy(rows::<N>(boxes, "boxes")?, "boxes", &Exec::serial())?;
    match py.detach(|| check::scan_boxes(&b, &Exec::new(workers))) {
        Ok(v) => Ok(PyTuple::new(py, v)?.into_any().unbind()),
        Err(bad) => bad_row(py, bad),
    }
}

/// Outward-rounded bounding boxes of circles (`(n, 3)` rows `x, y, r`: an
/// `(n, 4)` array) or of spheres (`(n, 4)` rows `x, y, z, r`: an `(n, 6)`
/// array), or a `BadRow`.
#[pyfunction]
#[pyo3(signature = (circles, workers=None))]
fn circle_boxes(py: Python<'_>, circles: Boxes<'_>, workers: Option<usize>) -> PyResult<Py<PyAny>> {
    if circles.shape()[1] == 4 {
        ball_rows::<4, 6>(py, &circles, workers)
    } else {
        ball_rows::<3, 4>(py, &circles, workers)
    }
}

/// [`circle_boxes`] of balls of `C` columns into boxes of `N`.
fn ball_rows<const C: usize, const N: usize>(
    py: Python<'_>,
    circles: &Boxes<'_>,
    workers: Option<usize>,
) -> PyResult<Py<PyAny>>
where
    [f64; N]: Width<N> + Pooled,
{
    let c = owned::copy(rows::<C>(circles, "circles")?, "circles", &Exec::serial())?;
    owned::room_for(c.len(), "circles")?;
    match py.detach(|| check::ball_boxes::<C, N>(&c, &Exec::new(workers))) {
        Ok(v) => {
            let n = v.len();
            let flat: Vec<f64> = v.into_iter().flatten().collect();
            let arr = Array2::from_shape_vec((n, N), flat)
                .map_err(|e| PyValueError::new_err(format!("boxes: {e}")))?;
            Ok(arr.into_pyarray(py).into_any().unbind())
        }
        Err(bad) => bad_row(py, bad),
    }
}

fn slice<'a, T: numpy::Element>(a: &'a PyReadonlyArray1<'_, T>, name: &str) -> PyResult<&'a [T]> {
    a.as_slice()
        .map_err(|_| PyTypeError::new_err(format!("{name}: expected a C-contiguous array")))
}

/// Milliseconds of each stage of one box search (`benchmarks/stages.py`).
///
/// Returns `[(stage, ms), ...]` and the number of pairs.
#[pyfunction]
#[pyo3(signature = (boxes, method_name, workers=None))]
fn stages(
    py: Python<'_>,
    boxes: Boxes<'_>,
    method_name: &str,
    workers: Option<usize>,
) -> PyResult<(Vec<(&'static str, f64)>, usize)> {
    let method = method(method_name)?;
    let b = owned::copy(rows::<4>(&boxes, "boxes")?, "boxes", &Exec::serial())?;
    let b = &b[..];
    let out = py.detach(|| {
        let ex = Exec::new(workers);
        let mut times = Vec::new();
        let mut last = std::time::Instant::now();
        let mut tick = |s: &'static str| {
            let now = std::time::Instant::now();
            times.push((s, (now - last).as_secs_f64() * 1e3));
            last = now;
        };
        let bounds = check::scan_boxes(b, &ex);
        tick("validate");
        let bounds = bounds.map_err(|e| format!("boxes[{}]: bad row", e.row))?;
        let search = Search {
            boxes: b,
            bounds,
            narrow: Narrow::default(),
            method,
            max_pairs: None,
        };
        let k = broadphase_core::find_pairs_with(&search, &ex, &mut tick)
            .map_err(|t| format!("{} pairs", t.0))?
            .len()
            / 2;
        Ok::<_, String>((times, k))
    });
    out.map_err(PyValueError::new_err)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<results::PairMemory>()?;
    m.add_class::<results::BadRow>()?;
    m.add_function(wrap_pyfunction!(search::find_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(scan_boxes, m)?)?;
    m.add_function(wrap_pyfunction!(circle_boxes, m)?)?;
    m.add_function(wrap_pyfunction!(stages, m)?)?;
    m.add_function(wrap_pyfunction!(release_scratch, m)?)?;
    m.add_function(wrap_pyfunction!(contacts::contact_events, m)?)?;
    watch::register(m)?;
    cells::register(m)?;
    casts::register(m)?;
    swept::register(m)?;
    rects::register(m)?;
    refresh::register(m)?;
    pick::register(m)?;
    tree::register(m)?;
    tree_casts::register(m)?;
    tree_regions::register(m)?;
    tree_ray_one::register(m)?;
    tree_circle_one::register(m)?;
    tiles::register(m)?;
    m.add("NOT_FINITE", check::Problem::NotFinite as u8)?;
    m.add("X_REVERSED", check::Problem::XReversed as u8)?;
    m.add("Y_REVERSED", check::Problem::YReversed as u8)?;
    m.add("NEGATIVE_RADIUS", check::Problem::NegativeRadius as u8)?;
    m.add("Z_REVERSED", check::Problem::ZReversed as u8)?;
    m.add("X_WIDE", check::Problem::XWide as u8)?;
    m.add("Y_WIDE", check::Problem::YWide as u8)?;
    m.add("Z_WIDE", check::Problem::ZWide as u8)?;
    m.add("FAR", check::Problem::Far as u8)?;
    m.add("MAX_DEPTH", broadphase_core::key::MAX_DEPTH)?;
    Ok(())
}
