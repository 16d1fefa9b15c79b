"""Triclinic cells (``period=`` a matrix of cell vectors), against exact references.

The references shift copies by integer combinations of the cell vectors in
Python Fractions, so no rounding decides a pair.  The shifts tried are, axis
by axis from the last, those within 3 of the nearest on that axis: a copy
that meets is within half the cell's side there, so it is among them.  Each
reference also checks that at most one copy meets.
"""

from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import broadphase as bp


def copies(cell, a, b, keep):
    """The shifts ``n`` of ``a``'s copies near ``b``, kept while ``keep(n, k)`` holds."""
    d = len(cell)
    found = [[0] * d]
    for k in reversed(range(d)):
        nxt = []
        for n in found:
            later = sum(n[m] * cell[m][k] for m in range(k + 1, d))
            est = round((b[k] - a[k] - later) / cell[k][k])
            for nk in range(est - 3, est + 4):
                m = list(n)
                m[k] = nk
                if keep(m, k):
                    nxt.append(m)
        found = nxt
    return found


def shift(cell, n, k):
    return sum(n[m] * cell[m][k] for m in range(len(cell)))


def boxes_meeting(cell, a, b):
    d = len(cell)
    a, b = [F(x) for x in a], [F(x) for x in b]
    return len(copies(cell, a[:d], b[:d], lambda n, k: a[k] + shift(cell, n, k) < b[d + k]
                      and b[k] < a[d + k] + shift(cell, n, k)))


def ball_copies(cell, a, b):
    """The copies of ball ``a`` meeting ball ``b``, as (shift, vector from copy to ``b``)."""
    d = len(cell)
    a, b = [F(x) for x in a], [F(x) for x in b]
    reach = (a[d] + b[d]) ** 2

    def gap(n, k):
        return b[k] - a[k] - shift(cell, n, k)

    near = copies(cell, a[:d], b[:d], lambda n, k: gap(n, k) ** 2 < reach)
    return [(n, [gap(n, k) for k in range(d)]) for n in near
            if sum(gap(n, k) ** 2 for k in range(d)) < reach]


def reference(rows, count):
    out = []
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            m = count(rows[i], rows[j])
            assert m <= 1, (i, j, m)
            if m:
                out.append([i, j])
    return out


def fractions(cell):
    return [[F(x) for x in row] for row in cell]


@st.composite
def cells(draw, d):
    h = [[0.0] * d for _ in range(d)]
    for m in range(d):
        h[m][m] = draw(st.sampled_from([10.0, 7.5, 3.0]))
    for m in range(d):
        for k in range(m):
            half = h[k][k] / 2
            h[m][k] = draw(st.one_of(
                st.sampled_from([0.0, half, -half, half * 1.000001, -half * 1.000001]),
                st.integers(-4, 4).map(lambda q, half=half: q * half / 4),
                # tilts below 1e-250 in magnitude are refused (tested below)
                st.floats(-half, half, allow_nan=False).filter(
                    lambda x: x == 0 or abs(x) >= 1e-250),
            ))
    return h


coordinate = st.one_of(
    st.integers(-24, 24).map(lambda k: k / 4),
    st.sampled_from([0.0, -0.0, 10.0, np.nextafter(10.0, 0), 7.5, 3.0, 1e-300, 9.999]),
    st.floats(-30, 30, allow_nan=False, width=64),
)


@st.composite
def cell_boxes(draw, d):
    cell = draw(cells(d))
    rows = []
    for _ in range(draw(st.integers(0, 14))):
        lo = [draw(coordinate) for _ in range(d)]
        hi = []
        for k in range(d):
            w = draw(st.one_of(st.just(0.0), st.just(cell[k][k] / 2),
                               st.floats(0, cell[k][k] / 2)))
            top = lo[k] + w
            hi.append(top if F(top) - F(lo[k]) <= F(cell[k][k]) / 2 else lo[k])
        rows.append(lo + hi)
    return cell, rows


@st.composite
def cell_balls(draw, d):
    cell = draw(cells(d))
    most = min(cell[k][k] for k in range(d)) / 4
    rows = [[draw(coordinate) for _ in range(d)]
            + [draw(st.one_of(st.just(0.0), st.just(most), st.floats(0, most)))]
            for _ in range(draw(st.integers(0, 14)))]
    return cell, rows


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([2, 3]).flatmap(cell_boxes),
       st.sampled_from(["auto", "brute", "sweep", "grid", "quadtree"]))
