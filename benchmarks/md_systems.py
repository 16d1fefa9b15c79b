"""Solvated molecular systems: our point pairs against MDAnalysis, freud and cKDTree.

Usage::

    python benchmarks/md_systems.py                  # both systems, 3.5 and 6 angstrom
    python benchmarks/md_systems.py --quick          # one system, one cutoff
    python benchmarks/md_systems.py --reps 7 --workers 2
    python benchmarks/md_systems.py --systems water --cutoffs 3.5

The data are test files shipped by the MDAnalysisTests package (the test suite of
MDAnalysis, ``pip install MDAnalysisTests``), read with MDAnalysis, first frame:

* ``water``: ``MDAnalysisTests.datafiles.GRO_large`` (``bigbox.gro.bz2``), a box of
  SPC-type water, 132,303 atoms (44,101 molecules of 3 atoms), cubic box of 110 x 110 x 110
  angstrom, angles 90, 90, 90.  The largest orthorhombic solvated system of the package.
* ``ab42``: ``MDAnalysisTests.datafiles.TPR460`` (``ab42_gmx_4.6.tpr``), amyloid-beta
  (1-42) peptides in water with ions, 44,052 atoms (42,120 of them water), orthorhombic box
  of 65.6 x 43.62 x 120 angstrom: the largest solvated protein of the package in an
  orthorhombic box, and a box with three different periods.

(The adenylate kinase system ``GRO``/``TPR``, 47,681 atoms, is in a triclinic box with
angles 60, 60, 90, which ``find_point_pairs`` does not take; ``--systems cobrotoxin`` adds
``PDB_sub_sol``, cobrotoxin in water, 19,385 atoms, cubic box of 52.84 angstrom.)

The coordinates come in float32 (GROMACS stores nanometres to 3 decimals); they are widened
to float64 exactly and some lie a little outside the box: they are given as they are to
ours and to MDAnalysis, wrapped into ``[0, L)`` for cKDTree (exactly: for float32
coordinates and periods, ``x - k L`` needs fewer than 53 bits), wrapped, centred and cast to
float32 for freud, as its boxes require.  These conversions are made once, outside the
timings.  The period is ``u.dimensions[:3]``, the same float32 values for every tool.

Cutoffs: 3.5 angstrom, the donor-acceptor distance of a geometric hydrogen bond (GROMACS'
``gmx hbond`` default, 0.35 nm); 6 angstrom, a usual radius of analysis neighbour lists
(contacts, the first hydration shells).  Counting every atom, hydrogens included, the
water box has about 16 neighbours per atom within 3.5 angstrom (ab42 22) and 89 within 6
(ab42 115): the second is a heavy output (5.9 million pairs in the water box).

The tools, measured in turns (each the median of ``--reps`` calls):

* ``ours``: ``bp.find_point_pairs(pos, cutoff, period=box[:3], workers=...)``, pairs
  ``|d| < cutoff``;
* ``ours_distances``: the same with ``return_distances=True``;
* ``mdanalysis``: ``MDAnalysis.lib.distances.self_capped_distance(pos, cutoff,
  box=u.dimensions)``, its automatic method (recorded as ``mdanalysis_method``: its rule
  picks ``nsgrid`` unless the cutoff is below 3% of the smallest box side), which returns
  pairs and distances, counts ``|d| <= cutoff``, works on float32 coordinates (wrapped into
  the box in float32, then differenced in double) and is serial; ``mdanalysis_nsgrid`` is
  timed too when the automatic choice is another method, ``mdanalysis_pkdtree`` with
  ``--pkdtree``;
* ``freud``: ``freud.locality.AABBQuery(box, p32).query(p32, {"r_max": cutoff,
  "exclude_ii": True}).toNeighborList()``, ``freud.parallel.set_num_threads`` at the
  machine's threads, the pairs ``i < j`` kept (it lists both orders); float32 throughout;
* ``ckdtree``: ``cKDTree(wrapped, boxsize=box[:3]).query_pairs(cutoff,
  output_type="ndarray")``, the tree's build included; it counts ``|d| <= cutoff``; serial.

``same_pairs`` compares each tool's pair set (as sorted rows ``i < j``) to ours: the pairs
only ours has, the pairs only the tool has and, for every one of them, the exact
minimum-image distance of the float64 coordinates (Python fractions): ``ties`` counts those
exactly at the cutoff (``<=`` against ``<``), ``ours_right`` says whether every differing
pair is on our side of the exact verdict, ``max_gap`` is the largest ``| |d| - cutoff |``
among them (float32 rounding near the cutoff shows as gaps of about 1e-6 angstrom), and
``examples`` lists a few.  ``distances_max_abs_diff_vs_mdanalysis``, when the pair sets are
equal, is the largest difference between our distances and MDAnalysis' (its float32
wrapping moves atoms outside the box by up to about 1e-5 angstrom).

One JSON line per system and cutoff.  Run nothing else on the machine meanwhile.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import warnings
from fractions import Fraction

import numpy as np
from scipy.spatial import cKDTree

import broadphase as bp

SYSTEMS = {
    "water": ("GRO_large",),
    "ab42": ("TPR460",),
    "cobrotoxin": ("PDB_sub_sol",),
}
DEFAULT_SYSTEMS = ("water", "ab42")
CUTOFFS = (3.5, 6.0)
EXAMPLES = 5


def load(name):
    """``(files, positions float64 (n, 3), box float64 (6,))`` of a system's first frame."""
    import MDAnalysis as mda
    from MDAnalysisTests import datafiles

    names = SYSTEMS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # missing masses, elements ... of the topology
        u = mda.Universe(*[getattr(datafiles, f) for f in names])
    box = np.asarray(u.dimensions, np.float64)
    if not np.array_equal(box[3:], [90.0, 90.0, 90.0]):
        raise ValueError(f"{name}: the box {box.tolist()} is not orthorhombic")
    pos = np.asarray(u.atoms.positions, np.float64)
    files = [os.path.basename(getattr(datafiles, f)) for f in names]
    return files, pos, box


