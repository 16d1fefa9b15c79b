"""Uniform grid (spatial hash): each box in every cell it overlaps.

A uniform grid of 2**L x 2**L square cells is the linear quadtree with every
box entered at the finest level, in all the cells its integer range covers.
So the grid only differs in placement: the entries, their radix sort by
Morton key (only occupied cells exist, memory O(entries) for any L), the
walk (whose ancestor stack stays empty) and the reference-point rule for
boxes sharing several cells all come from ``quadtree``.

Cost O(n + E + sum over cells of m_c^2) for E entries: ideal for boxes of
one size ~ the cell, poorer when a few large boxes cover many cells (the
driver coarsens the grid until E stays within a budget, which then crowds
the cells).
"""

from numba import njit, prange

from .morton import quantize_box


@njit(cache=True, parallel=True)
def place_finest(boxes, x0, y0, scale, depth, levels, nrep):
    """Every box at level ``depth``, entered in all the cells it overlaps."""
    top = (1 << depth) - 1
    for k in prange(boxes.shape[0]):
        ix0, iy0, ix1, iy1 = quantize_box(boxes, k, x0, y0, scale, top)
        levels[k] = depth
        nrep[k] = (ix1 - ix0 + 1) * (iy1 - iy0 + 1)
