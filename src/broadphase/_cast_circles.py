"""Circles (and spheres) for the public API: centres and radii as ``(x, y, r)`` rows.

Checked and converted here as :mod:`._cast` checks boxes, every error
naming the argument: centres as ``(n, 2)`` rows or a table read by its
column names (``x, y``, and the radii from a column ``r`` or ``radius``),
radii as a scalar or one per centre, and, where a caller takes 3D
(``dims=(3,)`` or ``(2, 3)``), ``(n, 3)`` centres as spheres' ``x, y, z``
giving ``(x, y, z, r)`` rows.  The core checks the values and computes
the outward-rounded boxes; its findings are worded by
:func:`._cast.circle_problem`.
"""

from __future__ import annotations

import numpy as np

from . import _core, _exact, _geo, _tables, _tables_read
from ._cast import _layouts, _shapes, circle_problem, shaped_rows


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
    table = _tables_read._table(centers, "centers")
    if table is None:
        return shaped_rows(centers, "centers", _shapes("centers", dims)), radii
    picked = _tables.pick_columns(table.labels, "centers", "centers", dims=dims)
    if picked is None:
        return _tables._unnamed_rows(table, "centers", _layouts("centers", dims)), radii
    layout, positions = picked
    ncoord = 3 if layout in ("centers3d", "spheres") else 2
    c = _tables_read._table_rows(table, positions[:ncoord], "centers")
    if layout in ("circles", "spheres"):
        label = table.labels[positions[ncoord]]
        if radii is not None:
            raise ValueError(f"radii: given twice, as radii and as the column {label!r} of "
                             f"centers; expected one of them")
        radii = _tables_read._column(table, positions[ncoord], "centers")
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
