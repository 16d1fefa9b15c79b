"""The "moving" scenario: seed 000's boxes bouncing in their world, frame by frame.

Usage (the figures of docs/benchmarks.md, "Moving objects"; before and after
a change, run it with each install in turns, ``BEFORE_SITE`` holding the
other version as in docs/benchmarks.md, "Comparing two versions")::

    python benchmarks/moving.py --n 100000 --depth 6 --frames 50
    PYTHONPATH=BEFORE_SITE python benchmarks/moving.py --n 100000 --depth 6 --frames 50

Per frame every box moves by its velocity (uniform in [-5, 5) per axis,
reflected at the walls, as in seed 000), then ``LinearQuadtree.move`` on all
of them and ``pairs()``; the same boxes also go through ``find_pairs`` and
the two pair arrays are checked equal.  The tree and ``find_pairs`` take
turns at going first (first, second, second, first, ...): whichever runs
second finds the pool's threads awake and the boxes in cache.  Also timed:
frames that move 1% of the objects (the first handles, then handles
scattered over the table; the rest stand still, as a game's scenery), each
against ``find_pairs`` on the same boxes in the same frame; 200 sprites
(32 x 32 in an 832 x 832 window, depth 4) moving every frame, quiet and
with every CPU busy in another process; and inserting 1,000,000 boxes in
one call into a new tree.  Best and median over ``--frames`` frames.
Uses only the API every version has.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

import broadphase as bp
from broadphase.scenarios import Bouncing


def _stats(times):
    return f"{min(times) * 1e3:.2f} ({np.median(times) * 1e3:.2f})"


def _frames(scene, tree, h, frames, k=None, scattered=False, vary=False):
    """Per frame: step and ``move`` all boxes (or k of them), ``pairs()``, ``find_pairs``.

    The k are the first k handles, or if ``scattered`` k drawn at random
    once (in handle order, as a game's list of moving objects would be),
    whose table rows are spread over the whole table: a cache miss per
    row; with ``vary`` too, k drawn anew every frame (objects that move for
    a frame and rest).  Returns the three lists of seconds; the two pair
    arrays are checked equal every frame.
    """
    rng = np.random.default_rng(7)
    if k is None:
        rows = slice(None)
    elif scattered:
        rows = np.sort(rng.choice(len(h), k, replace=False))
    else:
        rows = slice(0, k)
    t_move, t_pairs, t_find = [], [], []
    hk = h[rows]
    for f in range(frames):
        if vary:
            rows = np.sort(rng.choice(len(h), k, replace=False))
            hk = h[rows]
        scene.step(rows)
        b = scene.boxes()
        bk = b[rows]  # the moving boxes, as a game holds them: picking them is not the tree's
        # whichever runs second finds the threads awake and the boxes in
        # cache: the two take turns at going first (ABBA)
        tree_first = (f + f // 2) % 2 == 0
        if not tree_first:
            t2 = time.perf_counter()
            ref = bp.find_pairs(b)
            t_find.append(time.perf_counter() - t2)
        t = time.perf_counter()
        tree.move(hk, bk)
        t1 = time.perf_counter()
        pairs = tree.pairs()
        t2 = time.perf_counter()
        if tree_first:
            ref = bp.find_pairs(b)
            t_find.append(time.perf_counter() - t2)
        if not np.array_equal(pairs, ref):
            raise AssertionError("the tree and find_pairs disagree")
        t_move.append(t1 - t)
        t_pairs.append(t2 - t1)
    return t_move, t_pairs, t_find


def setup(argv, doc: str, frames: int):
    """Parse ``--n --depth --frames``; the scene and a tree holding its boxes, warmed up.

    Returns ``(args, scene, tree, handles)``; ``find_pairs`` has run once too
    (compile or cache load outside the timing).
    """
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--frames", type=int, default=frames)
    args = ap.parse_args(argv)
    scene = Bouncing(args.n)
    tree = bp.LinearQuadtree((0, 0, scene.world, scene.world), args.depth)
    h = tree.insert(scene.boxes())
    tree.pairs()
    bp.find_pairs(scene.boxes())
    bp.find_pairs(scene.boxes(), method="grid")
    return args, scene, tree, h


def sprites(frames: int) -> list[float]:
    """Seconds of each frame of 200 sprites: ``move`` of all of them and ``pairs()``."""
    rng = np.random.default_rng(0)
    pos, vel = rng.uniform(0, 800, (200, 2)), rng.uniform(-3, 3, (200, 2))
    tree = bp.LinearQuadtree((0, 0, 832, 832), 4)
    h = tree.insert(np.hstack([pos, pos + 32]))
    tree.pairs()
    times = []
    for _ in range(frames):
        pos = (pos + vel) % 800
        b = np.hstack([pos, pos + 32])
        t = time.perf_counter()
        tree.move(h, b)
        p = tree.pairs()
        times.append(time.perf_counter() - t)
    if not np.array_equal(p, bp.find_pairs(b)):
        raise AssertionError("the tree and find_pairs disagree (sprites)")
    return times


def main(argv=None):
    args, scene, tree, h = setup(argv, __doc__, 25)
    t_move, t_pairs, t_find = _frames(scene, tree, h, args.frames)
    t_frame = [m + p for m, p in zip(t_move, t_pairs, strict=True)]
    # one more frame's relinks (stats() places what moved since the tree last placed objects)
    tree.stats()
    scene.step(slice(None))
    tree.move(h, scene.boxes())
    relinked_all = tree.stats()["relinked"]
    k = max(1, args.n // 100)
    t_spread, t_spread_pairs, t_spread_find = _frames(scene, tree, h, args.frames, k,
                                                      scattered=True)
    t_spread_frame = [m + p for m, p in zip(t_spread, t_spread_pairs, strict=True)]
    t_few, t_few_pairs, t_few_find = _frames(scene, tree, h, args.frames, k)
    t_few_frame = [m + p for m, p in zip(t_few, t_few_pairs, strict=True)]
    s = tree.stats()
    relinked = relinked_all
    print(f"moving: n = {args.n:,}, depth {args.depth}, world {scene.world:.0f}, "
          f"{s['pairs']:,} pairs, best (median) ms of {args.frames} frames; "
          f"broadphase {bp.__version__} from {os.path.dirname(bp.__file__)}")
    print(f"  move all            {_stats(t_move)}  ({relinked:,} relinked in the last frame)")
    print(f"  pairs()             {_stats(t_pairs)}")
    print(f"  frame (both)        {_stats(t_frame)}  "
          f"({np.median(t_frame) / np.median(t_find):.2f} x find_pairs, medians)")
    print(f"  find_pairs          {_stats(t_find)}")
    print(f"  move 1%             {_stats(t_few)}  "
          f"({min(t_few) / min(t_move) * 100:.1f}% of moving all; the first 1% of the handles)")
    print(f"  move 1%, scattered  {_stats(t_spread)}  "
          f"({min(t_spread) / min(t_move) * 100:.1f}% of moving all)")
    print(f"  frame, 1% moving    {_stats(t_few_frame)}  (find_pairs {_stats(t_few_find)}: "
          f"{np.median(t_few_frame) / np.median(t_few_find) * 100:.1f}%, medians)")
    print(f"  frame, 1% scattered {_stats(t_spread_frame)}  (find_pairs {_stats(t_spread_find)}: "
          f"{np.median(t_spread_frame) / np.median(t_spread_find) * 100:.1f}%, medians)")
    print(f"  entries at levels   {s['levels'].tolist()}; "
          f"{s['candidate_tests'] / max(1, s['pairs']):.1f} candidate tests per pair")
    quiet = sprites(max(1000, 20 * args.frames))
    cpus = os.cpu_count() or 1
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cpus)]
    try:
        time.sleep(0.5)
        loaded = sprites(max(1000, 20 * args.frames))
    finally:
        for p in busy:
            p.kill()
        for p in busy:
            p.wait()
    us = lambda t: f"{min(t) * 1e6:.1f} ({np.median(t) * 1e6:.1f}) us"  # noqa: E731
    print(f"  200 sprites, frame  {us(quiet)}  (move all + pairs(); with {cpus} busy "
          f"processes {us(loaded)}, {np.median(loaded) / np.median(quiet):.2f} x quiet)")
    big = Bouncing(1_000_000, seed=1)
    bb = big.boxes()
    t_ins = []
    for _ in range(3):
        fresh = bp.LinearQuadtree((0, 0, big.world, big.world), args.depth + 2)
        t = time.perf_counter()
        fresh.insert(bb)
        t_ins.append(time.perf_counter() - t)
        del fresh
    print(f"  insert 1,000,000    {_stats(t_ins)}  (new tree, depth {args.depth + 2}: "
          "cells about as big, the world sqrt(10) times wider)")


if __name__ == "__main__":
    main()
