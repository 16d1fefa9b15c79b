"""``python -m broadphase``: find the pairs of a named scene and time it.

Examples
--------
>>> from broadphase.__main__ import main
>>> main(["--n", "1000", "--scenario", "seed000", "--quiet"])
0
"""

from __future__ import annotations

import argparse
import sys
import time

from . import METHODS, find_pairs, scenarios


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    ap = argparse.ArgumentParser(
        prog="broadphase",
        description="Find every colliding pair among n boxes of a named scene and time it.",
    )
    ap.add_argument("--n", type=int, default=100_000, help="number of boxes (default 100000)")
    ap.add_argument("--scenario", default="uniform", choices=scenarios.NAMES)
    ap.add_argument("--method", default="auto", choices=("auto",) + METHODS)
    ap.add_argument("--repeats", type=int, default=5, help="timed calls after the first")
    ap.add_argument("--quiet", action="store_true", help="print nothing")
    args = ap.parse_args(argv)
    boxes = scenarios.make(args.scenario, args.n)
    t = time.perf_counter()
    pairs = find_pairs(boxes, method=args.method)
    first = time.perf_counter() - t
    best = first
    for _ in range(args.repeats):
        t = time.perf_counter()
        find_pairs(boxes, method=args.method)
        best = min(best, time.perf_counter() - t)
    if not args.quiet:
        print(f"{args.n:,} boxes ({args.scenario}), method {args.method}: "
              f"{len(pairs):,} colliding pairs")
        print(f"first call {first * 1e3:.1f} ms (compiling on a first run, loading cached code "
              f"after), best of {args.repeats} more: {best * 1e3:.3f} ms")
        print("first pairs:", pairs[:5].tolist())
    return 0


if __name__ == "__main__":
    sys.exit(main())
