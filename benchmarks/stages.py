"""Where the time of one grid search goes, stage by stage.

Usage (the figures of docs/benchmarks.md, "Where the time goes")::

    python benchmarks/stages.py --scenario uniform --n 1000000
    python benchmarks/stages.py --scenario bigboxes --n 100000

Runs the stages of ``method="grid"`` one by one with the library's own
building blocks (``broadphase._api``), checks that their result equals
``find_pairs``, and prints the best and median time of each over
``--repeats`` rounds.  ``bigboxes`` is not a named scene: the clustered
scene with 1% of its boxes replaced by squares of 2-20% of the world, whose
rows of thousands of pairs exercise the canonical sort's long-row path.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import broadphase as bp
from broadphase import _api, _cast, _work, _world, scenarios
from broadphase._chunks import _IDX, _offsets, balanced, chunk_count
from broadphase._kernels import grid as _grid
from broadphase._kernels import quadtree as _qt
from broadphase._kernels import radix as _radix
from broadphase._kernels.pairs import canonical


def bigboxes(n: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    boxes = scenarios.make("clustered", n)
    m = n // 100
    c = rng.uniform(0, 1000, (m, 2))
    s = 0.2 * 1000 * 10 ** rng.uniform(-1, 0, (m, 1)) / 2
    boxes[:m] = np.hstack([c - s, c + s])
    return boxes


def one_search(boxes: np.ndarray, tick) -> np.ndarray:
    """``_run_grid`` + ``_walk_cells`` written out, calling ``tick(stage)`` after each stage."""
    arr, bounds = _cast.boxes(boxes)
    tick("validate")
    n = arr.shape[0]
    x0, y0 = bounds[0], bounds[1]
    half = _api._half(bounds)
    depth = _api.grid_depth(arr, half)
    levels, nrep = _api._placement(n)
    while True:
        scale = _world.scale(half, 2.0**depth)
        _grid.place_finest(arr, x0, y0, scale, depth, levels, nrep)
        if depth <= 1 or float(nrep.sum(dtype=np.float64)) <= _api.GRID_BUDGET * n + 1024:
            break
        depth -= 1
    tick("place")
    starts = _work.buffer("starts", n + 1, np.int64)
    starts[0] = 0
    np.cumsum(nrep, out=starts[1:])
    m = int(starts[-1])
    keys = _work.buffer("ka", m, np.int64)
    objs = _work.buffer("va", m, _IDX)
    _qt.entries(arr, x0, y0, scale, depth, levels, starts, keys, objs)
    tick("entries")
    skeys, sobjs = _api._sorted_entries(keys, objs, 2 * depth + _qt.KEY_EXTRA_BITS)
    tick("radix sort")
    first = _radix.run_starts(skeys, _qt.SUB_BITS)
    maxstack = _qt.max_stack(skeys, first, depth)
    tick("cells")
    cols = [_work.buffer(f"c{t}", m, np.float64) for t in range(4)]
    cols += [_work.buffer(f"q{t}", m, _IDX) for t in range(2)]
    _qt.gather(sobjs, arr, x0, y0, scale, depth, *cols)
    tick("gather")
    nchunks = chunk_count(m, grain=1024)
    cb = balanced(first, nchunks)
    job = _api._Job(arr, bounds, _api._NO_CIRCLES, _api._NO_GROUPS, _api._NO_BITS,
                    _api._NO_BITS, 0)
    args = (skeys, sobjs, first, *cols, x0, scale, depth, maxstack, cb) + job.narrow()
    caps = np.full(nchunks, 40 * n // nchunks + 64, np.int64)  # no re-run: room for 40 n
    offsets = _offsets(caps)
    pi = _work.buffer("pi", int(caps.sum()), _IDX)
    pj = _work.buffer("pj", int(caps.sum()), _IDX)
    counts = np.zeros(nchunks, np.int64)
    _qt.walk(*args, np.arange(nchunks, dtype=np.int64), offsets, caps, pi, pj, counts)
    tick("walk")
    if (counts > caps).any():
        raise RuntimeError("more than 40 pairs per box: raise the capacity in one_search")
    k = int(counts.sum())
    out = canonical(pi, pj, offsets, counts, n, _work.buffer("ti", k, _IDX),
                    _work.buffer("tj", k, _IDX), np.empty((k, 2), np.intp))
    tick("canonical order")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenario", default="uniform", choices=(*scenarios.NAMES, "bigboxes"))
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=9)
    args = ap.parse_args(argv)
    boxes = bigboxes(args.n) if args.scenario == "bigboxes" else scenarios.make(args.scenario,
                                                                               args.n)
    ref = bp.find_pairs(boxes, method="grid")
    times: dict[str, list[float]] = {}
    whole = []
    for _ in range(args.repeats):
        last = [time.perf_counter()]

        def tick(stage, last=last):
            now = time.perf_counter()
            times.setdefault(stage, []).append(now - last[0])
            last[0] = now

        got = one_search(boxes, tick)
        t = time.perf_counter()
        bp.find_pairs(boxes, method="grid")
        whole.append(time.perf_counter() - t)
    if not np.array_equal(got, ref):
        raise AssertionError("the stages disagree with find_pairs")
    print(f"{args.scenario}, n = {args.n:,}, {len(ref):,} pairs; best (median) ms "
          f"of {args.repeats}")
    for stage, v in times.items():
        print(f"  {stage:16s} {min(v) * 1e3:8.2f} ({np.median(v) * 1e3:.2f})")
    total = sum(min(v) for v in times.values())
    print(f"  {'sum of stages':16s} {total * 1e3:8.2f}")
    print(f"  {'find_pairs':16s} {min(whole) * 1e3:8.2f} ({np.median(whole) * 1e3:.2f})")


if __name__ == "__main__":
    main()
