//! `broadphase._core.Tree`: the moving tree of `broadphase-core` for
//! `broadphase.LinearQuadtree`.
//!
//! The Python class validates every argument's type and shape and converts
//! it (handles to int64, boxes to float64 rows); the checks that need the
//! tree (live handles, each once, of the right shape) and the box scan run
//! here, before anything changes, and come back as named objects the
//! Python layer words (`crate::tree_values`: a `BadHandle` or a `BadRow`).
//! Counts come back named too (`TreeStats`).  Every call releases the GIL
//! while the core works.

use broadphase_core::check;
use broadphase_core::lists::CellLists;
use broadphase_core::morton;
use broadphase_core::narrow::{BOX, CIRCLE};
use broadphase_core::par::Exec;
use broadphase_core::tree::{Policy, Tree};
use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::sync::{Mutex, MutexGuard, TryLockError};

use crate::filters::FilterArgs;
use crate::results::BadRow;
use crate::tree_values::{
    kind_of, BadHandle, Problem, TreeStats, HANDLE_KIND, HANDLE_TWICE, HANDLE_UNKNOWN,
};
use crate::watch::{watched, Watch};
use crate::{owned, rows, slice, too_many, Boxes};

fn handles_array(py: Python<'_>, h: Vec<u32>) -> Py<PyAny> {
    let v: Vec<isize> = h.into_iter().map(|x| x as isize).collect();
    v.into_pyarray(py).into_any().unbind()
}

fn packed_array(py: Python<'_>, packed: &[u64]) -> PyResult<Py<PyAny>> {
    crate::pairs_array(py, broadphase_core::pairs::concatenate(&[packed]))
}

/// What a call says when the tree is in use by another thread's call.
pub const IN_USE: &str = "LinearQuadtree: in use by another thread (a call is running); \
                          a tree is not shared between threads without a lock";

/// A tree and its settings, behind [`PyTree`]'s lock.
pub(crate) struct State {
    pub inner: Tree,
    /// Threads of the searches (`None`: all).
    pub workers: Option<usize>,
}

/// The moving tree (see `broadphase-core`'s `tree` module).
///
/// One call at a time: each call tries the lock and, finding it taken (a
/// call of another thread is running, with the GIL released), raises
/// `RuntimeError` ([`IN_USE`]) at once; nothing ever waits for it, so a
/// `fork()` during a call leaves the child an error, never a hang.  A lock
/// poisoned by an unwind (a stopped call, see `crate::watch`) is taken as
/// it is: the tree's steps leave it valid when they unwind.
#[pyclass(frozen, module = "broadphase._core", name = "Tree")]
pub struct PyTree {
    state: Mutex<State>,
}

impl PyTree {
    fn of(inner: Tree, workers: Option<usize>) -> PyTree {
        PyTree {
            state: Mutex::new(State { inner, workers }),
        }
    }

