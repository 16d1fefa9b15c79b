"""``find_swept_pairs`` and ``find_swept_circle_pairs`` against an exact reference in Fractions."""

from __future__ import annotations

import math

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
