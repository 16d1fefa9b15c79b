"""3D boxes and spheres in the one-call searches, against references written here.

The references are plain Python loops over the strict rules (boxes: overlap
on all three axes; spheres: ``dx² + dy² + dz² < (r1 + r2)²`` in Fractions),
and, for the large inputs, NumPy broadcasting (boxes) and int64 arithmetic
on integer spheres; none of them calls the package.
"""

import itertools
import math
import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import broadphase as bp
from broadphase import _core
from helpers import assert_same
from test_filters import filters  # the filters' strategy: groups, categories, masks

try:
    import pandas as pd
except ImportError:  # pragma: no cover
    pd = None
try:
    import pyarrow as pa
except ImportError:  # pragma: no cover
    pa = None
try:
    import polars as pl
except ImportError:  # pragma: no cover
    pl = None

needs_pandas = pytest.mark.skipif(pd is None, reason="needs pandas")
needs_arrow = pytest.mark.skipif(pa is None, reason="needs pyarrow")
needs_polars = pytest.mark.skipif(pl is None, reason="needs polars")

METHODS_3D = ("auto",) + tuple(bp.METHODS)  # every method takes 3D ("quadtree": the octree)
ALL_BITS = 2**64 - 1
TINY = np.nextafter(0.0, 1.0)  # 5e-324, the smallest subnormal
BIG = np.finfo(np.float64).max


# --------------------------------------------------------------------------
# references


def _kept(i, j, groups, categories, masks):
    if groups is not None and groups[i] != 0 and groups[i] == groups[j]:
        return False
    c = [ALL_BITS] * (max(i, j) + 1) if categories is None else categories
    m = [ALL_BITS] * (max(i, j) + 1) if masks is None else masks
    return (int(c[i]) & int(m[j])) != 0 and (int(c[j]) & int(m[i])) != 0


def ref_box_pairs(boxes, groups=None, categories=None, masks=None):
    """Pairs of 3D boxes overlapping strictly on x, y and z, in canonical order."""
    rows = [tuple(float(v) for v in r) for r in np.asarray(boxes, np.float64).reshape(-1, 6)]
    out = []
    for i, j in itertools.combinations(range(len(rows)), 2):  # lexicographic: sorted
        a, b = rows[i], rows[j]
        if all(a[k] < b[k + 3] and b[k] < a[k + 3] for k in range(3)) and _kept(
                i, j, groups, categories, masks):
            out.append((i, j))
    return out


def ref_between(a, b):
    ra = [tuple(map(float, r)) for r in np.asarray(a, np.float64).reshape(-1, 6)]
    rb = [tuple(map(float, r)) for r in np.asarray(b, np.float64).reshape(-1, 6)]
    return [(i, j) for i, p in enumerate(ra) for j, q in enumerate(rb)
            if all(p[k] < q[k + 3] and q[k] < p[k + 3] for k in range(3))]


def ref_sphere_pairs(centers, radii, groups=None, categories=None, masks=None):
    """Exact: every value as a Fraction, (dx² + dy² + dz²) < (r1 + r2)²."""
    c = [[Fraction(float(v)) for v in row] for row in np.asarray(centers, np.float64)]
    r = [Fraction(float(v)) for v in np.broadcast_to(np.asarray(radii, np.float64), (len(c),))]
    out = []
    for i, j in itertools.combinations(range(len(c)), 2):
        d2 = sum((c[i][k] - c[j][k]) ** 2 for k in range(3))
        if d2 < (r[i] + r[j]) ** 2 and _kept(i, j, groups, categories, masks):
            out.append((i, j))
    return out


def ref_box_pairs_np(boxes, chunk=1024):
    """The box rule by broadcasting, a chunk of rows at a time (for large inputs)."""
    b = np.asarray(boxes, np.float64)
    out = []
    for s in range(0, len(b), chunk):
        a = b[s:s + chunk]
        hit = np.ones((len(a), len(b)), bool)
        for k in range(3):
            hit &= (a[:, None, k] < b[None, :, k + 3]) & (b[None, :, k] < a[:, None, k + 3])
        i, j = np.nonzero(hit)
        i = i + s
        keep = i < j
        out.append(np.stack([i[keep], j[keep]], 1))
    return np.concatenate(out).reshape(-1, 2) if out else np.empty((0, 2), int)


def ref_int_sphere_pairs_np(c2, r2):
    """Spheres of integer doubled centres ``c2`` and doubled radii ``r2``: exact in int64."""
    c2 = np.asarray(c2, np.int64)
    r2 = np.asarray(r2, np.int64)
    d = c2[:, None, :] - c2[None, :, :]
    hit = (d * d).sum(axis=2) < (r2[:, None] + r2[None, :]) ** 2
    i, j = np.nonzero(np.triu(hit, 1))
    return np.stack([i, j], 1)


def test_references_agree_with_each_other():
    # the broadcasting reference against the loops (so that each can fail alone)
    rng = np.random.default_rng(5)
    lo = rng.integers(-5, 5, (150, 3)).astype(float)
    b = np.hstack([lo, lo + rng.integers(0, 4, (150, 3))])
    assert_same(ref_box_pairs_np(b, chunk=7), ref_box_pairs(b))
    c = rng.integers(-6, 6, (80, 3))
    r = rng.integers(0, 5, 80)
    assert_same(ref_int_sphere_pairs_np(2 * c, r), ref_sphere_pairs(c, r / 2))


def test_reference_rules_by_hand():
    # the references themselves, on cases decided by hand
    assert ref_box_pairs([[0, 0, 0, 1, 1, 1], [1, 0, 0, 2, 1, 1]]) == []  # a shared face
    assert ref_box_pairs([[0, 0, 0, 2, 2, 2], [1, 1, 1, 3, 3, 3]]) == [(0, 1)]
    assert ref_box_pairs([[0, 0, 0, 2, 2, 2], [1, 1, 2, 3, 3, 3]]) == []  # touching in z only
    assert ref_sphere_pairs([[0, 0, 0], [1, 2, 2]], [1, 2]) == []  # distance 3 = 1 + 2
    assert ref_sphere_pairs([[0, 0, 0], [1, 2, 2]], [1, 2.5]) == [(0, 1)]


# --------------------------------------------------------------------------
# strategies

# Powers of two keep the ties (shared faces, tangencies) of the integer sets;
# the others round, and reach small and large magnitudes.
SCALES = [1.0, 0.5, 2.0**-40, 2.0**40, 0.1, 3.0, 1e-200, 1e200]
OFFSETS = [0.0, -1000.0, 7.25, 1e6, 0.1]


