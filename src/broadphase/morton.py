"""Morton (Z-order) numbers of the linear quadtree, for teaching and debugging.

The arithmetic of the seed articles, vectorised over NumPy arrays (scalars
accepted and returned as NumPy scalars):

* :func:`encode` / :func:`decode`: cell coordinates <-> Morton number, x in
  the even bits;
* :func:`cell_of`: the level and cell of a box from its two corner codes
  (highest non-zero 2-bit group of their XOR);
* :func:`locate`: the same, straight from boxes and the world bounds;
* :func:`linear_index`: position of a cell in the one linear array that
  holds all levels, level l starting at (4**l - 1) / 3 (the core's rule,
  ``morton::linear_index``, the one the moving tree numbers its cells by).

Examples
--------
>>> from broadphase import morton
>>> int(morton.encode(3, 6))
45
>>> [int(v) for v in morton.cell_of(19, 31, depth=3)]
[1, 1]
>>> int(morton.linear_index(2, 11))
16
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _cast, _core, _exact

__all__ = ["encode", "decode", "cell_of", "locate", "linear_index", "MAX_DEPTH"]

#: Deepest level accepted by these functions (the pair search itself stops
#: at 25, leaving key bits for the level and the order inside a cell).
MAX_DEPTH: int = _core.MORTON_MAX_DEPTH


def _ints(value, name: str, below: int) -> NDArray[np.int64]:
    arr = _exact.integers(value, name, np.int64)  # exactly; no booleans, no masked values
    if arr.size and (arr.min() < 0 or arr.max() >= below):
        bad = arr.flat[np.flatnonzero((arr.ravel() < 0) | (arr.ravel() >= below))[0]]
        raise ValueError(f"{name}: expected integers in [0, {below}), found {bad}")
    return np.asarray(arr, dtype=np.int64, order="C")  # keeps 0-d as 0-d


def _flat(arr: NDArray) -> NDArray[np.int64]:
    """As the core reads it: 1-D, C-contiguous, aligned int64 (a copy only when needed)."""
    return _exact.c_array(arr, np.int64).ravel()


def _out(arr: NDArray, shape: tuple) -> NDArray | np.generic:
    return arr.reshape(shape) if shape else arr.reshape(())[()]


def encode(ix: ArrayLike, iy: ArrayLike) -> NDArray[np.int64] | np.int64:
    """Morton number of the cell at column ``ix``, row ``iy``.

    Parameters
    ----------
    ix, iy : int or array_like of int
        Cell coordinates, each in ``[0, 2**31)``; broadcast together.

    Returns
    -------
    int64 or ndarray of int64
        Bits of ``ix`` in the even positions, bits of ``iy`` in the odd ones.

    Examples
    --------
    >>> from broadphase import morton
    >>> int(morton.encode(3, 6)), int(morton.encode(1, 2)), int(morton.encode(6, 3))
    (45, 9, 30)
    >>> morton.encode([0, 1, 0, 1], [0, 0, 1, 1]).tolist()
    [0, 1, 2, 3]
    """
    x, y = np.broadcast_arrays(_ints(ix, "ix", 2**31), _ints(iy, "iy", 2**31))
    out = _core.morton_encode(_flat(x), _flat(y))
    return _out(out, x.shape)


def decode(code: ArrayLike) -> tuple:
    """Cell coordinates ``(ix, iy)`` of Morton numbers; inverse of :func:`encode`.

    Parameters
    ----------
    code : int or array_like of int
        Morton numbers in ``[0, 2**62)``.

    Returns
    -------
    ix, iy : int64 or ndarray of int64
        Column (the even bits) and row (the odd bits), shaped like ``code``.

    Examples
    --------
    >>> from broadphase import morton
    >>> [int(v) for v in morton.decode(45)]
    [3, 6]
    """
    c = _ints(code, "code", 2**62)
    ox, oy = _core.morton_decode(_flat(c))
    return _out(ox, c.shape), _out(oy, c.shape)


def cell_of(code0: ArrayLike, code1: ArrayLike, depth: int) -> tuple:
    """Level and cell of a box whose corners lie in cells ``code0`` and ``code1``.

    The level is given by the highest non-zero 2-bit group of
    ``code0 ^ code1`` (level ``depth`` if they are equal), the cell by
    ``code1 >> 2 * (depth - level)``.

    Parameters
    ----------
    code0, code1 : int or array_like of int
        Morton numbers of the cells of a box's two corners at level
        ``depth``, each in ``[0, 4**depth)``; broadcast together.
    depth : int
        Level of the finest cells, ``0 <= depth <= MAX_DEPTH``.

    Returns
    -------
    levels, indices : int64 or ndarray of int64
        Level of the smallest cell holding both corners (0 is the whole
        world) and that cell's Morton number inside its level.

    Examples
    --------
    The worked examples of seed 001 (depth 3):

    >>> from broadphase import morton
    >>> [tuple(int(v) for v in morton.cell_of(a, b, 3)) for a, b in [(19, 31), (44, 47), (15, 60)]]
    [(1, 1), (2, 11), (0, 0)]
    """
    d = _depth(depth)
    a, b = np.broadcast_arrays(_ints(code0, "code0", 4**d), _ints(code1, "code1", 4**d))
    levels, index = _core.morton_cell_of(_flat(a), _flat(b), d)
    return _out(levels, a.shape), _out(index, a.shape)


def _depth(depth) -> int:
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)):
        raise TypeError(f"depth: expected an int, found {depth!r}")
    if not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth: expected 0 <= depth <= {MAX_DEPTH}, found {depth}")
    return int(depth)


def locate(boxes: ArrayLike, bounds, depth: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The seeds' cell of each box: ``(levels, indices)``.

    The world ``bounds = (minx, miny, maxx, maxy)`` is split into
    ``2**depth`` columns and rows; a coordinate quantizes to
    ``floor((v - min) / cell)`` clamped to the grid, so one on or past the far
    edge belongs to the last cell (and one before the near edge to the
    first).  Level 0 is the whole world, level ``depth`` the finest; the
    index is the Morton number inside the level.

    Parameters
    ----------
    boxes : array_like, shape (n, 4) or (4,)
        ``minx, miny, maxx, maxy`` per row, validated as in
        :func:`broadphase.find_pairs`; one box may be given as a flat row.
    bounds : sequence of 4 floats
        The world ``(minx, miny, maxx, maxy)``, with ``minx < maxx`` and
        ``miny < maxy``.
    depth : int
        Level of the finest cells, ``0 <= depth <= MAX_DEPTH``.

    Returns
    -------
    levels, indices : ndarray of int64, shape (n,)
        Each box's level and Morton number inside that level (for a single
        ``(4,)`` box: arrays of one element).

    Notes
    -----
    The cell of a coordinate is computed in floating point as
    ``(v/2 - min/2) * (2**depth / ((max - min)/2))``, so a coordinate within
    a rounding error of a cell border may land in the cell on either side of
    it.  The second factor is capped at 1e300 so that no step overflows: in
    a world narrower than about ``2**depth * 2e-300`` (for depth 29, 1e-291)
    the cells are coarser than ``2**depth`` a side and boxes sit in the first
    cells.  The pair search relies only on this quantization being monotone,
    so neither changes which pairs are found.

    Examples
    --------
    >>> from broadphase import morton
    >>> boxes = [[10, 10, 20, 20], [240, 10, 260, 20], [0, 0, 500, 500], [490, 490, 500, 500]]
    >>> levels, cells = morton.locate(boxes, (0, 0, 500, 500), depth=3)
    >>> levels.tolist(), cells.tolist()
    ([3, 0, 0, 3], [0, 0, 0, 63])
    >>> [v.tolist() for v in morton.locate([24, 48, 24, 48], (0, 0, 64, 64), depth=3)]
    [[3], [45]]
    """
    d = _depth(depth)
    if np.ndim(boxes) == 1 and np.shape(boxes) == (4,):
        boxes = [boxes]
    arr = _cast.rows(boxes, "boxes", 4, "minx, miny, maxx, maxy")
    arr, _ = _cast.boxes(arr)
    x0, y0, x1, y1 = _exact.world(bounds)
    return _core.morton_locate(arr, (x0, y0, x1, y1), d)


