"""The inputs of :func:`broadphase.dask.find_pairs` as Dask arrays, read as in memory.

Boxes come as a Dask or pandas DataFrame (columns found by name,
:func:`._tables.pick_columns`: 2D corners, or 3D ones when a z corner is
named), a GeoPandas GeoSeries or GeoDataFrame (its geometries' bounds,
:mod:`._geo`), a Dask array, or an array or list in memory (read by :mod:`._cast`
under the one refusal rule before any task runs, so the same input gets the
in-memory call's error text), of 4 columns (2D) or 6 (3D); filters as
Dask arrays, the name of one of the frame's columns, one value per box in
memory, or one value for all (checked here, given to every tile).
"""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np

from . import _cast, _cast_options, _geo, _tables
from . import _dask_tasks as _tasks


def _one_for_all(v) -> bool:
    """A filter given as one value for all boxes (a string names a column)."""
    return np.ndim(v) == 0 and not isinstance(v, (str, da.Array))


def scalars(groups, categories, masks):
    """The filters given as one value for all boxes (None if not a scalar)."""
    return tuple(v if _one_for_all(v) else None for v in (groups, categories, masks))


_FILTERS = (("groups", np.int64), ("categories", np.uint64), ("masks", np.uint64))
#: The corner columns of 2D and of 3D boxes, by width.
_CORNERS = {4: "minx, miny, maxx, maxy", 6: "minx, miny, minz, maxx, maxy, maxz"}


def columns(boxes, groups, categories, masks):
    """Boxes as a dask array (n, 4) or (n, 6) and the per-box filters as dask arrays alike chunked.

    What is in memory (arrays, lists, a scalar filter) is read as the
    in-memory call reads it (:mod:`._cast`: the one refusal rule, errors
    naming the row), before any task runs.
    """
    if _geo.is_geo(boxes):  # GeoPandas: its geometries' bounds, read in memory
        arr = da.from_array(_cast.box_rows(boxes, "boxes", None, dims=(2,)))
        extra = [_geo_column(boxes, name, v) if isinstance(v, str) else v
                 for (name, _), v in zip(_FILTERS, (groups, categories, masks), strict=True)]
    elif hasattr(boxes, "columns"):  # a dask (or pandas) DataFrame
        df = boxes if hasattr(boxes, "to_dask_array") else _from_pandas(boxes)
        arr = _frame_boxes(df)
        extra = [_named_column(df, name, v) if isinstance(v, str) else v
                 for (name, _), v in zip(_FILTERS, (groups, categories, masks), strict=True)]
    else:
        if isinstance(boxes, da.Array):
            arr = boxes
        else:
            arr = da.from_array(_cast.shaped_rows(boxes, "boxes", _CORNERS))
        if arr.ndim != 2 or arr.shape[1] not in _CORNERS:
            raise ValueError(f"boxes: expected shape (n, 4) or (n, 6), found {arr.shape}")
        extra = [groups, categories, masks]
    arr = arr.rechunk({1: arr.shape[1]})
    out = []
    for (name, dtype), v in zip(_FILTERS, extra, strict=True):
        if v is None:
            out.append(None)
            continue
        if _one_for_all(v):
            _cast_options.per_object(v, name, 1, dtype)  # checked here; given to every tile
            out.append(None)
            continue
        if not isinstance(v, da.Array):
            v = da.from_array(_cast_options.per_object(v, name, arr.shape[0], dtype))
        if v.shape != (arr.shape[0],):
            raise ValueError(f"{name}: expected one value per box ({arr.shape[0]},), "
                             f"found shape {v.shape}")
        out.append(v.rechunk((arr.chunks[0],)))
    return arr, out


def _named_column(df, name: str, column: str) -> da.Array:
    """The filter ``name`` given as the name of one of the frame's columns."""
    if column not in df.columns:
        raise ValueError(f"{name}: expected one value per box or a column of boxes, found "
                         f"{column!r}, which is no column of it")
    return df[column].to_dask_array(lengths=True)


def _geo_column(frame, name: str, column: str):
    """The filter ``name`` given as the name of one of a GeoDataFrame's columns."""
    if not hasattr(frame, "columns") or column not in frame.columns:
        raise ValueError(f"{name}: expected one value per box or a column of boxes, found "
                         f"{column!r}, which is no column of it")
    return frame[column]


def _frame_boxes(df) -> da.Array:
    """A DataFrame's box columns, found by name, as a dask array of exact float64 corners."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    try:
        picked = _tables.pick_columns(df.columns, "boxes", "boxes", "corners", dims=(2, 3))
    except ValueError as e:
        if not str(e).startswith("format:"):
            raise
        # the frame has the columns of position and size alone: which of them
        layout, _ = _tables.pick_columns(df.columns, "boxes", "boxes", dims=(2, 3))
        cols = _tables.LAYOUTS[layout]
        raise ValueError(f"boxes: columns {', '.join(cols)} (position and size) are not read "
                         f"here; expected {_CORNERS[len(cols)]}") from None
    positions = range(len(df.columns)) if picked is None else picked[1]
    if picked is None and len(df.columns) not in _CORNERS:
        raise ValueError(f"boxes: expected 4 columns ({_CORNERS[4]}) or 6 ({_CORNERS[6]}), "
                         f"found {len(df.columns)} columns without names")
    names = [df.columns[k] for k in positions]
    dtypes = [df.dtypes.iloc[k] for k in positions]
    for c, dt in zip(names, dtypes, strict=True):
        if is_bool_dtype(dt) or not is_numeric_dtype(dt):
            raise TypeError(f"boxes, column {c!r}: expected real numbers, found dtype {dt}")
    exact = all(isinstance(dt, np.dtype) for dt in dtypes) and (
        len(set(dtypes)) == 1 or all(dt.kind == "f" or dt.itemsize <= 4 for dt in dtypes))
    if exact:  # stacked, NumPy gives float64 (or one int dtype) without rounding
        return df[names].to_dask_array(lengths=True)
    # int64 beside floats, nullable dtypes: each partition converted exactly
    lengths = df.map_partitions(len).compute().tolist()
    starts = np.concatenate([[0], np.cumsum(lengths)]).astype(int).tolist()
    parts = df[names].to_delayed()
    width = len(names)
    blocks = [da.from_delayed(dask.delayed(_tasks.frame_rows, pure=True)(p, names, starts[k]),
                              shape=(lengths[k], width), dtype=np.float64)
              for k, p in enumerate(parts)]
    return da.concatenate(blocks, axis=0) if blocks else da.from_array(np.empty((0, width)))


def _from_pandas(df):
    import dask.dataframe as dd

    return dd.from_pandas(df, npartitions=1)


def parquet_files(path) -> list[str]:
    """The files ``path`` names (see :func:`broadphase.dask.read_parquet`), or ValueError."""
    import glob
    import os

    if isinstance(path, (list, tuple)):
        return [os.fspath(p) for p in path]
    path = os.fspath(path)
    if os.path.isdir(path):
        files = sorted(glob.glob(os.path.join(path, "*.parquet")))
    elif os.path.exists(path):
        files = [path]
    else:
        files = sorted(glob.glob(path))
    if not files:
        raise ValueError(f"path: expected Parquet files, found none at {path!r}")
    return files
