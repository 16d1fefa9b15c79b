"""``LinearOctree``: boxes and spheres that move in 3D, their pairs kept from frame to frame.

A thin layer over the Rust core's moving tree in 3D (``broadphase._core.Tree3``,
the same ``rust/core/src/tree/`` as :class:`broadphase.LinearQuadtree`,
written once over the dimension): every argument is checked and converted,
the core's findings are worded as errors naming the argument and the row
(:class:`._tree_base._TreeBase`), and everything else is handed down.  The
GIL is released in every call that does work.

The class is defined here with its construction, settings and copies (the
calls that read no geometry are the quadtree's own).  Its other methods
come from mixins, a module per concern: insert, move and remove in
:mod:`._octree_edits`; pairs, events, one-object and region questions in
:mod:`._octree_queries`; ray casts and swept pairs in :mod:`._octree_casts`.
The depth, 3D boxes and spheres are checked in :mod:`._octree_args`.
"""

from __future__ import annotations

import numbers

from numpy.typing import ArrayLike

from . import _cast_options, _cast_touching, _core, _exact
from ._depth import suggest_depth
from ._octree_args import _DIMS, MAX_DEPTH_3D, _check_depth
from ._octree_casts import _OctreeCasts
from ._octree_edits import _OctreeEdits
from ._octree_queries import _OctreeQueries
from ._tree import LinearQuadtree
from ._tree_args import _check_margin
from ._tree_frames import _TreeFrames

__all__ = ["MAX_DEPTH_3D", "LinearOctree"]


