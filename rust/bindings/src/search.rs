//! The one-call searches: every colliding pair of boxes, circles or
//! spheres, in an open domain or a periodic one, and on request the
//! pairs' distances and vectors (balls).

use crate::filters::FilterArgs;
use crate::results::{bad_row, pairs_array, too_many, values_array};
use crate::watch::{self, Watch};
use crate::{method, owned, rows, Boxes};
use broadphase_core::check::{self, BadRow};
use broadphase_core::pairs::TooMany;
use broadphase_core::par::Exec;
use broadphase_core::periodic::{find_periodic_pairs, measure, Domain, Lattice, Periodic, Refused};
use broadphase_core::scratch::Pooled;
use broadphase_core::{Method, Narrow, Search, Shapes};
use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// What a search gives back across the boundary: its pairs, with their
/// distances and vectors when asked for (balls), flat.
enum Outcome {
    Pairs(Vec<isize>, Option<Vec<f64>>, Option<Vec<f64>>),
    Bad(BadRow),
    TooMany(TooMany),
}

/// A measure of the pairs of a search of balls ([`measure::distances`],
/// [`measure::vectors`]).
type Measure<const C: usize> = fn(&[[f64; C]], Domain, &[isize], &Exec) -> Vec<f64>;

/// `measure` bit: the distances of the pairs.
const DISTANCES: u8 = 1;
/// `measure` bit: the vectors of the pairs.
const VECTORS: u8 = 2;

impl From<BadRow> for Outcome {
    fn from(b: BadRow) -> Self {
        Outcome::Bad(b)
    }
}

/// Every colliding pair of boxes (or of circles, given `circles`), canonical:
/// 2D boxes `(n, 4)` and circles `x, y, r` `(n, 3)`, or 3D boxes `(n, 6)`
/// and spheres `x, y, z, r` `(n, 4)`.
///
/// `period`: one value per axis, the domain's period there (infinite: an
/// open axis); or `lattice`: a triclinic cell, its vectors as the rows of
/// a `(D, D)` lower-triangular matrix; `measure` (balls only): bit 1 the distances, bit 2 the
/// vectors of the pairs, minimum image.
///
/// Returns a `(k, 2)` intp array (with `measure`: a tuple of it, the
/// distances `(k,)` or None, the vectors `(k, D)` or None), or a `BadRow`
/// for the first bad row (a code `X_WIDE`, ... for an object wider than
/// half the period, `FAR` for one too far from a triclinic cell).
#[pyfunction]
#[pyo3(signature = (boxes, method_name, *, circles=None, groups=None, categories=None,
                    masks=None, workers=None, max_pairs=None, period=None, lattice=None,
                    measure=0))]
#[allow(clippy::too_many_arguments)]
pub fn find_pairs(
    py: Python<'_>,
    boxes: Option<Boxes<'_>>,
    method_name: &str,
    circles: Option<Boxes<'_>>,
    groups: Option<PyReadonlyArray1<'_, i64>>,
    categories: Option<PyReadonlyArray1<'_, u64>>,
    masks: Option<PyReadonlyArray1<'_, u64>>,
    workers: Option<usize>,
    max_pairs: Option<u64>,
    period: Option<PyReadonlyArray1<'_, f64>>,
    lattice: Option<PyReadonlyArray2<'_, f64>>,
    measure: u8,
) -> PyResult<Py<PyAny>> {
    let lattice = lattice.map(|l| cell(&l)).transpose()?;
    let period = period
        .map(|p| p.as_slice().map(<[f64]>::to_vec))
        .transpose()?;
    if let Some(p) = &period {
        if !p.iter().all(|&l| l > 0.0) {
            return Err(PyValueError::new_err(
                "period: expected lengths > 0 (inf: open)",
            ));
        }
    }
    if measure != 0 && circles.is_none() {
        return Err(PyValueError::new_err(
            "measure: distances and vectors are of balls",
        ));
    }
    let args = SearchArgs {
        method: method(method_name)?,
        boxes: boxes.as_ref(),
        circles: circles.as_ref(),
        filters: (&groups, &categories, &masks),
        workers,
        max_pairs,
        period,
        lattice,
        measure,
    };
    let three = match (&circles, &boxes) {
        (Some(c), _) => c.shape()[1] == 4,
        (None, Some(b)) => b.shape()[1] == 6,
        (None, None) => false,
    };
    if !three {
        return search_rows::<4, 3>(py, args, |c| Shapes::Circles(c));
    }
    search_rows::<6, 4>(py, args, |c| Shapes::Spheres(c))
}

/// `groups`, `categories` and `masks`, as Python gave them.
type FilterArrays<'a, 'py> = (
    &'a Option<PyReadonlyArray1<'py, i64>>,
    &'a Option<PyReadonlyArray1<'py, u64>>,
    &'a Option<PyReadonlyArray1<'py, u64>>,
);

/// The arguments of a [`find_pairs`] call, as Python gave them.
struct SearchArgs<'a, 'py> {
    method: Method,
    boxes: Option<&'a Boxes<'py>>,
    circles: Option<&'a Boxes<'py>>,
    filters: FilterArrays<'a, 'py>,
    workers: Option<usize>,
    max_pairs: Option<u64>,
    period: Option<Vec<f64>>,
    lattice: Option<Lattice>,
    measure: u8,
}