@st.composite
def int_boxes(draw, min_n=0, max_n=60):
    """3D boxes on a small integer grid: shared faces and edges, duplicates, zero sizes."""
    coord = st.integers(-4, 4)
    size = st.sampled_from([0, 0, 1, 1, 1, 2, 3, 12])  # 12 spans the whole grid
    pool = draw(st.lists(st.tuples(coord, coord, coord, size, size, size), min_size=1,
                         max_size=30))
    n = draw(st.integers(min_n, max_n))
    idx = draw(st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n))
    rows = np.array([pool[i] for i in idx], np.float64).reshape(-1, 6)
    s = draw(st.sampled_from(SCALES))
    off = draw(st.sampled_from(OFFSETS))
    lo, size = rows[:, :3], rows[:, 3:]
    boxes = np.hstack([off + s * lo, off + s * (lo + size)])
    return np.ascontiguousarray(boxes.reshape(-1, 6))


@st.composite
def float_boxes(draw, min_n=0, max_n=60):
    """Random floats, sizes sometimes zero, a magnitude per example."""
    n = draw(st.integers(min_n, max_n))
    mag = draw(st.sampled_from([1.0, 1e-150, 1e150, 1e-7, 1e9]))
    c = st.floats(-1000, 1000, allow_nan=False, allow_infinity=False)
    w = st.one_of(st.just(0.0), st.floats(0, 400, allow_nan=False, allow_infinity=False))
    rows = np.array(draw(st.lists(st.tuples(c, c, c, w, w, w), min_size=n, max_size=n)),
                    np.float64).reshape(-1, 6) * mag
    return np.ascontiguousarray(np.hstack([rows[:, :3], rows[:, :3] + rows[:, 3:]]))


def _adversarial_sets():
    """Hand-made sets: shared faces, one-ulp slabs, duplicates, huge and tiny, outliers."""
    sets = {}
    # a 3 x 3 x 3 lattice of unit cubes, every neighbour sharing a face, edge or corner
    cubes = [[x, y, z, x + 1, y + 1, z + 1] for x in range(3) for y in range(3)
             for z in range(3)]
    sets["lattice"] = cubes
    up = np.nextafter(1.0, 2.0)
    down = np.nextafter(1.0, 0.0)
    # the same with the middle cube grown by one ulp (overlaps its neighbours) and a
    # corner cube shrunk by one ulp (which then touches the grown one: no pair)
    grown = [list(r) for r in cubes]
    grown[13] = [np.nextafter(1.0, 0.0), down, down, np.nextafter(2.0, 3.0),
                 np.nextafter(2.0, 3.0), np.nextafter(2.0, 3.0)]
    grown[0] = [0, 0, 0, down, down, down]
    sets["lattice one ulp"] = grown
    # slabs one ulp thin, and planes of zero thickness
    t = TINY
    sets["slabs"] = [
        [0, 0, 0, 1, 1, t],                 # 0 a slab [0, 5e-324] in z
        [0, 0, t, 1, 1, 1],                 # 1 on top of it: touching only
        [0.5, 0.5, 0, 0.5, 0.5, 1],          # 2 a segment along z through both
        [0, 0, 0.5, 1, 1, 0.5],             # 3 the plane z = 0.5
        [0.5, 0, 0, 0.5, 1, 1],             # 4 the plane x = 0.5: crosses 3
        [0, 0, 0.5, 1, 1, 0.5],             # 5 the same plane again: along it only
        [0, 0, 1, 1, 1, up],                # 6 a one-ulp slab on top of the cube 1
        [0, 0, down, 1, 1, up],             # 7 a two-ulp slab across z = 1
        [0.5, 0.5, 0.5, 0.5, 0.5, 0.5],     # 8 a point, inside 1, on 3, 4 and 5
        [0.5, 0.5, 0.5, 0.5, 0.5, 0.5],     # 9 the same point
        [1, 0, 0, 1, 1, 1],                 # 10 the plane x = 1: a face of 1
    ]
    sets["identical"] = [[1, 2, 3, 4, 5, 6]] * 5 + [[2, 2, 2, 2, 2, 2]] * 3 + [[0] * 6] * 2
    sets["huge and tiny"] = [
        [-1e300, -1e300, -1e300, 1e300, 1e300, 1e300],
        [0, 0, 0, 1e-300, 1e-300, 1e-300],
        [0, 0, 0, t, t, t],
        [-t, -t, -t, 0, 0, 0],
        [-BIG, -BIG, -BIG, BIG, BIG, BIG],
        [1e-300, 1e-300, 1e-300, 2e-300, 2e-300, 2e-300],
        [t, t, t, 2 * t, 2 * t, 2 * t],
    ]
    rng = np.random.default_rng(11)
    lo = rng.uniform(0, 100, (40, 3))
    near = np.hstack([lo, lo + rng.uniform(0, 10, (40, 3))]).tolist()
    sets["far outliers"] = near + [
        [1e300, 1e300, 1e300, 1.0000001e300, 1.0000001e300, 1.0000001e300],
        [1e300, 1e300, 1e300, 1.0000001e300, 1.0000001e300, 1.0000001e300],
        [-1e300, 0, 0, -9e299, 50, 50],
        [0, 0, 1e300, 50, 50, BIG],
        [10, 10, -BIG, 20, 20, BIG],
    ]
    return {k: np.ascontiguousarray(np.array(v, np.float64)) for k, v in sets.items()}


ADVERSARIAL = _adversarial_sets()


@st.composite
def nudged_boxes(draw, max_n=40):
    """Integer boxes whose coordinates are moved by a few ulps, up or down."""
    b = draw(int_boxes(min_n=2, max_n=max_n)).copy()
    steps = draw(st.lists(st.integers(-2, 2), min_size=b.size, max_size=b.size))
    flat = b.reshape(-1)
    for k, s in enumerate(steps):
        for _ in range(abs(s)):
            flat[k] = np.nextafter(flat[k], math.copysign(np.inf, s))
    lo, hi = np.minimum(b[:, :3], b[:, 3:]), np.maximum(b[:, :3], b[:, 3:])
    return np.ascontiguousarray(np.hstack([lo, hi]))


# --------------------------------------------------------------------------
# boxes against the reference, every 3D method


@pytest.mark.parametrize("method", METHODS_3D)
@given(boxes=int_boxes())
def test_int_boxes_match_reference(method, boxes):
    assert_same(bp.find_pairs(boxes, method=method), ref_box_pairs(boxes))


@pytest.mark.parametrize("method", METHODS_3D)
@given(boxes=int_boxes(min_n=100, max_n=160))
def test_int_boxes_above_brute_threshold_match_reference(method, boxes):
    assert_same(bp.find_pairs(boxes, method=method), ref_box_pairs(boxes))