class LinearOctree(_OctreeEdits, _OctreeQueries, _OctreeCasts):
    """Moving boxes and spheres in a linear octree, their pairs kept from frame to frame.

    The 3D counterpart of :class:`broadphase.LinearQuadtree`, the same
    structure one dimension up: each object is entered in the cells of one
    level that its (fat) box meets -- the smallest cell holding it, or, when
    it straddles a split plane far above its size, the at most 2 x 2 x 2
    cells of a level near its size -- and the cells of all levels are
    numbered in one linear array (level ``l`` from ``(8**l - 1) / 7`` on,
    :func:`broadphase.morton.linear_index` with ``dims=3``).  Moves only
    store the boxes; the next question brings the cells up to date, and
    :meth:`pairs` re-examines only what changed since the last call.  The
    rules are :func:`broadphase.find_pairs`' in 3D: touching is not
    colliding (unless the tree is made with ``touching=True``), filters by
    group and category/mask bits, box--sphere and sphere--sphere tests
    exact.

    Parameters
    ----------
    bounds : sequence of 6 floats
        The world ``(minx, miny, minz, maxx, maxy, maxz)``, split into
        ``2**depth`` cells per axis.  Objects outside it are still found
        (they are entered at the root or the edge cells), only less quickly.
    depth : int
        Level of the finest cells, 0 to :data:`MAX_DEPTH_3D` (8).  Finest
        cells 4 to 16 times the typical object's side suit most scenes.
    margin : float, optional
        Each object is placed by its box grown by ``margin`` and keeps its
        cells while its box stays inside that: small moves then cost no
        relinking.  Answers are exact for every margin.
    workers : int, optional
        Threads of the searches (``None``: all cores).
    touching : bool, optional
        ``True``: closed boxes for the tree's life, as in
        :class:`broadphase.LinearQuadtree`: boxes sharing a face, an edge or
        a corner collide, a region or a point touching a box finds it; a
        max of float64's largest value is refused, and spheres, ray casts
        and swept pairs are refused (``ValueError``).  Default ``False``.
    period : float or sequence of 3 (float or None), optional
        A periodic domain for the tree's life (its copies too), as in
        :class:`broadphase.LinearQuadtree`: the period per axis (``None``
        open, one number for all); objects collide when some copy of one,
        shifted by whole periods, overlaps the other, exactly.  An object
        spans at most half the period on a periodic axis (a wider one is
        refused, naming the argument and the row).  A periodic tree holds
        boxes or spheres at one time, not both; :meth:`query` and
        :meth:`query_many` take boxes only and regions up to half the
        period; :meth:`cast_rays`, :meth:`swept_pairs` and
        ``touching=True`` are refused (``ValueError``).  Its answers come
        from a search over all its objects after each change (no
        incremental speed-up yet).  Default ``None``: an open domain.

    Examples
    --------
    >>> import broadphase as bp
    >>> tree = bp.LinearOctree(bounds=(0, 0, 0, 100, 100, 100), depth=4)
    >>> h = tree.insert([[0, 0, 0, 10, 10, 10], [5, 5, 5, 15, 15, 15], [50, 50, 50, 60, 60, 60]])
    >>> tree.pairs().tolist()
    [[0, 1]]
    >>> tree.move(h[2], [12, 12, 12, 20, 20, 20])
    >>> [e.tolist() for e in tree.update()]
    [[[0, 1], [1, 2]], []]
    >>> closed = bp.LinearOctree((0, 0, 0, 100, 100, 100), depth=4, touching=True)
    >>> h = closed.insert([[0, 0, 0, 10, 10, 10], [10, 10, 10, 20, 20, 20]])
    >>> closed.pairs().tolist()   # a shared corner
    [[0, 1]]

    A periodic box 10 wide on every axis: spheres near opposite corners
    are neighbours.

    >>> torus = bp.LinearOctree((0, 0, 0, 10, 10, 10), depth=2, period=10)
    >>> h = torus.insert_spheres([[0.5, 0.5, 0.5], [9.5, 9.5, 9.5], [5, 5, 5]], 1.0)
    >>> torus.pairs().tolist(), torus.query_point(9.9, 0.1, 0.1).tolist()
    ([[0, 1]], [0, 1])
    >>> torus.period
    (10.0, 10.0, 10.0)
    """

    _t: _core.Tree3
    _BALL = "sphere"

    def __init__(self, bounds: ArrayLike, depth: int, *, margin: float = 0.0,
                 workers: int | None = None, touching: bool = False,
                 period: ArrayLike | float | None = None) -> None:
        self._bounds = _exact.world(bounds, _DIMS)
        self._depth = _check_depth(depth)
        self._margin = _check_margin(margin)
        self._closed = _cast_touching.touching(touching)
        self._periodic_setting(period, 3, self._closed)
        self._signed = {}
        self._t = _core.Tree3(self._world(self._bounds), self._depth, self._margin,
                              _cast_options.workers(workers))

    @classmethod
    def for_objects(cls, bounds: ArrayLike, typical_size: float, *, margin: float = 0.0,
                    workers: int | None = None, touching: bool = False,
                    period: ArrayLike | float | None = None) -> LinearOctree:
        """An octree for a world of objects of about ``typical_size``: its depth chosen for them.

        The depth is :func:`broadphase.suggest_depth` ``(bounds, typical_size)``.

        Parameters
        ----------
        bounds : sequence of 6 floats
            The world ``(minx, miny, minz, maxx, maxy, maxz)``.
        typical_size : float
            A typical object's width (a sphere's diameter), > 0.
        margin : float, optional
        workers : int, optional
        touching : bool, optional
        period : float or sequence of (float or None), optional
            As the constructor's.

        Returns
        -------
        LinearOctree

        Examples
        --------
        >>> import broadphase as bp
        >>> bp.LinearOctree.for_objects((0, 0, 0, 1000, 1000, 1000), typical_size=10).depth
        4
        """
        _exact.world(bounds, _DIMS)  # a 3D world, or the error naming bounds
        return cls(bounds, suggest_depth(bounds, typical_size), margin=margin, workers=workers,
                   touching=touching, period=period)

    def __len__(self) -> int:
        """Live objects."""
        return len(self._t)

    def __contains__(self, handle) -> bool:
        """Whether ``handle`` is a live object's handle."""
        return (isinstance(handle, numbers.Integral) and not isinstance(handle, bool)
                and self._t.contains(int(handle)))

    def __repr__(self) -> str:
        touching = ", touching=True" if self._closed else ""
        touching += self._period_repr()
        return (f"LinearOctree(bounds={self._bounds}, depth={self._depth}, "
                f"margin={self._margin}{touching}, objects={len(self)})")

    @property
    def bounds(self) -> tuple[float, ...]:
        """The world ``(minx, miny, minz, maxx, maxy, maxz)``."""
        return self._bounds

    @property
    def depth(self) -> int:
        """Level of the finest cells."""
        return self._depth

    # the calls that read no geometry are the quadtree's own
    margin = _TreeFrames.margin
    workers = _TreeFrames.workers
    validate = _TreeFrames.validate
    stats = _TreeFrames.stats
    copy = LinearQuadtree.copy
    __copy__ = LinearQuadtree.__copy__
    __deepcopy__ = LinearQuadtree.__deepcopy__

    def __reduce__(self):
        raise TypeError("LinearOctree cannot be pickled; keep the objects "
                        "(tree.boxes(handles), tree.spheres(handles)) and insert them into a "
                        "new tree where it is needed (tree.copy() copies it in this process)")
