"""``LinearQuadtree``: boxes and circles that move, with O(1) relinking.

The public layer over ``_kernels/dynamic.py``: it owns the arrays (object
slots, four list nodes per slot, one list head per cell of every level),
validates every argument before changing anything, and hands pairs to the
same walk as :func:`broadphase.find_pairs`.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _cast, _work, _world
from . import _numba_walk as _walk
from ._chunks import _IDX, chunk_count
from ._kernels import dynamic as _dyn
from ._kernels import quadtree as _qt
from ._kernels import radix as _radix
from ._kernels.morton import locate_boxes
from ._kernels.narrow import MODE_GROUPS, MODE_MASKS, MODE_SHAPES, SHAPE_BOX, SHAPE_CIRCLE

__all__ = ["LinearQuadtree"]

#: Deepest tree: the list heads of all levels take (4**(depth+1) - 1) / 3
#: int32 cells, 89 MB at depth 12.
MAX_DEPTH = 12
# Slack 0, not find_pairs' 1: a tree is walked every frame, so fewer
# candidate tests (3-7x here) beat fewer replicated entries; see
# _kernels/dynamic.py.
_SLACK = 0
# A batch relinking this many objects or more links them in cell order.
_SORTED_LINK = 4096
# pairs() sorts all entries anew when more than this share of the objects
# changed cells (or were added or removed) since the last call, else it
# refreshes the last sorted entries in parallel; the refresh is the faster
# even when every object moves and 12% change cells (benchmarks/moving.py).
_REBUILD_SHARE = 0.5
# pairs() streams the box table into the cache before the walk gathers
# from it when more than this share of the objects were stored since the
# last call (dynamic.stream_rows).
_STREAM_SHARE = 0.25
# Fewest keys per chunk when sorting the entries of objects that changed cells.
_NEW_GRAIN = 1 << 12
# Entries per chunk of the parallel refresh.
_REFRESH_GRAIN = 1 << 13
_ALL_BITS = np.iinfo(np.uint64).max
# Per-slot arrays: name, dtype, shape of a row, value of a free slot (None:
# never read while the slot is free, left uninitialised: a million-object
# insert would otherwise spend a third of its time filling).  The placement
# (_plv level, -1 when free; _pcx/_pcy lower-left cell; _pnx/_pny cells per
# axis) says which lists hold the slot's nodes.
_SLOT_ARRAYS = (
    ("_boxes", np.float64, (4,), None),  # box, or a circle's outward-rounded box
    # The narrow phase's SHAPE_* rows; a box's row holds its box only while
    # the tree has circles (only then does a walk read it), else only its kind.
    ("_shapes", np.float64, (5,), None),
    ("_kind", np.int8, (), None),  # SHAPE_BOX or SHAPE_CIRCLE, as _shapes[:, 0]
    ("_groups", np.int64, (), None),
    ("_cats", np.uint64, (), None),
    ("_masks", np.uint64, (), None),
    ("_plv", np.int8, (), -1),
    ("_pcx", np.int32, (), None),
    ("_pcy", np.int32, (), None),
    ("_pnx", np.int8, (), None),
    ("_pny", np.int8, (), None),
    ("_sub0", np.uint8, (), None),  # where minx falls in its first cell, in 1/256ths
    ("_stamp", np.int64, (), 0),  # last query or check that saw the slot
    ("_dirty", np.int8, (), 0),  # dynamic.CLEAN, RELINKED or REMOVED since the last pairs()
    ("_stale", np.int8, (), 0),  # 1: its nodes still sit in the lists of its old cells
)


class LinearQuadtree:
    """Moving boxes and circles in a linear quadtree with per-cell linked lists.

    Each object knows its cell and each cell keeps a doubly linked list of
    its objects (seeds 001 and 002), so inserting, moving to another cell
    and removing are O(1) per object, and a batch move of objects that stay
    in their cells relinks nothing.  :meth:`pairs` finds every colliding
    pair with one walk of the tree carrying a stack of ancestor objects,
    with the same rules as :func:`broadphase.find_pairs`: touching is not
    colliding, filters by group and category/mask bits, box--circle and
    circle--circle tests exact.

    Parameters
    ----------
    bounds : sequence of 4 floats
        The world ``(minx, miny, maxx, maxy)``, split into ``2**depth``
        columns and rows.  Objects partly or wholly outside it are kept in
        the border cells: never missed, only slower when many are outside.
    depth : int
        Level of the finest cells, 0 to 12.  Finest cells 4 to 16 times the
        typical object's size work well (``benchmarks/moving.py``);
        :meth:`stats` shows how objects spread over the levels, how many
        change cells per move and how many candidate tests a pair costs.
        The list heads take ``4**(depth + 1) / 3 * 4`` bytes (89 MB at
        depth 12).

    Notes
    -----
    Handles are slot numbers: a handle stays valid until it is removed, and
    a removed handle may be given to a later insert.  Using a removed or
    unknown handle raises ``KeyError``.

    :meth:`pairs` walks its own sorted entries, not the lists, and keeps
    them for the next call: it sorts anew only the entries of objects that
    changed cells since and re-orders the others inside their cells, so a
    frame costs about one :func:`broadphase.find_pairs` when every object
    moves and less when few do.  :meth:`move` updates each object's cells
    at once but relinks the lists lazily: the first :meth:`query` or
    :meth:`query_point` after moves brings them up to date (O(1) per object
    that changed cells, after a scan of one byte per slot to find them),
    so frames that only ask for pairs never pay for list upkeep.  A tree is
    not safe to change from several threads at once.

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

    def __init__(self, bounds: ArrayLike, depth: int) -> None:
        self._bounds = _check_bounds(bounds)
        self._depth = _check_depth(depth)
        x0, y0, x1, y1 = self._bounds
        self._sx = _world.scale(_world.half_span(x0, x1), 2.0**self._depth)
        self._sy = _world.scale(_world.half_span(y0, y1), 2.0**self._depth)
        self._head = np.full(_dyn.cell_base(self._depth + 1), -1, np.int32)
        self._cap = 0
        self._hwm = 0  # slots below this have been used
        self._free: list[int] = []  # removed slots, reused last-in first-out
        self._count = 0
        self._mark = 0
        self._last = {"entries": 0, "candidate_tests": 0, "pairs": 0}
        self._relinked = 0
        self._nstale = 0  # at least the number of stale objects (moves of stale ones count again)
        self._nplaced = 0  # objects stored by insert or move since the last pairs(), repeats too
        # live objects that make pairs() use the circle test, groups, masks
        self._nshaped = self._ngrouped = self._nmasked = 0
        self._sk = self._so = None  # entries sorted by the last pairs(), or None
        self._spares = [(np.empty(0, np.int64), np.empty(0, _IDX))] * 2
        self._grow(64)

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

    def __len__(self) -> int:
        return self._count

    def __contains__(self, handle: object) -> bool:
        if isinstance(handle, (bool, np.bool_)) or not isinstance(handle, numbers.Integral):
            return False
        h = int(handle)
        return 0 <= h < self._hwm and bool(self._plv[h] >= 0)

    def __repr__(self) -> str:
        return (f"LinearQuadtree(bounds={self._bounds}, depth={self._depth}) "
                f"with {self._count} objects")

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
            :func:`broadphase.find_pairs`.
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
        b = _one_or_many(boxes, 4)
        arr, _ = _cast.boxes(b)
        filt = self._filters(arr.shape[0], groups, categories, masks)
        return self._add(arr, arr, SHAPE_BOX, filt)

    def insert_circles(self, centers: ArrayLike, radii: ArrayLike,
                       groups: ArrayLike | None = None,
                       categories: ArrayLike | None = None,
                       masks: ArrayLike | None = None) -> NDArray[np.intp]:
        """Add circles; returns their handles.

        Parameters
        ----------
        centers : array_like, shape (n, 2) or (2,)
            ``x, y`` per row.
        radii : float or array_like, shape (n,)
            Radii >= 0; a scalar applies to every circle.
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
        xyr, bxs = self._circles(_one_or_many(centers, 2), radii)
        filt = self._filters(xyr.shape[0], groups, categories, masks)
        return self._add(bxs, xyr, SHAPE_CIRCLE, filt)

    def move(self, handles: ArrayLike, boxes: ArrayLike) -> None:
        """Give box objects new boxes.

        Parameters
        ----------
        handles : int or array_like of int, shape (n,)
            Box objects, each at most once.
        boxes : array_like, shape (n, 4) or (4,)
            Their new ``minx, miny, maxx, maxy``.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 1, 1], [5, 5, 6, 6]])
        >>> tree.move(h[1], [0.5, 0.5, 1.5, 1.5])
        >>> tree.pairs().tolist()
        [[0, 1]]
        """
        arr = _cast.rows(_one_or_many(boxes, 4), "boxes", 4, "minx, miny, maxx, maxy")
        h = _plain_handles(handles)
        if h is not None and h.shape[0] == arr.shape[0]:  # checked and stored in one call
            changed = _dyn.move_boxes(
                h, arr, self._hwm, self._kind, self._nshaped > 0, self._shapes, self._boxes,
                self._bounds[0], self._bounds[1], self._sx, self._sy, self._depth, _SLACK,
                self._plv, self._pcx, self._pcy, self._pnx, self._pny, self._sub0, self._dirty,
                self._stale)
            if changed >= 0:
                self._moved(h.shape[0], changed)
                return
        h = self._handles(handles, SHAPE_BOX)  # these name what is wrong
        arr, _ = _cast.boxes(arr)
        _same_length(h, arr, "boxes")
        self._place(h, arr, arr, SHAPE_BOX)

    def move_circles(self, handles: ArrayLike, centers: ArrayLike,
                     radii: ArrayLike | None = None) -> None:
        """Give circle objects new centres (and radii).

        Parameters
        ----------
        handles : int or array_like of int, shape (n,)
            Circle objects, each at most once.
        centers : array_like, shape (n, 2) or (2,)
            Their new centres.
        radii : float or array_like, shape (n,), optional
            New radii; by default each keeps its own.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert_circles([[1, 1], [6, 6]], 1.0)
        >>> tree.move_circles(h[1], [2, 1])
        >>> tree.pairs().tolist()
        [[0, 1]]
        """
        h = self._handles(handles, SHAPE_CIRCLE)
        c = _cast.rows(_one_or_many(centers, 2), "centers", 2, "x, y")
        _same_length(h, c, "centers")
        r = self._shapes[h, 3] if radii is None else radii
        xyr, bxs = self._circles(c, r)
        self._place(h, bxs, xyr, SHAPE_CIRCLE)

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
        h = self._handles(handles)
        self._count_kinds(h, -1)
        _dyn.unlink(h, self._plv, self._nodes, self._head, self._dirty, self._stale)
        self._free.extend(reversed(h.tolist()))  # the first removed is reused first
        self._count -= h.shape[0]

    # ------------------------------------------------------------------
    # questions

    def pairs(self) -> NDArray[np.intp]:
        """Every colliding pair of objects, as handles.

        Returns
        -------
        ndarray of intp, shape (k, 2)
            ``i < j`` in each row, rows sorted; exact box, circle and
            box--circle tests, groups and category/mask filters applied.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> b = tree.insert([[0, 0, 2, 2], [1, 1, 3, 3], [2, 0, 4, 1]])
        >>> c = tree.insert_circles([[3.5, 3.5]], 0.7)
        >>> tree.pairs().tolist()  # 0 and 2 only touch; the circle just misses 1's corner
        [[0, 1]]
        """
        n = self._hwm
        self._last = {"entries": 0, "candidate_tests": 0, "pairs": 0}
        skeys, sobjs = self._sorted_entries()
        m = skeys.shape[0]
        self._last["entries"] = m
        stream = self._nplaced > _STREAM_SHARE * self._count
        self._nplaced = 0
        if m == 0:
            return np.empty((0, 2), np.intp)
        if stream:  # many boxes rewritten: bring them back for the walk's random gather
            _dyn.stream_rows(self._boxes[:n], 2)
        pairs, tests = _walk.walk_sorted(skeys, sobjs, self._boxes, self._bounds[0],
                                         self._bounds[1], self._sx, self._sy, self._depth,
                                         self._narrow(), n)
        self._last.update(candidate_tests=tests, pairs=pairs.shape[0])
        return pairs

    def query(self, box: ArrayLike) -> NDArray[np.intp]:
        """Sorted handles of the objects that overlap ``box`` (touching does not count).

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 1, 1], [1, 1, 2, 2], [5, 5, 6, 6]])
        >>> tree.query([0.5, 0.5, 1.5, 1.5]).tolist(), tree.query([1, 0, 3, 1]).tolist()
        ([0, 1], [])
        """
        q, _ = _cast.boxes(_one_or_many(box, 4), "box")
        if q.shape[0] != 1:
            raise ValueError(f"box: expected one box (minx, miny, maxx, maxy), found "
                             f"{q.shape[0]} rows")
        cand = self._candidates(q[0])
        out = np.empty(cand.shape[0], np.intp)
        k = _dyn.touching_box(cand, self._shapes, self._boxes, *q[0], out)
        return np.sort(out[:k])

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
        p, _ = _cast.boxes([[_real(x, "x"), _real(y, "y"), x, y]], "point")
        cand = self._candidates(p[0])
        out = np.empty(cand.shape[0], np.intp)
        k = _dyn.containing_point(cand, self._shapes, self._boxes, float(x), float(y), out)
        return np.sort(out[:k])

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
        h = self._handles(handle)
        if h.shape[0] != 1:
            raise ValueError(f"handle: expected one handle, found {h.shape[0]}")
        levels = np.empty(1, np.int64)
        index = np.empty(1, np.int64)
        locate_boxes(self._boxes[h], self._bounds[0], self._bounds[1], self._sx, self._sy,
                     self._depth, levels, index)
        return int(levels[0]), int(index[0])

    def stats(self) -> dict:
        """Counts to tune ``depth`` by.

        Returns
        -------
        dict
            ``objects``; ``outside``: objects not wholly inside ``bounds``;
            ``levels``: objects entered at each level, 0 (the whole world) to
            ``depth``; ``relinked``: objects the last insert or move placed
            into other cells (many per move means cells too fine);
            ``entries``, ``candidate_tests`` and ``pairs`` of the last
            :meth:`pairs` call (candidate tests are the box tests the walk
            made: many per pair means cells too coarse).

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=2)
        >>> h = tree.insert([[1, 1, 1.5, 1.5], [7, 7, 9, 9], [1.2, 1.2, 5, 5]])
        >>> p = tree.pairs(); s = tree.stats()
        >>> s["objects"], s["outside"], s["levels"].tolist(), s["pairs"]
        (3, 1, [0, 1, 2], 1)
        """
        live = np.flatnonzero(self._plv[:self._hwm] >= 0)
        b = self._boxes[live]
        x0, y0, x1, y1 = self._bounds
        outside = ~((b[:, 0] >= x0) & (b[:, 1] >= y0) & (b[:, 2] <= x1) & (b[:, 3] <= y1))
        levels = np.bincount(self._plv[live], minlength=self._depth + 1)
        return {"objects": self._count, "outside": int(outside.sum()), "levels": levels,
                "relinked": int(self._relinked), **self._last}

    def validate(self) -> None:
        """Check the structure; raises ``AssertionError`` naming the first broken invariant.

        Every live object's placement is that of its box, and its cells lie
        inside the seeds' cell that :meth:`locate` gives (they are that
        cell, or for a straddler the cells below it that the object
        overlaps); its nodes are in the lists of those cells unless it is
        marked stale (moved to other cells since the lists were last
        brought up to date); every list is consistently doubly linked from
        its head, and no list holds a node of a removed object.  For tests;
        O(n + number of cells).

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
        >>> h = tree.insert([[0, 0, 1, 1], [3.9, 3.9, 4.1, 4.1]]); tree.validate()
        """
        _validate(self)

    # ------------------------------------------------------------------
    # internals

    def _add(self, bxs, rows, kind, filt) -> NDArray[np.intp]:
        n = bxs.shape[0]
        nreuse = min(n, len(self._free))
        fresh = n - nreuse
        if self._hwm + fresh > self._cap:
            self._grow(max(2 * self._cap, self._hwm + fresh))
        h = np.empty(n, np.intp)
        h[:nreuse] = self._free[len(self._free) - nreuse:][::-1]  # popped off the stack
        del self._free[len(self._free) - nreuse:]
        h[nreuse:] = np.arange(self._hwm, self._hwm + fresh)
        self._hwm += fresh
        at = slice(h[0], h[0] + n) if nreuse == 0 and n else h  # fresh slots: no gather
        self._groups[at], self._cats[at], self._masks[at] = filt
        self._shapes[at, 0] = self._kind[at] = kind
        self._place(h, bxs, rows, kind, new=True)
        self._count += n
        self._count_kinds(h, 1)
        return h

    def _place(self, h, bxs, rows, kind, new: bool = False) -> None:
        """Store the objects' boxes and shapes and their placement.

        ``new`` objects are linked into their cells' lists at once.  Moved
        objects that changed cells are marked stale instead: their list
        nodes move at the next :meth:`_relink`, so that frames which ask
        only for :meth:`pairs` (which walks its own sorted entries) never
        pay for list upkeep.
        """
        changed = _dyn.store_and_place(
            h, bxs, rows, kind, self._nshaped > 0, self._shapes, self._boxes, self._bounds[0],
            self._bounds[1], self._sx, self._sy, self._depth, _SLACK, self._plv, self._pcx,
            self._pcy, self._pnx, self._pny, self._sub0, self._dirty, self._stale)
        if new:
            self._nplaced += h.shape[0]
            self._relinked = changed
            self._link(h)
        else:
            self._moved(h.shape[0], changed)

    def _moved(self, n: int, changed: int) -> None:
        """Count a move of ``n`` objects, of which ``changed`` changed cells (now stale)."""
        self._nplaced += n
        self._relinked = changed
        self._nstale += changed

    def _relink(self) -> None:
        """Move the nodes of every stale object into the lists of its cells (O(1) each)."""
        if self._nstale == 0:
            return
        stale = np.flatnonzero(self._stale[:self._hwm])
        _dyn.unlink_stale(stale, self._nodes, self._head)
        self._link(stale)
        self._nstale = 0

    def _link(self, objs) -> None:
        """Link the nodes of ``objs``, which are in no list, into their placement's cells."""
        self._stale[objs] = 0
        placement = (self._plv, self._pcx, self._pcy, self._pnx, self._pny)
        k = objs.shape[0]
        if k < _SORTED_LINK:
            _dyn.link_moved(objs, *placement, self._nodes, self._head)
            return
        starts = _work.buffer("tstarts", k + 1, np.int64)
        starts[0] = 0
        np.cumsum(self._pnx[objs].astype(np.int64) * self._pny[objs], out=starts[1:])
        m = int(starts[-1])
        cells = _work.buffer("tcells", m, np.int64)
        ids = _work.buffer("tids", m, np.int64)
        _dyn.node_cells(objs, starts, *placement, cells, ids)
        kb = _work.buffer("tcells2", m, np.int64)
        vb = _work.buffer("tids2", m, np.int64)
        nbits = max(1, int(_dyn.cell_base(self._depth + 1)).bit_length())
        scells, sids = _radix.sort_pairs(cells, ids, kb, vb, nbits)
        _dyn.link_sorted(scells, sids, self._nodes, self._head)

    def _grow(self, cap: int) -> None:
        for name, dtype, shape, fill in _SLOT_ARRAYS:
            arr = np.empty((cap,) + shape, dtype)
            if fill is not None:
                arr[self._cap:] = fill
            if self._cap:
                arr[:self._cap] = getattr(self, name)
            setattr(self, name, arr)
        nodes = _aligned((4 * cap, 4), np.int32, 64)  # four list nodes per slot
        nodes[4 * self._cap:, _dyn.NODE_CELL] = -1
        if self._cap:
            nodes[:4 * self._cap] = self._nodes
        self._nodes = nodes
        self._cap = cap

    def _count_kinds(self, h, sign: int) -> None:
        """Keep count of the live circles, grouped and masked objects (``sign`` +1 or -1).

        The first circle makes the walk read the boxes' shape rows: fill them.
        """
        before = self._nshaped
        self._nshaped += sign * int(np.count_nonzero(self._kind[h] == SHAPE_CIRCLE))
        if before == 0 and self._nshaped > 0:
            n = self._hwm
            boxes = np.flatnonzero((self._plv[:n] >= 0) & (self._kind[:n] == SHAPE_BOX))
            self._shapes[boxes, 1:] = self._boxes[boxes]
        self._ngrouped += sign * int(np.count_nonzero(self._groups[h]))
        self._nmasked += sign * int(np.count_nonzero((self._cats[h] != _ALL_BITS)
                                                     | (self._masks[h] != _ALL_BITS)))

    def _sorted_entries(self):
        """Entries of every node in walk order, kept for the next call.

        Refreshes the last call's entries (``dynamic.refresh``), sorting
        anew only the entries of objects that changed cells since;
        builds and sorts them all on the first call, when more than
        ``_REBUILD_SHARE`` of the objects changed cells, or when the
        refresh gives up (objects that jumped far inside big cells).
        """
        n = self._hwm
        dirty = self._dirty[:n]
        relinked = np.flatnonzero(dirty == _dyn.RELINKED)
        m = -1
        if self._sk is not None and relinked.shape[0] <= _REBUILD_SHARE * max(self._count, 1):
            keys, objs = self._entries_of(relinked)
            # a few thousand keys: chunks smaller than find_pairs' still pay
            nk, no = _walk.sorted_entries(keys, objs, self._nbits(), _NEW_GRAIN)
            m_old = self._sk.shape[0]
            sk, so = self._spare(m_old + nk.shape[0])
            bounds = np.empty(chunk_count(m_old, grain=_REFRESH_GRAIN) + 1, np.int64)
            m = _dyn.refresh(self._sk, self._so, dirty, self._sub0, self._pcx, self._depth,
                             nk, no, bounds, sk, so)
            sk, so = sk[:m], so[:m]
        if m < 0:  # first call, many changed cells, or objects jumped far inside big cells
            keys, objs = self._entries_of(np.flatnonzero(self._plv[:n] >= 0))
            skeys, sobjs = _walk.sorted_entries(keys, objs, self._nbits())
            sk, so = self._spare(skeys.shape[0])
            sk[:] = skeys
            so[:] = sobjs
        self._sk, self._so = sk, so
        dirty[:] = _dyn.CLEAN
        return sk, so

    def _spare(self, m: int):
        """Arrays for ``m`` sorted entries, not those of the last call (two, used in turn)."""
        keys, objs = self._spares.pop(0)
        if keys.shape[0] < m:
            keys, objs = np.empty(m + m // 4 + 64, np.int64), np.empty(m + m // 4 + 64, _IDX)
        self._spares.append((keys, objs))
        return keys[:m], objs[:m]

    def _entries_of(self, objs):
        """Unsorted entries of the placed objects ``objs``, in that order.

        Views of scratch buffers, valid until the next call.
        """
        keys = _work.buffer("tent_k", 4 * objs.shape[0], np.int64)
        sobjs = _work.buffer("tent_o", 4 * objs.shape[0], _IDX)
        m = _dyn.entries(objs, self._plv, self._pcx, self._pcy, self._pnx, self._pny,
                         self._sub0, self._depth, keys, sobjs)
        return keys[:m], sobjs[:m]

    def _nbits(self) -> int:
        return 2 * self._depth + _qt.KEY_EXTRA_BITS

    def _filters(self, n, groups, categories, masks):
        g = _cast.per_object(groups, "groups", n, np.int64)
        c = _cast.per_object(categories, "categories", n, np.uint64)
        m = _cast.per_object(masks, "masks", n, np.uint64)
        return (np.zeros(n, np.int64) if g is None else g,
                np.full(n, _ALL_BITS, np.uint64) if c is None else c,
                np.full(n, _ALL_BITS, np.uint64) if m is None else m)

    def _circles(self, centers, radii):
        xyr, bxs = _cast.circles(centers, radii)
        return xyr, bxs

    def _narrow(self) -> tuple:
        mode = ((MODE_SHAPES if self._nshaped else 0) | (MODE_GROUPS if self._ngrouped else 0)
                | (MODE_MASKS if self._nmasked else 0))
        return self._shapes, self._groups, self._cats, self._masks, mode

    def _handles(self, handles, kind: int = -1) -> NDArray[np.intp]:
        """Validated handles: live, each once, of shape ``kind`` if >= 0.

        ``KeyError`` naming the first unknown or removed handle.
        """
        arr = np.asarray(handles)
        if arr.dtype.kind in "fO" and arr.size and not isinstance(handles, np.ndarray):
            arr = _int_list(handles)  # [np.uint64(0), 1] is float64, [2**64] object
        if arr.dtype.kind not in "iu":
            if arr.size == 0 and arr.dtype.kind == "f":
                arr = arr.astype(np.intp)
            else:
                raise TypeError(f"handles: expected integers, found dtype {arr.dtype}")
        arr = np.atleast_1d(arr)
        if arr.ndim != 1:
            raise ValueError(f"handles: expected a handle or shape (n,), found shape {arr.shape}")
        h = np.ascontiguousarray(arr, dtype=np.intp)
        if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.intp).max:
            raise KeyError(f"handle {arr.max()}: not in the tree (removed or never inserted)")
        self._mark += 1
        at, code = _dyn.check_handles(h, self._plv, self._hwm, self._stamp, self._mark,
                                      self._kind, int(kind))
        if code == 1:
            raise KeyError(f"handle {arr[at]}: not in the tree (removed or never inserted)")
        if code == 2:
            raise ValueError(f"handles: each handle at most once, found {arr[at]} twice")
        if code == 3:
            other = ("a circle; move it with move_circles" if kind == SHAPE_BOX
                     else "a box; move it with move")
            raise ValueError(f"handles[{at}]: handle {arr[at]} is {other}")
        return h

    def _candidates(self, box) -> NDArray[np.intp]:
        """Objects in the cells of every level that ``box`` meets (a superset)."""
        self._relink()
        budget = max(64, 4 * self._count)
        cells = _work.buffer("tcells", budget, np.int64)
        ncells = _dyn.cells_of_box(box, self._bounds[0], self._bounds[1], self._sx, self._sy,
                                   self._depth, cells)
        if ncells < 0:  # more cells to visit than objects to test: test them all
            return np.flatnonzero(self._plv[:self._hwm] >= 0)
        self._mark += 1
        out = _work.buffer("tcand", self._hwm, np.intp)
        k = _dyn.list_objects(cells, ncells, self._head, self._nodes, self._stamp,
                              self._mark, out)
        return out[:k]


