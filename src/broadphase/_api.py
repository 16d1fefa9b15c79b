"""The public pair-finding functions: validate, pick a method, dispatch.

Each method's driver prepares the arrays its kernels need (quantized ranges,
sorted entries, chunk boundaries) and hands the pair kernel to
:func:`broadphase._chunks.collect`, which returns the canonical pairs.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from typing import NamedTuple

import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _cast, _work, _world
from ._chunks import _IDX, balanced, chunk_count, collect
from ._kernels import brute as _brute
from ._kernels import grid as _grid
from ._kernels import quadtree as _qt
from ._kernels import radix as _radix
from ._kernels import sweep as _sweep
from ._kernels.narrow import MODE_CIRCLES, MODE_GROUPS, MODE_MASKS

__all__ = ["METHODS", "find_pairs", "find_circle_pairs", "find_pairs_between"]

#: Names accepted by ``method=`` besides ``"auto"``.
METHODS: tuple[str, ...] = ("brute", "sweep", "grid", "quadtree")

_EMPTY_PAIRS_SHAPE = (0, 2)
_NO_CIRCLES = np.empty((0, 3), np.float64)
_NO_GROUPS = np.empty(0, np.int64)
_NO_BITS = np.empty(0, np.uint64)
_SAMPLE = 2048  # rows looked at to estimate typical sizes

# Tuning, from the benchmark figures in docs/benchmarks.md.
QUADTREE_SLACK = 1  # levels a box may sit above its fit level before it is split
QUADTREE_BIAS = 0  # finest cell ~ 2**-BIAS of the typical box extent
GRID_FACTOR = 4.0  # grid cell side, in typical box extents
GRID_BUDGET = 4  # grid entries allowed per box before the cells grow
BRUTE_BELOW = 300  # auto: brute force below this many objects,
BRUTE_SERIAL = 512  # brute force in one serial call up to this many
SWEEP_BELOW = 1500  # sort-and-sweep below this many, the grid above


class _Job(NamedTuple):
    boxes: NDArray[np.float64]  # (n, 4); for circles, their bounding boxes
    bounds: tuple[float, float, float, float]
    circles: NDArray[np.float64]  # (n, 3) x, y, r, or (0, 3)
    groups: NDArray[np.int64]
    cats: NDArray[np.uint64]
    masks: NDArray[np.uint64]
    mode: int

    def narrow(self) -> tuple:
        return self.circles, self.groups, self.cats, self.masks, self.mode


def _guess(n: int) -> int:
    # First capacity for the pair slices; chunks that find more are re-run.
    return 3 * n + 1024


def _empty() -> NDArray[np.intp]:
    return np.empty(_EMPTY_PAIRS_SHAPE, np.intp)


def _typical_extent(boxes: NDArray[np.float64]) -> float:
    """Median of max(width, height) over an evenly strided sample."""
    step = max(1, boxes.shape[0] // _SAMPLE)
    s = boxes[::step]
    with np.errstate(over="ignore", invalid="ignore"):  # +-1e308 spans are infinite here
        return float(np.median(np.maximum(s[:, 2] - s[:, 0], s[:, 3] - s[:, 1])))


def _half(bounds) -> float:
    """Half the side of the square world around ``bounds``."""
    x0, y0, x1, y1 = bounds
    return max(_world.half_span(x0, x1), _world.half_span(y0, y1))


def quadtree_depth(boxes: NDArray[np.float64], half: float) -> int:
    """Depth L: finest cells about the typical box size, at most ~256 n cells."""
    n = boxes.shape[0]
    cap = min(_qt.MAX_DEPTH, max(1, int(math.log2(max(n, 1))) // 2 + 4))
    octaves = _world.log2_ratio(half, _typical_extent(boxes))  # log2(side / ext) - 1
    if octaves is None:
        return cap
    return int(min(cap, max(1, math.floor(octaves + 1) + QUADTREE_BIAS)))


def _sorted_entries(keys, objs, nbits, grain=_radix._GRAIN):
    """Radix-sort (key, object) entries, using scratch for the second copy."""
    kb = _work.buffer("kb", keys.shape[0], np.int64)
    vb = _work.buffer("vb", objs.shape[0], objs.dtype)
    return _radix.sort_pairs(keys, objs, kb, vb, nbits, grain)


def _no_tick(stage: str) -> None:
    """Stage hook of the cell methods; ``benchmarks/stages.py`` passes a timer."""


def _run_quadtree(job: _Job, tick=_no_tick) -> NDArray[np.intp]:
    half = _half(job.bounds)
    depth = quadtree_depth(job.boxes, half)
    scale = _world.scale(half, 2.0**depth)
    levels, nrep = _placement(job.boxes.shape[0])
    _qt.place(job.boxes, job.bounds[0], job.bounds[1], scale, depth, QUADTREE_SLACK,
              levels, nrep)
    return _walk_cells(job, depth, scale, levels, nrep, tick)


def grid_depth(boxes: NDArray[np.float64], half: float) -> int:
    """Grid of 2**L cells a side: cells GRID_FACTOR times the typical box."""
    n = boxes.shape[0]
    octaves = _world.log2_ratio(half, GRID_FACTOR * 0.5 * _typical_extent(boxes))
    if octaves is None:
        octaves = 0.5 * math.log2(n)
    return int(min(_qt.MAX_DEPTH, max(1, math.floor(octaves))))


def _run_grid(job: _Job, tick=_no_tick) -> NDArray[np.intp]:
    n = job.boxes.shape[0]
    half = _half(job.bounds)
    depth = grid_depth(job.boxes, half)
    levels, nrep = _placement(n)
    while True:
        scale = _world.scale(half, 2.0**depth)
        _grid.place_finest(job.boxes, job.bounds[0], job.bounds[1], scale, depth, levels, nrep)
        # A box may cover up to 4**depth cells: sum as floats, which cannot
        # wrap around (once within the budget, the int64 sum is exact too).
        if depth <= 1 or float(nrep.sum(dtype=np.float64)) <= GRID_BUDGET * n + 1024:
            break
        depth -= 1  # a few big boxes cover too many cells: coarsen
    return _walk_cells(job, depth, scale, levels, nrep, tick)


def _placement(n: int) -> tuple[NDArray[np.int8], NDArray[np.int64]]:
    return _work.buffer("levels", n, np.int8), _work.buffer("nrep", n, np.int64)


def _walk_cells(job: _Job, depth: int, scale: float, levels, nrep,
                tick=_no_tick) -> NDArray[np.intp]:
    """Entries of every (box, cell), radix-sorted into walk order, then the walk."""
    tick("place")
    keys, objs = _entries(job, depth, scale, levels, nrep)
    tick("entries")
    return walk_entries(keys, objs, job.boxes, job.bounds[0], job.bounds[1], scale, scale,
                        depth, job.narrow(), job.boxes.shape[0], tick)[0]


def walk_entries(keys, objs, boxes, x0, y0, sx, sy, depth, narrow, n, tick=_no_tick):
    """Sort the entries into walk order, gather them, walk: ``(pairs, candidate tests)``.

    ``n`` bounds the object indices, ``sx``/``sy`` are the two axes'
    scales (``LinearQuadtree.pairs`` calls :func:`walk_sorted` directly).
    """
    skeys, sobjs = _sorted_entries(keys, objs, 2 * depth + _qt.KEY_EXTRA_BITS)
    tick("radix sort")
    return walk_sorted(skeys, sobjs, boxes, x0, y0, sx, sy, depth, narrow, n, tick)


def walk_sorted(skeys, sobjs, boxes, x0, y0, sx, sy, depth, narrow, n, tick=_no_tick):
    """Walk entries already in walk order: ``(pairs, candidate tests)``."""
    first = _radix.run_starts(skeys, _qt.SUB_BITS)
    maxstack = _qt.max_stack(skeys, first, depth)
    tick("cells")
    m = skeys.shape[0]
    cols = [_work.buffer(f"c{t}", m, np.float64) for t in range(4)]
    cols += [_work.buffer(f"q{t}", m, _IDX) for t in range(2)]
    _qt.gather(sobjs, boxes, x0, y0, sx, sy, depth, *cols)
    tick("gather")
    nchunks = chunk_count(m, grain=1024)  # a few chunks per thread: balance
    cb = balanced(first, nchunks)
    tests = np.zeros(nchunks, np.int64)
    args = (skeys, sobjs, first, *cols, x0, sx, depth, maxstack, cb) + narrow + (tests,)
    pairs = collect(_qt.walk, args, nchunks, n, _guess(n), tick=tick)
    return pairs, int(tests.sum())


def _entries(job: _Job, depth: int, scale: float, levels, nrep):
    """Sort key and object of every (box, cell) entry, in box order."""
    n = job.boxes.shape[0]
    starts = _work.buffer("starts", n + 1, np.int64)
    starts[0] = 0
    np.cumsum(nrep, out=starts[1:])
    m = int(starts[-1])
    keys = _work.buffer("ka", m, np.int64)
    objs = _work.buffer("va", m, _IDX)
    _qt.entries(job.boxes, job.bounds[0], job.bounds[1], scale, depth, levels, starts, keys,
                objs)
    return keys, objs


def _run_sweep(job: _Job) -> NDArray[np.intp]:
    boxes = job.boxes
    n = boxes.shape[0]
    x0, y0, x1, y1 = job.bounds
    step = max(1, n // _SAMPLE)
    s = boxes[::step]
    # Expected overlaps along an axis ~ mean extent / range: sweep the sparser.
    # (Circles near +-1.8e308 have infinite boxes: inf / inf is NaN, then x.)
    with np.errstate(over="ignore", invalid="ignore"):
        dens_x = np.mean(s[:, 2] * 0.5 - s[:, 0] * 0.5) / max(_world.half_span(x0, x1), 1e-300)
        dens_y = np.mean(s[:, 3] * 0.5 - s[:, 1] * 0.5) / max(_world.half_span(y0, y1), 1e-300)
    axis = 1 if dens_y < dens_x else 0
    origin, hi = (x0, x1) if axis == 0 else (y0, y1)
    bits = min(40, max(8, n.bit_length() + 4))
    top = (1 << bits) - 1
    scale = _world.scale(_world.half_span(origin, hi), top + 1)
    keys = _work.buffer("ka", n, np.int64)
    his = _work.buffer("his", n, np.int64)
    _sweep.sweep_keys(boxes, axis, origin, scale, top, keys, his)
    order = _work.buffer("va", n, _IDX)
    order[:] = np.arange(n, dtype=_IDX)
    skeys, order = _sorted_entries(keys, order, bits)
    coords = _work.buffer("coords", 4 * n, np.float64).reshape(n, 4)
    shis = _work.buffer("shis", n, np.int64)
    _sweep.gather_sorted(order, boxes, his, coords, shis)
    nchunks = chunk_count(n)
    cb = np.linspace(0, n, nchunks + 1).astype(np.int64)
    args = (skeys, shis, order, coords) + job.narrow() + (cb,)
    return collect(_sweep.sweep, args, nchunks, n, _guess(n))


def _run_brute(job: _Job) -> NDArray[np.intp]:
    n = job.boxes.shape[0]
    if n <= BRUTE_SERIAL:
        return _brute.brute_small(job.boxes, *job.narrow())
    cols = np.ascontiguousarray(job.boxes.T)
    work = np.zeros(n + 1, np.float64)
    np.cumsum(np.arange(n, 0, -1, dtype=np.float64), out=work[1:])  # row i tests n - i - 1
    nchunks = chunk_count(n, grain=256, most=64)
    cb = balanced(work, nchunks)
    args = (cols,) + job.narrow() + (cb,)
    return collect(_brute.brute, args, nchunks, n, _guess(n), ordered=True)


_RUNNERS = {
    "brute": _run_brute,
    "sweep": _run_sweep,
    "grid": _run_grid,
    "quadtree": _run_quadtree,
}


def choose_method(boxes: NDArray[np.float64]) -> str:
    """The ``auto`` rule; docs/benchmarks.md has the figures behind it.

    Fixed costs dominate small inputs, where brute force (in one serial
    call) and then the sweep win; from about 1,500 boxes on, the grid is the
    fastest on every named scene.  The size spread was measured and does not
    move the choice: with sides over 3 decades ("wide"), heavy-tailed sizes
    or big boxes over clustered specks, the grid stays ahead of the
    quadtree (it enters a big box in the cells it covers, within a budget
    of entries, instead of testing it against a whole subtree), so the
    rule needs only the count.
    """
    n = boxes.shape[0]
    if n < BRUTE_BELOW:
        return "brute"
    if n < SWEEP_BELOW:
        return "sweep"
    return "grid"


@contextmanager
def _threads(workers: int | None):
    if workers is None:
        yield
        return
    before = numba.get_num_threads()
    numba.set_num_threads(min(workers, numba.config.NUMBA_NUM_THREADS))
    try:
        yield
    finally:
        numba.set_num_threads(before)


def _filters(n, groups, categories, masks) -> tuple:
    g = _cast.per_object(groups, "groups", n, np.int64)
    c = _cast.per_object(categories, "categories", n, np.uint64)
    m = _cast.per_object(masks, "masks", n, np.uint64)
    mode = 0
    if g is not None:
        mode |= MODE_GROUPS
    if c is not None or m is not None:
        mode |= MODE_MASKS
        full = np.full(n, np.iinfo(np.uint64).max, np.uint64)
        c = full if c is None else c
        m = full if m is None else m
    return (_NO_GROUPS if g is None else g, _NO_BITS if c is None else c,
            _NO_BITS if m is None else m, mode)


def _solve(job: _Job, method: str) -> NDArray[np.intp]:
    n = job.boxes.shape[0]
    if n < 2:
        return _empty()
    if n >= 2**31:
        raise ValueError(f"boxes: at most 2**31 - 1 objects supported, found {n}")
    if method == "auto":
        method = choose_method(job.boxes)
    return _RUNNERS[method](job)


def _search(boxes, bounds, circles, method, groups, categories, masks):
    """Check the options shared by the public functions, then solve."""
    method = _cast.method(method, ("auto",) + METHODS)
    g, c, m, mode = _filters(boxes.shape[0], groups, categories, masks)
    if circles.shape[0]:
        mode |= MODE_CIRCLES
    return _solve(_Job(boxes, bounds, circles, g, c, m, mode), method)


def find_pairs(
    boxes: ArrayLike,
    *,
    method: str = "auto",
    groups: ArrayLike | None = None,
    categories: ArrayLike | None = None,
    masks: ArrayLike | None = None,
    workers: int | None = None,
) -> NDArray[np.intp]:
    """Find every pair of overlapping boxes.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        ``minx, miny, maxx, maxy`` per row; any real dtype or layout, or
        nested lists.  Zero-size boxes are allowed.
    method : {"auto", "brute", "sweep", "grid", "quadtree"}
        Broad-phase algorithm; every method returns the identical array.
    groups : array_like of int, shape (n,), optional
        Two boxes with the same non-zero group never collide.
    categories, masks : array_like of uint64, shape (n,), optional
        A pair is kept only if ``categories[i] & masks[j]`` and
        ``categories[j] & masks[i]`` are both non-zero.  Default: all bits.
    workers : int, optional
        Threads to use (default: all).  The result does not depend on it.

    Returns
    -------
    ndarray of intp, shape (k, 2)
        Each colliding pair once, ``i < j`` in each row, rows sorted.  Two
        boxes collide when they overlap with positive length on both axes:
        touching edges do not count.

    Raises
    ------
    ValueError
        Wrong shape, NaN or infinite coordinates, ``minx > maxx`` or
        ``miny > maxy`` (the message names the row), unknown ``method``.
    TypeError
        Non-numeric input.

    Examples
    --------
    >>> import numpy as np, broadphase as bp
    >>> boxes = np.array([[0, 0, 2, 2], [1, 1, 3, 3], [5, 5, 6, 6], [2, 0, 4, 1]])
    >>> bp.find_pairs(boxes).tolist()
    [[0, 1]]
    >>> bp.find_pairs(boxes, method="quadtree").tolist()
    [[0, 1]]
    >>> bp.find_pairs([[0, 0, 2, 2], [1, 1, 3, 3]], groups=[7, 7]).tolist()
    []
    """
    with _threads(_cast.workers(workers)):  # validation runs in parallel too
        arr, bounds = _cast.boxes(boxes)
        return _search(arr, bounds, _NO_CIRCLES, method, groups, categories, masks)


def find_circle_pairs(
    centers: ArrayLike,
    radii: ArrayLike,
    *,
    method: str = "auto",
    groups: ArrayLike | None = None,
    categories: ArrayLike | None = None,
    masks: ArrayLike | None = None,
    workers: int | None = None,
) -> NDArray[np.intp]:
    """Find every pair of overlapping circles.

    Two circles collide when the distance between their centres is strictly
    less than the sum of their radii; the test is exact (no rounding can
    flip it) for every finite input.

    Parameters
    ----------
    centers : array_like, shape (n, 2)
        ``x, y`` per row.
    radii : float or array_like, shape (n,)
        Radii >= 0; a scalar applies to every circle.
    method, groups, categories, masks, workers
        As in :func:`find_pairs`.

    Returns
    -------
    ndarray of intp, shape (k, 2)
        Each colliding pair once, ``i < j``, rows sorted.

    Raises
    ------
    ValueError
        Wrong shapes, NaN or infinite coordinates, a negative radius, a
        ``radii`` length that is not ``n`` (the message names the row),
        unknown ``method``.
    TypeError
        Non-numeric input.

    Examples
    --------
    >>> import broadphase as bp
    >>> bp.find_circle_pairs([[0, 0], [3, 0], [10, 0]], [2, 1.5, 1]).tolist()
    [[0, 1]]
    >>> bp.find_circle_pairs([[0, 0], [2, 0]], 1.0).tolist()  # touching: no
    []
    """
    with _threads(_cast.workers(workers)):
        xyr, bxs, bounds = _cast.circles(centers, radii)
        return _search(bxs, bounds, xyr, method, groups, categories, masks)


def find_pairs_between(
    boxes_a: ArrayLike,
    boxes_b: ArrayLike,
    *,
    method: str = "auto",
    workers: int | None = None,
) -> NDArray[np.intp]:
    """Find every overlapping pair with one box from each set.

    Parameters
    ----------
    boxes_a, boxes_b : array_like, shapes (na, 4) and (nb, 4)
        Boxes as in :func:`find_pairs`.
    method, workers
        As in :func:`find_pairs`.

    Returns
    -------
    ndarray of intp, shape (k, 2)
        Column 0 indexes ``boxes_a``, column 1 ``boxes_b``; rows sorted.

    Examples
    --------
    >>> import broadphase as bp
    >>> bullets = [[0, 0, 1, 1], [5, 5, 6, 6]]
    >>> enemies = [[0.5, 0.5, 2, 2], [0.2, 0.2, 0.8, 0.8], [9, 9, 10, 10]]
    >>> bp.find_pairs_between(bullets, enemies).tolist()
    [[0, 0], [0, 1]]
    """
    with _threads(_cast.workers(workers)):
        return _between(boxes_a, boxes_b, method)


def _between(boxes_a, boxes_b, method) -> NDArray[np.intp]:
    a, ba = _cast.boxes(boxes_a, "boxes_a")
    b, bb = _cast.boxes(boxes_b, "boxes_b")
    method = _cast.method(method, ("auto",) + METHODS)
    na, nb = a.shape[0], b.shape[0]
    if na == 0 or nb == 0:
        return _empty()
    # One search over both sets; group -1 / -2 keeps pairs within a set out.
    both = np.concatenate([a, b])
    bounds = (min(ba[0], bb[0]), min(ba[1], bb[1]), max(ba[2], bb[2]), max(ba[3], bb[3]))
    groups = np.concatenate([np.full(na, -1, np.int64), np.full(nb, -2, np.int64)])
    pairs = _solve(_Job(both, bounds, _NO_CIRCLES, groups, _NO_BITS, _NO_BITS, MODE_GROUPS),
                   method)
    pairs[:, 1] -= na
    return pairs
