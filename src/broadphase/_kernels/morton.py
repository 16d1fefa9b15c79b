"""Morton (Z-order) arithmetic of the seeds, on 64-bit integers.

A cell (ix, iy) of the 2**L x 2**L grid has Morton number ``spread(ix) |
spread(iy) << 1``: x in the even bits, y in the odd ones.  Reading the number
two bits at a time from the top gives the quadrant at level 1, 2, ... so the
number of a cell at level l is the level-L number shifted right by 2(L - l).

A box whose corners lie in cells c0 and c1 fits in the cell of level l iff
the two numbers agree above bit 2(L - l): the highest non-zero 2-bit group of
``c0 ^ c1`` therefore names the level (seed 001; seed 004 sums the shift of
every non-zero group, which is wrong, the highest one alone decides).
"""

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros

# Deepest grid of the public Morton functions: 2 * 29 code bits, and
# linear_index (4**29 - 1) / 3 + index, stay below 2**62.  The pair kernels
# need spare key bits and stop earlier (quadtree.MAX_DEPTH).
MAX_DEPTH = 29


@njit(inline="always")
def spread(v):
    """Insert a zero bit above each of the low 32 bits of ``v``."""
    v &= 0xFFFFFFFF
    v = (v | (v << 16)) & 0x0000FFFF0000FFFF
    v = (v | (v << 8)) & 0x00FF00FF00FF00FF
    v = (v | (v << 4)) & 0x0F0F0F0F0F0F0F0F
    v = (v | (v << 2)) & 0x3333333333333333
    return (v | (v << 1)) & 0x5555555555555555


@njit(inline="always")
def compact(v):
    """Inverse of :func:`spread`: gather the even bits of ``v``."""
    v &= 0x5555555555555555
    v = (v | (v >> 1)) & 0x3333333333333333
    v = (v | (v >> 2)) & 0x0F0F0F0F0F0F0F0F
    v = (v | (v >> 4)) & 0x00FF00FF00FF00FF
    v = (v | (v >> 8)) & 0x0000FFFF0000FFFF
    return (v | (v >> 16)) & 0x00000000FFFFFFFF


@njit(inline="always")
def encode(ix, iy):
    return spread(ix) | (spread(iy) << 1)


@njit(inline="always")
def xor_level(c0, c1, depth):
    """Level of the smallest cell holding both codes: the seeds' XOR rule.

    The highest non-zero 2-bit group of ``c0 ^ c1`` (not the sum of all of
    them) fixes the level: group g (counted from 0 at the bottom) means the
    corners part at level ``depth - 1 - g``.  The group of the highest set
    bit b is ``b // 2``, read off with one count-leading-zeros instruction;
    equal codes give b = -1 and so ``depth``, with no branch (a branch on
    "same cell" is a coin toss for small boxes, and mispredicting it cost
    more than the rest).
    """
    bit = 63 - np.int64(leading_zeros(np.uint64(c0 ^ c1)))  # ctlz(0) is 64
    return depth - 1 - (bit >> 1)


@njit(inline="always")
def xor_level_xy(ix0, iy0, ix1, iy1, depth):
    """:func:`xor_level` of the corners' codes, without encoding them.

    The highest set bit of ``encode(dx, dy)`` (dx = ix0 ^ ix1, dy likewise)
    is bit 2b of dx's highest bit b or bit 2b + 1 of dy's, so its 2-bit
    group is the higher of the two highest bits: the bit length of
    ``max(dx, dy)``.
    """
    d = max(ix0 ^ ix1, iy0 ^ iy1)
    return depth - (64 - np.int64(leading_zeros(np.uint64(d))))


@njit(inline="always")
def quantize(v, origin, scale, top):
    """Cell coordinate of ``v``: floor((v/2 - origin/2) * scale) clamped to [0, top].

    ``scale`` is cells per half unit (see ``broadphase._world``): halving
    first keeps ``v - origin`` finite even for a world spanning -1e308 to
    1e308.  Every step is monotone non-decreasing in ``v``, which is all the
    pair kernels rely on; the clamp puts a coordinate on or past the far edge
    in the last cell instead of cell 2**L (and ``t > 0`` being false for a
    NaN maps one to 0, though none can arise from finite inputs and a finite
    scale).  Written as selects, not branches: the compiler emits max/min
    instructions, which halved the time of the kernels that quantize
    entries in walk order.
    """
    t = (v * 0.5 - origin * 0.5) * scale
    t = t if t > 0.0 else 0.0
    return int(min(t, float(top)))


@njit(cache=True)
def encode_array(ix, iy, out):
    for k in range(ix.shape[0]):
        out[k] = encode(ix[k], iy[k])


@njit(cache=True)
def locate_boxes(boxes, x0, y0, sx, sy, depth, levels, indices):
    """Seeds' cell of each box: corner codes, XOR level, code >> 2(L - level)."""
    top = (1 << depth) - 1
    for k in range(boxes.shape[0]):
        c0 = encode(quantize(boxes[k, 0], x0, sx, top), quantize(boxes[k, 1], y0, sy, top))
        c1 = encode(quantize(boxes[k, 2], x0, sx, top), quantize(boxes[k, 3], y0, sy, top))
        lv = xor_level(c0, c1, depth)
        levels[k] = lv
        indices[k] = c1 >> (2 * (depth - lv))
