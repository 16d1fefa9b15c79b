"""Type stub of ``broadphase._core``, the compiled core (``rust/bindings``).

Every name the module exports, with the compiled functions' parameter
names (``tests/test_stub.py`` compares the two).
"""

from collections.abc import Sequence
from typing import final

import numpy as np
from numpy.typing import NDArray

NOT_FINITE: int
X_REVERSED: int
Y_REVERSED: int
Z_REVERSED: int
X_WIDE: int
Y_WIDE: int
Z_WIDE: int
FAR: int
NEGATIVE_RADIUS: int
MAX_DEPTH: int
MORTON_MAX_DEPTH: int
MORTON_MAX_DEPTH_3D: int
HANDLE_UNKNOWN: int
HANDLE_TWICE: int
HANDLE_KIND: int
KIND_BOX: int
KIND_CIRCLE: int
TREE_MAX_DEPTH: int
TREE_MAX_DEPTH_3D: int
TREE_IN_USE: str
RECT_FAR: float

def main_thread_changed() -> None:
    """Read Python's main thread again (in a child after ``fork()``)."""

_F64 = NDArray[np.float64]
_I64 = NDArray[np.int64]
_IP = NDArray[np.intp]

@final
class BadRow:
    """The first bad row of an argument, as the core's scan found it in its copy."""

    @property
    def row(self) -> int:
        """The row, counted from 0."""
    @property
    def code(self) -> int:
        """What is wrong with it: ``NOT_FINITE``, ``X_REVERSED``, ... or ``NEGATIVE_RADIUS``."""

def find_pairs(
    boxes: _F64 | None,
    method_name: str,
    *,
    circles: _F64 | None = None,
    groups: _I64 | None = None,
    categories: NDArray[np.uint64] | None = None,
    masks: NDArray[np.uint64] | None = None,
    workers: int | None = None,
    max_pairs: int | None = None,
    period: _F64 | None = None,
    lattice: _F64 | None = None,
    measure: int = 0,
) -> NDArray[np.intp] | tuple[NDArray[np.intp], _F64 | None, _F64 | None] | BadRow:
    """Canonical pairs of boxes or balls, or the first bad row.

    ``period``: one length per axis (``inf``: an open axis), a periodic
    domain; an object wider than half the period is a ``BadRow`` with code
    ``X_WIDE``, ``Y_WIDE`` or ``Z_WIDE``.  ``lattice``: a triclinic cell
    instead, its vectors the rows of a ``(D, D)`` lower-triangular reduced
    matrix (``ValueError`` naming the entry otherwise); an object wider
    than half the cell's side ``H[k, k]`` is refused as above, one with a
    coordinate more than ``2**22`` of the cell's smallest sides from the
    origin with code ``FAR``.  ``measure`` (balls): bit 1 asks
    for the pairs' distances, bit 2 for their vectors (minimum image); the
    result is then ``(pairs, distances or None, vectors or None)``.

    2D: ``(n, 4)`` boxes or ``(n, 3)`` circles ``x, y, r``; 3D: ``(n, 6)``
    boxes or ``(n, 4)`` spheres ``x, y, z, r`` (``"quadtree"`` is then the
    octree).  Raises
    ``MemoryError`` naming the count when the pairs would not fit in memory
    (or in ``max_pairs``, a limit for tests).
    """

def cast_rays(
    boxes: _F64 | None,
    origins: _F64,
    directions: _F64,
    max_t: _F64,
    mode: str,
    *,
    circles: _F64 | None = None,
    categories: NDArray[np.uint64] | None = None,
    masks: NDArray[np.uint64] | None = None,
    ray_categories: NDArray[np.uint64] | None = None,
    ray_masks: NDArray[np.uint64] | None = None,
    ignore: _I64 | None = None,
    workers: int | None = None,
) -> tuple[_IP, _F64] | NDArray[np.bool_] | BadRow:
    """Rays against ``(n, 4)`` boxes or ``(n, 3)`` circles, or the objects' first bad row.

    ``mode`` ``"first"``: ``(index, t)`` per ray (-1 and ``inf`` for none);
    ``"all"``: ``(pairs, t)`` with rows ``(ray, object)`` sorted; ``"any"``:
    a bool per ray.  ``max_t`` holds one value or one per ray.
    """

