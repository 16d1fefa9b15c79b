"""Pairs of points closer than a cutoff: the call simulation users expect.

``find_point_pairs(points, cutoff)`` is the search of balls of radius
``cutoff / 2`` (two such balls overlap exactly when their centres are
closer than ``cutoff``), so it runs on the same exact machinery as
:func:`broadphase.find_circle_pairs`, periodic domains, distances and
vectors included.
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _api, _cast, _cast_circles, _cast_options, _core, _exact, _periodic

__all__ = ["find_point_pairs"]

_TINY = 2.0 ** -1021  # below this, cutoff / 2 could round


def find_point_pairs(
    points: ArrayLike,
    cutoff: float,
    *,
    period: ArrayLike | float | None = None,
    return_distances: bool = False,
    return_vectors: bool = False,
    method: str = "auto",
    groups: ArrayLike | None = None,
    categories: ArrayLike | None = None,
    masks: ArrayLike | None = None,
    workers: int | None = None,
) -> NDArray[np.intp] | tuple[NDArray, ...]:
    """Find every pair of points closer than ``cutoff``, 2D or 3D, optionally periodic.

    The pairs ``(i, j)`` with ``|p_i - p_j| < cutoff`` (in a periodic
    domain: the distance to the nearest copy), decided exactly: no rounding
    can add or drop a pair, whatever the coordinates.  As MDAnalysis'
    ``self_capped_distance``, freud's neighbour queries with ``r_max`` and
    scipy's ``cKDTree.query_pairs`` (which counts ``<=``), with each pair
    once.

    Parameters
    ----------
    points : array_like or table, shape (n, 2) or (n, 3)
        ``x, y`` or ``x, y, z`` per row; a table is read by its columns
        ``x, y`` (and ``z``).
    cutoff : float
        The distance below which two points pair, ``>= 0`` (and at most
        half the period on a periodic axis).
    period : float, sequence of (float or None), or array_like of shape (D, D), optional
        A periodic domain: the period per axis, ``None`` for an open axis,
        one number for every axis; or a triclinic cell, its vectors as the
        rows of a lower-triangular matrix (as MDAnalysis'
        ``triclinic_vectors`` gives them; see :func:`broadphase.find_pairs`),
        with the cutoff at most half of each diagonal entry.  Coordinates
        may lie anywhere, not only in ``[0, L)``.
    return_distances, return_vectors : bool
        Also return the pairs' distances (shape (k,)) and vectors from
        ``p_i`` to ``p_j`` (shape (k, 2) or (k, 3)), by the nearest copy,
        float64.
    method, groups, categories, masks, workers
        As in :func:`broadphase.find_pairs`.

    Returns
    -------
    pairs : ndarray of intp, shape (k, 2)
        Each pair once, ``i < j``, rows sorted; with ``return_distances``
        or ``return_vectors``, the first of a tuple ``(pairs, distances)``,
        ``(pairs, vectors)`` or ``(pairs, distances, vectors)``.

    Raises
    ------
    ValueError
        A negative or non-finite ``cutoff`` (or one below ``2**-1021``
        but not 0), a cutoff above half the period, bad points (naming
        the row).
    TypeError
        Non-numeric input.

    Examples
    --------
    >>> import broadphase as bp
    >>> bp.find_point_pairs([[0, 0], [3, 4], [1, 1]], 5).tolist()
    [[0, 2], [1, 2]]

    In a periodic cube of side 10, points near opposite faces are close:

    >>> pairs, d, v = bp.find_point_pairs([[0.5, 5, 5], [9.5, 5, 5]], 2, period=10,
    ...                                   return_distances=True, return_vectors=True)
    >>> pairs.tolist(), d.tolist(), v.tolist()
    ([[0, 1]], [1.0], [[-1.0, 0.0, 0.0]])

    In a triclinic cell whose second vector leans half a cell to the right,
    the point near the top face comes back 5 to the left:

    >>> cell = [[10, 0], [5, 10]]
    >>> pairs, v = bp.find_point_pairs([[6, 9.5], [1, 0]], 1, period=cell, return_vectors=True)
    >>> pairs.tolist(), v.tolist()
    ([[0, 1]], [[0.0, 0.5]])
    """
    if isinstance(cutoff, (bool, np.bool_)) or not isinstance(cutoff, (numbers.Real, np.generic)):
        raise TypeError(f"cutoff: expected a number >= 0, found {cutoff!r}")
    cut = _exact._as_float64(_exact._array(cutoff, "cutoff"), "cutoff")[()]
    if not (np.isfinite(cut) and cut >= 0):
        raise ValueError(f"cutoff: expected a finite number >= 0, found {cutoff!r}")
    if 0 < cut < _TINY:
        raise ValueError(f"cutoff: expected 0 or at least 2**-1021 (half of it must be "
                         f"exact), found {cutoff!r}")
    c, radii = _cast_circles.center_rows(points, None, _api._DIMS)
    if radii is not None:
        raise ValueError("points: a table with a radius column; find_circle_pairs takes radii")
    n, d = c.shape
    nthreads = _cast_options.workers(workers)
    method = _cast_options.method(method, _api._CHOICES)
    filters = _cast_options.filters(n, groups, categories, masks)
    per = _periodic.period(period, d)
    measure = _api._measure(return_distances, return_vectors)
    _cast_options.count(n, "points")
    xyr = np.empty((n, d + 1), np.float64)
    xyr[:, :d] = c
    xyr[:, d] = cut / 2
    out = _core.find_pairs(None, method, circles=xyr, workers=nthreads, **_periodic.given(per),
                           measure=measure, **filters)
    if type(out) is _core.BadRow:
        if out.code == _core.FAR:
            raise ValueError(_periodic.far(f"points[{out.row}]"))
        if out.code in _periodic.WIDE:
            axis = _periodic.WIDE[out.code]
            raise ValueError(f"cutoff: {float(cut)!r} is more than half "
                             f"{_periodic.length_name(per)} {_periodic.side(per, axis)!r} on "
                             f"the periodic {'xyz'[axis]} axis")
        raise ValueError(_cast.circle_problem(xyr, cut / 2, out.row, out.code)
                         .replace("centers[", "points["))
    if measure:
        return tuple(v for v in out if v is not None)
    return out
