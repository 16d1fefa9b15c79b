"""``cast_rays`` and ``cast_rays_circles`` against an exact reference in Fractions.

Inputs rich in ties (small integers: shared edges, rays along edges and
through corners, axis-parallel and zero directions, ``-0.0``), random floats,
huge and tiny coordinates; every mode and filter; the rows named by errors.
"""

from __future__ import annotations

import math
import sys
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import broadphase as bp
import refs_casts as ref

INF = math.inf


def small_boxes(max_size=12):
    box = st.tuples(st.integers(-6, 6), st.integers(-6, 6), st.integers(0, 4), st.integers(0, 4))
    return st.lists(box, max_size=max_size).map(
        lambda bs: [[x, y, x + w, y + h] for x, y, w, h in bs])


coord = st.sampled_from([-3, -2, -1, -0.5, -0.0, 0.0, 0.5, 1, 2, 3, 4])
rays = st.lists(st.tuples(st.integers(-8, 8), st.integers(-8, 8), coord, coord,
                          st.sampled_from([0, 0.5, 1, 2.5, INF])), min_size=1, max_size=10)


def reference_boxes(boxes, origins, directions, max_t, keep=lambda k, j: True):
    """Per ray: every (box, t) hit, by box; t Fractions."""
    return [[(j, t) for j, b in enumerate(boxes) if keep(k, j)
             for t in [ref.ray_box(b, origins[k], directions[k], max_t[k])] if t is not None]
            for k in range(len(origins))]


def expected(per_ray, order=lambda t: t):
    """``first``, ``all`` and ``any`` answers of the hits of each ray."""
    index, tf, rows, ts = [], [], [], []
    for k, hits in enumerate(per_ray):
        if hits:
            j, t = min(hits, key=lambda h: (order(h[1]), h[0]))
            index.append(j)
            tf.append(t)
        else:
            index.append(-1)
            tf.append(INF)
        for j, t in hits:
            rows.append([k, j])
            ts.append(t)
    return index, tf, rows, ts, [bool(h) for h in per_ray]


def to_float(v) -> float:
    """The nearest double of a Fraction (``inf`` past the largest)."""
    try:
        return float(v)
    except OverflowError:
        return INF


def check_boxes(boxes, origins, directions, max_t, **filters):
    keep = filters.pop("keep", lambda k, j: True)
    per_ray = reference_boxes(boxes, origins, directions, max_t, keep)
    index, tf, rows, ts, anys = expected(per_ray)
    b = np.array(boxes, np.float64).reshape(-1, 4)
    i, t = bp.cast_rays(b, origins, directions, max_t=max_t, **filters)
    assert i.dtype == np.intp and i.tolist() == index
    # correctly rounded: float(Fraction) is the nearest double
    assert t.tolist() == [to_float(v) for v in tf]
    pairs, t = bp.cast_rays(b, origins, directions, max_t=max_t, hits="all", **filters)
    assert pairs.dtype == np.intp and pairs.shape == (len(rows), 2)
    assert pairs.tolist() == rows and t.tolist() == [to_float(v) for v in ts]
    assert bp.cast_rays(b, origins, directions, max_t=max_t, hits="any",
                        **filters).tolist() == anys


@settings(max_examples=300, deadline=None)
@given(small_boxes(), rays)
def test_small_integers_every_mode(boxes, rs):
    origins = [[r[0], r[1]] for r in rs]
    directions = [[r[2], r[3]] for r in rs]
    check_boxes(boxes, origins, directions, [r[4] for r in rs])


