//! Ray casts (`broadphase-core`'s `rays`); swept pairs are in `crate::swept`.
//!
//! The Python layer (`_casts.py`) validates and converts every argument
//! (origins and directions finite, `max_t >= 0`, filters and `ignore` of the
//! right length and dtype); what is still checked here is what would index
//! out of bounds (lengths), so a wrong call raises `ValueError`, never a
//! panic.  The objects are scanned by the core on copies (`crate::owned`),
//! a bad row coming back as a `BadRow`; the work runs with the GIL released
//! (`crate::watch`).

use broadphase_core::check;
use broadphase_core::dim::{BallRow, Row};
use broadphase_core::par::Exec;
use broadphase_core::rays::{cast_balls, cast_boxes, Cast, Hits, Mode, Rays};
use broadphase_core::scratch::Pooled;
use numpy::ndarray::Array1;
use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::filters::{of_length, FilterArgs};
use crate::results::{bad_row, pairs_array, too_many_hits};
use crate::watch::{self, Watch};
use crate::{owned, rows, slice, Boxes};

pub(crate) type U64s<'py> = Option<PyReadonlyArray1<'py, u64>>;

pub(crate) fn copy_opt<T: Copy + Send + Sync>(
    a: Option<&[T]>,
    name: &str,
) -> PyResult<Option<Vec<T>>> {
    owned::copy_opt(a, name, &Exec::serial())
}

/// The mode named `name` (`hits=` in Python: `first`, `all`, `any`).
pub(crate) fn mode_of(name: &str) -> Option<Mode> {
    match name {
        "first" => Some(Mode::First),
        "all" => Some(Mode::All),
        "any" => Some(Mode::Any),
        _ => None,
    }
}

/// The rays of a cast, read and copied once for the static and the tree's
/// casts (the one owner of the rays' arguments in the bindings): the mode
/// by name, origins and directions of one length, `max_t` of 1 or that
/// many values, the filters and `ignore` of that many.
pub(crate) struct OwnedRays<const D: usize = 2> {
    pub mode: Mode,
    origins: Vec<[f64; D]>,
    directions: Vec<[f64; D]>,
    max_t: Vec<f64>,
    categories: Option<Vec<u64>>,
    masks: Option<Vec<u64>>,
    ignore: Option<Vec<i64>>,
}

impl<const D: usize> OwnedRays<D> {
    /// The arguments read, checked for lengths and copied (`crate::owned`).
    pub fn read(
        origins: &PyReadonlyArray2<'_, f64>,
        directions: &PyReadonlyArray2<'_, f64>,
        max_t: &PyReadonlyArray1<'_, f64>,
        mode: &str,
        ray_categories: &U64s<'_>,
        ray_masks: &U64s<'_>,
        ignore: &Option<PyReadonlyArray1<'_, i64>>,
    ) -> PyResult<Self> {
        let Some(mode) = mode_of(mode) else {
            return Err(PyValueError::new_err(format!("mode: unknown {mode:?}")));
        };
        let o = rows::<D>(origins, "origins")?;
        let d = rows::<D>(directions, "directions")?;
        let m = o.len();
        if d.len() != m {
            return Err(PyValueError::new_err(format!(
                "directions: expected {m} rows (one per origin), found {}",
                d.len()
            )));
        }
        let mt = slice(max_t, "max_t")?;
        if mt.len() != 1 && mt.len() != m {
            return Err(PyValueError::new_err(format!(
                "max_t: expected 1 or {m} values, found {}",
                mt.len()
            )));
        }
        let (rc, rm, ig) = (
            of_length(ray_categories, "ray_categories", m)?,
            of_length(ray_masks, "ray_masks", m)?,
            of_length(ignore, "ignore", m)?,
        );
        let serial = Exec::serial();
        let rays = OwnedRays {
            mode,
            origins: owned::copy(o, "origins", &serial)?,
            directions: owned::copy(d, "directions", &serial)?,
            max_t: owned::copy(mt, "max_t", &serial)?,
            categories: copy_opt(rc, "ray_categories")?,
            masks: copy_opt(rm, "ray_masks")?,
            ignore: copy_opt(ig, "ignore")?,
        };
        rays.check()?;
        Ok(rays)
    }

    /// The copies checked as the core needs them (finite origins and
    /// directions, `max_t >= 0`): the Python layer checked the caller's
    /// arrays, but another thread may have written them since.
    fn check(&self) -> PyResult<()> {
        let finite = |rows: &[[f64; D]], name: &str| match rows
            .iter()
            .position(|r| !r.iter().all(|v| v.is_finite()))
        {
            None => Ok(()),
            Some(k) => Err(PyValueError::new_err(format!(
                "{name}[{k}]: expected finite numbers, found {:?} (written during the call?)",
                rows[k]
            ))),
        };
        finite(&self.origins, "origins")?;
        finite(&self.directions, "directions")?;
        match self.max_t.iter().position(|t| t.is_nan() || *t < 0.0) {
            None => Ok(()),
            Some(k) => Err(PyValueError::new_err(format!(
                "max_t[{k}]: expected a number >= 0, found {} (written during the call?)",
                self.max_t[k]
            ))),
        }
    }

    /// The number of rays.
    pub fn len(&self) -> usize {
        self.origins.len()
    }

    /// The rays as the core reads them.
    pub fn rays(&self) -> Rays<'_, D> {
        Rays {
            origins: &self.origins,
            directions: &self.directions,
            max_t: &self.max_t,
            categories: self.categories.as_deref(),
            masks: self.masks.as_deref(),
            ignore: self.ignore.as_deref(),
        }
    }
}

