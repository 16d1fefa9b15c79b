"""``broadphase.pygame`` against pygame's own sprite collision functions."""

import signal
import sys

import numpy as np
import pytest

pygame = pytest.importorskip("pygame")
bpg = pytest.importorskip("broadphase.pygame")


def make_sprites(seed, k, world=200, big=40):
    """``k`` sprites (some of zero size, half with a radius); the same seed, the same sprites."""
    rng = np.random.default_rng(seed)
    out = []
    for t in range(k):
        s = pygame.sprite.Sprite()
        w, h = rng.integers(0, big, 2)  # zero sizes included: they collide with nothing
        s.rect = pygame.Rect(*rng.integers(-10, world, 2).tolist(), int(w), int(h))
        if rng.random() < 0.5:
            s.radius = float(rng.uniform(0, big / 2))
        s.tag = t
        out.append(s)
    return out


def tags(result):
    """A result with each sprite replaced by its tag."""
    if result is None:
        return None
    if isinstance(result, dict):
        return [(a.tag, [b.tag for b in v]) for a, v in result.items()]
    if isinstance(result, list):
        return [s.tag for s in result]
    return result.tag


COLLIDED = [None, "collide_rect", "collide_circle"]


def fn(name):
    return None if name is None else getattr(pygame.sprite, name)


def twins(seed, ka, kb):
    """Two identical pairs of groups: one for pygame, one for us."""
    return [(pygame.sprite.Group(make_sprites(seed, ka)),
             pygame.sprite.Group(make_sprites(seed + 1000, kb))) for _ in range(2)]


@pytest.fixture(params=["crossover", "always ours"])
def ours_everywhere(request, monkeypatch):
    """Run with the measured crossovers, and with our search at every size."""
    if request.param == "always ours":
        monkeypatch.setattr(bpg, "_RECT_CROSSOVER", 0)
        monkeypatch.setattr(bpg, "_CIRCLE_CROSSOVER", 0)
    return request.param


@pytest.mark.parametrize("collided", COLLIDED)
@pytest.mark.parametrize("seed", range(6))
def test_groupcollide_matches_pygame(seed, collided, ours_everywhere):
    rng = np.random.default_rng(seed)
    ka, kb = (int(v) for v in rng.integers(0, 80, 2))
    for dokilla, dokillb in [(False, False), (True, False), (False, True), (True, True)]:
        (ga1, gb1), (ga2, gb2) = twins(seed, ka, kb)
        want = pygame.sprite.groupcollide(ga1, gb1, dokilla, dokillb, fn(collided))
        got = bpg.groupcollide(ga2, gb2, dokilla, dokillb, fn(collided))
        assert tags(got) == tags(want)
        assert sorted(tags(ga2.sprites())) == sorted(tags(ga1.sprites()))
        assert sorted(tags(gb2.sprites())) == sorted(tags(gb1.sprites()))


def test_groupcollide_with_itself_matches_pygame(ours_everywhere):
    g1 = pygame.sprite.Group(make_sprites(11, 70))
    g2 = pygame.sprite.Group(make_sprites(11, 70))
    assert tags(bpg.groupcollide(g2, g2, False, False)) == tags(
        pygame.sprite.groupcollide(g1, g1, False, False))


@pytest.mark.parametrize("collided", COLLIDED)
def test_spritecollide_and_any_match_pygame(collided):
    group = make_sprites(7, 80)
    g = pygame.sprite.Group(group)
    for probe in make_sprites(8, 40) + group[:5]:
        assert tags(bpg.spritecollide(probe, g, False, fn(collided))) == tags(
            pygame.sprite.spritecollide(probe, g, False, fn(collided)))
        assert tags(bpg.spritecollideany(probe, g, fn(collided))) == tags(
            pygame.sprite.spritecollideany(probe, g, fn(collided)))
    g1, g2 = pygame.sprite.Group(make_sprites(7, 80)), pygame.sprite.Group(make_sprites(7, 80))
    probe = make_sprites(9, 1, big=120)[0]
    want = pygame.sprite.spritecollide(probe, g1, True, fn(collided))
    got = bpg.spritecollide(probe, g2, True, fn(collided))
    assert tags(got) == tags(want) and len(want) > 0
    assert sorted(tags(g2.sprites())) == sorted(tags(g1.sprites()))


