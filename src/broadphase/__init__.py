"""broadphase: every colliding pair among many 2D boxes and circles, exactly.

The one-call searches (``find_pairs``, ``find_circle_pairs``, ``find_pairs_between``)
take 3D boxes and spheres too.

>>> import numpy as np, broadphase as bp
>>> bp.find_pairs(np.array([[0, 0, 2, 2], [1, 1, 3, 3], [5, 5, 6, 6]])).tolist()
[[0, 1]]
"""

import os as _os

from . import _core, morton
from ._api import METHODS, find_circle_pairs, find_pairs, find_pairs_between
from ._casts import cast_rays, cast_rays_circles, find_swept_circle_pairs, find_swept_pairs
from ._contacts import Contacts
from ._depth import suggest_depth
from ._octree import LinearOctree
from ._points import find_point_pairs
from ._tree import LinearQuadtree

__all__ = ["METHODS", "Contacts", "LinearOctree", "LinearQuadtree", "cast_rays",
           "cast_rays_circles", "find_circle_pairs", "find_pairs", "find_pairs_between",
           "find_point_pairs", "find_swept_circle_pairs", "find_swept_pairs", "morton",
           "release_memory", "suggest_depth"]
__version__ = "0.1.0"

# Ctrl-C reaches long calls made on the main thread; in a child made by
# fork() that is the thread that forked (threading's own hook ran first).
if hasattr(_os, "register_at_fork"):
    _os.register_at_fork(after_in_child=_core.main_thread_changed)


def release_memory() -> None:
    """Give the memory broadphase keeps between calls back to the system.

    After a big search the core keeps its working buffers (up to 384 MiB)
    so that the next search of about that size does not allocate and
    fault in fresh pages; a big result's memory also returns to that pool
    when NumPy frees the array.  This frees those buffers and hands the
    allocator's free memory back to the operating system.  Worth calling
    in a long-lived process after a big call that will not recur soon, or
    in a worker under a memory limit between tasks; the next search merely
    allocates again.  Results already returned are not affected; a
    :class:`LinearQuadtree` keeps its own memory.

    Examples
    --------
    >>> import numpy as np, broadphase as bp
    >>> xy = np.random.default_rng(0).uniform(0, 1000, (200_000, 2))
    >>> pairs = bp.find_pairs(np.hstack([xy, xy + 5.0]))  # a big call
    >>> del pairs; bp.release_memory()  # the process gives the memory back
    >>> bp.find_pairs([[0, 0, 2, 2], [1, 1, 3, 3]]).tolist()
    [[0, 1]]
    """
    _core.release_scratch()
