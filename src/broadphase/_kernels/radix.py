"""Stable LSD radix sort of non-negative int64 keys, carrying a payload.

The pair kernels sort cell keys whose width is known (2L + 5 bits for the
quadtree), so a few counting passes beat a comparison sort: each pass is a
histogram and a scatter.  Both run in parallel over chunks fixed by the
data; bucket positions are laid out digit-major, chunk-minor, so the result
is the same stable order for any thread count.  The digit width is the
width divided evenly over the fewest passes of at most 11 bits (23 bits:
three passes of 8), which keeps the scatter's write streams few.  A pass
whose digit is the same for every key is skipped.
"""

import numpy as np
from numba import njit, prange

_MAX_BITS = 11
# Chunks of at least 16K keys (so 1e5 keys use both cores: 1.5 ms instead
# of 2.3 serial), at most 16 (more only grow the histograms at 1e6).
_GRAIN = 1 << 14
_MAX_CHUNKS = 16


@njit(cache=True, parallel=True)
def sort_pairs(ka, va, kb, vb, nbits, grain=_GRAIN):
    """Sort keys ``ka`` (>= 0, below 2**nbits) stably, permuting ``va`` alike.

    ``kb``/``vb`` are scratch of the same sizes; the passes ping-pong between
    the two pairs, so both are overwritten.  Returns the pair (keys, values)
    that holds the result.  ``grain``: fewest keys per chunk.
    """
    n = ka.shape[0]
    passes = max(1, (nbits + _MAX_BITS - 1) // _MAX_BITS)
    bits = (nbits + passes - 1) // passes
    radix = 1 << bits
    mask = radix - 1
    nch = max(1, min(_MAX_CHUNKS, n // grain))
    hist = np.empty((nch, radix), np.int64)
    for p in range(passes):
        shift = p * bits
        for c in prange(nch):
            h = hist[c]
            h[:] = 0
            for i in range(c * n // nch, (c + 1) * n // nch):
                h[(ka[i] >> shift) & mask] += 1
        if n == 0 or hist[:, (ka[0] >> shift) & mask].sum() == n:
            continue  # every key has this digit: the pass would not move anything
        total = 0
        for d in range(radix):
            for c in range(nch):
                v = hist[c, d]
                hist[c, d] = total
                total += v
        for c in prange(nch):
            h = hist[c]
            for i in range(c * n // nch, (c + 1) * n // nch):
                d = (ka[i] >> shift) & mask
                q = h[d]
                h[d] = q + 1
                kb[q] = ka[i]
                vb[q] = va[i]
        ka, kb = kb, ka
        va, vb = vb, va
    return ka, va


@njit(cache=True)
def run_starts(skeys, drop):
    """Start of every run of keys equal above their low ``drop`` bits, plus ``len``."""
    m = skeys.shape[0]
    first = np.empty(m + 1, np.int64)
    nc = 0
    for e in range(m):
        if e == 0 or (skeys[e] >> drop) != (skeys[e - 1] >> drop):
            first[nc] = e
            nc += 1
    first[nc] = m
    return first[: nc + 1].copy()


@njit(cache=True)
def sort_values(a, tmp, nbits):
    """Sort non-negative integers ``a`` (below 2**nbits) in place; serial.

    For one thread's share of a parallel job (a long row of pairs): LSD
    passes over digits of about log2(len(a)) bits (4 to 11), so a short
    array does not pay for 2048 counters per pass; ping-pongs with the
    scratch ``tmp``.
    """
    n = a.shape[0]
    width = 4
    while width < _MAX_BITS and (2 << width) <= n:
        width += 1
    passes = max(1, (nbits + width - 1) // width)
    bits = (nbits + passes - 1) // passes
    mask = (1 << bits) - 1
    count = np.empty((1 << bits) + 1, np.int64)
    src = a
    dst = tmp
    for p in range(passes):
        shift = p * bits
        count[:] = 0
        for i in range(n):
            count[((src[i] >> shift) & mask) + 1] += 1
        for d in range(1 << bits):
            count[d + 1] += count[d]
        for i in range(n):
            d = (src[i] >> shift) & mask
            dst[count[d]] = src[i]
            count[d] += 1
        src, dst = dst, src
    if passes % 2 == 1:  # the result sits in tmp
        a[:] = tmp
