"""Reference implementations, independent of the package's kernels.

Plain NumPy broadcasting (or Python fractions for circles), O(n^2): slow,
obviously correct, and what every test compares against.
"""

from fractions import Fraction

import numpy as np


def _pairs_from_mask(mask):
    i, j = np.nonzero(np.triu(mask, 1))
    out = np.stack([i, j], axis=1).astype(np.intp)
    return out.reshape(-1, 2)


def filter_mask(n, groups=None, categories=None, masks=None):
    keep = np.ones((n, n), bool)
    if groups is not None:
        g = np.asarray(groups, np.int64)
        keep &= ~((g[:, None] == g[None, :]) & (g[:, None] != 0))
    if categories is not None or masks is not None:
        full = np.uint64(2**64 - 1)
        c = np.full(n, full) if categories is None else np.asarray(categories, np.uint64)
        m = np.full(n, full) if masks is None else np.asarray(masks, np.uint64)
        keep &= ((c[:, None] & m[None, :]) != 0) & ((c[None, :] & m[:, None]) != 0)
    return keep


def box_pairs(boxes, groups=None, categories=None, masks=None):
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    x0, y0, x1, y1 = b.T
    hit = ((x0[:, None] < x1[None, :]) & (x0[None, :] < x1[:, None])
           & (y0[:, None] < y1[None, :]) & (y0[None, :] < y1[:, None]))
    return _pairs_from_mask(hit & filter_mask(len(b), groups, categories, masks))


def pairs_between(a, b):
    a = np.asarray(a, np.float64).reshape(-1, 4)
    b = np.asarray(b, np.float64).reshape(-1, 4)
    hit = ((a[:, None, 0] < b[None, :, 2]) & (b[None, :, 0] < a[:, None, 2])
           & (a[:, None, 1] < b[None, :, 3]) & (b[None, :, 1] < a[:, None, 3]))
    i, j = np.nonzero(hit)
    return np.stack([i, j], axis=1).astype(np.intp).reshape(-1, 2)


def circle_pairs(centers, radii, groups=None, categories=None, masks=None):
    """Exact: every coordinate as a Fraction, so no rounding anywhere."""
    c = np.asarray(centers, np.float64).reshape(-1, 2)
    r = np.broadcast_to(np.asarray(radii, np.float64), (len(c),))
    fx = [Fraction(v) for v in c[:, 0]]
    fy = [Fraction(v) for v in c[:, 1]]
    fr = [Fraction(v) for v in r]
    n = len(c)
    hit = np.zeros((n, n), bool)
    for i in range(n):
        for j in range(i + 1, n):
            s = fr[i] + fr[j]
            if (fx[i] - fx[j]) ** 2 + (fy[i] - fy[j]) ** 2 < s * s:
                hit[i, j] = True
    return _pairs_from_mask(hit & filter_mask(n, groups, categories, masks))
