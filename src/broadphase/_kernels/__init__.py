"""Numba kernels of the moving tree and the Dask tiles, until they are ported.

The static pair search runs in the Rust core (``rust/core``, exposed as
``broadphase._core``).  What remains here serves ``LinearQuadtree``
(``dynamic``, ``quadtree``'s walk, ``radix``, ``pairs``, ``narrow``,
``bigint``, ``morton``, ``check``) and the Dask tasks (``tiles``); nothing on
the ``find_pairs`` path imports this package.
"""
