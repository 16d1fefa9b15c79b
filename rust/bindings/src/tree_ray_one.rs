//! A few rays of `LinearQuadtree.cast_rays` read from Python numbers: what
//! a game asks for a line of sight or a shot, with no NumPy array on the
//! way in (`crate::tree_one`'s rule for what is read here).
//!
//! Read here: `origins` and `directions` a `tuple` or `list` of one to
//! [`FEW`] pairs (each a `tuple` or `list` of two finite numbers, as
//! `crate::tree_one` reads numbers), of the same length; `max_t` a `float`
//! that is not NaN and `>= 0` (`inf` allowed) or an `int` `>= 0` that float64
//! holds exactly; `hits` one of its three names (a `str`); `ignore` `None`
//! or one integer `>= -1` for every ray; no rays' categories or masks; and
//! a cast that walks the tree's own cells (few short rays: a cast that
//! would build a grid over every object is long, and takes the full path,
//! on the tree's threads with Ctrl-C watched).  Anything else returns `None` having done
//! nothing, and the Python layer takes its full path, which reads
//! everything else and words every error.  The answers are the full
//! path's.

use broadphase_core::rays::Rays;
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyString};

use crate::casts::{hits_object, mode_of};
use crate::results::too_many_hits;
use crate::tree::PyTree;
use crate::tree_one::{integer, items, number, pair, run};

/// Most rays read here.
const FEW: usize = 16;

/// Pairs of a sequence of at most [`FEW`].
fn pairs(v: &Bound<'_, PyAny>) -> Option<Vec<[f64; 2]>> {
    items(v, FEW)?.iter().map(pair).collect()
}

/// `max_t`: a float, not NaN, `>= 0`, or an exact integer `>= 0`.
fn max_t_of(v: &Bound<'_, PyAny>) -> Option<f64> {
    let s = match v.cast::<PyFloat>() {
        Ok(f) => f.value(),
        Err(_) => number(v)?,
    };
    (s >= 0.0).then_some(s)
}

/// `tree.cast_rays(origins, directions, max_t=..., hits=mode, ignore=...)`
/// of rays read directly: the full path's answer, or `None` (see the
/// module's doc).
#[pyfunction]
pub fn tree_cast_few(
    py: Python<'_>,
    tree: &Bound<'_, PyTree>,
    origins: &Bound<'_, PyAny>,
    directions: &Bound<'_, PyAny>,
    max_t: &Bound<'_, PyAny>,
    mode: &Bound<'_, PyAny>,
    ignore: &Bound<'_, PyAny>,
) -> PyResult<Option<Py<PyAny>>> {
    let Ok(mode) = mode.cast_exact::<PyString>() else {
        return Ok(None);
    };
    let Some(mode) = mode.to_str().ok().and_then(mode_of) else {
        return Ok(None);
    };
    let (Some(o), Some(d), Some(s)) = (pairs(origins), pairs(directions), max_t_of(max_t)) else {
        return Ok(None);
    };
    let ignore: Option<Vec<i64>> = if ignore.is_none() {
        None
    } else {
        match integer(ignore) {
            Some(h) if h >= -1 => Some(vec![h; o.len()]),
            _ => return Ok(None),
        }
    };
    if o.is_empty() || o.len() != d.len() {
        return Ok(None);
    }
    let max_t = [s];
    let rays = Rays {
        origins: &o,
        directions: &d,
        max_t: &max_t,
        categories: None,
        masks: None,
        ignore: ignore.as_deref(),
    };
    // only a cast that walks the tree's cells is short; one that would grid
    // every object takes the full path, with the tree's threads and Ctrl-C
    let hits = run(tree.get(), py, true, |t, ex| {
        t.cast_walking(&rays, mode, ex)
    })?;
    let Some(hits) = hits else {
        return Ok(None);
    };
    Ok(Some(hits_object(py, hits.map_err(too_many_hits)?)?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tree_cast_few, m)?)
}
