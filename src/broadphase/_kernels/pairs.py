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

from .narrow import accept
from .radix import sort_values


@njit(inline="always")
def emit(i, j, keep, circles, groups, cats, masks, mode, pi, pj, base, cnt, cap):
    """Write candidate (i, j) to the chunk slice; returns the count, advanced if kept.

    ``keep`` is the box test; the filters and the circle test follow here.
    Every candidate is written to the next free slot and only a kept one
    advances the count: no data-dependent branch around the stores.
    """
    if mode != 0 and keep:
        keep = accept(i, j, circles, groups, cats, masks, mode)
    if cnt < cap:
        pi[base + cnt] = min(i, j)
        pj[base + cnt] = max(i, j)
    return cnt + keep


# Rows of up to _ROW values are sorted by a sorting network; longer rows keep
# their first _ROW values there and merge the rest in afterwards.
_ROW = 8
_NONE = np.iinfo(np.int32).max  # pads short rows; above every object index


@njit(inline="always")
def _order(rows, a, b, w):
    """Compare-exchange rows ``a`` and ``b`` in every column: branch-free, vectorised."""
    ra = rows[a]
    rb = rows[b]
    for u in range(w):
        x = ra[u]
        y = rb[u]
        ra[u] = min(x, y)
        rb[u] = max(x, y)


@njit(cache=True)
def _sort8(rows, w):
    """Batcher's odd-even merge network for 8 values (19 compare-exchanges)."""
    _order(rows, 0, 1, w)
    _order(rows, 2, 3, w)
    _order(rows, 4, 5, w)
    _order(rows, 6, 7, w)
    _order(rows, 0, 2, w)
    _order(rows, 1, 3, w)
    _order(rows, 4, 6, w)
    _order(rows, 5, 7, w)
    _order(rows, 1, 2, w)
    _order(rows, 5, 6, w)
    _order(rows, 0, 4, w)
    _order(rows, 1, 5, w)
    _order(rows, 2, 6, w)
    _order(rows, 3, 7, w)
    _order(rows, 2, 4, w)
    _order(rows, 3, 5, w)
    _order(rows, 1, 2, w)
    _order(rows, 3, 4, w)
    _order(rows, 5, 6, w)


@njit(inline="always")
def _bucket_shift(n):
    """log2 of the objects per bucket: >= 4096 (or n), at most 256 buckets."""
    shift = 0
    while (n - 1) >> shift >= 256 or (1 << shift) < min(n, 4096):
        shift += 1
    return shift


@njit(cache=True, parallel=True)
def canonical(pi, pj, offsets, counts, n, ti, tj, out):
    """Rows sorted by (i, j) in O(n + k), cache-friendly and in parallel.

    1. Split the pairs by the high bits of i into at most 256 buckets of at
       least 4096 objects (a histogram and a scatter per chunk slice,
       positions laid out bucket-major, slice-minor: deterministic for any
       thread count).  ``ti``/``tj`` are scratch of at least k elements;
       ``out`` is the (k, 2) result, allocated by the caller (NumPy backs
       big arrays with huge pages where the system offers them, numba does
       not, and first-touch page faults on a fresh 32 MB result otherwise
       cost a third of this function).
    2. Per bucket, in cache: deal each pair's j into the column of its i,
       in a table of ``_ROW`` rows whose empty slots hold ``_NONE``.  Object
       i's partners are the first ``cnt[i]`` values of its column once the
       columns are sorted, which a sorting network does for all columns at
       once without a data-dependent branch (a per-object insertion sort
       mispredicts about once per object: it cost a third of the time).
       Partners beyond ``_ROW`` go to an overflow list, grouped by object
       with a counting sort and written after the row's first ``_ROW``.
    3. Those long rows (big boxes meet many) are sorted in place, in chunks
       of about equal total length, so that a few huge rows in one bucket
       still share the threads; a row of r values costs O(r) (radix sort,
       digits sized to the row).
    """
    shift = _bucket_shift(n)
    nb = ((n - 1) >> shift) + 1 if n > 0 else 1
    bstart = _split(pi, pj, offsets, counts, shift, nb, ti, tj)
    # Bucket b has at most (its pairs) // (_ROW + 1) long rows: room for
    # them from bstart[b] // (_ROW + 1) + b on, without overlapping b + 1.
    room = bstart[nb] // (_ROW + 1) + nb
    rstart = np.empty(room, np.int64)
    rlen = np.empty(room, np.int64)
    nlong = np.zeros(nb, np.int64)
    for b in prange(nb):
        base = b << shift
        at = bstart[b] // (_ROW + 1) + b
        nlong[b] = _finish_bucket(ti, tj, bstart[b], bstart[b + 1], base,
                                  min(1 << shift, n - base), out, rstart[at:], rlen[at:])
    total = nlong.sum()
    lstart = np.empty(total, np.int64)
    llen = np.empty(total, np.int64)
    q = 0
    for b in range(nb):
        at = bstart[b] // (_ROW + 1) + b
        lstart[q:q + nlong[b]] = rstart[at:at + nlong[b]]
        llen[q:q + nlong[b]] = rlen[at:at + nlong[b]]
        q += nlong[b]
    _sort_long_rows(out, lstart, llen, n)
    return out


