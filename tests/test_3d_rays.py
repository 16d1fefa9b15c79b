"""Ray casts in 3D (``cast_rays`` at six-column boxes, ``cast_rays_circles`` at
spheres) against an exact reference written here with Fractions.

A ray ``o + s d``, ``0 <= s <= S``, hits an object when a point of it lies
strictly inside; it enters at the least such ``s``.  For a box that set is
the open interval ``(L, U)`` of the slabs cut to ``[0, S]``; for a sphere
the quadratic ``|o + s d - c|^2 - r^2`` is least on ``[0, S]`` at the
clamped vertex, so a hit is that minimum below zero (exact, rational).
"""

from fractions import Fraction as F
from math import inf, sqrt

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import broadphase as bp

coord = st.integers(-6, 6).map(lambda v: v / 2)
side = st.sampled_from([0.0, 0.5, 1.0, 2.0, 4.0])
a_box = st.tuples(coord, coord, coord, side, side, side).map(
    lambda t: [t[0], t[1], t[2], t[0] + t[3], t[1] + t[4], t[2] + t[5]])
a_dir = st.tuples(*[st.sampled_from([-2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 3.0])] * 3)
a_max_t = st.sampled_from([0.0, 0.5, 1.0, 2.0, inf])


def box_entry(b, o, d, s_max):
    """Exact entry of the ray into the open box, or None."""
    lo, hi = F(-10**9), None
    for k in range(3):
        if d[k] == 0:
            if not b[k] < o[k] < b[3 + k]:
                return None
            continue
        a, c = (F(b[k]) - F(o[k])) / F(d[k]), (F(b[3 + k]) - F(o[k])) / F(d[k])
        a, c = min(a, c), max(a, c)
        lo = max(lo, a)
        hi = c if hi is None else min(hi, c)
    if hi is None:  # a point (or an axis-free ray) inside
        return F(0)
    if not (hi > 0 and lo < hi and (s_max == inf or lo < F(s_max))):
        return None
    return max(lo, F(0))


def sphere_hit(c, o, d, s_max):
    """Whether the ray meets the open sphere (exact), and its entry as a float."""
    p = [F(o[k]) - F(c[k]) for k in range(3)]
    dd = [F(v) for v in d]
    a = sum(v * v for v in dd)
    b = 2 * sum(p[k] * dd[k] for k in range(3))
    c0 = sum(v * v for v in p) - F(c[3]) ** 2
    if a == 0:
        return (True, 0.0) if c0 < 0 else (False, inf)
    s = -b / (2 * a)
    s = max(F(0), s if s_max == inf else min(s, F(s_max)))
    if not a * s * s + b * s + c0 < 0:
        return False, inf
    root = (-float(b) - sqrt(float(b * b - 4 * a * c0))) / (2 * float(a))
    return True, max(root, 0.0)


@settings(max_examples=200, deadline=None)
@given(boxes=st.lists(a_box, min_size=0, max_size=12),
       rays=st.lists(st.tuples(st.tuples(coord, coord, coord), a_dir, a_max_t), min_size=1,
                     max_size=8))
def test_box_casts_equal_the_exact_reference(boxes, rays):
    arr = np.array(boxes, float).reshape(-1, 6)
    for o, d, s_max in rays:
        entries = [box_entry(b, o, d, s_max) for b in boxes]
        hit = [(e, j) for j, e in enumerate(entries) if e is not None]
        index, t = bp.cast_rays(arr, [o], [d], max_t=s_max)
        if hit:
            e, j = min(hit)
            assert index.tolist() == [j] and t.tolist() == [float(e)]
        else:
            assert index.tolist() == [-1] and t.tolist() == [inf]
        pairs, ts = bp.cast_rays(arr, [o], [d], max_t=s_max, hits="all")
        assert pairs.tolist() == [[0, j] for _, j in sorted((j, j) for _, j in hit)]
        assert ts.tolist() == [float(entries[j]) for _, j in sorted((j, j) for _, j in hit)]
        assert bp.cast_rays(arr, [o], [d], max_t=s_max, hits="any").tolist() == [bool(hit)]


