"""The compiled rect reader (``_core.read_rects``) reads exactly what the Python reader reads.

``_rects.boxes`` (Python: the rects' numbers through ``np.fromiter``) and
``_core.read_rects`` (pygame-ce's documented C structs) must give the same
corners bit for bit for every ``Rect`` and ``FRect`` (subclasses included),
and the compiled one must decline (``None``) everything else, so that the
Python reader words the error.  Both are checked against pygame's own
``colliderect`` too: boxes overlap strictly exactly when the rects collide.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pygame = pytest.importorskip("pygame")
from broadphase import _core, _rects  # noqa: E402
from broadphase.pygame import SpriteIndex  # noqa: E402


class MyRect(pygame.Rect):
    @property
    def x(self):  # what colliderect ignores: it reads the struct
        return 1000


class MyFRect(pygame.FRect):
    pass


I32 = st.integers(-(2**31), 2**31 - 1)
SMALL = st.integers(-40, 40)
F32 = st.one_of(
    st.floats(width=32, allow_infinity=False, allow_nan=False),
    st.floats(-50, 50, width=32),
    st.sampled_from([0.0, -0.0, float("nan"), 2.0**24, 2.0**24 + 2, 3.4e38, -3.4e38, 1e-45]),
)
RECTS = st.one_of(
    st.builds(pygame.Rect, SMALL, SMALL, SMALL, SMALL),
    st.builds(pygame.Rect, I32, I32, I32, I32),
    st.builds(pygame.FRect, F32, F32, F32, F32),
    st.builds(MyRect, SMALL, SMALL, SMALL, SMALL),
    st.builds(MyFRect, F32, F32, F32, F32),
)


def sprites_of(rects):
    out = []
    for r in rects:
        s = pygame.sprite.Sprite()
        s.rect = r
        out.append(s)
    return out


def python_read(sprites):
    """The Python reader, or the exception it raises."""
    try:
        return _rects.boxes(sprites)
    except (TypeError, ValueError) as e:
        return e


def test_the_compiled_reader_is_on():
    s = sprites_of([pygame.Rect(1, 2, 3, 4), pygame.FRect(0.5, 0, 2, 2)])
    assert _core.read_rects(s, "rect").tolist() == [[1, 2, 4, 6], [0.5, 0, 2.5, 2]]


@settings(max_examples=300, deadline=None)
@given(st.lists(RECTS, max_size=12))
def test_both_readers_read_the_same_bits(rects):
    sprites = sprites_of(rects)
    want = python_read(sprites)
    for attr in ("rect", "_Sprite__rect"):
        got = _core.read_rects(sprites, attr)
        if isinstance(want, Exception):  # an FRect reaching infinity: worded in Python
            assert isinstance(want, ValueError) and got is None
        else:
            assert got.shape == (len(rects), 4) and got.dtype == np.float64
            assert got.view(np.int64).tolist() == want.view(np.int64).tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(
    st.builds(pygame.Rect, SMALL, SMALL, SMALL, SMALL),
    st.builds(MyRect, SMALL, SMALL, SMALL, SMALL),
    st.builds(pygame.FRect, *[st.floats(-40, 40, width=32)] * 4),
    st.builds(MyFRect, *[st.floats(-40, 40, width=32)] * 4)), min_size=2, max_size=8))
def test_boxes_overlap_when_pygame_says_the_rects_collide(rects):
    b = _core.read_rects(sprites_of(rects), "rect")
    for i, r in enumerate(rects):
        for j, q in enumerate(rects):
            if i != j and isinstance(r, pygame.FRect) == isinstance(q, pygame.FRect):
                overlap = (b[i, 0] < b[j, 2] and b[j, 0] < b[i, 2]
                           and b[i, 1] < b[j, 3] and b[j, 1] < b[i, 3])
                assert overlap == bool(r.colliderect(q)), (r, q)


def test_a_subclass_is_read_as_its_struct():
    r = MyRect(0, 0, 10, 10)
    assert r.x == 1000 and r.colliderect(pygame.Rect(5, 5, 2, 2))  # pygame reads the struct
    s = sprites_of([r])
    assert _core.read_rects(s, "rect").tolist() == _rects.boxes(s).tolist() == [[0, 0, 10, 10]]


def test_anything_else_is_left_to_the_python_reader():
    class Fake:  # claims to be a Rect: isinstance says yes, its layout says no
        __class__ = property(lambda self: pygame.Rect)

    class Computed(pygame.sprite.Sprite):
        @property
        def rect(self):
            return pygame.Rect(3, 3, 4, 4)

    class Raises(pygame.sprite.Sprite):
        @property
        def rect(self):
            raise RuntimeError("no rect here")

    assert isinstance(Fake(), pygame.Rect)
    good = sprites_of([pygame.Rect(0, 0, 1, 1)])
    for odd in ([None], [(0, 0, 4, 4)], [Fake()], [pygame.FRect(0, 0, float("inf"), 1)]):
        assert _core.read_rects(good + sprites_of(odd), "rect") is None
    assert _core.read_rects([object()], "rect") is None  # no such attribute
    assert _core.read_rects([Raises()], "rect") is None
    assert _core.read_rects([Computed()], "rect").tolist() == [[3, 3, 7, 7]]
    assert _core.read_rects(sprites_of([Computed().rect]), "_Sprite__rect").tolist() == [
        [3, 3, 7, 7]]
    with pytest.raises(TypeError, match=r"sprites: .* has rect .*Fake.*; expected a pygame"):
        _rects.boxes(sprites_of([Fake()]))
    with pytest.raises(RuntimeError, match="no rect here"):
        _rects.read([Raises()])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.builds(pygame.Rect, SMALL, SMALL, SMALL, SMALL), min_size=1, max_size=10),
       st.data())
def test_changed_rows_and_rows_after(rects, data):
    n = len(rects)
    sprites = sprites_of(rects)
    handles = np.array(data.draw(st.permutations(range(n + 3)))[:n], np.int64)
    box_at = np.full((n + 3, 4), _rects.FAR)
    keep = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    now = _rects.boxes(sprites)
    box_at[handles[keep]] = now[keep]
    copy = box_at.copy()
    boxes, changed, after = _core.read_rects(sprites, "rect", handles, box_at)
    want = [k for k in range(n) if not keep[k] and not (now[k] == _rects.FAR).all()]
    assert boxes.tolist() == now.tolist() and changed.tolist() == want
    assert np.array_equal(box_at, copy)  # never written
    expect = copy.copy()
    expect[handles] = now
    assert np.array_equal(after, expect) and (after is box_at) == (not want)
    monkey = pytest.MonkeyPatch()  # the Python fallback gives the same
    monkey.setattr(_core, "read_rects", lambda *a: None)
    try:
        b2, c2, a2 = _rects.read(sprites, "rect", handles, box_at)
    finally:
        monkey.undo()
    assert b2.tolist() == boxes.tolist() and c2.tolist() == want
    assert np.array_equal(a2, after) and (a2 is box_at) == (not want)


def test_bad_handles_are_errors_not_crashes():
    s = sprites_of([pygame.Rect(0, 0, 1, 1)] * 2)
    with pytest.raises(ValueError, match=r"handles\[1\]: expected a row of box_at"):
        _core.read_rects(s, "rect", np.array([0, 5]), np.zeros((2, 4)))
    with pytest.raises(ValueError, match=r"handles\[0\]: expected a row of box_at"):
        _core.read_rects(s, "rect", np.array([-1, 0]), np.zeros((2, 4)))
    with pytest.raises(ValueError, match="handles: expected 2"):
        _core.read_rects(s, "rect", np.array([0]), np.zeros((2, 4)))
    with pytest.raises(ValueError, match="expected both or neither"):
        _core.read_rects(s, "rect", np.array([0, 1]))
    objs = np.array([None, "a", "b"], object)
    assert _core.pick_pairs(objs, np.array([[1, 2], [2, 0]])) == [("a", "b"), ("b", None)]
    empty = np.ndarray((2,), object, buffer=bytearray(16))  # two empty (NULL) slots
    assert _core.pick_pairs(empty, np.array([[0, 1]])) == [(None, None)]
    with pytest.raises(TypeError, match="C-contiguous"):
        _core.pick_pairs(np.array(["a", "b", "c", "d"], object)[::2], np.array([[0, 1]]))
    with pytest.raises(ValueError, match=r"rows\[1\]: expected indices in \[0, 3\)"):
        _core.pick_pairs(objs, np.array([[1, 2], [3, 0]]))


def test_refresh_rects_moves_the_changed_and_refuses_what_is_not_its_own():
    import broadphase as bp

    tree = bp.LinearQuadtree((0, 0, 64, 64), 3)
    h = tree.insert([[0, 0, 1, 1], [5, 5, 6, 6]]).astype(np.int64)
    c = tree.insert_circles([[9, 9]], 1.0).astype(np.int64)
    box_at = np.array([[0, 0, 1, 1], [5, 5, 6, 6], [0, 0, 0, 0]], float)
    s = sprites_of([pygame.Rect(0, 0, 1, 1), pygame.Rect(0, 0, 7, 7)])
    after = _core.refresh_rects(tree._t, s, "rect", h, box_at)
    assert after.tolist() == [[0, 0, 1, 1], [0, 0, 7, 7], [0, 0, 0, 0]]
    assert box_at[1].tolist() == [5, 5, 6, 6]  # never written
    assert tree.boxes(h).tolist() == after[:2].tolist() and tree.pairs().tolist() == [[0, 1]]
    assert _core.refresh_rects(tree._t, s, "rect", h, after) is after  # nothing changed
    with pytest.raises(ValueError, match="handles: not the sprites' box objects"):
        _core.refresh_rects(tree._t, s, "rect", np.array([0, c[0]]), box_at)
    assert tree.boxes(h).tolist() == after[:2].tolist()  # nothing moved
    assert _core.refresh_rects(tree._t, [s[0], object()], "rect", h, box_at) is None


def test_the_index_reads_subclasses_and_names_the_sprite():
    a, b = pygame.sprite.Sprite(), pygame.sprite.Sprite()
    a.rect, b.rect = MyRect(0, 0, 10, 10), MyFRect(5, 5, 10, 10)
    index = SpriteIndex((0, 0, 64, 64), a, b)
    assert index.pairs() == [(a, b)]
    b.rect = "a rect"
    with pytest.raises(TypeError, match=r"sprites: <Sprite.*> has rect 'a rect'; expected"):
        index.refresh()
    assert index.pairs() == [(a, b)]