@settings(max_examples=150, deadline=None)
@given(small_boxes(), rays, st.data())
def test_filters_and_ignore(boxes, rs, data):
    n, m = len(boxes), len(rs)
    bits = st.integers(0, 7)
    cats = data.draw(st.lists(bits, min_size=n, max_size=n))
    masks = data.draw(st.lists(bits, min_size=n, max_size=n))
    rcats = data.draw(st.lists(bits, min_size=m, max_size=m))
    rmasks = data.draw(st.lists(bits, min_size=m, max_size=m))
    ignore = data.draw(st.lists(st.integers(-1, n - 1), min_size=m, max_size=m))
    origins = [[r[0], r[1]] for r in rs]
    directions = [[r[2], r[3]] for r in rs]

    def keep(k, j):
        return ref.passes(k, j, cats, masks, rcats, rmasks, ignore)
    check_boxes(boxes, origins, directions, [r[4] for r in rs], keep=keep, categories=cats,
                masks=masks, ray_categories=rcats, ray_masks=rmasks, ignore=ignore)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1e-300, 1.0, 1e6, 1e300]))
def test_random_floats(seed, scale):
    rng = np.random.default_rng(seed)
    xy = rng.uniform(-50, 50, (40, 2)) * scale
    boxes = np.hstack([xy, xy + rng.uniform(0, 20, (40, 2)) * scale])
    origins = rng.uniform(-60, 60, (15, 2)) * scale
    directions = rng.normal(size=(15, 2))
    max_t = rng.choice([INF, 10.0, 100.0 * scale], 15)
    check_boxes(boxes.tolist(), origins.tolist(), directions.tolist(), max_t.tolist())


def test_grazing_corners_inside_and_degenerate():
    box = [[0, 0, 2, 2]]
    cases = [  # origin, direction, max_t, t or None
        ([-1, 2], [1, 0], INF, None),      # along the top edge
        ([-1, 0], [1, 0], INF, None),      # along the bottom edge
        ([-1, -1], [1, 1], INF, 1.0),      # through the diagonal
        ([-1, 1], [1, -1], INF, None),     # through the corner (0, 0) only
        ([1, 1], [0, 0], 0, 0.0),          # inside, zero length
        ([1, 1], [-0.0, 0.0], INF, 0.0),   # inside, zero direction
        ([3, 1], [0, 0], INF, None),       # outside, zero direction
        ([-1, 1], [1, 0], 1, None),        # reaches the edge exactly at max_t
        ([-1, 1], [1, 0], 1.5, 1.0),
        ([0, 1], [1, 0], INF, 0.0),        # starts on the edge, going in
        ([0, 1], [-1, 0], INF, None),      # starts on the edge, going out
        ([1, -5], [-0.0, 1], INF, 5.0),    # axis-parallel, -0.0
        ([-1e300, 1], [1e300, 0], INF, 1.0),
    ]
    for o, d, mt, want in cases:
        i, t = bp.cast_rays(box, [o], [d], max_t=mt)
        assert (i[0], t[0]) == ((-1, INF) if want is None else (0, want)), (o, d, mt)


def test_huge_and_tiny_coordinates():
    boxes = [[-1.7e308, -1, -1.6e308, 1], [1.6e308, -1, 1.7e308, 1], [5e-324, 0, 1e-323, 1e-323]]
    origins = [[0, 0.5], [-1.65e308, 0], [0, 5e-324], [1.0, 0.0]]
    directions = [[1e308, 0], [5e-324, 0], [1, 0], [-1e-300, 0]]
    check_boxes(boxes, origins, directions, [INF] * 4)


def test_ties_go_to_the_lower_index():
    boxes = [[5, -1, 6, 1], [2, -2, 3, 2], [2, -1, 4, 1]]
    i, t = bp.cast_rays(boxes, [[0, 0]], [[1, 0]])
    assert (i.tolist(), t.tolist()) == ([1], [2.0])


def test_threads_do_not_change_the_answer():
    rng = np.random.default_rng(7)
    xy = rng.uniform(0, 1000, (20_000, 2))
    boxes = np.hstack([xy, xy + rng.uniform(0.5, 5, (20_000, 2))])
    o = rng.uniform(0, 1000, (5000, 2))
    d = rng.normal(size=(5000, 2))
    for hits in ("first", "all", "any"):
        one = bp.cast_rays(boxes, o, d, hits=hits, workers=1)
        many = bp.cast_rays(boxes, o, d, hits=hits)
        for a, b in zip(one if isinstance(one, tuple) else [one],
                        many if isinstance(many, tuple) else [many], strict=True):
            np.testing.assert_array_equal(a, b)