@pytest.mark.parametrize("method", METHODS_3D)
@given(boxes=float_boxes())
def test_float_boxes_match_reference(method, boxes):
    assert_same(bp.find_pairs(boxes, method=method), ref_box_pairs(boxes))


@pytest.mark.parametrize("method", METHODS_3D)
@given(boxes=nudged_boxes())
def test_ulp_nudged_boxes_match_reference(method, boxes):
    assert_same(bp.find_pairs(boxes, method=method), ref_box_pairs(boxes))


@pytest.mark.parametrize("method", METHODS_3D)
@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_sets_match_reference(method, name):
    boxes = ADVERSARIAL[name]
    assert_same(bp.find_pairs(boxes, method=method), ref_box_pairs(boxes))


def test_adversarial_sets_by_hand():
    # a few answers decided by hand, so that the sets test what they claim
    assert ref_box_pairs(ADVERSARIAL["lattice"]) == []
    grown = sorted((min(k, 13), max(k, 13)) for k in range(1, 27) if k != 13)
    assert ref_box_pairs(ADVERSARIAL["lattice one ulp"]) == grown
    assert (0, 1) not in ref_box_pairs(ADVERSARIAL["slabs"])
    assert (3, 4) in ref_box_pairs(ADVERSARIAL["slabs"])
    assert (3, 5) not in ref_box_pairs(ADVERSARIAL["slabs"])
    assert len(ref_box_pairs(ADVERSARIAL["identical"])) == 10
    for method in METHODS_3D:
        assert bp.find_pairs(ADVERSARIAL["lattice"], method=method).tolist() == []
        got = bp.find_pairs(ADVERSARIAL["lattice one ulp"], method=method)
        assert got.tolist() == [list(p) for p in grown]


@pytest.mark.parametrize("method", METHODS_3D)
def test_face_edge_corner_contact_is_no_collision(method):
    cube = [0, 0, 0, 1, 1, 1]
    touching = [[1, 0, 0, 2, 1, 1], [1, 1, 0, 2, 2, 1], [1, 1, 1, 2, 2, 2],
                [0, 0, 1, 1, 1, 2], [-1, -1, -1, 0, 0, 0]]
    assert bp.find_pairs([cube] + touching, method=method).tolist() == []
    # one ulp further in, on any one axis of the corner contact, is not enough either ...
    b = np.array([cube, [1, 1, 1, 2, 2, 2]], float)
    b[1, 0] = np.nextafter(1.0, 0.0)
    assert bp.find_pairs(b, method=method).tolist() == []
    # ... on all three it is
    b[1, :3] = np.nextafter(1.0, 0.0)
    assert bp.find_pairs(b, method=method).tolist() == [[0, 1]]


@given(boxes=int_boxes(max_n=40))
def test_methods_identical(boxes):
    results = [bp.find_pairs(boxes, method=m) for m in METHODS_3D]
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])


@pytest.mark.parametrize("method", METHODS_3D)
def test_z_decides(method):
    # equal x, y footprints: only z separates them (a 2D search of x, y would pair all)
    b = np.array([[0, 0, z, 1, 1, z + 1] for z in range(5)], float)
    assert bp.find_pairs(b, method=method).tolist() == []
    b[2, 5] = 3.5
    assert bp.find_pairs(b, method=method).tolist() == [[2, 3]]


# --------------------------------------------------------------------------
# forms of input


@pytest.mark.parametrize("method", METHODS_3D)
def test_fast_and_slow_paths_agree(method):
    b = ADVERSARIAL["far outliers"]
    want = ref_box_pairs(b)
    assert_same(bp.find_pairs(b, method=method), want)                       # the fast path
    assert_same(bp.find_pairs(b.tolist(), method=method), want)              # lists
    assert_same(bp.find_pairs(np.asfortranarray(b), method=method), want)     # not C-contiguous
    assert_same(bp.find_pairs(b, method=method, workers=1), want)
    assert_same(bp.find_pairs(b, method=method, format="corners"), want)
    ints = np.array([[0, 0, 0, 2, 2, 2], [1, 1, 1, 3, 3, 3]], np.int32)
    assert bp.find_pairs(ints, method=method).tolist() == [[0, 1]]
    assert bp.find_pairs(ints.astype(np.float32), method=method).tolist() == [[0, 1]]


def test_empty_inputs():
    for empty in ([], np.empty((0, 4)), np.empty((0, 6)), np.empty((0, 0))):
        got = bp.find_pairs(empty)
        assert got.shape == (0, 2) and got.dtype == np.intp
    assert bp.find_pairs(np.empty((0, 6)), method="sweep").shape == (0, 2)
    assert bp.find_circle_pairs(np.empty((0, 3)), []).shape == (0, 2)
    assert bp.find_circle_pairs([], 1.0).shape == (0, 2)
    assert bp.find_pairs_between(np.empty((0, 6)), [[0, 0, 0, 1, 1, 1]]).shape == (0, 2)
    assert bp.find_pairs_between([], [[0, 0, 0, 1, 1, 1]]).shape == (0, 2)


@given(boxes=int_boxes(max_n=30))
def test_xywh_3d(boxes):
    xyzwhd = np.hstack([boxes[:, :3], boxes[:, 3:] - boxes[:, :3]])
    # the reference of the far corners as float64 rounds x + w
    want = ref_box_pairs(np.hstack([xyzwhd[:, :3], xyzwhd[:, :3] + xyzwhd[:, 3:]]))
    before = xyzwhd.copy()
    assert_same(bp.find_pairs(xyzwhd, format="xywh"), want)
    np.testing.assert_array_equal(xyzwhd, before)  # the input is not modified
    assert_same(bp.find_pairs(xyzwhd.tolist(), format="xywh", method="sweep"), want)


def test_xywh_3d_by_hand():
    rows = [[0, 0, 0, 2, 2, 2], [1, 1, 1, 2, 2, 2], [0, 0, 2, 2, 2, 1]]
    assert bp.find_pairs(rows, format="xywh").tolist() == [[0, 1], [1, 2]]
    # x + w rounded to float64: 1e16 + 1 is 1e16, so the second box starts at the first's end
    rows = [[1e16, 0, 0, 1, 1, 1], [1e16 + 2, 0, 0, 1, 1, 1], [1e16, 0, 0, 2, 1, 1]]
    assert bp.find_pairs(rows, format="xywh").tolist() == []


# --------------------------------------------------------------------------
# tables


def _corners_columns(b, names=("minx", "miny", "minz", "maxx", "maxy", "maxz")):
    return {n: b[:, k] for k, n in enumerate(names)}


