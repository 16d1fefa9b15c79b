"""The seeds' moving scenes: bouncing boxes (000), circles (002), bullets (003)."""

from __future__ import annotations

import numpy as np

from .. import morton, scenarios
from .._api import find_circle_pairs, find_pairs
from .._tree import LinearQuadtree, depth_for
from ._draw import BLACK, CYAN, RED, WHITE, _draw_boxes, _View


class _Rects:
    """Seed 000: boxes of 10 x 10 bouncing in a 500 x 500 world (it grows with n)."""

    background, free, hit = WHITE, BLACK, RED

    def __init__(self, n: int):
        self.n = n
        self.scene = scenarios.Bouncing(n)
        self.bounds = (0.0, 0.0, self.scene.world, self.scene.world)
        self.view = _View(self.scene.world, self.scene.world)
        self.depth = depth_for(self.scene.world, self.scene.SIZE)
        self.tree = None
        self.touched = np.zeros(n, bool)
        self.pairs = 0

    def update(self) -> None:
        self.scene.step()

    def boxes(self) -> np.ndarray:
        return self.scene.boxes()

    def collide(self, method: str) -> None:
        boxes = self.boxes()
        self._mark(method, lambda t: t.insert(boxes), lambda t, h: t.move(h, boxes),
                   lambda m: find_pairs(boxes, method=m))

    def _mark(self, method, insert, move, find) -> None:
        """Pairs by ``method`` ("tree": the moving tree, made on first use), then who touches."""
        if method == "none":
            p = np.empty((0, 2), np.intp)
        elif method == "tree":
            if self.tree is None:
                self.tree = LinearQuadtree(self.bounds, self.depth)
                self.handles = insert(self.tree)
            else:
                move(self.tree, self.handles)
            p = self.tree.pairs()
        else:
            p = find(method)
        self.touched = np.zeros(self.n, bool)
        self.touched[p.ravel()] = True
        self.pairs = len(p)

    def draw(self, pg, surf) -> None:
        _draw_boxes(pg, surf, self.view, self.boxes(), self.touched, self.free, self.hit)

    def cells(self):
        return morton.locate(self.boxes(), self.bounds, self.depth)

    def info(self) -> str:
        return ""


class _Circles(_Rects):
    """Seed 002: circles of radius 5 moving and bouncing (500 per 500 x 500 of world)."""

    RADIUS = 5.0

    def __init__(self, n: int):
        super().__init__(n)
        self.scene = scenarios.Bouncing(2 * n)  # the same density as seed 002: 500 per 500^2
        self.scene.xy = self.scene.xy[:n]
        self.scene.v = self.scene.v[:n]
        self.bounds = (0.0, 0.0, self.scene.world, self.scene.world)
        self.view = _View(self.scene.world, self.scene.world)

    def centers(self) -> np.ndarray:
        return self.scene.xy + self.RADIUS

    def boxes(self) -> np.ndarray:
        c = self.centers()
        return np.hstack([c - self.RADIUS, c + self.RADIUS])

    def collide(self, method: str) -> None:
        c = self.centers()
        self._mark(method, lambda t: t.insert_circles(c, self.RADIUS),
                   lambda t, h: t.move_circles(h, c),
                   lambda m: find_circle_pairs(c, self.RADIUS, method=m))

    def draw(self, pg, surf) -> None:
        circles = np.column_stack([self.centers(), np.full(self.n, self.RADIUS)])
        _draw_boxes(pg, surf, self.view, self.boxes(), self.touched, self.free, self.hit,
                    circles)


