"""The Python alternatives, each asked for the same strict-overlap pair set.

Every peer gets a :class:`Problem` (boxes, or circles with their bounding
boxes, and optional groups) and returns canonical pairs, or raises
:class:`NotApplicable` saying why it cannot do that scene.  Each uses its
best bulk API for candidates; the candidates then go through the same exact
filter (most peers count touching as colliding, and none knows circles
exactly or groups).  ``broadphase.bench`` checks each result against ours
before reporting a time.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from fractions import Fraction

import numpy as np


class NotApplicable(Exception):
    """The peer cannot answer this scene (the message says why)."""


@dataclass
class Problem:
    """One scene's objects as every peer sees them."""

    boxes: np.ndarray  # (n, 4); for circles their bounding boxes
    circles: np.ndarray | None = None  # (n, 3) x, y, r
    groups: np.ndarray | None = None  # (n,) int, 0 = none
    sprites: tuple | None = None  # two pygame sprite groups (the "sprites" scene)


@dataclass(frozen=True)
class Peer:
    """A peer: its name, the module it needs, the pip name and its largest n."""

    name: str
    module: str
    pip: str
    limit: int | None  # beyond this n a per-object Python loop takes minutes
    run: object

    def available(self) -> bool:
        return importlib.util.find_spec(self.module) is not None


def canonical(i: np.ndarray, j: np.ndarray, p: Problem) -> np.ndarray:
    """Exact filter of candidate pairs (any order, repeats allowed), canonical result."""
    i = np.asarray(i, np.intp)
    j = np.asarray(j, np.intp)
    a, b = np.minimum(i, j), np.maximum(i, j)
    keep = a < b
    a, b = a[keep], b[keep]
    if a.size:
        u = np.unique(a * np.intp(p.boxes.shape[0]) + b)
        a, b = u // p.boxes.shape[0], u % p.boxes.shape[0]
    ok = _exact(a, b, p)
    out = np.stack([a[ok], b[ok]], 1).astype(np.intp)
    return out.reshape(-1, 2)


def _exact(a, b, p: Problem) -> np.ndarray:
    if p.circles is not None:
        ok = _circles_overlap(p.circles, a, b)
    else:
        x = p.boxes
        ok = (x[a, 0] < x[b, 2]) & (x[b, 0] < x[a, 2]) & (x[a, 1] < x[b, 3]) & (x[b, 1] < x[a, 3])
    if p.groups is not None:
        g = p.groups
        ok &= (g[a] == 0) | (g[a] != g[b])
    return ok


def _circles_overlap(c, a, b) -> np.ndarray:
    """|c_a - c_b| < r_a + r_b, in floats, redone with fractions where rounding could flip it."""
    dx = c[a, 0] - c[b, 0]
    dy = c[a, 1] - c[b, 1]
    d2 = dx * dx + dy * dy
    r2 = (c[a, 2] + c[b, 2]) ** 2
    ok = d2 < r2
    close = np.abs(d2 - r2) <= 1e-9 * np.maximum(r2, d2)
    for k in np.flatnonzero(close):
        fx = Fraction(c[a[k], 0]) - Fraction(c[b[k], 0])
        fy = Fraction(c[a[k], 1]) - Fraction(c[b[k], 1])
        fr = Fraction(c[a[k], 2]) + Fraction(c[b[k], 2])
        ok[k] = fx * fx + fy * fy < fr * fr
    return ok


def _numpy_brute(p: Problem) -> np.ndarray:
    """All pairs by broadcasting, in blocks of rows."""
    n = p.boxes.shape[0]
    x = p.boxes
    ii, jj = [], []
    for s in range(0, n, 512):
        r = slice(s, min(n, s + 512))
        hit = ((x[r, None, 0] <= x[None, :, 2]) & (x[None, :, 0] <= x[r, None, 2])
               & (x[r, None, 1] <= x[None, :, 3]) & (x[None, :, 1] <= x[r, None, 3]))
        i, j = np.nonzero(hit)
        ii.append(i + s)
        jj.append(j)
    return canonical(np.concatenate(ii), np.concatenate(jj), p)


def _ckdtree(p: Problem) -> np.ndarray:
    """``cKDTree.query_pairs`` on centres: one radius, so equal sizes only."""
    from scipy.spatial import cKDTree

    if p.circles is not None:
        r = p.circles[:, 2]
        if not np.all(r == r[0]):
            raise NotApplicable("radii differ: query_pairs takes one distance")
        pr = cKDTree(p.circles[:, :2]).query_pairs(2 * r[0], output_type="ndarray")
    else:
        w = p.boxes[:, 2] - p.boxes[:, 0]
        h = p.boxes[:, 3] - p.boxes[:, 1]
        if not (np.allclose(w, w[0], rtol=1e-9) and np.allclose(h, h[0], rtol=1e-9)):
            raise NotApplicable("sizes differ: query_pairs takes one distance")
        c = (p.boxes[:, :2] + p.boxes[:, 2:]) / 2
        pr = cKDTree(c).query_pairs(max(w.max(), h.max()), p=np.inf, output_type="ndarray")
    return canonical(pr[:, 0], pr[:, 1], p)


def _strtree(p: Problem) -> np.ndarray:
    """The shapely 2 ``STRtree``: bulk query of every envelope against all."""
    import shapely

    b = p.boxes
    geoms = shapely.box(b[:, 0], b[:, 1], b[:, 2], b[:, 3])
    i, j = shapely.STRtree(geoms).query(geoms)
    return canonical(i, j, p)