def wrap(pos, period):
    """``pos`` moved by whole periods into ``[0, L)``, exactly (float32-valued input)."""
    assert np.array_equal(pos.astype(np.float32), pos)
    assert np.array_equal(period.astype(np.float32), period)
    k = np.floor(pos / period)
    assert (np.abs(k) <= 4).all()  # then x - k L fits a float64 exactly
    w = pos - k * period
    L = np.broadcast_to(period, w.shape)
    w = np.where(w >= L, w - L, np.where(w < 0, w + L, w))  # rounding of pos / L
    assert ((w >= 0) & (w < L)).all()
    return w


# ---------------------------------------------------------------------------
# the tools


def ours(pos, cut, period, workers, distances=False):
    return bp.find_point_pairs(pos, cut, period=period, return_distances=distances,
                               workers=workers)


def mda_method(pos, cut, box):
    """The method ``self_capped_distance`` picks by itself."""
    from MDAnalysis.lib import distances

    try:  # a private function of MDAnalysis (2.11)
        return distances._determine_method_self(
            pos, cut, box=np.asarray(box, np.float32)).__name__.split("_")[1]
    except AttributeError:
        return "auto"


def mdanalysis(pos, cut, box, method=None):
    from MDAnalysis.lib.distances import self_capped_distance

    return self_capped_distance(pos, cut, box=box, method=method)


def freud_input(pos, period, threads):
    """freud's box and points: wrapped, centred on the origin, float32 (not timed)."""
    import freud

    freud.parallel.set_num_threads(threads)
    fbox = freud.box.Box(*(float(x) for x in period))
    return fbox, fbox.wrap((wrap(pos, period) - period / 2).astype(np.float32))


def freud_pairs(fbox, p, cut):
    import freud

    nl = freud.locality.AABBQuery(fbox, p).query(
        p, {"r_max": cut, "exclude_ii": True}).toNeighborList()
    q = np.asarray(nl.query_point_indices)
    r = np.asarray(nl.point_indices)
    keep = q < r
    return np.stack([q[keep], r[keep]], 1)


def ckdtree(wrapped, cut, period):
    return cKDTree(wrapped, boxsize=period).query_pairs(cut, output_type="ndarray")


# ---------------------------------------------------------------------------
# the comparison


def keys(pairs, n):
    """Each pair as one int64 ``i * n + j`` with ``i < j``, sorted, and the duplicates' count."""
    p = np.sort(np.asarray(pairs, np.int64).reshape(-1, 2), axis=1)
    k = np.unique(p[:, 0] * n + p[:, 1])
    return k, len(p) - len(k)


