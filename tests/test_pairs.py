"""find_pairs against the brute-force reference, for every method."""

import functools
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import broadphase as bp
import naive
from broadphase import scenarios
from helpers import assert_canonical, assert_same

ALL_METHODS = ("auto",) + tuple(bp.METHODS)


def test_methods_constant():
    assert bp.METHODS == ("brute", "sweep", "grid", "quadtree")


# --------------------------------------------------------------------------
# strategies

# Positive scale factors and offsets applied to integer grids: they keep the
# ties of the grid (shared edges, duplicates) in most cases and reach tiny and
# huge magnitudes.  The range stays well inside float64 (the tests at the end
# cover subnormal numbers and spans that overflow).
SCALES = [1.0, 0.5, 0.1, 3.0, 1e-9, 2.0**-60, 2.0**60, 1e-200, 1e200, 7e5]
OFFSETS = [0.0, -1000.0, 7.25, 1e6, -1e12, 0.1]


@st.composite
def int_grid_boxes(draw, min_n=0, max_n=90):
    """Boxes on a small integer grid: many shared edges, duplicates, points."""
    lo = draw(st.sampled_from([-6, -2, 0]))
    coord = st.integers(lo, 6)
    size = st.sampled_from([0, 0, 1, 1, 1, 2, 3, 14])  # 14 spans the whole grid
    pool = draw(st.lists(st.tuples(coord, coord, size, size), min_size=1, max_size=40))
    n = draw(st.integers(min_n, max_n))
    idx = draw(st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n))
    rows = np.array([pool[i] for i in idx], np.float64).reshape(-1, 4)
    x, y, w, h = rows.T
    s = draw(st.sampled_from(SCALES))
    off = draw(st.sampled_from(OFFSETS))
    boxes = np.stack([off + s * x, off + s * y, off + s * (x + w), off + s * (y + h)], 1)
    if draw(st.booleans()) and n:
        # a few huge boxes spanning everything
        k = draw(st.integers(1, 3))
        big = np.array([[off - s * 100, off - s * 100, off + s * 100, off + s * 100]])
        at = draw(st.lists(st.integers(0, n), min_size=k, max_size=k))
        for a in sorted(at, reverse=True):
            boxes = np.insert(boxes, a, big, axis=0)
    return np.ascontiguousarray(boxes.reshape(-1, 4))


@st.composite
def float_boxes(draw, min_n=0, max_n=80):
    """General floats, widths sometimes zero, magnitude varied per example."""
    n = draw(st.integers(min_n, max_n))
    mag = draw(st.sampled_from([1.0, 1e-150, 1e150, 1e-7, 1e9]))
    c = st.floats(-1000, 1000, allow_nan=False, allow_infinity=False)
    w = st.one_of(st.just(0.0), st.floats(0, 300, allow_nan=False, allow_infinity=False))
    rows = draw(st.lists(st.tuples(c, c, w, w), min_size=n, max_size=n))
    a = np.array(rows, np.float64).reshape(-1, 4) * mag
    boxes = np.stack([a[:, 0], a[:, 1], a[:, 0] + a[:, 2], a[:, 1] + a[:, 3]], 1)
    return np.ascontiguousarray(boxes.reshape(-1, 4))


# --------------------------------------------------------------------------
# property tests


@pytest.mark.parametrize("method", ALL_METHODS)
@given(boxes=int_grid_boxes())
def test_int_grid_boxes_match_naive(method, boxes):
    assert_same(bp.find_pairs(boxes, method=method), naive.box_pairs(boxes))


@pytest.mark.parametrize("method", ALL_METHODS)
@given(boxes=int_grid_boxes(min_n=48, max_n=160))
def test_int_grid_boxes_large_n_match_naive(method, boxes):
    # larger inputs: more shared edges and duplicates per example
    assert_same(bp.find_pairs(boxes, method=method), naive.box_pairs(boxes))


@pytest.mark.parametrize("method", ALL_METHODS)
@given(boxes=float_boxes())
def test_float_boxes_match_naive(method, boxes):
    assert_same(bp.find_pairs(boxes, method=method), naive.box_pairs(boxes))


@given(boxes=int_grid_boxes(max_n=60))
def test_all_methods_identical(boxes):
    results = [bp.find_pairs(boxes, method=m) for m in ALL_METHODS]
    for r in results:
        assert_canonical(r)
        np.testing.assert_array_equal(r, results[0])


# --------------------------------------------------------------------------
# hand-derived examples


@pytest.mark.parametrize("method", ALL_METHODS)
def test_worked_touching_example(method):
    # 0 and 1 overlap on [1,2]x[1,2]; 2 is far; 3 shares the edge x = 2 with 0
    # (and y = 1 with 1's corner region): touching only, no pair.
    boxes = np.array([[0, 0, 2, 2], [1, 1, 3, 3], [5, 5, 6, 6], [2, 0, 4, 1]], float)
    got = bp.find_pairs(boxes, method=method)
    assert_same(got, [[0, 1]])