@settings(max_examples=200, deadline=None)
@given(spheres=st.lists(st.tuples(coord, coord, coord, st.sampled_from([0.0, 0.5, 1.0, 2.5])),
                        min_size=1, max_size=10),
       rays=st.lists(st.tuples(st.tuples(coord, coord, coord), a_dir, a_max_t), min_size=1,
                     max_size=6))
def test_sphere_casts_equal_the_exact_reference(spheres, rays):
    c = np.array(spheres, float)
    for o, d, s_max in rays:
        want = [sphere_hit(s, o, d, s_max) for s in spheres]
        pairs, ts = bp.cast_rays_circles(c[:, :3], c[:, 3], [o], [d], max_t=s_max, hits="all")
        hit = [j for j, (h, _) in enumerate(want) if h]
        assert pairs.tolist() == [[0, j] for j in hit]
        assert np.allclose(ts, [want[j][1] for j in hit], rtol=1e-9, atol=1e-300)
        index, t = bp.cast_rays_circles(c[:, :3], c[:, 3], [o], [d], max_t=s_max)
        if hit:
            best = min(want[j][1] for j in hit)
            assert index[0] in hit and abs(want[index[0]][1] - best) <= 1e-9 * max(1, best)
            assert t[0] == pytest.approx(best, rel=1e-9, abs=1e-300)
        else:
            assert index.tolist() == [-1]


def test_many_rays_against_many_cubes_equal_the_brute_force():
    rng = np.random.default_rng(3)
    lo = rng.uniform(0, 100, (3000, 3))
    boxes = np.hstack([lo, lo + rng.uniform(0.5, 3, (3000, 3))])
    o = rng.uniform(-10, 110, (400, 3))
    d = rng.normal(size=(400, 3))
    d[:50, 1:] = 0.0          # along x
    d[50:60] = 0.0            # points
    index, t = bp.cast_rays(boxes, o, d, max_t=60.0, workers=2)
    pairs, ts = bp.cast_rays(boxes, o, d, max_t=60.0, hits="all", workers=1)
    # the brute force: every ray against every box by NumPy slabs (random floats: no ties)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = (boxes[None, :, :3] - o[:, None, :]) / d[:, None, :]
        b = (boxes[None, :, 3:] - o[:, None, :]) / d[:, None, :]
    inside = (boxes[None, :, :3] < o[:, None, :]) & (o[:, None, :] < boxes[None, :, 3:])
    lo_s = np.where(d[:, None, :] == 0, np.where(inside, -inf, inf), np.minimum(a, b))
    hi_s = np.where(d[:, None, :] == 0, np.where(inside, inf, -inf), np.maximum(a, b))
    lo_s, hi_s = lo_s.max(axis=2), hi_s.min(axis=2)
    hit = (hi_s > 0) & (lo_s < hi_s) & (lo_s < 60.0)
    want = np.argwhere(hit)
    assert pairs.tolist() == want.tolist()
    assert np.allclose(ts, np.maximum(lo_s[hit], 0))
    first = np.where(hit, np.maximum(lo_s, 0), inf)
    assert index.tolist() == [int(np.argmin(r)) if np.isfinite(r.min()) else -1 for r in first]


def test_filters_ignore_and_errors():
    cubes = [[1, -1, -1, 2, 1, 1], [3, -1, -1, 4, 1, 1]]
    o, d = [[0, 0, 0]], [[1, 0, 0]]
    assert bp.cast_rays(cubes, o, d, ignore=0)[0].tolist() == [1]
    assert bp.cast_rays(cubes, o, d, categories=[1, 2], ray_masks=[2])[0].tolist() == [1]
    assert bp.cast_rays(np.empty((0, 6)), o, d)[0].tolist() == [-1]
    assert bp.cast_rays([], o, d)[0].tolist() == [-1]
    with pytest.raises(ValueError, match="origins"):
        bp.cast_rays(cubes, [[0, 0]], [[1, 0]])            # 2D rays at 3D boxes
    with pytest.raises(ValueError, match="directions"):
        bp.cast_rays(cubes, o, [[1, 0, np.nan]])
    with pytest.raises(ValueError, match=r"boxes\[1\]"):
        bp.cast_rays([[0, 0, 0, 1, 1, 1], [0, 0, 2, 1, 1, 1]], o, d)
    with pytest.raises(ValueError, match="origins"):
        bp.cast_rays([[0, 0, 1, 1]], o, d)                 # 3D rays at 2D boxes
