"""Seed 003's bullets, and how fast bullets tunnel and how swept pairs catch them.

Ten emitters fire rings of bullets every 24 frames; one emitter's bullets never collide
(they share a group).  ``F`` makes the bullets fast: at 24 pixels a frame, two bullets of
8 pixels that cross between two frames are never seen overlapping, the pairs of a frame's
positions miss them ("tunnelling").  ``W`` switches swept pairs on: each bullet moves along
the segment from its last position to this one, and the pairs that overlap at some moment of
the frame (:func:`broadphase.find_swept_circle_pairs`) are found too; those the frame's
positions missed are drawn in yellow and counted.
"""

from __future__ import annotations

import numpy as np

from .. import morton, scenarios
from .._api import find_circle_pairs
from .._casts import find_swept_circle_pairs
from .._depth import suggest_depth
from .._tree import LinearQuadtree
from ._draw import BLACK, CYAN, RED, YELLOW, _draw_boxes, _View

#: Pixels a frame of a fast bullet (seed 003's move 1).
FAST = 24.0


class _Bullets:
    """Seed 003: a 360 x 480 field; every 24 frames ten emitters fire rings of bullets."""

    background, free, hit = BLACK, CYAN, RED

    def __init__(self, n: int):
        self.ring = max(1, n)  # bullets per ring (32 in the seed)
        self.w, self.h = scenarios.BULLET_FIELD
        self.bounds = (0.0, 0.0, self.w, self.h)
        self.view = _View(self.w, self.h)
        self.depth = suggest_depth((0, 0, self.w, self.w), 2 * scenarios.BULLET_RADIUS)
        self.xy = np.empty((0, 2))
        self.last = np.empty((0, 2))  # where each bullet was a frame ago
        self.v = np.empty((0, 2))
        self.emitter = np.empty(0, np.int64)  # 1..10: the group (0 would mean none)
        self.frame = 0
        self.tree = None
        self.handles = np.empty(0, np.intp)
        self.touched = np.zeros(0, bool)
        self.tunnelled = np.zeros(0, bool)  # in a pair only the swept test found
        self.pairs = 0
        self.missed = 0  # pairs only the swept test found, this frame
        self.fast = False
        self.swept = False

    @property
    def n(self) -> int:
        return self.xy.shape[0]

    def key(self, pg, k) -> None:
        """``F``: fast bullets on and off; ``W``: swept pairs on and off."""
        if k == pg.K_f:
            self.fast = not self.fast
        elif k == pg.K_w:
            self.swept = not self.swept

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
        self.last = self.xy
        self.xy = self.xy + self.v * (FAST if self.fast else 1.0)
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
        self.last = self.last[alive]

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
        self.tunnelled = np.zeros(self.n, bool)
        self.missed = 0
        if self.swept and method != "none":
            # pairs that met during the frame, apart at its start (t > 0) and at its end
            swept, t = find_swept_circle_pairs(self.last, self.xy, r, groups=self.emitter)
            missed = swept[(t > 0) & ~_rows_in(swept, p)]
            self.tunnelled[missed.ravel()] = True
            self.tunnelled &= ~self.touched
            self.missed = len(missed)
            self.pairs += self.missed

    def boxes(self) -> np.ndarray:
        r = scenarios.BULLET_RADIUS
        return np.hstack([self.xy - r, self.xy + r])

    def draw(self, pg, surf) -> None:
        circles = np.column_stack([self.xy, np.full(self.n, scenarios.BULLET_RADIUS)])
        _draw_boxes(pg, surf, self.view, self.boxes(), self.touched, self.free, self.hit,
                    circles)
        if self.tunnelled.any():
            k = np.flatnonzero(self.tunnelled)
            _draw_boxes(pg, surf, self.view, self.boxes()[k], np.ones(len(k), bool), YELLOW,
                        YELLOW, circles[k])

    def cells(self):
        return morton.locate(self.boxes(), self.bounds, self.depth)

    def info(self) -> str:
        speed = f"fast ({FAST:g} px a frame)" if self.fast else "seed speed"
        swept = (f"swept on: {self.missed} pairs only it found (yellow)" if self.swept
                 else "swept off")
        return (f"bullets {self.n:,} ({self.ring} a ring), {speed}, {swept}   red: touching "
                "another emitter's   F fast  W swept")


def _rows_in(rows: np.ndarray, among: np.ndarray) -> np.ndarray:
    """Which of the (k, 2) ``rows`` are also rows of ``among`` (both canonical pairs)."""
    if not rows.size or not among.size:
        return np.zeros(len(rows), bool)
    top = int(max(rows.max(), among.max())) + 1
    key, keys = rows[:, 0] * top + rows[:, 1], among[:, 0] * top + among[:, 1]
    return np.isin(key, keys)


def _rows_of(pairs: np.ndarray, handles: np.ndarray) -> np.ndarray:
    """Tree pairs (handles) as rows of the scene's arrays (row k holds handles[k])."""
    if not pairs.size:
        return pairs
    row = np.full(int(handles.max()) + 1, -1, np.intp)
    row[handles] = np.arange(handles.shape[0])
    return row[pairs]
