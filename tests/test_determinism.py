"""Same answer for any thread count, repeated calls, and every method, at n = 20000."""

import functools

import numpy as np
import pytest

import broadphase as bp
from broadphase import scenarios
from helpers import assert_canonical

N = 20000
FAST = ("sweep", "grid", "quadtree")


@functools.cache
def _reference(name):
    """The sweep answer, itself checked against the other fast methods below."""
    boxes = scenarios.make(name, N)
    return boxes, bp.find_pairs(boxes, method="sweep", workers=1)


@pytest.mark.parametrize("method", FAST + ("auto",))
@pytest.mark.parametrize("name", scenarios.NAMES)
def test_workers_and_repeats(name, method):
    boxes, ref = _reference(name)
    assert len(ref) > N // 2  # scenes give a few pairs per box
    one = bp.find_pairs(boxes, method=method, workers=1)
    two = bp.find_pairs(boxes, method=method, workers=2)
    again = bp.find_pairs(boxes, method=method, workers=2)
    default = bp.find_pairs(boxes, method=method)
    for r in (one, two, again, default):
        assert_canonical(r)
        np.testing.assert_array_equal(r, ref)


@pytest.mark.parametrize("name", scenarios.NAMES)
def test_brute_at_full_size(name):
    boxes, ref = _reference(name)
    for w in (1, 2):
        np.testing.assert_array_equal(bp.find_pairs(boxes, method="brute", workers=w), ref)


@pytest.mark.parametrize("method", FAST)
def test_circles_and_filters_workers(method):
    boxes = scenarios.make("clustered", N, seed=1)
    centers = (boxes[:, :2] + boxes[:, 2:]) / 2
    r = (boxes[:, 2] - boxes[:, 0]) * np.random.default_rng(1).uniform(0.2, 0.8, N)
    g = np.arange(N) % 11
    c = (np.uint64(1) << (np.arange(N) % 5).astype(np.uint64)).astype(np.uint64)
    m = (np.arange(N) % 31 + 1).astype(np.uint64)
    kw = dict(groups=g, categories=c, masks=m)
    results = [bp.find_circle_pairs(centers, r, method=mm, workers=w, **kw)
               for mm in FAST for w in (1, 2)]
    results += [bp.find_pairs(boxes, method=method, workers=w, **kw) for w in (1, 2)]
    for x in results[1:len(FAST) * 2]:
        np.testing.assert_array_equal(x, results[0])
    assert len(results[0]) > 0
    np.testing.assert_array_equal(results[-1], results[-2])


@pytest.mark.parametrize("method", FAST)
def test_between_workers(method):
    a = scenarios.make("mixed", N // 2, seed=2)
    b = scenarios.make("elongated", N // 2, seed=3)
    ref = bp.find_pairs_between(a, b, method="sweep", workers=1)
    assert len(ref) > 0
    for w in (1, 2):
        got = bp.find_pairs_between(a, b, method=method, workers=w)
        assert_canonical(got, between=True)
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("workers", [1, 2, 3, None])
def test_first_bad_row_for_any_workers(workers):
    # the input scan runs in chunks on several threads: the first bad row wins
    boxes = scenarios.make("uniform", 200_000)
    boxes[150_000, 0] = np.nan
    boxes[70_001, 1] = boxes[70_001, 3] + 1.0
    boxes[199_999, 0] = boxes[199_999, 2] + 1.0
    with pytest.raises(ValueError, match=r"^boxes\[70001\]: miny .* > maxy"):
        bp.find_pairs(boxes, workers=workers)
    circles = boxes[:, :2].copy()
    radii = np.full(len(boxes), 0.5)
    radii[123_457] = -1.0
    circles[180_000, 1] = np.inf
    with pytest.raises(ValueError, match=r"^radii\[123457\]: expected a radius >= 0"):
        bp.find_circle_pairs(circles, radii, workers=workers)
