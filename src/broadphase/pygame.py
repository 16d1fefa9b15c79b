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
and stops at the first hit).  ``groupcollide`` of small groups walks as
pygame does, without its Python call per pair: below ``len(groupa) *
len(groupb)`` of 120,000 (about 350 x 350) rects take one
``Rect.collidelistall`` (a C loop) per sprite of ``groupa``, 6 us against
pygame's 12 at 10 x 10 and 0.53 ms against 6.3 at 300 x 300; below 576
circles are tested inline with ``collide_circle``'s arithmetic, 30 us
against 51 at 10 x 10 (crossovers measured with pygame-ce 2.5 by
``benchmarks/pygame_paths.py``, docs/benchmarks.md).  Patched into
``pygame.sprite``, pygame-ce's own sprite tests pass
(``tests/test_pygame.py`` runs them).

For sprites that live across frames, :class:`SpriteIndex` is a sprite
group kept in a moving tree: it reads the rects once a frame, moves only
the sprites that moved, and answers pairs, contact events, ``spritecollide``,
``groupcollide``, ray casts and swept pairs (sprites that passed through
each other between two frames) in sprites, with no handles for the game to
keep.
``DROP_INS`` names the functions to patch into ``pygame.sprite``.

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
>>> from broadphase.pygame import spritecollide, spritecollideany
>>> spritecollide is pygame.sprite.spritecollide  # pygame's own, see below
True
>>> [t.rect.topleft for t in spritecollide(sprite(4, 4), b, False)]
[(5, 5), (10, 0)]
>>> spritecollideany(sprite(30, 30), b) is None
True
"""

from __future__ import annotations

import math
import os

import numpy as np

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # no banner on our users' stdout
import pygame  # noqa: E402

from ._api import find_pairs_between
from ._sprites import SpriteIndex

__all__ = ["DROP_INS", "SpriteIndex", "groupcollide", "spritecollide", "spritecollideany"]

#: The names that stand in for ``pygame.sprite``'s own (patch these into it).
DROP_INS = ("groupcollide", "spritecollide", "spritecollideany")

# pygame's own functions, kept at import: a program may patch ours into
# pygame.sprite ("drop-in"), and the callbacks we leave to pygame must then
# still reach pygame's code, not ourselves (endless recursion).  A reload of
# this module (which may come after such a patch) keeps the first ones.
_PYGAME = globals().get("_PYGAME") or {name: getattr(pygame.sprite, name) for name in DROP_INS}

# Circles are searched as their bounding boxes, radii grown by this much
# (relative, plus an absolute 1e-9) and each edge then moved a float64 step
# outward (the rounded edge of a centre near 2**24 may lose the growth), so
# that every pair pygame's "<=" accepts overlaps strictly; pygame's own
# formula then decides.
_GROW = 1e-9


# Our search runs only where its answer is pygame's to the bit: plain Rects
# of non-negative size within +-2**24 (so every centre, sum and squared
# distance is exact in float64, as pygame's integer arithmetic is), radii
# that are finite numbers >= 0 (or absent), groups that are pygame groups.
# Anything else (FRects, negative sizes, huge coordinates, rect or radius
# None, plain lists) goes to pygame's own function, exceptions and partial
# kills included.
_EXACT = 2**24
_MISSING = object()


def _plain_rects(groupa, groupb):
    """Both groups' sprites and their rects, or None unless every rect is a ``pygame.Rect``."""
    a = groupa.sprites()
    b = groupb.sprites()
    ra = [getattr(s, "rect", None) for s in a]
    rb = [getattr(s, "rect", None) for s in b]
    if not set(map(type, ra)) | set(map(type, rb)) <= {pygame.Rect}:
        return None
    return a, b, ra, rb


def _given_radii(sprites) -> list | None:
    """Each sprite's ``.radius`` (``_MISSING`` where it has none).

    None if one is not a finite int or float >= 0: pygame's own function
    then decides.
    """
    radii = [getattr(s, "radius", _MISSING) for s in sprites]
    for rad in radii:
        if rad is not _MISSING and (type(rad) not in (int, float) or not 0 <= rad < math.inf):
            return None
    return radii


