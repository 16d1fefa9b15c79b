//! `read_rects`: many sprites' pygame rects read in one compiled pass, as
//! `broadphase._rects` reads them in Python (the one owner of that rule).
//!
//! # What is read, and how
//! For each object, its attribute `attr` (an interned name: `rect`, or the
//! private `_Sprite__rect` behind pygame's `Sprite.rect` property), which
//! must be a pygame-ce `Rect` or `FRect` (or a subclass).  Its four fields
//! are read from the C struct pygame-ce documents in its public C API
//! (`src_c/include/_pygame.h`, `docs/reST/c_api/rect.rst`):
//!
//! ```c
//! typedef struct { PyObject_HEAD SDL_Rect r;  PyObject *weakreflist; } pgRectObject;
//! typedef struct { PyObject_HEAD SDL_FRect r; PyObject *weakreflist; } pgFRectObject;
//! ```
//!
//! with `SDL_Rect` four C `int`s and `SDL_FRect` four `float`s
//! (`x, y, w, h`).  The read is guarded: the object's type must be the
//! type `pygame.Rect` (or `FRect`) or a subtype by `PyType_IsSubtype` (a
//! subtype's instances start with their base's struct; `__class__` cannot
//! fake it), and once per process [`Layout::load`] checks that the types'
//! `__basicsize__` covers the struct and that a sample of each reads back
//! as its own `x, y, w, h`.  If any check fails the fast path is off and
//! every call returns `None`.
//!
//! # The rule (as `_rects.boxes`)
//! Corners as `colliderect` sees them: `min(x, x + w) .. max(x, x + w)` per
//! axis, `x + w` exact for a `Rect` (C ints, in float64) and summed in
//! float32 for an `FRect`; zero width or height, or NaN, is the point
//! `FAR` (collides with nothing).
//!
//! # One rule for what is read here
//! Anything else (a missing attribute, another type, an `FRect` reaching
//! infinity) makes the call return `None` having read nothing for the
//! caller, which then takes the Python path: it reads everything else and
//! words every error, naming the sprite.

use numpy::ndarray::{Array1, Array2};
use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyString, PyTuple, PyType};

use crate::{rows, slice};

/// The point that stands for a rect colliding with nothing (`_rects.FAR`).
pub const FAR: f64 = -3e300;

/// pygame-ce's `pgRectObject` up to its rect.
#[repr(C)]
struct PgRect {
    head: ffi::PyObject,
    r: [i32; 4],
}

/// pygame-ce's `pgFRectObject` up to its rect.
#[repr(C)]
struct PgFRect {
    head: ffi::PyObject,
    r: [f32; 4],
}

/// `pygame.Rect` and `pygame.FRect`, checked to have the documented layout.
struct Layout {
    rect: Py<PyType>,
    frect: Py<PyType>,
}

static LAYOUT: PyOnceLock<Option<Layout>> = PyOnceLock::new();

impl Layout {
    /// The checked layout, or `None` (pygame missing, or not as documented).
    fn get(py: Python<'_>) -> Option<&Layout> {
        LAYOUT
            .get_or_init(py, || Layout::load(py).ok().flatten())
            .as_ref()
    }

    fn load(py: Python<'_>) -> PyResult<Option<Layout>> {
        let module = py.import("pygame.rect")?;
        let rect = module.getattr("Rect")?.cast_into::<PyType>()?;
        let frect = module.getattr("FRect")?.cast_into::<PyType>()?;
        let size =
            |t: &Bound<'_, PyType>| -> PyResult<usize> { t.getattr("__basicsize__")?.extract() };
        if size(&rect)? < std::mem::size_of::<PgRect>()
            || size(&frect)? < std::mem::size_of::<PgFRect>()
        {
            return Ok(None);
        }
        let layout = Layout {
            rect: rect.clone().unbind(),
            frect: frect.clone().unbind(),
        };
        // a sample of each, read both ways
        for (t, v) in [
            (&rect, [3.0, -5.0, 7.0, -11.0]),
            (&frect, [1.5, -2.25, 3.0, -4.5]),
        ] {
            let sample = t.call1((v[0], v[1], v[2], v[3]))?;
            let mut attrs = [0.0; 4];
            for (a, name) in attrs.iter_mut().zip(["x", "y", "w", "h"]) {
                *a = sample.getattr(name)?.extract()?;
            }
            if layout.fields(&sample) != Some(attrs) || attrs != v {
                return Ok(None);
            }
        }
        Ok(Some(layout))
    }

