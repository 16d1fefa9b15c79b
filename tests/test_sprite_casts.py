"""``SpriteIndex.cast_rays`` and ``swept_pairs`` against exact references, frame after frame.

Every expected answer is computed here with Python ``Fraction``\\ s from the
sprites' rects as pygame defines them (``colliderect``'s corners: ints for a
``Rect``, float32 sums for an ``FRect``, zero width or height colliding with
nothing), not by the library: a ray hits a rect when a point of it lies
strictly inside; two rects moving linearly between two refreshes form a swept
pair when they overlap with positive area at some moment.  Axis-aligned
segments are also checked against pygame's own ``Rect.clipline``.
"""

from fractions import Fraction

import numpy as np
import pytest

pygame = pytest.importorskip("pygame")
from test_sprites import World, same  # noqa: E402

SpriteIndex = pytest.importorskip("broadphase.pygame").SpriteIndex
INF = float("inf")


def box(r):
    """``colliderect``'s corners of rect ``r`` as Fractions, or None (collides with nothing)."""
    if isinstance(r, pygame.FRect):
        x, y, w, h = (np.float32(v) for v in (r.x, r.y, r.w, r.h))
        xe, ye = float(x + w), float(y + h)  # float32 sums, as pygame
        x, y, w, h = float(x), float(y), float(w), float(h)
    else:
        x, y, w, h = r.x, r.y, r.w, r.h
        xe, ye = x + w, y + h
    if w == 0 or h == 0 or any(v != v for v in (x, y, xe, ye)):
        return None
    f = [Fraction(v) for v in (min(x, xe), min(y, ye), max(x, xe), max(y, ye))]
    return tuple(f)


def ray_t(b, o, d, max_t):
    """Where ray ``o + s d`` (0 <= s <= max_t, None: no bound) enters box ``b``, or None."""
    lo, hi = None, None  # the open interval of s inside both slabs
    for k in range(2):
        if d[k] == 0:
            if not b[k] < o[k] < b[k + 2]:
                return None
            continue
        a, c = (b[k] - o[k]) / d[k], (b[k + 2] - o[k]) / d[k]
        a, c = min(a, c), max(a, c)
        lo = a if lo is None else max(lo, a)
        hi = c if hi is None else min(hi, c)
    if hi is not None and (hi <= 0 or (lo is not None and lo >= hi)):
        return None
    t = Fraction(0) if lo is None or lo < 0 else lo
    if t > 0 and max_t is not None and t >= max_t:
        return None
    return t


def swept_t(a0, a1, b0, b1):
    """When boxes moving from a0 to a1 and b0 to b1 (s in [0, 1]) start to overlap, or None."""
    lo, hi = Fraction(-1), Fraction(2)
    for k in range(2):
        # a's low side below b's high side, and b's low side below a's high side
        for f0, f1 in ((b0[k + 2] - a0[k], b1[k + 2] - a1[k]),
                       (a0[k + 2] - b0[k], a1[k + 2] - b1[k])):
            q = f1 - f0  # f(s) = f0 + q s > 0
            if q == 0:
                if f0 <= 0:
                    return None
            elif q > 0:
                lo = max(lo, -f0 / q)
            else:
                hi = min(hi, -f0 / q)
    t = max(lo, Fraction(0))
    if lo < 0:
        return t if hi > 0 else None
    return t if lo < hi and lo < 1 else None


def rays(rng, m, world):
    """``m`` rays: origins on the grid or anywhere, directions along axes, zero or any."""
    o = rng.integers(-30, world + 30, (m, 2)).astype(float)
    some = rng.random(m) < 0.5
    o[some] += rng.random((int(some.sum()), 2))
    d = rng.integers(-60, 61, (m, 2)).astype(float)
    axis = rng.random(m)
    d[axis < 0.2, 0] = 0
    d[(axis >= 0.2) & (axis < 0.4), 1] = 0
    d[axis > 0.95] = 0
    d[rng.random(m) < 0.3] += rng.random((1, 2))
    d[rng.random(m) < 0.05] *= -0.0
    return o, d


def reference_rays(members, o, d, max_t, ignore):
    """Per ray, the ``(t, position)`` of every hit, sorted by position."""
    boxes = [box(s.rect) for s in members]
    out = []
    for k in range(len(o)):
        ok = [Fraction(v) for v in o[k]]
        dk = [Fraction(v) for v in d[k]]
        mt = None if max_t[k] == INF else Fraction(max_t[k])
        hits = []
        for j, b in enumerate(boxes):
            if b is None or members[j] is ignore[k]:
                continue
            t = ray_t(b, ok, dk, mt)
            if t is not None:
                hits.append((t, j))
        out.append(hits)
    return out


