//! `broadphase._core.Tree`: the moving tree of `broadphase-core` for
//! `broadphase.LinearQuadtree`.
//!
//! The Python class validates every argument's type and shape and converts
//! it (handles to int64, boxes to float64 rows); the checks that need the
//! tree (live handles, each once, of the right shape) and the box scan run
//! here, before anything changes, and come back as tuples the Python layer
//! words: `("handle", at, code)` with the `HANDLE_*` codes, or
//! `("row", row, problem)` with the `NOT_FINITE`, ... codes.  Every call
//! releases the GIL while the core works.

use broadphase_core::check;
use broadphase_core::narrow::{BOX, CIRCLE};
use broadphase_core::par::Exec;
use broadphase_core::tree::{Attrs, HandleError, Tree};
use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::{ints, rows, slice, too_many, Boxes};

/// `handles[at]` is not a live object.
pub const HANDLE_UNKNOWN: u8 = 1;
/// `handles[at]` repeats an earlier handle.
pub const HANDLE_TWICE: u8 = 2;
/// `handles[at]` is an object of the other shape.
pub const HANDLE_KIND: u8 = 3;

/// A problem with an argument, for the Python layer to word.
type Problem = Option<(&'static str, usize, u8)>;

fn handle_problem(e: HandleError) -> Problem {
    Some(match e {
        HandleError::Unknown(at) => ("handle", at, HANDLE_UNKNOWN),
        HandleError::Twice(at) => ("handle", at, HANDLE_TWICE),
        HandleError::WrongKind(at) => ("handle", at, HANDLE_KIND),
    })
}

fn kind_of(kind: i32) -> Option<u8> {
    match kind {
        0 => Some(BOX),
        1 => Some(CIRCLE),
        _ => None,
    }
}

fn handles_array(py: Python<'_>, h: Vec<u32>) -> Py<PyAny> {
    let v: Vec<isize> = h.into_iter().map(|x| x as isize).collect();
    v.into_pyarray(py).into_any().unbind()
}

fn packed_array(py: Python<'_>, packed: &[u64]) -> PyResult<Py<PyAny>> {
    crate::pairs_array(py, broadphase_core::pairs::concatenate(&[packed]))
}

/// The moving tree (see `broadphase-core`'s `tree` module).
#[pyclass(module = "broadphase._core", name = "Tree")]
pub struct PyTree {
    inner: Tree,
    /// Threads of the searches (`None`: all).
    #[pyo3(get, set)]
    workers: Option<usize>,
}

#[pymethods]
impl PyTree {
    /// An empty tree (arguments validated by the caller).
    #[new]
    #[pyo3(signature = (bounds, depth, margin=0.0, workers=None))]
    fn new(bounds: [f64; 4], depth: u32, margin: f64, workers: Option<usize>) -> PyResult<Self> {
        if depth > broadphase_core::tree::MAX_DEPTH || margin.is_nan() || margin < 0.0 {
            return Err(PyValueError::new_err("depth or margin out of range"));
        }
        Ok(PyTree {
            inner: Tree::new(bounds, depth, margin),
            workers,
        })
    }

    /// Add validated boxes (with `circles`: circles, `boxes` their bounding
    /// boxes) and their filters (`None`: the defaults); their handles.
    #[pyo3(signature = (boxes, circles=None, groups=None, categories=None, masks=None))]
    fn insert(
        &mut self,
        py: Python<'_>,
        boxes: Boxes<'_>,
        circles: Option<Boxes<'_>>,
        groups: Option<PyReadonlyArray1<'_, i64>>,
        categories: Option<PyReadonlyArray1<'_, u64>>,
        masks: Option<PyReadonlyArray1<'_, u64>>,
    ) -> PyResult<Py<PyAny>> {
        let b = rows::<4>(&boxes, "boxes")?;
        let n = b.len();
        let c = match &circles {
            Some(c) => Some(rows::<3>(c, "circles")?),
            None => None,
        };
        if c.is_some_and(|c| c.len() != n) {
            return Err(PyValueError::new_err(
                "insert: circles and boxes of different lengths",
            ));
        }
        let attrs = Attrs {
            groups: ints(&groups, "groups", n)?,
            categories: ints(&categories, "categories", n)?,
            masks: ints(&masks, "masks", n)?,
        };
        let (inner, ex) = (&mut self.inner, Exec::new(self.workers));
        let h = py.detach(|| inner.insert(b, c, attrs, &ex));
        Ok(handles_array(py, h))
    }

    /// Check handles: live, each once, of shape `kind` (0 box, 1 circle, -1 any).
    #[pyo3(signature = (handles, kind=-1))]
    fn check(&mut self, handles: PyReadonlyArray1<'_, i64>, kind: i32) -> PyResult<Problem> {
        let h = slice(&handles, "handles")?;
        Ok(self
            .inner
            .check_handles(h, kind_of(kind))
            .err()
            .and_then(handle_problem))
    }

    /// New boxes for box objects: checked, then stored, or nothing changes.
    fn move_boxes(
        &mut self,
        py: Python<'_>,
        handles: PyReadonlyArray1<'_, i64>,
        boxes: Boxes<'_>,
    ) -> PyResult<Problem> {
        let h = slice(&handles, "handles")?;
        let b = rows::<4>(&boxes, "boxes")?;
        if h.len() != b.len() {
            return Err(PyValueError::new_err("move: lengths differ"));
        }
        let inner = &mut self.inner;
        let workers = self.workers;
        Ok(py.detach(|| {
            if let Err(e) = inner.check_handles(h, Some(BOX)) {
                return handle_problem(e);
            }
            if let Err(bad) = check::scan_boxes(b, &Exec::new(workers).for_work(b.len(), 1 << 16)) {
                return Some(("row", bad.row, bad.problem as u8));
            }
            inner.move_to(h, b, None, &Exec::new(workers));
            None
        }))
    }

    /// New circles `(x, y, r)` for circle objects: checked, then stored, or
    /// nothing changes.
    fn move_circles(
        &mut self,
        py: Python<'_>,
        handles: PyReadonlyArray1<'_, i64>,
        circles: Boxes<'_>,
    ) -> PyResult<Problem> {
        let h = slice(&handles, "handles")?;
        let c = rows::<3>(&circles, "circles")?;
        if h.len() != c.len() {
            return Err(PyValueError::new_err("move_circles: lengths differ"));
        }
        let inner = &mut self.inner;
        let workers = self.workers;
        Ok(py.detach(|| {
            if let Err(e) = inner.check_handles(h, Some(CIRCLE)) {
                return handle_problem(e);
            }
            let ex = Exec::new(workers).for_work(c.len(), 1 << 16);
            match check::circle_boxes(c, &ex) {
                Err(bad) => Some(("row", bad.row, bad.problem as u8)),
                Ok(b) => {
                    inner.move_to(h, &b, Some(c), &Exec::new(workers));
                    None
                }
            }
        }))
    }

    /// Take objects out (checked first).
    fn remove(&mut self, handles: PyReadonlyArray1<'_, i64>) -> PyResult<Problem> {
        let h = slice(&handles, "handles")?;
        if let Err(e) = self.inner.check_handles(h, None) {
            return Ok(handle_problem(e));
        }
        self.inner.remove(h);
        Ok(None)
    }

    /// Radii of circle objects (checked handles).
    fn radii(&self, py: Python<'_>, handles: PyReadonlyArray1<'_, i64>) -> PyResult<Py<PyAny>> {
        let h = slice(&handles, "handles")?;
        Ok(self.inner.radii(h).into_pyarray(py).into_any().unbind())
    }

    /// Every colliding pair, `(k, 2)` intp, canonical.
    #[pyo3(signature = (max_pairs=None))]
    fn pairs(&mut self, py: Python<'_>, max_pairs: Option<u64>) -> PyResult<Py<PyAny>> {
        let inner = &mut self.inner;
        let workers = self.workers;
        let flat = py.detach(|| inner.pairs(&Exec::new(workers), max_pairs));
        crate::pairs_array(py, flat.map_err(too_many)?)
    }

    /// `(began, ended)` since the last `pairs()` or `update()`.
    #[pyo3(signature = (max_pairs=None))]
    fn update(
        &mut self,
        py: Python<'_>,
        max_pairs: Option<u64>,
    ) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
        let inner = &mut self.inner;
        let workers = self.workers;
        let ev = py
            .detach(|| inner.update(&Exec::new(workers), max_pairs))
            .map_err(too_many)?;
        Ok((packed_array(py, &ev.began)?, packed_array(py, &ev.ended)?))
    }

    /// Sorted handles of the objects overlapping a valid box.
    fn query(&mut self, py: Python<'_>, q: [f64; 4]) -> Py<PyAny> {
        let (inner, ex) = (&mut self.inner, Exec::new(self.workers));
        handles_array(py, py.detach(|| inner.query(&q, &ex)))
    }

    /// Sorted handles of the objects strictly containing `(x, y)`.
    fn query_point(&mut self, py: Python<'_>, x: f64, y: f64) -> Py<PyAny> {
        let (inner, ex) = (&mut self.inner, Exec::new(self.workers));
        handles_array(py, py.detach(|| inner.query_point(x, y, &ex)))
    }

    /// Sorted handles colliding with the live object `h`.
    fn touching(&mut self, py: Python<'_>, h: u32) -> Py<PyAny> {
        let (inner, ex) = (&mut self.inner, Exec::new(self.workers));
        handles_array(py, py.detach(|| inner.touching(h, &ex)))
    }

    /// Box of the live object `h`.
    fn box_of(&self, h: u32) -> [f64; 4] {
        self.inner.box_of(h)
    }

    /// `(x, y, r)` of the live object `h` if a circle, else `None`.
    fn circle_of(&self, h: u32) -> Option<[f64; 3]> {
        self.inner.circle_of(h)
    }

    /// Seeds' cell `(level, index)` of the live object `h`.
    fn locate(&self, h: u32) -> (u32, u64) {
        self.inner.locate(h)
    }

    /// `(relinked, entries, candidate_tests, pairs, rebuilt, levels, outside)`.
    fn stats(&mut self) -> (u64, u64, u64, u64, bool, Vec<u64>, usize) {
        let s = self.inner.stats(&Exec::new(self.workers));
        (
            s.relinked,
            s.entries,
            s.candidate_tests,
            s.pairs,
            s.rebuilt,
            self.inner.levels().to_vec(),
            self.inner.outside(),
        )
    }

    /// The first broken invariant, or `None`.
    fn validate(&self) -> Option<String> {
        self.inner.validate().err()
    }

    /// Share of dirty objects above which `pairs()` searches from scratch
    /// (tests force either path with it).
    #[getter]
    fn get_rebuild_share(&self) -> f64 {
        self.inner.rebuild_share
    }

    #[setter]
    fn set_rebuild_share(&mut self, v: f64) {
        self.inner.rebuild_share = v;
    }

    /// Share of stale objects above which the lists are laid out anew.
    #[getter]
    fn get_relayout_share(&self) -> f64 {
        self.inner.relayout_share
    }

    #[setter]
    fn set_relayout_share(&mut self, v: f64) {
        self.inner.relayout_share = v;
    }

    /// Delta pairs past an eighth of the kept base at which the two are
    /// consolidated (tests force either way with it).
    #[getter]
    fn get_consolidate_from(&self) -> usize {
        self.inner.consolidate_from
    }

    #[setter]
    fn set_consolidate_from(&mut self, v: usize) {
        self.inner.consolidate_from = v;
    }

    /// Whether `h` is a live object.
    fn contains(&self, h: i64) -> bool {
        h >= 0 && self.inner.contains(h as u64)
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }
}

/// Register the class and its codes.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTree>()?;
    m.add("HANDLE_UNKNOWN", HANDLE_UNKNOWN)?;
    m.add("HANDLE_TWICE", HANDLE_TWICE)?;
    m.add("HANDLE_KIND", HANDLE_KIND)?;
    m.add("TREE_MAX_DEPTH", broadphase_core::tree::MAX_DEPTH)?;
    Ok(())
}