    /// `x, y, w, h` of a `Rect` or `FRect` (or a subtype's instance).
    fn fields(&self, r: &Bound<'_, PyAny>) -> Option<[f64; 4]> {
        Some(match self.kind(r)? {
            Kind::Rect(v) => v.map(f64::from),
            Kind::FRect(v) => v.map(f64::from),
        })
    }

    fn kind(&self, r: &Bound<'_, PyAny>) -> Option<Kind> {
        let t = r.get_type_ptr();
        let is = |base: &Py<PyType>| {
            let b = base.as_ptr().cast::<ffi::PyTypeObject>();
            // SAFETY: both are live type objects (the GIL is held)
            t == b || unsafe { ffi::PyType_IsSubtype(t, b) } != 0
        };
        // SAFETY: the type checks above: `r` starts with the documented
        // struct, whose size `load` checked against `__basicsize__`
        if is(&self.rect) {
            Some(Kind::Rect(unsafe { (*r.as_ptr().cast::<PgRect>()).r }))
        } else if is(&self.frect) {
            Some(Kind::FRect(unsafe { (*r.as_ptr().cast::<PgFRect>()).r }))
        } else {
            None
        }
    }
}

enum Kind {
    Rect([i32; 4]),
    FRect([f32; 4]),
}

/// A `Rect`'s corners as `colliderect` sees them.
fn rect_box([x, y, w, h]: [i32; 4]) -> [f64; 4] {
    if w == 0 || h == 0 {
        return [FAR; 4];
    }
    let (x, y) = (f64::from(x), f64::from(y));
    let (xe, ye) = (x + f64::from(w), y + f64::from(h)); // exact: below 2**33
    [x.min(xe), y.min(ye), x.max(xe), y.max(ye)]
}

/// An `FRect`'s corners (`x + w` in float32, as pygame sums it), or `None`
/// for one reaching infinity.
fn frect_box([x, y, w, h]: [f32; 4]) -> Option<[f64; 4]> {
    if w == 0.0 || h == 0.0 {
        return Some([FAR; 4]);
    }
    let (xe, ye) = (f64::from(x + w), f64::from(y + h));
    let (x, y) = (f64::from(x), f64::from(y));
    if [x, y, xe, ye].iter().any(|v| v.is_nan()) {
        return Some([FAR; 4]);
    }
    let b = [x.min(xe), y.min(ye), x.max(xe), y.max(ye)];
    b.iter().all(|v| v.is_finite()).then_some(b)
}

/// The corners of `sprites[k].<attr>` for every `k`, or `None`.
pub(crate) fn read(
    sprites: &Bound<'_, PyList>,
    attr: &Bound<'_, PyString>,
) -> Option<Vec<[f64; 4]>> {
    let layout = Layout::get(sprites.py())?;
    let mut out = Vec::with_capacity(sprites.len());
    for k in 0..sprites.len() {
        // a property may change the list: read what is there, bounds checked
        let r = sprites.get_item(k).ok()?.getattr(attr).ok()?;
        out.push(match layout.kind(&r)? {
            Kind::Rect(v) => rect_box(v),
            Kind::FRect(v) => frect_box(v)?,
        });
    }
    (out.len() == sprites.len()).then_some(out)
}

