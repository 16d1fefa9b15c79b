"""Periodic domains: reading ``period=``, and the messages for objects too wide for it.

A period is one length per axis (or one for every axis); ``None`` leaves an
axis open.  The core takes it as a float64 array with ``inf`` on the open
axes and searches the objects' periodic images (``rust/core/src/periodic``),
refusing an object that spans more than half the period on a periodic
axis with a ``_core.BadRow`` whose code names the axis.
"""

from __future__ import annotations

import numbers

import numpy as np

from . import _core, _exact

_AXES = "xyz"
#: the core's codes for an object wider than half the period, by axis
WIDE = {_core.X_WIDE: 0, _core.Y_WIDE: 1, _core.Z_WIDE: 2}


def period(value, dims: int) -> np.ndarray | None:
    """``period=`` as the core takes it: ``dims`` lengths, ``inf`` where open.

    ``None`` (no period) stays ``None``; one number applies to every axis.
    """
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


def wide_box(arr: np.ndarray, name: str, row: int, code: int, per: np.ndarray) -> str:
    """The message for box ``row`` of ``arr`` wider than half the period."""
    axis = WIDE[code]
    half = arr.shape[1] // 2
    lo, hi = float(arr[row, axis]), float(arr[row, half + axis])
    return (f"{name}[{row}]: spans {hi - lo!r} on the periodic {_AXES[axis]} axis, more than "
            f"half the period {float(per[axis])!r}; objects up to half the period are supported")


def wide_ball(xyr: np.ndarray, radii, row: int, code: int, per: np.ndarray) -> str:
    """The message for ball ``row`` of ``xyr`` wider than half the period."""
    axis = WIDE[code]
    where = f"radii[{row}]" if np.ndim(radii) else "radii"
    r = float(xyr[row, -1])
    return (f"{where}: a diameter of {2 * r!r} is more than half the period "
            f"{float(per[axis])!r} on the periodic {_AXES[axis]} axis; objects up to half "
            f"the period are supported")