@needs_pandas
@pytest.mark.parametrize("order", [(0, 1, 2, 3, 4, 5), (5, 3, 1, 0, 2, 4), (2, 5, 0, 4, 1, 3)])
def test_pandas_3d_corners_any_order(order):
    b = ADVERSARIAL["slabs"]
    want = ref_box_pairs(b)
    names = ["minx", "miny", "minz", "maxx", "maxy", "maxz"]
    df = pd.DataFrame({names[k]: b[:, k] for k in order})
    df.insert(2, "label", "crate")  # other columns are ignored
    assert_same(bp.find_pairs(df), want)
    aliases = ["XMin", "ymin", " zmin ", "xmax", "YMAX", "zmax"]
    assert_same(bp.find_pairs(pd.DataFrame({aliases[k]: b[:, k] for k in order})), want)
    assert_same(bp.find_pairs_between(df, df.iloc[:3]), ref_between(b, b[:3]), between=True)


@needs_pandas
def test_pandas_3d_xywh():
    b = ADVERSARIAL["lattice one ulp"]
    size = b[:, 3:] - b[:, :3]
    xy = b[:, :3]
    want = ref_box_pairs(np.hstack([xy, xy + size]))
    df = pd.DataFrame({"d": size[:, 2], "x": xy[:, 0], "w": size[:, 0], "z": xy[:, 2],
                       "h": size[:, 1], "y": xy[:, 1]})
    assert_same(bp.find_pairs(df), want)
    assert_same(bp.find_pairs(df, format="xywh", method="brute"), want)
    long = pd.DataFrame({"Width": size[:, 0], "height": size[:, 1], "DEPTH": size[:, 2],
                         "x": xy[:, 0], "y": xy[:, 1], "z": xy[:, 2]})
    assert_same(bp.find_pairs(long), want)
    with pytest.raises(ValueError, match=r"format: 'corners' reads columns minx, miny, minz, "
                                         r"maxx, maxy, maxz.*but boxes has columns x, y, z, w, "
                                         r"h, d \(xywh\)"):
        bp.find_pairs(df, format="corners")


@needs_pandas
def test_pandas_3d_unnamed_columns_are_read_in_order():
    b = ADVERSARIAL["identical"]
    assert_same(bp.find_pairs(pd.DataFrame(b)), ref_box_pairs(b))
    with pytest.raises(ValueError, match=r"boxes: expected 4 columns \(minx, miny, maxx, maxy\) "
                                         r"or 6 columns \(minx, miny, minz, maxx, maxy, maxz\), "
                                         r"found 5 columns without names"):
        bp.find_pairs(pd.DataFrame(np.zeros((2, 5))))


@needs_pandas
def test_which_tables_are_3d():
    # 2D names and a bare z (a draw order, say): 2D, the z ignored
    df = pd.DataFrame({"minx": [0, 1], "miny": [0, 1], "maxx": [2, 3], "maxy": [2, 3],
                       "z": [0, 9]})
    assert bp.find_pairs(df).tolist() == [[0, 1]]
    df = pd.DataFrame({"x": [0, 1], "y": [0, 1], "w": [2, 2], "h": [2, 2], "z": [0, 50]})
    assert bp.find_pairs(df).tolist() == [[0, 1]]
    # x, y, z, w, h, d: 3D, apart in z
    df["d"] = 2
    assert bp.find_pairs(df).tolist() == []
    # a z corner names a 3D table: the other one is missing, not ignored
    with pytest.raises(ValueError, match=r"boxes: expected columns minx, miny, minz, maxx, "
                                         r"maxy, maxz \(or xmin, ymin, zmin, xmax, ymax, zmax\) "
                                         r"or x, y, z, w, h, d .*3D: boxes has the column minz.*"
                                         r"\(missing maxz\)"):
        bp.find_pairs(pd.DataFrame({"minx": [0], "miny": [0], "minz": [0], "maxx": [1],
                                    "maxy": [1]}))
    with pytest.raises(ValueError, match=r"columns 'minz' and 'ZMIN' both name minz"):
        bp.find_pairs(pd.DataFrame({"minx": [0], "miny": [0], "minz": [0], "ZMIN": [0],
                                    "maxx": [1], "maxy": [1], "maxz": [1]}))
    # a column d (or depth) alone does not: x, y, w, h and a depth stay 2D
    df = pd.DataFrame({"x": [0, 1], "y": [0, 1], "w": [2, 2], "h": [2, 2], "depth": [0, 50]})
    assert bp.find_pairs(df).tolist() == [[0, 1]]


@needs_pandas
def test_calls_of_2d_only_refuse_3d_tables():
    tree = bp.LinearQuadtree(bounds=(0, 0, 10, 10), depth=3)
    cubes = pd.DataFrame({"minx": [0], "miny": [0], "minz": [0], "maxx": [1], "maxy": [1],
                          "maxz": [1]})
    with pytest.raises(ValueError, match=r"boxes: expected 2D columns; found the 3D columns "
                                         r"minx, miny, minz, maxx, maxy, maxz"):
        tree.insert(cubes)
    # other z columns are not read there, as before 3D: a circle table with
    # a draw order, a sprite table with a layer and a depth
    circles = pd.DataFrame({"x": [1.0, 2.5], "y": [1.0, 1.0], "z": [0, 9], "r": [1.0, 1.0]})
    h = tree.insert_circles(circles)
    assert tree.touching(h[0]).tolist() == [h[1]]
    sprites = pd.DataFrame({"x": [5.0], "y": [5.0], "w": [2.0], "h": [2.0], "z": [7],
                            "depth": [3], "d": [1]})
    assert len(tree.insert(sprites)) == 1
    # where 3D is taken, x, y, z centres are spheres; names not read may repeat
    assert bp.find_circle_pairs(circles).tolist() == []
    flat = pd.DataFrame({"x": [0, 1], "y": [0, 1], "w": [2, 2], "h": [2, 2], "d": [0, 5],
                         "depth": [1, 1]})
    assert bp.find_pairs(flat).tolist() == [[0, 1]]  # 2D: d and depth are not read
    cubes = flat.drop(columns=["depth"]).assign(Z=[0, 0], z=[3, 3])
    with pytest.raises(ValueError, match=r"columns 'Z' and 'z' both name z"):
        bp.find_pairs(cubes)


@needs_pandas
def test_table_values_named_in_3d_errors():
    df = pd.DataFrame({"minx": [0.0, 0.0], "miny": [0.0, 0.0], "minz": [0.0, 2.0],
                       "maxx": [1.0, 1.0], "maxy": [1.0, 1.0], "maxz": [1.0, 1.0]})
    with pytest.raises(ValueError, match=re.escape("boxes[1]: minz 2.0 > maxz 1.0")):
        bp.find_pairs(df)
    df = df.astype({"maxz": "Float64"})
    df.loc[0, "maxz"] = None
    with pytest.raises(ValueError, match=r"boxes\[0\], column 'maxz': a missing value"):
        bp.find_pairs(df)


