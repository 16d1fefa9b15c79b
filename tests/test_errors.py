"""Bad inputs raise naming the argument and row; good inputs of any layout work."""

import re

import numpy as np
import pytest

import broadphase as bp
import naive
from broadphase import scenarios
from helpers import assert_same

ALL_METHODS = ("auto",) + tuple(bp.METHODS)


def _good(n=30):
    return scenarios.make("uniform", n, seed=7)


def _with_row(row, values, n=30):
    b = _good(n)
    b[row] = values
    return b


# --------------------------------------------------------------------------
# boxes


@pytest.mark.parametrize("method", ALL_METHODS)
def test_minx_greater_than_maxx(method):
    b = _with_row(17, [5.0, 0.0, 2.0, 1.0])
    with pytest.raises(ValueError, match=re.escape("boxes[17]: minx 5.0 > maxx 2.0")):
        bp.find_pairs(b, method=method)


def test_miny_greater_than_maxy():
    b = _with_row(3, [0.0, 4.5, 1.0, 1.0])
    with pytest.raises(ValueError, match=re.escape("boxes[3]: miny 4.5 > maxy 1.0")):
        bp.find_pairs(b)


@pytest.mark.parametrize("col, name", list(enumerate(["minx", "miny", "maxx", "maxy"])))
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_not_finite(col, name, bad):
    b = _good()
    b[21, col] = bad
    with pytest.raises(ValueError, match=rf"boxes\[21\]: {name} is .*finite"):
        bp.find_pairs(b)


@pytest.mark.parametrize("workers", [1, 2, None])
def test_first_bad_row_is_named(workers):
    b = np.tile([[0.0, 0.0, 1.0, 1.0]], (70000, 1))  # spans several validation chunks
    b[66000] = [3, 0, 1, 1]
    b[40000, 1] = np.nan
    b[50000] = [0, 2, 1, 1]
    with pytest.raises(ValueError, match=r"boxes\[40000\]: miny is nan"):
        bp.find_pairs(b, workers=workers)


@pytest.mark.parametrize("shape", [(5, 3), (5, 5), (4,), (2, 4, 1), (1, 2, 4), (5, 0), (0, 3)])
def test_wrong_shape(shape):
    with pytest.raises(ValueError, match=r"boxes: expected shape \(n, 4\).*found shape"):
        bp.find_pairs(np.zeros(shape))


def test_ragged_lists():
    with pytest.raises(ValueError, match=r"boxes"):
        bp.find_pairs([[0, 0, 1, 1], [0, 0, 1]])


@pytest.mark.parametrize("value", [
    [["a", "b", "c", "d"]],
    np.array([[1, 2, 3, 4]], dtype="U3"),
    [[object(), 0, 1, 1]],
    np.zeros((2, 4), complex),
    np.zeros((2, 4), bool),
])
def test_non_numbers(value):
    with pytest.raises(TypeError, match=r"boxes"):
        bp.find_pairs(value)


def test_none_in_lists():
    with pytest.raises(TypeError, match=re.escape("boxes[1]: expected real numbers, found None")):
        bp.find_pairs([[0, 0, 1, 1], [None, 0, 1, 1]])


@pytest.mark.parametrize("call", [
    lambda: bp.find_pairs(None),
    lambda: bp.find_circle_pairs(None, 1.0),
    lambda: bp.find_circle_pairs([[0, 0], [1, 1]], None),
    lambda: bp.find_pairs_between([[0, 0, 1, 1]], None),
])
def test_none_is_not_a_number(call):
    with pytest.raises(TypeError, match=r"expected real numbers, found None"):
        call()


def test_none_in_radii():
    with pytest.raises(TypeError, match=re.escape("radii[1]: expected real numbers, found None")):
        bp.find_circle_pairs([[0, 0], [1, 1]], [1.0, None])


def test_huge_integers_refused():
    b = np.array([[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 2**60, 1]], np.int64)
    with pytest.raises(ValueError, match=re.escape("boxes[2]: integers up to 2**53")):
        bp.find_pairs(b)


def test_python_ints_beyond_int64_refused():
    # NumPy holds these in an object array; float64 would round them silently
    with pytest.raises(ValueError, match=re.escape(f"boxes[1]: integers up to 2**53 in magnitude "
                                                   f"expected (float64 holds them exactly), "
                                                   f"found {2**70 + 1}")):
        bp.find_pairs([[0, 0, 1, 1], [0, 0, 2**70 + 1, 1]])


