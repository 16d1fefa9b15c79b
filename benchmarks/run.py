"""Time ``broadphase.find_pairs`` per method on the named scenarios.

Usage (the command behind docs/benchmarks.md)::

    python benchmarks/run.py --markdown docs/benchmarks-table.md

Every timing is the best and the median of ``--repeats`` calls on the same
boxes, after one warm-up call (so JIT compilation, reported apart, is not in
them); the calls of all methods and ``np.argsort`` are interleaved round by
round, and so are the peers', so a slow spell of the machine does not fall
on one column alone.  The peers (scipy ``cKDTree`` + exact filter, shapely ``STRtree`` bulk
query + exact filter) and ``np.argsort`` of n int64 keys are timed in the
same run; every peer's pair set is checked equal to ours before its time is
reported.  Run nothing else on the machine meanwhile.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

import broadphase as bp
from broadphase import scenarios

SIZES = (1_000, 10_000, 100_000, 1_000_000)
# Methods whose cost grows faster than n log n are not run past these sizes.
LIMITS = {"brute": 20_000, "sweep": 100_000}


def timed(fns, repeats):
    """{name: (best, median) seconds} of ``repeats`` rounds, and {name: last result}.

    Each round calls every function once, in turn: a slow spell of the
    machine then hits all of them alike instead of one method's whole series.
    """
    times = {name: [] for name in fns}
    out = {}
    for _ in range(repeats):
        for name, fn in fns.items():
            t = time.perf_counter()
            out[name] = fn()
            times[name].append(time.perf_counter() - t)
    return {name: (min(v), float(np.median(v))) for name, v in times.items()}, out


def _sorted_pairs(i, j):
    p = np.stack([np.minimum(i, j), np.maximum(i, j)], 1).astype(np.intp)
    return p[np.lexsort((p[:, 1], p[:, 0]))]


def ckdtree_pairs(boxes):
    """cKDTree.query_pairs on centres, then the strict box test.

    Two boxes of equal size overlap only if their centres are closer than
    one side in the max norm, so the largest side as Chebyshev radius finds
    a superset that the exact test trims.  Only sensible for equal sizes.
    """
    from scipy.spatial import cKDTree

    r = max((boxes[:, 2] - boxes[:, 0]).max(), (boxes[:, 3] - boxes[:, 1]).max())
    c = (boxes[:, :2] + boxes[:, 2:]) / 2
    p = cKDTree(c).query_pairs(r, p=np.inf, output_type="ndarray")
    b = boxes
    i, j = p[:, 0], p[:, 1]
    ok = (b[i, 0] < b[j, 2]) & (b[j, 0] < b[i, 2]) & (b[i, 1] < b[j, 3]) & (b[j, 1] < b[i, 3])
    return _sorted_pairs(i[ok], j[ok])


def strtree_pairs(boxes):
    """shapely STRtree bulk query (touching counts there), then the strict test."""
    import shapely

    geoms = shapely.box(boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3])
    i, j = shapely.STRtree(geoms).query(geoms)
    keep = i < j
    i, j = i[keep], j[keep]
    b = boxes
    ok = (b[i, 0] < b[j, 2]) & (b[j, 0] < b[i, 2]) & (b[i, 1] < b[j, 3]) & (b[j, 1] < b[i, 3])
    return _sorted_pairs(i[ok], j[ok])


def equal_sizes(boxes):
    """Same width and height up to the rounding of ``centre +- half``."""
    w = boxes[:, 2] - boxes[:, 0]
    h = boxes[:, 3] - boxes[:, 1]
    return bool(np.allclose(w, w[0], rtol=1e-9) and np.allclose(h, h[0], rtol=1e-9))


def first_call_seconds(cache_dir):
    """Seconds of import + first find_pairs in a fresh process using ``cache_dir``."""
    code = (
        "import time; t = time.perf_counter(); import numpy as np, broadphase as bp; "
        "b = np.random.default_rng(0).uniform(0, 100, (1000, 2)); "
        "b = np.hstack([b, b + 3]); t1 = time.perf_counter(); bp.find_pairs(b); "
        "bp.find_circle_pairs(b[:, :2], 1.0); "
        "print(time.perf_counter() - t, time.perf_counter() - t1)"
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    return float(out[0]), float(out[1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, nargs="+", default=list(SIZES))
    ap.add_argument("--scenario", nargs="+", default=list(scenarios.NAMES))
    ap.add_argument("--method", nargs="+", default=["auto", *bp.METHODS])
    ap.add_argument("--repeats", type=int, default=0,
                    help="default: 25 below 1e5, 11 at 1e5, 7 from 1e6 on")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--markdown", help="also write the tables to this file")
    args = ap.parse_args(argv)

    lines = []

    def out(s=""):
        print(s, flush=True)
        lines.append(s)

    with tempfile.TemporaryDirectory() as d:
        cold = first_call_seconds(d)
        warm = first_call_seconds(d)
    out(f"Machine: {platform.machine()}, {os.cpu_count()} cores, {_cpu()}; Python "
        f"{platform.python_version()}, numpy {np.__version__}, numba {_ver('numba')}, "
        f"scipy {_ver('scipy')}, shapely {_ver('shapely')}")
    out()
    out(f"JIT: first call in a new process, import included: {cold[0]:.2f} s with an empty "
        f"cache (compiling), {warm[0]:.2f} s once cached ({warm[1]:.2f} s of it the first "
        "calls themselves).")
    out()
    cols = list(args.method) + ([] if args.no_peers else ["cKDTree", "STRtree"]) + ["argsort"]
    out("Best (median) milliseconds per call; k = pairs found.")
    out()
    out("| scenario | n | k | " + " | ".join(cols) + " |")
    out("|---" * (3 + len(cols)) + "|")
    for name in args.scenario:
        for n in args.n:
            out(_row(name, n, args, cols))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(lines) + "\n")


def _row(name, n, args, cols):
    boxes = scenarios.make(name, n)
    repeats = args.repeats or (25 if n < 100_000 else 11 if n < 1_000_000 else 7)
    cells = {}
    ours = {}
    for m in args.method:
        if n > LIMITS.get(m, n):
            cells[m] = "–"
            continue
        bp.find_pairs(boxes[: min(n, 2000)], method=m)  # compile / load outside the timing
        ours[m] = lambda m=m: bp.find_pairs(boxes, method=m)
    keys = np.random.default_rng(1).integers(0, 2**62, n)
    ours["argsort"] = lambda: np.argsort(keys)
    times, results = timed(ours, repeats)
    results.pop("argsort")
    ref = next(iter(results.values()), None)
    for m, pairs in results.items():
        if not np.array_equal(ref, pairs):
            raise AssertionError(f"{m} disagrees on {name} n={n}")
    peers = {}
    for p, fn in {"cKDTree": ckdtree_pairs, "STRtree": strtree_pairs}.items():
        if p not in cols:
            continue
        if p == "cKDTree" and not equal_sizes(boxes):
            cells[p] = "n/a (sizes differ)"
            continue
        fn(boxes[: min(n, 2000)])  # imports and first-call costs outside the timing
        peers[p] = lambda fn=fn: fn(boxes)
    peer_times, peer_results = timed(peers, max(1, repeats // 2))
    for p, pairs in peer_results.items():
        if ref is not None and not np.array_equal(ref, pairs):
            raise AssertionError(f"{p} disagrees on {name} n={n}")
    for c, (best, med) in {**times, **peer_times}.items():
        cells[c] = f"{best * 1e3:.2f} ({med * 1e3:.2f})"
    k = "?" if ref is None else len(ref)
    return f"| {name} | {n:,} | {k:,} | " + " | ".join(cells.get(c, "") for c in cols) + " |"


def _ver(mod):
    try:
        return __import__(mod).__version__
    except ImportError:
        return "not installed"


def _cpu():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


if __name__ == "__main__":
    main()