@needs_arrow
def test_arrow_3d():
    b = ADVERSARIAL["slabs"]
    cols = _corners_columns(b)
    table = pa.table({k: cols[k] for k in ["maxz", "minx", "maxy", "miny", "minz", "maxx"]})
    assert_same(bp.find_pairs(table), ref_box_pairs(b))
    assert_same(bp.find_pairs(table.to_batches()[0]), ref_box_pairs(b))


@needs_polars
def test_polars_3d():
    b = ADVERSARIAL["huge and tiny"]
    cols = _corners_columns(b, ("xmin", "ymin", "zmin", "xmax", "ymax", "zmax"))
    df = pl.DataFrame({k: cols[k] for k in ["zmax", "ymax", "xmax", "zmin", "ymin", "xmin"]})
    assert_same(bp.find_pairs(df, method="sweep"), ref_box_pairs(b))


def test_structured_array_3d():
    b = ADVERSARIAL["lattice one ulp"]
    names = ["maxz", "minz", "maxy", "miny", "maxx", "minx"]
    rec = np.zeros(len(b), dtype=[(n, np.float64) for n in names] + [("id", np.int64)])
    for n, col in _corners_columns(b).items():
        rec[n] = col
    assert_same(bp.find_pairs(rec), ref_box_pairs(b))
    assert_same(bp.find_pairs(rec[5]), [])  # one record


def test_pygame_rects_stay_2d():
    pygame = pytest.importorskip("pygame")
    rects = [pygame.Rect(0, 0, 2, 2), pygame.Rect(1, 1, 2, 2)]
    assert bp.find_pairs(rects).tolist() == [[0, 1]]


# --------------------------------------------------------------------------
# spheres

# integer offsets of integer length: (1, 2, 2) has length 3, (2, 3, 6) 7, ...
QUADRUPLES = [(1, 2, 2), (2, 3, 6), (0, 3, 4), (2, 6, 9), (4, 4, 7), (1, 4, 8), (6, 6, 7)]
SPHERE_SCALES = [1.0, 0.5, 2.0**-40, 2.0**40, 0.1, 3.0, 1e-100, 1e100]


def _signed_permutations(v):
    out = set()
    for p in itertools.permutations(v):
        for s in itertools.product((1, -1), repeat=3):
            out.add(tuple(a * b for a, b in zip(p, s, strict=True)))
    return sorted(out)


OFFSETS_3D = [(0, 0, 0), (1, 0, 0), (1, 1, 1)] + [
    o for q in QUADRUPLES for o in _signed_permutations(q)[::5]]


@st.composite
def int_spheres(draw, min_n=0, max_n=50):
    """Integer centres a Pythagorean quadruple apart, half-integer radii: many tangencies."""
    n = draw(st.integers(min_n, max_n))
    coord = st.integers(-8, 8)
    base = draw(st.lists(st.tuples(coord, coord, coord), min_size=1, max_size=max(1, n)))
    pts = []
    for _ in range(n):
        b = draw(st.sampled_from(base))
        o = draw(st.sampled_from(OFFSETS_3D))
        pts.append(tuple(x + y for x, y in zip(b, o, strict=True)))
    rad = st.sampled_from([0, 0, 0.5, 1, 1, 1.5, 2, 2.5, 3, 3.5, 4, 5, 6, 7])
    radii = np.array(draw(st.lists(rad, min_size=n, max_size=n)), np.float64)
    s = draw(st.sampled_from(SPHERE_SCALES))
    centers = np.array(pts, np.float64).reshape(-1, 3)
    return centers * s, radii * s


@st.composite
def near_tangent_spheres(draw, max_pairs=12):
    """Pairs whose radii sum is a few ulps from their (exact, integer-scaled) distance."""
    centers, radii = [], []
    scale = draw(st.sampled_from([1.0, 2.0**-30, 2.0**70, 0.1, 1e-50, 1e50]))
    for _ in range(draw(st.integers(1, max_pairs))):
        q = draw(st.sampled_from([o for q in QUADRUPLES for o in _signed_permutations(q)]))
        length = math.isqrt(sum(v * v for v in q))
        base = draw(st.tuples(*[st.integers(-20, 20)] * 3))
        r1 = draw(st.integers(0, length))
        r2 = float(length - r1) * scale
        k = draw(st.integers(-3, 3))
        for _ in range(abs(k)):
            r2 = np.nextafter(r2, math.copysign(np.inf, k))
        centers += [tuple(v * scale for v in base),
                    tuple((b + o) * scale for b, o in zip(base, q, strict=True))]
        radii += [r1 * scale, max(r2, 0.0)]
    return np.array(centers, np.float64), np.array(radii, np.float64)


@st.composite
def float_spheres(draw, min_n=0, max_n=50):
    n = draw(st.integers(min_n, max_n))
    f = st.floats(-100, 100, allow_nan=False, allow_infinity=False).filter(
        lambda v: v == 0 or abs(v) > 1e-40)
    r = st.one_of(st.just(0.0), st.floats(0, 30, allow_nan=False, allow_infinity=False).filter(
        lambda v: v == 0 or v > 1e-40))
    centers = np.array(draw(st.lists(st.tuples(f, f, f), min_size=n, max_size=n)),
                       np.float64).reshape(-1, 3)
    radii = np.array(draw(st.lists(r, min_size=n, max_size=n)), np.float64)
    return centers, radii


SPHERE_SETS = {
    "integers": int_spheres(),
    "integers above the brute threshold": int_spheres(min_n=100, max_n=140),
    "near tangent": near_tangent_spheres(),
    "floats": float_spheres(),
}


@pytest.mark.parametrize("spheres", SPHERE_SETS.values(), ids=SPHERE_SETS.keys())
@pytest.mark.parametrize("method", METHODS_3D)
@given(data=st.data())
def test_spheres_match_exact(method, spheres, data):
    centers, radii = data.draw(spheres)
    assert_same(bp.find_circle_pairs(centers, radii, method=method),
                ref_sphere_pairs(centers, radii))


