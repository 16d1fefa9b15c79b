"""Exact pair finding over Dask, for box sets larger than one machine's memory.

Dask does the distribution, :func:`broadphase.find_pairs` the geometry:

1. **Tiles from a sample.**  Every ``n / sample``-th box is read; its centres
   cut the plane into ``S`` vertical strips at x-quantiles, and each strip
   into cells at the y-quantiles of its own sample points, so clustered data
   gives small tiles where it is dense and every tile gets about the same
   number of boxes.  The outer tiles reach to infinity: no box falls
   outside.  Tiles are numbered in Morton order of their centres
   (:mod:`._dask_tiles`).
2. **Replication.**  A box goes to every tile whose half-open region
   ``[x0, x1) x [y0, y1)`` meets the closed box; a huge box goes to many.
3. **One search per tile** with :func:`broadphase.find_pairs` (groups,
   categories and masks included) on that tile's boxes only.
4. **Each pair exactly once.**  Two boxes that overlap share the point
   ``P = (max(minx_a, minx_b), max(miny_a, miny_b))``, the lower-left
   corner of their intersection: it lies in both closed boxes, so the one
   tile whose half-open region holds ``P`` received both, and only that tile
   keeps the pair.
   With ``touching=True`` every box's maxima are raised one step of
   float64 as its chunk is split (step 2): the raised boxes overlap exactly
   when the given ones touch or overlap, and steps 2 to 4 see only them.
5. **Canonical order without a global sort.**  Each tile splits its pairs
   into ``B`` buckets by ranges of the first index; each bucket gathers its
   pieces from all tiles and sorts them.  The buckets, concatenated, are the
   rows of ``broadphase.find_pairs`` on the whole data.

In 3D (boxes of six columns, ``minx, miny, minz, maxx, maxy, maxz``) the
tiles are columns over the x-y plane: a box goes to the tiles its x-y
shadow meets, each tile's boxes are searched in 3D, and the tile holding
``P`` (the x and y of the intersection's lower corner) keeps the pair.

Memory per task is bounded by a tile (``tile_rows`` boxes, plus replicas),
an input chunk or a bucket of pairs, never by n.  What waits between the
steps (every box once, every pair once) is held or spilled by Dask; the
``getitem`` tasks that cut a chunk's tuple into pieces and a tile's into
bucket parts carry a priority, so a worker cuts a tuple as soon as it
exists instead of reading it back from disk once per piece (see
``_Pairs``).  Under a tight memory limit keep chunks and tiles to a few
percent of it, lower ``distributed.worker.memory.target``, turn the
``pause`` threshold off and send transfers in messages of a few MiB
(``distributed.worker.transfer.message-bytes-limit``): 10 million boxes
(305 MiB) then run on workers limited to 256 MiB each (docs/benchmarks.md,
"Beyond one machine").  The tasks run the same compiled core as one process
(``broadphase._core``: no JIT, no compiler in the worker), and each ends by
giving freed memory back to the system (``_dask_tasks._release``).
:func:`read_parquet` reads Parquet files
straight into a Dask array with pyarrow, one chunk per row group, keeping
pandas off the workers.  Needs the ``dask`` extra (``dask[array,
dataframe]``, ``pyarrow``, and ``distributed`` for a cluster).

Examples
--------
>>> import numpy as np, dask.array as da, broadphase as bp
>>> import broadphase.dask as bpd
>>> boxes = np.random.default_rng(0).uniform(0, 100, (2000, 2))
>>> boxes = np.hstack([boxes, boxes + 3])
>>> lazy = bpd.find_pairs(da.from_array(boxes, chunks=500), tile_rows=300)
>>> bool(np.array_equal(lazy.compute(), bp.find_pairs(boxes)))
True
"""

from __future__ import annotations

import math
import numbers
from functools import partial
from operator import getitem

import dask
import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.core import flatten
from dask.highlevelgraph import HighLevelGraph, MaterializedLayer

from . import _cast_touching, _geoparquet
from . import _dask_inputs as _inputs
from . import _dask_tasks as _tasks
from ._dask_tiles import _tiles

__all__ = ["find_pairs", "read_parquet", "COLUMNS", "COLUMNS_3D"]

#: The columns :func:`read_parquet` reads by default: 2D corners.
COLUMNS = ("minx", "miny", "maxx", "maxy")
#: The columns of 3D corners, for ``read_parquet(path, COLUMNS_3D)``.
COLUMNS_3D = ("minx", "miny", "minz", "maxx", "maxy", "maxz")


