"""Input coercion and validation for the public API.

Everything the kernels receive comes through here: C-contiguous float64 (or
int64 / uint64) arrays of the right shape, never the caller's own buffer
when a conversion is needed (so inputs are never modified).  Every error
names the argument, what was expected and what was found, and the row for
bad data.
"""

from __future__ import annotations

import math
import numbers
import operator

import numpy as np

from . import _core

_EXACT_INT = 2**53  # integers beyond this do not all survive float64


def _where(name: str, shape: tuple, flat: int) -> str:
    """``name[row]`` for the element at flat position ``flat`` (``name`` for a scalar)."""
    if not shape:
        return name
    return f"{name}[{np.unravel_index(flat, shape)[0]}]"


def _array(value, name: str) -> np.ndarray:
    if isinstance(value, np.ndarray) and type(value) is not np.ndarray and hasattr(value, "mask"):
        _refuse_masked(value, name)
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as exc:  # ragged nested lists, odd objects
        raise ValueError(f"{name}: expected a rectangular array of numbers; {exc}") from None
    if arr.dtype.kind == "O":
        arr = _from_objects(arr, name)
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name}: expected real numbers, found dtype {arr.dtype}")
    return arr


def _refuse_masked(value, name: str) -> None:
    """Masked arrays: their mask would be dropped silently, so masked values are refused."""
    mask = np.ma.getmaskarray(value)
    if mask.any():
        k = int(np.flatnonzero(mask.ravel())[0])
        raise ValueError(f"{_where(name, mask.shape, k)}: a masked value; expected plain "
                         f"numbers (fill the masked values or drop their rows first)")


def _from_objects(arr: np.ndarray, name: str) -> np.ndarray:
    """Object arrays (lists holding None, huge ints, ...): float64, exactly or not at all."""
    out = np.empty(arr.shape, np.float64)
    for k, v in enumerate(arr.flat):
        if not isinstance(v, numbers.Real):
            raise TypeError(f"{_where(name, arr.shape, k)}: expected real numbers, found {v!r}")
        if isinstance(v, numbers.Integral) and abs(int(v)) > _EXACT_INT:
            raise ValueError(_too_big(_where(name, arr.shape, k), v))
        f = float(v)
        if f != v and f == f:  # Fraction(1, 3), Decimal("0.1"): float64 would round them
            raise ValueError(_would_round(_where(name, arr.shape, k), v))
        out.flat[k] = f
    return out


def _would_round(where: str, value) -> str:
    return (f"{where}: values exactly representable in float64 expected, found {value!r}, "
            f"which would round")


def _too_big(where: str, value) -> str:
    return (f"{where}: integers up to 2**53 in magnitude expected (float64 holds them "
            f"exactly), found {value}")


def _as_float64(arr: np.ndarray, name: str) -> np.ndarray:
    """Convert exactly to float64, refusing values float64 cannot hold."""
    if arr.dtype.kind in "iu" and arr.size:
        # compared as integers: through float64, 2**53 + 1 would round to 2**53 and pass
        big = arr > _EXACT_INT
        if arr.dtype.kind == "i":
            big |= arr < -_EXACT_INT
        if big.any():
            k = int(np.flatnonzero(big.ravel())[0])
            raise ValueError(_too_big(_where(name, arr.shape, k), arr.flat[k]))
    if arr.dtype.kind == "f" and arr.dtype.itemsize > 8 and arr.size:
        as64 = arr.astype(np.float64)
        lost = np.flatnonzero((as64.astype(arr.dtype) != arr).ravel() & np.isfinite(arr).ravel())
        if lost.size:
            raise ValueError(_would_round(_where(name, arr.shape, int(lost[0])),
                                          arr.flat[lost[0]]))
    return _aligned(np.asarray(arr, dtype=np.float64, order="C"))  # keeps 0-d as 0-d


def _aligned(arr: np.ndarray) -> np.ndarray:
    """``arr``, or an aligned copy (buffers from pickles and Arrow may be unaligned)."""
    return arr if arr.flags.aligned else arr.copy()


def c_array(arr, dtype) -> np.ndarray:
    """``arr`` as an aligned C-contiguous array of ``dtype``: what the core reads.

    A view when it already is one (no copy), else a copy; buffers from
    pickles and Arrow can be contiguous yet unaligned.
    """
    return _aligned(np.ascontiguousarray(arr, dtype))