def test_boxes_in_a_cell_equal_copies_in_fractions(case, method):
    cell, rows = case
    d = len(cell)
    h = fractions(cell)
    want = reference(rows, lambda a, b: boxes_meeting(h, a, b))
    boxes = np.array(rows, np.float64).reshape(-1, 2 * d)
    got = bp.find_pairs(boxes, period=cell, method=method)
    assert got.tolist() == want


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([2, 3]).flatmap(cell_balls),
       st.sampled_from(["auto", "brute", "sweep", "grid", "quadtree"]))
def test_balls_in_a_cell_equal_copies_in_fractions(case, method):
    cell, rows = case
    d = len(cell)
    h = fractions(cell)
    want = reference(rows, lambda a, b: len(ball_copies(h, a, b)))
    xyr = np.array(rows, np.float64).reshape(-1, d + 1)
    got, dist, vec = bp.find_circle_pairs(xyr[:, :d], xyr[:, d], period=cell, method=method,
                                          return_distances=True, return_vectors=True)
    assert got.tolist() == want
    for (i, j), length, v in zip(want, dist, vec, strict=True):
        (_, exact), = ball_copies(h, rows[i], rows[j])
        scale = 1e-12 * (1 + sum(abs(x) for x in rows[i] + rows[j]))
        assert np.allclose(v, [float(x) for x in exact], rtol=0, atol=scale)
        assert abs(length - float(sum(x * x for x in exact)) ** 0.5) <= scale


@pytest.mark.parametrize("d", [2, 3])
def test_many_points_equal_the_reference_and_every_method(d):
    rng = np.random.default_rng(5 + d)
    cell = np.diag(rng.uniform(5, 9, d))
    for m in range(d):
        for k in range(m):
            cell[m, k] = rng.uniform(-0.5, 0.5) * cell[k, k]
    pts = rng.random((1500, d)) @ cell + rng.normal(0, 2, (1500, d))  # some outside the cell
    got, dist, vec = bp.find_point_pairs(pts, 0.7, period=cell, return_distances=True,
                                         return_vectors=True)
    assert len(got) > 100
    for method in ("brute", "grid", "sweep"):
        assert np.array_equal(bp.find_point_pairs(pts, 0.7, period=cell, method=method), got)
    # every pair's vector is a lattice copy of the difference, and below the cutoff
    assert (dist < 0.7).all()
    steps = np.linalg.solve(cell.T, (vec - (pts[got[:, 1]] - pts[got[:, 0]])).T).T
    np.testing.assert_allclose(steps, np.round(steps), atol=1e-9)
    # and no pair is missed: the nearest copy of every pair within the cutoff, by NumPy
    h = fractions(cell.tolist())
    some = rng.choice(len(pts), 120, replace=False)
    sub = pts[some]
    want = reference(sub.tolist(), lambda a, b: len(ball_copies(h, a + [0.35], b + [0.35])))
    assert bp.find_point_pairs(sub, 0.7, period=cell).tolist() == want


def test_a_cell_without_tilt_is_the_period_per_axis():
    rng = np.random.default_rng(3)
    boxes = rng.random((400, 4)) * 12 - 1
    boxes[:, 2:] = boxes[:, :2] + rng.random((400, 2)) * 2
    by_axes = bp.find_pairs(boxes, period=(10, 8))
    assert np.array_equal(bp.find_pairs(boxes, period=[[10, 0], [0, 8]]), by_axes)
    assert len(by_axes)


def test_a_pair_through_the_tilted_face_and_between():
    cell = [[10, 0], [5, 10]]  # b leans half a cell to the right
    # (6, 9.5) shifted by -b is (1, -0.5): 0.5 from (1, 0)
    assert bp.find_point_pairs([[6, 9.5], [1, 0], [6, 0]], 1, period=cell).tolist() == [[0, 1]]
    a = [[5.8, 9.4, 6.2, 9.9]]
    b = [[0.9, -0.2, 1.1, 0.1], [5.9, -0.2, 6.1, 0.1]]
    assert bp.find_pairs_between(a, b, period=cell).tolist() == [[0, 0]]
    assert bp.find_pairs_between(a, b, period=(10, 10)).tolist() == [[0, 1]]


