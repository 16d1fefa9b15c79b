//! One circle of `LinearQuadtree.insert_circles` and `move_circles` read
//! from Python numbers, with no NumPy array on the way in
//! (`crate::tree_one`'s rule for what is read here).
//!
//! Read here: a centre that is a `tuple` or `list` of two finite numbers, a
//! radius that is a finite number `>= 0` (for a move, also `None`: the
//! circle keeps its radius), a handle that is an integer naming a live
//! circle, and no filters; the circle's box is its outward-rounded box
//! ([`check::circle_box`], the full path's), which must be finite.
//! Anything else returns `None` (`False` for the move) having changed
//! nothing, and the Python layer takes its full path, which reads
//! everything else and words every error.

use broadphase_core::check;
use broadphase_core::narrow::CIRCLE;
use broadphase_core::tree::Attrs;
use numpy::PyArray1;
use pyo3::prelude::*;

use crate::tree::PyTree;
use crate::tree_one::{integer, number, on_live, pair, run};

/// The circle `(x, y, r)` and its box, if taken here.
fn circle([x, y]: [f64; 2], r: f64) -> Option<([f64; 3], [f64; 4])> {
    let c = [x, y, r];
    let b = check::circle_box(&c);
    (r >= 0.0 && b.iter().all(|v| v.is_finite())).then_some((c, b))
}

/// `insert_circles(center, r)` of one circle read directly, default
/// filters: its handle as an intp array of one, else `None`.
#[pyfunction]
pub fn tree_insert_circle(
    py: Python<'_>,
    tree: &Bound<'_, PyTree>,
    center: &Bound<'_, PyAny>,
    r: &Bound<'_, PyAny>,
) -> PyResult<Option<Py<PyAny>>> {
    let Some((c, b)) = pair(center)
        .zip(number(r))
        .and_then(|(xy, r)| circle(xy, r))
    else {
        return Ok(None);
    };
    let h = run(tree.get(), py, false, |t, ex| {
        t.insert(&[b], Some(&[c]), Attrs::default(), ex)
    })?;
    let h: Vec<isize> = h.into_iter().map(|h| h as isize).collect();
    Ok(Some(PyArray1::from_slice(py, &h).into_any().unbind()))
}

/// `move_circles(h, center[, r])` of one live circle, read directly:
/// whether it was done (if not, nothing changed).
#[pyfunction]
#[pyo3(signature = (tree, h, center, r=None))]
pub fn tree_move_circle(
    py: Python<'_>,
    tree: &Bound<'_, PyTree>,
    h: &Bound<'_, PyAny>,
    center: &Bound<'_, PyAny>,
    r: Option<&Bound<'_, PyAny>>,
) -> PyResult<bool> {
    let (Some(h), Some(xy)) = (integer(h), pair(center)) else {
        return Ok(false);
    };
    let r = match r {
        None => None,
        Some(r) => match number(r) {
            Some(r) => Some(r),
            None => return Ok(false),
        },
    };
    let done = on_live(tree.get(), py, h, Some(CIRCLE), false, |t, h, ex| {
        let r = r.unwrap_or_else(|| t.radii(&[i64::from(h)])[0]);
        let (c, b) = circle(xy, r)?;
        t.move_to(&[i64::from(h)], &[b], Some(&[c]), ex);
        Some(())
    })?;
    Ok(done.flatten().is_some())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tree_insert_circle, m)?)?;
    m.add_function(wrap_pyfunction!(tree_move_circle, m)?)
}
