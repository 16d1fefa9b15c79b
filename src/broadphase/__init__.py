"""broadphase: every colliding pair among many 2D boxes and circles, exactly.

>>> import numpy as np, broadphase as bp
>>> bp.find_pairs(np.array([[0, 0, 2, 2], [1, 1, 3, 3], [5, 5, 6, 6]])).tolist()
[[0, 1]]
"""

from . import morton
from ._api import METHODS, find_circle_pairs, find_pairs, find_pairs_between
from ._contacts import Contacts
from ._tree import LinearQuadtree

__all__ = ["METHODS", "Contacts", "LinearQuadtree", "find_circle_pairs", "find_pairs",
           "find_pairs_between", "morton"]
__version__ = "0.1.0"
