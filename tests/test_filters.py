"""groups / categories / masks and find_pairs_between against the references."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import broadphase as bp
import naive
from helpers import assert_same
from test_pairs import int_grid_boxes

ALL_METHODS = ("auto",) + tuple(bp.METHODS)
BITS = st.sampled_from([0, 1, 2, 3, 5, 6, 2**63, 2**63 + 1, 2**64 - 1, 2**32])


@st.composite
def filters(draw, n):
    groups = categories = masks = None
    if draw(st.booleans()):
        groups = np.array(draw(st.lists(st.integers(-2, 3), min_size=n, max_size=n)), np.int64)
    if draw(st.booleans()):
        categories = np.array(draw(st.lists(BITS, min_size=n, max_size=n)), np.uint64)
    if draw(st.booleans()):
        masks = np.array(draw(st.lists(BITS, min_size=n, max_size=n)), np.uint64)
    return groups, categories, masks


@st.composite
def boxes_and_filters(draw, min_n=0, max_n=90):
    boxes = draw(int_grid_boxes(min_n=min_n, max_n=max_n))
    return (boxes,) + draw(filters(len(boxes)))


@pytest.mark.parametrize("method", ALL_METHODS)
@given(data=boxes_and_filters())
def test_box_filters_match_naive(method, data):
    boxes, g, c, m = data
    got = bp.find_pairs(boxes, method=method, groups=g, categories=c, masks=m)
    assert_same(got, naive.box_pairs(boxes, g, c, m))


@pytest.mark.parametrize("method", ALL_METHODS)
@given(data=boxes_and_filters(min_n=48, max_n=120))
def test_box_filters_large_n_match_naive(method, data):
    boxes, g, c, m = data
    got = bp.find_pairs(boxes, method=method, groups=g, categories=c, masks=m)
    assert_same(got, naive.box_pairs(boxes, g, c, m))


@st.composite
def circles_and_filters(draw, max_n=60):
    n = draw(st.integers(0, max_n))
    xy = st.integers(-8, 8)
    centers = np.array(draw(st.lists(st.tuples(xy, xy), min_size=n, max_size=n)),
                       np.float64).reshape(-1, 2) + 0.25
    radii = np.array(draw(st.lists(st.sampled_from([0, 0.5, 1, 1.5, 3]), min_size=n,
                                   max_size=n)), np.float64)
    return (centers, radii) + draw(filters(n))


@pytest.mark.parametrize("method", ALL_METHODS)
@given(data=circles_and_filters())
def test_circle_filters_match_naive(method, data):
    centers, radii, g, c, m = data
    got = bp.find_circle_pairs(centers, radii, method=method, groups=g, categories=c, masks=m)
    assert_same(got, naive.circle_pairs(centers, radii, g, c, m))


@pytest.mark.parametrize("method", ALL_METHODS)
def test_groups_hand_derived(method):
    boxes = [[0, 0, 2, 2], [1, 1, 3, 3], [1, 0, 3, 2], [0, 1, 2, 3]]  # all overlap
    # group 0 never filters; groups 7 share, 0 does not
    got = bp.find_pairs(boxes, method=method, groups=[7, 7, 0, 0])
    assert_same(got, [[0, 2], [0, 3], [1, 2], [1, 3], [2, 3]])
    got = bp.find_pairs(boxes, method=method, groups=[1, 1, 1, 1])
    assert_same(got, [])
    got = bp.find_pairs(boxes, method=method, groups=[-1, 2, -1, 2])
    assert_same(got, [[0, 1], [0, 3], [1, 2], [2, 3]])


@pytest.mark.parametrize("method", ALL_METHODS)
def test_masks_hand_derived(method):
    boxes = [[0, 0, 2, 2], [1, 1, 3, 3], [1, 0, 3, 2]]  # all overlap
    cats = np.array([1, 2, 4], np.uint64)
    # 0 accepts 2 only, 1 accepts 1 and 4, 2 accepts 1 only:
    # 0-1: c0&m1=1&5 ok, c1&m0=2&2 ok -> keep.  0-2: c0&m2=1 ok, c2&m0=4&2=0 -> drop.
    # 1-2: c1&m2=2&1=0 -> drop.
    masks = np.array([2, 5, 1], np.uint64)
    got = bp.find_pairs(boxes, method=method, categories=cats, masks=masks)
    assert_same(got, [[0, 1]])
    # only categories given: masks default to all bits, so everything is kept
    assert_same(bp.find_pairs(boxes, method=method, categories=cats), [[0, 1], [0, 2], [1, 2]])
    # a zero mask drops every pair of that object
    got = bp.find_pairs(boxes, method=method, masks=np.array([0, 1, 1], np.uint64))
    assert_same(got, [[1, 2]])
    # the top bit works like any other
    top = 2**63
    got = bp.find_pairs(boxes, method=method, categories=np.array([top, top, 1], np.uint64),
                        masks=np.array([top, top, top], np.uint64))
    assert_same(got, [[0, 1]])


@pytest.mark.parametrize("method", ALL_METHODS)
def test_filters_on_scenario(method):
    from broadphase import scenarios
    boxes = scenarios.make("clustered", 1500, seed=4)
    rng = np.random.default_rng(4)
    g = rng.integers(0, 30, 1500)
    c = (np.uint64(1) << rng.integers(0, 4, 1500).astype(np.uint64)).astype(np.uint64)
    m = rng.integers(0, 16, 1500).astype(np.uint64)
    got = bp.find_pairs(boxes, method=method, groups=g, categories=c, masks=m)
    assert_same(got, naive.box_pairs(boxes, g, c, m))


# --------------------------------------------------------------------------
# find_pairs_between


@pytest.mark.parametrize("method", ALL_METHODS)
@given(a=int_grid_boxes(max_n=50), b=int_grid_boxes(max_n=50))
def test_between_match_naive(method, a, b):
    assert_same(bp.find_pairs_between(a, b, method=method), naive.pairs_between(a, b),
                between=True)


@pytest.mark.parametrize("method", ALL_METHODS)
@given(a=int_grid_boxes(min_n=30, max_n=80), b=int_grid_boxes(min_n=30, max_n=80))
def test_between_large_match_naive(method, a, b):
    assert_same(bp.find_pairs_between(a, b, method=method), naive.pairs_between(a, b),
                between=True)


@pytest.mark.parametrize("method", ALL_METHODS)
def test_between_docstring_example(method):
    bullets = [[0, 0, 1, 1], [5, 5, 6, 6]]
    enemies = [[0.5, 0.5, 2, 2], [0.2, 0.2, 0.8, 0.8], [9, 9, 10, 10]]
    got = bp.find_pairs_between(bullets, enemies, method=method)
    assert_same(got, [[0, 0], [0, 1]], between=True)
    # swapped: columns swap too
    got = bp.find_pairs_between(enemies, bullets, method=method)
    assert_same(got, [[0, 0], [1, 0]], between=True)


@pytest.mark.parametrize("method", ALL_METHODS)
def test_between_same_set_and_duplicates(method):
    a = np.array([[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3]], float)
    # a box meets its own copy: (i, j) for every overlapping i, j incl. i == j
    got = bp.find_pairs_between(a, a, method=method)
    assert_same(got, [[0, 0], [0, 1], [1, 0], [1, 1], [2, 2]], between=True)


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("na, nb", [(0, 5), (5, 0), (0, 0), (1, 1)])
def test_between_empty(method, na, nb):
    a = np.array([[0, 0, 2, 2]] * na, float).reshape(-1, 4)
    b = np.array([[1, 1, 3, 3]] * nb, float).reshape(-1, 4)
    got = bp.find_pairs_between(a, b, method=method)
    assert got.dtype == np.intp and got.shape == ((1, 2) if na == nb == 1 else (0, 2))
    assert_same(got, naive.pairs_between(a, b), between=True)
    assert_same(bp.find_pairs_between([], b, method=method) if na == 0 else got,
                naive.pairs_between(a, b), between=True)


@pytest.mark.parametrize("method", ALL_METHODS)
def test_between_scenarios(method):
    from broadphase import scenarios
    a = scenarios.make("uniform", 1200, seed=1)
    b = scenarios.make("mixed", 900, seed=2)
    assert_same(bp.find_pairs_between(a, b, method=method), naive.pairs_between(a, b),
                between=True)


@pytest.mark.parametrize("method", ALL_METHODS)
def test_mask_bits_above_2_63_from_python_ints(method):
    # NumPy reads [2**63 + 1, 1] as float64 (rounding bit 0 away): the lists
    # must be taken exactly.  Bit 0 is the only bit the two share.
    boxes = [[0, 0, 2, 2], [1, 1, 3, 3]]
    got = bp.find_pairs(boxes, categories=[2**63 + 1, 1], masks=[1, 1], method=method)
    assert_same(got, naive.box_pairs(boxes, categories=np.array([2**63 + 1, 1], np.uint64),
                                     masks=np.array([1, 1], np.uint64)))
    assert got.tolist() == [[0, 1]]
    full = 2**64 - 1
    assert bp.find_pairs(boxes, categories=[full, 2], masks=[2, full],
                         method=method).tolist() == [[0, 1]]
    assert bp.find_pairs(boxes, categories=[2**63, 1], masks=[1, 1], method=method).tolist() == []


@pytest.mark.parametrize("where", ["find_pairs", "tree"])
def test_filter_lists_of_big_ints_are_read_exactly(where):
    # NumPy reads [2**63 + 1, 1] as float64 (bit 0 lost) and [2**60, 2**60]
    # is past float64's exact integers: both are taken as the ints they are.
    boxes = np.array([[0, 0, 2, 2], [1, 1, 3, 3], [1, 0, 3, 2]], float)

    def pairs(**kw):
        if where == "find_pairs":
            return bp.find_pairs(boxes, **kw).tolist()
        tree = bp.LinearQuadtree((0, 0, 4, 4), depth=2)
        tree.insert(boxes, **kw)
        return tree.pairs().tolist()

    big = 2**60
    assert pairs(groups=[big, big, big + 1]) == [[0, 2], [1, 2]]
    # bit 0 decides: 0 and 1 share it, 2 lacks it
    assert pairs(categories=[2**63 + 1, 1, 2**63], masks=[1, 1, 1]) == [[0, 1]]
    with pytest.raises(ValueError, match=r"categories\[0\].*below 2\*\*64"):
        pairs(categories=[2**64, 1, 1])
    with pytest.raises(TypeError, match=r"masks\[1\].*bool"):
        pairs(masks=[1, True, 1])


def test_integers_past_2_53_read_exactly_in_every_form():
    b = [[0, 0, 2, 2], [1, 1, 3, 3]]
    big = 2**62 + 1
    # the same groups: never a pair, whatever the container; different ones (by 1): a pair
    for same in ([big, big], np.array([big, big], dtype=object), np.array([big, big])):
        assert bp.find_pairs(b, groups=same).tolist() == []
    for apart in ([big, big - 1], np.array([big, big - 1], dtype=object)):
        assert bp.find_pairs(b, groups=apart).tolist() == [[0, 1]]
    # bit 0 of a mask past 2**63 decides the pair: kept exactly
    for masks in ([2**63 + 1, 1], np.array([2**63 + 1, 1], dtype=object)):
        assert bp.find_pairs(b, categories=[1, 1], masks=masks).tolist() == [[0, 1]]
    for masks in ([2**63, 1], np.array([2**63, 1], dtype=object)):
        assert bp.find_pairs(b, categories=[1, 1], masks=masks).tolist() == []


@pytest.mark.parametrize("value, error, message", [
    (np.array([1.0, 1.5]), TypeError, r"groups\[1\]: expected an integer, found 1\.5"),
    (np.array([1.0, np.nan]), TypeError, r"groups\[1\]: expected an integer, found nan"),
    (np.array([1.0, 2.0**63]), ValueError,
     r"groups\[1\]: expected an integer in \[-2\*\*63, 2\*\*63\), found 9\.223372036854776e\+18"),
    (np.array([2**63, 1], dtype=object), ValueError,
     r"groups\[0\]: expected an integer in \[-2\*\*63, 2\*\*63\), found 9223372036854775808"),
    (np.array([True, False]), TypeError, r"groups: expected integers, found booleans"),
    ([1, True], TypeError, r"groups\[1\]: expected an integer, found True \(a bool\)"),
])
def test_integer_filters_refused_name_the_row_and_value(value, error, message):
    with pytest.raises(error, match=message):
        bp.find_pairs([[0, 0, 2, 2], [1, 1, 3, 3]], groups=value)


def test_whole_float_filters_are_read():
    b = [[0, 0, 2, 2], [1, 1, 3, 3]]
    assert bp.find_pairs(b, groups=np.array([3.0, 3.0])).tolist() == []
    assert bp.find_pairs(b, categories=np.array([1.0, 1.0]), masks=2.0**63).tolist() == []
