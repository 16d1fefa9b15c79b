"""Reading objects with named columns: recognising a table, and each column's values.

Tables are pandas and polars DataFrames, pyarrow Tables and RecordBatches,
NumPy structured arrays (and one structured record), a pandas Series whose
index labels are strings (one row, as ``df.iloc[k]``), GeoPandas GeoSeries
and GeoDataFrames (the table ``minx, miny, maxx, maxy`` of their geometries'
bounds, :mod:`._geo`), and other objects with ``columns`` and ``obj[label]``
(:func:`_table`; recognised by their type's module, so none of these
libraries is imported here).  A table is its column labels and a way to
read each column; which columns are which is decided by their names in
:mod:`._tables`.  Each column's values are read under the refusal rule of
:mod:`._exact`; a missing value is refused, naming its column and row.
"""

from __future__ import annotations

import sys

import numpy as np

from . import _exact, _geo


class _Table:
    """A table's column labels and each column as a 1-d array (see :func:`_table`)."""

    def __init__(self, labels, column):
        self.labels = list(labels)
        self._column = column

    def column(self, k: int):
        """Column ``k``'s values and the row of its first missing value (or None)."""
        return self._column(k)


def _table(value, name: str = "rows") -> _Table | None:
    """``value`` as a table if it has named columns, else None (arrays, lists, numbers).

    pandas and polars DataFrames, pyarrow Tables and RecordBatches, NumPy
    structured arrays (and one structured record), a pandas Series whose
    index labels are strings (one row, as ``df.iloc[k]``), and other
    objects with ``columns`` and ``obj[label]``.  Recognised by their type's
    module, so none of these libraries is imported here.
    """
    if isinstance(value, (list, tuple)):
        return _labelled_rows(value, name)
    if isinstance(value, (float, int)):
        return None
    if isinstance(value, (np.ndarray, np.void)):
        names = value.dtype.names
        if names is None:
            return None
        arr = value.reshape(1) if value.ndim == 0 else value
        return _Table(names, lambda k: (arr[names[k]], None))
    if _geo.is_geo(value):  # GeoPandas: the geometries' bounds, never the other columns
        return _Table(_geo.BOUNDS, _geo.bounds_column(value, name))
    module = type(value).__module__.partition(".")[0]
    if module == "pandas":
        ndim = getattr(value, "ndim", 0) if hasattr(value, "iloc") else 0
        if ndim == 2:
            return _Table(value.columns, lambda k: _pandas(value.iloc[:, k]))
        if _is_labelled_row(value):
            return _Table(value.index, lambda k: _pandas(value.iloc[k:k + 1]))
        return None
    if module == "polars" and hasattr(value, "struct") and str(value.dtype).startswith("Struct"):
        return _table(value.struct.unnest(), name)  # a Series of rows with named fields
    if module == "polars" and hasattr(value, "columns") and hasattr(value, "to_series"):
        return _Table(value.columns, lambda k: _polars(value.to_series(k)))
    if module == "pyarrow" and hasattr(value, "column_names"):
        return _Table(value.column_names, lambda k: _arrow(value.column(k)))
    columns = getattr(value, "columns", None)
    if columns is not None and hasattr(value, "__getitem__") and not callable(columns):
        labels = list(columns)
        return _Table(labels, lambda k: (value[labels[k]], None))
    return None


def _is_labelled_row(v) -> bool:
    """A pandas Series whose index labels are strings: one row with named fields."""
    return (type(v).__module__.partition(".")[0] == "pandas" and getattr(v, "ndim", 0) == 1
            and hasattr(v, "iloc") and len(v) > 0 and all(isinstance(c, str) for c in v.index))


def _labelled_rows(rows, name: str) -> _Table | None:
    """A list of rows with named fields (``[df.iloc[0], df.iloc[1]]``) as their table.

    Read by name like the frame they came from; None for a list of plain rows.
    """
    labelled = [_is_labelled_row(v) for v in rows]
    if not any(labelled):
        return None
    if not all(labelled):
        k = labelled.index(False) if labelled[0] else labelled.index(True)
        raise TypeError(f"{name}[{k}]: expected every row with named fields (as df.iloc[k]) "
                        f"or none, found one {'without' if labelled[0] else 'with'} them")
    frame = sys.modules["pandas"].DataFrame(list(rows))  # aligned by the fields' names
    return _table(frame.reset_index(drop=True), name)


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
    if str(s.dtype) in ("Int128", "UInt128"):  # no NumPy type: the values one by one, exactly
        return np.array(s.to_list(), dtype=object), None
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
        where = _exact._where(name, (missing + 1,), missing, label)
        raise ValueError(f"{where}: a missing value; expected numbers (fill the missing values "
                         f"or drop their rows first)")
    arr = _exact._array(values, name, label)
    if arr.ndim != 1:
        raise ValueError(f"{_exact._where(name, (), 0, label)}: expected one number per row, "
                         f"found shape {arr.shape}")
    return _exact._as_float64(arr, name, label)


def _table_rows(table: _Table, positions, name: str) -> np.ndarray:
    """The columns at ``positions`` side by side: ``(n, len(positions))`` float64."""
    cols = [_column(table, k, name) for k in positions]
    out = np.empty((cols[0].shape[0] if cols else 0, len(cols)), np.float64)
    for j, c in enumerate(cols):
        out[:, j] = c
    return out
