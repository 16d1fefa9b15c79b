"""Input validation for the public API: rows of numbers, boxes, and bad rows worded.

Everything the kernels receive comes through here or a sibling ``_cast_*``
module: C-contiguous float64 (or int64 / uint64) arrays of the right
shape, never the caller's own buffer when a conversion is needed (so
inputs are never modified).  Every error names the argument, what was
expected and what was found, and the row for bad data.

The numbers themselves are converted by :mod:`._exact` (the one refusal
rule: float64 must hold each value exactly), and tables are read by their
column names in :mod:`._tables`; this module gives rows their shape and
boxes their meaning: ``(n, 4)`` boxes as corners or ``x, y, w, h`` (pygame
rects included).  Where a caller takes 3D (``dims=(2, 3)``: the one-call
searches, Dask), ``(n, 6)`` boxes are corners ``minx, miny, minz, maxx,
maxy, maxz`` or ``x, y, z, w, h, d``.  It also words what the core finds
wrong in a row of boxes or circles (:func:`box_problem`,
:func:`circle_problem`).

The other arguments have a module each: circles as ``(x, y, r)`` rows and
``(n, 3)`` centres as spheres' ``x, y, z`` in :mod:`._cast_circles`; one
integer per object for ``groups`` / ``categories`` / ``masks``, the object
count, ``workers`` and ``method`` in :mod:`._cast_options`; ``touching=``
and the closed boxes it searches in :mod:`._cast_touching`.
"""

from __future__ import annotations

import itertools

import numpy as np

from . import _core, _exact, _tables, _tables_read


def rows(value, name: str, width: int, columns: str) -> np.ndarray:
    """An (n, width) float64 C-contiguous array; empty input gives (0, width)."""
    return shaped_rows(value, name, {width: columns})


def shaped_rows(value, name: str, shapes: dict[int, str]) -> np.ndarray:
    """An (n, w) float64 C-contiguous array for a width ``w`` of ``shapes``.

    ``shapes`` maps each width taken to its columns (for the message); an
    empty input (``[]``, ``np.empty((0, 0))``) gives ``(0, w)`` of the first.
    """
    arr = _exact._array(value, name)
    if arr.shape in ((0,), (0, 0)):  # [], np.empty((0, 0))
        return np.empty((0, next(iter(shapes))), np.float64)
    if arr.ndim != 2 or arr.shape[1] not in shapes:
        wanted = " or ".join(f"(n, {w}) with columns {c}" for w, c in shapes.items())
        raise ValueError(f"{name}: expected shape {wanted}, found shape {arr.shape}")
    if arr.shape[0] == 0:
        return np.empty(arr.shape, np.float64)
    return _exact._as_float64(arr, name)


def _names(layout: str) -> str:
    return ", ".join(_tables.LAYOUTS[layout])


def _layouts(kind: str, dims: tuple[int, ...]) -> list[str]:
    """The layouts (keys of ``_tables.LAYOUTS``) of ``kind`` in each of ``dims``."""
    return [_tables.DIM_LAYOUTS[d][kind] for d in dims]


def _shapes(kind: str, dims: tuple[int, ...]) -> dict[int, str]:
    """For :func:`shaped_rows`: each width of ``kind`` in ``dims`` and its columns."""
    return {len(_tables.LAYOUTS[k]): _names(k) for k in _layouts(kind, dims)}


def _is_rect_type(t: type) -> bool:
    """Whether ``t`` is pygame's ``Rect`` or ``FRect``, or a subclass (still ``x, y, w, h``)."""
    return any(c.__name__ in ("Rect", "FRect") and c.__module__.partition(".")[0] == "pygame"
               for c in t.__mro__)


def _is_pygame_rect(v) -> bool:
    return _is_rect_type(type(v))


def _rect_list(value, name: str) -> bool:
    """Whether ``value`` is a list or tuple of pygame rects; rects among other rows: an error."""
    if not isinstance(value, (list, tuple)) or not value:
        return False
    kinds = set(map(type, value))
    rect_kinds = set(filter(_is_rect_type, kinds))
    if not rect_kinds:
        return False
    if rect_kinds == kinds:
        return True
    flags = [_is_pygame_rect(v) for v in value]
    if flags[0]:
        k = flags.index(False)
        raise ValueError(f"{name}[{k}]: expected a pygame rect like {name}[0], "
                         f"found {type(value[k]).__name__}")
    k = flags.index(True)
    raise ValueError(f"{name}[{k}]: a pygame rect (x, y, w, h) where {name}[0] is not; expected "
                     f"rects in every row or in none")


