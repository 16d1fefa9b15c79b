"""The tasks of ``broadphase.dask`` that run on the workers.

Kept apart from ``broadphase.dask`` so that a worker imports neither
``dask.array`` nor pandas: under a memory limit every module counts.  The
kernels are the compiled core's (``broadphase._core``), the same code a
single process runs.  Each function gets plain NumPy arrays and returns
plain NumPy arrays (or tuples of them).
"""

from __future__ import annotations

import re

import numpy as np

from . import _cast, _cast_touching, _core, _exact, _geoparquet
from ._api import find_pairs as _find_pairs

#: The boxes' dimensions: 2D rows of 4 values, 3D of 6 (the tiles cut x and y).
_DIMS = (2, 3)


def read_row_group(file: str, group: int, names, dtype, shape) -> np.ndarray:
    """One row group's columns as one array (runs on a worker).

    Column by column: Arrow holds one decoded column at a time beside the
    output, not all of them.  A ``(column, field)`` path in ``names`` is a
    field of a struct column (a GeoParquet bbox covering).  Values ``dtype`` does not hold exactly
    (integers beyond 2**53 for float64, beyond the range of an integer
    dtype) are refused, naming the column, the row in the file and the file.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = pq.ParquetFile(file)
    first = sum(source.metadata.row_group(g).num_rows for g in range(group))
    out = np.empty(shape, dtype)
    for k, path in enumerate(names):
        name = _geoparquet.label(path)
        col = source.read_row_group(group, columns=[name], use_threads=False).column(0)
        if not isinstance(path, str):  # a GeoParquet bbox covering's field (parent nulls too)
            index = col.type.get_field_index(path[1])
            col = pa.chunked_array([c.flatten()[index] for c in col.chunks],
                                   col.type.field(index).type)
        problem = type_problem(col.type, out.dtype)
        if problem:
            raise TypeError(f"{name}: {problem} in {file}")
        if col.null_count:
            row = first + int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
            why = "" if isinstance(path, str) else " (an empty or missing geometry)"
            raise ValueError(f"{name}: expected values, found a null in row {row} of {file}"
                             f"{why} ({col.null_count} in its row group)")
        _copy(out if out.ndim == 1 else out[:, k], col, name, first, file)
        del col
        # Arrow's allocator keeps freed pages for reuse; a worker under a
        # memory limit needs them back.
        pa.default_memory_pool().release_unused()
    _release()
    return out


def type_problem(t, dtype) -> str | None:
    """Why an Arrow column of type ``t`` is not read into ``dtype``; None when it is.

    Integers go into any integer or float dtype (their values are checked
    as they are read: :func:`_check_range`), floats into floats at least as
    wide; booleans, decimals, strings, dates and the rest are refused (no
    silent 0/1 or rounding).
    """
    import pyarrow as pa

    dtype = np.dtype(dtype)
    if pa.types.is_integer(t) and dtype.kind in "iuf":
        return None
    if pa.types.is_floating(t) and dtype.kind == "f" and t.bit_width <= 8 * dtype.itemsize:
        return None
    want = {"f": f"integers or floats of at most {8 * dtype.itemsize} bits",
            "i": "integers", "u": "integers"}.get(dtype.kind, "numbers")
    return f"expected {want} (read as {dtype}), found type {t}"


def _check_range(values: np.ndarray, dtype, name: str, first: int, file: str) -> None:
    """Refuse integers ``dtype`` does not hold exactly, naming the row in the file."""
    if values.dtype.kind not in "iu" or not len(values):
        return
    if dtype.kind == "f":
        bits = np.finfo(dtype).nmant + 1
        bad = values > 2**bits
        if values.dtype.kind == "i":
            bad |= values < -(2**bits)
        want = (f"integers up to 2**{bits} in magnitude expected ({dtype} holds them "
                "exactly)")
    else:
        info = np.iinfo(dtype)
        bad = (values < info.min) | (values > info.max)
        want = f"integers in [{info.min}, {info.max}] expected (read as {dtype})"
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name}: {want}, found {values[k]} in row {first + k} of {file}")


def _copy(dest: np.ndarray, col, name: str = "", first: int = 0, file: str = "") -> None:
    """An Arrow chunked column's values into ``dest``, exactly (see :func:`_check_range`)."""
    p = 0
    for chunk in col.chunks:
        values = _values(chunk)
        _check_range(values, dest.dtype, name, first + p, file)
        np.copyto(dest[p:p + len(chunk)], values, casting="unsafe")
        p += len(chunk)


def _values(arr) -> np.ndarray:
    """An Arrow array's values as NumPy; a view of its buffer for numbers.

    ``Array.to_numpy`` imports pandas (about 40 MiB in a worker), so
    integers and floats, the types of box columns and filters, are read
    from the data buffer directly (nulls were refused before).
    """
    import pyarrow as pa

    t = arr.type
    if (pa.types.is_integer(t) or pa.types.is_floating(t)) and len(arr):
        kind = "f" if pa.types.is_floating(t) else "i" if pa.types.is_signed_integer(t) else "u"
        dt = np.dtype(f"{kind}{t.bit_width // 8}")
        return np.frombuffer(arr.buffers()[1], dt, count=len(arr), offset=arr.offset * dt.itemsize)
    return arr.to_numpy(zero_copy_only=False)


