"""Point pairs in triclinic cells: ours against MDAnalysis and freud, the same pairs.

Usage::

    python benchmarks/triclinic.py                 # both systems
    python benchmarks/triclinic.py --quick         # the protein only, fewer repetitions
    python benchmarks/triclinic.py --n 1000000 --reps 7

The systems:

* ``adk``: ``MDAnalysisTests.datafiles.GRO`` (``adk_oplsaa.gro``), adenylate kinase in
  water with ions, 47,681 atoms, in a triclinic box of 80.017 angstrom with angles 60, 60,
  90 (a rhombic dodecahedron as GROMACS keeps it), first frame; cutoffs 3.5 and 6 angstrom.
* ``points``: ``--n`` points uniform in a cell with vectors ``(L, 0, 0)``,
  ``(0.3 L, L, 0)``, ``(-0.2 L, 0.4 L, L)``, a cutoff giving about 10 neighbours each,
  seed 0; the same points with the period per axis ``L`` (no tilt) beside it.

The cell is MDAnalysis' ``triclinic_vectors(u.dimensions)``, rows ``a, b, c``, given to
ours as ``period=`` and to freud as ``freud.box.Box.from_matrix`` (columns).  Coordinates
are float32 from the file (widened exactly to float64 for ours), as they are; freud's are
wrapped into its box (``Box.wrap``, float32) outside the timings.

The tools, in turns, each the median of ``--reps`` calls:

* ``ours``: ``bp.find_point_pairs(pos, cutoff, period=cell)``, pairs ``|d| < cutoff``;
* ``ours_distances``: the same with ``return_distances=True``;
* ``mdanalysis``: ``MDAnalysis.lib.distances.self_capped_distance(pos, cutoff, box=dims)``
  (pairs and distances, ``|d| <= cutoff``, serial);
* ``freud``: ``AABBQuery(box, p).query(p, {"r_max": cutoff, "exclude_ii": True})``, the
  pairs ``i < j`` kept, float32, at the machine's threads.

``only_ours`` and ``only_<tool>`` count the pairs one side has and the other not: ties and
float32 rounding at the cutoff (MDAnalysis and freud work in single precision).
One JSON line per system and cutoff.  Run nothing else on the machine meanwhile.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import warnings

import numpy as np

import broadphase as bp


def median_ms(f, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def keys(pairs, n):
    p = np.sort(np.asarray(pairs, np.int64).reshape(-1, 2), axis=1)
    return np.unique(p[:, 0] * n + p[:, 1])


def adk():
    import MDAnalysis as mda
    from MDAnalysis.lib import mdamath
    from MDAnalysisTests import datafiles

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the topology's missing masses, elements, ...
        u = mda.Universe(datafiles.GRO)
    dims = np.asarray(u.dimensions)
    cell = mdamath.triclinic_vectors(dims).astype(np.float64)
    return os.path.basename(datafiles.GRO), u.atoms.positions.astype(np.float64), cell, dims


def freud_tool(pos, cell, threads):
    import freud

    freud.parallel.set_num_threads(threads)
    box = freud.box.Box.from_matrix(cell.T)
    p = box.wrap(pos.astype(np.float32))

    def run(cut):
        nl = freud.locality.AABBQuery(box, p).query(
            p, {"r_max": cut, "exclude_ii": True}).toNeighborList()
        q, r = np.asarray(nl.query_point_indices), np.asarray(nl.point_indices)
        keep = q < r
        return np.stack([q[keep], r[keep]], 1)

    return run


def compare(record, name, ours, theirs, n, near):
    """The pairs only one side has, and the largest ``| |d| - cutoff |`` among them.

    ``near``: our pairs and distances within a slightly larger cutoff, and the cutoff.
    """
    a, b = keys(ours, n), keys(theirs, n)
    only_a, only_b = np.setdiff1d(a, b), np.setdiff1d(b, a)
    record[f"only_ours_vs_{name}"] = int(only_a.size)
    record[f"only_{name}"] = int(only_b.size)
    (pairs, dist), cut = near
    at = dict(zip(keys(pairs, n).tolist(), dist[np.argsort(pairs[:, 0] * n + pairs[:, 1])],
                  strict=True))
    gaps = [abs(at[k] - cut) if k in at else np.inf for k in np.union1d(only_a, only_b)]
    record[f"max_gap_vs_{name}"] = float(max(gaps, default=0.0))


def run_system(system, pos, cell, dims, cutoffs, reps, workers):
    from MDAnalysis.lib.distances import self_capped_distance

    n = len(pos)
    freud = freud_tool(pos, cell, os.cpu_count())
    for cut in cutoffs:
        tools = {
            "ours": lambda cut=cut: bp.find_point_pairs(pos, cut, period=cell, workers=workers),
            "ours_distances": lambda cut=cut: bp.find_point_pairs(
                pos, cut, period=cell, return_distances=True, workers=workers),
            "freud": lambda cut=cut: freud(cut),
        }
        if dims is not None:
            tools["mdanalysis"] = lambda cut=cut: self_capped_distance(pos, cut, box=dims)
        else:
            side = float(cell[0, 0])
            tools["ours_no_tilt"] = lambda cut=cut, side=side: bp.find_point_pairs(
                pos, cut, period=side, workers=workers)
        times = {k: [] for k in tools}
        for _ in range(reps):
            for k, f in tools.items():
                times[k].append(median_ms(f, 1))
        record = {"system": system, "atoms": n, "cutoff": cut,
                  "cell": cell.round(6).tolist()}
        record.update({f"{k}_ms": round(statistics.median(v), 1) for k, v in times.items()})
        ours = tools["ours"]()
        record["pairs"] = len(ours)
        near = bp.find_point_pairs(pos, cut * 1.001, period=cell, return_distances=True)
        compare(record, "freud", ours, tools["freud"](), n, (near, cut))
        if "mdanalysis" in tools:
            compare(record, "mdanalysis", ours, tools["mdanalysis"]()[0], n, (near, cut))
        for k in tools:
            if k != "ours":
                record[f"{k}_over_ours"] = round(record[f"{k}_ms"] / record["ours_ms"], 2)
        print(json.dumps(record), flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="points of the synthetic cell")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--quick", action="store_true", help="the protein only, 3 repetitions")
    args = ap.parse_args(argv)
    reps = 3 if args.quick else args.reps
    name, pos, cell, dims = adk()
    run_system(f"adk ({name})", pos, cell, dims, (3.5, 6.0), reps, args.workers)
    if args.quick:
        return
    rng = np.random.default_rng(0)
    side = 100.0
    cell = np.array([[side, 0, 0], [0.3 * side, side, 0], [-0.2 * side, 0.4 * side, side]])
    pts = rng.random((args.n, 3)) @ cell
    cut = float((10 / (4 / 3 * np.pi) * side ** 3 / args.n) ** (1 / 3))
    run_system("points", pts, cell, None, (round(cut, 4),), reps, args.workers)


if __name__ == "__main__":
    main()
