"""Uniform grid (spatial hash): each box in every cell it overlaps.

Cells are squares of side h over the world; a box enters all cells its
integer range covers, the (cell, box) entries are radix-sorted by cell id
(only the occupied cells exist, so memory is O(entries) for any h), and
every cell tests all its pairs.  Two boxes that share several cells are
reported only in the cell holding the reference point P = (max(cx0_a,
cx0_b), max(cy0_a, cy0_b)); quantization is monotone, so P lies in both
boxes' cell ranges whenever they overlap, and the pair is kept exactly
once.  Only pairs of two multi-cell boxes can repeat, so only they pay for
the check.

Cost O(n + E + sum over cells of m_c^2) for E entries: ideal for boxes of
one size ~ h, poor when a few large boxes cover many cells (the driver
grows h until E stays within a budget, which then crowds the cells).
"""

from numba import njit, prange

from .morton import quantize
from .narrow import accept


@njit(cache=True, parallel=True)
def grid_ranges(boxes, x0, y0, scale, gx, gy, quant, nent):
    """Integer cell range of each box, and its number of cells."""
    for k in prange(boxes.shape[0]):
        cx0 = quantize(boxes[k, 0], x0, scale, gx - 1)
        cy0 = quantize(boxes[k, 1], y0, scale, gy - 1)
        cx1 = quantize(boxes[k, 2], x0, scale, gx - 1)
        cy1 = quantize(boxes[k, 3], y0, scale, gy - 1)
        quant[k, 0] = cx0
        quant[k, 1] = cy0
        quant[k, 2] = cx1
        quant[k, 3] = cy1
        nent[k] = (cx1 - cx0 + 1) * (cy1 - cy0 + 1)


@njit(cache=True, parallel=True)
def grid_entries(quant, nent, starts, gx, keys, objs):
    for k in prange(quant.shape[0]):
        p = starts[k]
        for cy in range(quant[k, 1], quant[k, 3] + 1):
            for cx in range(quant[k, 0], quant[k, 2] + 1):
                keys[p] = cy * gx + cx
                objs[p] = k
                p += 1


@njit(cache=True, parallel=True)
def grid_gather(objs, boxes, quant, nent, coords, iq, multi):
    for e in prange(objs.shape[0]):
        k = objs[e]
        for t in range(4):
            coords[e, t] = boxes[k, t]
        iq[e, 0] = quant[k, 0]
        iq[e, 1] = quant[k, 1]
        multi[e] = nent[k] > 1


@njit(cache=True, parallel=True)
def grid_pairs(skeys, objs, first, coords, iq, multi, gx,
               circles, groups, cats, masks, mode, bounds,
               todo, offsets, caps, pi, pj, counts):
    """Chunk ``c`` handles the cells ``bounds[c]:bounds[c+1]``."""
    for t in prange(todo.shape[0]):
        c = todo[t]
        cnt = 0
        cap = caps[c]
        base = offsets[c]
        for cc in range(bounds[c], bounds[c + 1]):
            b = first[cc]
            e_end = first[cc + 1]
            key = skeys[b]
            cell_y = key // gx
            cell_x = key - cell_y * gx
            for u in range(b, e_end):
                ux0 = coords[u, 0]
                uy0 = coords[u, 1]
                ux1 = coords[u, 2]
                uy1 = coords[u, 3]
                ou = objs[u]
                mu = multi[u]
                qxu = iq[u, 0]
                qyu = iq[u, 1]
                # Branch-free: write every candidate, advance on kept ones.
                for v in range(u + 1, e_end):
                    keep = ((ux0 < coords[v, 2]) & (coords[v, 0] < ux1)
                            & (uy0 < coords[v, 3]) & (coords[v, 1] < uy1)
                            & (~(mu & multi[v])
                               | ((max(qxu, iq[v, 0]) == cell_x) & (max(qyu, iq[v, 1]) == cell_y))))
                    ov = objs[v]
                    if mode != 0 and keep:
                        keep = accept(ou, ov, circles, groups, cats, masks, mode)
                    if cnt < cap:
                        pi[base + cnt] = min(ou, ov)
                        pj[base + cnt] = max(ou, ov)
                    cnt += keep
        counts[c] = cnt
