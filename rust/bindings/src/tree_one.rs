//! One-object calls of `broadphase._core.Tree` that read Python numbers,
//! tuples, lists and pygame rects directly, with no NumPy array on the way
//! in: what a game asks once per sprite per frame (`touching`, `query`,
//! `query_point`, a move, an insert or a remove of one object, `in`, the
//! box of one handle).
//!
//! # One rule for what is read here
//! Each function reads only what it can read exactly and answers it, or
//! returns `None` (`False` for the moves) having changed nothing, and the
//! Python layer then takes its full path, which reads everything else
//! and words every error.  So the results are those of the full path:
//! * a number is a `float` (or a subclass: `numpy.float64`), finite, or an
//!   `int` (exactly; or a NumPy integer) of magnitude at most 2**53, which
//!   float64 holds exactly (`_exact.py`'s rule: a bigger one would round,
//!   and is refused there); `bool` is no number;
//! * a box is a `tuple` or `list` of 4 numbers, or a 1-D C-contiguous
//!   float64 array of 4 (exactly `numpy.ndarray`: a masked array goes the
//!   full path), as corners with `min <= max`; or a pygame `Rect` or
//!   `FRect` (subclasses included) read as pygame means it: `x, y, w, h`
//!   with `w, h >= 0`, the corners `x, y, x + w, y + h` in float64 (as
//!   `_cast.box_rows` computes them);
//! * a handle is an `int` or a NumPy integer naming a live object (of the
//!   right shape for a move).
//!
//! # Threads
//! A call whose tree has many objects to bring up to date first (a frame's
//! moves, met by its first query) runs as the full path does: on the
//! pool, Ctrl-C watched ([`crate::watch`]).  Otherwise it runs on the
//! calling thread with the GIL released.

use broadphase_core::narrow::BOX;
use broadphase_core::par::Exec;
use broadphase_core::tree::{Attrs, Tree};
use numpy::{PyArray1, PyArrayMethods, PyUntypedArray};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyFloat, PyInt, PyList, PyTuple, PyType};

use crate::tree::PyTree;
use crate::watch::{watched, Watch, WATCHED_FROM};

/// Integers float64 holds exactly: up to this magnitude.
const EXACT_INT: u64 = 1 << 53;
/// Objects to bring up to date from which a call runs on the pool.
const POOLED_FROM: usize = 1 << 12;

static NP_INTEGER: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static RECT_TYPES: PyOnceLock<Vec<Py<PyType>>> = PyOnceLock::new();

/// Whether `v` is an instance of `numpy.integer`.
fn is_np_integer(v: &Bound<'_, PyAny>) -> bool {
    let py = v.py();
    let t = NP_INTEGER.get_or_try_init(py, || -> PyResult<Py<PyType>> {
        Ok(py
            .import("numpy")?
            .getattr("integer")?
            .cast_into::<PyType>()?
            .unbind())
    });
    t.is_ok_and(|t| v.is_instance(t.bind(py)).unwrap_or(false))
}

/// pygame's `Rect` and `FRect`, once pygame is imported (never imported
/// here: a rect exists only once its module does).
fn rect_types(py: Python<'_>) -> Option<&Vec<Py<PyType>>> {
    if let Some(t) = RECT_TYPES.get(py) {
        return Some(t);
    }
    let modules = py.import("sys").ok()?.getattr("modules").ok()?;
    let pygame = modules.get_item("pygame").ok()?;
    let types: Vec<Py<PyType>> = ["Rect", "FRect"]
        .iter()
        .filter_map(|n| pygame.getattr(*n).ok()?.cast_into::<PyType>().ok())
        .map(Bound::unbind)
        .collect();
    if types.is_empty() {
        return None;
    }
    let _ = RECT_TYPES.set(py, types);
    RECT_TYPES.get(py)
}

/// An integer value of `v` (an `int` or a NumPy integer), exactly.
pub(crate) fn integer(v: &Bound<'_, PyAny>) -> Option<i64> {
    if v.is_exact_instance_of::<PyInt>() || (!v.is_instance_of::<PyInt>() && is_np_integer(v)) {
        v.extract::<i64>().ok()
    } else {
        None
    }
}

/// A number float64 holds exactly, finite (see the module's doc).
pub(crate) fn number(v: &Bound<'_, PyAny>) -> Option<f64> {
    if let Ok(f) = v.cast::<PyFloat>() {
        let x = f.value();
        return x.is_finite().then_some(x);
    }
    let i = integer(v)?;
    (i.unsigned_abs() <= EXACT_INT).then_some(i as f64)
}

/// The items of a `tuple` or `list` (exactly those types), if at most `most`.
pub(crate) fn items<'py>(v: &Bound<'py, PyAny>, most: usize) -> Option<Vec<Bound<'py, PyAny>>> {
    let out: Vec<_> = if let Ok(t) = v.cast_exact::<PyTuple>() {
        (t.len() <= most).then(|| t.iter().collect())?
    } else if let Ok(l) = v.cast_exact::<PyList>() {
        (l.len() <= most).then(|| l.iter().collect())?
    } else {
        return None;
    };
    Some(out)
}

