"""``SpriteIndex``: a pygame sprite group kept in a moving tree, answering in sprites.

The index is a ``pygame.sprite.Group``: pygame tells it of every sprite that
joins or leaves (``add``, ``remove``, ``empty``, ``Sprite.kill``, ``Sprite.add``
all go through the group's ``add_internal`` and ``remove_internal``), so the
map sprite <-> handle is kept here, not by the game.  Those hooks only note
the change; the tree is changed in one batch at the next question or
:meth:`SpriteIndex.refresh`.

What holds (``_check`` tests it):

* every member has a *serial*, given when it joined and never given again;
  the group iterates in the order it was given them (a ``dict`` keeps
  insertion order, and a sprite that leaves and comes back is put at the
  end with a new serial), so sorting by serial is sorting by ``sprites()``;
* after ``_apply``, every member is in the tree under one handle,
  ``_sprite_at[h]`` is it and ``_serial_at[h]`` its serial; ``_box_at[h]``
  is the box last given to the tree: its rect's corners as pygame's
  ``colliderect`` computes them, or the point ``_rects.FAR`` when pygame says the
  rect collides with nothing (zero width or height, NaN); ``_start_at[h]``
  is its box at the previous ``refresh`` (its current box if it joined
  since), where its sweep starts;
* events are rows of serials, canonical (``a < b``, sorted), so their
  order is the group's order and a serial never names two sprites; the
  pairs are kept as rows of handles in that order (their serials gathered
  when events are asked).

Boxes overlap in the tree exactly when ``colliderect`` says the rects
collide: ``_rects`` owns that reading.  The questions are split by concern:
membership (pygame's hooks, the tree kept up) in ``_sprite_members``,
pygame's ``spritecollide`` and ``groupcollide`` in ``_sprite_collide``,
casts and swept pairs in ``_sprite_casts`` (base classes reading this
state).
"""

from __future__ import annotations

import os

import numpy as np

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame  # noqa: E402

from . import _core, _rects, _tree_args  # noqa: E402
from ._sprite_casts import SpriteCasts  # noqa: E402
from ._sprite_collide import Collide  # noqa: E402
from ._sprite_members import Members  # noqa: E402
from ._tree import LinearQuadtree  # noqa: E402

__all__ = ["SpriteIndex"]

_NO_PAIRS = np.empty((0, 2), np.int64)


