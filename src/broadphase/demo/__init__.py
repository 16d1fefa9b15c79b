"""``broadphase demo``: the seeds' scenes live in a pygame-ce window.

Scenes (each reproduces its seed): ``rects`` (seed 000: boxes bouncing,
black when free, red when touching), ``bullets`` (seed 003: ten emitters
firing rings of bullets; one emitter's bullets never collide; ``F`` makes
them fast enough to pass through each other between two frames, ``W``
switches swept pairs on, which catch those, drawn in yellow), ``circles``
(seed 002: moving circles), ``morton`` (seeds 001 and 004: the level-3
grid with its Morton numbers, and a box whose cell is worked out step by
step) and ``sight`` (rays from the mouse to the first wall each meets, cast
in one call).  Keys: ``0`` no collision, ``1`` brute, ``2`` sweep, ``3`` grid,
``4`` tree (a :class:`~broadphase.LinearQuadtree` moved frame by frame),
``5`` auto, ``6`` quadtree (searched from scratch each frame); ``+``/``-``
double/halve the objects; ``G`` the quadtree cells in use; ``Space`` pause;
``S`` screenshot (the HUD says where it went); ``Esc`` quit.  In ``morton``
the arrow keys move the box and a click shows a cell's Morton number; in
``sight`` the eye follows the mouse; the HUD lists each scene's own keys.

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

from ._bullets import _Bullets

# the colours and the view are the scenes' (and the tests') as much as the loop's
from ._draw import (  # noqa: F401
    ARRAY_DRAW,
    BLACK,
    CYAN,
    HUD,
    RED,
    WHITE,
    WINDOW,
    _draw_cells,
    _View,
)
from ._morton import _Morton
from ._scenes import _Circles, _Rects
from ._sight import _Sight

__all__ = ["SCENES", "run"]

SCENES = ("rects", "bullets", "circles", "morton", "sight")
#: Keys 0-6: no collision, then the methods ("tree": the moving LinearQuadtree).
METHOD_KEYS = ("none", "brute", "sweep", "grid", "tree", "auto", "quadtree")
HELP = ("0 none 1 brute 2 sweep 3 grid 4 tree (moving) 5 auto 6 quadtree  "
        "+/- objects  G cells  Space pause  S save  Esc quit")
SAVED_SECONDS = 4.0  # how long the HUD says where a screenshot went


_SCENES = {"rects": (_Rects, 1000), "bullets": (_Bullets, 32), "circles": (_Circles, 500),
           "morton": (_Morton, 1), "sight": (_Sight, 360)}


def _scene(name: str, n: int | None):
    cls, default = _SCENES[name]
    return cls(default if n is None else n)


def run(scene: str = "rects", n: int | None = None, method: str = "auto",
        headless: bool = False, frames: int | None = None, screenshot: str | None = None,
        events: list | None = None, keys: str = "") -> dict:
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
    keys : str
        Keys pressed before the first frame, one character each, after
        ``events``: ``"G"`` shows the quadtree cells, ``"FW"`` makes the
        bullets fast and shows the swept pairs (letters, digits, ``+``, ``-``).

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
    for k, ch in enumerate(keys):
        if not (ch.isascii() and (ch.isalnum() or ch in "+-")):
            raise ValueError(f"keys[{k}]: expected a letter, a digit, + or -; found {ch!r}")
    if headless:
        os.environ["SDL_VIDEODRIVER"] = "dummy"
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame as pg

    pg.display.init()  # not pg.init(): no sound, no joysticks
    pg.font.init()
    try:
        pressed = [pg.event.Event(pg.KEYDOWN, key=ord(ch.lower())) for ch in keys]
        return _loop(pg, scene, n, method, frames, screenshot, [*(events or []), *pressed])
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
        if ev.type == pg.MOUSEMOTION and hasattr(sc, "aim"):
            sc.aim(ev.pos)
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
