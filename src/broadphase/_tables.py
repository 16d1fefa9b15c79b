"""Objects with named columns: the single owner of column names.

A table (recognised and read by :mod:`._tables_read`: pandas and polars
DataFrames, pyarrow Tables and RecordBatches, NumPy structured arrays, a
pandas Series as one row, GeoPandas' bounds, other objects with
``columns``) has its columns found here by name (:func:`pick_columns`, the
one place where names are read), compared without case and surrounding
spaces; other columns are ignored:

- boxes as corners: ``minx, miny, maxx, maxy`` (or ``xmin, ymin, xmax, ymax``,
  ``left, bottom, right, top`` with y up as in GIS, ``x0, y0, x1, y1``);
- boxes as position and size: ``x, y, w, h`` (or ``width``, ``height``);
- centres: ``x, y``, with radii in ``r`` (or ``radius``) if there is such a column.

Where 3D is taken (the one-call searches and Dask: :func:`pick_columns` with
``dims=(2, 3)``), a table holding all the columns of a 3D layout (centres:
``x, y, z``), or naming a z corner (``minz``, ``maxz``, or ``zmin``,
``zmax``), is 3D:

- 3D boxes as corners: ``minx, miny, minz, maxx, maxy, maxz`` (or ``xmin, ymin,
  zmin, xmax, ymax, zmax``; ``z0``, ``z1`` beside ``x0, y0, x1, y1``);
- 3D boxes as position and size: ``x, y, z, w, h, d`` (or ``width``, ``height``,
  ``depth``);
- sphere centres: ``x, y, z``, with radii in ``r`` (or ``radius``).

A bare ``z`` (or ``d``, ``depth``) column beside a 2D box layout (a draw
order, say) leaves a table 2D and is ignored, as any other.  Where only 2D is
taken (``LinearQuadtree``, the pygame paths) the 3D names are not read, as before
3D, except that a table of whole 3D corners (``minx, ..., maxz``) is refused,
naming its columns, rather than read as its x-y shadow.  A CSV header of
``broadphase pairs`` names exactly one layout, 2D or 3D (``kind="header"``).

A table without names (0, 1, ... in pandas, ``column_0``, ... in polars,
``f0``, ... in NumPy) is read in order (where 3D is taken, as 3D when it has
6 columns of boxes or 3 of centres).  Each column's values are read under the
refusal rule of :mod:`._exact`; a missing value is refused, naming its column
and row.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._tables_read import _Table, _table_rows

#: Spellings of ``format=``: corners, or position and size.
FORMATS = ("corners", "xywh")
#: The columns of each layout, in the order the core reads them.
LAYOUTS = {
    "corners": ("minx", "miny", "maxx", "maxy"),
    "xywh": ("x", "y", "w", "h"),
    "centers": ("x", "y"),
    "circles": ("x", "y", "r"),
    "corners3d": ("minx", "miny", "minz", "maxx", "maxy", "maxz"),
    "xywh3d": ("x", "y", "z", "w", "h", "d"),
    "centers3d": ("x", "y", "z"),
    "spheres": ("x", "y", "z", "r"),
}
#: The layout of each format (and of centres) in each dimension.
DIM_LAYOUTS = {
    2: {"corners": "corners", "xywh": "xywh", "centers": "centers"},
    3: {"corners": "corners3d", "xywh": "xywh3d", "centers": "centers3d"},
}
#: The layouts a CSV header may name (``kind="header"``), 2D and 3D.
HEADER_LAYOUTS = ("corners", "xywh", "circles", "corners3d", "xywh3d", "spheres")
#: Each column's accepted names, compared without case (the first is the
#: canonical one).
ALIASES = {
    "minx": ("minx", "xmin", "left", "x0"), "miny": ("miny", "ymin", "bottom", "y0"),
    "maxx": ("maxx", "xmax", "right", "x1"), "maxy": ("maxy", "ymax", "top", "y1"),
    "x": ("x",), "y": ("y",), "w": ("w", "width"), "h": ("h", "height"),
    "r": ("r", "radius"),
    "minz": ("minz", "zmin", "z0"), "maxz": ("maxz", "zmax", "z1"), "z": ("z",),
    "d": ("d", "depth"),
}
#: Columns only a 3D layout reads, and those that make a table 3D.
_3D_ONLY = frozenset({"minz", "maxz", "z", "d"})
_Z_AXIS = ("z", "minz", "maxz")
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


def pick_columns(labels, kind: str, name: str, format: str | None = None,
                 dims: tuple[int, ...] = (2,)):
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
        ``"header"``: exactly the columns of one layout of
        :data:`HEADER_LAYOUTS` (2D or 3D), any order.
    name : str
        The argument, for messages.
    format : {"corners", "xywh"}, optional
        The caller's ``format=`` (boxes only).
    dims : tuple of int
        The dimensions the caller takes: ``(2,)`` (the 3D names are not
        read) or ``(2, 3)``, where a table with a z column (``z``, ``minz``,
        ``maxz``) is 3D: ``minx, miny, minz, maxx, maxy, maxz`` or ``x, y, z,
        w, h, d`` boxes, ``x, y, z`` centres.

    Returns
    -------
    (layout, positions) or None
        The layout (a key of :data:`LAYOUTS`) and the position of each of
        its columns in ``labels``; None for a table without names
        (:func:`_unnamed`), read in order.

    Examples
    --------
    >>> from broadphase._tables import pick_columns
    >>> pick_columns(["id", "MaxX", "maxy", "minx", "miny"], "boxes", "boxes")
    ('corners', [3, 4, 1, 2])
    >>> pick_columns(["x", "y", "w", "h"], "boxes", "boxes")
    ('xywh', [0, 1, 2, 3])
    >>> pick_columns(["x", "y", "radius"], "centers", "centers")
    ('circles', [0, 1, 2])
    >>> pick_columns(["zmax", "minx", "maxx", "miny", "maxy", "minz"], "boxes", "boxes",
    ...              dims=(2, 3))
    ('corners3d', [1, 3, 5, 2, 4, 0])
    >>> pick_columns(["x", "y", "z", "r"], "centers", "centers", dims=(2, 3))
    ('spheres', [0, 1, 2, 3])
    """
    labels = list(labels)
    if _unnamed(labels):
        return None
    found: dict[str, int] = {}
    twice: dict[str, int] = {}  # a 3D-only name's second column: an error only if it is read
    for k, label in enumerate(labels):
        key = _CANONICAL.get(label.strip().lower()) if isinstance(label, str) else None
        if key is None:
            continue
        if key in found:
            if key not in _3D_ONLY:
                raise ValueError(f"{name}: columns {labels[found[key]]!r} and {label!r} both "
                                 f"name {key}; expected one of them")
            twice.setdefault(key, k)
            continue
        found[key] = k
    shown = ", ".join(map(str, labels))
    if kind == "header":  # exactly one layout's names, 2D or 3D: nothing ignored
        if twice:
            key, k = next(iter(twice.items()))
            raise ValueError(f"{name}: columns {labels[found[key]]!r} and {labels[k]!r} both "
                             f"name {key}; expected one of them")
        for layout in HEADER_LAYOUTS:
            cols = LAYOUTS[layout]
            if set(found) == set(cols) and len(cols) == len(labels):
                return layout, [found[c] for c in cols]
        return None
    # Where 3D is taken, a table is 3D when it holds a whole 3D layout or
    # names a z corner (minz, maxz); a bare z or d beside a 2D layout (a
    # draw order, say) is ignored.  Where only 2D is taken, a whole 3D
    # corner layout is refused rather than read as its x-y shadow; other
    # z columns are ignored there, as before 3D.
    corners3d = all(c in found for c in LAYOUTS["corners3d"])
    if 3 not in dims:
        if kind == "boxes" and corners3d:
            cols = ", ".join(str(labels[found[c]]) for c in LAYOUTS["corners3d"])
            raise ValueError(f"{name}: expected 2D columns; found the 3D columns {cols} (3D "
                             "objects go to LinearOctree and to the calls that read the dimension "
                             "from the data, such as find_pairs and cast_rays)")
        is3d = False
    else:
        layouts3d = ("corners3d", "xywh3d") if kind == "boxes" else ("centers3d",)
        whole = any(all(c in found for c in LAYOUTS[f]) for f in layouts3d)
        is3d = whole or any(c in found for c in ("minz", "maxz"))
    if not is3d:
        found = {c: k for c, k in found.items() if c not in _3D_ONLY}
    for key, k in twice.items():
        if key in found:
            raise ValueError(f"{name}: columns {labels[found[key]]!r} and {labels[k]!r} both "
                             f"name {key}; expected one of them")
    z_axis = [labels[found[c]] for c in _Z_AXIS if c in found]
    dim = 3 if 3 in dims and (2 not in dims or is3d) else 2
    # why a table is 3D, for messages: the z column(s) it has
    why = (f" (3D: {name} has the column{'s' * (len(z_axis) > 1)} "
           f"{', '.join(map(str, z_axis))})" if dim == 3 and 2 in dims else "")
    if kind == "centers":
        if dim == 3:
            if all(c in found for c in "xyz"):
                layout = "spheres" if "r" in found else "centers3d"
                return layout, [found[c] for c in LAYOUTS[layout]]
            missing = ", ".join(c for c in "xyz" if c not in found)
            raise ValueError(f"{name}: expected columns x, y, z (and r, or radius, for radii)"
                             f"{why}; found columns {shown} (missing {missing})")
        if "x" in found and "y" in found:
            layout = "circles" if "r" in found else "centers"
            return layout, [found[c] for c in LAYOUTS[layout]]
        missing = ", ".join(c for c in "xy" if c not in found)
        raise ValueError(f"{name}: expected columns x, y (and r, or radius, for radii); "
                         f"found columns {shown} (missing {missing})")
    layouts = DIM_LAYOUTS[dim]
    complete = [f for f in FORMATS if all(c in found for c in LAYOUTS[layouts[f]])]
    if format is not None:
        if format in complete:
            return layouts[format], [found[c] for c in LAYOUTS[layouts[format]]]
        if complete:
            other = complete[0]
            raise ValueError(f"format: {format!r} reads columns {_spelled(layouts[format])}, "
                             f"but {name} has columns "
                             f"{', '.join(labels[found[c]] for c in LAYOUTS[layouts[other]])} "
                             f"({other}); leave format unset or pass format={other!r}")
    elif len(complete) == 1:
        return layouts[complete[0]], [found[c] for c in LAYOUTS[layouts[complete[0]]]]
    elif complete:
        corners, xywh = (", ".join(LAYOUTS[layouts[f]]) for f in FORMATS)
        raise ValueError(f"{name}: has both corner columns ({corners}) and {xywh}; pass "
                         f"format='corners' or format='xywh' to choose")
    want = (_spelled(layouts[format]) if format
            else f"{_spelled(layouts['corners'])} or {_spelled(layouts['xywh'])}")
    near = max([format] if format else FORMATS,
               key=lambda f: sum(c in found for c in LAYOUTS[layouts[f]]))
    missing = [c for c in LAYOUTS[layouts[near]] if c not in found]
    hint = f" (missing {', '.join(missing)})" if len(missing) < len(LAYOUTS[layouts[near]]) else ""
    raise ValueError(f"{name}: expected columns {want}{why}; found columns {shown}{hint}")


