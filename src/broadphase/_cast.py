"""Input coercion and validation for the public API.

Everything the kernels receive comes through here: C-contiguous float64 (or
int64 / uint64) arrays of the right shape, never the caller's own buffer
when a conversion is needed (so inputs are never modified).  Every error
names the argument, what was expected and what was found, and the row for
bad data.

One refusal rule holds on every path, whatever form the numbers come in
(arrays, nested lists, tables, single rows, scalars): float64 must hold
each value exactly, so integers beyond 2**53 in magnitude, fractions and
long doubles that would round, masked or missing values and booleans are
refused, never rounded or read as something else.  Tables (pandas, polars,
pyarrow, NumPy structured arrays) are read by their column names, which
:func:`pick_columns` alone interprets.
"""

from __future__ import annotations

import math
import numbers
import operator
from itertools import chain

import numpy as np

from . import _core

_EXACT_INT = 2**53  # integers beyond this do not all survive float64
_MAX_WORKERS = 2**31 - 1


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
_HIDDEN = (bool, np.bool_, np.ma.MaskedArray)
_LONG = 64  # rows; up to this many, every element's type is looked at


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
        if any(issubclass(t, np.ma.MaskedArray) for t in top):
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
        if any(issubclass(t, _HIDDEN) for t in set(map(type, items))):
            return _asarray(value, name, col, object)
    return arr


def _masked(v) -> bool:
    return isinstance(v, np.ma.MaskedArray) and bool(np.ma.getmaskarray(v).any())


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
    for k, v in enumerate(arr.flat):
        if isinstance(v, np.ma.MaskedArray):
            _refuse_masked(v, _where(name, arr.shape, k, col))
        if isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{_where(name, arr.shape, k, col)}: expected real numbers, "
                            f"found {v!r} (a bool)")
        if not isinstance(v, numbers.Real):  # Decimal is no numbers.Real: refused
            raise TypeError(f"{_where(name, arr.shape, k, col)}: expected real numbers, "
                            f"found {v!r}")
        if isinstance(v, numbers.Integral) and abs(int(v)) > _EXACT_INT:
            raise ValueError(_too_big(_where(name, arr.shape, k, col), v))
        f = float(v)
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

# --------------------------------------------------------------------------
# tables: columns read by name

#: The columns of each layout, in the order the core reads them.
LAYOUTS = {
    "corners": _BOX_COLUMNS,
    "xywh": _XYWH_COLUMNS,
    "centers": ("x", "y"),
    "circles": ("x", "y", "r"),
}
#: Each column's accepted names, compared without case (the first is the
#: canonical one).
ALIASES = {
    "minx": ("minx", "xmin"), "miny": ("miny", "ymin"),
    "maxx": ("maxx", "xmax"), "maxy": ("maxy", "ymax"),
    "x": ("x",), "y": ("y",), "w": ("w", "width"), "h": ("h", "height"),
    "r": ("r", "radius"),
}
_CANONICAL = {alias: key for key, names in ALIASES.items() for alias in names}


def _spelled(layout: str) -> str:
    """``minx, miny, maxx, maxy (or xmin, ymin, xmax, ymax)``: a layout's names for messages."""
    cols = LAYOUTS[layout]
    text = ", ".join(cols)
    alts = [ALIASES[c][1] if len(ALIASES[c]) > 1 else c for c in cols]
    return text if alts == list(cols) else f"{text} (or {', '.join(alts)})"


def _unnamed(labels) -> bool:
    """Whether ``labels`` are a table's default names: 0, 1, ... (pandas), column_0, ...

    (polars) or f0, ... (NumPy): no names, read in order as an array's columns.
    """
    return bool(labels) and all(
        (isinstance(c, numbers.Integral) and not isinstance(c, bool) and c == k)
        or c in (f"column_{k}", f"f{k}") for k, c in enumerate(labels))