/// `(x, y)`: two finite numbers.
pub(crate) fn pair(v: &Bound<'_, PyAny>) -> Option<[f64; 2]> {
    match items(v, 2)?.as_slice() {
        [x, y] => Some([number(x)?, number(y)?]),
        _ => None,
    }
}

/// Four numbers of a tuple, a list or a float64 array.
fn four(b: &Bound<'_, PyAny>) -> Option<[f64; 4]> {
    let mut out = [0.0; 4];
    if let Ok(t) = b.cast_exact::<PyTuple>() {
        if t.len() != 4 {
            return None;
        }
        for (k, v) in t.iter().enumerate() {
            out[k] = number(&v)?;
        }
    } else if let Ok(l) = b.cast_exact::<PyList>() {
        if l.len() != 4 {
            return None;
        }
        for (k, v) in l.iter().enumerate() {
            out[k] = number(&v)?;
        }
    } else if b.is_exact_instance_of::<PyUntypedArray>() {
        let a = b.cast::<PyArray1<f64>>().ok()?.try_readonly().ok()?;
        let s = a.as_slice().ok()?;
        if s.len() != 4 || !s.iter().all(|x| x.is_finite()) {
            return None;
        }
        out.copy_from_slice(s);
    } else {
        return None;
    }
    Some(out)
}

/// A box: corners, or a pygame rect as `x, y, w, h` (see the module's doc).
pub fn one_box(b: &Bound<'_, PyAny>) -> Option<[f64; 4]> {
    let c = match four(b) {
        Some(c) => c,
        None => rect(b)?,
    };
    (c[0] <= c[2] && c[1] <= c[3]).then_some(c)
}

/// A pygame `Rect`'s or `FRect`'s corners, `x, y, x + w, y + h`, for `w, h >= 0`
/// (not a subclass's: the full path reads those).
fn rect(b: &Bound<'_, PyAny>) -> Option<[f64; 4]> {
    let py = b.py();
    if b.is_instance_of::<PyTuple>() || b.is_instance_of::<PyList>() {
        return None;
    }
    // the types themselves: a subclass may give other values to the
    // attributes than its struct holds, which the full path reads
    let types = rect_types(py)?;
    if !types.iter().any(|t| b.is_exact_instance(t.bind(py))) {
        return None;
    }
    let get = |name: &Bound<'_, pyo3::types::PyString>| number(&b.getattr(name).ok()?);
    let (x, y) = (get(intern!(py, "x"))?, get(intern!(py, "y"))?);
    let (w, h) = (get(intern!(py, "w"))?, get(intern!(py, "h"))?);
    if w < 0.0 || h < 0.0 {
        return None; // the full path names the negative size
    }
    let c = [x, y, x + w, y + h];
    c.iter().all(|v| v.is_finite()).then_some(c)
}

/// `f` on the tree of `tree`: on the calling thread with the GIL released,
/// or, for a question (`asks`: it brings the lists up to date first) with
/// many objects to bring up to date, on the pool, watched (see the
/// module's doc).
pub(crate) fn run<R: Send>(
    tree: &PyTree,
    py: Python<'_>,
    asks: bool,
    f: impl FnOnce(&mut Tree, &Exec) -> R + Send,
) -> PyResult<R> {
    let mut guard = tree.lock()?;
    let st = &mut *guard;
    let pending = if asks { st.inner.unsynced() } else { 0 };
    let inner = &mut st.inner;
    if pending < POOLED_FROM {
        return Ok(py.detach(|| f(inner, &Exec::serial())));
    }
    let ex = Exec::new(st.workers);
    watched(
        py,
        pending.max(WATCHED_FROM),
        &ex,
        Watch::Committing,
        |ex| f(inner, ex),
    )
}

/// `f(tree, h)` for `h` checked live (of shape `kind` if given), in the
/// same lock; `None` for a handle that names no such object.
pub(crate) fn on_live<R: Send>(
    tree: &PyTree,
    py: Python<'_>,
    h: i64,
    kind: Option<u8>,
    asks: bool,
    f: impl FnOnce(&mut Tree, u32, &Exec) -> R + Send,
) -> PyResult<Option<R>> {
    run(tree, py, asks, |t, ex| {
        let ok = t.check_handles(&[h], kind).is_ok();
        ok.then(|| f(t, h as u32, ex))
    })
}

/// Sorted handles as an intp array of their own.
fn handles(py: Python<'_>, h: Vec<u32>) -> Py<PyAny> {
    let v: Vec<isize> = h.into_iter().map(|x| x as isize).collect();
    PyArray1::from_slice(py, &v).into_any().unbind()
}

