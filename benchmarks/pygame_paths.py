"""The crossovers of ``broadphase.pygame.groupcollide``: each of its paths against pygame's.

Usage (the figures of docs/benchmarks.md, "pygame sprites")::

    python benchmarks/pygame_paths.py

Two groups of n random 6 x 6 rects (a world that grows with n, about the
same density at every n), ``groupcollide(a, b, False, False)`` with rects
and with ``collide_circle``: the small groups' path (``collidelistall`` for
rects, the inline circle test), the search, and pygame's own function.
Best of 15 calls, microseconds.  The crossovers ``_RECT_CROSSOVER`` and
``_CIRCLE_CROSSOVER`` are where the search starts to win.
"""

from __future__ import annotations

import os
import time

import numpy as np

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame  # noqa: E402

import broadphase.pygame as bpg  # noqa: E402


def group(n: int, seed: int) -> pygame.sprite.Group:
    rng = np.random.default_rng(seed)
    side = int(40 * (n / 100) ** 0.5) + 20
    out = []
    for _ in range(n):
        s = pygame.sprite.Sprite()
        s.rect = pygame.Rect(*rng.integers(0, side, 2).tolist(), 6, 6)
        out.append(s)
    return pygame.sprite.Group(out)


def best(f, *args, rounds: int = 15) -> float:
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        f(*args)
        times.append(time.perf_counter() - t)
    return min(times) * 1e6


def main() -> None:
    theirs = bpg._PYGAME["groupcollide"]
    saved = bpg._RECT_CROSSOVER, bpg._CIRCLE_CROSSOVER
    print("shape   n x n   small path us   search us   pygame us")
    for shape, collided, sizes in (("rect", None, (10, 20, 40, 200, 300, 400)),
                                   ("circle", pygame.sprite.collide_circle, (10, 20, 30, 40))):
        for n in sizes:
            a, b = group(n, 1), group(n, 2)
            row = []
            for crossover in (10**12, 0):  # every size takes the small path, then the search
                bpg._RECT_CROSSOVER = bpg._CIRCLE_CROSSOVER = crossover
                row.append(best(bpg.groupcollide, a, b, False, False, collided))
            bpg._RECT_CROSSOVER, bpg._CIRCLE_CROSSOVER = saved
            # fresh sprites for pygame: collide_circle stores radii on the ones it meets
            a, b = group(n, 1), group(n, 2)
            row.append(best(theirs, a, b, False, False, collided))
            print(f"{shape:6}  {n:5}   {row[0]:13.0f}   {row[1]:9.0f}   {row[2]:9.0f}")


if __name__ == "__main__":
    main()
