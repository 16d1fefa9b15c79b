"""Choosing a tree's ``depth`` from the world's size and the objects' size."""

from __future__ import annotations

import math

from numpy.typing import ArrayLike

from . import _exact
from ._tree_args import MAX_DEPTH

__all__ = ["suggest_depth"]


def suggest_depth(bounds: ArrayLike, typical_size: float) -> int:
    """A :class:`LinearQuadtree` depth whose finest cells are about 8 typical objects wide.

    ``round(log2(side / (8 * typical_size)))``, kept within 1 to 12, where
    ``side`` is the world's mean side (the geometric mean of its width and
    height: the side itself for a square world).  Finest cells 4 to 16
    times the typical object's size work well (``benchmarks/moving.py``);
    this is the middle of that range, the setting of the benchmarks and the
    demo.  A start value: time your own frames with the depths around it
    (:meth:`LinearQuadtree.stats` says what to look at).

    Parameters
    ----------
    bounds : sequence of 4 floats
        The world ``(minx, miny, maxx, maxy)``, as given to the tree.
    typical_size : float
        A typical object's width (a circle's diameter), > 0.

    Returns
    -------
    int
        A depth from 1 to 12.

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
    """
    x0, y0, x1, y1 = _exact.world(bounds)
    size = _exact.real(typical_size, "typical_size")  # refuses what float64 would round
    if not size > 0:
        raise ValueError(f"typical_size: expected a finite number > 0, found {typical_size!r}")
    # half the sides: the sides themselves may pass float64's largest value
    w, h = x1 / 2 - x0 / 2, y1 / 2 - y0 / 2
    half = w if w == h else math.sqrt(w) * math.sqrt(h)
    cells = half / (4 * size)
    if not math.isfinite(cells):
        return MAX_DEPTH
    return int(min(MAX_DEPTH, max(1, round(math.log2(max(cells, 1.0))))))
