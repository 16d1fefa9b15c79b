"""``touching=True`` for the public API: the argument, and the closed boxes it searches.

A search with ``touching=True`` (and a tree made with it) treats boxes as
closed: touching edges, faces and corners count.  The kernels' test is
open, so each max is raised one step of float64 (:func:`closed`), query
regions likewise (:func:`closed_region`), and what a tree gives back is
lowered again (:func:`lowered`).
"""

from __future__ import annotations

import numpy as np

from . import _tables

#: float64's largest finite value: a max with ``touching=True`` must be below it.
LARGEST = float(np.finfo(np.float64).max)


def touching(value) -> bool:
    """A ``touching=`` argument: ``True`` or ``False`` (NumPy booleans too), else TypeError."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"touching: expected True or False, found {value!r}")


def closed(arr: np.ndarray, name: str) -> np.ndarray:
    """Valid boxes ``arr`` (2D or 3D corners) with every max raised one step of float64.

    Two finite values ``a <= d`` exactly when ``a < nextafter(d, inf)``, so
    the open overlap of the raised boxes (``min_i < max_j`` on every axis,
    the kernels' rule) is the closed overlap of ``arr`` (``min_i <= max_j``):
    touching edges, faces and corners count, a point on a box's edge
    touches it.  A new array (``arr`` is left as it is); a max equal to
    float64's largest value, which would become infinite, is refused,
    naming the argument, the row and the column.
    """
    out = np.array(arr, np.float64, order="C", copy=True)  # read once: checks and raise agree
    half = out.shape[1] // 2
    hi = out[:, half:]
    top = hi == LARGEST
    if top.any():
        k, col = (int(v) for v in np.argwhere(top)[0])
        cols = _tables.LAYOUTS["corners" if half == 2 else "corners3d"]
        raise ValueError(f"{name}[{k}]: {cols[half + col]} is {LARGEST!r}, float64's largest "
                         "value; with touching=True a max must be below it (the search "
                         "raises each max by one step of float64)")
    np.nextafter(hi, np.inf, out=hi)
    return out


def lowered(arr: np.ndarray) -> np.ndarray:
    """The boxes :func:`closed` raised, as they were (but for a max of -0.0, read as 0.0)."""
    out = np.array(arr, np.float64, copy=True)
    half = out.shape[-1] // 2
    np.nextafter(out[..., half:], -np.inf, out=out[..., half:])
    return out


def closed_region(q: np.ndarray) -> np.ndarray:
    """Query regions for a tree of :func:`closed` boxes: each max raised, the largest kept.

    A region's max of float64's largest value stays: no box of the tree
    reaches it (their maxima are below it), so every min is below it, as
    every min at most the region's max is below the raised value.
    """
    out = np.array(q, np.float64, order="C", copy=True)
    half = out.shape[1] // 2
    hi = out[:, half:]
    with np.errstate(over="ignore"):  # the largest value's step is infinite: it stays
        np.nextafter(hi, np.inf, out=hi)
    np.minimum(hi, LARGEST, out=hi)
    return out
