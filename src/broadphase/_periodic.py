"""Periodic domains: reading ``period=``, and the messages for objects refused by it.

A period is one length per axis (or one for every axis); ``None`` leaves an
axis open.  The core takes it as a float64 array with ``inf`` on the open
axes and searches the objects' periodic images (``rust/core/src/periodic``),
refusing an object that spans more than half the period on a periodic
axis with a ``_core.BadRow`` whose code names the axis.

A triclinic cell is a ``(D, D)`` matrix whose rows are the cell's vectors
(lower triangular, reduced: ``rust/core/src/periodic/lattice.rs``); the
core takes it as ``lattice=`` and validates it, and refuses objects wider
than half the cell's side ``H[k, k]`` on an axis, or with a coordinate
more than ``2**22`` of the cell's smallest sides from the origin
(``_core.FAR``).  A matrix without tilts is the
period per axis.
"""

from __future__ import annotations

import numbers

import numpy as np

from . import _core, _exact

_AXES = "xyz"
#: the core's codes for an object wider than half the period, by axis
WIDE = {_core.X_WIDE: 0, _core.Y_WIDE: 1, _core.Z_WIDE: 2}
#: every code of an object a periodic domain refuses
CODES = frozenset({*WIDE, _core.FAR})


def period(value, dims: int, *, cell: bool = True) -> np.ndarray | None:
    """``period=`` as the core takes it: ``dims`` lengths, ``inf`` where open, or a cell.

    ``None`` (no period) stays ``None``; one number applies to every axis;
    a ``(dims, dims)`` matrix is a triclinic cell (refused unless ``cell``),
    given back as the period per axis when it has no tilt.
    """
    if value is not None and not isinstance(value, (numbers.Real, np.generic)):
        try:
            matrix = np.ndim(value) == 2
        except (TypeError, ValueError):
            matrix = False
        if matrix:
            return _cell(value, dims, cell)
    return _lengths(value, dims)


def _cell(value, dims: int, allowed: bool) -> np.ndarray:
    """A triclinic cell's matrix, checked for shape and finiteness (the core checks its form)."""
    if not allowed:
        raise ValueError("period: a triclinic cell (a matrix) is taken by find_pairs, "
                         "find_circle_pairs, find_point_pairs and find_pairs_between; the trees "
                         "take one period per axis")
    h = _exact._as_float64(_exact._array(value, "period"), "period")
    if h.shape != (dims, dims):
        raise ValueError(f"period: expected a ({dims}, {dims}) matrix of cell vectors (one per "
                         f"row) for {dims}D objects, found shape {h.shape}")
    bad = np.argwhere(~np.isfinite(h))
    if bad.size:
        r, c = bad[0]
        raise ValueError(f"period[{r}][{c}]: expected a finite number, found {float(h[r, c])!r}")
    for k in range(dims):
        if not h[k, k] > 0:
            raise ValueError(f"period[{k}][{k}]: expected a length > 0, found {float(h[k, k])!r}")
    if not np.any(h - np.diag(np.diagonal(h))):
        return _lengths(list(np.diagonal(h)), dims)
    return np.ascontiguousarray(h)


def given(per: np.ndarray | None) -> dict:
    """The core's keyword for ``per``: ``period=`` (per axis) or ``lattice=`` (a cell)."""
    if per is not None and per.ndim == 2:
        return {"lattice": per}
    return {"period": per}


def side(per: np.ndarray, axis: int) -> float:
    """The period on ``axis``, or the cell's side there (``H[axis, axis]``)."""
    return float(per[axis, axis] if per.ndim == 2 else per[axis])


def _lengths(value, dims: int) -> np.ndarray | None:
    """``period=`` given per axis (or one number for every axis): ``inf`` where open."""
    if value is None:
        return None
    expected = (f"expected a length > 0 or None (open) per axis, {dims} in all, "
                f"or one length for every axis")
    if isinstance(value, (numbers.Real, np.generic)) and not isinstance(value, (bool, np.bool_)):
        items = [value] * dims
    else:
        try:
            items = list(value)
        except TypeError:
            raise TypeError(f"period: {expected}; found {type(value).__name__}") from None
    if len(items) != dims:
        raise ValueError(f"period: {expected}; found {len(items)} values for {dims}D objects")
    out = np.empty(dims, np.float64)
    for k, v in enumerate(items):
        if v is None:
            out[k] = np.inf
            continue
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Real, np.generic)):
            raise TypeError(f"period[{k}]: {expected}; found {v!r}")
        x = _exact._as_float64(_exact._array(v, f"period[{k}]"), f"period[{k}]")[()]
        if not (np.isfinite(x) and x > 0):
            raise ValueError(f"period[{k}]: {expected}; found {v!r}")
        out[k] = x
    return out


def open_boxes_only(per: np.ndarray | None, touching) -> None:
    """Refuse ``touching=True`` in a periodic domain (its decision is made for open boxes).

    Closed boxes are the open search with each max raised by one step of
    float64, which is exact for comparisons of given values but not once
    whole periods are added to them.
    """
    if per is not None and touching:
        raise ValueError("touching: expected False with a period; closed boxes in a periodic "
                         "domain are not supported (touching=True counts boxes that share an "
                         "edge in an open domain)")


def far(where: str) -> str:
    """The message for an object too far from a triclinic cell."""
    return (f"{where}: lies more than 2**22 of the periodic cell's smallest sides from the "
            f"origin; move it nearer (wrap it) first")


def length_name(per: np.ndarray) -> str:
    """What the messages call the length an object may span half of."""
    return "the cell's side" if per.ndim == 2 else "the period"


def wide_box(arr: np.ndarray, name: str, row: int, code: int, per: np.ndarray) -> str:
    """The message for box ``row`` of ``arr`` refused by the domain (``code`` in ``CODES``)."""
    if code == _core.FAR:
        return far(f"{name}[{row}]")
    axis = WIDE[code]
    half = arr.shape[1] // 2
    lo, hi = float(arr[row, axis]), float(arr[row, half + axis])
    length = length_name(per)
    return (f"{name}[{row}]: spans {hi - lo!r} on the periodic {_AXES[axis]} axis, more than "
            f"half {length} {side(per, axis)!r}; objects up to half {length} are supported")


def wide_ball(xyr: np.ndarray, radii, row: int, code: int, per: np.ndarray) -> str:
    """The message for ball ``row`` of ``xyr`` refused by the domain (``code`` in ``CODES``)."""
    if code == _core.FAR:
        return far(f"centers[{row}]")
    axis = WIDE[code]
    where = f"radii[{row}]" if np.ndim(radii) else "radii"
    r = float(xyr[row, -1])
    return (f"{where}: a diameter of {2 * r!r} is more than half {length_name(per)} "
            f"{side(per, axis)!r} on the periodic {_AXES[axis]} axis; objects up to half "
            f"{length_name(per)} are supported")
