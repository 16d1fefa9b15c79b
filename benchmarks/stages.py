"""Where the time of one grid search goes, stage by stage.

Usage (the figures of docs/benchmarks.md, "Where the time goes")::

    python benchmarks/stages.py --scenario uniform --n 1000000
    python benchmarks/stages.py --scenario bigboxes --n 100000

Runs ``method="grid"`` through the stage hook of ``broadphase._api``
(each stage calls a timer), checks that the result equals ``find_pairs``,
and prints the best and median time of each stage over ``--repeats``
rounds.  ``bigboxes`` is not a named scene: the clustered
scene with 1% of its boxes replaced by squares of 2-20% of the world, whose
rows of thousands of pairs exercise the canonical sort's long-row path.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import broadphase as bp
from broadphase import _api, _cast, scenarios


def bigboxes(n: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    boxes = scenarios.make("clustered", n)
    m = n // 100
    c = rng.uniform(0, 1000, (m, 2))
    s = 0.2 * 1000 * 10 ** rng.uniform(-1, 0, (m, 1)) / 2
    boxes[:m] = np.hstack([c - s, c + s])
    return boxes


def one_search(boxes: np.ndarray, tick) -> np.ndarray:
    """``find_pairs(boxes, method="grid")``, calling ``tick(stage)`` after each stage."""
    arr, bounds = _cast.boxes(boxes)
    tick("validate")
    job = _api._Job(arr, bounds, _api._NO_CIRCLES, _api._NO_GROUPS, _api._NO_BITS,
                    _api._NO_BITS, 0)
    return _api._run_grid(job, tick)


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
