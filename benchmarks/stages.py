"""Where the time of one search goes, stage by stage (the Rust core's stage hook).

Usage (the figures of docs/benchmarks.md, "Where the time of a search goes")::

    python benchmarks/stages.py --scenario uniform --n 1000000
    python benchmarks/stages.py --scenario mixed --n 1000000 --method quadtree

Runs the search of ``find_pairs`` through ``broadphase._core.stages``, which
times each stage inside the core (validation, placement, entries, radix sort,
gather, walk, canonical order), checks the pair count against
``find_pairs``, and prints the best and median milliseconds of each stage
over ``--repeats`` rounds.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import broadphase as bp
from broadphase import _core, scenarios


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="uniform", choices=scenarios.NAMES)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--method", default="grid", choices=("grid", "quadtree", "sweep", "brute"))
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args(argv)
    boxes = np.ascontiguousarray(scenarios.make(args.scenario, args.n), np.float64)
    want = len(bp.find_pairs(boxes, method=args.method, workers=args.workers))
    times: dict[str, list[float]] = {}
    for _ in range(args.repeats):
        t = time.perf_counter()
        stages, k = _core.stages(boxes, args.method, args.workers)
        total = (time.perf_counter() - t) * 1e3
        if k != want:
            raise AssertionError(f"{k} pairs, find_pairs found {want}")
        for name, ms in stages + [("total", total)]:
            times.setdefault(name, []).append(ms)
    print(f"{args.scenario} n={args.n:,} {args.method} workers={args.workers}: {want:,} pairs; "
          f"best (median) ms of {args.repeats}")
    for name, v in times.items():
        print(f"  {name:16s} {min(v):8.2f} ({np.median(v):.2f})")


if __name__ == "__main__":
    main()
