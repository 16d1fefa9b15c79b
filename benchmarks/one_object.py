"""One-object calls on a 10,000-object tree against pygame's ``Rect.collidelistall``.

A game asks the tree about one sprite at a time (what it touches, what is
under the mouse, its new place): each such call should cost about what
pygame's own test of one rect against a list costs.  This times, in one
process, ``Rect.collidelistall`` over 200 rects and each one-object call of
:class:`broadphase.LinearQuadtree` with plain Python arguments (ints, float
tuples, pygame rects) on a tree of 10,000 boxes, and prints a table: the
call, its time per call (the best of ``--repeats`` runs of ``--calls``
calls), and its ratio to ``collidelistall`` (the circles' calls on circles
put in the tree for them); then a ray cast of one
segment ten sprites long, which walks the tree's own cells (not a
one-object call: for scale), and the same cast with no end (``max_t``
infinite), which builds a grid over all the objects.

    python benchmarks/one_object.py
    python benchmarks/one_object.py --objects 10000 --calls 20000 --repeats 7
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np  # noqa: E402
import pygame  # noqa: E402

import broadphase as bp  # noqa: E402


def per_call(fn, calls: int, repeats: int) -> float:
    """Best time per call, in microseconds, of ``fn(k)`` for ``k`` in ``range(calls)``."""
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter_ns()
        for k in range(calls):
            fn(k)
        best = min(best, (time.perf_counter_ns() - t) / calls)
    return best / 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--objects", type=int, default=10_000)
    ap.add_argument("--calls", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--only-inserts", action="store_true",
                    help="time insert and remove only (for a profiler)")
    args = ap.parse_args()
    n, calls, repeats = args.objects, args.calls, args.repeats

    # a world of 32-pixel sprites, about 4 neighbours' worth of area each
    size = 32
    world = float(int(np.sqrt(n) * size * 2))
    rng = np.random.default_rng(0)
    xy = rng.integers(0, int(world) - size, (n, 2))
    rects = [pygame.Rect(int(x), int(y), size, size) for x, y in xy]
    tree = bp.LinearQuadtree.for_objects((0, 0, world, world), typical_size=size)
    handles = tree.insert(rects).tolist()
    tree.pairs()
    some = [(int(x), int(y)) for x, y in rng.integers(0, int(world) - size, (calls, 2))]
    boxes = [(float(x), float(y), float(x + size), float(y + size)) for x, y in some]
    qrects = [pygame.Rect(x, y, size, size) for x, y in some]
    points = [(x + 0.5, y + 0.5) for x, y in some]
    hs = [handles[k % n] for k in range(calls)]

    two_hundred = rects[:200]
    probe = [pygame.Rect(x, y, size, size) for x, y in some]

    def moved(k):
        h = hs[k]
        r = rects[h]
        return (r.x + 0.5 * (k & 1), r.y, r.x + size + 0.5 * (k & 1), r.y + size)

    moves = [moved(k) for k in range(calls)]
    angle = rng.uniform(0, 2 * np.pi, calls)
    shots = [[(10 * size * np.cos(a), 10 * size * np.sin(a))] for a in angle.tolist()]
    from_ = [[p] for p in points]
    move_rects = [pygame.Rect(rects[h].x + (k & 1), rects[h].y, size, size)
                  for k, h in enumerate(hs)]

    rows = [("Rect.collidelistall, 200 rects", lambda k: probe[k].collidelistall(two_hundred))]
    rows += [
        ("touching(h)", lambda k: tree.touching(hs[k])),
        ("query((x0, y0, x1, y1))", lambda k: tree.query(boxes[k])),
        ("query(Rect)", lambda k: tree.query(qrects[k])),
        ("query_point(x, y)", lambda k: tree.query_point(*points[k])),
        ("move(h, (x0, y0, x1, y1))", lambda k: tree.move(hs[k], moves[k])),
        ("move(h, Rect)", lambda k: tree.move(hs[k], move_rects[k])),
        ("h in tree", lambda k: hs[k] in tree),
        ("boxes(h)", lambda k: tree.boxes(hs[k])),
        ("cast_rays: one segment", lambda k: tree.cast_rays(from_[k], shots[k], max_t=1.0)),
        ("cast_rays: one ray, no end", lambda k: tree.cast_rays(from_[k], shots[k])),
    ]
    if args.only_inserts:
        rows = rows[:1]
    results = []
    for name, fn in rows:
        if name.endswith("no end"):  # a grid of every object per call: fewer calls
            results.append((name, per_call(fn, max(calls // 100, 10), repeats)))
        elif name.startswith("move"):
            results.append((name, per_call(fn, calls, repeats)))
            tree.pairs()  # the moves placed: the next calls start from a tree in sync
        else:
            results.append((name, per_call(fn, calls, repeats)))

    # insert then remove of one box: the tree back to its size after each run
    def insert_remove(kind):
        best_in, best_out = float("inf"), float("inf")
        for _ in range(repeats):
            got = []
            t = time.perf_counter_ns()
            for k in range(calls):
                if kind == "circle":
                    got.append(tree.insert_circles(points[k], size / 2))
                else:
                    got.append(tree.insert(boxes[k] if kind == "tuple" else qrects[k]))
            best_in = min(best_in, (time.perf_counter_ns() - t) / calls)
            new = [int(h[0]) for h in got]
            t = time.perf_counter_ns()
            for h in new:
                tree.remove(h)
            best_out = min(best_out, (time.perf_counter_ns() - t) / calls)
            tree.pairs()
        return best_in / 1000, best_out / 1000

    ins, out = insert_remove("tuple")
    results.append(("insert((x0, y0, x1, y1))", ins))
    results.append(("remove(h)", out))
    ins, _ = insert_remove("rect")
    results.append(("insert(Rect)", ins))
    ins, _ = insert_remove("circle")
    results.append(("insert_circles((x, y), r)", ins))
    # moves of circles: a hundred of them in the tree for the purpose
    circles = tree.insert_circles(np.array(points[:100]), size / 2).tolist()
    tree.pairs()
    results.append(("move_circles(h, (x, y))", per_call(
        lambda k: tree.move_circles(circles[k % 100], points[k]), calls, repeats)))
    tree.remove(circles)
    tree.validate()

    base = results[0][1]
    print(f"{n:,} objects in the tree (depth {tree.depth}), {calls:,} calls, best of {repeats}")
    print(f"{'call':34} {'µs':>7} {'ratio':>7}")
    for name, us in results:
        print(f"{name:34} {us:7.2f} {us / base:7.2f}")


if __name__ == "__main__":
    main()