def pick_columns(labels, kind: str, name: str, format: str | None = None):
    """Where the columns of ``kind`` are among a table's column ``labels``.

    The one place where column names are read (every entry point that
    takes tables, and the CSV headers of ``broadphase pairs``, comes here).

    Parameters
    ----------
    labels : sequence
        The table's column labels; names are compared without case and
        surrounding spaces (see :data:`ALIASES`), other columns ignored.
    kind : {"boxes", "centers", "header"}
        ``"boxes"``: corners or ``x, y, w, h`` (``format`` decides when a
        table has both; a ``format`` the names contradict is an error);
        ``"centers"``: ``x, y``, with a radius column ``r`` if there is one;
        ``"header"``: exactly the columns of one layout, any order.
    name : str
        The argument, for messages.
    format : {"corners", "xywh"}, optional
        The caller's ``format=`` (boxes only).

    Returns
    -------
    (layout, positions) or None
        The layout (a key of :data:`LAYOUTS`) and the position of each of
        its columns in ``labels``; None for a table without names
        (:func:`_unnamed`), read in order.

    Examples
    --------
    >>> from broadphase._cast import pick_columns
    >>> pick_columns(["id", "MaxX", "maxy", "minx", "miny"], "boxes", "boxes")
    ('corners', [3, 4, 1, 2])
    >>> pick_columns(["x", "y", "w", "h"], "boxes", "boxes")
    ('xywh', [0, 1, 2, 3])
    >>> pick_columns(["x", "y", "radius"], "centers", "centers")
    ('circles', [0, 1, 2])
    """
    labels = list(labels)
    if _unnamed(labels):
        return None
    found: dict[str, int] = {}
    for k, label in enumerate(labels):
        key = _CANONICAL.get(label.strip().lower()) if isinstance(label, str) else None
        if key is None:
            continue
        if key in found:
            raise ValueError(f"{name}: columns {labels[found[key]]!r} and {label!r} both name "
                             f"{key}; expected one of them")
        found[key] = k
    shown = ", ".join(map(str, labels))
    if kind == "header":
        for layout, cols in LAYOUTS.items():
            if layout != "centers" and set(found) == set(cols) and len(cols) == len(labels):
                return layout, [found[c] for c in cols]
        return None
    if kind == "centers":
        if "x" in found and "y" in found:
            layout = "circles" if "r" in found else "centers"
            return layout, [found[c] for c in LAYOUTS[layout]]
        missing = ", ".join(c for c in "xy" if c not in found)
        raise ValueError(f"{name}: expected columns x, y (and r, or radius, for radii); "
                         f"found columns {shown} (missing {missing})")
    complete = [f for f in FORMATS if all(c in found for c in LAYOUTS[f])]
    if format is not None:
        if format in complete:
            return format, [found[c] for c in LAYOUTS[format]]
        if complete:
            other = complete[0]
            raise ValueError(f"format: {format!r} reads columns {_spelled(format)}, but {name} "
                             f"has columns {', '.join(labels[found[c]] for c in LAYOUTS[other])} "
                             f"({other}); leave format unset or pass format={other!r}")
    elif len(complete) == 1:
        return complete[0], [found[c] for c in LAYOUTS[complete[0]]]
    elif complete:
        raise ValueError(f"{name}: has both corner columns (minx, miny, maxx, maxy) and "
                         f"x, y, w, h; pass format='corners' or format='xywh' to choose")
    want = _spelled(format) if format else f"{_spelled('corners')} or {_spelled('xywh')}"
    near = max([format] if format else FORMATS, key=lambda f: sum(c in found for c in LAYOUTS[f]))
    missing = [c for c in LAYOUTS[near] if c not in found]
    hint = f" (missing {', '.join(missing)})" if len(missing) < len(LAYOUTS[near]) else ""
    raise ValueError(f"{name}: expected columns {want}; found columns {shown}{hint}")


class _Table:
    """A table's column labels and each column as a 1-d array (see :func:`_table`)."""

    def __init__(self, labels, column):
        self.labels = list(labels)
        self._column = column

    def column(self, k: int):
        """Column ``k``'s values and the row of its first missing value (or None)."""
        return self._column(k)