def swept_pairs(
    start: _F64,
    end: _F64,
    *,
    circles: bool = False,
    groups: _I64 | None = None,
    categories: NDArray[np.uint64] | None = None,
    masks: NDArray[np.uint64] | None = None,
    workers: int | None = None,
) -> tuple[_IP, _F64] | tuple[int, BadRow]:
    """Canonical swept pairs of boxes or balls and their ``t``.

    2D: ``(n, 4)`` boxes, or with ``circles=True`` ``(n, 3)`` circles
    ``x, y, r``; 3D: ``(n, 6)`` boxes or ``(n, 4)`` spheres ``x, y, z, r``
    (the width of ``start`` picks; ``end`` has the same; a ball's radius is
    read from ``start``).  Or ``(which, BadRow)``: the first bad row of
    ``start`` (0) or ``end`` (1).
    """

def scan_boxes(
    boxes: _F64, workers: int | None = None
) -> tuple[float, ...] | BadRow:
    """Bounds of valid boxes, or the first bad row.

    ``(minx, miny, maxx, maxy)`` of ``(n, 4)`` boxes, ``(minx, miny, minz,
    maxx, maxy, maxz)`` of ``(n, 6)`` ones.
    """

def circle_boxes(circles: _F64, workers: int | None = None) -> _F64 | BadRow:
    """Outward-rounded boxes of balls, or the first bad row.

    ``(n, 3)`` circles ``x, y, r`` give ``(n, 4)`` boxes, ``(n, 4)`` spheres
    ``x, y, z, r`` give ``(n, 6)`` ones.
    """

def morton_encode(ix: _I64, iy: _I64) -> _I64: ...
def morton_encode3(ix: _I64, iy: _I64, iz: _I64) -> _I64:
    """Morton numbers of 3D cells ``(ix, iy, iz)``, each in ``[0, 2**21)``."""
def morton_decode(code: _I64) -> tuple[_I64, _I64]: ...
def morton_decode3(code: _I64) -> tuple[_I64, _I64, _I64]:
    """Cells ``(ix, iy, iz)`` of 3D Morton numbers (any int64 ``>= 0``)."""
def morton_cell_of(code0: _I64, code1: _I64, depth: int) -> tuple[_I64, _I64]: ...
def morton_cell_of3(code0: _I64, code1: _I64, depth: int) -> tuple[_I64, _I64]:
    """``(levels, indices)`` of 3D boxes from their corner codes (3-bit groups).

    ``depth`` at most ``MORTON_MAX_DEPTH_3D``, codes in ``[0, 8**depth)``.
    """
def morton_locate(
    boxes: _F64, bounds: Sequence[float], depth: int
) -> tuple[_I64, _I64]:
    """The seeds' cell of each valid box: ``(levels, indices)``.

    ``(n, 4)`` boxes with 4 bounds, or ``(n, 6)`` boxes with 6 bounds (the
    octree's cells; ``depth`` at most ``MORTON_MAX_DEPTH_3D``).
    """
def morton_linear_index(level: _I64, index: _I64) -> _I64:
    """Positions of cells ``(level, index)`` in the linear array of all levels.

    The core's ``morton::linear_index``: ``(4**level - 1) // 3 + index``.
    ``ValueError`` for lengths that differ, a level outside
    ``[0, MORTON_MAX_DEPTH]`` or an index outside ``[0, 4**level)``.
    """
def morton_linear_index3(level: _I64, index: _I64) -> _I64:
    """:func:`morton_linear_index` of the octree: ``(8**level - 1) // 7 + index``.

    ``ValueError`` for lengths that differ, a level outside
    ``[0, MORTON_MAX_DEPTH_3D]`` or an index outside ``[0, 8**level)``.
    """
