"""Tiles of the Dask path: which tiles a box meets, which tile holds a point.

The plane is cut into ``S`` vertical strips at the edges ``xs`` (S + 1 of
them, -inf and +inf at the ends), and strip i into cells at ``ybounds[i]``
(C + 1 edges each, the same ends): tile (i, c) is the half-open region
``[xs[i], xs[i + 1]) x [ybounds[i, c], ybounds[i, c + 1])`` and its number
is ``rank[i * C + c]``.  A point lies in exactly one tile: the strip whose
lower edge is the last one <= x, then the cell likewise in y (a binary
search each, ``searchsorted(side="right") - 1``).  A closed box meets the
strips from that of its minx to that of its maxx, and in each the cells
from that of its miny to that of its maxy: every tile it meets, once.

The kernels are serial: a Dask task is one chunk, and the workers are the
parallelism.  Replaces NumPy ``searchsorted``/``repeat``/``argsort`` passes
whose temporaries were several times the chunk (a worker under a memory
limit pays for every one).
"""

import numpy as np
from numba import njit


@njit(inline="always")
def _last_at_most(edges, v):
    """Index of the last of the sorted ``edges`` that is <= v (-1 if none)."""
    lo = 0
    hi = edges.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if edges[mid] <= v:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


@njit(cache=True)
def split_by_tile(boxes, xs, ybounds, rank):
    """Rows of ``boxes`` grouped by the tiles they meet: ``(order, starts)``.

    ``order[starts[t]:starts[t + 1]]`` are the rows meeting tile t, in
    increasing order; a row appears once per tile it meets.  Two passes
    (count, then fill) so that the only memory is the output.
    """
    ntiles = rank.shape[0]
    cells = ybounds.shape[1] - 1
    starts = np.zeros(ntiles + 1, np.int64)
    for k in range(boxes.shape[0]):
        for i in range(_last_at_most(xs, boxes[k, 0]), _last_at_most(xs, boxes[k, 2]) + 1):
            row = ybounds[i]
            for c in range(_last_at_most(row, boxes[k, 1]), _last_at_most(row, boxes[k, 3]) + 1):
                starts[rank[i * cells + c] + 1] += 1
    for t in range(ntiles):
        starts[t + 1] += starts[t]
    order = np.empty(starts[ntiles], np.int64)
    fill = starts[:ntiles].copy()
    for k in range(boxes.shape[0]):
        for i in range(_last_at_most(xs, boxes[k, 0]), _last_at_most(xs, boxes[k, 2]) + 1):
            row = ybounds[i]
            for c in range(_last_at_most(row, boxes[k, 1]), _last_at_most(row, boxes[k, 3]) + 1):
                t = rank[i * cells + c]
                order[fill[t]] = k
                fill[t] += 1
    return order, starts


@njit(cache=True)
def tile_of_points(x, y, xs, ybounds, rank):
    """Tile number of each point ``(x[k], y[k])`` (on an edge: the upper tile)."""
    cells = ybounds.shape[1] - 1
    out = np.empty(x.shape[0], np.int64)
    for k in range(x.shape[0]):
        i = _last_at_most(xs, x[k])
        out[k] = rank[i * cells + _last_at_most(ybounds[i], y[k])]
    return out
