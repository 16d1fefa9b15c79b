"""Tiles of the Dask path: which tiles a box meets, which tile owns a pair.

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
def owned_pairs(pairs, boxes, rows, xs, ybounds, rank, tile, edges):
    """The pairs tile ``tile`` owns, as global rows, grouped by bucket: ``(out, cut)``.

    ``pairs`` index ``boxes``/``rows`` (a tile's boxes and their global
    rows).  A pair is owned by the tile holding its reference point, the
    lower-left corner of the two boxes' intersection; it comes out as
    ``(min, max)`` of the global rows, in the bucket ``b`` with
    ``edges[b] <= min < edges[b + 1]``, pairs of a bucket in their input
    order: ``out[cut[b]:cut[b + 1]]``.  Two passes (count, then fill), so
    the only memory is the output (NumPy's masks, gathers and argsort took
    several times the pairs).
    """
    cells = ybounds.shape[1] - 1
    nb = edges.shape[0] - 1
    bucket = np.full(pairs.shape[0], -1, np.int64)
    cut = np.zeros(nb + 1, np.int64)
    for k in range(pairs.shape[0]):
        a = pairs[k, 0]
        b = pairs[k, 1]
        i = _last_at_most(xs, max(boxes[a, 0], boxes[b, 0]))
        c = _last_at_most(ybounds[i], max(boxes[a, 1], boxes[b, 1]))
        if rank[i * cells + c] == tile:
            q = _last_at_most(edges, min(rows[a], rows[b]))
            bucket[k] = q
            cut[q + 1] += 1
    for q in range(nb):
        cut[q + 1] += cut[q]
    out = np.empty((cut[nb], 2), np.int64)
    fill = cut[:nb].copy()
    for k in range(pairs.shape[0]):
        q = bucket[k]
        if q >= 0:
            ra = rows[pairs[k, 0]]
            rb = rows[pairs[k, 1]]
            out[fill[q], 0] = min(ra, rb)
            out[fill[q], 1] = max(ra, rb)
            fill[q] += 1
    return out, cut


@njit(cache=True)
def sort_pairs(pairs, lo, hi):
    """``pairs`` (first index in ``[lo, hi)``) in canonical order, as a new array.

    A counting sort by the first index (``hi - lo`` counters: a bucket is
    a range of rows), then each run of one first index sorted by the
    second: insertion for the short runs of ordinary boxes, ``np.sort``
    for the long run of a box that meets thousands.  O(k + hi - lo)
    instead of a lexsort's O(k log k), and no temporaries beyond the
    counters.
    """
    k = pairs.shape[0]
    end = np.zeros(hi - lo + 1, np.int64)
    for q in range(k):
        end[pairs[q, 0] - lo + 1] += 1
    for r in range(hi - lo):
        end[r + 1] += end[r]
    out = np.empty((k, 2), np.intp)
    for q in range(k):
        r = pairs[q, 0] - lo
        p = end[r]
        end[r] = p + 1
        out[p, 0] = pairs[q, 0]
        out[p, 1] = pairs[q, 1]
    first = 0  # end[r] is now the end of run r, and first its start
    for r in range(hi - lo):
        last = end[r]
        if last - first > 32:
            out[first:last, 1] = np.sort(out[first:last, 1])
        else:
            for a in range(first + 1, last):
                v = out[a, 1]
                b = a - 1
                while b >= first and out[b, 1] > v:
                    out[b + 1, 1] = out[b, 1]
                    b -= 1
                out[b + 1, 1] = v
        first = last
    return out
