"""The public pair-finding functions: validate, then hand over to the Rust core.

Everything the core receives comes through :mod:`broadphase._cast`: C-contiguous
float64 rows and int64 / uint64 filter arrays of the right length; 2D
(``(n, 4)`` boxes, ``(n, 3)`` circles) or 3D (``(n, 6)`` boxes, ``(n, 4)``
spheres), which every method takes (``"quadtree"`` is then the octree).  The
core (``broadphase._core``, built from ``rust/``) checks every row in its first
pass; a bad row comes back as a ``_core.BadRow`` and is worded here, naming the
argument, the row and the value.  Method choice, grid sizing, the search and
the canonical order all happen in the core, with the GIL released.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _cast, _cast_circles, _cast_options, _cast_touching, _core, _periodic

__all__ = ["METHODS", "find_pairs", "find_circle_pairs", "find_pairs_between"]

#: Names accepted by ``method=`` besides ``"auto"``.
METHODS: tuple[str, ...] = ("brute", "sweep", "grid", "quadtree")
# "octree": the quadtree's name in 3D (either name runs the same method in either dimension)
_CHOICES = ("auto",) + METHODS + ("octree",)
_FLOAT64 = np.dtype(np.float64)
_DIMS = (2, 3)  # the one-call searches take 2D and 3D objects


def _empty() -> NDArray[np.intp]:
    return np.empty((0, 2), np.intp)


def find_pairs(
    boxes: ArrayLike,
    *,
    method: str = "auto",
    groups: ArrayLike | None = None,
    categories: ArrayLike | None = None,
    masks: ArrayLike | None = None,
    workers: int | None = None,
    format: str | None = None,
    period: ArrayLike | float | None = None,
    touching: bool = False,
) -> NDArray[np.intp]:
    """Find every pair of overlapping boxes, 2D or 3D.

    Parameters
    ----------
    boxes : array_like or table, shape (n, 4) or (n, 6)
        2D boxes ``minx, miny, maxx, maxy`` per row, or 3D boxes ``minx,
        miny, minz, maxx, maxy, maxz`` (or ``x, y, w, h`` and ``x, y, z, w,
        h, d``, see ``format``); any real dtype or layout, or nested lists.
        Zero-size boxes are allowed.  A list of pygame ``Rect``/``FRect``
        objects is read as ``x, y, w, h``.  A table -- a pandas or polars
        DataFrame, a pyarrow Table, a NumPy structured array -- is read by
        its column names, in any order and case, other columns ignored:
        ``minx, miny, maxx, maxy`` (or ``xmin, ymin, xmax, ymax``), or
        ``x, y, w, h`` (or ``width, height``), which sets ``format="xywh"``.
        A table with a z column (``z``, ``minz``, ``maxz``, ``zmin`` or
        ``zmax``) is 3D: ``minx, miny, minz, maxx, maxy, maxz`` (or ``xmin,
        ..., zmax``), or ``x, y, z, w, h, d`` (or ``width, height,
        depth``).  Other names are an error naming the columns found; a
        table without names (pandas' 0, 1, 2, 3) is read in order.  A
        GeoPandas GeoSeries or GeoDataFrame is read as its (active)
        geometries' bounds, ``.bounds``, never its other columns; an empty
        or missing geometry is refused, naming its row.  Every
        value must be one float64 holds exactly: integers beyond 2**53 in
        magnitude, fractions that would round, booleans, masked and missing
        values are refused, naming the row (counted from 0 in the table's
        order, not by its index) and the column.
    method : {"auto", "brute", "sweep", "grid", "quadtree", "octree"}
        Broad-phase algorithm; every method returns the identical array.
        For 3D boxes ``"grid"`` is a 3D grid and ``"quadtree"`` the linear
        octree, also spelled ``"octree"``.
    groups : array_like of int, shape (n,), optional
        Two boxes with the same non-zero group never collide.
    categories, masks : array_like of uint64, shape (n,), optional
        A pair is kept only if ``categories[i] & masks[j]`` and
        ``categories[j] & masks[i]`` are both non-zero.  Default: all bits.
    workers : int, optional
        Threads to use (default: all; a larger count than the machine has
        uses what it has, one beyond 2**31 - 1 is refused).  The result
        does not depend on it.
    format : {"corners", "xywh"}, optional
        ``"corners"``: rows are ``minx, miny, maxx, maxy`` (the default,
        except for pygame rects and tables named ``x, y, w, h``);
        ``"xywh"``: rows are ``x, y, w, h`` (position of the min corner and
        size, as pygame's ``Rect``), sizes ``>= 0``, the max corner
        ``x + w`` rounded to float64.  In 3D the same with six columns:
        ``minx, miny, minz, maxx, maxy, maxz`` or ``x, y, z, w, h, d``.  A
        format a table's names contradict is an error.
    period : float, sequence of (float or None), or array_like of shape (D, D), optional
        A periodic domain: the period per axis (``None`` leaves an axis
        open; one number applies to every axis).  Two boxes then collide
        when some copy of one, shifted by whole periods, overlaps the other;
        each pair is reported once.  Coordinates may lie anywhere (they need
        not be in ``[0, L)``).  A box may span at most half the period on a
        periodic axis (a wider one is an error naming the row).  A matrix
        is a triclinic cell: its rows are the cell's vectors, lower
        triangular (the first along x, the second in the x-y plane, as
        MDAnalysis' ``triclinic_vectors`` gives them) and reduced (each
        tilt at most half the diagonal entry of its column); copies are
        shifted by whole vectors, a box spans at most half of ``H[k, k]``
        on axis ``k``, and an object with a coordinate more than ``2**22``
        of the cell's smallest sides from the origin is refused (naming the
        row).
    touching : bool, optional
        ``False`` (the default): open boxes, touching is no collision.
        ``True``: closed boxes, ``a.minx <= b.maxx``, ``b.minx <= a.maxx``
        and the same in y (and z): boxes that share an edge, a face or a
        corner collide, a point on a box's edge or two equal points too --
        as shapely's ``intersects`` on envelopes, its ``STRtree`` and
        geopandas' ``sjoin`` count them.  Exact for every finite input
        but one: a max equal to float64's largest value
        (1.7976931348623157e308) is refused (the search raises each max by
        one step of float64, on a copy).

    Returns
    -------
    ndarray of intp, shape (k, 2)
        Each colliding pair once, ``i < j`` in each row, rows sorted.  Two
        boxes collide when ``a.minx < b.maxx``, ``b.minx < a.maxx`` and the
        same in y (and in z, for 3D boxes): touching edges, faces or
        corners do not count, unless ``touching=True``.

    Raises
    ------
    ValueError
        Wrong shape, NaN or infinite coordinates, ``minx > maxx``,
        ``miny > maxy`` or ``minz > maxz`` (the message names the row), a
        value float64 would round, a masked or missing value, unknown
        ``method``, table columns not named as above; with
        ``touching=True``, a max equal to float64's largest value.
    TypeError
        Non-numeric input, booleans, a ``touching`` that is not a bool.

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
    >>> bp.find_pairs([[3, 3, 10, 10], [12, 0, 20, 5]], format="xywh").tolist()
    [[0, 1]]

    Box 3 shares an edge with box 0 and one with box 1, which count with
    ``touching=True``:

    >>> bp.find_pairs(boxes, touching=True).tolist()
    [[0, 1], [0, 3], [1, 3]]

    A table is read by its column names, whatever their order:

    >>> import pandas as pd
    >>> df = pd.DataFrame({"minx": [0, 1], "maxx": [2, 3], "miny": [0, 1], "maxy": [2, 3]})
    >>> bp.find_pairs(df).tolist()
    [[0, 1]]
    >>> bp.find_pairs(pd.DataFrame({"x": [0, 1], "y": [0, 1], "w": [2, 2], "h": [2, 2]})).tolist()
    [[0, 1]]

    Six columns are 3D boxes; 0 and 2 share the face z = 2, which is no
    collision:

    >>> cubes = [[0, 0, 0, 2, 2, 2], [1, 1, 1, 3, 3, 3], [0, 0, 2, 2, 2, 4]]
    >>> bp.find_pairs(cubes).tolist()
    [[0, 1], [1, 2]]
    >>> bp.find_pairs([[0, 0, 0, 2, 2, 2], [1, 1, 1, 2, 2, 2]], format="xywh").tolist()
    [[0, 1]]

    In a periodic domain 10 wide in x (y open), a box reaching past x = 10
    meets one near x = 0:

    >>> bp.find_pairs([[9, 0, 11, 1], [0.5, 0, 1.5, 1]], period=(10, None)).tolist()
    [[0, 1]]
    >>> bp.find_pairs(pd.DataFrame({"x": [0, 1], "y": [0, 1], "z": [0, 5], "w": 2, "h": 2,
    ...                             "d": 2})).tolist()
    []
    """
    if (format is None and type(boxes) is np.ndarray and boxes.dtype == _FLOAT64 and boxes.ndim == 2
            and boxes.shape[1] in (4, 6) and boxes.shape[0] <= _cast_options.MAX_OBJECTS
            and boxes.flags.c_contiguous and boxes.flags.aligned and type(method) is str
            and method in _CHOICES and groups is None and categories is None and masks is None
            and workers is None and period is None and touching is False):
        # the common call, already in the form the core reads: the same checks, inline
        arr, out = boxes, _core.find_pairs(boxes, method)
    else:
        nthreads = _cast_options.workers(workers)
        if _cast_touching.touching(touching):  # checked as given, then searched with raised maxima
            arr = _cast_touching.closed(_cast.boxes(boxes, "boxes", nthreads, format, _DIMS)[0],
                                        "boxes")
        else:
            arr = _cast.box_rows(boxes, "boxes", format, _DIMS)
        n = arr.shape[0]
        method = _cast_options.method(method, _CHOICES)
        filters = _cast_options.filters(n, groups, categories, masks)
        per = _periodic.period(period, arr.shape[1] // 2)
        _periodic.open_boxes_only(per, touching)
        _cast_options.count(n, "boxes")
        out = _core.find_pairs(arr, method, workers=nthreads, **_periodic.given(per),
                               **filters)
    if type(out) is _core.BadRow:
        if out.code in _periodic.CODES:
            raise ValueError(_periodic.wide_box(arr, "boxes", out.row, out.code, per))
        raise ValueError(_cast.box_problem(arr, "boxes", out.row, out.code))
    return out


def find_circle_pairs(
    centers: ArrayLike,
    radii: ArrayLike | None = None,
    *,
    method: str = "auto",
    groups: ArrayLike | None = None,
    categories: ArrayLike | None = None,
    masks: ArrayLike | None = None,
    workers: int | None = None,
    period: ArrayLike | float | None = None,
    return_distances: bool = False,
    return_vectors: bool = False,
) -> NDArray[np.intp] | tuple[NDArray, ...]:
    """Find every pair of overlapping circles (2D) or spheres (3D).

    Two circles (spheres) collide when the distance between their centres
    is strictly less than the sum of their radii; the test is exact (no
    rounding can flip it) for every finite input.

    Parameters
    ----------
    centers : array_like or table, shape (n, 2) or (n, 3)
        ``x, y`` per row for circles, ``x, y, z`` for spheres.  A table (as
        in :func:`find_pairs`) is read by its columns ``x, y`` (and ``z``:
        a table with a column ``z`` holds spheres); a column ``r`` (or
        ``radius``) gives the radii.
    radii : float or array_like, shape (n,)
        Radii >= 0; a scalar applies to every circle.  Leave it out when
        ``centers`` is a table with radii (giving both is an error).
    method, groups, categories, masks, workers
        As in :func:`find_pairs`.
    period : float, sequence of (float or None), or array_like of shape (D, D), optional
        A periodic domain or a triclinic cell, as in :func:`find_pairs`: two
        balls collide when some copy of one overlaps the other.  A diameter
        may be at most half the period (of the cell: half of ``H[k, k]``).
    return_distances : bool
        Also return each pair's centre distance (by the nearest copy in a
        periodic domain), float64.
    return_vectors : bool
        Also return each pair's vector from the centre of ``i`` to that of
        ``j`` (the nearest copy), float64, shape (k, 2) or (k, 3).

    Returns
    -------
    pairs : ndarray of intp, shape (k, 2)
        Each colliding pair once, ``i < j``, rows sorted.  Alone when
        neither ``return_distances`` nor ``return_vectors`` is set, else
        first in a tuple ``(pairs, distances)``, ``(pairs, vectors)`` or
        ``(pairs, distances, vectors)``.  The pairs are decided exactly;
        distances and vectors are float64 values within a few units in
        the last place.

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
    >>> import pandas as pd
    >>> bp.find_circle_pairs(pd.DataFrame({"x": [0, 3], "y": [0, 0], "r": [2, 1.5]})).tolist()
    [[0, 1]]

    Three columns are spheres' centres; the distance from (0, 0, 0) to
    (1, 2, 2) is 3, so radii 1 and 2 only touch:

    >>> bp.find_circle_pairs([[0, 0, 0], [1, 2, 2], [1, 2, 3]], [1, 2, 0.5]).tolist()
    [[1, 2]]
    >>> bp.find_circle_pairs([[0, 0, 0], [1, 2, 2]], [1, 2.5]).tolist()
    [[0, 1]]

    In a periodic box 10 wide, (0.5, 5) and (9.5, 5) are 1 apart:

    >>> pairs, d = bp.find_circle_pairs([[0.5, 5], [9.5, 5]], 0.75, period=10,
    ...                                 return_distances=True)
    >>> pairs.tolist(), d.tolist()
    ([[0, 1]], [1.0])
    """
    nthreads = _cast_options.workers(workers)
    xyr = _cast_circles.circle_rows(centers, radii, _DIMS)
    n = xyr.shape[0]
    method = _cast_options.method(method, _CHOICES)
    filters = _cast_options.filters(n, groups, categories, masks)
    per = _periodic.period(period, xyr.shape[1] - 1)
    measure = _measure(return_distances, return_vectors)
    _cast_options.count(n, "centers")
    out = _core.find_pairs(None, method, circles=xyr, workers=nthreads, **_periodic.given(per),
                           measure=measure, **filters)
    if type(out) is _core.BadRow:
        if out.code in _periodic.CODES:
            raise ValueError(_periodic.wide_ball(xyr, radii, out.row, out.code, per))
        raise ValueError(_cast.circle_problem(xyr, radii, out.row, out.code))
    if measure:
        return tuple(v for v in out if v is not None)
    return out


def _measure(distances, vectors) -> int:
    """The core's ``measure`` bits for ``return_distances`` and ``return_vectors``."""
    for name, v in (("return_distances", distances), ("return_vectors", vectors)):
        if not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{name}: expected True or False, found {v!r}")
    return int(bool(distances)) | 2 * int(bool(vectors))


