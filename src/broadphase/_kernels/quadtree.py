"""Linear quadtree in Morton order (seeds 000-002), with the straddler fix.

Derivation
----------
Quantize the square world into a 2**L grid.  Seed 001 puts each box in the
smallest cell containing it: the highest non-zero 2-bit group of the XOR of
its corner codes gives the level l, the corner code >> 2(L - l) the cell.  A
cell's candidates are its own objects and those of its ancestors, so one
pre-order walk that keeps the ancestors' objects on a stack (pushed on the
way down, popped on the way up) tests every pair whose cells nest, once.

Pre-order without a tree: give the cell (level d, Morton index c) the key
``(c << 2(L - d)) << 5 | d``.  ``c << 2(L - d)`` is the code of its first
finest descendant, so sorting by key lists every cell right before its
descendants, ancestors first: the seeds' linear array in the order of the
walk, holding only the cells in use (memory O(n) for any L).  Cell
(d, c) covers finest codes [c << 2(L-d), (c + 1) << 2(L-d)): an entry on the
stack is an ancestor of the current cell iff the current start is below its
end, so popping is a comparison.

The trap: a small box on a high split line (x = W/2, say) lands at the root
and is tested against everything, O(n^2) for many such boxes.  Fix: a box
whose XOR level l is more than ``slack`` levels above its *fit level* f (the
deepest level at which it spans at most 2 cells per axis) is placed at
level ``max(l, f - slack)`` in each of the (at most 2 x 2) cells it overlaps
there: exactly the descendants of its seeds' cell that it touches, so it
meets only the objects of those subtrees.  A pair can now be seen from
several cell combinations; it is kept only where the deeper cell contains
the reference point P = (max(ix0_a, ix0_b), max(iy0_a, iy0_b)) on the
integer grid.  Quantization is monotone, so P lies in both boxes' integer
ranges whenever they truly overlap: each box has exactly one replica
holding P, the two nest, and the pair is reported exactly once.  Pairs of
unreplicated boxes are seen once anyway and skip the check.

Inside a cell the entries are ordered by minx (eight low key bits hold
minx's position within the cell, a monotone function of it), so the test
of an entry against the later entries of its cell stops at the first one
whose position exceeds that of its maxx: that one, and all after it,
start to the right of it.

Complexity: O(n) to place (at most 4 entries per box), O(m) radix sort of
the m <= 4n keys, and a walk costing O(m + T) where T, the candidate tests,
counts for each entry the entries of its own and its ancestor cells.  A box
placed at level d spans at least 2**-(slack+1) of a level-d cell on some
axis, so it only meets boxes within a constant factor of its own reach:
T = O(n + k) for sizes within a bounded ratio of the cell size, straddlers
included; only sizes spread over many octaves (or long thin boxes meeting
many others' cells) make T grow beyond the k pairs.
"""

import numpy as np
from numba import njit, prange

from .morton import compact, quantize, xor_level_xy
from .pairs import emit

_LEVEL_BITS = 5
# Low key bits: where the entry's minx falls inside its cell, in 1/256ths.
# Sorting on them orders each cell's entries by minx (up to ties), so the
# own-cell loop can stop at the first entry that starts right of the current
# one: every later entry starts further right.
_SUB_BITS = 8
_SUB_TOP = (1 << _SUB_BITS) - 1
SUB_BITS = _SUB_BITS
KEY_EXTRA_BITS = _LEVEL_BITS + _SUB_BITS  # key bits beyond the 2L of the Morton code
MAX_DEPTH = (63 - KEY_EXTRA_BITS) // 2  # keys stay below 2**63


@njit(inline="always")
def _fit_shift(a, b):
    """Smallest s with (b >> s) - (a >> s) <= 1 (a <= b)."""
    s = 0
    while (b >> s) - (a >> s) > 1:
        s += 1
    return s


@njit(inline="always")
def _level(ix0, iy0, ix1, iy1, depth, slack):
    home = xor_level_xy(ix0, iy0, ix1, iy1, depth)
    fit = depth - max(_fit_shift(ix0, ix1), _fit_shift(iy0, iy1))
    return max(home, fit - slack)


@njit(inline="always")
def _sub(t, inv2s, cx):
    """Where the level-L coordinate ``t`` falls in the cell ``cx``, in 1/256ths.

    ``inv2s`` is 2**-(L - level), so the scaling is exact.  Monotone in
    ``t``; below the cell it is 0, past it above 255 (callers clamp minx's
    value to 255 and leave maxx's unclamped).
    """
    f = (t * inv2s - cx) * (_SUB_TOP + 1)
    if not f > 0.0:
        return 0
    if f >= 1e9:
        return 1000000000
    return int(f)


