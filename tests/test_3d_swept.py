"""3D ``find_swept_pairs`` and ``find_swept_circle_pairs`` against an exact reference in Fractions.

The reference is written here, once over the dimension (it reads ``len(row) // 2`` axes),
and shares nothing with the library: two boxes moving linearly overlap strictly at ``s``
when, on every axis, each one's high side is above the other's low side, ``2 D`` linear
constraints ``a + b s > 0`` whose common set on ``[0, 1]`` is an interval found from its
bounds; two spheres overlap when ``|p + s v|^2 < r^2``, decided from the quadratic's least
value on ``[0, 1]``.  Every float is a Fraction exactly, so the decisions are exact; a box
pair's ``t`` must be the Fraction rounded to the nearest float64, a sphere pair's must lie
within the documented relative ``2**-36`` of the exact entry (checked exactly too).
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import broadphase as bp

try:
    import pandas as pd
except ImportError:  # pragma: no cover - pandas is optional
    pd = None

needs_pandas = pytest.mark.skipif(pd is None, reason="needs pandas")

# ---------------------------------------------------------------- the reference


def linear_inf(cons):
    """Infimum of ``{s in [0, 1] : a + b s > 0 for every (a, b)}`` (a Fraction), or None."""
    low, low_open, high, high_open = F(0), False, F(1), False
    for a, b in cons:
        if b == 0:
            if a <= 0:
                return None
            continue
        r = -a / b
        if b > 0 and (r > low or (r == low and not low_open)):
            low, low_open = r, True
        if b < 0 and (r < high or (r == high and not high_open)):
            high, high_open = r, True
    return low if low < high else None


def box_t(a0, a1, b0, b1):
    """When boxes moving from a0 to a1 and from b0 to b1 first overlap strictly, or None."""
    a0, a1, b0, b1 = ([F(v) for v in x] for x in (a0, a1, b0, b1))
    d = len(a0) // 2
    cons = []
    for k in range(d):
        for h0, h1, l0, l1 in ((b0, b1, a0, a1), (a0, a1, b0, b1)):
            # hi(s) - lo(s) > 0, each side moving linearly
            cons.append((h0[d + k] - l0[k], (h1[d + k] - h0[d + k]) - (l1[k] - l0[k])))
    return linear_inf(cons)


def sphere_abc(c0a, c1a, c0b, c1b, ra, rb):
    """``A, B, C`` of ``f(s) = A s^2 + 2 B s + C = |p + s v|^2 - (ra + rb)^2``."""
    c0a, c1a, c0b, c1b = ([F(v) for v in x] for x in (c0a, c1a, c0b, c1b))
    p = [x - y for x, y in zip(c0a, c0b, strict=True)]
    v = [(x1 - x0) - (y1 - y0) for x0, x1, y0, y1 in zip(c0a, c1a, c0b, c1b, strict=True)]
    r = F(ra) + F(rb)
    dot = lambda x, y: sum((s * t for s, t in zip(x, y, strict=True)), F(0))  # noqa: E731
    return dot(v, v), dot(p, v), dot(p, p) - r * r


def sphere_hit(abc):
    """Whether ``f < 0`` somewhere on ``[0, 1]``: its least value there is negative."""
    a, b, c = abc
    if c < 0:
        return True
    if a == 0:
        return False
    s = min(max(F(0), -b / a), F(1))  # the vertex, clamped
    return a * s * s + 2 * b * s + c < 0


def sphere_t_within(abc, t, rel=F(1, 2**36)):
    """Whether the float ``t`` is within a relative ``rel`` of the entry, exactly.

    The entry is 0 (``C <= 0``) or the smaller root ``s-`` of ``f``, which falls from
    ``f(0) = C > 0`` to the vertex ``w = -B/A`` past ``s-``: ``lo <= s-`` exactly when
    ``lo < w`` and ``f(lo) >= 0``, ``s- <= hi`` exactly when ``hi >= w`` or ``f(hi) <= 0``.
    """
    a, b, c = abc
    t = F(t)
    if c <= 0:
        return t == 0
    f = lambda s: a * s * s + 2 * b * s + c  # noqa: E731
    w = -b / a
    lo, hi = t / (1 + rel), t / (1 - rel)
    return t > 0 and lo < w and f(lo) >= 0 and (hi >= w or f(hi) <= 0)


def keep_of(groups, cats, masks):
    """The filter rule of ``find_pairs`` (all pass for None)."""
    def keep(i, j):
        if groups is not None and groups[i] and groups[i] == groups[j]:
            return False
        if cats is None:
            return True
        return cats[i] & masks[j] != 0 and cats[j] & masks[i] != 0
    return keep


def box_reference(start, end, keep=lambda i, j: True):
    pairs, ts = [], []
    for i in range(len(start)):
        for j in range(i + 1, len(start)):
            t = box_t(start[i], end[i], start[j], end[j]) if keep(i, j) else None
            if t is not None:
                pairs.append([i, j])
                ts.append(float(t))  # the Fraction correctly rounded
    return pairs, ts


def check_boxes(start, end, keep=lambda i, j: True, **kw):
    start, end = np.asarray(start, np.float64), np.asarray(end, np.float64)
    pairs, t = bp.find_swept_pairs(start, end, **kw)
    assert pairs.dtype == np.intp and pairs.shape[1:] == (2,) and t.dtype == np.float64
    assert (pairs.tolist(), t.tolist()) == box_reference(start.tolist(), end.tolist(), keep)


def check_spheres(c0, c1, r, keep=lambda i, j: True, **kw):
    pairs, t = bp.find_swept_circle_pairs(np.asarray(c0, np.float64).reshape(-1, 3),
                                          np.asarray(c1, np.float64).reshape(-1, 3), r, **kw)
    assert pairs.dtype == np.intp and pairs.shape[1:] == (2,)
    want = []
    for i in range(len(c0)):
        for j in range(i + 1, len(c0)):
            if keep(i, j) and sphere_hit(sphere_abc(c0[i], c1[i], c0[j], c1[j], r[i], r[j])):
                want.append([i, j])
    assert pairs.tolist() == want
    for (i, j), tk in zip(want, t.tolist(), strict=True):
        assert 0 <= tk <= 1
        assert sphere_t_within(sphere_abc(c0[i], c1[i], c0[j], c1[j], r[i], r[j]), tk), (i, j, tk)


# ---------------------------------------------------------------- boxes

# per box: corner, size, motion of the corner, change of size (each on x, y, z)
moving = st.lists(st.tuples(*[st.integers(-6, 6)] * 3, *[st.integers(0, 3)] * 3,
                            *[st.integers(-8, 8)] * 3, *[st.integers(-2, 2)] * 3),
                  max_size=14)


def rows_of(raw, k):
    start = [[v * k for v in (*r[0:3], *(r[i] + r[i + 3] for i in range(3)))] for r in raw]
    end = []
    for r in raw:
        lo = [r[i] + r[6 + i] for i in range(3)]
        size = [max(0, r[3 + i] + r[9 + i]) for i in range(3)]
        end.append([v * k for v in (*lo, *(lo[i] + size[i] for i in range(3)))])
    return start, end


@settings(max_examples=200, deadline=None)
@given(moving, st.sampled_from([1.0, 0.5, 2.0**-1060, 2.0**990]))
def test_small_integers(raw, k):
    start, end = rows_of(raw, k)
    check_boxes(np.array(start).reshape(-1, 6), np.array(end).reshape(-1, 6))


@settings(max_examples=80, deadline=None)
@given(moving, st.data())
def test_filters(raw, data):
    start, end = rows_of(raw, 1.0)
    n = len(start)
    groups = data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    cats = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    masks = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    check_boxes(np.array(start).reshape(-1, 6), np.array(end).reshape(-1, 6),
                keep_of(groups, cats, masks), groups=groups, categories=cats, masks=masks)
    check_boxes(np.array(start).reshape(-1, 6), np.array(end).reshape(-1, 6),
                keep_of(groups, None, None), groups=groups)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_random_floats(seed):
    rng = np.random.default_rng(seed)
    lo0, lo1 = rng.uniform(0, 40, (50, 3)), rng.uniform(0, 40, (50, 3))
    size0, size1 = rng.uniform(0, 8, (50, 3)), rng.uniform(0, 8, (50, 3))
    size1[rng.random(50) < 0.2] = 0  # some shrink to a point
    moves = rng.random(50) < 0.5  # half of them keep their size and move
    lo1[moves] = lo0[moves] + rng.normal(0, 10, (moves.sum(), 3))
    size1[moves] = size0[moves]
    check_boxes(np.hstack([lo0, lo0 + size0]), np.hstack([lo1, lo1 + size1]))


def test_touching_and_grazing():
    cube = [0, 0, 0, 1, 1, 1]
    cases = [  # start a, end a, start b, end b, t or None
        ([2, 0, 0, 3, 1, 1], [1, 0, 0, 2, 1, 1], cube, cube, None),  # comes to touch a face
        ([1, 0, 0, 2, 1, 1], [3, 0, 0, 4, 1, 1], cube, cube, None),  # touching, leaves
        ([-3, 0, 1, -2, 1, 2], [3, 0, 1, 4, 1, 2], cube, cube, None),  # slides over the top face
        ([-3, 1, 1, -2, 2, 2], [3, 1, 1, 4, 2, 2], cube, cube, None),  # along an edge
        ([-2, -2, -2, -1, -1, -1], [2, 2, 2, 3, 3, 3], cube, cube, 0.25),  # diagonal, through
        ([-3, -1, 0, -2, 0, 1], [1, 3, 0, 2, 4, 1], cube, cube, None),  # meets an edge at s = 1/2
        ([-2, 0, 2, -1, 1, 3], [-0.5, 0, 1, 0.5, 1, 2], cube, cube, None),  # lands on the top face
        ([-2, 0, 2, -1, 1, 3], [-0.5, 0, 0.5, 0.5, 1, 2], cube, cube, 2 / 3),  # grows into it
        ([0.5] * 3 + [0.6] * 3, [5] * 6, cube, cube, 0.0),  # inside at the start
        ([-3, 0, 0, -2, 1, 1], [-3, 0, 0, -2, 1, 1], cube, cube, None),  # still, apart
        ([0, 0, 5, 1, 1, 6], [0, 0, -5, 1, 1, -4], cube, cube, 0.4),  # z alone moves
        ([0, 0, 5, 1, 1, 6], [0, 0, 1, 1, 1, 2], cube, cube, None),  # z alone, to touch
    ]
    for a0, a1, b0, b1, want in cases:
        exact = box_t(a0, a1, b0, b1)
        assert (None if exact is None else float(exact)) == want, (a0, a1, b0, b1)
        for order in ((0, 1), (1, 0)):
            s, e = [(a0, b0)[o] for o in order], [(a1, b1)[o] for o in order]
            pairs, t = bp.find_swept_pairs(s, e)
            assert (pairs.tolist(), t.tolist()) == (([], []) if want is None
                                                    else ([[0, 1]], [want])), (a0, a1, order)


def test_signed_zeros_and_huge_coordinates():
    m = np.finfo(np.float64).max
    cases = [
        # -0.0 and 0.0 are one value: touching at 0, never inside
        ([-1, -1, -1, -0.0, 1, 1], [-1, -1, -1, 0.0, 1, 1], [0.0, -1, -1, 1, 1, 1],
         [-0.0, -1, -1, 1, 1, 1]),
        ([-2, -1, -1, -1, 1, 1], [-0.0, -1, -1, 1, 1, 1], [0.0, -1, -1, 1, 1, 1],
         [0.0, -1, -1, 1, 1, 1]),
        # from one end of float64 to the other: every motion overflows in floating point
        ([-m, -m, -m, -m / 2, -m / 2, -m / 2], [m / 2, m / 2, m / 2, m, m, m],
         [-1, -1, -1, 1, 1, 1], [-1, -1, -1, 1, 1, 1]),
        ([-m, 0, 0, -m / 2, 1, 1], [m / 2, 0, 0, m, 1, 1], [0, 1, 0, 1, 2, 1],
         [0, 1, 0, 1, 2, 1]),  # touching in y the whole way
        ([-m, -m, -m, m, m, m], [-m, -m, -m, m, m, m], [-m, -m, m, m, m, m],
         [m, m, -m, m, m, m]),  # a flat box sweeping z through the whole space
        # tiny: subnormal sizes and motions
        ([0, 0, 0, 5e-324, 5e-324, 5e-324], [1e-323, 0, 0, 1.5e-323, 5e-324, 5e-324],
         [1e-323, 0, 0, 2e-323, 1e-323, 1e-323], [1e-323, 0, 0, 2e-323, 1e-323, 1e-323]),
    ]
    for a0, a1, b0, b1 in cases:
        check_boxes([a0, b0], [a1, b1])
        check_boxes([b0, a0], [b1, a1])


def test_t_can_round_up_to_one():
    # the right side passes the wall's left side at 1 - 2**-54, which rounds to 1.0
    a0, a1 = [-2.0**71, 0, 0, -2.0**70, 1, 1], [2.0**69, 0, 0, 2.0**70, 1, 1]
    wall = [2.0**70 - 2.0**17, 0, 0, 2.0**71, 1, 1]
    assert box_t(a0, a1, wall, wall) == 1 - F(1, 2**54)
    pairs, t = bp.find_swept_pairs([a0, wall], [a1, wall])
    assert pairs.tolist() == [[0, 1]] and t.tolist() == [1.0]


def test_nothing_moves_is_find_pairs():
    rng = np.random.default_rng(3)
    lo = rng.uniform(0, 200, (4000, 3))
    boxes = np.hstack([lo, lo + rng.uniform(0, 12, (4000, 3))])
    pairs, t = bp.find_swept_pairs(boxes, boxes)
    assert len(pairs) > 100
    np.testing.assert_array_equal(pairs, bp.find_pairs(boxes))
    assert (t == 0).all()
    one = bp.find_swept_pairs(boxes, boxes + 3.0, workers=1)
    many = bp.find_swept_pairs(boxes, boxes + 3.0, workers=3)
    np.testing.assert_array_equal(one[0], many[0])
    np.testing.assert_array_equal(one[1], many[1])


def test_formats_tables_and_empty():
    start = [[0, 0, 0, 1, 1, 1], [3, 0, 0, 4, 1, 1]]
    end = [[0, 0, 0, 1, 1, 1], [0.5, 0, 0, 1.5, 1, 1]]
    want = box_reference(start, end)
    assert want == ([[0, 1]], [0.8])  # 3 - 2.5 s < 1 from s = 2 / 2.5
    got = bp.find_swept_pairs(start, end)
    assert (got[0].tolist(), got[1].tolist()) == want
    xywh = lambda rows: [r[:3] + [r[3 + k] - r[k] for k in range(3)] for r in rows]  # noqa: E731
    got = bp.find_swept_pairs(xywh(start), xywh(end), format="xywh")
    assert (got[0].tolist(), got[1].tolist()) == want
    for empty in ([], np.empty((0, 6))):
        pairs, t = bp.find_swept_pairs(empty, np.empty((0, 6)))
        assert pairs.shape == (0, 2) and pairs.dtype == np.intp and t.shape == (0,)
    pairs, _ = bp.find_swept_circle_pairs(np.empty((0, 3)), np.empty((0, 3)), 1.0)
    assert pairs.shape == (0, 2) and pairs.dtype == np.intp


@needs_pandas
def test_tables():
    start = [[0, 0, 0, 1, 1, 1], [3, 0, 0, 4, 1, 1]]
    end = [[0, 0, 0, 1, 1, 1], [0.5, 0, 0, 1.5, 1, 1]]
    columns = ["maxz", "minx", "miny", "minz", "maxx", "maxy"]  # any order: read by name

    def table(rows):
        return pd.DataFrame({c: [r[k] for r in rows] for k, c in enumerate(
            ["minx", "miny", "minz", "maxx", "maxy", "maxz"])})[columns]
    got = bp.find_swept_pairs(table(start), table(end))
    assert (got[0].tolist(), got[1].tolist()) == ([[0, 1]], [0.8])
    got = bp.find_swept_circle_pairs(pd.DataFrame({"x": [0, 3], "y": 0, "z": [0, 0], "r": 1}),
                                     [[0, 0, 0], [0.5, 0, 0]])
    assert (got[0].tolist(), got[1].tolist()) == ([[0, 1]], [0.4])


@pytest.mark.parametrize("call, match", [
    (lambda: bp.find_swept_pairs([[0, 0, 0, 1, 1, 1]], [[0, 0, 0, 1, 1, 1]] * 2),
     r"end: expected 1 rows"),
    (lambda: bp.find_swept_pairs([[0, 0, 0, 1, 1, 1]] * 2,
                                 [[0, 0, 0, 1, 1, 1], [0, 0, 3, 1, 1, 1]]),
     r"end\[1\]: minz 3.0 > maxz 1.0"),
    (lambda: bp.find_swept_pairs([[0, 0, 0, 1, 1, np.inf]], [[0, 0, 0, 1, 1, 1]]),
     r"start\[0\]: maxz is inf"),
    (lambda: bp.find_swept_pairs([[0, 0, 0, 1, 1, 1]], [[0, 0, 1, 1]]),
     r"start and end: expected boxes of one dimension, found 3D start"),
    (lambda: bp.find_swept_pairs([[0, 0, 0, 1, 1, 1]], [[0, 0, 0, 1, 1, 1]], groups=[1, 2]),
     r"groups: expected a scalar or shape \(1,\)"),
    (lambda: bp.find_swept_circle_pairs([[0, 0, 0]], [[0, 0, np.nan]], 1),
     r"end_centers\[0\]: z is nan"),
    (lambda: bp.find_swept_circle_pairs([[0, 0, 0]], [[0, 0]], 1),
     r"end_centers: expected shape \(n, 3\)"),
    (lambda: bp.find_swept_circle_pairs([[0, 0, 0], [1, 1, 1]], [[0, 0, 0], [1, 1, 1]], [1, -1]),
     r"radii\[1\]: expected a radius >= 0"),
    (lambda: bp.find_swept_circle_pairs([[0, 0, np.inf]], [[0, 0, 0]], 1),
     r"^start_centers\[0\]: z is inf"),
])
def test_errors_name_the_argument_and_row(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ---------------------------------------------------------------- spheres


def sphere_rows(raw, k):
    c0 = [[r[i] * k for i in range(3)] for r in raw]
    c1 = [[(r[i] + r[6 + i]) * k for i in range(3)] for r in raw]
    radii = [r[3] * k / 2 for r in raw]
    return c0, c1, radii


@settings(max_examples=150, deadline=None)
@given(moving, st.sampled_from([1.0, 0.5, 2.0**-1060, 2.0**990]))
def test_spheres_small_integers(raw, k):
    check_spheres(*sphere_rows(raw, k))


@settings(max_examples=60, deadline=None)
@given(moving, st.data())
def test_spheres_filters(raw, data):
    c0, c1, r = sphere_rows(raw, 1.0)
    n = len(c0)
    groups = data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    cats = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    masks = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    check_spheres(c0, c1, r, keep_of(groups, cats, masks), groups=groups, categories=cats,
                  masks=masks)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1e-300, 1.0, 1e300]))
def test_spheres_random_floats(seed, scale):
    rng = np.random.default_rng(seed)
    c0 = rng.uniform(0, 60, (40, 3)) * scale
    c1 = c0 + rng.normal(0, 15, (40, 3)) * scale
    r = rng.uniform(0, 5, 40) * scale
    check_spheres(c0.tolist(), c1.tolist(), r.tolist())


def test_spheres_grazing_inside_and_still():
    # tangent passes (distance exactly the sum of the radii) are no pair: 3-4-5 triangles
    c0 = [[0, 0, 0], [3, 4, -10], [3, 4, -10], [0, 0, 0.5], [40, 40, 40]]
    c1 = [[0, 0, 0], [3, 4, 10], [3, 4 - 2**-40, 10], [7, 0, 0.5], [40, 40, 40]]
    r = [2, 3, 3, 1, 1]
    # 0 and 1 graze; 0 and 2 come 2**-40 closer: a pair; 0 and 3 start inside
    check_spheres(c0, c1, r)
    pairs, t = bp.find_swept_circle_pairs(c0, c1, r)
    assert [0, 1] not in pairs.tolist() and [0, 2] in pairs.tolist()
    assert t[pairs.tolist().index([0, 3])] == 0.0
    # nothing moves: the pairs of find_circle_pairs, at t = 0
    rng = np.random.default_rng(4)
    c = rng.uniform(0, 100, (3000, 3))
    radii = rng.uniform(0, 3, 3000)
    pairs, t = bp.find_swept_circle_pairs(c, c, radii)
    assert len(pairs) > 100 and (t == 0).all()
    np.testing.assert_array_equal(pairs, bp.find_circle_pairs(c, radii))
    one = bp.find_swept_circle_pairs(c, c + 2.0, radii, workers=1)
    many = bp.find_swept_circle_pairs(c, c + 2.0, radii, workers=3)
    np.testing.assert_array_equal(one[0], many[0])
    np.testing.assert_array_equal(one[1], many[1])


def test_sphere_entry_within_its_bound():
    # head-on and grazing approaches that start to overlap at irrational moments
    rng = np.random.default_rng(5)
    c1 = rng.uniform(-1, 1, (50, 3))
    c0 = c1 - rng.normal(0, 20, (50, 3))
    check_spheres(c0.tolist(), c1.tolist(), rng.uniform(0.1, 0.6, 50).tolist())
    # the exact entry of |(-10 + 20 s, 1, 0)| < 2 is (10 - sqrt 3) / 20
    pairs, t = bp.find_swept_circle_pairs([[-10, 1, 0], [0, 0, 0]], [[10, 1, 0], [0, 0, 0]], 1.0)
    assert pairs.tolist() == [[0, 1]]
    assert math.isclose(t[0], (10 - math.sqrt(3)) / 20, rel_tol=2**-36)
