"""find_circle_pairs against the exact Fraction reference, for every method."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import broadphase as bp
import naive
from helpers import assert_same

ALL_METHODS = ("auto",) + tuple(bp.METHODS)

# Powers of two keep exact tangency of integer configurations; the others
# reach other magnitudes (extreme ones: see test_extreme_magnitudes_match_exact).
SCALES = [1.0, 0.5, 2.0**-40, 2.0**40, 0.1, 3.0, 1e-100, 1e100]


@st.composite
def int_circles(draw, min_n=0, max_n=60):
    """Integer centres and half-integer radii: lots of exact tangencies.

    Centres differ by Pythagorean offsets (3, 4, 5), (5, 12, 13), (6, 8, 10),
    so tangency also happens off the axes.
    """
    n = draw(st.integers(min_n, max_n))
    coord = st.integers(-12, 12)
    rad = st.sampled_from([0, 0, 0.5, 1, 1, 1.5, 2, 2.5, 3, 4, 5, 6.5])
    base = draw(st.lists(st.tuples(coord, coord), min_size=1, max_size=max(1, n)))
    offs = [(0, 0), (3, 4), (-4, 3), (5, 12), (6, -8), (2, 0), (0, 1), (1, 1)]
    pts = []
    for _ in range(n):
        bx, by = draw(st.sampled_from(base))
        ox, oy = draw(st.sampled_from(offs))
        pts.append((bx + ox, by + oy))
    centers = np.array(pts, np.float64).reshape(-1, 2)
    radii = np.array(draw(st.lists(rad, min_size=n, max_size=n)), np.float64)
    s = draw(st.sampled_from(SCALES))
    off = draw(st.sampled_from([0.0, 0.0, -7.0, 1000.0]))
    return off * s + centers * s, radii * s


def _in_range(strategy):
    return strategy.filter(lambda v: v == 0 or 1e-40 < abs(v))


@st.composite
def near_tangent_circles(draw, min_n=2, max_n=30):
    """Pairs whose radii sum is within a few ulps of their distance."""
    n = draw(st.integers(min_n, max_n))
    f = _in_range(st.floats(-10, 10, allow_nan=False, allow_infinity=False))
    frac = st.one_of(st.just(0.0), st.floats(1e-6, 1.0))
    centers, radii = [], []
    for _ in range(0, n, 2):
        x, y, dx, dy = draw(f), draw(f), draw(f), draw(f)
        d = math.hypot(dx, dy)
        r1 = draw(frac) * d
        r2 = max(0.0, d - r1)
        for _ in range(draw(st.integers(-3, 3)) % 7):
            r2 = math.nextafter(r2, math.inf if draw(st.booleans()) else 0.0)
        centers += [(x, y), (x + dx, y + dy)]
        radii += [r1, max(r2, 0.0)]
    centers, radii = np.array(centers[:n]), np.array(radii[:n])
    mag = draw(st.sampled_from([1.0, 2.0**-30, 1e-50, 1e50]))
    return centers * mag, radii * mag


@st.composite
def float_circles(draw, min_n=0, max_n=60):
    n = draw(st.integers(min_n, max_n))
    f = _in_range(st.floats(-100, 100, allow_nan=False, allow_infinity=False))
    r = st.one_of(st.just(0.0),
                  _in_range(st.floats(0, 20, allow_nan=False, allow_infinity=False)))
    centers = np.array(draw(st.lists(st.tuples(f, f), min_size=n, max_size=n)),
                       np.float64).reshape(-1, 2)
    radii = np.array(draw(st.lists(r, min_size=n, max_size=n)), np.float64)
    return centers, radii


@pytest.mark.parametrize("method", ALL_METHODS)
@given(c=int_circles())
def test_int_circles_match_exact(method, c):
    centers, radii = c
    assert_same(bp.find_circle_pairs(centers, radii, method=method),
                naive.circle_pairs(centers, radii))


@pytest.mark.parametrize("method", ALL_METHODS)
@given(c=int_circles(min_n=48, max_n=90))
def test_int_circles_large_n_match_exact(method, c):
    centers, radii = c
    assert_same(bp.find_circle_pairs(centers, radii, method=method),
                naive.circle_pairs(centers, radii))


@pytest.mark.parametrize("method", ALL_METHODS)
@given(c=near_tangent_circles())
def test_near_tangent_match_exact(method, c):
    centers, radii = c
    assert_same(bp.find_circle_pairs(centers, radii, method=method),
                naive.circle_pairs(centers, radii))


@pytest.mark.parametrize("method", ALL_METHODS)
@given(c=float_circles())
def test_float_circles_match_exact(method, c):
    centers, radii = c
    assert_same(bp.find_circle_pairs(centers, radii, method=method),
                naive.circle_pairs(centers, radii))


@pytest.mark.parametrize("method", ALL_METHODS)
@given(c=int_circles(max_n=40), r=st.sampled_from([0.0, 0.5, 1.0, 2.5, 1e-3]))
def test_scalar_radius_equals_array(method, c, r):
    centers, _ = c
    n = len(centers)
    scalar = bp.find_circle_pairs(centers, r, method=method)
    array = bp.find_circle_pairs(centers, np.full(n, r), method=method)
    np.testing.assert_array_equal(scalar, array)
    assert_same(scalar, naive.circle_pairs(centers, np.full(n, r)))


# --------------------------------------------------------------------------
# hand-derived cases


def _exact_hit(c1, c2, r1, r2):
    """Independent exact test, written out here with Fractions."""
    dx = Fraction(c1[0]) - Fraction(c2[0])
    dy = Fraction(c1[1]) - Fraction(c2[1])
    s = Fraction(r1) + Fraction(r2)
    return dx * dx + dy * dy < s * s


@pytest.mark.parametrize("method", ALL_METHODS)
def test_docstring_examples(method):
    got = bp.find_circle_pairs([[0, 0], [3, 0], [10, 0]], [2, 1.5, 1], method=method)
    assert_same(got, [[0, 1]])  # 3 < 3.5; 7 > 2.5 + ... ; 10 > 3
    got = bp.find_circle_pairs([[0, 0], [2, 0]], [1.0, 1.0], method=method)
    assert_same(got, [])  # touching


@pytest.mark.parametrize("method", ALL_METHODS)
def test_docstring_example_scalar_radius(method):
    got = bp.find_circle_pairs([[0, 0], [2, 0]], 1.0, method=method)
    assert_same(got, [])  # touching
    got = bp.find_circle_pairs([[0, 0], [1.5, 0], [9, 9]], 1.0, method=method)
    assert_same(got, [[0, 1]])


@pytest.mark.parametrize("method", ALL_METHODS)
def test_scalar_radius_single_circle(method):
    assert bp.find_circle_pairs([[0, 0]], 1.0, method=method).shape == (0, 2)


@pytest.mark.parametrize("method", ALL_METHODS)
def test_tangent_off_axis(method):
    # distance 5 (3-4-5), 13 (5-12-13): tangent pairs excluded, 1 ulp more included
    centers = [[0, 0], [3, 4], [10, 10], [15, 22]]
    radii = [2, 3, 6, 7]
    # 0-1: d=5, s=5 tangent; 2-3: d=13, s=13 tangent; 1-2: d=sqrt(49+36)=9.22 < 9 ? no
    # 0-2: d=14.1 > 8; 1-3: d=sqrt(144+324)=21.6 > 10; 0-3: d>9
    assert_same(bp.find_circle_pairs(centers, radii, method=method), [])
    radii2 = [2, np.nextafter(3.0, 4.0), 6, 7]
    assert_same(bp.find_circle_pairs(centers, radii2, method=method), [[0, 1]])
    radii3 = [2, 3, np.nextafter(6.0, 0.0), np.nextafter(7.0, 8.0)]
    assert_same(bp.find_circle_pairs(centers, radii3, method=method), [])  # sum 13 - ulp + ulp?
    assert _exact_hit((10, 10), (15, 22), radii3[2], radii3[3]) == (
        Fraction(radii3[2]) + Fraction(radii3[3]) > 13)


@pytest.mark.parametrize("method", ALL_METHODS)
def test_zero_radius(method):
    centers = [[0, 0], [0, 0], [1, 0], [0.5, 0], [3, 3]]
    radii = [0, 0, 1, 0, 0]
    # 0-1 same point, radius 0: 0 < 0 false.  0-2: d=1, s=1 tangent: no.
    # 2-3: d=0.5 < 1: yes.  1-2 same as 0-2.  0-3: d=.5, s=0: no.
    assert_same(bp.find_circle_pairs(centers, radii, method=method), [[2, 3]])
    assert_same(bp.find_circle_pairs(centers, np.zeros(5), method=method), [])


@pytest.mark.parametrize("method", ALL_METHODS)
def test_rounding_regression_point3(method):
    # In float64, 0.1 + 0.2 > 0.3; exactly, too: the binary values are
    #   0.1 -> 0.1000000000000000055511151231257827...
    #   0.2 -> 0.2000000000000000111022302462515654...
    #   0.3 -> 0.2999999999999999888977697537484345...
    # so the sum exceeds the distance and the circles overlap.
    assert Fraction(0.1) + Fraction(0.2) > Fraction(0.3)
    expected = [[0, 1]] if _exact_hit((0, 0), (0.3, 0), 0.1, 0.2) else []
    assert expected == [[0, 1]]
    got = bp.find_circle_pairs([[0, 0], [0.3, 0]], [0.1, 0.2], method=method)
    assert_same(got, expected)
    # 0.15 + 0.15 is exactly the double 0.3: tangent, no pair.
    assert Fraction(0.15) * 2 == Fraction(0.3)
    got = bp.find_circle_pairs([[0, 0], [0.3, 0]], [0.15, 0.15], method=method)
    assert_same(got, [])


# Inputs where float arithmetic (d^2 < s^2 or hypot < s) and the exact answer
# disagree (found by a search comparing both ways); the expectation is derived
# with Fractions right here.
BORDERLINE = [
    ((0.61, 0.3), 0.192, 0.4877793759742936),
    ((0.59, 0.71), 0.395, 0.5281467922275417),
    ((0.6, 0.69), 0.3, 0.6143850392476902),
    ((0.3, 0.65), 0.2, 0.5158910531638177),
    ((0.37, 0.76), 0.421, 0.42428101836016646),
    ((0.845, 0.16), 0.5, 0.36001453476089573),
    ((0.0, 0.95), 0.32, 0.63),
    ((0.183, 0.14), 0.1, 0.13041050323281705),
    ((0.6, 0.2), 0.34, 0.29245553203367586),
]


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("c, r1, r2", BORDERLINE)
def test_rounding_borderline(method, c, r1, r2):
    expected = [[0, 1]] if _exact_hit((0.0, 0.0), c, r1, r2) else []
    got = bp.find_circle_pairs([[0.0, 0.0], list(c)], [r1, r2], method=method)
    assert_same(got, expected)
    # the same pair translated by a power of two and scaled stays exact
    cs = np.array([[0.0, 0.0], list(c)]) * 2.0**-20 + 0.5
    rs = np.array([r1, r2]) * 2.0**-20
    exp2 = [[0, 1]] if _exact_hit(cs[0], cs[1], rs[0], rs[1]) else []
    assert_same(bp.find_circle_pairs(cs, rs, method=method), exp2)


@pytest.mark.parametrize("method", ALL_METHODS)
def test_borderline_all_together(method):
    # many borderline pairs in one call, spread apart so only the pairs interact
    centers, radii = [], []
    for k, (c, r1, r2) in enumerate(BORDERLINE * 8):
        ox = 10.0 * k
        centers += [[ox, 0.0], [ox + c[0], c[1]]]
        radii += [r1, r2]
    centers = np.array(centers)
    assert_same(bp.find_circle_pairs(centers, radii, method=method),
                naive.circle_pairs(centers, radii))


@pytest.mark.parametrize("method", ALL_METHODS)
def test_ring_of_tangent_circles(method):
    # unit circles at integer lattice points: neighbours are tangent, never overlap
    i, j = np.meshgrid(np.arange(20.0), np.arange(20.0))
    centers = np.stack([2 * i.ravel(), 2 * j.ravel()], 1)
    n = len(centers)
    assert bp.find_circle_pairs(centers, np.ones(n), method=method).shape == (0, 2)
    # a hair larger: exactly the 4-neighbours (diagonals are at 2*sqrt2 > 2)
    r = np.full(n, np.nextafter(1.0, 2.0))
    got = bp.find_circle_pairs(centers, r, method=method)
    assert got.shape == (2 * 20 * 19, 2)
    assert_same(got, naive.circle_pairs(centers, r))


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("n", [0, 1])
def test_fewer_than_two_circles(method, n):
    got = bp.find_circle_pairs(np.zeros((n, 2)), np.ones(n), method=method)
    assert got.shape == (0, 2) and got.dtype == np.intp


# --------------------------------------------------------------------------
# library bugs: subnormal bounding-box extents (zero radius at the origin)

import subprocess  # noqa: E402
import sys  # noqa: E402
import textwrap  # noqa: E402

_SCRIPT = textwrap.dedent("""
    import warnings
    warnings.simplefilter("ignore")
    import numpy as np, broadphase as bp
    c = np.array({centers!r}, np.float64).reshape(-1, 2)
    r = np.array({radii!r}, np.float64)
    print(bp.find_circle_pairs(c, r, method={method!r}).tolist())
