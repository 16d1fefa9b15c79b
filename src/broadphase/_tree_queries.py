"""The one-object and region questions of :class:`LinearQuadtree`, answered in handles.

The methods live here (a mixin ``LinearQuadtree`` inherits): what touches
an object (:meth:`~LinearQuadtree.touching`), what overlaps a box or
contains a point (:meth:`~LinearQuadtree.query`,
:meth:`~LinearQuadtree.query_point`), many boxes at once
(:meth:`~LinearQuadtree.query_many`), and an object's stored shape and
cell (:meth:`~LinearQuadtree.boxes`, :meth:`~LinearQuadtree.circles`,
:meth:`~LinearQuadtree.locate`, ``in``).  One object's call first tries
the core's direct path for Python numbers, tuples and rects (``_core.tree_*``,
``None`` when it does not apply), then checks its arguments here.
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _cast, _core
from ._tree_args import _handle_array, _max_rows, _one_or_many, _real
from ._tree_base import BOX, CIRCLE, _TreeBase

__all__: list[str] = []

class _TreeQueries(_TreeBase):
    """The questions about objects and regions of :class:`LinearQuadtree`."""

    def __contains__(self, handle: object) -> bool:
        """Whether ``handle`` is a live handle of this tree (anything else is not).

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 1, 1]])
        >>> h[0] in tree, 1 in tree, "0" in tree
        (True, False, False)
        """
        found = _core.tree_contains(self._t, handle)  # None: not an int nor a NumPy integer
        if found is not None:
            return found
        if isinstance(handle, (bool, np.bool_)) or not isinstance(handle, numbers.Integral):
            return False
        h = int(handle)
        return -(2**63) <= h < 2**63 and self._t.contains(h)

    def touching(self, handle: int) -> NDArray[np.intp]:
        """Sorted handles of the objects colliding with ``handle``, itself left out.

        The same rules as :meth:`pairs` (filters included): the other end
        of each of the object's pairs.

        Parameters
        ----------
        handle : int
            A live handle.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 2, 2], [1, 1, 3, 3], [1, 1, 2, 2]], groups=[0, 0, 7])
        >>> tree.touching(h[0]).tolist(), tree.touching(h[2]).tolist()
        ([1, 2], [0, 1])
        """
        if self._p is not None:
            return self._p.touching(self._one(handle), self._t.workers)
        found = _core.tree_touching(self._t, handle)  # None: not a live handle read directly
        return self._t.touching(self._one(handle)) if found is None else found

    def query(self, box: ArrayLike) -> NDArray[np.intp]:
        """Sorted handles of the objects that overlap ``box`` (touching does not count).

        In a tree made with ``touching=True`` the region is closed too: a
        box it touches is found.

        Parameters
        ----------
        box : array_like, shape (4,), or a pygame Rect
            One row read as :meth:`insert` reads boxes: corners
            ``minx, miny, maxx, maxy``, a pygame rect (``x, y, w, h``), or a
            one-row table.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 1, 1], [1, 1, 2, 2], [5, 5, 6, 6]])
        >>> tree.query([0.5, 0.5, 1.5, 1.5]).tolist(), tree.query([1, 0, 3, 1]).tolist()
        ([0, 1], [])
        """
        if not self._closed and self._p is None:
            found = _core.tree_query(self._t, box)  # None: not one box read directly
            if found is not None:
                return found
        q, _ = _cast.boxes(_one_or_many(box, 4), "box")
        if q.shape[0] != 1:
            raise ValueError(f"box: expected one box (minx, miny, maxx, maxy), found "
                             f"{q.shape[0]} rows")
        if self._p is not None:
            return self._regions_periodic(q, "query", "box")[:, 1].copy()
        return self._t.query(self._region(q)[0].tolist())

    def query_many(self, boxes: ArrayLike, *, max_rows: int | None = None) -> NDArray[np.intp]:
        """For many boxes at once, the objects overlapping each: rows ``(query, handle)``.

        Each box's handles are :meth:`query`'s (touching does not count,
        unless the tree is made with ``touching=True``; circles by the exact
        test), all in one call: the queries run in parallel for large
        batches, the GIL released.

        Parameters
        ----------
        boxes : array_like, shape (m, 4)
            The regions, read as :meth:`insert` reads boxes (corners, pygame
            rects as ``x, y, w, h``, tables by their column names).
        max_rows : int, optional
            Raise ``MemoryError`` rather than return more rows than this
            (default: what the available memory holds).

        Returns
        -------
        ndarray of intp, shape (k, 2)
            Row ``(q, h)`` when object ``h`` overlaps ``boxes[q]``; sorted
            by ``q``, then ``h``.  Empty: ``np.empty((0, 2), np.intp)``.

        Raises
        ------
        MemoryError
            When there are more rows than ``max_rows`` or than the
            available memory holds (the message gives their number).

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 1, 1], [1, 1, 2, 2], [5, 5, 6, 6]])
        >>> tree.query_many([[0.5, 0.5, 1.5, 1.5], [1, 0, 3, 1], [4, 4, 8, 8]]).tolist()
        [[0, 0], [0, 1], [2, 2]]
        """
        q, _ = _cast.boxes(boxes, "boxes")
        if self._p is not None:
            return self._regions_periodic(q, "query_many", "boxes", _max_rows(max_rows))
        q = self._region(q)
        # MemoryError: counts the region rows
        found = _core.tree_query_many(self._t, q, _max_rows(max_rows))
        if type(found) is _core.BadRow:  # a row written by another thread since it was checked
            self._raise(found, None, BOX, q, "boxes")
        return found

    def query_point(self, x: float, y: float) -> NDArray[np.intp]:
        """Sorted handles of the objects that strictly contain the point (x, y).

        Parameters
        ----------
        x, y : float
            The point; a point on an object's edge is not inside it, unless
            the tree is made with ``touching=True`` (then a box holds the
            points of its edges).

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 2, 2]]); c = tree.insert_circles([[2, 2]], 1.0)
        >>> tree.query_point(1.5, 1.5).tolist(), tree.query_point(2, 1).tolist()
        ([0, 1], [])
        """
        if self._closed:  # the closed box of the point: its edges' points count
            return self._point_region(_real(x, "x"), _real(y, "y"))
        if self._p is not None:
            return self._p.point((_real(x, "x"), _real(y, "y")), self._t.workers)
        found = _core.tree_query_point(self._t, x, y)  # None: not two numbers read directly
        if found is not None:
            return found
        return self._t.query_point(_real(x, "x"), _real(y, "y"))

    def boxes(self, handles: ArrayLike) -> NDArray[np.float64]:
        """The boxes of objects, as stored (a circle's: its outward-rounded bounding box).

        In a tree made with ``touching=True``, exactly as inserted or moved
        (the tree stores them with raised maxima).

        Parameters
        ----------
        handles : int or array_like of int
            One handle (the result has shape (4,)) or several ((n, 4)).

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 1, 2], [3, 3, 4, 4]])
        >>> tree.boxes(h[1]).tolist(), tree.boxes(h).shape
        ([3.0, 3.0, 4.0, 4.0], (2, 4))
        """
        if not self._closed:
            one = _core.tree_box(self._t, handles)  # None: not a live handle read directly
            if one is not None:
                return one
        h = _handle_array(handles)
        self._check(h, -1)
        out = np.array([self._t.box_of(int(k)) for k in h], np.float64).reshape(-1, 4)
        out = self._as_given(h, out)
        return out[0] if np.ndim(handles) == 0 else out

    def circles(self, handles: ArrayLike) -> NDArray[np.float64]:
        """Centres and radii ``x, y, r`` of circle objects.

        Parameters
        ----------
        handles : int or array_like of int
            One circle's handle (the result has shape (3,)) or several ((n, 3)).

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert_circles([[1, 2]], 0.5)
        >>> tree.circles(h[0]).tolist()
        [1.0, 2.0, 0.5]
        """
        h = _handle_array(handles)
        self._check(h, CIRCLE, instead="boxes reads any object's box")
        out = np.array([self._t.circle_of(int(k)) for k in h], np.float64).reshape(-1, 3)
        return out[0] if np.ndim(handles) == 0 else out

    def locate(self, handle: int) -> tuple[int, int]:
        """The seeds' cell of an object: ``(level, index)``, as :func:`broadphase.morton.locate`.

        A box straddling a split line far above its size sits in a high
        cell; the tree then enters it in the few smaller cells it overlaps
        instead (:meth:`stats` counts objects by the level they are entered
        at).

        Parameters
        ----------
        handle : int
            A live handle.

        Returns
        -------
        level, index : int
            The cell's level (0 the root, ``depth`` the smallest cells) and
            its Morton index within the level.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[3, 6, 3.5, 6.5], [3.5, 3.5, 4.5, 4.5]])
        >>> tree.locate(h[0]), tree.locate(h[1])
        ((3, 45), (0, 0))
        """
        level, index = self._t.locate(self._one(handle))
        return int(level), int(index)
