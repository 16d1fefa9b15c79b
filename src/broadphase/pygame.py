"""Drop-in, faster ``spritecollide``, ``groupcollide`` and ``spritecollideany`` for pygame-ce.

Same signatures and return values as the functions of ``pygame.sprite``
for rect collisions (``collided=None`` or ``pygame.sprite.collide_rect``)
and circle collisions (``pygame.sprite.collide_circle``, radius from
``sprite.radius`` or half the rect's diagonal, as pygame computes it);
any other ``collided`` callback is handed to pygame's own function.

``groupcollide`` finds the candidate pairs with :func:`broadphase.find_pairs_between`
(O(n + m + pairs) instead of pygame's n x m tests), then decides each with
pygame's own rule, so the answer is the same, order of lists and dict
included, kills included: with ``dokillb`` a sprite of ``groupb`` is taken
by the first sprite of ``groupa`` that hits it, as in pygame.

Never slower than pygame: where the broad phase cannot win, pygame's own
function runs.  That is ``spritecollide`` and ``spritecollideany`` always
(one sprite against a group is one pass either way, and pygame's runs in C
and stops at the first hit), and ``groupcollide`` of small groups: below
``len(groupa) * len(groupb)`` of 1,024 for rects and 144 for circles, the
crossovers measured with pygame-ce 2.5 (``broadphase bench --scenario
sprites``; docs/benchmarks.md).  Patched into ``pygame.sprite``, pygame-ce's
own sprite tests pass (``tests/test_pygame.py`` runs them).

Rules, as in pygame-ce: rects collide when they overlap with positive
area (``Rect.colliderect``: touching edges do not count, and a rect of zero
width or height collides with nothing); circles collide when the distance
of the rect centres (integers) is at most the sum of the radii (touching
counts).

Examples
--------
>>> import pygame
>>> from broadphase.pygame import groupcollide
>>> def sprite(x, y, w=10, h=10):
...     s = pygame.sprite.Sprite(); s.rect = pygame.Rect(x, y, w, h); return s
>>> a = pygame.sprite.Group(sprite(0, 0), sprite(50, 50))
>>> b = pygame.sprite.Group(sprite(5, 5), sprite(10, 0), sprite(55, 58))
>>> hits = groupcollide(a, b, False, False)
>>> [(s.rect.topleft, [t.rect.topleft for t in v]) for s, v in hits.items()]
[((0, 0), [(5, 5)]), ((50, 50), [(55, 58)])]
"""

from __future__ import annotations

import os

import numpy as np

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # no banner on our users' stdout
import pygame  # noqa: E402

from ._api import find_pairs_between

__all__ = ["groupcollide", "spritecollide", "spritecollideany"]

# pygame's own functions, kept at import: a program may patch ours into
# pygame.sprite ("drop-in"), and the callbacks we leave to pygame must then
# still reach pygame's code, not ourselves (endless recursion).  A reload of
# this module (which may come after such a patch) keeps the first ones.
_PYGAME = globals().get("_PYGAME") or {name: getattr(pygame.sprite, name) for name in __all__}

# Circles are searched as their bounding boxes, radii grown by this much
# (relative, plus an absolute 1e-9), so that every pair pygame's "<="
# accepts overlaps strictly; pygame's own formula then decides.
_GROW = 1e-9


def _rects(sprites) -> np.ndarray:
    """``(n, 4)`` float64 x, y, w, h of the sprites' rects."""
    if not sprites:
        return np.empty((0, 4))
    return np.array([tuple(s.rect) for s in sprites], np.float64).reshape(-1, 4)


def _radii(sprites, r: np.ndarray) -> np.ndarray:
    """``sprite.radius``, else half the rect's diagonal (stored on the sprite, as pygame does)."""
    out = np.empty(len(sprites))
    for k, s in enumerate(sprites):
        rad = getattr(s, "radius", None)
        if rad is None:
            rad = 0.5 * ((r[k, 2] ** 2 + r[k, 3] ** 2) ** 0.5)
            s.radius = rad
        out[k] = rad
    return out


def _centres(r: np.ndarray) -> np.ndarray:
    # Rect.centerx is x + w // 2, an integer
    return np.stack([r[:, 0] + np.floor_divide(r[:, 2], 2), r[:, 1] + np.floor_divide(r[:, 3], 2)],
                    1)


def _boxes(r: np.ndarray) -> np.ndarray:
    """Rects as boxes; zero-size rects moved far away, as they collide with nothing."""
    b = np.stack([r[:, 0], r[:, 1], r[:, 0] + r[:, 2], r[:, 1] + r[:, 3]], 1)
    empty = (r[:, 2] == 0) | (r[:, 3] == 0)
    b[empty] = [-3e300, -3e300, -3e300, -3e300]
    return b


