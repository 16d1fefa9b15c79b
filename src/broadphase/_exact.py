"""Exact conversion of numbers: what every input's values go through.

The one refusal rule lives here and holds on every path, whatever form the
numbers come in (arrays, nested lists, tuples, table columns, single rows,
scalars): float64 must hold each value exactly, so integers beyond 2**53 in
magnitude, fractions and long doubles that would round, masked or missing
values and booleans are refused, never rounded or read as something else.
Integers for ``groups``, ``categories`` and ``masks`` are read exactly too
(:func:`_exact_ints`).  Every refusal names the argument (and the row, and a
table's column, when there is one): :func:`_where`, :func:`_too_big` and
:func:`_would_round` write those texts for every module.

Conversions give C-contiguous, aligned arrays, never the caller's own
buffer when a conversion is needed (so inputs are never modified).  Shapes,
column names and the meaning of the numbers are left to the callers
(:mod:`._tables`, :mod:`._cast`), but for the few scalars every caller
reads alike: one real number (:func:`real`) and a world's four bounds
(:func:`world`).
"""

from __future__ import annotations

import math
import numbers
import sys
from itertools import chain

import numpy as np

_EXACT_INT = 2**53  # integers beyond this do not all survive float64


def _where(name: str, shape: tuple, flat: int, col=None) -> str:
    """``name[row]`` for the element at flat position ``flat`` (``name`` for a scalar).

    With ``col`` (a table's column label): ``name[row], column 'col'``.
    """
    where = f"{name}[{np.unravel_index(flat, shape)[0]}]" if shape else name
    return where if col is None else f"{where}, column {col!r}"


def _array(value, name: str, col=None) -> np.ndarray:
    if isinstance(value, np.ndarray):
        if type(value) is not np.ndarray and hasattr(value, "mask"):
            _refuse_masked(value, name, col)
        arr = np.asarray(value)
    elif isinstance(value, (list, tuple)):
        arr = _sequence(value, name, col)
    else:
        arr = _asarray(value, name, col)
    if arr.dtype.kind == "O":
        arr = _from_objects(arr, name, col)
    if arr.dtype.kind not in "iuf":
        found = "booleans (dtype bool)" if arr.dtype.kind == "b" else f"dtype {arr.dtype}"
        raise TypeError(f"{_where(name, (), 0, col)}: expected real numbers, found {found}")
    return arr


# Element types NumPy reads as the numbers they are (float64 holds them all),
# and integer types whose values float64 may not hold.  Anything else in a
# list (bool, a masked element, Fraction, None, str, ...) makes the list
# read element by element (_from_objects), which refuses or converts exactly.
_EXACT_TYPES = frozenset({float, np.float64, np.float32, np.float16, np.int8, np.int16,
                          np.int32, np.uint8, np.uint16, np.uint32})
_WIDE_INTS = frozenset({int, np.int64, np.uint64})
_ROWS = frozenset({list, tuple, np.ndarray})
# What NumPy reads wrongly comes out of np.asarray as 0 or 1 (a bool), nan (a
# masked element) or a float of magnitude 2**53 or more (a big int); in long
# lists only the rows holding such values have their elements looked at.
_LONG = 64  # rows; up to this many, every element's type is looked at


class _NeverMasked:
    """A type no value is an instance of: numpy.ma's place while nothing imported it."""


def _masked_type() -> type:
    """``numpy.ma.MaskedArray``, once anything imported numpy.ma; else no value can be one.

    Looked up, not imported: numpy.ma (and numpy.matrixlib, inspect) would
    add about a third to the library's import time for inputs few callers use.
    """
    ma = sys.modules.get("numpy.ma")
    return _NeverMasked if ma is None else ma.MaskedArray


def _hidden() -> tuple:
    """Element types NumPy reads wrongly (a bool as 0 or 1, a masked element as nan)."""
    return (bool, np.bool_, _masked_type())


def _asarray(value, name: str, col=None, dtype=None) -> np.ndarray:
    try:
        return np.asarray(value, dtype=dtype)
    except (ValueError, TypeError, OverflowError) as exc:  # ragged nested lists, odd objects
        raise ValueError(f"{_where(name, (), 0, col)}: expected a rectangular array of "
                         f"numbers; {exc}") from None