    /// The tree for this call, or the error saying it is in use.
    pub(crate) fn lock(&self) -> PyResult<MutexGuard<'_, State>> {
        match self.state.try_lock() {
            Ok(g) => Ok(g),
            Err(TryLockError::Poisoned(p)) => Ok(p.into_inner()),
            Err(TryLockError::WouldBlock) => Err(PyRuntimeError::new_err(IN_USE)),
        }
    }
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
        // the list heads of all levels, 0 to depth
        let cells = morton::level_start(depth + 1);
        let bytes = cells.saturating_mul(CellLists::<4>::BYTES_PER_CELL as u64);
        owned::room_for_bytes(bytes, "depth", &format!("a tree of depth {depth}"))?;
        Ok(PyTree::of(Tree::new(bounds, depth, margin), workers))
    }

    /// An independent copy: the same objects, handles, kept pairs and settings.
    fn copy(&self) -> PyResult<PyTree> {
        let st = self.lock()?;
        Ok(PyTree::of(st.inner.clone(), st.workers))
    }

    /// Threads of the searches (`None`: all).
    #[getter]
    fn get_workers(&self) -> PyResult<Option<usize>> {
        Ok(self.lock()?.workers)
    }

    #[setter]
    fn set_workers(&self, v: Option<usize>) -> PyResult<()> {
        self.lock()?.workers = v;
        Ok(())
    }

    /// Add validated boxes (with `circles`: circles, `boxes` their bounding
    /// boxes) and their filters (`None`: the defaults); their handles, or
    /// a `BadRow` if a row changed since the caller checked it.
    #[pyo3(signature = (boxes, circles=None, groups=None, categories=None, masks=None))]
    fn insert(
        &self,
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
        let filter_args = FilterArgs::of(&groups, &categories, &masks, n)?;
        owned::room_for(n, "boxes")?;
        let mut guard = self.lock()?;
        let st = &mut *guard;
        let inner = &mut st.inner;
        let ex = Exec::new(st.workers);
        let h = watched(py, n, &ex, Watch::Committing, |ex| {
            // Only copies are read from here on (`owned`).
            let b = owned::copy(b, "boxes", ex)?;
            let c = owned::copy_opt(c, "circles", ex)?;
            let filters = filter_args.copy(ex)?;
            // checked again on the copy: the caller's rows may have changed
            // since the caller checked them
            if let Err(bad) = check::scan_boxes(&b, &ex.for_work(n, 1 << 16)) {
                return Ok(Err(BadRow::from(bad)));
            }
            Ok::<_, PyErr>(Ok(inner.insert(&b, c.as_deref(), filters.attrs(), ex)))
        })??;
        match h {
            Ok(h) => Ok(handles_array(py, h)),
            Err(bad) => Ok(Bound::new(py, bad)?.into_any().unbind()),
        }
    }

    /// Check handles: live, each once, of shape `kind` (0 box, 1 circle, -1 any).
    #[pyo3(signature = (handles, kind=-1))]
    fn check(&self, handles: PyReadonlyArray1<'_, i64>, kind: i32) -> PyResult<Option<Problem>> {
        let mut guard = self.lock()?;
        let st = &mut *guard;
        let h = owned::copy(slice(&handles, "handles")?, "handles", &Exec::serial())?;
        Ok(st
            .inner
            .check_handles(&h, kind_of(kind))
            .err()
            .map(Problem::from))
    }

    /// New boxes for box objects: checked, then stored, or nothing changes.
    fn move_boxes(
        &self,
        py: Python<'_>,
        handles: PyReadonlyArray1<'_, i64>,
        boxes: Boxes<'_>,
    ) -> PyResult<Option<Problem>> {
        self.move_rows::<4>(py, handles, boxes)
    }

    /// New circles `(x, y, r)` for circle objects: checked, then stored, or
    /// nothing changes.
    fn move_circles(
        &self,
        py: Python<'_>,
        handles: PyReadonlyArray1<'_, i64>,
        circles: Boxes<'_>,
    ) -> PyResult<Option<Problem>> {
        self.move_rows::<3>(py, handles, circles)
    }

    /// Take objects out (checked first).
    fn remove(&self, handles: PyReadonlyArray1<'_, i64>) -> PyResult<Option<Problem>> {
        let mut guard = self.lock()?;
        let st = &mut *guard;
        let h = owned::copy(slice(&handles, "handles")?, "handles", &Exec::serial())?;
        if let Err(e) = st.inner.check_handles(&h, None) {
            return Ok(Some(e.into()));
        }
        st.inner.remove(&h);
        Ok(None)
    }

    /// Radii of circle objects (handles checked here, on a copy: the
    /// caller's array may have changed since it checked them).
    fn radii(&self, py: Python<'_>, handles: PyReadonlyArray1<'_, i64>) -> PyResult<Py<PyAny>> {
        let mut guard = self.lock()?;
        let st = &mut *guard;
        let h = owned::copy(slice(&handles, "handles")?, "handles", &Exec::serial())?;
        if st.inner.check_handles(&h, Some(CIRCLE)).is_err() {
            return Err(PyValueError::new_err(
                "handles: changed while in use, or not live circles",
            ));
        }
        Ok(st.inner.radii(&h).into_pyarray(py).into_any().unbind())
    }

    /// Every colliding pair, `(k, 2)` intp, canonical.
    #[pyo3(signature = (max_pairs=None))]
    fn pairs(&self, py: Python<'_>, max_pairs: Option<u64>) -> PyResult<Py<PyAny>> {
        let mut guard = self.lock()?;
        let st = &mut *guard;
        let n = st.inner.pending();
        let inner = &mut st.inner;
        let ex = Exec::new(st.workers);
        let flat = watched(py, n, &ex, Watch::Committing, |ex| {
            inner.pairs(ex, max_pairs)
        })?;
        crate::pairs_array(py, flat.map_err(too_many)?)
    }

    /// `(began, ended)` since the last `pairs()` or `update()`.
    #[pyo3(signature = (max_pairs=None))]
    fn update(&self, py: Python<'_>, max_pairs: Option<u64>) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
        let mut guard = self.lock()?;
        let st = &mut *guard;
        let n = st.inner.pending();
        let inner = &mut st.inner;
        let ex = Exec::new(st.workers);
        let ev = watched(py, n, &ex, Watch::Committing, |ex| {
            inner.update(ex, max_pairs)
        })?
        .map_err(too_many)?;
        Ok((packed_array(py, &ev.began)?, packed_array(py, &ev.ended)?))
    }

    /// Sorted handles of the objects overlapping a valid box.
    fn query(&self, py: Python<'_>, q: [f64; 4]) -> PyResult<Py<PyAny>> {
        let mut guard = self.lock()?;
        let st = &mut *guard;
        let (n, inner, ex) = (st.inner.pending(), &mut st.inner, Exec::new(st.workers));
        let found = watched(py, n, &ex, Watch::Committing, |ex| inner.query(&q, ex))?;
        Ok(handles_array(py, found))
    }

    /// Sorted handles of the objects strictly containing `(x, y)`.
    fn query_point(&self, py: Python<'_>, x: f64, y: f64) -> PyResult<Py<PyAny>> {
        let mut guard = self.lock()?;
        let st = &mut *guard;
        let (n, inner, ex) = (st.inner.pending(), &mut st.inner, Exec::new(st.workers));
        let found = watched(py, n, &ex, Watch::Committing, |ex| {
            inner.query_point(&[x, y], ex)
        })?;
        Ok(handles_array(py, found))
    }

    /// Sorted handles colliding with the live object `h`.
    fn touching(&self, py: Python<'_>, h: u32) -> PyResult<Py<PyAny>> {
        let mut guard = self.live(h)?;
        let st = &mut *guard;
        let (n, inner, ex) = (st.inner.pending(), &mut st.inner, Exec::new(st.workers));
        let found = watched(py, n, &ex, Watch::Committing, |ex| inner.touching(h, ex))?;
        Ok(handles_array(py, found))
    }

    /// Box of the live object `h`.
    fn box_of(&self, h: u32) -> PyResult<[f64; 4]> {
        Ok(self.live(h)?.inner.box_of(h))
    }

    /// `(x, y, r)` of the live object `h` if a circle, else `None`.
    fn circle_of(&self, h: u32) -> PyResult<Option<[f64; 3]>> {
        Ok(self.live(h)?.inner.circle_of(h))
    }

    /// Seeds' cell `(level, index)` of the live object `h`.
    fn locate(&self, h: u32) -> PyResult<(u32, u64)> {
        Ok(self.live(h)?.inner.locate(h))
    }

    /// The tree's counts (placing the objects moved since it last did).
    fn stats(&self, py: Python<'_>) -> PyResult<TreeStats> {
        let mut guard = self.lock()?;
        let st = &mut *guard;
        let (n, inner, ex) = (st.inner.len(), &mut st.inner, Exec::new(st.workers));
        let s = watched(py, n, &ex, Watch::Committing, |ex| inner.stats(ex))?;
        Ok(TreeStats {
            objects: st.inner.len(),
            outside: st.inner.outside(),
            levels: st.inner.levels().to_vec(),
            relinked: s.relinked,
            entries: s.entries,
            candidate_tests: s.candidate_tests,
            pairs: s.pairs,
            rebuilt: s.rebuilt,
        })
    }

    /// The first broken invariant, or `None`.
    fn validate(&self) -> PyResult<Option<String>> {
        Ok(self.lock()?.inner.validate().err())
    }

    /// Share of dirty objects above which `pairs()` searches from scratch
    /// (tests force either path with it).
    #[getter]
    fn get_rebuild_share(&self) -> PyResult<f64> {
        Ok(self.lock()?.inner.policy().rebuild_share)
    }

    #[setter]
    fn set_rebuild_share(&self, v: f64) -> PyResult<()> {
        let tree = &mut self.lock()?.inner;
        tree.set_policy(Policy {
            rebuild_share: v,
            ..tree.policy()
        });
        Ok(())
    }

    /// Share of stale objects above which the lists are laid out anew.
    #[getter]
    fn get_relayout_share(&self) -> PyResult<f64> {
        Ok(self.lock()?.inner.policy().relayout_share)
    }

    #[setter]
    fn set_relayout_share(&self, v: f64) -> PyResult<()> {
        let tree = &mut self.lock()?.inner;
        tree.set_policy(Policy {
            relayout_share: v,
            ..tree.policy()
        });
        Ok(())
    }

    /// Delta pairs past an eighth of the kept base at which the two are
    /// consolidated (tests force either way with it).
    #[getter]
    fn get_consolidate_from(&self) -> PyResult<usize> {
        Ok(self.lock()?.inner.policy().consolidate_from)
    }

    #[setter]
    fn set_consolidate_from(&self, v: usize) -> PyResult<()> {
        let tree = &mut self.lock()?.inner;
        tree.set_policy(Policy {
            consolidate_from: v,
            ..tree.policy()
        });
        Ok(())
    }

    /// Whether `h` is a live object.
    fn contains(&self, h: i64) -> PyResult<bool> {
        let mut guard = self.lock()?;
        let st = &mut *guard;
        Ok(h >= 0 && st.inner.contains(h as u64))
    }

    fn __len__(&self) -> PyResult<usize> {
        Ok(self.lock()?.inner.len())
    }
}

/// Register the class and its codes.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTree>()?;
    m.add_class::<TreeStats>()?;
    m.add_class::<BadHandle>()?;
    m.add("HANDLE_UNKNOWN", HANDLE_UNKNOWN)?;
    m.add("HANDLE_TWICE", HANDLE_TWICE)?;
    m.add("HANDLE_KIND", HANDLE_KIND)?;
    m.add("KIND_BOX", BOX)?;
    m.add("KIND_CIRCLE", CIRCLE)?;
    m.add("TREE_MAX_DEPTH", broadphase_core::tree::MAX_DEPTH)?;
    m.add("TREE_IN_USE", IN_USE)?;
    crate::tree_one::register(m)
}
