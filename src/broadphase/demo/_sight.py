"""Line of sight: rays from the eye (the mouse) to the first wall each one meets.

Every frame casts ``n`` rays at even angles around the eye against the walls in one call
(:func:`broadphase.cast_rays`, ``hits="first"``) and draws each ray up to the point where it
enters its first wall (``origin + t * direction``), or to the world's edge.  Walls some ray
reaches are filled.  The walls include thin ones (2 pixels) that a sampled line of sight
(a point every few pixels) would step over.
"""

from __future__ import annotations

import numpy as np

from .. import morton
from .._casts import cast_rays
from ._draw import BLACK, RED, WHITE, _View

SEEN = (255, 200, 80)


class _Sight:
    """A 600 x 500 room of walls; rays from the eye, first hits drawn."""

    background, free, hit = WHITE, BLACK, RED
    #: This scene's keys (its rays are its objects: no method to choose).
    keys = "move the mouse: the eye   click: put the eye there   S save  Esc quit"
    W, H = 600.0, 500.0

    def __init__(self, n: int):
        rng = np.random.default_rng(7)
        self.n = max(1, n)  # rays
        self.bounds = (0.0, 0.0, self.W, self.H)
        self.view = _View(self.W, self.H)
        lo = rng.uniform([0, 0], [self.W - 60, self.H - 60], (40, 2))
        size = rng.uniform(8, 60, (40, 2))
        thin = rng.random(40) < 0.4
        size[thin, rng.integers(0, 2, thin.sum())] = 2.0  # walls of 2 pixels
        self.walls = np.hstack([lo, lo + size])
        self.eye = np.array([self.W / 2, self.H / 2])
        self.hits = np.full(self.n, -1, np.intp)
        self.t = np.full(self.n, np.inf)
        self.pairs = 0  # rays that meet a wall

    def aim(self, pos) -> None:
        """The eye under the mouse (screen to world), kept inside the room."""
        x = (pos[0] - self.view.ox) / self.view.s
        y = pos[1] / self.view.s
        self.eye = np.array([min(max(x, 0.0), self.W), min(max(y, 0.0), self.H)])

    click = aim

    def directions(self) -> np.ndarray:
        a = 2 * np.pi * np.arange(self.n) / self.n
        return np.stack([np.cos(a), np.sin(a)], 1)

    def update(self) -> None:
        pass

    def collide(self, method: str) -> None:
        if method == "none":  # no collision: the rays see through the walls
            self.hits, self.t, self.pairs = np.full(self.n, -1, np.intp), np.full(self.n, np.inf), 0
            return
        d = self.directions()
        self.hits, self.t = cast_rays(self.walls, np.tile(self.eye, (self.n, 1)), d)
        self.pairs = int((self.hits >= 0).sum())

    def ends(self) -> np.ndarray:
        """Where each ray stops: its first hit, else the world's edge."""
        d = self.directions()
        with np.errstate(divide="ignore", invalid="ignore"):
            to_x = np.where(d[:, 0] > 0, (self.W - self.eye[0]) / d[:, 0],
                            np.where(d[:, 0] < 0, -self.eye[0] / d[:, 0], np.inf))
            to_y = np.where(d[:, 1] > 0, (self.H - self.eye[1]) / d[:, 1],
                            np.where(d[:, 1] < 0, -self.eye[1] / d[:, 1], np.inf))
        t = np.minimum(self.t, np.minimum(to_x, to_y))
        return self.eye + t[:, None] * d

    def draw(self, pg, surf) -> None:
        start = self.view.point(*self.eye)
        for x, y in self.ends().tolist():
            pg.draw.line(surf, SEEN, start, self.view.point(x, y))
        seen = np.zeros(len(self.walls), bool)
        seen[self.hits[self.hits >= 0]] = True
        for k, rect in enumerate(self.view.rects(self.walls).tolist()):
            pg.draw.rect(surf, self.hit if seen[k] else self.free, rect, 0 if seen[k] else 1)
        pg.draw.circle(surf, RED, start, 4)

    def cells(self):
        return morton.locate(self.walls, self.bounds, 6)

    def info(self) -> str:
        return (f"rays {self.n:,} from ({self.eye[0]:.0f}, {self.eye[1]:.0f})   "
                f"{self.pairs:,} meet a wall   filled: walls some ray reaches")