/// The first hit, every hit or any hit of rays against boxes (or circles,
/// given `circles`): `(index, t)`, `(pairs, t)` or a bool array, or a
/// `BadRow` of the objects.
#[pyfunction]
#[pyo3(signature = (boxes, origins, directions, max_t, mode, *, circles=None, categories=None,
                    masks=None, ray_categories=None, ray_masks=None, ignore=None, workers=None))]
#[allow(clippy::too_many_arguments)]
pub fn cast_rays(
    py: Python<'_>,
    boxes: Option<Boxes<'_>>,
    origins: PyReadonlyArray2<'_, f64>,
    directions: PyReadonlyArray2<'_, f64>,
    max_t: PyReadonlyArray1<'_, f64>,
    mode: &str,
    circles: Option<Boxes<'_>>,
    categories: U64s<'_>,
    masks: U64s<'_>,
    ray_categories: U64s<'_>,
    ray_masks: U64s<'_>,
    ignore: Option<PyReadonlyArray1<'_, i64>>,
    workers: Option<usize>,
) -> PyResult<Py<PyAny>> {
    let width = origins.shape()[1];
    let args = CastArgs {
        boxes,
        balls: circles,
        categories,
        masks,
        workers,
    };
    if width == 3 {
        let rays = OwnedRays::<3>::read(
            &origins,
            &directions,
            &max_t,
            mode,
            &ray_categories,
            &ray_masks,
            &ignore,
        )?;
        cast_in::<6, 3, 4>(py, args, rays)
    } else {
        let rays = OwnedRays::<2>::read(
            &origins,
            &directions,
            &max_t,
            mode,
            &ray_categories,
            &ray_masks,
            &ignore,
        )?;
        cast_in::<4, 2, 3>(py, args, rays)
    }
}

/// The objects of a static cast and its settings, as given.
struct CastArgs<'py> {
    boxes: Option<Boxes<'py>>,
    balls: Option<Boxes<'py>>,
    categories: U64s<'py>,
    masks: U64s<'py>,
    workers: Option<usize>,
}

/// [`cast_rays`] of rays in `D` dimensions at boxes of `N` doubles or
/// balls of `C` (circles in 2D, spheres in 3D).
fn cast_in<const N: usize, const D: usize, const C: usize>(
    py: Python<'_>,
    args: CastArgs<'_>,
    rays: OwnedRays<D>,
) -> PyResult<Py<PyAny>>
where
    [f64; N]: Row<Axes = [f64; D]> + Pooled,
    [f64; C]: BallRow<D>,
{
    let m = rays.len();
    let circ = args
        .balls
        .as_ref()
        .map(|c| rows::<C>(c, if D == 3 { "spheres" } else { "circles" }))
        .transpose()?;
    let given = args
        .boxes
        .as_ref()
        .map(|b| rows::<N>(b, "boxes"))
        .transpose()?;
    let n = circ.map_or(given.map_or(0, <[_]>::len), <[_]>::len);
    if m.max(n) >= u32::MAX as usize {
        // the cast numbers rays and objects in 32 bits
        return Err(PyValueError::new_err(format!(
            "origins, boxes: expected fewer than 2**32 - 1 rays and objects, found {m} and {n}"
        )));
    }
    let objects = FilterArgs::of(&None, &args.categories, &args.masks, n)?;
    let ex = Exec::new(args.workers);
    let serial = Exec::serial();
    // copies of everything the core reads (`owned`)
    let circ = circ
        .map(|c| owned::copy(c, "circles", &serial))
        .transpose()?;
    let given = given
        .map(|b| owned::copy(b, "boxes", &serial))
        .transpose()?;
    let work = m.saturating_add(n);
    let result = watch::watched(py, work, &ex, Watch::Stateless, |ex| {
        let filters = objects.copy(ex)?;
        let cast = Cast {
            rays: rays.rays(),
            objects: filters.filters(),
            mode: rays.mode,
            max_hits: None,
        };
        Ok::<_, PyErr>(match (&circ, &given) {
            (Some(c), _) => match check::ball_boxes::<C, N>(c, ex) {
                Ok(b) => Ok(cast_balls(c, &b, &cast, ex)),
                Err(bad) => Err(bad),
            },
            (None, Some(b)) => match check::scan_boxes(b, ex) {
                Ok(_) => Ok(cast_boxes(b, &cast, ex)),
                Err(bad) => Err(bad),
            },
            (None, None) => Ok(cast_boxes::<N, D>(&[], &cast, ex)),
        })
    })??;
    match result {
        Err(bad) => bad_row(py, bad),
        Ok(hits) => hits_object(py, hits.map_err(too_many_hits)?),
    }
}

/// A cast's answer as Python values: `(index, t)` (intp, float64),
/// `(pairs, t)` or a bool array.
pub(crate) fn hits_object(py: Python<'_>, hits: Hits) -> PyResult<Py<PyAny>> {
    match hits {
        Hits::First { index, t } => {
            let index: Vec<isize> = index.into_iter().map(|v| v as isize).collect();
            let (a, b) = (
                Array1::from_vec(index).into_pyarray(py),
                Array1::from_vec(t).into_pyarray(py),
            );
            Ok(PyTuple::new(py, [a.into_any(), b.into_any()])?
                .into_any()
                .unbind())
        }
        Hits::All { rows, t } => {
            let pairs = pairs_array(py, rows)?;
            let t = Array1::from_vec(t).into_pyarray(py).into_any().unbind();
            Ok(PyTuple::new(py, [pairs, t])?.into_any().unbind())
        }
        Hits::Any(v) => Ok(Array1::from_vec(v).into_pyarray(py).into_any().unbind()),
    }
}

/// Register the functions in `_core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cast_rays, m)?)?;
    Ok(())
}
