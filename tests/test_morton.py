"""broadphase.morton against worked examples and a pure-Python re-implementation."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from broadphase import morton

# --------------------------------------------------------------------------
# pure-Python reference (written from the documented rules, not the kernels)


def ref_encode(ix, iy):
    code = 0
    for b in range(32):
        code |= ((ix >> b) & 1) << (2 * b)
        code |= ((iy >> b) & 1) << (2 * b + 1)
    return code


def ref_cell_of(c0, c1, depth):
    x = c0 ^ c1
    level = depth
    for g in range(depth):  # 2-bit group g covers bits 2g, 2g+1
        if (x >> (2 * g)) & 3:
            level = depth - g - 1  # the highest non-zero group wins
    return level, c1 >> (2 * (depth - level))


def ref_quantize(v, lo, hi, depth):
    cell = (Fraction(hi) - Fraction(lo)) / 2**depth
    q = math.floor((Fraction(v) - Fraction(lo)) / cell)
    return min(max(q, 0), 2**depth - 1)


def ref_locate(boxes, bounds, depth):
    x0, y0, x1, y1 = bounds
    levels, cells = [], []
    for bx0, by0, bx1, by1 in boxes:
        c0 = ref_encode(ref_quantize(bx0, x0, x1, depth), ref_quantize(by0, y0, y1, depth))
        c1 = ref_encode(ref_quantize(bx1, x0, x1, depth), ref_quantize(by1, y0, y1, depth))
        lv, ix = ref_cell_of(c0, c1, depth)
        levels.append(lv)
        cells.append(ix)
    return levels, cells


def v(x):
    """The single value of a scalar result (shape-agnostic; see test_scalar_in_scalar_out)."""
    a = np.asarray(x)
    assert a.size == 1
    return int(a.reshape(-1)[0])


def test_scalar_in_scalar_out():
    assert np.ndim(morton.encode(3, 6)) == 0
    assert v(morton.encode(3, 6)) == 45
    assert [int(x) for x in morton.decode(45)] == [3, 6]
    assert [int(x) for x in morton.cell_of(19, 31, 3)] == [1, 1]
    assert v(morton.linear_index(2, 11)) == 16


def test_array_in_array_out_shapes():
    assert morton.encode([3], [6]).shape == (1,)
    assert morton.encode(np.zeros((2, 3), int), 1).shape == (2, 3)
    ix, iy = morton.decode(np.zeros((2, 3), int))
    assert ix.shape == iy.shape == (2, 3)
    lv, ix = morton.cell_of([[19, 44]], [[31, 47]], 3)
    assert lv.tolist() == [[1, 2]] and ix.tolist() == [[1, 11]]


# --------------------------------------------------------------------------
# worked examples


def test_encode_worked_examples():
    # 3 = 011, 6 = 110 -> bits y2 x2 y1 x1 y0 x0 = 1 0 1 1 0 1 = 45
    assert v(morton.encode(3, 6)) == 45
    assert v(morton.encode(1, 2)) == 9  # x0=1, y1=1 -> bits 0 and 3
    assert v(morton.encode(6, 3)) == 30  # x1,x2 -> bits 2,4; y0,y1 -> bits 1,3
    assert morton.encode([0, 1, 0, 1], [0, 0, 1, 1]).tolist() == [0, 1, 2, 3]


def test_encode_scalar_and_array_types():
    out = morton.encode(np.array([[3, 1], [6, 0]]), 6)  # broadcast
    assert out.shape == (2, 2) and out.dtype == np.int64
    assert out.tolist() == [[45, ref_encode(1, 6)], [ref_encode(6, 6), ref_encode(0, 6)]]


def test_decode_worked_examples():
    assert [v(x) for x in morton.decode(45)] == [3, 6]
    assert [v(x) for x in morton.decode(9)] == [1, 2]
    assert [v(x) for x in morton.decode(30)] == [6, 3]
    ix, iy = morton.decode([0, 1, 2, 3])
    assert ix.tolist() == [0, 1, 0, 1] and iy.tolist() == [0, 0, 1, 1]


@pytest.mark.parametrize("c0, c1, expected", [
    (19, 31, (1, 1)),
    (44, 47, (2, 11)),
    (15, 60, (0, 0)),
    (45, 45, (3, 45)),  # same cell: finest level
    (0, 63, (0, 0)),
    (16, 17, (2, 4)),  # xor 1 -> lowest group -> level 2; 17 >> 2 = 4
])
def test_cell_of_worked_examples(c0, c1, expected):
    assert tuple(v(x) for x in morton.cell_of(c0, c1, 3)) == expected
    assert ref_cell_of(c0, c1, 3) == expected


def test_cell_of_highest_group_not_sum():
    # xor = 0b010101 has three non-zero groups: only the top one decides
    # (summing the shifts, as seed 004 did, would give a negative level)
    assert tuple(v(x) for x in morton.cell_of(0, 21, 3)) == (0, 0)
    assert tuple(v(x) for x in morton.cell_of(0, 5, 3)) == (1, 0)


@pytest.mark.parametrize("level, start", [(0, 0), (1, 1), (2, 5), (3, 21), (4, 85)])
def test_linear_index_level_starts(level, start):
    assert v(morton.linear_index(level, 0)) == start
    assert start == sum(4**k for k in range(level))


def test_linear_index_values():
    assert v(morton.linear_index(2, 11)) == 16
    assert morton.linear_index([0, 1, 2, 3], [0, 0, 11, 0]).tolist() == [0, 1, 16, 21]
    assert v(morton.linear_index(1, 3)) == 4  # last of level 1, just before level 2
    assert v(morton.linear_index(3, 63)) == 84
    assert v(morton.linear_index(29, 4**29 - 1)) == (4**30 - 1) // 3 - 1


def test_locate_docstring_example():
    boxes = [[10, 10, 20, 20], [240, 10, 260, 20], [0, 0, 500, 500], [490, 490, 500, 500]]
    levels, cells = morton.locate(boxes, (0, 0, 500, 500), depth=3)
    # cell side 62.5: box 1 spans columns 3 and 4 -> crosses the centre -> root;
    # box 3 touches the far corner -> clamped into the last cell (7, 7) = 63
    assert levels.tolist() == [3, 0, 0, 3] and cells.tolist() == [0, 0, 0, 63]
    assert levels.dtype == np.int64 and cells.dtype == np.int64


def test_locate_far_edge_clamp():
    b = (0.0, 0.0, 8.0, 8.0)
    boxes = [
        [8, 8, 8, 8],  # on the far corner -> last cell (7, 7)
        [7.5, 7.5, 9, 9],  # past the far edge -> clamped to the last cell
        [-3, -3, 0.5, 0.5],  # before the near edge -> first cell
        [7, 0, 8, 0.5],  # column 7, row 0: x-only code 0b010101 = 21
        [0, 7, 0.5, 8],  # column 0, row 7: 0b101010 = 42
        [-100, -100, 100, 100],  # everything -> root
        [4, 4, 4, 4],  # a point on the centre: cell (4, 4) = 48
    ]
    levels, cells = morton.locate(boxes, b, depth=3)
    assert levels.tolist() == [3, 3, 3, 3, 3, 0, 3]
    assert cells.tolist() == [63, 63, 0, 21, 42, 0, 48]
    assert ref_locate(boxes, b, 3) == (levels.tolist(), cells.tolist())


def test_locate_empty():
    levels, cells = morton.locate(np.empty((0, 4)), (0, 0, 1, 1), depth=4)
    assert levels.shape == (0,) and cells.shape == (0,)


# --------------------------------------------------------------------------
# properties


@given(ix=st.integers(0, 2**31 - 1), iy=st.integers(0, 2**31 - 1))
def test_encode_decode_round_trip(ix, iy):
    code = morton.encode(ix, iy)
    assert v(code) == ref_encode(ix, iy)
    dx, dy = morton.decode(code)
    assert (v(dx), v(dy)) == (ix, iy)


@given(codes=st.lists(st.integers(0, 2**62 - 1), min_size=1, max_size=20))
def test_decode_encode_round_trip_arrays(codes):
    ix, iy = morton.decode(np.array(codes, np.int64))
    assert morton.encode(ix, iy).tolist() == codes


@given(depth=st.integers(0, 12), data=st.data())
def test_cell_of_matches_reference(depth, data):
    c0 = data.draw(st.integers(0, 4**depth - 1))
    c1 = data.draw(st.integers(0, 4**depth - 1))
    lv, ix = morton.cell_of(c0, c1, depth)
    assert (v(lv), v(ix)) == ref_cell_of(c0, c1, depth)


# The kernels' level without encoding (xor_level_xy) is checked against the
# XOR rule by the Rust core's own property test (rust/core/src/morton.rs).


@st.composite
def dyadic_boxes(draw):
    """Bounds with a power-of-two side and dyadic coordinates: all arithmetic exact."""
    depth = draw(st.integers(0, 10))
    kx, ky = draw(st.integers(-3, 6)), draw(st.integers(-3, 6))
    ox, oy = draw(st.integers(-50, 50)), draw(st.integers(-50, 50))
    bounds = (float(ox), float(oy), float(ox + 2.0**kx), float(oy + 2.0**ky))
    n = draw(st.integers(1, 25))
    rows = []
    for _ in range(n):
        def coord(o, k):
            # units of 2**(k-12), from before the near edge to past the far edge
            return o + draw(st.integers(-300, 2**12 + 300)) * 2.0 ** (k - 12)
        xa, xb = sorted([coord(ox, kx), coord(ox, kx)])
        ya, yb = sorted([coord(oy, ky), coord(oy, ky)])
        if draw(st.booleans()):
            xb = bounds[2]  # exactly on the far edge
        xa = min(xa, xb)
        rows.append([xa, ya, xb, yb])
    return np.array(rows), bounds, depth


@given(case=dyadic_boxes())
def test_locate_matches_reference(case):
    boxes, bounds, depth = case
    levels, cells = morton.locate(boxes, bounds, depth)
    assert (levels.tolist(), cells.tolist()) == ref_locate(boxes.tolist(), bounds, depth)


@given(case=dyadic_boxes())
def test_locate_cell_contains_box(case):
    # every box (clamped to the world) lies inside the cell it is assigned
    boxes, bounds, depth = case
    levels, cells = morton.locate(boxes, bounds, depth)
    x0, y0, x1, y1 = (Fraction(v) for v in bounds)
    for (bx0, by0, bx1, by1), lv, ix in zip(boxes.tolist(), levels, cells, strict=True):
        cx, cy = (v(c) for c in morton.decode(int(ix)))
        wx, wy = (x1 - x0) / 2**int(lv), (y1 - y0) / 2**int(lv)
        lox, loy = x0 + cx * wx, y0 + cy * wy
        clamp = lambda v, a, b: min(max(Fraction(v), a), b)  # noqa: E731
        assert lox <= clamp(bx0, x0, x1) and clamp(bx1, x0, x1) <= lox + wx
        assert loy <= clamp(by0, y0, y1) and clamp(by1, y0, y1) <= loy + wy


# --------------------------------------------------------------------------
# errors


@pytest.mark.parametrize("call, exc, match", [
    (lambda: morton.encode(-1, 0), ValueError, r"ix"),
    (lambda: morton.encode(0, 2**31), ValueError, r"iy"),
    (lambda: morton.encode(1.5, 0), TypeError, r"ix"),
    (lambda: morton.decode(-5), ValueError, r"code"),
    (lambda: morton.decode(0.5), TypeError, r"code"),
    (lambda: morton.cell_of(64, 0, 3), ValueError, r"code0"),
    (lambda: morton.cell_of(0, 64, 3), ValueError, r"code1"),
    (lambda: morton.cell_of(0, 1, 30), ValueError, r"depth"),
    (lambda: morton.cell_of(0, 1, -1), ValueError, r"depth"),
    (lambda: morton.cell_of(0, 1, 2.0), TypeError, r"depth"),
    (lambda: morton.cell_of(0, 1, True), TypeError, r"depth"),
    (lambda: morton.linear_index(2, 16), ValueError, r"index"),
    (lambda: morton.linear_index(30, 0), ValueError, r"level"),
    (lambda: morton.linear_index(-1, 0), ValueError, r"level"),
    (lambda: morton.locate([[0, 0, 1, 1]], (0, 0, 0, 1), 3), ValueError, r"bounds"),
    (lambda: morton.locate([[0, 0, 1, 1]], (0, 0, np.nan, 1), 3), ValueError, r"bounds"),
    (lambda: morton.locate([[0, 0, 1, 1]], (0, 0, 1), 3), (TypeError, ValueError), r"bounds"),
    (lambda: morton.locate([[0, 0, 1, 1]], "abcd", 3), TypeError, r"bounds"),
    (lambda: morton.locate([[2, 0, 1, 1]], (0, 0, 1, 1), 3), ValueError, r"boxes\[0\]"),
    (lambda: morton.locate([[0, 0, 1]], (0, 0, 1, 1), 3), ValueError, r"boxes"),
    (lambda: morton.locate([[0, 0, 1, 1]], (0, 0, 1, 1), 30), ValueError, r"depth"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_unaligned_buffers_are_read():
    """Arrays over unaligned memory (from pickles, Arrow, frombuffer at an odd offset)."""
    raw = np.zeros(8 * 4 + 1, np.uint8)
    a = np.frombuffer(raw.data, np.int64, count=4, offset=1)
    assert not a.flags.aligned
    a2 = a.copy()  # writable, aligned twin with the same values
    np.testing.assert_array_equal(morton.encode(a, a), morton.encode(a2, a2))
    np.testing.assert_array_equal(np.stack(morton.decode(a)), np.stack(morton.decode(a2)))
    np.testing.assert_array_equal(np.stack(morton.cell_of(a, a, 3)),
                                  np.stack(morton.cell_of(a2, a2, 3)))


def test_cell_numbers_refuse_booleans_and_masked_values():
    with pytest.raises(TypeError, match=r"ix\[0\]: expected an integer, found True \(a bool\)"):
        morton.encode([True, 2], [0, 0])
    with pytest.raises(ValueError, match=r"ix\[0\]: a masked value"):
        morton.encode(np.ma.masked_array([1, 2], [True, False]), [0, 0])
    assert morton.encode([1, 2], [0, 0]).tolist() == [1, 4]


def test_codes_past_2_53_in_lists_and_empty_lists():
    # Morton numbers go up to 2**62: a list of them is read as integers, not floats
    assert morton.decode([2**60])[0].tolist() == [2**30]
    assert morton.decode([2**60 + 1])[0].tolist() == [2**30 + 1]
    assert morton.decode(np.array([2**60 + 1], dtype=object))[0].tolist() == [2**30 + 1]
    assert morton.linear_index([29], [4**29 - 1]).tolist() == [(4**29 - 1) // 3 + 4**29 - 1]
    assert morton.encode([], []).tolist() == []
    with pytest.raises(TypeError, match=r"ix\[0\]: expected an integer, found 1\.5"):
        morton.encode(np.array([1.5]), [0])
