//! Region queries in a batch on `broadphase._core.Tree`
//! (`LinearQuadtree.query_many`): many boxes in, the rows `(query,
//! handle)` of the objects each overlaps out.

use pyo3::prelude::*;

use crate::tree::PyTree;
use crate::Boxes;

/// Rows `(query, handle)` of the objects overlapping each valid box,
/// `(k, 2)` intp, sorted.
#[pyfunction]
#[pyo3(signature = (tree, boxes, max_rows=None))]
pub fn tree_query_many(
    py: Python<'_>,
    tree: &Bound<'_, PyTree>,
    boxes: Boxes<'_>,
    max_rows: Option<u64>,
) -> PyResult<Py<PyAny>> {
    tree.get().shared().query_many(py, boxes, max_rows)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tree_query_many, m)?)
}
