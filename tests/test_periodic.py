"""Periodic domains, distances, vectors and point pairs, against exact references.

The references shift copies by whole periods in Python Fractions, so no
rounding decides a pair: boxes overlap when on every axis some shift of one
interval meets the other strictly; balls when the sum over the axes of the
least squared shifted difference is below the squared sum of the radii.
"""

from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import broadphase as bp

SPAN = 70  # coordinates within ±35: copies shifted by up to 70 cover every meeting


def nearest_copy(pts, pairs, period):
    """Vectors from ``i`` to ``j`` by the nearest copy, per axis, in NumPy (the reference)."""
    delta = pts[pairs[:, 1]] - pts[pairs[:, 0]]
    for k, length in enumerate(period):
        if length is not None:
            delta[:, k] -= np.round(delta[:, k] / length) * length
    return delta


def _shifts(length):
    if length is None:
        return (0,)
    k = int(SPAN / length) + 2
    return range(-k, k + 1)


def boxes_meet(a, b, period):
    d = len(a) // 2
    for k in range(d):
        lo_a, hi_a, lo_b, hi_b = (F(v) for v in (a[k], a[d + k], b[k], b[d + k]))
        length = None if period[k] is None else F(period[k])
        if not any(lo_a + s * length < hi_b and lo_b < hi_a + s * length if length else
                   lo_a < hi_b and lo_b < hi_a for s in _shifts(period[k])):
            return False
    return True


def balls_meet(a, b, period):
    d = len(a) - 1
    total = F(0)
    for k in range(d):
        length = period[k]
        diffs = [F(a[k]) + s * F(length) - F(b[k]) if length is not None else F(a[k]) - F(b[k])
                 for s in _shifts(length)]
        total += min(x * x for x in diffs)
    return total < (F(a[d]) + F(b[d])) ** 2


def reference(rows, meet, period):
    return [[i, j] for i in range(len(rows)) for j in range(i + 1, len(rows))
            if meet(rows[i], rows[j], period)]


coordinate = st.one_of(
    st.integers(-24, 24).map(lambda k: k / 4),
    st.sampled_from([0.0, -0.0, 10.0, np.nextafter(10.0, 0), 1e-300, -1e-300, 9.999, 0.001]),
    st.floats(-30, 30, allow_nan=False, width=64),
)


def periods(d):
    return st.lists(st.sampled_from([10.0, 7.5, None, 3.0]), min_size=d, max_size=d)


@st.composite
def periodic_boxes(draw, d):
    period = draw(periods(d))
    n = draw(st.integers(0, 14))
    rows = []
    for _ in range(n):
        lo = [draw(coordinate) for _ in range(d)]
        hi = []
        for k in range(d):
            most = period[k] / 2 if period[k] is not None else 5.0
            w = draw(st.sampled_from([0.0, most, most / 3]) | st.floats(0, most))
            top = lo[k] + w
            while F(top) - F(lo[k]) > F(most):  # the sum rounded above half the period
                top = np.nextafter(top, -np.inf)
            hi.append(max(top, lo[k]))
        rows.append(lo + hi)
    return rows, period


@st.composite
def periodic_balls(draw, d):
    period = draw(periods(d))
    n = draw(st.integers(0, 14))
    most = min([p / 4 for p in period if p is not None] + [3.0])
    rows = [[draw(coordinate) for _ in range(d)] + [draw(st.sampled_from([0.0, most]) |
                                                         st.floats(0, most))]
            for _ in range(n)]
    return rows, period


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([2, 3]).flatmap(periodic_boxes))
def test_periodic_boxes_equal_copies_in_fractions(case):
    rows, period = case
    want = reference(rows, boxes_meet, period)
    arr = np.array(rows, np.float64).reshape(-1, 2 * len(period))
    for method in ("auto", *bp.METHODS):
        assert bp.find_pairs(arr, period=period, method=method).tolist() == want, method


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([2, 3]).flatmap(periodic_balls))
def test_periodic_balls_equal_copies_in_fractions(case):
    rows, period = case
    want = reference(rows, balls_meet, period)
    arr = np.array(rows, np.float64).reshape(-1, len(period) + 1)
    for method in ("auto", *bp.METHODS):
        got = bp.find_circle_pairs(arr[:, :-1], arr[:, -1], period=period, method=method)
        assert got.tolist() == want, method