def linear_index(level: ArrayLike, index: ArrayLike) -> NDArray[np.int64] | np.int64:
    """Position of cell ``index`` of ``level`` in the linear array of all levels.

    Level ``l`` starts at ``(4**l - 1) / 3``, after the ``1 + 4 + ... +
    4**(l-1)`` cells of the levels above it.  Computed by the core
    (``morton::linear_index`` in ``rust/core/src/morton.rs``), which the
    moving tree numbers its cells by.

    Parameters
    ----------
    level : int or array_like of int
        Levels in ``[0, MAX_DEPTH]``.
    index : int or array_like of int
        Morton numbers inside the level, ``0 <= index < 4**level``;
        broadcast with ``level``.

    Returns
    -------
    int64 or ndarray of int64
        ``(4**level - 1) // 3 + index``.

    Examples
    --------
    >>> from broadphase import morton
    >>> morton.linear_index([0, 1, 2, 3], [0, 0, 11, 0]).tolist()
    [0, 1, 16, 21]
    """
    lv = _ints(level, "level", MAX_DEPTH + 1)
    ix = _ints(index, "index", 2**62)
    lv, ix = np.broadcast_arrays(lv, ix)
    if ix.size and np.any(ix >= 4**lv):
        k = int(np.flatnonzero((ix >= 4**lv).ravel())[0])
        raise ValueError(
            f"index: expected index < 4**level, found {ix.ravel()[k]} at level {lv.ravel()[k]}"
        )
    out = _core.morton_linear_index(_flat(lv), _flat(ix))
    return _out(out, lv.shape)