def rows(value, name: str, width: int, columns: str) -> np.ndarray:
    """An (n, width) float64 C-contiguous array; empty input gives (0, width)."""
    arr = _array(value, name)
    if arr.shape in ((0,), (0, 0), (0, width)):  # [], np.empty((0, 0)), no rows
        return np.empty((0, width), np.float64)
    if arr.ndim != 2 or arr.shape[1] != width:
        raise ValueError(
            f"{name}: expected shape (n, {width}) with columns {columns}, found shape {arr.shape}"
        )
    return _as_float64(arr, name)


_BOX_COLUMNS = ("minx", "miny", "maxx", "maxy")
_XYWH_COLUMNS = ("x", "y", "w", "h")
#: Spellings of ``format=``: corners, or position and size.
FORMATS = ("corners", "xywh")


def _is_pygame_rect(v) -> bool:
    t = type(v)
    return t.__name__ in ("Rect", "FRect") and t.__module__.partition(".")[0] == "pygame"


def box_rows(value, name: str, format: str | None) -> np.ndarray:
    """Boxes as ``(n, 4)`` float64 corners, from corners or ``(x, y, w, h)`` rows.

    ``format=None`` reads corners, except for a list or tuple of pygame
    ``Rect``/``FRect`` objects, which are ``(x, y, w, h)`` by construction
    (read as corners they would silently give other boxes).  With ``"xywh"``
    the corners are ``x, y, x + w, y + h`` (rounded to float64), and a
    negative size is an error naming its row.
    """
    rects = isinstance(value, (list, tuple)) and len(value) > 0 and _is_pygame_rect(value[0])
    if format is None:
        format = "xywh" if rects else "corners"
    if not isinstance(format, str) or format not in FORMATS:
        raise ValueError(f"format: expected one of {', '.join(map(repr, FORMATS))}, "
                         f"found {format!r}")
    if rects:
        if format == "corners":
            raise ValueError(f"{name}: pygame rects are (x, y, w, h), not corners; "
                             "pass format='xywh' or leave format unset")
        k = next((k for k, v in enumerate(value) if not _is_pygame_rect(v)), None)
        if k is not None:
            raise ValueError(f"{name}[{k}]: expected a pygame rect like {name}[0], "
                             f"found {type(value[k]).__name__}")
    if format == "corners":
        return rows(value, name, 4, "minx, miny, maxx, maxy")
    arr = rows(value, name, 4, "x, y, w, h")
    bad = ~np.isfinite(arr)
    if bad.any():
        k, col = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(f"{name}[{k}]: {_XYWH_COLUMNS[col]} is {arr[k, col]}; "
                         "expected finite numbers")
    neg = arr[:, 2:] < 0
    if neg.any():
        k, col = (int(v) for v in np.argwhere(neg)[0])
        raise ValueError(f"{name}[{k}]: {_XYWH_COLUMNS[2 + col]} {arr[k, 2 + col]} < 0; "
                         "expected (x, y, w, h) with sizes >= 0")
    out = np.empty_like(arr)
    out[:, :2] = arr[:, :2]
    np.add(arr[:, :2], arr[:, 2:], out=out[:, 2:])
    return out


def boxes(value, name: str = "boxes", workers: int | None = None, format: str | None = None,
          ) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """Validated boxes as corners (see :func:`box_rows`) and their bounds."""
    arr = box_rows(value, name, format)
    scan = _core.scan_boxes(arr, workers)
    if len(scan) == 2:
        raise ValueError(box_problem(arr, name, *scan))
    return arr, scan


def box_problem(arr: np.ndarray, name: str, row: int, code: int) -> str:
    """The message for the bad row ``row`` of boxes ``arr`` (``code`` from the core's scan)."""
    r = arr[row]
    if code == _core.NOT_FINITE:
        col = int(np.flatnonzero(~np.isfinite(r))[0])
        return f"{name}[{row}]: {_BOX_COLUMNS[col]} is {r[col]}; expected finite numbers"
    if code == _core.X_REVERSED:
        return f"{name}[{row}]: minx {r[0]} > maxx {r[2]}"
    return f"{name}[{row}]: miny {r[1]} > maxy {r[3]}"