def _sequence(value, name: str, col=None) -> np.ndarray:
    """A list or tuple (of numbers or of rows) as an array, exactly or through objects.

    ``np.asarray`` reads it when the element types allow (floats, small
    integers; larger integers when no float of magnitude 2**53 or more
    comes out, which is where float64 would have rounded them); otherwise
    the list is read element by element (:func:`_from_objects`), so that a
    bool is not 1.0, a masked element not nan, a huge int or a Fraction not
    rounded.  Long lists of rows are not looked at element by element: their
    array is, for the values such elements turn into (:func:`_long_rows`).
    """
    top = set(map(type, value))
    rows = top <= _ROWS
    if rows:
        if len(value) > _LONG:
            return _long_rows(value, name, col)
        kinds = set(map(type, chain.from_iterable(value)))
    else:
        if any(issubclass(t, _masked_type()) for t in top):
            _refuse_masked_rows(value, name, col)  # else np.asarray reads the hidden values
        kinds = top
    if kinds <= _EXACT_TYPES:
        return _asarray(value, name, col)
    if kinds <= _EXACT_TYPES | _WIDE_INTS:
        if len(value) <= 16:  # a few numbers: looked at in Python, cheaper than NumPy's checks
            items = chain.from_iterable(value) if rows else value
            if not any(type(v) in _WIDE_INTS and not -_EXACT_INT <= v <= _EXACT_INT
                       for v in items):
                return _asarray(value, name, col)
        else:
            arr = _asarray(value, name, col)
            if arr.dtype.kind != "f" or not (np.abs(arr) >= _EXACT_INT).any():
                return arr
    return _asarray(value, name, col, object)


def _long_rows(value, name: str, col=None) -> np.ndarray:
    """Many rows: ``np.asarray``, then only the rows whose values may hide a misread."""
    arr = _asarray(value, name, col)
    if arr.dtype.kind not in "iuf" or not arr.size:
        return arr if arr.dtype.kind != "b" else _asarray(value, name, col, object)
    flat = arr.reshape(len(arr), -1)
    suspect = (flat == 0) | (flat == 1)
    if arr.dtype.kind == "f":
        if (np.abs(flat) >= _EXACT_INT).any():  # maybe ints float64 rounded
            return _asarray(value, name, col, object)
        suspect |= np.isnan(flat)
    if suspect.any():
        rows = np.flatnonzero(suspect.any(axis=1)).tolist()
        items = [value[k] for k in rows]
        if arr.ndim > 1:
            items = chain.from_iterable(items)
        hidden = _hidden()
        if any(issubclass(t, hidden) for t in set(map(type, items))):
            return _asarray(value, name, col, object)
    return arr


def _masked(v) -> bool:
    return isinstance(v, _masked_type()) and bool(np.ma.getmaskarray(v).any())


def _refuse_masked_rows(value, name: str, col=None) -> None:
    """A list holding masked arrays or elements: refuse the first row with a masked value."""
    for k, row in enumerate(value):
        if _masked(row) or (isinstance(row, (list, tuple)) and any(map(_masked, row))):
            raise ValueError(f"{_where(name, (len(value),), k, col)}: a masked value; expected "
                             f"plain numbers (fill the masked values or drop their rows first)")


def _refuse_masked(value, name: str, col=None) -> None:
    """Masked arrays: their mask would be dropped silently, so masked values are refused."""
    mask = np.ma.getmaskarray(value)
    if mask.any():
        k = int(np.flatnonzero(mask.ravel())[0])
        raise ValueError(f"{_where(name, mask.shape, k, col)}: a masked value; expected plain "
                         f"numbers (fill the masked values or drop their rows first)")


