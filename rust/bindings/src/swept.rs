//! Swept pairs (`broadphase-core`'s `swept`), in 2D and in 3D.
//!
//! The Python layer (`_casts.py`) validates and converts every argument;
//! what is still checked here is what would index out of bounds (lengths),
//! so a wrong call raises `ValueError`, never a panic.  The rows are
//! scanned by the core on copies (`crate::owned`), a bad row coming back
//! as a `BadRow` with the argument it is in; the work runs with the GIL
//! released (`crate::watch`).  One call, written once over the dimension:
//! the width of `start` picks it (boxes of 4 or 6 columns, balls of 3 or 4).

use broadphase_core::check::{self, BadRow};
use broadphase_core::dim::BallRow;
use broadphase_core::pairs::TooMany;
use broadphase_core::par::Exec;
use broadphase_core::scratch::Pooled;
use broadphase_core::swept::{swept_boxes, swept_circles, Motion};
use broadphase_core::Width;
use numpy::ndarray::Array1;
use numpy::{IntoPyArray, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::casts::U64s;
use crate::filters::FilterArgs;
use crate::results::{bad_row, pairs_array, too_many};
use crate::watch::{self, Watch};
use crate::{owned, rows, Boxes};

/// What a swept search gives back: the pairs and their `t`, or the
/// argument (0: start, 1: end) and its first bad row.
enum Swept {
    Pairs(Vec<isize>, Vec<f64>),
    Bad(usize, BadRow),
    TooMany(TooMany),
}

/// Pairs of boxes (`(n, 4)`, or 3D `(n, 6)`) or, with `circles=True`,
/// circles (`(n, 3)`) or spheres (`(n, 4)`) moving linearly from `start` to
/// `end` that overlap strictly during the frame: `(pairs, t)`, or
/// `(which, BadRow)` (0: `start`, 1: `end`).
#[pyfunction]
#[pyo3(signature = (start, end, *, circles=false, groups=None, categories=None, masks=None,
                    workers=None))]
#[allow(clippy::too_many_arguments)]
pub fn swept_pairs(
    py: Python<'_>,
    start: Boxes<'_>,
    end: Boxes<'_>,
    circles: bool,
    groups: Option<PyReadonlyArray1<'_, i64>>,
    categories: U64s<'_>,
    masks: U64s<'_>,
    workers: Option<usize>,
) -> PyResult<Py<PyAny>> {
    let args = SweptArgs {
        start: &start,
        end: &end,
        filters: (&groups, &categories, &masks),
        workers,
    };
    let outcome = match (circles, start.shape()[1]) {
        (true, 4) => swept_ball_rows::<4, 3, 6>(py, args)?,
        (true, _) => swept_ball_rows::<3, 2, 4>(py, args)?,
        (false, 6) => swept_box_rows::<6>(py, args)?,
        (false, _) => swept_box_rows::<4>(py, args)?,
    };
    match outcome {
        Swept::Pairs(rows, t) => {
            let pairs = pairs_array(py, rows)?;
            let t = Array1::from_vec(t).into_pyarray(py).into_any().unbind();
            Ok(PyTuple::new(py, [pairs, t])?.into_any().unbind())
        }
        Swept::Bad(which, bad) => {
            let row = bad_row(py, bad)?;
            Ok(
                PyTuple::new(py, [which.into_pyobject(py)?.into_any().unbind(), row])?
                    .into_any()
                    .unbind(),
            )
        }
        Swept::TooMany(t) => Err(too_many(t)),
    }
}

/// The arguments of a [`swept_pairs`] call, as Python gave them.
struct SweptArgs<'a, 'py> {
    start: &'a Boxes<'py>,
    end: &'a Boxes<'py>,
    filters: (
        &'a Option<PyReadonlyArray1<'py, i64>>,
        &'a U64s<'py>,
        &'a U64s<'py>,
    ),
    workers: Option<usize>,
}

/// [`swept_pairs`] of balls: rows of `C = D + 1` (circles or spheres),
/// their boxes of `N`.
fn swept_ball_rows<const C: usize, const D: usize, const N: usize>(
    py: Python<'_>,
    args: SweptArgs,
) -> PyResult<Swept>
where
    [f64; C]: BallRow<D>,
    [f64; N]: Width<N> + Pooled,
{
    let serial = Exec::serial();
    let ex = Exec::new(args.workers);
    let (s, e) = (rows::<C>(args.start, "start")?, rows::<C>(args.end, "end")?);
    same_len(s.len(), e.len())?;
    let (groups, categories, masks) = args.filters;
    let filter_args = FilterArgs::of(groups, categories, masks, s.len())?;
    owned::room_for(s.len(), "start")?;
    let (s, e) = (
        owned::copy(s, "start", &serial)?,
        owned::copy(e, "end", &serial)?,
    );
    watch::watched(py, s.len(), &ex, Watch::Stateless, |ex| {
        let f = filter_args.copy(ex)?;
        let b0 = match check::ball_boxes::<C, N>(&s, ex) {
            Ok(b) => b,
            Err(bad) => return Ok(Swept::Bad(0, bad)),
        };
        let b1 = match check::ball_boxes::<C, N>(&e, ex) {
            Ok(b) => b,
            Err(bad) => return Ok(Swept::Bad(1, bad)),
        };
        let m = Motion {
            start: &s,
            end: &e,
            filters: f.filters(),
        };
        Ok::<_, PyErr>(finish(swept_circles(&m, [&b0, &b1], ex)))
    })?
}

/// [`swept_pairs`] of boxes: rows of `N` (2D or 3D).
fn swept_box_rows<const N: usize>(py: Python<'_>, args: SweptArgs) -> PyResult<Swept>
where
    [f64; N]: Width<N> + Pooled,
{
    let ex = Exec::new(args.workers);
    let (s, e) = (rows::<N>(args.start, "start")?, rows::<N>(args.end, "end")?);
    same_len(s.len(), e.len())?;
    let (groups, categories, masks) = args.filters;
    let filter_args = FilterArgs::of(groups, categories, masks, s.len())?;
    owned::room_for(s.len(), "start")?;
    watch::watched(py, s.len(), &ex, Watch::Stateless, |ex| {
        // copies (`owned`) from the pool, in parallel, as `find_pairs` makes
        let f = filter_args.copy(ex)?;
        let (s, e) = (
            owned::copy_pooled(s, "start", ex)?,
            owned::copy_pooled(e, "end", ex)?,
        );
        let mut out = None;
        for (k, b) in [&s, &e].into_iter().enumerate() {
            if let Err(bad) = check::scan_boxes(b, ex) {
                out = Some(Swept::Bad(k, bad));
                break;
            }
        }
        let out = out.unwrap_or_else(|| {
            let m = Motion {
                start: &s,
                end: &e,
                filters: f.filters(),
            };
            finish(swept_boxes(&m, ex))
        });
        broadphase_core::scratch::give(s);
        broadphase_core::scratch::give(e);
        Ok::<_, PyErr>(out)
    })?
}

fn same_len(a: usize, b: usize) -> PyResult<()> {
    if a != b {
        return Err(PyValueError::new_err(format!(
            "end: expected {a} rows (one per start row), found {b}"
        )));
    }
    Ok(())
}

fn finish(r: Result<(Vec<isize>, Vec<f64>), TooMany>) -> Swept {
    match r {
        Ok((rows, t)) => Swept::Pairs(rows, t),
        Err(t) => Swept::TooMany(t),
    }
}

/// Register the functions in `_core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(swept_pairs, m)?)?;
    Ok(())
}