def _plain_rects(value) -> np.ndarray | None:
    """``(x, y, w, h)`` rows of pygame ``Rect``/``FRect`` objects of exactly those types.

    Read by the rects' own (C) sequence protocol: ints or float32 values, exact in float64,
    about twenty times faster than the generic rows.  ``None`` when some object is of a
    subclass (which may read otherwise): the generic rows read it.
    """
    kinds = set(map(type, value))
    if not all(t.__name__ in ("Rect", "FRect") and t.__module__.partition(".")[0] == "pygame"
               for t in kinds):
        return None
    flat = np.fromiter(itertools.chain.from_iterable(value), np.float64, 4 * len(value))
    return flat.reshape(len(value), 4)


def box_rows(value, name: str, format: str | None, dims: tuple[int, ...] = (2,)) -> np.ndarray:
    """Boxes as ``(n, 4)`` float64 corners, from corners or ``(x, y, w, h)`` rows.

    ``format=None`` reads corners, except for a list or tuple of pygame
    ``Rect``/``FRect`` objects, which are ``(x, y, w, h)`` by construction
    (read as corners they would silently give other boxes), and a table,
    read by its column names (:func:`._tables.pick_columns`).  With ``"xywh"`` the
    corners are ``x, y, x + w, y + h`` (rounded to float64), and a negative
    size is an error naming its row.

    With ``dims=(2, 3)``, ``(n, 6)`` rows (and tables with a z column) are 3D
    boxes: corners ``minx, miny, minz, maxx, maxy, maxz``, or ``x, y, z, w, h,
    d`` with ``"xywh"``, giving ``(n, 6)`` corners.  Pygame rects are 2D.
    """
    if format is not None and (not isinstance(format, str) or format not in _tables.FORMATS):
        raise ValueError(f"format: expected one of {', '.join(map(repr, _tables.FORMATS))}, "
                         f"found {format!r}")
    table = _tables_read._table(value, name)
    if table is not None:
        picked = _tables.pick_columns(table.labels, "boxes", name, format, dims)
        if picked is None:
            format = format or "corners"
            arr = _tables._unnamed_rows(table, name, _layouts(format, dims))
        else:
            layout, positions = picked
            format = "xywh" if layout in ("xywh", "xywh3d") else "corners"
            arr = _tables_read._table_rows(table, positions, name)
            _tables.y_up(arr, [table.labels[k] for k in positions], name)
        if format == "corners":
            return arr
    else:
        rects = _rect_list(value, name)
        if format is None:
            format = "xywh" if rects else "corners"
        elif rects and format == "corners":
            raise ValueError(f"{name}: pygame rects are (x, y, w, h), not corners; "
                             "pass format='xywh' or leave format unset")
        if rects:  # pygame rects: 2D x, y, w, h
            dims = (2,)
        if format == "corners":
            return shaped_rows(value, name, _shapes("corners", dims))
        arr = _plain_rects(value) if rects else None
        if arr is None:
            arr = shaped_rows(value, name, _shapes("xywh", dims))
    return corners_of_xywh(arr, name)


def corners_of_xywh(arr: np.ndarray, name: str) -> np.ndarray:
    """``(x, y, w, h)`` rows (or 3D ``(x, y, z, w, h, d)``) as corners, sizes checked.

    The far corner is ``x + w`` (and so on) rounded to float64; a value that
    is not finite, a negative size or a far corner past float64's largest
    value is an error naming the row and the column.
    """
    half = arr.shape[1] // 2
    cols = _tables.LAYOUTS["xywh" if half == 2 else "xywh3d"]
    bad = ~np.isfinite(arr)
    if bad.any():
        k, col = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(f"{name}[{k}]: {cols[col]} is {arr[k, col]}; "
                         "expected finite numbers")
    neg = arr[:, half:] < 0
    if neg.any():
        k, col = (int(v) for v in np.argwhere(neg)[0])
        raise ValueError(f"{name}[{k}]: {cols[half + col]} {arr[k, half + col]} < 0; "
                         f"expected ({', '.join(cols)}) with sizes >= 0")
    out = np.empty_like(arr)
    out[:, :half] = arr[:, :half]
    with np.errstate(over="ignore"):
        np.add(arr[:, :half], arr[:, half:], out=out[:, half:])
    over = np.isinf(out[:, half:])
    if over.any():
        k, col = (int(v) for v in np.argwhere(over)[0])
        a, b = cols[col], cols[half + col]
        raise ValueError(f"{name}[{k}]: {a} + {b} = {arr[k, col]} + {arr[k, half + col]} "
                         "passes float64's largest value; expected a far edge it holds")
    return out