def _table(value) -> _Table | None:
    """``value`` as a table if it has named columns, else None (arrays, lists, numbers).

    pandas and polars DataFrames, pyarrow Tables and RecordBatches, NumPy
    structured arrays (and one structured record), a pandas Series whose
    index labels are strings (one row, as ``df.iloc[k]``), and other
    objects with ``columns`` and ``obj[label]``.  Recognised by their type's
    module, so none of these libraries is imported here.
    """
    if isinstance(value, (list, tuple, float, int)):
        return None
    if isinstance(value, (np.ndarray, np.void)):
        names = value.dtype.names
        if names is None:
            return None
        arr = value.reshape(1) if value.ndim == 0 else value
        return _Table(names, lambda k: (arr[names[k]], None))
    module = type(value).__module__.partition(".")[0]
    if module == "pandas":
        ndim = getattr(value, "ndim", 0) if hasattr(value, "iloc") else 0
        if ndim == 2:
            return _Table(value.columns, lambda k: _pandas(value.iloc[:, k]))
        if ndim == 1 and len(value) and all(isinstance(c, str) for c in value.index):
            return _Table(value.index, lambda k: _pandas(value.iloc[k:k + 1]))
        return None
    if module == "polars" and hasattr(value, "columns") and hasattr(value, "to_series"):
        return _Table(value.columns, lambda k: _polars(value.to_series(k)))
    if module == "pyarrow" and hasattr(value, "column_names"):
        return _Table(value.column_names, lambda k: _arrow(value.column(k)))
    columns = getattr(value, "columns", None)
    if columns is not None and hasattr(value, "__getitem__") and not callable(columns):
        labels = list(columns)
        return _Table(labels, lambda k: (value[labels[k]], None))
    return None


def _pandas(s):
    """A pandas Series' values, missing values (nullable dtypes) found first."""
    if not isinstance(s.dtype, np.dtype):  # Int64, Float64, boolean, string, arrow, ...
        missing = np.flatnonzero(s.isna().to_numpy(dtype=bool))
        if missing.size:
            return None, int(missing[0])
        return s.to_numpy(dtype=getattr(s.dtype, "numpy_dtype", None)), None
    return s.to_numpy(), None


def _polars(s):
    if s.null_count():
        return None, int(np.flatnonzero(s.is_null().to_numpy())[0])
    return s.to_numpy(), None


def _arrow(col):
    if col.null_count:
        return None, int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
    return col.to_numpy(zero_copy_only=False), None


def _column(table: _Table, k: int, name: str) -> np.ndarray:
    """Column ``k`` of a table as 1-d float64, exactly, refusals naming the column and row."""
    label = table.labels[k]
    values, missing = table.column(k)
    if missing is not None:
        raise ValueError(f"{_where(name, (missing + 1,), missing, label)}: a missing value; "
                         f"expected numbers (fill the missing values or drop their rows first)")
    arr = _array(values, name, label)
    if arr.ndim != 1:
        raise ValueError(f"{_where(name, (), 0, label)}: expected one number per row, found "
                         f"shape {arr.shape}")
    return _as_float64(arr, name, label)


def _table_rows(table: _Table, positions, name: str) -> np.ndarray:
    """The columns at ``positions`` side by side: ``(n, len(positions))`` float64."""
    cols = [_column(table, k, name) for k in positions]
    out = np.empty((cols[0].shape[0] if cols else 0, len(cols)), np.float64)
    for j, c in enumerate(cols):
        out[:, j] = c
    return out


def _unnamed_rows(table: _Table, name: str, width: int, layout: str) -> np.ndarray:
    if len(table.labels) != width:
        raise ValueError(f"{name}: expected {width} columns ({', '.join(LAYOUTS[layout])}), "
                         f"found {len(table.labels)} columns without names")
    return _table_rows(table, range(width), name)


# --------------------------------------------------------------------------
# boxes and circles


def _is_pygame_rect(v) -> bool:
    t = type(v)
    return t.__name__ in ("Rect", "FRect") and t.__module__.partition(".")[0] == "pygame"


