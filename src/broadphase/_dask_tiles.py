"""The tiles of :func:`broadphase.dask.find_pairs`, cut from a sample of the boxes.

Step 1 of :mod:`broadphase.dask`: every ``n / sample``-th box is read; its
centres cut the plane into vertical strips at x-quantiles, and each strip
into cells at the y-quantiles of its own sample points, the outer tiles
reaching to infinity.  Tiles are numbered in Morton order of their
centres.  The tiles cut x and y, of 2D and 3D boxes alike.
"""

from __future__ import annotations

import math

import numpy as np

from . import morton


def _tiles(arr, n: int, tile_rows: int, sample: int):
    """Strip edges ``xs`` (S + 1), cell edges per strip ``ybounds`` (S, C + 1), and ``rank``.

    ``rank[strip * C + cell]`` is the tile's number: its place in the Morton
    order of the tile centres (quantized on a 2**16 grid over the sample).
    The tiles cut x and y, of 2D and 3D boxes alike (``arr`` of 4 or 6
    columns: the x-y centres of the sample place them).
    """
    step = max(1, n // sample)
    pts = arr[::step].compute()
    half = pts.shape[1] // 2  # where the high corner starts: maxx, maxy
    # halves first: the centre of finite corners near float64's largest value stays finite
    c = np.column_stack([pts[:, 0] / 2 + pts[:, half] / 2,
                         pts[:, 1] / 2 + pts[:, half + 1] / 2])
    c = c[np.isfinite(c).all(1)]
    ntiles = max(1, -(-n // tile_rows))
    s = max(1, int(math.ceil(math.sqrt(ntiles))))
    cells = max(1, -(-ntiles // s))
    if not len(c):  # no finite row sampled: one tile, whose search names the bad rows
        s = cells = 1
    q = np.linspace(0, 1, s + 1)[1:-1]
    inner = np.quantile(c[:, 0], q) if len(c) else np.zeros(0)
    xs = np.concatenate([[-np.inf], inner, [np.inf]])
    ybounds = np.empty((s, cells + 1))
    qy = np.linspace(0, 1, cells + 1)[1:-1]
    for i in range(s):
        inside = c[(c[:, 0] >= xs[i]) & (c[:, 0] < xs[i + 1]), 1]
        if not len(inside):
            inside = c[:, 1] if len(c) else np.zeros(1)
        ybounds[i] = np.concatenate([[-np.inf], np.quantile(inside, qy), [np.inf]])
    return xs, ybounds, _morton_rank(xs, ybounds, c)


def _morton_rank(xs, ybounds, c) -> np.ndarray:
    lo = c.min(0) if len(c) else np.zeros(2)
    hi = c.max(0) if len(c) else np.ones(2)
    # in halves, so that no sum or difference of finite values overflows
    half = np.where(hi > lo, hi / 2 - lo / 2, 1.0)
    fx = np.clip(xs, lo[0], hi[0])
    cx = fx[:-1] / 2 + fx[1:] / 2
    fy = np.clip(ybounds, lo[1], hi[1])
    cy = fy[:, :-1] / 2 + fy[:, 1:] / 2
    qx = ((np.repeat(cx, cy.shape[1]) / 2 - lo[0] / 2) / half[0] * 65535).astype(np.int64)
    qy = ((cy.ravel() / 2 - lo[1] / 2) / half[1] * 65535).astype(np.int64)
    code = morton.encode(qx, qy)
    return np.argsort(np.argsort(code, kind="stable"), kind="stable")