@settings(max_examples=200, deadline=None)
@given(small_boxes(), rays)
def test_circles_every_mode(boxes, rs):
    centers = [[b[0], b[1]] for b in boxes]
    radii = [(b[2] - b[0]) / 2 for b in boxes]
    origins = [[r[0], r[1]] for r in rs]
    directions = [[r[2], r[3]] for r in rs]
    max_t = [r[4] for r in rs]
    per_ray = []
    for k in range(len(rs)):
        hits = []
        for j, c in enumerate(centers):
            hit, t = ref.ray_circle([c[0], c[1], radii[j]], origins[k], directions[k], max_t[k])
            if hit:
                hits.append((j, t))
        per_ray.append(hits)
    index, tf, rows, ts, anys = expected(per_ray)
    c = np.array(centers, np.float64).reshape(-1, 2)
    i, t = bp.cast_rays_circles(c, radii, origins, directions, max_t=max_t)
    assert i.tolist() == index
    for got, want in zip(t.tolist(), tf, strict=True):
        assert got == want if want in (INF, 0) else math.isclose(got, float(want), rel_tol=1e-9)
    pairs, t = bp.cast_rays_circles(c, radii, origins, directions, max_t=max_t, hits="all")
    assert pairs.tolist() == rows
    assert np.allclose(t, [float(v) for v in ts], rtol=1e-9, atol=0)
    assert bp.cast_rays_circles(c, radii, origins, directions, max_t=max_t,
                                hits="any").tolist() == anys


CIRCLE_REL = 2.0**-36  # the documented bound on circles' t


def check_circles(centers, radii, origins, directions, max_t, keep=lambda k, j: True, **filters):
    """Every mode against the exact reference: hits and their order exact, each ``t``
    within a relative 2**-36 of the exact entry (decided in Fractions)."""
    xyr = [[c[0], c[1], r] for c, r in zip(centers, radii, strict=True)]
    per_ray = [[(j, t) for j, c in enumerate(xyr) if keep(k, j)
                for hit, t in [ref.ray_circle(c, origins[k], directions[k], max_t[k])] if hit]
               for k in range(len(origins))]
    index, _, rows, _, anys = expected(per_ray)
    c = np.array(centers, np.float64).reshape(-1, 2)

    def within(k, j, t):
        return ref.ray_circle_within(xyr[j], origins[k], directions[k], t, CIRCLE_REL)
    i, t = bp.cast_rays_circles(c, radii, origins, directions, max_t=max_t, **filters)
    assert i.dtype == np.intp and i.tolist() == index
    for k, (j, tk) in enumerate(zip(i.tolist(), t.tolist(), strict=True)):
        assert tk == INF if j < 0 else within(k, j, tk), (k, j, tk)
    pairs, t = bp.cast_rays_circles(c, radii, origins, directions, max_t=max_t, hits="all",
                                    **filters)
    assert pairs.dtype == np.intp and pairs.tolist() == rows
    assert all(within(k, j, tk) for (k, j), tk in zip(rows, t.tolist(), strict=True))
    assert bp.cast_rays_circles(c, radii, origins, directions, max_t=max_t, hits="any",
                                **filters).tolist() == anys


def draw_filters(data, n, m):
    bits = st.integers(0, 7)
    return dict(categories=data.draw(st.lists(bits, min_size=n, max_size=n)),
                masks=data.draw(st.lists(bits, min_size=n, max_size=n)),
                ray_categories=data.draw(st.lists(bits, min_size=m, max_size=m)),
                ray_masks=data.draw(st.lists(bits, min_size=m, max_size=m)),
                ignore=data.draw(st.lists(st.integers(-1, n - 1), min_size=m, max_size=m)))


