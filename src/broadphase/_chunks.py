"""Running a chunked pair kernel: grow-and-retry buffers, then canonical order.

A pair kernel takes ``(..., todo, offsets, caps, pi, pj, counts)`` as its last
arguments (see ``_kernels/pairs.py``).  The first run gives every chunk a
guessed capacity; chunks that found more pairs than fit report their exact
count and are run once more into a buffer of exactly that size, so dense
inputs cost one extra pass over the crowded chunks only.
"""

from __future__ import annotations

import numpy as np

from . import _work
from ._kernels.pairs import canonical

# Pair slices hold object indices as int32 (halving the traffic); the public
# result is intp.  The API refuses n >= 2**31.
_IDX = np.int32


def balanced(weights_cumsum: np.ndarray, nchunks: int) -> np.ndarray:
    """Chunk boundaries over items whose cumulative work is ``weights_cumsum``.

    ``weights_cumsum`` has one more element than there are items (starting
    at 0); the result has ``nchunks + 1`` item indices, first 0, last n.
    """
    n = weights_cumsum.shape[0] - 1
    targets = np.linspace(0, weights_cumsum[-1], nchunks + 1)
    bounds = np.searchsorted(weights_cumsum, targets, side="left").astype(np.int64)
    bounds[0] = 0
    bounds[-1] = n
    return np.maximum.accumulate(bounds)


def chunk_count(work: int, grain: int = 1 << 12, most: int = 256) -> int:
    """Chunks for ``work`` items: fixed by the data, never by the thread count."""
    return int(min(most, max(1, work // grain)))


def collect(kernel, args: tuple, nchunks: int, n: int, guess: int) -> np.ndarray:
    """Run ``kernel(*args, todo, offsets, caps, pi, pj, counts)``; canonical pairs."""
    caps = np.full(nchunks, guess // nchunks + 64, np.int64)
    offsets = _offsets(caps)
    pi = _work.buffer("pi", int(caps.sum()), _IDX)
    pj = _work.buffer("pj", int(caps.sum()), _IDX)
    counts = np.zeros(nchunks, np.int64)
    kernel(*args, np.arange(nchunks, dtype=np.int64), offsets, caps, pi, pj, counts)
    over = np.flatnonzero(counts > caps).astype(np.int64)
    if over.size:
        new_caps = np.maximum(caps, counts)
        new_offsets = _offsets(new_caps)
        qi = _work.buffer("qi", int(new_caps.sum()), _IDX)
        qj = _work.buffer("qj", int(new_caps.sum()), _IDX)
        for c in np.flatnonzero(counts <= caps):
            a, b, k = offsets[c], new_offsets[c], counts[c]
            qi[b:b + k] = pi[a:a + k]
            qj[b:b + k] = pj[a:a + k]
        kernel(*args, over, new_offsets, new_caps, qi, qj, counts)
        pi, pj, offsets = qi, qj, new_offsets
    k = int(counts.sum())
    return canonical(pi, pj, offsets, counts, n, _work.buffer("ti", k, _IDX),
                     _work.buffer("tj", k, _IDX), np.empty((k, 2), np.intp))


def _offsets(caps: np.ndarray) -> np.ndarray:
    off = np.zeros(caps.shape[0], np.int64)
    np.cumsum(caps[:-1], out=off[1:])
    return off
