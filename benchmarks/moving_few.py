"""Only the 1% frames of ``benchmarks/moving.py``: before/after turns of the incremental path.

Usage (docs/benchmarks.md, "Moving objects"; before and after a change, run
it with each install in turns, ``BEFORE_SITE`` holding the other version as in
docs/benchmarks.md, "Comparing two versions")::

    python benchmarks/moving_few.py --n 100000 --depth 6 --frames 50
    PYTHONPATH=BEFORE_SITE python benchmarks/moving_few.py --n 100000 --depth 6 --frames 50

The scene and tree of ``moving.py``; frames moving 1% of the boxes scattered
over the handles, then the first 1% (each ``move``, ``pairs()``, then
``find_pairs`` on the same boxes, the arrays checked equal), then 1% drawn
anew every frame (objects that move for a frame and rest).  Prints the
median frame (``move`` and ``pairs()``) and its share of ``find_pairs``'
median, without the frames that move everything first (which leave the
lists to be laid out anew).
"""

from __future__ import annotations

import numpy as np

from moving import _frames, setup


def main(argv=None):
    args, scene, tree, h = setup(argv, __doc__, 50)
    k = max(1, args.n // 100)
    out = []
    for name, scattered, vary in (("scattered", True, False), ("first", False, False),
                                  ("a new set each frame", True, True)):
        t_move, t_pairs, t_find = _frames(scene, tree, h, args.frames, k, scattered=scattered,
                                          vary=vary)
        frame = np.median(np.add(t_move, t_pairs))
        find = np.median(t_find)
        out.append(f"1% {name}: {frame * 1e3:.3f} ms, {frame / find * 100:.1f}% of find_pairs")
    print(" | ".join(out))


if __name__ == "__main__":
    main()
