"""The Python alternatives, each asked for the same strict-overlap pair set.

Every peer gets a :class:`Problem` (boxes, or circles with their bounding
boxes, and optional groups; 2D or 3D) and returns canonical pairs, or raises
:class:`NotApplicable` saying why it cannot do that scene; a peer of one
dimension only says so through :attr:`Peer.dims`.  Each uses its best bulk
API for candidates; the candidates then go through the same exact filter
(most peers count touching as colliding, python-fcl included, and none knows
circles exactly or groups).  ``broadphase.bench`` checks each result against
ours before reporting a time.
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

    boxes: np.ndarray  # (n, 2 d): low corner, high corner; for circles their bounding boxes
    circles: np.ndarray | None = None  # (n, d + 1): centre, radius
    groups: np.ndarray | None = None  # (n,) int, 0 = none
    sprites: tuple | None = None  # two pygame sprite groups (the "sprites" scene)

    @property
    def dim(self) -> int:
        """The dimension: 2 or 3."""
        return self.boxes.shape[1] // 2


@dataclass(frozen=True)
class Peer:
    """A peer: its name, the module it needs, the pip name, its largest n and dimensions."""

    name: str
    module: str
    pip: str
    limit: int | None  # beyond this n a per-object Python loop takes minutes
    run: object
    dims: tuple[int, ...] = (2,)  # the dimensions it can search

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
        x, d = p.boxes, p.dim
        ok = np.ones(a.shape, bool)
        for k in range(d):  # strict overlap on every axis
            ok &= (x[a, k] < x[b, k + d]) & (x[b, k] < x[a, k + d])
    if p.groups is not None:
        g = p.groups
        ok &= (g[a] == 0) | (g[a] != g[b])
    return ok


def _circles_overlap(c, a, b) -> np.ndarray:
    """|c_a - c_b| < r_a + r_b, in floats, redone with fractions where rounding could flip it.

    ``c`` holds a centre of any dimension then the radius per row.
    """
    d = c.shape[1] - 1
    d2 = np.zeros(a.shape)
    for k in range(d):
        dk = c[a, k] - c[b, k]
        d2 += dk * dk
    r2 = (c[a, d] + c[b, d]) ** 2
    ok = d2 < r2
    close = np.abs(d2 - r2) <= 1e-9 * np.maximum(r2, d2)
    for k in np.flatnonzero(close):
        gaps = [Fraction(c[a[k], m]) - Fraction(c[b[k], m]) for m in range(d)]
        fr = Fraction(c[a[k], d]) + Fraction(c[b[k], d])
        ok[k] = sum(g * g for g in gaps) < fr * fr
    return ok


def _numpy_brute(p: Problem) -> np.ndarray:
    """All pairs by broadcasting, in blocks of rows."""
    n = p.boxes.shape[0]
    x, d = p.boxes, p.dim
    ii, jj = [], []
    for s in range(0, n, 512):
        r = slice(s, min(n, s + 512))
        hit = np.ones((r.stop - s, n), bool)
        for k in range(d):
            hit &= (x[r, None, k] <= x[None, :, k + d]) & (x[None, :, k] <= x[r, None, k + d])
        i, j = np.nonzero(hit)
        ii.append(i + s)
        jj.append(j)
    return canonical(np.concatenate(ii), np.concatenate(jj), p)


def _ckdtree(p: Problem) -> np.ndarray:
    """``cKDTree.query_pairs`` on centres, one distance for all.

    Circles and spheres: within ``2 r_max`` (Euclidean), then the exact
    filter.  Boxes: only when all have the same size, within their largest
    extent in the Chebyshev distance (``p=inf``); boxes of several sizes
    would need the largest box's extent for all, a bound that grows with the
    spread of sizes, so those scenes are marked n/a.
    """
    from scipy.spatial import cKDTree

    d = p.dim
    if p.circles is not None:
        pr = cKDTree(p.circles[:, :d]).query_pairs(2 * p.circles[:, d].max(),
                                                   output_type="ndarray")
    else:
        ext = p.boxes[:, d:] - p.boxes[:, :d]
        if not np.allclose(ext, ext[0], rtol=1e-9):
            raise NotApplicable("sizes differ: query_pairs takes one distance")
        c = (p.boxes[:, :d] + p.boxes[:, d:]) / 2
        pr = cKDTree(c).query_pairs(ext.max(), p=np.inf, output_type="ndarray")
    return canonical(pr[:, 0], pr[:, 1], p)


def _fcl(p: Problem) -> np.ndarray:
    """python-fcl's ``DynamicAABBTreeCollisionManager``: one ``CollisionObject`` per object.

    As its users write it: an ``fcl.Box`` (or ``fcl.Sphere``) at its centre
    per object, ``registerObjects``, ``setup``, then one ``collide`` with the
    default callback collecting a contact per colliding pair (its own
    narrow phase: boxes and spheres that only touch collide in fcl, which the
    exact filter then drops).
    """
    import fcl

    if p.circles is not None:
        geoms = [fcl.Sphere(r) for r in p.circles[:, 3].tolist()]
        centres = p.circles[:, :3]
    else:
        geoms = [fcl.Box(*e) for e in (p.boxes[:, 3:] - p.boxes[:, :3]).tolist()]
        centres = (p.boxes[:, :3] + p.boxes[:, 3:]) / 2
    objs = [fcl.CollisionObject(g, fcl.Transform(c)) for g, c in zip(geoms, centres, strict=True)]
    manager = fcl.DynamicAABBTreeCollisionManager()
    manager.registerObjects(objs)
    manager.setup()
    data = fcl.CollisionData(request=fcl.CollisionRequest(num_max_contacts=2**62))
    manager.collide(data, fcl.defaultCollisionCallback)
    where = {id(g): k for k, g in enumerate(geoms)}
    contacts = data.result.contacts
    i = np.fromiter((where[id(c.o1)] for c in contacts), np.intp, len(contacts))
    j = np.fromiter((where[id(c.o2)] for c in contacts), np.intp, len(contacts))
    return canonical(i, j, p)


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
    Peer("scipy cKDTree", "scipy", "scipy", None, _ckdtree, dims=(2, 3)),
    Peer("rtree", "rtree", "rtree", None, _rtree),
    Peer("python-fcl", "fcl", "python-fcl", 100_000, _fcl, dims=(3,)),
    Peer("pymunk", "pymunk", "pymunk", 100_000, _pymunk),
    Peer("fastquadtree", "fastquadtree", "fastquadtree", 100_000, _fastquadtree),
    Peer("pyqtree", "pyqtree", "pyqtree", 10_000, _pyqtree),
    Peer("numpy brute", "numpy", "numpy", 10_000, _numpy_brute, dims=(2, 3)),
    Peer("pygame groupcollide", "pygame", "pygame-ce", 5_000, _pygame_groupcollide),
)