def keep_of(f):
    """The filters spelled out: ray k may hit object j."""
    def keep(k, j):
        if f["ignore"][k] == j:
            return False
        return (f["ray_categories"][k] & f["masks"][j] != 0
                and f["categories"][j] & f["ray_masks"][k] != 0)
    return keep


@settings(max_examples=150, deadline=None)
@given(small_boxes(), rays, st.data())
def test_circles_filters_and_ignore(boxes, rs, data):
    filters = draw_filters(data, len(boxes), len(rs))
    check_circles([[b[0], b[1]] for b in boxes], [(b[2] - b[0]) / 2 for b in boxes],
                  [[r[0], r[1]] for r in rs], [[r[2], r[3]] for r in rs], [r[4] for r in rs],
                  keep=keep_of(filters), **filters)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1e-300, 1.0, 1e6, 1e300]), st.data())
def test_circles_random_floats_with_filters(seed, scale, data):
    rng = np.random.default_rng(seed)
    centers = (rng.uniform(-50, 50, (30, 2)) * scale).tolist()
    radii = (rng.uniform(0, 10, 30) * scale).tolist()
    origins = (rng.uniform(-60, 60, (12, 2)) * scale).tolist()
    directions = (rng.normal(size=(12, 2)) * scale).tolist()  # entries of moderate size
    max_t = rng.choice([INF, 0.5, 10.0], 12).tolist()
    check_circles(centers, radii, origins, directions, max_t)
    filters = draw_filters(data, 30, 12)
    check_circles(centers, radii, origins, directions, max_t, keep=keep_of(filters), **filters)


def test_circle_entries_near_the_bound():
    # long rays at far, large circles and near-tangent ones: t's error is largest
    rng = np.random.default_rng(11)
    centers = rng.uniform(-1e6, 1e6, (40, 2))
    radii = rng.uniform(1, 1e5, 40)
    origins = rng.uniform(-3e6, 3e6, (40, 2))
    aim = centers[rng.integers(0, 40, 40)] - origins  # at a centre, then turned a little
    turn = rng.uniform(-0.2, 0.2, 40)
    directions = np.stack([aim[:, 0] * np.cos(turn) - aim[:, 1] * np.sin(turn),
                           aim[:, 0] * np.sin(turn) + aim[:, 1] * np.cos(turn)], axis=1)
    check_circles(centers.tolist(), radii.tolist(), origins.tolist(), directions.tolist(),
                  [INF] * 40)


@pytest.mark.parametrize("center, radius, direction", [
    ([3, 0], 1, [1e-300, 0]),    # exact entry 2e300
    ([3e301, 0], 1e301, [1, 0]),  # exact entry 2e301
    ([3, 0], 1, [1e-160, 0]),    # exact entry 2e160
])
def test_circle_entries_far_along_a_ray(center, radius, direction):
    i, t = bp.cast_rays_circles([center], [radius], [[0, 0]], [direction])
    assert i.tolist() == [0]
    assert ref.ray_circle_within(center + [radius], [0, 0], direction, t[0], CIRCLE_REL)


def test_circle_threads_do_not_change_the_answer():
    rng = np.random.default_rng(8)
    centers = rng.uniform(0, 1000, (20_000, 2))
    radii = rng.uniform(0.2, 3, 20_000)
    o = rng.uniform(0, 1000, (5000, 2))
    d = rng.normal(size=(5000, 2))
    max_t = rng.choice([INF, 50.0, 300.0], 5000)
    ignore = rng.integers(-1, 20_000, 5000)
    for hits in ("first", "all", "any"):
        one = bp.cast_rays_circles(centers, radii, o, d, max_t=max_t, hits=hits, ignore=ignore,
                                   workers=1)
        many = bp.cast_rays_circles(centers, radii, o, d, max_t=max_t, hits=hits, ignore=ignore)
        one, many = (x if isinstance(x, tuple) else (x,) for x in (one, many))
        assert len(one[0]) > 1000  # enough rays (and hits) for several chunks
        for a, b in zip(one, many, strict=True):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)


