//! `Contacts`' step: the pairs of this frame as a set, and the events from
//! the last frame's, by the core's pair-set operations (`pairset`: the one
//! owner of the pair key and of the set difference, which the moving tree's
//! `update()` uses too).

use crate::tiles::pair_rows;
use crate::watch::{watched, Watch};
use broadphase_core::pairs::concatenate;
use broadphase_core::pairset::{events_between, of_rows};
use broadphase_core::par::Exec;
use numpy::PyReadonlyArray2;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The rows of `name` as pairs of two different objects below `2^31`.
fn checked(rows: &[[i64; 2]], name: &str) -> PyResult<Vec<[u32; 2]>> {
    rows.iter()
        .enumerate()
        .map(|(k, &[i, j])| {
            let ok = |v: i64| (0..1 << 31).contains(&v);
            if !ok(i) || !ok(j) || i == j {
                return Err(PyValueError::new_err(format!(
                    "{name}[{k}]: expected two different indices in [0, 2**31), found [{i}, {j}]"
                )));
            }
            Ok([i as u32, j as u32])
        })
        .collect()
}

/// `(current, began, ended)`: the pairs of `pairs` as canonical rows (each
/// once, `i < j`, sorted), the pairs in them but not in `last`'s, and the
/// reverse; `(j, i)` is the pair `(i, j)`.  Both arguments are C-contiguous
/// `(k, 2)` int64 arrays of two different indices in `[0, 2**31)` per row.
#[pyfunction]
pub fn contact_events(
    py: Python<'_>,
    last: PyReadonlyArray2<'_, i64>,
    pairs: PyReadonlyArray2<'_, i64>,
) -> PyResult<(Py<PyAny>, Py<PyAny>, Py<PyAny>)> {
    let last = checked(pair_rows(&last)?, "last")?;
    let pairs = checked(pair_rows(&pairs)?, "pairs")?;
    let work = last.len() + pairs.len();
    let ex = Exec::serial();
    let (now, began, ended) = watched(py, work, &ex, Watch::Stateless, |ex| {
        let (old, new) = (of_rows(&last), of_rows(&pairs));
        ex.check_stop();
        let ev = events_between(&old, &new, &[]);
        ex.check_stop();
        let flat = |packed: &[u64]| concatenate(&[packed]);
        (flat(&new), flat(&ev.began), flat(&ev.ended))
    })?;
    Ok((
        crate::pairs_array(py, now)?,
        crate::pairs_array(py, began)?,
        crate::pairs_array(py, ended)?,
    ))
}
