"""``find_swept_pairs`` and ``find_swept_circle_pairs`` against an exact reference in Fractions."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import broadphase as bp
import refs_casts as ref

moving = st.lists(st.tuples(st.integers(-6, 6), st.integers(-6, 6), st.integers(0, 3),
                            st.integers(0, 3), st.integers(-8, 8), st.integers(-8, 8)),
                  max_size=14)


def scaled(rows, k):
    start = [[x * k, y * k, (x + w) * k, (y + h) * k] for x, y, w, h, _, _ in rows]
    end = [[a + dx * k, b + dy * k, c + dx * k, d + dy * k]
           for (a, b, c, d), (*_, dx, dy) in zip(start, rows, strict=True)]
    return start, end


def reference(start, end, keep=lambda i, j: True):
    pairs, ts = [], []
    for i in range(len(start)):
        for j in range(i + 1, len(start)):
            if keep(i, j):
                t = ref.swept_boxes(start[i], end[i], start[j], end[j])
                if t is not None:
                    pairs.append([i, j])
                    ts.append(float(t))
    return pairs, ts


@settings(max_examples=300, deadline=None)
@given(moving, st.sampled_from([1.0, 0.5, 2.0**-1060, 2.0**990]))
def test_small_integers(rows, k):
    start, end = scaled(rows, k)
    pairs, t = bp.find_swept_pairs(np.array(start).reshape(-1, 4), np.array(end).reshape(-1, 4))
    assert pairs.dtype == np.intp and pairs.shape[1] == 2
    assert (pairs.tolist(), t.tolist()) == reference(start, end)


@settings(max_examples=100, deadline=None)
@given(moving, st.data())
def test_filters(rows, data):
    start, end = scaled(rows, 1.0)
    n = len(start)
    groups = data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    cats = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    masks = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))

    def keep(i, j):
        if groups[i] and groups[i] == groups[j]:
            return False
        return cats[i] & masks[j] != 0 and cats[j] & masks[i] != 0
    pairs, t = bp.find_swept_pairs(np.array(start).reshape(-1, 4), np.array(end).reshape(-1, 4),
                                   groups=groups, categories=cats, masks=masks)
    assert (pairs.tolist(), t.tolist()) == reference(start, end, keep)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_random_floats(seed):
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0, 100, (60, 2))
    start = np.hstack([xy, xy + rng.uniform(0, 8, (60, 2))])
    end = start + np.repeat(rng.normal(0, 10, (60, 2)), 2, axis=0).reshape(60, 4)
    pairs, t = bp.find_swept_pairs(start, end)
    assert (pairs.tolist(), t.tolist()) == reference(start.tolist(), end.tolist())


def test_nothing_moves_is_find_pairs():
    rng = np.random.default_rng(3)
    xy = rng.uniform(0, 1000, (5000, 2))
    boxes = np.hstack([xy, xy + rng.uniform(0, 20, (5000, 2))])
    pairs, t = bp.find_swept_pairs(boxes, boxes)
    np.testing.assert_array_equal(pairs, bp.find_pairs(boxes))
    assert (t == 0).all()
    one = bp.find_swept_pairs(boxes, boxes + 3.0, workers=1)
    many = bp.find_swept_pairs(boxes, boxes + 3.0)
    np.testing.assert_array_equal(one[0], many[0])
    np.testing.assert_array_equal(one[1], many[1])


def test_the_bullet_that_tunnels():
    bullet0, bullet1, wall = [0, 0, 4, 4], [40, 0, 44, 4], [20, -10, 23, 10]
    assert bp.find_pairs([bullet0, wall]).size == 0 and bp.find_pairs([bullet1, wall]).size == 0
    pairs, t = bp.find_swept_pairs([bullet0, wall], [bullet1, wall])
    assert pairs.tolist() == [[0, 1]] and t.tolist() == [0.4]
    # sliding along the wall's face never overlaps it
    pairs, _ = bp.find_swept_pairs([[16, -30, 20, -26], wall], [[16, 30, 20, 34], wall])
    assert pairs.size == 0


@settings(max_examples=200, deadline=None)
@given(moving)
def test_circles(rows):
    start, end = scaled(rows, 1.0)
    c0 = [[b[0], b[1]] for b in start]
    c1 = [[b[0], b[1]] for b in end]
    r = [(b[2] - b[0]) / 2 for b in start]
    want, wt = [], []
    for i in range(len(c0)):
        for j in range(i + 1, len(c0)):
            hit, t = ref.swept_circles(c0[i], c1[i], c0[j], c1[j], r[i], r[j])
            if hit:
                want.append([i, j])
                wt.append(float(t))
    pairs, t = bp.find_swept_circle_pairs(np.array(c0).reshape(-1, 2), np.array(c1).reshape(-1, 2),
                                          r)
    assert pairs.tolist() == want
    assert all(math.isclose(a, b, rel_tol=1e-9, abs_tol=0) for a, b in zip(t, wt, strict=True))
    # circles that do not move: find_circle_pairs
    pairs, t = bp.find_swept_circle_pairs(np.array(c0).reshape(-1, 2), np.array(c0).reshape(-1, 2),
                                          r)
    np.testing.assert_array_equal(pairs, bp.find_circle_pairs(np.array(c0).reshape(-1, 2), r))


# boxes whose size changes over the frame: start and end rows drawn apart
# (widths and heights 0 to 4: shrinking to a segment or a point, growing from one)
resized = st.lists(st.tuples(st.integers(-6, 6), st.integers(-6, 6), st.integers(0, 4),
                             st.integers(0, 4), st.integers(-6, 6), st.integers(-6, 6),
                             st.integers(0, 4), st.integers(0, 4)), max_size=14)


def resized_rows(rows, k):
    start = [[x * k, y * k, (x + w) * k, (y + h) * k] for x, y, w, h, *_ in rows]
    end = [[x * k, y * k, (x + w) * k, (y + h) * k] for *_, x, y, w, h in rows]
    return start, end


@settings(max_examples=300, deadline=None)
@given(resized, st.sampled_from([1.0, 0.5, 2.0**-1060, 2.0**990]))
def test_boxes_that_change_size(rows, k):
    start, end = resized_rows(rows, k)
    pairs, t = bp.find_swept_pairs(np.array(start).reshape(-1, 4), np.array(end).reshape(-1, 4))
    # the decision exact, t the Fraction rounded to the nearest double
    assert (pairs.tolist(), t.tolist()) == reference(start, end)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_boxes_that_change_size_random_floats(seed):
    rng = np.random.default_rng(seed)
    xy0, xy1 = rng.uniform(0, 60, (50, 2)), rng.uniform(0, 60, (50, 2))
    wh0, wh1 = rng.uniform(0, 10, (50, 2)), rng.uniform(0, 10, (50, 2))
    wh0[rng.random(50) < 0.2] = 0  # some grow from a point
    wh1[rng.random(50) < 0.2, 0] = 0  # some shrink to a segment
    start, end = np.hstack([xy0, xy0 + wh0]), np.hstack([xy1, xy1 + wh1])
    pairs, t = bp.find_swept_pairs(start, end)
    assert (pairs.tolist(), t.tolist()) == reference(start.tolist(), end.tolist())


def test_growing_from_a_point_and_shrinking_to_one():
    cases = [  # start a, end a, start b, end b, t or None
        ([0, 0, 0, 0], [-4, -4, 4, 4], [2, 2, 3, 3], [2, 2, 3, 3], 0.5),  # grows from a point
        ([0, 0, 4, 4], [1, 1, 1, 1], [3, 3, 5, 5], [3, 3, 5, 5], 0.0),    # shrinks, overlaps first
        ([0, 0, 4, 4], [2, 0, 2, 4], [2, 0, 3, 4], [2, 0, 3, 4], 0.0),    # to a segment on b's edge
        ([0, 0, 1, 1], [1, 1, 1, 1], [1, 1, 2, 2], [1, 1, 1, 1], None),   # both to one point
        ([0, 0, 8, 8], [6, 6, 6, 6], [7, 7, 9, 9], [9, 9, 9, 9], 0.0),
        ([0, 0, 2, 2], [3, 3, 3, 3], [4, 4, 4, 4], [0, 0, 4, 4], 0.4),    # meets one growing
        ([0, 0, 2, 2], [3, 1, 3, 1], [2.5, 0, 4, 2], [2.5, 0, 4, 2], 0.5),  # to a point inside b
    ]
    for a0, a1, b0, b1, want in cases:
        exact = ref.swept_boxes(a0, a1, b0, b1)
        assert (None if exact is None else float(exact)) == want, (a0, a1, b0, b1)
        pairs, t = bp.find_swept_pairs([a0, b0], [a1, b1])
        assert (pairs.tolist(), t.tolist()) == (([], []) if want is None else ([[0, 1]], [want]))


def test_t_can_round_up_to_one():
    # the box's right side passes the static box's left side at 1 - 2**-54, which
    # rounds (to even) to 1.0: t is in [0, 1], not [0, 1)
    a0, a1 = [-2.0**71, 0, -2.0**70, 1], [2.0**69, 0, 2.0**70, 1]
    wall = [2.0**70 - 2.0**17, 0, 2.0**71, 1]
    exact = ref.swept_boxes(a0, a1, wall, wall)
    assert exact == 1 - F(1, 2**54) and float(exact) == 1.0
    for rows0, rows1, want in (([a0, wall], [a1, wall], [[0, 1]]),
                               ([wall, a0], [wall, a1], [[0, 1]])):
        pairs, t = bp.find_swept_pairs(rows0, rows1)
        assert pairs.tolist() == want and t.tolist() == [1.0]
    # a step later it would not overlap at all
    a1_short = [2.0**69, 0, 2.0**70 - 2.0**17, 1]
    assert ref.swept_boxes(a0, a1_short, wall, wall) is None
    assert bp.find_swept_pairs([a0, wall], [a1_short, wall])[0].size == 0


CIRCLE_REL = 2.0**-36  # the documented bound on circles' t


def check_swept_circles(c0, c1, r, keep=lambda i, j: True, **filters):
    want = [[i, j] for i in range(len(c0)) for j in range(i + 1, len(c0))
            if keep(i, j) and ref.swept_circles(c0[i], c1[i], c0[j], c1[j], r[i], r[j])[0]]
    pairs, t = bp.find_swept_circle_pairs(np.array(c0).reshape(-1, 2), np.array(c1).reshape(-1, 2),
                                          r, **filters)
    assert pairs.dtype == np.intp and pairs.tolist() == want
    for (i, j), tk in zip(want, t.tolist(), strict=True):
        assert ref.swept_circles_within(c0[i], c1[i], c0[j], c1[j], r[i], r[j], tk, CIRCLE_REL)


def keep_of(groups, cats, masks):
    def keep(i, j):
        if groups[i] and groups[i] == groups[j]:
            return False
        return cats[i] & masks[j] != 0 and cats[j] & masks[i] != 0
    return keep


@settings(max_examples=150, deadline=None)
@given(moving, st.data())
def test_circles_filters(rows, data):
    start, end = scaled(rows, 1.0)
    c0 = [[b[0], b[1]] for b in start]
    c1 = [[b[0], b[1]] for b in end]
    r = [(b[2] - b[0]) / 2 for b in start]
    n = len(c0)
    groups = data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    cats = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    masks = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    check_swept_circles(c0, c1, r, keep_of(groups, cats, masks), groups=groups, categories=cats,
                        masks=masks)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1e-300, 1.0, 1e300]), st.data())
def test_circles_random_floats(seed, scale, data):
    rng = np.random.default_rng(seed)
    c0 = rng.uniform(0, 100, (40, 2)) * scale
    c1 = c0 + rng.normal(0, 15, (40, 2)) * scale
    r = rng.uniform(0, 5, 40) * scale
    c0, c1, r = c0.tolist(), c1.tolist(), r.tolist()
    check_swept_circles(c0, c1, r)
    groups = data.draw(st.lists(st.integers(0, 2), min_size=40, max_size=40))
    cats = data.draw(st.lists(st.integers(0, 3), min_size=40, max_size=40))
    masks = data.draw(st.lists(st.integers(0, 3), min_size=40, max_size=40))
    check_swept_circles(c0, c1, r, keep_of(groups, cats, masks), groups=groups, categories=cats,
                        masks=masks)


def test_circles_entering_late_within_the_bound():
    # head-on and grazing approaches that start to overlap near the frame's end
    rng = np.random.default_rng(5)
    c1 = rng.uniform(-1, 1, (60, 2))
    c0 = c1 - rng.normal(0, 20, (60, 2))
    check_swept_circles(c0.tolist(), c1.tolist(), rng.uniform(0.1, 0.6, 60).tolist())


@pytest.mark.parametrize("call, match", [
    (lambda: bp.find_swept_pairs([[0, 0, 1, 1]], [[0, 0, 1, 1], [0, 0, 1, 1]]), r"end: expected 1"),
    (lambda: bp.find_swept_pairs([[0, 0, 1, 1], [0, 0, 1, 1]], [[0, 0, 1, 1], [0, 3, 1, 1]]),
     r"end\[1\]: miny 3.0 > maxy 1.0"),
    (lambda: bp.find_swept_pairs([[0, 0, np.inf, 1]], [[0, 0, 1, 1]]), r"start\[0\]: maxx is inf"),
    (lambda: bp.find_swept_circle_pairs([[0, 0]], [[np.nan, 0]], 1), r"end_centers\[0\]: x is nan"),
    (lambda: bp.find_swept_circle_pairs([[0, 0]], [[0, 0]], -1), r"radii: expected a radius"),
])
def test_errors_name_the_argument_and_row(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_circles_meeting_at_the_end_of_the_frame_are_given_t_no_later_than_1():
    # the exact moment is just below 1; its estimate within 2**-36 may pass 1
    start = [[1.5492169287941464, -14.287273380746884], [0, 0]]
    end = [[0.5423253667082716, -0.8401685525088037], [0, 0]]
    pairs, t = bp.find_swept_circle_pairs(start, end, 0.5)
    assert pairs.tolist() == [[0, 1]] and 0 < t[0] <= 1.0