def test_circle_tangents_and_inside():
    i, t = bp.cast_rays_circles([[5, 0]], 1, [[0, 1], [0, 0.5], [5, 0]], [[1, 0]] * 3)
    assert i.tolist() == [-1, 0, 0] and t[2] == 0.0
    assert t[1] == pytest.approx(5 - math.sqrt(0.75), rel=1e-12)
    assert Decimal(5) - Decimal(0.75).sqrt() == ref.ray_circle([5, 0, 1], [0, 0.5], [1, 0], INF)[1]


@pytest.mark.parametrize("call, match", [
    (lambda: bp.cast_rays([[0, 0, 1, 1]], [[0, np.nan]], [[1, 0]]), r"origins\[0\]: y is nan"),
    (lambda: bp.cast_rays([[0, 0, 1, 1]], [[0, 0], [1, 1]], [[1, 0]]), r"directions: expected 2"),
    (lambda: bp.cast_rays([[0, 0, 1, 1]], [[0, 0]], [[1, np.inf]]), r"directions\[0\]: dy"),
    (lambda: bp.cast_rays([[0, 0, 1, 1]], [[0, 0]], [[1, 0]], max_t=-1), r"max_t: expected"),
    (lambda: bp.cast_rays([[0, 0, 1, 1]], [[0, 0]] * 2, [[1, 0]] * 2, max_t=[1, np.nan]),
     r"max_t\[1\]"),
    (lambda: bp.cast_rays([[0, 0, 1, 1]], [[0, 0]], [[1, 0]], hits="some"), r"hits: expected"),
    (lambda: bp.cast_rays([[0, 0, 1, 1]], [[0, 0]], [[1, 0]], ignore=[3]), r"ignore\[0\]"),
    (lambda: bp.cast_rays([[0, 0, 1, 1], [2, 0, 1, 1]], [[0, 0]], [[1, 0]]),
     r"boxes\[1\]: minx 2.0 > maxx 1.0"),
    (lambda: bp.cast_rays_circles([[0, 0], [1, 1]], [1, -1], [[0, 0]], [[1, 0]]), r"radii\[1\]"),
    (lambda: bp.cast_rays([[0, 0, 1, 1]], [[0, 0]], [[1, 0]], ray_masks=[1, 2]),
     r"ray_masks: expected a scalar or shape \(1,\) \(one per ray\), found shape \(2,\)"),
    (lambda: bp.cast_rays([[0, 0, 1, 1], [2, 0, 3, 1]], [[0, 0]], [[1, 0]],
                          ray_categories=[1, 2]), r"ray_categories: .*\(one per ray\)"),
    (lambda: bp.cast_rays([[0, 0, 1, 1]], [[0, 0]], [[1, 0]], ignore=[0, 0]),
     r"ignore: .*\(one per ray\)"),
    (lambda: bp.cast_rays([[0, 0, 1, 1]], [[0, 0]] * 2, [[1, 0]] * 2, masks=[1, 2]),
     r"masks: .*\(one per object\)"),
])
def test_errors_name_the_argument_and_row(call, match):
    with pytest.raises(ValueError, match=match):
        call()


_BIG = [[2.0**53, -1, 2.0**53 + 4, 1]]  # a box entered at s = 2**53 from the origin


