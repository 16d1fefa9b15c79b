"""The Numba walk that ``LinearQuadtree`` still runs on.

The static pair search lives in the Rust core (``broadphase._core``); the
moving tree keeps its Numba kernels until it is ported too.  This module
holds the two steps of the old static driver that the tree shares: the radix
sort of its entries and the one-pass walk over them.  Importing it imports
Numba, so nothing on the ``find_pairs`` path may import it.
"""

from __future__ import annotations

import numpy as np

from . import _work
from ._chunks import _IDX, balanced, chunk_count, collect
from ._kernels import quadtree as _qt
from ._kernels import radix as _radix


def _guess(n: int) -> int:
    # First capacity for the pair slices; chunks that find more are re-run.
    return 3 * n + 1024


def sorted_entries(keys, objs, nbits, grain=_radix._GRAIN):
    """Radix-sort (key, object) entries, using scratch for the second copy."""
    kb = _work.buffer("kb", keys.shape[0], np.int64)
    vb = _work.buffer("vb", objs.shape[0], objs.dtype)
    return _radix.sort_pairs(keys, objs, kb, vb, nbits, grain)


def walk_sorted(skeys, sobjs, boxes, x0, y0, sx, sy, depth, narrow, n):
    """Walk entries already in walk order: ``(pairs, candidate tests)``.

    ``n`` bounds the object indices, ``sx``/``sy`` are the two axes' scales,
    ``narrow`` the ``(shapes, groups, cats, masks, mode)`` of the narrow phase.
    """
    first = _radix.run_starts(skeys, _qt.SUB_BITS)
    maxstack = _qt.max_stack(skeys, first, depth)
    m = skeys.shape[0]
    cols = [_work.buffer(f"c{t}", m, np.float64) for t in range(4)]
    cols += [_work.buffer(f"q{t}", m, _IDX) for t in range(2)]
    _qt.gather(sobjs, boxes, x0, y0, sx, sy, depth, *cols)
    nchunks = chunk_count(m, grain=1024)  # a few chunks per thread: balance
    cb = balanced(first, nchunks)
    tests = np.zeros(nchunks, np.int64)
    args = (skeys, sobjs, first, *cols, x0, sx, depth, maxstack, cb) + narrow + (tests,)
    pairs = collect(_qt.walk, args, nchunks, n, _guess(n))
    return pairs, int(tests.sum())
