"""What changes the objects of :class:`LinearOctree`: insert, move and remove.

The methods live here (a mixin ``LinearOctree`` inherits), as
:mod:`._tree_edits` holds the quadtree's: each checks its arguments
(:mod:`._octree_args`, :mod:`._tree_args`), hands valid rows to the core's
tree (``_core.Tree3``) and words what the core finds wrong through
:class:`._tree_base._TreeBase`; a periodic tree's objects go through its
periodic calls there.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _cast_options, _core
from ._octree_args import _boxes, _spheres
from ._tree_args import _handle_array, _same_length
from ._tree_base import BOX, CIRCLE, _TreeBase

__all__: list[str] = []


class _OctreeEdits(_TreeBase):
    """The inserts, moves and removals of :class:`LinearOctree`."""

    _t: _core.Tree3

    def insert(self, boxes: ArrayLike, groups: ArrayLike | None = None,
               categories: ArrayLike | None = None,
               masks: ArrayLike | None = None) -> NDArray[np.intp]:
        """Add boxes; returns their handles.

        Parameters
        ----------
        boxes : array_like, shape (n, 6) or (6,)
            ``minx, miny, minz, maxx, maxy, maxz`` per row, or a table with
            those columns.
        groups, categories, masks : int or array_like, optional
            As in :func:`broadphase.find_pairs`.

        Returns
        -------
        ndarray of intp, shape (n,)

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearOctree((0, 0, 0, 8, 8, 8), depth=2)
        >>> tree.insert([[0, 0, 0, 2, 2, 2], [1, 1, 1, 3, 3, 3]], groups=[1, 1]).tolist()
        [0, 1]
        >>> tree.pairs().shape
        (0, 2)
        """
        arr = _boxes(boxes)
        return self._insert_boxes(arr, _cast_options.filters(arr.shape[0], groups, categories,
                                                             masks))

    def insert_spheres(self, centers: ArrayLike, radii: ArrayLike | None = None,
                       groups: ArrayLike | None = None,
                       categories: ArrayLike | None = None,
                       masks: ArrayLike | None = None) -> NDArray[np.intp]:
        """Add spheres; returns their handles.

        Parameters
        ----------
        centers : array_like, shape (n, 3) or (3,)
            ``x, y, z`` per row, or a table with columns ``x, y, z`` (and
            ``r``).
        radii : float or array_like, shape (n,)
            Radii >= 0; a scalar applies to every sphere.
        groups, categories, masks : int or array_like, optional
            As in :func:`broadphase.find_pairs`.

        Returns
        -------
        ndarray of intp, shape (n,)

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearOctree((0, 0, 0, 8, 8, 8), depth=2)
        >>> h = tree.insert_spheres([[1, 1, 1], [2, 2, 2], [4, 4, 4]], 0.9)
        >>> tree.pairs().tolist()   # |c0 - c1| = 1.73 < 1.8; |c1 - c2| = 3.46
        [[0, 1]]
        """
        self._open_only("insert_spheres")
        xyzr, bxs = _spheres(centers, radii)
        filters = _cast_options.filters(xyzr.shape[0], groups, categories, masks)
        return self._insert_balls(xyzr, bxs, filters, "insert_spheres", radii)

    def move(self, handles: ArrayLike, boxes: ArrayLike) -> None:
        """Give box objects new boxes.

        Parameters
        ----------
        handles : int or array_like of int, shape (n,)
            Box objects, each at most once.
        boxes : array_like, shape (n, 6) or (6,)
            Their new ``minx, miny, minz, maxx, maxy, maxz``.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearOctree((0, 0, 0, 8, 8, 8), depth=2)
        >>> h = tree.insert([[0, 0, 0, 1, 1, 1], [5, 5, 5, 6, 6, 6]])
        >>> tree.move(h[1], [0.5, 0.5, 0.5, 1.5, 1.5, 1.5])
        >>> tree.pairs().tolist()
        [[0, 1]]
        """
        h = _handle_array(handles)
        arr = _boxes(boxes)
        if self._p is not None:
            return self._move_periodic(h, BOX, arr, instead="move_spheres moves spheres")
        if arr.shape[0] != h.shape[0]:
            self._check(h, BOX, instead="move_spheres moves spheres")
            _same_length(h, arr, "boxes")
        arr, signed = self._stored(arr, "boxes")
        problem = self._t.move_boxes(h, arr)
        if problem is not None:
            self._raise(problem, h, BOX, arr, "boxes", instead="move_spheres moves spheres")
        self._kept(h, signed)

    def move_spheres(self, handles: ArrayLike, centers: ArrayLike,
                     radii: ArrayLike | None = None) -> None:
        """Give sphere objects new centres (and radii).

        Parameters
        ----------
        handles : int or array_like of int, shape (n,)
            Sphere objects, each at most once.
        centers : array_like, shape (n, 3) or (3,)
            Their new centres.
        radii : float or array_like, shape (n,), optional
            New radii; by default each keeps its own.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearOctree((0, 0, 0, 8, 8, 8), depth=2)
        >>> h = tree.insert_spheres([[1, 1, 1], [6, 6, 6]], 1.0)
        >>> tree.move_spheres(h[1], [2, 1, 1])
        >>> tree.pairs().tolist()
        [[0, 1]]
        """
        h = _handle_array(handles)
        self._check(h, CIRCLE, instead="move moves boxes")
        xyzr, _ = _spheres(centers, self._t.radii(h) if radii is None else radii)
        _same_length(h, xyzr, "centers")
        if self._p is not None:
            return self._move_periodic(h, CIRCLE, xyzr, radii, instead="move moves boxes")
        problem = self._t.move_spheres(h, xyzr)
        if problem is not None:
            self._raise(problem, h, CIRCLE, xyzr, "centers", instead="move moves boxes")

    def remove(self, handles: ArrayLike) -> None:
        """Take objects out; their handles may be reused by later inserts.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearOctree((0, 0, 0, 8, 8, 8), depth=2)
        >>> h = tree.insert([[0, 0, 0, 1, 1, 1], [5, 5, 5, 6, 6, 6]])
        >>> tree.remove(h[0]); len(tree)
        1
        """
        self._remove_handles(_handle_array(handles))