def boxes(value, name: str = "boxes", workers: int | None = None, format: str | None = None,
          dims: tuple[int, ...] = (2,)) -> tuple[np.ndarray, tuple[float, ...]]:
    """Validated boxes as corners (see :func:`box_rows`) and their bounds.

    The bounds are ``(minx, miny, maxx, maxy)``, or ``(minx, miny, minz, maxx,
    maxy, maxz)`` for 3D boxes (``dims=(2, 3)`` and six columns).
    """
    arr = box_rows(value, name, format, dims)
    scan = _core.scan_boxes(arr, workers)
    if type(scan) is _core.BadRow:
        raise ValueError(box_problem(arr, name, scan.row, scan.code))
    return arr, scan


def box_problem(arr: np.ndarray, name: str, row: int, code: int) -> str:
    """The message for the bad row ``row`` of boxes ``arr`` (``code`` from the core's scan).

    The core found the problem in its own copy of the row; the row is read
    again here, once.  If another thread has rewritten it since, so that
    the problem the core found is gone, the message says the row changed
    during the call (and what it holds now) rather than compare values
    that are no longer there.
    """
    where = f"{name}[{row}]"
    r = np.array(arr[row], np.float64)  # one read: the checks and the message agree
    half = r.size // 2  # 2 or 3 axes
    cols = _tables.LAYOUTS["corners" if half == 2 else "corners3d"]
    faults = {}
    bad = np.flatnonzero(~np.isfinite(r))
    if bad.size:
        col = int(bad[0])
        faults[_core.NOT_FINITE] = where, f"{cols[col]} is {r[col]}; expected finite numbers"
    for axis in range(half):
        lo, hi = r[axis], r[half + axis]
        if lo > hi:
            code_of = (_core.X_REVERSED, _core.Y_REVERSED, _core.Z_REVERSED)[axis]
            faults[code_of] = where, f"{cols[axis]} {lo} > {cols[half + axis]} {hi}"
    return _problem(where, r, faults, code)


def circle_problem(xyr: np.ndarray, radii, row: int, code: int) -> str:
    """The message for the bad row ``row`` of circles ``xyr`` (``code`` from the core).

    As :func:`box_problem`, a row the problem has left since the core read
    it is said to have changed during the call.
    """
    where = f"radii[{row}]" if np.ndim(radii) else "radii"
    r = np.array(xyr[row], np.float64)  # one read: the checks and the message agree
    rc = r.size - 1  # the radius' column: 2 for circles, 3 for spheres
    faults = {}
    bad = np.flatnonzero(~np.isfinite(r))
    if bad.size:
        col = int(bad[0])
        faults[_core.NOT_FINITE] = (
            (where, f"expected a finite radius, found {r[rc]}") if col == rc
            else (f"centers[{row}]", f"{'xyz'[col]} is {r[col]}; expected finite numbers"))
    if r[rc] < 0:
        faults[_core.NEGATIVE_RADIUS] = where, f"expected a radius >= 0, found {r[rc]}"
    return _problem(f"centers[{row}]", r, faults, code)


def _problem(where: str, r: np.ndarray, faults: dict, code: int) -> str:
    """``faults[code]`` (the argument it names, the text) if the row still has it.

    Else the row ``r`` (named ``where``) was rewritten, by another thread,
    after the core read it: said so, with what the row holds now.
    """
    if code in faults:
        return "{}: {}".format(*faults[code])
    changed = f"{where}: changed during the call (written by another thread?)"
    if not faults:
        return f"{changed}; found valid now: {r.tolist()}"
    named, text = next(iter(faults.values()))
    return f"{changed}; found now: {text if named == where else f'{named}: {text}'}"