@pytest.mark.parametrize("method", METHODS_3D)
def test_pythagorean_tangency_by_hand(method):
    c = [[0, 0, 0], [1, 2, 2]]  # distance 3
    assert bp.find_circle_pairs(c, [1, 2], method=method).tolist() == []        # touching
    assert bp.find_circle_pairs(c, [1, np.nextafter(2, 3)], method=method).tolist() == [[0, 1]]
    assert bp.find_circle_pairs(c, [np.nextafter(1, 0), 2], method=method).tolist() == []
    moved = [[0, 0, 0], [1, 2, np.nextafter(2, 1)]]  # one ulp closer
    assert bp.find_circle_pairs(moved, [1, 2], method=method).tolist() == [[0, 1]]
    moved = [[0, 0, 0], [1, 2, np.nextafter(2, 3)]]  # one ulp further
    assert bp.find_circle_pairs(moved, [1, 2], method=method).tolist() == []
    # (2, 3, 6): distance 7, far from any axis
    c = [[10, 20, 30], [12, 23, 36], [12, 23, 36]]
    assert bp.find_circle_pairs(c[:2], [3, 4], method=method).tolist() == []
    assert bp.find_circle_pairs(c[:2], [3, np.nextafter(4, 5)], method=method).tolist() == [[0, 1]]
    assert bp.find_circle_pairs(c, [3, 4, 0], method=method).tolist() == [[1, 2]]  # inside 1
    assert bp.find_circle_pairs(c, [0, 0, 0], method=method).tolist() == []     # equal points
    assert bp.find_circle_pairs(c, [0, 0, TINY], method=method).tolist() == [[1, 2]]


@pytest.mark.parametrize("method", METHODS_3D)
def test_extreme_sphere_magnitudes_match_exact(method):
    centers = np.array([[0, 0, 0], [1e300, 0, 0], [0, 1e-300, 1e-300], [1e300, 1e300, 1e300],
                        [TINY, TINY, TINY], [0, 0, 2 * TINY], [-1e300, 0, 0]])
    radii = np.array([1e300, 1e-300, 1e-300, 1e300, TINY, TINY, 1e300])
    want = ref_sphere_pairs(centers, radii)
    assert (0, 1) in want  # 1e300 + 1e-300 > 1e300 exactly
    assert_same(bp.find_circle_pairs(centers, radii, method=method), want)


@needs_pandas
def test_spheres_from_tables():
    centers = np.array([[0, 0, 0], [1, 2, 2], [1, 2, 3], [9, 9, 9]], float)
    radii = np.array([1, 2.5, 0.5, 1])
    want = ref_sphere_pairs(centers, radii)
    df = pd.DataFrame({"radius": radii, "z": centers[:, 2], "x": centers[:, 0],
                       "y": centers[:, 1]})
    assert_same(bp.find_circle_pairs(df), want)
    assert_same(bp.find_circle_pairs(df[["z", "y", "x"]], radii), want)
    assert_same(bp.find_circle_pairs(pd.DataFrame(centers), radii), want)  # unnamed: in order
    with pytest.raises(ValueError, match=r"radii: given twice"):
        bp.find_circle_pairs(df, radii)
    # (x, z, r is no whole 3D layout: read as 2D centres, y missing)
    with pytest.raises(ValueError, match=r"centers: expected columns x, y .*found columns "
                                         r"x, z, r \(missing y\)"):
        bp.find_circle_pairs(pd.DataFrame({"x": [0], "z": [0], "r": [1]}))
    with pytest.raises(ValueError, match=r"centers\[1\], column 'radius': expected a finite "
                                         r"radius >= 0, found -1.0"):
        bp.find_circle_pairs(df.assign(radius=[1, -1, 1, 1]))
    if pa is not None:
        assert_same(bp.find_circle_pairs(pa.Table.from_pandas(df)), want)


# --------------------------------------------------------------------------
# filters


@pytest.mark.parametrize("method", METHODS_3D)
@given(data=st.data())
def test_box_filters_match_reference(method, data):
    boxes = data.draw(int_boxes(max_n=120))
    g, c, m = data.draw(filters(len(boxes)))
    got = bp.find_pairs(boxes, method=method, groups=g, categories=c, masks=m)
    assert_same(got, ref_box_pairs(boxes, g, c, m))


@pytest.mark.parametrize("method", METHODS_3D)
@given(data=st.data())
def test_sphere_filters_match_reference(method, data):
    centers, radii = data.draw(int_spheres(max_n=60))
    g, c, m = data.draw(filters(len(radii)))
    got = bp.find_circle_pairs(centers, radii, method=method, groups=g, categories=c, masks=m)
    assert_same(got, ref_sphere_pairs(centers, radii, g, c, m))


def test_filters_by_hand():
    boxes = [[0, 0, 0, 4, 4, 4], [1, 1, 1, 3, 3, 3], [2, 2, 2, 5, 5, 5]]
    assert bp.find_pairs(boxes, groups=[1, 1, 0]).tolist() == [[0, 2], [1, 2]]
    assert bp.find_pairs(boxes, categories=[1, 2, 4], masks=[2, 1, 0]).tolist() == [[0, 1]]


# --------------------------------------------------------------------------
# find_pairs_between


@pytest.mark.parametrize("method", METHODS_3D)
@given(a=int_boxes(max_n=40), b=int_boxes(max_n=40))
def test_between_matches_reference(method, a, b):
    assert_same(bp.find_pairs_between(a, b, method=method), ref_between(a, b), between=True)


def test_between_large_sets_match_reference():
    rng = np.random.default_rng(3)
    lo = rng.uniform(0, 100, (2500, 3))
    a = np.hstack([lo, lo + rng.uniform(0, 6, (2500, 3))])
    lo = rng.integers(0, 100, (900, 3)).astype(float)
    b = np.hstack([lo, lo + rng.integers(0, 6, (900, 3))])
    both = np.concatenate([a, b])
    full = ref_box_pairs_np(both)
    want = full[(full[:, 0] < len(a)) & (full[:, 1] >= len(a))] - [0, len(a)]
    want = want[np.lexsort((want[:, 1], want[:, 0]))]
    for method in METHODS_3D:
        for workers in (1, 2):
            got = bp.find_pairs_between(a, b, method=method, workers=workers)
            assert_same(got, want, between=True)


def test_between_dimensions_must_agree():
    two = [[0, 0, 1, 1]]
    three = [[0, 0, 0, 1, 1, 1], [2, 2, 2, 3, 3, 3]]
    with pytest.raises(ValueError, match=re.escape(
            "boxes_a and boxes_b: expected boxes of one dimension, found 2D boxes_a of shape "
            "(1, 4) and 3D boxes_b of shape (2, 6)")):
        bp.find_pairs_between(two, three)
    with pytest.raises(ValueError, match=r"3D boxes_a of shape \(2, 6\) and 2D boxes_b of "
                                         r"shape \(1, 4\)"):
        bp.find_pairs_between(three, two)