def test_touching_circles_count_as_pygame_says(ours_everywhere):
    # centres 10 apart, radii 4 + 6: pygame's collide_circle says "<=", so they touch and hit
    a, b = pygame.sprite.Sprite(), pygame.sprite.Sprite()
    a.rect, b.rect = pygame.Rect(0, 0, 8, 8), pygame.Rect(10, 0, 8, 8)
    a.radius, b.radius = 4, 6
    a.tag, b.tag = "a", "b"
    ga, gb = pygame.sprite.Group(a), pygame.sprite.Group(b)
    assert pygame.sprite.collide_circle(a, b)
    assert tags(bpg.groupcollide(ga, gb, False, False, pygame.sprite.collide_circle)) == [
        ("a", ["b"])]


def test_touching_circles_near_2_to_the_24_count_as_pygame_says(ours_everywhere):
    # centres 1 apart near 3 * 2**23, radii 0.5: touching, which pygame's "<=" counts; a
    # float64 step there (2**-28) is more than the absolute growth of the candidates' boxes
    def sprite(x, y, w, h, tag):
        s = pygame.sprite.Sprite()
        s.rect, s.radius, s.tag = pygame.Rect(x, y, w, h), 0.5, tag
        return s

    def groups():
        a = [sprite(2**24 - 2, 0, 2**24, 10, "a")] + [
            sprite(0, 1000 + 20 * k, 4, 4, f"a{k}") for k in range(23)]
        b = [sprite(2**24 - 1, 0, 2**24, 10, "b")] + [
            sprite(500, 1000 + 20 * k, 4, 4, f"b{k}") for k in range(23)]
        return pygame.sprite.Group(a), pygame.sprite.Group(b)

    want = pygame.sprite.groupcollide(*groups(), False, False, pygame.sprite.collide_circle)
    got = bpg.groupcollide(*groups(), False, False, pygame.sprite.collide_circle)
    assert tags(got) == tags(want) == [("a", ["b"])]


