"""Periodic point pairs against scipy's cKDTree(boxsize) and freud: one JSON line.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/periodic.py               # n = 1e6 points in 3D
    OPENBLAS_NUM_THREADS=1 python benchmarks/periodic.py --n 100000    # a quicker run
    OPENBLAS_NUM_THREADS=1 python benchmarks/periodic.py --dims 2

(``OPENBLAS_NUM_THREADS=1``: NumPy's BLAS threads spin for a while after a
call and would share the cores with the searches timed.)

The scene: ``n`` points uniform in the unit cube (square), periodic on every
axis, and the cutoff that gives about ``--neighbours`` neighbours per point.
Each column is the median of ``--reps`` runs, measured in turns (ours, ours
without the period, ours with distances, cKDTree, freud, ...), so that the
ratios compare times of one run.  ``same pairs`` checks that every tool
returned the same set (freud works in float32: the pairs it reports
differently, all within float32 rounding of the cutoff, are counted).

* ``periodic``: ``bp.find_point_pairs(points, cutoff, period=1)``;
* ``open``: the same without the period;
* ``distances``: periodic, ``return_distances=True``;
* ``ckdtree``: ``cKDTree(points, boxsize=1).query_pairs(cutoff, output_type="ndarray")``
  (the tree's build included; it counts ``<=``, which random points never tie);
* ``freud``: ``freud.locality.AABBQuery(box, points).query(points, {"r_max": cutoff,
  "exclude_ii": True}).toNeighborList()`` with points in freud's ``[-1/2, 1/2)``,
  the pairs ``i < j`` kept (freud lists both orders).

Run nothing else on the machine meanwhile.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import time

import numpy as np
from scipy.spatial import cKDTree

import broadphase as bp
import md_systems  # this folder's: freud's neighbour list as pairs i < j


def cutoff_for(n, dims, neighbours):
    """The cutoff with ``neighbours`` points on average within it, at density ``n``."""
    unit = math.pi if dims == 2 else 4 / 3 * math.pi
    return (neighbours / (unit * n)) ** (1 / dims)


def ours(pts, cut, period=1.0, distances=False):
    return bp.find_point_pairs(pts, cut, period=period, return_distances=distances)


def ckdtree(pts, cut):
    return cKDTree(pts, boxsize=1.0).query_pairs(cut, output_type="ndarray")


def freud_pairs(pts, cut, threads):
    import freud

    freud.parallel.set_num_threads(threads)
    dims = pts.shape[1]
    box = freud.box.Box.cube(1.0) if dims == 3 else freud.box.Box.square(1.0)
    p = np.zeros((len(pts), 3), np.float32)
    p[:, :dims] = pts - 0.5
    return md_systems.freud_pairs(box, p, cut)


def as_set(pairs):
    p = np.sort(np.asarray(pairs, np.int64), axis=1)
    return set(map(tuple, p.tolist())) if len(p) < 3_000_000 else None


def sorted_keys(pairs):
    p = np.sort(np.asarray(pairs, np.int64), axis=1)
    return np.unique(p[:, 0] * (1 << 32) + p[:, 1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--dims", type=int, default=3, choices=(2, 3))
    ap.add_argument("--neighbours", type=float, default=10.0)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-freud", action="store_true")
    args = ap.parse_args()
    threads = len(os.sched_getaffinity(0))
    rng = np.random.default_rng(args.seed)
    pts = rng.random((args.n, args.dims))
    cut = cutoff_for(args.n, args.dims, args.neighbours)
    runs = {
        "periodic": lambda: ours(pts, cut),
        "open": lambda: ours(pts, cut, period=None),
        "distances": lambda: ours(pts, cut, distances=True),
        "ckdtree": lambda: ckdtree(pts, cut),
    }
    try:
        import freud  # noqa: F401
        if not args.no_freud:
            runs["freud"] = lambda: freud_pairs(pts, cut, threads)
    except ImportError:
        pass
    times = {k: [] for k in runs}
    results = {}
    for _ in range(args.reps):
        for name, f in runs.items():
            t = time.perf_counter()
            out = f()
            times[name].append(time.perf_counter() - t)
            results[name] = out
    med = {k: statistics.median(v) for k, v in times.items()}
    want = sorted_keys(results["periodic"])
    same = {"ckdtree": bool(np.array_equal(sorted_keys(results["ckdtree"]), want))}
    if "freud" in results:
        got = sorted_keys(results["freud"])
        same["freud_differs"] = int(len(np.setxor1d(got, want)))
    print(json.dumps({
        "n": args.n, "dims": args.dims, "cutoff": cut, "threads": threads,
        "pairs": int(len(results["periodic"])),
        "pairs_per_point": round(2 * len(results["periodic"]) / args.n, 2),
        "ms": {k: round(1e3 * v, 1) for k, v in med.items()},
        "periodic_over_open": round(med["periodic"] / med["open"], 3),
        "distances_over_periodic": round(med["distances"] / med["periodic"], 3),
        "ckdtree_over_ours": round(med["ckdtree"] / med["periodic"], 2),
        **({"freud_over_ours": round(med["freud"] / med["periodic"], 2)} if "freud" in med
           else {}),
        "same_pairs": same,
    }))


if __name__ == "__main__":
    main()