@njit(cache=True)
def max_stack(skeys, first, depth):
    """Most objects on the ancestor stack at any point of the walk.

    Cell ``c`` owns the sorted entries ``first[c]:first[c + 1]``.
    """
    nc = first.shape[0] - 1
    cend = np.empty(depth + 2, np.int64)
    ccnt = np.empty(depth + 2, np.int64)
    sp = 0
    size = 0
    maxstack = 0
    for c in range(nc):
        key = skeys[first[c]] >> _SUB_BITS
        lv = key & ((1 << _LEVEL_BITS) - 1)
        start = key >> _LEVEL_BITS
        while sp > 0 and cend[sp - 1] <= start:
            sp -= 1
            size -= ccnt[sp]
        cend[sp] = start + (1 << (2 * (depth - lv)))
        ccnt[sp] = first[c + 1] - first[c]
        size += ccnt[sp]
        sp += 1
        maxstack = max(maxstack, size)
    return maxstack


@njit(cache=True, parallel=True)
def gather(objs, boxes, x0, y0, sx, sy, depth, ex0, ey0, ex1, ey1, eqx, eqy):
    """Each entry's box and integer min corner, in walk order (columns).

    ``sx``/``sy``: the scales of the two axes (equal for ``find_pairs``,
    whose cells are square; a ``LinearQuadtree`` may have oblong ones).
    """
    top = (1 << depth) - 1
    for e in prange(objs.shape[0]):
        o = objs[e]
        k = o ^ (o >> 31)  # ~o for a replica's negative tag, without a branch
        bx = boxes[k, 0]
        by = boxes[k, 1]
        ex0[e] = bx
        ey0[e] = by
        ex1[e] = boxes[k, 2]
        ey1[e] = boxes[k, 3]
        eqx[e] = quantize(bx, x0, sx, top)
        eqy[e] = quantize(by, y0, sy, top)


@njit(inline="always")
def _holds(qa_x, qa_y, qb_x, qb_y, cell_x, cell_y, s):
    # Reference point P = max of the integer min corners; does the current
    # cell (its finest-level corner is (cell_x, cell_y)) contain it?
    return (((max(qa_x, qb_x) >> s) == (cell_x >> s))
            & ((max(qa_y, qb_y) >> s) == (cell_y >> s)))


@njit(inline="always")
def _push(e, top, objs, ex0, ey0, ex1, ey1, eqx, eqy,
          st_x0, st_y0, st_x1, st_y1, st_obj, st_qx, st_qy):
    st_x0[top] = ex0[e]
    st_y0[top] = ey0[e]
    st_x1[top] = ex1[e]
    st_y1[top] = ey1[e]
    st_obj[top] = objs[e]
    st_qx[top] = eqx[e]
    st_qy[top] = eqy[e]
    return top + 1