def find_pairs(boxes, groups=None, categories=None, masks=None, *, tile_rows: int = 1_000_000,
               sample: int = 200_000, touching: bool = False) -> da.Array:
    """Every overlapping pair of a Dask collection of boxes, lazily.

    Parameters
    ----------
    boxes : dask array (n, 4) or (n, 6), dask DataFrame, or NumPy array
        ``minx, miny, maxx, maxy`` per row, or 3D boxes ``minx, miny, minz,
        maxx, maxy, maxz``; a DataFrame (dask or pandas) needs those
        columns, found by name as :func:`broadphase.find_pairs` finds them
        (any order and case, ``xmin``... aliases; a ``minz`` or ``maxz``
        column makes it 3D; ``x, y, w, h`` columns are not read here).
        A GeoPandas GeoSeries or GeoDataFrame (in memory) is read as its
        geometries' bounds, as :func:`broadphase.find_pairs` reads it.
        Integer columns beside float ones are converted exactly (values
        beyond 2**53 refused, naming the column and the row); boolean and
        non-numeric columns are refused.
    groups, categories, masks : optional
        As in :func:`broadphase.find_pairs`: a scalar, an array (Dask or
        NumPy) of n values, or, for a DataFrame, a column name.
    tile_rows : int
        About how many boxes one tile holds: a tile's search takes about
        300 bytes a box in one task (30 MiB at 100,000).  The graph has
        chunks x tiles + tiles x buckets small tasks, so very small tiles
        on very many chunks cost scheduler time.
    sample : int
        About how many boxes are read to place the tiles.
    touching : bool
        Closed boxes, as :func:`broadphase.find_pairs` with
        ``touching=True``: boxes sharing an edge, a face or a corner
        collide.  Each chunk's maxima are raised one step of float64 as it
        is split by tile, so the tiles, their searches and the tile owning
        each pair all see the raised boxes: a pair touching on a tile's
        border is kept once, as any other.  A max of float64's largest
        value is refused when its chunk is read.

    Returns
    -------
    dask array of intp, shape (k, 2)
        Computes to the same array as :func:`broadphase.find_pairs` on all
        boxes: ``i < j`` global row numbers, rows sorted.  One block per
        bucket of first rows.  Computing it (``compute``, ``persist``,
        ``Client.compute``) or its ``to_delayed()`` blocks keeps the task
        priorities that matter under a memory limit; arrays derived from
        it are optimised by ``dask.array``, which drops them.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> import broadphase.dask as bpd
    >>> b = da.from_array(np.array([[0, 0, 2, 2], [1, 1, 3, 3], [2, 0, 4, 1.0]]), chunks=2)
    >>> bpd.find_pairs(b).compute().tolist()
    [[0, 1]]
    >>> bpd.find_pairs(b, touching=True).compute().tolist()   # 2 shares an edge with 0 and 1
    [[0, 1], [0, 2], [1, 2]]

    In 3D, boxes apart in z alone do not collide:

    >>> cubes = np.array([[0, 0, 0, 2, 2, 2], [1, 1, 1, 3, 3, 3], [1, 1, 5, 3, 3, 6.0]])
    >>> bpd.find_pairs(da.from_array(cubes, chunks=2)).compute().tolist()
    [[0, 1]]
    """
    closed = _cast_touching.touching(touching)
    arr, extra = _inputs.columns(boxes, groups, categories, masks)
    n = arr.shape[0]
    if n == 0:
        return da.from_array(np.empty((0, 2), np.intp))
    tiling = _tiles(arr, n, _count(tile_rows, "tile_rows"), _count(sample, "sample"))
    return _graph(arr, extra, _inputs.scalars(groups, categories, masks), tiling, closed)


