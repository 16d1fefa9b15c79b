"""Ray casts and swept pairs of :class:`LinearQuadtree`, answered in handles.

The methods live here (a mixin ``LinearQuadtree`` inherits) and check their
arguments through :mod:`._ray_args`, as :func:`broadphase.cast_rays` does;
the core (``rust/core/src/tree/casts.rs``, ``tree/sweeps.rs``) casts at the
live objects, boxes and circles together (their order along a ray exact
across kinds), and finds the pairs swept between two calls.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _cast_options, _core, _ray_args
from ._casts import CastResult
from ._tree_base import _TreeBase

__all__: list[str] = []


class _TreeCasts(_TreeBase):
    """The casts and swept pairs of :class:`LinearQuadtree`."""

    def cast_rays(
        self,
        origins: ArrayLike,
        directions: ArrayLike,
        *,
        max_t: float | ArrayLike = math.inf,
        hits: str = "first",
        ray_categories: ArrayLike | None = None,
        ray_masks: ArrayLike | None = None,
        ignore: int | ArrayLike | None = None,
        workers: int | None = None,
    ) -> CastResult:
        """Cast many rays (or segments) at the tree's objects: first, all or any hits.

        As :func:`broadphase.cast_rays`, the objects being the tree's live
        boxes and circles, named by handle.  Ray ``k`` is the set of points
        ``origins[k] + s * directions[k]`` for ``0 <= s <= max_t``; it hits
        an object when one of them lies strictly inside it (grazing an
        edge, a corner or a circle is no hit) and enters it at ``t``, the
        least such ``s`` (0 for a ray starting inside).  The hit decision
        and the order of hits are exact, between boxes and circles too;
        ties go to the lower handle.  The objects' categories and masks
        (given at insert) filter the hits.

        Parameters
        ----------
        origins, directions : array_like, shape (m, 2)
            ``x, y`` and ``dx, dy`` per ray, finite; a zero direction is the
            single point ``origin``.
        max_t : float or array_like, shape (m,)
            The greatest ``s`` (default ``inf``), one for all rays or one per
            ray; ``max_t=1`` makes each ray the segment from its origin to
            ``origin + direction``.
        hits : {"first", "all", "any"}
            What to report (see Returns).
        ray_categories, ray_masks : array_like of uint64, shape (m,), optional
            The rays' bits: ray ``k`` may hit object ``h`` only if
            ``ray_categories[k] & masks[h]`` and ``categories[h] & ray_masks[k]``
            are both non-zero.
        ignore : int or array_like of int, shape (m,), optional
            Per ray, a handle it never hits (the shooter's own), or -1; a
            handle of no live object ignores nothing.
        workers : int, optional
            Threads (default: the tree's); the result does not depend on it.

        Returns
        -------
        hits="first" : (ndarray of intp, ndarray of float64), shapes (m,)
            The handle each ray hits first and its ``t``; -1 and ``inf`` for none.
        hits="all" : (ndarray of intp, shape (k, 2), ndarray of float64, shape (k,))
            Rows ``(ray, handle)`` of every hit, sorted, and their ``t``.
        hits="any" : ndarray of bool, shape (m,)
            Whether each ray hits anything (``~any`` is line of sight).

        Raises
        ------
        ValueError
            Non-finite origins or directions, a negative or NaN ``max_t``,
            lengths that differ, an unknown ``hits``, an ``ignore`` below -1
            (each naming its row).
        MemoryError
            With ``hits="all"``, when the hits would not fit in the available
            memory (the message gives their number).

        Notes
        -----
        A few short rays walk the tree's own cells and cost the cells they
        cross: a line of sight or a shot given as Python numbers takes
        microseconds on a tree of thousands.  Many rays, or rays with no end
        (``max_t`` infinite), are cast through a uniform grid built over the
        live objects for the call, which costs about one pass over them (as a
        static :func:`broadphase.cast_rays` call does).  The answers are the
        same either way.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, -8, 16, 8), depth=4)
        >>> wall, far = tree.insert([[6, -2, 7, 2], [12, -2, 13, 2]])
        >>> ball = tree.insert_circles([[4, 0]], 1.0)[0]
        >>> index, t = tree.cast_rays([[0, 0], [0, 3]], [[1, 0], [1, 0]])
        >>> index.tolist(), t.tolist()  # the ball first; the second ray passes above all
        ([2, -1], [3.0, inf])
        >>> pairs, t = tree.cast_rays([[0, 0]], [[1, 0]], hits="all")
        >>> pairs.tolist(), t.tolist()
        ([[0, 0], [0, 1], [0, 2]], [6.0, 12.0, 3.0])
        >>> tree.cast_rays([[4, 0]], [[1, 0]], ignore=ball)[0].tolist()  # the shooter's own
        [0]
        >>> tree.cast_rays([[0, 0]], [[1, 0]], max_t=2.5, hits="any").tolist()
        [False]
        """
        self._open_only("cast_rays")
        self._no_period("cast_rays")
        if ray_categories is None and ray_masks is None and workers is None:
            # a few rays of Python numbers (a line of sight, a shot): read directly
            out = _core.tree_cast_few(self._t, origins, directions, max_t, hits, ignore)
            if out is not None:
                return out
        return self._cast(origins, directions, max_t, hits, ray_categories, ray_masks, ignore,
                          workers, 2)

    def _cast(self, origins, directions, max_t, hits, ray_categories, ray_masks, ignore,
              workers, dims: int) -> CastResult:
        """:meth:`cast_rays` of rays in ``dims`` dimensions, checked, through the core."""
        self._open_only("cast_rays")
        self._no_period("cast_rays")
        nthreads = _cast_options.workers(workers) if workers is not None else None
        hits = _ray_args.hits(hits)
        rays = _ray_args.rays(origins, directions, max_t, ray_categories, ray_masks, None, 0,
                              dims)
        m = rays["origins"].shape[0]
        rays["ignore"] = _ray_args.ignore_handles(ignore, m)
        out = _core.tree_cast_rays(self._t, rays.pop("origins"), rays.pop("directions"),
                                   rays.pop("max_t"), hits, workers=nthreads, **rays)
        return _ray_args.answer(out, hits)

    def swept_pairs(self) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        """The pairs that overlapped at some moment since the last call (continuous collision).

        Each live object moves linearly, ``s`` from 0 to 1, from its
        *start* (where it was at the previous ``swept_pairs()`` call; for an
        object inserted since, or at the first call, where it is now) to
        where it is now; a pair is found when the two overlap strictly at
        some ``s``, with the first such ``s`` as ``t``.  So a fast bullet
        that crossed a wall between two frames is caught, though the two
        never overlap at a frame's end.  The rules are those of
        :meth:`pairs` (exact shapes, groups and category/mask filters);
        boxes and circles may be mixed.  A circle whose radius changed
        sweeps with the larger of its two radii over the frame, so the pairs
        at both ends of the frame are among the swept pairs.  Each call then
        keeps every object's place as the next start; :meth:`pairs` and
        :meth:`update` neither read nor change it.  When nothing moved the
        pairs are those of :meth:`pairs` with ``t == 0``.

        Returns
        -------
        pairs : ndarray of intp, shape (k, 2)
            Handles, ``i < j`` in each row, rows sorted.
        t : ndarray of float64, shape (k,)
            When each pair starts to overlap, in ``[0, 1]`` (the exact moment
            is below 1; correctly rounded for two boxes, so it may round to
            1.0; within a relative 2**-36 with a circle).

        Raises
        ------
        MemoryError
            When the pairs would not fit in the available memory.

        Examples
        --------
        >>> import broadphase as bp
        >>> tree = bp.LinearQuadtree((0, -16, 64, 16), depth=4)
        >>> bullet, wall = tree.insert([[0, 0, 4, 4], [20, -10, 23, 10]])
        >>> _ = tree.swept_pairs()                 # the frame's start
        >>> tree.move(bullet, [40, 0, 44, 4])      # 40 px in one frame
        >>> tree.pairs().tolist()                  # the frame's end: tunnelled
        []
        >>> pairs, t = tree.swept_pairs()
        >>> pairs.tolist(), t.tolist()
        ([[0, 1]], [0.4])
        """
        self._open_only("swept_pairs")
        self._no_period("swept_pairs")
        return _core.tree_swept_pairs(self._t)
