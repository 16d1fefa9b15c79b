"""The base of ``LinearQuadtree`` and its mixins: the core's tree, its findings worded as errors.

Every part of :class:`broadphase.LinearQuadtree` (``_tree.py`` and the
mixins in ``_tree_frames.py``, ``_tree_queries.py``, ``_tree_casts.py``)
holds the core's tree as ``self._t`` and reports what the core finds wrong
(``_core.BadHandle``, ``_core.BadRow``) through this one class: an error
naming the argument and the row or the handle.  The shape codes of the
core (``narrow::BOX``, ``narrow::CIRCLE``) are named here once.

A tree made with ``touching=True`` holds closed boxes: the core stores each
box with its maxima raised one step of float64 (:func:`._cast.closed`), so
that its open tests are the closed ones, and a query region is raised the
same way (:func:`._cast.closed_region`).  What the tree gives back is lowered
again (:meth:`_TreeBase._as_given`); a max of -0.0 is the one value that
does not come back from its raised value (0.0 does), so the boxes with one
are kept here as given, by handle.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from . import _cast, _core
from ._tree_args import _handle_array

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

    def _world(self, bounds: tuple[float, ...]) -> tuple[float, ...]:
        """The world the core is given: in a closed tree, its maxima raised as the boxes' are.

        So a box is inside the world (``stats()["outside"]``) exactly when
        the box as given is inside the bounds as given; the largest float
        stays (a box never reaches it).
        """
        if not self._closed:
            return bounds
        return tuple(_cast.closed_region(np.array([bounds], np.float64))[0].tolist())

    def _open_only(self, call: str) -> None:
        """Refuse ``call`` on a closed tree: it holds boxes searched as closed boxes only."""
        if self._closed:
            raise ValueError(f"{call}: this tree was made with touching=True, which holds "
                             f"boxes only and answers pairs and box queries; a tree without "
                             f"it holds {self._BALL}s, casts rays and finds swept pairs")

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
        return _cast.closed(given, name), {int(k): given[k].copy() for k in signed}

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
        return _cast.closed_region(q) if self._closed else q

    def _point_region(self, *point: float) -> NDArray[np.intp]:
        """``query_point`` in a closed tree: the objects whose closed box holds the point."""
        q = np.array([point + point], np.float64)
        return self._t.query(_cast.closed_region(q)[0].tolist())

    def _as_given(self, h: NDArray[np.intp], out: np.ndarray) -> np.ndarray:
        """Stored boxes ``out`` of handles ``h`` as they were given (lowered in a closed tree)."""
        if not self._closed:
            return out
        out = _cast.lowered(out)
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
