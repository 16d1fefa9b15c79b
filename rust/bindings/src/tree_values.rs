//! What crosses the boundary for `broadphase._core.Tree`, named: the
//! problems it finds in an argument ([`BadHandle`], or a `BadRow`), its
//! counts ([`TreeStats`]), and the rows a move gives ([`MoveRows`]: one move
//! for boxes and circles, what differs between them here).

use broadphase_core::check;
use broadphase_core::narrow::{BOX, CIRCLE};
use broadphase_core::par::Exec;
use broadphase_core::scratch;
use broadphase_core::tree::{BallOf, HandleError, Tree, TreeRow};
use pyo3::prelude::*;

use crate::owned;
use crate::results::BadRow;

/// `handles[at]` is not a live object.
pub const HANDLE_UNKNOWN: u8 = 1;
/// `handles[at]` repeats an earlier handle.
pub const HANDLE_TWICE: u8 = 2;
/// `handles[at]` is an object of the other shape.
pub const HANDLE_KIND: u8 = 3;

/// The shape code of a Python kind argument (`KIND_BOX`, `KIND_CIRCLE`: the
/// core's own codes, exported so that Python names them rather than repeat
/// them), `None` for any other value (any kind).
pub fn kind_of(kind: i32) -> Option<u8> {
    [BOX, CIRCLE].into_iter().find(|&k| i32::from(k) == kind)
}

/// A handle argument that names no suitable object, for the Python layer
/// to word (`LinearQuadtree._raise`).
#[pyclass(frozen, get_all, module = "broadphase._core")]
pub struct BadHandle {
    /// Position of the handle in the caller's array.
    pub at: usize,
    /// What is wrong with it: `HANDLE_UNKNOWN`, `HANDLE_TWICE` or `HANDLE_KIND`.
    pub code: u8,
}

#[pymethods]
impl BadHandle {
    fn __repr__(&self) -> String {
        format!("BadHandle(at={}, code={})", self.at, self.code)
    }
}

/// A problem with an argument: a bad handle, or a bad row (of the copy the
/// tree checked; the caller's array may have changed since it checked it).
#[derive(IntoPyObject)]
pub enum Problem {
    Handle(BadHandle),
    Row(BadRow),
}

impl From<HandleError> for Problem {
    fn from(e: HandleError) -> Self {
        let (at, code) = match e {
            HandleError::Unknown(at) => (at, HANDLE_UNKNOWN),
            HandleError::Twice(at) => (at, HANDLE_TWICE),
            HandleError::WrongKind(at) => (at, HANDLE_KIND),
        };
        Problem::Handle(BadHandle { at, code })
    }
}

impl From<check::BadRow> for Problem {
    fn from(b: check::BadRow) -> Self {
        Problem::Row(b.into())
    }
}

/// The rows a move gives the objects of a tree of rows `N` wide: boxes
/// (`[f64; N]`) for box objects, balls (centre, then radius) for ball
/// objects.  One move for both (`Shared::move_rows`); what differs is here.
pub trait MoveRows<const N: usize>: Copy + Send + Sync
where
    [f64; N]: TreeRow<N>,
{
    /// The objects' shape code (`narrow::BOX` or `narrow::CIRCLE`).
    const KIND: u8;
    /// The argument's name, in errors.
    const NAME: &'static str;
    /// The Python method, in errors.
    const METHOD: &'static str;
    /// A copy of the caller's rows (`crate::owned`).
    fn copy(rows: &[Self], ex: &Exec) -> PyResult<Vec<Self>>;
    /// Checks the copied rows and stores them for the (checked) objects `h`,
    /// or names the first bad row and changes nothing.
    fn store(
        tree: &mut Tree<N>,
        h: &[i64],
        rows: Vec<Self>,
        ex: &Exec,
    ) -> Result<(), check::BadRow>;
}