def test_radii_whose_sum_squared_overflows_get_pygames_error(ours_everywhere):
    def groups():
        a = [pygame.sprite.Sprite() for _ in range(24)]
        b = [pygame.sprite.Sprite() for _ in range(24)]
        for k, s in enumerate(a + b):
            s.rect, s.radius = pygame.Rect(20 * (k % 24) + k // 24, 0, 4, 4), 0.5
        a[0].radius = 1e200
        return pygame.sprite.Group(a), pygame.sprite.Group(b)

    with pytest.raises(OverflowError):
        pygame.sprite.groupcollide(*groups(), False, False, pygame.sprite.collide_circle)
    with pytest.raises(OverflowError):
        bpg.groupcollide(*groups(), False, False, pygame.sprite.collide_circle)


def test_other_callbacks_are_pygames():
    ga, gb = pygame.sprite.Group(make_sprites(3, 30)), pygame.sprite.Group(make_sprites(4, 30))
    ratio = pygame.sprite.collide_rect_ratio(1.5)
    assert tags(bpg.groupcollide(ga, gb, False, False, ratio)) == tags(
        pygame.sprite.groupcollide(ga, gb, False, False, ratio))


def test_bench_sprites_row_against_pygame():
    from broadphase import bench

    rows = bench.run(["sprites"], [300], peers=True, repeats=1)
    by = {r.method: r for r in rows}
    ours, theirs = by["groupcollide"], by["pygame groupcollide"]
    assert ours.median_ms and theirs.median_ms and ours.pairs == theirs.pairs > 0
    assert by["shapely STRtree"].note.startswith(("n/a", "not installed"))
    assert "auto" not in by


def _sigterm_caught():
    """Whether this process has a handler for SIGTERM (any, C or Python); None off Linux."""
    if not sys.platform.startswith("linux"):
        return None
    with open("/proc/self/status") as f:
        mask = int(next(ln.split()[1] for ln in f if ln.startswith("SigCgt:")), 16)
    return bool(mask >> (signal.SIGTERM - 1) & 1)


def test_patched_into_pygame_its_own_sprite_tests_pass(monkeypatch):
    """The drop-in promise: ours in ``pygame.sprite``, pygame-ce's own sprite tests unchanged.

    The callbacks we leave to pygame (``collide_rect_ratio``, ``collide_mask``,
    custom callables) must reach pygame's original functions, not ourselves.
    """
    import os
    import unittest

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    sprite_test = pytest.importorskip("pygame.tests.sprite_test")
    for name in bpg.DROP_INS:
        monkeypatch.setattr(pygame.sprite, name, getattr(bpg, name))
    suite = unittest.defaultTestLoader.loadTestsFromModule(sprite_test)
    caught_before = _sigterm_caught()
    try:
        with open(os.devnull, "w") as quiet:
            result = unittest.TextTestRunner(stream=quiet, verbosity=0).run(suite)
    finally:
        # pygame's tests init SDL, whose SIGTERM handler would outlive them in this
        # process and its forks (a multiprocessing pool's workers then ignore
        # terminate(): test_runtime's fork test hung): quit restores the handlers
        pygame.quit()
    assert _sigterm_caught() == caught_before
    problems = [(t.id(), tb.strip().splitlines()[-1]) for t, tb in result.failures + result.errors]
    assert result.testsRun > 100 and problems == []


def test_rects_given_to_find_pairs_are_read_as_xywh():
    """A list of pygame Rects/FRects is (x, y, w, h): never silently read as corners."""
    import broadphase as bp

    rects = [pygame.Rect(3, 3, 10, 10), pygame.Rect(12, 0, 20, 5), pygame.Rect(40, 40, 1, 1)]
    assert bp.find_pairs(rects).tolist() == [[0, 1]]  # read as corners: no pair
    assert bp.find_pairs(rects, format="xywh").tolist() == [[0, 1]]
    frects = [pygame.FRect(0, 0, 1.5, 1.5), pygame.FRect(1, 1, 1, 1)]
    assert bp.find_pairs(frects).tolist() == [[0, 1]]
    assert bp.find_pairs_between(rects[:1], rects[1:]).tolist() == [[0, 0]]
    with pytest.raises(ValueError, match=r"boxes: pygame rects are \(x, y, w, h\), not corners"):
        bp.find_pairs(rects, format="corners")
    with pytest.raises(ValueError, match=r"boxes\[1\]: expected a pygame rect like boxes\[0\], "
                                         r"found list"):
        bp.find_pairs([rects[0], [0, 0, 1, 1]])
    # against pygame's own rule on random rects: positive sizes (pygame normalizes
    # negative ones, and its zero-size rects collide with nothing, where our
    # segments inside a box do; broadphase.pygame follows pygame there)
    rng = np.random.default_rng(3)
    many = [pygame.Rect(*rng.integers(0, 100, 2).tolist(), *rng.integers(1, 20, 2).tolist())
            for _ in range(300)]
    want = [[i, j] for i in range(300) for j in range(i + 1, 300)
            if many[i].colliderect(many[j])]
    assert bp.find_pairs(many).tolist() == want


def _odd_world(seed, clean=False):
    """Two groups of sprites of every kind pygame accepts, rebuilt identically from ``seed``.

    ``clean``: only the kinds our search takes (Rects of non-negative size, radii absent or
    numbers >= 0, pygame groups), so that our path, not pygame's, answers.
    """
    rng = np.random.default_rng(seed)
    sprites = []
    for t in range(int(rng.integers(0, 90))):
        s = pygame.sprite.Sprite()
        kind = 1.0 if clean else rng.random()
        # clean worlds are small and integer: exact touches (pygame's "<=") are common
        x, y = (int(v) for v in rng.integers(-20, 30 if clean else 120, 2))
        w, h = (int(v) for v in rng.integers(0, 10 if clean else 30, 2))
        big = t == 0 and rng.random() < 0.5  # a first sprite over everything: takes all of b
        if big:
            x, y, w, h = -40, -40, 200, 200
        if kind < 0.1:
            s.rect = pygame.FRect(x + 0.5, y + 0.25, w + 0.5, h)
        elif kind < 0.15:
            s.rect = pygame.Rect(x, y, -w, h)  # negative sizes: pygame normalizes
        elif kind < 0.2:
            s.rect = pygame.Rect(x + 2**25, y + 2**25, w, h)  # beyond float64's exact squares
        elif kind < 0.21:
            s.rect = None
        else:
            s.rect = pygame.Rect(x, y, w, h)
        r = 1.0 if big else rng.random()
        if clean and 0.5 <= r < 0.54:
            r = 1.0  # no radius None or negative in a clean world
        if r < 0.3:
            s.radius = int(rng.integers(0, 15))
        elif r < 0.5:
            s.radius = float(rng.uniform(0, 15))
        elif r < 0.52:
            s.radius = None
        elif r < 0.54:
            s.radius = -3.0
        s.tag = t
        sprites.append(s)
    cut = int(rng.integers(0, len(sprites) + 1))
    a, b = sprites[:cut], sprites[cut:]
    ga = a if rng.random() < 0.1 and not clean else pygame.sprite.Group(a)
    gb = b if rng.random() < 0.1 and not clean else pygame.sprite.Group(b)
    return ga, gb, sprites


def _outcome(f, seed, collided, dokilla, dokillb, clean):
    """What a groupcollide did: result or exception type, survivors, radii written."""
    ga, gb, sprites = _odd_world(seed, clean)
    try:
        res = tags(f(ga, gb, dokilla, dokillb, collided))
    except Exception as e:  # noqa: BLE001 (the type is what is compared)
        res = type(e).__name__
    return (res, [s.alive() for s in sprites],
            [getattr(s, "radius", "none") for s in sprites])


@pytest.mark.parametrize("path", ["search", "small"])
@pytest.mark.parametrize("seed", range(60))
def test_groupcollide_differs_from_pygame_in_nothing(seed, path, monkeypatch):
    """Random groups of every kind (FRects, negative sizes, huge coordinates, rect or radius
    None, negative radii, lists as groups): the same result, kills, exceptions and radii,
    from our search and from the small groups' C loop."""
    rng = np.random.default_rng(10_000 + seed)
    collided = [None, pygame.sprite.collide_rect, pygame.sprite.collide_circle][seed % 3]
    circle = collided is pygame.sprite.collide_circle
    spied = "_searched" if path == "search" else "_small_circles" if circle else "_small_rects"
    for name in ("_RECT_CROSSOVER", "_CIRCLE_CROSSOVER"):
        monkeypatch.setattr(bpg, name, 0 if path == "search" else 10**9)
    ours = []
    real = getattr(bpg, spied)
    monkeypatch.setattr(bpg, spied, lambda *a: ours.append(real(*a)) or ours[-1])
    dokilla, dokillb = (bool(v) for v in rng.integers(0, 2, 2))
    clean = seed % 2 == 0
    want = _outcome(bpg._PYGAME["groupcollide"], seed, collided, dokilla, dokillb, clean)
    got = _outcome(bpg.groupcollide, seed, collided, dokilla, dokillb, clean)
    assert got == want
    if clean:  # our code answered, not pygame's
        assert ours and ours[0] is not None