class _Bullets:
    """Seed 003: a 360 x 480 field; every 24 frames ten emitters fire rings of bullets."""

    background, free, hit = BLACK, CYAN, RED

    def __init__(self, n: int):
        self.ring = max(1, n)  # bullets per ring (32 in the seed)
        self.w, self.h = scenarios.BULLET_FIELD
        self.bounds = (0.0, 0.0, self.w, self.h)
        self.view = _View(self.w, self.h)
        self.depth = depth_for(self.w, 2 * scenarios.BULLET_RADIUS)
        self.xy = np.empty((0, 2))
        self.v = np.empty((0, 2))
        self.emitter = np.empty(0, np.int64)  # 1..10: the group (0 would mean none)
        self.frame = 0
        self.tree = None
        self.handles = np.empty(0, np.intp)
        self.touched = np.zeros(0, bool)
        self.pairs = 0

    @property
    def n(self) -> int:
        return self.xy.shape[0]

    def update(self) -> None:
        """The seed's update(): fire every 24 frames, move, drop the dead."""
        self.frame += 1
        born = 0
        if self.frame % scenarios.BULLET_PERIOD == 0:
            angles = np.pi / 16 * np.arange(self.ring) * (32 / self.ring)
            for e, (fx, fy) in enumerate(scenarios.BULLET_EMITTERS, start=1):
                self.xy = np.vstack([self.xy, np.tile([fx * self.w, fy * self.h],
                                                      (self.ring, 1))])
                self.v = np.vstack([self.v, np.stack([np.cos(angles), np.sin(angles)], 1)])
                self.emitter = np.concatenate([self.emitter, np.full(self.ring, e)])
                born += self.ring
        self.xy = self.xy + self.v
        m = 10.0
        alive = ((self.xy[:, 0] >= -m) & (self.xy[:, 0] <= self.w + m)
                 & (self.xy[:, 1] >= -m) & (self.xy[:, 1] <= self.h + m))
        if self.tree is not None:
            old = self.handles.shape[0]
            keep_old = alive[:old]
            self.tree.remove(self.handles[~keep_old])
            self.handles = self.handles[keep_old]
            if born:
                new = alive[old:]
                self.handles = np.concatenate([self.handles, self.tree.insert_circles(
                    self.xy[old:][new], scenarios.BULLET_RADIUS,
                    groups=self.emitter[old:][new])])
        self.xy, self.v, self.emitter = self.xy[alive], self.v[alive], self.emitter[alive]

    def collide(self, method: str) -> None:
        r = scenarios.BULLET_RADIUS
        if method == "none":
            p = np.empty((0, 2), np.intp)
        elif method == "tree":
            if self.tree is None:
                self.tree = LinearQuadtree(self.bounds, self.depth)
                self.handles = self.tree.insert_circles(self.xy, r, groups=self.emitter)
            else:
                self.tree.move_circles(self.handles, self.xy)
            p = _rows_of(self.tree.pairs(), self.handles)
        else:
            p = find_circle_pairs(self.xy, r, groups=self.emitter, method=method)
        if method != "tree":
            self.tree = None  # rebuilt when chosen again
        self.touched = np.zeros(self.n, bool)
        self.touched[p.ravel()] = True
        self.pairs = len(p)

    def boxes(self) -> np.ndarray:
        r = scenarios.BULLET_RADIUS
        return np.hstack([self.xy - r, self.xy + r])

    def draw(self, pg, surf) -> None:
        circles = np.column_stack([self.xy, np.full(self.n, scenarios.BULLET_RADIUS)])
        _draw_boxes(pg, surf, self.view, self.boxes(), self.touched, self.free, self.hit,
                    circles)

    def cells(self):
        return morton.locate(self.boxes(), self.bounds, self.depth)

    def info(self) -> str:
        return (f"bullets {self.n:,} ({self.ring} a ring)   cyan: free   red: touching "
                "another emitter's (its own never collide)")


def _rows_of(pairs: np.ndarray, handles: np.ndarray) -> np.ndarray:
    """Tree pairs (handles) as rows of the scene's arrays (row k holds handles[k])."""
    if not pairs.size:
        return pairs
    row = np.full(int(handles.max()) + 1, -1, np.intp)
    row[handles] = np.arange(handles.shape[0])
    return row[pairs]