""")

ORIGIN_CASES = {
    # two zero-radius circles at the origin: d = 0, s = 0, no pair (0 < 0 false)
    "two_zero_radius": ([[0, 0], [0, 0]], [0, 0], []),
    # 59 zero-radius circles at the origin plus a unit circle at (3, 3):
    # distance sqrt(18) > 1, so no pairs at all (the 59 points never overlap)
    "many_points_and_one": ([[0, 0]] * 59 + [[3, 3]], [0] * 59 + [1], []),
}


def _origin_params():
    for case in ORIGIN_CASES:
        for method in ALL_METHODS:
            yield pytest.param(method, case, id=f"{method}-{case}")


@pytest.mark.parametrize("method, case", list(_origin_params()))
def test_zero_radius_at_origin_child_process(method, case):
    centers, radii, expected = ORIGIN_CASES[case]
    assert naive.circle_pairs(centers, radii).tolist() == expected
    code = _SCRIPT.format(centers=centers, radii=radii, method=method)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-500:])
    assert proc.stdout.strip() == repr(expected)


# --------------------------------------------------------------------------
# magnitudes from subnormal to the largest double, mixed in one pair: the
# exact expansion would underflow there, the integer fallback must not

EXTREME = [5e-324, 1e-310, 1e-300, 1e-200, 1e-130, 2.0**-60, 1.0, 3.0, 1e130, 1e200, 1e300,
           8.98846567431158e307]


@st.composite
def extreme_circles(draw):
    """A huge circle grazing tiny ones, and random circles over every magnitude."""
    mag = st.sampled_from(EXTREME)
    sign = st.sampled_from([1.0, -1.0])
    centers, radii = [], []
    for _ in range(draw(st.integers(1, 4))):
        big, small = draw(mag), draw(mag)
        x = draw(sign) * big
        # a point at distance about |x| from a circle of radius about |x|:
        # the tiny coordinate decides, and rounding of r can go either way
        r = abs(x - draw(sign) * small)
        if not math.isfinite(r):  # 2 * 9e307 overflows: no such circle
            r = big
        for _ in range(draw(st.integers(0, 2))):
            r = math.nextafter(r, math.inf if draw(st.booleans()) else 0.0)
        centers += [(x, 0.0), (0.0, draw(sign) * small) if draw(st.booleans()) else (small, 0.0)]
        radii += [r, draw(st.sampled_from([0.0, small]))]
    for _ in range(draw(st.integers(0, 4))):
        centers.append((draw(sign) * draw(mag), draw(sign) * draw(mag)))
        radii.append(draw(st.sampled_from([0.0, *EXTREME])))
    return np.array(centers, np.float64), np.array(radii, np.float64)


@pytest.mark.parametrize("method", ALL_METHODS)
@given(c=extreme_circles())
def test_extreme_magnitudes_match_exact(method, c):
    centers, radii = c
    assert_same(bp.find_circle_pairs(centers, radii, method=method),
                naive.circle_pairs(centers, radii))


@pytest.mark.parametrize("method", ALL_METHODS)
def test_huge_circle_grazing_tiny_point(method):
    # distance 1e200 - 1e-200 < radius 1e200: a pair, decided by 1e-200 alone
    for big, tiny in [(1e200, 1e-200), (1e300, 1e-300), (1e300, 5e-324)]:
        got = bp.find_circle_pairs([[big, 0], [tiny, 0]], [big, 0.0], method=method)
        assert got.tolist() == [[0, 1]]
        got = bp.find_circle_pairs([[big, 0], [-tiny, 0]], [big, 0.0], method=method)
        assert got.tolist() == []
