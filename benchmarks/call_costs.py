"""What a call costs, searches and tree frames: one JSON line of medians.

Usage::

    python benchmarks/call_costs.py

For a before/after comparison, run it under two installs in turns (before,
after, after, before ...), e.g. with the older commit ``OLD`` installed into a
folder ``BEFORE_SITE`` of its own (``BEFORE_SRC`` and ``BEFORE_WHEELS`` are
folders of your choice; docs/benchmarks.md, "Comparing two versions")::

    git worktree add BEFORE_SRC OLD
    pip wheel BEFORE_SRC --no-deps -w BEFORE_WHEELS
    pip install --no-deps --target BEFORE_SITE BEFORE_WHEELS/*.whl
    for r in 1 2 3; do
        PYTHONPATH=BEFORE_SITE python benchmarks/call_costs.py
        python benchmarks/call_costs.py
    done
"""

import json
import statistics
import time

import numpy as np

import broadphase as bp

rng = np.random.default_rng(0)


def median_seconds(f, reps):
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def boxes(n, world):
    lo = rng.uniform(0, world, (n, 2))
    return np.concatenate([lo, lo + rng.uniform(0.5, 2, (n, 2))], 1)


def searches(out):
    few = boxes(200, 60)
    out["find 200 (us)"] = median_seconds(lambda: bp.find_pairs(few), 3000) * 1e6
    for n, reps in ((10_000, 200), (100_000, 40), (1_000_000, 7)):
        b = boxes(n, np.sqrt(n) * 3)
        bp.find_pairs(b)
        out[f"find {n} (ms)"] = median_seconds(lambda b=b: bp.find_pairs(b), reps) * 1e3


def tree_frames(out):
    n = 100_000
    w = np.sqrt(n) * 3
    b = boxes(n, w)
    tree = bp.LinearQuadtree((0, 0, w + 3, w + 3), depth=8)
    h = tree.insert(b)
    tree.pairs()
    idx = np.sort(rng.choice(n, n // 100, replace=False))
    moving, moved = h[idx], b[idx].copy()

    def one_percent():  # 1% scattered over the handles moves
        moved[:] += rng.uniform(-0.1, 0.1, (len(idx), 1))
        tree.move(moving, moved)
        tree.pairs()

    def everything():
        b[:] += 0.01
        tree.move(h, b)
        tree.pairs()

    out["tree 1% of 1e5 frame (ms)"] = median_seconds(one_percent, 200) * 1e3
    out["tree all of 1e5 frame (ms)"] = median_seconds(everything, 30) * 1e3
    sb = boxes(200, 60)
    sprites = bp.LinearQuadtree((0, 0, 64, 64), depth=3)
    sh = sprites.insert(sb)
    sprites.pairs()

    def sprite_frame():
        sb[:] += rng.uniform(-0.1, 0.1)
        sprites.move(sh, sb)
        sprites.pairs()

    out["tree 200 sprites frame (us)"] = median_seconds(sprite_frame, 3000) * 1e6


if __name__ == "__main__":
    results = {}
    searches(results)
    tree_frames(results)
    print(json.dumps(results))
