"""The membership of a :class:`broadphase.pygame.SpriteIndex`: pygame's hooks, and the tree kept up.

A part of the index (a base class of it, as ``_sprite_collide`` and
``_sprite_casts`` are): pygame calls ``add_internal`` and ``remove_internal``
for every sprite that joins or leaves; they only note it, and ``_apply``
brings the tree's membership up to the group's in one remove and one insert,
giving each new member a handle and keeping the arrays by handle
(``_sprite_at``, ``_serial_at``, ``_box_at``, ``_start_at``) and the group's
order (``_order``, ``_handles``, ``_monotone``).  Serials (one per joining,
never given again) are renumbered before they would pass ``2**31 - 1``.
The invariants are the index's (``_sprites`` module, checked by its
``_check``).
"""

from __future__ import annotations

import numpy as np

from . import _rects
from ._tree import LinearQuadtree

_SERIAL_LIMIT = 2**31 - 1  # the core's event rows hold indices below 2**31


class Members:
    """Who is in the index, and under which handle."""

    def add_internal(self, sprite, layer=None) -> None:  # noqa: D102 (pygame's hook)
        if self._next >= _SERIAL_LIMIT:
            self._renumber()
        super().add_internal(sprite)
        self._serial[sprite] = self._next
        self._by_serial[self._next] = sprite
        self._next += 1
        self._arrived.append(sprite)

    def remove_internal(self, sprite) -> None:  # noqa: D102 (pygame's hook)
        super().remove_internal(sprite)
        serial = self._serial.pop(sprite)
        h = self._handle.pop(sprite, None)
        if h is None:  # never reached the tree: no pair ever named it
            del self._by_serial[serial]
            return
        self._dropped.append(h)
        if self._last is None:
            del self._by_serial[serial]
        else:  # kept until contacts() has reported its pairs' end
            self._gone.append(serial)
            if len(self._gone) > 2 * self._last.size + 1024:
                self._forget_unnamed()

    def _new_tree(self, depth: int) -> LinearQuadtree:
        x, y, w, h = self._world
        return LinearQuadtree((x, y, x + w, y + h), depth, margin=self._margin)

    def _apply(self) -> None:
        """Bring the tree's membership up to the group's: one remove, one insert."""
        if not (self._arrived or self._dropped):
            return
        arrived = [s for s in dict.fromkeys(self._arrived)
                   if s in self._serial and s not in self._handle]
        boxes = _rects.read(arrived) if arrived else None  # may raise: nothing changed yet
        if self._tree is None:
            self._tree = self._new_tree(_rects.depth(self._world, boxes))
        if self._dropped:
            dropped = np.array(self._dropped, np.int64)
            self._tree.remove(dropped)
            self._sprite_at[dropped] = None
            self._dropped = []
        if arrived:
            handles = self._tree.insert(boxes).astype(np.int64)
            self._grow(int(handles.max()) + 1)
            for s, h in zip(arrived, handles.tolist(), strict=True):
                self._handle[s] = h
                self._sprite_at[h] = s  # one element at a time: never read as a sequence
            self._serial_at[handles] = [self._serial[s] for s in arrived]
            self._box_at[handles] = boxes
            self._start_at[handles] = boxes
            self._joined += handles.tolist()
        self._arrived = []
        self._order = list(self.spritedict)
        self._handles = np.fromiter(map(self._handle.__getitem__, self._order), np.int64,
                                    len(self._order))
        self._monotone = bool((self._handles[1:] > self._handles[:-1]).all())
        plain = all(map(_rects.plain_rect, set(map(type, self._order))))
        self._attr = _rects.PRIVATE_RECT if plain else _rects.RECT
        self._current = None

    def _grow(self, size: int) -> None:
        if size > len(self._sprite_at):
            more = max(size, 2 * len(self._sprite_at)) - len(self._sprite_at)
            self._sprite_at = np.concatenate([self._sprite_at, np.empty(more, object)])
            self._serial_at = np.concatenate([self._serial_at, np.zeros(more, np.int64)])
            self._box_at = np.concatenate([self._box_at, np.full((more, 4), _rects.FAR)])
            self._start_at = np.concatenate([self._start_at, np.full((more, 4), _rects.FAR)])

    def _forget_unnamed(self) -> None:
        """Drop the sprites that left and that no pair of the last contacts() names.

        Only those pairs can be reported as ended: a sprite that joined and
        left between two contacts() calls is never reported.  Keeps what is
        kept bounded when contacts() is not called for a long time.
        """
        named = set(np.unique(self._last).tolist())
        for serial in self._gone:
            if serial not in named:
                del self._by_serial[serial]
        self._gone = [serial for serial in self._gone if serial in named]

    def _renumber(self) -> None:
        """Serials 0, 1, ... again, in the same order (they would pass 2**31 - 1)."""
        old = sorted(self._by_serial)
        new = {o: k for k, o in enumerate(old)}
        self._by_serial = {k: self._by_serial[o] for k, o in enumerate(old)}
        self._serial = {s: new[o] for s, o in self._serial.items()}
        self._gone = [new[o] for o in self._gone]
        remap = np.array(old, np.int64)
        if self._last is not None:  # a monotone map keeps it canonical
            self._last = np.searchsorted(remap, self._last).astype(np.int64)
        self._current = None
        for s, h in self._handle.items():
            self._serial_at[h] = self._serial[s]
        self._next = len(old)
