"""The base of ``LinearQuadtree`` and its mixins: the core's tree, its findings worded as errors.

Every part of :class:`broadphase.LinearQuadtree` (``_tree.py`` and the
mixins in ``_tree_frames.py``, ``_tree_queries.py``, ``_tree_casts.py``)
holds the core's tree as ``self._t`` and reports what the core finds wrong
(``_core.BadHandle``, ``_core.BadRow``) through this one class: an error
naming the argument and the row or the handle.  The shape codes of the
core (``narrow::BOX``, ``narrow::CIRCLE``) are named here once.
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
