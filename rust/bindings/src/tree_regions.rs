//! Region queries in a batch on `broadphase._core.Tree`
//! (`LinearQuadtree.query_many`): many boxes in, the rows `(query,
//! handle)` of the objects each overlaps out.

use broadphase_core::check;
use broadphase_core::par::Exec;
use pyo3::prelude::*;

use crate::owned;
use crate::results::BadRow;
use crate::tree::PyTree;
use crate::watch::{watched, Watch};
use crate::{rows, Boxes};

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
    let q = rows::<4>(&boxes, "boxes")?;
    let mut guard = tree.get().lock()?;
    let st = &mut *guard;
    let (n, inner, ex) = (q.len(), &mut st.inner, Exec::new(st.workers));
    let found = watched(py, n, &ex, Watch::Committing, |ex| {
        // Only a copy is read from here on (`owned`), checked again:
        // the caller's rows may have changed since it checked them.
        let q = owned::copy(q, "boxes", ex)?;
        if let Err(bad) = check::scan_boxes(&q, &ex.for_work(n, 1 << 16)) {
            return Ok(Err(BadRow::from(bad)));
        }
        Ok::<_, PyErr>(Ok(inner.query_many(&q, ex, max_rows)))
    })??;
    match found {
        Ok(rows) => crate::pairs_array(
            py,
            rows.map_err(|t| crate::results::too_many_rows(t, max_rows))?,
        ),
        Err(bad) => Ok(Bound::new(py, bad)?.into_any().unbind()),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tree_query_many, m)?)
}