def circle_problem(xyr: np.ndarray, radii, row: int, code: int) -> str:
    """The message for the bad row ``row`` of circles ``xyr`` (``code`` from the core)."""
    where = f"radii[{row}]" if np.ndim(radii) else "radii"
    if code == _core.NEGATIVE_RADIUS:
        return f"{where}: expected a radius >= 0, found {xyr[row, 2]}"
    col = int(np.flatnonzero(~np.isfinite(xyr[row]))[0])
    if col == 2:
        return f"{where}: expected a finite radius, found {xyr[row, 2]}"
    return f"centers[{row}]: {'xy'[col]} is {xyr[row, col]}; expected finite numbers"


def circles(centers, radii) -> tuple[np.ndarray, np.ndarray]:
    """Validated ``(x, y, r)`` rows and their outward-rounded boxes."""
    xyr = circle_rows(centers, radii)
    bxs = _core.circle_boxes(xyr)
    if type(bxs) is tuple:
        raise ValueError(circle_problem(xyr, radii, *bxs))
    return xyr, bxs


def circle_rows(centers, radii) -> np.ndarray:
    """``(x, y, r)`` rows of the circles, shapes checked (values checked by the core)."""
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
    return xyr


def per_object(value, name: str, n: int, dtype) -> np.ndarray | None:
    """``groups`` / ``categories`` / ``masks``: a scalar or one integer per object."""
    if value is None:
        return None
    if isinstance(value, np.ndarray):
        arr = _array(value, name)
    else:
        # Lists: NumPy turns [2**63 + 1, 1] into float64, losing bit 0 of a
        # mask; such lists are converted element by element instead.
        arr = _array(value, name) if _plain_ints(value) else _exact_ints(value, name, dtype)
    if arr.dtype.kind not in "iu":
        arr = _whole_floats(arr, name, dtype)
    if arr.ndim == 0:
        arr = np.full(n, arr.item(), dtype=arr.dtype)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(
            f"{name}: expected a scalar or shape ({n},) (one per object), found shape {arr.shape}"
        )
    if dtype == np.uint64 and arr.dtype.kind == "i" and arr.size and arr.min() < 0:
        row = int(np.argmin(arr))
        raise ValueError(
            f"{name}[{row}]: expected bits as a non-negative integer, found {arr[row]}"
        )
    if dtype == np.int64 and arr.dtype == np.uint64 and arr.size and arr.max() >= 2**63:
        row = int(np.argmax(arr))
        raise ValueError(f"{name}[{row}]: expected an integer below 2**63, found {arr[row]}")
    return _aligned(np.ascontiguousarray(arr.astype(dtype, copy=False)))


def _plain_ints(value) -> bool:
    """Whether NumPy reads ``value`` without going through float or object."""
    try:
        return np.asarray(value).dtype.kind not in "fO"
    except (ValueError, TypeError):
        return True  # let _array report it


def _whole_floats(arr: np.ndarray, name: str, dtype) -> np.ndarray:
    """Float arrays whose values are all integers the target type holds."""
    limit = 2.0**64 if dtype == np.uint64 else 2.0**63
    low = 0.0 if dtype == np.uint64 else -(2.0**63)
    if not (arr.dtype.kind == "f" and np.all(arr == np.floor(arr))
            and np.all((arr >= low) & (arr < limit))):
        raise TypeError(f"{name}: expected integers, found dtype {arr.dtype}")
    return arr.astype(dtype)


def _exact_ints(value, name: str, dtype) -> np.ndarray:
    """Integers from a list, exactly (Python ints of any size, whole floats)."""
    try:
        obj = np.asarray(value, dtype=object)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{name}: expected a rectangular array of integers; {exc}") from None
    low, high = (0, 2**64) if dtype == np.uint64 else (-(2**63), 2**63)
    out = np.empty(obj.shape, dtype)
    for idx, v in np.ndenumerate(obj):
        where = f"{name}[{', '.join(map(str, idx))}]" if idx else name
        if isinstance(v, (bool, np.bool_)) or not (
            isinstance(v, numbers.Integral)
            or (isinstance(v, numbers.Real) and math.isfinite(v) and float(v).is_integer())
        ):
            raise TypeError(f"{where}: expected an integer, found {v!r}")
        iv = int(v)
        if not low <= iv < high:
            kind = "bits as a non-negative integer below 2**64" if dtype == np.uint64 else (
                "an integer in [-2**63, 2**63)")
            raise ValueError(f"{where}: expected {kind}, found {iv}")
        out[idx] = iv
    return out


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
