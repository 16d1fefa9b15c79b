"""Numba kernels of the Dask tiles (``tiles``), until they are ported to the Rust core.

Everything else runs in the Rust core (``rust/core``, exposed as
``broadphase._core``); only ``broadphase.dask``'s tasks import this package.
"""