def _graph(arr, extra, scalars, tiling, closed: bool = False) -> da.Array:
    """The task graph of :func:`find_pairs`, built as plain dicts (see the module docstring).

    ``dask.delayed`` merges and culls a graph per call, seconds of client
    time for the ~8,000 tasks of 10 million boxes; dicts take a fraction
    of a second.  The ``getitem`` tasks that cut a chunk's tuple
    into per-tile pieces, and a tile's into per-bucket parts, run before
    anything else a worker could start (priority): a worker under a memory
    limit spills what it holds, and a tuple spilled whole before it was cut
    is read back from disk once per piece.
    """
    ntiles = tiling[2].shape[0]
    nchunks = arr.numblocks[0]
    nbuckets = max(1, min(ntiles, nchunks))
    n = arr.shape[0]
    edges = np.linspace(0, n, nbuckets + 1).astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(arr.chunks[0])]).astype(np.int64)
    given = [e is not None for e in extra]
    tok = tokenize(arr, *extra, scalars, *tiling, closed)
    split, piece, tile, part, bucket = (f"bp-{k}-{tok}" for k in
                                        ("split", "piece", "tile", "part", "bucket"))
    blocks = [k[0] for k in arr.__dask_keys__()]
    cols = [[None] * nchunks if e is None else e.__dask_keys__() for e in extra]
    layers = {
        split: {(split, c): (partial(_tasks.assign, start=int(starts[c]), tiling=tiling,
                                     closed=closed),
                             blocks[c], cols[0][c], cols[1][c], cols[2][c])
                for c in range(nchunks)},
        piece: {(piece, c, t): (getitem, (split, c), t)
                for c in range(nchunks) for t in range(ntiles)},
        tile: {(tile, t): (partial(_tasks.tile_pairs, t=t, tiling=tiling, edges=edges,
                                   given=given, scalars=scalars),
                           [(piece, c, t) for c in range(nchunks)])
               for t in range(ntiles)},
        part: {(part, t, b): (getitem, (tile, t), b)
               for t in range(ntiles) for b in range(nbuckets)},
        bucket: {(bucket, b, 0): (partial(_tasks.bucket, lo=int(edges[b]), hi=int(edges[b + 1])),
                                  [(part, t, b) for t in range(ntiles)])
                 for b in range(nbuckets)},
    }
    inputs = [arr] + [e for e in extra if e is not None]
    deps = {split: {name for c in inputs for name in c.__dask_layers__()}, piece: {split},
            tile: {piece}, part: {tile}, bucket: {part}}
    hlg = HighLevelGraph.merge(*(c.__dask_graph__() for c in inputs))
    first = {"priority": 100}
    graph = HighLevelGraph(
        {**hlg.layers, **{k: MaterializedLayer(v, annotations=first if k in (piece, part) else None)
                          for k, v in layers.items()}},
        {**hlg.dependencies, **deps})
    return _Pairs(graph, bucket, ((math.nan,) * nbuckets, (2,)), dtype=np.intp)


def _optimize(dsk, keys, **kwargs):
    """Dask array's graph optimisation without the low-level fusion, which drops priorities.

    ``dask.array`` turns the graph into one plain dict to fuse linear
    chains of tasks, and the layers' annotations are lost on the way; our
    graph has no chains to fuse, and its ``getitem`` priorities are what
    keeps a worker under a memory limit from reading spilled tuples back
    once per piece.
    """
    from dask.blockwise import fuse_roots, optimize_blockwise

    keys = list(flatten(keys)) if isinstance(keys, (list, set)) else [keys]
    if not isinstance(dsk, HighLevelGraph):
        dsk = HighLevelGraph.from_collections(str(id(dsk)), dsk, dependencies=())
    dsk = optimize_blockwise(dsk, keys=keys)
    dsk = fuse_roots(dsk, keys=keys)
    return dsk.cull(set(keys))


class _Pairs(da.Array):
    """The dask array :func:`find_pairs` returns: its own graph optimisation, see `_optimize`."""

    __dask_optimize__ = staticmethod(_optimize)

    def to_delayed(self, optimize_graph: bool = True) -> np.ndarray:
        """One :class:`dask.delayed.Delayed` per block of pairs, keeping the task priorities.

        ``dask.array.Array.to_delayed`` wraps the optimised graph in one
        plain layer, which loses the priorities; these share the graph as
        it is (Delayed culls it when computed).

        Parameters
        ----------
        optimize_graph : bool
            Accepted for compatibility with ``dask.array.Array.to_delayed``.

        Returns
        -------
        ndarray of Delayed, shape (blocks, 1)
        """
        from dask.delayed import Delayed

        graph = self.__dask_graph__()
        out = np.empty((self.numblocks[0], 1), dtype=object)
        for b, row in enumerate(self.__dask_keys__()):
            out[b, 0] = Delayed(row[0], graph, layer=self.name)
        return out