/// The `(n, 4)` float64 corners of each sprite's rect (see the module's
/// doc), or `None` when one is not read here (the caller's Python path
/// then reads them and words the error).
///
/// Given `handles` (int64, one per sprite) and `box_at` (`(m, 4)` float64,
/// row `handles[k]` the box last read for sprite `k`), returns
/// `(boxes, changed, after)`: also the int64 positions `k` whose box
/// differs (float64 `!=`), and `box_at` with those rows replaced: a new
/// array, or `box_at` itself when none differs (it is never written).
#[pyfunction]
#[pyo3(signature = (sprites, attr, handles=None, box_at=None))]
pub fn read_rects(
    py: Python<'_>,
    sprites: &Bound<'_, PyList>,
    attr: &Bound<'_, PyString>,
    handles: Option<PyReadonlyArray1<'_, i64>>,
    box_at: Option<PyReadonlyArray2<'_, f64>>,
) -> PyResult<Py<PyAny>> {
    let Some(boxes) = read(sprites, attr) else {
        return Ok(py.None());
    };
    let diff = match (&handles, &box_at) {
        (Some(h), Some(b)) => Some(Diff::of(
            &boxes,
            slice(h, "handles")?,
            rows::<4>(b, "box_at")?,
        )?),
        (None, None) => None,
        _ => {
            return Err(PyValueError::new_err(
                "handles, box_at: expected both or neither",
            ))
        }
    };
    let arr = array(py, boxes)?;
    let Some(diff) = diff else {
        return Ok(arr.unbind());
    };
    let after = match diff.after {
        Some(a) => array(py, a)?,
        None => box_at
            .as_ref()
            .map_or_else(|| py.None().into_bound(py), |b| b.as_any().clone()),
    };
    let changed = Array1::from_vec(diff.changed).into_pyarray(py).into_any();
    Ok(PyTuple::new(py, [arr, changed, after])?.into_any().unbind())
}

/// `(n, 4)` rows as a float64 array.
pub(crate) fn array(py: Python<'_>, rows: Vec<[f64; 4]>) -> PyResult<Bound<'_, PyAny>> {
    let n = rows.len();
    Ok(Array2::from_shape_vec((n, 4), rows.into_flattened())
        .map_err(|e| PyValueError::new_err(format!("boxes: {e}")))?
        .into_pyarray(py)
        .into_any())
}

/// Which rows changed, and the rows by handle after the change.
pub(crate) struct Diff {
    /// Positions `k` where `boxes[k] != box_at[handles[k]]`.
    pub changed: Vec<i64>,
    /// A copy of `box_at` with those rows replaced; `None` if none changed.
    pub after: Option<Vec<[f64; 4]>>,
}

impl Diff {
    /// The rows of `boxes` (sprite `k`'s box) that differ from
    /// `box_at[handles[k]]`, and `box_at` after; `ValueError` naming a
    /// handle that is no row of `box_at`, or lengths that differ.
    pub fn of(boxes: &[[f64; 4]], handles: &[i64], box_at: &[[f64; 4]]) -> PyResult<Diff> {
        if handles.len() != boxes.len() {
            return Err(PyValueError::new_err(format!(
                "handles: expected {} (one per sprite), found {}",
                boxes.len(),
                handles.len()
            )));
        }
        let mut changed = Vec::new();
        for (k, (&h, b)) in handles.iter().zip(boxes).enumerate() {
            let Some(was) = usize::try_from(h).ok().and_then(|h| box_at.get(h)) else {
                return Err(PyValueError::new_err(format!(
                    "handles[{k}]: expected a row of box_at (0 <= h < {}), found {h}",
                    box_at.len()
                )));
            };
            if b != was {
                changed.push(k as i64);
            }
        }
        let after = (!changed.is_empty()).then(|| {
            let mut after = box_at.to_vec();
            for &k in &changed {
                after[handles[k as usize] as usize] = boxes[k as usize];
            }
            after
        });
        Ok(Diff { changed, after })
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(read_rects, m)?)?;
    m.add("RECT_FAR", FAR)
}
