"""The box check of the moving tree's kernels (``dynamic``).

The static search checks its input in the Rust core (``rust/core/src/check.rs``);
this is the same rule for the Numba kernels that remain until the tree is
ported.
"""

import math

from numba import njit

# Problem codes returned with the bad row.
OK = 0
NOT_FINITE = 1
X_REVERSED = 2
Y_REVERSED = 3


@njit(inline="always")
def box_problem(x0, y0, x1, y1):
    """OK, or what is wrong with the box: NOT_FINITE, X_REVERSED or Y_REVERSED (first found)."""
    if not (math.isfinite(x0) and math.isfinite(y0) and math.isfinite(x1) and math.isfinite(y1)):
        return NOT_FINITE
    if x0 > x1:
        return X_REVERSED
    if y0 > y1:
        return Y_REVERSED
    return OK