@pytest.mark.skipif(np.finfo(np.longdouble).nmant <= 52, reason="longdouble is float64 here")
def test_longdouble_that_would_round_names_the_row():
    b = np.array([[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 1, 1]], np.longdouble)
    b[2, 2] = np.longdouble(1) / 3
    with pytest.raises(ValueError, match=r"boxes\[2\]: values exactly representable in float64"):
        bp.find_pairs(b)


@pytest.mark.parametrize("method", ["fast", "", "Brute", "AUTO", None, 3])
def test_unknown_method(method):
    with pytest.raises(ValueError, match=r"method") as info:
        bp.find_pairs(_good(), method=method)
    for name in ("auto",) + tuple(bp.METHODS):
        assert repr(name) in str(info.value)


@pytest.mark.parametrize("func", ["pairs", "circles", "between"])
@pytest.mark.parametrize("workers, exc", [(0, ValueError), (-1, ValueError),
                                          (1.5, TypeError), (True, TypeError),
                                          ("2", TypeError)])
def test_bad_workers(func, workers, exc):
    b = _good()
    with pytest.raises(exc, match=r"workers"):
        if func == "pairs":
            bp.find_pairs(b, workers=workers)
        elif func == "circles":
            bp.find_circle_pairs(b[:, :2], np.ones(len(b)), workers=workers)
        else:
            bp.find_pairs_between(b, b, workers=workers)


def test_numpy_int_workers_accepted():
    b = _good()
    np.testing.assert_array_equal(bp.find_pairs(b, workers=np.int64(1)), naive.box_pairs(b))


@pytest.mark.parametrize("which", ["a", "b"])
def test_between_names_the_argument(which):
    good, bad = _good(), _with_row(2, [0, 0, -1, 1])
    a, b = (bad, good) if which == "a" else (good, bad)
    with pytest.raises(ValueError, match=re.escape(f"boxes_{which}[2]: minx 0.0 > maxx -1.0")):
        bp.find_pairs_between(a, b)
    with pytest.raises(ValueError, match=rf"boxes_{which}: expected shape"):
        bp.find_pairs_between(*((np.zeros((3, 2)), good) if which == "a"
                                else (good, np.zeros((3, 2)))))
    with pytest.raises(ValueError, match=r"method"):
        bp.find_pairs_between(good, good, method="nope")


# --------------------------------------------------------------------------
# circles


def test_negative_radius():
    c = _good()[:, :2]
    r = np.ones(len(c))
    r[9] = -0.5
    with pytest.raises(ValueError, match=re.escape("radii[9]: expected a radius >= 0, found -0.5")):
        bp.find_circle_pairs(c, r)


def test_negative_scalar_radius():
    # whatever the scalar handling, a negative scalar must be refused naming radii
    with pytest.raises(ValueError, match=r"radii"):
        bp.find_circle_pairs(_good()[:, :2], -1.0)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_radius_not_finite(bad):
    c = _good()[:, :2]
    r = np.ones(len(c))
    r[4] = bad
    with pytest.raises(ValueError, match=r"radii\[4\]: expected a finite radius"):
        bp.find_circle_pairs(c, r)


@pytest.mark.parametrize("col, name", [(0, "x"), (1, "y")])
def test_center_not_finite(col, name):
    c = _good()[:, :2].copy()
    c[11, col] = np.nan
    with pytest.raises(ValueError, match=rf"centers\[11\]: {name} is nan"):
        bp.find_circle_pairs(c, np.ones(len(c)))


@pytest.mark.parametrize("shape", [(29,), (31,), (30, 1), (1, 30)])
def test_radii_length_mismatch(shape):
    with pytest.raises(ValueError, match=r"radii: expected a scalar or shape \(30,\)"):
        bp.find_circle_pairs(_good()[:, :2], np.ones(shape))


@pytest.mark.parametrize("shape", [(5, 1), (5,), (5, 4)])  # (5, 3): spheres' centres
def test_centers_wrong_shape(shape):
    with pytest.raises(ValueError, match=r"centers: expected shape \(n, 2\)"):
        bp.find_circle_pairs(np.zeros(shape), np.ones(5))


def test_centers_and_radii_non_numbers():
    with pytest.raises(TypeError, match=r"centers"):
        bp.find_circle_pairs([["a", "b"]], [1.0])
    with pytest.raises(TypeError, match=r"radii"):
        bp.find_circle_pairs([[0, 0]], ["x"])


