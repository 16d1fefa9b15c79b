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

use broadphase_core::check::{self, BadRow};
use broadphase_core::pairs::TooMany;
use broadphase_core::par::Exec;
use broadphase_core::scratch::Pooled;
use broadphase_core::{Method, Narrow, Search, Shapes, Width};
use filters::FilterArgs;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use results::{bad_row, pairs_array, too_many};
use watch::Watch;

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

/// What a search gives back across the boundary.
enum Outcome {
    Pairs(Vec<isize>),
    Bad(BadRow),
    TooMany(TooMany),
}

impl From<BadRow> for Outcome {
    fn from(b: BadRow) -> Self {
        Outcome::Bad(b)
    }
}

/// Every colliding pair of boxes (or of circles, given `circles`), canonical:
/// 2D boxes `(n, 4)` and circles `x, y, r` `(n, 3)`, or 3D boxes `(n, 6)`
/// and spheres `x, y, z, r` `(n, 4)`.
///
/// Returns a `(k, 2)` intp array, or a `BadRow` for the first bad row.
#[pyfunction]
#[pyo3(signature = (boxes, method_name, *, circles=None, groups=None, categories=None,
                    masks=None, workers=None, max_pairs=None))]
#[allow(clippy::too_many_arguments)]
fn find_pairs(
    py: Python<'_>,
    boxes: Option<Boxes<'_>>,
    method_name: &str,
    circles: Option<Boxes<'_>>,
    groups: Option<PyReadonlyArray1<'_, i64>>,
    categories: Option<PyReadonlyArray1<'_, u64>>,
    masks: Option<PyReadonlyArray1<'_, u64>>,
    workers: Option<usize>,
    max_pairs: Option<u64>,
) -> PyResult<Py<PyAny>> {
    let args = SearchArgs {
        method: method(method_name)?,
        boxes: boxes.as_ref(),
        circles: circles.as_ref(),
        filters: (&groups, &categories, &masks),
        workers,
        max_pairs,
    };
    let three = match (&circles, &boxes) {
        (Some(c), _) => c.shape()[1] == 4,
        (None, Some(b)) => b.shape()[1] == 6,
        (None, None) => false,
    };
    if !three {
        return search_rows::<4, 3>(py, args, |c| Shapes::Circles(c));
    }
    search_rows::<6, 4>(py, args, |c| Shapes::Spheres(c))
}

/// `groups`, `categories` and `masks`, as Python gave them.
type FilterArrays<'a, 'py> = (
    &'a Option<PyReadonlyArray1<'py, i64>>,
    &'a Option<PyReadonlyArray1<'py, u64>>,
    &'a Option<PyReadonlyArray1<'py, u64>>,
);

/// The arguments of a [`find_pairs`] call, as Python gave them.
struct SearchArgs<'a, 'py> {
    method: Method,
    boxes: Option<&'a Boxes<'py>>,
    circles: Option<&'a Boxes<'py>>,
    filters: FilterArrays<'a, 'py>,
    workers: Option<usize>,
    max_pairs: Option<u64>,
}

/// [`find_pairs`] at one dimension: boxes of `N` columns, balls of `C`
/// (`balls` their shapes for the narrow phase).
fn search_rows<const N: usize, const C: usize>(
    py: Python<'_>,
    args: SearchArgs,
    balls: for<'s> fn(&'s [[f64; C]]) -> Shapes<'s>,
) -> PyResult<Py<PyAny>>
where
    [f64; N]: Width<N> + Pooled,
{
    let circ = args.circles.map(|c| rows::<C>(c, "circles")).transpose()?;
    let given = args.boxes.map(|b| rows::<N>(b, "boxes")).transpose()?;
    let n = circ.map_or(given.map_or(0, <[_]>::len), <[_]>::len);
    let (groups, categories, masks) = args.filters;
    let filter_args = FilterArgs::of(groups, categories, masks, n)?;
    owned::room_for(n, if circ.is_some() { "circles" } else { "boxes" })?;
    let ex = Exec::new(args.workers);
    let result = watch::watched(py, n, &ex, Watch::Stateless, |ex| {
        // Only copies are read from here on (`owned`).
        let filters = filter_args.copy(ex)?;
        let circ = circ.map(|c| owned::copy(c, "circles", ex)).transpose()?;
        // the boxes searched and their bounds: the balls' bounding boxes,
        // or a copy of the boxes, scanned
        let (owned, bounds) = match (&circ, given) {
            (Some(c), _) => match check::ball_boxes::<C, N>(c, ex) {
                Ok(b) => {
                    let bounds = check::bounds_of(&b);
                    (b, bounds)
                }
                Err(bad) => return Ok(bad.into()),
            },
            (None, Some(b)) => {
                let b = owned::copy_pooled(b, "boxes", ex)?;
                match check::scan_boxes(&b, ex) {
                    Ok(bounds) => (b, bounds),
                    Err(bad) => return Ok(bad.into()),
                }
            }
            (None, None) => (Vec::new(), [0.0; N]),
        };
        let search = Search {
            boxes: &owned,
            bounds,
            narrow: Narrow {
                shapes: circ.as_deref().map_or(Shapes::Boxes, balls),
                filters: filters.filters(),
            },
            method: args.method,
            max_pairs: args.max_pairs,
        };
        let found = broadphase_core::find_pairs(&search, ex);
        broadphase_core::scratch::give(owned);
        Ok::<_, PyErr>(match found {
            Ok(flat) => Outcome::Pairs(flat),
            Err(t) => Outcome::TooMany(t),
        })
    })??;
    match result {
        Outcome::Pairs(flat) => pairs_array(py, flat),
        Outcome::Bad(b) => bad_row(py, b),
        Outcome::TooMany(t) => Err(too_many(t)),
    }
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
    m.add_function(wrap_pyfunction!(find_pairs, m)?)?;
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
    m.add("MAX_DEPTH", broadphase_core::key::MAX_DEPTH)?;
    Ok(())
}