def read_parquet(path, columns=COLUMNS, dtype=np.float64) -> da.Array:
    """Columns of Parquet files as a Dask array, one chunk per row group, read with pyarrow.

    Lighter on the workers than ``dask.dataframe.read_parquet``: neither
    pandas nor dask.dataframe is imported where the chunks are read (about
    60 MiB less per worker process), and the chunk sizes come from the
    files' footers, so nothing is read until the array is computed.

    Parameters
    ----------
    path : str, path or sequence of them
        A Parquet file, a folder (its ``*.parquet`` files, in name order), a
        glob pattern, or a list of files; rows follow that order.
    columns : str or sequence of str
        The columns to read; one name gives a 1-d array (a filter column),
        a sequence an array of shape (n, len(columns)): 2D corners by
        default, :data:`COLUMNS_3D` (``minx, miny, minz, maxx, maxy, maxz``)
        for 3D boxes.  A GeoParquet file without these columns gives
        the boxes of its primary geometry column from its GeoParquet 1.1
        bbox covering (the ``xmin, ymin, xmax, ymax`` fields, and ``zmin,
        zmax`` in 3D, of the struct column its ``geo`` metadata names),
        without decoding a geometry; one without a covering is an error
        saying how to write one (``GeoDataFrame.to_parquet(path,
        write_covering_bbox=True)``).  An empty or missing geometry (null
        bounds) is refused, naming its row.
    dtype : dtype
        What the values are converted to, exactly: integer columns go into
        integer or float dtypes, float columns into floats at least as wide;
        other column types (booleans, decimals, strings, ...) are refused
        from the files' schemas, before anything is read (``TypeError``
        naming the column and the file).  A value the dtype does not hold
        exactly (an integer beyond 2**53 for float64, a negative one for
        uint64, ...) is refused when its row group is read (``ValueError``
        naming the column, the row and the file).

    Returns
    -------
    dask array
        ``(n, len(columns))`` or ``(n,)``, chunked by row group.

    Examples
    --------
    >>> import os, tempfile, numpy as np, pyarrow as pa, pyarrow.parquet as pq
    >>> import broadphase.dask as bpd
    >>> table = pa.table({"minx": [0.0, 1.0], "miny": [0.0, 1.0], "maxx": [2.0, 3.0],
    ...                   "maxy": [2.0, 3.0], "team": [1, 2]})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     pq.write_table(table, os.path.join(folder, "part-0.parquet"), row_group_size=1)
    ...     boxes = bpd.read_parquet(folder)
    ...     team = bpd.read_parquet(folder, "team", np.int64)
    ...     print(boxes.chunks, bpd.find_pairs(boxes, groups=team).compute().tolist())
    ((1, 1), (4,)) [[0, 1]]
    >>> table = pa.table({"minx": [0.0, 1.0], "miny": [0.0, 1.0], "minz": [0.0, 2.0],
    ...                   "maxx": [2.0, 3.0], "maxy": [2.0, 3.0], "maxz": [2.0, 3.0]})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     pq.write_table(table, os.path.join(folder, "cubes.parquet"))
    ...     cubes = bpd.read_parquet(folder, bpd.COLUMNS_3D)
    ...     print(cubes.shape, bpd.find_pairs(cubes).compute().tolist())
    (2, 6) []
    """
    import pyarrow.parquet as pq

    files = _inputs.parquet_files(path)
    names = [columns] if isinstance(columns, str) else list(columns)
    blocks = []
    for f in files:
        try:
            source = pq.ParquetFile(f)
        except (OSError, ValueError) as e:  # missing, unreadable, not Parquet (ArrowInvalid)
            raise ValueError(f"path: expected Parquet files, found {f!r}, which cannot be "
                             f"read as one ({e})") from None
        meta, schema = source.metadata, source.schema_arrow
        missing = [c for c in names if c not in set(schema.names)]
        paths = _geoparquet.covering_paths(schema, names, f) if missing else names
        if paths is None:
            raise ValueError(f"path: expected the columns {', '.join(names)} in {f}, missing "
                             f"{', '.join(missing)}")
        twice = sorted({c for c in paths if isinstance(c, str) and schema.names.count(c) > 1})
        if twice:
            raise ValueError(f"path: expected each of the columns {', '.join(names)} once in "
                             f"{f}, found {', '.join(twice)} more than once")
        for c in paths:
            problem = _tasks.type_problem(_geoparquet.leaf_type(schema, c), dtype)
            if problem:
                raise TypeError(f"{_geoparquet.label(c)}: {problem} in {f}")
        for g in range(meta.num_row_groups):
            rows = meta.row_group(g).num_rows
            shape = (rows,) if isinstance(columns, str) else (rows, len(names))
            blocks.append(da.from_delayed(
                dask.delayed(_tasks.read_row_group, pure=True)(f, g, paths, np.dtype(dtype), shape),
                shape=shape, dtype=dtype))
    if not blocks:
        shape = (0,) if isinstance(columns, str) else (0, len(names))
        return da.from_array(np.empty(shape, dtype))
    return da.concatenate(blocks, axis=0)


def _count(value, name: str) -> int:
    """A positive int (not a bool), or TypeError/ValueError naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected an int, found {value!r}")
    if value < 1:
        raise ValueError(f"{name}: expected an int >= 1, found {value}")
    return int(value)