def test_between_xywh_and_tables_3d():
    a = [[0, 0, 0, 1, 1, 1]]
    b = [[0.5, 0.5, 0.5, 1, 1, 1], [1, 0, 0, 1, 1, 1]]  # the second touches a's face
    assert bp.find_pairs_between(a, b, format="xywh").tolist() == [[0, 0]]
    if pd is not None:
        df = pd.DataFrame({"x": [0.5, 1], "y": [0.5, 0], "z": [0.5, 0], "w": [1, 1],
                           "h": [1, 1], "d": [1, 1]})
        assert bp.find_pairs_between([[0, 0, 0, 1, 1, 1]], df).tolist() == [[0, 0]]


# --------------------------------------------------------------------------
# threads and sizes past the brute-force threshold


def _big_boxes(n, seed):
    rng = np.random.default_rng(seed)
    side = int(2.5 * n ** (1 / 3))  # about n / 5 pairs
    lo = rng.integers(0, side, (n, 3)).astype(float)  # integer corners: shared faces
    return np.ascontiguousarray(np.hstack([lo, lo + rng.integers(0, 5, (n, 3))]))


@pytest.mark.parametrize("n", [3000, 12000])
def test_large_inputs_match_reference_for_every_method_and_workers(n):
    boxes = _big_boxes(n, seed=n)
    want = ref_box_pairs_np(boxes)
    assert len(want) > n // 10  # enough pairs to mean something
    for method in METHODS_3D:
        results = [bp.find_pairs(boxes, method=method, workers=w) for w in (1, 2, None)]
        for got in results:
            assert_same(got, want)


def test_large_filtered_input_matches_reference():
    boxes = _big_boxes(4000, seed=9)
    groups = np.arange(4000) % 7
    full = ref_box_pairs_np(boxes)
    g = groups[full]
    want = full[(g[:, 0] != g[:, 1]) | (g[:, 0] == 0)]
    for method in METHODS_3D:
        for workers in (1, 2):
            assert_same(bp.find_pairs(boxes, method=method, groups=groups, workers=workers),
                        want)


@pytest.mark.parametrize("n", [3000])
def test_large_sphere_input_matches_exact_integer_reference(n):
    rng = np.random.default_rng(4)
    c2 = 2 * rng.integers(0, 80, (n, 3))            # doubled integer centres
    r2 = rng.integers(0, 9, n)                      # doubled radii: half-integers
    # some exact tangencies along quadruples
    c2[1::7] = c2[0::7][: len(c2[1::7])] + 2 * np.array([1, 2, 2])
    r2[0::7], r2[1::7] = 2, 4
    want = ref_int_sphere_pairs_np(c2, r2)
    for method in METHODS_3D:
        for workers in (1, 2):
            got = bp.find_circle_pairs(c2 / 2, r2 / 2, method=method, workers=workers)
            assert_same(got, want)


@given(boxes=int_boxes(min_n=1, max_n=60))
def test_workers_do_not_change_the_result(boxes):
    one = bp.find_pairs(boxes, workers=1)
    two = bp.find_pairs(boxes, workers=2)
    np.testing.assert_array_equal(one, two)
    assert_same(one, ref_box_pairs(boxes))


# --------------------------------------------------------------------------
# errors


def _good(n=30, seed=7):
    rng = np.random.default_rng(seed)
    lo = rng.uniform(0, 100, (n, 3))
    return np.ascontiguousarray(np.hstack([lo, lo + rng.uniform(0, 5, (n, 3))]))


@pytest.mark.parametrize("shape", [(5, 3), (5, 5), (5, 7), (5, 8), (6,), (2, 6, 1), (0, 5)])
def test_wrong_width(shape):
    with pytest.raises(ValueError, match=re.escape(
            "boxes: expected shape (n, 4) with columns minx, miny, maxx, maxy or (n, 6) with "
            f"columns minx, miny, minz, maxx, maxy, maxz, found shape {shape}")):
        bp.find_pairs(np.zeros(shape))


def test_wrong_width_xywh_and_lists():
    with pytest.raises(ValueError, match=re.escape(
            "boxes: expected shape (n, 4) with columns x, y, w, h or (n, 6) with columns "
            "x, y, z, w, h, d, found shape (1, 5)")):
        bp.find_pairs([[0, 0, 0, 1, 1]], format="xywh")
    with pytest.raises(ValueError, match=r"boxes"):
        bp.find_pairs([[0, 0, 0, 1, 1, 1], [0, 0, 1, 1]])  # ragged
    with pytest.raises(ValueError, match=re.escape(
            "boxes_b: expected shape (n, 4) with columns minx, miny, maxx, maxy or (n, 6)")):
        bp.find_pairs_between([[0, 0, 0, 1, 1, 1]], [[0, 0, 0, 1, 1]])


@pytest.mark.parametrize("shape", [(5, 1), (5, 4), (5,)])
def test_wrong_width_centers(shape):
    with pytest.raises(ValueError, match=re.escape(
            "centers: expected shape (n, 2) with columns x, y or (n, 3) with columns x, y, z, "
            f"found shape {shape}")):
        bp.find_circle_pairs(np.zeros(shape), 1.0)


NAMES = ["minx", "miny", "minz", "maxx", "maxy", "maxz"]


@pytest.mark.parametrize("col", range(6))
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("form", ["array", "list", "workers"])
def test_not_finite_names_row_and_column(col, bad, form):
    b = _good()
    b[21, col] = bad
    value = b.tolist() if form == "list" else b
    kwargs = {"workers": 1} if form == "workers" else {}
    with pytest.raises(ValueError, match=re.escape(
            f"boxes[21]: {NAMES[col]} is {bad}; expected finite numbers")):
        bp.find_pairs(value, **kwargs)


@pytest.mark.parametrize("method", METHODS_3D)
def test_minz_greater_than_maxz(method):
    b = _good()
    b[3] = [0.0, 0.0, 2.0, 1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match=re.escape("boxes[3]: minz 2.0 > maxz 1.0")):
        bp.find_pairs(b, method=method)
    with pytest.raises(ValueError, match=re.escape("boxes[3]: minz 2.0 > maxz 1.0")):
        bp.find_pairs(b.tolist(), method=method, workers=2)


def test_x_and_y_reversed_in_3d():
    b = _good()
    b[17] = [5.0, 0.0, 0.0, 2.0, 1.0, 1.0]
    with pytest.raises(ValueError, match=re.escape("boxes[17]: minx 5.0 > maxx 2.0")):
        bp.find_pairs(b)
    b = _good()
    b[4] = [0.0, 4.5, 0.0, 1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match=re.escape("boxes[4]: miny 4.5 > maxy 1.0")):
        bp.find_pairs(b)


