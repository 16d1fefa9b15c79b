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

use broadphase_core::narrow::{BOX, CIRCLE};
use broadphase_core::tree::Policy;
use numpy::PyReadonlyArray1;
use pyo3::prelude::*;
use std::sync::MutexGuard;

use crate::tree_shared::Shared;
use crate::tree_values::{
    BadHandle, Problem, TreeStats, HANDLE_KIND, HANDLE_TWICE, HANDLE_UNKNOWN,
};
use crate::Boxes;

pub(crate) use crate::tree_shared::{State, IN_USE};

/// The moving tree (see `broadphase-core`'s `tree` module) in 2D: the
/// calls of [`Shared`], one call at a time.
#[pyclass(frozen, module = "broadphase._core", name = "Tree")]
pub struct PyTree {
    shared: Shared<4>,
}

impl PyTree {
    /// The tree for this call, or the error saying it is in use.
    pub(crate) fn lock(&self) -> PyResult<MutexGuard<'_, State>> {
        self.shared.lock()
    }

    /// The tree for a call about the live object `h`, or `KeyError`.
    pub(crate) fn live(&self, h: u32) -> PyResult<MutexGuard<'_, State>> {
        self.shared.live(h)
    }

    /// The calls written once over the dimension.
    pub(crate) fn shared(&self) -> &Shared<4> {
        &self.shared
    }
}

#[pymethods]
impl PyTree {
    /// An empty tree (arguments validated by the caller).
    #[new]
    #[pyo3(signature = (bounds, depth, margin=0.0, workers=None))]
    fn new(bounds: [f64; 4], depth: u32, margin: f64, workers: Option<usize>) -> PyResult<Self> {
        Ok(PyTree {
            shared: Shared::new(bounds, depth, margin, workers)?,
        })
    }

    /// An independent copy: the same objects, handles, kept pairs and settings.
    fn copy(&self) -> PyResult<PyTree> {
        Ok(PyTree {
            shared: self.shared.copy()?,
        })
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
        self.shared
            .insert::<3>(py, boxes, circles, groups, categories, masks, "circles")
    }

    /// Check handles: live, each once, of shape `kind` (0 box, 1 circle, -1 any).
    #[pyo3(signature = (handles, kind=-1))]
    fn check(&self, handles: PyReadonlyArray1<'_, i64>, kind: i32) -> PyResult<Option<Problem>> {
        self.shared.check(handles, kind)
    }

    /// New boxes for box objects: checked, then stored, or nothing changes.
    fn move_boxes(
        &self,
        py: Python<'_>,
        handles: PyReadonlyArray1<'_, i64>,
        boxes: Boxes<'_>,
    ) -> PyResult<Option<Problem>> {
        self.shared.move_rows::<4>(py, handles, boxes)
    }

    /// New circles `(x, y, r)` for circle objects: checked, then stored, or
    /// nothing changes.
    fn move_circles(
        &self,
        py: Python<'_>,
        handles: PyReadonlyArray1<'_, i64>,
        circles: Boxes<'_>,
    ) -> PyResult<Option<Problem>> {
        self.shared.move_rows::<3>(py, handles, circles)
    }

    /// Take objects out (checked first).
    fn remove(&self, handles: PyReadonlyArray1<'_, i64>) -> PyResult<Option<Problem>> {
        self.shared.remove(handles)
    }

    /// Radii of circle objects (handles checked again).
    fn radii(&self, py: Python<'_>, handles: PyReadonlyArray1<'_, i64>) -> PyResult<Py<PyAny>> {
        self.shared.radii(py, handles)
    }

    /// Every colliding pair, `(k, 2)` intp, canonical.
    #[pyo3(signature = (max_pairs=None))]
    fn pairs(&self, py: Python<'_>, max_pairs: Option<u64>) -> PyResult<Py<PyAny>> {
        self.shared.pairs(py, max_pairs)
    }

    /// `(began, ended)` since the last `update()`.
    #[pyo3(signature = (max_pairs=None))]
    fn update(&self, py: Python<'_>, max_pairs: Option<u64>) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
        self.shared.update(py, max_pairs)
    }

    /// Sorted handles of the objects overlapping a valid box.
    fn query(&self, py: Python<'_>, q: [f64; 4]) -> PyResult<Py<PyAny>> {
        self.shared.query(py, q)
    }

    /// Sorted handles of the objects strictly containing `(x, y)`.
    fn query_point(&self, py: Python<'_>, x: f64, y: f64) -> PyResult<Py<PyAny>> {
        self.shared.query_point(py, [x, y])
    }

    /// Sorted handles colliding with the live object `h`.
    fn touching(&self, py: Python<'_>, h: u32) -> PyResult<Py<PyAny>> {
        self.shared.touching(py, h)
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
        self.shared.stats(py)
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
        self.shared.set_policy(|p| Policy {
            rebuild_share: v,
            ..p
        })
    }

    /// Share of stale objects above which the lists are laid out anew.
    #[getter]
    fn get_relayout_share(&self) -> PyResult<f64> {
        Ok(self.lock()?.inner.policy().relayout_share)
    }

    #[setter]
    fn set_relayout_share(&self, v: f64) -> PyResult<()> {
        self.shared.set_policy(|p| Policy {
            relayout_share: v,
            ..p
        })
    }

    /// Delta pairs past an eighth of the kept base at which the two are
    /// consolidated (tests force either way with it).
    #[getter]
    fn get_consolidate_from(&self) -> PyResult<usize> {
        Ok(self.lock()?.inner.policy().consolidate_from)
    }

    #[setter]
    fn set_consolidate_from(&self, v: usize) -> PyResult<()> {
        self.shared.set_policy(|p| Policy {
            consolidate_from: v,
            ..p
        })
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
    m.add_class::<crate::octree::PyTree3>()?;
    m.add("TREE_MAX_DEPTH_3D", broadphase_core::tree::MAX_DEPTH_3D)?;
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