def _diagonal(r) -> float:
    """The radius ``collide_circle`` gives a sprite without one.

    Its own expression on the same ints, so the same float.
    """
    return 0.5 * ((r.width**2 + r.height**2) ** 0.5)


def _radii(given, rects) -> np.ndarray:
    """The radius ``collide_circle`` uses for each sprite: given, else the diagonal's half."""
    return np.array([_diagonal(r) if p is _MISSING else p
                     for p, r in zip(given, rects, strict=True)], np.float64)


def _array(rects) -> np.ndarray | None:
    """``(n, 4)`` float64 x, y, w, h of Rects; None outside our domain (see ``_EXACT``)."""
    if not rects:
        return np.empty((0, 4))
    r = np.array([tuple(x) for x in rects], np.float64).reshape(-1, 4)
    if (r[:, 2:] < 0).any() or (np.abs(r) > _EXACT).any():
        return None
    return r


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


# Products of the group sizes below which the search does not pay (see the
# module doc): it has a fixed cost of about 50 us and 2 us a sprite, where
# Rect.collidelistall costs about 5 ns a rect test and the inline circle
# test about 0.2 us.  Below them, _small_rects and _small_circles answer.
_RECT_CROSSOVER = 120_000
_CIRCLE_CROSSOVER = 576


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
    group = pygame.sprite.AbstractGroup
    crashed = None
    if mode is not None and isinstance(groupa, group) and isinstance(groupb, group):
        plain = _plain_rects(groupa, groupb)
        if plain is not None:
            a, b, ra, rb = plain
            circle = mode == "circle"
            if len(a) * len(b) >= (_CIRCLE_CROSSOVER if circle else _RECT_CROSSOVER):
                crashed = _searched(a, b, ra, rb, circle, dokillb)
            else:
                crashed = (_small_circles if circle else _small_rects)(a, b, ra, rb, dokillb)
    if crashed is None:
        return _PYGAME["groupcollide"](groupa, groupb, dokilla, dokillb, collided)
    if dokilla:
        for s in crashed:
            s.kill()
    return crashed


def _searched(a, b, ra, rb, circle: bool, dokillb: bool) -> dict | None:
    """The groupcollide answer by the search; None outside our domain (see ``_EXACT``).

    Candidates from :func:`broadphase.find_pairs_between`, decided by
    pygame's rule, then pygame's walk: kills of groupb, radii stored.
    """
    xa, xb = _array(ra), _array(rb)
    if xa is None or xb is None:
        return None
    if circle:
        pa, pb = _given_radii(a), _given_radii(b)
        if pa is None or pb is None:
            return None
        qa, qb = _radii(pa, ra), _radii(pb, rb)
        try:  # the largest sum of radii squared, as pygame's formula squares it
            (float(qa.max(initial=0.0)) + float(qb.max(initial=0.0))) ** 2
        except OverflowError:  # pygame raises it: its own function answers
            return None
        ca, cb = _centres(xa), _centres(xb)
        ga, gb = ((q * (1 + _GROW) + _GROW)[:, None] for q in (qa, qb))
        cand = find_pairs_between(_around(ca, ga), _around(cb, gb))
        i, j = cand[:, 0], cand[:, 1]
        d = ca[i] - cb[j]
        pairs = cand[d[:, 0] ** 2 + d[:, 1] ** 2 <= (qa[i] + qb[j]) ** 2]
    else:
        pairs = find_pairs_between(_boxes(xa), _boxes(xb))
    crashed = {}
    taken = np.zeros(len(b), bool)  # sprites of groupb already killed by an earlier one
    kills = np.zeros(len(a), np.intp)  # how many of them each sprite of groupa took
    starts = np.searchsorted(pairs[:, 0], np.arange(len(a) + 1))
    for i in np.flatnonzero(starts[1:] > starts[:-1]).tolist():
        js = pairs[starts[i]:starts[i + 1], 1]
        if dokillb:
            js = js[~taken[js]]
            taken[js] = True
            kills[i] = js.size
        if js.size:
            crashed[a[i]] = [b[j] for j in js.tolist()]
    if circle and a and b:
        # collide_circle stores a missing radius on each sprite it compares:
        # all of groupb (groupa's first sprite meets all of it), and each
        # sprite of groupa that still had sprites of groupb to meet
        left = len(b) - np.concatenate([[0], np.cumsum(kills)[:-1]])
        for sprites, given, q, meets in ((b, pb, qb, [True] * len(b)),
                                         (a, pa, qa, (left > 0).tolist())):
            for k, s in enumerate(sprites):
                if given[k] is _MISSING and meets[k]:
                    s.radius = float(q[k])
    if dokillb:
        for j in np.flatnonzero(taken).tolist():
            b[j].kill()
    return crashed