def split_by_tile(
    boxes: _F64, xs: _F64, ybounds: _F64, rank: _I64
) -> tuple[_I64, _I64]:
    """Rows of valid boxes grouped by the tiles they meet: ``(order, starts)``.

    ``(n, 4)`` 2D or ``(n, 6)`` 3D boxes; the tiles cut the x-y plane (a 3D
    box meets the tiles its x-y shadow meets).
    """
def owned_pairs(
    pairs: _IP, boxes: _F64, rows: _I64, xs: _F64, ybounds: _F64, rank: _I64, tile: int,
    edges: _I64,
) -> tuple[_IP, _I64]:
    """The pairs tile ``tile`` owns, as global rows, and their bucket cuts.

    ``(n, 4)`` 2D or ``(n, 6)`` 3D boxes: a pair is owned by the tile holding
    ``(max(minx), max(miny))`` of its two boxes.
    """
def sort_pairs(pairs: _IP, lo: int, hi: int) -> _IP:
    """Pairs whose first value is in ``[lo, hi)``, in canonical order (a new array)."""
@final
class PairMemory:
    """The memory under a big result array: pairs, distances or vectors (its ``base``).

    Given back to the core's scratch pool when NumPy frees the array, so the
    next search of about that size writes into pages it already has.
    """

def contact_events(last: _I64, pairs: _I64) -> tuple[_IP, _IP, _IP]:
    """``(current, began, ended)``: the pairs of ``pairs`` as canonical rows.

    Each pair once, ``i < j``, rows sorted; ``began`` the pairs not in
    ``last``'s and ``ended`` the reverse.  Both arguments are C-contiguous
    ``(k, 2)`` int64 arrays of two different indices in ``[0, 2**31)`` per
    row (``ValueError`` naming the row otherwise).
    """
def read_rects(
    sprites: list[object],
    attr: str,
    handles: _I64 | None = None,
    box_at: _F64 | None = None,
) -> _F64 | tuple[_F64, _I64, _F64] | None:
    """Each object's pygame rect (attribute ``attr``) as ``(n, 4)`` corners, or ``None``.

    Read from pygame-ce's documented ``Rect``/``FRect`` structs (subclasses
    included) as ``colliderect`` sees them: ``min/max(x, x + w)`` per axis,
    ``FRect`` sums in float32, zero width or height or NaN as the point
    ``RECT_FAR``.  ``None`` (nothing read) when an object has no such
    attribute, another type, or an ``FRect`` reaching infinity: the Python
    reader (``_rects.boxes``) then words the error.  With ``handles`` and
    ``box_at`` (rows by handle): ``(boxes, changed, after)``, the positions
    whose box differs from ``box_at[handles]`` and ``box_at`` with them
    replaced (``box_at`` itself when none differs).
    """
def refresh_rects(
    tree: Tree, sprites: list[object], attr: str, handles: _I64, box_at: _F64
) -> _F64 | None:
    """Read each sprite's rect (as ``read_rects``) and move the changed in ``tree``, in one pass.

    Sprite ``k`` is box object ``handles[k]``, last read as ``box_at[handles[k]]``;
    those whose rect now differs are moved to it.  Returns ``box_at`` with those
    rows replaced (a new array; ``box_at`` itself when none differs), or ``None``
    having read and moved nothing when a rect is not read here.
    """
def pick_pairs(objects: NDArray[np.object_], rows: _I64) -> list[tuple[object, object]]:
    """``[(objects[i], objects[j]) for i, j in rows]``; ``ValueError`` naming a row out of range."""
def release_scratch() -> None:
    """Free the kept scratch buffers and give free memory back to the system."""
def stages(
    boxes: _F64, method_name: str, workers: int | None = None
) -> tuple[list[tuple[str, float]], int]:
    """Milliseconds of each stage of one box search, and the number of pairs."""

@final
class BadHandle:
    """A handle argument that names no suitable object."""

    @property
    def at(self) -> int:
        """Position of the handle in the caller's array."""
    @property
    def code(self) -> int:
        """What is wrong with it: ``HANDLE_UNKNOWN``, ``HANDLE_TWICE`` or ``HANDLE_KIND``."""