@pytest.mark.parametrize("method", ALL_METHODS)
def test_zero_size_boxes(method):
    boxes = [
        [0, 0, 2, 2],  # 0 square
        [1, 1, 1, 1],  # 1 point strictly inside 0
        [2, 1, 2, 1],  # 2 point on the right edge of 0: no
        [1, 1, 1, 1],  # 3 same point as 1: not with 1 (points never overlap), but in 0
        [0.5, 3, 1.5, 3],  # 4 horizontal segment y=3
        [1, 2.5, 1, 3.5],  # 5 vertical segment crossing 4 at (1,3): overlap
        [1, 0, 1, 2],  # 6 vertical segment through 0's interior: overlaps 0
        [0, 0, 0, 2],  # 7 segment on 0's left edge: no
    ]
    # 6 vs 1: x 1<1 fails; 6 vs 5: x 1<1 fails; 4 vs 5: x .5<1,1<1.5; y 3<3.5,2.5<3 -> yes
    expected = [[0, 1], [0, 3], [0, 6], [4, 5]]
    assert_same(bp.find_pairs(boxes, method=method), expected)
    assert_same(naive.box_pairs(boxes), expected)


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("n", [0, 1])
def test_fewer_than_two_boxes(method, n):
    boxes = np.zeros((n, 4))
    got = bp.find_pairs(boxes, method=method)
    assert got.shape == (0, 2) and got.dtype == np.intp


@pytest.mark.parametrize("method", ALL_METHODS)
def test_empty_list_input(method):
    got = bp.find_pairs([], method=method)
    assert got.shape == (0, 2) and got.dtype == np.intp


@pytest.mark.parametrize("method", ALL_METHODS)
def test_no_pairs_shape(method):
    boxes = np.array([[i, 0, i + 1, 1] for i in range(100)], float)  # chain of touching
    got = bp.find_pairs(boxes, method=method)
    assert got.shape == (0, 2) and got.dtype == np.intp


@pytest.mark.parametrize("method", ALL_METHODS)
def test_chain_of_overlaps_hand_derived(method):
    # box i covers [i, i + 1.5]: overlaps i+1 only (i+2 starts at i+2 > i+1.5)
    n = 200
    boxes = np.array([[i, 0, i + 1.5, 1] for i in range(n)], float)
    expected = np.array([[i, i + 1] for i in range(n - 1)])
    assert_same(bp.find_pairs(boxes, method=method), expected)


# --------------------------------------------------------------------------
# named scenarios


@functools.cache
def _scenario(name, n, seed=0):
    boxes = scenarios.make(name, n, seed)
    return boxes, naive.box_pairs(boxes)


def test_scenario_names():
    assert set(scenarios.NAMES) == {
        "uniform", "clustered", "mixed", "straddlers", "elongated", "wide", "seed000", "outliers"}
    for name in scenarios.NAMES:
        b = scenarios.make(name, 50, seed=3)
        assert b.shape == (50, 4) and b.dtype == np.float64
        assert np.all(b[:, 0] <= b[:, 2]) and np.all(b[:, 1] <= b[:, 3])
        np.testing.assert_array_equal(b, scenarios.make(name, 50, seed=3))


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("name", scenarios.NAMES)
def test_scenarios_match_naive(name, method):
    boxes, expected = _scenario(name, 2000)
    assert len(expected) > 0
    assert_same(bp.find_pairs(boxes, method=method), expected)


# --------------------------------------------------------------------------
# adversarial distributions


def _identical(rng):
    return np.tile([[1.0, 2.0, 3.0, 5.0]], (400, 1))


def _all_points(rng):
    p = rng.integers(0, 8, (600, 2)).astype(float)
    return np.hstack([p, p])


def _points_and_boxes(rng):
    p = rng.integers(0, 8, (400, 2)).astype(float)
    pts = np.hstack([p, p])
    q = rng.integers(0, 8, (100, 2)).astype(float)
    bxs = np.hstack([q, q + rng.integers(0, 3, (100, 2))])
    return rng.permutation(np.vstack([pts, bxs]))


def _straddlers(rng):
    # world [0, 1]; tiny boxes centred on x = 0.5 or y = 0.5, plus background
    m = 600
    along = rng.uniform(0, 1, m)
    t = 0.004
    vertical = rng.random(m) < 0.5
    cx = np.where(vertical, 0.5, along)
    cy = np.where(vertical, along, 0.5)
    s = np.stack([cx - t, cy - t, cx + t, cy + t], 1)
    c = rng.uniform(0, 1, (400, 2))
    bg = np.hstack([c - 0.02, c + 0.02])
    exact = np.array([[0.5, 0.5, 0.5, 0.5], [0.25, 0.5, 0.75, 0.5], [0.5, 0, 0.5, 1]])
    return rng.permutation(np.vstack([s, bg, exact, [[0, 0, 1, 1]]]))


