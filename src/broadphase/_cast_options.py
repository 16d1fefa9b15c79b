"""The options of the public API: filters per object, object counts, threads, method.

Checked and converted here, every error naming the argument: ``groups``,
``categories`` and ``masks`` as one integer per object (or per ray) in
the dtype the core reads, the most objects one call takes, ``workers``
and ``method``.
"""

from __future__ import annotations

import numbers
import operator

import numpy as np

from . import _exact

_MAX_WORKERS = 2**31 - 1


def per_object(value, name: str, n: int, dtype, per: str = "object") -> np.ndarray | None:
    """``groups`` / ``categories`` / ``masks``: a scalar or one integer per ``per`` (object)."""
    if value is None:
        return None
    arr = _exact.integers(value, name, dtype)
    if arr.ndim == 0:
        arr = np.full(n, arr.item(), dtype=arr.dtype)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(
            f"{name}: expected a scalar or shape ({n},) (one per {per}), found shape {arr.shape}"
        )
    if dtype == np.uint64 and arr.dtype.kind == "i" and arr.size and arr.min() < 0:
        row = int(np.argmin(arr))
        raise ValueError(
            f"{name}[{row}]: expected bits as a non-negative integer, found {arr[row]}"
        )
    if dtype == np.int64 and arr.dtype == np.uint64 and arr.size and arr.max() >= 2**63:
        row = int(np.argmax(arr))
        raise ValueError(f"{name}[{row}]: expected an integer below 2**63, found {arr[row]}")
    return _exact._aligned(np.ascontiguousarray(arr.astype(dtype, copy=False)))


def filters(n: int, groups, categories, masks) -> dict[str, np.ndarray | None]:
    """The filter arguments of ``n`` objects as the core reads them, by name.

    ``groups`` as int64, ``categories`` and ``masks`` as uint64, each a
    scalar or one value per object (see :func:`per_object`); ``None`` for
    one not given (the core's default: group 0, all bits).  Keyword
    arguments of ``_core.find_pairs`` and ``_core.Tree.insert`` alike.

    Examples
    --------
    >>> from broadphase import _cast_options
    >>> f = _cast_options.filters(3, 7, None, [1, 2, 3])
    >>> f["groups"].tolist(), f["categories"], f["masks"].dtype.name
    ([7, 7, 7], None, 'uint64')
    """
    return {
        "groups": per_object(groups, "groups", n, np.int64),
        "categories": per_object(categories, "categories", n, np.uint64),
        "masks": per_object(masks, "masks", n, np.uint64),
    }


#: Most objects of one call: pair slices hold object indices in 32 bits.
MAX_OBJECTS = 2**31 - 1


def count(n: int, name: str) -> None:
    """Refuse more objects than :data:`MAX_OBJECTS`, naming the argument."""
    if n > MAX_OBJECTS:
        raise ValueError(f"{name}: at most 2**31 - 1 objects supported, found {n}")


def workers(value) -> int | None:
    """``None`` (all threads) or a positive thread count, at most 2**31 - 1.

    More threads than the machine has are allowed (the core uses what there
    is); counts beyond 2**31 - 1 are refused, naming ``workers``.
    """
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"workers: expected None or a positive int, found {value!r}")
    value = operator.index(value)
    if not 1 <= value <= _MAX_WORKERS:
        raise ValueError(f"workers: expected None or a positive int up to 2**31 - 1, "
                         f"found {value}")
    return value


def method(value, choices: tuple[str, ...]) -> str:
    """A ``method=`` argument: one of ``choices``, else ``ValueError`` listing them."""
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"method: expected one of {listed}; found {value!r}")
    return value
