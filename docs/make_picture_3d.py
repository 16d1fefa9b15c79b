"""Draw a 3D scene with the pairs broadphase finds: docs/scene3d.png.

500 cubes of ``broadphase.scenarios``' ``clustered3d`` scene (50 clouds in a
cube of side 1000) in isometric projection, each with its shadow on the
floor: a cube is red when broadphase finds it colliding with another, white
when free.  The grey lines on the floor and the two back walls are the cells
of a depth-3 octree; three cubes are blue, each inside the smallest octree
cell that holds it (outlined in blue: two cells of level 3 and one of level
2, whose cube straddles a level-3 split).  Needs matplotlib (the ``bench``
extra)::

    python docs/make_picture_3d.py
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import broadphase as bp
from broadphase import scenarios

W = 1000.0  # the scenes' cube
DEPTH = 3  # octree levels drawn: 8 cells a side
COS, SIN = np.cos(np.pi / 6), np.sin(np.pi / 6)

# faces seen from the viewer (on the +x, +y, +z side): top, +x side, +y side
RED = ((1.0, 0.84, 0.84), (0.95, 0.62, 0.62), (0.86, 0.47, 0.47), (0.72, 0.08, 0.08))
WHITE = ((1.0, 1.0, 1.0), (0.86, 0.87, 0.89), (0.74, 0.75, 0.78), (0.2, 0.2, 0.22))
GRID = (0.8, 0.8, 0.84)
WALL = (0.88, 0.88, 0.91)
FLOOR = (0.975, 0.975, 0.985)
SHADOW = (0.9, 0.9, 0.92)
BLUE = (0.1, 0.35, 0.85)
CUBE_BLUE = ((0.55, 0.72, 1.0), (0.3, 0.52, 0.95), (0.2, 0.4, 0.82), (0.05, 0.2, 0.6))


def project(p: np.ndarray) -> np.ndarray:
    """Isometric screen coordinates of points ``(..., 3)``: x to the lower left, y lower right."""
    p = np.asarray(p, float)
    return np.stack([(p[..., 1] - p[..., 0]) * COS, p[..., 2] - (p[..., 0] + p[..., 1]) * SIN], -1)


def faces(box: np.ndarray) -> list[np.ndarray]:
    """The three faces of a box the viewer sees, as screen polygons: top, +x side, +y side."""
    x0, y0, z0, x1, y1, z1 = box
    top = [(x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
    side_x = [(x1, y0, z0), (x1, y1, z0), (x1, y1, z1), (x1, y0, z1)]
    side_y = [(x0, y1, z0), (x1, y1, z0), (x1, y1, z1), (x0, y1, z1)]
    return [project(np.array(f)) for f in (top, side_x, side_y)]


def seen_edges(lo: np.ndarray, hi: np.ndarray) -> list[np.ndarray]:
    """The 9 edges of the box ``lo``-``hi`` the viewer sees, as screen segments.

    The three edges of its far corner (``lo``) are hidden: in this projection
    they would end on the near corner.
    """
    corners = np.array([[(hi if (k >> a) & 1 else lo)[a] for a in range(3)] for k in range(8)])
    return [project(corners[[i, j]]) for i in range(8) for j in range(i + 1, 8)
            if bin(i ^ j).count("1") == 1 and i != 0]


def octree_cell(box: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """The smallest cell of the depth-``DEPTH`` octree of the world that holds ``box``.

    Returns its level (0 the whole world) and its corners.
    """
    lo = np.clip((box[:3] / W * 2**DEPTH).astype(int), 0, 2**DEPTH - 1)
    hi = np.clip((box[3:] / W * 2**DEPTH).astype(int), 0, 2**DEPTH - 1)
    level = DEPTH
    while level and (lo >> (DEPTH - level) != hi >> (DEPTH - level)).any():
        level -= 1
    size = W / 2**level
    start = (lo >> (DEPTH - level)) * size
    return level, start, start + size


def spread_cells(boxes: np.ndarray, levels: tuple[int, ...]) -> list[tuple[int, np.ndarray,
                                                                           np.ndarray]]:
    """A box per level of ``levels`` with its cell, each far from the centre and the others.

    Only cells that few other boxes reach into (the box stays in sight).
    Returns ``(box index, cell's low corner, high corner)`` rows.
    """
    cells = [octree_cell(b) for b in boxes]
    centre = project(np.full(3, W / 2))
    taken: list[tuple[int, np.ndarray, np.ndarray]] = []
    for level in levels:
        best, far = None, -1.0
        for k, (lv, lo, hi) in enumerate(cells):
            if lv != level:
                continue
            inside = ((boxes[:, :3] < hi) & (lo < boxes[:, 3:])).all(1).sum()
            if inside > 3:
                continue
            at = project((lo + hi) / 2)
            gap = min([np.hypot(*(at - centre))]
                      + [np.hypot(*(at - project((a + b) / 2))) for _, a, b in taken])
            if gap > far:
                best, far = (k, lo, hi), gap
        if best is not None:
            taken.append(best)
    return taken


def main() -> None:
    """Render the scene and write docs/scene3d.png."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=500, help="cubes (default 500)")
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("scene3d.png"))
    args = ap.parse_args()

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection, PolyCollection

    boxes = scenarios.make_3d("clustered3d", args.n)
    inside = ((boxes[:, :3] >= 0) & (boxes[:, 3:] <= W)).all(1)
    boxes = boxes[inside]  # the clouds' few stragglers outside the drawn cube
    pairs = bp.find_pairs(boxes)
    hit = np.zeros(len(boxes), bool)
    hit[pairs.ravel()] = True

    fig, ax = plt.subplots(figsize=(6.4, 6.4), dpi=100)
    # the floor and the two back walls, with the octree's cells
    ticks = np.linspace(0, W, 2**DEPTH + 1)
    floor, walls = [], []
    for t in ticks:
        floor += [project([(t, 0, 0), (t, W, 0)]), project([(0, t, 0), (W, t, 0)])]
        walls += [project([(0, t, 0), (0, t, W)]), project([(0, 0, t), (0, W, t)]),  # x = 0
                  project([(t, 0, 0), (t, 0, W)]), project([(0, 0, t), (W, 0, t)])]  # y = 0
    ax.add_collection(PolyCollection([project([(0, 0, 0), (W, 0, 0), (W, W, 0), (0, W, 0)])],
                                     facecolors=[FLOOR], edgecolors="none", zorder=0))
    ax.add_collection(LineCollection(walls, colors=[WALL], linewidths=0.5, zorder=0))
    ax.add_collection(LineCollection(floor, colors=[GRID], linewidths=0.6, zorder=0))
    # each cube's shadow on the floor, below everything
    shadows = [project(np.array([(b[0], b[1], 0), (b[3], b[1], 0), (b[3], b[4], 0),
                                 (b[0], b[4], 0)])) for b in boxes]
    ax.add_collection(PolyCollection(shadows, facecolors=[SHADOW], edgecolors="none", zorder=0))

    # three cubes in blue, with the smallest octree cell that holds each
    shown = spread_cells(boxes, (2, 3, 3))
    blue = {k for k, _, _ in shown}

    # painter's order: far cubes first (the viewer is on the +x, +y, +z side)
    order = np.argsort((boxes[:, :3] + boxes[:, 3:]).sum(1), kind="stable")
    polys, fill, edge = [], [], []
    for k in order:
        if k in blue:
            continue  # drawn last, in sight whatever stands in front
        shade = RED if hit[k] else WHITE
        for f, c in zip(faces(boxes[k]), shade[:3], strict=True):
            polys.append(f)
            fill.append(c)
            edge.append(shade[3])
    ax.add_collection(PolyCollection(polys, facecolors=fill, edgecolors=edge, linewidths=0.5,
                                     zorder=1))

    for k, lo, hi in shown:
        ax.add_collection(PolyCollection(faces(np.concatenate([lo, hi])), facecolors=[BLUE],
                                         edgecolors="none", alpha=0.07, zorder=2))
        ax.add_collection(LineCollection(seen_edges(lo, hi), colors=[BLUE], linewidths=1.2,
                                         zorder=2))
        ax.add_collection(PolyCollection(faces(boxes[k]), facecolors=CUBE_BLUE[:3],
                                         edgecolors=[CUBE_BLUE[3]], linewidths=0.5, zorder=3))

    for text, at in (("x", (W * 1.04, 0, 0)), ("y", (0, W * 1.04, 0)), ("z", (0, 0, W * 1.03))):
        ax.annotate(text, project(np.array(at)), ha="center", va="center", color=(0.5,) * 3,
                    fontsize=10, style="italic")
    corners = project(np.array([[x, y, z] for x in (0, W) for y in (0, W) for z in (0, W)]))
    pad = 0.06 * W
    ax.set_xlim(corners[:, 0].min() - pad, corners[:, 0].max() + pad)
    ax.set_ylim(corners[:, 1].min() - pad, corners[:, 1].max() + pad)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.subplots_adjust(0, 0, 1, 1)
    fig.savefig(args.out)
    plt.close(fig)
    print(f"{args.out}: {len(boxes)} cubes, {len(pairs)} pairs, {hit.sum()} cubes colliding")


if __name__ == "__main__":
    main()
