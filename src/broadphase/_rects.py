"""pygame rects as the tree's boxes: corners exactly as ``Rect.colliderect`` sees them.

The one owner of that reading (``SpriteIndex`` uses it each frame).  A
``Rect``'s corners are ``x, y, x + w, y + h``, sums of C ints, exact in
float64; an ``FRect`` sums its float32 fields in float32, as pygame does.
Both test strict overlap of ``min(x, x + w) .. max(x, x + w)`` on each axis,
so negative sizes are read as pygame reads them; a rect of zero width or
height (or NaN) collides with nothing and becomes the point ``FAR``, which
overlaps nothing strictly.  A subclass of either is read as its base (the C struct
``colliderect`` reads).

:func:`read` reads a frame's rects in one compiled pass
(``_core.read_rects``, the same rule on the structs pygame-ce documents)
and falls back to :func:`boxes`, the Python reading, for anything that pass
does not read, so every error is worded here.  The ways of reading many
rects are measured in docs/design/sprites.md.
"""

from __future__ import annotations

import itertools
import operator
import os
import sys

import numpy as np

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame  # noqa: E402

from . import _core, _exact  # noqa: E402
from ._depth import suggest_depth  # noqa: E402

_RECT, _FRECT = pygame.Rect, pygame.FRect
FAR = _core.RECT_FAR  # a point far outside any rect: it overlaps nothing strictly
get_rect = operator.attrgetter("rect")
# pygame's Sprite.rect is a property returning the private attribute: read
# directly (half the cost) for the classes that keep that property (a
# subclass that redefines ``rect`` is read through its own definition)
_SPRITE_RECT = pygame.sprite.Sprite.__dict__.get("rect")
PRIVATE_RECT = sys.intern("_Sprite__rect")
RECT = sys.intern("rect")


def plain_rect(cls) -> bool:
    """Whether sprites of ``cls`` may be read through ``PRIVATE_RECT``."""
    return _SPRITE_RECT is not None and getattr(cls, "rect", None) is _SPRITE_RECT


def read(sprites: list, attr: str = RECT, handles=None, box_at=None):
    """The sprites' rects as :func:`boxes` reads them, through attribute ``attr``.

    Given ``handles`` (int64, one per sprite) and ``box_at`` (rows by
    handle), returns ``(boxes, changed, after)``: also the positions whose
    box differs from ``box_at[handles]``, and ``box_at`` with those rows
    replaced (a new array; ``box_at`` itself, unchanged, when none differs).
    """
    got = _core.read_rects(sprites, attr, handles, box_at)
    if got is not None:
        return got
    out = boxes(sprites, get=operator.attrgetter(attr))
    if handles is None:
        return out
    changed = np.flatnonzero((out != box_at[handles]).any(axis=1))
    after = box_at
    if changed.size:
        after = box_at.copy()
        after[handles[changed]] = out[changed]
    return out, changed, after


def world_rect(world) -> tuple[float, float, float, float]:
    """``x, y, w, h`` of the world, from a rect or four numbers."""
    try:
        values = list(world)
    except TypeError:
        values = None
    if values is None or len(values) != 4:
        raise TypeError(f"world: expected a pygame.Rect or (x, y, w, h), found {world!r}")
    # under the one refusal rule: no booleans, nothing float64 would round
    x, y, w, h = (_exact.real(v, f"world[{k}]") for k, v in enumerate(values))
    if not (w > 0 and h > 0):
        raise ValueError(f"world: expected finite (x, y, w, h) with w > 0 and h > 0, "
                         f"found {(x, y, w, h)}")
    return x, y, w, h


def depth(world, boxes) -> int:
    """The tree's depth for sprites like ``boxes`` (their median size; 32 if none)."""
    size = 32.0
    if boxes is not None:
        real = boxes[boxes[:, 0] != FAR]
        if real.size:
            size = float(np.median(np.maximum(real[:, 2] - real[:, 0], real[:, 3] - real[:, 1])))
    return suggest_depth(world, max(size, 1.0))


def boxes(sprites, name: str = "sprites", owners=None, get=get_rect) -> np.ndarray:
    """The sprites' rects as ``(n, 4)`` corners, as ``colliderect`` sees them.

    ``owners`` (default ``sprites``) name the culprit in errors; ``sprites``
    may also be rects already (``owners`` then given).
    """
    if owners is None:
        try:
            rects = list(map(get, sprites))
        except AttributeError:
            rects = [getattr(s, "rect", None) for s in sprites]
    else:
        rects = sprites
    kinds = set(map(type, rects))
    if not kinds <= {_RECT, _FRECT}:
        if not all(issubclass(t, (_RECT, _FRECT)) for t in kinds):
            k = next(k for k, r in enumerate(rects) if not issubclass(type(r), (_RECT, _FRECT)))
            who = (owners or sprites)[k]
            raise TypeError(f"{name}: {who!r} has rect {rects[k]!r}; expected a pygame.Rect "
                            f"or pygame.FRect")
        # subclasses: copies of their C struct, which colliderect reads
        rects = [_RECT(r) if issubclass(type(r), _RECT) else _FRECT(r) for r in rects]
        kinds = set(map(type, rects))
    n = len(rects)
    # Python ints pass to int64 faster than to float64; Rect's are C ints
    dtype = np.int64 if _FRECT not in kinds else np.float64
    xywh = np.fromiter(itertools.chain.from_iterable(rects), dtype, 4 * n).reshape(n, 4)
    xywh = xywh.astype(np.float64, copy=False)
    out = np.empty((n, 4))
    if _FRECT in kinds or (xywh[:, 2:] <= 0).any():
        return _odd_boxes(xywh, rects, kinds, out, name, owners or sprites)
    out[:, :2] = xywh[:, :2]
    np.add(xywh[:, :2], xywh[:, 2:], out=out[:, 2:])
    return out


def _odd_boxes(xywh, rects, kinds, out, name, owners) -> np.ndarray:
    """``_boxes`` for ``FRect``s, negative or zero sizes: pygame's normalisation."""
    ends = xywh[:, :2] + xywh[:, 2:]
    if _FRECT in kinds:  # FRect adds its float32 fields in float32
        f = np.fromiter((type(r) is _FRECT for r in rects), bool, len(rects))
        with np.errstate(over="ignore", invalid="ignore"):
            x32 = xywh[f].astype(np.float32)
            ends[f] = (x32[:, :2] + x32[:, 2:]).astype(np.float64)
    np.minimum(xywh[:, :2], ends, out=out[:, :2])
    np.maximum(xywh[:, :2], ends, out=out[:, 2:])
    with np.errstate(invalid="ignore"):
        nothing = (xywh[:, 2] == 0) | (xywh[:, 3] == 0) | np.isnan(out).any(axis=1)
    out[nothing] = FAR
    bad = np.isinf(out).any(axis=1)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name}: {owners[k]!r} has rect {rects[k]!r}, which reaches "
                         f"infinity; expected finite corners")
    return out
