"""Ray casts and swept pairs against what Python users have: one JSON line of ratios.

Usage::

    python benchmarks/casts.py            # 1e5 rays against 1e5 boxes, 1e5 swept boxes
    python benchmarks/casts.py --n 2000   # a quick run

* **rays**: ``n`` rays, first hit, against ``n`` boxes of one to four units
  in a square of ``3 sqrt(n)`` units (each ray a segment of 50 units), by
  ``bp.cast_rays``; against a loop of shapely ``STRtree.query`` of each
  segment plus an exact slab test of the candidates in Python (the usual
  hand-written line of sight), and against pymunk's ``segment_query_first``
  per ray (pymunk's own space index, boxes as static polygons).  The two
  loops run on ``--sample`` rays and are scaled to ``n``.
* **rays on the tree**: the same rays by ``LinearQuadtree.cast_rays`` on a
  tree holding the same boxes (answers in handles, equal to the rows here).
* **swept**: ``n`` boxes each moving up to ``--motion`` units in x and y in a
  frame (default 3, about one box; 0.3 is a tenth of one), by
  ``bp.find_swept_pairs``, against ``bp.find_pairs`` on the start boxes.
  With ``--bullets F``, a share ``F`` of the boxes (drawn at random) move up
  to ``--bullet-motion`` units instead (default 30, about ten boxes): a game's
  frame, most objects slow and a few bullets fast.

Each figure is the median of ``--reps`` runs; the ratios compare times
measured in the same run.  Run nothing else on the machine meanwhile.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

import broadphase as bp
from call_costs import median_seconds  # benchmarks/ is on the path of a script run here


def scene(n, seed=0):
    rng = np.random.default_rng(seed)
    world = 3 * np.sqrt(n)
    lo = rng.uniform(0, world, (n, 2))
    boxes = np.hstack([lo, lo + rng.uniform(1, 4, (n, 2))])
    origins = rng.uniform(0, world, (n, 2))
    angle = rng.uniform(0, 2 * np.pi, n)
    directions = 50 * np.column_stack([np.cos(angle), np.sin(angle)])
    return boxes, origins, directions


def slab_first(boxes, cand, o, d):
    """The first candidate box the segment ``o + s d``, ``s`` in [0, 1], enters (floats)."""
    best, best_t = -1, np.inf
    for j in cand:
        lo, hi = 0.0, 1.0
        for k in range(2):
            if d[k] == 0.0:
                if not boxes[j, k] < o[k] < boxes[j, k + 2]:
                    lo, hi = 1.0, 0.0
                    break
                continue
            a, b = (boxes[j, k] - o[k]) / d[k], (boxes[j, k + 2] - o[k]) / d[k]
            lo, hi = max(lo, min(a, b)), min(hi, max(a, b))
        if lo < hi and lo < best_t:
            best, best_t = j, lo
    return best, best_t


def shapely_loop(boxes, origins, directions, rays):
    import shapely

    tree = shapely.STRtree(shapely.box(*boxes.T))
    segs = shapely.linestrings(np.stack([origins[rays], origins[rays] + directions[rays]], 1))

    def run():
        for k, seg in zip(rays, segs, strict=True):
            slab_first(boxes, tree.query(seg), origins[k], directions[k])
    return run


def pymunk_loop(boxes, origins, directions, rays):
    import pymunk

    space = pymunk.Space()
    body = space.static_body
    shapes = [pymunk.Poly(body, [(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])])
              for b in boxes]
    space.add(*shapes)
    space.reindex_static()
    ends = origins + directions
    everything = pymunk.ShapeFilter()

    def run():
        for k in rays:
            space.segment_query_first(tuple(origins[k]), tuple(ends[k]), 0, everything)
    return run


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=100_000, help="rays, boxes and moving boxes")
    p.add_argument("--sample", type=int, default=2000, help="rays timed in the Python loops")
    p.add_argument("--reps", type=int, default=5, help="runs per figure (median)")
    p.add_argument("--motion", type=float, default=3.0,
                   help="swept boxes move up to this many units a frame in x and y (default 3)")
    p.add_argument("--bullets", type=float, default=0.0,
                   help="share of the swept boxes that move up to --bullet-motion instead")
    p.add_argument("--bullet-motion", type=float, default=30.0,
                   help="how far the bullets move a frame in x and y (default 30)")
    a = p.parse_args(argv)
    boxes, origins, directions = scene(a.n)
    sample = np.arange(min(a.sample, a.n))
    scale = a.n / sample.size
    out = {"n": a.n}
    ours = median_seconds(lambda: bp.cast_rays(boxes, origins, directions, max_t=1.0), a.reps)
    out["cast_rays first (s)"] = ours
    shp = median_seconds(shapely_loop(boxes, origins, directions, sample), a.reps) * scale
    out["shapely STRtree + slab loop, scaled (s)"] = shp
    pmk = median_seconds(pymunk_loop(boxes, origins, directions, sample), a.reps) * scale
    out["pymunk segment_query_first loop, scaled (s)"] = pmk
    out["rays: shapely / ours"] = shp / ours
    out["rays: pymunk / ours"] = pmk / ours
    world = 3 * np.sqrt(a.n) + 4
    tree = bp.LinearQuadtree.for_objects((0, 0, world, world), typical_size=2.5)
    tree.insert(boxes)
    on_tree = median_seconds(lambda: tree.cast_rays(origins, directions, max_t=1.0), a.reps)
    out["tree.cast_rays first (s)"] = on_tree
    out["tree rays: pymunk / tree"] = pmk / on_tree
    out["tree rays: shapely / tree"] = shp / on_tree
    rng = np.random.default_rng(1)
    step = rng.uniform(-a.motion, a.motion, (a.n, 2))
    bullets = rng.random(a.n) < a.bullets
    fast = rng.uniform(-a.bullet_motion, a.bullet_motion, (a.n, 2))
    step = np.where(bullets[:, None], fast, step)
    end = boxes + np.repeat(step, 2, axis=0).reshape(a.n, 4)
    swept = median_seconds(lambda: bp.find_swept_pairs(boxes, end), a.reps)
    still = median_seconds(lambda: bp.find_pairs(boxes), a.reps)
    out["find_swept_pairs (s)"] = swept
    out["find_pairs (s)"] = still
    out["swept: swept / find_pairs"] = swept / still
    print(json.dumps(out))


if __name__ == "__main__":
    main()
