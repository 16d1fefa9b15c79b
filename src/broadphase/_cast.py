"""Input coercion and validation for the public API.

Everything the kernels receive comes through here: C-contiguous float64 (or
int64 / uint64) arrays of the right shape, never the caller's own buffer
when a conversion is needed (so inputs are never modified).  Every error
names the argument, what was expected and what was found, and the row for
bad data.
"""

from __future__ import annotations

import numbers
import operator

import numpy as np

from ._kernels import check

_EXACT_INT = 2**53  # integers beyond this do not all survive float64


def _array(value, name: str) -> np.ndarray:
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as exc:  # ragged nested lists, odd objects
        raise ValueError(f"{name}: expected a rectangular array of numbers; {exc}") from None
    if arr.dtype.kind == "O":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{name}: expected real numbers, found objects that are not numbers"
            ) from None
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name}: expected real numbers, found dtype {arr.dtype}")
    return arr


def _as_float64(arr: np.ndarray, name: str) -> np.ndarray:
    """Convert exactly to float64, refusing values float64 cannot hold."""
    if arr.dtype.kind in "iu" and arr.size:
        big = np.abs(arr.astype(np.float64)).max()
        if big > _EXACT_INT:
            raise ValueError(
                f"{name}: integers up to 2**53 in magnitude expected (float64 holds "
                f"them exactly), found {arr.flat[np.argmax(np.abs(arr.astype(np.float64)))]}"
            )
    if arr.dtype.kind == "f" and arr.dtype.itemsize > 8 and arr.size:
        as64 = arr.astype(np.float64)
        lost = np.flatnonzero((as64.astype(arr.dtype) != arr).ravel() & np.isfinite(arr).ravel())
        if lost.size:
            raise ValueError(
                f"{name}: values exactly representable in float64 expected, found "
                f"{arr.flat[lost[0]]!r} (flat position {lost[0]}) which would round"
            )
    return np.asarray(arr, dtype=np.float64, order="C")  # keeps 0-d as 0-d


def rows(value, name: str, width: int, columns: str) -> np.ndarray:
    """An (n, width) float64 C-contiguous array; empty input gives (0, width)."""
    arr = _array(value, name)
    if arr.size == 0 and arr.ndim <= 2 and (arr.ndim < 2 or arr.shape[1] in (0, width)):
        return np.empty((0, width), np.float64)
    if arr.ndim != 2 or arr.shape[1] != width:
        raise ValueError(
            f"{name}: expected shape (n, {width}) with columns {columns}, found shape {arr.shape}"
        )
    return _as_float64(arr, name)


_BOX_COLUMNS = ("minx", "miny", "maxx", "maxy")


def boxes(value, name: str = "boxes") -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """Validated boxes and their bounds ``(minx, miny, maxx, maxy)``."""
    arr = rows(value, name, 4, "minx, miny, maxx, maxy")
    bad, code, x0, y0, x1, y1 = check.scan_boxes(arr)
    if bad >= 0:
        raise ValueError(_box_problem(arr, name, int(bad), int(code)))
    return arr, (x0, y0, x1, y1)


def _box_problem(arr: np.ndarray, name: str, row: int, code: int) -> str:
    r = arr[row]
    if code == check.NOT_FINITE:
        col = int(np.flatnonzero(~np.isfinite(r))[0])
        return f"{name}[{row}]: {_BOX_COLUMNS[col]} is {r[col]}; expected finite numbers"
    if code == check.X_REVERSED:
        return f"{name}[{row}]: minx {r[0]} > maxx {r[2]}"
    return f"{name}[{row}]: miny {r[1]} > maxy {r[3]}"


def circles(centers, radii) -> tuple[np.ndarray, np.ndarray, tuple[float, float, float, float]]:
    """Validated ``(x, y, r)`` rows, their outward-rounded boxes, and bounds."""
    c = rows(centers, "centers", 2, "x, y")
    n = c.shape[0]
    r = _as_float64(_array(radii, "radii"), "radii")
    if r.ndim == 0:
        r = np.full(n, r[()])
    elif r.ndim != 1 or r.shape[0] != n:
        raise ValueError(
            f"radii: expected a scalar or shape ({n},) (one per center), found shape {r.shape}"
        )
    xyr = np.empty((n, 3), np.float64)
    xyr[:, :2] = c
    xyr[:, 2] = r
    bxs, bad, code = check.circle_boxes(xyr)
    if bad >= 0:
        row = int(bad)
        if code == check.NEGATIVE_RADIUS:
            where = f"radii[{row}]" if np.ndim(radii) else "radii"
            raise ValueError(f"{where}: expected a radius >= 0, found {xyr[row, 2]}")
        col = int(np.flatnonzero(~np.isfinite(xyr[row]))[0])
        if col == 2:
            where = f"radii[{row}]" if np.ndim(radii) else "radii"
            raise ValueError(f"{where}: expected a finite radius, found {xyr[row, 2]}")
        raise ValueError(
            f"centers[{row}]: {'xy'[col]} is {xyr[row, col]}; expected finite numbers"
        )
    if n:
        bounds = (bxs[:, 0].min(), bxs[:, 1].min(), bxs[:, 2].max(), bxs[:, 3].max())
    else:
        bounds = (0.0, 0.0, 0.0, 0.0)
    return xyr, bxs, bounds


def per_object(value, name: str, n: int, dtype) -> np.ndarray | None:
    """``groups`` / ``categories`` / ``masks``: a scalar or one integer per object."""
    if value is None:
        return None
    arr = _array(value, name)
    if arr.dtype.kind not in "iu":
        # Whole floats (e.g. from a list mixing ints and NumPy scalars) are
        # accepted when every value is an integer the target type holds.
        limit = 2.0**64 if dtype == np.uint64 else 2.0**63
        low = 0.0 if dtype == np.uint64 else -(2.0**63)
        if not (arr.dtype.kind == "f" and np.all(arr == np.floor(arr))
                and np.all((arr >= low) & (arr < limit))):
            raise TypeError(f"{name}: expected integers, found dtype {arr.dtype}")
        arr = arr.astype(dtype)
    if arr.ndim == 0:
        arr = np.full(n, arr.item())
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(
            f"{name}: expected a scalar or shape ({n},) (one per object), found shape {arr.shape}"
        )
    if dtype == np.uint64 and arr.dtype.kind == "i" and arr.size and arr.min() < 0:
        row = int(np.argmin(arr))
        raise ValueError(
            f"{name}[{row}]: expected bits as a non-negative integer, found {arr[row]}"
        )
    return np.ascontiguousarray(arr.astype(dtype, copy=False))


def workers(value) -> int | None:
    """``None`` (all threads) or a positive thread count."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"workers: expected None or a positive int, found {value!r}")
    value = operator.index(value)
    if value < 1:
        raise ValueError(f"workers: expected None or a positive int, found {value}")
    return value


def method(value, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"method: expected one of {listed}; found {value!r}")
    return value
