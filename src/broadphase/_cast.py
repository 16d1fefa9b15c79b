"""Input validation for the public API: shapes, boxes, circles, filters, options.

Everything the kernels receive comes through here: C-contiguous float64 (or
int64 / uint64) arrays of the right shape, never the caller's own buffer
when a conversion is needed (so inputs are never modified).  Every error
names the argument, what was expected and what was found, and the row for
bad data.

The numbers themselves are converted by :mod:`._exact` (the one refusal
rule: float64 must hold each value exactly), and tables are read by their
column names in :mod:`._tables`; this module gives them their meaning:
``(n, 4)`` boxes as corners or ``x, y, w, h`` (pygame rects included),
circles as ``(x, y, r)``, one integer per object for ``groups`` /
``categories`` / ``masks``, ``workers`` and ``method``.  Where a caller takes
3D (``dims=(2, 3)``: the one-call searches, Dask), ``(n, 6)`` boxes are corners
``minx, miny, minz, maxx, maxy, maxz`` or ``x, y, z, w, h, d``, and ``(n, 3)``
centres are spheres' ``x, y, z``.
"""

from __future__ import annotations

import itertools
import numbers
import operator

import numpy as np

from . import _core, _exact, _geo, _tables

_MAX_WORKERS = 2**31 - 1
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
    table = _tables._table(value, name)
    if table is not None:
        picked = _tables.pick_columns(table.labels, "boxes", name, format, dims)
        if picked is None:
            format = format or "corners"
            arr = _tables._unnamed_rows(table, name, _layouts(format, dims))
        else:
            layout, positions = picked
            format = "xywh" if layout in ("xywh", "xywh3d") else "corners"
            arr = _tables._table_rows(table, positions, name)
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


def circles(centers, radii, dims: tuple[int, ...] = (2,)) -> tuple[np.ndarray, np.ndarray]:
    """Validated ``(x, y, r)`` rows and their outward-rounded boxes.

    ``dims`` as in :func:`circle_rows`: ``(3,)`` or ``(2, 3)`` take spheres.
    """
    xyr = circle_rows(centers, radii, dims)
    bxs = _core.circle_boxes(xyr)
    if type(bxs) is _core.BadRow:
        raise ValueError(circle_problem(xyr, radii, bxs.row, bxs.code))
    return xyr, bxs


def tree_circles(centers, radii) -> tuple[np.ndarray, np.ndarray]:
    """:func:`circles` for a tree, which holds objects whose box is finite.

    A circle whose centre and radius reach past the largest float64 (its
    outward-rounded box is infinite) is refused, naming its row; the static
    searches take such circles.
    """
    xyr, bxs = circles(centers, radii)
    bad = np.flatnonzero(~np.isfinite(bxs).all(axis=1))
    if bad.size:
        k = int(bad[0])
        x, y, r = xyr[k].tolist()
        raise ValueError(f"centers[{k}]: the circle at ({x}, {y}) of radius {r} reaches past "
                         "the largest float64; expected a circle whose box is finite (a tree "
                         "holds finite boxes)")
    return xyr, bxs


def center_rows(centers, radii=None, dims: tuple[int, ...] = (2,)) -> tuple[np.ndarray, object]:
    """Centres as ``(n, 2)`` float64, and the radii: ``radii``, or a table's ``r`` column.

    A table of centres is read by its column names (``x, y``); a radius
    column (``r`` or ``radius``) gives the radii (checked here: finite and
    ``>= 0``, naming the column) unless ``radii`` is given too, which is an
    error (one of them would be ignored).  The radii come back as given
    (None if neither).  With ``dims=(2, 3)``, ``(n, 3)`` rows and tables
    with a column ``z`` are spheres' centres, ``(n, 3)``.
    """
    if _geo.is_geo(centers):  # read as boxes elsewhere: points are not guessed here
        raise TypeError(f"centers: expected centres, found a {type(centers).__name__}, which "
                        "is read as boxes (its bounds) where boxes are taken; for points as "
                        "centres pass their coordinates (gs.get_coordinates())")
    table = _tables._table(centers, "centers")
    if table is None:
        return shaped_rows(centers, "centers", _shapes("centers", dims)), radii
    picked = _tables.pick_columns(table.labels, "centers", "centers", dims=dims)
    if picked is None:
        return _tables._unnamed_rows(table, "centers", _layouts("centers", dims)), radii
    layout, positions = picked
    ncoord = 3 if layout in ("centers3d", "spheres") else 2
    c = _tables._table_rows(table, positions[:ncoord], "centers")
    if layout in ("circles", "spheres"):
        label = table.labels[positions[ncoord]]
        if radii is not None:
            raise ValueError(f"radii: given twice, as radii and as the column {label!r} of "
                             f"centers; expected one of them")
        radii = _tables._column(table, positions[ncoord], "centers")
        bad = np.flatnonzero(~(radii >= 0) | ~np.isfinite(radii))
        if bad.size:
            k = int(bad[0])
            where = _exact._where("centers", radii.shape, k, label)
            raise ValueError(f"{where}: expected a finite radius >= 0, found {radii[k]}")
    return c, radii


def circle_rows(centers, radii, dims: tuple[int, ...] = (2,)) -> np.ndarray:
    """``(x, y, r)`` rows of the circles, shapes checked (values checked by the core).

    With ``dims=(2, 3)``, 3D centres give spheres' ``(x, y, z, r)`` rows.
    """
    c, radii = center_rows(centers, radii, dims)
    if radii is None:
        raise TypeError("radii: expected real numbers, found None (give a radius, one per "
                        "center, or centers as a table with a column r)")
    n = c.shape[0]
    r = _exact._as_float64(_exact._array(radii, "radii"), "radii")
    if r.ndim == 0:
        r = np.full(n, r[()])
    elif r.ndim != 1 or r.shape[0] != n:
        raise ValueError(
            f"radii: expected a scalar or shape ({n},) (one per center), found shape {r.shape}"
        )
    d = c.shape[1]
    xyr = np.empty((n, d + 1), np.float64)
    xyr[:, :d] = c
    xyr[:, d] = r
    return xyr


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
    >>> from broadphase import _cast
    >>> f = _cast.filters(3, 7, None, [1, 2, 3])
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
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"method: expected one of {listed}; found {value!r}")
    return value


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
