"""``LinearQuadtree``: boxes and circles that move, their pairs kept from frame to frame.

A thin layer over the Rust core's moving tree (``broadphase._core.Tree``,
``rust/core/src/tree/``, a part per concern, where the structure and its
invariants are derived): every argument is checked and converted, the
core's findings (``_core.BadHandle``, ``_core.BadRow``) are worded as
errors naming the argument and the row, and everything else is handed
down.  The GIL is released in every call that does work.

The class is defined here with its construction and copies.  Its other
methods come from mixins, a module per concern: insert, move and remove in
:mod:`._tree_edits`; settings, pairs, events and counts in
:mod:`._tree_frames`; one-object and region questions in
:mod:`._tree_queries`; ray casts and swept pairs in :mod:`._tree_casts`.
Their common base, :mod:`._tree_base`, holds the core's tree and words its
findings; the arguments are checked in :mod:`._tree_args`.
"""

from __future__ import annotations

import copy

from numpy.typing import ArrayLike

from . import _cast_options, _cast_touching, _core, _exact
from ._depth import suggest_depth
from ._tree_args import MAX_DEPTH, _check_depth, _check_margin
from ._tree_casts import _TreeCasts
from ._tree_edits import _TreeEdits
from ._tree_frames import _TreeFrames
from ._tree_queries import _TreeQueries

__all__ = ["MAX_DEPTH", "LinearQuadtree"]

#: What a call says when another thread's call is running on the same tree
#: (the core's tree is used by one call at a time; nothing waits for it).
IN_USE = _core.TREE_IN_USE


class LinearQuadtree(_TreeEdits, _TreeQueries, _TreeFrames, _TreeCasts):
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
    :func:`broadphase.find_pairs`: touching is not colliding (unless the
    tree is made with ``touching=True``), filters by group and
    category/mask bits, box--circle and circle--circle tests exact.

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
    touching : bool, optional
        ``True``: closed boxes, for the tree's life (its copies too), as
        :func:`broadphase.find_pairs` with ``touching=True``: boxes that
        share an edge or a corner collide in :meth:`pairs`,
        :meth:`update` and :meth:`touching`, a region that touches a box
        finds it (:meth:`query`, :meth:`query_many`) and so does a point
        on its edge (:meth:`query_point`).  Exact for every finite box but
        one whose max is float64's largest value, which is refused.  The
        tree stores each box with its maxima one step of float64 higher
        and takes boxes only: :meth:`insert_circles`, :meth:`cast_rays`
        and :meth:`swept_pairs` raise ``ValueError`` (a circle's or a
        ray's test against a closed box is not the open test of a raised
        one).  :meth:`boxes` gives the boxes as inserted, -0.0 included;
        :meth:`locate` and :meth:`stats` see the stored boxes (a box
        ending on a split line straddles it).  Default ``False``.
    period : float or sequence of 2 (float or None), optional
        A periodic domain for the tree's life (its copies too), as in
        :func:`broadphase.find_pairs`: the period per axis, ``None`` for an
        open axis, one number for both.  Two objects collide when some
        copy of one, shifted by whole periods, overlaps the other; each
        pair once, exactly; coordinates may lie anywhere (``bounds`` only
        lays out the cells).  An object may span at most half the period
        on a periodic axis (a box's width, a circle's diameter): a wider
        one is refused by :meth:`insert`, :meth:`move` (and the circle
        calls) with a ``ValueError`` naming the argument and the row, and
        changes nothing.  Inserting, moving and removing are as in an
        open domain; :meth:`pairs`, :meth:`update`, :meth:`touching` and
        the queries search the live objects as the static calls do (a
        search over all of them per change, kept until the next change:
        no incremental speed-up yet).  A periodic tree holds boxes or
        circles at one time, not both (inserting the other kind raises
        ``ValueError`` while it holds any); :meth:`query` and
        :meth:`query_many` take boxes only (a region against a circle's
        copies has no exact test yet: ``ValueError`` in a tree of
        circles) and regions up to half the period wide;
        :meth:`query_point` takes both.  :meth:`cast_rays`,
        :meth:`swept_pairs` and ``touching=True`` are refused
        (``ValueError``); :meth:`stats` counts the cells, its
        ``candidate_tests``, ``pairs`` and ``rebuilt`` stay those of no
        search.  Default ``None``: an open domain.

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

    With ``touching=True``, boxes that share an edge or a corner collide:

    >>> tiles = bp.LinearQuadtree((0, 0, 100, 100), depth=4, touching=True)
    >>> h = tiles.insert([[0, 0, 10, 10], [10, 0, 20, 10], [20, 10, 30, 20]])
    >>> tiles.pairs().tolist(), tiles.query_point(10, 5).tolist()
    ([[0, 1], [1, 2]], [0, 1])

    With ``period=(10, None)`` the x axis wraps around every 10 (y stays
    open): a box reaching past x = 10 meets one near x = 0, and so does a
    box far outside ``[0, 10)``:

    >>> ring = bp.LinearQuadtree((0, 0, 10, 10), depth=3, period=(10, None))
    >>> h = ring.insert([[9, 0, 11, 1], [0.5, 0, 1.5, 1], [5, 5, 6, 6]])
    >>> ring.pairs().tolist(), ring.query([-0.5, 0, 0.25, 1]).tolist()
    ([[0, 1]], [0])
    >>> ring.move(h[2], [40.25, 0.5, 40.75, 2])   # 0.25..0.75 on the ring
    >>> [e.tolist() for e in ring.update()], ring.touching(h[2]).tolist()
    ([[[0, 1], [0, 2], [1, 2]], []], [0, 1])
    >>> ring
    LinearQuadtree(bounds=(0.0, 0.0, 10.0, 10.0), depth=3, period=(10.0, None)) with 3 objects
    """

    def __init__(self, bounds: ArrayLike, depth: int, *, margin: float = 0.0,
                 workers: int | None = None, touching: bool = False,
                 period: ArrayLike | float | None = None) -> None:
        self._bounds = _exact.world(bounds)
        self._depth = _check_depth(depth)
        self._margin = _check_margin(margin)
        self._closed = _cast_touching.touching(touching)
        self._periodic_setting(period, 2, self._closed)
        self._signed = {}
        self._t = _core.Tree(self._world(self._bounds), self._depth, self._margin,
                             _cast_options.workers(workers))

    @classmethod
    def for_objects(cls, bounds: ArrayLike, typical_size: float, *, margin: float = 0.0,
                    workers: int | None = None, touching: bool = False,
                    period: ArrayLike | float | None = None) -> LinearQuadtree:
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
        touching : bool, optional
        period : float or sequence of (float or None), optional
            As the constructor's.

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
        return cls(bounds, suggest_depth(bounds, typical_size), margin=margin, workers=workers,
                   touching=touching, period=period)

    def __len__(self) -> int:
        """The number of objects in the tree (boxes and circles).

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 1, 1], [2, 2, 3, 3]]); _ = tree.insert_circles([[5, 5]], 1)
        >>> len(tree)
        3
        """
        return len(self._t)

    def __repr__(self) -> str:
        margin = f", margin={self._margin}" if self._margin else ""
        margin += ", touching=True" if self._closed else ""
        margin += self._period_repr()
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
        new._signed = dict(self._signed)  # the rows themselves are never changed
        new._p = None if self._p is None else self._p.copy()
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
