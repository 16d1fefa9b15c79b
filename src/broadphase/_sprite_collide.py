"""``SpriteIndex.collide`` and ``groupcollide``: pygame's ``spritecollide`` and ``groupcollide``.

A part of :class:`broadphase.pygame.SpriteIndex` (a base class of it, so
that each question lives in a file a reader can hold): it reads the index's
state (``_order``, ``_handle``, ``_sprite_at``, ``_box_at``, the tree) and
changes only membership, through ``Sprite.kill``.  ``collide`` asks the
tree for one rect; ``groupcollide`` is built from the index's pairs, with
no test of every sprite of one group against every sprite of the other.
"""

from __future__ import annotations

import os

import numpy as np

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame  # noqa: E402

from . import _rects  # noqa: E402

_RECT, _FRECT = pygame.Rect, pygame.FRect


class Collide:
    """pygame's ``spritecollide`` and ``groupcollide`` on an index's sprites."""

    def collide(self, sprite: object, dokill: bool = False) -> list:
        """The sprites whose rect collides with ``sprite``'s rect: pygame's ``spritecollide``.

        The same list as ``pygame.sprite.spritecollide(sprite, index,
        dokill)`` when no rect moved since the last :meth:`refresh`
        (``sprite`` itself included when it is a member).

        Parameters
        ----------
        sprite : pygame.sprite.Sprite or pygame.Rect or pygame.FRect
            A sprite (its current ``rect`` is read) or a rect.
        dokill : bool
            Kill the sprites found.

        Returns
        -------
        list of sprites
            In the group's order.

        Examples
        --------
        >>> import pygame
        >>> from broadphase.pygame import SpriteIndex
        >>> s = [pygame.sprite.Sprite() for _ in range(3)]
        >>> for k, t in enumerate(s): t.rect = pygame.Rect(6 * k, 0, 8, 8)
        >>> index = SpriteIndex((0, 0, 64, 64), s)
        >>> index.collide(pygame.Rect(9, 0, 6, 1)) == [s[1], s[2]]
        True
        >>> index.collide(s[0], dokill=True) == [s[0], s[1]], len(index)
        (True, 1)
        """
        is_rect = issubclass(type(sprite), (_RECT, _FRECT))
        rect = sprite if is_rect else getattr(sprite, "rect", None)
        box = _rects.boxes([rect], "sprite", [sprite])[0]
        self._apply()
        if box[0] == _rects.FAR or not self._order:
            return []
        found = self._in_order(self._tree.query(box))
        if dokill:
            for s in found:
                s.kill()
        return found

    def groupcollide(self, groupa: object, groupb: object, dokilla: bool = False,
                     dokillb: bool = False) -> dict:
        """Which sprites of ``groupa`` collide with which of ``groupb``: pygame's ``groupcollide``.

        The same dict as ``pygame.sprite.groupcollide(groupa, groupb,
        dokilla, dokillb)`` when no rect moved since the last
        :meth:`refresh`, kills included, from the index's pairs: no test of
        every sprite of one group against every sprite of the other.

        Parameters
        ----------
        groupa, groupb : pygame group, iterable of sprites, or class
            Sprites of this index; a class stands for the index's sprites
            that are its instances (in the index's order).  A sprite listed
            twice counts once, at its first place (a group holds each sprite
            once; pygame's own function repeats it).
        dokilla, dokillb : bool
            Kill the colliding sprites of that group.

        Returns
        -------
        dict
            ``{sprite of groupa: [sprites of groupb it hits, in groupb's
            order]}`` in groupa's order, only sprites that hit something.

        Raises
        ------
        KeyError
            A sprite of either group is not in this index.

        Examples
        --------
        >>> import pygame
        >>> from broadphase.pygame import SpriteIndex
        >>> class Ship(pygame.sprite.Sprite): pass
        >>> class Rock(pygame.sprite.Sprite): pass
        >>> ship, rocks = Ship(), [Rock(), Rock(), Rock()]
        >>> ship.rect = pygame.Rect(0, 0, 10, 10)
        >>> for k, r in enumerate(rocks): r.rect = pygame.Rect(8 * k, 5, 6, 6)
        >>> index = SpriteIndex((0, 0, 64, 64), ship, rocks)
        >>> index.groupcollide(Ship, Rock) == {ship: rocks[:2]}
        True
        >>> index.groupcollide(Rock, Ship, False, True) == {rocks[0]: [ship]}, ship.alive()
        (True, False)
        """
        pairs = self._pairs_as_handles()  # also applies the changes
        a, ha = self._members(groupa, "groupa")
        b, hb = self._members(groupb, "groupb")
        at_a = np.full(len(self._sprite_at), -1, np.int64)
        at_b = at_a.copy()
        at_a[ha] = np.arange(len(ha))
        at_b[hb] = np.arange(len(hb))
        # a rect meets itself when it has an extent on both axes (an FRect's
        # float32 sum may leave none, and FAR is a point)
        box = self._box_at[ha]
        both = ha[(at_b[ha] >= 0) & (box[:, 0] < box[:, 2]) & (box[:, 1] < box[:, 3])]
        i = np.concatenate([at_a[pairs[:, 0]], at_a[pairs[:, 1]], at_a[both]])
        j = np.concatenate([at_b[pairs[:, 1]], at_b[pairs[:, 0]], at_b[both]])
        keep = (i >= 0) & (j >= 0)
        i, j = i[keep], j[keep]
        order = np.lexsort((j, i))
        i, j = i[order], j[order]
        crashed = {}
        taken = np.zeros(len(b), bool)  # sprites of groupb killed by an earlier one
        starts = np.searchsorted(i, np.arange(len(a) + 1))
        for k in np.flatnonzero(starts[1:] > starts[:-1]).tolist():
            js = j[starts[k]:starts[k + 1]]
            if dokillb:
                js = js[~taken[js]]
                taken[js] = True
            if js.size:
                crashed[a[k]] = [b[t] for t in js.tolist()]
        for t in np.flatnonzero(taken).tolist():
            b[t].kill()
        if dokilla:
            for s in crashed:
                s.kill()
        return crashed

    def _members(self, group, name: str) -> tuple[list, np.ndarray]:
        """The sprites ``group`` stands for, in its order, and their handles."""
        if isinstance(group, type):
            sprites = [s for s in self._order if isinstance(s, group)]
        elif isinstance(group, pygame.sprite.AbstractGroup):
            sprites = group.sprites()
        else:
            sprites = list(dict.fromkeys(group))  # each once, at its first place
        try:
            handles = np.fromiter(map(self._handle.__getitem__, sprites), np.int64,
                                  len(sprites))
        except KeyError:
            bad = next(s for s in sprites if s not in self._handle)
            raise KeyError(f"{name}: {bad!r} is not in this index") from None
        return sprites, handles