def _pairs(a_sprites, b_sprites, circle: bool) -> np.ndarray:
    """Colliding (index in a, index in b), sorted, by pygame's rule."""
    ra, rb = _rects(a_sprites), _rects(b_sprites)
    if not circle:
        return find_pairs_between(_boxes(ra), _boxes(rb))
    ca, cb = _centres(ra), _centres(rb)
    pa, pb = _radii(a_sprites, ra), _radii(b_sprites, rb)
    ga = (pa * (1 + _GROW) + _GROW)[:, None]
    gb = (pb * (1 + _GROW) + _GROW)[:, None]
    cand = find_pairs_between(np.hstack([ca - ga, ca + ga]), np.hstack([cb - gb, cb + gb]))
    i, j = cand[:, 0], cand[:, 1]
    d = ca[i] - cb[j]
    keep = d[:, 0] ** 2 + d[:, 1] ** 2 <= (pa[i] + pb[j]) ** 2
    return cand[keep]


# Products of the group sizes below which pygame's own groupcollide is faster
# (see the module doc): ours has a fixed cost of about 50 us and 2 us a
# sprite; pygame's costs about 0.1 us a rect test, 0.5 us a circle test.
_RECT_CROSSOVER = 1024
_CIRCLE_CROSSOVER = 144


def _mode(collided):
    """'rect', 'circle', or None for a callback we leave to pygame."""
    if collided is None or collided is pygame.sprite.collide_rect:
        return "rect"
    if collided is pygame.sprite.collide_circle:
        return "circle"
    return None


def groupcollide(groupa, groupb, dokilla: bool, dokillb: bool, collided=None) -> dict:
    """Every sprite of ``groupa`` that collides with sprites of ``groupb``, like pygame's.

    Parameters
    ----------
    groupa, groupb : pygame.sprite.AbstractGroup
    dokilla, dokillb : bool
        Kill the colliding sprites of that group.
    collided : callable, optional
        ``None`` or ``pygame.sprite.collide_rect`` (rects),
        ``pygame.sprite.collide_circle`` (circles); anything else runs
        pygame's own ``groupcollide``.

    Returns
    -------
    dict
        ``{sprite of groupa: [sprites of groupb it hits, in groupb's order]}``
        in groupa's order, only sprites that hit something.

    Examples
    --------
    >>> import pygame
    >>> from broadphase.pygame import groupcollide
    >>> s = [pygame.sprite.Sprite() for _ in range(3)]
    >>> for k, t in enumerate(s): t.rect = pygame.Rect(4 * k, 0, 5, 5)
    >>> a, b = pygame.sprite.Group(s[0], s[2]), pygame.sprite.Group(s[1])
    >>> {x.rect.x: [y.rect.x for y in v] for x, v in groupcollide(a, b, False, True).items()}
    {0: [4]}
    >>> len(b)
    0
    """
    mode = _mode(collided)
    if mode is not None:
        a = groupa.sprites()
        b = groupb.sprites()
        crossover = _CIRCLE_CROSSOVER if mode == "circle" else _RECT_CROSSOVER
    if mode is None or len(a) * len(b) < crossover:
        return _PYGAME["groupcollide"](groupa, groupb, dokilla, dokillb, collided)
    pairs = _pairs(a, b, mode == "circle")
    crashed = {}
    taken = np.zeros(len(b), bool)  # sprites of groupb already killed by an earlier one
    starts = np.searchsorted(pairs[:, 0], np.arange(len(a) + 1))
    for i in np.flatnonzero(starts[1:] > starts[:-1]).tolist():
        js = pairs[starts[i]:starts[i + 1], 1]
        if dokillb:
            js = js[~taken[js]]
            taken[js] = True
        if js.size:
            crashed[a[i]] = [b[j] for j in js.tolist()]
    if dokillb:
        for j in np.flatnonzero(taken).tolist():
            b[j].kill()
    if dokilla:
        for s in crashed:
            s.kill()
    return crashed


def spritecollide(sprite, group, dokill: bool, collided=None) -> list:
    """The sprites of ``group`` that collide with ``sprite``, in group order: pygame's own.

    One sprite against a group is one pass either way; pygame's runs in C
    (measured: 0.66 ms for 10,000 rects, where a broad phase needs 4.5 ms
    just to read the rects out of the sprites), so this is pygame's
    function, kept here for patching symmetry.

    Examples
    --------
    >>> import pygame
    >>> from broadphase.pygame import spritecollide
    >>> s = [pygame.sprite.Sprite() for _ in range(3)]
    >>> for k, t in enumerate(s): t.rect = pygame.Rect(4 * k, 0, 5, 5)
    >>> [t.rect.x for t in spritecollide(s[1], pygame.sprite.Group(s), False)]
    [0, 4, 8]
    """
    return _PYGAME["spritecollide"](sprite, group, dokill, collided)


def spritecollideany(sprite, group, collided=None):
    """The first sprite of ``group`` that collides with ``sprite``, or ``None``: pygame's own.

    pygame's stops at the first hit, which no search of the whole group can
    beat; see :func:`spritecollide`.

    Examples
    --------
    >>> import pygame
    >>> from broadphase.pygame import spritecollideany
    >>> s = [pygame.sprite.Sprite() for _ in range(3)]
    >>> for k, t in enumerate(s): t.rect = pygame.Rect(6 * k, 0, 5, 5)
    >>> spritecollideany(s[0], pygame.sprite.Group(s[1:])) is None
    True
    """
    return _PYGAME["spritecollideany"](sprite, group, collided)
