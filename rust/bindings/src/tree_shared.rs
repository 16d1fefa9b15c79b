//! The calls of a moving tree in either dimension, written once: a tree of
//! rows `N` wide behind its lock ([`Shared`]), each call as the Python
//! classes `_core.Tree` (2D, [`crate::tree::PyTree`]) and `_core.Tree3`
//! (3D, [`crate::octree::PyTree3`]) take it, which only hand their
//! arguments down.
//!
//! One call at a time: each call tries the lock and, finding it taken (a
//! call of another thread is running, with the GIL released), raises
//! `RuntimeError` ([`IN_USE`]) at once; nothing ever waits for it, so a
//! `fork()` during a call leaves the child an error, never a hang.  A lock
//! poisoned by an unwind (a stopped call, see `crate::watch`) is taken as
//! it is: the tree's steps leave it valid when they unwind.

use broadphase_core::check;
use broadphase_core::lists::CellLists;
use broadphase_core::morton;
use broadphase_core::narrow::CIRCLE;
use broadphase_core::par::Exec;
use broadphase_core::scratch::Pooled;
use broadphase_core::tree::{max_depth, BallOf, Policy, Tree, TreeRow};
use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::exceptions::{PyKeyError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::sync::{Mutex, MutexGuard, TryLockError};

use crate::filters::FilterArgs;
use crate::results::BadRow;
use crate::tree_values::{kind_of, MoveRows, Problem, TreeStats};
use crate::watch::{watched, Watch};
use crate::{owned, rows, slice, too_many, Boxes};

/// What a call says when the tree is in use by another thread's call.
pub const IN_USE: &str = "LinearQuadtree: in use by another thread (a call is running); \
                          a tree is not shared between threads without a lock";

/// A tree and its settings, behind [`Shared`]'s lock.
pub(crate) struct State<const N: usize = 4>
where
    [f64; N]: TreeRow<N>,
{
    pub inner: Tree<N>,
    /// Threads of the searches (`None`: all).
    pub workers: Option<usize>,
}

/// A tree of rows `N` wide behind its lock, and its calls.
pub(crate) struct Shared<const N: usize = 4>
where
    [f64; N]: TreeRow<N>,
{
    state: Mutex<State<N>>,
}

fn handles_array(py: Python<'_>, h: Vec<u32>) -> Py<PyAny> {
    let v: Vec<isize> = h.into_iter().map(|x| x as isize).collect();
    v.into_pyarray(py).into_any().unbind()
}

fn packed_array(py: Python<'_>, packed: &[u64]) -> PyResult<Py<PyAny>> {
    crate::pairs_array(py, broadphase_core::pairs::concatenate(&[packed]))
}

impl<const N: usize> Shared<N>
where
    [f64; N]: TreeRow<N> + Pooled,
{
    /// A tree holding `inner`.
    pub fn of(inner: Tree<N>, workers: Option<usize>) -> Self {
        Shared {
            state: Mutex::new(State { inner, workers }),
        }
    }

    /// An empty tree (arguments validated by the caller; the range checked
    /// again, and the room its list heads take).
    pub fn new(
        bounds: [f64; N],
        depth: u32,
        margin: f64,
        workers: Option<usize>,
    ) -> PyResult<Self> {
        if depth > max_depth(N) || margin.is_nan() || margin < 0.0 {
            return Err(PyValueError::new_err("depth or margin out of range"));
        }
        // the list heads of all levels, 0 to depth
        let cells = morton::level_start_in::<[f64; N]>(depth + 1);
        let bytes = cells.saturating_mul(CellLists::<N>::BYTES_PER_CELL as u64);
        owned::room_for_bytes(bytes, "depth", &format!("a tree of depth {depth}"))?;
        Ok(Shared::of(Tree::new(bounds, depth, margin), workers))
    }

    /// The tree for this call, or the error saying it is in use.
    pub fn lock(&self) -> PyResult<MutexGuard<'_, State<N>>> {
        match self.state.try_lock() {
            Ok(g) => Ok(g),
            Err(TryLockError::Poisoned(p)) => Ok(p.into_inner()),
            Err(TryLockError::WouldBlock) => Err(PyRuntimeError::new_err(IN_USE)),
        }
    }

    /// The tree for a call about the live object `h`, or `KeyError`.
    pub fn live(&self, h: u32) -> PyResult<MutexGuard<'_, State<N>>> {
        let guard = self.lock()?;
        if !guard.inner.contains(h as u64) {
            return Err(PyKeyError::new_err(format!(
                "handle {h}: not in the tree (removed or never inserted)"
            )));
        }
        Ok(guard)
    }

    /// An independent copy: the same objects, handles, kept pairs and settings.
    pub fn copy(&self) -> PyResult<Self> {
        let st = self.lock()?;
        Ok(Shared::of(st.inner.clone(), st.workers))
    }

    /// Add validated boxes (with `balls`: balls of `B = N / 2 + 1` values,
    /// `boxes` their bounding boxes) and their filters; their handles, or
    /// a `BadRow` if a row changed since the caller checked it.
    #[allow(clippy::too_many_arguments)] // a Python call's arguments, handed down
    pub fn insert<const B: usize>(
        &self,
        py: Python<'_>,
        boxes: Boxes<'_>,
        balls: Option<Boxes<'_>>,
        groups: Option<PyReadonlyArray1<'_, i64>>,
        categories: Option<PyReadonlyArray1<'_, u64>>,
        masks: Option<PyReadonlyArray1<'_, u64>>,
        name: &str,
    ) -> PyResult<Py<PyAny>>
    where
        BallOf<N>: From<[f64; B]>,
    {
        let b = rows::<N>(&boxes, "boxes")?;
        let n = b.len();
        let c = match &balls {
            Some(c) => Some(rows::<B>(c, name)?),
            None => None,
        };
        if c.is_some_and(|c| c.len() != n) {
            return Err(PyValueError::new_err(format!(
                "insert: {name} and boxes of different lengths"
            )));
        }
        let filter_args = FilterArgs::of(&groups, &categories, &masks, n)?;
        owned::room_for(n, "boxes")?;
        let mut guard = self.lock()?;
        let st = &mut *guard;
        let inner = &mut st.inner;
        let ex = Exec::new(st.workers);
        let h = watched(py, n, &ex, Watch::Committing, |ex| {
            // Only copies are read from here on (`owned`).
            let b = owned::copy(b, "boxes", ex)?;
            let c = owned::copy_opt(c, name, ex)?;
            let c: Option<Vec<BallOf<N>>> = c.map(|c| c.into_iter().map(Into::into).collect());
            let filters = filter_args.copy(ex)?;
            // checked again on the copy: the caller's rows may have changed
            // since the caller checked them
            if let Err(bad) = check::scan_boxes(&b, &ex.for_work(n, 1 << 16)) {
                return Ok(Err(BadRow::from(bad)));
            }
            Ok::<_, PyErr>(Ok(inner.insert(&b, c.as_deref(), filters.attrs(), ex)))
        })??;
        match h {
            Ok(h) => Ok(handles_array(py, h)),
            Err(bad) => Ok(Bound::new(py, bad)?.into_any().unbind()),
        }
    }

    /// Check handles: live, each once, of shape `kind` (0 box, 1 ball, -1 any).
    pub fn check(
        &self,
        handles: PyReadonlyArray1<'_, i64>,
        kind: i32,
    ) -> PyResult<Option<Problem>> {
        let mut guard = self.lock()?;
        let h = owned::copy(slice(&handles, "handles")?, "handles", &Exec::serial())?;
        Ok(guard
            .inner
            .check_handles(&h, kind_of(kind))
            .err()
            .map(Problem::from))
    }

    /// New rows of `W` floats for objects of their kind ([`MoveRows`]),
    /// checked, then stored, or nothing changes.
    pub fn move_rows<const W: usize>(
        &self,
        py: Python<'_>,
        handles: PyReadonlyArray1<'_, i64>,
        given: Boxes<'_>,
    ) -> PyResult<Option<Problem>>
    where
        [f64; W]: MoveRows<N>,
    {
        let h = slice(&handles, "handles")?;
        let r = rows::<W>(&given, <[f64; W]>::NAME)?;
        if h.len() != r.len() {
            let method = <[f64; W]>::METHOD;
            return Err(PyValueError::new_err(format!("{method}: lengths differ")));
        }
        let mut guard = self.lock()?;
        let st = &mut *guard;
        let inner = &mut st.inner;
        let ex = Exec::new(st.workers);
        watched(py, h.len(), &ex, Watch::Committing, |ex| {
            // The checks' safety arguments (live handles, each once; finite
            // rows) hold for what is stored only if nothing changes in
            // between: only copies are read from here on (`owned`).
            let (h, r) = (owned::copy(h, "handles", ex)?, <[f64; W]>::copy(r, ex)?);
            if let Err(e) = inner.check_handles(&h, Some(<[f64; W]>::KIND)) {
                return Ok(Some(e.into()));
            }
            Ok(<[f64; W]>::store(inner, &h, r, ex).err().map(Problem::from))
        })?
    }

    /// Take objects out (checked first).
    pub fn remove(&self, handles: PyReadonlyArray1<'_, i64>) -> PyResult<Option<Problem>> {
        let mut guard = self.lock()?;
        let h = owned::copy(slice(&handles, "handles")?, "handles", &Exec::serial())?;
        if let Err(e) = guard.inner.check_handles(&h, None) {
            return Ok(Some(e.into()));
        }
        guard.inner.remove(&h);
        Ok(None)
    }

    /// Radii of ball objects (handles checked here, on a copy: the
    /// caller's array may have changed since it checked them).
    pub fn radii(&self, py: Python<'_>, handles: PyReadonlyArray1<'_, i64>) -> PyResult<Py<PyAny>> {
        let mut guard = self.lock()?;
        let h = owned::copy(slice(&handles, "handles")?, "handles", &Exec::serial())?;
        if guard.inner.check_handles(&h, Some(CIRCLE)).is_err() {
            return Err(PyValueError::new_err(
                "handles: changed while in use, or not live circles",
            ));
        }
        Ok(guard.inner.radii(&h).into_pyarray(py).into_any().unbind())
    }

    /// Every colliding pair, `(k, 2)` intp, canonical.
    pub fn pairs(&self, py: Python<'_>, max_pairs: Option<u64>) -> PyResult<Py<PyAny>> {
        let mut guard = self.lock()?;
        let st = &mut *guard;
        let (n, inner, ex) = (st.inner.pending(), &mut st.inner, Exec::new(st.workers));
        let flat = watched(py, n, &ex, Watch::Committing, |ex| {
            inner.pairs(ex, max_pairs)
        })?;
        crate::pairs_array(py, flat.map_err(too_many)?)
    }

    /// `(began, ended)` since the last `update()`.
    pub fn update(
        &self,
        py: Python<'_>,
        max_pairs: Option<u64>,
    ) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
        let mut guard = self.lock()?;
        let st = &mut *guard;
        let (n, inner, ex) = (st.inner.pending(), &mut st.inner, Exec::new(st.workers));
        let ev = watched(py, n, &ex, Watch::Committing, |ex| {
            inner.update(ex, max_pairs)
        })?
        .map_err(too_many)?;
        Ok((packed_array(py, &ev.began)?, packed_array(py, &ev.ended)?))
    }

    /// Sorted handles of the objects overlapping a valid box.
    pub fn query(&self, py: Python<'_>, q: [f64; N]) -> PyResult<Py<PyAny>> {
        let mut guard = self.lock()?;
        let st = &mut *guard;
        let (n, inner, ex) = (st.inner.pending(), &mut st.inner, Exec::new(st.workers));
        let found = watched(py, n, &ex, Watch::Committing, |ex| inner.query(&q, ex))?;
        Ok(handles_array(py, found))
    }

    /// Sorted handles of the objects strictly containing the point `p`.
    pub fn query_point(
        &self,
        py: Python<'_>,
        p: <[f64; N] as broadphase_core::dim::Row>::Axes,
    ) -> PyResult<Py<PyAny>> {
        let mut guard = self.lock()?;
        let st = &mut *guard;
        let (n, inner, ex) = (st.inner.pending(), &mut st.inner, Exec::new(st.workers));
        let found = watched(py, n, &ex, Watch::Committing, |ex| {
            inner.query_point(&p, ex)
        })?;
        Ok(handles_array(py, found))
    }

    /// Sorted handles colliding with the live object `h`.
    pub fn touching(&self, py: Python<'_>, h: u32) -> PyResult<Py<PyAny>> {
        let mut guard = self.live(h)?;
        let st = &mut *guard;
        let (n, inner, ex) = (st.inner.pending(), &mut st.inner, Exec::new(st.workers));
        let found = watched(py, n, &ex, Watch::Committing, |ex| inner.touching(h, ex))?;
        Ok(handles_array(py, found))
    }

    /// The tree's counts (placing the objects moved since it last did).
    pub fn stats(&self, py: Python<'_>) -> PyResult<TreeStats> {
        let mut guard = self.lock()?;
        let st = &mut *guard;
        let (n, inner, ex) = (st.inner.len(), &mut st.inner, Exec::new(st.workers));
        let s = watched(py, n, &ex, Watch::Committing, |ex| inner.stats(ex))?;
        Ok(TreeStats {
            objects: st.inner.len(),
            outside: st.inner.outside(),
            levels: st.inner.levels().to_vec(),
            relinked: s.relinked,
            entries: s.entries,
            candidate_tests: s.candidate_tests,
            pairs: s.pairs,
            rebuilt: s.rebuilt,
        })
    }

    /// The knobs, changed by `f` (no answer changes: see [`Policy`]).
    pub fn set_policy(&self, f: impl FnOnce(Policy) -> Policy) -> PyResult<()> {
        let tree = &mut self.lock()?.inner;
        tree.set_policy(f(tree.policy()));
        Ok(())
    }

    /// Rows `(query, handle)` of the objects overlapping each valid box
    /// `q`, `(k, 2)` intp, sorted (or a `BadRow` for a box changed since
    /// the caller checked it).
    pub fn query_many(
        &self,
        py: Python<'_>,
        boxes: Boxes<'_>,
        max_rows: Option<u64>,
    ) -> PyResult<Py<PyAny>> {
        let q = rows::<N>(&boxes, "boxes")?;
        let mut guard = self.lock()?;
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
}