def check_casts(index, members, o, d, max_t, ignore, want):
    """The index's casts in every mode against the reference hits ``want`` of each ray."""
    first, t = index.cast_rays(o, d, max_t=max_t, ignore=ignore)
    best = [min(h) if h else None for h in want]  # least t, then the earliest sprite
    assert same(first, [members[b[1]] if b else None for b in best])
    assert t.tolist() == [float(b[0]) if b else INF for b in best]
    rows, t = index.cast_rays(o, d, max_t=max_t, hits="all", ignore=ignore)
    flat = [(k, j, tt) for k, h in enumerate(want) for tt, j in sorted(h, key=lambda v: v[1])]
    assert [r for r, _ in rows] == [k for k, _, _ in flat]
    assert same([s for _, s in rows], [members[j] for _, j, _ in flat])
    assert t.tolist() == [float(tt) for _, _, tt in flat]
    anyhit = index.cast_rays(o, d, max_t=max_t, hits="any", ignore=ignore)
    assert anyhit.dtype == bool and anyhit.tolist() == [bool(h) for h in want]


@pytest.mark.parametrize("frects", [False, True, "mixed"], ids=["Rect", "FRect", "mixed"])
@pytest.mark.parametrize("seed", range(4))
def test_casts_match_the_exact_reference(seed, frects):
    w = World(seed, frects=frects, n=40)
    index, rng = w.index, w.rng
    for frame in range(12):
        if frame:
            w.step()
        index.refresh()
        members = index.sprites()
        m = 25
        o, d = rays(rng, m, w.world)
        max_t = rng.choice([INF, 1.0, 0.5, 0.0, 2.5], m)
        shooter = members[int(rng.integers(len(members)))] if members else None
        how = rng.integers(3)
        if how == 0:
            ignore, per_ray = None, [None] * m
        elif how == 1:
            ignore, per_ray = shooter, [shooter] * m
        else:
            per_ray = [members[int(rng.integers(len(members)))] if members and rng.random() < 0.7
                       else None for _ in range(m)]
            ignore = per_ray
        want = reference_rays(members, o, d, max_t, per_ray)
        check_casts(index, members, o, d, max_t, ignore, want)


@pytest.mark.parametrize("frects", [False, True], ids=["Rect", "FRect"])
@pytest.mark.parametrize("seed", range(4))
def test_a_few_segments_as_python_numbers_match_the_exact_reference(seed, frects):
    # a few segments with one max_t walk the tree's own cells when handles ascend in
    # the group's order, else one static cast: the same answers either way
    w = World(seed + 7, frects=frects, n=40, still=0.8)
    index, rng = w.index, w.rng
    walked = 0
    for frame in range(16):
        if frame:
            w.step()
        index.refresh()
        members = index.sprites()
        walked += bool(index._monotone and members)
        m = int(rng.integers(1, 5))
        o, d = rays(rng, m, w.world)
        o, d = [tuple(v) for v in o.tolist()], [tuple(v) for v in d.tolist()]
        max_t = float(rng.choice([1.0, 2.5, 0.0]))
        shooter = members[int(rng.integers(len(members)))] if members else None
        ignore = shooter if rng.random() < 0.5 else [shooter, *[None] * (m - 1)]
        per_ray = [shooter] * m if ignore is shooter else ignore
        want = reference_rays(members, np.array(o), np.array(d), [max_t] * m, per_ray)
        check_casts(index, members, o, d, max_t, ignore, want)
    assert walked >= 2


@pytest.mark.parametrize("seed", range(3))
def test_axis_segments_agree_with_clipline(seed):
    # Rect.clipline keeps the pixels x .. x + w - 1: the closed box of Rect(x, y, w + 1, h + 1)
    # is the closure of the open box a ray must enter, that of Rect(x + 1, y + 1, w - 1, h - 1)
    # lies inside it; for integer axis-aligned segments both tests are exact.
    w = World(seed, n=40)
    index, rng = w.index, w.rng
    index.refresh()
    members = index.sprites()
    segs = []
    for _ in range(300):
        a = rng.integers(-30, w.world + 30, 2)
        b = a.copy()
        b[int(rng.integers(2))] += int(rng.integers(-80, 81))
        segs.append((a, b))
    o = np.array([a for a, _ in segs], float)
    d = np.array([b - a for a, b in segs], float)
    rows, _ = index.cast_rays(o, d, max_t=1.0, hits="all")
    got = {(k, id(s)) for k, s in rows}
    for k, (a, b) in enumerate(segs):
        for s in members:
            r = s.rect.copy()
            r.normalize()
            if r.w == 0 or r.h == 0:
                assert (k, id(s)) not in got
                continue
            closure = pygame.Rect(r.x, r.y, r.w + 1, r.h + 1).clipline(tuple(a), tuple(b))
            inner = r.w > 1 and r.h > 1 and pygame.Rect(
                r.x + 1, r.y + 1, r.w - 1, r.h - 1).clipline(tuple(a), tuple(b))
            if (k, id(s)) in got:
                assert closure, (a, b, r)
            elif inner:
                raise AssertionError(f"segment {a}->{b} crosses the inside of {r} and missed")


