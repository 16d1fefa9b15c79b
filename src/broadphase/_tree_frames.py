"""The settings and frame questions of :class:`LinearQuadtree`: pairs, events, counts.

The methods live here (a mixin ``LinearQuadtree`` inherits): the settings
given at construction (``bounds``, ``depth``, ``margin``, ``workers``),
:meth:`~LinearQuadtree.pairs` and :meth:`~LinearQuadtree.update` (the
pairs kept from frame to frame, ``rust/core/src/tree/``),
:meth:`~LinearQuadtree.stats` to tune the depth by and
:meth:`~LinearQuadtree.validate`, the structure's invariants checked.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from . import _cast_options
from ._tree_base import _TreeBase

__all__: list[str] = []


class _TreeFrames(_TreeBase):
    """The settings, pairs, events and counts of :class:`LinearQuadtree`."""

    _bounds: tuple[float, float, float, float]
    _depth: int
    _margin: float

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
        self._t.workers = _cast_options.workers(value)

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
        if self._p is not None:
            return self._p.pairs(self._t.workers)
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
        if self._p is not None:
            return self._p.update(self._t.workers)
        return self._t.update()


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
        if problem is None and self._p is not None:
            problem = self._p.agrees(self._t)
        if problem is not None:
            raise AssertionError(problem)