def _around(centres, grown) -> np.ndarray:
    """Boxes holding ``centres +- grown`` strictly, whatever the rounding of the edges."""
    return np.hstack([np.nextafter(centres - grown, -np.inf),
                      np.nextafter(centres + grown, np.inf)])


def _small_rects(a, b, ra, rb, dokillb: bool) -> dict:
    """The groupcollide answer for Rects, one C loop per sprite of groupa.

    ``Rect.collidelistall`` tests one rect against a list of rects in C with
    ``colliderect``'s rule, where pygame's ``spritecollide`` makes a Python
    call per pair.  The same walk as pygame's: groupa's sprites in order,
    each against the sprites of groupb still alive, killed as it goes.
    """
    crashed = {}
    for s, r in zip(a, ra, strict=True):
        hits = r.collidelistall(rb)
        if hits:
            got = [b[k] for k in hits]
            crashed[s] = got
            if dokillb:
                for t in got:
                    t.kill()
                for k in reversed(hits):  # as groupb.sprites() would now list them
                    del b[k], rb[k]
    return crashed


def _small_circles(a, b, ra, rb, dokillb: bool) -> dict | None:
    """The groupcollide answer with ``collide_circle``, for small groups.

    pygame's walk with ``collide_circle``'s arithmetic written inline (the
    same expressions on the same Python numbers, so the same answers), and
    its side effect: a missing ``.radius`` is stored on each sprite compared.
    None (pygame's own function decides) when a radius is not an int or
    float >= 0.
    """
    pa, pb = _given_radii(a), _given_radii(b)
    if pa is None or pb is None:
        return None
    if a and b:  # the first sprite of groupa meets all of groupb
        for k, s in enumerate(b):
            if pb[k] is _MISSING:
                pb[k] = s.radius = _diagonal(rb[k])
    cb = [r.center for r in rb]
    crashed = {}
    for s, r, rad in zip(a, ra, pa, strict=True):
        if not b:
            continue  # nothing left to meet: pygame compares nothing, stores nothing
        if rad is _MISSING:
            rad = s.radius = _diagonal(r)
        x, y = r.center
        hits = [k for k, (cx, cy) in enumerate(cb)
                if (x - cx) ** 2 + (y - cy) ** 2 <= (rad + pb[k]) ** 2]
        if hits:
            crashed[s] = [b[k] for k in hits]
            if dokillb:
                for k in reversed(hits):
                    b[k].kill()
                    del b[k], cb[k], pb[k]
    return crashed


#: pygame's own ``spritecollide``, the very function object: one sprite
#: against a group is one pass either way, and pygame's runs it in C (0.66 ms
#: for 10,000 rects, where a broad phase needs 4.5 ms just to read the rects
#: out of the sprites).  Exported so that all three names can be patched
#: together; being pygame's object, it costs nothing more than pygame's.
spritecollide = _PYGAME["spritecollide"]

#: pygame's own ``spritecollideany``, the very function object: it stops at
#: the first hit, which no search of the whole group can beat.
spritecollideany = _PYGAME["spritecollideany"]