def exact_d2(a, b, period):
    """The squared minimum-image distance of two float64 points, as a Fraction."""
    s = Fraction(0)
    for x, y, L in zip(a.tolist(), b.tolist(), period.tolist(), strict=True):
        d = Fraction(y) - Fraction(x)
        L = Fraction(L)
        d -= L * (d // L)  # [0, L)
        d = min(d, L - d)
        s += d * d
    return s


def gap(d2, cut):
    """``|d| - cutoff`` as a float, from the exact squares (to first order if tiny)."""
    c2 = Fraction(cut) ** 2
    return float((d2 - c2) / (2 * Fraction(cut))) if abs(d2 - c2) < c2 / 1000 else \
        float(d2) ** 0.5 - cut


def differences(want, got, n, pos, cut, period):
    """Pairs only ours has, pairs only the tool has, each checked exactly."""
    only_ours = np.setdiff1d(want, got, assume_unique=True)
    only_tool = np.setdiff1d(got, want, assume_unique=True)
    c2 = Fraction(cut) ** 2
    ties = 0
    ours_right = True
    max_gap = 0.0
    examples = []
    for mine, ks in ((True, only_ours), (False, only_tool)):
        for k in ks.tolist():
            i, j = divmod(k, n)
            d2 = exact_d2(pos[i], pos[j], period)
            ties += d2 == c2
            ours_right &= (d2 < c2) == mine
            g = gap(d2, cut)
            max_gap = max(max_gap, abs(g))
            if len(examples) < EXAMPLES:
                examples.append({"pair": [i, j], "in": "ours" if mine else "tool",
                                 "exact_d_minus_cutoff": g, "tie": d2 == c2})
    return {"only_ours": int(len(only_ours)), "only_tool": int(len(only_tool)),
            "ties": int(ties), "ours_right": bool(ours_right), "max_gap": max_gap,
            "examples": examples}


def measure(system, files, pos, box, cut, reps=5, workers=None, pkdtree=False,
            use_freud=True):
    """Time every tool in turns on one system and cutoff, compare the pairs: the JSON record."""
    threads = len(os.sched_getaffinity(0))
    period = box[:3].copy()
    n = len(pos)
    wrapped = wrap(pos, period)
    method = mda_method(pos, cut, box)
    runs = {
        "ours": lambda: ours(pos, cut, period, workers),
        "ours_distances": lambda: ours(pos, cut, period, workers, distances=True),
        "mdanalysis": lambda: mdanalysis(pos, cut, box),
    }
    if method != "nsgrid":
        runs["mdanalysis_nsgrid"] = lambda: mdanalysis(pos, cut, box, "nsgrid")
    if pkdtree and method != "pkdtree":
        runs["mdanalysis_pkdtree"] = lambda: mdanalysis(pos, cut, box, "pkdtree")
    if use_freud:
        try:
            fbox, p32 = freud_input(pos, period, threads)
            runs["freud"] = lambda: freud_pairs(fbox, p32, cut)
        except ImportError:
            pass
    runs["ckdtree"] = lambda: ckdtree(wrapped, cut, period)
    times = {k: [] for k in runs}
    results = {}
    for _ in range(reps):
        for name, f in runs.items():
            t = time.perf_counter()
            out = f()
            times[name].append(time.perf_counter() - t)
            results[name] = out
    med = {k: statistics.median(v) for k, v in times.items()}

    pairs = results["ours"]
    dpairs, dist = results["ours_distances"]
    assert np.array_equal(dpairs, pairs)
    want, dup = keys(pairs, n)
    assert dup == 0 and len(want) == len(pairs)
    same = {}
    for name, out in results.items():
        if name.startswith("ours"):
            continue
        got, dup = keys(out[0] if isinstance(out, tuple) else out, n)
        same[name] = {"equal": bool(np.array_equal(got, want)), "duplicates": int(dup),
                      **differences(want, got, n, pos, cut, period)}
    record = {
        "system": system, "files": files, "atoms": n, "box": [float(x) for x in box],
        "cutoff": cut, "threads": threads, "workers": workers, "reps": reps,
        "pairs": int(len(pairs)), "pairs_per_atom": round(2 * len(pairs) / n, 2),
        "mdanalysis_method": method,
        "ms": {k: round(1e3 * v, 1) for k, v in med.items()},
        "over_ours": {k: round(v / med["ours"], 2) for k, v in med.items() if k != "ours"},
        "same_pairs": same,
    }
    mda_pairs, mda_dist = results["mdanalysis"]
    if same["mdanalysis"]["equal"] and len(pairs):
        o = np.lexsort((np.max(mda_pairs, 1), np.min(mda_pairs, 1)))
        record["distances_max_abs_diff_vs_mdanalysis"] = float(np.abs(mda_dist[o] - dist).max())
    return record


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--systems", nargs="+", choices=sorted(SYSTEMS), default=None)
    ap.add_argument("--cutoffs", nargs="+", type=float, default=None)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--workers", type=int, default=None,
                    help="threads of ours (default: all)")
    ap.add_argument("--quick", action="store_true", help="ab42 at 3.5 angstrom only")
    ap.add_argument("--pkdtree", action="store_true", help="time MDAnalysis' pkdtree too")
    ap.add_argument("--no-freud", action="store_true")
    args = ap.parse_args(argv)
    systems = args.systems or (("ab42",) if args.quick else DEFAULT_SYSTEMS)
    cutoffs = args.cutoffs or ((3.5,) if args.quick else CUTOFFS)
    for system in systems:
        files, pos, box = load(system)
        for cut in cutoffs:
            print(json.dumps(measure(system, files, pos, box, cut, args.reps, args.workers,
                                     args.pkdtree, not args.no_freud)), flush=True)


if __name__ == "__main__":
    main()