@njit(cache=True, parallel=True)
def _split(pi, pj, offsets, counts, shift, nb, ti, tj):
    """Step 1: pairs into ``ti/tj``, bucket by bucket; returns bucket starts."""
    nseg = counts.shape[0]
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
    return bstart


@njit(cache=True)
def _finish_bucket(ti, tj, lo, hi, base, w, out, lstart, llen):
    """Step 2 for one bucket: ``out[lo:hi]``; returns the count of long rows recorded."""
    rows = np.full((_ROW, w), _NONE, tj.dtype)
    cnt = np.zeros(w, np.int64)
    over_i = np.empty(hi - lo, ti.dtype)
    over_j = np.empty(hi - lo, tj.dtype)
    nover = 0
    for t in range(lo, hi):
        u = ti[t] - base
        c = cnt[u]
        cnt[u] = c + 1
        if c < _ROW:
            rows[c, u] = tj[t]
        else:
            over_i[nover] = u
            over_j[nover] = tj[t]
            nover += 1
    _sort8(rows, w)
    if nover:  # group the overflow by object: counting sort on u
        ostart = np.zeros(w + 1, np.int64)
        for u in range(w):
            ostart[u + 1] = ostart[u] + max(cnt[u] - _ROW, 0)
        grouped = np.empty(nover, tj.dtype)
        for t in range(nover):
            u = over_i[t]
            grouped[ostart[u]] = over_j[t]
            ostart[u] += 1
    else:
        grouped = over_j[:0]
    p = lo
    q = 0
    nl = 0
    for u in range(w):
        c = cnt[u]
        for r in range(min(c, _ROW)):
            out[p + r, 0] = base + u
            out[p + r, 1] = rows[r, u]
        if c > _ROW:  # a long row: the rest, sorted in step 3
            for r in range(_ROW, c):
                out[p + r, 0] = base + u
                out[p + r, 1] = grouped[q]
                q += 1
            lstart[nl] = p
            llen[nl] = c
            nl += 1
        p += c
    return nl


@njit(cache=True, parallel=True)
def _sort_long_rows(out, lstart, llen, n):
    """Step 3: sort column 1 of each long row, in chunks of about equal work."""
    nl = lstart.shape[0]
    if nl == 0:
        return
    work = np.zeros(nl + 1, np.int64)
    for r in range(nl):
        work[r + 1] = work[r] + llen[r]
    nch = max(1, min(64, nl, work[nl] // 65536))
    cuts = np.empty(nch + 1, np.int64)
    r = 0
    for c in range(nch + 1):  # first row whose work starts at or past c/nch of the total
        while r < nl and work[r] < work[nl] * c // nch:
            r += 1
        cuts[c] = r
    cuts[nch] = nl
    nbits = max(1, _bit_length(n - 1))
    for c in prange(nch):
        longest = 0
        for r in range(cuts[c], cuts[c + 1]):
            longest = max(longest, llen[r])
        buf = np.empty(longest, out.dtype)
        tmp = np.empty(longest, out.dtype)
        for r in range(cuts[c], cuts[c + 1]):
            a = lstart[r]
            m = llen[r]
            for t in range(m):
                buf[t] = out[a + t, 1]
            if m > 32:
                sort_values(buf[:m], tmp[:m], nbits)
            else:
                _insertion_sort(buf, m)
            for t in range(m):
                out[a + t, 1] = buf[t]


@njit(inline="always")
def _insertion_sort(a, m):
    """Sort ``a[:m]``: short rows, where a call to a library sort costs more."""
    for t in range(1, m):
        v = a[t]
        w = t - 1
        while w >= 0 and a[w] > v:
            a[w + 1] = a[w]
            w -= 1
        a[w + 1] = v


@njit(inline="always")
def _bit_length(v):
    b = 0
    while v > 0:
        v >>= 1
        b += 1
    return b
