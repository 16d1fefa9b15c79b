"""Morton (Z-order) numbers of the linear quadtree and octree, for teaching and debugging.

The arithmetic of the seed articles, vectorised over NumPy arrays (scalars
accepted and returned as NumPy scalars), in 2D and one dimension up:

* :func:`encode` / :func:`decode`: cell coordinates <-> Morton number, x in
  the even bits (in 3D: x, y, z in bits ``3b``, ``3b + 1``, ``3b + 2``);
* :func:`cell_of`: the level and cell of a box from its two corner codes
  (highest non-zero 2-bit group of their XOR; 3-bit groups in 3D);
* :func:`locate`: the same, straight from boxes and the world bounds
  (``(n, 4)`` boxes in a 4-value world, or ``(n, 6)`` in a 6-value one);
* :func:`linear_index`: position of a cell in the one linear array that
  holds all levels, level l starting at (4**l - 1) / 3 (the core's rule,
  ``morton::linear_index``, the one the moving tree numbers its cells by),
  or at (8**l - 1) / 7 in 3D.

The 2D functions are the seeds' own; ``dims=3`` (or ``iz`` for
:func:`encode`, six columns for :func:`locate`) gives the octree's.

Examples
--------
>>> from broadphase import morton
>>> int(morton.encode(3, 6))
45
>>> [int(v) for v in morton.cell_of(19, 31, depth=3)]
[1, 1]
>>> int(morton.linear_index(2, 11))
16
>>> int(morton.encode(1, 0, 1)), [int(v) for v in morton.decode(5, dims=3)]
(5, [1, 0, 1])
>>> int(morton.linear_index(2, 11, dims=3))
20
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _cast, _core, _exact

__all__ = ["encode", "decode", "cell_of", "locate", "linear_index", "MAX_DEPTH", "MAX_DEPTH_3D"]

#: Deepest level accepted by these functions (the pair search itself stops
#: at 25, leaving key bits for the level and the order inside a cell).
MAX_DEPTH: int = _core.MORTON_MAX_DEPTH
#: Deepest level accepted in 3D (``dims=3``): 3 * 20 code bits, like the 2 * 29
#: of 2D, stay below 2**62 (the 3D pair search itself stops at 16).
MAX_DEPTH_3D: int = _core.MORTON_MAX_DEPTH_3D

#: Bits of each cell coordinate :func:`encode` takes: codes of 62 bits in
#: 2D, of 63 in 3D.
_BITS = {2: 31, 3: 21}
_COLUMNS = {2: "minx, miny, maxx, maxy", 3: "minx, miny, minz, maxx, maxy, maxz"}


def _ints(value, name: str, below: int) -> NDArray[np.int64]:
    arr = _exact.integers(value, name, np.int64)  # exactly; no booleans, no masked values
    if arr.size and (arr.min() < 0 or arr.max() >= below):
        flat = arr.ravel()
        k = int(np.flatnonzero((flat < 0) | (flat >= below))[0])
        where = _exact._where(name, arr.shape, k)
        raise ValueError(f"{where}: expected integers in [0, {below}), found {flat[k]}")
    return np.asarray(arr, dtype=np.int64, order="C")  # keeps 0-d as 0-d


def _flat(arr: NDArray) -> NDArray[np.int64]:
    """As the core reads it: 1-D, C-contiguous, aligned int64 (a copy only when needed)."""
    return _exact.c_array(arr, np.int64).ravel()


def _out(arr: NDArray, shape: tuple) -> NDArray | np.generic:
    return arr.reshape(shape) if shape else arr.reshape(())[()]


def _dims(dims) -> int:
    """``dims`` as 2 or 3, or TypeError/ValueError naming it."""
    if isinstance(dims, (bool, np.bool_)) or not isinstance(dims, (int, np.integer)):
        raise TypeError(f"dims: expected 2 or 3, found {dims!r}")
    if dims not in (2, 3):
        raise ValueError(f"dims: expected 2 or 3, found {dims}")
    return int(dims)


def _most(dims: int) -> int:
    return MAX_DEPTH if dims == 2 else MAX_DEPTH_3D


def encode(ix: ArrayLike, iy: ArrayLike, iz: ArrayLike | None = None
           ) -> NDArray[np.int64] | np.int64:
    """Morton number of the cell at column ``ix``, row ``iy`` (and layer ``iz`` in 3D).

    Parameters
    ----------
    ix, iy : int or array_like of int
        Cell coordinates, each in ``[0, 2**31)`` (in ``[0, 2**21)`` with
        ``iz``); broadcast together.
    iz : int or array_like of int, optional
        The third coordinate, in ``[0, 2**21)``: given, the cell is 3D.

    Returns
    -------
    int64 or ndarray of int64
        Bits of ``ix`` in the even positions, bits of ``iy`` in the odd
        ones; in 3D bit ``b`` of ``ix``, ``iy``, ``iz`` at positions
        ``3b``, ``3b + 1``, ``3b + 2``.

    Examples
    --------
    >>> from broadphase import morton
    >>> int(morton.encode(3, 6)), int(morton.encode(1, 2)), int(morton.encode(6, 3))
    (45, 9, 30)
    >>> morton.encode([0, 1, 0, 1], [0, 0, 1, 1]).tolist()
    [0, 1, 2, 3]
    >>> morton.encode([1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1]).tolist()
    [1, 2, 4, 7]
    >>> int(morton.encode(3, 0, 2))
    41
    """
    if iz is None:
        x, y = np.broadcast_arrays(_ints(ix, "ix", 2**31), _ints(iy, "iy", 2**31))
        return _out(_core.morton_encode(_flat(x), _flat(y)), x.shape)
    top = 2 ** _BITS[3]
    x, y, z = np.broadcast_arrays(_ints(ix, "ix", top), _ints(iy, "iy", top),
                                  _ints(iz, "iz", top))
    return _out(_core.morton_encode3(_flat(x), _flat(y), _flat(z)), x.shape)


def decode(code: ArrayLike, dims: int = 2) -> tuple:
    """Cell coordinates ``(ix, iy)`` (or ``(ix, iy, iz)``) of Morton numbers.

    The inverse of :func:`encode`.

    Parameters
    ----------
    code : int or array_like of int
        Morton numbers, in ``[0, 2**62)`` (in 3D, ``[0, 2**63)``).
    dims : {2, 3}
        The dimension of the cells.

    Returns
    -------
    ix, iy : int64 or ndarray of int64
        Column (the even bits) and row (the odd bits), shaped like ``code``;
        in 3D ``ix, iy, iz`` (bits ``3b``, ``3b + 1``, ``3b + 2``).

    Examples
    --------
    >>> from broadphase import morton
    >>> [int(v) for v in morton.decode(45)]
    [3, 6]
    >>> [int(v) for v in morton.decode(41, dims=3)]
    [3, 0, 2]
    """
    d = _dims(dims)
    c = _ints(code, "code", 2 ** (d * _BITS[d]))
    axes = (_core.morton_decode if d == 2 else _core.morton_decode3)(_flat(c))
    return tuple(_out(a, c.shape) for a in axes)


def cell_of(code0: ArrayLike, code1: ArrayLike, depth: int, dims: int = 2) -> tuple:
    """Level and cell of a box whose corners lie in cells ``code0`` and ``code1``.

    The level is given by the highest non-zero 2-bit group of
    ``code0 ^ code1`` (level ``depth`` if they are equal), the cell by
    ``code1 >> 2 * (depth - level)``; in 3D by 3-bit groups and
    ``code1 >> 3 * (depth - level)``.

    Parameters
    ----------
    code0, code1 : int or array_like of int
        Morton numbers of the cells of a box's two corners at level
        ``depth``, each in ``[0, 4**depth)`` (``[0, 8**depth)`` in 3D);
        broadcast together.
    depth : int
        Level of the finest cells, ``0 <= depth <= MAX_DEPTH`` (in 3D,
        ``MAX_DEPTH_3D``).
    dims : {2, 3}
        The dimension of the cells.

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

    In 3D, depth 2: corners in cells (1, 0, 0) and (2, 0, 0) part at the
    root, corners in (0, 0, 2) and (1, 1, 3) share cell 4 of level 1:

    >>> [tuple(int(v) for v in morton.cell_of(a, b, 2, dims=3)) for a, b in [(1, 8), (32, 39)]]
    [(0, 0), (1, 4)]
    """
    d = _dims(dims)
    depth = _depth(depth, d)
    below = 2 ** (d * depth)
    a, b = np.broadcast_arrays(_ints(code0, "code0", below), _ints(code1, "code1", below))
    kernel = _core.morton_cell_of if d == 2 else _core.morton_cell_of3
    levels, index = kernel(_flat(a), _flat(b), depth)
    return _out(levels, a.shape), _out(index, a.shape)


def _depth(depth, dims: int = 2) -> int:
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)):
        raise TypeError(f"depth: expected an int, found {depth!r}")
    most = _most(dims)
    if not 0 <= depth <= most:
        raise ValueError(f"depth: expected 0 <= depth <= {most}"
                         f"{' in 3D' if dims == 3 else ''}, found {depth}")
    return int(depth)


def locate(boxes: ArrayLike, bounds, depth: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The seeds' cell of each box: ``(levels, indices)``.

    The world ``bounds = (minx, miny, maxx, maxy)`` is split into
    ``2**depth`` columns and rows; a coordinate quantizes to
    ``floor((v - min) / cell)`` clamped to the grid, so one on or past the far
    edge belongs to the last cell (and one before the near edge to the
    first).  Level 0 is the whole world, level ``depth`` the finest; the
    index is the Morton number inside the level.  In 3D (boxes of six
    columns, ``bounds = (minx, miny, minz, maxx, maxy, maxz)``) the world is
    split into ``2**depth`` cells along each of the three axes, and the cells
    are the octree's.

    Parameters
    ----------
    boxes : array_like, shape (n, 4) or (4,), or (n, 6) or (6,)
        ``minx, miny, maxx, maxy`` per row, or in 3D ``minx, miny, minz,
        maxx, maxy, maxz``, validated as in :func:`broadphase.find_pairs`;
        one box may be given as a flat row.
    bounds : sequence of 4 (or 6) floats
        The world ``(minx, miny, maxx, maxy)``, with ``minx < maxx`` and
        ``miny < maxy``; for 3D boxes ``(minx, miny, minz, maxx, maxy,
        maxz)``, with ``minz < maxz`` too.  An empty ``boxes`` takes its
        dimension from the bounds.
    depth : int
        Level of the finest cells, ``0 <= depth <= MAX_DEPTH`` (in 3D,
        ``MAX_DEPTH_3D``).

    Returns
    -------
    levels, indices : ndarray of int64, shape (n,)
        Each box's level and Morton number inside that level (for a single
        flat box: arrays of one element).

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

    In 3D (cells 2 wide): a box in cell (0, 0, 0), one in cell (2, 0, 1),
    whose number is 8 + 4, and one across the middle:

    >>> cubes = [[0.5, 0.5, 0.5, 1.5, 1.5, 1.5], [5, 1, 3, 5.5, 1.5, 3.5], [3, 1, 1, 5, 2, 2]]
    >>> [v.tolist() for v in morton.locate(cubes, (0, 0, 0, 8, 8, 8), depth=2)]
    [[2, 2, 0], [0, 12, 0]]
    """
    if np.ndim(boxes) == 1 and np.shape(boxes) in ((4,), (6,)):
        boxes = [boxes]
    arr = _cast.shaped_rows(boxes, "boxes", {4: _COLUMNS[2], 6: _COLUMNS[3]})
    if arr.shape[0] == 0:
        world = _exact.world(bounds, (2, 3))  # no rows: the bounds say the dimension
        arr = np.empty((0, len(world)))
    else:
        world = _exact.world(bounds, (arr.shape[1] // 2,))
    d = _depth(depth, len(world) // 2)
    arr, _ = _cast.boxes(arr, dims=(2, 3))
    return _core.morton_locate(arr, world, d)


def linear_index(level: ArrayLike, index: ArrayLike, dims: int = 2
                 ) -> NDArray[np.int64] | np.int64:
    """Position of cell ``index`` of ``level`` in the linear array of all levels.

    Level ``l`` starts at ``(4**l - 1) / 3``, after the ``1 + 4 + ... +
    4**(l-1)`` cells of the levels above it; in 3D at ``(8**l - 1) / 7``,
    after ``1 + 8 + ... + 8**(l-1)``.  Computed by the core
    (``morton::linear_index_in`` in ``rust/core/src/morton.rs``), which the
    moving tree numbers its cells by.

    Parameters
    ----------
    level : int or array_like of int
        Levels in ``[0, MAX_DEPTH]`` (in 3D, ``[0, MAX_DEPTH_3D]``).
    index : int or array_like of int
        Morton numbers inside the level, ``0 <= index < 4**level`` (in 3D
        ``8**level``); broadcast with ``level``.
    dims : {2, 3}
        The dimension of the cells.

    Returns
    -------
    int64 or ndarray of int64
        ``(4**level - 1) // 3 + index``, or ``(8**level - 1) // 7 + index``.

    Examples
    --------
    >>> from broadphase import morton
    >>> morton.linear_index([0, 1, 2, 3], [0, 0, 11, 0]).tolist()
    [0, 1, 16, 21]
    >>> morton.linear_index([0, 1, 2, 3], [0, 0, 11, 0], dims=3).tolist()
    [0, 1, 20, 73]
    """
    d = _dims(dims)
    lv = _ints(level, "level", _most(d) + 1)
    ix = _ints(index, "index", 2 ** (d * _BITS[d]))
    lv, ix = np.broadcast_arrays(lv, ix)
    cells = np.left_shift(1, d * lv)  # 2**(d * level) cells in the level: below 2**63
    if ix.size and np.any(ix >= cells):
        k = int(np.flatnonzero((ix >= cells).ravel())[0])
        where = _exact._where("index", ix.shape, k)
        raise ValueError(f"{where}: expected index < {2**d}**level, found {ix.ravel()[k]} at "
                         f"level {lv.ravel()[k]}")
    kernel = _core.morton_linear_index if d == 2 else _core.morton_linear_index3
    return _out(kernel(_flat(lv), _flat(ix)), lv.shape)
