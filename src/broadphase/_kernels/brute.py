"""Brute force: every pair tested, O(n^2).  The reference all others match.

Rows are split into chunks of about equal triangular work; the inner loop
runs over contiguous coordinate columns, which the compiler vectorises.
Pairs come out with i ascending from chunk to chunk and j ascending within
a row: already the canonical order, so no sort follows.  Small inputs (a
game's few hundred sprites, every frame) take :func:`brute_small`: one
serial call, where the parallel machinery would cost more than the tests.
"""

import numpy as np
from numba import njit, prange

from .narrow import accept
from .pairs import emit


@njit(cache=True, parallel=True)
def brute(cols, circles, groups, cats, masks, mode, bounds,
          todo, offsets, caps, pi, pj, counts):
    """Pairs among boxes; ``cols`` is (4, n): minx, miny, maxx, maxy rows."""
    n = cols.shape[1]
    x0 = cols[0]
    y0 = cols[1]
    x1 = cols[2]
    y1 = cols[3]
    for t in prange(todo.shape[0]):
        c = todo[t]
        cnt = 0
        cap = caps[c]
        base = offsets[c]
        for i in range(bounds[c], bounds[c + 1]):
            ax0 = x0[i]
            ay0 = y0[i]
            ax1 = x1[i]
            ay1 = y1[i]
            # Branch-free: write every candidate, advance on kept ones.
            for j in range(i + 1, n):
                keep = (ax0 < x1[j]) & (x0[j] < ax1) & (ay0 < y1[j]) & (y0[j] < ay1)
                cnt = emit(i, j, keep, circles, groups, cats, masks, mode, pi, pj, base, cnt, cap)
        counts[c] = cnt


@njit(cache=True)
def brute_small(boxes, circles, groups, cats, masks, mode):
    """The canonical pairs among few boxes, serially, as a (k, 2) intp array."""
    n = boxes.shape[0]
    out = np.empty((4 * n + 16, 2), np.intp)
    k = 0
    for i in range(n):
        ax0 = boxes[i, 0]
        ay0 = boxes[i, 1]
        ax1 = boxes[i, 2]
        ay1 = boxes[i, 3]
        for j in range(i + 1, n):
            keep = ((ax0 < boxes[j, 2]) & (boxes[j, 0] < ax1)
                    & (ay0 < boxes[j, 3]) & (boxes[j, 1] < ay1))
            if mode != 0 and keep:
                keep = accept(i, j, circles, groups, cats, masks, mode)
            if keep:
                if k == out.shape[0]:  # full: double (amortised O(1) per pair)
                    grown = np.empty((2 * k, 2), np.intp)
                    grown[:k] = out
                    out = grown
                out[k, 0] = i
                out[k, 1] = j
                k += 1
    return out[:k].copy()