#: A problem the tree found in an argument, for the Python layer to word;
#: ``None`` when there is none.
_Problem = BadHandle | BadRow | None

@final
class TreeStats:
    """The tree's counts, for tuning its depth (``LinearQuadtree.stats``)."""

    @property
    def objects(self) -> int:
        """Live objects."""
    @property
    def outside(self) -> int:
        """Objects not wholly inside the world's bounds."""
    @property
    def levels(self) -> list[int]:
        """Objects entered at each level, 0 (the whole world) to the depth."""
    @property
    def relinked(self) -> int:
        """Objects the last insert placed, or moves since took into other cells."""
    @property
    def entries(self) -> int:
        """(object, cell) entries as placed now."""
    @property
    def candidate_tests(self) -> int:
        """Box tests of the last ``pairs()``."""
    @property
    def pairs(self) -> int:
        """Pairs of the last ``pairs()``."""
    @property
    def rebuilt(self) -> bool:
        """Whether the last ``pairs()`` searched from scratch."""

@final
class Tree3:
    """The moving tree in 3D, of ``broadphase.LinearOctree`` (``rust/bindings/src/octree.rs``).

    ``Tree``'s calls over boxes of six values and spheres ``x, y, z, r``,
    with the same contract (validated arguments, the GIL released, one call
    at a time).
    """

    workers: int | None
    """Threads of the searches (``None``: all)."""
    rebuild_share: float
    """Share of dirty objects above which ``pairs()`` searches from scratch."""
    relayout_share: float
    """Share of stale objects above which the lists are laid out anew."""

    def __new__(
        cls,
        bounds: tuple[float, float, float, float, float, float],
        depth: int,
        margin: float = 0.0,
        workers: int | None = None,
    ) -> Tree3:
        """An empty tree; ``ValueError`` for a depth or margin out of range."""
    def copy(self) -> Tree3:
        """An independent copy: the same objects, handles, kept pairs and settings."""
    def insert(
        self,
        boxes: NDArray[np.float64],
        spheres: NDArray[np.float64] | None = None,
        groups: NDArray[np.int64] | None = None,
        categories: NDArray[np.uint64] | None = None,
        masks: NDArray[np.uint64] | None = None,
    ) -> NDArray[np.intp] | BadRow:
        """Add boxes (with ``spheres``: spheres, ``boxes`` their boxes); handles or a ``BadRow``."""
    def check(self, handles: NDArray[np.int64], kind: int = -1) -> BadHandle | None:
        """Check handles: live, each once, of shape ``kind`` (0 box, 1 sphere, -1 any)."""
    def move_boxes(
        self, handles: NDArray[np.int64], boxes: NDArray[np.float64]
    ) -> BadHandle | BadRow | None:
        """New boxes for box objects: checked, then stored, or nothing changes."""
    def move_spheres(
        self, handles: NDArray[np.int64], spheres: NDArray[np.float64]
    ) -> BadHandle | BadRow | None:
        """New spheres ``x, y, z, r`` for sphere objects: checked, then stored."""
    def remove(self, handles: NDArray[np.int64]) -> BadHandle | None:
        """Take objects out (checked first)."""
    def radii(self, handles: NDArray[np.int64]) -> NDArray[np.float64]:
        """Radii of sphere objects."""
    def pairs(self, max_pairs: int | None = None) -> NDArray[np.intp]:
        """Every colliding pair, ``(k, 2)`` intp, canonical."""
    def update(self, max_pairs: int | None = None) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """``(began, ended)`` since the last ``update()``."""
    def query(self, q: tuple[float, float, float, float, float, float]) -> NDArray[np.intp]:
        """Sorted handles of the objects overlapping a valid box."""
    def query_many(
        self, boxes: NDArray[np.float64], max_rows: int | None = None
    ) -> NDArray[np.intp] | BadRow:
        """Rows ``(query, handle)`` of the objects overlapping each valid box, sorted."""
    def query_point(self, x: float, y: float, z: float) -> NDArray[np.intp]:
        """Sorted handles of the objects strictly containing ``(x, y, z)``."""
    def touching(self, h: int) -> NDArray[np.intp]:
        """Sorted handles colliding with the live object ``h``."""
    def box_of(self, h: int) -> tuple[float, float, float, float, float, float]:
        """Box of the live object ``h``."""
    def sphere_of(self, h: int) -> tuple[float, float, float, float] | None:
        """``(x, y, z, r)`` of the live object ``h`` if a sphere, else ``None``."""
    def locate(self, h: int) -> tuple[int, int]:
        """Seeds' cell ``(level, index)`` of the live object ``h``."""
    def stats(self) -> TreeStats:
        """The tree's counts."""
    def validate(self) -> str | None:
        """The first broken invariant, or ``None``."""
    def contains(self, h: int) -> bool:
        """Whether ``h`` is a live object."""
    def __len__(self) -> int: ...