/// `touching(h)` for a live handle read directly, else `None`.
#[pyfunction]
pub fn tree_touching(
    py: Python<'_>,
    tree: &Bound<'_, PyTree>,
    h: &Bound<'_, PyAny>,
) -> PyResult<Option<Py<PyAny>>> {
    let Some(h) = integer(h) else {
        return Ok(None);
    };
    let found = on_live(tree.get(), py, h, None, true, |t, h, ex| t.touching(h, ex))?;
    Ok(found.map(|f| handles(py, f)))
}

/// `query(box)` for a box read directly, else `None`.
#[pyfunction]
pub fn tree_query(
    py: Python<'_>,
    tree: &Bound<'_, PyTree>,
    q: &Bound<'_, PyAny>,
) -> PyResult<Option<Py<PyAny>>> {
    let Some(q) = one_box(q) else {
        return Ok(None);
    };
    let found = run(tree.get(), py, true, |t, ex| t.query(&q, ex))?;
    Ok(Some(handles(py, found)))
}

/// `query_point(x, y)` for numbers read directly, else `None`.
#[pyfunction]
pub fn tree_query_point(
    py: Python<'_>,
    tree: &Bound<'_, PyTree>,
    x: &Bound<'_, PyAny>,
    y: &Bound<'_, PyAny>,
) -> PyResult<Option<Py<PyAny>>> {
    let (Some(x), Some(y)) = (number(x), number(y)) else {
        return Ok(None);
    };
    let found = run(tree.get(), py, true, |t, ex| t.query_point(&[x, y], ex))?;
    Ok(Some(handles(py, found)))
}

/// `move(h, box)` of one live box object, both read directly: whether it
/// was done (if not, nothing changed).
#[pyfunction]
pub fn tree_move(
    py: Python<'_>,
    tree: &Bound<'_, PyTree>,
    h: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<bool> {
    let Some(h) = integer(h) else {
        return Ok(false);
    };
    let Some(b) = one_box(b) else {
        return Ok(false);
    };
    let done = on_live(tree.get(), py, h, Some(BOX), false, |t, h, ex| {
        t.move_to(&[h as i64], &[b], None, ex)
    })?;
    Ok(done.is_some())
}

/// `insert(box)` of one box read directly, default filters: its handle as
/// an intp array of one, else `None`.
#[pyfunction]
pub fn tree_insert(
    py: Python<'_>,
    tree: &Bound<'_, PyTree>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Option<Py<PyAny>>> {
    let Some(b) = one_box(b) else {
        return Ok(None);
    };
    let h = run(tree.get(), py, false, |t, ex| {
        t.insert(&[b], None, Attrs::default(), ex)
    })?;
    Ok(Some(handles(py, h)))
}

/// `remove(h)` of one live handle read directly: whether it was done.
#[pyfunction]
pub fn tree_remove(tree: &Bound<'_, PyTree>, h: &Bound<'_, PyAny>) -> PyResult<bool> {
    let Some(h) = integer(h) else {
        return Ok(false);
    };
    let mut st = tree.get().lock()?;
    if st.inner.check_handles(&[h], None).is_err() {
        return Ok(false);
    }
    st.inner.remove(&[h]);
    Ok(true)
}

/// `h in tree` for an integer `h` (any size), else `None`.
#[pyfunction]
pub fn tree_contains(tree: &Bound<'_, PyTree>, h: &Bound<'_, PyAny>) -> PyResult<Option<bool>> {
    let int =
        h.is_exact_instance_of::<PyInt>() || (!h.is_instance_of::<PyInt>() && is_np_integer(h));
    if !int {
        return Ok(None);
    }
    // an integer beyond int64 names no object
    Ok(Some(match h.extract::<i64>() {
        Ok(h) => h >= 0 && tree.get().lock()?.inner.contains(h as u64),
        Err(_) => false,
    }))
}

/// The stored box of a live handle read directly, a float64 array of 4,
/// else `None`.
#[pyfunction]
pub fn tree_box(
    py: Python<'_>,
    tree: &Bound<'_, PyTree>,
    h: &Bound<'_, PyAny>,
) -> PyResult<Option<Py<PyAny>>> {
    let Some(h) = integer(h) else {
        return Ok(None);
    };
    let mut st = tree.get().lock()?;
    if st.inner.check_handles(&[h], None).is_err() {
        return Ok(None);
    }
    let b = st.inner.box_of(h as u32);
    Ok(Some(PyArray1::from_slice(py, &b).into_any().unbind()))
}

/// Register the one-object functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tree_touching, m)?)?;
    m.add_function(wrap_pyfunction!(tree_query, m)?)?;
    m.add_function(wrap_pyfunction!(tree_query_point, m)?)?;
    m.add_function(wrap_pyfunction!(tree_move, m)?)?;
    m.add_function(wrap_pyfunction!(tree_insert, m)?)?;
    m.add_function(wrap_pyfunction!(tree_remove, m)?)?;
    m.add_function(wrap_pyfunction!(tree_contains, m)?)?;
    m.add_function(wrap_pyfunction!(tree_box, m)?)?;
    Ok(())
}
