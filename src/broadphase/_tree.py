"""``LinearQuadtree``: boxes and circles that move, their pairs kept from frame to frame.

A thin layer over the Rust core's moving tree (``broadphase._core.Tree``,
``rust/core/src/tree/``, a part per concern, where the structure and its
invariants are derived): this module checks and converts every argument, words the
core's findings (``_core.BadHandle``, ``_core.BadRow``) as errors naming
the argument and the row, and hands everything else down.  The GIL is
released in every call that does work.
"""

from __future__ import annotations

import copy
import numbers

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _cast, _core
from ._depth import suggest_depth
from ._tree_args import (
    MAX_DEPTH,
    _check_bounds,
    _check_depth,
    _check_margin,
    _handle_array,
    _one_or_many,
    _real,
    _same_length,
)
from ._tree_casts import _TreeCasts

__all__ = ["MAX_DEPTH", "LinearQuadtree"]
_BOX, _CIRCLE = 0, 1  # the core's shape codes (narrow::BOX, narrow::CIRCLE)
_INT64, _FLOAT64 = np.dtype(np.int64), np.dtype(np.float64)

#: What a call says when another thread's call is running on the same tree
#: (the core's tree is used by one call at a time; nothing waits for it).
IN_USE = _core.TREE_IN_USE


class LinearQuadtree(_TreeCasts):
    """Moving boxes and circles in a linear quadtree, their pairs kept from frame to frame.

    Each object is entered in the cells of one level that its (fat) box
    meets: the smallest cell holding it (:meth:`locate`), or, when it
    straddles a split line far above its size, the at most 2 x 2 cells of
    a level near its size.  The cells of all levels are numbered in one
    linear array (:func:`broadphase.morton.linear_index`), and each cell's
    objects are one run of entries in an entry array all cells share,
    each entry carrying a copy of its object's box: a query reads a cell's
    candidates at once.  Inserting, moving to other cells and removing are
    O(1) per object (amortized: a cell's run moves when it fills up or
    empties out), and a move that keeps an object in its cells changes no
    cell; a move only stores the boxes, and the next question
    (:meth:`pairs`, a query, :meth:`stats`) brings the cells up to date.
    :meth:`pairs` finds every colliding pair with the same rules as
    :func:`broadphase.find_pairs`: touching is not colliding, filters by
    group and category/mask bits, box--circle and circle--circle tests
    exact.

    The tree keeps the pairs of the last :meth:`pairs` (or :meth:`update`)
    from frame to frame -- a base, as of its last search from scratch, and
    a delta, the pairs of the objects changed since -- and re-examines only
    what was inserted, moved or removed since: a frame in which few objects
    move costs about their neighbourhoods, and :meth:`update` gives the
    pairs that began and ended directly.  When many objects moved, it
    searches from scratch as :func:`broadphase.find_pairs` does.

    Parameters
    ----------
    bounds : sequence of 4 floats
        The world ``(minx, miny, maxx, maxy)``, split into ``2**depth``
        columns and rows.  Objects partly or wholly outside it are kept in
        the border cells: never missed, only slower when many are outside.
    depth : int
        Level of the finest cells, 0 to 12.  Finest cells 4 to 16 times the
        typical object's size work well (``benchmarks/moving.py``);
        :meth:`stats` shows how objects spread over the levels.  The list
        heads of all levels take ``(4**(depth + 1) - 1) / 3 * 9`` bytes of
        address space (201 MB at depth 12), zeroed memory the system maps
        only where objects are; ``MemoryError`` where that does not fit.
    margin : float, optional
        Fat boxes: an object is placed by its box grown by ``margin`` on
        every side and keeps its cells while its box stays inside that fat
        box, so small moves relink nothing.  Answers stay exact for any
        margin (every test uses the true boxes).  Default 0.
    workers : int, optional
        Threads for the searches (default: all).  The results do not depend
        on it; also settable later as the ``workers`` attribute.

    Notes
    -----
    Handles are slot numbers: a handle stays valid for the life of its
    object; after :meth:`remove` it may be given to a later insert (the
    last removed first).  Using a removed or unknown handle raises
    ``KeyError``.  A tree is not shared between threads without a lock: a
    second thread's call while one runs raises ``RuntimeError`` saying the
    tree is in use by another thread.  :meth:`copy` (or ``copy.copy``,
    ``copy.deepcopy``) gives an independent tree; a tree cannot be pickled
    (``TypeError``): insert its objects into a new tree in the other process.

    Ctrl-C stops a long call within about 0.1 s and leaves the tree valid:
    an interrupted :meth:`pairs`, :meth:`update` or :meth:`insert` is as if
    it had not been called (the next :meth:`update` reports the same
    events), unless the signal came as it ended (then it is done); an
    interrupted :meth:`move` has been done.

    Examples
    --------
    >>> import broadphase as bp
    >>> tree = bp.LinearQuadtree(bounds=(0, 0, 100, 100), depth=4)
    >>> h = tree.insert([[10, 10, 20, 20], [15, 15, 25, 25], [50, 50, 60, 60]])
    >>> h.tolist()
    [0, 1, 2]
    >>> tree.pairs().tolist()
    [[0, 1]]
    >>> tree.move([2], [[18, 18, 30, 30]])
    >>> tree.pairs().tolist()
    [[0, 1], [0, 2], [1, 2]]
    >>> c = tree.insert_circles([[90, 90]], 5.0)
    >>> tree.query_point(91, 91).tolist(), tree.query([0, 0, 12, 12]).tolist()
    ([3], [0])
    >>> tree.remove([0]); len(tree), 0 in tree
    (3, False)
    """

    def __init__(self, bounds: ArrayLike, depth: int, *, margin: float = 0.0,
                 workers: int | None = None) -> None:
        self._bounds = _check_bounds(bounds)
        self._depth = _check_depth(depth)
        self._margin = _check_margin(margin)
        self._t = _core.Tree(self._bounds, self._depth, self._margin, _cast.workers(workers))

    @classmethod
    def for_objects(cls, bounds: ArrayLike, typical_size: float, *, margin: float = 0.0,
                    workers: int | None = None) -> LinearQuadtree:
        """A tree for a world of objects of about ``typical_size``: its depth chosen for them.

        The depth is :func:`broadphase.suggest_depth` ``(bounds, typical_size)``:
        finest cells about 8 typical objects wide.  ``margin`` and
        ``workers`` are the constructor's (a margin of 0 suits most
        worlds: raise it when :meth:`stats` shows many objects relinked in
        frames where few move).

        Parameters
        ----------
        bounds : sequence of 4 floats
            The world ``(minx, miny, maxx, maxy)``.
        typical_size : float
            A typical object's width (a circle's diameter), > 0.
        margin : float, optional
        workers : int, optional

        Returns
        -------
        LinearQuadtree

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree.for_objects((0, 0, 5000, 5000), typical_size=10)
        >>> tree.depth, tree.margin
        (6, 0.0)
        """
        return cls(bounds, suggest_depth(bounds, typical_size), margin=margin, workers=workers)

    # ------------------------------------------------------------------
    # properties

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """The world ``(minx, miny, maxx, maxy)`` given at construction."""
        return self._bounds

    @property
    def depth(self) -> int:
        """Level of the finest cells."""
        return self._depth

    @property
    def margin(self) -> float:
        """How far fat boxes reach beyond the objects' boxes."""
        return self._margin

    @property
    def workers(self) -> int | None:
        """Threads for the searches (``None``: all)."""
        return self._t.workers

    @workers.setter
    def workers(self, value: int | None) -> None:
        self._t.workers = _cast.workers(value)

    def __len__(self) -> int:
        return len(self._t)

    def __contains__(self, handle: object) -> bool:
        found = _core.tree_contains(self._t, handle)  # None: not an int nor a NumPy integer
        if found is not None:
            return found
        if isinstance(handle, (bool, np.bool_)) or not isinstance(handle, numbers.Integral):
            return False
        h = int(handle)
        return -(2**63) <= h < 2**63 and self._t.contains(h)

    def __repr__(self) -> str:
        margin = f", margin={self._margin}" if self._margin else ""
        return (f"LinearQuadtree(bounds={self._bounds}, depth={self._depth}{margin}) "
                f"with {len(self)} objects")

    # ------------------------------------------------------------------
    # copies

    def copy(self) -> LinearQuadtree:
        """An independent copy: the same objects, handles, kept pairs and settings.

        Changing either tree afterwards leaves the other as it was, including
        the pairs :meth:`update` compares against.  ``copy.copy(tree)`` and
        ``copy.deepcopy(tree)`` give the same.  Takes about the memory of the
        tree again.

        Returns
        -------
        LinearQuadtree

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 2, 2], [1, 1, 3, 3]])
        >>> snapshot = tree.copy()
        >>> tree.move(h[1], [5, 5, 6, 6])
        >>> tree.pairs().tolist(), snapshot.pairs().tolist()
        ([], [[0, 1]])
        """
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._t = self._t.copy()
        return new

    def __copy__(self) -> LinearQuadtree:
        return self.copy()

    def __deepcopy__(self, memo: dict) -> LinearQuadtree:
        new = self.copy()
        memo[id(self)] = new
        for name, value in self.__dict__.items():
            if name != "_t":
                new.__dict__[name] = copy.deepcopy(value, memo)
        return new

    def __reduce__(self):
        raise TypeError("LinearQuadtree cannot be pickled; keep the objects "
                        "(tree.boxes(handles), tree.circles(handles)) and insert them into a "
                        "new tree where it is needed (tree.copy() copies it in this process)")

    # ------------------------------------------------------------------
    # adding, moving, removing

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
            names.
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
        if groups is None and categories is None and masks is None:
            h = _core.tree_insert(self._t, boxes)  # None: not one box read directly
            if h is not None:
                return h
        arr, _ = _cast.boxes(_one_or_many(boxes, 4))
        filters = _cast.filters(arr.shape[0], groups, categories, masks)
        h = self._t.insert(arr, None, **filters)
        if type(h) is _core.BadRow:  # a row written by another thread since it was checked
            self._raise(h, None, _BOX, arr, "boxes")
        return h

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
        xyr, bxs = _cast.circles(_one_or_many(centers, 2), radii)
        filters = _cast.filters(xyr.shape[0], groups, categories, masks)
        return self._t.insert(bxs, xyr, **filters)

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
            self._check(h, _BOX)
            _same_length(h, arr, "boxes")
        problem = self._t.move_boxes(h, arr)
        if problem is not None:
            self._raise(problem, h, _BOX, arr, "boxes")

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
        h = _handle_array(handles)
        self._check(h, _CIRCLE)
        c, r = _cast.center_rows(_one_or_many(centers, 2), radii)
        _same_length(h, c, "centers")
        xyr, _ = _cast.circles(c, self._t.radii(h) if r is None else r)
        problem = self._t.move_circles(h, xyr)
        if problem is not None:
            self._raise(problem, h, _CIRCLE, xyr, "centers")

    def remove(self, handles: ArrayLike) -> None:
        """Take objects out; their handles may be reused by later inserts.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 1, 1], [5, 5, 6, 6]])
        >>> tree.remove(h[0]); len(tree), tree.insert([1, 1, 2, 2]).tolist()
        (1, [0])
        """
        if _core.tree_remove(self._t, handles):
            return  # one live handle, read directly
        h = _handle_array(handles)
        problem = self._t.remove(h)
        if problem is not None:
            self._raise(problem, h, -1)

    # ------------------------------------------------------------------
    # questions

    def pairs(self) -> NDArray[np.intp]:
        """Every colliding pair of objects, as handles.

        Only objects inserted, moved or removed since the last call are
        examined again (or everything, when many changed).  It changes
        nothing in the events of the next :meth:`update`, which stay
        relative to the last :meth:`update`.

        Returns
        -------
        ndarray of intp, shape (k, 2)
            ``i < j`` in each row, rows sorted; exact box, circle and
            box--circle tests, groups and category/mask filters applied.

        Raises
        ------
        MemoryError
            When the pairs would not fit in the available memory (the
            message gives their number).

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> b = tree.insert([[0, 0, 2, 2], [1, 1, 3, 3], [2, 0, 4, 1]])
        >>> c = tree.insert_circles([[3.5, 3.5]], 0.7)
        >>> tree.pairs().tolist()  # 0 and 2 only touch; the circle just misses 1's corner
        [[0, 1]]
        """
        return self._t.pairs()

    def update(self) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """Contact events: the pairs that began and that ended since the last ``update()``.

        On the first call every current pair has begun.  :meth:`pairs`
        calls in between change nothing here: a frame may ask for
        :meth:`pairs` and then :meth:`update`, in either order.  Costs what
        changed and its neighbours, not the whole world; after a
        :meth:`pairs` call since the last ``update()``, also one pass over
        the pairs (about what that :meth:`pairs` call cost).

        Returns
        -------
        began, ended : ndarray of intp, shape (*, 2)
            Canonical (``i < j``, rows sorted).  A removed object's pairs
            end, also when its handle has been given to a new object since:
            a pair ``(i, j)`` can then be in both, the old one ended and the
            new one begun.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 2, 2], [1, 1, 3, 3], [5, 5, 6, 6]])
        >>> [a.tolist() for a in tree.update()]
        [[[0, 1]], []]
        >>> tree.move(h[2], [2, 2, 4, 4]); tree.remove(h[0])
        >>> tree.pairs().tolist()  # every pair now: no effect on the events
        [[1, 2]]
        >>> [a.tolist() for a in tree.update()]
        [[[1, 2]], [[0, 1]]]
        """
        return self._t.update()

    def touching(self, handle: int) -> NDArray[np.intp]:
        """Sorted handles of the objects colliding with ``handle``, itself left out.

        The same rules as :meth:`pairs` (filters included): the other end
        of each of the object's pairs.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 2, 2], [1, 1, 3, 3], [1, 1, 2, 2]], groups=[0, 0, 7])
        >>> tree.touching(h[0]).tolist(), tree.touching(h[2]).tolist()
        ([1, 2], [0, 1])
        """
        found = _core.tree_touching(self._t, handle)  # None: not a live handle read directly
        return self._t.touching(self._one(handle)) if found is None else found

    def query(self, box: ArrayLike) -> NDArray[np.intp]:
        """Sorted handles of the objects that overlap ``box`` (touching does not count).

        ``box`` is one row read as :meth:`insert` reads boxes: corners, a
        pygame rect (``x, y, w, h``), or a one-row table.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 1, 1], [1, 1, 2, 2], [5, 5, 6, 6]])
        >>> tree.query([0.5, 0.5, 1.5, 1.5]).tolist(), tree.query([1, 0, 3, 1]).tolist()
        ([0, 1], [])
        """
        found = _core.tree_query(self._t, box)  # None: not one box read directly
        if found is not None:
            return found
        q, _ = _cast.boxes(_one_or_many(box, 4), "box")
        if q.shape[0] != 1:
            raise ValueError(f"box: expected one box (minx, miny, maxx, maxy), found "
                             f"{q.shape[0]} rows")
        return self._t.query(q[0].tolist())

    def query_many(self, boxes: ArrayLike, *, max_rows: int | None = None) -> NDArray[np.intp]:
        """For many boxes at once, the objects overlapping each: rows ``(query, handle)``.

        Each box's handles are :meth:`query`'s (touching does not count;
        circles by the exact test), all in one call: the queries run in
        parallel for large batches, the GIL released.

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

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 1, 1], [1, 1, 2, 2], [5, 5, 6, 6]])
        >>> tree.query_many([[0.5, 0.5, 1.5, 1.5], [1, 0, 3, 1], [4, 4, 8, 8]]).tolist()
        [[0, 0], [0, 1], [2, 2]]
        """
        q, _ = _cast.boxes(boxes, "boxes")
        if max_rows is not None:
            if isinstance(max_rows, bool) or not isinstance(max_rows, numbers.Integral) \
                    or max_rows < 0:
                raise ValueError(f"max_rows: expected an int >= 0, found {max_rows!r}")
            max_rows = min(int(max_rows), 2**64 - 1)
        found = self._t.query_many(q, max_rows)
        if type(found) is _core.BadRow:  # a row written by another thread since it was checked
            self._raise(found, None, _BOX, q, "boxes")
        return found

    def query_point(self, x: float, y: float) -> NDArray[np.intp]:
        """Sorted handles of the objects that strictly contain the point (x, y).

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 2, 2]]); c = tree.insert_circles([[2, 2]], 1.0)
        >>> tree.query_point(1.5, 1.5).tolist(), tree.query_point(2, 1).tolist()
        ([0, 1], [])
        """
        found = _core.tree_query_point(self._t, x, y)  # None: not two numbers read directly
        if found is not None:
            return found
        return self._t.query_point(_real(x, "x"), _real(y, "y"))

    def boxes(self, handles: ArrayLike) -> NDArray[np.float64]:
        """The boxes of objects, as stored (a circle's: its outward-rounded bounding box).

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
        one = _core.tree_box(self._t, handles)  # None: not a live handle read directly
        if one is not None:
            return one
        h = _handle_array(handles)
        self._check(h, -1)
        out = np.array([self._t.box_of(int(k)) for k in h], np.float64).reshape(-1, 4)
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
        self._check(h, _CIRCLE)
        out = np.array([self._t.circle_of(int(k)) for k in h], np.float64).reshape(-1, 3)
        return out[0] if np.ndim(handles) == 0 else out

    def locate(self, handle: int) -> tuple[int, int]:
        """The seeds' cell of an object: ``(level, index)``, as :func:`broadphase.morton.locate`.

        A box straddling a split line far above its size sits in a high
        cell; the tree then enters it in the few smaller cells it overlaps
        instead (:meth:`stats` counts objects by the level they are entered
        at).

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

    def stats(self) -> dict:
        """Counts to tune ``depth`` by.

        Returns
        -------
        dict
            ``objects``; ``outside``: objects not wholly inside ``bounds``;
            ``levels``: objects entered at each level, 0 (the whole world) to
            ``depth``; ``relinked``: objects the last insert placed, or that
            the moves since the tree last placed objects (at a query,
            :meth:`pairs` or :meth:`stats`: a move only stores boxes) took
            into other cells (many per move means cells too fine, or a
            margin too small); ``entries``: (object, cell) entries as placed
            now; ``candidate_tests`` and ``pairs`` of the last :meth:`pairs`
            call (candidate tests are the box tests it made: many per pair
            means cells too coarse), and ``rebuilt``: whether it searched
            from scratch.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=2)
        >>> h = tree.insert([[1, 1, 1.5, 1.5], [7, 7, 9, 9], [1.2, 1.2, 5, 5]])
        >>> p = tree.pairs(); s = tree.stats()
        >>> s["objects"], s["outside"], s["levels"].tolist(), s["pairs"]
        (3, 1, [0, 1, 2], 1)
        """
        s = self._t.stats()
        return {"objects": s.objects, "outside": s.outside,
                "levels": np.array(s.levels, np.int64), "relinked": s.relinked,
                "entries": s.entries, "candidate_tests": s.candidate_tests,
                "pairs": s.pairs, "rebuilt": s.rebuilt}

    def validate(self) -> None:
        """Check the structure; raises ``AssertionError`` naming the first broken invariant.

        The slots: the live ones counted, the free ones listed.  Every
        placed live object's box lies in its fat box, its placement is that
        of its fat box, and its cells lie inside its seeds' cell; each of
        its entries sits in its cell's run and names it (and, unless it
        waits for the next question, holds its box); no removed object has
        entries.  The runs tile the shared entry array, each matching its
        cell's head, and hold exactly the objects' entries; the objects per
        level, the marks of objects changed since the cells were last
        brought up to date and the counts of circles and filtered objects
        agree with the objects.  The kept pairs: base and delta sorted and
        canonical, every delta pair with an object changed since the base
        was made.  For tests: O(objects + kept pairs + cells of all
        levels), reading every cell's head.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 1, 1], [3.9, 3.9, 4.1, 4.1]]); tree.validate()
        """
        problem = self._t.validate()
        if problem is not None:
            raise AssertionError(problem)

    # ------------------------------------------------------------------
    # internals

    def _one(self, handle) -> int:
        """One live handle, checked."""
        h = _handle_array(handle)
        if h.shape[0] != 1:
            raise ValueError(f"handle: expected one handle, found {h.shape[0]}")
        self._check(h, -1)
        return int(h[0])

    def _check(self, h: NDArray[np.intp], kind: int) -> None:
        problem = self._t.check(h, kind)
        if problem is not None:
            self._raise(problem, h, kind)

    def _raise(self, problem, h, kind, rows=None, name=None):
        """Raise the error ``problem`` (a ``_core.BadRow`` or ``_core.BadHandle``) words."""
        if type(problem) is _core.BadRow:
            if name == "centers":
                raise ValueError(_cast.circle_problem(rows, rows[:, 2], problem.row,
                                                      problem.code))
            raise ValueError(_cast.box_problem(rows, name, problem.row, problem.code))
        at, code = problem.at, problem.code
        if code == _core.HANDLE_UNKNOWN:
            raise KeyError(f"handle {h[at]}: not in the tree (removed or never inserted)")
        if code == _core.HANDLE_TWICE:
            raise ValueError(f"handles: each handle at most once, found {h[at]} twice")
        other = ("a circle; move it with move_circles" if kind == _BOX
                 else "a box; move it with move")
        raise ValueError(f"handles[{at}]: handle {h[at]} is {other}")