def _one_huge(rng):
    c = rng.uniform(0, 100, (800, 2))
    small = np.hstack([c, c + 0.5])
    return np.vstack([small[:300], [[-1e4, -1e4, 1e4, 1e4]], small[300:]])


def _far_apart(rng):
    a = rng.uniform(-1e12, -1e12 + 10, (300, 2))
    b = rng.uniform(1e12, 1e12 + 10, (300, 2))
    c = np.vstack([a, b, [[0.0, 0.0], [-3e11, 5e11]]])
    return rng.permutation(np.hstack([c, c + 1.0]))


def _outside_lines(rng):
    # boxes spread over a huge range with most of the world empty
    c = np.concatenate([rng.uniform(0, 1, 300), rng.uniform(1e9, 1e9 + 1, 300)])
    y = rng.uniform(0, 1, 600)
    return np.stack([c, y, c + 0.01, y + 0.01], 1)


def _collinear_diagonal(rng):
    t = np.sort(rng.uniform(0, 100, 700))
    return np.stack([t, t, t + 0.3, t + 0.3], 1)


def _collinear_horizontal(rng):
    # zero-height segments on one line never overlap (y0 < y1' fails);
    # thin boxes on the same line overlap when their x ranges do
    x = rng.integers(0, 200, 500).astype(float)
    seg = np.stack([x, np.full(500, 3.0), x + 2, np.full(500, 3.0)], 1)
    x2 = rng.integers(0, 200, 300).astype(float)
    thin = np.stack([x2, np.full(300, 2.5), x2 + 1, np.full(300, 3.5)], 1)
    return rng.permutation(np.vstack([seg, thin]))


def _tilings(rng):
    i, j = np.meshgrid(np.arange(25.0), np.arange(25.0))
    i, j = i.ravel(), j.ravel()
    tiles = np.stack([i, j, i + 1, j + 1], 1)  # touching only
    shifted = tiles[:300] + 0.5
    return np.vstack([tiles, shifted])


def _negative_quadrant(rng):
    c = rng.integers(-50, 0, (700, 2)).astype(float)
    return np.hstack([c, c + rng.integers(0, 3, (700, 2))])


ADVERSARIAL = {
    f.__name__.lstrip("_"): f
    for f in [_identical, _all_points, _points_and_boxes, _straddlers, _one_huge, _far_apart,
              _outside_lines, _collinear_diagonal, _collinear_horizontal, _tilings,
              _negative_quadrant]
}


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("kind", list(ADVERSARIAL))
def test_adversarial_match_naive(kind, method):
    boxes = ADVERSARIAL[kind](np.random.default_rng(12345))
    assert_same(bp.find_pairs(boxes, method=method), naive.box_pairs(boxes))


def test_adversarial_hand_counts():
    # independent of naive: identical boxes give every pair, points none
    n = 400
    got = bp.find_pairs(np.tile([[1.0, 2.0, 3.0, 5.0]], (n, 1)), method="quadtree")
    assert got.shape == (n * (n - 1) // 2, 2)
    pts = _all_points(np.random.default_rng(0))
    for m in ALL_METHODS:
        assert bp.find_pairs(pts, method=m).shape == (0, 2)
    tiles = _tilings(np.random.default_rng(0))[:625]
    for m in ALL_METHODS:
        assert bp.find_pairs(tiles, method=m).shape == (0, 2)


# --------------------------------------------------------------------------
# extreme magnitudes (regressions: world spans that overflow, subnormal worlds)

@pytest.mark.parametrize("method", [
    "brute",
    "sweep",
    "grid",
    "quadtree",
])
def test_world_span_overflowing_float64(method):
    # Finite coordinates, but maxx - minx = 3.4e308 is not representable.
    boxes = np.array([[-1.7e308, -1.7e308, 1.7e308, 1.7e308], [0, 0, 1, 1]])
    with np.errstate(all="ignore"):
        got = bp.find_pairs(boxes, method=method)
    assert_same(got, [[0, 1]])


@pytest.mark.parametrize("method", [
    "brute",
    "sweep",
    "grid",
    "quadtree",
    "auto",
])
def test_far_apart_near_float_max(method):
    rng = np.random.default_rng(5)
    c = np.vstack([rng.uniform(-1e308, -0.99e308, (40, 2)), rng.uniform(0.99e308, 1e308, (40, 2))])
    boxes = np.hstack([c, c + 1e305])
    with np.errstate(all="ignore"):
        got = bp.find_pairs(boxes, method=method)
    assert_same(got, naive.box_pairs(boxes))


_SUBNORMAL_SCRIPT = textwrap.dedent("""
    import sys, warnings
    warnings.simplefilter("ignore")
    import numpy as np, broadphase as bp
    boxes = np.array({boxes!r}, np.float64)
    print(bp.find_pairs(boxes, method={method!r}).tolist())
""")

@pytest.mark.parametrize("boxes, expected", [
    ([[0, 0, 1e-310, 1e-310], [0, 0, 1e-310, 1e-310]], [[0, 1]]),
    ([[0, 0, 5e-324, 5e-324], [0, 0, 1e-323, 1e-323]], [[0, 1]]),
    ([[0, 0, 1e-310, 1e-310], [5e-311, 5e-311, 2e-310, 2e-310]], [[0, 1]]),
])
@pytest.mark.parametrize("method", [
    "brute", "sweep", "auto", "grid",
    "quadtree",
])
def test_subnormal_coordinates(method, boxes, expected):
    # run in a child process: this once crashed the interpreter
    code = _SUBNORMAL_SCRIPT.format(boxes=boxes, method=method)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-500:])
    assert proc.stdout.strip() == repr(expected)
    assert naive.box_pairs(boxes).tolist() == expected