class Tree:
    """The moving tree of ``broadphase.LinearQuadtree`` (``rust/bindings/src/tree.rs``).

    Arguments arrive validated and converted: handles as C-contiguous int64,
    boxes as C-contiguous float64 rows.  Calls that work release the GIL
    and hold the tree meanwhile: a call from another thread then raises
    ``RuntimeError`` with the message ``TREE_IN_USE`` (nothing waits).
    """

    workers: int | None
    """Threads of the searches (``None``: all)."""
    rebuild_share: float
    """Share of dirty objects above which ``pairs()`` searches from scratch."""
    relayout_share: float
    """Share of stale objects above which the lists are laid out anew."""
    consolidate_from: int
    """Delta pairs past an eighth of the kept base at which the two are consolidated."""

    def __new__(
        cls,
        bounds: tuple[float, float, float, float],
        depth: int,
        margin: float = 0.0,
        workers: int | None = None,
    ) -> Tree:
        """An empty tree; ``ValueError`` for a depth or margin out of range."""
    def copy(self) -> Tree:
        """An independent copy: the same objects, handles, kept pairs and settings."""
    def insert(
        self,
        boxes: _F64,
        circles: _F64 | None = None,
        groups: _I64 | None = None,
        categories: NDArray[np.uint64] | None = None,
        masks: NDArray[np.uint64] | None = None,
    ) -> _IP | BadRow:
        """Add valid ``(n, 4)`` boxes (with ``(n, 3)`` circles: their bounding boxes).

        Their handles, or the bad row if a row changed (another thread
        writing the array) since the caller checked it.
        """
    def check(self, handles: _I64, kind: int = -1) -> _Problem:
        """Handles live, each once, of shape ``kind`` (``KIND_BOX``, ``KIND_CIRCLE``, -1 any)."""
    def move_boxes(self, handles: _I64, boxes: _F64) -> _Problem:
        """New boxes for box objects: checked, then stored, or nothing changes."""
    def move_circles(self, handles: _I64, circles: _F64) -> _Problem:
        """New ``(x, y, r)`` for circle objects: checked, then stored, or nothing changes."""
    def remove(self, handles: _I64) -> _Problem:
        """Take objects out (checked first)."""
    def radii(self, handles: _I64) -> _F64:
        """Radii of circle objects (handles the caller checked; ``ValueError`` if not)."""
    def pairs(self, max_pairs: int | None = None) -> _IP:
        """Every colliding pair, ``(k, 2)``, canonical; ``MemoryError`` past ``max_pairs``."""
    def update(self, max_pairs: int | None = None) -> tuple[_IP, _IP]:
        """``(began, ended)`` since the last ``update()``, whatever ``pairs()`` came between."""
    def query(self, q: Sequence[float]) -> _IP:
        """Sorted handles of the objects overlapping a valid box."""
    def query_point(self, x: float, y: float) -> _IP:
        """Sorted handles of the objects strictly containing ``(x, y)``."""
    def touching(self, h: int) -> _IP:
        """Sorted handles colliding with the live object ``h``."""
    def box_of(self, h: int) -> list[float]:
        """Box ``[minx, miny, maxx, maxy]`` of the live object ``h``."""
    def circle_of(self, h: int) -> list[float] | None:
        """``[x, y, r]`` of the live object ``h`` if a circle, else ``None``."""
    def locate(self, h: int) -> tuple[int, int]:
        """Seeds' cell ``(level, index)`` of the live object ``h``."""
    def stats(self) -> TreeStats:
        """The tree's counts (placing the objects moved since it last did)."""
    def validate(self) -> str | None:
        """The first broken invariant, or ``None``."""
    def contains(self, h: int) -> bool:
        """Whether ``h`` is a live object."""
    def __len__(self) -> int: ...