def _from_objects(arr: np.ndarray, name: str, col=None) -> np.ndarray:
    """Object arrays (lists holding None, huge ints, ...): float64, exactly or not at all."""
    out = np.empty(arr.shape, np.float64)
    masked = _masked_type()
    for k, v in enumerate(arr.flat):
        if isinstance(v, masked):
            _refuse_masked(v, _where(name, arr.shape, k, col))
        if isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{_where(name, arr.shape, k, col)}: expected real numbers, "
                            f"found {v!r} (a bool)")
        if not isinstance(v, numbers.Real):  # Decimal is no numbers.Real: refused
            raise TypeError(f"{_where(name, arr.shape, k, col)}: expected real numbers, "
                            f"found {v!r}")
        if isinstance(v, numbers.Integral) and abs(int(v)) > _EXACT_INT:
            raise ValueError(_too_big(_where(name, arr.shape, k, col), v))
        try:
            f = float(v)
        except OverflowError:  # Fraction(10**400): past float64's largest value
            raise ValueError(_would_round(_where(name, arr.shape, k, col), v)) from None
        if f != v and f == f:  # Fraction(1, 3), np.longdouble(1) / 3: float64 would round
            raise ValueError(_would_round(_where(name, arr.shape, k, col), v))
        out.flat[k] = f
    return out


def _would_round(where: str, value) -> str:
    return (f"{where}: values exactly representable in float64 expected, found {value!r}, "
            f"which would round")


def _too_big(where: str, value) -> str:
    return (f"{where}: integers up to 2**53 in magnitude expected (float64 holds them "
            f"exactly), found {value}")