def frame_rows(part, names, start: int) -> np.ndarray:
    """A DataFrame partition's box columns ``names`` as exact float64 corners (2D or 3D).

    For partitions whose columns NumPy would round when stacked (int64
    beside floats); errors name the global row.
    """
    try:
        return _cast.box_rows(part[list(names)], "boxes", "corners", dims=_DIMS)
    except (ValueError, TypeError) as e:
        raise type(e)(global_row(str(e), np.arange(start, start + len(part)))) from None


def assign(block, groups, categories, masks, *, start, tiling, closed=False):
    """Split one input chunk by tile: per tile (global rows, boxes, filters).

    A 3D box goes to the tiles its x-y shadow meets (3D tiles are columns).
    With ``closed`` (``touching=True``) the boxes' maxima are raised one
    step of float64 first (:func:`._cast_touching.closed`): from here on
    every task sees the raised boxes, whose open overlap is the closed
    overlap of the boxes given.
    The pieces are views of one array per column, so the chunk's copy
    lives until its last piece is consumed or spilled.
    """
    try:
        b, _ = _cast.boxes(block, dims=_DIMS)
        if closed:
            b = _cast_touching.closed(b, "boxes")
    except (ValueError, TypeError) as e:
        raise type(e)(global_row(str(e), np.arange(start, start + np.shape(block)[0]))) from None
    order, bounds = _core.split_by_tile(b, *_arrays(tiling))
    rows = order + start
    b = b[order]
    filt = [None if f is None else np.asarray(f)[order] for f in (groups, categories, masks)]
    del order
    _release()
    return tuple((rows[lo:hi], b[lo:hi], [None if f is None else f[lo:hi] for f in filt])
                 for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True))


def tile_pairs(pieces, *, t, tiling, edges, given, scalars):
    """Pairs owned by tile ``t`` (global rows), split into buckets of the first row.

    The tile's boxes are searched in their own dimension (a 3D search for
    rows of 6 values); the tile owning a pair is the one holding
    ``(max(minx), max(miny))`` of its two boxes, in 3D too.
    """
    nb = len(edges) - 1
    if sum(len(p[0]) for p in pieces) == 0:
        return tuple(np.empty((0, 2), np.intp) for _ in range(nb))
    # one box has no pair, but its row and filters are checked as every other's
    rows = np.concatenate([p[0] for p in pieces])
    b = np.concatenate([p[1] for p in pieces])
    filt = [np.concatenate([p[2][f] for p in pieces]) if given[f] else scalars[f]
            for f in range(3)]
    try:
        # One thread: the Dask workers are the parallelism (and a worker
        # under a memory limit has no room for a heap per thread).
        p = _find_pairs(b, groups=filt[0], categories=filt[1], masks=filt[2], workers=1)
    except (ValueError, TypeError) as e:
        raise type(e)(global_row(str(e), rows)) from None
    finally:
        _release()  # under a tight limit, the search's scratch makes room for owned_pairs' output
    g, cut = _core.owned_pairs(p, b, rows, *_arrays(tiling), t,
                                _exact.c_array(edges, np.int64))
    del p, b, rows, filt
    _release()
    return tuple(g[cut[k]:cut[k + 1]] for k in range(nb))


def _arrays(tiling):
    """The tiling's (xs, ybounds, rank) as the core takes them.

    A worker receives them deserialized, possibly into unaligned buffers;
    copies of these few edges cost nothing.
    """
    xs, ybounds, rank = tiling
    return (_exact.c_array(xs, np.float64), _exact.c_array(ybounds, np.float64),
            _exact.c_array(rank, np.int64))


def global_row(message: str, rows) -> str:
    """A validation error naming a tile's row, renamed to the global row."""
    return re.sub(r"(\w+)\[(\d+)\]", lambda m: f"{m.group(1)}[{rows[int(m.group(2))]}]",
                  message, count=1)


def bucket(parts, *, lo, hi) -> np.ndarray:
    """One bucket's pairs (first row in ``[lo, hi)``) from all tiles, in canonical order."""
    p = np.concatenate(parts) if parts else np.empty((0, 2), np.intp)
    out = _core.sort_pairs(p, lo, hi)
    del p
    _release()
    return out


def _release() -> None:
    """Give a task's freed memory back to the system when the worker needs it.

    A worker under a memory limit is judged by its resident memory: the
    core keeps a search's scratch buffers for the next call, and glibc keeps
    freed blocks of big temporaries in its heaps.  Both are handed back when
    the worker holds more than half its limit, or when no limit is known
    (outside a worker).  Otherwise they stay: the next tile's search then
    writes into memory that is already mapped, about a third faster than
    into fresh pages.
    """
    if _tight():
        _core.release_scratch()


def _tight() -> bool:
    """Whether this process holds more than half its Dask worker's memory limit.

    True outside a worker or when the limit or the resident size cannot be
    read; False for a worker without a limit.
    """
    try:
        from distributed import get_worker

        limit = get_worker().memory_manager.memory_limit
    except (ImportError, ValueError, AttributeError):
        return True
    if not limit:
        return False
    try:
        import psutil

        return psutil.Process().memory_info().rss > limit / 2
    except (ImportError, OSError):
        return True
