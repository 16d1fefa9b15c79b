"""Where the time of one ``LinearQuadtree`` frame goes, stage by stage, beside ``find_pairs``.

Usage (the figures of docs/benchmarks.md, "Moving objects")::

    python benchmarks/frame_stages.py --n 100000 --depth 6

Seed 000's bouncing boxes (``scenarios.Bouncing``); per frame, the steps of
``tree.move(h, boxes)`` and ``tree.pairs()`` are run one by one with a timer
between them, then ``find_pairs(method="grid")`` (the Rust core, one stage);
the two pair arrays are checked equal.  Prints the
best and median time of each stage over ``--frames`` frames.
"""

from __future__ import annotations

import time

import numpy as np

import broadphase as bp
import moving
from broadphase import _numba_walk
from broadphase._kernels import dynamic as _dyn


def _timer(times: dict):
    last = [time.perf_counter()]

    def tick(stage):
        t = time.perf_counter()
        times.setdefault(stage, []).append(t - last[0])
        last[0] = t
    return tick


def tree_frame(tree, h, boxes, tick):
    """``tree.move(h, boxes)`` then ``tree.pairs()``, their steps timed apart."""
    tree.move(h, boxes)  # one kernel checks, stores and places
    tick("move")
    skeys, sobjs = tree._sorted_entries()
    tick("pairs: refresh order")
    _dyn.stream_rows(tree._boxes[:tree._hwm], 2)
    tree._nplaced = 0
    tick("pairs: stream boxes")
    pairs = _numba_walk.walk_sorted(skeys, sobjs, tree._boxes, tree._bounds[0],
                                    tree._bounds[1], tree._sx, tree._sy, tree._depth,
                                    tree._narrow(), tree._hwm)[0]
    tick("pairs: walk")
    return pairs


def main(argv=None):
    args, scene, tree, h = moving.setup(argv, __doc__, 40)
    ours: dict = {}
    theirs: dict = {}
    for _ in range(args.frames):
        scene.step()
        b = scene.boxes()
        t = time.perf_counter()
        got = tree_frame(tree, h, b, _timer(ours))
        ours.setdefault("frame", []).append(time.perf_counter() - t)
        t = time.perf_counter()
        want = bp.find_pairs(b, method="grid")
        theirs.setdefault("find_pairs (grid)", []).append(time.perf_counter() - t)
        if not np.array_equal(got, want):
            raise AssertionError("the tree and find_pairs disagree")
    for title, times in (("LinearQuadtree frame", ours), ("find_pairs", theirs)):
        print(f"{title}: best (median) ms of {args.frames} frames")
        for stage, v in times.items():
            print(f"  {stage:24s} {min(v) * 1e3:7.3f} ({np.median(v) * 1e3:.3f})")


if __name__ == "__main__":
    main()