@pytest.mark.parametrize("d", [2, 3])
def test_one_radius_many_points_equal_every_method(d):
    # the cell list (auto, one radius) against the box searches, both periodic and open
    rng = np.random.default_rng(d)
    pts = rng.random((3000, d)) * 10
    pts[::7] = np.round(pts[::7] * 4) / 4  # lattice points: exact ties at the cutoff
    pts[::11] -= 10  # coordinates below 0
    for period in (10.0, None):
        want = bp.find_circle_pairs(pts, 0.25, period=period, method="grid")
        got = bp.find_point_pairs(pts, 0.5, period=period)
        assert np.array_equal(got, want)
        assert np.array_equal(bp.find_circle_pairs(pts, 0.25, period=period, method="sweep"), want)


def test_point_pairs_equal_ckdtree_with_boxsize():
    spatial = pytest.importorskip("scipy.spatial")
    rng = np.random.default_rng(5)
    pts = rng.random((20_000, 3))
    cut = 0.03
    want = spatial.cKDTree(pts, boxsize=1.0).query_pairs(cut, output_type="ndarray")
    want = want[np.lexsort((want[:, 1], want[:, 0]))]
    assert np.array_equal(bp.find_point_pairs(pts, cut, period=1.0), want)


def test_point_pairs_exact_at_the_cutoff():
    # 0.1 + 0.2 is 0.30000000000000004: 0 and 0.3 are exactly the cutoff apart (no pair),
    # 0 and 0.1 + 0.2 a little more (no pair), 0.3 and 0.1 + 0.2 very close
    pts = [[0.0, 0.0], [0.3, 0.0], [0.1 + 0.2, 0.0]]
    assert bp.find_point_pairs(pts, 0.3).tolist() == [[1, 2]]
    assert bp.find_point_pairs(pts, 0.1 + 0.2).tolist() == [[0, 1], [1, 2]]
    # across the boundary of a period 1: 0.95 and 0.05 are about 0.1 apart
    for cut in (0.1, np.nextafter(0.1, 1), np.nextafter(0.1, 0)):
        got = bp.find_point_pairs([[0.95, 0], [0.05, 0]], cut, period=(1, None))
        exact = F(0.05) + 1 - F(0.95)
        assert got.tolist() == ([[0, 1]] if exact < F(cut) else []), cut


@pytest.mark.parametrize("d", [2, 3])
def test_distances_and_vectors_are_the_nearest_copy(d):
    rng = np.random.default_rng(11 + d)
    pts = rng.random((4000, d)) * 20 - 5  # inside and outside [0, L)
    period = [10.0] * (d - 1) + [None]
    pairs, dist, vec = bp.find_point_pairs(pts, 0.6, period=period, return_distances=True,
                                           return_vectors=True)
    assert len(pairs) and dist.shape == (len(pairs),) and vec.shape == (len(pairs), d)
    delta = nearest_copy(pts, pairs, period)
    np.testing.assert_allclose(vec, delta, atol=1e-12)
    np.testing.assert_allclose(dist, np.sqrt((delta ** 2).sum(1)), atol=1e-12)
    assert (dist < 0.6 + 1e-12).all()
    alone, only_d = bp.find_circle_pairs(pts, 0.3, period=period, return_distances=True)
    assert np.array_equal(alone, pairs) and np.array_equal(only_d, dist)
    _, only_v = bp.find_circle_pairs(pts, 0.3, period=period, return_vectors=True)
    assert np.array_equal(only_v, vec)
    # radii that differ: measured after the search, the same values
    radii = np.full(len(pts), 0.3)
    radii[0] = 0.2999
    p2, d2, v2 = bp.find_circle_pairs(pts, radii, period=period, return_distances=True,
                                      return_vectors=True)
    delta = nearest_copy(pts, p2, period)
    np.testing.assert_allclose(v2, delta, atol=1e-12)
    np.testing.assert_allclose(d2, np.sqrt((delta ** 2).sum(1)), atol=1e-12)
    # few points (brute force) and a named method take that path too
    for kw in ({"method": "grid"}, {}):
        p3, d3 = bp.find_point_pairs(pts[:50], 3.0, period=period, return_distances=True, **kw)
        delta = nearest_copy(pts[:50], p3, period)
        np.testing.assert_allclose(d3, np.sqrt((delta ** 2).sum(1)), atol=1e-12)