def test_cell_count_beyond_int64_grid():
    # 8,300 specks set the grid to its finest depth, where each of 8,200
    # world-sized boxes covers 2**50 cells: their total wraps int64.  One
    # group keeps the answer empty (and the test light), but every box is
    # still placed; an earlier call leaves scratch buffers behind, which a
    # negative size once sliced into a crash.
    rng = np.random.default_rng(0)
    c = rng.uniform(0, 1, (8300, 2))
    boxes = np.vstack([np.hstack([c, c + 1e-9]), np.tile([[0.0, 0.0, 1.0, 1.0]], (8200, 1))])
    bp.find_pairs(boxes[:5000], method="grid")
    got = bp.find_pairs(boxes, method="grid", groups=np.ones(len(boxes), np.int64))
    assert got.shape == (0, 2)
    # without the group: every speck in every big box, the big boxes pairwise
    small = np.vstack([boxes[:3], boxes[-3:]])
    assert_same(bp.find_pairs(small, method="grid"), naive.box_pairs(small))


@pytest.mark.parametrize("method", ALL_METHODS)
def test_long_rows_match_naive(method):
    # A few world-sized boxes (first, middle, last) meet nearly every other:
    # rows of ~5000 partners take the canonical sort's long-row path (radix
    # sort from 4096 on), rows of 9..32 its insertion sort.
    rng = np.random.default_rng(5)
    n = 5000
    c = rng.uniform(0, 100, (n, 2))
    side = rng.uniform(0.5, 6.0, (n, 1))
    boxes = np.hstack([c, c + side])
    for k in (0, 1, 2500, n - 1):
        boxes[k] = [-1, -1, 200, 200]
    ref = naive.box_pairs(boxes)
    rows = np.bincount(ref[:, 0], minlength=n)
    assert rows.max() >= 4096 and ((rows > 8) & (rows <= 32)).any()
    assert_same(bp.find_pairs(boxes, method=method), ref)


@pytest.mark.parametrize("method", ["auto", "sweep", "grid", "quadtree"])
def test_far_outliers_exact(method):
    # the grid is placed from where the data is; the far points still count
    b = scenarios.make("outliers", 3000, seed=2)
    b = np.vstack([b, [[-1e20, 0.0, 1e20, 500.0], [2e19, 2e19, 3e20, 3e20],
                       [1e20 - 1, 1e20 - 1, 1e20 + 1, 1e20 + 1]]])
    assert_same(bp.find_pairs(b, method=method), naive.box_pairs(b))


def test_minus_zero_does_not_inflate_the_count_of_pairs():
    # 1,500 boxes at -0.0 .. 1 (all overlapping) and 1,500 segments at x = 0 (overlapping
    # nothing: -0.0 < 0.0 is false): the count that decides a MemoryError (when the pairs
    # may not fit) counted the box-segment pairs too; a limit at the true count must pass
    from broadphase import _core

    n = 1500
    boxes = np.ascontiguousarray(np.concatenate([np.tile([-0.0, 0.0, 1.0, 1.0], (n, 1)),
                                                 np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))]))
    true = n * (n - 1) // 2
    for method in ("grid", "quadtree", "auto"):
        assert len(_core.find_pairs(boxes, method, max_pairs=true)) == true
    with pytest.raises(MemoryError, match=f"{true:,} colliding pairs"):
        _core.find_pairs(boxes, "grid", max_pairs=true - 1)
