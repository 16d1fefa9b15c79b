"""``SpriteIndex.cast_rays`` and ``SpriteIndex.swept_pairs``: casts and sweeps in sprites.

A part of :class:`broadphase.pygame.SpriteIndex` (a base class of it).  Both
questions run the static functions (:func:`broadphase.cast_rays`,
:func:`broadphase.find_swept_pairs`) on the boxes the index already holds,
with the rects that collide with nothing left out, and give their indices
back as sprites:

* the rows handed over are the members whose rect collides with something
  (``_box_at[h]`` is not the point ``_rects.FAR``), in the group's order,
  so an index into them is a position in that order: ties of first hits
  (which go to the lower index) and the order of rows are the group's;
* a rect of zero width or height collides with nothing in pygame, and the
  static functions agree only in part (a ray never hits a box without
  area, but a zero-width box strictly inside another is a pair): leaving
  those rows out makes the rule pygame's everywhere;
* a sprite's sweep runs from ``_start_at[h]``, its box at the previous
  :meth:`refresh` (or, for a sprite that joined since, or whose rect then
  collided with nothing, its current box: it appears where it is), to
  ``_box_at[h]``, its current box; one whose rect now collides with
  nothing is in no swept pair, as it is in no pair.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _casts, _rects

_FEW = 16  # segments that walk the tree's own cells (more: one static cast over the rows)


class SpriteCasts:
    """Ray casts and swept pairs in sprites, on the rects as of the last ``refresh()``."""

    def cast_rays(self, origins: ArrayLike, directions: ArrayLike, *,
                  max_t: float | ArrayLike = math.inf, hits: str = "first",
                  ignore: object = None) -> tuple[list, NDArray[np.float64]] | NDArray[np.bool_]:
        """Cast many rays (or segments) at the sprites: first hits, all hits, or line of sight.

        Ray ``k`` is the points ``origins[k] + s * directions[k]`` for ``0 <=
        s <= max_t`` (``max_t=1``: the segment to ``origin + direction``).  It
        hits a sprite when one of them lies strictly inside its rect (grazing
        an edge or a corner is no hit, as touching rects do not collide; a
        rect of zero width or height is never hit), entering it at ``t``,
        the least such ``s``.  The decision and the order of hits are exact;
        ties go to the sprite earlier in the group's order.  For the rects
        as of the last :meth:`refresh`.

        Parameters
        ----------
        origins, directions : array_like, shape (m, 2)
            ``x, y`` and ``dx, dy`` per ray (tuples or ``pygame.Vector2``), finite.
        max_t : float or array_like, shape (m,)
            The greatest ``s`` (default ``inf``), for all rays or per ray.
        hits : {"first", "all", "any"}
            What to report (see Returns).
        ignore : sprite or list of sprites, optional
            A sprite no ray hits (the shooter), or a list with one sprite
            (or ``None``) per ray.

        Returns
        -------
        hits="first" : (list, ndarray of float64, shape (m,))
            The first sprite each ray hits (``None`` for none) and its ``t``
            (``inf`` for none).
        hits="all" : (list of (int, sprite), ndarray of float64, shape (k,))
            Every hit as ``(ray, sprite)``, sorted by ray, then by the
            group's order; and their ``t``.
        hits="any" : ndarray of bool, shape (m,)
            Whether each ray hits a sprite (``~any`` is line of sight).

        Raises
        ------
        KeyError
            A sprite of ``ignore`` is not in this index.
        ValueError
            As :func:`broadphase.cast_rays` (non-finite origins, a negative
            ``max_t``, lengths that differ), naming the argument and row.

        Examples
        --------
        >>> import pygame
        >>> from broadphase.pygame import SpriteIndex
        >>> def sprite(x, y, w, h, name):
        ...     s = pygame.sprite.Sprite(); s.rect = pygame.Rect(x, y, w, h); s.name = name
        ...     return s
        >>> player, wall = sprite(0, 0, 8, 8, "player"), sprite(20, -10, 4, 40, "wall")
        >>> crate = sprite(40, 0, 8, 8, "crate")
        >>> index = SpriteIndex((0, 0, 64, 64), player, wall, crate)
        >>> first, t = index.cast_rays([player.rect.center], [(1, 0)], ignore=player)
        >>> [s.name for s in first], t.tolist()
        (['wall'], [16.0])
        >>> rows, t = index.cast_rays([(4, 4)], [(1, 0)], hits="all", ignore=player)
        >>> [(k, s.name) for k, s in rows], t.tolist()
        ([(0, 'wall'), (0, 'crate')], [16.0, 36.0])
        >>> index.cast_rays([(30, 4), (30, 50)], [(-20, 0), (-20, 0)], max_t=1, hits="any")
        array([ True, False])
        """
        self._apply()
        if self._few(origins, max_t):
            return self._cast_on_tree(origins, directions, max_t, hits, ignore)
        handles, boxes = self._solid()
        skip = self._ignored(ignore, handles)
        out = _casts.cast_rays(boxes, origins, directions, max_t=max_t, hits=hits, ignore=skip)
        if hits == "any":
            return out
        sprites = np.empty(len(handles) + 1, object)
        sprites[:-1] = self._sprite_at[handles]  # and None at -1: no hit
        if hits == "first":
            index, t = out
            return sprites[index].tolist(), t
        rows, t = out
        return list(zip(rows[:, 0].tolist(), sprites[rows[:, 1]].tolist(), strict=True)), t

    def swept_pairs(self) -> list[tuple]:
        """The pairs of sprites that collided at some moment between the last two refreshes.

        Each sprite's rect moves linearly from where it was at the previous
        :meth:`refresh` (``s = 0``) to where it is at the last one (``s =
        1``); a pair is found when the two rects overlap (with positive
        area) at some ``s``, with the first such ``s`` as ``t``: a fast
        bullet that crossed a wall between two frames is caught.  A sprite
        that joined since the previous refresh (or whose rect then collided
        with nothing) starts where it is now; one whose rect collides with
        nothing now is in no pair.  Every pair of :meth:`pairs` is among
        them.  The decision is exact; ``t`` is correctly rounded.

        Returns
        -------
        list of (sprite, sprite, float)
            ``(a, b, t)`` in the order of :meth:`pairs` (``a`` before ``b``
            in the group's order), ``t`` in ``[0, 1]``.

        Examples
        --------
        >>> import pygame
        >>> from broadphase.pygame import SpriteIndex
        >>> bullet, wall = pygame.sprite.Sprite(), pygame.sprite.Sprite()
        >>> bullet.rect, wall.rect = pygame.Rect(0, 0, 4, 4), pygame.Rect(20, 0, 3, 20)
        >>> index = SpriteIndex((0, 0, 64, 64), bullet, wall)
        >>> index.refresh()                   # the first frame
        >>> bullet.rect.x += 40; index.refresh()  # 40 px in one frame, through the wall
        >>> index.pairs()
        []
        >>> [(a is bullet, b is wall, t) for a, b, t in index.swept_pairs()]
        [(True, True, 0.4)]
        """
        self._apply()
        handles = self._handles
        end = self._box_at[handles]
        start = self._start_at[handles]
        solid = end[:, 0] != _rects.FAR
        handles, start, end = handles[solid], start[solid], end[solid]
        appear = start[:, 0] == _rects.FAR
        start[appear] = end[appear]
        pairs, t = _casts.find_swept_pairs(start, end)
        at = self._sprite_at[handles]
        return list(zip(at[pairs[:, 0]].tolist(), at[pairs[:, 1]].tolist(), t.tolist(),
                        strict=True))

    def _few(self, origins, max_t) -> bool:
        """Whether a cast walks the tree: a few segments, handles in the group's order."""
        finite = (type(max_t) is float and math.isfinite(max_t)) or (
            type(max_t) is int and 0 <= max_t <= 2**53)
        return (self._tree is not None and self._monotone and isinstance(origins, (list, tuple))
                and len(origins) <= _FEW and finite)

    def _cast_on_tree(self, origins, directions, max_t, hits: str, ignore):
        """:meth:`cast_rays` of a few segments through the tree's own cells.

        Handles ascend in the group's order (``_monotone``), so the tree's ties
        (to the lower handle) and sorted rows are the group's; a sprite whose
        rect collides with nothing is the far point there, which no ray enters.
        """
        skip = None if ignore is None else self._ignored_handles(ignore)
        out = self._tree.cast_rays(origins, directions, max_t=max_t, hits=hits, ignore=skip)
        if hits == "any":
            return out
        at = self._sprite_at
        if hits == "first":
            index, t = out
            return [at[h] if h >= 0 else None for h in index.tolist()], t
        rows, t = out
        return [(k, at[h]) for k, h in rows.tolist()], t

    def _ignored_handles(self, ignore):
        """``ignore`` as handles (-1: none)."""
        def one(s, name: str) -> int:
            if s is None:
                return -1
            h = self._handle.get(s)
            if h is None:
                raise KeyError(f"{name}: {s!r} is not in this index")
            return h

        if isinstance(ignore, (list, tuple)):
            return [one(s, f"ignore[{k}]") for k, s in enumerate(ignore)]
        return one(ignore, "ignore")

    def _solid(self) -> tuple[np.ndarray, np.ndarray]:
        """Handles of the members whose rect collides with something, in order; their boxes."""
        self._apply()
        handles = self._handles
        boxes = self._box_at[handles]
        solid = boxes[:, 0] != _rects.FAR
        if not solid.all():
            handles, boxes = handles[solid], boxes[solid]
        return handles, boxes

    def _ignored(self, ignore, handles: np.ndarray):
        """``ignore`` as rows of ``handles`` (-1: none, or a sprite no ray can hit)."""
        if ignore is None:
            return None
        row = np.full(len(self._sprite_at) + 1, -1, np.int64)  # the last: no sprite
        row[handles] = np.arange(len(handles))
        at = self._ignored_handles(ignore)
        return row[np.array(at, np.int64)] if isinstance(at, list) else int(row[at])
