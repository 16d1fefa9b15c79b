"""Pair buffers: chunked output and the one canonical pair order.

Parallel kernels split their work into chunks fixed by the data (never by the
thread count).  Chunk ``c`` writes its pairs to ``pi/pj[offsets[c]:offsets[c]
+ caps[c]]`` and always stores how many it found in ``counts[c]``; a chunk
that found more than its capacity is run again with the exact capacity (see
``broadphase._chunks``).  Kernels write each candidate to the next free slot
before judging it and only advance the count for a kept pair: the test's
outcome is data-dependent and a mispredicted branch per candidate costs more
than two stores.  :func:`canonical` then turns the chunk slices into
the public convention: ``(k, 2)`` intp, ``i < j``, rows sorted.
"""

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def canonical(pi, pj, offsets, counts, n, ti, tj):
    """Rows sorted by (i, j) in O(n + k), cache-friendly and in parallel.

    1. Split the pairs by the high bits of i into at most 1024 buckets (a
       histogram and a scatter per chunk slice, positions laid out
       bucket-major, slice-minor: deterministic for any thread count).
       ``ti``/``tj`` are scratch of at least k elements.
    2. Each bucket spans few enough objects that a counting sort on i fits
       in cache; each run of equal i (the neighbours of one object: short)
       is then sorted by j and written out.
    """
    nseg = counts.shape[0]
    # about 4096 pairs per bucket: few buckets (few allocations) for small k
    want = max(1, min(1024, counts.sum() // 16384))
    shift = 0
    while (n - 1) >> shift >= want:
        shift += 1
    nb = ((n - 1) >> shift) + 1 if n > 0 else 1
    hist = np.zeros((nseg, nb), np.int64)
    for s in prange(nseg):
        for t in range(offsets[s], offsets[s] + counts[s]):
            hist[s, pi[t] >> shift] += 1
    bstart = np.empty(nb + 1, np.int64)
    total = 0
    for b in range(nb):
        bstart[b] = total
        for s in range(nseg):
            v = hist[s, b]
            hist[s, b] = total
            total += v
    bstart[nb] = total
    for s in prange(nseg):
        h = hist[s]
        for t in range(offsets[s], offsets[s] + counts[s]):
            b = pi[t] >> shift
            q = h[b]
            h[b] = q + 1
            ti[q] = pi[t]
            tj[q] = pj[t]
    out = np.empty((total, 2), np.intp)
    width = 1 << shift
    for b in prange(nb):
        lo = bstart[b]
        hi = bstart[b + 1]
        base = b << shift
        start = np.zeros(width + 1, np.int64)
        for t in range(lo, hi):
            start[ti[t] - base + 1] += 1
        for u in range(width):
            start[u + 1] += start[u]
        col = np.empty(hi - lo, pj.dtype)
        for t in range(lo, hi):
            u = ti[t] - base
            col[start[u]] = tj[t]
            start[u] += 1
        a = 0
        for u in range(width):
            z = start[u]  # now the end of run u
            if z - a > 32:
                col[a:z] = np.sort(col[a:z])
            else:
                # Insertion sort, written out: a call with array arguments
                # costs reference counting per object, more than the sort.
                for t in range(a + 1, z):
                    v = col[t]
                    w = t - 1
                    while w >= a and col[w] > v:
                        col[w + 1] = col[w]
                        w -= 1
                    col[w + 1] = v
            for t in range(a, z):
                out[lo + t, 0] = base + u
                out[lo + t, 1] = col[t]
            a = z
    return out