def test_between_names_the_set_and_row():
    a, b = _good(), _good(seed=8)
    b[6] = [0, 0, 3, 1, 1, 2.5]
    with pytest.raises(ValueError, match=re.escape("boxes_b[6]: minz 3.0 > maxz 2.5")):
        bp.find_pairs_between(a, b)
    a[2, 5] = np.nan
    with pytest.raises(ValueError, match=re.escape("boxes_a[2]: maxz is nan")):
        bp.find_pairs_between(a, b)


@pytest.mark.parametrize("workers", [1, 2, None])
def test_first_bad_row_is_named(workers):
    b = np.tile([[0.0, 0.0, 0.0, 1.0, 1.0, 1.0]], (70000, 1))  # several validation chunks
    b[66000] = [3, 0, 0, 1, 1, 1]
    b[40000, 2] = np.nan
    b[50000] = [0, 0, 2, 1, 1, 1]
    with pytest.raises(ValueError, match=re.escape("boxes[40000]: minz is nan")):
        bp.find_pairs(b, workers=workers)
    b[40000, 2] = 0
    with pytest.raises(ValueError, match=re.escape("boxes[50000]: minz 2.0 > maxz 1.0")):
        bp.find_pairs(b, workers=workers)


def test_xywh_3d_errors():
    with pytest.raises(ValueError, match=re.escape(
            "boxes[1]: d -1.0 < 0; expected (x, y, z, w, h, d) with sizes >= 0")):
        bp.find_pairs([[0, 0, 0, 1, 1, 1], [0, 0, 0, 1, 1, -1]], format="xywh")
    with pytest.raises(ValueError, match=re.escape("boxes[0]: z is nan; expected finite")):
        bp.find_pairs([[0, 0, np.nan, 1, 1, 1]], format="xywh")
    with pytest.raises(ValueError, match=re.escape(
            "boxes[0]: z + d = 1.7e+308 + 1e+308 passes float64's largest value")):
        bp.find_pairs([[0, 0, 1.7e308, 1, 1, 1e308]], format="xywh")


@pytest.mark.parametrize("method", ["grid", "quadtree"])
def test_cell_methods_take_3d_on_every_path(method):
    # the grid and the quadtree (the octree in 3D): the fast path, lists, xywh,
    # between, spheres; each against the references
    b = _good(200)
    want = ref_box_pairs(b)
    assert len(want) > 0
    for value in (b, b.tolist(), np.asfortranarray(b)):
        assert_same(bp.find_pairs(value, method=method), want)
    size = b[:, 3:] - b[:, :3]
    xyzwhd = np.hstack([b[:, :3], size])
    assert_same(bp.find_pairs(xyzwhd, method=method, format="xywh"),
                ref_box_pairs(np.hstack([b[:, :3], b[:, :3] + size])))
    assert_same(bp.find_pairs_between(b[:120], b[120:], method=method),
                ref_between(b[:120], b[120:]), between=True)
    c, r = b[:, :3], b[:, 3] - b[:, 0]
    assert_same(bp.find_circle_pairs(c, r, method=method), ref_sphere_pairs(c, r))
    # and 2D as before
    assert bp.find_pairs([[0, 0, 2, 2], [1, 1, 3, 3]], method=method).tolist() == [[0, 1]]


def test_octree_is_the_quadtree_by_another_name():
    b = _good(300)
    want = ref_box_pairs(b)
    assert_same(bp.find_pairs(b, method="octree"), want)
    assert_same(bp.find_pairs(b.tolist(), method="octree", workers=1), want)
    c, r = b[:, :3], b[:, 3] - b[:, 0]
    assert_same(bp.find_circle_pairs(c, r, method="octree"), ref_sphere_pairs(c, r))
    assert_same(bp.find_pairs_between(b[:100], b[100:], method="octree"),
                ref_between(b[:100], b[100:]), between=True)
    assert bp.find_pairs([[0, 0, 2, 2], [1, 1, 3, 3]], method="octree").tolist() == [[0, 1]]
    with pytest.raises(ValueError, match=r"method: expected one of 'auto', 'brute', 'sweep', "
                                         r"'grid', 'quadtree', 'octree'; found 'kdtree'"):
        bp.find_pairs(b, method="kdtree")


def test_sphere_errors():
    c = _good()[:, :3].copy()
    r = np.ones(len(c))
    r[4] = -1.0
    with pytest.raises(ValueError, match=re.escape("radii[4]: expected a radius >= 0, found "
                                                   "-1.0")):
        bp.find_circle_pairs(c, r)
    with pytest.raises(ValueError, match=re.escape("radii: expected a radius >= 0, found -2.0")):
        bp.find_circle_pairs(c, -2.0)
    r[4] = np.nan
    with pytest.raises(ValueError, match=re.escape("radii[4]: expected a finite radius, found "
                                                   "nan")):
        bp.find_circle_pairs(c, r)
    c[2, 2] = np.inf
    with pytest.raises(ValueError, match=re.escape("centers[2]: z is inf; expected finite")):
        bp.find_circle_pairs(c, 1.0, workers=1)
    with pytest.raises(ValueError, match=r"radii: expected a scalar or shape \(30,\)"):
        bp.find_circle_pairs(_good()[:, :3], np.ones(29))


def test_core_codes():
    # the core's own answer for a reversed z, and the code the messages read
    b = _good()
    b[5] = [0, 0, 2, 1, 1, 1]
    bad = _core.find_pairs(b, "auto")
    assert type(bad) is _core.BadRow and (bad.row, bad.code) == (5, _core.Z_REVERSED)
    assert len({_core.NOT_FINITE, _core.X_REVERSED, _core.Y_REVERSED, _core.Z_REVERSED,
                _core.NEGATIVE_RADIUS}) == 5
    bounds = _core.scan_boxes(_good(), None)
    assert len(bounds) == 6
    boxes = _core.circle_boxes(np.ascontiguousarray(_good()[:, :4]), None)
    assert boxes.shape == (30, 6)


def test_too_many_pairs_is_a_memory_error_naming_the_count():
    boxes = np.tile([[1.0, 1.0, 1.0, 2.0, 2.0, 2.0]], (3000, 1))
    for method in METHODS_3D:
        with pytest.raises(MemoryError, match=r"^4,498,500 colliding pairs: the result alone"):
            _core.find_pairs(boxes, method, max_pairs=100_000)
    xyzr = np.zeros((2000, 4))
    xyzr[:, 3] = 1.0
    with pytest.raises(MemoryError, match=r"^1,999,000 colliding pairs"):
        _core.find_pairs(None, "sweep", circles=xyzr, max_pairs=1000)
    assert len(bp.find_pairs(boxes[:100])) == 4950  # the next call works