impl<const N: usize> MoveRows<N> for [f64; N]
where
    [f64; N]: TreeRow<N> + scratch::Pooled,
{
    const KIND: u8 = BOX;
    const NAME: &'static str = "boxes";
    const METHOD: &'static str = "move";
    /// From the scratch pool: a game moving about the same many boxes every
    /// frame copies into pages it already has.
    fn copy(rows: &[Self], ex: &Exec) -> PyResult<Vec<Self>> {
        owned::copy_pooled(rows, <Self as MoveRows<N>>::NAME, ex)
    }
    fn store(tree: &mut Tree<N>, h: &[i64], b: Vec<Self>, ex: &Exec) -> Result<(), check::BadRow> {
        let scanned = check::scan_boxes(&b, &ex.for_work(b.len(), 1 << 16));
        if scanned.is_ok() {
            tree.move_to(h, &b, None, ex);
        }
        scratch::give(b);
        scanned.map(|_| ())
    }
}

/// New balls for the ball objects `h` of `tree`: their boxes (rounded
/// outward) checked finite, then both stored.
fn store_balls<const C: usize, const N: usize>(
    tree: &mut Tree<N>,
    h: &[i64],
    c: Vec<[f64; C]>,
    ex: &Exec,
) -> Result<(), check::BadRow>
where
    [f64; N]: TreeRow<N> + scratch::Pooled,
    BallOf<N>: From<[f64; C]>,
{
    let b = check::ball_boxes::<C, N>(&c, &ex.for_work(c.len(), 1 << 16))?;
    // the tree holds finite boxes: a ball reaching past the doubles (the
    // caller refuses it; a row changed since) is refused here too
    check::scan_boxes(&b, &ex.for_work(b.len(), 1 << 16))?;
    let c: Vec<BallOf<N>> = c.into_iter().map(Into::into).collect();
    tree.move_to(h, &b, Some(&c), ex);
    Ok(())
}

impl MoveRows<4> for [f64; 3] {
    const KIND: u8 = CIRCLE;
    const NAME: &'static str = "circles";
    const METHOD: &'static str = "move_circles";
    fn copy(rows: &[Self], ex: &Exec) -> PyResult<Vec<Self>> {
        owned::copy(rows, <Self as MoveRows<4>>::NAME, ex)
    }
    fn store(tree: &mut Tree, h: &[i64], c: Vec<Self>, ex: &Exec) -> Result<(), check::BadRow> {
        store_balls(tree, h, c, ex)
    }
}

impl MoveRows<6> for [f64; 4] {
    const KIND: u8 = CIRCLE;
    const NAME: &'static str = "spheres";
    const METHOD: &'static str = "move_spheres";
    fn copy(rows: &[Self], ex: &Exec) -> PyResult<Vec<Self>> {
        owned::copy(rows, <Self as MoveRows<6>>::NAME, ex)
    }
    fn store(tree: &mut Tree<6>, h: &[i64], c: Vec<Self>, ex: &Exec) -> Result<(), check::BadRow> {
        store_balls(tree, h, c, ex)
    }
}

/// The tree's counts, for tuning its depth (`LinearQuadtree.stats`).
#[pyclass(frozen, get_all, module = "broadphase._core")]
pub struct TreeStats {
    /// Live objects.
    pub objects: usize,
    /// Objects not wholly inside the world's bounds.
    pub outside: usize,
    /// Objects entered at each level, 0 (the whole world) to the depth.
    pub levels: Vec<u64>,
    /// Objects the last insert placed, or that the moves since the tree
    /// last placed objects took into other cells.
    pub relinked: u64,
    /// (object, cell) entries as placed now.
    pub entries: u64,
    /// Box tests of the last `pairs()`.
    pub candidate_tests: u64,
    /// Pairs of the last `pairs()`.
    pub pairs: u64,
    /// Whether the last `pairs()` searched from scratch.
    pub rebuilt: bool,
}

#[pymethods]
impl TreeStats {
    fn __repr__(&self) -> String {
        format!(
            "TreeStats(objects={}, outside={}, levels={:?}, relinked={}, entries={}, \
             candidate_tests={}, pairs={}, rebuilt={})",
            self.objects,
            self.outside,
            self.levels,
            self.relinked,
            self.entries,
            self.candidate_tests,
            self.pairs,
            if self.rebuilt { "True" } else { "False" }
        )
    }
}