# One-object calls (``rust/bindings/src/tree_one.rs``): Python numbers,
# tuples, lists, 1-D float64 arrays and pygame rects read directly.  Each
# answers, or returns ``None`` (``False``) having changed nothing when it
# cannot read its arguments exactly or the handle names no suitable
# object: the caller then takes its full path, which words the error.

def tree_touching(tree: Tree, h: object) -> _IP | None:
    """``touching(h)`` of a live handle (an ``int`` or NumPy integer)."""
def tree_query(tree: Tree, q: object) -> _IP | None:
    """``query(q)`` of one box: 4 corners, or a pygame rect as ``x, y, w, h``."""
def tree_query_point(tree: Tree, x: object, y: object) -> _IP | None:
    """``query_point(x, y)`` of two numbers float64 holds exactly."""
def tree_move(tree: Tree, h: object, b: object) -> bool:
    """Move the live box object ``h`` to the box ``b``: whether it was done."""
def tree_insert(tree: Tree, b: object) -> _IP | None:
    """Insert one box with the default filters: its handle, shape (1,)."""
def tree_remove(tree: Tree, h: object) -> bool:
    """Remove the live object ``h``: whether it was done."""
def tree_contains(tree: Tree, h: object) -> bool | None:
    """Whether the integer ``h`` (any size) is a live object; ``None`` for a non-integer."""
def tree_box(tree: Tree, h: object) -> _F64 | None:
    """The stored box of the live object ``h``, shape (4,)."""
def tree_cast_rays(
    tree: Tree | Tree3,
    origins: _F64,
    directions: _F64,
    max_t: _F64,
    mode: str,
    *,
    ray_categories: NDArray[np.uint64] | None = None,
    ray_masks: NDArray[np.uint64] | None = None,
    ignore: _I64 | None = None,
    workers: int | None = None,
) -> tuple[_IP, _F64] | NDArray[np.bool_]:
    """Rays against the tree's live objects, answered in handles (``ignore`` holds handles).

    ``mode`` as in :func:`cast_rays`; ``workers`` ``None``: the tree's.
    """
def tree_insert_circle(tree: Tree, center: object, r: object) -> _IP | None:
    """``insert_circles(center, r)`` of one circle read directly (default filters), or ``None``."""
def tree_move_circle(tree: Tree, h: object, center: object, r: object = None) -> bool:
    """``move_circles(h, center[, r])`` of one live circle read directly: whether it was done."""
def tree_cast_few(
    tree: Tree,
    origins: object,
    directions: object,
    max_t: object,
    mode: object,
    ignore: object,
) -> tuple[_IP, _F64] | NDArray[np.bool_] | None:
    """``tree_cast_rays`` of 1 to 16 rays of Python numbers, or ``None`` having done nothing.

    Read directly: tuples or lists of ``(x, y)`` pairs of finite numbers, a
    ``max_t`` >= 0 (``inf`` allowed), ``ignore`` ``None`` or one integer >= -1;
    anything else is ``None``, for the full path to read and word.
    """
def tree_swept_pairs(tree: Tree | Tree3) -> tuple[_IP, _F64]:
    """The pairs swept since the last call, in handles, and their ``t``; keeps the places."""

def tree_query_many(tree: Tree, boxes: _F64, max_rows: int | None = None) -> _IP | BadRow:
    """Rows ``(query, handle)`` of the objects overlapping each valid box, ``(k, 2)``, sorted.

    ``MemoryError`` past ``max_rows`` (default: the memory); the bad row
    if a row changed since the caller checked it.
    """
