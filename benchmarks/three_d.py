"""3D searches against scipy's cKDTree and against the 2D search: one JSON line.

Usage::

    python benchmarks/three_d.py                 # n = 1e6 and the growth from 1e4
    python benchmarks/three_d.py --n 100000      # a quicker run

Scenes: ``broadphase.scenarios``' 3D scenes (the ones ``broadphase bench``
and the tests use), in a cube of side 1000, about 2 pairs per object:

* **uniform3d**: equal cubes at uniform places;
* **mixed3d**: cube sides spread over 1.2 decades;
* **clustered3d**: 50 dense clouds (cubes a third of uniform3d's side);
* **spheres**: radii over a decade (``r_max = 10 r_min``), uniform places.

Peers: ``cKDTree`` of the centres with ``query_pairs`` plus the exact filter in
NumPy.  Equal cubes collide when the centres' Chebyshev distance is below the
side: ``query_pairs(side, p=inf)``; cubes of several sizes, within the
largest side; spheres, within ``2 r_max`` (Euclidean).  The filter keeps the
strict overlaps, so both sides return the same pairs (checked).

``2d ratio``: the 3D search over the 2D search (``broadphase``'s uniform
scene) at the same ``n`` and about the same pairs per box.  ``growth``: time
at ``n`` over time at ``n / 10``, per scene.

Each figure is the median of ``--reps`` runs (the peer: fewer, it is slow);
the ratios compare times measured in the same run, in turns.  Run nothing
else on the machine meanwhile.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from scipy.spatial import cKDTree

import broadphase as bp
from broadphase import scenarios

BOXES = scenarios.NAMES_3D  # uniform3d, mixed3d, clustered3d
SPHERES = "spheres"


def scene(name, n, seed=0):
    """The scene's data: (n, 6) boxes, or (centres, radii) for the spheres."""
    if name == SPHERES:
        return scenarios.make_spheres(name, n, seed)
    return scenarios.make_3d(name, n, seed)


def ours(name, data):
    if name == SPHERES:
        return bp.find_circle_pairs(*data)
    return bp.find_pairs(data)


def peer(name, data):
    """cKDTree of the centres, ``query_pairs`` and the exact filter."""
    if name == SPHERES:
        c, r = data
        p = cKDTree(c).query_pairs(2 * r.max(), output_type="ndarray")
        d2 = ((c[p[:, 0]] - c[p[:, 1]]) ** 2).sum(1)
        keep = d2 < (r[p[:, 0]] + r[p[:, 1]]) ** 2
    else:
        c = (data[:, :3] + data[:, 3:]) / 2
        sides = data[:, 3:] - data[:, :3]
        p = cKDTree(c).query_pairs(sides.max(), p=np.inf, output_type="ndarray")
        a, b = data[p[:, 0]], data[p[:, 1]]
        keep = ((a[:, :3] < b[:, 3:]) & (b[:, :3] < a[:, 3:])).all(1)
    p = p[keep]
    p.sort(1)
    return p[np.lexsort((p[:, 1], p[:, 0]))]


def median_seconds(f, reps, *args):
    """Median seconds of ``f(*args)`` over ``reps`` runs."""
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        f(*args)
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--peer-reps", type=int, default=2)
    args = ap.parse_args()
    n = args.n
    out = {"n": n}
    for name in (*BOXES, SPHERES):
        data = scene(name, n)
        got = ours(name, data)
        assert np.array_equal(got, peer(name, data)), name
        t_ours = median_seconds(ours, args.reps, name, data)
        t_peer = median_seconds(peer, args.peer_reps, name, data)
        out[name] = {
            "pairs per box": round(len(got) / n, 2),
            "ms": round(t_ours * 1e3, 1),
            "cKDTree ms": round(t_peer * 1e3, 1),
            "x cKDTree": round(t_peer / t_ours, 1),
        }
        if name != SPHERES:
            small = scene(name, n // 10)
            t_small = median_seconds(ours, args.reps, name, small)
            out[name]["growth"] = round(t_ours / t_small, 1)
    # the 2D search at the same n and about the same pairs per box, in turns
    d3 = scene("uniform3d", n)
    d2 = scenarios.make("uniform", n)
    t3, t2 = [], []
    for _ in range(args.reps):
        t3.append(median_seconds(bp.find_pairs, 1, d3))
        t2.append(median_seconds(bp.find_pairs, 1, d2))
    out["2d"] = {
        "pairs per box 3d": round(len(bp.find_pairs(d3)) / n, 2),
        "pairs per box 2d": round(len(bp.find_pairs(d2)) / n, 2),
        "3d ms": round(np.median(t3) * 1e3, 1),
        "2d ms": round(np.median(t2) * 1e3, 1),
        "3d / 2d": round(np.median(t3) / np.median(t2), 2),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