# --------------------------------------------------------------------------
# groups / categories / masks


@pytest.mark.parametrize("name", ["groups", "categories", "masks"])
@pytest.mark.parametrize("func", ["pairs", "circles"])
def test_filter_length_mismatch(name, func):
    b = _good()
    kw = {name: np.ones(29, np.int64)}
    with pytest.raises(ValueError, match=rf"{name}: expected a scalar or shape \(30,\)"):
        if func == "pairs":
            bp.find_pairs(b, **kw)
        else:
            bp.find_circle_pairs(b[:, :2], np.ones(30), **kw)


@pytest.mark.parametrize("name", ["categories", "masks"])
def test_negative_bits(name):
    v = np.ones(30, np.int64)
    v[12] = -3
    with pytest.raises(ValueError, match=rf"{name}\[12\]: expected bits as a non-negative"):
        bp.find_pairs(_good(), **{name: v})


@pytest.mark.parametrize("name", ["groups", "categories", "masks"])
@pytest.mark.parametrize("value", [np.full(30, 0.5), np.array(["a"] * 30), np.full(30, np.nan)])
def test_filter_non_integers(name, value):
    with pytest.raises(TypeError, match=name):
        bp.find_pairs(_good(), **{name: value})


@pytest.mark.parametrize("value, exc, message", [
    ([2**64] + [1] * 29, ValueError, f"masks[0]: expected bits as a non-negative integer below "
                                     f"2**64, found {2**64}"),
    ([1] * 29 + [-1], ValueError, "masks[29]: expected bits as a non-negative integer, found -1"),
    ([1] * 29 + [1.5], TypeError, "masks[29]: expected an integer, found 1.5"),
    ([1] * 29 + [None], TypeError, "masks[29]: expected an integer, found None"),
])
def test_mask_lists_checked_element_by_element(value, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        bp.find_pairs(_good(), masks=value)


@pytest.mark.parametrize("value", [[2**63] + [1] * 29, np.full(30, 2**63, np.uint64)])
def test_groups_beyond_int64_refused(value):
    with pytest.raises(ValueError, match=re.escape("groups[0]: expected an integer")):
        bp.find_pairs(_good(), groups=value)


# --------------------------------------------------------------------------
# inputs are not modified; read-only inputs work


@pytest.mark.parametrize("method", ALL_METHODS)
def test_inputs_not_modified(method):
    rng = np.random.default_rng(0)
    b = scenarios.make("mixed", 300, seed=1)
    g = rng.integers(0, 5, 300)
    c = rng.integers(0, 8, 300).astype(np.uint64)
    m = rng.integers(0, 8, 300).astype(np.uint64)
    r = rng.uniform(0, 20, 300)
    copies = [x.copy() for x in (b, g, c, m, r)]
    bp.find_pairs(b, method=method, groups=g, categories=c, masks=m)
    bp.find_circle_pairs(b[:, :2], r, method=method, groups=g, categories=c, masks=m)
    bp.find_pairs_between(b[:100], b[100:], method=method)
    for x, y in zip((b, g, c, m, r), copies, strict=True):
        np.testing.assert_array_equal(x, y)
        assert x.dtype == y.dtype


@pytest.mark.parametrize("method", ALL_METHODS)
def test_read_only_inputs(method):
    b = scenarios.make("uniform", 300, seed=2)
    g = np.arange(300) % 7
    r = np.full(300, 15.0)
    expected = naive.box_pairs(b, g)
    exp_c = naive.circle_pairs(b[:, :2], r, g)
    for x in (b, g, r):
        x.flags.writeable = False
    assert_same(bp.find_pairs(b, method=method, groups=g), expected)
    assert_same(bp.find_circle_pairs(b[:, :2], r, method=method, groups=g), exp_c)
    assert_same(bp.find_pairs_between(b[:150], b[150:], method=method),
                naive.pairs_between(b[:150], b[150:]), between=True)


# --------------------------------------------------------------------------
# layouts and dtypes


def _int_boxes():
    rng = np.random.default_rng(3)
    xy = rng.integers(-20, 20, (200, 2))
    return np.hstack([xy, xy + rng.integers(0, 6, (200, 2))])


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8,
                                   np.uint64, np.float16, np.float32, np.float64, ">f8",
                                   ">i4"])
