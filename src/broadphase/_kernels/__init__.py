"""Compiled kernels: pure ``@njit(cache=True)`` functions over contiguous arrays.

One module per algorithm (``brute``, ``sweep``, ``grid``, ``quadtree``) plus
the shared pieces (``narrow``: exact predicates and filters; ``morton``: the
seeds' bit arithmetic; ``radix``: sorting keys; ``pairs``: canonical output;
``check``: input scan).  No validation happens here: the public layer hands
in arrays of the right dtype, shape and contiguity.
"""