@pytest.mark.parametrize("d", [2, 3])
def test_distances_of_centres_inside_the_cell_read_the_centres_only(d):
    # every coordinate in [0, L): the pairs read the rows as given (no wrapped copies),
    # whose last value is a radius, never a coordinate
    rng = np.random.default_rng(21 + d)
    pts = rng.random((3000, d)) * 10
    period = [10.0] * (d - 1) + [None]
    radii = rng.uniform(0.1, 0.4, len(pts))
    pairs, dist, vec = bp.find_circle_pairs(pts, radii, period=period,
                                            return_distances=True, return_vectors=True)
    assert len(pairs)
    delta = nearest_copy(pts, pairs, period)
    np.testing.assert_allclose(vec, delta, rtol=0, atol=1e-12)
    np.testing.assert_allclose(dist, np.sqrt((delta ** 2).sum(1)), rtol=0, atol=1e-12)
    assert (dist < radii[pairs[:, 0]] + radii[pairs[:, 1]] + 1e-12).all()


def test_between_is_periodic_too():
    a = [[9, 0, 11, 1], [4, 4, 5, 5]]
    b = [[0.5, 0.2, 1.5, 0.8], [4.5, 4.5, 4.6, 4.6], [20.5, 0.2, 20.6, 0.3]]
    assert bp.find_pairs_between(a, b, period=(10, None)).tolist() == [[0, 0], [0, 2], [1, 1]]
    assert bp.find_pairs_between(a, b).tolist() == [[1, 1]]


def test_filters_apply_to_the_objects():
    boxes = [[9, 0, 11, 1], [0.5, 0, 1.5, 1], [0.2, 0, 0.6, 1]]
    assert bp.find_pairs(boxes, period=10, groups=[5, 5, 0]).tolist() == [[0, 2], [1, 2]]
    pts = np.random.default_rng(1).random((500, 2))
    groups = np.arange(500) % 2
    every = bp.find_point_pairs(pts, 0.05, period=1.0)
    kept = every[(groups[every[:, 0]] == 0) | (groups[every[:, 0]] != groups[every[:, 1]])]
    assert np.array_equal(bp.find_point_pairs(pts, 0.05, period=1.0, groups=groups), kept)


def test_errors_name_the_argument_and_row():
    with pytest.raises(ValueError, match=r"boxes\[1\]: spans 6.0 on the periodic y axis"):
        bp.find_pairs([[0, 0, 1, 1], [0, 0, 1, 6]], period=10)
    with pytest.raises(ValueError, match=r"radii\[1\]: a diameter of 6.0"):
        bp.find_circle_pairs([[0, 0], [1, 1]], [1, 3], period=10)
    with pytest.raises(ValueError, match=r"boxes_b\[0\]: spans"):
        bp.find_pairs_between([[0, 0, 1, 1]], [[0, 0, 9, 1]], period=(10, None))
    with pytest.raises(ValueError, match="cutoff: 6.0 is more than half the period"):
        bp.find_point_pairs([[0, 0], [1, 1]], 6, period=10)
    with pytest.raises(ValueError, match=r"period: expected .* found 3 values for 2D"):
        bp.find_pairs([[0, 0, 1, 1]], period=(1, 2, 3))
    with pytest.raises(ValueError, match=r"period\[1\]: expected"):
        bp.find_pairs([[0, 0, 1, 1]], period=(1, -2))
    with pytest.raises(ValueError, match=r"period\[0\]: expected"):
        bp.find_pairs([[0, 0, 1, 1]], period=(np.inf, None))
    with pytest.raises(TypeError, match=r"period\[0\]"):
        bp.find_pairs([[0, 0, 1, 1]], period=(True, None))
    with pytest.raises(ValueError, match="cutoff: expected a finite number >= 0"):
        bp.find_point_pairs([[0, 0]], -1)
    with pytest.raises(TypeError, match="return_distances: expected True or False"):
        bp.find_circle_pairs([[0, 0]], 1, return_distances=1)
    # exactly half the period is taken
    assert bp.find_pairs([[0, 0, 5, 1]], period=10).tolist() == []


def test_inputs_are_not_modified():
    pts = np.random.default_rng(2).random((2000, 3)) * 30 - 10
    before = pts.copy()
    bp.find_point_pairs(pts, 0.5, period=10.0, return_vectors=True)
    assert np.array_equal(pts, before)
