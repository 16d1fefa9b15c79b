//! `broadphase._core.Tree3`: the moving tree of `broadphase-core` in 3D
//! (its linear octree) for `broadphase.LinearOctree`: the calls of
//! [`Shared`] over rows of six doubles, handed down as `_core.Tree` hands
//! down its 2D ones.

use broadphase_core::tree::Policy;
use numpy::PyReadonlyArray1;
use pyo3::prelude::*;

use crate::tree_shared::Shared;
use crate::tree_values::{Problem, TreeStats};
use crate::Boxes;

/// The moving tree in 3D: boxes `minx, miny, minz, maxx, maxy, maxz` and
/// spheres `x, y, z, r`, one call at a time.
#[pyclass(frozen, module = "broadphase._core", name = "Tree3")]
pub struct PyTree3 {
    shared: Shared<6>,
}

impl PyTree3 {
    /// The calls written once over the dimension.
    pub(crate) fn shared(&self) -> &Shared<6> {
        &self.shared
    }
}

#[pymethods]
impl PyTree3 {
    /// An empty tree (arguments validated by the caller).
    #[new]
    #[pyo3(signature = (bounds, depth, margin=0.0, workers=None))]
    fn new(bounds: [f64; 6], depth: u32, margin: f64, workers: Option<usize>) -> PyResult<Self> {
        Ok(PyTree3 {
            shared: Shared::new(bounds, depth, margin, workers)?,
        })
    }

    /// An independent copy: the same objects, handles, kept pairs and settings.
    fn copy(&self) -> PyResult<PyTree3> {
        Ok(PyTree3 {
            shared: self.shared.copy()?,
        })
    }

    /// Threads of the searches (`None`: all).
    #[getter]
    fn get_workers(&self) -> PyResult<Option<usize>> {
        Ok(self.shared.lock()?.workers)
    }

    #[setter]
    fn set_workers(&self, v: Option<usize>) -> PyResult<()> {
        self.shared.lock()?.workers = v;
        Ok(())
    }

    /// Add validated boxes (with `spheres`: spheres, `boxes` their bounding
    /// boxes) and their filters; their handles, or a `BadRow`.
    #[pyo3(signature = (boxes, spheres=None, groups=None, categories=None, masks=None))]
    fn insert(
        &self,
        py: Python<'_>,
        boxes: Boxes<'_>,
        spheres: Option<Boxes<'_>>,
        groups: Option<PyReadonlyArray1<'_, i64>>,
        categories: Option<PyReadonlyArray1<'_, u64>>,
        masks: Option<PyReadonlyArray1<'_, u64>>,
    ) -> PyResult<Py<PyAny>> {
        self.shared
            .insert::<4>(py, boxes, spheres, groups, categories, masks, "spheres")
    }

    /// Check handles: live, each once, of shape `kind` (0 box, 1 sphere, -1 any).
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
        self.shared.move_rows::<6>(py, handles, boxes)
    }

    /// New spheres `(x, y, z, r)` for sphere objects: checked, then stored,
    /// or nothing changes.
    fn move_spheres(
        &self,
        py: Python<'_>,
        handles: PyReadonlyArray1<'_, i64>,
        spheres: Boxes<'_>,
    ) -> PyResult<Option<Problem>> {
        self.shared.move_rows::<4>(py, handles, spheres)
    }

    /// Take objects out (checked first).
    fn remove(&self, handles: PyReadonlyArray1<'_, i64>) -> PyResult<Option<Problem>> {
        self.shared.remove(handles)
    }

    /// Radii of sphere objects (handles checked again).
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
    fn query(&self, py: Python<'_>, q: [f64; 6]) -> PyResult<Py<PyAny>> {
        self.shared.query(py, q)
    }

    /// Rows `(query, handle)` of the objects overlapping each valid box.
    #[pyo3(signature = (boxes, max_rows=None))]
    fn query_many(
        &self,
        py: Python<'_>,
        boxes: Boxes<'_>,
        max_rows: Option<u64>,
    ) -> PyResult<Py<PyAny>> {
        self.shared.query_many(py, boxes, max_rows)
    }

    /// Sorted handles of the objects strictly containing `(x, y, z)`.
    fn query_point(&self, py: Python<'_>, x: f64, y: f64, z: f64) -> PyResult<Py<PyAny>> {
        self.shared.query_point(py, [x, y, z])
    }

    /// Sorted handles colliding with the live object `h`.
    fn touching(&self, py: Python<'_>, h: u32) -> PyResult<Py<PyAny>> {
        self.shared.touching(py, h)
    }

    /// Box of the live object `h`.
    fn box_of(&self, h: u32) -> PyResult<[f64; 6]> {
        Ok(self.shared.live(h)?.inner.box_of(h))
    }

    /// `(x, y, z, r)` of the live object `h` if a sphere, else `None`.
    fn sphere_of(&self, h: u32) -> PyResult<Option<[f64; 4]>> {
        Ok(self.shared.live(h)?.inner.circle_of(h))
    }

    /// Seeds' cell `(level, index)` of the live object `h`.
    fn locate(&self, h: u32) -> PyResult<(u32, u64)> {
        Ok(self.shared.live(h)?.inner.locate(h))
    }

    /// The tree's counts (placing the objects moved since it last did).
    fn stats(&self, py: Python<'_>) -> PyResult<TreeStats> {
        self.shared.stats(py)
    }

    /// The first broken invariant, or `None`.
    fn validate(&self) -> PyResult<Option<String>> {
        Ok(self.shared.lock()?.inner.validate().err())
    }

    /// Share of dirty objects above which `pairs()` searches from scratch.
    #[getter]
    fn get_rebuild_share(&self) -> PyResult<f64> {
        Ok(self.shared.lock()?.inner.policy().rebuild_share)
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
        Ok(self.shared.lock()?.inner.policy().relayout_share)
    }

    #[setter]
    fn set_relayout_share(&self, v: f64) -> PyResult<()> {
        self.shared.set_policy(|p| Policy {
            relayout_share: v,
            ..p
        })
    }

    /// Whether `h` is a live object.
    fn contains(&self, h: i64) -> PyResult<bool> {
        Ok(h >= 0 && self.shared.lock()?.inner.contains(h as u64))
    }

    fn __len__(&self) -> PyResult<usize> {
        Ok(self.shared.lock()?.inner.len())
    }
}