def test_equals_mdanalysis_on_a_triclinic_box():
    mda_distances = pytest.importorskip("MDAnalysis.lib.distances")
    mdamath = pytest.importorskip("MDAnalysis.lib.mdamath")
    dims = np.array([20.0, 22.0, 24.0, 70.0, 80.0, 95.0], np.float32)
    cell = mdamath.triclinic_vectors(dims).astype(np.float64)
    rng = np.random.default_rng(9)
    pts = (rng.random((3000, 3)) * 20).astype(np.float32).astype(np.float64)
    pairs, dist = mda_distances.self_capped_distance(pts, 2.5, box=dims)
    theirs = {tuple(sorted(p)) for p, r in zip(pairs.tolist(), dist, strict=True) if r < 2.4999}
    ours, d = bp.find_point_pairs(pts, 2.5, period=cell, return_distances=True)
    mine = {tuple(p) for p, r in zip(ours.tolist(), d, strict=True) if r < 2.4999}
    assert mine == theirs and len(mine) > 1000


def test_errors_name_the_entry_the_row_and_the_limit():
    box = [[0, 0, 1, 1]]
    with pytest.raises(ValueError, match=r"period\[0\]\[1\]: expected 0"):
        bp.find_pairs(box, period=[[10, 1], [5, 10]])
    with pytest.raises(ValueError, match=r"period\[1\]\[0\]: expected a tilt at most half"):
        bp.find_pairs(box, period=[[10, 0], [6, 10]])
    with pytest.raises(ValueError, match=r"period\[1\]\[1\]: expected a length > 0"):
        bp.find_pairs(box, period=[[10, 0], [5, -10]])
    with pytest.raises(ValueError, match=r"period\[1\]\[1\]: expected a length > 0"):
        bp.find_pairs(box, period=[[10, 0], [0, -10]])  # no tilt: still named as an entry
    with pytest.raises(ValueError, match=r"period\[1\]\[0\]: expected a finite number, found nan"):
        bp.find_pairs(box, period=[[10, 0], [np.nan, 10]])
    with pytest.raises(ValueError, match=r"period\[1\]\[0\]: expected 0 or a finite number within"):
        bp.find_pairs(box, period=[[10, 0], [5e-324, 10]])
    with pytest.raises(ValueError, match=r"period: expected a \(2, 2\) matrix"):
        bp.find_pairs(box, period=np.eye(3))
    with pytest.raises(TypeError, match=r"period"):
        bp.find_pairs(box, period=[[True, 0], [0, 1]])
    with pytest.raises(ValueError, match=r"boxes\[1\]: lies more than 2\*\*22 of the periodic"):
        bp.find_pairs([[0, 0, 1, 1], [0, 1e12, 1, 1e12]], period=[[10, 0], [5, 10]])
    with pytest.raises(ValueError, match=r"boxes\[0\]: spans 6.0 on the periodic y axis, more "
                                         r"than half the cell's side 10.0"):
        bp.find_pairs([[0, 0, 1, 6]], period=[[10, 0], [5, 10]])
    with pytest.raises(ValueError, match=r"radii: a diameter of 6.0 is more than half the cell"):
        bp.find_circle_pairs([[0, 0]], 3, period=[[10, 0], [5, 10]])
    with pytest.raises(ValueError, match=r"cutoff: 6.0 is more than half the cell's side"):
        bp.find_point_pairs([[0, 0]], 6, period=[[10, 0], [5, 10]])
    with pytest.raises(ValueError, match=r"points\[0\]: lies more than"):
        bp.find_point_pairs([[1e12, 0]], 1, period=[[10, 0], [5, 10]])
    with pytest.raises(ValueError, match=r"the trees take one period per axis"):
        bp.LinearQuadtree((0, 0, 10, 10), depth=3, period=[[10, 0], [5, 10]])
    with pytest.raises(ValueError, match=r"touching: expected False with a period"):
        bp.find_pairs(box, period=[[10, 0], [5, 10]], touching=True)


def test_inputs_are_not_modified():
    pts = np.random.default_rng(2).random((2000, 3)) * 30 - 10
    cell = np.array([[10.0, 0, 0], [3.0, 10, 0], [-2.0, 4, 10]])
    before, cell_before = pts.copy(), cell.copy()
    bp.find_point_pairs(pts, 0.5, period=cell, return_vectors=True)
    assert np.array_equal(pts, before) and np.array_equal(cell, cell_before)
