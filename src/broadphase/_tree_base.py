"""The base of ``LinearQuadtree`` and its mixins: the core's tree, its findings worded as errors.

Every part of :class:`broadphase.LinearQuadtree` (``_tree.py`` and the
mixins in ``_tree_edits.py``, ``_tree_frames.py``, ``_tree_queries.py``,
``_tree_casts.py``) holds the core's tree as ``self._t`` and reports what
the core finds wrong (``_core.BadHandle``, ``_core.BadRow``) through this
one class: an error naming the argument and the row or the handle.  The shape codes of the
core (``narrow::BOX``, ``narrow::CIRCLE``) are named here once.

A tree made with ``touching=True`` holds closed boxes: the core stores each
box with its maxima raised one step of float64
(:func:`._cast_touching.closed`), so that its open tests are the closed
ones, and a query region is raised the same way
(:func:`._cast_touching.closed_region`).  What the tree gives back is
lowered again (:meth:`_TreeBase._as_given`); a max of -0.0 is the one value
that does not come back from its raised value (0.0 does), so the boxes with
one are kept here as given, by handle.

A tree made with ``period=`` keeps a copy of its objects by handle
(:class:`._tree_periodic.PeriodicObjects`, ``self._p``) and answers its
pair and region questions by the static periodic search; ``self._p`` is
``None`` in an open domain.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from . import _cast, _cast_touching, _core, _periodic
from ._tree_args import _handle_array, _same_length
from ._tree_periodic import PeriodicObjects, refuse_wide_objects, refuse_wide_regions, shown

__all__: list[str] = []

BOX, CIRCLE = _core.KIND_BOX, _core.KIND_CIRCLE  # the core's shape codes


class _TreeBase:
    """The core's tree of a :class:`LinearQuadtree`, and its findings worded as errors."""

    _t: _core.Tree
    #: What a ball object is called in errors.
    _BALL = "circle"
    #: Closed boxes (``touching=True``), fixed for the tree's life.
    _closed: bool = False
    #: In a closed tree, the rows as given of the boxes with a max of -0.0, by handle.
    _signed: dict[int, np.ndarray]
    #: In a periodic tree, its objects by handle and its searches; ``None``: an open domain.
    _p: PeriodicObjects | None = None

    def _world(self, bounds: tuple[float, ...]) -> tuple[float, ...]:
        """The world the core is given: in a closed tree, its maxima raised as the boxes' are.

        So a box is inside the world (``stats()["outside"]``) exactly when
        the box as given is inside the bounds as given; the largest float
        stays (a box never reaches it).
        """
        if not self._closed:
            return bounds
        return tuple(_cast_touching.closed_region(np.array([bounds], np.float64))[0].tolist())

    def _open_only(self, call: str) -> None:
        """Refuse ``call`` on a closed tree: it holds boxes searched as closed boxes only."""
        if self._closed:
            raise ValueError(f"{call}: this tree was made with touching=True, which holds "
                             f"boxes only and answers pairs and box queries; a tree without "
                             f"it holds {self._BALL}s, casts rays and finds swept pairs")

    def _no_period(self, call: str) -> None:
        """Refuse ``call`` on a periodic tree: it has no periodic version yet."""
        if self._p is not None:
            raise ValueError(f"{call}: not supported on a periodic tree (made with period=); "
                             f"its pairs, events, touching and region queries are")

    def _periodic_setting(self, period, dims: int, touching: bool) -> None:
        """Read ``period=`` for a tree of ``dims`` dimensions (``self._p``)."""
        per = _periodic.period(period, dims, cell=False)
        _periodic.open_boxes_only(per, touching)
        self._p = None if per is None else PeriodicObjects(per, self._BALL)

    @property
    def period(self) -> tuple[float | None, ...] | None:
        """The period per axis given at construction (``None`` where open), or ``None``."""
        return None if self._p is None else shown(self._p.per)

    def _period_repr(self) -> str:
        """``, period=...`` for the ``repr`` of a periodic tree, else nothing."""
        return "" if self._p is None else f", period={shown(self._p.per)}"

    def _insert_periodic(self, kind: int, rows: np.ndarray, boxes: np.ndarray, filters: dict,
                         call: str, radii=None) -> NDArray[np.intp]:
        """Insert valid objects into a periodic tree: its kind admitted, their widths checked.

        ``rows`` are boxes (``kind`` ``BOX``, ``boxes`` the same) or balls
        (``boxes`` their boxes, ``radii`` the radii argument as given).
        """
        p = self._p
        p.admit(kind, call)
        ball = kind == CIRCLE
        refuse_wide_objects(rows, p.per, "boxes", ball, radii)
        h = self._t.insert(boxes, rows if ball else None, **filters)
        if type(h) is _core.BadRow:  # a row written by another thread since it was checked
            self._raise(h, None, kind, rows, "centers" if ball else "boxes")
        p.inserted(h, kind, rows, filters)
        return h

    def _insert_boxes(self, arr: np.ndarray, filters: dict) -> NDArray[np.intp]:
        """Insert valid boxes ``arr`` (either dimension): stored as the tree keeps them."""
        if self._p is not None:
            return self._insert_periodic(BOX, arr, arr, filters, "insert")
        arr, signed = self._stored(arr, "boxes")
        h = self._t.insert(arr, None, **filters)
        if type(h) is _core.BadRow:  # a row written by another thread since it was checked
            self._raise(h, None, BOX, arr, "boxes")
        self._kept(h, signed)
        return h

    def _insert_balls(self, rows: np.ndarray, boxes: np.ndarray, filters: dict, call: str,
                      radii=None) -> NDArray[np.intp]:
        """Insert valid balls ``rows`` (circles or spheres, ``boxes`` their boxes)."""
        if self._p is not None:
            return self._insert_periodic(CIRCLE, rows, boxes, filters, call, radii)
        h = self._t.insert(boxes, rows, **filters)
        if type(h) is _core.BadRow:  # a row written by another thread since it was checked
            self._raise(h, None, CIRCLE, rows, "centers")
        return h

    def _remove_handles(self, h: NDArray[np.int64]) -> None:
        """Take objects ``h`` out (checked first by the core: all or nothing)."""
        if self._p is not None:
            return self._remove_periodic(h)
        problem = self._t.remove(h)
        if problem is not None:
            self._raise(problem, h, -1)
        self._forget(h)

    def _move_periodic(self, h: NDArray[np.int64], kind: int, rows: np.ndarray, radii=None,
                       instead: str | None = None) -> None:
        """Move objects ``h`` of a periodic tree to the rows ``rows`` (boxes or balls).

        The handles first, then the rows (a box's values, as the core scans
        them), then their widths, as the open tree's move names them.
        """
        p = self._p
        self._check(h, kind, instead=instead)
        ball = kind == CIRCLE
        _same_length(h, rows, "centers" if ball else "boxes")
        if not ball:
            scan = _core.scan_boxes(rows, None)
            if type(scan) is _core.BadRow:
                self._raise(scan, h, kind, rows, "boxes")
        refuse_wide_objects(rows, p.per, "boxes", ball, radii)
        if not ball:
            problem = self._t.move_boxes(h, rows)
        elif hasattr(self._t, "move_circles"):
            problem = self._t.move_circles(h, rows)
        else:
            problem = self._t.move_spheres(h, rows)
        if problem is not None:
            self._raise(problem, h, kind, rows, "centers" if ball else "boxes", instead=instead)
        p.moved(h, kind, rows)

    def _remove_periodic(self, h: NDArray[np.int64]) -> None:
        """Take objects ``h`` out of a periodic tree (checked first: all or nothing)."""
        problem = self._t.remove(h)
        if problem is not None:
            self._raise(problem, h, -1)
        self._p.removed(h)

    def _regions_periodic(self, q: np.ndarray, call: str, name: str,
                          max_rows: int | None = None) -> NDArray[np.intp]:
        """Rows ``(region, handle)`` of a periodic tree's boxes overlapping the valid regions ``q``.

        Refused in a tree of balls (no exact periodic test of a box against
        a ball yet) and for a region wider than half the period (``name``
        and the row named, or ``name`` alone for :meth:`query`'s one box).
        """
        p = self._p
        if p.holds() == CIRCLE:
            raise ValueError(f"{call}: region queries of a periodic tree of {self._BALL}s are "
                             f"not supported (a box against a {self._BALL}'s periodic copies "
                             f"has no exact test yet); query_point, pairs, update and "
                             f"touching are")
        refuse_wide_regions(q, p.per, name, one=call == "query")
        return p.query_many(q, self._t.workers, max_rows)

    def _stored(self, arr: np.ndarray, name: str) -> tuple[np.ndarray, dict[int, np.ndarray]]:
        """The rows the core stores for the valid boxes ``arr``, and the rows given with a -0.0 max.

        In an open tree ``arr`` itself and no rows; in a closed one a copy
        with the maxima raised (a max of the largest float refused, naming
        ``name`` and the row) and, by row number, the given rows that have a
        max of -0.0.
        """
        if not self._closed:
            return arr, {}
        given = np.array(arr, np.float64, copy=True)  # read once: what is stored and kept agree
        hi = given[:, given.shape[1] // 2:]
        signed = np.flatnonzero(((hi == 0) & np.signbit(hi)).any(axis=1))
        return _cast_touching.closed(given, name), {int(k): given[k].copy() for k in signed}

    def _kept(self, h: NDArray[np.intp], signed: dict[int, np.ndarray]) -> None:
        """After boxes were given to the handles ``h``: keep the rows ``signed`` by handle."""
        if not self._closed:
            return
        if self._signed:
            self._forget(h)
        for row, given in signed.items():
            self._signed[int(h[row])] = given

    def _forget(self, h: NDArray[np.intp]) -> None:
        """Objects ``h`` removed or given new boxes: their kept rows go."""
        if self._signed:
            for k in self._signed.keys() & set(np.asarray(h).ravel().tolist()):
                del self._signed[k]

    def _region(self, q: np.ndarray) -> np.ndarray:
        """Valid query regions as the core is asked them: raised in a closed tree."""
        return _cast_touching.closed_region(q) if self._closed else q

    def _point_region(self, *point: float) -> NDArray[np.intp]:
        """``query_point`` in a closed tree: the objects whose closed box holds the point."""
        q = np.array([point + point], np.float64)
        return self._t.query(_cast_touching.closed_region(q)[0].tolist())

    def _as_given(self, h: NDArray[np.intp], out: np.ndarray) -> np.ndarray:
        """Stored boxes ``out`` of handles ``h`` as they were given (lowered in a closed tree)."""
        if not self._closed:
            return out
        out = _cast_touching.lowered(out)
        if self._signed:
            for k, handle in enumerate(np.asarray(h).ravel().tolist()):
                given = self._signed.get(handle)
                if given is not None:
                    out[k] = given
        return out

    def _one(self, handle) -> int:
        """One live handle, checked."""
        h = _handle_array(handle, "handle")
        if h.shape[0] != 1:
            raise ValueError(f"handle: expected one handle, found {h.shape[0]}")
        self._check(h, -1)
        return int(h[0])

    def _check(self, h: NDArray[np.intp], kind: int, instead: str | None = None) -> None:
        problem = self._t.check(h, kind)
        if problem is not None:
            self._raise(problem, h, kind, instead=instead)

    def _raise(self, problem, h, kind, rows=None, name=None, instead=None):
        """Raise the error ``problem`` (a ``_core.BadRow`` or ``_core.BadHandle``) words.

        ``instead`` names the call for the other kind of object (by default the
        move of the other kind).
        """
        if type(problem) is _core.BadRow:
            if name == "centers":  # ball rows: the centre, then the radius last
                raise ValueError(_cast.circle_problem(rows, rows[:, -1], problem.row,
                                                      problem.code))
            raise ValueError(_cast.box_problem(rows, name, problem.row, problem.code))
        at, code = problem.at, problem.code
        if code == _core.HANDLE_UNKNOWN:
            raise KeyError(f"handle {h[at]}: not in the tree (removed or never inserted)")
        if code == _core.HANDLE_TWICE:
            raise ValueError(f"handles: each handle at most once, found {h[at]} twice")
        if instead is None:
            instead = "move_circles moves circles" if kind == BOX else "move moves boxes"
        ball = self._BALL
        other = f"a {ball}, not a box" if kind == BOX else f"a box, not a {ball}"
        other += f" ({instead})"
        raise ValueError(f"handles[{at}]: handle {h[at]} is {other}")
