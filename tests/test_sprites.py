"""``broadphase.pygame.SpriteIndex`` against pygame's own rect collisions, frame after frame.

Every expected answer comes from pygame: ``Rect.colliderect`` /
``FRect.colliderect`` between every two sprites, ``pygame.sprite.spritecollide``
and ``pygame.sprite.groupcollide`` on the same sprites; the events from the
differences of those pairs between the frames that asked for them.
"""

import numpy as np
import pytest

pygame = pytest.importorskip("pygame")
bpg = pytest.importorskip("broadphase.pygame")
from broadphase import _core, _sprite_members  # noqa: E402

SpriteIndex = bpg.SpriteIndex


class Ship(pygame.sprite.Sprite):
    pass


class Rock(pygame.sprite.Sprite):
    pass


class World:
    """A seeded scene of sprites that move, change size, come and go; its own reference.

    ``life`` numbers every joining of a sprite to the index, in order: a pair
    of the reference is the pair of the two lives (a sprite that leaves and
    comes back is a new life), ordered as the index orders its pairs.
    """

    def __init__(self, seed, n=60, world=200, frects=False, still=0.0):
        self.rng = np.random.default_rng(seed)
        self.world, self.frects = world, frects
        self.still = still  # the share of frames where no sprite joins or leaves
        self.index = SpriteIndex((0, 0, world, world))
        self.life, self.who, self.count = {}, {}, 0
        self.last = None  # the reference pairs at the last contacts()
        self.out = []  # sprites that left, some come back
        for _ in range(n):
            self.join(self.make())

    def rect(self):
        rng = self.rng
        x, y = rng.integers(-20, self.world + 20, 2).tolist()
        w, h = rng.choice([0, -7, 1, 3, 12, 25, 40], 2, p=[.05, .05, .1, .2, .3, .2, .1]).tolist()
        if not self.frects or (self.frects == "mixed" and rng.random() < 0.5):
            return pygame.Rect(x, y, w, h)
        x, y = x + rng.random(), y + rng.random()
        return pygame.FRect(x, y, w * rng.uniform(0.5, 1.5), h * rng.uniform(0.5, 1.5))

    def make(self):
        s = (Ship if self.rng.random() < 0.3 else Rock)()
        s.rect = self.rect()
        return s

    def join(self, s):
        self.index.add(s)
        self.life[s] = self.count
        self.who[self.count] = s
        self.count += 1

    def step(self):
        rng = self.rng
        members = self.index.sprites()
        for s in members:
            u = rng.random()
            if u < 0.5:
                s.rect.move_ip(*rng.integers(-6, 7, 2).tolist())
            elif u < 0.55:
                s.rect = self.rect()
            elif u < 0.58:
                s.rect.inflate_ip(*rng.integers(-8, 9, 2).tolist())
        if self.still and rng.random() < self.still:
            return
        for s in members:
            u = rng.random()
            if u < 0.04:
                s.kill()
                self.out.append(s)
            elif u < 0.06:
                self.index.remove(s)
                self.out.append(s)
            elif u < 0.07:  # leaves and comes back within the frame: a new life
                s.kill()
                self.join(s)
        for _ in range(rng.poisson(2)):
            self.join(self.make())
        if self.out and rng.random() < 0.3:
            s = self.out.pop(int(rng.integers(len(self.out))))
            if not s.alive():
                self.join(s)
        if rng.random() < 0.01:
            self.index.empty()

    def pairs(self):
        """pygame's pairs, as (life, life), in the group's order."""
        members = self.index.sprites()
        return [(self.life[a], self.life[b]) for k, a in enumerate(members)
                for b in members[k + 1:] if collides(a.rect, b.rect)]

    def named(self, pairs):
        return [(self.who[p], self.who[q]) for p, q in pairs]


def collides(r, q):
    """pygame's answer; between a Rect and an FRect, the FRect's."""
    if type(q) is pygame.FRect:
        return q.colliderect(r)
    return r.colliderect(q)


def same(got, want):
    """Lists of sprites or of pairs of sprites, compared by identity."""
    def ids(v):
        return tuple(map(id, v)) if isinstance(v, tuple) else id(v)

    return list(map(ids, got)) == list(map(ids, want))