/// The triclinic cell of the rows of `l`, validated.
fn cell(l: &PyReadonlyArray2<'_, f64>) -> PyResult<Lattice> {
    let shape = l.shape();
    if shape[0] != shape[1] || !matches!(shape[0], 2 | 3) {
        return Err(PyValueError::new_err(format!(
            "period: expected a (2, 2) or (3, 3) matrix of cell vectors, found {shape:?}"
        )));
    }
    let a = l.as_array();
    let rows: Vec<Vec<f64>> = a.rows().into_iter().map(|r| r.to_vec()).collect();
    let rows: Vec<&[f64]> = rows.iter().map(Vec::as_slice).collect();
    Lattice::new(&rows).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// [`find_pairs`] at one dimension: boxes of `N` columns, balls of `C`
/// (`balls` their shapes for the narrow phase).
fn search_rows<const N: usize, const C: usize>(
    py: Python<'_>,
    args: SearchArgs,
    balls: for<'s> fn(&'s [[f64; C]]) -> Shapes<'s>,
) -> PyResult<Py<PyAny>>
where
    [f64; N]: Periodic<N> + Pooled,
    [f64; C]: Pooled,
{
    if args.period.as_ref().is_some_and(|p| p.len() != N / 2)
        || args.lattice.is_some_and(|l| l.dims() != N / 2)
    {
        return Err(PyValueError::new_err(format!(
            "period: expected {} values, one per axis, or a ({0}, {0}) cell",
            N / 2
        )));
    }
    let domain = match (&args.period, &args.lattice) {
        (Some(p), _) => Some(Domain::Axes(p)),
        (None, Some(l)) => Some(Domain::Lattice(l)),
        (None, None) => None,
    };
    let circ = args.circles.map(|c| rows::<C>(c, "circles")).transpose()?;
    let given = args.boxes.map(|b| rows::<N>(b, "boxes")).transpose()?;
    let n = circ.map_or(given.map_or(0, <[_]>::len), <[_]>::len);
    let (groups, categories, masks) = args.filters;
    let filter_args = FilterArgs::of(groups, categories, masks, n)?;
    owned::room_for(n, if circ.is_some() { "circles" } else { "boxes" })?;
    let ex = Exec::new(args.workers);
    let result = watch::watched(py, n, &ex, Watch::Stateless, |ex| {
        // Only copies are read from here on (`owned`).
        let filters = filter_args.copy(ex)?;
        let circ = circ
            .map(|c| owned::copy_pooled(c, "circles", ex))
            .transpose()?;
        // the boxes searched and their bounds: the balls' bounding boxes,
        // or a copy of the boxes, scanned
        let (owned, bounds) = match (&circ, given) {
            (Some(c), _) => match check::ball_boxes::<C, N>(c, ex) {
                Ok(b) => {
                    let bounds = check::bounds_of(&b);
                    (b, bounds)
                }
                Err(bad) => return Ok(bad.into()),
            },
            (None, Some(b)) => {
                let b = owned::copy_pooled(b, "boxes", ex)?;
                match check::scan_boxes(&b, ex) {
                    Ok(bounds) => (b, bounds),
                    Err(bad) => return Ok(bad.into()),
                }
            }
            (None, None) => (Vec::new(), [0.0; N]),
        };
        let search = Search {
            boxes: &owned,
            bounds,
            narrow: Narrow {
                shapes: circ.as_deref().map_or(Shapes::Boxes, balls),
                filters: filters.filters(),
            },
            method: args.method,
            max_pairs: args.max_pairs,
        };
        let found = match domain {
            Some(d) => find_periodic_pairs(&search, d, ex),
            None => broadphase_core::find_pairs(&search, ex).map_err(Refused::TooMany),
        };
        broadphase_core::scratch::give(owned);
        let flat = match found {
            Ok(flat) => flat,
            Err(Refused::TooMany(t)) => return Ok(Outcome::TooMany(t)),
            Err(Refused::Bad(b)) => return Ok(Outcome::Bad(b)),
        };
        let open = vec![f64::INFINITY; N / 2];
        let domain = domain.unwrap_or(Domain::Axes(&open));
        let of = |bit: u8, f: Measure<C>| {
            circ.as_deref()
                .filter(|_| args.measure & bit != 0)
                .map(|c| f(c, domain, &flat, ex))
        };
        let (d, v) = (
            of(DISTANCES, measure::distances),
            of(VECTORS, measure::vectors),
        );
        if let Some(c) = circ {
            broadphase_core::scratch::give(c);
        }
        Ok::<_, PyErr>(Outcome::Pairs(flat, d, v))
    })??;
    match result {
        Outcome::Pairs(flat, None, None) if args.measure == 0 => pairs_array(py, flat),
        Outcome::Pairs(flat, d, v) => {
            let pairs = pairs_array(py, flat)?;
            let d = d.map(|d| values_array(py, d, 1)).transpose()?;
            let v = v.map(|v| values_array(py, v, N / 2)).transpose()?;
            Ok(PyTuple::new(py, [Some(pairs), d, v])?.into_any().unbind())
        }
        Outcome::Bad(b) => bad_row(py, b),
        Outcome::TooMany(t) => Err(too_many(t)),
    }
}