def _rect_list(value, name: str) -> bool:
    """Whether ``value`` is a list or tuple of pygame rects; rects among other rows: an error."""
    if not isinstance(value, (list, tuple)) or not value:
        return False
    kinds = set(map(type, value))
    if not any(t.__name__ in ("Rect", "FRect") for t in kinds):
        return False
    flags = [_is_pygame_rect(v) for v in value]
    if all(flags):
        return True
    if flags[0]:
        k = flags.index(False)
        raise ValueError(f"{name}[{k}]: expected a pygame rect like {name}[0], "
                         f"found {type(value[k]).__name__}")
    k = flags.index(True)
    raise ValueError(f"{name}[{k}]: a pygame rect (x, y, w, h) where {name}[0] is not; expected "
                     f"rects in every row or in none")


def box_rows(value, name: str, format: str | None) -> np.ndarray:
    """Boxes as ``(n, 4)`` float64 corners, from corners or ``(x, y, w, h)`` rows.

    ``format=None`` reads corners, except for a list or tuple of pygame
    ``Rect``/``FRect`` objects, which are ``(x, y, w, h)`` by construction
    (read as corners they would silently give other boxes), and a table,
    read by its column names (:func:`pick_columns`).  With ``"xywh"`` the
    corners are ``x, y, x + w, y + h`` (rounded to float64), and a negative
    size is an error naming its row.
    """
    if format is not None and (not isinstance(format, str) or format not in FORMATS):
        raise ValueError(f"format: expected one of {', '.join(map(repr, FORMATS))}, "
                         f"found {format!r}")
    table = _table(value)
    if table is not None:
        picked = pick_columns(table.labels, "boxes", name, format)
        if picked is None:
            format = format or "corners"
            arr = _unnamed_rows(table, name, 4, format)
        else:
            format, positions = picked
            arr = _table_rows(table, positions, name)
        if format == "corners":
            return arr
    else:
        rects = _rect_list(value, name)
        if format is None:
            format = "xywh" if rects else "corners"
        elif rects and format == "corners":
            raise ValueError(f"{name}: pygame rects are (x, y, w, h), not corners; "
                             "pass format='xywh' or leave format unset")
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


def center_rows(centers, radii=None) -> tuple[np.ndarray, object]:
    """Centres as ``(n, 2)`` float64, and the radii: ``radii``, or a table's ``r`` column.

    A table of centres is read by its column names (``x, y``); a radius
    column (``r`` or ``radius``) gives the radii (checked here: finite and
    ``>= 0``, naming the column) unless ``radii`` is given too, which is an
    error (one of them would be ignored).  The radii come back as given
    (None if neither).
    """
    table = _table(centers)
    if table is None:
        return rows(centers, "centers", 2, "x, y"), radii
    picked = pick_columns(table.labels, "centers", "centers")
    if picked is None:
        return _unnamed_rows(table, "centers", 2, "centers"), radii
    layout, positions = picked
    c = _table_rows(table, positions[:2], "centers")
    if layout == "circles":
        label = table.labels[positions[2]]
        if radii is not None:
            raise ValueError(f"radii: given twice, as radii and as the column {label!r} of "
                             f"centers; expected one of them")
        radii = _column(table, positions[2], "centers")
        bad = np.flatnonzero(~(radii >= 0) | ~np.isfinite(radii))
        if bad.size:
            k = int(bad[0])
            raise ValueError(f"{_where('centers', radii.shape, k, label)}: expected a finite "
                             f"radius >= 0, found {radii[k]}")
    return c, radii


def circle_rows(centers, radii) -> np.ndarray:
    """``(x, y, r)`` rows of the circles, shapes checked (values checked by the core)."""
    c, radii = center_rows(centers, radii)
    if radii is None:
        raise TypeError("radii: expected real numbers, found None (give a radius, one per "
                        "center, or centers as a table with a column r)")
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


def real(value, name: str) -> float:
    """One finite real number as float64, under the rule of :func:`rows`.

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
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"method: expected one of {listed}; found {value!r}")
    return value
