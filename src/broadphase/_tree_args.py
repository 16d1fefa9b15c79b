"""The arguments of ``LinearQuadtree``: handles, single rows, settings.

Checked and converted here, every error naming the argument; the numbers
themselves go through :mod:`._exact` (the one refusal rule), the boxes
through :mod:`._cast` and the circles through :mod:`._cast_circles`.
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import NDArray

from . import _core, _exact, _tables_read

#: Deepest tree: the list heads of all levels, (4**(depth+1) - 1) / 3 cells
#: of 9 bytes, take 201 MB of address space at depth 12 (zeroed memory,
#: mapped only where objects are).
MAX_DEPTH = _core.TREE_MAX_DEPTH


def _handle_array(handles, name: str = "handles") -> NDArray[np.int64]:
    """Handles as a contiguous int64 array; ``KeyError`` for one no tree can hold.

    ``name`` is the argument the errors name.
    """
    arr = np.asarray(handles)
    if arr.dtype.kind in "fO" and arr.size and not isinstance(handles, np.ndarray):
        arr = _int_list(handles)  # [np.uint64(0), 1] is float64, [2**64] object
    if arr.dtype.kind not in "iu":
        if arr.size == 0 and arr.dtype.kind == "f":
            arr = arr.astype(np.int64)
        else:
            raise TypeError(f"{name}: expected integers, found dtype {arr.dtype}")
    arr = np.atleast_1d(arr)
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a handle or shape (n,), found shape {arr.shape}")
    if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
        raise KeyError(f"handle {arr.max()}: not in the tree (removed or never inserted)")
    return _exact.c_array(arr, np.int64)


def _real(v, name: str) -> float:
    """A finite number float64 holds exactly (see ``_exact.real``), naming ``name``."""
    return _exact.real(v, name)


def _int_list(values) -> np.ndarray:
    """Handles given as Python or NumPy integers of any size, exactly; int64 or uint64.

    ``KeyError`` for one no array can hold (no handle is that big), else
    the values as they were (the caller reports a wrong type).
    """
    obj = np.asarray(values, dtype=object)
    if not all(isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))
               for v in obj.flat):
        return np.asarray(values)
    ints = [int(v) for v in obj.flat]
    for v in ints:
        if not -(2**63) <= v < 2**64:
            raise KeyError(f"handle {v}: not in the tree (removed or never inserted)")
    dtype = np.uint64 if max(ints) >= 2**63 else np.int64
    return np.array(ints, dtype=dtype).reshape(obj.shape)


def _one_or_many(value, width: int):
    """A single row of ``width`` numbers as a one-row table; anything else unchanged.

    An array row becomes a one-row view of itself (a masked row stays
    masked, so its masked values are refused); tables and named rows
    (``df.iloc[k]``) are left to ``_cast``, which reads them by name (``_tables``).
    """
    if isinstance(value, np.ndarray) and value.dtype.names is None:
        return value[np.newaxis] if value.shape == (width,) else value
    if isinstance(value, (list, tuple)) and len(value) != width:
        return value  # not one row: no need to look at every element
    if _tables_read._table(value) is None and np.ndim(value) == 1 and np.shape(value) == (width,):
        return [value]
    return value


def _same_length(h, rows, name: str) -> None:
    if rows.shape[0] != h.shape[0]:
        raise ValueError(f"{name}: expected {h.shape[0]} rows (one per handle), "
                         f"found {rows.shape[0]}")


def _check_depth(depth) -> int:
    if isinstance(depth, (bool, np.bool_)) or not isinstance(depth, numbers.Integral):
        raise TypeError(f"depth: expected an int, found {depth!r}")
    if not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth: expected 0 <= depth <= {MAX_DEPTH} (the list heads of "
                         f"depth 12 take 201 MB, each level more four times that), "
                         f"found {depth}")
    return int(depth)


def _check_margin(margin) -> float:
    m = _exact.real(margin, "margin")  # finite, and not what float64 would round
    if not m >= 0:
        raise ValueError(f"margin: expected a finite number >= 0, found {margin!r}")
    return m


def _max_rows(max_rows) -> int | None:
    """A ``max_rows`` argument: ``None``, or an int >= 0 (capped at the core's u64)."""
    if max_rows is None:
        return None
    if isinstance(max_rows, bool) or not isinstance(max_rows, numbers.Integral) or max_rows < 0:
        raise ValueError(f"max_rows: expected an int >= 0, found {max_rows!r}")
    return min(int(max_rows), 2**64 - 1)
