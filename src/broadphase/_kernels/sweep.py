"""Sort and sweep along one axis (seed 003's sort + binary search, grown up).

Sort the boxes by their low edge on the chosen axis; every box then meets,
among the boxes after it, exactly those whose low edge lies before its high
edge, a contiguous run that the sweep walks until the first low edge past
it.  Each unordered pair is seen once, from the box that comes first.

The sort key is the low edge quantized on 2**B integer steps.  Quantization
is monotone, so ``lo_a < hi_b`` implies ``q(lo_a) <= q(hi_b)``: stopping at
the first key above ``q(hi)`` never cuts a real overlap, and equal keys just
add candidates that the exact float test rejects.

Cost O(n + m) after the O(n) radix sort, m being the pairs overlapping on
the sweep axis: with n boxes of side ~ W/sqrt(n) that is n^1.5, so the sweep
suits small n or data spread along one axis.
"""

from numba import njit, prange

from .morton import quantize
from .pairs import emit


@njit(cache=True, parallel=True)
def sweep_keys(boxes, axis, origin, scale, top, keys, his):
    """Quantized low edge (sort key) and high edge of every box on ``axis``."""
    for k in prange(boxes.shape[0]):
        keys[k] = quantize(boxes[k, axis], origin, scale, top)
        his[k] = quantize(boxes[k, axis + 2], origin, scale, top)


@njit(cache=True, parallel=True)
def gather_sorted(order, boxes, his, coords, shis):
    for e in prange(order.shape[0]):
        k = order[e]
        for t in range(4):
            coords[e, t] = boxes[k, t]
        shis[e] = his[k]


@njit(cache=True, parallel=True)
def sweep(skeys, shis, order, coords, circles, groups, cats, masks, mode, bounds,
          todo, offsets, caps, pi, pj, counts):
    """Chunk ``c`` sweeps from the sorted positions ``bounds[c]:bounds[c+1]``."""
    n = skeys.shape[0]
    for t in prange(todo.shape[0]):
        c = todo[t]
        cnt = 0
        cap = caps[c]
        base = offsets[c]
        for a in range(bounds[c], bounds[c + 1]):
            hi = shis[a]
            ax0 = coords[a, 0]
            ay0 = coords[a, 1]
            ax1 = coords[a, 2]
            ay1 = coords[a, 3]
            oa = order[a]
            b = a + 1
            # Branch-free: write every candidate, advance on kept ones.
            while b < n and skeys[b] <= hi:
                keep = ((ax0 < coords[b, 2]) & (coords[b, 0] < ax1)
                        & (ay0 < coords[b, 3]) & (coords[b, 1] < ay1))
                ob = order[b]
                cnt = emit(oa, ob, keep, circles, groups, cats, masks, mode, pi, pj, base, cnt, cap)
                b += 1
        counts[c] = cnt
