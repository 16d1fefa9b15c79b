"""``LinearOctree``: boxes and spheres that move in 3D, their pairs kept from frame to frame.

A thin layer over the Rust core's moving tree in 3D (``broadphase._core.Tree3``,
the same ``rust/core/src/tree/`` as :class:`broadphase.LinearQuadtree`,
written once over the dimension): every argument is checked and converted,
the core's findings are worded as errors naming the argument and the row
(:class:`._tree_base._TreeBase`), and everything else is handed down.  The
GIL is released in every call that does work.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _cast, _core, _exact
from ._casts import CastResult
from ._depth import suggest_depth
from ._tree import LinearQuadtree
from ._tree_args import _check_margin, _handle_array, _max_rows, _one_or_many, _same_length
from ._tree_base import BOX, CIRCLE
from ._tree_casts import _TreeCasts
from ._tree_frames import _TreeFrames

__all__ = ["MAX_DEPTH_3D", "LinearOctree"]

#: Deepest octree: the list heads of all levels, ``(8**(depth+1) - 1) / 7``
#: cells of 9 bytes, take 172 MB of address space at depth 8 (zeroed
#: memory, mapped only where objects are).
MAX_DEPTH_3D: int = _core.TREE_MAX_DEPTH_3D

_DIMS = (3,)


def _check_depth(depth) -> int:
    if isinstance(depth, (bool, np.bool_)) or not isinstance(depth, numbers.Integral):
        raise TypeError(f"depth: expected an int, found {depth!r}")
    if not 0 <= depth <= MAX_DEPTH_3D:
        raise ValueError(f"depth: expected 0 <= depth <= {MAX_DEPTH_3D} (the list heads of "
                         f"depth 8 take 172 MB, each level more eight times that), "
                         f"found {depth}")
    return int(depth)


def _boxes(value, name: str = "boxes") -> np.ndarray:
    """Validated 3D boxes: ``(n, 6)`` corners (a table by its column names)."""
    arr, _ = _cast.boxes(_one_or_many(value, 6), name, dims=_DIMS)
    if arr.shape[1] != 6:
        raise ValueError(f"{name}: expected 3D boxes, shape (n, 6) (minx, miny, minz, maxx, "
                         f"maxy, maxz), found shape {arr.shape}")
    return arr


def _spheres(centers, radii) -> tuple[np.ndarray, np.ndarray]:
    """Validated ``(x, y, z, r)`` rows and their outward-rounded (finite) boxes."""
    xyzr, bxs = _cast.circles(_one_or_many(centers, 3), radii, _DIMS)
    bad = np.flatnonzero(~np.isfinite(bxs).all(axis=1))
    if bad.size:
        k = int(bad[0])
        raise ValueError(f"centers[{k}]: the sphere {xyzr[k].tolist()} reaches past the "
                         f"largest float64; a tree holds objects whose box is finite")
    return xyzr, bxs


class LinearOctree(_TreeCasts):
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
        self._closed = _cast.touching(touching)
        self._periodic_setting(period, 3, self._closed)
        self._signed = {}
        self._t = _core.Tree3(self._world(self._bounds), self._depth, self._margin,
                              _cast.workers(workers))

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
        filters = _cast.filters(arr.shape[0], groups, categories, masks)
        if self._p is not None:
            return self._insert_periodic(BOX, arr, arr, filters, "insert")
        arr, signed = self._stored(arr, "boxes")
        h = self._t.insert(arr, None, **filters)
        if type(h) is _core.BadRow:  # a row written by another thread since it was checked
            self._raise(h, None, BOX, arr, "boxes")
        self._kept(h, signed)
        return h

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
        filters = _cast.filters(xyzr.shape[0], groups, categories, masks)
        if self._p is not None:
            return self._insert_periodic(CIRCLE, xyzr, bxs, filters, "insert_spheres", radii)
        h = self._t.insert(bxs, xyzr, **filters)
        if type(h) is _core.BadRow:  # a row written by another thread since it was checked
            self._raise(h, None, CIRCLE, xyzr, "centers")
        return h

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
        h = _handle_array(handles)
        if self._p is not None:
            return self._remove_periodic(h)
        problem = self._t.remove(h)
        if problem is not None:
            self._raise(problem, h, -1)
        self._forget(h)

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
