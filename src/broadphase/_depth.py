"""Choosing a tree's ``depth`` from the world's size and the objects' size."""

from __future__ import annotations

import math

from numpy.typing import ArrayLike

from . import _core, _exact
from ._tree_args import MAX_DEPTH

__all__ = ["suggest_depth"]


def suggest_depth(bounds: ArrayLike, typical_size: float) -> int:
    """A tree depth whose finest cells are about 8 typical objects wide.

    ``round(log2(side / (8 * typical_size)))``, kept within 1 to 12, where
    ``side`` is the world's mean side (the geometric mean of its width and
    height: the side itself for a square world).  Six bounds are a 3D
    world (a :class:`LinearOctree`'s): the mean of its three sides, and the
    depth within 1 to 8.  Finest cells 4 to 16
    times the typical object's size work well (``benchmarks/moving.py``);
    this is the middle of that range, the setting of the benchmarks and the
    demo.  A start value: time your own frames with the depths around it
    (:meth:`LinearQuadtree.stats` says what to look at).

    Parameters
    ----------
    bounds : sequence of 4 or 6 floats
        The world ``(minx, miny, maxx, maxy)``, or ``(minx, miny, minz,
        maxx, maxy, maxz)``, as given to the tree.
    typical_size : float
        A typical object's width (a circle's diameter), > 0.

    Returns
    -------
    int
        A depth from 1 to 12 (1 to 8 in 3D).

    Examples
    --------
    >>> import broadphase as bp
    >>> bp.suggest_depth((0, 0, 1000, 1000), 10)    # cells 1000 / 2**4 = 62.5 wide
    4
    >>> bp.suggest_depth((0, 0, 5000, 5000), 10)
    6
    >>> bp.suggest_depth((0, 0, 832, 832), 32)      # a window of 32-pixel sprites
    2
    >>> tree = bp.LinearQuadtree((0, 0, 5000, 5000), bp.suggest_depth((0, 0, 5000, 5000), 10))
    >>> tree.depth
    6
    >>> bp.suggest_depth((0, 0, 0, 1000, 1000, 1000), 10)
    4
    """
    world = _exact.world(bounds, (2, 3))
    d = len(world) // 2
    deepest = MAX_DEPTH if d == 2 else _core.TREE_MAX_DEPTH_3D
    size = _exact.real(typical_size, "typical_size")  # refuses what float64 would round
    if not size > 0:
        raise ValueError(f"typical_size: expected a finite number > 0, found {typical_size!r}")
    # half the sides: the sides themselves may pass float64's largest value
    halves = [world[d + k] / 2 - world[k] / 2 for k in range(d)]
    if all(v == halves[0] for v in halves):
        half = halves[0]
    else:
        half = math.prod(v ** (1 / d) for v in halves)
    cells = half / (4 * size)
    if not math.isfinite(cells):
        return deepest
    return int(min(deepest, max(1, round(math.log2(max(cells, 1.0))))))
