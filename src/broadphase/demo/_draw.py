"""Drawing for the demo: world to screen, objects, quadtree cells; the colours and window."""

from __future__ import annotations

import numpy as np

from .. import morton

WINDOW = (800, 660)
HUD = 60  # pixels of text below the world
ARRAY_DRAW = 20_000  # from this many objects on, draw by writing pixels (surfarray)
RED = (230, 30, 30)
BLACK = (0, 0, 0)
WHITE = (255, 255, 255)
CYAN = (0, 255, 255)
YELLOW = (255, 220, 0)
GRID = (120, 170, 255)


class _View:
    """World to screen: the world scaled to fit above the HUD, y down as in the seeds."""

    def __init__(self, w: float, h: float, screen=WINDOW):
        self.s = min(screen[0] / w, (screen[1] - HUD) / h)
        self.ox = int((screen[0] - w * self.s) / 2)  # centred across the window

    def rects(self, boxes: np.ndarray) -> np.ndarray:
        b = boxes * self.s
        return np.stack([b[:, 0] + self.ox, b[:, 1], np.maximum(b[:, 2] - b[:, 0], 1),
                         np.maximum(b[:, 3] - b[:, 1], 1)], 1).astype(int)

    def point(self, x: float, y: float) -> tuple[int, int]:
        """Screen position of a world point."""
        return int(x * self.s) + self.ox, int(y * self.s)


def _draw_boxes(pg, surf, view: _View, boxes, touched, free, hit, circles=None) -> None:
    """One draw call per object below ARRAY_DRAW objects, pixels written above."""
    if boxes.shape[0] >= ARRAY_DRAW:
        _draw_pixels(pg, surf, view.rects(boxes), touched, free, hit)
        return
    if circles is not None:
        c = (circles[:, :2] * view.s + [view.ox, 0]).astype(int).tolist()
        r = np.maximum(circles[:, 2] * view.s, 1).astype(int).tolist()
        for k in range(len(c)):
            pg.draw.circle(surf, hit if touched[k] else free, c[k], r[k], 1)
        return
    for k, rect in enumerate(view.rects(boxes).tolist()):
        pg.draw.rect(surf, hit if touched[k] else free, rect, 1)


def _draw_pixels(pg, surf, rects, touched, free, hit) -> None:
    """Fill each object's (small) screen square by array writes: no call per object."""
    px = pg.surfarray.pixels3d(surf)
    w, h = px.shape[0], px.shape[1]
    side = int(min(3, max(1, np.median(rects[:, 2]))))
    colors = np.where(touched[:, None], np.array(hit), np.array(free)).astype(np.uint8)
    for dx in range(side):
        for dy in range(side):
            x = np.clip(rects[:, 0] + dx, 0, w - 1)
            y = np.clip(rects[:, 1] + dy, 0, h - 1)
            px[x, y] = colors
    del px  # unlock the surface


def _draw_cells(pg, surf, view: _View, levels, cells, bounds) -> None:
    """Outline every cell in use: (level, Morton index) to a screen rectangle."""
    seen = np.unique(np.stack([levels, cells], 1), axis=0)
    ix, iy = morton.decode(seen[:, 1])
    side_x = (bounds[2] - bounds[0]) / 2.0 ** seen[:, 0]
    side_y = (bounds[3] - bounds[1]) / 2.0 ** seen[:, 0]
    for x, y, sx, sy in zip((ix * side_x).tolist(), (iy * side_y).tolist(), side_x.tolist(),
                            side_y.tolist(), strict=True):
        pg.draw.rect(surf, GRID, (*view.point(x, y), max(1, int(sx * view.s)),
                                  max(1, int(sy * view.s))), 1)
