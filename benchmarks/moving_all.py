"""Frames that move every box: ``move`` of all of them and ``pairs()``, nothing else.

Usage (docs/benchmarks.md, "Moving objects"; before and after a change, run
it with each install in turns, ``BEFORE_SITE`` holding the other version as in
docs/benchmarks.md, "Comparing two versions")::

    python benchmarks/moving_all.py
    PYTHONPATH=BEFORE_SITE python benchmarks/moving_all.py

The scene and tree of ``moving.py`` (100,000 boxes, depth 6).  The boxes of
40 frames are made first, then the frames run five times over them, each
timed from ``move`` to the end of ``pairs()`` with no ``find_pairs`` (nor
stepping of the scene) between: the tree's own frame.  Prints the best and
median milliseconds of the 200 frames.
"""

from __future__ import annotations

import time

import numpy as np

from moving import setup


def main(argv=None):
    args, scene, tree, h = setup(argv, __doc__, 40)
    frames = []
    for _ in range(args.frames):
        scene.step(slice(None))
        frames.append(scene.boxes())
    times = []
    for b in frames * 5:
        t = time.perf_counter()
        tree.move(h, b)
        tree.pairs()
        times.append(time.perf_counter() - t)
    print(f"move all + pairs(): {min(times) * 1e3:.2f} ({np.median(times) * 1e3:.2f}) ms, "
          f"best (median) of {len(times)} frames")


if __name__ == "__main__":
    main()
