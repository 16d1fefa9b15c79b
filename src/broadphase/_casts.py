"""Ray casts and swept pairs: validate, then hand over to the Rust core.

A ray ``origin + s * direction`` with ``0 <= s <= max_t`` hits an object when
one of its points lies strictly inside it (the library's open-shape rule:
grazing an edge, a corner or a circle is no hit); ``t`` is where it enters
(the infimum of those ``s``, 0 for a ray starting inside).  Objects moving
linearly over a frame (``s`` from 0 to 1) form a swept pair when they overlap
strictly at some ``s``; ``t`` is when they start to.  Every decision and the
order of hits along a ray are exact; ``t`` is a float64 (correctly rounded
for boxes, within a relative 2**-36 for circles, plus 2**-1075 for an
entry below the smallest normal double, where float64 has fewer digits).

Arguments are checked here as :mod:`._api` checks its own (:mod:`._cast`;
the rays' in :mod:`._ray_args`, shared with the tree's casts): errors name
the argument, what was expected and what was found, and the row for bad
data.  The search runs in the core with the GIL released.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _cast, _cast_circles, _cast_options, _core, _ray_args

#: What a cast returns: ``(index, t)`` (``hits="first"``), ``(pairs, t)`` (``"all"``) or a
#: bool per ray (``"any"``).
CastResult = tuple[NDArray[np.intp], NDArray[np.float64]] | NDArray[np.bool_]
#: Swept pairs take 2D and 3D objects (ray casts 2D ones).
_DIMS = (2, 3)

__all__ = ["cast_rays", "cast_rays_circles", "find_swept_pairs", "find_swept_circle_pairs"]


def cast_rays(
    boxes: ArrayLike,
    origins: ArrayLike,
    directions: ArrayLike,
    *,
    max_t: float | ArrayLike = math.inf,
    hits: str = "first",
    categories: ArrayLike | None = None,
    masks: ArrayLike | None = None,
    ray_categories: ArrayLike | None = None,
    ray_masks: ArrayLike | None = None,
    ignore: int | ArrayLike | None = None,
    workers: int | None = None,
    format: str | None = None,
) -> CastResult:
    """Cast many rays (or segments) at boxes: first hits, all hits, or line of sight.

    Ray ``k`` is the set of points ``origins[k] + s * directions[k]`` for
    ``0 <= s <= max_t``; it hits a box when one of them lies strictly inside
    it (grazing an edge or a corner is no hit) and enters it at ``t``, the
    least such ``s`` (0 for a ray starting inside).  With ``max_t=1`` a ray
    is the segment from its origin to ``origin + direction``.  The hit
    decision and the order of hits are exact; ties go to the lower index.

    Parameters
    ----------
    boxes : array_like or table, shape (n, 4) or (n, 6)
        The objects, as in :func:`find_pairs` (``format``, pygame rects and
        tables alike); six columns are 3D boxes.
    origins, directions : array_like, shape (m, 2) or (m, 3)
        ``x, y`` and ``dx, dy`` per ray (3D: ``x, y, z`` and ``dx, dy,
        dz``), finite; a zero direction is the single point ``origin``.
    max_t : float or array_like, shape (m,)
        The greatest ``s`` (default ``inf``), one for all rays or one per ray.
    hits : {"first", "all", "any"}
        What to report (see Returns).
    categories, masks : array_like of uint64, shape (n,), optional
        The boxes' bits; default all bits.
    ray_categories, ray_masks : array_like of uint64, shape (m,), optional
        The rays' bits: ray ``k`` may hit box ``j`` only if
        ``ray_categories[k] & masks[j]`` and ``categories[j] & ray_masks[k]``
        are both non-zero (the rule between two objects in :func:`find_pairs`).
    ignore : int or array_like of int, shape (m,), optional
        Per ray, a box it never hits (the shooter's own), or -1.
    workers : int, optional
        Threads (default all); the result does not depend on it.
    format : {"corners", "xywh"}, optional
        As in :func:`find_pairs`.

    Returns
    -------
    hits="first" : (ndarray of intp, ndarray of float64), shapes (m,)
        The first box each ray hits and its ``t``; -1 and ``inf`` for none.
    hits="all" : (ndarray of intp, shape (k, 2), ndarray of float64, shape (k,))
        Rows ``(ray, box)`` of every hit, sorted, and their ``t``.
    hits="any" : ndarray of bool, shape (m,)
        Whether each ray hits anything (``~any`` is line of sight).

    Raises
    ------
    ValueError
        Bad boxes (as :func:`find_pairs`), non-finite origins or directions,
        a negative or NaN ``max_t``, lengths that differ, an unknown ``hits``,
        an ``ignore`` that is no box index (each naming its row).
    MemoryError
        With ``hits="all"``, when the hits would not fit in the available
        memory (the message gives their number).

    Examples
    --------
    >>> import broadphase as bp
    >>> walls = [[2, -1, 3, 1], [5, -1, 6, 1], [0, 5, 1, 6]]
    >>> index, t = bp.cast_rays(walls, [[0, 0], [0, 1]], [[1, 0], [1, 0]])
    >>> index.tolist(), t.tolist()  # the second ray grazes the walls' top edges
    ([0, -1], [2.0, inf])
    >>> pairs, t = bp.cast_rays(walls, [[0, 0]], [[1, 0]], hits="all")
    >>> pairs.tolist(), t.tolist()
    ([[0, 0], [0, 1]], [2.0, 5.0])
    >>> bp.cast_rays(walls, [[0, 0], [0, 0]], [[1, 0], [10, 0]], max_t=0.25, hits="any").tolist()
    [False, True]
    >>> bp.cast_rays(walls, [[2.5, 0]], [[1, 0]], ignore=0)[0].tolist()  # the shooter's own
    [1]
    >>> cubes = [[2, -1, -1, 3, 1, 1], [5, -1, -1, 6, 1, 1]]       # in 3D
    >>> index, t = bp.cast_rays(cubes, [[0, 0, 0], [0, 0, 1]], [[1, 0, 0], [1, 0, 0]])
    >>> index.tolist(), t.tolist()  # the second ray slides along the cubes' top faces
    ([0, -1], [2.0, inf])
    """
    nthreads = _cast_options.workers(workers)
    arr = _cast.box_rows(boxes, "boxes", format, _DIMS)
    n = arr.shape[0]
    _cast_options.count(n, "boxes")
    dims = arr.shape[1] // 2 if n else _ray_args.dims_of(origins)
    if n == 0:
        arr = np.empty((0, 2 * dims))
    hits = _ray_args.hits(hits)
    rays = _ray_args.rays(origins, directions, max_t, ray_categories, ray_masks, ignore, n,
                          dims)
    out = _core.cast_rays(arr, rays.pop("origins"), rays.pop("directions"), rays.pop("max_t"),
                          hits,
                          categories=_cast_options.per_object(categories, "categories", n,
                                                              np.uint64),
                          masks=_cast_options.per_object(masks, "masks", n, np.uint64),
                          workers=nthreads, **rays)
    if type(out) is _core.BadRow:
        raise ValueError(_cast.box_problem(arr, "boxes", out.row, out.code))
    return _ray_args.answer(out, hits)


def cast_rays_circles(
    centers: ArrayLike,
    radii: ArrayLike | None,
    origins: ArrayLike,
    directions: ArrayLike,
    *,
    max_t: float | ArrayLike = math.inf,
    hits: str = "first",
    categories: ArrayLike | None = None,
    masks: ArrayLike | None = None,
    ray_categories: ArrayLike | None = None,
    ray_masks: ArrayLike | None = None,
    ignore: int | ArrayLike | None = None,
    workers: int | None = None,
) -> CastResult:
    """Cast many rays (or segments) at circles: first hits, all hits, or line of sight.

    As :func:`cast_rays`, the objects being circles: a ray hits one when a
    point of it lies strictly inside (``|p - c| < r``; a tangent ray is no
    hit).  The decision and the order of hits are exact; ``t`` is within a
    relative 2**-36 of the exact entry (plus 2**-1075 below the smallest
    normal double).

    Parameters
    ----------
    centers : array_like or table, shape (n, 2) or (n, 3)
        ``x, y`` per circle (a table as in :func:`find_circle_pairs`);
        three columns are sphere centres, cast at by 3D rays.
    radii : float or array_like, shape (n,)
        Radii >= 0; ``None`` when ``centers`` is a table with radii.
    origins, directions, max_t, hits, categories, masks, ray_categories, ray_masks, ignore, workers
        As in :func:`cast_rays`.

    Returns
    -------
    tuple or ndarray
        As in :func:`cast_rays`, indexing circles.

    Examples
    --------
    >>> import broadphase as bp
    >>> origins, directions = [[0, 0], [0, 1]], [[1, 0], [1, 0]]
    >>> index, t = bp.cast_rays_circles([[5, 0], [9, 0]], [1, 1], origins, directions)
    >>> index.tolist(), t.tolist()  # the second ray is tangent to both
    ([0, -1], [4.0, inf])
    >>> index, t = bp.cast_rays_circles([[5, 0, 0]], 1, [[0, 0, 0]], [[1, 0, 0]])  # a sphere
    >>> index.tolist(), t.tolist()
    ([0], [4.0])
    """
    nthreads = _cast_options.workers(workers)
    xyr = _cast_circles.circle_rows(centers, radii, _DIMS)
    n = xyr.shape[0]
    _cast_options.count(n, "centers")
    dims = xyr.shape[1] - 1 if n else _ray_args.dims_of(origins)
    if n == 0:
        xyr = np.empty((0, dims + 1))
    hits = _ray_args.hits(hits)
    rays = _ray_args.rays(origins, directions, max_t, ray_categories, ray_masks, ignore, n,
                          dims)
    out = _core.cast_rays(None, rays.pop("origins"), rays.pop("directions"), rays.pop("max_t"),
                          hits, circles=xyr,
                          categories=_cast_options.per_object(categories, "categories", n,
                                                              np.uint64),
                          masks=_cast_options.per_object(masks, "masks", n, np.uint64),
                          workers=nthreads, **rays)
    if type(out) is _core.BadRow:
        raise ValueError(_cast.circle_problem(xyr, radii, out.row, out.code))
    return _ray_args.answer(out, hits)


def _swept(out, problem) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    if type(out[1]) is _core.BadRow:
        raise ValueError(problem(out[0], out[1]))
    return out


def find_swept_pairs(
    start: ArrayLike,
    end: ArrayLike,
    *,
    groups: ArrayLike | None = None,
    categories: ArrayLike | None = None,
    masks: ArrayLike | None = None,
    workers: int | None = None,
    format: str | None = None,
) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """Find every pair of moving boxes (2D or 3D) that overlap at some moment of a frame.

    Box ``i`` moves linearly from ``start[i]`` to ``end[i]``: each
    coordinate is ``start + s * (end - start)`` for ``s`` from 0 to 1.  A
    pair is found when the two boxes overlap strictly at some ``s`` (so a
    fast bullet that crosses a wall between two frames is caught), with the
    first such ``s`` as ``t``.  The decision is exact; ``t`` is correctly
    rounded.  When nothing moves the pairs are those of :func:`find_pairs`
    with ``t == 0``.

    Parameters
    ----------
    start, end : array_like or table, shape (n, 4) or (n, 6)
        The boxes at ``s = 0`` and at ``s = 1``, as in :func:`find_pairs`:
        ``(n, 4)`` 2D boxes or ``(n, 6)`` 3D boxes (``minx, miny, minz,
        maxx, maxy, maxz``, or ``x, y, z, w, h, d`` with
        ``format="xywh"``), both of one dimension.
    groups, categories, masks, workers, format
        As in :func:`find_pairs`.

    Returns
    -------
    pairs : ndarray of intp, shape (k, 2)
        Each pair once, ``i < j``, rows sorted.
    t : ndarray of float64, shape (k,)
        When each pair starts to overlap, in ``[0, 1]`` (the exact moment
        is below 1; its float64 may round to 1.0).

    Raises
    ------
    ValueError
        Bad boxes (as :func:`find_pairs`, naming ``start`` or ``end`` and
        the row), row counts that differ, ``start`` and ``end`` of
        different dimensions.

    Examples
    --------
    >>> import broadphase as bp
    >>> bullet0, bullet1 = [0, 0, 4, 4], [40, 0, 44, 4]   # 40 px in one frame
    >>> wall = [20, -10, 23, 10]                           # 3 px thick
    >>> bp.find_pairs([bullet1, wall]).tolist()            # the frame's end: tunnelled
    []
    >>> pairs, t = bp.find_swept_pairs([bullet0, wall], [bullet1, wall])
    >>> pairs.tolist(), t.tolist()
    ([[0, 1]], [0.4])

    In 3D, six columns per box: a cube falling 40 through a floor 3 thick,
    and one sliding on the floor's top face (touching it: no pair):

    >>> floor = [-10, -10, 20, 10, 10, 23]
    >>> start = [[0, 0, 40, 4, 4, 44], floor, [-30, -10, 23, -26, -6, 27]]
    >>> end = [[0, 0, 0, 4, 4, 4], floor, [30, -10, 23, 34, -6, 27]]
    >>> pairs, t = bp.find_swept_pairs(start, end)
    >>> pairs.tolist(), t.tolist()  # z < 23 from s = 17 / 40
    ([[0, 1]], [0.425])
    """
    nthreads = _cast_options.workers(workers)
    a = _cast.box_rows(start, "start", format, _DIMS)
    b = _cast.box_rows(end, "end", format, _DIMS)
    n = a.shape[0]
    if b.shape[0] != n:
        raise ValueError(f"end: expected {n} rows (one per start row), found {b.shape[0]}")
    if a.shape[1] != b.shape[1]:
        if n:
            raise ValueError(f"start and end: expected boxes of one dimension, found "
                             f"{a.shape[1] // 2}D start of shape {a.shape} and "
                             f"{b.shape[1] // 2}D end of shape {b.shape}")
        b = np.empty(a.shape, np.float64)
    _cast_options.count(n, "start")
    filters = _cast_options.filters(n, groups, categories, masks)
    out = _core.swept_pairs(a, b, workers=nthreads, **filters)
    return _swept(out, lambda which, bad: _cast.box_problem(
        (a, b)[which], ("start", "end")[which], bad.row, bad.code))


def find_swept_circle_pairs(
    start_centers: ArrayLike,
    end_centers: ArrayLike,
    radii: ArrayLike | None = None,
    *,
    groups: ArrayLike | None = None,
    categories: ArrayLike | None = None,
    masks: ArrayLike | None = None,
    workers: int | None = None,
) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """Find every pair of moving circles (2D) or spheres (3D) that overlap at some moment.

    Circle ``i`` moves its centre linearly from ``start_centers[i]`` to
    ``end_centers[i]`` (``s`` from 0 to 1), its radius fixed; a pair is
    found when the two overlap strictly at some ``s``, with the first such
    ``s`` as ``t`` (within a relative 2**-36, plus 2**-1075 below the
    smallest normal double).  The decision is exact.  Spheres alike, from
    centres of three columns.

    Parameters
    ----------
    start_centers, end_centers : array_like, shape (n, 2) or (n, 3)
        ``x, y`` per circle, or ``x, y, z`` per sphere, at ``s = 0`` and
        ``s = 1`` (``start_centers`` may be a table with radii, as in
        :func:`find_circle_pairs`); ``end_centers`` has the columns of
        ``start_centers``.
    radii : float or array_like, shape (n,)
        Radii >= 0.
    groups, categories, masks, workers
        As in :func:`find_pairs`.

    Returns
    -------
    pairs : ndarray of intp, shape (k, 2)
        Each pair once, ``i < j``, rows sorted.
    t : ndarray of float64, shape (k,)
        When each pair starts to overlap.

    Raises
    ------
    ValueError
        Non-finite centres or radii, a negative radius (naming the
        argument and the row), row counts or columns that differ.

    Examples
    --------
    >>> import broadphase as bp
    >>> pairs, t = bp.find_swept_circle_pairs([[-10, 0], [0, 0]], [[10, 0], [0, 0]], 1.0)
    >>> pairs.tolist(), t.tolist()
    ([[0, 1]], [0.4])

    Spheres: the first passes through the second along z; the third passes
    both at a distance of exactly the sum of the radii, which is no overlap:

    >>> start = [[0, 0, -10], [0, 0, 0], [2, 0, -10]]
    >>> end = [[0, 0, 10], [0, 0, 0], [2, 0, 10]]
    >>> pairs, t = bp.find_swept_circle_pairs(start, end, 1.0)
    >>> pairs.tolist(), t.tolist()
    ([[0, 1]], [0.4])
    """
    nthreads = _cast_options.workers(workers)
    xyr0 = _cast_circles.circle_rows(start_centers, radii, _DIMS)
    n, d = xyr0.shape[0], xyr0.shape[1] - 1
    c1 = _ray_args.points(end_centers, "end_centers", ", ".join("xyz"[:d]))
    if c1.shape[0] != n:
        raise ValueError(f"end_centers: expected {n} rows (one per start centre), "
                         f"found {c1.shape[0]}")
    _cast_options.count(n, "start_centers")
    xyr1 = xyr0.copy()
    xyr1[:, :d] = c1
    filters = _cast_options.filters(n, groups, categories, masks)
    out = _core.swept_pairs(xyr0, xyr1, circles=True, workers=nthreads, **filters)

    def problem(which: int, bad) -> str:
        text = _cast.circle_problem((xyr0, xyr1)[which], radii, bad.row, bad.code)
        return text.replace("centers[", "start_centers[" if which == 0 else "end_centers[")

    return _swept(out, problem)
