"""The rays' arguments, checked for both casts: the static ones and the tree's.

:func:`broadphase.cast_rays` (:mod:`._casts`) and ``LinearQuadtree.cast_rays``
(:mod:`._tree_casts`) read origins, directions, ``max_t``, ``hits``, the
rays' bits and ``ignore`` through this one owner, so both name the same
argument, expectation and row for the same bad input; :func:`answer` gives
both the same result types.  The names here are shared inside the package.
"""

from __future__ import annotations

import numpy as np

from . import _cast, _cast_options, _exact, _tables_read

_HITS = ("first", "all", "any")


def dims_of(origins) -> int:
    """3 when ``origins`` holds rows of three numbers (or a table with ``z``), else 2.

    What a cast at no objects reads its dimension from.
    """
    table = _tables_read._table(origins)
    if table is not None:
        return 3 if "z" in [str(v).lower() for v in table.labels] else 2
    try:
        shape = np.shape(origins)
    except ValueError:  # ragged: the points' own error says so
        return 2
    return 3 if len(shape) >= 1 and shape[-1] == 3 else 2


def points(value, name: str, columns: str) -> np.ndarray:
    """``(m, k)`` finite float64 rows named ``name``, ``k`` the number of ``columns``.

    ``columns`` names them, comma-separated (``"x, y"``, ``"x, y, z"``).
    """
    arr = _cast.rows(value, name, columns.count(",") + 1, columns)
    bad = ~np.isfinite(arr)
    if bad.any():
        k, col = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(f"{name}[{k}]: {columns.split(', ')[col]} is {arr[k, col]}; "
                         "expected finite numbers")
    return arr


def max_t_array(value, m: int) -> np.ndarray:
    """One ``max_t`` for every ray, or one per ray: float64 ``>= 0`` (``inf`` allowed).

    Read under the one refusal rule (:mod:`._exact`): a value float64 does
    not hold exactly, a masked value or a boolean is refused, never rounded.
    """
    arr = _exact._as_float64(_exact._array(value, "max_t"), "max_t")
    if arr.ndim == 0:
        arr = arr.reshape(1)  # one for every ray
    elif arr.ndim != 1 or arr.shape[0] != m:
        raise ValueError(f"max_t: expected a scalar or shape ({m},) (one per ray), "
                         f"found shape {np.shape(value)}")
    bad = np.flatnonzero(~(arr >= 0))
    if bad.size:
        k = int(bad[0])
        where = "max_t" if np.ndim(value) == 0 else f"max_t[{k}]"
        raise ValueError(f"{where}: expected a number >= 0 (inf allowed), found {arr[k]}")
    return arr


def hits(value) -> str:
    """``hits``: one of ``"first"``, ``"all"``, ``"any"``."""
    if not isinstance(value, str) or value not in _HITS:
        raise ValueError(f"hits: expected one of 'first', 'all', 'any'; found {value!r}")
    return value


def ignore_indices(value, m: int, n: int) -> np.ndarray | None:
    """Per ray, the object (an index below ``n``) it ignores (its shooter) or -1."""
    arr = _cast_options.per_object(value, "ignore", m, np.int64, per="ray")
    if arr is None:
        return None
    bad = np.flatnonzero((arr < -1) | (arr >= n))
    if bad.size:
        k = int(bad[0])
        where = "ignore" if np.ndim(value) == 0 else f"ignore[{k}]"
        raise ValueError(f"{where}: expected an object index in [0, {n}) or -1, found {arr[k]}")
    return arr


def ignore_handles(value, m: int) -> np.ndarray | None:
    """Per ray, a tree's handle it ignores (its shooter) or -1."""
    arr = _cast_options.per_object(value, "ignore", m, np.int64, per="ray")
    if arr is None:
        return None
    bad = np.flatnonzero(arr < -1)
    if bad.size:
        k = int(bad[0])
        where = "ignore" if np.ndim(value) == 0 else f"ignore[{k}]"
        raise ValueError(f"{where}: expected a handle or -1, found {arr[k]}")
    return arr


def rays(origins, directions, max_t, ray_categories, ray_masks, ignore, n: int,
         dims: int = 2) -> dict:
    """The rays' arguments of ``_core.cast_rays``, checked, by name.

    ``ignore`` is checked as indices of ``n`` objects; the tree passes
    ``None`` and sets ``"ignore"`` from :func:`ignore_handles`.  ``dims``
    is the objects' dimension: origins and directions of 2 or 3 columns.
    """
    axes = "xyz"[:dims]
    o = points(origins, "origins", ", ".join(axes))
    d = points(directions, "directions", ", ".join("d" + a for a in axes))
    m = o.shape[0]
    if d.shape[0] != m:
        raise ValueError(f"directions: expected {m} rows (one per origin), found {d.shape[0]}")
    _cast_options.count(m, "origins")
    return {
        "origins": o,
        "directions": d,
        "max_t": max_t_array(max_t, m),
        "ray_categories": _cast_options.per_object(ray_categories, "ray_categories", m, np.uint64,
                                           per="ray"),
        "ray_masks": _cast_options.per_object(ray_masks, "ray_masks", m, np.uint64, per="ray"),
        "ignore": ignore_indices(ignore, m, n),
    }


def answer(out, hits: str):
    """The core's casts as returned: ``hits="first"``'s indices as intp."""
    if hits == "first":
        index, t = out
        return index.astype(np.intp, copy=False), t
    return out