@pytest.mark.parametrize("max_t, error, match", [
    # float64 holds none of these exactly: refused, never rounded (2**53 + 1 would round to
    # 2**53, where the ray only grazes the box's left edge)
    (2**53 + 1, ValueError, r"max_t: integers up to 2\*\*53"),
    (np.int64(2**53 + 1), ValueError, r"max_t: integers up to 2\*\*53"),
    ([2**53 + 1], ValueError, r"max_t\[0\]: integers up to 2\*\*53"),
    (np.uint64(2**64 - 1), ValueError, r"max_t: integers up to 2\*\*53"),
    (2**64, ValueError, r"max_t: integers up to 2\*\*53"),
    (np.longdouble(2**53) + 1, ValueError, r"max_t: values exactly representable"),
    (Fraction(1, 3), ValueError, r"max_t: values exactly representable"),
    (np.ma.masked_array([1.0], [True]), ValueError, r"max_t\[0\]: a masked value"),
    ([True], TypeError, r"max_t\[0\]: expected real numbers, found True"),
    (True, TypeError, r"max_t: expected real numbers, found booleans"),
])
def test_max_t_is_read_exactly_or_refused(max_t, error, match):
    with pytest.raises(error, match=match):
        bp.cast_rays(_BIG, [[0, 0]], [[1, 0]], max_t=max_t)
    tree = bp.LinearQuadtree((0, -2, 2.0**54, 2), 4)
    tree.insert(_BIG)
    with pytest.raises(error, match=match):
        tree.cast_rays([[0, 0]], [[1, 0]], max_t=max_t)


def test_max_t_exact_at_2_to_the_53():
    # the double after 2**53 is 2**53 + 2: the ray reaches past the box's left edge
    assert bp.cast_rays(_BIG, [[0, 0]], [[1, 0]], max_t=2.0**53 + 2)[0].tolist() == [0]
    assert bp.cast_rays(_BIG, [[0, 0]], [[1, 0]], max_t=2**53)[0].tolist() == [-1]


def test_one_max_t_of_shape_1_is_for_one_ray_only():
    with pytest.raises(ValueError, match=r"max_t: expected a scalar or shape \(3,\)"):
        bp.cast_rays(_BIG, [[0, 0]] * 3, [[1, 0]] * 3, max_t=[5.0])


def test_a_circle_entered_at_the_largest_double_has_that_t():
    # from x = -M at half a unit a step, the circle of radius M/2 is entered at s = M
    # exactly; the estimate of a circle's t may pass it by its 2**-36, never the answer
    big = sys.float_info.max
    for hits in ("first", "all"):
        i, t = bp.cast_rays_circles([[0.0, 0.0]], [big / 2], [[-big, 0.0]], [[0.5, 0.0]],
                                    hits=hits)
        assert t.tolist() == [big]
    tree = bp.LinearQuadtree((-1, -1, 1, 1), 2)
    tree.insert_circles([[0.0, 0.0]], big / 2)
    assert tree.cast_rays([[-big, 0.0]], [[0.5, 0.0]])[1].tolist() == [big]
    # entered at s = 2M: past the doubles, inf
    assert bp.cast_rays_circles([[0.0, 0.0]], [big / 2], [[-big, 0.0]],
                                [[0.25, 0.0]])[1].tolist() == [INF]


def test_empty_inputs():
    i, t = bp.cast_rays(np.empty((0, 4)), [[0, 0]], [[1, 0]])
    assert i.tolist() == [-1] and t.tolist() == [INF]
    i, t = bp.cast_rays([[0, 0, 1, 1]], np.empty((0, 2)), np.empty((0, 2)))
    assert i.shape == (0,) and t.shape == (0,)
    pairs, t = bp.cast_rays([[0, 0, 1, 1]], np.empty((0, 2)), np.empty((0, 2)), hits="all")
    assert pairs.shape == (0, 2) and pairs.dtype == np.intp


def test_a_circle_entered_at_the_end_of_a_segment_is_given_no_later_than_max_t():
    # the exact entry is just below 1; its estimate within 2**-36 may pass 1
    o, d = [-3.647968356548127, 3.017405779005456], [2.6543200013017336, -3.1299355355862652]
    i, t = bp.cast_rays_circles([[0, 0]], [1], [o], [d], max_t=1)
    assert i.tolist() == [0] and t[0] <= 1.0
    assert ref.ray_circle_within([0, 0, 1], o, d, t[0], CIRCLE_REL)
