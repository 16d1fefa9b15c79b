"""GeoParquet 1.1 bbox covering columns, for :func:`broadphase.dask.read_parquet`.

A GeoParquet file says what it holds in its schema's ``geo`` metadata
(JSON).  Since GeoParquet 1.1 a geometry column may have a *covering*: a
struct column of each geometry's bounds, declared as::

    "covering": {"bbox": {"xmin": ["bbox", "xmin"], "ymin": ["bbox", "ymin"],
                          "xmax": ["bbox", "xmax"], "ymax": ["bbox", "ymax"]}}

(``zmin`` and ``zmax`` too for 3D).  Those fields, read by the names the
metadata gives, are the boxes of the primary geometry column: no geometry is
decoded (GeoPandas writes them with ``to_parquet(..., write_covering_bbox=True)``).
"""

from __future__ import annotations

import json

#: The covering's field of each corner column :func:`broadphase.dask.read_parquet` reads.
_CORNER_KEYS = {"minx": "xmin", "miny": "ymin", "minz": "zmin",
                "maxx": "xmax", "maxy": "ymax", "maxz": "zmax"}
HOW = ("write the file with one: GeoDataFrame.to_parquet(path, write_covering_bbox=True) "
       "(GeoPandas >= 1.0)")


def geo_metadata(schema, file: str) -> dict | None:
    """The ``geo`` metadata of a Parquet file's Arrow schema, or None for a plain file."""
    raw = (schema.metadata or {}).get(b"geo")
    if raw is None:
        return None
    try:
        geo = json.loads(raw)
    except ValueError as e:
        raise ValueError(f"path: {file} has 'geo' metadata that is not JSON ({e})") from None
    if not isinstance(geo, dict):
        raise ValueError(f"path: {file} has 'geo' metadata that is not a JSON object")
    return geo


def covering_paths(schema, names, file: str):
    """Where the corner columns ``names`` are in a GeoParquet file's bbox covering.

    Returns a ``(column, field)`` path for each of ``names`` (``minx, miny,
    maxx, maxy`` or their 3D six) if the file is GeoParquet with a bbox
    covering of its primary geometry column; None for a plain file or
    other ``names`` (read as plain columns).  A GeoParquet file without a
    covering, or one the metadata does not describe as the spec says, is a
    ValueError saying so.

    Examples
    --------
    >>> import json, pyarrow as pa
    >>> from broadphase._geoparquet import covering_paths
    >>> cover = {k: ["bbox", k] for k in ("xmin", "ymin", "xmax", "ymax")}
    >>> geo = {"primary_column": "geometry", "version": "1.1.0",
    ...        "columns": {"geometry": {"encoding": "WKB", "covering": {"bbox": cover}}}}
    >>> fields = pa.struct([(k, pa.float64()) for k in cover])
    >>> schema = pa.schema([("geometry", pa.binary()), ("bbox", fields)],
    ...                    metadata={b"geo": json.dumps(geo).encode()})
    >>> covering_paths(schema, ["minx", "miny", "maxx", "maxy"], "f.parquet")
    [('bbox', 'xmin'), ('bbox', 'ymin'), ('bbox', 'xmax'), ('bbox', 'ymax')]
    """
    if not names or any(c not in _CORNER_KEYS for c in names):
        return None
    geo = geo_metadata(schema, file)
    if geo is None:
        return None
    primary = geo.get("primary_column")
    column = (geo.get("columns") or {}).get(primary)
    if not isinstance(column, dict):
        raise ValueError(f"path: {file} has 'geo' metadata without a description of its "
                         f"primary geometry column {primary!r}; expected one with a bbox "
                         f"covering ({HOW})")
    bbox = (column.get("covering") or {}).get("bbox")
    if not isinstance(bbox, dict):
        raise ValueError(f"path: {file} is GeoParquet without a bbox covering for its "
                         f"geometry column {primary!r}, and without the columns "
                         f"{', '.join(names)}; its geometries are not decoded here, so "
                         f"expected a bbox covering: {HOW}")
    paths = []
    for c in names:
        key = _CORNER_KEYS[c]
        path = bbox.get(key)
        if path is None:
            raise ValueError(f"path: {file}: the bbox covering of {primary!r} has no {key} "
                             f"(it has {', '.join(bbox)}); expected "
                             f"{', '.join(_CORNER_KEYS[n] for n in names)} for the columns "
                             f"{', '.join(names)}")
        if (not isinstance(path, list) or len(path) != 2
                or not all(isinstance(p, str) for p in path)):
            raise ValueError(f"path: {file}: the bbox covering's {key} is {path!r}; expected "
                             f"[column, field] (GeoParquet 1.1)")
        paths.append(tuple(path))
    for col, field in paths:
        if col not in schema.names:
            raise ValueError(f"path: {file}: the bbox covering names the column {col!r}, "
                             f"which the file does not have")
        t = schema.field(col).type
        if not hasattr(t, "get_field_index") or t.get_field_index(field) < 0:
            raise ValueError(f"path: {file}: the bbox covering names the field {field!r} of "
                             f"{col!r}, which has type {t}; expected a struct with that field")
    return paths


def leaf_type(schema, path):
    """The Arrow type of a column name or of a ``(column, field)`` path."""
    if isinstance(path, str):
        return schema.field(path).type
    col, field = path
    return schema.field(col).type.field(field).type


def label(path) -> str:
    """A column name, or a path as ``column.field``, for messages."""
    return path if isinstance(path, str) else ".".join(path)
