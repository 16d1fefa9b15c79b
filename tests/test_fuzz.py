"""No input crashes the process: every call answers exactly or raises a clear error.

A Rust panic would reach Python as ``pyo3_runtime.PanicException``, a
``BaseException`` that the ``except`` clauses below do not catch: any panic
fails the test.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import broadphase as bp
import naive
from helpers import assert_canonical

_ANY_FLOAT = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 1e-300, 1.7e308, -1.7e308, 2.0**53]),
    st.integers(-20, 20).map(float),
)
_METHODS = st.sampled_from(("auto", "brute", "sweep", "grid", "quadtree"))


@settings(max_examples=300)
@given(rows=st.lists(st.lists(_ANY_FLOAT, min_size=4, max_size=4), max_size=40),
       method=_METHODS, workers=st.sampled_from([None, 1, 2, 7]),
       groups=st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)),
       masks=st.one_of(st.none(), st.integers(0, 2**64 - 1)))
def test_any_boxes(rows, method, workers, groups, masks):
    b = np.array(rows, np.float64).reshape(-1, 4)
    try:
        got = bp.find_pairs(b, method=method, workers=workers, groups=groups, masks=masks)
    except ValueError as e:
        assert str(e).startswith("boxes[")
        return
    assert_canonical(got)
    g = None if groups is None else np.full(len(b), groups)
    m = None if masks is None else np.full(len(b), masks, np.uint64)
    np.testing.assert_array_equal(got, naive.box_pairs(b, groups=g, masks=m))


@settings(max_examples=200)
@given(rows=st.lists(st.lists(_ANY_FLOAT, min_size=3, max_size=3), max_size=25),
       method=_METHODS)
def test_any_circles(rows, method):
    c = np.array(rows, np.float64).reshape(-1, 3)
    try:
        got = bp.find_circle_pairs(c[:, :2], c[:, 2], method=method)
    except ValueError as e:
        assert str(e).startswith(("centers[", "radii["))
        return
    assert_canonical(got)
    np.testing.assert_array_equal(got, naive.circle_pairs(c[:, :2], c[:, 2]))


@settings(max_examples=100)
@given(value=st.one_of(
    st.none(), st.text(max_size=3), st.integers(), st.lists(st.integers(), max_size=5),
    st.lists(st.lists(st.one_of(st.integers(-(2**70), 2**70), st.none(), st.text(max_size=1)),
                      max_size=5), max_size=4)),
    method=st.one_of(_METHODS, st.text(max_size=4)))
def test_any_python_object(value, method):
    for call in (lambda: bp.find_pairs(value, method=method),
                 lambda: bp.find_circle_pairs(value, value, method=method),
                 lambda: bp.find_pairs_between(value, value, method=method)):
        try:
            got = call()
        except (ValueError, TypeError):
            continue
        assert_canonical(got, between=True)
