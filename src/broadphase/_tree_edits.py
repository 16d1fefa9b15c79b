"""What changes the objects of :class:`LinearQuadtree`: insert, move and remove.

The methods live here (a mixin ``LinearQuadtree`` inherits).  One object's
call first tries the core's direct path for Python numbers, tuples and
rects (``_core.tree_insert``, ``tree_move``, ...: ``None`` or ``False``
when it does not apply), and a game's frame of arrays already in the
core's form goes straight to the core; anything else is checked here
(:mod:`._tree_args`, :mod:`._cast`) and the core's findings worded through
:class:`._tree_base._TreeBase`.  A tree made with ``touching=True`` stores
its boxes raised (:meth:`~_TreeBase._stored`), and a periodic tree's
objects go through its periodic calls there.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _cast, _cast_circles, _cast_options, _core
from ._tree_args import _handle_array, _one_or_many, _same_length
from ._tree_base import BOX, CIRCLE, _TreeBase

__all__: list[str] = []
_INT64, _FLOAT64 = np.dtype(np.int64), np.dtype(np.float64)


class _TreeEdits(_TreeBase):
    """The inserts, moves and removals of :class:`LinearQuadtree`."""

    def insert(self, boxes: ArrayLike, groups: ArrayLike | None = None,
               categories: ArrayLike | None = None,
               masks: ArrayLike | None = None) -> NDArray[np.intp]:
        """Add boxes; returns their handles.

        Parameters
        ----------
        boxes : array_like, shape (n, 4) or (4,)
            ``minx, miny, maxx, maxy`` per row, validated as in
            :func:`broadphase.find_pairs`; also read as there: pygame
            rects (one or a list) as ``x, y, w, h``, a table (DataFrame,
            Arrow table, structured array, one named row) by its column
            names, a GeoSeries or GeoDataFrame by its geometries' bounds.
        groups, categories, masks : int or array_like, optional
            As in :func:`broadphase.find_pairs`: a scalar or one per box.

        Returns
        -------
        ndarray of intp, shape (n,)
            One handle per row, in order.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> tree.insert([1, 1, 2, 2]).tolist(), tree.insert([[3, 3, 4, 4]], groups=5).tolist()
        ([0], [1])
        """
        if (groups is None and categories is None and masks is None and not self._closed
                and self._p is None):
            h = _core.tree_insert(self._t, boxes)  # None: not one box read directly
            if h is not None:
                return h
        arr, _ = _cast.boxes(_one_or_many(boxes, 4))
        return self._insert_boxes(arr, _cast_options.filters(arr.shape[0], groups, categories,
                                                             masks))

    def insert_circles(self, centers: ArrayLike, radii: ArrayLike | None = None,
                       groups: ArrayLike | None = None,
                       categories: ArrayLike | None = None,
                       masks: ArrayLike | None = None) -> NDArray[np.intp]:
        """Add circles; returns their handles.

        Parameters
        ----------
        centers : array_like, shape (n, 2) or (2,)
            ``x, y`` per row, or a table with columns ``x, y`` (see
            :func:`broadphase.find_circle_pairs`).
        radii : float or array_like, shape (n,)
            Radii >= 0; a scalar applies to every circle.  Leave it out
            when ``centers`` is a table with a column ``r`` (or ``radius``).
        groups, categories, masks : int or array_like, optional
            As in :func:`broadphase.find_pairs`.

        Returns
        -------
        ndarray of intp, shape (n,)

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert_circles([[1, 1], [2, 1]], 0.6)
        >>> tree.pairs().tolist()
        [[0, 1]]
        """
        self._open_only("insert_circles")
        if (groups is None and categories is None and masks is None and radii is not None
                and self._p is None):
            h = _core.tree_insert_circle(self._t, centers, radii)  # None: not read directly
            if h is not None:
                return h
        xyr, bxs = _cast_circles.tree_circles(_one_or_many(centers, 2), radii)
        filters = _cast_options.filters(xyr.shape[0], groups, categories, masks)
        return self._insert_balls(xyr, bxs, filters, "insert_circles", radii)

    def move(self, handles: ArrayLike, boxes: ArrayLike) -> None:
        """Give box objects new boxes.

        Parameters
        ----------
        handles : int or array_like of int, shape (n,)
            Box objects, each at most once.
        boxes : array_like, shape (n, 4) or (4,)
            Their new ``minx, miny, maxx, maxy``, read as :meth:`insert`
            reads them (a pygame rect as ``x, y, w, h``, a table by its
            column names).

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 1, 1], [5, 5, 6, 6]])
        >>> tree.move(h[1], [0.5, 0.5, 1.5, 1.5])
        >>> tree.pairs().tolist()
        [[0, 1]]
        """
        if self._closed:
            return self._move_closed(handles, boxes)
        if self._p is not None:
            arr = _cast.box_rows(_one_or_many(boxes, 4), "boxes", None)
            return self._move_periodic(_handle_array(handles), BOX, arr)
        if _core.tree_move(self._t, handles, boxes):
            return  # one live box object and one box, read directly
        if (type(handles) is np.ndarray and handles.dtype == _INT64 and handles.ndim == 1
                and type(boxes) is np.ndarray and boxes.dtype == _FLOAT64
                and boxes.shape == (handles.shape[0], 4) and handles.flags.c_contiguous
                and boxes.flags.c_contiguous and boxes.flags.aligned):
            # a game's frame: arrays already in the core's form, checked there
            if self._t.move_boxes(handles, boxes) is None:
                return  # else nothing changed: the full path names the problem
        h = _handle_array(handles)
        arr = _cast.box_rows(_one_or_many(boxes, 4), "boxes", None)
        if arr.shape[0] != h.shape[0]:
            self._check(h, BOX)
            _same_length(h, arr, "boxes")
        problem = self._t.move_boxes(h, arr)
        if problem is not None:
            self._raise(problem, h, BOX, arr, "boxes")

    def _move_closed(self, handles: ArrayLike, boxes: ArrayLike) -> None:
        """:meth:`move` in a tree of closed boxes: the maxima raised, -0.0 kept."""
        h = _handle_array(handles)
        arr = _cast.box_rows(_one_or_many(boxes, 4), "boxes", None)
        if arr.shape[0] != h.shape[0]:
            self._check(h, BOX)
            _same_length(h, arr, "boxes")
        scan = _core.scan_boxes(arr, None)
        if type(scan) is _core.BadRow:
            self._check(h, BOX)  # a bad handle first, as the core's move names it
            self._raise(scan, h, BOX, arr, "boxes")
        stored, signed = self._stored(arr, "boxes")
        problem = self._t.move_boxes(h, stored)
        if problem is not None:
            self._raise(problem, h, BOX, stored, "boxes")
        self._kept(h, signed)

    def move_circles(self, handles: ArrayLike, centers: ArrayLike,
                     radii: ArrayLike | None = None) -> None:
        """Give circle objects new centres (and radii).

        Parameters
        ----------
        handles : int or array_like of int, shape (n,)
            Circle objects, each at most once.
        centers : array_like, shape (n, 2) or (2,)
            Their new centres (a table: columns ``x, y``, and ``r`` for
            new radii).
        radii : float or array_like, shape (n,), optional
            New radii; by default each keeps its own (or takes the
            table's ``r``).

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert_circles([[1, 1], [6, 6]], 1.0)
        >>> tree.move_circles(h[1], [2, 1])
        >>> tree.pairs().tolist()
        [[0, 1]]
        """
        if self._p is None and _core.tree_move_circle(self._t, handles, centers, radii):
            return
        h = _handle_array(handles)
        self._check(h, CIRCLE)
        c, r = _cast_circles.center_rows(_one_or_many(centers, 2), radii)
        _same_length(h, c, "centers")
        xyr, _ = _cast_circles.tree_circles(c, self._t.radii(h) if r is None else r)
        if self._p is not None:
            return self._move_periodic(h, CIRCLE, xyr, radii)
        problem = self._t.move_circles(h, xyr)
        if problem is not None:
            self._raise(problem, h, CIRCLE, xyr, "centers")

    def remove(self, handles: ArrayLike) -> None:
        """Take objects out; their handles may be reused by later inserts.

        Parameters
        ----------
        handles : int or array_like of int
            Live handles, each at most once; an unknown or repeated one
            raises (``KeyError`` or ``ValueError``) and removes nothing.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 1, 1], [5, 5, 6, 6]])
        >>> tree.remove(h[0]); len(tree), tree.insert([1, 1, 2, 2]).tolist()
        (1, [0])
        """
        if not self._closed and self._p is None and _core.tree_remove(self._t, handles):
            return  # one live handle, read directly
        self._remove_handles(_handle_array(handles))