def test_rays_never_hit_rects_that_collide_with_nothing():
    def sprite(*rect):
        s = pygame.sprite.Sprite()
        s.rect = rect[0] if len(rect) == 1 else pygame.Rect(*rect)
        return s

    thin = [sprite(10, 0, 0, 20), sprite(0, 10, 20, 0), sprite(5, 5, 0, 0),
            sprite(pygame.FRect(12, 0, 0.0, 20)), sprite(pygame.FRect(2, 2, float("nan"), 3))]
    wall = sprite(30, 0, 4, 20)
    index = SpriteIndex((0, 0, 64, 64), thin, wall)
    first, t = index.cast_rays([(0, 10), (10, -5), (2, 3)], [(1, 0), (0, 1), (0, 0)])
    assert same(first, [wall, None, None]) and t.tolist() == [30.0, INF, INF]
    assert index.cast_rays([(0, 10)], [(1, 0)], hits="all", ignore=wall)[0] == []


@pytest.mark.parametrize("frects", [False, True, "mixed"], ids=["Rect", "FRect", "mixed"])
@pytest.mark.parametrize("seed", range(4))
def test_swept_pairs_match_the_exact_reference(seed, frects):
    w = World(seed, frects=frects, n=40)
    index, rng = w.index, w.rng
    before = {}  # life -> box at the previous refresh
    for frame in range(15):
        if frame:
            w.step()
            for s in index.sprites():  # fast movers: tens of pixels a frame
                if rng.random() < 0.2:
                    s.rect.move_ip(*rng.integers(-60, 61, 2).tolist())
        index.refresh()
        members = index.sprites()
        now = [box(s.rect) for s in members]
        start = [before.get(w.life[s]) or b for s, b in zip(members, now, strict=True)]
        want = []
        for i in range(len(members)):
            for j in range(i + 1, len(members)):
                if now[i] is None or now[j] is None:
                    continue
                t = swept_t(start[i], now[i], start[j], now[j])
                if t is not None:
                    want.append((members[i], members[j], float(t)))
        got = index.swept_pairs()
        assert same([(a, b) for a, b, _ in got], [(a, b) for a, b, _ in want])
        assert [t for *_, t in got] == [t for *_, t in want]
        assert {(id(a), id(b)) for a, b in index.pairs()} <= {(id(a), id(b)) for a, b, _ in got}
        before = {w.life[s]: b for s, b in zip(members, now, strict=True)}


def test_swept_pairs_of_still_sprites_are_the_pairs_at_zero():
    w = World(7, n=60)
    w.index.refresh()
    w.index.refresh()
    got = w.index.swept_pairs()
    assert [(a, b) for a, b, _ in got] == w.index.pairs()
    assert all(t == 0.0 for *_, t in got)


def test_sweeps_start_where_sprites_join_or_appear():
    def sprite(x, y, w, h):
        s = pygame.sprite.Sprite()
        s.rect = pygame.Rect(x, y, w, h)
        return s

    wall, bullet, ghost = sprite(20, 0, 3, 20), sprite(0, 0, 4, 4), sprite(0, 8, 0, 4)
    index = SpriteIndex((0, 0, 64, 64), wall, bullet, ghost)
    index.refresh()
    bullet.rect.x = ghost.rect.x = 40
    ghost.rect.w = 4  # had no area: appears where it is now, past the wall
    index.refresh()
    assert [(a, b, t) for a, b, t in index.swept_pairs()] == [(wall, bullet, 0.4)]
    late = sprite(40, 12, 4, 4)
    index.add(late)  # read when it joins (at the next question): no sweep yet
    assert index.swept_pairs() == [(wall, bullet, 0.4)]
    late.rect.x = 0  # joined since the last refresh: starts where it is at the next
    index.refresh()
    assert index.swept_pairs() == []
    bullet.rect.w = 0  # collides with nothing now: in no swept pair
    bullet.rect.x = late.rect.x = 40
    index.refresh()
    assert index.swept_pairs() == [(wall, late, 0.4)]


def test_cast_errors_name_the_argument():
    s, t = pygame.sprite.Sprite(), pygame.sprite.Sprite()
    s.rect, t.rect = pygame.Rect(0, 0, 4, 4), pygame.Rect(8, 0, 4, 4)
    index = SpriteIndex((0, 0, 64, 64), s)
    with pytest.raises(KeyError, match="ignore: .* is not in this index"):
        index.cast_rays([(0, 0)], [(1, 0)], ignore=t)
    with pytest.raises(KeyError, match=r"ignore\[1\]: .* is not in this index"):
        index.cast_rays([(0, 0)] * 2, [(1, 0)] * 2, ignore=[s, t])
    with pytest.raises(ValueError, match=r"ignore: expected a scalar or shape \(2,\)"):
        index.cast_rays([(0, 0)] * 2, [(1, 0)] * 2, ignore=[s])
    with pytest.raises(ValueError, match="hits: expected one of"):
        index.cast_rays([(0, 0)], [(1, 0)], hits="last")
    with pytest.raises(ValueError, match=r"origins\[0\]: x is nan"):
        index.cast_rays([(float("nan"), 0)], [(1, 0)])
    with pytest.raises(ValueError, match=r"max_t: expected a number >= 0"):
        index.cast_rays([(0, 0)], [(1, 0)], max_t=-1)
    empty = SpriteIndex((0, 0, 64, 64))
    assert empty.cast_rays([(0, 0)], [(1, 0)])[0] == [None] and empty.swept_pairs() == []

