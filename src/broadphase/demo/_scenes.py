"""The seeds' moving scenes: bouncing boxes (000) and circles (002)."""

from __future__ import annotations

import numpy as np

from .. import morton, scenarios
from .._api import find_circle_pairs, find_pairs
from .._depth import suggest_depth
from .._tree import LinearQuadtree
from ._draw import BLACK, RED, WHITE, _draw_boxes, _View


class _Rects:
    """Seed 000: boxes of 10 x 10 bouncing in a 500 x 500 world (it grows with n)."""

    background, free, hit = WHITE, BLACK, RED

    def __init__(self, n: int):
        self.n = n
        self.scene = scenarios.Bouncing(n)
        self.bounds = (0.0, 0.0, self.scene.world, self.scene.world)
        self.view = _View(self.scene.world, self.scene.world)
        self.depth = suggest_depth((0, 0, self.scene.world, self.scene.world), self.scene.SIZE)
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
