"""The pairs, events and object and region questions of :class:`LinearOctree`.

The methods live here (a mixin ``LinearOctree`` inherits), answered in
handles: every colliding pair and the contact events
(:meth:`~LinearOctree.pairs`, :meth:`~LinearOctree.update`), what touches
an object, overlaps a box or contains a point
(:meth:`~LinearOctree.touching`, :meth:`~LinearOctree.query`,
:meth:`~LinearOctree.query_many`, :meth:`~LinearOctree.query_point`), and
an object's stored shape and cell (:meth:`~LinearOctree.boxes`,
:meth:`~LinearOctree.spheres`, :meth:`~LinearOctree.locate`).  A periodic
tree answers through its periodic search (``self._p``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _core, _exact
from ._octree_args import _boxes
from ._tree_args import _handle_array, _max_rows
from ._tree_base import BOX, CIRCLE, _TreeBase

__all__: list[str] = []


class _OctreeQueries(_TreeBase):
    """The pairs, events and questions about objects and regions of :class:`LinearOctree`."""

    _t: _core.Tree3

    def pairs(self) -> NDArray[np.intp]:
        """Every colliding pair of handles, ``(k, 2)`` intp, ``i < j``, rows sorted.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearOctree((0, 0, 0, 8, 8, 8), depth=2)
        >>> _ = tree.insert([[0, 0, 0, 2, 2, 2], [1, 1, 1, 3, 3, 3], [2, 2, 2, 4, 4, 4]])
        >>> tree.pairs().tolist()   # 0 and 2 only touch at a corner
        [[0, 1], [1, 2]]
        """
        if self._p is not None:
            return self._p.pairs(self._t.workers)
        return self._t.pairs()

    def update(self) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """Contact events: the pairs that began and that ended since the last ``update()``.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearOctree((0, 0, 0, 8, 8, 8), depth=2)
        >>> h = tree.insert([[0, 0, 0, 2, 2, 2], [1, 1, 1, 3, 3, 3]])
        >>> [e.tolist() for e in tree.update()]
        [[[0, 1]], []]
        >>> tree.move(h[1], [5, 5, 5, 6, 6, 6]); [e.tolist() for e in tree.update()]
        [[], [[0, 1]]]
        """
        if self._p is not None:
            return self._p.update(self._t.workers)
        return self._t.update()

    def touching(self, handle: int) -> NDArray[np.intp]:
        """Sorted handles of the objects colliding with ``handle`` (itself left out).

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearOctree((0, 0, 0, 8, 8, 8), depth=2)
        >>> _ = tree.insert([[0, 0, 0, 2, 2, 2], [1, 1, 1, 3, 3, 3], [6, 6, 6, 7, 7, 7]])
        >>> tree.touching(1).tolist()
        [0]
        """
        if self._p is not None:
            return self._p.touching(self._one(handle), self._t.workers)
        return self._t.touching(self._one(handle))

    def query(self, box: ArrayLike) -> NDArray[np.intp]:
        """Sorted handles of the objects that overlap ``box`` (touching does not count).

        In a tree made with ``touching=True`` the region is closed too: a
        box it touches is found.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearOctree((0, 0, 0, 8, 8, 8), depth=2)
        >>> _ = tree.insert([[0, 0, 0, 2, 2, 2], [5, 5, 5, 6, 6, 6]])
        >>> tree.query([1, 1, 1, 5.5, 5.5, 5.5]).tolist()
        [0, 1]
        """
        q = _boxes(box, "box")
        if q.shape[0] != 1:
            raise ValueError(f"box: expected one box (minx, miny, minz, maxx, maxy, maxz), "
                             f"found {q.shape[0]} rows")
        if self._p is not None:
            return self._regions_periodic(q, "query", "box")[:, 1].copy()
        return self._t.query(self._region(q)[0].tolist())
    def query_many(self, boxes: ArrayLike, *, max_rows: int | None = None) -> NDArray[np.intp]:
        """For many boxes at once, the objects overlapping each: rows ``(query, handle)``.

        Parameters
        ----------
        boxes : array_like, shape (m, 6)
            The regions, read as :meth:`insert` reads boxes.
        max_rows : int, optional
            Raise ``MemoryError`` rather than return more rows than this.

        Returns
        -------
        ndarray of intp, shape (k, 2)
            Row ``(q, h)`` when object ``h`` overlaps ``boxes[q]``; sorted.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearOctree((0, 0, 0, 8, 8, 8), depth=2)
        >>> h = tree.insert([[0, 0, 0, 1, 1, 1], [5, 5, 5, 6, 6, 6]])
        >>> tree.query_many([[0.5, 0.5, 0.5, 5.5, 5.5, 5.5], [2, 2, 2, 3, 3, 3]]).tolist()
        [[0, 0], [0, 1]]
        """
        if self._p is not None:
            return self._regions_periodic(_boxes(boxes), "query_many", "boxes",
                                          _max_rows(max_rows))
        q = self._region(_boxes(boxes))
        found = self._t.query_many(q, _max_rows(max_rows))
        if type(found) is _core.BadRow:  # a row written by another thread since it was checked
            self._raise(found, None, BOX, q, "boxes")
        return found

    def query_point(self, x: float, y: float, z: float) -> NDArray[np.intp]:
        """Sorted handles of the objects strictly containing the point ``(x, y, z)``.

        In a tree made with ``touching=True``, the boxes holding it, their
        faces included.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearOctree((0, 0, 0, 8, 8, 8), depth=2)
        >>> _ = tree.insert([0, 0, 0, 2, 2, 2]); _ = tree.insert_spheres([3, 3, 3], 1.5)
        >>> tree.query_point(1, 1, 1).tolist(), tree.query_point(2.5, 2.5, 2.5).tolist()
        ([0], [1])
        """
        point = _exact.real(x, "x"), _exact.real(y, "y"), _exact.real(z, "z")
        if self._closed:
            return self._point_region(*point)
        if self._p is not None:
            return self._p.point(point, self._t.workers)
        return self._t.query_point(*point)

    def boxes(self, handles: ArrayLike) -> NDArray[np.float64]:
        """The boxes of objects, as stored (a sphere's: its outward-rounded bounding box).

        In a tree made with ``touching=True``, exactly as inserted or moved.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearOctree((0, 0, 0, 8, 8, 8), depth=2)
        >>> h = tree.insert([0, 0, 0, 1, 2, 3])
        >>> tree.boxes(h[0]).tolist()
        [0.0, 0.0, 0.0, 1.0, 2.0, 3.0]
        """
        h = _handle_array(handles)
        self._check(h, -1)
        out = np.array([self._t.box_of(int(k)) for k in h], np.float64).reshape(-1, 6)
        out = self._as_given(h, out)
        return out[0] if np.ndim(handles) == 0 else out

    def spheres(self, handles: ArrayLike) -> NDArray[np.float64]:
        """Centres and radii ``x, y, z, r`` of sphere objects.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearOctree((0, 0, 0, 8, 8, 8), depth=2)
        >>> h = tree.insert_spheres([1, 2, 3], 0.5)
        >>> tree.spheres(h[0]).tolist()
        [1.0, 2.0, 3.0, 0.5]
        """
        h = _handle_array(handles)
        self._check(h, CIRCLE, instead="boxes reads any object's box")
        out = np.array([self._t.sphere_of(int(k)) for k in h], np.float64).reshape(-1, 4)
        return out[0] if np.ndim(handles) == 0 else out

    def locate(self, handle: int) -> tuple[int, int]:
        """The seeds' cell of an object: ``(level, index)`` of the smallest cell holding its box.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearOctree((0, 0, 0, 8, 8, 8), depth=2)
        >>> h = tree.insert([[0.5, 0.5, 0.5, 1.5, 1.5, 1.5], [3, 3, 3, 5, 5, 5]])
        >>> tree.locate(h[0]), tree.locate(h[1])
        ((2, 0), (0, 0))
        """
        return self._t.locate(self._one(handle))
