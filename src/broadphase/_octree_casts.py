"""Ray casts and swept pairs of :class:`LinearOctree`, answered in handles.

The methods live here (a mixin ``LinearOctree`` inherits): the quadtree's
(:mod:`._tree_casts`, which checks the arguments and asks the core) in 3D,
with their own documentation; refused in a tree made with
``touching=True`` or ``period=``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _core
from ._casts import CastResult
from ._tree_casts import _TreeCasts

__all__: list[str] = []


class _OctreeCasts(_TreeCasts):
    """The casts and swept pairs of :class:`LinearOctree`."""

    _t: _core.Tree3

    def cast_rays(self, origins: ArrayLike, directions: ArrayLike, *,
                  max_t: float | ArrayLike = math.inf, hits: str = "first",
                  ray_categories: ArrayLike | None = None, ray_masks: ArrayLike | None = None,
                  ignore: int | ArrayLike | None = None,
                  workers: int | None = None) -> CastResult:
        """Cast many rays (or segments) at the tree's objects: first, all or any hits.

        As :meth:`broadphase.LinearQuadtree.cast_rays` in 3D: ray ``k`` is
        ``origins[k] + s * directions[k]`` for ``0 <= s <= max_t``; it hits
        a box or a sphere when one of its points lies strictly inside, and
        enters at the least such ``s``.  Decisions and the order of hits are
        exact, between boxes and spheres too; ties go to the lower handle.

        Parameters
        ----------
        origins, directions : array_like, shape (m, 3)
            ``x, y, z`` and ``dx, dy, dz`` per ray, finite.
        max_t, hits, ray_categories, ray_masks, ignore, workers
            As in :meth:`broadphase.LinearQuadtree.cast_rays`.

        Returns
        -------
        tuple or ndarray
            As in :func:`broadphase.cast_rays`, naming objects by handle.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearOctree((0, 0, 0, 16, 16, 16), depth=3)
        >>> wall = tree.insert([6, 0, 0, 7, 16, 16])[0]
        >>> ball = tree.insert_spheres([[3, 8, 8]], 1.0)[0]
        >>> index, t = tree.cast_rays([[0, 8, 8], [0, 2, 2]], [[1, 0, 0], [1, 0, 0]])
        >>> index.tolist(), t.tolist()
        ([1, 0], [2.0, 6.0])
        """
        self._open_only("cast_rays")
        self._no_period("cast_rays")
        return self._cast(origins, directions, max_t, hits, ray_categories, ray_masks, ignore,
                          workers, 3)

    def swept_pairs(self) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        """The pairs that overlapped at some moment since the last call (continuous collision).

        As :meth:`broadphase.LinearQuadtree.swept_pairs` in 3D: each live
        object moves linearly from where it was at the previous call to
        where it is now; a pair is found when the two overlap strictly at
        some moment ``s`` in ``[0, 1]``, with the first such ``s``.

        Returns
        -------
        pairs : ndarray of intp, shape (k, 2)
        t : ndarray of float64, shape (k,)

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearOctree((0, 0, 0, 64, 64, 64), depth=3)
        >>> bullet, wall = tree.insert([[0, 0, 0, 4, 4, 4], [20, 0, 0, 23, 30, 30]])
        >>> _ = tree.swept_pairs()                    # the frame's start
        >>> tree.move(bullet, [40, 0, 0, 44, 4, 4])   # through the wall in one frame
        >>> tree.pairs().tolist(), [a.tolist() for a in tree.swept_pairs()]
        ([], [[[0, 1]], [0.4]])
        """
        self._open_only("swept_pairs")
        self._no_period("swept_pairs")
        return _core.tree_swept_pairs(self._t)