def find_pairs_between(
    boxes_a: ArrayLike,
    boxes_b: ArrayLike,
    *,
    method: str = "auto",
    workers: int | None = None,
    format: str | None = None,
    period: ArrayLike | float | None = None,
    touching: bool = False,
) -> NDArray[np.intp]:
    """Find every overlapping pair with one box from each set, 2D or 3D.

    Parameters
    ----------
    boxes_a, boxes_b : array_like or table, shapes (na, 4) and (nb, 4), or (na, 6) and (nb, 6)
        Boxes as in :func:`find_pairs` (pygame rects as ``x, y, w, h``,
        tables by their column names), each set read on its own; both 2D
        or both 3D (a 2D set and a 3D one are an error, unless one of them
        is empty).
    method, workers, format, period, touching
        As in :func:`find_pairs` (``format``, ``period`` and ``touching``
        apply to both sets).

    Returns
    -------
    ndarray of intp, shape (k, 2)
        Column 0 indexes ``boxes_a``, column 1 ``boxes_b``; rows sorted.

    Raises
    ------
    ValueError
        As :func:`find_pairs`, naming ``boxes_a`` or ``boxes_b``; one set
        2D and the other 3D.
    TypeError
        Non-numeric input, booleans.

    Examples
    --------
    >>> import broadphase as bp
    >>> bullets = [[0, 0, 1, 1], [5, 5, 6, 6]]
    >>> enemies = [[0.5, 0.5, 2, 2], [0.2, 0.2, 0.8, 0.8], [9, 9, 10, 10]]
    >>> bp.find_pairs_between(bullets, enemies).tolist()
    [[0, 0], [0, 1]]
    >>> bp.find_pairs_between(bullets, [[1, 1, 2, 2], [6, 0, 7, 5]], touching=True).tolist()
    [[0, 0], [1, 1]]

    In 3D, six columns per box:

    >>> rooms = [[0, 0, 0, 4, 4, 3], [4, 0, 0, 8, 4, 3]]
    >>> drones = [[3, 1, 1, 5, 2, 2], [7, 3, 3, 7.5, 3.5, 4]]
    >>> bp.find_pairs_between(drones, rooms).tolist()
    [[0, 0], [0, 1]]
    """
    nthreads = _cast_options.workers(workers)
    a, _ = _cast.boxes(boxes_a, "boxes_a", nthreads, format, _DIMS)
    b, _ = _cast.boxes(boxes_b, "boxes_b", nthreads, format, _DIMS)
    if _cast_touching.touching(touching):  # raised maxima: the open search is the closed one
        a, b = _cast_touching.closed(a, "boxes_a"), _cast_touching.closed(b, "boxes_b")
    na, nb = a.shape[0], b.shape[0]
    if a.shape[1] != b.shape[1] and na and nb:
        da, db = a.shape[1] // 2, b.shape[1] // 2
        raise ValueError(f"boxes_a and boxes_b: expected boxes of one dimension, found "
                         f"{da}D boxes_a of shape {a.shape} and {db}D boxes_b of shape "
                         f"{b.shape}")
    method = _cast_options.method(method, _CHOICES)
    per = _periodic.period(period, (a if na else b).shape[1] // 2)
    _periodic.open_boxes_only(per, touching)
    if na == 0 or nb == 0:
        return _empty()
    _cast_options.count(na + nb, "boxes_a and boxes_b together")
    # One search over both sets; group -1 / -2 keeps pairs within a set out.
    groups = np.concatenate([np.full(na, -1, np.int64), np.full(nb, -2, np.int64)])
    both = np.concatenate([a, b])
    pairs = _core.find_pairs(both, method, groups=groups, workers=nthreads,
                             **_periodic.given(per))
    if type(pairs) is _core.BadRow:  # too wide, or a row written by another thread since
        row, code = pairs.row, pairs.code
        name, at = ("boxes_a", row) if row < na else ("boxes_b", row - na)
        part = both[na * (name == "boxes_b"):]
        if code in _periodic.CODES:
            raise ValueError(_periodic.wide_box(part, name, at, code, per))
        raise ValueError(_cast.box_problem(part, name, at, code))
    pairs[:, 1] -= na
    return pairs