def test_dtypes(method, dtype):
    ints = _int_boxes()
    if np.dtype(dtype).kind == "u":
        ints = ints + 20
    arr = ints.astype(dtype)
    ref = arr.astype(np.float64)
    expected = naive.box_pairs(ref)
    assert_same(bp.find_pairs(arr, method=method), expected)
    assert_same(bp.find_pairs(ref, method=method), expected)


@pytest.mark.parametrize("method", ALL_METHODS)
def test_float32_non_integral(method):
    b = scenarios.make("mixed", 400, seed=5).astype(np.float32)
    expected = bp.find_pairs(b.astype(np.float64), method=method)
    assert_same(bp.find_pairs(b, method=method), expected)
    assert_same(expected, naive.box_pairs(b.astype(np.float64)))


@pytest.mark.parametrize("method", ALL_METHODS)
def test_lists_fortran_and_views(method):
    base = scenarios.make("clustered", 600, seed=6)
    expected = naive.box_pairs(base)
    assert_same(bp.find_pairs(base.tolist(), method=method), expected)
    assert_same(bp.find_pairs(np.asfortranarray(base), method=method), expected)
    wide = np.zeros((600, 8))
    wide[:, ::2] = base
    view = wide[:, ::2]
    assert not view.flags.c_contiguous
    assert_same(bp.find_pairs(view, method=method), expected)
    tall = np.repeat(base, 2, axis=0)[::2]
    assert not tall.flags.c_contiguous
    assert_same(bp.find_pairs(tall, method=method), expected)
    rev = base[::-1]
    assert_same(bp.find_pairs(rev, method=method), naive.box_pairs(rev.copy()))
    tuples = [tuple(r) for r in base]
    assert_same(bp.find_pairs(tuples, method=method), expected)


@pytest.mark.parametrize("method", ALL_METHODS)
def test_circle_layouts(method):
    base = scenarios.make("uniform", 300, seed=8)
    centers = base[:, :2]
    r = np.full(300, 18.0)
    expected = naive.circle_pairs(np.ascontiguousarray(centers), r)
    assert not centers.flags.c_contiguous
    assert_same(bp.find_circle_pairs(centers, r, method=method), expected)
    assert_same(bp.find_circle_pairs(centers.tolist(), r.tolist(), method=method), expected)
    assert_same(bp.find_circle_pairs(np.asfortranarray(centers), r.astype(np.float32),
                                     method=method), expected)
    ic = np.round(centers).astype(np.int32)
    assert_same(bp.find_circle_pairs(ic, np.full(300, 18, np.int64), method=method),
                naive.circle_pairs(ic, r))


@pytest.mark.parametrize("method", ALL_METHODS)
def test_filter_layouts(method):
    b = scenarios.make("uniform", 300, seed=9)
    g = np.arange(600)[::2] % 5  # non-contiguous
    c = (np.arange(300) % 3 + 1).astype(np.uint8)
    m = [int(v) for v in np.arange(300) % 4]  # list
    expected = naive.box_pairs(b, g, c, m)
    assert_same(bp.find_pairs(b, method=method, groups=g, categories=c, masks=m), expected)
    # integral floats for groups are accepted as integers
    assert_same(bp.find_pairs(b, method=method, groups=g.astype(float)), naive.box_pairs(b, g))
    # scalars broadcast to every object
    assert_same(bp.find_pairs(b, method=method, groups=3), [])
    assert_same(bp.find_pairs(b, method=method, groups=0), naive.box_pairs(b))


def test_integer_just_past_2_53_refused_not_rounded():
    # float64 would round 2**53 + 1 to 2**53: the boxes would only touch
    with pytest.raises(ValueError, match=re.escape(f"boxes[0]: integers up to 2**53 in "
                                                   f"magnitude expected (float64 holds them "
                                                   f"exactly), found {2**53 + 1}")):
        bp.find_pairs([[0, 0, 2**53 + 1, 1], [2**53, 0, 2**53, 1]])
    for dtype in (np.int64, np.uint64):
        b = np.array([[0, 0, 2**53, 1], [2**53, 0, 2**53 + 1, 1]], dtype)
        with pytest.raises(ValueError, match=re.escape("boxes[1]: integers up to 2**53")):
            bp.find_pairs(b)
    b = np.array([[-(2**53) - 1, 0, 0, 1], [0, 0, 1, 1]], np.int64)
    with pytest.raises(ValueError, match=re.escape("boxes[0]: integers up to 2**53")):
        bp.find_pairs(b)
    # 2**53 itself is exact: the answer is computed
    assert bp.find_pairs([[0, 0, 2**53, 1], [2**53 - 1, 0, 2**53, 1]]).tolist() == [[0, 1]]


