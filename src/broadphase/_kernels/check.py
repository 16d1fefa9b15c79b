"""One pass over the input: the first bad row (if any) and the bounds.

Validation must not cost a noticeable share of a pair search, so instead of
several NumPy passes (isfinite, comparisons, min, max) one parallel kernel
does it all.  Chunks are fixed by n, and the first bad row is the smallest
index over chunks, so the error names the same row for any thread count.
"""

import math

import numpy as np
from numba import njit, prange

# Problem codes returned with the bad row.
OK = 0
NOT_FINITE = 1
X_REVERSED = 2
Y_REVERSED = 3
NEGATIVE_RADIUS = 4

_CHUNK = 1 << 15


@njit(inline="always")
def box_problem(x0, y0, x1, y1):
    """OK, or what is wrong with the box: NOT_FINITE, X_REVERSED or Y_REVERSED (first found)."""
    if not (math.isfinite(x0) and math.isfinite(y0) and math.isfinite(x1) and math.isfinite(y1)):
        return NOT_FINITE
    if x0 > x1:
        return X_REVERSED
    if y0 > y1:
        return Y_REVERSED
    return OK


@njit(cache=True, parallel=True)
def scan_boxes(boxes):
    """Return ``(bad_row, code, minx, miny, maxx, maxy)``; bad_row is -1 if none."""
    n = boxes.shape[0]
    nch = (n + _CHUNK - 1) // _CHUNK
    bad = np.full(nch, -1, np.int64)
    code = np.zeros(nch, np.int64)
    lo = np.empty((nch, 4))
    for c in prange(nch):
        ax0 = np.inf
        ay0 = np.inf
        ax1 = -np.inf
        ay1 = -np.inf
        for k in range(c * _CHUNK, min(n, (c + 1) * _CHUNK)):
            x0 = boxes[k, 0]
            y0 = boxes[k, 1]
            x1 = boxes[k, 2]
            y1 = boxes[k, 3]
            problem = box_problem(x0, y0, x1, y1)
            if problem != OK:
                bad[c] = k
                code[c] = problem
                break
            ax0 = min(ax0, x0)
            ay0 = min(ay0, y0)
            ax1 = max(ax1, x1)
            ay1 = max(ay1, y1)
        lo[c, 0] = ax0
        lo[c, 1] = ay0
        lo[c, 2] = ax1
        lo[c, 3] = ay1
    for c in range(nch):
        if bad[c] >= 0:
            return bad[c], code[c], 0.0, 0.0, 0.0, 0.0
    bx0 = np.inf
    by0 = np.inf
    bx1 = -np.inf
    by1 = -np.inf
    for c in range(nch):
        bx0 = min(bx0, lo[c, 0])
        by0 = min(by0, lo[c, 1])
        bx1 = max(bx1, lo[c, 2])
        by1 = max(by1, lo[c, 3])
    return -1, OK, bx0, by0, bx1, by1


@njit(cache=True, parallel=True)
def circle_boxes(circles):
    """Outward-rounded bounding boxes of (x, y, r) rows, and the first bad row.

    ``x - r`` may round up; stepping one ulp outwards makes every box contain
    its circle, so the strict box test never drops a touching-inside pair.
    Returns ``(boxes, bad_row, code)``.
    """
    n = circles.shape[0]
    boxes = np.empty((n, 4))
    nch = (n + _CHUNK - 1) // _CHUNK
    bad = np.full(nch, -1, np.int64)
    code = np.zeros(nch, np.int64)
    for c in prange(nch):
        for k in range(c * _CHUNK, min(n, (c + 1) * _CHUNK)):
            x = circles[k, 0]
            y = circles[k, 1]
            r = circles[k, 2]
            if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(r)):
                bad[c] = k
                code[c] = NOT_FINITE
                break
            if r < 0.0:
                bad[c] = k
                code[c] = NEGATIVE_RADIUS
                break
            boxes[k, 0] = np.nextafter(x - r, -np.inf)
            boxes[k, 1] = np.nextafter(y - r, -np.inf)
            boxes[k, 2] = np.nextafter(x + r, np.inf)
            boxes[k, 3] = np.nextafter(y + r, np.inf)
    for c in range(nch):
        if bad[c] >= 0:
            return boxes, bad[c], code[c]
    return boxes, np.int64(-1), np.int64(OK)