def _rtree(p: Problem) -> np.ndarray:
    """The libspatialindex R-tree (rtree): NumPy bulk load, bulk ``intersection_v``."""
    from rtree import index

    b = np.ascontiguousarray(p.boxes)
    n = b.shape[0]
    mins, maxs = np.ascontiguousarray(b[:, :2]), np.ascontiguousarray(b[:, 2:])
    idx = index.Index((np.arange(n, dtype=np.int64), mins, maxs))
    if np.lib.NumpyVersion(np.__version__) < "2.0.0":
        # rtree's intersection_v grows its buffer by uint64 + int arithmetic,
        # which NumPy 1.x promotes to float and then fails on: query per box
        hits = [list(idx.intersection(tuple(r))) for r in b.tolist()]
        counts = np.array([len(h) for h in hits], np.intp)
        ids = np.array([j for h in hits for j in h], np.intp)
    else:
        ids, counts = idx.intersection_v(mins, maxs)
    return canonical(np.repeat(np.arange(n), counts.astype(np.intp)), ids.astype(np.intp), p)


def _pymunk(p: Problem) -> np.ndarray:
    """A pymunk (Chipmunk2D) ``Space`` of static shapes, ``bb_query`` per shape."""
    import pymunk

    space = pymunk.Space()
    body = space.static_body
    if p.circles is not None:
        shapes = [pymunk.Circle(body, r, (x, y)) for x, y, r in p.circles.tolist()]
    else:
        shapes = [pymunk.Poly(body, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)], radius=0)
                  for x0, y0, x1, y1 in p.boxes.tolist()]
    space.add(*shapes)
    where = {s: k for k, s in enumerate(shapes)}
    flt = pymunk.ShapeFilter()
    ii, jj = [], []
    for k, (x0, y0, x1, y1) in enumerate(p.boxes.tolist()):
        for s in space.bb_query(pymunk.BB(x0, y0, x1, y1), flt):
            ii.append(k)
            jj.append(where[s])
    return canonical(np.array(ii, np.intp), np.array(jj, np.intp), p)


def _fastquadtree(p: Problem) -> np.ndarray:
    """The Rust ``RectQuadTree`` of fastquadtree: NumPy bulk insert, ``query_np`` per box."""
    from fastquadtree import RectQuadTree

    b = np.ascontiguousarray(p.boxes)
    lo = b[:, :2].min(0) - 1.0
    hi = b[:, 2:].max(0) + 1.0
    qt = RectQuadTree((lo[0], lo[1], hi[0], hi[1]), 16, dtype="f64")
    qt.insert_many_np(b)
    ii, jj = [], []
    for k, row in enumerate(b.tolist()):
        ids, _ = qt.query_np(tuple(row))
        ii.append(np.full(len(ids), k))
        jj.append(ids)
    return canonical(np.concatenate(ii), np.concatenate(jj), p)


def _pyqtree(p: Problem) -> np.ndarray:
    """pyqtree, pure Python: ``insert`` and ``intersect`` per box."""
    import pyqtree

    b = p.boxes
    lo = b[:, :2].min(0) - 1.0
    hi = b[:, 2:].max(0) + 1.0
    idx = pyqtree.Index(bbox=(lo[0], lo[1], hi[0], hi[1]))
    rows = b.tolist()
    for k, row in enumerate(rows):
        idx.insert(k, row)
    ii, jj = [], []
    for k, row in enumerate(rows):
        hits = idx.intersect(row)
        ii.extend([k] * len(hits))
        jj.extend(hits)
    return canonical(np.array(ii, np.intp), np.array(jj, np.intp), p)


def sprite_pairs(crashed: dict, groupa, groupb) -> np.ndarray:
    """A ``groupcollide`` result as sorted (index in groupa, index in groupb) rows."""
    ia = {s: k for k, s in enumerate(groupa.sprites())}
    ib = {s: k for k, s in enumerate(groupb.sprites())}
    rows = [(ia[a], ib[b]) for a, hits in crashed.items() for b in hits]
    out = np.array(sorted(rows), np.intp).reshape(-1, 2)
    return out


def _pygame_groupcollide(p: Problem) -> np.ndarray:
    """The reference ``pygame.sprite.groupcollide``: every sprite against every sprite."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # no banner in the bench's table
    import pygame

    if p.sprites is None:
        raise NotApplicable("only the sprites scene (two pygame groups)")
    ga, gb = p.sprites
    return sprite_pairs(pygame.sprite.groupcollide(ga, gb, False, False), ga, gb)


#: Every peer, in the order of the benchmark's columns.
PEERS: tuple[Peer, ...] = (
    Peer("shapely STRtree", "shapely", "shapely", None, _strtree),
    Peer("scipy cKDTree", "scipy", "scipy", None, _ckdtree),
    Peer("rtree", "rtree", "rtree", None, _rtree),
    Peer("pymunk", "pymunk", "pymunk", 100_000, _pymunk),
    Peer("fastquadtree", "fastquadtree", "fastquadtree", 100_000, _fastquadtree),
    Peer("pyqtree", "pyqtree", "pyqtree", 10_000, _pyqtree),
    Peer("numpy brute", "numpy", "numpy", 10_000, _numpy_brute),
    Peer("pygame groupcollide", "pygame", "pygame-ce", 5_000, _pygame_groupcollide),
)
