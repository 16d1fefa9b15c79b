"""GeoPandas objects read as boxes: a GeoSeries's (or a GeoDataFrame's) bounds.

A ``geopandas.GeoSeries``, or a ``GeoDataFrame`` (its active geometry column
only, never its other columns), passed where boxes are read by name
(:func:`broadphase._tables_read._table`) is the table ``minx, miny, maxx, maxy``
of its geometries' x-y bounds (``.bounds``), row ``k`` for geometry ``k``
(by position, whatever the index).  An empty or missing geometry has no
bounds (NaN in GeoPandas): it is refused, naming its row, rather than read
as a box of NaNs or dropped (which would renumber the rows after it).

Recognised by their classes' module, so GeoPandas is never imported here.
"""

from __future__ import annotations

import numpy as np

#: The columns a GeoPandas object is read as.
BOUNDS = ("minx", "miny", "maxx", "maxy")


def is_geo(value) -> bool:
    """Whether ``value`` is a GeoPandas GeoSeries or GeoDataFrame (or a subclass)."""
    return any(c.__name__ in ("GeoSeries", "GeoDataFrame")
               and c.__module__.partition(".")[0] == "geopandas"
               for c in type(value).__mro__)


def bounds_column(value, name: str):
    """A function giving column ``k`` of ``value``'s bounds (see :func:`bounds`), read once."""
    cache: list[np.ndarray] = []

    def column(k: int):
        if not cache:
            cache.append(bounds(value, name))
        return cache[0][:, k], None

    return column


def bounds(value, name: str) -> np.ndarray:
    """The x-y bounds of a GeoSeries's or GeoDataFrame's geometries: ``(n, 4)`` float64.

    Examples
    --------
    >>> import geopandas as gpd, shapely
    >>> from broadphase._geo import bounds
    >>> gs = gpd.GeoSeries([shapely.box(0, 0, 2, 1), shapely.Point(5, 6)])
    >>> bounds(gs, "boxes").tolist()
    [[0.0, 0.0, 2.0, 1.0], [5.0, 6.0, 5.0, 6.0]]
    >>> bounds(gpd.GeoSeries([shapely.box(0, 0, 2, 1), shapely.Polygon()]), "boxes")
    Traceback (most recent call last):
    ...
    ValueError: boxes[1]: an empty geometry has no bounds; expected geometries with bounds (drop the empty and missing ones first: gs[~(gs.is_empty | gs.isna())])
    """  # noqa: E501
    if hasattr(value, "columns"):  # a GeoDataFrame: its active geometry column
        try:
            geoms = value.geometry
        except AttributeError:
            raise ValueError(f"{name}: a GeoDataFrame without an active geometry column; "
                             "expected one (set it with set_geometry), whose bounds are the "
                             "boxes") from None
    else:
        geoms = value
    arr = np.asarray(geoms.values.bounds, dtype=np.float64).reshape(-1, 4)
    bad = np.flatnonzero(np.isnan(arr).any(axis=1))
    if bad.size:
        k = int(bad[0])
        what = "a missing geometry (None)" if geoms.iloc[k] is None else "an empty geometry"
        raise ValueError(f"{name}[{k}]: {what} has no bounds; expected geometries with bounds "
                         "(drop the empty and missing ones first: gs[~(gs.is_empty | gs.isna())])")
    return arr
