"""broadphase: every colliding pair among many 2D boxes and circles, exactly.

>>> import numpy as np, broadphase as bp
>>> bp.find_pairs(np.array([[0, 0, 2, 2], [1, 1, 3, 3], [5, 5, 6, 6]])).tolist()
[[0, 1]]
"""

from . import morton
from ._api import METHODS, find_circle_pairs, find_pairs, find_pairs_between
from ._contacts import Contacts

__all__ = ["METHODS", "Contacts", "LinearQuadtree", "find_circle_pairs", "find_pairs",
           "find_pairs_between", "morton"]
__version__ = "0.1.0"


def __getattr__(name: str):
    # The moving tree still runs on Numba kernels: imported on first use, so
    # that ``import broadphase`` and the pair search never load Numba.
    if name == "LinearQuadtree":
        from ._tree import LinearQuadtree

        return LinearQuadtree
    raise AttributeError(f"module 'broadphase' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