def _aligned(shape: tuple, dtype, align: int) -> np.ndarray:
    """An uninitialised array whose data starts on an ``align``-byte boundary."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    raw = np.empty(nbytes + align, np.uint8)
    skip = -raw.ctypes.data % align
    return raw[skip:skip + nbytes].view(dtype).reshape(shape)


def depth_for(world: float, size: float) -> int:
    """A depth whose finest cells are about 8 objects of ``size`` wide (1 to MAX_DEPTH).

    The setting of docs/benchmarks.md, "Moving objects", used by the
    benchmark's ``moving`` scene and the demo.
    """
    return int(min(MAX_DEPTH, max(1, round(math.log2(max(world / (8 * size), 1.0))))))


def _real(v, name: str) -> float:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
        raise TypeError(f"{name}: expected a real number, found {v!r}")
    if not math.isfinite(float(v)):
        raise ValueError(f"{name}: expected a finite number, found {v!r}")
    return float(v)


def _int_list(values) -> np.ndarray:
    """Handles given as Python or NumPy integers of any size, exactly; int64 or uint64.

    ``KeyError`` for one no array can hold (no handle is that big), else
    the values as they were (the caller reports a wrong type).
    """
    obj = np.asarray(values, dtype=object)
    if not all(isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))
               for v in obj.flat):
        return np.asarray(values)
    ints = [int(v) for v in obj.flat]
    for v in ints:
        if not -(2**63) <= v < 2**64:
            raise KeyError(f"handle {v}: not in the tree (removed or never inserted)")
    dtype = np.uint64 if max(ints) >= 2**63 else np.int64
    return np.array(ints, dtype=dtype).reshape(obj.shape)


def _plain_handles(handles):
    """An integer array (or list) of handles as a contiguous intp array, or None.

    Nothing is checked: the move kernel does, and hands anything odd to
    the full checks.
    """
    arr = np.asarray(handles)
    if arr.dtype.kind not in "iu" or arr.ndim > 1:
        return None
    return np.ascontiguousarray(np.atleast_1d(arr), dtype=np.intp)


def _one_or_many(value, width: int):
    """A single row of ``width`` numbers as a one-row table; anything else unchanged."""
    if np.ndim(value) == 1 and np.shape(value) == (width,):
        return [value]
    return value


def _same_length(h, rows, name: str) -> None:
    if rows.shape[0] != h.shape[0]:
        raise ValueError(f"{name}: expected {h.shape[0]} rows (one per handle), "
                         f"found {rows.shape[0]}")


def _check_bounds(bounds) -> tuple[float, float, float, float]:
    try:
        x0, y0, x1, y1 = (float(v) for v in bounds)
    except (TypeError, ValueError):
        raise TypeError(f"bounds: expected (minx, miny, maxx, maxy), found {bounds!r}") from None
    if not (np.isfinite([x0, y0, x1, y1]).all() and x0 < x1 and y0 < y1):
        raise ValueError(f"bounds: expected finite (minx, miny, maxx, maxy) with minx < maxx "
                         f"and miny < maxy, found {(x0, y0, x1, y1)}")
    return x0, y0, x1, y1


def _check_depth(depth) -> int:
    if isinstance(depth, (bool, np.bool_)) or not isinstance(depth, numbers.Integral):
        raise TypeError(f"depth: expected an int, found {depth!r}")
    if not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth: expected 0 <= depth <= {MAX_DEPTH} (the list heads of "
                         f"depth 12 take 89 MB, each level more four times that), "
                         f"found {depth}")
    return int(depth)


def _validate(tree: LinearQuadtree) -> None:
    n = tree._hwm
    live = np.flatnonzero(tree._plv[:n] >= 0)
    assert live.shape[0] == tree._count, f"count {tree._count} != live slots {live.shape[0]}"
    assert sorted(tree._free) == sorted(np.flatnonzero(tree._plv[:n] < 0).tolist()), \
        "free list != removed slots"
    # placement recomputed from each live object's box
    lv = np.empty(live.shape[0], np.int8)
    cx = np.empty(live.shape[0], np.int32)
    cy = np.empty(live.shape[0], np.int32)
    nx = np.empty(live.shape[0], np.int8)
    ny = np.empty(live.shape[0], np.int8)
    _dyn.placement(tree._boxes[live], tree._bounds[0], tree._bounds[1], tree._sx, tree._sy,
                   tree._depth, _SLACK, lv, cx, cy, nx, ny)
    from ._kernels.morton import encode_array

    # the seeds' cell of each object (locate): its placement cells lie inside it
    sl = np.empty(live.shape[0], np.int64)
    si = np.empty(live.shape[0], np.int64)
    locate_boxes(tree._boxes[live], tree._bounds[0], tree._bounds[1], tree._sx, tree._sy,
                 tree._depth, sl, si)
    for k, h in enumerate(live.tolist()):
        got = (tree._plv[h], tree._pcx[h], tree._pcy[h], tree._pnx[h], tree._pny[h])
        want = (lv[k], cx[k], cy[k], nx[k], ny[k])
        assert got == want, f"object {h}: placement {got}, its box gives {want}"
        r = np.arange(nx[k] * ny[k])
        code = np.empty(r.shape[0], np.int64)
        encode_array((cx[k] + r % nx[k]).astype(np.int64), (cy[k] + r // nx[k]).astype(np.int64),
                     code)
        up = 2 * (int(lv[k]) - int(sl[k]))
        assert up >= 0 and (code >> up == si[k]).all(), \
            f"object {h}: cells {code.tolist()} at level {lv[k]} outside its seeds' cell " \
            f"{(int(sl[k]), int(si[k]))}"
        cells = _dyn.cell_base(int(lv[k])) + code
        nodes = tree._nodes[4 * h:4 * h + 4, _dyn.NODE_CELL]
        if tree._stale[h]:  # its nodes may still be in the lists of its old cells
            continue
        assert nodes[:r.shape[0]].tolist() == cells.tolist() and (nodes[r.shape[0]:] == -1).all(), \
            f"object {h}: nodes in cells {nodes.tolist()}, expected {cells.tolist()}"
    assert (tree._kind[live] == tree._shapes[live, 0]).all(), "kinds differ from shape rows"
    if tree._nshaped:
        boxes = live[tree._shapes[live, 0] == SHAPE_BOX]
        assert (tree._shapes[boxes, 1:] == tree._boxes[boxes]).all(), "a box's shape row is stale"
    nstale = int(np.count_nonzero(tree._stale[:n]))
    assert nstale <= tree._nstale, f"{nstale} stale objects, counted {tree._nstale}"
    for h in np.flatnonzero(tree._plv[:n] < 0).tolist():
        assert not tree._stale[h], f"removed object {h} marked stale"
        assert (tree._nodes[4 * h:4 * h + 4, _dyn.NODE_CELL] == -1).all(), \
            f"removed object {h} still linked"
    # every list: doubly linked from its head, each node in the cell it says
    seen = 0
    for c in np.flatnonzero(tree._head >= 0).tolist():
        nd, prev = int(tree._head[c]), -1
        while nd >= 0:
            cell, back, nxt = tree._nodes[nd, :3].tolist()
            assert cell == c, f"node {nd} in the list of cell {c}, says {cell}"
            assert back == prev, f"node {nd}: prev {back} != {prev}"
            seen += 1
            assert seen <= 4 * n, "a list has a cycle"
            prev, nd = nd, nxt
    linked = int((tree._nodes[:4 * n, _dyn.NODE_CELL] >= 0).sum())
    assert seen == linked, f"{linked} nodes linked, {seen} reachable from the heads"
