"""A frame of pygame sprites through ``broadphase.pygame.SpriteIndex`` against the tree's own frame.

Usage (docs/benchmarks.md, "pygame sprites")::

    python benchmarks/sprites.py [--n 500] [--frames 300]

``n`` sprites of 16 x 16 px in an 800 x 600 world, moving up to 3 px a
frame (bouncing off the walls); the moves are computed first, the same for
every contender.  Each frame, in turns:

* ``tree``: the tree's own frame on the same moves, the boxes already a
  float64 array: ``tree.move(handles, boxes)`` and ``tree.pairs()`` (pairs
  as handles);
* ``by hand``: what a game writes without the layer: the rects read into
  ``tree.move(handles, [s.rect for s in sprites])``, ``tree.pairs()``, the
  handles mapped back to sprites;
* ``fast hand``: the same with the fastest reading we know in Python: all
  rects' numbers through one ``np.fromiter`` into a corner array;
* ``index``: ``index.refresh()`` and ``index.pairs()`` (pairs of sprites,
  in the group's order).

Setting the sprites' rects (the game's own work) is not timed.  Prints the
median and best microseconds per frame and the ratios to ``tree``; then the
same with contact events (``tree.update()``, ``index.contacts()``), and the
parts of ``index``'s frame.
"""

from __future__ import annotations

import argparse
import itertools
import os
import time

import numpy as np

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame  # noqa: E402

import broadphase as bp  # noqa: E402
from broadphase.pygame import SpriteIndex  # noqa: E402

W, H, SIZE = 800, 600, 16


def moves(n: int, frames: int, seed: int = 0) -> np.ndarray:
    """``(frames, n, 2)`` integer top-left corners of sprites bouncing in the world."""
    rng = np.random.default_rng(seed)
    pos = np.column_stack([rng.integers(0, W - SIZE, n), rng.integers(0, H - SIZE, n)])
    vel = rng.integers(-3, 4, (n, 2))
    out = np.empty((frames, n, 2), np.int64)
    hi = np.array([W - SIZE, H - SIZE])
    for f in range(frames):
        pos = pos + vel
        out_of = (pos < 0) | (pos > hi)
        vel[out_of] *= -1
        pos = np.clip(pos, 0, hi)
        out[f] = pos
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=500)
    p.add_argument("--frames", type=int, default=300)
    args = p.parse_args(argv)
    n = args.n
    path = moves(n, args.frames + 1)
    depth = bp.suggest_depth((0, 0, W, H), SIZE)
    corners = [np.ascontiguousarray(np.hstack([xy, xy + SIZE]), np.float64) for xy in path]

    def sprites():
        out = []
        for x, y in path[0].tolist():
            s = pygame.sprite.Sprite()
            s.rect = pygame.Rect(x, y, SIZE, SIZE)
            out.append(s)
        return out

    def place(group, f):
        for s, (x, y) in zip(group, path[f].tolist(), strict=True):
            s.rect.topleft = (x, y)

    for events in (False, True):
        tree = bp.LinearQuadtree((0, 0, W, H), depth)
        th = tree.insert(corners[0]).astype(np.int64)
        mine = sprites()
        hand = bp.LinearQuadtree((0, 0, W, H), depth)
        hh = hand.insert([s.rect for s in mine]).astype(np.int64)
        sprite_of = dict(zip(hh.tolist(), mine, strict=True))
        quick = sprites()
        fast = bp.LinearQuadtree((0, 0, W, H), depth)
        fh = fast.insert([s.rect for s in quick]).astype(np.int64)
        quick_of = dict(zip(fh.tolist(), quick, strict=True))
        theirs = sprites()
        index = SpriteIndex((0, 0, W, H), theirs, depth=depth)
        ask_tree = tree.update if events else tree.pairs
        ask_hand = hand.update if events else hand.pairs
        ask_fast = fast.update if events else fast.pairs
        ask_index = index.contacts if events else index.pairs
        ask_tree(), ask_hand(), ask_fast(), ask_index()
        times = {"tree": [], "by hand": [], "fast hand": [], "index": []}
        for f in range(1, args.frames + 1):
            t = time.perf_counter()
            tree.move(th, corners[f])
            ask_tree()
            times["tree"].append(time.perf_counter() - t)

            place(mine, f)
            t = time.perf_counter()
            hand.move(hh, [s.rect for s in mine])
            got = ask_hand()
            for rows in (got if events else (got,)):
                [(sprite_of[i], sprite_of[j]) for i, j in rows.tolist()]
            times["by hand"].append(time.perf_counter() - t)

            place(quick, f)
            t = time.perf_counter()
            xywh = np.fromiter(itertools.chain.from_iterable([s.rect for s in quick]), np.int64,
                               4 * n).reshape(n, 4).astype(np.float64)
            xywh[:, 2:] += xywh[:, :2]
            fast.move(fh, xywh)
            got = ask_fast()
            for rows in (got if events else (got,)):
                [(quick_of[i], quick_of[j]) for i, j in rows.tolist()]
            times["fast hand"].append(time.perf_counter() - t)

            place(theirs, f)
            t = time.perf_counter()
            index.refresh()
            ask_index()
            times["index"].append(time.perf_counter() - t)
        base = np.median(times["tree"])
        what = "contacts" if events else "pairs"
        print(f"{n} sprites, {what} per frame ({args.frames} frames, median / best us, "
              f"ratio of medians to tree):")
        for name, ts in times.items():
            print(f"  {name:8s} {np.median(ts) * 1e6:8.1f} / {min(ts) * 1e6:7.1f}"
                  f"   x{np.median(ts) / base:.2f}")
    parts(theirs, index, place, args.frames)


def parts(group, index, place, frames) -> None:
    """The parts of the index's frame: rects read and moved, the tree's pairs, sprites out."""
    from broadphase import _core

    reads, trees, outs = [], [], []
    for f in range(1, frames + 1):
        place(group, f)
        t0 = time.perf_counter()
        index._box_at = _core.refresh_rects(index._tree._t, index._order, index._attr,
                                            index._handles, index._box_at)
        index._current = None
        t1 = time.perf_counter()
        index._pairs()
        t2 = time.perf_counter()
        index.pairs()
        t3 = time.perf_counter()
        reads.append(t1 - t0), trees.append(t2 - t1), outs.append(t3 - t2)
    print("  index's parts (median us): rects read, compared and moved "
          f"{np.median(reads) * 1e6:.1f}, the tree's pairs {np.median(trees) * 1e6:.1f}, "
          f"sprites out {np.median(outs) * 1e6:.1f}")


if __name__ == "__main__":
    main()