def test_fractions_refused_unless_exact():
    from decimal import Decimal
    from fractions import Fraction

    with pytest.raises(ValueError, match=re.escape("boxes[1]: values exactly representable in "
                                                   "float64 expected, found Fraction(1, 3), "
                                                   "which would round")):
        bp.find_pairs([[0, 0, 1, 1], [0, 0, Fraction(1, 3), 1]])
    with pytest.raises(ValueError, match=re.escape("radii[0]: values exactly representable")):
        bp.find_circle_pairs([[0, 0], [1, 0]], [Fraction(1, 10), 1])
    with pytest.raises(TypeError, match=re.escape("radii[0]: expected real numbers")):
        bp.find_circle_pairs([[0, 0], [1, 0]], [Decimal("0.5"), 1])
    got = bp.find_pairs([[0, 0, Fraction(1, 2), 1], [Fraction(1, 4), 0, 1, 1]])
    assert got.tolist() == [[0, 1]]


def test_masked_values_refused_unmasked_accepted():
    b = np.ma.masked_array([[0, 0, 2, 2], [1, 1, 3, 3], [5, 5, 6, 6]],
                           mask=[[0, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0]])
    with pytest.raises(ValueError, match=re.escape("boxes[2]: a masked value")):
        bp.find_pairs(b)
    with pytest.raises(ValueError, match=re.escape("groups[1]: a masked value")):
        bp.find_pairs(b.data, groups=np.ma.masked_array([1, 2, 3], mask=[0, 1, 0]))
    assert bp.find_pairs(np.ma.masked_array(b.data)).tolist() == [[0, 1]]


def test_too_many_pairs_is_a_memory_error_naming_the_count():
    from broadphase import _core

    boxes = np.tile([[1.0, 1.0, 2.0, 2.0]], (3000, 1))
    for method in ("brute", "sweep", "grid", "quadtree"):
        with pytest.raises(MemoryError, match=r"^4,498,500 colliding pairs: the result alone"):
            _core.find_pairs(boxes, method, max_pairs=100_000)
    xyr = np.zeros((2000, 3))
    xyr[:, 2] = 1.0
    with pytest.raises(MemoryError, match=r"^1,999,000 colliding pairs"):
        _core.find_pairs(None, "grid", circles=xyr, max_pairs=1000)
    # the next call works
    assert len(bp.find_pairs(boxes[:100])) == 4950


@pytest.mark.parametrize("row, values, message", [
    (4, [0, 0, -1, 2], r"boxes\[4\]: w -1.0 < 0; expected \(x, y, w, h\) with sizes >= 0"),
    (2, [0, 0, 1, -0.5], r"boxes\[2\]: h -0.5 < 0"),
    (7, [0, np.nan, 1, 1], r"boxes\[7\]: y is nan; expected finite numbers"),
    (0, [0, 0, np.inf, 1], r"boxes\[0\]: w is inf; expected finite numbers"),
])
def test_xywh_rows_are_checked(row, values, message):
    b = np.tile([[0.0, 0.0, 1.0, 1.0]], (10, 1))
    b[row] = values
    with pytest.raises(ValueError, match=message):
        bp.find_pairs(b, format="xywh")
    with pytest.raises(ValueError, match=message.replace("boxes", "boxes_b")):
        bp.find_pairs_between(np.zeros((1, 4)), b, format="xywh")


@pytest.mark.parametrize("fmt", ["xyxy", "", 4, "XYWH"])
def test_unknown_format(fmt):
    with pytest.raises(ValueError, match="format: expected one of 'corners', 'xywh', found"):
        bp.find_pairs([[0, 0, 1, 1]], format=fmt)


@pytest.mark.parametrize("method", ALL_METHODS)
def test_xywh_equals_corners(method):
    rng = np.random.default_rng(11)
    xy = rng.integers(0, 200, (400, 2)).astype(float)
    wh = rng.integers(0, 12, (400, 2)).astype(float)
    corners = np.hstack([xy, xy + wh])
    xywh = np.hstack([xy, wh])
    assert_same(bp.find_pairs(xywh, format="xywh", method=method),
                naive.box_pairs(corners))
    assert_same(bp.find_pairs(corners, format="corners", method=method), naive.box_pairs(corners))