@pytest.mark.parametrize("still", [0.0, 0.7], ids=["churn", "still"])
@pytest.mark.parametrize("frects", [False, True, "mixed"], ids=["Rect", "FRect", "mixed"])
@pytest.mark.parametrize("seed", range(5))
def test_frames_match_pygame(seed, frects, still):
    w = World(seed, frects=frects, still=still)
    index = w.index
    for frame in range(40):
        if frame:
            w.step()
        index.refresh()
        want = w.pairs()
        if w.rng.random() < 0.5:
            assert same(index.pairs(), w.named(want))
        if w.rng.random() < 0.7:  # events since the last frame that asked
            began, ended = index.contacts()
            last = set(w.last or [])
            assert same(began, w.named(sorted(set(want) - last)))
            assert same(ended, w.named(sorted(last - set(want))))
            w.last = want
        assert same(index.pairs(), w.named(want))
        index._check()
        members = index.sprites()
        for s in members[:: max(1, len(members) // 8)]:
            assert same(index.touching(s), [t for t in pygame.sprite.spritecollide(
                s, index, False, collided=lambda a, b: collides(a.rect, b.rect)) if t is not s])
        for probe in [w.make() for _ in range(4)] + members[:3]:
            want_hits = [t for t in members if collides(probe.rect, t.rect)]
            assert same(index.collide(probe), want_hits)
            assert same(index.collide(probe.rect), want_hits)
            if frects is False:
                assert same(index.collide(probe), pygame.sprite.spritecollide(probe, index, False))


@pytest.mark.parametrize("seed", range(4))
def test_groupcollide_matches_pygame(seed):
    w = World(seed + 10, n=80)
    index = w.index
    for frame in range(15):
        if frame:
            w.step()
        index.refresh()
        members = index.sprites()
        rng = np.random.default_rng(frame)
        ga = pygame.sprite.Group([members[k] for k in rng.permutation(len(members))[:30]])
        gb = pygame.sprite.Group([members[k] for k in rng.permutation(len(members))[:40]])
        for a, b in [(ga, gb), (gb, ga), (ga, ga), (index, index)]:
            got = index.groupcollide(a, b)
            want = pygame.sprite.groupcollide(a, b, False, False)
            assert same(got, want) and all(same(got[s], want[s]) for s in want)
        got = index.groupcollide(Ship, Rock)
        want = pygame.sprite.groupcollide(
            [s for s in members if isinstance(s, Ship)],
            pygame.sprite.Group([s for s in members if isinstance(s, Rock)]), False, False)
        assert same(got, want) and all(same(got[s], want[s]) for s in want)


@pytest.mark.parametrize("kills", [(True, False), (False, True), (True, True)])
@pytest.mark.parametrize("overlap", [False, True], ids=["apart", "sharing"])
@pytest.mark.parametrize("seed", range(3))
def test_groupcollide_kills_as_pygame(seed, kills, overlap):
    def scene():
        w = World(seed + 20, n=90)
        w.index.refresh()
        members = w.index.sprites()
        cut = 45 if not overlap else 60
        ga = pygame.sprite.Group(members[:cut])
        gb = pygame.sprite.Group(members[90 - cut:])
        return w, ga, gb

    (w1, ga1, gb1), (w2, ga2, gb2) = scene(), scene()
    want = pygame.sprite.groupcollide(ga1, gb1, *kills)
    got = w2.index.groupcollide(ga2, gb2, *kills)
    assert [(w1.life[a], [w1.life[b] for b in v]) for a, v in want.items()] == [
        (w2.life[a], [w2.life[b] for b in v]) for a, v in got.items()]
    assert want
    for g1, g2 in [(ga1, ga2), (gb1, gb2), (w1.index, w2.index)]:
        assert [w1.life[s] for s in g1] == [w2.life[s] for s in g2]


def test_collide_kills_as_pygame():
    w1, w2 = World(5, n=80), World(5, n=80)
    w1.index.refresh()
    w2.index.refresh()
    probe = pygame.sprite.Sprite()
    probe.rect = pygame.Rect(50, 50, 90, 90)
    want = pygame.sprite.spritecollide(probe, w1.index, True)
    got = w2.index.collide(probe, dokill=True)
    assert want and [w1.life[s] for s in want] == [w2.life[s] for s in got]
    assert [w1.life[s] for s in w1.index] == [w2.life[s] for s in w2.index]
    assert not any(s.alive() for s in got)


def test_membership_is_live_and_rects_are_read_by_refresh():
    a, b, c = (pygame.sprite.Sprite() for _ in range(3))
    a.rect, b.rect, c.rect = (pygame.Rect(0, 0, 10, 10), pygame.Rect(5, 5, 10, 10),
                              pygame.Rect(40, 40, 5, 5))
    index = SpriteIndex(pygame.Rect(0, 0, 64, 64), a, b)
    other = pygame.sprite.Group(a, b)
    assert index.pairs() == [(a, b)]
    b.kill()  # out of both groups, out of the next answer with no refresh
    assert index.pairs() == [] and b not in other and len(index) == 1
    index.add(c, b)  # b comes back after c: the group's order, and the pairs', is c, b
    assert index.sprites() == [a, c, b] and index.pairs() == [(a, b)]
    c.rect.topleft = (8, 8)  # not read until refresh
    assert index.pairs() == [(a, b)]
    index.refresh()
    assert index.pairs() == [(a, c), (a, b), (c, b)]
    index.empty()
    assert index.pairs() == [] and len(index) == 0
    index._check()


@pytest.mark.parametrize("compiled", [True, False])
def test_refresh_moves_only_what_changed(monkeypatch, compiled):
    if not compiled:  # the Python path, taken when a rect is not read in one compiled pass
        monkeypatch.setattr(_core, "refresh_rects", lambda *args: None)
    sprites = [pygame.sprite.Sprite() for _ in range(50)]
    for k, s in enumerate(sprites):
        s.rect = pygame.Rect(3 * k, 0, 5, 5)
    index = SpriteIndex((0, 0, 200, 200), sprites)
    index.pairs()
    before = index._box_at
    index.refresh()
    assert index._box_at is before  # nothing differs: nothing moved, nothing copied
    sprites[7].rect.x += 1
    sprites[30].rect = pygame.Rect(0, 100, 5, 5)
    sprites[31].rect.w = 0  # collides with nothing from now on
    index.refresh()
    changed = np.flatnonzero((index._box_at != before).any(axis=1))
    assert [index._sprite_at[h] for h in changed] == [sprites[7], sprites[30], sprites[31]]
    assert index._box_at[index._handle[sprites[30]]].tolist() == [0, 100, 5, 105]
    h = index._handles
    assert np.array_equal(index._tree.boxes(h), index._box_at[h])  # the tree has them
    assert sprites[31] not in {s for p in index.pairs() for s in p}
    want = [(a, b) for k, a in enumerate(sprites) for b in sprites[k + 1:]
            if a.rect.colliderect(b.rect)]
    assert index.pairs() == want


def test_a_sprite_class_with_its_own_rect_is_read_through_it():
    class Ball(pygame.sprite.Sprite):
        def __init__(self, x):
            super().__init__()
            self.x = x

        @property
        def rect(self):
            return pygame.Rect(self.x, 0, 10, 10)

    plain = pygame.sprite.Sprite()
    plain.rect = pygame.Rect(0, 0, 10, 10)
    ball = Ball(30)
    index = SpriteIndex((0, 0, 64, 64), plain, ball)
    assert index.pairs() == []
    ball.x = 5
    index.refresh()
    assert index.pairs() == [(plain, ball)]


def test_edges_and_empty_rects_follow_pygame():
    def sprite(*rect):
        s = pygame.sprite.Sprite()
        s.rect = pygame.Rect(*rect)
        return s

    base = sprite(10, 10, 10, 10)
    cases = [sprite(20, 10, 5, 5),   # shares an edge: no
             sprite(19, 19, 5, 5),   # overlaps one pixel: yes
             sprite(12, 12, 0, 5),   # zero width inside: no
             sprite(12, 12, 3, 0),   # zero height inside: no
             sprite(25, 25, -10, -10),  # negative size, read as (15, 15, 10, 10): yes
             sprite(5, 12, -6, 3)]   # negative width ending before it: no
    index = SpriteIndex((0, 0, 64, 64), base, cases)
    want = [t for t in cases if base.rect.colliderect(t.rect)]
    assert index.touching(base) == want == [cases[1], cases[4]]
    assert index.collide(base) == pygame.sprite.spritecollide(base, index, False)
    assert index.collide(pygame.Rect(12, 12, 0, 0)) == []


def test_frect_sums_are_float32_as_pygame():
    # 2**24 + 1 is not a float32: a's right edge rounds onto its left edge, b's left edge,
    # so a and b only touch (in float64 they would overlap by 1)
    big = float(2**24)
    a, b = pygame.sprite.Sprite(), pygame.sprite.Sprite()
    a.rect = pygame.FRect(big, 0, 1, 10)
    b.rect = pygame.FRect(big, 0, 8, 10)
    assert not a.rect.colliderect(b.rect) and not b.rect.colliderect(a.rect)
    index = SpriteIndex((0, 0, 64, 64), a, b)
    assert index.pairs() == []
    a.rect.w = 3  # 2**24 + 3 rounds up to 2**24 + 4: an overlap
    index.refresh()
    assert a.rect.colliderect(b.rect) and index.pairs() == [(a, b)]


def test_serials_renumber_without_changing_answers(monkeypatch):
    monkeypatch.setattr(_sprite_members, "_SERIAL_LIMIT", 70)
    w = World(3, n=50)
    for frame in range(30):
        if frame:
            w.step()
        w.index.refresh()
        want = w.pairs()
        began, ended = w.index.contacts()
        last = set(w.last or [])
        assert same(began, w.named(sorted(set(want) - last)))
        assert same(ended, w.named(sorted(last - set(want))))
        w.last = want
        w.index._check()
    assert w.index._next < w.count  # renumbered at least once


def test_sprites_that_left_are_not_kept_without_end():
    keep = [pygame.sprite.Sprite() for _ in range(3)]
    for k, s in enumerate(keep):
        s.rect = pygame.Rect(5 * k, 0, 8, 8)
    index = SpriteIndex((0, 0, 64, 64), keep)
    assert len(index.contacts()[0]) == 2
    for _ in range(3000):  # contacts() is not asked again for a long time
        s = pygame.sprite.Sprite()
        s.rect = pygame.Rect(1, 1, 8, 8)
        index.add(s)
        index.pairs()
        s.kill()
    assert len(index._by_serial) < 1200
    keep[0].kill()
    began, ended = index.contacts()
    assert began == [] and ended == [(keep[0], keep[1])]
    index._check()
    assert len(index._by_serial) == 2


def test_errors_name_the_sprite():
    s, t = pygame.sprite.Sprite(), pygame.sprite.Sprite()
    s.rect = pygame.Rect(0, 0, 4, 4)
    index = SpriteIndex((0, 0, 64, 64), s)
    index.add(t)  # t.rect is None
    with pytest.raises(TypeError, match=r"sprites: .*Sprite.* has rect None; expected a pygame"):
        index.pairs()
    t.rect = (0, 0, 4, 4)
    with pytest.raises(TypeError, match=r"has rect \(0, 0, 4, 4\)"):
        index.refresh()
    t.rect = pygame.Rect(1, 1, 4, 4)
    assert index.pairs() == [(s, t)]  # the failed calls changed nothing
    stranger = pygame.sprite.Sprite()
    stranger.rect = pygame.Rect(0, 0, 1, 1)
    with pytest.raises(KeyError, match="sprite: .* is not in this index"):
        index.touching(stranger)
    with pytest.raises(KeyError, match="groupb: .* is not in this index"):
        index.groupcollide(index, [stranger])
    t.rect = pygame.FRect(0, 0, float("inf"), 1)
    with pytest.raises(ValueError, match="reaches infinity"):
        index.refresh()
    with pytest.raises(ValueError, match=r"world: expected finite \(x, y, w, h\) with w > 0"):
        SpriteIndex((0, 0, 0, 10))
    with pytest.raises(TypeError, match="world: expected a pygame.Rect or"):
        SpriteIndex(None)
    with pytest.raises(TypeError, match=r"world\[2\]: expected a real number, found True"):
        SpriteIndex((0, 0, True, 10))


def test_it_is_a_pygame_group():
    s = [pygame.sprite.Sprite() for _ in range(3)]
    for k, t in enumerate(s):
        t.rect = pygame.Rect(4 * k, 0, 6, 6)
        t.image = pygame.Surface((6, 6))
    index = SpriteIndex((0, 0, 32, 32), s, depth=2)
    assert index in s[0].groups() and len(index) == 3 and list(index) == s
    index.draw(pygame.Surface((32, 32)))
    twin = index.copy()
    assert type(twin) is SpriteIndex and twin.sprites() == s and twin.pairs() == index.pairs()
    s[1].remove(index)
    assert index.pairs() == [] and len(twin.pairs()) == 2


def test_a_rect_with_no_extent_left_meets_not_even_itself():
    # 1e8 + 0.5 is 1e8 in float32: the FRect has width 0.5 yet no extent, as pygame sees it
    s = Rock()
    s.rect = pygame.FRect(0, 1e8, 0.5, 0.5)
    index = SpriteIndex((0, 0, 64, 64), s)
    assert not s.rect.colliderect(s.rect)
    assert pygame.sprite.groupcollide(index, index, False, False) == {}
    assert index.groupcollide(index, index) == {}
    assert index.groupcollide(index, index, False, True) == {} and s.alive()


def test_a_sprite_listed_twice_counts_once_at_its_first_place():
    a, b, c = Ship(), Rock(), Rock()
    a.rect, b.rect = pygame.Rect(0, 0, 10, 10), pygame.Rect(5, 5, 4, 4)
    c.rect = pygame.Rect(1, 1, 2, 2)
    index = SpriteIndex((0, 0, 64, 64), a, b, c)
    assert index.groupcollide([a], [c, b, c]) == {a: [c, b]}
    assert index.groupcollide([a, a], [b]) == {a: [b]}


def test_a_bad_margin_is_refused_at_once():
    with pytest.raises(ValueError, match=r"margin: expected a finite number >= 0, found -1"):
        SpriteIndex((0, 0, 64, 64), margin=-1)