def _as_float64(arr: np.ndarray, name: str, col=None) -> np.ndarray:
    """Convert exactly to float64, refusing values float64 cannot hold."""
    if arr.dtype.kind in "iu" and arr.size:
        # compared as integers: through float64, 2**53 + 1 would round to 2**53 and pass
        big = arr > _EXACT_INT
        if arr.dtype.kind == "i":
            big |= arr < -_EXACT_INT
        if big.any():
            k = int(np.flatnonzero(big.ravel())[0])
            raise ValueError(_too_big(_where(name, arr.shape, k, col), arr.flat[k]))
    if arr.dtype.kind == "f" and arr.dtype.itemsize > 8 and arr.size:
        as64 = arr.astype(np.float64)
        lost = np.flatnonzero((as64.astype(arr.dtype) != arr).ravel() & np.isfinite(arr).ravel())
        if lost.size:
            raise ValueError(_would_round(_where(name, arr.shape, int(lost[0]), col),
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



def real(value, name: str) -> float:
    """One finite real number as float64, under the one refusal rule.

    Booleans, masked values, integers beyond 2**53 and fractions that
    would round are refused, naming ``name``.
    """
    if type(value) is not float:
        if isinstance(value, (bool, np.bool_)) or not (
                isinstance(value, numbers.Real)
                or (isinstance(value, np.ndarray) and value.ndim == 0)):
            raise TypeError(f"{name}: expected a real number, found {value!r}")
        value = float(_as_float64(_array(value, name), name))
    if not math.isfinite(value):
        raise ValueError(f"{name}: expected a finite number, found {value!r}")
    return value


#: The corners of a world's bounds, in order, in 2D and 3D.
_WORLD = {2: ("minx", "miny", "maxx", "maxy"), 3: ("minx", "miny", "minz", "maxx", "maxy", "maxz")}


def world(bounds, dims: tuple[int, ...] = (2,)) -> tuple[float, ...]:
    """A world's ``bounds``: finite numbers ``(minx, miny, maxx, maxy)``, ``min < max``.

    With ``dims=(2, 3)`` (or ``(3,)``) six numbers ``(minx, miny, minz,
    maxx, maxy, maxz)`` are a 3D world; the dimension is the number of
    values given.  Each is read under the one refusal rule (:func:`real`:
    booleans, masked values and numbers float64 would round are refused,
    naming ``bounds[k]``).
    """
    wanted = " or ".join(f"({', '.join(_WORLD[d])})" for d in dims)
    try:
        values = list(bounds)
    except TypeError:
        raise TypeError(f"bounds: expected {wanted}, found {bounds!r}") from None
    if len(values) not in [2 * d for d in dims]:
        raise TypeError(f"bounds: expected {wanted}, found {bounds!r}")
    out = tuple(real(v, f"bounds[{k}]") for k, v in enumerate(values))
    half = len(out) // 2
    if not all(out[k] < out[half + k] for k in range(half)):
        names = _WORLD[half]
        order = [f"{names[k]} < {names[half + k]}" for k in range(half)]
        rule = " and ".join(order) if half == 2 else f"{order[0]}, {order[1]} and {order[2]}"
        raise ValueError(f"bounds: expected finite ({', '.join(names)}) with {rule}, "
                         f"found {out}")
    return out


def integers(value, name: str, dtype) -> np.ndarray:
    """Integers of any form, read exactly: an array of ``dtype`` (int64 or uint64).

    Integer arrays as they are; lists, tuples and object arrays element by
    element unless NumPy makes an integer array of them by itself (so that
    ``[2**63 + 1, 1]`` is not float64 to it, and a bool is not 1); float
    arrays when every value is a whole number ``dtype`` holds.  A refusal
    names the element and its value, as for coordinates.  An empty list is
    an empty array.

    Examples
    --------
    >>> import numpy as np
    >>> integers(np.array([2**62 + 1, 3], dtype=object), "groups", np.int64).tolist()
    [4611686018427387905, 3]
    >>> integers(np.array([1.0, 1.5]), "groups", np.int64)
    Traceback (most recent call last):
    TypeError: groups[1]: expected an integer, found 1.5
    """
    if isinstance(value, np.ndarray):
        if type(value) is not np.ndarray and hasattr(value, "mask"):
            _refuse_masked(value, name)
        arr = np.asarray(value)
        if arr.dtype.kind == "O":
            return _exact_ints(arr, name, dtype)
    elif isinstance(value, (list, tuple)):
        if len(value) == 0:
            return np.empty(0, dtype)
        if set(map(type, value)) <= _INT_TYPES:
            try:
                arr = np.asarray(value)
            except (OverflowError, ValueError, TypeError):
                arr = None
            if arr is not None and arr.dtype.kind in "iu":
                return arr
        return _exact_ints(value, name, dtype)
    elif isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        return _exact_ints(value, name, dtype)
    else:  # a table's column, a float, a string ...
        arr = _asarray(value, name)
        if arr.dtype.kind == "O":
            return _exact_ints(arr, name, dtype)
    if arr.dtype.kind == "f":
        return _whole_floats(arr, name, dtype)
    if arr.dtype.kind not in "iu":
        found = "booleans (dtype bool)" if arr.dtype.kind == "b" else f"dtype {arr.dtype}"
        raise TypeError(f"{name}: expected integers, found {found}")
    return arr


# Element types of a list of integers that NumPy reads exactly when it makes
# an integer array of them (bool is not one: it would read as 0 or 1).
_INT_TYPES = frozenset({int, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                        np.uint32, np.uint64})


def _whole_floats(arr: np.ndarray, name: str, dtype) -> np.ndarray:
    """A float array whose values are all whole numbers ``dtype`` holds, as ``dtype``."""
    low, high = (0.0, 2.0**64) if dtype == np.uint64 else (-(2.0**63), 2.0**63)
    whole = arr == np.floor(arr)  # False for nan and inf
    held = whole & (arr >= low) & (arr < high)
    if not held.all():
        idx = tuple(int(k) for k in np.argwhere(~held)[0])
        where = f"{name}[{', '.join(map(str, idx))}]" if idx else name
        v = arr[idx].item()
        if not whole[idx]:
            raise TypeError(f"{where}: expected an integer, found {v!r}")
        raise ValueError(f"{where}: expected {_int_kind(dtype)}, found {v!r}")
    return arr.astype(dtype)


def _int_kind(dtype) -> str:
    return ("bits as a non-negative integer below 2**64" if dtype == np.uint64
            else "an integer in [-2**63, 2**63)")


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
            kind = " (a bool)" if isinstance(v, (bool, np.bool_)) else ""
            raise TypeError(f"{where}: expected an integer, found {v!r}{kind}")
        iv = int(v)
        if not low <= iv < high:
            raise ValueError(f"{where}: expected {_int_kind(dtype)}, found {iv}")
        out[idx] = iv
    return out
