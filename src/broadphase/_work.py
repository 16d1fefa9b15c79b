"""Scratch buffers reused from one call to the next.

A pair search at n = 1e6 needs ~150 MB of temporaries (keys, sorted
entries, pair slices).  Fresh memory costs a page fault per 4 KiB on first
touch, which on small virtual machines is a large share of the whole search,
and games call the search every frame with about the same n.  So the
temporaries live here, grown by a quarter when too small, one set per
thread (concurrent calls from several Python threads never share).  Nothing
returned to the caller is ever a view of these buffers.
"""

from __future__ import annotations

import threading

import numpy as np

_local = threading.local()


def buffer(name: str, size: int, dtype) -> np.ndarray:
    """A 1-D scratch array of ``size`` elements (contents undefined)."""
    if size < 0:
        raise ValueError(f"size: expected a non-negative buffer size, found {size}")
    bufs = _local.__dict__.setdefault("bufs", {})
    arr = bufs.get(name)
    dtype = np.dtype(dtype)
    if arr is None or arr.dtype != dtype or arr.size < size:
        arr = np.empty(size + size // 4 + 64, dtype)
        bufs[name] = arr
    return arr[:size]


def release() -> None:
    """Drop this thread's scratch buffers (they are rebuilt on demand)."""
    _local.__dict__.pop("bufs", None)
