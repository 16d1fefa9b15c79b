//! `refresh_rects`: the sprite layer's frame in one call: every sprite's
//! rect read ([`crate::rects`], its one reader), compared with the box the
//! layer last read for it, and the sprites whose rect changed moved in the
//! tree, with no array crossing to Python and back on the way.
//!
//! # What holds
//! The outcome is that of its three steps done one after the other by the
//! Python layer (`_rects.read`, then `LinearQuadtree.move` of the changed
//! handles): the same boxes stored, the same `box_at` given back.  When
//! the rects cannot all be read here (see `crate::rects`), nothing is
//! read, moved or returned (`None`), and the Python layer takes its full
//! path, which words the error.  The handles are the layer's own (live box
//! objects, each once); they are checked all the same, and a bad one moves
//! nothing and raises.  A rect property (Python code) runs while the rects
//! are read; one that changes the group or the index mid-read is not
//! supported (the index is then as of the arrays it was given).

use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use broadphase_core::narrow::BOX;
use broadphase_core::par::Exec;

use crate::rects::{array, read, Diff};
use crate::tree::PyTree;
use crate::watch::{watched, Watch};
use crate::{rows, slice};

/// Reads `sprites[k].<attr>` for every `k` (as `read_rects`), moves each
/// sprite whose box differs from `box_at[handles[k]]` to its new box in
/// `tree` (box object `handles[k]`), and returns `box_at` with those rows
/// replaced: a new array, or `box_at` itself when none differs (it is
/// never written).  `None` when a rect is not read here: nothing changed.
#[pyfunction]
pub fn refresh_rects(
    py: Python<'_>,
    tree: &Bound<'_, PyTree>,
    sprites: &Bound<'_, PyList>,
    attr: &Bound<'_, PyString>,
    handles: PyReadonlyArray1<'_, i64>,
    box_at: PyReadonlyArray2<'_, f64>,
) -> PyResult<Option<Py<PyAny>>> {
    let Some(boxes) = read(sprites, attr) else {
        return Ok(None);
    };
    let handles = slice(&handles, "handles")?;
    let diff = Diff::of(&boxes, handles, rows::<4>(&box_at, "box_at")?)?;
    let Some(after) = diff.after else {
        return Ok(Some(box_at.as_any().clone().unbind()));
    };
    let moved: Vec<i64> = diff.changed.iter().map(|&k| handles[k as usize]).collect();
    let to: Vec<[f64; 4]> = diff.changed.iter().map(|&k| boxes[k as usize]).collect();
    let mut guard = tree.get().lock()?;
    let st = &mut *guard;
    let inner = &mut st.inner;
    let ex = Exec::new(st.workers);
    watched(py, moved.len(), &ex, Watch::Committing, |ex| {
        // the rows were made here: finite, min <= max (`crate::rects`)
        inner
            .check_handles(&moved, Some(BOX))
            .map(|()| inner.move_to(&moved, &to, None, ex))
    })?
    .map_err(|e| PyValueError::new_err(format!("handles: not the sprites' box objects ({e:?})")))?;
    Ok(Some(array(py, after)?.unbind()))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(refresh_rects, m)?)
}