class SpriteIndex(Members, Collide, SpriteCasts, pygame.sprite.Group):
    """A sprite group that knows which of its sprites collide, frame after frame.

    A ``pygame.sprite.Group`` (draw it, update it, add, remove and kill its
    sprites as usual) whose sprites are kept in a
    :class:`broadphase.LinearQuadtree`.  Once a frame, after the sprites
    moved, :meth:`refresh` reads every sprite's ``rect`` in one pass and
    moves in the tree only those that changed; the questions then answer in
    sprites: :meth:`pairs`, :meth:`contacts` (pairs that began and ended),
    :meth:`touching`, :meth:`collide` (``spritecollide``),
    :meth:`groupcollide` between two groups or kinds of sprite, ray casts
    (:meth:`cast_rays`) and the pairs that met between two frames
    (:meth:`swept_pairs`: fast sprites that passed through each other).

    The rule is pygame's ``Rect.colliderect``: rects collide when they
    overlap with positive area (touching edges do not count), a rect of zero
    width or height collides with nothing, and negative sizes are read as
    pygame reads them.  (A ``Rect`` whose ``x + w`` or ``y + h`` passes
    2**31 - 1 overflows pygame's C int sums; the index sums it exactly.)
    Every answer is pygame's own, in the group's order (the order of
    :meth:`sprites`): pairs ``(a, b)`` with ``a`` before ``b``, sorted by
    ``a`` then ``b``.

    Parameters
    ----------
    world : pygame.Rect or (x, y, w, h)
        The area the sprites mostly live in (the screen or the level),
        split into cells; sprites outside it are still found, more slowly
        when many are.
    *sprites : pygame.sprite.Sprite or iterables of them
        First members, as for ``pygame.sprite.Group``.
    depth : int, optional
        The tree's finest level (see :class:`broadphase.LinearQuadtree`).
        By default it is chosen when the first sprites arrive, from the
        world's size and their median size.
    margin : float, optional
        The tree's fat-box margin (default 0).

    Notes
    -----
    *When rects are read.*  Membership is always current: a sprite added,
    removed or killed is in (or out of) the very next answer.  Rects are
    read by :meth:`refresh` (a sprite that joined, at the next answer):
    every answer is for the rects as of then, so call :meth:`refresh` once
    a frame after moving the sprites.  A ``Rect`` moved in place (``rect.x += 3``) and a
    new ``Rect`` assigned to ``sprite.rect`` are both seen.

    *Rects.*  Each ``sprite.rect`` is a ``pygame.Rect`` or
    ``pygame.FRect``, or a subclass, read as ``colliderect`` reads it
    (``TypeError`` naming the sprite otherwise).  An
    ``FRect`` with an infinite corner is a ``ValueError``.  Between a
    ``Rect`` and an ``FRect`` the answer is the ``FRect``'s
    ``colliderect`` (pygame's answer then depends on which rect asks) for a
    ``Rect`` within +-2**24, whose edges float32 holds; beyond, where the
    ``FRect`` would round the ``Rect``, the ``Rect``'s exact edges decide.

    Examples
    --------
    >>> import pygame
    >>> from broadphase.pygame import SpriteIndex
    >>> def sprite(x, y, name):
    ...     s = pygame.sprite.Sprite(); s.rect = pygame.Rect(x, y, 10, 10); s.name = name
    ...     return s
    >>> a, b, c = sprite(0, 0, "a"), sprite(5, 5, "b"), sprite(10, 0, "c")
    >>> index = SpriteIndex((0, 0, 100, 100), a, b, c)
    >>> [(p.name, q.name) for p, q in index.pairs()]  # c only touches a's edge
    [('a', 'b'), ('b', 'c')]
    >>> began, ended = index.contacts()  # the first call: every pair begins
    >>> len(began), len(ended)
    (2, 0)
    >>> c.rect.x = 50; b.kill(); index.refresh()
    >>> began, ended = index.contacts()
    >>> began, [(p.name, q.name) for p, q in ended]
    ([], [('a', 'b'), ('b', 'c')])
    >>> [s.name for s in index.collide(pygame.Rect(45, 0, 10, 10))]
    ['c']
    """

    def __init__(self, world: object, *sprites: object, depth: int | None = None,
                 margin: float = 0.0) -> None:
        self._world = _rects.world_rect(world)
        self._depth = depth
        self._margin = _tree_args._check_margin(margin)
        self._tree: LinearQuadtree | None = None
        if depth is not None:
            self._tree = self._new_tree(depth)
        self._serial: dict = {}        # member -> serial
        self._by_serial: dict = {}     # serial -> sprite (members, and gone ones events still name)
        self._next = 0                 # the next serial
        self._handle: dict = {}        # member in the tree -> handle
        self._arrived: list = []       # joined since the last _apply, in order
        self._dropped: list = []       # handles of sprites that left since the last _apply
        self._gone: list = []          # serials of sprites that left since the last contacts()
        self._sprite_at = np.empty(0, object)  # handle -> sprite
        self._serial_at = np.zeros(0, np.int64)
        self._box_at = np.zeros((0, 4))
        self._order: list = []         # members in the tree, in the group's order ...
        self._handles = np.zeros(0, np.int64)  # ... and their handles
        self._monotone = True          # _handles increase: handle order is the group's
        self._attr = _rects.RECT              # the attribute _order's rects are read by
        self._start_at = self._box_at          # handle -> box at the previous refresh
        self._joined: list = []                # handles given since the last refresh
        self._current: np.ndarray | None = None  # the pairs as of the last read, as handles
        self._current_serials: np.ndarray | None = None  # the same as serials: canonical
        self._last: np.ndarray | None = None     # the pairs of the last contacts()
        self._last_handles: np.ndarray | None = None  # the same as handles, if _monotone then
        super().__init__(*sprites)

    def copy(self) -> SpriteIndex:
        """A new index over the same world with the same sprites (and settings).

        Examples
        --------
        >>> import pygame
        >>> from broadphase.pygame import SpriteIndex
        >>> s = pygame.sprite.Sprite(); s.rect = pygame.Rect(0, 0, 4, 4)
        >>> twin = SpriteIndex((0, 0, 64, 64), s).copy()
        >>> len(twin), s in twin
        (1, True)
        """
        return type(self)(self._world, self.sprites(), depth=self._depth, margin=self._margin)

    # ------------------------------------------------------------------
    # a frame

    def refresh(self) -> None:
        """Read every sprite's rect, in one pass, and move those that changed.

        Call it once a frame, after the sprites moved; the answers until the
        next call are for the rects as read now.

        Raises
        ------
        TypeError
            A sprite's ``rect`` is not a ``pygame.Rect`` or ``FRect`` (the
            message names the sprite); nothing is changed then.

        Examples
        --------
        >>> import pygame
        >>> from broadphase.pygame import SpriteIndex
        >>> s, t = pygame.sprite.Sprite(), pygame.sprite.Sprite()
        >>> s.rect, t.rect = pygame.Rect(0, 0, 8, 8), pygame.Rect(20, 0, 8, 8)
        >>> index = SpriteIndex((0, 0, 64, 64), s, t)
        >>> index.pairs()
        []
        >>> t.rect.x -= 15; index.pairs()  # not read yet
        []
        >>> index.refresh(); index.pairs() == [(s, t)]
        True
        """
        self._apply()
        start = self._box_at  # becomes _start_at: not written again
        handles = self._handles
        if self._order:
            # one compiled pass reads, compares and moves; else the full path
            after = _core.refresh_rects(self._tree._t, self._order, self._attr, handles, start)
            if after is not None:
                if after is not start:
                    self._box_at = after
                    self._current = None
            elif (got := _rects.read(self._order, self._attr, handles, start))[1].size:
                boxes, changed, after = got
                if changed.size < len(handles):
                    handles, boxes = handles[changed], boxes[changed]
                self._tree.move(handles, boxes)
                self._box_at = after
                self._current = None
        if self._joined:  # sprites that joined since the last refresh start where they are
            if start is not self._box_at:
                joined = np.array(self._joined, np.int64)
                start[joined] = self._box_at[joined]
            self._joined = []
        self._start_at = start

    # ------------------------------------------------------------------
    # questions

    def pairs(self) -> list[tuple]:
        """Every pair of colliding sprites, as of the last :meth:`refresh`.

        Returns
        -------
        list of (sprite, sprite)
            ``(a, b)`` with ``a`` before ``b`` in the group's order, sorted
            by ``a``, then ``b``.

        Examples
        --------
        >>> import pygame
        >>> from broadphase.pygame import SpriteIndex
        >>> s = [pygame.sprite.Sprite() for _ in range(3)]
        >>> for k, t in enumerate(s): t.rect = pygame.Rect(6 * k, 0, 8, 8)
        >>> index = SpriteIndex((0, 0, 64, 64), s[2], s[0], s[1])
        >>> [(s.index(a), s.index(b)) for a, b in index.pairs()]  # the group's order
        [(2, 1), (0, 1)]
        """
        rows = self._pairs()  # first: it may grow _sprite_at
        return _core.pick_pairs(self._sprite_at, rows)

    def contacts(self) -> tuple[list[tuple], list[tuple]]:
        """The pairs that began and that ended colliding since the last call.

        On the first call every current pair has begun.  A sprite that left
        the group ends its pairs (its pairs begin again if it comes back).
        Independent of :meth:`pairs`: ask both in any order.

        Returns
        -------
        began, ended : list of (sprite, sprite)
            In the order of :meth:`pairs` (an ended pair of a sprite that
            has left: where it was in the group).

        Examples
        --------
        >>> import pygame
        >>> from broadphase.pygame import SpriteIndex
        >>> s, t = pygame.sprite.Sprite(), pygame.sprite.Sprite()
        >>> s.rect, t.rect = pygame.Rect(0, 0, 8, 8), pygame.Rect(4, 4, 8, 8)
        >>> index = SpriteIndex((0, 0, 64, 64), s, t)
        >>> began, ended = index.contacts()
        >>> began == [(s, t)], ended
        (True, [])
        >>> t.rect.x = 30; index.refresh(); index.contacts() == ([], [(s, t)])
        True
        """
        handles = self._pairs()
        now = self._serial_pairs()
        if self._last_handles is not None and self._monotone and not self._gone:
            # no sprite left since: each handle is the same sprite then and now, and
            # the handles' order is the group's (then and now)
            _, began, ended = _core.contact_events(self._last_handles, handles)
            out = (_core.pick_pairs(self._sprite_at, began),
                   _core.pick_pairs(self._sprite_at, ended))
        else:
            last = _NO_PAIRS if self._last is None else self._last
            _, began, ended = _core.contact_events(last, now)
            out = self._sprites_of(began), self._sprites_of(ended)
        self._last = now
        self._last_handles = handles if self._monotone else None
        for serial in self._gone:  # reported: no pair names them any more
            del self._by_serial[serial]
        self._gone = []
        return out

    def touching(self, sprite: object) -> list:
        """The sprites colliding with ``sprite`` (itself left out), in the group's order.

        Parameters
        ----------
        sprite : pygame.sprite.Sprite
            A sprite of the index (``KeyError`` otherwise); its rect as of
            the last :meth:`refresh`.

        Examples
        --------
        >>> import pygame
        >>> from broadphase.pygame import SpriteIndex
        >>> s = [pygame.sprite.Sprite() for _ in range(3)]
        >>> for k, t in enumerate(s): t.rect = pygame.Rect(6 * k, 0, 8, 8)
        >>> index = SpriteIndex((0, 0, 64, 64), s)
        >>> index.touching(s[1]) == [s[0], s[2]], index.touching(s[0]) == [s[1]]
        (True, True)
        """
        self._apply()
        h = self._handle.get(sprite)
        if h is None:
            raise KeyError(f"sprite: {sprite!r} is not in this index")
        return self._in_order(self._tree.touching(h))

    # ------------------------------------------------------------------
    # internals

    def _pairs_as_handles(self) -> np.ndarray:
        self._apply()
        return self._tree.pairs() if self._tree is not None else _NO_PAIRS

    def _pairs(self) -> np.ndarray:
        """The colliding pairs as rows of handles, in the group's order.

        The same rows as serials are canonical (:meth:`_serial_pairs`).
        """
        if self._current is None or self._arrived or self._dropped:
            handles = self._pairs_as_handles()  # first: it may grow _serial_at
            serials = None
            if not self._monotone:  # else the tree's order (by handle) is already ours
                serials = self._serial_at[handles]
                swap = serials[:, 0] > serials[:, 1]
                serials[swap] = serials[swap, ::-1]
                handles[swap] = handles[swap, ::-1]
                order = np.argsort(serials[:, 0] << 32 | serials[:, 1])
                serials, handles = serials[order], handles[order]
            self._current, self._current_serials = handles, serials
        return self._current

    def _serial_pairs(self) -> np.ndarray:
        """The colliding pairs as canonical rows of serials."""
        handles = self._pairs()
        if self._current_serials is None:
            self._current_serials = self._serial_at[handles]
        return self._current_serials

    def _sprites_of(self, serial_pairs: np.ndarray) -> list[tuple]:
        by = self._by_serial
        return [(by[p], by[q]) for p, q in serial_pairs.tolist()]

    def _in_order(self, handles: np.ndarray) -> list:
        """Sprites of ``handles``, in the group's order."""
        if not self._monotone:
            handles = handles[np.argsort(self._serial_at[handles])]
        return self._sprite_at[handles].tolist()

    def _check(self) -> None:
        """Assert the invariants of the module's doc (for tests)."""
        self._apply()
        members = list(self.spritedict)
        serials = [self._serial[s] for s in members]
        assert serials == sorted(serials), "the group's order is not the serials' order"
        assert members == self._order and set(self._handle) == set(members)
        assert len(self._tree or ()) == len(members)
        for s in members:
            h = self._handle[s]
            assert self._sprite_at[h] is s and self._serial_at[h] == self._serial[s]
            assert self._by_serial[self._serial[s]] is s
        assert not self._gone or self._last is not None
        if self._last_handles is not None and not self._gone:  # the same sprites then and now
            assert (self._serial_at[self._last_handles] == self._last).all()
        assert self._start_at.shape == self._box_at.shape == (len(self._sprite_at), 4)
