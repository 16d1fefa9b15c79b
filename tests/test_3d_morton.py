"""broadphase.morton in 3D (the octree's numbers) against worked examples and plain Python."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from broadphase import _core, morton

# --------------------------------------------------------------------------
# pure-Python reference (written from the documented rules, not the kernels)


def ref_encode3(ix, iy, iz):
    code = 0
    for b in range(21):
        for k, v in enumerate((ix, iy, iz)):
            code |= ((v >> b) & 1) << (3 * b + k)
    return code


def ref_decode3(code):
    out = [0, 0, 0]
    for bit in range(63):
        out[bit % 3] |= ((code >> bit) & 1) << (bit // 3)
    return tuple(out)


def ref_cell_of3(c0, c1, depth):
    x = c0 ^ c1
    level = depth
    for g in range(depth):  # 3-bit group g covers bits 3g, 3g+1, 3g+2
        if (x >> (3 * g)) & 7:
            level = depth - g - 1  # the highest non-zero group wins
    return level, c1 >> (3 * (depth - level))


def ref_quantize(v, lo, hi, depth):
    cell = (Fraction(hi) - Fraction(lo)) / 2**depth
    q = math.floor((Fraction(v) - Fraction(lo)) / cell)
    return min(max(q, 0), 2**depth - 1)


def ref_locate3(boxes, bounds, depth):
    lo, hi = bounds[:3], bounds[3:]
    levels, cells = [], []
    for b in boxes:
        c0 = ref_encode3(*(ref_quantize(b[k], lo[k], hi[k], depth) for k in range(3)))
        c1 = ref_encode3(*(ref_quantize(b[3 + k], lo[k], hi[k], depth) for k in range(3)))
        lv, ix = ref_cell_of3(c0, c1, depth)
        levels.append(lv)
        cells.append(ix)
    return levels, cells


def v(x):
    """The single value of a scalar result (shape-agnostic)."""
    a = np.asarray(x)
    assert a.size == 1
    return int(a.reshape(-1)[0])


# --------------------------------------------------------------------------
# shapes and worked examples


def test_scalar_in_scalar_out():
    assert np.ndim(morton.encode(3, 0, 2)) == 0
    assert v(morton.encode(3, 0, 2)) == 41
    out = morton.decode(41, dims=3)
    assert len(out) == 3 and all(np.ndim(a) == 0 for a in out)
    assert [int(a) for a in out] == [3, 0, 2]
    assert [int(a) for a in morton.cell_of(32, 39, 2, dims=3)] == [1, 4]
    assert v(morton.linear_index(2, 11, dims=3)) == 20


def test_array_in_array_out_shapes():
    assert morton.encode([3], [0], [2]).shape == (1,)
    assert morton.encode(np.zeros((2, 3), int), 1, [[0], [1]]).shape == (2, 3)
    axes = morton.decode(np.zeros((2, 3), int), dims=3)
    assert [a.shape for a in axes] == [(2, 3)] * 3
    lv, ix = morton.cell_of([[1, 8]], [[8, 9]], 2, dims=3)
    assert lv.tolist() == [[0, 1]] and ix.tolist() == [[0, 1]]
    assert morton.linear_index([[1, 2]], 0, dims=3).tolist() == [[1, 9]]


def test_encode_worked_examples():
    # one bit per axis: x at bit 0, y at bit 1, z at bit 2, then the next group
    assert morton.encode([1, 0, 0, 2, 0, 0], [0, 1, 0, 0, 2, 0],
                         [0, 0, 1, 0, 0, 2]).tolist() == [1, 2, 4, 8, 16, 32]
    # 3 = 011 (x bits 0, 1), 2 = 010 (z bit 1): bits 0, 3, 5 -> 1 + 8 + 32 = 41
    assert v(morton.encode(3, 0, 2)) == 41
    assert v(morton.encode(7, 7, 7)) == 2**9 - 1
    top = 2**21 - 1
    assert v(morton.encode(top, top, top)) == 2**63 - 1
    out = morton.encode(np.array([[3, 1], [6, 0]]), 6, 5)  # broadcast
    assert out.dtype == np.int64
    assert out.tolist() == [[ref_encode3(3, 6, 5), ref_encode3(1, 6, 5)],
                            [ref_encode3(6, 6, 5), ref_encode3(0, 6, 5)]]


def test_encode_without_iz_is_the_2d_code():
    assert v(morton.encode(3, 6, None)) == v(morton.encode(3, 6)) == 45
    # the same coordinates in 3D interleave three ways: another number
    assert v(morton.encode(3, 6, 0)) == ref_encode3(3, 6, 0) != 45


def test_decode_worked_examples():
    assert [v(a) for a in morton.decode(41, dims=3)] == [3, 0, 2]
    ix, iy, iz = morton.decode([0, 1, 2, 4, 7, 2**63 - 1], dims=3)
    assert ix.tolist() == [0, 1, 0, 0, 1, 2**21 - 1]
    assert iy.tolist() == [0, 0, 1, 0, 1, 2**21 - 1]
    assert iz.tolist() == [0, 0, 0, 1, 1, 2**21 - 1]
    # dims=2 is the default and the 2D decode
    assert [v(a) for a in morton.decode(45)] == [v(a) for a in morton.decode(45, dims=2)] == [3, 6]


@pytest.mark.parametrize("c0, c1, expected", [
    (1, 8, (0, 0)),  # cells (1, 0, 0) and (2, 0, 0): they part at the root
    (8, 9, (1, 1)),  # (2, 0, 0) and (3, 0, 0): octant 1 of level 1
    (32, 39, (1, 4)),  # (0, 0, 2) and (1, 1, 3): octant 4
    (45, 45, (2, 45)),  # same cell: finest level
    (0, 63, (0, 0)),
    (56, 63, (1, 7)),  # the last octant
])
def test_cell_of_worked_examples(c0, c1, expected):
    assert tuple(v(x) for x in morton.cell_of(c0, c1, 2, dims=3)) == expected
    assert ref_cell_of3(c0, c1, 2) == expected


def test_cell_of_highest_group_not_sum():
    # xor 0b001001001 has three non-zero 3-bit groups: only the top one decides
    assert tuple(v(x) for x in morton.cell_of(0, 0b001001001, 3, dims=3)) == (0, 0)
    assert tuple(v(x) for x in morton.cell_of(0, 0b001001, 3, dims=3)) == (1, 0)
    # read with 2-bit groups, the same codes give other cells: dims matters
    assert tuple(v(x) for x in morton.cell_of(0, 0b001001, 3)) == (1, 0)
    assert tuple(v(x) for x in morton.cell_of(8, 9, 2)) == (1, 2)


@pytest.mark.parametrize("level, start", [(0, 0), (1, 1), (2, 9), (3, 73), (4, 585)])
def test_linear_index_level_starts(level, start):
    assert v(morton.linear_index(level, 0, dims=3)) == start
    assert start == sum(8**k for k in range(level)) == (8**level - 1) // 7


def test_linear_index_values():
    assert morton.linear_index([0, 1, 2, 3], [0, 0, 11, 0], dims=3).tolist() == [0, 1, 20, 73]
    assert v(morton.linear_index(1, 7, dims=3)) == 8  # last of level 1, just before level 2
    assert v(morton.linear_index(2, 63, dims=3)) == 72
    top = morton.MAX_DEPTH_3D
    assert v(morton.linear_index(top, 8**top - 1, dims=3)) == (8**(top + 1) - 1) // 7 - 1
    assert morton.linear_index([top], [8**top - 1], dims=3).tolist() == [(8**(top + 1) - 1) // 7
                                                                         - 1]


def test_max_depth_3d():
    assert morton.MAX_DEPTH == 29 and morton.MAX_DEPTH_3D == 20
    # as in 2D, the codes and linear indices of the deepest level stay below 2**62
    top = morton.MAX_DEPTH_3D
    assert 8**top <= 2**62 and (8**(top + 1) - 1) // 7 <= 2**62
    assert v(morton.cell_of(8**top - 1, 8**top - 1, top, dims=3)[0]) == top
    assert "MAX_DEPTH_3D" in morton.__all__


def test_locate_docstring_example():
    cubes = [[0.5, 0.5, 0.5, 1.5, 1.5, 1.5], [5, 1, 3, 5.5, 1.5, 3.5], [3, 1, 1, 5, 2, 2]]
    levels, cells = morton.locate(cubes, (0, 0, 0, 8, 8, 8), depth=2)
    assert levels.tolist() == [2, 2, 0] and cells.tolist() == [0, 12, 0]
    assert levels.dtype == np.int64 and cells.dtype == np.int64
    assert ref_locate3(cubes, (0, 0, 0, 8, 8, 8), 2) == (levels.tolist(), cells.tolist())


def test_locate_far_edge_clamp():
    b = (0.0, 0.0, 0.0, 8.0, 8.0, 8.0)
    boxes = [
        [8, 8, 8, 8, 8, 8],  # on the far corner -> last cell (7, 7, 7)
        [7.5, 7.5, 7.5, 9, 9, 9],  # past the far edge -> clamped to the last cell
        [-3, -3, -3, 0.5, 0.5, 0.5],  # before the near edge -> first cell
        [0, 0, 7, 0.5, 0.5, 8],  # layer 7 alone: z bits 2, 5, 8 -> 4 + 32 + 256 = 292
        [7, 0, 0, 8, 0.5, 0.5],  # column 7 alone: 1 + 8 + 64 = 73
        [-100, -100, -100, 100, 100, 100],  # everything -> root
        [4, 4, 4, 4, 4, 4],  # a point on the centre: cell (4, 4, 4) = 7 << 6 = 448
        [1, 1, 1, 1, 1, 7],  # a segment along z, across the middle: the root
    ]
    levels, cells = morton.locate(boxes, b, depth=3)
    assert levels.tolist() == [3, 3, 3, 3, 3, 0, 3, 0]
    assert cells.tolist() == [511, 511, 0, 292, 73, 0, 448, 0]
    assert ref_locate3(boxes, b, 3) == (levels.tolist(), cells.tolist())


def test_locate_one_flat_box_and_empty_inputs():
    levels, cells = morton.locate([5, 1, 3, 5.5, 1.5, 3.5], (0, 0, 0, 8, 8, 8), 2)
    assert levels.tolist() == [2] and cells.tolist() == [12]
    for empty in (np.empty((0, 6)), [], np.empty((0, 0))):
        levels, cells = morton.locate(empty, (0, 0, 0, 1, 1, 1), depth=4)
        assert levels.shape == cells.shape == (0,)
    # no rows: the six bounds say 3D, so a 3D depth is checked
    with pytest.raises(ValueError, match=r"depth: expected 0 <= depth <= 20 in 3D, found 21"):
        morton.locate([], (0, 0, 0, 1, 1, 1), depth=21)
    assert morton.locate([], (0, 0, 1, 1), depth=21)[0].shape == (0,)  # 2D goes to 29


def test_locate_in_a_world_of_other_spans_per_axis():
    # oblong cells: each axis split over its own span
    boxes = [[1, 10, 100, 1, 10, 100], [3, 30, 300, 3.5, 35, 350]]
    bounds = (0, 0, 0, 4, 40, 400)
    levels, cells = morton.locate(boxes, bounds, 2)
    assert (levels.tolist(), cells.tolist()) == ref_locate3(boxes, bounds, 2)
    assert levels.tolist() == [2, 2] and cells.tolist() == [7, 63]


# --------------------------------------------------------------------------
# properties


coord = st.integers(0, 2**21 - 1)


@given(ix=coord, iy=coord, iz=coord)
def test_encode_decode_round_trip(ix, iy, iz):
    code = morton.encode(ix, iy, iz)
    assert v(code) == ref_encode3(ix, iy, iz)
    assert tuple(v(a) for a in morton.decode(code, dims=3)) == (ix, iy, iz)


@given(codes=st.lists(st.integers(0, 2**63 - 1), min_size=1, max_size=20))
def test_decode_encode_round_trip_arrays(codes):
    ix, iy, iz = morton.decode(np.array(codes, np.int64), dims=3)
    assert list(zip(ix.tolist(), iy.tolist(), iz.tolist(), strict=True)) == [
        ref_decode3(c) for c in codes]
    assert morton.encode(ix, iy, iz).tolist() == codes


@given(depth=st.integers(0, morton.MAX_DEPTH_3D), data=st.data())
def test_cell_of_matches_reference(depth, data):
    c0 = data.draw(st.integers(0, 8**depth - 1))
    c1 = data.draw(st.integers(0, 8**depth - 1))
    lv, ix = morton.cell_of(c0, c1, depth, dims=3)
    assert (v(lv), v(ix)) == ref_cell_of3(c0, c1, depth)


@given(level=st.integers(0, morton.MAX_DEPTH_3D), data=st.data())
def test_linear_index_matches_the_sum_of_the_levels_above(level, data):
    index = data.draw(st.integers(0, 8**level - 1))
    at = v(morton.linear_index(level, index, dims=3))
    assert at == sum(8**k for k in range(level)) + index
    # inside level's part of the array, before the next level starts
    assert (8**level - 1) // 7 <= at < (8**(level + 1) - 1) // 7


@st.composite
def dyadic_boxes(draw):
    """3D bounds with power-of-two sides and dyadic coordinates: all arithmetic exact."""
    depth = draw(st.integers(0, 8))
    ks = [draw(st.integers(-3, 6)) for _ in range(3)]
    os_ = [draw(st.integers(-50, 50)) for _ in range(3)]
    bounds = tuple(float(o) for o in os_) + tuple(float(o + 2.0**k) for o, k in
                                                  zip(os_, ks, strict=True))
    n = draw(st.integers(1, 20))
    rows = []
    for _ in range(n):
        lo, hi = [], []
        for axis in range(3):
            o, k = os_[axis], ks[axis]

            def coord(o=o, k=k):
                # units of 2**(k-12), from before the near edge to past the far edge
                return o + draw(st.integers(-300, 2**12 + 300)) * 2.0 ** (k - 12)

            a, b = sorted([coord(), coord()])
            if draw(st.booleans()):
                b = max(a, bounds[3 + axis])  # exactly on the far edge
            lo.append(a)
            hi.append(b)
        rows.append(lo + hi)
    return np.array(rows), bounds, depth


@given(case=dyadic_boxes())
def test_locate_matches_reference(case):
    boxes, bounds, depth = case
    levels, cells = morton.locate(boxes, bounds, depth)
    assert (levels.tolist(), cells.tolist()) == ref_locate3(boxes.tolist(), bounds, depth)


@given(case=dyadic_boxes())
def test_locate_cell_contains_box(case):
    # every box (clamped to the world) lies inside the cell it is assigned
    boxes, bounds, depth = case
    levels, cells = morton.locate(boxes, bounds, depth)
    lo = [Fraction(b) for b in bounds[:3]]
    hi = [Fraction(b) for b in bounds[3:]]
    for row, lv, ix in zip(boxes.tolist(), levels.tolist(), cells.tolist(), strict=True):
        corner = [v(c) for c in morton.decode(ix, dims=3)]
        for k in range(3):
            w = (hi[k] - lo[k]) / 2**lv
            start = lo[k] + corner[k] * w

            def clamp(x, k=k):
                return min(max(Fraction(x), lo[k]), hi[k])

            assert start <= clamp(row[k]) and clamp(row[3 + k]) <= start + w


@given(case=dyadic_boxes())
def test_locate_agrees_with_cell_of_of_the_encoded_corners(case):
    # the two ways the docs give to the same cell: locate, or encode + cell_of
    boxes, bounds, depth = case
    levels, cells = morton.locate(boxes, bounds, depth)
    q = [[ref_quantize(r[c], bounds[c % 3], bounds[3 + c % 3], depth) for c in range(6)]
         for r in boxes.tolist()]
    q = np.array(q, np.int64)
    c0 = morton.encode(q[:, 0], q[:, 1], q[:, 2])
    c1 = morton.encode(q[:, 3], q[:, 4], q[:, 5])
    lv, ix = morton.cell_of(c0, c1, depth, dims=3)
    assert lv.tolist() == levels.tolist() and ix.tolist() == cells.tolist()


# --------------------------------------------------------------------------
# errors: the argument, what was expected, what was found, and where


@pytest.mark.parametrize("call, exc, match", [
    (lambda: morton.encode(0, 0, -1), ValueError,
     r"^iz: expected integers in \[0, 2097152\), found -1$"),
    (lambda: morton.encode(2**21, 0, 0), ValueError,
     r"^ix: expected integers in \[0, 2097152\), found 2097152$"),
    (lambda: morton.encode([0, 1], [0, 2**21], 0), ValueError,
     r"^iy\[1\]: expected integers in \[0, 2097152\), found 2097152$"),
    (lambda: morton.encode(0, 0, 1.5), TypeError, r"iz"),
    (lambda: morton.encode(0, 0, [True]), TypeError, r"iz\[0\]: expected an integer"),
    (lambda: morton.encode([0, 1], [0, 1], [0, 1, 2]), ValueError, r"shape|broadcast"),
    (lambda: morton.decode(-5, dims=3), ValueError,
     r"^code: expected integers in \[0, 9223372036854775808\), found -5$"),
    (lambda: morton.decode(2**63, dims=3), (TypeError, ValueError), r"code"),
    (lambda: morton.decode(1, dims=4), ValueError, r"^dims: expected 2 or 3, found 4$"),
    (lambda: morton.decode(1, dims=1), ValueError, r"^dims: expected 2 or 3, found 1$"),
    (lambda: morton.decode(1, dims=3.0), TypeError, r"^dims: expected 2 or 3, found 3\.0$"),
    (lambda: morton.decode(1, dims=True), TypeError, r"^dims: expected 2 or 3, found True$"),
    (lambda: morton.cell_of(64, 0, 2, dims=3), ValueError,
     r"^code0: expected integers in \[0, 64\), found 64$"),
    (lambda: morton.cell_of([0, 0], [1, 512], 3, dims=3), ValueError,
     r"^code1\[1\]: expected integers in \[0, 512\), found 512$"),
    (lambda: morton.cell_of(0, 1, 21, dims=3), ValueError,
     r"^depth: expected 0 <= depth <= 20 in 3D, found 21$"),
    (lambda: morton.cell_of(0, 1, -1, dims=3), ValueError, r"depth"),
    (lambda: morton.cell_of(0, 1, 2.0, dims=3), TypeError, r"depth"),
    (lambda: morton.cell_of(0, 1, 3, dims="3"), TypeError, r"dims"),
    (lambda: morton.linear_index(2, 64, dims=3), ValueError,
     r"^index: expected index < 8\*\*level, found 64 at level 2$"),
    (lambda: morton.linear_index([1, 2], [3, 64], dims=3), ValueError,
     r"^index\[1\]: expected index < 8\*\*level, found 64 at level 2$"),
    (lambda: morton.linear_index(21, 0, dims=3), ValueError,
     r"^level: expected integers in \[0, 21\), found 21$"),
    (lambda: morton.linear_index(-1, 0, dims=3), ValueError, r"level"),
    (lambda: morton.linear_index(0, 0, dims=0), ValueError, r"dims"),
    (lambda: morton.locate([[0, 0, 0, 1, 1, 1]], (0, 0, 1, 1), 3), TypeError,
     r"^bounds: expected \(minx, miny, minz, maxx, maxy, maxz\), found \(0, 0, 1, 1\)$"),
    (lambda: morton.locate([[0, 0, 1, 1]], (0, 0, 0, 1, 1, 1), 3), TypeError,
     r"^bounds: expected \(minx, miny, maxx, maxy\), found \(0, 0, 0, 1, 1, 1\)$"),
    (lambda: morton.locate([], (0, 0, 1), 3), TypeError,
     r"^bounds: expected \(minx, miny, maxx, maxy\) or \(minx, miny, minz, maxx, maxy, "
     r"maxz\), found \(0, 0, 1\)$"),
    (lambda: morton.locate([[0, 0, 0, 1, 1, 1]], (0, 0, 1, 1, 1, 1), 3), ValueError,
     r"^bounds: expected finite \(minx, miny, minz, maxx, maxy, maxz\) with minx < maxx, "
     r"miny < maxy and minz < maxz, found \(0\.0, 0\.0, 1\.0, 1\.0, 1\.0, 1\.0\)$"),
    (lambda: morton.locate([[0, 0, 0, 1, 1, 1]], (0, 0, 0, 1, np.nan, 1), 3), ValueError,
     r"bounds\[4\]"),
    (lambda: morton.locate([[0, 0, 0, 1, 1, 1], [0, 0, 2, 1, 1, 1]], (0, 0, 0, 1, 1, 1), 3),
     ValueError, r"^boxes\[1\]: minz 2\.0 > maxz 1\.0$"),
    (lambda: morton.locate([[0, 0, 0, 1, 1, np.inf]], (0, 0, 0, 1, 1, 1), 3), ValueError,
     r"^boxes\[0\]: maxz is inf; expected finite numbers$"),
    (lambda: morton.locate([[0, 0, 0, 1, 1]], (0, 0, 0, 1, 1, 1), 3), ValueError,
     r"boxes: expected shape \(n, 4\) .* or \(n, 6\) .*found shape \(1, 5\)"),
    (lambda: morton.locate([[0, 0, 0, 1, 1, 1]], (0, 0, 0, 1, 1, 1), 21), ValueError,
     r"^depth: expected 0 <= depth <= 20 in 3D, found 21$"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_2d_messages_name_the_element_too():
    with pytest.raises(ValueError, match=r"^ix\[2\]: expected integers in \[0, 2147483648\), "
                                         r"found -1$"):
        morton.encode([0, 1, -1], 0)
    with pytest.raises(ValueError, match=r"^index\[0\]: expected index < 4\*\*level, found 16 "
                                         r"at level 2$"):
        morton.linear_index([2], [16])


def test_unaligned_buffers_are_read():
    raw = np.zeros(8 * 4 + 1, np.uint8)
    a = np.frombuffer(raw.data, np.int64, count=4, offset=1)
    assert not a.flags.aligned
    a2 = a.copy()
    np.testing.assert_array_equal(morton.encode(a, a, a), morton.encode(a2, a2, a2))
    np.testing.assert_array_equal(np.stack(morton.decode(a, dims=3)),
                                  np.stack(morton.decode(a2, dims=3)))
    np.testing.assert_array_equal(np.stack(morton.cell_of(a, a, 3, dims=3)),
                                  np.stack(morton.cell_of(a2, a2, 3, dims=3)))


def test_the_core_refuses_what_the_python_layer_would_have():
    """Direct calls of the private module: a ValueError, never a panic or garbage."""
    i64 = lambda *x: np.array(x, np.int64)  # noqa: E731
    with pytest.raises(ValueError, match=r"ix, iy, iz: expected one length, found 2 and 1"):
        _core.morton_encode3(i64(1, 2), i64(1, 2), i64(1))
    with pytest.raises(ValueError, match=r"iz\[0\]: expected an integer in \[0, 2097152\)"):
        _core.morton_encode3(i64(0), i64(0), i64(2**21))
    with pytest.raises(ValueError, match=r"code\[1\]: expected an integer in \[0, 9223"):
        _core.morton_decode3(i64(0, -1))
    with pytest.raises(ValueError, match=r"depth: expected 0 <= depth <= 20, found 21"):
        _core.morton_cell_of3(i64(0), i64(0), 21)
    with pytest.raises(ValueError, match=r"code1\[0\]: expected an integer in \[0, 64\)"):
        _core.morton_cell_of3(i64(0), i64(64), 2)
    with pytest.raises(ValueError, match=r"expected 0 <= level <= 20 and 0 <= index < 8\*\*level"):
        _core.morton_linear_index3(i64(21), i64(0))
    with pytest.raises(ValueError, match=r"found level 2, index 64"):
        _core.morton_linear_index3(i64(2), i64(64))
    b6 = np.array([[0, 0, 0, 1, 1, 1.0]])
    with pytest.raises(ValueError, match=r"bounds: expected 6 values for boxes of 6 columns"):
        _core.morton_locate(b6, [0, 0, 1, 1], 3)
    with pytest.raises(ValueError, match=r"depth: expected 0 <= depth <= 20, found 25"):
        _core.morton_locate(b6, [0, 0, 0, 1, 1, 1], 25)
    with pytest.raises(ValueError, match=r"boxes: expected 4 columns, found 5"):
        _core.morton_locate(np.zeros((1, 5)), [0, 0, 1, 1], 3)
    assert _core.morton_cell_of3(i64(0), i64(63), 2)[0].tolist() == [0]
    assert _core.MORTON_MAX_DEPTH_3D == morton.MAX_DEPTH_3D
