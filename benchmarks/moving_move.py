"""``move`` alone, of 1% of the boxes (scattered over the handles) and of all of them.

Usage (docs/benchmarks.md, "Moving objects"; before and after a change, run
it with each install in turns, ``BEFORE_SITE`` holding the other version as in
docs/benchmarks.md, "Comparing two versions")::

    python benchmarks/moving_move.py
    PYTHONPATH=BEFORE_SITE python benchmarks/moving_move.py

The scene and tree of ``moving.py`` (100,000 boxes, depth 6).  Each frame
steps the moving boxes, times ``tree.move`` of them and then calls
``pairs()`` untimed (so that every move starts from a tree brought up to
date, as in a game's loop).  Prints the best and median milliseconds of 60
moves.
"""

from __future__ import annotations

import time

import numpy as np

from moving import setup


def main(argv=None):
    args, scene, tree, h = setup(argv, __doc__, 60)
    rows = np.sort(np.random.default_rng(7).choice(len(h), max(1, args.n // 100), replace=False))
    out = []
    for name, r in (("1% scattered", rows), ("all", slice(None))):
        times = []
        for _ in range(args.frames):
            scene.step(r)
            b = scene.boxes()
            hk, bk = h[r], b[r]
            t = time.perf_counter()
            tree.move(hk, bk)
            times.append(time.perf_counter() - t)
            tree.pairs()
        out.append(f"move {name}: {min(times) * 1e3:.3f} ({np.median(times) * 1e3:.3f}) ms")
    print(" | ".join(out))


if __name__ == "__main__":
    main()