def y_up(arr: np.ndarray, labels, name: str) -> None:
    """Refuse a ``bottom`` above ``top`` (y down, as on a screen) with a word on why.

    ``left, bottom, right, top`` are read with y up, as in GIS: bottom is the
    smaller y.  Rows of a y-down convention have every top below its bottom;
    their first is named here rather than as ``miny > maxy``.
    """
    half = len(labels) // 2
    low, high = str(labels[1]).strip().lower(), str(labels[half + 1]).strip().lower()
    if (low, high) != ("bottom", "top") or not arr.shape[0]:
        return
    bad = np.flatnonzero(arr[:, 1] > arr[:, half + 1])
    if bad.size:
        k = int(bad[0])
        raise ValueError(f"{name}[{k}]: {labels[1]} {arr[k, 1]} > {labels[half + 1]} "
                         f"{arr[k, half + 1]}; left, bottom, right, top are read with y up (as "
                         f"in GIS: bottom is miny, top is maxy); for y down (a screen's) name "
                         f"them minx, miny, maxx, maxy with top as miny")


def _unnamed_rows(table: _Table, name: str, layouts) -> np.ndarray:
    """A table without names, read in order as the one of ``layouts`` as wide as it is.

    ``layouts`` are keys of :data:`LAYOUTS`; a table as wide as none of them
    is an error naming their columns.
    """
    width = len(table.labels)
    if not any(len(LAYOUTS[layout]) == width for layout in layouts):
        wanted = " or ".join(f"{len(LAYOUTS[layout])} columns ({', '.join(LAYOUTS[layout])})"
                             for layout in layouts)
        raise ValueError(f"{name}: expected {wanted}, found {width} columns without names")
    return _table_rows(table, range(width), name)
