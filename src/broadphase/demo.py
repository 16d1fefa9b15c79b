"""``broadphase demo``: the seeds' scenes live in a pygame-ce window.

Scenes (each reproduces its seed): ``rects`` (seed 000: boxes bouncing,
black when free, red when touching), ``bullets`` (seed 003: ten emitters
firing rings of bullets; one emitter's bullets never collide), ``circles``
(seed 002: moving circles) and ``morton`` (seeds 001 and 004: the level-3
grid with its Morton numbers, and a box whose cell is worked out step by
step).  Keys: ``0`` no collision, ``1`` brute, ``2`` sweep, ``3`` grid,
``4`` tree (a :class:`~broadphase.LinearQuadtree` moved frame by frame),
``5`` auto, ``6`` quadtree (searched from scratch each frame); ``+``/``-``
double/halve the objects; ``G`` the quadtree cells in use; ``Space`` pause;
``S`` screenshot (the HUD says where it went); ``Esc`` quit.  In ``morton``
the arrow keys move the box and a click shows a cell's Morton number; the
HUD lists each scene's own keys.

Needs pygame-ce (the ``demo`` extra).  ``run(..., headless=True)`` uses
SDL's dummy video driver, for tests and screenshots.

Examples
--------
>>> from broadphase import demo
>>> stats = demo.run("rects", n=200, headless=True, frames=3)
>>> stats["frames"], stats["objects"], stats["method"]
(3, 200, 'auto')
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from . import morton, scenarios
from ._api import find_circle_pairs, find_pairs
from ._depth import suggest_depth
from ._tree import LinearQuadtree

__all__ = ["SCENES", "run"]

SCENES = ("rects", "bullets", "circles", "morton")
#: Keys 0-6: no collision, then the methods ("tree": the moving LinearQuadtree).
METHOD_KEYS = ("none", "brute", "sweep", "grid", "tree", "auto", "quadtree")
HELP = ("0 none 1 brute 2 sweep 3 grid 4 tree (moving) 5 auto 6 quadtree  "
        "+/- objects  G cells  Space pause  S save  Esc quit")
SAVED_SECONDS = 4.0  # how long the HUD says where a screenshot went
WINDOW = (800, 660)
HUD = 60  # pixels of text below the world
ARRAY_DRAW = 20_000  # from this many objects on, draw by writing pixels (surfarray)
RED = (230, 30, 30)
BLACK = (0, 0, 0)
WHITE = (255, 255, 255)
CYAN = (0, 255, 255)
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


class _Morton:
    """Seeds 001 and 004: the level-3 grid with Morton numbers; a box and its cell."""

    background, free, hit = WHITE, BLACK, RED
    #: This scene's keys (it has no collision to choose a method for, nor objects to add).
    keys = "arrows move the box  click a cell: its Morton number  G cells  S save  Esc quit"
    DEPTH = 3
    SIDE = 512.0

    def __init__(self, n: int):
        self.n = 1
        self.pairs = 0
        self.bounds = (0.0, 0.0, self.SIDE, self.SIDE)
        self.view = _View(self.SIDE, self.SIDE)
        self.box = np.array([150.0, 100.0, 190.0, 140.0])
        self.clicked: tuple[int, int, int] | None = None  # (ix, iy, Morton number)
        self.font = None

    def update(self) -> None:
        pass

    def collide(self, method: str) -> None:
        pass

    def key(self, pg, k) -> None:
        step = {pg.K_LEFT: (-4, 0), pg.K_RIGHT: (4, 0), pg.K_UP: (0, -4), pg.K_DOWN: (0, 4)}
        if k in step:
            dx, dy = step[k]
            moved = self.box + [dx, dy, dx, dy]
            if moved[0] >= 0 and moved[1] >= 0 and moved[2] <= self.SIDE and moved[3] <= self.SIDE:
                self.box = moved

    def click(self, pos) -> None:
        cell = self.SIDE / 2**self.DEPTH * self.view.s
        ix, iy = int((pos[0] - self.view.ox) // cell), int(pos[1] // cell)
        if 0 <= ix < 2**self.DEPTH and 0 <= iy < 2**self.DEPTH:
            self.clicked = (ix, iy, int(morton.encode(ix, iy)))

    def explain(self) -> dict:
        """The seeds' steps for the box: corner codes, XOR, shift, level, cell, linear index."""
        cell = self.SIDE / 2**self.DEPTH
        top = 2**self.DEPTH - 1
        x0, y0, x1, y1 = self.box
        c0 = int(morton.encode(min(int(x0 // cell), top), min(int(y0 // cell), top)))
        c1 = int(morton.encode(min(int(x1 // cell), top), min(int(y1 // cell), top)))
        lv, idx = morton.locate(self.box, self.bounds, self.DEPTH)
        level, index = int(lv[0]), int(idx[0])
        return {"corners": (c0, c1), "xor": c0 ^ c1, "shift": 2 * (self.DEPTH - level),
                "level": level, "cell": index, "linear": int(morton.linear_index(level, index))}

    def draw(self, pg, surf) -> None:
        font = self.font or pg.font.Font(None, 22)
        self.font = font
        s = self.view.s
        cell = self.SIDE / 2**self.DEPTH
        e = self.explain()
        side = self.SIDE / 2 ** e["level"]
        hx, hy = morton.decode(e["cell"])
        pg.draw.rect(surf, (255, 230, 150), (*self.view.point(hx * side, hy * side),
                                             int(side * s), int(side * s)))
        for iy in range(2**self.DEPTH):
            for ix in range(2**self.DEPTH):
                r = (*self.view.point(ix * cell, iy * cell), int(cell * s), int(cell * s))
                if self.clicked and self.clicked[:2] == (ix, iy):
                    pg.draw.rect(surf, (190, 220, 255), r)
                pg.draw.rect(surf, GRID, r, 1)
                surf.blit(self._label(font, int(morton.encode(ix, iy))), (r[0] + 4, r[1] + 4))
        b = (self.box * s).astype(int)
        pg.draw.rect(surf, RED, (b[0] + self.view.ox, b[1], b[2] - b[0], b[3] - b[1]), 2)

    def _label(self, font, number: int):
        """The rendered Morton number (rendered once: 64 renders a frame cost 30 ms)."""
        labels = self.__dict__.setdefault("labels", {})
        if number not in labels:
            labels[number] = font.render(str(number), True, (90, 90, 90))
        return labels[number]

    def cells(self):
        return morton.locate(self.box, self.bounds, self.DEPTH)

    def info(self) -> str:
        e = self.explain()
        c0, c1 = e["corners"]
        text = (f"corners {c0} ({c0:06b}) {c1} ({c1:06b})  xor {e['xor']:06b}  shift "
                f"{e['shift']}  level {e['level']}  cell {e['cell']}  linear {e['linear']}")
        if self.clicked:
            ix, iy, code = self.clicked
            text += f"   clicked ({ix}, {iy}) = {code}"
        return text


_SCENES = {"rects": (_Rects, 1000), "bullets": (_Bullets, 32), "circles": (_Circles, 500),
           "morton": (_Morton, 1)}


def _scene(name: str, n: int | None):
    cls, default = _SCENES[name]
    return cls(default if n is None else n)


def run(scene: str = "rects", n: int | None = None, method: str = "auto",
        headless: bool = False, frames: int | None = None, screenshot: str | None = None,
        events: list | None = None) -> dict:
    """Open the demo window (or run without one) and animate ``scene``.

    Parameters
    ----------
    scene : str
        One of :data:`SCENES`.
    n : int, optional
        Objects (for ``bullets``: bullets per ring); the seed's count by default.
    method : str
        ``"auto"``, ``"none"`` or a name of :data:`broadphase.METHODS`
        or ``"tree"`` (a :class:`~broadphase.LinearQuadtree` moved frame by
        frame; ``"quadtree"`` searches from scratch each frame).
    headless : bool
        Use SDL's dummy video driver: no window.
    frames : int, optional
        Stop after this many frames (default: when the window is closed).
    screenshot : str, optional
        Save the last frame to this PNG file.
    events : list of pygame events, optional
        Posted before the first frame (tests use it to press keys and click).

    Returns
    -------
    dict
        ``frames``, ``objects``, ``pairs``, ``method``, ``collide_ms``,
        ``draw_ms`` (moving averages) and ``scene`` (the scene object).
    """
    if scene not in _SCENES:
        raise ValueError(f"scene: expected one of {', '.join(SCENES)}; found {scene!r}")
    if method not in METHOD_KEYS:
        raise ValueError(f"method: expected one of {', '.join(METHOD_KEYS)}; found {method!r}")
    if headless:
        os.environ["SDL_VIDEODRIVER"] = "dummy"
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame as pg

    pg.display.init()  # not pg.init(): no sound, no joysticks
    pg.font.init()
    try:
        return _loop(pg, scene, n, method, frames, screenshot, events or [])
    finally:
        pg.quit()


def _loop(pg, name, n, method, frames, screenshot, events) -> dict:
    screen = pg.display.set_mode(WINDOW)
    pg.display.set_caption(f"broadphase demo: {name}")
    font = pg.font.Font(None, 20)
    clock = pg.time.Clock()
    for ev in events:
        pg.event.post(ev)
    state = {"method": method, "paused": False, "cells": False, "frames": 0,
             "collide_ms": 0.0, "draw_ms": 0.0, "scene": _scene(name, n)}
    while frames is None or state["frames"] < frames:
        if not _events(pg, screen, state, name):
            break
        sc = state["scene"]
        if not state["paused"]:
            sc.update()
        t = time.perf_counter()
        sc.collide(state["method"])
        _average(state, "collide_ms", time.perf_counter() - t)
        t = time.perf_counter()
        screen.fill(sc.background)
        sc.draw(pg, screen)
        if state["cells"]:
            levels, cells = sc.cells()
            _draw_cells(pg, screen, sc.view, levels, cells, sc.bounds)
        _average(state, "draw_ms", time.perf_counter() - t)
        _hud(pg, screen, font, sc, state, clock)
        pg.display.flip()
        state["frames"] += 1
        if os.environ.get("SDL_VIDEODRIVER") != "dummy":
            clock.tick(60)
        else:
            clock.tick()
    if screenshot:
        pg.image.save(screen, screenshot)
    sc = state["scene"]
    return {"frames": state["frames"], "objects": sc.n, "pairs": sc.pairs,
            "method": state["method"], "collide_ms": state["collide_ms"],
            "draw_ms": state["draw_ms"], "scene": sc}


def _average(state, key, seconds) -> None:
    state[key] = seconds * 1e3 if state["frames"] == 0 else 0.9 * state[key] + 100 * seconds


def _events(pg, screen, state, name) -> bool:
    """Handle the keys and clicks; False to quit."""
    sc = state["scene"]
    for ev in pg.event.get():
        if ev.type == pg.QUIT or (ev.type == pg.KEYDOWN and ev.key == pg.K_ESCAPE):
            return False
        if ev.type == pg.MOUSEBUTTONDOWN and hasattr(sc, "click"):
            sc.click(ev.pos)
        if ev.type != pg.KEYDOWN:
            continue
        own = hasattr(sc, "keys")  # a scene with keys of its own has no methods or sizes
        if pg.K_0 <= ev.key <= pg.K_0 + len(METHOD_KEYS) - 1 and not own:
            state["method"] = METHOD_KEYS[ev.key - pg.K_0]
        elif ev.key in (pg.K_PLUS, pg.K_EQUALS, pg.K_KP_PLUS, pg.K_MINUS, pg.K_KP_MINUS):
            if own:
                continue
            grow = ev.key in (pg.K_PLUS, pg.K_EQUALS, pg.K_KP_PLUS)
            size = getattr(sc, "ring", sc.n)  # bullets: per ring
            sc = state["scene"] = _scene(name, max(1, size * 2 if grow else size // 2))
        elif ev.key == pg.K_g:
            state["cells"] = not state["cells"]
        elif ev.key == pg.K_SPACE:
            state["paused"] = not state["paused"]
        elif ev.key == pg.K_s:
            path = os.path.abspath(f"broadphase-{name}-{state['frames']}.png")
            pg.image.save(screen, path)
            state["saved"] = (path, time.monotonic())
            print(f"broadphase demo: saved {path}", file=sys.stderr)
        elif hasattr(sc, "key"):
            sc.key(pg, ev.key)
    return True


def _hud(pg, screen, font, sc, state, clock) -> None:
    y = WINDOW[1] - HUD
    pg.draw.rect(screen, (30, 30, 30), (0, y, WINDOW[0], HUD))
    line1 = (f"objects {sc.n:,}   pairs {sc.pairs:,}   method {state['method']}   collision "
             f"{state['collide_ms']:.2f} ms   drawing {state['draw_ms']:.2f} ms   "
             f"fps {clock.get_fps():.0f}" + ("   PAUSED" if state["paused"] else ""))
    saved = state.get("saved")
    if saved and time.monotonic() - saved[1] < SAVED_SECONDS:
        line1 = f"screenshot saved to {saved[0]}"
    for k, text in enumerate((line1, sc.info(), getattr(sc, "keys", HELP))):
        screen.blit(font.render(text, True, WHITE), (8, y + 4 + 18 * k))