@njit(cache=True, parallel=True)
def walk(skeys, objs, first, ex0, ey0, ex1, ey1, eqx, eqy, x0, scale, depth, maxstack, bounds,
         circles, groups, cats, masks, mode, tests,
         todo, offsets, caps, pi, pj, counts):
    """The single pre-order walk with an ancestor-object stack, in chunks.

    Chunk ``c`` walks cells ``bounds[c]:bounds[c + 1]``; it starts by pushing
    the objects of the first cell's ancestors (found by binary search among
    the earlier cells), then proceeds exactly like the whole walk would.
    Invariant: the stack holds exactly the entries of the current cell's
    ancestors, root first; ``cend``/``cnum`` hold each stacked cell's end
    code and entry count.
    """
    lvmask = (1 << _LEVEL_BITS) - 1
    for t in prange(todo.shape[0]):
        c = todo[t]
        st_x0 = np.empty(maxstack)
        st_y0 = np.empty(maxstack)
        st_x1 = np.empty(maxstack)
        st_y1 = np.empty(maxstack)
        st_obj = np.empty(maxstack, objs.dtype)
        st_qx = np.empty(maxstack, eqx.dtype)
        st_qy = np.empty(maxstack, eqy.dtype)
        cend = np.empty(depth + 2, np.int64)
        cnum = np.empty(depth + 2, np.int64)
        sp = 0
        top = 0
        cnt = 0
        nt = 0  # candidate tests, for LinearQuadtree.stats()
        cap = caps[c]  # candidates are written before being judged, within the slice
        base = offsets[c]
        c0 = bounds[c]
        if c0 < bounds[c + 1]:
            key0 = skeys[first[c0]] >> _SUB_BITS
            start0 = key0 >> _LEVEL_BITS
            for lv in range(key0 & lvmask):
                sh = 2 * (depth - lv)
                akey = (((start0 >> sh) << sh) << _LEVEL_BITS) | lv
                lo = 0
                hi = c0
                while lo < hi:
                    mid = (lo + hi) // 2
                    if (skeys[first[mid]] >> _SUB_BITS) < akey:
                        lo = mid + 1
                    else:
                        hi = mid
                if lo < c0 and (skeys[first[lo]] >> _SUB_BITS) == akey:
                    for e in range(first[lo], first[lo + 1]):
                        top = _push(e, top, objs, ex0, ey0, ex1, ey1, eqx, eqy,
                                    st_x0, st_y0, st_x1, st_y1, st_obj, st_qx, st_qy)
                    cend[sp] = ((start0 >> sh) + 1) << sh
                    cnum[sp] = first[lo + 1] - first[lo]
                    sp += 1
        for cc in range(c0, bounds[c + 1]):
            b = first[cc]
            e_end = first[cc + 1]
            key = skeys[b] >> _SUB_BITS
            start = key >> _LEVEL_BITS
            s = depth - (key & lvmask)
            inv2s = 1.0 / (1 << s)
            cell_x = compact(start)
            cell_y = compact(start >> 1)
            while sp > 0 and cend[sp - 1] <= start:
                sp -= 1
                top -= cnum[sp]
            for u in range(b, e_end):
                ux0 = ex0[u]
                uy0 = ey0[u]
                ux1 = ex1[u]
                uy1 = ey1[u]
                ou = objs[u]
                iu = ou if ou >= 0 else ~ou
                # no later entry of this cell overlaps once one starts past ux1
                umax = _sub((ux1 * 0.5 - x0 * 0.5) * scale, inv2s, cell_x >> s)
                qxu = eqx[u]
                qyu = eqy[u]
                # Own cell, later entries.  Two boxes can share several cells
                # only if both are replicated, and only a replicated deeper
                # entry can meet the same ancestor object twice: an entry of
                # a box entered once (ou >= 0) needs no reference point.
                # Branch-free: every candidate is written, the count only
                # advances for kept ones (a mispredicted branch per test
                # costs more than the two stores).  The two loops below are
                # repeated without the reference-point arithmetic for the
                # common unreplicated entry: 20% of the walk at n = 1e6.
                nt += top  # the ancestor tests below
                if ou >= 0:
                    for v in range(u + 1, e_end):
                        if (skeys[v] & _SUB_TOP) > umax:
                            break
                        nt += 1
                        ov = objs[v]
                        keep = (ux0 < ex1[v]) & (ex0[v] < ux1) & (uy0 < ey1[v]) & (ey0[v] < uy1)
                        jv = ov if ov >= 0 else ~ov
                        cnt = emit(iu, jv, keep, circles, groups, cats, masks, mode,
                                   pi, pj, base, cnt, cap)
                    for w in range(top):
                        ow = st_obj[w]
                        keep = ((ux0 < st_x1[w]) & (st_x0[w] < ux1) & (uy0 < st_y1[w])
                                & (st_y0[w] < uy1))
                        jw = ow if ow >= 0 else ~ow
                        cnt = emit(iu, jw, keep, circles, groups, cats, masks, mode,
                                   pi, pj, base, cnt, cap)
                    continue
                for v in range(u + 1, e_end):
                    if (skeys[v] & _SUB_TOP) > umax:
                        break
                    nt += 1
                    ov = objs[v]
                    keep = ((ux0 < ex1[v]) & (ex0[v] < ux1) & (uy0 < ey1[v]) & (ey0[v] < uy1)
                            & ((ov >= 0) | _holds(qxu, qyu, eqx[v], eqy[v], cell_x, cell_y, s)))
                    jv = ov if ov >= 0 else ~ov
                    cnt = emit(iu, jv, keep, circles, groups, cats, masks, mode,
                               pi, pj, base, cnt, cap)
                for w in range(top):
                    ow = st_obj[w]
                    keep = ((ux0 < st_x1[w]) & (st_x0[w] < ux1) & (uy0 < st_y1[w])
                            & (st_y0[w] < uy1)
                            & _holds(qxu, qyu, st_qx[w], st_qy[w], cell_x, cell_y, s))
                    jw = ow if ow >= 0 else ~ow
                    cnt = emit(iu, jw, keep, circles, groups, cats, masks, mode,
                               pi, pj, base, cnt, cap)
            if s == 0:
                continue  # a finest cell has no descendants: nothing to push
            for u in range(b, e_end):
                top = _push(u, top, objs, ex0, ey0, ex1, ey1, eqx, eqy,
                            st_x0, st_y0, st_x1, st_y1, st_obj, st_qx, st_qy)
            cend[sp] = start + (1 << (2 * s))
            cnum[sp] = e_end - b
            sp += 1
        counts[c] = cnt
        tests[c] = nt
